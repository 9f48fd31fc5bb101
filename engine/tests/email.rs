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
                // Gmail blocks `data:` images: an image is a part of the message, an absolute
                // https image the image policy lets load, or nothing.
                assert!(
                    value.starts_with("cid:") || value.starts_with("https://"),
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
    // By default an https image loads in mail as on GitHub, sending no referrer; a relative one
    // cannot (the mail has no page around it) and is a link's words.
    assert!(
        out.html.contains("src=\"https://tracker.example/p.gif\"")
            && out.html.contains("referrerpolicy=\"no-referrer\"")
            && !out.html.contains("src=\"logo.png\"")
            && !out.html.contains("onerror"),
        "{}",
        out.html
    );
    // An operator who wants no image from the web in mail says same-origin; a message that
    // holds its own images (`cid:`) never loads one either.
    for options in [
        Options::default()
            .with_surface(Surface::Email)
            .with_images(passback_engine::ImagePolicy::SameOrigin),
        Options::default()
            .with_surface(Surface::Email)
            .with_cid_images(true),
    ] {
        let out = render(doc, &options);
        check_email("hostile, no images", &out.html);
        assert!(!out.html.contains("<img"), "{}", out.html);
    }
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

/// One element the email surface wrote: its name, attributes and inline CSS declarations.
struct Use {
    element: String,
    attrs: Vec<(String, String)>,
    css: Vec<(String, String)>,
}

/// Every element of every email rendering of the corpus (the page, with and without `cid:`
/// images and a Respond link).
fn inventory() -> Vec<Use> {
    let mut out = Vec::new();
    let options = Options::default()
        .with_surface(Surface::Email)
        .with_format(Format::Page)
        .with_respond_url(Some("https://app.example/r/1".into()));
    for (_, doc) in documents() {
        for o in [options.clone(), options.clone().with_cid_images(true)] {
            let html = render(&doc, &o).body().to_string();
            for (element, attrs) in tags(&html) {
                let css = attrs
                    .iter()
                    .filter(|(k, _)| k == "style")
                    .flat_map(|(_, v)| {
                        unescape(v)
                            .split(';')
                            .filter_map(|d| d.split_once(':'))
                            .map(|(p, v)| (p.trim().to_string(), v.trim().to_string()))
                            .collect::<Vec<_>>()
                    })
                    .collect();
                out.push(Use {
                    element,
                    attrs,
                    css,
                });
            }
        }
    }
    out
}

/// The caniemail feature an element, attribute or CSS property is tested as; `None` for what
/// every client keeps (plain inline text markup, hooks no client reads).
fn feature_of_element(e: &str) -> Option<&'static str> {
    Some(match e {
        "table" | "tr" | "td" | "th" | "thead" | "tbody" => "html-table",
        "p" => "html-p",
        "div" => "html-div",
        "span" => "html-span",
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => "html-h1-h6",
        "ul" | "ol" | "li" => "html-lists",
        "pre" => "html-pre",
        "code" => "html-code",
        "blockquote" => "html-blockquote",
        "strong" | "b" => "html-strong",
        "img" => "html-img",
        "hr" => "html-hr",
        "del" | "s" => "html-del",
        "style" => "html-style",
        "section" => "html-semantics",
        "body" => "html-body",
        _ => return None,
    })
}

fn feature_of_attribute(a: &str) -> Option<&'static str> {
    Some(match a {
        "role" => "html-role",
        "aria-hidden" => "html-aria-hidden",
        "aria-label" => "html-aria-label",
        "aria-labelledby" => "html-aria-labelledby",
        "aria-describedby" => "html-aria-describedby",
        "dir" => "html-dir",
        "lang" => "html-lang",
        "width" => "html-width",
        "height" => "html-height",
        "align" => "html-align",
        "valign" => "html-valign",
        "cellpadding" => "html-cellpadding",
        "cellspacing" => "html-cellspacing",
        _ => return None,
    })
}

