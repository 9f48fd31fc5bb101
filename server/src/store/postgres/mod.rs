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
    Attempt, DOCUMENT_CLOSED, DOCUMENT_EXPIRED, Delivery, Event, RESPONSE_CREATED,
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

mod events;
mod idempotency;
use events::event_insert;
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

/// The columns [`document_row`] reads, in its order.
const DOCUMENT_COLUMNS: &str = "token_hash, markdown, hash, created_at, expires_at, gone_at,
     response_count, closed_at, views, last_response_at, owner_key, verdict_choices, revision,
     sender";

/// The document in a row of [`DOCUMENT_COLUMNS`]: kept, or gone (deleted or purged).
fn document_row(id: &str, r: &Row, now: Millis) -> Result<Lookup<Document>, StoreError> {
    let markdown: Option<String> = r.get(1);
    let gone_at: Option<Millis> = r.get(5);
    let (Some(markdown), None) = (markdown, gone_at) else {
        return Ok(Lookup::Gone);
    };
    let token_hash: &[u8] = r.get(0);
    let token_hash = token_hash
        .try_into()
        .map_err(|_| StoreError("a stored token hash is not 32 bytes".into()))?;
    let (expires_at, closed_at) = (r.get(4), r.get(7));
    Ok(Lookup::Live(Document {
        id: id.to_string(),
        token_hash,
        markdown,
        hash: r.get(2),
        created_at: r.get(3),
        expires_at,
        responses: r.get::<_, i64>(6) as u64,
        closed_at,
        views: r.get::<_, i64>(8) as u64,
        last_response_at: r.get(9),
        status: Status::at(closed_at, expires_at, now),
        owner: r.get(10),
        verdict: match r.get::<_, Option<&str>>(11) {
            Some(text) => Some(
                serde_json::from_str(text)
                    .map_err(|e| StoreError::new("stored verdict choices are not JSON", e))?,
            ),
            None => None,
        },
        revision: r.get::<_, i64>(12) as u64,
        sender: r.get(13),
    }))
}

