//! The class diagrams of Mermaid's own documentation, demo and rendering tests
//! (`fixtures/mermaid-class/`): how many are drawn, whether the engine reads the same classes,
//! namespaces, notes, interfaces and relations (its node and edge sets, by Mermaid's ids), and
//! the same members, methods, annotations, labels and markers as mermaid.js's parser
//! (`parse.json`), and the geometry of every drawing: the flowchart corpus's check of the SVG
//! (no two boxes overlap, no relation through a box it does not join, no label on a box) and,
//! from the layout, no overlapping boxes.

use crate::diagram;
use crate::diagram::class::{ClassDiagram, Classifier, Kind, layout, parse};
use crate::diagram::flowchart::layout::Drawing;
use crate::diagram::tests::corpus::{
    Corpus, assert_drawn_but_named, assert_geometry, assert_none_differ, assert_parts_marked,
    assert_rejects_say_where, draw_prefixes, frame, overlapping_boxes, read_or_say,
    same_as_mermaid, write_svgs,
};
use serde_json::{Value, json};

const CORPUS: Corpus = Corpus::new("mermaid-class");

/// Diagrams mermaid.js reads that are not drawn, each with the reason.
const NOT_DRAWN: [(&str, &str); 0] = [];

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
    let reference = CORPUS.reference();
    let mut wrong = Vec::new();
    let mut compared = 0;
    for (name, src) in CORPUS.accepted() {
        let want = &reference["diagrams"][&name];
        let Some(d) = read_or_say(&mut wrong, &name, "a class diagram", parse::parse(&src)) else {
            continue;
        };
        compared += 1;
        if !same_as_mermaid(
            &mut wrong,
            &name,
            "nodes",
            &our_nodes(&d),
            &their_nodes(want),
        ) {
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
        if !same_as_mermaid(&mut wrong, &name, "edges", &ours, &theirs) {
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
        same_as_mermaid(&mut wrong, &name, "relations", &rels, &their_rels);
        same_as_mermaid(
            &mut wrong,
            &name,
            "classes",
            &our_classes(&d),
            &their_classes(want),
        );
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
    assert_none_differ(&wrong);
    assert!(compared >= 60, "only {compared} compared");
}

#[test]
fn at_least_97_percent_are_drawn_and_the_rest_are_named() {
    let all = CORPUS.accepted();
    assert!(all.len() >= 60, "{} diagrams", all.len());
    assert_drawn_but_named(&all, &NOT_DRAWN, |src| {
        draw(src).is_some_and(|(_, _, r)| r.drawn)
    });
}

#[test]
fn diagrams_mermaid_rejects_are_not_drawn_and_say_where() {
    assert_rejects_say_where(&CORPUS, parse::parse);
}

#[test]
fn every_drawn_diagram_passes_the_geometric_check() {
    assert_geometry(&CORPUS.diagrams(), |src| draw(src).map(|(_, _, r)| r.svg));
}

#[test]
fn no_two_boxes_overlap() {
    let mut bad = Vec::new();
    for (name, src) in CORPUS.diagrams() {
        let Some((_, laid, _)) = draw(&src) else {
            continue;
        };
        for _ in overlapping_boxes(&laid) {
            bad.push(name.clone());
        }
    }
    assert!(bad.is_empty(), "{bad:?}");
}

#[test]
fn every_class_namespace_and_note_is_a_data_node_and_every_relation_a_data_edge() {
    for (name, src) in CORPUS.diagrams() {
        let Some((d, _, r)) = draw(&src) else {
            continue;
        };
        let ids = d.chart.nodes.iter().map(|n| n.id.as_str());
        assert_parts_marked(&name, &r.svg, ids, d.chart.edges.len());
    }
}

/// `CORPUS_SVG_DIR=DIR cargo test -p passback-engine --lib write_the_class_svgs -- --ignored`
/// writes every corpus diagram's SVG to DIR, to look at.
#[test]
#[ignore = "writes files; run by hand"]
fn write_the_class_svgs() {
    write_svgs(&CORPUS.diagrams(), |src| draw(src).map(|(_, _, r)| r.svg));
}

/// Prefixes of every corpus diagram are read and laid out without a panic.
#[test]
fn cut_diagrams_never_panic() {
    draw_prefixes(&CORPUS.diagrams(), 7, |src| {
        let _ = draw(src);
    });
}
