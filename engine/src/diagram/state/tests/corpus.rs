//! The state diagrams of Mermaid's own documentation and rendering tests
//! (`fixtures/mermaid-state/`): how many are drawn, whether the engine reads the same states
//! and transitions as mermaid.js's parser (`parse.json`), and the geometry of every drawing:
//! the flowchart corpus's check of the SVG (no two states overlap, no transition through a
//! state it does not join, names over the lines), and from the layout, that no box (notes
//! too) overlaps another unless it is a composite around its members.

use crate::diagram;
use crate::diagram::flowchart::layout::Drawing;
use crate::diagram::state::{StateDiagram, layout, parse};
use crate::diagram::tests::corpus::{
    Corpus, assert_drawn_but_named, assert_geometry, assert_none_differ, assert_parts_marked,
    draw_prefixes, edge_counts, frame, inside, overlap, overlapping_boxes, read_or_say,
    same_as_mermaid, write_svgs,
};

const CORPUS: Corpus = Corpus::new("mermaid-state");

/// Diagrams not drawn, each with the reason.
const NOT_DRAWN: [(&str, &str); 0] = [];

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
    let reference = CORPUS.reference();
    let mut wrong = Vec::new();
    let mut compared = 0;
    for (name, src) in CORPUS.accepted() {
        let want = &reference["diagrams"][&name];
        let Some(d) = read_or_say(&mut wrong, &name, "a state diagram", parse::parse(&src)) else {
            continue;
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
        let want_edges = edge_counts(
            want["edges"]
                .as_array()
                .expect("edges")
                .iter()
                .filter(|e| e.get(2).is_none())
                .map(|e| {
                    (
                        canonical(e[0].as_str().unwrap_or(""), &their_regions),
                        canonical(e[1].as_str().unwrap_or(""), &their_regions),
                    )
                }),
        );
        let edges = edge_counts(d.chart.edges.iter().map(|e| {
            (
                canonical(d.chart.id_of(e.from), &our_regions),
                canonical(d.chart.id_of(e.to), &our_regions),
            )
        }));
        let want_notes = their_nodes.iter().filter(|n| n["shape"] == "note").count();
        if same_as_mermaid(&mut wrong, &name, "states", &nodes, &want_nodes)
            && same_as_mermaid(&mut wrong, &name, "transitions", &edges, &want_edges)
            && d.notes.len() != want_notes
        {
            wrong.push(format!(
                "{name}: {} notes, mermaid's {want_notes}",
                d.notes.len()
            ));
        }
    }
    assert!(compared >= 60, "only {compared} compared");
    assert_none_differ(&wrong);
}

#[test]
fn at_least_97_percent_are_drawn_and_the_rest_are_named() {
    let all = CORPUS.diagrams();
    assert!(all.len() >= 60, "{} diagrams", all.len());
    assert_drawn_but_named(&all, &NOT_DRAWN, |src| {
        draw(src).is_some_and(|(_, _, r)| r.drawn)
    });
}

#[test]
fn every_drawn_diagram_passes_the_geometric_check() {
    assert_geometry(&CORPUS.diagrams(), |src| draw(src).map(|(_, _, r)| r.svg));
}

/// What overlaps in a layout: two boxes (states or notes), a box and a composite or region
/// it is not in, or two composites neither of which holds the other.
fn overlaps(laid: &Drawing) -> Vec<String> {
    let mut out: Vec<String> = overlapping_boxes(laid)
        .into_iter()
        .map(|(i, j)| format!("boxes {i} and {j}"))
        .collect();
    for (i, n) in laid.nodes.iter().enumerate() {
        let Some(a) = n.as_ref().map(|n| n.bounds) else {
            continue;
        };
        for (s, c) in laid.clusters.iter().enumerate() {
            if overlap(&a, &c.bounds) && !inside(&a, &c.bounds) {
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
    for (name, src) in CORPUS.diagrams() {
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
    for (name, src) in CORPUS.diagrams() {
        let Some((d, _, r)) = draw(&src) else {
            continue;
        };
        let ids = d.chart.nodes.iter().map(|n| n.id.as_str());
        assert_parts_marked(&name, &r.svg, ids, d.chart.edges.len());
    }
}

/// `CORPUS_SVG_DIR=DIR cargo test -p passback-engine --lib write_the_state_svgs -- --ignored`
/// writes every corpus diagram's SVG to DIR, to look at.
#[test]
#[ignore = "writes files; run by hand"]
fn write_the_state_svgs() {
    write_svgs(&CORPUS.diagrams(), |src| draw(src).map(|(_, _, r)| r.svg));
}

/// Prefixes of every corpus diagram are read and laid out without a panic.
#[test]
fn cut_diagrams_never_panic() {
    draw_prefixes(&CORPUS.diagrams(), 7, |src| {
        let _ = draw(src);
    });
}
