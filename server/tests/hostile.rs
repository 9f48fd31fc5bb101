//! Hostile load over real loopback: documents built to blow up memory or CPU, bodies sent a
//! byte at a time, one host opening connections by the hundred, a log nobody reads. Every
//! request gets an answer (200, 408, 413, 422 or 503), never a reset, and the process stays
//! within a memory bound. No test asserts a wall-clock time.

mod common;

use common::http::{parse_reply, read_reply, request, send, status_of, urlencode};
use common::{Served, Server};
use passback_server::{AppState, Config};
use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket, TcpStream};

const CHOICE: &str = "```single-choice\n{ \"version\": \"1\", \"question\": \"Which?\", \"options\": [\"A\", \"B\"] }\n```\n";

#[tokio::test]
async fn a_form_post_cannot_carry_a_document_render_would_refuse() {
    let server = Server::start(Config::default().with_max_body(2000)).await;
    let doc = format!("{}{CHOICE}", "Some prose.\n\n".repeat(200));
    assert!(doc.len() > 2000);
    // /v1/render refuses it…
    let r = server.post_as("/v1/render", "text/markdown", &doc).await;
    assert_eq!(r.status, 413);
    // …and so does /v1/answers, though its encoded form fits the form allowance.
    let form = format!("pb.source={}&pb.surface=page&b1.pick=0", urlencode(&doc));
    let r = server
        .post_as("/v1/answers", "application/x-www-form-urlencoded", form)
        .await;
    assert_eq!(r.status, 413, "{}", r.text());
    assert!(
        r.text().contains("pb.source") && r.text().contains("--max-body"),
        "{}",
        r.text()
    );
}

#[tokio::test]
async fn with_every_render_slot_taken_a_request_gets_503_and_retry_after() {
    let config = Config::default()
        .with_max_renders(2)
        .with_queue_timeout(Duration::from_millis(200));
    let state = Arc::new(AppState::new(config));
    let server = Server::with_state(state.clone()).await;
    let doc = CHOICE.repeat(100);
    let held = state
        .renders
        .clone()
        .acquire_many_owned(2)
        .await
        .expect("take the slots");
    for path in ["/v1/render", "/v1/validate"] {
        let r = server.post_as(path, "text/markdown", &doc).await;
        assert_eq!(r.status, 503, "{path}");
        assert_eq!(r.header("retry-after"), Some("1"));
        assert!(r.text().contains("busy"), "{}", r.text());
    }
    // Healthz and cached or small renders do not wait for a slot.
    let r = server.get("/healthz").await;
    assert_eq!(r.status, 200);
    drop(held);
    let r = server.post_as("/v1/render", "text/markdown", &doc).await;
    assert_eq!(r.status, 200);
    let m = server.get("/metrics").await;
    assert!(
        m.text().contains("passback_requests_shed_total 2"),
        "{}",
        m.text()
    );
}

#[tokio::test]
async fn a_body_sent_a_byte_at_a_time_runs_out_of_time() {
    let config = Config::default().with_body_timeout(Duration::from_millis(300));
    let server = Server::start(config).await;
    let mut s = TcpStream::connect(server.addr).await.expect("connect");
    s.write_all(b"POST /v1/render HTTP/1.1\r\nhost: t\r\ncontent-type: text/markdown\r\ncontent-length: 1000\r\n\r\nab")
        .await
        .expect("write");
    // Answered before the request timeout.
    let r = read_reply(&mut s, Duration::from_secs(20)).await;
    assert_eq!(r.status, 408);
    assert!(r.text().contains("--body-timeout"), "{}", r.text());
}

/// A connection from `from` (any 127.x address on Linux) to `addr`.
async fn connect_from(from: [u8; 4], addr: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("socket");
    socket
        .bind(SocketAddr::from((from, 0)))
        .expect("bind a loopback address");
    socket.connect(addr).await.expect("connect")
}

#[tokio::test]
async fn one_host_holding_connections_open_cannot_lock_others_out() {
    let config = Config::default()
        .with_max_connections(60)
        .with_max_connections_per_client(20)
        .with_body_timeout(Duration::from_secs(30));
    let server = Server::start(config).await;
    let addr = server.addr;
    // The attacker: 60 connections, each a head promising 1000 bytes and two of them.
    let mut held = Vec::new();
    for _ in 0..60 {
        let mut s = connect_from([127, 0, 0, 1], addr).await;
        let _ = s
            .write_all(b"POST /v1/render HTTP/1.1\r\nhost: t\r\ncontent-length: 1000\r\n\r\nab")
            .await;
        held.push(s);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Another host is still served…
    let mut s = connect_from([127, 0, 0, 2], addr).await;
    s.write_all(b"GET /healthz HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n")
        .await
        .expect("write");
    assert_eq!(
        read_reply(&mut s, Duration::from_secs(20)).await.status,
        200
    );
    // …while the attacker's connections past its share were turned away with a 503.
    let mut turned_away = 0;
    for mut s in held.drain(40..) {
        let mut buf = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut buf)).await;
        turned_away += usize::from(parse_reply(&buf).status == 503);
    }
    assert_eq!(turned_away, 20);
}

