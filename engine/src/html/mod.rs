//! Shared markup: the per-block render context, the block root element, the document root and
//! the standalone page shell.

pub mod i18n;
pub mod model;

use crate::options::Surface;
use i18n::Strings;
use maud::{DOCTYPE, Markup, PreEscaped, Render, html};
use model::{ModelJson, WriteModel};

/// Appends `text` to `out`, HTML-escaped as maud escapes it (`&`, `<`, `>`, `"`), but copied in
/// runs between the characters that need escaping, skipped eight bytes at a time, rather than
/// byte by byte.
pub fn escape_into(text: &str, out: &mut String) {
    escape_quoted(text, b'"', out);
}

/// Appends `text` escaped for an attribute value in single quotes: `&`, `<`, `>` and `'`. Made
/// for JSON (the block models) and Markdown holding JSON (the form's copy of the source), full of
/// `"` that a double-quoted value would spell `&quot;`, six bytes each.
pub fn escape_single_quoted_into(text: &str, out: &mut String) {
    escape_quoted(text, b'\'', out);
}

/// Most texts escaped here are short ids, names and labels with nothing to escape: those are
/// found clean first and copied whole, in a function small enough to cost little per call; the
/// rest go to [`escape_dirty`].
#[inline]
fn escape_quoted(text: &str, quote: u8, out: &mut String) {
    if text.len() < LONG_TEXT && first_to_escape(text.as_bytes(), quote).is_none() {
        out.push_str(text);
    } else {
        escape_dirty(text, quote, out);
    }
}

/// [`escape_quoted`] for a long text, or a short one with something to escape.
#[inline(never)]
fn escape_dirty(text: &str, quote: u8, out: &mut String) {
    if text.len() >= LONG_TEXT {
        return escape_long(text, quote, out);
    }
    let at = first_to_escape(text.as_bytes(), quote).unwrap_or(text.len());
    escape_from(text, at, quote, out);
}

/// Where the first byte of `bytes` that has an entity is, if any: eight bytes at a time, the
/// last (partial) eight by a word that overlaps the one before it, and four to seven bytes as
/// two overlapping halves of one word. A word that may hold one is read byte by byte.
fn first_to_escape(bytes: &[u8], quote: u8) -> Option<usize> {
    let n = bytes.len();
    let word = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap_or_default());
    let half = |i: usize| {
        u64::from(u32::from_le_bytes(
            bytes[i..i + 4].try_into().unwrap_or_default(),
        ))
    };
    let mut from = 0;
    if n >= 8 {
        while from + 8 <= n && !may_need_escaping(word(from)) {
            from += 8;
        }
        if from + 8 > n && (from == n || !may_need_escaping(word(n - 8))) {
            return None;
        }
    } else if n >= 4 && !may_need_escaping(half(0) | (half(n - 4) << 32)) {
        return None;
    }
    let mask = escaped_bytes(quote);
    (from..n).find(|&k| is_escaped(bytes[k], mask))
}

/// The bytes that have an entity inside an attribute quoted with `quote`, as a bit set: all
/// are below 64.
fn escaped_bytes(quote: u8) -> u64 {
    1 << b'&' | 1 << b'<' | 1 << b'>' | 1 << quote
}

fn is_escaped(byte: u8, mask: u64) -> bool {
    byte < 64 && mask >> byte & 1 == 1
}

/// Appends `text` escaped, the first byte to escape being at `at`.
fn escape_from(text: &str, at: usize, quote: u8, out: &mut String) {
    out.reserve(text.len());
    let (bytes, mask) = (text.as_bytes(), escaped_bytes(quote));
    let mut start = 0;
    for i in at..bytes.len() {
        if is_escaped(bytes[i], mask) {
            out.push_str(&text[start..i]);
            out.push_str(entity(bytes[i], quote).unwrap_or_default());
            start = i + 1;
        }
    }
    out.push_str(&text[start..]);
}

/// The entity `byte` is written as inside an attribute value quoted with `quote`, or `None`
/// when it stays as it is.
fn entity(byte: u8, quote: u8) -> Option<&'static str> {
    match byte {
        b'&' => Some("&amp;"),
        b'<' => Some("&lt;"),
        b'>' => Some("&gt;"),
        b'"' if quote == b'"' => Some("&quot;"),
        b'\'' if quote == b'\'' => Some("&#39;"),
        _ => None,
    }
}

/// From this length on, [`escape_quoted`] finds the characters to escape with `memchr`'s
/// vector search (a few calls per text, each of which skips 16 or 32 bytes a step); below it,
/// setting those calls up costs more than the eight-byte scan.
const LONG_TEXT: usize = 64;

