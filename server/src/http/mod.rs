//! The HTTP API over hyper: [`handle`] answers one request by the route table.
//!
//! | module | what it holds |
//! |---|---|
//! | `response`, `request` | below everything here: responses (problem+json, security headers, private JSON, ETags, Server-Timing); reading a request (body limits, content type, the document, `Accept`, conditions, the client's address) |
//! | `refusal` | the routing core's refusals as problem+json (or a page for a reader's browser) |
//! | `render`, `answers`, `documents`, `events`, `review`, `playground`, `assets`, `meta`, `mcp` | one file per resource, each a handful of handlers |
//! | `routes` | the route table: pattern, methods, long-poll, handler |
//! | `cors` | CORS on the stateless routes for the origins `--cors-origin` names |
//!
//! This module itself is the dispatcher: it bounds a request's time, turns a panic into a 500
//! for that request only, answers 404 and 405, counts and logs.
//!
//! `documents`, `events`, `review` and `refusal` come with the `store` feature, `mcp` with `mcp`,
//! `playground` with `playground`: without them their routes are not in the table.

mod answers;
mod assets;
pub(crate) mod cors;
#[cfg(feature = "store")]
mod documents;
#[cfg(feature = "store")]
mod events;
#[cfg(feature = "mcp")]
mod mcp;
pub(crate) mod meta;
#[cfg(feature = "playground")]
mod playground;
#[cfg(feature = "store")]
mod refusal;
mod render;
pub(crate) mod request;
pub(crate) mod response;
#[cfg(feature = "store")]
pub mod review;
pub mod routes;

pub use meta::OPENAPI;

use crate::quote::truncate;
use crate::state::AppState;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Request, StatusCode};
use response::{Resp, problem};
use routes::Route;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

/// Answers one request: routes it, bounds its time, turns a panic into a 500 for this request
/// only, counts it, and logs one line (never the document's text).
pub async fn handle(state: Arc<AppState>, req: Request<Incoming>, peer: SocketAddr) -> Resp {
    let start = Instant::now();
    // The client's address, for the routes that limit by client (only routing does): the
    // peer's, or behind a trusted proxy the one it forwarded.
    #[cfg(feature = "store")]
    let req = {
        let mut req = req;
        let client = state
            .config
            .trusted_proxies
            .client(peer.ip(), req.headers());
        req.extensions_mut().insert(request::ClientAddr(client));
        req
    };
    let method = req.method().clone();
    let found = Route::of(req.uri().path());
    // CORS only where origins are configured, and only on the routes that take it.
    let cors = !state.config.cors_origins.is_empty() && cors::applies(found);
    let origin = cors
        .then(|| cors::allowed_origin(req.headers(), &state.config.cors_origins))
        .flatten();
    // A fixed label per route, so metrics and logs never carry user-chosen paths.
    let route = found.map_or("other", |r| r.pattern);
    let timeout = state.config.request_timeout;
    // A long-poll (or the MCP tool list_responses) may wait up to a minute before it has
    // anything to answer; only the routed documents' routes long-poll.
    #[cfg(feature = "store")]
    let timeout = if found.is_some_and(|r| r.long_poll) {
        timeout + crate::routing::MAX_WAIT
    } else {
        timeout
    };
    let task = tokio::spawn(dispatch(state.clone(), req, found));
    let abort = task.abort_handle();
    let response = match tokio::time::timeout(timeout, task).await {
        Ok(Ok(mut r)) => {
            response::allow_images(&mut r, &state.image_sources);
            r
        }
        Ok(Err(e)) if e.is_panic() => {
            tracing::error!(route, "handler panicked");
            problem(
                StatusCode::INTERNAL_SERVER_ERROR,
                "The server hit an internal error on this request; the service is still running. Please report it.",
            )
        }
        Ok(Err(_)) => problem(
            StatusCode::INTERNAL_SERVER_ERROR,
            "The request was cancelled.",
        ),
        Err(_) => {
            abort.abort();
            problem(
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "The request took longer than {} s and was stopped; send a smaller document.",
                    timeout.as_secs()
                ),
            )
        }
    };
    let mut response = response;
    if cors {
        cors::decorate(&mut response, origin);
    }
    let status = response.status().as_u16();
    let elapsed = start.elapsed();
    state.metrics.observe(route, status, elapsed);
    tracing::info!(%peer, %method, route, status, micros = elapsed.as_micros() as u64, "request");
    response
}

/// `route` is [`Route::of`] the request's path, found by `handle`.
async fn dispatch(
    state: Arc<AppState>,
    req: Request<Incoming>,
    route: Option<&'static Route>,
) -> Resp {
    let path = req.uri().path().to_string();
    if state.config.panic_route && path == "/__panic" {
        panic!("the test route panics on purpose");
    }
    // A body declared over the limit is refused on every route, before anything else is read:
    // here where no handler reads one (a POST's handler checks it against its own limit).
    let read_by_handler =
        req.method() == hyper::Method::POST && route.is_some_and(|r| r.serves(req.method()));
    if let Some(length) = (!read_by_handler)
        .then(|| req.headers())
        .and_then(|h| h.get(header::CONTENT_LENGTH))
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&n| n > state.config.max_body as u64)
    {
        return problem(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "The request body is {length} bytes, over the {}-byte limit; send a smaller one (the limit is set with --max-body).",
                state.config.max_body
            ),
        );
    }
    let Some(route) = route else {
        let see = if cfg!(feature = "playground") {
            "see GET / for the playground and GET /v1/openapi.yaml for the API"
        } else {
            "see GET /v1/openapi.yaml for the API"
        };
        return problem(
            StatusCode::NOT_FOUND,
            format!("There is nothing at {}; {see}.", truncate(&path)),
        );
    };
    if req.method() == hyper::Method::OPTIONS
        && !state.config.cors_origins.is_empty()
        && cors::applies(Some(route))
    {
        let allowed = cors::allowed_origin(req.headers(), &state.config.cors_origins).is_some();
        return cors::preflight(route, req.headers(), allowed);
    }
    if !route.serves(req.method()) {
        let mut r = problem(
            StatusCode::METHOD_NOT_ALLOWED,
            format!(
                "{} does not take {}; use {}.",
                truncate(&path),
                req.method(),
                route.methods
            ),
        );
        if let Ok(v) = HeaderValue::from_str(&route.allow()) {
            r.headers_mut().insert(header::ALLOW, v);
        }
        return r;
    }
    route.call(state, req, route.param(&path)).await
}
