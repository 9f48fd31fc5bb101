//! The reader's routes (contract §6): the routed document at its review link, and the
//! answers posted back from it (the page's form without JavaScript, or JSON). The rules are the
//! routing core's ([`crate::routing`]); its refusals are answered through [`refused`], as
//! pages when a browser asked.
//!
//! | route | what |
//! |---|---|
//! | `GET /r/{id}` | the document on the routed surface; closed or expired, with no way to send; `?edit={n}&k={submission}` fills the form with a sent response; `?for={secret}` is a recipient's own link: it greets them and its form posts as them |
//! | `POST /r/{id}/responses` | keep the reader's answers: a browser is sent (303) to its receipt, a client gets JSON |
//! | `GET /r/{id}/sent?n={response_id}&k={submission}` | the reader's receipt: what they sent, and a way to edit it |
//!
//! Nothing lost, nothing doubled: a browser's post with unanswered questions, or with "Other"
//! chosen and left empty, comes back as the form with what was entered and a summary of the
//! problems at the top (nothing is kept until the reader sends anyway, or fixes them). Every
//! rendered form carries a random submission id (`pb.submission`): a second post of the same
//! form (a double click, a resend) finds the response the first one kept. A successful post
//! answers 303 to the receipt, so reloading it sends nothing.
//!
//! A document that asks for a verdict gets its step last, before the form's buttons: a
//! fieldset of radios (`pb.verdict`), listed with the unanswered questions when left out.
//!
//! The post's handling (decoding, checking) is in `post`, the problem summary it sends back
//! in `summary`, what the server writes around the page in `decoration`, the receipt in
//! `receipt`; the review page itself is here.

// Readers return a ready response as their error, as in `request`.
#![allow(clippy::result_large_err)]

use super::refusal::refused;
use super::render::render_uncached;
use super::request::wants_html;
use super::response::{Resp, html, no_store, problem, unadmitted};
use crate::routing::{Routing, RoutingError};
use crate::state::AppState;
use crate::store::{Document, Millis, Status, StoredResponse};
use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper::{Method, Request, StatusCode};
use passback_engine::{Doc, Format, ImagePolicy, Options, Surface};
use std::sync::Arc;

mod decoration;
mod post;
mod receipt;
mod stale;
mod summary;
use decoration::*;
pub use post::respond_to;
pub use receipt::receipt;
use receipt::{receipt_query, render_sent};
use summary::{block_field_id, block_heading};

/// The longest reviewer name kept.
const MAX_REVIEWER_CHARS: usize = 200;

/// The form's hidden submission id, and the "Send anyway" button's field.
const SUBMISSION_FIELD: &str = "pb.submission";
/// The form's hidden field naming the revision it was rendered from (contract §6.2).
const REVISION_FIELD: &str = "pb.revision";
const CONFIRM_FIELD: &str = "pb.confirm";

/// The review form's element id, for the error summary's "Send anyway" button above it.
const FORM_ID: &str = "pb-review-form";

/// The components a reader answers as questions (the intro counts them); the two lists among
/// them are answered as they stand ("kept unchanged") when left alone.
const QUESTION_KINDS: [&str; 6] = [
    "single-choice",
    "multi-choice",
    "open-question",
    "questionnaire",
    "prioritize",
    "allocate",
];
const LIST_KINDS: [&str; 2] = ["prioritize", "allocate"];

/// A new submission id: 128 random bits, base64url.
fn new_submission() -> Option<String> {
    crate::store::random_secret(16).ok()
}

/// The options a routed document renders with: the routed surface, its form posting back to
/// this server by id (and through a recipient's link, with their secret), no copy of the
/// source in the form, and the server's image policy.
fn routed_options(
    id: &str,
    format: Format,
    images: &ImagePolicy,
    recipient: Option<&str>,
) -> Options {
    let action = match recipient {
        Some(secret) => format!("/r/{id}/responses?for={secret}"),
        None => format!("/r/{id}/responses"),
    };
    Options::default()
        .with_images(images.clone())
        .with_surface(Surface::Routed)
        .with_format(format)
        .with_answers_action(Some(action))
        .with_form_source(false)
}

