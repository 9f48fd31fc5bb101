//! The store of routed documents (contract §6): one [`Store`] trait with two backends, an
//! embedded SQLite file ([`sqlite`], the default) and PostgreSQL ([`postgres`], for several
//! replicas sharing one database). Nothing is stored unless a client routes a document.
//!
//! The HTTP routes and the MCP tools go through [`crate::routing::Routing`], which adds what
//! every front end needs on top of the trait: the secrets, the clock, the expiry rule and the
//! limits.
//!
//! The schema lives in `server/migrations/{sqlite,postgres}/NNNN_*.sql`; each backend applies
//! the ones it has not applied yet when it opens the database (see `docs/store.md`).

mod config;
mod events;
pub mod idempotency;
mod keys;
pub mod pg_tls;
pub mod postgres;
pub mod sealed;
mod secrets;
pub mod sqlite;
mod time;
mod waiters;

pub use config::StoreConfig;
pub use events::{
    Attempt, DOCUMENT_CLOSED, DOCUMENT_EXPIRED, Delivery, Destination, Event, OUTBOX_WRITTEN,
    RESPONSE_CREATED, WEBHOOK_SECRET_PREFIX, new_webhook_secret,
};
pub use keys::{Cursor, KEY_PREFIX, KeyAdded, KeyInfo, NewKey, key_hash, new_key};
pub use secrets::{ID_BYTES, TOKEN_BYTES, base64url, is_document_id, random_secret};
pub use time::{now, rfc3339};

use serde_json::Value;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// [`Store::responses`] answers at most this many responses, or about this many bytes of them
/// (at least one); the client asks again with `since` for the rest.
pub const PAGE_RESPONSES: usize = 100;
pub const PAGE_BYTES: usize = 8 << 20;

/// Unix time in milliseconds (UTC), as the schema keeps it.
pub type Millis = i64;

/// What a store operation returns; boxed so `Store` can be used as `dyn Store`.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// The store's operations. Every method takes the time it acts at (`now`) from the caller, so
/// replicas and tests agree on what has expired.
pub trait Store: Send + Sync {
    /// Connects and applies pending migrations where the backend has a server to reach
    /// (PostgreSQL), so a bad address stops `passback serve` at start. SQLite does nothing: its
    /// file is created with the first routed document.
    fn prepare(&self) -> StoreFuture<'_, ()>;

    /// Keeps a new document. Its id is fresh (128 random bits); a clash is an error.
    fn create(&self, doc: NewDocument) -> StoreFuture<'_, ()>;

    /// Makes `markdown` (hash `hash`) the latest revision of the kept document `id`, numbered
    /// after the one it replaces, which is kept (see [`Store::revision`]) until the document
    /// goes. An open or closed document can be revised; an expired one, or one with
    /// `max_revisions` already, cannot. Revisions racing on one document are numbered one
    /// after another, none lost.
    fn revise(
        &self,
        id: &str,
        markdown: String,
        hash: String,
        now: Millis,
        max_revisions: u64,
    ) -> StoreFuture<'_, Revised>;

    /// The text and hash of revision `revision` of the kept document `id` (the latest one
    /// included); `None` when it has no such revision, or is gone.
    fn revision(&self, id: &str, revision: u64) -> StoreFuture<'_, Option<RevisionText>>;

    /// The document `id`: kept (open, closed, or expired at `now` but not purged yet: its
    /// [`Document::status`] says which), gone (deleted or purged), or never seen (or forgotten
    /// after the retention period).
    fn document(&self, id: &str, now: Millis) -> StoreFuture<'_, Lookup<Document>>;

    /// Deletes a kept document (whatever its status) and all its responses, leaving a
    /// tombstone.
    fn delete(&self, id: &str, now: Millis) -> StoreFuture<'_, Lookup<()>>;

    /// Closes (`closed`: it takes no more responses; a document closed already keeps the time
    /// it was closed) or reopens a kept document that has not expired at `now`, and answers its
    /// summary afterwards. An expired document is left as it is: its summary says `Expired`.
    fn set_closed(
        &self,
        id: &str,
        closed: bool,
        now: Millis,
    ) -> StoreFuture<'_, Lookup<DocumentSummary>>;

