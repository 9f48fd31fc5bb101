//! Answers: the reader's responses (as JSON, or as the rendered form's own post) checked against
//! the document, and the copy-back Markdown export of spec §3.5, §4.3, §4.5.3 and §4.7.3.
//!
//! The form carries the whole document in the hidden field `pb.source`, so a stateless server
//! can decode a post without remembering anything. Field names, per block `bN`:
//!
//! | field | meaning |
//! |---|---|
//! | `bN.qI.pick` | option index chosen in question I (repeated for checkboxes), or `other` |
//! | `bN.qI.other`, `bN.qI.note`, `bN.qI.text` | Other text, note, open-question answer |
//! | `bN.item` | prioritize/allocate current list, in order: `i:<id>` authored, `a:<label>` added |
//! | `bN.pos.K` | prioritize: position (1-based) chosen for the K-th listed item |
//! | `bN.w.K` | allocate: weight of the K-th listed item |
//! | `bN.removed` | authored ids the reader removed (repeated) |
//! | `bN.op` | a list edit: `up:K`, `down:K`, `remove:K`, `restore:<id>`, `add` |
//! | `bN.add`, `bN.note` | the label of an item to add, the block note |
//! | `bN.comment`, `bN.node.I`, `bN.edge.I` | Mermaid: whole-diagram, node I, edge I comments |

use crate::components::Component;
use crate::components::allocate::{
    Allocate, MAX_AMOUNT, format_number, quoted_amount, rescale, round_to_total,
};
use crate::components::mermaid::Mermaid;
use crate::components::prioritize::Prioritize;
use crate::components::question::{Mode, Question, QuestionSet};
use crate::document::Block;
use crate::html::i18n::Lang;
use crate::{Kind, Surface};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// A response that does not fit the document: which block, which field, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct AnswersError {
    pub block: String,
    pub field: String,
    pub message: String,
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

fn err(block: &str, field: &str, message: impl Into<String>) -> AnswersError {
    AnswersError {
        block: block.to_string(),
        field: field.to_string(),
        message: message.into(),
    }
}

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

/// One entry of a prioritize/allocate list: an authored item (by index) or one the reader added.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    Item(usize),
    Added(String),
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct RankAnswer {
    /// The final list, top first. `None` means the kept items in authored order.
    pub order: Option<Vec<Entry>>,
    /// Authored items the reader removed (indexes, in authored order).
    pub removed: Vec<usize>,
    pub note: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct SplitAnswer {
    /// Reader weights by authored index; items absent keep their authored share.
    pub weights: BTreeMap<usize, f64>,
    pub added: Vec<(String, f64)>,
    pub removed: Vec<usize>,
    pub note: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Comment {
    Diagram(String),
    Node {
        id: String,
        text: String,
    },
    Edge {
        from: String,
        to: String,
        text: String,
        /// Which drawing of the pair (0-based) the comment was written on, when the form says
        /// (its field per arrow); `None` from JSON, whose comments fill a pair's arrows in order.
        nth: Option<usize>,
    },
}

/// A checked answer to one block.
#[derive(Debug, Clone, PartialEq)]
pub enum BlockAnswer {
    /// One entry per question, by question index.
    Questions(Vec<QuestionAnswer>),
    Rank(RankAnswer),
    Split(SplitAnswer),
    Comments(Vec<Comment>),
}

/// Answers keyed by block id, checked against one document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Responses {
    pub blocks: BTreeMap<String, BlockAnswer>,
    /// After a no-JavaScript list edit: the block and the control the page shown again puts
    /// focus on, so a keyboard reader carries on where they were instead of at the top.
    pub focus: Option<(String, Focus)>,
}

/// A list control of a prioritize or allocate block, as a list edit leaves focus on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// The ▲ or ▼ of the entry now at this position.
    Up(usize),
    Down(usize),
    /// The ✕ of the entry now at this position.
    Remove(usize),
    /// The Restore button of this authored item.
    Restore(usize),
    /// The add box.
    Add,
}

/// Where focus goes after `op`, posted against the list as it was rendered (`before`), left
/// the list `after`; `added` when the post added an entry.
fn focus_after(op: Option<&str>, before: &[Entry], after: &[Entry], added: bool) -> Option<Focus> {
    let n = after.len();
    let (kind, arg) = op.map_or(("", ""), |o| o.split_once(':').unwrap_or((o, "")));
    let posted = || arg.parse::<usize>().ok().and_then(|k| before.get(k));
    let now = |e: &Entry| after.iter().position(|x| x == e);
    match kind {
        // The same arrow on the moved entry; at an end, where that arrow is disabled and
        // cannot take focus, the other one.
        "up" | "down" => {
            let k = now(posted()?)?;
            let up = k > 0;
            let down = k + 1 < n;
            Some(match (kind, up, down) {
                ("up", true, _) | ("down", true, false) => Focus::Up(k),
                (_, _, true) => Focus::Down(k),
                _ => Focus::Remove(k),
            })
        }
        "remove" => match posted()? {
            Entry::Item(i) => Some(Focus::Restore(*i)),
            Entry::Added(_) => Some(Focus::Add),
        },
        "restore" => after
            .iter()
            .position(|e| !before.contains(e) && matches!(e, Entry::Item(_)))
            .map(Focus::Remove),
        _ if added || kind == "add" => Some(Focus::Add),
        _ => None,
    }
}

/// The export and anything the reader should be told about how it was made.
#[derive(Debug, Clone, PartialEq)]
pub struct Export {
    pub markdown: String,
    /// E.g. "b6: the weights summed to 90%, so they were rescaled to 100%".
    pub notices: Vec<String>,
}

/// A parsed document as the answers module needs it.
#[derive(Debug)]
pub struct Doc {
    pub blocks: Vec<Block>,
    pub lang: Lang,
}

impl Doc {
    /// Parses and validates `src` (no HTML is produced).
    pub fn parse(src: &str) -> Doc {
        let arena = crate::document::arena_for(src);
        Doc::from_parsed(crate::document::parse(&arena, src))
    }

    /// The blocks and language of a document already parsed.
    pub(crate) fn from_parsed(parsed: crate::document::Parsed) -> Doc {
        Doc {
            lang: parsed.lang(),
            blocks: parsed.blocks,
        }
    }

