//! The routed-document routes (contract §6): a sender routes a document, a reader answers it
//! at its review link, and the sender pulls the answers with the document's bearer token.
//!
//! | route | who |
//! |---|---|
//! | `POST /v1/documents` | the sender: validate, keep, answer the id, link and token |
//! | `GET /r/{id}` | the reader: the document on the routed surface |
//! | `POST /r/{id}/responses` | the reader's form post, or JSON |
//! | `GET /v1/documents/{id}/responses` | the sender (Bearer): the responses, `since`, `wait` |
//! | `GET`, `DELETE /v1/documents/{id}` | the sender (Bearer): the document, or delete it |

// Handlers return a ready response as their error, as in `handlers`.
#![allow(clippy::result_large_err)]

use crate::AppState;
use crate::handlers::{
    content_type_of, document_from, form_or_json, media, read_body, truncate, utf8, wants_html,
};
use crate::problem::{Resp, html, problem, respond};
use crate::store::{self, Added, Denied, Document, Lookup, Routing, StoredResponse};
use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, StatusCode};
use maud::html as markup;
use passback_engine::{AnswersErrorKind, Doc, FormOp, Format, Options, Surface};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// The longest `wait` a long-poll may ask for.
pub const MAX_WAIT: Duration = Duration::from_secs(60);
/// The longest reviewer name kept.
const MAX_REVIEWER_CHARS: usize = 200;

/// The id in `/r/{id}…` or `/v1/documents/{id}…`.
fn id_of(path: &str) -> &str {
    let rest = path
        .strip_prefix("/r/")
        .or_else(|| path.strip_prefix("/v1/documents/"))
        .unwrap_or("");
    rest.split('/').next().unwrap_or("")
}

/// What the routes (and the MCP tools) say when the server keeps no documents.
pub(crate) const STORE_OFF: &str = "This server keeps no routed documents (it was started with --store off); start it with --store sqlite:PATH or --store postgres://USER@HOST/DATABASE to route documents.";

/// What is said when the store fails; the failure itself goes to the log.
pub(crate) const STORE_UNAVAILABLE: &str =
    "The document store is unavailable just now; try again in a moment.";

/// The routes answer this when the server keeps no documents.
fn store_off() -> Resp {
    problem(StatusCode::NOT_FOUND, STORE_OFF)
}

fn store_failed(e: &store::StoreError) -> Resp {
    log_store_failure(e);
    let mut r = problem(StatusCode::SERVICE_UNAVAILABLE, STORE_UNAVAILABLE);
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    r
}

pub(crate) fn log_store_failure(e: &store::StoreError) {
    tracing::error!(error = %e, "the document store failed");
}

/// A problem with extra members beside the standard ones (RFC 9457 §3.2).
fn problem_with(status: StatusCode, detail: impl Into<String>, extra: Value) -> Resp {
    let mut body = json!({
        "type": "about:blank",
        "title": status.canonical_reason().unwrap_or("Error"),
        "status": status.as_u16(),
        "detail": detail.into(),
    });
    if let (Some(body), Value::Object(extra)) = (body.as_object_mut(), extra) {
        body.extend(extra);
    }
    respond(status, "application/problem+json", body.to_string())
}

/// JSON with `Cache-Control: no-store`: everything here is someone's document or answers.
fn private_json(status: StatusCode, body: &Value) -> Resp {
    let mut r = respond(status, "application/json", body.to_string());
    no_store(&mut r);
    r
}

