//! Prose safety: a URL policy applied to every link and image in the AST (both render paths),
//! and ammonia over the prose HTML when the document contains raw HTML.

use ammonia::Builder;
use comrak::nodes::{AstNode, NodeValue};
use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use crate::options::ImagePolicy;

mod span;

/// Whether a link target may appear in the output: http(s), mailto, or a relative reference
/// (which may lead to another host, as an absolute http(s) link may).
pub fn is_safe_link(url: &str) -> bool {
    match scheme(url) {
        Scheme::None => true,
        Scheme::Named(s) => matches!(s.as_str(), "http" | "https" | "mailto"),
        Scheme::Garbled => false,
    }
}

/// The address an image is loaded from under `policy`, or `None` when the policy refuses it.
/// `absolute` (the email surface) refuses relative images, which cannot load in mail. Judged as
/// a browser's URL parser reads it against an http(s) page: a leading `//`, `\\`, `/\` or `\/`
/// (after tabs and newlines are removed) names another host and is refused whatever the policy
/// (an author writes `https://` for an image from the web); tabs and newlines are left out of
/// the address given back, as a browser leaves them out.
pub fn image_src<'u>(url: &'u str, policy: &ImagePolicy, absolute: bool) -> Option<Cow<'u, str>> {
    let plain = || -> Cow<'u, str> {
        if url.contains(['\t', '\n', '\r'])
            || url.trim_matches(|c: char| c <= ' ').len() != url.len()
        {
            Cow::Owned(prepared(url).collect())
        } else {
            Cow::Borrowed(url)
        }
    };
    match scheme(url) {
        Scheme::None => {
            let mut chars = prepared(url);
            let other_host = matches!(
                (chars.next(), chars.next()),
                (Some('/' | '\\'), Some('/' | '\\'))
            );
            (!other_host && !absolute).then(plain)
        }
        Scheme::Named(s) if s == "https" || s == "http" => {
            let url = plain();
            let host = web_host(&url)?;
            match policy {
                ImagePolicy::SameOrigin => None,
                ImagePolicy::Https => (s == "https").then_some(url),
                ImagePolicy::Hosts(hosts) => (s == "https" && hosts.contains(&host)).then_some(url),
                // An address on the proxy already (the prose writer's, seen again by the
                // sanitizer) is kept: only the proxy's key can sign one.
                ImagePolicy::Proxy(proxy)
                    if url
                        .strip_prefix(proxy.base())
                        .is_some_and(|rest| rest.starts_with('/')) =>
                {
                    Some(url)
                }
                ImagePolicy::Proxy(proxy) => Some(Cow::Owned(proxy.url_for(&url))),
            }
        }
        _ => None,
    }
}

/// The lowercased `host[:port]` of an absolute http(s) URL (tabs and newlines already out), or
/// `None` when it has none or carries credentials (`user@host`), which only serve to disguise
/// the host.
fn web_host(url: &str) -> Option<String> {
    let rest = &url[url.find(':')? + 1..];
    let rest = rest.trim_start_matches(['/', '\\']);
    let end = rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len());
    let host = &rest[..end];
    if host.is_empty() || host.contains('@') {
        return None;
    }
    let host = host.to_ascii_lowercase();
    Some(
        host.strip_suffix(":443")
            .map(str::to_string)
            .unwrap_or(host),
    )
}

/// A `srcset` with each candidate's address given by [`image_src`], or `None` when the policy
/// refuses any of them (the `src` then stands alone). Candidates are an address, optionally
/// followed by a descriptor (`2x`, `640w`), separated by commas.
pub fn image_srcset(srcset: &str, policy: &ImagePolicy, absolute: bool) -> Option<String> {
    let mut out = String::with_capacity(srcset.len());
    let mut rest = srcset;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == ',');
        if rest.is_empty() {
            break;
        }
        let url_end = rest
            .find(|c: char| c.is_ascii_whitespace())
            .unwrap_or(rest.len());
        let (mut url, mut after) = rest.split_at(url_end);
        let mut descriptor = "";
        if let Some(u) = url.strip_suffix(',') {
            url = u.trim_end_matches(',');
        } else {
            let end = after.find(',').unwrap_or(after.len());
            descriptor = after[..end].trim();
            after = &after[end..];
            if descriptor.contains(['(', ')']) || descriptor.split_whitespace().count() > 1 {
                return None;
            }
        }
        let src = image_src(url, policy, absolute)?;
        if src.contains([',', ' ']) {
            return None;
        }
        if !out.is_empty() {
            out.push_str(", ");
        }
        out.push_str(&src);
        if !descriptor.is_empty() {
            out.push(' ');
            out.push_str(descriptor);
        }
        rest = after;
    }
    (!out.is_empty()).then_some(out)
}

/// Whether a URL is an absolute http(s) address (a refused image is shown as a link to one).
pub fn is_web_link(url: &str) -> bool {
    matches!(&scheme(url), Scheme::Named(s) if s == "http" || s == "https")
}

/// What a URL's scheme is, as a browser reads it.
#[derive(Debug, PartialEq)]
enum Scheme {
    /// No scheme: a relative reference.
    None,
    /// The lowercased scheme.
    Named(String),
    /// Control characters inside the URL: refused whatever a browser would make of it.
    Garbled,
}

