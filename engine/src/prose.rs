//! Prose leaves (contract §7): the paragraphs, headings, table rows and code blocks outside the
//! components, numbered in document order from 1, which a reader may comment on. The page marks
//! each one with `data-pb-leaf="N"` as comrak writes it ([`write_html`]); the answers read each
//! one's visible text ([`texts`]) to check a quoted excerpt and to quote the leaf in the export.
//!
//! A paragraph of a tight list item has no element of its own, so its text is wrapped in a
//! `<span data-pb-leaf>`. Components are raw nodes by the time the page is written, so they
//! never take a number.

use crate::sanitize::ImageRules;
use comrak::html::{ChildRendering, Context, format_document_with_formatter, format_node_default};
use comrak::nodes::{AstNode, NodeValue};
use std::fmt::{self, Write};

/// Whether a node of this kind is a leaf when it is not a component's node.
pub fn is_leaf(value: &NodeValue) -> bool {
    matches!(
        value,
        NodeValue::Paragraph
            | NodeValue::Heading(_)
            | NodeValue::TableRow(_)
            | NodeValue::CodeBlock(_)
    )
}

/// Whether the leaves are numbered.
#[derive(Clone, Copy, PartialEq)]
pub enum Marks {
    /// `data-pb-leaf="N"` on every leaf. A document's raw HTML never goes through as such
    /// (`sanitize::clean_blocks` drops any `data-` attribute it spells), so every number on the
    /// page is the engine's.
    Plain,
    /// No numbers (mail: nothing there takes comments).
    Unnumbered,
}

/// The formatter's state: the next leaf number and how to write it.
struct Counter<'r> {
    last: u32,
    marks: bool,
    /// The opening tag being written.
    buf: String,
    /// Which images may load.
    images: &'r ImageRules,
    /// Images the rules refused.
    blocked: u32,
    /// The headings' ids and the tasks' names, and how many of each are written.
    anchors: &'r Anchors,
    headings: usize,
    tasks: usize,
}

/// The ids of a document's headings, as GitHub makes them: the heading's text lowercased,
/// every character but letters, marks, numbers, `_`-like connectors, spaces and `-` removed,
/// spaces made `-`, and a repeated id given `-1`, `-2`… (comrak's [`comrak::Anchorizer`], which
/// follows GitHub's). `[see below](#install)` then finds `## Install` on the page, from any
/// link, typed address or other page, with or without the script.
///
/// The engine's own ids start with `pb-`, and comrak's footnotes use `fn-` and `fnref-`: a
/// heading whose id would start with one of those (or with `user-content-`) gets GitHub's
/// `user-content-` in front, and the document's in-page links to it are written to match, so
/// no heading can take an id the engine's markup uses.
///
/// Read from the same tree, before the sanitizer changes it, the task-list items' names too:
/// each checkbox is named by its item's text (see [`write_task`]).
#[derive(Default, Debug)]
pub struct Anchors {
    /// Each heading's id, in document order (empty when its text gives none).
    ids: Vec<String>,
    /// Each task item's text, in document order.
    tasks: Vec<String>,
    /// The ids given `user-content-` (without it), for the in-page links to them.
    moved: Vec<String>,
}

/// A heading's text as GitHub makes its id from it: text and code as written, a space for a
/// line break, and an emoji shortcode as its name (`## :rocket: Launch` is `#rocket-launch`).
fn heading_text<'a>(heading: &'a AstNode<'a>, text: &mut String) {
    for node in heading.descendants() {
        match &node.data().value {
            NodeValue::Text(t) => text.push_str(t),
            NodeValue::Code(c) => text.push_str(&c.literal),
            NodeValue::ShortCode(sc) => text.push_str(&sc.code),
            NodeValue::LineBreak | NodeValue::SoftBreak => text.push(' '),
            _ => {}
        }
    }
}

/// The prefix GitHub gives the ids in a document's content.
const CONTENT_PREFIX: &str = "user-content-";

impl Anchors {
    /// The ids of the headings and the names of the task items among `named` (the document's
    /// headings and task items in order, `document::Parsed::named`), read before the sanitizer
    /// changes any of them.
    pub fn of_nodes<'a>(named: &[&'a AstNode<'a>]) -> Anchors {
        if named.is_empty() {
            return Anchors::default();
        }
        let mut anchors = Anchors {
            ids: Vec::with_capacity(named.len()),
            ..Anchors::default()
        };
        let mut slugs = Slugs {
            few: Vec::with_capacity(named.len().min(FEW_SLUGS)),
            ..Slugs::default()
        };
        let mut text = String::with_capacity(64);
        for node in named {
            text.clear();
            match node.data().value {
                NodeValue::Heading(_) => {}
                NodeValue::TaskItem(_) => {
                    if let Some(first) = node.first_child() {
                        first.collect_text_append(&mut text);
                    }
                    let mut name = String::with_capacity(text.len());
                    collapse_into(&text, &mut name);
                    anchors.tasks.push(name);
                    continue;
                }
                _ => continue,
            }
            heading_text(node, &mut text);
            let slug = slugs.unique(&text);
            let reserved = ["pb-", "fn-", "fnref-", CONTENT_PREFIX]
                .iter()
                .any(|p| slug.starts_with(p));
            if reserved {
                anchors.ids.push(format!("{CONTENT_PREFIX}{slug}"));
                anchors.moved.push(slug);
            } else {
                anchors.ids.push(slug);
            }
        }
        anchors
    }

    /// [`Anchors::of_nodes`] of every heading and task item under `root`.
    #[cfg(test)]
    pub fn of<'a>(root: &'a AstNode<'a>) -> Anchors {
        let named: Vec<&'a AstNode<'a>> = root
            .descendants()
            .filter(|n| {
                matches!(
                    n.data().value,
                    NodeValue::Heading(_) | NodeValue::TaskItem(_)
                )
            })
            .collect();
        Anchors::of_nodes(&named)
    }

    /// The target an in-page link to `fragment` is written with: `user-content-` in front when
    /// the heading it names was given it.
    fn moved(&self, fragment: &str) -> bool {
        !self.moved.is_empty() && self.moved.iter().any(|m| m == fragment)
    }
}