fn no_store(r: &mut Resp) {
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

/// 404 or 410 for a review link, as a page for a browser.
fn missing(gone: bool, browser: bool) -> Resp {
    let (status, title, said) = if gone {
        (
            StatusCode::GONE,
            "This document is no longer here",
            "It was deleted by its sender or its time ran out, and its answers with it. Ask the sender for a new link if you still need to answer.",
        )
    } else {
        (
            StatusCode::NOT_FOUND,
            "There is no document at this link",
            "Check that the link is complete, or ask the sender for it again.",
        )
    };
    if !browser {
        return problem(status, said);
    }
    let page = markup! { h1 { (title) } p { (said) } };
    let mut r = html(
        status,
        passback_engine::page(&page.into_string(), title, "/assets"),
        None,
    );
    no_store(&mut r);
    r
}

/// The options a routed document renders with: the routed surface, its form posting back to
/// this server by id, and no copy of the source in the form.
fn routed_options(id: &str, format: Format) -> Options {
    Options::default()
        .with_surface(Surface::Routed)
        .with_format(format)
        .with_answers_action(Some(format!("/r/{id}/responses")))
        .with_form_source(false)
}

/// The origin review links start with: `--public-url`, else the address the server listens on.
pub(crate) fn origin(state: &AppState) -> String {
    match &state.config.public_url {
        Some(url) => url.trim_end_matches('/').to_string(),
        None => format!(
            "http://{}",
            state.bound.get().copied().unwrap_or(state.config.listen)
        ),
    }
}

/// The document's `{ id, hash, created_at, expires_at }`.
fn document_summary(doc: &Document) -> Value {
    json!({
        "id": doc.id,
        "hash": doc.hash,
        "created_at": store::rfc3339(doc.created_at),
        "expires_at": store::rfc3339(doc.expires_at),
    })
}

fn response_json(r: &StoredResponse) -> Value {
    json!({
        "response_id": r.response_id,
        "received_at": store::rfc3339(r.received_at),
        "reviewer": r.reviewer,
        "componentInputs": r.component_inputs,
        "annotations": r.annotations,
        "export": r.export,
    })
}

// ---------------------------------------------------------------------------------------------
// POST /v1/documents

pub async fn create(state: Arc<AppState>, req: Request<Incoming>) -> Resp {
    let Some(routing) = state.routing.clone() else {
        return store_off();
    };
    if let Err(wait) = take_route_token(&state, client_of(&req)) {
        return too_many(&state, wait);
    }
    let content_type = match content_type_of(&req) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let body = match read_body(req, state.config.max_body, state.config.body_timeout).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let expires_in = if media(&content_type) == "application/json" {
        match expires_in(&body, &routing) {
            Ok(e) => e,
            Err(r) => return r,
        }
    } else {
        None
    };
    let src = match document_from(&content_type, body) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let (id, body) = match route_checked(&state, &routing, src, expires_in).await {
        Ok(routed) => routed,
        Err(NotRouted::Violating {
            errors,
            diagnostics,
        }) => {
            return problem_with(
                StatusCode::UNPROCESSABLE_ENTITY,
                violation(errors),
                json!({ "diagnostics": diagnostics }),
            );
        }
        Err(NotRouted::Store(e)) => return store_failed(&e),
        Err(NotRouted::Busy(r)) => return r,
        Err(NotRouted::Internal) => {
            return problem(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Validation failed on an internal error; please report it.",
            );
        }
    };
    let mut r = private_json(StatusCode::CREATED, &body);
    if let Ok(v) = HeaderValue::from_str(&format!("/v1/documents/{id}")) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r
}

/// The client address `handle` recorded for the request.
pub(crate) fn client_of<B>(req: &Request<B>) -> Option<std::net::IpAddr> {
    req.extensions()
        .get::<crate::limit::ClientAddr>()
        .map(|c| c.0.ip())
}

/// Takes one of `client`'s routing tokens (`--route-limit`): `Err` with the wait when it has
/// none left. Without a limit, or a client address, there is nothing to take.
pub(crate) fn take_route_token(
    state: &AppState,
    client: Option<std::net::IpAddr>,
) -> Result<(), Duration> {
    match (&state.route_limiter, client) {
        (Some(limiter), Some(ip)) => limiter.take(ip, std::time::Instant::now()),
        _ => Ok(()),
    }
}

/// What a client over its routing limit is told: when to try again.
pub(crate) fn over_limit(state: &AppState, wait: Duration) -> String {
    let limit = state
        .route_limiter
        .as_ref()
        .map_or_else(String::new, |l| format!(", {}", l.limit()));
    format!(
        "This address has routed as many documents as this server allows{limit} (--route-limit); try again in {} s.",
        wait.as_secs()
    )
}

/// 429 with `Retry-After`, as problem+json.
fn too_many(state: &AppState, wait: Duration) -> Resp {
    let mut r = problem_with(
        StatusCode::TOO_MANY_REQUESTS,
        over_limit(state, wait),
        json!({ "retry_after": wait.as_secs() }),
    );
    if let Ok(v) = HeaderValue::from_str(&wait.as_secs().to_string()) {
        r.headers_mut().insert(header::RETRY_AFTER, v);
    }
    r
}

/// Why a document was not routed.
pub(crate) enum NotRouted {
    /// It violates the PassbackAI spec: how many errors, and every diagnostic.
    Violating {
        errors: usize,
        diagnostics: Value,
    },
    Store(store::StoreError),
    /// Validation panicked.
    Internal,
    /// No render slot came free in time: the 503 to answer.
    Busy(Resp),
}

/// What a violating document is refused with, beside its diagnostics.
pub(crate) fn violation(errors: usize) -> String {
    format!(
        "The document violates the PassbackAI spec ({errors} error{}); fix what \"diagnostics\" lists, then route it again.",
        if errors == 1 { "" } else { "s" }
    )
}

/// Validates `src` and, when it is valid, keeps it: every front end routes a document through
/// here. Answers the new id and the sender's record of it, `{ id, review_url, token, hash,
/// expires_at, diagnostics }` (the diagnostics are warnings only).
pub(crate) async fn route_checked(
    state: &AppState,
    routing: &Routing,
    src: String,
    expires_in: Option<Duration>,
) -> Result<(String, Value), NotRouted> {
    let checked = crate::handlers::heavy(state, move || {
        let validation = passback_engine::validate(&src);
        let hash = passback_engine::content_hash(&src, &Options::default());
        (src, validation, hash)
    })
    .await;
    let (src, validation, hash) = match checked {
        Ok(checked) => checked,
        Err(r) if r.status() == StatusCode::SERVICE_UNAVAILABLE => {
            return Err(NotRouted::Busy(r));
        }
        Err(_) => return Err(NotRouted::Internal),
    };
    let diagnostics = serde_json::to_value(&validation.diagnostics).unwrap_or(Value::Null);
    if !validation.ok {
        let errors = validation
            .diagnostics
            .iter()
            .filter(|d| d.severity == passback_engine::Severity::Error)
            .count();
        return Err(NotRouted::Violating {
            errors,
            diagnostics,
        });
    }
    let routed = routing
        .route(src, hash, expires_in)
        .await
        .map_err(NotRouted::Store)?;
    let body = json!({
        "id": routed.id,
        "review_url": format!("{}/r/{}", origin(state), routed.id),
        "token": routed.token,
        "hash": routed.hash,
        "expires_at": store::rfc3339(routed.expires_at),
        "diagnostics": diagnostics,
    });
    Ok((routed.id, body))
}

/// `expires_in` from a JSON body: whole seconds, at least 1, at most the retention period.
fn expires_in(body: &Bytes, routing: &Routing) -> Result<Option<Duration>, Resp> {
    // The body's other faults (not JSON, no document) are named when the document is read.
    let Ok(Value::Object(fields)) = serde_json::from_slice::<Value>(body) else {
        return Ok(None);
    };
    lifetime(fields.get("expires_in"), routing)
        .map_err(|m| problem(StatusCode::UNPROCESSABLE_ENTITY, m))
}

/// A document's `expires_in`, when given: whole seconds, at least 1, at most the retention
/// period. The error says what to give instead.
pub(crate) fn lifetime(
    expires_in: Option<&Value>,
    routing: &Routing,
) -> Result<Option<Duration>, String> {
    let retention = routing.retention.as_secs();
    match expires_in {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64().filter(|&s| s >= 1) {
            Some(s) if s <= retention => Ok(Some(Duration::from_secs(s))),
            Some(s) => Err(format!(
                "\"expires_in\" is {s} s, over this server's retention period of {retention} s (--retention); give at most {retention}, or leave it out to keep the document that long."
            )),
            None => Err(format!(
                "\"expires_in\" must be a whole number of seconds, at least 1 and at most {retention}, not {}.",
                truncate(&v.to_string())
            )),
        },
    }
}

// ---------------------------------------------------------------------------------------------
// GET /r/{id}

pub async fn review(state: Arc<AppState>, req: Request<Incoming>) -> Resp {
    let Some(routing) = state.routing.clone() else {
        return store_off();
    };
    let browser = wants_html(&req);
    let id = id_of(req.uri().path()).to_string();
    let doc = match routing.document(&id).await {
        Ok(Lookup::Live(doc)) => doc,
        Ok(Lookup::Gone) => return missing(true, browser),
        Ok(Lookup::Unknown) => return missing(false, browser),
        Err(e) => return store_failed(&e),
    };
    let options = routed_options(&id, Format::Page);
    let engine_state = state.clone();
    let rendered = crate::handlers::heavy(&state, move || {
        crate::handlers::render_counted(&engine_state, &doc.markdown, &options)
    })
    .await;
    let rendered = match rendered {
        Ok(r) => r,
        Err(r) => return r,
    };
    let mut r = html(
        StatusCode::OK,
        Bytes::copy_from_slice(rendered.body().as_bytes()),
        rendered.frame_src,
    );
    no_store(&mut r);
    r.headers_mut()
        .insert("x-robots-tag", HeaderValue::from_static("noindex"));
    r
}

// ---------------------------------------------------------------------------------------------
// POST /r/{id}/responses

pub async fn respond_to(state: Arc<AppState>, req: Request<Incoming>) -> Resp {
    let Some(routing) = state.routing.clone() else {
        return store_off();
    };
    let browser = wants_html(&req);
    let id = id_of(req.uri().path()).to_string();
    let form = match form_or_json(
        &req,
        "the review page's form (application/x-www-form-urlencoded) or JSON {\"responses\", \"reviewer\"}",
    ) {
        Ok(form) => form,
        Err(r) => return r,
    };
    let body = match read_body(req, state.config.max_body, state.config.body_timeout).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let text = match utf8(body) {
        Ok(t) => t,
        Err(r) => return r,
    };
    let doc = match routing.document(&id).await {
        Ok(Lookup::Live(doc)) => doc,
        Ok(Lookup::Gone) => return missing(true, browser),
        Ok(Lookup::Unknown) => return missing(false, browser),
        Err(e) => return store_failed(&e),
    };
    let markdown = doc.markdown.clone();
    let decode_id = id.clone();
    let decoded = tokio::task::spawn_blocking(move || {
        if form {
            decode_form(&decode_id, &markdown, &text)
        } else {
            decode_json(&markdown, &text)
        }
    })
    .await;
    let answer = match decoded {
        Ok(Ok(a)) => a,
        Ok(Err(r)) => return r,
        Err(_) => {
            return problem(
                StatusCode::INTERNAL_SERVER_ERROR,
                "The answers could not be read on an internal error; please report it.",
            );
        }
    };
    let (inputs, annotations, export, notices, reviewer) = match answer {
        Answer::Edited(page, frame_src) => return html(StatusCode::OK, page, frame_src),
        Answer::Export {
            inputs,
            annotations,
            export,
            notices,
            reviewer,
        } => (inputs, annotations, export, notices, reviewer),
    };
    // The form shown again on the "sent" page takes the comments back with the answers.
    let mut refill = inputs.clone();
    if let (Some(map), Some(list)) = (refill.as_object_mut(), annotations.as_array())
        && !list.is_empty()
    {
        map.insert("annotations".into(), annotations.clone());
    }
    let stored = match routing
        .respond(&id, reviewer, inputs, annotations, export)
        .await
    {
        Ok(Added::Stored(s)) => s,
        Ok(Added::Gone) => return missing(true, browser),
        Ok(Added::Unknown) => return missing(false, browser),
        Ok(Added::Full) => {
            return problem(
                StatusCode::CONFLICT,
                format!(
                    "This document has taken its limit of {} responses, so no more are kept; ask its sender to route it again.",
                    routing.max_responses
                ),
            );
        }
        Err(e) => return store_failed(&e),
    };
    let mut r = if browser {
        let (markdown, shown) = (doc.markdown, stored.export.clone());
        let notices = notices.clone();
        let name = stored.reviewer.clone();
        let page = tokio::task::spawn_blocking(move || {
            sent_page(&id, &markdown, &refill, name.as_deref(), &shown, &notices)
        })
        .await;
        match page {
            Ok((page, frame_src)) => html(StatusCode::CREATED, page, frame_src),
            // Kept all the same: say so plainly.
            Err(_) => private_json(
                StatusCode::CREATED,
                &json!({ "response_id": stored.response_id, "export": stored.export }),
            ),
        }
    } else {
        private_json(
            StatusCode::CREATED,
            &json!({ "response_id": stored.response_id, "export": stored.export }),
        )
    };
    no_store(&mut r);
    for n in &notices {
        let ascii: String = n
            .chars()
            .map(|c| {
                if c.is_ascii() && !c.is_ascii_control() {
                    c
                } else {
                    ' '
                }
            })
            .collect();
        if let Ok(v) = HeaderValue::from_str(&ascii) {
            r.headers_mut().append("passback-notice", v);
        }
    }
    r
}

/// What a reader's post amounts to.
enum Answer {
    /// A list edit without JavaScript: the page again, with the edit made (nothing kept).
    Edited(String, Option<&'static str>),
    /// Answers to keep.
    Export {
        inputs: Value,
        /// The reader's comments on the prose (contract §7), `[]` when none.
        annotations: Value,
        export: String,
        notices: Vec<String>,
        reviewer: Option<String>,
    },
}

/// The checked comments of `responses`, as contract §7 writes them.
fn annotations_json(responses: &passback_engine::Responses) -> Value {
    serde_json::to_value(responses.annotations()).unwrap_or_else(|_| Value::Array(Vec::new()))
}

/// The review page's form post. The page carries no copy of the document: it goes back in
/// here, from the store, in place of anything the post says it is.
fn decode_form(id: &str, markdown: &str, text: &str) -> Result<Answer, Resp> {
    let posted = passback_engine::parse_urlencoded(text)
        .map_err(|e| problem(StatusCode::BAD_REQUEST, format!("{e}.")))?;
    let mut reviewer = None;
    let mut pairs = vec![
        ("pb.source".to_string(), markdown.to_string()),
        ("pb.surface".to_string(), Surface::Routed.name().to_string()),
    ];
    for (k, v) in posted {
        match k.as_str() {
            "pb.source" | "pb.surface" => {}
            "pb.reviewer" => reviewer = Some(v),
            _ => pairs.push((k, v)),
        }
    }
    let reviewer = reviewer_name(reviewer.as_deref())?;
    let mut post = passback_engine::answers_from_form(&pairs).map_err(|e| {
        if e.kind() == AnswersErrorKind::Malformed {
            problem(StatusCode::BAD_REQUEST, format!("{e}."))
        } else {
            problem(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("The answers do not fit the document: {e}."),
            )
        }
    })?;
    if post.op == FormOp::Edit {
        post.responses.set_reviewer(reviewer.clone());
        let page = passback_engine::render_with_answers(
            markdown,
            &routed_options(id, Format::Page),
            &post.responses,
        );
        let frame_src = page.frame_src;
        return Ok(Answer::Edited(page.into_body(), frame_src));
    }
    let export = passback_engine::export(&post.doc, &post.responses);
    let mut notices = post.notices;
    notices.extend(export.notices);
    Ok(Answer::Export {
        inputs: passback_engine::answers_to_json(&post.doc, &post.responses),
        annotations: annotations_json(&post.responses),
        export: export.markdown,
        notices,
        reviewer,
    })
}

/// `{ "responses": {…}, "reviewer": "…" }`.
fn decode_json(markdown: &str, text: &str) -> Result<Answer, Resp> {
    let json: Value = serde_json::from_str(text).map_err(|e| {
        problem(
            StatusCode::BAD_REQUEST,
            format!("The body is not valid JSON: {e}."),
        )
    })?;
    let Some(responses) = json.get("responses").filter(|r| r.is_object()) else {
        return Err(problem(
            StatusCode::BAD_REQUEST,
            "The JSON needs \"responses\": an object of answers keyed by block id, such as {\"responses\": {\"b1\": {\"selected\": [\"…\"]}}}.",
        ));
    };
    let reviewer = match json.get("reviewer") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.as_str()),
        Some(_) => {
            return Err(problem(
                StatusCode::UNPROCESSABLE_ENTITY,
                "\"reviewer\" must be a string (the reader's name), or left out.",
            ));
        }
    };
    let reviewer = reviewer_name(reviewer)?;
    let doc = Doc::parse(markdown);
    let checked = passback_engine::answers_from_json(&doc, responses).map_err(|e| {
        problem(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("The responses do not fit the document: {e}."),
        )
    })?;
    let export = passback_engine::export(&doc, &checked);
    // componentInputs is the block map alone; the comments are kept beside it.
    let mut inputs = responses.clone();
    if let Some(map) = inputs.as_object_mut() {
        map.remove("annotations");
    }
    Ok(Answer::Export {
        inputs,
        annotations: annotations_json(&checked),
        export: export.markdown,
        notices: export.notices,
        reviewer,
    })
}

