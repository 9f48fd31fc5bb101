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
//! | `bN.was.K` | allocate: the weight the page showed for it (hidden), which tells one raised weight from a sum to rescale |
//! | `bN.removed` | authored ids the reader removed (repeated) |
//! | `bN.op` | a list edit: `up:K`, `down:K`, `remove:K`, `restore:<id>`, `add` |
//! | `bN.add`, `bN.note` | the label of an item to add, the block note |
//! | `bN.comment`, `bN.node.I`, `bN.edge.I` | Mermaid: whole-diagram, node I, edge I comments |
//!
//! and for the comments on the prose (contract §7), which the export lists after the blocks:
//!
//! | field | meaning |
//! |---|---|
//! | `pb.comment` | the whole-document comment box (present when the document has prose) |
//! | `pb.note.K.leaf` | the script's comment K: the leaf it is on (`data-pb-leaf`); blank or absent for the whole document |
//! | `pb.note.K.quote` | the reader's excerpt of that leaf (optional) |
//! | `pb.note.K.text` | the comment itself |
//!
//! K is any number of up to nine digits; comments are read in the order of K, and any other
//! `pb.note.` name is refused.

use crate::components::answer::{
    AnswersError, FormFields, clean_text, err, list_or_none, only_keys, type_name,
};
use crate::components::{AnyAnswer, AnyComponent, reviewer};
use crate::document::{self, Block};
use crate::html::Focus;
use crate::html::i18n::Lang;
use crate::options::Surface;
use crate::{prose, sanitize};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// Answers keyed by block id, checked against one document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Responses {
    pub(crate) blocks: BTreeMap<String, AnyAnswer>,
    /// The reader's comments on the prose, as given (the export sorts them).
    pub(crate) annotations: Vec<Annotation>,
    /// After a no-JavaScript list edit: the block and the control the page shown again puts
    /// focus on, so a keyboard reader carries on where they were instead of at the top.
    pub(crate) focus: Option<(String, Focus)>,
    /// The name the reader gave in the routed page's optional name field, which a page shown
    /// again fills back in. It is not part of the export.
    pub(crate) reviewer: Option<String>,
}

impl Responses {
    /// Sets the reader's name, which the routed page's name field shows when the page is
    /// rendered again with these answers ([`crate::render_with_answers`]).
    pub fn set_reviewer(&mut self, name: Option<String>) {
        self.reviewer = name;
    }

    /// The reader's name, when one was set.
    pub fn reviewer(&self) -> Option<&str> {
        self.reviewer.as_deref()
    }

    /// The ids of the blocks that have an answer, in order.
    pub fn answered(&self) -> impl Iterator<Item = &str> {
        self.blocks.keys().map(String::as_str)
    }

    /// The reader's comments on the prose (contract §7), as given: the form's whole-document
    /// comment first, then the others in the order they were posted.
    pub fn annotations(&self) -> &[Annotation] {
        &self.annotations
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
    /// E.g. "“Budget” (allocate): the weights summed to 90%, so they were rescaled to 100%": each
    /// names its block as the reader sees it.
    pub notices: Vec<String>,
}

/// A reader's comment on the prose (contract §7): on one leaf (`data-pb-leaf`), maybe on an
/// excerpt of it, or on the whole document. Serialized, it is the responses' shape:
/// `{ "leaf": 3, "quote": "…", "text": "…" }`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Annotation {
    /// The leaf commented on, from 1; `None` for the whole document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leaf: Option<usize>,
    /// The reader's excerpt of the leaf's visible text, whitespace collapsed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
    /// The comment, trimmed, on one line.
    pub text: String,
    /// Whether it came from the form's whole-document box (`pb.comment`), which the page shown
    /// again after a list edit fills in.
    #[serde(skip)]
    pub(crate) boxed: bool,
}

/// A parsed and validated document, as the answers need it.
#[derive(Debug)]
pub struct Doc {
    pub(crate) blocks: Vec<Block>,
    pub(crate) lang: Lang,
    /// Each prose leaf's visible text, leaf N at index N − 1.
    pub(crate) leaves: Vec<String>,
}

impl Doc {
    /// Parses and validates `src` (no HTML is produced).
    pub fn parse(src: &str) -> Doc {
        let arena = document::arena_for(src);
        Doc::from_parsed(document::parse(&arena, src), src)
    }