    fn block(&self, id: &str) -> Result<(&Block, &Component), AnswersError> {
        let block = self
            .blocks
            .iter()
            .find(|b| b.info.id == id)
            .ok_or_else(|| {
                let ids: Vec<&str> = self.blocks.iter().map(|b| b.info.id.as_str()).collect();
                err(
                    id,
                    "",
                    format!(
                        "there is no such block; the document's blocks are {}",
                        list_or_none(&ids)
                    ),
                )
            })?;
        let component = block.component.as_ref().ok_or_else(|| {
            err(
                id,
                "",
                format!(
                    "the {} block is invalid, so it takes no answers; fix the document first",
                    block.info.kind.tag()
                ),
            )
        })?;
        Ok((block, component))
    }
}

fn list_or_none(items: &[&str]) -> String {
    if items.is_empty() {
        "none".to_string()
    } else {
        items.join(", ")
    }
}

// ---------------------------------------------------------------------------------------------
// Responses as JSON (contract §4)

/// Checks JSON responses against the document. Anything that does not fit is an error naming the
/// block and field; nothing is guessed.
pub fn from_json(doc: &Doc, json: &Value) -> Result<Responses, AnswersError> {
    let map = json.as_object().ok_or_else(|| err("", "", "responses must be a JSON object keyed by block id, e.g. { \"b1\": { \"selected\": [\"…\"] } }"))?;
    let mut out = Responses::default();
    for (id, value) in map {
        let (_, component) = doc.block(id)?;
        let answer = match component {
            Component::Questions(set) => BlockAnswer::Questions(questions_json(id, set, value)?),
            Component::Prioritize(p) => BlockAnswer::Rank(rank_json(id, p, value)?),
            Component::Allocate(a) => BlockAnswer::Split(split_json(id, a, value)?),
            Component::Mermaid(m) => BlockAnswer::Comments(comments_json(id, m, value)?),
            Component::Youtube(_) => return Err(err(id, "", "a youtube block takes no answers")),
        };
        out.blocks.insert(id.clone(), answer);
    }
    Ok(out)
}

fn object<'v>(
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

fn only_keys(
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

fn join(field: &str, key: &str) -> String {
    if field.is_empty() {
        key.to_string()
    } else {
        format!("{field}.{key}")
    }
}

fn type_name(v: &Value) -> &'static str {
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
fn text(block: &str, field: &str, v: Option<&Value>) -> Result<Option<String>, AnswersError> {
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

fn clean_text(s: &str) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.replace("\r\n", "\n"))
}

fn strings<'v>(
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

