//! The engine: rendering through the bounded cache.

use crate::cache::{self, CacheConfig, CacheStats};
use crate::options::Options;
use crate::render::{Rendered, keyed_content_hash, render_with_hash};
use std::sync::Arc;

/// A cache miss: the content hash to render with, and the lookup key to store the rendering
/// under (both worked out once, by [`Engine::lookup`]).
#[derive(Debug)]
pub struct Miss {
    /// The content hash (the rendering's ETag).
    pub hash: String,
    key: cache::Key,
}

/// The engine: renders through a bounded cache.
pub struct Engine {
    cache: cache::Cache,
    /// The secret the content hash is keyed with, if any (see [`Engine::with_hash_key`]).
    hash_key: Option<[u8; 32]>,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new(CacheConfig::default())
    }
}

impl Engine {
    /// An engine whose cache has the bounds of `config`.
    pub fn new(config: CacheConfig) -> Self {
        Engine {
            cache: cache::Cache::new(config),
            hash_key: None,
        }
    }

    /// Keys the content hash of every rendering with `key` (see
    /// [`crate::keyed_content_hash`]): the hashes, and so the ETags and the names
    /// [`Engine::cached`] finds renderings by, cannot be worked out without it. Engines that
    /// share a key (replicas behind one address) name the same rendering alike.
    pub fn with_hash_key(mut self, key: Option<[u8; 32]>) -> Self {
        self.hash_key = key;
        self
    }

    /// Renders `src`, or returns the cached rendering of the same document and options.
    pub fn render(&self, src: &str, options: &Options) -> Arc<Rendered> {
        match self.lookup(src, options) {
            Ok(hit) => hit,
            Err(miss) => self.render_miss(src.to_owned(), options.clone(), miss),
        }
    }

    /// A cache lookup only: the rendering on a hit, or what rendering needs on a miss (see
    /// [`Engine::render_miss`]). Lets a server answer hits without leaving its event loop and
    /// send only misses to a blocking pool.
    pub fn lookup(&self, src: &str, options: &Options) -> Result<Arc<Rendered>, Miss> {
        let key = self.cache.key(src, options);
        self.cache.hit(key, src, options).ok_or_else(|| Miss {
            hash: keyed_content_hash(self.hash_key.as_ref(), src, options),
            key,
        })
    }

    /// Renders after a [`Engine::lookup`] miss and caches the result, with the document and
    /// options it takes (the cache keeps them to check later hits against).
    pub fn render_miss(&self, src: String, options: Options, miss: Miss) -> Arc<Rendered> {
        self.cache.count_miss();
        let rendered = Arc::new(render_with_hash(&src, &options, miss.hash));
        // A cancelled render is cut short: it must not answer later requests.
        if !crate::budget::cancelled() {
            self.cache.put(miss.key, src, options, rendered.clone());
        }
        rendered
    }

    /// Renders `src` past the cache: nothing of it is kept, and [`Engine::cached`] never finds
    /// it. For a document that must not outlive its request (a routed document can be deleted
    /// at any time). Its hash is keyed as a cached rendering's is, so its bytes are the same.
    pub fn render_uncached(&self, src: &str, options: &Options) -> Rendered {
        let hash = keyed_content_hash(self.hash_key.as_ref(), src, options);
        render_with_hash(src, options, hash)
    }

    /// A cached rendering by its hash (for `GET /v1/render/{hash}`).
    pub fn cached(&self, hash: &str) -> Option<Arc<Rendered>> {
        self.cache.peek(hash)
    }

    /// The cache's counters and size now.
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }
}
