//! A class diagram placed by the flowchart's layout: each class a box the size of its
//! compartments (annotations and name, members, methods), each interface a small circle
//! with its name, each note a box of its text joined to its class by a dotted line, each
//! namespace a container.

use super::{ClassDiagram, Classifier, Kind};
use crate::diagram::flowchart::layout::{self, Drawing, Failure};
use crate::diagram::flowchart::{Edge, Flowchart};
use crate::diagram::line::{Marker, Stroke};
use crate::diagram::text::{Block, LINE_HEIGHT, width};

/// Height of one member's row, px.
pub const ROW_H: f64 = 20.0;
/// Space left and right of the text in a box, px.
pub const PAD_X: f64 = 12.0;
/// Space above and below each compartment's rows, px.
pub const PAD_Y: f64 = 6.0;
/// The room a relation's line needs at each end for its marker and cardinality, px.
pub const END_ROOM: f64 = 24.0;
/// An interface's circle's radius, px.
pub const RING: f64 = 7.0;
/// The narrowest class box, px.
const MIN_W: f64 = 90.0;

/// One class's box: its heading lines (annotations, then its name), and the heights of its
/// three compartments (the two below the name 0 when `hideEmptyMembersBox` leaves them out).
#[derive(Debug, Clone, PartialEq)]
pub struct Compartments {
    pub annotations: Vec<String>,
    pub name: Block,
    pub head_h: f64,
    pub members_h: f64,
    pub methods_h: f64,
    pub w: f64,
    pub h: f64,
}

/// An annotation as shown: `«interface»`.
pub fn annotation_text(a: &str) -> String {
    format!("«{a}»")
}

/// A member's width as drawn (an italic or underlined one as wide as plain).
fn member_width(text: &str, _c: Classifier) -> f64 {
    width(text)
}

/// Each node's box: a class's compartments, `None` for what is not a class.
pub fn compartments(d: &ClassDiagram) -> Vec<Option<Compartments>> {
    d.chart
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            if d.kinds[i] != Kind::Class {
                return None;
            }
            let c = &d.classes[i];
            let annotations: Vec<String> =
                c.annotations.iter().map(|a| annotation_text(a)).collect();
            let name = Block::new(&n.label);
            let mut w = name.width;
            for a in &annotations {
                w = w.max(width(a));
            }
            for m in c.members.iter().chain(&c.methods) {
                w = w.max(member_width(&m.text, m.classifier));
            }
            let head_h = name.height + LINE_HEIGHT * annotations.len() as f64 + 2.0 * PAD_Y;
            let rows = |k: usize| {
                if k == 0 {
                    2.0 * PAD_Y
                } else {
                    ROW_H * k as f64 + 2.0 * PAD_Y
                }
            };
            let bare = d.hide_empty_members_box && c.members.is_empty() && c.methods.is_empty();
            let (members_h, methods_h) = if bare {
                (0.0, 0.0)
            } else {
                (rows(c.members.len()), rows(c.methods.len()))
            };
            let w = (w + 2.0 * PAD_X).max(MIN_W);
            Some(Compartments {
                annotations,
                name,
                head_h,
                members_h,
                methods_h,
                w,
                h: head_h + members_h + methods_h,
            })
        })
        .collect()
}

/// A note's text block.
pub fn note_block(label: &str) -> Block {
    Block::new(label)
}

/// The chart the layout places: the diagram's, with each note's dotted line to its class
/// after the relations.
pub fn chart(d: &ClassDiagram) -> Flowchart {
    let mut chart = d.chart.clone();
    // A namespace's name takes a line more than it shows, so a marker at the top of a class
    // just inside it clears the name.
    for s in &mut chart.subgraphs {
        s.title.push_str("\n.");
    }
    for &(note, on) in &d.note_on {
        if let Some(class) = on {
            chart.edges.push(Edge {
                from: note,
                to: class,
                label: None,
                label_emphasis: Vec::new(),
                stroke: Stroke::Dotted,
                start: Marker::None,
                end: Marker::None,
                length: 1,
            });
        }
    }
    chart
}

/// Each node's size, px: a class its compartments', an interface its circle and name's, a
/// note its text's.
pub fn sizes(d: &ClassDiagram, boxes: &[Option<Compartments>]) -> Vec<(f64, f64)> {
    d.chart
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| match (&boxes[i], d.kinds[i]) {
            (Some(c), _) => (c.w, c.h),
            (None, Kind::Interface) => {
                let b = Block::new(&n.label);
                (b.width.max(2.0 * RING) + 8.0, 2.0 * RING + 4.0 + b.height)
            }
            (None, Kind::Note) => {
                let b = note_block(&n.label);
                (b.width + 2.0 * PAD_X, b.height + 2.0 * PAD_Y + 4.0)
            }
            _ => (0.0, 0.0),
        })
        .collect()
}

/// The diagram laid out: its nodes, then the relations and the notes' lines (as `chart`
/// orders them).
pub fn layout(d: &ClassDiagram) -> Result<Drawing, Failure> {
    let boxes = compartments(d);
    layout::layout_sized(&chart(d), &sizes(d, &boxes), END_ROOM)
}
