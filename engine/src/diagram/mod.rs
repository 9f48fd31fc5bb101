//! Mermaid diagrams: each kind a reviewer can comment on is read, laid out and drawn as SVG
//! here; every other kind gets a placeholder naming its type.
//!
//! One folder per kind, each split the same way:
//!
//! - `flowchart/`: `mod.rs` the model (nodes, edges, subgraphs: what comments are pinned to),
//!   `parse.rs` (with `statement.rs` and `label.rs`), `layout/` (a folder: ranks, order within
//!   ranks, placement, routing around subgraphs), `draw.rs` the SVG and `describe.rs` the words;
//! - `sequence/`: `mod.rs` the model (participants, messages, notes, frames) and its nodes and
//!   edges as a flowchart's (`Sequence::as_flowchart`), `parse.rs` (with `syntax.rs` and
//!   `colour.rs`), `layout.rs`, `draw.rs` and `describe.rs`.
//!
//! - `state/`: `mod.rs` the model (states, transitions, composites and regions as a
//!   flowchart's nodes, edges and subgraphs, with each state's kind and the notes),
//!   `parse.rs` (with `build.rs`), `layout.rs` (the flowchart's layout, with the notes as boxes), `draw.rs` and
//!   `describe.rs`.
//!
//! - `er/`: `mod.rs` the model (entities and relationships as a flowchart's nodes and edges,
//!   with each entity's attributes and each relationship's cardinalities), `parse.rs`,
//!   `layout.rs` (the flowchart's layout, each entity a box its table's size), `draw.rs` and
//!   `describe.rs`.
//!
//! - `class/`: `mod.rs` the model (classes, interfaces, namespaces and notes as a flowchart's
//!   nodes, relations as its edges, namespaces as its subgraphs, with each class's members),
//!   `parse.rs`, `layout.rs` (the flowchart's layout, each class a box its compartments'
//!   size, notes joined to their classes), `draw.rs` and `describe.rs`.
//!
//! - `gantt/`: `mod.rs` the model (tasks as a flowchart's nodes, with each task's times, tags
//!   and section), `time.rs` (dates as Mermaid reads them, d3's axis format), `parse.rs`,
//!   `layout.rs` (a row per task on a time scale), `draw.rs` and `describe.rs`.
//!
//! A new kind (pie, say) is a new folder beside them with the same files: its
//! model and `parse.rs` → `layout.rs` → `draw.rs`, its words in `describe.rs`, its tests in its
//! `tests/`; then one arm in [`render_laid_out`], in `read.rs` and in `components/mermaid.rs`.
//! `read.rs` reads a source as the engine draws it, each kind tried in turn, with the warnings
//! for what the drawing ignores and what stops it being drawn: the `mermaid` component's, and
//! those of a diagram drawn alone ([`draw_alone`], a book's plain fences). A kind gives
//! comments their nodes and edges as a [`flowchart::Flowchart`], so it may use the flowchart's
//! model; nothing in `flowchart/` uses another kind.
//!
//! Shared below the kinds, and using none of them:
//!
//! - `text.rs` (with `font_widths.rs`, the font tables): labels measured and wrapped;
//! - `geometry.rs`: points, boxes and curves;
//! - `line.rs`: a line's stroke and its end markers;
//! - `shapes/`: node shapes, their sizes and outlines, and clipping to them;
//! - `route.rs`: lines routed around boxes;
//! - `colour.rs`: colours as authors write them, read and written back from their numbers;
//! - `directive.rs`: `%%{init}%%` directives, on one line or several, blanked out of the
//!   source and read for their theme variables;
//! - `style.rs`: authors' styles (`style`, `classDef`, …) read and resolved into colours that
//!   keep text readable;
//! - `svg/`: the SVG writer (escaped by construction), labels and shapes as elements, the
//!   theme, and the placeholder.
//!
//! Tests of one kind sit in its `tests/`; `tests/` here holds those of every kind at once
//! (the golden SVGs, every shape).

pub mod class;
pub mod colour;
pub mod directive;
pub mod er;
pub mod flowchart;
mod font_widths;
pub mod gantt;
pub mod geometry;
pub mod line;
pub mod read;
pub mod route;
pub mod sequence;
pub mod shapes;
pub mod state;
pub mod style;
pub mod svg;
pub mod text;

/// A xorshift generator for the tests' pseudo-random charts and segments: each call returns
/// the next state after `seed`.
#[cfg(test)]
fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

use flowchart::Flowchart;
use flowchart::layout::{self, Failure};
use svg::Frame;

/// A diagram's SVG, and whether it shows the diagram itself (not the placeholder).
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    pub svg: String,
    pub drawn: bool,
    /// The SVG's width and height, px (its viewBox's).
    pub width: u32,
    pub height: u32,
}

