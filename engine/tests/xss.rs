//! The XSS corpus (`fixtures/xss/`), checked statically on every surface: parse every tag of the
//! output and reject script, event handlers, dangerous URLs, inline styles where the CSP forbids
//! them, and any element outside the allowlist. (The browser half of the check is
//! tests/browser/xss.test.mjs.)

mod common;

use common::tags;
use passback_engine::{Format, ImagePolicy, Options, Surface, render};
use std::fs;
use std::path::Path;

const ALLOWED: &[&str] = &[
    "html",
    "head",
    "body",
    "main",
    "meta",
    "title",
    "link",
    "div",
    "section",
    "form",
    "button",
    "input",
    "select",
    "option",
    "textarea",
    "label",
    "fieldset",
    "legend",
    "details",
    "summary",
    "span",
    "p",
    "strong",
    "em",
    "a",
    "ul",
    "ol",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "pre",
    "code",
    "blockquote",
    "hr",
    "br",
    "img",
    "del",
    "sup",
    "sub",
    "figure",
    "figcaption",
    "meter",
    "output",
    "small",
    "b",
    "i",
    "s",
    "strike",
    "ins",
    "kbd",
    "q",
    "abbr",
    "dl",
    "dt",
    "dd",
    "svg",
    "g",
    "rect",
    "circle",
    "ellipse",
    "path",
    "polygon",
    "polyline",
    "line",
    "text",
    "tspan",
    "desc",
    "defs",
    "marker",
    "script",
];

const URL_ATTRIBUTES: &[&str] = &[
    "href",
    "src",
    "action",
    "formaction",
    "xlink:href",
    "data",
    "poster",
    "background",
    "cite",
    "srcdoc",
    "srcset",
];

/// `web_images`: the rendering's image policy lets https images load (the default), so an
/// image may come from an absolute `https://` address, and from nothing else off the page.
fn safe_url(tag: &str, key: &str, value: &str, web_images: bool) -> bool {
    // The browser decodes character references in attributes and ignores whitespace and control
    // characters in a scheme: do the same before looking at it.
    let decoded = decode_references(value);
    let v: String = decoded
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .collect::<String>()
        .to_ascii_lowercase();
    let same_origin = |v: &str| {
        let v = v.replace('\\', "/");
        !v.contains(':') && !v.starts_with("//")
    };
    if key == "srcset" && matches!(tag, "img" | "source") {
        return v.split(',').all(|candidate| {
            let url = candidate.split_whitespace().next().unwrap_or("");
            same_origin(url) || (web_images && url.starts_with("https://"))
        });
    }
    if web_images && key == "src" && tag == "img" && v.starts_with("https://") {
        return true;
    }
    if key == "src" && tag == "img" {
        return [
            "data:image/png;base64,",
            "data:image/jpeg;base64,",
            "data:image/webp;base64,",
        ]
        .iter()
        .any(|p| v.starts_with(p))
            || same_origin(&v);
    }
    if key == "src" && tag == "script" {
        return v.starts_with("/assets/passback-") && v.ends_with(".js");
    }
    match v.split_once(':') {
        None => true,
        Some((scheme, _))
            if scheme.contains('/') || scheme.contains('?') || scheme.contains('#') =>
        {
            true
        }
        Some((scheme, _)) => matches!(scheme, "http" | "https" | "mailto"),
    }
}

