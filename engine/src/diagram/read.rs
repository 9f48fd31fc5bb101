//! A Mermaid source read as the engine draws it: each kind it draws tried in turn and laid
//! out, with a warning for what the drawing ignores and for what stops it being drawn. The
//! `mermaid` component reads its `source` here (its warnings are `validate`'s and the review
//! page's), and so does a diagram drawn on its own (`super::draw_alone`), so both report the
//! same things in the same words.

use super::class::{self, ClassDiagram};
use super::er::{self, ErDiagram};
use super::flowchart::{self, Flowchart, layout};
use super::gantt::{self, GanttChart};
use super::sequence::{self, Sequence};
use super::state::{self, StateDiagram};
use super::svg::Frame;
use crate::diag::Code;

/// A warning about a diagram's source.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceWarning {
    pub code: Code,
    /// The byte in the source it points at, or `None` for the source as a whole.
    pub offset: Option<usize>,
    /// What is ignored or not drawn, as a sentence.
    pub message: String,
    /// What to do about it.
    pub hint: String,
}

/// A Mermaid source read: at most one kind is `Some` (a sequence, state, ER or class diagram
/// or gantt chart), or the flowchart in `chart`, or none when the engine draws no such kind.
#[derive(Debug, Clone)]
pub struct Read {
    /// The flowchart, when the source is one this engine can read.
    pub chart: Option<Flowchart>,
    /// The flowchart's layout, when it has nodes.
    /// (Boxed: every block is as large as its largest kind.)
    pub laid_out: Option<Box<Laid>>,
    pub sequence: Option<Box<Sequence>>,
    pub state: Option<Box<(StateDiagram, Laid)>>,
    pub er: Option<Box<(ErDiagram, Laid)>>,
    pub class: Option<Box<(ClassDiagram, Laid)>>,
    pub gantt: Option<Box<GanttChart>>,
    /// What the drawing ignores and what stops it being drawn.
    pub warnings: Vec<SourceWarning>,
}

/// Reads `source` (at most [`super::MAX_SOURCE`] bytes: the caller checks).
pub fn read(source: &str) -> Read {
    let mut w = Vec::new();
    let chart = match flowchart::parse::parse(source) {
        Some(Ok(chart)) => {
            if !chart.ignored.is_empty() {
                warn(
                    &mut w,
                    Code::IgnoredDirective,
                    None,
                    format!(
                        "the diagram's {} {} ignored: the drawing does not use them",
                        chart
                            .ignored
                            .iter()
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(", "),
                        if chart.ignored.len() == 1 {
                            "is"
                        } else {
                            "are"
                        }
                    ),
                    "nothing to do; remove them to silence this warning".into(),
                );
            }
            for note in &chart.notes {
                warn(
                    &mut w,
                    Code::IgnoredDirective,
                    None,
                    format!("in the diagram, {note}"),
                    "nothing to do; the rest of the diagram is drawn as written".into(),
                );
            }
            Some(chart)
        }
        Some(Err(e)) => {
            // The place is the construct's own.
            warn(
                &mut w,
                Code::UnsupportedDiagram,
                Some(e.offset),
                format!("the flowchart is not drawn: {}", e.message),
                "check the Mermaid syntax there; until then only whole-diagram comments are possible".into(),
            );
            None
        }
        None => None,
    };
    let sequence = match chart {
        Some(_) => None,
        None => parse_sequence(&mut w, source),
    };
    let state = match (&chart, &sequence) {
        (None, None) => parse_state(&mut w, source),
        _ => None,
    };
    let er = match (&chart, &sequence, &state) {
        (None, None, None) => parse_er(&mut w, source),
        _ => None,
    };
    let class = match (&chart, &sequence, &state, &er) {
        (None, None, None, None) => parse_class(&mut w, source),
        _ => None,
    };
    let gantt = match (&chart, &sequence, &state, &er, &class) {
        (None, None, None, None, None) => parse_gantt(&mut w, source),
        _ => None,
    };
    if chart.is_none()
        && sequence.is_none()
        && state.is_none()
        && er.is_none()
        && class.is_none()
        && gantt.is_none()
    {
        warn_placeholder(&mut w, source);
    }
    let laid_out = chart
        .as_ref()
        .filter(|c| !c.nodes.is_empty())
        .map(|c| Box::new(lay_out(&mut w, c)));
    Read {
        chart,
        laid_out,
        sequence,
        state,
        er,
        class,
        gantt,
        warnings: w,
    }
}