/// [`escape_quoted`] for long texts (the form's copy of the source, block models): the next
/// markup character and the next quote are each searched for only after the last one found
/// was written out.
fn escape_long(text: &str, quote: u8, out: &mut String) {
    let bytes = text.as_bytes();
    let markup_from = |at: usize| memchr::memchr3(b'&', b'<', b'>', &bytes[at..]).map(|k| at + k);
    let quote_from = |at: usize| memchr::memchr(quote, &bytes[at..]).map(|k| at + k);
    let (mut next_markup, mut next_quote) = (markup_from(0), quote_from(0));
    let mut start = 0;
    loop {
        let i = match (next_markup, next_quote) {
            (Some(m), Some(q)) => m.min(q),
            (Some(i), None) | (None, Some(i)) => i,
            (None, None) => break,
        };
        out.push_str(&text[start..i]);
        // Only markup characters and `quote` are ever found: each has an entity.
        out.push_str(entity(bytes[i], quote).unwrap_or_default());
        start = i + 1;
        if next_markup == Some(i) {
            next_markup = markup_from(start);
        }
        if next_quote == Some(i) {
            next_quote = quote_from(start);
        }
    }
    out.push_str(&text[start..]);
}

/// Whether any of the eight bytes may have an entity in an attribute quoted either way: one
/// of `&`, `<`, `>`, `"` and `'`, or `#`, `$` and `%`, which sit between them (two tests
/// instead of one per character; the byte-by-byte read sorts them out).
fn may_need_escaping(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = ONES * 0x80;
    // Bytes from 0x22 (`"`) to 0x27 (`'`): the high bit of each byte below 0x80 whose low
    // seven bits are above 0x21 and below 0x28, each byte's sums kept within the byte.
    let low = word & (ONES * 0x7F);
    let between =
        (ONES * (0x7F + 0x28)).wrapping_sub(low) & !word & low.wrapping_add(ONES * (0x7F - 0x21));
    // `<` (0x3C) and `>` (0x3E) are the bytes that are 0x3E with bit 1 set: a zero-byte test.
    let angle = (word | (ONES * 0x02)) ^ (ONES * 0x3E);
    let angles = angle.wrapping_sub(ONES) & !angle;
    (between | angles) & HIGHS != 0
}

/// An element id, field name or value in parts that may come from the document (an item's
/// id in `i:{id}`), never joined: rendered part by part, escaped as the joined text would be
/// (escaping goes character by character), by [`escape_into`], which copies clean runs whole
/// (maud's own escaping goes byte by byte).
#[derive(Clone, Copy)]
pub struct Parts<'a, const N: usize>(pub [&'a str; N]);

impl<const N: usize> Render for Parts<'_, N> {
    fn render_to(&self, out: &mut String) {
        for part in self.0 {
            escape_into(part, out);
        }
    }
}

/// An element id or form field name made of the engine's own pieces only: the block's id or
/// name prefix (`pb-1a2b3c4d-b1`, `b1`: a hash's hex digits and the block's number), the
/// engine's constant suffixes, and [`Digits`]. None of them holds a character to escape, so it
/// is written as it is, without [`Parts`]' check of every part; the constructors
/// ([`RenderCx::id_parts`] and its siblings) take nothing else, and no text from the document
/// is `'static`.
#[derive(Clone, Copy)]
pub struct OwnId<'a, const N: usize>([&'a str; N]);

impl<const N: usize> Render for OwnId<'_, N> {
    // Inlined where it is written, the constant parts are copied as constants.
    #[inline(always)]
    fn render_to(&self, out: &mut String) {
        for part in self.0 {
            out.push_str(part);
        }
    }
}

impl<const N: usize> OwnId<'_, N> {
    /// The id joined, as the head of more ids (a question's `pb-1a2b3c4d-b1-q0-`): see
    /// [`Joined::base`].
    pub fn joined(&self) -> Joined {
        let len = self.0.iter().map(|p| p.len()).sum();
        if len > INLINE_ID {
            // Sized and pushed part by part: `concat` goes through the general join, which
            // costs about twice as much for these few short parts.
            let mut joined = String::with_capacity(len);
            for part in self.0 {
                joined.push_str(part);
            }
            return Joined::Heap(joined);
        }
        let mut buf = [0u8; INLINE_ID];
        let mut at = 0;
        for part in self.0 {
            buf[at..at + part.len()].copy_from_slice(part.as_bytes());
            at += part.len();
        }
        Joined::Inline { buf, len }
    }
}

/// Room on the stack for a joined id: the engine's are much shorter (`pb-` and a hash's eight
/// hex digits, a block's and a question's numbers, a few separators).
const INLINE_ID: usize = 64;

/// An [`OwnId`] joined into one string: on the stack, so a question's heads allocate nothing;
/// on the heap only if one is longer than the engine makes them.
pub enum Joined {
    Inline { buf: [u8; INLINE_ID], len: usize },
    Heap(String),
}