/// Decodes `&#NN;`, `&#xNN;`, `&amp;`, `&colon;`, `&quot;`, `&lt;`, `&gt;`.
fn decode_references(value: &str) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let end = rest.find(';').filter(|e| *e <= 10);
        let decoded = end.and_then(|e| {
            let body = &rest[1..e];
            let c = if let Some(hex) = body.strip_prefix("#x").or_else(|| body.strip_prefix("#X")) {
                u32::from_str_radix(hex, 16).ok().and_then(char::from_u32)
            } else if let Some(dec) = body.strip_prefix('#') {
                dec.parse().ok().and_then(char::from_u32)
            } else {
                match body {
                    "amp" => Some('&'),
                    "colon" => Some(':'),
                    "quot" => Some('"'),
                    "lt" => Some('<'),
                    "gt" => Some('>'),
                    _ => None,
                }
            };
            c.map(|c| (c, e))
        });
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn check(name: &str, surface: Surface, html: &str, web_images: bool) -> Vec<String> {
    let mut problems = Vec::new();
    for (tag, attrs) in tags(html) {
        // The email page's one dark-colours block is the engine's own (tests/email.rs checks it).
        let own_style = tag == "style" && surface == Surface::Email;
        if !ALLOWED.contains(&tag.as_str()) && !own_style {
            problems.push(format!("<{tag}> is not an allowed element"));
        }
        if tag == "script" && !attrs.iter().any(|(k, _)| k == "src") {
            problems.push("an inline <script>".into());
        }
        if tag == "meta" && attrs.iter().any(|(k, _)| k == "http-equiv") {
            problems.push("<meta http-equiv>".into());
        }
        if tag == "link"
            && !attrs
                .iter()
                .any(|(k, v)| k == "href" && v.starts_with("/assets/passback-"))
        {
            problems.push("a <link> to something other than the stylesheet".into());
        }
        // An image from the web never learns which page it is on.
        let off_page = attrs
            .iter()
            .any(|(k, v)| (k == "src" || k == "srcset") && v.contains("https://"));
        if tag == "img"
            && off_page
            && !attrs
                .iter()
                .any(|(k, v)| k == "referrerpolicy" && v == "no-referrer")
        {
            problems.push("an image from the web that sends a referrer".into());
        }
        for (key, value) in &attrs {
            if key.starts_with("on") {
                problems.push(format!("event handler {key} on <{tag}>"));
            }
            if URL_ATTRIBUTES.contains(&key.as_str()) && !safe_url(&tag, key, value, web_images) {
                problems.push(format!("<{tag} {key}=\"{value}\">"));
            }
            if key == "style" {
                if surface != Surface::Email {
                    problems.push(format!("style= on <{tag}> breaks the page CSP"));
                } else if value.to_ascii_lowercase().contains("url(")
                    || value.to_ascii_lowercase().contains("expression(")
                {
                    problems.push(format!("a style that loads or runs: {value}"));
                }
            }
        }
    }
    problems
        .into_iter()
        .map(|p| format!("{name} ({}): {p}", surface.name()))
        .collect()
}

#[test]
fn no_vector_gets_script_or_a_dangerous_url_into_any_surface() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/xss");
    let mut vectors: Vec<_> = fs::read_dir(&dir)
        .expect("fixtures/xss")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    vectors.sort();
    assert!(
        vectors.len() >= 60,
        "the corpus has {} vectors",
        vectors.len()
    );
    let mut problems = Vec::new();
    for path in &vectors {
        let name = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let doc = fs::read_to_string(path).expect("readable vector");
        for surface in [Surface::Page, Surface::Routed, Surface::Email] {
            for format in [Format::Fragment, Format::Page] {
                // The default policy (https images from anywhere), and the strictest: only the
                // page's own.
                for (policy, web) in [(ImagePolicy::Https, true), (ImagePolicy::SameOrigin, false)]
                {
                    let out = render(
                        &doc,
                        &Options::default()
                            .with_surface(surface)
                            .with_format(format)
                            .with_images(policy),
                    );
                    problems.extend(check(&name, surface, out.body(), web));
                }
            }
            let text = render(
                &doc,
                &Options::default()
                    .with_surface(surface)
                    .with_format(Format::Json),
            )
            .body()
            .to_string();
            assert!(
                !text.contains("</script"),
                "{name}: </script> inside JSON output"
            );
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_checker_catches_what_it_looks_for() {
    // The static check must be able to fail: feed it the things it rejects.
    let bad = "<script>x</script><a href=\"javascript:x\">a</a><p onclick=\"x\">p</p><iframe src=\"https://e.x\"></iframe><img src=\"https://t.x/p.gif\"><a href=\"&#106;avascript:x\">b</a>";
    let problems = check("self-test", Surface::Page, bad, false);
    assert!(problems.len() >= 6, "{problems:#?}");
    // With web images allowed, still no image that sends a referrer, nor one from another
    // host spelled as a path.
    let problems = check(
        "self-test",
        Surface::Page,
        "<img src=\"https://t.x/p.gif\"><img src=\"//t.x/p.gif\"><img src=\"a.png\" srcset=\"/\\t.x/b.png 2x\">",
        true,
    );
    assert_eq!(problems.len(), 3, "{problems:#?}");
}
