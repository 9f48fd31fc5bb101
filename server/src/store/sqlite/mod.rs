//! The embedded backend: one SQLite file, compiled in (rusqlite's bundled SQLite). The file is
//! created with the first routed document, never before; until then every read answers
//! "unknown" without touching the disk.
//!
//! One connection, behind a mutex, used from the blocking pool: SQLite takes one writer at a
//! time anyway, and every statement here is a short indexed one. The journal is WAL with
//! `synchronous=FULL`, so a response is on disk before its 201 is sent.
//!
//! Deleted text is not left on disk: `secure_delete` zeroes what a delete frees, and a delete
//! and every sweep checkpoint the WAL into the file and truncate it, so the old pages that still
//! held the text go too (see [`checkpoint`]).
//!
//! Long-polls wake at once for responses stored by this process. Another process may share the
//! file (`passback mcp` beside `passback serve`): while anyone waits, a watcher reads SQLite's
//! `data_version` twice a second, which changes when another connection commits, and wakes the
//! waits to read again.

use super::events::{
    Attempt, DOCUMENT_CLOSED, DOCUMENT_EXPIRED, Delivery, Destination, Event, RESPONSE_CREATED,
};
use super::keys::{Cursor, KeyAdded, KeyInfo, NewKey};
use super::waiters::Waiters;
use super::{
    Added, Document, DocumentSummary, Lookup, Migration, Millis, NewDocument, NewResponse,
    PAGE_BYTES, PAGE_RESPONSES, Recipient, Revised, RevisionText, Status, Store, StoreError,
    StoreFuture, StoredResponse,
};
use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod documents;
mod events;
mod idempotency;
use events::{destination, insert_event, insert_event_due};
mod keys;
mod recipients;
mod responses;
mod revisions;
mod schema;
use schema::migrate;

/// How often the watcher looks for commits by another process while someone waits.
const WATCH_EVERY: Duration = Duration::from_millis(500);
/// Waits read again at least this often whatever the watcher says.
const RECHECK_EVERY: Duration = Duration::from_secs(10);
/// How long a statement waits for another process (a second server, `passback mcp`) that holds
/// the write lock.
const BUSY_WAIT: Duration = Duration::from_secs(5);
/// How long the checkpoint after a delete waits for another process's readers and writers
/// before leaving the checkpoint to the next sweep: short, since requests wait meanwhile.
const CHECKPOINT_WAIT: Duration = Duration::from_millis(200);

pub struct SqliteStore {
    inner: Arc<Inner>,
    waiters: Arc<Waiters>,
    watching: Arc<AtomicBool>,
}

struct Inner {
    path: PathBuf,
    conn: Mutex<Option<Connection>>,
}

impl SqliteStore {
    /// The store in the file at `path`; nothing is opened or created yet.
    pub fn new(path: PathBuf) -> SqliteStore {
        SqliteStore {
            inner: Arc::new(Inner {
                path,
                conn: Mutex::new(None),
            }),
            waiters: Arc::default(),
            watching: Arc::default(),
        }
    }

    /// Runs `f` on the connection on the blocking pool. `Ok(None)` when the file does not
    /// exist yet and `create` is false.
    async fn run<T: Send + 'static>(
        &self,
        create: bool,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<Option<T>, StoreError> {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || inner.run(create, f))
            .await
            .map_err(|e| StoreError::new("the SQLite task failed", e))?
    }

    /// Starts the watcher for other processes' commits, unless it runs already. It stops when
    /// no one waits.
    fn watch(&self) {
        if self.watching.swap(true, Ordering::SeqCst) {
            return;
        }
        let (inner, waiters, watching) = (
            self.inner.clone(),
            self.waiters.clone(),
            self.watching.clone(),
        );
        tokio::spawn(async move {
            let mut seen = None;
            loop {
                let first = seen.is_none();
                if !first {
                    tokio::time::sleep(WATCH_EVERY).await;
                }
                if waiters.is_empty() {
                    watching.store(false, Ordering::SeqCst);
                    // A wait that began just now may have found the flag still set.
                    if waiters.is_empty() || watching.swap(true, Ordering::SeqCst) {
                        return;
                    }
                }
                let inner = inner.clone();
                let version = tokio::task::spawn_blocking(move || {
                    inner.run(false, |c| {
                        c.query_row("PRAGMA data_version", [], |r| r.get::<_, i64>(0))
                    })
                })
                .await;
                match version {
                    Ok(Ok(Some(v))) => {
                        // The first reading is the baseline: the waits read again after it,
                        // so a commit between their first read and it is not missed.
                        if first || seen.is_some_and(|s| s != v) {
                            waiters.notify_all();
                        }
                        seen = Some(v);
                    }
                    _ => tokio::time::sleep(WATCH_EVERY).await,
                }
            }
        });
    }
}

