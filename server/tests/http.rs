//! The service over real HTTP on loopback: every test binds port 0, talks raw HTTP/1.1 over a
//! TCP socket (so slow and chunked clients can be played exactly), and shuts the server down.

mod common;

use common::Server;
use common::http::{Reply, read_reply, request, send, urlencode};
use passback_server::Config;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const DOC: &str = "# Plan\n\nPick one.\n\n```single-choice\n{ \"version\": \"1\", \"question\": \"Which auth method?\", \"options\": [\"PIN\", \"Magic link\"], \"recommended\": \"Magic link\" }\n```\n";

#[tokio::test]
async fn render_then_fetch_by_hash_with_etag() {
    let server = Server::start(Config::default()).await;
    let r = server.post_as("/v1/render", "text/markdown", DOC).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains("class=\"pb-block pb-single-choice\""));
    let csp = r.header("content-security-policy").expect("CSP on HTML");
    assert!(
        csp.contains("default-src 'none'")
            && csp.contains("script-src 'self'")
            && csp.contains("form-action 'self'"),
        "{csp}"
    );
    assert!(
        !csp.contains("frame-src"),
        "no frame-src without a routed video"
    );
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    assert!(r.header("referrer-policy").is_some());
    let etag = r.header("etag").expect("etag").to_string();
    let location = r
        .header("content-location")
        .expect("content-location")
        .to_string();
    assert_eq!(location, format!("/v1/render/{}", etag.trim_matches('"')));

    let again = server.get(&location).await;
    assert_eq!(again.status, 200);
    assert_eq!(again.body, r.body);
    assert!(
        again
            .header("cache-control")
            .unwrap_or("")
            .contains("immutable")
    );
    let not_modified = server
        .send("GET", &location, &[("if-none-match", &etag)], b"")
        .await;
    assert_eq!(not_modified.status, 304);
    assert!(not_modified.body.is_empty());
    // If-Match compares strongly; a mismatch is 412 on any method.
    for (value, status) in [(etag.as_str(), 200), ("\"other\"", 412), ("*", 200)] {
        let r = server
            .send("GET", &location, &[("if-match", value)], b"")
            .await;
        assert_eq!(r.status, status, "GET if-match {value}");
    }
    // A conditional POST: If-None-Match naming this rendering (or *) is 412, as HTTP says for
    // methods other than GET and HEAD; another tag renders as usual.
    for (header, value, status) in [
        ("if-none-match", etag.as_str(), 412),
        ("if-none-match", "*", 412),
        ("if-none-match", "\"other\"", 200),
        ("if-match", "\"other\"", 412),
        ("if-match", etag.as_str(), 200),
    ] {
        let r = server
            .send(
                "POST",
                "/v1/render",
                &[("content-type", "text/markdown"), (header, value)],
                DOC,
            )
            .await;
        assert_eq!(r.status, status, "POST {header}: {value}");
        if status == 412 {
            assert!(
                r.header("content-type")
                    .unwrap_or("")
                    .contains("problem+json")
            );
        }
    }
    let missing = server
        .get("/v1/render/00000000000000000000000000000000")
        .await;
    assert_eq!(missing.status, 404);
    assert!(missing.problem_detail().contains("POST the document"));
    server.stop().await;
}

