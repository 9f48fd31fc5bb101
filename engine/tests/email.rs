//! The email surface, checked the way a mail client would see it: parse every tag of the output
//! and reject anything that would run, post, or fetch.

use passback_engine::{Format, Options, Surface, render};
use std::fs;
use std::path::Path;

/// Every tag in `html` as (name, attributes). The engine escapes `<` in text, so each `<` that
/// starts a letter or `/` begins a tag.
fn tags(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        rest = &rest[lt + 1..];
        let Some(gt) = rest.find('>') else { break };
        let inner = &rest[..gt];
        rest = &rest[gt + 1..];
        if inner.starts_with('/') || inner.starts_with('!') {
            continue;
        }
        let name: String = inner
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        let mut attrs = Vec::new();
        let mut a = &inner[name.len()..];
        loop {
            a = a.trim_start().trim_start_matches('/');
            if a.is_empty() {
                break;
            }
            let key: String = a
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '=' && *c != '>')
                .collect();
            a = &a[key.len()..];
            let mut value = String::new();
            if let Some(r) = a.strip_prefix("=\"") {
                let end = r.find('"').unwrap_or(r.len());
                value = r[..end].to_string();
                a = &r[(end + 1).min(r.len())..];
            }
            if key.is_empty() {
                break;
            }
            attrs.push((key.to_ascii_lowercase(), value));
        }
        out.push((name, attrs));
    }
    out
}

const FORBIDDEN_TAGS: [&str; 13] = [
    "script", "style", "form", "input", "select", "textarea", "button", "iframe", "object",
    "embed", "link", "base", "frame",
];

fn check_email(name: &str, html: &str) {
    for (tag, attrs) in tags(html) {
        assert!(
            !FORBIDDEN_TAGS.contains(&tag.as_str()),
            "{name}: <{tag}> in an email"
        );
        if tag == "meta" {
            assert!(
                !attrs.iter().any(|(k, _)| k == "http-equiv"),
                "{name}: <meta http-equiv> in an email"
            );
        }
        for (key, value) in &attrs {
            assert!(
                !key.starts_with("on"),
                "{name}: event handler {key} on <{tag}>"
            );
            if key == "src" {
                assert!(
                    value.starts_with("data:image/png;base64,")
                        || value.starts_with("data:image/jpeg;base64,")
                        || value.starts_with("data:image/webp;base64,"),
                    "{name}: <{tag} src={value}> loads an external resource"
                );
            }
            if key == "href" {
                let v = value.to_ascii_lowercase();
                assert!(
                    v.starts_with("https://")
                        || v.starts_with("http://")
                        || v.starts_with("mailto:")
                        || v.is_empty(),
                    "{name}: <{tag} href={value}>"
                );
            }
            if key == "style" {
                assert!(
                    !value.to_ascii_lowercase().contains("url("),
                    "{name}: a style loads a resource: {value}"
                );
            }
        }
    }
}

fn documents() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut docs = Vec::new();
    for dir in [
        "fixtures/golden",
        "fixtures/conformance",
        "fixtures/answers",
    ] {
        let Ok(entries) = fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "md")
                && !p.to_string_lossy().ends_with(".expected.md")
            {
                docs.push((
                    p.display().to_string(),
                    fs::read_to_string(&p).unwrap_or_default(),
                ));
            }
        }
    }
    assert!(docs.len() > 100, "the corpus is there");
    docs
}

#[test]
fn email_output_never_runs_posts_or_fetches() {
    let options = Options::default()
        .with_surface(Surface::Email)
        .with_respond_url(Some("https://app.example/r/42".into()));
    for (name, doc) in documents() {
        let out = render(&doc, &options);
        check_email(&name, &out.html);
        check_email(
            &name,
            &render(&doc, &options.clone().with_format(Format::Page)).body,
        );
    }
}

#[test]
fn hostile_prose_stays_inert_in_email() {
    let doc = "<script>alert(1)</script>\n\n<img src=\"https://tracker.example/p.gif\" onerror=\"x()\">\n\n![pixel](https://tracker.example/p.gif) ![local](logo.png)\n\n<form action=\"https://e.x\"><input name=a></form>\n\n- [ ] task\n\n<p style=\"background:url(https://e.x/a.png)\">x</p>\n";
    let out = render(doc, &Options::default().with_surface(Surface::Email));
    check_email("hostile", &out.html);
    assert!(out.html.contains("☐"), "a task box becomes a glyph");
}

#[test]
fn respond_link_and_size_budget() {
    let doc =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../benches/load/doc-2k.md"))
            .expect("the 2 KB document");
    let options = Options::default()
        .with_surface(Surface::Email)
        .with_respond_url(Some("https://app.example/r/42".into()));
    let page = render(&doc, &options.clone().with_format(Format::Page)).body;
    assert!(page.contains("href=\"https://app.example/r/42\""));
    // Gmail clips messages over about 102 KB; a typical document must stay well under it.
    assert!(
        page.len() < 100 * 1024,
        "email page is {} bytes",
        page.len()
    );
    let text = render(&doc, &options.with_format(Format::Text)).body;
    assert!(text.contains("Respond: https://app.example/r/42"));
    assert!(
        text.contains("Q: Which auth method ships in v1?")
            && text.contains("( ) Magic link (Recommended)")
    );
    eprintln!(
        "email sizes for the 2 KB document: html {} bytes, text {} bytes",
        page.len(),
        text.len()
    );
    // A javascript: respond URL is never emitted.
    let bad = render(
        &doc,
        &Options::default()
            .with_surface(Surface::Email)
            .with_respond_url(Some("javascript:alert(1)".into())),
    );
    assert!(!bad.html.contains("javascript:"));
}
