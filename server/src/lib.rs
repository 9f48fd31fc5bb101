//! The HTTP render service: a thin hyper 1.x layer over the engine.
//!
//! `run(listener, config, shutdown)` serves until `shutdown` resolves, then stops accepting and
//! lets in-flight requests finish, so tests can bind port 0 and stop the server when done.
#![forbid(unsafe_code)]

mod assets;
pub mod bench;
pub mod diagrams;
pub mod eml;
mod examples;
pub mod handlers;
pub mod limit;
pub mod log;
pub mod mcp;
mod metrics;
mod pages;
mod playground;
mod problem;
mod routed;
pub mod store;
pub use problem::{plain_host, web_host};
#[cfg(feature = "png")]
mod raster;

use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use passback_engine::{CacheConfig, Engine};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, LazyLock};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

pub use metrics::Metrics;

/// Service limits and settings (the `serve` flags).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Config {
    pub listen: SocketAddr,
    /// Largest accepted request body, in bytes, chunked or not.
    pub max_body: usize,
    /// How long a client may take to send its request headers.
    pub header_timeout: Duration,
    /// How long one request may take, body read and render included.
    pub request_timeout: Duration,
    /// Most connections served at once; more are turned away with 503.
    pub max_connections: usize,
    /// How long shutdown waits for in-flight requests.
    pub shutdown_grace: Duration,
    pub cache: CacheConfig,
    /// The service's public base URL. When set, email previews link drawn diagrams as
    /// `{public_url}/v1/diagrams/{key}.png` images instead of inline SVG.
    pub public_url: Option<String>,
    /// Where routed documents are kept (`--store`); off by default in the library, so
    /// embedding the server writes no file unless asked to (`passback serve` defaults to
    /// `sqlite:passback.db`).
    pub store: store::StoreConfig,
    /// How long a routed document may live (its `expires_in` at most), and how long its
    /// tombstone is kept after it went.
    pub retention: Duration,
    /// Responses one routed document takes at most.
    pub max_responses: u64,
    /// How long a client may take to send a request's body, from the end of its head.
    pub body_timeout: Duration,
    /// Most connections one client address may hold at once; more are turned away with 503
    /// (so one host cannot take every connection).
    pub max_connections_per_client: usize,
    /// Most renders, validations and exports running at once (they are CPU-bound); the
    /// default is the number of cores.
    pub max_renders: usize,
    /// How long a request waits for a render slot before it is answered 503 with
    /// `Retry-After`.
    pub queue_timeout: Duration,
    /// The render budget's caps (see [`passback_engine::Limits`]).
    pub limits: passback_engine::Limits,
    /// The secret the content hash is keyed with (`--hash-secret`); `None` draws one at
    /// random when the state is made. Replicas behind one address share it so their ETags
    /// agree.
    pub hash_secret: Option<[u8; 32]>,
    /// Serve `/metrics` only on this separate address (`--metrics-listen`); the main address
    /// then answers 404 there.
    pub metrics_listen: Option<SocketAddr>,
    /// Documents one client may route (`POST /v1/documents`, the MCP tool `route_document` over
    /// HTTP) per minute or hour; `None` for no limit.
    pub route_limit: Option<limit::RouteLimit>,
    /// Test hook: serve `GET /__panic`, a route that panics, to prove a panic stays contained.
    #[doc(hidden)]
    pub panic_route: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            max_body: 1024 * 1024,
            header_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            max_connections: 1024,
            shutdown_grace: Duration::from_secs(30),
            cache: CacheConfig::new(4096, 64 * 1024 * 1024),
            panic_route: false,
            public_url: None,
            store: store::StoreConfig::Off,
            retention: Duration::from_secs(30 * 24 * 3600),
            max_responses: 1000,
            body_timeout: Duration::from_secs(10),
            max_connections_per_client: 256,
            max_renders: std::thread::available_parallelism().map_or(2, usize::from),
            queue_timeout: Duration::from_secs(5),
            // A 1 MiB document of components writes about 16 MiB of markup.
            limits: passback_engine::Limits::new(250_000, 20_000, 32 << 20),
            hash_secret: None,
            metrics_listen: None,
            route_limit: None,
        }
    }
}

