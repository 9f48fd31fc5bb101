//! The question model shared by `single-choice`, `multi-choice`, `open-question` and
//! `questionnaire`: the spec normalizes each standalone question to a one-question form, so the
//! fields, their rules, the markup and the export are written once, here.

use super::Kind;
use super::answer::{AnswersError, FormFields, err, join, object, only_keys, strings, text};
use super::check::{Checker, Obj, Routing, Seen};
use super::reviewer;
use super::shared::Shared;
use crate::diag::Code;
use crate::html::email;
use crate::html::i18n::{Lang, Strings};
use crate::html::{Digits, Num, OwnId, RenderCx, Text};
use crate::json::{Json, Value};
use maud::{Markup, PreEscaped, html};
use serde_json::Value as JsonValue;

/// A group of questions with the envelope fields the spec allows around them.
#[derive(Debug, Clone)]
pub struct QuestionSet {
    pub kind: Kind,
    pub title: Option<Shared>,
    pub source_summary: Option<Shared>,
    pub skill_version: Option<Shared>,
    pub routing: Option<Routing>,
    pub questions: Vec<Question>,
}

/// How a question is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Radio buttons plus the Other row.
    Single,
    /// Checkboxes plus the Other row.
    Multi,
    /// `options: []` with an `open_field`: one labelled text field.
    FreeText,
    /// The `open-question` component: one text area, answered as `Answer: {text}`.
    Open,
}

#[derive(Debug, Clone)]
pub struct Question {
    /// The author's id (empty for a standalone question without one).
    pub id: Shared,
    pub section: Option<Shared>,
    pub text: Shared,
    pub context: Option<Shared>,
    pub options: Vec<Shared>,
    pub mode: Mode,
    /// Indexes of the options that carry the Recommended badge.
    pub recommended: Vec<usize>,
    pub open_field: Option<OpenField>,
    /// `open-question`'s placeholder.
    pub placeholder: Option<Shared>,
}

/// `open_field`: renames the always-present Other row (or is the only field of a free-text
/// question).
#[derive(Debug, Clone)]
pub struct OpenField {
    pub label: Shared,
    pub placeholder: Option<Shared>,
}

impl Question {
    /// The label of the Other row (or free-text field) in the document's chrome language.
    pub fn other_label<'a>(&'a self, t: &'a Strings) -> &'a str {
        self.open_field
            .as_ref()
            .map_or(t.other, |f| f.label.as_str())
    }

    pub fn has_options(&self) -> bool {
        matches!(self.mode, Mode::Single | Mode::Multi)
    }
}

/// The envelope fields shared by every question-bearing component.
pub const ENVELOPE_FIELDS: [&str; 3] = ["version", "routing", "skill_version"];

/// What the component that holds a question allows.
pub struct Rules {
    pub kind: Kind,
    /// Allowed option counts; `None` for open-question (no options at all).
    pub options: Option<(usize, Option<usize>)>,
    /// Whether `multi` may be set on the question (questionnaire only).
    pub multi_field: bool,
    /// The mode when `multi` is absent.
    pub default_mode: Mode,
}

/// Parses one question object: the questionnaire's entries and the standalone components' whole
/// block. `extra_known` are envelope fields the caller handles itself.
pub fn parse_question(
    ck: &mut Checker,
    o: &Obj,
    rules: &Rules,
    extra_known: &[&str],
) -> Option<Question> {
    // The fields this question takes, as slices of constants: no list is built unless a field
    // is unknown.
    let options: &[&str] = match rules.options {
        Some(_) => &["options", "recommended", "open_field", "allow_note"],
        None => &["placeholder"],
    };
    let multi: &[&str] = if rules.multi_field {
        &["section", "multi"]
    } else {
        &[]
    };
    let alias: &[&str] = if o.get("question").is_none() && o.get("q").is_some() {
        &["q"]
    } else {
        &[]
    };
    // The bare-paste shortcut recognizes multi-choice by `"multi": true`; keep it quiet.
    let bare_multi: &[&str] = if rules.kind == Kind::MultiChoice {
        &["multi"]
    } else {
        &[]
    };
    let article = if rules.kind == Kind::OpenQuestion {
        "an"
    } else {
        "a"
    };
    ck.unknown_fields_among(
        o,
        &[
            &["id", "question", "context"],
            extra_known,
            options,
            multi,
            alias,
            bare_multi,
        ],
        format_args!("{article} {} question", rules.kind.tag()),
    );

    let id = if rules.multi_field {
        ck.required_shared(
            o,
            "id",
            "give every question a short unique id, e.g. \"id\": \"q1\"",
        )
    } else {
        // Optional here, but when given it must be a real id (spec §2.5: "as in §3").
        match o.get("id") {
            Some(v) => ck.nonempty_string(
                v,
                o.field("id"),
                "give the question a short id, e.g. \"id\": \"q1\", or remove it",
            ),
            None => Some(Shared::from("")),
        }
    };
    let text = question_text(ck, o);
    let context = ck.optional_text(o, "context");
    let section = if rules.multi_field {
        ck.optional_text(o, "section")
    } else {
        None
    };
    let multi = if rules.multi_field {
        ck.optional_bool(o, "multi")
    } else {
        None
    };
    ck.optional_bool(o, "allow_note");

    let Some((min, max)) = rules.options else {
        let placeholder = ck.optional_string(o, "placeholder");
        return Some(Question {
            id: id?,
            section,
            text: text?,
            context,
            options: Vec::new(),
            mode: Mode::Open,
            recommended: Vec::new(),
            open_field: None,
            placeholder,
        });
    };

    let open_field = parse_open_field(ck, o);
    let options = parse_options(
        ck,
        o,
        min,
        max,
        open_field.as_ref().is_some_and(Option::is_some),
    );
    let mode = match (&options, multi) {
        (Some(opts), _) if opts.is_empty() => Mode::FreeText,
        (_, Some(true)) => Mode::Multi,
        (_, Some(false)) => Mode::Single,
        _ => rules.default_mode,
    };
    let options = options?;
    let recommended = parse_recommended(ck, o, &options, mode);
    Some(Question {
        id: id?,
        section,
        text: text?,
        context,
        options,
        mode,
        recommended,
        open_field: open_field?,
        placeholder: None,
    })
}

