//! Typed blocks (`{ "blocks": [{ "type": … }] }`, spec §0.5) written as the Markdown document
//! they stand for: the form `/v1/render`, `/v1/documents` and the MCP tools all take.

use serde_json::Value;

/// The typed-blocks form of `route_document`: prose is copied, each component is written as its
/// canonical fence with the JSON serialized by us.
pub fn blocks_to_markdown(blocks: &Value) -> Result<String, String> {
    let list = blocks
        .as_array()
        .ok_or("\"blocks\" must be an array of { \"type\": … } objects.")?;
    let mut parts = Vec::with_capacity(list.len());
    for (i, block) in list.iter().enumerate() {
        let obj = block
            .as_object()
            .ok_or_else(|| format!("blocks[{i}] must be an object with a \"type\"."))?;
        let kind = obj.get("type").and_then(Value::as_str).ok_or_else(|| {
            format!("blocks[{i}] needs a \"type\": \"markdown\" or a component tag.")
        })?;
        if kind == "markdown" {
            let text = obj
                .get("text")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("blocks[{i}] (markdown) needs a \"text\" string."))?;
            if i + 1 < list.len()
                && let Some(open) = passback_engine::markdown::left_open(text)
            {
                return Err(format!(
                    "blocks[{i}] (markdown) ends inside {open}, which would swallow the blocks after it; close it within the block."
                ));
            }
            parts.push(text.to_string());
            continue;
        }
        if passback_engine::Kind::from_tag(kind).is_none() {
            let tags: Vec<&str> = passback_engine::Kind::ALL.iter().map(|k| k.tag()).collect();
            return Err(format!(
                "blocks[{i}] has type \"{kind}\", which is not markdown or a component tag ({}).",
                tags.join(", ")
            ));
        }
        let mut fields = obj.clone();
        // Keys stay in the order the client sent them, as JSON.stringify would write them.
        fields.shift_remove("type");
        let mut fields = Value::Object(fields);
        whole_numbers_as_integers(&mut fields);
        let json = serde_json::to_string(&fields).map_err(|e| format!("blocks[{i}]: {e}"))?;
        parts.push(format!("```{kind}\n{json}\n```"));
    }
    let mut doc = parts.join("\n\n");
    doc.push('\n');
    Ok(doc)
}

/// JSON.stringify writes `1.0` as `1`; serde_json keeps the `.0` of a number it read as a
/// float. Whole numbers within the exactly representable range are written as integers.
fn whole_numbers_as_integers(v: &mut Value) {
    match v {
        Value::Number(n) => {
            if let Some(f) = n.as_f64().filter(|f| n.is_f64() && f.fract() == 0.0)
                && f.abs() < 9_007_199_254_740_992.0
            {
                *n = serde_json::Number::from(f as i64);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_numbers_as_integers),
        Value::Object(members) => members.values_mut().for_each(whole_numbers_as_integers),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_blocks_become_canonical_fences() {
        let blocks = serde_json::json!([
            { "type": "markdown", "text": "Pick one." },
            { "type": "single-choice", "version": "1", "question": "Which?", "options": ["A", "B"] }
        ]);
        // Parsed from text, as a request body is: the keys keep the order they were sent in
        // (JSON.stringify's order), "type" dropped from wherever it stood.
        let blocks: Value = serde_json::from_str(&blocks.to_string()).unwrap();
        let whole: Value = serde_json::from_str(
            r#"[{ "type": "allocate", "version": "1", "total": 100.0, "items": [{ "id": "a", "label": "A", "weight": 2.50 }, { "id": "b", "label": "B", "weight": -0.0 }] }]"#,
        )
        .unwrap();
        assert!(
            blocks_to_markdown(&whole).unwrap().contains(
                r#"{"version":"1","total":100,"items":[{"id":"a","label":"A","weight":2.5},{"id":"b","label":"B","weight":0}]}"#
            ),
            "{}",
            blocks_to_markdown(&whole).unwrap()
        );
        let md = blocks_to_markdown(&blocks).unwrap();
        assert_eq!(
            md,
            "Pick one.\n\n```single-choice\n{\"version\":\"1\",\"question\":\"Which?\",\"options\":[\"A\",\"B\"]}\n```\n"
        );
        assert!(passback_engine::validate(&md).ok);
        assert!(
            blocks_to_markdown(&serde_json::json!([{ "type": "poll" }]))
                .unwrap_err()
                .contains("not markdown or a component tag")
        );
    }

    #[test]
    fn a_markdown_block_cannot_swallow_the_components_after_it() {
        let choice = serde_json::json!({ "type": "single-choice", "version": "1", "question": "Which?", "options": ["A", "B"] });
        for (text, says) in [
            ("Intro\n\n```", "``` code block"),
            ("~~~rust\nfn main() {}", "~~~ code block"),
            ("Note <!-- to self", ""),
            ("<!-- to self", "HTML comment"),
            ("<pre>\nkept as is", "<pre>"),
            ("<![CDATA[ raw", "CDATA"),
        ] {
            let blocks = serde_json::json!([{ "type": "markdown", "text": text }, choice]);
            match blocks_to_markdown(&blocks) {
                Ok(md) if says.is_empty() => {
                    // Inline HTML in a paragraph ends with the paragraph: nothing is swallowed.
                    assert_eq!(passback_engine::validate(&md).blocks.len(), 1, "{text:?}");
                }
                Ok(md) => panic!("{text:?} was accepted: {md}"),
                Err(e) => {
                    assert!(!says.is_empty(), "{text:?}: {e}");
                    assert!(e.contains("blocks[0]") && e.contains(says), "{e}");
                }
            }
            // Last in the list, it swallows nothing: accepted.
            let last = serde_json::json!([choice, { "type": "markdown", "text": text }]);
            assert!(blocks_to_markdown(&last).is_ok(), "{text:?}");
        }
        // Closed constructs are fine.
        for text in [
            "```\ncode\n```",
            "<!-- a -->",
            "<pre>x</pre>",
            "    indented",
        ] {
            let blocks = serde_json::json!([{ "type": "markdown", "text": text }, choice]);
            let md = blocks_to_markdown(&blocks).unwrap();
            assert_eq!(passback_engine::validate(&md).blocks.len(), 1, "{text:?}");
        }
    }
}
