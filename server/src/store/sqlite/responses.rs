//! The response queries of the sqlite backend: storing a response, reading them back and
//! waiting for new ones.

use super::*;

pub(super) fn read_responses(
    conn: &Connection,
    id: &str,
    since: u64,
) -> rusqlite::Result<Vec<StoredResponse>> {
    let mut stmt = conn.prepare(
        "SELECT seq, received_at, reviewer, component_inputs, annotations, export, submission_hash,
                recipient, verdict, revision
         FROM responses WHERE document_id = ?1 AND seq > ?2 ORDER BY seq",
    )?;
    let mut rows = stmt.query(params![id, since.min(i64::MAX as u64) as i64])?;
    let mut out = Vec::new();
    let mut bytes = 0;
    while let Some(row) = rows.next()? {
        let inputs: String = row.get(3)?;
        let export: String = row.get(5)?;
        bytes += inputs.len() + export.len();
        out.push(StoredResponse {
            response_id: row.get::<_, i64>(0)? as u64,
            received_at: row.get(1)?,
            reviewer: row.get(2)?,
            component_inputs: json_value(&inputs)?,
            annotations: json_value(&row.get::<_, String>(4)?)?,
            export,
            submission: row.get(6)?,
            recipient: row.get(7)?,
            verdict: row.get(8)?,
            revision: row.get::<_, i64>(9)? as u64,
        });
        if out.len() >= PAGE_RESPONSES || bytes >= PAGE_BYTES {
            break;
        }
    }
    Ok(out)
}

pub(super) fn add_response<'a>(
    store: &'a SqliteStore,
    id: &str,
    response: NewResponse,
    max_responses: u64,
) -> StoreFuture<'a, Added> {
    let id = id.to_string();
    Box::pin(async move {
        let key = id.clone();
        let added = store
            .run(false, move |c| {
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                type Row = (Option<Millis>, Millis, i64, Option<Millis>, i64);
                // Cached: parsing these statements afresh cost more than running them.
                let row: Option<Row> = tx
                    .prepare_cached(
                        "SELECT gone_at, expires_at, response_count, closed_at, revision
                         FROM documents WHERE id = ?1",
                    )?
                    .query_row([&id], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                    })
                    .optional()?;
                let now = response.received_at;
                if let (Some((None, ..)), Some(submission)) = (&row, &response.submission) {
                    let seq: Option<i64> = tx
                        .prepare_cached(
                            "SELECT seq FROM responses
                             WHERE document_id = ?1 AND submission_hash = ?2",
                        )?
                        .query_row(params![id, submission], |r| r.get(0))
                        .optional()?;
                    if let Some(seq) = seq {
                        let again = read_responses(&tx, &id, seq as u64 - 1)?;
                        if let Some(first) = again.into_iter().next() {
                            return Ok(Added::Stored(Box::new(first), None));
                        }
                    }
                }
                let count = match row {
                    None => return Ok(Added::Unknown),
                    Some((Some(_), ..)) => return Ok(Added::Gone),
                    Some((None, expires_at, _, closed_at, _))
                        if Status::at(closed_at, expires_at, now) != Status::Open =>
                    {
                        return Ok(Added::NotOpen(Status::at(closed_at, expires_at, now)));
                    }
                    Some((.., revision)) if revision as u64 != response.revision => {
                        return Ok(Added::Stale {
                            revision: revision as u64,
                        });
                    }
                    Some((_, _, count, ..)) if count as u64 >= max_responses => {
                        return Ok(Added::Full);
                    }
                    Some((_, _, count, ..)) => count,
                };
                let seq = count + 1;
                tx.prepare_cached(
                    "UPDATE documents SET response_count = ?2, last_response_at = ?3
                     WHERE id = ?1",
                )?
                .execute(params![id, seq, now])?;
                tx.prepare_cached(
                    "INSERT INTO responses (document_id, seq, received_at, reviewer,
                                            component_inputs, annotations, export,
                                            submission_hash, recipient_seq, recipient,
                                            verdict, revision)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                )?
                .execute(params![
                        id,
                        seq,
                        response.received_at,
                        response.reviewer,
                        json_text(&response.component_inputs),
                        json_text(&response.annotations),
                        response.export,
                        response.submission,
                        response.recipient.as_ref().map(|r| r.0),
                        response.recipient.as_ref().map(|r| &r.1),
                        response.verdict,
                        response.revision as i64
                    ])?;
                if let Some((seq, _)) = &response.recipient {
                    tx.prepare_cached(
                        "UPDATE recipients SET answered_at = ?3 WHERE document_id = ?1 AND seq = ?2",
                    )?
                    .execute(params![id, seq, now])?;
                }
                let (event, due) = insert_event_due(
                    &tx,
                    RESPONSE_CREATED,
                    &id,
                    now,
                    Some(seq),
                    response.claim_until,
                )?;
                // Claimed at birth for this server: the event, and where it goes.
                let delivery = match (response.claim_until, due) {
                    (Some(_), Some(due)) => {
                        destination(&tx, &id, now)?.map(|to| {
                            Box::new(Delivery::of_new_response(
                                event,
                                &id,
                                seq as u64,
                                now,
                                due,
                                to,
                            ))
                        })
                    }
                    _ => None,
                };
                tx.commit()?;
                let stored = Box::new(StoredResponse {
                    response_id: seq as u64,
                    received_at: response.received_at,
                    reviewer: response.reviewer,
                    component_inputs: response.component_inputs,
                    annotations: response.annotations,
                    export: response.export,
                    submission: response.submission,
                    recipient: response.recipient.map(|r| r.1),
                    verdict: response.verdict,
                    revision: response.revision,
                });
                Ok(Added::Stored(stored, delivery))
            })
            .await?
            .unwrap_or(Added::Unknown);
        if matches!(added, Added::Stored(..)) {
            store.waiters.notify(&key);
        }
        Ok(added)
    })
}

pub(super) fn responses<'a>(
    store: &'a SqliteStore,
    id: &str,
    since: u64,
) -> StoreFuture<'a, Vec<StoredResponse>> {
    let id = id.to_string();
    Box::pin(async move {
        Ok(store
            .run(false, move |c| read_responses(c, &id, since))
            .await?
            .unwrap_or_default())
    })
}

pub(super) fn wait_for_responses<'a>(
    store: &'a SqliteStore,
    id: &str,
    since: u64,
    timeout: Duration,
) -> StoreFuture<'a, Vec<StoredResponse>> {
    let id = id.to_string();
    Box::pin(async move {
        store.watch();
        store
            .waiters
            .wait(&id, timeout, RECHECK_EVERY, || store.responses(&id, since))
            .await
    })
}