fn feature_of_property(p: &str) -> Option<String> {
    Some(match p {
        // Text colour: every client keeps it (caniemail has no test of its own for it).
        "color" => return None,
        "padding-left" | "padding-right" | "padding-top" | "padding-bottom" => "css-padding".into(),
        "margin-left" | "margin-right" | "margin-top" | "margin-bottom" => "css-margin".into(),
        "border-left" | "border-right" | "border-top" | "border-bottom" => "css-border".into(),
        "background-color" => "css-background-color".into(),
        "font-family" => "css-font".into(),
        p => format!("css-{p}"),
    })
}

/// Email features used only for looks, whose loss in a client costs no content and no layout
/// (each with the reason it is safe).
const DECORATIVE: [(&str, &str); 12] = [
    (
        "html-aria-hidden",
        "hides ○/☐ glyphs from screen readers; read aloud they cost nothing",
    ),
    (
        "html-aria-label",
        "names the ▶ link; the caption link beside it names the video too",
    ),
    (
        "html-lists",
        "list spacing differs by client; every item's text is there",
    ),
    (
        "css-border-radius",
        "rounded corners; Outlook draws square ones",
    ),
    (
        "css-font",
        "the font stack ends in a generic family every client has",
    ),
    (
        "css-font-weight",
        "only 600 (bold) is written; Outlook rounds it to bold",
    ),
    (
        "css-text-decoration",
        "underline on links, which clients underline anyway",
    ),
    (
        "css-at-media-prefers-color-scheme",
        "the dark colours; the inline ones stand alone",
    ),
    (
        "html-style",
        "holds only the dark colours, in the head (Gmail's rule)",
    ),
    (
        "css-word-break",
        "long words wrap; the text is all there either way",
    ),
    (
        "css-white-space",
        "nowrap on a number, pre-wrap on code: the text is all there",
    ),
    (
        "css-line-height",
        "px and unitless line heights: spacing only",
    ),
];

type Check = fn(&[Use]) -> Result<(), String>;

fn uses<'a>(inv: &'a [Use], prop: &'a str) -> impl Iterator<Item = (&'a Use, &'a str)> + 'a {
    inv.iter().flat_map(move |u| {
        u.css
            .iter()
            .filter(move |(p, _)| p == prop || p.starts_with(&format!("{prop}-")))
            .map(move |(_, v)| (u, v.as_str()))
    })
}

fn only_on(inv: &[Use], prop: &str, elements: &[&str]) -> Result<(), String> {
    // A zero takes nothing away where it is ignored.
    match uses(inv, prop).find(|(u, v)| *v != "0" && !elements.contains(&u.element.as_str())) {
        Some((u, v)) => Err(format!("{prop}:{v} on <{}>", u.element)),
        None => Ok(()),
    }
}

