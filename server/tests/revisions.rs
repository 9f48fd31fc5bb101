//! Revised documents (contract §6.2), attacked over real HTTP against the real `passback serve`
//! binary, on both backends (an SQLite file in a temporary folder, PostgreSQL in a schema made
//! for the test), and sealed at rest: `PUT /v1/documents/{id}` refused to strangers, other keys,
//! oversized and violating bodies and deleted documents; revisions racing on one document all
//! kept, numbered one after another; and a reader's answers to an earlier revision never kept
//! as answers to the latest, nor lost.

mod common;

use common::http::{Reply, call, urlencode};
use common::passback;
use common::store::Backend;
use serde_json::{Value, json};
use std::collections::BTreeSet;

const DOC: &str = "# Launch\n\n```single-choice\n{\"version\":\"1\",\"question\":\"Which region first?\",\"options\":[\"EU\",\"US\"]}\n```\n\n```open-question\n{\"version\":\"1\",\"question\":\"Why?\"}\n```\n";

/// `DOC` with the option the reader will choose ("US") replaced.
fn revised() -> String {
    DOC.replace("[\"EU\",\"US\"]", "[\"EU\",\"APAC\"]")
        .replace("# Launch", "# Launch, revised")
}

fn add_key(backend: &Backend, name: &str) -> String {
    let out = passback()
        .args(["keys", "add", name, "--store", &backend.spec()])
        .output()
        .expect("run passback keys");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn auth(credential: &str) -> String {
    format!("Bearer {credential}")
}

/// A document routed with `key` (none when empty): its id and token.
fn route(addr: &str, key: &str) -> (String, String) {
    let bearer = auth(key);
    let mut headers = vec![("content-type", "application/json")];
    if !key.is_empty() {
        headers.push(("authorization", bearer.as_str()));
    }
    let body = json!({ "markdown": DOC }).to_string();
    let r = call(addr, "POST", "/v1/documents", &headers, body.as_bytes());
    assert_eq!(r.status, 201, "{}", r.text());
    let v = r.json();
    (
        v["id"].as_str().unwrap().to_string(),
        v["token"].as_str().unwrap().to_string(),
    )
}

/// `PUT /v1/documents/{id}` with `credential` (none when empty) and a JSON body.
fn put(addr: &str, id: &str, credential: &str, body: &Value) -> Reply {
    put_raw(
        addr,
        id,
        credential,
        "application/json",
        body.to_string().as_bytes(),
    )
}

fn put_raw(addr: &str, id: &str, credential: &str, content_type: &str, body: &[u8]) -> Reply {
    let bearer = auth(credential);
    let mut headers = vec![("content-type", content_type)];
    if !credential.is_empty() {
        headers.push(("authorization", bearer.as_str()));
    }
    call(addr, "PUT", &format!("/v1/documents/{id}"), &headers, body)
}

fn get(addr: &str, path: &str, credential: &str) -> Reply {
    let bearer = auth(credential);
    call(
        addr,
        "GET",
        path,
        &[("authorization", bearer.as_str())],
        b"",
    )
}

/// A reader's JSON post.
fn answer(addr: &str, id: &str, body: &Value) -> Reply {
    call(
        addr,
        "POST",
        &format!("/r/{id}/responses"),
        &[("content-type", "application/json")],
        body.to_string().as_bytes(),
    )
}

/// A browser's form post (no JavaScript) of `form`.
fn answer_form(addr: &str, id: &str, form: &str) -> Reply {
    call(
        addr,
        "POST",
        &format!("/r/{id}/responses"),
        &[
            ("content-type", "application/x-www-form-urlencoded"),
            ("accept", "text/html"),
        ],
        form.as_bytes(),
    )
}

fn revisions_are_the_owners_alone(backend: &Backend) {
    let key = add_key(backend, "first");
    let other = add_key(backend, "second");
    let server = backend.serve(&["--max-body", "4096"]);
    let addr = server.addr.as_str();
    let (id, token) = route(addr, &key);
    let new = json!({ "markdown": revised() });

    // Strangers: no credential, a wrong token, another key.
    let r = put(addr, &id, "", &new);
    assert_eq!(r.status, 401, "{}", r.text());
    assert!(r.header("www-authenticate").is_some());
    let (_, stranger) = route(addr, "");
    assert_eq!(put(addr, &id, &stranger, &new).status, 403);
    let r = put(addr, &id, &other, &new);
    assert_eq!(r.status, 404, "{}", r.text());
    assert_eq!(
        put(addr, "AAAAAAAAAAAAAAAAAAAAAA", &token, &new).status,
        404
    );
    // Over the body limit; violating; with the document's own settings.
    let big = json!({ "markdown": format!("{DOC}\n{}", "x".repeat(5000)) });
    let r = put(addr, &id, &token, &big);
    assert_eq!(r.status, 413, "{}", r.text());
    let r = put(
        addr,
        &id,
        &token,
        &json!({ "markdown": "```single-choice\n{\"version\":\"1\",\"question\":\"Q?\",\"options\":[\"One\"]}\n```\n" }),
    );
    assert_eq!(r.status, 422, "{}", r.text());
    assert_eq!(r.json()["diagnostics"][0]["code"], "too_few");
    let r = put(
        addr,
        &id,
        &token,
        &json!({ "markdown": DOC, "expires_in": 60 }),
    );
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("expires_in"));
    // The routing's other settings, and a misspelt field, are refused by name too.
    for field in ["recipients", "verdict", "markdwn"] {
        let r = put(addr, &id, &token, &json!({ "markdown": DOC, field: true }));
        assert_eq!(r.status, 422, "{field}: {}", r.text());
        assert!(r.text().contains(field), "{}", r.text());
    }
    // None of that changed it.
    let doc = get(addr, &format!("/v1/documents/{id}"), &token).json();
    assert_eq!(doc["revision"], 1, "{doc}");
    assert_eq!(doc["markdown"], DOC);

    // The owner, by its key, then by its token (raw Markdown, as POST takes it).
    let r = put(addr, &id, &key, &new);
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    assert_eq!(body["id"], id.as_str());
    assert_eq!(body["revision"], 2);
    assert!(body["hash"].is_string());
    let warned: Vec<&Value> = body["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "revision_answers_ambiguous")
        .collect();
    assert_eq!(warned.len(), 1, "{body}");
    assert_eq!(warned[0]["block"], "b1");
    assert_eq!(warned[0]["severity"], "warning");
    let r = put_raw(addr, &id, &token, "text/markdown", revised().as_bytes());
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["revision"], 3);
    assert_eq!(
        r.json()["diagnostics"],
        json!([]),
        "an unchanged text warns of nothing"
    );
    let doc = get(addr, &format!("/v1/documents/{id}"), &token).json();
    assert_eq!(doc["revision"], 3);
    assert_eq!(doc["markdown"], revised());

    // Closed, it can still be revised; deleted, it is gone, every revision with it.
    let closed = call(
        addr,
        "PATCH",
        &format!("/v1/documents/{id}"),
        &[
            ("content-type", "application/json"),
            ("authorization", &auth(&token)),
        ],
        br#"{"status":"closed"}"#,
    );
    assert_eq!(closed.status, 200);
    assert_eq!(
        put(addr, &id, &token, &json!({ "markdown": DOC })).json()["revision"],
        4
    );
    assert_eq!(backend.rows_of("revisions", &id, false).0, 3);
    let deleted = call(
        addr,
        "DELETE",
        &format!("/v1/documents/{id}"),
        &[("authorization", &auth(&token))],
        b"",
    );
    assert_eq!(deleted.status, 204);
    let r = put(addr, &id, &token, &new);
    assert_eq!(r.status, 410, "{}", r.text());
    assert_eq!(backend.rows_of("revisions", &id, true), (0, String::new()));
}