impl Inner {
    fn run<T>(
        &self,
        create: bool,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>,
    ) -> Result<Option<T>, StoreError> {
        let mut guard = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        if guard.is_none() {
            *guard = open(&self.path, create).map_err(|e| self.error(e))?;
        }
        match guard.as_mut() {
            None => Ok(None),
            Some(conn) => f(conn).map(Some).map_err(|e| self.error(e)),
        }
    }

    fn error(&self, e: impl std::fmt::Display) -> StoreError {
        StoreError::new(&format!("SQLite store {}", self.path.display()), e)
    }
}

/// Opens (and with `create`, creates) the file, sets it up and applies pending migrations;
/// `None` when it does not exist and `create` is false.
fn open(path: &Path, create: bool) -> Result<Option<Connection>, String> {
    if !create && !path.exists() {
        return Ok(None);
    }
    let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    if create {
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
    }
    let mut conn = Connection::open_with_flags(path, flags).map_err(|e| {
        format!("cannot open it ({e}); check that its folder exists and is writable")
    })?;
    let setup = |conn: &mut Connection| -> rusqlite::Result<()> {
        // Another process (a second server, `passback mcp`) may hold the write lock briefly.
        conn.busy_timeout(BUSY_WAIT)?;
        conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0))?;
        // A response is acknowledged only once it is on disk; what a delete frees is zeroed.
        conn.execute_batch(
            "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA secure_delete = ON;",
        )?;
        // One plan per statement, whatever its parameters: otherwise SQLite prepares a kept
        // statement again each time its parameters change (its plan may depend on them, through
        // the partial indexes), which cost more than running it.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
        Ok(())
    };
    setup(&mut conn).map_err(|e| e.to_string())?;
    migrate(&mut conn)?;
    Ok(Some(conn))
}

fn json_text(v: &serde_json::Value) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

fn json_value(text: &str) -> rusqlite::Result<serde_json::Value> {
    serde_json::from_str(text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, e.into())
    })
}

/// Copies the WAL into the file and truncates it to nothing, after a delete or an expiry: the
/// WAL still holds the pages as they were before the delete, text and all, and `secure_delete`
/// zeroes only the file's. Waits [`CHECKPOINT_WAIT`] at most for another process; when that
/// process holds it up, the next sweep (within a minute) checkpoints again.
fn checkpoint(conn: &Connection) {
    let _ = conn.busy_timeout(CHECKPOINT_WAIT);
    let busy = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
        r.get::<_, i64>(0)
    });
    let _ = conn.busy_timeout(BUSY_WAIT);
    match busy {
        Ok(0) => {}
        Ok(_) => tracing::debug!("the WAL checkpoint waits for another connection: next sweep"),
        Err(e) => tracing::warn!(error = %e, "the WAL checkpoint failed"),
    }
}

