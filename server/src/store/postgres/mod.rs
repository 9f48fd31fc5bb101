//! The PostgreSQL backend, for several `passback serve` replicas sharing one database.
//!
//! - Connections: a small pool, opened as needed and opened again after the database went
//!   away. Every change is one statement (so one implicit transaction); queries from many
//!   requests share a connection, pipelined. Each connection prepares a statement once and
//!   keeps it: a query is one round trip (bind and execute), not two (parse, then execute).
//! - Response numbers: storing a response increments its document's `response_count` in the
//!   same statement that inserts it. The row lock that takes serializes the responses to one
//!   document, so their numbers commit in order, and a reader that saw response N never
//!   later finds a new response numbered below N.
//! - Long-polls: once a response is stored, `NOTIFY passback_responses, '<document id>'` is
//!   sent after its commit (responses stored meanwhile in one statement; not from the insert's
//!   own transaction, since PostgreSQL serializes the commits of NOTIFYing transactions).
//!   Every replica keeps one connection that `LISTEN`s and wakes its waits on that document,
//!   and its webhook worker; waits also read again every few seconds, in case a notification
//!   was lost. A delete sends `gone:<document id>` on the same channel, which ends the waits on
//!   it.
//! - Migrations run at start, under an advisory lock, so replicas starting together apply each
//!   one once.
//!
//! - TLS: as the URL's `sslmode` (and `sslrootcert`) ask, with libpq's meanings; see
//!   [`super::pg_tls`].

use super::events::{
    Attempt, DOCUMENT_CLOSED, DOCUMENT_EXPIRED, Delivery, Destination, Event, RESPONSE_CREATED,
};
use super::keys::{Cursor, KeyAdded, KeyInfo, NewKey};
use super::pg_tls::{self, Target};
use super::waiters::{GONE_PREFIX, Waiters};
use super::{
    Added, Document, DocumentSummary, Lookup, Migration, Millis, NewDocument, NewResponse,
    PAGE_BYTES, PAGE_RESPONSES, Recipient, Revised, RevisionText, Status, Store, StoreError,
    StoreFuture, StoredResponse,
};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::sync::{Mutex, OnceCell};
use tokio_postgres::{AsyncMessage, Client, Row, Statement};

mod documents;
mod events;
mod idempotency;
use events::{event_insert, event_insert_due};
mod keys;
mod recipients;
mod responses;
use responses::{announce_stored, listen, response};
mod revisions;
mod schema;
use schema::migrate;

/// The channel stored responses are announced on (their document ids), and deletions and
/// closes (`gone:` and the id).
const CHANNEL: &str = "passback_responses";
/// Stored responses announced in one statement at most.
const ANNOUNCE_AT_ONCE: usize = 512;
/// The advisory lock migrations take: "pbck" in ASCII.
const MIGRATION_LOCK: i64 = 0x7062_636b;
/// Connections one server opens at most (the listening one besides). A commit waits for the
/// WAL's flush, and commits waiting at once share one: 4 held the server to 4 per flush.
const POOL_SIZE: usize = 16;
/// Prepared statements one connection keeps at most (the store has a few dozen queries).
const STATEMENTS: usize = 256;
/// Waits read again at least this often, whatever the listening connection says.
const RECHECK_EVERY: Duration = Duration::from_secs(3);
const RECONNECT_AFTER: Duration = Duration::from_secs(1);
/// How long opening a connection may take, unless the URL says (`connect_timeout=`).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

pub struct PostgresStore {
    url: String,
    ready: OnceCell<Arc<Pool>>,
    waiters: Arc<Waiters>,
    /// The ids of documents a response was stored to, for [`announce_stored`].
    stored: tokio::sync::mpsc::UnboundedSender<String>,
    /// Its other end, until the pool is ready and the announcer takes it.
    announcements: std::sync::Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<String>>>,
}

struct Pool {
    target: Target,
    slots: Vec<Mutex<Option<Arc<Conn>>>>,
    next: AtomicUsize,
}

/// A pooled connection and the statements prepared on it, by their SQL.
struct Conn {
    client: Client,
    statements: std::sync::Mutex<std::collections::HashMap<String, Statement>>,
}

impl Conn {
    fn new(client: Client) -> Conn {
        Conn {
            client,
            statements: std::sync::Mutex::default(),
        }
    }

    fn statements(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, Statement>> {
        self.statements.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `sql`'s statement on this connection, prepared the first time.
    async fn statement(&self, sql: &str) -> Result<Statement, tokio_postgres::Error> {
        if let Some(found) = self.statements().get(sql) {
            return Ok(found.clone());
        }
        let prepared = self.client.prepare(sql).await?;
        let mut statements = self.statements();
        if statements.len() < STATEMENTS {
            statements.insert(sql.to_string(), prepared.clone());
        }
        Ok(prepared)
    }
}

fn db_error(context: &str, e: tokio_postgres::Error) -> StoreError {
    use std::error::Error;
    match (e.as_db_error(), e.source()) {
        (Some(db), _) => {
            StoreError::new(context, format!("{}: {}", db.code().code(), db.message()))
        }
        // "error connecting to server" says little without its cause.
        (None, Some(cause)) => StoreError::new(context, format!("{e}: {cause}")),
        (None, None) => StoreError::new(context, e),
    }
}

/// Opens one connection, with the TLS the URL asks for, and drives it on its own task.
async fn connect(target: &Target) -> Result<Client, StoreError> {
    let (client, connection) = target
        .config
        .connect(target.tls.clone())
        .await
        .map_err(|e| tls_hint(target, db_error("cannot connect to PostgreSQL", e)))?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::warn!(error = %e, "a PostgreSQL connection ended");
        }
    });
    Ok(client)
}