impl Joined {
    /// The joined id, read once, as the head of the ids built on it.
    pub fn base(&self) -> OwnBase<'_> {
        OwnBase(match self {
            // Whole `&str`s were copied in: the bytes are UTF-8.
            Joined::Inline { buf, len } => std::str::from_utf8(&buf[..*len]).unwrap_or_default(),
            Joined::Heap(joined) => joined,
        })
    }
}

/// An [`OwnId`] joined (see [`Joined`]), the head of the ids built on it.
#[derive(Clone, Copy)]
pub struct OwnBase<'a>(&'a str);

impl<'b> OwnBase<'b> {
    pub fn as_str(&self) -> &'b str {
        self.0
    }

    /// `{base}{suffix}`.
    pub fn id(&self, suffix: &'static str) -> OwnId<'b, 2> {
        OwnId([self.0, suffix])
    }

    /// `{base}{suffix}{n}{tail}` (`…-o2-rec`).
    pub fn numbered<'a>(
        &self,
        suffix: &'static str,
        n: &'a Digits,
        tail: &'static str,
    ) -> OwnId<'a, 4>
    where
        'b: 'a,
    {
        OwnId([self.0, suffix, n.as_str(), tail])
    }

    /// The ids `{base}{first}` and `{base}{second}`, space-separated (an `aria-describedby`
    /// list), or the first alone.
    pub fn id_list(&self, first: &'static str, second: Option<&'static str>) -> OwnId<'b, 5> {
        match second {
            Some(second) => OwnId([self.0, first, " ", self.0, second]),
            None => OwnId([self.0, first, "", "", ""]),
        }
    }
}

/// A whole number's decimal digits, kept on the stack: an index inside an id or a field name,
/// without `to_string`'s allocation. Numbers below 100 (nearly every index) are slices of a
/// constant, with no UTF-8 check of a buffer each time they are read.
pub enum Digits {
    Small(&'static str),
    Large { buf: [u8; 20], len: usize },
}

/// "00", "01", … "99".
const PAIRS: &str = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

impl Digits {
    pub fn new(n: usize) -> Digits {
        match n {
            0..10 => Digits::Small(&PAIRS[2 * n + 1..2 * n + 2]),
            10..100 => Digits::Small(&PAIRS[2 * n..2 * n + 2]),
            _ => {
                let mut digits = itoa::Buffer::new();
                let digits = digits.format(n).as_bytes();
                let mut buf = [0u8; 20];
                buf[..digits.len()].copy_from_slice(digits);
                Digits::Large {
                    buf,
                    len: digits.len(),
                }
            }
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Digits::Small(digits) => digits,
            // Only ASCII digits are ever written.
            Digits::Large { buf, len } => std::str::from_utf8(&buf[..*len]).unwrap_or_default(),
        }
    }
}

/// Text from the document or the engine's strings, escaped by [`escape_into`] (see [`Parts`]).
pub struct Text<'a>(pub &'a str);

impl Render for Text<'_> {
    fn render_to(&self, out: &mut String) {
        escape_into(self.0, out);
    }
}

/// A template of the engine's strings with its `{}` filled by `value`, as `Strings::fill` makes
/// it, written straight into the page (escaped like [`Text`]) instead of built as a string
/// first.
pub struct Fill<'a>(pub &'a str, pub &'a str);

impl Render for Fill<'_> {
    fn render_to(&self, out: &mut String) {
        match i18n::Strings::split(self.0) {
            Some((before, after)) => {
                escape_into(before, out);
                escape_into(self.1, out);
                escape_into(after, out);
            }
            None => escape_into(self.0, out),
        }
    }
}

/// A whole number, written by `itoa` rather than through `fmt` (as maud renders numbers).
pub struct Num(pub usize);

impl Render for Num {
    fn render_to(&self, out: &mut String) {
        push_decimal(out, self.0 as u64);
    }
}

/// A byte table marking the C0 controls and `bytes`, built when compiled: the escapers look each
/// byte up in one.
pub(crate) const fn controls_and(bytes: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    let mut k = 0;
    while k < bytes.len() {
        table[bytes[k] as usize] = true;
        k += 1;
    }
    table
}

/// Appends `n` in decimal digits straight into `out`, by `itoa`: a hand-written writer came
/// within 0.3% of it in instructions per render (benches/render-instructions.sh), not worth
/// its own code.
pub fn push_decimal(out: &mut String, n: u64) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// The digit `d` (below 10).
pub fn digit(d: u64) -> char {
    char::from(b'0' + (d % 10) as u8)
}

