//! The webhook outbox of the postgres backend: the event rows, claiming them for delivery,
//! recording attempts and redelivering.

use super::*;

/// The columns an event insert names, and the select that fills them from a row `d` of the
/// document (with `owner_key` and `callback_url`) joined to its key `k`: `{type}`, `{response}`
/// and `{at}` are SQL for the type, the response id and the time.
pub(super) fn event_insert(source: &str, kind: &str, response: &str, at: &str) -> String {
    event_insert_due(source, kind, response, at, at)
}

/// [`event_insert`], first due at `due` (when it is to be delivered at all), not at once: the
/// server that stores a response claims its event until then and delivers it itself.
pub(super) fn event_insert_due(
    source: &str,
    kind: &str,
    response: &str,
    at: &str,
    due: &str,
) -> String {
    format!(
        "INSERT INTO events (document_id, owner_key, type, response_id, created_at, deliver,
                             next_attempt_at)
         SELECT d.id, d.owner_key, '{kind}', {response}, {at},
                coalesce(d.callback_url, k.callback_url) IS NOT NULL,
                CASE WHEN coalesce(d.callback_url, k.callback_url) IS NOT NULL THEN {due} END
         FROM {source} d LEFT JOIN keys k ON k.id = d.owner_key"
    )
}

/// The columns [`event_row`] reads, in its order (of `events e`).
pub(super) const EVENT_COLUMNS: &str =
    "e.id, e.document_id, e.type, e.response_id, e.created_at, e.deliver,
     e.attempts, e.next_attempt_at, e.delivered_at, e.last_status, e.last_error";

pub(super) fn event_row(r: &Row) -> Event {
    Event {
        id: r.get(0),
        document_id: r.get(1),
        kind: r.get(2),
        response_id: r.get::<_, Option<i64>>(3).map(|n| n as u64),
        created_at: r.get(4),
        deliver: r.get(5),
        attempts: r.get::<_, i32>(6) as u32,
        next_attempt_at: r.get(7),
        delivered_at: r.get(8),
        last_status: r.get::<_, Option<i32>>(9).map(|n| n as u16),
        last_error: r.get(10),
    }
}

pub(super) fn claim_events<'a>(
    store: &'a PostgresStore,
    now: Millis,
    lease_until: Millis,
    limit: usize,
) -> StoreFuture<'a, Vec<Delivery>> {
    Box::pin(async move {
        let limit = limit.min(i64::MAX as usize) as i64;
        // One replica claims each event: the rows another replica is claiming are skipped,
        // and a claimed event is leased (next_attempt_at pushed to the lease's end).
        let rows = store
            .query(
                "cannot claim events to deliver",
                &format!(
                    "WITH due AS (
                        SELECT seq FROM events
                        WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= $1
                        ORDER BY next_attempt_at, seq LIMIT $3
                        FOR UPDATE SKIP LOCKED
                     ),
                     claimed AS (
                        UPDATE events SET next_attempt_at = $2
                        FROM due WHERE events.seq = due.seq
                        RETURNING events.*
                     )
                     SELECT {EVENT_COLUMNS}, coalesce(d.callback_url, k.callback_url),
                            coalesce(d.webhook_secret, k.webhook_secret),
                            CASE WHEN d.webhook_secret IS NULL AND k.previous_secret_until > $1
                                 THEN k.previous_webhook_secret END
                     FROM claimed e JOIN documents d ON d.id = e.document_id
                     LEFT JOIN keys k ON k.id = d.owner_key"
                ),
                &[&now, &lease_until, &limit],
            )
            .await?;
        let mut out = Vec::new();
        for r in &rows {
            let event = event_row(r);
            match (
                r.get::<_, Option<String>>(11),
                r.get::<_, Option<String>>(12),
            ) {
                (Some(url), Some(secret)) => out.push(Delivery {
                    event,
                    to: Destination {
                        url,
                        secret,
                        previous_secret: r.get(13),
                    },
                }),
                // Its callback URL or secret went away: nothing to deliver.
                _ => {
                    store
                        .query(
                            "cannot record a delivery",
                            "UPDATE events SET next_attempt_at = NULL,
                           last_error = 'no callback URL or secret any more'
                         WHERE id = $1",
                            &[&event.id],
                        )
                        .await?;
                }
            }
        }
        Ok(out)
    })
}

