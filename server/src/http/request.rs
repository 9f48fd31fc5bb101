//! Reading a request: its body within the limits (`--max-body`, `--body-timeout`), its content
//! type and charset, the document it carries (Markdown, JSON, typed blocks or a form), what it
//! prefers (`Accept`), its conditions (`If-Match`, `If-None-Match`) and its client's address.

// Readers return a ready response as their error: it is built once per request, so boxing it
// would only add an allocation.
#![allow(clippy::result_large_err)]

use super::response::{Resp, problem};
use crate::blocks::blocks_to_markdown;
use crate::quote::truncate;
use crate::state::AppState;
use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header;
use hyper::{Request, StatusCode};
use passback_engine::parse_urlencoded;
use serde_json::Value;
use std::time::Duration;

/// Whether a POST carries a form (urlencoded, `true`) or JSON (`false`); anything else is the
/// 415 that says to post `what`.
pub fn form_or_json(req: &Request<Incoming>, what: &str) -> Result<bool, Resp> {
    let content_type = content_type_of(req)?;
    match media(&content_type) {
        "application/x-www-form-urlencoded" => Ok(true),
        "application/json" => Ok(false),
        other => Err(problem(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "Content-Type {} is not accepted here; post {what}.",
                truncate(other)
            ),
        )),
    }
}

/// The request's Content-Type, lowercased; refused (415) when it names a charset other than
/// UTF-8, since the body would be misread.
pub fn content_type_of(req: &Request<Incoming>) -> Result<Option<String>, Resp> {
    let content_type = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|s| s.to_ascii_lowercase());
    if let Some(charset) = foreign_charset(&content_type) {
        return Err(problem(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "The body must be UTF-8, not charset={charset}; send it as UTF-8 (charset=utf-8, or no charset)."
            ),
        ));
    }
    Ok(content_type)
}

/// The body, up to `max` bytes, chunked or not; the caller has read the Content-Type
/// (`content_type_of`).
pub async fn read_body(
    req: Request<Incoming>,
    max: usize,
    timeout: Duration,
) -> Result<Bytes, Resp> {
    let (parts, body) = req.into_parts();
    read_body_of(&parts.headers, body, max, timeout).await
}

/// [`read_body`] for a request already taken apart: its headers and its body.
pub async fn read_body_of(
    headers: &hyper::HeaderMap,
    body: Incoming,
    max: usize,
    timeout: Duration,
) -> Result<Bytes, Resp> {
    // Bodies are read as sent: a compressed one would be rendered as its compressed bytes.
    if let Some(coding) = headers
        .get(header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .filter(|c| !c.trim().eq_ignore_ascii_case("identity"))
    {
        return Err(problem(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "Content-Encoding {} is not supported; send the body uncompressed.",
                truncate(coding)
            ),
        ));
    }
    let too_large = || {
        problem(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "The request body is over the {max}-byte limit; send a smaller document (the limit is set with --max-body)."
            ),
        )
    };
    // A Content-Length over the limit is refused before any of the body is read (and before
    // hyper answers an `Expect: 100-continue`).
    if hyper::body::Body::size_hint(&body).lower() > max as u64 {
        return Err(too_large());
    }
    // A body sent a byte at a time holds a connection: it has `--body-timeout` to arrive.
    let Ok(collected) = tokio::time::timeout(timeout, Limited::new(body, max).collect()).await
    else {
        return Err(problem(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "The request body did not arrive within {} s; send it at once (the limit is set with --body-timeout).",
                timeout.as_secs_f64()
            ),
        ));
    };
    match collected {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e)
            if e.downcast_ref::<http_body_util::LengthLimitError>()
                .is_some() =>
        {
            Err(too_large())
        }
        Err(_) => Err(problem(
            StatusCode::BAD_REQUEST,
            "The request body could not be read to the end; send it again.",
        )),
    }
}

