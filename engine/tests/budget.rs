//! The render budget (`passback_engine::Limits`): documents whose few bytes ask for far more
//! work — GFM's filled-in table cells, Mermaid `&` groups, a flood of components — render in
//! proportion to their size, with a warning naming what was cut and where; the rest of the
//! document renders as usual.

use passback_engine::{Limits, Options, Rendered, render, validate, with_limits};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

const CHOICE: &str = "```single-choice\n{ \"version\": \"1\", \"question\": \"Which?\", \"options\": [\"A\", \"B\"] }\n```\n";

/// `'|' + 'a|'*300` header, delimiter row, `'|b\n'*3000`: 10 KB that GFM fills out to 903,000
/// cells (about 112 MB of tree and 5 MB of HTML before the budget).
fn wide_table() -> String {
    format!(
        "|{}\n|{}\n{}",
        "a|".repeat(300),
        "-|".repeat(300),
        "|b\n".repeat(3000)
    )
}

fn over_budget(out: &[passback_engine::Diagnostic]) -> Vec<&passback_engine::Diagnostic> {
    out.iter()
        .filter(|d| d.code.name() == "over_budget")
        .collect()
}

fn rendered(doc: &str) -> Rendered {
    render(doc, &Options::default())
}

#[test]
fn a_table_that_gfm_would_fill_out_is_shown_as_text() {
    let doc = format!("Intro.\n\n{}\n{CHOICE}\nEnd.\n", wide_table());
    assert!(doc.len() < 11_000);
    let out = rendered(&doc);
    let warned = over_budget(&out.diagnostics);
    assert_eq!(warned.len(), 1, "{:?}", out.diagnostics);
    // The table's header is on line 3.
    assert_eq!(warned[0].line, 3);
    assert!(
        warned[0].message.contains("300 columns"),
        "{}",
        warned[0].message
    );
    // No table was built: the text reads as written, and the rest of the document renders.
    assert!(!out.html.contains("<table"));
    assert!(out.html.contains("|a|a|a|"));
    assert!(
        out.html.contains("|-|-|-|"),
        "the delimiter row reads as written"
    );
    assert!(out.html.contains("pb-single-choice") && out.html.contains("End."));
    assert!(out.html.len() < 100_000, "{} bytes", out.html.len());
    // `validate` sees the same.
    let v = validate(&doc);
    assert!(v.ok);
    assert_eq!(over_budget(&v.diagnostics).len(), 1);
}

#[test]
fn the_table_budget_is_per_document_not_per_table() {
    // Twenty tables that each fit alone (204 KB, 2.2 GB before): the budget runs out.
    let doc = format!("{}\n\n", wide_table()).repeat(20);
    let out = rendered(&doc);
    let warned = over_budget(&out.diagnostics);
    assert!(!warned.is_empty());
    assert!(out.html.len() < 3 * doc.len(), "{} bytes", out.html.len());
    // A table written cell by cell always fits.
    let honest = format!(
        "|{}\n|{}\n{}",
        "a|".repeat(50),
        "-|".repeat(50),
        format!("|{}\n", "b|".repeat(50)).repeat(2000)
    );
    let out = rendered(&honest);
    assert!(over_budget(&out.diagnostics).is_empty());
    assert_eq!(out.html.matches("<td").count(), 100_000);
}

#[test]
fn tables_inside_code_blocks_and_quotes_are_counted_as_markdown_reads_them() {
    // In a code block it is text anyway: nothing to count, nothing changed.
    let fenced = format!("```\n{}```\n", wide_table());
    let out = rendered(&fenced);
    assert!(over_budget(&out.diagnostics).is_empty());
    assert!(out.html.contains("|-|-|"));
    // In a block quote it is a table: counted.
    let quoted: String = wide_table().lines().map(|l| format!("> {l}\n")).collect();
    let out = rendered(&quoted);
    assert_eq!(over_budget(&out.diagnostics).len(), 1);
    assert!(!out.html.contains("<table"));
}