/// GitHub's heading ids, made unique as comrak's [`comrak::Anchorizer`] makes them (a repeat
/// takes the first free `-1`, `-2`…). An ASCII heading, the common case, is made into its slug
/// here in one pass; any other goes through comrak's, whose Unicode categories decide. The ids
/// given are looked up in a list while there are few (a typical document has some tens of
/// headings, and a list costs no hashing), in a set beyond that.
#[derive(Default)]
struct Slugs {
    few: Vec<String>,
    many: std::collections::HashSet<String>,
    /// Where the search for a free suffix starts, for a slug given more than once (the first
    /// free one is always at or past it, as nothing is ever taken back).
    next: Vec<(String, usize)>,
}

/// How many ids [`Slugs`] keeps in its list.
const FEW_SLUGS: usize = 64;

impl Slugs {
    fn taken(&self, id: &str) -> bool {
        self.few.iter().any(|t| t == id) || (!self.many.is_empty() && self.many.contains(id))
    }

    fn unique(&mut self, text: &str) -> String {
        let slug = if text.is_ascii() {
            let bytes: Vec<u8> = text
                .bytes()
                .filter_map(|b| match b {
                    b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' => Some(b),
                    b'A'..=b'Z' => Some(b.to_ascii_lowercase()),
                    b' ' => Some(b'-'),
                    _ => None,
                })
                .collect();
            // Only ASCII bytes were kept.
            String::from_utf8(bytes).unwrap_or_default()
        } else {
            // A fresh anchorizer gives the bare slug, with no suffix.
            comrak::Anchorizer::new().anchorize(text)
        };
        let chosen = if self.taken(&slug) {
            let at = self.next.iter().position(|(s, _)| *s == slug);
            let mut n = at.map_or(1, |i| self.next[i].1);
            let mut candidate = String::with_capacity(slug.len() + 4);
            let chosen = loop {
                candidate.clear();
                candidate.push_str(&slug);
                candidate.push('-');
                candidate.push_str(itoa::Buffer::new().format(n));
                if !self.taken(&candidate) {
                    break candidate;
                }
                n += 1;
            };
            match at {
                Some(i) => self.next[i].1 = n + 1,
                None => self.next.push((slug, n + 1)),
            }
            chosen
        } else {
            slug
        };
        if self.few.len() < FEW_SLUGS {
            self.few.push(chosen.clone());
        } else {
            self.many.insert(chosen.clone());
        }
        chosen
    }
}

/// What [`write_html`] wrote besides the HTML.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Written {
    /// How many leaves it marked.
    pub leaves: u32,
    /// How many Markdown images the image rules refused (each shown as a link or its words).
    pub blocked_images: u32,
}

/// Writes the tree's HTML as `comrak::format_html` does with `options`, each leaf marked, each
/// image loaded or refused by `images`, and each heading given its id from `anchors` (see
/// [`Anchors::of`], read from the same tree).
pub fn write_html<'a>(
    root: &'a AstNode<'a>,
    options: &comrak::Options,
    marks: Marks,
    images: &ImageRules,
    anchors: &Anchors,
    out: &mut dyn Write,
) -> Written {
    let counter = Counter {
        last: 0,
        buf: String::with_capacity(64),
        marks: marks == Marks::Plain,
        images,
        blocked: 0,
        anchors,
        headings: 0,
        tasks: 0,
    };
    let plugins = comrak::options::Plugins::default();
    // Writing into a String cannot fail.
    format_document_with_formatter(root, options, out, &plugins, leaf_node, counter).map_or(
        Written::default(),
        |c| Written {
            leaves: c.last,
            blocked_images: c.blocked,
        },
    )
}

/// `{tag} data-pb-leaf="N">`, the next number, in one write: a write into the page costs more
/// than the few bytes it copies, and a typical 20 KB document has some 600 leaves.
fn open_tag(cx: &mut Context<Counter<'_>>, tag: &str) -> fmt::Result {
    if !cx.user.marks {
        cx.write_str(tag)?;
        return cx.write_str(">");
    }
    cx.user.last += 1;
    let mut buf = std::mem::take(&mut cx.user.buf);
    buf.clear();
    buf.push_str(tag);
    buf.push_str(" data-pb-leaf=\"");
    buf.push_str(itoa::Buffer::new().format(cx.user.last));
    buf.push_str("\">");
    let written = cx.write_str(&buf);
    cx.user.buf = buf;
    written
}

/// comrak's own formatting, with the leaf's opening tag written by [`leaf_tag`] to carry its
/// number. Every node of the prose passes through here twice, so the test is kept to one
/// borrow and one comparison, and the call that follows can be a jump: about 10 instructions
/// per node instead of the 25 a single `match` over both cases took.
fn leaf_node<'a>(
    cx: &mut Context<Counter<'_>>,
    node: &'a AstNode<'a>,
    entering: bool,
) -> Result<ChildRendering, fmt::Error> {
    let leaf = match node.data().value {
        NodeValue::Paragraph
        | NodeValue::Heading(_)
        | NodeValue::TableRow(_)
        | NodeValue::CodeBlock(_) => cx.user.marks,
        NodeValue::Link(_) | NodeValue::Alert(_) | NodeValue::Image(_) | NodeValue::TaskItem(_) => {
            true
        }
        _ => false,
    };
    if leaf {
        leaf_tag(cx, node, entering)
    } else {
        format_node_default(cx, node, entering)
    }
}

