//! Rendered output cached by content hash, bounded by entry count and by bytes.

use crate::{Options, Rendered};
use lru::LruCache;
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex};
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Limits of the render cache.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct CacheConfig {
    /// Most renderings kept; 0 disables the cache.
    pub max_entries: usize,
    /// Most bytes of rendered output kept.
    pub max_bytes: usize,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            max_entries: 4096,
            max_bytes: 64 * 1024 * 1024,
        }
    }
}

impl CacheConfig {
    pub fn new(max_entries: usize, max_bytes: usize) -> Self {
        CacheConfig {
            max_entries,
            max_bytes,
        }
    }
}

/// Counters for `/metrics`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    pub evictions: u64,
    pub bytes: usize,
    pub entries: usize,
}

/// The cache. A lookup hashes the document with xxh3 (several times faster than the blake3
/// content hash, which a hit would otherwise spend most of its time on) under a per-process
/// random seed, then compares the stored source and options with the request's: a hit never
/// rests on the hash alone, so a collision, however unlikely, costs a render and not a wrong
/// answer. The blake3 content hash is only worked out on a miss, for the rendering's ids, ETag
/// and `GET /v1/render/{hash}`, which finds the entry through a second index.
pub struct Cache {
    config: CacheConfig,
    /// Seeds the lookup key, so no one can build documents that share a key on purpose.
    seed: RandomState,
    inner: Mutex<Inner>,
}

struct Inner {
    /// Renderings by lookup key ([`Cache::key`]), least recently used first out.
    map: LruCache<u64, Entry>,
    /// The lookup key of each stored rendering, by its content hash.
    by_hash: HashMap<String, u64>,
    stats: CacheStats,
}

/// A stored rendering with what it was rendered from, to check a hit against.
struct Entry {
    rendered: Arc<Rendered>,
    source: Box<str>,
    options: Options,
    /// Its share of the byte bound, worked out once when it is stored.
    weight: usize,
}

