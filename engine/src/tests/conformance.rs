//! The conformance corpus: every `fixtures/conformance/NAME.md` is validated and compared with
//! its `NAME.expect.json`:
//!
//! ```json
//! { "outcome": "valid" | "violating", "codes": ["sorted", "codes"], "schema": "agree" }
//! ```
//!
//! `codes` lists the code of every diagnostic (errors and warnings, repeats kept), sorted.
//! Unless `schema` is `"skip: <why>"`, every component block of the document is also checked
//! against `schema/passback.schema.json`: the schema's verdict on the block's JSON (through
//! `$defs/<tag>`, and through the root's typed-block form) must equal the engine's `valid`.
//! An optional `"note"` string documents the case.
//!
//! `build.rs` generates one `#[test]` per fixture into `OUT_DIR`. It runs inside the crate: the
//! schema check reads each block's own JSON, which the public API does not hand out.

use crate::{Kind, document, validate};
use comrak::Arena;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

include!(concat!(env!("OUT_DIR"), "/conformance_fixtures.rs"));

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/conformance")
}

fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| serde_json::from_str(crate::SCHEMA).expect("the schema is JSON"))
}

/// One validator per component, each rooted at `$defs/<tag>`, plus the typed-block root.
struct Validators {
    by_tag: HashMap<&'static str, jsonschema::Validator>,
    root: jsonschema::Validator,
}

fn validators() -> &'static Validators {
    static VALIDATORS: OnceLock<Validators> = OnceLock::new();
    VALIDATORS.get_or_init(|| {
        let full = schema();
        let by_tag = Kind::ALL
            .iter()
            .map(|k| {
                let tag = k.tag();
                assert!(
                    full["$defs"].get(tag).is_some(),
                    "the schema has no $defs/{tag}"
                );
                (tag, sub_validator(tag))
            })
            .collect();
        let root = jsonschema::validator_for(full).expect("the schema compiles");
        Validators { by_tag, root }
    })
}

/// A validator for `$defs/<name>` of the schema (with all `$defs` in scope for its `$ref`s).
fn sub_validator(name: &str) -> jsonschema::Validator {
    let full = schema();
    let sub = json!({
        "$schema": full["$schema"],
        "$defs": full["$defs"],
        "$ref": format!("#/$defs/{name}"),
    });
    jsonschema::validator_for(&sub).unwrap_or_else(|e| panic!("$defs/{name} does not compile: {e}"))
}

struct Expect {
    outcome: String,
    codes: Vec<String>,
    /// `None` for "agree", `Some(reason)` for "skip: reason".
    skip: Option<String>,
}

fn read_expect(name: &str) -> Expect {
    let path = fixtures_dir().join(format!("{name}.expect.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{name}: cannot read {}: {e}", path.display()));
    let v: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}.expect.json: {e}"));
    let obj = v
        .as_object()
        .unwrap_or_else(|| panic!("{name}.expect.json is not an object"));
    for key in obj.keys() {
        assert!(
            ["outcome", "codes", "schema", "note"].contains(&key.as_str()),
            "{name}.expect.json: unknown key {key:?}"
        );
    }
    let outcome = obj
        .get("outcome")
        .and_then(Value::as_str)
        .filter(|o| *o == "valid" || *o == "violating")
        .unwrap_or_else(|| panic!("{name}.expect.json: outcome must be \"valid\" or \"violating\""))
        .to_string();
    let codes: Vec<String> = obj
        .get("codes")
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("{name}.expect.json: codes must be an array"))
        .iter()
        .map(|c| {
            c.as_str()
                .unwrap_or_else(|| panic!("{name}.expect.json: codes are strings"))
                .to_string()
        })
        .collect();
    let mut sorted = codes.clone();
    sorted.sort();
    assert_eq!(codes, sorted, "{name}.expect.json: codes must be sorted");
    let schema = obj
        .get("schema")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{name}.expect.json: schema must be a string"));
    let skip = match schema {
        "agree" => None,
        s => Some(
            s.strip_prefix("skip: ")
                .filter(|why| !why.trim().is_empty())
                .unwrap_or_else(|| {
                    panic!("{name}.expect.json: schema must be \"agree\" or \"skip: <why>\"")
                })
                .to_string(),
        ),
    };
    Expect {
        outcome,
        codes,
        skip,
    }
}

