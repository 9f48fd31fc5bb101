//! The email surface's prose: mail clients ignore `<style>` and classes, so comrak's plain tags get
//! inline styles; form controls (task-list checkboxes) become glyphs and images become their alt
//! text, since a mail preview has no forms and loads nothing.

/// Adds inline styles to the prose HTML comrak produced (after sanitizing, before the components
/// are spliced in). `rtl` mirrors the side of list indents and quote bars.
pub fn style_prose(html: &str, rtl: bool) -> String {
    let start_side = if rtl { "right" } else { "left" };
    let list = format!("margin:0 0 12px;padding-{start_side}:24px;");
    let quote = format!(
        "margin:0 0 12px;padding:0 12px;border-{start_side}:4px solid #d0d7de;color:#57606a;"
    );
    let style_for = |tag: &str| -> Option<&str> {
        Some(match tag {
            "h1" => "font-size:22px;line-height:1.3;margin:20px 0 8px;color:#1f2328;",
            "h2" => "font-size:19px;line-height:1.3;margin:18px 0 8px;color:#1f2328;",
            "h3" => "font-size:17px;line-height:1.3;margin:16px 0 8px;color:#1f2328;",
            "h4" | "h5" | "h6" => "font-size:16px;margin:14px 0 6px;color:#1f2328;",
            "p" => "margin:0 0 12px;",
            "a" => "color:#0550ae;text-decoration:underline;",
            "table" => "border-collapse:collapse;margin:0 0 12px;",
            "th" => "border:1px solid #d0d7de;padding:4px 8px;background:#f6f8fa;font-weight:600;",
            "td" => "border:1px solid #d0d7de;padding:4px 8px;",
            "pre" => {
                "margin:0 0 12px;padding:8px;background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;color:#1f2328;"
            }
            "code" => {
                "font-family:ui-monospace,Menlo,Consolas,monospace;font-size:90%;background:#f6f8fa;"
            }
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
        if name == "input" {
            out.push_str(if tag.contains("checked") {
                "☑"
            } else {
                "☐"
            });
        } else if name == "img" {
            out.push_str(&attribute(tag, "alt").unwrap_or_default());
        } else if let Some(style) = style_for(&name).filter(|_| !tag.contains(" style=")) {
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
    out
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
        let out = style_prose(html, false);
        assert!(
            out.starts_with("<ul style=\"margin:0 0 12px;padding-left:24px;\">"),
            "{out}"
        );
        assert!(out.contains("<li>☑ done</li>"));
        assert!(out.contains("<p style=\"margin:0 0 12px;\">a &amp; b <a style="));
        assert!(out.contains("<th style=\"border:1px solid #d0d7de;padding:4px 8px;background:#f6f8fa;font-weight:600;\" align=\"right\">"));
        assert!(!out.contains("<input") && !out.contains("<img"));
        assert!(style_prose("<blockquote>", true).contains("border-right:4px"));
    }
}
