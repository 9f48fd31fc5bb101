//! Rendered output cached by content hash, bounded by entry count and by bytes.

use crate::options::Options;
use crate::render::Rendered;
use lru::LruCache;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex};
use std::thread::{self, ThreadId};
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
    /// A cache of at most `max_entries` renderings and about `max_bytes` of them (0 disables it).
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
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that had to render.
    pub misses: u64,
    /// Renderings dropped to stay within the bounds.
    pub evictions: u64,
    /// Approximate bytes held now.
    pub bytes: usize,
    /// Renderings held now.
    pub entries: usize,
}

/// The cache. A lookup hashes the document with xxh3 (several times faster than the blake3
/// content hash, which a hit would otherwise spend most of its time on) under a per-process
/// random seed, then compares the stored source and options with the request's: a hit never
/// rests on the hash alone, so a collision, however unlikely, costs a render and not a wrong
/// answer. The blake3 content hash is only worked out on a miss, for the rendering's ids, ETag
/// and `GET /v1/render/{hash}`, which finds the entry through a second index. Measured: a hit
/// on the typical 20 KB document fell from 6.2 µs (blake3) to 1.1 µs (criterion's `cache_hit`).
pub struct Cache {
    config: CacheConfig,
    /// Seeds the lookup key, so no one can build documents that share a key on purpose.
    seed: RandomState,
    inner: Mutex<Inner>,
}

struct Inner {
    /// Renderings by lookup key ([`Cache::key`]), least recently used first out.
    map: LruCache<u64, Entry>,
    /// The lookup key of each stored rendering, by its content hash read as a number (no
    /// string to allocate per entry; see [`hash_number`]).
    by_hash: HashMap<u128, u64>,
    /// Evicted entries set aside for the thread that rendered them to free (see
    /// [`Inner::set_aside`]), oldest first, and their weight.
    leftovers: VecDeque<Entry>,
    leftover_bytes: usize,
    stats: CacheStats,
}

/// At most this many evicted entries wait for their thread, and at most this share of the
/// byte budget (the budget counts them). Freeing an entry on the thread that rendered it keeps
/// glibc's arena locks uncontended: freed on the other worker, about 30,000 futex calls a second
/// came from `free` under `Cache::put`, and uncached throughput was 20–21 k req/s against 22–23 k
/// with the queue (`benches/load.sh`, A/B runs; see benches/RESULTS.md).
const MAX_LEFTOVERS: usize = 64;
const LEFTOVER_SHARE: usize = 16;

/// The lookup key of a document and its options (see [`Cache::key`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key(u64);

/// A stored rendering with what it was rendered from, to check a hit against.
struct Entry {
    rendered: Arc<Rendered>,
    source: String,
    options: Options,
    /// Its share of the byte bound, worked out once when it is stored.
    weight: usize,
    /// The thread that rendered it, whose allocator arena holds its buffers.
    owner: ThreadId,
}