    /// The document's language as its chrome speaks it: `en`, `he` or `ar` (spec §6).
    pub fn lang_code(&self) -> &'static str {
        self.lang.code()
    }

    /// The document's direction: `ltr`, or `rtl` for Hebrew and Arabic.
    pub fn dir(&self) -> &'static str {
        self.lang.dir()
    }

    /// Every component fence of the document, in order (as [`crate::validate`] lists them).
    pub fn blocks(&self) -> impl ExactSizeIterator<Item = &document::BlockInfo> {
        self.blocks.iter().map(|b| &b.info)
    }

    /// Every component fence with its content as written (the JSON the author gave, or the
    /// text of an invalid block), in document order.
    pub fn block_sources(&self) -> impl ExactSizeIterator<Item = (&document::BlockInfo, &str)> {
        self.blocks.iter().map(|b| (&b.info, b.source.as_str()))
    }

    /// The blocks, language and leaves of `src`, already parsed.
    pub(crate) fn from_parsed(parsed: document::Parsed, src: &str) -> Doc {
        let leaves = leaf_texts(&parsed, src);
        Doc::from_leaves(parsed, leaves)
    }

    /// A document already parsed, its leaves' texts already read ([`leaf_texts`]).
    pub(crate) fn from_leaves(parsed: document::Parsed, leaves: Vec<String>) -> Doc {
        Doc {
            lang: parsed.lang(),
            leaves,
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
        if id == "annotations" {
            out.annotations = annotations_from_json(&doc.leaves, value)?;
            continue;
        }
        let answer = doc.component(id)?.answer_from_json(id, value)?;
        out.blocks.insert(id.clone(), answer);
    }
    Ok(out)
}

/// The visible text of each of the document's prose leaves (see [`prose::texts`]), with raw
/// HTML read as the page shows it: sanitized, or as text when it nests too deeply for that.
/// Only the answers need them, so the render never pays for them.
pub(crate) fn leaf_texts(parsed: &document::Parsed, src: &str) -> Vec<String> {
    // The page's document has each NUL as U+FFFD, two bytes longer, and the page's size decides.
    let len = src.len() + 2 * memchr::memchr_iter(0, src.as_bytes()).count();
    let raw_as_text = sanitize::must_escape(parsed.root, len, parsed.raw_html);
    prose::texts(parsed.root, &parsed.nodes, raw_as_text)
}

/// The `"annotations"` of JSON responses: an array of `{ "leaf", "quote", "text" }`.
fn annotations_from_json(leaves: &[String], v: &Value) -> Result<Vec<Annotation>, AnswersError> {
    let items = v.as_array().ok_or_else(|| {
        err(
            "",
            "annotations",
            format!(
                "must be an array of comments such as {{ \"leaf\": 3, \"text\": \"…\" }}, not {}",
                type_name(v)
            ),
        )
    })?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let field = |key: &str| format!("annotations[{i}]{key}");
        let o = item.as_object().ok_or_else(|| {
            err(
                "",
                &field(""),
                format!("must be a JSON object, not {}", type_name(item)),
            )
        })?;
        only_keys("", &field(""), o, &["leaf", "quote", "text"])?;
        let leaf = match o.get("leaf") {
            None | Some(Value::Null) => None,
            Some(n) => {
                let number = n.as_u64().ok_or_else(|| {
                    err(
                        "",
                        &field(".leaf"),
                        format!(
                            "must be a leaf number (a whole number from 1), not {}",
                            type_name(n)
                        ),
                    )
                })?;
                Some(existing_leaf(
                    leaves,
                    number,
                    &n.to_string(),
                    &field(".leaf"),
                )?)
            }
        };
        let quote = match o.get("quote") {
            None | Some(Value::Null) => None,
            Some(Value::String(q)) => Some(q.as_str()),
            Some(other) => {
                return Err(err(
                    "",
                    &field(".quote"),
                    format!("must be a string, not {}", type_name(other)),
                ));
            }
        };
        let quote = checked_quote(leaves, leaf, quote, &field(".quote"))?;
        let text = match o.get("text") {
            Some(Value::String(t)) => t,
            None | Some(Value::Null) => {
                return Err(err("", &field(".text"), "a comment needs its text"));
            }
            Some(other) => {
                return Err(err(
                    "",
                    &field(".text"),
                    format!("must be a string, not {}", type_name(other)),
                ));
            }
        };
        if let Some(text) = one_line(text) {
            out.push(Annotation {
                leaf,
                quote,
                text,
                boxed: false,
            });
        }
    }
    Ok(out)
}

