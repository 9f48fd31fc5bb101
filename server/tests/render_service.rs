//! The render service alone: the build without the default features (`cargo test -p
//! passback-server --no-default-features`) answers render, validate, answers, schema, health and
//! metrics, and has nothing of the store, the MCP tools, the playground or PNG drawing: their
//! paths answer 404 like any unknown one, and the command line has neither `passback mcp` nor
//! the store's flags.
#![cfg(not(any(
    feature = "store",
    feature = "mcp",
    feature = "png",
    feature = "playground"
)))]

mod common;

use common::Server;
use passback_server::Config;

const DOC: &str = "# Plan\n\n```single-choice\n{ \"version\": \"1\", \"question\": \"Which auth method?\", \"options\": [\"PIN\", \"Magic link\"] }\n```\n\n```mermaid\n{ \"version\": \"1\", \"source\": \"graph TD; A[Paste] --> B[Review]\", \"title\": \"Loop\" }\n```\n";

/// The routes of this build, as (pattern, methods).
const ROUTES: &[(&str, &str)] = &[
    ("/healthz", "GET"),
    ("/metrics", "GET"),
    ("/v1/schema.json", "GET"),
    ("/v1/openapi.yaml", "GET"),
    ("/v1/render", "POST"),
    ("/v1/validate", "POST"),
    ("/v1/answers", "POST"),
    ("/v1/render/{hash}", "GET"),
    ("/v1/diagrams/{name}", "GET"),
    ("/assets/{name}", "GET"),
];

#[tokio::test]
async fn the_render_service_answers_its_routes_and_nothing_else() {
    let compiled: Vec<(&str, &str)> = passback_server::http::routes::TABLE
        .iter()
        .map(|route| (route.pattern, route.methods))
        .collect();
    assert_eq!(compiled, ROUTES);
    let server =
        Server::start(Config::default().with_public_url(Some("https://render.example".into())))
            .await;

    let rendered = server.post_as("/v1/render", "text/markdown", DOC).await;
    assert_eq!(rendered.status, 200, "{}", rendered.text());
    assert!(rendered.text().contains("pb-single-choice"));
    let location = rendered.header("content-location").expect("a location");
    assert_eq!(server.get(location).await.status, 200);
    let validated = server.post_as("/v1/validate", "text/markdown", DOC).await;
    assert_eq!(validated.status, 200);
    assert_eq!(validated.json()["ok"], true);
    let answers = serde_json::json!({ "markdown": DOC, "responses": { "b1": { "selected": ["Magic link"] } } });
    let answered = server
        .post_as("/v1/answers", "application/json", answers.to_string())
        .await;
    assert_eq!(answered.status, 200, "{}", answered.text());
    assert!(answered.text().contains("Answer: Magic link"));
    for path in [
        "/v1/schema.json",
        "/v1/openapi.yaml",
        "/healthz",
        "/metrics",
    ] {
        assert_eq!(server.get(path).await.status, 200, "{path}");
    }
    let css = format!("/assets/{}", passback_engine::assets::css_name());
    assert_eq!(server.get(&css).await.status, 200);

    // An email preview links its diagram; the SVG is served, the PNG cannot be drawn here.
    let email = server.post("/v1/render?surface=email", DOC).await.text();
    let key = email
        .split("src=\"https://render.example/v1/diagrams/")
        .nth(1)
        .and_then(|r| r.split('.').next())
        .expect("a diagram link");
    let svg = server.get(&format!("/v1/diagrams/{key}.svg")).await;
    assert_eq!(svg.status, 200);
    let png = server.get(&format!("/v1/diagrams/{key}.png")).await;
    assert_eq!(png.status, 503);
    assert!(png.problem_detail().contains("without the png feature"));

    // The routes of the features left out are not there: 404, as for any unknown path, and
    // the 404 points to the API only.
    for (method, path) in [
        ("POST", "/v1/documents"),
        ("GET", "/v1/documents/AAAAAAAAAAAAAAAAAAAAAA"),
        ("GET", "/v1/documents/AAAAAAAAAAAAAAAAAAAAAA/responses"),
        ("GET", "/r/AAAAAAAAAAAAAAAAAAAAAA"),
        ("POST", "/r/AAAAAAAAAAAAAAAAAAAAAA/responses"),
        ("POST", "/mcp"),
        ("GET", "/"),
        ("POST", "/"),
        ("GET", "/?example=hebrew"),
    ] {
        let r = server
            .send(method, path, &[("content-type", "text/markdown")], DOC)
            .await;
        assert_eq!(r.status, 404, "{method} {path}");
        assert_eq!(
            r.header("content-type"),
            Some("application/problem+json"),
            "{method} {path}"
        );
        let detail = r.problem_detail();
        assert!(
            detail.ends_with("; see GET /v1/openapi.yaml for the API.")
                && !detail.contains("playground"),
            "{detail}"
        );
    }
    server.stop().await;
}

#[test]
fn the_command_line_has_neither_mcp_nor_the_store() {
    let help = common::passback()
        .arg("--help")
        .output()
        .expect("passback runs");
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("passback serve") && help.contains("passback render"));
    assert!(!help.contains("passback mcp"), "{help}");

    let mcp = common::passback()
        .arg("mcp")
        .output()
        .expect("passback runs");
    assert_eq!(mcp.status.code(), Some(2));
    let said = String::from_utf8_lossy(&mcp.stderr);
    assert!(said.contains("unknown command `mcp`"), "{said}");

    let serve = common::passback()
        .args(["serve", "--help"])
        .output()
        .expect("passback runs");
    let serve = String::from_utf8_lossy(&serve.stdout);
    assert!(serve.contains("--listen"), "{serve}");
    for flag in ["--store", "--retention", "--max-responses", "--route-limit"] {
        assert!(!serve.contains(flag), "{flag} in {serve}");
    }
    let store = common::passback()
        .args(["serve", "--store", "off"])
        .output()
        .expect("passback runs");
    assert_eq!(store.status.code(), Some(2));
    let said = String::from_utf8_lossy(&store.stderr);
    assert!(
        said.contains("unknown option --store for `serve`"),
        "{said}"
    );
}

/// The binary itself starts and serves, with no store to open.
#[test]
fn the_binary_serves_renders() {
    let served = common::serve(&[]);
    assert_eq!(served.get("/healthz").status, 200);
    assert_eq!(served.get("/v1/documents").status, 404);
}
