//! The class diagrams of Mermaid's own documentation, demo and rendering tests
//! (`fixtures/mermaid-class/`): how many are drawn, whether the engine reads the same classes,
//! namespaces, notes, interfaces and relations (its node and edge sets, by Mermaid's ids), and
//! the same members, methods, annotations, labels and markers as mermaid.js's parser
//! (`parse.json`), and the geometry of every drawing: the flowchart corpus's check of the SVG
//! (no two boxes overlap, no relation through a box it does not join, no label on a box) and,
//! from the layout, no overlapping boxes.

use crate::diagram::class::{ClassDiagram, Classifier, Kind, layout, parse};
use crate::diagram::flowchart::layout::Drawing;
use crate::diagram::flowchart::tests::corpus::geometry_faults;
use crate::diagram::{self, svg::Frame};
use crate::html::i18n::EN;
use serde_json::{Value, json};
use std::path::Path;

/// Diagrams mermaid.js reads that are not drawn, each with the reason.
const NOT_DRAWN: [(&str, &str); 0] = [];

fn load(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/mermaid-class")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("JSON")
}

fn corpus() -> Vec<(String, String)> {
    load("corpus.json")
        .as_array()
        .expect("a list")
        .iter()
        .map(|d| {
            (
                d["name"].as_str().expect("name").to_string(),
                d["source"].as_str().expect("source").to_string(),
            )
        })
        .collect()
}

/// The diagrams mermaid.js reads (the corpus also keeps a few it rejects).
fn accepted() -> Vec<(String, String)> {
    let reference = load("parse.json");
    corpus()
        .into_iter()
        .filter(|(name, _)| reference["diagrams"][name].get("error").is_none())
        .collect()
}

fn frame() -> Frame<'static> {
    Frame {
        id: "d",
        title: "Diagram",
        t: &EN,
        inline_style: false,
    }
}

/// The diagram read, its layout and its drawing; `None` when it is not read.
fn draw(src: &str) -> Option<(ClassDiagram, Drawing, diagram::Rendered)> {
    let d = parse::parse(src)?.ok()?;
    let laid = layout::layout(&d).ok()?;
    let r = diagram::render_class(&d, &Ok(laid.clone()), &frame());
    Some((d, laid, r))
}

/// Mermaid's text as DOMPurify leaves it, read back: its entities decoded.
fn decoded(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(
            s.replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&")
                .replace("&quot;", "\""),
        ),
        Value::Array(a) => Value::Array(a.iter().map(decoded).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), decoded(v))).collect()),
        other => other.clone(),
    }
}

/// The node ids mermaid reads: classes, namespaces, notes and interfaces, sorted.
fn their_nodes(want: &Value) -> Vec<String> {
    let mut ids: Vec<String> = ["classes", "namespaces", "notes", "interfaces"]
        .iter()
        .flat_map(|k| want[k].as_array().cloned().unwrap_or_default())
        .map(|c| c["id"].as_str().unwrap_or("").to_string())
        .collect();
    ids.sort();
    ids
}

fn our_nodes(d: &ClassDiagram) -> Vec<String> {
    let mut ids: Vec<String> = d.chart.nodes.iter().map(|n| n.id.clone()).collect();
    ids.sort();
    ids
}

fn classifier(c: Classifier) -> &'static str {
    match c {
        Classifier::None => "",
        Classifier::Static => "$",
        Classifier::Abstract => "*",
    }
}

/// Our classes in the shape of `parse.json`'s.
fn our_classes(d: &ClassDiagram) -> Value {
    let mut out = Vec::new();
    for (i, n) in d.chart.nodes.iter().enumerate() {
        if d.kinds[i] != Kind::Class {
            continue;
        }
        let c = &d.classes[i];
        let members = |ms: &[crate::diagram::class::Member]| -> Vec<Value> {
            ms.iter()
                .map(|m| json!([m.text, classifier(m.classifier)]))
                .collect()
        };
        out.push(json!({
            "id": n.id,
            "annotations": c.annotations,
            "members": members(&c.members),
            "methods": members(&c.methods),
        }));
    }
    Value::Array(out)
}