impl Store for SqliteStore {
    /// Creates nothing; only checks that the file's folder exists, so a mistyped path stops
    /// the start instead of the first routed document.
    fn prepare(&self) -> StoreFuture<'_, ()> {
        Box::pin(async {
            let path = &self.inner.path;
            let folder = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            if path.exists() || folder.is_dir() {
                Ok(())
            } else {
                Err(StoreError(format!(
                    "the folder {} does not exist; create it, or give a path in a folder that does",
                    folder.display()
                )))
            }
        })
    }

    fn create(&self, doc: NewDocument) -> StoreFuture<'_, ()> {
        documents::create(self, doc)
    }

    fn revise(
        &self,
        id: &str,
        markdown: String,
        hash: String,
        now: Millis,
        max_revisions: u64,
    ) -> StoreFuture<'_, Revised> {
        revisions::revise(self, id, markdown, hash, now, max_revisions)
    }

    fn revision(&self, id: &str, revision: u64) -> StoreFuture<'_, Option<RevisionText>> {
        revisions::revision(self, id, revision)
    }

    fn document(&self, id: &str, now: Millis) -> StoreFuture<'_, Lookup<Document>> {
        documents::document(self, id, now)
    }

    fn set_closed(
        &self,
        id: &str,
        closed: bool,
        now: Millis,
    ) -> StoreFuture<'_, Lookup<DocumentSummary>> {
        documents::set_closed(self, id, closed, now)
    }

    fn count_view(&self, id: &str) -> StoreFuture<'_, ()> {
        documents::count_view(self, id)
    }

    fn delete(&self, id: &str, now: Millis) -> StoreFuture<'_, Lookup<()>> {
        documents::delete(self, id, now)
    }

    fn add_response(
        &self,
        id: &str,
        response: NewResponse,
        max_responses: u64,
    ) -> StoreFuture<'_, Added> {
        responses::add_response(self, id, response, max_responses)
    }

    fn responses(&self, id: &str, since: u64) -> StoreFuture<'_, Vec<StoredResponse>> {
        responses::responses(self, id, since)
    }

    fn wait_for_responses(
        &self,
        id: &str,
        since: u64,
        timeout: Duration,
    ) -> StoreFuture<'_, Vec<StoredResponse>> {
        responses::wait_for_responses(self, id, since, timeout)
    }

    fn expire(
        &self,
        now: Millis,
        purge_before: Millis,
        forget_before: Millis,
    ) -> StoreFuture<'_, u64> {
        documents::expire(self, now, purge_before, forget_before)
    }

    fn wake_all(&self) {
        self.waiters.close();
    }

    fn add_key(&self, key: NewKey) -> StoreFuture<'_, KeyAdded> {
        keys::add_key(self, key)
    }

    fn keys(&self) -> StoreFuture<'_, Vec<KeyInfo>> {
        keys::keys(self)
    }

    fn revoke_key(&self, name: &str, now: Millis) -> StoreFuture<'_, Lookup<()>> {
        keys::revoke_key(self, name, now)
    }

    fn set_webhook_secret(
        &self,
        name: &str,
        secret: &str,
        previous_until: Millis,
    ) -> StoreFuture<'_, Lookup<()>> {
        keys::set_webhook_secret(self, name, secret, previous_until)
    }

    fn key_by_hash(&self, hash: [u8; 32]) -> StoreFuture<'_, Option<KeyInfo>> {
        keys::key_by_hash(self, hash)
    }

    fn list_documents(
        &self,
        owner: &str,
        after: Option<Cursor>,
        limit: usize,
        now: Millis,
    ) -> StoreFuture<'_, Vec<DocumentSummary>> {
        keys::list_documents(self, owner, after, limit, now)
    }

    fn routed_since(&self, owner: &str, since: Millis) -> StoreFuture<'_, (u64, Option<Millis>)> {
        keys::routed_since(self, owner, since)
    }

    fn stored_bytes(&self, owner: &str) -> StoreFuture<'_, u64> {
        keys::stored_bytes(self, owner)
    }

    fn claim_events(
        &self,
        now: Millis,
        lease_until: Millis,
        limit: usize,
    ) -> StoreFuture<'_, Vec<Delivery>> {
        events::claim_events(self, now, lease_until, limit)
    }

    fn record_attempts(&self, attempts: Vec<(String, Attempt)>) -> StoreFuture<'_, ()> {
        events::record_attempts(self, attempts)
    }

    fn events_of_key(
        &self,
        owner: &str,
        since: Option<String>,
        limit: usize,
    ) -> StoreFuture<'_, Option<Vec<Event>>> {
        events::events_of_key(self, owner, since, limit)
    }

    fn events_of_document(&self, id: &str) -> StoreFuture<'_, Vec<Event>> {
        events::events_of_document(self, id)
    }

    fn redeliver(&self, id: &str, event: &str, now: Millis) -> StoreFuture<'_, bool> {
        events::redeliver(self, id, event, now)
    }

    fn recipients(&self, id: &str) -> StoreFuture<'_, Vec<Recipient>> {
        recipients::recipients(self, id)
    }

    fn recipient(
        &self,
        id: &str,
        secret_hash: [u8; 32],
        opened: Option<Millis>,
    ) -> StoreFuture<'_, Option<Recipient>> {
        recipients::recipient(self, id, secret_hash, opened)
    }

    fn claim_idempotency(
        &self,
        claim: crate::store::idempotency::KeyClaim,
    ) -> StoreFuture<'_, crate::store::idempotency::Claim> {
        idempotency::claim(self, claim)
    }

    fn finish_idempotency(
        &self,
        key_hash: &str,
        status: u16,
        sealed: String,
    ) -> StoreFuture<'_, ()> {
        idempotency::finish(self, key_hash, status, sealed)
    }

    fn release_idempotency(&self, key_hash: &str) -> StoreFuture<'_, ()> {
        idempotency::release(self, key_hash)
    }

    fn forget_idempotency(&self, before: Millis) -> StoreFuture<'_, u64> {
        idempotency::forget(self, before)
    }
}
