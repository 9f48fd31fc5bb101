//! The document queries of the sqlite backend: keeping a document, reading it, closing and
//! opening it, counting its views, deleting it, and the sweep of expired ones.

use super::*;

fn token_hash(bytes: Vec<u8>) -> rusqlite::Result<[u8; 32]> {
    bytes.try_into().map_err(|_| {
        rusqlite::Error::FromSqlConversionFailure(
            1,
            rusqlite::types::Type::Blob,
            "a token hash is 32 bytes".into(),
        )
    })
}

/// The columns [`document_row`] reads, in its order.
const DOCUMENT_COLUMNS: &str = "token_hash, markdown, hash, created_at, expires_at, gone_at,
     response_count, closed_at, views, last_response_at, owner_key, verdict_choices, revision,
     sender";

/// The document in a row of [`DOCUMENT_COLUMNS`]: kept, or gone (deleted or purged).
fn document_row(
    id: &str,
    r: &rusqlite::Row<'_>,
    now: Millis,
) -> rusqlite::Result<Lookup<Document>> {
    let markdown: Option<String> = r.get(1)?;
    let gone_at: Option<Millis> = r.get(5)?;
    let (Some(markdown), None) = (markdown, gone_at) else {
        return Ok(Lookup::Gone);
    };
    let expires_at = r.get(4)?;
    let closed_at = r.get(7)?;
    Ok(Lookup::Live(Document {
        id: id.to_string(),
        token_hash: token_hash(r.get(0)?)?,
        markdown,
        hash: r.get(2)?,
        created_at: r.get(3)?,
        expires_at,
        responses: r.get::<_, i64>(6)? as u64,
        closed_at,
        views: r.get::<_, i64>(8)? as u64,
        last_response_at: r.get(9)?,
        status: Status::at(closed_at, expires_at, now),
        owner: r.get(10)?,
        verdict: match r.get::<_, Option<String>>(11)? {
            Some(text) => Some(serde_json::from_str(&text).map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(11, rusqlite::types::Type::Text, e.into())
            })?),
            None => None,
        },
        revision: r.get::<_, i64>(12)? as u64,
        sender: r.get(13)?,
    }))
}

/// Deletes a document's text and responses, leaving its tombstone gone since `at`.
fn bury(conn: &Connection, id: &str, at: Millis) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM responses WHERE document_id = ?1", [id])?;
    conn.execute("DELETE FROM recipients WHERE document_id = ?1", [id])?;
    conn.execute("DELETE FROM revisions WHERE document_id = ?1", [id])?;
    conn.execute(
        "UPDATE documents SET markdown = NULL, sender = NULL, gone_at = ?2 WHERE id = ?1",
        params![id, at],
    )?;
    Ok(())
}

pub(super) fn create<'a>(store: &'a SqliteStore, doc: NewDocument) -> StoreFuture<'a, ()> {
    Box::pin(async move {
        store
            .run(true, move |c| {
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let verdict = doc
                    .verdict
                    .as_ref()
                    .map(|v| json_text(&serde_json::json!(v)));
                tx.execute(
                    "INSERT INTO documents (id, token_hash, markdown, hash, created_at, expires_at,
                                            owner_key, callback_url, webhook_secret,
                                            verdict_choices, sender)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                    params![
                        doc.id,
                        &doc.token_hash[..],
                        doc.markdown,
                        doc.hash,
                        doc.created_at,
                        doc.expires_at,
                        doc.owner,
                        doc.callback_url,
                        doc.webhook_secret,
                        verdict,
                        doc.sender
                    ],
                )?;
                recipients::insert(&tx, &doc.id, &doc.recipients)?;
                tx.commit()
            })
            .await?;
        Ok(())
    })
}

pub(super) fn document<'a>(
    store: &'a SqliteStore,
    id: &str,
    now: Millis,
) -> StoreFuture<'a, Lookup<Document>> {
    let id = id.to_string();
    Box::pin(async move {
        let found = store
            .run(false, move |c| {
                c.query_row(
                    &format!("SELECT {DOCUMENT_COLUMNS} FROM documents WHERE id = ?1"),
                    [&id],
                    |r| document_row(&id, r, now),
                )
                .optional()
            })
            .await?;
        Ok(found.flatten().unwrap_or(Lookup::Unknown))
    })
}

