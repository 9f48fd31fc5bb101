//! `single-choice`: choose exactly one of 2–4 options (spec §2.5).

use super::Kind;
use super::check::{Checker, Obj};
use super::question::{self, Mode, QuestionSet, Rules};
use crate::json::Json;

question::question_component!(
    SingleChoice,
    tag: "single-choice",
    misnamed: &["choice", "select", "radio", "poll", "vote", "single_choice", "singlechoice", "single-select", "match"],
    bare_rank: 5
);

/// A bare object claims to be this component when it asks a question (with options: a bare question without them is an open question).
fn bare_shape(value: &Json) -> bool {
    value.get("question").is_some() || value.get("q").is_some()
}

fn parse(o: &Obj, ck: &mut Checker) -> Option<QuestionSet> {
    let (routing, skill_version) = question::parse_envelope(ck, o);
    let rules = Rules {
        kind: Kind::SingleChoice,
        options: Some((2, Some(4))),
        multi_field: false,
        default_mode: Mode::Single,
    };
    let q = question::parse_question(ck, o, &rules, &question::ENVELOPE_FIELDS)?;
    Some(QuestionSet {
        kind: Kind::SingleChoice,
        title: None,
        source_summary: None,
        skill_version,
        routing,
        questions: vec![q],
    })
}