/// `question`, or the forgiven alias `q` (with a warning).
fn question_text(ck: &mut Checker, o: &Obj) -> Option<Shared> {
    let hint = "write the prompt as \"question\": \"…\"";
    if o.get("question").is_none()
        && let Some(q) = o.get("q")
    {
        let text = ck.nonempty_string(q, o.field("q"), hint)?;
        let at = o
            .members
            .iter()
            .find(|m| m.key == "q")
            .map_or(o.at, |m| m.key_start);
        ck.warn(
            Code::QuestionAliasRescued,
            at,
            &o.path("q"),
            "`q` was read as `question`".into(),
            "rename the key to \"question\"; `q` is the only alias that is forgiven".into(),
        );
        return Some(text);
    }
    ck.required_shared(o, "question", hint)
}

/// `open_field`: outer `None` = invalid, `Some(None)` = absent.
fn parse_open_field(ck: &mut Checker, o: &Obj) -> Option<Option<OpenField>> {
    let Some(v) = o.get("open_field") else {
        return Some(None);
    };
    let f = ck.object(v, o.field("open_field"), "`open_field`")?;
    ck.unknown_fields(&f, &["label", "placeholder"], "`open_field`");
    let label = ck.required_shared(
        &f,
        "label",
        "give the free-text row a label, e.g. \"label\": \"I need to check with:\"",
    );
    let placeholder = ck.optional_string(&f, "placeholder");
    Some(Some(OpenField {
        label: label?,
        placeholder,
    }))
}

fn parse_options(
    ck: &mut Checker,
    o: &Obj,
    min: usize,
    max: Option<usize>,
    has_open_field: bool,
) -> Option<Vec<Shared>> {
    let hint = "list the choices as plain strings, e.g. \"options\": [\"PostgreSQL\", \"MySQL\"]";
    let items = ck.array(o, "options", true, hint)?;
    let path = o.field("options");
    let at = o.start_of("options");
    let mut options = Vec::with_capacity(items.len());
    let mut seen = Seen::new();
    let mut ok = true;
    for (i, item) in items.iter().enumerate() {
        match &item.value {
            Value::String(s) => {
                if super::check::blank(s) {
                    ck.warn(
                        Code::Empty,
                        item.start,
                        &path.index(i).pointer(),
                        format!("option {} is an empty string", i + 1),
                        "give every option a visible label".into(),
                    );
                } else if !seen.insert(s.as_ref()) {
                    ck.warn(
                        Code::DuplicateOption,
                        item.start,
                        &path.index(i).pointer(),
                        format!("option \"{s}\" appears twice"),
                        "remove the repeated option; answers are matched by label".into(),
                    );
                }
                if is_other(s) {
                    ck.warn(
                        Code::OtherInOptions,
                        item.start,
                        &path.index(i).pointer(),
                        format!("\"{s}\" duplicates the Other row the renderer always adds"),
                        "remove it; to rename the Other row use \"open_field\": { \"label\": \"…\" }".into(),
                    );
                }
                options.push(ck.keep(s));
            }
            other => {
                ok = false;
                ck.error(
                    Code::InvalidType,
                    item.start,
                    &path.index(i).pointer(),
                    format!(
                        "option {} must be a plain string, not {}",
                        i + 1,
                        other.type_name()
                    ),
                    "options are bare strings, e.g. [\"A\", \"B\"]; an option object is rejected"
                        .into(),
                );
            }
        }
    }
    if !ok {
        return None;
    }
    if items.is_empty() && min == 0 {
        if !has_open_field && o.get("open_field").is_none() {
            ck.error(
                Code::Empty,
                at,
                &path.pointer(),
                "`options` is empty and there is no `open_field`".into(),
                "list the options, or add \"open_field\": { \"label\": \"…\" } to make it a free-text question".into(),
            );
            return None;
        }
        return Some(options);
    }
    let min = min.max(1);
    if items.len() < min {
        ck.error(
            if items.is_empty() {
                Code::Empty
            } else {
                Code::TooFew
            },
            at,
            &path.pointer(),
            format!(
                "`options` has {}; this component needs at least {min}",
                count(items.len(), "entry", "entries")
            ),
            format!("give at least {min} options"),
        );
        return None;
    }
    if let Some(max) = max
        && items.len() > max
    {
        ck.error(
            Code::TooMany,
            at,
            &path.pointer(),
            format!(
                "`options` has {}; this component allows at most {max}",
                count(items.len(), "entry", "entries")
            ),
            format!("keep the {max} strongest options, or split the choice over two questions"),
        );
        return None;
    }
    Some(options)
}