/// A leaf's tags. What comrak would write is copied from its `render_paragraph`,
/// `render_heading`, `render_table_row` and `render_code_block` for the options the engine uses
/// (no source positions, heading ids, syntax highlighting or GitHub `lang`); a test holds the
/// result to comrak's output with the marks taken out.
#[inline(never)]
fn leaf_tag<'a>(
    cx: &mut Context<Counter<'_>>,
    node: &'a AstNode<'a>,
    entering: bool,
) -> Result<ChildRendering, fmt::Error> {
    match node.data().value {
        NodeValue::Paragraph => {
            let tight =
                node.parent()
                    .and_then(|n| n.parent())
                    .is_some_and(|n| match n.data().value {
                        NodeValue::List(nl) => nl.tight,
                        NodeValue::DescriptionItem(ndi) => ndi.tight,
                        _ => false,
                    })
                    || node
                        .parent()
                        .is_some_and(|n| matches!(n.data().value, NodeValue::DescriptionTerm));
            let in_title = node
                .parent()
                .is_some_and(|n| matches!(n.data().value, NodeValue::CalloutTitle));
            if in_title {
                format_node_default(cx, node, entering)
            } else if tight {
                // comrak writes no element: the text gets a span of its own.
                if entering {
                    let r = format_node_default(cx, node, true)?;
                    open_tag(cx, "<span")?;
                    Ok(r)
                } else {
                    cx.write_str("</span>")?;
                    format_node_default(cx, node, false)
                }
            } else if entering {
                cx.cr()?;
                open_tag(cx, "<p")?;
                Ok(ChildRendering::HTML)
            } else {
                // A footnote's back-reference, then `</p>`.
                format_node_default(cx, node, false)
            }
        }
        NodeValue::Heading(ref nh)
            if entering
                && cx.options.extension.header_id_prefix.is_none()
                && cx.plugins.render.heading_adapter.is_none() =>
        {
            cx.cr()?;
            const TAGS: [&str; 6] = ["<h1", "<h2", "<h3", "<h4", "<h5", "<h6"];
            let tag = TAGS[usize::from(nh.level.clamp(1, 6)) - 1];
            let at = cx.user.headings;
            cx.user.headings += 1;
            let anchors = cx.user.anchors;
            match anchors.ids.get(at).filter(|id| !id.is_empty()) {
                Some(id) => {
                    cx.write_str(tag)?;
                    cx.write_str(" id=\"")?;
                    cx.escape(id)?;
                    cx.write_str("\"")?;
                    open_tag(cx, "")?;
                }
                None => open_tag(cx, tag)?,
            }
            Ok(ChildRendering::HTML)
        }
        NodeValue::TableRow(thead) if entering => {
            cx.cr()?;
            if thead {
                cx.write_str("<thead>")?;
                cx.lf()?;
            } else if let Some(n) = node.previous_sibling()
                && let NodeValue::TableRow(true) = n.data().value
            {
                cx.write_str("<tbody>")?;
                cx.lf()?;
            }
            open_tag(cx, "<tr")?;
            Ok(ChildRendering::HTML)
        }
        NodeValue::CodeBlock(ref ncb)
            if entering
                && cx.plugins.render.codefence_syntax_highlighter.is_none()
                && cx.plugins.render.codefence_renderers.is_empty()
                && !cx.options.render.github_pre_lang
                && !cx.options.render.full_info_string =>
        {
            cx.cr()?;
            open_tag(cx, "<pre")?;
            cx.write_str("<code")?;
            let info = ncb.info.as_str();
            let lang_end = info
                .bytes()
                .position(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r'))
                .unwrap_or(info.len());
            let lang = &info[..lang_end];
            if lang == "math" {
                cx.write_str(" class=\"language-math\" data-math-style=\"display\"")?;
            } else if !info.is_empty() {
                cx.write_str(" class=\"language-")?;
                cx.escape(lang)?;
                cx.write_str("\"")?;
            }
            cx.write_str(">")?;
            cx.escape(&ncb.literal)?;
            cx.write_str("</code></pre>")?;
            cx.lf()?;
            Ok(ChildRendering::HTML)
        }
        // A link the URL policy refused: its text, with no target to reload the page with.
        NodeValue::Link(ref nl) if nl.url == crate::sanitize::REFUSED => {
            if entering {
                cx.write_str("<a")?;
                if !nl.title.is_empty() {
                    cx.write_str(" title=\"")?;
                    cx.escape(&nl.title)?;
                    cx.write_str("\"")?;
                }
                cx.write_str(">")?;
            } else {
                cx.write_str("</a>")?;
            }
            Ok(ChildRendering::HTML)
        }
        // An in-page link to a heading whose id was given `user-content-` (see [`Anchors`]).
        NodeValue::Link(ref nl)
            if entering
                && nl
                    .url
                    .strip_prefix('#')
                    .is_some_and(|f| cx.user.anchors.moved(f)) =>
        {
            cx.write_str("<a href=\"#")?;
            cx.write_str(CONTENT_PREFIX)?;
            cx.escape_href(&nl.url[1..])?;
            cx.write_str("\"")?;
            if !nl.title.is_empty() {
                cx.write_str(" title=\"")?;
                cx.escape(&nl.title)?;
                cx.write_str("\"")?;
            }
            cx.write_str(">")?;
            Ok(ChildRendering::HTML)
        }
        NodeValue::Alert(ref alert) => write_alert(cx, alert, entering),
        NodeValue::Image(ref nl) => write_image(cx, nl, entering),
        NodeValue::TaskItem(ref task)
            if entering && !cx.options.render.tasklist_classes && !cx.options.render.sourcepos =>
        {
            write_task(cx, node, task)
        }
        _ => format_node_default(cx, node, entering),
    }
}

/// `html` without the ids the prose writer gives headings, the names it gives task boxes, and
/// what it adds to an image that loads: what plain comrak would write, for the tests that
/// compare with it.
#[cfg(test)]
pub(crate) fn without_additions(html: &str) -> String {
    let mut html = html.replace(IMAGE_ATTRIBUTES, "");
    // The task boxes' names.
    while let Some(at) = html.find(" disabled=\"\" aria-label=\"") {
        let value = at + " disabled=\"\" aria-label=\"".len();
        let end = html[value..]
            .find('"')
            .map_or(html.len(), |e| value + e + 1);
        html.replace_range(at + " disabled=\"\"".len()..end, "");
    }
    let mut out = String::with_capacity(html.len());
    let mut rest = html.as_str();
    while let Some(at) = rest.find("<h") {
        let (before, after) = rest.split_at(at);
        out.push_str(before);
        let id_at = 3;
        if after.len() > id_at
            && after.as_bytes()[2].is_ascii_digit()
            && after[id_at..].starts_with(" id=\"")
        {
            let value = id_at + " id=\"".len();
            let end = after[value..]
                .find('"')
                .map_or(after.len(), |e| value + e + 1);
            out.push_str(&after[..id_at]);
            rest = &after[end..];
        } else {
            out.push_str(&after[..2]);
            rest = &after[2..];
        }
    }
    out.push_str(rest);
    out
}

/// A task-list item's opening, as comrak writes it, with its checkbox named by the item's text
/// (`aria-label`): a screen reader says what is done or not, and axe's `label` rule passes
/// (GitHub's boxes have no name).
fn write_task<'a>(
    cx: &mut Context<Counter<'_>>,
    node: &'a AstNode<'a>,
    task: &comrak::nodes::NodeTaskItem,
) -> Result<ChildRendering, fmt::Error> {
    let in_list = node
        .parent()
        .is_some_and(|p| matches!(p.data().value, NodeValue::List(_)));
    cx.cr()?;
    if in_list {
        cx.write_str("<li>")?;
    }
    cx.write_str("<input type=\"checkbox\"")?;
    if task.symbol.is_some() {
        cx.write_str(" checked=\"\"")?;
    }
    cx.write_str(" disabled=\"\"")?;
    let at = cx.user.tasks;
    cx.user.tasks += 1;
    let anchors = cx.user.anchors;
    if let Some(name) = anchors.tasks.get(at).filter(|n| !n.is_empty()) {
        cx.write_str(" aria-label=\"")?;
        cx.escape(name)?;
        cx.write_str("\"")?;
    }
    cx.write_str(" /> ")?;
    Ok(ChildRendering::HTML)
}

