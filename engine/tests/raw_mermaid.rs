//! A ```mermaid fence holding plain Mermaid text, as GitHub, mermaid.live and mdbook-mermaid
//! users write it, is read as the diagram's source, with an `info` diagnostic, on every surface
//! and in the answers.

use passback_engine::{Options, Severity, Surface, render, validate};

fn fenced(body: &str) -> String {
    format!("# Plan\n\n```mermaid\n{body}\n```\n")
}

fn json_fenced(source: &str) -> String {
    let source = serde_json::to_string(source).expect("a string");
    format!("# Plan\n\n```mermaid\n{{ \"version\": \"1\", \"source\": {source} }}\n```\n")
}

const SOURCES: [&str; 5] = [
    "flowchart TD\n  A[Start] --> B{\"Ok?\"}\n  B -->|yes| C[Done]",
    "graph LR; A-->B; B-->C;",
    "sequenceDiagram\n  Alice->>Bob: Hello\n  Bob-->>Alice: Hi",
    "stateDiagram-v2\n  [*] --> Open\n  Open --> Closed\n  Closed --> [*]",
    "%% a comment first\ngraph TD\n  A --> B",
];

#[test]
fn raw_mermaid_is_the_source_with_an_info_note() {
    for source in SOURCES {
        let doc = fenced(source);
        let v = validate(&doc);
        assert!(v.ok, "{source}: {:?}", v.diagnostics);
        assert_eq!(v.blocks.len(), 1, "{source}");
        assert!(v.blocks[0].valid, "{source}");
        assert_eq!(v.blocks[0].kind, passback_engine::Kind::Mermaid);
        let notes: Vec<_> = v
            .diagnostics
            .iter()
            .filter(|d| d.code == "mermaid_source_bare")
            .collect();
        assert_eq!(notes.len(), 1, "{source}: {:?}", v.diagnostics);
        let note = notes[0];
        assert_eq!(note.severity, Severity::Info);
        assert_eq!(note.severity.name(), "info");
        // At the first line of the Mermaid text, inside the fence.
        assert_eq!((note.line, note.column), (4, 1), "{source}");
        assert_eq!(note.block.as_deref(), Some("b1"));
        assert!(
            v.diagnostics.iter().all(|d| d.code != "invalid_json"),
            "{source}: {:?}",
            v.diagnostics
        );
        let json = serde_json::to_value(&v).expect("serializes");
        assert_eq!(json["diagnostics"][0]["severity"], "info");
    }
}

/// Drawn on every surface as the JSON form of the same source draws it, but for the note.
#[test]
fn raw_mermaid_renders_as_its_json_form_on_every_surface() {
    for source in SOURCES {
        for surface in [Surface::Page, Surface::Routed, Surface::Email] {
            let options = Options::default().with_surface(surface);
            let raw = render(&fenced(source), &options);
            let json = render(&json_fenced(source), &options);
            assert!(!raw.html.contains("pb-invalid"), "{source} {surface:?}");
            assert!(raw.html.contains("pb-mermaid"), "{source} {surface:?}");
            // Same drawing and fields: the two differ only in the content hash.
            let block = |html: &str, hash: &str| {
                let html = html.replace(hash, "HASH").replace(&hash[..8], "HASH8");
                html[html.find("pb-block pb-mermaid").expect("the block")..].to_string()
            };
            assert_eq!(
                block(&raw.html, &raw.hash),
                block(&json.html, &json.hash),
                "{source} {surface:?}"
            );
        }
        let page = render(&fenced(source), &Options::default());
        if !source.starts_with("stateDiagram") {
            assert!(
                page.html.contains("data-pb-node="),
                "{source}: no node comments"
            );
        }
    }
}

/// A problem inside raw Mermaid is located in the raw text, line and column.
#[test]
fn problems_in_raw_mermaid_point_into_it() {
    let doc = fenced("graph TD\n  A --> B\n  \"quoted\" --> ");
    let v = validate(&doc);
    let problem = v
        .diagnostics
        .iter()
        .find(|d| d.code == "unsupported_diagram")
        .unwrap_or_else(|| panic!("{:?}", v.diagnostics));
    assert_eq!(problem.line, 6, "{problem:?}");
    assert!(problem.column > 1, "{problem:?}");
}

/// What is (or tries to be) JSON stays JSON: its mistakes are reported as before, and an
/// empty fence is not a diagram.
#[test]
fn json_bodies_and_empty_fences_are_not_raw_mermaid() {
    let v = validate("```mermaid\n{ \"version\": \"1\", \"source\": \"graph TD; A-->B;\" \n```\n");
    assert!(
        v.diagnostics.iter().any(|d| d.code == "invalid_json"),
        "{:?}",
        v.diagnostics
    );
    assert!(
        v.diagnostics
            .iter()
            .all(|d| d.code != "mermaid_source_bare")
    );
    let v = validate("```mermaid\n\n```\n");
    assert!(
        v.diagnostics
            .iter()
            .all(|d| d.code != "mermaid_source_bare"),
        "{:?}",
        v.diagnostics
    );
}
