//! Responses: RFC 9457 problem details for errors, and the security headers every HTML page gets.

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};

pub type Resp = Response<Full<Bytes>>;

/// The strict policy every HTML response carries; `frame-src` only when a routed YouTube block
/// needs it. A macro, not a const, so `concat!` can extend the one literal.
macro_rules! base_csp {
    () => {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'self'"
    };
}
pub const CSP: &str = base_csp!();
pub const CSP_YOUTUBE: &str = concat!(base_csp!(), "; frame-src https://www.youtube-nocookie.com");

pub fn csp(youtube: bool) -> &'static str {
    if youtube { CSP_YOUTUBE } else { CSP }
}

/// The policy for email previews: inline styles are how mail is styled; nothing else runs or loads.
pub const EMAIL_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'; frame-ancestors 'self'";

/// An email-surface HTML response: no script can run, but its inline styles apply.
pub fn email_html(status: StatusCode, body: impl Into<Bytes>) -> Resp {
    let mut r = html(status, body, false);
    r.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(EMAIL_CSP),
    );
    r
}

/// A response with a body and content type.
pub fn respond(status: StatusCode, content_type: &'static str, body: impl Into<Bytes>) -> Resp {
    let mut r = Response::new(Full::new(body.into()));
    *r.status_mut() = status;
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    r.headers_mut().insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}

/// An HTML response with the security headers.
pub fn html(status: StatusCode, body: impl Into<Bytes>, youtube: bool) -> Resp {
    let mut r = respond(status, "text/html; charset=utf-8", body);
    secure(&mut r, youtube);
    r
}

pub fn secure(r: &mut Resp, youtube: bool) {
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(csp(youtube)),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(
        header::X_FRAME_OPTIONS,
        HeaderValue::from_static("SAMEORIGIN"),
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
