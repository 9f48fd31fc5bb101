//! `multi-choice`: choose all options that apply, 2–6 of them (spec §2.5).

use super::Kind;
use super::check::{Checker, Obj};
use super::question::{self, Mode, QuestionSet, Rules};
use crate::json::Json;

question::question_component!(
    MultiChoice,
    tag: "multi-choice",
    misnamed: &["multiple-choice", "multiple_choice", "multiplechoice", "multichoice", "checkbox", "checkboxes", "multi_choice", "multi-select", "multiselect"],
    bare_rank: 4
);

/// A bare object claims to be this component when it asks a question with options and says `multi: true` or recommends a list.
fn bare_shape(value: &Json) -> bool {
    let multi = matches!(
        value.get("multi").map(|m| &m.value),
        Some(crate::json::Value::Bool(true))
    ) || value.get("recommended").and_then(Json::as_array).is_some();
    (value.get("question").is_some() || value.get("q").is_some()) && multi
}

fn parse(o: &Obj, ck: &mut Checker) -> Option<QuestionSet> {
    let (routing, skill_version) = question::parse_envelope(ck, o);
    let rules = Rules {
        kind: Kind::MultiChoice,
        options: Some((2, Some(6))),
        multi_field: false,
        default_mode: Mode::Multi,
    };
    let q = question::parse_question(ck, o, &rules, &question::ENVELOPE_FIELDS)?;
    Some(QuestionSet {
        kind: Kind::MultiChoice,
        title: None,
        source_summary: None,
        skill_version,
        routing,
        questions: vec![q],
    })
}
