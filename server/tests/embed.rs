//! Browser apps and embedding, over real HTTP: CORS for the origins the operator names, the
//! render route's `answers_action`, and (with the store) `Idempotency-Key` on routing and on
//! JSON answers.

mod common;

use common::Server;
use common::http::Reply;
use passback_server::Config;

const CHOICE: &str = "# Pick\n\n```single-choice\n{\"version\":\"1\",\"question\":\"Which region first?\",\"options\":[\"EU\",\"US\"]}\n```\n";

const APP: &str = "https://app.example.com";

fn cors_config() -> Config {
    Config::default()
        .with_cors_origins(&[APP, "http://localhost:3000"])
        .expect("origins")
}

/// Every value of header `name` (a reply may carry it more than once).
fn all(r: &Reply, name: &str) -> Vec<String> {
    r.headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.clone())
        .collect()
}

fn varies_on_origin(r: &Reply) -> bool {
    all(r, "vary").iter().any(|v| {
        v.split(',')
            .any(|p| p.trim().eq_ignore_ascii_case("origin"))
    })
}

#[tokio::test]
async fn a_configured_origin_is_echoed_on_the_stateless_routes() {
    let server = Server::start(cors_config()).await;
    for (method, path, body) in [
        ("POST", "/v1/render", CHOICE),
        ("POST", "/v1/validate", CHOICE),
        ("GET", "/v1/schema.json", ""),
    ] {
        let r = server
            .send(method, path, &[("origin", APP)], body.as_bytes())
            .await;
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        assert_eq!(r.header("access-control-allow-origin"), Some(APP), "{path}");
        assert!(varies_on_origin(&r), "{path}: {:?}", r.headers);
        assert!(
            r.header("access-control-expose-headers")
                .is_some_and(|h| h.contains("etag")),
            "{path}"
        );
        assert!(r.header("access-control-allow-credentials").is_none());
    }
    // A refusal carries it too, so the page can read why.
    let r = server
        .send(
            "POST",
            "/v1/render?surface=nope",
            &[("origin", APP)],
            CHOICE,
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.header("access-control-allow-origin"), Some(APP));
    // The second origin, as configured.
    let r = server
        .send(
            "GET",
            "/v1/schema.json",
            &[("origin", "http://localhost:3000")],
            b"",
        )
        .await;
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("http://localhost:3000")
    );
    server.stop().await;
}

#[tokio::test]
async fn any_other_origin_gets_no_grant_but_the_same_answer() {
    let server = Server::start(cors_config()).await;
    for origin in [
        "https://evil.test",
        "null",
        // Look-alikes: a suffix, a subdomain, another scheme, another port.
        "https://app.example.com.evil.test",
        "https://evil.app.example.com",
        "http://app.example.com",
        "https://app.example.com:8443",
        "HTTPS://APP.EXAMPLE.COM",
    ] {
        let r = server
            .send("POST", "/v1/render", &[("origin", origin)], CHOICE)
            .await;
        assert_eq!(r.status, 200, "{origin}");
        assert_eq!(r.header("access-control-allow-origin"), None, "{origin}");
        assert!(varies_on_origin(&r), "{origin}");
        let pre = server
            .send(
                "OPTIONS",
                "/v1/render",
                &[
                    ("origin", origin),
                    ("access-control-request-method", "POST"),
                ],
                b"",
            )
            .await;
        assert_eq!(pre.status, 204, "{origin}");
        for h in [
            "access-control-allow-origin",
            "access-control-allow-methods",
            "access-control-allow-headers",
        ] {
            assert_eq!(pre.header(h), None, "{origin}: {h}");
        }
    }
    // No Origin at all (curl, a server): the same answer, still varying on Origin.
    let r = server.post("/v1/render", CHOICE).await;
    assert_eq!(r.header("access-control-allow-origin"), None);
    assert!(varies_on_origin(&r));
    server.stop().await;
}

