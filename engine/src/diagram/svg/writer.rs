//! A small XML writer that escapes every value that could need it, and the attribute values it
//! takes: fixed text checked when compiled (`Plain`, `Run`), numbers, text written from
//! numbers, and text to escape.

use super::number::push_num;

/// Fixed text that needs no escaping: checked when compiled, as `Plain::new` runs in a
/// `const` (see `plain!`).
#[derive(Debug, Clone, Copy)]
pub struct Plain(pub(super) &'static str);

impl Plain {
    pub const fn new(s: &'static str) -> Plain {
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
        $crate::diagram::svg::writer::Val::Plain(
            const { $crate::diagram::svg::writer::Plain::new($s) },
        )
    };
}
pub(crate) use plain;

/// Fixed attributes written in one piece, ` name="value"` after ` name="value"`: the paint
/// most elements end with. Checked when compiled, as `Run::new` runs in a `const` (see `run!`):
/// names of letters and `-`, values that need no escaping.
#[derive(Debug, Clone, Copy)]
pub struct Run(pub(super) &'static str);

impl Run {
    pub const fn new(s: &'static str) -> Run {
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
        const { $crate::diagram::svg::writer::Run::new(concat!($(" ", $name, "=\"", $value, "\""),+)) }
    };
}
pub(crate) use run;

/// An attribute value.
#[derive(Clone, Copy)]
pub enum Val<'a> {
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
pub struct Writer {
    pub(super) out: String,
}

impl Writer {
    pub fn new() -> Writer {
        Writer::with_capacity(4096)
    }

    pub fn with_capacity(bytes: usize) -> Writer {
        Writer {
            out: String::with_capacity(bytes),
        }
    }

    #[inline(always)]
    pub(super) fn attrs(&mut self, attrs: &[(&'static str, Val)]) {
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
    pub fn open(&mut self, tag: &'static str, attrs: &[(&'static str, Val)]) {
        self.out.push('<');
        self.out.push_str(tag);
        self.attrs(attrs);
        self.out.push('>');
    }

    /// `<tag …/>` and a line break.
    #[inline(always)]
    pub fn leaf(&mut self, tag: &'static str, attrs: &[(&'static str, Val)]) {
        self.out.push('<');
        self.out.push_str(tag);
        self.attrs(attrs);
        self.out.push_str("/>\n");
    }

    /// `<tag …/>` with `attrs` then the fixed ones of `paint`, and a line break.
    #[inline(always)]
    pub fn leaf_painted(&mut self, tag: &'static str, attrs: &[(&'static str, Val)], paint: Run) {
        self.out.push('<');
        self.out.push_str(tag);
        self.attrs(attrs);
        self.out.push_str(paint.0);
        self.out.push_str("/>\n");
    }

    /// `</tag>`
    #[inline(always)]
    pub fn close(&mut self, tag: &'static str) {
        self.out.push_str("</");
        self.out.push_str(tag);
        self.out.push('>');
    }

    pub fn newline(&mut self) {
        self.out.push('\n');
    }

    pub fn text(&mut self, s: &str) {
        escape_into(&mut self.out, s);
    }

    pub fn finish(self) -> String {
        self.out
    }
}

/// Escapes for both text and double-quoted attributes, and drops characters XML forbids.
/// Copies the text in runs between the bytes that need work: labels rarely have any.
pub(super) fn escape_into(out: &mut String, s: &str) {
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
pub(super) const NEEDS_WORK: [bool; 256] =
    crate::html::controls_and(&[b'&', b'<', b'>', b'"', b'\'', 0xEF]);

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
pub(super) fn may_need_work(word: u64) -> bool {
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