/// What a component needs to know while it renders.
pub struct RenderCx<'a> {
    /// The block id, `b1`, `b2`, …. The engine's own, with nothing to escape (see [`OwnId`]).
    pub block: &'a str,
    /// Prefix for element ids: unique per document hash and block, so several documents can
    /// share a page (`pb-1a2b3c4d-b1`). The engine's own, as `block` is.
    pub id_prefix: &'a str,
    pub surface: Surface,
    /// The component's fence tag, for `data-pb-kind`.
    pub tag: &'static str,
    pub t: &'static Strings,
    /// Whether the document reads right to left (email styles name physical sides).
    pub rtl: bool,
    /// After a list edit in this block: the control that gets `autofocus`.
    pub focus: Option<Focus>,
    /// Email surface: where diagram images are published (`{base}/v1/diagrams/{key}.png`).
    pub diagram_base: Option<&'a str>,
    /// Email surface: images are `cid:` parts of a MIME message ([`crate::Options::cid_images`]).
    pub cid_images: bool,
    /// Diagrams published as images during this render: (key, SVG).
    pub diagrams: &'a std::cell::RefCell<Vec<(String, std::sync::Arc<str>)>>,
    /// Video thumbnails attached to the message during this render: (content id, `data:` URI).
    pub thumbnails: &'a std::cell::RefCell<Vec<(String, String)>>,
    /// Whether the reader has a way to answer: always on the web surfaces; in an email only
    /// with a Respond link. Without one, an email shows no control-like glyphs or blanks.
    pub answerable: bool,
}

/// A list control of a prioritize or allocate block, as a list edit leaves focus on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// The ▲ or ▼ of the entry now at this position.
    Up(usize),
    Down(usize),
    /// The ✕ of the entry now at this position.
    Remove(usize),
    /// The Restore button of this authored item.
    Restore(usize),
    /// The add box.
    Add,
}

impl RenderCx<'_> {
    /// An element id unique on the page, `{prefix}-{suffix}`: several documents can share a
    /// page. Left in parts, so nothing is allocated for it, and written unescaped (see
    /// [`OwnId`]).
    pub fn id_parts(&self, suffix: &'static str) -> OwnId<'_, 3> {
        OwnId([self.id_prefix, "-", suffix])
    }

    /// A form field name, `{block}.{suffix}` (`b1.add`), unique within the document's form;
    /// in parts, as [`RenderCx::id_parts`].
    pub fn name_parts(&self, suffix: &'static str) -> OwnId<'_, 3> {
        OwnId([self.block, ".", suffix])
    }

    /// An id numbered within the block: `{prefix}{suffix}{n}{tail}` (`pb-1a2b3c4d-b1-pos2`).
    pub fn numbered_id<'b>(
        &'b self,
        suffix: &'static str,
        n: &'b Digits,
        tail: &'static str,
    ) -> OwnId<'b, 4> {
        OwnId([self.id_prefix, suffix, n.as_str(), tail])
    }

    /// A field name numbered within the block: `{block}{suffix}{n}{tail}` (`b1.pos.2`).
    pub fn numbered_name<'b>(
        &'b self,
        suffix: &'static str,
        n: &'b Digits,
        tail: &'static str,
    ) -> OwnId<'b, 4> {
        OwnId([self.block, suffix, n.as_str(), tail])
    }

    /// The opening tag of the root element every rendered component has (contract §3), to write
    /// first in the block's own `html!` buffer, with [`RenderCx::root_end`] last: the block's
    /// markup is written once, in place.
    pub fn root_start<'b>(&'b self, labelled_by: Option<OwnId<'b, 3>>) -> RootStart<'b> {
        RootStart {
            cx: self,
            labelled_by,
            model: None,
        }
    }

    /// [`RenderCx::root_start`] plus `data-pb-model`: the facts the enhancement script needs to
    /// build the copy-back export in the browser (question texts, item labels, authored weights,
    /// routing…), as JSON. The reader's state is read from the form fields, as the server does;
    /// this is what the server reads from `pb.source`. Not on the email surface.
    pub fn root_start_with_model<'b>(
        &'b self,
        labelled_by: Option<OwnId<'b, 3>>,
        model: &'b dyn WriteModel,
    ) -> RootStart<'b> {
        RootStart {
            cx: self,
            labelled_by,
            model: (!self.surface.is_email()).then_some(model),
        }
    }

    /// The root's closing tag, after [`RenderCx::root_start`] and the block's markup.
    pub fn root_end(&self) -> RootEnd {
        if self.surface.is_email() {
            RootEnd("td></tr></table")
        } else {
            RootEnd(self.root_element())
        }
    }

    fn root_element(&self) -> &'static str {
        if self.surface.is_email() {
            // Outlook for Windows gives padding, borders and backgrounds to table cells only:
            // the card is a one-cell table.
            "table"
        } else {
            "section"
        }
    }

    fn open_root(
        &self,
        labelled_by: Option<OwnId<'_, 3>>,
        model: Option<&dyn WriteModel>,
        out: &mut String,
    ) {
        // Ids and names are written unescaped (`OwnId`): the engine's pieces must stay so.
        debug_assert!(
            !(self.id_prefix.bytes().chain(self.block.bytes()))
                .any(|b| matches!(b, b'&' | b'<' | b'>' | b'"' | b'\'')),
            "{:?} {:?}",
            self.id_prefix,
            self.block
        );
        let tag = self.tag;
        out.push('<');
        out.push_str(self.root_element());
        out.push_str(" class=\"pb-block pb-");
        out.push_str(tag);
        out.push_str("\" data-pb-block=\"");
        out.push_str(self.block);
        out.push_str("\" data-pb-kind=\"");
        out.push_str(tag);
        out.push('"');
        if self.surface.is_email() {
            out.push_str(" role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" border=\"0\" style=\"");
            out.push_str(email::BLOCK);
            out.push_str("\"><tr><td class=\"pb-card\" style=\"");
            out.push_str(email::CARD);
            out.push('"');
        } else {
            if let Some(id) = labelled_by {
                out.push_str(" aria-labelledby=\"");
                id.render_to(out);
                out.push('"');
            }
            if let Some(model) = model {
                out.push_str(" data-pb-model='");
                model.write_model(&mut ModelJson::new(out));
                out.push('\'');
            }
        }
        out.push('>');
    }
}