#[tokio::test]
async fn a_preflight_from_a_configured_origin_is_granted() {
    let server = Server::start(cors_config()).await;
    let pre = server
        .send(
            "OPTIONS",
            "/v1/render",
            &[
                ("origin", APP),
                ("access-control-request-method", "POST"),
                ("access-control-request-headers", "content-type"),
            ],
            b"",
        )
        .await;
    assert_eq!(pre.status, 204, "{}", pre.text());
    assert_eq!(pre.header("access-control-allow-origin"), Some(APP));
    assert_eq!(pre.header("access-control-allow-methods"), Some("POST"));
    let allowed = pre.header("access-control-allow-headers").unwrap_or("");
    assert!(allowed.contains("content-type"), "{allowed}");
    assert!(!allowed.contains("authorization"), "{allowed}");
    assert_eq!(pre.header("access-control-max-age"), Some("7200"));
    assert!(varies_on_origin(&pre));
    assert!(pre.body.is_empty());
    // A method the route does not serve is not granted.
    let pre = server
        .send(
            "OPTIONS",
            "/v1/render",
            &[("origin", APP), ("access-control-request-method", "DELETE")],
            b"",
        )
        .await;
    assert_eq!(pre.header("access-control-allow-methods"), None);
    // The schema is a GET.
    let pre = server
        .send(
            "OPTIONS",
            "/v1/schema.json",
            &[("origin", APP), ("access-control-request-method", "GET")],
            b"",
        )
        .await;
    assert_eq!(
        pre.header("access-control-allow-methods"),
        Some("GET, HEAD")
    );
    server.stop().await;
}

#[tokio::test]
async fn without_configured_origins_there_is_no_cors_at_all() {
    let server = Server::start(Config::default()).await;
    let r = server
        .send("POST", "/v1/render", &[("origin", APP)], CHOICE)
        .await;
    assert_eq!(r.status, 200);
    for h in [
        "access-control-allow-origin",
        "access-control-expose-headers",
        "vary",
    ] {
        assert_eq!(r.header(h), None, "{h}");
    }
    let pre = server
        .send(
            "OPTIONS",
            "/v1/render",
            &[("origin", APP), ("access-control-request-method", "POST")],
            b"",
        )
        .await;
    assert_eq!(pre.status, 405);
    assert_eq!(pre.header("access-control-allow-origin"), None);
    server.stop().await;
}

#[cfg(feature = "store")]
#[tokio::test]
async fn the_owners_routes_and_the_review_pages_never_answer_cors() {
    let server = Server::start(cors_config()).await;
    for (method, path) in [
        ("GET", "/v1/documents"),
        ("POST", "/v1/documents"),
        ("GET", "/v1/documents/abc"),
        ("GET", "/r/abc"),
        ("POST", "/r/abc/responses"),
        ("GET", "/healthz"),
    ] {
        let r = server.send(method, path, &[("origin", APP)], b"").await;
        assert_eq!(r.header("access-control-allow-origin"), None, "{path}");
        assert!(!varies_on_origin(&r), "{path}");
        let pre = server
            .send(
                "OPTIONS",
                path,
                &[("origin", APP), ("access-control-request-method", method)],
                b"",
            )
            .await;
        assert_eq!(pre.status, 405, "{path}");
        assert_eq!(pre.header("access-control-allow-origin"), None, "{path}");
    }
    server.stop().await;
}

/// The form's action in a rendering.
fn action(html: &str) -> Option<String> {
    let form = &html[html.find("<form")?..];
    let tag = &form[..form.find('>')?];
    let at = tag.find(" action=\"")? + " action=\"".len();
    Some(tag[at..at + tag[at..].find('"')?].to_string())
}