/// The SVG for a Mermaid block: the flowchart drawn, or a placeholder naming its type.
/// `chart` is the parsed flowchart, when the source is one this engine reads.
#[cfg(test)]
pub fn render(source: &str, chart: Option<&Flowchart>, frame: &Frame) -> Rendered {
    let laid_out = chart.map(layout::layout);
    render_laid_out(source, chart.zip(laid_out.as_ref()), frame)
}

/// [`render`], with the flowchart's layout made beforehand (when the block was read, so that
/// a chart too large to lay out is a warning there, in `validate` too).
pub fn render_laid_out(
    source: &str,
    chart: Option<(&Flowchart, &Result<layout::Drawing, Failure>)>,
    frame: &Frame,
) -> Rendered {
    let t = frame.t;
    let placeholder = |kind: &str, note: &str| {
        let (svg, width, height) = svg::placeholder(kind, note, frame);
        Rendered {
            svg,
            drawn: false,
            width,
            height,
        }
    };
    match chart {
        Some((c, _)) if c.nodes.is_empty() => {
            placeholder(t.diagram_flowchart_kind, t.diagram_failed[3])
        }
        Some((c, laid_out)) => match laid_out {
            Ok(d) => {
                let (svg, width, height) = flowchart::draw::flowchart(c, d, frame);
                Rendered {
                    svg,
                    drawn: true,
                    width,
                    height,
                }
            }
            Err(Failure::TooLarge) => placeholder(t.diagram_flowchart_kind, t.diagram_failed[0]),
            Err(Failure::LayoutFailed) => {
                placeholder(t.diagram_flowchart_kind, t.diagram_failed[1])
            }
        },
        None => match sequence::parse::parse(source) {
            Some(Ok(s)) => render_sequence(&s, frame),
            Some(Err(e)) if e.too_large() => {
                placeholder(t.diagram_sequence[6], t.diagram_failed[0])
            }
            Some(Err(_)) => placeholder(t.diagram_sequence[6], t.diagram_failed[2]),
            None => match state::parse::parse(source) {
                Some(Ok(d)) => render_state(&d, &state::layout::layout(&d), frame),
                Some(Err(_)) => placeholder(t.diagram_state[6], t.diagram_failed[2]),
                None => match er::parse::parse(source) {
                    Some(Ok(d)) => render_er(&d, &er::layout::layout(&d), frame),
                    Some(Err(_)) => placeholder(t.diagram_er[4], t.diagram_failed[2]),
                    None => match class::parse::parse(source) {
                        Some(Ok(d)) => render_class(&d, &class::layout::layout(&d), frame),
                        Some(Err(_)) => placeholder(t.diagram_class[4], t.diagram_failed[2]),
                        None => match gantt::parse::parse(source) {
                            Some(Ok(g)) => render_gantt(&g, frame),
                            Some(Err(_)) => placeholder(t.diagram_gantt[0], t.diagram_failed[2]),
                            None => match flowchart::parse::keyword(source) {
                                Some(k) if flowchart::parse::is_flowchart_keyword(k) => {
                                    placeholder(t.diagram_flowchart_kind, t.diagram_failed[2])
                                }
                                other => {
                                    placeholder(kind_name(other.unwrap_or("")), t.diagram_not_drawn)
                                }
                            },
                        },
                    },
                },
            },
        },
    }
}

/// The SVG of a sequence diagram: drawn, or the placeholder when it is too large.
pub fn render_sequence(seq: &sequence::Sequence, frame: &Frame) -> Rendered {
    if seq.participants.is_empty()
        || seq.participants.len() > sequence::MAX_PARTICIPANTS
        || seq.events.len() > sequence::MAX_EVENTS
    {
        let t = frame.t;
        let note = if seq.participants.is_empty() {
            t.diagram_failed[3]
        } else {
            t.diagram_failed[0]
        };
        let (svg, width, height) = svg::placeholder(t.diagram_sequence[6], note, frame);
        return Rendered {
            svg,
            drawn: false,
            width,
            height,
        };
    }
    let d = sequence::layout::layout(seq);
    let (svg, width, height) = sequence::draw::sequence(seq, &d, frame);
    Rendered {
        svg,
        drawn: true,
        width,
        height,
    }
}

