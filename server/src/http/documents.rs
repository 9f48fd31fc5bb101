//! The sender's routes (contract §6): route a document, then read it, delete it, or list its
//! responses with the document's bearer token. The rules are the routing core's
//! ([`crate::routing`]); this file reads the requests and answers its refusals through
//! [`refused`].
//!
//! | route | what |
//! |---|---|
//! | `POST /v1/documents` | validate, keep, answer the id, link and token (for the sender's key, if any) |
//! | `GET /v1/documents` | the key's documents, newest first, a page at a time |
//! | `GET`, `PATCH`, `DELETE /v1/documents/{id}` | the document; close or reopen it; delete it |
//! | `PUT /v1/documents/{id}` | a new revision of it (same bodies as `POST`) |
//! | `GET /v1/documents/{id}/responses` | the responses, `since`, `wait` |

// Readers return a ready response as their error, as in `request`.
#![allow(clippy::result_large_err)]

use super::refusal::refused;
use super::request::{client_of, content_type_of, document_from, media, read_body};
use super::response::{Resp, private_json, problem, respond};
use crate::quote::truncate;
use crate::routing::idempotency::{Idempotent, Outcome, check_key};
use crate::routing::{
    Asks, MAX_WAIT, PAGE_DEFAULT, PAGE_MAX, RouteOptions, Routing, RoutingError, enter_long_poll,
    requested_status, take_route_token,
};
use crate::state::AppState;
use crate::store::{Cursor, Document, KeyInfo};
use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, StatusCode};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// `GET` or `POST /v1/documents`.
pub async fn collection(state: Arc<AppState>, req: Request<Incoming>, param: &str) -> Resp {
    if req.method() == Method::POST {
        create(state, req, param).await
    } else {
        list(state, req).await
    }
}

/// `POST /v1/documents`. With an `Idempotency-Key`, the body is read before the limits are
/// taken, so a repeat of a request that routed a document answers it again without counting
/// against them (see `routing::idempotency`).
async fn create(state: Arc<AppState>, req: Request<Incoming>, _: &str) -> Resp {
    let Some(routing) = state.routing.clone() else {
        return refused(RoutingError::StoreOff, false);
    };
    let key = match sender_of(&state, &routing, &req).await {
        Ok(key) => key,
        Err(e) => return refused(e, false),
    };
    let idempotency_key = match idempotency_key(&req) {
        Ok(k) => k,
        Err(r) => return r,
    };
    let client = client_of(&req);
    if idempotency_key.is_none()
        && let Err(e) = limits(&state, &routing, key.as_ref(), client).await
    {
        return refused(e, false);
    }
    let content_type = match content_type_of(&req) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let body = match read_body(req, state.config.max_body, state.config.body_timeout).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let Some(idempotency_key) = idempotency_key else {
        return match route(&state, &routing, key.as_ref(), &content_type, body).await {
            Ok(record) => created(&record),
            Err(r) => r,
        };
    };
    let scope = match (&key, client) {
        (Some(k), _) => format!("key:{}", k.id),
        (None, Some(ip)) => format!("client:{ip}"),
        (None, None) => "client:".to_string(),
    };
    let media_type = content_type.as_deref().unwrap_or("");
    let idempotent = Idempotent::new(&scope, &idempotency_key, media_type, &body);
    match idempotent.claim(&routing).await {
        Ok(Outcome::Replay { status, body }) => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::CREATED);
            let record = serde_json::from_str::<Value>(&body).unwrap_or_default();
            let mut r = created(&record);
            *r.status_mut() = status;
            r.headers_mut()
                .insert("idempotent-replayed", HeaderValue::from_static("true"));
            return r;
        }
        Ok(Outcome::Proceed) => {}
        Err(e) => return refused(e, false),
    }
    let routed = match limits(&state, &routing, key.as_ref(), client).await {
        Ok(()) => route(&state, &routing, key.as_ref(), &content_type, body).await,
        Err(e) => Err(refused(e, false)),
    };
    match routed {
        Ok(record) => {
            idempotent
                .finish(&routing, StatusCode::CREATED.as_u16(), &record.to_string())
                .await;
            created(&record)
        }
        Err(r) => {
            // A refused request keeps nothing: sent again with its key, it is tried again.
            idempotent.release(&routing).await;
            r
        }
    }
}