/// See [`RenderCx::root_start`].
pub struct RootStart<'a> {
    cx: &'a RenderCx<'a>,
    labelled_by: Option<OwnId<'a, 3>>,
    model: Option<&'a dyn WriteModel>,
}

impl Render for RootStart<'_> {
    fn render_to(&self, out: &mut String) {
        self.cx.open_root(self.labelled_by, self.model, out);
    }
}

/// See [`RenderCx::root_end`].
pub struct RootEnd(&'static str);

impl Render for RootEnd {
    fn render_to(&self, out: &mut String) {
        out.push_str("</");
        out.push_str(self.0);
        out.push('>');
    }
}

/// Inline styles for the email surface, where `<style>` and classes cannot be relied on. Short,
/// and shared: Gmail clips a message past 102 KB of HTML. Colours keep AA contrast on the card and
/// the page, and stay readable when a client inverts them (forced dark mode): no text colour
/// relies on a background a client may drop. `docs/email.md` says how they were checked.
pub mod email {
    /// The document root: type and the text colour everything inherits.
    pub const DOC: &str = "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:16px;line-height:1.5;color:#1f2328;";
    /// The table that is a card (margins on a table without a background: Outlook keeps them).
    pub const BLOCK: &str = "margin:16px 0;border-collapse:separate;";
    /// The card's one cell: padding, border and background on a table cell, as Outlook needs.
    pub const CARD: &str = "padding:12px 16px;border:1px solid #d0d7de;border-radius:8px;background:#f6f8fa;color:#1f2328;";
    /// A card's title.
    pub const TITLE: &str = "font-size:18px;line-height:1.3;font-weight:600;margin:0 0 8px;";
    /// A question's text (a heading, so screen readers can move between questions).
    pub const QUESTION: &str = "font-size:16px;line-height:1.4;font-weight:600;margin:12px 0 6px;";
    pub const MUTED: &str = "color:#57606a;font-size:14px;margin:0 0 8px;";
    pub const LIST: &str = "list-style:none;margin:0 0 8px;padding:0;";
    pub const ITEM: &str = "margin:4px 0;";
    pub const BADGE: &str = "font-size:13px;font-weight:600;color:#0a3069;background:#ddf4ff;";
    pub const PRE: &str = "white-space:pre-wrap;word-break:break-word;font-family:Menlo,Consolas,monospace;font-size:13px;border:1px solid #d0d7de;padding:8px;margin:0 0 8px;";
    /// Muted words inside a line (no margin: Outlook ignores margins on `<span>`).
    pub const MUTED_INLINE: &str = "color:#57606a;font-size:14px;";
    pub const LINK: &str = "color:#0550ae;text-decoration:underline;";
}

/// The email preview's "Respond" button, bulletproof: a table cell carries the colour and the
/// padding (Outlook for Windows pads only cells), the link inside carries the words.
pub fn respond_button(url: &str, label: &str) -> Markup {
    html! {
        table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:16px 0;" {
            tr {
                td class="pb-respond" bgcolor="#0969da" style="padding:10px 20px;background:#0969da;border-radius:6px;" {
                    a href=(url) style="color:#ffffff;text-decoration:none;font-weight:600;font-size:16px;" { (label) }
                }
            }
        }
    }
}

/// Reserves room in the buffer `html!` writes into: placed first, it sizes the buffer once for
/// what follows instead of letting it double (and copy) its way up.
struct Reserve(usize);

