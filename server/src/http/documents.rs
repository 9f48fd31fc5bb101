//! The sender's routes (contract §6): route a document, then read it, delete it, or list its
//! responses with the document's bearer token. The rules are the routing core's
//! ([`crate::routing`]); this file reads the requests and answers its refusals through
//! [`refused`].
//!
//! | route | what |
//! |---|---|
//! | `POST /v1/documents` | validate, keep, answer the id, link and token |
//! | `GET`, `DELETE /v1/documents/{id}` | the document, or delete it |
//! | `GET /v1/documents/{id}/responses` | the responses, `since`, `wait` |

// Readers return a ready response as their error, as in `request`.
#![allow(clippy::result_large_err)]

use super::refusal::refused;
use super::request::{client_of, content_type_of, document_from, media, read_body};
use super::response::{Resp, private_json, problem, respond};
use crate::quote::truncate;
use crate::routing::{MAX_WAIT, Routing, RoutingError, enter_long_poll, take_route_token};
use crate::state::AppState;
use crate::store::{self, Document};
use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, StatusCode};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// `POST /v1/documents`.
pub async fn create(state: Arc<AppState>, req: Request<Incoming>, _: &str) -> Resp {
    let Some(routing) = state.routing.clone() else {
        return refused(RoutingError::StoreOff, false);
    };
    if let Err(e) = take_route_token(state.route_limiter.as_ref(), client_of(&req)) {
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
    let expires_in = if media(&content_type) == "application/json" {
        match expires_in(&body, &routing) {
            Ok(e) => e,
            Err(e) => return refused(e, false),
        }
    } else {
        None
    };
    let src = match document_from(&content_type, body) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let checked = match routing.route_checked(&state.slots(), src, expires_in).await {
        Ok(checked) => checked,
        Err(e) => return refused(e, false),
    };
    let mut r = private_json(StatusCode::CREATED, &checked.record(&state.origin()));
    if let Ok(v) = HeaderValue::from_str(&format!("/v1/documents/{}", checked.routed.id)) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r
}

/// `expires_in` from a JSON body (see [`Routing::lifetime`]).
fn expires_in(body: &Bytes, routing: &Routing) -> Result<Option<Duration>, RoutingError> {
    // The body's other faults (not JSON, no document) are named when the document is read.
    let Ok(Value::Object(fields)) = serde_json::from_slice::<Value>(body) else {
        return Ok(None);
    };
    routing.lifetime(fields.get("expires_in"))
}

/// `GET` or `DELETE /v1/documents/{id}`.
pub async fn document(state: Arc<AppState>, req: Request<Incoming>, id: &str) -> Resp {
    let Some(routing) = state.routing.clone() else {
        return refused(RoutingError::StoreOff, false);
    };
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
    private_json(
        StatusCode::OK,
        &json!({
            "id": doc.id,
            "markdown": doc.markdown,
            "hash": doc.hash,
            "created_at": store::rfc3339(doc.created_at),
            "expires_at": store::rfc3339(doc.expires_at),
            "responses": doc.responses,
        }),
    )
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
        match enter_long_poll(&state, &doc.id, client_of(&req)) {
            Ok(slot) => Some(slot),
            Err(e) => return refused(e, false),
        }
    };
    match routing.responses_after(&doc, since, wait).await {
        Ok(body) => private_json(StatusCode::OK, &body),
        Err(e) => refused(e, false),
    }
}

/// The document `id` for the request's bearer token, or the response refusing it.
async fn authorized(
    routing: &Routing,
    req: &Request<Incoming>,
    id: &str,
) -> Result<Document, Resp> {
    let token = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, token) = v.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        })
        .filter(|t| !t.is_empty());
    let Some(token) = token else {
        let mut r = problem(
            StatusCode::UNAUTHORIZED,
            "This needs the document's token: send Authorization: Bearer TOKEN, with the token POST /v1/documents answered.",
        );
        r.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"passback\""),
        );
        return Err(r);
    };
    routing
        .authorized(id, token)
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
            _ => {}
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
        for bad in ["since=-1", "since=x", "wait=61", "wait=-1", "wait=NaN"] {
            assert!(list_query(bad).is_err(), "{bad}");
        }
    }
}
