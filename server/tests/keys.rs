//! Sender keys and tenancy (contract §6.1), attacked over real HTTP against the real
//! `passback serve` binary and made with the real `passback keys`, on both backends: an SQLite
//! file in a temporary folder, and PostgreSQL in a schema made for the test and dropped after.

mod common;

use common::http::{Reply, call};
use common::passback;
use common::store::Backend;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::process::Output;

const DOC: &str = "# Launch\n\nWhich region first?\n\n```single-choice\n{\"version\":\"1\",\"question\":\"Which region first?\",\"options\":[\"EU\",\"US\"]}\n```\n";

fn bearer(secret: &str) -> String {
    format!("Bearer {secret}")
}

/// `passback keys {args} --store {backend}`.
fn keys(backend: &Backend, args: &[&str]) -> Output {
    passback()
        .arg("keys")
        .args(args)
        .args(["--store", &backend.spec()])
        .output()
        .expect("run passback keys")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A new key named `name`, as `passback keys add` prints it.
fn add_key(backend: &Backend, name: &str) -> String {
    let out = keys(backend, &["add", name]);
    assert!(out.status.success(), "{}", stderr(&out));
    let key = String::from_utf8(out.stdout).expect("UTF-8");
    let key = key.trim().to_string();
    assert!(key.starts_with("pbk_") && key.len() == 47, "{key}");
    key
}

/// `POST /v1/documents` with `credential` as the bearer (none when empty).
fn route_with(addr: &str, credential: &str, body: &Value) -> Reply {
    let auth = bearer(credential);
    let mut headers = vec![("content-type", "application/json")];
    if !credential.is_empty() {
        headers.push(("authorization", auth.as_str()));
    }
    call(
        addr,
        "POST",
        "/v1/documents",
        &headers,
        body.to_string().as_bytes(),
    )
}

/// A document routed with `key` (none when empty): its id and token.
fn route(addr: &str, key: &str) -> (String, String) {
    let r = route_with(addr, key, &json!({ "markdown": DOC }));
    assert_eq!(r.status, 201, "{}", r.text());
    let v = r.json();
    (
        v["id"].as_str().expect("an id").to_string(),
        v["token"].as_str().expect("a token").to_string(),
    )
}

fn get(addr: &str, path: &str, credential: &str) -> Reply {
    let auth = bearer(credential);
    call(addr, "GET", path, &[("authorization", auth.as_str())], b"")
}

/// The server at `served`'s address as a client on this machine dials it: `0.0.0.0` is where
/// it listens, not an address to connect to.
fn dial(addr: &str) -> String {
    addr.replace("0.0.0.0", "127.0.0.1")
}

/// A 401 that says what is wrong with the key, as problem+json with a Bearer challenge.
fn assert_unauthorized(r: &Reply, says: &str) {
    assert_eq!(r.status, 401, "{}", r.text());
    assert!(
        r.header("www-authenticate")
            .unwrap_or("")
            .starts_with("Bearer"),
        "{:?}",
        r.headers
    );
    let detail = r.problem_detail();
    assert!(detail.contains(says), "{detail}");
}

/// One JSON-RPC message to `/mcp`, with `key` as the bearer (none when empty).
fn mcp(addr: &str, key: &str, message: &Value) -> Reply {
    let auth = bearer(key);
    let mut headers = vec![
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
    ];
    if !key.is_empty() {
        headers.push(("authorization", auth.as_str()));
    }
    call(
        addr,
        "POST",
        "/mcp",
        &headers,
        message.to_string().as_bytes(),
    )
}

fn route_over_mcp(addr: &str, key: &str) -> Reply {
    mcp(
        addr,
        key,
        &json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                 "params": { "name": "route_document", "arguments": { "markdown": DOC } } }),
    )
}

/// Every document of `key`'s listing, page by page (`limit` a page), checking each page.
fn all_pages(addr: &str, key: &str, limit: usize) -> Vec<Value> {
    let mut out = Vec::new();
    let mut after: Option<String> = None;
    for _ in 0..100 {
        let path = match &after {
            Some(cursor) => format!("/v1/documents?limit={limit}&after={cursor}"),
            None => format!("/v1/documents?limit={limit}"),
        };
        let r = get(addr, &path, key);
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.header("cache-control"), Some("no-store"));
        let v = r.json();
        let page = v["documents"].as_array().expect("documents").clone();
        assert!(page.len() <= limit);
        out.extend(page.iter().cloned());
        match &v["next"] {
            Value::String(next) => {
                assert_eq!(page.len(), limit, "a page before the last is full");
                after = Some(next.clone());
            }
            Value::Null => return out,
            other => panic!("next is {other}"),
        }
    }
    panic!("the listing never ended");
}

