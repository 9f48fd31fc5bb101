//! A state diagram's statements into its model: states in order of first mention, each in
//! the scope it is first mentioned in; a `[*]` named after its scope (`root_start`,
//! `Parent_end`); a composite's `--` regions each a subgraph named `{composite}/{k}`.

use super::{Kind, Note, Side, StateDiagram};
use crate::diagram::flowchart::{Direction, Edge, Node, Subgraph};
use crate::diagram::line::{Marker, Stroke};
use crate::diagram::shapes::Shape;
use std::collections::HashMap;

/// One end of a transition: `[*]`, or a state's id.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum End {
    Star,
    Id(String),
}

/// A statement of a state diagram.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Stmt {
    /// A state named, described (`X : text`, `state "text" as X`), of a kind
    /// (`<<choice>>`, …), or holding others (`state X { … }`).
    State {
        id: String,
        kind: Kind,
        descriptions: Vec<String>,
        doc: Option<Vec<Stmt>>,
    },
    Transition {
        from: End,
        to: End,
        label: Option<String>,
    },
    Note {
        id: String,
        side: Side,
        text: String,
    },
    /// `--`: the end of a concurrency region.
    Divider,
    Direction(Direction),
}

/// The model being built from the statements.
#[derive(Default)]
pub(super) struct Builder {
    d: StateDiagram,
    index: HashMap<String, usize>,
    descriptions: Vec<Vec<String>>,
    /// Per node: the subgraph it was first mentioned in.
    home: Vec<Option<usize>>,
}

impl Builder {
    /// The node with `id`, added (in `scope`) when new; a kind other than a plain state is kept.
    fn node(&mut self, id: &str, kind: Kind, scope: Option<usize>) -> usize {
        if let Some(&i) = self.index.get(id) {
            if kind != Kind::State && self.d.kinds[i] == Kind::State {
                self.d.kinds[i] = kind;
            }
            return i;
        }
        let i = self.d.chart.nodes.len();
        self.d.chart.nodes.push(Node {
            id: id.to_string(),
            label: id.to_string(),
            shape: Shape::Round,
            emphasis: Vec::new(),
        });
        self.d.kinds.push(kind);
        self.descriptions.push(Vec::new());
        self.home.push(scope);
        self.index.insert(id.to_string(), i);
        i
    }

    /// The statements of one document: the root (`scope` `None`, named `root`), a composite
    /// or a region.
    pub(super) fn doc(&mut self, doc: &[Stmt], name: &str, scope: Option<usize>) {
        // A composite's `--` lines split it into regions, each a subgraph of its own, the k-th
        // named `{composite}/{k}` (contract §3.1: Mermaid's own region ids are a counter and,
        // for the last region, a random one).
        if doc.iter().any(|s| matches!(s, Stmt::Divider)) && scope.is_some() {
            let mut part: Vec<Stmt> = Vec::new();
            let mut k = 0;
            let region = |b: &mut Builder, part: &[Stmt], id: String| {
                let s = b.d.chart.subgraphs.len();
                b.d.chart.subgraphs.push(Subgraph {
                    id: None,
                    title: String::new(),
                    title_emphasis: Vec::new(),
                    parent: scope,
                    direction: None,
                    members: Vec::new(),
                });
                b.d.regions.push(Some(id.clone()));
                b.doc(part, &id, Some(s));
            };
            for stmt in doc {
                match stmt {
                    Stmt::Divider => {
                        k += 1;
                        region(self, &part, format!("{name}/{k}"));
                        part.clear();
                    }
                    other => part.push(other.clone()),
                }
            }
            if !part.is_empty() {
                region(self, &part, format!("{name}/{}", k + 1));
            }
            return;
        }
        for stmt in doc {
            match stmt {
                Stmt::State {
                    id,
                    kind,
                    descriptions,
                    doc,
                } => {
                    let i = self.node(id, *kind, scope);
                    self.descriptions[i].extend(descriptions.iter().cloned());
                    if let Some(inner) = doc {
                        self.d.kinds[i] = Kind::Composite;
                        let s = match self.d.chart.subgraph_named(id) {
                            Some(s) => s,
                            None => {
                                self.d.chart.subgraphs.push(Subgraph {
                                    id: Some(id.clone()),
                                    title: id.clone(),
                                    title_emphasis: Vec::new(),
                                    parent: scope,
                                    direction: None,
                                    members: Vec::new(),
                                });
                                self.d.regions.push(None);
                                self.d.chart.subgraphs.len() - 1
                            }
                        };
                        self.doc(inner, id, Some(s));
                    }
                }
                Stmt::Transition { from, to, label } => {
                    let end_node = |e: &End, start: bool, b: &mut Builder| match e {
                        End::Star if start => b.node(&format!("{name}_start"), Kind::Start, scope),
                        End::Star => b.node(&format!("{name}_end"), Kind::End, scope),
                        End::Id(id) => b.node(id, Kind::State, scope),
                    };
                    let a = end_node(from, true, self);
                    let b = end_node(to, false, self);
                    self.d.chart.edges.push(Edge {
                        from: a,
                        to: b,
                        label: label.clone(),
                        label_emphasis: Vec::new(),
                        stroke: Stroke::Solid,
                        start: Marker::None,
                        end: Marker::Arrow,
                        length: 1,
                    });
                }
                Stmt::Note { id, side, text } => {
                    let state = self.node(id, Kind::State, scope);
                    if self.d.notes.len() < super::MAX_NOTES {
                        self.d.notes.push(Note {
                            state,
                            side: *side,
                            text: text.clone(),
                        });
                    }
                }
                Stmt::Direction(dir) => match scope {
                    Some(s) => self.d.chart.subgraphs[s].direction = Some(*dir),
                    None => self.d.chart.direction = *dir,
                },
                Stmt::Divider => {}
            }
        }
    }

    pub(super) fn finish(mut self) -> StateDiagram {
        let chart = &mut self.d.chart;
        for (i, n) in chart.nodes.iter_mut().enumerate() {
            let d = &self.descriptions[i];
            match self.d.kinds[i] {
                Kind::Composite => {
                    if let Some(first) = d.first() {
                        n.label = first.clone();
                    }
                }
                _ if d.is_empty() => {}
                // One description is the state's label; with more, Mermaid shows the first
                // as its title above the others.
                _ => n.label = d.join("\n"),
            }
            n.shape = match self.d.kinds[i] {
                Kind::State | Kind::Composite => Shape::Round,
                Kind::Start => Shape::FilledCircle,
                Kind::End => Shape::FramedCircle,
                Kind::Choice => Shape::Rhombus,
                Kind::Fork | Kind::Join => Shape::Fork,
            };
        }
        for (i, n) in chart.nodes.iter().enumerate() {
            if self.d.kinds[i] == Kind::Composite {
                if let Some(s) = chart.subgraph_named(&n.id) {
                    chart.subgraphs[s].title = n.label.clone();
                }
                continue;
            }
            if let Some(s) = self.home[i] {
                chart.subgraphs[s].members.push(n.id.clone());
            }
        }
        // A composite's id names its subgraph; one mentioned before its `{` is not a member
        // of the scope it was first mentioned in: its subgraph's parent places it.
        self.d
    }
}