/// The recipient's secret in a review link's or a post's query (`?for=…`), when it has one:
/// the page and its form are then theirs (contract §6.2).
pub(super) fn recipient_query(query: Option<&str>) -> Option<String> {
    let pairs = passback_engine::parse_urlencoded(query?).ok()?;
    pairs.into_iter().find(|(k, _)| k == "for").map(|(_, v)| v)
}

/// The verdict's step (contract §6.2): a fieldset of radios, one per choice, last before the
/// form's buttons; `chosen` is checked.
fn verdict_step(choices: &[String], chosen: Option<&str>, said: Speech) -> String {
    maud::html! {
        div class="pb-block pb-verdict" id=(VERDICT_ID) lang=(said.lang) dir=(said.dir) {
            fieldset class="pb-question pb-single" {
                legend class="pb-question-text" { (said.t.verdict) }
                p class="pb-hint" { (said.t.verdict_hint) }
                div class="pb-options" {
                    @for (n, choice) in choices.iter().enumerate() {
                        @let option = format!("{VERDICT_ID}-{n}");
                        div class="pb-option" {
                            input type="radio" id=(option) name=(VERDICT_FIELD) value=(choice)
                                checked[chosen == Some(choice.as_str())];
                            label for=(option) { bdi { (choice) } }
                        }
                    }
                }
            }
        }
    }
    .into_string()
}

/// `page` with the verdict's step before the form's own row of buttons, when `choices` asks
/// for one; as it is otherwise. In the document's language (`said`).
fn with_verdict(
    mut page: String,
    choices: Option<&[String]>,
    chosen: Option<&str>,
    said: Speech,
) -> String {
    let Some(choices) = choices else {
        return page;
    };
    let end = page.find("</form>").unwrap_or(page.len());
    if let Some(at) = page[..end].rfind(FORM_ACTIONS) {
        let step = verdict_step(choices, chosen, said);
        page.insert_str(at, &step);
    }
    page
}

/// The verdict's form field, and its step's element id (the error summary links to its first
/// choice).
const VERDICT_FIELD: &str = "pb.verdict";
const VERDICT_ID: &str = "pb-verdict";

/// The form's own row of buttons, as the engine writes it.
const FORM_ACTIONS: &str = "<div class=\"pb-actions\">";

/// What a reader's GET of `id` starts from: the routing core, whether a browser asked, and the
/// kept document; or the refusal to answer with (no store, unknown, deleted or purged).
async fn reader_get(
    state: &AppState,
    req: &Request<Incoming>,
    id: &str,
) -> Result<(Routing, bool, Document), Resp> {
    let Some(routing) = state.routing.clone() else {
        return Err(refused(RoutingError::StoreOff, false));
    };
    let browser = wants_html(req);
    match routing.live(id).await {
        Ok(doc) => Ok((routing, browser, doc)),
        Err(e) => Err(refused(e, browser)),
    }
}

