//! The webhook POST: one HTTP/1.1 request over a TCP connection to the address [`super::guard`]
//! checked, with TLS (rustls, the system's CA certificates) for `https://`. The whole attempt
//! has a timeout; the answer's status is what counts, its body is read up to [`MAX_ANSWER`]
//! bytes and dropped; a redirect is not followed (it is a failure like any non-2xx).
//!
//! Connections are kept alive and reused ([`IDLE`], at most [`IDLE_PER_KEY`] per key and
//! [`IDLE_IN_ALL`] in all): one whose answer was read to its end goes
//! back to a pool keyed by the checked address, the scheme and the host name, and the next
//! attempt to the same key takes it. Every attempt still resolves and checks the host first, so
//! a pooled connection is used only for an address that passed the check just now.

use super::Tuning;
use super::guard::{self, Target};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// Bytes of a receiver's answer read at most.
pub const MAX_ANSWER: usize = 64 * 1024;

/// How long an unused connection is kept, and how many are kept per key.
const IDLE: Duration = Duration::from_secs(30);
const IDLE_PER_KEY: usize = 32;
/// Idle connections kept in all: many receivers must not hold a file descriptor each.
const IDLE_IN_ALL: usize = 256;

type Sender = hyper::client::conn::http1::SendRequest<Full<Bytes>>;

/// Where a pooled connection goes: the checked address, TLS or not, and the name TLS checked
/// (and `Host` carries).
#[derive(Clone, PartialEq, Eq, Hash)]
struct PoolKey {
    addr: SocketAddr,
    https: bool,
    host: String,
}

/// Open connections waiting for their next request, each with when it went idle.
type Pool = Mutex<HashMap<PoolKey, Vec<(Sender, Instant)>>>;

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(Mutex::default)
}

/// An idle connection to `key` still open and not idle too long, if there is one.
fn take_idle(key: &PoolKey) -> Option<Sender> {
    let mut pool = pool().lock().unwrap_or_else(|e| e.into_inner());
    let idle = pool.get_mut(key)?;
    while let Some((sender, since)) = idle.pop() {
        if !sender.is_closed() && since.elapsed() < IDLE {
            return Some(sender);
        }
    }
    None
}

/// Puts `sender` back for the next attempt to `key` (dropped, which closes it, when the key
/// has enough idle ones).
fn give_back(key: PoolKey, sender: Sender) {
    let mut pool = pool().lock().unwrap_or_else(|e| e.into_inner());
    // Keys whose connections all went stale are dropped as others come back.
    pool.retain(|_, idle| {
        idle.retain(|(s, since)| !s.is_closed() && since.elapsed() < IDLE);
        !idle.is_empty()
    });
    if pool.values().map(Vec::len).sum::<usize>() >= IDLE_IN_ALL {
        return;
    }
    let idle = pool.entry(key).or_default();
    if idle.len() < IDLE_PER_KEY {
        idle.push((sender, Instant::now()));
    }
}

