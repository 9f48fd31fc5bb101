//! The error summary on a form sent back with problems, and the marks on its fields.

use super::{CONFIRM_FIELD, FORM_ID, LIST_KINDS, QUESTION_KINDS, Speech, VERDICT_ID};
use passback_engine::Doc;
use serde_json::Value;

/// The questions (`b3.q0`, `b4.q2`, … as their fields are named) where "Other" was chosen and
/// nothing typed after it.
pub(super) fn empty_others(pairs: &[(String, String)]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (k, v) in pairs {
        let Some(question) = k.strip_suffix(".pick") else {
            continue;
        };
        if v != "other" || out.iter().any(|q| q == question) {
            continue;
        }
        let other = format!("{question}.other");
        let typed = pairs
            .iter()
            .any(|(name, text)| *name == other && !text.trim().is_empty());
        if !typed {
            out.push(question.to_string());
        }
    }
    out
}

/// The blocks a reader answers as questions and left unanswered (the lists are answered as
/// they stand), in document order.
pub(super) fn unanswered(doc: &Doc, inputs: &Value) -> Vec<String> {
    doc.blocks()
        .filter(|b| {
            let tag = b.kind.tag();
            b.valid && QUESTION_KINDS.contains(&tag) && !LIST_KINDS.contains(&tag)
        })
        .filter(|b| inputs.get(&b.id).is_none_or(empty_answer))
        .map(|b| b.id.clone())
        .collect()
}

/// Whether an answer says nothing: null, or only empty lists and maps (a questionnaire with no
/// question answered is `{"questions": {}}`).
fn empty_answer(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(list) => list.iter().all(empty_answer),
        Value::Object(map) => map.values().all(empty_answer),
        _ => false,
    }
}

/// The error summary at the top of the page sent back (after GOV.UK's): each problem a link
/// to its field, and with unanswered questions alone, "Send anyway". In the document's language
/// (`said`).
pub(super) fn problem_summary(
    page: &str,
    empty_others: &[String],
    unanswered: &[String],
    said: Speech,
) -> String {
    let t = said.t;
    let title = if empty_others.is_empty() {
        match unanswered.len() {
            1 => t.summary_unanswered[0].to_string(),
            n => passback_engine::Strings::fill(t.summary_unanswered[1], &n.to_string()),
        }
    } else {
        t.summary_problem.to_string()
    };
    // The items are HTML (a block's heading is taken from the page as it is written there).
    let text = |s: &str| maud::html! { (s) }.into_string();
    let mut items: Vec<(String, String)> = Vec::new();
    for question in empty_others {
        let field = format!("{question}.other");
        let target = field_id(page, &field).unwrap_or_default();
        items.push((target, text(t.other_empty)));
    }
    for block in unanswered {
        if block == VERDICT_ID {
            items.push((format!("{VERDICT_ID}-0"), text(t.verdict)));
            continue;
        }
        let target = block_field_id(page, block).unwrap_or_default();
        let heading = block_heading(page, block).unwrap_or_else(|| block.clone());
        items.push((target, heading));
    }
    let only_unanswered = empty_others.is_empty();
    maud::html! {
        div class="pb-error-summary" tabindex="-1" lang=(said.lang) dir=(said.dir)
            aria-labelledby="pb-error-summary-title" {
            h2 id="pb-error-summary-title" { (title) }
            @if only_unanswered {
                p { (t.summary_advice) }
            }
            ul {
                @for (target, text) in &items {
                    li {
                        @if target.is_empty() { (maud::PreEscaped(text)) }
                        @else { a href={ "#" (target) } { (maud::PreEscaped(text)) } }
                    }
                }
            }
            @if only_unanswered {
                div class="pb-actions" {
                    button type="submit" form=(FORM_ID) class="pb-secondary" name=(CONFIRM_FIELD) value="unanswered" { (t.send_anyway) }
                }
            }
        }
    }
    .into_string()
}

/// The element id of the control named `name` in `page`.
fn field_id(page: &str, name: &str) -> Option<String> {
    let at = page.find(&format!(" name=\"{name}\""))?;
    let start = page[..at].rfind('<')?;
    let end = at + page[at..].find('>')?;
    attribute(&page[start..end], "id")
}

/// The id of the first control of block `block` in `page`: where its summary link leads.
pub(super) fn block_field_id(page: &str, block: &str) -> Option<String> {
    let at = page.find(&format!(" data-pb-block=\"{block}\""))?;
    let rest = &page[at..];
    let input = [
        "<input type=\"radio\"",
        "<input type=\"checkbox\"",
        "<textarea",
        "<input type=\"text\"",
        "<input type=\"number\"",
        "<select",
    ]
    .iter()
    .filter_map(|t| rest.find(t))
    .min()?;
    let end = input + rest[input..].find('>')?;
    attribute(&rest[input..end], "id")
}

