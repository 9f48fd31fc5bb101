//! Routing and the request handlers. Engine work runs on the blocking pool so a large document
//! never stalls the connections that share a worker; a cache hit is answered inline.

// Handlers return a ready response as their error: it is built once per request, so boxing it
// would only add an allocation.
#![allow(clippy::result_large_err)]

use crate::AppState;
use crate::metrics::CacheOutcome;
use crate::pages;
use crate::problem::{Resp, email_html, html, problem, respond};
use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, StatusCode};
use passback_engine::{AnswersErrorKind, Doc, answers_from_json, export, parse_urlencoded};
use passback_engine::{FormOutcome, Format, Options, Surface, assets};
use serde_json::Value;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Answers one request: routes it, bounds its time, turns a panic into a 500 for this request
/// only, counts it, and logs one line (never the document's text).
pub async fn handle(state: Arc<AppState>, mut req: Request<Incoming>, peer: SocketAddr) -> Resp {
    let start = Instant::now();
    req.extensions_mut().insert(crate::limit::ClientAddr(peer));
    let method = req.method().clone();
    let found = route_of(req.uri().path());
    // A fixed label per route, so metrics and logs never carry user-chosen paths.
    let route = found.map_or("other", |&(route, _)| route);
    let timeout = state.config.request_timeout;
    // A long-poll (or the MCP tool list_responses) may wait up to a minute before it has
    // anything to answer.
    let timeout = if route == "/v1/documents/{id}/responses" || route == "/mcp" {
        timeout + crate::routed::MAX_WAIT
    } else {
        timeout
    };
    let task = tokio::spawn(dispatch(state.clone(), req, found));
    let abort = task.abort_handle();
    let response = match tokio::time::timeout(timeout, task).await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) if e.is_panic() => {
            tracing::error!(route, "handler panicked");
            problem(
                StatusCode::INTERNAL_SERVER_ERROR,
                "The server hit an internal error on this request; the service is still running. Please report it.",
            )
        }
        Ok(Err(_)) => problem(
            StatusCode::INTERNAL_SERVER_ERROR,
            "The request was cancelled.",
        ),
        Err(_) => {
            abort.abort();
            problem(
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "The request took longer than {} s and was stopped; send a smaller document.",
                    timeout.as_secs()
                ),
            )
        }
    };
    let status = response.status().as_u16();
    let elapsed = start.elapsed();
    state.metrics.observe(route, status, elapsed);
    tracing::info!(%peer, %method, route, status, micros = elapsed.as_micros() as u64, "request");
    response
}

/// Every route and its methods: the one list the router, the 405 `Allow` header and the
/// OpenAPI test read.
pub const ROUTES: &[(&str, &str)] = &[
    ("/", "GET, POST"),
    ("/healthz", "GET"),
    ("/metrics", "GET"),
    ("/v1/schema.json", "GET"),
    ("/v1/openapi.yaml", "GET"),
    ("/v1/render", "POST"),
    ("/v1/validate", "POST"),
    ("/v1/answers", "POST"),
    ("/v1/render/{hash}", "GET"),
    ("/v1/diagrams/{name}", "GET"),
    ("/assets/{name}", "GET"),
    ("/v1/documents", "POST"),
    ("/v1/documents/{id}", "GET, DELETE"),
    ("/v1/documents/{id}/responses", "GET"),
    ("/r/{id}", "GET"),
    ("/r/{id}/responses", "POST"),
    ("/mcp", "POST"),
];

/// The route `path` falls under, with its methods; looked up once per request.
fn route_of(path: &str) -> Option<&'static (&'static str, &'static str)> {
    ROUTES.iter().find(|(route, _)| route_matches(route, path))
}

/// `/v1/render/{hash}` matches `/v1/render/abc`, and `/r/{id}/responses` matches
/// `/r/abc/responses`: each `{…}` stands for one non-empty segment.
fn route_matches(route: &str, path: &str) -> bool {
    if !route.contains('{') {
        return route == path;
    }
    let (mut wanted, mut given) = (route.split('/'), path.split('/'));
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

/// The OpenAPI description of this API.
pub const OPENAPI: &str = include_str!("../openapi.yaml");

/// `route` is [`route_of`] the request's path, found by `handle`.
async fn dispatch(
    state: Arc<AppState>,
    req: Request<Incoming>,
    route: Option<&'static (&'static str, &'static str)>,
) -> Resp {
    let path = req.uri().path().to_string();
    let method = req.method().clone();
    if state.config.panic_route && path == "/__panic" {
        panic!("the test route panics on purpose");
    }
    let Some(&(pattern, allowed)) = route else {
        return problem(
            StatusCode::NOT_FOUND,
            format!(
                "There is nothing at {}; see GET / for the playground and GET /v1/openapi.yaml for the API.",
                truncate(&path)
            ),
        );
    };
    let method_ok = allowed.split(", ").any(|m| m == method.as_str())
        || (method == Method::HEAD && allowed.contains("GET"));
    if !method_ok {
        let mut r = problem(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("{} does not take {method}; use {allowed}.", truncate(&path)),
        );
        // HEAD is served wherever GET is (hyper drops the body), so the header names it too.
        let allow = if allowed.contains("GET") {
            format!("{allowed}, HEAD")
        } else {
            allowed.to_string()
        };
        if let Ok(v) = HeaderValue::from_str(&allow) {
            r.headers_mut().insert(header::ALLOW, v);
        }
        return r;
    }
    // What a `{…}` in the route stands for: the path after the pattern's fixed prefix.
    let param = || {
        pattern
            .split_once('{')
            .map_or("", |(prefix, _)| &path[prefix.len()..])
    };
    match (pattern, method == Method::POST) {
        ("/healthz", _) => respond(StatusCode::OK, "text/plain; charset=utf-8", "ok\n"),
        // With `--metrics-listen`, the counters are served on that address only.
        ("/metrics", _) if state.config.metrics_listen.is_some() => problem(
            StatusCode::NOT_FOUND,
            "The metrics are served on another address on this server.",
        ),
        ("/metrics", _) => metrics(&state),
        ("/v1/schema.json", _) => {
            let mut r = respond(
                StatusCode::OK,
                "application/schema+json",
                passback_engine::SCHEMA,
            );
            r.headers_mut().insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=3600"),
            );
            r
        }
        ("/v1/openapi.yaml", _) => respond(StatusCode::OK, "application/yaml", OPENAPI),
        ("/", false) => crate::playground::get(state, &req).await,
        ("/", true) => crate::playground::post(state, req).await,
        ("/v1/render", _) => render(state, req).await,
        ("/v1/validate", _) => validate(state, req).await,
        ("/v1/answers", _) => answers_post(state, req).await,
        ("/v1/render/{hash}", _) => cached(&state, &req, param()),
        ("/v1/diagrams/{name}", _) => diagram(state, param()).await,
        ("/v1/documents", _) => crate::routed::create(state, req).await,
        ("/v1/documents/{id}", _) => crate::routed::document(state, req).await,
        ("/v1/documents/{id}/responses", _) => crate::routed::responses(state, req).await,
        ("/r/{id}", _) => crate::routed::review(state, req).await,
        ("/r/{id}/responses", _) => crate::routed::respond_to(state, req).await,
        ("/mcp", _) => crate::mcp::http(state, req).await,
        // `/assets/{name}`, the one route left.
        _ => asset(param()),
    }
}

