//! A diagram drawn outside any component, as a book's plain Mermaid fences are.

use crate::diagram::{Alone, MAX_SOURCE, draw_alone};

fn drawn(source: &str) -> String {
    match draw_alone(source, "fig-1") {
        Alone::Drawn { svg, .. } => svg,
        Alone::NotDrawn { reason, .. } => panic!("not drawn: {reason}"),
    }
}

#[test]
fn the_three_kinds_drawn_here_are_svg_with_the_given_ids() {
    for source in [
        "graph TD\n  A[Start] --> B{Ok?}\n",
        "sequenceDiagram\n  Alice->>Bob: Hi\n",
        "stateDiagram-v2\n  [*] --> Idle\n  Idle --> Busy\n",
        "erDiagram\n  CUSTOMER ||--o{ ORDER : places\n",
    ] {
        let svg = drawn(source);
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.contains("id=\"fig-1"), "{svg}");
        assert!(
            !svg.contains("pb-comment"),
            "no comment fields outside a component: {svg}"
        );
    }
}

#[test]
fn text_in_the_diagram_is_escaped() {
    let svg = drawn("graph TD\n  A[\"<script>x</script> & co\"] --> B\n");
    assert!(!svg.contains("<script>"), "{svg}");
    assert!(svg.contains("&lt;script&gt;"), "{svg}");
}

#[test]
fn a_kind_not_drawn_says_which() {
    let Alone::NotDrawn { reason, line } = draw_alone("pie\n  title A\n  \"x\" : 1\n", "fig-1")
    else {
        panic!("a pie chart is not drawn here");
    };
    assert_eq!(reason, "Pie charts are not drawn here yet");
    assert_eq!(line, 1);
    let Alone::NotDrawn { reason, .. } = draw_alone("gantt\n  title A\n", "fig-1") else {
        panic!("a gantt chart without tasks is not drawn");
    };
    assert_eq!(reason, "the gantt chart has no tasks to draw");
    let Alone::Drawn { svg, .. } = draw_alone("gantt\n  A : a, 2024-01-01, 2d\n", "fig-1") else {
        panic!("a gantt chart is drawn");
    };
    assert!(svg.contains("data-node=\"a\""));
    let Alone::NotDrawn { reason, .. } = draw_alone("A --> B\n", "fig-1") else {
        panic!("no keyword");
    };
    assert!(reason.contains("not a type keyword"), "{reason}");
}

#[test]
fn an_er_diagram_it_cannot_read_points_at_its_line() {
    let Alone::NotDrawn { reason, line } = draw_alone(
        "erDiagram\n  A ||--o{ B : x\n  A {\n    string\n  }\n",
        "fig-1",
    ) else {
        panic!("an attribute without a name is not drawn");
    };
    assert!(
        reason.starts_with("the entity relationship diagram is not drawn: "),
        "{reason}"
    );
    assert!(reason.contains("no name"), "{reason}");
    assert_eq!(line, 4);
}

#[test]
fn a_flowchart_it_cannot_read_points_at_its_line() {
    let Alone::NotDrawn { reason, line } = draw_alone("graph TD\n  A --> B\n  C -->\n", "fig-1")
    else {
        panic!("a dangling edge is not drawn");
    };
    assert!(
        reason.starts_with("the flowchart is not drawn: "),
        "{reason}"
    );
    assert_eq!(line, 3);
}

#[test]
fn a_source_over_the_limit_is_refused_before_it_is_read() {
    let source = format!("graph TD\n{}", "  A --> B\n".repeat(MAX_SOURCE / 10 + 1));
    let Alone::NotDrawn { reason, .. } = draw_alone(&source, "fig-1") else {
        panic!("over the limit");
    };
    assert!(reason.contains("the limit is 65536"), "{reason}");
}

#[test]
fn a_drawn_diagram_carries_the_warnings_validate_gives_the_component() {
    for source in [
        "graph TD\n  A --> B\n  classDef hidden width:0px,height:0px\n  class B hidden\n",
        "graph TD\n  A --> B\n  click A call cb()\n",
        "sequenceDiagram\n  A->>B: hi\n  link A: Docs @ https://example.com\n",
        "stateDiagram-v2\n  [*] --> A\n  classDef hot fill:#f00\n",
    ] {
        let Alone::Drawn { warnings, .. } = draw_alone(source, "fig-1") else {
            panic!("not drawn: {source}");
        };
        let doc = format!(
            "```mermaid\n{}\n```\n",
            serde_json::json!({ "version": "1", "source": source })
        );
        let validated = crate::validate(&doc).diagnostics;
        let words = |d: &[crate::Diagnostic]| -> Vec<(crate::diag::Code, String, String)> {
            d.iter()
                .map(|d| (d.code, d.message.clone(), d.hint.clone()))
                .collect()
        };
        assert!(!warnings.is_empty(), "{source}");
        assert_eq!(words(&warnings), words(&validated), "{source}");
        // Each is about the source as a whole: its first line.
        assert!(
            warnings.iter().all(|w| (w.line, w.column) == (1, 1)),
            "{warnings:?}"
        );
    }
    // A clean diagram has none.
    let Alone::Drawn { warnings, .. } = draw_alone("graph TD\n  A --> B\n", "fig-1") else {
        panic!("not drawn");
    };
    assert!(warnings.is_empty(), "{warnings:?}");
}
