//! Mermaid sequence diagrams: the syntax of Mermaid's sequence-diagram page (participants and
//! actors, aliases, the message arrows, activations, notes, the
//! `loop`/`alt`/`opt`/`par`/`critical`/`break`/`rect` frames, `autonumber`, `box` groups,
//! creation and destruction), read into the model this file holds, laid out and drawn.
//!
//! A reviewer comments on a participant (a node) or a message (an edge `FROM→TO`, numbered
//! `#2`, `#3`, … when a pair repeats), exactly as on a flowchart: [`Sequence::as_flowchart`]
//! gives the nodes and edges the answers and the export use.
//!
//! - `parse`: the statements into the model, with `syntax` for the pieces a statement is read
//!   from (statements, entities, arrows, keywords, numbers) and `colour` for plain colours;
//! - `layout`: participants in columns, one row per message, note or frame edge, top to
//!   bottom in source order;
//! - `draw`: the SVG, and `describe` the diagram in words for its description.

pub mod colour;
pub mod describe;
pub mod draw;
pub mod layout;
pub mod parse;
pub mod syntax;

use crate::diagram::flowchart::{Edge, Flowchart, Node};
use crate::diagram::line::{Marker, Stroke};
use crate::diagram::shapes::Shape;

/// Most participants and messages (and notes and frame lines) drawn; beyond, a diagnostic
/// and the placeholder. The same caps as flowcharts' nodes and edges.
pub const MAX_PARTICIPANTS: usize = crate::diagram::flowchart::layout::MAX_NODES;

pub const MAX_EVENTS: usize = crate::diagram::flowchart::layout::MAX_EDGES;

/// A parsed sequence diagram.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sequence {
    pub participants: Vec<Participant>,
    /// Messages, notes, activations and frame lines, in source order.
    pub events: Vec<Event>,
    /// `box` groups, in order of declaration.
    pub groups: Vec<Group>,
    /// `title` (or front matter `title:`).
    pub title: Option<String>,
    pub acc_title: Option<String>,
    pub acc_descr: Option<String>,
    /// Statements recognised and not drawn (`link`, `links`, `properties`, `details`, colours,
    /// `%%{init}%%`), each once, in the order each first appears.
    pub ignored: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Participant {
    pub id: String,
    pub label: String,
    pub kind: Kind,
    /// Drawn where it is created (`create participant …`), not at the top.
    pub created: bool,
    /// Its lifeline ends at its last message, where it is drawn again (`destroy …`).
    pub destroyed: bool,
}

/// How a participant is drawn: `actor` as a figure, the rest as boxes (the `@{ "type": … }`
/// types have their own outline).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Kind {
    #[default]
    Participant,
    Actor,
    Boundary,
    Control,
    Entity,
    Database,
    Collections,
    Queue,
}

impl Kind {
    fn from_name(name: &str) -> Option<Kind> {
        Some(match name.to_ascii_lowercase().as_str() {
            "participant" => Kind::Participant,
            "actor" => Kind::Actor,
            "boundary" => Kind::Boundary,
            "control" => Kind::Control,
            "entity" => Kind::Entity,
            "database" => Kind::Database,
            "collections" => Kind::Collections,
            "queue" => Kind::Queue,
            _ => return None,
        })
    }
}

/// A message's line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    Solid,
    Dotted,
}

/// A message's head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Head {
    /// `->`, `-->`
    None,
    /// `->>`, `-->>`
    Arrow,
    /// `-x`, `--x`
    Cross,
    /// `-)`, `--)`: asynchronous.
    Open,
    /// Mermaid 11's half arrows: a filled half head on the side to the left of the message's
    /// way (`-|\`, "top" as Mermaid draws a message to the right) or to its right (`-|/`)…
    HalfTop,
    HalfBottom,
    /// …or a single barb (`-\\`, `-//`).
    StickTop,
    StickBottom,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Participant indices.
    pub from: usize,
    pub to: usize,
    pub text: String,
    pub line: Line,
    pub head: Head,
    /// `<<->>`, `<<-->>`: a head at both ends.
    pub both: bool,
    /// `/|-` and the other reverse half arrows: the one head is at the sender's end.
    pub reverse: bool,
    /// `()` at an end: a central connection.
    pub dot_from: bool,
    pub dot_to: bool,
    /// `+`: activates `to`; `-`: deactivates `from`.
    pub activate: bool,
    pub deactivate: bool,
    /// Its `autonumber` number, as written.
    pub number: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
    Over,
}

