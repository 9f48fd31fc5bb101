//! Authors' colours on flowcharts: every styled box of Mermaid's own corpus drawn in its
//! author's fill, and the colours written only as presentation attributes from what was read.

use super::corpus::{corpus, draw};
use crate::diagram::colour::Colour;
use crate::diagram::flowchart::parse::parse;

/// The `<g …data-node="id"…>…</g>` group of node `id` in an SVG.
fn node_group<'a>(svg: &'a str, id: &str) -> Option<&'a str> {
    let key = format!("data-node=\"{id}\"");
    let at = svg.find(&key)?;
    let start = svg[..at].rfind("<g ")?;
    let end = svg[at..].find("</g>")? + at;
    Some(&svg[start..end])
}

/// The fill an author gave node `id` by `style id fill:…`, read from the source on its own
/// (the last one wins), as it is drawn: a see-through colour laid on white.
fn style_fills(src: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in src.lines().flat_map(|l| l.split(';')) {
        let line = line.trim();
        let Some(rest) = line.strip_prefix("style ") else {
            continue;
        };
        let Some((id, decls)) = rest.trim().split_once(' ') else {
            continue;
        };
        let mut depth = 0;
        let mut fill = None;
        let mut start = 0;
        let decls = decls.trim();
        for (i, c) in decls.char_indices().chain([(decls.len(), ',')]) {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    if let Some(v) = decls[start..i].trim().strip_prefix("fill:") {
                        fill = Colour::parse(v);
                    }
                    start = i + 1;
                }
                _ => {}
            }
        }
        if let Some(c) = fill.filter(|c| c.a > 0.0) {
            let css = c.over(Colour::rgb(0xffffff)).css();
            out.retain(|(i, _)| i != id);
            out.push((id.to_string(), css));
        }
    }
    out
}

