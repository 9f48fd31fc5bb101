//! Bounds no single holder of a review link or a document's token can exhaust, over real HTTP on
//! loopback against the real `passback serve`: long-polls have their own budget, `/healthz`
//! and `/metrics` answer at the connection limit, a delete ends the long-polls on its document,
//! answers per link are rate-limited and counted as stored, over-limit bodies get a readable
//! 413.
//!
//! Clients on other loopback addresses (127.0.0.2, …) stand for other hosts.

mod common;

use common::http::{Reply, call, read_reply, request};
use common::store::{Backend, runtime};
use serde_json::{Value, json};
use std::time::Duration;
use tokio::io::AsyncWriteExt;

const DOC: &str = "# Launch\n\nWhich region first?\n\n```single-choice\n{\"version\":\"1\",\"question\":\"Which region first?\",\"options\":[\"EU\",\"US\"]}\n```\n";

struct RoutedDoc {
    id: String,
    token: String,
}

fn route(addr: &str) -> RoutedDoc {
    let r = call(
        addr,
        "POST",
        "/v1/documents",
        &[("content-type", "application/json")],
        json!({ "markdown": DOC }).to_string().as_bytes(),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let v = r.json();
    RoutedDoc {
        id: v["id"].as_str().expect("an id").to_string(),
        token: v["token"].as_str().expect("a token").to_string(),
    }
}

/// One request from the loopback address `src` (127.0.0.N), with the `Host` it dialled.
fn call_from(
    src: &str,
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    let mut all = vec![("host", addr)];
    all.extend_from_slice(headers);
    let raw = request(method, path, &all, body);
    runtime().block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
        socket
            .bind(format!("{src}:0").parse().expect("an address"))
            .expect("bind the loopback address");
        let mut s = socket
            .connect(addr.parse().expect("the server's address"))
            .await
            .expect("connect");
        s.write_all(&raw).await.expect("write the request");
        read_reply(&mut s, Duration::from_secs(90)).await
    })
}

/// A long-poll on `doc` from `src`.
fn poll_from(src: &str, addr: &str, doc: &RoutedDoc, wait: &str) -> Reply {
    let auth = format!("Bearer {}", doc.token);
    call_from(
        src,
        addr,
        "GET",
        &format!("/v1/documents/{}/responses?wait={wait}", doc.id),
        &[("authorization", &auth)],
        b"",
    )
}

fn answer_from(src: &str, addr: &str, id: &str, body: &Value) -> Reply {
    call_from(
        src,
        addr,
        "POST",
        &format!("/r/{id}/responses"),
        &[("content-type", "application/json")],
        body.to_string().as_bytes(),
    )
}

const ANSWER: &str = r#"{ "responses": { "b1": { "selected": ["EU"] } } }"#;

/// A minute's long-poll on `doc` from `src`, asked again while it is refused (a probe may hold
/// the place it wanted for a moment).
fn holding_poll(src: &str, addr: &str, doc: &RoutedDoc) -> Reply {
    loop {
        let r = poll_from(src, addr, doc, "60");
        if r.status != 429 {
            return r;
        }
    }
}

/// Polls with a short `wait` from `src` until one is refused with 429 (the long-polls started
/// before are all waiting by then), and returns that refusal; panics if none is.
fn refused_poll(src: &str, addr: &str, doc: &RoutedDoc) -> Reply {
    for _ in 0..50 {
        let r = poll_from(src, addr, doc, "0.2");
        if r.status == 429 {
            return r;
        }
        assert_eq!(r.status, 200, "{}", r.text());
    }
    panic!("no long-poll was refused: the budget is not enforced");
}

