//! The playground's example documents, embedded in the binary: one that uses every component,
//! then one per component, then one in Hebrew (right to left, Hebrew chrome).

use std::sync::LazyLock;

/// An example: its name in `/?example=`, the label of its link, the language's own name and
/// code for one not in English, and its Markdown.
pub struct Example {
    pub id: &'static str,
    pub label: &'static str,
    pub native: Option<(&'static str, &'static str)>,
    pub markdown: &'static str,
}

macro_rules! example {
    ($id:literal, $label:literal) => {
        example!($id, $label, None)
    };
    ($id:literal, $label:literal, $native:expr) => {
        Example {
            id: $id,
            label: $label,
            native: $native,
            markdown: include_str!(concat!("../../playground/examples/", $id, ".md")),
        }
    };
}

pub const EXAMPLES: &[Example] = &[
    Example {
        id: "decision",
        label: "Every component",
        native: None,
        markdown: include_str!("../../../examples/decision.md"),
    },
    example!("single-choice", "Single choice"),
    example!("multi-choice", "Multi choice"),
    example!("open-question", "Open question"),
    example!("questionnaire", "Questionnaire"),
    example!("prioritize", "Prioritize"),
    example!("allocate", "Allocate"),
    example!("youtube", "YouTube"),
    example!("mermaid", "Mermaid"),
    example!("hebrew", "Hebrew", Some(("he", "עברית"))),
];

pub fn by_id(id: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.id == id)
}

/// The examples as the playground script loads them: `[{ "id", "label", "markdown" }, …]`.
pub static JSON: LazyLock<String> = LazyLock::new(|| {
    let list: Vec<_> = EXAMPLES
        .iter()
        .map(|e| serde_json::json!({ "id": e.id, "label": e.label, "markdown": e.markdown }))
        .collect();
    serde_json::Value::Array(list).to_string()
});

#[cfg(test)]
mod tests {
    use super::*;
    use passback_engine::Kind;

    /// Every example is valid and clean, the first uses every component, each component has
    /// its own example, and the Hebrew one reads right to left.
    #[test]
    fn the_examples_are_clean_and_cover_the_palette() {
        for e in EXAMPLES {
            let v = passback_engine::validate(e.markdown);
            assert!(v.ok, "{}: {:?}", e.id, v.diagnostics);
            assert!(v.diagnostics.is_empty(), "{}: {:?}", e.id, v.diagnostics);
        }
        let kinds = |md| -> Vec<Kind> {
            passback_engine::validate(md)
                .blocks
                .iter()
                .map(|b| b.kind)
                .collect()
        };
        let all = kinds(EXAMPLES[0].markdown);
        for kind in Kind::ALL {
            assert!(all.contains(kind), "decision.md lacks {}", kind.tag());
            let own = by_id(kind.tag()).expect("an example per component");
            assert_eq!(kinds(own.markdown), [*kind], "{}", own.id);
        }
        let hebrew = passback_engine::render(
            by_id("hebrew").unwrap().markdown,
            &passback_engine::Options::default(),
        );
        assert!(
            hebrew
                .html
                .starts_with("<div class=\"pb-doc\" dir=\"rtl\" lang=\"he\"")
        );
    }
}
