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

use super::{
    Added, Attempt, Cursor, DOCUMENT_CLOSED, DOCUMENT_EXPIRED, Delivery, Document, DocumentSummary,
    Event, KeyAdded, KeyInfo, Lookup, Migration, Millis, NewDocument, NewKey, NewResponse,
    PAGE_BYTES, PAGE_RESPONSES, RESPONSE_CREATED, Status, Store, StoreError, StoreFuture,
    StoredResponse, Waiters,
};
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The schema, in order; applied when the file is opened.
const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "routed_documents",
        sql: include_str!("../../migrations/sqlite/0001_routed_documents.sql"),
    },
    Migration {
        version: 2,
        name: "lifecycle",
        sql: include_str!("../../migrations/sqlite/0002_lifecycle.sql"),
    },
    Migration {
        version: 3,
        name: "keys",
        sql: include_str!("../../migrations/sqlite/0003_keys.sql"),
    },
    Migration {
        version: 4,
        name: "events",
        sql: include_str!("../../migrations/sqlite/0004_events.sql"),
    },
    Migration {
        version: 5,
        name: "submissions",
        sql: include_str!("../../migrations/sqlite/0005_submissions.sql"),
    },
];

/// Inserts an event of `kind` for the document `?1` in the transaction making the change; it is
/// to be delivered when the document, or its key, has a callback URL. `?2` is the time, `?3`
/// the response id (or NULL).
fn insert_event(
    tx: &Connection,
    kind: &str,
    id: &str,
    at: Millis,
    response: Option<i64>,
) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT INTO events (document_id, owner_key, type, response_id, created_at, deliver,
                             next_attempt_at)
         SELECT d.id, d.owner_key, ?4, ?3, ?2,
                coalesce(d.callback_url, k.callback_url) IS NOT NULL,
                CASE WHEN coalesce(d.callback_url, k.callback_url) IS NOT NULL THEN ?2 END
         FROM documents d LEFT JOIN keys k ON k.id = d.owner_key
         WHERE d.id = ?1",
        params![id, at, response, kind],
    )?;
    Ok(())
}

/// The columns [`event_row`] reads, in its order (of `events e`).
const EVENT_COLUMNS: &str = "e.id, e.document_id, e.type, e.response_id, e.created_at, e.deliver,
     e.attempts, e.next_attempt_at, e.delivered_at, e.last_status, e.last_error";

fn event_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Event> {
    Ok(Event {
        id: r.get(0)?,
        document_id: r.get(1)?,
        kind: r.get(2)?,
        response_id: r.get::<_, Option<i64>>(3)?.map(|n| n as u64),
        created_at: r.get(4)?,
        deliver: r.get(5)?,
        attempts: r.get::<_, i64>(6)? as u32,
        next_attempt_at: r.get(7)?,
        delivered_at: r.get(8)?,
        last_status: r.get::<_, Option<i64>>(9)?.map(|n| n as u16),
        last_error: r.get(10)?,
    })
}

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
        Ok(())
    };
    setup(&mut conn).map_err(|e| e.to_string())?;
    migrate(&mut conn)?;
    Ok(Some(conn))
}

fn migrate(conn: &mut Connection) -> Result<(), String> {
    let step = |conn: &mut Connection| -> rusqlite::Result<Result<(), String>> {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute_batch(
            "CREATE TABLE IF NOT EXISTS passback_migrations (
                version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)",
        )?;
        let newest: Option<i64> =
            tx.query_row("SELECT max(version) FROM passback_migrations", [], |r| {
                r.get(0)
            })?;
        let newest = newest.unwrap_or(0);
        let known = MIGRATIONS.last().map_or(0, |m| m.version);
        if newest > known {
            return Ok(Err(format!(
                "its schema is version {newest}, newer than this passback knows ({known}); run a newer passback"
            )));
        }
        for m in MIGRATIONS.iter().filter(|m| m.version > newest) {
            tx.execute_batch(m.sql)?;
            tx.execute(
                "INSERT INTO passback_migrations (version, name, applied_at) VALUES (?1, ?2, ?3)",
                params![m.version, m.name, super::now()],
            )?;
        }
        tx.commit()?;
        Ok(Ok(()))
    };
    step(conn).map_err(|e| format!("cannot apply the schema: {e}"))?
}