/// `n` and the noun that agrees with it: "1 entry", "3 entries".
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Whether an option label is a hand-written "Other" row.
fn is_other(label: &str) -> bool {
    const OTHER: [&str; 9] = [
        "other",
        "others",
        "other (please specify)",
        "something else",
        "אחר",
        "أخر",
        "آخر",
        "أخرى",
        "غير ذلك",
    ];
    // "Other:", "Other: ___", "Other (please explain)": the word before the blank or the
    // parenthesis is what counts.
    let tail = |c: char| matches!(c, ':' | '.' | '…' | '_' | '-' | '—') || c.is_whitespace();
    let mut l = label.trim_end_matches(tail).trim();
    if l.ends_with(')')
        && let Some(open) = l.rfind('(')
    {
        l = l[..open].trim_end_matches(tail).trim();
    }
    // An ASCII label (most of them) compares without decoding: ASCII lowercasing is all
    // `to_lowercase` does to it.
    if l.is_ascii() {
        return OTHER.iter().any(|name| name.eq_ignore_ascii_case(l));
    }
    // Lowercased char by char as it is compared, not into a copy of every option. (This differs
    // from str::to_lowercase only for a word-final Σ, and no name above has a sigma.)
    OTHER
        .iter()
        .any(|name| l.chars().flat_map(char::to_lowercase).eq(name.chars()))
}

/// `recommended`: never rejects; labels that match no option are dropped with a warning.
fn parse_recommended(ck: &mut Checker, o: &Obj, options: &[Shared], mode: Mode) -> Vec<usize> {
    let Some(v) = o.get("recommended") else {
        return Vec::new();
    };
    let path = o.field("recommended");
    // The labels are the string itself or the array's strings, read twice rather than
    // collected: once to count them, once to match them.
    let entries: &[Json] = match &v.value {
        Value::String(_) => std::slice::from_ref(v),
        Value::Array(items) => items,
        _ => &[],
    };
    // (index in the array, offset, label); the index is `None` for a lone string.
    let in_array = v.as_array().is_some();
    let labels = || {
        entries
            .iter()
            .enumerate()
            .filter_map(move |(k, i)| i.as_str().map(|s| (in_array.then_some(k), i.start, s)))
    };
    let count = labels().count();
    let array_len = v.as_array().map(<[_]>::len);
    if count == 0 || array_len.is_some_and(|n| n != count) {
        ck.warn(
            Code::RecommendedMismatch,
            v.start,
            &path.pointer(),
            format!(
                "`recommended` must be an option label (a string{}); the rest is ignored",
                if mode == Mode::Multi {
                    " or an array of strings"
                } else {
                    ""
                }
            ),
            "copy the option's label exactly, e.g. \"recommended\": \"Magic link\"".into(),
        );
    }
    let mut picked = Vec::new();
    for (k, at, label) in labels() {
        match options.iter().position(|o| o == label) {
            Some(i) if !picked.contains(&i) => picked.push(i),
            Some(_) => {}
            None => ck.warn(
                Code::RecommendedMismatch,
                at,
                &k.map_or_else(|| path.pointer(), |k| path.index(k).pointer()),
                format!("`recommended` \"{label}\" matches no option, so no badge is shown"),
                "copy the option label exactly (same case and punctuation)".into(),
            ),
        }
    }
    if mode != Mode::Multi && picked.len() > 1 {
        ck.warn(
            Code::RecommendedMismatch,
            v.start,
            &path.pointer(),
            "a single-select question can recommend one option; only the first is shown".into(),
            "recommend one option, or make the question multi-select".into(),
        );
        picked.truncate(1);
    }
    picked
}

/// Implements [`super::Component`] for one of the four question components: a newtype over
/// [`QuestionSet`] whose module gives its tag, its parser and its bare-paste shape.
macro_rules! question_component {
    ($ty:ident, tag: $tag:literal, misnamed: $misnamed:expr, bare_rank: $rank:literal) => {
        #[derive(Debug, Clone)]
        pub struct $ty(pub QuestionSet);

        impl super::Component for $ty {
            const TAG: &'static str = $tag;
            const MISNAMED: &'static [&'static str] = $misnamed;
            const BARE_RANK: u8 = $rank;
            type Answer = Vec<question::QuestionAnswer>;

            fn parse(o: &super::check::Obj, ck: &mut super::check::Checker) -> Option<Self> {
                parse(o, ck).map($ty)
            }

            fn bare_shape(value: &crate::json::Json) -> bool {
                bare_shape(value)
            }

            fn render(
                &self,
                cx: &crate::html::RenderCx,
                answer: Option<&Self::Answer>,
            ) -> maud::Markup {
                question::render(&self.0, cx, answer.map(Vec::as_slice))
            }

            fn answer_from_json(
                &self,
                block: &str,
                value: &serde_json::Value,
            ) -> Result<Self::Answer, super::answer::AnswersError> {
                question::questions_json(block, &self.0, value)
            }

            fn answer_from_form(
                &self,
                fields: &mut super::answer::FormFields,
            ) -> Result<Self::Answer, super::answer::AnswersError> {
                question::questions_form(&self.0, fields)
            }

            fn answer_to_json(&self, answer: &Self::Answer) -> serde_json::Value {
                question::questions_to_json(&self.0, answer)
            }

            fn export(
                &self,
                answer: Option<&Self::Answer>,
                lang: crate::html::i18n::Lang,
            ) -> super::answer::Part {
                question::export_questions(&self.0, answer.map(Vec::as_slice), lang).into()
            }

            fn plain_text(&self, t: &crate::html::i18n::Strings, lines: &mut Vec<String>) {
                question::plain_text(&self.0, t, lines)
            }

            fn visible_text(&self, push: &mut dyn FnMut(&str)) {
                question::visible_text(&self.0, push)
            }

            fn page_title(&self) -> Option<&str> {
                self.0.title.as_deref()
            }
        }
    };
}
pub(crate) use question_component;