pub(super) fn record_attempts<'a>(
    store: &'a PostgresStore,
    attempts: Vec<(String, Attempt)>,
) -> StoreFuture<'a, ()> {
    Box::pin(async move {
        if attempts.is_empty() {
            return Ok(());
        }
        // One statement (one commit) for every attempt: the columns as arrays, side by side.
        let ids: Vec<&str> = attempts.iter().map(|(id, _)| id.as_str()).collect();
        let statuses: Vec<Option<i32>> = attempts
            .iter()
            .map(|(_, a)| a.status.map(i32::from))
            .collect();
        let errors: Vec<Option<&str>> = attempts.iter().map(|(_, a)| a.error.as_deref()).collect();
        let delivered: Vec<bool> = attempts.iter().map(|(_, a)| a.delivered).collect();
        let at: Vec<Millis> = attempts.iter().map(|(_, a)| a.at).collect();
        let next: Vec<Option<Millis>> = attempts.iter().map(|(_, a)| a.next_attempt_at).collect();
        store
            .query(
                "cannot record deliveries",
                "UPDATE events e SET attempts = e.attempts + 1, last_status = a.status,
                    last_error = a.error,
                    delivered_at = CASE WHEN a.delivered THEN a.at ELSE e.delivered_at END,
                    next_attempt_at = a.next
                 FROM unnest($1::text[], $2::int[], $3::text[], $4::bool[], $5::bigint[],
                             $6::bigint[]) AS a(id, status, error, delivered, at, next)
                 WHERE e.id = a.id",
                &[&ids, &statuses, &errors, &delivered, &at, &next],
            )
            .await?;
        Ok(())
    })
}

pub(super) fn events_of_key<'a>(
    store: &'a PostgresStore,
    owner: &str,
    since: Option<String>,
    limit: usize,
) -> StoreFuture<'a, Option<Vec<Event>>> {
    let owner = owner.to_string();
    Box::pin(async move {
        let (tx, seq): (i64, i64) = match since {
            None => (-1, 0),
            Some(id) => {
                let rows = store
                    .query(
                        "cannot read the events",
                        "SELECT tx, seq FROM events WHERE id = $1 AND owner_key = $2",
                        &[&id, &owner],
                    )
                    .await?;
                match rows.first() {
                    Some(r) => (r.get(0), r.get(1)),
                    None => return Ok(None),
                }
            }
        };
        let limit = limit.min(i64::MAX as usize) as i64;
        // Only events of transactions older than any still running: one that commits late
        // is never behind a cursor already handed out.
        let rows = store
            .query(
                "cannot read the events",
                &format!(
                    "SELECT {EVENT_COLUMNS} FROM events e
                     WHERE e.owner_key = $1 AND (e.tx, e.seq) > ($2, $3)
                       AND e.tx < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
                     ORDER BY e.tx, e.seq LIMIT $4"
                ),
                &[&owner, &tx, &seq, &limit],
            )
            .await?;
        Ok(Some(rows.iter().map(event_row).collect()))
    })
}

pub(super) fn events_of_document<'a>(
    store: &'a PostgresStore,
    id: &str,
) -> StoreFuture<'a, Vec<Event>> {
    let id = id.to_string();
    Box::pin(async move {
        let rows = store
            .query(
                "cannot read the events",
                &format!(
                    "SELECT {EVENT_COLUMNS} FROM events e WHERE e.document_id = $1
                     ORDER BY e.seq"
                ),
                &[&id],
            )
            .await?;
        Ok(rows.iter().map(event_row).collect())
    })
}

pub(super) fn redeliver<'a>(
    store: &'a PostgresStore,
    id: &str,
    event: &str,
    now: Millis,
) -> StoreFuture<'a, bool> {
    let (id, event) = (id.to_string(), event.to_string());
    Box::pin(async move {
        let rows = store
            .query(
                "cannot redeliver an event",
                "UPDATE events SET next_attempt_at = $3, deliver = true
                 WHERE id = $2 AND document_id = $1 AND EXISTS (
                   SELECT 1 FROM documents d LEFT JOIN keys k ON k.id = d.owner_key
                   WHERE d.id = $1
                     AND coalesce(d.callback_url, k.callback_url) IS NOT NULL)
                 RETURNING id",
                &[&id, &event, &now],
            )
            .await?;
        Ok(!rows.is_empty())
    })
}