fn json_text(v: &serde_json::Value) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

fn json_value(text: &str) -> rusqlite::Result<serde_json::Value> {
    serde_json::from_str(text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, e.into())
    })
}

fn token_hash(bytes: Vec<u8>) -> rusqlite::Result<[u8; 32]> {
    bytes.try_into().map_err(|_| {
        rusqlite::Error::FromSqlConversionFailure(
            1,
            rusqlite::types::Type::Blob,
            "a token hash is 32 bytes".into(),
        )
    })
}

/// The columns [`document_row`] reads, in its order.
const DOCUMENT_COLUMNS: &str = "token_hash, markdown, hash, created_at, expires_at, gone_at,
     response_count, closed_at, views, last_response_at, owner_key";

/// The document in a row of [`DOCUMENT_COLUMNS`]: kept, or gone (deleted or purged).
fn document_row(
    id: &str,
    r: &rusqlite::Row<'_>,
    now: Millis,
) -> rusqlite::Result<Lookup<Document>> {
    let markdown: Option<String> = r.get(1)?;
    let gone_at: Option<Millis> = r.get(5)?;
    let (Some(markdown), None) = (markdown, gone_at) else {
        return Ok(Lookup::Gone);
    };
    let expires_at = r.get(4)?;
    let closed_at = r.get(7)?;
    Ok(Lookup::Live(Document {
        id: id.to_string(),
        token_hash: token_hash(r.get(0)?)?,
        markdown,
        hash: r.get(2)?,
        created_at: r.get(3)?,
        expires_at,
        responses: r.get::<_, i64>(6)? as u64,
        closed_at,
        views: r.get::<_, i64>(8)? as u64,
        last_response_at: r.get(9)?,
        status: Status::at(closed_at, expires_at, now),
        owner: r.get(10)?,
    }))
}

/// Deletes a document's text and responses, leaving its tombstone gone since `at`.
fn bury(conn: &Connection, id: &str, at: Millis) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM responses WHERE document_id = ?1", [id])?;
    conn.execute(
        "UPDATE documents SET markdown = NULL, gone_at = ?2 WHERE id = ?1",
        params![id, at],
    )?;
    Ok(())
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