/// What an image that loads carries besides comrak's attributes: no referrer for its host,
/// and no load until it is near the view.
pub(crate) const IMAGE_ATTRIBUTES: &str =
    " referrerpolicy=\"no-referrer\" loading=\"lazy\" decoding=\"async\"";

/// An image, as comrak writes it when the rules let it load (from the address they give, which
/// may be a proxy's), told to send no referrer and to load lazily; otherwise a link to it
/// (http and https) or its words, so the reader still learns what it was.
fn write_image(
    cx: &mut Context<Counter<'_>>,
    nl: &comrak::nodes::NodeLink,
    entering: bool,
) -> Result<ChildRendering, fmt::Error> {
    let src = cx.user.images.src(&nl.url);
    match (src, entering) {
        (Some(src), true) => {
            cx.write_str("<img src=\"")?;
            cx.escape_href(&src)?;
            cx.write_str("\" alt=\"")?;
            Ok(ChildRendering::Plain)
        }
        (Some(_), false) => {
            if !nl.title.is_empty() {
                cx.write_str("\" title=\"")?;
                cx.escape(&nl.title)?;
            }
            cx.write_str("\"")?;
            cx.write_str(IMAGE_ATTRIBUTES)?;
            cx.write_str(" />")?;
            Ok(ChildRendering::HTML)
        }
        (None, true) => {
            cx.user.blocked += 1;
            cx.write_str("<a")?;
            if crate::sanitize::is_web_link(&nl.url) {
                cx.write_str(" href=\"")?;
                cx.escape_href(&nl.url)?;
                cx.write_str("\"")?;
            }
            if !nl.title.is_empty() {
                cx.write_str(" title=\"")?;
                cx.escape(&nl.title)?;
                cx.write_str("\"")?;
            }
            cx.write_str(">")?;
            Ok(ChildRendering::HTML)
        }
        (None, false) => {
            cx.write_str("</a>")?;
            Ok(ChildRendering::HTML)
        }
    }
}

/// A GitHub alert (`> [!WARNING]`): a box per kind with its icon and title word, which a
/// screen reader reads out first, as GitHub writes it but with the engine's own classes and
/// icons. Its paragraphs are leaves like any other.
fn write_alert(
    cx: &mut Context<Counter<'_>>,
    alert: &comrak::nodes::NodeAlert,
    entering: bool,
) -> Result<ChildRendering, fmt::Error> {
    use comrak::nodes::AlertType;
    if !entering {
        cx.cr()?;
        cx.write_str("</div>")?;
        return cx.lf().map(|()| ChildRendering::HTML);
    }
    let (kind, icon) = match alert.alert_type {
        AlertType::Note => ("note", ICON_NOTE),
        AlertType::Tip => ("tip", ICON_TIP),
        AlertType::Important => ("important", ICON_IMPORTANT),
        AlertType::Warning => ("warning", ICON_WARNING),
        AlertType::Caution => ("caution", ICON_CAUTION),
    };
    cx.cr()?;
    cx.write_str("<div class=\"pb-alert pb-alert-")?;
    cx.write_str(kind)?;
    cx.write_str("\">\n<p class=\"pb-alert-title\"><svg class=\"pb-alert-icon\" aria-hidden=\"true\" focusable=\"false\" viewBox=\"0 0 16 16\" width=\"16\" height=\"16\">")?;
    cx.write_str(icon)?;
    cx.write_str("</svg>")?;
    match &alert.title {
        Some(title) => cx.escape(title)?,
        None => cx.write_str(alert.alert_type.default_title())?,
    }
    cx.write_str("</p>")?;
    cx.lf()?;
    Ok(ChildRendering::HTML)
}

