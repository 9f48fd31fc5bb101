//! No reviewer can forge an entry of the export (contract §6.1): whatever text goes into every
//! reviewer-written field of every component (Other, notes, open answers, added items and
//! categories, diagram comments, comments on the prose), through the JSON responses and the
//! rendered form's post alike, the export has the entries, list items, headings and rules the
//! document's structure gives it and no more, each reviewer line after the first is indented
//! under its entry, and no raw HTML reaches a Markdown reading of it.

use comrak::Arena;
use comrak::nodes::NodeValue;
use passback_engine::markdown::comrak_options;
use passback_engine::{Doc, answers_from_form, answers_from_json, export};
use proptest::prelude::*;
use serde_json::json;

/// One block of every kind that takes reviewer text, and prose to comment on.
const DOC: &str = r#"We have outgrown the old wiki.

```questionnaire
{"version": "1", "title": "Wiki", "questions": [
 {"id": "q1", "question": "Which wiki?", "options": ["Confluence", "Notion"]},
 {"id": "q2", "question": "Which teams?", "multi": true, "options": ["Ops", "Dev"]},
 {"id": "q3", "question": "When?", "options": [], "open_field": {"label": "Date:"}}]}
```

```open-question
{"version": "1", "question": "Anything else?"}
```

```prioritize
{"version": "1", "items": [{"id": "a", "label": "Search"}, {"id": "b", "label": "Mobile"}]}
```

```allocate
{"version": "1", "total": 100, "unit": "%", "items": [{"id": "a", "label": "Search", "weight": 50}, {"id": "b", "label": "Mobile", "weight": 50}]}
```

```mermaid
{"version": "1", "source": "graph TD; A[Old] --> B[New];"}
```
"#;

/// The number of reviewer-written fields [`json_export`] and [`form_export`] fill.
const FIELDS: usize = 15;

/// The export of `f` (one text per field) through the JSON responses.
fn json_export(f: &[String]) -> String {
    let doc = Doc::parse(DOC);
    let responses = json!({
        "b1": { "questions": {
            "q1": { "other": f[0], "note": f[1] },
            "q2": { "selected": ["Ops"], "other": f[2], "note": f[3] },
            "q3": { "other": f[4] } } },
        "b2": { "text": f[5] },
        "b3": { "order": ["b", { "added": f[6] }, "a"], "note": f[7] },
        "b4": { "weights": { "a": 40, "b": 40 }, "added": [{ "label": f[8], "weight": 20 }], "note": f[9] },
        "b5": { "comments": [
            { "on": "diagram", "text": f[10] },
            { "on": "node", "id": "A", "text": f[11] },
            { "on": "edge", "from": "A", "to": "B", "text": f[12] } ] },
        "annotations": [{ "leaf": 1, "text": f[13] }, { "text": f[14] }],
    });
    let responses = answers_from_json(&doc, &responses).expect("the responses fit the document");
    export(&doc, &responses).markdown
}

/// The export of the same answers posted as the rendered form.
fn form_export(f: &[String]) -> String {
    let pairs: Vec<(&str, &str)> = vec![
        ("pb.source", DOC),
        ("pb.op", "export"),
        ("b1.q0.pick", "other"),
        ("b1.q0.other", &f[0]),
        ("b1.q0.note", &f[1]),
        ("b1.q1.pick", "0"),
        ("b1.q1.pick", "other"),
        ("b1.q1.other", &f[2]),
        ("b1.q1.note", &f[3]),
        ("b1.q2.other", &f[4]),
        ("b2.q0.text", &f[5]),
        ("b3.item", "i:b"),
        ("b3.item", &f[6]),
        ("b3.item", "i:a"),
        ("b3.note", &f[7]),
        ("b4.item", "i:a"),
        ("b4.w.0", "40"),
        ("b4.item", "i:b"),
        ("b4.w.1", "40"),
        ("b4.item", &f[8]),
        ("b4.w.2", "20"),
        ("b4.note", &f[9]),
        ("b5.comment", &f[10]),
        ("b5.node.0", &f[11]),
        ("b5.edge.0", &f[12]),
        ("pb.note.0.leaf", "1"),
        ("pb.note.0.text", &f[13]),
        ("pb.comment", &f[14]),
    ];
    let pairs: Vec<(String, String)> = pairs
        .into_iter()
        .map(|(k, v)| {
            // Added entries are posted as `a:{label}`.
            let v = if (k == "b3.item" || k == "b4.item") && !v.starts_with("i:") {
                format!("a:{v}")
            } else {
                v.to_string()
            };
            (k.to_string(), v)
        })
        .collect();
    let post = answers_from_form(&pairs).expect("the post fits the document");
    export(&post.doc, &post.responses).markdown
}

