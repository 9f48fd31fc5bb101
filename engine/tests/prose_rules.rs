//! Hostile and broken raw HTML and URLs in the prose: no text lost or garbled, nothing wrapped
//! or swallowed beyond its own Markdown block, no URL judged otherwise than a browser judges it,
//! none of the engine's hooks taken. Each failure of the past is a case here.

use passback_engine::{Options, render, validate};

const CHOICE: &str =
    "```single-choice\n{\"version\":\"1\",\"question\":\"Pick?\",\"options\":[\"A\",\"B\"]}\n```\n";

/// The page after the form's hidden copy of the source (which holds the document verbatim).
fn page(src: &str) -> String {
    let html = render(src, &Options::default()).html;
    match html.split_once("name=\"pb.surface\"") {
        Some((_, after)) => after.to_string(),
        None => html,
    }
}

fn codes(src: &str) -> Vec<String> {
    validate(src)
        .diagnostics
        .iter()
        .map(|d| d.code.to_string())
        .collect()
}

/// The unclosed tag, then prose and a component that must all still be there, in order.
fn broken(tag: &str) -> String {
    format!("Intro.\n\n{tag}\n\nAfter.\n\n{CHOICE}\nEnd.\n")
}

fn assert_intact(tag: &str, html: &str) {
    let after = html.find(">After.</p>");
    let fieldset = html.find("<fieldset");
    let end = html.find(">End.</p>");
    assert!(
        after.is_some()
            && fieldset.is_some()
            && end.is_some()
            && after < fieldset
            && fieldset < end,
        "{tag}: the prose and the component after it must survive as they are\n{html}"
    );
    for garbled in ["&lt;/p&gt;", "&lt;fieldset", "&lt;blockquote"] {
        assert!(
            !html.contains(garbled),
            "{tag}: markup shown as text\n{html}"
        );
    }
}

#[test]
fn unclosed_raw_text_elements_delete_nothing() {
    for tag in [
        "<script>",
        "<style>",
        "<template>",
        "<SCRIPT type=\"x\">",
        "<style\n  media=\"x\">",
    ] {
        let src = broken(tag);
        let html = page(&src);
        assert_intact(tag, &html);
        assert!(
            !html.contains("<script") && !html.contains("<style") && !html.contains("<template"),
            "{html}"
        );
        assert!(
            codes(&src).iter().any(|c| c.starts_with("raw_html_")),
            "{tag}: validate must warn, got {:?}",
            codes(&src)
        );
    }
}

#[test]
fn unclosed_filtered_tags_show_as_text_and_nothing_more() {
    for name in [
        "title",
        "textarea",
        "xmp",
        "plaintext",
        "noscript",
        "iframe",
        "noembed",
        "noframes",
    ] {
        let tag = format!("<{name}>");
        let src = broken(&tag);
        let html = page(&src);
        assert_intact(&tag, &html);
        assert!(
            !html.contains(&tag),
            "{tag} must not reach the page as a tag\n{html}"
        );
        // Inline, the same.
        let src = format!("Intro {tag} more.\n\nAfter.\n\n{CHOICE}\nEnd.\n");
        let html = page(&src);
        assert_intact(&tag, &html);
        assert!(!html.contains(&tag), "{tag} inline\n{html}");
    }
    // The tag filter shows the tag itself as text, and keeps the rest.
    let html = page("A <script>alert(1)</script> b <title>t</title>.\n");
    assert!(
        html.contains("A &lt;script&gt;alert(1)&lt;/script&gt; b &lt;title&gt;t&lt;/title&gt;."),
        "{html}"
    );
    assert!(codes("A <textarea> b\n").contains(&"raw_html_filtered".to_string()));
}