/// The per-client route limit and the key's quota.
async fn limits(
    state: &AppState,
    routing: &Routing,
    key: Option<&KeyInfo>,
    client: Option<std::net::IpAddr>,
) -> Result<(), RoutingError> {
    take_route_token(state.route_limiter.as_ref(), client)?;
    if let Some(key) = key {
        routing
            .within_quota(
                key,
                state.config.key_documents_per_hour,
                state.config.key_max_bytes,
            )
            .await?;
    }
    Ok(())
}

/// The fields a JSON body routing a document may have.
const ROUTE_FIELDS: [&str; 7] = [
    "markdown",
    "blocks",
    "expires_in",
    "callback_url",
    "recipients",
    "verdict",
    "sender",
];

/// Validates and keeps the document in `body`: its record (id, link, token…).
async fn route(
    state: &AppState,
    routing: &Routing,
    key: Option<&KeyInfo>,
    content_type: &Option<String>,
    body: Bytes,
) -> Result<Value, Resp> {
    let json = media(content_type) == "application/json";
    if json
        && let Ok(Value::Object(fields)) = serde_json::from_slice::<Value>(&body)
        && let Some(unknown) = fields.keys().find(|k| !ROUTE_FIELDS.contains(&k.as_str()))
    {
        // A misspelt `expires` or `recipient` would otherwise route the document without it.
        return Err(problem(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!(
                "\"{}\" is not a field of a routed document; the fields are {}.",
                truncate(unknown),
                ROUTE_FIELDS.join(", ")
            ),
        ));
    }
    let (expires_in, callback_url, asks) = if json {
        expires_in(&body, routing)
            .and_then(|e| {
                let c = callback_url(&body, state.config.webhook_allow_private)?;
                Ok((e, c, asks(&body)?))
            })
            .map_err(|e| refused(e, false))?
    } else {
        (None, None, Asks::default())
    };
    let src = document_from(content_type, body)?;
    let checked = routing
        .route_checked(
            &state.slots(),
            src,
            RouteOptions {
                expires_in,
                owner: key,
                callback_url,
                asks,
            },
        )
        .await
        .map_err(|e| refused(e, false))?;
    Ok(checked.record(&state.origin()))
}

/// 201 with the record, and where the document is.
fn created(record: &Value) -> Resp {
    let mut r = private_json(StatusCode::CREATED, record);
    if let Some(id) = record["id"].as_str()
        && let Ok(v) = HeaderValue::from_str(&format!("/v1/documents/{id}"))
    {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r
}

/// The request's `Idempotency-Key`, checked (one header, at most 255 visible ASCII characters);
/// `None` without one.
pub(super) fn idempotency_key(req: &Request<Incoming>) -> Result<Option<String>, Resp> {
    let mut given = req.headers().get_all("idempotency-key").iter();
    let Some(first) = given.next() else {
        return Ok(None);
    };
    if given.next().is_some() {
        return Err(problem(
            StatusCode::BAD_REQUEST,
            "Send one Idempotency-Key header, not several.",
        ));
    }
    check_key(first.as_bytes())
        .map(|k| Some(k.to_string()))
        .map_err(|why| problem(StatusCode::BAD_REQUEST, why))
}

/// The sender key the request shows, checked: `None` when it shows none and the server routes
/// without keys (on loopback, or with `--open-routing`). A key that is unknown or revoked is
/// refused even where none is needed, so a sender learns at once that theirs no longer works.
pub(super) async fn sender_of(
    state: &AppState,
    routing: &Routing,
    req: &Request<Incoming>,
) -> Result<Option<KeyInfo>, RoutingError> {
    match bearer(req) {
        Some(presented) => routing.sender(presented).await.map(Some),
        None if state.keys_required() => Err(RoutingError::KeyRequired),
        None => Ok(None),
    }
}

/// `GET /v1/documents?after=CURSOR&limit=N`: the key's documents, newest first.
async fn list(state: Arc<AppState>, req: Request<Incoming>) -> Resp {
    let Some(routing) = state.routing.clone() else {
        return refused(RoutingError::StoreOff, false);
    };
    let key = match bearer(&req) {
        Some(presented) => match routing.sender(presented).await {
            Ok(key) => key,
            Err(e) => return refused(e, false),
        },
        None => return refused(RoutingError::KeyRequired, false),
    };
    let (after, limit) = match page_query(req.uri().query().unwrap_or("")) {
        Ok(q) => q,
        Err(r) => return r,
    };
    match routing.documents_of(&key, after, limit).await {
        Ok(body) => private_json(StatusCode::OK, &body),
        Err(e) => refused(e, false),
    }
}

/// `after` (a cursor from a page's `next`) and `limit` (1 to [`PAGE_MAX`]).
fn page_query(query: &str) -> Result<(Option<Cursor>, usize), Resp> {
    let pairs = passback_engine::parse_urlencoded(query)
        .map_err(|e| problem(StatusCode::BAD_REQUEST, format!("{e}.")))?;
    let (mut after, mut limit) = (None, PAGE_DEFAULT);
    for (k, v) in pairs {
        match k.as_str() {
            "after" if !v.is_empty() => {
                after = Some(Cursor::decode(&v).ok_or_else(|| {
                    problem(
                        StatusCode::BAD_REQUEST,
                        format!(
                            "after must be the \"next\" cursor of a page of GET /v1/documents, as given, not \"{}\".",
                            truncate(&v)
                        ),
                    )
                })?);
            }
            "limit" => {
                limit = v
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=PAGE_MAX).contains(n))
                    .ok_or_else(|| {
                        problem(
                            StatusCode::BAD_REQUEST,
                            format!(
                                "limit must be a whole number from 1 to {PAGE_MAX}, not \"{}\".",
                                truncate(&v)
                            ),
                        )
                    })?;
            }
            _ => {}
        }
    }
    Ok((after, limit))
}

