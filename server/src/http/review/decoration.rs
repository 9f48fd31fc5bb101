//! What the server writes around the engine's review page: the intro (title, who asks, how
//! many questions, until when), the closed and images notices, and the form's id, submission
//! id and revision fields, all in the document's language ([`Speech`]).

use super::*;

/// What the intro of an open review page says.
pub(super) struct Intro {
    title: String,
    /// The recipient whose link this is: the page greets them.
    pub(super) recipient: Option<String>,
    /// The sender's display name, when they gave one: the intro says who asks.
    pub(super) sender: Option<String>,
    /// The question blocks' ids, in document order.
    questions: Vec<String>,
    /// Whether the page asks for a verdict: its step counts as one more question.
    verdict: bool,
    expires_at: Millis,
}

impl Intro {
    /// The intro of `doc`, parsed from `markdown`.
    pub(super) fn of(doc: &Doc, markdown: &str, expires_at: Millis, verdict: bool) -> Intro {
        Intro {
            title: passback_engine::document_title(markdown),
            recipient: None,
            sender: None,
            questions: doc
                .blocks()
                .filter(|b| b.valid && QUESTION_KINDS.contains(&b.kind.tag()))
                .map(|b| b.id.clone())
                .collect(),
            verdict,
            expires_at,
        }
    }

    /// The intro of `page` (the rendered review page): with a list of links to its questions,
    /// a way through a long page. In the document's language (`said`).
    pub(super) fn html(&self, page: &str, said: Speech) -> String {
        let stamp = crate::store::rfc3339(self.expires_at);
        let (date, time) = stamp.split_once('T').unwrap_or((&stamp, ""));
        let time = time.get(..5).unwrap_or("");
        let t = said.t;
        let questions = match self.questions.len() + usize::from(self.verdict) {
            1 => t.review_questions[0].to_string(),
            n => passback_engine::Strings::fill(t.review_questions[1], &n.to_string()),
        };
        let (for_before, for_after) =
            passback_engine::Strings::split(t.review_for).unwrap_or((t.review_for, ""));
        let (send_before, send_after) =
            passback_engine::Strings::split(t.review_send).unwrap_or((t.review_send, ""));
        let (from_before, from_after) =
            passback_engine::Strings::split(t.review_from).unwrap_or((t.review_from, ""));
        let links: Vec<(String, String)> = self
            .questions
            .iter()
            .filter_map(|b| Some((block_field_id(page, b)?, block_heading(page, b)?)))
            .collect();
        maud::html! {
            section class="pb-intro" lang=(said.lang) dir=(said.dir) aria-label=(t.review_about) {
                @if let Some(name) = &self.recipient {
                    p class="pb-intro-for" { (for_before) bdi { (name) } (for_after) }
                }
                // A document that opens with its own h1 shows its title right below: the
                // intro does not say it twice.
                @if !self.title.is_empty() && !starts_with_h1(page) {
                    p class="pb-intro-title" { strong { (self.title) } }
                }
                // Written in a <bdi>: a name in another script keeps its own direction
                // without turning the sentence around it.
                @if let Some(name) = &self.sender {
                    p class="pb-intro-from" { (from_before) bdi { (name) } (from_after) }
                }
                p class="pb-intro-facts" {
                    (questions) " · " (t.review_open_until) " "
                    time datetime=(stamp) dir="ltr" { (date) " " (time) " UTC" }
                }
                p {
                    (send_before) strong { (t.send_answers) } (send_after)
                }
                p class="pb-progress" data-pb-progress hidden {}
                @if links.len() > 1 {
                    details class="pb-intro-questions" {
                        summary { (t.review_go_to) }
                        ol {
                            @for (target, text) in &links {
                                li { a href={ "#" (target) } { (maud::PreEscaped(text)) } }
                            }
                        }
                    }
                }
            }
        }
        .into_string()
    }
}

/// The language of the document (the `lang` and `dir` the engine writes on its page's
/// `.pb-doc`) and the engine's strings for it: what the server writes around the document
/// speaks as the page does. Read once per page, from the parsed document.
#[derive(Clone, Copy)]
pub(super) struct Speech {
    pub lang: &'static str,
    pub dir: &'static str,
    pub t: &'static passback_engine::Strings,
}

