//! What every component's answer code shares: the error that says which block and field does not
//! fit, the readers of JSON answers, the posted form fields of one block, and the export part.

use crate::html::Focus;
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;

/// What went wrong with an answer, so a host can answer it the right way (an HTTP server: 400
/// for [`AnswersErrorKind::Malformed`], 422 for [`AnswersErrorKind::DoesNotFit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AnswersErrorKind {
    /// The post is not one the engine's form makes: not UTF-8, or no document in `pb.source`.
    Malformed,
    /// The answers do not fit the document: an unknown block, field, option or item, a value
    /// of the wrong type or out of range.
    DoesNotFit,
}

/// A response that does not fit the document: which block, which field, and why.
///
/// ```
/// use passback_engine::{AnswersErrorKind, parse_urlencoded};
/// let err = parse_urlencoded("b1.q0.note=%FF").unwrap_err();
/// assert_eq!(err.kind(), AnswersErrorKind::Malformed);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct AnswersError {
    kind: AnswersErrorKind,
    /// The block id (`b3`), or empty for the post as a whole.
    pub block: String,
    /// The field within the block (`q0.pick`, `weights.a`), or empty.
    pub field: String,
    /// What is wrong and what to do, as a sentence without its final stop.
    pub message: String,
}

impl AnswersError {
    /// Which kind of problem this is.
    pub fn kind(&self) -> AnswersErrorKind {
        self.kind
    }

    /// A post that is not the engine's form (see [`AnswersErrorKind::Malformed`]).
    pub(crate) fn malformed(field: &str, message: impl Into<String>) -> AnswersError {
        AnswersError {
            kind: AnswersErrorKind::Malformed,
            ..err("", field, message)
        }
    }
}

impl fmt::Display for AnswersError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.block.is_empty(), self.field.is_empty()) {
            (true, true) => write!(f, "{}", self.message),
            (true, false) => write!(f, "{}: {}", self.field, self.message),
            (false, true) => write!(f, "{}: {}", self.block, self.message),
            (false, false) => write!(f, "{} {}: {}", self.block, self.field, self.message),
        }
    }
}

impl std::error::Error for AnswersError {}

/// An answer that does not fit block `block`'s `field`.
pub(crate) fn err(block: &str, field: &str, message: impl Into<String>) -> AnswersError {
    AnswersError {
        kind: AnswersErrorKind::DoesNotFit,
        block: block.to_string(),
        field: field.to_string(),
        message: message.into(),
    }
}

/// One block's export: its Markdown (empty when there is nothing to say) and anything the reader
/// should be told about how it was made.
#[derive(Debug, Default)]
pub(crate) struct Part {
    pub text: String,
    pub notice: Option<String>,
}

impl From<String> for Part {
    fn from(text: String) -> Part {
        Part { text, notice: None }
    }
}

/// `a, b, c`, or `none` for an empty list.
pub(crate) fn list_or_none(items: &[&str]) -> String {
    if items.is_empty() {
        "none".to_string()
    } else {
        items.join(", ")
    }
}

// ---------------------------------------------------------------------------------------------
// JSON answers

/// `v` as an object, or an error naming `field`.
pub(crate) fn object<'v>(
    block: &str,
    field: &str,
    v: &'v Value,
) -> Result<&'v serde_json::Map<String, Value>, AnswersError> {
    v.as_object().ok_or_else(|| {
        err(
            block,
            field,
            format!("must be a JSON object, not {}", type_name(v)),
        )
    })
}

/// Refuses any key of `o` outside `allowed`.
pub(crate) fn only_keys(
    block: &str,
    field: &str,
    o: &serde_json::Map<String, Value>,
    allowed: &[&str],
) -> Result<(), AnswersError> {
    match o.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(err(
            block,
            &join(field, k),
            format!("unknown field; this answer takes {}", allowed.join(", ")),
        )),
        None => Ok(()),
    }
}

