//! The email surface's prose: mail clients ignore `<style>` and classes, so comrak's plain tags get
//! inline styles; form controls (task-list checkboxes) become glyphs and images become their alt
//! text, since a mail preview has no forms and loads nothing. Links that cannot work in a mail
//! (relative, in-page, footnotes) become their words, or absolute against a base URL; classes,
//! ids and `data-` attributes, which nothing in a mail reads, are dropped.

/// The inline style of an alert's box or title (`prose::write_alert`), by the classes the
/// engine gave it: a bar in the kind's colour, and the title word in bold.
fn alert_style(tag: &str, name: &str, start_side: &str) -> Option<String> {
    let kind = tag.split("pb-alert-").nth(1)?;
    if name == "p" && kind.starts_with("title") {
        return Some("margin:0 0 8px;font-weight:600;".into());
    }
    let colour = [
        ("note", "#0969da"),
        ("tip", "#1a7f37"),
        ("important", "#8250df"),
        ("warning", "#9a6700"),
        ("caution", "#cf222e"),
    ]
    .into_iter()
    .find(|(k, _)| kind.starts_with(k))?
    .1;
    (name == "div").then(|| {
        format!("margin:0 0 12px;padding:8px 12px;border-{start_side}:4px solid {colour};")
    })
}

/// Adds inline styles to the prose HTML comrak produced (after sanitizing, before the components
/// are spliced in). `rtl` mirrors the side of list indents and quote bars.
pub fn style_prose(html: &str, rtl: bool, link_base: Option<&str>) -> String {
    let start_side = if rtl { "right" } else { "left" };
    // Outlook for Windows pads only table cells: the indent is a margin.
    let list = format!("margin:0 0 12px;padding:0;margin-{start_side}:24px;");
    let quote = format!(
        "margin:0 0 12px;padding:0 12px;border-{start_side}:4px solid #8c959f;color:#57606a;"
    );
    let style_for = |tag: &str| -> Option<&str> {
        Some(match tag {
            "h1" => "font-size:22px;line-height:1.3;margin:20px 0 8px;",
            "h2" => "font-size:19px;line-height:1.3;margin:18px 0 8px;",
            "h3" => "font-size:17px;line-height:1.3;margin:16px 0 8px;",
            "h4" | "h5" | "h6" => "font-size:16px;margin:14px 0 6px;",
            "p" => "margin:0 0 12px;",
            "a" => "color:#0550ae;text-decoration:underline;",
            "table" => "border-collapse:collapse;margin:0 0 12px;",
            "th" => "border:1px solid #d0d7de;padding:4px 8px;background:#f6f8fa;font-weight:600;",
            "td" => "border:1px solid #d0d7de;padding:4px 8px;",
            "pre" => crate::html::email::PRE,
            "code" => "font-family:Menlo,Consolas,monospace;font-size:90%;",
            "ul" | "ol" => list.as_str(),
            "blockquote" => quote.as_str(),
            "hr" => "border:0;border-top:1px solid #d0d7de;margin:16px 0;",
            _ => return None,
        })
    };
    let mut out = String::with_capacity(html.len() + html.len() / 4);
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        rest = &rest[lt..];
        let Some(gt) = rest.find('>') else { break };
        let tag = &rest[..=gt];
        let name: String = tag[1..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        // A footnote's way back to its reference goes nowhere in a mail: dropped, arrow and all.
        if name == "a" && tag.contains("data-footnote-backref") {
            let end = rest.find("</a>").map_or(rest.len(), |e| e + 4);
            rest = &rest[end..];
            continue;
        }
        let alert = alert_style(tag, &name, start_side);
        let kept;
        let tag = if name.is_empty() {
            tag
        } else {
            kept = clean_tag(tag, &name, link_base);
            kept.as_str()
        };
        if name == "input" {
            out.push_str(if tag.contains("checked") {
                "☑"
            } else {
                "☐"
            });
        } else if name == "svg" {
            // The alerts' icons: most mail clients show no SVG, so the title word stands alone.
            let end = rest.find("</svg>").map_or(rest.len(), |e| e + 6);
            rest = &rest[end..];
            continue;
        } else if let Some(style) = alert {
            out.push('<');
            out.push_str(&name);
            out.push_str(" style=\"");
            out.push_str(&style);
            out.push('"');
            out.push_str(&tag[1 + name.len()..]);
        } else if name == "img"
            && attribute(tag, "src").is_some_and(|src| src.starts_with("https://"))
        {
            // An image the rules let load: absolute https (the mail has no page around it).
            out.push_str("<img style=\"max-width:100%;height:auto;border:0;\"");
            out.push_str(&tag[4..]);
        } else if name == "img" {
            out.push_str(&attribute(tag, "alt").unwrap_or_default());
        } else if let Some(style) = style_for(&name)
            .filter(|_| !tag.contains(" style=") && (name != "a" || tag.contains(" href=")))
        {
            out.push('<');
            out.push_str(&name);
            out.push_str(" style=\"");
            out.push_str(style);
            out.push('"');
            out.push_str(&tag[1 + name.len()..]);
        } else {
            out.push_str(tag);
        }
        rest = &rest[gt + 1..];
    }
    out.push_str(rest);
    // Gmail's apps turn `<section>` (the footnotes) into `<u>`: a plain `div` instead.
    if out.contains("<section") {
        out = out
            .replace("<section", "<div")
            .replace("</section>", "</div>");
    }
    out
}

