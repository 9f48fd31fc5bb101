//! Property tests: arbitrary Markdown and JSON never panic the engine; a render is
//! deterministic; validate and render agree on which blocks are valid; and answers generated
//! from a document always export, with every answer the reader gave present in the export.

use passback_engine::{Doc, Kind, answers_from_json, export};
use passback_engine::{Options, Surface, render, validate};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Every component's fence tag, and `json`, a fence that is no component.
fn tags() -> Vec<&'static str> {
    Kind::ALL
        .iter()
        .map(|kind| kind.tag())
        .chain(["json"])
        .collect()
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-1000i64..1000).prop_map(|n| json!(n)),
        "[a-zA-Z0-9 <>\"&'/:;{}\\[\\]-]{0,12}".prop_map(Value::String),
        Just(json!("1")),
        Just(json!("dQw4w9WgXcQ")),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "version",
                        "question",
                        "options",
                        "items",
                        "id",
                        "label",
                        "weight",
                        "questions",
                        "source",
                        "title",
                        "recommended",
                        "open_field",
                        "multi",
                        "routing",
                        "from",
                        "return_prompt",
                        "total",
                        "unit",
                        "context",
                        "note_field",
                        "thumbnail",
                        "x"
                    ]),
                    inner
                ),
                0..8
            )
            .prop_map(|kv| Value::Object(
                kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
            )),
        ]
    })
}