/// `expires_in` from a JSON body (see [`Routing::lifetime`]).
fn expires_in(body: &Bytes, routing: &Routing) -> Result<Option<Duration>, RoutingError> {
    // The body's other faults (not JSON, no document) are named when the document is read.
    let Ok(Value::Object(fields)) = serde_json::from_slice::<Value>(body) else {
        return Ok(None);
    };
    routing.lifetime(fields.get("expires_in"))
}

/// `recipients` and `verdict` from a JSON body, checked (see [`Asks::from_fields`]).
fn asks(body: &Bytes) -> Result<Asks, RoutingError> {
    let Ok(Value::Object(fields)) = serde_json::from_slice::<Value>(body) else {
        return Ok(Asks::default());
    };
    Asks::from_fields(&fields)
}

/// `callback_url` from a JSON body, checked (see [`crate::webhooks::check_callback_url`]).
fn callback_url(body: &Bytes, allow_private: bool) -> Result<Option<String>, RoutingError> {
    let Ok(Value::Object(fields)) = serde_json::from_slice::<Value>(body) else {
        return Ok(None);
    };
    match fields.get("callback_url") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(url)) => crate::webhooks::check_callback_url(url, allow_private)
            .map(Some)
            .map_err(RoutingError::Callback),
        Some(other) => Err(RoutingError::Callback(format!(
            "\"callback_url\" must be a string, an https:// URL, not {}.",
            truncate(&other.to_string())
        ))),
    }
}

/// `GET`, `PATCH` or `DELETE /v1/documents/{id}`.
pub async fn document(state: Arc<AppState>, req: Request<Incoming>, id: &str) -> Resp {
    let Some(routing) = state.routing.clone() else {
        return refused(RoutingError::StoreOff, false);
    };
    if req.method() == Method::PATCH {
        return patch(&state, &routing, req, id).await;
    }
    if req.method() == Method::PUT {
        return put(&state, &routing, req, id).await;
    }
    let doc = match authorized(&routing, &req, id).await {
        Ok(d) => d,
        Err(r) => return r,
    };
    if req.method() == Method::DELETE {
        return match routing.delete(&doc.id).await {
            Ok(()) => {
                let mut r = respond(StatusCode::NO_CONTENT, "text/plain", Bytes::new());
                r.headers_mut().remove(header::CONTENT_TYPE);
                r
            }
            Err(e) => refused(e, false),
        };
    }
    match routing
        .with_recipients(&doc, routing.document_json(&doc))
        .await
    {
        Ok(body) => private_json(StatusCode::OK, &body),
        Err(e) => refused(e, false),
    }
}

