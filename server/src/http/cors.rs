//! CORS for browser apps (`--cors-origin`): the stateless routes a page on another origin may
//! call (render, validate, answers, schema). None by default, and then no CORS header at all.
//!
//! A configured origin is echoed in `Access-Control-Allow-Origin` only when the request's
//! `Origin` is exactly it (`null`, a look-alike or a suffix never is); `Vary: Origin` is on
//! every response of these routes so a shared cache keeps one copy per origin. No credentials:
//! these routes take no cookie and no key. The owner's routes (`/v1/documents…`), the review
//! pages (`/r/…`) and `/mcp` never answer CORS (see docs/decisions.md).

use super::response::Resp;
use super::routes::Route;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Response, StatusCode};

/// The routes that answer CORS, by pattern.
pub const ROUTES: &[&str] = &[
    "/v1/render",
    "/v1/render/{hash}",
    "/v1/validate",
    "/v1/answers",
    "/v1/schema.json",
];

/// The request headers a preflight may ask for: the body's type and the conditions the render
/// routes take. No `Authorization`: none of these routes reads a key.
const ALLOW_HEADERS: &str = "content-type, if-match, if-none-match";

/// The response headers a page may read: the rendering's hash and where it is cached, the
/// answers' notices, and a 503's `Retry-After`.
const EXPOSE_HEADERS: &str = "etag, content-location, passback-notice, retry-after, server-timing";

/// How long a browser may keep a preflight's answer, in seconds (Chromium keeps at most 2 h).
const MAX_AGE: &str = "7200";

/// Whether `route` answers CORS when origins are configured.
pub fn applies(route: Option<&Route>) -> bool {
    route.is_some_and(|r| ROUTES.contains(&r.pattern))
}

/// The request's `Origin` when it is exactly one of `allowed`.
pub fn allowed_origin(headers: &HeaderMap, allowed: &[String]) -> Option<HeaderValue> {
    let origin = headers.get(header::ORIGIN)?;
    let text = origin.to_str().ok()?;
    allowed.iter().any(|a| a == text).then(|| origin.clone())
}

/// Adds `Vary: Origin`, and for an allowed origin `Access-Control-Allow-Origin` and the headers
/// a page may read, to a response of a CORS route.
pub fn decorate(r: &mut Resp, origin: Option<HeaderValue>) {
    let h = r.headers_mut();
    h.append(header::VARY, HeaderValue::from_static("Origin"));
    if let Some(origin) = origin {
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        h.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static(EXPOSE_HEADERS),
        );
    }
}

/// The answer to `OPTIONS` on a CORS route: 204 with `Allow`, and for an allowed origin asking
/// for a method the route serves, what the preflight grants (`decorate` adds the origin). A
/// preflight from any other origin gets no grant, so the browser stops there.
pub fn preflight(route: &Route, headers: &HeaderMap, origin_allowed: bool) -> Resp {
    let mut r = Response::new(http_body_util::Full::new(bytes::Bytes::new()));
    *r.status_mut() = StatusCode::NO_CONTENT;
    let allow = format!("{}, OPTIONS", route.allow());
    let h = r.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&allow) {
        h.insert(header::ALLOW, v);
    }
    let asked = headers
        .get(header::ACCESS_CONTROL_REQUEST_METHOD)
        .and_then(|m| m.to_str().ok())
        .and_then(|m| m.parse::<hyper::Method>().ok());
    if origin_allowed && asked.is_some_and(|m| route.serves(&m)) {
        if let Ok(v) = HeaderValue::from_str(&route.allow()) {
            h.insert(header::ACCESS_CONTROL_ALLOW_METHODS, v);
        }
        h.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static(ALLOW_HEADERS),
        );
        h.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static(MAX_AGE),
        );
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_exact_origin_is_allowed() {
        let allowed = vec!["https://app.example.com".to_string()];
        let mut h = HeaderMap::new();
        for (origin, ok) in [
            ("https://app.example.com", true),
            ("https://app.example.com.evil.test", false),
            ("https://evil.app.example.com", false),
            ("http://app.example.com", false),
            ("null", false),
        ] {
            h.insert(header::ORIGIN, HeaderValue::from_static(origin));
            assert_eq!(allowed_origin(&h, &allowed).is_some(), ok, "{origin}");
        }
    }
}
