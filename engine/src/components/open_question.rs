//! `open-question`: a free-text answer (spec §2.5).

use super::Kind;
use super::check::{Checker, Obj};
use super::question::{self, Mode, QuestionSet, Rules};
use crate::json::Json;

question::question_component!(
    OpenQuestion,
    tag: "open-question",
    misnamed: &["question", "answer", "open_question", "openquestion", "free-text", "freetext", "text-input", "ask"],
    bare_rank: 3
);

/// A bare object claims to be this component when it asks a question and offers no options.
fn bare_shape(value: &Json) -> bool {
    (value.get("question").is_some() || value.get("q").is_some()) && value.get("options").is_none()
}

fn parse(o: &Obj, ck: &mut Checker) -> Option<QuestionSet> {
    let (routing, skill_version) = question::parse_envelope(ck, o);
    let rules = Rules {
        kind: Kind::OpenQuestion,
        options: None,
        multi_field: false,
        default_mode: Mode::Open,
    };
    let q = question::parse_question(ck, o, &rules, &question::ENVELOPE_FIELDS)?;
    Some(QuestionSet {
        kind: Kind::OpenQuestion,
        title: None,
        source_summary: None,
        skill_version,
        routing,
        questions: vec![q],
    })
}
