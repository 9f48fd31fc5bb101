//! `GET /assets/{name}`: the engine's script and stylesheet and (with the `playground` feature)
//! the playground's own files, under content-hashed names, cached for good.

use super::response::{IMMUTABLE, Resp, problem, respond};
use crate::quote::truncate;
use crate::state::AppState;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Request, StatusCode};
use std::sync::Arc;

/// `GET /assets/{name}`.
pub async fn get(_: Arc<AppState>, _: Request<Incoming>, name: &str) -> Resp {
    match by_name(name) {
        Some((content_type, text)) => {
            let mut r = respond(StatusCode::OK, content_type, text);
            r.headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static(IMMUTABLE));
            r
        }
        None => problem(
            StatusCode::NOT_FOUND,
            format!(
                "No asset named {}; asset names carry a content hash, take them from a rendered page.",
                truncate(name)
            ),
        ),
    }
}

/// An asset by its hashed name: the engine's, or the playground's in a build with it.
fn by_name(name: &str) -> Option<(&'static str, &'static str)> {
    let found = passback_engine::assets::by_name(name);
    #[cfg(feature = "playground")]
    let found = found.or_else(|| crate::playground::assets::by_name(name));
    found
}
