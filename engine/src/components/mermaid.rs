//! `mermaid`: a diagram to read and comment on (spec §4.7). Flowcharts are drawn on the server
//! as SVG (`crate::diagram`); other diagram types show a placeholder naming their type. The
//! source is always beside the picture, and so is a list of the nodes and edges with a comment
//! field each, so commenting works without JavaScript.

use super::answer::{
    AnswersError, FormFields, Part, err, join, list_or_none, object, only_keys, text, type_name,
};
use super::check::{Checker, Obj};
use super::{Component, prefix_lines, reviewer};
use crate::diag::Code;
use crate::diagram::flowchart::{self, Flowchart, layout};
use crate::diagram::sequence::{self, Sequence};
use crate::diagram::class::{self, ClassDiagram};
use crate::diagram::er::{self, ErDiagram};
use crate::diagram::gantt::{self, GanttChart};
use crate::diagram::state::{self, StateDiagram};
use crate::diagram::{self, svg::Frame};
use crate::html::email;
use crate::html::i18n::Lang;
use crate::html::i18n::Strings;
use crate::html::{Digits, Fill, RenderCx, Text, escape_into};
use crate::json::Json;
use maud::{Markup, PreEscaped, Render, html};
use serde_json::Value as JsonValue;

const FIELDS: [&str; 4] = ["version", "source", "title", "skill_version"];
/// Largest accepted `source`, in bytes: real architecture diagrams run to 16 KB; the
/// diagram caps (nodes, edges, participants, layout boxes) and the render budget bound the
/// work whatever the size.
pub const MAX_SOURCE: usize = crate::diagram::MAX_SOURCE;
pub const MAX_TITLE: usize = 200;

#[derive(Debug, Clone)]
pub struct Mermaid {
    pub source: String,
    pub title: Option<String>,
    /// The nodes and edges, when the source is a flowchart this engine can read; for a
    /// sequence diagram, its participants and messages.
    pub chart: Option<Flowchart>,
    /// The sequence diagram, when the source is one this engine can read.
    pub sequence: Option<Box<Sequence>>,
    /// A flowchart's layout, made when the block is read: a chart too large to lay out is a
    /// warning in `validate` as in `render`.
    /// (Boxed: every block is as large as its largest kind.)
    pub laid_out: Option<Box<Result<layout::Drawing, layout::Failure>>>,
    /// The state diagram, when the source is one this engine can read, with its layout.
    pub state: Option<Box<(StateDiagram, Result<layout::Drawing, layout::Failure>)>>,
    /// The ER diagram, when the source is one this engine can read, with its layout.
    pub er: Option<Box<(ErDiagram, Result<layout::Drawing, layout::Failure>)>>,
    /// The class diagram, when the source is one this engine can read, with its layout.
    pub class: Option<Box<(ClassDiagram, Result<layout::Drawing, layout::Failure>)>>,
    /// The gantt chart, when the source is one this engine can read.
    pub gantt: Option<Box<GanttChart>>,
}

fn parse(o: &Obj, ck: &mut Checker) -> Option<Mermaid> {
    ck.unknown_fields(o, &FIELDS, "a mermaid block");
    ck.version(o);
    ck.optional_str(o, "skill_version");
    let title = ck.clamped_string(o, "title", MAX_TITLE);
    let source = ck.required_string(
        o,
        "source",
        "give the diagram text, e.g. \"source\": \"graph TD; A-->B;\"",
    )?;
    if source.len() > MAX_SOURCE {
        let at = o.start_of("source");
        ck.error(
            Code::TooLong,
            at,
            &o.path("source"),
            format!(
                "`source` is {} bytes; the limit is {MAX_SOURCE}",
                source.len()
            ),
            "split the diagram in two, or show less detail".into(),
        );
        return None;
    }
    let read = diagram::read::read(&source);
    let start = o.start_of("source");
    for w in read.warnings {
        // A warning about a construct is at its own line and column in the Markdown document.
        let at = w.offset.map_or(start, |offset| ck.string_offset(start, offset));
        ck.warn(w.code, at, &o.path("source"), w.message, w.hint);
    }
    let diagram::read::Read {
        chart,
        laid_out,
        sequence,
        state,
        er,
        class,
        gantt,
        ..
    } = read;
    let chart = chart
        .or_else(|| sequence.as_ref().map(|s| s.as_flowchart()))
        .or_else(|| state.as_ref().map(|s| s.0.chart.clone()))
        .or_else(|| er.as_ref().map(|e| e.0.chart.clone()))
        .or_else(|| class.as_ref().map(|c| c.0.chart.clone()))
        .or_else(|| gantt.as_ref().map(|g| g.chart.clone()));
    Some(Mermaid {
        source,
        title,
        chart,
        sequence,
        laid_out,
        state,
        er,
        class,
        gantt,
    })
}

impl Component for Mermaid {
    const TAG: &'static str = "mermaid";
    const BARE_RANK: u8 = 6;
    type Answer = Vec<Comment>;

    fn parse(o: &Obj, ck: &mut Checker) -> Option<Self> {
        parse(o, ck)
    }

    /// A `source` field.
    fn bare_shape(value: &Json) -> bool {
        value.get("source").is_some()
    }

    fn render(&self, cx: &RenderCx, answer: Option<&Vec<Comment>>) -> Markup {
        render(self, cx, answer.map_or(&[], Vec::as_slice))
    }