/// The URL's characters as the WHATWG URL parser reads them: leading and trailing C0 controls
/// and spaces stripped, and every tab, line feed and carriage return removed.
fn prepared(url: &str) -> impl Iterator<Item = char> + '_ {
    url.trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
}

/// The URL's scheme as a browser parses it: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` and
/// then `:`. Anything else before the first `:` (a `/`, `?`, `#`, `_`, a leading digit…) makes
/// the URL relative, so `my_file:1` and `2024-05-01T10:00.md` are paths. A URL that still holds
/// a control character (other than the tabs and newlines browsers drop) is refused outright.
fn scheme(url: &str) -> Scheme {
    let mut name = String::new();
    let mut relative = false;
    for (i, c) in prepared(url).enumerate() {
        if c.is_control() {
            return Scheme::Garbled;
        }
        if relative {
            continue;
        }
        match c {
            ':' if i > 0 => return Scheme::Named(name),
            c if c.is_ascii_alphabetic() => name.push(c.to_ascii_lowercase()),
            '0'..='9' | '+' | '-' | '.' if i > 0 => name.push(c),
            _ => relative = true,
        }
    }
    Scheme::None
}

/// The URL policy, applied node by node during the walk that finds the components (one walk of
/// the tree instead of two): unsafe links lose their target. Images are judged when the prose
/// is written, by the rendering's [`ImagePolicy`] (see [`image_src`]). Records whether raw HTML
/// is present.
#[derive(Default)]
pub struct Police<'a> {
    raw_html: bool,
    /// The headings and task items met, in order (see `document::Parsed::named`).
    pub named: Vec<&'a AstNode<'a>>,
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
            NodeValue::Link(link) if !is_safe_link(&link.url) => link.url = REFUSED.into(),
            NodeValue::Heading(_) | NodeValue::TaskItem(_) => self.named.push(node),
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

/// The target the URL policy gives a link it refuses (a NUL, which no parsed URL holds): the
/// prose writer then writes the link without an `href`, so its text stays and a click goes
/// nowhere.
pub const REFUSED: &str = "\0";

/// The tags GitHub's tag filter shows as text: their content is raw text to a browser, so left
/// open they would swallow or garble everything after them.
pub const FILTERED_TAGS: [&str; 9] = [
    "title",
    "textarea",
    "style",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "script",
    "plaintext",
];

/// The engine's own hooks: a class, id or `data-` attribute with this prefix belongs to the
/// engine's markup, and the script looks for nothing else, so prose may never carry one.
const HOOK_PREFIX: &str = "pb-";

/// How a rendering's raw HTML is sanitized: its image policy, and whether images must be
/// absolute (see [`image_src`]).
#[derive(Clone, PartialEq, Eq, Hash, Default, Debug)]
pub struct ImageRules {
    pub policy: ImagePolicy,
    pub absolute: bool,
    /// No image from the web at all (a mail message that holds its own images).
    pub none: bool,
    /// Where a relative image is resolved when images must be absolute (a mail's
    /// `--link-base`, as its links are): without it such an image cannot load.
    pub base: Option<String>,
}

impl ImageRules {
    /// The rules of a rendering with `options`.
    pub fn of(options: &crate::options::Options) -> ImageRules {
        let (absolute, any) = options.image_rules();
        ImageRules {
            policy: options.images.clone(),
            absolute,
            none: !any,
            base: options.link_base_url.clone().filter(|_| absolute),
        }
    }

    /// The address an image loads from under these rules, or `None` (see [`image_src`]).
    pub fn src<'u>(&self, url: &'u str) -> Option<Cow<'u, str>> {
        if self.none {
            return None;
        }
        if let Some(base) = self.base.as_deref()
            && !url.starts_with('#')
            && let Some(resolved) = crate::email::mail_text_url(url, Some(base))
            && resolved != url
        {
            return image_src(&resolved, &self.policy, self.absolute)
                .map(|src| Cow::Owned(src.into_owned()));
        }
        image_src(url, &self.policy, self.absolute)
    }

    /// A `srcset` under these rules, or `None` (see [`image_srcset`]).
    pub fn srcset(&self, srcset: &str) -> Option<String> {
        if self.none {
            return None;
        }
        image_srcset(srcset, &self.policy, self.absolute)
    }
}