/// `GET /metrics`: the Prometheus text.
pub(crate) fn metrics(state: &AppState) -> Resp {
    respond(
        StatusCode::OK,
        "text/plain; version=0.0.4; charset=utf-8",
        state.metrics.render(state.engine.cache_stats()),
    )
}

/// Runs CPU-bound `work` (a render, a validation, an export) on the blocking pool once one of
/// the `--max-renders` slots is free, with the render budget in force. A request that waits
/// longer than `--queue-timeout` for a slot is answered 503 with `Retry-After`, so a burst of
/// heavy documents queues for a bounded time instead of piling up memory and latency. The
/// slot is held until the work really ends; if the request goes away first (its time is up,
/// or the client left), the work is told to stop at its next block boundary.
pub(crate) async fn heavy<T: Send + 'static>(
    state: &AppState,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Resp> {
    let slot = tokio::time::timeout(
        state.config.queue_timeout,
        state.renders.clone().acquire_owned(),
    )
    .await;
    let Ok(Ok(slot)) = slot else {
        state.metrics.shed();
        return Err(busy(state));
    };
    let cancel = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let _cancel_on_drop = CancelOnDrop(cancel.clone());
    let limits = state.config.limits;
    let job = move || {
        let _slot = slot;
        passback_engine::with_limits(limits, Some(cancel), work)
    };
    tokio::task::spawn_blocking(job).await.map_err(|_| {
        problem(
            StatusCode::INTERNAL_SERVER_ERROR,
            "The work failed on an internal error; please report it.",
        )
    })
}

/// Sets the flag when dropped: the future waiting for the work was dropped (or finished).
struct CancelOnDrop(Arc<std::sync::atomic::AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The 503 for a request that found no render slot within `--queue-timeout`.
fn busy(state: &AppState) -> Resp {
    let mut r = problem(
        StatusCode::SERVICE_UNAVAILABLE,
        format!(
            "The server is busy: every render slot stayed taken for {} s; retry in a moment.",
            state.config.queue_timeout.as_secs_f64()
        ),
    );
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    r
}

pub(crate) fn truncate(s: &str) -> String {
    s.chars().take(80).collect()
}

/// Whether a POST carries a form (urlencoded, `true`) or JSON (`false`); anything else is the
/// 415 that says to post `what`.
pub(crate) fn form_or_json(req: &Request<Incoming>, what: &str) -> Result<bool, Resp> {
    let content_type = content_type_of(req)?;
    match media(&content_type) {
        "application/x-www-form-urlencoded" => Ok(true),
        "application/json" => Ok(false),
        other => Err(problem(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "Content-Type {} is not accepted here; post {what}.",
                truncate(other)
            ),
        )),
    }
}

/// Reads the whole body within `--max-body`, chunked or not.
/// The request's Content-Type, lowercased; refused (415) when it names a charset other than
/// UTF-8, since the body would be misread.
pub(crate) fn content_type_of(req: &Request<Incoming>) -> Result<Option<String>, Resp> {
    let content_type = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|s| s.to_ascii_lowercase());
    if let Some(charset) = foreign_charset(&content_type) {
        return Err(problem(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "The body must be UTF-8, not charset={charset}; send it as UTF-8 (charset=utf-8, or no charset)."
            ),
        ));
    }
    Ok(content_type)
}

/// The body, up to `max` bytes; the caller has read the Content-Type (`content_type_of`).
pub(crate) async fn read_body(
    req: Request<Incoming>,
    max: usize,
    timeout: Duration,
) -> Result<Bytes, Resp> {
    let (parts, body) = req.into_parts();
    read_body_of(&parts.headers, body, max, timeout).await
}

/// [`read_body`] for a request already taken apart: its headers and its body.
pub(crate) async fn read_body_of(
    headers: &hyper::HeaderMap,
    body: Incoming,
    max: usize,
    timeout: Duration,
) -> Result<Bytes, Resp> {
    // Bodies are read as sent: a compressed one would be rendered as its compressed bytes.
    if let Some(coding) = headers
        .get(header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .filter(|c| !c.trim().eq_ignore_ascii_case("identity"))
    {
        return Err(problem(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "Content-Encoding {} is not supported; send the body uncompressed.",
                truncate(coding)
            ),
        ));
    }
    let too_large = || {
        problem(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "The request body is over the {max}-byte limit; send a smaller document (the limit is set with --max-body)."
            ),
        )
    };
    // A Content-Length over the limit is refused before any of the body is read (and before
    // hyper answers an `Expect: 100-continue`).
    if hyper::body::Body::size_hint(&body).lower() > max as u64 {
        return Err(too_large());
    }
    // A body sent a byte at a time holds a connection: it has `--body-timeout` to arrive.
    let Ok(collected) = tokio::time::timeout(timeout, Limited::new(body, max).collect()).await
    else {
        return Err(problem(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "The request body did not arrive within {} s; send it at once (the limit is set with --body-timeout).",
                timeout.as_secs_f64()
            ),
        ));
    };
    match collected {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e)
            if e.downcast_ref::<http_body_util::LengthLimitError>()
                .is_some() =>
        {
            Err(too_large())
        }
        Err(_) => Err(problem(
            StatusCode::BAD_REQUEST,
            "The request body could not be read to the end; send it again.",
        )),
    }
}

