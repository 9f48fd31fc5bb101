//! Inputs built to make a renderer slow or crash: each must come back with output (or a clear
//! warning or error) — the test fails by panicking or, in CI, by never finishing. No test here
//! asserts a wall-clock time.

use passback_engine::{Options, Surface, render, validate};

fn codes(out: &passback_engine::Rendered) -> Vec<&'static str> {
    out.diagnostics.iter().map(|d| d.code.name()).collect()
}

/// The rendered document after the form's own copy of its source, which holds it as written.
fn body(out: &passback_engine::Rendered) -> &str {
    out.html
        .split("name=\"pb.surface\"")
        .nth(1)
        .unwrap_or(&out.html)
}

#[test]
fn deep_block_quotes_with_raw_html_skip_the_quadratic_sanitizer() {
    let doc = format!(
        "{} <b onclick=\"x()\">bold</b> <script>alert(1)</script>\n",
        ">".repeat(50_000)
    );
    for surface in [Surface::Page, Surface::Email] {
        let out = render(&doc, &Options::default().with_surface(surface));
        assert!(codes(&out).contains(&"raw_html_escaped"));
        assert!(body(&out).contains("&lt;script&gt;") && !body(&out).contains("<script"));
        assert!(!body(&out).contains("onclick=\""));
    }
}

#[test]
fn deeply_nested_raw_html_skips_the_quadratic_sanitizer() {
    // 170,000 unclosed <div> lines, about 1 MB, in one HTML block: the sanitizer's tree builder
    // would look down an ever deeper stack for each (minutes). Split over separate HTML blocks
    // the elements stay open all the same.
    for doc in [
        "<div>\n".repeat(170_000) + "<script>alert(1)</script>\n",
        "<div>\n\nprose\n\n".repeat(40_000) + "<script>alert(1)</script>\n",
    ] {
        let out = render(&doc, &Options::default());
        assert!(
            codes(&out).contains(&"raw_html_escaped"),
            "{:?}",
            codes(&out)
        );
        assert!(body(&out).contains("&lt;script&gt;") && !body(&out).contains("<script"));
    }
    // Ordinary HTML, even a lot of it, is sanitized as before: tags a browser closes by itself
    // and balanced ones do not add up.
    let doc = "<p>one<p>two<br><img src=\"a.png\"><div><b>x</b></div>\n\n".repeat(2_000);
    let out = render(&doc, &Options::default());
    assert!(
        !codes(&out).contains(&"raw_html_escaped"),
        "{:?}",
        codes(&out)
    );
    assert!(out.html.contains("<b>x</b>"));
    // 70 levels of <div> is past the limit; 40 is not.
    for (levels, escaped) in [(70, true), (40, false)] {
        let doc = format!("{}text\n", "<div>".repeat(levels));
        let out = render(&doc, &Options::default());
        assert_eq!(
            codes(&out).contains(&"raw_html_escaped"),
            escaped,
            "{levels}"
        );
    }
}

#[test]
fn deep_nesting_with_only_a_comment_needs_no_warning_from_render_or_validate() {
    let doc = format!("{} text <!-- a note -->\n", ">".repeat(500));
    let out = render(&doc, &Options::default());
    assert!(
        !codes(&out).contains(&"raw_html_escaped"),
        "{:?}",
        codes(&out)
    );
    assert!(!body(&out).contains("a note"));
    let v = validate(&doc);
    assert_eq!(
        v.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(),
        codes(&out),
        "validate and render judge raw HTML alike"
    );
    // Real markup at that depth is still escaped, by both.
    let doc = format!("{} text <b>bold</b>\n", ">".repeat(500));
    assert!(codes(&render(&doc, &Options::default())).contains(&"raw_html_escaped"));
    assert!(
        validate(&doc)
            .diagnostics
            .iter()
            .any(|d| d.code == "raw_html_escaped")
    );
}

#[test]
fn deep_lists_brackets_and_emphasis_runs() {
    let cases = [
        format!("{}x <i>y</i>\n", "- ".repeat(20_000)),
        format!("{}x{}\n", "[".repeat(50_000), "]".repeat(50_000)),
        format!("{}x{}\n", "*a".repeat(30_000), "a*".repeat(30_000)),
        format!("{}\n", "_*".repeat(50_000)),
        format!("{}x\n", "<div>".repeat(5_000)),
        format!("{}\n", "![](".repeat(20_000)),
        "`".repeat(100_000),
    ];
    for doc in &cases {
        let out = render(doc, &Options::default());
        assert!(out.html.starts_with("<div class=\"pb-doc\""));
        assert!(!out.html.contains("<script"));
    }
}

#[test]
fn json_nested_a_hundred_thousand_deep_is_refused_with_a_diagnostic() {
    let doc = format!("```questionnaire\n{}\n```\n", "[".repeat(100_000));
    let v = validate(&doc);
    assert_eq!(v.outcome.name(), "violating");
    assert_eq!(v.diagnostics[0].code, "too_deep");
    let doc = format!(
        "```questionnaire\n{{\"version\":\"1\",\"questions\":{}{}}}\n```\n",
        "{\"a\":".repeat(100_000),
        "}".repeat(100_000)
    );
    assert_eq!(validate(&doc).diagnostics[0].code, "too_deep");
}