    fn answer_from_json(
        &self,
        block: &str,
        value: &JsonValue,
    ) -> Result<Vec<Comment>, AnswersError> {
        comments_json(block, self, value)
    }

    fn answer_from_form(&self, fields: &mut FormFields) -> Result<Vec<Comment>, AnswersError> {
        Ok(comments_form(self, fields))
    }

    /// Comments on one pair's arrows keep their order; which drawn arrow each was on is not
    /// written (JSON comments fill a pair's arrows in order).
    fn answer_to_json(&self, answer: &Vec<Comment>) -> JsonValue {
        if answer.is_empty() {
            return JsonValue::Object(serde_json::Map::new());
        }
        let comments: Vec<JsonValue> = answer
            .iter()
            .map(|c| match c {
                Comment::Diagram(text) => serde_json::json!({ "on": "diagram", "text": text }),
                Comment::Node { id, text } => {
                    serde_json::json!({ "on": "node", "id": id, "text": text })
                }
                Comment::Edge { from, to, text, .. } => {
                    serde_json::json!({ "on": "edge", "from": from, "to": to, "text": text })
                }
            })
            .collect();
        serde_json::json!({ "comments": comments })
    }

    fn export(&self, answer: Option<&Vec<Comment>>, _lang: Lang) -> Part {
        answer
            .map_or_else(String::new, |c| export_comments(self, c))
            .into()
    }

    fn plain_text(&self, t: &Strings, lines: &mut Vec<String>) {
        lines.push(
            format!("{}: {}", t.diagram, self.title.as_deref().unwrap_or(""))
                .trim_end_matches(": ")
                .to_string(),
        );
        match (&self.sequence, &self.chart) {
            // A sequence diagram's notes and frames are not in its graph: its words say all.
            (Some(seq), _) => lines.push(format!("  {}", sequence::describe::describe(seq, t))),
            // A state diagram's kinds of state and notes are not in its graph either.
            (None, Some(_)) if self.state.is_some() => {
                if let Some(s) = &self.state {
                    lines.push(format!("  {}", state::describe::describe(&s.0, t)));
                }
            }
            // An ER diagram's attributes and cardinalities are not in its graph either.
            (None, Some(_)) if self.er.is_some() => {
                if let Some(e) = &self.er {
                    lines.push(format!("  {}", er::describe::describe(&e.0, t)));
                }
            }
            // A class diagram's members and markers are not in its graph either.
            (None, Some(_)) if self.class.is_some() => {
                if let Some(c) = &self.class {
                    lines.push(format!("  {}", class::describe::describe(&c.0, t)));
                }
            }
            // A gantt chart's times are not in its graph either.
            (None, Some(_)) if self.gantt.is_some() => {
                if let Some(g) = &self.gantt {
                    lines.push(format!("  {}", gantt::describe::describe(g, t)));
                }
            }
            (None, Some(chart)) => {
                // Boxes no arrow touches are listed on their own: nothing drawn is left out.
                for (i, n) in chart.nodes.iter().enumerate() {
                    let linked = chart.edges.iter().any(|e| e.from == i || e.to == i);
                    if !linked && chart.subgraph_named(&n.id).is_none() {
                        lines.push(format!("  {}", n.label.replace('\n', " ")));
                    }
                }
                for e in &chart.edges {
                    let label = e
                        .label
                        .as_ref()
                        .map(|l| format!(" ({l})"))
                        .unwrap_or_default();
                    lines.push(format!(
                        "  {} → {}{label}",
                        chart.nodes[e.from].label,
                        chart.nodes[e.to].label
                    ));
                }
            }
            (None, None) => lines.push(prefix_lines(self.source.trim_end(), "    ", "    ")),
        }
    }

    fn visible_text(&self, push: &mut dyn FnMut(&str)) {
        push(self.title.as_deref().unwrap_or(""));
    }
}

/// The diagram in a mail: never inline SVG, which Gmail, Outlook and Yahoo drop with its
/// `<title>` and `<desc>`. With somewhere for the image (a public URL, or a `cid:` part of the
/// message) a PNG whose `alt` is the diagram in words; otherwise those words, shown.
fn email_render(m: &Mermaid, cx: &RenderCx, caption: &str, drawing: diagram::Rendered) -> Markup {
    // The same words as the drawing's `<desc>`.
    let words = match (&m.sequence, &m.chart) {
        _ if !drawing.drawn => None,
        (Some(seq), _) => Some(sequence::describe::describe(seq, cx.t)),
        (None, Some(_)) if m.state.is_some() => {
            m.state.as_ref().map(|s| state::describe::describe(&s.0, cx.t))
        }
        (None, Some(_)) if m.er.is_some() => m.er.as_ref().map(|e| er::describe::describe(&e.0, cx.t)),
        (None, Some(_)) if m.class.is_some() => {
            m.class.as_ref().map(|c| class::describe::describe(&c.0, cx.t))
        }
        (None, Some(_)) if m.gantt.is_some() => m.gantt.as_ref().map(|g| gantt::describe::describe(g, cx.t)),
        (None, Some(chart)) => Some(flowchart::describe::describe(chart, cx.t)),
        (None, None) => None,
    };
    let image = match (&words, cx.cid_images, cx.diagram_base) {
        (None, _, _) => None,
        (Some(_), true, _) => Some(String::new()),
        (Some(_), false, Some(base)) => Some(base.trim_end_matches('/').to_string()),
        (Some(_), false, None) => None,
    };
    let shown = image.map(|base| {
        let key = blake3::hash(drawing.svg.as_bytes()).to_hex()[..32].to_string();
        let src = if cx.cid_images {
            format!("cid:{key}@passback")
        } else {
            format!("{base}/v1/diagrams/{key}.png")
        };
        let (w, h) = (drawing.width, drawing.height);
        // The SVG goes to the published diagrams, never into the mail.
        cx.diagrams.borrow_mut().push((key, drawing.svg.into()));
        (src, w.min(560), u64::from(h) * u64::from(w.min(560)) / u64::from(w.max(1)))
    });
    html! {
        (cx.root_start(None))
        p style=(email::TITLE) { (Text(caption)) }
        @match (shown, &words) {
            (Some((src, w, h)), Some(words)) => {
                img src=(src) alt=(Text(words)) width=(w) height=(h) style="max-width:100%;height:auto;border:0;";
            }
            (None, Some(words)) => {
                p style=(email::ITEM) { (Text(words)) }
            }
            _ => {
                pre style=(email::PRE) { (Text(&m.source)) }
            }
        }
        (cx.root_end())
    }
}