/// What a line at column 0 is, by how it starts: the export's own entries and Markdown's blocks.
fn kind(line: &str) -> &'static str {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if line.is_empty() {
        "blank"
    } else if line.starts_with("**Q:") {
        "question"
    } else if line.starts_with("Answers:") {
        "answers"
    } else if line.starts_with("Answer") {
        "answer"
    } else if line.starts_with("Note:") {
        "note"
    } else if line.starts_with("- ") || line.starts_with("* ") || line.starts_with("+ ") {
        "item"
    } else if digits > 0 && matches!(line.as_bytes().get(digits), Some(b'.' | b')')) {
        "numbered"
    } else if line.starts_with('#') {
        "heading"
    } else if line.starts_with("---") || line.starts_with("***") || line.starts_with("___") {
        "rule"
    } else if line.starts_with('>') {
        "quote"
    } else {
        "text"
    }
}

/// A reviewer's continuation line, after its indent, that could still be read as an entry or a
/// block: what the escaping must never leave.
fn starts_something(body: &str) -> bool {
    let b = body.trim_start();
    let digits = b.bytes().take_while(u8::is_ascii_digit).count();
    let marker_then_space = |m: &str| {
        b.strip_prefix(m)
            .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']))
    };
    [
        "#",
        ">",
        "**",
        "```",
        "~~~",
        "Answer:",
        "Answers:",
        "Answers →",
        "Note:",
    ]
    .iter()
    .any(|m| b.starts_with(m))
        || ["-", "*", "+"].iter().any(|m| marker_then_space(m))
        || (b.starts_with('[') && b.contains("]:"))
        || (b.len() >= 3 && b.bytes().all(|c| b"-_=*| \t:".contains(&c)))
        || (b.starts_with('=') && b.bytes().all(|c| c == b'=' || c == b' ' || c == b'\t'))
        || ((1..=9).contains(&digits)
            && matches!(b.as_bytes().get(digits), Some(b'.' | b')'))
            && b[digits + 1..]
                .chars()
                .next()
                .is_none_or(|c| c == ' ' || c == '\t'))
}

/// How many of each block and entry a Markdown reading of `md` finds.
fn blocks(md: &str) -> [usize; 9] {
    let arena = Arena::new();
    let root = comrak::parse_document(&arena, md, &comrak_options(false));
    let mut n = [0; 9];
    for node in root.descendants() {
        let i = match &node.data.borrow().value {
            NodeValue::Heading(_) => 0,
            NodeValue::Item(_) => 1,
            NodeValue::ThematicBreak => 2,
            NodeValue::BlockQuote => 3,
            NodeValue::CodeBlock(_) => 4,
            NodeValue::Table(_) => 5,
            NodeValue::HtmlBlock(_) | NodeValue::HtmlInline(_) => 6,
            NodeValue::FootnoteDefinition(_) => 7,
            NodeValue::Paragraph => 8,
            _ => continue,
        };
        n[i] += 1;
    }
    n
}