/// The value of `name` in a start tag the engine wrote (its values are escaped and quoted).
fn attribute(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let at = tag.find(&key)? + key.len();
    let end = tag[at..].find('"')?;
    Some(tag[at..at + end].to_string())
}

/// The text (escaped HTML, tags taken out) of block `block`'s question or title in `page`.
pub(super) fn block_heading(page: &str, block: &str) -> Option<String> {
    let at = page.find(&format!(" data-pb-block=\"{block}\""))?;
    let rest = &page[at..];
    let start = ["class=\"pb-question-text\"", "class=\"pb-title\""]
        .iter()
        .filter_map(|c| rest.find(c))
        .min()?;
    let open = start + rest[start..].find('>')? + 1;
    let close = ["</legend>", "</h2>", "</label>", "</p>", "</div>"]
        .iter()
        .filter_map(|c| rest[open..].find(c))
        .min()?;
    let mut text = String::new();
    let mut in_tag = false;
    for c in rest[open..open + close].chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    let text = text.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// `page` with question `question`'s "Other" choice checked again: the reader chose it (the
/// engine drops an "Other" with no text, so the form comes back without it).
pub(super) fn check_other(mut page: String, question: &str) -> String {
    let choice = format!(" name=\"{question}.pick\" value=\"other\"");
    if let Some(at) = page.find(&choice) {
        page.insert_str(at + choice.len(), " checked");
    }
    page
}

/// `page` with the control named `name` marked invalid and its message before it, in the
/// document's language (`said`).
pub(super) fn mark_field(page: String, name: &str, said: Speech) -> String {
    let Some(id) = field_id(&page, name) else {
        return page;
    };
    let Some(at) = page.find(&format!(" name=\"{name}\"")) else {
        return page;
    };
    let Some(start) = page[..at].rfind('<') else {
        return page;
    };
    let message = maud::html! {
        p class="pb-field-error" id={ (id) "-error" } lang=(said.lang) dir=(said.dir) {
            span class="pb-visually-hidden" { (said.t.error_prefix) } (said.t.other_empty)
        }
    }
    .into_string();
    let mut out = String::with_capacity(page.len() + message.len() + 64);
    out.push_str(&page[..start]);
    out.push_str(&message);
    out.push_str(&page[start..at]);
    out.push_str(&format!(
        " aria-invalid=\"true\" aria-describedby=\"{id}-error\""
    ));
    out.push_str(&page[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_other_chosen_with_nothing_typed_is_found_once() {
        let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
            list.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let posted = pairs(&[
            ("b1.q0.pick", "other"),
            ("b1.q0.other", "  "),
            ("b2.q0.pick", "other"),
            ("b2.q0.pick", "1"),
            ("b2.q0.other", "Gold"),
            ("b3.q1.pick", "other"),
            ("b3.q1.pick", "other"),
        ]);
        assert_eq!(empty_others(&posted), ["b1.q0", "b3.q1"]);
    }

    #[test]
    fn an_answer_of_empty_maps_says_nothing() {
        assert!(empty_answer(&json!({ "questions": {} })));
        assert!(empty_answer(&json!({ "selected": [] })));
        assert!(!empty_answer(
            &json!({ "questions": { "q1": { "other": "x" } } })
        ));
        assert!(!empty_answer(&json!({ "text": "" })));
    }

    #[test]
    fn a_field_is_marked_with_its_message_and_its_choice_checked() {
        let page = concat!(
            "<input type=\"radio\" id=\"p-o\" name=\"b1.q0.pick\" value=\"other\">",
            "<input type=\"text\" class=\"pb-other-text\" id=\"p-other\" name=\"b1.q0.other\">"
        );
        assert_eq!(field_id(page, "b1.q0.other").as_deref(), Some("p-other"));
        let said = Speech::of(&Doc::parse("x"));
        let marked = check_other(mark_field(page.to_string(), "b1.q0.other", said), "b1.q0");
        assert!(marked.contains("value=\"other\" checked>"), "{marked}");
        let message = marked.find("id=\"p-other-error\"").expect("the message");
        let field = marked
            .find("aria-describedby=\"p-other-error\"")
            .expect("described");
        assert!(message < field && marked.contains("aria-invalid=\"true\""));
    }
}
