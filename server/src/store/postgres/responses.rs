//! The response queries of the postgres backend: storing a response, reading them back and
//! waiting for new ones.

use super::*;

pub(super) fn response(r: &Row) -> Result<StoredResponse, StoreError> {
    let json = |i: usize| {
        serde_json::from_str(r.get::<_, &str>(i))
            .map_err(|e| StoreError::new("a stored response is not JSON", e))
    };
    Ok(StoredResponse {
        response_id: r.get::<_, i64>(0) as u64,
        received_at: r.get(1),
        reviewer: r.get(2),
        component_inputs: json(3)?,
        annotations: json(4)?,
        export: r.get(5),
        submission: r.get(6),
        recipient: r.get(7),
        verdict: r.get(8),
        revision: r.get::<_, i64>(9) as u64,
    })
}

/// Keeps a connection that LISTENs for stored responses and wakes the waits on their
/// documents, opening it again whenever it is lost; ends when the store is gone.
pub(super) async fn listen(target: Target, waiters: Weak<Waiters>) {
    loop {
        if waiters.strong_count() == 0 {
            return;
        }
        match target.config.connect(target.tls.clone()).await {
            Ok((client, mut connection)) => {
                let forward = waiters.clone();
                let mut driver = tokio::spawn(async move {
                    while let Some(message) =
                        std::future::poll_fn(|cx| connection.poll_message(cx)).await
                    {
                        match (message, forward.upgrade()) {
                            (Ok(AsyncMessage::Notification(n)), Some(w)) => {
                                // Not the webhook worker: the server that stored the
                                // response delivers its event itself (claimed at birth).
                                w.announced(n.payload());
                            }
                            (Ok(_), Some(_)) => {}
                            (Err(e), _) => {
                                tracing::warn!(error = %e, "the PostgreSQL listening connection failed");
                                return;
                            }
                            (_, None) => return,
                        }
                    }
                });
                match client.batch_execute(&format!("LISTEN {CHANNEL}")).await {
                    Ok(()) => {
                        // Responses stored while no one listened were announced to no one.
                        if let Some(w) = waiters.upgrade() {
                            w.notify_all();
                        }
                        loop {
                            tokio::select! {
                                _ = &mut driver => break,
                                () = tokio::time::sleep(Duration::from_secs(5)) => {
                                    if waiters.strong_count() == 0 {
                                        driver.abort();
                                        return;
                                    }
                                }
                            }
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot LISTEN for stored responses");
                        driver.abort();
                    }
                }
                drop(client);
            }
            Err(e) => tracing::warn!(error = %e, "cannot connect to PostgreSQL to listen"),
        }
        tokio::time::sleep(RECONNECT_AFTER).await;
    }
}

/// Announces the stored responses (their document ids) on [`CHANNEL`] after their commits,
/// those stored meanwhile in one statement, until the store is gone. Not from the response's
/// own transaction: PostgreSQL serializes the commits of transactions that NOTIFY (a lock held
/// through the WAL flush), so a NOTIFY in each would let no two submissions share a flush. The
/// announcing transaction commits without waiting for the flush: a notification is not
/// durable anyway, and a lost one costs a waiter only the few seconds of its recheck.
pub(super) async fn announce_stored(
    pool: Weak<Pool>,
    mut stored: tokio::sync::mpsc::UnboundedReceiver<String>,
) {
    const SQL: &str = "SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, d)
                       FROM unnest($2::text[]) AS d";
    while let Some(first) = stored.recv().await {
        let mut ids = vec![first];
        while ids.len() < ANNOUNCE_AT_ONCE {
            match stored.try_recv() {
                Ok(more) => ids.push(more),
                Err(_) => break,
            }
        }
        ids.sort_unstable();
        ids.dedup();
        let Some(pool) = pool.upgrade() else { return };
        let sent = async {
            let conn = pool.client().await?;
            let statement = conn
                .statement(SQL)
                .await
                .map_err(|e| db_error("cannot announce stored responses", e))?;
            conn.client
                .query(&statement, &[&CHANNEL, &ids])
                .await
                .map_err(|e| db_error("cannot announce stored responses", e))
        };
        if let Err(e) = sent.await {
            tracing::warn!(error = %e, "stored responses were not announced to other replicas");
        }
    }
}

pub(super) fn add_response<'a>(
    store: &'a PostgresStore,
    id: &str,
    response: NewResponse,
    max_responses: u64,
) -> StoreFuture<'a, Added> {
    let id = id.to_string();
    Box::pin(async move {
        let max = max_responses.min(i64::MAX as u64) as i64;
        let inputs = serde_json::to_string(&response.component_inputs)
            .map_err(|e| StoreError::new("cannot write the answers", e))?;
        let annotations = serde_json::to_string(&response.annotations)
            .map_err(|e| StoreError::new("cannot write the annotations", e))?;
        if let Some(found) = store.submitted(&id, response.submission.as_deref()).await? {
            return Ok(Added::Stored(Box::new(found), None));
        }
        let recipient_seq = response.recipient.as_ref().map(|r| i64::from(r.0));
        let recipient_name = response.recipient.as_ref().map(|r| r.1.clone());
        let inserted = store
            .query(
                "cannot keep the response",
                &format!(
                    "WITH doc AS (
                    UPDATE documents SET response_count = response_count + 1,
                                         last_response_at = $2
                    WHERE id = $1 AND gone_at IS NULL AND expires_at > $2
                      AND closed_at IS NULL AND response_count < $3 AND revision = $12
                    RETURNING id, response_count, owner_key, callback_url, webhook_secret
                 ),
                 stored AS (
                    INSERT INTO responses (document_id, seq, received_at, reviewer,
                                           component_inputs, annotations, export,
                                           submission_hash, recipient_seq, recipient, verdict,
                                           revision)
                    SELECT id, response_count, $2, $4, $5::text::json, $6::text::json, $7, $8,
                           $9, $10, $11, $12
                    FROM doc
                    RETURNING seq
                 ),
                 answered AS (
                    UPDATE recipients SET answered_at = $2
                    WHERE document_id = (SELECT id FROM doc) AND seq = $9
                 ),
                 announced AS ({} RETURNING id, next_attempt_at)
                 SELECT s.seq, e.id, e.next_attempt_at, coalesce(d.callback_url, k.callback_url),
                        coalesce(d.webhook_secret, k.webhook_secret),
                        CASE WHEN d.webhook_secret IS NULL AND k.previous_secret_until > $2
                             THEN k.previous_webhook_secret END
                 FROM stored s, announced e, doc d LEFT JOIN keys k ON k.id = d.owner_key",
                    event_insert_due(
                        "doc",
                        RESPONSE_CREATED,
                        "d.response_count",
                        "$2",
                        "coalesce($13, $2)"
                    )
                ),
                &[
                    &id,
                    &response.received_at,
                    &max,
                    &response.reviewer,
                    &inputs,
                    &annotations,
                    &response.export,
                    &response.submission,
                    &recipient_seq,
                    &recipient_name,
                    &response.verdict,
                    &(response.revision.min(i64::MAX as u64) as i64),
                    &response.claim_until,
                ],
            )
            .await;
        let rows = match inserted {
            Ok(rows) => rows,
            // The same form posted twice at once: the other post stored it first.
            Err(e) => match store.submitted(&id, response.submission.as_deref()).await? {
                Some(found) => return Ok(Added::Stored(Box::new(found), None)),
                None => return Err(e),
            },
        };
        let Some(row) = rows.first() else {
            return store
                .refusal(&id, response.received_at, max, response.revision)
                .await;
        };
        store.waiters.notify(&id);
        store.announce(&id);
        let response_id = row.get::<_, i64>(0) as u64;
        // Claimed at birth for this server: the event, and where it goes.
        let delivery = match (response.claim_until, row.get(2), row.get(3), row.get(4)) {
            (Some(_), Some(due), Some(url), Some(secret)) => {
                Some(Box::new(Delivery::of_new_response(
                    row.get(1),
                    &id,
                    response_id,
                    response.received_at,
                    due,
                    Destination {
                        url,
                        secret,
                        previous_secret: row.get(5),
                    },
                )))
            }
            _ => None,
        };
        let stored = Box::new(StoredResponse {
            response_id,
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
}

pub(super) fn responses<'a>(
    store: &'a PostgresStore,
    id: &str,
    since: u64,
) -> StoreFuture<'a, Vec<StoredResponse>> {
    let id = id.to_string();
    Box::pin(async move {
        let since = since.min(i64::MAX as u64) as i64;
        let rows = store
            .query(
                "cannot read the responses",
                "SELECT seq, received_at, reviewer, component_inputs::text, annotations::text,
                        export, submission_hash, recipient, verdict, revision
                 FROM responses WHERE document_id = $1 AND seq > $2
                 ORDER BY seq LIMIT $3",
                &[&id, &since, &(PAGE_RESPONSES as i64)],
            )
            .await?;
        let mut out = Vec::with_capacity(rows.len());
        let mut bytes = 0;
        for r in &rows {
            let found = response(r)?;
            bytes += found.export.len() + r.get::<_, &str>(3).len();
            out.push(found);
            if bytes >= PAGE_BYTES {
                break;
            }
        }
        Ok(out)
    })
}

pub(super) fn wait_for_responses<'a>(
    store: &'a PostgresStore,
    id: &str,
    since: u64,
    timeout: Duration,
) -> StoreFuture<'a, Vec<StoredResponse>> {
    let id = id.to_string();
    Box::pin(async move {
        store
            .waiters
            .wait(&id, timeout, RECHECK_EVERY, || store.responses(&id, since))
            .await
    })
}
