//! The component family: the [`Component`] trait every component implements, and the registry
//! that turns the list of components into [`Kind`] and the dispatch the rest of the engine calls.
//!
//! Each component lives in its own module and owns everything about it: parse and validate its
//! JSON into a typed value (reporting every problem with its place), render it (with the reader's
//! answer, when the form is shown again), read its answer from JSON or from the form post, export
//! that answer as Markdown, and describe itself in plain text. Nothing outside the module matches
//! on its fields. `question` holds what the four question components share, `list` what
//! prioritize and allocate share, `check` the validation helpers, `answer` the answer helpers.
//!
//! Adding a component is one new module implementing [`Component`] plus one line in
//! `registry!` below; `engine/tests/registry.rs` fails until its schema, fixtures, script entry
//! and styles exist too.

pub(crate) mod answer;
pub use youtube::decode_thumbnail;
pub(crate) mod check;
mod list;
pub(crate) mod question;
pub(crate) mod reviewer;
pub(crate) mod shared;

use crate::html::RenderCx;
use crate::html::i18n::{Lang, Strings};
use crate::json::Json;
use crate::options::Surface;
use answer::{AnswersError, FormFields, Part};
use check::{Checker, Obj, Path};
use maud::Markup;
use std::fmt::Debug;

/// Everything about one component kind.
pub(crate) trait Component: Sized + Debug + Clone {
    /// The fence info string, e.g. `single-choice`.
    const TAG: &'static str;
    /// Fence tags authors invent for this component (`rank` for `prioritize`): an unknown tag
    /// among them gets a hint naming the real one.
    const MISNAMED: &'static [&'static str] = &[];
    /// Whether the reader answers it (and so it needs a form and has an export).
    const TAKES_ANSWERS: bool = true;
    /// Where this component stands when a bare pasted JSON object is recognized by its shape
    /// (contract §1): lower ranks are asked first, and the first whose [`Component::bare_shape`]
    /// claims the object wins.
    const BARE_RANK: u8;

    /// The reader's answer.
    type Answer: Debug + Clone + PartialEq;

    /// Parses and validates the block's JSON object, reporting every problem to `ck`.
    fn parse(o: &Obj, ck: &mut Checker) -> Option<Self>;

    /// Whether a bare JSON object (not yet validated) has this component's shape, given that no
    /// component of a lower [`Component::BARE_RANK`] claimed it.
    fn bare_shape(value: &Json) -> bool;

    /// The component's markup, with the reader's answer filled in when there is one.
    fn render(&self, cx: &RenderCx, answer: Option<&Self::Answer>) -> Markup;

    /// The answer from the JSON responses (contract §4); anything that does not fit is an
    /// error naming the block and field.
    fn answer_from_json(
        &self,
        block: &str,
        value: &serde_json::Value,
    ) -> Result<Self::Answer, AnswersError>;

    /// The answer from the rendered form's own post, with any list edit the reader pressed
    /// applied.
    fn answer_from_form(&self, fields: &mut FormFields) -> Result<Self::Answer, AnswersError>;

    /// The answer as the JSON responses write it (contract §4), which
    /// [`Component::answer_from_json`] reads back to the same export: how a host keeps or
    /// forwards an answer that came in as a form post. An empty object when there is nothing to
    /// say.
    fn answer_to_json(&self, answer: &Self::Answer) -> serde_json::Value;

    /// The copy-back Markdown of an answer (`None`: the reader did nothing), empty when there is
    /// nothing to send back.
    fn export(&self, answer: Option<&Self::Answer>, lang: Lang) -> Part;

    /// The plain-text form of the component (the text part of a mail), as lines.
    fn plain_text(&self, t: &Strings, lines: &mut Vec<String>);

    /// Every string the reader sees, for direction and language detection.
    fn visible_text(&self, push: &mut dyn FnMut(&str));

    /// The title a page takes from this component when the document has no heading.
    fn page_title(&self) -> Option<&str> {
        None
    }

    /// A `frame-src` source the page's CSP must allow for this component on `surface`.
    fn frame_source(&self, _surface: Surface) -> Option<&'static str> {
        None
    }
}