impl Render for Reserve {
    fn render_to(&self, out: &mut String) {
        out.reserve(self.0);
    }
}

/// The document root: direction, language and hash hooks around the body, and after it the
/// email preview's "Respond" link when there is one. `body_len` is about how long the body
/// renders (the buffer is sized from it).
#[allow(clippy::too_many_arguments)]
pub fn document_root(
    body: impl Render,
    body_len: usize,
    lang: i18n::Lang,
    hash: &str,
    surface: Surface,
    form: Option<FormChrome>,
    respond_url: Option<&str>,
    has_blocks: bool,
) -> Markup {
    let style = surface.is_email().then_some(email::DOC);
    // A routed form whose host keeps the document (no copy of it in the form) posts to a store:
    // the post sends the answers to the sender, and the button says so.
    let t = lang.strings();
    let sends = matches!(&form, Some(f) if surface == Surface::Routed && f.source.is_none() && f.action.is_some());
    let submit = if sends { t.send_answers } else { t.get_answers };
    // Sending is the routed page's one primary action; the script's Copy button then stands
    // beside it as a secondary one.
    let submit_class = if sends {
        "pb-submit pb-send"
    } else {
        "pb-submit"
    };
    // The body, the form's copy of the source (a little longer once escaped), the chrome.
    let room = body_len
        + form
            .as_ref()
            .and_then(|f| f.source)
            .map_or(0, |s| s.len() * 9 / 8)
        + 1024;
    html! {
        (Reserve(room))
        div class="pb-doc" dir=(lang.dir()) lang=(lang.code()) data-pb-hash=(hash)
            data-pb-surface=(surface.name()) style=[style] {
            @if let Some(form) = form {
                // With nowhere to post (an mdBook page without an answers action, a saved
                // page), a `dialog` form outside a dialog never submits: a no-script click on
                // a list button, or Enter in a text field, cannot send the reader to a page
                // that cannot answer and lose what they typed. The script works the same.
                form class="pb-form" method=(if form.action.is_some() { "post" } else { "dialog" }) action=[form.action] {
                    // The first submit button is the form's default: pressing Enter in a text
                    // field must export, not trigger the first "Move up" button. A form with
                    // nowhere to post never submits, and needs none (nor its words in a docs
                    // site's search index).
                    @if form.action.is_some() {
                        button type="submit" name="pb.op" value="export" hidden { (submit) }
                    }
                    @if let Some(source) = form.source {
                        (SourceField(source))
                    }
                    input type="hidden" name="pb.surface" value=(surface.name());
                    (body)
                    @if let Some(comments) = &form.comments {
                        (comments.render(lang.strings().comment_document))
                    }
                    @if let Some(reviewer) = &form.reviewer {
                        div class="pb-reviewer" {
                            label for=(reviewer.id) { (t.reviewer) }
                            input type="text" id=(reviewer.id) name="pb.reviewer" autocomplete="name"
                                maxlength="200" value=(reviewer.value);
                        }
                    }
                    div class="pb-actions" {
                        @if form.action.is_some() {
                            button type="submit" class=(submit_class) name="pb.op" value="export" { (submit) }
                        }
                    }
                }
            } @else if surface.is_email() {
                // The column: a centred table at most 600px wide; Outlook for Windows ignores
                // `max-width`, so its conditional comments hold it in a fixed 600px table.
                (PreEscaped("<!--[if mso]><table role=\"presentation\" width=\"600\" align=\"center\" cellpadding=\"0\" cellspacing=\"0\" border=\"0\"><tr><td><![endif]-->"))
                table role="presentation" width="100%" align="center" cellpadding="0" cellspacing="0" border="0"
                    style="max-width:600px;margin:0 auto;" {
                    tr { td style="padding:16px 8px;" {
                        // Gmail clips a long message at the end: the way to answer comes first too.
                        @if let Some(url) = respond_url.filter(|_| has_blocks) {
                            (respond_button(url, lang.strings().respond))
                        }
                        (body)
                        @if let Some(url) = respond_url {
                            (respond_button(url, lang.strings().respond))
                        }
                    } }
                }
                (PreEscaped("<!--[if mso]></td></tr></table><![endif]-->"))
            } @else {
                (body)
            }
        }
    }
}

/// The form's hidden copy of the document, its value in single quotes (see
/// [`escape_single_quoted_into`]): Markdown that holds components is mostly JSON.
struct SourceField<'a>(&'a str);

impl Render for SourceField<'_> {
    fn render_to(&self, out: &mut String) {
        out.push_str("<input type=\"hidden\" name=\"pb.source\" value='");
        escape_single_quoted_into(self.0, out);
        out.push_str("'>");
    }
}