#[tokio::test]
async fn content_hashes_are_keyed_with_the_server_secret() {
    let doc = "# Plan\n\nPick one.\n\n".to_string() + CHOICE;
    let etag_from = |secret: Option<[u8; 32]>| {
        let doc = doc.clone();
        async move {
            let config = Config::default().with_hash_secret(secret);
            let server = Server::start(config).await;
            let r = server.post_as("/v1/render", "text/markdown", &doc).await;
            assert_eq!(r.status, 200);
            let etag = r
                .header("etag")
                .expect("an ETag")
                .trim_matches('"')
                .to_string();
            (server, etag)
        }
    };
    let shared = passback_server::hash_secret_from("replicas share this");
    let (server, one) = etag_from(Some(shared)).await;
    let (_b, two) = etag_from(Some(shared)).await;
    let (_c, random) = etag_from(None).await;
    assert_eq!(one, two, "replicas with one secret name renderings alike");
    assert_ne!(one, random);
    // The hash anyone can work out offline names nothing on the server.
    let offline = passback_engine::content_hash(&doc, &passback_engine::Options::default());
    assert_ne!(one, offline);
    let r = server.get(&format!("/v1/render/{offline}")).await;
    assert_eq!(r.status, 404);
    let r = server.get(&format!("/v1/render/{one}")).await;
    assert_eq!(r.status, 200);
}

#[tokio::test]
async fn metrics_can_be_kept_off_the_public_address() {
    let metrics = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let metrics_addr = metrics.local_addr().expect("addr");
    let config = Config::default().with_metrics_listen(Some(metrics_addr));
    let state = Arc::new(AppState::new(config));
    let server = Server::with_state(state.clone()).await;
    tokio::spawn(passback_server::serve_metrics(
        metrics,
        state,
        std::future::pending(),
    ));
    let r = server.get("/metrics").await;
    assert_eq!(r.status, 404);
    let r = send(metrics_addr, request("GET", "/metrics", &[], b"")).await;
    assert_eq!(r.status, 200);
    assert!(r.text().contains("passback_log_lines_dropped_total"));
    let r = send(metrics_addr, request("GET", "/healthz", &[], b"")).await;
    assert_eq!(r.status, 404);
}

#[test]
fn a_log_nobody_reads_never_holds_up_a_request() {
    // Standard error is a pipe this test never reads: it fills after a few hundred lines.
    let served = Served::start(common::NO_STORE, Stdio::piped());
    let healthz = request("GET", "/healthz", &[], b"");
    let answered = (0..6000)
        .filter(|_| status_of(&served.addr, &healthz) == 200)
        .count();
    let metrics = served.get("/metrics").text();
    assert_eq!(answered, 6000);
    let dropped: u64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("passback_log_lines_dropped_total "))
        .and_then(|v| v.trim().parse().ok())
        .expect("the dropped-lines counter");
    assert!(dropped > 0, "{metrics}");
}

/// The worst-case documents of `benches/hostile-load.sh`, each just under 1 MB: a table GFM
/// would fill out, Mermaid `&` groups, deep block quotes, and thousands of component fences.
pub fn hostile_documents() -> Vec<String> {
    const SIZE: usize = 1_000_000;
    let fill = |unit: &str, head: &str| {
        let mut s = head.to_string();
        while s.len() + unit.len() < SIZE {
            s.push_str(unit);
        }
        s
    };
    let table = fill(
        "|b\n",
        &format!("|{}\n|{}\n", "a|".repeat(300), "-|".repeat(300)),
    );
    let side = |p: &str| {
        (0..587)
            .map(|i| format!("{p}{i}"))
            .collect::<Vec<_>>()
            .join("&")
    };
    let chain = format!("graph TD\n{} --> {}", side("l"), side("r"));
    let fence = format!(
        "```mermaid\n{}\n```\n\n",
        serde_json::json!({ "version": "1", "source": chain })
    );
    let mermaid = fill(&fence, "");
    let quotes = format!("{} deep\n", ">".repeat(SIZE - 10));
    let fences = fill(&format!("{CHOICE}\n"), "");
    vec![table, mermaid, quotes, fences]
}

#[test]
fn worst_case_documents_in_parallel_get_answers_within_a_memory_bound() {
    let served = common::serve(common::NO_STORE);
    let docs = Arc::new(hostile_documents());
    let addr = Arc::new(served.addr.clone());
    // 32 at once, each kind of document eight times, each varied so none is a cache hit.
    let workers: Vec<_> = (0..32)
        .map(|i| {
            let (docs, addr) = (docs.clone(), addr.clone());
            std::thread::spawn(move || {
                let mut doc = docs[i % docs.len()].clone();
                doc.truncate(doc.len() - 8);
                doc.push_str(&format!("\n\n{i}\n"));
                let path = ["/v1/render", "/v1/validate"][i / 16 % 2];
                let typed = [("content-type", "text/markdown")];
                status_of(&addr, &request("POST", path, &typed, doc.as_bytes()))
            })
        })
        .collect();
    let statuses: Vec<u16> = workers
        .into_iter()
        .map(|w| w.join().expect("worker"))
        .collect();
    assert!(
        statuses.iter().all(|s| matches!(s, 200 | 413 | 422 | 503)),
        "{statuses:?}"
    );
    assert!(statuses.contains(&200), "{statuses:?}");
    let peak = served.peak_rss_kib();
    assert!(peak < 1024 * 1024, "peak RSS {peak} KiB");
    println!("statuses {statuses:?}; peak RSS {} MiB", peak / 1024);
}
