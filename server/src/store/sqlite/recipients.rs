//! The recipients of the sqlite backend: kept with their document, found by their link's
//! secret, their first view and last answer recorded.

use super::*;
use crate::store::NewRecipient;

/// The columns [`recipient_row`] reads, in its order.
const RECIPIENT_COLUMNS: &str = "seq, name, email, opened_at, answered_at";

fn recipient_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Recipient> {
    Ok(Recipient {
        seq: r.get::<_, i64>(0)? as u32,
        name: r.get(1)?,
        email: r.get(2)?,
        opened_at: r.get(3)?,
        answered_at: r.get(4)?,
    })
}

/// Keeps the recipients of the new document `id`, numbered 1, 2, … in their order.
pub(super) fn insert(
    conn: &Connection,
    id: &str,
    recipients: &[NewRecipient],
) -> rusqlite::Result<()> {
    if recipients.is_empty() {
        return Ok(());
    }
    let mut stmt = conn.prepare(
        "INSERT INTO recipients (document_id, seq, secret_hash, name, email)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for (n, r) in recipients.iter().enumerate() {
        stmt.execute(params![
            id,
            n as i64 + 1,
            &r.secret_hash[..],
            r.name,
            r.email
        ])?;
    }
    Ok(())
}

pub(super) fn recipients<'a>(store: &'a SqliteStore, id: &str) -> StoreFuture<'a, Vec<Recipient>> {
    let id = id.to_string();
    Box::pin(async move {
        let found = store
            .run(false, move |c| {
                let mut stmt = c.prepare(&format!(
                    "SELECT {RECIPIENT_COLUMNS} FROM recipients WHERE document_id = ?1 ORDER BY seq"
                ))?;
                let rows = stmt.query_map([&id], recipient_row)?;
                rows.collect::<rusqlite::Result<Vec<_>>>()
            })
            .await?;
        Ok(found.unwrap_or_default())
    })
}

pub(super) fn recipient<'a>(
    store: &'a SqliteStore,
    id: &str,
    secret_hash: [u8; 32],
    opened: Option<Millis>,
) -> StoreFuture<'a, Option<Recipient>> {
    let id = id.to_string();
    Box::pin(async move {
        let found = store
            .run(false, move |c| {
                if let Some(at) = opened {
                    c.execute(
                        "UPDATE recipients SET opened_at = ?3
                         WHERE document_id = ?1 AND secret_hash = ?2 AND opened_at IS NULL",
                        params![id, &secret_hash[..], at],
                    )?;
                }
                c.query_row(
                    &format!(
                        "SELECT {RECIPIENT_COLUMNS} FROM recipients
                         WHERE document_id = ?1 AND secret_hash = ?2"
                    ),
                    params![id, &secret_hash[..]],
                    recipient_row,
                )
                .optional()
            })
            .await?;
        Ok(found.flatten())
    })
}