pub fn utf8(bytes: Bytes) -> Result<String, Resp> {
    String::from_utf8(Vec::from(bytes)).map_err(|e| {
        problem(
            StatusCode::BAD_REQUEST,
            format!(
                "The body is not valid UTF-8 (bad byte at offset {}); send the document as UTF-8.",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

/// The `charset` of a (lowercased) Content-Type when it is not UTF-8 or its ASCII subset: such
/// a body would be misread, so it is refused rather than decoded as UTF-8.
fn foreign_charset(content_type: &Option<String>) -> Option<String> {
    let params = content_type.as_deref()?.split(';').skip(1);
    let charset = params
        .filter_map(|p| p.split_once('='))
        .find(|(k, _)| k.trim() == "charset")
        .map(|(_, v)| v.trim().trim_matches('"'))?;
    (!matches!(charset, "utf-8" | "utf8" | "us-ascii")).then(|| charset.to_string())
}

pub fn media(content_type: &Option<String>) -> &str {
    content_type
        .as_deref()
        .and_then(|c| c.split(';').next())
        .map_or("", str::trim)
}

/// Reads the body and takes the document out of it, as render, validate and the playground do.
pub async fn read_document(state: &AppState, req: Request<Incoming>) -> Result<String, Resp> {
    let content_type = content_type_of(&req)?;
    let body = read_body(req, state.config.max_body, state.config.body_timeout).await?;
    document_from(&content_type, body)
}

/// The document from a render/validate body: raw Markdown, `{ "markdown" }`, `{ "blocks" }`, or
/// a form with a `markdown` field.
pub fn document_from(content_type: &Option<String>, body: Bytes) -> Result<String, Resp> {
    match media(content_type) {
        "" | "text/markdown" | "text/x-markdown" | "text/plain" => utf8(body),
        "application/json" => {
            let text = utf8(body)?;
            let json: Value = serde_json::from_str(&text).map_err(|e| {
                problem(
                    StatusCode::BAD_REQUEST,
                    format!("The body is not valid JSON: {e}."),
                )
            })?;
            let neither = || {
                problem(
                    StatusCode::BAD_REQUEST,
                    "A JSON body needs \"markdown\" (the document) or \"blocks\" (typed blocks).",
                )
            };
            let Value::Object(mut fields) = json else {
                return Err(neither());
            };
            // Taken out of the parsed body, not copied: it can be the whole document.
            let markdown = match fields.remove("markdown") {
                None => None,
                Some(Value::String(s)) => Some(s),
                Some(_) => {
                    return Err(problem(
                        StatusCode::BAD_REQUEST,
                        "\"markdown\" must be a string holding the document.",
                    ));
                }
            };
            // `blocks` takes precedence over `markdown` when both are given (spec §0.5).
            if let Some(blocks) = fields.get("blocks").filter(|b| !b.is_null()) {
                return blocks_to_markdown(blocks)
                    .map_err(|m| problem(StatusCode::UNPROCESSABLE_ENTITY, m));
            }
            markdown.ok_or_else(neither)
        }
        "application/x-www-form-urlencoded" => {
            let pairs = parse_urlencoded(&utf8(body)?)
                .map_err(|e| problem(StatusCode::BAD_REQUEST, format!("{e}.")))?;
            pairs
                .into_iter()
                .find(|(k, _)| k == "markdown")
                .map(|(_, v)| v)
                .ok_or_else(|| {
                    problem(
                        StatusCode::BAD_REQUEST,
                        "The form needs a \"markdown\" field holding the document.",
                    )
                })
        }
        other => Err(problem(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "Content-Type {other} is not accepted; send text/markdown, or application/json with {{\"markdown\"}} or {{\"blocks\"}}."
            ),
        )),
    }
}

/// Whether the client asked for HTML over Markdown: `text/html` must be acceptable and
/// preferred to `text/markdown` by the Accept header's quality values (a browser's
/// `text/html,…,*/*;q=0.8` is; `*/*`, `text/html;q=0` and no header are not).
pub fn wants_html(req: &Request<Incoming>) -> bool {
    req.headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| {
            let html = quality(a, "text", "html");
            html > 0.0 && html > quality(a, "text", "markdown")
        })
}

/// The quality an Accept header gives `kind/sub`: that of its most specific matching range
/// (`kind/sub`, then `kind/*`, then `*/*`), 0 when none matches. Media types are
/// case-insensitive (RFC 9110 §8.3.1).
fn quality(accept: &str, kind: &str, sub: &str) -> f32 {
    let mut best: Option<(u8, f32)> = None;
    for range in accept.split(',') {
        let mut parts = range.split(';');
        let Some((k, s)) = parts.next().and_then(|m| m.trim().split_once('/')) else {
            continue;
        };
        let (k, s) = (k.trim(), s.trim());
        let specificity = if k.eq_ignore_ascii_case(kind) && s.eq_ignore_ascii_case(sub) {
            2
        } else if k.eq_ignore_ascii_case(kind) && s == "*" {
            1
        } else if k == "*" && s == "*" {
            0
        } else {
            continue;
        };
        let q = parts
            .filter_map(|p| p.split_once('='))
            .find(|(name, _)| name.trim().eq_ignore_ascii_case("q"))
            .and_then(|(_, v)| v.trim().parse::<f32>().ok())
            .unwrap_or(1.0)
            .clamp(0.0, 1.0);
        if best.is_none_or(|(b, _)| specificity > b) {
            best = Some((specificity, q));
        }
    }
    best.map_or(0.0, |(_, q)| q)
}

/// A request's `If-Match` and `If-None-Match` headers (RFC 9110 §13.1).
pub struct Conditions {
    if_match: Option<String>,
    if_none_match: Option<String>,
}

impl Conditions {
    pub fn of(req: &Request<Incoming>) -> Conditions {
        let get = |name| {
            req.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        Conditions {
            if_match: get(header::IF_MATCH),
            if_none_match: get(header::IF_NONE_MATCH),
        }
    }

    /// Whether `If-None-Match` lists the ETag of `hash` (or is `*`): a GET answers 304, any
    /// other method 412.
    pub fn none_match(&self, hash: &str) -> bool {
        self.if_none_match
            .as_deref()
            .is_some_and(|v| lists(v, hash, true))
    }

    /// Whether an `If-Match` is given and does not list the ETag of `hash` (strong
    /// comparison): 412.
    pub fn fail_if_match(&self, hash: &str) -> bool {
        self.if_match
            .as_deref()
            .is_some_and(|v| !lists(v, hash, false))
    }
}

/// Whether an entity-tag list (`*`, or tags separated by commas) holds [`etag`](super::response::etag)`(hash)`,
/// compared in place so no tag is built for a request without conditions; `weak` allows `W/`
/// tags (If-None-Match compares weakly, If-Match strongly).
fn lists(header: &str, hash: &str, weak: bool) -> bool {
    header.trim() == "*"
        || header.split(',').any(|t| {
            let t = t.trim();
            let t = if weak { t.trim_start_matches("W/") } else { t };
            t.strip_prefix('"').and_then(|t| t.strip_suffix('"')) == Some(hash)
        })
}

/// The client address of a request, as the connection gave it or, from a trusted proxy
/// (`--trusted-proxies`), as the proxy forwarded it; `handle` puts it in the request's
/// extensions for the routes that limit by client.
#[cfg(feature = "store")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub std::net::IpAddr);

/// The client address `handle` recorded for the request.
#[cfg(feature = "store")]
pub fn client_of<B>(req: &Request<B>) -> Option<std::net::IpAddr> {
    req.extensions().get::<ClientAddr>().map(|c| c.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::response::etag;

    /// Entity-tag lists compared against a hash, as they were against its quoted tag.
    #[test]
    fn tag_lists_name_a_hash_by_its_quoted_tag() {
        let hash = "0123456789abcdef0123456789abcdef";
        let tag = etag(hash);
        for (header, weak, listed) in [
            (tag.as_str(), false, true),
            ("*", false, true),
            (" * ", true, true),
            (hash, true, false),
            ("\"other\"", true, false),
            (&format!("\"x\", {tag} ,\"y\"") as &str, false, true),
            (&format!("W/{tag}"), true, true),
            (&format!("W/{tag}"), false, false),
            (&format!("\"{tag}\""), true, false),
            ("\"", true, false),
            ("", true, false),
        ] {
            assert_eq!(lists(header, hash, weak), listed, "{header:?} weak={weak}");
        }
    }
}