/// A partial or missing support in a client, answered: the note (a part of its text, or "" for
/// a bare no) and a check of the inventory that shows the limit cannot cost content or layout.
const ANSWERS: [(&str, &str, Check); 24] = [
    ("css-background", "`/ value` shorthand", |inv| {
        match uses(inv, "background").find(|(_, v)| v.contains('/')) {
            Some((u, v)) => Err(format!("background {v} on <{}>", u.element)),
            None => Ok(()),
        }
    }),
    ("html-body", "", |inv| {
        // Gmail and Yahoo replace or drop <body>: nothing on it but a white background.
        match inv.iter().find(|u| {
            u.element == "body"
                && u.css
                    .iter()
                    .any(|(p, v)| !p.starts_with("background") && v != "0")
        }) {
            Some(u) => Err(format!("the body carries {:?}", u.css)),
            None => Ok(()),
        }
    }),
    ("html-dir", "Buggy on anchor", |inv| {
        match inv
            .iter()
            .find(|u| u.element == "a" && u.attrs.iter().any(|(k, _)| k == "dir"))
        {
            Some(_) => Err("dir on a link".into()),
            None => Ok(()),
        }
    }),
    (
        "html-height",
        "Percentage width on `<img>`",
        |inv| match inv.iter().find(|u| {
            u.element == "img"
                && u.attrs
                    .iter()
                    .any(|(k, v)| (k == "width" || k == "height") && v.contains('%'))
        }) {
            Some(_) => Err("a percentage size on an <img>".into()),
            None => Ok(()),
        },
    ),
    ("html-height", "don't scale in 120 dpi mode", |_| Ok(())),
    ("html-width", "don't scale in 120 dpi mode", |_| Ok(())),
    ("html-lang", "Not supported on `<td>`", |inv| {
        match inv
            .iter()
            .find(|u| u.element == "td" && u.attrs.iter().any(|(k, _)| k == "lang"))
        {
            Some(_) => Err("lang on a cell".into()),
            None => Ok(()),
        }
    }),
    ("css-padding", "Only supported on table cells", |inv| {
        // Inner spacing of code and quotes is all that pads anything but a cell.
        only_on(
            inv,
            "padding",
            &["td", "th", "pre", "blockquote", "ul", "ol"],
        )
    }),
    ("css-padding", "Vertical padding will be the same", |_| {
        Ok(())
    }),
    ("css-margin", "Negative values", |inv| {
        match uses(inv, "margin").find(|(_, v)| v.contains('-')) {
            Some((u, v)) => Err(format!("a negative margin {v} on <{}>", u.element)),
            None => Ok(()),
        }
    }),
    (
        "css-margin",
        "Not supported on `<span>` and `<body>`",
        |inv| match uses(inv, "margin").find(|(u, v)| {
            (u.element == "span" || u.element == "body")
                && v.chars().any(|c| c.is_ascii_digit() && c != '0')
        }) {
            Some((u, v)) => Err(format!("margin {v} on <{}>", u.element)),
            None => Ok(()),
        },
    ),
    (
        "css-margin",
        "`background-color` is included inside the `margin`",
        |inv| {
            // Backgrounds are on cells; nothing with a margin has one (but the body's 0).
            match inv.iter().find(|u| {
                let bg = u.css.iter().any(|(p, _)| p.starts_with("background"));
                let margin = u.css.iter().any(|(p, v)| {
                    p.starts_with("margin") && v.chars().any(|c| c.is_ascii_digit() && c != '0')
                });
                bg && margin
            }) {
                Some(u) => Err(format!(
                    "<{}> has both a margin and a background",
                    u.element
                )),
                None => Ok(()),
            }
        },
    ),
    ("css-margin", "`auto` value is not supported", |inv| {
        // Only the column centres with auto margins; Outlook's conditional table centres it.
        match uses(inv, "margin").find(|(u, v)| {
            v.contains("auto") && !u.attrs.iter().any(|(k, v)| k == "align" && v == "center")
        }) {
            Some((u, v)) => Err(format!(
                "margin {v} on <{}> without align=center",
                u.element
            )),
            None => Ok(()),
        }
    }),
    ("css-max-width", "Only works on `<table>`", |inv| {
        // The column is a table (and Outlook's conditional table fixes it at 600px); an image
        // also has a width attribute under 600px.
        match uses(inv, "max-width").find(|(u, _)| {
            u.element != "table"
                && !(u.element == "img"
                    && u.attrs
                        .iter()
                        .any(|(k, v)| k == "width" && v.parse::<u32>().is_ok_and(|w| w <= 584)))
        }) {
            Some((u, v)) => Err(format!("max-width {v} on <{}>", u.element)),
            None => Ok(()),
        }
    }),
    (
        "css-height",
        "Not supported on `<body>`, `<span>`, `<div>` or `<p>`",
        |inv| only_on(inv, "height", &["img", "td"]),
    ),
    ("css-height", "Replaces `height` by `min-height`", |inv| {
        // `height:auto` on images only: as a minimum it is the same.
        match uses(inv, "height").find(|(_, v)| *v != "auto") {
            Some((u, v)) => Err(format!("height {v} on <{}>", u.element)),
            None => Ok(()),
        }
    }),
    (
        "css-border",
        "A border can not be bigger than 8px",
        |inv| match uses(inv, "border").find(|(_, v)| {
            v.split_whitespace().any(|w| {
                w.strip_suffix("px")
                    .and_then(|n| n.parse::<u32>().ok())
                    .is_some_and(|n| n > 8)
            })
        }) {
            Some((u, v)) => Err(format!("border {v} on <{}>", u.element)),
            None => Ok(()),
        },
    ),
    (
        "css-border",
        "Unreliable if used on a `<p>` or a `<div>`",
        |inv| {
            only_on(
                inv,
                "border",
                &["td", "th", "pre", "blockquote", "img", "hr", "table"],
            )
        },
    ),
    (
        "css-background",
        "Only `background-color` values",
        |inv| match uses(inv, "background").find(|(_, v)| !v.starts_with('#')) {
            Some((u, v)) => Err(format!("background {v} on <{}>", u.element)),
            None => Ok(()),
        },
    ),
    ("css-background", "Does not support multiple values", |_| {
        Ok(())
    }),
    ("css-font-size", "`rem` values", |inv| {
        match uses(inv, "font-size").find(|(_, v)| v.contains("rem")) {
            Some((u, v)) => Err(format!("font-size {v} on <{}>", u.element)),
            None => Ok(()),
        }
    }),
    ("css-list-style", "", |inv| {
        // `list-style:none` on the read-only option lists, whose glyphs are text: if a client
        // drops it, a bullet appears beside the glyph, nothing is lost.
        match uses(inv, "list-style").find(|(_, v)| *v != "none") {
            Some((u, v)) => Err(format!("list-style {v} on <{}>", u.element)),
            None => Ok(()),
        }
    }),
    ("html-role", "Only works on the `<table>` tag", |inv| {
        // role="presentation" on layout tables is what matters; the sections' role="group"
        // only groups questions a heading already names.
        match inv.iter().find(|u| {
            u.attrs
                .iter()
                .any(|(k, v)| k == "role" && v == "presentation")
                && u.element != "table"
        }) {
            Some(u) => Err(format!("role=presentation on <{}>", u.element)),
            None => Ok(()),
        }
    }),
    (
        "html-width",
        "Percentage width on `<img>`",
        |inv| match inv.iter().find(|u| {
            u.element == "img"
                && u.attrs
                    .iter()
                    .any(|(k, v)| (k == "width" || k == "height") && v.contains('%'))
        }) {
            Some(_) => Err("a percentage size on an <img>".into()),
            None => Ok(()),
        },
    ),
];

