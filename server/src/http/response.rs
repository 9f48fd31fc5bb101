//! Responses: RFC 9457 problem details for errors, the security headers every HTML page gets,
//! private JSON, ETags and `Server-Timing`. (The routing core's refusals are mapped to them in
//! `refusal`.) The helpers only the routed documents' routes use come with the `store` feature.

use crate::admission::Unadmitted;
use crate::host::{plain_host, web_host};
use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Response, StatusCode};
#[cfg(feature = "store")]
use serde_json::{Value, json};
use std::time::Duration;

pub type Resp = Response<Full<Bytes>>;

/// The strict policy every HTML response carries; `frame-src` only when a routed YouTube block
/// needs it. A macro, not a const, so `concat!` can extend the one literal.
macro_rules! base_csp {
    () => {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'self'"
    };
}
pub const CSP: &str = base_csp!();
/// The playground's policy: the strict one, and its script may fetch renderings from this
/// server.
#[cfg(feature = "playground")]
pub const PLAYGROUND_CSP: &str = concat!(base_csp!(), "; connect-src 'self'");

/// The policy for email previews: inline styles are how mail is styled; nothing else runs or
/// loads, but for images from `data:` and the sources written in at `$img`.
macro_rules! email_policy {
    ($img:literal) => {
        concat!(
            "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
            $img,
            "; form-action 'none'; base-uri 'none'; frame-ancestors 'self'"
        )
    };
}
pub const EMAIL_CSP: &str = email_policy!("");

/// The email previews' policy for a server with `public_url`: a server started with
/// `--public-url` links diagrams in its email previews as images at that URL, so `img-src`
/// allows its origin (and nothing more). Without one, or when the origin cannot be written into
/// a policy as is, the strict [`EMAIL_CSP`].
pub fn email_csp(public_url: Option<&str>) -> HeaderValue {
    public_url
        .and_then(origin)
        .and_then(|o| HeaderValue::from_str(&format!(email_policy!(" {}"), o)).ok())
        .unwrap_or(HeaderValue::from_static(EMAIL_CSP))
}

/// Adds `sources` (the server's image policy, see
/// [`passback_engine::ImagePolicy::csp_sources`]) to the `img-src` of `r`'s CSP, if it has one:
/// the policy the pages were rendered by is the one their CSP enforces. Empty `sources` (only
/// the page's own images) leave it as it is.
pub fn allow_images(r: &mut Resp, sources: &str) {
    if sources.is_empty() {
        return;
    }
    let Some(policy) = r
        .headers()
        .get(header::CONTENT_SECURITY_POLICY)
        .and_then(|v| v.to_str().ok())
    else {
        return;
    };
    let Some(at) = policy.find("img-src ") else {
        return;
    };
    let end = policy[at..].find(';').map_or(policy.len(), |e| at + e);
    let widened = format!("{} {sources}{}", &policy[..end], &policy[end..]);
    if let Ok(v) = HeaderValue::try_from(widened) {
        r.headers_mut().insert(header::CONTENT_SECURITY_POLICY, v);
    }
}

/// `scheme://host[:port]` of an http(s) URL whose host is [`plain_host`].
fn origin(url: &str) -> Option<&str> {
    let host = web_host(url).filter(|h| plain_host(h))?;
    let scheme = url.find("://")?;
    Some(&url[..scheme + 3 + host.len()])
}

/// An email-surface HTML response: no script can run, but its inline styles apply. `csp` is
/// [`email_csp`] for this server.
pub fn email_html(status: StatusCode, body: impl Into<Bytes>, csp: HeaderValue) -> Resp {
    let mut r = html(status, body, None);
    r.headers_mut().insert(header::CONTENT_SECURITY_POLICY, csp);
    r
}

/// Room for every header a response of ours carries (a rendering has eight, nine with its
/// Server-Timing), so the map is allocated once instead of growing, and copying itself, as they
/// are added.
const HEADER_ROOM: usize = 10;

/// A response with a body and content type.
pub fn respond(status: StatusCode, content_type: &'static str, body: impl Into<Bytes>) -> Resp {
    typed(status, HeaderValue::from_static(content_type), body)
}

/// [`respond`] with the content type's header value already made. The fixed header values
/// here are made when the program is compiled (`const`): made at run time, each one's bytes
/// are checked again on every response, which for the policies is over a hundred bytes.
fn typed(status: StatusCode, content_type: HeaderValue, body: impl Into<Bytes>) -> Resp {
    let mut r = Response::new(Full::new(body.into()));
    *r.status_mut() = status;
    let h = r.headers_mut();
    *h = HeaderMap::with_capacity(HEADER_ROOM);
    h.insert(header::CONTENT_TYPE, content_type);
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        const { HeaderValue::from_static("nosniff") },
    );
    r
}

/// An HTML response with the security headers.
/// `frame_src`: a source the page's frames need (a routed YouTube player), added to the CSP.
pub fn html(status: StatusCode, body: impl Into<Bytes>, frame_src: Option<&str>) -> Resp {
    let content_type = const { HeaderValue::from_static("text/html; charset=utf-8") };
    let mut r = typed(status, content_type, body);
    secure(&mut r, frame_src);
    r
}

pub fn secure(r: &mut Resp, frame_src: Option<&str>) {
    let h = r.headers_mut();
    let policy = frame_src
        .and_then(|src| HeaderValue::try_from(format!("{CSP}; frame-src {src}")).ok())
        .unwrap_or(const { HeaderValue::from_static(CSP) });
    h.insert(header::CONTENT_SECURITY_POLICY, policy);
    h.insert(
        header::REFERRER_POLICY,
        const { HeaderValue::from_static("no-referrer") },
    );
    h.insert(
        header::X_FRAME_OPTIONS,
        const { HeaderValue::from_static("SAMEORIGIN") },
    );
}

