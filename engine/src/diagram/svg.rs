//! The SVG of a laid-out flowchart, and the placeholder for diagrams not drawn here.
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

use super::flowchart::{Edge, Emphasis, Flowchart, Marker, Shape, Stroke, Subgraph};
use super::layout::{ClusterBox, Drawing, EdgePath, LABEL_PAD_X, LABEL_PAD_Y};
use super::shapes::{self, Bounds, Outline, Pt, RING};
use super::text::{Block, FONT_FAMILY_ESCAPED, FONT_SIZE, LINE_HEIGHT};
use crate::html::i18n::Strings;

/// The light theme, also used where no stylesheet applies.
mod colour {
    use super::{Plain, Val};
    pub const BG: Val = Val::Plain(Plain::new("#ffffff"));
    /// Written only in `paint::SHAPE`: kept to check it by.
    #[cfg(test)]
    pub const NODE_FILL: Val = Val::Plain(Plain::new("#eef4ff"));
    pub const NODE_LINE: Val = Val::Plain(Plain::new("#4a6fa5"));
    pub const TEXT: Val = Val::Plain(Plain::new("#1f2328"));
    pub const LINE: Val = Val::Plain(Plain::new("#57606a"));
    pub const CLUSTER_FILL: Val = Val::Plain(Plain::new("#f6f8fa"));
    pub const CLUSTER_LINE: Val = Val::Plain(Plain::new("#8c959f"));
    pub const MUTED: Val = Val::Plain(Plain::new("#57606a"));
}

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

/// Fixed text that needs no escaping: checked when compiled, as `Plain::new` runs in a
/// `const` (see `plain!`).
#[derive(Debug, Clone, Copy)]
struct Plain(&'static str);

impl Plain {
    const fn new(s: &'static str) -> Plain {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            assert!(
                !NEEDS_WORK[bytes[i] as usize],
                "a Plain value needs escaping"
            );
            i += 1;
        }
        Plain(s)
    }
}

/// A [`Val::Plain`] of a literal, checked when compiled.
macro_rules! plain {
    ($s:literal) => {
        Val::Plain(const { Plain::new($s) })
    };
}

/// Fixed attributes written in one piece, ` name="value"` after ` name="value"`: the paint
/// most elements end with. Checked when compiled, as `Run::new` runs in a `const` (see `run!`):
/// names of letters and `-`, values that need no escaping.
#[derive(Debug, Clone, Copy)]
struct Run(&'static str);

impl Run {
    const fn new(s: &'static str) -> Run {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            assert!(b[i] == b' ', "an attribute starts with a space");
            i += 1;
            while b[i] != b'=' {
                assert!(b[i].is_ascii_lowercase() || b[i] == b'-', "a name");
                i += 1;
            }
            assert!(b[i + 1] == b'"', "a quoted value");
            i += 2;
            while b[i] != b'"' {
                assert!(!NEEDS_WORK[b[i] as usize], "a Run value needs escaping");
                i += 1;
            }
            i += 1;
        }
        Run(s)
    }
}

/// A [`Run`] of `(name, value)` literals, checked when compiled.
macro_rules! run {
    ($(($name:literal, $value:literal)),+ $(,)?) => {
        const { Run::new(concat!($(" ", $name, "=\"", $value, "\""),+)) }
    };
}

/// The fixed attributes that end most elements, in one piece each: the colours of [`colour`]
/// (a test checks each against the attributes it stands for).
mod paint {
    use super::Run;
    use crate::diagram::flowchart::Stroke;

    /// A node's outline.
    pub const SHAPE: Run = run!(
        ("class", "pb-d-shape"),
        ("fill", "#eef4ff"),
        ("stroke", "#4a6fa5"),
        ("stroke-width", "1.5"),
    );
    /// A line on a node's face.
    pub const SHAPE_LINE: Run = run!(
        ("class", "pb-d-shape-line"),
        ("fill", "none"),
        ("stroke", "#4a6fa5"),
        ("stroke-width", "1.5"),
    );
    /// A node filled in its outline's colour.
    pub const SHAPE_SOLID: Run = run!(
        ("class", "pb-d-shape-solid"),
        ("fill", "#4a6fa5"),
        ("stroke", "#4a6fa5"),
        ("stroke-width", "1.5"),
    );
    /// A node's face where its outline is not drawn.
    pub const SHAPE_FILL: Run = run!(
        ("class", "pb-d-shape-fill"),
        ("fill", "#eef4ff"),
        ("stroke", "none")
    );
    /// A node's area where nothing is drawn.
    pub const SHAPE_BARE: Run = run!(
        ("class", "pb-d-shape-bare"),
        ("fill", "none"),
        ("stroke", "none")
    );
    /// An arrowhead.
    pub const HEAD: Run = run!(
        ("fill", "#57606a"),
        ("stroke", "#57606a"),
        ("stroke-width", "1")
    );

    /// An edge's line: dashed when dotted, not painted when invisible.
    pub fn line(stroke: Stroke) -> Run {
        match stroke {
            Stroke::Invisible => run!(("fill", "none"), ("stroke", "none"), ("stroke-width", "1")),
            Stroke::Thick => run!(
                ("fill", "none"),
                ("stroke", "#57606a"),
                ("stroke-width", "3")
            ),
            Stroke::Solid => run!(
                ("fill", "none"),
                ("stroke", "#57606a"),
                ("stroke-width", "1.5")
            ),
            Stroke::Dotted => run!(
                ("fill", "none"),
                ("stroke", "#57606a"),
                ("stroke-width", "1.5"),
                ("stroke-dasharray", "3 4"),
            ),
        }
    }
}

/// An attribute value.
#[derive(Clone, Copy)]
enum Val<'a> {
    Plain(Plain),
    /// A coordinate, as [`push_num`] writes it.
    Num(f64),
    /// Text this module writes from numbers, letters and spaces (path data, point lists, a
    /// viewBox) straight into the output: nothing in it needs escaping.
    Ours(&'a dyn Fn(&mut String)),
    /// Anything else (ids, labels): escaped.
    Text(&'a str),
    /// Escaped text followed by a plain suffix (`{id}-title`).
    Suffixed(&'a str, Plain),
}

/// A small XML writer that escapes every value that could need it.
struct Writer {
    out: String,
}

impl Writer {
    fn new() -> Writer {
        Writer::with_capacity(4096)
    }

    fn with_capacity(bytes: usize) -> Writer {
        Writer {
            out: String::with_capacity(bytes),
        }
    }

    #[inline(always)]
    fn attrs(&mut self, attrs: &[(&'static str, Val)]) {
        for (k, (name, value)) in attrs.iter().enumerate() {
            // The quote that ends the value before goes in with the space before this one.
            self.out.push_str(if k == 0 { " " } else { "\" " });
            self.out.push_str(name);
            self.out.push_str("=\"");
            match *value {
                Val::Plain(p) => self.out.push_str(p.0),
                Val::Num(v) => push_num(&mut self.out, v),
                Val::Ours(write) => write(&mut self.out),
                Val::Text(t) => escape_into(&mut self.out, t),
                Val::Suffixed(t, p) => {
                    escape_into(&mut self.out, t);
                    self.out.push_str(p.0);
                }
            }
        }
        if !attrs.is_empty() {
            self.out.push('"');
        }
    }

    /// `<tag …>`
    #[inline(always)]
    fn open(&mut self, tag: &'static str, attrs: &[(&'static str, Val)]) {
        self.out.push('<');
        self.out.push_str(tag);
        self.attrs(attrs);
        self.out.push('>');
    }

    /// `<tag …/>` and a line break.
    #[inline(always)]
    fn leaf(&mut self, tag: &'static str, attrs: &[(&'static str, Val)]) {
        self.out.push('<');
        self.out.push_str(tag);
        self.attrs(attrs);
        self.out.push_str("/>\n");
    }

    /// `<tag …/>` with `attrs` then the fixed ones of `paint`, and a line break.
    #[inline(always)]
    fn leaf_painted(&mut self, tag: &'static str, attrs: &[(&'static str, Val)], paint: Run) {
        self.out.push('<');
        self.out.push_str(tag);
        self.attrs(attrs);
        self.out.push_str(paint.0);
        self.out.push_str("/>\n");
    }

    /// `</tag>`
    #[inline(always)]
    fn close(&mut self, tag: &'static str) {
        self.out.push_str("</");
        self.out.push_str(tag);
        self.out.push('>');
    }

    fn newline(&mut self) {
        self.out.push('\n');
    }

    fn text(&mut self, s: &str) {
        escape_into(&mut self.out, s);
    }

    fn finish(self) -> String {
        self.out
    }
}