/// Checked with the client-support table derived from caniemail (`fixtures/caniemail`): every
/// element, attribute and CSS property the email surface writes is either fully supported in
/// Gmail (web and apps), Outlook for Windows, Apple Mail and Yahoo, or decorative, or its
/// partial support is answered by a check that the limit costs no content or layout.
#[test]
fn every_email_feature_is_supported_where_it_carries_content_or_layout() {
    let table = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/caniemail/support.tsv"),
    )
    .expect("the support table");
    let mut support: std::collections::HashMap<&str, Vec<(String, &str, &str)>> =
        std::collections::HashMap::new();
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        let [feature, client, platform, _, result, notes] = f[..] else {
            continue;
        };
        if client == "outlook" && platform != "windows" {
            continue;
        }
        support
            .entry(feature)
            .or_default()
            .push((format!("{client} {platform}"), result, notes));
    }
    let inv = inventory();
    let mut features = std::collections::BTreeSet::new();
    for u in &inv {
        features.extend(feature_of_element(&u.element).map(String::from));
        features.extend(
            u.attrs
                .iter()
                .filter_map(|(k, _)| feature_of_attribute(k))
                .map(String::from),
        );
        features.extend(u.css.iter().filter_map(|(p, _)| feature_of_property(p)));
    }
    features.insert("css-at-media-prefers-color-scheme".into());
    let mut problems = Vec::new();
    for feature in &features {
        let Some(rows) = support.get(feature.as_str()) else {
            problems.push(format!(
                "{feature}: not in the caniemail table (map it to a feature)"
            ));
            continue;
        };
        if DECORATIVE.iter().any(|(f, _)| f == feature) {
            continue;
        }
        for (client, result, notes) in rows {
            if *result == "y" || *result == "u" {
                continue;
            }
            let notes: Vec<&str> = if notes.is_empty() {
                vec![""]
            } else {
                notes.split(" | ").collect()
            };
            for note in notes {
                let answer = ANSWERS
                    .iter()
                    .find(|(f, n, _)| f == feature && (n.is_empty() || note.contains(n)));
                match answer {
                    Some((_, _, check)) => {
                        if let Err(e) = check(&inv) {
                            problems.push(format!("{feature} in {client} ({note}): {e}"));
                        }
                    }
                    None => problems.push(format!(
                        "{feature} is '{result}' in {client}: {note:?} is not answered"
                    )),
                }
            }
        }
    }
    // No class nothing reads: each one the email writes is a hook of the contract or of the
    // dark-colours block.
    for u in &inv {
        for (k, v) in &u.attrs {
            if k == "class" {
                for c in v.split(' ') {
                    let known = [
                        "pb-doc",
                        "pb-block",
                        "pb-card",
                        "pb-respond",
                        "pb-badge",
                        "pb-body",
                        "pb-invalid",
                    ];
                    if !(known.contains(&c) || c.starts_with("pb-") && u.element == "table") {
                        problems.push(format!("class {c} on <{}> that nothing reads", u.element));
                    }
                }
            }
        }
    }
    problems.sort();
    problems.dedup();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn luminance(hex: &str) -> f64 {
    let channel = |i: usize| {
        let c = f64::from(u8::from_str_radix(&hex[i..i + 2], 16).expect("a hex colour")) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)
}

