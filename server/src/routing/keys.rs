//! What routing does for a sender key: check it, open its documents, hold it to its quota, list its documents and events.

use super::Routing;
use super::error::RoutingError;
use super::events::event_json;
use crate::quote::truncate;
use crate::store::{self, Cursor, Document, KeyInfo, Millis};
use serde_json::{Value, json};
use std::time::Duration;

impl Routing {
    /// The live sender key `presented` (`Authorization: Bearer pbk_…`); an unknown or revoked
    /// key is refused.
    pub async fn sender(&self, presented: &str) -> Result<KeyInfo, RoutingError> {
        let found = if presented.starts_with(store::KEY_PREFIX) {
            self.store
                .key_by_hash(store::key_hash(presented))
                .await
                .map_err(RoutingError::store)?
        } else {
            None
        };
        match found {
            Some(key) if key.revoked_at.is_none() => Ok(key),
            Some(_) => Err(RoutingError::RevokedKey),
            None => Err(RoutingError::UnknownKey),
        }
    }

    /// The live document `id` for its sender, who shows either its token or the key that
    /// routed it. A key that did not route it is answered as if there were no such document,
    /// so a key learns nothing of other keys' documents.
    pub async fn owned(&self, id: &str, credential: &str) -> Result<Document, RoutingError> {
        let doc = self.live(id).await?;
        if doc.token_matches(credential) {
            return Ok(doc);
        }
        if !credential.starts_with(store::KEY_PREFIX) {
            return Err(RoutingError::WrongToken);
        }
        let key = self.sender(credential).await?;
        if doc.owner.as_deref() == Some(key.id.as_str()) {
            Ok(doc)
        } else {
            Err(RoutingError::Unknown { id: id.to_string() })
        }
    }

    /// Whether `key` may route one more document now: its kept documents and their responses
    /// under `max_bytes` as stored (`--key-max-bytes`), and at most `per_hour` in any hour
    /// (`--key-documents-per-hour`); `None` for no limit.
    pub async fn within_quota(
        &self,
        key: &KeyInfo,
        per_hour: Option<u64>,
        max_bytes: Option<u64>,
    ) -> Result<(), RoutingError> {
        self.within_bytes(&key.id, max_bytes).await?;
        let Some(limit) = per_hour else {
            return Ok(());
        };
        const HOUR: Millis = 3_600_000;
        let now = store::now();
        let (count, first) = self
            .store
            .routed_since(&key.id, now - HOUR + 1)
            .await
            .map_err(RoutingError::store)?;
        if count < limit {
            return Ok(());
        }
        // The oldest of the hour leaves the window an hour after it was routed.
        let wait_ms = first.map_or(HOUR, |f| (f + HOUR - now).clamp(1000, HOUR));
        Err(RoutingError::KeyQuota {
            limit,
            wait: Duration::from_millis(wait_ms as u64).max(Duration::from_secs(1)),
        })
    }

    /// Whether the documents of the key whose id is `owner` take less than `max_bytes` as
    /// stored (`--key-max-bytes`; `None` for no limit): what a key may route or revise.
    pub async fn within_bytes(
        &self,
        owner: &str,
        max_bytes: Option<u64>,
    ) -> Result<(), RoutingError> {
        let Some(limit) = max_bytes else {
            return Ok(());
        };
        let used = self
            .store
            .stored_bytes(owner)
            .await
            .map_err(RoutingError::store)?;
        if used >= limit {
            return Err(RoutingError::KeyFull {
                used,
                limit,
                // Room comes back only as documents are deleted or purged.
                wait: Duration::from_secs(3600),
            });
        }
        Ok(())
    }

    /// One page of `key`'s documents, newest first: `{ documents: [...], next }`, `next` being
    /// the cursor of the page after (null on the last page).
    pub async fn documents_of(
        &self,
        key: &KeyInfo,
        after: Option<Cursor>,
        limit: usize,
    ) -> Result<Value, RoutingError> {
        let mut found = self
            .store
            .list_documents(&key.id, after, limit + 1, store::now())
            .await
            .map_err(RoutingError::store)?;
        let more = found.len() > limit;
        found.truncate(limit);
        let next = match found.last() {
            Some(last) if more => Value::String(
                Cursor {
                    created_at: last.created_at,
                    id: last.id.clone(),
                }
                .encode(),
            ),
            _ => Value::Null,
        };
        let documents: Vec<Value> = found.iter().map(|d| self.summary_json(d)).collect();
        Ok(json!({ "documents": documents, "next": next }))
    }

    /// One page of the events of `key`'s documents after the event `since`, oldest first:
    /// `{ events: [...], next }`, `next` being the last event's id (or `since` on an empty
    /// page). The inner error says why `since` is not one of the key's events.
    pub async fn events_after(
        &self,
        key: &KeyInfo,
        since: Option<String>,
        limit: usize,
    ) -> Result<Result<Value, String>, RoutingError> {
        let found = self
            .store
            .events_of_key(&key.id, since.clone(), limit)
            .await
            .map_err(RoutingError::store)?;
        let Some(events) = found else {
            return Ok(Err(format!(
                "since must be the id of one of this key's events (the \"next\" of a page), not \"{}\"; it may have been purged with its document: list again without since.",
                truncate(since.as_deref().unwrap_or(""))
            )));
        };
        let next = events.last().map(|e| e.id.clone()).or(since);
        let events: Vec<Value> = events.iter().map(|e| event_json(e, false)).collect();
        Ok(Ok(json!({ "events": events, "next": next })))
    }
}