#[tokio::test]
async fn render_accepts_json_typed_blocks_and_formats() {
    let server = Server::start(Config::default()).await;
    let body = serde_json::json!({ "markdown": DOC }).to_string();
    let r = server
        .post_as(
            "/v1/render?format=json&surface=email",
            "application/json",
            body.as_bytes(),
        )
        .await;
    assert_eq!(r.status, 200);
    let v: serde_json::Value = serde_json::from_slice(&r.body).expect("json format");
    assert!(
        v["html"].as_str().unwrap_or("").contains("style="),
        "email surface inlines styles"
    );
    assert_eq!(v["blocks"][0]["kind"], "single-choice");
    assert_eq!(v["hash"].as_str().map(str::len), Some(32));

    let blocks = serde_json::json!({ "blocks": [
        { "type": "markdown", "text": "Rank these." },
        { "type": "prioritize", "version": "1", "items": [{ "id": "a", "label": "A" }, { "id": "b", "label": "B" }] },
        { "type": "youtube", "version": "1", "id": "dQw4w9WgXcQ", "title": "Tour" }
    ]})
    .to_string();
    let r = server
        .post_as(
            "/v1/render?surface=routed",
            "application/json",
            blocks.as_bytes(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(
        r.text().contains("pb-prioritize")
            && r.text().contains("youtube-nocookie.com/embed/dQw4w9WgXcQ")
    );
    assert!(
        r.header("content-security-policy")
            .unwrap_or("")
            .contains("frame-src https://www.youtube-nocookie.com")
    );

    let page = server.post("/v1/render?format=page", DOC).await;
    let css = page
        .text()
        .split("href=\"/assets/")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("stylesheet link")
        .to_string();
    let asset = server.get(&format!("/assets/{css}")).await;
    assert_eq!(asset.status, 200);
    assert!(
        asset
            .header("content-type")
            .unwrap_or("")
            .starts_with("text/css")
    );
    assert!(
        asset
            .header("cache-control")
            .unwrap_or("")
            .contains("immutable")
    );

    let bad = server.post("/v1/render?surface=paper", DOC).await;
    assert_eq!(bad.status, 400);
    assert!(
        bad.problem_detail()
            .contains("surface must be page, routed or email")
    );
    server.stop().await;
}

/// A misspelt render parameter is refused, naming it and the parameters there are, rather than
/// ignored: `?fromat=page` would otherwise quietly answer the default fragment.
#[tokio::test]
async fn an_unknown_render_parameter_is_refused_by_name() {
    let server = Server::start(Config::default()).await;
    let bad = server.post("/v1/render?fromat=page", DOC).await;
    assert_eq!(bad.status, 400);
    let detail = bad.problem_detail();
    assert!(detail.contains("\"fromat\""), "{detail}");
    assert!(
        detail.contains("surface, format, respond_url, answers_action, link_base"),
        "{detail}"
    );
    let good = server
        .post("/v1/render?format=page&surface=page", DOC)
        .await;
    assert_eq!(good.status, 200);
    let text = server.post("/v1/validate?format=text", DOC).await;
    assert_eq!(text.status, 400);
    assert!(
        text.problem_detail().contains("\"format\""),
        "{}",
        text.problem_detail()
    );
    assert_eq!(server.post("/v1/validate", DOC).await.status, 200);
    server.stop().await;
}

#[tokio::test]
async fn bad_requests_get_problem_details() {
    let server = Server::start(Config::default().with_max_body(1000)).await;
    let a = &server;
    let r = a
        .post_as("/v1/render", "text/markdown", b"ok \xff\xfe")
        .await;
    assert_eq!(r.status, 400);
    assert!(r.problem_detail().contains("not valid UTF-8"));
    let r = a
        .post_as("/v1/validate", "application/json", b"{\"markdown\": ")
        .await;
    assert_eq!(r.status, 400);
    assert!(r.problem_detail().contains("not valid JSON"));
    let r = a.post_as("/v1/render", "image/png", b"x").await;
    assert_eq!(r.status, 415);
    assert!(r.problem_detail().contains("text/markdown"));
    // A body in another charset would be misread as UTF-8: refused, naming the charset.
    for path in ["/v1/render", "/v1/validate", "/v1/answers"] {
        let r = a
            .post_as(path, "text/markdown; charset=ISO-8859-1", b"caf\xe9")
            .await;
        assert_eq!(r.status, 415, "{path}");
        assert!(r.problem_detail().contains("charset=iso-8859-1"), "{path}");
    }
    let r = a
        .send(
            "POST",
            "/v1/validate",
            &[("content-type", "text/markdown; charset=\"UTF-8\"")],
            "café".as_bytes(),
        )
        .await;
    assert_eq!(r.status, 200);
    let r = a.post("/v1/render", &vec![b'a'; 5000]).await;
    assert_eq!(r.status, 413);
    assert!(r.problem_detail().contains("1000-byte limit"));
    let r = a.send("DELETE", "/v1/render", &[], b"").await;
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("POST"));
    // HEAD works wherever GET does, so Allow names it.
    let r = a.send("PUT", "/healthz", &[], b"").await;
    assert_eq!((r.status, r.header("allow")), (405, Some("GET, HEAD")));
    let r = a.send("HEAD", "/healthz", &[], b"").await;
    assert_eq!(r.status, 200);
    // A compressed body is refused, not rendered as its compressed bytes.
    let r = a
        .send(
            "POST",
            "/v1/render",
            &[
                ("content-type", "text/markdown"),
                ("content-encoding", "gzip"),
            ],
            b"\x1f\x8b\x08\x00",
        )
        .await;
    assert_eq!(r.status, 415);
    assert!(r.problem_detail().contains("Content-Encoding gzip"));
    // /v1/answers judges the media type first, as /v1/render does: 415, not 400 for the bytes;
    // and a JSON request without its document or its responses is malformed: 400 either way.
    for (media, body, status) in [
        ("image/png", &b"\x89PNG\xff"[..], 415),
        ("application/json", br#"{"markdown": "x"}"#, 400),
        ("application/json", br#"{"responses": {}}"#, 400),
    ] {
        let r = a.post_as("/v1/answers", media, body).await;
        assert_eq!(r.status, status, "{media}");
        if status == 400 {
            assert!(r.problem_detail().contains("\"responses\""));
        }
    }
    // The form a document at the limit renders posts its source percent-encoded: it fits.
    let doc = "```open-question\n{\"version\":\"1\",\"question\":\"Q?\"}\n```\n\u{5e9}\u{5dc}\u{5d5}\u{5dd} ".repeat(12);
    assert!(doc.len() < 1000);
    let form = format!("pb.source={}&b1.q0.text=hi", urlencode(&doc));
    assert!(form.len() > 1000);
    let r = a.post_form("/v1/answers", &form, false).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let r = a.get("/nope").await;
    assert_eq!(r.status, 404);
    r.problem_detail();
    let body =
        serde_json::json!({ "markdown": DOC, "responses": { "b1": { "selected": ["SMS"] } } })
            .to_string();
    let r = a
        .post_as("/v1/answers", "application/json", body.as_bytes())
        .await;
    assert_eq!(r.status, 422);
    assert!(r.problem_detail().contains("\"SMS\" is not an option"));
    server.stop().await;
}

#[tokio::test]
async fn the_body_limit_holds_for_chunked_bodies() {
    let server = Server::start(Config::default().with_max_body(1000)).await;
    let mut raw = b"POST /v1/render HTTP/1.1\r\nhost: t\r\nconnection: close\r\ntransfer-encoding: chunked\r\ncontent-type: text/markdown\r\n\r\n".to_vec();
    for _ in 0..10 {
        raw.extend_from_slice(b"200\r\n");
        raw.extend_from_slice(&[b'x'; 0x200]);
        raw.extend_from_slice(b"\r\n");
    }
    raw.extend_from_slice(b"0\r\n\r\n");
    let r = send(server.addr, raw).await;
    assert_eq!(r.status, 413);
    server.stop().await;
}

#[tokio::test]
async fn a_declared_length_over_the_limit_is_refused_before_the_body_is_sent() {
    let server = Server::start(Config::default().with_max_body(1000)).await;
    // Only the headers: a server that waited for the 99 MB would never answer.
    for expect in ["", "expect: 100-continue\r\n"] {
        let raw = format!(
            "POST /v1/render HTTP/1.1\r\nhost: t\r\nconnection: close\r\ncontent-type: text/markdown\r\ncontent-length: 99999999\r\n{expect}\r\n"
        );
        let r = send(server.addr, raw.into_bytes()).await;
        assert_eq!(r.status, 413, "{expect:?}: {}", r.text());
        assert!(r.text().contains("1000-byte limit"), "{}", r.text());
    }
    server.stop().await;
}

#[tokio::test]
async fn answers_from_the_form_and_from_json_agree() {
    let server = Server::start(Config::default()).await;
    let form = format!(
        "pb.source={}&pb.surface=page&b1.q0.pick=1&b1.q0.note=fast&pb.op=export",
        urlencode(DOC)
    );
    let from_form = server.post_form("/v1/answers", &form, false).await;
    assert_eq!(from_form.status, 200, "{}", from_form.text());
    assert!(
        from_form
            .header("content-type")
            .unwrap_or("")
            .starts_with("text/markdown")
    );
    let json = serde_json::json!({ "markdown": DOC, "responses": { "b1": { "selected": ["Magic link"], "note": "fast" } } }).to_string();
    let from_json = server
        .post_as("/v1/answers", "application/json", json.as_bytes())
        .await;
    assert_eq!(from_json.text(), from_form.text());
    assert_eq!(
        from_json.text(),
        "**Q: Which auth method?**\nAnswer: Magic link\nNote: fast\n"
    );

    let page = server.post_form("/v1/answers", &form, true).await;
    assert_eq!(page.status, 200);
    assert!(page.text().contains("Answer: Magic link") && page.text().contains("data-pb-copy"));
    assert!(page.header("content-security-policy").is_some());

    // HTML only when the Accept header prefers it to Markdown, by its quality values.
    for (accept, html) in [
        (
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            true,
        ),
        ("TEXT/HTML", true),
        ("text/*", false),
        ("*/*", false),
        ("text/html;q=0", false),
        ("text/markdown, text/html;q=0.5", false),
        ("text/markdown;q=0.4, text/html;q=0.5", true),
        ("application/json", false),
    ] {
        let r = server
            .send(
                "POST",
                "/v1/answers",
                &[
                    ("content-type", "application/x-www-form-urlencoded"),
                    ("accept", accept),
                ],
                form.as_bytes(),
            )
            .await;
        let ty = r.header("content-type").unwrap_or("").to_string();
        assert_eq!(ty.starts_with("text/html"), html, "{accept}: {ty}");
    }
    server.stop().await;
}

#[tokio::test]
async fn a_list_edit_without_javascript_returns_the_updated_form() {
    let server = Server::start(Config::default()).await;
    let doc = "```prioritize\n{\"version\":\"1\",\"items\":[{\"id\":\"eu\",\"label\":\"EU\"},{\"id\":\"us\",\"label\":\"US\"}]}\n```\n";
    let form = format!(
        "pb.source={}&b1.item=i%3Aeu&b1.item=i%3Aus&b1.op=down%3A0",
        urlencode(doc)
    );
    let r = server.post_form("/v1/answers", &form, true).await;
    assert_eq!(r.status, 200);
    let html = r.text();
    let (us, eu) = (
        html.find("value=\"i:us\"").expect("us"),
        html.find("value=\"i:eu\"").expect("eu"),
    );
    assert!(us < eu, "EU moved down below US");
    server.stop().await;
}

#[tokio::test]
async fn slow_headers_are_cut_off() {
    let server =
        Server::start(Config::default().with_header_timeout(Duration::from_millis(300))).await;
    let mut s = TcpStream::connect(server.addr).await.expect("connect");
    s.write_all(b"GET /healthz HTTP/1.1\r\nhost: t\r\n")
        .await
        .expect("partial head");
    let mut buf = Vec::new();
    // The server must close the connection by itself; the test only guards against a hang.
    let read = tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut buf)).await;
    assert!(
        read.is_ok(),
        "the server kept a slow client's connection open"
    );
    assert!(!String::from_utf8_lossy(&buf).contains("200 OK"));
    server.stop().await;
}

#[tokio::test]
async fn slow_bodies_hit_the_request_time_limit() {
    let server =
        Server::start(Config::default().with_request_timeout(Duration::from_millis(300))).await;
    let mut s = TcpStream::connect(server.addr).await.expect("connect");
    s.write_all(b"POST /v1/render HTTP/1.1\r\nhost: t\r\nconnection: close\r\ncontent-length: 100\r\n\r\nonly part").await.expect("write");
    let r = read_reply(&mut s, Duration::from_secs(10)).await;
    assert_eq!(r.status, 503);
    assert!(r.problem_detail().contains("took longer than"));
    server.stop().await;
}

#[tokio::test]
async fn the_connection_limit_turns_extra_clients_away() {
    let server = Server::start(Config::default().with_max_connections(1)).await;
    let _holder = TcpStream::connect(server.addr)
        .await
        .expect("first connection");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let r = server.get("/v1/schema.json").await;
    assert_eq!(r.status, 503);
    assert!(r.problem_detail().contains("connection limit"));
    // The health probe is answered all the same.
    assert_eq!(server.get("/healthz").await.status, 200);
    drop(_holder);
    server.stop().await;
}

#[tokio::test]
async fn a_panicking_handler_is_one_500_and_the_server_keeps_serving() {
    let server = Server::start(Config::default().with_panic_route(true)).await;
    let r = server.get("/__panic").await;
    assert_eq!(r.status, 500);
    assert!(r.problem_detail().contains("still running"));
    let ok = server.get("/healthz").await;
    assert_eq!((ok.status, ok.text().as_str()), (200, "ok\n"));
    server.stop().await;
}

#[tokio::test]
async fn shutdown_finishes_in_flight_requests() {
    let mut server = Server::start(Config::default()).await;
    let mut s = TcpStream::connect(server.addr).await.expect("connect");
    let raw = request(
        "POST",
        "/v1/validate",
        &[("content-type", "text/markdown")],
        DOC.as_bytes(),
    );
    // The head and the first ten bytes of the body before the shutdown, the rest after.
    let (before, after) = raw.split_at(raw.len() - DOC.len() + 10);
    s.write_all(before)
        .await
        .expect("head and part of the body");
    tokio::time::sleep(Duration::from_millis(100)).await;
    server.begin_shutdown();
    tokio::time::sleep(Duration::from_millis(100)).await;
    s.write_all(after).await.expect("rest of the body");
    let r = read_reply(&mut s, Duration::from_secs(20)).await;
    assert_eq!(r.status, 200, "the in-flight request finished");
    assert!(r.text().contains("\"outcome\":\"valid\""));
    let addr = server.addr;
    server.stop().await;
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "no longer accepting"
    );
}