#[test]
fn an_unclosed_link_wraps_nothing_after_its_block() {
    for src in [
        format!("<a href=\"https://x.example\">\n\nAfter.\n\n{CHOICE}\nEnd.\n"),
        format!("Intro <a href=\"https://x.example\">open\n\nAfter.\n\n{CHOICE}\nEnd.\n"),
        format!("> <a href=\"https://x.example\">quoted\n\nAfter.\n\n{CHOICE}\nEnd.\n"),
        format!("<div><b>\n\nAfter.\n\n{CHOICE}\nEnd.\n"),
    ] {
        let html = page(&src);
        assert_intact(&src, &html);
        // Every element opened by the raw HTML is closed before the next block.
        let fieldset = html.find("<fieldset").unwrap_or(0);
        let before = &html[..fieldset];
        assert_eq!(
            before.matches("<a ").count() + before.matches("<a>").count(),
            before.matches("</a>").count(),
            "{src}\n{html}"
        );
        assert!(
            codes(&src).contains(&"raw_html_unbalanced".to_string()),
            "{src}"
        );
    }
    // Balanced raw HTML gets no warning.
    assert!(codes("<div>\n<b>ok</b>\n</div>\n\nA <i>b</i> c<br>d.\n").is_empty());
}

#[test]
fn a_refused_url_leaves_its_text_and_no_target() {
    for src in [
        "[x](javascript:alert(1))\n",
        "[x](<JaVa\tScRiPt:alert(1)>)\n",
        "[x](data:text/html,hi)\n",
        "<vbscript:x>\n",
    ] {
        let html = page(src);
        assert!(!html.contains("href=\"\""), "{src}: {html}");
        assert!(
            html.contains("<a>"),
            "{src}: the text stays in a link without a target\n{html}"
        );
        for href in html.split("href=\"").skip(1) {
            let url = href.split('"').next().unwrap_or("").to_ascii_lowercase();
            assert!(
                !url.contains("script") && !url.starts_with("data:"),
                "{src}: {html}"
            );
        }
    }
}

#[test]
fn relative_links_with_a_colon_keep_their_target() {
    for (src, href) in [
        ("[link](foo\\)\\:)\n", "foo):"),
        ("[l](my_file:1)\n", "my_file:1"),
        ("[l](2024-05-01T10:00.md)\n", "2024-05-01T10:00.md"),
        ("[l](./a:b)\n", "./a:b"),
        ("[l](https://x.example/a:b)\n", "https://x.example/a:b"),
        ("[l](mailto:a@b.example)\n", "mailto:a@b.example"),
    ] {
        let html = page(src);
        assert!(html.contains(&format!("href=\"{href}\"")), "{src}: {html}");
    }
}

#[test]
fn footnotes_keep_their_attributes_beside_raw_html() {
    let src = "Text with <b>raw</b> HTML.[^1] And <i>more</i>[^n].\n\n[^1]: The <em>note</em>.\n\n[^n]: Two.\n";
    let html = page(src);
    for attr in [
        "data-footnote-ref",
        "data-footnote-backref",
        "data-footnote-backref-idx=\"1\"",
        "class=\"footnote-ref\"",
        "class=\"footnotes\"",
        "data-footnotes",
    ] {
        assert!(html.contains(attr), "{attr}\n{html}");
    }
    assert!(
        html.contains("<b>raw</b>") && html.contains("<em>note</em>"),
        "{html}"
    );
}

