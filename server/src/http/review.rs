//! The reader's routes (contract §6): the routed document at its review link, and the
//! answers posted back from it (the page's form without JavaScript, or JSON). The rules are the
//! routing core's ([`crate::routing`]); its refusals are answered through [`refused`], as
//! pages when a browser asked.
//!
//! | route | what |
//! |---|---|
//! | `GET /r/{id}` | the document on the routed surface; closed or expired, with no way to send |
//! | `POST /r/{id}/responses` | keep the reader's answers; the "sent" page or JSON |

// Readers return a ready response as their error, as in `request`.
#![allow(clippy::result_large_err)]

use super::refusal::refused;
use super::render::render_uncached;
use super::request::{form_or_json, read_body, utf8, wants_html};
use super::response::{Resp, html, no_store, private_json, problem, unadmitted};
use crate::routing::RoutingError;
use crate::state::AppState;
use crate::store::Status;
use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper::{Method, Request, StatusCode};
use passback_engine::{AnswersErrorKind, Doc, FormOp, Format, ImagePolicy, Options, Surface};
use serde_json::{Value, json};
use std::sync::Arc;

/// The longest reviewer name kept.
const MAX_REVIEWER_CHARS: usize = 200;

/// The options a routed document renders with: the routed surface, its form posting back to
/// this server by id, no copy of the source in the form, and the server's image policy.
fn routed_options(id: &str, format: Format, images: &ImagePolicy) -> Options {
    Options::default()
        .with_images(images.clone())
        .with_surface(Surface::Routed)
        .with_format(format)
        .with_answers_action(Some(format!("/r/{id}/responses")))
        .with_form_source(false)
}

/// `GET /r/{id}`. A closed or expired document is shown with a notice at the top, and its
/// form has nowhere to post (no "Send answers" button; with the script, "Copy answers" still
/// copies what the reader filled in).
pub async fn page(state: Arc<AppState>, req: Request<Incoming>, id: &str) -> Resp {
    let Some(routing) = state.routing.clone() else {
        return refused(RoutingError::StoreOff, false);
    };
    let browser = wants_html(&req);
    let doc = match routing.live(id).await {
        Ok(doc) => doc,
        Err(e) => return refused(e, browser),
    };
    if req.method() == Method::GET {
        routing.count_view(id).await;
    }
    let status = doc.status;
    let options = match status {
        Status::Open => routed_options(id, Format::Page, &state.config.images),
        _ => routed_options(id, Format::Page, &state.config.images).with_answers_action(None),
    };
    let engine_state = state.clone();
    let rendered = state
        .slots()
        .run(move || render_uncached(&engine_state, &doc.markdown, &options))
        .await;
    let rendered = match rendered {
        Ok(r) => r,
        Err(refused) => return unadmitted(refused),
    };
    let frame_src = rendered.frame_src;
    let blocked = rendered.blocked_images;
    let body = with_image_note(with_notice(rendered.into_body(), status), blocked);
    let mut r = html(StatusCode::OK, Bytes::from(body), frame_src);
    no_store(&mut r);
    r.headers_mut()
        .insert("x-robots-tag", HeaderValue::from_static("noindex"));
    r
}

/// Where the page's content starts: the notice goes right after it.
const PAGE_MAIN: &str = "<main class=\"pb-page\">";

/// `page` with a notice at the top of its content saying the document takes no answers, when
/// it is closed or expired; as it is when open.
fn with_notice(page: String, status: Status) -> String {
    let (title, said) = match status {
        Status::Open => return page,
        Status::Closed => (
            "This document is closed.",
            "Its sender is not taking answers any more: you can read it, but nothing you fill in here is sent.",
        ),
        Status::Expired => (
            "This document has expired.",
            "Its time ran out, so it takes no more answers: you can read it, but nothing you fill in here is sent.",
        ),
    };
    let notice = maud::html! {
        div class="pb-closed" role="status" lang="en" dir="ltr" data-pb-status=(status.name()) {
            p { strong { (title) } " " (said) }
        }
    }
    .into_string();
    match page.find(PAGE_MAIN) {
        Some(at) => {
            let at = at + PAGE_MAIN.len();
            let mut out = String::with_capacity(page.len() + notice.len());
            out.push_str(&page[..at]);
            out.push_str(&notice);
            out.push_str(&page[at..]);
            out
        }
        None => notice + &page,
    }
}

