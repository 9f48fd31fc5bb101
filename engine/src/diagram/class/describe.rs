//! A class diagram in words, for its SVG's `<desc>`, a mail's text and the plain-text
//! surface: its direction, its classes with their annotations, members and methods, each
//! relation with its markers, cardinalities and label, its namespaces and its notes.

use super::{ClassDiagram, Classifier, End, Kind};
use crate::html::i18n::Strings;

/// Node `i`'s name in words: its label quoted, with its id when they differ.
pub fn name(d: &ClassDiagram, i: usize, t: &Strings) -> String {
    let n = &d.chart.nodes[i];
    let mut out = Strings::fill(t.diagram_quote, &n.label.replace('\n', " "));
    if n.label != n.id && d.kinds[i] != Kind::Note {
        out.push_str(" (");
        out.push_str(&n.id);
        out.push(')');
    }
    out
}

fn marker(e: End, t: &Strings) -> Option<&'static str> {
    Some(
        t.diagram_class_markers[match e {
            End::None => return None,
            End::Aggregation => 0,
            End::Extension => 1,
            End::Composition => 2,
            End::Dependency => 3,
            End::Lollipop => 4,
        }],
    )
}

/// Relation `k` in words: "“Animal” to “Duck”, solid line, inheritance triangle at “Animal”,
/// “1” at “Duck”, “label”".
pub fn relation(d: &ClassDiagram, k: usize, t: &Strings) -> String {
    let e = &d.chart.edges[k];
    let r = &d.relations[k];
    let names = [name(d, e.from, t), name(d, e.to, t)];
    let line = if r.dashed {
        t.diagram_class[10]
    } else {
        t.diagram_class[11]
    };
    let mut out = Strings::fill_all(t.diagram_class[5], &[&names[0], &names[1], line]);
    for ((end, card), name) in r.ends.iter().zip(&r.cards).zip(&names) {
        if let Some(m) = marker(*end, t) {
            out.push_str(", ");
            out.push_str(&Strings::fill_all(t.diagram_class[6], &[m, name]));
        }
        if !card.is_empty() {
            out.push_str(", ");
            let card = Strings::fill(t.diagram_quote, card);
            out.push_str(&Strings::fill_all(t.diagram_class[6], &[&card, name]));
        }
    }
    if let Some(l) = &e.label {
        out.push_str(", ");
        out.push_str(&Strings::fill(t.diagram_quote, &l.replace('\n', " ")));
    }
    out
}

/// The diagram in words.
pub fn describe(d: &ClassDiagram, t: &Strings) -> String {
    let chart = &d.chart;
    let mut parts = vec![Strings::fill(
        t.diagram_class[0],
        t.diagram_directions[chart.direction as usize],
    )];
    let of = |kind: Kind| (0..chart.nodes.len()).filter(move |&i| d.kinds[i] == kind);
    let classes: Vec<String> = of(Kind::Class)
        .chain(of(Kind::Interface))
        .map(|i| name(d, i, t))
        .collect();
    if !classes.is_empty() {
        parts.push(Strings::fill(t.diagram_class[1], &classes.join("; ")));
    }
    for i in of(Kind::Class) {
        let c = &d.classes[i];
        let mut items: Vec<String> = c.annotations.iter().map(|a| format!("«{a}»")).collect();
        for m in c.members.iter().chain(&c.methods) {
            let mut s = m.text.clone();
            match m.classifier {
                Classifier::Static => s.push_str(&format!(" ({})", t.diagram_class[12])),
                Classifier::Abstract => s.push_str(&format!(" ({})", t.diagram_class[13])),
                Classifier::None => {}
            }
            items.push(s);
        }
        if !items.is_empty() {
            parts.push(Strings::fill_all(
                t.diagram_class[3],
                &[&name(d, i, t), &items.join("; ")],
            ));
        }
    }
    let rels: Vec<String> = (0..chart.edges.len()).map(|k| relation(d, k, t)).collect();
    if !rels.is_empty() {
        parts.push(Strings::fill(t.diagram_class[2], &rels.join("; ")));
    }
    for (s, sub) in chart.subgraphs.iter().enumerate() {
        let mut held: Vec<String> = sub
            .members
            .iter()
            .filter_map(|m| chart.nodes.iter().position(|n| &n.id == m))
            .map(|i| name(d, i, t))
            .collect();
        held.extend(
            chart
                .subgraphs
                .iter()
                .filter(|c| c.parent == Some(s))
                .map(|c| Strings::fill(t.diagram_quote, &c.title)),
        );
        if !held.is_empty() {
            let ns = Strings::fill(t.diagram_quote, &sub.title);
            parts.push(Strings::fill_all(
                t.diagram_class[8],
                &[&ns, &held.join("; ")],
            ));
        }
    }
    let notes: Vec<String> = d
        .note_on
        .iter()
        .map(|&(n, on)| {
            let text = Strings::fill(t.diagram_quote, &chart.nodes[n].label.replace('\n', " "));
            match on {
                Some(c) => format!(
                    "{text} ({})",
                    Strings::fill(t.diagram_class[9], &name(d, c, t))
                ),
                None => text,
            }
        })
        .collect();
    if !notes.is_empty() {
        parts.push(Strings::fill(t.diagram_class[7], &notes.join("; ")));
    }
    parts.join(" ")
}
