//! A sequence diagram in words, for its SVG's `<desc>`, a mail's text and the plain-text
//! surface.

use super::{Event, Frame as Kind, Line, Sequence};
use crate::diagram::svg::{fill_from, fill_into};
use crate::html::i18n::Strings;

/// The diagram in words, for `<desc>`: who is in it, then every message, note and frame in
/// order.
pub fn describe(seq: &Sequence, t: &Strings) -> String {
    let [intro, who, order, note, begins, ends, _] = t.diagram_sequence;
    let quote = |out: &mut String, s: &str| {
        fill_into(out, t.diagram_quote, |out| {
            for (k, part) in s.split('\n').enumerate() {
                if k > 0 {
                    out.push(' ');
                }
                out.push_str(part);
            }
        });
    };
    let name = |out: &mut String, i: usize| {
        let p = &seq.participants[i];
        quote(out, &p.label);
        if p.label != p.id {
            out.push_str(" (");
            out.push_str(&p.id);
            out.push(')');
        }
    };
    let mut out = String::with_capacity(256 + 96 * seq.events.len());
    out.push_str(intro);
    if !seq.participants.is_empty() {
        out.push(' ');
        fill_into(&mut out, who, |out| {
            for i in 0..seq.participants.len() {
                if i > 0 {
                    out.push_str("; ");
                }
                name(out, i);
            }
        });
    }
    let mut second = String::new();
    let mut open: Vec<Kind> = Vec::new();
    let items: Vec<&Event> = seq
        .events
        .iter()
        .filter(|e| !matches!(e, Event::Activate(_) | Event::Deactivate(_)))
        .collect();
    if !items.is_empty() {
        out.push(' ');
        fill_into(&mut out, order, |out| {
            for (k, e) in items.iter().enumerate() {
                if k > 0 {
                    out.push_str("; ");
                }
                match e {
                    Event::Message(m) => {
                        if let Some(n) = &m.number {
                            out.push_str(n);
                            out.push_str(". ");
                        }
                        let start = out.len();
                        fill_into(out, t.diagram_arrow, |out| {
                            quote(out, &seq.participants[m.from].label)
                        });
                        second.clear();
                        quote(&mut second, &seq.participants[m.to].label);
                        fill_from(out, start, &second);
                        if !m.text.is_empty() {
                            out.push_str(", ");
                            fill_into(out, t.diagram_labelled, |out| quote(out, &m.text));
                        }
                        if m.line == Line::Dotted {
                            out.push_str(", ");
                            out.push_str(t.diagram_edge_kinds[0]);
                        }
                        if m.both {
                            out.push_str(", ");
                            out.push_str(t.diagram_edge_kinds[4]);
                        }
                    }
                    Event::Note { of, text, .. } => {
                        let start = out.len();
                        fill_into(out, note, |out| {
                            quote(out, &seq.participants[of.0].label);
                            if let Some(b) = of.1 {
                                out.push_str(", ");
                                quote(out, &seq.participants[b].label);
                            }
                        });
                        second.clear();
                        quote(&mut second, text);
                        fill_from(out, start, &second);
                    }
                    Event::Start(kind, label, _) => {
                        open.push(*kind);
                        fill_into(out, begins, |out| {
                            out.push_str(kind.name());
                            if !label.is_empty() {
                                out.push(' ');
                                quote(out, label);
                            }
                        });
                    }
                    Event::Divide(label) => {
                        let word = match open.last() {
                            Some(Kind::Par) => "and",
                            Some(Kind::Critical) => "option",
                            _ => "else",
                        };
                        out.push_str(word);
                        if !label.is_empty() {
                            out.push(' ');
                            quote(out, label);
                        }
                    }
                    Event::End => {
                        let kind = open.pop().map_or("", Kind::name);
                        fill_into(out, ends, |out| out.push_str(kind));
                    }
                    Event::Activate(_) | Event::Deactivate(_) => {}
                }
            }
        });
    }
    for g in &seq.groups {
        if g.members.is_empty() {
            continue;
        }
        out.push(' ');
        let start = out.len();
        fill_into(&mut out, t.diagram_group, |out| quote(out, &g.title));
        second.clear();
        for (k, &i) in g.members.iter().enumerate() {
            if k > 0 {
                second.push_str(", ");
            }
            name(&mut second, i);
        }
        fill_from(&mut out, start, &second);
    }
    out
}