fn contrast(a: &str, b: &str) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

/// WCAG AA in the light colours the email writes inline: 4.5:1 for text on the card and the
/// page, 3:1 for the bars' track against the card and the filled bar (non-text contrast).
/// The colours are read from the output, so a change of colour is checked.
#[test]
fn email_colours_meet_aa_contrast() {
    let doc =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/decision.md"))
            .expect("the example");
    let html = render(
        &doc,
        &Options::default()
            .with_surface(Surface::Email)
            .with_respond_url(Some("https://app.example/r/1".into())),
    )
    .html;
    let card = "#f6f8fa";
    for (what, fg, bg) in [
        ("text", "#1f2328", card),
        ("muted text", "#57606a", card),
        ("links", "#0550ae", card),
        ("links on the page", "#0550ae", "#ffffff"),
        ("the badge", "#0a3069", "#ddf4ff"),
        ("the Respond button", "#ffffff", "#0969da"),
        ("the video panel", "#ffffff", "#24292f"),
    ] {
        assert!(
            html.contains(fg) && html.contains(bg),
            "{what}: {fg} on {bg} is not what the email writes"
        );
        let ratio = contrast(fg, bg);
        assert!(ratio >= 4.5, "{what}: {fg} on {bg} is {ratio:.2}:1");
    }
    let track = "#818b98";
    assert!(
        html.contains(&format!("bgcolor=\"{track}\"")),
        "the track's colour changed"
    );
    assert!(
        contrast(track, card) >= 3.0,
        "the track is {:.2}:1 on the card",
        contrast(track, card)
    );
    assert!(
        contrast("#0969da", card) >= 3.0,
        "the filled bar on the card"
    );
}

/// Past Gmail's 102 KB of HTML a warning states the size; the Respond link is then also the
/// first thing in the message, so clipping leaves the way to answer.
#[test]
fn an_email_gmail_would_clip_is_warned_about_and_still_answerable() {
    let block = "```single-choice\n{ \"version\": \"1\", \"question\": \"Which of these long options?\", \"options\": [\"An option with a long label that takes room\", \"Another option with a long label\"] }\n```\n\nSome prose between the questions, long enough to matter.\n\n";
    let doc = block.repeat(160);
    let options = Options::default()
        .with_surface(Surface::Email)
        .with_format(Format::Page)
        .with_respond_url(Some("https://app.example/r/9".into()));
    let out = render(&doc, &options);
    let size = out.body().len();
    assert!(
        size > passback_engine::GMAIL_CLIP_BYTES,
        "only {size} bytes"
    );
    let warning = out
        .diagnostics
        .iter()
        .find(|d| d.code == "email_clipped")
        .expect("a clipping warning");
    assert!(!warning.is_error());
    assert!(
        warning.message.contains(&size.to_string()),
        "{}",
        warning.message
    );
    let first_respond = out
        .body()
        .find("https://app.example/r/9")
        .expect("a Respond link");
    let first_block = out.body().find("data-pb-block=").expect("a block");
    assert!(first_respond < first_block && first_respond < 102 * 1024);
    // A small document is not warned about.
    let small = render("# Hi\n", &options);
    assert!(!small.diagnostics.iter().any(|d| d.code == "email_clipped"));
}