    /// Counts one view of a kept document's review page (one `UPDATE`; nothing when it is
    /// gone or unknown).
    fn count_view(&self, id: &str) -> StoreFuture<'_, ()>;

    /// Keeps one more response to an open document, numbered after the last one, unless the
    /// document already holds `max_responses`. Durable when this returns `Ok`.
    fn add_response(
        &self,
        id: &str,
        response: NewResponse,
        max_responses: u64,
    ) -> StoreFuture<'_, Added>;

    /// The responses to `id` numbered after `since`, oldest first: one page of them (see
    /// [`PAGE_RESPONSES`]).
    fn responses(&self, id: &str, since: u64) -> StoreFuture<'_, Vec<StoredResponse>>;

    /// As [`Store::responses`], but when there are none yet, waits up to `timeout` for one to
    /// be stored (by this process or, on PostgreSQL, any replica) and answers as soon as it is.
    /// Answers early, possibly empty, once [`Store::wake_all`] was called, or when the document
    /// is deleted (in this process, or on PostgreSQL by any replica): the caller then finds it
    /// gone.
    fn wait_for_responses(
        &self,
        id: &str,
        since: u64,
        timeout: Duration,
    ) -> StoreFuture<'_, Vec<StoredResponse>>;

    /// Purges the documents that stopped taking responses (closed, or expired) at or before
    /// `purge_before`: each becomes a tombstone gone since `now`, its text and responses
    /// deleted. Then forgets tombstones gone before `forget_before`. Returns how many
    /// documents were purged.
    fn expire(
        &self,
        now: Millis,
        purge_before: Millis,
        forget_before: Millis,
    ) -> StoreFuture<'_, u64>;

    /// Ends every wait in progress now (the server is shutting down).
    fn wake_all(&self);

    /// Keeps a new sender key, unless its name is taken (by a live or a revoked key).
    fn add_key(&self, key: NewKey) -> StoreFuture<'_, KeyAdded>;

    /// Every key, live and revoked, oldest first.
    fn keys(&self) -> StoreFuture<'_, Vec<KeyInfo>>;

    /// Revokes the key named `name` at `now`: `Live` when it was live, `Gone` when it was
    /// revoked already, `Unknown` when no key has that name.
    fn revoke_key(&self, name: &str, now: Millis) -> StoreFuture<'_, Lookup<()>>;

    /// Replaces the webhook secret of the key named `name` with `secret`; the one it replaces
    /// (if any) goes on signing beside it until `previous_until`: `Live` when the key is live,
    /// `Gone` when it was revoked, `Unknown` when no key has that name.
    fn set_webhook_secret(
        &self,
        name: &str,
        secret: &str,
        previous_until: Millis,
    ) -> StoreFuture<'_, Lookup<()>>;

    /// The key whose blake3 hash is `hash`, live or revoked.
    fn key_by_hash(&self, hash: [u8; 32]) -> StoreFuture<'_, Option<KeyInfo>>;

    /// Up to `limit` of the documents `owner` routed, newest first (by `created_at`, then id,
    /// both descending), after the one `after` names; deleted ones left out.
    fn list_documents(
        &self,
        owner: &str,
        after: Option<Cursor>,
        limit: usize,
        now: Millis,
    ) -> StoreFuture<'_, Vec<DocumentSummary>>;

    /// How many documents `owner` routed at or after `since`, and when the first of them was.
    fn routed_since(&self, owner: &str, since: Millis) -> StoreFuture<'_, (u64, Option<Millis>)>;

    /// The bytes `owner`'s kept documents take as stored: their text and their responses'
    /// answers, comments and exports.
    fn stored_bytes(&self, owner: &str) -> StoreFuture<'_, u64>;

    /// Claims up to `limit` events due for delivery at `now` (each claimed by one caller, on
    /// PostgreSQL by one replica): each is leased until `lease_until` (not claimed again before,
    /// unless the attempt is recorded), with where it goes and the secrets that sign it (the
    /// key's previous one too while its grace lasts at `now`).
    fn claim_events(
        &self,
        now: Millis,
        lease_until: Millis,
        limit: usize,
    ) -> StoreFuture<'_, Vec<Delivery>>;

