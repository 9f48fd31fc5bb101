//! Responses: RFC 9457 problem details for errors, and the security headers every HTML page gets.

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{self, HeaderMap, HeaderValue};
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
/// The playground's policy: the strict one, and its script may fetch renderings from this
/// server.
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

/// `scheme://host[:port]` of an http(s) URL whose host is [`plain_host`].
fn origin(url: &str) -> Option<&str> {
    let host = web_host(url).filter(|h| plain_host(h))?;
    let scheme = url.find("://")?;
    Some(&url[..scheme + 3 + host.len()])
}

/// The `host[:port]` of an `http://` or `https://` URL, as written (possibly empty); `None` for
/// any other scheme.
pub fn web_host(url: &str) -> Option<&str> {
    let (scheme, rest) = url.split_once("://")?;
    let web = scheme.eq_ignore_ascii_case("https") || scheme.eq_ignore_ascii_case("http");
    web.then(|| rest.split(['/', '?', '#']).next().unwrap_or(""))
}

/// Whether `host` is not empty and holds only letters, digits, `.`, `-` and a port's `:`:
/// nothing that could end a CSP source or add a directive.
pub fn plain_host(host: &str) -> bool {
    !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':'))
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