/// Escapes for both text and double-quoted attributes, and drops characters XML forbids.
/// Copies the text in runs between the bytes that need work: labels rarely have any.
fn escape_into(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while let Some(at) = next_work(bytes, i) {
        i = at;
        let (replacement, len) = match bytes[i] {
            b'&' => ("&amp;", 1),
            b'<' => ("&lt;", 1),
            b'>' => ("&gt;", 1),
            b'"' => ("&quot;", 1),
            b'\'' => ("&#39;", 1),
            b'\t' | b'\n' | b'\r' => (" ", 1),
            0..=0x1F => ("", 1),
            // U+FFFE and U+FFFF, which XML forbids.
            0xEF if bytes.get(i + 1) == Some(&0xBF)
                && matches!(bytes.get(i + 2), Some(0xBE | 0xBF)) =>
            {
                ("", 3)
            }
            _ => {
                i += 1;
                continue;
            }
        };
        out.push_str(&s[start..i]);
        out.push_str(replacement);
        i += len;
        start = i;
    }
    out.push_str(&s[start..]);
}

/// The bytes [`escape_into`] looks at: markup characters, C0 controls, and 0xEF (the first byte
/// of U+FFFE and U+FFFF).
const NEEDS_WORK: [bool; 256] = crate::html::controls_and(&[b'&', b'<', b'>', b'"', b'\'', 0xEF]);

/// Where the first byte from `from` on that [`escape_into`] looks at is. Most bytes are plain:
/// passed over eight at a time while whole words are, then by one table lookup each rather
/// than the match there.
fn next_work(bytes: &[u8], mut from: usize) -> Option<usize> {
    while let Some(word) = bytes.get(from..from + 8) {
        if may_need_work(u64::from_le_bytes(word.try_into().unwrap_or_default())) {
            break;
        }
        from += 8;
    }
    let k = bytes[from..]
        .iter()
        .position(|&b| NEEDS_WORK[usize::from(b)])?;
    Some(from + k)
}

/// Whether any of the eight bytes is one [`NEEDS_WORK`] marks (never false when one is): a
/// control, one of `"#$%&'` (`#$%` sit between those to escape: one range test), `<` or `>`,
/// or 0xEF. Each test is exact for whether some byte passes it.
fn may_need_work(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = ONES * 0x80;
    let zero_byte = |w: u64| w.wrapping_sub(ONES) & !w;
    // Below 0x20: the high bit of a byte below 0x80 that borrows when 0x20 is taken from it.
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    // From 0x22 (`"`) to 0x27 (`'`): the high bit of each byte below 0x80 whose low seven
    // bits are above 0x21 and below 0x28, each byte's sums kept within the byte.
    let low = word & (ONES * 0x7F);
    let between =
        (ONES * (0x7F + 0x28)).wrapping_sub(low) & !word & low.wrapping_add(ONES * (0x7F - 0x21));
    // `<` (0x3C) and `>` (0x3E) are the bytes that are 0x3E with bit 1 set.
    let angles = zero_byte((word | (ONES * 0x02)) ^ (ONES * 0x3E));
    let ef = zero_byte(word ^ (ONES * 0xEF));
    (control | between | angles | ef) & HIGHS != 0
}

/// A coordinate: one decimal, no trailing `.0`, no `-0`.
#[cfg(test)]
fn num(v: f64) -> String {
    let mut s = String::with_capacity(8);
    push_num(&mut s, v);
    s
}

/// `v` in whole tenths, as [`num`] writes it; `None` where it writes 0 instead: layout
/// coordinates are finite and small, anything else is drawn at 0 rather than as `NaN`.
fn tenths(v: f64) -> Option<i64> {
    let x = v * 10.0;
    // `f64::round` is a library call on the baseline target. Below 2^52 the cast truncates
    // and the fraction left is exact, so rounding half away from zero by hand gives the same
    // whole number. The rounded value is within 1e15 just when `x` is below 1e15 + 0.5 (exact
    // in an f64): one test for that, for the range the cast needs, and with NaN's for NaN.
    if x.is_nan() || x.abs() >= 1e15 + 0.5 {
        return None;
    }
    let whole = x as i64;
    let fraction = x - whole as f64;
    let t = if fraction >= 0.5 {
        whole + 1
    } else if fraction <= -0.5 {
        whole - 1
    } else {
        whole
    };
    Some(t)
}

/// Appends [`num`]`(v)`, written from whole tenths (integer formatting is much cheaper than
/// float formatting, and diagrams print many numbers) straight into `out`, left to right: no
/// buffer to copy or check afterwards.
fn push_num(out: &mut String, v: f64) {
    let Some(t) = tenths(v) else {
        out.push('0');
        return;
    };
    // (A value that rounds to 0 has no sign.)
    if t < 0 {
        out.push('-');
    }
    let u = t.unsigned_abs();
    push_whole(out, u / 10);
    if u % 10 != 0 {
        out.push('.');
        out.push(crate::html::digit(u % 10));
    }
}

/// Appends `n` in decimal. Coordinates are below 10 000: their digits go in one by one, which
/// costs less than formatting into a buffer and copying it.
fn push_whole(out: &mut String, n: u64) {
    use crate::html::digit;
    if n >= 10_000 {
        crate::html::push_decimal(out, n);
        return;
    }
    if n >= 1000 {
        out.push(digit(n / 1000));
    }
    if n >= 100 {
        out.push(digit(n / 100));
    }
    if n >= 10 {
        out.push(digit(n / 10));
    }
    out.push(digit(n));
}

/// Appends a point, `x,y`, each as [`push_num`] writes it.
fn push_pt(out: &mut String, p: Pt) {
    push_num(out, p.x);
    out.push(',');
    push_num(out, p.y);
}

