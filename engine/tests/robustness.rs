//! The engine on hostile input: it must finish, never panic, and stay linear in the size of
//! the document. Nothing here measures time; the sizes are chosen so that quadratic behaviour
//! would take minutes, while the linear engine takes well under a few seconds per test even in
//! a debug build. Every test checks that the output is there and makes sense.

use passback_engine::{Kind, Options, Rendered, Severity, render, validate};

const MB: usize = 1024 * 1024;

/// Renders `src` (fragment, page surface), checks the invariants every rendering must keep, and
/// checks that `validate` agrees with it.
fn render_checked(src: &str) -> Rendered {
    let out = render(src, &Options::default());
    assert_sane(src, &out);
    let v = validate(src);
    assert_eq!(
        v.blocks, out.blocks,
        "validate and render disagree on blocks"
    );
    assert_eq!(v.diagnostics.len(), out.diagnostics.len());
    assert_eq!(v.ok, !out.diagnostics.iter().any(|d| d.is_error()));
    out
}

fn assert_sane(src: &str, out: &Rendered) {
    let line_count = src.lines().count().max(1);
    assert!(
        out.html.starts_with("<div class=\"pb-doc\""),
        "no document root"
    );
    assert!(out.html.ends_with("</div>"), "document root not closed");
    for (i, b) in out.blocks.iter().enumerate() {
        assert_eq!(
            b.id,
            format!("b{}", i + 1),
            "block ids are numbered in order"
        );
        assert!(
            (1..=line_count).contains(&b.line),
            "{b:?} is outside the document"
        );
        if i > 0 {
            assert!(
                b.line > out.blocks[i - 1].line,
                "blocks out of order at {}",
                b.id
            );
        }
    }
    assert_eq!(
        count(&out.html, "data-pb-block=\""),
        out.blocks.len(),
        "every block, and only blocks, carry data-pb-block"
    );
    assert_eq!(
        count(&out.html, "class=\"pb-invalid\""),
        out.blocks.iter().filter(|b| !b.valid).count(),
        "every invalid block renders as its escaped source"
    );
    for d in &out.diagnostics {
        assert!(
            (1..=line_count).contains(&d.line) && d.column >= 1,
            "diagnostic outside the document: {d:?}"
        );
        if let Some(id) = &d.block {
            assert!(
                out.blocks.iter().any(|b| &b.id == id),
                "diagnostic names a block that does not exist: {d:?}"
            );
        }
    }
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

fn codes(out: &Rendered, code: &str) -> usize {
    out.diagnostics.iter().filter(|d| d.code == code).count()
}

/// One small valid fence of each kind, in `Kind::ALL` order.
fn fence(kind: Kind, n: usize) -> String {
    let json = match kind {
        Kind::SingleChoice => format!(
            r#"{{ "version": "1", "question": "Ship plan {n}?", "options": ["Now", "Later"], "recommended": "Now" }}"#
        ),
        Kind::MultiChoice => format!(
            r#"{{ "version": "1", "question": "Regions for {n}?", "options": ["EU", "US", "APAC"] }}"#
        ),
        Kind::OpenQuestion => {
            format!(r#"{{ "version": "1", "question": "Why {n}?", "placeholder": "a reason" }}"#)
        }
        Kind::Questionnaire => format!(
            r#"{{ "version": "1", "title": "Batch {n}", "questions": [
  {{ "id": "q1", "question": "First?", "options": ["Yes", "No"] }},
  {{ "id": "q2", "question": "Second?", "multi": true, "options": ["A", "B", "C"] }},
  {{ "id": "q3", "question": "Third?", "options": [], "open_field": {{ "label": "Say:" }} }}
] }}"#
        ),
        Kind::Prioritize => format!(
            r#"{{ "version": "1", "title": "Order {n}", "items": [{{ "id": "a", "label": "Alpha" }}, {{ "id": "b", "label": "Beta" }}, {{ "id": "c", "label": "Gamma" }}] }}"#
        ),
        Kind::Allocate => format!(
            r#"{{ "version": "1", "title": "Split {n}", "items": [{{ "id": "a", "label": "Build", "weight": 60 }}, {{ "id": "b", "label": "Fix", "weight": 40 }}] }}"#
        ),
        Kind::Youtube => r#"{ "version": "1", "id": "aqz-KE-bpKQ", "title": "A talk" }"#.into(),
        Kind::Mermaid => {
            r#"{ "version": "1", "source": "flowchart TD\n  A[Start] --> B[End]" }"#.into()
        }
        other => panic!("no sample fence for {}", other.tag()),
    };
    format!("```{}\n{json}\n```\n", kind.tag())
}

