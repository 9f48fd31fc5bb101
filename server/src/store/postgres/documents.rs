//! The document queries of the postgres backend: keeping a document, reading it, closing
//! and opening it, counting its views, deleting it, and the sweep of expired ones.

use super::*;

/// The columns [`document_row`] reads, in its order.
const DOCUMENT_COLUMNS: &str = "token_hash, markdown, hash, created_at, expires_at, gone_at,
     response_count, closed_at, views, last_response_at, owner_key, verdict_choices, revision,
     sender";

/// The document in a row of [`DOCUMENT_COLUMNS`]: kept, or gone (deleted or purged).
fn document_row(id: &str, r: &Row, now: Millis) -> Result<Lookup<Document>, StoreError> {
    let markdown: Option<String> = r.get(1);
    let gone_at: Option<Millis> = r.get(5);
    let (Some(markdown), None) = (markdown, gone_at) else {
        return Ok(Lookup::Gone);
    };
    let token_hash: &[u8] = r.get(0);
    let token_hash = token_hash
        .try_into()
        .map_err(|_| StoreError("a stored token hash is not 32 bytes".into()))?;
    let (expires_at, closed_at) = (r.get(4), r.get(7));
    Ok(Lookup::Live(Document {
        id: id.to_string(),
        token_hash,
        markdown,
        hash: r.get(2),
        created_at: r.get(3),
        expires_at,
        responses: r.get::<_, i64>(6) as u64,
        closed_at,
        views: r.get::<_, i64>(8) as u64,
        last_response_at: r.get(9),
        status: Status::at(closed_at, expires_at, now),
        owner: r.get(10),
        verdict: match r.get::<_, Option<&str>>(11) {
            Some(text) => Some(
                serde_json::from_str(text)
                    .map_err(|e| StoreError::new("stored verdict choices are not JSON", e))?,
            ),
            None => None,
        },
        revision: r.get::<_, i64>(12) as u64,
        sender: r.get(13),
    }))
}

pub(super) fn create<'a>(store: &'a PostgresStore, doc: NewDocument) -> StoreFuture<'a, ()> {
    Box::pin(async move {
        let verdict = doc
            .verdict
            .as_ref()
            .map(|v| serde_json::json!(v).to_string());
        let seqs: Vec<i64> = (1..=doc.recipients.len() as i64).collect();
        let hashes: Vec<&[u8]> = doc.recipients.iter().map(|r| &r.secret_hash[..]).collect();
        let names: Vec<&str> = doc.recipients.iter().map(|r| r.name.as_str()).collect();
        let emails: Vec<Option<&str>> = doc.recipients.iter().map(|r| r.email.as_deref()).collect();
        // One statement: the document and its recipients are kept together or not at all.
        store
            .query(
                "cannot keep the document",
                "WITH doc AS (
                    INSERT INTO documents (id, token_hash, markdown, hash, created_at, expires_at,
                                           owner_key, callback_url, webhook_secret,
                                           verdict_choices, sender)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $15)
                    RETURNING id
                 )
                 INSERT INTO recipients (document_id, seq, secret_hash, name, email)
                 SELECT doc.id, r.seq, r.secret_hash, r.name, r.email
                 FROM doc, unnest($11::bigint[], $12::bytea[], $13::text[], $14::text[])
                      AS r(seq, secret_hash, name, email)",
                &[
                    &doc.id,
                    &&doc.token_hash[..],
                    &doc.markdown,
                    &doc.hash,
                    &doc.created_at,
                    &doc.expires_at,
                    &doc.owner,
                    &doc.callback_url,
                    &doc.webhook_secret,
                    &verdict,
                    &seqs,
                    &hashes,
                    &names,
                    &emails,
                    &doc.sender,
                ],
            )
            .await?;
        Ok(())
    })
}

pub(super) fn document<'a>(
    store: &'a PostgresStore,
    id: &str,
    now: Millis,
) -> StoreFuture<'a, Lookup<Document>> {
    let id = id.to_string();
    Box::pin(async move {
        let rows = store
            .query(
                "cannot read a document",
                &format!("SELECT {DOCUMENT_COLUMNS} FROM documents WHERE id = $1"),
                &[&id],
            )
            .await?;
        match rows.first() {
            None => Ok(Lookup::Unknown),
            Some(r) => document_row(&id, r, now),
        }
    })
}

pub(super) fn set_closed<'a>(
    store: &'a PostgresStore,
    id: &str,
    closed: bool,
    now: Millis,
) -> StoreFuture<'a, Lookup<DocumentSummary>> {
    let id = id.to_string();
    Box::pin(async move {
        // Closing keeps the first close's time; an expired document stays as it is. The
        // row as it is after the change, or as it is when nothing changed. Closing an open
        // document announces it, in the same statement.
        let announce = if closed {
            format!(
                ", announced AS ({})",
                event_insert(
                    "(SELECT id, owner_key, callback_url FROM changed WHERE was IS NULL)",
                    DOCUMENT_CLOSED,
                    "NULL::bigint",
                    "$2"
                )
            )
        } else {
            String::new()
        };
        let sql = format!(
            "WITH before AS (
                SELECT id AS doc_id, closed_at AS was FROM documents WHERE id = $1 FOR UPDATE
             ),
             changed AS (
                UPDATE documents SET closed_at = {}
                FROM before
                WHERE id = doc_id AND gone_at IS NULL AND expires_at > $2
                RETURNING {DOCUMENT_COLUMNS}, id, callback_url, was
             ){announce}
             SELECT {DOCUMENT_COLUMNS} FROM changed
             UNION ALL
             SELECT {DOCUMENT_COLUMNS} FROM documents
             WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM changed)",
            if closed {
                "coalesce(closed_at, $2)"
            } else {
                "NULL"
            }
        );
        let rows = store
            .query("cannot change a document's status", &sql, &[&id, &now])
            .await?;
        let found = match rows.first() {
            None => Lookup::Unknown,
            Some(r) => match document_row(&id, r, now)? {
                Lookup::Live(doc) => Lookup::Live(doc.summary()),
                Lookup::Gone => Lookup::Gone,
                Lookup::Unknown => Lookup::Unknown,
            },
        };
        // A closed document takes no more responses: its long-polls end, here and (by the
        // notification deletes send too) on every replica.
        if closed && matches!(found, Lookup::Live(_)) {
            store.waiters.bury(&id);
            let ended = format!("{GONE_PREFIX}{id}");
            if let Err(e) = store
                .query(
                    "cannot announce the close",
                    "SELECT pg_notify($1, $2)",
                    &[&CHANNEL, &ended],
                )
                .await
            {
                tracing::warn!(error = %e, "the close was not announced to other replicas");
            }
        }
        Ok(found)
    })
}

