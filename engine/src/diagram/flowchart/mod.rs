//! Mermaid flowcharts, read from the grammar people actually write: enough to know every node
//! and edge of a diagram, so a reviewer's comment can be pinned to one and checked against it,
//! and enough to draw it: node shapes, edge kinds, subgraphs. This file holds the model
//! (`Flowchart` with its nodes, edges and subgraphs), which other kinds also give their nodes
//! and edges as.
//!
//! Node and edge order is part of the answers format (`bN.node.I`, `bN.edge.I`): nodes in
//! order of first appearance (a subgraph's id counts as a node), edges in source order with
//! chains and `&` groups expanded left to right.
//!
//! - `parse`: the statements of a chart into its model, with `statement` reading one
//!   statement's nodes and links and `label` a label's text (entities, tags, markdown);
//! - `layout`: the boxes placed and the edges routed (`layout/`);
//! - `draw`: the SVG, and `describe` the chart in words for its description.

pub mod describe;
pub mod draw;
mod label;
pub mod layout;
pub mod parse;
mod statement;
mod styling;

use crate::diagram::line::{Marker, Stroke};
use crate::diagram::shapes::Shape;
use crate::diagram::style::Style;
use crate::diagram::text::Emphasis;

/// A flowchart's nodes (in order of first appearance) and edges (in source order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Flowchart {
    pub direction: Direction,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    /// Subgraphs in order of declaration; a nested one names its parent.
    pub subgraphs: Vec<Subgraph>,
    /// Directives that were recognised and ignored (`click`, `style`, `init`, …), each once,
    /// in the order each first appears.
    pub ignored: Vec<String>,
    /// Other things read but not drawn as written (an icon, an unknown shape name), each once,
    /// as a sentence for a warning.
    pub notes: Vec<String>,
    /// The front matter's `title:`, drawn above the diagram.
    pub title: Option<String>,
    /// `accTitle:` and `accDescr:`: the SVG's accessible name and description.
    pub acc_title: Option<String>,
    pub acc_descr: Option<String>,
    /// Authors' colours, resolved per node and per edge.
    pub styles: Styles,
}

/// Each node's and edge's style from `style`, `classDef`, `class`, `:::`, `linkStyle` and the
/// theme variables of `%%{init}%%`: indexed as `nodes` and `edges` are, or empty when nothing
/// is styled.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Styles {
    pub nodes: Vec<Style>,
    pub edges: Vec<Style>,
}

impl Flowchart {
    /// Per edge: how many earlier edges join the same `from` to the same `to` (0 for the first
    /// of a pair, 1 for the second, …). Edge keys and comment fields both number repeated
    /// pairs by this.
    pub fn edge_occurrences(&self) -> Vec<usize> {
        // Most charts have a few edges: counting the earlier copies of each costs less than
        // hashing every pair.
        if self.edges.len() <= 32 {
            return self
                .edges
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    self.edges[..i]
                        .iter()
                        .filter(|p| p.from == e.from && p.to == e.to)
                        .count()
                })
                .collect();
        }
        let mut seen: std::collections::HashMap<(usize, usize), usize> =
            std::collections::HashMap::with_capacity(self.edges.len());
        self.edges
            .iter()
            .map(|e| {
                let n = seen.entry((e.from, e.to)).or_insert(0);
                *n += 1;
                *n - 1
            })
            .collect()
    }

    /// The id of node `node` (an index into `nodes`, as an edge's ends are).
    pub fn id_of(&self, node: usize) -> &str {
        &self.nodes[node].id
    }

    /// The label of node `id` (the id itself when unknown).
    pub fn label_of<'a>(&'a self, id: &'a str) -> &'a str {
        self.nodes
            .iter()
            .find(|n| n.id == id)
            .map_or(id, |n| n.label.as_str())
    }

    /// The subgraph whose id is `id`, if `id` names one.
    pub fn subgraph_named(&self, id: &str) -> Option<usize> {
        self.subgraphs
            .iter()
            .position(|s| s.id.as_deref() == Some(id))
    }
}

/// Which way the ranks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    /// `TD` / `TB`
    #[default]
    TopDown,
    /// `BT`
    BottomUp,
    /// `LR`
    LeftRight,
    /// `RL`
    RightLeft,
}

impl Direction {
    fn parse(word: &str) -> Option<Direction> {
        Some(match word {
            "TD" | "TB" | "v" => Direction::TopDown,
            "BT" | "^" => Direction::BottomUp,
            "LR" | ">" => Direction::LeftRight,
            "RL" | "<" => Direction::RightLeft,
            _ => return None,
        })
    }

    /// Whether ranks run horizontally.
    pub fn is_horizontal(self) -> bool {
        matches!(self, Direction::LeftRight | Direction::RightLeft)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub id: String,
    /// The label (the id when the node has no shape text), as plain text: line breaks
    /// (`<br>`, a new line in a markdown string) are `\n`, HTML tags and icons dropped,
    /// entity codes decoded.
    pub label: String,
    pub shape: Shape,
    /// Bold and italic byte ranges of `label`, from a markdown string (`"`**a** b`"`).
    pub emphasis: Vec<Emphasis>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    /// The node it starts at, as an index into `Flowchart::nodes` (ids are looked up there
    /// only where they are written out).
    pub from: usize,
    /// The node it ends at, as `from` is given.
    pub to: usize,
    pub label: Option<String>,
    /// Bold and italic runs of a markdown label, as byte ranges of `label`.
    pub label_emphasis: Vec<Emphasis>,
    pub stroke: Stroke,
    /// The marker at `from`.
    pub start: Marker,
    /// The marker at `to`.
    pub end: Marker,
    /// How many ranks it spans at least: 1 for `-->`, 2 for `--->`, 3 for `---->`.
    pub length: usize,
}

/// `subgraph id [title] … end`.
#[derive(Debug, Clone, PartialEq)]
pub struct Subgraph {
    /// The id, when it has one (`subgraph "Only a title"` has none). An id is also a node,
    /// so edges and comments can point at the subgraph.
    pub id: Option<String>,
    pub title: String,
    /// Bold and italic runs of a markdown title, as byte ranges of `title`.
    pub title_emphasis: Vec<Emphasis>,
    /// The enclosing subgraph.
    pub parent: Option<usize>,
    /// `direction LR` inside the subgraph.
    pub direction: Option<Direction>,
    /// Node ids that belong directly to this subgraph (not to a nested one), in order of
    /// first mention. A node belongs to the first subgraph that mentions it.
    pub members: Vec<String>,
}

/// Most edges a flowchart may have once its `&` groups are expanded: past what the layout
/// draws (`layout::MAX_EDGES`), so a chart over it is refused as it is read, before a group
/// multiplies (`l0 & … & l586 --> r0 & … & r586` is 344,569 edges in 8 KB).
pub const MAX_EDGES: usize = 4096;

/// Why a source is not a flowchart this parser can read, and where (byte offset).
#[derive(Debug, Clone, PartialEq)]
pub struct Unsupported {
    pub offset: usize,
    pub message: String,
}

#[cfg(test)]
pub(crate) mod tests {
    pub(crate) mod corpus;
    mod describe;
    mod parse;
    mod props;
    mod styles;
}