/// The reviewer's name, trimmed; `None` when empty.
fn reviewer_name(name: Option<&str>) -> Result<Option<String>, Resp> {
    let Some(name) = name.map(str::trim).filter(|n| !n.is_empty()) else {
        return Ok(None);
    };
    if name.chars().count() > MAX_REVIEWER_CHARS || name.chars().any(char::is_control) {
        return Err(problem(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!(
                "\"reviewer\" must be a name on one line of at most {MAX_REVIEWER_CHARS} characters."
            ),
        ));
    }
    Ok(Some(name.to_string()))
}

/// The page a reader sees after sending: what was sent, and the form again with their answers
/// (and name) filled in, to change and send again; in the document's language.
fn sent_page(
    id: &str,
    markdown: &str,
    inputs: &Value,
    reviewer: Option<&str>,
    export: &str,
    notices: &[String],
) -> (String, Option<&'static str>) {
    let doc = Doc::parse(markdown);
    let again = passback_engine::answers_from_json(&doc, inputs)
        .map(|mut filled| {
            filled.set_reviewer(reviewer.map(str::to_string));
            passback_engine::render_with_answers(
                markdown,
                &routed_options(id, Format::Fragment),
                &filled,
            )
        })
        .ok();
    let frame_src = again.as_ref().and_then(|p| p.frame_src);
    let page = passback_engine::sent_page(
        &doc,
        export,
        notices,
        again.as_ref().map(|p| p.html.as_str()),
        &format!("/r/{id}"),
        "/assets",
    );
    (page, frame_src)
}