/// Leaf `number` (written `shown`), when the document has it.
fn existing_leaf(
    leaves: &[String],
    number: u64,
    shown: &str,
    field: &str,
) -> Result<usize, AnswersError> {
    match usize::try_from(number) {
        Ok(n) if n >= 1 && n <= leaves.len() => Ok(n),
        _ if leaves.is_empty() => Err(err(
            "",
            field,
            format!(
                "the document has no leaf {shown}: it has no prose to comment on; leave the leaf out to comment on the whole document"
            ),
        )),
        _ => Err(err(
            "",
            field,
            format!(
                "the document has no leaf {shown}; its leaves are numbered 1 to {}",
                leaves.len()
            ),
        )),
    }
}

/// The reader's excerpt, whitespace collapsed, when it is in the leaf's text; `None` when it is
/// blank.
fn checked_quote(
    leaves: &[String],
    leaf: Option<usize>,
    quote: Option<&str>,
    field: &str,
) -> Result<Option<String>, AnswersError> {
    let Some(quote) = quote.map(prose::collapse).filter(|q| !q.is_empty()) else {
        return Ok(None);
    };
    let Some(leaf) = leaf else {
        return Err(err(
            "",
            field,
            "a quote needs the leaf it is from; give its number as the leaf",
        ));
    };
    if !leaves
        .get(leaf - 1)
        .is_some_and(|text| text.contains(&quote))
    {
        return Err(err(
            "",
            field,
            format!(
                "the quote is not in the text of leaf {leaf}; copy it exactly as the page shows it"
            ),
        ));
    }
    Ok(Some(quote))
}

/// A comment as the export keeps it: trimmed, each line break a space; blank is nothing.
fn one_line(text: &str) -> Option<String> {
    clean_text(text).map(|t| t.replace(['\n', '\r'], " "))
}

/// The export's section of comments on the prose (contract §7): one bullet per comment, in
/// leaf order, whole-document comments last, each leaf quoted by the reader's excerpt or its
/// own text cut short; empty when there are none.
fn export_annotations(doc: &Doc, annotations: &[Annotation]) -> String {
    if annotations.is_empty() {
        return String::new();
    }
    let t = doc.lang.strings();
    let mut sorted: Vec<&Annotation> = annotations.iter().collect();
    // Stable: comments on one leaf, and on the whole document, keep the order they came in.
    sorted.sort_by_key(|a| a.leaf.unwrap_or(usize::MAX));
    let mut out = format!("## {}\n", t.comments_heading);
    for a in sorted {
        out.push_str("\n- ");
        match a.leaf {
            Some(leaf) => {
                let quote = match &a.quote {
                    Some(q) => q.clone(),
                    // Checked against this document's leaves when decoded.
                    None => prose::excerpt(doc.leaves.get(leaf - 1).map_or("", String::as_str)),
                };
                out.push_str(t.comment_on);
                out.push_str(" \"");
                out.push_str(&quote);
                out.push('"');
            }
            None => out.push_str(t.comment_on_document),
        }
        out.push_str(" — ");
        out.push_str(&reviewer::one_line(&a.text));
    }
    out
}

/// The responses as JSON keyed by block id (contract §4), the form [`from_json`] reads back to
/// the same export: how a host keeps or forwards answers that came in as the form's post.
/// Blocks with nothing to say are left out. The comments on the prose are not in it: they are
/// [`Responses::annotations`], which serialize as the `"annotations"` array `from_json` reads.
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

/// How a notice names its block to the reader: its title in quotes, `“Budget”`, or when it has
/// none what it is (`The list to rank`, `The split`), never its internal id. The script's
/// `noticeSubject` writes the same.
pub(crate) fn notice_subject(block: &Block) -> String {
    match block.component.as_ref().and_then(AnyComponent::page_title) {
        Some(title) => format!("\u{201c}{}\u{201d}", title.trim()),
        None => match block.info.kind.tag() {
            "prioritize" => "The list to rank".to_string(),
            "allocate" => "The split".to_string(),
            tag => format!("The {tag} block"),
        },
    }
}