/// Reads the envelope fields shared by the standalone components.
pub fn parse_envelope(ck: &mut Checker, o: &Obj) -> (Option<Routing>, Option<Shared>) {
    ck.version(o);
    let routing = ck.routing(o);
    let skill_version = ck.optional_text(o, "skill_version");
    (routing, skill_version)
}

/// Markup for a whole question set.
pub fn render(set: &QuestionSet, cx: &RenderCx, answers: Option<&[QuestionAnswer]>) -> Markup {
    let email = cx.surface.is_email();
    let t = cx.t;
    let title_id = set.title.as_ref().map(|_| cx.id_parts("title"));
    // Email carries no model: skip building one there. (The classes and styles below are
    // constants, written as they are rather than through maud's escaping.)
    let set_model = (!email).then(|| model(set, cx.t));
    // The questions are written in this one buffer, not each in its own and then copied: a
    // section's group is opened and closed around its questions by hand (`SectionStart`).
    html! {
        @if let Some(model) = &set_model {
            (cx.root_start_with_model(title_id, model))
        } @else {
            (cx.root_start(title_id))
        }
        @if let Some(title) = &set.title {
            // The id is on the text, not the heading: mdBook's search indexes a heading with an id as
            // a section title and shows that text as HTML.
            h2 class=[(!email).then_some(PreEscaped("pb-title"))] style=[email.then_some(PreEscaped(email::TITLE))] { span id=[title_id] { (Text(title)) } }
        }
        @if let Some(summary) = &set.source_summary {
            p class=[(!email).then_some(PreEscaped("pb-summary"))] style=[email.then_some(PreEscaped(email::MUTED))] { (Text(summary)) }
        }
        @if let Some(r) = &set.routing {
            @if email { (r.render_email()) } @else { (r.render()) }
        }
        @for (g, (section, members)) in sections(&set.questions).enumerate() {
            @let g = Digits::new(g);
            @if let Some(section) = section {
                (SectionStart { id: cx.numbered_id("-s", &g, ""), title: section, email })
            }
            @for index in members {
                @let q = &set.questions[index];
                @let prior = answers.and_then(|a| a.get(index));
                @if email {
                    (email_question(q, cx))
                } @else {
                    @let n = Digits::new(index);
                    @let id_head = cx.numbered_id("-q", &n, "-").joined();
                    @let name_head = cx.numbered_name(".q", &n, ".").joined();
                    @let (id_base, name_base) = (id_head.base(), name_head.base());
                    // Ids and names of the question's parts stay in parts: no allocation for each.
                    @let qid = |s| id_base.id(s);
                    @let name = |s| name_base.id(s);
                    @let context_id = q.context.as_ref().map(|_| qid("ctx"));
                    @let note = prior.and_then(|a| a.note.as_deref()).unwrap_or("");
                    @let other_text = prior.and_then(|a| a.other.as_deref());
                    @match q.mode {
                        Mode::Open => {
                            @let text_id = qid("text");
                            div class="pb-question pb-open" data-pb-question=(Num(index)) {
                                label class="pb-question-text" for=(text_id) { (Text(&q.text)) }
                                @if let Some(c) = &q.context { p class="pb-context" id=[&context_id] { (Text(c)) } }
                                textarea id=(text_id) name=(name("text")) rows="3"
                                    placeholder=[q.placeholder.as_deref().map(Text)] aria-describedby=[&context_id] {
                                    (Text(prior.and_then(|a| a.text.as_deref()).unwrap_or("")))
                                }
                            }
                        }
                        Mode::FreeText => {
                            @let field = q.open_field.as_ref();
                            @let other_id = qid("other");
                            fieldset class="pb-question pb-free-text" data-pb-question=(Num(index)) aria-describedby=[&context_id] {
                                legend class="pb-question-text" { (Text(&q.text)) }
                                @if let Some(c) = &q.context { p class="pb-context" id=[&context_id] { (Text(c)) } }
                                label class="pb-other-label" for=(other_id) { (Text(q.other_label(t))) }
                                input type="text" id=(other_id) name=(name("other")) value=[other_text.map(Text)]
                                    placeholder=[field.and_then(|f| f.placeholder.as_deref()).map(Text)];
                            }
                        }
                        Mode::Single | Mode::Multi => {
                            @let multi = q.mode == Mode::Multi;
                            // A constant, written as it is rather than through maud's escaping.
                            @let input_type = if multi { "checkbox" } else { "radio" };
                            @let hint_id = multi.then(|| qid("hint"));
                            @let described = match (q.context.is_some(), multi) {
                                (true, true) => Some(id_base.id_list("ctx", Some("hint"))),
                                (true, false) => Some(id_base.id_list("ctx", None)),
                                (false, true) => Some(id_base.id_list("hint", None)),
                                (false, false) => None,
                            };
                            @let other_label_id = qid("other-label");
                            @let other_option_id = qid("o-other");
                            @let pick = name("pick");
                            fieldset class={ "pb-question " @if multi { "pb-multi" } @else { "pb-single" } }
                                data-pb-question=(Num(index)) aria-describedby=[described] {
                                legend class="pb-question-text" { (Text(&q.text)) }
                                @if let Some(c) = &q.context { p class="pb-context" id=[&context_id] { (Text(c)) } }
                                @if let Some(h) = &hint_id { p class="pb-hint" id=(h) { (Text(t.select_all)) } }
                                div class="pb-options" {
                                    @for (i, option) in q.options.iter().enumerate() {
                                        @let rec = q.recommended.contains(&i);
                                        @let i_str = Digits::new(i);
                                        @let option_id = id_base.numbered("o", &i_str, "");
                                        @let badge_id = rec.then(|| id_base.numbered("o", &i_str, "-rec"));
                                        div class={ "pb-option" @if rec { " pb-recommended" } } {
                                            input type=(PreEscaped(input_type)) id=(option_id) name=(pick)
                                                value=(Num(i)) aria-describedby=[&badge_id] checked[prior.is_some_and(|a| a.picks.contains(&i))];
                                            label for=(option_id) { (Text(option)) }
                                            @if let Some(b) = &badge_id { span class="pb-badge" id=(b) { (Text(t.recommended)) } }
                                        }
                                    }
                                    div class="pb-option pb-other" {
                                        input type=(PreEscaped(input_type)) id=(other_option_id) name=(pick) value="other" checked[other_text.is_some()];
                                        label for=(other_option_id) id=(other_label_id) { (Text(q.other_label(t))) }
                                        input type="text" class="pb-other-text" id=(qid("other")) name=(name("other")) value=[other_text.map(Text)]
                                            aria-labelledby=(other_label_id)
                                            placeholder=[q.open_field.as_ref().and_then(|f| f.placeholder.as_deref()).map(Text)];
                                    }
                                }
                                (super::check::note_box(cx, qid("note"), &name("note"), t.note, note))
                            }
                        }
                    }
                }
            }
            @if section.is_some() { (PreEscaped("</div>")) }
        }
        (cx.root_end())
    }
}