/// `application/problem+json` with a sentence a person can act on.
pub fn problem(status: StatusCode, detail: impl Into<String>) -> Resp {
    respond(
        status,
        "application/problem+json",
        problem_body(status, detail.into()),
    )
}

/// The problem-details JSON itself, for [`problem`] and for the raw 503 written before hyper
/// takes the connection.
pub fn problem_body(status: StatusCode, detail: String) -> String {
    let title = status.canonical_reason().unwrap_or("Error");
    serde_json::json!({
        "type": "about:blank",
        "title": title,
        "status": status.as_u16(),
        "detail": detail,
    })
    .to_string()
}

/// A problem with extra members beside the standard ones (RFC 9457 §3.2).
#[cfg(feature = "store")]
pub fn problem_with(status: StatusCode, detail: impl Into<String>, extra: Value) -> Resp {
    let mut body = json!({
        "type": "about:blank",
        "title": status.canonical_reason().unwrap_or("Error"),
        "status": status.as_u16(),
        "detail": detail.into(),
    });
    if let (Some(body), Value::Object(extra)) = (body.as_object_mut(), extra) {
        body.extend(extra);
    }
    respond(status, "application/problem+json", body.to_string())
}

/// JSON with `Cache-Control: no-store`: for someone's document or answers.
#[cfg(feature = "store")]
pub fn private_json(status: StatusCode, body: &Value) -> Resp {
    let mut r = respond(status, "application/json", body.to_string());
    no_store(&mut r);
    r
}

#[cfg(feature = "store")]
pub fn no_store(r: &mut Resp) {
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

/// `Cache-Control` for what a content hash names: it can never change.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// The `ETag` of a rendering: its hash, quoted.
pub fn etag(hash: &str) -> String {
    // Joined, not `format!`ted: the formatting machinery cost more than the copy, per response.
    ["\"", hash, "\""].concat()
}

/// A header value made of a string just written: the value takes over its buffer instead of
/// copying it into one of its own.
pub fn owned_value(text: String) -> Option<HeaderValue> {
    HeaderValue::from_maybe_shared(Bytes::from(text)).ok()
}

pub fn precondition_failed() -> Resp {
    problem(
        StatusCode::PRECONDITION_FAILED,
        "The request's If-Match or If-None-Match condition does not hold for this rendering.",
    )
}

/// A `Server-Timing` header (W3C Server Timing) in the making: what the server spent on a
/// request, each part as `name;desc=…;dur=MILLISECONDS`. Written into one buffer with `itoa`
/// (no `format!`), since the cache-hit path answers in microseconds.
pub struct Timing(String);

impl Timing {
    pub fn new() -> Self {
        Timing(String::with_capacity(64))
    }

    pub fn add(&mut self, name: &str, desc: Option<&str>, took: std::time::Duration) {
        if !self.0.is_empty() {
            self.0.push_str(", ");
        }
        self.0.push_str(name);
        if let Some(desc) = desc {
            self.0.push_str(";desc=");
            self.0.push_str(desc);
        }
        // Milliseconds with three decimals: microsecond resolution.
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        let mut digits = itoa::Buffer::new();
        self.0.push_str(";dur=");
        self.0.push_str(digits.format(micros / 1000));
        let fraction = micros % 1000;
        self.0.push_str(if fraction < 10 {
            ".00"
        } else if fraction < 100 {
            ".0"
        } else {
            "."
        });
        self.0.push_str(digits.format(fraction));
    }

    pub fn set(self, r: &mut Resp) {
        if let Some(v) = owned_value(self.0) {
            r.headers_mut().insert(
                const { header::HeaderName::from_static("server-timing") },
                v,
            );
        }
    }
}

/// The answer to work refused a render slot: 503 with `Retry-After` when every slot stayed
/// taken, 500 when the work failed.
pub fn unadmitted(refused: Unadmitted) -> Resp {
    match refused {
        Unadmitted::Busy { waited } => busy(waited),
        Unadmitted::Failed => problem(StatusCode::INTERNAL_SERVER_ERROR, refused.to_string()),
    }
}

/// The 503 for a request that found no render slot within `--queue-timeout` (`waited`).
pub fn busy(waited: Duration) -> Resp {
    let mut r = problem(
        StatusCode::SERVICE_UNAVAILABLE,
        Unadmitted::Busy { waited }.to_string(),
    );
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn email_previews_may_load_images_from_the_public_urls_origin_only() {
        assert_eq!(email_csp(None), EMAIL_CSP);
        assert_eq!(
            email_csp(Some("https://render.example:8443/passback/")),
            "default-src 'none'; style-src 'unsafe-inline'; img-src data: https://render.example:8443; form-action 'none'; base-uri 'none'; frame-ancestors 'self'"
        );
        assert_eq!(
            origin("HTTP://Render.example?x#y"),
            Some("HTTP://Render.example")
        );
        // Not an http(s) origin, or one that would change the policy: the strict policy.
        for url in [
            "ftp://render.example",
            "https://",
            "render.example",
            "https://a.example; script-src *",
            "https://a.example,b",
            "https://user@a.example",
        ] {
            assert_eq!(email_csp(Some(url)), EMAIL_CSP, "{url}");
        }
    }
}