#[tokio::test]
async fn metrics_count_requests_and_cache_hits() {
    let server = Server::start(Config::default()).await;
    for _ in 0..3 {
        let r = server.post("/v1/render", DOC).await;
        assert_eq!(r.status, 200);
    }
    let m = server.get("/metrics").await.text();
    assert!(
        m.contains("passback_requests_total{route=\"/v1/render\",status=\"200\"} 3"),
        "{m}"
    );
    assert!(m.contains("passback_cache_hits_total 2"), "{m}");
    assert!(m.contains("passback_cache_misses_total 1"), "{m}");
    assert!(m.contains("passback_request_duration_seconds_count{route=\"/v1/render\"} 3"));
    server.stop().await;
}

/// The parts of a `Server-Timing` header, as (name, desc, milliseconds), checked against the
/// documented form: `name[;desc=word];dur=MS.mmm`, joined by `, `.
#[track_caller]
fn server_timing(r: &Reply) -> Vec<(String, Option<String>, f64)> {
    let header = r.header("server-timing").expect("a Server-Timing header");
    header
        .split(", ")
        .map(|part| {
            let fields: Vec<&str> = part.split(';').collect();
            let name = fields[0].to_string();
            assert!(
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase()),
                "{header}"
            );
            let desc = fields
                .iter()
                .find_map(|f| f.strip_prefix("desc="))
                .map(str::to_string);
            let dur = fields
                .iter()
                .find_map(|f| f.strip_prefix("dur="))
                .unwrap_or_else(|| panic!("no dur in {header}"));
            let (whole, fraction) = dur.split_once('.').expect("three decimals");
            assert_eq!(fraction.len(), 3, "{header}");
            assert!(
                whole
                    .bytes()
                    .chain(fraction.bytes())
                    .all(|b| b.is_ascii_digit()),
                "{header}"
            );
            (name, desc, dur.parse().expect("a number"))
        })
        .collect()
}