#[tokio::test]
async fn the_render_route_posts_the_form_where_answers_action_says() {
    let server = Server::start(Config::default()).await;
    let default = server.post("/v1/render", CHOICE).await;
    assert_eq!(default.status, 200);
    assert_eq!(action(&default.text()).as_deref(), Some("/v1/answers"));

    let elsewhere = "https://answers.example/collect?form=7";
    let query = format!(
        "/v1/render?answers_action={}",
        common::http::urlencode(elsewhere)
    );
    let moved = server.post(&query, CHOICE).await;
    assert_eq!(moved.status, 200, "{}", moved.text());
    assert_eq!(
        action(&moved.text()).as_deref(),
        Some("https://answers.example/collect?form=7")
    );
    // Two actions never share a cache entry: each has its own hash, and the cached copy at
    // each hash is the one with that action.
    let (a, b) = (
        default.header("etag").expect("etag"),
        moved.header("etag").expect("etag"),
    );
    assert_ne!(a, b);
    for (reply, want) in [(&default, "/v1/answers"), (&moved, elsewhere)] {
        let at = reply.header("content-location").expect("content-location");
        let cached = server.get(at).await;
        assert_eq!(cached.status, 200);
        assert_eq!(action(&cached.text()).as_deref(), Some(want));
    }
    // Rendering the default again is a hit on its own entry, not on the other.
    let again = server.post("/v1/render", CHOICE).await;
    assert_eq!(again.header("etag"), Some(a));

    // Empty: no action, as `--answers-action ''` renders it.
    let none = server.post("/v1/render?answers_action=", CHOICE).await;
    assert_eq!(none.status, 200);
    assert_eq!(action(&none.text()), None);
    assert!(none.text().contains("method=\"dialog\""));

    server.stop().await;
}

#[tokio::test]
async fn a_bad_answers_action_is_refused_as_the_cli_refuses_it() {
    let server = Server::start(Config::default()).await;
    for bad in [
        "javascript:alert(1)",
        "data:text/html,x",
        "/a b",
        "/a\"onclick=x",
    ] {
        let query = format!("/v1/render?answers_action={}", common::http::urlencode(bad));
        let r = server.post(&query, CHOICE).await;
        assert_eq!(r.status, 400, "{bad}");
        let detail = r.problem_detail();
        assert!(detail.starts_with("answers_action must be "), "{detail}");

        let out = common::passback()
            .args(["render", "--answers-action", bad])
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run passback render");
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let said = String::from_utf8_lossy(&out.stderr);
        // One message: the flag's name in place of the parameter's.
        let rest = detail
            .trim_start_matches("answers_action")
            .trim_end_matches('.');
        assert!(
            said.contains(&format!("--answers-action{rest}")),
            "{said} / {detail}"
        );
    }
    server.stop().await;
}

#[cfg(feature = "store")]
mod idempotency {
    use super::common::http::{Reply, call};
    use super::common::passback;
    use super::common::store::Backend;
    use serde_json::{Value, json};

