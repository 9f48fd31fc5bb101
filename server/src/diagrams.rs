//! The diagrams email previews link to (`/v1/diagrams/{key}.svg|png`): kept in memory, least
//! recently used first out, bounded both in count and in bytes so a stream of large diagrams
//! cannot grow the process past its configured memory.

use std::sync::Arc;

pub struct DiagramStore {
    lru: lru::LruCache<String, Arc<String>>,
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
    pub fn put(&mut self, key: &str, svg: &str) {
        if self.lru.get(key).is_some() || svg.len() > self.max_bytes {
            return;
        }
        self.bytes += cost(key, svg);
        self.lru.put(key.to_string(), Arc::new(svg.to_string()));
        while self.lru.len() > self.max_entries || self.bytes > self.max_bytes {
            let Some((k, v)) = self.lru.pop_lru() else {
                break;
            };
            self.bytes -= cost(&k, &v);
        }
    }

    pub fn get(&mut self, key: &str) -> Option<Arc<String>> {
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

fn cost(key: &str, svg: &str) -> usize {
    key.len() + svg.len() + 64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_by_bytes_and_count_least_recent_out() {
        let mut store = DiagramStore::new(3, 1000);
        store.put("a", &"x".repeat(300));
        store.put("b", &"x".repeat(300));
        assert!(store.get("a").is_some());
        // 300 + 300 + 300 plus overheads is over 1000: "b", the least recently used, goes.
        store.put("c", &"x".repeat(300));
        assert!(store.get("b").is_none() && store.get("a").is_some() && store.get("c").is_some());
        assert!(store.bytes() <= 1000, "{}", store.bytes());
        // Too large to keep at all.
        store.put("huge", &"x".repeat(2000));
        assert!(store.get("huge").is_none());
        // The count bound.
        let mut store = DiagramStore::new(2, 1 << 20);
        for k in ["a", "b", "c"] {
            store.put(k, "<svg/>");
        }
        assert_eq!(store.len(), 2);
        assert!(store.get("a").is_none());
    }
}