#[test]
fn five_megabytes_of_prose_and_components() {
    let mut src = String::with_capacity(5 * MB + 4096);
    let mut sections = 0;
    while src.len() < 5 * MB {
        sections += 1;
        src.push_str(&format!(
            "## Section {sections}\n\nSome *prose* with **weight**, `code`, a [link](https://example.com/{sections}) \
             and <kbd>raw</kbd> HTML.\n\n- one\n- two\n  1. nested\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n\
             > a quote\n\n"
        ));
        for (k, &kind) in Kind::ALL.iter().enumerate() {
            src.push_str(&fence(kind, sections * 10 + k));
            src.push('\n');
        }
        // One broken block and one near-miss tag per section.
        src.push_str("```single-choice\n{ \"version\": 1, \"question\": \"Broken?\", \"options\": [\"A\", \"B\"] }\n```\n\n");
        src.push_str("```multiple-choice\n{}\n```\n\n");
    }
    assert!(src.len() >= 5 * MB);
    let out = render_checked(&src);
    assert_eq!(out.blocks.len(), sections * 9);
    for (i, b) in out.blocks.iter().enumerate() {
        let expected = Kind::ALL.get(i % 9).copied().unwrap_or(Kind::SingleChoice);
        assert_eq!(b.kind, expected, "{}", b.id);
        assert_eq!(b.valid, i % 9 != 8, "{}", b.id);
    }
    assert_eq!(codes(&out, "wrong_version"), sections);
    assert_eq!(codes(&out, "unknown_tag"), sections);
    let errors = out.diagnostics.iter().filter(|d| d.is_error()).count();
    assert_eq!(errors, sections, "only the broken blocks are errors");
    // Raw HTML in prose is kept (sanitized) or shown escaped, never lost: once in the prose,
    // once (escaped) in the form's hidden copy of the source.
    let kbd = count(&out.html, "<kbd>raw</kbd>") + count(&out.html, "&lt;kbd&gt;raw&lt;/kbd&gt;");
    assert_eq!(kbd, 2 * sections);
    assert_eq!(count(&out.html, "<table>"), sections);
}

#[test]
fn ten_thousand_component_blocks() {
    let mut src = String::new();
    for n in 0..10_000 {
        src.push_str(&format!("Paragraph {n}.\n\n"));
        src.push_str(&fence(Kind::ALL[n % 8], n));
        src.push('\n');
    }
    let out = render_checked(&src);
    assert_eq!(out.blocks.len(), 10_000);
    assert_eq!(out.blocks[9_999].id, "b10000");
    assert!(out.blocks.iter().all(|b| b.valid));
    assert!(out.diagnostics.is_empty(), "{:?}", &out.diagnostics[..1]);
    assert_eq!(count(&out.html, "class=\"pb-block pb-"), 10_000);
    // One form for the whole document, one submit button.
    assert_eq!(count(&out.html, "<form "), 1);
    assert_eq!(count(&out.html, "class=\"pb-submit\""), 1);
}

#[test]
fn ten_thousand_invalid_blocks_with_several_diagnostics_each() {
    // Per block: a number version (error), the `q` alias, an unknown field and a trailing
    // comma (warnings).
    let one = "```single-choice\n{ \"version\": 1, \"q\": \"Q?\", \"options\": [\"A\", \"B\"], \"colour\": \"red\", }\n```\n\n";
    let src = one.repeat(10_000);
    let out = render_checked(&src);
    assert_eq!(out.blocks.len(), 10_000);
    assert!(out.blocks.iter().all(|b| !b.valid));
    for code in [
        "wrong_version",
        "question_alias_rescued",
        "unknown_field",
        "trailing_comma_rescued",
    ] {
        assert_eq!(codes(&out, code), 10_000, "{code}");
    }
    // Each diagnostic belongs to the block on the line above it.
    for d in &out.diagnostics {
        let block = d
            .block
            .as_deref()
            .and_then(|id| id[1..].parse::<usize>().ok());
        assert_eq!(block.map(|b| (b - 1) * 4 + 2), Some(d.line), "{d:?}");
    }
}

