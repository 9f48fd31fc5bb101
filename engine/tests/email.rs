//! The email surface, checked the way a mail client would see it: parse every tag of the output
//! and reject anything that would run, post, or fetch.

mod common;

use common::tags;
use passback_engine::{Format, Options, Surface, render};
use std::fs;
use std::path::Path;

const FORBIDDEN_TAGS: [&str; 13] = [
    "script", "style", "form", "input", "select", "textarea", "button", "iframe", "object",
    "embed", "link", "base", "frame",
];

fn check_email(name: &str, html: &str) {
    // A link shows words or an image with a text alternative, or says in words what it does.
    for (at, _) in html.match_indices("<a ") {
        let open_end = at + html[at..].find('>').expect("a closed tag");
        let close = open_end + html[open_end..].find("</a>").expect("a closed link");
        let inner = &html[open_end + 1..close];
        let words: String = {
            let mut out = String::new();
            let mut in_tag = false;
            for c in inner.chars() {
                match c {
                    '<' => in_tag = true,
                    '>' => in_tag = false,
                    c if !in_tag => out.push(c),
                    _ => {}
                }
            }
            out
        };
        let named = html[at..open_end].contains(" aria-label=")
            || inner.contains(" alt=\"") && !inner.contains(" alt=\"\"");
        assert!(
            named || words.chars().any(char::is_alphanumeric),
            "{name}: a link with no words: {}",
            &html[at..close]
        );
    }
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
                // Outlook and Gmail ignore logical properties (margin-inline-start…).
                for logical in ["-inline-", "-block-", "inset-inline", "inset-block"] {
                    assert!(
                        !value.contains(logical),
                        "{name}: a logical property mail clients ignore: {value}"
                    );
                }
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
            render(&doc, &options.clone().with_format(Format::Page)).body(),
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
    let page = render(&doc, &options.clone().with_format(Format::Page))
        .body()
        .to_string();
    assert!(page.contains("href=\"https://app.example/r/42\""));
    // Gmail clips messages over about 102 KB; a typical document must stay well under it.
    assert!(
        page.len() < 100 * 1024,
        "email page is {} bytes",
        page.len()
    );
    let text = render(&doc, &options.with_format(Format::Text))
        .body()
        .to_string();
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
    // Nor anything else a mail cannot follow: relative, mail, host-less, or broken by a space.
    for url in [
        "/r/42",
        "mailto:a@b.example",
        "https://",
        "https:///r",
        "https://app.example/a b",
    ] {
        assert!(!passback_engine::is_respond_url(url), "{url}");
    }
    for url in ["https://app.example", "http://app.example:8080/r/42?x=1#y"] {
        assert!(passback_engine::is_respond_url(url), "{url}");
    }
}