impl Read {
    /// The SVG of the diagram read from `source`: drawn, or a placeholder naming its kind.
    pub fn render(&self, source: &str, frame: &Frame) -> super::Rendered {
        match (
            &self.sequence,
            &self.state,
            &self.er,
            &self.class,
            &self.gantt,
        ) {
            (Some(seq), _, _, _, _) => super::render_sequence(seq, frame),
            (None, Some(s), _, _, _) => super::render_state(&s.0, &s.1, frame),
            (None, None, Some(e), _, _) => super::render_er(&e.0, &e.1, frame),
            (None, None, None, Some(c), _) => super::render_class(&c.0, &c.1, frame),
            (None, None, None, None, Some(g)) => super::render_gantt(g, frame),
            (None, None, None, None, None) => super::render_laid_out(
                source,
                self.chart.as_ref().zip(self.laid_out.as_deref()),
                frame,
            ),
        }
    }
}

/// Adds a warning to `w`.
fn warn(
    w: &mut Vec<SourceWarning>,
    code: Code,
    offset: Option<usize>,
    message: String,
    hint: String,
) {
    w.push(SourceWarning {
        code,
        offset,
        message,
        hint,
    });
}

/// A warning naming the kind of a diagram that shows as a placeholder because this engine
/// does not draw its kind (a flowchart, sequence or state diagram it cannot read has its own).
fn warn_placeholder(w: &mut Vec<SourceWarning>, source: &str) {
    let keyword = flowchart::parse::keyword(source).unwrap_or("");
    if flowchart::parse::is_flowchart_keyword(keyword)
        || keyword == "sequenceDiagram"
        || state::parse::is_state_keyword(keyword)
        || er::parse::is_er_keyword(keyword)
        || class::parse::is_class_keyword(keyword)
        || gantt::parse::is_gantt_keyword(keyword)
    {
        return;
    }
    let kind = super::kind_name(keyword);
    let message = if kind == "Mermaid diagram" {
        "the diagram's type is not one this engine knows, so it shows as a placeholder".to_string()
    } else {
        format!("{kind}s are not drawn here yet: this one shows as a placeholder naming its type")
    };
    warn(
        w,
        Code::UnsupportedDiagram,
        None,
        message,
        "flowcharts, sequence, state, entity relationship and class diagrams and gantt charts are drawn; the source is shown beside the placeholder and whole-diagram comments work".into(),
    );
}

/// The flowchart's layout, with a warning where it cannot be drawn.
fn lay_out(
    w: &mut Vec<SourceWarning>,
    chart: &Flowchart,
) -> Result<layout::Drawing, layout::Failure> {
    let laid_out = layout::layout(chart);
    let (message, hint) = match laid_out {
        Ok(_) => return laid_out,
        Err(layout::Failure::TooLarge) => (
            format!(
                "the flowchart is too large to draw here: it has {} nodes and {} edges, and the engine draws at most {} nodes, {} edges and {} boxes once edge labels and the connectors of long edges are counted",
                chart.nodes.len(),
                chart.edges.len(),
                layout::MAX_NODES,
                layout::MAX_EDGES,
                layout::MAX_LAYOUT_BOXES
            ),
            "split it into smaller diagrams; until then the source is shown and only whole-diagram comments are possible",
        ),
        Err(layout::Failure::LayoutFailed) => (
            "the flowchart's layout failed, so it is not drawn".to_string(),
            "simplify the diagram (fewer crossing edges between subgraphs); until then the source is shown and only whole-diagram comments are possible",
        ),
    };
    warn(w, Code::UnsupportedDiagram, None, message, hint.into());
    laid_out
}

