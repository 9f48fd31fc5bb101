//! The ER diagrams of Mermaid's own documentation, demos and rendering tests, and of public
//! repositories (`fixtures/mermaid-er/`): how many are drawn, whether the engine reads the
//! same entities (with their aliases and attributes) and relationships (with their labels and
//! cardinalities) as mermaid.js's parser (`parse.json`), and the geometry of every drawing:
//! the flowchart corpus's check of the SVG (no two entities overlap, no relationship through
//! an entity it does not join, no label on an entity) and, from the layout, no overlapping
//! boxes.

use crate::diagram;
use crate::diagram::er::{Cardinality, ErDiagram, Key, layout, parse};
use crate::diagram::flowchart::layout::Drawing;
use crate::diagram::tests::corpus::{
    Corpus, assert_drawn_but_named, assert_geometry, assert_none_differ, assert_parts_marked,
    assert_rejects_say_where, draw_prefixes, frame, overlapping_boxes, read_or_say,
    same_as_mermaid, write_svgs,
};
use serde_json::Value;

const CORPUS: Corpus = Corpus::new("mermaid-er");

/// Diagrams mermaid.js reads that are not drawn, each with the reason.
const NOT_DRAWN: [(&str, &str); 0] = [];

/// The diagram read, its layout and its drawing; `None` when it is not read.
fn draw(src: &str) -> Option<(ErDiagram, Drawing, diagram::Rendered)> {
    let d = parse::parse(src)?.ok()?;
    let laid = layout::layout(&d).ok()?;
    let r = diagram::render_er(&d, &Ok(laid.clone()), &frame());
    Some((d, laid, r))
}

fn card_name(c: Cardinality) -> &'static str {
    match c {
        Cardinality::ZeroOrOne => "ZERO_OR_ONE",
        Cardinality::ExactlyOne => "ONLY_ONE",
        Cardinality::ZeroOrMore => "ZERO_OR_MORE",
        Cardinality::OneOrMore => "ONE_OR_MORE",
        Cardinality::Parent => "MD_PARENT",
    }
}

/// Our reading in the shape of `parse.json`'s.
fn ours(d: &ErDiagram) -> Value {
    let entities: Vec<Value> = d
        .chart
        .nodes
        .iter()
        .zip(&d.entities)
        .map(|(n, e)| {
            let mut v = serde_json::json!({
                "name": n.id,
                "attributes": e.attributes.iter().map(|a| serde_json::json!([
                    a.ty,
                    a.name,
                    a.keys.iter().map(|k| Key::as_str(*k)).collect::<Vec<_>>(),
                    a.comment,
                ])).collect::<Vec<_>>(),
            });
            if let Some(a) = &e.alias {
                v["alias"] = Value::String(a.clone());
            }
            v
        })
        .collect();
    let relationships: Vec<Value> = d
        .chart
        .edges
        .iter()
        .zip(&d.relationships)
        .map(|(e, r)| {
            serde_json::json!([
                d.chart.id_of(e.from),
                d.chart.id_of(e.to),
                e.label.clone().unwrap_or_default(),
                card_name(r.at_first),
                card_name(r.at_second),
                if r.identifying {
                    "IDENTIFYING"
                } else {
                    "NON_IDENTIFYING"
                },
            ])
        })
        .collect();
    serde_json::json!({ "entities": entities, "relationships": relationships })
}

#[test]
fn the_engine_reads_the_entities_and_relationships_mermaid_reads() {
    let reference = CORPUS.reference();
    let mut wrong = Vec::new();
    let mut compared = 0;
    for (name, src) in CORPUS.accepted() {
        let want = &reference["diagrams"][&name];
        let Some(d) = read_or_say(&mut wrong, &name, "an ER diagram", parse::parse(&src)) else {
            continue;
        };
        compared += 1;
        let got = ours(&d);
        // A blank label is no label: drawn as none.
        let mut want = want.clone();
        if let Some(rels) = want["relationships"].as_array_mut() {
            for r in rels {
                if r[2].as_str().is_some_and(|l| l.trim().is_empty()) {
                    r[2] = Value::String(String::new());
                }
            }
        }
        let want = &want;
        let names = |v: &Value| -> Vec<String> {
            v["entities"]
                .as_array()
                .map(|a| a.iter().map(|e| e["name"].to_string()).collect())
                .unwrap_or_default()
        };
        let pairs = |v: &Value| -> Vec<(String, String)> {
            v["relationships"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|r| (r[0].to_string(), r[1].to_string()))
                        .collect()
                })
                .unwrap_or_default()
        };
        if same_as_mermaid(&mut wrong, &name, "entities", &names(&got), &names(want))
            && same_as_mermaid(
                &mut wrong,
                &name,
                "relationships",
                &pairs(&got),
                &pairs(want),
            )
        {
            if got["entities"] != want["entities"] {
                wrong.push(format!(
                    "{name}: attributes or aliases: ours {}, mermaid's {}",
                    got["entities"], want["entities"]
                ));
            } else if got["relationships"] != want["relationships"] {
                wrong.push(format!(
                    "{name}: labels or cardinalities: ours {}, mermaid's {}",
                    got["relationships"], want["relationships"]
                ));
            }
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
fn no_two_entities_overlap() {
    let mut bad = Vec::new();
    for (name, src) in CORPUS.diagrams() {
        let Some((_, laid, _)) = draw(&src) else {
            continue;
        };
        if !overlapping_boxes(&laid).is_empty() {
            bad.push(name);
        }
    }
    assert!(bad.is_empty(), "{bad:?}");
}

#[test]
fn every_entity_is_a_data_node_and_every_relationship_a_data_edge() {
    for (name, src) in CORPUS.diagrams() {
        let Some((d, _, r)) = draw(&src) else {
            continue;
        };
        let ids = d.chart.nodes.iter().map(|n| n.id.as_str());
        assert_parts_marked(&name, &r.svg, ids, d.chart.edges.len());
    }
}

/// `CORPUS_SVG_DIR=DIR cargo test -p passback-engine --lib write_the_er_svgs -- --ignored`
/// writes every corpus diagram's SVG to DIR, to look at.
#[test]
#[ignore = "writes files; run by hand"]
fn write_the_er_svgs() {
    write_svgs(&CORPUS.diagrams(), |src| draw(src).map(|(_, _, r)| r.svg));
}

/// Prefixes of every corpus diagram are read and laid out without a panic.
#[test]
fn cut_diagrams_never_panic() {
    draw_prefixes(&CORPUS.diagrams(), 5, |src| {
        let _ = draw(src);
    });
}