fn markdown() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-z #*_>\\-\\[\\]()`!|:\n]{0,30}",
        (prop::sample::select(tags()), json_value()).prop_map(|(tag, v)| format!("```{tag}\n{v}\n```\n")),
        (prop::sample::select(tags()), "[{}\\[\\]\",: a-z0-9\u{201C}\u{201D}]{0,40}").prop_map(|(tag, body)| format!("```{tag}\n{body}\n```\n")),
        Just("<b>raw</b> <script>x</script>\n".to_string()),
        Just("> quoted\n> ```open-question\n> {\"version\":\"1\",\"question\":\"Q\"}\n> ```\n".to_string()),
        Just("- item\n\n  ```single-choice\n  {\"version\":\"1\",\"question\":\"Q\",\"options\":[\"A\",\"B\"]}\n  ```\n".to_string()),
    ];
    prop::collection::vec(piece, 0..8).prop_map(|p| p.join("\n"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn render_never_panics_is_deterministic_and_agrees_with_validate(doc in markdown()) {
        for surface in [Surface::Page, Surface::Email] {
            let options = Options::default().with_surface(surface);
            let a = render(&doc, &options);
            let b = render(&doc, &options);
            prop_assert_eq!(&a.html, &b.html);
            let v = validate(&doc);
            let from_render: Vec<(String, bool)> = a.blocks.iter().map(|b| (b.id.clone(), b.valid)).collect();
            let from_validate: Vec<(String, bool)> = v.blocks.iter().map(|b| (b.id.clone(), b.valid)).collect();
            prop_assert_eq!(from_render, from_validate);
            prop_assert_eq!(v.ok, !v.diagnostics.iter().any(|d| d.is_error()));
            for d in &v.diagnostics {
                prop_assert!(d.line >= 1 && d.column >= 1 && !d.message.is_empty() && !d.hint.is_empty());
            }
        }
    }

    #[test]
    fn arbitrary_json_in_every_fence_never_panics(tag in prop::sample::select(tags()), v in json_value()) {
        let doc = format!("```{tag}\n{v}\n```\n");
        let out = render(&doc, &Options::default());
        let _ = answers_from_json(&Doc::parse(&doc), &json!({ "b1": v }));
        prop_assert!(out.html.starts_with("<div class=\"pb-doc\""));
    }
}

const DOC: &str = r#"```questionnaire
{ "version": "1", "questions": [
  { "id": "q1", "question": "One?", "options": ["A", "B", "C"] },
  { "id": "q2", "question": "Many?", "multi": true, "options": ["D", "E", "F", "G"] },
  { "id": "q3", "question": "Free?", "options": [], "open_field": { "label": "Say:" } }
] }
```

```prioritize
{ "version": "1", "items": [ { "id": "p1", "label": "P one" }, { "id": "p2", "label": "P two" }, { "id": "p3", "label": "P three" } ] }
```

```allocate
{ "version": "1", "items": [ { "id": "a1", "label": "A one", "weight": 10 }, { "id": "a2", "label": "A two", "weight": 0 }, { "id": "a3", "label": "A three", "weight": 5 } ] }
```

```mermaid
{ "version": "1", "source": "graph TD; X[Ex] --> Y[Why] --> Z[Zed]", "title": "Flow" }
```
"#;

fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z][a-zA-Z0-9 .,!?]{0,20}"
}

fn responses() -> impl Strategy<Value = Value> {
    (
        prop::option::of(0usize..3),
        prop::collection::vec(any::<bool>(), 4),
        prop::option::of(text()),
        prop::option::of(text()),
        prop::option::of(text()),
        Just(vec!["p1", "p2", "p3"]).prop_shuffle(),
        prop::collection::vec(any::<bool>(), 3),
        prop::option::of(text()),
        prop::collection::vec(0u32..1000, 3),
        prop::option::of((text(), 0u32..100)),
        prop::option::of(text()),
    )
        .prop_map(|(single, multi, other, note, free, order, removed, added, weights, alloc_added, comment)| {
            let picks: Vec<&str> = ["D", "E", "F", "G"].iter().zip(&multi).filter(|(_, on)| **on).map(|(l, _)| *l).collect();
            let mut removed: Vec<&str> = ["p1", "p2", "p3"].iter().zip(&removed).filter(|(_, on)| **on).map(|(l, _)| *l).collect();
            // Removing every item and adding none is refused (a ranking of nothing): keep one.
            if removed.len() == 3 && added.is_none() {
                removed.pop();
            }
            let mut ord: Vec<Value> = order.iter().filter(|i| !removed.contains(i)).map(|i| json!(i)).collect();
            if let Some(a) = &added {
                ord.push(json!({ "added": a }));
            }
            let mut q = serde_json::Map::new();
            if let Some(i) = single {
                let label = ["A", "B", "C"][i];
                q.insert("q1".into(), json!({ "selected": [label], "note": note }));
            }
            q.insert("q2".into(), json!({ "selected": picks, "other": other }));
            q.insert("q3".into(), json!({ "other": free }));
            let mut alloc = json!({ "weights": { "a1": weights[0], "a2": weights[1], "a3": weights[2] } });
            if let Some((label, w)) = alloc_added {
                alloc["added"] = json!([{ "label": label, "weight": w }]);
            }
            json!({
                "b1": { "questions": q },
                "b2": { "order": ord, "removed": removed, "note": note },
                "b3": alloc,
                "b4": { "comments": comment.map(|c| vec![json!({ "on": "node", "id": "Y", "text": c })]).unwrap_or_default() }
            })
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Nothing the reader gave is lost: every picked label, typed text, note, added item and
    /// comment appears in the export, and the allocation still sums to its total.
    #[test]
    fn generated_answers_export_without_losing_anything(r in responses()) {
        let doc = Doc::parse(DOC);
        let parsed = answers_from_json(&doc, &r).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let export = export(&doc, &parsed).markdown;
        let mut expected: Vec<String> = Vec::new();
        let texts = |v: &Value| -> Vec<String> {
            match v {
                Value::String(s) if !s.trim().is_empty() => vec![s.trim().to_string()],
                Value::Array(items) => items.iter().filter_map(|i| i.as_str()).map(str::to_string).collect(),
                _ => Vec::new(),
            }
        };
        for q in r["b1"]["questions"].as_object().into_iter().flat_map(|m| m.values()) {
            for key in ["selected", "other", "note"] {
                expected.extend(texts(&q[key]));
            }
        }
        for e in r["b2"]["order"].as_array().into_iter().flatten() {
            if let Some(a) = e.get("added") { expected.extend(texts(a)); }
        }
        expected.extend(texts(&r["b2"]["note"]));
        if let Some(a) = r["b3"].get("added") { expected.extend(texts(&a[0]["label"])); }
        for c in r["b4"]["comments"].as_array().into_iter().flatten() { expected.extend(texts(&c["text"])); }
        for t in expected {
            prop_assert!(export.contains(&t), "{:?} missing from\n{}", t, export);
        }
        for label in ["P one", "P two", "P three"] {
            let removed_line = export.lines().find(|l| l.starts_with("Removed by reader:")).unwrap_or("");
            let listed = export.contains(&format!(". {label}"));
            prop_assert!(listed || removed_line.contains(label), "{} is neither listed nor removed", label);
        }
        let total: u64 = export
            .lines()
            .filter(|l| l.starts_with("- A ") || l.contains("(added by reader)") && l.contains('%'))
            .filter_map(|l| l.split(": ").nth(1)?.split('%').next()?.parse::<u64>().ok())
            .sum();
        prop_assert_eq!(total, 100, "{}", export);
    }
}
