//! The `Idempotency-Key` queries of the sqlite backend (see `store::idempotency`).

use super::*;
use crate::store::idempotency::{Claim, KeyClaim};

pub(super) fn claim<'a>(store: &'a SqliteStore, claim: KeyClaim) -> StoreFuture<'a, Claim> {
    Box::pin(async move {
        let found = store
            .run(true, move |c| {
                // One write transaction: of two requests with the same key, the second sees
                // the first's row.
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                tx.execute(
                    "DELETE FROM idempotency_keys WHERE key_hash = ?1
                       AND (created_at < ?2 OR (status IS NULL AND created_at < ?3))",
                    params![claim.key_hash, claim.expired_before, claim.abandoned_before],
                )?;
                let claimed = tx.execute(
                    "INSERT INTO idempotency_keys (key_hash, request_hash, created_at)
                     VALUES (?1, ?2, ?3) ON CONFLICT (key_hash) DO NOTHING",
                    params![claim.key_hash, claim.request_hash, claim.now],
                )?;
                let found = if claimed == 1 {
                    Claim::Claimed
                } else {
                    tx.query_row(
                        "SELECT request_hash, status, response FROM idempotency_keys
                         WHERE key_hash = ?1",
                        [&claim.key_hash],
                        |r| {
                            let status: Option<i64> = r.get(1)?;
                            let response: Option<String> = r.get(2)?;
                            Ok(Claim::Seen {
                                request_hash: r.get(0)?,
                                answer: status.zip(response).map(|(s, b)| (s as u16, b)),
                            })
                        },
                    )?
                };
                tx.commit()?;
                Ok(found)
            })
            .await?;
        Ok(found.unwrap_or(Claim::Claimed))
    })
}

pub(super) fn finish<'a>(
    store: &'a SqliteStore,
    key_hash: &str,
    status: u16,
    sealed: String,
) -> StoreFuture<'a, ()> {
    let key_hash = key_hash.to_string();
    Box::pin(async move {
        store
            .run(true, move |c| {
                c.execute(
                    "UPDATE idempotency_keys SET status = ?2, response = ?3 WHERE key_hash = ?1",
                    params![key_hash, i64::from(status), sealed],
                )
            })
            .await?;
        Ok(())
    })
}

pub(super) fn release<'a>(store: &'a SqliteStore, key_hash: &str) -> StoreFuture<'a, ()> {
    let key_hash = key_hash.to_string();
    Box::pin(async move {
        store
            .run(false, move |c| {
                c.execute(
                    "DELETE FROM idempotency_keys WHERE key_hash = ?1 AND status IS NULL",
                    [key_hash],
                )
            })
            .await?;
        Ok(())
    })
}

pub(super) fn forget<'a>(store: &'a SqliteStore, before: Millis) -> StoreFuture<'a, u64> {
    Box::pin(async move {
        let n = store
            .run(false, move |c| {
                c.execute(
                    "DELETE FROM idempotency_keys WHERE created_at < ?1",
                    [before],
                )
            })
            .await?;
        Ok(n.unwrap_or(0) as u64)
    })
}