/// The sanitizer for a document's raw HTML, run on each Markdown block on its own
/// ([`clean_blocks`]): the prose's own markup (leaf numbers, footnotes, task boxes) is written by
/// the engine around it and never goes through here, so raw HTML gets no class, id or `data-`
/// attribute that could pass for one of the engine's. Images pass by the rendering's
/// [`ImageRules`]: an `<img>`, its `srcset` and a `<picture>`'s `<source srcset>`, each address
/// rewritten as the rules say (a proxy's signed address); an image that passes is told to send
/// no referrer and to load lazily.
fn build_cleaner(rules: ImageRules) -> Builder<'static> {
    let mut b = Builder::default();
    b.add_tags([
        "input",
        "section",
        "figure",
        "figcaption",
        "mark",
        "picture",
        "source",
    ])
    .add_tag_attributes("input", ["type", "checked", "disabled"])
    // GitHub's idioms: collapsible sections that start open, and centred wrappers.
    .add_tag_attributes("details", ["open"])
    .add_tag_attributes("div", ["align"])
    .add_tag_attributes("p", ["align"])
    .add_tag_attributes("h1", ["align"])
    .add_tag_attributes("h2", ["align"])
    .add_tag_attributes("h3", ["align"])
    .add_tag_attributes("h4", ["align"])
    .add_tag_attributes("h5", ["align"])
    .add_tag_attributes("h6", ["align"])
    .add_tag_attributes("code", ["class"])
    .add_tag_attributes("a", ["id"])
    .add_tag_attributes("li", ["id"])
    .add_tag_attributes("ol", ["start"])
    .add_tag_attributes("th", ["align"])
    .add_tag_attributes("td", ["align"])
    .add_tag_attributes("img", ["srcset", "sizes"])
    .add_tag_attributes(
        "source",
        ["srcset", "sizes", "media", "type", "width", "height"],
    )
    .set_tag_attribute_value("img", "referrerpolicy", "no-referrer")
    .set_tag_attribute_value("img", "loading", "lazy")
    .set_tag_attribute_value("img", "decoding", "async")
    .url_schemes(HashSet::from(["http", "https", "mailto"]))
    .link_rel(Some("noopener noreferrer nofollow"))
    .attribute_filter(
        move |element, attribute, value| match (element, attribute) {
            ("img", "src") => {
                let src = rules.src(value).map(|v| Cow::Owned(v.into_owned()));
                if src.is_none() {
                    REFUSED_IMAGES.with(|n| n.set(n.get() + 1));
                }
                src
            }
            ("img" | "source", "srcset") => rules.srcset(value).map(Cow::Owned),
            ("a", "href") if !is_safe_link(value) => None,
            ("input", "type") if value != "checkbox" => None,
            (_, "id") if is_hook(value) => None,
            (_, "class") => {
                let kept: Vec<&str> = value
                    .split_ascii_whitespace()
                    .filter(|c| !is_hook(c))
                    .collect();
                (!kept.is_empty()).then(|| Cow::Owned(kept.join(" ")))
            }
            _ => Some(Cow::Borrowed(value)),
        },
    );
    b
}

/// The sanitizer for `rules`, built once per set of rules a process uses (a server has one or
/// two): a builder is some hundred small allocations.
fn cleaner(rules: &ImageRules) -> Arc<Builder<'static>> {
    static BUILT: Mutex<Vec<(ImageRules, Arc<Builder<'static>>)>> = Mutex::new(Vec::new());
    let mut built = BUILT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, b)) = built.iter().find(|(r, _)| r == rules) {
        return Arc::clone(b);
    }
    let b = Arc::new(build_cleaner(rules.clone()));
    // A few sets of rules at most are in use; a process that cycles through many keeps the
    // latest.
    if built.len() >= 8 {
        built.remove(0);
    }
    built.push((rules.clone(), Arc::clone(&b)));
    b
}

/// Whether a class or id names one of the engine's hooks.
fn is_hook(name: &str) -> bool {
    name.get(..HOOK_PREFIX.len())
        .is_some_and(|p| p.eq_ignore_ascii_case(HOOK_PREFIX))
}

thread_local! {
    /// The raw `<img>` whose address the rules refused, in the sanitizer's current call on this
    /// thread (the sanitizer is shared, its attribute filter has no other way out).
    static REFUSED_IMAGES: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Cleans one Markdown block's raw HTML: what it leaves open is closed at its end, so it cannot
/// wrap, swallow or escape into what follows. Images pass by `rules`.
pub fn clean(html: &str, rules: &ImageRules) -> String {
    clean_counting(html, rules).0
}

/// [`clean`], and how many raw `<img>` the rules kept from loading (each is left with its alt
/// text and no address), for the count of blocked images a host shows.
pub fn clean_counting(html: &str, rules: &ImageRules) -> (String, u32) {
    REFUSED_IMAGES.with(|n| n.set(0));
    let cleaned = inert_empty_links(with_alt(cleaner(rules).clean(html).to_string()));
    (cleaned, REFUSED_IMAGES.with(|n| n.replace(0)))
}

/// The index of the `>` that ends the tag starting at `lt` in the sanitizer's output (whose
/// attribute values are all quoted with `"`, and may hold a `>`), or the end of `html`.
fn tag_end(html: &str, lt: usize) -> usize {
    let bytes = html.as_bytes();
    let mut i = lt + 1;
    let mut quoted = false;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => quoted = !quoted,
            b'>' if !quoted => return i,
            _ => {}
        }
        i += 1;
    }
    html.len()
}

