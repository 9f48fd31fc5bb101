//! The webhook outbox of the sqlite backend: the event rows, claiming them for delivery,
//! recording attempts and redelivering.

use super::*;

/// Inserts an event of `kind` for the document `?1` in the transaction making the change; it is
/// to be delivered when the document, or its key, has a callback URL. `?2` is the time, `?3`
/// the response id (or NULL).
pub(super) fn insert_event(
    tx: &Connection,
    kind: &str,
    id: &str,
    at: Millis,
    response: Option<i64>,
) -> rusqlite::Result<()> {
    insert_event_due(tx, kind, id, at, response, None).map(|_| ())
}

/// [`insert_event`], first due at `due` (when it is to be delivered at all) rather than at
/// once: the server that stores a response claims its event until then and delivers it
/// itself. Its id and when it is first due (`None`: never delivered).
pub(super) fn insert_event_due(
    tx: &Connection,
    kind: &str,
    id: &str,
    at: Millis,
    response: Option<i64>,
    due: Option<Millis>,
) -> rusqlite::Result<(String, Option<Millis>)> {
    tx.prepare_cached(
        "INSERT INTO events (document_id, owner_key, type, response_id, created_at, deliver,
                             next_attempt_at)
         SELECT d.id, d.owner_key, ?4, ?3, ?2,
                coalesce(d.callback_url, k.callback_url) IS NOT NULL,
                CASE WHEN coalesce(d.callback_url, k.callback_url) IS NOT NULL
                     THEN coalesce(?5, ?2) END
         FROM documents d LEFT JOIN keys k ON k.id = d.owner_key
         WHERE d.id = ?1
         RETURNING id, next_attempt_at",
    )?
    .query_row(params![id, at, response, kind, due], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })
}

/// Where the events of document `id` go at `now`: its callback URL and secret (its own, or its
/// key's), and the key's secret before its rotation while the grace lasts.
pub(super) fn destination(
    tx: &Connection,
    id: &str,
    now: Millis,
) -> rusqlite::Result<Option<Destination>> {
    let found: Option<(Option<String>, Option<String>, Option<String>)> = tx
        .prepare_cached(
            "SELECT coalesce(d.callback_url, k.callback_url),
                    coalesce(d.webhook_secret, k.webhook_secret),
                    CASE WHEN d.webhook_secret IS NULL AND k.previous_secret_until > ?2
                         THEN k.previous_webhook_secret END
             FROM documents d LEFT JOIN keys k ON k.id = d.owner_key
             WHERE d.id = ?1",
        )?
        .query_row(params![id, now], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    Ok(match found {
        Some((Some(url), Some(secret), previous_secret)) => Some(Destination {
            url,
            secret,
            previous_secret,
        }),
        _ => None,
    })
}

/// The columns [`event_row`] reads, in its order (of `events e`).
pub(super) const EVENT_COLUMNS: &str =
    "e.id, e.document_id, e.type, e.response_id, e.created_at, e.deliver,
     e.attempts, e.next_attempt_at, e.delivered_at, e.last_status, e.last_error";

pub(super) fn event_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Event> {
    Ok(Event {
        id: r.get(0)?,
        document_id: r.get(1)?,
        kind: r.get(2)?,
        response_id: r.get::<_, Option<i64>>(3)?.map(|n| n as u64),
        created_at: r.get(4)?,
        deliver: r.get(5)?,
        attempts: r.get::<_, i64>(6)? as u32,
        next_attempt_at: r.get(7)?,
        delivered_at: r.get(8)?,
        last_status: r.get::<_, Option<i64>>(9)?.map(|n| n as u16),
        last_error: r.get(10)?,
    })
}

pub(super) fn claim_events<'a>(
    store: &'a SqliteStore,
    now: Millis,
    lease_until: Millis,
    limit: usize,
) -> StoreFuture<'a, Vec<Delivery>> {
    Box::pin(async move {
        let found = store
            .run(false, move |c| {
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let claimed = {
                    // Cached: the worker claims after every stored response.
                    let mut stmt = tx.prepare_cached(&format!(
                        "SELECT {EVENT_COLUMNS}, coalesce(d.callback_url, k.callback_url),
                                coalesce(d.webhook_secret, k.webhook_secret),
                                CASE WHEN d.webhook_secret IS NULL
                                      AND k.previous_secret_until > ?1
                                     THEN k.previous_webhook_secret END
                         FROM events e JOIN documents d ON d.id = e.document_id
                         LEFT JOIN keys k ON k.id = d.owner_key
                         WHERE e.next_attempt_at IS NOT NULL AND e.next_attempt_at <= ?1
                         ORDER BY e.next_attempt_at, e.seq LIMIT ?2"
                    ))?;
                    let rows =
                        stmt.query_map(params![now, limit.min(i64::MAX as usize) as i64], |r| {
                            Ok((
                                event_row(r)?,
                                r.get::<_, Option<String>>(11)?,
                                r.get::<_, Option<String>>(12)?,
                                r.get::<_, Option<String>>(13)?,
                            ))
                        })?;
                    rows.collect::<rusqlite::Result<Vec<_>>>()?
                };
                let mut out = Vec::new();
                for (event, url, secret, previous_secret) in claimed {
                    match (url, secret) {
                        (Some(url), Some(secret)) => {
                            tx.prepare_cached(
                                "UPDATE events SET next_attempt_at = ?2 WHERE id = ?1",
                            )?
                            .execute(params![event.id, lease_until])?;
                            out.push(Delivery {
                                event,
                                to: Destination {
                                    url,
                                    secret,
                                    previous_secret,
                                },
                            });
                        }
                        // Its callback URL or secret went away: nothing to deliver.
                        _ => {
                            tx.execute(
                                "UPDATE events SET next_attempt_at = NULL,
                                   last_error = 'no callback URL or secret any more'
                                 WHERE id = ?1",
                                [&event.id],
                            )?;
                        }
                    }
                }
                tx.commit()?;
                Ok(out)
            })
            .await?;
        Ok(found.unwrap_or_default())
    })
}

