//! The schema of the sqlite backend: its migrations, in order, and applying them.

use super::*;

/// The schema, in order; applied when the file is opened.
pub(super) const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "routed_documents",
        sql: include_str!("../../../migrations/sqlite/0001_routed_documents.sql"),
    },
    Migration {
        version: 2,
        name: "lifecycle",
        sql: include_str!("../../../migrations/sqlite/0002_lifecycle.sql"),
    },
    Migration {
        version: 3,
        name: "keys",
        sql: include_str!("../../../migrations/sqlite/0003_keys.sql"),
    },
    Migration {
        version: 4,
        name: "events",
        sql: include_str!("../../../migrations/sqlite/0004_events.sql"),
    },
    Migration {
        version: 5,
        name: "submissions",
        sql: include_str!("../../../migrations/sqlite/0005_submissions.sql"),
    },
    Migration {
        version: 6,
        name: "revisions",
        sql: include_str!("../../../migrations/sqlite/0006_revisions.sql"),
    },
    Migration {
        version: 7,
        name: "recipients_verdict",
        sql: include_str!("../../../migrations/sqlite/0007_recipients_verdict.sql"),
    },
    Migration {
        version: 8,
        name: "idempotency",
        sql: include_str!("../../../migrations/sqlite/0008_idempotency.sql"),
    },
    Migration {
        version: 9,
        name: "secret_rotation",
        sql: include_str!("../../../migrations/sqlite/0009_secret_rotation.sql"),
    },
    Migration {
        version: 10,
        name: "sender",
        sql: include_str!("../../../migrations/sqlite/0010_sender.sql"),
    },
];

pub(super) fn migrate(conn: &mut Connection) -> Result<(), String> {
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
        // Each one not applied yet, in order: a migration numbered below the newest applied
        // one (added to this list after a newer one) is applied too.
        let applied: Vec<i64> = {
            let mut stmt = tx.prepare("SELECT version FROM passback_migrations")?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        for m in MIGRATIONS.iter().filter(|m| !applied.contains(&m.version)) {
            tx.execute_batch(m.sql)?;
            tx.execute(
                "INSERT INTO passback_migrations (version, name, applied_at) VALUES (?1, ?2, ?3)",
                params![m.version, m.name, crate::store::time::now()],
            )?;
        }
        tx.commit()?;
        Ok(Ok(()))
    };
    step(conn).map_err(|e| format!("cannot apply the schema: {e}"))?
}
