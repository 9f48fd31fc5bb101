//! The CommonMark 0.31.2 and GFM spec examples (`fixtures/spec/`), one test each: the engine's
//! prose for the example's Markdown, its leaf numbers taken out, must equal plain comrak's HTML
//! with the same options, unless `fixtures/spec/differences.json` lists the example with the
//! reason it differs by design. A listed example that no longer differs fails too, so the list
//! stays true. Plain comrak's tables are compared with the `<tbody>` a browser's parser gives
//! their rows (the same elements; the sanitizer writes it). An example whose reason says it reads
//! "as one sanitized document" must also equal plain comrak's HTML sanitized once as a whole,
//! as GitHub sanitizes a document, but for whitespace between tags.
//!
//! `build.rs` generates one `#[test]` per example into `OUT_DIR`.

use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

include!(concat!(env!("OUT_DIR"), "/spec_examples.rs"));

fn spec_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/spec")
}

/// A spec's examples by number: (markdown, section).
type Examples = HashMap<u64, (String, String)>;

/// Every example of each spec, by number.
fn examples(spec: &str) -> &'static Examples {
    static SPECS: OnceLock<HashMap<String, Examples>> = OnceLock::new();
    let specs = SPECS.get_or_init(|| {
        let mut specs = HashMap::new();
        for name in ["commonmark-0.31.2", "gfm-0.29"] {
            let path = spec_dir().join(format!("{name}.json"));
            let text = std::fs::read_to_string(&path).expect("the spec examples");
            let json: Value = serde_json::from_str(&text).expect("JSON");
            let mut by_number = HashMap::new();
            for ex in json["examples"].as_array().expect("examples") {
                by_number.insert(
                    ex["example"].as_u64().expect("a number"),
                    (
                        ex["markdown"].as_str().expect("markdown").to_string(),
                        ex["section"].as_str().unwrap_or("").to_string(),
                    ),
                );
            }
            specs.insert(name.to_string(), by_number);
        }
        specs
    });
    &specs[spec]
}

/// The documented differences: spec → example number → reason.
fn differences() -> &'static HashMap<String, HashMap<String, String>> {
    static DIFFERENCES: OnceLock<HashMap<String, HashMap<String, String>>> = OnceLock::new();
    DIFFERENCES.get_or_init(|| {
        let text = std::fs::read_to_string(spec_dir().join("differences.json"))
            .expect("fixtures/spec/differences.json");
        serde_json::from_str(&text).expect("spec → { example: reason }")
    })
}

/// `html` without the leaf marks: the attributes, and the spans of tight list paragraphs; and
/// without the ids the engine gives headings and the attributes it adds to an image that loads
/// (as GitHub does, and plain comrak with the engine's options does not; what an image loads
/// stays compared). The heading ids have tests of their own (`prose::tests`).
fn unmarked(html: &str) -> String {
    let html = crate::prose::without_additions(html);
    let html = html.as_str();
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    let mut spans = 0;
    while let Some(at) = rest.find(" data-pb-leaf=\"") {
        let (before, after) = rest.split_at(at);
        let end = at_closing_quote(after);
        if let Some(open) = before.strip_suffix("<span") {
            out.push_str(open);
            rest = &after[end + 2..];
            spans += 1;
        } else {
            out.push_str(before);
            rest = &after[end + 1..];
        }
    }
    out.push_str(rest);
    // No spec example has a `</span>` of its own where the engine wrote a leaf's span.
    if spans > 0 {
        out = out.replace("</span>", "");
    }
    out
}

/// The index of the closing `"` of ` data-pb-leaf="N"` at the start of `s`.
fn at_closing_quote(s: &str) -> usize {
    let open = " data-pb-leaf=\"".len();
    open + s[open..].find('"').expect("a closed attribute")
}