/// The SVG of a state diagram: drawn, or the placeholder when it has no states or is too
/// large to lay out.
pub fn render_state(
    d: &state::StateDiagram,
    laid_out: &Result<layout::Drawing, Failure>,
    frame: &Frame,
) -> Rendered {
    let t = frame.t;
    let note = match laid_out {
        _ if d.chart.nodes.is_empty() => t.diagram_failed[3],
        Ok(laid) => {
            let (svg, width, height) = state::draw::state(d, laid, frame);
            return Rendered {
                svg,
                drawn: true,
                width,
                height,
            };
        }
        Err(Failure::TooLarge) => t.diagram_failed[0],
        Err(Failure::LayoutFailed) => t.diagram_failed[1],
    };
    let (svg, width, height) = svg::placeholder(t.diagram_state[6], note, frame);
    Rendered {
        svg,
        drawn: false,
        width,
        height,
    }
}

/// The SVG of an ER diagram: drawn, or the placeholder when it has no entities or is too
/// large to lay out.
pub fn render_er(
    d: &er::ErDiagram,
    laid_out: &Result<layout::Drawing, Failure>,
    frame: &Frame,
) -> Rendered {
    let t = frame.t;
    let note = match laid_out {
        _ if d.chart.nodes.is_empty() => t.diagram_failed[3],
        Ok(laid) => {
            let (svg, width, height) = er::draw::er(d, laid, frame);
            return Rendered {
                svg,
                drawn: true,
                width,
                height,
            };
        }
        Err(Failure::TooLarge) => t.diagram_failed[0],
        Err(Failure::LayoutFailed) => t.diagram_failed[1],
    };
    let (svg, width, height) = svg::placeholder(t.diagram_er[4], note, frame);
    Rendered {
        svg,
        drawn: false,
        width,
        height,
    }
}

/// The SVG of a class diagram: drawn, or the placeholder when it has no classes or is too
/// large to lay out.
pub fn render_class(
    d: &class::ClassDiagram,
    laid_out: &Result<layout::Drawing, Failure>,
    frame: &Frame,
) -> Rendered {
    let t = frame.t;
    let note = match laid_out {
        _ if d.chart.nodes.is_empty() => t.diagram_failed[3],
        Ok(laid) => {
            let (svg, width, height) = class::draw::class_diagram(d, laid, frame);
            return Rendered {
                svg,
                drawn: true,
                width,
                height,
            };
        }
        Err(Failure::TooLarge) => t.diagram_failed[0],
        Err(Failure::LayoutFailed) => t.diagram_failed[1],
    };
    let (svg, width, height) = svg::placeholder(t.diagram_class[4], note, frame);
    Rendered {
        svg,
        drawn: false,
        width,
        height,
    }
}

/// The SVG of a gantt chart: drawn, or the placeholder when it has no tasks.
pub fn render_gantt(g: &gantt::GanttChart, frame: &Frame) -> Rendered {
    if g.tasks.is_empty() {
        let t = frame.t;
        let (svg, width, height) = svg::placeholder(t.diagram_gantt[0], t.diagram_failed[3], frame);
        return Rendered {
            svg,
            drawn: false,
            width,
            height,
        };
    }
    let (svg, width, height) = gantt::draw::gantt(g, frame);
    Rendered {
        svg,
        drawn: true,
        width,
        height,
    }
}

/// The longest Mermaid source drawn, bytes: real architecture diagrams reach 16 KB, and the
/// render budget bounds the work whatever the length.
pub const MAX_SOURCE: usize = 64 * 1024;

/// A diagram drawn on its own, outside any component (a book's plain ```` ```mermaid ```` fences):
/// its SVG, or why it is not drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum Alone {
    /// Drawn.
    Drawn {
        /// The SVG, the engine's own markup; its ids start with the id given.
        svg: String,
        /// What the drawing ignores, as the `mermaid` component's `validate` reports it (the
        /// same codes and words), each at its 1-based line and column in the source.
        warnings: Vec<crate::diag::Diagnostic>,
    },
    /// Not drawn.
    NotDrawn {
        /// Why not, as a sentence.
        reason: String,
        /// The 1-based line of the source it points at.
        line: usize,
    },
}