/// `PATCH /v1/documents/{id}` with `{ "status": "closed" | "open" }`: closes or reopens the
/// document; 200 with its summary.
async fn patch(state: &AppState, routing: &Routing, req: Request<Incoming>, id: &str) -> Resp {
    // The token is checked first, as on GET and DELETE: a stranger's body is not read at all.
    let doc = match authorized(routing, &req, id).await {
        Ok(d) => d,
        Err(r) => return r,
    };
    let content_type = match content_type_of(&req) {
        Ok(c) => c,
        Err(r) => return r,
    };
    if !matches!(
        media(&content_type),
        "application/json" | "application/merge-patch+json"
    ) {
        return problem(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Send the change as JSON (Content-Type: application/json), such as {\"status\": \"closed\"}.",
        );
    }
    let body = match read_body(req, state.config.max_body, state.config.body_timeout).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let closed = match status_change(&body) {
        Ok(closed) => closed,
        Err(r) => return r,
    };
    match routing.set_status(&doc.id, closed).await {
        Ok(summary) => private_json(StatusCode::OK, &routing.summary_json(&summary)),
        Err(e) => refused(e, false),
    }
}

/// `PUT /v1/documents/{id}`: a new revision, with the bodies `POST /v1/documents` takes (its
/// `expires_in`, `callback_url` and `sender` are the document's and stay as they were: a JSON body
/// holding them is refused). 200 with `{ id, revision, hash, diagnostics }`.
async fn put(state: &AppState, routing: &Routing, req: Request<Incoming>, id: &str) -> Resp {
    // The credential is checked first, as on the other owner routes: a stranger's body is not
    // read at all.
    let doc = match authorized(routing, &req, id).await {
        Ok(d) => d,
        Err(r) => return r,
    };
    // A revision is routed text: it counts against the same limits as routing.
    if let Err(e) = take_route_token(state.route_limiter.as_ref(), client_of(&req)) {
        return refused(e, false);
    }
    if let Some(owner) = &doc.owner
        && let Err(e) = routing
            .within_bytes(owner, state.config.key_max_bytes)
            .await
    {
        return refused(e, false);
    }
    let content_type = match content_type_of(&req) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let body = match read_body(req, state.config.max_body, state.config.body_timeout).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    if media(&content_type) == "application/json"
        && let Ok(Value::Object(fields)) = serde_json::from_slice::<Value>(&body)
        && let Some(field) = fields
            .keys()
            .find(|k| !["markdown", "blocks"].contains(&k.as_str()))
    {
        // A revision is new text only; anything else would be quietly ignored.
        let message = if ROUTE_FIELDS.contains(&field.as_str()) {
            format!(
                "\"{field}\" is set when a document is routed and a revision keeps it; send the new text alone (\"markdown\" or \"blocks\")."
            )
        } else {
            format!(
                "\"{}\" is not a field of a revision; send the new text alone (\"markdown\" or \"blocks\").",
                truncate(field)
            )
        };
        return problem(StatusCode::UNPROCESSABLE_ENTITY, message);
    }
    let src = match document_from(&content_type, body) {
        Ok(s) => s,
        Err(r) => return r,
    };
    match routing.revise_checked(&state.slots(), &doc, src).await {
        Ok(revision) => private_json(StatusCode::OK, &revision.record()),
        Err(e) => refused(e, false),
    }
}

/// `{ "status": "closed" | "open" }`: whether it asks to close. 400 for a body that is not
/// JSON, 422 naming the field and the values it takes for any other.
fn status_change(body: &[u8]) -> Result<bool, Resp> {
    let json: Value = serde_json::from_slice(body).map_err(|e| {
        problem(
            StatusCode::BAD_REQUEST,
            format!("The body is not valid JSON: {e}; send {{\"status\": \"closed\"}} or {{\"status\": \"open\"}}."),
        )
    })?;
    let unprocessable = |detail: String| problem(StatusCode::UNPROCESSABLE_ENTITY, detail);
    let Value::Object(fields) = &json else {
        return Err(unprocessable(
            "The body must be a JSON object such as {\"status\": \"closed\"}.".into(),
        ));
    };
    if let Some(other) = fields.keys().find(|k| k.as_str() != "status") {
        return Err(unprocessable(format!(
            "\"{}\" cannot be changed; only \"status\" can, to \"open\" or \"closed\".",
            truncate(other)
        )));
    }
    requested_status(fields.get("status")).map_err(unprocessable)
}

/// `GET /v1/documents/{id}/responses?since=N&wait=S`.
pub async fn responses(state: Arc<AppState>, req: Request<Incoming>, id: &str) -> Resp {
    let Some(routing) = state.routing.clone() else {
        return refused(RoutingError::StoreOff, false);
    };
    let (since, wait) = match list_query(req.uri().query().unwrap_or("")) {
        Ok(q) => q,
        Err(r) => return r,
    };
    let doc = match authorized(&routing, &req, id).await {
        Ok(d) => d,
        Err(r) => return r,
    };
    // A wait holds a place in the long-poll budget while it lasts.
    let _slot = if wait.is_zero() {
        None
    } else {
        match enter_long_poll(&state.long_polls, &doc, client_of(&req)) {
            Ok(slot) => Some(slot),
            Err(e) => return refused(e, false),
        }
    };
    match routing.responses_after(&doc, since, wait).await {
        Ok(body) => private_json(StatusCode::OK, &body),
        Err(e) => refused(e, false),
    }
}

/// The request's `Authorization: Bearer …` credential (a document's token or a sender key).
pub(super) fn bearer(req: &Request<Incoming>) -> Option<&str> {
    req.headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, token) = v.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        })
        .filter(|t| !t.is_empty())
}