#[test]
fn every_styled_box_in_the_corpus_carries_its_authors_colours() {
    let mut styled = 0;
    let mut diagrams = 0;
    let mut missing = Vec::new();
    for (name, src) in corpus() {
        let fills = style_fills(&src);
        let Some(Ok(chart)) = parse(&src) else {
            continue;
        };
        let r = draw(&src);
        if !r.drawn || fills.is_empty() {
            continue;
        }
        diagrams += 1;
        for (id, fill) in fills {
            if !chart.nodes.iter().any(|n| n.id == id) {
                continue;
            }
            // A subgraph's box is its group's first rect.
            let group = node_group(&r.svg, &id).unwrap_or("");
            styled += 1;
            if !(group.contains(&format!("fill=\"{fill}\"")) && group.contains("pb-d-authored")) {
                missing.push(format!("{name}: {id} {fill}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "{} not coloured: {missing:#?}",
        missing.len()
    );
    // As counted on the corpus when this test was written (19 diagrams, 71 boxes): a fall
    // means styles stopped being read.
    assert!(
        diagrams >= 19 && styled >= 71,
        "{diagrams} diagrams, {styled} boxes"
    );
}

#[test]
fn every_node_a_class_colours_is_drawn_in_it_and_counted() {
    // Each diagram of the corpus with a classDef fill: every node the chart gives that class
    // carries the class's fill.
    let mut counted = 0;
    for (name, src) in corpus() {
        let Some(Ok(chart)) = parse(&src) else {
            continue;
        };
        if chart.styles.nodes.is_empty() {
            continue;
        }
        let r = draw(&src);
        if !r.drawn {
            continue;
        }
        for (i, n) in chart.nodes.iter().enumerate() {
            let Some(s) = chart.styles.node(i) else {
                continue;
            };
            let Some(crate::diagram::style::Paint::Colour(c)) = s.fill else {
                continue;
            };
            if c.a == 0.0 || chart.subgraph_named(&n.id).is_some() {
                continue;
            }
            let fill = c.over(Colour::rgb(0xffffff)).css();
            let group = node_group(&r.svg, &n.id).unwrap_or("");
            assert!(
                group.contains(&format!("fill=\"{fill}\"")),
                "{name}: {} {fill}: {group}",
                n.id
            );
            counted += 1;
        }
    }
    assert!(counted >= 100, "{counted}");
}

#[test]
fn class_def_default_class_and_link_style_colour_what_they_name() {
    let src = "flowchart LR\nclassDef default fill:#eee\nclassDef bad fill:#8b0000,stroke:#f00,stroke-width:3px,stroke-dasharray:5 5\nclassDef ok fill:hsl(120,60%,85%)\nA:::bad --> B --> C\nclass C ok\nstyle B fill:rgba(0,0,255,0.5),color:#fff,font-size:20px\nlinkStyle 0 stroke:#ff3,stroke-width:4px,color:red\nlinkStyle default stroke:blue";
    let chart = parse(src).unwrap().unwrap();
    assert!(
        chart.notes.iter().any(|n| n.contains("`font-size`")),
        "{:?}",
        chart.notes
    );
    let r = draw(src);
    assert!(r.drawn);
    let a = node_group(&r.svg, "A").unwrap();
    assert!(
        a.contains("fill=\"#8b0000\"") && a.contains("stroke=\"#ff0000\""),
        "{a}"
    );
    assert!(
        a.contains("stroke-width=\"3\"") && a.contains("stroke-dasharray=\"5 5\""),
        "{a}"
    );
    // Light text on the dark red.
    assert!(
        a.contains("class=\"pb-d-text pb-d-authored\"") && a.contains("fill=\"#ffffff\""),
        "{a}"
    );
    // Half-blue over white, and the author's white text, which keeps AA there.
    let b = node_group(&r.svg, "B").unwrap();
    assert!(b.contains("fill=\"#8080ff\""), "{b}");
    let c = node_group(&r.svg, "C").unwrap();
    assert!(
        c.contains("fill=\"#c2f0c2\"") && c.contains("fill=\"#1f2328\""),
        "{c}"
    );
    // Edge 0 yellow, wider; edge 1 blue by default.
    let edges: Vec<&str> = r.svg.split("data-edge=").skip(1).collect();
    assert!(
        edges[0].contains("stroke=\"#ffff33\"") && edges[0].contains("stroke-width=\"4\""),
        "{}",
        edges[0]
    );
    assert!(edges[1].contains("stroke=\"#0000ff\""), "{}", edges[1]);
    // Never a style attribute, never the author's text.
    assert!(!r.svg.contains("style="), "{}", r.svg);
    assert!(
        !r.svg.contains("hsl(") && !r.svg.contains("rgba(0,0,255"),
        "{}",
        r.svg
    );
}

#[test]
fn unsafe_values_are_not_written() {
    let src = "graph TD; A-->B; style A fill:url(https://evil.example/x),stroke:var(--x); classDef c fill:url(javascript:alert(1)); class B c; linkStyle 0 stroke:expression(alert(1))";
    let chart = parse(src).unwrap().unwrap();
    assert!(
        chart
            .notes
            .iter()
            .any(|n| n.contains("`fill`") && n.contains("`stroke`")),
        "{:?}",
        chart.notes
    );
    let r = draw(src);
    let lower = r.svg.to_ascii_lowercase();
    for bad in ["url(", "var(", "javascript", "expression", "style="] {
        assert!(!lower.contains(bad), "{bad}");
    }
}

#[test]
fn a_subgraph_takes_its_style_and_its_title_stays_readable() {
    let src =
        "flowchart TB\nsubgraph one [First]\nA --> B\nend\nstyle one fill:#003366,stroke:#333";
    let r = draw(src);
    assert!(r.drawn);
    let g = node_group(&r.svg, "one").unwrap();
    assert!(
        g.contains("fill=\"#003366\"") && g.contains("pb-d-cluster-box pb-d-authored"),
        "{g}"
    );
    let title = &r.svg[r.svg.find("pb-d-cluster-label").unwrap()..];
    // `classDef default` colours nodes, not subgraphs.
    let r2 =
        draw("flowchart TB\nclassDef default fill:#ffd8a8\nsubgraph one [First]\nA --> B\nend");
    let g2 = node_group(&r2.svg, "one").unwrap();
    assert!(!g2.contains("pb-d-authored"), "{g2}");
    assert!(
        node_group(&r2.svg, "A")
            .unwrap()
            .contains("fill=\"#ffd8a8\"")
    );
    assert!(
        title.contains("class=\"pb-d-cluster-title pb-d-authored\""),
        "{title}"
    );
    assert!(title.contains("fill=\"#ffffff\""), "{title}");
}

#[test]
fn init_theme_variables_colour_every_node_and_edge() {
    let src = "%%{\n  init: {\n    'themeVariables': {\n      'primaryColor': '#BB2528',\n      'primaryTextColor': '#fff',\n      'lineColor': '#F8B229'\n    }\n  }\n}%%\ngraph TD\nA[Christmas] -->|Get money| B(Go shopping)";
    let chart = parse(src).unwrap().unwrap();
    assert!(chart.ignored.is_empty(), "{:?}", chart.ignored);
    let r = draw(src);
    assert!(r.drawn);
    let a = node_group(&r.svg, "A").unwrap();
    assert!(
        a.contains("fill=\"#bb2528\"") && a.contains("fill=\"#ffffff\""),
        "{a}"
    );
    assert!(r.svg.contains("stroke=\"#f8b229\""));
}