/// A state diagram laid out, with a warning for what it ignores and for what stops it being
/// drawn (at that place in the source).
fn parse_state(w: &mut Vec<SourceWarning>, source: &str) -> Option<Box<(StateDiagram, Laid)>> {
    read_and_lay_out(
        w,
        source,
        &BoxesAndLines {
            kind: "state diagram",
            read: state::parse::parse,
            chart: |d| &d.chart,
            lay_out: state::layout::layout,
            parts: "states",
            add: "add states and transitions (`A --> B`)",
            size: |d| {
                format!(
                    "{} states, {} transitions and {} {}",
                    d.chart.nodes.len(),
                    d.chart.edges.len(),
                    d.notes.len(),
                    if d.notes.len() == 1 { "note" } else { "notes" },
                )
            },
            simplify: "simplify the diagram (fewer transitions between composite states)",
        },
    )
}

/// An ER diagram laid out, with a warning for what it ignores and for what stops it being
/// drawn (at that place in the source).
fn parse_er(w: &mut Vec<SourceWarning>, source: &str) -> Option<Box<(ErDiagram, Laid)>> {
    read_and_lay_out(
        w,
        source,
        &BoxesAndLines {
            kind: "entity relationship diagram",
            read: er::parse::parse,
            chart: |d| &d.chart,
            lay_out: er::layout::layout,
            parts: "entities",
            add: "add entities and relationships (`A ||--o{ B : label`)",
            size: |d| {
                format!(
                    "{} entities and {} relationships",
                    d.chart.nodes.len(),
                    d.chart.edges.len(),
                )
            },
            simplify: "simplify the diagram",
        },
    )
}

/// A class diagram laid out, with a warning for what it ignores and for what stops it being
/// drawn (at that place in the source).
fn parse_class(w: &mut Vec<SourceWarning>, source: &str) -> Option<Box<(ClassDiagram, Laid)>> {
    read_and_lay_out(
        w,
        source,
        &BoxesAndLines {
            kind: "class diagram",
            read: class::parse::parse,
            chart: |d| &d.chart,
            lay_out: class::layout::layout,
            parts: "classes",
            add: "add classes and relations (`Animal <|-- Duck`)",
            size: |d| {
                format!(
                    "{} classes, namespaces and notes and {} relations",
                    d.chart.nodes.len(),
                    d.chart.edges.len(),
                )
            },
            simplify: "simplify the diagram (fewer relations between namespaces)",
        },
    )
}

/// A diagram laid out as boxes and lines, or why not.
pub type Laid = Result<layout::Drawing, layout::Failure>;

/// A kind of diagram drawn as boxes and lines (state, ER, class): how it is read and laid
/// out, and what its warnings call it and its parts.
struct BoxesAndLines<D> {
    /// Its name in warnings, such as "state diagram".
    kind: &'static str,
    read: fn(&str) -> Option<Result<D, flowchart::Unsupported>>,
    chart: fn(&D) -> &Flowchart,
    lay_out: fn(&D) -> Laid,
    /// What it has none of when there is nothing to draw, such as "states".
    parts: &'static str,
    /// How to add them, with an example.
    add: &'static str,
    /// Its parts counted, for the warning that it is too large to draw.
    size: fn(&D) -> String,
    /// How to make a failed layout succeed.
    simplify: &'static str,
}

/// A diagram of `kind` read and laid out, with a warning for what it ignores and for what
/// stops it being drawn, or for where reading it stopped (at that place in the source).
fn read_and_lay_out<D>(
    w: &mut Vec<SourceWarning>,
    source: &str,
    kind: &BoxesAndLines<D>,
) -> Option<Box<(D, Laid)>> {
    let name = kind.kind;
    match (kind.read)(source)? {
        Ok(d) => {
            let chart = (kind.chart)(&d);
            warn_ignored(w, name, &chart.ignored, &chart.notes);
            let laid = (kind.lay_out)(&d);
            let problem = match &laid {
                _ if chart.nodes.is_empty() => Some((
                    format!("the {name} has no {} to draw", kind.parts),
                    format!(
                        "{}; until then only whole-diagram comments are possible",
                        kind.add
                    ),
                )),
                Ok(_) => None,
                Err(layout::Failure::TooLarge) => Some((
                    format!(
                        "the {name} is too large to draw here: it has {}, and the engine draws at most {} boxes and {} lines",
                        (kind.size)(&d),
                        layout::MAX_NODES,
                        layout::MAX_EDGES
                    ),
                    "split it into smaller diagrams; until then the source is shown and only whole-diagram comments are possible".to_string(),
                )),
                Err(layout::Failure::LayoutFailed) => Some((
                    format!("the {name}'s layout failed, so it is not drawn"),
                    format!(
                        "{}; until then the source is shown and only whole-diagram comments are possible",
                        kind.simplify
                    ),
                )),
            };
            warn_not_drawn(w, problem);
            Some(Box::new((d, laid)))
        }
        Err(e) => {
            warn_unreadable(w, source, name, e.offset, &e.message);
            None
        }
    }
}