/// The opening of a section's group and its heading, as maud would write
/// `div … { h3 … { span id=… { title } } …` up to the questions: [`render`] writes the
/// section's questions after it and closes the `div` itself.
struct SectionStart<'a> {
    id: OwnId<'a, 4>,
    title: &'a str,
    email: bool,
}

impl maud::Render for SectionStart<'_> {
    fn render_to(&self, out: &mut String) {
        if self.email {
            out.push_str("<div><h3 style=\"");
            out.push_str(email::TITLE);
            out.push_str("\">");
        } else {
            out.push_str("<div class=\"pb-section\" role=\"group\" aria-labelledby=\"");
            self.id.render_to(out);
            out.push_str("\"><h3 class=\"pb-section-title\">");
        }
        out.push_str("<span id=\"");
        self.id.render_to(out);
        out.push_str("\">");
        Text(self.title).render_to(out);
        out.push_str("</span></h3>");
    }
}

/// The `data-pb-model` of a question set: what the export prints around the reader's picks.
/// Written by hand (see [`crate::html::model`]); the derive is what the tests hold the writing
/// to.
#[derive(serde::Serialize)]
struct SetModel<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    from: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skill: Option<&'a str>,
    questions: QuestionModels<'a>,
}

/// Each question's model, made as it is written rather than collected first.
struct QuestionModels<'a> {
    questions: &'a [Question],
    t: &'a Strings,
}

impl<'a> QuestionModels<'a> {
    fn iter(&self) -> impl Iterator<Item = QuestionModel<'a>> {
        let t = self.t;
        self.questions.iter().map(move |q| QuestionModel {
            text: &q.text,
            mode: match q.mode {
                Mode::Single => "single",
                Mode::Multi => "multi",
                Mode::FreeText => "free",
                Mode::Open => "open",
            },
            options: q.has_options().then_some(&q.options[..]),
            other: (q.mode != Mode::Open).then(|| q.other_label(t)),
        })
    }
}

impl serde::Serialize for QuestionModels<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

#[derive(serde::Serialize)]
struct QuestionModel<'a> {
    text: &'a str,
    mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    options: Option<&'a [Shared]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    other: Option<&'a str>,
}

impl crate::html::model::WriteModel for SetModel<'_> {
    fn write_model(&self, json: &mut crate::html::model::ModelJson) {
        json.open('{');
        json.optional_string("title", self.title);
        json.optional_string("from", self.from);
        json.optional_string("skill", self.skill);
        json.key("questions");
        json.open('[');
        for q in self.questions.iter() {
            json.open('{');
            json.key("text");
            json.string(q.text);
            json.key("mode");
            json.string(q.mode);
            if let Some(options) = q.options {
                json.strings("options", options);
            }
            json.optional_string("other", q.other);
            json.close('}');
        }
        json.close(']');
        json.close('}');
    }
}

fn model<'a>(set: &'a QuestionSet, t: &'a Strings) -> SetModel<'a> {
    SetModel {
        title: set.title.as_deref(),
        from: set.routing.as_ref().map(|r| r.from.as_str()),
        skill: set.skill_version.as_deref(),
        questions: QuestionModels {
            questions: &set.questions,
            t,
        },
    }
}