/// What the document's form carries so a stateless server can export it (see the answers
/// module): the whole Markdown source in a hidden field, and where to post.
pub struct FormChrome<'a> {
    pub action: Option<&'a str>,
    /// `None` when the host keeps the document itself ([`crate::Options::form_source`]).
    pub source: Option<&'a str>,
    /// The box for a comment on the whole document, when the document has prose to comment on.
    pub comments: Option<Comments<'a>>,
    /// The routed page's optional name field (`pb.reviewer`), with what it holds.
    pub reviewer: Option<Reviewer<'a>>,
}

/// The routed page's name field: its element id and value.
pub struct Reviewer<'a> {
    pub id: String,
    pub value: &'a str,
}

/// The form's comments on the prose: the whole-document box (`pb.comment`), and the comments on
/// leaves a post carried (the script's `pb.note.K.*` fields), kept as hidden fields so a list
/// edit without JavaScript loses none of them.
pub struct Comments<'a> {
    /// The box's element id; `None` when the document has no prose, and so no box.
    pub id: Option<String>,
    /// What the box holds.
    pub value: &'a str,
    pub carried: Vec<CarriedNote<'a>>,
}

/// A comment on the prose posted with the form: its leaf, quote and text.
pub struct CarriedNote<'a> {
    pub leaf: Option<usize>,
    pub quote: Option<&'a str>,
    pub text: &'a str,
}

impl Comments<'_> {
    fn render(&self, label: &str) -> Markup {
        html! {
            @if let Some(id) = &self.id {
                details class="pb-note pb-doc-note" open[!self.value.is_empty()] {
                    summary { (label) }
                    label class="pb-visually-hidden" for=(id) { (label) }
                    textarea id=(id) name="pb.comment" rows="3" { (self.value) }
                }
            } @else if !self.value.is_empty() {
                input type="hidden" name="pb.comment" value=(self.value);
            }
            @for (k, note) in self.carried.iter().enumerate() {
                @if let Some(leaf) = note.leaf {
                    input type="hidden" name={ "pb.note." (k) ".leaf" } value=(leaf);
                }
                @if let Some(quote) = note.quote {
                    input type="hidden" name={ "pb.note." (k) ".quote" } value=(quote);
                }
                input type="hidden" name={ "pb.note." (k) ".text" } value=(note.text);
            }
        }
    }
}

/// The stylesheet and script a page links: their file names under the host's asset base.
#[derive(Debug, Clone, Copy)]
pub struct AssetLinks<'a> {
    pub base: &'a str,
    pub css: &'a str,
    pub js: &'a str,
}