/// Draws Mermaid `source` as the `mermaid` component would, without the component around it
/// (no caption, no comment fields). `id` prefixes the ids inside the SVG, so it must be unique
/// on the page and made of id characters.
pub fn draw_alone(source: &str, id: &str) -> Alone {
    let line_of = |offset: usize| source[..offset.min(source.len())].matches('\n').count() + 1;
    if source.len() > MAX_SOURCE {
        return Alone::NotDrawn {
            reason: format!(
                "the diagram is {} bytes; the limit is {}",
                source.len(),
                MAX_SOURCE
            ),
            line: 1,
        };
    }
    let read = read::read(source);
    let t = crate::html::i18n::Lang::En.strings();
    let frame = Frame {
        id,
        title: t.diagram,
        t,
        inline_style: false,
    };
    let drawing = read.render(source, &frame);
    if drawing.drawn {
        let warnings = read
            .warnings
            .into_iter()
            .map(|w| {
                let at = w.offset.unwrap_or(0).min(source.len());
                let before = source.get(..at).unwrap_or("");
                let column = before
                    .rfind('\n')
                    .map_or(before, |n| &before[n + 1..])
                    .chars()
                    .count()
                    + 1;
                crate::diag::Diagnostic {
                    severity: crate::diag::Severity::Warning,
                    code: w.code,
                    block: None,
                    line: line_of(at),
                    column,
                    path: String::new(),
                    message: w.message,
                    hint: w.hint,
                }
            })
            .collect();
        return Alone::Drawn {
            svg: drawing.svg,
            warnings,
        };
    }
    if let Some(Err(e)) = flowchart::parse::parse(source) {
        return Alone::NotDrawn {
            reason: format!("the flowchart is not drawn: {}", e.message),
            line: line_of(e.offset),
        };
    }
    let (chart, laid_out) = (&read.chart, read.laid_out.as_deref());
    let keyword = flowchart::parse::keyword(source).unwrap_or("");
    if let Some(Err(e)) = er::parse::parse(source) {
        return Alone::NotDrawn {
            reason: format!(
                "the entity relationship diagram is not drawn: {}",
                e.message
            ),
            line: line_of(e.offset),
        };
    }
    if let Some(Err(e)) = class::parse::parse(source) {
        return Alone::NotDrawn {
            reason: format!("the class diagram is not drawn: {}", e.message),
            line: line_of(e.offset),
        };
    }
    if let Some(Err(e)) = gantt::parse::parse(source) {
        return Alone::NotDrawn {
            reason: format!("the gantt chart is not drawn: {}", e.message),
            line: line_of(e.offset),
        };
    }
    if let Some(Ok(g)) = gantt::parse::parse(source)
        && g.tasks.is_empty()
    {
        return Alone::NotDrawn {
            reason: "the gantt chart has no tasks to draw".to_string(),
            line: 1,
        };
    }
    let reason = match (chart, laid_out) {
        (Some(_), Some(Err(Failure::TooLarge))) => "the flowchart is too large to draw".to_string(),
        (Some(_), Some(Err(Failure::LayoutFailed))) => "the flowchart's layout failed".to_string(),
        (Some(_), None) => "the flowchart has no nodes".to_string(),
        _ if flowchart::parse::is_flowchart_keyword(keyword)
            || keyword == "sequenceDiagram"
            || state::parse::is_state_keyword(keyword)
            || er::parse::is_er_keyword(keyword)
            || class::parse::is_class_keyword(keyword)
            || gantt::parse::is_gantt_keyword(keyword) =>
        {
            let kind = if flowchart::parse::is_flowchart_keyword(keyword) {
                "flowchart".to_string()
            } else {
                kind_name(keyword).to_lowercase()
            };
            format!("the {kind} could not be read or is too large to draw")
        }
        _ if kind_name(keyword) == "Mermaid diagram" => {
            "the diagram's first word is not a type keyword this engine knows (flowchart, sequenceDiagram, stateDiagram-v2, erDiagram, classDiagram, gantt, …)".to_string()
        }
        _ => format!("{}s are not drawn here yet", kind_name(keyword)),
    };
    Alone::NotDrawn { reason, line: 1 }
}

/// A readable name for a Mermaid diagram type keyword.
pub fn kind_name(keyword: &str) -> &'static str {
    match keyword {
        "sequenceDiagram" => "Sequence diagram",
        "classDiagram" | "classDiagram-v2" => "Class diagram",
        "stateDiagram" | "stateDiagram-v2" => "State diagram",
        "erDiagram" => "Entity relationship diagram",
        "gantt" => "Gantt chart",
        "pie" => "Pie chart",
        "journey" => "User journey",
        "gitGraph" => "Git graph",
        "mindmap" => "Mind map",
        "timeline" => "Timeline",
        "quadrantChart" => "Quadrant chart",
        "requirementDiagram" => "Requirement diagram",
        "C4Context" | "C4Container" | "C4Component" | "C4Dynamic" | "C4Deployment" => "C4 diagram",
        "sankey-beta" | "sankey" => "Sankey diagram",
        "xychart-beta" | "xychart" => "XY chart",
        "block-beta" | "block" => "Block diagram",
        "packet-beta" | "packet" => "Packet diagram",
        "architecture-beta" | "architecture" => "Architecture diagram",
        "kanban" => "Kanban board",
        "radar-beta" | "radar" => "Radar chart",
        "treemap-beta" | "treemap" => "Treemap",
        _ => "Mermaid diagram",
    }
}

#[cfg(test)]
pub(crate) mod tests {
    mod alone;
    pub mod books;
    pub(crate) mod corpus;
    mod golden;
    mod shapes;
}