// ---------------------------------------------------------------------------------------------
// The sender's routes: Bearer token

/// The document `id` for the request's bearer token, or the response refusing it.
async fn authorized(routing: &Routing, req: &Request<Incoming>) -> Result<Document, Resp> {
    let token = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, token) = v.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        })
        .filter(|t| !t.is_empty());
    let Some(token) = token else {
        let mut r = problem(
            StatusCode::UNAUTHORIZED,
            "This needs the document's token: send Authorization: Bearer TOKEN, with the token POST /v1/documents answered.",
        );
        r.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"passback\""),
        );
        return Err(r);
    };
    let id = id_of(req.uri().path());
    match routing.authorized(id, token).await {
        Ok(Ok(doc)) => Ok(doc),
        Ok(Err(Denied::WrongToken)) => Err(problem(
            StatusCode::FORBIDDEN,
            "That token is not this document's; use the token POST /v1/documents answered when it was routed.",
        )),
        Ok(Err(Denied::Gone)) => Err(missing(true, false)),
        Ok(Err(Denied::Unknown)) => Err(missing(false, false)),
        Err(e) => Err(store_failed(&e)),
    }
}

/// `GET` or `DELETE /v1/documents/{id}`.
pub async fn document(state: Arc<AppState>, req: Request<Incoming>) -> Resp {
    let Some(routing) = state.routing.clone() else {
        return store_off();
    };
    let doc = match authorized(&routing, &req).await {
        Ok(d) => d,
        Err(r) => return r,
    };
    if req.method() == Method::DELETE {
        return match routing.store.delete(&doc.id, store::now()).await {
            Ok(Lookup::Live(())) => {
                let mut r = respond(StatusCode::NO_CONTENT, "text/plain", Bytes::new());
                r.headers_mut().remove(header::CONTENT_TYPE);
                r
            }
            Ok(Lookup::Gone) => missing(true, false),
            Ok(Lookup::Unknown) => missing(false, false),
            Err(e) => store_failed(&e),
        };
    }
    private_json(
        StatusCode::OK,
        &json!({
            "id": doc.id,
            "markdown": doc.markdown,
            "hash": doc.hash,
            "created_at": store::rfc3339(doc.created_at),
            "expires_at": store::rfc3339(doc.expires_at),
            "responses": doc.responses,
        }),
    )
}