#[test]
fn sqlite_revisions_are_the_owners_alone() {
    revisions_are_the_owners_alone(&Backend::sqlite());
}

#[test]
fn postgres_revisions_are_the_owners_alone() {
    if let Some(backend) = Backend::postgres() {
        revisions_are_the_owners_alone(&backend);
    }
}

/// A document takes 100 revisions, then refuses more with 409 saying what to do instead.
#[test]
fn a_document_takes_a_hundred_revisions() {
    let backend = Backend::sqlite();
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();
    let (id, token) = route(addr, "");
    for n in 2..=100u64 {
        let text = DOC.replace("Why?", &format!("Why, take {n}?"));
        let r = put(addr, &id, &token, &json!({ "markdown": text }));
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["revision"], n);
    }
    let r = put(addr, &id, &token, &json!({ "markdown": DOC }));
    assert_eq!(r.status, 409, "{}", r.text());
    assert!(
        r.problem_detail().contains("POST /v1/documents"),
        "{}",
        r.text()
    );
    assert_eq!(backend.rows_of("revisions", &id, false).0, 99);
}

/// Revisions sent at once to one document: every one kept, numbered 2, 3, … with none twice
/// and none lost, and every replaced text kept once.
fn racing_revisions_are_all_kept(backend: &Backend) {
    let server = backend.serve(&[]);
    let addr = server.addr.clone();
    let (id, token) = route(&addr, "");
    const RACERS: usize = 12;
    let numbers: BTreeSet<u64> = std::thread::scope(|s| {
        let racers: Vec<_> = (0..RACERS)
            .map(|n| {
                let (addr, id, token) = (&addr, &id, &token);
                s.spawn(move || {
                    let text = DOC.replace("Why?", &format!("Why, racer {n}?"));
                    let r = put(addr, id, token, &json!({ "markdown": text }));
                    assert_eq!(r.status, 200, "{}", r.text());
                    r.json()["revision"].as_u64().expect("a revision")
                })
            })
            .collect();
        racers.into_iter().map(|r| r.join().unwrap()).collect()
    });
    let expected: BTreeSet<u64> = (2..=RACERS as u64 + 1).collect();
    assert_eq!(numbers, expected);
    let doc = get(&addr, &format!("/v1/documents/{id}"), &token).json();
    assert_eq!(doc["revision"], RACERS as u64 + 1);
    let (kept, texts) = backend.rows_of("revisions", &id, true);
    assert_eq!(kept, RACERS as i64);
    // Every racer's text is either the latest or one kept revision, exactly once.
    let latest = doc["markdown"].as_str().unwrap();
    for n in 0..RACERS {
        let mark = format!("racer {n}?");
        let times = texts.matches(&mark).count() + latest.matches(&mark).count();
        assert_eq!(times, 1, "{mark}");
    }
}

