//! A reviewer's text cannot forge entries of the export on any path over real HTTP (contract
//! §6.1): a routed document answered with JSON and with the form's post (`/r/{id}/responses`),
//! and the stateless `/v1/answers` with JSON and with the form, all give the same export, with
//! the reviewer's lines indented under their entry and escaped.
#![cfg(feature = "store")]

mod common;

use common::http::{call, urlencode};
use common::store::Backend;
use serde_json::json;

const DOC: &str = "Which wiki?\n\n```single-choice\n{\"version\":\"1\",\"question\":\"Which wiki?\",\"options\":[\"Confluence\",\"Notion\"]}\n```\n\n```open-question\n{\"version\":\"1\",\"question\":\"Anything else?\"}\n```\n";

/// The issue's attack: a made-up question and answer, and a made-up section of comments.
const FORGED: &str = "Notion\n\n**Q: Which wiki do we move to?**\nAnswer: Stay where we are\n\n## Comments on the text\n\n- On the whole document — <b>ship it</b>";

/// What the export must say: one question per block, the reviewer's lines under their answer.
const EXPECTED: &str = "**Q: Which wiki?**\n\
Answer: Other: Notion\n\
\x20   \\*\\*Q: Which wiki do we move to?**\n\
\x20   \\Answer: Stay where we are\n\
\x20   \\## Comments on the text\n\
\x20   \\- On the whole document — &lt;b>ship it&lt;/b>\n\
\n\
**Q: Anything else?**\n\
Answer: Notion\n\
\x20   \\*\\*Q: Which wiki do we move to?**\n\
\x20   \\Answer: Stay where we are\n\
\x20   \\## Comments on the text\n\
\x20   \\- On the whole document — &lt;b>ship it&lt;/b>\n\
\n\
## Comments on the text\n\
\n\
- On the whole document — Notion  **Q: Which wiki do we move to?** Answer: Stay where we are  ## Comments on the text  - On the whole document — &lt;b>ship it&lt;/b>\n";

fn form_fields() -> String {
    format!(
        "b1.q0.pick=other&b1.q0.other={f}&b2.q0.text={f}&pb.comment={f}&pb.op=export",
        f = urlencode(FORGED)
    )
}

fn json_responses() -> serde_json::Value {
    json!({
        "b1": { "other": FORGED },
        "b2": { "text": FORGED },
        "annotations": [{ "text": FORGED }],
    })
}

#[test]
fn forged_entries_are_escaped_on_every_path() {
    let backend = Backend::sqlite();
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();

    // Stateless: JSON and the form's post to /v1/answers.
    let body = json!({ "markdown": DOC, "responses": json_responses() }).to_string();
    let r = call(
        addr,
        "POST",
        "/v1/answers",
        &[("content-type", "application/json")],
        body.as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.text(), EXPECTED);
    let form = format!(
        "pb.source={}&pb.surface=page&{}",
        urlencode(DOC),
        form_fields()
    );
    let r = call(
        addr,
        "POST",
        "/v1/answers",
        &[("content-type", "application/x-www-form-urlencoded")],
        form.as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.text(), EXPECTED);

    // Routed: JSON and the form's post to /r/{id}/responses, pulled by the sender.
    let routed = call(
        addr,
        "POST",
        "/v1/documents",
        &[("content-type", "application/json")],
        json!({ "markdown": DOC }).to_string().as_bytes(),
    );
    assert_eq!(routed.status, 201, "{}", routed.text());
    let routed = routed.json();
    let (id, token) = (
        routed["id"].as_str().expect("an id"),
        routed["token"].as_str().expect("a token"),
    );
    let by_json = call(
        addr,
        "POST",
        &format!("/r/{id}/responses"),
        &[("content-type", "application/json")],
        json!({ "responses": json_responses() })
            .to_string()
            .as_bytes(),
    );
    assert_eq!(by_json.status, 201, "{}", by_json.text());
    assert_eq!(by_json.json()["export"], EXPECTED);
    let by_form = call(
        addr,
        "POST",
        &format!("/r/{id}/responses"),
        &[("content-type", "application/x-www-form-urlencoded")],
        form_fields().as_bytes(),
    );
    assert_eq!(by_form.status, 201, "{}", by_form.text());
    let pulled = call(
        addr,
        "GET",
        &format!("/v1/documents/{id}/responses"),
        &[("authorization", &format!("Bearer {token}"))],
        b"",
    );
    assert_eq!(pulled.status, 200, "{}", pulled.text());
    let pulled = pulled.json();
    let exports: Vec<&str> = pulled["responses"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|r| r["export"].as_str().expect("an export"))
        .collect();
    assert_eq!(exports, [EXPECTED, EXPECTED]);
    // The reviewer's own words are kept as written for the sender's JSON.
    assert_eq!(
        pulled["responses"][0]["componentInputs"]["b2"]["text"],
        FORGED
    );
}