/// `GET /v1/documents/{id}/responses?since=N&wait=S`.
pub async fn responses(state: Arc<AppState>, req: Request<Incoming>) -> Resp {
    let Some(routing) = state.routing.clone() else {
        return store_off();
    };
    let (since, wait) = match list_query(req.uri().query().unwrap_or("")) {
        Ok(q) => q,
        Err(r) => return r,
    };
    let doc = match authorized(&routing, &req).await {
        Ok(d) => d,
        Err(r) => return r,
    };
    match responses_after(&routing, &doc, since, wait).await {
        Ok(body) => private_json(StatusCode::OK, &body),
        Err(e) => store_failed(&e),
    }
}

/// `{ document, responses }`: the responses to `doc` after `since`, oldest first, waiting up to
/// `wait` for the first when there are none yet. Every front end lists responses through here,
/// once the token was checked ([`Routing::authorized`]).
pub(crate) async fn responses_after(
    routing: &Routing,
    doc: &Document,
    since: u64,
    wait: Duration,
) -> Result<Value, store::StoreError> {
    let found = if wait.is_zero() {
        routing.store.responses(&doc.id, since).await
    } else {
        routing.store.wait_for_responses(&doc.id, since, wait).await
    }?;
    Ok(json!({
        "document": document_summary(doc),
        "responses": found.iter().map(response_json).collect::<Vec<_>>(),
    }))
}