/// `GET /r/{id}`. A closed or expired document is shown with a notice at the top, and its
/// form has nowhere to post (no "Send answers" button; with the script, "Copy answers" still
/// copies what the reader filled in). An open one starts with an intro (what it is, how many
/// questions, until when, what Send does), and with `?edit={n}&k={submission}` (the receipt's
/// "Edit your response") its form holds the answers of that response.
pub async fn page(state: Arc<AppState>, req: Request<Incoming>, id: &str) -> Resp {
    let (routing, browser, doc) = match reader_get(&state, &req, id).await {
        Ok(found) => found,
        Err(refusal) => return refusal,
    };
    // A recipient's link: theirs, or nothing (a secret of another document, or made up).
    let secret = recipient_query(req.uri().query());
    let recipient = match &secret {
        Some(secret) => match routing
            .recipient(id, secret, req.method() == Method::GET)
            .await
        {
            Ok(r) => Some(r),
            Err(e) => return refused(e, browser),
        },
        None => None,
    };
    if req.method() == Method::GET {
        routing.count_view(id).await;
    }
    let status = doc.status;
    let edit = receipt_query(req.uri().query());
    let prefill = match (status, edit) {
        (Status::Open, Some((n, k))) => routing.receipt(id, n, &k).await.ok().flatten(),
        _ => None,
    };
    let for_secret = recipient.as_ref().and(secret.as_deref());
    let chosen = prefill.as_ref().and_then(|p| p.verdict.clone());
    let options = match status {
        Status::Open => routed_options(id, Format::Page, &state.config.images, for_secret),
        _ => routed_options(id, Format::Page, &state.config.images, None).with_answers_action(None),
    };
    // A response to an earlier revision is carried to this one where it fits.
    let answered = match &prefill {
        Some(sent) if sent.revision != doc.revision => routing
            .revision_text(id, sent.revision)
            .await
            .ok()
            .flatten(),
        _ => None,
    };
    let engine_state = state.clone();
    let markdown = doc.markdown.clone();
    let rendered = state
        .slots()
        .run(move || {
            // The intro and the notices read the document too: its questions and its language.
            let parsed = Doc::parse(&markdown);
            let (rendered, left) = match prefill {
                Some(sent) => {
                    let (sent, left) = match answered {
                        Some(old) => carried_over(&old, &markdown, sent),
                        None => (sent, Vec::new()),
                    };
                    render_sent(&parsed, &markdown, &options, &sent)
                        .map(|r| (r, left))
                        .unwrap_or_else(|| {
                            (
                                render_uncached(&engine_state, &markdown, &options),
                                Vec::new(),
                            )
                        })
                }
                None => (
                    render_uncached(&engine_state, &markdown, &options),
                    Vec::new(),
                ),
            };
            (rendered, left, parsed)
        })
        .await;
    let (rendered, left, parsed) = match rendered {
        Ok(r) => r,
        Err(refused) => return unadmitted(refused),
    };
    let said = Speech::of(&parsed);
    let frame_src = rendered.frame_src;
    let blocked = rendered.blocked_images;
    let submission = new_submission();
    let body = if status == Status::Open {
        let page = with_verdict(
            rendered.into_body(),
            doc.verdict.as_deref(),
            chosen.as_deref(),
            said,
        );
        let mut intro = Intro::of(
            &parsed,
            &doc.markdown,
            doc.expires_at,
            doc.verdict.is_some(),
        );
        intro.recipient = recipient.as_ref().map(|r| r.name.clone());
        intro.sender = doc.sender.clone();
        let intro = intro.html(&page, said);
        let revised = (!left.is_empty()).then(|| revised_notice(doc.revision, &left, false, said));
        decorate(
            page,
            Some(&intro),
            revised.as_deref(),
            submission.as_deref(),
            doc.revision,
        )
    } else {
        with_notice(rendered.into_body(), status, said)
    };
    let body = with_image_note(body, blocked, said);
    let mut r = html(StatusCode::OK, Bytes::from(body), frame_src);
    no_store(&mut r);
    r.headers_mut()
        .insert("x-robots-tag", HeaderValue::from_static("noindex"));
    // A recipient's link holds their secret: it is not passed on to anything the page links to.
    if recipient.is_some() {
        r.headers_mut()
            .insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    }
    r
}

/// A response to an earlier revision (`old`), its answers carried to `markdown` where they
/// fit, and what does not fit, in words.
fn carried_over(old: &str, markdown: &str, sent: StoredResponse) -> (StoredResponse, Vec<String>) {
    let carried =
        crate::routing::carry::carry(old, markdown, &sent.component_inputs, &sent.annotations);
    let mut inputs = carried.inputs;
    let annotations = inputs
        .as_object_mut()
        .and_then(|m| m.remove("annotations"))
        .unwrap_or_else(|| serde_json::Value::Array(Vec::new()));
    (
        StoredResponse {
            component_inputs: inputs,
            annotations,
            ..sent
        },
        carried.left,
    )
}

/// The notice at the top of a page whose answers were carried from an earlier revision: that
/// the document changed, and each answer that has no place in it any more, with the reader's
/// own words. `posted`: the reader's post was not kept (it answered the earlier revision).
/// In the document's language (`said`).
fn revised_notice(revision: u64, left: &[String], posted: bool, said: Speech) -> String {
    let [title, after_post, since, no_place] = said.t.revised;
    maud::html! {
        div class="pb-error-summary pb-revised" tabindex="-1" role="status" lang=(said.lang)
            dir=(said.dir) data-pb-revision=(revision) {
            h2 { (title) }
            p { (if posted { after_post } else { since }) }
            @if !left.is_empty() {
                p { (no_place) }
                ul {
                    @for item in left { li { (item) } }
                }
            }
        }
    }
    .into_string()
}