#[test]
fn rows_of_a_table_shown_as_text_cannot_open_tables_past_the_budget() {
    // Every other line a delimiter row: with the first table shown as text, each row pair
    // could open a table of its own.
    let doc = format!(
        "|{}\n{}",
        "a|".repeat(300),
        format!("|{}\n|b\n", "-|".repeat(300)).repeat(1500)
    );
    let out = rendered(&doc);
    let cells = out.html.matches("<td").count() + out.html.matches("<th").count();
    assert!(cells <= doc.len() + 4096, "{cells} cells");
    assert!(!over_budget(&out.diagnostics).is_empty());
    // Many tables: the warnings stop at a handful and count the rest.
    assert!(over_budget(&out.diagnostics).len() <= 16);
}

fn mermaid(source: &str) -> String {
    format!(
        "```mermaid\n{}\n```\n",
        serde_json::json!({ "version": "1", "source": source })
    )
}

/// `graph TD` / `l0 & … & l586 --> r0 & … & r586`: 8 KB, 344,569 edges expanded.
fn ampersand_chain() -> String {
    let side = |p: &str| {
        (0..587)
            .map(|i| format!("{p}{i}"))
            .collect::<Vec<_>>()
            .join("&")
    };
    format!("graph TD\n{} --> {}", side("l"), side("r"))
}

#[test]
fn an_ampersand_chain_is_refused_before_it_multiplies() {
    let source = ampersand_chain();
    assert!(source.len() <= 8 * 1024, "{}", source.len());
    let doc = format!("Intro.\n\n{}\nEnd.\n", mermaid(&source));
    let out = rendered(&doc);
    let warned: Vec<_> = out
        .diagnostics
        .iter()
        .filter(|d| d.code.name() == "unsupported_diagram")
        .collect();
    assert_eq!(warned.len(), 1, "{:?}", out.diagnostics);
    assert_eq!(warned[0].block.as_deref(), Some("b1"));
    assert!(
        warned[0].message.contains("587 nodes to 587"),
        "{}",
        warned[0].message
    );
    // No comment field per edge: 74 MB of HTML before.
    assert!(out.html.len() < 200_000, "{} bytes", out.html.len());
    assert!(!out.html.contains("pb.b1.edge."));
    assert!(out.html.contains("End."));
    // Twenty of them, each refused the same way.
    let many = format!("{}\n", mermaid(&source)).repeat(20);
    let out = rendered(&many);
    assert!(out.html.len() < 3_000_000, "{} bytes", out.html.len());
}

#[test]
fn diagrams_share_one_budget_of_comment_fields() {
    // Each chart is 4000 edges written out (under the per-chart cap); together they pass the
    // document's budget, and the later ones keep only their whole-diagram comment.
    let source = format!(
        "graph LR\n{}",
        (0..4000)
            .map(|i| format!("a{}-->a{}", i % 97, (i * 7) % 89))
            .collect::<Vec<_>>()
            .join(";")
    );
    let source = &source[..source[..8 * 1024].rfind(';').unwrap()];
    let doc = format!("{}\n", mermaid(source)).repeat(12);
    let limits = Limits::new(250_000, 3000, 32 << 20);
    let out = with_limits(limits, None, || rendered(&doc));
    let warned = over_budget(&out.diagnostics);
    assert!(!warned.is_empty(), "{:?}", out.diagnostics);
    assert!(warned.iter().all(|d| d.block.is_some() && d.line > 1));
    let fields = out.html.matches("name=\"pb.b").count();
    assert!(fields < 3000 + 12 * 4, "{fields} comment fields");
}

#[test]
fn component_markup_is_held_to_the_output_budget() {
    let doc = CHOICE.repeat(200) + "\nEnd.\n";
    let limits = Limits::new(250_000, 20_000, 1 << 20);
    // The budget is 64 bytes per byte of document plus 1 MiB: capped at 1 MiB here, with
    // each choice about 2 KB of markup, the later ones show as their source.
    let small = Limits::new(250_000, 20_000, 64 * 1024);
    let out = with_limits(small, None, || rendered(&doc));
    let warned = over_budget(&out.diagnostics);
    assert_eq!(warned.len(), 1, "{:?}", out.diagnostics);
    assert!(warned[0].block.is_some());
    assert!(out.html.contains("pb-invalid") && out.html.contains("End."));
    let whole = with_limits(limits, None, || rendered(&doc));
    assert!(over_budget(&whole.diagnostics).is_empty());
    assert!(out.html.len() < whole.html.len());
}