/// `since` (a response id, default 0) and `wait` (seconds, at most 60, default 0).
fn list_query(query: &str) -> Result<(u64, Duration), Resp> {
    let pairs = passback_engine::parse_urlencoded(query)
        .map_err(|e| problem(StatusCode::BAD_REQUEST, format!("{e}.")))?;
    let (mut since, mut wait) = (0, Duration::ZERO);
    for (k, v) in pairs {
        match k.as_str() {
            "since" => {
                // Past every response id there is: nothing is newer.
                let digits = !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
                since = v.parse().ok().or(digits.then_some(u64::MAX)).ok_or_else(|| {
                    problem(
                        StatusCode::BAD_REQUEST,
                        format!(
                            "since must be a response_id (a whole number, 0 or more), not \"{}\".",
                            truncate(&v)
                        ),
                    )
                })?;
            }
            "wait" => {
                let max = MAX_WAIT.as_secs();
                wait = v
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && (0.0..=max as f64).contains(s))
                    .map(Duration::from_secs_f64)
                    .ok_or_else(|| {
                        problem(
                            StatusCode::BAD_REQUEST,
                            format!(
                                "wait must be a number of seconds from 0 to {max}, not \"{}\".",
                                truncate(&v)
                            ),
                        )
                    })?;
            }
            _ => {}
        }
    }
    Ok((since, wait))
}