/// The document `id` for the request's bearer token (or the sender key that routed it), or the
/// response refusing it.
pub(super) async fn authorized(
    routing: &Routing,
    req: &Request<Incoming>,
    id: &str,
) -> Result<Document, Resp> {
    let Some(token) = bearer(req) else {
        let mut r = problem(
            StatusCode::UNAUTHORIZED,
            "This needs the document's token: send Authorization: Bearer TOKEN, with the token POST /v1/documents answered (or the sender key that routed it).",
        );
        r.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"passback\""),
        );
        return Err(r);
    };
    routing
        .owned(id, token)
        .await
        .map_err(|e| refused(e, false))
}

/// `since` (a response id, default 0) and `wait` (seconds, at most 60, default 0).
fn list_query(query: &str) -> Result<(u64, Duration), Resp> {
    let pairs = passback_engine::parse_urlencoded(query)
        .map_err(|e| problem(StatusCode::BAD_REQUEST, format!("{e}.")))?;
    let (mut since, mut wait) = (0, Duration::ZERO);
    for (k, v) in pairs {
        match k.as_str() {
            "since" => {
                // Past every response id there is: nothing is newer.
                let digits = !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
                since = v.parse().ok().or(digits.then_some(u64::MAX)).ok_or_else(|| {
                    problem(
                        StatusCode::BAD_REQUEST,
                        format!(
                            "since must be a response_id (a whole number, 0 or more), not \"{}\".",
                            truncate(&v)
                        ),
                    )
                })?;
            }
            "wait" => {
                let max = MAX_WAIT.as_secs();
                wait = v
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && (0.0..=max as f64).contains(s))
                    .map(Duration::from_secs_f64)
                    .ok_or_else(|| {
                        problem(
                            StatusCode::BAD_REQUEST,
                            format!(
                                "wait must be a number of seconds from 0 to {max}, not \"{}\".",
                                truncate(&v)
                            ),
                        )
                    })?;
            }
            // A misspelt `wiat=30` would otherwise answer at once, and `sinec` everything.
            other => {
                return Err(problem(
                    StatusCode::BAD_REQUEST,
                    format!(
                        "The responses take no parameter \"{}\"; their parameters are since and wait.",
                        truncate(other)
                    ),
                ));
            }
        }
    }
    Ok((since, wait))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_queries_name_what_is_wrong() {
        assert_eq!(list_query("").ok(), Some((0, Duration::ZERO)));
        assert_eq!(
            list_query("since=3&wait=1.5").ok(),
            Some((3, Duration::from_millis(1500)))
        );
        assert_eq!(
            list_query("since=99999999999999999999999").ok(),
            Some((u64::MAX, Duration::ZERO))
        );
        for bad in [
            "since=-1", "since=x", "wait=61", "wait=-1", "wait=NaN", "wiat=30", "sinec=3",
        ] {
            assert!(list_query(bad).is_err(), "{bad}");
        }
    }
}