impl Cache {
    pub fn new(config: CacheConfig) -> Self {
        Cache {
            config,
            seed: RandomState::new(),
            inner: Mutex::new(Inner {
                map: LruCache::unbounded(),
                by_hash: HashMap::new(),
                leftovers: VecDeque::new(),
                leftover_bytes: 0,
                stats: CacheStats::default(),
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave the maps inconsistent (no operation on
        // them can panic halfway), so a poisoned lock is still usable.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The lookup key of a document rendered with `options`, worked out once per request: a
    /// miss hands it on to [`Cache::put`].
    pub fn key(&self, src: &str, options: &Options) -> Key {
        Key(xxh3_64_with_seed(
            src.as_bytes(),
            self.seed.hash_one(options),
        ))
    }

    /// The rendering of `src` with `options` (whose key is `key`), counting only a hit (the
    /// caller counts the miss when it renders).
    pub fn hit(&self, key: Key, src: &str, options: &Options) -> Option<Arc<Rendered>> {
        let mut inner = self.lock();
        let found = inner
            .map
            .get(&key.0)
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
        let number = hash_number(hash)?;
        let inner = self.lock();
        let key = inner.by_hash.get(&number)?;
        inner.map.peek(key).map(|e| e.rendered.clone())
    }

    /// Stores the rendering of `src` with `options`, evicting the least recently used ones past
    /// the bounds. A rendering larger than the whole byte budget is not stored.
    /// It takes the source and options it keeps, so a caller that owns them (a server, with
    /// the request's body) hands them over instead of having them copied.
    pub fn put(&self, key: Key, mut src: String, options: Options, rendered: Arc<Rendered>) {
        if self.config.max_entries == 0 {
            return;
        }
        // A source taken out of a JSON body can hold spare room; kept for as long as the entry
        // is, it should not. (A raw body's buffer is already exact, and this does nothing.)
        src.shrink_to_fit();
        // The source is kept to check hits against; the index holds the hash a second time.
        let size = rendered.weight() + src.capacity() + rendered.hash.len() + 64;
        if size > self.config.max_bytes {
            return;
        }
        let key = key.0;
        let hash = hash_number(&rendered.hash);
        let me = thread::current().id();
        let entry = Entry {
            rendered,
            source: src,
            options,
            weight: size,
            owner: me,
        };
        // Evicted renderings are freed after the lock is released: freeing a page's buffers is
        // the slow part of an eviction, and other requests wait on the lock meanwhile.
        let mut evicted = Vec::new();
        let mut inner = self.lock();
        // The same key again: the same document rendered twice at once, or (seldom) another
        // document whose key collides; either way the older entry goes.
        if let Some(replaced) = inner.map.put(key, entry) {
            inner.forget(&replaced);
            inner.set_aside(replaced, me, &mut evicted);
        }
        if let Some(hash) = hash {
            inner.by_hash.insert(hash, key);
        }
        inner.stats.bytes += size;
        let leftover_cap = self.config.max_bytes / LEFTOVER_SHARE;
        while inner.map.len() > self.config.max_entries
            || inner.stats.bytes + inner.leftover_bytes > self.config.max_bytes
        {
            // Entries set aside count toward the budget: past their share, or with nothing
            // but the new entry left to evict, the oldest is freed here after all.
            if inner.leftover_bytes > leftover_cap || inner.map.len() <= 1 {
                match inner.leftovers.pop_front() {
                    Some(old) => {
                        inner.leftover_bytes -= old.weight;
                        evicted.push(old);
                        continue;
                    }
                    None => break,
                }
            }
            match inner.map.pop_lru() {
                Some((_, gone)) => {
                    inner.forget(&gone);
                    inner.stats.evictions += 1;
                    inner.set_aside(gone, me, &mut evicted);
                }
                None => break,
            }
        }
        inner.take_own(me, &mut evicted);
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
    /// An entry that left the map, for `me` to free if it rendered it, else set aside for the
    /// thread that did. glibc's malloc gives each thread an arena of its own, and freeing a
    /// large buffer from another thread's arena takes that arena's lock, which its own thread,
    /// rendering, holds at every allocation: with two workers rendering uncached documents,
    /// every eviction contended for a lock, and the waits and wake-ups cost about a fifth of
    /// the throughput (measured with `benches/load.sh`). The owner frees its own entries at
    /// its next store ([`Inner::take_own`]).
    fn set_aside(&mut self, entry: Entry, me: ThreadId, evicted: &mut Vec<Entry>) {
        if entry.owner == me {
            evicted.push(entry);
            return;
        }
        self.leftover_bytes += entry.weight;
        self.leftovers.push_back(entry);
        if self.leftovers.len() > MAX_LEFTOVERS
            && let Some(old) = self.leftovers.pop_front()
        {
            self.leftover_bytes -= old.weight;
            evicted.push(old);
        }
    }

    /// Moves the entries set aside for `me` into `evicted`.
    fn take_own(&mut self, me: ThreadId, evicted: &mut Vec<Entry>) {
        let mut i = 0;
        while i < self.leftovers.len() {
            if self.leftovers[i].owner == me
                && let Some(own) = self.leftovers.swap_remove_back(i)
            {
                self.leftover_bytes -= own.weight;
                evicted.push(own);
            } else {
                i += 1;
            }
        }
    }

    /// Takes an entry that left the map out of the index and the byte count.
    fn forget(&mut self, entry: &Entry) {
        self.stats.bytes -= entry.weight;
        if let Some(hash) = hash_number(&entry.rendered.hash) {
            self.by_hash.remove(&hash);
        }
    }
}

/// A content hash (32 lowercase hex digits, as [`crate::content_hash`] writes it) as a number;
/// `None` for anything else, which names no stored rendering.
fn hash_number(hash: &str) -> Option<u128> {
    let digits = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    if hash.len() != 32 || !hash.bytes().all(digits) {
        return None;
    }
    u128::from_str_radix(hash, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Surface, render};

    fn store(cache: &Cache, src: &str, options: &Options) -> Arc<Rendered> {
        let rendered = Arc::new(render(src, options));
        let key = cache.key(src, options);
        cache.put(key, src.to_string(), options.clone(), rendered.clone());
        rendered
    }

    fn look_up(cache: &Cache, src: &str, options: &Options) -> Option<Arc<Rendered>> {
        cache.hit(cache.key(src, options), src, options)
    }

    #[test]
    fn a_hit_needs_the_same_document_and_options() {
        let cache = Cache::new(CacheConfig::default());
        let options = Options::default();
        let stored = store(&cache, "# One", &options);
        let hit = look_up(&cache, "# One", &options).expect("a hit");
        assert!(Arc::ptr_eq(&hit, &stored));
        assert!(look_up(&cache, "# Two", &options).is_none());
        assert!(
            look_up(
                &cache,
                "# One",
                &options.clone().with_surface(Surface::Email)
            )
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
            key_of_two.0,
            Entry {
                rendered,
                source: "# One".into(),
                options: options.clone(),
                weight: 0,
                owner: thread::current().id(),
            },
        );
        assert!(look_up(&cache, "# Two", &options).is_none());
        assert_eq!(cache.stats().hits, 0);
    }

    #[test]
    fn a_stored_source_keeps_no_spare_room() {
        let (exact, roomy) = (
            Cache::new(CacheConfig::default()),
            Cache::new(CacheConfig::default()),
        );
        let options = Options::default();
        let rendered = Arc::new(render("# One", &options));
        exact.put(
            exact.key("# One", &options),
            "# One".to_string(),
            options.clone(),
            rendered.clone(),
        );
        let mut src = String::with_capacity(4096);
        src.push_str("# One");
        roomy.put(roomy.key("# One", &options), src, options.clone(), rendered);
        assert_eq!(roomy.stats().bytes, exact.stats().bytes);
        assert!(exact.stats().bytes < 4096);
    }

    #[test]
    fn only_a_content_hash_as_written_names_an_entry() {
        let hash = crate::content_hash("# One", &Options::default());
        let number = hash_number(&hash).expect("a content hash");
        assert_eq!(format!("{number:032x}"), hash);
        for other in [
            hash.to_uppercase(),
            hash[..31].to_string(),
            format!("{hash}0"),
            format!("+{}", &hash[1..]),
            format!("{}g", &hash[..31]),
        ] {
            assert_eq!(hash_number(&other), None, "{other}");
        }
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

    /// An entry another thread rendered waits for that thread to free it, within the budget.
    #[test]
    fn evictions_wait_for_the_thread_that_rendered_them() {
        let options = Options::default();
        let one = Arc::new(render("# One", &options));
        let budget = 64 * (one.weight() + 200);
        let cache = Arc::new(Cache::new(CacheConfig::new(2, budget)));
        // Another thread renders and stores two entries.
        let elsewhere = {
            let cache = cache.clone();
            thread::spawn(move || {
                let options = Options::default();
                for doc in ["# One", "# Two"] {
                    store(&cache, doc, &options);
                }
                thread::current().id()
            })
            .join()
            .expect("the thread")
        };
        // This thread's stores evict them; the cache sets them aside instead of freeing them.
        store(&cache, "# Three", &options);
        store(&cache, "# Four", &options);
        {
            let inner = cache.lock();
            assert_eq!(inner.leftovers.len(), 2);
            assert!(inner.leftovers.iter().all(|e| e.owner == elsewhere));
            let weights: usize = inner.leftovers.iter().map(|e| e.weight).sum();
            assert_eq!(inner.leftover_bytes, weights);
            assert!(inner.stats.bytes + inner.leftover_bytes <= budget);
        }
        // Its own evictions it frees at once: nothing more is set aside.
        store(&cache, "# Five", &options);
        store(&cache, "# Six", &options);
        let inner = cache.lock();
        assert_eq!(inner.leftovers.len(), 2);
        assert_eq!(inner.stats.evictions, 4);
        assert_eq!(inner.map.len(), 2);
    }

    /// A thread that never stores again (a blocking-pool thread that exited) cannot hold the
    /// budget: past their share, set-aside entries are freed by whoever stores.
    #[test]
    fn set_aside_entries_stay_within_their_share() {
        let options = Options::default();
        let one = Arc::new(render("# 0", &options));
        let budget = 40 * (one.weight() + 200);
        let cache = Arc::new(Cache::new(CacheConfig::new(1000, budget)));
        {
            let cache = cache.clone();
            thread::spawn(move || {
                for i in 0..30 {
                    store(&cache, &format!("# {i}"), &Options::default());
                }
            })
            .join()
            .expect("the thread");
        }
        for i in 30..200 {
            store(&cache, &format!("# {i}"), &options);
            let inner = cache.lock();
            assert!(inner.stats.bytes + inner.leftover_bytes <= budget);
            assert!(inner.leftover_bytes <= budget / LEFTOVER_SHARE + one.weight() + 200);
        }
        assert!(cache.lock().leftovers.len() <= 2, "freed past their share");
    }
}