impl Speech {
    pub(super) fn of(doc: &Doc) -> Speech {
        Speech {
            lang: doc.lang_code(),
            dir: doc.dir(),
            t: passback_engine::chrome_strings(doc.lang_code()),
        }
    }
}

/// Whether the document in `page` (a rendered review page) opens with an h1: the first thing
/// after the form's hidden fields.
pub(super) fn starts_with_h1(page: &str) -> bool {
    let Some(at) = page.find(SURFACE_FIELD) else {
        return false;
    };
    let mut rest = page[at + SURFACE_FIELD.len()..].trim_start();
    while rest.starts_with("<input type=\"hidden\"") {
        match rest.find('>') {
            Some(end) => rest = rest[end + 1..].trim_start(),
            None => return false,
        }
    }
    rest.starts_with("<h1")
}

/// The review page with the server's parts: `summary` (the problems with a post) and `intro`
/// at the top of its content, and the form's id, submission id and revision.
pub(super) fn decorate(
    page: String,
    intro: Option<&str>,
    summary: Option<&str>,
    submission: Option<&str>,
    revision: u64,
) -> String {
    let mut page = page;
    if let Some(at) = page.find(FORM_START) {
        page.insert_str(at + "<form".len(), &format!(" id=\"{FORM_ID}\""));
    }
    if let Some(at) = page.find(SURFACE_FIELD) {
        let field = maud::html! { input type="hidden" name=(REVISION_FIELD) value=(revision); };
        page.insert_str(at + SURFACE_FIELD.len(), &field.into_string());
    }
    if let Some(submission) = submission
        && let Some(at) = page.find(SURFACE_FIELD)
    {
        let field = maud::html! { input type="hidden" name=(SUBMISSION_FIELD) value=(submission); };
        page.insert_str(at + SURFACE_FIELD.len(), &field.into_string());
    }
    let top = [summary, intro].into_iter().flatten().collect::<String>();
    match page.find(PAGE_MAIN) {
        Some(at) => page.insert_str(at + PAGE_MAIN.len(), &top),
        None => page.insert_str(0, &top),
    }
    page
}

/// The form's opening tag and its surface field, as the engine writes them.
pub(super) const FORM_START: &str = "<form class=\"pb-form\"";
pub(super) const SURFACE_FIELD: &str =
    "<input type=\"hidden\" name=\"pb.surface\" value=\"routed\">";

/// Where the page's content starts: the notice goes right after it.
pub(super) const PAGE_MAIN: &str = "<main class=\"pb-page\">";

/// `page` with a notice at the top of its content saying the document takes no answers, when
/// it is closed or expired; as it is when open. In the document's language (`speech`).
pub(super) fn with_notice(page: String, status: Status, speech: Speech) -> String {
    let [title, said] = match status {
        Status::Open => return page,
        Status::Closed => speech.t.closed_notice,
        Status::Expired => speech.t.expired_notice,
    };
    let notice = maud::html! {
        div class="pb-closed" role="status" lang=(speech.lang) dir=(speech.dir)
            data-pb-status=(status.name()) {
            p { strong { (title) } " " (said) }
        }
    }
    .into_string();
    at_top_of_main(page, &notice)
}

/// `page` with a short note at the top of its content when the server's image policy kept
/// `blocked` of the document's images from loading (each is shown as a link to it, or its
/// description): the reader knows something is missing and why. In the document's language
/// (`speech`).
pub(super) fn with_image_note(page: String, blocked: u32, speech: Speech) -> String {
    if blocked == 0 {
        return page;
    }
    let [one, many] = speech.t.images_blocked;
    let said = if blocked == 1 {
        one.to_string()
    } else {
        passback_engine::Strings::fill(many, &blocked.to_string())
    };
    let note = maud::html! {
        div class="pb-images-blocked" role="note" lang=(speech.lang) dir=(speech.dir) {
            p { (said) }
        }
    }
    .into_string();
    at_top_of_main(page, &note)
}

/// `page` with `block` first inside its main content (before everything when it has none).
fn at_top_of_main(page: String, block: &str) -> String {
    match page.find(PAGE_MAIN) {
        Some(at) => {
            let at = at + PAGE_MAIN.len();
            let mut out = String::with_capacity(page.len() + block.len());
            out.push_str(&page[..at]);
            out.push_str(block);
            out.push_str(&page[at..]);
            out
        }
        None => block.to_owned() + &page,
    }
}