/// The sanitizer's `html` with each link that has nothing to read or see (only spaces, line
/// breaks and no-break spaces: what a browser makes of an `<a>` an author left unclosed across
/// other elements) written as a plain `<a>`: a keyboard stop with no name helps no one (axe's
/// link-name). A link with an `id` (a target) or any text or image is kept as it is.
fn inert_empty_links(html: String) -> String {
    if !html.contains("<a ") {
        return html;
    }
    let mut out = String::with_capacity(html.len());
    let mut copied = 0;
    let mut at = 0;
    while let Some(lt) = html[at..].find("<a ").map(|i| at + i) {
        let end = tag_end(&html, lt);
        at = (end + 1).min(html.len());
        let tag = &html[lt..end.min(html.len())];
        if !tag.contains(" href=\"") || tag.contains(" id=\"") {
            continue;
        }
        let Some(close) = html[at..].find("</a>").map(|i| at + i) else {
            break;
        };
        let inner = &html[at..close];
        if inner.contains("<img") {
            continue;
        }
        // The inner text, its tags (`<br>`, `<b>`…) left out.
        let mut text = String::new();
        let mut k = 0;
        while let Some(t) = inner[k..].find('<').map(|i| k + i) {
            text.push_str(&inner[k..t]);
            k = (tag_end(inner, t) + 1).min(inner.len());
        }
        text.push_str(&inner[k..]);
        if text
            .replace("&nbsp;", " ")
            .replace('\u{a0}', " ")
            .trim()
            .is_empty()
        {
            out.push_str(&html[copied..lt]);
            out.push_str("<a>");
            copied = at;
        }
    }
    out.push_str(&html[copied..]);
    out
}

/// The sanitizer's `html` with an `alt` on each `<img>` that has none, so a screen reader
/// names it, and names a link it is the only content of, by more than its address: the words of
/// its file's name (`discord-logo.png` → `discord logo`), or `image`. An `alt=""` the author
/// wrote (a decorative image) is kept. The sanitizer's output escapes every `<` in text and
/// quotes every attribute value with `"`, so each `<` outside a value starts a tag.
fn with_alt(html: String) -> String {
    if !html.contains("<img") {
        return html;
    }
    let bytes = html.as_bytes();
    let mut out = String::with_capacity(html.len() + 32);
    let mut copied = 0;
    let mut at = 0;
    while let Some(lt) = html[at..].find('<').map(|i| at + i) {
        let name_end = html[lt + 1..]
            .find(|c: char| !c.is_ascii_alphanumeric())
            .map_or(html.len(), |i| lt + 1 + i);
        let is_img = html[lt + 1..name_end].eq_ignore_ascii_case("img");
        // The attributes, to the tag's `>`.
        let (mut i, mut src, mut has_alt) = (name_end, None, false);
        while i < bytes.len() && bytes[i] != b'>' {
            if bytes[i].is_ascii_whitespace() || bytes[i] == b'/' {
                i += 1;
                continue;
            }
            let key_start = i;
            while i < bytes.len() && !matches!(bytes[i], b'=' | b'>' | b' ' | b'\t' | b'\n' | b'/')
            {
                i += 1;
            }
            let key = &html[key_start..i];
            if html[i..].starts_with("=\"") {
                let value_start = i + 2;
                let end = html[value_start..]
                    .find('"')
                    .map_or(html.len(), |e| value_start + e);
                if key.eq_ignore_ascii_case("src") {
                    src = Some(&html[value_start..end]);
                }
                i = (end + 1).min(html.len());
            }
            has_alt |= key.eq_ignore_ascii_case("alt");
        }
        if is_img && !has_alt {
            out.push_str(&html[copied..name_end]);
            out.push_str(" alt=\"");
            out.push_str(&file_words(src.unwrap_or("")));
            out.push('"');
            copied = name_end;
        }
        at = (i + 1).min(html.len());
        if at >= html.len() {
            break;
        }
    }
    out.push_str(&html[copied..]);
    out
}

/// The words of the file an image address names (its last path segment, without query,
/// fragment or extension, split at anything but letters and digits, `%20` read as a space), less
/// numbers and hashes (`174470852`, `ff230aa8`), or `image`; written as an attribute value
/// (only letters, digits and spaces are kept).
fn file_words(src: &str) -> String {
    let path = src.split(['?', '#']).next().unwrap_or("");
    let file = path.rsplit('/').next().unwrap_or("");
    let stem = file.rsplit_once('.').map_or(file, |(stem, _)| stem);
    let hash = |w: &str| {
        w.chars().all(|c| c.is_ascii_hexdigit()) && w.contains(|c: char| c.is_ascii_digit())
    };
    let words: Vec<String> = stem
        .replace("%20", " ")
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !hash(w))
        .map(str::to_string)
        .collect();
    if words.is_empty() {
        "image".to_string()
    } else {
        words.join(" ")
    }
}

/// `html` with the `<` of every [`FILTERED_TAGS`] start or end tag written as `&lt;`, as GitHub's
/// tag filter does: the tag shows as text and what follows it stays prose. `None` when there is
/// none.
pub fn filter_tags(html: &str) -> Option<String> {
    let bytes = html.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    for at in memchr::memchr_iter(b'<', bytes) {
        let name_at = at + 1 + usize::from(bytes.get(at + 1) == Some(&b'/'));
        let filtered = FILTERED_TAGS.iter().any(|tag| {
            bytes.len() >= name_at + tag.len()
                && bytes[name_at..name_at + tag.len()].eq_ignore_ascii_case(tag.as_bytes())
                && match bytes.get(name_at + tag.len()) {
                    None => true,
                    Some(c) => c.is_ascii_whitespace() || *c == b'>' || *c == b'/',
                }
        });
        if filtered {
            let o = out.get_or_insert_with(|| String::with_capacity(html.len() + 16));
            o.push_str(&html[copied..at]);
            o.push_str("&lt;");
            copied = at + 1;
        }
    }
    out.map(|mut o| {
        o.push_str(&html[copied..]);
        o
    })
}