impl Config {
    pub fn with_max_body(mut self, bytes: usize) -> Self {
        self.max_body = bytes;
        self
    }
    pub fn with_header_timeout(mut self, t: Duration) -> Self {
        self.header_timeout = t;
        self
    }
    pub fn with_request_timeout(mut self, t: Duration) -> Self {
        self.request_timeout = t;
        self
    }
    pub fn with_max_connections(mut self, n: usize) -> Self {
        self.max_connections = n;
        self
    }
    pub fn with_cache(mut self, cache: CacheConfig) -> Self {
        self.cache = cache;
        self
    }
    #[doc(hidden)]
    pub fn with_panic_route(mut self, on: bool) -> Self {
        self.panic_route = on;
        self
    }
    pub fn with_public_url(mut self, url: Option<String>) -> Self {
        self.public_url = url;
        self
    }
    pub fn with_listen(mut self, addr: SocketAddr) -> Self {
        self.listen = addr;
        self
    }
    pub fn with_store(mut self, store: store::StoreConfig) -> Self {
        self.store = store;
        self
    }
    pub fn with_retention(mut self, retention: Duration) -> Self {
        self.retention = retention;
        self
    }
    pub fn with_max_responses(mut self, n: u64) -> Self {
        self.max_responses = n;
        self
    }
    pub fn with_body_timeout(mut self, t: Duration) -> Self {
        self.body_timeout = t;
        self
    }
    pub fn with_max_connections_per_client(mut self, n: usize) -> Self {
        self.max_connections_per_client = n;
        self
    }
    pub fn with_max_renders(mut self, n: usize) -> Self {
        self.max_renders = n;
        self
    }
    pub fn with_queue_timeout(mut self, t: Duration) -> Self {
        self.queue_timeout = t;
        self
    }
    pub fn with_limits(mut self, limits: passback_engine::Limits) -> Self {
        self.limits = limits;
        self
    }
    pub fn with_hash_secret(mut self, secret: Option<[u8; 32]>) -> Self {
        self.hash_secret = secret;
        self
    }
    pub fn with_metrics_listen(mut self, addr: Option<SocketAddr>) -> Self {
        self.metrics_listen = addr;
        self
    }
    pub fn with_route_limit(mut self, limit: Option<limit::RouteLimit>) -> Self {
        self.route_limit = limit;
        self
    }
}

/// A hash secret from a passphrase of any length (`--hash-secret`, `PASSBACK_HASH_SECRET`):
/// replicas given the same passphrase key their hashes alike.
pub fn hash_secret_from(passphrase: &str) -> [u8; 32] {
    blake3::derive_key(
        "passback-render 2026 content hash secret",
        passphrase.as_bytes(),
    )
}

/// A secret drawn from the system's random source, for a server given none.
fn random_secret() -> [u8; 32] {
    let mut key = [0u8; 32];
    if getrandom::fill(&mut key).is_err() {
        // No random source: the time and the process id, hashed. Unguessable enough to keep
        // a passer-by from testing guesses, and the hashes stay valid for this process.
        let seed = format!("{:?} {}", std::time::SystemTime::now(), std::process::id());
        key = *blake3::hash(seed.as_bytes()).as_bytes();
    }
    key
}

/// What every request handler shares.
pub struct AppState {
    pub config: Config,
    pub engine: Engine,
    pub metrics: Metrics,
    /// Diagram SVGs linked from email previews, by key, for `/v1/diagrams/{key}.svg|png`.
    pub diagrams: std::sync::Mutex<diagrams::DiagramStore>,
    /// The email previews' CSP, worked out once from `config.public_url`.
    pub email_csp: hyper::header::HeaderValue,
    /// The store of routed documents and its rules; `None` with `--store off`.
    pub routing: Option<store::Routing>,
    /// Slots for CPU-bound work (renders, validations, exports): see [`handlers::heavy`].
    pub renders: Arc<Semaphore>,
    /// Connections held now, by client address (see `Config::max_connections_per_client`).
    clients: std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, usize>>,
    /// The address the server really listens on (`--listen` may say port 0): review links
    /// start with it when there is no `--public-url`.
    pub bound: std::sync::OnceLock<SocketAddr>,
    /// The per-client buckets of `config.route_limit`.
    pub route_limiter: Option<limit::RouteLimiter>,
}

