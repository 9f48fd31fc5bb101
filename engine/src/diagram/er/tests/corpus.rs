//! The ER diagrams of Mermaid's own documentation, demos and rendering tests, and of public
//! repositories (`fixtures/mermaid-er/`): how many are drawn, whether the engine reads the
//! same entities (with their aliases and attributes) and relationships (with their labels and
//! cardinalities) as mermaid.js's parser (`parse.json`), and the geometry of every drawing:
//! the flowchart corpus's check of the SVG (no two entities overlap, no relationship through
//! an entity it does not join, no label on an entity) and, from the layout, no overlapping
//! boxes.

use crate::diagram::er::{Cardinality, ErDiagram, Key, layout, parse};
use crate::diagram::flowchart::layout::Drawing;
use crate::diagram::flowchart::tests::corpus::geometry_faults;
use crate::diagram::{self, svg::Frame};
use crate::html::i18n::EN;
use serde_json::Value;
use std::path::Path;

/// Diagrams mermaid.js reads that are not drawn, each with the reason.
const NOT_DRAWN: [(&str, &str); 0] = [];

fn load(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/mermaid-er")
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
                wrong.push(format!("{name}: not an ER diagram"));
                continue;
            }
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
        if names(&got) != names(want) {
            wrong.push(format!(
                "{name}: entities: ours {:?}, mermaid's {:?}",
                names(&got),
                names(want)
            ));
        } else if pairs(&got) != pairs(want) {
            wrong.push(format!(
                "{name}: relationships: ours {:?}, mermaid's {:?}",
                pairs(&got),
                pairs(want)
            ));
        } else if got["entities"] != want["entities"] {
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
fn no_two_entities_overlap() {
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
fn every_entity_is_a_data_node_and_every_relationship_a_data_edge() {
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

/// `CORPUS_SVG_DIR=DIR cargo test -p passback-engine --lib write_the_er_svgs -- --ignored`
/// writes every corpus diagram's SVG to DIR, to look at.
#[test]
#[ignore = "writes files; run by hand"]
fn write_the_er_svgs() {
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
        for cut in (0..=src.len()).step_by(5) {
            if src.is_char_boundary(cut) {
                let _ = draw(&src[..cut]);
            }
        }
    }
}
