//! The service's limits and settings: [`Config`], what `passback serve`'s flags set.

#[cfg(feature = "store")]
use crate::{limit, store};
use passback_engine::CacheConfig;
use std::net::SocketAddr;
use std::time::Duration;

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
    /// Which images from the web the pages this server renders show (`--images`); the pages'
    /// CSP `img-src` allows exactly those. Email previews show only absolute https ones.
    pub images: passback_engine::ImagePolicy,
    /// Where routed documents are kept (`--store`); off by default in the library, so
    /// embedding the server writes no file unless asked to (`passback serve` defaults to
    /// `sqlite:passback.db`).
    #[cfg(feature = "store")]
    pub store: store::StoreConfig,
    /// How long a routed document may live (its `expires_in` at most), and how long its
    /// tombstone is kept after it went.
    #[cfg(feature = "store")]
    pub retention: Duration,
    /// How long a closed or expired document keeps its text and answers, readable by its
    /// sender, from the moment it stopped taking answers (`--closed-retention`).
    #[cfg(feature = "store")]
    pub closed_retention: Duration,
    /// Responses one routed document takes at most.
    #[cfg(feature = "store")]
    pub max_responses: u64,
    /// The keys routed documents and answers are sealed with at rest (`--store-key-file`);
    /// kept as written when `None`.
    #[cfg(feature = "store")]
    pub store_keys: Option<std::sync::Arc<store::sealed::SealKeys>>,
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
    #[cfg(feature = "store")]
    pub route_limit: Option<limit::RouteLimit>,
    /// Route documents without a sender key even on an address that is not loopback
    /// (`--open-routing`). On loopback routing never needs a key.
    #[cfg(feature = "store")]
    pub open_routing: bool,
    /// Whether webhooks may go to loopback, private and link-local addresses
    /// (`--webhook-allow-private`), and over plain http.
    #[cfg(feature = "store")]
    pub webhook_allow_private: bool,
    /// The reverse proxies whose `X-Forwarded-For` names the client (`--trusted-proxies`);
    /// empty, the default, believes no one.
    #[cfg(feature = "store")]
    pub trusted_proxies: crate::forwarded::TrustedProxies,
    /// Route documents only for a sender key, on loopback too (`--require-keys`): for a server
    /// on loopback behind a reverse proxy that others reach.
    #[cfg(feature = "store")]
    pub require_keys: bool,
    /// Documents one sender key may route in any hour (`--key-documents-per-hour`); `None` for
    /// no limit.
    #[cfg(feature = "store")]
    pub key_documents_per_hour: Option<u64>,
    /// Bytes one sender key's kept documents may take as stored, their responses included
    /// (`--key-max-bytes`); `None` for no limit.
    #[cfg(feature = "store")]
    pub key_max_bytes: Option<u64>,
    /// Long-polls waiting at once: on the server, per document, per client address.
    #[cfg(feature = "store")]
    pub long_polls: limit::LongPollBudget,
    /// Answers one client address may post to one routed document (`--answer-limit`); `None`
    /// for no limit.
    #[cfg(feature = "store")]
    pub answer_limit: Option<limit::RouteLimit>,
    /// Answers one routed document takes from everyone (`--document-answer-limit`); `None` for
    /// no limit.
    #[cfg(feature = "store")]
    pub document_answer_limit: Option<limit::RouteLimit>,
    /// Largest answer kept, in bytes as stored (its answers, comments, export and name as
    /// JSON), not as received (`--max-answer-bytes`).
    #[cfg(feature = "store")]
    pub max_answer_bytes: usize,
    /// The origins whose pages may call the render, validate, answers and schema routes
    /// (`--cors-origin`), as browsers send them (see `http::cors`); empty: no CORS at all.
    pub cors_origins: Vec<String>,
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
            images: passback_engine::ImagePolicy::Https,
            #[cfg(feature = "store")]
            store: store::StoreConfig::Off,
            #[cfg(feature = "store")]
            retention: Duration::from_secs(30 * 24 * 3600),
            #[cfg(feature = "store")]
            closed_retention: Duration::from_secs(30 * 24 * 3600),
            #[cfg(feature = "store")]
            max_responses: 1000,
            #[cfg(feature = "store")]
            store_keys: None,
            body_timeout: Duration::from_secs(10),
            max_connections_per_client: 256,
            max_renders: std::thread::available_parallelism().map_or(2, usize::from),
            queue_timeout: Duration::from_secs(5),
            // A 1 MiB document of components writes about 16 MiB of markup.
            limits: passback_engine::Limits::new(250_000, 20_000, 32 << 20),
            hash_secret: None,
            metrics_listen: None,
            cors_origins: Vec::new(),
            #[cfg(feature = "store")]
            route_limit: None,
            #[cfg(feature = "store")]
            open_routing: false,
            #[cfg(feature = "store")]
            webhook_allow_private: false,
            #[cfg(feature = "store")]
            trusted_proxies: crate::forwarded::TrustedProxies::default(),
            #[cfg(feature = "store")]
            require_keys: false,
            #[cfg(feature = "store")]
            key_documents_per_hour: Some(1000),
            #[cfg(feature = "store")]
            key_max_bytes: Some(1 << 30),
            #[cfg(feature = "store")]
            long_polls: limit::LongPollBudget::default(),
            #[cfg(feature = "store")]
            answer_limit: Some(limit::RouteLimit {
                count: 10,
                period: Duration::from_secs(60),
            }),
            #[cfg(feature = "store")]
            document_answer_limit: Some(limit::RouteLimit {
                count: 60,
                period: Duration::from_secs(60),
            }),
            #[cfg(feature = "store")]
            max_answer_bytes: 2 << 20,
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
    pub fn with_images(mut self, images: passback_engine::ImagePolicy) -> Self {
        self.images = images;
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
    /// These settings with the origins allowed CORS, each as `--cors-origin` takes it; the
    /// error names the first that is not an origin.
    pub fn with_cors_origins<S: AsRef<str>>(mut self, origins: &[S]) -> Result<Self, String> {
        let mut parsed = Vec::with_capacity(origins.len());
        for origin in origins {
            let origin = parse_origin(origin.as_ref())?;
            if !parsed.contains(&origin) {
                parsed.push(origin);
            }
        }
        self.cors_origins = parsed;
        Ok(self)
    }
}

