//! The tools as agents see them: names, descriptions and input schemas.

use crate::routing::{MAX_WAIT, PAGE_DEFAULT, PAGE_MAX};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};
use std::sync::{Arc, LazyLock};

pub(super) const TOOL_NAMES: [&str; 11] = [
    "route_document",
    "revise_document",
    "list_documents",
    "list_responses",
    "get_document",
    "close_document",
    "set_status",
    "delete_document",
    "validate_document",
    "list_events",
    "get_components_spec",
];

/// Every component's tag, from the engine's registry.
fn component_tags() -> impl Iterator<Item = &'static str> {
    passback_engine::Kind::ALL.iter().map(|k| k.tag())
}

/// What a typed block's `type` may be: `markdown`, or a component's tag.
fn block_types() -> Vec<&'static str> {
    std::iter::once("markdown")
        .chain(component_tags())
        .collect()
}

/// The `markdown` and `blocks` arguments, shared by route_document and validate_document.
fn document_properties() -> JsonObject {
    let Value::Object(properties) = json!({
        "markdown": {
            "type": "string",
            "description": "The whole document as Markdown. Each component is a fenced code block whose info string is its tag (```single-choice, ```prioritize, …) holding the component's JSON; everything else is prose."
        },
        "blocks": {
            "type": "array",
            "description": "The document as typed blocks, in order: prose as {\"type\": \"markdown\", \"text\": \"…\"}, a component as {\"type\": \"<tag>\", \"version\": \"1\", …its fields}. The server writes the fences. Wins over \"markdown\" when both are given. get_components_spec has every component's fields.",
            "items": {
                "type": "object",
                "required": ["type"],
                "properties": { "type": { "enum": block_types() } }
            }
        }
    }) else {
        unreachable!("an object literal")
    };
    properties
}

fn schema(properties: JsonObject, required: &[&str]) -> Arc<JsonObject> {
    let Value::Object(schema) = json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    }) else {
        unreachable!("an object literal")
    };
    Arc::new(schema)
}

