//! The state diagrams of Mermaid's own documentation and rendering tests
//! (`fixtures/mermaid-state/`): how many are drawn, whether the engine reads the same states
//! and transitions as mermaid.js's parser (`parse.json`), and the geometry of every drawing:
//! the flowchart corpus's check of the SVG (no two states overlap, no transition through a
//! state it does not join, names over the lines), and from the layout, that no box (notes
//! too) overlaps another unless it is a composite around its members.

use crate::diagram::flowchart::layout::Drawing;
use crate::diagram::flowchart::tests::corpus::geometry_faults;
use crate::diagram::geometry::Bounds;
use crate::diagram::state::{StateDiagram, layout, parse};
use crate::diagram::{self, svg::Frame};
use crate::html::i18n::EN;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Diagrams not drawn, each with the reason.
const NOT_DRAWN: [(&str, &str); 0] = [];

fn load(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/mermaid-state")
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

fn frame() -> Frame<'static> {
    Frame {
        id: "d",
        title: "Diagram",
        t: &EN,
        inline_style: false,
    }
}

/// The diagram read, its layout and its drawing; `None` when it is not read.
fn draw(src: &str) -> Option<(StateDiagram, Drawing, diagram::Rendered)> {
    let d = parse::parse(src)?.ok()?;
    let laid = layout::layout(&d).ok()?;
    let r = diagram::render_state(&d, &Ok(laid.clone()), &frame());
    Some((d, laid, r))
}

/// Ids with a concurrency region's id (Mermaid's last region's is random) put as `region#k`,
/// `k` counting the regions in `regions`' order.
fn canonical(id: &str, regions: &[String]) -> String {
    for (k, r) in regions.iter().enumerate() {
        if let Some(rest) = id.strip_prefix(r.as_str())
            && (rest.is_empty() || rest.starts_with('_'))
        {
            return format!("region#{k}{rest}");
        }
    }
    id.to_string()
}

