//! The key queries of the sqlite backend: adding, listing and revoking keys, and the per-key
//! document listing and quota counts.

use super::*;

pub(super) fn add_key<'a>(store: &'a SqliteStore, key: NewKey) -> StoreFuture<'a, KeyAdded> {
    Box::pin(async move {
        let added = store
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

pub(super) fn keys<'a>(store: &'a SqliteStore) -> StoreFuture<'a, Vec<KeyInfo>> {
    Box::pin(async move {
        let keys = store
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

pub(super) fn revoke_key<'a>(
    store: &'a SqliteStore,
    name: &str,
    now: Millis,
) -> StoreFuture<'a, Lookup<()>> {
    let name = name.to_string();
    Box::pin(async move {
        let done = store
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

pub(super) fn set_webhook_secret<'a>(
    store: &'a SqliteStore,
    name: &str,
    secret: &str,
    previous_until: Millis,
) -> StoreFuture<'a, Lookup<()>> {
    let (name, secret) = (name.to_string(), secret.to_string());
    Box::pin(async move {
        let done = store
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
                            "UPDATE keys SET webhook_secret = ?2,
                                             previous_webhook_secret = webhook_secret,
                                             previous_secret_until = ?3
                             WHERE name = ?1",
                            params![name, secret, previous_until],
                        )?;
                        Lookup::Live(())
                    }
                })
            })
            .await?;
        Ok(done.unwrap_or(Lookup::Unknown))
    })
}

pub(super) fn key_by_hash<'a>(
    store: &'a SqliteStore,
    hash: [u8; 32],
) -> StoreFuture<'a, Option<KeyInfo>> {
    Box::pin(async move {
        let found = store
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

pub(super) fn list_documents<'a>(
    store: &'a SqliteStore,
    owner: &str,
    after: Option<Cursor>,
    limit: usize,
    now: Millis,
) -> StoreFuture<'a, Vec<DocumentSummary>> {
    let owner = owner.to_string();
    Box::pin(async move {
        let found = store
            .run(false, move |c| {
                // Past every document there is when no cursor is given.
                let (at, id) = after.map_or((i64::MAX, String::new()), |a| (a.created_at, a.id));
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

pub(super) fn routed_since<'a>(
    store: &'a SqliteStore,
    owner: &str,
    since: Millis,
) -> StoreFuture<'a, (u64, Option<Millis>)> {
    let owner = owner.to_string();
    Box::pin(async move {
        let found = store
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

pub(super) fn stored_bytes<'a>(store: &'a SqliteStore, owner: &str) -> StoreFuture<'a, u64> {
    let owner = owner.to_string();
    Box::pin(async move {
        let found = store
            .run(false, move |c| {
                c.query_row(
                    "SELECT
                       (SELECT coalesce(sum(length(CAST(markdown AS BLOB))), 0) FROM documents
                        WHERE owner_key = ?1 AND gone_at IS NULL)
                     + (SELECT coalesce(sum(length(CAST(v.markdown AS BLOB))), 0)
                        FROM revisions v JOIN documents d ON d.id = v.document_id
                        WHERE d.owner_key = ?1 AND d.gone_at IS NULL)
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
