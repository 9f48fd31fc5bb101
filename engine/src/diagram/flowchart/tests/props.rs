//! Property test: random flowcharts (random shapes, labels, edge kinds, directions, self-loops,
//! repeated pairs, edges to subgraphs, nested subgraphs) are written as Mermaid, parsed, laid
//! out and drawn. Nothing panics; every node and edge of the source appears once in the SVG
//! with its data attribute; no two node boxes overlap; a subgraph's box overlaps no node that
//! is not inside it, and no subgraph box that is neither inside it nor around it.

use crate::diagram::flowchart::draw::edge_keys;
use crate::diagram::flowchart::layout::{self, Drawing};
use crate::diagram::flowchart::{self, Flowchart};
use crate::diagram::{self, svg::Frame};
use crate::html::i18n::EN;
use proptest::prelude::*;

const SHAPES: [(&str, &str); 28] = [
    ("[", "]"),
    ("(", ")"),
    ("([", "])"),
    ("[[", "]]"),
    ("[(", ")]"),
    ("((", "))"),
    ("(((", ")))"),
    (">", "]"),
    ("{", "}"),
    ("{{", "}}"),
    ("[/", "/]"),
    ("[\\", "\\]"),
    ("[/", "\\]"),
    ("[\\", "/]"),
    // Named shapes of Mermaid's table, curved, stacked, open or without a label.
    ("@{ shape: doc, label: ", " }"),
    ("@{ shape: docs, label: ", " }"),
    ("@{ shape: st-rect, label: ", " }"),
    ("@{ shape: cloud, label: ", " }"),
    ("@{ shape: bang, label: ", " }"),
    ("@{ shape: delay, label: ", " }"),
    ("@{ shape: h-cyl, label: ", " }"),
    ("@{ shape: lin-cyl, label: ", " }"),
    ("@{ shape: flag, label: ", " }"),
    ("@{ shape: tri, label: ", " }"),
    ("@{ shape: brace, label: ", " }"),
    ("@{ shape: hourglass, label: ", " }"),
    ("@{ shape: bolt, label: ", " }"),
    ("@{ shape: fork, label: ", " }"),
];

const ARROWS: [&str; 10] = [
    "-->", "---", "-.->", "-.-", "==>", "===", "<-->", "--x", "--o", "~~~",
];

#[derive(Debug, Clone)]
struct Spec {
    direction: &'static str,
    /// Per node: shape, label, and the group it is declared in (0: none).
    nodes: Vec<(usize, String, usize)>,
    /// Whether group 2 sits inside group 1.
    nested: bool,
    /// (from, to, arrow, label); an end ≥ the node count means a subgraph.
    edges: Vec<(usize, usize, usize, Option<String>)>,
}

fn spec() -> impl Strategy<Value = Spec> {
    let label = "[a-zA-Z0-9 éשж&<>'.,?!-]{1,28}";
    (1usize..22)
        .prop_flat_map(move |n| {
            (
                prop::sample::select(vec!["TD", "LR", "BT", "RL"]),
                prop::collection::vec((0..SHAPES.len(), label, 0usize..4), n),
                any::<bool>(),
                prop::collection::vec(
                    (
                        0..n + 2,
                        0..n + 2,
                        0usize..10,
                        prop::option::of("[a-z ]{1,14}"),
                    ),
                    0..(2 * n + 4),
                ),
            )
        })
        .prop_map(|(direction, nodes, nested, edges)| Spec {
            direction,
            nodes,
            nested,
            edges,
        })
}

fn source(s: &Spec) -> String {
    let n = s.nodes.len();
    let id = |i: usize| {
        if i < n {
            format!("n{i}")
        } else {
            format!("g{}", i - n + 1)
        }
    };
    let mut out = format!("flowchart {}\n", s.direction);
    let declare = |out: &mut String, group: usize| {
        for (i, (shape, label, g)) in s.nodes.iter().enumerate() {
            if *g == group {
                let (o, c) = SHAPES[*shape];
                let label = label.trim();
                let label = if label.is_empty() { "x" } else { label };
                out.push_str(&format!("  n{i}{o}\"{label}\"{c}\n"));
            }
        }
    };
    declare(&mut out, 0);
    out.push_str("subgraph g1 [Group one]\n");
    declare(&mut out, 1);
    if s.nested {
        out.push_str("subgraph g2 [Group two]\n");
        declare(&mut out, 2);
        out.push_str("end\n");
    }
    out.push_str("end\n");
    if !s.nested {
        out.push_str("subgraph g2 [Group two]\n");
        declare(&mut out, 2);
        out.push_str("end\n");
    }
    out.push_str("subgraph g3 [Group three]\ndirection LR\n");
    declare(&mut out, 3);
    out.push_str("end\n");
    for (a, b, arrow, label) in &s.edges {
        let label = label
            .as_deref()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|l| format!("|{l}|"))
            .unwrap_or_default();
        out.push_str(&format!(
            "  {} {}{} {}\n",
            id(*a),
            ARROWS[*arrow],
            label,
            id(*b)
        ));
    }
    out
}

