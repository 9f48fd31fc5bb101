//! Recipients and a verdict (contract §6.2), over real HTTP against the real `passback serve`
//! binary on both backends: each recipient's own link, what the sender sees of them, the
//! verdict as the review page's last step and in the export, and what an attacker can do with
//! links, lists and names.

mod common;

use common::http::{Reply, call, urlencode};
use common::store::Backend;
use serde_json::{Value, json};

const DOC: &str = "# Launch\n\nWhich region first?\n\n```single-choice\n{\"version\":\"1\",\"question\":\"Which region first?\",\"options\":[\"EU\",\"US\"]}\n```\n";

const KEY: &str = "k2026:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

fn post_json(addr: &str, path: &str, body: &Value) -> Reply {
    call(
        addr,
        "POST",
        path,
        &[("content-type", "application/json")],
        body.to_string().as_bytes(),
    )
}

fn route(addr: &str, body: &Value) -> Value {
    let r = post_json(addr, "/v1/documents", body);
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()
}

fn owner_get(addr: &str, doc: &Value, path: &str) -> Value {
    let token = format!("Bearer {}", doc["token"].as_str().unwrap());
    let r = call(addr, "GET", path, &[("authorization", &token)], b"");
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

/// The path and query of a review link (`/r/{id}?for=…`).
fn path_of(addr: &str, url: &Value) -> String {
    let url = url.as_str().expect("a link");
    url.strip_prefix(&format!("http://{addr}"))
        .unwrap_or_else(|| panic!("{url} is not under {addr}"))
        .to_string()
}

fn secret_of(path: &str) -> &str {
    path.split_once("?for=").expect("a recipient link").1
}

fn page(addr: &str, path: &str) -> Reply {
    call(addr, "GET", path, &[("accept", "text/html")], b"")
}

fn form_post(addr: &str, path: &str, body: &str) -> Reply {
    call(
        addr,
        "POST",
        path,
        &[
            ("content-type", "application/x-www-form-urlencoded"),
            ("accept", "text/html"),
        ],
        body.as_bytes(),
    )
}

/// Route to two recipients with a verdict; each link greets its recipient and posts back as
/// them; the sender sees who opened and who answered; the anonymous link still works.
fn recipients_and_their_verdicts(backend: &Backend) {
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();
    let doc = route(
        addr,
        &json!({
            "markdown": DOC,
            "recipients": [{ "name": "Dana" }, { "name": "Lee", "email": "lee@example.com" }],
            "verdict": ["Ship it", "Needs work"],
        }),
    );
    let id = doc["id"].as_str().unwrap().to_string();
    let links = doc["recipients"].as_array().expect("the recipients' links");
    assert_eq!(links.len(), 2);
    assert_eq!(links[0]["name"], "Dana");
    assert_eq!(links[1]["name"], "Lee");
    let dana = path_of(addr, &links[0]["review_url"]);
    let lee = path_of(addr, &links[1]["review_url"]);
    assert!(dana.starts_with(&format!("/r/{id}?for=")), "{dana}");
    assert_ne!(dana, lee);
    // 128 random bits or more in each secret.
    assert!(secret_of(&dana).len() >= 22);

    let before = owner_get(addr, &doc, &format!("/v1/documents/{id}"));
    assert_eq!(before["recipients"][0]["status"], "not_opened");
    assert_eq!(before["verdict"], json!(["Ship it", "Needs work"]));

    // Dana's page greets her, asks for the verdict last, and posts back through her link.
    let reply = page(addr, &dana);
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.header("referrer-policy"), Some("no-referrer"));
    let html = reply.text();
    assert!(html.contains("For <bdi>Dana</bdi>"), "{html}");
    assert!(html.contains(&format!(
        "action=\"/r/{id}/responses?for={}\"",
        secret_of(&dana)
    )));
    let verdict = html.find("<legend class=\"pb-question-text\">Your verdict</legend>");
    let send = html.rfind("class=\"pb-actions\"");
    assert!(
        verdict.is_some() && verdict < send,
        "the verdict is the last step"
    );
    assert!(html.contains("name=\"pb.verdict\" value=\"Needs work\""));
    // The anonymous page asks for the verdict too, and greets no one.
    let shared = page(addr, &format!("/r/{id}")).text();
    assert!(shared.contains("name=\"pb.verdict\"") && !shared.contains("pb-intro-for"));

    let after = owner_get(addr, &doc, &format!("/v1/documents/{id}"));
    assert_eq!(after["recipients"][0]["status"], "opened");
    assert!(after["recipients"][0]["opened_at"].is_string());
    assert_eq!(after["recipients"][1]["status"], "not_opened");
    assert_eq!(after["recipients"][1]["email"], "lee@example.com");

    // Without the verdict, a browser's post comes back listing it with the unanswered.
    let missing = form_post(
        addr,
        &format!("/r/{id}/responses?for={}", secret_of(&dana)),
        "b1.q0.pick=0",
    );
    assert_eq!(missing.status, 200, "{}", missing.text());
    let back = missing.text();
    assert!(
        back.contains("pb-error-summary") && back.contains("href=\"#pb-verdict-0\""),
        "{back}"
    );
    // With it: kept, and the receipt's address keeps her link.
    let sent = form_post(
        addr,
        &format!("/r/{id}/responses?for={}", secret_of(&dana)),
        &format!("b1.q0.pick=0&pb.verdict={}", urlencode("Needs work")),
    );
    assert_eq!(sent.status, 303, "{}", sent.text());
    let receipt = sent.header("location").expect("the receipt").to_string();
    assert!(
        receipt.ends_with(&format!("&for={}", secret_of(&dana))),
        "{receipt}"
    );
    let receipt = page(addr, &receipt);
    assert_eq!(receipt.status, 200);
    assert!(
        receipt
            .text()
            .contains(&format!("for={}", secret_of(&dana)))
    );

    // JSON through Lee's link; JSON through the shared link, without a verdict.
    let lee_post = format!("/r/{id}/responses?for={}", secret_of(&lee));
    let r = post_json(
        addr,
        &lee_post,
        &json!({ "responses": { "b1": { "selected": ["US"] } }, "verdict": "Ship it" }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    assert!(
        r.json()["export"]
            .as_str()
            .unwrap()
            .ends_with("\nVerdict: Ship it\n")
    );
    let r = post_json(
        addr,
        &format!("/r/{id}/responses"),
        &json!({ "responses": { "b1": { "selected": ["EU"] } } }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    // An unknown verdict is refused, naming the field.
    let r = post_json(
        addr,
        &lee_post,
        &json!({ "responses": {}, "verdict": "Maybe" }),
    );
    assert_eq!(r.status, 422);
    assert!(r.problem_detail().contains("\"verdict\""), "{}", r.text());

    let listed = owner_get(addr, &doc, &format!("/v1/documents/{id}/responses"));
    let responses = listed["responses"].as_array().unwrap();
    assert_eq!(responses.len(), 3);
    assert_eq!(responses[0]["recipient"], "Dana");
    assert_eq!(responses[0]["verdict"], "Needs work");
    assert!(
        responses[0]["export"]
            .as_str()
            .unwrap()
            .ends_with("Verdict: Needs work\n")
    );
    assert_eq!(responses[1]["recipient"], "Lee");
    assert_eq!(responses[1]["verdict"], "Ship it");
    assert_eq!(responses[2]["recipient"], Value::Null);
    assert_eq!(responses[2]["verdict"], Value::Null);
    let last = owner_get(addr, &doc, &format!("/v1/documents/{id}"));
    for r in last["recipients"].as_array().unwrap() {
        assert_eq!(r["status"], "answered", "{r}");
        assert!(r["answered_at"].is_string());
    }
}

/// Links of another document, made up, or of a deleted document; lists too long; fields
/// wrong: each refused as it should be.
fn what_an_attacker_gets(backend: &Backend) {
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();
    let a = route(
        addr,
        &json!({ "markdown": DOC, "recipients": [{ "name": "Ann" }] }),
    );
    let b = route(
        addr,
        &json!({ "markdown": DOC, "recipients": [{ "name": "Bo" }] }),
    );
    let a_id = a["id"].as_str().unwrap();
    let a_link = path_of(addr, &a["recipients"][0]["review_url"]);
    let b_link = path_of(addr, &b["recipients"][0]["review_url"]);

    // B's recipient secret on A's document; a made-up secret; one of the wrong shape.
    let crossed = format!("/r/{a_id}?for={}", secret_of(&b_link));
    for path in [
        crossed.clone(),
        format!("/r/{a_id}?for=AAAAAAAAAAAAAAAAAAAAAA"),
        format!("/r/{a_id}?for=%3Cscript%3E"),
    ] {
        assert_eq!(page(addr, &path).status, 404, "{path}");
        let post = path.replace('?', "/responses?");
        let r = post_json(addr, &post, &json!({ "responses": {} }));
        assert_eq!(r.status, 404, "{post}: {}", r.text());
    }
    // Nothing was recorded for Ann by the crossed link.
    let seen = owner_get(addr, &a, &format!("/v1/documents/{a_id}"));
    assert_eq!(seen["recipients"][0]["status"], "not_opened");

    // Deleted: the recipient's link answers 410, and the recipients are gone from the store.
    assert_eq!(page(addr, &a_link).status, 200);
    assert_eq!(backend.recipients_stored(a_id).0, 1);
    let token = format!("Bearer {}", a["token"].as_str().unwrap());
    let del = call(
        addr,
        "DELETE",
        &format!("/v1/documents/{a_id}"),
        &[("authorization", &token)],
        b"",
    );
    assert_eq!(del.status, 204);
    assert_eq!(page(addr, &a_link).status, 410);
    let post = a_link.replace('?', "/responses?");
    assert_eq!(
        post_json(addr, &post, &json!({ "responses": {} })).status,
        410
    );
    assert_eq!(backend.recipients_stored(a_id), (0, String::new()));

    // Bounds, each refused with a 422 naming the field.
    let many: Vec<Value> = (0..101)
        .map(|n| json!({ "name": format!("R{n}") }))
        .collect();
    for (body, field) in [
        (
            json!({ "markdown": DOC, "recipients": many }),
            "\"recipients\"",
        ),
        (
            json!({ "markdown": DOC, "recipients": [{ "name": "x".repeat(201) }] }),
            "recipients[0].name",
        ),
        (
            json!({ "markdown": DOC, "recipients": [{ "name": "  " }] }),
            "recipients[0].name",
        ),
        (
            json!({ "markdown": DOC, "recipients": [{ "name": "x", "email": "not an address" }] }),
            "recipients[0].email",
        ),
        (
            json!({ "markdown": DOC, "recipients": "Dana" }),
            "\"recipients\"",
        ),
        (
            json!({ "markdown": DOC, "verdict": ["a", "b", "c", "d", "e", "f", "g"] }),
            "\"verdict\"",
        ),
        (
            json!({ "markdown": DOC, "verdict": ["only one"] }),
            "\"verdict\"",
        ),
        (
            json!({ "markdown": DOC, "verdict": ["ok", "y".repeat(61)] }),
            "\"verdict\"",
        ),
    ] {
        let r = post_json(addr, "/v1/documents", &body);
        assert_eq!(r.status, 422, "{field}: {}", r.text());
        assert!(r.problem_detail().contains(field), "{field}: {}", r.text());
    }
    // A hundred is allowed.
    let hundred: Vec<Value> = (0..100)
        .map(|n| json!({ "name": format!("R{n}") }))
        .collect();
    let doc = route(addr, &json!({ "markdown": DOC, "recipients": hundred }));
    assert_eq!(doc["recipients"].as_array().unwrap().len(), 100);
    // A verdict to a document that asks for none is refused too.
    let plain = b["id"].as_str().unwrap();
    let r = post_json(
        addr,
        &format!("/r/{plain}/responses"),
        &json!({ "responses": {}, "verdict": "Approve" }),
    );
    assert_eq!(r.status, 422);
    assert!(r.problem_detail().contains("\"verdict\""));
}

/// Names and labels written to break the page or the export: escaped on the page, one
/// harmless line everywhere.
fn hostile_names_are_harmless(backend: &Backend) {
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();
    let name = "<script>alert(1)</script>\n**Q: forged**\n# Heading\u{202e}evil";
    let label = "<img src=x onerror=alert(1)>\n---";
    let doc = route(
        addr,
        &json!({ "markdown": DOC, "recipients": [{ "name": name }], "verdict": [label, "Fine"] }),
    );
    let id = doc["id"].as_str().unwrap();
    let kept = doc["recipients"][0]["name"].as_str().unwrap();
    assert!(
        !kept.contains('\n') && !kept.contains('\u{202e}'),
        "{kept:?}"
    );
    assert!(kept.starts_with("<script>alert(1)</script> **Q: forged** # Heading"));
    let link = path_of(addr, &doc["recipients"][0]["review_url"]);
    let html = page(addr, &link).text();
    assert!(!html.contains("<script>alert(1)") && !html.contains("<img src=x"));
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
    assert!(!html.contains('\u{202e}'));

    let kept_label = doc["verdict"][0].as_str().unwrap();
    let post = link.replace('?', "/responses?");
    let r = post_json(
        addr,
        &post,
        &json!({ "responses": { "b1": { "selected": ["EU"] } }, "verdict": kept_label }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let export = r.json()["export"].as_str().unwrap().to_string();
    let last = export.lines().last().unwrap();
    assert!(last.starts_with("Verdict: &lt;img"), "{export}");
    for line in export.lines() {
        assert!(
            !line.starts_with("---") && !line.starts_with("# ") && !line.starts_with("**Q: forged"),
            "{export}"
        );
    }
    assert!(
        !export.contains("<img") && !export.contains("<script"),
        "{export}"
    );
    let listed = owner_get(addr, &doc, &format!("/v1/documents/{id}/responses"));
    assert_eq!(listed["responses"][0]["recipient"], kept);
}

/// With a key file, names, emails, labels and verdicts are kept only as ciphertext.
fn recipients_sealed_at_rest(backend: &Backend) {
    let scratch = backend.scratch();
    let keys = scratch.join("store.keys");
    std::fs::write(&keys, format!("{KEY}\n")).expect("the key file");
    let server = backend.serve(&["--store-key-file", &keys.display().to_string()]);
    let addr = server.addr.as_str();
    let doc = route(
        addr,
        &json!({
            "markdown": DOC,
            "recipients": [{ "name": "Dana Secretname", "email": "dana@hidden.example" }],
            "verdict": ["Hiddenlabel", "Other"],
        }),
    );
    let id = doc["id"].as_str().unwrap();
    let link = path_of(addr, &doc["recipients"][0]["review_url"]);
    assert!(page(addr, &link).text().contains("Dana Secretname"));
    let r = post_json(
        addr,
        &link.replace('?', "/responses?"),
        &json!({ "responses": { "b1": { "selected": ["EU"] } }, "verdict": "Hiddenlabel" }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let listed = owner_get(addr, &doc, &format!("/v1/documents/{id}/responses"));
    assert_eq!(listed["responses"][0]["recipient"], "Dana Secretname");
    assert_eq!(listed["responses"][0]["verdict"], "Hiddenlabel");
    let seen = owner_get(addr, &doc, &format!("/v1/documents/{id}"));
    assert_eq!(seen["recipients"][0]["email"], "dana@hidden.example");
    assert_eq!(seen["verdict"][0], "Hiddenlabel");
    let (count, stored) = backend.recipients_stored(id);
    assert_eq!(count, 1);
    assert!(stored.contains("pbs1.k2026."), "{stored}");
    for plain in ["Secretname", "hidden.example", "Hiddenlabel"] {
        assert!(!stored.contains(plain), "{plain} in {stored}");
    }
    drop(server);
    let _ = std::fs::remove_dir_all(scratch);
}

/// An owner call with the document's token and a JSON body.
fn owner_send(addr: &str, method: &str, doc: &Value, body: &Value) -> Reply {
    let token = format!("Bearer {}", doc["token"].as_str().unwrap());
    let path = format!("/v1/documents/{}", doc["id"].as_str().unwrap());
    call(
        addr,
        method,
        &path,
        &[
            ("authorization", &token),
            ("content-type", "application/json"),
        ],
        body.to_string().as_bytes(),
    )
}

const HE_DOC: &str = "# השקה\n\nבאיזה אזור מתחילים?\n\n```single-choice\n{\"version\":\"1\",\"question\":\"באיזה אזור מתחילים?\",\"options\":[\"אירופה\",\"אמריקה\"]}\n```\n";
const AR_DOC: &str = "# الإطلاق\n\nبأي منطقة نبدأ؟\n\n```single-choice\n{\"version\":\"1\",\"question\":\"بأي منطقة نبدأ؟\",\"options\":[\"أوروبا\",\"أمريكا\"]}\n```\n";

/// A sender's display name: cleaned and bounded when routed, named in the review page's intro
/// (escaped, in a `<bdi>`, in the document's language), returned to the sender, kept across a
/// revision and sealed at rest; the default verdict, the notices and the intro speak the
/// document's language.
fn a_sender_is_named(backend: &Backend) {
    let scratch = backend.scratch();
    let keys = scratch.join("store.keys");
    std::fs::write(&keys, format!("{KEY}\n")).expect("the key file");
    let server = backend.serve(&["--store-key-file", &keys.display().to_string()]);
    let addr = server.addr.as_str();
    let doc = route(
        addr,
        &json!({ "markdown": DOC, "sender": "Dana\nfrom \u{202e}Hiddenfinance\u{2069}", "verdict": true }),
    );
    let id = doc["id"].as_str().unwrap();
    let html = page(addr, &format!("/r/{id}")).text();
    assert!(
        html.contains(
            "<p class=\"pb-intro-from\"><bdi>Dana from Hiddenfinance</bdi> asks for your answers to this document.</p>"
        ),
        "{html}"
    );
    assert!(html.contains("value=\"Request changes\""));
    let seen = owner_get(addr, &doc, &format!("/v1/documents/{id}"));
    assert_eq!(seen["sender"], "Dana from Hiddenfinance");
    // Sealed at rest, as the recipients' names are.
    let (_, stored) = backend.recipients_stored(id);
    assert!(
        stored.contains("pbs1.k2026.") && !stored.contains("Hiddenfinance"),
        "{stored}"
    );
    // A revision keeps it, and cannot change it.
    let r = owner_send(
        addr,
        "PUT",
        &doc,
        &json!({ "markdown": DOC.replace("\"US\"", "\"APAC\"") }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let seen = owner_get(addr, &doc, &format!("/v1/documents/{id}"));
    assert_eq!(
        (seen["revision"].as_u64(), &seen["sender"]),
        (Some(2), &json!("Dana from Hiddenfinance"))
    );
    let r = owner_send(
        addr,
        "PUT",
        &doc,
        &json!({ "markdown": DOC, "sender": "Eve" }),
    );
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("\\\"sender\\\""), "{}", r.text());
    // None given: null, and no line in the intro.
    let plain = route(addr, &json!({ "markdown": DOC, "sender": "\u{202e} \n" }));
    let plain_id = plain["id"].as_str().unwrap();
    assert_eq!(
        owner_get(addr, &plain, &format!("/v1/documents/{plain_id}"))["sender"],
        Value::Null
    );
    assert!(
        !page(addr, &format!("/r/{plain_id}"))
            .text()
            .contains("pb-intro-from")
    );

    // HTML in the name is text; overrides and isolates are gone.
    let hostile = route(
        addr,
        &json!({ "markdown": DOC, "sender": "<img src=x onerror=alert(1)>\u{202e}\u{2066}<script>x</script>" }),
    );
    let html = page(addr, &format!("/r/{}", hostile["id"].as_str().unwrap())).text();
    assert!(
        html.contains(
            "<bdi>&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;x&lt;/script&gt;</bdi>"
        ),
        "{html}"
    );
    assert!(
        !html.contains("<img src=x") && !html.contains('\u{202e}') && !html.contains('\u{2066}')
    );
    // Too long, or not a string: 422 naming the field; nothing is kept.
    for bad in [json!("x".repeat(201)), json!(42), json!({ "name": "Dana" })] {
        let r = post_json(
            addr,
            "/v1/documents",
            &json!({ "markdown": DOC, "sender": bad }),
        );
        assert_eq!(r.status, 422, "{bad}: {}", r.text());
        assert!(r.text().contains("sender"), "{}", r.text());
    }
    assert_eq!(
        post_json(
            addr,
            "/v1/documents",
            &json!({ "markdown": DOC, "sender": "x".repeat(200) })
        )
        .status,
        201
    );

    // Hebrew and Arabic documents: the intro names the sender in their language, and the
    // default verdict's labels are theirs, in the page, the response and the export.
    for (markdown, sender, from, choices, closed) in [
        (
            HE_DOC,
            "דנה מהכספים",
            "המסמך נשלח אליך מאת <bdi>דנה מהכספים</bdi> לקבלת תשובותיך.",
            ["אישור", "בקשת שינויים", "דחייה"],
            "המסמך סגור.",
        ),
        (
            AR_DOC,
            "دانة من المالية",
            "وصلتك هذه الوثيقة من <bdi>دانة من المالية</bdi> للإجابة عنها.",
            ["موافقة", "طلب تعديلات", "رفض"],
            "هذه الوثيقة مغلقة.",
        ),
    ] {
        let doc = route(
            addr,
            &json!({ "markdown": markdown, "sender": sender, "verdict": true }),
        );
        assert_eq!(doc["verdict"], json!(choices));
        let id = doc["id"].as_str().unwrap();
        let html = page(addr, &format!("/r/{id}")).text();
        assert!(html.contains(from), "{html}");
        for choice in choices {
            assert!(html.contains(&format!("value=\"{choice}\"")), "{choice}");
        }
        assert!(!html.contains("Request changes"));
        let option = if markdown == HE_DOC {
            "אירופה"
        } else {
            "أوروبا"
        };
        let r = post_json(
            addr,
            &format!("/r/{id}/responses"),
            &json!({ "responses": { "b1": { "selected": [option] } }, "verdict": choices[1] }),
        );
        assert_eq!(r.status, 201, "{}", r.text());
        // The line's name stays as contracted; its label is the document's.
        let export = r.json()["export"].as_str().unwrap().to_string();
        assert!(
            export.ends_with(&format!("\n\nVerdict: {}\n", choices[1])),
            "{export}"
        );
        let r = owner_send(addr, "PATCH", &doc, &json!({ "status": "closed" }));
        assert_eq!(r.status, 200, "{}", r.text());
        let html = page(addr, &format!("/r/{id}")).text();
        assert!(html.contains(closed), "{html}");
        assert!(!html.contains("This document is closed"));
    }
    drop(server);
    let _ = std::fs::remove_dir_all(scratch);
}

#[test]
fn sqlite_a_sender_is_named() {
    a_sender_is_named(&Backend::sqlite());
}

#[test]
fn postgres_a_sender_is_named() {
    if let Some(backend) = Backend::postgres() {
        a_sender_is_named(&backend);
    }
}

#[test]
fn sqlite_recipients_and_their_verdicts() {
    recipients_and_their_verdicts(&Backend::sqlite());
}

#[test]
fn postgres_recipients_and_their_verdicts() {
    if let Some(backend) = Backend::postgres() {
        recipients_and_their_verdicts(&backend);
    }
}

#[test]
fn sqlite_what_an_attacker_gets() {
    what_an_attacker_gets(&Backend::sqlite());
}

#[test]
fn postgres_what_an_attacker_gets() {
    if let Some(backend) = Backend::postgres() {
        what_an_attacker_gets(&backend);
    }
}

#[test]
fn sqlite_hostile_names_are_harmless() {
    hostile_names_are_harmless(&Backend::sqlite());
}

#[test]
fn postgres_hostile_names_are_harmless() {
    if let Some(backend) = Backend::postgres() {
        hostile_names_are_harmless(&backend);
    }
}

#[test]
fn sqlite_recipients_are_sealed_at_rest() {
    recipients_sealed_at_rest(&Backend::sqlite());
}

#[test]
fn postgres_recipients_are_sealed_at_rest() {
    if let Some(backend) = Backend::postgres() {
        recipients_sealed_at_rest(&backend);
    }
}

/// A database that recorded 0007 but not an earlier migration (one added to the list after
/// 0007 ran) gets the earlier one applied when the server opens it.
fn a_missing_earlier_migration_is_applied(backend: &Backend) {
    let (dir, create) = match backend {
        Backend::Sqlite(_) => (
            "sqlite",
            "CREATE TABLE passback_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL);",
        ),
        Backend::Postgres { .. } => (
            "postgres",
            "CREATE TABLE passback_migrations (version bigint PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL);",
        ),
    };
    let root = env!("CARGO_MANIFEST_DIR");
    let mut sql = create.to_string();
    for (n, name) in [
        (1, "routed_documents"),
        (2, "lifecycle"),
        (3, "keys"),
        (4, "events"),
        (7, "recipients_verdict"),
    ] {
        let file = format!("{root}/migrations/{dir}/{n:04}_{name}.sql");
        sql.push_str(&std::fs::read_to_string(&file).expect("a migration"));
        sql.push_str(&format!(
            ";\nINSERT INTO passback_migrations VALUES ({n}, '{name}', 0);\n"
        ));
    }
    backend.execute(&sql);
    let server = backend.serve(&[]);
    let addr = server.addr.as_str();
    // 0005's column is there: a JSON answer with a submission id is kept once.
    let doc = route(addr, &json!({ "markdown": DOC, "verdict": true }));
    let id = doc["id"].as_str().unwrap();
    let body =
        json!({ "responses": {}, "submission_id": "0123456789abcdef-x", "verdict": "Approve" });
    for _ in 0..2 {
        let r = post_json(addr, &format!("/r/{id}/responses"), &body);
        assert_eq!(r.status, 201, "{}", r.text());
        assert_eq!(r.json()["response_id"], 1);
    }
}

#[test]
fn sqlite_a_missing_earlier_migration_is_applied() {
    a_missing_earlier_migration_is_applied(&Backend::sqlite());
}

#[test]
fn postgres_a_missing_earlier_migration_is_applied() {
    if let Some(backend) = Backend::postgres() {
        a_missing_earlier_migration_is_applied(&backend);
    }
}

/// A closed document's purge removes its recipients with its responses.
fn purged_with_the_document(backend: &Backend) {
    use passback_server::routing::{Asks, RouteOptions, Routing};
    use std::time::Duration;

    let store = backend.open();
    let routing = Routing::new(store, Duration::from_secs(3600), Duration::ZERO, 10);
    common::store::runtime().block_on(async {
        routing.store.prepare().await.expect("prepared");
        let asks = Asks {
            recipients: vec![("Dana".into(), Some("dana@example.com".into()))],
            verdict: Some(vec!["Yes".into(), "No".into()]),
            sender: Some("Sam".into()),
            ..Asks::default()
        };
        let routed = routing
            .route(
                DOC.into(),
                "hash".into(),
                RouteOptions {
                    asks,
                    ..RouteOptions::default()
                },
            )
            .await
            .expect("routed");
        let (secret, id) = (routed.recipients[0].1.clone(), routed.id.clone());
        assert_eq!(
            routing
                .recipient(&id, &secret, true)
                .await
                .expect("Dana")
                .name,
            "Dana"
        );
        assert_eq!(backend.recipients_stored(&id).0, 1);
        // Open, nothing is purged.
        routing.sweep().await.expect("a sweep");
        assert_eq!(backend.recipients_stored(&id).0, 1);
        routing.set_status(&id, true).await.expect("closed");
        routing.sweep().await.expect("a sweep");
        assert_eq!(backend.recipients_stored(&id), (0, String::new()));
        assert!(routing.recipient(&id, &secret, false).await.is_err());
    });
}

#[test]
fn sqlite_recipients_are_purged_with_the_document() {
    purged_with_the_document(&Backend::sqlite());
}

#[test]
fn postgres_recipients_are_purged_with_the_document() {
    if let Some(backend) = Backend::postgres() {
        purged_with_the_document(&backend);
    }
}