    const DOC: &str = "# Launch\n\n```single-choice\n{\"version\":\"1\",\"question\":\"Which region first?\",\"options\":[\"EU\",\"US\"]}\n```\n";

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
        String::from_utf8(out.stdout)
            .expect("UTF-8")
            .trim()
            .to_string()
    }

    /// `POST /v1/documents` as `key` (none when empty) with `idempotency` (none when empty).
    fn route(addr: &str, key: &str, idempotency: &str, body: &Value) -> Reply {
        let auth = format!("Bearer {key}");
        let mut headers = vec![("content-type", "application/json")];
        if !key.is_empty() {
            headers.push(("authorization", auth.as_str()));
        }
        if !idempotency.is_empty() {
            headers.push(("idempotency-key", idempotency));
        }
        call(
            addr,
            "POST",
            "/v1/documents",
            &headers,
            body.to_string().as_bytes(),
        )
    }

    fn documents_of(addr: &str, key: &str) -> Vec<Value> {
        let auth = format!("Bearer {key}");
        let r = call(
            addr,
            "GET",
            "/v1/documents?limit=100",
            &[("authorization", auth.as_str())],
            b"",
        );
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()["documents"].as_array().expect("documents").clone()
    }

    fn routing(backend: &Backend) {
        let alice = add_key(backend, "alice");
        let bob = add_key(backend, "bob");
        let server = backend.serve(&[]);
        let addr = server.addr.as_str();
        let body = json!({ "markdown": DOC, "expires_in": 3600 });
        let key = "order-7c9e6679-7425-40de-944b-e07fc1f90ae7";

        let first = route(addr, &alice, key, &body);
        assert_eq!(first.status, 201, "{}", first.text());
        assert_eq!(first.header("idempotent-replayed"), None);
        let again = route(addr, &alice, key, &body);
        assert_eq!(again.status, 201, "{}", again.text());
        assert_eq!(again.header("idempotent-replayed"), Some("true"));
        // The same answer, the token included: the same sender asked.
        assert_eq!(again.json(), first.json());
        assert_eq!(again.header("location"), first.header("location"));
        let token = first.json()["token"].as_str().expect("token").to_string();
        assert!(!token.is_empty());
        assert_eq!(documents_of(addr, &alice).len(), 1);
        // The database keeps neither the key nor the token in the clear.
        if let Backend::Sqlite(_) = backend {
            let c = rusqlite::Connection::open(backend.file()).expect("open the file");
            let (hash, kept): (String, String) = c
                .query_row("SELECT key_hash, response FROM idempotency_keys", [], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
                .expect("one row");
            assert!(!hash.contains("order-") && !kept.contains(&token) && !kept.contains("token"));
        }

        // Another body with the same key is refused, and routes nothing.
        let other = route(
            addr,
            &alice,
            key,
            &json!({ "markdown": DOC, "expires_in": 7200 }),
        );
        assert_eq!(other.status, 422, "{}", other.text());
        assert!(other.problem_detail().contains("Idempotency-Key"));
        assert_eq!(documents_of(addr, &alice).len(), 1);

        // After the window the key is new again: the other body routes a document of its own.
        backend.execute("UPDATE idempotency_keys SET created_at = created_at - 86400001");
        let later = route(
            addr,
            &alice,
            key,
            &json!({ "markdown": DOC, "expires_in": 7200 }),
        );
        assert_eq!(later.status, 201, "{}", later.text());
        assert_eq!(later.header("idempotent-replayed"), None);
        assert_ne!(later.json()["id"], first.json()["id"]);
        assert_eq!(documents_of(addr, &alice).len(), 2);

        // Another sender's same key is theirs alone: a document of their own, never alice's.
        let bobs = route(addr, &bob, key, &body);
        assert_eq!(bobs.status, 201, "{}", bobs.text());
        assert_eq!(bobs.header("idempotent-replayed"), None);
        assert_ne!(bobs.json()["id"], first.json()["id"]);
        assert_ne!(bobs.json()["token"], first.json()["token"]);
        assert_eq!(documents_of(addr, &bob).len(), 1);

        // A refused request keeps nothing: the key routes the next body.
        let refused = route(
            addr,
            &alice,
            "fix-me-1",
            &json!({ "markdown": "```single-choice\n{}\n```\n" }),
        );
        assert_eq!(refused.status, 422, "{}", refused.text());
        let fixed = route(addr, &alice, "fix-me-1", &body);
        assert_eq!(fixed.status, 201, "{}", fixed.text());
        assert_eq!(fixed.header("idempotent-replayed"), None);
        assert_eq!(documents_of(addr, &alice).len(), 3);

        // Without a key, every request routes.
        let (a, b) = (
            route(addr, &alice, "", &body),
            route(addr, &alice, "", &body),
        );
        assert_ne!(a.json()["id"], b.json()["id"]);

        // Oversized, several, or not visible ASCII: 400 naming the header.
        let long = "k".repeat(256);
        for bad in [long.as_str(), "a b"] {
            let r = route(addr, &alice, bad, &body);
            assert_eq!(r.status, 400, "{}", r.text());
            assert!(r.problem_detail().contains("Idempotency-Key"));
        }
        assert_eq!(route(addr, &alice, &"k".repeat(255), &body).status, 201);
        let auth = format!("Bearer {alice}");
        let twice = call(
            addr,
            "POST",
            "/v1/documents",
            &[
                ("content-type", "application/json"),
                ("authorization", auth.as_str()),
                ("idempotency-key", "one-key"),
                ("idempotency-key", "two-key"),
            ],
            body.to_string().as_bytes(),
        );
        assert_eq!(twice.status, 400);
        assert!(twice.problem_detail().contains("Idempotency-Key"));

        // A race: eight posts with one key at once route one document, and all of them get it.
        let before = documents_of(addr, &alice).len();
        let replies: Vec<Reply> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| s.spawn(|| route(addr, &alice, "race-key-0001", &body)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a reply"))
                .collect()
        });
        for r in &replies {
            assert_eq!(r.status, 201, "{}", r.text());
            assert_eq!(r.json()["id"], replies[0].json()["id"]);
        }
        assert_eq!(
            replies
                .iter()
                .filter(|r| r.header("idempotent-replayed").is_none())
                .count(),
            1
        );
        assert_eq!(documents_of(addr, &alice).len(), before + 1);
    }

    /// `POST /r/{id}/responses` with a JSON body and `idempotency` (none when empty).
    fn answer(addr: &str, id: &str, idempotency: &str, body: &Value) -> Reply {
        let mut headers = vec![("content-type", "application/json")];
        if !idempotency.is_empty() {
            headers.push(("idempotency-key", idempotency));
        }
        call(
            addr,
            "POST",
            &format!("/r/{id}/responses"),
            &headers,
            body.to_string().as_bytes(),
        )
    }

    /// With `sealed`, the store seals the answers at rest (`--store-key-file`): a repeat is
    /// compared with the first response as opened.
    fn answers(backend: &Backend, sealed: bool) {
        let scratch = sealed.then(|| backend.scratch());
        let server = match &scratch {
            Some(dir) => {
                let keys = dir.join("store.keys");
                std::fs::write(&keys, "k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n")
                    .expect("the key file");
                backend.serve(&["--store-key-file", &keys.display().to_string()])
            }
            None => backend.serve(&[]),
        };
        let addr = server.addr.as_str();
        let routed = route(addr, "", "", &json!({ "markdown": DOC }));
        assert_eq!(routed.status, 201, "{}", routed.text());
        let (id, token) = (
            routed.json()["id"].as_str().unwrap().to_string(),
            routed.json()["token"].as_str().unwrap().to_string(),
        );
        let eu = json!({ "responses": { "b1": { "selected": ["EU"] } }, "reviewer": "Dana" });
        let key = "0f8fad5b-d9cb-469f-a165-70867728950e";
        let first = answer(addr, &id, key, &eu);
        assert_eq!(first.status, 201, "{}", first.text());
        let again = answer(addr, &id, key, &eu);
        assert_eq!(again.status, 201, "{}", again.text());
        assert_eq!(again.json(), first.json());
        // Another body with the same key: refused, nothing stored.
        let us = json!({ "responses": { "b1": { "selected": ["US"] } }, "reviewer": "Dana" });
        let other = answer(addr, &id, key, &us);
        assert_eq!(other.status, 422, "{}", other.text());
        assert!(other.problem_detail().contains("Idempotency-Key"));
        // The header and the body's submission_id must agree.
        let mut with_id = eu.clone();
        with_id["submission_id"] = json!("another-submission-id-1");
        let differ = answer(addr, &id, key, &with_id);
        assert_eq!(differ.status, 422, "{}", differ.text());
        // An answer's key is a submission id: 16 characters at least.
        let short = answer(addr, &id, "short", &eu);
        assert_eq!(short.status, 400, "{}", short.text());
        assert!(short.problem_detail().contains("Idempotency-Key"));
        let long = answer(addr, &id, &"k".repeat(300), &eu);
        assert_eq!(long.status, 400);
        assert!(long.problem_detail().contains("Idempotency-Key"));
        // A form carries its own submission id, but a malformed key is refused there too,
        // and so is a query parameter other than a recipient's `for`.
        let form = call(
            addr,
            "POST",
            &format!("/r/{id}/responses"),
            &[
                ("content-type", "application/x-www-form-urlencoded"),
                ("idempotency-key", "short"),
            ],
            b"pb.reviewer=Dana",
        );
        assert_eq!(form.status, 400, "{}", form.text());
        assert!(form.problem_detail().contains("Idempotency-Key"));
        for query in ["?=0.0", "?fro=x"] {
            let r = call(
                addr,
                "POST",
                &format!("/r/{id}/responses{query}"),
                &[("content-type", "application/json")],
                eu.to_string().as_bytes(),
            );
            assert_eq!(r.status, 400, "{query}: {}", r.text());
            assert!(r.problem_detail().contains("parameter"), "{}", r.text());
        }
        // A new key is a new response.
        let second = answer(addr, &id, "1b4e28ba-2fa1-11d2-883f-0016d3cca427", &us);
        assert_eq!(second.status, 201, "{}", second.text());
        assert_ne!(second.json()["response_id"], first.json()["response_id"]);

        let auth = format!("Bearer {token}");
        let listed = call(
            addr,
            "GET",
            &format!("/v1/documents/{id}/responses"),
            &[("authorization", auth.as_str())],
            b"",
        );
        assert_eq!(listed.status, 200, "{}", listed.text());
        assert_eq!(listed.json()["responses"].as_array().unwrap().len(), 2);
        drop(server);
        if let Some(dir) = scratch {
            let _ = std::fs::remove_dir_all(dir);
        }
    }

    #[test]
    fn sqlite_a_repeated_idempotency_key_routes_one_document() {
        routing(&Backend::sqlite());
    }

    #[test]
    fn postgres_a_repeated_idempotency_key_routes_one_document() {
        if let Some(backend) = Backend::postgres() {
            routing(&backend);
        }
    }

    #[test]
    fn sqlite_a_repeated_idempotency_key_stores_one_answer() {
        answers(&Backend::sqlite(), false);
        answers(&Backend::sqlite(), true);
    }

    #[test]
    fn postgres_a_repeated_idempotency_key_stores_one_answer() {
        if let Some(backend) = Backend::postgres() {
            answers(&backend, true);
        }
        if let Some(backend) = Backend::postgres() {
            answers(&backend, false);
        }
    }
}