/// The whole document's export: the non-empty block exports in document order, then the
/// comments on the prose, joined by one blank line. Prioritize and allocate always export;
/// YouTube never does.
pub fn export(doc: &Doc, responses: &Responses) -> Export {
    let mut parts = Vec::new();
    let mut notices = Vec::new();
    for block in &doc.blocks {
        let Some(component) = &block.component else {
            continue;
        };
        let part = component.export(responses.get(&block.info.id), doc.lang);
        if let Some(n) = part.notice {
            notices.push(format!("{}: {n}", notice_subject(block)));
        }
        if !part.text.is_empty() {
            parts.push(part.text);
        }
    }
    let comments = export_annotations(doc, &responses.annotations);
    if !comments.is_empty() {
        parts.push(comments);
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
    let decoded = decode_form(&doc.blocks, &doc.leaves, pairs)?;
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
    leaves: &[String],
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
        let subject = notice_subject(block);
        let mut fields = FormFields::new(id, &subject, &mut notices, &by_name);
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
    responses.annotations = annotations_from_form(leaves, pairs)?;
    Ok(DecodedForm {
        op,
        responses,
        notices,
    })
}

/// The fields of one comment on the prose (`pb.note.K.leaf`, `.quote`, `.text`): the first value
/// posted for each, with the name it was posted under.
#[derive(Default)]
struct NoteFields<'p> {
    leaf: Option<(&'p str, &'p str)>,
    quote: Option<(&'p str, &'p str)>,
    text: Option<(&'p str, &'p str)>,
}

