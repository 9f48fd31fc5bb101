//! The playground over real HTTP: the page at `GET /`, its form post without JavaScript, its
//! own assets and examples. Built with the `playground` feature only.

mod common;

use common::Server;
use common::http::urlencode;
use passback_server::Config;

const DOC: &str = "# Plan\n\nPick one.\n\n```single-choice\n{ \"version\": \"1\", \"question\": \"Which auth method?\", \"options\": [\"PIN\", \"Magic link\"], \"recommended\": \"Magic link\" }\n```\n";

#[tokio::test]
async fn the_playground_renders_pasted_documents() {
    let server = Server::start(Config::default()).await;
    let r = server.get("/").await;
    assert_eq!(r.status, 200);
    assert!(r.text().contains("<textarea") && r.text().contains("action=\"/\""));
    let form = format!("markdown={}", urlencode(DOC));
    let r = server.post_form("/", &form, false).await;
    assert_eq!(r.status, 200);
    let html = r.text();
    assert!(html.contains("pb-single-choice") && html.contains("action=\"/v1/answers\""));
    assert!(html.contains("Which auth method?</legend>"));
    let schema = server.get("/v1/schema.json").await;
    assert_eq!(schema.status, 200);
    serde_json::from_slice::<serde_json::Value>(&schema.body).expect("schema is JSON");
    server.stop().await;
}

/// Without JavaScript a post shows the text as typed (a leading newline too), the status line,
/// and each problem with its place, message and hint.
#[tokio::test]
async fn the_playground_post_keeps_the_text_and_lists_the_problems() {
    let server = Server::start(Config::default()).await;
    let doc = "\n# Plan\n\n```single-choice\n{ \"version\": \"1\", \"question\": \"Which?\", \"options\": [\"A\"] }\n```\n";
    let r = server
        .post_form("/", &format!("markdown={}", urlencode(doc)), false)
        .await;
    assert_eq!(r.status, 200);
    let html = r.text();
    let escaped = doc.replace('"', "&quot;");
    let editor = &html[html.find("<textarea id=\"pbp-doc\"").expect("the editor")..];
    let text = &editor[editor.find('>').unwrap() + 1..editor.find("</textarea>").unwrap()];
    assert_eq!(text, format!("\n{escaped}"));
    assert!(
        html.contains("<strong>Violating</strong> · 1 component · 1 error"),
        "{html}"
    );
    assert!(html.contains("line 5, column 52"), "{html}");
    assert!(html.contains("Hint: "), "{html}");
    assert!(html.contains("too_few"), "{html}");
    server.stop().await;
}

/// The page links its own script, stylesheet and examples by content-hashed names, all served
/// immutable; its policy lets the script fetch from this server and nothing else.
#[tokio::test]
async fn the_playground_serves_its_assets_and_examples() {
    let server = Server::start(Config::default()).await;
    let page = server.get("/").await;
    let csp = page.header("content-security-policy").unwrap_or("");
    assert!(
        csp.starts_with("default-src 'none'; script-src 'self'; style-src 'self';")
            && csp.ends_with("; connect-src 'self'"),
        "{csp}"
    );
    let html = page.text();
    let linked = |prefix: &str| -> String {
        let at = html
            .find(prefix)
            .unwrap_or_else(|| panic!("{prefix} in {html}"));
        html[at..].split('"').next().unwrap().to_string()
    };
    for (prefix, content_type) in [
        ("/assets/playground-examples-", "application/json"),
        ("/assets/playground-", "text/css; charset=utf-8"),
    ] {
        let path = linked(prefix);
        let r = server.get(&path).await;
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.header("content-type"), Some(content_type), "{path}");
        assert!(
            r.header("cache-control")
                .unwrap_or("")
                .contains("immutable")
        );
    }
    let js = server.get(&linked("/assets/playground-")).await;
    assert_eq!(js.status, 200);
    let scripts: Vec<&str> = html
        .match_indices("<script src=\"")
        .map(|(i, _)| &html[i + 13..])
        .collect();
    assert!(
        scripts[0].starts_with("/assets/playground-")
            && scripts[1].starts_with("/assets/passback-")
    );
    let examples = server.get(&linked("/assets/playground-examples-")).await;
    let list: serde_json::Value = serde_json::from_slice(&examples.body).expect("examples JSON");
    let list = list.as_array().expect("a list");
    assert_eq!(list.len(), 10);
    assert_eq!(
        list[0]["markdown"],
        include_str!("../../examples/decision.md")
    );
    // An example by link, without JavaScript: loaded, rendered, marked current.
    let hebrew = server.get("/?example=hebrew").await;
    assert_eq!(hebrew.status, 200);
    let html = hebrew.text();
    assert!(html.contains("class=\"pb-doc\" dir=\"rtl\" lang=\"he\""));
    assert!(
        html.contains(
            "href=\"/?example=hebrew\" data-pbp-example=\"hebrew\" aria-current=\"page\""
        )
    );
    let unknown = server.get("/?example=nothing").await;
    assert_eq!(unknown.status, 200);
    assert!(!unknown.text().contains("class=\"pb-doc\""));
    server.stop().await;
}
