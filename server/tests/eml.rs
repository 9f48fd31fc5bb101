//! `--format eml` and `format=eml`, read back by an independent MIME parser (`mail-parser`):
//! the structure contract §8 names, the headers, and every `cid:` of the HTML resolving to an
//! image part of the message.

mod common;

use common::http::call;
use mail_parser::{MessageParser, MimeHeaders, PartType};
use std::path::Path;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The documents: the golden fixtures, the spec's worked examples, the example in Hebrew.
fn documents() -> Vec<std::path::PathBuf> {
    let mut docs = vec![root().join("examples/decision.md")];
    for dir in ["fixtures/golden", "fixtures/email"] {
        for e in std::fs::read_dir(root().join(dir))
            .expect("the fixtures")
            .flatten()
        {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "md") && !p.ends_with("README.md") {
                docs.push(p);
            }
        }
    }
    docs.sort();
    docs
}

/// Checks one message; returns how many images it carries.
fn check_message(name: &str, bytes: &[u8]) -> usize {
    let message = MessageParser::default()
        .parse(bytes)
        .unwrap_or_else(|| panic!("{name}: not a MIME message"));
    assert!(
        message.subject().is_some_and(|s| !s.trim().is_empty()),
        "{name}: no Subject"
    );
    assert!(
        message.from().is_none() && message.to().is_none(),
        "{name}: From/To"
    );
    assert!(
        message.date().is_none(),
        "{name}: a Date the sender should set"
    );
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(400)]).to_string();
    assert!(head.contains("MIME-Version: 1.0"), "{name}: {head}");
    let top = message.root_part();
    assert!(
        top.is_content_type("multipart", "alternative"),
        "{name}: the top part is {:?}",
        top.content_type()
    );
    let PartType::Multipart(children) = &top.body else {
        panic!("{name}: the top part has no parts");
    };
    assert_eq!(children.len(), 2, "{name}: text and related");
    let text = &message.parts[children[0] as usize];
    assert!(text.is_content_type("text", "plain"), "{name}");
    let related = &message.parts[children[1] as usize];
    assert!(related.is_content_type("multipart", "related"), "{name}");
    let PartType::Multipart(inside) = &related.body else {
        panic!("{name}: the related part has no parts");
    };
    let html_part = &message.parts[inside[0] as usize];
    let PartType::Html(html) = &html_part.body else {
        panic!("{name}: the related part does not start with HTML");
    };
    let images: Vec<(String, &[u8], String)> = inside[1..]
        .iter()
        .map(|&i| {
            let p = &message.parts[i as usize];
            let ct = p.content_type().expect("a content type");
            (
                p.content_id().expect("a Content-ID").to_string(),
                p.contents(),
                format!("{}/{}", ct.c_type, ct.c_subtype.as_deref().unwrap_or("")),
            )
        })
        .collect();
    // Every cid: in the HTML names an image part; every image part is used.
    let mut used = 0;
    for piece in html.split("src=\"cid:").skip(1) {
        let cid = piece.split('"').next().expect("a quoted src");
        let (_, data, kind) = images
            .iter()
            .find(|(id, _, _)| id == cid)
            .unwrap_or_else(|| panic!("{name}: cid:{cid} resolves to no part"));
        match kind.as_str() {
            "image/png" => assert!(data.starts_with(b"\x89PNG"), "{name}: {cid} is no PNG"),
            "image/jpeg" => assert!(data.starts_with(&[0xFF, 0xD8, 0xFF]), "{name}: {cid}"),
            other => assert_eq!(other, "image/webp", "{name}: {cid}"),
        }
        used += 1;
    }
    assert_eq!(used, images.len(), "{name}: an image part no cid: uses");
    assert!(!html.contains("<svg"), "{name}: inline SVG in a mail");
    assert!(!html.contains("src=\"data:"), "{name}: a data: image");
    images.len()
}

#[test]
fn the_cli_writes_a_message_every_parser_reads_with_every_image_inside() {
    let mut images = 0;
    let mut drawn_diagrams = 0;
    for doc in documents() {
        let out = common::passback()
            .args(["render", "--surface", "email", "--format", "eml"])
            .args(["--respond-url", "https://app.example/r/1"])
            .arg(&doc)
            .output()
            .expect("passback runs");
        let name = doc.display().to_string();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let n = check_message(&name, &out.stdout);
        images += n;
        if std::fs::read_to_string(&doc).is_ok_and(|s| s.contains("mermaid") && n > 0) {
            drawn_diagrams += 1;
        }
    }
    assert!(
        images >= 5 && drawn_diagrams >= 3,
        "{images} images, {drawn_diagrams} diagrams"
    );
}

#[test]
fn the_subject_is_the_title_and_the_hebrew_text_part_reads_right_to_left() {
    let doc = root().join("fixtures/email/decision.he.md");
    let out = common::passback()
        .args(["render", "--surface", "email", "--format", "eml"])
        .arg(&doc)
        .output()
        .expect("passback runs");
    let message = MessageParser::default()
        .parse(&out.stdout)
        .expect("a message");
    assert_eq!(message.subject(), Some("מעבר הוויקי של הצוות"));
    let text = message.body_text(0).expect("a text part");
    assert!(text.contains("ש: לאיזה ויקי עוברים?"), "{text}");
    assert!(!text.contains("Q: "), "{text}");
    assert!(
        text.contains("המחצית שאינה מעודכנת") && text.contains("גיבוי לילי"),
        "{text}"
    );
    // No line of the text part starts with a left-to-right letter: each keeps its direction.
    for line in text.lines() {
        let first = line.chars().find(|c| c.is_alphabetic());
        assert!(
            first.is_none_or(|c| !c.is_ascii_alphabetic()) || line.contains("http"),
            "a left-to-right line: {line:?}"
        );
    }
}

#[test]
fn the_server_answers_format_eml_as_message_rfc822() {
    let served = common::serve(&[]);
    let doc = std::fs::read(root().join("examples/decision.md")).expect("the example");
    let markdown = [("content-type", "text/markdown")];
    let path = "/v1/render?surface=email&format=eml";
    let reply = call(&served.addr, "POST", path, &markdown, &doc);
    assert_eq!(reply.status, 200, "{}", reply.text());
    let content_type = reply.header("content-type").unwrap_or("");
    assert!(
        content_type
            .to_ascii_lowercase()
            .starts_with("message/rfc822"),
        "{content_type}"
    );
    assert!(check_message("POST /v1/render eml", &reply.body) >= 1);
    // eml needs the email surface.
    let reply = call(
        &served.addr,
        "POST",
        "/v1/render?format=eml",
        &markdown,
        "# Hi",
    );
    assert!(
        reply.status == 400 && reply.text().contains("surface=email"),
        "{}",
        reply.text()
    );
}
