//! `single-choice`: choose exactly one of 2–4 options (spec §2.5).

use super::question::{self, Mode, QuestionSet, Rules};
use super::{Checker, Kind, Obj};

pub fn parse(o: &Obj, ck: &mut Checker) -> Option<QuestionSet> {
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
