//! Every diagnostic is read by a person: over every conformance fixture (most of them broken on
//! purpose) and a few documents written to trip the rarer messages, no message or hint nests
//! parentheses, a count agrees with its noun, a hint does not repeat its own advice, and the
//! compiler-style line reads as one clause after another.

use passback_engine::{Diagnostic, validate};
use std::fs;
use std::path::Path;

/// The documents: every conformance fixture, and a few more.
fn documents() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/conformance");
    let mut docs: Vec<(String, String)> = fs::read_dir(&dir)
        .expect("the conformance fixtures")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| {
            let text = fs::read_to_string(&p).expect("a readable fixture");
            (
                p.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
                text,
            )
        })
        .collect();
    docs.sort();
    let extra = [
        (
            "one option",
            "```single-choice\n{ \"version\": \"1\", \"question\": \"Which?\", \"options\": [\"A\"] }\n```\n",
        ),
        (
            "number version",
            "```single-choice\n{ \"version\": 1, \"question\": \"Which?\", \"options\": [\"A\", \"B\"] }\n```\n",
        ),
        (
            "misspelt tag",
            "```prioritise\n{ \"version\": \"1\", \"items\": [\"A\", \"B\"] }\n```\n",
        ),
        (
            "capital tag",
            "```Prioritize\n{ \"version\": \"1\", \"items\": [\"A\", \"B\"] }\n```\n",
        ),
        (
            "invented tag",
            "```poll\n{ \"version\": \"1\", \"question\": \"Which?\", \"options\": [\"A\", \"B\"] }\n```\n",
        ),
        (
            "one item",
            "```prioritize\n{ \"version\": \"1\", \"items\": [\"A\"] }\n```\n",
        ),
        (
            "one allocation",
            "```allocate\n{ \"version\": \"1\", \"items\": [{ \"label\": \"A\", \"weight\": 1 }] }\n```\n",
        ),
        (
            "one question",
            "```questionnaire\n{ \"version\": \"1\", \"questions\": [] }\n```\n",
        ),
        (
            "bad json",
            "```multi-choice\n{ \"version\": \"1\", \"question\": \"Which?\" \"options\": [\"A\", \"B\"] }\n```\n",
        ),
        (
            "one edge styled past the end",
            "```mermaid\ngraph TD\n  A --> B\n  linkStyle 3 stroke:#f00\n```\n",
        ),
        (
            "unknown field",
            "```open-question\n{ \"version\": \"1\", \"question\": \"Why?\", \"placholder\": \"x\" }\n```\n",
        ),
    ];
    docs.extend(extra.iter().map(|(n, d)| (n.to_string(), d.to_string())));
    docs
}

/// The deepest nesting of parentheses in `text`.
fn depth(text: &str) -> usize {
    let (mut now, mut most) = (0usize, 0usize);
    for c in text.chars() {
        match c {
            '(' => {
                now += 1;
                most = most.max(now);
            }
            ')' => now = now.saturating_sub(1),
            _ => {}
        }
    }
    most
}

fn problems(d: &Diagnostic) -> Vec<String> {
    let mut out = Vec::new();
    let line = d.compiler_line("doc.md", d.line, d.column, d.severity.name());
    for (what, text) in [("message", &d.message), ("hint", &d.hint), ("line", &line)] {
        if text.contains("((") || text.contains("))") || depth(text) > 1 {
            out.push(format!("{what} nests parentheses: {text}"));
        }
        for one in [
            " 1 entries",
            " 1 items",
            " 1 options",
            " 1 questions",
            " 1 rows",
            " 1 nodes",
            " 1 edges",
            " 1 notes",
        ] {
            if text.contains(one) {
                out.push(format!("{what} says{one}: {text}"));
            }
        }
        if text.contains(" 0 entry") || text.contains(" 2 entry;") {
            out.push(format!("{what} has a count that disagrees: {text}"));
        }
    }
    // A hint that proposes a tag names it once.
    for tag in ["prioritize", "single-choice", "questionnaire", "allocate"] {
        if d.hint.matches(&format!("```{tag}")).count() > 1 {
            out.push(format!("hint repeats {tag}: {}", d.hint));
        }
    }
    if d.message.trim().is_empty() {
        out.push("empty message".into());
    }
    out
}

#[test]
fn every_message_reads_once() {
    let mut failures = Vec::new();
    let mut seen = 0;
    for (name, doc) in documents() {
        for d in validate(&doc).diagnostics {
            seen += 1;
            for p in problems(&d) {
                failures.push(format!("{name} [{}]: {p}", d.code));
            }
        }
    }
    assert!(
        seen > 100,
        "only {seen} diagnostics: the fixtures went missing"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The messages the counts once got wrong, as a person reads them.
#[test]
fn counts_agree_with_their_nouns() {
    let d = &validate(
        &documents()
            .iter()
            .find(|(n, _)| n == "one option")
            .expect("doc")
            .1,
    )
    .diagnostics[0];
    assert_eq!(
        d.message,
        "`options` has 1 entry; this component needs at least 2"
    );
    let d = &validate("```single-choice\n{ \"version\": \"1\", \"question\": \"Which?\", \"options\": [] }\n```\n")
        .diagnostics[0];
    assert!(d.message.contains("has 0 entries"), "{}", d.message);
    let doc = "```mermaid\ngraph TD\n  A --> B\n  linkStyle 3 stroke:#f00\n```\n";
    let v = validate(doc);
    assert!(
        v.diagnostics.iter().any(|d| d
            .message
            .contains("the diagram has 1 edge (numbered from 0)")),
        "{:?}",
        v.diagnostics
    );
}

/// A misspelt tag's warning: the message names what was written, the hint the real tag once,
/// and the one-line form reads as message, then hint.
#[test]
fn a_misspelt_tag_names_the_real_one_once() {
    let doc = "```prioritise\n{ \"version\": \"1\", \"items\": [\"A\", \"B\"] }\n```\n";
    let d = &validate(doc).diagnostics[0];
    assert_eq!(
        d.hint,
        "did you mean ```prioritize? That is the component's tag"
    );
    assert_eq!(
        d.compiler_line("doc.md", 1, 1, "warning"),
        "doc.md:1:1: warning[unknown_tag]: ```prioritise is not a component tag, so this fence \
         renders as plain code — did you mean ```prioritize? That is the component's tag"
    );
}
