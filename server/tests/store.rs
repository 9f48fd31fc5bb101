//! Routed documents end to end (contract §6), over real HTTP against the real `passback serve`
//! binary, on both backends (`common::store`): an SQLite file in a temporary folder, and
//! PostgreSQL in a schema made for the test and dropped after it.

mod common;

use common::http::{Reply, call};
use common::store::Backend;
use common::{Served, serve};
use serde_json::{Value, json};
use std::time::Duration;

const DOC: &str = "# Launch\n\nWhich region first?\n\n```single-choice\n{\"version\":\"1\",\"question\":\"Which region first?\",\"options\":[\"EU\",\"US\"]}\n```\n\n```prioritize\n{\"version\":\"1\",\"items\":[{\"id\":\"docs\",\"label\":\"Docs\"},{\"id\":\"sdk\",\"label\":\"SDK\"},{\"id\":\"ui\",\"label\":\"UI\"}]}\n```\n";

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

/// A routed document as the sender keeps it.
struct RoutedDoc {
    id: String,
    token: String,
    review_url: String,
}

fn route(addr: &str, body: &Value) -> RoutedDoc {
    let r = call(
        addr,
        "POST",
        "/v1/documents",
        &[("content-type", "application/json")],
        body.to_string().as_bytes(),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let v = r.json();
    let id = v["id"].as_str().expect("an id").to_string();
    assert_eq!(
        r.header("location"),
        Some(format!("/v1/documents/{id}").as_str())
    );
    RoutedDoc {
        token: v["token"].as_str().expect("a token").to_string(),
        review_url: v["review_url"].as_str().expect("a review_url").to_string(),
        id,
    }
}

fn answer_json(addr: &str, id: &str, body: &Value) -> Reply {
    call(
        addr,
        "POST",
        &format!("/r/{id}/responses"),
        &[("content-type", "application/json")],
        body.to_string().as_bytes(),
    )
}

fn list(addr: &str, doc: &RoutedDoc, query: &str) -> Reply {
    call(
        addr,
        "GET",
        &format!("/v1/documents/{}/responses{query}", doc.id),
        &[("authorization", &bearer(&doc.token))],
        b"",
    )
}

fn response_ids(reply: &Reply) -> Vec<u64> {
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.json()["responses"]
        .as_array()
        .expect("a responses list")
        .iter()
        .map(|r| r["response_id"].as_u64().expect("a response_id"))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The scenarios, run on each backend

/// Route, open the review page, answer with the form post and with JSON, pull with a list and
/// with a long-poll.
fn the_whole_loop(backend: &Backend) {
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();
    let doc = route(addr, &json!({ "markdown": DOC, "expires_in": 3600 }));
    assert_eq!(doc.review_url, format!("http://{addr}/r/{}", doc.id));

    // The reader's page: the routed surface, posting back by id, without the source.
    let page = call(addr, "GET", &format!("/r/{}", doc.id), &[], b"");
    assert_eq!(page.status, 200);
    let html = page.text();
    assert!(
        html.contains(&format!("action=\"/r/{}/responses\"", doc.id)),
        "{html}"
    );
    assert!(html.contains("data-pb-surface=\"routed\"") && !html.contains("pb.source"));
    assert_eq!(page.header("cache-control"), Some("no-store"));

    // A list edit without JavaScript gives the page back, with the edit, and keeps nothing.
    let edit = call(
        addr,
        "POST",
        &format!("/r/{}/responses", doc.id),
        &[
            ("content-type", "application/x-www-form-urlencoded"),
            ("accept", "text/html"),
        ],
        b"b1.q0.pick=1&b2.item=i%3Adocs&b2.item=i%3Asdk&b2.item=i%3Aui&b2.op=down%3A0",
    );
    assert_eq!(edit.status, 200, "{}", edit.text());
    assert!(!edit.text().contains("pb.source"));

    // Answered with the form's own post, as a browser without JavaScript sends it.
    let sent = call(
        addr,
        "POST",
        &format!("/r/{}/responses", doc.id),
        &[
            ("content-type", "application/x-www-form-urlencoded"),
            ("accept", "text/html"),
        ],
        b"b1.q0.pick=1&b2.item=i%3Asdk&b2.item=i%3Adocs&b2.item=i%3Aui&pb.op=export",
    );
    // Post/Redirect/Get: the browser is sent to its receipt, a page of its own.
    assert_eq!(sent.status, 303, "{}", sent.text());
    let receipt = sent.header("location").expect("a receipt").to_string();
    assert!(
        receipt.starts_with(&format!("/r/{}/sent?n=1&k=", doc.id)),
        "{receipt}"
    );
    let sent_page = call(addr, "GET", &receipt, &[("accept", "text/html")], b"");
    assert_eq!(sent_page.status, 200);
    let sent_page = sent_page.text();
    assert!(sent_page.contains("Your answers were sent"));
    assert!(sent_page.contains("Answer: US"), "{sent_page}");
    // …drawn as prose, not a box of Markdown, with a way to edit what was sent.
    assert!(!sent_page.contains("<textarea"));
    assert!(
        sent_page.contains("<strong>Q: Which region first?</strong>"),
        "{sent_page}"
    );
    let edit = format!("/r/{}?edit=1&amp;k=", doc.id);
    let at = sent_page.find(&edit).expect("an edit link");
    let end = at + sent_page[at..].find('"').unwrap();
    let edit = sent_page[at..end].replace("&amp;", "&");
    let again = call(addr, "GET", &edit, &[("accept", "text/html")], b"").text();
    assert!(
        again.contains("name=\"b1.q0.pick\" value=\"1\" checked"),
        "the form comes back filled in: {again}"
    );

    // Answered with JSON.
    let second = answer_json(
        addr,
        &doc.id,
        &json!({ "responses": { "b1": { "selected": ["EU"], "note": "docs first" } }, "reviewer": "Dana" }),
    );
    assert_eq!(second.status, 201, "{}", second.text());
    let second = second.json();
    assert_eq!(second["response_id"], 2);
    assert!(
        second["export"]
            .as_str()
            .unwrap()
            .contains("Answer: EU\nNote: docs first")
    );

    // Pulled: both, oldest first, in the contract's shape.
    let all = list(addr, &doc, "");
    assert_eq!(response_ids(&all), [1, 2]);
    let body = all.json();
    assert_eq!(body["document"]["id"], doc.id.as_str());
    let first = &body["responses"][0];
    assert_eq!(
        first["componentInputs"],
        json!({ "b1": { "selected": ["US"] }, "b2": { "order": ["sdk", "docs", "ui"] } })
    );
    assert_eq!(first["annotations"], json!([]));
    assert_eq!(first["reviewer"], Value::Null);
    assert!(first["export"].as_str().unwrap().contains("Answer: US"));
    assert!(first["received_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(body["responses"][1]["reviewer"], "Dana");
    assert_eq!(response_ids(&list(addr, &doc, "?since=1")), [2]);

    // A long-poll with nothing arriving answers an empty list at its timeout.
    assert!(response_ids(&list(addr, &doc, "?since=2&wait=1")).is_empty());

    // A long-poll answers with a response that arrives while it waits (it would otherwise wait
    // a minute and answer an empty list).
    let waiting = {
        let (addr, doc) = (
            addr.to_string(),
            RoutedDoc {
                id: doc.id.clone(),
                token: doc.token.clone(),
                review_url: String::new(),
            },
        );
        std::thread::spawn(move || response_ids(&list(&addr, &doc, "?since=2&wait=60")))
    };
    std::thread::sleep(Duration::from_millis(300));
    let third = answer_json(
        addr,
        &doc.id,
        &json!({ "responses": { "b1": { "selected": ["US"] } } }),
    );
    assert_eq!(third.status, 201);
    assert_eq!(waiting.join().expect("the long-poll"), [3]);

    // Comments on the text travel beside the block answers, from JSON and from the form.
    let commented = answer_json(
        addr,
        &doc.id,
        &json!({ "responses": { "b1": { "selected": ["EU"] }, "annotations": [{ "text": "decide by Friday" }] } }),
    );
    assert_eq!(commented.status, 201, "{}", commented.text());
    let form = call(
        addr,
        "POST",
        &format!("/r/{}/responses", doc.id),
        &[("content-type", "application/x-www-form-urlencoded")],
        b"b1.q0.pick=0&pb.comment=first+thoughts",
    );
    assert_eq!(form.status, 201, "{}", form.text());
    let newer = list(addr, &doc, "?since=3").json();
    for (k, text) in [(0, "decide by Friday"), (1, "first thoughts")] {
        let r = &newer["responses"][k];
        assert_eq!(r["annotations"], json!([{ "text": text }]), "{r}");
        assert!(r["componentInputs"].get("annotations").is_none(), "{r}");
        let export = r["export"].as_str().unwrap();
        assert!(
            export.contains(&format!(
                "## Comments on the text\n\n- On the whole document — {text}"
            )),
            "{export}"
        );
    }

    // The sender's view of the document.
    let meta = call(
        addr,
        "GET",
        &format!("/v1/documents/{}", doc.id),
        &[("authorization", &bearer(&doc.token))],
        b"",
    );
    assert_eq!(meta.status, 200);
    let meta = meta.json();
    assert_eq!(meta["markdown"], DOC);
    assert_eq!(meta["responses"], 5);
    assert_eq!(backend.rows(&doc.id), (1, 5));
}

/// Deleting a document deletes its answers; its links then answer 410.
fn deletion(backend: &Backend) {
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();
    let doc = route(addr, &json!({ "markdown": DOC }));
    let reply = answer_json(
        addr,
        &doc.id,
        &json!({ "responses": { "b1": { "selected": ["EU"] } } }),
    );
    assert_eq!(reply.status, 201);
    assert_eq!(backend.rows(&doc.id), (1, 1));
    let path = format!("/v1/documents/{}", doc.id);
    let auth = bearer(&doc.token);
    let deleted = call(addr, "DELETE", &path, &[("authorization", &auth)], b"");
    assert_eq!(deleted.status, 204, "{}", deleted.text());
    assert!(deleted.body.is_empty());
    assert_eq!(
        backend.rows(&doc.id),
        (0, 0),
        "the text and the answers are gone"
    );
    assert_eq!(
        call(addr, "GET", &format!("/r/{}", doc.id), &[], b"").status,
        410
    );
    let page = call(
        addr,
        "GET",
        &format!("/r/{}", doc.id),
        &[("accept", "text/html")],
        b"",
    );
    assert_eq!(page.status, 410);
    assert!(page.text().contains("no longer here"));
    assert_eq!(list(addr, &doc, "").status, 410);
    assert_eq!(
        answer_json(addr, &doc.id, &json!({ "responses": {} })).status,
        410
    );
    let again = call(addr, "DELETE", &path, &[("authorization", &auth)], b"");
    assert_eq!(again.status, 410);
    again.problem_detail();
}

/// A document routed with a short `expires_in` takes no answers once its time has run out,
/// but keeps those it took, readable by its sender, until it is purged or deleted.
fn expiry(backend: &Backend) {
    let server = backend.serve(&["--retention", "60"]);
    let addr = server.addr.as_str();
    // Over the retention period: refused, naming the field and the limit.
    let long = call(
        addr,
        "POST",
        "/v1/documents",
        &[("content-type", "application/json")],
        json!({ "markdown": DOC, "expires_in": 61 })
            .to_string()
            .as_bytes(),
    );
    assert_eq!(long.status, 422);
    let detail = long.problem_detail();
    assert!(
        detail.contains("expires_in") && detail.contains("60"),
        "{detail}"
    );
    // A misspelt field is refused by name rather than routing the document for the default time.
    let misspelt = call(
        addr,
        "POST",
        "/v1/documents",
        &[("content-type", "application/json")],
        json!({ "markdown": DOC, "expires": 2 })
            .to_string()
            .as_bytes(),
    );
    assert_eq!(misspelt.status, 422);
    let detail = misspelt.problem_detail();
    assert!(
        detail.contains("\"expires\"") && detail.contains("expires_in"),
        "{detail}"
    );
    let doc = route(addr, &json!({ "markdown": DOC, "expires_in": 2 }));
    let review = format!("/r/{}", doc.id);
    let answer = json!({ "responses": { "b1": { "selected": ["EU"] } } });
    // Answered while open (a slow machine may already be past its time: then 409).
    let first = answer_json(addr, &doc.id, &answer).status;
    assert!(first == 201 || first == 409, "{first}");
    let mut summary = info(addr, &doc);
    for _ in 0..100 {
        if summary["status"] == "expired" {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        summary = info(addr, &doc);
    }
    assert_eq!(summary["status"], "expired", "{summary}");
    // Its answers stay readable; the link shows the document, saying it expired; no answer is
    // taken.
    let kept = list(addr, &doc, "?wait=30");
    assert_eq!(response_ids(&kept).len(), usize::from(first == 201));
    assert_eq!(kept.json()["document"]["status"], "expired");
    let page = call(addr, "GET", &review, &[("accept", "text/html")], b"");
    assert_eq!(page.status, 200);
    assert!(page.text().contains("This document has expired."));
    assert!(
        !page
            .text()
            .contains(&format!("action=\"/r/{}/responses\"", doc.id))
    );
    let late = answer_json(addr, &doc.id, &answer);
    assert_eq!(late.status, 409, "{}", late.text());
    assert!(late.problem_detail().contains("expired"));
    assert_eq!(late.json()["document_status"], "expired");
    // Its status no longer changes.
    for status in ["open", "closed"] {
        let patched = set_status(addr, &doc, status);
        assert_eq!(patched.status, 409, "{}", patched.text());
        assert!(patched.problem_detail().contains("expired at"));
    }
    // DELETE still removes it at once.
    let deleted = call(
        addr,
        "DELETE",
        &format!("/v1/documents/{}", doc.id),
        &[("authorization", &bearer(&doc.token))],
        b"",
    );
    assert_eq!(deleted.status, 204);
    assert_eq!(backend.rows(&doc.id), (0, 0));
    assert_eq!(call(addr, "GET", &review, &[], b"").status, 410);
    assert_eq!(list(addr, &doc, "").status, 410);
}

/// `GET /v1/documents/{id}` with the document's token: 200 and its body.
fn info(addr: &str, doc: &RoutedDoc) -> Value {
    let r = call(
        addr,
        "GET",
        &format!("/v1/documents/{}", doc.id),
        &[("authorization", &bearer(&doc.token))],
        b"",
    );
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

/// `PATCH /v1/documents/{id}` to `status`, with the document's token.
fn set_status(addr: &str, doc: &RoutedDoc, status: &str) -> Reply {
    call(
        addr,
        "PATCH",
        &format!("/v1/documents/{}", doc.id),
        &[
            ("authorization", &bearer(&doc.token)),
            ("content-type", "application/json"),
        ],
        json!({ "status": status }).to_string().as_bytes(),
    )
}

/// Close, reopen, the counts: a closed document's page says so and takes no answer (JSON or
/// form), its answers stay readable; reopened, it takes answers again.
fn lifecycle(backend: &Backend) {
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();
    let doc = route(addr, &json!({ "markdown": DOC, "expires_in": 3600 }));
    let review = format!("/r/{}", doc.id);
    let path = format!("/v1/documents/{}", doc.id);

    let fresh = info(addr, &doc);
    assert_eq!(fresh["status"], "open");
    assert_eq!(fresh["views"], 0);
    assert_eq!(fresh["responses"], 0);
    assert_eq!(fresh["last_response_at"], Value::Null);
    assert_eq!(fresh["purge_at"], Value::Null);
    assert!(fresh["markdown"].as_str().unwrap().starts_with("# Launch"));

    // Two page loads are two views; a HEAD is none, and the sender's reads are none.
    assert_eq!(call(addr, "GET", &review, &[], b"").status, 200);
    assert_eq!(
        call(addr, "GET", &review, &[("accept", "text/html")], b"").status,
        200
    );
    assert_eq!(call(addr, "HEAD", &review, &[], b"").status, 200);
    let answered = answer_json(
        addr,
        &doc.id,
        &json!({ "responses": { "b1": { "selected": ["EU"] } }, "reviewer": "Dana" }),
    );
    assert_eq!(answered.status, 201, "{}", answered.text());
    let counted = info(addr, &doc);
    assert_eq!(counted["views"], 2, "{counted}");
    assert_eq!(counted["responses"], 1);
    let received = list(addr, &doc, "").json()["responses"][0]["received_at"].clone();
    assert!(received.is_string());
    assert_eq!(counted["last_response_at"], received);

    // Who may change the status: the token's holder only.
    let body = br#"{"status":"closed"}"#;
    let json_type = ("content-type", "application/json");
    let none = call(addr, "PATCH", &path, &[json_type], body);
    assert_eq!(none.status, 401);
    // Without a token, whatever the body: 401 first.
    assert_eq!(call(addr, "PATCH", &path, &[], b"closed").status, 401);
    assert!(none.header("www-authenticate").is_some());
    let wrong = call(
        addr,
        "PATCH",
        &path,
        &[json_type, ("authorization", "Bearer not-the-token")],
        body,
    );
    assert_eq!(wrong.status, 403);
    let unknown = call(
        addr,
        "PATCH",
        "/v1/documents/AAAAAAAAAAAAAAAAAAAAAA",
        &[json_type, ("authorization", &bearer(&doc.token))],
        body,
    );
    assert_eq!(unknown.status, 404);
    // Bad bodies: named, with the values the field takes.
    let auth = bearer(&doc.token);
    for (bad, status, says) in [
        (&br#"{"status":"shut"}"#[..], 422, "\"open\" or \"closed\""),
        (br#"{"status":"expired"}"#, 422, "by time"),
        (br#"{}"#, 422, "\"status\" must be"),
        (
            br#"{"status":"closed","expires_at":"x"}"#,
            422,
            "\"expires_at\"",
        ),
        (br#"["closed"]"#, 422, "JSON object"),
        (b"closed", 400, "not valid JSON"),
    ] {
        let r = call(
            addr,
            "PATCH",
            &path,
            &[json_type, ("authorization", &auth)],
            bad,
        );
        assert_eq!(r.status, status, "{}", r.text());
        let detail = r.problem_detail();
        assert!(detail.contains(says), "{detail}");
    }
    let form = call(
        addr,
        "PATCH",
        &path,
        &[
            ("content-type", "application/x-www-form-urlencoded"),
            ("authorization", &auth),
        ],
        b"status=closed",
    );
    assert_eq!(form.status, 415);
    assert_eq!(info(addr, &doc)["status"], "open", "nothing changed");

    // Closed: 200 with the summary, a time to be purged.
    let closed = set_status(addr, &doc, "closed");
    assert_eq!(closed.status, 200, "{}", closed.text());
    assert_eq!(closed.header("cache-control"), Some("no-store"));
    let closed = closed.json();
    assert_eq!(closed["status"], "closed");
    assert_eq!(closed["responses"], 1);
    assert!(closed["purge_at"].is_string(), "{closed}");
    assert!(closed.get("markdown").is_none());
    // Closing again changes nothing, not even the time it will be purged.
    let again = set_status(addr, &doc, "closed");
    assert_eq!(again.status, 200);
    assert_eq!(again.json()["purge_at"], closed["purge_at"]);

    // The page still shows the document, says it is closed at the top, and offers no way to
    // send: no action, no submit button, no reviewer field.
    for accept in ["text/html", "*/*"] {
        let page = call(addr, "GET", &review, &[("accept", accept)], b"");
        assert_eq!(page.status, 200);
        let html = page.text();
        let notice = html.find("This document is closed.").expect("the notice");
        assert!(notice < html.find("Which region first?").unwrap());
        assert!(!html.contains("action=\""), "{html}");
        assert!(!html.contains("type=\"submit\" class=\"pb-submit\""));
        assert!(!html.contains("pb.reviewer"));
        assert_eq!(page.header("cache-control"), Some("no-store"));
    }
    // Answers are refused: 409 problem+json for JSON, a page saying so for a browser's form.
    let refused = answer_json(
        addr,
        &doc.id,
        &json!({ "responses": { "b1": { "selected": ["US"] } } }),
    );
    assert_eq!(refused.status, 409, "{}", refused.text());
    assert_eq!(
        refused.header("content-type"),
        Some("application/problem+json")
    );
    assert!(refused.problem_detail().contains("closed"));
    assert_eq!(refused.json()["document_status"], "closed");
    let form_post = call(
        addr,
        "POST",
        &format!("/r/{}/responses", doc.id),
        &[
            ("content-type", "application/x-www-form-urlencoded"),
            ("accept", "text/html"),
        ],
        b"b1.q0.pick=1&pb.op=export",
    );
    assert_eq!(form_post.status, 409, "{}", form_post.text());
    assert!(
        form_post
            .header("content-type")
            .is_some_and(|c| c.starts_with("text/html"))
    );
    assert!(form_post.text().contains("This document is closed"));
    // The answers it took are still the sender's to read; a long-poll does not wait for more.
    let kept = list(addr, &doc, "?wait=30");
    assert_eq!(response_ids(&kept), [1]);
    assert_eq!(kept.json()["document"]["status"], "closed");
    assert_eq!(kept.json()["responses"][0]["reviewer"], "Dana");
    assert_eq!(backend.rows(&doc.id), (1, 1));

    // Reopened: it takes answers again, numbered on.
    let reopened = set_status(addr, &doc, "open");
    assert_eq!(reopened.status, 200, "{}", reopened.text());
    assert_eq!(reopened.json()["status"], "open");
    assert_eq!(reopened.json()["purge_at"], Value::Null);
    let page = call(addr, "GET", &review, &[], b"").text();
    assert!(!page.contains("This document is closed."));
    assert!(page.contains(&format!("action=\"/r/{}/responses\"", doc.id)));
    let second = answer_json(
        addr,
        &doc.id,
        &json!({ "responses": { "b1": { "selected": ["US"] } } }),
    );
    assert_eq!(second.status, 201, "{}", second.text());
    assert_eq!(second.json()["response_id"], 2);
    let counted = info(addr, &doc);
    assert_eq!(
        (counted["views"].clone(), counted["responses"].clone()),
        (json!(5), json!(2))
    );

    // Deleted: every owner route answers 410, PATCH too.
    let deleted = call(addr, "DELETE", &path, &[("authorization", &auth)], b"");
    assert_eq!(deleted.status, 204);
    let after = set_status(addr, &doc, "closed");
    assert_eq!(after.status, 410, "{}", after.text());
    after.problem_detail();
    assert_eq!(backend.rows(&doc.id), (0, 0));
}

/// A response acknowledged with 201 survives the server being killed right after.
fn a_killed_server_loses_nothing_acknowledged(backend: &Backend) {
    let (doc, acknowledged) = {
        let server = backend.serve(&[]);
        let addr = server.addr.as_str();
        let doc = route(addr, &json!({ "markdown": DOC }));
        let mut acknowledged = Vec::new();
        for pick in ["EU", "US", "EU"] {
            let r = answer_json(
                addr,
                &doc.id,
                &json!({ "responses": { "b1": { "selected": [pick] } } }),
            );
            assert_eq!(r.status, 201);
            acknowledged.push(r.json()["response_id"].as_u64().unwrap());
        }
        // SIGKILL: no shutdown, no flush.
        let mut server = server;
        server.child.kill().expect("SIGKILL");
        server.child.wait().expect("reaped");
        (doc, acknowledged)
    };
    let server = backend.serve(&[]);
    assert_eq!(response_ids(&list(&server.addr, &doc, "")), acknowledged);
}

/// Token errors: none is 401 with a challenge, a wrong one 403; an unknown id 404.
fn tokens(backend: &Backend) {
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();
    let doc = route(addr, &json!({ "markdown": DOC }));
    let other = route(addr, &json!({ "markdown": DOC }));
    for path in [
        format!("/v1/documents/{}/responses", doc.id),
        format!("/v1/documents/{}", doc.id),
    ] {
        let none = call(addr, "GET", &path, &[], b"");
        assert_eq!(none.status, 401);
        assert!(
            none.header("www-authenticate")
                .unwrap_or("")
                .starts_with("Bearer")
        );
        assert!(none.problem_detail().contains("Bearer"));
        let basic = call(
            addr,
            "GET",
            &path,
            &[("authorization", "Basic dXNlcjpwdw==")],
            b"",
        );
        assert_eq!(basic.status, 401);
        let wrong = call(
            addr,
            "GET",
            &path,
            &[("authorization", &bearer(&other.token))],
            b"",
        );
        assert_eq!(wrong.status, 403);
        assert!(wrong.problem_detail().contains("token"));
        let delete = call(
            addr,
            "DELETE",
            &path,
            &[("authorization", &bearer(&other.token))],
            b"",
        );
        assert_eq!(
            delete.status,
            if path.ends_with("responses") {
                405
            } else {
                403
            }
        );
    }
    let unknown = RoutedDoc {
        id: "AAAAAAAAAAAAAAAAAAAAAA".into(),
        token: doc.token.clone(),
        review_url: String::new(),
    };
    assert_eq!(list(addr, &unknown, "").status, 404);
    assert_eq!(
        call(addr, "GET", "/r/AAAAAAAAAAAAAAAAAAAAAA", &[], b"").status,
        404
    );
    assert_eq!(call(addr, "GET", "/r/not-an-id", &[], b"").status, 404);
    // The document is untouched by all that.
    assert_eq!(list(addr, &doc, "").status, 200);
}

/// A question with "Other" and an open question, for the review page's checks.
const DOC_OTHER: &str = "# Plans\n\n```single-choice\n{\"version\":\"1\",\"question\":\"Which plan?\",\"options\":[\"A\",\"B\"],\"open_field\":{\"label\":\"Other:\"}}\n```\n\n```open-question\n{\"version\":\"1\",\"question\":\"When?\"}\n```\n";

/// The submission id a review page's form carries.
fn submission_of(page: &str) -> String {
    let key = "name=\"pb.submission\" value=\"";
    let at = page.find(key).expect("a submission id") + key.len();
    page[at..at + page[at..].find('"').unwrap()].to_string()
}

fn post_form(addr: &str, id: &str, body: &str) -> Reply {
    call(
        addr,
        "POST",
        &format!("/r/{id}/responses"),
        &[
            ("content-type", "application/x-www-form-urlencoded"),
            ("accept", "text/html"),
        ],
        body.as_bytes(),
    )
}

/// Nothing lost: a post with unanswered questions, or an empty "Other", keeps nothing and says
/// which, until "Send anyway". Nothing doubled: a resend of the same form, a double click and
/// a reload of the receipt keep one response.
fn nothing_lost_nothing_doubled(backend: &Backend) {
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();
    let doc = route(addr, &json!({ "markdown": DOC, "expires_in": 3600 }));

    // The page: an intro, Send as the primary action, a submission id, the list's warning.
    let page = call(
        addr,
        "GET",
        &format!("/r/{}", doc.id),
        &[("accept", "text/html")],
        b"",
    )
    .text();
    assert!(
        page.contains("class=\"pb-intro\"") && page.contains("2 questions"),
        "{page}"
    );
    assert!(page.contains("go to the person who sent you this link"));
    assert!(page.contains("class=\"pb-submit pb-send\""));
    assert!(page.contains("kept unchanged"));
    let submission = submission_of(&page);
    assert!(submission.len() >= 22, "{submission}");
    assert_ne!(
        submission,
        submission_of(&call(addr, "GET", &format!("/r/{}", doc.id), &[], b"").text()),
        "every rendering has its own"
    );

    // Sent with nothing answered but the list as it stands: nothing kept, the problem said.
    let lists = "b2.item=i%3Adocs&b2.item=i%3Asdk&b2.item=i%3Aui";
    let empty = format!("{lists}&pb.op=export&pb.submission={submission}");
    let told = post_form(addr, &doc.id, &empty);
    assert_eq!(told.status, 200, "{}", told.text());
    let told = told.text();
    assert!(told.contains("You have not answered 1 question"), "{told}");
    assert!(told.contains("href=\"#pb-") && told.contains("Which region first?"));
    assert!(told.contains("name=\"pb.confirm\"") && told.contains("Send anyway"));
    assert_eq!(
        submission_of(&told),
        submission,
        "the same form, the same id"
    );
    assert_eq!(backend.rows(&doc.id), (1, 0));

    // "Send anyway" keeps it; the same form sent again keeps nothing new.
    let anyway = format!("{empty}&pb.confirm=unanswered");
    let sent = post_form(addr, &doc.id, &anyway);
    assert_eq!(sent.status, 303, "{}", sent.text());
    let receipt = sent.header("location").unwrap().to_string();
    assert_eq!(receipt, format!("/r/{}/sent?n=1&k={submission}", doc.id));
    let resent = post_form(addr, &doc.id, &anyway);
    assert_eq!(resent.status, 303);
    assert_eq!(resent.header("location"), Some(receipt.as_str()));
    assert_eq!(backend.rows(&doc.id), (1, 1));
    // Reloading the receipt sends nothing.
    for _ in 0..2 {
        let shown = call(addr, "GET", &receipt, &[("accept", "text/html")], b"");
        assert_eq!(shown.status, 200);
        assert!(
            shown.text().contains("kept the order unchanged"),
            "{}",
            shown.text()
        );
    }
    assert_eq!(backend.rows(&doc.id), (1, 1));
    // Only the form's own id opens it.
    let other_key = receipt.replace(&submission, &"A".repeat(22));
    assert_eq!(call(addr, "GET", &other_key, &[], b"").status, 404);
    assert_eq!(
        call(addr, "GET", &format!("/r/{}/sent?n=1", doc.id), &[], b"").status,
        404
    );

    // A double click: the same form posted twice at once keeps one response.
    let page = call(addr, "GET", &format!("/r/{}", doc.id), &[], b"").text();
    let body = format!(
        "b1.q0.pick=0&{lists}&pb.op=export&pb.submission={}",
        submission_of(&page)
    );
    let (a, b) = std::thread::scope(|s| {
        let one = s.spawn(|| post_form(addr, &doc.id, &body));
        let two = s.spawn(|| post_form(addr, &doc.id, &body));
        (one.join().unwrap(), two.join().unwrap())
    });
    assert_eq!(
        (a.status, b.status),
        (303, 303),
        "{} {}",
        a.text(),
        b.text()
    );
    assert_eq!(a.header("location"), b.header("location"));
    assert_eq!(backend.rows(&doc.id), (1, 2));

    // JSON may name its submission too.
    let once = json!({ "responses": { "b1": { "selected": ["EU"] } }, "submission_id": "8c0b7a52-3f4e-4b8e-9a51-0d6f2e7c9b11" });
    let first = answer_json(addr, &doc.id, &once);
    let second = answer_json(addr, &doc.id, &once);
    assert_eq!((first.status, second.status), (201, 201));
    assert_eq!(first.json()["response_id"], second.json()["response_id"]);
    let bad = answer_json(
        addr,
        &doc.id,
        &json!({ "responses": {}, "submission_id": "short" }),
    );
    assert_eq!(bad.status, 422);
    assert!(bad.problem_detail().contains("submission_id"));
    assert_eq!(backend.rows(&doc.id), (1, 3));

    // "Other" chosen and left empty: an error on that field, the form as it was entered.
    let other = route(addr, &json!({ "markdown": DOC_OTHER }));
    let page = call(addr, "GET", &format!("/r/{}", other.id), &[], b"").text();
    let body = format!(
        "b1.q0.pick=other&b1.q0.other=+&b2.q0.text=soon&pb.op=export&pb.submission={}",
        submission_of(&page)
    );
    let wrong = post_form(addr, &other.id, &body);
    assert_eq!(wrong.status, 422, "{}", wrong.text());
    let wrong = wrong.text();
    assert!(wrong.contains("There is a problem"), "{wrong}");
    assert!(wrong.contains("aria-invalid=\"true\"") && wrong.contains("class=\"pb-field-error\""));
    assert!(
        wrong.contains("name=\"b1.q0.pick\" value=\"other\" checked"),
        "{wrong}"
    );
    assert!(
        wrong.contains(">soon</textarea>") || wrong.contains("value=\"soon\""),
        "{wrong}"
    );
    assert!(
        !wrong.contains("Send anyway"),
        "an error is fixed, not sent anyway"
    );
    assert_eq!(backend.rows(&other.id), (1, 0));
    let fixed = body.replace("b1.q0.other=+", "b1.q0.other=Gold");
    assert_eq!(post_form(addr, &other.id, &fixed).status, 303);
    assert_eq!(backend.rows(&other.id), (1, 1));
}

// ---------------------------------------------------------------------------------------------
// SQLite

#[test]
fn sqlite_the_whole_loop() {
    the_whole_loop(&Backend::sqlite());
}

#[test]
fn sqlite_nothing_lost_nothing_doubled() {
    nothing_lost_nothing_doubled(&Backend::sqlite());
}

#[test]
fn sqlite_deletion_removes_the_answers_and_the_link_answers_410() {
    deletion(&Backend::sqlite());
}

#[test]
fn sqlite_expired_documents_take_no_answers_and_keep_theirs() {
    expiry(&Backend::sqlite());
}

#[test]
fn sqlite_closed_documents_take_no_answers_and_reopen() {
    lifecycle(&Backend::sqlite());
}

#[test]
fn sqlite_a_killed_server_loses_nothing_acknowledged() {
    a_killed_server_loses_nothing_acknowledged(&Backend::sqlite());
}

#[test]
fn sqlite_tokens_are_required_and_checked() {
    tokens(&Backend::sqlite());
}

/// The file is created with the first routed document, never before.
#[test]
fn sqlite_the_file_is_created_by_the_first_routed_document() {
    let backend = Backend::sqlite();
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();
    for (method, path) in [
        ("GET", "/r/AAAAAAAAAAAAAAAAAAAAAA"),
        ("POST", "/r/AAAAAAAAAAAAAAAAAAAAAA/responses"),
        ("GET", "/v1/documents/AAAAAAAAAAAAAAAAAAAAAA"),
    ] {
        let r = call(
            addr,
            method,
            path,
            &[
                ("authorization", "Bearer x"),
                ("content-type", "application/json"),
            ],
            b"{\"responses\":{}}",
        );
        assert_eq!(r.status, 404, "{method} {path}: {}", r.text());
    }
    // A violating document is refused, and stores nothing.
    let bad = call(
        addr,
        "POST",
        "/v1/documents",
        &[("content-type", "text/markdown")],
        b"```single-choice\n{\"version\":\"1\",\"question\":\"Which?\"}\n```\n",
    );
    assert_eq!(bad.status, 422);
    assert!(bad.problem_detail().contains("diagnostics"));
    assert_eq!(bad.json()["diagnostics"][0]["severity"], "error");
    assert!(
        !backend.file().exists(),
        "no file before a document is routed"
    );
    let r = call(
        addr,
        "POST",
        "/v1/documents",
        &[("content-type", "text/markdown")],
        DOC.as_bytes(),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    assert!(backend.file().exists());
}

/// Two servers on one file: routed on one, answered on the other, and a long-poll on the
/// first wakes for it.
#[test]
fn sqlite_two_servers_share_one_file() {
    let backend = Backend::sqlite();
    let (a, b) = (backend.serve(&[]), backend.serve(&[]));
    two_servers(&a, &b);
}

// ---------------------------------------------------------------------------------------------
// Nothing kept after delete

/// A document with `marker` in its text.
fn marked_doc(marker: &str) -> String {
    DOC.replacen("# Launch", &format!("# Launch {marker}"), 1)
}

/// Routing for `lifetime`, and nothing else asked.
fn lasting(lifetime: Duration) -> passback_server::routing::RouteOptions<'static> {
    passback_server::routing::RouteOptions {
        expires_in: Some(lifetime),
        ..Default::default()
    }
}

/// Whether `marker` is in the SQLite file or its WAL, byte for byte.
fn on_disk(backend: &Backend, marker: &str) -> bool {
    let file = backend.file();
    let wal = file.with_file_name(format!(
        "{}-wal",
        file.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
    ));
    [file, wal].iter().any(|path| {
        std::fs::read(path)
            .is_ok_and(|bytes| bytes.windows(marker.len()).any(|w| w == marker.as_bytes()))
    })
}

/// The review page names its rendering by `data-pb-hash`; the public render cache must not
/// serve a routed document by it, before its DELETE or after.
#[test]
fn the_render_cache_never_serves_a_routed_document() {
    let backend = Backend::sqlite();
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();
    let marker = common::store::unique("private-text");
    let doc = route(addr, &json!({ "markdown": marked_doc(&marker) }));
    let review = format!("/r/{}", doc.id);
    let page = call(addr, "GET", &review, &[("accept", "text/html")], b"");
    assert_eq!(page.status, 200);
    let page = page.text();
    assert!(page.contains(&marker));
    let hash = page
        .split_once("data-pb-hash=\"")
        .map(|(_, rest)| &rest[..32])
        .expect("the page names its hash");
    let cached = format!("/v1/render/{hash}");
    let before = call(addr, "GET", &cached, &[], b"");
    assert_eq!(
        before.status,
        404,
        "served before DELETE: {}",
        before.text()
    );
    assert!(!before.text().contains(&marker));
    let deleted = call(
        addr,
        "DELETE",
        &format!("/v1/documents/{}", doc.id),
        &[("authorization", &bearer(&doc.token))],
        b"",
    );
    assert_eq!(deleted.status, 204);
    let after = call(addr, "GET", &cached, &[], b"");
    assert_eq!(after.status, 404, "served after DELETE: {}", after.text());
    assert!(!after.text().contains(&marker));
    // The public renderer still serves what was POSTed to it.
    let posted = call(
        addr,
        "POST",
        "/v1/render",
        &[("content-type", "text/markdown")],
        DOC.as_bytes(),
    );
    assert_eq!(posted.status, 200);
    let etag = posted.header("etag").expect("an etag").trim_matches('"');
    assert_eq!(
        call(addr, "GET", &format!("/v1/render/{etag}"), &[], b"").status,
        200
    );
}

/// After DELETE, neither the document's text nor its answer's is left in the SQLite file or
/// its WAL.
#[test]
fn sqlite_a_deleted_document_leaves_no_text_on_disk() {
    let backend = Backend::sqlite();
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();
    let (text, answer) = (
        common::store::unique("document-text"),
        common::store::unique("answer-text"),
    );
    let doc = route(addr, &json!({ "markdown": marked_doc(&text) }));
    let reply = answer_json(
        addr,
        &doc.id,
        &json!({ "responses": { "b1": { "selected": ["EU"] }, "annotations": [{ "text": answer }] }, "reviewer": answer }),
    );
    assert_eq!(reply.status, 201, "{}", reply.text());
    assert!(on_disk(&backend, &text) && on_disk(&backend, &answer));
    let deleted = call(
        addr,
        "DELETE",
        &format!("/v1/documents/{}", doc.id),
        &[("authorization", &bearer(&doc.token))],
        b"",
    );
    assert_eq!(deleted.status, 204);
    assert!(!on_disk(&backend, &text), "the document's text is on disk");
    assert!(!on_disk(&backend, &answer), "the answer's text is on disk");
}

/// After expiry and the sweep, neither the document's text nor its answer's is left in the
/// SQLite file or its WAL.
#[test]
fn sqlite_an_expired_document_leaves_no_text_on_disk() {
    use passback_server::routing::Routing;
    use passback_server::store::sqlite::SqliteStore;
    use std::sync::Arc;

    let backend = Backend::sqlite();
    let routing = Routing::new(
        Arc::new(SqliteStore::new(backend.file())),
        Duration::from_secs(60),
        // Purged at the first sweep after it expires.
        Duration::ZERO,
        10,
    );
    let (text, answer) = (
        common::store::unique("document-text"),
        common::store::unique("answer-text"),
    );
    common::store::runtime().block_on(async {
        let lifetime = Duration::from_secs(1);
        let routed = routing
            .route(marked_doc(&text), "hash".into(), lasting(lifetime))
            .await
            .expect("routed");
        routing
            .respond(
                &routed.id,
                Some(answer.clone()),
                json!({ "b1": { "selected": ["EU"] } }),
                json!([{ "text": answer }]),
                format!("**Q: Which region first?**\nAnswer: EU\n\n{answer}\n"),
            )
            .await
            .expect("answered");
        assert!(on_disk(&backend, &text) && on_disk(&backend, &answer));
        tokio::time::sleep(lifetime + Duration::from_millis(100)).await;
        assert_eq!(routing.sweep().await.expect("swept"), 1);
    });
    assert!(!on_disk(&backend, &text), "the document's text is on disk");
    assert!(!on_disk(&backend, &answer), "the answer's text is on disk");
}

/// A closed or an expired document keeps its text and answers until `closed_retention` has
/// passed since it stopped taking answers; the sweep then purges both, leaving a tombstone
/// (410), and on SQLite no byte of either on disk.
fn kept_until_purged(backend: &Backend) {
    use passback_server::routing::{RouteOptions, Routing, RoutingError};
    use passback_server::store::Status;

    let store = backend.open();
    let keep = Routing::new(
        store,
        Duration::from_secs(3600),
        Duration::from_secs(3600),
        10,
    );
    let purge = Routing::new(keep.store.clone(), keep.retention, Duration::ZERO, 10);
    let markers: Vec<String> = [
        "expired-text",
        "expired-answer",
        "closed-text",
        "closed-answer",
    ]
    .iter()
    .map(|m| common::store::unique(m))
    .collect();
    let sqlite = matches!(backend, Backend::Sqlite(_));
    common::store::runtime().block_on(async {
        keep.store.prepare().await.expect("prepared");
        let lifetime = Duration::from_secs(1);
        let expiring = keep
            .route(marked_doc(&markers[0]), "hash".into(), lasting(lifetime))
            .await
            .expect("routed");
        let closing = keep
            .route(
                marked_doc(&markers[2]),
                "hash".into(),
                RouteOptions::default(),
            )
            .await
            .expect("routed");
        for (doc, answer) in [(&expiring, &markers[1]), (&closing, &markers[3])] {
            keep.respond(
                &doc.id,
                Some(answer.clone()),
                json!({ "b1": { "selected": ["EU"] } }),
                json!([]),
                format!("**Q: Which region first?**\nAnswer: EU\n\n{answer}\n"),
            )
            .await
            .expect("answered");
        }
        let closed = keep.set_status(&closing.id, true).await.expect("closed");
        assert_eq!(closed.status, Status::Closed);
        assert!(closed.last_response_at.is_some());
        tokio::time::sleep(lifetime + Duration::from_millis(100)).await;

        // Within the closed retention: kept, readable, taking no answer.
        assert_eq!(keep.sweep().await.expect("swept"), 0);
        for (doc, status) in [(&expiring, Status::Expired), (&closing, Status::Closed)] {
            let kept = keep.live(&doc.id).await.expect("kept");
            assert_eq!(kept.status, status);
            assert_eq!(
                keep.store.responses(&doc.id, 0).await.expect("read").len(),
                1
            );
            let refused = keep
                .respond(&doc.id, None, json!({}), json!([]), String::new())
                .await
                .expect_err("refused");
            assert!(
                matches!(refused, RoutingError::NotOpen { status: s } if s == status),
                "{refused:?}"
            );
        }
        if sqlite {
            assert!(markers.iter().all(|m| on_disk(backend, m)));
        }

        // Past it: purged, and gone.
        assert_eq!(purge.sweep().await.expect("swept"), 2);
        for doc in [&expiring, &closing] {
            assert!(matches!(purge.live(&doc.id).await, Err(RoutingError::Gone)));
            assert!(matches!(
                purge.set_status(&doc.id, false).await,
                Err(RoutingError::Gone)
            ));
            assert_eq!(backend.rows(&doc.id), (0, 0));
        }
    });
    if sqlite {
        for m in &markers {
            assert!(!on_disk(backend, m), "{m} is on disk");
        }
    }
}

#[test]
fn sqlite_closed_and_expired_documents_are_kept_until_their_retention_ends() {
    kept_until_purged(&Backend::sqlite());
}

#[test]
fn postgres_closed_and_expired_documents_are_kept_until_their_retention_ends() {
    if let Some(backend) = Backend::postgres() {
        kept_until_purged(&backend);
    }
}

/// A database made before the lifecycle (schema version 1, with a document and two responses)
/// is migrated when the server opens it: the document is open, its last response's time is
/// filled in from its responses, and it can be closed.
fn migrated_from_version_1(backend: &Backend) {
    let (v1, sqlite) = match backend {
        Backend::Sqlite(_) => (
            include_str!("../migrations/sqlite/0001_routed_documents.sql"),
            true,
        ),
        Backend::Postgres { .. } => (
            include_str!("../migrations/postgres/0001_routed_documents.sql"),
            false,
        ),
    };
    let token = "a-token-from-before-the-lifecycle-0123456789";
    let id = "Bf0re-the-lifecycle_01";
    let hash = blake3::hash(token.as_bytes()).to_hex().to_string();
    let blob = if sqlite {
        format!("X'{hash}'")
    } else {
        format!("'\\x{hash}'::bytea")
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let (created, first, last, expires) =
        (now - 60_000, now - 50_000, now - 40_000, now + 3_600_000);
    let markdown = DOC.replace('\'', "''");
    let migrations = if sqlite {
        "CREATE TABLE passback_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL);"
    } else {
        "CREATE TABLE passback_migrations (version bigint PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL);"
    };
    backend.execute(&format!(
        "{migrations}
         {v1};
         INSERT INTO passback_migrations VALUES (1, 'routed_documents', {created});
         INSERT INTO documents (id, token_hash, markdown, hash, created_at, expires_at, response_count)
           VALUES ('{id}', {blob}, '{markdown}', 'h', {created}, {expires}, 2);
         INSERT INTO responses (document_id, seq, received_at, component_inputs, export)
           VALUES ('{id}', 1, {first}, '{{}}', 'one'), ('{id}', 2, {last}, '{{}}', 'two');"
    ));
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();
    let doc = RoutedDoc {
        id: id.into(),
        token: token.into(),
        review_url: String::new(),
    };
    let before = info(addr, &doc);
    assert_eq!(before["status"], "open", "{before}");
    assert_eq!(before["views"], 0);
    assert_eq!(before["responses"], 2);
    let listed = list(addr, &doc, "").json();
    assert_eq!(
        before["last_response_at"],
        listed["responses"][1]["received_at"]
    );
    let closed = set_status(addr, &doc, "closed");
    assert_eq!(closed.status, 200, "{}", closed.text());
    assert_eq!(
        answer_json(addr, id, &json!({ "responses": {} })).status,
        409
    );
}

#[test]
fn sqlite_a_database_from_before_the_lifecycle_is_migrated() {
    migrated_from_version_1(&Backend::sqlite());
}

#[test]
fn postgres_a_database_from_before_the_lifecycle_is_migrated() {
    if let Some(backend) = Backend::postgres() {
        migrated_from_version_1(&backend);
    }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

#[test]
fn postgres_the_whole_loop() {
    if let Some(backend) = Backend::postgres() {
        the_whole_loop(&backend);
    }
}

#[test]
fn postgres_nothing_lost_nothing_doubled() {
    if let Some(backend) = Backend::postgres() {
        nothing_lost_nothing_doubled(&backend);
    }
}

#[test]
fn postgres_deletion_removes_the_answers_and_the_link_answers_410() {
    if let Some(backend) = Backend::postgres() {
        deletion(&backend);
    }
}

#[test]
fn postgres_expired_documents_take_no_answers_and_keep_theirs() {
    if let Some(backend) = Backend::postgres() {
        expiry(&backend);
    }
}

#[test]
fn postgres_closed_documents_take_no_answers_and_reopen() {
    if let Some(backend) = Backend::postgres() {
        lifecycle(&backend);
    }
}

#[test]
fn postgres_a_killed_server_loses_nothing_acknowledged() {
    if let Some(backend) = Backend::postgres() {
        a_killed_server_loses_nothing_acknowledged(&backend);
    }
}

#[test]
fn postgres_tokens_are_required_and_checked() {
    if let Some(backend) = Backend::postgres() {
        tokens(&backend);
    }
}

/// Two replicas on one database: routed on one, read and answered on the other, and a
/// long-poll on the first wakes for it (LISTEN/NOTIFY).
#[test]
fn postgres_two_replicas_share_one_database() {
    if let Some(backend) = Backend::postgres() {
        let (a, b) = (backend.serve(&[]), backend.serve(&[]));
        two_servers(&a, &b);
    }
}

fn two_servers(a: &Served, b: &Served) {
    let doc = route(&a.addr, &json!({ "markdown": DOC }));
    assert_eq!(
        call(&b.addr, "GET", &format!("/r/{}", doc.id), &[], b"").status,
        200
    );
    let waiting = {
        let addr = a.addr.clone();
        let doc = RoutedDoc {
            id: doc.id.clone(),
            token: doc.token.clone(),
            review_url: String::new(),
        };
        std::thread::spawn(move || list(&addr, &doc, "?wait=60"))
    };
    std::thread::sleep(Duration::from_millis(300));
    let sent = call(
        &b.addr,
        "POST",
        &format!("/r/{}/responses", doc.id),
        &[("content-type", "application/x-www-form-urlencoded")],
        b"b1.q0.pick=0&pb.op=export",
    );
    assert_eq!(sent.status, 201, "{}", sent.text());
    let woken = waiting.join().expect("the long-poll");
    assert_eq!(response_ids(&woken), [1]);
    assert_eq!(
        woken.json()["responses"][0]["componentInputs"]["b1"],
        json!({ "selected": ["EU"] })
    );
    // Numbers stay in order whichever replica takes the response.
    let next = answer_json(
        &a.addr,
        &doc.id,
        &json!({ "responses": { "b1": { "selected": ["US"] } } }),
    );
    assert_eq!(next.json()["response_id"], 2);
    assert_eq!(response_ids(&list(&b.addr, &doc, "")), [1, 2]);
    let deleted = call(
        &b.addr,
        "DELETE",
        &format!("/v1/documents/{}", doc.id),
        &[("authorization", &bearer(&doc.token))],
        b"",
    );
    assert_eq!(deleted.status, 204);
    assert_eq!(list(&a.addr, &doc, "").status, 410);
}

/// Each server keeps a copy of a document its readers answer, so that a submission need not
/// read and parse it again; a change made through another server must still hold at once. `a`
/// answers (and keeps its copy); `b` revises, closes, reopens and deletes.
fn a_kept_copy_gives_way_to_another_servers_change(a: &Served, b: &Served) {
    let doc = route(&a.addr, &json!({ "markdown": DOC }));
    // An answer through a, choosing `choice`.
    let answer = |choice: &str| {
        answer_json(
            &a.addr,
            &doc.id,
            &json!({ "responses": { "b1": { "selected": [choice] } } }),
        )
    };
    let patch = |status: &str| {
        call(
            &b.addr,
            "PATCH",
            &format!("/v1/documents/{}", doc.id),
            &[
                ("content-type", "application/json"),
                ("authorization", &bearer(&doc.token)),
            ],
            json!({ "status": status }).to_string().as_bytes(),
        )
    };
    let first = answer("EU");
    assert_eq!(first.status, 201, "{}", first.text());
    // Revised through b: "US" is now "USA". An answer to the latest revision, through a, is
    // read against revision 2 (the copy a kept would refuse "USA") and kept as an answer to it.
    let revised = call(
        &b.addr,
        "PUT",
        &format!("/v1/documents/{}", doc.id),
        &[
            ("content-type", "application/json"),
            ("authorization", &bearer(&doc.token)),
        ],
        json!({ "markdown": DOC.replace("\"US\"", "\"USA\"") })
            .to_string()
            .as_bytes(),
    );
    assert_eq!(revised.status, 200, "{}", revised.text());
    // "EU" fits both revisions: the store finds a's copy out of date, and it is kept as an
    // answer to revision 2, not 1.
    let either = answer("EU");
    assert_eq!(either.status, 201, "{}", either.text());
    let latest = answer("USA");
    assert_eq!(latest.status, 201, "{}", latest.text());
    let listed = list(&b.addr, &doc, "").json();
    let revisions: Vec<&Value> = (0..3)
        .map(|i| &listed["responses"][i]["revision"])
        .collect();
    assert_eq!(revisions, [&json!(1), &json!(2), &json!(2)]);
    assert_eq!(
        listed["responses"][2]["componentInputs"]["b1"],
        json!({ "selected": ["USA"] })
    );
    // Answers that say they are to revision 1 are stale, whichever copy a holds.
    let stale = answer_json(
        &a.addr,
        &doc.id,
        &json!({ "revision": 1, "responses": { "b1": { "selected": ["US"] } } }),
    );
    assert_eq!(stale.status, 409, "{}", stale.text());
    assert_eq!(stale.json()["revision"], 2);
    assert_eq!(stale.json()["answered_revision"], 1);
    // Closed through b: refused through a; reopened through b: taken through a again.
    assert_eq!(patch("closed").status, 200);
    let closed = answer("EU");
    assert_eq!(closed.status, 409, "{}", closed.text());
    assert_eq!(closed.json()["document_status"], "closed");
    assert_eq!(patch("open").status, 200);
    let reopened = answer("EU");
    assert_eq!(reopened.status, 201, "{}", reopened.text());
    // Deleted through b: gone through a.
    let deleted = call(
        &b.addr,
        "DELETE",
        &format!("/v1/documents/{}", doc.id),
        &[("authorization", &bearer(&doc.token))],
        b"",
    );
    assert_eq!(deleted.status, 204);
    let gone = answer("EU");
    assert_eq!(gone.status, 410, "{}", gone.text());
}

#[test]
fn sqlite_a_kept_copy_gives_way_to_another_servers_change() {
    let backend = Backend::sqlite();
    let (a, b) = (backend.serve(&[]), backend.serve(&[]));
    a_kept_copy_gives_way_to_another_servers_change(&a, &b);
}

#[test]
fn postgres_a_kept_copy_gives_way_to_another_servers_change() {
    if let Some(backend) = Backend::postgres() {
        let (a, b) = (backend.serve(&[]), backend.serve(&[]));
        a_kept_copy_gives_way_to_another_servers_change(&a, &b);
    }
}

// ---------------------------------------------------------------------------------------------
// Refusals, on SQLite

#[test]
fn routes_answer_404_saying_how_to_turn_the_store_on_when_it_is_off() {
    let server = serve(&["--store", "off"]);
    let addr = server.addr.as_str();
    for (method, path) in [
        ("POST", "/v1/documents"),
        ("GET", "/r/AAAAAAAAAAAAAAAAAAAAAA"),
        ("POST", "/r/AAAAAAAAAAAAAAAAAAAAAA/responses"),
        ("GET", "/v1/documents/AAAAAAAAAAAAAAAAAAAAAA"),
        ("DELETE", "/v1/documents/AAAAAAAAAAAAAAAAAAAAAA"),
        ("GET", "/v1/documents/AAAAAAAAAAAAAAAAAAAAAA/responses"),
    ] {
        let r = call(addr, method, path, &[], b"");
        assert_eq!(r.status, 404, "{method} {path}");
        assert!(r.problem_detail().contains("--store"), "{method} {path}");
    }
}

#[test]
fn bad_requests_get_problems_naming_what_to_fix() {
    let backend = Backend::sqlite();
    let server = backend.serve(&["--max-responses", "2", "--max-body", "4096"]);
    let addr = server.addr.as_str();
    let doc = route(
        addr,
        &json!({ "blocks": [
            { "type": "markdown", "text": "Pick one." },
            { "type": "single-choice", "version": "1", "question": "Which?", "options": ["A", "B"] }
        ] }),
    );
    let over = call(
        addr,
        "POST",
        "/v1/documents",
        &[("content-type", "text/markdown")],
        "x".repeat(5000).as_bytes(),
    );
    assert_eq!(over.status, 413);
    over.problem_detail();
    for (expires_in, says) in [(json!(0), "at least 1"), (json!("soon"), "whole number")] {
        let r = call(
            addr,
            "POST",
            "/v1/documents",
            &[("content-type", "application/json")],
            json!({ "markdown": DOC, "expires_in": expires_in })
                .to_string()
                .as_bytes(),
        );
        assert_eq!(r.status, 422);
        assert!(r.problem_detail().contains(says));
    }
    // Answers that do not fit name the block and the field.
    let unfit = answer_json(
        addr,
        &doc.id,
        &json!({ "responses": { "b1": { "selected": ["C"] } } }),
    );
    assert_eq!(unfit.status, 422);
    let detail = unfit.problem_detail();
    assert!(
        detail.contains("b1") && detail.contains("\"C\""),
        "{detail}"
    );
    let unknown = answer_json(addr, &doc.id, &json!({ "responses": { "b9": {} } }));
    assert_eq!(unknown.status, 422);
    let form = call(
        addr,
        "POST",
        &format!("/r/{}/responses", doc.id),
        &[("content-type", "application/x-www-form-urlencoded")],
        b"b1.q0.pick=7&pb.op=export",
    );
    assert_eq!(form.status, 422);
    form.problem_detail();
    assert_eq!(
        answer_json(addr, &doc.id, &json!({ "answers": {} })).status,
        400
    );
    let reviewer = answer_json(
        addr,
        &doc.id,
        &json!({ "responses": {}, "reviewer": "x".repeat(201) }),
    );
    assert_eq!(reviewer.status, 422);
    assert!(reviewer.problem_detail().contains("reviewer"));
    let typed = call(
        addr,
        "POST",
        &format!("/r/{}/responses", doc.id),
        &[("content-type", "text/plain")],
        b"hi",
    );
    assert_eq!(typed.status, 415);
    for query in ["?wait=61", "?wait=soon", "?since=-1"] {
        let r = list(addr, &doc, query);
        assert_eq!(r.status, 400, "{query}");
        r.problem_detail();
    }
    // The limit of responses per document.
    for _ in 0..2 {
        let ok = answer_json(
            addr,
            &doc.id,
            &json!({ "responses": { "b1": { "selected": ["A"] } } }),
        );
        assert_eq!(ok.status, 201);
    }
    let full = answer_json(
        addr,
        &doc.id,
        &json!({ "responses": { "b1": { "selected": ["A"] } } }),
    );
    assert_eq!(full.status, 409);
    assert!(full.problem_detail().contains("limit of 2"));
    assert_eq!(response_ids(&list(addr, &doc, "")), [1, 2]);
}

/// Store flags that cannot work stop `passback serve` at start, with one line naming the flag.
#[test]
fn serve_refuses_a_store_it_cannot_use() {
    for (args, says) in [
        (&["--store", "mysql://db/passback"][..], "--store must be"),
        (&["--store", "sqlite:"], "needs a file path"),
        (&["--retention", "0"], "--retention must be"),
        (&["--retention", "3w"], "--retention must be"),
        (&["--closed-retention", "0"], "--closed-retention must be"),
        (&["--max-responses", "0"], "at least 1"),
        (
            &["--store", "sqlite:/nonexistent-passback-folder/routed.db"],
            "does not exist",
        ),
        // Nothing listens on port 1: the start fails instead of serving a broken store.
        (
            &[
                "--store",
                "postgres://postgres@127.0.0.1:1/test?connect_timeout=5",
            ],
            "--store postgres",
        ),
    ] {
        let out = common::passback()
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args)
            .output()
            .expect("run passback serve");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        let last = stderr.lines().last().unwrap_or("");
        assert!(
            last.starts_with("passback: ") && last.contains(says),
            "{args:?}: {stderr}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Sealed at rest (`--store-key-file`)

const KEY_2026: &str = "k2026:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
const KEY_2027: &str = "k2027:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8=";

/// With a key file, the store holds neither the document's text nor any field of its answers
/// in the clear; the sender and the reader see them as ever. After a rotation the old
/// documents still open and new ones are sealed with the new key; without the key file a
/// sealed document is refused with an error, never shown as ciphertext.
fn sealed_at_rest(backend: &Backend) {
    let scratch = backend.scratch();
    let keys = scratch.join("store.keys");
    std::fs::write(&keys, format!("{KEY_2026}\n")).expect("the key file");
    let keys_arg = keys.display().to_string();
    let (text, answer) = (
        common::store::unique("sealed-document"),
        common::store::unique("sealed-answer"),
    );
    let doc = {
        let server = backend.serve(&["--store-key-file", &keys_arg]);
        let addr = server.addr.as_str();
        let doc = route(addr, &json!({ "markdown": marked_doc(&text) }));
        let page = call(addr, "GET", &format!("/r/{}", doc.id), &[], b"");
        assert_eq!(page.status, 200);
        assert!(page.text().contains(&text));
        let reply = answer_json(
            addr,
            &doc.id,
            &json!({
                "responses": {
                    "b1": { "selected": ["EU"], "note": answer },
                    "annotations": [{ "text": answer }]
                },
                "reviewer": answer
            }),
        );
        assert_eq!(reply.status, 201, "{}", reply.text());
        let pulled = list(addr, &doc, "?since=0");
        assert_eq!(pulled.status, 200);
        let pulled = pulled.json();
        let first = &pulled["responses"][0];
        assert_eq!(first["reviewer"], answer.as_str());
        assert_eq!(first["componentInputs"]["b1"]["note"], answer.as_str());
        assert_eq!(first["annotations"][0]["text"], answer.as_str());
        assert!(first["export"].as_str().unwrap().contains(&answer));
        doc
    };
    let (markdown, responses) = backend.stored(&doc.id);
    assert!(markdown.starts_with("pbs1.k2026."), "{markdown}");
    assert!(!markdown.contains(&text) && !responses.contains(&answer));
    assert!(!responses.contains("Which region"), "{responses}");
    if let Backend::Sqlite(_) = backend {
        assert!(!on_disk(backend, &text), "the document's text is on disk");
        assert!(!on_disk(backend, &answer), "the answer's text is on disk");
    }

    // Rotation: the new key first, the old one kept to open what it sealed.
    std::fs::write(&keys, format!("{KEY_2027}\n{KEY_2026}\n")).expect("the key file");
    {
        let server = backend.serve(&["--store-key-file", &keys_arg]);
        let addr = server.addr.as_str();
        let page = call(addr, "GET", &format!("/r/{}", doc.id), &[], b"");
        assert_eq!(page.status, 200);
        assert!(page.text().contains(&text));
        let newer = route(addr, &json!({ "markdown": DOC }));
        assert!(backend.stored(&newer.id).0.starts_with("pbs1.k2027."));
        // Closed, it still opens: the page with its notice, the answers for the sender.
        assert_eq!(set_status(addr, &doc, "closed").status, 200);
        let page = call(addr, "GET", &format!("/r/{}", doc.id), &[], b"").text();
        assert!(page.contains(&text) && page.contains("This document is closed."));
        let pulled = list(addr, &doc, "").json();
        assert_eq!(pulled["responses"][0]["reviewer"], answer.as_str());
    }

    // Without the key file: an error naming the flag, never the ciphertext as the document.
    {
        let server = backend.serve(&[]);
        let addr = server.addr.as_str();
        let page = call(addr, "GET", &format!("/r/{}", doc.id), &[], b"");
        assert_eq!(page.status, 503, "{}", page.text());
        assert!(!page.text().contains("pbs1."), "{}", page.text());
        let pulled = list(addr, &doc, "?since=0");
        assert_eq!(pulled.status, 503, "{}", pulled.text());
        assert!(!pulled.text().contains("pbs1."));
    }
    let _ = std::fs::remove_dir_all(scratch);
}

#[test]
fn sqlite_documents_and_answers_are_sealed_at_rest() {
    sealed_at_rest(&Backend::sqlite());
}

#[test]
fn postgres_documents_and_answers_are_sealed_at_rest() {
    if let Some(backend) = Backend::postgres() {
        sealed_at_rest(&backend);
    }
}

#[test]
fn serve_refuses_a_key_file_it_cannot_use() {
    let dir = std::env::temp_dir().join(common::store::unique("passback-keys"));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let short = dir.join("short.keys");
    std::fs::write(&short, "k1:AAAA\n").expect("a key file");
    for (file, says) in [
        (dir.join("missing.keys"), "cannot read it"),
        (short, "line 1: the key `k1` is 3 bytes"),
    ] {
        let out = common::passback()
            .args(["serve", "--listen", "127.0.0.1:0", "--store-key-file"])
            .arg(&file)
            .output()
            .expect("passback runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("--store-key-file") && stderr.contains(says),
            "{stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

// ---------------------------------------------------------------------------------------------
// Images (`--images`)

/// The operator's image policy holds on the review page: a listed host's image shows, one from
/// elsewhere is a link, the page says an image is not shown, and the CSP allows the listed host
/// only; a raw `<img>` from elsewhere counts in that note too. Through a proxy, the images load
/// from the proxy, signed with the key from its file.
#[test]
fn sqlite_the_review_page_follows_the_image_policy() {
    let doc = "# Look\n\n![logo](https://img.example/logo.png) ![chart](https://other.example/c.png)\n\n\
               <p align=\"center\"><img src=\"https://other.example/raw.png\" alt=\"raw\"></p>\n";
    let backend = Backend::sqlite();
    let server = backend.serve(&["--images", "hosts:img.example"]);
    let addr = server.addr.as_str();
    let routed = route(addr, &json!({ "markdown": doc }));
    let page = call(addr, "GET", &format!("/r/{}", routed.id), &[], b"");
    assert_eq!(page.status, 200, "{}", page.text());
    let html = page.text();
    assert!(
        html.contains("<img src=\"https://img.example/logo.png\" alt=\"logo\" referrerpolicy=\"no-referrer\" loading=\"lazy\" decoding=\"async\" />")
            && html.contains("<a href=\"https://other.example/c.png\">chart</a>")
            && html.contains("2 images in this document are not shown"),
        "{html}"
    );
    let csp = page.header("content-security-policy").unwrap_or("");
    assert!(
        csp.contains("img-src 'self' data: https://img.example;"),
        "{csp}"
    );
    drop(server);

    let dir = std::env::temp_dir().join(format!("passback-images-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a folder");
    let key = dir.join("camo.key");
    std::fs::write(&key, "secret\n").expect("the key file");
    let key = key.to_string_lossy().to_string();
    let server = backend.serve(&[
        "--images",
        "proxy:https://camo.example",
        "--image-proxy-key-file",
        &key,
    ]);
    let addr = server.addr.as_str();
    let routed = route(addr, &json!({ "markdown": doc }));
    let page = call(addr, "GET", &format!("/r/{}", routed.id), &[], b"");
    let html = page.text();
    // camo's address: the HMAC-SHA256 of the URL under the key, then the URL, both in hex.
    assert!(
        html.contains("src=\"https://camo.example/fcd550c105c36d663e64697123a43ae1cc3f4d62939b2f01ab242e5b4dfdb3dd/68747470733a2f2f696d672e6578616d706c652f6c6f676f2e706e67\"")
            && !html.contains("not shown"),
        "{html}"
    );
    let csp = page.header("content-security-policy").unwrap_or("");
    assert!(
        csp.contains("img-src 'self' data: https://camo.example;"),
        "{csp}"
    );
    drop(server);

    for (args, says) in [
        (
            &["--images", "anything"][..],
            "--images `anything` is not an image policy",
        ),
        (
            &["--images", "proxy:https://camo.example"][..],
            "needs its HMAC key",
        ),
        (
            &[
                "--images",
                "proxy:http://camo.example",
                "--image-proxy-key-file",
                &key,
            ][..],
            "not an https URL",
        ),
        (&["--images", "hosts:a b"][..], "does not list host names"),
    ] {
        let out = common::passback()
            .args(["serve", "--listen", "127.0.0.1:0", "--store", "off"])
            .args(args)
            .output()
            .expect("run passback serve");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
