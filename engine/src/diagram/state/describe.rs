//! A state diagram in words, for its SVG's `<desc>`, a mail's text and the plain-text surface:
//! its direction, states (with what a start, end, choice, fork or join is), transitions with
//! their labels, composite states with what they hold, and notes.

use super::{Kind, StateDiagram};
use crate::html::i18n::Strings;

/// A state's name in words: its label quoted, with its id when that differs; a start or end
/// by what it is, with its id when it belongs to a composite.
pub fn name(d: &StateDiagram, i: usize, t: &Strings) -> String {
    let n = &d.chart.nodes[i];
    let quote = |s: &str| Strings::fill(t.diagram_quote, &s.replace('\n', " "));
    let [.., start, end, _, _, choice, fork, join] = t.diagram_state;
    let what = match d.kinds[i] {
        Kind::Start => Some(start),
        Kind::End => Some(end),
        _ => None,
    };
    if let Some(what) = what {
        return if n.id.starts_with("root_") {
            what.to_string()
        } else {
            format!("{what} ({})", n.id)
        };
    }
    let mut out = quote(&n.label);
    if n.label != n.id {
        out.push_str(&format!(" ({})", n.id));
    }
    let kind = match d.kinds[i] {
        Kind::Choice => Some(choice),
        Kind::Fork => Some(fork),
        Kind::Join => Some(join),
        _ => None,
    };
    if let Some(k) = kind {
        out.push_str(&format!(", {k}"));
    }
    out
}

/// The diagram in words.
pub fn describe(d: &StateDiagram, t: &Strings) -> String {
    let [intro, states, transitions, _, _, holds, ..] = t.diagram_state;
    let chart = &d.chart;
    let mut parts = vec![Strings::fill(
        intro,
        t.diagram_directions[chart.direction as usize],
    )];
    let named: Vec<String> = (0..chart.nodes.len())
        .filter(|&i| !matches!(d.kinds[i], Kind::Start | Kind::End | Kind::Composite))
        .map(|i| name(d, i, t))
        .collect();
    if !named.is_empty() {
        parts.push(Strings::fill(states, &named.join("; ")));
    }
    let arrows: Vec<String> = chart
        .edges
        .iter()
        .map(|e| {
            let mut a = Strings::fill(
                &Strings::fill(t.diagram_arrow, &name(d, e.from, t)),
                &name(d, e.to, t),
            );
            if let Some(l) = &e.label {
                a.push_str(", ");
                a.push_str(&Strings::fill(
                    t.diagram_labelled,
                    &Strings::fill(t.diagram_quote, &l.replace('\n', " ")),
                ));
            }
            a
        })
        .collect();
    if !arrows.is_empty() {
        parts.push(Strings::fill(transitions, &arrows.join("; ")));
    }
    for (s, sub) in chart.subgraphs.iter().enumerate() {
        let Some(id) = &sub.id else { continue };
        let Some(i) = chart.nodes.iter().position(|n| &n.id == id) else {
            continue;
        };
        // Its members, and those of its regions.
        let mut members: Vec<String> = Vec::new();
        for (r, region) in chart.subgraphs.iter().enumerate() {
            if r == s || (region.parent == Some(s) && d.regions[r].is_some()) {
                for m in &region.members {
                    if let Some(k) = chart.nodes.iter().position(|n| &n.id == m) {
                        members.push(name(d, k, t));
                    }
                }
                for (c, inner) in chart.subgraphs.iter().enumerate() {
                    if inner.parent == Some(r)
                        && d.regions[c].is_none()
                        && let Some(k) = inner
                            .id
                            .as_ref()
                            .and_then(|id| chart.nodes.iter().position(|n| &n.id == id))
                    {
                        members.push(name(d, k, t));
                    }
                }
            }
        }
        parts.push(Strings::fill(
            &Strings::fill(holds, &name(d, i, t)),
            &members.join("; "),
        ));
    }
    for note in &d.notes {
        parts.push(
            Strings::fill(
                &Strings::fill(t.diagram_sequence[3], &name(d, note.state, t)),
                &note.text.replace('\n', " "),
            ) + ".",
        );
    }
    parts.join(" ")
}