/// `passback serve` takes `--cors-origin` (repeatable) or `PASSBACK_CORS_ORIGIN`, and refuses
/// what is not an origin before it listens.
#[test]
fn the_serve_command_reads_origins_from_flags_and_the_environment() {
    let refused = |args: &[&str], env: Option<&str>| {
        let mut cmd = common::passback();
        cmd.args(["serve", "--listen", "127.0.0.1:0"])
            .args(common::NO_STORE)
            .args(args)
            .env_remove("PASSBACK_CORS_ORIGIN");
        if let Some(v) = env {
            cmd.env("PASSBACK_CORS_ORIGIN", v);
        }
        let out = cmd.output().expect("run passback serve");
        assert_eq!(out.status.code(), Some(2), "{args:?} {env:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    for bad in ["null", "*", "https://app.example/path"] {
        let said = refused(&["--cors-origin", APP, "--cors-origin", bad], None);
        assert!(said.contains("--cors-origin must be an origin"), "{said}");
        assert!(said.contains(bad), "{said}");
    }
    let said = refused(&[], Some("https://app.example, null"));
    assert!(said.contains("--cors-origin must be an origin"), "{said}");
    let help = common::passback()
        .args(["serve", "--help"])
        .output()
        .expect("run passback serve --help");
    assert!(String::from_utf8_lossy(&help.stdout).contains("--cors-origin ORIGIN"));
}

/// The environment's origins reach the server: a real `passback serve`, over HTTP.
#[test]
fn origins_from_the_environment_are_allowed() {
    use std::io::{BufRead, BufReader};
    let mut child = common::passback()
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(common::NO_STORE)
        .env(
            "PASSBACK_CORS_ORIGIN",
            "http://localhost:3000, https://app.example.com",
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start passback serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the listening line");
    let addr = line
        .trim()
        .rsplit("http://")
        .next()
        .unwrap_or("")
        .to_string();
    let reply = common::http::call(&addr, "GET", "/v1/schema.json", &[("origin", APP)], b"");
    let other = common::http::call(
        &addr,
        "GET",
        "/v1/schema.json",
        &[("origin", "https://elsewhere.example")],
        b"",
    );
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(reply.header("access-control-allow-origin"), Some(APP));
    assert_eq!(other.header("access-control-allow-origin"), None);
}
