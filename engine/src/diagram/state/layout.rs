//! A state diagram placed by the flowchart's layout: its chart, with each note a box joined to
//! its state by a dotted line (after the state for a note on its right, before it for one on
//! its left), a choice a diamond without words and a fork or join a bar across the way its
//! scope runs.

use super::{Kind, Side, StateDiagram};
use crate::diagram::flowchart::layout::{self, Drawing, Failure};
use crate::diagram::flowchart::{Direction, Edge, Flowchart, Node};
use crate::diagram::line::{Marker, Stroke};
use crate::diagram::shapes::Shape;

/// The id of note `k` on state `state`, as Mermaid names the note's box.
pub fn note_id(state: &str, k: usize) -> String {
    format!("{state}----note-{k}")
}

/// The direction ranks run in around node `i` of `d`: its scope's, or the diagram's.
fn direction_of(d: &StateDiagram, i: usize) -> Direction {
    let id = &d.chart.nodes[i].id;
    let mut scope = d
        .chart
        .subgraphs
        .iter()
        .position(|s| s.members.contains(id));
    while let Some(s) = scope {
        let sub = &d.chart.subgraphs[s];
        if let Some(dir) = sub.direction {
            return dir;
        }
        scope = sub.parent;
    }
    d.chart.direction
}

/// The chart the layout places: the diagram's, its symbols shaped, with the notes after its
/// states (`note_id`) and their lines after its transitions.
pub fn chart(d: &StateDiagram) -> Flowchart {
    let mut chart = d.chart.clone();
    for (i, n) in chart.nodes.iter_mut().enumerate() {
        match d.kinds[i] {
            Kind::Choice => n.label.clear(),
            Kind::Fork | Kind::Join if direction_of(d, i).is_horizontal() => {
                n.shape = Shape::ForkSideways;
            }
            _ => {}
        }
    }
    for (k, note) in d.notes.iter().enumerate() {
        let state_id = d.chart.nodes[note.state].id.clone();
        let id = note_id(&state_id, k);
        // Beside its state: in the scope the state is in (a composite's note beside the
        // composite, in its parent's scope).
        let home = match d.chart.subgraph_named(&state_id) {
            Some(s) => d.chart.subgraphs[s].parent,
            None => chart
                .subgraphs
                .iter()
                .position(|s| s.members.contains(&state_id)),
        };
        if let Some(s) = home {
            chart.subgraphs[s].members.push(id.clone());
        }
        let at = chart.nodes.len();
        chart.nodes.push(Node {
            id,
            label: note.text.clone(),
            shape: Shape::Rect,
            emphasis: Vec::new(),
        });
        let (from, to) = match note.side {
            Side::Right => (note.state, at),
            Side::Left => (at, note.state),
        };
        chart.edges.push(Edge {
            from,
            to,
            label: None,
            label_emphasis: Vec::new(),
            stroke: Stroke::Dotted,
            start: Marker::None,
            end: Marker::None,
            length: 1,
        });
    }
    chart
}

/// The diagram laid out: its states first, then its notes (as `chart` orders them).
pub fn layout(d: &StateDiagram) -> Result<Drawing, Failure> {
    layout::layout(&chart(d))
}
