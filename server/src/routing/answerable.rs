//! Open documents as readers answer them, kept a short while by each server so that a reader's
//! submission does not read the document from the store and parse it again.
//!
//! A kept copy is never the judge of whether an answer may be stored: the store's own statement
//! refuses an answer to a document that is closed, expired, deleted, full or at another revision
//! than the one the answers were read against ([`crate::store::Added::Stale`]). What a copy
//! saves is the read and the parse; when another server revised, closed or deleted the
//! document, the store says so, the copy is forgotten and the reader's post is read again
//! against the document as it is now. A copy is kept for at most [`KEPT_FOR`], so the text of a
//! document deleted elsewhere leaves this server's memory within that time, and the copies
//! together hold at most [`KEPT_BYTES`] of Markdown.

use crate::store::{Document, Status};
use passback_engine::Doc;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long a copy is used after it was read from the store.
pub const KEPT_FOR: Duration = Duration::from_secs(30);

/// The Markdown the copies hold together, at most. A parsed document takes a few times its
/// text; at the default `--max-body` of 1 MiB this is at least 16 documents.
pub const KEPT_BYTES: usize = 16 << 20;

/// An open document as its reader answers it: as stored, and parsed once when first needed.
pub struct Answerable {
    pub doc: Document,
    parsed: OnceLock<Doc>,
}

impl Answerable {
    pub fn new(doc: Document) -> Self {
        Answerable {
            doc,
            parsed: OnceLock::new(),
        }
    }

    /// The document parsed (a parse of up to a megabyte: call it off the async threads).
    pub fn parsed(&self) -> &Doc {
        self.parsed.get_or_init(|| Doc::parse(&self.doc.markdown))
    }
}

/// The copies one server keeps, by document id.
#[derive(Default)]
pub struct AnswerableCache {
    kept: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    by_id: HashMap<String, (Instant, Arc<Answerable>)>,
    bytes: usize,
}

impl AnswerableCache {
    /// The copy of `id` read less than [`KEPT_FOR`] ago, if one is kept.
    pub fn get(&self, id: &str) -> Option<Arc<Answerable>> {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.by_id
            .get(id)
            .filter(|(read_at, _)| read_at.elapsed() < KEPT_FOR)
            .map(|(_, copy)| copy.clone())
    }

    /// Keeps `copy`, when its document is open and fits; the oldest copies make room.
    pub fn keep(&self, copy: Arc<Answerable>) {
        let size = copy.doc.markdown.len();
        if copy.doc.status != Status::Open || size > KEPT_BYTES {
            return;
        }
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.remove(&copy.doc.id);
        let now = Instant::now();
        // Expired copies go first; then the oldest, until the new one fits.
        if kept.bytes + size > KEPT_BYTES {
            let expired: Vec<String> = kept
                .by_id
                .iter()
                .filter(|(_, (read_at, _))| now.duration_since(*read_at) >= KEPT_FOR)
                .map(|(id, _)| id.clone())
                .collect();
            for id in expired {
                kept.remove(&id);
            }
        }
        while kept.bytes + size > KEPT_BYTES {
            let Some(oldest) = kept
                .by_id
                .iter()
                .min_by_key(|(_, (read_at, _))| *read_at)
                .map(|(id, _)| id.clone())
            else {
                break;
            };
            kept.remove(&oldest);
        }
        kept.bytes += size;
        kept.by_id.insert(copy.doc.id.clone(), (now, copy));
    }

    /// Forgets the copy of `id`: it was revised, closed or deleted, here or elsewhere.
    pub fn forget(&self, id: &str) {
        self.kept
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id);
    }

    /// How many copies are kept, and their Markdown's bytes.
    #[cfg(test)]
    fn held(&self) -> (usize, usize) {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        (kept.by_id.len(), kept.bytes)
    }
}

impl Kept {
    fn remove(&mut self, id: &str) {
        if let Some((_, copy)) = self.by_id.remove(id) {
            self.bytes -= copy.doc.markdown.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(id: &str, markdown: &str, status: Status) -> Arc<Answerable> {
        Arc::new(Answerable::new(Document {
            id: id.to_string(),
            token_hash: [0; 32],
            markdown: markdown.to_string(),
            hash: String::new(),
            created_at: 0,
            expires_at: i64::MAX,
            responses: 0,
            closed_at: None,
            views: 0,
            last_response_at: None,
            status,
            owner: None,
            verdict: None,
            revision: 1,
            sender: None,
        }))
    }

    #[test]
    fn only_open_documents_are_kept_and_forgetting_frees_their_bytes() {
        let cache = AnswerableCache::default();
        cache.keep(document("a", "# A", Status::Open));
        cache.keep(document("b", "# B", Status::Closed));
        assert!(cache.get("a").is_some());
        assert!(cache.get("b").is_none(), "a closed document is read afresh");
        assert_eq!(cache.held(), (1, 3));
        cache.forget("a");
        assert!(cache.get("a").is_none());
        assert_eq!(cache.held(), (0, 0));
    }

    #[test]
    fn the_oldest_copies_make_room_and_the_bytes_stay_bounded() {
        let cache = AnswerableCache::default();
        let big = "x".repeat(KEPT_BYTES / 4 + 1);
        for id in ["a", "b", "c", "d"] {
            cache.keep(document(id, &big, Status::Open));
        }
        let (count, bytes) = cache.held();
        assert_eq!(count, 3, "four quarters and a bit do not fit");
        assert!(bytes <= KEPT_BYTES);
        assert!(cache.get("a").is_none(), "the oldest went");
        assert!(cache.get("d").is_some());
        // Kept again under the same id: counted once.
        cache.keep(document("d", &big, Status::Open));
        assert_eq!(cache.held(), (count, bytes));
        // Larger than the whole budget: not kept at all.
        cache.keep(document("e", &"y".repeat(KEPT_BYTES + 1), Status::Open));
        assert!(cache.get("e").is_none());
        assert_eq!(cache.held(), (count, bytes));
    }

    #[test]
    fn a_copy_parses_once() {
        let copy = document(
            "a",
            "```open-question\n{\"id\": \"q\", \"question\": \"Why?\"}\n```\n",
            Status::Open,
        );
        let first: *const Doc = copy.parsed();
        let second: *const Doc = copy.parsed();
        assert!(std::ptr::eq(first, second));
        assert_eq!(copy.parsed().lang_code(), "en");
    }
}
