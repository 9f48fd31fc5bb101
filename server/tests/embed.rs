//! Browser apps and embedding, over real HTTP: CORS for the origins the operator names, the
//! render route's `answers_action`, and (with the store) `Idempotency-Key` on routing and on
//! JSON answers.

mod common;

use common::Server;
use common::http::Reply;
use passback_server::Config;

const CHOICE: &str = "# Pick\n\n```single-choice\n{\"version\":\"1\",\"question\":\"Which region first?\",\"options\":[\"EU\",\"US\"]}\n```\n";

const APP: &str = "https://app.example.com";

fn cors_config() -> Config {
    Config::default()
        .with_cors_origins(&[APP, "http://localhost:3000"])
        .expect("origins")
}

/// Every value of header `name` (a reply may carry it more than once).
fn all(r: &Reply, name: &str) -> Vec<String> {
    r.headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.clone())
        .collect()
}

fn varies_on_origin(r: &Reply) -> bool {
    all(r, "vary")
        .iter()
        .any(|v| v.split(',').any(|p| p.trim().eq_ignore_ascii_case("origin")))
}

#[tokio::test]
async fn a_configured_origin_is_echoed_on_the_stateless_routes() {
    let server = Server::start(cors_config()).await;
    for (method, path, body) in [
        ("POST", "/v1/render", CHOICE),
        ("POST", "/v1/validate", CHOICE),
        ("GET", "/v1/schema.json", ""),
    ] {
        let r = server
            .send(method, path, &[("origin", APP)], body.as_bytes())
            .await;
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        assert_eq!(
            r.header("access-control-allow-origin"),
            Some(APP),
            "{path}"
        );
        assert!(varies_on_origin(&r), "{path}: {:?}", r.headers);
        assert!(
            r.header("access-control-expose-headers")
                .is_some_and(|h| h.contains("etag")),
            "{path}"
        );
        assert!(r.header("access-control-allow-credentials").is_none());
    }
    // A refusal carries it too, so the page can read why.
    let r = server
        .send("POST", "/v1/render?surface=nope", &[("origin", APP)], CHOICE)
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.header("access-control-allow-origin"), Some(APP));
    // The second origin, as configured.
    let r = server
        .send(
            "GET",
            "/v1/schema.json",
            &[("origin", "http://localhost:3000")],
            b"",
        )
        .await;
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("http://localhost:3000")
    );
    server.stop().await;
}

#[tokio::test]
async fn any_other_origin_gets_no_grant_but_the_same_answer() {
    let server = Server::start(cors_config()).await;
    for origin in [
        "https://evil.test",
        "null",
        // Look-alikes: a suffix, a subdomain, another scheme, another port.
        "https://app.example.com.evil.test",
        "https://evil.app.example.com",
        "http://app.example.com",
        "https://app.example.com:8443",
        "HTTPS://APP.EXAMPLE.COM",
    ] {
        let r = server
            .send("POST", "/v1/render", &[("origin", origin)], CHOICE)
            .await;
        assert_eq!(r.status, 200, "{origin}");
        assert_eq!(r.header("access-control-allow-origin"), None, "{origin}");
        assert!(varies_on_origin(&r), "{origin}");
        let pre = server
            .send(
                "OPTIONS",
                "/v1/render",
                &[
                    ("origin", origin),
                    ("access-control-request-method", "POST"),
                ],
                b"",
            )
            .await;
        assert_eq!(pre.status, 204, "{origin}");
        for h in [
            "access-control-allow-origin",
            "access-control-allow-methods",
            "access-control-allow-headers",
        ] {
            assert_eq!(pre.header(h), None, "{origin}: {h}");
        }
    }
    // No Origin at all (curl, a server): the same answer, still varying on Origin.
    let r = server.post("/v1/render", CHOICE).await;
    assert_eq!(r.header("access-control-allow-origin"), None);
    assert!(varies_on_origin(&r));
    server.stop().await;
}

#[tokio::test]
async fn a_preflight_from_a_configured_origin_is_granted() {
    let server = Server::start(cors_config()).await;
    let pre = server
        .send(
            "OPTIONS",
            "/v1/render",
            &[
                ("origin", APP),
                ("access-control-request-method", "POST"),
                ("access-control-request-headers", "content-type"),
            ],
            b"",
        )
        .await;
    assert_eq!(pre.status, 204, "{}", pre.text());
    assert_eq!(pre.header("access-control-allow-origin"), Some(APP));
    assert_eq!(pre.header("access-control-allow-methods"), Some("POST"));
    let allowed = pre.header("access-control-allow-headers").unwrap_or("");
    assert!(allowed.contains("content-type"), "{allowed}");
    assert!(!allowed.contains("authorization"), "{allowed}");
    assert_eq!(pre.header("access-control-max-age"), Some("7200"));
    assert!(varies_on_origin(&pre));
    assert!(pre.body.is_empty());
    // A method the route does not serve is not granted.
    let pre = server
        .send(
            "OPTIONS",
            "/v1/render",
            &[("origin", APP), ("access-control-request-method", "DELETE")],
            b"",
        )
        .await;
    assert_eq!(pre.header("access-control-allow-methods"), None);
    // The schema is a GET.
    let pre = server
        .send(
            "OPTIONS",
            "/v1/schema.json",
            &[("origin", APP), ("access-control-request-method", "GET")],
            b"",
        )
        .await;
    assert_eq!(pre.header("access-control-allow-methods"), Some("GET, HEAD"));
    server.stop().await;
}