/// Whether subgraph `inner` is `outer` or nested in it.
fn within(chart: &Flowchart, mut inner: usize, outer: usize) -> bool {
    loop {
        if inner == outer {
            return true;
        }
        match chart.subgraphs[inner].parent {
            Some(p) => inner = p,
            None => return false,
        }
    }
}

fn group_of(chart: &Flowchart, id: &str) -> Option<usize> {
    chart
        .subgraphs
        .iter()
        .position(|s| s.members.iter().any(|m| m == id))
}

fn check_geometry(chart: &Flowchart, d: &Drawing) -> Result<(), String> {
    let boxes: Vec<(usize, _)> = d
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| n.as_ref().map(|n| (i, n.bounds)))
        .collect();
    for (k, (i, a)) in boxes.iter().enumerate() {
        for (j, b) in &boxes[k + 1..] {
            if a.overlaps(b) {
                return Err(format!(
                    "nodes {} and {} overlap: {a:?} {b:?}",
                    chart.nodes[*i].id, chart.nodes[*j].id
                ));
            }
        }
    }
    for (s, c) in d.clusters.iter().enumerate() {
        for (i, b) in &boxes {
            let inside = group_of(chart, &chart.nodes[*i].id).is_some_and(|g| within(chart, g, s));
            if !inside && c.bounds.overlaps(b) {
                return Err(format!(
                    "subgraph {} overlaps non-member {}",
                    chart.subgraphs[s].title, chart.nodes[*i].id
                ));
            }
        }
        for (t, o) in d.clusters.iter().enumerate() {
            if s != t
                && !within(chart, s, t)
                && !within(chart, t, s)
                && c.bounds.overlaps(&o.bounds)
            {
                return Err(format!("subgraphs {s} and {t} overlap"));
            }
        }
    }
    Ok(())
}

/// `PROPTEST_CASES` when set (for a longer run), else `default`.
fn cases(default: u32) -> ProptestConfig {
    let n = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    ProptestConfig::with_cases(n)
}

proptest! {
    #![proptest_config(cases(160))]

    #[test]
    fn random_flowcharts_draw_every_node_and_edge_once(s in spec()) {
        let src = source(&s);
        let chart = flowchart::parse::parse(&src)
            .expect("a flowchart")
            .unwrap_or_else(|e| panic!("{e:?} in\n{src}"));
        let drawing = layout::layout(&chart);
        prop_assert!(drawing.is_ok(), "not laid out: {:?}\n{}", drawing.err(), src);
        if let Ok(d) = &drawing {
            prop_assert_eq!(d.nodes.len(), chart.nodes.len());
            prop_assert_eq!(d.edges.len(), chart.edges.len());
            if let Err(e) = check_geometry(&chart, d) {
                prop_assert!(false, "{}\n{}", e, src);
            }
            for e in &d.edges {
                prop_assert!(e.points.len() >= 2);
                prop_assert!(e.points.iter().all(|p| p.x.is_finite() && p.y.is_finite()));
            }
        }
        let r = diagram::render(
            &src,
            Some(&chart),
            &Frame { id: "p", title: "Random", t: &EN, inline_style: false },
        );
        prop_assert!(r.drawn);
        for node in &chart.nodes {
            let needle = format!("data-node=\"{}\"", node.id);
            prop_assert_eq!(r.svg.matches(&needle).count(), 1, "{}\n{}", needle, src);
        }
        let keys = edge_keys(&chart);
        prop_assert_eq!(r.svg.matches("data-edge=").count(), keys.len());
        for key in keys {
            let needle = format!("data-edge=\"{key}\"");
            prop_assert_eq!(r.svg.matches(&needle).count(), 1, "{}\n{}", needle, src);
        }
    }
}