#[test]
fn images_from_another_host_are_refused_however_spelled() {
    use passback_engine::{ImagePolicy, ImageProxy};
    let policies = [
        ImagePolicy::SameOrigin,
        ImagePolicy::Https,
        ImagePolicy::Hosts(vec!["img.example".into()]),
        ImagePolicy::Proxy(
            ImageProxy::new("https://camo.example", b"k".to_vec()).expect("a proxy"),
        ),
    ];
    // The page after the form's hidden copy of the source, as `page` reads it.
    let on = |src: &str, policy: &ImagePolicy| {
        let html = render(src, &Options::default().with_images(policy.clone())).html;
        match html.split_once("name=\"pb.surface\"") {
            Some((_, after)) => after.to_string(),
            None => html,
        }
    };
    // A host spelled as a path is never an image, whatever the policy: an author who means the
    // web writes `https://`.
    for src in [
        "<img src=\"/\\evil.example/a.png\">\n",
        "<img src=\"\\/evil.example/a.png\">\n",
        "<img src=\"\\\\evil.example/a.png\">\n",
        "<img src=\"/&#9;/evil.example/a.png\">\n",
        "<img src=\"/&#10;/evil.example/a.png\">\n",
        "<img src=\" //evil.example/a.png\">\n",
        "A <img src=\"/\\evil.example/a.png\"> b\n",
        "<img srcset=\"a.png 1x, //evil.example/a.png 2x\">\n",
        "<picture><source srcset=\"/\\evil.example/a.png\"><img src=\"a.png\"></picture>\n",
        "![x](/\\evil.example/a.png)\n",
        "![x](/&#9;/evil.example/a.png)\n",
        "![x](//evil.example/a.png)\n",
        "![x](javascript:alert(1))\n",
        "<img src=\"javascript:alert(1)\">\n",
        "![x](data:image/svg+xml,%3Csvg%20onload%3Dalert(1)%3E)\n",
        "<img src=\"data:image/png;base64,iVBORw0KGgo=\">\n",
    ] {
        for policy in &policies {
            let html = on(src, policy);
            assert!(
                !html.contains("evil.example")
                    && !html.contains("src=\"javascript")
                    && !html.contains("src=\"data:"),
                "{src} {policy:?}: {html}"
            );
        }
    }
    // An image from the web: shown by the https policy (the default), through the proxy by
    // the proxy, by the list only from a listed host, and a link under same-origin.
    for src in [
        "<img src=\"https://evil.example/a.png\">\n",
        "![x](https://evil.example/a.png)\n",
    ] {
        let shown = on(src, &ImagePolicy::Https);
        assert!(
            shown.contains("src=\"https://evil.example/a.png\"")
                && shown.contains("referrerpolicy=\"no-referrer\""),
            "{shown}"
        );
        let proxied = on(src, &policies[3]);
        assert!(
            proxied.contains("src=\"https://camo.example/")
                && !proxied.contains("src=\"https://evil"),
            "{proxied}"
        );
        for refused in [&policies[0], &policies[2]] {
            let html = on(src, refused);
            assert!(!html.contains("src=\"https://evil"), "{html}");
        }
    }
    // Same-origin images stay.
    let html = page("![x](img/a.png) <img src=\"/img/b.png\" alt=\"b\">\n");
    assert!(
        html.contains("src=\"img/a.png\"") && html.contains("src=\"/img/b.png\""),
        "{html}"
    );
}

#[test]
fn prose_cannot_take_the_engines_hooks() {
    let src = format!(
        "<a class=\"pb-actions pb-submit\" href=\"https://evil.example/\">x</a>\n\n\
         <section class=\"pb-doc footnotes\" data-pb-model=\"{{}}\" data-pb-block=\"b1\">s</section>\n\n\
         A <span id=\"pb-12345678-b1\" data-pb-leaf=\"1\" class=\"PB-title keep\">y</span> \
         <code class=\"language-rust pb-x\">z</code> <a id=\"pb-x\" href=\"#a\">w</a>\n\n{CHOICE}"
    );
    let html = page(&src);
    assert_eq!(html.matches("pb-actions").count(), 1, "{html}");
    assert!(!html.contains("pb-submit\" href"), "{html}");
    assert!(!html.contains("class=\"pb-doc"), "{html}");
    assert!(
        !html.contains("PB-title") && !html.contains("pb-x"),
        "{html}"
    );
    assert!(
        !html.contains("id=\"pb-x\"") && !html.contains("data-pb-model=\"{}\""),
        "{html}"
    );
    assert!(!html.contains("data-pb-block=\"b1\">s"), "{html}");
    assert!(html.contains("class=\"language-rust\""), "{html}");
    assert_eq!(html.matches("id=\"pb-12345678-b1\"").count(), 0, "{html}");
}

#[test]
fn unclosed_blocks_are_reported_where_they_start() {
    let src = "Intro.\n\n<!-- never closed\n\nAfter.\n";
    let d = validate(src).diagnostics;
    let w = d
        .iter()
        .find(|d| d.code == "raw_html_unbalanced")
        .unwrap_or_else(|| panic!("{d:?}"));
    assert_eq!((w.line, w.column), (3, 1), "{w:?}");
    assert!(page(src).contains(">After.</p>"));
    let src = "- item\n\n  x <b>bold\n";
    let d = validate(src).diagnostics;
    let w = d
        .iter()
        .find(|d| d.code == "raw_html_unbalanced")
        .expect("a warning");
    assert_eq!((w.line, w.column), (3, 5), "{w:?}");
}
