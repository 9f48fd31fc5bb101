//! `POST /r/{id}/responses`: a reader's answers, decoded from the form or JSON, checked and kept.

use super::super::documents::idempotency_key;
use super::super::refusal::refused;
use super::super::request::{client_of, form_or_json, read_body, utf8, wants_html};
use super::super::response::{Resp, html, no_store, private_json, problem};
use super::stale::{posted_revision, stale};
use super::summary::{check_other, empty_others, mark_field, problem_summary, unanswered};
use super::{
    CONFIRM_FIELD, Intro, MAX_REVIEWER_CHARS, PAGE_MAIN, PageParts, REVISION_FIELD,
    SUBMISSION_FIELD, Speech, VERDICT_FIELD, VERDICT_ID, annotations_json, decorate,
    new_submission, recipient_query, routed_options, with_verdict,
};
use crate::quote::truncate;
use crate::routing::{
    Answer as Kept, Answerable, RoutingError, check_stored_size, chosen_verdict, is_submission_id,
    take_answer_token, with_verdict_line,
};
use crate::state::AppState;
use crate::store::Status;
use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Request, StatusCode};
use passback_engine::{AnswersErrorKind, Doc, FormOp, Format, Surface};
use serde_json::{Value, json};
use std::sync::Arc;

/// `POST /r/{id}/responses`.
pub async fn respond_to(state: Arc<AppState>, req: Request<Incoming>, id: &str) -> Resp {
    let Some(routing) = state.routing.clone() else {
        return refused(RoutingError::StoreOff, false);
    };
    let browser = wants_html(&req);
    let client = client_of(&req);
    let id = id.to_string();
    let secret = recipient_query(req.uri().query());
    // A recipient's `for` is the only parameter: anything else is a mistake to name, not drop.
    if let Some(unknown) = req.uri().query().and_then(|q| {
        passback_engine::parse_urlencoded(q)
            .ok()?
            .into_iter()
            .map(|(k, _)| k)
            .find(|k| k != "for")
    }) {
        return problem(
            StatusCode::BAD_REQUEST,
            format!(
                "An answer takes no parameter \"{}\"; its only one is for (a recipient's secret, from their link).",
                truncate(&unknown)
            ),
        );
    }
    let form = match form_or_json(
        &req,
        "the review page's form (application/x-www-form-urlencoded) or JSON {\"responses\", \"reviewer\"}",
    ) {
        Ok(form) => form,
        Err(r) => return r,
    };
    // A JSON client's Idempotency-Key is its submission id: a repeat finds the first response.
    // A form carries its own submission id; a malformed key is refused on either.
    let idempotency_key = match idempotency_key(&req) {
        Ok(Some(k)) => {
            if !is_submission_id(&k) {
                return problem(
                    StatusCode::BAD_REQUEST,
                    "An Idempotency-Key on an answer is its submission id: 16 to 128 letters, digits, '-' or '_' (a UUID will do).",
                );
            }
            (!form).then_some(k)
        }
        Ok(None) => None,
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
    let post = Post {
        browser,
        client,
        id,
        secret,
        form,
        idempotency_key,
        text,
    };
    // A copy of the document this server kept is tried first; when the store finds it out of
    // date (revised, closed or deleted elsewhere), the post is read again against the document
    // as it is now.
    let copy = match routing.answerable(&post.id).await {
        Ok(copy) => copy,
        Err(e) => return refused(e, browser),
    };
    match answer_to(&state, &routing, &post, copy, false).await {
        Answered::Done(r) => r,
        Answered::OutOfDate => match routing.answerable_now(&post.id).await {
            Ok(copy) => match answer_to(&state, &routing, &post, copy, true).await {
                Answered::Done(r) => r,
                Answered::OutOfDate => unreachable_out_of_date(),
            },
            Err(e) => refused(e, browser),
        },
    }
}

/// A reader's post, read: what [`answer_to`] answers, once or twice.
struct Post {
    browser: bool,
    client: Option<std::net::IpAddr>,
    id: String,
    secret: Option<String>,
    form: bool,
    idempotency_key: Option<String>,
    text: String,
}

/// What [`answer_to`] did with a post.
enum Answered {
    Done(Resp),
    /// The copy of the document it was read against is out of date: nothing was kept.
    OutOfDate,
}

/// Read as the document as stored now, a post is never out of date; were it, it is refused.
fn unreachable_out_of_date() -> Resp {
    problem(
        StatusCode::SERVICE_UNAVAILABLE,
        "The document changed while the answers were read; send them again.",
    )
}

/// Answers `post` against `copy` of its document. `fresh`: the copy was read from the store
/// for this post, so an answer to another revision is stale, not a copy out of date.
async fn answer_to(
    state: &Arc<AppState>,
    routing: &crate::routing::Routing,
    post: &Post,
    copy: Arc<Answerable>,
    fresh: bool,
) -> Answered {
    let Post {
        browser,
        client,
        ref id,
        ref secret,
        form,
        ref idempotency_key,
        ref text,
    } = *post;
    let doc = &copy.doc;
    if doc.status != Status::Open {
        return Answered::Done(refused(
            RoutingError::NotOpen { status: doc.status },
            browser,
        ));
    }
    // Through a recipient's link: theirs, or nothing (404).
    let recipient = match secret {
        Some(secret) => match routing.recipient(id, secret, false).await {
            Ok(r) => Some(r),
            Err(e) => return Answered::Done(refused(e, browser)),
        },
        None => None,
    };
    let page = PageParts {
        id: id.clone(),
        expires_at: doc.expires_at,
        images: state.config.images.clone(),
        verdict: doc.verdict.clone(),
        recipient: recipient
            .as_ref()
            .and_then(|r| Some((r.name.clone(), secret.clone()?))),
        revision: doc.revision,
        sender: doc.sender.clone(),
    };
    // Answers typed against an earlier revision are not kept as answers to this one.
    let answered = match posted_revision(form, text) {
        Ok(r) => r.unwrap_or(doc.revision),
        Err(r) => return Answered::Done(r),
    };
    if answered != doc.revision {
        if !fresh {
            return Answered::OutOfDate;
        }
        // It keeps nothing, but renders a page: it counts as an answer against the limits.
        if let Err(e) = take_answer_token(&state.answer_limiter, id, client) {
            return Answered::Done(refused(e, browser));
        }
        return Answered::Done(stale(routing, doc, page, answered, form, text.clone()).await);
    }
    let checked = browser && form;
    let (read, text) = (copy.clone(), text.clone());
    let decoded = tokio::task::spawn_blocking(move || {
        if form {
            decode_form(&page, &read.doc.markdown, &text, checked)
        } else {
            decode_json(read.parsed(), &text, page.verdict.as_deref())
        }
    })
    .await;
    // A copy kept a while decides only answers it takes: whatever else it would say (the
    // answers do not fit, a page of problems or of a list edit) is said by the document as
    // stored now, which may have been revised meanwhile.
    if !fresh && !matches!(decoded, Ok(Ok(Answer::Export { .. }))) {
        return Answered::OutOfDate;
    }
    let answer = match decoded {
        Ok(Ok(a)) => a,
        Ok(Err(r)) => return Answered::Done(r),
        Err(_) => {
            return Answered::Done(problem(
                StatusCode::INTERNAL_SERVER_ERROR,
                "The answers could not be read on an internal error; please report it.",
            ));
        }
    };
    let (inputs, annotations, export, notices, reviewer, submission, verdict) = match answer {
        Answer::Edited(page, frame_src) => {
            let mut r = html(StatusCode::OK, page, frame_src);
            no_store(&mut r);
            return Answered::Done(r);
        }
        Answer::Problem(status, page, frame_src) => {
            let mut r = html(status, page, frame_src);
            no_store(&mut r);
            return Answered::Done(r);
        }
        Answer::Export {
            inputs,
            annotations,
            export,
            notices,
            reviewer,
            submission,
            verdict,
        } => (
            inputs,
            annotations,
            with_verdict_line(export, verdict.as_deref()),
            notices,
            reviewer,
            submission,
            verdict,
        ),
    };
    // A browser's form always gets a receipt: one the page did not carry is made here.
    let submission = match (submission, idempotency_key) {
        (Some(given), Some(key)) if given != *key => {
            return Answered::Done(problem(
                StatusCode::UNPROCESSABLE_ENTITY,
                "The Idempotency-Key header and \"submission_id\" differ; send one of them, or the same in both.",
            ));
        }
        (_, Some(key)) => Some(key.clone()),
        (None, None) if checked => new_submission(),
        (other, None) => other,
    };
    // What a repeat with the same key must match to be answered with the first response.
    let sent = idempotency_key
        .is_some()
        .then(|| (inputs.clone(), annotations.clone(), reviewer.clone()));
    if let Err(e) = check_stored_size(
        &inputs,
        &annotations,
        &export,
        reviewer.as_deref(),
        state.config.max_answer_bytes,
    )
    .and_then(|()| take_answer_token(&state.answer_limiter, id, client))
    {
        return Answered::Done(refused(e, browser));
    }
    let for_secret = recipient.as_ref().and(secret.clone());
    let kept = Kept {
        reviewer,
        component_inputs: inputs,
        annotations,
        export,
        submission: submission.clone(),
        recipient,
        verdict,
        revision: doc.revision,
    };
    let stored = match routing.respond_with(id, kept).await {
        Ok(stored) => stored,
        Err(RoutingError::Stale { .. }) if !fresh => return Answered::OutOfDate,
        Err(e) => return Answered::Done(refused(e, browser)),
    };
    if let Some((inputs, annotations, reviewer)) = sent
        && (stored.component_inputs != inputs
            || stored.annotations != annotations
            || stored.reviewer != reviewer)
    {
        return Answered::Done(refused(RoutingError::IdempotencyMismatch, false));
    }
    let mut r = match (checked, &submission) {
        // Post/Redirect/Get: the receipt is a page of its own, so reloading it sends nothing.
        (true, Some(k)) => {
            let mut r = html(StatusCode::SEE_OTHER, Bytes::new(), None);
            let back = for_secret.map_or_else(String::new, |s| format!("&for={s}"));
            let at = format!("/r/{id}/sent?n={}&k={k}{back}", stored.response_id);
            if let Ok(v) = HeaderValue::try_from(at) {
                r.headers_mut().insert(header::LOCATION, v);
            }
            r
        }
        _ => private_json(
            StatusCode::CREATED,
            &json!({ "response_id": stored.response_id, "export": stored.export }),
        ),
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
    Answered::Done(r)
}

/// What a reader's post amounts to.
// One per post, moved once: its size does not matter.
#[allow(clippy::large_enum_variant)]
enum Answer {
    /// A list edit without JavaScript: the page again, with the edit made (nothing kept).
    Edited(String, Option<&'static str>),
    /// The page again with what was entered and a summary of the problems (nothing kept).
    Problem(StatusCode, String, Option<&'static str>),
    /// Answers to keep.
    Export {
        inputs: Value,
        /// The reader's comments on the prose (contract §7), `[]` when none.
        annotations: Value,
        export: String,
        notices: Vec<String>,
        reviewer: Option<String>,
        /// The form's submission id (or the JSON's `submission_id`), when it carried one.
        submission: Option<String>,
        /// The verdict's label chosen, one of the document's.
        verdict: Option<String>,
    },
}

/// The review page's form post. The page carries no copy of the document: it goes back in
/// here, from the store, in place of anything the post says it is. With `checked` (a
/// browser's post), a post with problems (unanswered questions not confirmed with "Send
/// anyway", "Other" chosen with nothing typed) comes back as the page with a summary.
fn decode_form(
    parts: &PageParts,
    markdown: &str,
    text: &str,
    checked: bool,
) -> Result<Answer, Resp> {
    let posted = passback_engine::parse_urlencoded(text)
        .map_err(|e| problem(StatusCode::BAD_REQUEST, format!("{e}.")))?;
    let mut reviewer = None;
    let mut submission = None;
    let mut confirmed = false;
    let mut verdict = None;
    let mut pairs = vec![
        ("pb.source".to_string(), markdown.to_string()),
        ("pb.surface".to_string(), Surface::Routed.name().to_string()),
    ];
    for (k, v) in posted {
        match k.as_str() {
            "pb.source" | "pb.surface" | REVISION_FIELD => {}
            "pb.reviewer" => reviewer = Some(v),
            SUBMISSION_FIELD => submission = Some(v).filter(|s| is_submission_id(s)),
            CONFIRM_FIELD => confirmed = true,
            VERDICT_FIELD => verdict = Some(v),
            _ => pairs.push((k, v)),
        }
    }
    let reviewer = reviewer_name(reviewer.as_deref())?;
    let verdict = chosen_verdict(parts.verdict.as_deref(), verdict.as_deref())
        .map_err(|e| problem(StatusCode::UNPROCESSABLE_ENTITY, e))?;
    let empty_others = empty_others(&pairs);
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
    // The page and everything written around it speak the document's language.
    let said = Speech::of(&post.doc);
    let again = |responses: &passback_engine::Responses, summary: Option<&str>| {
        let secret = parts.recipient.as_ref().map(|r| r.1.as_str());
        let page = passback_engine::render_with_answers(
            markdown,
            &routed_options(&parts.id, Format::Page, &parts.images, secret),
            responses,
        );
        let frame_src = page.frame_src;
        let page = with_verdict(
            page.into_body(),
            parts.verdict.as_deref(),
            verdict.as_deref(),
            said,
        );
        let mut intro = Intro::of(
            &post.doc,
            markdown,
            parts.expires_at,
            parts.verdict.is_some(),
        );
        intro.recipient = parts.recipient.as_ref().map(|r| r.0.clone());
        intro.sender = parts.sender.clone();
        let intro = intro.html(&page, said);
        let keep = submission.clone().or_else(new_submission);
        let page = decorate(page, Some(&intro), summary, keep.as_deref(), parts.revision);
        (page, frame_src)
    };
    if post.op == FormOp::Edit {
        post.responses.set_reviewer(reviewer.clone());
        let (page, frame_src) = again(&post.responses, None);
        return Ok(Answer::Edited(page, frame_src));
    }
    let inputs = passback_engine::answers_to_json(&post.doc, &post.responses);
    if checked {
        // A question with an empty "Other" has its own problem: it is not listed twice.
        let mut unanswered: Vec<String> = if confirmed {
            Vec::new()
        } else {
            unanswered(&post.doc, &inputs)
                .into_iter()
                .filter(|b| !empty_others.iter().any(|q| q.split('.').next() == Some(b)))
                .collect()
        };
        // The verdict is asked for like a question: left out, it is listed with them.
        if !confirmed && parts.verdict.is_some() && verdict.is_none() {
            unanswered.push(VERDICT_ID.to_string());
        }
        if !empty_others.is_empty() || !unanswered.is_empty() {
            post.responses.set_reviewer(reviewer.clone());
            let (mut page, frame_src) = again(&post.responses, None);
            let summary = problem_summary(&page, &empty_others, &unanswered, said);
            page = with_summary(page, &summary);
            for other in &empty_others {
                page = mark_field(page, &format!("{other}.other"), said);
                page = check_other(page, other);
            }
            let status = if empty_others.is_empty() {
                StatusCode::OK
            } else {
                StatusCode::UNPROCESSABLE_ENTITY
            };
            return Ok(Answer::Problem(status, page, frame_src));
        }
    }
    let export = passback_engine::export(&post.doc, &post.responses);
    let mut notices = post.notices;
    notices.extend(export.notices);
    Ok(Answer::Export {
        inputs,
        annotations: annotations_json(&post.responses),
        export: export.markdown,
        notices,
        reviewer,
        submission,
        verdict,
    })
}

/// `page` with `summary` first in its content.
fn with_summary(mut page: String, summary: &str) -> String {
    match page.find(PAGE_MAIN) {
        Some(at) => page.insert_str(at + PAGE_MAIN.len(), summary),
        None => page.insert_str(0, summary),
    }
    page
}

/// `{ "responses": {…}, "reviewer": "…", "verdict": "…" }`.
fn decode_json(doc: &Doc, text: &str, choices: Option<&[String]>) -> Result<Answer, Resp> {
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
    let submission = match json.get("submission_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if is_submission_id(s) => Some(s.clone()),
        Some(_) => {
            return Err(problem(
                StatusCode::UNPROCESSABLE_ENTITY,
                "\"submission_id\" must be 16 to 128 letters, digits, '-' or '_' (a UUID will do), or left out; a second post with the same one stores nothing new.",
            ));
        }
    };
    let verdict = match json.get("verdict") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.as_str()),
        Some(_) => {
            return Err(problem(
                StatusCode::UNPROCESSABLE_ENTITY,
                "\"verdict\" must be one of the document's verdict labels, as a string, or left out.",
            ));
        }
    };
    let verdict = chosen_verdict(choices, verdict)
        .map_err(|e| problem(StatusCode::UNPROCESSABLE_ENTITY, e))?;
    let checked = passback_engine::answers_from_json(doc, responses).map_err(|e| {
        problem(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("The responses do not fit the document: {e}."),
        )
    })?;
    let export = passback_engine::export(doc, &checked);
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
        submission,
        verdict,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::review::{Speech, with_notice};

    #[test]
    fn a_closed_page_says_so_at_the_top_of_its_content() {
        let page = "<html><body><main class=\"pb-page\"><div class=\"pb-doc\">x</div></main></body></html>";
        let said = Speech::of(&Doc::parse("x"));
        assert_eq!(with_notice(page.into(), Status::Open, said), page);
        let closed = with_notice(page.into(), Status::Closed, said);
        let notice = closed.find("This document is closed.").expect("the notice");
        assert!(
            notice > closed.find(PAGE_MAIN).unwrap() && notice < closed.find("pb-doc").unwrap()
        );
        assert!(with_notice(page.into(), Status::Expired, said).contains("has expired"));
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