impl Cache {
    pub fn new(config: CacheConfig) -> Self {
        Cache {
            config,
            seed: RandomState::new(),
            inner: Mutex::new(Inner {
                map: LruCache::unbounded(),
                by_hash: HashMap::new(),
                stats: CacheStats::default(),
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave the maps inconsistent (no operation on
        // them can panic halfway), so a poisoned lock is still usable.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The lookup key of a document rendered with `options`.
    fn key(&self, src: &str, options: &Options) -> u64 {
        xxh3_64_with_seed(src.as_bytes(), self.seed.hash_one(options))
    }

    /// The rendering of `src` with `options`, counting only a hit (the caller counts the miss
    /// when it renders).
    pub fn hit(&self, src: &str, options: &Options) -> Option<Arc<Rendered>> {
        let key = self.key(src, options);
        let mut inner = self.lock();
        let found = inner
            .map
            .get(&key)
            .filter(|e| *e.source == *src && e.options == *options)
            .map(|e| e.rendered.clone());
        if found.is_some() {
            inner.stats.hits += 1;
        }
        found
    }

    pub fn count_miss(&self) {
        self.lock().stats.misses += 1;
    }

    /// Looks up by content hash, without touching the counters or the recency order.
    pub fn peek(&self, hash: &str) -> Option<Arc<Rendered>> {
        let inner = self.lock();
        let key = inner.by_hash.get(hash)?;
        inner.map.peek(key).map(|e| e.rendered.clone())
    }

    /// Stores the rendering of `src` with `options`, evicting the least recently used ones past
    /// the bounds. A rendering larger than the whole byte budget is not stored.
    pub fn put(&self, src: &str, options: &Options, rendered: Arc<Rendered>) {
        // The source is kept to check hits against; the index holds the hash a second time.
        let size = rendered.weight() + src.len() + rendered.hash.len() + 64;
        if self.config.max_entries == 0 || size > self.config.max_bytes {
            return;
        }
        let key = self.key(src, options);
        let hash = rendered.hash.clone();
        let entry = Entry {
            rendered,
            source: src.into(),
            options: options.clone(),
            weight: size,
        };
        // Evicted renderings are freed after the lock is released: freeing a page's buffers is
        // the slow part of an eviction, and other requests wait on the lock meanwhile.
        let mut evicted = Vec::new();
        let mut inner = self.lock();
        // The same key again: the same document rendered twice at once, or (seldom) another
        // document whose key collides; either way the older entry goes.
        if let Some(replaced) = inner.map.put(key, entry) {
            inner.forget(&replaced);
            evicted.push(replaced);
        }
        inner.by_hash.insert(hash, key);
        inner.stats.bytes += size;
        while inner.map.len() > self.config.max_entries || inner.stats.bytes > self.config.max_bytes
        {
            match inner.map.pop_lru() {
                Some((_, gone)) => {
                    inner.forget(&gone);
                    inner.stats.evictions += 1;
                    evicted.push(gone);
                }
                None => break,
            }
        }
        drop(inner);
        drop(evicted);
    }

    pub fn stats(&self) -> CacheStats {
        let inner = self.lock();
        CacheStats {
            entries: inner.map.len(),
            ..inner.stats
        }
    }
}

impl Inner {
    /// Takes an entry that left the map out of the index and the byte count.
    fn forget(&mut self, entry: &Entry) {
        self.stats.bytes -= entry.weight;
        self.by_hash.remove(&entry.rendered.hash);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Surface, render};

    fn store(cache: &Cache, src: &str, options: &Options) -> Arc<Rendered> {
        let rendered = Arc::new(render(src, options));
        cache.put(src, options, rendered.clone());
        rendered
    }

    #[test]
    fn a_hit_needs_the_same_document_and_options() {
        let cache = Cache::new(CacheConfig::default());
        let options = Options::default();
        let stored = store(&cache, "# One", &options);
        let hit = cache.hit("# One", &options).expect("a hit");
        assert!(Arc::ptr_eq(&hit, &stored));
        assert!(cache.hit("# Two", &options).is_none());
        assert!(
            cache
                .hit("# One", &options.clone().with_surface(Surface::Email))
                .is_none()
        );
        assert_eq!(cache.stats().hits, 1);
    }

    /// Two documents whose keys collide: the stored source decides, not the key.
    #[test]
    fn a_key_collision_is_a_miss() {
        let cache = Cache::new(CacheConfig::default());
        let options = Options::default();
        let rendered = Arc::new(render("# One", &options));
        let key_of_two = cache.key("# Two", &options);
        cache.lock().map.put(
            key_of_two,
            Entry {
                rendered,
                source: "# One".into(),
                options: options.clone(),
                weight: 0,
            },
        );
        assert!(cache.hit("# Two", &options).is_none());
        assert_eq!(cache.stats().hits, 0);
    }

    #[test]
    fn the_hash_index_follows_the_entries() {
        let cache = Cache::new(CacheConfig::new(2, 1 << 20));
        let options = Options::default();
        let first = store(&cache, "# One", &options);
        assert!(cache.peek(&first.hash).is_some());
        let second = store(&cache, "# Two", &options);
        // The same document again replaces its entry: one entry, one index line, one weight.
        store(&cache, "# Two", &options);
        assert_eq!(cache.stats().entries, 2);
        let third = store(&cache, "# Three", &options);
        assert!(cache.peek(&first.hash).is_none(), "evicted");
        assert!(cache.peek(&second.hash).is_some());
        assert!(cache.peek(&third.hash).is_some());
        let inner = cache.lock();
        assert_eq!(inner.by_hash.len(), 2);
        let weights: usize = inner.map.iter().map(|(_, e)| e.weight).sum();
        assert_eq!(inner.stats.bytes, weights);
        assert_eq!(inner.stats.evictions, 1);
    }

    /// A peek by hash neither counts nor refreshes: the entry peeked at is still evicted first.
    #[test]
    fn a_peek_leaves_the_order_alone() {
        let cache = Cache::new(CacheConfig::new(2, 1 << 20));
        let options = Options::default();
        let first = store(&cache, "# One", &options);
        store(&cache, "# Two", &options);
        cache.peek(&first.hash).expect("stored");
        store(&cache, "# Three", &options);
        assert!(cache.peek(&first.hash).is_none());
        assert_eq!(cache.stats().hits, 0);
    }
}
