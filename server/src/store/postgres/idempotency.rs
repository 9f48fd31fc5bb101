//! The `Idempotency-Key` queries of the postgres backend (see `store::idempotency`).

use super::*;
use crate::store::idempotency::{Claim, KeyClaim};

pub(super) fn claim<'a>(store: &'a PostgresStore, claim: KeyClaim) -> StoreFuture<'a, Claim> {
    Box::pin(async move {
        // A row released between the insert and the read is claimed on the next round.
        for _ in 0..3 {
            store
                .query(
                    "cannot forget an idempotency key",
                    "DELETE FROM idempotency_keys WHERE key_hash = $1
                       AND (created_at < $2 OR (status IS NULL AND created_at < $3))",
                    &[
                        &claim.key_hash,
                        &claim.expired_before,
                        &claim.abandoned_before,
                    ],
                )
                .await?;
            // The primary key decides between concurrent requests, on any replica.
            let claimed = store
                .query(
                    "cannot claim an idempotency key",
                    "INSERT INTO idempotency_keys (key_hash, request_hash, created_at)
                     VALUES ($1, $2, $3) ON CONFLICT (key_hash) DO NOTHING
                     RETURNING key_hash",
                    &[&claim.key_hash, &claim.request_hash, &claim.now],
                )
                .await?;
            if !claimed.is_empty() {
                return Ok(Claim::Claimed);
            }
            let rows = store
                .query(
                    "cannot read an idempotency key",
                    "SELECT request_hash, status, response FROM idempotency_keys
                     WHERE key_hash = $1",
                    &[&claim.key_hash],
                )
                .await?;
            if let Some(r) = rows.first() {
                let status: Option<i32> = r.get(1);
                let response: Option<String> = r.get(2);
                return Ok(Claim::Seen {
                    request_hash: r.get(0),
                    answer: status.zip(response).map(|(s, b)| (s as u16, b)),
                });
            }
        }
        Err(StoreError::new(
            "cannot claim an idempotency key",
            "it was claimed and released three times over",
        ))
    })
}

pub(super) fn finish<'a>(
    store: &'a PostgresStore,
    key_hash: &str,
    status: u16,
    sealed: String,
) -> StoreFuture<'a, ()> {
    let key_hash = key_hash.to_string();
    Box::pin(async move {
        store
            .query(
                "cannot keep an idempotent answer",
                "UPDATE idempotency_keys SET status = $2, response = $3 WHERE key_hash = $1",
                &[&key_hash, &i32::from(status), &sealed],
            )
            .await?;
        Ok(())
    })
}

pub(super) fn release<'a>(store: &'a PostgresStore, key_hash: &str) -> StoreFuture<'a, ()> {
    let key_hash = key_hash.to_string();
    Box::pin(async move {
        store
            .query(
                "cannot release an idempotency key",
                "DELETE FROM idempotency_keys WHERE key_hash = $1 AND status IS NULL",
                &[&key_hash],
            )
            .await?;
        Ok(())
    })
}

pub(super) fn forget<'a>(store: &'a PostgresStore, before: Millis) -> StoreFuture<'a, u64> {
    Box::pin(async move {
        let rows = store
            .query(
                "cannot forget idempotency keys",
                "DELETE FROM idempotency_keys WHERE created_at < $1 RETURNING 1",
                &[&before],
            )
            .await?;
        Ok(rows.len() as u64)
    })
}