/// Whether raw HTML leaves an element open or closes one it did not open (elements whose end
/// tag is optional, and void ones, aside), or leaves a comment open.
pub fn unbalanced(html: &str) -> bool {
    let bytes = html.as_bytes();
    let mut open: Vec<String> = Vec::new();
    let mut at = 0;
    while let Some(k) = memchr::memchr(b'<', &bytes[at..]) {
        let start = at + k + 1;
        if html[start..].starts_with("!--") {
            match html[start + 3..].find("-->") {
                Some(end) => {
                    at = start + 3 + end + 3;
                    continue;
                }
                None => return true,
            }
        }
        let closing = bytes.get(start) == Some(&b'/');
        let name_at = start + usize::from(closing);
        let len = bytes[name_at.min(bytes.len())..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        let name =
            html[name_at.min(html.len())..(name_at + len).min(html.len())].to_ascii_lowercase();
        let tag_end = memchr::memchr(b'>', &bytes[start..]).map(|e| start + e);
        at = tag_end.map_or(bytes.len(), |e| e + 1);
        if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            continue;
        }
        if NOT_NESTING.contains(&name.as_str()) || name == "input" || name == "img" {
            continue;
        }
        let self_closing = tag_end.is_some_and(|e| e > start && bytes[e - 1] == b'/');
        if closing {
            // Down to the element it closes, past those whose end tag may be left out.
            loop {
                match open.pop() {
                    Some(top) if top == name => break,
                    Some(top) if IMPLIED_END.contains(&top.as_str()) => {}
                    _ => return true,
                }
            }
        } else if !self_closing {
            open.push(name);
        }
    }
    open.iter().any(|e| !IMPLIED_END.contains(&e.as_str()))
}

/// Elements whose end tag HTML lets an author leave out (besides those in [`NOT_NESTING`]).
const IMPLIED_END: [&str; 8] = [
    "thead", "tbody", "tfoot", "colgroup", "caption", "html", "head", "body",
];

/// What [`raw_notes`] found to tell the author about, at a line and column of the Markdown.
#[derive(Debug, PartialEq)]
pub struct RawNote {
    pub line: usize,
    pub column: usize,
    /// A tag-filter tag was shown as text.
    pub filtered: bool,
    /// The block's raw HTML was not balanced on its own and was closed at the block's end.
    pub unbalanced: bool,
}

/// The blocks holding raw HTML, in document order: each HTML block, and each paragraph,
/// heading or table cell holding inline HTML (with its first raw node, for the position).
fn raw_blocks<'a>(root: &'a AstNode<'a>) -> Vec<(&'a AstNode<'a>, &'a AstNode<'a>)> {
    let mut out: Vec<(&'a AstNode<'a>, &'a AstNode<'a>)> = Vec::new();
    for node in root.descendants() {
        match node.data().value {
            NodeValue::HtmlBlock(_) => out.push((node, node)),
            NodeValue::HtmlInline(_) => {
                let container = node
                    .ancestors()
                    .skip(1)
                    .find(|n| n.data().value.block())
                    .unwrap_or(root);
                if out.last().is_none_or(|(c, _)| !std::ptr::eq(*c, container)) {
                    out.push((container, node));
                }
            }
            _ => {}
        }
    }
    out
}

/// What the author should hear about the document's raw HTML, block by block (see
/// [`clean_blocks`]): tags shown as text, and HTML closed at its block's end.
pub fn raw_notes<'a>(root: &'a AstNode<'a>, components: &[&'a AstNode<'a>]) -> Vec<RawNote> {
    // Which blocks a span holds does not depend on the images.
    let spanned = spanned_blocks(&span::spans(root, components, &ImageRules::default()));
    let mut notes = Vec::new();
    for (block, first_raw) in raw_blocks(root) {
        if spanned.contains(&(block as *const _)) {
            continue;
        }
        let mut raw = String::new();
        for node in block.descendants() {
            match &node.data().value {
                NodeValue::HtmlBlock(b) => raw.push_str(&b.literal),
                NodeValue::HtmlInline(h) => raw.push_str(h),
                _ => {}
            }
        }
        let filtered = filter_tags(&raw);
        let unbalanced = unbalanced(filtered.as_deref().unwrap_or(&raw));
        if filtered.is_some() || unbalanced {
            let at = first_raw.data().sourcepos.start;
            notes.push(RawNote {
                line: at.line,
                column: at.column,
                filtered: filtered.is_some(),
                unbalanced,
            });
        }
    }
    notes
}