/// Below this scale a diagram's text is too small to read (14 px labels at 10.5 px).
const MIN_SCALE: f64 = 0.75;
/// The widest minimum the stylesheet has a class for (`.pb-dw-30`), px / 100.
const WIDE_STEPS: u32 = 30;

/// The class that keeps a diagram `width` px wide at `MIN_SCALE` or more (`pb-dw-N`: at least
/// N × 100 px), for one that may not fit a column; `None` for one narrow enough anywhere.
pub fn wide_class(width: u32) -> Option<String> {
    let steps = (f64::from(width) * MIN_SCALE / 100.0).ceil() as u32;
    (steps >= 6).then(|| format!("pb-dw-{}", steps.min(WIDE_STEPS)))
}

fn render(m: &Mermaid, cx: &RenderCx, comments: &[Comment]) -> Markup {
    let t = cx.t;
    let caption = m.title.as_deref().unwrap_or(t.diagram);
    let svg_id = cx.id_parts("svg").joined();
    let frame = Frame {
        id: svg_id.base().as_str(),
        title: caption,
        t,
        inline_style: cx.surface.is_email(),
    };
    let drawing = match (&m.sequence, &m.state, &m.er, &m.class, &m.gantt) {
        (Some(seq), _, _, _, _) => diagram::render_sequence(seq, &frame),
        (None, Some(s), _, _, _) => diagram::render_state(&s.0, &s.1, &frame),
        (None, None, Some(e), _, _) => diagram::render_er(&e.0, &e.1, &frame),
        (None, None, None, Some(c), _) => diagram::render_class(&c.0, &c.1, &frame),
        (None, None, None, None, Some(g)) => diagram::render_gantt(g, &frame),
        (None, None, None, None, None) => diagram::render_laid_out(&m.source, m.chart.as_ref().zip(m.laid_out.as_deref()), &frame),
    };
    // The SVG is the engine's own markup, escaped by construction (`diagram::svg::writer::Writer`).
    if cx.surface.is_email() {
        return email_render(m, cx, caption, drawing);
    }
    let svg = PreEscaped(drawing.svg);
    let caption_id = cx.id_parts("caption");
    let whole = comments
        .iter()
        .find_map(|c| {
            if let Comment::Diagram(t) = c {
                Some(t.as_str())
            } else {
                None
            }
        })
        .unwrap_or("");
    let on_node = |id: &str| {
        comments
            .iter()
            .find_map(|c| match c {
                Comment::Node { id: n, text } if n == id => Some(text.as_str()),
                _ => None,
            })
            .unwrap_or("")
    };
    // A pair drawn twice (A→B, A→B#2) has one comment field per edge. A comment from the form
    // knows which of the pair's arrows it was written on and goes back there; one from JSON
    // does not, and the pair's k-th such comment goes on its k-th arrow.
    // Only edge comments need the numbering: skip it when the reader left none.
    let occurrences = m
        .chart
        .as_ref()
        .filter(|_| comments.iter().any(|c| matches!(c, Comment::Edge { .. })))
        .map(Flowchart::edge_occurrences);
    // The comment on edge `index`, which runs from the node with id `from` to `to`.
    let on_edge = |index: usize, from_id: &str, to_id: &str| {
        let Some(occurrences) = &occurrences else {
            return "";
        };
        let k = occurrences[index];
        let on_pair = || {
            comments.iter().filter_map(|c| match c {
                Comment::Edge {
                    from,
                    to,
                    text,
                    nth,
                } if from == from_id && to == to_id => Some((*nth, text.as_str())),
                _ => None,
            })
        };
        on_pair()
            .find(|(nth, _)| *nth == Some(k))
            .or_else(|| on_pair().filter(|(nth, _)| nth.is_none()).nth(k))
            .map_or("", |(_, text)| text)
    };
    // Nodes and edges are on their comment fields (`data-pb-node`, `data-pb-edge`).
    #[derive(serde::Serialize)]
    struct Model<'a> {
        #[serde(skip_serializing_if = "Option::is_none")]
        title: Option<&'a str>,
    }
    impl crate::html::model::WriteModel for Model<'_> {
        fn write_model(&self, json: &mut crate::html::model::ModelJson) {
            json.open('{');
            json.optional_string("title", self.title);
            json.close('}');
        }
    }
    let model = Model {
        title: m.title.as_deref(),
    };
    let node_label = Strings::split(t.comment_node);
    let edge_label = Slots::new(t.comment_edge);
    html! {
        (cx.root_start_with_model(Some(caption_id), &model))
        figure class="pb-diagram" {
            @match wide_class(drawing.width) {
                // Too wide to shrink into the column and stay readable: it keeps a minimum
                // size and scrolls sideways, in a region the keyboard can reach and scroll.
                Some(wide) => {
                    div class={ "pb-diagram-canvas " (wide) } tabindex="0" role="region" aria-labelledby=(caption_id) { (svg) }
                }
                None => { div class="pb-diagram-canvas" { (svg) } }
            }
            details class="pb-diagram-source" open[!drawing.drawn] {
                summary { (Text(t.diagram_source)) }
                pre { code class="language-mermaid" { (Text(&m.source)) } }
            }
            figcaption id=(caption_id) { (Text(caption)) }
        }
        (super::check::note_box(cx, cx.id_parts("comment"), &cx.name_parts("comment"), t.comment_diagram, whole))
        @if let Some(chart) = m.chart.as_ref().filter(|c| !c.nodes.is_empty()) {
            details class="pb-diagram-parts" {
                summary { (Text(t.comment_parts)) }
                ul {
                    @for (i, node) in chart.nodes.iter().enumerate() {
                        @let n = Digits::new(i);
                        @let id = cx.numbered_id("-node", &n, "");
                        li {
                            label for=(id) { (Fill1(t.comment_node, node_label, &node.label)) }
                            textarea id=(id) name=(cx.numbered_name(".node.", &n, "")) rows="1" data-pb-node=(Text(&node.id)) { (Text(on_node(&node.id))) }
                        }
                    }
                    @for (i, edge) in chart.edges.iter().enumerate() {
                        @let from = &chart.nodes[edge.from].label;
                        @let to = &chart.nodes[edge.to].label;
                        @let n = Digits::new(i);
                        @let id = cx.numbered_id("-edge", &n, "");
                        li {
                            label for=(id) {
                                (Fill2(edge_label, from, to))
                                @if let Some(l) = &edge.label { " (" (Text(l)) ")" }
                            }
                            textarea id=(id) name=(cx.numbered_name(".edge.", &n, "")) rows="1"
                                data-pb-edge={ (Text(chart.id_of(edge.from))) "→" (Text(chart.id_of(edge.to))) } { (Text(on_edge(i, chart.id_of(edge.from), chart.id_of(edge.to)))) }
                        }
                    }
                }
            }
        }
        (cx.root_end())
    }
}

