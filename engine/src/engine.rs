//! The engine: rendering through the bounded cache.

use crate::cache::{self, CacheConfig, CacheStats};
use crate::options::Options;
use crate::render::{Rendered, content_hash, render_with_hash};
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
        }
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
            hash: content_hash(src, options),
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

    /// A cached rendering by its hash (for `GET /v1/render/{hash}`).
    pub fn cached(&self, hash: &str) -> Option<Arc<Rendered>> {
        self.cache.peek(hash)
    }

    /// The cache's counters and size now.
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }
}
