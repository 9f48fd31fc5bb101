//! Webhooks (contract §6.2) over real sockets: the real `passback serve` binary POSTs events to
//! a real receiver in this test (a small hyper server on loopback), which checks each
//! signature by computing the HMAC itself. On SQLite and on PostgreSQL.

mod common;

use base64::Engine as _;
use common::http::{Reply, call};
use common::passback;
use common::store::Backend;
use hmac::{KeyInit, Mac};
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use serde_json::{Value, json};
use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const DOC: &str = "# Launch\n\nWhich region first?\n\n```single-choice\n{\"version\":\"1\",\"question\":\"Which region first?\",\"options\":[\"EU\",\"US\"]}\n```\n";

// ---------------------------------------------------------------------------------------------
// The receiver

/// What the receiver does with the next request.
#[derive(Clone, Copy, Debug)]
enum Answer {
    Status(u16),
    /// Holds the request without answering (until the connection goes).
    Hold,
}

/// One request the receiver took.
#[derive(Clone, Debug)]
struct Received {
    headers: HashMap<String, String>,
    body: String,
    at: Instant,
}

impl Received {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("a JSON body")
    }

    fn id(&self) -> &str {
        &self.headers["webhook-id"]
    }

    /// Whether the signature is `secret`'s over id.timestamp.body, computed here.
    fn verified_with(&self, secret: &str) -> bool {
        let b64 = base64::engine::general_purpose::STANDARD;
        let key = b64
            .decode(secret.strip_prefix("whsec_").expect("whsec_"))
            .expect("base64");
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(&key).expect("a key");
        let signed = format!(
            "{}.{}.{}",
            self.headers["webhook-id"], self.headers["webhook-timestamp"], self.body
        );
        mac.update(signed.as_bytes());
        let expected = format!("v1,{}", b64.encode(mac.finalize().into_bytes()));
        self.headers["webhook-signature"]
            .split(' ')
            .any(|s| s == expected)
    }
}

#[derive(Clone, Default)]
struct Receiver {
    port: u16,
    /// Connections accepted so far.
    connections: Arc<AtomicUsize>,
    got: Arc<Mutex<Vec<Received>>>,
    script: Arc<Mutex<VecDeque<Answer>>>,
}

impl Receiver {
    /// A receiver on 127.0.0.1, answering 200 unless told otherwise.
    fn start() -> Receiver {
        Receiver::start_with(None)
    }

    /// [`Receiver::start`], over TLS with `tls` when given.
    fn start_with(tls: Option<Arc<rustls::ServerConfig>>) -> Receiver {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).expect("nonblocking");
        let mut receiver = Receiver {
            port: listener.local_addr().expect("addr").port(),
            ..Receiver::default()
        };
        let r = receiver.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
                loop {
                    let Ok((stream, _)) = listener.accept().await else {
                        continue;
                    };
                    r.connections.fetch_add(1, Ordering::SeqCst);
                    let (r, tls) = (r.clone(), tls.clone());
                    tokio::spawn(async move {
                        let service = hyper::service::service_fn(move |req| {
                            let r = r.clone();
                            async move { Ok::<_, std::convert::Infallible>(r.take(req).await) }
                        });
                        let http = hyper::server::conn::http1::Builder::new();
                        match tls {
                            None => {
                                let io = hyper_util::rt::TokioIo::new(stream);
                                let _ = http.serve_connection(io, service).await;
                            }
                            Some(config) => {
                                let Ok(stream) =
                                    tokio_rustls::TlsAcceptor::from(config).accept(stream).await
                                else {
                                    return;
                                };
                                let io = hyper_util::rt::TokioIo::new(stream);
                                let _ = http.serve_connection(io, service).await;
                            }
                        }
                    });
                }
            });
        });
        receiver.port = receiver.port.max(1);
        receiver
    }

    async fn take(&self, req: hyper::Request<Incoming>) -> hyper::Response<Full<Bytes>> {
        let headers = req
            .headers()
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
            .collect();
        let body = req.into_body().collect().await.map(|b| b.to_bytes());
        let body = String::from_utf8_lossy(&body.unwrap_or_default()).into_owned();
        self.got.lock().unwrap().push(Received {
            headers,
            body,
            at: Instant::now(),
        });
        let answer = self
            .script
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or(Answer::Status(200));
        let status = match answer {
            Answer::Status(s) => s,
            Answer::Hold => {
                tokio::time::sleep(Duration::from_secs(600)).await;
                200
            }
        };
        let mut r = hyper::Response::new(Full::new(Bytes::from_static(b"ok")));
        *r.status_mut() = hyper::StatusCode::from_u16(status).unwrap();
        r
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hook?from=passback", self.port)
    }

    fn then(&self, answers: &[Answer]) {
        self.script.lock().unwrap().extend(answers.iter().copied());
    }

    fn got(&self) -> Vec<Received> {
        self.got.lock().unwrap().clone()
    }

    /// Waits (30 s at most) until it has taken `n` requests; what it took.
    fn wait_for(&self, n: usize) -> Vec<Received> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let got = self.got();
            if got.len() >= n {
                return got;
            }
            assert!(
                Instant::now() < deadline,
                "the receiver took {} requests, not {n}: {got:?}",
                got.len()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The server

/// A `passback serve` with environment variables of the test's choosing; killed when dropped.
struct Serve {
    child: Child,
    addr: String,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(backend: &Backend, extra: &[&str], env: &[(&str, &str)]) -> Serve {
    let mut child = passback()
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--store",
            &backend.spec(),
        ])
        .args(extra)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start passback serve");
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the listening line");
    let addr = line
        .trim()
        .rsplit("http://")
        .next()
        .expect("addr")
        .to_string();
    Serve { child, addr }
}