impl AppState {
    pub fn new(config: Config) -> Self {
        let secret = config.hash_secret.unwrap_or_else(random_secret);
        AppState {
            engine: Engine::new(config.cache).with_hash_key(Some(secret)),
            renders: Arc::new(Semaphore::new(config.max_renders.max(1))),
            clients: std::sync::Mutex::new(std::collections::HashMap::new()),
            metrics: Metrics::default(),
            // A quarter of the render cache's byte bound (at least 1 MiB) for published diagrams.
            diagrams: std::sync::Mutex::new(diagrams::DiagramStore::new(
                1024,
                (config.cache.max_bytes / 4).max(1 << 20),
            )),
            email_csp: problem::email_csp(config.public_url.as_deref()),
            routing: config.store.open().map(|store| store::Routing {
                store,
                retention: config.retention,
                max_responses: config.max_responses,
            }),
            bound: std::sync::OnceLock::new(),
            route_limiter: config.route_limit.map(limit::RouteLimiter::new),
            config,
        }
    }
}

/// Serves `listener` until `shutdown` resolves; then finishes in-flight requests (up to the
/// grace period) and returns.
pub async fn run(listener: TcpListener, config: Config, shutdown: impl Future<Output = ()>) {
    serve(listener, Arc::new(AppState::new(config)), shutdown).await
}

/// [`run`] with the state made beforehand, e.g. to [`store::Store::prepare`] its store first.
pub async fn serve(
    listener: TcpListener,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()>,
) {
    if let Ok(addr) = listener.local_addr() {
        let _ = state.bound.set(addr);
    }
    // Expiry runs beside the server; it touches no SQLite file before one exists.
    let sweeper = state
        .routing
        .clone()
        .map(|routing| tokio::spawn(routed::sweep(routing)));
    let permits = Arc::new(Semaphore::new(state.config.max_connections));
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
            tokio::spawn(turn_away(stream));
            state.metrics.rejected_connection();
            continue;
        };
        // One client address may hold only its share of the connections: a host that opens
        // them by the thousand and sends nothing (or a body a byte at a time) cannot lock
        // everyone else out.
        let Some(client) = ClientSlot::take(&state, peer.ip()) else {
            drop(permit);
            tokio::spawn(turn_away(stream));
            state.metrics.rejected_connection();
            continue;
        };
        let _ = stream.set_nodelay(true);
        let state = state.clone();
        let service = service_fn(move |req: hyper::Request<Incoming>| {
            let state = state.clone();
            async move { Ok::<_, std::convert::Infallible>(handlers::handle(state, req, peer).await) }
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
    if let Some(sweeper) = sweeper {
        sweeper.abort();
    }
    // Long-polls answer now (with what they have) instead of holding up the shutdown.
    if let Some(routing) = &state.routing {
        routing.store.wake_all();
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
                    handlers::metrics(&state)
                } else {
                    problem::problem(
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
/// closing a socket with unread input resets it, and the client could lose the 503.
async fn turn_away(mut stream: tokio::net::TcpStream) {
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
    let _ = tokio::time::timeout(
        Duration::from_secs(2),
        stream.write_all(TURNED_AWAY.as_bytes()),
    )
    .await;
    let _ = stream.shutdown().await;
}

/// The whole 503 `turn_away` writes, built once: it is the same for every refused connection,
/// and refusing is the overload path.
static TURNED_AWAY: LazyLock<String> = LazyLock::new(|| {
    let body = problem::problem_body(
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