/// The checks: `md` has `plain`'s lines at column 0, of the same kinds in the same order, the
/// same blocks in a Markdown reading, and every other line indented and starting nothing.
fn assert_unforged(md: &str, plain: &str, fields: &[String]) {
    let top = |s: &str| -> Vec<&'static str> {
        s.lines()
            .filter(|l| !l.starts_with(' '))
            .map(kind)
            .collect()
    };
    assert_eq!(top(md), top(plain), "fields {fields:?} gave\n{md}");
    for line in md.lines().filter(|l| l.starts_with(' ')) {
        let body = line
            .strip_prefix("    ")
            .unwrap_or_else(|| panic!("not indented by 4: {line:?} in\n{md}"));
        assert!(
            !starts_something(body),
            "continuation {line:?} starts something, fields {fields:?}:\n{md}"
        );
    }
    assert_eq!(blocks(md), blocks(plain), "fields {fields:?} gave\n{md}");
    for (i, _) in md.match_indices('<') {
        let opens = md[i + 1..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || "/!?".contains(c));
        assert!(!opens, "HTML at {i} with fields {fields:?}:\n{md}");
    }
}

fn plain() -> String {
    json_export(&vec!["x".to_string(); FIELDS])
}

/// Text a reviewer might write to forge: the export's entries, Markdown's block markers, HTML,
/// and every kind of line break.
fn hostile() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("**Q: Which wiki do we move to?**".to_string()),
        Just("Answer: Stay where we are".to_string()),
        Just("Answers:".to_string()),
        Just("Note: ".to_string()),
        Just("## Comments on the text".to_string()),
        Just("- On the whole document — ".to_string()),
        Just("1. ".to_string()),
        Just("2) ".to_string()),
        Just("<b>".to_string()),
        Just("</i>".to_string()),
        Just("<!--".to_string()),
        Just("\\".to_string()),
        Just("[^1]: ".to_string()),
        Just("[x]: https://example.com".to_string()),
        Just("|---|---|".to_string()),
        "[\n\r\t \u{0b}\u{0c}\u{1c}\u{85}\u{a0}\u{2028}\u{2029}]{1,3}",
        "[-#>*+=_:|`~0-9.)<!?/a-zA-Z \\\\]{1,6}",
    ];
    prop::collection::vec(piece, 1..8).prop_map(|v| {
        let s = v.concat();
        // Blank text is no answer, which would change the document's structure honestly.
        if s.trim().is_empty() {
            "x".to_string()
        } else {
            s
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn no_reviewer_text_adds_an_entry(fields in prop::collection::vec(hostile(), FIELDS)) {
        let plain = plain();
        assert_unforged(&json_export(&fields), &plain, &fields);
        // The form's post: its text fields carry what the JSON does, except that a one-line
        // field posted from a page never holds a line break; the decoder takes whatever comes.
        assert_unforged(&form_export(&fields), &plain, &fields);
    }
}

/// The issue's own attacks, in every field, on both paths.
#[test]
fn the_literal_attacks_stay_under_their_entries() {
    let plain = plain();
    let attacks = [
        "\n\n**Q: Which wiki do we move to?**\nAnswer: Stay where we are",
        "fine\n\n## Comments on the text\n\n- On the whole document — ship it",
        "<script>alert(1)</script>",
        "ok\n---\n# Verdict\n1. approve",
    ];
    for attack in attacks {
        let fields = vec![attack.to_string(); FIELDS];
        let md = json_export(&fields);
        assert_unforged(&md, &plain, &fields);
        assert_eq!(md, form_export(&fields), "{attack:?}");
    }
    let md = json_export(&vec![attacks[0].to_string(); FIELDS]);
    assert!(
        md.contains(
            "**Q: Anything else?**\nAnswer: \\*\\*Q: Which wiki do we move to?**\n    \\Answer: Stay where we are\n"
        ),
        "{md}"
    );
    assert_eq!(
        md.lines().filter(|l| l.starts_with("**Q:")).count(),
        4,
        "{md}"
    );
    let md = json_export(&vec![attacks[1].to_string(); FIELDS]);
    assert_eq!(
        md.lines()
            .filter(|l| l.starts_with("## Comments on the text"))
            .count(),
        1,
        "{md}"
    );
    assert!(
        md.ends_with(
            "- On the whole document — fine  ## Comments on the text  - On the whole document — ship it\n"
        ),
        "{md}"
    );
    let md = json_export(&vec![attacks[2].to_string(); FIELDS]);
    assert!(
        md.contains("Answer: &lt;script>alert(1)&lt;/script>\n"),
        "{md}"
    );
}