/// The clipping warning speaks of a Respond link only when the email has one: without a
/// Respond URL, or for a document of prose alone, there is none at the top to stay visible.
#[test]
fn a_clipping_warning_without_a_respond_link_does_not_promise_one() {
    let doc =
        "Prose long enough to be clipped by Gmail, repeated many times over.\n\n".repeat(2000);
    let options = Options::default()
        .with_surface(Surface::Email)
        .with_format(Format::Page);
    let out = render(&doc, &options);
    assert!(!out.body().contains("Respond"), "no Respond link expected");
    let warning = out
        .diagnostics
        .iter()
        .find(|d| d.code == "email_clipped")
        .expect("a clipping warning");
    assert!(!warning.message.contains("Respond"), "{}", warning.message);
    assert!(
        warning.message.contains("View entire message"),
        "{}",
        warning.message
    );
    // With a Respond URL the link is at the top, and the warning says it stays visible.
    let with_link = render(
        &doc,
        &options
            .clone()
            .with_respond_url(Some("https://app.example/r/9".into())),
    );
    let warning = with_link
        .diagnostics
        .iter()
        .find(|d| d.code == "email_clipped")
        .expect("a clipping warning");
    assert!(
        warning.message.contains("Respond link"),
        "{}",
        warning.message
    );
}

/// The email's plain-text part names the addresses its HTML part links: a relative link made
/// absolute against the link base, or, without one, left as its words (a relative path means
/// nothing in a mail). The page's text keeps the link as written.
#[test]
fn the_email_text_part_links_as_the_html_part_does() {
    let doc = "See [the guide](docs/guide.md), [the top](#top), [a site](https://example.com/x) \
               and [a script](javascript:alert(1)).\n";
    let text = |options: Options| {
        render(doc, &options.with_format(Format::Text))
            .body()
            .to_string()
    };
    let email = Options::default().with_surface(Surface::Email);
    let with_base = text(
        email
            .clone()
            .with_link_base_url(Some("https://docs.example/book/intro.html?v=1&x=2".into())),
    );
    assert!(
        with_base.contains("the guide (https://docs.example/book/docs/guide.md)"),
        "{with_base}"
    );
    assert!(
        with_base.contains("the top (https://docs.example/book/intro.html?v=1&x=2#top)"),
        "{with_base}"
    );
    assert!(
        with_base.contains("a site (https://example.com/x)"),
        "{with_base}"
    );
    assert!(!with_base.contains("javascript"), "{with_base}");
    let without = text(email);
    assert!(
        without.contains("See the guide, the top, a site (https://example.com/x)"),
        "{without}"
    );
    let page = text(Options::default());
    assert!(page.contains("the guide (docs/guide.md)"), "{page}");
}

/// A relative image in a mail loads from the link base when one is given, as the mail's links
/// do; without one it cannot load, and only its words are shown.
#[test]
fn a_relative_image_in_an_email_loads_from_the_link_base() {
    let doc = "![logo](img/logo.png) and ![raw](<img/raw.png>)\n\n<img src=\"img/html.png\" alt=\"html\">\n";
    let email = Options::default().with_surface(Surface::Email);
    let html = |options: &Options| render(doc, options).body().to_string();
    let based = html(
        &email
            .clone()
            .with_link_base_url(Some("https://docs.example/book/intro.html".into())),
    );
    for file in ["logo", "raw", "html"] {
        assert!(
            based.contains(&format!("src=\"https://docs.example/book/img/{file}.png\"")),
            "{file}: {based}"
        );
    }
    let without = html(&email);
    assert!(!without.contains("<img"), "{without}");
    assert!(without.contains("logo"), "{without}");
}

