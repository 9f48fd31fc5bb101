//! Golden SVGs: every `fixtures/diagrams/NAME.mmd` is drawn and compared with
//! `fixtures/diagrams/NAME.svg`. A first line `%% title: …` gives the diagram's title (`%%` is a
//! Mermaid comment, so the file stays valid Mermaid). Set `UPDATE_GOLDEN=1` to write the files
//! instead, then look at them (they open in any browser) and read the diff.
//!
//! Also checked for every fixture: the SVG is well formed, has its title and description, has
//! no script, `foreignObject`, `style` element or reference outside itself, and has one
//! `data-node` / `data-edge` group per node and edge of the source.

use crate::diagram::flowchart::{self, draw::edge_keys};
use crate::diagram::{self, svg::Frame};
use crate::html::i18n::EN;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/diagrams")
}

fn fixtures() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .expect("fixtures/diagrams exists")
        .map(|e| e.expect("entry").file_name().into_string().expect("UTF-8"))
        .filter_map(|f| f.strip_suffix(".mmd").map(str::to_string))
        .collect();
    names.sort();
    names
}

fn title_of(src: &str) -> &str {
    src.lines()
        .next()
        .and_then(|l| l.strip_prefix("%% title:"))
        .map_or("Diagram", str::trim)
}

fn draw(src: &str) -> diagram::Rendered {
    let chart = flowchart::parse::parse(src).and_then(Result::ok);
    diagram::render(
        src,
        chart.as_ref(),
        &Frame {
            id: "d",
            title: title_of(src),
            t: &EN,
            inline_style: false,
        },
    )
}

/// Tags open and close in order (a small check, enough for the writer's output).
fn well_formed(svg: &str) -> Result<(), String> {
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        let after = &rest[i + 1..];
        let end = after.find('>').ok_or("unclosed tag")?;
        let tag = &after[..end];
        if let Some(name) = tag.strip_prefix('/') {
            match stack.pop() {
                Some(open) if open == name => {}
                other => return Err(format!("</{name}> closes {other:?}")),
            }
        } else if !tag.ends_with('/') {
            let name = tag.split_whitespace().next().ok_or("empty tag")?;
            stack.push(name);
        }
        if !tag.matches('"').count().is_multiple_of(2) {
            return Err(format!("unbalanced quotes in <{tag}>"));
        }
        rest = &after[end + 1..];
    }
    if stack.is_empty() {
        Ok(())
    } else {
        Err(format!("unclosed: {stack:?}"))
    }
}

fn check(name: &str, src: &str, svg: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if let Some(Ok(d)) = diagram::state::parse::parse(src) {
        if !svg.contains("pb-mermaid-state") {
            problems.push(format!("{name}: the state diagram is not drawn"));
        }
        for n in &d.chart.nodes {
            let needle = format!("data-node=\"{}\"", n.id);
            let count = svg.matches(&needle).count();
            if count != 1 {
                problems.push(format!("{name}: state {} appears {count} times", n.id));
            }
        }
        if svg.matches("data-edge=").count() != d.chart.edges.len() {
            problems.push(format!("{name}: not one data-edge per transition"));
        }
    }
    if let Some(Ok(d)) = diagram::er::parse::parse(src) {
        if !svg.contains("pb-mermaid-er") {
            problems.push(format!("{name}: the ER diagram is not drawn"));
        }
        for n in &d.chart.nodes {
            let needle = format!("data-node=\"{}\"", n.id);
            let count = svg.matches(&needle).count();
            if count != 1 {
                problems.push(format!("{name}: entity {} appears {count} times", n.id));
            }
        }
        if svg.matches("data-edge=").count() != d.chart.edges.len() {
            problems.push(format!("{name}: not one data-edge per relationship"));
        }
    }
    if let Some(Ok(d)) = diagram::class::parse::parse(src) {
        if !svg.contains("pb-mermaid-class") {
            problems.push(format!("{name}: the class diagram is not drawn"));
        }
        for n in &d.chart.nodes {
            let needle = format!("data-node=\"{}\"", n.id);
            let count = svg.matches(&needle).count();
            if count != 1 {
                problems.push(format!("{name}: class {} appears {count} times", n.id));
            }
        }
        if svg.matches("data-edge=").count() != d.chart.edges.len() {
            problems.push(format!("{name}: not one data-edge per relation"));
        }
    }
    if let Some(Ok(g)) = diagram::gantt::parse::parse(src) {
        if !svg.contains("pb-mermaid-gantt") {
            problems.push(format!("{name}: the gantt chart is not drawn"));
        }
        for n in &g.chart.nodes {
            let needle = format!("data-node=\"{}\"", n.id);
            let want = g
                .tasks
                .iter()
                .filter(|t| g.chart.nodes[t.node].id == n.id)
                .count();
            let count = svg.matches(&needle).count();
            if count != want {
                problems.push(format!("{name}: task {} appears {count} times", n.id));
            }
        }
        if svg.contains("data-edge=") {
            problems.push(format!("{name}: a gantt chart has no data-edge"));
        }
    }
    if let Err(e) = well_formed(svg) {
        problems.push(format!("{name}: not well formed: {e}"));
    }
    for needle in [
        "role=\"img\"",
        "<title id=\"d-title\">",
        "<desc id=\"d-desc\">",
        "aria-labelledby=\"d-title\"",
    ] {
        if !svg.contains(needle) {
            problems.push(format!("{name}: lacks {needle}"));
        }
    }
    let lower = svg.to_ascii_lowercase();
    for banned in [
        "<script",
        "foreignobject",
        "<style",
        "href",
        "url(",
        "javascript:",
    ] {
        if lower.contains(banned) {
            problems.push(format!("{name}: contains {banned}"));
        }
    }
    // An event handler attribute: ` on…=` inside a tag.
    for tag in lower.split('<').filter_map(|t| t.split('>').next()) {
        for (i, _) in tag.match_indices(" on") {
            let name: String = tag[i + 1..]
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .collect();
            if tag[i + 1 + name.len()..].starts_with('=') {
                problems.push(format!("{name}: an event handler attribute in <{tag}>"));
            }
        }
    }
    if let Some(Ok(chart)) = flowchart::parse::parse(src)
        && svg.contains("pb-mermaid-flowchart")
    {
        for n in &chart.nodes {
            let needle = format!("data-node=\"{}\"", n.id);
            let count = svg.matches(&needle).count();
            if count != 1 {
                problems.push(format!("{name}: node {} appears {count} times", n.id));
            }
        }
        for key in edge_keys(&chart) {
            let needle = format!("data-edge=\"{}\"", key.replace('&', "&amp;"));
            let count = svg.matches(&needle).count();
            if count != 1 {
                problems.push(format!("{name}: edge {key} appears {count} times"));
            }
        }
    }
    problems
}