    /// Records delivery attempts, each of the event its id names, in one statement (or one
    /// transaction): a worker records the attempts that ended together at once.
    fn record_attempts(&self, attempts: Vec<(String, Attempt)>) -> StoreFuture<'_, ()>;

    /// Up to `limit` of the events of `owner`'s documents, oldest first, after the event
    /// `since`. `None` when `since` names no event of the key's (any more).
    fn events_of_key(
        &self,
        owner: &str,
        since: Option<String>,
        limit: usize,
    ) -> StoreFuture<'_, Option<Vec<Event>>>;

    /// The events of the document `id`, oldest first, with their delivery state.
    fn events_of_document(&self, id: &str) -> StoreFuture<'_, Vec<Event>>;

    /// Makes the event `event` of the document `id` due for delivery at `now` again. False
    /// when the document has no such event, or no callback URL to deliver it to.
    fn redeliver(&self, id: &str, event: &str, now: Millis) -> StoreFuture<'_, bool>;

    /// Claims an `Idempotency-Key` (see [`idempotency::Claim`]): atomically, so of two requests with the same
    /// key (on PostgreSQL, on any replicas) one claims it and the other sees the claim.
    fn claim_idempotency(
        &self,
        claim: idempotency::KeyClaim,
    ) -> StoreFuture<'_, idempotency::Claim>;

    /// Keeps the answer of the request that claimed `key_hash`.
    fn finish_idempotency(
        &self,
        key_hash: &str,
        status: u16,
        sealed: String,
    ) -> StoreFuture<'_, ()>;

    /// Gives up a claim that has no answer (the request was refused): the key may be used again.
    fn release_idempotency(&self, key_hash: &str) -> StoreFuture<'_, ()>;

    /// Forgets the keys used before `before`.
    fn forget_idempotency(&self, before: Millis) -> StoreFuture<'_, u64>;

    /// The recipients of the kept document `id`, in the order they were routed (none when it
    /// is gone or unknown).
    fn recipients(&self, id: &str) -> StoreFuture<'_, Vec<Recipient>>;

    /// The recipient of the kept document `id` whose link secret hashes to `secret_hash`;
    /// with `opened`, their first view is recorded at that time unless one was already.
    fn recipient(
        &self,
        id: &str,
        secret_hash: [u8; 32],
        opened: Option<Millis>,
    ) -> StoreFuture<'_, Option<Recipient>>;
}

/// A recipient to keep with a new document.
#[derive(Debug, Clone)]
pub struct NewRecipient {
    /// blake3 of the secret in their link: the secret itself is never stored.
    pub secret_hash: [u8; 32],
    pub name: String,
    pub email: Option<String>,
}

/// A kept recipient of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recipient {
    /// 1, 2, … in the order the sender listed them.
    pub seq: u32,
    pub name: String,
    pub email: Option<String>,
    /// When their link's page was first loaded.
    pub opened_at: Option<Millis>,
    /// When their last response arrived.
    pub answered_at: Option<Millis>,
}

/// A document to keep.
#[derive(Debug, Clone)]
pub struct NewDocument {
    pub id: String,
    /// blake3 of the bearer token: the token itself is never stored.
    pub token_hash: [u8; 32],
    pub markdown: String,
    pub hash: String,
    pub created_at: Millis,
    pub expires_at: Millis,
    /// The id of the key that routed it; `None` when routed without one.
    pub owner: Option<String>,
    /// Where its events are POSTed (else its key's callback URL, if any).
    pub callback_url: Option<String>,
    /// `whsec_…` for a document routed without a key and with a callback URL.
    pub webhook_secret: Option<String>,
    /// Who it is sent to, each with a link of their own (contract §6.2).
    pub recipients: Vec<NewRecipient>,
    /// The verdict's choices, when the document asks for one.
    pub verdict: Option<Vec<String>>,
    /// The sender's display name, when given: the review page's intro names them.
    pub sender: Option<String>,
}