#[test]
fn lists_nested_ten_thousand_deep() {
    let fence_text = fence(Kind::SingleChoice, 1);
    for marker in ["- ", "1. ", "* > "] {
        let src = format!("{}bottom\n\n{fence_text}", marker.repeat(10_000));
        let out = render_checked(&src);
        assert!(
            out.html.contains("bottom"),
            "{marker}: the innermost text is lost"
        );
        let lists = count(&out.html, "<ul>") + count(&out.html, "<ol>");
        assert!((1..=10_000).contains(&lists), "{marker}: {lists} lists");
        assert_eq!(out.blocks.len(), 1, "{marker}");
        assert!(out.blocks[0].valid, "{marker}");
        assert_eq!(out.blocks[0].line, 3, "{marker}");
    }
}

#[test]
fn block_quotes_nested_ten_thousand_deep() {
    let depth = 10_000;
    let q = ">".repeat(depth);
    let json = r#"{ "version": "1", "question": "Deep?", "options": ["Yes", "No"] }"#;
    let src = format!("{q} deep text\n{q}\n{q} ```single-choice\n{q} {json}\n{q} ```\n");
    let out = render_checked(&src);
    assert_eq!(count(&out.html, "<blockquote>"), depth);
    assert_eq!(count(&out.html, "</blockquote>"), depth);
    assert_eq!(out.blocks.len(), 1);
    assert!(out.blocks[0].valid, "{:?}", out.diagnostics);
    assert_eq!(out.blocks[0].line, 3);
    assert!(out.html.contains("class=\"pb-block pb-single-choice\""));
}

/// Raw HTML sends the prose through ammonia (html5ever), whose cost grows with the square of
/// the nesting depth: measured in a debug build, 1,000 levels take 0.08 s, 4,000 take 0.8 s,
/// 10,000 take 3.3 s and 20,000 take 12.7 s. The depth here is kept small enough for a quick
/// test; the quadratic cost is a known, reported limitation, not something this test hides.
#[test]
fn block_quotes_nested_deep_with_raw_html() {
    let depth = 5_000;
    let q = ">".repeat(depth);
    let json = r#"{ "version": "1", "question": "Deep?", "options": ["Yes", "No"] }"#;
    let src = format!(
        "{q} deep <b>bold</b> <script>alert(1)</script>\n{q}\n{q} ```single-choice\n{q} {json}\n{q} ```\n"
    );
    let out = render_checked(&src);
    assert_eq!(count(&out.html, "<blockquote>"), depth);
    // Sanitized or shown escaped, the raw HTML stays (once in the prose, once in the form's
    // hidden copy of the source) and its script never runs.
    let bold = count(&out.html, "<b>bold</b>") + count(&out.html, "&lt;b&gt;bold&lt;/b&gt;");
    assert_eq!(bold, 2);
    assert!(!out.html.contains("<script"));
    assert_eq!(out.blocks.len(), 1);
    assert!(out.blocks[0].valid, "{:?}", out.diagnostics);
    assert!(out.html.contains("class=\"pb-block pb-single-choice\""));
}

#[test]
fn json_nested_ten_thousand_deep_is_too_deep() {
    let depth = 10_000;
    let cases = [
        (
            "questionnaire",
            format!(
                "{{\"version\":\"1\",\"questions\":{}{}}}",
                "[".repeat(depth),
                "]".repeat(depth)
            ),
        ),
        (
            "single-choice",
            format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth)),
        ),
        // Never closed: the depth limit still comes first.
        ("allocate", "[{\"x\":".repeat(depth)),
    ];
    for (tag, json) in cases {
        let src = format!("Before.\n\n```{tag}\n{json}\n```\n\nAfter.\n");
        let out = render_checked(&src);
        assert_eq!(out.blocks.len(), 1, "{tag}");
        assert!(!out.blocks[0].valid, "{tag}");
        assert_eq!(out.diagnostics.len(), 1, "{tag}: {:?}", out.diagnostics);
        let d = &out.diagnostics[0];
        assert_eq!(
            (d.code.name(), d.severity, d.block.as_deref(), d.line),
            ("too_deep", Severity::Error, Some("b1"), 4),
            "{tag}"
        );
        assert!(
            out.html.contains("<p data-pb-leaf=\"2\">After.</p>"),
            "{tag}"
        );
    }
    // The bare-paste shortcut meets the same JSON without a fence: it is not a component.
    let bare = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let out = render_checked(&bare);
    assert!(out.blocks.is_empty());
}