#[test]
fn sqlite_racing_revisions_are_all_kept() {
    racing_revisions_are_all_kept(&Backend::sqlite());
}

#[test]
fn postgres_racing_revisions_are_all_kept() {
    if let Some(backend) = Backend::postgres() {
        racing_revisions_are_all_kept(&backend);
    }
}

/// A reader who answered revision 1 after revision 2 exists: nothing is kept as an answer to
/// the latest; a browser gets the latest page with what fits filled in and what does not listed
/// in the reader's words; JSON gets 409 naming the latest. Answers to each revision record it,
/// and an earlier answer's export stays byte for byte as it was.
fn answers_to_an_earlier_revision(backend: &Backend, extra: &[&str]) {
    let server = backend.serve(extra);
    let addr = server.addr.as_str();
    let (id, token) = route(addr, "");
    let page = call(addr, "GET", &format!("/r/{id}"), &[], b"").text();
    assert!(
        page.contains("name=\"pb.revision\" value=\"1\""),
        "the form says its revision"
    );
    let first = answer(
        addr,
        &id,
        &json!({
            "responses": { "b1": { "selected": ["US"] }, "b2": { "text": "first reason" } },
            "submission_id": SUBMISSION,
        }),
    );
    assert_eq!(first.status, 201, "{}", first.text());
    let listed = get(addr, &format!("/v1/documents/{id}/responses"), &token).json();
    let export_before = listed["responses"][0]["export"].clone();
    assert_eq!(listed["responses"][0]["revision"], 1);

    assert_eq!(
        put(addr, &id, &token, &json!({ "markdown": revised() })).status,
        200
    );
    let page = call(addr, "GET", &format!("/r/{id}"), &[], b"").text();
    assert!(page.contains("APAC") && page.contains("name=\"pb.revision\" value=\"2\""));
    // Editing the answer sent to revision 1: the form of revision 2, with what fits filled in
    // and what does not listed.
    let edit = call(
        addr,
        "GET",
        &format!("/r/{id}?edit=1&k={SUBMISSION}"),
        &[],
        b"",
    );
    assert_eq!(edit.status, 200);
    let edit = edit.text();
    assert!(edit.contains("first reason"), "the typed reason is carried");
    assert!(edit.contains("This document was revised") && edit.contains("“US”"));

    // The form rendered from revision 1, sent now: "US" has no place any more, the typed
    // reason does.
    let typed = "because the team is there";
    let form = format!(
        "pb.revision=1&b1.q0.pick=1&b2.q0.text={}&pb.op=export",
        urlencode(typed)
    );
    let r = answer_form(addr, &id, &form);
    assert_eq!(r.status, 409, "{}", r.text());
    let page = r.text();
    assert!(page.contains("This document was revised"), "{page}");
    assert!(
        page.contains("“US”"),
        "the choice that has no place is shown"
    );
    assert!(page.contains("APAC"), "the latest revision is the page");
    assert!(page.contains(typed), "the typed text is in the form again");
    assert!(page.contains("name=\"pb.revision\" value=\"2\""));
    // JSON that says it answers revision 1.
    let r = answer(
        addr,
        &id,
        &json!({ "revision": 1, "responses": { "b1": { "selected": ["EU"] } } }),
    );
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(r.json()["revision"], 2);
    assert_eq!(backend.rows(&id).1, 1, "nothing more was kept");

    // Answers to the latest record it; the earlier answer is as it was.
    let r = answer(
        addr,
        &id,
        &json!({ "revision": 2, "responses": { "b1": { "selected": ["APAC"] } } }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let r = answer_form(
        addr,
        &id,
        "pb.revision=2&b1.q0.pick=0&b2.q0.text=x&pb.op=export",
    );
    assert_eq!(r.status, 303, "{}", r.text());
    let listed = get(addr, &format!("/v1/documents/{id}/responses"), &token).json();
    let revisions: Vec<&Value> = listed["responses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["revision"])
        .collect();
    assert_eq!(revisions, [&json!(1), &json!(2), &json!(2)]);
    assert_eq!(listed["responses"][0]["export"], export_before);
    assert_eq!(listed["document"]["revision"], 2);

    // The replaced text is kept (sealed, with a key file) while the document lives.
    let (kept, texts) = backend.rows_of("revisions", &id, true);
    assert_eq!(kept, 1);
    if extra.is_empty() {
        assert!(texts.contains("[\"EU\",\"US\"]"), "{texts}");
    } else {
        assert!(
            texts.starts_with("pbs1.") && !texts.contains("Which region"),
            "{texts}"
        );
        assert!(backend.stored(&id).0.starts_with("pbs1."));
    }
}

#[test]
fn sqlite_answers_to_an_earlier_revision_are_never_lost() {
    answers_to_an_earlier_revision(&Backend::sqlite(), &[]);
}

#[test]
fn postgres_answers_to_an_earlier_revision_are_never_lost() {
    if let Some(backend) = Backend::postgres() {
        answers_to_an_earlier_revision(&backend, &[]);
    }
}

/// The submission id of the first answer, which opens its receipt and its edit link.
const SUBMISSION: &str = "first-answer-submission-0001";

const SEAL: &str = "k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

fn sealed(backend: &Backend) {
    let scratch = backend.scratch();
    let keys = scratch.join("store.keys");
    std::fs::write(&keys, format!("{SEAL}\n")).unwrap();
    let arg = keys.display().to_string();
    answers_to_an_earlier_revision(backend, &["--store-key-file", &arg]);
    let _ = std::fs::remove_dir_all(scratch);
}

#[test]
fn sqlite_revisions_are_sealed_at_rest() {
    sealed(&Backend::sqlite());
}

#[test]
fn postgres_revisions_are_sealed_at_rest() {
    if let Some(backend) = Backend::postgres() {
        sealed(&backend);
    }
}
