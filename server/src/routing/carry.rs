//! Answers across revisions (contract §6.2): which component of a new revision an earlier
//! revision's component became, what a revision makes ambiguous (the warnings of
//! `PUT /v1/documents/{id}`), and a reader's answers carried from the revision they were typed
//! against to the latest one, with whatever does not fit kept aside, word for word, to show them.
//!
//! A component follows its `id` where the document gives one (the standalone questions' `id`),
//! and its position among the components without one otherwise, as long as it is of the same
//! kind. Within a component, a questionnaire's questions follow their ids, list items theirs,
//! and chosen options their labels.

use passback_engine::Doc;
use serde_json::{Map, Value, json};

/// The components that take answers.
const ANSWERED: [&str; 7] = [
    "single-choice",
    "multi-choice",
    "open-question",
    "questionnaire",
    "prioritize",
    "allocate",
    "mermaid",
];

/// One component of a revision, as matching needs it.
struct Component {
    /// `b1`, `b2`, …
    block: String,
    kind: &'static str,
    line: usize,
    /// The author's `id`, for the components that carry one.
    id: Option<String>,
    /// The fence's JSON (`Null` when it is not strict JSON).
    json: Value,
}

impl Component {
    /// What the reader sees it as: its question or title, else its block and kind.
    fn name(&self) -> String {
        ["question", "title"]
            .iter()
            .find_map(|k| self.json.get(k).and_then(Value::as_str))
            .map(|t| format!("“{}”", t.trim()))
            .unwrap_or_else(|| format!("{} ({})", self.block, self.kind))
    }

    /// The option labels of a standalone choice question.
    fn options(&self) -> Vec<&str> {
        labels(self.json.get("options"))
    }

