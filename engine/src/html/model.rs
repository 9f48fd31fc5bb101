//! The block models (`data-pb-model`, see [`super::RenderCx::root_start_with_model`]) written as
//! JSON straight into the attribute value: the bytes `serde_json::to_string` gives, escaped on
//! the way as [`super::escape_single_quoted_into`] escapes them, without the JSON string between
//! the two. Each model's `serde::Serialize` derive stays as the reference the tests compare
//! with.

/// A block model that writes itself with a [`ModelJson`].
pub trait WriteModel {
    fn write_model(&self, json: &mut ModelJson);
}

/// Compact JSON written into a single-quoted attribute value: `&`, `<`, `>` and `'` as
/// entities, the rest as serde_json writes it.
pub struct ModelJson<'o> {
    out: &'o mut String,
    /// Whether a value was written in the current object or array (the next one needs a `,`).
    after_value: bool,
}

impl<'o> ModelJson<'o> {
    pub fn new(out: &'o mut String) -> Self {
        ModelJson {
            out,
            after_value: false,
        }
    }

    #[inline]
    fn separate(&mut self) {
        if self.after_value {
            self.out.push(',');
        }
    }

    /// Opens an object or array (`{` or `[`), as a value.
    #[inline]
    pub fn open(&mut self, bracket: char) {
        self.separate();
        self.out.push(bracket);
        self.after_value = false;
    }

    /// Closes what [`ModelJson::open`] opened (`}` or `]`).
    #[inline]
    pub fn close(&mut self, bracket: char) {
        self.out.push(bracket);
        self.after_value = true;
    }

    /// An object's key: one of the engine's names, which hold nothing to escape.
    #[inline]
    pub fn key(&mut self, key: &'static str) {
        self.separate();
        self.out.push('"');
        self.out.push_str(key);
        self.out.push_str("\":");
        self.after_value = false;
    }

    /// A string value.
    pub fn string(&mut self, text: &str) {
        self.separate();
        self.out.push('"');
        push_string_body(text, self.out);
        self.out.push('"');
        self.after_value = true;
    }

    /// A number value, as serde_json writes it (`100.0`, `1e16`, `null` when not finite).
    pub fn number(&mut self, n: f64) {
        self.separate();
        self.after_value = true;
        // A whole number (a total, most weights) is its digits and `.0` in serde_json's
        // spelling below 10^16; the rest is left to serde_json itself.
        // Whole, tested by a round trip through `i64`: `fract` calls libm's `trunc` on baseline
        // x86-64.
        if n.abs() < 1e15 && n == n as i64 as f64 && !(n == 0.0 && n.is_sign_negative()) {
            self.out.push_str(itoa::Buffer::new().format(n as i64));
            self.out.push_str(".0");
            return;
        }
        let mut buf = [0u8; 32];
        let unused = {
            let mut rest = &mut buf[..];
            // An `f64` is at most 24 bytes long in JSON: writing it cannot fail.
            let _ = serde_json::to_writer(&mut rest, &n);
            rest.len()
        };
        // serde_json writes ASCII only.
        self.out
            .push_str(std::str::from_utf8(&buf[..buf.len() - unused]).unwrap_or("null"));
    }

    /// `"key":"text"`, left out when `text` is `None` (`skip_serializing_if = "Option::is_none"`).
    #[inline]
    pub fn optional_string(&mut self, key: &'static str, text: Option<&str>) {
        if let Some(text) = text {
            self.key(key);
            self.string(text);
        }
    }

    /// `"key":[…]` of strings.
    pub fn strings<S: AsRef<str>>(&mut self, key: &'static str, texts: &[S]) {
        self.key(key);
        self.open('[');
        for text in texts {
            self.string(text.as_ref());
        }
        self.close(']');
    }

    /// `"key":[…]` of numbers.
    pub fn numbers(&mut self, key: &'static str, numbers: &[f64]) {
        self.key(key);
        self.open('[');
        for &n in numbers {
            self.number(n);
        }
        self.close(']');
    }
}

/// The bytes a JSON string escapes (`"`, `\` and the C0 controls) and those the single-quoted
/// attribute escapes (`&`, `<`, `>`, `'`).
static ESCAPED: [bool; 256] = super::controls_and(b"\"\\&<>'");

/// `text` as the inside of a JSON string in the attribute value, copied in runs between the
/// bytes to escape. Most model strings (labels, question texts) have none: the clean start is
/// found eight bytes at a time, and only what follows it is read byte by byte.
fn push_string_body(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    let clean = clean_run(bytes);
    if clean == bytes.len() {
        out.push_str(text);
        return;
    }
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate().skip(clean) {
        if !ESCAPED[usize::from(b)] {
            continue;
        }
        out.push_str(&text[start..i]);
        start = i + 1;
        let short = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0C => "\\f",
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'\'' => "&#39;",
            _ => {
                // The other controls, as serde_json spells them: `\u001f`.
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 0xF)]));
                continue;
            }
        };
        out.push_str(short);
    }
    out.push_str(&text[start..]);
}

