//! The schema of the postgres backend: its migrations, in order, and applying them.

use super::*;

pub(super) const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "routed_documents",
        sql: include_str!("../../../migrations/postgres/0001_routed_documents.sql"),
    },
    Migration {
        version: 2,
        name: "lifecycle",
        sql: include_str!("../../../migrations/postgres/0002_lifecycle.sql"),
    },
    Migration {
        version: 3,
        name: "keys",
        sql: include_str!("../../../migrations/postgres/0003_keys.sql"),
    },
    Migration {
        version: 4,
        name: "events",
        sql: include_str!("../../../migrations/postgres/0004_events.sql"),
    },
    Migration {
        version: 5,
        name: "submissions",
        sql: include_str!("../../../migrations/postgres/0005_submissions.sql"),
    },
    Migration {
        version: 6,
        name: "revisions",
        sql: include_str!("../../../migrations/postgres/0006_revisions.sql"),
    },
    Migration {
        version: 7,
        name: "recipients_verdict",
        sql: include_str!("../../../migrations/postgres/0007_recipients_verdict.sql"),
    },
    Migration {
        version: 8,
        name: "idempotency",
        sql: include_str!("../../../migrations/postgres/0008_idempotency.sql"),
    },
    Migration {
        version: 9,
        name: "secret_rotation",
        sql: include_str!("../../../migrations/postgres/0009_secret_rotation.sql"),
    },
    Migration {
        version: 10,
        name: "sender",
        sql: include_str!("../../../migrations/postgres/0010_sender.sql"),
    },
];

pub(super) async fn migrate(client: &mut Client) -> Result<(), StoreError> {
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
    // Each one not applied yet, in order: a migration numbered below the newest applied one
    // (added to this list after a newer one) is applied too.
    let applied: Vec<i64> = tx
        .query("SELECT version FROM passback_migrations", &[])
        .await
        .map_err(fail)?
        .iter()
        .map(|r| r.get(0))
        .collect();
    for m in MIGRATIONS.iter().filter(|m| !applied.contains(&m.version)) {
        tx.batch_execute(m.sql).await.map_err(fail)?;
        tx.execute(
            "INSERT INTO passback_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
            &[&m.version, &m.name, &crate::store::time::now()],
        )
        .await
        .map_err(fail)?;
    }
    tx.commit().await.map_err(fail)
}
