//! The flowchart in words: the description written in one string is the one filled and joined
//! part by part.

use crate::diagram::flowchart::Flowchart;
use crate::diagram::flowchart::describe::describe;
use crate::diagram::line::{Marker, Stroke};
use crate::html::i18n::Strings;

/// `describe` as it was written before: filled templates and joined parts.
fn describe_joined(chart: &Flowchart, t: &Strings) -> String {
    let quote = |s: &str| Strings::fill(t.diagram_quote, &s.replace('\n', " "));
    let dir = t.diagram_directions[chart.direction as usize];
    let mut out = Strings::fill(t.diagram_flowchart, dir);
    let node_name = |id: &str| {
        let label = chart.label_of(id);
        if label == id {
            quote(label)
        } else {
            format!("{} ({id})", quote(label))
        }
    };
    let boxes: Vec<String> = chart
        .nodes
        .iter()
        .filter(|n| chart.subgraph_named(&n.id).is_none())
        .map(|n| node_name(&n.id))
        .collect();
    if !boxes.is_empty() {
        out.push(' ');
        out.push_str(&Strings::fill(t.diagram_boxes, &boxes.join("; ")));
    }
    let arrows: Vec<String> = chart
        .edges
        .iter()
        .map(|e| {
            let mut s = Strings::fill(
                &Strings::fill(t.diagram_arrow, &quote(&chart.nodes[e.from].label)),
                &quote(&chart.nodes[e.to].label),
            );
            let mut notes: Vec<String> = Vec::new();
            if let Some(l) = &e.label {
                notes.push(Strings::fill(t.diagram_labelled, &quote(l)));
            }
            match e.stroke {
                Stroke::Dotted => notes.push(t.diagram_edge_kinds[0].into()),
                Stroke::Thick => notes.push(t.diagram_edge_kinds[1].into()),
                Stroke::Invisible => notes.push(t.diagram_edge_kinds[2].into()),
                Stroke::Solid => {}
            }
            if e.stroke != Stroke::Invisible {
                match (e.start, e.end) {
                    (Marker::None, Marker::None) => notes.push(t.diagram_edge_kinds[3].into()),
                    (Marker::Arrow, Marker::Arrow) => notes.push(t.diagram_edge_kinds[4].into()),
                    _ => {}
                }
            }
            if !notes.is_empty() {
                s.push_str(", ");
                s.push_str(&notes.join(", "));
            }
            s
        })
        .collect();
    if !arrows.is_empty() {
        out.push(' ');
        out.push_str(&Strings::fill(t.diagram_arrows, &arrows.join("; ")));
    }
    for (s, sub) in chart.subgraphs.iter().enumerate() {
        let mut inside: Vec<String> = sub.members.iter().map(|m| node_name(m)).collect();
        inside.extend(
            chart
                .subgraphs
                .iter()
                .filter(|c| c.parent == Some(s))
                .map(|c| quote(&c.title)),
        );
        out.push(' ');
        out.push_str(&Strings::fill(
            &Strings::fill(t.diagram_group, &quote(&sub.title)),
            &inside.join(", "),
        ));
    }
    out
}

#[test]
fn the_description_is_the_filled_and_joined_one() {
    let sources = [
        "graph TD; A[Paste] --> B[Review] --> C[Copy back]; B -->|edit| A;",
        "graph LR\nA --> B\nA -.-> C\nA ==> D\nA ~~~ E\nA --- F\nA <--> G\nA --o H\nA --x I",
        "flowchart TB\nx --> a\nsubgraph S [Group]\na[One] --> b{Two}\nsubgraph T [Inner]\nc\nend\nend\ny --> S",
        "flowchart TB\nsubgraph S [Empty]\nsubgraph T [Inner]\nc\nend\nend",
        "graph TD\nA[\"{}\"] -->|\"{} and {\"| B[\"}{\"]\nB --> C[\"a<br>b\"]\nC --> A",
        "graph TD\nA[\"x{\"] --> B[\"}y\"]\nB[\"}y\"] --> A",
        "graph TD",
    ];
    for source in sources {
        let chart = crate::diagram::flowchart::parse::parse(source)
            .expect("a flowchart")
            .expect("readable");
        for t in [
            &crate::html::i18n::EN,
            &crate::html::i18n::HE,
            &crate::html::i18n::AR,
        ] {
            assert_eq!(describe(&chart, t), describe_joined(&chart, t), "{source}");
        }
    }
}