#[test]
fn five_megabyte_single_line() {
    let words = "lorem ipsum dolor sit amet ".repeat(5 * MB / 27 + 1);
    let out = render_checked(&words);
    assert_eq!(count(&out.html, "<p data-pb-leaf=\"1\">"), 1);
    assert!(out.html.len() > words.len() - 2);

    // A denser mix of inline syntax on one line (1 MB keeps the debug build quick).
    let inline = "*em* **strong** [link](/x) `code` <https://a.example> _u_ ~~s~~ \\* &amp; "
        .repeat(MB / 72);
    let out = render_checked(&inline);
    assert_eq!(count(&out.html, "<p data-pb-leaf=\"1\">"), 1);
    assert_eq!(count(&out.html, "<em>em</em>"), MB / 72);
    assert_eq!(count(&out.html, "<del>s</del>"), MB / 72);

    // A component whose JSON is one 5 MB line.
    let long = "x".repeat(5 * MB);
    let src = format!(
        "```open-question\n{{ \"version\": \"1\", \"question\": \"{long}\", \"colour\": 1 }}\n```\n"
    );
    let out = render_checked(&src);
    assert!(out.blocks[0].valid);
    assert_eq!(codes(&out, "unknown_field"), 1);
    let json_line = src.lines().nth(1).unwrap_or("");
    let colour = json_line.find("\"colour\"").map_or(0, |i| i + 1);
    assert_eq!(
        (out.diagnostics[0].line, out.diagnostics[0].column),
        (2, colour)
    );
    assert!(out.html.contains(&long));
}

