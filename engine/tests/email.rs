//! The email surface, checked the way a mail client would see it: parse every tag of the output
//! and reject anything that would run, post, or fetch.

mod common;

use common::tags;
use passback_engine::{Format, Options, Surface, render};
use std::fs;
use std::path::Path;

const FORBIDDEN_TAGS: [&str; 12] = [
    "script", "form", "input", "select", "textarea", "button", "iframe", "object", "embed", "link",
    "base", "frame",
];

fn check_email(name: &str, html: &str) {
    // One `<style>` block, in the page's head, holding dark colours only.
    let styles = html.matches("<style").count();
    assert!(styles <= 1, "{name}: {styles} style blocks");
    if let Some(at) = html.find("<style>") {
        let head_end = html.find("</head>").expect("a head");
        assert!(at < head_end, "{name}: a style block outside the head");
        let css = &html[at + 7..html[at..].find("</style>").expect("closed") + at];
        assert!(
            css.starts_with("@media (prefers-color-scheme:dark){") && !css.contains("url("),
            "{name}: the style block does more than dark colours: {css}"
        );
    }
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
                // Gmail blocks `data:` images: an image is a part of the message or nothing.
                assert!(
                    value.starts_with("cid:"),
                    "{name}: <{tag} src={value}> is not a part of the message"
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
        "fixtures/email",
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

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Whitespace runs as one space, lower case: the text part upper-cases titles and wraps nothing.
fn norm(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

const VOID: [&str; 12] = [
    "input", "img", "br", "hr", "meta", "link", "wbr", "col", "area", "base", "source", "track",
];

/// The text nodes of `html`, unescaped, leaving out what is inside an element named in
/// `skip_tags` or carrying a class in `skip_classes`.
fn text_nodes(html: &str, skip_tags: &[&str], skip_classes: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack: Vec<(String, bool)> = Vec::new();
    let mut rest = html;
    while !rest.is_empty() {
        let lt = rest.find('<').unwrap_or(rest.len());
        let skipping = stack.last().is_some_and(|(_, s)| *s);
        if lt > 0 && !skipping {
            out.push(unescape(&rest[..lt]));
        }
        rest = &rest[lt..];
        if rest.is_empty() {
            break;
        }
        if let Some(after) = rest.strip_prefix("<!--") {
            rest = after.find("-->").map_or("", |e| &after[e + 3..]);
            continue;
        }
        let gt = rest.find('>').unwrap_or(rest.len() - 1);
        let tag = &rest[1..gt];
        rest = &rest[gt + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let name = name.trim().to_ascii_lowercase();
            if let Some(at) = stack.iter().rposition(|(n, _)| *n == name) {
                stack.truncate(at);
            }
            continue;
        }
        if tag.starts_with('!') {
            continue;
        }
        let name: String = tag
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        if tag.ends_with('/') || VOID.contains(&name.as_str()) {
            continue;
        }
        let classes = tag
            .split(" class=\"")
            .nth(1)
            .and_then(|c| c.split('"').next())
            .unwrap_or("");
        let skip = skipping
            || skip_tags.contains(&name.as_str())
            || classes.split(' ').any(|c| skip_classes.contains(&c));
        stack.push((name, skip));
    }
    out
}

/// Every string value of every component fence's JSON: what an author wrote.
fn authored_strings(src: &str) -> Vec<String> {
    fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(s) => out.push(s.clone()),
            serde_json::Value::Array(a) => a.iter().for_each(|v| walk(v, out)),
            serde_json::Value::Object(o) => o.values().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for chunk in src.split("```").skip(1).step_by(2) {
        let body = chunk.split_once('\n').map_or("", |(_, b)| b);
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
            walk(&v, &mut out);
        }
    }
    out
}

/// Nothing dropped: every authored string the page surface shows (a text node of the page that
/// the document spells) is in the email HTML's text and in the text part.
#[test]
fn every_authored_string_the_page_shows_is_in_the_email_and_its_text_part() {
    let mut checked = 0;
    let mut missing = Vec::new();
    for (name, doc) in documents() {
        let page = render(&doc, &Options::default()).html;
        let email = Options::default()
            .with_surface(Surface::Email)
            .with_respond_url(Some("https://app.example/r/1".into()));
        let html = render(&doc, &email).html;
        let text = norm(render(&doc, &email.with_format(Format::Text)).body());
        let email_text = norm(&text_nodes(&html, &["style", "title"], &[]).join(" "));
        let authored = authored_strings(&doc);
        let page_strings = text_nodes(
            &page,
            &[
                "script", "style", "title", "desc", "textarea", "select", "button", "summary",
            ],
            // The diagram's source and its comment fields are the page's own tools; the
            // email shows the diagram in words (checked by the diagram's labels).
            &[
                "pb-diagram-source",
                "pb-diagram-parts",
                "pb-note",
                "pb-visually-hidden",
            ],
        );
        for s in page_strings {
            let s = s.trim();
            if !s.chars().any(char::is_alphanumeric) {
                continue;
            }
            if !doc.contains(s) && !authored.iter().any(|a| a.contains(s)) {
                continue;
            }
            checked += 1;
            let n = norm(s);
            if !email_text.contains(&n) {
                missing.push(format!("{name}: email HTML lacks {s:?}"));
            }
            if !text.contains(&n) {
                missing.push(format!("{name}: text part lacks {s:?}"));
            }
        }
    }
    assert!(checked > 800, "only {checked} strings compared");
    assert!(
        missing.is_empty(),
        "{} strings dropped:\n{}",
        missing.len(),
        missing[..missing.len().min(40)].join("\n")
    );
}
