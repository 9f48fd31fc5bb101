//! Every registered component has the pieces outside its Rust module that a component needs:
//! its JSON Schema definition (and a place in the typed-block form), conformance fixtures, an
//! answers fixture when it takes answers, the script's exporter when it takes answers, and
//! styles. A component added to the registry without them fails here, naming what is missing.

use passback_engine::{Kind, SCHEMA};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The text of every file in `fixtures/<dir>` whose name ends with `suffix`.
fn fixture_texts(dir: &str, suffix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for entry in fs::read_dir(root().join("fixtures").join(dir)).expect("the fixtures folder") {
        let path = entry.expect("readable entry").path();
        if path.to_string_lossy().ends_with(suffix) {
            out.push(fs::read_to_string(&path).expect("readable fixture"));
        }
    }
    out
}

/// The keys of the script's exporter table: the object literal after `var EXPORTS = {`.
fn script_exporters(script: &str) -> Vec<String> {
    let start = script
        .find("var EXPORTS = {")
        .expect("the script has its exporter table, `var EXPORTS = { … }`");
    let body = &script[start + "var EXPORTS = {".len()..];
    let mut keys = Vec::new();
    let mut depth = 0;
    for line in body.lines() {
        if depth == 0 {
            let t = line.trim_start();
            if t.starts_with('}') {
                break;
            }
            if let Some((key, _)) = t.split_once(':') {
                let key = key.trim().trim_matches('\'').trim_matches('"');
                if !key.is_empty() && key.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
                    keys.push(key.to_string());
                }
            }
        }
        depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
    }
    keys
}

/// What `kind` lacks, given the project's schema, fixtures, script and stylesheet.
fn missing(
    kind: Kind,
    schema: &Value,
    conformance: &[String],
    answers: &[String],
    script: &[String],
    css: &str,
) -> Vec<String> {
    let tag = kind.tag();
    let fence = format!("```{tag}\n");
    let mut out = Vec::new();
    if schema["$defs"].get(tag).is_none() {
        out.push(format!("schema/passback.schema.json has no $defs/{tag}"));
    }
    let typed = &schema["$defs"]["typed_block"]["properties"]["type"]["enum"];
    if !typed.as_array().is_some_and(|a| a.iter().any(|t| t == tag)) {
        out.push(format!("the schema's typed_block does not list \"{tag}\""));
    }
    if !conformance.iter().any(|t| t.contains(&fence)) {
        out.push(format!("no fixtures/conformance document uses ```{tag}"));
    }
    if kind.takes_answers() {
        if !answers.iter().any(|t| t.contains(&fence)) {
            out.push(format!("no fixtures/answers document uses ```{tag}"));
        }
        if !script.iter().any(|k| k == tag) {
            out.push(format!(
                "engine/assets/passback.js has no exporter for '{tag}' in EXPORTS"
            ));
        }
    }
    if !css.contains(&format!(".pb-{tag}")) {
        out.push(format!(
            "engine/assets/passback.css has no rule naming .pb-{tag}"
        ));
    }
    out
}

#[test]
fn every_registered_component_has_its_pieces() {
    let schema: Value = serde_json::from_str(SCHEMA).expect("the schema is JSON");
    let conformance = fixture_texts("conformance", ".md");
    let answers = fixture_texts("answers", ".md");
    let script = script_exporters(passback_engine::assets::JS);
    let css =
        fs::read_to_string(root().join("engine/assets/passback.css")).expect("the stylesheet");
    let problems: Vec<String> = Kind::ALL
        .iter()
        .flat_map(|&k| missing(k, &schema, &conformance, &answers, &script, &css))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // Nothing in the script's table that the registry does not know.
    for key in &script {
        assert!(
            Kind::from_tag(key).is_some_and(Kind::takes_answers),
            "the script exports '{key}', which is not a registered component that takes answers"
        );
    }
}

/// The check is real: a kind whose pieces are gone is reported, piece by piece.
#[test]
fn a_component_without_its_pieces_is_reported() {
    let empty_schema = serde_json::json!({ "$defs": {} });
    let found = missing(Kind::Prioritize, &empty_schema, &[], &[], &[], "");
    assert_eq!(found.len(), 6, "{found:#?}");
    assert!(found.iter().any(|m| m.contains("EXPORTS")));
    assert!(found.iter().any(|m| m.contains(".pb-prioritize")));
}

#[test]
fn the_script_table_reader_reads_keys_only() {
    let script = "x\n  var EXPORTS = {\n    'single-choice': questions,\n    prioritize: function (b) {\n      var y = { a: 1 };\n      return y;\n    },\n    mermaid: f,\n  };\n";
    assert_eq!(
        script_exporters(script),
        ["single-choice", "prioritize", "mermaid"]
    );
}