/// How many bytes at the start of `bytes` are written as they are: up to the first byte of
/// [`ESCAPED`]. Eight bytes are tested at a time, as one word.
fn clean_run(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut chunks = bytes.chunks_exact(8);
    let mut n = 0;
    for chunk in chunks.by_ref() {
        let w = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        // The high bit of each byte that is below 0x20 or is zero after the xor; a borrow can
        // only mark bytes above the first true one, so the lowest mark is exact.
        let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x;
        let is = |c: u8| below(w ^ (ONES * u64::from(c)), 1);
        let marks =
            (below(w, 0x20) | is(b'"') | is(b'\\') | is(b'&') | is(b'<') | is(b'>') | is(b'\''))
                & HIGHS;
        if marks != 0 {
            return n + (marks.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + chunks
        .remainder()
        .iter()
        .position(|&b| ESCAPED[usize::from(b)])
        .unwrap_or(chunks.remainder().len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn clean_runs_stop_where_a_byte_loop_would() {
        let naive = |b: &[u8]| {
            b.iter()
                .position(|&c| ESCAPED[usize::from(c)])
                .unwrap_or(b.len())
        };
        let alphabet: &[u8] = b"a \"\\&<>'\n\x01\x1f\x20\x21\x25\x3d\x5b\x7f\x80\xa2\xdc\xff";
        // Every length up to two words, each special byte at every place, after any filler.
        for len in 0..20 {
            for at in 0..len {
                for &fill in alphabet {
                    for &special in alphabet {
                        let mut bytes = vec![fill; len];
                        bytes[at] = special;
                        assert_eq!(clean_run(&bytes), naive(&bytes), "{bytes:?}");
                    }
                }
            }
        }
    }

    /// What the writer must match: serde_json's compact text, escaped for the attribute.
    fn reference(value: &impl serde::Serialize) -> String {
        let mut out = String::new();
        super::super::escape_single_quoted_into(&serde_json::to_string(value).unwrap(), &mut out);
        out
    }

    fn written(write: impl FnOnce(&mut ModelJson)) -> String {
        let mut out = String::new();
        write(&mut ModelJson::new(&mut out));
        out
    }

    #[test]
    fn every_ascii_byte_and_some_others_are_written_as_serde_json_writes_them() {
        let mut all: String = (0u8..0x80).map(char::from).collect();
        all.push_str("é\u{2028}\u{2029}\u{FEFF}\u{1F600}\u{7F}");
        for text in [all.as_str(), "", "plain", "a'b\"c&d<e>f\\g"] {
            assert_eq!(written(|j| j.string(text)), reference(&text), "{text:?}");
        }
    }

    #[test]
    fn numbers_are_written_as_serde_json_writes_them() {
        for n in [
            0.0,
            -0.0,
            1.0,
            -7.0,
            999_999_999_999_999.0,
            -1e15,
            100.0,
            40.0,
            33.333333333333336,
            0.1 + 0.2,
            1e15,
            1e16,
            1e-7,
            123456789.125,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::NAN,
            f64::INFINITY,
        ] {
            assert_eq!(written(|j| j.number(n)), reference(&n), "{n:?}");
        }
    }

    proptest! {
        #[test]
        fn strings_match_serde_json(text in any::<String>()) {
            prop_assert_eq!(written(|j| j.string(&text)), reference(&text));
        }

        #[test]
        fn whole_and_other_numbers_match_serde_json(n in -2e16..2e16f64, scale in 0..20u32) {
            for n in [n, n.trunc(), (n / 10f64.powi(scale as i32)).trunc()] {
                prop_assert_eq!(written(|j| j.number(n)), reference(&n));
            }
        }

        #[test]
        fn nested_lists_match_serde_json(
            lists in prop::collection::vec(prop::collection::vec(any::<String>(), 0..4), 0..4),
            numbers in prop::collection::vec(any::<f64>(), 0..4),
        ) {
            let ours = written(|j| {
                j.open('{');
                j.key("lists");
                j.open('[');
                for list in &lists {
                    j.open('[');
                    for s in list {
                        j.string(s);
                    }
                    j.close(']');
                }
                j.close(']');
                j.numbers("numbers", &numbers);
                j.close('}');
            });
            let theirs = reference(&serde_json::json!({ "lists": lists, "numbers": numbers }));
            prop_assert_eq!(ours, theirs);
        }
    }
}
