//! Events and webhooks (contract §6.2): a key's own record, its documents' events after a
//! cursor, and a document's deliveries, with a way to deliver one again.
//!
//! | route | what |
//! |---|---|
//! | `GET /v1/keys/self` | the key's name, its webhook secret and callback URL (key) |
//! | `GET /v1/events?since=EVENT_ID&limit=N` | the key's documents' events, oldest first (key) |
//! | `GET /v1/documents/{id}/deliveries` | the document's events and how their delivery went (owner) |
//! | `POST /v1/documents/{id}/deliveries/{event_id}/redeliver` | deliver that event again now (owner) |

use super::documents::{authorized, bearer};
use super::refusal::refused;
use super::response::{Resp, private_json, problem};
use crate::quote::truncate;
use crate::routing::RoutingError;
use crate::state::AppState;
use crate::store::{self, Event, KeyInfo};
use hyper::body::Incoming;
use hyper::{Request, StatusCode};
use serde_json::{Value, json};
use std::sync::Arc;

/// Events a page of `GET /v1/events` lists by default, and at most.
const PAGE_DEFAULT: usize = 100;
const PAGE_MAX: usize = 500;

/// The live key the request shows, or the refusal.
async fn key_of(state: &AppState, req: &Request<Incoming>) -> Result<KeyInfo, Resp> {
    let Some(routing) = &state.routing else {
        return Err(refused(RoutingError::StoreOff, false));
    };
    match bearer(req) {
        Some(presented) => routing
            .sender(presented)
            .await
            .map_err(|e| refused(e, false)),
        None => Err(refused(RoutingError::KeyRequired, false)),
    }
}

/// `GET /v1/keys/self`: `{ name, created_at, webhook_secret, callback_url }`.
pub async fn key_self(state: Arc<AppState>, req: Request<Incoming>, _: &str) -> Resp {
    let key = match key_of(&state, &req).await {
        Ok(k) => k,
        Err(r) => return r,
    };
    private_json(
        StatusCode::OK,
        &json!({
            "name": key.name,
            "created_at": store::rfc3339(key.created_at),
            "webhook_secret": key.webhook_secret,
            "callback_url": key.callback_url,
        }),
    )
}

/// An event as listed: `{ id, type, document_id, response_id?, created_at }`, and with
/// `delivery`, its delivery state.
fn event_json(e: &Event, delivery: bool) -> Value {
    let mut v = crate::webhooks::payload(e);
    if let Some(fields) = v.as_object_mut() {
        fields.insert("id".into(), json!(e.id));
        if delivery {
            let status = if !e.deliver {
                "none"
            } else if e.delivered_at.is_some() && e.next_attempt_at.is_none() {
                "delivered"
            } else if e.next_attempt_at.is_some() {
                "pending"
            } else {
                "failed"
            };
            fields.insert("status".into(), json!(status));
            fields.insert("attempts".into(), json!(e.attempts));
            fields.insert(
                "next_attempt_at".into(),
                json!(e.next_attempt_at.map(store::rfc3339)),
            );
            fields.insert(
                "delivered_at".into(),
                json!(e.delivered_at.map(store::rfc3339)),
            );
            fields.insert("last_status".into(), json!(e.last_status));
            fields.insert("last_error".into(), json!(e.last_error));
        }
    }
    v
}

/// `GET /v1/events?since=EVENT_ID&limit=N`: `{ events: [...], next }`, `next` being the id of
/// the last event listed (give it as `since` for the next page; `since` of the last page
/// when there was none).
pub async fn list(state: Arc<AppState>, req: Request<Incoming>, _: &str) -> Resp {
    let key = match key_of(&state, &req).await {
        Ok(k) => k,
        Err(r) => return r,
    };
    let Some(routing) = &state.routing else {
        return refused(RoutingError::StoreOff, false);
    };
    let pairs = match passback_engine::parse_urlencoded(req.uri().query().unwrap_or("")) {
        Ok(p) => p,
        Err(e) => return problem(StatusCode::BAD_REQUEST, format!("{e}.")),
    };
    let (mut since, mut limit) = (None, PAGE_DEFAULT);
    for (k, v) in pairs {
        match k.as_str() {
            "since" if !v.is_empty() => since = Some(v),
            "limit" => match v
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=PAGE_MAX).contains(n))
            {
                Some(n) => limit = n,
                None => {
                    return problem(
                        StatusCode::BAD_REQUEST,
                        format!(
                            "limit must be a whole number from 1 to {PAGE_MAX}, not \"{}\".",
                            truncate(&v)
                        ),
                    );
                }
            },
            _ => {}
        }
    }
    match routing
        .store
        .events_of_key(&key.id, since.clone(), limit)
        .await
    {
        Ok(Some(events)) => {
            let next = events.last().map(|e| e.id.clone()).or(since);
            let events: Vec<Value> = events.iter().map(|e| event_json(e, false)).collect();
            private_json(StatusCode::OK, &json!({ "events": events, "next": next }))
        }
        Ok(None) => problem(
            StatusCode::BAD_REQUEST,
            format!(
                "since must be the id of one of this key's events (the \"next\" of a page), not \"{}\"; it may have been purged with its document: list again without since.",
                truncate(since.as_deref().unwrap_or(""))
            ),
        ),
        Err(e) => refused(RoutingError::store(e), false),
    }
}

/// `GET /v1/documents/{id}/deliveries`: `{ callback, deliveries: [...] }`, oldest first.
pub async fn deliveries(state: Arc<AppState>, req: Request<Incoming>, id: &str) -> Resp {
    let Some(routing) = state.routing.clone() else {
        return refused(RoutingError::StoreOff, false);
    };
    let doc = match authorized(&routing, &req, id).await {
        Ok(d) => d,
        Err(r) => return r,
    };
    match routing.store.events_of_document(&doc.id).await {
        Ok(events) => {
            let list: Vec<Value> = events.iter().map(|e| event_json(e, true)).collect();
            private_json(StatusCode::OK, &json!({ "deliveries": list }))
        }
        Err(e) => refused(RoutingError::store(e), false),
    }
}

/// `POST /v1/documents/{id}/deliveries/{event_id}/redeliver`: 202 once the event is due again.
pub async fn redeliver(state: Arc<AppState>, req: Request<Incoming>, id: &str) -> Resp {
    let Some(routing) = state.routing.clone() else {
        return refused(RoutingError::StoreOff, false);
    };
    let doc = match authorized(&routing, &req, id).await {
        Ok(d) => d,
        Err(r) => return r,
    };
    // /v1/documents/{id}/deliveries/{event_id}/redeliver
    let event = req.uri().path().split('/').nth(5).unwrap_or("").to_string();
    match routing.store.redeliver(&doc.id, &event, store::now()).await {
        Ok(true) => {
            crate::webhooks::wake();
            private_json(
                StatusCode::ACCEPTED,
                &json!({ "id": event, "status": "pending" }),
            )
        }
        Ok(false) => problem(
            StatusCode::NOT_FOUND,
            format!(
                "This document has no event \"{}\" to deliver (or no callback_url to deliver it to); GET /v1/documents/{}/deliveries lists its events.",
                truncate(&event),
                doc.id
            ),
        ),
        Err(e) => refused(RoutingError::store(e), false),
    }
}
