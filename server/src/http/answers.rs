//! `POST /v1/answers`: a reader's answers (the rendered form's own post, or JSON with the
//! document) turned into the Markdown export, or into the form again after a list edit made
//! without JavaScript.

use super::request::{form_or_json, read_body, utf8, wants_html};
use super::response::{Resp, Timing, html, problem, respond, unadmitted};
use crate::pages;
use crate::state::AppState;
use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper::{Request, StatusCode};
use passback_engine::{AnswersErrorKind, Doc, answers_from_json, export, parse_urlencoded};
use passback_engine::{FormOutcome, Format, Options};
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;

/// How much larger than `--max-body` a form post may be: it carries the document it was
/// rendered from percent-encoded (up to three bytes per byte), plus the reader's fields.
const FORM_BODY_FACTOR: usize = 3;
const FORM_FIELDS_ALLOWANCE: usize = 64 * 1024;

/// `POST /v1/answers`.
pub async fn post(state: Arc<AppState>, req: Request<Incoming>, _: &str) -> Resp {
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
    let images = state.config.images.clone();
    let work = move || -> Resp {
        let began = Instant::now();
        let mut r = if form {
            form_answers(&text, html_wanted, max_document, images)
        } else {
            json_answers(&text, html_wanted)
        };
        if r.status().is_success() {
            timing.add("export", None, began.elapsed());
            timing.set(&mut r);
        }
        r
    };
    state.slots().run(work).await.unwrap_or_else(unadmitted)
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

fn form_answers(
    text: &str,
    html_wanted: bool,
    max_document: usize,
    images: passback_engine::ImagePolicy,
) -> Resp {
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
    let options = Options::default()
        .with_format(Format::Page)
        .with_images(images);
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
