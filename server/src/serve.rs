//! The accept loop: connections taken up to `--max-connections` and each client address's
//! share of them, turned away with a short 503 beyond; each request handed to [`crate::http`];
//! the graceful shutdown; and the separate `--metrics-listen` address.

use crate::http;
use crate::http::response::{problem, problem_body};
use crate::state::AppState;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

/// Serves `listener` with `state` until `shutdown` resolves; then finishes in-flight requests
/// (up to the grace period) and returns. [`crate::run`] makes the state first; made beforehand,
/// it can prepare its store (`Store::prepare`).
pub async fn serve(
    listener: TcpListener,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()>,
) {
    if let Ok(addr) = listener.local_addr() {
        let _ = state.bound.set(addr);
    }
    // Expiry runs beside the server; it touches no SQLite file before one exists.
    #[cfg(feature = "store")]
    let sweeper = state
        .routing
        .clone()
        .map(|routing| tokio::spawn(crate::routing::sweep_every_minute(routing)));
    // The webhook worker delivers the events the store keeps.
    #[cfg(feature = "store")]
    let deliverer = state.routing.clone().map(|routing| {
        let tuning = crate::webhooks::Tuning::from_env(state.config.webhook_allow_private);
        // Responses stored here hand their events straight to this worker.
        let (hand_off, handed) = crate::webhooks::HandOff::new(&tuning);
        routing.deliver_here(hand_off);
        tokio::spawn(crate::webhooks::run_worker(routing.store, tuning, handed))
    });
    let permits = Arc::new(Semaphore::new(state.config.max_connections));
    let lingering = Arc::new(Semaphore::new(MAX_LINGERING));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(state.config.header_timeout)
        .keep_alive(true)
        // Request heads over 64 KiB are answered 431 by hyper.
        .max_header_size(64 * 1024);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(conn) => conn,
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            tokio::spawn(turn_away(stream, state.clone()));
            state.metrics.rejected_connection();
            continue;
        };
        // One client address may hold only its share of the connections: a host that opens
        // them by the thousand and sends nothing (or a body a byte at a time) cannot lock
        // everyone else out.
        let Some(client) = ClientSlot::take(&state, peer.ip()) else {
            drop(permit);
            tokio::spawn(turn_away(stream, state.clone()));
            state.metrics.rejected_connection();
            continue;
        };
        let _ = stream.set_nodelay(true);
        let stream = Lingering::new(stream, lingering.clone());
        let bodies = stream.bodies.clone();
        let state = state.clone();
        let service = service_fn(move |req: hyper::Request<Incoming>| {
            let state = state.clone();
            if carries_body(&req) {
                bodies.store(true, Ordering::Relaxed);
            }
            async move { Ok::<_, std::convert::Infallible>(http::handle(state, req, peer).await) }
        });
        let conn = http.serve_connection(TokioIo::new(stream), service);
        let watched = graceful.watch(conn);
        tokio::spawn(async move {
            // Errors here are clients going away or timing out on headers; nothing to answer.
            if let Err(e) = watched.await {
                tracing::debug!(error = %e, "connection ended");
            }
            drop(client);
            drop(permit);
        });
    }
    drop(listener);
    #[cfg(feature = "store")]
    {
        if let Some(sweeper) = sweeper {
            sweeper.abort();
        }
        // An attempt cut short is tried again after its lease, by this server or another.
        if let Some(deliverer) = deliverer {
            deliverer.abort();
        }
        // Long-polls answer now (with what they have) instead of holding up the shutdown.
        if let Some(routing) = &state.routing {
            routing.store.wake_all();
        }
    }
    let grace = state.config.shutdown_grace;
    if tokio::time::timeout(grace, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("shutdown grace period over; closing remaining connections");
    }
}

/// A connection counted against its client address's share; given back when dropped.
struct ClientSlot {
    state: Arc<AppState>,
    ip: std::net::IpAddr,
}

impl ClientSlot {
    fn take(state: &Arc<AppState>, ip: std::net::IpAddr) -> Option<ClientSlot> {
        let mut clients = state.clients.lock().unwrap_or_else(|e| e.into_inner());
        let held = clients.entry(ip).or_insert(0);
        if *held >= state.config.max_connections_per_client {
            return None;
        }
        *held += 1;
        Some(ClientSlot {
            state: state.clone(),
            ip,
        })
    }
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        let mut clients = self.state.clients.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(held) = clients.get_mut(&self.ip) {
            *held -= 1;
            if *held == 0 {
                clients.remove(&self.ip);
            }
        }
    }
}

/// Closed connections lingering at most at once (see [`Lingering`]); past that one closes at
/// once, as before.
const MAX_LINGERING: usize = 256;
/// How long, and how many bytes, a closed connection reads and drops what its client still
/// sends.
const LINGER_TIME: Duration = Duration::from_secs(5);
const LINGER_BYTES: usize = 64 << 20;

/// Whether a request says it carries a body (a Content-Length over 0, or chunked).
fn carries_body<B>(req: &hyper::Request<B>) -> bool {
    let headers = req.headers();
    headers.contains_key(hyper::header::TRANSFER_ENCODING)
        || headers
            .get(hyper::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim() != "0")
}

/// A connection's socket that, once the connection is over, lingers if a request on it carried
/// a body: a refusal (413, 404, …) is answered before the body is read, and closing a socket
/// with input still arriving resets it, so a client still sending would lose the answer. So
/// the write side is closed (the client sees the end of the answer) and what still comes is
/// read and dropped, for [`LINGER_TIME`] or [`LINGER_BYTES`] at most, before the socket closes.
struct Lingering {
    stream: Option<TcpStream>,
    /// Set when a request on this connection carried a body.
    bodies: Arc<AtomicBool>,
    places: Arc<Semaphore>,
}