fn read_responses(
    conn: &Connection,
    id: &str,
    since: u64,
) -> rusqlite::Result<Vec<StoredResponse>> {
    let mut stmt = conn.prepare(
        "SELECT seq, received_at, reviewer, component_inputs, annotations, export, submission_hash
         FROM responses WHERE document_id = ?1 AND seq > ?2 ORDER BY seq",
    )?;
    let mut rows = stmt.query(params![id, since.min(i64::MAX as u64) as i64])?;
    let mut out = Vec::new();
    let mut bytes = 0;
    while let Some(row) = rows.next()? {
        let inputs: String = row.get(3)?;
        let export: String = row.get(5)?;
        bytes += inputs.len() + export.len();
        out.push(StoredResponse {
            response_id: row.get::<_, i64>(0)? as u64,
            received_at: row.get(1)?,
            reviewer: row.get(2)?,
            component_inputs: json_value(&inputs)?,
            annotations: json_value(&row.get::<_, String>(4)?)?,
            export,
            submission: row.get(6)?,
        });
        if out.len() >= PAGE_RESPONSES || bytes >= PAGE_BYTES {
            break;
        }
    }
    Ok(out)
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
        Box::pin(async move {
            self.run(true, move |c| {
                c.execute(
                    "INSERT INTO documents (id, token_hash, markdown, hash, created_at, expires_at,
                                            owner_key, callback_url, webhook_secret)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    params![
                        doc.id,
                        &doc.token_hash[..],
                        doc.markdown,
                        doc.hash,
                        doc.created_at,
                        doc.expires_at,
                        doc.owner,
                        doc.callback_url,
                        doc.webhook_secret
                    ],
                )
            })
            .await?;
            Ok(())
        })
    }

    fn document(&self, id: &str, now: Millis) -> StoreFuture<'_, Lookup<Document>> {
        let id = id.to_string();
        Box::pin(async move {
            let found = self
                .run(false, move |c| {
                    c.query_row(
                        &format!("SELECT {DOCUMENT_COLUMNS} FROM documents WHERE id = ?1"),
                        [&id],
                        |r| document_row(&id, r, now),
                    )
                    .optional()
                })
                .await?;
            Ok(found.flatten().unwrap_or(Lookup::Unknown))
        })
    }

    fn set_closed(
        &self,
        id: &str,
        closed: bool,
        now: Millis,
    ) -> StoreFuture<'_, Lookup<DocumentSummary>> {
        let id = id.to_string();
        let key = id.clone();
        Box::pin(async move {
            let found = self
                .run(false, move |c| {
                    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                    // An open document that this closes announces it.
                    if closed {
                        let open: Option<i64> = tx
                            .query_row(
                                "SELECT 1 FROM documents WHERE id = ?1 AND gone_at IS NULL
                                   AND expires_at > ?2 AND closed_at IS NULL",
                                params![id, now],
                                |r| r.get(0),
                            )
                            .optional()?;
                        if open.is_some() {
                            insert_event(&tx, DOCUMENT_CLOSED, &id, now, None)?;
                        }
                    }
                    // Closing keeps the first close's time; an expired document stays as it is.
                    tx.execute(
                        if closed {
                            "UPDATE documents SET closed_at = coalesce(closed_at, ?2)
                             WHERE id = ?1 AND gone_at IS NULL AND expires_at > ?2"
                        } else {
                            "UPDATE documents SET closed_at = NULL
                             WHERE id = ?1 AND gone_at IS NULL AND expires_at > ?2"
                        },
                        params![id, now],
                    )?;
                    let found = tx
                        .query_row(
                            &format!("SELECT {DOCUMENT_COLUMNS} FROM documents WHERE id = ?1"),
                            [&id],
                            |r| document_row(&id, r, now),
                        )
                        .optional()?;
                    tx.commit()?;
                    Ok(match found {
                        None => Lookup::Unknown,
                        Some(Lookup::Live(doc)) => Lookup::Live(doc.summary()),
                        Some(Lookup::Gone) => Lookup::Gone,
                        Some(Lookup::Unknown) => Lookup::Unknown,
                    })
                })
                .await?;
            let found = found.unwrap_or(Lookup::Unknown);
            // A closed document takes no more responses: its long-polls end now.
            if closed && matches!(found, Lookup::Live(_)) {
                self.waiters.bury(&key);
            }
            Ok(found)
        })
    }

    fn count_view(&self, id: &str) -> StoreFuture<'_, ()> {
        let id = id.to_string();
        Box::pin(async move {
            self.run(false, move |c| {
                c.execute(
                    "UPDATE documents SET views = views + 1 WHERE id = ?1 AND gone_at IS NULL",
                    [&id],
                )
            })
            .await?;
            Ok(())
        })
    }

    fn delete(&self, id: &str, now: Millis) -> StoreFuture<'_, Lookup<()>> {
        let id = id.to_string();
        Box::pin(async move {
            let key = id.clone();
            let done = self
                .run(false, move |c| {
                    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                    let row: Option<Option<Millis>> = tx
                        .query_row("SELECT gone_at FROM documents WHERE id = ?1", [&id], |r| {
                            r.get(0)
                        })
                        .optional()?;
                    let outcome = match row {
                        None => Lookup::Unknown,
                        Some(Some(_)) => Lookup::Gone,
                        Some(None) => {
                            bury(&tx, &id, now)?;
                            Lookup::Live(())
                        }
                    };
                    tx.commit()?;
                    if matches!(outcome, Lookup::Live(())) {
                        checkpoint(c);
                    }
                    Ok(outcome)
                })
                .await?;
            let done = done.unwrap_or(Lookup::Unknown);
            if done == Lookup::Live(()) {
                self.waiters.bury(&key);
            }
            Ok(done)
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
            let key = id.clone();
            let added = self
                .run(false, move |c| {
                    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                    type Row = (Option<Millis>, Millis, i64, Option<Millis>);
                    let row: Option<Row> = tx
                        .query_row(
                            "SELECT gone_at, expires_at, response_count, closed_at
                             FROM documents WHERE id = ?1",
                            [&id],
                            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
                        )
                        .optional()?;
                    let now = response.received_at;
                    if let (Some((None, ..)), Some(submission)) = (&row, &response.submission) {
                        let seq: Option<i64> = tx
                            .query_row(
                                "SELECT seq FROM responses
                                 WHERE document_id = ?1 AND submission_hash = ?2",
                                params![id, submission],
                                |r| r.get(0),
                            )
                            .optional()?;
                        if let Some(seq) = seq {
                            let again = read_responses(&tx, &id, seq as u64 - 1)?;
                            if let Some(first) = again.into_iter().next() {
                                return Ok(Added::Stored(Box::new(first)));
                            }
                        }
                    }
                    let count = match row {
                        None => return Ok(Added::Unknown),
                        Some((Some(_), ..)) => return Ok(Added::Gone),
                        Some((None, expires_at, _, closed_at))
                            if Status::at(closed_at, expires_at, now) != Status::Open =>
                        {
                            return Ok(Added::NotOpen(Status::at(closed_at, expires_at, now)));
                        }
                        Some((_, _, count, _)) if count as u64 >= max_responses => {
                            return Ok(Added::Full);
                        }
                        Some((_, _, count, _)) => count,
                    };
                    let seq = count + 1;
                    tx.execute(
                        "UPDATE documents SET response_count = ?2, last_response_at = ?3
                         WHERE id = ?1",
                        params![id, seq, now],
                    )?;
                    tx.execute(
                        "INSERT INTO responses (document_id, seq, received_at, reviewer,
                                                component_inputs, annotations, export,
                                                submission_hash)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                        params![
                            id,
                            seq,
                            response.received_at,
                            response.reviewer,
                            json_text(&response.component_inputs),
                            json_text(&response.annotations),
                            response.export,
                            response.submission
                        ],
                    )?;
                    insert_event(&tx, RESPONSE_CREATED, &id, now, Some(seq))?;
                    tx.commit()?;
                    Ok(Added::Stored(Box::new(StoredResponse {
                        response_id: seq as u64,
                        received_at: response.received_at,
                        reviewer: response.reviewer,
                        component_inputs: response.component_inputs,
                        annotations: response.annotations,
                        export: response.export,
                        submission: response.submission,
                    })))
                })
                .await?
                .unwrap_or(Added::Unknown);
            if matches!(added, Added::Stored(_)) {
                self.waiters.notify(&key);
            }
            Ok(added)
        })
    }

    fn responses(&self, id: &str, since: u64) -> StoreFuture<'_, Vec<StoredResponse>> {
        let id = id.to_string();
        Box::pin(async move {
            Ok(self
                .run(false, move |c| read_responses(c, &id, since))
                .await?
                .unwrap_or_default())
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
            self.watch();
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
            let expired = self
                .run(false, move |c| {
                    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                    // Each document whose time ran out is announced once, before any purge.
                    let newly: Vec<String> = {
                        let mut stmt = tx.prepare(
                            "SELECT id FROM documents WHERE gone_at IS NULL AND expires_at <= ?1
                               AND expiry_announced = 0",
                        )?;
                        let rows = stmt.query_map([now], |r| r.get(0))?;
                        rows.collect::<rusqlite::Result<_>>()?
                    };
                    for id in &newly {
                        insert_event(&tx, DOCUMENT_EXPIRED, id, now, None)?;
                        tx.execute(
                            "UPDATE documents SET expiry_announced = 1 WHERE id = ?1",
                            [id],
                        )?;
                    }
                    // Stopped taking responses at or before `purge_before`: expired then, or
                    // closed then.
                    const DUE: &str = "gone_at IS NULL AND (expires_at <= ?1 OR closed_at <= ?1)";
                    tx.execute(
                        &format!(
                            "DELETE FROM responses WHERE document_id IN
                               (SELECT id FROM documents WHERE {DUE})"
                        ),
                        [purge_before],
                    )?;
                    let expired = tx.execute(
                        &format!("UPDATE documents SET markdown = NULL, gone_at = ?2 WHERE {DUE}"),
                        params![purge_before, now],
                    )?;
                    tx.execute(
                        "DELETE FROM documents WHERE gone_at IS NOT NULL AND gone_at < ?1",
                        [forget_before],
                    )?;
                    tx.commit()?;
                    // Every sweep, not only one that expired something: it also finishes a
                    // delete's checkpoint that another process held up.
                    checkpoint(c);
                    Ok(expired as u64)
                })
                .await?;
            Ok(expired.unwrap_or(0))
        })
    }

    fn wake_all(&self) {
        self.waiters.close();
    }

    fn add_key(&self, key: NewKey) -> StoreFuture<'_, KeyAdded> {
        Box::pin(async move {
            let added = self
                .run(true, move |c| {
                    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                    let taken: Option<i64> = tx
                        .query_row("SELECT 1 FROM keys WHERE name = ?1", [&key.name], |r| {
                            r.get(0)
                        })
                        .optional()?;
                    if taken.is_some() {
                        return Ok(KeyAdded::NameTaken);
                    }
                    tx.execute(
                        "INSERT INTO keys (id, name, key_hash, created_at, webhook_secret,
                                           callback_url)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                        params![
                            key.id,
                            key.name,
                            &key.key_hash[..],
                            key.created_at,
                            key.webhook_secret,
                            key.callback_url
                        ],
                    )?;
                    tx.commit()?;
                    Ok(KeyAdded::Added)
                })
                .await?;
            Ok(added.unwrap_or(KeyAdded::NameTaken))
        })
    }

    fn keys(&self) -> StoreFuture<'_, Vec<KeyInfo>> {
        Box::pin(async move {
            let keys = self
                .run(false, |c| {
                    let mut stmt = c.prepare(
                        "SELECT id, name, created_at, revoked_at, webhook_secret, callback_url FROM keys
                         ORDER BY created_at, name",
                    )?;
                    let rows = stmt.query_map([], key_info)?;
                    rows.collect::<rusqlite::Result<Vec<_>>>()
                })
                .await?;
            Ok(keys.unwrap_or_default())
        })
    }

    fn revoke_key(&self, name: &str, now: Millis) -> StoreFuture<'_, Lookup<()>> {
        let name = name.to_string();
        Box::pin(async move {
            let done = self
                .run(false, move |c| {
                    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                    let revoked: Option<Option<Millis>> = tx
                        .query_row(
                            "SELECT revoked_at FROM keys WHERE name = ?1",
                            [&name],
                            |r| r.get(0),
                        )
                        .optional()?;
                    let outcome = match revoked {
                        None => Lookup::Unknown,
                        Some(Some(_)) => Lookup::Gone,
                        Some(None) => {
                            tx.execute(
                                "UPDATE keys SET revoked_at = ?2 WHERE name = ?1",
                                params![name, now],
                            )?;
                            Lookup::Live(())
                        }
                    };
                    tx.commit()?;
                    Ok(outcome)
                })
                .await?;
            Ok(done.unwrap_or(Lookup::Unknown))
        })
    }

    fn set_webhook_secret(&self, name: &str, secret: &str) -> StoreFuture<'_, Lookup<()>> {
        let (name, secret) = (name.to_string(), secret.to_string());
        Box::pin(async move {
            let done = self
                .run(false, move |c| {
                    let revoked: Option<Option<Millis>> = c
                        .query_row(
                            "SELECT revoked_at FROM keys WHERE name = ?1",
                            [&name],
                            |r| r.get(0),
                        )
                        .optional()?;
                    Ok(match revoked {
                        None => Lookup::Unknown,
                        Some(Some(_)) => Lookup::Gone,
                        Some(None) => {
                            c.execute(
                                "UPDATE keys SET webhook_secret = ?2 WHERE name = ?1",
                                params![name, secret],
                            )?;
                            Lookup::Live(())
                        }
                    })
                })
                .await?;
            Ok(done.unwrap_or(Lookup::Unknown))
        })
    }

    fn key_by_hash(&self, hash: [u8; 32]) -> StoreFuture<'_, Option<KeyInfo>> {
        Box::pin(async move {
            let found = self
                .run(false, move |c| {
                    c.query_row(
                        "SELECT id, name, created_at, revoked_at, webhook_secret, callback_url FROM keys WHERE key_hash = ?1",
                        [&hash[..]],
                        key_info,
                    )
                    .optional()
                })
                .await?;
            Ok(found.flatten())
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
            let found = self
                .run(false, move |c| {
                    // Past every document there is when no cursor is given.
                    let (at, id) =
                        after.map_or((i64::MAX, String::new()), |a| (a.created_at, a.id));
                    let mut stmt = c.prepare(
                        "SELECT d.id, d.created_at, d.expires_at, d.response_count, d.closed_at,
                                d.views, d.last_response_at
                         FROM documents d
                         WHERE d.owner_key = ?1 AND d.gone_at IS NULL
                           AND (d.created_at < ?2 OR (d.created_at = ?2 AND d.id < ?3))
                         ORDER BY d.created_at DESC, d.id DESC
                         LIMIT ?4",
                    )?;
                    let rows = stmt.query_map(
                        params![owner, at, id, limit.min(i64::MAX as usize) as i64],
                        |r| {
                            let (expires_at, closed_at) = (r.get(2)?, r.get(4)?);
                            Ok(DocumentSummary {
                                id: r.get(0)?,
                                status: Status::at(closed_at, expires_at, now),
                                created_at: r.get(1)?,
                                expires_at,
                                closed_at,
                                views: r.get::<_, i64>(5)? as u64,
                                responses: r.get::<_, i64>(3)? as u64,
                                last_response_at: r.get(6)?,
                            })
                        },
                    )?;
                    rows.collect::<rusqlite::Result<Vec<_>>>()
                })
                .await?;
            Ok(found.unwrap_or_default())
        })
    }

    fn routed_since(&self, owner: &str, since: Millis) -> StoreFuture<'_, (u64, Option<Millis>)> {
        let owner = owner.to_string();
        Box::pin(async move {
            let found = self
                .run(false, move |c| {
                    c.query_row(
                        "SELECT count(*), min(created_at) FROM documents
                         WHERE owner_key = ?1 AND created_at >= ?2",
                        params![owner, since],
                        |r| Ok((r.get::<_, i64>(0)? as u64, r.get(1)?)),
                    )
                })
                .await?;
            Ok(found.unwrap_or((0, None)))
        })
    }

    fn stored_bytes(&self, owner: &str) -> StoreFuture<'_, u64> {
        let owner = owner.to_string();
        Box::pin(async move {
            let found = self
                .run(false, move |c| {
                    c.query_row(
                        "SELECT
                           (SELECT coalesce(sum(length(CAST(markdown AS BLOB))), 0) FROM documents
                            WHERE owner_key = ?1 AND gone_at IS NULL)
                         + (SELECT coalesce(sum(length(CAST(r.component_inputs AS BLOB))
                                              + length(CAST(r.annotations AS BLOB))
                                              + length(CAST(r.export AS BLOB))), 0)
                            FROM responses r JOIN documents d ON d.id = r.document_id
                            WHERE d.owner_key = ?1 AND d.gone_at IS NULL)",
                        params![owner],
                        |r| Ok(r.get::<_, i64>(0)?.max(0) as u64),
                    )
                })
                .await?;
            Ok(found.unwrap_or(0))
        })
    }

    fn claim_events(
        &self,
        now: Millis,
        lease_until: Millis,
        limit: usize,
    ) -> StoreFuture<'_, Vec<Delivery>> {
        Box::pin(async move {
            let found = self
                .run(false, move |c| {
                    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                    let claimed = {
                        let mut stmt = tx.prepare(&format!(
                            "SELECT {EVENT_COLUMNS}, coalesce(d.callback_url, k.callback_url),
                                    coalesce(d.webhook_secret, k.webhook_secret)
                             FROM events e JOIN documents d ON d.id = e.document_id
                             LEFT JOIN keys k ON k.id = d.owner_key
                             WHERE e.next_attempt_at IS NOT NULL AND e.next_attempt_at <= ?1
                             ORDER BY e.next_attempt_at, e.seq LIMIT ?2"
                        ))?;
                        let rows = stmt.query_map(
                            params![now, limit.min(i64::MAX as usize) as i64],
                            |r| {
                                Ok((
                                    event_row(r)?,
                                    r.get::<_, Option<String>>(11)?,
                                    r.get::<_, Option<String>>(12)?,
                                ))
                            },
                        )?;
                        rows.collect::<rusqlite::Result<Vec<_>>>()?
                    };
                    let mut out = Vec::new();
                    for (event, url, secret) in claimed {
                        match (url, secret) {
                            (Some(url), Some(secret)) => {
                                tx.execute(
                                    "UPDATE events SET next_attempt_at = ?2 WHERE id = ?1",
                                    params![event.id, lease_until],
                                )?;
                                out.push(Delivery { event, url, secret });
                            }
                            // Its callback URL or secret went away: nothing to deliver.
                            _ => {
                                tx.execute(
                                    "UPDATE events SET next_attempt_at = NULL,
                                       last_error = 'no callback URL or secret any more'
                                     WHERE id = ?1",
                                    [&event.id],
                                )?;
                            }
                        }
                    }
                    tx.commit()?;
                    Ok(out)
                })
                .await?;
            Ok(found.unwrap_or_default())
        })
    }

    fn record_attempt(&self, id: &str, attempt: Attempt) -> StoreFuture<'_, ()> {
        let id = id.to_string();
        Box::pin(async move {
            self.run(false, move |c| {
                c.execute(
                    "UPDATE events SET attempts = attempts + 1, last_status = ?2, last_error = ?3,
                       delivered_at = CASE WHEN ?4 THEN ?5 ELSE delivered_at END,
                       next_attempt_at = ?6
                     WHERE id = ?1",
                    params![
                        id,
                        attempt.status,
                        attempt.error,
                        attempt.delivered,
                        attempt.at,
                        attempt.next_attempt_at
                    ],
                )
            })
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
            let found = self
                .run(false, move |c| {
                    let after: i64 = match since {
                        None => 0,
                        Some(id) => {
                            let seq: Option<i64> = c
                                .query_row(
                                    "SELECT seq FROM events WHERE id = ?1 AND owner_key = ?2",
                                    params![id, owner],
                                    |r| r.get(0),
                                )
                                .optional()?;
                            match seq {
                                Some(seq) => seq,
                                None => return Ok(None),
                            }
                        }
                    };
                    let mut stmt = c.prepare(&format!(
                        "SELECT {EVENT_COLUMNS} FROM events e
                         WHERE e.owner_key = ?1 AND e.seq > ?2 ORDER BY e.seq LIMIT ?3"
                    ))?;
                    let rows = stmt.query_map(
                        params![owner, after, limit.min(i64::MAX as usize) as i64],
                        event_row,
                    )?;
                    rows.collect::<rusqlite::Result<Vec<_>>>().map(Some)
                })
                .await?;
            Ok(found.unwrap_or(Some(Vec::new())))
        })
    }

    fn events_of_document(&self, id: &str) -> StoreFuture<'_, Vec<Event>> {
        let id = id.to_string();
        Box::pin(async move {
            let found = self
                .run(false, move |c| {
                    let mut stmt = c.prepare(&format!(
                        "SELECT {EVENT_COLUMNS} FROM events e WHERE e.document_id = ?1
                         ORDER BY e.seq"
                    ))?;
                    let rows = stmt.query_map([&id], event_row)?;
                    rows.collect::<rusqlite::Result<Vec<_>>>()
                })
                .await?;
            Ok(found.unwrap_or_default())
        })
    }

    fn redeliver(&self, id: &str, event: &str, now: Millis) -> StoreFuture<'_, bool> {
        let (id, event) = (id.to_string(), event.to_string());
        Box::pin(async move {
            let done = self
                .run(false, move |c| {
                    c.execute(
                        "UPDATE events SET next_attempt_at = ?3, deliver = 1
                         WHERE id = ?2 AND document_id = ?1 AND EXISTS (
                           SELECT 1 FROM documents d LEFT JOIN keys k ON k.id = d.owner_key
                           WHERE d.id = ?1
                             AND coalesce(d.callback_url, k.callback_url) IS NOT NULL)",
                        params![id, event, now],
                    )
                })
                .await?;
            Ok(done.unwrap_or(0) > 0)
        })
    }
}

fn key_info(r: &rusqlite::Row<'_>) -> rusqlite::Result<KeyInfo> {
    Ok(KeyInfo {
        id: r.get(0)?,
        name: r.get(1)?,
        created_at: r.get(2)?,
        revoked_at: r.get(3)?,
        webhook_secret: r.get(4)?,
        callback_url: r.get(5)?,
    })
}