#[test]
fn long_polls_have_their_own_budget_and_the_server_keeps_answering() {
    let backend = Backend::sqlite();
    let server = backend.serve(&[
        "--max-connections",
        "64",
        "--max-long-polls",
        "5",
        "--long-polls-per-document",
        "3",
        "--long-polls-per-client",
        "4",
    ]);
    let addr = server.addr.clone();
    let (a, b, c) = (route(&addr), route(&addr), route(&addr));
    let a = std::sync::Arc::new(a);
    let b = std::sync::Arc::new(b);

    // Three holders of document A's token, each on its own address, fill A's share.
    let mut waiting = Vec::new();
    for src in ["127.0.0.2", "127.0.0.3", "127.0.0.4"] {
        let (addr, a) = (addr.clone(), a.clone());
        waiting.push(std::thread::spawn(move || holding_poll(src, &addr, &a)));
    }
    let refused = refused_poll("127.0.0.5", &addr, &a);
    assert_eq!(refused.header("retry-after"), Some("2"));
    let detail = refused.problem_detail();
    assert!(detail.contains("--long-polls-per-document"), "{detail}");
    assert_eq!(refused.json()["retry_after"], 2);

    // Two more on B fill the server's budget: a third document's long-poll is refused.
    for src in ["127.0.0.6", "127.0.0.7"] {
        let (addr, b) = (addr.clone(), b.clone());
        waiting.push(std::thread::spawn(move || holding_poll(src, &addr, &b)));
    }
    let refused = refused_poll("127.0.0.8", &addr, &c);
    let detail = refused.problem_detail();
    assert!(detail.contains("--max-long-polls"), "{detail}");
    // A list without a wait still answers at once.
    assert_eq!(poll_from("127.0.0.8", &addr, &c, "0").status, 200);

    // Everyone else is still served.
    let health = call_from("127.0.0.9", &addr, "GET", "/healthz", &[], b"");
    assert_eq!(health.status, 200);
    let render = call_from(
        "127.0.0.9",
        &addr,
        "POST",
        "/v1/render",
        &[("content-type", "text/markdown")],
        b"# Fresh\n\nA paragraph never rendered before 9f1c2.\n",
    );
    assert_eq!(render.status, 200, "{}", render.text());

    // Answers end the waits, which give their places back.
    for doc in [&a, &b] {
        let r = answer_from(
            "127.0.0.10",
            &addr,
            &doc.id,
            &serde_json::from_str(ANSWER).unwrap(),
        );
        assert_eq!(r.status, 201, "{}", r.text());
    }
    for w in waiting {
        let r = w.join().expect("a long-poll");
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["responses"].as_array().map(Vec::len), Some(1));
    }
    let r = poll_from("127.0.0.5", &addr, &c, "0.1");
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn health_and_metrics_answer_at_the_connection_limit() {
    let server = common::serve(&["--store", "off", "--max-connections", "2"]);
    let addr = server.addr.clone();
    // Two connections that send nothing hold every slot (until the header timeout).
    let held: Vec<std::net::TcpStream> = (0..2)
        .map(|_| std::net::TcpStream::connect(&addr).expect("connect"))
        .collect();
    // The server is full: anything else is turned away…
    let mut full = 0;
    for _ in 0..50 {
        let r = call(&addr, "GET", "/v1/schema.json", &[], b"");
        if r.status == 503 {
            full += 1;
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(full, 1, "the two idle connections did not fill the server");
    // …but its probes are answered.
    let health = call(&addr, "GET", "/healthz", &[], b"");
    assert_eq!(health.status, 200, "{}", health.text());
    assert_eq!(health.text(), "ok\n");
    let metrics = call(&addr, "GET", "/metrics", &[], b"");
    assert_eq!(metrics.status, 200, "{}", metrics.text());
    assert!(metrics.text().contains("passback_"), "{}", metrics.text());
    let head = call(&addr, "HEAD", "/healthz", &[], b"");
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    drop(held);
}

/// A delete ends the long-polls on the document at once, with 410: the one waiting is seen to
/// give its place in the budget back while its minute is far from over. With `replica`, the
/// delete is made on another server sharing the database (PostgreSQL).
fn a_delete_ends_the_long_polls_on_it(backend: &Backend, replica: bool) {
    let server = backend.serve(&["--long-polls-per-client", "1"]);
    let addr = server.addr.clone();
    let other = replica.then(|| backend.serve(&[]));
    let deleter = other.as_ref().map_or(addr.clone(), |o| o.addr.clone());
    let a = std::sync::Arc::new(route(&addr));
    let b = route(&addr);
    let waiting = {
        let (addr, a) = (addr.clone(), a.clone());
        std::thread::spawn(move || holding_poll("127.0.0.2", &addr, &a))
    };
    // The address's one place is taken: the long-poll on A is waiting.
    let refused = refused_poll("127.0.0.2", &addr, &b);
    assert!(refused.problem_detail().contains("--long-polls-per-client"));

    let auth = format!("Bearer {}", a.token);
    let path = format!("/v1/documents/{}", a.id);
    let deleted = call(&deleter, "DELETE", &path, &[("authorization", &auth)], b"");
    assert_eq!(deleted.status, 204, "{}", deleted.text());

    // The long-poll ended: its place is free again, long before its minute is up.
    let mut freed = false;
    for _ in 0..100 {
        let r = poll_from("127.0.0.2", &addr, &b, "0.1");
        if r.status == 200 {
            freed = true;
            break;
        }
        assert_eq!(r.status, 429, "{}", r.text());
    }
    assert!(
        freed,
        "the long-poll on the deleted document is still waiting"
    );
    let ended = waiting.join().expect("the long-poll");
    assert_eq!(ended.status, 410, "{}", ended.text());
    ended.problem_detail();
}

#[test]
fn sqlite_a_delete_ends_the_long_polls_on_it() {
    a_delete_ends_the_long_polls_on_it(&Backend::sqlite(), false);
}

#[test]
fn postgres_a_delete_ends_the_long_polls_on_it() {
    if let Some(backend) = Backend::postgres() {
        a_delete_ends_the_long_polls_on_it(&backend, false);
    }
}

#[test]
fn postgres_a_delete_on_one_replica_ends_the_long_polls_on_another() {
    if let Some(backend) = Backend::postgres() {
        a_delete_ends_the_long_polls_on_it(&backend, true);
    }
}

/// Closing a document ends the long-polls on it at once: it takes no more responses, so there
/// is nothing to wait for. The wait answers the (empty) list with the document now closed.
fn a_close_ends_the_long_polls_on_it(backend: &Backend, replica: bool) {
    let server = backend.serve(&["--long-polls-per-client", "1"]);
    let addr = server.addr.clone();
    let other = replica.then(|| backend.serve(&[]));
    let closer = other.as_ref().map_or(addr.clone(), |o| o.addr.clone());
    let a = std::sync::Arc::new(route(&addr));
    let b = route(&addr);
    let waiting = {
        let (addr, a) = (addr.clone(), a.clone());
        std::thread::spawn(move || holding_poll("127.0.0.2", &addr, &a))
    };
    refused_poll("127.0.0.2", &addr, &b);

    let auth = format!("Bearer {}", a.token);
    let closed = call(
        &closer,
        "PATCH",
        &format!("/v1/documents/{}", a.id),
        &[
            ("authorization", &auth),
            ("content-type", "application/json"),
        ],
        br#"{"status":"closed"}"#,
    );
    assert_eq!(closed.status, 200, "{}", closed.text());

    let ended = waiting.join().expect("the long-poll");
    assert_eq!(ended.status, 200, "{}", ended.text());
    let body = ended.json();
    assert_eq!(body["document"]["status"], "closed", "{body}");
    assert_eq!(body["responses"], json!([]), "{body}");
    // Its place in the budget is free again.
    assert_eq!(poll_from("127.0.0.2", &addr, &b, "0.1").status, 200);
}

#[test]
fn sqlite_a_close_ends_the_long_polls_on_it() {
    a_close_ends_the_long_polls_on_it(&Backend::sqlite(), false);
}

#[test]
fn postgres_a_close_on_one_replica_ends_the_long_polls_on_another() {
    if let Some(backend) = Backend::postgres() {
        a_close_ends_the_long_polls_on_it(&backend, true);
    }
}

#[test]
fn answers_per_review_link_are_rate_limited() {
    let backend = Backend::sqlite();
    // The per-address limit as it is by default; the per-document one lowered to reach it.
    let server = backend.serve(&["--document-answer-limit", "14/min"]);
    let addr = server.addr.clone();
    let doc = route(&addr);
    let answer: Value = serde_json::from_str(ANSWER).unwrap();
    for n in 1..=10 {
        let r = answer_from("127.0.0.2", &addr, &doc.id, &answer);
        assert_eq!(r.status, 201, "answer {n}: {}", r.text());
    }
    // The eleventh from the same address within the minute is refused, and not kept.
    let over = answer_from("127.0.0.2", &addr, &doc.id, &answer);
    assert_eq!(over.status, 429, "{}", over.text());
    let wait: u64 = over
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .expect("whole seconds");
    assert!((1..=60).contains(&wait), "{wait}");
    assert!(over.problem_detail().contains("--answer-limit"));
    assert_eq!(over.json()["retry_after"], wait);
    // The review page's form, from a browser, gets a page saying so.
    let form = call_from(
        "127.0.0.2",
        &addr,
        "POST",
        &format!("/r/{}/responses", doc.id),
        &[
            ("content-type", "application/x-www-form-urlencoded"),
            ("accept", "text/html"),
        ],
        b"b1.q0.pick=0",
    );
    assert_eq!(form.status, 429, "{}", form.text());
    assert!(
        form.header("content-type")
            .unwrap()
            .starts_with("text/html")
    );
    assert!(form.header("retry-after").is_some());
    assert!(form.text().contains("--answer-limit"), "{}", form.text());

    // Another reviewer still answers, until the document's own limit.
    for n in 11..=14 {
        let r = answer_from("127.0.0.3", &addr, &doc.id, &answer);
        assert_eq!(r.status, 201, "answer {n}: {}", r.text());
    }
    let full = answer_from("127.0.0.4", &addr, &doc.id, &answer);
    assert_eq!(full.status, 429, "{}", full.text());
    assert!(full.problem_detail().contains("--document-answer-limit"));
    let meta = call(
        &addr,
        "GET",
        &format!("/v1/documents/{}", doc.id),
        &[("authorization", &format!("Bearer {}", doc.token))],
        b"",
    );
    assert_eq!(meta.json()["responses"], 14);
}

/// An answer from `src` carrying `X-Forwarded-For: forwarded`.
fn answer_forwarded(src: &str, addr: &str, id: &str, forwarded: &str) -> Reply {
    call_from(
        src,
        addr,
        "POST",
        &format!("/r/{id}/responses"),
        &[
            ("content-type", "application/json"),
            ("x-forwarded-for", forwarded),
        ],
        ANSWER.as_bytes(),
    )
}

#[test]
fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_answer_limit() {
    let backend = Backend::sqlite();
    // 127.0.0.1 stands for the proxy; 127.0.0.2 for a host that reaches the server directly.
    let server = backend.serve(&[
        "--answer-limit",
        "2/min",
        "--document-answer-limit",
        "off",
        "--trusted-proxies",
        "127.0.0.1",
    ]);
    let addr = server.addr.clone();
    let doc = route(&addr);
    // Through the proxy: the client is the address it appended, after whatever the client
    // itself sent; each has its own two answers.
    for client in ["203.0.113.1", "203.0.113.2"] {
        for n in 1..=2 {
            let r = answer_forwarded("127.0.0.1", &addr, &doc.id, &format!("6.6.6.6, {client}"));
            assert_eq!(r.status, 201, "{client}, answer {n}: {}", r.text());
        }
        let over = answer_forwarded("127.0.0.1", &addr, &doc.id, &format!("7.7.7.7, {client}"));
        assert_eq!(over.status, 429, "{client}: {}", over.text());
    }
    // From a peer that is not a proxy the header is ignored: a new forwarded address each
    // time does not buy more answers.
    for n in 1..=2 {
        let r = answer_forwarded("127.0.0.2", &addr, &doc.id, &format!("198.51.100.{n}"));
        assert_eq!(r.status, 201, "answer {n}: {}", r.text());
    }
    let spoofed = answer_forwarded("127.0.0.2", &addr, &doc.id, "198.51.100.3");
    assert_eq!(spoofed.status, 429, "{}", spoofed.text());
    // Without --trusted-proxies even the proxy's header counts for nothing.
    let plain = backend.serve(&["--answer-limit", "1/min", "--document-answer-limit", "off"]);
    let doc = route(&plain.addr);
    let first = answer_forwarded("127.0.0.1", &plain.addr, &doc.id, "203.0.113.1");
    assert_eq!(first.status, 201, "{}", first.text());
    let second = answer_forwarded("127.0.0.1", &plain.addr, &doc.id, "203.0.113.2");
    assert_eq!(second.status, 429, "{}", second.text());
}

#[test]
fn trusted_proxies_must_be_addresses_or_networks() {
    let out = common::launch::passback()
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--trusted-proxies",
            "proxy.example",
        ])
        .output()
        .expect("run passback");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--trusted-proxies") && err.contains("proxy.example"),
        "{err}"
    );
    // From the environment, the message says which variable held it.
    let out = common::launch::passback()
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("PASSBACK_TRUSTED_PROXIES", "10.0.0.0/40")
        .output()
        .expect("run passback");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("PASSBACK_TRUSTED_PROXIES"), "{err}");
}