#[test]
fn the_engine_reads_the_states_and_transitions_mermaid_reads() {
    let reference = load("parse.json");
    let mut wrong = Vec::new();
    let mut compared = 0;
    for (name, src) in corpus() {
        let want = &reference["diagrams"][&name];
        if want.get("error").is_some() {
            continue;
        }
        let d = match parse::parse(&src) {
            Some(Ok(d)) => d,
            Some(Err(e)) => {
                wrong.push(format!("{name}: not read: {} at {}", e.message, e.offset));
                continue;
            }
            None => {
                wrong.push(format!("{name}: not a state diagram"));
                continue;
            }
        };
        compared += 1;
        let their_nodes = want["nodes"].as_array().expect("nodes");
        let their_regions: Vec<String> = their_nodes
            .iter()
            .filter(|n| n["shape"] == "divider")
            .filter_map(|n| n["id"].as_str().map(str::to_string))
            .collect();
        let our_regions: Vec<String> = d.regions.iter().flatten().cloned().collect();
        let mut want_nodes: Vec<String> = their_nodes
            .iter()
            .filter(|n| !matches!(n["shape"].as_str(), Some("note" | "noteGroup" | "divider")))
            .filter_map(|n| n["id"].as_str())
            .map(|id| canonical(id, &their_regions))
            .collect();
        want_nodes.sort();
        let mut nodes: Vec<String> = d
            .chart
            .nodes
            .iter()
            .map(|n| canonical(&n.id, &our_regions))
            .collect();
        nodes.sort();
        let mut want_edges: BTreeMap<(String, String), usize> = BTreeMap::new();
        for e in want["edges"].as_array().expect("edges") {
            if e.get(2).is_some() {
                continue;
            }
            let pair = (
                canonical(e[0].as_str().unwrap_or(""), &their_regions),
                canonical(e[1].as_str().unwrap_or(""), &their_regions),
            );
            *want_edges.entry(pair).or_default() += 1;
        }
        let mut edges: BTreeMap<(String, String), usize> = BTreeMap::new();
        for e in &d.chart.edges {
            let pair = (
                canonical(d.chart.id_of(e.from), &our_regions),
                canonical(d.chart.id_of(e.to), &our_regions),
            );
            *edges.entry(pair).or_default() += 1;
        }
        let want_notes = their_nodes.iter().filter(|n| n["shape"] == "note").count();
        if nodes != want_nodes {
            wrong.push(format!(
                "{name}: states: ours {nodes:?}, mermaid's {want_nodes:?}"
            ));
        } else if edges != want_edges {
            wrong.push(format!(
                "{name}: transitions: ours {edges:?}, mermaid's {want_edges:?}"
            ));
        } else if d.notes.len() != want_notes {
            wrong.push(format!(
                "{name}: {} notes, mermaid's {want_notes}",
                d.notes.len()
            ));
        }
    }
    assert!(compared >= 60, "only {compared} compared");
    assert!(
        wrong.is_empty(),
        "{} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn at_least_97_percent_are_drawn_and_the_rest_are_named() {
    let all = corpus();
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

/// Whether `a` lies within `b` (a member in its composite's box).
fn inside(a: &Bounds, b: &Bounds) -> bool {
    a.left() >= b.left() - 0.5
        && a.right() <= b.right() + 0.5
        && a.top() >= b.top() - 0.5
        && a.bottom() <= b.bottom() + 0.5
}

fn overlap(a: &Bounds, b: &Bounds) -> bool {
    a.left() + 0.5 < b.right()
        && b.left() + 0.5 < a.right()
        && a.top() + 0.5 < b.bottom()
        && b.top() + 0.5 < a.bottom()
}

/// What overlaps in a layout: two boxes (states or notes), a box and a composite or region
/// it is not in, or two composites neither of which holds the other.
fn overlaps(laid: &Drawing) -> Vec<String> {
    let mut out = Vec::new();
    let boxes: Vec<(usize, Bounds)> = laid
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| n.as_ref().map(|n| (i, n.bounds)))
        .collect();
    for (k, (i, a)) in boxes.iter().enumerate() {
        for (j, b) in &boxes[k + 1..] {
            if overlap(a, b) {
                out.push(format!("boxes {i} and {j}"));
            }
        }
        for (s, c) in laid.clusters.iter().enumerate() {
            if overlap(a, &c.bounds) && !inside(a, &c.bounds) {
                out.push(format!("box {i} and composite {s}"));
            }
        }
    }
    for (s, a) in laid.clusters.iter().enumerate() {
        for (t, b) in laid.clusters.iter().enumerate().skip(s + 1) {
            if overlap(&a.bounds, &b.bounds)
                && !inside(&a.bounds, &b.bounds)
                && !inside(&b.bounds, &a.bounds)
            {
                out.push(format!("composites {s} and {t}"));
            }
        }
    }
    out
}

#[test]
fn no_box_overlaps_another_but_a_composite_round_its_members() {
    let mut bad = Vec::new();
    for (name, src) in corpus() {
        let Some((_, laid, _)) = draw(&src) else {
            continue;
        };
        let faults = overlaps(&laid);
        if !faults.is_empty() {
            bad.push(format!("{name}: {}", faults.join("; ")));
        }
    }
    assert!(bad.is_empty(), "{}:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn every_state_is_a_data_node_and_every_transition_a_data_edge() {
    for (name, src) in corpus() {
        let Some((d, _, r)) = draw(&src) else {
            continue;
        };
        for n in &d.chart.nodes {
            let attr = format!(
                "data-node=\"{}\"",
                n.id.replace('&', "&amp;").replace('"', "&quot;")
            );
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

/// `CORPUS_SVG_DIR=DIR cargo test -p passback-engine --lib write_the_state_svgs -- --ignored`
/// writes every corpus diagram's SVG to DIR, to look at.
#[test]
#[ignore = "writes files; run by hand"]
fn write_the_state_svgs() {
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
