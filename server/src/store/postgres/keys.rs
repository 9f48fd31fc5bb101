//! The key queries of the postgres backend: adding, listing and revoking keys, and the per-key
//! document listing and quota counts.

use super::*;

pub(super) fn add_key<'a>(store: &'a PostgresStore, key: NewKey) -> StoreFuture<'a, KeyAdded> {
    Box::pin(async move {
        let rows = store
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

pub(super) fn keys<'a>(store: &'a PostgresStore) -> StoreFuture<'a, Vec<KeyInfo>> {
    Box::pin(async move {
        let rows = store
            .query(
                "cannot read the keys",
                "SELECT id, name, created_at, revoked_at, webhook_secret, callback_url FROM keys ORDER BY created_at, name",
                &[],
            )
            .await?;
        Ok(rows.iter().map(key_info).collect())
    })
}

pub(super) fn revoke_key<'a>(
    store: &'a PostgresStore,
    name: &str,
    now: Millis,
) -> StoreFuture<'a, Lookup<()>> {
    let name = name.to_string();
    Box::pin(async move {
        let revoked = store
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
        let rows = store
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

pub(super) fn set_webhook_secret<'a>(
    store: &'a PostgresStore,
    name: &str,
    secret: &str,
    previous_until: Millis,
) -> StoreFuture<'a, Lookup<()>> {
    let (name, secret) = (name.to_string(), secret.to_string());
    Box::pin(async move {
        let rows = store
            .query(
                "cannot change the key's webhook secret",
                "WITH k AS (SELECT name, revoked_at FROM keys WHERE name = $1 FOR UPDATE),
                 changed AS (
                    UPDATE keys SET webhook_secret = $2,
                                    previous_webhook_secret = keys.webhook_secret,
                                    previous_secret_until = $3
                    WHERE name = $1 AND revoked_at IS NULL RETURNING name
                 )
                 SELECT (SELECT count(*) FROM changed), k.revoked_at FROM k",
                &[&name, &secret, &previous_until],
            )
            .await?;
        Ok(match rows.first() {
            None => Lookup::Unknown,
            Some(r) if r.get::<_, i64>(0) > 0 => Lookup::Live(()),
            Some(_) => Lookup::Gone,
        })
    })
}

pub(super) fn key_by_hash<'a>(
    store: &'a PostgresStore,
    hash: [u8; 32],
) -> StoreFuture<'a, Option<KeyInfo>> {
    Box::pin(async move {
        let rows = store
            .query(
                "cannot read the keys",
                "SELECT id, name, created_at, revoked_at, webhook_secret, callback_url FROM keys WHERE key_hash = $1",
                &[&&hash[..]],
            )
            .await?;
        Ok(rows.first().map(key_info))
    })
}

pub(super) fn list_documents<'a>(
    store: &'a PostgresStore,
    owner: &str,
    after: Option<Cursor>,
    limit: usize,
    now: Millis,
) -> StoreFuture<'a, Vec<DocumentSummary>> {
    let owner = owner.to_string();
    Box::pin(async move {
        // Past every document there is when no cursor is given.
        let (at, id) = after.map_or((i64::MAX, String::new()), |a| (a.created_at, a.id));
        let limit = limit.min(i64::MAX as usize) as i64;
        let rows = store
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

pub(super) fn routed_since<'a>(
    store: &'a PostgresStore,
    owner: &str,
    since: Millis,
) -> StoreFuture<'a, (u64, Option<Millis>)> {
    let owner = owner.to_string();
    Box::pin(async move {
        let rows = store
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

pub(super) fn stored_bytes<'a>(store: &'a PostgresStore, owner: &str) -> StoreFuture<'a, u64> {
    let owner = owner.to_string();
    Box::pin(async move {
        let rows = store
            .query(
                "cannot count the key's stored bytes",
                "SELECT
                   (SELECT coalesce(sum(octet_length(markdown)), 0) FROM documents
                    WHERE owner_key = $1 AND gone_at IS NULL)::bigint
                 + (SELECT coalesce(sum(octet_length(v.markdown)), 0)
                    FROM revisions v JOIN documents d ON d.id = v.document_id
                    WHERE d.owner_key = $1 AND d.gone_at IS NULL)::bigint
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