/// Expires documents and forgets old tombstones now, then every minute (until aborted).
pub async fn sweep(routing: Routing) {
    let mut every = tokio::time::interval(Duration::from_secs(60));
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        match routing.sweep().await {
            Ok(0) => {}
            Ok(n) => tracing::info!(expired = n, "routed documents expired"),
            Err(e) => tracing::warn!(error = %e, "the store's sweep failed"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_come_from_either_kind_of_path() {
        assert_eq!(id_of("/r/abc"), "abc");
        assert_eq!(id_of("/r/abc/responses"), "abc");
        assert_eq!(id_of("/v1/documents/abc"), "abc");
        assert_eq!(id_of("/v1/documents/abc/responses"), "abc");
        assert_eq!(id_of("/v1/other"), "");
    }

    #[test]
    fn list_queries_name_what_is_wrong() {
        assert_eq!(list_query("").ok(), Some((0, Duration::ZERO)));
        assert_eq!(
            list_query("since=3&wait=1.5").ok(),
            Some((3, Duration::from_millis(1500)))
        );
        assert_eq!(
            list_query("since=99999999999999999999999").ok(),
            Some((u64::MAX, Duration::ZERO))
        );
        for bad in ["since=-1", "since=x", "wait=61", "wait=-1", "wait=NaN"] {
            assert!(list_query(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn reviewer_names_are_one_short_line() {
        assert_eq!(
            reviewer_name(Some("  Dana ")).ok(),
            Some(Some("Dana".into()))
        );
        assert_eq!(reviewer_name(Some("  ")).ok(), Some(None));
        assert!(reviewer_name(Some("a\nb")).is_err());
        assert!(reviewer_name(Some(&"x".repeat(201))).is_err());
    }
}