fn timing_names(parts: &[(String, Option<String>, f64)]) -> Vec<String> {
    parts
        .iter()
        .map(|(name, desc, _)| match desc {
            Some(d) => format!("{name}:{d}"),
            None => name.clone(),
        })
        .collect()
}

#[tokio::test]
async fn render_validate_and_answers_say_what_the_server_spent() {
    let server = Server::start(Config::default()).await;
    let miss = server.post("/v1/render", DOC).await;
    assert_eq!(miss.status, 200);
    assert_eq!(
        timing_names(&server_timing(&miss)),
        ["parse", "cache:miss", "render"]
    );
    let hit = server.post("/v1/render", DOC).await;
    assert_eq!(timing_names(&server_timing(&hit)), ["parse", "cache:hit"]);
    // Another surface is another rendering: a miss again.
    let email = server.post("/v1/render?surface=email", DOC).await;
    assert_eq!(
        timing_names(&server_timing(&email)),
        ["parse", "cache:miss", "render"]
    );
    // A whole MIME message is built on every request: no cache part.
    let eml = server
        .post("/v1/render?surface=email&format=eml", DOC)
        .await;
    assert_eq!(eml.status, 200, "{}", eml.text());
    assert_eq!(timing_names(&server_timing(&eml)), ["parse", "render"]);
    let v = server.post("/v1/validate", DOC).await;
    assert_eq!(v.status, 200);
    assert_eq!(timing_names(&server_timing(&v)), ["parse", "validate"]);
    let body = serde_json::json!({ "markdown": DOC, "responses": {} }).to_string();
    let a = server
        .post_as("/v1/answers", "application/json", body.as_bytes())
        .await;
    assert_eq!(a.status, 200, "{}", a.text());
    assert_eq!(timing_names(&server_timing(&a)), ["parse", "export"]);
    // A refused request spent nothing worth reporting.
    let bad = server.post("/v1/render?surface=web", DOC).await;
    assert_eq!(bad.status, 400);
    assert!(bad.header("server-timing").is_none());
    server.stop().await;
}