/// Consecutive questions with the same `section` form one group (spec: strictly consecutive):
/// its title, borrowed, and the range of its questions, found as the groups are written rather
/// than collected first.
fn sections(
    questions: &[Question],
) -> impl Iterator<Item = (Option<&str>, std::ops::Range<usize>)> + '_ {
    let mut start = 0;
    std::iter::from_fn(move || {
        let section = questions.get(start)?.section.as_deref();
        let members = questions[start..]
            .iter()
            .take_while(|q| q.section.as_deref() == section)
            .count();
        let group = (section, start..start + members);
        start += members;
        Some(group)
    })
}

/// A read-only preview for mail: options with empty glyphs, the badge, the Other row. In an
/// email nobody can answer (no Respond link), the options are a plain bulleted list, with no
/// glyph, blank or Other row that would look like something to fill in.
fn email_question(q: &Question, cx: &RenderCx) -> Markup {
    let t = cx.t;
    if !cx.answerable {
        return html! {
            div style="margin:0 0 12px;" {
                h3 style=(email::QUESTION) { (Text(&q.text)) }
                @if let Some(c) = &q.context { p style=(email::MUTED) { (Text(c)) } }
                @if matches!(q.mode, Mode::Single | Mode::Multi) {
                    // Mail clients ignore logical properties: the indent is on the reading side.
                    ul style=(if cx.rtl { "margin:0 0 8px;padding:0 24px 0 0;" } else { "margin:0 0 8px;padding:0 0 0 24px;" }) {
                        @for (i, option) in q.options.iter().enumerate() {
                            li style=(email::ITEM) {
                                (option)
                                @if q.recommended.contains(&i) { " " strong class="pb-badge" style=(email::BADGE) { (t.recommended) } }
                            }
                        }
                    }
                }
            }
        };
    }
    let glyph = if q.mode == Mode::Multi { "☐" } else { "○" };
    html! {
        div style="margin:0 0 12px;" {
            // A heading: screen-reader users move from question to question.
            h3 style=(email::QUESTION) { (Text(&q.text)) }
            @if let Some(c) = &q.context { p style=(email::MUTED) { (Text(c)) } }
            @match q.mode {
                Mode::Single | Mode::Multi => {
                    @if q.mode == Mode::Multi { p style=(email::MUTED) { (t.select_all) } }
                    ul style=(email::LIST) {
                        @for (i, option) in q.options.iter().enumerate() {
                            li style=(email::ITEM) {
                                span aria-hidden="true" { (glyph) " " } (option)
                                @if q.recommended.contains(&i) { " " strong class="pb-badge" style=(email::BADGE) { (t.recommended) } }
                            }
                        }
                        li style=(email::ITEM) { span aria-hidden="true" { (glyph) " " } (q.other_label(t)) " ____" }
                    }
                }
                Mode::FreeText => p style=(email::ITEM) { (q.other_label(t)) " ____" },
                Mode::Open => p style=(email::ITEM) { (t.your_answer) ": ____" },
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Answers and export

/// The reader's answer to one question.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QuestionAnswer {
    /// Chosen option indexes, in option order.
    pub picks: Vec<usize>,
    /// Text typed in the Other row (or the free-text field), when chosen.
    pub other: Option<String>,
    pub note: Option<String>,
    /// The open-question answer.
    pub text: Option<String>,
}

impl QuestionAnswer {
    fn is_empty(&self) -> bool {
        self.picks.is_empty() && self.other.is_none() && self.note.is_none() && self.text.is_none()
    }
}

pub fn questions_json(
    block: &str,
    set: &QuestionSet,
    v: &JsonValue,
) -> Result<Vec<QuestionAnswer>, AnswersError> {
    let o = object(block, "", v)?;
    let mut answers = vec![QuestionAnswer::default(); set.questions.len()];
    if set.kind == Kind::Questionnaire {
        only_keys(block, "", o, &["questions"])?;
        let Some(qs) = o.get("questions") else {
            return Ok(answers);
        };
        let qs = object(block, "questions", qs)?;
        for (qid, qv) in qs {
            let field = format!("questions.{qid}");
            let indexes: Vec<usize> = set
                .questions
                .iter()
                .enumerate()
                .filter(|(_, q)| &q.id == qid)
                .map(|(i, _)| i)
                .collect();
            if indexes.is_empty() {
                let ids: Vec<&str> = set.questions.iter().map(|q| q.id.as_str()).collect();
                return Err(err(
                    block,
                    &field,
                    format!("no question has this id; the ids are {}", ids.join(", ")),
                ));
            }
            for i in indexes {
                answers[i] = question_json(block, &field, &set.questions[i], qv)?;
            }
        }
    } else {
        answers[0] = question_json(block, "", &set.questions[0], v)?;
    }
    Ok(answers)
}

/// A question set's answers as JSON responses write them: the one question's object for a
/// standalone question, `{ "questions": { id: … } }` for a questionnaire (unanswered questions
/// left out; of two questions that share an id, the first answered one).
pub fn questions_to_json(set: &QuestionSet, answers: &[QuestionAnswer]) -> JsonValue {
    let answered = set
        .questions
        .iter()
        .zip(answers)
        .filter(|(_, a)| !a.is_empty());
    if set.kind != Kind::Questionnaire {
        return answered
            .map(|(q, a)| question_to_json(q, a))
            .next()
            .unwrap_or_else(|| JsonValue::Object(serde_json::Map::new()));
    }
    let mut questions = serde_json::Map::new();
    for (q, a) in answered {
        if !questions.contains_key(q.id.as_str()) {
            questions.insert(q.id.to_string(), question_to_json(q, a));
        }
    }
    serde_json::json!({ "questions": questions })
}

fn question_to_json(q: &Question, a: &QuestionAnswer) -> JsonValue {
    let mut o = serde_json::Map::new();
    match q.mode {
        Mode::Open => {
            if let Some(t) = &a.text {
                o.insert("text".into(), t.as_str().into());
            }
        }
        Mode::FreeText => {
            if let Some(t) = &a.other {
                o.insert("other".into(), t.as_str().into());
            }
        }
        Mode::Single | Mode::Multi => {
            let selected: Vec<JsonValue> = a
                .picks
                .iter()
                .filter_map(|&i| q.options.get(i))
                .map(|label| label.as_str().into())
                .collect();
            if !selected.is_empty() {
                o.insert("selected".into(), selected.into());
            }
            if let Some(t) = &a.other {
                o.insert("other".into(), t.as_str().into());
            }
            if let Some(t) = &a.note {
                o.insert("note".into(), t.as_str().into());
            }
        }
    }
    JsonValue::Object(o)
}

fn question_json(
    block: &str,
    field: &str,
    q: &Question,
    v: &JsonValue,
) -> Result<QuestionAnswer, AnswersError> {
    let o = object(block, field, v)?;
    match q.mode {
        Mode::Open => {
            only_keys(block, field, o, &["text"])?;
            Ok(QuestionAnswer {
                text: text(block, &join(field, "text"), o.get("text"))?,
                ..Default::default()
            })
        }
        // A free-text question has no note field (spec §3.2: notes are on option-bearing
        // questions), so a note could never come from the form.
        Mode::FreeText => {
            only_keys(block, field, o, &["other"])?;
            Ok(QuestionAnswer {
                other: text(block, &join(field, "other"), o.get("other"))?,
                ..Default::default()
            })
        }
        Mode::Single | Mode::Multi => {
            only_keys(block, field, o, &["selected", "other", "note"])?;
            let f = join(field, "selected");
            let mut picks = Vec::new();
            for label in strings(block, &f, o.get("selected"))? {
                let i = q
                    .options
                    .iter()
                    .position(|opt| opt == label)
                    .ok_or_else(|| {
                        err(
                            block,
                            &f,
                            format!(
                                "\"{label}\" is not an option; the options are {}",
                                q.options
                                    .iter()
                                    .map(|o| format!("\"{o}\""))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        )
                    })?;
                if !picks.contains(&i) {
                    picks.push(i);
                }
            }
            picks.sort_unstable();
            let other = text(block, &join(field, "other"), o.get("other"))?;
            if q.mode == Mode::Single && picks.len() + usize::from(other.is_some()) > 1 {
                return Err(err(
                    block,
                    field,
                    "a single-choice question takes one answer: give one `selected` label or `other`, not both",
                ));
            }
            Ok(QuestionAnswer {
                picks,
                other,
                note: text(block, &join(field, "note"), o.get("note"))?,
                text: None,
            })
        }
    }
}

pub fn questions_form(
    set: &QuestionSet,
    fields: &FormFields,
) -> Result<Vec<QuestionAnswer>, AnswersError> {
    let block = fields.block();
    let mut out = Vec::with_capacity(set.questions.len());
    for (qi, q) in set.questions.iter().enumerate() {
        let get = |s: &str| fields.text(&format!("q{qi}.{s}"));
        let mut a = QuestionAnswer {
            note: matches!(q.mode, Mode::Single | Mode::Multi)
                .then(|| get("note"))
                .flatten(),
            ..Default::default()
        };
        match q.mode {
            Mode::Open => a.text = get("text"),
            Mode::FreeText => a.other = get("other"),
            Mode::Single | Mode::Multi => {
                let mut other_chosen = false;
                for v in fields.values(&format!("q{qi}.pick")) {
                    if v == "other" {
                        other_chosen = true;
                        continue;
                    }
                    let i = v
                        .parse::<usize>()
                        .ok()
                        .filter(|i| *i < q.options.len())
                        .ok_or_else(|| {
                            err(
                                block,
                                &format!("q{qi}.pick"),
                                format!(
                                    "\"{v}\" is not an option of this question; reload the form"
                                ),
                            )
                        })?;
                    if !a.picks.contains(&i) {
                        a.picks.push(i);
                    }
                }
                a.picks.sort_unstable();
                // A radio group posts one value; two (an option and Other) is a hand-made post,
                // refused as the JSON path refuses an option and `other` together.
                if q.mode == Mode::Single && a.picks.len() + usize::from(other_chosen) > 1 {
                    return Err(err(
                        block,
                        &format!("q{qi}.pick"),
                        "a single-choice question takes one answer",
                    ));
                }
                // Text typed in the Other row counts as choosing it, unless another option of
                // a single-choice question was explicitly chosen.
                let other = get("other");
                if other_chosen
                    || (other.is_some() && (q.mode == Mode::Multi || a.picks.is_empty()))
                {
                    a.other = other;
                }
            }
        }
        out.push(a);
    }
    Ok(out)
}

/// Spec §3.5, shared by the questionnaire and the three standalone questions.
pub fn export_questions(
    set: &QuestionSet,
    answers: Option<&[QuestionAnswer]>,
    lang: Lang,
) -> String {
    let t = lang.strings();
    let answers = answers.unwrap_or_default();
    let entries: Vec<String> = set
        .questions
        .iter()
        .zip(answers)
        .filter(|(_, a)| !a.is_empty())
        .map(|(q, a)| {
            let mut lines = vec![format!("**Q: {}**", q.text)];
            let mut picks: Vec<String> = a
                .picks
                .iter()
                .filter_map(|i| q.options.get(*i).map(|o| o.to_string()))
                .collect();
            if let Some(other) = &a.other {
                picks.push(format!("{} {}", q.other_label(t), reviewer::text(other)));
            }
            if let Some(text) = &a.text {
                picks.push(reviewer::text(text));
            }
            match picks.len() {
                0 => {}
                1 => lines.push(format!("Answer: {}", picks[0])),
                _ => {
                    lines.push("Answers:".to_string());
                    lines.extend(picks.iter().map(|p| format!("- {p}")));
                }
            }
            if let Some(note) = &a.note {
                lines.push(format!("Note: {}", reviewer::text(note)));
            }
            lines.join("\n")
        })
        .collect();
    if entries.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    if let Some(r) = &set.routing {
        out.push_str(&format!("Answers → {}\n\n", r.from));
    } else if let Some(title) = &set.title {
        out.push_str(&format!("## {title}\n\n"));
    }
    out.push_str(&entries.join("\n\n---\n\n"));
    if let Some(v) = &set.skill_version {
        out.push_str(&format!("\n\n<!-- question-extractor:v{v} -->"));
    }
    out
}

/// The plain-text form of a question set (see [`super::Component::plain_text`]).
pub fn plain_text(set: &QuestionSet, t: &Strings, lines: &mut Vec<String>) {
    if let Some(title) = &set.title {
        lines.push(title.to_uppercase());
    }
    if let Some(summary) = &set.source_summary {
        lines.push(summary.to_string());
    }
    if let Some(r) = &set.routing {
        lines.push(r.return_prompt.to_string());
    }
    let mut section: Option<&str> = None;
    for q in &set.questions {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        if let Some(title) = q.section.as_deref().filter(|t| Some(*t) != section) {
            lines.push(format!("== {title} =="));
            lines.push(String::new());
        }
        section = q.section.as_deref();
        lines.push(format!("{} {}", t.question_mark, q.text));
        if let Some(c) = &q.context {
            lines.push(format!("   {c}"));
        }
        let glyph = if q.mode == Mode::Multi { "[ ]" } else { "( )" };
        match q.mode {
            Mode::Single | Mode::Multi => {
                if q.mode == Mode::Multi {
                    lines.push(format!("   ({})", t.select_all));
                }
                for (i, o) in q.options.iter().enumerate() {
                    let rec = if q.recommended.contains(&i) {
                        format!(" ({})", t.recommended)
                    } else {
                        String::new()
                    };
                    lines.push(format!("   {glyph} {o}{rec}"));
                }
                lines.push(format!("   {glyph} {} ____", q.other_label(t)));
            }
            Mode::FreeText => lines.push(format!("   {} ____", q.other_label(t))),
            Mode::Open => lines.push(format!("   {}: ____", t.your_answer)),
        }
    }
}

/// Every string of a question set the reader sees.
pub fn visible_text(set: &QuestionSet, push: &mut dyn FnMut(&str)) {
    for q in &set.questions {
        push(&q.text);
        q.options.iter().for_each(|o| push(o));
        if let Some(c) = &q.context {
            push(c);
        }
    }
    if let Some(t) = &set.title {
        push(t);
    }
}

#[cfg(test)]
mod tests {
    use super::{Mode, OpenField, Question, QuestionModels, SetModel, Shared, is_other};
    use crate::components::check::tests::{serde_model, written_model};

    proptest::proptest! {
        #[test]
        fn set_models_write_as_serde_json_would(
            texts in proptest::collection::vec(proptest::option::of(".{0,12}"), 3),
            questions in proptest::collection::vec(
                (".{0,12}", 0..4usize, proptest::collection::vec(".{0,8}", 0..4), proptest::option::of(".{0,8}")),
                0..4,
            ),
        ) {
            let questions: Vec<Question> = questions
                .iter()
                .map(|(text, mode, options, other)| Question {
                    id: Shared::from(""),
                    section: None,
                    text: Shared::from(text.as_str()),
                    context: None,
                    options: options.iter().map(|o| Shared::from(o.as_str())).collect(),
                    mode: [Mode::Single, Mode::Multi, Mode::FreeText, Mode::Open][*mode],
                    recommended: Vec::new(),
                    open_field: other.as_deref().map(|label| OpenField {
                        label: Shared::from(label),
                        placeholder: None,
                    }),
                    placeholder: None,
                })
                .collect();
            let model = SetModel {
                title: texts[0].as_deref(),
                from: texts[1].as_deref(),
                skill: texts[2].as_deref(),
                questions: QuestionModels {
                    questions: &questions,
                    t: crate::html::i18n::Lang::En.strings(),
                },
            };
            proptest::prop_assert_eq!(written_model(&model), serde_model(&model));
        }
    }

    #[test]
    fn the_other_row_is_recognized_however_it_is_dressed() {
        for other in [
            "Other",
            "other:",
            "Other: ___",
            "Other (please specify)",
            "Other (explain below)…",
            "  Something else. ",
            "אחר:",
            "غير ذلك",
        ] {
            assert!(is_other(other), "{other:?}");
        }
        for option in [
            "Otherwise",
            "Another vendor",
            "Other teams' tools",
            "(Other)",
            "None",
        ] {
            assert!(!is_other(option), "{option:?}");
        }
    }
}
