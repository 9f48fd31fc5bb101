//! Rendering: `POST /v1/render` (and its `format=eml` message), `POST /v1/validate`, a cached
//! rendering at `GET /v1/render/{hash}`, and the diagrams email previews link to at
//! `GET /v1/diagrams/{name}`. Engine work runs on the blocking pool in a render slot so a
//! large document never stalls the connections that share a worker; a cache hit (and a small
//! document without diagrams) is answered inline.

// Handlers return a ready response as their error: it is built once per request, so boxing it
// would only add an allocation.
#![allow(clippy::result_large_err)]

use super::request::{Conditions, read_document};
use super::response::{
    IMMUTABLE, Resp, Timing, email_html, etag, html, owned_value, precondition_failed, problem,
    respond, unadmitted,
};
use crate::metrics::CacheOutcome;
use crate::quote::truncate;
use crate::state::AppState;
use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Request, StatusCode};
use passback_engine::{Format, Options, Surface, parse_urlencoded};
use std::sync::Arc;
use std::time::Instant;

/// `POST /v1/render`: the document rendered as the query asks, through the cache.
pub async fn post(state: Arc<AppState>, req: Request<Incoming>, _: &str) -> Resp {
    let start = Instant::now();
    let (options, eml) = match options_from_query(&req) {
        Ok((o, eml)) => (o.with_images(state.config.images.clone()), eml),
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
            match state.slots().run(job).await {
                Ok((r, took)) => (r, Some(took)),
                Err(refused) => return unadmitted(refused),
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

/// `POST /v1/validate`: the document checked against the spec, as JSON.
pub async fn validate(state: Arc<AppState>, req: Request<Incoming>, _: &str) -> Resp {
    let start = Instant::now();
    // `?format=text` (as the CLI takes) would otherwise quietly answer JSON.
    if let Some((name, _)) = req
        .uri()
        .query()
        .and_then(|q| parse_urlencoded(q).ok())
        .and_then(|pairs| pairs.into_iter().next())
    {
        return problem(
            StatusCode::BAD_REQUEST,
            format!(
                "/v1/validate takes no parameter \"{}\": it answers JSON only; `passback validate --format text` shows each problem under its line.",
                truncate(&name)
            ),
        );
    }
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
    match state.slots().run(job).await {
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
        Err(refused) => unadmitted(refused),
    }
}

/// `GET /v1/render/{hash}`: a rendering from the cache, by the hash its ETag names.
pub async fn cached(state: Arc<AppState>, req: Request<Incoming>, hash: &str) -> Resp {
    let valid = hash.len() == 32 && hash.bytes().all(|b| b.is_ascii_hexdigit());
    let Some(rendered) = valid.then(|| state.engine.cached(hash)).flatten() else {
        return problem(
            StatusCode::NOT_FOUND,
            "That rendering is not in the cache (it may have been evicted); POST the document to /v1/render again.",
        );
    };
    let conditions = Conditions::of(&req);
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
    rendered_response(&state, &rendered, true)
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
            "answers_action" => {
                let action = crate::config::answers_action("answers_action", &v)
                    .map_err(|why| problem(StatusCode::BAD_REQUEST, format!("{why}.")))?;
                options = options.with_answers_action(action);
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
            // A misspelt parameter would otherwise quietly give the default rendering.
            other => {
                return Err(problem(
                    StatusCode::BAD_REQUEST,
                    format!(
                        "/v1/render takes no parameter \"{}\"; its parameters are surface, format, respond_url, answers_action, link_base.",
                        truncate(other)
                    ),
                ));
            }
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

/// `format=eml`: the email surface as a MIME message, its images inside (contract §8). Drawn on
/// the blocking pool in a render slot, under the render budget: diagrams are rasterized.
async fn eml_message(state: &AppState, src: String, options: Options) -> Resp {
    let job = move || crate::eml::message(&src, &options, crate::eml::draw);
    match state.slots().run(job).await {
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
        Err(refused) => unadmitted(refused),
    }
}

/// [`Engine::render`](passback_engine::Engine::render) for the playground's page, rendered on
/// the blocking pool, with the engine's time counted in the render histogram as
/// `POST /v1/render` counts it.
#[cfg(feature = "playground")]
pub fn render_counted(
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

/// Renders `src` past the cache, counting the render in the metrics as a miss: for a routed
/// document, which the public `GET /v1/render/{hash}` must never serve and which must leave no
/// copy in memory once deleted or expired.
#[cfg(feature = "store")]
pub fn render_uncached(
    state: &AppState,
    src: &str,
    options: &Options,
) -> passback_engine::Rendered {
    let began = Instant::now();
    let rendered = state.engine.render_uncached(src, options);
    state
        .metrics
        .observe_render(options.surface, CacheOutcome::Miss, began.elapsed());
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
pub async fn diagram(state: Arc<AppState>, _: Request<Incoming>, name: &str) -> Resp {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

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