/// The comments on the prose a form post holds: the whole-document box (`pb.comment`), then
/// each `pb.note.K` in the order of K. A field name the page never makes is refused first
/// (the first in posted order), then each comment's leaf and quote, as the JSON path does.
fn annotations_from_form(
    leaves: &[String],
    pairs: &[(String, String)],
) -> Result<Vec<Annotation>, AnswersError> {
    let mut notes: BTreeMap<u32, NoteFields> = BTreeMap::new();
    let mut comment = None;
    for (name, value) in pairs {
        if name == "pb.comment" {
            comment = comment.or(Some(value.as_str()));
            continue;
        }
        let Some(rest) = name.strip_prefix("pb.note.") else {
            continue;
        };
        let (k, field) = rest.split_once('.').unwrap_or((rest, ""));
        let number = (!k.is_empty() && k.len() <= 9 && k.bytes().all(|b| b.is_ascii_digit()))
            .then(|| k.parse::<u32>().ok())
            .flatten();
        let note = number.map(|n| notes.entry(n).or_default());
        let slot = match (note, field) {
            (Some(note), "leaf") => &mut note.leaf,
            (Some(note), "quote") => &mut note.quote,
            (Some(note), "text") => &mut note.text,
            _ => {
                return Err(err(
                    "",
                    name,
                    "is not a comment field; a comment posts pb.note.K.leaf, pb.note.K.quote and pb.note.K.text",
                ));
            }
        };
        slot.get_or_insert((name.as_str(), value.as_str()));
    }
    let mut out = Vec::new();
    if let Some(text) = comment.and_then(one_line) {
        out.push(Annotation {
            leaf: None,
            quote: None,
            text,
            boxed: true,
        });
    }
    for note in notes.values() {
        let leaf = match note.leaf {
            None | Some((_, "")) => None,
            Some((field, v)) => {
                let digits = v.strip_prefix('+').unwrap_or(v);
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(err(
                        "",
                        field,
                        format!("\"{v}\" is not a leaf number; reload the form"),
                    ));
                }
                // Too many digits for a number is no leaf either.
                let number = digits.parse::<u64>().unwrap_or(u64::MAX);
                Some(existing_leaf(leaves, number, v, field)?)
            }
        };
        let quote = match note.quote {
            Some((field, quote)) => checked_quote(leaves, leaf, Some(quote), field)?,
            None => None,
        };
        if let Some(text) = note.text.and_then(|(_, t)| one_line(t)) {
            out.push(Annotation {
                leaf,
                quote,
                text,
                boxed: false,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const PROSE: &str = "# Moving the wiki\n\n\
        We have outgrown the old wiki: search is slow, editing on a phone is painful, and nobody trusts it.\n\n\
        ```single-choice\n{\"version\":\"1\",\"question\":\"Which?\",\"options\":[\"A\",\"B\"]}\n```\n\n\
        Short one.\n";

    fn exported(src: &str, responses: Value) -> Result<String, String> {
        let doc = Doc::parse(src);
        let r = from_json(&doc, &responses).map_err(|e| e.to_string())?;
        Ok(export(&doc, &r).markdown)
    }

    #[test]
    fn comments_follow_the_blocks_in_leaf_order_whole_document_last() {
        let out = exported(
            PROSE,
            json!({
                "annotations": [
                    { "text": "please decide before Friday" },
                    { "leaf": 3, "text": "agreed" },
                    { "leaf": 2, "text": "the phone part\r\nis the real reason" },
                    { "leaf": 2, "quote": " search  is\nslow ", "text": "  very  " },
                    { "leaf": 1, "quote": "", "text": "good title" },
                    { "leaf": 3, "text": " \n " },
                    { "text": "and thanks" }
                ],
                "b1": { "selected": ["B"] }
            }),
        );
        assert_eq!(
            out.unwrap(),
            "**Q: Which?**\nAnswer: B\n\n## Comments on the text\n\n\
             - On \"Moving the wiki\" — good title\n\
             - On \"We have outgrown the old wiki: search is slow, editing on a phone is…\" — the phone part is the real reason\n\
             - On \"search is slow\" — very\n\
             - On \"Short one.\" — agreed\n\
             - On the whole document — please decide before Friday\n\
             - On the whole document — and thanks\n"
        );
        // Comments alone are the whole export; an empty list adds nothing.
        assert_eq!(
            exported(PROSE, json!({ "annotations": [{ "text": "x" }] })).unwrap(),
            "## Comments on the text\n\n- On the whole document — x\n"
        );
        assert_eq!(exported(PROSE, json!({ "annotations": [] })).unwrap(), "");
        assert_eq!(
            exported(
                "שלום עולם, זה מסמך בעברית.\n",
                json!({ "annotations": [{ "leaf": 1, "text": "כן" }, { "text": "לא" }] })
            )
            .unwrap(),
            "## הערות על הטקסט\n\n- על \"שלום עולם, זה מסמך בעברית.\" — כן\n- על המסמך כולו — לא\n"
        );
    }

    #[test]
    fn comments_that_do_not_fit_name_their_place() {
        let cases = [
            (
                json!({ "annotations": {} }),
                "annotations: must be an array of comments",
            ),
            (
                json!({ "annotations": ["x"] }),
                "annotations[0]: must be a JSON object, not a string",
            ),
            (
                json!({ "annotations": [{ "text": "a", "on": 1 }] }),
                "annotations[0].on: unknown field",
            ),
            (
                json!({ "annotations": [{ "text": "a" }, { "leaf": 0, "text": "b" }] }),
                "annotations[1].leaf: the document has no leaf 0; its leaves are numbered 1 to 3",
            ),
            (
                json!({ "annotations": [{ "leaf": 4, "text": "b" }] }),
                "annotations[0].leaf: the document has no leaf 4",
            ),
            (
                json!({ "annotations": [{ "leaf": -1, "text": "b" }] }),
                "annotations[0].leaf: must be a leaf number (a whole number from 1), not a number",
            ),
            (
                json!({ "annotations": [{ "leaf": "2", "text": "b" }] }),
                "must be a leaf number (a whole number from 1), not a string",
            ),
            (
                json!({ "annotations": [{ "leaf": 2, "quote": "search is fast", "text": "b" }] }),
                "annotations[0].quote: the quote is not in the text of leaf 2",
            ),
            (
                json!({ "annotations": [{ "leaf": 1, "quote": "Short", "text": "b" }] }),
                "the quote is not in the text of leaf 1",
            ),
            (
                json!({ "annotations": [{ "quote": "Short", "text": "b" }] }),
                "annotations[0].quote: a quote needs the leaf it is from",
            ),
            (
                json!({ "annotations": [{ "leaf": 2, "quote": 3, "text": "b" }] }),
                "annotations[0].quote: must be a string, not a number",
            ),
            (
                json!({ "annotations": [{ "leaf": 2 }] }),
                "annotations[0].text: a comment needs its text",
            ),
            (
                json!({ "annotations": [{ "text": ["b"] }] }),
                "annotations[0].text: must be a string, not an array",
            ),
        ];
        for (responses, expected) in cases {
            let got = exported(PROSE, responses.clone()).unwrap_err();
            assert!(got.contains(expected), "{responses}: {got}");
        }
        let got = exported(
            "```open-question\n{\"version\":\"1\",\"question\":\"Q?\"}\n```\n",
            json!({ "annotations": [{ "leaf": 1, "text": "x" }] }),
        )
        .unwrap_err();
        assert!(
            got.contains("no leaf 1: it has no prose to comment on"),
            "{got}"
        );
    }

    fn posted(src: &str, fields: &[(&str, &str)]) -> Result<FormPost, String> {
        let mut pairs = vec![("pb.source".to_string(), src.to_string())];
        pairs.extend(fields.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        from_form(&pairs).map_err(|e| e.to_string())
    }

    #[test]
    fn the_form_posts_comments_as_the_json_gives_them() {
        let post = posted(
            PROSE,
            &[
                ("pb.note.10.text", "agreed"),
                ("pb.note.10.leaf", "3"),
                ("pb.comment", "please decide\r\nbefore Friday"),
                ("pb.note.2.leaf", "+2"),
                ("pb.note.2.quote", " search  is\nslow "),
                ("pb.note.2.text", "very"),
                ("pb.note.02.text", "a second text for note 2 is ignored"),
                ("pb.note.3.leaf", "1"),
                ("pb.note.3.text", "  "),
                ("pb.note.4.text", "and thanks"),
                ("pb.comment", "a second box is ignored"),
            ],
        )
        .unwrap();
        let json = from_json(
            &post.doc,
            &json!({ "annotations": [
                { "text": "please decide before Friday" },
                { "leaf": 2, "quote": "search is slow", "text": "very" },
                { "text": "and thanks" },
                { "leaf": 3, "text": "agreed" }
            ] }),
        )
        .unwrap();
        assert_eq!(export(&post.doc, &post.responses), export(&post.doc, &json));
        assert!(post.responses.annotations[0].boxed);
    }

    #[test]
    fn form_comments_that_do_not_fit_name_their_field() {
        let cases: [(&[(&str, &str)], &str); 8] = [
            (
                &[("pb.note.1.leaf", "x")],
                "pb.note.1.leaf: \"x\" is not a leaf number; reload the form",
            ),
            (&[("pb.note.1.leaf", "-1")], "\"-1\" is not a leaf number"),
            (
                &[("pb.note.1.leaf", "04"), ("pb.note.1.text", "a")],
                "pb.note.1.leaf: the document has no leaf 04; its leaves are numbered 1 to 3",
            ),
            (
                &[("pb.note.1.leaf", "99999999999999999999999")],
                "the document has no leaf 99999999999999999999999",
            ),
            (
                &[("pb.note.1.quote", "Short")],
                "pb.note.1.quote: a quote needs the leaf it is from",
            ),
            (
                &[("pb.note.1.leaf", "2"), ("pb.note.1.quote", "Short")],
                "pb.note.1.quote: the quote is not in the text of leaf 2",
            ),
            (
                &[
                    ("pb.note.1.leaf", "1"),
                    ("pb.note.x.text", "a"),
                    ("pb.note.1.lead", ""),
                ],
                "pb.note.x.text: is not a comment field",
            ),
            (
                &[("pb.note.1234567890.text", "a")],
                "pb.note.1234567890.text: is not a comment field",
            ),
        ];
        for (fields, expected) in cases {
            let got = posted(PROSE, fields).unwrap_err();
            assert!(got.contains(expected), "{fields:?}: {got}");
        }
        // Block fields are checked first, as the script checks them.
        let got = posted(PROSE, &[("pb.note.x", ""), ("b1.q0.pick", "7")]).unwrap_err();
        assert!(got.starts_with("b1 q0.pick"), "{got}");
    }

    /// After a list edit without JavaScript, the page shown again holds every comment, and its
    /// own fields post the same export.
    #[test]
    fn a_list_edit_keeps_the_comments() {
        let src = "Pick an order.\n\n```prioritize\n{\"version\":\"1\",\"items\":[{\"id\":\"a\",\"label\":\"A\"},{\"id\":\"b\",\"label\":\"B\"}]}\n```\n";
        let fields = [
            ("b1.item", "i:a"),
            ("b1.item", "i:b"),
            ("b1.op", "down:0"),
            ("pb.comment", "whole <doc> & \"more\""),
            ("pb.note.5.leaf", "1"),
            ("pb.note.5.quote", "an order"),
            ("pb.note.5.text", "why this order?"),
            ("pb.note.6.text", "a hand-made whole-document comment"),
        ];
        let post = posted(src, &fields).unwrap();
        assert_eq!(post.op, FormOp::Edit);
        let page = crate::render::render_with_answers(
            src,
            &crate::options::Options::default(),
            &post.responses,
        )
        .html;
        assert!(
            page.contains(
                "name=\"pb.comment\" rows=\"3\">whole &lt;doc&gt; &amp; &quot;more&quot;</textarea>"
            ),
            "{page}"
        );
        assert!(
            page.contains("<input type=\"hidden\" name=\"pb.note.0.leaf\" value=\"1\">"),
            "{page}"
        );
        assert!(
            page.contains("<input type=\"hidden\" name=\"pb.note.0.quote\" value=\"an order\">"),
            "{page}"
        );
        assert!(page.contains("<input type=\"hidden\" name=\"pb.note.1.text\" value=\"a hand-made whole-document comment\">"), "{page}");
        let again = posted(
            src,
            &[
                ("b1.item", "i:b"),
                ("b1.item", "i:a"),
                ("pb.comment", "whole <doc> & \"more\""),
                ("pb.note.0.leaf", "1"),
                ("pb.note.0.quote", "an order"),
                ("pb.note.0.text", "why this order?"),
                ("pb.note.1.text", "a hand-made whole-document comment"),
            ],
        )
        .unwrap();
        assert_eq!(again.responses.annotations, post.responses.annotations);
        assert_eq!(
            export(&again.doc, &again.responses).markdown,
            "(reader reordered)\n\n1. B\n2. A\n\n## Comments on the text\n\n\
             - On \"an order\" — why this order?\n\
             - On the whole document — whole &lt;doc> & \"more\"\n\
             - On the whole document — a hand-made whole-document comment\n"
        );
    }

    /// Comments posted to a document with no prose (so no box) survive a list edit too.
    #[test]
    fn a_list_edit_keeps_comments_where_there_is_no_box() {
        let src = "```prioritize\n{\"version\":\"1\",\"items\":[{\"id\":\"a\",\"label\":\"A\"},{\"id\":\"b\",\"label\":\"B\"}]}\n```\n";
        let post = posted(
            src,
            &[
                ("b1.op", "down:0"),
                ("pb.comment", "boxed"),
                ("pb.note.3.text", "noted"),
            ],
        )
        .unwrap();
        let page = crate::render::render_with_answers(
            src,
            &crate::options::Options::default(),
            &post.responses,
        )
        .html;
        assert!(!page.contains("name=\"pb.comment\" rows"), "{page}");
        assert!(
            page.contains("<input type=\"hidden\" name=\"pb.comment\" value=\"boxed\">"),
            "{page}"
        );
        assert!(
            page.contains("<input type=\"hidden\" name=\"pb.note.0.text\" value=\"noted\">"),
            "{page}"
        );
    }

    /// A document without prose has no comment box; one with prose always has a form.
    #[test]
    fn prose_brings_the_form_and_its_comment_box() {
        let options = crate::options::Options::default();
        let html = crate::render::render("Just prose.\n", &options).html;
        assert!(html.contains("<form class=\"pb-form\""), "{html}");
        assert!(html.contains("name=\"pb.comment\""), "{html}");
        let bare = crate::render::render(
            "{\"version\":\"1\",\"question\":\"Q?\",\"options\":[\"A\",\"B\"]}",
            &options,
        )
        .html;
        assert!(!bare.contains("pb.comment"), "{bare}");
        let video = crate::render::render(
            "```youtube\n{\"version\":\"1\",\"id\":\"dQw4w9WgXcQ\"}\n```\n",
            &options,
        )
        .html;
        assert!(!video.contains("<form"), "{video}");
        let email =
            crate::render::render("Just prose.\n", &options.with_surface(Surface::Email)).html;
        assert!(
            !email.contains("pb.comment") && !email.contains("<form"),
            "{email}"
        );
    }

    /// The responses' annotations serialize in the shape they were given in.
    #[test]
    fn annotations_serialize_as_the_responses_spell_them() {
        let doc = Doc::parse(PROSE);
        let r = from_json(&doc, &json!({ "annotations": [{ "leaf": 2, "quote": "search", "text": "a" }, { "text": "b" }] })).unwrap();
        assert_eq!(
            serde_json::to_value(r.annotations()).unwrap(),
            json!([{ "leaf": 2, "quote": "search", "text": "a" }, { "text": "b" }])
        );
    }

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
