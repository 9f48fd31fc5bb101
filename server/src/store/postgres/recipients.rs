//! The recipients of the postgres backend: found by their link's secret, their first view
//! recorded (they are kept with their document, in the statement that inserts it).

use super::*;

fn recipient_row(r: &Row) -> Recipient {
    Recipient {
        seq: r.get::<_, i64>(0) as u32,
        name: r.get(1),
        email: r.get(2),
        opened_at: r.get(3),
        answered_at: r.get(4),
    }
}

pub(super) fn recipients<'a>(
    store: &'a PostgresStore,
    id: &str,
) -> StoreFuture<'a, Vec<Recipient>> {
    let id = id.to_string();
    Box::pin(async move {
        let rows = store
            .query(
                "cannot read the recipients",
                "SELECT seq, name, email, opened_at, answered_at
                 FROM recipients WHERE document_id = $1 ORDER BY seq",
                &[&id],
            )
            .await?;
        Ok(rows.iter().map(recipient_row).collect())
    })
}

pub(super) fn recipient<'a>(
    store: &'a PostgresStore,
    id: &str,
    secret_hash: [u8; 32],
    opened: Option<Millis>,
) -> StoreFuture<'a, Option<Recipient>> {
    let id = id.to_string();
    Box::pin(async move {
        let hash = &secret_hash[..];
        let rows = match opened {
            // The first view's time is set once; the row is answered either way.
            Some(at) => {
                store
                    .query(
                        "cannot record a recipient's view",
                        "UPDATE recipients SET opened_at = coalesce(opened_at, $3)
                         WHERE document_id = $1 AND secret_hash = $2
                         RETURNING seq, name, email, opened_at, answered_at",
                        &[&id, &hash, &at],
                    )
                    .await?
            }
            None => {
                store
                    .query(
                        "cannot read a recipient",
                        "SELECT seq, name, email, opened_at, answered_at
                         FROM recipients WHERE document_id = $1 AND secret_hash = $2",
                        &[&id, &hash],
                    )
                    .await?
            }
        };
        Ok(rows.first().map(recipient_row))
    })
}