#[test]
fn an_answer_is_measured_as_it_would_be_stored() {
    let backend = Backend::sqlite();
    let server = backend.serve(&[]);
    let addr = server.addr.clone();
    let long = "This paragraph is quoted in the export under every comment made on it, so a short comment stores long. ".repeat(2);
    let doc = call(
        &addr,
        "POST",
        "/v1/documents",
        &[("content-type", "text/markdown")],
        format!("{long}\n").as_bytes(),
    );
    assert_eq!(doc.status, 201, "{}", doc.text());
    let id = doc.json()["id"].as_str().unwrap().to_string();
    // Under the 1 MiB body limit as sent…
    let comments: Vec<Value> = (0..40_000)
        .map(|_| json!({ "leaf": 1, "text": "a" }))
        .collect();
    let body = json!({ "responses": { "annotations": comments } });
    let sent = body.to_string().len();
    assert!(sent < 1024 * 1024, "{sent} bytes");
    // …but several times that as stored: refused, naming the flag, and nothing kept.
    let r = answer_from("127.0.0.2", &addr, &id, &body);
    assert_eq!(r.status, 413, "{}", r.text());
    let detail = r.problem_detail();
    assert!(detail.contains("--max-answer-bytes"), "{detail}");
    assert_eq!(backend.rows(&id), (1, 0));
    // A few comments are kept as ever.
    let few = json!({ "responses": { "annotations": [{ "leaf": 1, "text": "a" }] } });
    assert_eq!(answer_from("127.0.0.2", &addr, &id, &few).status, 201);
}