#[test]
fn golden_svgs_match() {
    let update = std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1");
    let names = fixtures();
    assert!(!names.is_empty(), "fixtures/diagrams has no .mmd files");
    let mut failures = Vec::new();
    for name in &names {
        let src = std::fs::read_to_string(dir().join(format!("{name}.mmd")))
            .unwrap_or_else(|e| panic!("{name}.mmd: {e}"));
        let mut svg = draw(&src).svg;
        svg.push('\n');
        failures.extend(check(name, &src, &svg));
        let path = dir().join(format!("{name}.svg"));
        if update {
            std::fs::write(&path, &svg).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(expected) if expected == svg => {}
            Ok(expected) => {
                let at = expected
                    .lines()
                    .zip(svg.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(expected.lines().count().min(svg.lines().count()));
                failures.push(format!(
                    "{name}.svg differs at line {}:\n  expected: {}\n  actual:   {}",
                    at + 1,
                    expected.lines().nth(at).unwrap_or(""),
                    svg.lines().nth(at).unwrap_or("")
                ));
            }
            Err(e) => failures.push(format!(
                "{}: {e} (run with UPDATE_GOLDEN=1 to create it)",
                path.display()
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} problem(s) (UPDATE_GOLDEN=1 rewrites the SVGs; review the diff):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn flowcharts_are_drawn_and_the_rest_are_placeholders() {
    for name in fixtures() {
        let src = std::fs::read_to_string(dir().join(format!("{name}.mmd"))).expect("fixture");
        let r = draw(&src);
        let expect_drawn = name != "unsupported";
        assert_eq!(r.drawn, expect_drawn, "{name}");
        if !r.drawn {
            assert!(r.svg.contains("pb-mermaid-placeholder"), "{name}");
            assert!(r.svg.contains(title_of(&src)), "{name}");
        }
    }
    let state = draw("stateDiagram-v2\n[*] --> A");
    assert!(state.drawn && state.svg.contains("State diagram, top to bottom."));
    let seq = draw("sequenceDiagram\nA->>B: hi");
    assert!(seq.svg.contains("Sequence diagram"));
}

#[test]
fn every_svg_has_a_golden_source() {
    let names = fixtures();
    for entry in std::fs::read_dir(dir()).expect("fixtures/diagrams exists") {
        let file = entry
            .expect("entry")
            .file_name()
            .into_string()
            .expect("UTF-8");
        if let Some(stem) = file.strip_suffix(".svg") {
            assert!(names.iter().any(|n| n == stem), "{file} has no {stem}.mmd");
        }
    }
}