pub(super) fn set_closed<'a>(
    store: &'a SqliteStore,
    id: &str,
    closed: bool,
    now: Millis,
) -> StoreFuture<'a, Lookup<DocumentSummary>> {
    let id = id.to_string();
    let key = id.clone();
    Box::pin(async move {
        let found = store
            .run(false, move |c| {
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                // An open document that this closes announces it.
                if closed {
                    let open: Option<i64> = tx
                        .query_row(
                            "SELECT 1 FROM documents WHERE id = ?1 AND gone_at IS NULL
                               AND expires_at > ?2 AND closed_at IS NULL",
                            params![id, now],
                            |r| r.get(0),
                        )
                        .optional()?;
                    if open.is_some() {
                        insert_event(&tx, DOCUMENT_CLOSED, &id, now, None)?;
                    }
                }
                // Closing keeps the first close's time; an expired document stays as it is.
                tx.execute(
                    if closed {
                        "UPDATE documents SET closed_at = coalesce(closed_at, ?2)
                         WHERE id = ?1 AND gone_at IS NULL AND expires_at > ?2"
                    } else {
                        "UPDATE documents SET closed_at = NULL
                         WHERE id = ?1 AND gone_at IS NULL AND expires_at > ?2"
                    },
                    params![id, now],
                )?;
                let found = tx
                    .query_row(
                        &format!("SELECT {DOCUMENT_COLUMNS} FROM documents WHERE id = ?1"),
                        [&id],
                        |r| document_row(&id, r, now),
                    )
                    .optional()?;
                tx.commit()?;
                Ok(match found {
                    None => Lookup::Unknown,
                    Some(Lookup::Live(doc)) => Lookup::Live(doc.summary()),
                    Some(Lookup::Gone) => Lookup::Gone,
                    Some(Lookup::Unknown) => Lookup::Unknown,
                })
            })
            .await?;
        let found = found.unwrap_or(Lookup::Unknown);
        // A closed document takes no more responses: its long-polls end now.
        if closed && matches!(found, Lookup::Live(_)) {
            store.waiters.bury(&key);
        }
        Ok(found)
    })
}

pub(super) fn count_view<'a>(store: &'a SqliteStore, id: &str) -> StoreFuture<'a, ()> {
    let id = id.to_string();
    Box::pin(async move {
        store
            .run(false, move |c| {
                c.execute(
                    "UPDATE documents SET views = views + 1 WHERE id = ?1 AND gone_at IS NULL",
                    [&id],
                )
            })
            .await?;
        Ok(())
    })
}

pub(super) fn delete<'a>(
    store: &'a SqliteStore,
    id: &str,
    now: Millis,
) -> StoreFuture<'a, Lookup<()>> {
    let id = id.to_string();
    Box::pin(async move {
        let key = id.clone();
        let done = store
            .run(false, move |c| {
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let row: Option<Option<Millis>> = tx
                    .query_row("SELECT gone_at FROM documents WHERE id = ?1", [&id], |r| {
                        r.get(0)
                    })
                    .optional()?;
                let outcome = match row {
                    None => Lookup::Unknown,
                    Some(Some(_)) => Lookup::Gone,
                    Some(None) => {
                        bury(&tx, &id, now)?;
                        Lookup::Live(())
                    }
                };
                tx.commit()?;
                if matches!(outcome, Lookup::Live(())) {
                    checkpoint(c);
                }
                Ok(outcome)
            })
            .await?;
        let done = done.unwrap_or(Lookup::Unknown);
        if done == Lookup::Live(()) {
            store.waiters.bury(&key);
        }
        Ok(done)
    })
}

pub(super) fn expire<'a>(
    store: &'a SqliteStore,
    now: Millis,
    purge_before: Millis,
    forget_before: Millis,
) -> StoreFuture<'a, u64> {
    Box::pin(async move {
        let expired = store
            .run(false, move |c| {
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                // Each document whose time ran out is announced once, before any purge.
                let newly: Vec<String> = {
                    let mut stmt = tx.prepare(
                        "SELECT id FROM documents WHERE gone_at IS NULL AND expires_at <= ?1
                           AND expiry_announced = 0",
                    )?;
                    let rows = stmt.query_map([now], |r| r.get(0))?;
                    rows.collect::<rusqlite::Result<_>>()?
                };
                for id in &newly {
                    insert_event(&tx, DOCUMENT_EXPIRED, id, now, None)?;
                    tx.execute(
                        "UPDATE documents SET expiry_announced = 1 WHERE id = ?1",
                        [id],
                    )?;
                }
                // Stopped taking responses at or before `purge_before`: expired then, or
                // closed then.
                const DUE: &str = "gone_at IS NULL AND (expires_at <= ?1 OR closed_at <= ?1)";
                for table in ["responses", "recipients", "revisions"] {
                    tx.execute(
                        &format!(
                            "DELETE FROM {table} WHERE document_id IN
                               (SELECT id FROM documents WHERE {DUE})"
                        ),
                        [purge_before],
                    )?;
                }
                let expired = tx.execute(
                    &format!(
                        "UPDATE documents SET markdown = NULL, sender = NULL, gone_at = ?2 WHERE {DUE}"
                    ),
                    params![purge_before, now],
                )?;
                tx.execute(
                    "DELETE FROM documents WHERE gone_at IS NOT NULL AND gone_at < ?1",
                    [forget_before],
                )?;
                tx.commit()?;
                // Every sweep, not only one that expired something: it also finishes a
                // delete's checkpoint that another process held up.
                checkpoint(c);
                Ok(expired as u64)
            })
            .await?;
        Ok(expired.unwrap_or(0))
    })
}