/// A two-slot template of the engine's strings with its `{}` slots found once per diagram
/// rather than once per arrow.
#[derive(Clone, Copy)]
struct Slots<'a> {
    template: &'a str,
    /// The text before the first `{}` and after it.
    first: Option<(&'a str, &'a str)>,
    /// The text after the first `{}` split at the second.
    second: Option<(&'a str, &'a str)>,
}

impl<'a> Slots<'a> {
    fn new(template: &'a str) -> Slots<'a> {
        let first = Strings::split(template);
        let second = first.and_then(|(_, after)| Strings::split(after));
        Slots {
            template,
            first,
            second,
        }
    }
}

/// A one-slot template filled as [`Fill`] fills it: the template, its text before and after
/// the slot (found once per diagram, by `Strings::split`), and the value.
struct Fill1<'a>(&'a str, Option<(&'a str, &'a str)>, &'a str);

impl Render for Fill1<'_> {
    fn render_to(&self, out: &mut String) {
        let Fill1(template, slot, value) = *self;
        match slot {
            Some((before, after)) => {
                for part in [before, value, after] {
                    escape_into(part, out);
                }
            }
            None => escape_into(template, out),
        }
    }
}

/// A two-slot template filled as `Strings::fill(&Strings::fill(template, a), b)` fills it, escaped,
/// written straight into the page.
struct Fill2<'a>(Slots<'a>, &'a str, &'a str);