fn their_classes(want: &Value) -> Value {
    Value::Array(
        want["classes"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|c| {
                json!({
                    "id": c["id"],
                    "annotations": decoded(&c["annotations"]),
                    "members": decoded(&c["members"]),
                    "methods": decoded(&c["methods"]),
                })
            })
            .collect(),
    )
}

#[test]
fn the_engine_reads_the_nodes_and_edges_mermaid_reads() {
    let reference = load("parse.json");
    let mut wrong = Vec::new();
    let mut compared = 0;
    for (name, src) in accepted() {
        let want = &reference["diagrams"][&name];
        let d = match parse::parse(&src) {
            Some(Ok(d)) => d,
            Some(Err(e)) => {
                wrong.push(format!("{name}: not read: {} at {}", e.message, e.offset));
                continue;
            }
            None => {
                wrong.push(format!("{name}: not a class diagram"));
                continue;
            }
        };
        compared += 1;
        if our_nodes(&d) != their_nodes(want) {
            wrong.push(format!(
                "{name}: nodes: ours {:?}, mermaid's {:?}",
                our_nodes(&d),
                their_nodes(want)
            ));
            continue;
        }
        let ours: Vec<(String, String)> = d
            .chart
            .edges
            .iter()
            .map(|e| {
                (
                    d.chart.id_of(e.from).to_string(),
                    d.chart.id_of(e.to).to_string(),
                )
            })
            .collect();
        let theirs: Vec<(String, String)> = want["relations"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|r| {
                (
                    r[0].as_str().unwrap_or("").to_string(),
                    r[1].as_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        if ours != theirs {
            wrong.push(format!(
                "{name}: edges: ours {ours:?}, mermaid's {theirs:?}"
            ));
            continue;
        }
        let rels: Vec<Value> = d
            .chart
            .edges
            .iter()
            .zip(&d.relations)
            .map(|(e, r)| {
                json!([
                    e.label.clone().unwrap_or_default().replace('\n', "<br>"),
                    r.cards[0],
                    r.cards[1],
                    r.ends[0].number(),
                    r.ends[1].number(),
                    i64::from(r.dashed),
                ])
            })
            .collect();
        let their_rels: Vec<Value> = want["relations"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|r| {
                let r = decoded(r);
                json!([
                    r[2].as_str().unwrap_or("").replace("\\n", "<br>"),
                    r[3],
                    r[4],
                    r[5],
                    r[6],
                    r[7]
                ])
            })
            .collect();
        if rels != their_rels {
            wrong.push(format!(
                "{name}: relations: ours {rels:?}, mermaid's {their_rels:?}"
            ));
        }
        if our_classes(&d) != their_classes(want) {
            wrong.push(format!(
                "{name}: classes: ours {}, mermaid's {}",
                our_classes(&d),
                their_classes(want)
            ));
        }
        let dir = match d.chart.direction {
            crate::diagram::flowchart::Direction::TopDown => "TB",
            crate::diagram::flowchart::Direction::BottomUp => "BT",
            crate::diagram::flowchart::Direction::LeftRight => "LR",
            crate::diagram::flowchart::Direction::RightLeft => "RL",
        };
        if want["direction"] != dir {
            wrong.push(format!(
                "{name}: direction {dir}, mermaid's {}",
                want["direction"]
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(compared >= 60, "only {compared} compared");
}

#[test]
fn at_least_97_percent_are_drawn_and_the_rest_are_named() {
    let all = accepted();
    assert!(all.len() >= 60, "{} diagrams", all.len());
    let mut not_drawn = Vec::new();
    for (name, src) in &all {
        if !draw(src).is_some_and(|(_, _, r)| r.drawn) {
            not_drawn.push(name.clone());
        }
    }
    let named: Vec<String> = NOT_DRAWN.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(not_drawn, named, "not drawn");
    assert!(
        (all.len() - not_drawn.len()) * 100 >= all.len() * 97,
        "{} of {} drawn",
        all.len() - not_drawn.len(),
        all.len()
    );
}

#[test]
fn diagrams_mermaid_rejects_are_not_drawn_and_say_where() {
    let reference = load("parse.json");
    let mut rejected = 0;
    for (name, src) in corpus() {
        if reference["diagrams"][&name].get("error").is_none() {
            continue;
        }
        rejected += 1;
        match parse::parse(&src) {
            Some(Err(e)) => assert!(e.offset <= src.len() && !e.message.is_empty(), "{name}"),
            other => panic!("{name}: read: {other:?}"),
        }
    }
    assert!(rejected > 0);
}

#[test]
fn every_drawn_diagram_passes_the_geometric_check() {
    let mut bad = Vec::new();
    for (name, src) in corpus() {
        let Some((_, _, r)) = draw(&src) else {
            continue;
        };
        let mut faults = geometry_faults(&r.svg);
        let out = crate::diagram::tests::books::outside(&r.svg);
        if !out.is_empty() {
            faults.push(format!(
                "lines leave the drawing at {:?}",
                &out[..out.len().min(2)]
            ));
        }
        if !faults.is_empty() {
            bad.push(format!("{name}: {}", faults.join("; ")));
        }
    }
    assert!(bad.is_empty(), "{}:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn no_two_boxes_overlap() {
    let mut bad = Vec::new();
    for (name, src) in corpus() {
        let Some((_, laid, _)) = draw(&src) else {
            continue;
        };
        let boxes: Vec<_> = laid.nodes.iter().flatten().map(|n| n.bounds).collect();
        for (k, a) in boxes.iter().enumerate() {
            for b in &boxes[k + 1..] {
                if a.left() + 0.5 < b.right()
                    && b.left() + 0.5 < a.right()
                    && a.top() + 0.5 < b.bottom()
                    && b.top() + 0.5 < a.bottom()
                {
                    bad.push(name.clone());
                }
            }
        }
    }
    assert!(bad.is_empty(), "{bad:?}");
}

#[test]
fn every_class_namespace_and_note_is_a_data_node_and_every_relation_a_data_edge() {
    for (name, src) in corpus() {
        let Some((d, _, r)) = draw(&src) else {
            continue;
        };
        for n in &d.chart.nodes {
            let mut attr = "data-node=\"".to_string();
            crate::html::escape_into(&n.id.replace('\'', "\u{1}"), &mut attr);
            let attr = attr.replace('\u{1}', "&#39;");
            let attr = attr + "\"";
            assert!(r.svg.contains(&attr), "{name}: {}", n.id);
        }
        let edges = r.svg.matches("data-edge=").count();
        assert_eq!(edges, d.chart.edges.len(), "{name}");
        assert!(
            r.svg.contains("<title") && r.svg.contains("<desc"),
            "{name}"
        );
        assert!(!r.svg.contains("<script") && !r.svg.contains("foreignObject"));
    }
}

/// `CORPUS_SVG_DIR=DIR cargo test -p passback-engine --lib write_the_class_svgs -- --ignored`
/// writes every corpus diagram's SVG to DIR, to look at.
#[test]
#[ignore = "writes files; run by hand"]
fn write_the_class_svgs() {
    let dir = std::env::var("CORPUS_SVG_DIR").expect("CORPUS_SVG_DIR");
    std::fs::create_dir_all(&dir).expect("a directory");
    for (name, src) in corpus() {
        if let Some((_, _, r)) = draw(&src) {
            std::fs::write(Path::new(&dir).join(format!("{name}.svg")), r.svg).expect("written");
        }
    }
}

/// Prefixes of every corpus diagram are read and laid out without a panic.
#[test]
fn cut_diagrams_never_panic() {
    for (_, src) in corpus() {
        for cut in (0..=src.len()).step_by(7) {
            if src.is_char_boundary(cut) {
                let _ = draw(&src[..cut]);
            }
        }
    }
}