/// Sends `head` and then `body` whole on one connection, as a client that reads only after it
/// has sent everything, and reads the answer. The send must succeed: the server reads what it
/// will not use instead of resetting the connection under it.
fn send_all_then_read(addr: &str, head: &str, body: &[u8]) -> Reply {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).expect("connect");
    s.set_write_timeout(Some(Duration::from_secs(60))).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    s.write_all(head.as_bytes()).expect("send the head");
    s.write_all(body)
        .unwrap_or_else(|e| panic!("{head}: the body could not be sent whole ({e})"));
    let mut got = Vec::new();
    s.read_to_end(&mut got)
        .unwrap_or_else(|e| panic!("{head}: the answer could not be read ({e})"));
    common::http::parse_reply(&got)
}

#[test]
fn over_limit_bodies_get_a_413_the_client_can_read_on_every_route() {
    let backend = Backend::sqlite();
    let server = backend.serve(&[]);
    let addr = server.addr.clone();
    let doc = route(&addr);
    let body = vec![b'a'; 8 << 20];
    let respond = format!("/r/{}/responses", doc.id);
    for (method, path, content_type) in [
        ("POST", "/v1/render", "text/markdown"),
        ("POST", "/v1/validate", "text/markdown"),
        ("POST", "/v1/answers", "application/json"),
        ("POST", "/v1/documents", "text/markdown"),
        ("POST", respond.as_str(), "application/json"),
        ("POST", "/mcp", "application/json"),
        ("GET", "/healthz", "text/plain"),
        ("POST", "/nothing/here", "text/plain"),
    ] {
        let head = format!(
            "{method} {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: {content_type}\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        let r = send_all_then_read(&addr, &head, &body);
        assert_eq!(r.status, 413, "{method} {path}: {}", r.text());
        assert!(r.problem_detail().contains("--max-body"), "{method} {path}");
    }
    // Chunked, so the size shows only as it arrives, on the routes that read a body.
    let chunk = format!("{:x}\r\n{}\r\n", 64 * 1024, "a".repeat(64 * 1024));
    let chunked = format!("{}0\r\n\r\n", chunk.repeat(128));
    for (path, content_type) in [
        ("/v1/render", "text/markdown"),
        ("/v1/documents", "text/markdown"),
        (respond.as_str(), "application/json"),
        ("/mcp", "application/json"),
    ] {
        let head = format!(
            "POST {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: {content_type}\r\naccept: application/json, text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
        );
        let r = send_all_then_read(&addr, &head, chunked.as_bytes());
        assert_eq!(r.status, 413, "chunked {path}: {}", r.text());
        r.problem_detail();
    }
    // The server is none the worse.
    assert_eq!(call(&addr, "GET", "/healthz", &[], b"").status, 200);
}

#[test]
fn serve_refuses_bounds_it_cannot_use_in_one_line() {
    for (args, says) in [
        (&["--answer-limit", "often"][..], "--answer-limit must be"),
        (&["--answer-limit", "0/min"], "--answer-limit must allow"),
        (
            &["--document-answer-limit", "3/day"],
            "--document-answer-limit must be",
        ),
        (
            &["--max-long-polls", "0"],
            "--max-long-polls must be at least 1",
        ),
        (&["--long-polls-per-document", "0"], "at least 1"),
        (&["--long-polls-per-client", "x"], "--long-polls-per-client"),
        (&["--max-answer-bytes", "0"], "at least 1"),
    ] {
        let out = common::passback()
            .args(["serve", "--listen", "127.0.0.1:0", "--store", "off"])
            .args(args)
            .output()
            .expect("run passback serve");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        let last = stderr.lines().last().unwrap_or("");
        assert!(
            last.starts_with("passback: ") && last.contains(says),
            "{args:?}: {stderr}"
        );
    }
}
