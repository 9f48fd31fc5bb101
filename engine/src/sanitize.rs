//! Prose safety: a URL policy applied to every link and image in the AST (both render paths),
//! and ammonia over the prose HTML when the document contains raw HTML.

use ammonia::Builder;
use comrak::nodes::{AstNode, NodeValue};
use std::borrow::Cow;
use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};
use std::sync::LazyLock;

/// Whether a link target may appear in the output: http(s), mailto, or a relative reference.
pub fn is_safe_link(url: &str) -> bool {
    match scheme(url) {
        None => true,
        Some(s) => matches!(s.as_str(), "http" | "https" | "mailto"),
    }
}

/// Whether an image may load: only same-origin (relative) images; anything else would make the
/// reader's browser contact a third party.
pub fn is_safe_image(url: &str) -> bool {
    scheme(url).is_none()
        && !url.trim_start().starts_with("//")
        && !url.trim_start().starts_with("\\\\")
}

/// The lowercased URL scheme, ignoring the whitespace and control characters browsers ignore:
/// what comes before the first `:` that is not after a `/`, `?` or `#`. Read in one pass, with
/// no copy of the URL.
fn scheme(url: &str) -> Option<String> {
    let mut name = String::new();
    for c in url
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
    {
        match c {
            ':' => return Some(name),
            '/' | '?' | '#' => return None,
            c => name.push(c.to_ascii_lowercase()),
        }
    }
    None
}

/// The URL policy, applied node by node during the walk that finds the components (one walk of
/// the tree instead of two): unsafe links lose their target; images that are not same-origin
/// become links (http/https) or plain text. Records whether raw HTML is present.
#[derive(Default)]
pub struct Police<'a> {
    raw_html: bool,
    /// Lone HTML comments, dropped once the walk is over.
    comments: Vec<&'a AstNode<'a>>,
}

impl<'a> Police<'a> {
    /// Applies the policy to `node`, whose value the caller's walk holds borrowed (`value`):
    /// one borrow per node for the whole walk.
    pub fn visit(&mut self, node: &'a AstNode<'a>, value: &mut NodeValue) {
        match value {
            // A lone HTML comment never shows: drop it here, as ammonia would, rather than send
            // the whole prose through the sanitizer for it.
            NodeValue::HtmlBlock(b) if is_only_a_comment(&b.literal) => self.comments.push(node),
            NodeValue::HtmlInline(h) if is_only_a_comment(h) => self.comments.push(node),
            NodeValue::HtmlBlock(_) | NodeValue::HtmlInline(_) => self.raw_html = true,
            NodeValue::Link(link) if !is_safe_link(&link.url) => link.url.clear(),
            NodeValue::Image(link) if !is_safe_image(&link.url) => {
                let mut link = std::mem::take(link);
                if !matches!(scheme(&link.url).as_deref(), Some("http" | "https")) {
                    link.url.clear();
                }
                *value = NodeValue::Link(link);
            }
            _ => {}
        }
    }

    /// Drops the lone comments; returns whether raw HTML is present.
    pub fn finish(self) -> bool {
        for node in self.comments {
            node.detach();
        }
        self.raw_html
    }
}

/// Whether raw HTML is exactly one well-formed comment (`<!-- … -->`) and whitespace. Anything
/// else, including the odd forms browsers end early (`<!-->`, `--!>`), goes to ammonia.
fn is_only_a_comment(html: &str) -> bool {
    let Some(inner) = html
        .trim()
        .strip_prefix("<!--")
        .and_then(|h| h.strip_suffix("-->"))
    else {
        return false;
    };
    !inner.starts_with('>')
        && !inner.starts_with("->")
        && !inner.contains("-->")
        && !inner.contains("--!>")
        && !inner.contains("<!--")
}

/// Deepest nesting ammonia is given, Markdown and raw HTML together: its HTML tree builder is
/// quadratic in depth (50 KB of `>`, or of `<div>` lines, takes seconds), so deeper documents
/// have their raw HTML escaped instead of sanitized.
pub const MAX_SANITIZE_DEPTH: usize = 64;
/// Largest prose (in bytes of Markdown) that goes through ammonia.
pub const MAX_SANITIZE_BYTES: usize = 2 * 1024 * 1024;

