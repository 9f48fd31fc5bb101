//! An ER diagram in words, for its SVG's `<desc>`, a mail's text and the plain-text surface:
//! its direction, its entities with their attributes (type, name, keys, comment), and each
//! relationship with its label and the cardinality at both ends.

use super::{Cardinality, ErDiagram};
use crate::html::i18n::Strings;

/// A cardinality in words.
pub fn cardinality(c: Cardinality, t: &Strings) -> &'static str {
    t.diagram_er_cards[match c {
        Cardinality::ZeroOrOne => 0,
        Cardinality::ExactlyOne => 1,
        Cardinality::ZeroOrMore => 2,
        Cardinality::OneOrMore => 3,
        Cardinality::Parent => 4,
    }]
}

/// An entity's name in words: its label quoted, with its name when an alias differs.
pub fn name(d: &ErDiagram, i: usize, t: &Strings) -> String {
    let n = &d.chart.nodes[i];
    let mut out = Strings::fill(t.diagram_quote, &n.label.replace('\n', " "));
    if n.label != n.id {
        out.push_str(" (");
        out.push_str(&n.id);
        out.push(')');
    }
    out
}

/// Relationship `k` in words: "“CUSTOMER” places zero or more “ORDER”, and exactly one
/// “CUSTOMER” for each “ORDER”".
pub fn relationship(d: &ErDiagram, k: usize, t: &Strings) -> String {
    let e = &d.chart.edges[k];
    let r = &d.relationships[k];
    let (a, b) = (name(d, e.from, t), name(d, e.to, t));
    let label = e
        .label
        .as_deref()
        .map_or_else(|| t.diagram_er[8].to_string(), |l| l.replace('\n', " "));
    let mut out = Strings::fill_all(
        t.diagram_er[5],
        &[&a, &label, cardinality(r.at_second, t), &b],
    );
    out.push_str(", ");
    out.push_str(&Strings::fill_all(
        t.diagram_er[6],
        &[cardinality(r.at_first, t), &a, &b],
    ));
    if !r.identifying {
        out.push_str(" (");
        out.push_str(t.diagram_er[7]);
        out.push(')');
    }
    out
}

/// The diagram in words.
pub fn describe(d: &ErDiagram, t: &Strings) -> String {
    let chart = &d.chart;
    let mut parts = vec![Strings::fill(
        t.diagram_er[0],
        t.diagram_directions[chart.direction as usize],
    )];
    let names: Vec<String> = (0..chart.nodes.len()).map(|i| name(d, i, t)).collect();
    if !names.is_empty() {
        parts.push(Strings::fill(t.diagram_er[1], &names.join("; ")));
    }
    for (i, e) in d.entities.iter().enumerate() {
        if e.attributes.is_empty() {
            continue;
        }
        let attrs: Vec<String> = e
            .attributes
            .iter()
            .map(|a| {
                let mut s = format!("{} {}", super::layout::type_text(&a.ty), a.name);
                if !a.keys.is_empty() {
                    s.push_str(&format!(" ({})", super::layout::keys_text(&a.keys)));
                }
                if !a.comment.is_empty() {
                    s.push_str(&format!(", {}", Strings::fill(t.diagram_quote, &a.comment)));
                }
                s
            })
            .collect();
        parts.push(Strings::fill_all(
            t.diagram_er[3],
            &[&names[i], &attrs.join("; ")],
        ));
    }
    let rels: Vec<String> = (0..chart.edges.len())
        .map(|k| relationship(d, k, t))
        .collect();
    if !rels.is_empty() {
        parts.push(Strings::fill(t.diagram_er[2], &rels.join("; ")));
    }
    parts.join(" ")
}