/// `e` with what to do about it when TLS was the trouble.
fn tls_hint(target: &Target, e: StoreError) -> StoreError {
    match pg_tls::hint(target, &e.0) {
        Some(hint) => StoreError(format!("{}; {hint}", e.0)),
        None => e,
    }
}

impl Pool {
    /// A connection: the next slot's, opened (again) when it has none or it was closed.
    async fn client(&self) -> Result<Arc<Conn>, StoreError> {
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.slots.len();
        let mut slot = self.slots[i].lock().await;
        if let Some(conn) = slot.as_ref().filter(|c| !c.client.is_closed()) {
            return Ok(conn.clone());
        }
        let conn = Arc::new(Conn::new(connect(&self.target).await?));
        *slot = Some(conn.clone());
        Ok(conn)
    }
}

impl PostgresStore {
    /// The store at `url`; nothing is connected until the first operation or `prepare`.
    pub fn new(url: String) -> PostgresStore {
        let (stored, announcements) = tokio::sync::mpsc::unbounded_channel();
        PostgresStore {
            url,
            ready: OnceCell::new(),
            waiters: Arc::default(),
            stored,
            announcements: std::sync::Mutex::new(Some(announcements)),
        }
    }

    /// Announces (soon, after its commit) that a response to `id` was stored.
    fn announce(&self, id: &str) {
        // The announcer is gone only with the runtime: nothing would hear it then.
        let _ = self.stored.send(id.to_string());
    }

    /// The pool, once connected and migrated; the listener starts with it.
    async fn pool(&self) -> Result<&Arc<Pool>, StoreError> {
        self.ready
            .get_or_try_init(|| async {
                let mut target = pg_tls::target(&self.url).map_err(StoreError)?;
                // An address that never answers fails in seconds, not at the TCP timeout.
                if target.config.get_connect_timeout().is_none() {
                    target.config.connect_timeout(CONNECT_TIMEOUT);
                }
                let mut client = connect(&target).await?;
                migrate(&mut client).await?;
                let pool = Arc::new(Pool {
                    slots: (0..POOL_SIZE).map(|_| Mutex::new(None)).collect(),
                    next: AtomicUsize::new(1),
                    target: target.clone(),
                });
                *pool.slots[0].lock().await = Some(Arc::new(Conn::new(client)));
                tokio::spawn(listen(target, Arc::downgrade(&self.waiters)));
                let announcements = self
                    .announcements
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .take();
                if let Some(announcements) = announcements {
                    tokio::spawn(announce_stored(Arc::downgrade(&pool), announcements));
                }
                Ok(pool)
            })
            .await
    }

    async fn query(
        &self,
        context: &str,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<Vec<Row>, StoreError> {
        let conn = self.pool().await?.client().await?;
        let statement = conn
            .statement(sql)
            .await
            .map_err(|e| db_error(context, e))?;
        conn.client.query(&statement, params).await.map_err(|e| {
            // A statement the database no longer takes as prepared (its table changed under
            // it) is prepared afresh next time.
            if e.as_db_error().is_some() {
                conn.statements().remove(sql);
            }
            db_error(context, e)
        })
    }

    /// The response to `id` already stored for the form submission `hash`, if any.
    async fn submitted(
        &self,
        id: &str,
        hash: Option<&str>,
    ) -> Result<Option<StoredResponse>, StoreError> {
        let Some(hash) = hash else { return Ok(None) };
        let rows = self
            .query(
                "cannot read a response",
                "SELECT seq, received_at, reviewer, component_inputs::text, annotations::text,
                        export, submission_hash, recipient, verdict, revision
                 FROM responses WHERE document_id = $1 AND submission_hash = $2",
                &[&id, &hash],
            )
            .await?;
        rows.first().map(response).transpose()
    }

    /// Why a response to revision `revision` could not be added to `id` at `now`.
    async fn refusal(
        &self,
        id: &str,
        now: Millis,
        max: i64,
        revision: u64,
    ) -> Result<Added, StoreError> {
        let rows = self
            .query(
                "cannot read a document",
                "SELECT gone_at, expires_at, response_count, closed_at, revision
                 FROM documents WHERE id = $1",
                &[&id],
            )
            .await?;
        Ok(match rows.first() {
            None => Added::Unknown,
            Some(r) if r.get::<_, Option<Millis>>(0).is_some() => Added::Gone,
            Some(r) if Status::at(r.get(3), r.get(1), now) != Status::Open => {
                Added::NotOpen(Status::at(r.get(3), r.get(1), now))
            }
            Some(r) if r.get::<_, i64>(4) as u64 != revision => Added::Stale {
                revision: r.get::<_, i64>(4) as u64,
            },
            Some(r) if r.get::<_, i64>(2) >= max => Added::Full,
            // It took a response in between; the caller's limit was reached meanwhile or the
            // document changed: say it is full rather than guess.
            Some(_) => Added::Full,
        })
    }
}

impl Store for PostgresStore {
    fn prepare(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            self.pool().await?;
            Ok(())
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
