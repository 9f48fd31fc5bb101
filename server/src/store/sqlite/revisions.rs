//! The revision queries of the sqlite backend: replacing a document's text with a new revision,
//! and reading an earlier one back.

use super::*;

pub(super) fn revise<'a>(
    store: &'a SqliteStore,
    id: &str,
    markdown: String,
    hash: String,
    now: Millis,
    max_revisions: u64,
) -> StoreFuture<'a, Revised> {
    let id = id.to_string();
    Box::pin(async move {
        let done = store
            .run(false, move |c| {
                // One writer at a time: revisions racing on a document are numbered in turn.
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                type Row = (Option<Millis>, Millis, i64);
                let row: Option<Row> = tx
                    .query_row(
                        "SELECT gone_at, expires_at, revision FROM documents WHERE id = ?1",
                        [&id],
                        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                    )
                    .optional()?;
                let revision = match row {
                    None => return Ok(Revised::Unknown),
                    Some((Some(_), ..)) => return Ok(Revised::Gone),
                    Some((None, expires_at, _)) if expires_at <= now => {
                        return Ok(Revised::Expired { expires_at });
                    }
                    Some((_, _, revision)) if revision as u64 >= max_revisions => {
                        return Ok(Revised::Full);
                    }
                    Some((_, _, revision)) => revision,
                };
                tx.execute(
                    "INSERT INTO revisions (document_id, revision, markdown, hash, created_at)
                     SELECT id, revision, markdown, hash, coalesce(revised_at, created_at)
                     FROM documents WHERE id = ?1",
                    [&id],
                )?;
                tx.execute(
                    "UPDATE documents SET markdown = ?2, hash = ?3, revision = ?4, revised_at = ?5
                     WHERE id = ?1",
                    params![id, markdown, hash, revision + 1, now],
                )?;
                tx.commit()?;
                Ok(Revised::Done(revision as u64 + 1))
            })
            .await?;
        Ok(done.unwrap_or(Revised::Unknown))
    })
}

pub(super) fn revision<'a>(
    store: &'a SqliteStore,
    id: &str,
    revision: u64,
) -> StoreFuture<'a, Option<RevisionText>> {
    let id = id.to_string();
    let revision = revision.min(i64::MAX as u64) as i64;
    Box::pin(async move {
        let found = store
            .run(false, move |c| {
                c.query_row(
                    "SELECT markdown, hash FROM documents
                     WHERE id = ?1 AND revision = ?2 AND gone_at IS NULL AND markdown IS NOT NULL
                     UNION ALL
                     SELECT v.markdown, v.hash FROM revisions v JOIN documents d
                       ON d.id = v.document_id
                     WHERE v.document_id = ?1 AND v.revision = ?2 AND d.gone_at IS NULL",
                    params![id, revision],
                    |r| {
                        Ok(RevisionText {
                            markdown: r.get(0)?,
                            hash: r.get(1)?,
                        })
                    },
                )
                .optional()
            })
            .await?;
        Ok(found.flatten())
    })
}