/// What the page sent back to a browser is made with, beside the document.
struct PageParts {
    id: String,
    expires_at: Millis,
    images: ImagePolicy,
    /// The verdict's choices, when the document asks for one.
    verdict: Option<Vec<String>>,
    /// The recipient whose link the post came through: their name and secret.
    recipient: Option<(String, String)>,
    /// The revision the page shows (its form's hidden field).
    revision: u64,
    /// The sender's display name, for the intro.
    sender: Option<String>,
}

/// The checked comments of `responses`, as contract §7 writes them.
fn annotations_json(responses: &passback_engine::Responses) -> serde_json::Value {
    serde_json::to_value(responses.annotations())
        .unwrap_or_else(|_| serde_json::Value::Array(Vec::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page_in(lang: &str, dir: &str) -> String {
        format!(
            "<html><body><main class=\"pb-page\"><div class=\"pb-doc\" lang=\"{lang}\" dir=\"{dir}\">x</div></main></body></html>"
        )
    }

    /// The closed, expired, revised and blocked-images notices speak the document's language,
    /// marked with its `lang` and `dir`: a Hebrew or Arabic page has no English notice.
    #[test]
    fn notices_speak_the_document_language() {
        for (lang, dir, markdown) in [
            ("en", "ltr", "Is the budget approved?\n"),
            ("he", "rtl", "האם התקציב מאושר?\n"),
            ("ar", "rtl", "هل تمت الموافقة على الميزانية؟\n"),
        ] {
            let t = passback_engine::chrome_strings(lang);
            let marked = format!("lang=\"{lang}\" dir=\"{dir}\"");
            let said = Speech::of(&Doc::parse(markdown));
            assert_eq!((said.lang, said.dir), (lang, dir));
            let closed = with_notice(page_in(lang, dir), Status::Closed, said);
            assert!(closed.contains(t.closed_notice[0]) && closed.contains(t.closed_notice[1]));
            let expired = with_notice(page_in(lang, dir), Status::Expired, said);
            assert!(expired.contains(t.expired_notice[0]));
            let one = with_image_note(page_in(lang, dir), 1, said);
            assert!(one.contains(t.images_blocked[0]), "{one}");
            let three = with_image_note(page_in(lang, dir), 3, said);
            let many = passback_engine::Strings::fill(t.images_blocked[1], "3");
            assert!(three.contains(&many) && many.contains('3'), "{three}");
            let left = ["“Old answer”".to_string()];
            let posted = revised_notice(2, &left, true, said);
            let since = revised_notice(2, &[], false, said);
            assert!(posted.contains(t.revised[0]) && posted.contains(t.revised[1]));
            assert!(posted.contains(t.revised[3]) && posted.contains("“Old answer”"));
            assert!(since.contains(t.revised[2]) && !since.contains(t.revised[3]));
            for notice in [&closed, &expired, &one, &posted, &since] {
                assert!(notice.contains(&marked), "{notice}");
            }
            if lang != "en" {
                for notice in [&closed, &expired, &one, &three, &posted, &since] {
                    for english in ["This ", "Its ", "answers", " image"] {
                        assert!(!notice.contains(english), "{english} in {notice}");
                    }
                }
            }
        }
    }

    /// The intro names the sender in a `<bdi>`, escaped, in the page's language; without one,
    /// it has no such line.
    #[test]
    fn the_intro_names_the_sender() {
        let page = page_in("he", "rtl");
        let markdown = "# בקשה לאישור\n";
        let doc = Doc::parse(markdown);
        let said = Speech::of(&doc);
        assert_eq!((said.lang, said.dir), ("he", "rtl"));
        let mut intro = Intro::of(&doc, markdown, 0, false);
        assert!(!intro.html(&page, said).contains("pb-intro-from"));
        intro.sender = Some("<b>דנה</b>".into());
        let html = intro.html(&page, said);
        assert!(
            html.contains("מאת <bdi>&lt;b&gt;דנה&lt;/b&gt;</bdi> לקבלת"),
            "{html}"
        );
    }
}
