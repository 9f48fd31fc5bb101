//! Raw HTML wrappers that span Markdown blocks, as GitHub shows them: `<details>` and its
//! `<summary>` in one HTML block, Markdown after a blank line, `</details>` in a later block.
//!
//! Raw HTML is otherwise sanitized one Markdown block at a time (see [`super::clean_blocks`]).
//! A span is a run of sibling blocks in one container where an HTML block opens elements of
//! [`SPANNING`] that a later HTML block closes. Its HTML blocks are sanitized together, as one
//! fragment with a marker where each run of Markdown blocks sits, and the cleaned fragment is
//! cut at the markers back into its blocks. The Markdown between them stays the engine's own
//! markup (leaf numbers and all). A span is refused, and its blocks cleaned one by one as
//! before, when:
//! - a component sits between its blocks (no raw tag may wrap a component);
//! - an element other than a [`SPANNING`] one is left open across a block boundary, or an end
//!   tag closes an element that is not open;
//! - after sanitizing, a marker is missing, out of order or doubled, or stands anywhere but
//!   directly inside a [`HOLDS_MARKDOWN`] element with only [`SPANNING`] ones around it, or
//!   outside every raw element. (Markdown directly in a table row is moved before the table,
//!   as a browser moves it: the marker is then outside, and the Markdown is written there.)

use super::{ImageRules, clean_counting, filter_tags};
use comrak::nodes::{AstNode, NodeValue};
use std::collections::HashSet;

/// Elements that may stay open from one HTML block to a later one.
const SPANNING: [&str; 19] = [
    "details",
    "div",
    "section",
    "blockquote",
    "center",
    "table",
    "caption",
    "thead",
    "tbody",
    "tfoot",
    "tr",
    "td",
    "th",
    "sup",
    "sub",
    "kbd",
    "ins",
    "del",
    "mark",
];

/// The [`SPANNING`] elements Markdown blocks may sit directly inside.
const HOLDS_MARKDOWN: [&str; 14] = [
    "details",
    "div",
    "section",
    "blockquote",
    "center",
    "caption",
    "td",
    "th",
    "sup",
    "sub",
    "kbd",
    "ins",
    "del",
    "mark",
];

/// Elements that never hold others.
const VOID: [&str; 15] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr", "param", "keygen",
];

/// Elements an end tag of an enclosing element closes too (their own end tag is optional).
const END_OPTIONAL: [&str; 15] = [
    "p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "rp", "rt", "thead", "tbody",
    "tfoot", "caption",
];

/// One span: its HTML blocks in order, each with the cleaned HTML it is written as.
pub struct Span<'a> {
    pub blocks: Vec<(&'a AstNode<'a>, String)>,
    /// The raw `<img>` in it whose address the image rules refused.
    pub refused_images: u32,
}

/// The spans of the document, each checked by sanitizing it. `components` are the nodes of the
/// document's component blocks (before or after they become placeholders); images in the raw
/// HTML pass by `rules`.
pub fn spans<'a>(
    root: &'a AstNode<'a>,
    components: &[&'a AstNode<'a>],
    rules: &ImageRules,
) -> Vec<Span<'a>> {
    let components: HashSet<*const AstNode<'a>> =
        components.iter().map(|c| *c as *const _).collect();
    let mut seen: HashSet<*const AstNode<'a>> = HashSet::new();
    let mut out = Vec::new();
    for node in root.descendants() {
        if !matches!(node.data().value, NodeValue::HtmlBlock(_)) {
            continue;
        }
        let Some(parent) = node.parent() else {
            continue;
        };
        if seen.insert(parent as *const _) {
            spans_among(parent, &components, rules, &mut out);
        }
    }
    out
}

/// An element left open, with the index (among the container's children) of the block that
/// opened it.
struct Open {
    name: String,
    block: usize,
}