/// A compound selector of the dark-colours block: an element name (or none, or `*`), classes
/// and attributes that must be present.
struct Compound {
    element: Option<String>,
    classes: Vec<String>,
    attrs: Vec<String>,
}

/// An element on the way down to the one styled: its name, classes and attribute names.
struct Node {
    element: &'static str,
    classes: &'static [&'static str],
    attrs: &'static [&'static str],
}

fn compound(text: &str) -> Compound {
    let mut c = Compound {
        element: None,
        classes: Vec::new(),
        attrs: Vec::new(),
    };
    let mut rest = text;
    let name_end = rest.find(['.', '[']).unwrap_or(rest.len());
    if name_end > 0 && &rest[..name_end] != "*" {
        c.element = Some(rest[..name_end].to_string());
    }
    rest = &rest[name_end..];
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            c.classes.push(r[..end].to_string());
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']').expect("a closed attribute selector");
            c.attrs.push(r[..end].to_string());
            rest = &r[end + 1..];
        } else {
            panic!("a selector this test does not read: {text}");
        }
    }
    c
}

fn matches(c: &Compound, n: &Node) -> bool {
    c.element.as_deref().is_none_or(|e| e == n.element)
        && c.classes.iter().all(|k| n.classes.contains(&k.as_str()))
        && c.attrs.iter().all(|a| n.attrs.contains(&a.as_str()))
}

/// Whether the descendant selector `selector` matches the last of `path` (its ancestors before
/// it), and its specificity as (classes and attributes, elements).
fn selects(selector: &str, path: &[Node]) -> Option<(usize, usize)> {
    let parts: Vec<Compound> = selector.split_whitespace().map(compound).collect();
    let (last, before) = parts.split_last()?;
    let (element, ancestors) = path.split_last()?;
    if !matches(last, element) {
        return None;
    }
    let mut up = ancestors.iter().rev();
    for part in before.iter().rev() {
        up.find(|n| matches(part, n))?;
    }
    let classes = parts.iter().map(|c| c.classes.len() + c.attrs.len()).sum();
    let elements = parts.iter().filter(|c| c.element.is_some()).count();
    Some((classes, elements))
}

/// The `property` the dark block gives the last of `path`: of its `!important` declarations
/// that match, the most specific (the later one on a tie), following `inherit` up the path.
fn dark_value(css: &str, property: &str, path: &[Node]) -> Option<String> {
    let mut best: Option<((usize, usize), String)> = None;
    for rule in css.split('}') {
        let Some((selectors, body)) = rule.split_once('{') else {
            continue;
        };
        let Some(value) = body.split(';').find_map(|d| {
            let (p, v) = d.split_once(':')?;
            (p.trim() == property).then(|| v.trim().to_string())
        }) else {
            continue;
        };
        assert!(value.ends_with("!important"), "{selectors}: {value}");
        let value = value.trim_end_matches("!important").trim().to_string();
        for selector in selectors.split(',') {
            if let Some(s) = selects(selector.trim(), path)
                && best.as_ref().is_none_or(|(b, _)| s >= *b)
            {
                best = Some((s, value.clone()));
            }
        }
    }
    match best {
        Some((_, v)) if v == "inherit" => dark_value(css, property, &path[..path.len() - 1]),
        other => other.map(|(_, v)| v),
    }
}

