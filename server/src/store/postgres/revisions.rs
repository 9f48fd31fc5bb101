//! The revision queries of the postgres backend: replacing a document's text with a new
//! revision, and reading an earlier one back.

use super::*;

pub(super) fn revise<'a>(
    store: &'a PostgresStore,
    id: &str,
    markdown: String,
    hash: String,
    now: Millis,
    max_revisions: u64,
) -> StoreFuture<'a, Revised> {
    let id = id.to_string();
    Box::pin(async move {
        let max = max_revisions.min(i64::MAX as u64) as i64;
        // One statement: the row lock `cur` takes serializes revisions of one document, and a
        // revision that waited for it reads the row as the one before left it, so numbers
        // follow one another and no revision is lost.
        let rows = store
            .query(
                "cannot revise the document",
                "WITH cur AS (
                    SELECT id AS doc_id, revision AS was, markdown AS old_markdown,
                           hash AS old_hash, coalesce(revised_at, created_at) AS made
                    FROM documents
                    WHERE id = $1 AND gone_at IS NULL AND expires_at > $4 AND revision < $5
                    FOR UPDATE
                 ),
                 kept AS (
                    INSERT INTO revisions (document_id, revision, markdown, hash, created_at)
                    SELECT doc_id, was, old_markdown, old_hash, made FROM cur
                 )
                 UPDATE documents SET markdown = $2, hash = $3, revision = was + 1,
                                      revised_at = $4
                 FROM cur WHERE id = doc_id
                 RETURNING revision",
                &[&id, &markdown, &hash, &now, &max],
            )
            .await?;
        if let Some(row) = rows.first() {
            return Ok(Revised::Done(row.get::<_, i64>(0) as u64));
        }
        let rows = store
            .query(
                "cannot read a document",
                "SELECT gone_at, expires_at FROM documents WHERE id = $1",
                &[&id],
            )
            .await?;
        Ok(match rows.first() {
            None => Revised::Unknown,
            Some(r) if r.get::<_, Option<Millis>>(0).is_some() => Revised::Gone,
            Some(r) if r.get::<_, Millis>(1) <= now => Revised::Expired {
                expires_at: r.get(1),
            },
            Some(_) => Revised::Full,
        })
    })
}

pub(super) fn revision<'a>(
    store: &'a PostgresStore,
    id: &str,
    revision: u64,
) -> StoreFuture<'a, Option<RevisionText>> {
    let id = id.to_string();
    let revision = revision.min(i64::MAX as u64) as i64;
    Box::pin(async move {
        let rows = store
            .query(
                "cannot read a revision",
                "SELECT markdown, hash FROM documents
                 WHERE id = $1 AND revision = $2 AND gone_at IS NULL AND markdown IS NOT NULL
                 UNION ALL
                 SELECT v.markdown, v.hash FROM revisions v JOIN documents d
                   ON d.id = v.document_id
                 WHERE v.document_id = $1 AND v.revision = $2 AND d.gone_at IS NULL",
                &[&id, &revision],
            )
            .await?;
        Ok(rows.first().map(|r| RevisionText {
            markdown: r.get(0),
            hash: r.get(1),
        }))
    })
}
