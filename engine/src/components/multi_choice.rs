//! `multi-choice`: choose all options that apply, 2–6 of them (spec §2.5).

use super::question::{self, Mode, QuestionSet, Rules};
use super::{Checker, Kind, Obj};

pub fn parse(o: &Obj, ck: &mut Checker) -> Option<QuestionSet> {
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