/// Sanitizes the document's raw HTML one Markdown block at a time: each HTML block, and each
/// paragraph's, heading's or table cell's inline HTML together with the Markdown around it.
/// Every block's HTML is balanced and closed on its own, so no raw tag can wrap, swallow or
/// escape content beyond its block, and the [`FILTERED_TAGS`] show as text. Afterwards the tree
/// holds only clean raw HTML. `write` writes a node's HTML as the prose writer does. `mark` is
/// text the document cannot spell (see `render::marker_char`), used to keep footnote references
/// (which carry the engine's own attributes) out of the sanitizer. Returns how many raw `<img>`
/// the image rules kept from loading.
pub fn clean_blocks<'a>(
    root: &'a AstNode<'a>,
    components: &[&'a AstNode<'a>],
    write: &dyn Fn(&'a AstNode<'a>, &mut String),
    mark: &str,
    rules: &ImageRules,
) -> u32 {
    // Blocks first, then changes: the tree is not changed while it is walked.
    let spans = span::spans(root, components, rules);
    let spanned = spanned_blocks(&spans);
    let blocks = raw_blocks(root);
    let mut refused = 0;
    for span in spans {
        refused += span.refused_images;
        for (block, html) in span.blocks {
            if let NodeValue::HtmlBlock(b) = &mut block.data_mut().value {
                b.literal = html;
            }
        }
    }
    for (block, _) in blocks {
        if spanned.contains(&(block as *const _)) {
            continue;
        }
        let mut data = block.data_mut();
        if let NodeValue::HtmlBlock(b) = &mut data.value {
            let filtered = filter_tags(&b.literal);
            let (cleaned, n) = clean_counting(filtered.as_deref().unwrap_or(&b.literal), rules);
            b.literal = cleaned;
            refused += n;
            continue;
        }
        drop(data);
        let (html, n) = inline_html(block, write, mark, rules);
        refused += n;
        // One raw node holds the block's content now.
        let mut children = block.children();
        let Some(first) = children.next() else {
            continue;
        };
        for rest in children.collect::<Vec<_>>() {
            rest.detach();
        }
        for inner in first.children().collect::<Vec<_>>() {
            inner.detach();
        }
        first.data_mut().value = NodeValue::HtmlInline(html);
    }
    refused
}

/// The HTML blocks the spans hold, which are clean already and are no one block's to balance.
fn spanned_blocks<'a>(spans: &[span::Span<'a>]) -> HashSet<*const AstNode<'a>> {
    spans
        .iter()
        .flat_map(|s| s.blocks.iter().map(|(b, _)| *b as *const _))
        .collect()
}