/// `html` with the `<tbody>` a browser's parser puts around the rows of a table that has no
/// `<thead>`, `<tbody>` or `<tfoot>` of its own (from its first `<tr>` to its `</table>`), as the
/// sanitizer writes it: the same elements, written as a browser reads them. Tables nested in
/// tables are left as they are.
fn with_implied_tbody(html: &str) -> String {
    let mut out = String::with_capacity(html.len() + 16);
    let mut rest = html;
    while let Some(at) = rest.find("<table") {
        out.push_str(&rest[..at]);
        let table = &rest[at..];
        let Some(end) = table.find("</table>") else {
            break;
        };
        let (inner, after) = table.split_at(end);
        let plain_rows = !inner[1..].contains("<table")
            && !["<thead", "<tbody", "<tfoot"]
                .iter()
                .any(|s| inner.contains(s));
        match inner.find("<tr").filter(|_| plain_rows) {
            Some(row) => {
                out.push_str(&inner[..row]);
                out.push_str("<tbody>");
                out.push_str(&inner[row..]);
                out.push_str("</tbody>");
            }
            None => out.push_str(inner),
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Plain comrak's HTML for `markdown`, with raw HTML kept, as the engine parses it.
fn plain_comrak(markdown: &str) -> String {
    let mut plain = String::new();
    comrak::format_html(
        comrak::parse_document(
            &comrak::Arena::new(),
            markdown,
            &crate::document::comrak_options(true),
        ),
        &crate::document::comrak_options(true),
        &mut plain,
    )
    .expect("HTML");
    plain
}

fn run_example(spec: &str, number: u64) {
    let (markdown, section) = &examples(spec)[&number];
    let ours = unmarked(&crate::render::prose_html(markdown));
    let plain = with_implied_tbody(&plain_comrak(markdown));
    let documented = differences()
        .get(spec)
        .and_then(|d| d.get(&number.to_string()));
    match documented {
        None => assert_eq!(
            ours, plain,
            "{spec} example {number} ({section}) differs from comrak, and \
             fixtures/spec/differences.json does not say why\nmarkdown: {markdown:?}"
        ),
        Some(reason) => {
            assert_ne!(
                ours, plain,
                "{spec} example {number} ({section}) is listed in fixtures/spec/differences.json \
                 ({reason}) but no longer differs: take it off the list"
            );
            if reason.starts_with(AS_ONE_DOCUMENT) {
                let whole = as_one_sanitized_document(markdown);
                assert_eq!(
                    between_tags_unspaced(&ours),
                    between_tags_unspaced(&whole),
                    "{spec} example {number} ({section}) is listed as what the sanitizer makes of \
                     the whole document ({reason}), but the engine's prose is not that\n\
                     markdown: {markdown:?}"
                );
            }
        }
    }
}

/// How a reason begins when the example reads as plain comrak's HTML sanitized once, as a whole
/// (GitHub's way; see [`as_one_sanitized_document`]): the test then checks that it does. Every
/// other reason is the URL policy or a guarantee the whole-document reading would break.
const AS_ONE_DOCUMENT: &str = "as one sanitized document:";

/// Plain comrak's HTML for `markdown` through GFM's tag filter and the engine's sanitizer once,
/// as a whole, without what the engine adds to an image that loads (see [`unmarked`]).
fn as_one_sanitized_document(markdown: &str) -> String {
    let plain = plain_comrak(markdown);
    let filtered = crate::sanitize::filter_tags(&plain).unwrap_or(plain);
    let clean = crate::sanitize::clean(&filtered, &crate::sanitize::ImageRules::default());
    crate::prose::without_additions(&clean)
}

/// `html` without the runs of whitespace that stand alone between two tags or at either end:
/// line breaks between blocks that comrak and the sanitizer place differently, and that no
/// reader sees (no spec example listed as read whole has them inside a `<pre>`).
fn between_tags_unspaced(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html.trim();
    while let Some(at) = rest.find('>') {
        out.push_str(&rest[..=at]);
        rest = &rest[at + 1..];
        let blank = rest.len() - rest.trim_start().len();
        if rest[blank..].starts_with('<') {
            rest = &rest[blank..];
        }
    }
    out.push_str(rest);
    out
}