impl Lingering {
    fn new(stream: TcpStream, places: Arc<Semaphore>) -> Self {
        Lingering {
            stream: Some(stream),
            bodies: Arc::new(AtomicBool::new(false)),
            places,
        }
    }

    fn stream(&mut self) -> std::io::Result<Pin<&mut TcpStream>> {
        self.stream
            .as_mut()
            .map(Pin::new)
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotConnected))
    }
}

impl AsyncRead for Lingering {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.get_mut().stream() {
            Ok(s) => s.poll_read(cx, buf),
            Err(e) => Poll::Ready(Err(e)),
        }
    }
}

impl AsyncWrite for Lingering {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut().stream() {
            Ok(s) => s.poll_write(cx, buf),
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut().stream() {
            Ok(s) => s.poll_write_vectored(cx, bufs),
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.as_ref().is_some_and(|s| s.is_write_vectored())
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut().stream() {
            Ok(s) => s.poll_flush(cx),
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut().stream() {
            Ok(s) => s.poll_shutdown(cx),
            Err(e) => Poll::Ready(Err(e)),
        }
    }
}

impl Drop for Lingering {
    fn drop(&mut self) {
        let Some(stream) = self.stream.take() else {
            return;
        };
        if !self.bodies.load(Ordering::Relaxed) {
            return;
        }
        let Ok(place) = self.places.clone().try_acquire_owned() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            let _place = place;
            linger(stream).await;
        });
    }
}

/// Closes the write side of `stream`, then reads and drops what the client still sends (see
/// [`Lingering`]).
async fn linger(mut stream: TcpStream) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let _ = stream.shutdown().await;
    let mut chunk = vec![0u8; 16 * 1024];
    let mut read = 0;
    let _ = tokio::time::timeout(LINGER_TIME, async {
        while read < LINGER_BYTES {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => read += n,
            }
        }
    })
    .await;
}

/// Serves `GET /metrics` alone on `listener` (`--metrics-listen`), until `shutdown` resolves:
/// an address only the monitoring reaches, so the public one need not show the counters.
pub async fn serve_metrics(
    listener: TcpListener,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()>,
) {
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(state.config.header_timeout);
    tokio::pin!(shutdown);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(conn) => conn,
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let state = state.clone();
        let service = service_fn(move |req: hyper::Request<Incoming>| {
            let state = state.clone();
            async move {
                let r = if req.uri().path() == "/metrics" {
                    http::meta::metrics_text(&state)
                } else {
                    problem(
                        hyper::StatusCode::NOT_FOUND,
                        "This address serves GET /metrics only.",
                    )
                };
                Ok::<_, std::convert::Infallible>(r)
            }
        });
        let conn = http.serve_connection(TokioIo::new(stream), service);
        tokio::spawn(async move {
            let _ = tokio::time::timeout(Duration::from_secs(60), conn).await;
        });
    }
}

/// Over the connection limit: a short 503 and close. The request head is read first (briefly):
/// closing a socket with unread input resets it, and the client could lose the 503. A
/// `GET /healthz` or `GET /metrics` is answered all the same: the probes that tell an operator
/// the server is full must not be refused for it.
async fn turn_away(mut stream: tokio::net::TcpStream, state: Arc<AppState>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut head = Vec::new();
    let mut chunk = [0u8; 2048];
    let _ = tokio::time::timeout(Duration::from_millis(500), async {
        while head.len() < 16 * 1024 && !head.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => head.extend_from_slice(&chunk[..n]),
            }
        }
    })
    .await;
    let probe = probe_answer(&head, &state);
    let answer = probe.as_deref().unwrap_or(TURNED_AWAY.as_bytes());
    let _ = tokio::time::timeout(Duration::from_secs(2), stream.write_all(answer)).await;
    let _ = stream.shutdown().await;
}

/// The whole answer to a health or metrics probe in `head` (its request line), for a
/// connection over the limit; `None` for any other request.
fn probe_answer(head: &[u8], state: &AppState) -> Option<Vec<u8>> {
    let line = head.split(|&b| b == b'\r').next()?;
    let mut parts = line.split(|&b| b == b' ');
    let (method, target) = (parts.next()?, parts.next()?);
    let path = target.split(|&b| b == b'?').next()?;
    let head_only = match method {
        b"GET" => false,
        b"HEAD" => true,
        _ => return None,
    };
    let (content_type, body) = match path {
        b"/healthz" => ("text/plain; charset=utf-8", "ok\n".to_string()),
        b"/metrics" if state.config.metrics_listen.is_none() => (
            "text/plain; version=0.0.4; charset=utf-8",
            state.metrics.render(state.engine.cache_stats()),
        ),
        _ => return None,
    };
    let mut out = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\nx-content-type-options: nosniff\r\ncache-control: no-store\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    if !head_only {
        out.extend_from_slice(body.as_bytes());
    }
    Some(out)
}

/// The whole 503 `turn_away` writes, built once: it is the same for every refused connection,
/// and refusing is the overload path.
static TURNED_AWAY: LazyLock<String> = LazyLock::new(|| {
    let body = problem_body(
        hyper::StatusCode::SERVICE_UNAVAILABLE,
        "The server is at its connection limit; retry in a moment.".into(),
    );
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/problem+json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
});

/// Resolves on SIGTERM or ctrl-c.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    tracing::info!("shutting down: finishing in-flight requests");
}