/// `page` with a short note at the top of its content when the server's image policy kept
/// `blocked` of the document's images from loading (each is shown as a link to it, or its
/// description): the reader knows something is missing and why.
fn with_image_note(page: String, blocked: u32) -> String {
    if blocked == 0 {
        return page;
    }
    let said = if blocked == 1 {
        "1 image in this document is not shown: this server does not load images from its address. It is a link to it, or its description, instead.".to_string()
    } else {
        format!(
            "{blocked} images in this document are not shown: this server does not load images from their addresses. Each is a link to it, or its description, instead."
        )
    };
    let note = maud::html! {
        div class="pb-images-blocked" role="note" lang="en" dir="ltr" {
            p { (said) }
        }
    }
    .into_string();
    match page.find(PAGE_MAIN) {
        Some(at) => {
            let at = at + PAGE_MAIN.len();
            let mut out = String::with_capacity(page.len() + note.len());
            out.push_str(&page[..at]);
            out.push_str(&note);
            out.push_str(&page[at..]);
            out
        }
        None => note + &page,
    }
}

/// `POST /r/{id}/responses`.
pub async fn respond_to(state: Arc<AppState>, req: Request<Incoming>, id: &str) -> Resp {
    let Some(routing) = state.routing.clone() else {
        return refused(RoutingError::StoreOff, false);
    };
    let browser = wants_html(&req);
    let id = id.to_string();
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
    let doc = match routing.live(&id).await {
        Ok(doc) if doc.status != Status::Open => {
            return refused(RoutingError::NotOpen { status: doc.status }, browser);
        }
        Ok(doc) => doc,
        Err(e) => return refused(e, browser),
    };
    let markdown = doc.markdown.clone();
    let decode_id = id.clone();
    let images = state.config.images.clone();
    let decoded = tokio::task::spawn_blocking(move || {
        if form {
            decode_form(&decode_id, &markdown, &text, &images)
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
        Ok(stored) => stored,
        Err(e) => return refused(e, browser),
    };
    let mut r = if browser {
        let (markdown, shown) = (doc.markdown, stored.export.clone());
        let notices = notices.clone();
        let name = stored.reviewer.clone();
        let images = state.config.images.clone();
        let page = tokio::task::spawn_blocking(move || {
            sent_page(
                &id,
                &markdown,
                &refill,
                name.as_deref(),
                &shown,
                &notices,
                &images,
            )
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
fn decode_form(id: &str, markdown: &str, text: &str, images: &ImagePolicy) -> Result<Answer, Resp> {
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
            &routed_options(id, Format::Page, images),
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
    images: &ImagePolicy,
) -> (String, Option<&'static str>) {
    let doc = Doc::parse(markdown);
    let again = passback_engine::answers_from_json(&doc, inputs)
        .map(|mut filled| {
            filled.set_reviewer(reviewer.map(str::to_string));
            passback_engine::render_with_answers(
                markdown,
                &routed_options(id, Format::Fragment, images),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_page_says_so_at_the_top_of_its_content() {
        let page = "<html><body><main class=\"pb-page\"><div class=\"pb-doc\">x</div></main></body></html>";
        assert_eq!(with_notice(page.into(), Status::Open), page);
        let closed = with_notice(page.into(), Status::Closed);
        let notice = closed.find("This document is closed.").expect("the notice");
        assert!(
            notice > closed.find(PAGE_MAIN).unwrap() && notice < closed.find("pb-doc").unwrap()
        );
        assert!(with_notice(page.into(), Status::Expired).contains("has expired"));
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