pub(super) static TOOLS: LazyLock<Vec<Tool>> = LazyLock::new(|| {
    let mut route_properties = document_properties();
    route_properties.insert(
        "expires_in".into(),
        json!({
            "type": "integer",
            "minimum": 1,
            "description": "Seconds until the document expires (it then takes no more answers; those it took stay readable until they are purged); at most the server's retention period, which is also the default."
        }),
    );
    route_properties.insert(
        "callback_url".into(),
        json!({
            "type": "string",
            "description": "An https:// URL to POST each answer, close and expiry of the document to, signed as Standard Webhooks says, so you are woken instead of polling; the answer then carries webhook_secret (unless your sender key has one) to check the signatures with."
        }),
    );
    route_properties.insert(
        "recipients".into(),
        json!({
            "type": "array",
            "maxItems": crate::routing::MAX_RECIPIENTS,
            "description": "The people to send it to: each gets a review link of their own (the answer's recipients[].review_url), their responses carry their name as \"recipient\", and get_document shows who opened and who answered. The shared review_url keeps working for anyone else.",
            "items": {
                "type": "object",
                "required": ["name"],
                "additionalProperties": false,
                "properties": {
                    "name": { "type": "string", "minLength": 1, "maxLength": crate::routing::MAX_RECIPIENT_NAME },
                    "email": { "type": "string", "description": "Kept for you to read back; the server sends no email." }
                }
            }
        }),
    );
    route_properties.insert(
        "sender".into(),
        json!({
            "type": "string",
            "maxLength": crate::routing::MAX_SENDER_NAME,
            "description": "Your display name as readers should see it, such as \"Dana from Finance\": the review page opens with \"Dana from Finance asks for your answers\" (in the document's language). Line breaks and text-direction controls are removed; get_document returns it. Left out, the page names no sender."
        }),
    );
    route_properties.insert(
        "verdict".into(),
        json!({
            "description": "Ask each reader for a verdict as the review page's last step: true for the choices Approve / Request changes / Reject (in the document's language: Hebrew and Arabic documents get theirs), or 2 to 6 labels of your own. Each response then carries \"verdict\" (the label chosen) and its export ends with \"Verdict: …\".",
            "oneOf": [
                { "type": "boolean" },
                {
                    "type": "array",
                    "minItems": 2,
                    "maxItems": 6,
                    "uniqueItems": true,
                    "items": { "type": "string", "minLength": 1, "maxLength": crate::routing::MAX_VERDICT_LABEL }
                }
            ]
        }),
    );
    let Value::Object(list_properties) = json!({
        "id": { "type": "string", "description": "The document's id, from route_document." },
        "token": { "type": "string", "description": "The document's token, from route_document: it alone opens the answers. Not needed over HTTP with the sender key that routed the document." },
        "since": { "type": "integer", "minimum": 0, "default": 0, "description": "Only responses after this response_id (0: all). Pass the last response_id you have." },
        "wait": { "type": "number", "minimum": 0, "maximum": MAX_WAIT.as_secs(), "default": 0, "description": "When there is no newer response yet, wait up to this many seconds for one and answer as soon as it arrives (an empty list when the time is up)." }
    }) else {
        unreachable!("an object literal")
    };
    let Value::Object(owner_properties) = json!({
        "id": { "type": "string", "description": "The document's id, from route_document." },
        "token": { "type": "string", "description": "The document's token, from route_document. Not needed over HTTP with the sender key that routed the document." }
    }) else {
        unreachable!("an object literal")
    };
    let Value::Object(page_properties) = json!({
        "after": { "type": "string", "description": "The next cursor of the previous page; leave out for the first page." },
        "limit": { "type": "integer", "minimum": 1, "maximum": PAGE_MAX, "default": PAGE_DEFAULT, "description": "Documents on the page." }
    }) else {
        unreachable!("an object literal")
    };
    let Value::Object(events_properties) = json!({
        "since": { "type": "string", "description": "The id of the last event you have (the next list_events answered); leave it out for the first page." },
        "limit": { "type": "integer", "minimum": 1, "maximum": crate::routing::EVENTS_MAX, "default": crate::routing::EVENTS_DEFAULT, "description": "Events per page." }
    }) else {
        unreachable!("an object literal")
    };
    let mut revise_properties = document_properties();
    for (name, value) in &owner_properties {
        revise_properties.insert(name.clone(), value.clone());
    }
    let mut status_properties = owner_properties.clone();
    status_properties.insert(
        "status".into(),
        json!({
            "enum": ["open", "closed"],
            "description": "closed: the review page says so and takes no more answers (those it took stay readable); open: it takes answers again. An expired document cannot change."
        }),
    );
    vec![
        Tool::new(
            "route_document",
            "Publish a PassbackAI decision document for a person to answer. Give it as \"markdown\" or as typed \"blocks\". It is validated first: a document that violates the spec is refused with its diagnostics (fix them and call again; validate_document checks without publishing). Answers {id, review_url, token, hash, expires_at, diagnostics}: send review_url to the person who should answer; keep id and token for list_responses (the token is shown only this once). diagnostics holds warnings only.",
            schema(route_properties, &[]),
        )
        .with_title("Route a document to a reader")
        .with_annotations(
            ToolAnnotations::new()
                .read_only(false)
                .destructive(false)
                .idempotent(false)
                .open_world(false),
        ),
        Tool::new(
            "revise_document",
            "Replace a routed document's text with a new revision (\"markdown\" or typed \"blocks\", as route_document takes them); its id, link, token and expiry stay. Readers see the latest revision; each response says which revision it answered (\"revision\" in list_responses). A component's answers follow it by its \"id\" where it has one, by position otherwise. Validated first, like route_document. Answers {id, revision, hash, diagnostics}: the diagnostics add a warning (revision_answers_ambiguous, revision_answers_unmatched) for each component whose earlier answers the revision leaves without a place or may put on another question. A closed document can be revised; an expired one cannot.",
            schema(revise_properties, &["id"]),
        )
        .with_title("Revise a routed document")
        .with_annotations(
            ToolAnnotations::new()
                .read_only(false)
                .destructive(false)
                .idempotent(false)
                .open_world(false),
        ),
        Tool::new(
            "list_documents",
            "The documents your sender key routed, newest first, a page at a time: {documents: [{id, status, created_at, expires_at, views, responses, last_response_at, purge_at}], next}. Pass next as after for the next page (null on the last). Needs /mcp called with a sender key (Authorization: Bearer pbk_…).",
            schema(page_properties, &[]),
        )
        .with_title("List your routed documents")
        .with_annotations(ToolAnnotations::new().read_only(true).open_world(false)),
        Tool::new(
            "list_responses",
            "The answers people sent to a routed document, oldest first, as {document, responses}. Each response has response_id, received_at, reviewer, componentInputs (the answers as JSON keyed by block id: b1, b2, …), annotations, and export (the answers as Markdown, ready to read). Pass since = the last response_id you have for only newer ones, and wait (seconds, at most 60) to wait for the next answer instead of polling.",
            schema(list_properties, &["id"]),
        )
        .with_title("Read the answers to a routed document")
        .with_annotations(ToolAnnotations::new().read_only(true).open_world(false)),
        Tool::new(
            "get_document",
            "Where a routed document stands, without pulling its answers: {id, status (open, closed or expired), created_at, expires_at, views (review page loads), responses (how many), last_response_at, purge_at (when a closed or expired document and its answers will be deleted; null while open), revision, recipients (each with how far they got), verdict (its choices, or null), sender (your display name as routed, or null)}.",
            schema(owner_properties.clone(), &["id"]),
        )
        .with_title("A routed document's status and counts")
        .with_annotations(ToolAnnotations::new().read_only(true).open_world(false)),
        Tool::new(
            "close_document",
            "Close a routed document when you have the answers you need: its review page says it is closed and takes no more answers; the answers it took stay readable with list_responses until it is purged (purge_at). Closing a closed document changes nothing. Answers the document's status and counts, as get_document. To take answers again, set_status with status \"open\".",
            schema(owner_properties.clone(), &["id"]),
        )
        .with_title("Close a routed document")
        .with_annotations(
            ToolAnnotations::new()
                .read_only(false)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        ),
        Tool::new(
            "set_status",
            "Close a routed document (status \"closed\", as close_document does: its review page says it is closed and takes no more answers; the answers it took stay readable with list_responses) or reopen it (\"open\"). Answers the document's status and counts, as get_document.",
            schema(status_properties, &["id", "status"]),
        )
        .with_title("Close or reopen a routed document")
        .with_annotations(
            ToolAnnotations::new()
                .read_only(false)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        ),
        Tool::new(
            "delete_document",
            "Delete a routed document and all its answers now: its review link answers that it is gone, and list_responses can no longer read them. Answers {id, deleted: true}.",
            schema(owner_properties, &["id"]),
        )
        .with_title("Delete a routed document and its answers")
        .with_annotations(
            ToolAnnotations::new()
                .read_only(false)
                .destructive(true)
                .idempotent(false)
                .open_world(false),
        ),
        Tool::new(
            "list_events",
            "The events of the documents your sender key routed, oldest first, as {events, next}: each {id, type (response.created, document.closed or document.expired), document_id, response_id (for response.created), created_at}. Pass since = the next you were given to get only newer ones; use it to catch up after an absence instead of calling list_responses on every document. Needs /mcp with a sender key.",
            schema(events_properties, &[]),
        )
        .with_title("Events of the key's documents")
        .with_annotations(ToolAnnotations::new().read_only(true).open_world(false)),
        Tool::new(
            "validate_document",
            "Check a PassbackAI document against the spec without publishing it; the same input as route_document. Answers {ok, outcome, blocks, diagnostics}: outcome is valid or violating; blocks lists every component fence (id b1, b2, …, kind, valid, line); each diagnostic has severity, code, block, line, column, JSON path, message and hint.",
            schema(document_properties(), &[]),
        )
        .with_title("Validate a document")
        .with_annotations(
            ToolAnnotations::new()
                .read_only(true)
                .idempotent(true)
                .open_world(false),
        ),
        Tool::new(
            "get_components_spec",
            format!(
                "How to write a PassbackAI document: every component ({}) with its fields, an example, what the reader does and what the exported answer looks like, as Markdown; and the JSON Schema (2020-12) of every component and of typed blocks. Read it before writing a document.",
                component_tags().collect::<Vec<_>>().join(", ")
            ),
            schema(JsonObject::new(), &[]),
        )
        .with_title("The component reference and schema")
        .with_annotations(
            ToolAnnotations::new()
                .read_only(true)
                .idempotent(true)
                .open_world(false),
        ),
    ]
});