    /// The ids of a questionnaire's questions, or of a list's items.
    fn inner_ids(&self) -> Vec<&str> {
        let list = match self.kind {
            "questionnaire" => self.json.get("questions"),
            "prioritize" | "allocate" => self.json.get("items"),
            _ => None,
        };
        list.and_then(Value::as_array)
            .map(|l| {
                l.iter()
                    .filter_map(|q| q.get("id").and_then(Value::as_str))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A questionnaire question's option labels, by its id.
    fn question_options(&self, question: &str) -> Vec<&str> {
        self.json
            .get("questions")
            .and_then(Value::as_array)
            .and_then(|l| {
                l.iter()
                    .find(|q| q.get("id").and_then(Value::as_str) == Some(question))
            })
            .map(|q| labels(q.get("options")))
            .unwrap_or_default()
    }
}

fn labels(options: Option<&Value>) -> Vec<&str> {
    options
        .and_then(Value::as_array)
        .map(|l| l.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The components of `doc` that take answers, in document order.
fn components(doc: &Doc) -> Vec<Component> {
    doc.block_sources()
        .filter(|(b, _)| b.valid && ANSWERED.contains(&b.kind.tag()))
        .map(|(b, source)| {
            let json: Value = serde_json::from_str(source).unwrap_or(Value::Null);
            let kind = b.kind.tag();
            let id = match kind {
                "single-choice" | "multi-choice" | "open-question" => {
                    json.get("id").and_then(Value::as_str).map(str::to_string)
                }
                _ => None,
            };
            Component {
                block: b.id.clone(),
                kind,
                line: b.line,
                id,
                json,
            }
        })
        .collect()
}

/// How the components of `old` map onto those of `new`: for each of `old`'s, the index of its
/// counterpart in `new`, and whether it was found by position (it has no id).
fn pair(old: &[Component], new: &[Component]) -> Vec<Option<(usize, bool)>> {
    let unnamed_new: Vec<usize> = (0..new.len()).filter(|&i| new[i].id.is_none()).collect();
    let mut unnamed_seen = 0;
    old.iter()
        .map(|o| match &o.id {
            Some(id) => new
                .iter()
                .position(|n| n.kind == o.kind && n.id.as_deref() == Some(id))
                .map(|i| (i, false)),
            None => {
                let k = unnamed_seen;
                unnamed_seen += 1;
                unnamed_new
                    .get(k)
                    .copied()
                    .filter(|&i| new[i].kind == o.kind)
                    .map(|i| (i, true))
            }
        })
        .collect()
}

/// The warnings of a revision from `old` (revision `revision`) to `new`: each component whose
/// earlier answers lose their place or may land on another question, naming its block.
pub fn warnings(old_markdown: &str, new_markdown: &str, revision: u64) -> Vec<Value> {
    let (old, new) = (
        components(&Doc::parse(old_markdown)),
        components(&Doc::parse(new_markdown)),
    );
    let pairs = pair(&old, &new);
    let unnamed = |list: &[Component]| list.iter().filter(|c| c.id.is_none()).count();
    let shifted = unnamed(&old) != unnamed(&new);
    let mut out = Vec::new();
    let hint = "Give each question an \"id\" that stays the same across revisions, and keep option labels and item ids that earlier answers chose.";
    for (o, found) in old.iter().zip(&pairs) {
        let Some((i, by_position)) = *found else {
            let what = match &o.id {
                Some(id) => format!("the {} with id \"{id}\"", o.kind),
                None => format!("the {} without an id", o.kind),
            };
            out.push(json!({
                "severity": "warning",
                "code": "revision_answers_unmatched",
                "block": Value::Null,
                "line": 1,
                "column": 1,
                "path": "",
                "previous_block": o.block,
                "message": format!(
                    "Answers to {} (block {} of revision {revision}), {what}, have no place in this revision: it was removed, or changed its id or kind.",
                    o.name(), o.block
                ),
                "hint": hint,
            }));
            continue;
        };
        let n = &new[i];
        let mut why: Vec<String> = Vec::new();
        if by_position {
            if shifted {
                why.push("components without an id were added or removed, so its earlier answers are matched by position alone".into());
            }
            let question = |c: &Component| c.json.get("question").cloned();
            if n.kind != "questionnaire" && question(o) != question(n) {
                why.push(
                    "it has no id and its question changed, so earlier answers may be to another question"
                        .into(),
                );
            }
        }
        let gone = |before: Vec<&str>, after: Vec<&str>| -> Vec<String> {
            before
                .into_iter()
                .filter(|l| !after.contains(l))
                .map(|l| format!("\"{l}\""))
                .collect()
        };
        let removed = gone(o.options(), n.options());
        if !removed.is_empty() {
            why.push(format!(
                "{} that earlier answers may have chosen {} removed",
                named("option", &removed),
                if removed.len() == 1 { "was" } else { "were" }
            ));
        }
        let removed = gone(o.inner_ids(), n.inner_ids());
        if !removed.is_empty() {
            let what = if o.kind == "questionnaire" {
                "question"
            } else {
                "item"
            };
            why.push(format!(
                "{} {} removed, with {} earlier answers",
                named(what, &removed),
                if removed.len() == 1 { "was" } else { "were" },
                if removed.len() == 1 { "its" } else { "their" }
            ));
        }
        if o.kind == "questionnaire" {
            for q in o.inner_ids() {
                if n.inner_ids().contains(&q) {
                    let removed = gone(o.question_options(q), n.question_options(q));
                    if !removed.is_empty() {
                        why.push(format!(
                            "question \"{q}\" lost {}",
                            named("option", &removed)
                        ));
                    }
                }
            }
        }
        if !why.is_empty() {
            out.push(json!({
                "severity": "warning",
                "code": "revision_answers_ambiguous",
                "block": n.block,
                "line": n.line,
                "column": 1,
                "path": "",
                "previous_block": o.block,
                "message": format!(
                    "Earlier answers to {} (block {} of revision {revision}) may not fit block {}: {}.",
                    o.name(), o.block, n.block, why.join("; ")
                ),
                "hint": hint,
            }));
        }
    }
    out
}

/// "the option \"x\"" or "the options \"x\", \"y\"".
fn named(what: &str, quoted: &[String]) -> String {
    let s = if quoted.len() == 1 { "" } else { "s" };
    format!("the {what}{s} {}", quoted.join(", "))
}

/// A reader's answers carried to another revision: what fits, and what does not, in words.
#[derive(Debug, Default)]
pub struct Carried {
    /// The answers keyed by the new revision's blocks, `annotations` included when any fit.
    pub inputs: Value,
    /// Each answer (or part of one) that has no place in the new revision, with the text the
    /// reader gave, to show them.
    pub left: Vec<String>,
}

/// `inputs` (answers keyed by `old`'s blocks) and `annotations`, carried to `new`.
pub fn carry(
    old_markdown: &str,
    new_markdown: &str,
    inputs: &Value,
    annotations: &Value,
) -> Carried {
    let new_doc = Doc::parse(new_markdown);
    let (old, new) = (components(&Doc::parse(old_markdown)), components(&new_doc));
    let pairs = pair(&old, &new);
    let mut out = Map::new();
    let mut left = Vec::new();
    let fits = |block: &str, value: &Value| {
        let mut one = Map::new();
        one.insert(block.to_string(), value.clone());
        passback_engine::answers_from_json(&new_doc, &Value::Object(one)).is_ok()
    };
    for (o, found) in old.iter().zip(&pairs) {
        let Some(answer) = inputs.get(&o.block).filter(|v| !v.is_null()) else {
            continue;
        };
        let Some((i, _)) = *found else {
            left.push(format!("{}: {}", o.name(), said(answer)));
            continue;
        };
        let n = &new[i];
        let (value, dropped) = adapt(n, answer);
        if let Some(dropped) = dropped {
            left.push(format!("{}: {dropped}", o.name()));
        }
        if fits(&n.block, &value) {
            out.insert(n.block.clone(), value);
        } else {
            left.push(format!("{}: {}", o.name(), said(answer)));
        }
    }
    let mut kept = Vec::new();
    for a in annotations.as_array().into_iter().flatten() {
        let one = json!({ "annotations": [a] });
        if passback_engine::answers_from_json(&new_doc, &one).is_ok() {
            kept.push(a.clone());
        } else {
            left.push(format!("A comment: {}", said(a)));
        }
    }
    if !kept.is_empty() {
        out.insert("annotations".into(), Value::Array(kept));
    }
    Carried {
        inputs: Value::Object(out),
        left,
    }
}

/// `answer` as `n` can take it, and in words what had to be left out.
fn adapt(n: &Component, answer: &Value) -> (Value, Option<String>) {
    let mut value = answer.clone();
    let mut dropped: Vec<String> = Vec::new();
    let keep_labels = |v: &mut Value, allowed: &[&str], dropped: &mut Vec<String>| {
        if let Some(list) = v.get_mut("selected").and_then(Value::as_array_mut) {
            list.retain(|l| {
                let ok = l.as_str().is_some_and(|s| allowed.contains(&s));
                if !ok {
                    dropped.push(format!("chose {}", said(l)));
                }
                ok
            });
        }
    };
    match n.kind {
        "single-choice" | "multi-choice" => keep_labels(&mut value, &n.options(), &mut dropped),
        "questionnaire" => {
            let ids = n.inner_ids();
            if let Some(map) = value.get_mut("questions").and_then(Value::as_object_mut) {
                map.retain(|q, a| {
                    let ok = ids.contains(&q.as_str());
                    if !ok {
                        dropped.push(format!("question \"{q}\": {}", said(a)));
                    }
                    ok
                });
                for (q, a) in map.iter_mut() {
                    keep_labels(a, &n.question_options(q), &mut dropped);
                }
            }
        }
        "prioritize" | "allocate" => {
            let ids = n.inner_ids();
            let known = |v: &Value| v.as_str().is_none_or(|s| ids.contains(&s));
            for field in ["order", "removed"] {
                if let Some(list) = value.get_mut(field).and_then(Value::as_array_mut) {
                    list.retain(known);
                }
            }
            if let Some(map) = value.get_mut("weights").and_then(Value::as_object_mut) {
                map.retain(|k, _| ids.contains(&k.as_str()));
            }
            // Items new in this revision go last in a carried order.
            if let Some(order) = value.get("order").and_then(Value::as_array) {
                let mentioned: Vec<&str> = order
                    .iter()
                    .chain(
                        value
                            .get("removed")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten(),
                    )
                    .filter_map(Value::as_str)
                    .collect();
                let added: Vec<Value> = ids
                    .iter()
                    .filter(|id| !mentioned.contains(id))
                    .map(|id| json!(id))
                    .collect();
                if let Some(order) = value.get_mut("order").and_then(Value::as_array_mut) {
                    order.extend(added);
                }
            }
        }
        _ => {}
    }
    let dropped = (!dropped.is_empty()).then(|| dropped.join("; "));
    (value, dropped)
}

/// Every piece of text in `v` (labels chosen, text typed, notes), in order, quoted.
fn said(v: &Value) -> String {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) if !s.trim().is_empty() => out.push(format!("“{}”", s.trim())),
            Value::Number(n) => out.push(n.to_string()),
            Value::Array(l) => l.iter().for_each(|x| walk(x, out)),
            Value::Object(m) => m.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut out);
    if out.is_empty() {
        "(nothing typed)".into()
    } else {
        out.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn single(id: Option<&str>, question: &str, options: &[&str]) -> String {
        let mut v = json!({ "version": "1", "question": question, "options": options });
        if let Some(id) = id {
            v["id"] = json!(id);
        }
        format!("```single-choice\n{v}\n```\n\n")
    }

    fn open(question: &str) -> String {
        format!(
            "```open-question\n{}\n```\n\n",
            json!({ "version": "1", "question": question })
        )
    }

    #[test]
    fn answers_follow_an_id_wherever_the_component_moves() {
        let old = single(Some("auth"), "Auth?", &["PIN", "SSO"]) + &open("Why?");
        let new = open("Why?") + &single(Some("auth"), "Auth?", &["PIN", "SSO"]);
        let carried = carry(
            &old,
            &new,
            &json!({ "b1": { "selected": ["SSO"] }, "b2": { "text": "cheap" } }),
            &json!([]),
        );
        assert_eq!(
            carried.inputs,
            json!({ "b2": { "selected": ["SSO"] }, "b1": { "text": "cheap" } })
        );
        assert!(carried.left.is_empty(), "{:?}", carried.left);
        // Moving a component with an id is no ambiguity; moving one without is (it has none).
        assert!(
            warnings(&old, &new, 1).is_empty(),
            "{:?}",
            warnings(&old, &new, 1)
        );
    }

    #[test]
    fn a_removed_option_keeps_the_readers_text_aside_and_is_warned_of() {
        let old = single(None, "Colour?", &["Red", "Blue"]);
        let new = single(None, "Colour?", &["Red", "Green"]);
        let carried = carry(
            &old,
            &new,
            &json!({ "b1": { "selected": ["Blue"], "note": "my own words" } }),
            &json!([]),
        );
        assert_eq!(
            carried.inputs,
            json!({ "b1": { "selected": [], "note": "my own words" } })
        );
        assert_eq!(carried.left.len(), 1);
        assert!(carried.left[0].contains("“Blue”"), "{:?}", carried.left);
        let w = warnings(&old, &new, 1);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0]["code"], "revision_answers_ambiguous");
        assert_eq!(w[0]["block"], "b1");
        assert!(w[0]["message"].as_str().unwrap().contains("\"Blue\""));
    }

    #[test]
    fn a_component_removed_without_an_id_is_named_and_its_text_kept() {
        let old = open("First?") + &open("Second?");
        let new = open("Second?");
        let w = warnings(&old, &new, 3);
        let codes: Vec<&str> = w.iter().filter_map(|d| d["code"].as_str()).collect();
        assert_eq!(
            codes,
            ["revision_answers_ambiguous", "revision_answers_unmatched"],
            "{w:?}"
        );
        assert!(
            w[1]["message"]
                .as_str()
                .unwrap()
                .contains("b2 of revision 3")
        );
        let carried = carry(
            &old,
            &new,
            &json!({ "b1": { "text": "one" }, "b2": { "text": "two typed" } }),
            &json!([]),
        );
        // By position: b1's answer lands on the one left; b2's is kept aside, word for word.
        assert_eq!(carried.inputs, json!({ "b1": { "text": "one" } }));
        assert!(
            carried.left.iter().any(|l| l.contains("“two typed”")),
            "{:?}",
            carried.left
        );
    }

    #[test]
    fn questions_and_items_follow_their_ids_inside_a_component() {
        let questionnaire = |questions: Value| {
            format!(
                "```questionnaire\n{}\n```\n\n",
                json!({ "version": "1", "questions": questions })
            )
        };
        let prioritize = |ids: &[&str]| {
            let items: Vec<Value> = ids.iter().map(|i| json!({ "id": i, "label": i })).collect();
            format!(
                "```prioritize\n{}\n```\n\n",
                json!({ "version": "1", "items": items })
            )
        };
        let old = questionnaire(json!([
            { "id": "q1", "question": "Auth?", "options": ["PIN", "SSO"] },
            { "id": "q2", "question": "When?", "options": ["Q1", "Q2"] }
        ])) + &prioritize(&["a", "b", "c"]);
        let new = questionnaire(json!([
            { "id": "q2", "question": "When?", "options": ["Q2", "Q3"] }
        ])) + &prioritize(&["c", "a", "d"]);
        let carried = carry(
            &old,
            &new,
            &json!({
                "b1": { "questions": { "q1": { "selected": ["SSO"] }, "q2": { "selected": ["Q2"] } } },
                "b2": { "order": ["b", "a", "c"] }
            }),
            &json!([]),
        );
        // q1 is gone, q2 keeps its choice; the list keeps its order, drops b, adds d last.
        assert_eq!(
            carried.inputs,
            json!({
                "b1": { "questions": { "q2": { "selected": ["Q2"] } } },
                "b2": { "order": ["a", "c", "d"] }
            })
        );
        assert!(
            carried
                .left
                .iter()
                .any(|l| l.contains("q1") && l.contains("“SSO”")),
            "{:?}",
            carried.left
        );
        let w = warnings(&old, &new, 1);
        assert_eq!(w.len(), 2, "{w:?}");
        let all: String = w.iter().map(|d| d["message"].to_string()).collect();
        for said in ["\\\"q1\\\"", "\\\"Q1\\\"", "\\\"b\\\""] {
            assert!(all.contains(said), "{said} in {all}");
        }
    }

    #[test]
    fn components_without_ids_swapped_are_warned_of() {
        let old = open("First?") + &open("Second?");
        let new = open("Second?") + &open("First?");
        let w = warnings(&old, &new, 1);
        let blocks: Vec<&str> = w.iter().filter_map(|d| d["block"].as_str()).collect();
        assert_eq!(blocks, ["b1", "b2"], "{w:?}");
    }

    #[test]
    fn an_unchanged_revision_warns_of_nothing() {
        let doc = single(None, "A?", &["x", "y"]) + &open("B?");
        assert!(warnings(&doc, &doc, 1).is_empty());
    }
}
