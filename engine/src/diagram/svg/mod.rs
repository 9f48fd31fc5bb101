//! The SVG writer every kind draws with, and the placeholder for diagrams not drawn here.
//!
//! Escaped by construction: element and attribute names are `&'static str` (ours), and every
//! attribute value is a `Val`: fixed text checked when compiled to need no escaping (`Plain`),
//! a number, text this module wrote from numbers (`Ours`), or anything else, which `Writer`
//! escapes, as it does all text content. No `foreignObject`, no
//! script, no reference to anything outside the SVG (not even a marker id): arrowheads are
//! drawn as shapes.
//!
//! Colours are presentation attributes (so the SVG reads well with no stylesheet, and in
//! email), and every element carries a class the stylesheet themes with CSS custom
//! properties: a stylesheet rule beats a presentation attribute, and no `style=` is needed.
//!
//! - `writer`: `Writer`, the attribute values (`Val`, `Plain`, `Run`) and escaping;
//! - `number`: coordinates, points and path data as text;
//! - `theme`: the colours and the fixed paint of most elements;
//! - `label`: lines of text centred on a point, in their own direction;
//! - `shape`: a node's shape as elements.

pub mod label;
pub mod number;
pub mod shape;
pub mod theme;
pub mod writer;

use super::text::{Block, FONT_FAMILY_ESCAPED, FONT_SIZE};
use crate::diagram::geometry::Pt;
use crate::html::i18n::Strings;
use label::lines;
use number::{pixels, push_num};
use theme::colour;
use writer::plain;
use writer::{Plain, Val, Writer};

/// What a diagram's SVG needs from its surroundings.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// Prefix for the ids inside the SVG; unique on the page.
    pub id: &'a str,
    /// The accessible name (`<title>`).
    pub title: &'a str,
    pub t: &'static Strings,
    /// Email: scale down with an inline style (no stylesheet there).
    pub inline_style: bool,
}

/// Opens the `<svg>` with its `<title>` and `<desc>`; returns its width and height in whole
/// pixels, as the viewBox gives them.
pub fn start(
    w: &mut Writer,
    f: &Frame,
    class: Plain,
    width: f64,
    height: f64,
    desc: &str,
) -> (u32, u32) {
    let title_id = Val::Suffixed(f.id, const { Plain::new("-title") });
    let desc_id = Val::Suffixed(f.id, const { Plain::new("-desc") });
    let (wi, hi) = (width.ceil(), height.ceil());
    let view = |view: &mut String| {
        view.push_str("0 0 ");
        push_num(view, wi);
        view.push(' ');
        push_num(view, hi);
    };
    let attrs = [
        ("xmlns", plain!("http://www.w3.org/2000/svg")),
        ("class", Val::Plain(class)),
        ("role", plain!("img")),
        ("aria-labelledby", title_id),
        ("aria-describedby", desc_id),
        ("width", Val::Num(wi)),
        ("height", Val::Num(hi)),
        ("viewBox", Val::Ours(&view)),
        // Escaped already: made directly, as `Plain::new` refuses the `&` of its entities.
        ("font-family", Val::Plain(Plain(FONT_FAMILY_ESCAPED))),
        ("font-size", Val::Num(FONT_SIZE)),
        ("style", plain!("max-width:100%;height:auto;")),
    ];
    // The style only for email.
    w.open("svg", &attrs[..attrs.len() - usize::from(!f.inline_style)]);
    w.newline();
    w.open("title", &[("id", title_id)]);
    w.text(f.title);
    w.close("title");
    w.newline();
    w.open("desc", &[("id", desc_id)]);
    w.text(desc);
    w.close("desc");
    w.newline();
    (pixels(width), pixels(height))
}

/// Appends `Strings::fill(template, value)`, `value` writing itself: no string is built for it.
pub fn fill_into(out: &mut String, template: &str, value: impl FnOnce(&mut String)) {
    match Strings::split(template) {
        Some((before, after)) => {
            out.push_str(before);
            value(out);
            out.push_str(after);
        }
        None => out.push_str(template),
    }
}

/// Fills the first `{}` of `out[from..]` with `value`, as `Strings::fill` fills that text: the
/// second slot of a two-slot template whose first was filled in place (a first value holding
/// `{}` takes the second value, as filling twice does).
pub fn fill_from(out: &mut String, from: usize, value: &str) {
    if let Some((before, _)) = Strings::split(&out[from..]) {
        let at = from + before.len();
        out.replace_range(at..at + 2, value);
    }
}

/// The classes of labels' text.
pub const TEXT: Plain = Plain::new("pb-d-text");

pub const CLUSTER_TITLE: Plain = Plain::new("pb-d-cluster-title");

/// A neutral box naming the diagram and its type, for diagrams not drawn here; and its width
/// and height, px.
pub fn placeholder(kind: &str, note: &str, f: &Frame) -> (String, u32, u32) {
    let title = Block::wrapped(f.title, 400.0);
    let kind_block = Block::wrapped(kind, 400.0);
    let note_block = Block::wrapped(note, 400.0);
    let inner_w = title.width.max(kind_block.width).max(note_block.width);
    let width = (inner_w + 48.0).max(240.0);
    let height = 24.0 + title.height + 6.0 + kind_block.height + 6.0 + note_block.height + 24.0;
    let mut w = Writer::new();
    let (width_px, height_px) = start(
        &mut w,
        f,
        const { Plain::new("pb-mermaid pb-mermaid-placeholder") },
        width,
        height,
        &format!("{kind}. {note}"),
    );
    w.leaf(
        "rect",
        &[
            ("class", plain!("pb-d-cluster-box")),
            ("x", plain!("1")),
            ("y", plain!("1")),
            ("width", Val::Num(width.ceil() - 2.0)),
            ("height", Val::Num(height.ceil() - 2.0)),
            ("rx", plain!("6")),
            ("fill", colour::CLUSTER_FILL),
            ("stroke", colour::CLUSTER_LINE),
            ("stroke-width", plain!("1")),
            ("stroke-dasharray", plain!("6 4")),
        ],
    );
    let cx = width / 2.0;
    let mut y = 24.0;
    for (block, class, fill) in [
        (&title, TEXT, colour::TEXT),
        (&kind_block, CLUSTER_TITLE, colour::MUTED),
        (&note_block, CLUSTER_TITLE, colour::MUTED),
    ] {
        lines(
            &mut w,
            class,
            fill,
            block,
            Pt::new(cx, y + block.height / 2.0),
        );
        y += block.height + 6.0;
    }
    w.close("svg");
    (w.finish(), width_px, height_px)
}

#[cfg(test)]
mod tests;
