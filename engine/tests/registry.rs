//! Every registered component has the pieces outside its Rust module that a component needs:
//! its JSON Schema definition (and a place in the typed-block form), conformance fixtures, an
//! answers fixture when it takes answers, its script file registering its tag when it takes
//! answers, and styles. A component added to the registry without them fails here, naming what
//! is missing. Every script file is part of the served script.

use passback_engine::assets::{SCRIPT_FILES, js};
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

/// The script's files, `engine/assets/js/*.js`: (file name, text), by name.
fn script_files() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in fs::read_dir(root().join("engine/assets/js")).expect("the script's folder") {
        let path = entry.expect("readable entry").path();
        let name = path
            .file_name()
            .expect("a file name")
            .to_string_lossy()
            .into_owned();
        if name.ends_with(".js") {
            out.push((
                name,
                fs::read_to_string(&path).expect("readable script file"),
            ));
        }
    }
    out.sort();
    out
}

/// A kind's script file, named as its Rust module is (`single-choice` → `single_choice.js`).
fn script_file_of(tag: &str) -> String {
    format!("{}.js", tag.replace('-', "_"))
}

/// The tags a script file registers: each `register('TAG', …)` at the start of a line.
fn registered_tags(script: &str) -> Vec<String> {
    script
        .lines()
        .filter_map(|line| line.strip_prefix("register('"))
        .filter_map(|rest| rest.split_once('\''))
        .map(|(tag, _)| tag.to_string())
        .collect()
}

/// What `kind` lacks, given the project's schema, fixtures, script and stylesheet.
fn missing(
    kind: Kind,
    schema: &Value,
    conformance: &[String],
    answers: &[String],
    scripts: &[(String, String)],
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
    if kind.takes_answers() && !answers.iter().any(|t| t.contains(&fence)) {
        out.push(format!("no fixtures/answers document uses ```{tag}"));
    }
    // Its script file: needed to take answers (its decode and export), optional otherwise (a
    // component the script only enhances); where there is one, it registers the tag.
    let file = script_file_of(tag);
    match scripts.iter().find(|(name, _)| *name == file) {
        Some((_, text)) if !registered_tags(text).iter().any(|t| t == tag) => {
            out.push(format!(
                "engine/assets/js/{file} does not register '{tag}' (register('{tag}', {{ … }}))"
            ));
        }
        None if kind.takes_answers() => {
            out.push(format!(
                "engine/assets/js has no {file} registering '{tag}' with its decode and export"
            ));
        }
        _ => {}
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
    let scripts = script_files();
    let css =
        fs::read_to_string(root().join("engine/assets/passback.css")).expect("the stylesheet");
    let problems: Vec<String> = Kind::ALL
        .iter()
        .flat_map(|&k| missing(k, &schema, &conformance, &answers, &scripts, &css))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // Each registration in the script is of a registered kind, once, in that kind's own file.
    let mut seen = Vec::new();
    for (file, text) in &scripts {
        for tag in registered_tags(text) {
            assert!(
                Kind::from_tag(&tag).is_some(),
                "engine/assets/js/{file} registers '{tag}', which is not a registered component"
            );
            assert_eq!(
                *file,
                script_file_of(&tag),
                "'{tag}' is registered in {file}, not in its own file"
            );
            assert!(!seen.contains(&tag), "'{tag}' is registered twice");
            seen.push(tag);
        }
    }
}

/// Every file of `engine/assets/js` is joined into the served script, once, and the join lists
/// no other.
#[test]
fn every_script_file_is_part_of_the_served_script() {
    let scripts = script_files();
    for (file, text) in &scripts {
        let listed = SCRIPT_FILES.iter().filter(|(name, _)| name == file).count();
        assert_eq!(
            listed, 1,
            "engine/assets/js/{file} is listed {listed} times in SCRIPT_FILES (engine/src/assets.rs)"
        );
        assert!(
            js().contains(text.as_str()),
            "the served script lacks {file}"
        );
    }
    for (name, _) in SCRIPT_FILES {
        assert!(
            scripts.iter().any(|(file, _)| file == name),
            "SCRIPT_FILES lists {name}, which is not in engine/assets/js"
        );
    }
}

/// The check is real: a kind whose pieces are gone is reported, piece by piece.
#[test]
fn a_component_without_its_pieces_is_reported() {
    let empty_schema = serde_json::json!({ "$defs": {} });
    let found = missing(Kind::Prioritize, &empty_schema, &[], &[], &[], "");
    assert_eq!(found.len(), 6, "{found:#?}");
    assert!(found.iter().any(|m| m.contains("prioritize.js")));
    assert!(found.iter().any(|m| m.contains(".pb-prioritize")));
    // A script file that does not register its kind's tag is reported too.
    let youtube = [(
        "youtube.js".to_string(),
        "register('mermaid', {});\n".to_string(),
    )];
    let found = missing(Kind::Youtube, &empty_schema, &[], &[], &youtube, "");
    assert!(
        found
            .iter()
            .any(|m| m.contains("does not register 'youtube'")),
        "{found:#?}"
    );
}

#[test]
fn the_registration_reader_reads_tags_only() {
    let script = "// register('not-this', X);\nregister('single-choice', QUESTIONS);\nregister('allocate', {\n  decode: d\n});\n  register('indented', X);\n";
    assert_eq!(registered_tags(script), ["single-choice", "allocate"]);
}