impl Store for PostgresStore {
    fn prepare(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            self.pool().await?;
            Ok(())
        })
    }

    fn create(&self, doc: NewDocument) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let verdict = doc
                .verdict
                .as_ref()
                .map(|v| serde_json::json!(v).to_string());
            let seqs: Vec<i64> = (1..=doc.recipients.len() as i64).collect();
            let hashes: Vec<&[u8]> = doc.recipients.iter().map(|r| &r.secret_hash[..]).collect();
            let names: Vec<&str> = doc.recipients.iter().map(|r| r.name.as_str()).collect();
            let emails: Vec<Option<&str>> =
                doc.recipients.iter().map(|r| r.email.as_deref()).collect();
            // One statement: the document and its recipients are kept together or not at all.
            self.query(
                "cannot keep the document",
                "WITH doc AS (
                    INSERT INTO documents (id, token_hash, markdown, hash, created_at, expires_at,
                                           owner_key, callback_url, webhook_secret,
                                           verdict_choices, sender)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $15)
                    RETURNING id
                 )
                 INSERT INTO recipients (document_id, seq, secret_hash, name, email)
                 SELECT doc.id, r.seq, r.secret_hash, r.name, r.email
                 FROM doc, unnest($11::bigint[], $12::bytea[], $13::text[], $14::text[])
                      AS r(seq, secret_hash, name, email)",
                &[
                    &doc.id,
                    &&doc.token_hash[..],
                    &doc.markdown,
                    &doc.hash,
                    &doc.created_at,
                    &doc.expires_at,
                    &doc.owner,
                    &doc.callback_url,
                    &doc.webhook_secret,
                    &verdict,
                    &seqs,
                    &hashes,
                    &names,
                    &emails,
                    &doc.sender,
                ],
            )
            .await?;
            Ok(())
        })
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
        let id = id.to_string();
        Box::pin(async move {
            let rows = self
                .query(
                    "cannot read a document",
                    &format!("SELECT {DOCUMENT_COLUMNS} FROM documents WHERE id = $1"),
                    &[&id],
                )
                .await?;
            match rows.first() {
                None => Ok(Lookup::Unknown),
                Some(r) => document_row(&id, r, now),
            }
        })
    }

    fn set_closed(
        &self,
        id: &str,
        closed: bool,
        now: Millis,
    ) -> StoreFuture<'_, Lookup<DocumentSummary>> {
        let id = id.to_string();
        Box::pin(async move {
            // Closing keeps the first close's time; an expired document stays as it is. The
            // row as it is after the change, or as it is when nothing changed. Closing an open
            // document announces it, in the same statement.
            let announce = if closed {
                format!(
                    ", announced AS ({})",
                    event_insert(
                        "(SELECT id, owner_key, callback_url FROM changed WHERE was IS NULL)",
                        DOCUMENT_CLOSED,
                        "NULL::bigint",
                        "$2"
                    )
                )
            } else {
                String::new()
            };
            let sql = format!(
                "WITH before AS (
                    SELECT id AS doc_id, closed_at AS was FROM documents WHERE id = $1 FOR UPDATE
                 ),
                 changed AS (
                    UPDATE documents SET closed_at = {}
                    FROM before
                    WHERE id = doc_id AND gone_at IS NULL AND expires_at > $2
                    RETURNING {DOCUMENT_COLUMNS}, id, callback_url, was
                 ){announce}
                 SELECT {DOCUMENT_COLUMNS} FROM changed
                 UNION ALL
                 SELECT {DOCUMENT_COLUMNS} FROM documents
                 WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM changed)",
                if closed {
                    "coalesce(closed_at, $2)"
                } else {
                    "NULL"
                }
            );
            let rows = self
                .query("cannot change a document's status", &sql, &[&id, &now])
                .await?;
            let found = match rows.first() {
                None => Lookup::Unknown,
                Some(r) => match document_row(&id, r, now)? {
                    Lookup::Live(doc) => Lookup::Live(doc.summary()),
                    Lookup::Gone => Lookup::Gone,
                    Lookup::Unknown => Lookup::Unknown,
                },
            };
            // A closed document takes no more responses: its long-polls end, here and (by the
            // notification deletes send too) on every replica.
            if closed && matches!(found, Lookup::Live(_)) {
                self.waiters.bury(&id);
                let ended = format!("{GONE_PREFIX}{id}");
                if let Err(e) = self
                    .query(
                        "cannot announce the close",
                        "SELECT pg_notify($1, $2)",
                        &[&CHANNEL, &ended],
                    )
                    .await
                {
                    tracing::warn!(error = %e, "the close was not announced to other replicas");
                }
            }
            Ok(found)
        })
    }

    fn count_view(&self, id: &str) -> StoreFuture<'_, ()> {
        let id = id.to_string();
        Box::pin(async move {
            self.query(
                "cannot count a view",
                "UPDATE documents SET views = views + 1 WHERE id = $1 AND gone_at IS NULL",
                &[&id],
            )
            .await?;
            Ok(())
        })
    }

    fn delete(&self, id: &str, now: Millis) -> StoreFuture<'_, Lookup<()>> {
        let id = id.to_string();
        Box::pin(async move {
            // First the tombstone: from then on no response can be added (adding one checks
            // `gone_at` under the same row lock). Then, in a statement that sees every response
            // committed before, the responses. The sweep removes any left by a crash between.
            let buried = self
                .query(
                    "cannot delete the document",
                    "UPDATE documents SET markdown = NULL, sender = NULL, gone_at = $2
                     WHERE id = $1 AND gone_at IS NULL
                     RETURNING id",
                    &[&id, &now],
                )
                .await?;
            if buried.is_empty() {
                let rows = self
                    .query(
                        "cannot read a document",
                        "SELECT 1 FROM documents WHERE id = $1",
                        &[&id],
                    )
                    .await?;
                return Ok(if rows.is_empty() {
                    Lookup::Unknown
                } else {
                    Lookup::Gone
                });
            }
            for (context, sql) in [
                (
                    "cannot delete the responses",
                    "DELETE FROM responses WHERE document_id = $1",
                ),
                (
                    "cannot delete the recipients",
                    "DELETE FROM recipients WHERE document_id = $1",
                ),
                (
                    "cannot delete the revisions",
                    "DELETE FROM revisions WHERE document_id = $1",
                ),
            ] {
                self.query(context, sql, &[&id]).await?;
            }
            // The long-polls on it end: here at once, on every replica when the notification
            // arrives. A lost notification costs only promptness: those waits end on their
            // own, and find the document gone.
            self.waiters.bury(&id);
            let gone = format!("{GONE_PREFIX}{id}");
            if let Err(e) = self
                .query(
                    "cannot announce the deletion",
                    "SELECT pg_notify($1, $2)",
                    &[&CHANNEL, &gone],
                )
                .await
            {
                tracing::warn!(error = %e, "the deletion was not announced to other replicas");
            }
            Ok(Lookup::Live(()))
        })
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
        Box::pin(async move {
            // Each document whose time ran out is announced once, before any purge.
            self.query(
                "cannot announce expired documents",
                &format!(
                    "WITH due AS (
                        UPDATE documents SET expiry_announced = true
                        WHERE gone_at IS NULL AND expires_at <= $1 AND NOT expiry_announced
                        RETURNING id, owner_key, callback_url
                     )
                     {}",
                    event_insert("due", DOCUMENT_EXPIRED, "NULL::bigint", "$1")
                ),
                &[&now],
            )
            .await?;
            // Stopped taking responses at or before `purge_before`: expired then, or closed
            // then.
            let expired = self
                .query(
                    "cannot purge documents",
                    "UPDATE documents SET markdown = NULL, sender = NULL, gone_at = $2
                     WHERE gone_at IS NULL AND (expires_at <= $1 OR closed_at <= $1)
                     RETURNING id",
                    &[&purge_before, &now],
                )
                .await?
                .len();
            // Responses of every gone document: those just expired, and any a crash left
            // behind a deletion.
            self.query(
                "cannot delete the responses of gone documents",
                "DELETE FROM responses r USING documents d
                 WHERE r.document_id = d.id AND d.gone_at IS NOT NULL",
                &[],
            )
            .await?;
            self.query(
                "cannot delete the recipients of gone documents",
                "DELETE FROM recipients r USING documents d
                 WHERE r.document_id = d.id AND d.gone_at IS NOT NULL",
                &[],
            )
            .await?;
            self.query(
                "cannot delete the revisions of gone documents",
                "DELETE FROM revisions v USING documents d
                 WHERE v.document_id = d.id AND d.gone_at IS NOT NULL",
                &[],
            )
            .await?;
            self.query(
                "cannot forget old tombstones",
                "DELETE FROM documents WHERE gone_at IS NOT NULL AND gone_at < $1",
                &[&forget_before],
            )
            .await?;
            Ok(expired as u64)
        })
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