#[test]
fn a_cancelled_render_stops_and_is_not_cached() {
    let doc = CHOICE.repeat(50);
    let engine = passback_engine::Engine::default();
    let cancel = Arc::new(AtomicBool::new(true));
    let out = with_limits(Limits::default(), Some(cancel), || {
        engine.render(&doc, &Options::default())
    });
    assert!(!out.html.contains("pb-single-choice"));
    // The next request renders it in full, not the cut-short copy.
    let again = engine.render(&doc, &Options::default());
    assert_eq!(again.html.matches("pb-block pb-single-choice").count(), 50);
}

#[test]
fn the_output_budget_cuts_in_document_order_whatever_the_kinds() {
    // Kinds alternate, so a cut by kind would leave later single-choice blocks drawn after
    // open questions that were cut.
    let open = "```open-question\n{ \"version\": \"1\", \"question\": \"Why?\" }\n```\n";
    let doc = format!("{CHOICE}\n{open}\n").repeat(100);
    let small = Limits::new(250_000, 20_000, 64 * 1024);
    let out = with_limits(small, None, || rendered(&doc));
    let warned = over_budget(&out.diagnostics);
    assert_eq!(warned.len(), 1, "{:?}", out.diagnostics);
    let cut: usize = warned[0].block.as_deref().unwrap()[1..].parse().unwrap();
    assert!(cut > 2 && cut < 200, "cut at b{cut}");
    for n in 1..=200 {
        let as_source = out
            .html
            .contains(&format!("<pre class=\"pb-invalid\" data-pb-block=\"b{n}\""));
        let drawn = !as_source;
        assert_eq!(drawn, n < cut, "b{n} (cut at b{cut})");
    }
}

/// An architecture diagram as large as real ones run (16 KB): twelve areas of services with
/// long labels, comments, classes and labelled links between the areas.
fn architecture_16k() -> String {
    let mut s =
        String::from("%% Platform overview: every service and what calls what.\nflowchart LR\n");
    s.push_str("classDef store fill:#fff3bf,stroke:#e67700,stroke-width:2px\n");
    s.push_str(
        "classDef edge fill:#d0ebff,stroke:#1c7ed6\nclassDef risk fill:#c92a2a,color:#fff\n",
    );
    let areas = [
        "ingest",
        "auth",
        "billing",
        "search",
        "catalog",
        "orders",
        "payments",
        "notify",
        "reports",
        "admin",
        "storage",
        "observability",
    ];
    for (a, area) in areas.iter().enumerate() {
        s.push_str(&format!("  %% ---- {area} ----\n  subgraph {area}[\"{area} area: owned by team {a}, on-call rota {a}\"]\n    direction TB\n"));
        for k in 0..9 {
            let class = match k {
                0 => ":::edge",
                8 => ":::store",
                _ => "",
            };
            s.push_str(&format!(
                "    {area}_{k}[\"{area} service {k}<br/>handles {area} requests of kind {k}, retries three times\"]{class}\n"
            ));
        }
        for k in 0..8 {
            s.push_str(&format!("    {area}_{k} -->|calls| {area}_{}\n", k + 1));
        }
        s.push_str("  end\n");
    }
    for (a, area) in areas.iter().enumerate().skip(1) {
        s.push_str(&format!(
            "  {}_8 -- \"publishes events to\" --> {area}_0\n",
            areas[a - 1]
        ));
    }
    s.push_str(
        "  class payments_3,billing_4 risk\n  linkStyle 0 stroke:#c92a2a,stroke-width:3px\n",
    );
    while s.len() < 16 * 1024 {
        s.push_str(
            "  %% Reviewed quarterly by the platform group; keep labels short where possible.\n",
        );
    }
    s
}

#[test]
fn a_16_kb_architecture_diagram_is_drawn() {
    let source = architecture_16k();
    assert!(source.len() >= 16 * 1024, "{}", source.len());
    let out = rendered(&mermaid(&source));
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    assert!(
        out.html.contains("pb-mermaid-flowchart"),
        "drawn, not a placeholder"
    );
    assert!(out.html.contains("data-node=\"observability_8\""));
    // The classes' colours reach the boxes.
    assert!(out.html.contains("fill=\"#fff3bf\"") && out.html.contains("fill=\"#c92a2a\""));
}