/// `field.key`, or `key` at the top.
pub(crate) fn join(field: &str, key: &str) -> String {
    if field.is_empty() {
        key.to_string()
    } else {
        format!("{field}.{key}")
    }
}

/// How an error names a JSON value's type.
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// An optional text field; blank text counts as absent.
pub(crate) fn text(
    block: &str,
    field: &str,
    v: Option<&Value>,
) -> Result<Option<String>, AnswersError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(clean_text(s)),
        Some(other) => Err(err(
            block,
            field,
            format!("must be a string, not {}", type_name(other)),
        )),
    }
}

/// Typed text as the export keeps it: trimmed, CRLF as LF; blank is nothing.
pub(crate) fn clean_text(s: &str) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.replace("\r\n", "\n"))
}

/// A list of strings (a lone string counts as a list of one).
pub(crate) fn strings<'v>(
    block: &str,
    field: &str,
    v: Option<&'v Value>,
) -> Result<Vec<&'v str>, AnswersError> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                item.as_str().ok_or_else(|| {
                    err(
                        block,
                        &format!("{field}[{i}]"),
                        format!("must be a string, not {}", type_name(item)),
                    )
                })
            })
            .collect(),
        Some(Value::String(s)) => Ok(vec![s.as_str()]),
        Some(other) => Err(err(
            block,
            field,
            format!("must be an array of strings, not {}", type_name(other)),
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// The rendered form's own post

/// One block's fields in a form post (`bN.<suffix>`), the list edit it asks for, and what the
/// decode tells the page shown again: notices and where focus goes.
pub(crate) struct FormFields<'p, 'a> {
    block: &'a str,
    /// How notices name the block ([`crate::answers::notice_subject`]).
    subject: &'a str,
    by_name: &'a HashMap<&'p str, Vec<&'p str>>,
    op: Option<&'p str>,
    notices: &'a mut Vec<String>,
    focus: Option<Focus>,
}

impl<'p, 'a> FormFields<'p, 'a> {
    pub(crate) fn new(
        block: &'a str,
        subject: &'a str,
        notices: &'a mut Vec<String>,
        by_name: &'a HashMap<&'p str, Vec<&'p str>>,
    ) -> Self {
        let op = by_name
            .get(format!("{block}.op").as_str())
            .and_then(|v| v.first().copied())
            .filter(|o| !o.is_empty());
        FormFields {
            block,
            subject,
            by_name,
            op,
            notices,
            focus: None,
        }
    }

    /// The block id.
    pub fn block(&self) -> &'a str {
        self.block
    }

    /// Every value posted for `bN.<suffix>`, in posted order.
    pub fn values(&self, suffix: &str) -> Vec<&'p str> {
        self.by_name
            .get(format!("{}.{suffix}", self.block).as_str())
            .cloned()
            .unwrap_or_default()
    }

    /// The first value posted for `bN.<suffix>`.
    pub fn one(&self, suffix: &str) -> Option<&'p str> {
        self.values(suffix).into_iter().next()
    }

    /// The first value of `bN.<suffix>` as typed text (see [`clean_text`]).
    pub fn text(&self, suffix: &str) -> Option<String> {
        self.one(suffix).and_then(clean_text)
    }

    /// The list edit the reader pressed in this block (`bN.op`), if any.
    pub fn op(&self) -> Option<&'p str> {
        self.op
    }

    /// Tells the reader something about this block's answer.
    pub fn notice(&mut self, message: impl fmt::Display) {
        self.notices.push(format!("{}: {message}", self.subject));
    }

    /// Where focus goes on the page shown again after this block's list edit.
    pub fn set_focus(&mut self, focus: Option<Focus>) {
        self.focus = focus;
    }

    /// The focus set, when this block's post was a list edit.
    pub(crate) fn focus(&self) -> Option<Focus> {
        self.focus.filter(|_| self.op.is_some())
    }
}
