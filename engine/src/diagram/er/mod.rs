//! Mermaid entity relationship diagrams (`erDiagram`): entities with attribute tables (type,
//! name, keys, comment), and relationships between them with a cardinality at each end,
//! identifying (`--`, a solid line) or not (`..`, dashed), and a label.
//!
//! An ER diagram is kept as a flowchart's model (`ErDiagram::chart`): each entity a node with
//! the name Mermaid keys it by (an alias `p[Person]` is `p`; the alias is its label), each
//! relationship an edge from the entity written first to the one written second. So comments,
//! the answers and the export work on it as on a flowchart's, and the flowchart's layered
//! layout places it (`layout`), each entity a box the size of its table.
//!
//! - `parse`: the source into the model, as Mermaid's own grammar reads it;
//! - `layout`: each entity's table measured, and the chart laid out with boxes that size;
//! - `draw`: the SVG (tables, lines, crow's-foot markers at both ends), and `describe` the
//!   diagram in words.

pub mod describe;
pub mod draw;
pub mod layout;
pub mod parse;

use crate::diagram::flowchart::Flowchart;

/// Most attributes one entity's table shows: beyond, the table would not fit a page.
pub const MAX_ATTRIBUTES: usize = 100;

/// An ER diagram: its entities and relationships as a flowchart, with what the drawing needs
/// beyond it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ErDiagram {
    /// Entities (nodes, in the order Mermaid adds them) and relationships (edges, in source
    /// order, each from its first entity to its second).
    pub chart: Flowchart,
    /// Per node of `chart`.
    pub entities: Vec<Entity>,
    /// Per edge of `chart`.
    pub relationships: Vec<Relationship>,
}

/// An entity: its alias, when written (`p[Person]`), and its attributes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entity {
    pub alias: Option<String>,
    pub attributes: Vec<Attribute>,
}

/// One row of an entity's table: `type name PK, FK "comment"`.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    pub ty: String,
    pub name: String,
    pub keys: Vec<Key>,
    pub comment: String,
}

/// An attribute's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Primary,
    Foreign,
    Unique,
}

impl Key {
    /// As written: `PK`, `FK`, `UK`.
    pub fn as_str(self) -> &'static str {
        match self {
            Key::Primary => "PK",
            Key::Foreign => "FK",
            Key::Unique => "UK",
        }
    }
}

/// How many of one entity the other may have, as a marker shows it at the entity's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cardinality {
    /// `|o`, `o|`, `zero or one`, `one or zero`
    ZeroOrOne,
    /// `||`, `one`, `only one`, `1`
    ExactlyOne,
    /// `}o`, `o{`, `zero or more`, `zero or many`, `many(0)`, `0+`, `many`
    ZeroOrMore,
    /// `}|`, `|{`, `one or more`, `one or many`, `many(1)`, `1+`
    OneOrMore,
    /// `u`: the parent of a multi-dimensional relationship.
    Parent,
}

/// A relationship: `FIRST ||--o{ SECOND : label`.
#[derive(Debug, Clone, PartialEq)]
pub struct Relationship {
    /// The marker at the first entity's end (written next to it).
    pub at_first: Cardinality,
    /// The marker at the second entity's end.
    pub at_second: Cardinality,
    /// `--` (or `to`): a solid line; `..` (or `optionally to`): dashed.
    pub identifying: bool,
}

#[cfg(test)]
mod tests {
    mod corpus;
    mod parse;
}