// The alerts' icons, drawn for the engine on a 16-unit grid in the current colour.
/// An "i" in a ring.
const ICON_NOTE: &str = "<circle cx=\"8\" cy=\"8\" r=\"6.5\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"1.5\"/><rect x=\"7.25\" y=\"7\" width=\"1.5\" height=\"4.5\" fill=\"currentColor\"/><circle cx=\"8\" cy=\"4.9\" r=\"0.9\" fill=\"currentColor\"/>";
/// A bulb over its base.
const ICON_TIP: &str = "<path d=\"M8 1.5a4.5 4.5 0 0 0-2.6 8.2c.4.3.6.7.6 1.1V12h4v-1.2c0-.4.2-.8.6-1.1A4.5 4.5 0 0 0 8 1.5z\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"1.5\"/><rect x=\"6\" y=\"13\" width=\"4\" height=\"1.5\" fill=\"currentColor\"/>";
/// A speech bubble with an exclamation mark.
const ICON_IMPORTANT: &str = "<path d=\"M2 2.5h12v8.5H7l-3 3v-3H2z\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"1.5\" stroke-linejoin=\"round\"/><rect x=\"7.25\" y=\"4\" width=\"1.5\" height=\"3.5\" fill=\"currentColor\"/><circle cx=\"8\" cy=\"9\" r=\"0.9\" fill=\"currentColor\"/>";
/// A triangle with an exclamation mark.
const ICON_WARNING: &str = "<path d=\"M8 1.8 14.8 14H1.2z\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"1.5\" stroke-linejoin=\"round\"/><rect x=\"7.25\" y=\"6\" width=\"1.5\" height=\"4\" fill=\"currentColor\"/><circle cx=\"8\" cy=\"11.8\" r=\"0.9\" fill=\"currentColor\"/>";
/// An octagon with an exclamation mark.
const ICON_CAUTION: &str = "<path d=\"M5.3 1.5h5.4l3.8 3.8v5.4l-3.8 3.8H5.3l-3.8-3.8V5.3z\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"1.5\" stroke-linejoin=\"round\"/><rect x=\"7.25\" y=\"4.2\" width=\"1.5\" height=\"4.3\" fill=\"currentColor\"/><circle cx=\"8\" cy=\"10.9\" r=\"0.9\" fill=\"currentColor\"/>";

/// The visible text of every leaf of the tree, in order (leaf N is at index N − 1), as a
/// browser shows it: text and code, a space for each line break and between table cells, a
/// footnote reference's number, no image (its alt text is not shown as text), whitespace
/// collapsed ([`collapse`]). `components` are the components' nodes, in document order, which
/// are not leaves. With `raw_as_text` the raw HTML is shown as text (see
/// `sanitize::escape_raw_html`), so an HTML block is a code block and a leaf too.
pub fn texts<'a>(
    root: &'a AstNode<'a>,
    components: &[&'a AstNode<'a>],
    raw_as_text: bool,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut components = components.iter().peekable();
    let mut raw = String::new();
    let mut next = root.first_child();
    while let Some(node) = next {
        // Down into containers, past leaves and components, then on to what follows.
        let mut descend = false;
        if components.peek().is_some_and(|c| std::ptr::eq(**c, node)) {
            components.next();
        } else {
            let value = &node.data().value;
            let is_raw_block = raw_as_text && matches!(value, NodeValue::HtmlBlock(_));
            if is_leaf(value) || is_raw_block {
                raw.clear();
                match value {
                    NodeValue::CodeBlock(cb) => raw.push_str(&cb.literal),
                    NodeValue::HtmlBlock(hb) => raw.push_str(&hb.literal),
                    _ => inline_text(node, raw_as_text, &mut raw),
                }
                out.push(collapse(&raw));
            } else {
                descend = true;
            }
        }
        next = if descend { node.first_child() } else { None }.or_else(|| {
            let mut up = node;
            loop {
                if let Some(s) = up.next_sibling() {
                    return Some(s);
                }
                up = up.parent()?;
                if std::ptr::eq(up, root) {
                    return None;
                }
            }
        });
    }
    out
}

/// The text a leaf's inline content shows, uncollapsed.
fn inline_text<'a>(leaf: &'a AstNode<'a>, raw_as_text: bool, out: &mut String) {
    for node in leaf.children() {
        match &node.data().value {
            NodeValue::Text(t) => out.push_str(t),
            NodeValue::Code(c) => out.push_str(&c.literal),
            NodeValue::ShortCode(sc) => out.push_str(&sc.emoji),
            NodeValue::HtmlInline(h) if raw_as_text => out.push_str(h),
            NodeValue::HtmlInline(_) | NodeValue::Image(_) => {}
            NodeValue::SoftBreak | NodeValue::LineBreak => out.push(' '),
            NodeValue::FootnoteReference(r) => {
                out.push_str(itoa::Buffer::new().format(r.ix));
            }
            NodeValue::TableCell => {
                out.push(' ');
                inline_text(node, raw_as_text, out);
            }
            _ => inline_text(node, raw_as_text, out),
        }
    }
}

/// [`collapse`], appended to `out`, a byte at a time (no such whitespace byte is ever part of a
/// longer UTF-8 character).
fn collapse_into(s: &str, out: &mut String) {
    let start = out.len();
    let bytes = s.as_bytes();
    let space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\x0c' | b'\r');
    let mut at = 0;
    while at < bytes.len() {
        while at < bytes.len() && space(bytes[at]) {
            at += 1;
        }
        let word = at;
        while at < bytes.len() && !space(bytes[at]) {
            at += 1;
        }
        if word < at {
            if out.len() > start {
                out.push(' ');
            }
            out.push_str(&s[word..at]);
        }
    }
}