/// The spans among one container's children, in one pass.
fn spans_among<'a>(
    parent: &'a AstNode<'a>,
    components: &HashSet<*const AstNode<'a>>,
    rules: &ImageRules,
    out: &mut Vec<Span<'a>>,
) {
    let children: Vec<&'a AstNode<'a>> = parent.children().collect();
    let mut open: Vec<Open> = Vec::new();
    for (i, child) in children.iter().enumerate() {
        let html = match &child.data().value {
            NodeValue::HtmlBlock(b) => b.literal.clone(),
            _ => {
                if !open.is_empty() && holds_component(child, components) {
                    open.clear();
                }
                continue;
            }
        };
        let filtered = filter_tags(&html);
        let html = filtered.as_deref().unwrap_or(&html);
        let start = open.first().map(|o| o.block);
        if !apply(html, i, &mut open) {
            open.clear();
            continue;
        }
        if open.iter().any(|o| !SPANNING.contains(&o.name.as_str())) {
            open.clear();
            continue;
        }
        if open.is_empty()
            && let Some(start) = start
            && let Some(span) = checked(&children[start..=i], rules)
        {
            out.push(span);
        }
    }
}

/// Applies one HTML block's tags to the open elements. False when an end tag closes an element
/// that is not open (past those whose end tag is optional).
fn apply(html: &str, block: usize, open: &mut Vec<Open>) -> bool {
    for (closing, name, self_closing) in tags(html) {
        if VOID.contains(&name.as_str()) {
            continue;
        }
        if closing {
            loop {
                match open.pop() {
                    Some(top) if top.name == name => break,
                    Some(top) if END_OPTIONAL.contains(&top.name.as_str()) => {}
                    _ => return false,
                }
            }
        } else if !self_closing {
            open.push(Open { name, block });
        }
    }
    true
}

/// The start and end tags of raw HTML, in order: (is an end tag, lowercased name, ends in
/// `/>`). Comments are skipped; an unterminated one ends the scan.
pub fn tags(html: &str) -> Vec<(bool, String, bool)> {
    let bytes = html.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(k) = memchr::memchr(b'<', &bytes[at..]) {
        let start = at + k + 1;
        if html[start..].starts_with("!--") {
            match html[start + 3..].find("-->") {
                Some(end) => {
                    at = start + 3 + end + 3;
                    continue;
                }
                None => break,
            }
        }
        let closing = bytes.get(start) == Some(&b'/');
        let name_at = (start + usize::from(closing)).min(bytes.len());
        let len = bytes[name_at..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        let name = html[name_at..name_at + len].to_ascii_lowercase();
        let tag_end = end_of_tag(bytes, name_at + len);
        at = tag_end.map_or(bytes.len(), |e| e + 1);
        if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            // Not a tag: `<` as text, or `<!DOCTYPE`, `<?…`.
            at = at.min(start);
            continue;
        }
        let self_closing = tag_end.is_some_and(|e| e > start && bytes[e - 1] == b'/');
        out.push((closing, name, self_closing));
    }
    out
}

/// Where a tag whose name ends at `from` ends: its `>`, outside quoted attribute values.
fn end_of_tag(bytes: &[u8], from: usize) -> Option<usize> {
    let mut quote: Option<u8> = None;
    for (i, &c) in bytes.iter().enumerate().skip(from) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(c),
            (None, b'>') => return Some(i),
            _ => {}
        }
    }
    None
}

/// Whether `node` is, or holds, one of the components.
fn holds_component<'a>(node: &'a AstNode<'a>, components: &HashSet<*const AstNode<'a>>) -> bool {
    node.descendants().any(|n| {
        components.contains(&(n as *const _)) || matches!(n.data().value, NodeValue::Raw(_))
    })
}