/// How deeply the sanitizer would have to nest: the deepest the AST goes, plus the deepest
/// the document's raw HTML could nest elements, in one walk without recursion. The raw HTML is
/// counted over all of it in order (an element left open in one HTML block is still open in
/// the next): each start tag opens one level and each end tag closes one. Void elements and
/// those whose end tag is optional (`p`, `li`, `td`…) are not counted, so ordinary HTML is not
/// mistaken for deep nesting; anything else counts even where a browser would close it early,
/// so the figure can only be too high, never too low. The sanitizer's tree builder looks down
/// its stack of open elements for many start tags, so ten thousand unclosed `<div>`s cost it
/// seconds.
pub fn nesting<'a>(root: &'a AstNode<'a>) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let (mut html, mut html_max) = (0usize, 0usize);
    for edge in root.traverse() {
        match edge {
            comrak::arena_tree::NodeEdge::Start(node) => {
                depth += 1;
                max = max.max(depth);
                match &node.data().value {
                    NodeValue::HtmlBlock(b) => open_tags(&b.literal, &mut html, &mut html_max),
                    NodeValue::HtmlInline(h) => open_tags(h, &mut html, &mut html_max),
                    _ => {}
                }
            }
            comrak::arena_tree::NodeEdge::End(_) => depth -= 1,
        }
    }
    max + html_max
}

/// Elements that never hold others open: void ones, and those a browser closes by itself.
const NOT_NESTING: [&str; 26] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr", "param", "keygen", "p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "rp",
    "rt",
];

fn open_tags(html: &str, depth: &mut usize, max: &mut usize) {
    let bytes = html.as_bytes();
    let mut at = 0;
    while let Some(k) = memchr::memchr(b'<', &bytes[at..]) {
        let mut start = at + k + 1;
        let closing = bytes.get(start) == Some(&b'/');
        if closing {
            start += 1;
        }
        let len = bytes[start.min(bytes.len())..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        at = start + len;
        let name = &html[start.min(html.len())..at.min(html.len())];
        if !name.starts_with(|c: char| c.is_ascii_alphabetic())
            || NOT_NESTING.iter().any(|n| n.eq_ignore_ascii_case(name))
        {
            continue;
        }
        if closing {
            *depth = depth.saturating_sub(1);
        } else {
            *depth += 1;
            *max = (*max).max(*depth);
        }
    }
}

/// Whether a document's raw HTML must be shown as text ([`escape_raw_html`]) rather than
/// sanitized, which would take time quadratic in its nesting. `src_len` is the document's size.
pub fn must_escape<'a>(root: &'a AstNode<'a>, src_len: usize, raw_html: bool) -> bool {
    raw_html && (src_len > MAX_SANITIZE_BYTES || nesting(root) > MAX_SANITIZE_DEPTH)
}

/// Turns raw HTML into literal text (inline) or a code block (block), so it shows escaped and
/// needs no sanitizer.
pub fn escape_raw_html<'a>(root: &'a AstNode<'a>) {
    for node in root.descendants() {
        let mut data = node.data_mut();
        let replacement = match &data.value {
            NodeValue::HtmlBlock(b) => Some(NodeValue::CodeBlock(Box::new(
                comrak::nodes::NodeCodeBlock {
                    literal: b.literal.clone(),
                    ..Default::default()
                },
            ))),
            NodeValue::HtmlInline(h) => Some(NodeValue::Text(h.clone().into())),
            _ => None,
        };
        if let Some(value) = replacement {
            data.value = value;
        }
    }
}

static CLEANER: LazyLock<Builder<'static>> = LazyLock::new(|| {
    let mut b = Builder::default();
    b.add_tags(["input", "section", "figure", "figcaption", "mark"])
        .add_tag_attributes("input", ["type", "checked", "disabled"])
        .add_tag_attributes("code", ["class"])
        .add_tag_attributes("section", ["class", "data-footnotes"])
        .add_tag_attributes("sup", ["class"])
        .add_tag_attributes(
            "a",
            [
                "id",
                "class",
                "data-footnote-ref",
                "data-footnote-backref",
                "aria-label",
            ],
        )
        .add_tag_attributes("li", ["id"])
        // The prose's leaf numbers (see `crate::prose`), only as the engine sealed them.
        .add_tag_attributes("p", ["data-pb-leaf"])
        .add_tag_attributes("h1", ["data-pb-leaf"])
        .add_tag_attributes("h2", ["data-pb-leaf"])
        .add_tag_attributes("h3", ["data-pb-leaf"])
        .add_tag_attributes("h4", ["data-pb-leaf"])
        .add_tag_attributes("h5", ["data-pb-leaf"])
        .add_tag_attributes("h6", ["data-pb-leaf"])
        .add_tag_attributes("tr", ["data-pb-leaf"])
        .add_tag_attributes("pre", ["data-pb-leaf"])
        .add_tag_attributes("span", ["data-pb-leaf"])
        .add_tag_attributes("ol", ["start"])
        .add_tag_attributes("th", ["align"])
        .add_tag_attributes("td", ["align"])
        .url_schemes(HashSet::from(["http", "https", "mailto"]))
        .link_rel(Some("noopener noreferrer nofollow"))
        .attribute_filter(|element, attribute, value| match (element, attribute) {
            ("img", "src") if !is_safe_image(value) => None,
            ("input", "type") if value != "checkbox" => None,
            (_, "data-pb-leaf") => unseal_leaf(value).map(Cow::Borrowed),
            _ => Some(Cow::Borrowed(value)),
        });
    b
});