/// A gantt chart, with a warning for what it ignores and for what stops it being drawn (at
/// that place in the source).
fn parse_gantt(w: &mut Vec<SourceWarning>, source: &str) -> Option<Box<GanttChart>> {
    const KIND: &str = "gantt chart";
    match gantt::parse::parse(source)? {
        Ok(g) => {
            warn_ignored(w, KIND, &g.chart.ignored, &g.chart.notes);
            if g.tasks.is_empty() {
                warn_not_drawn(
                    w,
                    Some((
                        "the gantt chart has no tasks to draw".to_string(),
                        "add tasks (`Design : a1, 2024-01-01, 3d`); until then only whole-diagram comments are possible"
                            .to_string(),
                    )),
                );
            }
            Some(Box::new(g))
        }
        Err(e) => {
            warn_unreadable(w, source, KIND, e.offset, &e.message);
            None
        }
    }
}

/// The warnings for what a diagram of `kind` ignores (directives it does not draw) and the
/// notes its reading made, for the source as a whole.
fn warn_ignored(w: &mut Vec<SourceWarning>, kind: &str, ignored: &[String], notes: &[String]) {
    if !ignored.is_empty() {
        warn(
            w,
            Code::IgnoredDirective,
            None,
            format!(
                "the {kind}'s {} {} ignored: the drawing does not use them",
                ignored
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                if ignored.len() == 1 { "is" } else { "are" }
            ),
            "nothing to do; remove them to silence this warning".into(),
        );
    }
    for note in notes {
        warn(
            w,
            Code::IgnoredDirective,
            None,
            format!("in the diagram, {note}"),
            "nothing to do; the rest of the diagram is drawn as written".into(),
        );
    }
}

/// The warning, with its hint, for a diagram read but not drawn.
fn warn_not_drawn(w: &mut Vec<SourceWarning>, problem: Option<(String, String)>) {
    if let Some((message, hint)) = problem {
        warn(w, Code::UnsupportedDiagram, None, message, hint);
    }
}

/// The warning for a diagram of `kind` that could not be read, at the place in `source` where
/// reading stopped (`offset`, in bytes) and what stopped it.
fn warn_unreadable(
    w: &mut Vec<SourceWarning>,
    source: &str,
    kind: &str,
    offset: usize,
    message: &str,
) {
    let line = source.get(..offset).unwrap_or(source).matches('\n').count() + 1;
    warn(
        w,
        Code::UnsupportedDiagram,
        Some(offset),
        format!("the {kind} could not be drawn: line {line} of `source`: {message}"),
        "change that line as the message says; until then the source is shown and only whole-diagram comments are possible".into(),
    );
}

/// A sequence diagram, with a warning for what it ignores and for what stops it being drawn
/// (at that place in the source).
fn parse_sequence(w: &mut Vec<SourceWarning>, source: &str) -> Option<Box<Sequence>> {
    match sequence::parse::parse(source)? {
        Ok(seq) => {
            if !seq.ignored.is_empty() {
                warn(
                    w,
                    Code::IgnoredDirective,
                    None,
                    format!(
                        "the sequence diagram's {} {} not drawn",
                        seq.ignored
                            .iter()
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(", "),
                        if seq.ignored.len() == 1 { "is" } else { "are" }
                    ),
                    "nothing to do; remove them to silence this warning".into(),
                );
            }
            Some(Box::new(seq))
        }
        Err(e) => {
            warn_unreadable(w, source, "sequence diagram", e.offset, &e.message);
            None
        }
    }
}
