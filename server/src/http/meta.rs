//! What the service says about itself: `GET /healthz`, `GET /metrics`, `GET /v1/schema.json`
//! and `GET /v1/openapi.yaml`.

use super::response::{Resp, problem, respond};
use crate::state::AppState;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Request, StatusCode};
use std::sync::Arc;

/// The OpenAPI description of this API.
pub const OPENAPI: &str = include_str!("../../openapi.yaml");

/// `GET /healthz`.
pub async fn healthz(_: Arc<AppState>, _: Request<Incoming>, _: &str) -> Resp {
    respond(StatusCode::OK, "text/plain; charset=utf-8", "ok\n")
}

/// `GET /metrics`, unless `--metrics-listen` serves the counters on that address only.
pub async fn metrics(state: Arc<AppState>, _: Request<Incoming>, _: &str) -> Resp {
    if state.config.metrics_listen.is_some() {
        return problem(
            StatusCode::NOT_FOUND,
            "The metrics are served on another address on this server.",
        );
    }
    metrics_text(&state)
}

/// The Prometheus text, on either address.
pub fn metrics_text(state: &AppState) -> Resp {
    respond(
        StatusCode::OK,
        "text/plain; version=0.0.4; charset=utf-8",
        state.metrics.render(state.engine.cache_stats()),
    )
}

/// `GET /v1/schema.json`: the components' JSON Schema.
pub async fn schema(_: Arc<AppState>, _: Request<Incoming>, _: &str) -> Resp {
    let mut r = respond(
        StatusCode::OK,
        "application/schema+json",
        passback_engine::SCHEMA,
    );
    r.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    r
}

/// `GET /v1/openapi.yaml`.
pub async fn openapi(_: Arc<AppState>, _: Request<Incoming>, _: &str) -> Resp {
    respond(StatusCode::OK, "application/yaml", OPENAPI)
}
