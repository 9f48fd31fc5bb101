//! A flowchart in words, for its SVG's `<desc>`, a mail's text and the plain-text surface: its
//! direction, boxes, arrows with their labels and kinds, and groups.

use super::Flowchart;
use crate::diagram::line::{Marker, Stroke};
use crate::diagram::svg::{fill_from, fill_into};
use crate::html::i18n::Strings;

/// The flowchart in words, for `<desc>`: written into one string, as filling the templates
/// and joining the parts would make it.
pub fn describe(chart: &Flowchart, t: &Strings) -> String {
    // `Strings::fill(t.diagram_quote, …)` of the text with its line breaks as spaces: the
    // template split once, for the dozens of quotes.
    let quote_parts = Strings::split(t.diagram_quote);
    let quote = |out: &mut String, s: &str| {
        let Some((open, close)) = quote_parts else {
            out.push_str(t.diagram_quote);
            return;
        };
        out.push_str(open);
        // Most labels are one line, copied whole.
        if !s.as_bytes().contains(&b'\n') {
            out.push_str(s);
        } else {
            for (k, part) in s.split('\n').enumerate() {
                if k > 0 {
                    out.push(' ');
                }
                out.push_str(part);
            }
        }
        out.push_str(close);
    };
    // A node's label, and its id when that differs.
    let node_name = |out: &mut String, id: &str, label: &str| {
        quote(out, label);
        if label != id {
            out.push_str(" (");
            out.push_str(id);
            out.push(')');
        }
    };
    // Room for the templates around every label and id, most of them twice: written without
    // growing.
    let text: usize = chart
        .nodes
        .iter()
        .map(|n| n.id.len() + n.label.len())
        .chain(
            chart
                .edges
                .iter()
                .filter_map(|e| e.label.as_ref().map(String::len)),
        )
        .chain(chart.subgraphs.iter().map(|s| s.title.len()))
        .sum();
    let mut out =
        String::with_capacity(128 + 2 * text + 48 * (chart.nodes.len() + chart.edges.len()));
    let dir = t.diagram_directions[chart.direction as usize];
    fill_into(&mut out, t.diagram_flowchart, |out| out.push_str(dir));
    let mut boxes = chart
        .nodes
        .iter()
        .filter(|n| chart.subgraph_named(&n.id).is_none())
        .peekable();
    if boxes.peek().is_some() {
        out.push(' ');
        fill_into(&mut out, t.diagram_boxes, |out| {
            for (k, n) in boxes.enumerate() {
                if k > 0 {
                    out.push_str("; ");
                }
                node_name(out, &n.id, &n.label);
            }
        });
    }
    // The arrow template split at both its slots, once.
    let arrow_slots = Strings::split(t.diagram_arrow)
        .and_then(|(before, rest)| Some((before, Strings::split(rest)?)));
    // `Strings::fill(&Strings::fill(t.diagram_arrow, …), …)` of two quoted labels; `second`
    // is room for the second where the filled text has to be searched again.
    let arrow = |out: &mut String, second: &mut String, from: &str, to: &str| {
        let start = out.len();
        if let Some((before, (between, after))) = arrow_slots {
            out.push_str(before);
            quote(out, from);
            // A non-empty first value without braces makes no `{}` with its neighbours: the
            // second value takes the template's second slot.
            let first = &out.as_bytes()[start + before.len()..];
            if !first.is_empty() && !first.iter().any(|&b| b == b'{' || b == b'}') {
                out.push_str(between);
                quote(out, to);
                out.push_str(after);
                return;
            }
            out.truncate(start);
        }
        fill_into(out, t.diagram_arrow, |out| quote(out, from));
        second.clear();
        quote(second, to);
        fill_from(out, start, second);
    };
    // The second value of a two-slot template, written here first.
    // (Made only when needed: arrows rarely need it.)
    let mut second = String::new();
    if !chart.edges.is_empty() {
        out.push(' ');
        fill_into(&mut out, t.diagram_arrows, |out| {
            for (k, e) in chart.edges.iter().enumerate() {
                if k > 0 {
                    out.push_str("; ");
                }
                let (from, to) = (&chart.nodes[e.from].label, &chart.nodes[e.to].label);
                arrow(out, &mut second, from, to);
                // Each note after ", ".
                if let Some(l) = &e.label {
                    out.push_str(", ");
                    fill_into(out, t.diagram_labelled, |out| quote(out, l));
                }
                let kind = match e.stroke {
                    Stroke::Dotted => Some(0),
                    Stroke::Thick => Some(1),
                    Stroke::Invisible => Some(2),
                    Stroke::Solid => None,
                };
                let ends = match (e.start, e.end) {
                    _ if e.stroke == Stroke::Invisible => None,
                    (Marker::None, Marker::None) => Some(3),
                    (Marker::Arrow, Marker::Arrow) => Some(4),
                    _ => None,
                };
                for k in kind.into_iter().chain(ends) {
                    out.push_str(", ");
                    out.push_str(t.diagram_edge_kinds[k]);
                }
            }
        });
    }
    for (s, sub) in chart.subgraphs.iter().enumerate() {
        out.push(' ');
        let start = out.len();
        fill_into(&mut out, t.diagram_group, |out| quote(out, &sub.title));
        second.clear();
        // The members, then the titles of the subgraphs right inside, joined by ", ".
        let children = chart.subgraphs.iter().filter(|c| c.parent == Some(s));
        let mut parts = 0;
        for m in &sub.members {
            if parts > 0 {
                second.push_str(", ");
            }
            node_name(&mut second, m, chart.label_of(m));
            parts += 1;
        }
        for c in children {
            if parts > 0 {
                second.push_str(", ");
            }
            quote(&mut second, &c.title);
            parts += 1;
        }
        fill_from(&mut out, start, &second);
    }
    out
}
