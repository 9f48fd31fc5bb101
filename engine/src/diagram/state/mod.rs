//! Mermaid state diagrams (`stateDiagram`, `stateDiagram-v2`): states, composite states that
//! hold other states, `[*]` start and end per composite, choice, fork and join, notes,
//! concurrency regions and transitions with labels.
//!
//! A state diagram is kept as a flowchart's model (`StateDiagram::chart`): each state a node
//! with Mermaid's own id (a start or end `[*]` is `root_start`, `Parent_end`, …, as Mermaid
//! names them; `Parent/2_start` in the second concurrency region of `Parent`, as contract §3.1
//! names it), each transition an edge, each composite state a subgraph whose id is the
//! state's, each concurrency region a subgraph of its composite. So comments, the answers
//! and the export work on it as on a flowchart's, and the flowchart's layered layout places
//! it (`layout`).
//!
//! - `parse`: the source into statements (`Stmt`), and `build` the statements into the model;
//! - `layout`: the chart with its notes as boxes, laid out by the flowchart's layout;
//! - `draw`: the SVG, and `describe` the diagram in words.

mod build;
pub mod describe;
pub mod draw;
pub mod layout;
pub mod parse;

use crate::diagram::flowchart::Flowchart;

/// Most notes drawn: with the states they sit beside, within the layout's caps.
pub const MAX_NOTES: usize = 100;

/// A state diagram: its states and transitions as a flowchart, what each state is, and its
/// notes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StateDiagram {
    /// States (nodes, in order of first mention), transitions (edges, in source order),
    /// composite states and concurrency regions (subgraphs).
    pub chart: Flowchart,
    /// Per node of `chart`: what kind of state it is.
    pub kinds: Vec<Kind>,
    /// Per subgraph of `chart`: `Some(id)` for a concurrency region (`{composite}/{k}` for the
    /// k-th, which its `[*]` ids start with), `None` for a composite state.
    pub regions: Vec<Option<String>>,
    pub notes: Vec<Note>,
}

/// What a state is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    State,
    /// `[*]` where a transition starts.
    Start,
    /// `[*]` where a transition ends.
    End,
    /// `<<choice>>`
    Choice,
    /// `<<fork>>`
    Fork,
    /// `<<join>>`
    Join,
    /// A state that holds others (`state X { … }`).
    Composite,
}

/// Which side of its state a note is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
}

/// `note left of X : text`, or the same over several lines ending with `end note`.
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    /// The state it is on, as an index into the chart's nodes.
    pub state: usize,
    pub side: Side,
    pub text: String,
}

#[cfg(test)]
mod tests {
    mod corpus;
    mod parse;
}
