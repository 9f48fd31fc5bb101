//! Every route, once: its pattern, its methods, whether it may long-poll, and its handler. The
//! dispatcher, the 405 `Allow` header, the per-route metrics and the OpenAPI test all read this
//! table; adding a route is one line here and its handler.
//!
//! A line may carry a `#[cfg(feature = "…")]`: a build without that feature has no such route,
//! so its path answers 404 like any unknown one and it is missing from [`TABLE`].
//!
//! A handler is `async fn(Arc<AppState>, Request<Incoming>, &str) -> Resp`, the `&str` being
//! what the pattern's `{…}` segment matched (empty when it has none). The table is a macro so
//! the call to each handler is written out in one `match`.

#[cfg(feature = "mcp")]
use super::mcp;
#[cfg(feature = "playground")]
use super::playground;
use super::response::Resp;
use super::{answers, assets, meta, render};
#[cfg(feature = "store")]
use super::{documents, events, review};
use crate::state::AppState;
use hyper::Request;
use hyper::body::Incoming;
use std::sync::Arc;

/// One route of the table.
#[derive(Debug)]
pub struct Route {
    /// `/v1/render/{hash}`: each `{…}` stands for one non-empty segment.
    pub pattern: &'static str,
    /// `GET, DELETE`: the methods served (and HEAD wherever GET is).
    pub methods: &'static str,
    /// Whether a request may wait for news up to [`crate::routing::MAX_WAIT`] beyond the
    /// request timeout.
    pub long_poll: bool,
    handler: Handler,
}

macro_rules! routes {
    ($($(#[$when:meta])* $name:ident: $pattern:literal, $methods:literal, $long_poll:literal => $handler:path;)*) => {
        /// Which handler a route calls.
        #[derive(Debug, Clone, Copy)]
        enum Handler {
            $($(#[$when])* $name,)*
        }

        /// The table.
        pub const TABLE: &[Route] = &[
            $($(#[$when])* Route {
                pattern: $pattern,
                methods: $methods,
                long_poll: $long_poll,
                handler: Handler::$name,
            },)*
        ];

        impl Route {
            /// Calls the route's handler. Each handler's future is boxed: unboxed, this future
            /// (spawned once per request) would be as large as the largest handler's state and
            /// be copied on every request, `/healthz` included.
            pub async fn call(&self, state: Arc<AppState>, req: Request<Incoming>, param: &str) -> Resp {
                match self.handler {
                    $($(#[$when])* Handler::$name => Box::pin($handler(state, req, param)).await,)*
                }
            }
        }
    };
}

routes! {
    #[cfg(feature = "playground")]
    Playground: "/", "GET, POST", false => playground::serve;
    Healthz: "/healthz", "GET", false => meta::healthz;
    Metrics: "/metrics", "GET", false => meta::metrics;
    Schema: "/v1/schema.json", "GET", false => meta::schema;
    Openapi: "/v1/openapi.yaml", "GET", false => meta::openapi;
    Render: "/v1/render", "POST", false => render::post;
    Validate: "/v1/validate", "POST", false => render::validate;
    Answers: "/v1/answers", "POST", false => answers::post;
    Cached: "/v1/render/{hash}", "GET", false => render::cached;
    Diagram: "/v1/diagrams/{name}", "GET", false => render::diagram;
    Asset: "/assets/{name}", "GET", false => assets::get;
    #[cfg(feature = "store")]
    Documents: "/v1/documents", "GET, POST", false => documents::collection;
    #[cfg(feature = "store")]
    Document: "/v1/documents/{id}", "GET, PUT, PATCH, DELETE", false => documents::document;
    #[cfg(feature = "store")]
    Responses: "/v1/documents/{id}/responses", "GET", true => documents::responses;
    #[cfg(feature = "store")]
    Deliveries: "/v1/documents/{id}/deliveries", "GET", false => events::deliveries;
    #[cfg(feature = "store")]
    Redeliver: "/v1/documents/{id}/deliveries/{event_id}/redeliver", "POST", false => events::redeliver;
    #[cfg(feature = "store")]
    Events: "/v1/events", "GET", false => events::list;
    #[cfg(feature = "store")]
    KeySelf: "/v1/keys/self", "GET", false => events::key_self;
    #[cfg(feature = "store")]
    Review: "/r/{id}", "GET", false => review::page;
    #[cfg(feature = "store")]
    Respond: "/r/{id}/responses", "POST", false => review::respond_to;
    #[cfg(feature = "store")]
    Receipt: "/r/{id}/sent", "GET", false => review::receipt;
    #[cfg(feature = "mcp")]
    Mcp: "/mcp", "POST", true => mcp::post;
}

impl Route {
    /// The route `path` falls under; looked up once per request.
    pub fn of(path: &str) -> Option<&'static Route> {
        TABLE.iter().find(|r| matches(r.pattern, path))
    }

    /// Whether the route serves `method` (HEAD wherever GET is served: hyper drops the body).
    pub fn serves(&self, method: &hyper::Method) -> bool {
        self.methods.split(", ").any(|m| m == method.as_str())
            || (method == hyper::Method::HEAD && self.methods.contains("GET"))
    }

    /// The `Allow` header of a 405: the methods, and HEAD where GET is.
    pub fn allow(&self) -> String {
        if self.methods.contains("GET") {
            format!("{}, HEAD", self.methods)
        } else {
            self.methods.to_string()
        }
    }

    /// What the pattern's `{…}` segment matched in `path` (a path this route matches); empty
    /// for a pattern without one.
    pub fn param<'p>(&self, path: &'p str) -> &'p str {
        self.pattern.split_once('{').map_or("", |(prefix, _)| {
            path[prefix.len()..].split('/').next().unwrap_or("")
        })
    }
}

/// `/v1/render/{hash}` matches `/v1/render/abc`, and `/r/{id}/responses` matches
/// `/r/abc/responses`: each `{…}` stands for one non-empty segment.
fn matches(pattern: &str, path: &str) -> bool {
    if !pattern.contains('{') {
        return pattern == path;
    }
    let (mut wanted, mut given) = (pattern.split('/'), path.split('/'));
    loop {
        match (wanted.next(), given.next()) {
            (None, None) => return true,
            (Some(w), Some(g)) if w.starts_with('{') => {
                if g.is_empty() {
                    return false;
                }
            }
            (Some(w), Some(g)) if w == g => {}
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_routes_parameter_is_its_one_segment() {
        for (path, pattern, param) in [
            #[cfg(feature = "store")]
            ("/r/abc", "/r/{id}", "abc"),
            #[cfg(feature = "store")]
            ("/r/abc/responses", "/r/{id}/responses", "abc"),
            #[cfg(feature = "store")]
            ("/r/abc/sent", "/r/{id}/sent", "abc"),
            #[cfg(feature = "store")]
            ("/v1/documents/abc", "/v1/documents/{id}", "abc"),
            #[cfg(feature = "store")]
            (
                "/v1/documents/abc/responses",
                "/v1/documents/{id}/responses",
                "abc",
            ),
            ("/v1/render/abc", "/v1/render/{hash}", "abc"),
            ("/assets/x.css", "/assets/{name}", "x.css"),
            ("/v1/render", "/v1/render", ""),
        ] {
            let route = Route::of(path).expect("a route");
            assert_eq!(route.pattern, pattern);
            assert_eq!(route.param(path), param);
        }
        assert!(Route::of("/r/").is_none() && Route::of("/v1/other").is_none());
    }
}
