//! The service under faults, over real loopback: oversized heads, connections opened and
//! dropped by the thousand, readers that never read, a flood of concurrent requests, and
//! SIGTERM in the middle of load — with no error, no leak, and nothing lost in flight.

mod common;

use common::http::{parse_reply, request, status_of};
use common::serve;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// A render of the Markdown `body`.
fn render(body: &str) -> Vec<u8> {
    let typed = [("content-type", "text/markdown")];
    request("POST", "/v1/render", &typed, body.as_bytes())
}

const DOC: &str = "```single-choice\n{\"version\":\"1\",\"question\":\"Which?\",\"options\":[\"A\",\"B\"]}\n```\n";

#[test]
fn oversized_heads_get_431() {
    let s = serve(&[]);
    let big = format!(
        "GET /healthz HTTP/1.1\r\nhost: t\r\nx-big: {}\r\nconnection: close\r\n\r\n",
        "a".repeat(100 * 1024)
    );
    assert_eq!(status_of(&s.addr, big.as_bytes()), 431);
    assert_eq!(
        status_of(&s.addr, &request("GET", "/healthz", &[], b"")),
        200
    );
}

#[test]
fn ten_thousand_dropped_connections_leak_nothing() {
    let s = serve(&["--max-connections", "64"]);
    for i in 0..10_000 {
        let mut c = TcpStream::connect(&s.addr).expect("connect");
        if i % 3 == 0 {
            let _ = c.write_all(b"GET /heal");
        }
        drop(c);
    }
    // Every permit comes back: a full set of concurrent requests still gets served.
    std::thread::sleep(Duration::from_millis(300));
    let handles: Vec<_> = (0..64)
        .map(|_| {
            let addr = s.addr.clone();
            std::thread::spawn(move || status_of(&addr, &request("GET", "/healthz", &[], b"")))
        })
        .collect();
    let codes: Vec<u16> = handles
        .into_iter()
        .map(|h| h.join().expect("thread"))
        .collect();
    assert!(codes.iter().all(|c| *c == 200), "{codes:?}");
}

#[test]
fn a_reader_that_never_reads_does_not_hold_up_others() {
    // A body limit above the 2.4 MB document, so it is rendered into a multi-megabyte answer
    // (with the default 1 MiB it is refused at its Content-Length, before it is even sent).
    let s = serve(&["--max-body", "4000000"]);
    let big = "Words and more words for a large page. ".repeat(60_000);
    let mut slow = TcpStream::connect(&s.addr).expect("connect");
    slow.write_all(&render(&big)).expect("send a big render");
    // Never read the multi-megabyte answer; others must still be served.
    for _ in 0..20 {
        assert_eq!(
            status_of(&s.addr, &request("GET", "/healthz", &[], b"")),
            200
        );
    }
    drop(slow);
}

#[test]
fn a_flood_has_no_errors_bounded_memory_and_sigterm_finishes_in_flight_work() {
    let s = serve(&["--cache-bytes", "4194304"]);
    let ok = Arc::new(AtomicUsize::new(0));
    let failed = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..32)
        .map(|w| {
            let (addr, ok, failed) = (s.addr.clone(), ok.clone(), failed.clone());
            std::thread::spawn(move || {
                for i in 0..100 {
                    // A mix: cache hits, misses (distinct documents) and health checks.
                    let code = match i % 3 {
                        0 => status_of(&addr, &render(DOC)),
                        1 => status_of(&addr, &render(&format!("{DOC}\nworker {w} request {i}\n"))),
                        _ => status_of(&addr, &request("GET", "/healthz", &[], b"")),
                    };
                    if code == 200 {
                        ok.fetch_add(1, Ordering::Relaxed)
                    } else {
                        failed.fetch_add(1, Ordering::Relaxed)
                    };
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("worker");
    }
    assert_eq!(
        failed.load(Ordering::Relaxed),
        0,
        "{} requests failed",
        failed.load(Ordering::Relaxed)
    );
    assert_eq!(ok.load(Ordering::Relaxed), 3200);
    let rss = s.peak_rss_kib();
    eprintln!("peak RSS after 3,200 requests: {rss} KiB");
    assert!(rss > 0 && rss < 256 * 1024, "peak RSS {rss} KiB");

    // SIGTERM under load: requests already sent finish with 200; later ones are refused, never
    // cut off halfway.
    let mut s = s;
    let in_flight: Vec<_> = (0..16)
        .map(|i| {
            let addr = s.addr.clone();
            std::thread::spawn(move || {
                let body = format!("{DOC}\nlate {i}\n");
                let raw = render(&body);
                let (head, body) = raw.split_at(raw.len() - body.len());
                let mut c = TcpStream::connect(&addr).expect("connect before the signal");
                c.set_read_timeout(Some(Duration::from_secs(30)))
                    .expect("timeout");
                c.write_all(head).expect("head");
                std::thread::sleep(Duration::from_millis(300));
                c.write_all(body).expect("body after the signal");
                let mut buf = Vec::new();
                let _ = c.read_to_end(&mut buf);
                parse_reply(&buf).status
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    s.terminate();
    let codes: Vec<u16> = in_flight
        .into_iter()
        .map(|h| h.join().expect("client"))
        .collect();
    assert!(
        codes.iter().all(|c| *c == 200),
        "in-flight requests: {codes:?}"
    );
    let status = s.child.wait().expect("exit");
    assert!(status.success(), "{status}");
}

#[test]
fn the_cache_stays_within_its_byte_bound() {
    // 600 distinct 8 KB documents, each rendering to ~96 KB of HTML (~58 MB in all, far past the
    // bound): the cache must evict, and the process must stay within the bound plus a fixed
    // overhead.
    let s = serve(&["--cache-bytes", "2097152"]);
    let section = "Some prose for the reader, settled and written down.\n\n```single-choice\n{\"version\":\"1\",\"question\":\"Which?\",\"options\":[\"A\",\"B\",\"C\"]}\n```\n\n";
    let body = section.repeat(60);
    for i in 0..600 {
        assert_eq!(
            status_of(&s.addr, &render(&format!("{body}\ndocument {i}\n"))),
            200
        );
    }
    let metrics = s.get("/metrics").text();
    let gauge = |name: &str| -> f64 {
        metrics
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
            .unwrap_or(-1.0)
    };
    assert!(gauge("passback_cache_bytes") <= 2_097_152.0, "{metrics}");
    assert!(
        gauge("passback_cache_evictions_total") > 100.0,
        "the cache evicted: {metrics}"
    );
    let rss = s.peak_rss_kib();
    eprintln!("peak RSS with a 2 MiB cache after 600 renders of ~96 KB each: {rss} KiB");
    assert!(
        rss < 2 * 1024 + 96 * 1024,
        "peak RSS {rss} KiB is past the bound plus overhead"
    );
}
