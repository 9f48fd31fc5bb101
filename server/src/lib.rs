//! The HTTP render service: a thin hyper 1.x layer over the engine, with routed documents, MCP
//! tools for agents, email messages and the playground.
//!
//! Cargo features, all on by default: `store` (routed documents, in SQLite or PostgreSQL), `mcp`
//! (the MCP tools; it brings `store`), `png` (diagrams drawn as PNG for mail) and `playground`.
//! Built without them, the crate is the render service alone: render, validate, answers,
//! schema, health and metrics (see "A render service without the store" in docs/decisions.md).
//!
//! `run(listener, config, shutdown)` serves until `shutdown` resolves, then stops accepting and
//! lets in-flight requests finish, so tests can bind port 0 and stop the server when done.
//!
//! # Layout
//!
//! Modules depend only on the ones below them in this list (the command line, `cli.rs`, uses
//! the crate from above):
//!
//! | module | what it holds |
//! |---|---|
//! | `serve` | the accept loop, per-client connection slots, graceful shutdown, the metrics address |
//! | `http` | the route table, the dispatcher, one file per resource, request reading and responses |
//! | `mcp` | the MCP tools, and `passback mcp` on stdio (their HTTP entry is `http::mcp`) |
//! | `routing` | the routed documents' rules with no HTTP in them, and their one error enum |
//! | `state` | [`AppState`], what every handler and tool shares (made by [`AppState::new`], here) |
//! | `admission` | the render slots CPU-bound work waits for |
//! | `store` | the routed documents' store: the `Store` trait, SQLite and PostgreSQL |
//! | `webhooks` | the delivery worker for the store's events: signing, the SSRF guard, the HTTP client |
//! | `playground` | the playground's page, its own script and stylesheet, its examples |
//! | `config`, `forwarded`, `metrics`, `limit`, `diagrams`, `pages`, `eml`, `raster`, `blocks`, `host`, `quote`, `log`, `bench` | leaves: the settings, the client's address behind a proxy, the counters, the routing limit, published diagrams, the answers page, email messages, PNG drawing, typed blocks, URL hosts, quoting a client's text, the log, `passback bench` |
//!
//! Compiled only with their feature: `store`, `routing`, `limit`, `forwarded` and `webhooks` (`store`), `mcp` (`mcp`),
//! `raster` (`png`), `playground` (`playground`); in `http`, the files of their routes.
#![forbid(unsafe_code)]

mod admission;
pub mod bench;
mod blocks;
mod config;
pub mod diagrams;
pub mod eml;
#[cfg(feature = "store")]
pub mod forwarded;
mod host;
pub mod http;
#[cfg(feature = "store")]
pub mod limit;
pub mod log;
#[cfg(feature = "mcp")]
pub mod mcp;
mod metrics;
mod pages;
#[cfg(feature = "playground")]
mod playground;
mod quote;
#[cfg(feature = "png")]
mod raster;
#[cfg(feature = "store")]
pub mod routing;
mod serve;
mod state;
#[cfg(feature = "store")]
pub mod store;
#[cfg(feature = "store")]
pub mod webhooks;

pub use config::{Config, answers_action, hash_secret_from};
pub use host::{plain_host, web_host};
pub use metrics::Metrics;
pub use serve::{serve, serve_metrics, shutdown_signal};
pub use state::AppState;

use passback_engine::Engine;
use std::future::Future;
use std::sync::{Arc, Mutex, OnceLock};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

impl AppState {
    /// The state for `config`: its engine and hash key, its store (not yet prepared), its
    /// limits. Made here, above the route table, since the metrics count by route.
    pub fn new(config: Config) -> Self {
        let secret = config.hash_secret.unwrap_or_else(config::random_secret);
        AppState {
            engine: Engine::new(config.cache).with_hash_key(Some(secret)),
            renders: Arc::new(Semaphore::new(config.max_renders.max(1))),
            clients: Mutex::new(std::collections::HashMap::new()),
            metrics: Metrics::new(http::routes::TABLE.iter().map(|r| r.pattern)),
            // A quarter of the render cache's byte bound (at least 1 MiB) for published diagrams.
            diagrams: Mutex::new(diagrams::DiagramStore::new(
                1024,
                (config.cache.max_bytes / 4).max(1 << 20),
            )),
            email_csp: http::response::email_csp(config.public_url.as_deref()),
            image_sources: config.images.csp_sources(),
            #[cfg(feature = "store")]
            routing: config.store.open(config.store_keys.clone()).map(|store| {
                routing::Routing::new(
                    store,
                    config.retention,
                    config.closed_retention,
                    config.max_responses,
                )
            }),
            bound: OnceLock::new(),
            #[cfg(feature = "store")]
            route_limiter: config.route_limit.map(limit::RouteLimiter::new),
            #[cfg(feature = "store")]
            long_polls: Arc::new(limit::LongPolls::new(config.long_polls)),
            #[cfg(feature = "store")]
            answer_limiter: limit::AnswerLimiter::new(
                config.answer_limit,
                config.document_answer_limit,
            ),
            config,
        }
    }
}

/// Serves `listener` until `shutdown` resolves; then finishes in-flight requests (up to the
/// grace period) and returns.
pub async fn run(listener: TcpListener, config: Config, shutdown: impl Future<Output = ()>) {
    serve(listener, Arc::new(AppState::new(config)), shutdown).await
}