/// Whitespace as a browser shows it: each run of ASCII whitespace (space, tab, line feed, form
/// feed, carriage return) is one space, none at either end. The script does the same.
pub fn collapse(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split([' ', '\t', '\n', '\x0c', '\r']) {
        if word.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The longest quote of a leaf the export shows in full, in characters.
pub const QUOTE_CHARS: usize = 72;

/// A leaf's text as the export quotes it: whole when it has at most [`QUOTE_CHARS`] characters,
/// otherwise cut at the last space that leaves room for `…` within them (or in the middle of a
/// word that is longer), with `…` after it.
pub fn excerpt(text: &str) -> String {
    // The byte offset of the 72nd character, where a cut must end at the latest.
    let mut chars = text.char_indices().skip(QUOTE_CHARS - 1);
    let (Some((limit, _)), Some(_)) = (chars.next(), chars.next()) else {
        return text.to_string();
    };
    let cut = if text[limit..].starts_with(' ') {
        limit
    } else {
        text[..limit]
            .rfind(' ')
            .filter(|&space| space > 0)
            .unwrap_or(limit)
    };
    let mut out = String::with_capacity(cut + '…'.len_utf8());
    out.push_str(&text[..cut]);
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document;
    use crate::options::{Options, Surface};

    /// Every fixture document of the repository.
    fn corpus() -> Vec<(String, String)> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures");
        let mut docs = Vec::new();
        for dir in ["conformance", "golden", "xss", "answers"] {
            for entry in std::fs::read_dir(format!("{root}/{dir}")).expect("a fixtures directory") {
                let path = entry.expect("an entry").path();
                let name = path.to_string_lossy().to_string();
                if name.ends_with(".md") && !name.ends_with(".expected.md") {
                    docs.push((name, std::fs::read_to_string(&path).expect("a fixture")));
                }
            }
        }
        let decision = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/decision.md");
        docs.push((
            decision.into(),
            std::fs::read_to_string(decision).expect("the example"),
        ));
        docs.sort();
        docs
    }

    /// `html` without the leaf marks: the attributes, and the spans of tight list paragraphs;
    /// and without what the engine adds to images and headings.
    fn unmarked(html: &str) -> String {
        let html = without_additions(html);
        let html = html.as_str();
        let mut out = String::with_capacity(html.len());
        let mut rest = html;
        let mut spans = 0;
        while let Some(at) = rest.find(" data-pb-leaf=\"") {
            let (before, after) = rest.split_at(at);
            let end = after[1..]
                .find('"')
                .and_then(|q| after[q + 2..].find('"').map(|e| q + 3 + e));
            let end = end.expect("a closed attribute");
            if let Some(open) = before.strip_suffix("<span") {
                out.push_str(open);
                rest = &after[end + 1..];
                spans += 1;
            } else {
                out.push_str(before);
                rest = &after[end..];
            }
        }
        out.push_str(rest);
        assert_eq!(out.matches("</span>").count(), spans, "{html}");
        out.replace("</span>", "")
    }

    /// The leaf formatter writes comrak's own HTML, plus the marks; it marks as many leaves as
    /// the answers find texts for.
    #[test]
    fn marks_are_all_the_formatter_adds() {
        let mut compared = 0;
        for (name, src) in corpus() {
            for raw in [false, true] {
                let arena = document::arena_for(&src);
                let parsed = document::parse(&arena, &src);
                let texts = texts(parsed.root, &parsed.nodes, false);
                let mut plain = String::new();
                comrak::format_html(parsed.root, &document::comrak_options(raw), &mut plain)
                    .expect("HTML");
                // A link the URL policy refused has no target (comrak would write its marker).
                let plain = plain.replace("<a href=\"%EF%BF%BD\"", "<a");
                if plain.contains("<span") || plain.contains("</span") {
                    continue;
                }
                let mut marked = String::new();
                let written = write_html(
                    parsed.root,
                    &document::comrak_options(raw),
                    Marks::Plain,
                    &crate::sanitize::ImageRules::default(),
                    &Anchors::of(parsed.root),
                    &mut marked,
                );
                // An image the policy refuses is a link, by design (see `sanitize` tests).
                if written.blocked_images > 0 {
                    continue;
                }
                let n = written.leaves;
                assert_eq!(unmarked(&marked), plain, "{name}");
                // Components are still code blocks in this tree: they would be counted here.
                if parsed.blocks.is_empty() {
                    assert_eq!(n as usize, texts.len(), "{name}");
                }
                compared += 1;
            }
        }
        assert!(compared > 400, "only {compared} documents compared");
    }

    /// On the page, the leaves are numbered 1…N in order on both render paths, and the answers
    /// find a text for each one.
    #[test]
    fn rendered_leaves_match_the_parse() {
        for (name, src) in corpus() {
            let page = crate::render::render(&src, &Options::default()).html;
            // After the form's copy of the source, which may spell anything.
            let html = page.split("name=\"pb.surface\"").nth(1).unwrap_or(&page);
            let marked = html.matches(" data-pb-leaf=\"").count();
            let numbers: Vec<String> = (1..=marked)
                .map(|n| format!(" data-pb-leaf=\"{n}\""))
                .collect();
            let mut at = 0;
            for n in &numbers {
                at += html[at..]
                    .find(n.as_str())
                    .unwrap_or_else(|| panic!("{name}: {n} in order\n{html}"));
            }
            let arena = document::arena_for(&src);
            let parsed = document::parse(&arena, &src);
            let escape = crate::sanitize::must_escape(parsed.root, src.len(), parsed.raw_html);
            let texts = texts(parsed.root, &parsed.nodes, escape);
            assert_eq!(texts.len(), marked, "{name}");
        }
    }

    #[test]
    fn every_kind_of_leaf_is_numbered_and_components_are_not() {
        let choice = "```single-choice\n{\"version\":\"1\",\"question\":\"Q?\",\"options\":[\"A\",\"B\"]}\n```\n\n";
        let prose = [
            "# Title\n\n",
            "A paragraph\nover two lines.\n\n",
            "- tight one\n- [ ] tight two\n\n",
            "1. loose one\n\n2. loose two\n\n",
            "> quoted\n\n",
            "| a | b |\n|---|---|\n| 1 | 2 |\n\n",
            "```rust\nfn main() {}\n```\n\n",
            "    indented code\n\n",
            "Setext\n------\n",
        ];
        let with: String = prose.iter().flat_map(|p| [choice, p]).collect();
        let without: String = prose.concat();
        let leaves = |src: &str| -> Vec<String> {
            let html = crate::render::render(src, &Options::default()).html;
            html.split(" data-pb-leaf=\"")
                .skip(1)
                .map(|s| s.split('<').next().unwrap_or("").to_string())
                .collect()
        };
        let expected = [
            "1\">Title",
            "2\">A paragraph\nover two lines.",
            "3\">tight one",
            "4\">tight two",
            "5\">loose one",
            "6\">loose two",
            "7\">quoted",
            "8\">\n",
            "9\">\n",
            "10\">",
            "11\">",
            "12\">Setext",
        ];
        assert_eq!(leaves(&without), expected);
        assert_eq!(leaves(&with), expected);
        let html = crate::render::render(&with, &Options::default()).html;
        assert!(
            html.contains("<li><span data-pb-leaf=\"3\">tight one</span></li>"),
            "{html}"
        );
        assert!(
            html.contains("<pre data-pb-leaf=\"10\"><code class=\"language-rust\">"),
            "{html}"
        );
        assert!(!html.contains("data-pb-leaf=\"13\""), "{html}");
    }

    /// The engine's numbers stay and the ones a document's raw HTML spells are dropped.
    #[test]
    fn sanitized_prose_keeps_only_the_engines_numbers() {
        let src = "<p data-pb-leaf=\"1\">forged</p>\n\n<b>bold</b> text\n\n\
                   <span data-pb-leaf=\"2:0123\">also forged</span> <h2 data-pb-leaf=\"x\">h</h2>\n\n# Real\n";
        let page = crate::render::render(src, &Options::default()).html;
        // After the form's copy of the source.
        let html = page.split("name=\"pb.surface\"").nth(1).unwrap_or(&page);
        assert_eq!(html.matches("data-pb-leaf").count(), 3, "{html}");
        assert!(
            html.contains("<p data-pb-leaf=\"1\"><b>bold</b> text</p>"),
            "{html}"
        );
        assert!(
            html.contains("<h1 id=\"real\" data-pb-leaf=\"3\">Real</h1>"),
            "{html}"
        );
    }

    /// The page after the form's copy of the source.
    fn shown(src: &str) -> String {
        let page = crate::render::render(src, &Options::default()).html;
        page.split("name=\"pb.surface\"")
            .nth(1)
            .unwrap_or(&page)
            .to_string()
    }

    /// Headings get GitHub's ids: lowercased, punctuation out, spaces made `-`, repeats
    /// numbered; an in-page link finds its heading.
    #[test]
    fn headings_get_githubs_ids() {
        let html = shown(
            "# Install\n\n## What's *new* in `v2.0`?\n\n## Install\n\n## Install\n\n\
             ### Überblick & Ziele\n\n## snake_case — ok\n\n## !!!\n\n\
             See [below](#install-1) and [the news](#whats-new-in-v20).\n",
        );
        for id in [
            "<h1 id=\"install\"",
            "<h2 id=\"whats-new-in-v20\"",
            "<h2 id=\"install-1\"",
            "<h2 id=\"install-2\"",
            "<h3 id=\"überblick--ziele\"",
            "<h2 id=\"snake_case--ok\"",
        ] {
            assert!(html.contains(id), "{id}: {html}");
        }
        // A heading with no letters gets no empty id.
        assert!(html.contains("<h2 data-pb-leaf=\"7\">!!!</h2>"), "{html}");
        assert!(
            html.contains("<a href=\"#install-1\">below</a>")
                && html.contains("<a href=\"#whats-new-in-v20\">the news</a>"),
            "{html}"
        );
        // The same ids on the sanitizing path (raw HTML in the document and in a heading).
        let raw = shown("<b>raw</b>\n\n# Install <sup>beta</sup>\n\n## Install\n");
        assert!(
            raw.contains("<h1 id=\"install-beta\"") && raw.contains("<h2 id=\"install\""),
            "{raw}"
        );
    }

    /// Emoji shortcodes show as the emoji GitHub shows, in prose only: never in code, never a
    /// word that is not one, never a time. The leaf texts, the text part and the heading ids
    /// agree with the page.
    #[test]
    fn emoji_shortcodes_as_github_shows_them() {
        let src = "# :rocket: Launch\n\n:tada: Done :white_check_mark: and `:tada:` in code, \
                   :not_a_code: at 10:30:00 :+1:\n\n```\n:tada:\n```\n";
        let html = shown(src);
        assert!(
            html.contains("<h1 id=\"rocket-launch\" data-pb-leaf=\"1\">🚀 Launch</h1>")
                && html.contains(
                    "🎉 Done ✅ and <code>:tada:</code> in code, :not_a_code: at 10:30:00 👍"
                )
                && html.contains("<code>:tada:\n</code>"),
            "{html}"
        );
        let arena = document::arena_for(src);
        let parsed = document::parse(&arena, src);
        let leaves = texts(parsed.root, &parsed.nodes, false);
        assert_eq!(leaves[0], "🚀 Launch");
        assert!(
            leaves[1].starts_with("🎉 Done ✅ and :tada: in code"),
            "{leaves:?}"
        );
        let text = crate::render::render(src, &Options::default().with_format(crate::Format::Text));
        assert!(text.body().contains("🎉 Done ✅"), "{}", text.body());
    }

    /// Every task box is named by its item's text, on both render paths; a box whose item has
    /// no text has no empty name.
    #[test]
    fn task_boxes_are_named_by_their_items() {
        let src = "- [ ] Write the *plan* `v2`\n- [x] Ship it\n  on \"Friday\" & <b>early</b>\n  - [ ] nested one\n- [ ]\n\n\
                   1. [x] loose\n\n   second paragraph\n";
        for html in [shown(src), shown(&format!("<i>raw</i>\n\n{src}"))] {
            for named in [
                "<li><input type=\"checkbox\" disabled=\"\" aria-label=\"Write the plan v2\" /> ",
                "<li><input type=\"checkbox\" checked=\"\" disabled=\"\" aria-label=\"Ship it on &quot;Friday&quot; &amp; early\" /> ",
                "<li><input type=\"checkbox\" disabled=\"\" aria-label=\"nested one\" /> ",
                "<li><input type=\"checkbox\" checked=\"\" disabled=\"\" aria-label=\"loose\" /> ",
            ] {
                assert!(html.contains(named), "{named}\n{html}");
            }
            assert!(!html.contains("aria-label=\"\""), "{html}");
        }
    }

    /// The fast ASCII slugs and the de-duplication are comrak's `Anchorizer`'s, heading for
    /// heading.
    #[test]
    fn slugs_are_comraks() {
        let headings = [
            "Install",
            "Install",
            "install-1",
            "Install",
            "What's new in v2.0?",
            "a_b-c d",
            "  Lead  and trail ",
            "!!!",
            "",
            "",
            "Ünïcödé Straße",
            "日本語 テキスト",
            "C++ & C#",
            "x-1",
            "X",
            "x",
            "Tab\tand|pipe",
            "émoji 🎉 here",
            "100% (done)",
            "pb-comment",
        ];
        let mut ours = Slugs::default();
        let mut theirs = comrak::Anchorizer::new();
        for h in headings {
            assert_eq!(ours.unique(h), theirs.anchorize(h), "{h:?}");
        }
        // Past the list, in the set: many repeats and near-repeats.
        for i in 0..300 {
            let h = match i % 3 {
                0 => "Example".to_string(),
                1 => format!("Example {}", i / 7),
                _ => format!("Step {i}"),
            };
            assert_eq!(ours.unique(&h), theirs.anchorize(&h), "{h:?}");
        }
        let mut collapsed = String::from("x");
        collapse_into("  a\t b\n\nc  é ", &mut collapsed);
        assert_eq!(collapsed, "xa b c é");
    }

    /// A heading cannot take an id the engine's markup uses (`pb-…`, footnotes' `fn-…` and
    /// `fnref-…`): it gets `user-content-` in front, and the document's links to it follow.
    #[test]
    fn heading_ids_stay_out_of_the_engines_names() {
        let src = "# PB comment\n\n## fn 1\n\n## User content pb comment\n\n\
                   Go to [it](#pb-comment) or [the note](#fn-1) or [this](#user-content-pb-comment).\n\n\
                   A note[^1].\n\n[^1]: The note.\n\n```single-choice\n{\"version\":\"1\",\"question\":\"Pick?\",\"options\":[\"A\",\"B\"]}\n```\n";
        for html in [shown(src), shown(&format!("<b>raw</b>\n\n{src}"))] {
            assert!(
                html.contains("<h1 id=\"user-content-pb-comment\"")
                    && html.contains("<h2 id=\"user-content-fn-1\"")
                    && html.contains("<h2 id=\"user-content-user-content-pb-comment\""),
                "{html}"
            );
            assert!(
                html.contains("<a href=\"#user-content-pb-comment\">it</a>")
                    && html.contains("<a href=\"#user-content-fn-1\">the note</a>")
                    && html.contains("<a href=\"#user-content-user-content-pb-comment\">this</a>"),
                "{html}"
            );
            // Every id on the page is there once.
            let mut ids: Vec<&str> = html
                .split(" id=\"")
                .skip(1)
                .filter_map(|r| r.split('"').next())
                .collect();
            let all = ids.len();
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len(), all, "{html}");
        }
    }

    #[test]
    fn email_has_no_leaf_numbers() {
        for src in ["# T\n\nProse.\n", "<b>raw</b>\n\n- a\n- b\n"] {
            let html =
                crate::render::render(src, &Options::default().with_surface(Surface::Email)).html;
            assert!(!html.contains("data-pb-leaf"), "{html}");
            let page = crate::render::render(src, &Options::default()).html;
            assert!(page.contains("data-pb-leaf=\"1\""), "{page}");
        }
    }

    #[test]
    fn leaf_texts_are_what_the_page_shows() {
        let src = "# Title *em* `code`\n\n\
                   A paragraph with a [link](https://x.example), an ![image](a.png) and a note[^n].\n\
                   Soft break and hard  \nbreak.\n\n\
                   - tight **one**\n- [ ] task two\n\n\
                   | a | b |\n|---|:-:|\n| 1 |   |\n\n\
                   > quoted <b>raw</b> text &amp; &nbsp;more\n\n\
                   ```rust\nfn  main() {}\n```\n\n\
                   ```open-question\n{\"version\":\"1\",\"question\":\"Why?\"}\n```\n\n\
                   [^n]: The note.\n";
        let arena = document::arena_for(src);
        let parsed = document::parse(&arena, src);
        assert_eq!(
            texts(parsed.root, &parsed.nodes, false),
            [
                "Title em code",
                "A paragraph with a link, an and a note1. Soft break and hard break.",
                "tight one",
                "task two",
                "a b",
                "1",
                "quoted raw text & \u{a0}more",
                "fn main() {}",
                "The note.",
            ]
        );
        // Raw HTML shown as text is text, and an HTML block is a leaf of its own.
        let src = "<div>\nblock\n</div>\n\nA <b>b</b>\n";
        let arena = document::arena_for(src);
        let parsed = document::parse(&arena, src);
        assert_eq!(texts(parsed.root, &parsed.nodes, false), ["A b"]);
        assert_eq!(
            texts(parsed.root, &parsed.nodes, true),
            ["<div> block </div>", "A <b>b</b>"]
        );
        // A bare paste is one component and no prose.
        let src = "{\"version\":\"1\",\"question\":\"Q?\",\"options\":[\"A\",\"B\"]}";
        let arena = document::arena_for(src);
        let parsed = document::parse(&arena, src);
        assert!(texts(parsed.root, &parsed.nodes, false).is_empty());
    }

    #[test]
    fn whitespace_collapses_as_a_browser_shows_it() {
        assert_eq!(collapse("  a \t\n b\r\n\x0cc  "), "a b c");
        assert_eq!(collapse("\u{a0}x\u{2003}y"), "\u{a0}x\u{2003}y");
        assert_eq!(collapse(" \n "), "");
    }

    #[test]
    fn excerpts_cut_at_a_word_within_72_characters() {
        let short = "x".repeat(72);
        assert_eq!(excerpt(&short), short);
        // The contract's example.
        let long = "We have outgrown the old wiki: search is slow, editing on a phone is painful, and nobody trusts it.";
        assert_eq!(
            excerpt(long),
            "We have outgrown the old wiki: search is slow, editing on a phone is…"
        );
        // A space right after the 71st character still leaves room for the ellipsis.
        let at_71 = format!("{} {}", "a".repeat(71), "b".repeat(5));
        assert_eq!(excerpt(&at_71), format!("{}…", "a".repeat(71)));
        // A space after the 72nd character does not.
        let at_72 = format!("{} {} {}", "a".repeat(10), "a".repeat(61), "c");
        assert_eq!(excerpt(&at_72), format!("{}…", "a".repeat(10)));
        let past = format!("{} {}", "a".repeat(10), "b".repeat(70));
        assert_eq!(excerpt(&past), format!("{}…", "a".repeat(10)));
        // One long word is cut inside it; characters, not bytes, are counted.
        let word = "é".repeat(100);
        assert_eq!(excerpt(&word), format!("{}…", "é".repeat(71)));
        assert_eq!(excerpt(&format!("{}…", "é".repeat(71))).chars().count(), 72);
    }
}
