//! Mermaid class diagrams (`classDiagram`, `classDiagram-v2`): classes with their members and
//! methods (visibility, static and abstract markers, return types, generics written
//! `List~int~`), annotations (`<<interface>>`), namespaces drawn as containers, the relations
//! (inheritance, composition, aggregation, association, dependency, realization, plain links,
//! solid or dashed, one marker at each end) with cardinalities and labels, lollipop
//! interfaces, notes, `direction`, and authors' colours (`classDef`, `cssClass`, `:::`,
//! `style`).
//!
//! A class diagram is kept as a flowchart's model (`ClassDiagram::chart`): each class a node
//! with Mermaid's id (the name without its generic part), then each lollipop interface
//! (`interface0`, …), each namespace (its dotted id, and a subgraph of that id holding its
//! classes and notes) and each note (`note0`, …); each relation an edge from the class written
//! left to the one written right, whatever the arrow's direction. So comments, the answers and
//! the export work on it as on a flowchart's, and the flowchart's layered layout places it
//! (`layout`), each class a box the size of its compartments.
//!
//! - `parse`: the source into the model, as Mermaid's own grammar reads it;
//! - `layout`: each class's box measured, notes joined to their classes, the chart laid out;
//! - `draw`: the SVG, and `describe` the diagram in words.

pub mod describe;
pub mod draw;
pub mod layout;
pub mod parse;

use crate::diagram::flowchart::Flowchart;

/// Most members and methods one class's box shows: beyond, it would not fit a page.
pub const MAX_MEMBERS: usize = 100;

/// A class diagram: its classes, interfaces, namespaces and notes as a flowchart's nodes, its
/// relations as its edges, with what the drawing needs beyond them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClassDiagram {
    /// Nodes: classes (in the order Mermaid adds them), interfaces, namespaces, notes; edges:
    /// relations in source order; subgraphs: namespaces, each with the node of its id.
    pub chart: Flowchart,
    /// Per node of `chart`.
    pub kinds: Vec<Kind>,
    /// Per node of `chart` (empty for what is not a class).
    pub classes: Vec<Class>,
    /// Per edge of `chart`.
    pub relations: Vec<Relation>,
    /// Per note: the class it is on (a node index), if any.
    pub note_on: Vec<(usize, Option<usize>)>,
    /// `hideEmptyMembersBox` (front matter `config.class`, or `%%{init}%%`): a class with no
    /// members and no methods is drawn as its name alone, without its two empty compartments.
    pub hide_empty_members_box: bool,
}

/// What a node of the chart is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Class,
    /// A lollipop interface: a circle with its name.
    Interface,
    Namespace,
    Note,
}

/// A class: its generic part, annotations, members and methods. Its shown name is the node's
/// label (`class A["Label"]`), with `<type>` when generic.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Class {
    /// `T` of `Square~T~`.
    pub generic: String,
    /// `interface` of `<<interface>>`, in the order written.
    pub annotations: Vec<String>,
    pub members: Vec<Member>,
    pub methods: Vec<Member>,
}

/// A member or method as Mermaid shows it: `+List<int> items`, `+area() : double`.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub text: String,
    pub classifier: Classifier,
}

/// A member's classifier: `$` static (underlined), `*` abstract (italic).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classifier {
    None,
    Static,
    Abstract,
}

/// A marker at one end of a relation, as Mermaid numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    None,
    /// `o`: a hollow diamond.
    Aggregation,
    /// `<|` / `|>`: a hollow triangle.
    Extension,
    /// `*`: a filled diamond.
    Composition,
    /// `<` / `>`: an arrow.
    Dependency,
    /// `()`: an interface's circle.
    Lollipop,
}

impl End {
    /// Mermaid's number for it (-1 for none), as `parse.json` records it.
    #[cfg(test)]
    pub fn number(self) -> i64 {
        match self {
            End::None => -1,
            End::Aggregation => 0,
            End::Extension => 1,
            End::Composition => 2,
            End::Dependency => 3,
            End::Lollipop => 4,
        }
    }
}

/// A relation: `LEFT "1" <|-- "*" RIGHT : label`.
#[derive(Debug, Clone, PartialEq)]
pub struct Relation {
    /// The marker at the left class's end and at the right one's.
    pub ends: [End; 2],
    /// `..`: dashed; `--`: solid.
    pub dashed: bool,
    /// The cardinalities written next to the left class and the right one (empty when none).
    pub cards: [String; 2],
}

#[cfg(test)]
mod tests {
    mod corpus;
    mod members_box;
    mod parse;
}