/// Quick retries and sweeps, so the tests wait seconds, not minutes.
const FAST: &[(&str, &str)] = &[
    ("PASSBACK_WEBHOOK_RETRY_BASE_MS", "200"),
    ("PASSBACK_SWEEP_EVERY_MS", "300"),
    ("PASSBACK_WEBHOOK_TIMEOUT_MS", "2000"),
];

fn json_call(addr: &str, method: &str, path: &str, auth: &str, body: &Value) -> Reply {
    let bearer = format!("Bearer {auth}");
    let mut headers = vec![("content-type", "application/json")];
    if !auth.is_empty() {
        headers.push(("authorization", bearer.as_str()));
    }
    call(addr, method, path, &headers, body.to_string().as_bytes())
}

/// The page of events at `path` once it lists `n` of them (or after 30 s, as it is then). On
/// PostgreSQL an event is listed once every transaction older than it has ended, so that a cursor
/// never skips one that commits late: another test's open transaction in the same cluster may
/// hold it back for a moment.
fn events_when(addr: &str, path: &str, auth: &str, n: usize) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let page = get(addr, path, auth);
        assert_eq!(page.status, 200, "{}", page.text());
        let page = page.json();
        if page["events"].as_array().map_or(0, Vec::len) >= n || Instant::now() > deadline {
            return page;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn get(addr: &str, path: &str, auth: &str) -> Reply {
    let bearer = format!("Bearer {auth}");
    call(
        addr,
        "GET",
        path,
        &[("authorization", bearer.as_str())],
        b"",
    )
}

/// Routes the document with `extra` fields; the 201's body.
fn route(addr: &str, auth: &str, extra: Value) -> Value {
    let mut body = json!({ "markdown": DOC });
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let r = json_call(addr, "POST", "/v1/documents", auth, &body);
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()
}

fn answer(addr: &str, id: &str) {
    let r = json_call(
        addr,
        "POST",
        &format!("/r/{id}/responses"),
        "",
        &json!({ "responses": { "b1": { "selected": ["EU"] } } }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
}

/// The document's deliveries, once `done` says they are as awaited (30 s at most).
fn deliveries_when(
    addr: &str,
    id: &str,
    token: &str,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let r = get(addr, &format!("/v1/documents/{id}/deliveries"), token);
        assert_eq!(r.status, 200, "{}", r.text());
        let list = r.json()["deliveries"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if done(&list) {
            return list;
        }
        assert!(Instant::now() < deadline, "deliveries: {list:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn backends() -> Vec<Backend> {
    let mut all = vec![Backend::sqlite()];
    all.extend(Backend::postgres());
    all
}

/// `passback keys add NAME [extra]`: the key (stdout) and its webhook secret (said on stderr).
fn add_key(backend: &Backend, name: &str, extra: &[&str]) -> (String, String) {
    let out = passback()
        .args(["keys", "add", name, "--store", &backend.spec()])
        .args(extra)
        .output()
        .expect("run passback keys");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let key = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    let secret = said
        .split_whitespace()
        .find(|w| w.starts_with("whsec_"))
        .expect("a webhook secret")
        .to_string();
    (key, secret)
}

// ---------------------------------------------------------------------------------------------
// The tests

/// A response, a close and an expiry each reach the receiver, signed with the document's own
/// secret, with the contract's body; the delivery log says so.
#[test]
fn responses_closes_and_expiries_are_delivered_signed() {
    for backend in backends() {
        let receiver = Receiver::start();
        let server = serve(&backend, &["--webhook-allow-private"], FAST);
        let addr = server.addr.as_str();
        let routed = route(addr, "", json!({ "callback_url": receiver.url() }));
        let (id, token) = (
            routed["id"].as_str().unwrap(),
            routed["token"].as_str().unwrap(),
        );
        let secret = routed["webhook_secret"].as_str().expect("a webhook secret");
        assert!(
            secret.starts_with("whsec_") && secret.len() >= 6 + 32,
            "{secret}"
        );

        let sent = Instant::now();
        answer(addr, id);
        let got = receiver.wait_for(1);
        eprintln!(
            "answer stored → webhook received: {:?}",
            got[0].at.duration_since(sent)
        );
        let hook = &got[0];
        assert!(hook.verified_with(secret), "{hook:?}");
        assert!(!hook.verified_with("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"));
        assert!(hook.id().starts_with("evt_"), "{hook:?}");
        let ts: i64 = hook.headers["webhook-timestamp"].parse().unwrap();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        assert!((now - ts).abs() < 60, "{ts}");
        assert_eq!(hook.headers["content-type"], "application/json");
        let body = hook.json();
        assert_eq!(body["type"], "response.created");
        assert_eq!(body["document_id"], id);
        assert_eq!(body["response_id"], 1);
        assert!(
            body["created_at"].as_str().unwrap().ends_with('Z'),
            "{body}"
        );

        let closed = json_call(
            addr,
            "PATCH",
            &format!("/v1/documents/{id}"),
            token,
            &json!({ "status": "closed" }),
        );
        assert_eq!(closed.status, 200, "{}", closed.text());
        let got = receiver.wait_for(2);
        assert!(got[1].verified_with(secret));
        assert_eq!(got[1].json()["type"], "document.closed");
        assert!(got[1].json().get("response_id").is_none());
        assert_ne!(got[0].id(), got[1].id());

        let log = deliveries_when(addr, id, token, |l| {
            l.len() == 2 && l.iter().all(|d| d["status"] == "delivered")
        });
        assert_eq!(log[0]["id"], got[0].id());
        assert_eq!(log[0]["attempts"], 1);
        assert_eq!(log[0]["last_status"], 200);

        // Expiry: a document with one second to live.
        let short = route(
            addr,
            "",
            json!({ "callback_url": receiver.url(), "expires_in": 1 }),
        );
        let got = receiver.wait_for(3);
        let expired = &got[2];
        assert!(expired.verified_with(short["webhook_secret"].as_str().unwrap()));
        assert_eq!(expired.json()["type"], "document.expired");
        assert_eq!(expired.json()["document_id"], short["id"]);
        std::thread::sleep(Duration::from_millis(800));
        assert_eq!(receiver.got().len(), 3, "each event once");

        // An agent routes with a callback URL over MCP, and is woken the same way.
        #[cfg(feature = "mcp")]
        {
            let message = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": { "name": "route_document",
                            "arguments": { "markdown": DOC, "callback_url": receiver.url() } } });
            let r = call(
                addr,
                "POST",
                "/mcp",
                &[
                    ("content-type", "application/json"),
                    ("accept", "application/json, text/event-stream"),
                ],
                message.to_string().as_bytes(),
            );
            assert_eq!(r.status, 200, "{}", r.text());
            let routed = r.json()["result"]["structuredContent"].clone();
            let secret = routed["webhook_secret"]
                .as_str()
                .expect("a secret")
                .to_string();
            answer(addr, routed["id"].as_str().unwrap());
            let got = receiver.wait_for(4);
            assert!(got[3].verified_with(&secret), "{:?}", got[3]);
            assert_eq!(got[3].json()["document_id"], routed["id"]);
        }

        // A document without a callback URL has events, delivered to no one.
        let quiet = route(addr, "", json!({}));
        assert!(quiet.get("webhook_secret").is_none(), "{quiet}");
        answer(addr, quiet["id"].as_str().unwrap());
        let log = deliveries_when(
            addr,
            quiet["id"].as_str().unwrap(),
            quiet["token"].as_str().unwrap(),
            |l| l.len() == 1,
        );
        assert_eq!(log[0]["status"], "none");
    }
}

/// A receiver that fails gets the event again, with the same id, after the backoff.
#[test]
fn deliveries_to_one_receiver_share_a_kept_connection() {
    let backend = Backend::sqlite();
    let receiver = Receiver::start();
    let server = serve(&backend, &["--webhook-allow-private"], FAST);
    let addr = server.addr.as_str();
    let routed = route(addr, "", json!({ "callback_url": receiver.url() }));
    let (id, token, secret) = (
        routed["id"].as_str().unwrap(),
        routed["token"].as_str().unwrap(),
        routed["webhook_secret"].as_str().unwrap(),
    );
    // One after the other: each answer's delivery is over (recorded) before the next answer.
    for n in 1..=4 {
        answer(addr, id);
        deliveries_when(addr, id, token, |l| {
            l.iter().filter(|d| d["status"] == "delivered").count() == n
        });
    }
    let got = receiver.got();
    assert_eq!(got.len(), 4, "{got:?}");
    assert!(got.iter().all(|hook| hook.verified_with(secret)));
    assert_eq!(
        receiver.connections.load(Ordering::SeqCst),
        1,
        "four deliveries in turn should share one kept-alive connection"
    );
}

#[test]
fn a_failed_delivery_is_retried_with_the_same_id() {
    for backend in backends() {
        let receiver = Receiver::start();
        receiver.then(&[Answer::Status(500), Answer::Status(503)]);
        let server = serve(&backend, &["--webhook-allow-private"], FAST);
        let addr = server.addr.as_str();
        let routed = route(addr, "", json!({ "callback_url": receiver.url() }));
        let (id, token) = (
            routed["id"].as_str().unwrap(),
            routed["token"].as_str().unwrap(),
        );
        answer(addr, id);
        let got = receiver.wait_for(3);
        // The same event each time; that the waits grow is the schedule's own test
        // (`retries_back_off_and_give_up_after_a_day`), not timed here.
        assert!(got.iter().all(|r| r.id() == got[0].id()), "{got:?}");
        let log = deliveries_when(addr, id, token, |l| l[0]["status"] == "delivered");
        assert_eq!(log[0]["attempts"], 3);
        assert_eq!(log[0]["last_status"], 200);
        assert_eq!(log[0]["last_error"], Value::Null);

        // Redelivery on request: once more, the same id.
        let again = call(
            addr,
            "POST",
            &format!("/v1/documents/{id}/deliveries/{}/redeliver", got[0].id()),
            &[("authorization", &format!("Bearer {token}"))],
            b"",
        );
        assert_eq!(again.status, 202, "{}", again.text());
        let got = receiver.wait_for(4);
        assert_eq!(got[3].id(), got[0].id());
        let unknown = call(
            addr,
            "POST",
            &format!("/v1/documents/{id}/deliveries/evt_nope/redeliver"),
            &[("authorization", &format!("Bearer {token}"))],
            b"",
        );
        assert_eq!(unknown.status, 404, "{}", unknown.text());
    }
}

/// The server killed (SIGKILL) while a delivery waits on the receiver: after a restart, the
/// event is delivered (at least once).
#[test]
fn an_event_survives_a_kill_mid_delivery() {
    for backend in backends() {
        let receiver = Receiver::start();
        receiver.then(&[Answer::Hold]);
        let server = serve(&backend, &["--webhook-allow-private"], FAST);
        let routed = route(&server.addr, "", json!({ "callback_url": receiver.url() }));
        let id = routed["id"].as_str().unwrap().to_string();
        answer(&server.addr, &id);
        let first = receiver.wait_for(1);
        // Mid-delivery: the receiver holds the request.
        drop(server);
        let server = serve(&backend, &["--webhook-allow-private"], FAST);
        let got = receiver.wait_for(2);
        assert_eq!(got[1].id(), first[0].id());
        assert!(got[1].verified_with(routed["webhook_secret"].as_str().unwrap()));
        let log = deliveries_when(&server.addr, &id, routed["token"].as_str().unwrap(), |l| {
            l[0]["status"] == "delivered"
        });
        assert_eq!(log[0]["last_status"], 200);
    }
}

/// Internal addresses are refused at routing without --webhook-allow-private (422 naming the
/// field), and a host name that resolves to one is refused at delivery.
#[test]
fn internal_targets_are_refused() {
    let backend = Backend::sqlite();
    let receiver = Receiver::start();
    let server = serve(&backend, &[], FAST);
    let addr = server.addr.as_str();
    for url in [
        "https://127.0.0.1/hook",
        "https://10.0.0.1/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/hook",
        "https://[::ffff:192.168.0.1]/hook",
        "http://example.com/hook",
        "not a url",
    ] {
        let r = json_call(
            addr,
            "POST",
            "/v1/documents",
            "",
            &json!({ "markdown": DOC, "callback_url": url }),
        );
        assert_eq!(r.status, 422, "{url}: {}", r.text());
        assert!(r.problem_detail().contains("callback_url"), "{}", r.text());
    }
    let r = json_call(
        addr,
        "POST",
        "/v1/documents",
        "",
        &json!({ "markdown": DOC, "callback_url": 42 }),
    );
    assert_eq!(r.status, 422, "{}", r.text());

    // localhost passes the routing check (a name), and is refused when resolved.
    let routed = route(
        addr,
        "",
        json!({ "callback_url": format!("https://localhost:{}/hook", receiver.port) }),
    );
    let (id, token) = (
        routed["id"].as_str().unwrap(),
        routed["token"].as_str().unwrap(),
    );
    answer(addr, id);
    let log = deliveries_when(addr, id, token, |l| l[0]["attempts"] == 1);
    let error = log[0]["last_error"].as_str().unwrap();
    assert!(
        error.contains("refused") && error.contains("loopback"),
        "{error}"
    );
    assert_eq!(log[0]["status"], "pending");
    assert!(receiver.got().is_empty());
}

/// A key's secret (printed by `keys add`, shown by GET /v1/keys/self) signs its documents'
/// webhooks, its callback URL serves documents that name none, `GET /v1/events` pages through
/// its documents' events, and another key sees none of them.
#[test]
fn keys_sign_list_and_keep_to_their_own() {
    for backend in backends() {
        let receiver = Receiver::start();
        let (a, a_secret) = add_key(&backend, "a", &["--callback-url", &receiver.url()]);
        let (b, _) = add_key(&backend, "b", &[]);
        let server = serve(&backend, &["--webhook-allow-private"], FAST);
        let addr = server.addr.as_str();

        let me = get(addr, "/v1/keys/self", &a);
        assert_eq!(me.status, 200, "{}", me.text());
        assert_eq!(me.json()["webhook_secret"], a_secret);
        assert_eq!(me.json()["name"], "a");
        assert_eq!(get(addr, "/v1/keys/self", "").status, 401);

        let one = route(addr, &a, json!({}));
        assert!(one.get("webhook_secret").is_none(), "{one}");
        let two = route(addr, &a, json!({}));
        let ids = [one["id"].as_str().unwrap(), two["id"].as_str().unwrap()];
        answer(addr, ids[0]);
        answer(addr, ids[1]);
        let closed = json_call(
            addr,
            "PATCH",
            &format!("/v1/documents/{}", ids[0]),
            &a,
            &json!({ "status": "closed" }),
        );
        assert_eq!(closed.status, 200);
        let got = receiver.wait_for(3);
        assert!(got.iter().all(|r| r.verified_with(&a_secret)), "{got:?}");

        let page = events_when(addr, "/v1/events?limit=2", &a, 2);
        let events = page["events"].as_array().unwrap();
        assert_eq!(events.len(), 2, "{page}");
        assert_eq!(events[0]["type"], "response.created");
        assert_eq!(events[0]["document_id"], ids[0]);
        let next = page["next"].as_str().unwrap();
        assert_eq!(next, events[1]["id"]);
        let rest = events_when(addr, &format!("/v1/events?since={next}"), &a, 1);
        let rest_events = rest["events"].as_array().unwrap();
        assert_eq!(rest_events.len(), 1, "{rest}");
        assert_eq!(rest_events[0]["type"], "document.closed");
        let last = rest["next"].as_str().unwrap();
        let none = get(addr, &format!("/v1/events?since={last}"), &a).json();
        assert_eq!(none["events"], json!([]));
        assert_eq!(none["next"], last);
        let mut seen: Vec<&str> = events
            .iter()
            .chain(rest_events)
            .map(|e| e["id"].as_str().unwrap())
            .collect();
        let mut delivered: Vec<String> = got.iter().map(|r| r.id().to_string()).collect();
        seen.sort_unstable();
        delivered.sort_unstable();
        assert_eq!(seen, delivered);

        // Key b: no events of a's, a's cursor is not its own, a's deliveries are unknown.
        assert_eq!(get(addr, "/v1/events", &b).json()["events"], json!([]));
        assert_eq!(
            get(addr, &format!("/v1/events?since={next}"), &b).status,
            400
        );
        let theirs = get(addr, &format!("/v1/documents/{}/deliveries", ids[0]), &b);
        assert_eq!(theirs.status, 404, "{}", theirs.text());
        let mine = get(addr, &format!("/v1/documents/{}/deliveries", ids[0]), &a);
        assert_eq!(mine.status, 200, "{}", mine.text());
        assert_eq!(get(addr, "/v1/events", "").status, 401);

        // A rotated secret signs what comes after; for the grace period (24 h by default) the
        // old one signs beside it, so a receiver still on it verifies every delivery.
        let rotate = |extra: &[&str]| {
            let out = passback()
                .args(["keys", "rotate-secret", "a", "--store", &backend.spec()])
                .args(extra)
                .output()
                .expect("run passback keys");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8(out.stdout).unwrap().trim().to_string()
        };
        let rotated = rotate(&[]);
        assert!(
            rotated.starts_with("whsec_") && rotated != a_secret,
            "{rotated}"
        );
        assert_eq!(
            get(addr, "/v1/keys/self", &a).json()["webhook_secret"],
            rotated
        );
        answer(addr, ids[1]);
        let after = receiver.wait_for(4);
        let signatures = &after[3].headers["webhook-signature"];
        assert_eq!(signatures.split(' ').count(), 2, "{signatures}");
        assert!(
            signatures.starts_with("v1,") && !signatures.contains(" v1, "),
            "{signatures}"
        );
        assert!(after[3].verified_with(&rotated), "{:?}", after[3]);
        assert!(after[3].verified_with(&a_secret), "{:?}", after[3]);
        // Rotated again with no grace: only the newest secret signs; neither older one does.
        let newest = rotate(&["--grace", "0"]);
        assert!(
            newest != rotated && newest.starts_with("whsec_"),
            "{newest}"
        );
        answer(addr, ids[1]);
        let later = receiver.wait_for(5);
        let signatures = &later[4].headers["webhook-signature"];
        assert_eq!(signatures.split(' ').count(), 1, "{signatures}");
        assert!(later[4].verified_with(&newest), "{:?}", later[4]);
        assert!(!later[4].verified_with(&rotated));
        assert!(!later[4].verified_with(&a_secret));

        // The same page over MCP, for the key's agent.
        #[cfg(feature = "mcp")]
        {
            let over_mcp = |auth: &str, arguments: Value| {
                let bearer = format!("Bearer {auth}");
                let message = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": { "name": "list_events", "arguments": arguments } });
                let mut headers = vec![
                    ("content-type", "application/json"),
                    ("accept", "application/json, text/event-stream"),
                ];
                if !auth.is_empty() {
                    headers.push(("authorization", bearer.as_str()));
                }
                let r = call(
                    addr,
                    "POST",
                    "/mcp",
                    &headers,
                    message.to_string().as_bytes(),
                );
                assert_eq!(r.status, 200, "{}", r.text());
                r.json()["result"].clone()
            };
            let page = over_mcp(&a, json!({ "since": next }));
            assert_ne!(page["isError"], json!(true), "{page}");
            // The closing event, then the answers given after each rotation.
            let listed = page["structuredContent"]["events"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            assert_eq!(listed.len(), 3, "{page}");
            assert_eq!(listed[0], rest_events[0]);
            assert_eq!(listed[1]["id"], after[3].id());
            assert_eq!(listed[2]["id"], later[4].id());
            let refused = over_mcp(&a, json!({ "limit": 0 }));
            assert_eq!(refused["isError"], json!(true), "{refused}");
        }
    }
}

/// A response stored with `claim_until` comes back with its event's delivery, claimed until
/// then: no worker's claim takes it before, any worker's claim takes it after. Without, the
/// event is due at once and comes back with no delivery.
fn events_are_claimed_at_birth(backend: &Backend) {
    use passback_server::routing::{RouteOptions, Routing};
    use passback_server::store::{Added, NewResponse, now};

    let store = backend.open();
    let routing = Routing::new(store, Duration::from_secs(3600), Duration::ZERO, 10);
    common::store::runtime().block_on(async {
        let store = &routing.store;
        store.prepare().await.expect("prepared");
        let options = |url: Option<&str>| RouteOptions {
            callback_url: url.map(str::to_string),
            ..Default::default()
        };
        let hooked = routing
            .route(
                DOC.into(),
                "h".into(),
                options(Some("https://hooks.example.com/a")),
            )
            .await
            .expect("routed");
        let quiet = routing
            .route(DOC.into(), "h".into(), options(None))
            .await
            .expect("routed");
        let answer = |claim_until: Option<i64>| NewResponse {
            received_at: now(),
            component_inputs: json!({}),
            annotations: json!([]),
            revision: 1,
            claim_until,
            ..Default::default()
        };
        let until = now() + 60_000;
        let Added::Stored(_, Some(delivery)) = store
            .add_response(&hooked.id, answer(Some(until)), 10)
            .await
            .expect("stored")
        else {
            panic!("a claimed event comes back with the response");
        };
        assert_eq!(delivery.to.url, "https://hooks.example.com/a");
        assert!(
            delivery.to.secret.starts_with("whsec_"),
            "{}",
            delivery.to.secret
        );
        assert_eq!(delivery.event.document_id, hooked.id);
        assert_eq!(delivery.event.kind, "response.created");
        assert_eq!(delivery.event.response_id, Some(1));
        assert_eq!(delivery.event.next_attempt_at, Some(until));
        assert!(
            delivery.event.id.starts_with("evt_"),
            "{}",
            delivery.event.id
        );
        // Claimed: no claim takes it before `until`, one does after.
        let before = store
            .claim_events(now(), now() + 1000, 10)
            .await
            .expect("claimed");
        assert!(before.is_empty(), "{before:?}");
        let after = store
            .claim_events(until + 1, until + 1000, 10)
            .await
            .expect("claimed");
        assert_eq!(
            after
                .iter()
                .map(|d| d.event.id.as_str())
                .collect::<Vec<_>>(),
            [delivery.event.id.as_str()]
        );
        // Not claimed: due at once, for any worker, and nothing comes back.
        let Added::Stored(_, None) = store
            .add_response(&hooked.id, answer(None), 10)
            .await
            .expect("stored")
        else {
            panic!("an event not claimed comes back with no delivery");
        };
        let due = store
            .claim_events(now(), now() + 1000, 10)
            .await
            .expect("claimed");
        assert_eq!(due.len(), 1, "{due:?}");
        assert_eq!(due[0].event.response_id, Some(2));
        // A document with no callback URL has nothing to deliver, claimed or not.
        let Added::Stored(_, None) = store
            .add_response(&quiet.id, answer(Some(until)), 10)
            .await
            .expect("stored")
        else {
            panic!("nothing to deliver without a callback URL");
        };
    });
}

#[test]
fn sqlite_events_are_claimed_at_birth() {
    events_are_claimed_at_birth(&Backend::sqlite());
}

#[test]
fn postgres_events_are_claimed_at_birth() {
    if let Some(backend) = Backend::postgres() {
        events_are_claimed_at_birth(&backend);
    }
}

/// Two servers on one PostgreSQL database: each event is delivered once, by one of them.
#[test]
fn two_replicas_deliver_each_event_once() {
    let Some(backend) = Backend::postgres() else {
        return;
    };
    let receiver = Receiver::start();
    let first = serve(&backend, &["--webhook-allow-private"], FAST);
    let second = serve(&backend, &["--webhook-allow-private"], FAST);
    let servers = [first.addr.as_str(), second.addr.as_str()];
    const DOCS: usize = 12;
    for i in 0..DOCS {
        let routed = route(
            servers[i % 2],
            "",
            json!({ "callback_url": receiver.url() }),
        );
        let id = routed["id"].as_str().unwrap();
        answer(servers[(i + 1) % 2], id);
        answer(servers[i % 2], id);
    }
    let got = receiver.wait_for(2 * DOCS);
    // Time for a duplicate to show up, were there one.
    std::thread::sleep(Duration::from_secs(3));
    let got_all = receiver.got();
    assert_eq!(got_all.len(), got.len().max(2 * DOCS), "{got_all:?}");
    let mut per_id: HashMap<&str, usize> = HashMap::new();
    for r in &got_all {
        *per_id.entry(r.id()).or_default() += 1;
    }
    assert_eq!(per_id.len(), 2 * DOCS);
    assert!(per_id.values().all(|&n| n == 1), "{per_id:?}");
}

/// Not a check, a measurement (`cargo test --test webhooks -- --ignored --nocapture`): the time
/// from an answer's POST to its webhook at the receiver, with answers posted by 8 clients at
/// once, at the median and the 99th percentile, on each backend.
#[test]
#[ignore]
fn delivery_latency_under_load() {
    for backend in backends() {
        let receiver = Receiver::start();
        let server = serve(
            &backend,
            &[
                "--webhook-allow-private",
                "--answer-limit",
                "off",
                "--document-answer-limit",
                "off",
            ],
            FAST,
        );
        let addr = server.addr.clone();
        let docs: Vec<String> = (0..20)
            .map(|_| {
                route(&addr, "", json!({ "callback_url": receiver.url() }))["id"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        const PER_CLIENT: usize = 50;
        const CLIENTS: usize = 8;
        let sent: Arc<Mutex<HashMap<(String, u64), Instant>>> = Arc::default();
        let started = Instant::now();
        std::thread::scope(|s| {
            for c in 0..CLIENTS {
                let (addr, docs, sent) = (&addr, &docs, sent.clone());
                s.spawn(move || {
                    for i in 0..PER_CLIENT {
                        let doc = &docs[(c * PER_CLIENT + i) % docs.len()];
                        let at = Instant::now();
                        let r = json_call(
                            addr,
                            "POST",
                            &format!("/r/{doc}/responses"),
                            "",
                            &json!({ "responses": { "b1": { "selected": ["EU"] } } }),
                        );
                        assert_eq!(r.status, 201, "{}", r.text());
                        let n = r.json()["response_id"].as_u64().unwrap();
                        sent.lock().unwrap().insert((doc.clone(), n), at);
                    }
                });
            }
        });
        let elapsed = started.elapsed();
        let total = CLIENTS * PER_CLIENT;
        let got = receiver.wait_for(total);
        let sent = sent.lock().unwrap();
        let mut latencies: Vec<Duration> = got
            .iter()
            .map(|r| {
                let body = r.json();
                let key = (
                    body["document_id"].as_str().unwrap().to_string(),
                    body["response_id"].as_u64().unwrap(),
                );
                r.at.duration_since(sent[&key])
            })
            .collect();
        latencies.sort();
        let at =
            |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
        eprintln!(
            "{}: {total} answers in {elapsed:?} ({:.0}/s); answer POSTed → webhook received: median {:?}, p99 {:?}, max {:?}",
            match backend {
                Backend::Sqlite(_) => "SQLite",
                Backend::Postgres { .. } => "PostgreSQL",
            },
            total as f64 / elapsed.as_secs_f64(),
            at(0.5),
            at(0.99),
            latencies[latencies.len() - 1]
        );
    }
}

fn openssl(dir: &std::path::Path, args: &[&str]) -> bool {
    std::process::Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A CA (`ca.crt`) and a certificate it signed for localhost (`server.crt`, `server.key`) in a
/// fresh folder; `None` without the `openssl` command.
fn certificates(backend: &Backend) -> Option<std::path::PathBuf> {
    let dir = backend.scratch();
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let ca = [
        &["req", "-x509"][..],
        &ec,
        &[
            "-keyout",
            "ca.key",
            "-out",
            "ca.crt",
            "-days",
            "2",
            "-subj",
            "/CN=test-ca",
        ],
    ]
    .concat();
    if !openssl(&dir, &ca) {
        eprintln!("no openssl command: skipping the https receiver");
        return None;
    }
    let csr = [
        &["req"][..],
        &ec,
        &[
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=localhost",
        ],
    ]
    .concat();
    assert!(openssl(&dir, &csr));
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    assert!(openssl(
        &dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.crt",
            "-days",
            "2",
            "-extfile",
            "server.ext"
        ],
    ));
    Some(dir)
}

/// Over https: delivered to a receiver whose certificate the server's CA file vouches for, and
/// refused (as a failed attempt, with the TLS error) by a server that does not trust it.
#[test]
fn https_receivers_are_checked_against_the_ca_certificates() {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let backend = Backend::sqlite();
    let Some(dir) = certificates(&backend) else {
        return;
    };
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(dir.join("server.crt"))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let key = PrivateKeyDer::from_pem_file(dir.join("server.key")).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(certs, key)
    .unwrap();
    let receiver = Receiver::start_with(Some(Arc::new(config)));
    let url = format!("https://localhost:{}/hook", receiver.port);
    let ca = dir.join("ca.crt");
    let mut env = FAST.to_vec();
    env.push(("SSL_CERT_FILE", ca.to_str().unwrap()));

    let trusting = serve(&backend, &["--webhook-allow-private"], &env);
    let routed = route(&trusting.addr, "", json!({ "callback_url": url }));
    answer(&trusting.addr, routed["id"].as_str().unwrap());
    let got = receiver.wait_for(1);
    assert!(got[0].verified_with(routed["webhook_secret"].as_str().unwrap()));
    drop(trusting);

    // The system's CA certificates do not vouch for the test CA.
    let doubting = serve(&backend, &["--webhook-allow-private"], FAST);
    let routed = route(&doubting.addr, "", json!({ "callback_url": url }));
    let (id, token) = (
        routed["id"].as_str().unwrap(),
        routed["token"].as_str().unwrap(),
    );
    answer(&doubting.addr, id);
    let log = deliveries_when(&doubting.addr, id, token, |l| l[0]["attempts"] == 1);
    let error = log[0]["last_error"].as_str().unwrap();
    assert!(error.contains("TLS"), "{error}");
    assert_eq!(receiver.got().len(), 1);
}
