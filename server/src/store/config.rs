//! [`StoreConfig`]: which store `--store` names, and opening it.

use super::Store;
use super::pg_tls;
use super::postgres::PostgresStore;
use super::sealed::{SealKeys, SealedStore};
use super::sqlite::SqliteStore;
use std::path::PathBuf;
use std::sync::Arc;

/// Where routed documents are kept (`passback serve --store`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum StoreConfig {
    /// Nowhere: the routed routes answer 404 saying how to turn them on. The library's default;
    /// `passback serve` defaults to `sqlite:passback.db`.
    #[default]
    Off,
    /// An SQLite file, created with the first routed document.
    Sqlite(PathBuf),
    /// A PostgreSQL database, by its `postgres://` URL.
    Postgres(String),
}

impl StoreConfig {
    /// Reads `sqlite:PATH`, `postgres://…` (or `postgresql://…`) or `off`.
    pub fn parse(spec: &str) -> Result<StoreConfig, String> {
        if spec == "off" {
            return Ok(StoreConfig::Off);
        }
        if let Some(path) = spec.strip_prefix("sqlite:") {
            let path = path.strip_prefix("//").unwrap_or(path);
            if path.is_empty() {
                return Err("--store sqlite: needs a file path, such as sqlite:passback.db".into());
            }
            return Ok(StoreConfig::Sqlite(PathBuf::from(path)));
        }
        if spec.starts_with("postgres://") || spec.starts_with("postgresql://") {
            // The TLS settings too: a bad sslmode, or a CA file that cannot be read, is said now.
            pg_tls::target(spec).map_err(|e| format!("--store: {e}"))?;
            return Ok(StoreConfig::Postgres(spec.to_string()));
        }
        Err(format!(
            "--store must be sqlite:PATH, postgres://USER@HOST/DATABASE or off, not `{spec}`"
        ))
    }

    /// The store this names, not yet opened (`None` when off), sealing what it keeps with
    /// `keys` when given (`--store-key-file`). Nothing is touched until the first operation,
    /// or [`Store::prepare`].
    pub fn open(&self, keys: Option<Arc<SealKeys>>) -> Option<Arc<dyn Store>> {
        let backend: Arc<dyn Store> = match self {
            StoreConfig::Off => return None,
            StoreConfig::Sqlite(path) => Arc::new(SqliteStore::new(path.clone())),
            StoreConfig::Postgres(url) => Arc::new(PostgresStore::new(url.clone())),
        };
        Some(Arc::new(SealedStore::new(backend, keys)))
    }

    /// How the store is described in the log: never a password.
    pub fn describe(&self) -> String {
        match self {
            StoreConfig::Off => "off".into(),
            StoreConfig::Sqlite(path) => format!("sqlite:{}", path.display()),
            StoreConfig::Postgres(url) => match pg_tls::target(url) {
                Ok(t) => format!(
                    "postgres (database {}, TLS {})",
                    t.config.get_dbname().unwrap_or("of the user's name"),
                    match (t.config.get_ssl_mode(), t.verified) {
                        (tokio_postgres::config::SslMode::Disable, _) => "off",
                        (_, true) => "with the server's certificate checked",
                        (tokio_postgres::config::SslMode::Require, false) => "required",
                        _ => "when offered",
                    }
                ),
                Err(_) => "postgres".into(),
            },
        }
    }
}
