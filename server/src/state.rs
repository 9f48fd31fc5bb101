//! [`AppState`]: what every request handler and tool shares. It is made by `AppState::new`
//! (in the crate root, which sees the route table the metrics count by).

use crate::admission::RenderSlots;
use crate::config::Config;
use crate::diagrams::DiagramStore;
use crate::metrics::Metrics;
use passback_engine::Engine;
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, OnceLock};
use tokio::sync::Semaphore;

/// What every request handler shares.
pub struct AppState {
    pub config: Config,
    pub engine: Engine,
    pub metrics: Metrics,
    /// Diagram SVGs linked from email previews, by key, for `/v1/diagrams/{key}.svg|png`.
    pub diagrams: Mutex<DiagramStore>,
    /// The email previews' CSP, worked out once from `config.public_url`.
    pub email_csp: hyper::header::HeaderValue,
    /// What every page's CSP `img-src` adds for `config.images`, worked out once.
    pub image_sources: String,
    /// The store of routed documents and its rules; `None` with `--store off`.
    #[cfg(feature = "store")]
    pub routing: Option<crate::routing::Routing>,
    /// Slots for CPU-bound work (renders, validations, exports): see [`AppState::slots`].
    pub renders: Arc<Semaphore>,
    /// Connections held now, by client address (see `Config::max_connections_per_client`).
    pub(crate) clients: Mutex<HashMap<IpAddr, usize>>,
    /// The address the server really listens on (`--listen` may say port 0): review links
    /// start with it when there is no `--public-url`.
    pub bound: OnceLock<SocketAddr>,
    /// The per-client buckets of `config.route_limit`.
    #[cfg(feature = "store")]
    pub route_limiter: Option<crate::limit::RouteLimiter>,
    /// The long-polls waiting now, within `config.long_polls`.
    #[cfg(feature = "store")]
    pub long_polls: Arc<crate::limit::LongPolls>,
    /// The buckets of `config.answer_limit` and `config.document_answer_limit`.
    #[cfg(feature = "store")]
    pub answer_limiter: crate::limit::AnswerLimiter,
}

impl AppState {
    /// The render slots, as CPU-bound work waits for them (`--max-renders`,
    /// `--queue-timeout`, the render budget).
    pub fn slots(&self) -> RenderSlots<'_> {
        RenderSlots {
            permits: &self.renders,
            queue_timeout: self.config.queue_timeout,
            limits: self.config.limits,
            metrics: &self.metrics,
        }
    }

    /// Whether routing (and `/mcp`) needs a sender key: with `--require-keys`, or on an
    /// address that is not loopback unless the operator passed `--open-routing`.
    #[cfg(feature = "store")]
    pub fn keys_required(&self) -> bool {
        let listen = self.bound.get().copied().unwrap_or(self.config.listen);
        self.config.require_keys
            || (!self.config.open_routing && !listen.ip().to_canonical().is_loopback())
    }

    /// The origin review links start with: `--public-url`, else the address the server listens
    /// on.
    pub fn origin(&self) -> String {
        match &self.config.public_url {
            Some(url) => url.trim_end_matches('/').to_string(),
            None => format!(
                "http://{}",
                self.bound.get().copied().unwrap_or(self.config.listen)
            ),
        }
    }
}