/// The frame kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    Loop,
    Alt,
    Opt,
    Par,
    Critical,
    Break,
    Rect,
}

impl Frame {
    pub fn name(self) -> &'static str {
        match self {
            Frame::Loop => "loop",
            Frame::Alt => "alt",
            Frame::Opt => "opt",
            Frame::Par => "par",
            Frame::Critical => "critical",
            Frame::Break => "break",
            Frame::Rect => "rect",
        }
    }

    /// The keyword that divides it (`else`, `and`, `option`).
    fn divider(self) -> Option<&'static str> {
        match self {
            Frame::Alt => Some("else"),
            Frame::Par => Some("and"),
            Frame::Critical => Some("option"),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Message(Message),
    Note {
        side: Side,
        /// One participant, or two for `over A,B`.
        of: (usize, Option<usize>),
        text: String,
    },
    Activate(usize),
    Deactivate(usize),
    /// A frame opens: its kind, its label, and (a `rect`) its colour when it is a plain one
    /// ([`colour::plain_colour`]).
    Start(Frame, String, Option<String>),
    /// `else`, `and`, `option`: its label.
    Divide(String),
    End,
}

/// `box [colour] [title] … end`.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub title: String,
    /// Its colour when it is a plain one ([`colour::plain_colour`]).
    pub colour: Option<String>,
    /// Participant indices, in order.
    pub members: Vec<usize>,
}

/// Why a source is not a sequence diagram this parser can read, and where (byte offset in
/// the source).
#[derive(Debug, Clone, PartialEq)]
pub struct Unsupported {
    pub offset: usize,
    pub message: String,
}

/// The end of the message of a diagram over the caps.
const TOO_LARGE: &str = "too large to draw";

impl Unsupported {
    /// Refused for its size (over [`MAX_PARTICIPANTS`] or [`MAX_EVENTS`]), not its syntax.
    pub fn too_large(&self) -> bool {
        self.message.ends_with(TOO_LARGE)
    }
}

impl Sequence {
    /// The participants as nodes and the messages as edges, in order: what comments are
    /// pinned to and checked against.
    pub fn as_flowchart(&self) -> Flowchart {
        Flowchart {
            nodes: self
                .participants
                .iter()
                .map(|p| Node {
                    id: p.id.clone(),
                    label: p.label.clone(),
                    shape: Shape::Rect,
                    emphasis: Vec::new(),
                })
                .collect(),
            edges: self
                .messages()
                .map(|m| Edge {
                    // Node `i` is participant `i`.
                    from: m.from,
                    to: m.to,
                    label: (!m.text.is_empty()).then(|| m.text.clone()),
                    label_emphasis: Vec::new(),
                    stroke: match m.line {
                        Line::Solid => Stroke::Solid,
                        Line::Dotted => Stroke::Dotted,
                    },
                    start: if m.both {
                        Marker::Arrow
                    } else if m.reverse {
                        marker(m.head)
                    } else {
                        Marker::None
                    },
                    end: if m.reverse {
                        Marker::None
                    } else {
                        marker(m.head)
                    },
                    length: 1,
                })
                .collect(),
            ..Flowchart::default()
        }
    }

    pub fn messages(&self) -> impl Iterator<Item = &Message> {
        self.events.iter().filter_map(|e| match e {
            Event::Message(m) => Some(m),
            _ => None,
        })
    }

    /// Per message: how many earlier messages join the same pair (as
    /// `Flowchart::edge_occurrences` counts edges).
    pub fn occurrences(&self) -> Vec<usize> {
        let mut seen: std::collections::HashMap<(usize, usize), usize> =
            std::collections::HashMap::new();
        self.messages()
            .map(|m| {
                let n = seen.entry((m.from, m.to)).or_insert(0);
                *n += 1;
                *n - 1
            })
            .collect()
    }
}

/// The flowchart marker a message's head is given as.
fn marker(head: Head) -> Marker {
    match head {
        Head::None => Marker::None,
        Head::Cross => Marker::Cross,
        _ => Marker::Arrow,
    }
}

#[cfg(test)]
mod tests {
    mod corpus;
    mod parse;
}
