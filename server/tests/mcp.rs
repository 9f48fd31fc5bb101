//! The MCP tools (contract §6) driven by the official SDK's own client: over stdio against the
//! real `passback mcp`, and over streamable HTTP against the real `passback serve` at `/mcp`.
//! Readers answer over real HTTP, as a browser without JavaScript and as JSON; the tools then
//! pull what they sent. The stores are the harness's backends (`common::store`): SQLite files in
//! temporary folders, and PostgreSQL.

mod common;

use common::http::{Reply, fetch, request, send};
use common::store::Backend;
use common::{Served, serve};
use passback_engine::Kind;
use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::{Peer, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use std::process::Stdio;
use std::time::Duration;

type Client = RunningService<RoleClient, ()>;

const DOC: &str = "# Launch\n\nWhich region first?\n\n```single-choice\n{\"version\":\"1\",\"question\":\"Which region first?\",\"options\":[\"EU\",\"US\"]}\n```\n\n```prioritize\n{\"version\":\"1\",\"items\":[{\"id\":\"docs\",\"label\":\"Docs\"},{\"id\":\"sdk\",\"label\":\"SDK\"},{\"id\":\"ui\",\"label\":\"UI\"}]}\n```\n";

/// `DOC` as typed blocks.
fn doc_blocks() -> Value {
    json!([
        { "type": "markdown", "text": "# Launch\n\nWhich region first?" },
        { "type": "single-choice", "version": "1", "question": "Which region first?", "options": ["EU", "US"] },
        { "type": "prioritize", "version": "1", "items": [
            { "id": "docs", "label": "Docs" }, { "id": "sdk", "label": "SDK" }, { "id": "ui", "label": "UI" }
        ] }
    ])
}

// ---------------------------------------------------------------------------------------------
// Clients and stores

/// `passback mcp {args}` as a child process, connected over its standard input and output.
async fn stdio_client(args: &[&str]) -> Client {
    let mut command = tokio::process::Command::from(common::passback());
    command.arg("mcp").args(args);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("start passback mcp");
    ().serve(transport)
        .await
        .expect("passback mcp takes the client's initialize")
}

/// The server's `/mcp`, over streamable HTTP.
async fn http_client(server: &Served) -> Client {
    let transport =
        StreamableHttpClientTransport::from_uri(format!("http://{}/mcp", server.addr).as_str());
    ().serve(transport)
        .await
        .expect("/mcp takes the client's initialize")
}

async fn call(peer: &Peer<RoleClient>, tool: &'static str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    peer.call_tool(CallToolRequestParams::new(tool).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("{tool}: the call failed: {e}"))
}

/// A tool's answer, which must not be an error: its structured content, which its text repeats.
async fn ok(peer: &Peer<RoleClient>, tool: &'static str, args: Value) -> Value {
    let result = call(peer, tool, args).await;
    let value = result.structured_content.clone().unwrap_or(Value::Null);
    assert_ne!(result.is_error, Some(true), "{tool}: {value}");
    value
}

/// A tool's refusal: its sentence, and the whole structured error.
async fn refused(peer: &Peer<RoleClient>, tool: &'static str, args: Value) -> (String, Value) {
    let result = call(peer, tool, args).await;
    assert_eq!(result.is_error, Some(true), "{tool}: {result:?}");
    let value = result.structured_content.expect("a structured error");
    let error = value["error"]
        .as_str()
        .expect("an error sentence")
        .to_string();
    (error, value)
}

fn ids(listed: &Value) -> Vec<u64> {
    listed["responses"]
        .as_array()
        .expect("a responses list")
        .iter()
        .map(|r| r["response_id"].as_u64().expect("a response_id"))
        .collect()
}

/// A reader's post to `/r/{id}/responses`: (status, body).
async fn answer(addr: &str, id: &str, content_type: &str, body: String) -> (u16, String) {
    let path = format!("/r/{id}/responses");
    let headers = [
        ("content-type", content_type),
        ("accept", "application/json"),
    ];
    let reply = fetch(addr, "POST", &path, &headers, body).await;
    (reply.status, reply.text())
}

// ---------------------------------------------------------------------------------------------
// The scenario, over either transport

/// Lists the tools; routes a document as Markdown and as typed blocks; answers it over HTTP with
/// the form's own post and with JSON; pulls the answers, with `since` and with a long-poll; and
/// checks refusals, validation and the component reference. `addr` is the `passback serve`
/// that serves the review links.
async fn the_routed_loop(client: &Client, addr: &str) {
    let mut names: Vec<String> = client
        .list_all_tools()
        .await
        .expect("tools/list")
        .iter()
        .map(|t: &Tool| {
            assert!(
                t.description.as_deref().is_some_and(|d| d.len() > 80),
                "{} needs a description",
                t.name
            );
            assert_eq!(
                t.input_schema.get("type"),
                Some(&json!("object")),
                "{}",
                t.name
            );
            t.name.to_string()
        })
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "close_document",
            "delete_document",
            "get_components_spec",
            "get_document",
            "list_documents",
            "list_events",
            "list_responses",
            "revise_document",
            "route_document",
            "set_status",
            "validate_document"
        ]
    );
    let tools = client.list_all_tools().await.expect("tools/list");
    let schema_of = |name: &str| {
        Value::Object(
            (*tools
                .iter()
                .find(|t| t.name == name)
                .expect("the tool")
                .input_schema)
                .clone(),
        )
    };
    assert_eq!(schema_of("list_responses")["required"], json!(["id"]));
    assert!(schema_of("route_document")["properties"]["blocks"].is_object());

    // Routed as Markdown: the id, the review link on the server, the token.
    let routed = ok(client, "route_document", json!({ "markdown": DOC })).await;
    let id = routed["id"].as_str().expect("an id").to_string();
    let token = routed["token"].as_str().expect("a token").to_string();
    assert_eq!(routed["review_url"], format!("http://{addr}/r/{id}"));
    assert_eq!(id.len(), 22);
    assert!(token.len() >= 43, "{token}");
    assert!(routed["expires_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(routed["diagnostics"], json!([]));

    // Routed as typed blocks, which win over "markdown": the same document, the same hash.
    let typed = ok(
        client,
        "route_document",
        json!({ "blocks": doc_blocks(), "markdown": "not this one", "expires_in": 3600 }),
    )
    .await;
    assert_ne!(typed["id"], routed["id"]);
    let bearer = format!("Bearer {}", typed["token"].as_str().unwrap());
    let kept = fetch(
        addr,
        "GET",
        &format!("/v1/documents/{}", typed["id"].as_str().unwrap()),
        &[("authorization", &bearer)],
        b"",
    )
    .await;
    assert_eq!(kept.status, 200);
    let kept = kept.json();
    assert!(
        kept["markdown"]
            .as_str()
            .unwrap()
            .contains("```single-choice\n{\"version\":\"1\",\"question\":\"Which region first?\""),
        "{kept}"
    );

    // The reader's page, and the answers: the form's own post (no JavaScript), then JSON.
    let page = fetch(addr, "GET", &format!("/r/{id}"), &[], b"").await;
    assert_eq!(page.status, 200);
    assert!(
        page.text()
            .contains(&format!("action=\"/r/{id}/responses\""))
    );
    let (status, body) = answer(
        addr,
        &id,
        "application/x-www-form-urlencoded",
        "b1.q0.pick=1&b2.item=i%3Asdk&b2.item=i%3Adocs&b2.item=i%3Aui&pb.op=export".into(),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let (status, body) = answer(
        addr,
        &id,
        "application/json",
        json!({ "responses": { "b1": { "selected": ["EU"], "note": "docs first" } }, "reviewer": "Dana" })
            .to_string(),
    )
    .await;
    assert_eq!(status, 201, "{body}");

    // Pulled: both, oldest first, with the answers as JSON and as the Markdown export.
    let listed = ok(
        client,
        "list_responses",
        json!({ "id": id, "token": token }),
    )
    .await;
    assert_eq!(ids(&listed), [1, 2]);
    assert_eq!(listed["document"]["id"], id.as_str());
    assert_eq!(listed["document"]["hash"], routed["hash"]);
    let first = &listed["responses"][0];
    assert_eq!(
        first["componentInputs"],
        json!({ "b1": { "selected": ["US"] }, "b2": { "order": ["sdk", "docs", "ui"] } })
    );
    assert_eq!(first["annotations"], json!([]));
    assert_eq!(first["reviewer"], Value::Null);
    let export = first["export"].as_str().unwrap();
    assert!(
        export.contains("**Q: Which region first?**\nAnswer: US"),
        "{export}"
    );
    assert!(export.contains("1. SDK\n2. Docs\n3. UI"), "{export}");
    let second = &listed["responses"][1];
    assert_eq!(second["reviewer"], "Dana");
    assert_eq!(
        second["componentInputs"],
        json!({ "b1": { "selected": ["EU"], "note": "docs first" } })
    );
    assert!(
        second["export"]
            .as_str()
            .unwrap()
            .contains("Answer: EU\nNote: docs first")
    );
    let newer = ok(
        client,
        "list_responses",
        json!({ "id": id, "token": token, "since": 1 }),
    )
    .await;
    assert_eq!(ids(&newer), [2]);

    // A wait with nothing arriving answers an empty list when its time is up.
    let none = ok(
        client,
        "list_responses",
        json!({ "id": id, "token": token, "since": 2, "wait": 1 }),
    )
    .await;
    assert_eq!(ids(&none), Vec::<u64>::new());

    // A wait answers with a response posted while it waits (else it would wait a minute and
    // answer an empty list).
    let waiting = {
        let (peer, id, token) = (client.peer().clone(), id.clone(), token.clone());
        tokio::spawn(async move {
            ok(
                &peer,
                "list_responses",
                json!({ "id": id, "token": token, "since": 2, "wait": 60 }),
            )
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, body) = answer(
        addr,
        &id,
        "application/json",
        json!({ "responses": { "b1": { "selected": ["US"] } } }).to_string(),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let woken = waiting.await.expect("the waiting call");
    assert_eq!(ids(&woken), [3]);
    assert_eq!(
        woken["responses"][0]["componentInputs"],
        json!({ "b1": { "selected": ["US"] } })
    );

    // The lifecycle: status and counts, close, reopen, delete; as over HTTP.
    let state = ok(client, "get_document", json!({ "id": id, "token": token })).await;
    assert_eq!(state["status"], "open");
    assert_eq!(state["responses"], 3);
    assert_eq!(state["views"], 1, "{state}");
    assert_eq!(
        state["last_response_at"],
        woken["responses"][0]["received_at"]
    );
    let closed = ok(
        client,
        "close_document",
        json!({ "id": id, "token": token }),
    )
    .await;
    assert_eq!(closed["status"], "closed");
    assert!(closed["purge_at"].is_string(), "{closed}");
    // Closing again changes nothing: the first close's time (and so the purge) stays.
    let again = ok(
        client,
        "close_document",
        json!({ "id": id, "token": token }),
    )
    .await;
    assert_eq!(again["status"], "closed");
    assert_eq!(again["purge_at"], closed["purge_at"]);
    for (args, says) in [
        (json!({ "id": id }), "close_document needs \"token\""),
        (
            json!({ "id": id, "token": typed["token"] }),
            "token is not this document's",
        ),
        (
            json!({ "id": id, "token": token, "status": "open" }),
            "\"status\"",
        ),
    ] {
        let (error, _) = refused(client, "close_document", args).await;
        assert!(error.contains(says), "{error}");
    }
    let page = fetch(addr, "GET", &format!("/r/{id}"), &[], b"").await;
    assert_eq!(page.status, 200);
    assert!(page.text().contains("This document is closed."));
    let (status, body) = answer(
        addr,
        &id,
        "application/json",
        json!({ "responses": { "b1": { "selected": ["US"] } } }).to_string(),
    )
    .await;
    assert_eq!(status, 409, "{body}");
    let kept = ok(
        client,
        "list_responses",
        json!({ "id": id, "token": token, "wait": 30 }),
    )
    .await;
    assert_eq!(ids(&kept), [1, 2, 3]);
    assert_eq!(kept["document"]["status"], "closed");
    for (args, says) in [
        (
            json!({ "id": id, "token": token, "status": "shut" }),
            "\"open\" or \"closed\"",
        ),
        (json!({ "id": id, "token": token }), "\"status\" must be"),
        (
            json!({ "id": id, "token": typed["token"], "status": "open" }),
            "token is not this document's",
        ),
        (
            json!({ "id": id, "status": "open" }),
            "set_status needs \"token\"",
        ),
        (
            json!({ "id": id, "token": token, "status": "open", "expires_in": 1 }),
            "\"expires_in\"",
        ),
    ] {
        let (error, _) = refused(client, "set_status", args).await;
        assert!(error.contains(says), "{error}");
    }
    let reopened = ok(
        client,
        "set_status",
        json!({ "id": id, "token": token, "status": "open" }),
    )
    .await;
    assert_eq!(reopened["status"], "open");
    assert_eq!(reopened["purge_at"], Value::Null);
    assert_eq!(reopened["views"], 2);

    // Revised: the link shows the new revision, a new answer records it, and the earlier
    // answers keep theirs and their export. Dropping an option earlier answers chose is warned
    // of, naming the block.
    let revised_doc = DOC.replace("[\"EU\",\"US\"]", "[\"EU\",\"APAC\"]");
    let revised = ok(
        client,
        "revise_document",
        json!({ "id": id, "token": token, "markdown": revised_doc }),
    )
    .await;
    assert_eq!(revised["id"], id.as_str());
    assert_eq!(revised["revision"], 2, "{revised}");
    let warning = revised["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "revision_answers_ambiguous")
        .unwrap_or_else(|| panic!("a warning: {revised}"));
    assert_eq!(warning["block"], "b1");
    assert!(
        warning["message"].as_str().unwrap().contains("\"US\""),
        "{warning}"
    );
    let page = fetch(addr, "GET", &format!("/r/{id}"), &[], b"").await;
    assert!(
        page.text().contains("APAC") && page.text().contains("name=\"pb.revision\" value=\"2\"")
    );
    let (status, body) = answer(
        addr,
        &id,
        "application/json",
        json!({ "responses": { "b1": { "selected": ["APAC"] } } }).to_string(),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let all = ok(
        client,
        "list_responses",
        json!({ "id": id, "token": token }),
    )
    .await;
    let revisions: Vec<&Value> = all["responses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["revision"])
        .collect();
    assert_eq!(revisions, [&json!(1), &json!(1), &json!(1), &json!(2)]);
    assert_eq!(all["responses"][0]["export"].as_str(), Some(export));
    assert_eq!(all["document"]["revision"], 2);
    let state = ok(client, "get_document", json!({ "id": id, "token": token })).await;
    assert_eq!(state["revision"], 2, "{state}");
    let (error, _) = refused(
        client,
        "revise_document",
        json!({ "id": id, "token": typed["token"], "markdown": DOC }),
    )
    .await;
    assert!(error.contains("token is not this document's"), "{error}");
    let (error, refusal) = refused(
        client,
        "revise_document",
        json!({ "id": id, "token": token, "markdown": "```single-choice\n{}\n```\n" }),
    )
    .await;
    assert!(error.contains("violates"), "{error}");
    assert!(refusal["diagnostics"].is_array());
    let typed_id = typed["id"].as_str().unwrap();
    let typed_token = typed["token"].as_str().unwrap();
    let (error, _) = refused(
        client,
        "delete_document",
        json!({ "id": typed_id, "token": token }),
    )
    .await;
    assert!(error.contains("token is not this document's"), "{error}");
    let deleted = ok(
        client,
        "delete_document",
        json!({ "id": typed_id, "token": typed_token }),
    )
    .await;
    assert_eq!(deleted, json!({ "id": typed_id, "deleted": true }));
    for tool in ["get_document", "delete_document", "revise_document"] {
        let mut args = json!({ "id": typed_id, "token": typed_token });
        if tool == "revise_document" {
            args["markdown"] = json!(DOC);
        }
        let (error, _) = refused(client, tool, args).await;
        assert!(error.contains("gone"), "{tool}: {error}");
    }
    let gone = fetch(addr, "GET", &format!("/r/{typed_id}"), &[], b"").await;
    assert_eq!(gone.status, 410);

    // Refusals name what to fix.
    let (error, _) = refused(
        client,
        "list_responses",
        json!({ "id": id, "token": typed["token"] }),
    )
    .await;
    assert!(error.contains("token is not this document's"), "{error}");
    let (error, _) = refused(
        client,
        "list_responses",
        json!({ "id": "AAAAAAAAAAAAAAAAAAAAAA", "token": token }),
    )
    .await;
    assert!(error.contains("no document"), "{error}");
    let (error, _) = refused(client, "list_responses", json!({ "id": id })).await;
    assert!(error.contains("\"token\""), "{error}");
    let (error, _) = refused(
        client,
        "list_responses",
        json!({ "id": id, "token": token, "wait": 61 }),
    )
    .await;
    assert!(error.contains("from 0 to 60"), "{error}");
    let (error, _) = refused(client, "route_document", json!({ "doc": DOC })).await;
    assert!(error.contains("\"markdown\""), "{error}");
    let (error, _) = refused(client, "route_document", json!({})).await;
    assert!(error.contains("\"blocks\""), "{error}");
    let (error, _) = refused(
        client,
        "route_document",
        json!({ "blocks": [{ "type": "poll" }] }),
    )
    .await;
    assert!(error.contains("blocks[0]"), "{error}");

    // A violating document is refused with its diagnostics, and validate_document says why.
    let violating = "# Pick\n\n```single-choice\n{\"version\":\"1\",\"question\":\"Which?\",\"options\":[\"Only one\"]}\n```\n";
    let (error, refusal) =
        refused(client, "route_document", json!({ "markdown": violating })).await;
    assert!(
        error.contains("violates the PassbackAI spec (1 error)"),
        "{error}"
    );
    assert_eq!(refusal["diagnostics"][0]["code"], "too_few");
    let checked = ok(
        client,
        "validate_document",
        json!({ "markdown": violating }),
    )
    .await;
    assert_eq!(checked["ok"], false);
    assert_eq!(checked["outcome"], "violating");
    assert_eq!(
        checked["blocks"],
        json!([{ "id": "b1", "kind": "single-choice", "valid": false, "line": 3 }])
    );
    let diagnostic = &checked["diagnostics"][0];
    assert_eq!(diagnostic["severity"], "error");
    assert_eq!(diagnostic["path"], "/options");
    assert_eq!(diagnostic["line"], 4);
    let fine = ok(
        client,
        "validate_document",
        json!({ "blocks": doc_blocks() }),
    )
    .await;
    assert_eq!(fine["outcome"], "valid");

    // The component reference and the schema.
    let spec = call(client, "get_components_spec", json!({})).await;
    assert_ne!(spec.is_error, Some(true));
    let spec = spec.structured_content.expect("structured content");
    let reference = spec["reference"].as_str().expect("the reference");
    for tag in Kind::ALL.iter().map(|kind| kind.tag()) {
        assert!(reference.contains(&format!("## {tag}")), "{tag}");
        assert!(spec["schema"]["$defs"][tag].is_object(), "{tag}");
    }
    assert_eq!(
        spec["schema"]["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let (error, _) = refused(client, "get_components_spec", json!({ "tag": "allocate" })).await;
    assert!(error.contains("takes no arguments"), "{error}");
}

/// The routed loop with `passback mcp` on stdio and `passback serve` serving the review links,
/// two processes on one store.
async fn stdio_beside_a_server(backend: &Backend) {
    let store = backend.spec();
    let server = serve(&["--store", &store]);
    let public = format!("http://{}", server.addr);
    let client = stdio_client(&["--store", &store, "--public-url", &public]).await;
    the_routed_loop(&client, &server.addr).await;
    client.cancel().await.expect("the session ends");
}

// ---------------------------------------------------------------------------------------------
// The tests

/// An agent on the desktop: `passback mcp` on stdio, on the SQLite file `passback serve` uses.
/// The long-poll in `passback mcp` wakes when the server, another process, stores an answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_the_routed_loop_on_a_shared_sqlite_file() {
    stdio_beside_a_server(&Backend::sqlite()).await;
}

/// An agent over the network: streamable HTTP at `/mcp` on the server itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_the_routed_loop() {
    let backend = Backend::sqlite();
    let server = backend.serve(&[]);
    let client = http_client(&server).await;
    the_routed_loop(&client, &server.addr).await;
    client.cancel().await.expect("the session ends");
}

/// `--route-limit`: POST /v1/documents and route_document over `/mcp` draw on one bucket per
/// client address; past it, 429 with Retry-After over HTTP and a refusal that says when over MCP.
/// `passback mcp` on stdio is not limited.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routing_is_limited_per_client_over_http_and_mcp() {
    let backend = Backend::sqlite();
    let server = backend.serve(&["--route-limit", "2/min"]);
    let markdown = [("content-type", "text/markdown")];
    let post = || fetch(&server.addr, "POST", "/v1/documents", &markdown, DOC);
    assert_eq!(post().await.status, 201);
    let client = http_client(&server).await;
    let routed = ok(&client, "route_document", json!({ "markdown": DOC })).await;
    assert!(routed["review_url"].is_string());
    // The bucket is empty: one more document in 30 s (2 a minute).
    let (error, value) = refused(&client, "route_document", json!({ "markdown": DOC })).await;
    assert!(error.contains("(--route-limit); try again in"), "{error}");
    let wait = value["retry_after"].as_u64().expect("retry_after");
    assert!((1..=30).contains(&wait), "{value}");
    let limited = post().await;
    assert_eq!(limited.status, 429);
    let after: u64 = limited
        .header("retry-after")
        .expect("a Retry-After")
        .parse()
        .expect("whole seconds");
    assert!((1..=30).contains(&after), "Retry-After {after}");
    assert_eq!(
        limited.header("content-type"),
        Some("application/problem+json")
    );
    let problem = limited.json();
    assert_eq!(problem["status"], 429);
    assert_eq!(problem["retry_after"], after);
    assert!(
        problem["detail"].as_str().is_some_and(|d| d
            .contains("allows, 2 documents a minute (--route-limit)")
            && d.contains(&format!("try again in {after} s"))),
        "{problem}"
    );
    // Reading and answering are not limited, nor is an agent on stdio.
    let validated = ok(&client, "validate_document", json!({ "markdown": DOC })).await;
    assert_eq!(validated["outcome"], "valid");
    let local = stdio_client(&["--store", &backend.spec()]).await;
    for _ in 0..3 {
        ok(&local, "route_document", json!({ "markdown": DOC })).await;
    }
    client.cancel().await.expect("the session ends");
    local.cancel().await.expect("the session ends");
}

/// `passback mcp` on PostgreSQL beside a server on the same database: the wait wakes on the
/// database's notification.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_the_routed_loop_on_postgres() {
    if let Some(backend) = Backend::postgres() {
        stdio_beside_a_server(&backend).await;
    }
}

/// With `--store off`, the store's tools say how to turn it on; the others still work.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_store_the_routing_tools_say_how_to_enable_it() {
    let server = serve(&["--store", "off"]);
    let over_http = http_client(&server).await;
    let over_stdio = stdio_client(&["--store", "off"]).await;
    for client in [&over_http, &over_stdio] {
        let (error, _) = refused(client, "route_document", json!({ "markdown": DOC })).await;
        assert!(error.contains("--store sqlite:PATH"), "{error}");
        let (error, _) = refused(
            client,
            "list_responses",
            json!({ "id": "AAAAAAAAAAAAAAAAAAAAAA", "token": "x" }),
        )
        .await;
        assert!(error.contains("--store off"), "{error}");
        let valid = ok(client, "validate_document", json!({ "markdown": DOC })).await;
        assert_eq!(valid["outcome"], "valid");
        let spec = ok(client, "get_components_spec", json!({})).await;
        assert!(spec["reference"].as_str().unwrap().contains("## allocate"));
    }
    over_http.cancel().await.expect("the session ends");
    over_stdio.cancel().await.expect("the session ends");
}

/// What an MCP client sends with each message.
const MCP: [(&str, &str); 2] = [
    ("content-type", "application/json"),
    ("accept", "application/json, text/event-stream"),
];

/// A request to `/mcp` that must be refused as problem+json: (status, detail, `Allow`).
async fn refusal(
    server: &Served,
    method: &str,
    headers: &[(&str, &str)],
    body: impl AsRef<[u8]>,
) -> (u16, String, Option<String>) {
    let reply: Reply = fetch(&server.addr, method, "/mcp", headers, body).await;
    let allow = reply.header("allow").map(str::to_string);
    (reply.status, reply.problem_detail(), allow)
}

/// A message `/mcp` answers with a JSON-RPC error: (HTTP status, code, message).
async fn rpc_refusal(server: &Served, body: &str) -> (u16, i64, String) {
    let reply: Reply = fetch(&server.addr, "POST", "/mcp", &MCP, body).await;
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let v = reply.json();
    assert_eq!(v["jsonrpc"], "2.0", "{v}");
    let code = v["error"]["code"].as_i64().expect("an error code");
    let message = v["error"]["message"].as_str().expect("a message");
    (reply.status, code, message.to_string())
}

/// `/mcp` refuses what is not an MCP client's request as problem+json, saying what to send.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_refusals_are_problems_that_name_the_fix() {
    let server = serve(&["--store", "off"]);
    let list = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" }).to_string();

    let (status, detail, allow) = refusal(&server, "GET", &[], b"").await;
    assert_eq!((status, allow.as_deref()), (405, Some("POST")), "{detail}");
    let (status, detail, _) = refusal(&server, "POST", &[], &list).await;
    assert_eq!(status, 415, "{detail}");
    assert!(detail.contains("application/json"), "{detail}");
    let html = [
        ("content-type", "application/json"),
        ("accept", "text/html"),
    ];
    let (status, detail, _) = refusal(&server, "POST", &html, &list).await;
    assert_eq!(status, 406, "{detail}");
    assert!(
        detail.contains("Accept: application/json, text/event-stream"),
        "{detail}"
    );
    // What is not a JSON-RPC request is answered as JSON-RPC says, with a sentence.
    let (status, code, message) = rpc_refusal(&server, "{\"jsonrpc\":").await;
    assert_eq!((status, code), (400, -32700), "{message}");
    assert!(message.contains("not valid JSON"), "{message}");
    let (status, code, message) = rpc_refusal(&server, &format!("[{list}]")).await;
    assert_eq!((status, code), (400, -32600), "{message}");
    assert!(message.contains("one JSON-RPC message"), "{message}");
    // A Host the server does not know (DNS rebinding), and a page from another origin.
    let foreign_host = [MCP[0], MCP[1], ("host", "attacker.example")];
    let (status, detail, _) = refusal(&server, "POST", &foreign_host, &list).await;
    assert_eq!(status, 403, "{detail}");
    assert!(detail.contains("--public-url"), "{detail}");
    let foreign_page = [MCP[0], MCP[1], ("origin", "https://attacker.example")];
    let (status, detail, _) = refusal(&server, "POST", &foreign_page, &list).await;
    assert_eq!(status, 403, "{detail}");
    assert!(detail.contains("another origin"), "{detail}");
    // A response or a notification from the client is taken with 202 and no body, as MCP asks.
    for message in [
        json!({ "jsonrpc": "2.0", "id": 7, "result": { "anything": [1, 2] } }),
        json!({ "jsonrpc": "2.0", "id": 8, "error": { "code": -1, "message": "no" } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
    ] {
        let reply = fetch(&server.addr, "POST", "/mcp", &MCP, message.to_string()).await;
        assert_eq!(reply.status, 202, "{message}");
        assert_eq!(reply.text(), "", "{message}");
    }
    // A malformed response is refused as any malformed message is.
    for message in [
        json!({ "jsonrpc": "2.0", "id": 7, "result": "a string" }),
        json!({ "jsonrpc": "2.0", "id": {}, "result": {} }),
        json!({ "jsonrpc": "2.0", "id": 7, "result": {}, "error": { "code": 1, "message": "x" } }),
    ] {
        let (status, code, said) = rpc_refusal(&server, &message.to_string()).await;
        assert_eq!((status, code), (400, -32600), "{message}: {said}");
    }
    // A client that takes JSON, without naming event streams (curl's */*, or none), is answered.
    for accept in [None, Some("*/*"), Some("application/json")] {
        let mut headers = vec![("content-type", "application/json")];
        headers.extend(accept.map(|accept| ("accept", accept)));
        let reply = fetch(&server.addr, "POST", "/mcp", &headers, &list).await;
        assert_eq!(reply.status, 200, "{accept:?}");
        let body = reply.json();
        assert_eq!(
            body["result"]["tools"].as_array().map(Vec::len),
            Some(11),
            "{body}"
        );
    }
    // Over the body limit, as on every route: refused from the Content-Length, before the body
    // is read. The client sends only the head, as a client waiting for the answer would (one
    // that kept writing 2 MiB could meet the closed connection before reading the 413).
    let length = (2 * 1024 * 1024).to_string();
    let head_only = [
        ("host", server.addr.as_str()),
        MCP[0],
        MCP[1],
        ("content-length", &length),
    ];
    let reply = send(&server.addr, request("POST", "/mcp", &head_only, b"")).await;
    assert_eq!(reply.status, 413, "{}", reply.text());
    assert_eq!(
        reply.header("content-type"),
        Some("application/problem+json")
    );
    assert!(reply.text().contains("--max-body"), "{}", reply.text());
}

/// `passback mcp` refuses a bad command line at once, in one line, before reading any input.
#[test]
fn mcp_refuses_a_bad_command_line_in_one_line() {
    for (args, says) in [
        (&["--store", "mysql://db"][..], "--store must be"),
        (&["--public-url", "ftp://x"], "--public-url"),
        (&["--retention", "forever"], "--retention"),
        (&["--listen", "127.0.0.1:0"], "unknown option --listen"),
        (&["extra"], "takes no positional argument"),
    ] {
        let out = common::passback()
            .arg("mcp")
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("run passback mcp");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

/// The JSON-RPC faults, as each transport answers them: (code, id, a word the message names).
fn protocol_faults() -> Vec<(String, i64, Value, &'static str)> {
    let call = |id: u64, params: Value| {
        json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params }).to_string()
    };
    vec![
        (
            "{\"jsonrpc\": \"2.0\", \"id\": 1,".into(),
            -32700,
            Value::Null,
            "not valid JSON",
        ),
        (
            json!([{ "jsonrpc": "2.0", "id": 2, "method": "tools/list" }]).to_string(),
            -32600,
            Value::Null,
            "batch",
        ),
        (
            json!({ "jsonrpc": "2.0", "id": 3 }).to_string(),
            -32600,
            json!(3),
            "\"method\"",
        ),
        (
            json!({ "jsonrpc": "1.0", "id": 4, "method": "tools/list" }).to_string(),
            -32600,
            json!(4),
            "2.0",
        ),
        (
            call(5, json!({ "name": "list_responses", "arguments": "id=x" })),
            -32602,
            json!(5),
            "params.arguments",
        ),
        (
            call(6, json!({ "arguments": {} })),
            -32602,
            json!(6),
            "params.name",
        ),
        (call(7, json!([1])), -32602, json!(7), "\"params\""),
        (
            json!({ "jsonrpc": "2.0", "id": 8, "method": "tools/nothing" }).to_string(),
            -32601,
            json!(8),
            "",
        ),
    ]
}

/// Malformed messages get their JSON-RPC codes over HTTP: -32700 not JSON, -32600 not a
/// request, -32602 a tools/call whose params are malformed (naming the field), and -32601 still
/// for an unknown method.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_protocol_faults_get_their_json_rpc_codes() {
    let server = serve(&["--store", "off"]);
    for (message, code, id, names) in protocol_faults() {
        let reply: Reply = fetch(&server.addr, "POST", "/mcp", &MCP, &message).await;
        let v = reply.json();
        assert_eq!(v["error"]["code"], code, "{message}: {v}");
        assert_eq!(v["id"], id, "{message}: {v}");
        let said = v["error"]["message"].as_str().expect("a message");
        assert!(said.contains(names), "{message}: {said}");
    }
}

/// Over stdio the same faults get the same codes, a message over the size limit gets an error
/// instead of no reply, and the session goes on.
#[test]
fn stdio_protocol_faults_get_replies_and_the_session_goes_on() {
    use std::io::{BufRead, BufReader, Write};
    let mut child = common::passback()
        .args(["mcp", "--store", "off"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start passback mcp");
    let mut input = child.stdin.take().expect("stdin");
    let mut output = BufReader::new(child.stdout.take().expect("stdout"));
    let mut next = move || {
        let mut line = String::new();
        output.read_line(&mut line).expect("a reply line");
        serde_json::from_str::<Value>(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    };
    let init = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } } });
    writeln!(input, "{init}").unwrap();
    assert_eq!(next()["id"], 0);
    writeln!(
        input,
        "{}",
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })
    )
    .unwrap();
    for (message, code, id, names) in protocol_faults() {
        writeln!(input, "{message}").unwrap();
        let v = next();
        assert_eq!(v["error"]["code"], code, "{message}: {v}");
        assert_eq!(v["id"], id, "{message}: {v}");
        let said = v["error"]["message"].as_str().expect("a message");
        assert!(said.contains(names), "{message}: {said}");
    }
    // Over 16 MiB on one line: an error, and the next message is answered.
    let huge = format!(
        "{{\"jsonrpc\": \"2.0\", \"id\": 9, \"method\": \"tools/call\", \"params\": {{\"name\": \"validate_document\", \"arguments\": {{\"markdown\": \"{}\"}}}}}}",
        "a".repeat(17 << 20)
    );
    let writer = std::thread::spawn(move || {
        input.write_all(huge.as_bytes()).unwrap();
        input.write_all(b"\n").unwrap();
        writeln!(
            input,
            "{}",
            json!({ "jsonrpc": "2.0", "id": 10, "method": "tools/list" })
        )
        .unwrap();
        input
    });
    let v = next();
    assert_eq!(v["error"]["code"], -32600, "{v}");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("bytes"),
        "{v}"
    );
    let listed = next();
    assert_eq!(listed["id"], 10, "{listed}");
    assert!(
        listed["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{listed}"
    );
    // Closing standard input ends the session cleanly; the refusal was noted on stderr.
    drop(writer.join().expect("the writer"));
    let out = child.wait_with_output().expect("passback mcp exits");
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("size limit"), "{err}");
}

/// `list_responses` with `wait` over `/mcp` counts against the long-poll budget as the HTTP
/// long-poll does: past it, a tool error with `retry_after`; without a wait it still answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_long_polls_share_the_long_poll_budget() {
    let backend = Backend::sqlite();
    let server = backend.serve(&["--long-polls-per-document", "1"]);
    let client = http_client(&server).await;
    let routed = ok(&client, "route_document", json!({ "markdown": DOC })).await;
    let (id, token) = (
        routed["id"].as_str().unwrap().to_string(),
        routed["token"].as_str().unwrap().to_string(),
    );
    // An HTTP long-poll holds the document's one place…
    let path = format!("/v1/documents/{id}/responses?wait=60");
    let auth = format!("Bearer {token}");
    let addr = server.addr.clone();
    let holder = tokio::spawn(async move {
        loop {
            let r = fetch(&addr, "GET", &path, &[("authorization", &auth)], b"").await;
            if r.status != 429 {
                return r;
            }
        }
    });
    // …so a waiting list_responses is refused, until the place is taken (the two may race).
    let mut refused_once = None;
    for _ in 0..50 {
        let result = call(
            &client,
            "list_responses",
            json!({ "id": id, "token": token, "wait": 0.2 }),
        )
        .await;
        if result.is_error == Some(true) {
            refused_once = result.structured_content;
            break;
        }
    }
    let refusal = refused_once.expect("a waiting list_responses refused past the budget");
    assert!(
        refusal["error"]
            .as_str()
            .is_some_and(|e| e.contains("--long-polls-per-document")),
        "{refusal}"
    );
    assert_eq!(refusal["retry_after"], 2);
    let listed = ok(
        &client,
        "list_responses",
        json!({ "id": id, "token": token }),
    )
    .await;
    assert!(ids(&listed).is_empty());
    // An answer ends the HTTP long-poll.
    let (status, _) = answer(
        &server.addr,
        &id,
        "application/json",
        json!({ "responses": {} }).to_string(),
    )
    .await;
    assert_eq!(status, 201);
    assert_eq!(holder.await.expect("the long-poll").status, 200);
    client.cancel().await.expect("the session ends");
}

