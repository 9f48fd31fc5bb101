//! The PostgreSQL backend, for several `passback serve` replicas sharing one database.
//!
//! - Connections: a small pool, opened as needed and opened again after the database went
//!   away. Every change is one statement (so one implicit transaction); queries from many
//!   requests share a connection, pipelined.
//! - Response numbers: storing a response increments its document's `response_count` in the
//!   same statement that inserts it. The row lock that takes serializes the responses to one
//!   document, so their numbers commit in order, and a reader that saw response N never
//!   later finds a new response numbered below N.
//! - Long-polls: a trigger sends `NOTIFY passback_responses, '<document id>'` when a response
//!   is inserted. Every replica keeps one connection that `LISTEN`s and wakes its waits on that
//!   document; waits also read again every few seconds, in case that connection was down. A
//!   delete sends `gone:<document id>` on the same channel, which ends the waits on it.
//! - Migrations run at start, under an advisory lock, so replicas starting together apply each
//!   one once.
//!
//! - TLS: as the URL's `sslmode` (and `sslrootcert`) ask, with libpq's meanings; see
//!   [`super::pg_tls`].

use super::pg_tls::{self, Target};
use super::{
    Added, Attempt, Cursor, DOCUMENT_CLOSED, DOCUMENT_EXPIRED, Delivery, Document, DocumentSummary,
    Event, GONE_PREFIX, KeyAdded, KeyInfo, Lookup, Migration, Millis, NewDocument, NewKey,
    NewResponse, PAGE_BYTES, PAGE_RESPONSES, RESPONSE_CREATED, Status, Store, StoreError,
    StoreFuture, StoredResponse, Waiters,
};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::sync::{Mutex, OnceCell};
use tokio_postgres::{AsyncMessage, Client, Row};

const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "routed_documents",
        sql: include_str!("../../migrations/postgres/0001_routed_documents.sql"),
    },
    Migration {
        version: 2,
        name: "lifecycle",
        sql: include_str!("../../migrations/postgres/0002_lifecycle.sql"),
    },
    Migration {
        version: 3,
        name: "keys",
        sql: include_str!("../../migrations/postgres/0003_keys.sql"),
    },
    Migration {
        version: 4,
        name: "events",
        sql: include_str!("../../migrations/postgres/0004_events.sql"),
    },
    Migration {
        version: 5,
        name: "submissions",
        sql: include_str!("../../migrations/postgres/0005_submissions.sql"),
    },
];

/// The columns an event insert names, and the select that fills them from a row `d` of the
/// document (with `owner_key` and `callback_url`) joined to its key `k`: `{type}`, `{response}`
/// and `{at}` are SQL for the type, the response id and the time.
fn event_insert(source: &str, kind: &str, response: &str, at: &str) -> String {
    format!(
        "INSERT INTO events (document_id, owner_key, type, response_id, created_at, deliver,
                             next_attempt_at)
         SELECT d.id, d.owner_key, '{kind}', {response}, {at},
                coalesce(d.callback_url, k.callback_url) IS NOT NULL,
                CASE WHEN coalesce(d.callback_url, k.callback_url) IS NOT NULL THEN {at} END
         FROM {source} d LEFT JOIN keys k ON k.id = d.owner_key"
    )
}

/// The columns [`event_row`] reads, in its order (of `events e`).
const EVENT_COLUMNS: &str = "e.id, e.document_id, e.type, e.response_id, e.created_at, e.deliver,
     e.attempts, e.next_attempt_at, e.delivered_at, e.last_status, e.last_error";

fn event_row(r: &Row) -> Event {
    Event {
        id: r.get(0),
        document_id: r.get(1),
        kind: r.get(2),
        response_id: r.get::<_, Option<i64>>(3).map(|n| n as u64),
        created_at: r.get(4),
        deliver: r.get(5),
        attempts: r.get::<_, i32>(6) as u32,
        next_attempt_at: r.get(7),
        delivered_at: r.get(8),
        last_status: r.get::<_, Option<i32>>(9).map(|n| n as u16),
        last_error: r.get(10),
    }
}

/// The channel the insert trigger notifies (see the migration).
const CHANNEL: &str = "passback_responses";
/// The advisory lock migrations take: "pbck" in ASCII.
const MIGRATION_LOCK: i64 = 0x7062_636b;
const POOL_SIZE: usize = 4;
/// Waits read again at least this often, whatever the listening connection says.
const RECHECK_EVERY: Duration = Duration::from_secs(3);
const RECONNECT_AFTER: Duration = Duration::from_secs(1);
/// How long opening a connection may take, unless the URL says (`connect_timeout=`).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

