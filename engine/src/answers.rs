//! Answers: the reader's responses (as JSON, or as the rendered form's own post) checked against
//! the document, and the copy-back Markdown export of spec §3.5, §4.3, §4.5.3 and §4.7.3. This
//! module holds the envelopes and the joining; each component reads and exports its own answer.
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

use crate::components::answer::{AnswersError, FormFields, err, list_or_none};
use crate::components::{AnyAnswer, AnyComponent};
use crate::document::{self, Block};
use crate::html::Focus;
use crate::html::i18n::Lang;
use crate::options::Surface;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// Answers keyed by block id, checked against one document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Responses {
    pub(crate) blocks: BTreeMap<String, AnyAnswer>,
    /// After a no-JavaScript list edit: the block and the control the page shown again puts
    /// focus on, so a keyboard reader carries on where they were instead of at the top.
    pub(crate) focus: Option<(String, Focus)>,
}

impl Responses {
    /// The ids of the blocks that have an answer, in order.
    pub fn answered(&self) -> impl Iterator<Item = &str> {
        self.blocks.keys().map(String::as_str)
    }

    /// The answer to block `id` (`b1`, `b2`, …).
    pub(crate) fn get(&self, id: &str) -> Option<&AnyAnswer> {
        self.blocks.get(id)
    }

    /// Where focus goes in block `id` on the page shown again, if the post was a list edit there.
    pub(crate) fn focus_in(&self, id: &str) -> Option<Focus> {
        self.focus
            .as_ref()
            .filter(|(block, _)| block == id)
            .map(|(_, f)| *f)
    }
}

/// The export and anything the reader should be told about how it was made.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Export {
    /// The copy-back Markdown: every answered block's export, joined by a blank line.
    pub markdown: String,
    /// E.g. "b6: the weights summed to 90%, so they were rescaled to 100%".
    pub notices: Vec<String>,
}

/// A parsed and validated document, as the answers need it.
#[derive(Debug)]
pub struct Doc {
    pub(crate) blocks: Vec<Block>,
    pub(crate) lang: Lang,
}

impl Doc {
    /// Parses and validates `src` (no HTML is produced).
    pub fn parse(src: &str) -> Doc {
        let arena = document::arena_for(src);
        Doc::from_parsed(document::parse(&arena, src))
    }

    /// Every component fence of the document, in order (as [`crate::validate`] lists them).
    pub fn blocks(&self) -> impl ExactSizeIterator<Item = &document::BlockInfo> {
        self.blocks.iter().map(|b| &b.info)
    }

    /// The blocks and language of a document already parsed.
    pub(crate) fn from_parsed(parsed: document::Parsed) -> Doc {
        Doc {
            lang: parsed.lang(),
            blocks: parsed.blocks,
        }
    }

    fn component(&self, id: &str) -> Result<&AnyComponent, AnswersError> {
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
        block.component.as_ref().ok_or_else(|| {
            err(
                id,
                "",
                format!(
                    "the {} block is invalid, so it takes no answers; fix the document first",
                    block.info.kind.tag()
                ),
            )
        })
    }
}

/// Checks JSON responses (contract §4) against the document. Anything that does not fit is an
/// error naming the block and field; nothing is guessed.
///
/// ```
/// use passback_engine::{Doc, answers_from_json, export};
/// let doc = Doc::parse("```single-choice\n{\"version\":\"1\",\"question\":\"Which?\",\"options\":[\"A\",\"B\"]}\n```\n");
/// let responses = answers_from_json(&doc, &serde_json::json!({ "b1": { "selected": ["B"] } })).unwrap();
/// assert_eq!(export(&doc, &responses).markdown, "**Q: Which?**\nAnswer: B\n");
/// ```
pub fn from_json(doc: &Doc, json: &Value) -> Result<Responses, AnswersError> {
    let map = json.as_object().ok_or_else(|| err("", "", "responses must be a JSON object keyed by block id, e.g. { \"b1\": { \"selected\": [\"…\"] } }"))?;
    let mut out = Responses::default();
    for (id, value) in map {
        let answer = doc.component(id)?.answer_from_json(id, value)?;
        out.blocks.insert(id.clone(), answer);
    }
    Ok(out)
}