#[tokio::test]
async fn without_configured_origins_there_is_no_cors_at_all() {
    let server = Server::start(Config::default()).await;
    let r = server
        .send("POST", "/v1/render", &[("origin", APP)], CHOICE)
        .await;
    assert_eq!(r.status, 200);
    for h in [
        "access-control-allow-origin",
        "access-control-expose-headers",
        "vary",
    ] {
        assert_eq!(r.header(h), None, "{h}");
    }
    let pre = server
        .send(
            "OPTIONS",
            "/v1/render",
            &[("origin", APP), ("access-control-request-method", "POST")],
            b"",
        )
        .await;
    assert_eq!(pre.status, 405);
    assert_eq!(pre.header("access-control-allow-origin"), None);
    server.stop().await;
}

#[cfg(feature = "store")]
#[tokio::test]
async fn the_owners_routes_and_the_review_pages_never_answer_cors() {
    let server = Server::start(cors_config()).await;
    for (method, path) in [
        ("GET", "/v1/documents"),
        ("POST", "/v1/documents"),
        ("GET", "/v1/documents/abc"),
        ("GET", "/r/abc"),
        ("POST", "/r/abc/responses"),
        ("GET", "/healthz"),
    ] {
        let r = server.send(method, path, &[("origin", APP)], b"").await;
        assert_eq!(r.header("access-control-allow-origin"), None, "{path}");
        assert!(!varies_on_origin(&r), "{path}");
        let pre = server
            .send(
                "OPTIONS",
                path,
                &[("origin", APP), ("access-control-request-method", method)],
                b"",
            )
            .await;
        assert_eq!(pre.status, 405, "{path}");
        assert_eq!(pre.header("access-control-allow-origin"), None, "{path}");
    }
    server.stop().await;
}

/// The form's action in a rendering.
fn action(html: &str) -> Option<String> {
    let form = &html[html.find("<form")?..];
    let tag = &form[..form.find('>')?];
    let at = tag.find(" action=\"")? + " action=\"".len();
    Some(tag[at..at + tag[at..].find('"')?].to_string())
}

#[tokio::test]
async fn the_render_route_posts_the_form_where_answers_action_says() {
    let server = Server::start(Config::default()).await;
    let default = server.post("/v1/render", CHOICE).await;
    assert_eq!(default.status, 200);
    assert_eq!(action(&default.text()).as_deref(), Some("/v1/answers"));

    let elsewhere = "https://answers.example/collect?form=7";
    let query = format!(
        "/v1/render?answers_action={}",
        common::http::urlencode(elsewhere)
    );
    let moved = server.post(&query, CHOICE).await;
    assert_eq!(moved.status, 200, "{}", moved.text());
    assert_eq!(
        action(&moved.text()).as_deref(),
        Some("https://answers.example/collect?form=7")
    );
    // Two actions never share a cache entry: each has its own hash, and the cached copy at
    // each hash is the one with that action.
    let (a, b) = (
        default.header("etag").expect("etag"),
        moved.header("etag").expect("etag"),
    );
    assert_ne!(a, b);
    for (reply, want) in [(&default, "/v1/answers"), (&moved, elsewhere)] {
        let at = reply.header("content-location").expect("content-location");
        let cached = server.get(at).await;
        assert_eq!(cached.status, 200);
        assert_eq!(action(&cached.text()).as_deref(), Some(want));
    }
    // Rendering the default again is a hit on its own entry, not on the other.
    let again = server.post("/v1/render", CHOICE).await;
    assert_eq!(again.header("etag"), Some(a));

    // Empty: no action, as `--answers-action ''` renders it.
    let none = server.post("/v1/render?answers_action=", CHOICE).await;
    assert_eq!(none.status, 200);
    assert_eq!(action(&none.text()), None);
    assert!(none.text().contains("method=\"dialog\""));

    server.stop().await;
}

#[tokio::test]
async fn a_bad_answers_action_is_refused_as_the_cli_refuses_it() {
    let server = Server::start(Config::default()).await;
    for bad in [
        "javascript:alert(1)",
        "data:text/html,x",
        "/a b",
        "/a\"onclick=x",
    ] {
        let query = format!("/v1/render?answers_action={}", common::http::urlencode(bad));
        let r = server.post(&query, CHOICE).await;
        assert_eq!(r.status, 400, "{bad}");
        let detail = r.problem_detail();
        assert!(detail.starts_with("answers_action must be "), "{detail}");

        let out = common::passback()
            .args(["render", "--answers-action", bad])
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run passback render");
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let said = String::from_utf8_lossy(&out.stderr);
        // One message: the flag's name in place of the parameter's.
        let rest = detail.trim_start_matches("answers_action").trim_end_matches('.');
        assert!(said.contains(&format!("--answers-action{rest}")), "{said} / {detail}");
    }
    server.stop().await;
}