/// `tag` without the attributes nothing in a mail reads (`class`, `id`, `data-…`, `aria-…` of
/// footnotes), and, on a link, with an `href` that works in a mail or none (see [`mail_href`]).
fn clean_tag(tag: &str, name: &str, link_base: Option<&str>) -> String {
    if tag.starts_with("</") {
        return tag.to_string();
    }
    let body = tag[1 + name.len()..]
        .trim_end_matches('>')
        .trim_end_matches('/');
    let mut out = String::with_capacity(tag.len());
    out.push('<');
    out.push_str(name);
    let footnote = body.contains("data-footnote-ref");
    for (key, value) in attributes(body) {
        let drop = key == "class"
            || key == "id"
            || key.starts_with("data-")
            || (key == "aria-label" && footnote)
            || (key == "aria-describedby" && footnote);
        if drop {
            continue;
        }
        let value = match (name, key) {
            ("a", "href") if footnote => None,
            ("a", "href") => mail_href(value.unwrap_or(""), link_base),
            _ => value.map(str::to_string),
        };
        if key == "href" && value.is_none() {
            continue;
        }
        out.push(' ');
        out.push_str(key);
        if let Some(v) = value {
            out.push_str("=\"");
            out.push_str(&v);
            out.push('"');
        }
    }
    if tag.ends_with("/>") {
        out.push_str(" /");
    }
    out.push('>');
    out
}

/// The attributes of a tag's inside as comrak and ammonia write them: `key`, or `key="value"`
/// with the value escaped (no `"` inside).
fn attributes(body: &str) -> Vec<(&str, Option<&str>)> {
    let mut out = Vec::new();
    let mut rest = body.trim_start();
    while !rest.is_empty() {
        let key_end = rest
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(rest.len());
        let key = &rest[..key_end];
        rest = &rest[key_end..];
        if let Some(after) = rest.strip_prefix("=\"") {
            let end = after.find('"').unwrap_or(after.len());
            out.push((key, Some(&after[..end])));
            rest = after.get(end + 1..).unwrap_or("");
        } else {
            out.push((key, None));
        }
        rest = rest.trim_start();
        if key.is_empty() {
            break;
        }
    }
    out
}

/// Where a prose link may point in a mail: an absolute `http(s):` or `mailto:` address as it is;
/// a relative or in-page one against `base` (the document's public address), or nowhere
/// without one: the link is then kept as its words.
pub fn mail_href(href: &str, base: Option<&str>) -> Option<String> {
    if works_as_is(href)? {
        return Some(href.to_string());
    }
    let mut escaped = String::new();
    crate::html::escape_into(base?, &mut escaped);
    Some(against_base(href, &escaped))
}

/// Where a prose link points in an email's plain-text part: as [`mail_href`] decides, on the
/// raw (unescaped) link and base, so the text names the address the HTML part links.
pub fn mail_text_url(url: &str, base: Option<&str>) -> Option<String> {
    if works_as_is(url)? {
        return Some(url.to_string());
    }
    Some(against_base(url, base?))
}

/// Whether a link works in a mail as it is (an absolute `http(s):` or `mailto:` address), needs a
/// base (relative or in-page), or never works (`None`: any other scheme, `javascript:`,
/// `file:`…, or a scheme-relative `//host`). A scheme is letters before a `:` that comes before
/// any `/`, `?` or `#`.
fn works_as_is(href: &str) -> Option<bool> {
    let lower = href.to_ascii_lowercase();
    if lower.starts_with("https://") || lower.starts_with("http://") || lower.starts_with("mailto:")
    {
        return Some(true);
    }
    let before = href.split(['/', '?', '#']).next().unwrap_or("");
    if before.contains(':') || href.starts_with("//") {
        return None;
    }
    Some(false)
}