impl Render for Fill2<'_> {
    fn render_to(&self, out: &mut String) {
        let Fill2(slots, a, b) = *self;
        // A non-empty `a` without braces cannot make a `{}` with its neighbours, so `b` takes
        // the template's second slot.
        if let (Some((before, _)), Some((between, after))) = (slots.first, slots.second)
            && !a.is_empty()
            && !a.contains(['{', '}'])
        {
            for part in [before, a, between, b, after] {
                escape_into(part, out);
            }
            return;
        }
        let start = out.len();
        Fill(slots.template, a).render_to(out);
        // The second fill takes the first `{}` left, which may come from `a`. Escaping adds no
        // braces and keeps each character's neighbours, so it is the first in the escaped text.
        let Some((before, _)) = Strings::split(&out[start..]) else {
            return;
        };
        let at = start + before.len();
        if b.bytes().any(|c| matches!(c, b'&' | b'<' | b'>' | b'"')) {
            let mut escaped = String::with_capacity(b.len() + 8);
            escape_into(b, &mut escaped);
            out.replace_range(at..at + 2, &escaped);
        } else {
            out.replace_range(at..at + 2, b);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Answers and export

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

fn comments_json(block: &str, m: &Mermaid, v: &JsonValue) -> Result<Vec<Comment>, AnswersError> {
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
        let on = c.get("on").and_then(JsonValue::as_str).unwrap_or("");
        let body = || text(block, &join(&field, "text"), c.get("text"));
        let comment = match on {
            "diagram" => {
                only_keys(block, &field, c, &["on", "text"])?;
                body()?.map(Comment::Diagram)
            }
            "node" => {
                only_keys(block, &field, c, &["on", "id", "text"])?;
                let id = c.get("id").and_then(JsonValue::as_str).ok_or_else(|| {
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
                    c.get(k).and_then(JsonValue::as_str).ok_or_else(|| {
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
    if chart
        .edges
        .iter()
        .any(|e| chart.id_of(e.from) == from && chart.id_of(e.to) == to)
    {
        Ok(())
    } else {
        Err(err(
            block,
            field,
            format!("there is no arrow {from}→{to} in the diagram"),
        ))
    }
}

fn comments_form(m: &Mermaid, fields: &FormFields) -> Vec<Comment> {
    let get = |s: &str| fields.text(s);
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
                    from: chart.id_of(edge.from).to_string(),
                    to: chart.id_of(edge.to).to_string(),
                    text,
                    nth: Some(occurrences[i]),
                });
            }
        }
    }
    out
}

/// Spec §4.7.3: whole-diagram comments first, then nodes and edges in diagram order.
fn export_comments(m: &Mermaid, comments: &[Comment]) -> String {
    if comments.is_empty() {
        return String::new();
    }
    let mut lines = Vec::new();
    for c in comments {
        if let Comment::Diagram(text) = c {
            lines.push(format!("- Whole diagram — {}", reviewer::text(text)));
        }
    }
    if let Some(chart) = &m.chart {
        for node in &chart.nodes {
            for c in comments {
                if let Comment::Node { id, text } = c
                    && *id == node.id
                {
                    lines.push(format!("- Node `{id}` — {}", reviewer::text(text)));
                }
            }
        }
        let mut done: Vec<(usize, usize)> = Vec::new();
        for edge in &chart.edges {
            if done.contains(&(edge.from, edge.to)) {
                continue;
            }
            done.push((edge.from, edge.to));
            for c in comments {
                if let Comment::Edge { from, to, text, .. } = c
                    && *from == chart.id_of(edge.from)
                    && *to == chart.id_of(edge.to)
                {
                    lines.push(format!("- Edge `{from}→{to}` — {}", reviewer::text(text)));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_two_slot_fill_is_two_fills_escaped() {
        let values = ["A", "", "{}", "{", "}", "a{}b", "x<&>\"'y", "}{", "{{}}"];
        for template in [
            "from “{}” to “{}”",
            "{}{}",
            "{}",
            "none",
            "{ {} } {}",
            "<{}>&{}",
        ] {
            for a in values {
                for b in values {
                    let want = Text(&Strings::fill(&Strings::fill(template, a), b))
                        .render()
                        .0;
                    let slots = Slots::new(template);
                    assert_eq!(Fill2(slots, a, b).render().0, want, "{template} {a} {b}");
                    let want = Text(&Strings::fill(template, a)).render().0;
                    assert_eq!(Fill(template, a).render().0, want, "{template} {a}");
                    let slot = Strings::split(template);
                    assert_eq!(Fill1(template, slot, a).render().0, want, "{template} {a}");
                }
            }
        }
        let n = crate::html::Digits::new(12);
        let cx_like = crate::html::Parts(["pb-1a<b", "-node", n.as_str()]);
        assert_eq!(cx_like.render().0, "pb-1a&lt;b-node12");
    }
    #[test]
    fn a_sequence_diagram_it_cannot_draw_is_pointed_at_in_the_document() {
        let doc = "# Title\n\n```mermaid\n{\n \"version\": \"1\",\n \"source\": \"sequenceDiagram\\n  A->>B: \\\"hi\\\"\\n  A=>B: half\"\n}\n```\n";
        let v = crate::validate(doc);
        let d = v
            .diagnostics
            .iter()
            .find(|d| d.code == Code::UnsupportedDiagram)
            .expect("a diagnostic");
        assert!(d.message.contains("`A=>B:`"), "{}", d.message);
        assert!(d.message.contains("line 3 of `source`"), "{}", d.message);
        // The statement as written in the document: line 6, at its column.
        let line = doc.lines().nth(5).expect("line 6");
        let col = line.find("A=>").expect("the statement") + 1;
        assert_eq!((d.line, d.column), (6, col), "{line}");
        // A sequence diagram it draws takes comments on participants and messages.
        let doc = "```mermaid\n{\"version\": \"1\", \"source\": \"sequenceDiagram\\nA->>B: hi\\nlink A: x @ https://example.com\"}\n```\n";
        let v = crate::validate(doc);
        let w = v
            .diagnostics
            .iter()
            .find(|d| d.code == Code::IgnoredDirective)
            .expect("a warning for `link`");
        assert!(w.message.contains("`link`"), "{}", w.message);
        assert!(!v.diagnostics.iter().any(|d| d.code == Code::UnsupportedDiagram));
    }

    #[test]
    fn a_flowchart_too_large_to_lay_out_is_a_warning_in_validate_and_render() {
        // 151 nodes: one more than the layout takes.
        let edges: String = (0..150).map(|i| format!("n{i} --> n{}\\n", i + 1)).collect();
        let doc = format!(
            "Intro\n\n```mermaid\n{{\"version\": \"1\", \"source\": \"graph TD\\n{edges}\"}}\n```\n"
        );
        let too_large = |diagnostics: &[crate::Diagnostic]| {
            diagnostics
                .iter()
                .find(|d| d.code == Code::UnsupportedDiagram)
                .map(|d| (d.line, d.message.clone()))
        };
        let v = crate::validate(&doc);
        let (line, message) = too_large(&v.diagnostics).expect("a warning in validate");
        assert_eq!(line, 4, "{message}");
        assert!(message.contains("too large") && message.contains("151 nodes"), "{message}");
        let r = crate::render(&doc, &crate::Options::default());
        assert!(too_large(&r.diagnostics).is_some());
        assert!(r.body().contains("pb-mermaid-placeholder"));
    }

    #[test]
    fn a_diagram_not_read_is_located_at_its_construct_in_the_markdown() {
        // Line 4 of the document, after the escapes `\n` and `\"` of the JSON string.
        let doc = "Intro\n\n```mermaid\n{ \"version\": \"1\", \"source\": \"flowchart TD\\n  A[\\\"x\\\"] --> B\\n  B -=> C\" }\n```\n";
        let v = crate::validate(doc);
        let d = v
            .diagnostics
            .iter()
            .find(|d| d.code == Code::UnsupportedDiagram)
            .expect("a diagnostic");
        // `-=>` starts at byte 34 of the source, which is column 59 of line 4 in the JSON.
        let column = doc.lines().nth(3).unwrap().find("-=>").unwrap() + 1;
        assert_eq!((d.line, d.column), (4, column), "{d:?}");
        assert!(d.message.contains("arrow"), "{}", d.message);
    }

    #[test]
    fn a_wide_diagram_keeps_a_readable_size_and_scrolls() {
        assert_eq!(wide_class(300), None);
        assert_eq!(wide_class(1200).as_deref(), Some("pb-dw-9"));
        assert_eq!(wide_class(100_000).as_deref(), Some("pb-dw-30"));
        let css = include_str!("../../assets/passback.css");
        for n in 6..=30 {
            assert!(css.contains(&format!(".pb-dw-{n} svg{{min-width:{}px}}", n * 100)));
        }
        let wide: String = (0..22).map(|i| format!("n{i} --> n{}\n", i + 1)).collect();
        let source = format!("flowchart LR\n{wide}");
        let doc = document(&source);
        let html = crate::render(&doc, &crate::Options::default()).html;
        assert!(
            html.contains("class=\"pb-diagram-canvas pb-dw-") && html.contains("tabindex=\"0\" role=\"region\" aria-labelledby="),
            "{html}"
        );
    }

    /// A document of one mermaid block with `source`.
    fn document(source: &str) -> String {
        format!(
            "```mermaid\n{}\n```\n",
            serde_json::json!({ "version": "1", "source": source })
        )
    }

    /// `source` is drawn, with a warning that names `ignored`, and its page holds `class` and
    /// each of `parts`; the page's HTML.
    fn assert_drawn(source: &str, ignored: &str, class: &str, parts: &[&str]) -> String {
        let doc = document(source);
        let v = crate::validate(&doc);
        assert!(
            !v.diagnostics.iter().any(|d| d.code == Code::UnsupportedDiagram),
            "{:?}",
            v.diagnostics
        );
        let w = v
            .diagnostics
            .iter()
            .find(|d| d.code == Code::IgnoredDirective)
            .expect("a warning for what is ignored");
        assert!(w.message.contains(ignored), "{}", w.message);
        let html = crate::render(&doc, &crate::Options::default()).html;
        assert!(html.contains(class), "{html}");
        for part in parts {
            assert!(html.contains(part), "{part}");
        }
        html
    }

    /// A block of `source` with its chart read and nothing drawn: a test sets its kind.
    fn block(source: &str, chart: &Flowchart) -> Mermaid {
        Mermaid {
            source: source.to_string(),
            title: None,
            chart: Some(chart.clone()),
            sequence: None,
            laid_out: None,
            state: None,
            er: None,
            class: None,
            gantt: None,
        }
    }

    /// `comments` on `m` are taken and exported with each of `exported`; one on the node
    /// `missing` is refused.
    fn assert_comments(m: &Mermaid, comments: JsonValue, exported: &[&str], missing: &str) {
        let answer = serde_json::json!({ "comments": comments });
        let comments = comments_json("b1", m, &answer).expect("comments");
        let out = export_comments(m, &comments);
        for line in exported {
            assert!(out.contains(line), "{out}");
        }
        let bad = serde_json::json!({ "comments": [{ "on": "node", "id": missing, "text": "x" }]});
        assert!(comments_json("b1", m, &bad).is_err());
    }

    /// The document `doc`, whose diagram cannot be read at line 3, is a warning there that
    /// names its `kind`.
    fn assert_unreadable_at_line_3(doc: &str, kind: &str) {
        let v = crate::validate(doc);
        let d = v
            .diagnostics
            .iter()
            .find(|d| d.code == Code::UnsupportedDiagram)
            .expect("a diagnostic");
        assert!(d.message.contains("line 3 of `source`"), "{}", d.message);
        assert!(d.message.contains(kind), "{}", d.message);
    }

    /// A kind of diagram that is drawn and takes comments, as one test below checks it.
    struct DrawnKind<'a> {
        /// Drawn with a warning that names `ignored`; its page holds `class` and each of
        /// `parts`.
        source: &'a str,
        ignored: &'a str,
        class: &'a str,
        parts: &'a [&'a str],
        /// The block of a source with its diagram read (and laid out).
        block: fn(&str) -> Mermaid,
        /// Taken and exported with each of `exported`; one on the node `missing` is refused.
        comments: JsonValue,
        exported: &'a [&'a str],
        missing: &'a str,
    }

    /// `kind` is drawn and takes comments on its parts; the page's HTML.
    fn assert_drawn_and_takes_comments(kind: DrawnKind) -> String {
        let html = assert_drawn(kind.source, kind.ignored, kind.class, kind.parts);
        // Comments are checked against the diagram and exported.
        let m = (kind.block)(kind.source);
        assert_comments(&m, kind.comments, kind.exported, kind.missing);
        html
    }

    #[test]
    fn a_state_diagram_is_drawn_and_takes_comments_on_its_states_and_transitions() {
        assert_drawn_and_takes_comments(DrawnKind {
            source: "stateDiagram-v2\n[*] --> Still\nStill --> Moving : push\nstate Moving {\n  [*] --> Fast\n}\nclassDef hot fill:#f00\nclass Still hot",
            ignored: "`classDef`, `class`",
            class: "pb-mermaid-state",
            parts: &[
                "data-node=\"root_start\"",
                "data-node=\"Moving\"",
                "data-node=\"Moving_start\"",
                "data-edge=\"Still→Moving\"",
                "data-pb-edge=\"Moving_start→Fast\"",
                "State diagram, top to bottom.",
            ],
            block: |source| {
                let d = state::parse::parse(source).expect("a state diagram").expect("read");
                let laid = state::layout::layout(&d);
                let mut m = block(source, &d.chart);
                m.state = Some(Box::new((d, laid)));
                m
            },
            comments: serde_json::json!([
                { "on": "node", "id": "Moving", "text": "split" },
                { "on": "edge", "from": "Still", "to": "Moving", "text": "when?" }
            ]),
            exported: &["- Node `Moving` — split", "- Edge `Still→Moving` — when?"],
            missing: "Nope",
        });
    }

    #[test]
    fn an_er_diagram_is_drawn_and_takes_comments_on_its_entities_and_relationships() {
        assert_drawn_and_takes_comments(DrawnKind {
            source: "erDiagram\nCUSTOMER ||--o{ ORDER : places\nCUSTOMER ||--o{ ORDER : returns\np[Person]\np }|..|{ CUSTOMER : is\nclick CUSTOMER call x()\nCUSTOMER {\n  string name PK\n}",
            ignored: "`click`",
            class: "pb-mermaid-er",
            parts: &[
                "data-node=\"CUSTOMER\"",
                "data-node=\"p\"",
                "data-edge=\"CUSTOMER→ORDER\"",
                "data-edge=\"CUSTOMER→ORDER#2\"",
                "data-edge=\"p→CUSTOMER\"",
                "Entity relationship diagram, top to bottom.",
            ],
            block: |source| {
                let d = er::parse::parse(source).expect("an ER diagram").expect("read");
                let laid = er::layout::layout(&d);
                let mut m = block(source, &d.chart);
                m.er = Some(Box::new((d, laid)));
                m
            },
            comments: serde_json::json!([
                { "on": "node", "id": "p", "text": "who?" },
                { "on": "edge", "from": "CUSTOMER", "to": "ORDER", "text": "always?" }
            ]),
            exported: &["- Node `p` — who?", "- Edge `CUSTOMER→ORDER` — always?"],
            missing: "Person",
        });
        // One it cannot read is a warning at its line.
        assert_unreadable_at_line_3("```mermaid\n{\"version\": \"1\", \"source\": \"erDiagram\\nA ||--o{ B : x\\nC ||--\"}\n```\n", "entity relationship diagram");
    }

    #[test]
    fn a_class_diagram_is_drawn_and_its_classes_and_relations_take_comments() {
        assert_drawn_and_takes_comments(DrawnKind {
            source: "classDiagram\n  namespace Shapes {\n    class Shape~T~ {\n      <<interface>>\n      +area()$ double\n    }\n    class Square\n  }\n  Shape~T~ <|-- Square\n  Shape \"1\" *-- \"many\" Side : has\n  Shape <|-- Square\n  note for Square \"four sides\"\n  click Square call cb()\n  style Side fill:#fde68a\n",
            ignored: "`click`",
            class: "pb-mermaid-class",
            parts: &[
                "data-node=\"Shape\"",
                "data-node=\"Shapes\"",
                "data-node=\"note0\"",
                "data-edge=\"Shape→Square\"",
                "data-edge=\"Shape→Square#2\"",
                "data-edge=\"Shape→Side\"",
                "Class diagram, top to bottom.",
                "+area() : double",
                "«interface»",
                "fill=\"#fde68a\"",
            ],
            block: |source| {
                let d = class::parse::parse(source).expect("a class diagram").expect("read");
                let laid = class::layout::layout(&d);
                let mut m = block(source, &d.chart);
                m.class = Some(Box::new((d, laid)));
                m
            },
            comments: serde_json::json!([
                { "on": "node", "id": "Shape", "text": "generic?" },
                { "on": "node", "id": "Shapes", "text": "rename" },
                { "on": "edge", "from": "Shape", "to": "Side", "text": "how many?" }
            ]),
            exported: &["- Node `Shape` — generic?", "- Node `Shapes` — rename", "- Edge `Shape→Side` — how many?"],
            missing: "Shape~T~",
        });
        // One it cannot read is a warning at its line.
        assert_unreadable_at_line_3("```mermaid\n{\"version\": \"1\", \"source\": \"classDiagram\\nA <|-- B\\nC <|-- \"}\n```\n", "class diagram");
    }

    #[test]
    fn a_state_diagram_it_cannot_read_and_a_kind_not_drawn_are_warnings_naming_them() {
        let doc = "```mermaid\n{\"version\": \"1\", \"source\": \"stateDiagram-v2\\nA --> B\\nmy-state --> B\"}\n```\n";
        let v = crate::validate(doc);
        let d = v
            .diagnostics
            .iter()
            .find(|d| d.code == Code::UnsupportedDiagram)
            .expect("a diagnostic");
        assert!(d.message.contains("line 3 of `source`"), "{}", d.message);
        for (source, kind) in [
            ("journey\n  title A day", "User journey"),
            ("pie\n  \"a\": 1", "Pie chart"),
        ] {
            let v = crate::validate(&document(source));
            let d = v
                .diagnostics
                .iter()
                .find(|d| d.code == Code::UnsupportedDiagram)
                .expect("a warning for the placeholder");
            assert!(d.message.contains(kind), "{}", d.message);
        }
    }

    #[test]
    fn each_ignored_directive_is_named_once() {
        let source = "graph TD\nA --> B\nclick A call()\ndirection LR\nclick B call()";
        let doc = document(source);
        let v = crate::validate(&doc);
        let warning = v
            .diagnostics
            .iter()
            .find(|d| d.code == Code::IgnoredDirective)
            .expect("a warning for the ignored directives");
        assert!(
            warning.message.contains("`click`, `direction` are ignored"),
            "{}",
            warning.message
        );
    }

    fn validated(source: &str) -> Vec<crate::Diagnostic> {
        let doc = document(source);
        crate::validate(&doc).diagnostics
    }

    #[test]
    fn a_kind_shown_as_a_placeholder_is_a_warning_naming_it() {
        for (source, kind) in [
            ("pie title Pets\n\"Dogs\" : 386", "Pie charts"),
            ("journey\ntitle A day\nsection Work\nCode: 5: Me", "User journeys"),
            ("%%{init: {'theme': 'dark'}}%%\npie title Pets\n\"Dogs\" : 386", "Pie charts"),
        ] {
            let d = validated(source);
            let w: Vec<_> = d.iter().filter(|d| d.code == Code::UnsupportedDiagram).collect();
            assert_eq!(w.len(), 1, "{source}: {d:?}");
            assert!(w[0].message.contains(kind), "{}", w[0].message);
        }
        // Drawn kinds have none.
        assert!(validated("graph TD\nA-->B").is_empty());
        assert!(validated("sequenceDiagram\nA->>B: hi").is_empty());
        assert!(validated("classDiagram\nA <|-- B").is_empty());
        assert!(validated("gantt\ntitle A plan\nsection S\nTask :a1, 2024-01-01, 3d").is_empty());
    }

    #[test]
    fn a_gantt_chart_is_drawn_and_takes_comments_on_its_tasks() {
        let html = assert_drawn_and_takes_comments(DrawnKind {
            source: "gantt\ndateFormat YYYY-MM-DD\nsection Build\nServer : crit, server, 2024-01-01, 5d\nClient : after server, 3d\nShip : milestone, ship, after task1, 0d\nclick server href \"https://example.com\"",
            ignored: "`click`",
            class: "pb-mermaid-gantt",
            parts: &[
                "data-node=\"server\"",
                "data-node=\"task1\"",
                "data-node=\"ship\"",
                "Gantt chart from 2024-01-01 to 2024-01-09.",
            ],
            block: |source| {
                let g = gantt::parse::parse(source).expect("a gantt chart").expect("read");
                let mut m = block(source, &g.chart);
                m.gantt = Some(Box::new(g));
                m
            },
            comments: serde_json::json!([
                { "on": "node", "id": "task1", "text": "who builds it?" },
                { "on": "node", "id": "ship", "text": "a Friday?" }
            ]),
            exported: &["- Node `task1` — who builds it?", "- Node `ship` — a Friday?"],
            missing: "Server",
        });
        // One it cannot read is a warning at its line.
        assert_unreadable_at_line_3("```mermaid\n{\"version\": \"1\", \"source\": \"gantt\\ndateFormat YYYY-MM-DD\\nA : a, 2024-13-45, 1d\"}\n```\n", "gantt chart");
        assert!(!html.contains("data-edge="));
    }

    #[test]
    fn an_init_over_several_lines_is_read_not_a_silent_placeholder() {
        let source = "%%{\n  init: {\n    'theme': 'forest',\n    'themeVariables': { 'primaryColor': '#ffcccc' }\n  }\n}%%\nflowchart LR\n  A --> B";
        let d = validated(source);
        assert!(d.iter().all(|d| d.code != Code::UnsupportedDiagram), "{d:?}");
        assert!(
            d.iter().any(|d| d.code == Code::IgnoredDirective && d.message.contains("`init`")),
            "the theme name is named as not applied: {d:?}"
        );
        let seq = "%%{init: {\n  'theme': 'base'\n}}%%\nsequenceDiagram\nA->>B: hi";
        let d = validated(seq);
        assert!(d.iter().all(|d| d.code != Code::UnsupportedDiagram), "{d:?}");
    }
}
