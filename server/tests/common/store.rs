//! The store backends the tests run on: an SQLite file in a fresh temporary folder, and a fresh
//! schema in the PostgreSQL test database, each removed when dropped.
//!
//! PostgreSQL is found through `PASSBACK_TEST_POSTGRES` (default
//! `postgres://postgres@127.0.0.1:5432/test`); `scripts/test` starts one when none runs. Set it
//! to `off` to skip the PostgreSQL tests on a machine without one.

use super::launch::{Served, serve};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// `{prefix}_{pid}_{n}`: a name no other test, in this process or another, is using.
pub fn unique(prefix: &str) -> String {
    format!(
        "{prefix}_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    )
}

/// The test database's URL; `None`, saying so, when the tests are told to skip it.
pub fn postgres_url() -> Option<String> {
    let base = std::env::var("PASSBACK_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    if base == "off" {
        eprintln!("PASSBACK_TEST_POSTGRES=off: skipping a PostgreSQL test");
        return None;
    }
    Some(base)
}

/// `base` with `query` added to its query string.
pub fn with_query(base: &str, query: &str) -> String {
    let join = if base.contains('?') { '&' } else { '?' };
    format!("{base}{join}{query}")
}

/// A runtime for a test that is not async itself.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

/// Where a test's routed documents are kept.
pub enum Backend {
    Sqlite(PathBuf),
    Postgres { base: String, schema: String },
}

impl Backend {
    /// An SQLite file in a fresh temporary folder (the file itself not created).
    pub fn sqlite() -> Backend {
        let dir = std::env::temp_dir().join(unique("passback-store-test"));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        Backend::Sqlite(dir)
    }

    /// A fresh schema in the test database; `None` when the tests are told to skip it.
    pub fn postgres() -> Option<Backend> {
        let base = postgres_url()?;
        let schema = unique("passback_test");
        pg(&base, &format!("CREATE SCHEMA {schema}"));
        Some(Backend::Postgres { base, schema })
    }

    /// The SQLite file.
    pub fn file(&self) -> PathBuf {
        match self {
            Backend::Sqlite(dir) => dir.join("routed.db"),
            Backend::Postgres { .. } => unreachable!("not a file"),
        }
    }

    /// The `--store` value.
    pub fn spec(&self) -> String {
        match self {
            Backend::Sqlite(_) => format!("sqlite:{}", self.file().display()),
            Backend::Postgres { base, schema } => {
                with_query(base, &format!("options=-csearch_path%3D{schema}"))
            }
        }
    }

    /// The store, opened as `passback serve --store {spec}` opens it (not yet prepared).
    pub fn open(&self) -> std::sync::Arc<dyn passback_server::store::Store> {
        passback_server::store::StoreConfig::parse(&self.spec())
            .expect("a store spec")
            .open(None)
            .expect("a store")
    }

    /// `passback serve --store {spec} {extra}`.
    pub fn serve(&self, extra: &[&str]) -> Served {
        let spec = self.spec();
        let mut args = vec!["--store", spec.as_str()];
        args.extend_from_slice(extra);
        serve(&args)
    }

    /// Rows the database holds for document `id`: (documents, responses), read directly.
    pub fn rows(&self, id: &str) -> (i64, i64) {
        match self {
            Backend::Sqlite(_) => {
                let c = rusqlite::Connection::open(self.file()).expect("open the file");
                let count = |sql: &str| c.query_row(sql, [id], |r| r.get(0)).expect(sql);
                (
                    count("SELECT count(*) FROM documents WHERE id = ?1 AND markdown IS NOT NULL"),
                    count("SELECT count(*) FROM responses WHERE document_id = ?1"),
                )
            }
            Backend::Postgres { base, schema } => pg_query(
                base,
                &format!(
                    "SELECT (SELECT count(*) FROM {schema}.documents WHERE id = $1 AND markdown IS NOT NULL),
                            (SELECT count(*) FROM {schema}.responses WHERE document_id = $1)"
                ),
                id,
            ),
        }
    }
}

impl Backend {
    /// The rows of `table` (one with a `document_id` column) that belong to document `id`, and
    /// the text of their `markdown` column run together when `table` has one (else empty).
    pub fn rows_of(&self, table: &str, id: &str, markdown: bool) -> (i64, String) {
        let text = if markdown {
            "coalesce(group_concat(markdown, ' '), '')"
        } else {
            "''"
        };
        match self {
            Backend::Sqlite(_) => {
                let c = rusqlite::Connection::open(self.file()).expect("open the file");
                let sql = format!("SELECT count(*), {text} FROM {table} WHERE document_id = ?1");
                c.query_row(&sql, [id], |r| Ok((r.get(0)?, r.get(1)?)))
                    .unwrap_or_else(|e| panic!("{sql}: {e}"))
            }
            Backend::Postgres { base, schema } => on_own_runtime(async {
                let client = pg_client(base).await;
                let text = text.replace("group_concat(markdown, ' ')", "string_agg(markdown, ' ')");
                let sql = format!(
                    "SELECT count(*), {text}::text FROM {schema}.{table} WHERE document_id = $1"
                );
                let row = client
                    .query_one(&sql, &[&id])
                    .await
                    .unwrap_or_else(|e| panic!("{sql}: {e}"));
                (row.get(0), row.get(1))
            }),
        }
    }

    /// Runs `sql` (statements separated by `;`) on the database directly: on SQLite, the file
    /// (created if need be); on PostgreSQL, in the test's schema.
    pub fn execute(&self, sql: &str) {
        match self {
            Backend::Sqlite(_) => {
                let c = rusqlite::Connection::open(self.file()).expect("open the file");
                c.execute_batch(sql)
                    .unwrap_or_else(|e| panic!("{sql}: {e}"));
            }
            Backend::Postgres { base, schema } => {
                pg(base, &format!("SET search_path TO {schema};\n{sql}"));
            }
        }
    }
}

impl Backend {
    /// What the database holds for document `id`, read directly: its stored text, and every
    /// field of its responses run together.
    pub fn stored(&self, id: &str) -> (String, String) {
        match self {
            Backend::Sqlite(_) => {
                let c = rusqlite::Connection::open(self.file()).expect("open the file");
                let markdown = c
                    .query_row("SELECT markdown FROM documents WHERE id = ?1", [id], |r| {
                        r.get(0)
                    })
                    .expect("the document's row");
                let responses = c
                    .query_row(
                        "SELECT coalesce(group_concat(coalesce(reviewer, '') || component_inputs \
                         || annotations || export, ' '), '') FROM responses WHERE document_id = ?1",
                        [id],
                        |r| r.get(0),
                    )
                    .expect("the responses' rows");
                (markdown, responses)
            }
            Backend::Postgres { base, schema } => on_own_runtime(async {
                let client = pg_client(base).await;
                let sql = format!(
                    "SELECT (SELECT markdown FROM {schema}.documents WHERE id = $1),
                            (SELECT coalesce(string_agg(coalesce(reviewer, '') || component_inputs::text
                                || annotations::text || export, ' '), '')
                             FROM {schema}.responses WHERE document_id = $1)"
                );
                let row = client
                    .query_one(&sql, &[&id])
                    .await
                    .unwrap_or_else(|e| panic!("{sql}: {e}"));
                (row.get(0), row.get(1))
            }),
        }
    }

    /// The recipients the database holds for document `id`, read directly: how many, and their
    /// names and emails with the recipient and verdict fields of its responses and the
    /// document's sender name run together.
    pub fn recipients_stored(&self, id: &str) -> (i64, String) {
        const TEXT: &str = "(SELECT count(*) FROM recipients WHERE document_id = $1),
             coalesce((SELECT group_concat(name || coalesce(email, ''), ' ') FROM recipients
                       WHERE document_id = $1), '')
             || coalesce((SELECT group_concat(coalesce(recipient, '') || coalesce(verdict, ''), ' ')
                          FROM responses WHERE document_id = $1), '')
             || coalesce((SELECT sender FROM documents WHERE id = $1), '')";
        match self {
            Backend::Sqlite(_) => {
                let c = rusqlite::Connection::open(self.file()).expect("open the file");
                let sql = format!("SELECT {}", TEXT.replace("$1", "?1"));
                c.query_row(&sql, [id], |r| Ok((r.get(0)?, r.get(1)?)))
                    .unwrap_or_else(|e| panic!("{sql}: {e}"))
            }
            Backend::Postgres { base, schema } => on_own_runtime(async {
                let client = pg_client(base).await;
                let sql = format!(
                    "SET search_path TO {schema}; SELECT {}",
                    TEXT.replace("group_concat(", "string_agg(")
                );
                let (set, select) = sql.split_once("; ").expect("two statements");
                client.batch_execute(set).await.expect("the schema");
                let row = client
                    .query_one(select, &[&id])
                    .await
                    .unwrap_or_else(|e| panic!("{select}: {e}"));
                (row.get(0), row.get(1))
            }),
        }
    }

    /// A folder of the test's own, for files beside the store (a key file, say).
    pub fn scratch(&self) -> PathBuf {
        let dir = std::env::temp_dir().join(unique("passback-scratch"));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        dir
    }
}

impl Drop for Backend {
    fn drop(&mut self) {
        match self {
            Backend::Sqlite(dir) => {
                let _ = std::fs::remove_dir_all(dir);
            }
            Backend::Postgres { base, schema } => {
                pg(base, &format!("DROP SCHEMA IF EXISTS {schema} CASCADE"));
            }
        }
    }
}

/// Runs `work` on a thread of its own with a runtime of its own, so that it can be called from
/// a plain test and from inside an async one alike.
fn on_own_runtime<T: Send>(work: impl Future<Output = T> + Send) -> T {
    std::thread::scope(|s| {
        s.spawn(|| runtime().block_on(work))
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

async fn pg_client(base: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(base, tokio_postgres::NoTls)
        .await
        .unwrap_or_else(|e| {
            panic!(
                "cannot reach PostgreSQL at {base} ({e}): start it (scripts/test does), point \
                 PASSBACK_TEST_POSTGRES at one, or set PASSBACK_TEST_POSTGRES=off to skip"
            )
        });
    tokio::spawn(connection);
    client
}

fn pg(base: &str, sql: &str) {
    on_own_runtime(async {
        pg_client(base)
            .await
            .batch_execute(sql)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    });
}

fn pg_query(base: &str, sql: &str, id: &str) -> (i64, i64) {
    on_own_runtime(async {
        let row = pg_client(base)
            .await
            .query_one(sql, &[&id])
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        (row.get(0), row.get(1))
    })
}
