//! What people write for GitHub, shown as GitHub shows it: alerts (`> [!NOTE]`) and YAML front
//! matter, on the page, in email and as plain text.

use passback_engine::{Format, Options, Surface, render, validate};

const CHOICE: &str =
    "```single-choice\n{\"version\":\"1\",\"question\":\"Pick?\",\"options\":[\"A\",\"B\"]}\n```\n";

fn with(format: Format, surface: Surface) -> Options {
    let mut options = Options::default();
    options.format = format;
    options.surface = surface;
    options
}

/// The page after the form's hidden copy of the source (which holds the document verbatim).
fn page(src: &str) -> String {
    let html = render(src, &Options::default()).html;
    match html.split_once("name=\"pb.surface\"") {
        Some((_, after)) => after.to_string(),
        None => html,
    }
}

#[test]
fn each_alert_kind_is_a_box_with_its_icon_and_title_word() {
    for (marker, kind, word) in [
        ("NOTE", "note", "Note"),
        ("TIP", "tip", "Tip"),
        ("IMPORTANT", "important", "Important"),
        ("WARNING", "warning", "Warning"),
        ("CAUTION", "caution", "Caution"),
    ] {
        let html = page(&format!(
            "> [!{marker}]\n> Back up **first**.\n\nAfter.\n\n{CHOICE}"
        ));
        let open = format!("<div class=\"pb-alert pb-alert-{kind}\">");
        let alert = html
            .split(&open)
            .nth(1)
            .and_then(|a| a.split("</div>").next())
            .unwrap_or_else(|| panic!("no {kind} alert: {html}"));
        assert!(!html.contains(&format!("[!{marker}]")), "{html}");
        let title = alert.split("</p>").next().unwrap_or("");
        assert!(
            title.starts_with("\n<p class=\"pb-alert-title\"><svg")
                && title.contains("aria-hidden=\"true\"")
                && title.ends_with(&format!("</svg>{word}")),
            "the title word is the first thing read: {title}"
        );
        // The alert's text is prose like any other: a leaf a reader may comment on.
        assert!(
            alert.contains("<p data-pb-leaf=\"1\">Back up <strong>first</strong>.</p>"),
            "{alert}"
        );
        assert!(html.contains("<fieldset"), "{html}");
    }
}

#[test]
fn a_quote_that_is_not_an_alert_stays_a_quote() {
    for src in [
        "> [!NOPE]\n> text\n",
        "> Note: [!NOTE] later\n",
        "> [!NOTE] \n",
    ] {
        let html = page(src);
        if src.starts_with("> [!NOTE]") {
            continue;
        }
        assert!(
            html.contains("<blockquote") && !html.contains("pb-alert"),
            "{src}: {html}"
        );
    }
}

#[test]
fn alerts_in_email_have_inline_styles_and_no_icon() {
    let out = render(
        "> [!WARNING]\n> Mind the gap.\n",
        &with(Format::Fragment, Surface::Email),
    );
    let html = out.html;
    assert!(!html.contains("<svg"), "{html}");
    assert!(
        html.contains("border-left:4px solid #9a6700;") && html.contains(">Warning</p>"),
        "{html}"
    );
    assert!(!html.contains("pb-alert"), "mail keeps no classes: {html}");
}

#[test]
fn alerts_in_plain_text_keep_their_title_word() {
    let out = render(
        "> [!TIP]\n> Use the cache.\n",
        &with(Format::Text, Surface::Page),
    );
    let text = out.body().to_string();
    assert!(text.contains("> Tip\n>\n> Use the cache."), "{text}");
}

const FRONT: &str =
    "---\ntitle: \"Moving the wiki\"\ntags:\n  - docs\n# a comment\nsummary: which wiki\n---\n";

#[test]
fn front_matter_is_never_shown_and_names_the_page() {
    let src = format!("{FRONT}\n# Heading\n\nBody.\n\n{CHOICE}");
    let html = page(&src);
    assert!(
        !html.contains("summary: which wiki") && !html.contains("docs") && !html.contains("<hr"),
        "{html}"
    );
    assert!(html.contains("Body."), "{html}");
    let full = render(&src, &with(Format::Page, Surface::Page));
    assert!(
        full.body().contains("<title>Moving the wiki</title>"),
        "the front matter's title wins over the first heading"
    );
    assert_eq!(passback_engine::document_title(&src), "Moving the wiki");
    let json: serde_json::Value =
        serde_json::from_str(render(&src, &with(Format::Json, Surface::Page)).body())
            .expect("JSON");
    assert_eq!(json["front_matter"]["title"], "Moving the wiki");
    assert!(
        json["front_matter"]["yaml"]
            .as_str()
            .is_some_and(|y| y.contains("summary: which wiki")),
        "{json}"
    );
}

#[test]
fn front_matter_keeps_every_position() {
    // A broken component after the front matter is reported at its own line.
    let src = format!("{FRONT}\n```single-choice\n{{\"question\": 1}}\n```\n");
    let diagnostics = validate(&src).diagnostics;
    assert!(
        diagnostics.iter().any(|d| d.line == 10 && d.column == 14),
        "the JSON's own line and column: {diagnostics:?}"
    );
}

#[test]
fn a_thematic_break_at_the_top_is_not_front_matter() {
    for src in [
        "---\nJust a paragraph.\n---\n",
        "---\n\nText.\n",
        "---\ntitle: never closed\n\nText.\n",
        "Text first.\n---\ntitle: x\n---\n",
    ] {
        let out = render(src, &Options::default());
        assert!(out.front_matter.is_none(), "{src}");
        let html = page(src);
        assert!(
            html.contains("Text") || html.contains("Just a paragraph"),
            "{src}: {html}"
        );
    }
}

/// A raw `<img>` the image policy refuses is counted with the refused Markdown images, so the
/// routed review page says it is not shown: one in an HTML block, one inline in a paragraph and
/// one inside a `<details>` that spans blocks, none of them with an address left.
#[test]
fn refused_raw_images_are_counted_with_markdown_ones() {
    let src = "<p align=\"center\"><img src=\"http://plain.example/logo.png\" alt=\"logo\"></p>\n\n\
               Inline <img src=\"https://other.example/i.png\" alt=\"inline\"> and \
               ![md](https://other.example/m.png).\n\n\
               <details><summary>More</summary>\n\n\
               <img src=\"https://img.example/ok.png\" alt=\"kept\">\n\n\
               <img src=\"https://other.example/in.png\" alt=\"hidden\">\n\n\
               </details>\n";
    let mut options = Options::default();
    options.images = passback_engine::ImagePolicy::Hosts(vec!["img.example".into()]);
    let out = render(src, &options);
    // After the form's hidden copy of the source.
    let html = out
        .html
        .split_once("name=\"pb.surface\"")
        .map_or("", |(_, after)| after);
    assert!(
        html.contains("src=\"https://img.example/ok.png\"")
            && !html.contains("src=\"http://plain.example")
            && !html.contains("src=\"https://other.example")
            && html.contains("alt=\"hidden\""),
        "{html}"
    );
    assert_eq!(out.blocked_images, 4, "{html}");
    // By default (https from any host) only the plain-http one is refused.
    assert_eq!(render(src, &Options::default()).blocked_images, 1);
    // Images that load are not counted, and neither is a raw `<img>` without an address.
    assert_eq!(
        render(
            "<img src=\"https://i.example/a.png\" alt=\"a\">\n\n<img alt=\"no address\">\n",
            &Options::default()
        )
        .blocked_images,
        0
    );
}