/// A complete HTML page around a rendered fragment; the stylesheet and the enhancement script
/// (deferred) are linked, never inlined, so the page works under `style-src 'self'; script-src
/// 'self'`.
pub fn page(fragment: &str, title: &str, lang: i18n::Lang, assets: AssetLinks<'_>) -> String {
    let base = assets.base.trim_end_matches('/');
    html! {
        (Reserve(fragment.len() + title.len() + 512))
        (DOCTYPE)
        html lang=(lang.code()) dir=(lang.dir()) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                link rel="stylesheet" href={ (base) "/" (assets.css) };
                script src={ (base) "/" (assets.js) } defer {}
            }
            body {
                main class="pb-page" { (PreEscaped(fragment)) }
            }
        }
    }
    .into_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_text_and_numbers_render_as_maud_would() {
        let hostile = "a\"b<c>&'d é";
        assert_eq!(
            html! { p id=(Parts(["pb-1-", hostile, "-o", "2"])) { (Text(hostile)) } }.into_string(),
            html! { p id=(["pb-1-", hostile, "-o2"].concat()) { (hostile) } }.into_string()
        );
        for n in (0..=200).chain([1234, usize::MAX]) {
            assert_eq!(Digits::new(n).as_str(), n.to_string());
            assert_eq!(html! { (Num(n)) }.into_string(), n.to_string());
        }
    }

    /// Every digit count, each power of ten and its neighbours, and the extremes.
    #[test]
    fn decimals_are_written_as_to_string_writes_them() {
        let mut values = vec![0, 1, 9, u64::MAX, u64::MAX - 1];
        let mut p = 1u64;
        while let Some(next) = p.checked_mul(10) {
            values.extend([p - 1, p, p + 1, next / 2, next - 1]);
            p = next;
        }
        values.extend(0..1000);
        for n in values {
            let mut out = String::from("x");
            push_decimal(&mut out, n);
            assert_eq!(out, format!("x{n}"));
        }
    }

    #[test]
    fn own_ids_join_their_parts() {
        let n = Digits::new(12);
        let joined = OwnId(["pb-1a2b3c4d-b1", "-q", n.as_str(), "-"]).joined();
        let base = joined.base();
        assert_eq!(base.as_str(), "pb-1a2b3c4d-b1-q12-");
        let long = "x".repeat(INLINE_ID);
        assert_eq!(
            OwnId([&long[..], "-q1"]).joined().base().as_str(),
            format!("{long}-q1")
        );
        assert_eq!(base.id("note").render().0, "pb-1a2b3c4d-b1-q12-note");
        assert_eq!(
            base.numbered("o", &Digits::new(3), "-rec").render().0,
            "pb-1a2b3c4d-b1-q12-o3-rec"
        );
        assert_eq!(
            base.id_list("ctx", Some("hint")).render().0,
            "pb-1a2b3c4d-b1-q12-ctx pb-1a2b3c4d-b1-q12-hint"
        );
        assert_eq!(
            base.id_list("ctx", None).render().0,
            "pb-1a2b3c4d-b1-q12-ctx"
        );
    }

    #[test]
    fn fill_renders_as_the_filled_string_would() {
        let hostile = "a\"b<c>&'d é";
        for template in [
            "Move {} up",
            "{} first",
            "“{}”",
            "a{}b{}",
            "no slot & <tag>",
            "{",
            "",
        ] {
            for value in [hostile, "", "{}"] {
                assert_eq!(
                    html! { p title=(Fill(template, value)) { (Fill(template, value)) } }
                        .into_string(),
                    html! { p title=(Strings::fill(template, value)) { (Strings::fill(template, value)) } }
                        .into_string(),
                    "{template:?} with {value:?}"
                );
            }
        }
    }

    /// Escapes the plain way, one character at a time.
    fn reference(text: &str, quote: char) -> String {
        let mut out = String::new();
        for c in text.chars() {
            match c {
                '&' => out.push_str("&amp;"),
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '"' if quote == '"' => out.push_str("&quot;"),
                '\'' if quote == '\'' => out.push_str("&#39;"),
                c => out.push(c),
            }
        }
        out
    }

    #[test]
    fn the_word_test_finds_every_byte_with_an_entity() {
        for byte in 0..=255u8 {
            for at in 0..8 {
                let mut word = [b'a'; 8];
                word[at] = byte;
                let expected = matches!(byte, b'"'..=b'\'' | b'<' | b'>');
                assert_eq!(
                    may_need_escaping(u64::from_le_bytes(word)),
                    expected,
                    "{byte:#x} at {at}"
                );
            }
        }
    }

    #[test]
    fn long_texts_escape_as_short_ones_do() {
        let pieces = [
            "&",
            "<",
            ">",
            "\"",
            "'",
            "é",
            "\u{1F600}",
            "plain text ",
            "{\"k\": 1}",
        ];
        for len in [60, 63, 64, 65, 100, 257, 1000] {
            for seed in 0..pieces.len() {
                // Specials dense, sparse, and at both ends.
                let mut text = String::new();
                let mut k = seed;
                while text.len() < len {
                    text.push_str(pieces[k % pieces.len()]);
                    k = (k * 7 + 3) % 1009;
                }
                let sparse = format!("{}{}{}", pieces[seed], "x".repeat(len), pieces[seed]);
                for t in [&text, &sparse, &"y".repeat(len)] {
                    let (mut double, mut single) = (String::new(), String::new());
                    escape_into(t, &mut double);
                    escape_single_quoted_into(t, &mut single);
                    assert_eq!(double, reference(t, '"'), "{t:?}");
                    assert_eq!(single, reference(t, '\''), "{t:?}");
                }
            }
        }
    }

    #[test]
    fn escaping_matches_maud_at_every_alignment() {
        let specials = ["&", "<", ">", "\"", "'", "é", "\u{1F600}", "a"];
        for len in 0..20 {
            for (k, special) in specials.iter().enumerate() {
                for at in 0..=len {
                    let mut text = "x".repeat(len);
                    text.insert_str(at, special);
                    text.push_str(specials[(k + at) % specials.len()]);
                    let mut ours = String::new();
                    escape_into(&text, &mut ours);
                    assert_eq!(ours, maud::html! { (text) }.into_string(), "{text:?}");
                }
            }
        }
    }

    /// The single-quoted form escapes `'` where the double-quoted one escapes `"`, at every
    /// position of the eight-byte scan, and is otherwise the same.
    #[test]
    fn single_quoted_escaping_swaps_the_quote_at_every_alignment() {
        for len in 0..20 {
            for at in 0..=len {
                let mut text = "x".repeat(len);
                text.insert_str(at, "'\"&<>é");
                let mut ours = String::new();
                escape_single_quoted_into(&text, &mut ours);
                let expected = maud::html! { (text) }
                    .into_string()
                    .replace("&quot;", "\"")
                    .replace('\'', "&#39;");
                assert_eq!(ours, expected, "{text:?}");
                assert!(!ours.contains('\''), "{ours:?} would end the attribute");
            }
        }
    }
}