/// A block's inline content as clean HTML, and how many raw `<img>` the rules refused.
fn inline_html<'a>(
    container: &'a AstNode<'a>,
    write: &dyn Fn(&'a AstNode<'a>, &mut String),
    mark: &str,
    rules: &ImageRules,
) -> (String, u32) {
    // The footnote references stand in as text while the sanitizer runs.
    let mut refs = Vec::new();
    for node in container.descendants() {
        if matches!(node.data().value, NodeValue::FootnoteReference(_)) {
            let mut html = String::new();
            write(node, &mut html);
            let stand_in = format!("{mark}fn{}{mark}", refs.len());
            node.data_mut().value = NodeValue::Text(stand_in.clone().into());
            refs.push((stand_in, html));
        }
    }
    let mut html = String::new();
    for child in container.children() {
        write(child, &mut html);
    }
    let filtered = filter_tags(&html);
    let (mut clean, refused) = clean_counting(filtered.as_deref().unwrap_or(&html), rules);
    for (stand_in, html) in refs {
        clean = clean.replacen(&stand_in, &html, 1);
    }
    (clean, refused)
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
            // Not a scheme by the URL standard: a relative path.
            "my_file:1",
            "2024-05-01T10:00.md",
            "foo):",
            "-x:y",
        ] {
            assert!(is_safe_link(good), "{good}");
        }
    }

    fn proxy() -> ImagePolicy {
        ImagePolicy::Proxy(
            crate::options::ImageProxy::new("https://camo.example/", b"key".to_vec()).unwrap(),
        )
    }

    #[test]
    fn image_policy() {
        let same = ImagePolicy::SameOrigin;
        let https = ImagePolicy::Https;
        let hosts = ImagePolicy::Hosts(vec!["img.example".into(), "cdn.example:8443".into()]);
        let every = [same.clone(), https.clone(), hosts.clone(), proxy()];
        // Never an image, whatever the policy: another host spelled as a path, scripts, data.
        for hostile in [
            "//evil.example/p.png",
            "/\\evil.example/p.png",
            "\\/evil.example/p.png",
            "\\\\evil.example/p.png",
            "/\t/evil.example/p.png",
            "\n//evil.example/p.png",
            " /\r\n/evil.example",
            "javascript:alert(1)",
            "data:image/png;base64,AAAA",
            "data:image/svg+xml,<svg onload=alert(1)>",
            "file:///etc/passwd",
            "java\tscript:x",
            "https://user@img.example/p.png",
        ] {
            for policy in &every {
                assert_eq!(
                    image_src(hostile, policy, false),
                    None,
                    "{hostile:?} {policy:?}"
                );
            }
        }
        // Relative images are the page's own, but not in mail.
        for relative in ["img/logo.png", "/img/logo.png", "a//b.png"] {
            for policy in &every {
                assert_eq!(
                    image_src(relative, policy, false).as_deref(),
                    Some(relative)
                );
                assert_eq!(image_src(relative, policy, true), None);
            }
        }
        let web = "https://img.example/p.png";
        assert_eq!(image_src(web, &same, false), None);
        assert_eq!(image_src(web, &https, false).as_deref(), Some(web));
        assert_eq!(image_src(web, &https, true).as_deref(), Some(web));
        assert_eq!(image_src("http://img.example/p.png", &https, false), None);
        assert_eq!(image_src(web, &hosts, false).as_deref(), Some(web));
        assert!(image_src("HTTPS://IMG.example:443/p.png", &hosts, false).is_some());
        assert!(image_src("https://cdn.example:8443/a.png", &hosts, false).is_some());
        for elsewhere in [
            "https://cdn.example/a.png",
            "https://img.example.evil.example/p.png",
            "https://evil.example/img.example/p.png",
            "https://evil.example\\@img.example/p.png",
            "https://evil.example?img.example",
        ] {
            assert_eq!(image_src(elsewhere, &hosts, false), None, "{elsewhere}");
        }
        // Browsers drop tabs and newlines: so does the address given back, and the host check.
        assert_eq!(
            image_src("https://img.exam\tple/p.png", &hosts, false).as_deref(),
            Some(web)
        );
        // The proxy: camo's address, HMAC-SHA256 of the URL with the key, then the URL in hex.
        let proxied = image_src("http://a.example/x.png", &proxy(), false).unwrap();
        assert_eq!(
            proxied,
            "https://camo.example/".to_string()
                + "f2cb1ad4fd93f31bc7144501a33d60f5a55b9431f9fb1e9d2a2ae70f4d41f7f4/"
                + "687474703a2f2f612e6578616d706c652f782e706e67"
        );
        // Seen again (the sanitizer after the prose writer), a proxy address stays as it is.
        assert_eq!(
            image_src(&proxied, &proxy(), false).as_deref(),
            Some(&*proxied)
        );
    }

    #[test]
    fn srcset_follows_the_policy() {
        let https = ImagePolicy::Https;
        assert_eq!(
            image_srcset("a.png 1x,https://i.example/b.png 2x", &https, false).as_deref(),
            Some("a.png 1x, https://i.example/b.png 2x")
        );
        assert_eq!(
            image_srcset("https://i.example/b.png, c.png", &https, false).as_deref(),
            Some("https://i.example/b.png, c.png")
        );
        for refused in [
            "a.png 1x, //evil.example/b.png 2x",
            "a.png 1x, javascript:x 2x",
            "https://i.example/b.png 2x",
        ] {
            let policy = if refused.starts_with("https") {
                ImagePolicy::SameOrigin
            } else {
                https.clone()
            };
            assert_eq!(image_srcset(refused, &policy, false), None, "{refused}");
        }
        let proxied = image_srcset("http://a.example/x.png 2x", &proxy(), false).unwrap();
        assert!(
            proxied.starts_with("https://camo.example/") && proxied.ends_with(" 2x"),
            "{proxied}"
        );
    }

    #[test]
    fn tag_filter_and_balance() {
        assert_eq!(
            filter_tags("<SCRIPT>x</script> <b>y</b> <scripts> <title\n>").as_deref(),
            Some("&lt;SCRIPT>x&lt;/script> <b>y</b> <scripts> &lt;title\n>")
        );
        assert_eq!(filter_tags("<b>fine</b>"), None);
        for balanced in [
            "<b>x</b>",
            "<p>a<br>b",
            "<ul><li>a<li>b</ul>",
            "<img src=x>",
            "<x-y/>",
            "<!-- c -->",
        ] {
            assert!(!unbalanced(balanced), "{balanced}");
        }
        for not in [
            "<b>x",
            "</b>",
            "<a href=x>",
            "<div><span></div></span>",
            "<!-- open",
        ] {
            assert!(unbalanced(not), "{not}");
        }
    }

    #[test]
    fn cleaner_strips_scripts_and_handlers() {
        let out = clean(
            "<p onclick=\"x()\">hi<script>alert(1)</script><img src=\"https://e.x/a.png\"><a href=\"javascript:x\">l</a></p>",
            &ImageRules {
                policy: ImagePolicy::SameOrigin,
                ..ImageRules::default()
            },
        );
        assert!(
            !out.contains("onclick")
                && !out.contains("<script")
                && !out.contains("e.x")
                && !out.contains("javascript"),
            "{out}"
        );
    }

    /// Every heading level keeps its alignment, as on GitHub (READMEs centre an `<h4>` of links
    /// under their logo).
    #[test]
    fn headings_of_every_level_keep_their_alignment() {
        for level in 1..=6 {
            let html = format!("<h{level} align=\"center\">Docs | Blog</h{level}>");
            assert_eq!(clean(&html, &ImageRules::default()), html);
        }
    }

    /// A raw `<img>` without an `alt` is named by its file; an empty `alt` stays empty, and an
    /// `alt` or `<img` inside another attribute's value changes nothing.
    #[test]
    fn raw_images_without_alt_are_named_by_their_file() {
        let rules = ImageRules::default();
        for (html, alt) in [
            (
                "<img src=\"https://i.example/a/discord-logo.png?v=2\">",
                "discord logo",
            ),
            (
                "<img src=\"https://i.example/badge/build%20status\" width=\"80\">",
                "build status",
            ),
            ("<img src=\"https://i.example/\">", "image"),
            (
                "<img src=\"https://i.example/174470852-339b5011-ff230aa8cd4e.png\">",
                "image",
            ),
            ("<img src=\"//evil.example/x.png\">", "image"),
            ("<img src=\"https://i.example/x.png\" alt=\"\">", ""),
            ("<img alt=\"Logo\" src=\"https://i.example/x.png\">", "Logo"),
        ] {
            let out = clean(html, &rules);
            assert!(out.contains(&format!("alt=\"{alt}\"")), "{html} → {out}");
            assert_eq!(out.matches("alt=").count(), 1, "{out}");
        }
        let quoted = clean(
            "<a href=\"https://e.example/\" title=\"<img src=x>\">text</a><img alt=\"a\" src=\"b.png\">",
            &rules,
        );
        assert_eq!(quoted.matches("alt=").count(), 1, "{quoted}");
    }

    /// A link with nothing in it to read is no link (what a browser makes of an `<a>` left
    /// open across a `</sup>` or a `<div>`); a target, a link with words or with an image, is
    /// kept.
    #[test]
    fn links_with_nothing_to_read_are_inert() {
        let rules = ImageRules::default();
        let out = clean(
            "<sup><a href=\"https://e.example/\">1</sup><br>&nbsp;&nbsp; </a>",
            &rules,
        );
        assert_eq!(out.matches(" href=").count(), 1, "{out}");
        assert!(out.contains("<a>"), "{out}");
        for kept in [
            "<a href=\"https://e.example/\">x</a>",
            "<a href=\"https://e.example/\"><img src=\"https://i.example/a.png\" alt=\"a\"></a>",
            "<a href=\"#top\" title=\"a > b\"><b>Top</b></a>",
            "<a id=\"anchor\" href=\"#anchor\"></a>",
        ] {
            assert!(clean(kept, &rules).contains(" href="), "{kept}");
        }
    }

    /// A raw `<img>` the rules refuse is counted; one they let load, one with no address and a
    /// refused `srcset` (the `src` still loads) are not.
    #[test]
    fn refused_raw_images_are_counted() {
        let hosts = ImageRules {
            policy: ImagePolicy::Hosts(vec!["i.example".into()]),
            ..ImageRules::default()
        };
        let (out, refused) = clean_counting(
            "<img src=\"https://i.example/a.png\" srcset=\"https://e.example/b.png 2x\">\
             <img src=\"https://e.example/c.png\" alt=\"c\"><img alt=\"none\">\
             <p><img src=\"http://i.example/d.png\"></p>",
            &hosts,
        );
        assert_eq!(refused, 2, "{out}");
        assert!(
            out.contains("alt=\"c\"") && !out.contains("e.example"),
            "{out}"
        );
        // The count is per call.
        assert_eq!(
            clean_counting("<img src=\"https://i.example/a.png\">", &hosts).1,
            0
        );
    }

    #[test]
    fn raw_images_follow_the_policy() {
        let https = ImageRules::default();
        let out = clean(
            "<p align=\"center\"><img src=\"https://i.example/a.png\" alt=\"logo\" referrerpolicy=\"unsafe-url\" loading=\"eager\" onerror=\"x()\"></p>\
             <picture><source media=\"(prefers-color-scheme: dark)\" srcset=\"https://i.example/d.png\"><source srcset=\"//evil.example/x.png\"><img src=\"http://i.example/l.png\" srcset=\"https://i.example/l.png 2x\"></picture>",
            &https,
        );
        assert!(
            out.contains("src=\"https://i.example/a.png\"")
                && out.contains("referrerpolicy=\"no-referrer\"")
                && out.contains("loading=\"lazy\"")
                && out.contains("decoding=\"async\"")
                && !out.contains("unsafe-url")
                && !out.contains("eager")
                && !out.contains("onerror"),
            "{out}"
        );
        assert!(
            out.contains("<picture><source media=\"(prefers-color-scheme: dark)\" srcset=\"https://i.example/d.png\">")
                && !out.contains("evil.example")
                && !out.contains("http://i.example")
                && out.contains("srcset=\"https://i.example/l.png 2x\""),
            "{out}"
        );
        let proxied = clean(
            "<img src=\"https://i.example/a.png\" srcset=\"https://i.example/b.png 2x\">",
            &ImageRules {
                policy: proxy(),
                ..ImageRules::default()
            },
        );
        assert!(
            !proxied.contains("i.example") && proxied.matches("https://camo.example/").count() == 2,
            "{proxied}"
        );
        let mail = clean(
            "<img src=\"logo.png\"><img src=\"https://i.example/a.png\">",
            &ImageRules {
                absolute: true,
                ..ImageRules::default()
            },
        );
        assert!(
            !mail.contains("logo.png") && mail.contains("https://i.example/a.png"),
            "{mail}"
        );
        // With a base, a mail's relative image loads from it, as its links do.
        let based = clean(
            "<img src=\"img/logo.png\" alt=\"logo\"><img src=\"javascript:x\" alt=\"js\">",
            &ImageRules {
                absolute: true,
                base: Some("https://docs.example/guide/".into()),
                ..ImageRules::default()
            },
        );
        assert!(
            based.contains("src=\"https://docs.example/guide/img/logo.png\"")
                && !based.contains("javascript"),
            "{based}"
        );
    }
}
