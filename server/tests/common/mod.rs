//! The harness every server integration test shares: the server in-process or as the real
//! binary ([`launch`]), a raw HTTP/1.1 client ([`http`]), and the store backends ([`store`], in a
//! build with the `store` feature).
// Each test binary compiles its own copy and uses only part of it, re-exports included.
#![allow(dead_code, unused_imports)]

pub mod http;
pub mod launch;
#[cfg(feature = "store")]
pub mod store;

pub use launch::{NO_STORE, Served, Server, passback, serve};

/// Every route the server answers and each of its methods, as (pattern, method) pairs, from the
/// server's own route table: the one place the tests name the module that holds it.
pub fn routes() -> Vec<(String, String)> {
    passback_server::http::routes::TABLE
        .iter()
        .flat_map(|route| {
            route
                .methods
                .split(", ")
                .map(move |m| (route.pattern.to_string(), m.to_string()))
        })
        .collect()
}

/// The OpenAPI description the server serves at `/v1/openapi.yaml`.
pub fn openapi() -> &'static str {
    passback_server::http::OPENAPI
}