pub struct PostgresStore {
    url: String,
    ready: OnceCell<Arc<Pool>>,
    waiters: Arc<Waiters>,
}

struct Pool {
    target: Target,
    slots: Vec<Mutex<Option<Arc<Client>>>>,
    next: AtomicUsize,
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
    async fn client(&self) -> Result<Arc<Client>, StoreError> {
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.slots.len();
        let mut slot = self.slots[i].lock().await;
        if let Some(client) = slot.as_ref().filter(|c| !c.is_closed()) {
            return Ok(client.clone());
        }
        let client = Arc::new(connect(&self.target).await?);
        *slot = Some(client.clone());
        Ok(client)
    }
}

impl PostgresStore {
    /// The store at `url`; nothing is connected until the first operation or `prepare`.
    pub fn new(url: String) -> PostgresStore {
        PostgresStore {
            url,
            ready: OnceCell::new(),
            waiters: Arc::default(),
        }
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
                *pool.slots[0].lock().await = Some(Arc::new(client));
                tokio::spawn(listen(target, Arc::downgrade(&self.waiters)));
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
        let client = self.pool().await?.client().await?;
        client
            .query(sql, params)
            .await
            .map_err(|e| db_error(context, e))
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
                        export, submission_hash
                 FROM responses WHERE document_id = $1 AND submission_hash = $2",
                &[&id, &hash],
            )
            .await?;
        rows.first().map(response).transpose()
    }

    /// Why a response could not be added to `id` at `now`.
    async fn refusal(&self, id: &str, now: Millis, max: i64) -> Result<Added, StoreError> {
        let rows = self
            .query(
                "cannot read a document",
                "SELECT gone_at, expires_at, response_count, closed_at FROM documents WHERE id = $1",
                &[&id],
            )
            .await?;
        Ok(match rows.first() {
            None => Added::Unknown,
            Some(r) if r.get::<_, Option<Millis>>(0).is_some() => Added::Gone,
            Some(r) if Status::at(r.get(3), r.get(1), now) != Status::Open => {
                Added::NotOpen(Status::at(r.get(3), r.get(1), now))
            }
            Some(r) if r.get::<_, i64>(2) >= max => Added::Full,
            // It took a response in between; the caller's limit was reached meanwhile or the
            // document changed: say it is full rather than guess.
            Some(_) => Added::Full,
        })
    }
}

/// The columns [`document_row`] reads, in its order.
const DOCUMENT_COLUMNS: &str = "token_hash, markdown, hash, created_at, expires_at, gone_at,
     response_count, closed_at, views, last_response_at, owner_key";

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
    }))
}

async fn migrate(client: &mut Client) -> Result<(), StoreError> {
    let fail = |e| db_error("cannot apply the schema", e);
    let tx = client.transaction().await.map_err(fail)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(fail)?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS passback_migrations (
            version bigint PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)",
    )
    .await
    .map_err(fail)?;
    let newest: i64 = tx
        .query_one(
            "SELECT coalesce(max(version), 0)::bigint FROM passback_migrations",
            &[],
        )
        .await
        .map_err(fail)?
        .get(0);
    let known = MIGRATIONS.last().map_or(0, |m| m.version);
    if newest > known {
        return Err(StoreError(format!(
            "the database's schema is version {newest}, newer than this passback knows ({known}); run a newer passback"
        )));
    }
    for m in MIGRATIONS.iter().filter(|m| m.version > newest) {
        tx.batch_execute(m.sql).await.map_err(fail)?;
        tx.execute(
            "INSERT INTO passback_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
            &[&m.version, &m.name, &super::now()],
        )
        .await
        .map_err(fail)?;
    }
    tx.commit().await.map_err(fail)
}