// ---------------------------------------------------------------------------------------------
// The scenarios, run on each backend

/// `passback keys add/list/revoke` through the real binary: a key is printed once, kept only
/// as a hash, listed by name, and refused once revoked; each mistake names its fix.
fn the_keys_command(backend: &Backend) {
    let key = add_key(backend, "ci-bot");
    let out = keys(backend, &["add", "ci-bot"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("exists already"), "{}", stderr(&out));
    let other = add_key(backend, "laptop");
    assert_ne!(key, other);

    let out = keys(backend, &["list"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let listed = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(
        listed.contains("ci-bot") && listed.contains("laptop"),
        "{listed}"
    );
    assert_eq!(listed.matches("live").count(), 2, "{listed}");
    assert!(!listed.contains("pbk_"), "list never shows a key: {listed}");

    // The store holds the hash, never the key.
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();
    let (id, _) = route(addr, &key);
    drop(server);
    match backend {
        Backend::Sqlite(_) => {
            let bytes = std::fs::read(backend.file()).expect("the file");
            let wal = std::fs::read(backend.file().with_extension("db-wal")).unwrap_or_default();
            for held in [&bytes, &wal] {
                assert!(
                    !held.windows(key.len()).any(|w| w == key.as_bytes()),
                    "the key is in the store's files"
                );
            }
        }
        Backend::Postgres { .. } => {}
    }
    assert!(!id.is_empty());

    let out = keys(backend, &["revoke", "ci-bot"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = keys(backend, &["revoke", "ci-bot"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("already"), "{}", stderr(&out));
    let out = keys(backend, &["list"]);
    let listed = String::from_utf8(out.stdout).expect("UTF-8");
    let line = listed
        .lines()
        .find(|l| l.starts_with("ci-bot"))
        .expect("ci-bot listed");
    assert!(line.contains("revoked"), "{listed}");

    for (args, says) in [
        (&["revoke", "nobody"][..], "no key named `nobody`"),
        (&["add"][..], "needs the key's NAME"),
        (&["add", "two words"][..], "a key's name is"),
        (&["rotate"][..], "add NAME, list or revoke NAME"),
        (&[][..], "add NAME, list or revoke NAME"),
    ] {
        let out = keys(backend, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }

    // Once revoked, the key opens nothing, routes nothing and lists nothing.
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();
    assert_unauthorized(
        &route_with(addr, &key, &json!({ "markdown": DOC })),
        "revoked",
    );
    assert_unauthorized(&get(addr, "/v1/documents", &key), "revoked");
    assert_unauthorized(&get(addr, &format!("/v1/documents/{id}"), &key), "revoked");
    // The other key still works.
    assert_eq!(
        route_with(addr, &other, &json!({ "markdown": DOC })).status,
        201
    );
}

/// A server on an address that is not loopback routes only for a live key, on
/// `POST /v1/documents` and on `/mcp`; `--open-routing` opens it again.
fn keys_off_loopback(backend: &Backend) {
    let key = add_key(backend, "sender");
    let revoked = add_key(backend, "old");
    assert!(keys(backend, &["revoke", "old"]).status.success());

    let server = backend.serve(&["--listen", "0.0.0.0:0"]);
    assert!(server.addr.starts_with("0.0.0.0:"), "{}", server.line);
    let addr = dial(&server.addr);
    let addr = addr.as_str();

    let keyless = route_with(addr, "", &json!({ "markdown": DOC }));
    assert_unauthorized(&keyless, "passback keys add");
    assert!(keyless.problem_detail().contains("--open-routing"));
    // Nothing was kept for it: the key's listing and the store are as before.
    assert_unauthorized(
        &route_with(addr, &revoked, &json!({ "markdown": DOC })),
        "revoked",
    );
    assert_unauthorized(
        &route_with(
            addr,
            "pbk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            &json!({ "markdown": DOC }),
        ),
        "not one this server knows",
    );
    // A document's token is not a key.
    let (id, token) = route(addr, &key);
    assert_unauthorized(
        &route_with(addr, &token, &json!({ "markdown": DOC })),
        "not one this server knows",
    );
    // Bad requests are still refused as such once the key is good.
    let violating = route_with(
        addr,
        &key,
        &json!({ "markdown": "```single-choice\n{}\n```\n" }),
    );
    assert_eq!(violating.status, 422, "{}", violating.text());
    // The routed document works for its reader as any other.
    assert_eq!(call(addr, "GET", &format!("/r/{id}"), &[], b"").status, 200);

    // /mcp: every request needs a key here.
    let list = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" });
    assert_unauthorized(&mcp(addr, "", &list), "passback keys add");
    assert_unauthorized(&mcp(addr, &revoked, &list), "revoked");
    let listed = mcp(addr, &key, &list);
    assert_eq!(listed.status, 200, "{}", listed.text());
    assert_eq!(
        listed.json()["result"]["tools"].as_array().map(Vec::len),
        Some(11)
    );
    assert_unauthorized(&route_over_mcp(addr, ""), "passback keys add");
    let routed = route_over_mcp(addr, &key);
    assert_eq!(routed.status, 200, "{}", routed.text());
    let result = &routed.json()["result"];
    assert_ne!(result["isError"], json!(true), "{result}");
    let mcp_id = result["structuredContent"]["id"]
        .as_str()
        .expect("an id")
        .to_string();
    // Both documents are the key's.
    let ids: HashSet<String> = all_pages(addr, &key, 50)
        .iter()
        .map(|d| d["id"].as_str().expect("id").to_string())
        .collect();
    assert_eq!(ids, HashSet::from([id.clone(), mcp_id]));
    drop(server);

    let open = backend.serve(&["--listen", "0.0.0.0:0", "--open-routing"]);
    let addr = dial(&open.addr);
    let addr = addr.as_str();
    assert_eq!(
        route_with(addr, "", &json!({ "markdown": DOC })).status,
        201
    );
    assert_eq!(mcp(addr, "", &list).status, 200);
    // A key shown must still be a live one.
    assert_unauthorized(
        &route_with(addr, &revoked, &json!({ "markdown": DOC })),
        "revoked",
    );
    assert_eq!(
        route_with(addr, &key, &json!({ "markdown": DOC })).status,
        201
    );
    drop(open);

    // On loopback, keyless as always; a revoked key is still refused.
    let local = backend.serve(&[]);
    let addr = local.addr.as_str();
    assert_eq!(
        route_with(addr, "", &json!({ "markdown": DOC })).status,
        201
    );
    assert_eq!(mcp(addr, "", &list).status, 200);
    assert_unauthorized(&mcp(addr, &revoked, &list), "revoked");
    drop(local);

    // Behind a reverse proxy on loopback, the operator asks for keys.
    let proxied = backend.serve(&["--require-keys"]);
    let addr = proxied.addr.as_str();
    assert_unauthorized(
        &route_with(addr, "", &json!({ "markdown": DOC })),
        "passback keys add",
    );
    assert_unauthorized(&mcp(addr, "", &list), "passback keys add");
    assert_eq!(
        route_with(addr, &key, &json!({ "markdown": DOC })).status,
        201
    );
    let both = passback()
        .args([
            "serve",
            "--open-routing",
            "--require-keys",
            "--store",
            "off",
        ])
        .output()
        .expect("run passback serve");
    assert_eq!(both.status.code(), Some(2));
    assert!(stderr(&both).contains("give one"), "{}", stderr(&both));
}

/// A key opens the documents it routed, beside their tokens, and nothing else: another key's
/// document answers 404 as an unknown id does, and is untouched.
fn tenancy(backend: &Backend) {
    let a = add_key(backend, "a");
    let b = add_key(backend, "b");
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();
    let (doc, token) = route(addr, &a);
    let (keyless, keyless_token) = route(addr, "");
    let answered = call(
        addr,
        "POST",
        &format!("/r/{doc}/responses"),
        &[("content-type", "application/json")],
        json!({ "responses": { "b1": { "selected": ["EU"] } } }).to_string(),
    );
    assert_eq!(answered.status, 201, "{}", answered.text());

    for path in [
        format!("/v1/documents/{doc}"),
        format!("/v1/documents/{doc}/responses"),
    ] {
        let mine = get(addr, &path, &a);
        assert_eq!(mine.status, 200, "{path}: {}", mine.text());
        assert_eq!(get(addr, &path, &token).status, 200, "{path}");
        let theirs = get(addr, &path, &b);
        assert_eq!(theirs.status, 404, "{path}: {}", theirs.text());
        // As an id never routed is answered.
        let never = get(addr, &path.replace(&doc, "AAAAAAAAAAAAAAAAAAAAAA"), &b);
        assert_eq!(never.status, 404);
        assert_eq!(theirs.problem_detail(), never.problem_detail());
        // A keyless document is no key's.
        let path = path.replace(&doc, &keyless);
        assert_eq!(get(addr, &path, &a).status, 404, "{path}");
        assert_eq!(get(addr, &path, &keyless_token).status, 200, "{path}");
    }
    let responses = get(addr, &format!("/v1/documents/{doc}/responses"), &a).json();
    assert_eq!(responses["responses"].as_array().map(Vec::len), Some(1));

    // B cannot delete it; it is still there, then A deletes it.
    let auth_b = bearer(&b);
    let delete = call(
        addr,
        "DELETE",
        &format!("/v1/documents/{doc}"),
        &[("authorization", auth_b.as_str())],
        b"",
    );
    assert_eq!(delete.status, 404);
    assert_eq!(backend.rows(&doc), (1, 1));
    assert!(all_pages(addr, &b, 50).is_empty());
    let auth_a = bearer(&a);
    let delete = call(
        addr,
        "DELETE",
        &format!("/v1/documents/{doc}"),
        &[("authorization", auth_a.as_str())],
        b"",
    );
    assert_eq!(delete.status, 204, "{}", delete.text());
    assert_eq!(backend.rows(&doc), (0, 0));
    assert_eq!(get(addr, &format!("/v1/documents/{doc}"), &a).status, 410);
    // Deleted documents leave the listing.
    assert!(all_pages(addr, &a, 50).is_empty());
}

/// `GET /v1/documents`: the key's documents only, newest first, every one exactly once across
/// pages, with their counts and status; the query is checked.
fn listing(backend: &Backend) {
    let key = add_key(backend, "lister");
    let other = add_key(backend, "other");
    let server = backend.serve(&["--retention", "1h"]);
    let addr = server.addr.as_str();
    // Routed back to back, several in one millisecond: the id breaks the ties.
    let mut mine: Vec<String> = (0..7).map(|_| route(addr, &key).0).collect();
    route(addr, &other);
    route(addr, "");
    let short = route_with(addr, &key, &json!({ "markdown": DOC, "expires_in": 1 }));
    assert_eq!(short.status, 201);
    let short = short.json()["id"].as_str().expect("id").to_string();
    mine.push(short.clone());
    let answered = call(
        addr,
        "POST",
        &format!("/r/{}/responses", mine[2]),
        &[("content-type", "application/json")],
        json!({ "responses": { "b1": { "selected": ["US"] } } }).to_string(),
    );
    assert_eq!(answered.status, 201);
    // Until `short` has expired.
    std::thread::sleep(std::time::Duration::from_millis(1100));

    for limit in [1, 3, 8, 200] {
        let listed = all_pages(addr, &key, limit);
        let ids: Vec<&str> = listed
            .iter()
            .map(|d| d["id"].as_str().expect("id"))
            .collect();
        let unique: HashSet<&str> = ids.iter().copied().collect();
        assert_eq!(
            unique.len(),
            ids.len(),
            "limit {limit}: a document twice: {ids:?}"
        );
        assert_eq!(
            unique,
            mine.iter().map(String::as_str).collect::<HashSet<_>>(),
            "limit {limit}"
        );
        // Newest first: created_at never rises, and the ids fall within one millisecond.
        for pair in listed.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            let (ta, tb) = (
                a["created_at"].as_str().unwrap(),
                b["created_at"].as_str().unwrap(),
            );
            assert!(
                ta > tb || (ta == tb && a["id"].as_str() > b["id"].as_str()),
                "{a} then {b}"
            );
        }
        assert_eq!(ids[0], short, "the last routed comes first");
    }
    let listed = all_pages(addr, &key, 50);
    let by_id = |id: &str| {
        listed
            .iter()
            .find(|d| d["id"] == id)
            .expect("listed")
            .clone()
    };
    let answered = by_id(&mine[2]);
    assert_eq!(answered["responses"], 1);
    assert_eq!(answered["status"], "open");
    assert_eq!(answered["views"], 0);
    assert!(answered["last_response_at"].is_string(), "{answered}");
    assert!(answered["expires_at"].as_str() > answered["created_at"].as_str());
    let quiet = by_id(&mine[0]);
    assert_eq!(
        (
            quiet["responses"].clone(),
            quiet["last_response_at"].clone()
        ),
        (json!(0), Value::Null)
    );
    assert_eq!(by_id(&short)["status"], "expired");
    // The default page is 50.
    let first = get(addr, "/v1/documents", &key).json();
    assert_eq!(first["documents"].as_array().map(Vec::len), Some(8));
    assert_eq!(first["next"], Value::Null);

    // Only a key lists; a bad query is named.
    assert_unauthorized(
        &call(addr, "GET", "/v1/documents", &[], b""),
        "passback keys add",
    );
    let (_, token) = route(addr, &key);
    assert_unauthorized(
        &get(addr, "/v1/documents", &token),
        "not one this server knows",
    );
    for (query, says) in [
        ("limit=0", "limit must be"),
        ("limit=201", "limit must be"),
        ("limit=x", "limit must be"),
        ("after=bm90LWEtY3Vyc29y", "after must be"),
        ("after=%FF", ""),
    ] {
        let r = get(addr, &format!("/v1/documents?{query}"), &key);
        assert_eq!(r.status, 400, "{query}");
        assert!(r.problem_detail().contains(says), "{query}");
    }
}

/// `--key-documents-per-hour`: past it a key gets 429 with Retry-After; other keys, and
/// keyless routing on loopback, are not held up.
fn quota(backend: &Backend) {
    let key = add_key(backend, "busy");
    let other = add_key(backend, "calm");
    let server = backend.serve(&["--key-documents-per-hour", "2"]);
    let addr = server.addr.as_str();
    route(addr, &key);
    route(addr, &key);
    let over = route_with(addr, &key, &json!({ "markdown": DOC }));
    assert_eq!(over.status, 429, "{}", over.text());
    let wait: u64 = over
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .expect("seconds");
    assert!((1..=3600).contains(&wait), "{wait}");
    assert_eq!(over.json()["retry_after"], wait);
    assert!(over.problem_detail().contains("--key-documents-per-hour"));
    // Over MCP too, as a tool error with retry_after.
    let refused = route_over_mcp(addr, &key).json();
    assert_eq!(refused["result"]["isError"], json!(true), "{refused}");
    assert!(
        refused["result"]["structuredContent"]["retry_after"].is_u64(),
        "{refused}"
    );
    assert_eq!(
        all_pages(addr, &key, 50).len(),
        2,
        "nothing kept past the quota"
    );
    route(addr, &other);
    route(addr, "");
}

// ---------------------------------------------------------------------------------------------
// SQLite

/// One tool call over `/mcp` with `key` (none when empty): the tool's result.
fn tool(addr: &str, key: &str, name: &str, arguments: Value) -> Value {
    let r = mcp(
        addr,
        key,
        &json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                 "params": { "name": name, "arguments": arguments } }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["result"].clone()
}

/// A sender with a key does the whole loop over MCP without a token: route, list, read, close,
/// reopen, pull and delete; another key sees none of it, and no key lists nothing.
fn the_loop_over_mcp(backend: &Backend) {
    let a = add_key(backend, "a");
    let b = add_key(backend, "b");
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();
    let routed = tool(addr, &a, "route_document", json!({ "markdown": DOC }));
    let id = routed["structuredContent"]["id"]
        .as_str()
        .expect("an id")
        .to_string();
    let listed = tool(addr, &a, "list_documents", json!({ "limit": 5 }));
    let documents = &listed["structuredContent"]["documents"];
    assert_eq!(documents[0]["id"], json!(id), "{listed}");
    assert_eq!(documents[0]["status"], "open", "{listed}");

    let closed = tool(addr, &a, "close_document", json!({ "id": id }));
    assert_eq!(closed["structuredContent"]["status"], "closed", "{closed}");
    let got = tool(addr, &a, "get_document", json!({ "id": id }));
    assert_eq!(got["structuredContent"]["status"], "closed", "{got}");
    let reopened = tool(
        addr,
        &a,
        "set_status",
        json!({ "id": id, "status": "open" }),
    );
    assert_eq!(
        reopened["structuredContent"]["status"], "open",
        "{reopened}"
    );
    let answered = call(
        addr,
        "POST",
        &format!("/r/{id}/responses"),
        &[("content-type", "application/json")],
        json!({ "responses": { "b1": { "selected": ["EU"] } } }).to_string(),
    );
    assert_eq!(answered.status, 201, "{}", answered.text());
    let pulled = tool(addr, &a, "list_responses", json!({ "id": id }));
    assert_eq!(
        pulled["structuredContent"]["responses"]
            .as_array()
            .map(Vec::len),
        Some(1),
        "{pulled}"
    );

    // Another key: the document does not exist for it; no key: a token is asked for.
    for (name, args) in [
        ("get_document", json!({ "id": id })),
        ("list_responses", json!({ "id": id })),
        ("set_status", json!({ "id": id, "status": "closed" })),
        ("close_document", json!({ "id": id })),
        ("delete_document", json!({ "id": id })),
    ] {
        let other = tool(addr, &b, name, args.clone());
        assert_eq!(other["isError"], json!(true), "{name}: {other}");
        assert!(other.to_string().contains("no document"), "{name}: {other}");
        let keyless = tool(addr, "", name, args);
        assert_eq!(keyless["isError"], json!(true), "{name}: {keyless}");
        assert!(
            keyless.to_string().contains("needs \\\"token\\\""),
            "{name}: {keyless}"
        );
    }
    let nothing = tool(addr, &b, "list_documents", json!({}));
    assert_eq!(
        nothing["structuredContent"]["documents"],
        json!([]),
        "{nothing}"
    );
    let keyless = tool(addr, "", "list_documents", json!({}));
    assert_eq!(keyless["isError"], json!(true), "{keyless}");
    assert!(
        keyless.to_string().contains("passback keys add"),
        "{keyless}"
    );
    let bad = tool(addr, &a, "list_documents", json!({ "after": "nope" }));
    assert_eq!(bad["isError"], json!(true), "{bad}");

    let deleted = tool(addr, &a, "delete_document", json!({ "id": id }));
    assert_eq!(
        deleted["structuredContent"]["deleted"],
        json!(true),
        "{deleted}"
    );
    assert_eq!(call(addr, "GET", &format!("/r/{id}"), &[], b"").status, 410);
}

#[test]
fn sqlite_a_sender_with_a_key_needs_no_token_over_mcp() {
    the_loop_over_mcp(&Backend::sqlite());
}

#[test]
fn postgres_a_sender_with_a_key_needs_no_token_over_mcp() {
    if let Some(backend) = Backend::postgres() {
        the_loop_over_mcp(&backend);
    }
}

/// A key whose documents and answers take `--key-max-bytes` routes no more until some are
/// deleted; the answers its documents take count, and other keys are not held back.
fn storage_quota(backend: &Backend) {
    let key = add_key(backend, "big");
    let other = add_key(backend, "small");
    // The document is 123 bytes as stored; two fit in 280, and an answer (some 70 bytes of
    // answers and export) tips the balance.
    let server = backend.serve(&["--key-max-bytes", "280"]);
    let addr = server.addr.as_str();
    let (first, token) = route(addr, &key);
    route(addr, &key);
    let answered = call(
        addr,
        "POST",
        &format!("/r/{first}/responses"),
        &[("content-type", "application/json")],
        json!({ "responses": { "b1": { "selected": ["EU"] } } }).to_string(),
    );
    assert_eq!(answered.status, 201, "{}", answered.text());
    let full = route_with(addr, &key, &json!({ "markdown": DOC }));
    assert_eq!(full.status, 429, "{}", full.text());
    assert!(full.header("retry-after").is_some());
    assert!(
        full.problem_detail().contains("--key-max-bytes"),
        "{}",
        full.text()
    );
    let refused = route_over_mcp(addr, &key).json();
    assert_eq!(refused["result"]["isError"], json!(true), "{refused}");
    route(addr, &other);
    // Deleting a document gives its room back.
    let deleted = call(
        addr,
        "DELETE",
        &format!("/v1/documents/{first}"),
        &[("authorization", &bearer(&token))],
        b"",
    );
    assert_eq!(deleted.status, 204, "{}", deleted.text());
    route(addr, &key);
}

#[test]
fn sqlite_a_key_keeps_at_most_its_bytes() {
    storage_quota(&Backend::sqlite());
}

#[test]
fn postgres_a_key_keeps_at_most_its_bytes() {
    if let Some(backend) = Backend::postgres() {
        storage_quota(&backend);
    }
}

#[test]
fn sqlite_keys_are_made_listed_and_revoked_by_the_command() {
    the_keys_command(&Backend::sqlite());
}

#[test]
fn sqlite_a_listener_off_loopback_routes_only_for_keys() {
    keys_off_loopback(&Backend::sqlite());
}

#[test]
fn sqlite_a_key_opens_its_own_documents_only() {
    tenancy(&Backend::sqlite());
}

#[test]
fn sqlite_a_keys_documents_are_listed_newest_first_page_by_page() {
    listing(&Backend::sqlite());
}

#[test]
fn sqlite_a_key_routes_at_most_its_quota_an_hour() {
    quota(&Backend::sqlite());
}

#[test]
fn keys_need_a_store_and_flags_are_checked() {
    let out = passback()
        .args(["keys", "list", "--store", "off"])
        .output()
        .expect("run passback keys");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--store"), "{}", stderr(&out));
    for bad in ["0", "-1", "many"] {
        let out = passback()
            .args(["serve", "--store", "off", "--key-documents-per-hour", bad])
            .output()
            .expect("run passback serve");
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(
            stderr(&out).contains("--key-documents-per-hour must be"),
            "{bad}: {}",
            stderr(&out)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

#[test]
fn postgres_keys_are_made_listed_and_revoked_by_the_command() {
    if let Some(backend) = Backend::postgres() {
        the_keys_command(&backend);
    }
}

#[test]
fn postgres_a_listener_off_loopback_routes_only_for_keys() {
    if let Some(backend) = Backend::postgres() {
        keys_off_loopback(&backend);
    }
}

#[test]
fn postgres_a_key_opens_its_own_documents_only() {
    if let Some(backend) = Backend::postgres() {
        tenancy(&backend);
    }
}

#[test]
fn postgres_a_keys_documents_are_listed_newest_first_page_by_page() {
    if let Some(backend) = Backend::postgres() {
        listing(&backend);
    }
}

#[test]
fn postgres_a_key_routes_at_most_its_quota_an_hour() {
    if let Some(backend) = Backend::postgres() {
        quota(&backend);
    }
}

/// A store made before keys existed (schema version 1, a document in it) takes the keys
/// migration at its next use: the old document still opens with its token, and is no key's.
#[test]
fn sqlite_a_store_from_before_keys_is_migrated() {
    let backend = Backend::sqlite();
    let token = "old-token-old-token-old-token-old-token-old";
    let id = "BBBBBBBBBBBBBBBBBBBBBB";
    {
        let c = rusqlite::Connection::open(backend.file()).expect("create the file");
        c.execute_batch(include_str!(
            "../migrations/sqlite/0001_routed_documents.sql"
        ))
        .expect("the first schema");
        c.execute_batch(
            "CREATE TABLE passback_migrations (
                version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL);
             INSERT INTO passback_migrations VALUES (1, 'routed_documents', 0);",
        )
        .expect("the migrations table");
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("a clock after 1970")
            .as_millis() as i64;
        c.execute(
            "INSERT INTO documents (id, token_hash, markdown, hash, created_at, expires_at)
             VALUES (?1, ?2, ?3, 'h', ?4, ?5)",
            rusqlite::params![
                id,
                &blake3::hash(token.as_bytes()).as_bytes()[..],
                DOC,
                now,
                now + 3_600_000
            ],
        )
        .expect("an old document");
    }
    let key = add_key(&backend, "after");
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();
    let old = get(addr, &format!("/v1/documents/{id}"), token);
    assert_eq!(old.status, 200, "{}", old.text());
    assert_eq!(old.json()["markdown"], DOC);
    assert_eq!(get(addr, &format!("/v1/documents/{id}"), &key).status, 404);
    assert!(all_pages(addr, &key, 50).is_empty());
    let c = rusqlite::Connection::open(backend.file()).expect("open the file");
    let versions: Vec<i64> = c
        .prepare("SELECT version FROM passback_migrations ORDER BY version")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("the versions");
    // The keys' migration, and every later one, applied.
    assert!(
        versions.contains(&3) && versions.last() >= Some(&3),
        "{versions:?}"
    );
}