/// The `_bucket` lines of one series of a histogram: (upper bound, cumulative count).
fn buckets(metrics: &str, name: &str, labels: &str) -> Vec<(f64, u64)> {
    let prefix = format!("{name}_bucket{{{labels},le=\"");
    metrics
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .map(|rest| {
            let (le, count) = rest.split_once("\"} ").expect("a bucket line");
            let le = if le == "+Inf" {
                f64::INFINITY
            } else {
                le.parse().expect("le")
            };
            (le, count.parse().expect("a count"))
        })
        .collect()
}

/// The upper bound of the bucket the median observation falls in.
fn median_bucket(buckets: &[(f64, u64)]) -> f64 {
    let total = buckets.last().expect("buckets").1;
    buckets
        .iter()
        .find(|(_, n)| *n * 2 >= total && *n > 0)
        .expect("an observation")
        .0
}

fn sample(metrics: &str, series: &str) -> Option<u64> {
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

#[tokio::test]
async fn histograms_count_every_request_and_tell_a_hit_from_a_cold_render() {
    let server = Server::start(Config::default()).await;
    // A big document: prose and a diagram many times over, tens of milliseconds to render
    // in a test build; a hit looks it up and compares its text.
    let mut big = String::new();
    for i in 0..40 {
        big.push_str(&format!(
            "## Part {i}\n\nSome prose about part {i}, *settled* and written out.\n\n```mermaid\n{{ \"version\": \"1\", \"source\": \"graph TD; A{i}[Start] --> B{i}[Review] --> C{i}[Ship]; B{i} -->|edit| A{i};\" }}\n```\n\n"
        ));
    }
    let (hits, healthz) = (9, 4);
    for _ in 0..=hits {
        let r = server.post("/v1/render", big.as_bytes()).await;
        assert_eq!(r.status, 200);
    }
    let r = server.post("/v1/render?surface=routed", DOC).await;
    assert_eq!(r.status, 200);
    for _ in 0..healthz {
        assert_eq!(server.get("/healthz").await.status, 200);
    }
    let m = server.get("/metrics").await.text();
    let requests = "passback_request_duration_seconds";
    assert_eq!(
        sample(&m, &format!("{requests}_count{{route=\"/v1/render\"}}")),
        Some(hits + 2),
        "{m}"
    );
    assert_eq!(
        sample(&m, &format!("{requests}_count{{route=\"/healthz\"}}")),
        Some(healthz),
        "{m}"
    );
    // The /metrics request being answered is not counted yet; nothing else was asked for.
    assert_eq!(m.matches(&format!("{requests}_count{{")).count(), 2, "{m}");
    let renders = "passback_render_duration_seconds";
    for (labels, count) in [
        ("surface=\"page\",cache=\"hit\"", hits),
        ("surface=\"page\",cache=\"miss\"", 1),
        ("surface=\"routed\",cache=\"miss\"", 1),
        ("surface=\"routed\",cache=\"hit\"", 0),
        ("surface=\"email\",cache=\"miss\"", 0),
    ] {
        let b = buckets(&m, renders, labels);
        assert_eq!(b.len(), 20, "10 µs … 10 s and +Inf: {m}");
        assert_eq!(b[0].0, 0.00001);
        assert_eq!(b[18].0, 10.0);
        assert!(b.windows(2).all(|w| w[0].1 <= w[1].1), "cumulative: {b:?}");
        assert_eq!(b[19].1, count, "{labels}: {m}");
        assert_eq!(
            sample(&m, &format!("{renders}_count{{{labels}}}")),
            Some(count),
            "{labels}"
        );
    }
    // Buckets, not clocks: the hits sit in a lower bucket than the cold render of the same
    // document.
    let hit = median_bucket(&buckets(&m, renders, "surface=\"page\",cache=\"hit\""));
    let cold = median_bucket(&buckets(&m, renders, "surface=\"page\",cache=\"miss\""));
    assert!(
        hit < cold,
        "hits ≤ {hit} s, the cold render ≤ {cold} s\n{m}"
    );
    let info = m
        .lines()
        .find(|l| l.starts_with("passback_build_info{"))
        .expect("build info");
    assert!(
        info.starts_with(&format!(
            "passback_build_info{{version=\"{}\"",
            env!("CARGO_PKG_VERSION")
        )) && info.ends_with("} 1"),
        "{info}"
    );
    server.stop().await;
}

/// Whether this build serves a documented path: the routed documents' come with the `store`
/// feature, `/mcp` with `mcp`, the playground's `/` with `playground`.
fn compiled_in(path: &str) -> bool {
    match path {
        "/" => cfg!(feature = "playground"),
        "/mcp" => cfg!(feature = "mcp"),
        p if p.starts_with("/v1/documents")
            || p.starts_with("/r/")
            || p.starts_with("/v1/events")
            || p.starts_with("/v1/keys") =>
        {
            cfg!(feature = "store")
        }
        _ => true,
    }
}

/// `server/openapi.yaml` describes exactly the routes the server answers, with their methods:
/// all of them in the default build; in a build without some features, every one but theirs,
/// which answer 404.
#[tokio::test]
async fn the_openapi_description_matches_the_real_routes() {
    // Routed documents need a store: a file in a folder of its own, removed after.
    #[cfg(feature = "store")]
    let backend = common::store::Backend::sqlite();
    #[cfg(feature = "store")]
    let config =
        Config::default().with_store(passback_server::store::StoreConfig::Sqlite(backend.file()));
    #[cfg(not(feature = "store"))]
    let config = Config::default();
    let server = Server::start(config).await;
    let served = server.get("/v1/openapi.yaml").await;
    assert_eq!(served.status, 200);
    let yaml = served.text();
    assert_eq!(yaml, common::openapi());
    // Paths are the two-space keys under `paths:`, methods the four-space keys under each.
    let mut documented: Vec<(String, String)> = Vec::new();
    let mut in_paths = false;
    let mut current = String::new();
    for line in yaml.lines() {
        if !line.starts_with(' ') {
            in_paths = line.trim_end() == "paths:";
            continue;
        }
        if !in_paths {
            continue;
        }
        if let Some(p) = line.strip_prefix("  ").filter(|l| !l.starts_with(' ')) {
            current = p.trim_end().trim_end_matches(':').to_string();
        } else if let Some(m) = line.strip_prefix("    ").filter(|l| !l.starts_with(' ')) {
            let m = m.trim_end().trim_end_matches(':');
            if ["get", "post", "put", "delete", "patch"].contains(&m) {
                documented.push((current.clone(), m.to_uppercase()));
            }
        }
    }
    let (mut documented, absent): (Vec<_>, Vec<_>) = documented
        .into_iter()
        .partition(|(path, _)| compiled_in(path));
    let mut real = common::routes();
    documented.sort();
    real.sort();
    assert_eq!(documented, real, "openapi.yaml and the router disagree");
    // The routes of the features left out are simply not there.
    for (path, method) in &absent {
        let concrete = path.replace("{id}", "AAAAAAAAAAAAAAAAAAAAAA");
        let r = server.send(method, &concrete, &[], b"").await;
        assert_eq!(r.status, 404, "{method} {path}");
    }
    // And each documented operation is really served (not 404 or 405).
    for (path, method) in &documented {
        let concrete = path
            .replace("{hash}", "0123456789abcdef0123456789abcdef")
            .replace("{name}", "x.css")
            .replace("{id}", "AAAAAAAAAAAAAAAAAAAAAA");
        let r = server
            .send(
                method,
                &concrete,
                &[("content-type", "text/markdown")],
                b"# hi",
            )
            .await;
        assert_ne!(r.status, 405, "{method} {path}");
        if !path.contains('{') {
            assert_ne!(r.status, 404, "{method} {path}");
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn email_previews_with_a_respond_link_and_a_text_alternative() {
    let server = Server::start(Config::default()).await;
    let html = server
        .post(
            "/v1/render?surface=email&format=page&respond_url=https%3A%2F%2Fapp.example%2Fr%2F7",
            DOC,
        )
        .await;
    assert_eq!(html.status, 200);
    // Without --public-url the preview links no diagram: images from data:, and the https
    // images the default image policy shows.
    let csp = html.header("content-security-policy").unwrap_or("");
    assert!(csp.contains("img-src data: https:;"), "{csp}");
    let body = html.text();
    assert!(
        body.contains("href=\"https://app.example/r/7\"")
            && !body.contains("<form")
            && !body.contains("<script")
    );
    let text = server
        .post(
            "/v1/render?surface=email&format=text&respond_url=https%3A%2F%2Fapp.example%2Fr%2F7",
            DOC,
        )
        .await;
    assert!(
        text.header("content-type")
            .unwrap_or("")
            .starts_with("text/plain")
    );
    assert!(
        text.text().contains("( ) Magic link (Recommended)")
            && text.text().ends_with("Respond: https://app.example/r/7\n")
    );
    let bad = server
        .post(
            "/v1/render?surface=email&respond_url=javascript%3Aalert(1)",
            DOC,
        )
        .await;
    assert_eq!(bad.status, 400);
    server.stop().await;
}

#[cfg(feature = "png")]
#[tokio::test]
async fn email_previews_link_diagrams_the_server_publishes_as_svg_and_png() {
    let server =
        Server::start(Config::default().with_public_url(Some("https://render.example".into())))
            .await;
    let doc = "```mermaid\n{ \"version\": \"1\", \"source\": \"graph TD; A[Paste] --> B[Review]\", \"title\": \"Loop\" }\n```\n";
    let reply = server
        .post("/v1/render?surface=email", doc.as_bytes())
        .await;
    // The preview may load the images it links, from the public URL's origin and nowhere else.
    let csp = reply.header("content-security-policy").unwrap_or("");
    assert!(
        csp.contains("img-src data: https://render.example https:;")
            && csp.contains("default-src 'none'"),
        "{csp}"
    );
    let email = reply.text();
    let src = email
        .split("src=\"https://render.example/v1/diagrams/")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("an image link")
        .to_string();
    assert!(src.ends_with(".png") && !email.contains("<svg"), "{email}");
    let key = src.trim_end_matches(".png");
    let svg = server.get(&format!("/v1/diagrams/{key}.svg")).await;
    assert_eq!(
        (svg.status, svg.header("content-type")),
        (200, Some("image/svg+xml"))
    );
    assert!(svg.text().contains("data-node=\"A\""));
    let png = server.get(&format!("/v1/diagrams/{key}.png")).await;
    assert_eq!(
        (png.status, png.header("content-type")),
        (200, Some("image/png"))
    );
    assert!(png.body.starts_with(b"\x89PNG"));
    assert!(
        png.header("cache-control")
            .unwrap_or("")
            .contains("immutable")
    );
    // Served again from the kept PNG: the same bytes.
    let again = server.get(&format!("/v1/diagrams/{key}.png")).await;
    assert_eq!((again.status, again.body), (200, png.body));
    let missing = server
        .get("/v1/diagrams/00000000000000000000000000000000.png")
        .await;
    assert_eq!(missing.status, 404);
    // The page surface keeps its inline SVG.
    let page = server.post("/v1/render", doc.as_bytes()).await.text();
    assert!(page.contains("<svg") && !page.contains("/v1/diagrams/"));
    server.stop().await;
}

/// The server's image policy decides which images its pages show, and their CSP's `img-src`
/// allows exactly those: any https host by default, the listed hosts, the proxy's origin, or
/// only the page's own.
#[tokio::test]
async fn pages_show_the_images_the_policy_allows_and_the_csp_agrees() {
    use passback_engine::{ImagePolicy, ImageProxy};
    let doc = "![logo](https://img.example/logo.png) ![other](https://other.example/a.png) ![local](/static/b.png)\n\n<img src=\"https://other.example/raw.png\" alt=\"raw\">\n";
    let proxy = ImageProxy::new("https://camo.example/i", b"secret".to_vec()).expect("a proxy");
    for (policy, img_src, shown, refused) in [
        (
            ImagePolicy::Https,
            "img-src 'self' data: https:;",
            &[
                "src=\"https://img.example/logo.png\"",
                "src=\"https://other.example/a.png\"",
                "src=\"https://other.example/raw.png\"",
            ][..],
            &[][..],
        ),
        (
            ImagePolicy::Hosts(vec!["img.example".into()]),
            "img-src 'self' data: https://img.example;",
            &["src=\"https://img.example/logo.png\""][..],
            &["src=\"https://other.example"][..],
        ),
        (
            ImagePolicy::SameOrigin,
            "img-src 'self' data:;",
            &[][..],
            &["src=\"https://"][..],
        ),
        (
            ImagePolicy::Proxy(proxy),
            "img-src 'self' data: https://camo.example;",
            &["src=\"https://camo.example/i/"][..],
            &["src=\"https://img.example", "src=\"https://other.example"][..],
        ),
    ] {
        let server = Server::start(Config::default().with_images(policy.clone())).await;
        let r = server.post("/v1/render?format=page", doc).await;
        assert_eq!(r.status, 200, "{}", r.text());
        let csp = r.header("content-security-policy").unwrap_or("");
        assert!(csp.contains(img_src), "{policy:?}: {csp}");
        // What follows the form's copy of the source (which holds the document as written).
        let body = r.text();
        let body = body.split("name=\"pb.surface\"").nth(1).unwrap_or(&body);
        assert!(body.contains("src=\"/static/b.png\""), "{policy:?}: {body}");
        for s in shown {
            assert!(body.contains(s), "{policy:?}: {s} in {body}");
        }
        for s in refused {
            assert!(!body.contains(s), "{policy:?}: {s} in {body}");
        }
        // Whatever loads from elsewhere sends no referrer.
        let from_web = body.matches("src=\"https://").count();
        assert!(
            body.matches("referrerpolicy=\"no-referrer\"").count() >= from_web,
            "{policy:?}: {body}"
        );
        // Email previews: the same policy, but only absolute addresses load in mail.
        let mail = server
            .post("/v1/render?surface=email&format=page", doc)
            .await;
        let csp = mail.header("content-security-policy").unwrap_or("");
        assert!(
            csp.contains(&img_src.replace("'self' ", "")),
            "{policy:?}: {csp}"
        );
        assert!(
            !mail.text().contains("src=\"/static/b.png\""),
            "{}",
            mail.text()
        );
        server.stop().await;
    }
}