/// The span over `blocks` (a run of siblings from the HTML block that opens it to the one that
/// closes it), sanitized as one fragment; `None` when sanitizing moved a marker out of place.
fn checked<'a>(blocks: &[&'a AstNode<'a>], rules: &ImageRules) -> Option<Span<'a>> {
    // The HTML blocks, each with whether Markdown follows it before the next one.
    let mut html: Vec<(&'a AstNode<'a>, String, bool)> = Vec::new();
    for block in blocks {
        match &block.data().value {
            NodeValue::HtmlBlock(b) => {
                let filtered = filter_tags(&b.literal);
                html.push((block, filtered.unwrap_or_else(|| b.literal.clone()), false));
            }
            _ => html.last_mut()?.2 = true,
        }
    }
    let all: String = html.iter().map(|(_, h, _)| h.as_str()).collect();
    let marker_char = ('\u{E000}'..='\u{F8FF}').find(|c| !all.contains(*c))?;
    let marker = |k: usize| format!("{marker_char}hole{k}{marker_char}");
    let mut fragment = String::with_capacity(all.len() + 16);
    let mut holes = 0;
    for (_, h, markdown_follows) in &html {
        fragment.push_str(h);
        if *markdown_follows {
            fragment.push_str(&marker(holes));
            holes += 1;
        }
    }
    let (cleaned, refused_images) = clean_counting(&fragment, rules);
    // Cut at the markers, each exactly once and in order.
    let mut pieces = Vec::with_capacity(holes + 1);
    let mut rest = cleaned.as_str();
    for k in 0..holes {
        let m = marker(k);
        let at = rest.find(&m)?;
        pieces.push(rest[..at].to_string());
        rest = &rest[at + m.len()..];
    }
    if rest.contains(marker_char) {
        return None;
    }
    pieces.push(rest.to_string());
    // At each marker, only spanning elements are open and the innermost may hold Markdown; or
    // nothing is open: the Markdown stands outside the wrapper, where a browser puts what a
    // table cannot hold (before the table), and nothing raw wraps it.
    let mut open: Vec<Open> = Vec::new();
    for piece in &pieces[..holes] {
        if !apply(piece, 0, &mut open) {
            return None;
        }
        let fits = open.is_empty()
            || open
                .last()
                .is_some_and(|o| HOLDS_MARKDOWN.contains(&o.name.as_str()))
                && open.iter().all(|o| SPANNING.contains(&o.name.as_str()));
        if !fits {
            return None;
        }
    }
    // Each piece is written by the first HTML block of its run; the others are left empty.
    let mut pieces = pieces.into_iter();
    let mut out = Vec::with_capacity(html.len());
    let mut starts_run = true;
    for (block, _, markdown_follows) in html {
        let text = if starts_run {
            pieces.next().unwrap_or_default()
        } else {
            String::new()
        };
        out.push((block, text));
        starts_run = markdown_follows;
    }
    Some(Span {
        blocks: out,
        refused_images,
    })
}

#[cfg(test)]
mod tests {
    /// The page's prose for `md` (the part after the form's copy of the source), and the
    /// warnings' codes.
    fn render(md: &str) -> (String, Vec<String>) {
        let out = crate::render(md, &crate::Options::default());
        let html = out
            .html
            .split("name=\"pb.surface\"")
            .nth(1)
            .unwrap_or(&out.html);
        let codes = out
            .diagnostics
            .iter()
            .map(|d| format!("{:?}", d.code))
            .collect();
        (html.to_string(), codes)
    }

    #[test]
    fn details_keep_their_markdown_body() {
        let (html, codes) = render(
            "<details open><summary>More</summary>\n\nSome **bold** text.\n\n- a list\n\n</details>\n\nAfter.\n",
        );
        let body = html
            .split("<details open=\"\"><summary>More</summary>")
            .nth(1)
            .and_then(|rest| rest.split("</details>").next())
            .unwrap_or_else(|| panic!("no details element: {html}"));
        assert!(
            body.contains("<strong>bold</strong>") && body.contains("a list"),
            "{html}"
        );
        assert!(
            body.contains("data-pb-leaf"),
            "the body's leaves take comments: {html}"
        );
        assert!(html.contains("After."), "{html}");
        assert!(codes.is_empty(), "{codes:?}");
    }

    #[test]
    fn aligned_wrappers_and_html_tables_keep_their_content() {
        let (html, _) = render("<div align=\"center\">\n\n# Title\n\n</div>\n");
        let inner = html.split("<div align=\"center\">").nth(1).unwrap_or("");
        assert!(
            inner.split("</div>").next().unwrap_or("").contains("Title"),
            "{html}"
        );
        let (html, codes) = render("<table>\n<tr>\n<td>\n\n*cell*\n\n</td>\n</tr>\n</table>\n");
        let cell = html.split("<td>").nth(1).unwrap_or("");
        assert!(
            cell.split("</td>")
                .next()
                .unwrap_or("")
                .contains("<em>cell</em>"),
            "{html}"
        );
        assert!(codes.is_empty(), "{codes:?}");
    }