/// POSTs `body` as JSON to `url` with `headers`; the receiver's status, or why there is none.
pub async fn post(
    url: &str,
    headers: &[(&'static str, String)],
    body: String,
    tuning: &Tuning,
) -> Result<u16, String> {
    let target = Target::parse(url)?;
    match tokio::time::timeout(tuning.timeout, attempt(&target, headers, body, tuning)).await {
        Ok(outcome) => outcome,
        Err(_) => Err(format!(
            "no answer within {} ms",
            tuning.timeout.as_millis()
        )),
    }
}

async fn attempt(
    target: &Target,
    headers: &[(&'static str, String)],
    body: String,
    tuning: &Tuning,
) -> Result<u16, String> {
    // A key's callback URL is checked for its shape only when the key is made.
    if !target.https && !tuning.allow_private {
        return Err(
            "refused: http:// callback URLs need --webhook-allow-private; use https://".into(),
        );
    }
    let addr = guard::resolve(target, tuning.allow_private).await?;
    let key = PoolKey {
        addr,
        https: target.https,
        host: target.host.clone(),
    };
    let request = build_request(target, headers, body)?;
    if let Some(sender) = take_idle(&key) {
        // A kept connection the receiver closed meanwhile fails before it is answered: the
        // request goes again on a new connection (a receiver that did get it hears it twice,
        // which at-least-once allows).
        if let Ok(status) = exchange(sender, &key, request.clone()).await {
            return Ok(status);
        }
    }
    let sender = connect(&key).await?;
    exchange(sender, &key, request).await
}

/// A new connection to the checked address, TLS on it for `https://`, and its HTTP/1.1
/// handshake.
async fn connect(key: &PoolKey) -> Result<Sender, String> {
    let tcp = TcpStream::connect(key.addr)
        .await
        .map_err(|e| format!("cannot connect to {}: {e}", key.addr))?;
    let _ = tcp.set_nodelay(true);
    if !key.https {
        return handshake(tcp).await;
    }
    let config = tls_config()?;
    let name = rustls::pki_types::ServerName::try_from(key.host.clone())
        .map_err(|e| format!("{} is not a name TLS can check: {e}", key.host))?;
    let tls = tokio_rustls::TlsConnector::from(config)
        .connect(name, tcp)
        .await
        .map_err(|e| format!("TLS with {} failed: {e}", key.host))?;
    handshake(tls).await
}

async fn handshake<S>(stream: S) -> Result<Sender, String>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("HTTP handshake failed: {e}"))?;
    // The connection runs until its last sender is dropped or the peer closes it.
    tokio::spawn(conn);
    Ok(sender)
}

/// The POST, parts that can be sent again on another connection.
#[derive(Clone)]
struct Request {
    path: String,
    host: String,
    headers: Vec<(&'static str, hyper::header::HeaderValue)>,
    body: Bytes,
}

fn build_request(
    target: &Target,
    headers: &[(&'static str, String)],
    body: String,
) -> Result<Request, String> {
    let host = if target.host.contains(':') {
        format!("[{}]:{}", target.host, target.port)
    } else {
        format!("{}:{}", target.host, target.port)
    };
    let mut values = Vec::with_capacity(headers.len());
    for (name, value) in headers {
        let value = hyper::header::HeaderValue::from_str(value)
            .map_err(|e| format!("bad header {name}: {e}"))?;
        values.push((*name, value));
    }
    Ok(Request {
        path: target.path.clone(),
        host,
        headers: values,
        body: Bytes::from(body),
    })
}

/// Sends `request` on `sender`; the status. The connection goes back to the pool when its
/// answer was read to the end within [`MAX_ANSWER`].
async fn exchange(mut sender: Sender, key: &PoolKey, request: Request) -> Result<u16, String> {
    sender
        .ready()
        .await
        .map_err(|e| format!("the connection closed: {e}"))?;
    let mut req = hyper::Request::post(request.path.as_str())
        .header(hyper::header::HOST, request.host)
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .header(hyper::header::USER_AGENT, "passback-webhooks")
        .body(Full::new(request.body))
        .map_err(|e| format!("cannot build the request: {e}"))?;
    for (name, value) in request.headers {
        req.headers_mut().insert(name, value);
    }
    let answer = sender
        .send_request(req)
        .await
        .map_err(|e| format!("the request failed: {e}"))?;
    let status = answer.status().as_u16();
    // Read a little of the answer; a connection whose answer is longer is closed.
    let mut body = answer.into_body();
    let mut read = 0;
    let mut ended = false;
    while read < MAX_ANSWER {
        match body.frame().await {
            Some(Ok(frame)) => read += frame.data_ref().map_or(0, |d| d.len()),
            Some(Err(_)) => break,
            None => {
                ended = true;
                break;
            }
        }
    }
    if ended {
        give_back(key.clone(), sender);
    }
    Ok(status)
}

/// The TLS settings: ring, and the CA certificates of the system (`SSL_CERT_FILE`, else
/// Debian's, Fedora's or Alpine's bundle).
fn tls_config() -> Result<Arc<rustls::ClientConfig>, String> {
    static CONFIG: OnceLock<Result<Arc<rustls::ClientConfig>, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            use rustls::pki_types::CertificateDer;
            use rustls::pki_types::pem::PemObject;
            let candidates = std::env::var("SSL_CERT_FILE").into_iter().chain(
                [
                    "/etc/ssl/certs/ca-certificates.crt",
                    "/etc/pki/tls/certs/ca-bundle.crt",
                    "/etc/ssl/cert.pem",
                ]
                .map(String::from),
            );
            let mut roots = rustls::RootCertStore::empty();
            for path in candidates {
                if let Ok(certs) = CertificateDer::pem_file_iter(&path) {
                    for cert in certs.flatten() {
                        let _ = roots.add(cert);
                    }
                    if !roots.is_empty() {
                        break;
                    }
                }
            }
            if roots.is_empty() {
                return Err(
                    "no CA certificates found for https webhooks (set SSL_CERT_FILE)".into(),
                );
            }
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map(|b| Arc::new(b.with_root_certificates(roots).with_no_client_auth()))
                .map_err(|e| format!("cannot set up TLS: {e}"))
        })
        .clone()
}