#[test]
fn huge_lines_and_many_blocks() {
    let line = format!("{}\n", "word ".repeat(1_000_000));
    assert!(render(&line, &Options::default()).html.len() > 5_000_000);
    let block = "```open-question\n{\"version\":\"1\",\"question\":\"Why?\"}\n```\n\n";
    let doc = block.repeat(10_000);
    let out = render(&doc, &Options::default());
    assert_eq!(out.blocks.len(), 10_000);
    assert_eq!(out.blocks[9_999].id, "b10000");
    assert!(out.diagnostics.is_empty());
}

#[test]
fn a_ladder_of_diamonds_is_laid_out() {
    // Every rung can be crossed two ways, so the paths below the first node double with each
    // rung; listed bottom up, each new edge asked whether it closes a cycle. With layout-rs's
    // path-walking reachability this took minutes at 30 rungs; 45 rungs (136 nodes, 180
    // edges) is within the diagram caps.
    let rungs = 45;
    let mut source = String::from("graph TD\n");
    for i in (0..rungs).rev() {
        let j = i + 1;
        source.push_str(&format!(
            "  A{i} --> B{i}\n  A{i} --> C{i}\n  B{i} --> A{j}\n  C{i} --> A{j}\n"
        ));
    }
    let doc = format!(
        "```mermaid\n{}\n```\n",
        serde_json::json!({ "version": "1", "source": source })
    );
    let out = render(&doc, &Options::default());
    assert!(out.diagnostics.is_empty(), "{:?}", codes(&out));
    assert!(out.html.contains("<svg"), "the ladder is drawn");
    assert!(out.html.contains("data-node=\"A45\""));
}

#[test]
fn allocate_totals_and_weights_past_the_limit_are_refused_not_counted_out() {
    // 1e308 made the largest-remainder rounding count out ~9.2e18 single steps (a hang), and
    // 1e20 overflowed its integer sum.
    for (total, weight) in ["1e308", "1e20", "100"]
        .into_iter()
        .zip(["1e308", "1", "1e16"])
    {
        let doc = format!(
            "```allocate\n{{\"version\":\"1\",\"total\":{total},\"items\":[{{\"id\":\"a\",\"label\":\"A\",\"weight\":{weight}}},{{\"id\":\"b\",\"label\":\"B\",\"weight\":{weight}}}]}}\n```\n"
        );
        for surface in [Surface::Page, Surface::Email] {
            let out = render(&doc, &Options::default().with_surface(surface));
            assert!(
                codes(&out).contains(&"out_of_range"),
                "{doc}: {:?}",
                codes(&out)
            );
            assert!(out.html.contains("pb-invalid"), "shown as its source");
        }
    }
}

/// A mermaid block of `source`.
fn mermaid_block(source: &str) -> String {
    format!(
        "```mermaid\n{}\n```\n",
        serde_json::json!({ "version": "1", "source": source })
    )
}

/// Sources at the 64 KiB limit built to make the parsers and the layout do the most work per
/// byte: thousands of distinct nodes, edge attributes looked up by Mermaid's edge ids, styles
/// by the thousand, participants and messages by the thousand. Each comes back, drawn or
/// with a warning, within the diagram caps.
#[test]
fn sources_at_the_64_kib_limit_stay_within_the_caps() {
    const LIMIT: usize = 64 * 1024;
    let fill = |head: &str, unit: &dyn Fn(usize) -> String| {
        let mut s = String::from(head);
        let mut i = 0;
        loop {
            let u = unit(i);
            if s.len() + u.len() > LIMIT {
                break;
            }
            s.push_str(&u);
            i += 1;
        }
        s
    };
    let sources = [
        // Distinct nodes, one statement each.
        fill("graph TD\n", &|i| format!("n{i}\n")),
        // A chain of distinct nodes: more edges than a flowchart may have.
        fill("graph TD\nn0", &|i| format!("-->n{}", i + 1)),
        // Edge attributes named by Mermaid's own edge ids, after as many edges as allowed.
        fill(
            &format!(
                "graph TD\n{}",
                (0..2000)
                    .map(|i| format!("a{i}-->b{i}\n"))
                    .collect::<String>()
            ),
            &|i| format!("L_a{}_b{}_0@{{ animate: true }}\n", i % 2000, i % 2000),
        ),
        // Classes and styles by the thousand.
        fill("graph TD\nA-->B\n", &|i| {
            format!(
                "classDef c{i} fill:#f9f,stroke:#333\nclass A,B c{i}\nstyle A fill:#{:03x}\n",
                i % 4096
            )
        }),
        // Participants and messages by the thousand.
        fill("sequenceDiagram\n", &|i| format!("p{i}->>p{}: m\n", i + 1)),
        fill("sequenceDiagram\nA->>B: x\n", &|_| {
            "A->>B: hi\n".to_string()
        }),
    ];
    for source in &sources {
        assert!(
            source.len() <= LIMIT && source.len() > LIMIT - 100,
            "{}",
            source.len()
        );
        let doc = mermaid_block(source);
        let out = render(&doc, &Options::default());
        assert!(!codes(&out).contains(&"too_long"), "{:?}", codes(&out));
        assert!(
            out.html.contains("pb-mermaid"),
            "a diagram or its placeholder"
        );
        let checked = validate(&doc);
        assert!(
            !checked
                .diagnostics
                .iter()
                .any(|d| d.code.name() == "too_long")
        );
    }
    // One byte over the limit is refused.
    let over = format!("graph TD\n{}", "a".repeat(LIMIT - 8));
    let out = render(&mermaid_block(&over), &Options::default());
    assert!(codes(&out).contains(&"too_long"), "{:?}", codes(&out));
}