/// The secret the engine seals its leaf numbers with in prose that ammonia cleans: random per
/// process, and never in the output, so a document's raw HTML cannot spell a leaf number that
/// survives the sanitizer and shadows a real one.
pub fn leaf_seal() -> &'static str {
    static SEAL: LazyLock<String> = LazyLock::new(|| {
        let state = RandomState::new();
        format!("{:016x}{:016x}", state.hash_one(1u8), state.hash_one(2u8))
    });
    &SEAL
}

/// A sealed leaf number (`N:SEAL`) as the page shows it (`N`); `None` for anything else.
fn unseal_leaf(value: &str) -> Option<&str> {
    let (n, seal) = value.split_once(':')?;
    (seal == leaf_seal() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some(n)
}

/// Cleans comrak's HTML output when the document contained raw HTML.
pub fn clean(html: &str) -> String {
    CLEANER.clean(html).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_comments_skip_the_sanitizer() {
        for comment in ["<!-- note -->", "  <!--x-->\n", "<!-- a - b -- c -->"] {
            assert!(is_only_a_comment(comment), "{comment}");
        }
        for not_only in [
            "<!-- a --><script>x</script>",
            "<!--><script>x</script>-->",
            "<!---><b>x</b>-->",
            "<!-- a --!><img src=x onerror=alert(1)>-->",
            "<!-- a --> <!-- b -->",
            "<b>x</b>",
            "<!-- unterminated",
        ] {
            assert!(!is_only_a_comment(not_only), "{not_only}");
        }
        // A comment vanishes; the prose around it stays, and nothing else changes. (The form's
        // copy of the source holds the comments: only what follows it counts.)
        let html = crate::render(
            "Before.\n\n<!-- hidden -->\n\nAfter <!-- inline --> text.\n",
            &crate::Options::default(),
        )
        .html;
        let with = html.split("name=\"pb.surface\"").nth(1).unwrap_or(&html);
        assert!(!with.contains("<!--") && !with.contains("inline"), "{with}");
        assert!(
            with.contains("<p data-pb-leaf=\"1\">Before.</p>") && with.contains("After  text."),
            "{with}"
        );
    }

    #[test]
    fn link_policy() {
        for bad in [
            "javascript:alert(1)",
            "JaVaScRiPt:x",
            "java\tscript:x",
            " vbscript:x",
            "data:text/html,x",
            "file:///etc",
            "\u{1}java\nscript:x",
            "javascript\u{7f}:x",
        ] {
            assert!(!is_safe_link(bad), "{bad}");
        }
        for good in [
            "https://a.example",
            "mailto:a@b",
            "/docs",
            "#frag",
            "page.html",
            "?q=1",
            "HT TPS://a.example",
            "docs/a:b",
            "#x:y",
        ] {
            assert!(is_safe_link(good), "{good}");
        }
        assert!(!is_safe_image("https://evil.example/p.png"));
        assert!(!is_safe_image("//evil.example/p.png"));
        assert!(is_safe_image("img/logo.png"));
    }

    #[test]
    fn cleaner_strips_scripts_and_handlers() {
        let out = clean(
            "<p onclick=\"x()\">hi<script>alert(1)</script><img src=\"https://e.x/a.png\"><a href=\"javascript:x\">l</a></p>",
        );
        assert!(
            !out.contains("onclick")
                && !out.contains("<script")
                && !out.contains("e.x")
                && !out.contains("javascript"),
            "{out}"
        );
    }
}