pub(crate) fn utf8(bytes: Bytes) -> Result<String, Resp> {
    String::from_utf8(Vec::from(bytes)).map_err(|e| {
        problem(
            StatusCode::BAD_REQUEST,
            format!(
                "The body is not valid UTF-8 (bad byte at offset {}); send the document as UTF-8.",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

/// The `charset` of a (lowercased) Content-Type when it is not UTF-8 or its ASCII subset: such
/// a body would be misread, so it is refused rather than decoded as UTF-8.
fn foreign_charset(content_type: &Option<String>) -> Option<String> {
    let params = content_type.as_deref()?.split(';').skip(1);
    let charset = params
        .filter_map(|p| p.split_once('='))
        .find(|(k, _)| k.trim() == "charset")
        .map(|(_, v)| v.trim().trim_matches('"'))?;
    (!matches!(charset, "utf-8" | "utf8" | "us-ascii")).then(|| charset.to_string())
}

pub(crate) fn media(content_type: &Option<String>) -> &str {
    content_type
        .as_deref()
        .and_then(|c| c.split(';').next())
        .map_or("", str::trim)
}

/// Reads the body and takes the document out of it, as render, validate and the playground do.
pub(crate) async fn read_document(
    state: &AppState,
    req: Request<Incoming>,
) -> Result<String, Resp> {
    let content_type = content_type_of(&req)?;
    let body = read_body(req, state.config.max_body, state.config.body_timeout).await?;
    document_from(&content_type, body)
}

/// The document from a render/validate body: raw Markdown, `{ "markdown" }`, `{ "blocks" }`, or
/// a form with a `markdown` field.
pub(crate) fn document_from(content_type: &Option<String>, body: Bytes) -> Result<String, Resp> {
    match media(content_type) {
        "" | "text/markdown" | "text/x-markdown" | "text/plain" => utf8(body),
        "application/json" => {
            let text = utf8(body)?;
            let json: Value = serde_json::from_str(&text).map_err(|e| {
                problem(
                    StatusCode::BAD_REQUEST,
                    format!("The body is not valid JSON: {e}."),
                )
            })?;
            let neither = || {
                problem(
                    StatusCode::BAD_REQUEST,
                    "A JSON body needs \"markdown\" (the document) or \"blocks\" (typed blocks).",
                )
            };
            let Value::Object(mut fields) = json else {
                return Err(neither());
            };
            // Taken out of the parsed body, not copied: it can be the whole document.
            let markdown = match fields.remove("markdown") {
                None => None,
                Some(Value::String(s)) => Some(s),
                Some(_) => {
                    return Err(problem(
                        StatusCode::BAD_REQUEST,
                        "\"markdown\" must be a string holding the document.",
                    ));
                }
            };
            // `blocks` takes precedence over `markdown` when both are given (spec §0.5).
            if let Some(blocks) = fields.get("blocks").filter(|b| !b.is_null()) {
                return blocks_to_markdown(blocks)
                    .map_err(|m| problem(StatusCode::UNPROCESSABLE_ENTITY, m));
            }
            markdown.ok_or_else(neither)
        }
        "application/x-www-form-urlencoded" => {
            let pairs = parse_urlencoded(&utf8(body)?)
                .map_err(|e| problem(StatusCode::BAD_REQUEST, format!("{e}.")))?;
            pairs
                .into_iter()
                .find(|(k, _)| k == "markdown")
                .map(|(_, v)| v)
                .ok_or_else(|| {
                    problem(
                        StatusCode::BAD_REQUEST,
                        "The form needs a \"markdown\" field holding the document.",
                    )
                })
        }
        other => Err(problem(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "Content-Type {other} is not accepted; send text/markdown, or application/json with {{\"markdown\"}} or {{\"blocks\"}}."
            ),
        )),
    }
}

/// The typed-blocks form of `route_document`: prose is copied, each component is written as its
/// canonical fence with the JSON serialized by us.
pub fn blocks_to_markdown(blocks: &Value) -> Result<String, String> {
    let list = blocks
        .as_array()
        .ok_or("\"blocks\" must be an array of { \"type\": … } objects.")?;
    let mut parts = Vec::with_capacity(list.len());
    for (i, block) in list.iter().enumerate() {
        let obj = block
            .as_object()
            .ok_or_else(|| format!("blocks[{i}] must be an object with a \"type\"."))?;
        let kind = obj.get("type").and_then(Value::as_str).ok_or_else(|| {
            format!("blocks[{i}] needs a \"type\": \"markdown\" or a component tag.")
        })?;
        if kind == "markdown" {
            let text = obj
                .get("text")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("blocks[{i}] (markdown) needs a \"text\" string."))?;
            if i + 1 < list.len()
                && let Some(open) = passback_engine::markdown::left_open(text)
            {
                return Err(format!(
                    "blocks[{i}] (markdown) ends inside {open}, which would swallow the blocks after it; close it within the block."
                ));
            }
            parts.push(text.to_string());
            continue;
        }
        if passback_engine::Kind::from_tag(kind).is_none() {
            let tags: Vec<&str> = passback_engine::Kind::ALL.iter().map(|k| k.tag()).collect();
            return Err(format!(
                "blocks[{i}] has type \"{kind}\", which is not markdown or a component tag ({}).",
                tags.join(", ")
            ));
        }
        let mut fields = obj.clone();
        // Keys stay in the order the client sent them, as JSON.stringify would write them.
        fields.shift_remove("type");
        let mut fields = Value::Object(fields);
        whole_numbers_as_integers(&mut fields);
        let json = serde_json::to_string(&fields).map_err(|e| format!("blocks[{i}]: {e}"))?;
        parts.push(format!("```{kind}\n{json}\n```"));
    }
    let mut doc = parts.join("\n\n");
    doc.push('\n');
    Ok(doc)
}

/// JSON.stringify writes `1.0` as `1`; serde_json keeps the `.0` of a number it read as a
/// float. Whole numbers within the exactly representable range are written as integers.
fn whole_numbers_as_integers(v: &mut Value) {
    match v {
        Value::Number(n) => {
            if let Some(f) = n.as_f64().filter(|f| n.is_f64() && f.fract() == 0.0)
                && f.abs() < 9_007_199_254_740_992.0
            {
                *n = serde_json::Number::from(f as i64);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_numbers_as_integers),
        Value::Object(members) => members.values_mut().for_each(whole_numbers_as_integers),
        _ => {}
    }
}

/// The render options a query asks for, and whether it asks for a MIME message
/// (`format=eml`).
fn options_from_query(req: &Request<Incoming>) -> Result<(Options, bool), Resp> {
    let mut options = Options::default();
    let mut eml = false;
    let query = req.uri().query().unwrap_or("");
    let pairs =
        parse_urlencoded(query).map_err(|e| problem(StatusCode::BAD_REQUEST, format!("{e}.")))?;
    for (k, v) in pairs {
        match k.as_str() {
            "surface" => {
                options = options.with_surface(Surface::parse(&v).ok_or_else(|| {
                    problem(
                        StatusCode::BAD_REQUEST,
                        format!(
                            "surface must be page, routed or email, not \"{}\".",
                            truncate(&v)
                        ),
                    )
                })?)
            }
            "format" if v == "eml" => eml = true,
            "format" => {
                eml = false;
                options = options.with_format(Format::parse(&v).ok_or_else(|| {
                    problem(
                        StatusCode::BAD_REQUEST,
                        format!(
                            "format must be fragment, page, json, text or eml, not \"{}\".",
                            truncate(&v)
                        ),
                    )
                })?)
            }
            "link_base" => {
                if !passback_engine::is_respond_url(&v) {
                    return Err(problem(
                        StatusCode::BAD_REQUEST,
                        "link_base must be an absolute http:// or https:// address with a host and no spaces (where the document is published; the email's relative links are made absolute against it).",
                    ));
                }
                options = options.with_link_base_url(Some(v));
            }
            "respond_url" => {
                if !passback_engine::is_respond_url(&v) {
                    return Err(problem(
                        StatusCode::BAD_REQUEST,
                        "respond_url must be an absolute http:// or https:// address with a host and no spaces (the email's Respond link).",
                    ));
                }
                options = options.with_respond_url(Some(v));
            }
            _ => {}
        }
    }
    if eml && !options.surface.is_email() {
        return Err(problem(
            StatusCode::BAD_REQUEST,
            "format=eml is a mail message: add surface=email (the other surfaces are web pages).",
        ));
    }
    Ok((options, eml))
}

async fn render(state: Arc<AppState>, req: Request<Incoming>) -> Resp {
    let start = Instant::now();
    let (options, eml) = match options_from_query(&req) {
        Ok(o) => o,
        Err(r) => return r,
    };
    let conditions = Conditions::of(&req);
    let src = match read_document(&state, req).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    if eml {
        let parsed = start.elapsed();
        let began = Instant::now();
        let mut r = eml_message(&state, src, options).await;
        if r.status().is_success() {
            let mut timing = Timing::new();
            timing.add("parse", None, parsed);
            timing.add("render", None, began.elapsed());
            timing.set(&mut r);
        }
        return r;
    }
    let options = options.with_diagram_base_url(state.config.public_url.clone());
    let looking = Instant::now();
    let mut timing = Timing::new();
    timing.add("parse", None, looking - start);
    let lookup = state.engine.lookup(&src, &options);
    let looked = looking.elapsed();
    // A conditional POST: the condition is on the rendering's ETag, the content hash.
    let hash = match &lookup {
        Ok(hit) => hit.hash.as_str(),
        Err(miss) => miss.hash.as_str(),
    };
    if conditions.none_match(hash) || conditions.fail_if_match(hash) {
        return precondition_failed();
    }
    let surface = options.surface;
    let (rendered, rendering) = match lookup {
        Ok(hit) => (hit, None),
        // A small document without diagrams renders in well under a millisecond: handing it to
        // the blocking pool would cost more in thread switches than the render itself.
        // A panic here needs no guard of its own: `handle` runs every request in a task of its
        // own and answers a panicked task with a 500, never a dropped connection.
        Err(miss) if renders_quickly(&src) => {
            let began = Instant::now();
            let rendered = passback_engine::with_limits(state.config.limits, None, || {
                state.engine.render_miss(src, options, miss)
            });
            (rendered, Some(began.elapsed()))
        }
        Err(miss) => {
            let engine_state = state.clone();
            // Timed on the blocking thread: the engine's time, without the wait for a slot.
            let job = move || {
                let began = Instant::now();
                let rendered = engine_state.engine.render_miss(src, options, miss);
                (rendered, began.elapsed())
            };
            match heavy(&state, job).await {
                Ok((r, took)) => (r, Some(took)),
                Err(r) => return r,
            }
        }
    };
    let outcome = match rendering {
        None => CacheOutcome::Hit,
        Some(_) => CacheOutcome::Miss,
    };
    timing.add("cache", Some(outcome.name()), looked);
    if let Some(took) = rendering {
        timing.add("render", None, took);
    }
    state
        .metrics
        .observe_render(surface, outcome, looked + rendering.unwrap_or_default());
    publish_diagrams(&state, &rendered);
    let mut r = rendered_response(&state, &rendered, false);
    timing.set(&mut r);
    r
}

/// A `Server-Timing` header (W3C Server Timing) in the making: what the server spent on a
/// request, each part as `name;desc=…;dur=MILLISECONDS`. Written into one buffer with `itoa`
/// (no `format!`), since the cache-hit path answers in microseconds.
pub(crate) struct Timing(String);

impl Timing {
    pub(crate) fn new() -> Self {
        Timing(String::with_capacity(64))
    }

    pub(crate) fn add(&mut self, name: &str, desc: Option<&str>, took: std::time::Duration) {
        if !self.0.is_empty() {
            self.0.push_str(", ");
        }
        self.0.push_str(name);
        if let Some(desc) = desc {
            self.0.push_str(";desc=");
            self.0.push_str(desc);
        }
        // Milliseconds with three decimals: microsecond resolution.
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        let mut digits = itoa::Buffer::new();
        self.0.push_str(";dur=");
        self.0.push_str(digits.format(micros / 1000));
        let fraction = micros % 1000;
        self.0.push_str(if fraction < 10 {
            ".00"
        } else if fraction < 100 {
            ".0"
        } else {
            "."
        });
        self.0.push_str(digits.format(fraction));
    }

    pub(crate) fn set(self, r: &mut Resp) {
        if let Some(v) = owned_value(self.0) {
            r.headers_mut().insert(
                const { header::HeaderName::from_static("server-timing") },
                v,
            );
        }
    }
}

/// `format=eml`: the email surface as a MIME message, its images inside (contract §8). Drawn on
/// the blocking pool in a render slot, under the render budget: diagrams are rasterized.
async fn eml_message(state: &AppState, src: String, options: Options) -> Resp {
    let job = move || crate::eml::message(&src, &options, crate::eml::draw);
    match heavy(state, job).await {
        Ok(Ok(message)) => {
            let mut r = respond(StatusCode::OK, "message/rfc822", Bytes::from(message.bytes));
            if let Some(v) = owned_value(etag(&message.hash)) {
                r.headers_mut().insert(header::ETAG, v);
            }
            r.headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            r
        }
        Ok(Err(why)) => problem(StatusCode::SERVICE_UNAVAILABLE, format!("{why}.")),
        Err(r) => r,
    }
}

/// [`Engine::render`](passback_engine::Engine::render) for the pages that render a document
/// on the blocking pool (routed review pages, the playground), with the engine's time counted
/// in the render histogram as `POST /v1/render` counts it.
pub(crate) fn render_counted(
    state: &AppState,
    src: &str,
    options: &Options,
) -> Arc<passback_engine::Rendered> {
    let began = Instant::now();
    let (rendered, outcome) = match state.engine.lookup(src, options) {
        Ok(hit) => (hit, CacheOutcome::Hit),
        Err(miss) => (
            state
                .engine
                .render_miss(src.to_owned(), options.clone(), miss),
            CacheOutcome::Miss,
        ),
    };
    state
        .metrics
        .observe_render(options.surface, outcome, began.elapsed());
    rendered
}

/// Documents this small, with no diagram to lay out, render on the async worker.
const INLINE_RENDER_BYTES: usize = 4 * 1024;

fn renders_quickly(src: &str) -> bool {
    src.len() <= INLINE_RENDER_BYTES && !src.contains("mermaid") && !src.contains("\"source\"")
}

/// Keeps the diagrams an email preview links to, so `/v1/diagrams/{key}` can serve them.
fn publish_diagrams(state: &AppState, rendered: &passback_engine::Rendered) {
    if rendered.diagrams.is_empty() {
        return;
    }
    let mut diagrams = state.diagrams.lock().unwrap_or_else(|e| e.into_inner());
    for (key, svg) in &rendered.diagrams {
        diagrams.put(key, svg);
    }
}

/// `GET /v1/diagrams/{key}.svg|png`: a diagram linked from an email preview.
async fn diagram(state: Arc<AppState>, name: &str) -> Resp {
    let (key, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    let diagram = state
        .diagrams
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(key);
    let Some(diagram) = diagram.filter(|_| matches!(ext, "svg" | "png")) else {
        return problem(
            StatusCode::NOT_FOUND,
            "No such diagram (it may have been evicted): render the email preview again to publish it.",
        );
    };
    let mut r = if ext == "svg" {
        let body = Bytes::from_owner(SharedSvg(diagram.svg));
        let mut r = respond(StatusCode::OK, "image/svg+xml", body);
        r.headers_mut().insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'"),
        );
        r
    } else if let Some(png) = diagram.png {
        respond(StatusCode::OK, "image/png", png)
    } else {
        // Drawn once, then kept beside the SVG: the key names fixed content.
        match rasterize(diagram.svg).await {
            Ok(png) => {
                let png = Bytes::from(png);
                state
                    .diagrams
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .put_png(key, png.clone());
                respond(StatusCode::OK, "image/png", png)
            }
            Err(why) => return problem(StatusCode::SERVICE_UNAVAILABLE, why),
        }
    };
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static(IMMUTABLE));
    r
}

#[cfg(feature = "png")]
async fn rasterize(svg: Arc<str>) -> Result<Vec<u8>, String> {
    tokio::task::spawn_blocking(move || crate::raster::png(&svg))
        .await
        .map_err(|_| "drawing the PNG failed on an internal error".to_string())?
}

#[cfg(not(feature = "png"))]
async fn rasterize(_svg: Arc<str>) -> Result<Vec<u8>, String> {
    Err("this server was built without the png feature; fetch the .svg instead".into())
}

/// A cached rendering's body, shared with the cache instead of copied for every response.
struct SharedBody(Arc<passback_engine::Rendered>);

impl AsRef<[u8]> for SharedBody {
    fn as_ref(&self) -> &[u8] {
        self.0.body().as_bytes()
    }
}

/// A published diagram's SVG, shared with the store instead of copied for every response.
struct SharedSvg(Arc<str>);

impl AsRef<[u8]> for SharedSvg {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

/// `Cache-Control` for what a content hash names: it can never change.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// The `ETag` of a rendering: its hash, quoted.
fn etag(hash: &str) -> String {
    // Joined, not `format!`ted: the formatting machinery cost more than the copy, per response.
    ["\"", hash, "\""].concat()
}

/// A header value made of a string just written: the value takes over its buffer instead of
/// copying it into one of its own.
fn owned_value(text: String) -> Option<HeaderValue> {
    HeaderValue::from_maybe_shared(Bytes::from(text)).ok()
}

fn rendered_response(
    state: &AppState,
    rendered: &Arc<passback_engine::Rendered>,
    immutable: bool,
) -> Resp {
    let status = StatusCode::OK;
    let body = Bytes::from_owner(SharedBody(rendered.clone()));
    let mut r = if matches!(rendered.format, Format::Json | Format::Text) {
        respond(status, rendered.content_type(), body)
    } else if rendered.surface.is_email() {
        email_html(status, body, state.email_csp.clone())
    } else {
        html(status, body, rendered.frame_src)
    };
    let h = r.headers_mut();
    if let Some(v) = owned_value(etag(&rendered.hash)) {
        h.insert(header::ETAG, v);
    }
    if let Some(v) = owned_value(["/v1/render/", rendered.hash.as_str()].concat()) {
        h.insert(header::CONTENT_LOCATION, v);
    }
    let cache = if immutable {
        const { HeaderValue::from_static(IMMUTABLE) }
    } else {
        const { HeaderValue::from_static("no-cache") }
    };
    h.insert(header::CACHE_CONTROL, cache);
    r
}

fn cached(state: &AppState, req: &Request<Incoming>, hash: &str) -> Resp {
    let valid = hash.len() == 32 && hash.bytes().all(|b| b.is_ascii_hexdigit());
    let Some(rendered) = valid.then(|| state.engine.cached(hash)).flatten() else {
        return problem(
            StatusCode::NOT_FOUND,
            "That rendering is not in the cache (it may have been evicted); POST the document to /v1/render again.",
        );
    };
    let conditions = Conditions::of(req);
    if conditions.fail_if_match(hash) {
        return precondition_failed();
    }
    if conditions.none_match(hash) {
        let mut r = respond(
            StatusCode::NOT_MODIFIED,
            rendered.content_type(),
            Bytes::new(),
        );
        r.headers_mut().remove(header::CONTENT_TYPE);
        if let Some(v) = owned_value(etag(hash)) {
            r.headers_mut().insert(header::ETAG, v);
        }
        r.headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static(IMMUTABLE));
        return r;
    }
    rendered_response(state, &rendered, true)
}

/// A request's `If-Match` and `If-None-Match` headers (RFC 9110 §13.1).
struct Conditions {
    if_match: Option<String>,
    if_none_match: Option<String>,
}

impl Conditions {
    fn of(req: &Request<Incoming>) -> Conditions {
        let get = |name| {
            req.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        Conditions {
            if_match: get(header::IF_MATCH),
            if_none_match: get(header::IF_NONE_MATCH),
        }
    }

    /// Whether `If-None-Match` lists the ETag of `hash` (or is `*`): a GET answers 304, any
    /// other method 412.
    fn none_match(&self, hash: &str) -> bool {
        self.if_none_match
            .as_deref()
            .is_some_and(|v| lists(v, hash, true))
    }

    /// Whether an `If-Match` is given and does not list the ETag of `hash` (strong
    /// comparison): 412.
    fn fail_if_match(&self, hash: &str) -> bool {
        self.if_match
            .as_deref()
            .is_some_and(|v| !lists(v, hash, false))
    }
}

/// Whether an entity-tag list (`*`, or tags separated by commas) holds [`etag`]`(hash)`,
/// compared in place so no tag is built for a request without conditions; `weak` allows `W/`
/// tags (If-None-Match compares weakly, If-Match strongly).
fn lists(header: &str, hash: &str, weak: bool) -> bool {
    header.trim() == "*"
        || header.split(',').any(|t| {
            let t = t.trim();
            let t = if weak { t.trim_start_matches("W/") } else { t };
            t.strip_prefix('"').and_then(|t| t.strip_suffix('"')) == Some(hash)
        })
}

fn precondition_failed() -> Resp {
    problem(
        StatusCode::PRECONDITION_FAILED,
        "The request's If-Match or If-None-Match condition does not hold for this rendering.",
    )
}

fn asset(name: &str) -> Resp {
    match assets::by_name(name).or_else(|| crate::assets::by_name(name)) {
        Some((content_type, text)) => {
            let mut r = respond(StatusCode::OK, content_type, text);
            r.headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static(IMMUTABLE));
            r
        }
        None => problem(
            StatusCode::NOT_FOUND,
            format!(
                "No asset named {}; asset names carry a content hash, take them from a rendered page.",
                truncate(name)
            ),
        ),
    }
}

async fn validate(state: Arc<AppState>, req: Request<Incoming>) -> Resp {
    let start = Instant::now();
    let src = match read_document(&state, req).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let mut timing = Timing::new();
    timing.add("parse", None, start.elapsed());
    let job = move || {
        let began = Instant::now();
        let v = passback_engine::validate(&src);
        (v, began.elapsed())
    };
    match heavy(&state, job).await {
        Ok((v, took)) => {
            timing.add("validate", None, took);
            let mut r = respond(
                StatusCode::OK,
                "application/json",
                serde_json::to_string(&v).unwrap_or_default(),
            );
            timing.set(&mut r);
            r
        }
        Err(r) => r,
    }
}

/// Whether the client asked for HTML over Markdown: `text/html` must be acceptable and
/// preferred to `text/markdown` by the Accept header's quality values (a browser's
/// `text/html,…,*/*;q=0.8` is; `*/*`, `text/html;q=0` and no header are not).
pub(crate) fn wants_html(req: &Request<Incoming>) -> bool {
    req.headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| {
            let html = quality(a, "text", "html");
            html > 0.0 && html > quality(a, "text", "markdown")
        })
}

/// The quality an Accept header gives `kind/sub`: that of its most specific matching range
/// (`kind/sub`, then `kind/*`, then `*/*`), 0 when none matches. Media types are
/// case-insensitive (RFC 9110 §8.3.1).
fn quality(accept: &str, kind: &str, sub: &str) -> f32 {
    let mut best: Option<(u8, f32)> = None;
    for range in accept.split(',') {
        let mut parts = range.split(';');
        let Some((k, s)) = parts.next().and_then(|m| m.trim().split_once('/')) else {
            continue;
        };
        let (k, s) = (k.trim(), s.trim());
        let specificity = if k.eq_ignore_ascii_case(kind) && s.eq_ignore_ascii_case(sub) {
            2
        } else if k.eq_ignore_ascii_case(kind) && s == "*" {
            1
        } else if k == "*" && s == "*" {
            0
        } else {
            continue;
        };
        let q = parts
            .filter_map(|p| p.split_once('='))
            .find(|(name, _)| name.trim().eq_ignore_ascii_case("q"))
            .and_then(|(_, v)| v.trim().parse::<f32>().ok())
            .unwrap_or(1.0)
            .clamp(0.0, 1.0);
        if best.is_none_or(|(b, _)| specificity > b) {
            best = Some((specificity, q));
        }
    }
    best.map_or(0.0, |(_, q)| q)
}

/// How much larger than `--max-body` a form post may be: it carries the document it was
/// rendered from percent-encoded (up to three bytes per byte), plus the reader's fields.
const FORM_BODY_FACTOR: usize = 3;
const FORM_FIELDS_ALLOWANCE: usize = 64 * 1024;

async fn answers_post(state: Arc<AppState>, req: Request<Incoming>) -> Resp {
    let start = Instant::now();
    let html_wanted = wants_html(&req);
    // The media type is checked before the body is read, as the other POST routes do.
    let form = match form_or_json(
        &req,
        "the rendered form (application/x-www-form-urlencoded) or JSON {\"markdown\", \"responses\"}",
    ) {
        Ok(form) => form,
        Err(r) => return r,
    };
    // A page rendered from a document at the limit must be able to post its form back.
    let max = if form {
        state
            .config
            .max_body
            .saturating_mul(FORM_BODY_FACTOR)
            .saturating_add(FORM_FIELDS_ALLOWANCE)
    } else {
        state.config.max_body
    };
    let body = match read_body(req, max, state.config.body_timeout).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let text = match utf8(body) {
        Ok(t) => t,
        Err(r) => return r,
    };
    let mut timing = Timing::new();
    timing.add("parse", None, start.elapsed());
    let max_document = state.config.max_body;
    let work = move || -> Resp {
        let began = Instant::now();
        let mut r = if form {
            form_answers(&text, html_wanted, max_document)
        } else {
            json_answers(&text, html_wanted)
        };
        if r.status().is_success() {
            timing.add("export", None, began.elapsed());
            timing.set(&mut r);
        }
        r
    };
    heavy(&state, work).await.unwrap_or_else(|r| r)
}

fn export_response(export: passback_engine::Export, html_wanted: bool) -> Resp {
    if html_wanted {
        return html(
            StatusCode::OK,
            pages::answers(&export.markdown, &export.notices),
            None,
        );
    }
    let mut r = respond(
        StatusCode::OK,
        "text/markdown; charset=utf-8",
        export.markdown,
    );
    for n in &export.notices {
        if let Ok(v) = HeaderValue::from_str(&n.replace(['\r', '\n'], " ")) {
            r.headers_mut().append("passback-notice", v);
        } else if let Ok(v) =
            HeaderValue::from_str(&n.chars().filter(char::is_ascii).collect::<String>())
        {
            r.headers_mut().append("passback-notice", v);
        }
    }
    r
}

fn form_answers(text: &str, html_wanted: bool, max_document: usize) -> Resp {
    let pairs = match parse_urlencoded(text) {
        Ok(p) => p,
        Err(e) => return problem(StatusCode::BAD_REQUEST, format!("{e}.")),
    };
    // The form body may be larger than --max-body (it carries the document encoded), but the
    // document it carries may not: /v1/render would refuse it.
    if let Some((_, source)) = pairs
        .iter()
        .find(|(k, v)| k == "pb.source" && v.len() > max_document)
    {
        return problem(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "The form's document (pb.source) is {} bytes, over the {max_document}-byte limit; send a smaller document (the limit is set with --max-body).",
                source.len()
            ),
        );
    }
    let options = Options::default().with_format(Format::Page);
    match passback_engine::answer_form(&pairs, &options) {
        Ok(FormOutcome::Edited(page)) => {
            let frame_src = page.frame_src;
            html(StatusCode::OK, page.into_body(), frame_src)
        }
        Ok(FormOutcome::Export(export)) => export_response(export, html_wanted),
        Err(e) if e.kind() == AnswersErrorKind::Malformed => {
            problem(StatusCode::BAD_REQUEST, format!("{e}."))
        }
        Err(e) => problem(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("The answers do not fit the document: {e}."),
        ),
    }
}

fn json_answers(text: &str, html_wanted: bool) -> Resp {
    let json: Value = match serde_json::from_str(text) {
        Ok(j) => j,
        Err(e) => {
            return problem(
                StatusCode::BAD_REQUEST,
                format!("The body is not valid JSON: {e}."),
            );
        }
    };
    let (Some(markdown), Some(responses)) = (
        json.get("markdown").and_then(Value::as_str),
        json.get("responses"),
    ) else {
        return problem(
            StatusCode::BAD_REQUEST,
            "The JSON needs \"markdown\" (the document, a string) and \"responses\" (answers keyed by block id).",
        );
    };
    let doc = Doc::parse(markdown);
    let responses = match answers_from_json(&doc, responses) {
        Ok(r) => r,
        Err(e) => {
            return problem(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("The responses do not fit the document: {e}."),
            );
        }
    };
    export_response(export(&doc, &responses), html_wanted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_blocks_become_canonical_fences() {
        let blocks = serde_json::json!([
            { "type": "markdown", "text": "Pick one." },
            { "type": "single-choice", "version": "1", "question": "Which?", "options": ["A", "B"] }
        ]);
        // Parsed from text, as a request body is: the keys keep the order they were sent in
        // (JSON.stringify's order), "type" dropped from wherever it stood.
        let blocks: Value = serde_json::from_str(&blocks.to_string()).unwrap();
        let whole: Value = serde_json::from_str(
            r#"[{ "type": "allocate", "version": "1", "total": 100.0, "items": [{ "id": "a", "label": "A", "weight": 2.50 }, { "id": "b", "label": "B", "weight": -0.0 }] }]"#,
        )
        .unwrap();
        assert!(
            blocks_to_markdown(&whole).unwrap().contains(
                r#"{"version":"1","total":100,"items":[{"id":"a","label":"A","weight":2.5},{"id":"b","label":"B","weight":0}]}"#
            ),
            "{}",
            blocks_to_markdown(&whole).unwrap()
        );
        let md = blocks_to_markdown(&blocks).unwrap();
        assert_eq!(
            md,
            "Pick one.\n\n```single-choice\n{\"version\":\"1\",\"question\":\"Which?\",\"options\":[\"A\",\"B\"]}\n```\n"
        );
        assert!(passback_engine::validate(&md).ok);
        assert!(
            blocks_to_markdown(&serde_json::json!([{ "type": "poll" }]))
                .unwrap_err()
                .contains("not markdown or a component tag")
        );
    }

    #[test]
    fn a_markdown_block_cannot_swallow_the_components_after_it() {
        let choice = serde_json::json!({ "type": "single-choice", "version": "1", "question": "Which?", "options": ["A", "B"] });
        for (text, says) in [
            ("Intro\n\n```", "``` code block"),
            ("~~~rust\nfn main() {}", "~~~ code block"),
            ("Note <!-- to self", ""),
            ("<!-- to self", "HTML comment"),
            ("<pre>\nkept as is", "<pre>"),
            ("<![CDATA[ raw", "CDATA"),
        ] {
            let blocks = serde_json::json!([{ "type": "markdown", "text": text }, choice]);
            match blocks_to_markdown(&blocks) {
                Ok(md) if says.is_empty() => {
                    // Inline HTML in a paragraph ends with the paragraph: nothing is swallowed.
                    assert_eq!(passback_engine::validate(&md).blocks.len(), 1, "{text:?}");
                }
                Ok(md) => panic!("{text:?} was accepted: {md}"),
                Err(e) => {
                    assert!(!says.is_empty(), "{text:?}: {e}");
                    assert!(e.contains("blocks[0]") && e.contains(says), "{e}");
                }
            }
            // Last in the list, it swallows nothing: accepted.
            let last = serde_json::json!([choice, { "type": "markdown", "text": text }]);
            assert!(blocks_to_markdown(&last).is_ok(), "{text:?}");
        }
        // Closed constructs are fine.
        for text in [
            "```\ncode\n```",
            "<!-- a -->",
            "<pre>x</pre>",
            "    indented",
        ] {
            let blocks = serde_json::json!([{ "type": "markdown", "text": text }, choice]);
            let md = blocks_to_markdown(&blocks).unwrap();
            assert_eq!(passback_engine::validate(&md).blocks.len(), 1, "{text:?}");
        }
    }

    #[test]
    fn only_small_documents_without_diagrams_render_on_the_worker() {
        let choice = "```single-choice\n{ \"version\": \"1\", \"question\": \"Which?\", \"options\": [\"A\"] }\n```\n";
        assert!(renders_quickly(choice));
        assert!(!renders_quickly(&choice.repeat(64)));
        assert!(!renders_quickly(
            "```mermaid\n{ \"version\": \"1\", \"source\": \"graph TD; A-->B\" }\n```\n"
        ));
        // The bare-paste shortcut: a diagram with no fence.
        assert!(!renders_quickly(
            "{ \"version\": \"1\", \"source\": \"graph TD; A-->B\" }"
        ));
    }
}

#[cfg(test)]
mod response_tests {
    use super::*;
    use crate::Config;

    /// Entity-tag lists compared against a hash, as they were against its quoted tag.
    #[test]
    fn tag_lists_name_a_hash_by_its_quoted_tag() {
        let hash = "0123456789abcdef0123456789abcdef";
        let tag = etag(hash);
        for (header, weak, listed) in [
            (tag.as_str(), false, true),
            ("*", false, true),
            (" * ", true, true),
            (hash, true, false),
            ("\"other\"", true, false),
            (&format!("\"x\", {tag} ,\"y\"") as &str, false, true),
            (&format!("W/{tag}"), true, true),
            (&format!("W/{tag}"), false, false),
            (&format!("\"{tag}\""), true, false),
            ("\"", true, false),
            ("", true, false),
        ] {
            assert_eq!(lists(header, hash, weak), listed, "{header:?} weak={weak}");
        }
    }

    /// Every header a rendering's response carries fits the map it starts with: adding one
    /// more without raising `HEADER_ROOM` would make it grow (and copy) on every request.
    #[test]
    fn a_renderings_headers_fit_the_map_they_start_with() {
        let state = AppState::new(Config::default());
        let youtube =
            "```youtube\n{ \"version\": \"1\", \"url\": \"https://youtu.be/dQw4w9WgXcQ\" }\n```\n";
        let initial = respond(StatusCode::OK, "text/plain", "")
            .headers()
            .capacity();
        for surface in [Surface::Page, Surface::Routed, Surface::Email] {
            for format in [Format::Fragment, Format::Page, Format::Json] {
                let options = Options::default().with_surface(surface).with_format(format);
                let rendered = match state.engine.lookup(youtube, &options) {
                    Ok(hit) => hit,
                    Err(miss) => {
                        state
                            .engine
                            .render_miss(youtube.to_string(), options.clone(), miss)
                    }
                };
                let mut r = rendered_response(&state, &rendered, true);
                // As `render` answers a miss.
                let mut timing = Timing::new();
                timing.add("parse", None, std::time::Duration::from_micros(21));
                timing.add("cache", Some("miss"), std::time::Duration::from_nanos(900));
                timing.add("render", None, std::time::Duration::from_micros(1_234_567));
                timing.set(&mut r);
                assert_eq!(
                    r.headers()["server-timing"],
                    "parse;dur=0.021, cache;desc=miss;dur=0.000, render;dur=1234.567"
                );
                assert!(r.headers().len() >= 5, "{surface:?} {format:?}");
                assert_eq!(
                    r.headers().capacity(),
                    initial,
                    "{surface:?} {format:?}: {:?}",
                    r.headers().keys().collect::<Vec<_>>()
                );
            }
        }
    }
}