/// `text` with `first` before its first line and `rest` before the others (a blank line gets
/// the prefix without its trailing spaces): how plain text indents a block.
pub(crate) fn prefix_lines(text: &str, first: &str, rest: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            let p = if i == 0 { first } else { rest };
            if l.is_empty() {
                p.trim_end().to_string()
            } else {
                format!("{p}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The answer type of a component that takes none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoAnswer {}

/// Generates the component modules' declarations, [`Kind`], [`AnyComponent`], [`AnyAnswer`]
/// and their dispatch from one list.
macro_rules! registry {
    ($($(#[$doc:meta])* $kind:ident => $module:ident :: $ty:ident,)*) => {
        $(mod $module;)*

        /// The component fence tags.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Kind {
            $($(#[$doc])* $kind,)*
        }

        impl Kind {
            /// Every kind, in the registry's order.
            pub const ALL: &'static [Kind] = &[$(Kind::$kind),*];

            /// The fence info string, e.g. `single-choice`.
            pub fn tag(self) -> &'static str {
                match self {
                    $(Kind::$kind => <$module::$ty as Component>::TAG,)*
                }
            }

            /// Whether the reader answers this component (and so it needs a form).
            pub fn takes_answers(self) -> bool {
                match self {
                    $(Kind::$kind => <$module::$ty as Component>::TAKES_ANSWERS,)*
                }
            }

            pub(crate) fn misnamed(self) -> &'static [&'static str] {
                match self {
                    $(Kind::$kind => <$module::$ty as Component>::MISNAMED,)*
                }
            }

            fn bare_rank(self) -> u8 {
                match self {
                    $(Kind::$kind => <$module::$ty as Component>::BARE_RANK,)*
                }
            }

            fn bare_shape(self, value: &Json) -> bool {
                match self {
                    $(Kind::$kind => <$module::$ty as Component>::bare_shape(value),)*
                }
            }
        }

        /// A validated component of any kind.
        #[derive(Debug, Clone)]
        pub(crate) enum AnyComponent {
            $($kind($module::$ty),)*
        }

        /// A checked answer to a component of any kind.
        #[derive(Debug, Clone, PartialEq)]
        pub(crate) enum AnyAnswer {
            $($kind(<$module::$ty as Component>::Answer),)*
        }

        impl AnyComponent {
            /// Parses and validates one block's JSON. `None` when any error was reported.
            pub fn parse(kind: Kind, root: &Json, ck: &mut Checker) -> Option<AnyComponent> {
                let obj = ck.object(root, Path::ROOT, "the block")?;
                let component = match kind {
                    $(Kind::$kind => <$module::$ty as Component>::parse(&obj, ck).map(AnyComponent::$kind),)*
                };
                if ck.errors > 0 { None } else { component }
            }

            /// Renders for a page, routed or email surface; an answer of another kind is ignored.
            pub fn render(&self, cx: &RenderCx, answer: Option<&AnyAnswer>) -> Markup {
                match self {
                    $(AnyComponent::$kind(c) => c.render(cx, match answer {
                        Some(AnyAnswer::$kind(a)) => Some(a),
                        _ => None,
                    }),)*
                }
            }

            pub fn answer_from_json(
                &self,
                block: &str,
                value: &serde_json::Value,
            ) -> Result<AnyAnswer, AnswersError> {
                match self {
                    $(AnyComponent::$kind(c) => c.answer_from_json(block, value).map(AnyAnswer::$kind),)*
                }
            }

            pub fn answer_from_form(&self, fields: &mut FormFields) -> Result<AnyAnswer, AnswersError> {
                match self {
                    $(AnyComponent::$kind(c) => c.answer_from_form(fields).map(AnyAnswer::$kind),)*
                }
            }

            /// `answer` as JSON responses write it; `None` for an answer of another kind.
            pub fn answer_to_json(&self, answer: &AnyAnswer) -> Option<serde_json::Value> {
                match (self, answer) {
                    $((AnyComponent::$kind(c), AnyAnswer::$kind(a)) => Some(c.answer_to_json(a)),)*
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }

            /// The export of `answer`; an answer of another kind counts as none.
            pub fn export(&self, answer: Option<&AnyAnswer>, lang: Lang) -> Part {
                match self {
                    $(AnyComponent::$kind(c) => c.export(match answer {
                        Some(AnyAnswer::$kind(a)) => Some(a),
                        _ => None,
                    }, lang),)*
                }
            }

            pub fn plain_text(&self, t: &Strings, lines: &mut Vec<String>) {
                match self {
                    $(AnyComponent::$kind(c) => c.plain_text(t, lines),)*
                }
            }

            pub fn visible_text(&self, push: &mut dyn FnMut(&str)) {
                match self {
                    $(AnyComponent::$kind(c) => c.visible_text(push),)*
                }
            }

            pub fn page_title(&self) -> Option<&str> {
                match self {
                    $(AnyComponent::$kind(c) => c.page_title(),)*
                }
            }

            pub fn frame_source(&self, surface: Surface) -> Option<&'static str> {
                match self {
                    $(AnyComponent::$kind(c) => c.frame_source(surface),)*
                }
            }
        }
    };
}

registry! {
    /// `single-choice`: one of 2–4 options.
    SingleChoice => single_choice::SingleChoice,
    /// `multi-choice`: any of 2–6 options.
    MultiChoice => multi_choice::MultiChoice,
    /// `open-question`: free text.
    OpenQuestion => open_question::OpenQuestion,
    /// `questionnaire`: several questions, optionally in sections.
    Questionnaire => questionnaire::Questionnaire,
    /// `prioritize`: rank a list; remove and add items.
    Prioritize => prioritize::Prioritize,
    /// `allocate`: split a total across categories.
    Allocate => allocate::Allocate,
    /// `youtube`: a video facade (takes no answer).
    Youtube => youtube::Youtube,
    /// `mermaid`: a diagram, with comments on its boxes and arrows.
    Mermaid => mermaid::Mermaid,
}

impl Kind {
    /// The kind a fence info string names exactly.
    pub fn from_tag(tag: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.tag() == tag)
    }

    /// The component whose invented tags include `tag` (see [`Component::MISNAMED`]).
    pub(crate) fn misnamed_as(tag: &str) -> Option<Kind> {
        Kind::ALL
            .iter()
            .copied()
            .find(|k| k.misnamed().contains(&tag))
    }

    /// The kind a bare pasted JSON object is, by its shape (contract §1).
    pub(crate) fn of_bare_object(value: &Json) -> Option<Kind> {
        value.as_object()?;
        let mut kinds = Kind::ALL.to_vec();
        kinds.sort_by_key(|k| k.bare_rank());
        kinds.into_iter().find(|k| k.bare_shape(value))
    }
}

impl serde::Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.tag())
    }
}