pub(super) fn record_attempts<'a>(
    store: &'a SqliteStore,
    attempts: Vec<(String, Attempt)>,
) -> StoreFuture<'a, ()> {
    Box::pin(async move {
        if attempts.is_empty() {
            return Ok(());
        }
        store
            .run(false, move |c| {
                // One transaction: one commit for the attempts that ended together.
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                {
                    let mut update = tx.prepare_cached(
                        "UPDATE events SET attempts = attempts + 1, last_status = ?2,
                           last_error = ?3,
                           delivered_at = CASE WHEN ?4 THEN ?5 ELSE delivered_at END,
                           next_attempt_at = ?6
                         WHERE id = ?1",
                    )?;
                    for (id, attempt) in &attempts {
                        update.execute(params![
                            id,
                            attempt.status,
                            attempt.error,
                            attempt.delivered,
                            attempt.at,
                            attempt.next_attempt_at
                        ])?;
                    }
                }
                tx.commit()
            })
            .await?;
        Ok(())
    })
}

pub(super) fn events_of_key<'a>(
    store: &'a SqliteStore,
    owner: &str,
    since: Option<String>,
    limit: usize,
) -> StoreFuture<'a, Option<Vec<Event>>> {
    let owner = owner.to_string();
    Box::pin(async move {
        let found = store
            .run(false, move |c| {
                let after: i64 = match since {
                    None => 0,
                    Some(id) => {
                        let seq: Option<i64> = c
                            .query_row(
                                "SELECT seq FROM events WHERE id = ?1 AND owner_key = ?2",
                                params![id, owner],
                                |r| r.get(0),
                            )
                            .optional()?;
                        match seq {
                            Some(seq) => seq,
                            None => return Ok(None),
                        }
                    }
                };
                let mut stmt = c.prepare(&format!(
                    "SELECT {EVENT_COLUMNS} FROM events e
                     WHERE e.owner_key = ?1 AND e.seq > ?2 ORDER BY e.seq LIMIT ?3"
                ))?;
                let rows = stmt.query_map(
                    params![owner, after, limit.min(i64::MAX as usize) as i64],
                    event_row,
                )?;
                rows.collect::<rusqlite::Result<Vec<_>>>().map(Some)
            })
            .await?;
        Ok(found.unwrap_or(Some(Vec::new())))
    })
}

pub(super) fn events_of_document<'a>(
    store: &'a SqliteStore,
    id: &str,
) -> StoreFuture<'a, Vec<Event>> {
    let id = id.to_string();
    Box::pin(async move {
        let found = store
            .run(false, move |c| {
                let mut stmt = c.prepare(&format!(
                    "SELECT {EVENT_COLUMNS} FROM events e WHERE e.document_id = ?1
                     ORDER BY e.seq"
                ))?;
                let rows = stmt.query_map([&id], event_row)?;
                rows.collect::<rusqlite::Result<Vec<_>>>()
            })
            .await?;
        Ok(found.unwrap_or_default())
    })
}

pub(super) fn redeliver<'a>(
    store: &'a SqliteStore,
    id: &str,
    event: &str,
    now: Millis,
) -> StoreFuture<'a, bool> {
    let (id, event) = (id.to_string(), event.to_string());
    Box::pin(async move {
        let done = store
            .run(false, move |c| {
                c.execute(
                    "UPDATE events SET next_attempt_at = ?3, deliver = 1
                     WHERE id = ?2 AND document_id = ?1 AND EXISTS (
                       SELECT 1 FROM documents d LEFT JOIN keys k ON k.id = d.owner_key
                       WHERE d.id = ?1
                         AND coalesce(d.callback_url, k.callback_url) IS NOT NULL)",
                    params![id, event, now],
                )
            })
            .await?;
        Ok(done.unwrap_or(0) > 0)
    })
}