/// The routed documents' settings.
#[cfg(feature = "store")]
impl Config {
    pub fn with_store(mut self, store: store::StoreConfig) -> Self {
        self.store = store;
        self
    }
    pub fn with_retention(mut self, retention: Duration) -> Self {
        self.retention = retention;
        self
    }
    pub fn with_closed_retention(mut self, retention: Duration) -> Self {
        self.closed_retention = retention;
        self
    }
    pub fn with_max_responses(mut self, n: u64) -> Self {
        self.max_responses = n;
        self
    }
    pub fn with_store_keys(
        mut self,
        keys: Option<std::sync::Arc<store::sealed::SealKeys>>,
    ) -> Self {
        self.store_keys = keys;
        self
    }
    pub fn with_route_limit(mut self, limit: Option<limit::RouteLimit>) -> Self {
        self.route_limit = limit;
        self
    }
    #[cfg(feature = "store")]
    pub fn with_webhook_allow_private(mut self, allow: bool) -> Self {
        self.webhook_allow_private = allow;
        self
    }
    #[cfg(feature = "store")]
    pub fn with_trusted_proxies(mut self, proxies: crate::forwarded::TrustedProxies) -> Self {
        self.trusted_proxies = proxies;
        self
    }
    #[cfg(feature = "store")]
    pub fn with_open_routing(mut self, open: bool) -> Self {
        self.open_routing = open;
        self
    }
    pub fn with_require_keys(mut self, required: bool) -> Self {
        self.require_keys = required;
        self
    }
    pub fn with_key_documents_per_hour(mut self, n: Option<u64>) -> Self {
        self.key_documents_per_hour = n;
        self
    }
    pub fn with_key_max_bytes(mut self, n: Option<u64>) -> Self {
        self.key_max_bytes = n;
        self
    }
    pub fn with_long_polls(mut self, budget: limit::LongPollBudget) -> Self {
        self.long_polls = budget;
        self
    }
    pub fn with_answer_limit(mut self, limit: Option<limit::RouteLimit>) -> Self {
        self.answer_limit = limit;
        self
    }
    pub fn with_document_answer_limit(mut self, limit: Option<limit::RouteLimit>) -> Self {
        self.document_answer_limit = limit;
        self
    }
    pub fn with_max_answer_bytes(mut self, bytes: usize) -> Self {
        self.max_answer_bytes = bytes;
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
pub(crate) fn random_secret() -> [u8; 32] {
    let mut key = [0u8; 32];
    if getrandom::fill(&mut key).is_err() {
        // No random source: the time and the process id, hashed. Unguessable enough to keep
        // a passer-by from testing guesses, and the hashes stay valid for this process.
        let seed = format!("{:?} {}", std::time::SystemTime::now(), std::process::id());
        key = *blake3::hash(seed.as_bytes()).as_bytes();
    }
    key
}

/// Where a rendered form posts, from `--answers-action` or the render route's `answers_action`
/// (`name`): empty for no action (the script's "Copy answers" exports), else an address
/// [`passback_engine::is_answers_action`] takes. The CLI and the server refuse anything else
/// with this one message.
pub fn answers_action(name: &str, url: &str) -> Result<Option<String>, String> {
    if url.is_empty() {
        return Ok(None);
    }
    if passback_engine::is_answers_action(url) {
        return Ok(Some(url.to_string()));
    }
    let shown: String = url
        .chars()
        .take(80)
        .collect::<String>()
        .escape_debug()
        .to_string();
    Err(format!(
        "{name} must be a relative address such as /v1/answers or an absolute http:// or https:// one, with no spaces, quotes or angle brackets (or empty for a form with no action), not \"{shown}\""
    ))
}

/// An origin as `--cors-origin` (or `PASSBACK_CORS_ORIGIN`) gives it, as browsers send it:
/// `https://app.example` or `http://localhost:3000`: the scheme and host lowercased, a default
/// port and a trailing `/` dropped. Anything with a path, a query, credentials or a wildcard
/// is refused, and so is `null` (sandboxed frames and `file:` pages share it).
pub(crate) fn parse_origin(given: &str) -> Result<String, String> {
    let refuse = || {
        format!(
            "--cors-origin must be an origin such as https://app.example or http://localhost:3000 (a scheme, a host and maybe a port, nothing after it), not `{given}`"
        )
    };
    let trimmed = given.trim().trim_end_matches('/');
    let lower = trimmed.to_ascii_lowercase();
    let (scheme, rest) = lower.split_once("://").ok_or_else(refuse)?;
    if !matches!(scheme, "http" | "https")
        || rest.is_empty()
        || rest.contains(['/', '?', '#', '@', '*', '\\'])
        || rest.chars().any(|c| c.is_whitespace() || c.is_control())
        || !rest.is_ascii()
    {
        return Err(refuse());
    }
    let (host, port) = match rest.rsplit_once(':') {
        // An IPv6 address holds colons of its own: a port comes after its `]`.
        Some((host, port)) if !port.contains(']') => (host, Some(port)),
        _ => (rest, None),
    };
    if host.is_empty() || port.is_some_and(|p| p.is_empty() || p.parse::<u16>().is_err()) {
        return Err(refuse());
    }
    let default = if scheme == "https" { "443" } else { "80" };
    Ok(match port {
        Some(p) if p != default => format!("{scheme}://{host}:{p}"),
        _ => format!("{scheme}://{host}"),
    })
}

#[cfg(test)]
mod cors_tests {
    use super::*;

    #[test]
    fn origins_are_written_as_browsers_send_them() {
        for (given, want) in [
            ("https://App.Example/", "https://app.example"),
            ("https://app.example:443", "https://app.example"),
            ("http://localhost:3000", "http://localhost:3000"),
            ("http://[::1]:8080", "http://[::1]:8080"),
            ("http://[::1]", "http://[::1]"),
        ] {
            assert_eq!(parse_origin(given).as_deref(), Ok(want), "{given}");
        }
        for bad in [
            "null",
            "*",
            "https://*.example",
            "app.example",
            "https://app.example/path",
            "https://user@app.example",
            "ftp://app.example",
            "https://app.example:x",
            "https://",
        ] {
            assert!(parse_origin(bad).is_err(), "{bad}");
        }
    }
}
