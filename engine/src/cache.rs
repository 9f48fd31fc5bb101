//! Rendered output cached by content hash, bounded by entry count and by bytes.

use crate::Rendered;
use lru::LruCache;
use std::sync::{Arc, Mutex};

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

pub struct Cache {
    config: CacheConfig,
    inner: Mutex<Inner>,
}

struct Inner {
    /// Each rendering with its weight, worked out once when it is stored.
    map: LruCache<String, (Arc<Rendered>, usize)>,
    stats: CacheStats,
}

impl Cache {
    pub fn new(config: CacheConfig) -> Self {
        Cache {
            config,
            inner: Mutex::new(Inner {
                map: LruCache::unbounded(),
                stats: CacheStats::default(),
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave the map inconsistent (every operation is
        // a single lru call), so a poisoned lock is still usable.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Looks up by hash, counting only a hit (the caller counts the miss when it renders).
    pub fn hit(&self, hash: &str) -> Option<Arc<Rendered>> {
        let mut inner = self.lock();
        let found = inner.map.get(hash).map(|(r, _)| r.clone());
        if found.is_some() {
            inner.stats.hits += 1;
        }
        found
    }

    pub fn count_miss(&self) {
        self.lock().stats.misses += 1;
    }

    /// Looks up without touching the counters or the recency order.
    pub fn peek(&self, hash: &str) -> Option<Arc<Rendered>> {
        self.lock().map.peek(hash).map(|(r, _)| r.clone())
    }

    /// Stores a rendering, evicting the least recently used ones past the bounds. A rendering
    /// larger than the whole byte budget is not stored.
    pub fn put(&self, rendered: Arc<Rendered>) {
        let size = rendered.weight();
        if self.config.max_entries == 0 || size > self.config.max_bytes {
            return;
        }
        // Evicted renderings are freed after the lock is released: freeing a page's buffers is
        // the slow part of an eviction, and other requests wait on the lock meanwhile.
        let mut evicted = Vec::new();
        let mut inner = self.lock();
        if let Some((replaced, old)) = inner.map.put(rendered.hash.clone(), (rendered, size)) {
            inner.stats.bytes -= old;
            evicted.push(replaced);
        }
        inner.stats.bytes += size;
        while inner.map.len() > self.config.max_entries || inner.stats.bytes > self.config.max_bytes
        {
            match inner.map.pop_lru() {
                Some((_, (gone, old))) => {
                    inner.stats.bytes -= old;
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
