//! `questionnaire`: a group of questions answered as one unit (spec §3).

use super::Kind;
use super::check::{Checker, Obj, Seen};
use super::question::{self, Mode, QuestionSet, Rules};
use crate::diag::Code;
use crate::json::Json;

question::question_component!(
    Questionnaire,
    tag: "questionnaire",
    misnamed: &["quiz", "survey", "form", "questions", "question-set", "questionaire"],
    bare_rank: 0
);

/// A bare object claims to be this component when it holds `questions`.
fn bare_shape(value: &Json) -> bool {
    value.get("questions").is_some()
}

const FIELDS: [&str; 6] = [
    "version",
    "questions",
    "title",
    "source_summary",
    "skill_version",
    "routing",
];

fn parse(o: &Obj, ck: &mut Checker) -> Option<QuestionSet> {
    ck.unknown_fields(o, &FIELDS, "a questionnaire");
    ck.version(o);
    let title = ck.optional_text(o, "title");
    let source_summary = ck.optional_text(o, "source_summary");
    let skill_version = ck.optional_text(o, "skill_version");
    let routing = ck.routing(o);
    let hint = "add \"questions\": [ { \"id\": \"q1\", \"question\": \"…\", \"options\": [\"…\", \"…\"] } ]";
    let items = ck.array(o, "questions", true, hint)?;
    if items.is_empty() {
        let at = o.start_of("questions");
        ck.error(
            Code::Empty,
            at,
            &o.path("questions"),
            "`questions` is an empty array".into(),
            hint.into(),
        );
        return None;
    }
    let rules = Rules {
        kind: Kind::Questionnaire,
        options: Some((0, None)),
        multi_field: true,
        default_mode: Mode::Single,
    };
    let mut questions = Vec::with_capacity(items.len());
    // Borrowed from the JSON: `q.id` is a copy of the question's "id" string.
    let mut ids = Seen::new();
    let questions_path = o.field("questions");
    for (i, item) in items.iter().enumerate() {
        let Some(qo) = ck.object(
            item,
            questions_path.index(i),
            format_args!("question {}", i + 1),
        ) else {
            continue;
        };
        if let Some(q) = question::parse_question(ck, &qo, &rules, &[]) {
            let id = qo.get("id").and_then(Json::as_str).unwrap_or_default();
            if !id.is_empty() && !ids.insert(id) {
                let at = qo.start_of("id");
                ck.warn(
                    Code::DuplicateId,
                    at,
                    &qo.path("id"),
                    format!(
                        "question id \"{}\" is used twice; the two questions share one answer",
                        q.id
                    ),
                    "give every question its own id".into(),
                );
            }
            questions.push(q);
        }
    }
    if ck.errors > 0 {
        return None;
    }
    Some(QuestionSet {
        kind: Kind::Questionnaire,
        title,
        source_summary,
        skill_version,
        routing,
        questions,
    })
}