pub(super) fn count_view<'a>(store: &'a PostgresStore, id: &str) -> StoreFuture<'a, ()> {
    let id = id.to_string();
    Box::pin(async move {
        store
            .query(
                "cannot count a view",
                "UPDATE documents SET views = views + 1 WHERE id = $1 AND gone_at IS NULL",
                &[&id],
            )
            .await?;
        Ok(())
    })
}

pub(super) fn delete<'a>(
    store: &'a PostgresStore,
    id: &str,
    now: Millis,
) -> StoreFuture<'a, Lookup<()>> {
    let id = id.to_string();
    Box::pin(async move {
        // First the tombstone: from then on no response can be added (adding one checks
        // `gone_at` under the same row lock). Then, in a statement that sees every response
        // committed before, the responses. The sweep removes any left by a crash between.
        let buried = store
            .query(
                "cannot delete the document",
                "UPDATE documents SET markdown = NULL, sender = NULL, gone_at = $2
                 WHERE id = $1 AND gone_at IS NULL
                 RETURNING id",
                &[&id, &now],
            )
            .await?;
        if buried.is_empty() {
            let rows = store
                .query(
                    "cannot read a document",
                    "SELECT 1 FROM documents WHERE id = $1",
                    &[&id],
                )
                .await?;
            return Ok(if rows.is_empty() {
                Lookup::Unknown
            } else {
                Lookup::Gone
            });
        }
        for (context, sql) in [
            (
                "cannot delete the responses",
                "DELETE FROM responses WHERE document_id = $1",
            ),
            (
                "cannot delete the recipients",
                "DELETE FROM recipients WHERE document_id = $1",
            ),
            (
                "cannot delete the revisions",
                "DELETE FROM revisions WHERE document_id = $1",
            ),
        ] {
            store.query(context, sql, &[&id]).await?;
        }
        // The long-polls on it end: here at once, on every replica when the notification
        // arrives. A lost notification costs only promptness: those waits end on their
        // own, and find the document gone.
        store.waiters.bury(&id);
        let gone = format!("{GONE_PREFIX}{id}");
        if let Err(e) = store
            .query(
                "cannot announce the deletion",
                "SELECT pg_notify($1, $2)",
                &[&CHANNEL, &gone],
            )
            .await
        {
            tracing::warn!(error = %e, "the deletion was not announced to other replicas");
        }
        Ok(Lookup::Live(()))
    })
}

pub(super) fn expire<'a>(
    store: &'a PostgresStore,
    now: Millis,
    purge_before: Millis,
    forget_before: Millis,
) -> StoreFuture<'a, u64> {
    Box::pin(async move {
        // Each document whose time ran out is announced once, before any purge.
        store
            .query(
                "cannot announce expired documents",
                &format!(
                    "WITH due AS (
                        UPDATE documents SET expiry_announced = true
                        WHERE gone_at IS NULL AND expires_at <= $1 AND NOT expiry_announced
                        RETURNING id, owner_key, callback_url
                     )
                     {}",
                    event_insert("due", DOCUMENT_EXPIRED, "NULL::bigint", "$1")
                ),
                &[&now],
            )
            .await?;
        // Stopped taking responses at or before `purge_before`: expired then, or closed
        // then.
        let expired = store
            .query(
                "cannot purge documents",
                "UPDATE documents SET markdown = NULL, sender = NULL, gone_at = $2
                 WHERE gone_at IS NULL AND (expires_at <= $1 OR closed_at <= $1)
                 RETURNING id",
                &[&purge_before, &now],
            )
            .await?
            .len();
        // Responses of every gone document: those just expired, and any a crash left
        // behind a deletion.
        store
            .query(
                "cannot delete the responses of gone documents",
                "DELETE FROM responses r USING documents d
                 WHERE r.document_id = d.id AND d.gone_at IS NOT NULL",
                &[],
            )
            .await?;
        store
            .query(
                "cannot delete the recipients of gone documents",
                "DELETE FROM recipients r USING documents d
                 WHERE r.document_id = d.id AND d.gone_at IS NOT NULL",
                &[],
            )
            .await?;
        store
            .query(
                "cannot delete the revisions of gone documents",
                "DELETE FROM revisions v USING documents d
                 WHERE v.document_id = d.id AND d.gone_at IS NOT NULL",
                &[],
            )
            .await?;
        store
            .query(
                "cannot forget old tombstones",
                "DELETE FROM documents WHERE gone_at IS NOT NULL AND gone_at < $1",
                &[&forget_before],
            )
            .await?;
        Ok(expired as u64)
    })
}