#[test]
fn one_line_block_with_forty_thousand_keys() {
    // 20,000 distinct unknown keys, then the same 20,000 again (duplicates), on one line.
    let mut json = String::from("{\"version\":\"1\"");
    for round in 0..2 {
        for i in 0..20_000 {
            json.push_str(&format!(",\"k{i}\":{round}"));
        }
    }
    json.push('}');
    let src = format!("```allocate\n{json}\n```\n");
    let out = render_checked(&src);
    assert!(!out.blocks[0].valid);
    assert_eq!(codes(&out, "unknown_field"), 40_000);
    assert_eq!(codes(&out, "duplicate_key"), 20_000);
    assert_eq!(codes(&out, "missing_field"), 1);
    // Columns follow the keys along the line.
    let columns: Vec<usize> = out
        .diagnostics
        .iter()
        .filter(|d| d.code == "unknown_field")
        .map(|d| d.column)
        .collect();
    assert_eq!(columns[0], json.find("\"k0\"").map_or(0, |i| i + 1));
    assert!(columns.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn components_with_tens_of_thousands_of_entries() {
    // Options: 40,000 distinct plus every tenth one again.
    let mut options: Vec<String> = (0..40_000).map(|i| format!("\"o{i}\"")).collect();
    options.extend((0..40_000).step_by(10).map(|i| format!("\"o{i}\"")));
    let src = format!(
        "```multi-choice\n{{\"version\":\"1\",\"question\":\"Q?\",\"options\":[{}]}}\n```\n",
        options.join(",")
    );
    let out = render_checked(&src);
    assert!(!out.blocks[0].valid);
    assert_eq!(codes(&out, "duplicate_option"), 4_000);
    assert_eq!(codes(&out, "too_many"), 1);

    // A prioritize list of 10,000 items: valid, and its markup stays proportional to it.
    let items: Vec<String> = (0..10_000)
        .map(|i| format!("{{\"id\":\"i{i}\",\"label\":\"Item {i}\"}}"))
        .collect();
    let src = format!(
        "```prioritize\n{{\"version\":\"1\",\"items\":[{}]}}\n```\n",
        items.join(",")
    );
    let out = render_checked(&src);
    assert!(out.blocks[0].valid, "{:?}", &out.diagnostics[..1]);
    assert_eq!(count(&out.html, "class=\"pb-rank-item\""), 10_000);
    assert!(
        out.html.len() < 64 * src.len(),
        "{} bytes of HTML",
        out.html.len()
    );

    // An allocate split over 10,000 categories, rounded to the total.
    let items: Vec<String> = (0..10_000)
        .map(|i| {
            format!(
                "{{\"id\":\"c{i}\",\"label\":\"C{i}\",\"weight\":{}}}",
                i % 7
            )
        })
        .collect();
    let src = format!(
        "```allocate\n{{\"version\":\"1\",\"items\":[{}]}}\n```\n",
        items.join(",")
    );
    let out = render_checked(&src);
    assert!(out.blocks[0].valid, "{:?}", &out.diagnostics[..1]);
    assert_eq!(count(&out.html, "class=\"pb-weight\""), 10_000);

    // A questionnaire of 5,000 questions whose ids each appear twice.
    let questions: Vec<String> = (0..5_000)
        .map(|i| {
            format!(
                "{{\"id\":\"q{}\",\"question\":\"Q{i}?\",\"options\":[\"A\",\"B\"]}}",
                i / 2
            )
        })
        .collect();
    let src = format!(
        "```questionnaire\n{{\"version\":\"1\",\"questions\":[\n{}\n]}}\n```\n",
        questions.join(",\n")
    );
    let out = render_checked(&src);
    assert!(out.blocks[0].valid);
    assert_eq!(codes(&out, "duplicate_id"), 2_500);
    assert_eq!(count(&out.html, "<fieldset"), 5_000);
}

#[test]
fn ten_thousand_nested_json_fences() {
    // Rescued: a ```json fence inside each component fence, closed by the same ```.
    let rescued = format!(
        "```single-choice\n```json\n{}\n```\n```\n\n",
        r#"{ "version": "1", "question": "Q?", "options": ["A", "B"] }"#
    );
    let out = render_checked(&rescued.repeat(10_000));
    assert_eq!(out.blocks.len(), 10_000);
    assert!(out.blocks.iter().all(|b| b.valid));
    assert_eq!(codes(&out, "nested_json_fence_rescued"), 10_000);
    for d in &out.diagnostics {
        let block = d
            .block
            .as_deref()
            .and_then(|id| id[1..].parse::<usize>().ok());
        assert_eq!(block.map(|b| (b - 1) * 6 + 2), Some(d.line), "{d:?}");
    }

    // Not rescuable: a ~~~ component fence around a ``` json fence that never closes.
    let broken = "~~~single-choice\n```json\n~~~\n".repeat(10_000);
    let out = render_checked(&broken);
    assert_eq!(out.blocks.len(), 10_000);
    assert_eq!(codes(&out, "invalid_json"), 10_000);
}

#[test]
fn every_private_use_character_in_the_document() {
    // The renderer marks component positions with a private-use character the document does
    // not contain; here it contains all of them (and is mostly Hebrew, so right-to-left).
    let mut src = "שלום עולם, זו החלטה פתוחה. ".repeat(20_000);
    src.push_str("\n\n");
    let pua: String = ('\u{E000}'..='\u{F8FF}').collect();
    src.push_str(&pua);
    src.push_str("\n\n");
    src.push_str(&fence(Kind::SingleChoice, 1));
    let out = render_checked(&src);
    assert_eq!(out.blocks.len(), 1);
    assert!(out.html.contains("dir=\"rtl\""));
    assert!(
        out.html.contains(&pua),
        "private-use text must survive untouched"
    );
    assert_eq!(count(&out.html, "class=\"pb-block pb-single-choice\""), 1);
}

#[test]
fn nul_never_reaches_the_output() {
    // A raw NUL in the Markdown and a \u0000 escape in a component's JSON: CommonMark turns the
    // first into U+FFFD in the prose; the form's source copy, the text part and the component
    // strings must not carry a NUL either (HTML forbids it, and mail transports reject it).
    let src = "Hello\0world\n\n```single-choice\n{\"version\":\"1\",\"question\":\"Q\\u0000?\",\"options\":[\"A\",\"B\"]}\n```\n";
    for surface in [
        passback_engine::Surface::Page,
        passback_engine::Surface::Routed,
        passback_engine::Surface::Email,
    ] {
        for format in ["fragment", "page", "json", "text"] {
            let options = Options::default()
                .with_surface(surface)
                .with_format(passback_engine::Format::parse(format).expect("a format"));
            let out = render(src, &options);
            assert!(
                !out.html.contains('\0'),
                "{surface:?}/{format}: a NUL in the output"
            );
            assert!(
                out.html.contains('\u{FFFD}'),
                "{surface:?}/{format}: replaced, not lost"
            );
        }
    }
    // The page shown again after a list edit comes from the form's own copy of the source,
    // which a hand-made post can fill with NUL too.
    let list = "Hello\0world\n\n```prioritize\n{\"version\":\"1\",\"items\":[{\"id\":\"a\",\"label\":\"A\"},{\"id\":\"b\",\"label\":\"B\"}]}\n```\n";
    let pairs: Vec<(String, String)> = [
        ("pb.source", list),
        ("b1.item", "i:a"),
        ("b1.item", "i:b"),
        ("b1.op", "up:1"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    match passback_engine::answer_form(&pairs, &Options::default()) {
        Ok(passback_engine::FormOutcome::Edited(page)) => {
            assert!(!page.html.contains('\0'), "a NUL in the edited page");
        }
        other => panic!("expected the page again: {other:?}"),
    }
}
