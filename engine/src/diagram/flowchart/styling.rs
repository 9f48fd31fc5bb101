//! A flowchart's authors' colours: `style`, `classDef` (with `default`), `class`, `:::`,
//! `linkStyle` (by index, or `default`) and an `%%{init}%%`'s theme variables, collected as
//! the chart is read and resolved, once every node and edge is known, into one
//! [`Style`] per node and per edge.

use super::{Flowchart, Styles, Unsupported};
use crate::diagram::style::{self, Style, declarations};
use std::collections::HashMap;

#[derive(Default)]
pub(super) struct Styling {
    class_defs: HashMap<String, Style>,
    /// `(node id, class name)`, in source order.
    classes: Vec<(String, String)>,
    /// `style id …`, in source order.
    styles: Vec<(String, Style)>,
    /// `linkStyle`: the edge's index (`None` for `default`) and its style.
    links: Vec<(Option<usize>, Style)>,
    /// The theme's colours for every node and edge, under the rest.
    pub(super) theme_node: Style,
    pub(super) theme_edge: Style,
    /// What was not applied, for a warning each.
    pub(super) skipped: Vec<String>,
}

/// Most numbers one `linkStyle` names.
const MAX_LINK_INDICES: usize = 4096;

impl Styling {
    /// Reads a `style`, `classDef`, `class` or `linkStyle` statement (`first` is its keyword).
    pub(super) fn directive(
        &mut self,
        first: &str,
        stmt: &str,
        at: usize,
    ) -> Result<(), Unsupported> {
        let rest = stmt[first.len()..].trim_start();
        let (target, decls) = match rest.split_once(char::is_whitespace) {
            Some((t, d)) => (t, d.trim()),
            None => (rest, ""),
        };
        let err = |message: String| Unsupported {
            offset: at,
            message,
        };
        if target.is_empty() {
            return Err(err(format!(
                "`{first}` needs {}",
                match first {
                    "linkStyle" => "an edge's number (from 0) or `default`, then styles",
                    "class" => "node ids, then a class name",
                    _ => "a name, then styles such as fill:#f9f",
                }
            )));
        }
        match first {
            "style" => {
                let s = self.read(decls);
                self.styles.push((target.to_string(), s));
            }
            "classDef" => {
                let s = self.read(decls);
                for name in target.split(',').filter(|n| !n.is_empty()) {
                    self.class_defs
                        .entry(name.to_string())
                        .or_default()
                        .apply(&s);
                }
            }
            "class" => {
                let class = decls.split_whitespace().next().unwrap_or("");
                for id in target.split(',').filter(|n| !n.is_empty()) {
                    for c in class.split(',').filter(|c| !c.is_empty()) {
                        self.node_class(id, c);
                    }
                }
            }
            _ => {
                // `linkStyle 0,1 interpolate basis stroke:…`: the curve is not changed.
                let mut decls = decls;
                if let Some(r) = decls.strip_prefix("interpolate") {
                    let r = r.trim_start();
                    decls = r
                        .split_once(char::is_whitespace)
                        .map_or("", |(_, d)| d.trim());
                    self.skipped.push("`interpolate`".into());
                }
                let s = self.read(decls);
                if target == "default" {
                    self.links.push((None, s));
                } else {
                    let indices = target.split(',');
                    if indices.clone().count() > MAX_LINK_INDICES {
                        return Err(err(format!(
                            "`linkStyle` names more than {MAX_LINK_INDICES} edges"
                        )));
                    }
                    for i in indices {
                        let n: usize = i.parse().map_err(|_| {
                            err(format!(
                                "`linkStyle` takes edge numbers from 0 (or `default`), not {:?}",
                                super::statement::preview(i)
                            ))
                        })?;
                        self.links.push((Some(n), s.clone()));
                    }
                }
            }
        }
        Ok(())
    }

    /// `A:::name` or `class A name`.
    pub(super) fn node_class(&mut self, id: &str, class: &str) {
        self.classes.push((id.to_string(), class.to_string()));
    }

    fn read(&mut self, decls: &str) -> Style {
        let (s, skipped) = declarations(decls);
        for k in skipped {
            if !self.skipped.contains(&k) {
                self.skipped.push(k);
            }
        }
        s
    }

    /// Every node's and edge's style, with what was not applied as the chart's notes.
    pub(super) fn resolve(mut self, chart: &mut Flowchart) {
        let any_node = !self.theme_node.is_empty()
            || !self.styles.is_empty()
            || (!self.classes.is_empty() && !self.class_defs.is_empty())
            || self.class_defs.contains_key("default");
        if any_node {
            let index: HashMap<&str, usize> = chart
                .nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (n.id.as_str(), i))
                .collect();
            let base = {
                let mut b = self.theme_node.clone();
                if let Some(d) = self.class_defs.get("default") {
                    b.apply(d);
                }
                b
            };
            // A subgraph takes only the styles that name it, as in Mermaid: not `default`
            // nor the theme's node colours.
            let subgraphs: std::collections::HashSet<&str> = chart
                .subgraphs
                .iter()
                .filter_map(|s| s.id.as_deref())
                .collect();
            let mut nodes: Vec<Style> = chart
                .nodes
                .iter()
                .map(|n| {
                    if subgraphs.contains(n.id.as_str()) {
                        Style::default()
                    } else {
                        base.clone()
                    }
                })
                .collect();
            let mut unknown = Vec::new();
            for (id, class) in &self.classes {
                match (index.get(id.as_str()), self.class_defs.get(class)) {
                    (Some(&i), Some(s)) => nodes[i].apply(s),
                    (_, None) if !unknown.contains(class) => unknown.push(class.clone()),
                    _ => {}
                }
            }
            for (id, s) in &self.styles {
                if let Some(&i) = index.get(id.as_str()) {
                    nodes[i].apply(s);
                }
            }
            for c in unknown {
                chart.notes.push(format!(
                    "class `{}` has no `classDef`: its nodes keep the theme's colours",
                    super::statement::preview(&c)
                ));
            }
            chart.styles.nodes = nodes;
        }
        if !self.theme_edge.is_empty() || !self.links.is_empty() {
            let m = chart.edges.len();
            let mut edges = vec![self.theme_edge.clone(); m];
            let mut out_of_range = Vec::new();
            // `default` is under an edge's own style, wherever it is written.
            for (_, s) in self.links.iter().filter(|(i, _)| i.is_none()) {
                edges.iter_mut().for_each(|e| e.apply(s));
            }
            for (i, s) in &self.links {
                match i {
                    None => {}
                    Some(i) if *i < m => edges[*i].apply(s),
                    Some(i) => out_of_range.push(*i),
                }
            }
            if let Some(first) = out_of_range.first() {
                chart.notes.push(format!(
                    "`linkStyle {first}` names no edge: the diagram has {m} {} (numbered from 0)",
                    if m == 1 { "edge" } else { "edges" }
                ));
            }
            chart.styles.edges = edges;
        }
        if !self.skipped.is_empty() {
            let names = std::mem::take(&mut self.skipped).join(", ");
            chart.notes.push(format!(
                "the style {names} {} not drawn: only {} are",
                if names.contains(", ") { "are" } else { "is" },
                style::DRAWN
            ));
        }
    }
}

impl Styles {
    /// Node `i`'s style, when it has one.
    pub fn node(&self, i: usize) -> Option<&Style> {
        self.nodes.get(i).filter(|s| !s.is_empty())
    }

    /// Edge `i`'s style, when it has one.
    pub fn edge(&self, i: usize) -> Option<&Style> {
        self.edges.get(i).filter(|s| !s.is_empty())
    }
}