fn schema_errors(v: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    v.iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

fn run_fixture(name: &str) {
    let path = fixtures_dir().join(format!("{name}.md"));
    let src = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{name}: cannot read {}: {e}", path.display()));
    let expect = read_expect(name);

    let result = validate(&src);
    let report = serde_json::to_string_pretty(&json!({
        "outcome": result.outcome,
        "blocks": result.blocks,
        "diagnostics": result.diagnostics,
    }))
    .unwrap_or_default();

    let mut codes: Vec<String> = result
        .diagnostics
        .iter()
        .map(|d| d.code.to_string())
        .collect();
    codes.sort();
    assert_eq!(
        (result.outcome.name(), &codes),
        (expect.outcome.as_str(), &expect.codes),
        "{name}: outcome and codes differ from the expectation\n{report}"
    );
    assert_eq!(
        result.ok,
        result.outcome.name() == "valid",
        "{name}\n{report}"
    );
    for d in &result.diagnostics {
        assert!(
            d.line >= 1 && d.column >= 1,
            "{name}: diagnostic {} has no position\n{report}",
            d.code
        );
        assert!(
            !d.message.trim().is_empty() && !d.hint.trim().is_empty(),
            "{name}: diagnostic {} lacks a message or a hint\n{report}",
            d.code
        );
    }

    if expect.skip.is_some() {
        return;
    }
    let arena = Arena::new();
    let parsed = document::parse(&arena, &src);
    let validators = validators();
    for block in &parsed.blocks {
        let tag = block.info.kind.tag();
        let instance: Value = serde_json::from_str(&block.source).unwrap_or_else(|e| {
            panic!(
                "{name}: block {} ({tag}) is not strict JSON ({e}); the schema cannot judge it, \
                 so mark the fixture \"schema\": \"skip: …\"\n{report}",
                block.info.id
            )
        });
        let errors = schema_errors(&validators.by_tag[tag], &instance);
        assert_eq!(
            errors.is_empty(),
            block.info.valid,
            "{name}: block {} ({tag}): the schema says {}, the engine says {}\nschema errors: \
             {errors:#?}\n{report}",
            block.info.id,
            if errors.is_empty() {
                "valid"
            } else {
                "invalid"
            },
            if block.info.valid { "valid" } else { "invalid" },
        );
        // The same verdict through the root's typed-block form `{ "type": tag, ... }`.
        if let Some(obj) = instance.as_object()
            && !obj.contains_key("type")
        {
            let mut typed = obj.clone();
            typed.insert("type".into(), Value::String(tag.into()));
            let typed = Value::Object(typed);
            assert_eq!(
                validators.root.is_valid(&typed),
                block.info.valid,
                "{name}: block {} ({tag}): the typed-block root disagrees with the engine\n\
                 {:#?}",
                block.info.id,
                schema_errors(&validators.root, &typed),
            );
        }
    }
}

#[test]
fn every_fixture_has_an_expectation_and_vice_versa() {
    let mut docs = Vec::new();
    let mut expects = Vec::new();
    let mut strays = Vec::new();
    for entry in std::fs::read_dir(fixtures_dir()).expect("fixtures/conformance exists") {
        let file = entry
            .expect("readable directory entry")
            .file_name()
            .into_string()
            .expect("UTF-8 file names");
        if let Some(stem) = file.strip_suffix(".expect.json") {
            expects.push(stem.to_string());
        } else if let Some(stem) = file.strip_suffix(".md") {
            docs.push(stem.to_string());
        } else {
            strays.push(file);
        }
    }
    let lonely_docs: Vec<_> = docs.iter().filter(|d| !expects.contains(d)).collect();
    let lonely_expects: Vec<_> = expects.iter().filter(|e| !docs.contains(e)).collect();
    assert!(
        lonely_docs.is_empty() && lonely_expects.is_empty() && strays.is_empty(),
        "fixtures without NAME.expect.json: {lonely_docs:?}\nexpectations without NAME.md: \
         {lonely_expects:?}\nfiles that are neither: {strays:?}"
    );
    assert!(!docs.is_empty(), "the conformance corpus is empty");
}

#[test]
fn the_schema_is_valid_json_schema_2020_12() {
    let s = schema();
    assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
    if let Err(e) = jsonschema::meta::validate(s) {
        panic!("the schema violates its meta-schema: {e}");
    }
    for kind in Kind::ALL {
        assert!(
            s["$defs"].get(kind.tag()).is_some(),
            "no $defs/{}",
            kind.tag()
        );
    }
}

#[test]
fn the_typed_block_root_discriminates_on_type() {
    let root = &validators().root;
    let ok = [
        json!({ "type": "markdown", "text": "Here is the Q3 plan." }),
        json!({ "type": "single-choice", "version": "1", "question": "Which auth method?",
                "options": ["PIN", "Magic link"] }),
        json!({ "type": "youtube", "version": "1", "id": "dQw4w9WgXcQ" }),
    ];
    for v in &ok {
        assert!(root.is_valid(v), "{v}: {:#?}", schema_errors(root, v));
    }
    let bad = [
        json!({ "type": "markdown" }),
        json!({ "type": "poll", "version": "1", "question": "Which?" }),
        json!({ "version": "1", "question": "Which?" }),
        // The right fields under the wrong tag.
        json!({ "type": "open-question", "version": "1", "items": [{ "id": "a", "label": "A" }] }),
    ];
    for v in &bad {
        assert!(!root.is_valid(v), "{v} should be rejected");
    }

    let route = sub_validator("route_document");
    let doc = json!({ "blocks": [
        { "type": "markdown", "text": "Rank the regions." },
        { "type": "prioritize", "version": "1", "items": [{ "id": "eu", "label": "EU" }] }
    ] });
    assert!(route.is_valid(&doc), "{:#?}", schema_errors(&route, &doc));
    let bad = json!({ "blocks": [{ "type": "prioritize", "version": 1, "items": [] }] });
    assert!(!route.is_valid(&bad));
}