fn questions_json(
    block: &str,
    set: &QuestionSet,
    v: &Value,
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

fn question_json(
    block: &str,
    field: &str,
    q: &Question,
    v: &Value,
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

fn item_index(block: &str, field: &str, ids: &[&str], id: &str) -> Result<usize, AnswersError> {
    ids.iter().position(|x| *x == id).ok_or_else(|| {
        err(
            block,
            field,
            format!("\"{id}\" is not an item id; the ids are {}", ids.join(", ")),
        )
    })
}

fn removed_json(
    block: &str,
    ids: &[&str],
    o: &serde_json::Map<String, Value>,
) -> Result<Vec<usize>, AnswersError> {
    let mut removed = Vec::new();
    for id in strings(block, "removed", o.get("removed"))? {
        let i = item_index(block, "removed", ids, id)?;
        if !removed.contains(&i) {
            removed.push(i);
        }
    }
    removed.sort_unstable();
    Ok(removed)
}

fn rank_json(block: &str, p: &Prioritize, v: &Value) -> Result<RankAnswer, AnswersError> {
    let o = object(block, "", v)?;
    only_keys(block, "", o, &["order", "removed", "note"])?;
    let ids: Vec<&str> = p.items.iter().map(|i| i.id.as_str()).collect();
    let removed = removed_json(block, &ids, o)?;
    let order = match o.get("order") {
        None | Some(Value::Null) => None,
        Some(Value::Array(entries)) => {
            let mut order = Vec::new();
            for (k, e) in entries.iter().enumerate() {
                let field = format!("order[{k}]");
                match e {
                    Value::String(id) => {
                        order.push(Entry::Item(item_index(block, &field, &ids, id)?))
                    }
                    Value::Object(a) => {
                        only_keys(block, &field, a, &["added"])?;
                        let label = text(block, &join(&field, "added"), a.get("added"))?
                            .ok_or_else(|| {
                                err(
                                    block,
                                    &field,
                                    "an added item needs a non-empty \"added\" label",
                                )
                            })?;
                        order.push(Entry::Added(label));
                    }
                    other => {
                        return Err(err(
                            block,
                            &field,
                            format!(
                                "must be an item id or {{ \"added\": \"…\" }}, not {}",
                                type_name(other)
                            ),
                        ));
                    }
                }
            }
            check_permutation(block, &ids, &order, &removed)?;
            Some(order)
        }
        Some(other) => {
            return Err(err(
                block,
                "order",
                format!("must be an array, not {}", type_name(other)),
            ));
        }
    };
    // As allocate: a ranking of nothing is no answer.
    let kept_any = order
        .as_ref()
        .map_or(removed.len() < ids.len(), |o| !o.is_empty());
    if !kept_any {
        return Err(err(
            block,
            "removed",
            "every item was removed; keep or add at least one",
        ));
    }
    Ok(RankAnswer {
        order,
        removed,
        note: note_json(block, p.note.enabled, o)?,
    })
}

/// The order must hold every kept authored item exactly once and no removed one.
fn check_permutation(
    block: &str,
    ids: &[&str],
    order: &[Entry],
    removed: &[usize],
) -> Result<(), AnswersError> {
    let mut seen = vec![false; ids.len()];
    for e in order {
        if let Entry::Item(i) = e {
            if removed.contains(i) {
                return Err(err(
                    block,
                    "order",
                    format!("\"{}\" is both in the order and removed", ids[*i]),
                ));
            }
            if std::mem::replace(&mut seen[*i], true) {
                return Err(err(
                    block,
                    "order",
                    format!("\"{}\" appears twice", ids[*i]),
                ));
            }
        }
    }
    let missing: Vec<&str> = (0..ids.len())
        .filter(|i| !seen[*i] && !removed.contains(i))
        .map(|i| ids[i])
        .collect();
    if !missing.is_empty() {
        return Err(err(
            block,
            "order",
            format!(
                "the order must list every kept item; missing {} (list it, or put it in \"removed\")",
                missing.join(", ")
            ),
        ));
    }
    Ok(())
}

/// The block note; a note on a block whose `note_field.enabled` is false does not fit.
fn note_json(
    block: &str,
    enabled: bool,
    o: &serde_json::Map<String, Value>,
) -> Result<Option<String>, AnswersError> {
    let note = text(block, "note", o.get("note"))?;
    if note.is_some() && !enabled {
        return Err(err(
            block,
            "note",
            "this block takes no note (its note_field.enabled is false)",
        ));
    }
    Ok(note)
}

fn weight(block: &str, field: &str, v: &Value) -> Result<f64, AnswersError> {
    let w = v.as_f64().ok_or_else(|| {
        err(
            block,
            field,
            format!("must be a number, not {}", type_name(v)),
        )
    })?;
    if !w.is_finite() || w < 0.0 {
        return Err(err(block, field, format!("must be 0 or more, not {w}")));
    }
    if w > MAX_AMOUNT {
        return Err(err(
            block,
            field,
            format!("must be at most 10^15, not {}", quoted_amount(w)),
        ));
    }
    Ok(w)
}

fn split_json(block: &str, a: &Allocate, v: &Value) -> Result<SplitAnswer, AnswersError> {
    let o = object(block, "", v)?;
    only_keys(block, "", o, &["weights", "added", "removed", "note"])?;
    let ids: Vec<&str> = a.items.iter().map(|i| i.id.as_str()).collect();
    let removed = removed_json(block, &ids, o)?;
    let mut weights = BTreeMap::new();
    if let Some(w) = o.get("weights").filter(|w| !w.is_null()) {
        for (id, value) in object(block, "weights", w)? {
            let field = format!("weights.{id}");
            let i = item_index(block, &field, &ids, id)?;
            if removed.contains(&i) {
                return Err(err(
                    block,
                    &field,
                    "this item is also in \"removed\"; give it a weight or remove it, not both",
                ));
            }
            weights.insert(i, weight(block, &field, value)?);
        }
    }
    let mut added = Vec::new();
    match o.get("added") {
        None | Some(Value::Null) => {}
        Some(Value::Array(entries)) => {
            for (k, e) in entries.iter().enumerate() {
                let field = format!("added[{k}]");
                let e = object(block, &field, e)?;
                only_keys(block, &field, e, &["label", "weight"])?;
                let label =
                    text(block, &join(&field, "label"), e.get("label"))?.ok_or_else(|| {
                        err(
                            block,
                            &field,
                            "an added category needs a non-empty \"label\"",
                        )
                    })?;
                let w = match e.get("weight") {
                    None => 0.0,
                    Some(v) => weight(block, &join(&field, "weight"), v)?,
                };
                added.push((label, w));
            }
        }
        Some(other) => {
            return Err(err(
                block,
                "added",
                format!("must be an array, not {}", type_name(other)),
            ));
        }
    }
    if removed.len() == a.items.len() && added.is_empty() {
        return Err(err(
            block,
            "removed",
            "every category was removed; keep or add at least one",
        ));
    }
    Ok(SplitAnswer {
        weights,
        added,
        removed,
        note: note_json(block, a.note.enabled, o)?,
    })
}

fn comments_json(block: &str, m: &Mermaid, v: &Value) -> Result<Vec<Comment>, AnswersError> {
    let o = object(block, "", v)?;
    only_keys(block, "", o, &["comments"])?;
    let Some(list) = o.get("comments") else {
        return Ok(Vec::new());
    };
    let list = list.as_array().ok_or_else(|| {
        err(
            block,
            "comments",
            format!("must be an array, not {}", type_name(list)),
        )
    })?;
    let mut out = Vec::new();
    for (k, c) in list.iter().enumerate() {
        let field = format!("comments[{k}]");
        let c = object(block, &field, c)?;
        let on = c.get("on").and_then(Value::as_str).unwrap_or("");
        let body = || text(block, &join(&field, "text"), c.get("text"));
        let comment = match on {
            "diagram" => {
                only_keys(block, &field, c, &["on", "text"])?;
                body()?.map(Comment::Diagram)
            }
            "node" => {
                only_keys(block, &field, c, &["on", "id", "text"])?;
                let id = c.get("id").and_then(Value::as_str).ok_or_else(|| {
                    err(
                        block,
                        &join(&field, "id"),
                        "a node comment needs the node's \"id\"",
                    )
                })?;
                check_node(block, &field, m, id)?;
                body()?.map(|text| Comment::Node {
                    id: id.to_string(),
                    text,
                })
            }
            "edge" => {
                only_keys(block, &field, c, &["on", "from", "to", "text"])?;
                let get = |k: &str| {
                    c.get(k).and_then(Value::as_str).ok_or_else(|| {
                        err(
                            block,
                            &join(&field, k),
                            format!("an edge comment needs \"{k}\""),
                        )
                    })
                };
                let (from, to) = (get("from")?, get("to")?);
                check_edge(block, &field, m, from, to)?;
                body()?.map(|text| Comment::Edge {
                    from: from.to_string(),
                    to: to.to_string(),
                    text,
                    nth: None,
                })
            }
            _ => {
                return Err(err(
                    block,
                    &join(&field, "on"),
                    "must be \"diagram\", \"node\" or \"edge\"",
                ));
            }
        };
        out.extend(comment);
    }
    Ok(out)
}

fn check_node(block: &str, field: &str, m: &Mermaid, id: &str) -> Result<(), AnswersError> {
    let chart = m.chart.as_ref().ok_or_else(|| err(block, field, "this diagram has no nodes to comment on (not a flowchart this renderer reads); comment on the whole diagram"))?;
    if chart.nodes.iter().any(|n| n.id == id) {
        Ok(())
    } else {
        let ids: Vec<&str> = chart.nodes.iter().map(|n| n.id.as_str()).collect();
        Err(err(
            block,
            &join(field, "id"),
            format!(
                "\"{id}\" is not a node of the diagram; the nodes are {}",
                list_or_none(&ids)
            ),
        ))
    }
}

fn check_edge(
    block: &str,
    field: &str,
    m: &Mermaid,
    from: &str,
    to: &str,
) -> Result<(), AnswersError> {
    let chart = m.chart.as_ref().ok_or_else(|| {
        err(
            block,
            field,
            "this diagram has no edges to comment on; comment on the whole diagram",
        )
    })?;
    if chart.edges.iter().any(|e| e.from == from && e.to == to) {
        Ok(())
    } else {
        Err(err(
            block,
            field,
            format!("there is no arrow {from}→{to} in the diagram"),
        ))
    }
}

// ---------------------------------------------------------------------------------------------
// Export

/// The whole document's export: the non-empty block exports in document order, joined by one
/// blank line. Prioritize and allocate always export; YouTube never does.
pub fn export(doc: &Doc, responses: &Responses) -> Export {
    let mut parts = Vec::new();
    let mut notices = Vec::new();
    for block in &doc.blocks {
        let Some(component) = &block.component else {
            continue;
        };
        let answer = responses.blocks.get(&block.info.id);
        let part = match component {
            Component::Questions(set) => {
                let empty = vec![QuestionAnswer::default(); set.questions.len()];
                let answers = match answer {
                    Some(BlockAnswer::Questions(a)) => a,
                    _ => &empty,
                };
                export_questions(set, answers, doc.lang)
            }
            Component::Prioritize(p) => {
                let default = RankAnswer::default();
                let a = match answer {
                    Some(BlockAnswer::Rank(a)) => a,
                    _ => &default,
                };
                export_rank(p, a)
            }
            Component::Allocate(al) => {
                let default = SplitAnswer::default();
                let a = match answer {
                    Some(BlockAnswer::Split(a)) => a,
                    _ => &default,
                };
                let (text, notice) = export_split(al, a);
                if let Some(n) = notice {
                    notices.push(format!("{}: {n}", block.info.id));
                }
                text
            }
            Component::Mermaid(m) => match answer {
                Some(BlockAnswer::Comments(c)) => export_comments(m, c),
                _ => String::new(),
            },
            Component::Youtube(_) => String::new(),
        };
        if !part.is_empty() {
            parts.push(part);
        }
    }
    let mut markdown = parts.join("\n\n");
    if !markdown.is_empty() {
        markdown.push('\n');
    }
    Export { markdown, notices }
}

/// Spec §3.5, shared by the questionnaire and the three standalone questions.
pub fn export_questions(set: &QuestionSet, answers: &[QuestionAnswer], lang: Lang) -> String {
    let t = lang.strings();
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
                .filter_map(|i| q.options.get(*i).cloned())
                .collect();
            if let Some(other) = &a.other {
                picks.push(format!("{} {other}", q.other_label(t)));
            }
            if let Some(text) = &a.text {
                picks.push(text.clone());
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
                lines.push(format!("Note: {note}"));
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

/// The final prioritize list for an answer (authored order minus removed when no order given).
pub fn rank_order(p: &Prioritize, a: &RankAnswer) -> Vec<Entry> {
    a.order.clone().unwrap_or_else(|| {
        (0..p.items.len())
            .filter(|i| !a.removed.contains(i))
            .map(Entry::Item)
            .collect()
    })
}

/// Spec §4.3.
pub fn export_rank(p: &Prioritize, a: &RankAnswer) -> String {
    let order = rank_order(p, a);
    let edited = !a.removed.is_empty() || order.iter().any(|e| matches!(e, Entry::Added(_)));
    let kept: Vec<usize> = order
        .iter()
        .filter_map(|e| {
            if let Entry::Item(i) = e {
                Some(*i)
            } else {
                None
            }
        })
        .collect();
    let reordered = kept.windows(2).any(|w| w[0] > w[1]);
    let tag = if edited {
        "reader edited the list"
    } else if reordered {
        "reader reordered"
    } else {
        "reader kept the order unchanged"
    };
    let mut out = header(
        "Priority order",
        tag,
        p.routing.as_ref().map(|r| r.from.as_str()),
        p.title.as_deref(),
    );
    let lines: Vec<String> = order
        .iter()
        .enumerate()
        .map(|(n, e)| match e {
            Entry::Item(i) => {
                let item = &p.items[*i];
                match &item.context {
                    Some(c) => format!("{}. {} — {c}", n + 1, item.label),
                    None => format!("{}. {}", n + 1, item.label),
                }
            }
            Entry::Added(label) => format!("{}. {label} — (added by reader)", n + 1),
        })
        .collect();
    out.push_str(&lines.join("\n"));
    if lines.is_empty() {
        // Every item removed (a form can post that): no empty list between header and the rest.
        out.truncate(out.trim_end().len());
    }
    removed_line(&mut out, &p.items, &a.removed);
    footer(
        &mut out,
        a.note.as_deref(),
        p.routing.as_ref().map(|r| r.return_prompt.as_str()),
    );
    out
}

fn header(name: &str, tag: &str, from: Option<&str>, title: Option<&str>) -> String {
    match (from, title) {
        (Some(from), _) => format!("{name} ({tag}) → {from}\n\n"),
        (None, Some(title)) => format!("## {title} ({tag})\n\n"),
        (None, None) => format!("({tag})\n\n"),
    }
}

/// The "Removed by reader" line of a list export (prioritize and allocate), when any were.
fn removed_line(
    out: &mut String,
    items: &[crate::components::prioritize::Item],
    removed: &[usize],
) {
    if removed.is_empty() {
        return;
    }
    let labels: Vec<&str> = removed.iter().map(|i| items[*i].label.as_str()).collect();
    out.push_str(&format!("\n\nRemoved by reader: {}", labels.join("; ")));
}

fn footer(out: &mut String, note: Option<&str>, return_prompt: Option<&str>) {
    if let Some(note) = note {
        out.push_str(&format!("\n\nNote: {note}"));
    }
    if let Some(prompt) = return_prompt.filter(|p| !p.trim().is_empty()) {
        out.push_str(&format!("\n\n{prompt}"));
    }
}

/// The resolved split: (entry, unrounded weight) summing to `total`, plus a notice when the
/// reader's weights had to be rescaled.
pub fn resolve_split(a: &Allocate, ans: &SplitAnswer) -> (Vec<(Entry, f64)>, Option<String>) {
    let kept: Vec<usize> = (0..a.items.len())
        .filter(|i| !ans.removed.contains(i))
        .collect();
    // Removing a category hands its weight to the rest in proportion (evenly if all are 0):
    // that is rescaling the kept authored weights to the total.
    let kept_authored: Vec<f64> = kept.iter().map(|i| a.weights[*i]).collect();
    let base = rescale(&kept_authored, a.total);
    let mut entries: Vec<(Entry, f64)> = kept
        .iter()
        .zip(&base)
        .map(|(i, b)| (Entry::Item(*i), ans.weights.get(i).copied().unwrap_or(*b)))
        .collect();
    entries.extend(ans.added.iter().map(|(l, w)| (Entry::Added(l.clone()), *w)));
    let sum: f64 = entries.iter().map(|(_, w)| w).sum();
    let mut notice = None;
    if (sum - a.total).abs() > 1e-6 {
        let weights: Vec<f64> = entries.iter().map(|(_, w)| *w).collect();
        let scaled = rescale(&weights, a.total);
        for (e, w) in entries.iter_mut().zip(scaled) {
            e.1 = w;
        }
        let (s, t) = (
            format_number((sum * 100.0).round() / 100.0),
            format_number(a.total),
        );
        notice = Some(if sum <= 0.0 {
            format!("every weight was 0, so the {t}{} was split evenly", a.unit)
        } else {
            format!(
                "the weights summed to {s}{u}, so they were rescaled to {t}{u}",
                u = a.unit
            )
        });
    }
    (entries, notice)
}

/// Spec §4.5.3.
pub fn export_split(a: &Allocate, ans: &SplitAnswer) -> (String, Option<String>) {
    let (entries, notice) = resolve_split(a, ans);
    let weights: Vec<f64> = entries.iter().map(|(_, w)| *w).collect();
    let shown = round_to_total(&weights, a.total);
    let authored = round_to_total(&a.weights, a.total);
    let edited = !ans.removed.is_empty() || !ans.added.is_empty();
    let moved = entries
        .iter()
        .zip(&shown)
        .any(|((e, _), w)| matches!(e, Entry::Item(i) if authored[*i] != *w));
    let tag = if edited {
        "reader edited the list"
    } else if moved {
        "reader reweighted"
    } else {
        "reader kept the allocation unchanged"
    };
    let u = &a.unit;
    let mut out = header(
        "Allocation",
        tag,
        a.routing.as_ref().map(|r| r.from.as_str()),
        a.title.as_deref(),
    );
    let lines: Vec<String> = entries
        .iter()
        .zip(&shown)
        .map(|((e, _), w)| match e {
            Entry::Item(i) => {
                let item = &a.items[*i];
                let delta = if authored[*i] == *w {
                    "(unchanged)".to_string()
                } else {
                    format!("(was {}{u})", format_number(authored[*i]))
                };
                let context = item
                    .context
                    .as_ref()
                    .map(|c| format!(" — {c}"))
                    .unwrap_or_default();
                format!(
                    "- {}: {}{u} {delta}{context}",
                    item.label,
                    format_number(*w)
                )
            }
            Entry::Added(label) => {
                format!("- {label}: {}{u} — (added by reader)", format_number(*w))
            }
        })
        .collect();
    out.push_str(&lines.join("\n"));
    removed_line(&mut out, &a.items, &ans.removed);
    out.push_str(&format!("\n\nTotal: {}{u}", format_number(a.total)));
    footer(
        &mut out,
        ans.note.as_deref(),
        a.routing.as_ref().map(|r| r.return_prompt.as_str()),
    );
    (out, notice)
}

/// Spec §4.7.3: whole-diagram comments first, then nodes and edges in diagram order.
pub fn export_comments(m: &Mermaid, comments: &[Comment]) -> String {
    if comments.is_empty() {
        return String::new();
    }
    let mut lines = Vec::new();
    for c in comments {
        if let Comment::Diagram(text) = c {
            lines.push(format!("- Whole diagram — {text}"));
        }
    }
    if let Some(chart) = &m.chart {
        for node in &chart.nodes {
            for c in comments {
                if let Comment::Node { id, text } = c
                    && *id == node.id
                {
                    lines.push(format!("- Node `{id}` — {text}"));
                }
            }
        }
        let mut done: Vec<(&str, &str)> = Vec::new();
        for edge in &chart.edges {
            if done.contains(&(edge.from.as_str(), edge.to.as_str())) {
                continue;
            }
            done.push((&edge.from, &edge.to));
            for c in comments {
                if let Comment::Edge { from, to, text, .. } = c
                    && *from == edge.from
                    && *to == edge.to
                {
                    lines.push(format!("- Edge `{from}→{to}` — {text}"));
                }
            }
        }
    }
    let title = m
        .title
        .as_deref()
        .map_or_else(|| "(diagram)".to_string(), |t| format!("## {t} (diagram)"));
    format!("{title}\n\n{}", lines.join("\n"))
}

// ---------------------------------------------------------------------------------------------
// The rendered form's own post

/// What a form post asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum FormOp {
    /// "Get answers": show the export.
    Export,
    /// A list edit (move, remove, restore, add): show the form again with the new state.
    Edit,
}

/// A decoded form post: the document (as parsed from `pb.source`), the surface it was rendered
/// for, and the answers.
#[derive(Debug)]
pub struct FormPost {
    pub surface: Surface,
    pub op: FormOp,
    pub doc: Doc,
    pub responses: Responses,
    /// Problems that did not stop the decode (e.g. a weight that is not a number).
    pub notices: Vec<String>,
}

/// Decodes `application/x-www-form-urlencoded` pairs (`+` as space, `%XX` escapes). Bytes that do
/// not form UTF-8 are an error, never replaced silently.
pub fn parse_urlencoded(body: &str) -> Result<Vec<(String, String)>, AnswersError> {
    let decode = |s: &str| -> Result<String, AnswersError> {
        let mut bytes = Vec::with_capacity(s.len());
        let raw = s.as_bytes();
        let mut i = 0;
        while i < raw.len() {
            match raw[i] {
                b'+' => bytes.push(b' '),
                b'%' if i + 2 < raw.len() => {
                    let hex = std::str::from_utf8(&raw[i + 1..i + 3])
                        .ok()
                        .and_then(|h| u8::from_str_radix(h, 16).ok());
                    match hex {
                        Some(b) => {
                            bytes.push(b);
                            i += 2;
                        }
                        None => bytes.push(b'%'),
                    }
                }
                b => bytes.push(b),
            }
            i += 1;
        }
        String::from_utf8(bytes).map_err(|_| err("", "", "the form data is not valid UTF-8"))
    };
    body.split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            Ok((decode(k)?, decode(v)?))
        })
        .collect()
}

/// Decodes the rendered form's post into the same responses the JSON path gives, applying any
/// list edit (`bN.op`) the reader pressed.
pub fn from_form(pairs: &[(String, String)]) -> Result<FormPost, AnswersError> {
    let (source, surface) = form_document(pairs)?;
    let doc = Doc::parse(source);
    let decoded = decode_form(&doc.blocks, pairs)?;
    Ok(FormPost {
        surface,
        op: decoded.op,
        doc,
        responses: decoded.responses,
        notices: decoded.notices,
    })
}

/// The document a form post carries (`pb.source`) and the surface it was rendered for.
pub(crate) fn form_document(pairs: &[(String, String)]) -> Result<(&str, Surface), AnswersError> {
    let field = |name: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let source = field("pb.source").ok_or_else(|| err("", "pb.source", "the form post carries no document; post the form rendered by passback, which has a hidden pb.source field"))?;
    let surface = match field("pb.surface") {
        None => Surface::Page,
        Some(s) => Surface::parse(s).ok_or_else(|| {
            err(
                "",
                "pb.surface",
                format!("\"{s}\" is not a surface (page, routed, email)"),
            )
        })?,
    };
    Ok((source, surface))
}

/// The answers a form post holds for the document's `blocks`.
pub(crate) struct DecodedForm {
    pub op: FormOp,
    pub responses: Responses,
    pub notices: Vec<String>,
}

pub(crate) fn decode_form(
    blocks: &[Block],
    pairs: &[(String, String)],
) -> Result<DecodedForm, AnswersError> {
    let mut responses = Responses::default();
    let mut notices = Vec::new();
    let mut op = FormOp::Export;
    // The posted values by field name, in posted order: looked up once per field, not by a
    // scan of every pair.
    let mut by_name: HashMap<&str, Vec<&str>> = HashMap::new();
    for (k, v) in pairs {
        by_name.entry(k.as_str()).or_default().push(v.as_str());
    }
    // A field for a block the document does not have was not rendered by us: refuse it, as the
    // JSON path refuses an unknown block, rather than drop the answer it meant to carry.
    for name in by_name.keys() {
        if let Some((block, field)) = name.split_once('.')
            && block.len() > 1
            && block.starts_with('b')
            && block[1..].bytes().all(|c| c.is_ascii_digit())
            && !blocks.iter().any(|b| b.info.id == block)
        {
            return Err(err(
                block,
                field,
                format!("the document has no block {block}; reload the form"),
            ));
        }
    }
    for block in blocks {
        let Some(component) = &block.component else {
            continue;
        };
        let id = block.info.id.as_str();
        let values = |suffix: &str| -> Vec<&str> {
            by_name
                .get(format!("{id}.{suffix}").as_str())
                .cloned()
                .unwrap_or_default()
        };
        let one = |suffix: &str| values(suffix).into_iter().next();
        let block_op = one("op").filter(|o| !o.is_empty());
        if block_op.is_some() {
            op = FormOp::Edit;
        }
        let mut focus = None;
        let answer = match component {
            Component::Questions(set) => BlockAnswer::Questions(questions_form(id, set, &values)?),
            Component::Prioritize(p) => BlockAnswer::Rank(rank_form(
                id,
                p,
                &values,
                block_op,
                &mut notices,
                &mut focus,
            )?),
            Component::Allocate(a) => BlockAnswer::Split(split_form(
                id,
                a,
                &values,
                block_op,
                &mut notices,
                &mut focus,
            )?),
            Component::Mermaid(m) => BlockAnswer::Comments(comments_form(m, &values)),
            Component::Youtube(_) => continue,
        };
        if let Some(f) = focus.filter(|_| block_op.is_some()) {
            responses.focus = Some((id.to_string(), f));
        }
        responses.blocks.insert(id.to_string(), answer);
    }
    Ok(DecodedForm {
        op,
        responses,
        notices,
    })
}

fn questions_form<'p>(
    block: &str,
    set: &QuestionSet,
    values: &dyn Fn(&str) -> Vec<&'p str>,
) -> Result<Vec<QuestionAnswer>, AnswersError> {
    let mut out = Vec::with_capacity(set.questions.len());
    for (qi, q) in set.questions.iter().enumerate() {
        let get = |s: &str| {
            values(&format!("q{qi}.{s}"))
                .into_iter()
                .next()
                .and_then(clean_text)
        };
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
                for v in values(&format!("q{qi}.pick")) {
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
                if q.mode == Mode::Single && a.picks.len() > 1 {
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

/// Parses the posted list state (`i:<id>` / `a:<label>`); absent means the authored list minus
/// `removed`.
fn list_state<'p>(
    block: &str,
    ids: &[&str],
    values: &dyn Fn(&str) -> Vec<&'p str>,
) -> Result<(Vec<Entry>, Vec<usize>), AnswersError> {
    let mut removed = Vec::new();
    for id in values("removed") {
        let i = item_index(block, "removed", ids, id)?;
        if !removed.contains(&i) {
            removed.push(i);
        }
    }
    let posted = values("item");
    let entries = if posted.is_empty() {
        (0..ids.len())
            .filter(|i| !removed.contains(i))
            .map(Entry::Item)
            .collect()
    } else {
        posted
            .iter()
            .map(|v| match (v.strip_prefix("i:"), v.strip_prefix("a:")) {
                (Some(id), _) => item_index(block, "item", ids, id).map(Entry::Item),
                (_, Some(label)) => clean_text(label)
                    .map(Entry::Added)
                    .ok_or_else(|| err(block, "item", "an added item has an empty label")),
                _ => Err(err(
                    block,
                    "item",
                    format!("\"{v}\" is not a list entry; reload the form"),
                )),
            })
            .collect::<Result<Vec<_>, _>>()?
    };
    Ok((entries, removed))
}

/// Applies `remove:K`, `restore:<id>` and `add` to a list; returns the entry `up`/`down` moves.
fn apply_list_op(
    block: &str,
    ids: &[&str],
    entries: &mut Vec<Entry>,
    removed: &mut Vec<usize>,
    op: Option<&str>,
    add: Option<String>,
) -> Result<Option<(usize, i32)>, AnswersError> {
    let index = |k: &str, len: usize| {
        k.parse::<usize>().ok().filter(|k| *k < len).ok_or_else(|| {
            err(
                block,
                "op",
                format!("\"{k}\" is not a position in the list; reload the form"),
            )
        })
    };
    let mut moved = None;
    match op.map(|o| o.split_once(':').unwrap_or((o, ""))) {
        None => {}
        Some(("up", k)) => moved = Some((index(k, entries.len())?, -1)),
        Some(("down", k)) => moved = Some((index(k, entries.len())?, 1)),
        Some(("remove", k)) => {
            let k = index(k, entries.len())?;
            if let Entry::Item(i) = entries.remove(k) {
                removed.push(i);
            }
        }
        Some(("restore", id)) => {
            let i = item_index(block, "op", ids, id)?;
            if let Some(pos) = removed.iter().position(|r| *r == i) {
                removed.remove(pos);
                // Back before the first authored item that came after it: where it was, in a
                // list the reader has not reordered (as the script's Undo puts it back).
                let at = entries
                    .iter()
                    .position(|e| matches!(e, Entry::Item(j) if *j > i))
                    .unwrap_or(entries.len());
                entries.insert(at, Entry::Item(i));
            }
        }
        Some(("add", _)) => {}
        Some((other, _)) => {
            return Err(err(
                block,
                "op",
                format!("\"{other}\" is not a list action"),
            ));
        }
    }
    // A typed label is added whether the reader pressed Add or went straight to the export.
    if let Some(label) = add {
        entries.push(Entry::Added(label));
    }
    removed.sort_unstable();
    Ok(moved)
}

/// The order a prioritize form's position selects ask for, as indices into the rendered list
/// (`requested[k]` is the 1-based position chosen for entry `k`). A reader without JavaScript
/// changes one select, or a few, and leaves the rest as rendered: the changed selects say where
/// their entries go, and the others keep their order around them. (Sorting by the numbers
/// would leave a moved entry beside the one it was meant to displace, or where it was.)
/// Entries sent to the same place keep the rendered order.
fn order_by_positions(requested: &[usize]) -> Vec<usize> {
    let n = requested.len();
    let moved = |k: usize| requested[k] != k + 1;
    let mut movers: Vec<usize> = (0..n).filter(|&k| moved(k)).collect();
    movers.sort_by_key(|&k| (requested[k], k));
    let mut slots: Vec<Option<usize>> = vec![None; n];
    for k in movers {
        let want = requested[k].clamp(1, n) - 1;
        // The wanted place, or the nearest free one after it, or before it.
        if let Some(slot) = (want..n)
            .chain((0..want).rev())
            .find(|&s| slots[s].is_none())
        {
            slots[slot] = Some(k);
        }
    }
    let mut kept = (0..n).filter(|&k| !moved(k));
    slots
        .into_iter()
        .filter_map(|slot| slot.or_else(|| kept.next()))
        .collect()
}

fn rank_form<'p>(
    block: &str,
    p: &Prioritize,
    values: &dyn Fn(&str) -> Vec<&'p str>,
    op: Option<&str>,
    notices: &mut Vec<String>,
    focus: &mut Option<Focus>,
) -> Result<RankAnswer, AnswersError> {
    let ids: Vec<&str> = p.items.iter().map(|i| i.id.as_str()).collect();
    let (mut entries, mut removed) = list_state(block, &ids, values)?;
    // Position selects (see `order_by_positions`).
    let n = entries.len();
    let mut keyed: Vec<(usize, usize, Entry)> = Vec::with_capacity(n);
    for (k, e) in entries.drain(..).enumerate() {
        let field = format!("pos.{k}");
        let pos = match values(&field).into_iter().next() {
            None => k + 1,
            Some(v) => v
                .parse::<usize>()
                .ok()
                .filter(|p| (1..=n).contains(p))
                .ok_or_else(|| {
                    err(
                        block,
                        &field,
                        format!("\"{v}\" is not a position in this list of {n}; reload the form"),
                    )
                })?,
        };
        keyed.push((pos, k, e));
    }
    // Resolve a move against the list as rendered, before the selects reorder it.
    let add = values("add").into_iter().next().and_then(clean_text);
    let adding = add.is_some();
    let before: Vec<Entry> = keyed.iter().map(|(_, _, e)| e.clone()).collect();
    let mut as_rendered = before.clone();
    let moved = apply_list_op(block, &ids, &mut as_rendered, &mut removed, op, add)?;
    let moved_entry = moved.map(|(k, d)| (keyed[k].2.clone(), d));
    let requested: Vec<usize> = keyed.iter().map(|(pos, _, _)| *pos).collect();
    let mut order: Vec<Entry> = order_by_positions(&requested)
        .into_iter()
        .map(|k| keyed[k].2.clone())
        .filter(|e| as_rendered.contains(e))
        .collect();
    // Restored and newly added entries take their place in the edited list: a restored item
    // where it was authored (see `apply_list_op`), an added one at the end.
    for (k, e) in as_rendered.into_iter().enumerate() {
        if !order.contains(&e) {
            order.insert(k.min(order.len()), e);
        }
    }
    if let Some((entry, d)) = moved_entry
        && let Some(at) = order.iter().position(|e| *e == entry)
    {
        let to = (at as i64 + i64::from(d)).clamp(0, order.len() as i64 - 1) as usize;
        let e = order.remove(at);
        order.insert(to, e);
    }
    if order.is_empty() {
        notices.push(format!(
            "{block}: every item was removed; restore or add one"
        ));
    }
    *focus = focus_after(op, &before, &order, adding);
    let note = values("note").into_iter().next().and_then(clean_text);
    check_permutation(block, &ids, &order, &removed)?;
    Ok(RankAnswer {
        order: Some(order),
        removed,
        note,
    })
}

fn split_form<'p>(
    block: &str,
    a: &Allocate,
    values: &dyn Fn(&str) -> Vec<&'p str>,
    op: Option<&str>,
    notices: &mut Vec<String>,
    focus: &mut Option<Focus>,
) -> Result<SplitAnswer, AnswersError> {
    let ids: Vec<&str> = a.items.iter().map(|i| i.id.as_str()).collect();
    let (entries, mut removed) = list_state(block, &ids, values)?;
    let mut weighted: Vec<(Entry, f64)> = Vec::with_capacity(entries.len());
    for (k, e) in entries.into_iter().enumerate() {
        let posted = values(&format!("w.{k}")).into_iter().next();
        let raw = posted.unwrap_or("").trim().replace(',', ".");
        let w = if posted.is_none() {
            // No field at all (a hand-made post): the authored share.
            match &e {
                Entry::Item(i) => a.weights[*i],
                Entry::Added(_) => 0.0,
            }
        } else if raw.is_empty() {
            0.0
        } else {
            match raw.parse::<f64>() {
                Ok(w) if w.is_finite() && (0.0..=MAX_AMOUNT).contains(&w) => w,
                _ => {
                    let label = match &e {
                        Entry::Item(i) => a.items[*i].label.clone(),
                        Entry::Added(l) => l.clone(),
                    };
                    return Err(err(
                        block,
                        &format!("w.{k}"),
                        format!(
                            "the weight of \"{label}\" must be a number from 0 to 10^15, not \"{raw}\""
                        ),
                    ));
                }
            }
        };
        weighted.push((e, w));
    }
    let mut list: Vec<Entry> = weighted.iter().map(|(e, _)| e.clone()).collect();
    let before = list.clone();
    let add = values("add").into_iter().next().and_then(clean_text);
    let adding = add.is_some();
    apply_list_op(
        block,
        &ids,
        &mut list,
        &mut removed,
        op.filter(|o| !o.starts_with("up") && !o.starts_with("down")),
        add,
    )?;
    let mut weights = BTreeMap::new();
    let mut added = Vec::new();
    let removed_weight: f64 = weighted
        .iter()
        .filter(|(e, _)| !list.contains(e))
        .map(|(_, w)| w)
        .sum();
    for e in &list {
        let w = weighted.iter().find(|(x, _)| x == e).map(|(_, w)| *w);
        match e {
            Entry::Item(i) => {
                weights.insert(*i, w.unwrap_or(0.0));
            }
            Entry::Added(l) => added.push((l.clone(), w.unwrap_or(0.0))),
        }
    }
    // A category removed in this post changes the sum on purpose: hand its weight to the rest
    // in proportion.
    if removed_weight > 0.0 {
        let rest: f64 = weights.values().chain(added.iter().map(|(_, w)| w)).sum();
        let factor = if rest > 0.0 {
            (rest + removed_weight) / rest
        } else {
            1.0
        };
        weights.values_mut().for_each(|w| *w *= factor);
        added.iter_mut().for_each(|(_, w)| *w *= factor);
    }
    // A restored category comes back at its authored share, and the others make room for it
    // in proportion: the sum the reader held stays, and a removal undone is undone exactly.
    let mut restored = 0.0;
    for e in &list {
        if let Entry::Item(i) = e
            && !weighted.iter().any(|(x, _)| x == e)
        {
            weights.insert(*i, a.weights[*i]);
            restored += a.weights[*i];
        }
    }
    if restored > 0.0 {
        let is_restored = |i: &usize| !weighted.iter().any(|(x, _)| *x == Entry::Item(*i));
        let others: f64 = weights
            .iter()
            .filter(|(i, _)| !is_restored(i))
            .map(|(_, w)| *w)
            .chain(added.iter().map(|(_, w)| *w))
            .sum();
        if others > 0.0 {
            let factor = ((others - restored) / others).max(0.0);
            weights
                .iter_mut()
                .filter(|(i, _)| !is_restored(i))
                .for_each(|(_, w)| *w *= factor);
            added.iter_mut().for_each(|(_, w)| *w *= factor);
        }
    }
    if weights.is_empty() && added.is_empty() {
        notices.push(format!(
            "{block}: every category was removed; restore or add one"
        ));
    }
    *focus = focus_after(op, &before, &list, adding);
    let note = values("note").into_iter().next().and_then(clean_text);
    Ok(SplitAnswer {
        weights,
        added,
        removed,
        note,
    })
}

fn comments_form<'p>(m: &Mermaid, values: &dyn Fn(&str) -> Vec<&'p str>) -> Vec<Comment> {
    let get = |s: &str| values(s).into_iter().next().and_then(clean_text);
    let mut out: Vec<Comment> = get("comment").map(Comment::Diagram).into_iter().collect();
    if let Some(chart) = &m.chart {
        for (i, node) in chart.nodes.iter().enumerate() {
            if let Some(text) = get(&format!("node.{i}")) {
                out.push(Comment::Node {
                    id: node.id.clone(),
                    text,
                });
            }
        }
        let occurrences = chart.edge_occurrences();
        for (i, edge) in chart.edges.iter().enumerate() {
            if let Some(text) = get(&format!("edge.{i}")) {
                out.push(Comment::Edge {
                    from: edge.from.clone(),
                    to: edge.to.clone(),
                    text,
                    nth: Some(occurrences[i]),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urlencoded_decoding() {
        let pairs = parse_urlencoded("a=1+2&b=%E2%86%92&c&d=%zz").unwrap();
        assert_eq!(
            pairs,
            vec![
                ("a".into(), "1 2".into()),
                ("b".into(), "→".into()),
                ("c".into(), "".into()),
                ("d".into(), "%zz".into())
            ]
        );
        assert!(parse_urlencoded("a=%ff").is_err());
    }

    #[test]
    fn a_list_edit_leaves_focus_on_the_control_the_reader_used() {
        // Lists of authored items by index; 9 stands for an entry the reader added.
        let l = |ix: &[usize]| -> Vec<Entry> {
            ix.iter()
                .map(|&i| match i {
                    9 => Entry::Added("X".into()),
                    i => Entry::Item(i),
                })
                .collect()
        };
        let cases = [
            (
                "up:2",
                [0, 1, 2].as_slice(),
                [0, 2, 1].as_slice(),
                Some(Focus::Up(1)),
            ),
            // At the top ▲ is disabled, at the bottom ▼: the other arrow.
            ("up:1", &[0, 1, 2], &[1, 0, 2], Some(Focus::Down(0))),
            ("down:0", &[0, 1, 2], &[1, 0, 2], Some(Focus::Down(1))),
            ("down:1", &[0, 1, 2], &[0, 2, 1], Some(Focus::Up(2))),
            // Removed: its Restore button; restored: its ✕.
            ("remove:1", &[0, 1, 2], &[0, 2], Some(Focus::Restore(1))),
            ("restore:b", &[0, 2], &[0, 1, 2], Some(Focus::Remove(1))),
            // An added entry removed, or an add: the add box.
            ("remove:1", &[0, 9], &[0], Some(Focus::Add)),
            ("add", &[0, 1], &[0, 1, 9], Some(Focus::Add)),
            // A tampered position leaves focus alone.
            ("up:9", &[0, 1, 2], &[0, 1, 2], None),
        ];
        for (op, before, after, focus) in cases {
            let got = focus_after(Some(op), &l(before), &l(after), op == "add");
            assert_eq!(got, focus, "{op}");
        }
    }

    #[test]
    fn position_selects_move_the_entries_the_reader_changed() {
        // Nothing changed.
        assert_eq!(order_by_positions(&[1, 2, 3, 4]), [0, 1, 2, 3]);
        // The third entry to the top: the others shift down.
        assert_eq!(order_by_positions(&[1, 2, 1, 4]), [2, 0, 1, 3]);
        // The last entry to second place.
        assert_eq!(order_by_positions(&[1, 2, 3, 2]), [0, 3, 1, 2]);
        // The first entry to the bottom.
        assert_eq!(order_by_positions(&[4, 2, 3, 4]), [1, 2, 3, 0]);
        // A swap made with two selects.
        assert_eq!(order_by_positions(&[3, 2, 1, 4]), [2, 1, 0, 3]);
        // Two entries sent to the same place: rendered order, the second just after.
        assert_eq!(order_by_positions(&[1, 1, 1, 4]), [1, 2, 0, 3]);
        // Every select changed, a full permutation: exactly that order.
        assert_eq!(order_by_positions(&[2, 3, 4, 1]), [3, 0, 1, 2]);
    }
}
