//! The diagrams email previews link to (`/v1/diagrams/{key}.svg|png`): kept in memory, least
//! recently used first out, bounded both in count and in bytes so a stream of large diagrams
//! cannot grow the process past its configured memory.

use bytes::Bytes;
use std::sync::Arc;

/// A published diagram: its SVG, and its PNG once one has been drawn (the key names fixed
/// content, so the PNG never changes and need not be drawn again).
#[derive(Clone)]
pub struct Diagram {
    /// Shared with the cached rendering that published it, not copied.
    pub svg: Arc<str>,
    pub png: Option<Bytes>,
}

pub struct DiagramStore {
    lru: lru::LruCache<String, Diagram>,
    bytes: usize,
    max_entries: usize,
    max_bytes: usize,
}

impl DiagramStore {
    pub fn new(max_entries: usize, max_bytes: usize) -> DiagramStore {
        DiagramStore {
            lru: lru::LruCache::unbounded(),
            bytes: 0,
            max_entries,
            max_bytes,
        }
    }

    /// Keeps `svg` under `key` (once: a key names its content), then evicts the least recently
    /// used diagrams until the store is within its bounds. A diagram larger than the whole
    /// byte bound is not kept.
    pub fn put(&mut self, key: &str, svg: &Arc<str>) {
        if self.lru.get(key).is_some() || svg.len() > self.max_bytes {
            return;
        }
        let diagram = Diagram {
            svg: svg.clone(),
            png: None,
        };
        self.bytes += cost(key, &diagram);
        self.lru.put(key.to_string(), diagram);
        self.evict();
    }

    /// Keeps the PNG drawn from `key`'s SVG beside it, counted in the byte bound. Not kept when
    /// the diagram has gone meanwhile, or when SVG and PNG together are over the whole bound.
    pub fn put_png(&mut self, key: &str, png: Bytes) {
        let Some(diagram) = self.lru.get_mut(key) else {
            return;
        };
        if diagram.png.is_some() || cost(key, diagram) + png.len() > self.max_bytes {
            return;
        }
        self.bytes += png.len();
        diagram.png = Some(png);
        self.evict();
    }

    /// Drops the least recently used diagrams until the store is within its bounds.
    fn evict(&mut self) {
        while self.lru.len() > self.max_entries || self.bytes > self.max_bytes {
            let Some((k, v)) = self.lru.pop_lru() else {
                break;
            };
            self.bytes -= cost(&k, &v);
        }
    }

    pub fn get(&mut self, key: &str) -> Option<Diagram> {
        self.lru.get(key).cloned()
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.lru.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lru.is_empty()
    }
}

fn cost(key: &str, diagram: &Diagram) -> usize {
    key.len() + diagram.svg.len() + diagram.png.as_ref().map_or(0, Bytes::len) + 64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_by_bytes_and_count_least_recent_out() {
        let mut store = DiagramStore::new(3, 1000);
        store.put("a", &"x".repeat(300).into());
        store.put("b", &"x".repeat(300).into());
        assert!(store.get("a").is_some());
        // 300 + 300 + 300 plus overheads is over 1000: "b", the least recently used, goes.
        store.put("c", &"x".repeat(300).into());
        assert!(store.get("b").is_none() && store.get("a").is_some() && store.get("c").is_some());
        assert!(store.bytes() <= 1000, "{}", store.bytes());
        // Too large to keep at all.
        store.put("huge", &"x".repeat(2000).into());
        assert!(store.get("huge").is_none());
        // The count bound.
        let mut store = DiagramStore::new(2, 1 << 20);
        for k in ["a", "b", "c"] {
            store.put(k, &"<svg/>".into());
        }
        assert_eq!(store.len(), 2);
        assert!(store.get("a").is_none());
    }

    #[test]
    fn a_drawn_png_is_kept_and_counted() {
        let mut store = DiagramStore::new(3, 1000);
        store.put("a", &"<svg/>".into());
        assert!(store.get("a").unwrap().png.is_none());
        let before = store.bytes();
        store.put_png("a", Bytes::from_static(b"\x89PNG"));
        let a = store.get("a").unwrap();
        assert_eq!(a.png.as_deref(), Some(&b"\x89PNG"[..]));
        assert_eq!(store.bytes(), before + 4);
        // A PNG that would put the entry over the whole bound is served but not kept.
        store.put("b", &"<svg/>".into());
        store.put_png("b", Bytes::from(vec![0; 1000]));
        assert!(store.get("b").unwrap().png.is_none());
        // The PNG's bytes count toward eviction: "a" (least recently used) goes.
        store.put("c", &"<svg/>".into());
        store.put_png("c", Bytes::from(vec![0; 800]));
        assert!(store.get("a").is_none() && store.get("c").unwrap().png.is_some());
        assert!(store.bytes() <= 1000, "{}", store.bytes());
    }
}