/// A kept document: open, closed or expired (not purged yet).
#[derive(Debug, Clone)]
pub struct Document {
    pub id: String,
    pub token_hash: [u8; 32],
    pub markdown: String,
    pub hash: String,
    pub created_at: Millis,
    pub expires_at: Millis,
    /// How many responses it has taken (the last response id).
    pub responses: u64,
    /// When its sender closed it; `None` while open.
    pub closed_at: Option<Millis>,
    /// How many times its review page was loaded.
    pub views: u64,
    /// When its last response was received.
    pub last_response_at: Option<Millis>,
    /// Its status at the time it was read.
    pub status: Status,
    /// The id of the key that routed it; `None` when routed without one.
    pub owner: Option<String>,
    /// The verdict's choices, when it asks for one.
    pub verdict: Option<Vec<String>>,
    /// Its latest revision: 1 as routed, one more for each `PUT`.
    pub revision: u64,
    /// The sender's display name, when given (kept across revisions).
    pub sender: Option<String>,
}

impl Document {
    /// Whether `token` is this document's bearer token, compared in constant time.
    pub fn token_matches(&self, token: &str) -> bool {
        blake3::Hash::from_bytes(self.token_hash) == blake3::hash(token.as_bytes())
    }

    /// What a sender sees of it without its text or its responses.
    pub fn summary(&self) -> DocumentSummary {
        DocumentSummary {
            id: self.id.clone(),
            status: self.status,
            created_at: self.created_at,
            expires_at: self.expires_at,
            closed_at: self.closed_at,
            views: self.views,
            responses: self.responses,
            last_response_at: self.last_response_at,
        }
    }
}

/// Whether a document takes responses (contract §6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// It takes responses.
    Open,
    /// Its sender closed it: no new responses; the ones it has stay readable.
    Closed,
    /// Its time ran out: no new responses; the ones it has stay readable until it is purged.
    Expired,
}

impl Status {
    /// A document's status at `now`: expired once its time ran out (closed or not), else
    /// closed when its sender closed it, else open.
    pub fn at(closed_at: Option<Millis>, expires_at: Millis, now: Millis) -> Status {
        if expires_at <= now {
            Status::Expired
        } else if closed_at.is_some() {
            Status::Closed
        } else {
            Status::Open
        }
    }

    /// `open`, `closed` or `expired`.
    pub fn name(self) -> &'static str {
        match self {
            Status::Open => "open",
            Status::Closed => "closed",
            Status::Expired => "expired",
        }
    }
}

/// A document as its sender sees it without its text or responses: the fields of
/// `GET /v1/documents/{id}` beyond the text, and of each entry of a list of documents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentSummary {
    pub id: String,
    pub status: Status,
    pub created_at: Millis,
    pub expires_at: Millis,
    pub closed_at: Option<Millis>,
    pub views: u64,
    pub responses: u64,
    pub last_response_at: Option<Millis>,
}

/// What [`Store::revise`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Revised {
    /// The new revision's number.
    Done(u64),
    /// Its time ran out: it cannot change any more.
    Expired {
        expires_at: Millis,
    },
    /// It has as many revisions as it may.
    Full,
    Gone,
    Unknown,
}

/// One revision's text, as [`Store::revision`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevisionText {
    pub markdown: String,
    pub hash: String,
}

/// What a lookup found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup<T> {
    Live(T),
    /// Deleted or expired: its links answer 410.
    Gone,
    /// Never routed here, or forgotten after the retention period: 404.
    Unknown,
}

/// A response to keep.
#[derive(Debug, Clone, Default)]
pub struct NewResponse {
    pub received_at: Millis,
    pub reviewer: Option<String>,
    /// The answers keyed by block id (contract §4), without `annotations`.
    pub component_inputs: Value,
    /// Prose comments (contract §7); an empty array when none.
    pub annotations: Value,
    /// The Markdown export.
    pub export: String,
    /// The blake3 hash (base64url) of the form's submission id, when the post carried one: a
    /// second post with the same id finds this response instead of storing another.
    pub submission: Option<String>,
    /// The recipient whose link it came through: their `seq` and name.
    pub recipient: Option<(u32, String)>,
    /// The verdict's label chosen, when the document asks for one.
    pub verdict: Option<String>,
    /// The revision of the document the answers were read against.
    pub revision: u64,
    /// When the server storing it runs a webhook worker: its event is claimed for that worker
    /// until then (no other worker takes it before), and handed back with the response, so
    /// that it is delivered at once without a claim of its own. `None`: due at once, for any
    /// worker.
    pub claim_until: Option<Millis>,
}