#[test]
fn caps_give_a_placeholder_not_a_picture() {
    let mut src = String::from("graph TD\n");
    for i in 0..layout::MAX_NODES + 1 {
        src.push_str(&format!("a{i} --> a{}\n", i + 1));
    }
    let chart = flowchart::parse::parse(&src)
        .expect("a flowchart")
        .expect("readable");
    assert_eq!(
        layout::layout(&chart).err(),
        Some(layout::Failure::TooLarge)
    );
    let r = diagram::render(
        &src,
        Some(&chart),
        &Frame {
            id: "p",
            title: "Big",
            t: &EN,
            inline_style: false,
        },
    );
    assert!(!r.drawn);
    assert!(r.svg.contains("Too large"));
}

#[test]
fn an_empty_flowchart_is_a_placeholder() {
    let chart = flowchart::parse::parse("graph TD")
        .expect("a flowchart")
        .expect("readable");
    let r = diagram::render(
        "graph TD",
        Some(&chart),
        &Frame {
            id: "p",
            title: "Empty",
            t: &EN,
            inline_style: false,
        },
    );
    assert!(!r.drawn);
}

/// A flowchart of `n` nodes: a random tree plus `extra` random edges (a third labelled), the
/// same for every run.
fn sized(n: usize, extra: usize) -> String {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |m: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % m as u64) as usize
    };
    let mut src = String::from("flowchart TD\n");
    for i in 1..n {
        let from = next(i);
        src.push_str(&format!("  s{from}[Step {from}] --> s{i}[Step {i}]\n"));
    }
    for k in 0..extra {
        let (a, b) = (next(n), next(n));
        if k % 3 == 0 {
            src.push_str(&format!("  s{a} -->|case {k}| s{b}\n"));
        } else {
            src.push_str(&format!("  s{a} -.-> s{b}\n"));
        }
    }
    src
}

/// The largest charts, up to the caps, which the criterion bench (5, 20 and 100 nodes) leaves
/// out: `cargo test --release -p passback-engine --test diagram_props -- --ignored --nocapture`
#[test]
#[ignore = "a timing to read, not a check"]
fn timing() {
    let cap = layout::MAX_EDGES + 1 - layout::MAX_NODES;
    for (n, extra) in [(150, 60), (layout::MAX_NODES, cap)] {
        let src = sized(n, extra);
        let chart = flowchart::parse::parse(&src)
            .expect("a flowchart")
            .expect("readable");
        let frame = Frame {
            id: "t",
            title: "Timing",
            t: &EN,
            inline_style: false,
        };
        let runs = 10;
        let start = std::time::Instant::now();
        let mut drawn = true;
        for _ in 0..runs {
            drawn = diagram::render(&src, Some(&chart), &frame).drawn;
        }
        let per = start.elapsed() / runs;
        println!(
            "{n:>3} nodes, {:>3} edges: {per:?} per layout + SVG{}",
            chart.edges.len(),
            if drawn {
                ""
            } else {
                " (too large: placeholder)"
            }
        );
    }
}

/// Pieces of flowchart syntax, right and wrong, for the fuzz test below.
const TOKENS: [&str; 48] = [
    "A",
    "B",
    "C",
    "n1",
    "x",
    "o",
    "end",
    "subgraph",
    "S",
    "direction",
    "LR",
    "click",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    "((",
    "))",
    "[/",
    "\\]",
    ">",
    "\"",
    "|",
    "&",
    ";",
    "\n",
    "-->",
    "---",
    "-.->",
    "==>",
    "<-->",
    "--x",
    "--o",
    "~~~",
    "--",
    "-.",
    "==",
    ".->",
    "%%",
    "<br>",
    "label",
    "é",
    "ש",
    ":::",
    " ",
    "  ",
];

proptest! {
    #![proptest_config(cases(400))]

    /// Arbitrary text after a flowchart header: the parser and the drawing never panic, and
    /// what is drawn has every node once.
    #[test]
    fn any_text_after_a_header_is_read_or_refused_without_panicking(
        tokens in prop::collection::vec((0..TOKENS.len(), any::<bool>()), 0..60),
        header in prop::sample::select(vec!["graph TD\n", "flowchart LR\n", "graph BT;", "flowchart RL "]),
    ) {
        let mut src = String::from(header);
        for (t, space) in tokens {
            src.push_str(TOKENS[t]);
            if space {
                src.push(' ');
            }
        }
        if let Some(Ok(chart)) = flowchart::parse::parse(&src) {
            let r = diagram::render(
                &src,
                Some(&chart),
                &Frame { id: "f", title: "Fuzz", t: &EN, inline_style: false },
            );
            if r.drawn {
                for node in &chart.nodes {
                    let needle = format!("data-node=\"{}\"", node.id);
                    prop_assert_eq!(r.svg.matches(&needle).count(), 1, "{}\n{}", needle, src);
                }
            }
        }
    }
}