    /// Markdown written directly in a table row is put before the table, where a browser puts
    /// it when it reads the whole document (GitHub shows it there): the row keeps its table.
    #[test]
    fn markdown_a_table_row_cannot_hold_goes_before_the_table() {
        let (html, codes) = render("<table>\n<tr>\n\nSome *text*.\n\n</tr>\n</table>\n\nAfter.\n");
        let text = html.find("<em>text</em>").unwrap_or(usize::MAX);
        let table = html.find("<table>").unwrap_or(0);
        assert!(text < table, "the text stands before the table: {html}");
        assert!(
            html[table..].starts_with("<table>\n<tbody><tr>"),
            "the row stays in its table: {html}"
        );
        assert!(html.contains("data-pb-leaf"), "{html}");
        assert!(codes.is_empty(), "{codes:?}");
        // A component there still refuses the span: no raw tag is written around it.
        let md = "<table>\n<tr>\n\n```single-choice\n{\"question\":\"Q?\",\"options\":[\"a\",\"b\"]}\n```\n\n</tr>\n</table>\n";
        let (_, codes) = render(md);
        assert!(codes.iter().any(|c| c == "RawHtmlUnbalanced"), "{codes:?}");
    }

    #[test]
    fn a_span_never_wraps_a_component() {
        let md = "<details><summary>S</summary>\n\n```single-choice\n{\"question\":\"Q?\",\"options\":[\"a\",\"b\"]}\n```\n\n</details>\n";
        let (html, codes) = render(md);
        let details = html.split("<details>").nth(1).unwrap_or("");
        let details = details.split("</details>").next().unwrap_or("");
        assert!(!details.contains("pb-"), "the component is outside: {html}");
        assert!(codes.iter().any(|c| c == "RawHtmlUnbalanced"), "{codes:?}");
    }

    #[test]
    fn only_the_listed_wrappers_span() {
        // A `<span>` or `<a>` left open is closed at its block's end, as before.
        for md in [
            "<a href=\"https://a.example\">\n\ntext\n\n</a>\n",
            "<span>\n\ntext\n\n</span>\n",
        ] {
            let (html, codes) = render(md);
            assert!(
                codes.iter().any(|c| c == "RawHtmlUnbalanced"),
                "{md}: {codes:?}"
            );
            assert!(html.contains("text"), "{html}");
        }
        // A wrapper left open to the end spans nothing, and a stray end tag ends nothing.
        let (html, codes) = render("<div>\n\ntext\n\n</section>\n\nmore\n");
        assert!(codes.iter().any(|c| c == "RawHtmlUnbalanced"), "{codes:?}");
        assert!(html.contains("more"), "{html}");
    }

    #[test]
    fn hostile_spans_stay_contained() {
        // Raw-text tags inside a span show as text; handlers and scripts go.
        let (html, _) =
            render("<div onclick=\"x()\">\n\ntext\n\n<script>alert(1)</script></div>\n\nafter\n");
        assert!(
            !html.contains("onclick") && !html.contains("<script"),
            "{html}"
        );
        assert!(html.contains("after"), "{html}");
        // A marker spelled by the document cannot cut a span.
        let (html, _) = render("<div>\u{E000}hole0\u{E000}\n\ntext\n\n</div>\n");
        assert!(html.contains("text"), "{html}");
    }

    #[test]
    fn tags_reads_quoted_attributes() {
        let tags = super::tags("<a title=\"x>y\"><br/></A><!-- <b> --> a < b");
        let names: Vec<_> = tags.iter().map(|(c, n, s)| (*c, n.as_str(), *s)).collect();
        assert_eq!(
            names,
            [(false, "a", false), (false, "br", true), (true, "a", false)]
        );
    }
}