/// A kept response.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredResponse {
    /// 1, 2, … within its document, in the order they were stored.
    pub response_id: u64,
    pub received_at: Millis,
    pub reviewer: Option<String>,
    pub component_inputs: Value,
    pub annotations: Value,
    pub export: String,
    /// See [`NewResponse::submission`].
    pub submission: Option<String>,
    /// The name of the recipient whose link it came through.
    pub recipient: Option<String>,
    /// The verdict's label chosen.
    pub verdict: Option<String>,
    /// The revision of the document it answered.
    pub revision: u64,
}

/// What [`Store::add_response`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum Added {
    /// Kept; with its event's delivery when the response asked to claim it
    /// ([`NewResponse::claim_until`]) and the document has a callback URL.
    Stored(Box<StoredResponse>, Option<Box<Delivery>>),
    /// Closed or expired: it takes no responses.
    NotOpen(Status),
    Gone,
    Unknown,
    /// The document holds its limit of responses already.
    Full,
    /// The document is at another revision than the one the answers were read against
    /// (`revision` is its latest): nothing was kept.
    Stale {
        revision: u64,
    },
}

/// A store that could not do what was asked (the database is unreachable, the file cannot be
/// written, …). The message is for the operator's log, not for clients.
#[derive(Debug, Clone)]
pub struct StoreError(pub String);

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StoreError {}

impl StoreError {
    pub(crate) fn new(context: &str, e: impl fmt::Display) -> StoreError {
        StoreError(format!("{context}: {e}"))
    }
}

// ---------------------------------------------------------------------------------------------
// Migrations

/// One versioned schema change, from `server/migrations/<backend>/NNNN_name.sql`.
pub(crate) struct Migration {
    pub version: i64,
    pub name: &'static str,
    pub sql: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_is_read_from_the_close_and_the_clock() {
        assert_eq!(Status::at(None, 10, 9), Status::Open);
        assert_eq!(Status::at(Some(5), 10, 9), Status::Closed);
        assert_eq!(Status::at(None, 10, 10), Status::Expired);
        assert_eq!(Status::at(Some(5), 10, 11), Status::Expired);
        assert_eq!(
            [Status::Open, Status::Closed, Status::Expired].map(Status::name),
            ["open", "closed", "expired"]
        );
    }

    #[test]
    fn store_flags_read_the_three_forms() {
        assert_eq!(StoreConfig::parse("off"), Ok(StoreConfig::Off));
        assert_eq!(
            StoreConfig::parse("sqlite:data/passback.db"),
            Ok(StoreConfig::Sqlite("data/passback.db".into()))
        );
        assert_eq!(
            StoreConfig::parse("sqlite:///var/lib/passback.db"),
            Ok(StoreConfig::Sqlite("/var/lib/passback.db".into()))
        );
        let pg = "postgres://app:secret@db.internal:5432/passback";
        assert_eq!(StoreConfig::parse(pg), Ok(StoreConfig::Postgres(pg.into())));
        assert!(
            !StoreConfig::parse(pg)
                .unwrap()
                .describe()
                .contains("secret")
        );
        for bad in ["sqlite:", "mysql://x", "passback.db", ""] {
            assert!(StoreConfig::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_token_opens_only_its_own_document() {
        let doc = Document {
            id: "x".into(),
            token_hash: *blake3::hash(b"right").as_bytes(),
            markdown: String::new(),
            hash: String::new(),
            created_at: 0,
            expires_at: 0,
            responses: 0,
            closed_at: None,
            views: 0,
            last_response_at: None,
            status: Status::Open,
            owner: None,
            verdict: None,
            revision: 1,
            sender: None,
        };
        assert!(doc.token_matches("right"));
        assert!(!doc.token_matches("wrong") && !doc.token_matches(""));
    }
}
