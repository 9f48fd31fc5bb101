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
use crate::store::{self, KeyInfo};
use hyper::body::Incoming;
use hyper::{Request, StatusCode};
use serde_json::{Value, json};
use std::sync::Arc;

use crate::routing::{EVENTS_DEFAULT as PAGE_DEFAULT, EVENTS_MAX as PAGE_MAX};

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
    match routing.events_after(&key, since, limit).await {
        Ok(Ok(page)) => private_json(StatusCode::OK, &page),
        Ok(Err(said)) => problem(StatusCode::BAD_REQUEST, said),
        Err(e) => refused(e, false),
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
            let list: Vec<Value> = events
                .iter()
                .map(|e| crate::routing::event_json(e, true))
                .collect();
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