/// Recipients and a verdict through the tools (contract §6.2): route_document names them and
/// asks for a verdict, each link answers as its recipient, get_document says who opened and
/// answered, list_responses carries who and which verdict; bad lists are refused naming the
/// field.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recipients_and_a_verdict_through_the_tools() {
    let backend = Backend::sqlite();
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();
    let client = http_client(&server).await;
    let routed = ok(
        &client,
        "route_document",
        json!({
            "blocks": doc_blocks(),
            "recipients": [{ "name": "Dana" }, { "name": "Lee", "email": "lee@example.com" }],
            "verdict": ["Ship it", "Needs work"],
            "sender": "Sam\nfrom Finance",
        }),
    )
    .await;
    let id = routed["id"].as_str().expect("an id").to_string();
    let token = routed["token"].as_str().expect("a token").to_string();
    let dana = routed["recipients"][0]["review_url"]
        .as_str()
        .expect("Dana's link")
        .to_string();
    let secret = dana.split_once("?for=").expect("a recipient link").1;
    assert_eq!(routed["verdict"], json!(["Ship it", "Needs work"]));

    let page = fetch(addr, "GET", &format!("/r/{id}?for={secret}"), &[], "").await;
    assert_eq!(page.status, 200);
    assert!(
        page.text()
            .contains("<bdi>Sam from Finance</bdi> asks for your answers"),
        "{}",
        page.text()
    );
    let body = json!({ "responses": { "b1": { "selected": ["EU"] } }, "verdict": "Ship it" });
    let reply = fetch(
        addr,
        "POST",
        &format!("/r/{id}/responses?for={secret}"),
        &[("content-type", "application/json")],
        body.to_string(),
    )
    .await;
    assert_eq!(reply.status, 201, "{}", reply.text());

    let seen = ok(&client, "get_document", json!({ "id": id, "token": token })).await;
    let states: Vec<(&str, &str)> = seen["recipients"]
        .as_array()
        .expect("the recipients")
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["status"].as_str().unwrap()))
        .collect();
    assert_eq!(states, [("Dana", "answered"), ("Lee", "not_opened")]);
    assert_eq!(seen["sender"], "Sam from Finance");
    let tools = client.list_all_tools().await.expect("the tools");
    let route_tool = tools
        .iter()
        .find(|t| t.name == "route_document")
        .expect("route_document");
    assert_eq!(
        route_tool.input_schema["properties"]["sender"]["maxLength"],
        200
    );
    let listed = ok(
        &client,
        "list_responses",
        json!({ "id": id, "token": token }),
    )
    .await;
    assert_eq!(listed["responses"][0]["recipient"], "Dana");
    assert_eq!(listed["responses"][0]["verdict"], "Ship it");
    assert!(
        listed["responses"][0]["export"]
            .as_str()
            .unwrap()
            .ends_with("\nVerdict: Ship it\n")
    );

    let too_many: Vec<Value> = (0..101).map(|_| json!({ "name": "x" })).collect();
    let (said, _) = refused(
        &client,
        "route_document",
        json!({ "markdown": DOC, "recipients": too_many }),
    )
    .await;
    assert!(said.contains("\"recipients\""), "{said}");
    let (said, _) = refused(
        &client,
        "route_document",
        json!({ "markdown": DOC, "verdict": ["only one"] }),
    )
    .await;
    assert!(said.contains("\"verdict\""), "{said}");
    let (said, _) = refused(
        &client,
        "route_document",
        json!({ "markdown": DOC, "sender": "x".repeat(201) }),
    )
    .await;
    assert!(said.contains("\"sender\""), "{said}");
    client.cancel().await.expect("the session ends");
}