/// Keeps a connection that LISTENs for stored responses and wakes the waits on their
/// documents, opening it again whenever it is lost; ends when the store is gone.
async fn listen(target: Target, waiters: Weak<Waiters>) {
    loop {
        if waiters.strong_count() == 0 {
            return;
        }
        match target.config.connect(target.tls.clone()).await {
            Ok((client, mut connection)) => {
                let forward = waiters.clone();
                let mut driver = tokio::spawn(async move {
                    while let Some(message) =
                        std::future::poll_fn(|cx| connection.poll_message(cx)).await
                    {
                        match (message, forward.upgrade()) {
                            (Ok(AsyncMessage::Notification(n)), Some(w)) => {
                                w.announced(n.payload())
                            }
                            (Ok(_), Some(_)) => {}
                            (Err(e), _) => {
                                tracing::warn!(error = %e, "the PostgreSQL listening connection failed");
                                return;
                            }
                            (_, None) => return,
                        }
                    }
                });
                match client.batch_execute(&format!("LISTEN {CHANNEL}")).await {
                    Ok(()) => {
                        // Responses stored while no one listened were announced to no one.
                        if let Some(w) = waiters.upgrade() {
                            w.notify_all();
                        }
                        loop {
                            tokio::select! {
                                _ = &mut driver => break,
                                () = tokio::time::sleep(Duration::from_secs(5)) => {
                                    if waiters.strong_count() == 0 {
                                        driver.abort();
                                        return;
                                    }
                                }
                            }
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot LISTEN for stored responses");
                        driver.abort();
                    }
                }
                drop(client);
            }
            Err(e) => tracing::warn!(error = %e, "cannot connect to PostgreSQL to listen"),
        }
        tokio::time::sleep(RECONNECT_AFTER).await;
    }
}

fn response(r: &Row) -> Result<StoredResponse, StoreError> {
    let json = |i: usize| {
        serde_json::from_str(r.get::<_, &str>(i))
            .map_err(|e| StoreError::new("a stored response is not JSON", e))
    };
    Ok(StoredResponse {
        response_id: r.get::<_, i64>(0) as u64,
        received_at: r.get(1),
        reviewer: r.get(2),
        component_inputs: json(3)?,
        annotations: json(4)?,
        export: r.get(5),
        submission: r.get(6),
    })
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
            self.query(
                "cannot keep the document",
                "INSERT INTO documents (id, token_hash, markdown, hash, created_at, expires_at,
                                        owner_key, callback_url, webhook_secret)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
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
                ],
            )
            .await?;
            Ok(())
        })
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
                    "UPDATE documents SET markdown = NULL, gone_at = $2
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
            self.query(
                "cannot delete the responses",
                "DELETE FROM responses WHERE document_id = $1",
                &[&id],
            )
            .await?;
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
        let id = id.to_string();
        Box::pin(async move {
            let max = max_responses.min(i64::MAX as u64) as i64;
            let inputs = serde_json::to_string(&response.component_inputs)
                .map_err(|e| StoreError::new("cannot write the answers", e))?;
            let annotations = serde_json::to_string(&response.annotations)
                .map_err(|e| StoreError::new("cannot write the annotations", e))?;
            if let Some(found) = self.submitted(&id, response.submission.as_deref()).await? {
                return Ok(Added::Stored(Box::new(found)));
            }
            let inserted = self
                .query(
                    "cannot keep the response",
                    &format!(
                        "WITH doc AS (
                        UPDATE documents SET response_count = response_count + 1,
                                             last_response_at = $2
                        WHERE id = $1 AND gone_at IS NULL AND expires_at > $2
                          AND closed_at IS NULL AND response_count < $3
                        RETURNING id, response_count, owner_key, callback_url
                     ),
                     stored AS (
                        INSERT INTO responses (document_id, seq, received_at, reviewer,
                                               component_inputs, annotations, export,
                                               submission_hash)
                        SELECT id, response_count, $2, $4, $5::text::json, $6::text::json, $7, $8
                        FROM doc
                        RETURNING seq
                     ),
                     announced AS ({})
                     SELECT seq FROM stored",
                        event_insert("doc", RESPONSE_CREATED, "d.response_count", "$2")
                    ),
                    &[
                        &id,
                        &response.received_at,
                        &max,
                        &response.reviewer,
                        &inputs,
                        &annotations,
                        &response.export,
                        &response.submission,
                    ],
                )
                .await;
            let rows = match inserted {
                Ok(rows) => rows,
                // The same form posted twice at once: the other post stored it first.
                Err(e) => match self.submitted(&id, response.submission.as_deref()).await? {
                    Some(found) => return Ok(Added::Stored(Box::new(found))),
                    None => return Err(e),
                },
            };
            let Some(row) = rows.first() else {
                return self.refusal(&id, response.received_at, max).await;
            };
            self.waiters.notify(&id);
            Ok(Added::Stored(Box::new(StoredResponse {
                response_id: row.get::<_, i64>(0) as u64,
                received_at: response.received_at,
                reviewer: response.reviewer,
                component_inputs: response.component_inputs,
                annotations: response.annotations,
                export: response.export,
                submission: response.submission,
            })))
        })
    }

    fn responses(&self, id: &str, since: u64) -> StoreFuture<'_, Vec<StoredResponse>> {
        let id = id.to_string();
        Box::pin(async move {
            let since = since.min(i64::MAX as u64) as i64;
            let rows = self
                .query(
                    "cannot read the responses",
                    "SELECT seq, received_at, reviewer, component_inputs::text, annotations::text,
                            export, submission_hash
                     FROM responses WHERE document_id = $1 AND seq > $2
                     ORDER BY seq LIMIT $3",
                    &[&id, &since, &(PAGE_RESPONSES as i64)],
                )
                .await?;
            let mut out = Vec::with_capacity(rows.len());
            let mut bytes = 0;
            for r in &rows {
                let found = response(r)?;
                bytes += found.export.len() + r.get::<_, &str>(3).len();
                out.push(found);
                if bytes >= PAGE_BYTES {
                    break;
                }
            }
            Ok(out)
        })
    }

    fn wait_for_responses(
        &self,
        id: &str,
        since: u64,
        timeout: Duration,
    ) -> StoreFuture<'_, Vec<StoredResponse>> {
        let id = id.to_string();
        Box::pin(async move {
            self.waiters
                .wait(&id, timeout, RECHECK_EVERY, || self.responses(&id, since))
                .await
        })
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
                    "UPDATE documents SET markdown = NULL, gone_at = $2
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
        Box::pin(async move {
            let rows = self
                .query(
                    "cannot keep the key",
                    "INSERT INTO keys (id, name, key_hash, created_at, webhook_secret, callback_url)
                     VALUES ($1, $2, $3, $4, $5, $6)
                     ON CONFLICT (name) DO NOTHING
                     RETURNING id",
                    &[
                        &key.id,
                        &key.name,
                        &&key.key_hash[..],
                        &key.created_at,
                        &key.webhook_secret,
                        &key.callback_url,
                    ],
                )
                .await?;
            Ok(if rows.is_empty() {
                KeyAdded::NameTaken
            } else {
                KeyAdded::Added
            })
        })
    }

    fn keys(&self) -> StoreFuture<'_, Vec<KeyInfo>> {
        Box::pin(async move {
            let rows = self
                .query(
                    "cannot read the keys",
                    "SELECT id, name, created_at, revoked_at, webhook_secret, callback_url FROM keys ORDER BY created_at, name",
                    &[],
                )
                .await?;
            Ok(rows.iter().map(key_info).collect())
        })
    }

    fn revoke_key(&self, name: &str, now: Millis) -> StoreFuture<'_, Lookup<()>> {
        let name = name.to_string();
        Box::pin(async move {
            let revoked = self
                .query(
                    "cannot revoke the key",
                    "UPDATE keys SET revoked_at = $2 WHERE name = $1 AND revoked_at IS NULL
                     RETURNING id",
                    &[&name, &now],
                )
                .await?;
            if !revoked.is_empty() {
                return Ok(Lookup::Live(()));
            }
            let rows = self
                .query(
                    "cannot read the keys",
                    "SELECT 1 FROM keys WHERE name = $1",
                    &[&name],
                )
                .await?;
            Ok(if rows.is_empty() {
                Lookup::Unknown
            } else {
                Lookup::Gone
            })
        })
    }

    fn set_webhook_secret(&self, name: &str, secret: &str) -> StoreFuture<'_, Lookup<()>> {
        let (name, secret) = (name.to_string(), secret.to_string());
        Box::pin(async move {
            let rows = self
                .query(
                    "cannot change the key's webhook secret",
                    "WITH k AS (SELECT name, revoked_at FROM keys WHERE name = $1 FOR UPDATE),
                     changed AS (
                        UPDATE keys SET webhook_secret = $2
                        WHERE name = $1 AND revoked_at IS NULL RETURNING name
                     )
                     SELECT (SELECT count(*) FROM changed), k.revoked_at FROM k",
                    &[&name, &secret],
                )
                .await?;
            Ok(match rows.first() {
                None => Lookup::Unknown,
                Some(r) if r.get::<_, i64>(0) > 0 => Lookup::Live(()),
                Some(_) => Lookup::Gone,
            })
        })
    }

    fn key_by_hash(&self, hash: [u8; 32]) -> StoreFuture<'_, Option<KeyInfo>> {
        Box::pin(async move {
            let rows = self
                .query(
                    "cannot read the keys",
                    "SELECT id, name, created_at, revoked_at, webhook_secret, callback_url FROM keys WHERE key_hash = $1",
                    &[&&hash[..]],
                )
                .await?;
            Ok(rows.first().map(key_info))
        })
    }

    fn list_documents(
        &self,
        owner: &str,
        after: Option<Cursor>,
        limit: usize,
        now: Millis,
    ) -> StoreFuture<'_, Vec<DocumentSummary>> {
        let owner = owner.to_string();
        Box::pin(async move {
            // Past every document there is when no cursor is given.
            let (at, id) = after.map_or((i64::MAX, String::new()), |a| (a.created_at, a.id));
            let limit = limit.min(i64::MAX as usize) as i64;
            let rows = self
                .query(
                    "cannot list the documents",
                    "SELECT d.id, d.created_at, d.expires_at, d.response_count, d.closed_at,
                            d.views, d.last_response_at
                     FROM documents d
                     WHERE d.owner_key = $1 AND d.gone_at IS NULL
                       AND (d.created_at, d.id) < ($2, $3)
                     ORDER BY d.created_at DESC, d.id DESC
                     LIMIT $4",
                    &[&owner, &at, &id, &limit],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| {
                    let (expires_at, closed_at): (Millis, Option<Millis>) = (r.get(2), r.get(4));
                    DocumentSummary {
                        id: r.get(0),
                        status: Status::at(closed_at, expires_at, now),
                        created_at: r.get(1),
                        expires_at,
                        closed_at,
                        views: r.get::<_, i64>(5) as u64,
                        responses: r.get::<_, i64>(3) as u64,
                        last_response_at: r.get(6),
                    }
                })
                .collect())
        })
    }

    fn routed_since(&self, owner: &str, since: Millis) -> StoreFuture<'_, (u64, Option<Millis>)> {
        let owner = owner.to_string();
        Box::pin(async move {
            let rows = self
                .query(
                    "cannot count the key's documents",
                    "SELECT count(*), min(created_at) FROM documents
                     WHERE owner_key = $1 AND created_at >= $2",
                    &[&owner, &since],
                )
                .await?;
            Ok(rows
                .first()
                .map_or((0, None), |r| (r.get::<_, i64>(0) as u64, r.get(1))))
        })
    }

    fn stored_bytes(&self, owner: &str) -> StoreFuture<'_, u64> {
        let owner = owner.to_string();
        Box::pin(async move {
            let rows = self
                .query(
                    "cannot count the key's stored bytes",
                    "SELECT
                       (SELECT coalesce(sum(octet_length(markdown)), 0) FROM documents
                        WHERE owner_key = $1 AND gone_at IS NULL)::bigint
                     + (SELECT coalesce(sum(octet_length(r.component_inputs::text)
                                          + octet_length(r.annotations::text)
                                          + octet_length(r.export)), 0)
                        FROM responses r JOIN documents d ON d.id = r.document_id
                        WHERE d.owner_key = $1 AND d.gone_at IS NULL)::bigint",
                    &[&owner],
                )
                .await?;
            Ok(rows.first().map_or(0, |r| r.get::<_, i64>(0).max(0) as u64))
        })
    }

    fn claim_events(
        &self,
        now: Millis,
        lease_until: Millis,
        limit: usize,
    ) -> StoreFuture<'_, Vec<Delivery>> {
        Box::pin(async move {
            let limit = limit.min(i64::MAX as usize) as i64;
            // One replica claims each event: the rows another replica is claiming are skipped,
            // and a claimed event is leased (next_attempt_at pushed to the lease's end).
            let rows = self
                .query(
                    "cannot claim events to deliver",
                    &format!(
                        "WITH due AS (
                            SELECT seq FROM events
                            WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= $1
                            ORDER BY next_attempt_at, seq LIMIT $3
                            FOR UPDATE SKIP LOCKED
                         ),
                         claimed AS (
                            UPDATE events SET next_attempt_at = $2
                            FROM due WHERE events.seq = due.seq
                            RETURNING events.*
                         )
                         SELECT {EVENT_COLUMNS}, coalesce(d.callback_url, k.callback_url),
                                coalesce(d.webhook_secret, k.webhook_secret)
                         FROM claimed e JOIN documents d ON d.id = e.document_id
                         LEFT JOIN keys k ON k.id = d.owner_key"
                    ),
                    &[&now, &lease_until, &limit],
                )
                .await?;
            let mut out = Vec::new();
            for r in &rows {
                let event = event_row(r);
                match (
                    r.get::<_, Option<String>>(11),
                    r.get::<_, Option<String>>(12),
                ) {
                    (Some(url), Some(secret)) => out.push(Delivery { event, url, secret }),
                    // Its callback URL or secret went away: nothing to deliver.
                    _ => {
                        self.query(
                            "cannot record a delivery",
                            "UPDATE events SET next_attempt_at = NULL,
                               last_error = 'no callback URL or secret any more'
                             WHERE id = $1",
                            &[&event.id],
                        )
                        .await?;
                    }
                }
            }
            Ok(out)
        })
    }

    fn record_attempt(&self, id: &str, attempt: Attempt) -> StoreFuture<'_, ()> {
        let id = id.to_string();
        Box::pin(async move {
            let status = attempt.status.map(i32::from);
            self.query(
                "cannot record a delivery",
                "UPDATE events SET attempts = attempts + 1, last_status = $2, last_error = $3,
                   delivered_at = CASE WHEN $4 THEN $5 ELSE delivered_at END,
                   next_attempt_at = $6
                 WHERE id = $1",
                &[
                    &id,
                    &status,
                    &attempt.error,
                    &attempt.delivered,
                    &attempt.at,
                    &attempt.next_attempt_at,
                ],
            )
            .await?;
            Ok(())
        })
    }

    fn events_of_key(
        &self,
        owner: &str,
        since: Option<String>,
        limit: usize,
    ) -> StoreFuture<'_, Option<Vec<Event>>> {
        let owner = owner.to_string();
        Box::pin(async move {
            let (tx, seq): (i64, i64) = match since {
                None => (-1, 0),
                Some(id) => {
                    let rows = self
                        .query(
                            "cannot read the events",
                            "SELECT tx, seq FROM events WHERE id = $1 AND owner_key = $2",
                            &[&id, &owner],
                        )
                        .await?;
                    match rows.first() {
                        Some(r) => (r.get(0), r.get(1)),
                        None => return Ok(None),
                    }
                }
            };
            let limit = limit.min(i64::MAX as usize) as i64;
            // Only events of transactions older than any still running: one that commits late
            // is never behind a cursor already handed out.
            let rows = self
                .query(
                    "cannot read the events",
                    &format!(
                        "SELECT {EVENT_COLUMNS} FROM events e
                         WHERE e.owner_key = $1 AND (e.tx, e.seq) > ($2, $3)
                           AND e.tx < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
                         ORDER BY e.tx, e.seq LIMIT $4"
                    ),
                    &[&owner, &tx, &seq, &limit],
                )
                .await?;
            Ok(Some(rows.iter().map(event_row).collect()))
        })
    }

    fn events_of_document(&self, id: &str) -> StoreFuture<'_, Vec<Event>> {
        let id = id.to_string();
        Box::pin(async move {
            let rows = self
                .query(
                    "cannot read the events",
                    &format!(
                        "SELECT {EVENT_COLUMNS} FROM events e WHERE e.document_id = $1
                         ORDER BY e.seq"
                    ),
                    &[&id],
                )
                .await?;
            Ok(rows.iter().map(event_row).collect())
        })
    }

    fn redeliver(&self, id: &str, event: &str, now: Millis) -> StoreFuture<'_, bool> {
        let (id, event) = (id.to_string(), event.to_string());
        Box::pin(async move {
            let rows = self
                .query(
                    "cannot redeliver an event",
                    "UPDATE events SET next_attempt_at = $3, deliver = true
                     WHERE id = $2 AND document_id = $1 AND EXISTS (
                       SELECT 1 FROM documents d LEFT JOIN keys k ON k.id = d.owner_key
                       WHERE d.id = $1
                         AND coalesce(d.callback_url, k.callback_url) IS NOT NULL)
                     RETURNING id",
                    &[&id, &event, &now],
                )
                .await?;
            Ok(!rows.is_empty())
        })
    }
}

fn key_info(r: &Row) -> KeyInfo {
    KeyInfo {
        id: r.get(0),
        name: r.get(1),
        created_at: r.get(2),
        revoked_at: r.get(3),
        webhook_secret: r.get(4),
        callback_url: r.get(5),
    }
}