/// `href`, relative or in-page, made absolute against `base` (both escaped alike, or neither).
fn against_base(href: &str, escaped: &str) -> String {
    let origin_end = escaped
        .find("://")
        .map(|i| i + 3)
        .and_then(|i| escaped[i..].find('/').map(|j| i + j))
        .unwrap_or(escaped.len());
    if href.starts_with('/') {
        format!("{}{href}", &escaped[..origin_end])
    } else if href.starts_with('#') || href.starts_with('?') {
        let cut = escaped
            .find(if href.starts_with('#') { '#' } else { '?' })
            .unwrap_or(escaped.len());
        format!("{}{href}", &escaped[..cut])
    } else {
        // The base's directory: up to its last `/` past the origin.
        let path_end = escaped[origin_end..]
            .split(['?', '#'])
            .next()
            .map_or(origin_end, |p| {
                origin_end + p.rfind('/').map_or(0, |k| k + 1)
            });
        if path_end == origin_end {
            format!("{}/{href}", &escaped[..origin_end])
        } else {
            format!("{}{href}", &escaped[..path_end])
        }
    }
}

/// The (still escaped) value of `name="…"` in a tag.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let end = tag[start..].find('"')? + start;
    Some(tag[start..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_prose_and_removes_controls_and_images() {
        let html = "<ul>\n<li><input type=\"checkbox\" checked=\"\" disabled=\"\" /> done</li>\n</ul>\n<p><img src=\"x.png\" alt=\"a &amp; b\" /> <a href=\"https://e.x\">l</a></p><th align=\"right\">h</th>";
        let out = style_prose(html, false, None);
        assert!(
            out.starts_with("<ul style=\"margin:0 0 12px;padding:0;margin-left:24px;\">"),
            "{out}"
        );
        assert!(out.contains("<li>☑ done</li>"));
        assert!(out.contains("<p style=\"margin:0 0 12px;\">a &amp; b <a style="));
        assert!(out.contains("<th style=\"border:1px solid #d0d7de;padding:4px 8px;background:#f6f8fa;font-weight:600;\" align=\"right\">"));
        assert!(!out.contains("<input") && !out.contains("<img"));
        assert!(style_prose("<blockquote>", true, None).contains("border-right:4px"));
    }

    #[test]
    fn links_that_cannot_work_in_mail_become_words_or_absolute() {
        let html = "<p><a href=\"spec.md\">spec</a> <a href=\"#two\">two</a> <a href=\"https://e.x/a?b=1&amp;c=2\">abs</a> <a href=\"/root\">root</a> <a href=\"javascript:x()\">js</a><sup class=\"footnote-ref\"><a href=\"#fn-1\" id=\"fnref-1\" data-footnote-ref>1</a></sup></p>\n<section class=\"footnotes\" data-footnotes><ol><li id=\"fn-1\"><p>Note <a href=\"#fnref-1\" class=\"footnote-backref\" data-footnote-backref data-footnote-backref-idx=\"1\" aria-label=\"Back to reference 1\">↩</a></p></li></ol></section>";
        let plain = style_prose(html, false, None);
        assert!(
            !plain.contains("href=\"spec.md\"") && !plain.contains("href=\"#"),
            "{plain}"
        );
        assert!(
            plain.contains(">spec</a>") && plain.contains(">two</a>"),
            "{plain}"
        );
        assert!(
            plain.contains("href=\"https://e.x/a?b=1&amp;c=2\""),
            "{plain}"
        );
        assert!(!plain.contains("javascript"), "{plain}");
        assert!(
            !plain.contains('↩') && !plain.contains("class=") && !plain.contains(" id="),
            "{plain}"
        );
        assert!(
            plain.contains("<sup><a>1</a></sup>") && plain.contains("Note"),
            "{plain}"
        );
        let based = style_prose(
            html,
            false,
            Some("https://docs.example/guide/intro.html?x=1"),
        );
        assert!(
            based.contains("href=\"https://docs.example/guide/spec.md\""),
            "{based}"
        );
        assert!(
            based.contains("href=\"https://docs.example/guide/intro.html?x=1#two\""),
            "{based}"
        );
        assert!(
            based.contains("href=\"https://docs.example/root\""),
            "{based}"
        );
        assert!(based.contains("<sup><a>1</a></sup>"), "{based}");
        assert_eq!(
            mail_href("a.md", Some("https://h.example")).as_deref(),
            Some("https://h.example/a.md")
        );
    }
}