/// Appends a path's `d` from a run of commands: each letter (with the space before it, after
/// the first) followed by its points, space-separated.
fn push_path(d: &mut String, commands: &[(&'static str, &[Pt])]) {
    for (c, points) in commands {
        d.push_str(c);
        for (k, p) in points.iter().enumerate() {
            if k > 0 {
                d.push(' ');
            }
            push_pt(d, *p);
        }
    }
}

/// The whole pixels a `width` or `height` given to [`start`] shows as in the viewBox, as a
/// reader of `num(v.ceil())` gets them: 0 for what `num` writes as 0, negative or not finite;
/// saturated at `u32::MAX`.
fn pixels(v: f64) -> u32 {
    let whole = v.ceil();
    if tenths(whole).is_some() {
        whole as u32
    } else {
        0
    }
}

/// Opens the `<svg>` with its `<title>` and `<desc>`; returns its width and height in whole
/// pixels, as the viewBox gives them.
fn start(
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

#[cfg(test)]
fn direction(text: &str) -> &'static str {
    direction_of(text.chars()).0
}

/// `rtl` when the first strong character of the text `chars` make is Hebrew or Arabic, else
/// `ltr`: each label keeps its own direction whatever the page's (punctuation lands on the
/// right side). Takes characters, so a label's lines need not be joined first.
fn direction_of(chars: impl Iterator<Item = char>) -> Plain {
    const LTR: Plain = Plain::new("ltr");
    for c in chars {
        match u32::from(c) {
            0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF => {
                return const { Plain::new("rtl") };
            }
            _ if c.is_alphabetic() => return LTR,
            _ => {}
        }
    }
    LTR
}

/// Lines of text centred on `center`.
fn lines(w: &mut Writer, class: Plain, fill: Val, block: &Block, center: Pt) {
    lines_styled(w, class, fill, block, center, None);
}

/// A label's line: plain text, or runs of `tspan`s where a markdown label has bold or
/// italic text. `at` is where the line starts in the label the emphasis ranges index.
fn line_text(w: &mut Writer, line: &str, styled: Option<(usize, &[Emphasis])>) {
    let Some((at, emphasis)) = styled.filter(|(_, e)| !e.is_empty()) else {
        w.text(line);
        return;
    };
    let end = at + line.len();
    let mut i = at;
    while i < end {
        let here = emphasis.iter().find(|e| e.start <= i && i < e.end);
        let next = match here {
            Some(e) => e.end.min(end),
            None => emphasis
                .iter()
                .map(|e| e.start)
                .filter(|&s| s > i)
                .min()
                .unwrap_or(end)
                .min(end),
        };
        let piece = line.get(i - at..next - at).unwrap_or("");
        match here {
            Some(e) => {
                let mut attrs: Vec<(&'static str, Val)> = Vec::with_capacity(2);
                if e.bold {
                    attrs.push(("font-weight", plain!("bold")));
                }
                if e.italic {
                    attrs.push(("font-style", plain!("italic")));
                }
                w.open("tspan", &attrs);
                w.text(piece);
                w.close("tspan");
            }
            None => w.text(piece),
        }
        i = next.max(i + 1);
    }
}

/// Lines of text centred on `center`; `styled` is the label the lines were wrapped from and
/// its emphasis, for a markdown label.
fn lines_styled(
    w: &mut Writer,
    class: Plain,
    fill: Val,
    block: &Block,
    center: Pt,
    styled: Option<(&str, &[Emphasis])>,
) {
    // Where each line starts in the label: found in order, as wrapping keeps it.
    let mut from = 0;
    let mut starts = Vec::new();
    if let Some((label, _)) = styled {
        for line in block.lines() {
            let at = label
                .get(from..)
                .and_then(|r| r.find(line))
                .map_or(usize::MAX, |i| from + i);
            if at != usize::MAX {
                from = at + line.len();
            }
            starts.push(at);
        }
    }
    let style_of = |i: usize| {
        styled.and_then(|(_, em)| {
            starts
                .get(i)
                .filter(|&&at| at != usize::MAX)
                .map(|&at| (at, em))
        })
    };
    let x = Val::Num(center.x);
    let class = Val::Plain(class);
    let top = center.y - block.height / 2.0;
    // Baseline: the middle of the line plus about a third of the font size.
    let baseline = |i: usize| Val::Num(top + LINE_HEIGHT * (i as f64 + 0.5) + 0.35 * FONT_SIZE);
    if !block.is_multiline() {
        let dir = direction_of(block.text.chars());
        w.open(
            "text",
            &[
                ("class", class),
                ("x", x),
                ("y", baseline(0)),
                ("text-anchor", plain!("middle")),
                ("direction", Val::Plain(dir)),
                ("fill", fill),
            ],
        );
        line_text(w, &block.text, style_of(0));
    } else {
        w.open(
            "text",
            &[
                ("class", class),
                ("text-anchor", plain!("middle")),
                ("fill", fill),
            ],
        );
        for (i, line) in block.lines().enumerate() {
            // A line break between the lines, so the text reads as words (a wrapped
            // "refresh in" / "background" is not "inbackground" to a checker or a copy).
            if i > 0 {
                w.newline();
            }
            w.open("tspan", &[("x", x), ("y", baseline(i))]);
            line_text(w, line, style_of(i));
            w.close("tspan");
        }
    }
    w.close("text");
    w.newline();
}

fn shape_element(w: &mut Writer, shape: Shape, b: Bounds) {
    // After each shape's own attributes.
    const PAINT: Run = paint::SHAPE;
    if let Some(pieces) = shapes::pieces(shape, b) {
        for piece in &pieces {
            let d = |d: &mut String| {
                if let Some((first, rest)) = piece.points.split_first() {
                    push_path(d, &[("M", &[*first]), (" L", rest)]);
                }
                if piece.closed {
                    d.push_str(" Z");
                }
            };
            let paint = match piece.paint {
                shapes::Paint::Face => PAINT,
                shapes::Paint::Solid => paint::SHAPE_SOLID,
                shapes::Paint::Line => paint::SHAPE_LINE,
                shapes::Paint::Fill => paint::SHAPE_FILL,
                shapes::Paint::Bare => paint::SHAPE_BARE,
            };
            w.leaf_painted("path", &[("d", Val::Ours(&d))], paint);
        }
        return;
    }
    match shapes::outline(shape, b) {
        Outline::Polygon(corners) => {
            let pts = |d: &mut String| push_path(d, &[("", corners.as_slice())]);
            w.leaf_painted("polygon", &[("points", Val::Ours(&pts))], PAINT);
            if shape == Shape::Subroutine {
                for x in [b.left() + 8.0, b.right() - 8.0] {
                    let line = |d: &mut String| {
                        d.push('M');
                        push_pt(d, Pt::new(x, b.top()));
                        d.push_str(" V");
                        push_num(d, b.bottom());
                    };
                    w.leaf(
                        "path",
                        &[
                            ("class", plain!("pb-d-shape-line")),
                            ("d", Val::Ours(&line)),
                            ("stroke", colour::NODE_LINE),
                            ("stroke-width", plain!("1.5")),
                        ],
                    );
                }
            }
        }
        Outline::Ellipse { center, rx, ry } => {
            let (cx, cy) = (Val::Num(center.x), Val::Num(center.y));
            if shape == Shape::DoubleCircle {
                w.leaf_painted(
                    "ellipse",
                    &[
                        ("cx", cx),
                        ("cy", cy),
                        ("rx", Val::Num(rx)),
                        ("ry", Val::Num(ry)),
                    ],
                    PAINT,
                );
            }
            let inset = if shape == Shape::DoubleCircle {
                RING
            } else {
                0.0
            };
            w.leaf_painted(
                "ellipse",
                &[
                    ("cx", cx),
                    ("cy", cy),
                    ("rx", Val::Num(rx - inset)),
                    ("ry", Val::Num(ry - inset)),
                ],
                PAINT,
            );
        }
        Outline::RoundedBox { bounds, r } => w.leaf_painted(
            "rect",
            &[
                ("x", Val::Num(bounds.left())),
                ("y", Val::Num(bounds.top())),
                ("width", Val::Num(bounds.w)),
                ("height", Val::Num(bounds.h)),
                ("rx", Val::Num(r)),
            ],
            PAINT,
        ),
        // Drawn from their pieces, above.
        Outline::Traced { .. } => {}
        Outline::Cylinder { bounds, cap } => {
            let (rx, c) = (bounds.w / 2.0, cap);
            let (l, r) = (bounds.left(), bounds.right());
            let (t, bo) = (bounds.top() + cap, bounds.bottom() - cap);
            let arc = |d: &mut String, to: Pt| {
                d.push_str(" A");
                push_pt(d, Pt::new(rx, c));
                d.push_str(" 0 0 0 ");
                push_pt(d, to);
            };
            let d = |d: &mut String| {
                d.push('M');
                push_pt(d, Pt::new(l, t));
                d.push_str(" V");
                push_num(d, bo);
                arc(d, Pt::new(r, bo));
                d.push_str(" V");
                push_num(d, t);
                arc(d, Pt::new(l, t));
                d.push_str(" Z");
            };
            w.leaf_painted("path", &[("d", Val::Ours(&d))], PAINT);
            w.leaf_painted(
                "ellipse",
                &[
                    ("cx", Val::Num(bounds.center.x)),
                    ("cy", Val::Num(t)),
                    ("rx", Val::Num(rx)),
                    ("ry", Val::Num(c)),
                ],
                PAINT,
            );
        }
    }
}

/// The elements [`shape_element`] writes for a node of `shape` in `b`.
#[cfg(test)]
pub(super) fn shape_markup(shape: Shape, b: Bounds) -> String {
    let mut w = Writer::new();
    shape_element(&mut w, shape, b);
    w.out
}

/// Appends the path through `points`, its ends moved to `first` and `last`: smooth
/// (`shapes::curve`), or, for an edge routed around boxes, straight runs whose bends are
/// rounded (`shapes::bend`, the radius the router checked against the boxes).
fn push_curve(d: &mut String, points: &[Pt], first: Pt, last: Pt, axis: Pt, straight: bool) {
    d.push('M');
    push_pt(d, first);
    let n = points.len();
    if straight || n == 2 {
        let at = |i: usize| match i {
            0 => first,
            i if i == n - 1 => last,
            i => points[i],
        };
        for (i, &c) in points.iter().enumerate().take(n - 1).skip(1) {
            d.push_str(" L");
            match shapes::bend(at(i - 1), c, at(i + 1), shapes::BEND) {
                Some((into, out)) => {
                    push_pt(d, into);
                    d.push_str(" Q");
                    push_pt(d, c);
                    d.push(' ');
                    push_pt(d, out);
                }
                None => push_pt(d, c),
            }
        }
        d.push_str(" L");
        push_pt(d, last);
        return;
    }
    for [_, c1, c2, q] in shapes::curve(points, first, last, axis) {
        d.push_str(" C");
        push_pt(d, c1);
        d.push(' ');
        push_pt(d, c2);
        d.push(' ');
        push_pt(d, q);
    }
}

const HEAD_LEN: f64 = 9.0;
const HEAD_HALF: f64 = 4.5;
const DOT_R: f64 = 4.0;

/// Draws the marker whose tip is `tip`, arriving along `dir`; returns how far the line
/// should stop short of the tip.
fn marker(w: &mut Writer, m: Marker, tip: Pt, dir: Pt, thick: bool) -> f64 {
    let scale = if thick { 1.3 } else { 1.0 };
    let normal = Pt::new(-dir.y, dir.x);
    match m {
        Marker::None => 0.0,
        Marker::Arrow => {
            let base = tip.minus(dir.scale(HEAD_LEN * scale));
            let a = base.plus(normal.scale(HEAD_HALF * scale));
            let b = base.minus(normal.scale(HEAD_HALF * scale));
            let d = |d: &mut String| {
                push_path(d, &[("M", &[tip]), (" L", &[a]), (" L", &[b]), (" Z", &[])]);
            };
            w.leaf_painted(
                "path",
                &[("class", plain!("pb-d-head")), ("d", Val::Ours(&d))],
                paint::HEAD,
            );
            HEAD_LEN * scale - 1.0
        }
        Marker::Circle => {
            let c = tip.minus(dir.scale(DOT_R));
            w.leaf(
                "circle",
                &[
                    ("class", plain!("pb-d-head-open")),
                    ("cx", Val::Num(c.x)),
                    ("cy", Val::Num(c.y)),
                    ("r", Val::Num(DOT_R)),
                    ("fill", colour::BG),
                    ("stroke", colour::LINE),
                    ("stroke-width", plain!("1.5")),
                ],
            );
            2.0 * DOT_R
        }
        Marker::Cross => {
            let c = tip.minus(dir.scale(5.0));
            let (u, v) = (dir.plus(normal).scale(3.5), dir.minus(normal).scale(3.5));
            let d = |d: &mut String| {
                push_path(
                    d,
                    &[
                        ("M", &[c.minus(u)]),
                        (" L", &[c.plus(u)]),
                        (" M", &[c.minus(v)]),
                        (" L", &[c.plus(v)]),
                    ],
                );
            };
            w.leaf(
                "path",
                &[
                    ("class", plain!("pb-d-cross")),
                    ("d", Val::Ours(&d)),
                    ("stroke", colour::LINE),
                    ("stroke-width", plain!("2")),
                ],
            );
            0.0
        }
    }
}

/// The end `end` of a segment from `before`, moved back by `by` along it if the segment is
/// long enough.
fn shortened(end: Pt, before: Pt, by: f64) -> Pt {
    if by <= 0.0 {
        return end;
    }
    let seg = end.minus(before);
    match seg.unit() {
        Some(u) if seg.len() > by + 2.0 => end.minus(u.scale(by)),
        _ => end,
    }
}

fn edge(w: &mut Writer, chart: &Flowchart, i: usize, path: &EdgePath, key: &str) {
    let e = &chart.edges[i];
    let stroke = match e.stroke {
        Stroke::Solid => plain!("pb-d-edge pb-d-solid"),
        Stroke::Dotted => plain!("pb-d-edge pb-d-dotted"),
        Stroke::Thick => plain!("pb-d-edge pb-d-thick"),
        Stroke::Invisible => plain!("pb-d-edge pb-d-invisible"),
    };
    w.open("g", &[("class", stroke), ("data-edge", Val::Text(key))]);
    w.newline();
    let points = &path.points[..];
    let n = points.len();
    // The ends, moved back for their markers.
    let (mut first, mut last) = (points[0], points[n - 1]);
    let thick = e.stroke == Stroke::Thick;
    if e.stroke != Stroke::Invisible {
        let end_dir = points[n - 1].minus(points[n - 2]).unit();
        let start_dir = points[0].minus(points[1]).unit();
        let mut back_end = 0.0;
        let mut back_start = 0.0;
        if let Some(d) = end_dir {
            back_end = marker(w, e.end, points[n - 1], d, thick);
        }
        if let Some(d) = start_dir {
            back_start = marker(w, e.start, points[0], d, thick);
        }
        last = shortened(last, points[n - 2], back_end);
        // With two points, the start's neighbour is the end as just moved.
        let next = if n == 2 { last } else { points[1] };
        first = shortened(first, next, back_start);
    }
    let d = |d: &mut String| push_curve(d, points, first, last, path.axis, path.straight);
    let class = match e.stroke {
        Stroke::Invisible => plain!("pb-d-hidden"),
        _ => plain!("pb-d-line"),
    };
    w.leaf_painted(
        "path",
        &[("class", class), ("d", Val::Ours(&d))],
        paint::line(e.stroke),
    );
    if let Some((at, block)) = &path.label {
        let bw = block.width + 2.0 * LABEL_PAD_X;
        let bh = block.height + 2.0 * LABEL_PAD_Y;
        w.leaf(
            "rect",
            &[
                ("class", plain!("pb-d-label-bg")),
                ("x", Val::Num(at.x - bw / 2.0)),
                ("y", Val::Num(at.y - bh / 2.0)),
                ("width", Val::Num(bw)),
                ("height", Val::Num(bh)),
                ("rx", plain!("3")),
                ("fill", colour::BG),
            ],
        );
        let styled = e
            .label
            .as_deref()
            .filter(|_| !e.label_emphasis.is_empty())
            .map(|label| (label, &e.label_emphasis[..]));
        lines_styled(
            w,
            const { Plain::new("pb-d-label") },
            colour::TEXT,
            block,
            *at,
            styled,
        );
    }
    w.close("g");
    w.newline();
}

/// The data-edge keys: `FROM→TO`, then `FROM→TO#2`, `#3`, … for repeated pairs.
#[cfg(test)]
pub fn edge_keys(chart: &Flowchart) -> Vec<String> {
    chart
        .edges
        .iter()
        .zip(chart.edge_occurrences())
        .map(|(e, n)| {
            let mut key = String::new();
            push_edge_key(&mut key, chart, e, n);
            key
        })
        .collect()
}

/// Appends the data-edge key of `e`, the `n`th earlier copy of its pair (see [`edge_keys`]).
fn push_edge_key(key: &mut String, chart: &Flowchart, e: &Edge, n: usize) {
    key.push_str(chart.id_of(e.from));
    key.push('→');
    key.push_str(chart.id_of(e.to));
    if n > 0 {
        key.push('#');
        crate::html::push_decimal(key, n as u64 + 1);
    }
}

/// Appends `Strings::fill(template, value)`, `value` writing itself: no string is built for it.
fn fill_into(out: &mut String, template: &str, value: impl FnOnce(&mut String)) {
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
fn fill_from(out: &mut String, from: usize, value: &str) {
    if let Some((before, _)) = Strings::split(&out[from..]) {
        let at = from + before.len();
        out.replace_range(at..at + 2, value);
    }
}

/// The flowchart in words, for `<desc>`: written into one string, as filling the templates
/// and joining the parts would make it.
pub fn describe(chart: &Flowchart, t: &Strings) -> String {
    // `Strings::fill(t.diagram_quote, …)` of the text with its line breaks as spaces: the
    // template split once, for the dozens of quotes.
    let quote_parts = Strings::split(t.diagram_quote);
    let quote = |out: &mut String, s: &str| {
        let Some((open, close)) = quote_parts else {
            out.push_str(t.diagram_quote);
            return;
        };
        out.push_str(open);
        // Most labels are one line, copied whole.
        if !s.as_bytes().contains(&b'\n') {
            out.push_str(s);
        } else {
            for (k, part) in s.split('\n').enumerate() {
                if k > 0 {
                    out.push(' ');
                }
                out.push_str(part);
            }
        }
        out.push_str(close);
    };
    // A node's label, and its id when that differs.
    let node_name = |out: &mut String, id: &str, label: &str| {
        quote(out, label);
        if label != id {
            out.push_str(" (");
            out.push_str(id);
            out.push(')');
        }
    };
    // Room for the templates around every label and id, most of them twice: written without
    // growing.
    let text: usize = chart
        .nodes
        .iter()
        .map(|n| n.id.len() + n.label.len())
        .chain(
            chart
                .edges
                .iter()
                .filter_map(|e| e.label.as_ref().map(String::len)),
        )
        .chain(chart.subgraphs.iter().map(|s| s.title.len()))
        .sum();
    let mut out =
        String::with_capacity(128 + 2 * text + 48 * (chart.nodes.len() + chart.edges.len()));
    let dir = t.diagram_directions[chart.direction as usize];
    fill_into(&mut out, t.diagram_flowchart, |out| out.push_str(dir));
    let mut boxes = chart
        .nodes
        .iter()
        .filter(|n| chart.subgraph_named(&n.id).is_none())
        .peekable();
    if boxes.peek().is_some() {
        out.push(' ');
        fill_into(&mut out, t.diagram_boxes, |out| {
            for (k, n) in boxes.enumerate() {
                if k > 0 {
                    out.push_str("; ");
                }
                node_name(out, &n.id, &n.label);
            }
        });
    }
    // The arrow template split at both its slots, once.
    let arrow_slots = Strings::split(t.diagram_arrow)
        .and_then(|(before, rest)| Some((before, Strings::split(rest)?)));
    // `Strings::fill(&Strings::fill(t.diagram_arrow, …), …)` of two quoted labels; `second`
    // is room for the second where the filled text has to be searched again.
    let arrow = |out: &mut String, second: &mut String, from: &str, to: &str| {
        let start = out.len();
        if let Some((before, (between, after))) = arrow_slots {
            out.push_str(before);
            quote(out, from);
            // A non-empty first value without braces makes no `{}` with its neighbours: the
            // second value takes the template's second slot.
            let first = &out.as_bytes()[start + before.len()..];
            if !first.is_empty() && !first.iter().any(|&b| b == b'{' || b == b'}') {
                out.push_str(between);
                quote(out, to);
                out.push_str(after);
                return;
            }
            out.truncate(start);
        }
        fill_into(out, t.diagram_arrow, |out| quote(out, from));
        second.clear();
        quote(second, to);
        fill_from(out, start, second);
    };
    // The second value of a two-slot template, written here first.
    // (Made only when needed: arrows rarely need it.)
    let mut second = String::new();
    if !chart.edges.is_empty() {
        out.push(' ');
        fill_into(&mut out, t.diagram_arrows, |out| {
            for (k, e) in chart.edges.iter().enumerate() {
                if k > 0 {
                    out.push_str("; ");
                }
                let (from, to) = (&chart.nodes[e.from].label, &chart.nodes[e.to].label);
                arrow(out, &mut second, from, to);
                // Each note after ", ".
                if let Some(l) = &e.label {
                    out.push_str(", ");
                    fill_into(out, t.diagram_labelled, |out| quote(out, l));
                }
                let kind = match e.stroke {
                    Stroke::Dotted => Some(0),
                    Stroke::Thick => Some(1),
                    Stroke::Invisible => Some(2),
                    Stroke::Solid => None,
                };
                let ends = match (e.start, e.end) {
                    _ if e.stroke == Stroke::Invisible => None,
                    (Marker::None, Marker::None) => Some(3),
                    (Marker::Arrow, Marker::Arrow) => Some(4),
                    _ => None,
                };
                for k in kind.into_iter().chain(ends) {
                    out.push_str(", ");
                    out.push_str(t.diagram_edge_kinds[k]);
                }
            }
        });
    }
    for (s, sub) in chart.subgraphs.iter().enumerate() {
        out.push(' ');
        let start = out.len();
        fill_into(&mut out, t.diagram_group, |out| quote(out, &sub.title));
        second.clear();
        // The members, then the titles of the subgraphs right inside, joined by ", ".
        let children = chart.subgraphs.iter().filter(|c| c.parent == Some(s));
        let mut parts = 0;
        for m in &sub.members {
            if parts > 0 {
                second.push_str(", ");
            }
            node_name(&mut second, m, chart.label_of(m));
            parts += 1;
        }
        for c in children {
            if parts > 0 {
                second.push_str(", ");
            }
            quote(&mut second, &c.title);
            parts += 1;
        }
        fill_from(&mut out, start, &second);
    }
    out
}

/// The classes of labels' text.
const TEXT: Plain = Plain::new("pb-d-text");
const CLUSTER_TITLE: Plain = Plain::new("pb-d-cluster-title");

/// A node's group's class: `pb-d-node pb-d-{shape name}`.
fn node_class(shape: Shape) -> Val<'static> {
    match shape {
        Shape::Rect => plain!("pb-d-node pb-d-rect"),
        Shape::Round => plain!("pb-d-node pb-d-round"),
        Shape::Stadium => plain!("pb-d-node pb-d-stadium"),
        Shape::Subroutine => plain!("pb-d-node pb-d-subroutine"),
        Shape::Cylinder => plain!("pb-d-node pb-d-cylinder"),
        Shape::Circle => plain!("pb-d-node pb-d-circle"),
        Shape::DoubleCircle => plain!("pb-d-node pb-d-double-circle"),
        Shape::Asymmetric => plain!("pb-d-node pb-d-asymmetric"),
        Shape::Rhombus => plain!("pb-d-node pb-d-rhombus"),
        Shape::Hexagon => plain!("pb-d-node pb-d-hexagon"),
        Shape::Parallelogram => plain!("pb-d-node pb-d-parallelogram"),
        Shape::ParallelogramAlt => plain!("pb-d-node pb-d-parallelogram-alt"),
        Shape::Trapezoid => plain!("pb-d-node pb-d-trapezoid"),
        Shape::TrapezoidAlt => plain!("pb-d-node pb-d-trapezoid-alt"),
        Shape::NotchedRect => plain!("pb-d-node pb-d-notch-rect"),
        Shape::LinedRect => plain!("pb-d-node pb-d-lin-rect"),
        Shape::DividedRect => plain!("pb-d-node pb-d-div-rect"),
        Shape::WindowPane => plain!("pb-d-node pb-d-win-pane"),
        Shape::TaggedRect => plain!("pb-d-node pb-d-tag-rect"),
        Shape::StackedRect => plain!("pb-d-node pb-d-st-rect"),
        Shape::SlopedRect => plain!("pb-d-node pb-d-sl-rect"),
        Shape::BowTieRect => plain!("pb-d-node pb-d-bow-rect"),
        Shape::LoopLimit => plain!("pb-d-node pb-d-notch-pent"),
        Shape::Delay => plain!("pb-d-node pb-d-delay"),
        Shape::CurvedTrapezoid => plain!("pb-d-node pb-d-curv-trap"),
        Shape::Document => plain!("pb-d-node pb-d-doc"),
        Shape::LinedDocument => plain!("pb-d-node pb-d-lin-doc"),
        Shape::TaggedDocument => plain!("pb-d-node pb-d-tag-doc"),
        Shape::StackedDocument => plain!("pb-d-node pb-d-docs"),
        Shape::PaperTape => plain!("pb-d-node pb-d-flag"),
        Shape::HorizontalCylinder => plain!("pb-d-node pb-d-h-cyl"),
        Shape::LinedCylinder => plain!("pb-d-node pb-d-lin-cyl"),
        Shape::Triangle => plain!("pb-d-node pb-d-tri"),
        Shape::FlippedTriangle => plain!("pb-d-node pb-d-flip-tri"),
        Shape::SmallCircle => plain!("pb-d-node pb-d-sm-circ"),
        Shape::FilledCircle => plain!("pb-d-node pb-d-f-circ"),
        Shape::FramedCircle => plain!("pb-d-node pb-d-fr-circ"),
        Shape::CrossedCircle => plain!("pb-d-node pb-d-cross-circ"),
        Shape::Hourglass => plain!("pb-d-node pb-d-hourglass"),
        Shape::Bolt => plain!("pb-d-node pb-d-bolt"),
        Shape::BraceLeft => plain!("pb-d-node pb-d-brace"),
        Shape::BraceRight => plain!("pb-d-node pb-d-brace-r"),
        Shape::Braces => plain!("pb-d-node pb-d-braces"),
        Shape::Text => plain!("pb-d-node pb-d-text"),
        Shape::DataStore => plain!("pb-d-node pb-d-datastore"),
        Shape::Cloud => plain!("pb-d-node pb-d-cloud"),
        Shape::Bang => plain!("pb-d-node pb-d-bang"),
        Shape::Fork | Shape::ForkSideways => plain!("pb-d-node pb-d-fork"),
    }
}

/// The SVG of a laid-out flowchart, and its width and height, px.
pub fn flowchart(chart: &Flowchart, d: &Drawing, f: &Frame) -> (String, u32, u32) {
    // A few hundred bytes a node or edge (the golden diagrams need less): the page is written
    // without growing.
    let mut w = Writer::with_capacity(1024 + 384 * d.nodes.len() + 512 * d.edges.len());
    // `accTitle` and `accDescr` name and describe it when given; the description in words
    // of its boxes and arrows follows the author's.
    let frame = Frame {
        title: chart.acc_title.as_deref().unwrap_or(f.title),
        ..*f
    };
    let mut desc = describe(chart, f.t);
    if let Some(a) = &chart.acc_descr {
        desc = format!("{a} {desc}");
    }
    // The front matter's title, above the diagram.
    let heading = chart
        .title
        .as_deref()
        .map(|t| Block::wrapped(t, d.width.max(320.0)));
    let top = heading.as_ref().map_or(0.0, |h| h.height + 12.0);
    let wide = heading.as_ref().map_or(0.0, |h| h.width + 16.0);
    let (width, height) = start(
        &mut w,
        &frame,
        const { Plain::new("pb-mermaid pb-mermaid-flowchart") },
        d.width.max(wide),
        d.height + top,
        &desc,
    );
    if let Some(h) = &heading {
        let at = Pt::new(d.width.max(wide) / 2.0, 6.0 + h.height / 2.0);
        lines(
            &mut w,
            const { Plain::new("pb-d-heading") },
            colour::TEXT,
            h,
            at,
        );
        let shift = |s: &mut String| {
            s.push_str("translate(0 ");
            push_num(s, top);
            s.push(')');
        };
        w.open("g", &[("transform", Val::Ours(&shift))]);
        w.newline();
    }
    for (s, c) in d.clusters.iter().enumerate() {
        let sub = &chart.subgraphs[s];
        let is_node = sub
            .id
            .as_deref()
            .is_some_and(|id| chart.nodes.iter().any(|n| n.id == id));
        let class = ("class", plain!("pb-d-cluster"));
        match (is_node, sub.id.as_deref()) {
            (true, Some(id)) => w.open("g", &[class, ("data-node", Val::Text(id))]),
            _ => w.open("g", &[class]),
        }
        w.newline();
        let b = c.bounds;
        w.leaf(
            "rect",
            &[
                ("class", plain!("pb-d-cluster-box")),
                ("x", Val::Num(b.left())),
                ("y", Val::Num(b.top())),
                ("width", Val::Num(b.w)),
                ("height", Val::Num(b.h)),
                ("rx", plain!("4")),
                ("fill", colour::CLUSTER_FILL),
                ("stroke", colour::CLUSTER_LINE),
                ("stroke-width", plain!("1")),
            ],
        );
        w.close("g");
        w.newline();
    }
    // Each edge's key (as `edge_keys` gives it) in one buffer, reused.
    let mut key = String::with_capacity(32);
    for ((i, path), n) in d.edges.iter().enumerate().zip(chart.edge_occurrences()) {
        key.clear();
        push_edge_key(&mut key, chart, &chart.edges[i], n);
        edge(&mut w, chart, i, path, &key);
    }
    for (s, c) in d.clusters.iter().enumerate() {
        cluster_title(&mut w, &chart.subgraphs[s], c);
    }
    for (i, n) in d.nodes.iter().enumerate() {
        let Some(n) = n else { continue };
        w.open(
            "g",
            &[
                ("class", node_class(n.shape)),
                ("data-node", Val::Text(&chart.nodes[i].id)),
            ],
        );
        w.newline();
        shape_element(&mut w, n.shape, n.bounds);
        if shapes::shows_label(n.shape) {
            let at = shapes::label_center(n.shape, n.bounds, n.text.height);
            let node = &chart.nodes[i];
            let styled =
                (!node.emphasis.is_empty()).then(|| (node.label.as_str(), &node.emphasis[..]));
            lines_styled(&mut w, TEXT, colour::TEXT, &n.text, at, styled);
        }
        w.close("g");
        w.newline();
    }
    if heading.is_some() {
        w.close("g");
        w.newline();
    }
    w.close("svg");
    (w.finish(), width, height)
}

/// A subgraph's title, top left in its box, where edges entering from above are least likely to
/// cross it. It is drawn over the edges on a patch of the box's colour: an edge that does cross
/// it passes behind the words instead of striking them through. Clicks go through it to the box
/// (a subgraph that is also a node takes comments) or the edge beneath.
fn cluster_title(w: &mut Writer, sub: &Subgraph, c: &ClusterBox) {
    if c.title.is_blank() {
        return;
    }
    let (left, top) = (c.bounds.left() + 10.0, c.bounds.top() + 8.0);
    let at = Pt::new(left + c.title.width / 2.0, top + c.title.height / 2.0);
    w.open(
        "g",
        &[
            ("class", plain!("pb-d-cluster-label")),
            ("pointer-events", plain!("none")),
        ],
    );
    w.newline();
    // The patch covers the letters and little more: an arrow that only passes close by, or
    // ends on a box just below, stays whole.
    w.leaf(
        "rect",
        &[
            ("class", plain!("pb-d-cluster-title-bg")),
            ("x", Val::Num(left - 1.0)),
            ("y", Val::Num(top + 2.0)),
            ("width", Val::Num(c.title.width + 2.0)),
            ("height", Val::Num(c.title.height - 3.0)),
            ("fill", colour::CLUSTER_FILL),
        ],
    );
    let styled =
        (!sub.title_emphasis.is_empty()).then(|| (sub.title.as_str(), &sub.title_emphasis[..]));
    lines_styled(w, CLUSTER_TITLE, colour::MUTED, &c.title, at, styled);
    w.close("g");
    w.newline();
}

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

pub mod sequence;

#[cfg(test)]
mod tests {
    use super::*;

    /// `describe` as it was written before: filled templates and joined parts.
    fn describe_joined(chart: &Flowchart, t: &Strings) -> String {
        let quote = |s: &str| Strings::fill(t.diagram_quote, &s.replace('\n', " "));
        let dir = t.diagram_directions[chart.direction as usize];
        let mut out = Strings::fill(t.diagram_flowchart, dir);
        let node_name = |id: &str| {
            let label = chart.label_of(id);
            if label == id {
                quote(label)
            } else {
                format!("{} ({id})", quote(label))
            }
        };
        let boxes: Vec<String> = chart
            .nodes
            .iter()
            .filter(|n| chart.subgraph_named(&n.id).is_none())
            .map(|n| node_name(&n.id))
            .collect();
        if !boxes.is_empty() {
            out.push(' ');
            out.push_str(&Strings::fill(t.diagram_boxes, &boxes.join("; ")));
        }
        let arrows: Vec<String> = chart
            .edges
            .iter()
            .map(|e| {
                let mut s = Strings::fill(
                    &Strings::fill(t.diagram_arrow, &quote(&chart.nodes[e.from].label)),
                    &quote(&chart.nodes[e.to].label),
                );
                let mut notes: Vec<String> = Vec::new();
                if let Some(l) = &e.label {
                    notes.push(Strings::fill(t.diagram_labelled, &quote(l)));
                }
                match e.stroke {
                    Stroke::Dotted => notes.push(t.diagram_edge_kinds[0].into()),
                    Stroke::Thick => notes.push(t.diagram_edge_kinds[1].into()),
                    Stroke::Invisible => notes.push(t.diagram_edge_kinds[2].into()),
                    Stroke::Solid => {}
                }
                if e.stroke != Stroke::Invisible {
                    match (e.start, e.end) {
                        (Marker::None, Marker::None) => notes.push(t.diagram_edge_kinds[3].into()),
                        (Marker::Arrow, Marker::Arrow) => {
                            notes.push(t.diagram_edge_kinds[4].into())
                        }
                        _ => {}
                    }
                }
                if !notes.is_empty() {
                    s.push_str(", ");
                    s.push_str(&notes.join(", "));
                }
                s
            })
            .collect();
        if !arrows.is_empty() {
            out.push(' ');
            out.push_str(&Strings::fill(t.diagram_arrows, &arrows.join("; ")));
        }
        for (s, sub) in chart.subgraphs.iter().enumerate() {
            let mut inside: Vec<String> = sub.members.iter().map(|m| node_name(m)).collect();
            inside.extend(
                chart
                    .subgraphs
                    .iter()
                    .filter(|c| c.parent == Some(s))
                    .map(|c| quote(&c.title)),
            );
            out.push(' ');
            out.push_str(&Strings::fill(
                &Strings::fill(t.diagram_group, &quote(&sub.title)),
                &inside.join(", "),
            ));
        }
        out
    }

    #[test]
    fn the_description_is_the_filled_and_joined_one() {
        let sources = [
            "graph TD; A[Paste] --> B[Review] --> C[Copy back]; B -->|edit| A;",
            "graph LR\nA --> B\nA -.-> C\nA ==> D\nA ~~~ E\nA --- F\nA <--> G\nA --o H\nA --x I",
            "flowchart TB\nx --> a\nsubgraph S [Group]\na[One] --> b{Two}\nsubgraph T [Inner]\nc\nend\nend\ny --> S",
            "flowchart TB\nsubgraph S [Empty]\nsubgraph T [Inner]\nc\nend\nend",
            "graph TD\nA[\"{}\"] -->|\"{} and {\"| B[\"}{\"]\nB --> C[\"a<br>b\"]\nC --> A",
            "graph TD\nA[\"x{\"] --> B[\"}y\"]\nB[\"}y\"] --> A",
            "graph TD",
        ];
        for source in sources {
            let chart = crate::diagram::flowchart::parse(source)
                .expect("a flowchart")
                .expect("readable");
            for t in [
                &crate::html::i18n::EN,
                &crate::html::i18n::HE,
                &crate::html::i18n::AR,
            ] {
                assert_eq!(describe(&chart, t), describe_joined(&chart, t), "{source}");
            }
        }
    }

    #[test]
    fn tenths_round_half_away_from_zero_as_round_does() {
        let old = |v: f64| {
            let t = (v * 10.0).round();
            (t.is_finite() && t.abs() <= 1e15).then_some(t as i64)
        };
        let mut bits = crate::diagram::xorshift(0x2545_f491_4f6c_dd1d);
        let mut next = || bits();
        let mut values = vec![
            0.0,
            -0.0,
            0.05,
            -0.05,
            0.15,
            0.25,
            -0.25,
            0.35,
            1.25,
            -907.15,
            1e14,
            1e14 + 0.05,
            -1e14,
            1e15,
            1e15 + 0.375,
            1e15 + 0.5,
            -1e15 - 0.5,
            -1e15 - 0.375,
            (1e15 + 0.5) / 10.0,
            1e14 * 1.0000001,
            4e14,
            4.5e14,
            9e14,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN_POSITIVE,
            0.049_999_999_999_999_996,
        ];
        for _ in 0..20_000 {
            let bits = next();
            values.push(f64::from_bits(bits));
            // Tenths and halves, small and large.
            let k = (next() % 2_000_001) as f64 - 1_000_000.0;
            values.push(k / 20.0);
            values.push(k / 20.0 + f64::EPSILON * k);
            values.push((next() % 1_000_000) as f64 / 7.0 - 70_000.0);
        }
        for v in values {
            assert_eq!(tenths(v), old(v), "{v:e}");
        }
    }

    #[test]
    fn the_writer_escapes_every_value() {
        let mut w = Writer::new();
        w.open("g", &[("data-node", Val::Text("a\"b<c>&'d"))]);
        w.text("<script>&\u{1}x</script>");
        w.close("g");
        assert_eq!(
            w.finish(),
            "<g data-node=\"a&quot;b&lt;c&gt;&amp;&#39;d\">&lt;script&gt;&amp;x&lt;/script&gt;</g>"
        );
        // An id with a suffix: the id is escaped too.
        let mut w = Writer::new();
        w.open(
            "title",
            &[("id", Val::Suffixed("x\"y", Plain::new("-title")))],
        );
        assert_eq!(w.finish(), "<title id=\"x&quot;y-title\">");
    }

    /// The attributes written one by one.
    fn written(attrs: &[(&'static str, Val)]) -> String {
        let mut w = Writer::new();
        w.attrs(attrs);
        w.finish()
    }

    #[test]
    fn paint_runs_are_the_attributes_they_stand_for() {
        use colour::{LINE, NODE_FILL, NODE_LINE};
        let shape = [
            ("class", plain!("pb-d-shape")),
            ("fill", NODE_FILL),
            ("stroke", NODE_LINE),
            ("stroke-width", plain!("1.5")),
        ];
        assert_eq!(paint::SHAPE.0, written(&shape));
        let head = [
            ("fill", LINE),
            ("stroke", LINE),
            ("stroke-width", plain!("1")),
        ];
        assert_eq!(paint::HEAD.0, written(&head));
        let shape_line = [
            ("class", plain!("pb-d-shape-line")),
            ("fill", plain!("none")),
            ("stroke", NODE_LINE),
            ("stroke-width", plain!("1.5")),
        ];
        assert_eq!(paint::SHAPE_LINE.0, written(&shape_line));
        let solid = [
            ("class", plain!("pb-d-shape-solid")),
            ("fill", NODE_LINE),
            ("stroke", NODE_LINE),
            ("stroke-width", plain!("1.5")),
        ];
        assert_eq!(paint::SHAPE_SOLID.0, written(&solid));
        let fill = [
            ("class", plain!("pb-d-shape-fill")),
            ("fill", NODE_FILL),
            ("stroke", plain!("none")),
        ];
        assert_eq!(paint::SHAPE_FILL.0, written(&fill));
        for stroke in [
            Stroke::Solid,
            Stroke::Dotted,
            Stroke::Thick,
            Stroke::Invisible,
        ] {
            let (colour, width) = match stroke {
                Stroke::Invisible => (plain!("none"), plain!("1")),
                Stroke::Thick => (LINE, plain!("3")),
                _ => (LINE, plain!("1.5")),
            };
            let attrs = [
                ("fill", plain!("none")),
                ("stroke", colour),
                ("stroke-width", width),
                ("stroke-dasharray", plain!("3 4")),
            ];
            let dotted = stroke == Stroke::Dotted;
            let want = written(&attrs[..attrs.len() - usize::from(!dotted)]);
            assert_eq!(paint::line(stroke).0, want, "{stroke:?}");
        }
    }

    #[test]
    fn node_classes_name_their_shape() {
        for shape in Shape::ALL {
            let Val::Plain(class) = node_class(shape) else {
                panic!("{shape:?}: not plain");
            };
            assert_eq!(class.0, format!("pb-d-node pb-d-{}", shape.name()));
        }
    }

    /// `push_num` as it was written before: digits filled from the end of a buffer.
    fn num_from_buffer(v: f64) -> String {
        let Some(t) = tenths(v) else {
            return "0".into();
        };
        let mut buf = [0u8; 24];
        let mut at = buf.len();
        let mut u = t.unsigned_abs();
        if u % 10 != 0 {
            at -= 2;
            buf[at] = b'.';
            buf[at + 1] = b'0' + (u % 10) as u8;
        }
        u /= 10;
        loop {
            at -= 1;
            buf[at] = b'0' + (u % 10) as u8;
            u /= 10;
            if u == 0 {
                break;
            }
        }
        if t < 0 {
            at -= 1;
            buf[at] = b'-';
        }
        buf[at..].iter().map(|&b| char::from(b)).collect()
    }

    #[test]
    fn numbers_are_written_as_the_buffer_wrote_them() {
        let mut bits = crate::diagram::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut values = vec![
            0.0, -0.0, 0.04, -0.04, 9.95, 99.95, 999.95, 1e15, -1e15, 1e14,
        ];
        for _ in 0..20_000 {
            let b = bits();
            values.push(f64::from_bits(b));
            values.push((b % 20_000_001) as f64 / 10.0 - 1_000_000.0);
            values.push((b % 100_000) as f64 / 7.0 - 5_000.0);
        }
        for p in 0..=16 {
            let v = 10f64.powi(p);
            values.extend([v, v - 0.05, -v, v * 0.99]);
        }
        for v in values {
            assert_eq!(num(v), num_from_buffer(v), "{v:e}");
        }
    }

    #[test]
    fn numbers_are_short_and_never_negative_zero() {
        assert_eq!(num(1.0), "1");
        assert_eq!(num(1.26), "1.3");
        assert_eq!(num(-0.01), "0");
        assert_eq!(num(-2.5), "-2.5");
        assert_eq!(num(-0.25), "-0.3");
        assert_eq!(num(1234.96), "1235");
        assert_eq!(num(f64::NAN), "0");
        assert_eq!(num(0.0), "0");
        assert_eq!(num(10.0), "10");
        assert_eq!(num(100.04), "100");
        assert_eq!(num(-907.15), "-907.2");
        assert_eq!(num(1e14), "100000000000000");
    }

    #[test]
    fn the_font_family_is_escaped_as_escape_into_escapes_it() {
        let fonts = "Arial, 'Liberation Sans', Helvetica, 'DejaVu Sans', sans-serif";
        let mut out = String::new();
        escape_into(&mut out, fonts);
        assert_eq!(out, FONT_FAMILY_ESCAPED);
    }

    #[test]
    fn a_word_may_need_work_exactly_when_a_byte_passes_its_tests() {
        let mut bits = crate::diagram::xorshift(0x5851_f42d_4c95_7f2d);
        // Bytes around each kind the table marks, and the rest at random.
        let near = [
            0x00, 0x1F, 0x20, 0x21, 0x22, 0x26, 0x27, 0x28, 0x3B, 0x3C, 0x3D, 0x3E, 0x3F, 0x7F,
            0x80, 0xA2, 0xBC, 0xBE, 0xEE, 0xEF, 0xF0, 0xFF, b'a', b' ',
        ];
        for round in 0..200_000 {
            let b = bits();
            let word = if round % 2 == 0 {
                b
            } else {
                u64::from_le_bytes(std::array::from_fn(|k| {
                    near[(b >> (8 * k)) as usize % near.len()]
                }))
            };
            // `#$%` pass too, for the one range test.
            let want = word
                .to_le_bytes()
                .iter()
                .any(|&b| NEEDS_WORK[usize::from(b)] || matches!(b, b'#' | b'$' | b'%'));
            assert_eq!(may_need_work(word), want, "{word:#018x}");
        }
    }

    #[test]
    fn xml_forbidden_characters_are_dropped_and_whitespace_flattened() {
        let mut out = String::new();
        escape_into(&mut out, "a\tb\nc\u{7}d\u{FFFE}e\u{FFFF}f\u{FFFD}é\u{EFFF}");
        assert_eq!(out, "a b cdef\u{FFFD}é\u{EFFF}");
        // The same past the first eight bytes, which are passed over whole.
        let mut out = String::new();
        escape_into(&mut out, "12345678\u{FFFF}<abcdefghij\u{EFFF}k&l'm\"\u{1}");
        assert_eq!(out, "12345678&lt;abcdefghij\u{EFFF}k&amp;l&#39;m&quot;");
    }

    #[test]
    fn label_direction_follows_its_first_strong_character() {
        assert_eq!(direction("Serve cached?"), "ltr");
        assert_eq!(direction("שלום?"), "rtl");
        assert_eq!(direction("42 مرحبا"), "rtl");
        assert_eq!(direction("42"), "ltr");
    }
}