/// The responses as JSON keyed by block id (contract §4), the form [`from_json`] reads back to
/// the same export: how a host keeps or forwards answers that came in as the form's post.
/// Blocks with nothing to say are left out.
///
/// ```
/// use passback_engine::{Doc, answers_from_form, answers_to_json};
/// let src = "```single-choice\n{\"version\":\"1\",\"question\":\"Which?\",\"options\":[\"A\",\"B\"]}\n```\n";
/// let pairs = [("pb.source", src), ("b1.q0.pick", "1")]
///     .map(|(k, v)| (k.to_string(), v.to_string()));
/// let post = answers_from_form(&pairs).unwrap();
/// assert_eq!(
///     answers_to_json(&post.doc, &post.responses),
///     serde_json::json!({ "b1": { "selected": ["B"] } })
/// );
/// ```
pub fn to_json(doc: &Doc, responses: &Responses) -> Value {
    let mut out = serde_json::Map::new();
    for block in &doc.blocks {
        let (Some(component), Some(answer)) = (&block.component, responses.get(&block.info.id))
        else {
            continue;
        };
        match component.answer_to_json(answer) {
            Some(Value::Object(o)) if o.is_empty() => {}
            Some(json) => {
                out.insert(block.info.id.clone(), json);
            }
            None => {}
        }
    }
    Value::Object(out)
}

/// The whole document's export: the non-empty block exports in document order, joined by one
/// blank line. Prioritize and allocate always export; YouTube never does.
pub fn export(doc: &Doc, responses: &Responses) -> Export {
    let mut parts = Vec::new();
    let mut notices = Vec::new();
    for block in &doc.blocks {
        let Some(component) = &block.component else {
            continue;
        };
        let part = component.export(responses.get(&block.info.id), doc.lang);
        if let Some(n) = part.notice {
            notices.push(format!("{}: {n}", block.info.id));
        }
        if !part.text.is_empty() {
            parts.push(part.text);
        }
    }
    let mut markdown = parts.join("\n\n");
    if !markdown.is_empty() {
        markdown.push('\n');
    }
    Export { markdown, notices }
}

// ---------------------------------------------------------------------------------------------
// The rendered form's own post

/// What a form post asks for.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum FormOp {
    /// "Get answers": show the export.
    Export,
    /// A list edit (move, remove, restore, add): show the form again with the new state.
    Edit,
}

/// A decoded form post: the document (as parsed from `pb.source`), the surface it was rendered
/// for, and the answers.
#[derive(Debug)]
#[non_exhaustive]
pub struct FormPost {
    /// The surface the form was rendered for (`pb.surface`).
    pub surface: Surface,
    /// Whether the reader asked for the export or made a list edit.
    pub op: FormOp,
    /// The document the form carries.
    pub doc: Doc,
    /// The answers the form holds, with any list edit applied.
    pub responses: Responses,
    /// Problems that did not stop the decode (e.g. a weight that is not a number).
    pub notices: Vec<String>,
}

/// Decodes `application/x-www-form-urlencoded` pairs (`+` as space, `%XX` escapes). Bytes that do
/// not form UTF-8 are an error, never replaced silently.
pub fn parse_urlencoded(body: &str) -> Result<Vec<(String, String)>, AnswersError> {
    let decode = |s: &str| -> Result<String, AnswersError> {
        percent_encoding::percent_decode_str(&s.replace('+', " "))
            .decode_utf8()
            .map(|c| c.into_owned())
            .map_err(|_| AnswersError::malformed("", "the form data is not valid UTF-8"))
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
    let source = field("pb.source").ok_or_else(|| AnswersError::malformed("pb.source", "the form post carries no document; post the form rendered by passback, which has a hidden pb.source field"))?;
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
    // JSON path refuses an unknown block, rather than drop the answer it meant to carry. The
    // first such field in posted order is named, so the answer is the same every time.
    for (name, _) in pairs {
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
        let mut fields = FormFields::new(id, &by_name, &mut notices);
        if fields.op().is_some() {
            op = FormOp::Edit;
        }
        if !block.info.kind.takes_answers() {
            continue;
        }
        let answer = component.answer_from_form(&mut fields)?;
        if let Some(f) = fields.focus() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urlencoded_decoding() {
        let pairs = parse_urlencoded("a=1+2&b=%E2%86%92&c&d=%zz&e=%2B").unwrap();
        assert_eq!(
            pairs,
            vec![
                ("a".into(), "1 2".into()),
                ("b".into(), "→".into()),
                ("c".into(), "".into()),
                ("d".into(), "%zz".into()),
                ("e".into(), "+".into())
            ]
        );
        assert!(parse_urlencoded("a=%ff").is_err());
    }
}