/// In dark mode the Respond button keeps text a person can read (4.5:1), computed from the
/// dark-colours block the email page carries: the rule for links in the document must not win
/// over the button's own.
#[test]
fn the_respond_button_reads_in_dark_mode() {
    let html = render(
        "# Pick\n\n```single-choice\n{ \"version\": \"1\", \"question\": \"Which?\", \"options\": [\"A\", \"B\"] }\n```\n",
        &Options::default()
            .with_surface(Surface::Email)
            .with_format(Format::Page)
            .with_respond_url(Some("https://app.example/r/1".into())),
    )
    .into_body();
    assert!(html.contains("class=\"pb-respond\""), "no button: {html}");
    let start = html
        .find("prefers-color-scheme:dark){")
        .expect("a dark block")
        + "prefers-color-scheme:dark){".len();
    let css = &html[start..html[start..].find("</style>").expect("its end") + start];
    let css = css.trim_end_matches('}');
    let body = Node {
        element: "body",
        classes: &["pb-body"],
        attrs: &["class"],
    };
    let doc = Node {
        element: "div",
        classes: &["pb-doc"],
        attrs: &["class"],
    };
    let cell = Node {
        element: "td",
        classes: &["pb-respond"],
        attrs: &["class", "bgcolor"],
    };
    let link = Node {
        element: "a",
        classes: &[],
        attrs: &["href", "style"],
    };
    let path = [body, doc, cell, link];
    let fg = dark_value(css, "color", &path).expect("the button's text has a dark colour");
    let bg = dark_value(css, "background", &path[..3]).expect("the button has a dark colour");
    let ratio = contrast(&fg, &bg);
    assert!(
        ratio >= 4.5,
        "the Respond button in dark mode: {fg} on {bg} is {ratio:.2}:1"
    );
    // And an ordinary link in the text keeps the link colour, which reads on the dark page.
    let page_link = [
        Node {
            element: "body",
            classes: &["pb-body"],
            attrs: &["class"],
        },
        Node {
            element: "div",
            classes: &["pb-doc"],
            attrs: &["class"],
        },
        Node {
            element: "a",
            classes: &[],
            attrs: &["href"],
        },
    ];
    let link = dark_value(css, "color", &page_link).expect("links have a dark colour");
    let page = dark_value(css, "background", &page_link[..1]).expect("the page is dark");
    assert!(contrast(&link, &page) >= 4.5, "{link} on {page}");
}

/// Without a Respond link an email cannot be answered: its questions are a plain list, with no
/// empty circle, box or blank that looks like a control, and the render warns. With the link,
/// the glyphs say "answer by following it", and no warning.
#[test]
fn an_email_nobody_can_answer_shows_no_controls_and_warns() {
    let doc = "```questionnaire\n{ \"version\": \"1\", \"questions\": [\
               { \"id\": \"q1\", \"question\": \"Which?\", \"options\": [\"A\", \"B\"] },\
               { \"id\": \"q2\", \"question\": \"Which ones?\", \"options\": [\"C\", \"D\"], \"multi\": true },\
               { \"id\": \"q3\", \"question\": \"When?\", \"options\": [], \"open_field\": { \"label\": \"Date:\" } }] }\n```\n";
    let email = Options::default().with_surface(Surface::Email);
    let out = render(doc, &email);
    for glyph in ["○", "☐", "____"] {
        assert!(!out.html.contains(glyph), "{glyph} in {}", out.html);
    }
    for option in ["A", "B", "C", "D"] {
        assert!(
            out.html.contains(&format!(">{option}</li>")),
            "{}",
            out.html
        );
    }
    let warned: Vec<_> = out
        .diagnostics
        .iter()
        .filter(|d| d.code == "email_unanswerable")
        .collect();
    assert_eq!(warned.len(), 1, "{:?}", out.diagnostics);
    assert_eq!((warned[0].line, warned[0].severity.name()), (1, "warning"));
    assert!(
        warned[0].hint.contains("--respond-url"),
        "{}",
        warned[0].hint
    );

    let out = render(
        doc,
        &email
            .clone()
            .with_respond_url(Some("https://app.example/r/1".into())),
    );
    assert!(
        out.html.contains("○") && out.html.contains("☐"),
        "{}",
        out.html
    );
    assert!(
        out.diagnostics
            .iter()
            .all(|d| d.code != "email_unanswerable"),
        "{:?}",
        out.diagnostics
    );
    // A document with nothing to answer is no cause for a warning, and the page surface never
    // warns.
    let diagram = "```mermaid\n{ \"version\": \"1\", \"source\": \"graph TD\\nA --> B\" }\n```\n";
    assert!(render(diagram, &email).diagnostics.is_empty());
    assert!(render(doc, &Options::default()).diagnostics.is_empty());
}
