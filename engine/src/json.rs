//! A small JSON parser that keeps the byte offset of every value, so a diagnostic can point at
//! the exact line and column of the field it is about. It accepts exactly what `JSON.parse`
//! accepts, plus trailing commas (recorded, so the caller can warn about the rescue). Nesting is
//! capped so hostile input cannot exhaust the stack; every step is linear in the input.
//!
//! The tree lives in an arena the caller provides: a block's objects and arrays cost no
//! allocation each, and the whole tree is freed at once with the arena.

use bumpalo::Bump;
use bumpalo::collections::{String as BumpString, Vec as BumpVec};
use std::collections::HashSet;

/// How deep arrays and objects may nest before the parser refuses the input.
pub const MAX_DEPTH: usize = 96;

/// Objects with more members than this track their keys in a set.
const WIDE_OBJECT: usize = 16;

/// A parsed JSON value and the byte offset where it starts. Strings borrow from the parsed
/// text unless they hold escapes (then they are decoded into the arena): most keys and values
/// are copied nowhere. `'s` is the text's and the arena's lifetime.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Json<'s> {
    /// Byte offset of the value's first character in the parsed text.
    pub start: usize,
    /// The value itself.
    pub value: Value<'s>,
}

/// A JSON value; objects keep their members in source order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'s> {
    Null,
    Bool(bool),
    Number(f64),
    String(&'s str),
    Array(&'s [Json<'s>]),
    Object(&'s [Member<'s>]),
}

/// One `"key": value` pair of an object.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Member<'s> {
    pub key: &'s str,
    pub key_start: usize,
    pub value: Json<'s>,
}

/// Why the text is not JSON, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    pub offset: usize,
    pub message: String,
    /// True when the input was refused for nesting deeper than [`MAX_DEPTH`].
    pub too_deep: bool,
}

/// A successful parse: the value and the rescues the parser had to make.
#[derive(Debug, Clone)]
pub struct Parsed<'s> {
    pub value: Json<'s>,
    /// Offsets of trailing commas that were dropped before `}` or `]`.
    pub trailing_commas: Vec<usize>,
    /// Keys that appeared twice in one object (the last one wins, as in `JSON.parse`).
    pub duplicate_keys: Vec<(usize, &'s str)>,
}

impl Json<'_> {
    /// The JSON Pointer of the member whose key starts at byte `key_start`, found by going
    /// down the members and elements that start before it: where a diagnostic about a key
    /// (a repeated one) points.
    pub fn pointer_to_key(&self, key_start: usize) -> Option<String> {
        let mut out = String::new();
        let mut at = self;
        loop {
            match &at.value {
                Value::Object(members) => {
                    let m = members.iter().rev().find(|m| m.key_start <= key_start)?;
                    crate::diag::push_token(&mut out, m.key);
                    if m.key_start == key_start {
                        return Some(out);
                    }
                    at = &m.value;
                }
                Value::Array(items) => {
                    let i = items.iter().rposition(|v| v.start <= key_start)?;
                    out.push('/');
                    out.push_str(&i.to_string());
                    at = &items[i];
                }
                _ => return None,
            }
        }
    }
}

impl Value<'_> {
    /// The JSON type name used in messages ("string", "array", ...).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }
}

impl<'s> Json<'s> {
    /// What a slot holds until its value is parsed into it.
    const UNSET: Json<'s> = Json {
        start: 0,
        value: Value::Null,
    };

    /// The member `key` of an object (the last one when the key repeats).
    pub fn get(&self, key: &str) -> Option<&'s Json<'s>> {
        match self.value {
            Value::Object(members) => members
                .iter()
                .rev()
                .find(|m| same(m.key, key))
                .map(|m| &m.value),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&'s str> {
        match self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&'s [Json<'s>]> {
        match self.value {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&'s [Member<'s>]> {
        match self.value {
            Value::Object(members) => Some(members),
            _ => None,
        }
    }
}

/// `a == b`, with the length and the first byte compared first: keys and field names that
/// differ mostly differ there. Equal lengths of 4 to 16 bytes (most keys) are compared as two
/// overlapping words each, without a call to `memcmp`.
#[inline]
pub fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() || a.first() != b.first() {
        return false;
    }
    let n = a.len();
    let word = |s: &[u8], i: usize| u64::from_le_bytes(s[i..i + 8].try_into().unwrap_or_default());
    let half = |s: &[u8], i: usize| u32::from_le_bytes(s[i..i + 4].try_into().unwrap_or_default());
    match n {
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        _ => a == b,
    }
}

/// Parses `text` as one JSON value surrounded by optional whitespace, building the tree in
/// `arena`.
pub fn parse<'s>(text: &'s str, arena: &'s Bump) -> Result<Parsed<'s>, ParseError> {
    let mut p = Parser {
        bytes: text.as_bytes(),
        text,
        arena,
        pos: 0,
        trailing_commas: Vec::new(),
        duplicate_keys: Vec::new(),
    };
    p.skip_ws();
    if p.pos >= p.bytes.len() {
        return Err(*p.error("the block is empty: expected a JSON object"));
    }
    let mut value = Json::UNSET;
    p.value(0, &mut value).map_err(|e| *e)?;
    p.skip_ws();
    if p.pos < p.bytes.len() {
        return Err(*p.error("unexpected text after the end of the JSON value"));
    }
    Ok(Parsed {
        value,
        trailing_commas: p.trailing_commas,
        duplicate_keys: p.duplicate_keys,
    })
}

/// Replaces smart double quotes that stand where JSON needs a `"` (next to `{ [ , :` or before
/// `: , } ]`). Returns `None` when there is nothing to replace. Each 3-byte quote becomes `"` plus
/// two spaces placed outside the string, so every byte offset in the result still points at the
/// same place in the original text.
pub fn rescue_smart_quotes(text: &str) -> Option<String> {
    const SMART: [char; 4] = ['\u{201C}', '\u{201D}', '\u{201E}', '\u{201F}'];
    if !text.contains(SMART) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    for (i, c) in text.char_indices() {
        if !SMART.contains(&c) {
            out.push(c);
            continue;
        }
        let before = text[..i].trim_end().chars().next_back();
        let after = text[i + c.len_utf8()..].trim_start().chars().next();
        let opens = matches!(before, None | Some('{' | '[' | ',' | ':'));
        let closes = matches!(after, None | Some(':' | ',' | '}' | ']'));
        if opens {
            out.push_str("  \"");
            changed = true;
        } else if closes {
            out.push_str("\"  ");
            changed = true;
        } else {
            out.push(c);
        }
    }
    changed.then_some(out)
}

/// A step of the parse. The error is boxed: it is rare, and a `Result` no larger than its
/// value is cheaper to hand back from every value of the tree.
type Step<T> = Result<T, Box<ParseError>>;

struct Parser<'t> {
    bytes: &'t [u8],
    text: &'t str,
    arena: &'t Bump,
    pos: usize,
    trailing_commas: Vec<usize>,
    duplicate_keys: Vec<(usize, &'t str)>,
}

impl<'t> Parser<'t> {
    fn error(&self, message: &str) -> Box<ParseError> {
        Box::new(ParseError {
            offset: self.pos.min(self.bytes.len()),
            message: message.to_string(),
            too_deep: false,
        })
    }

    fn unexpected(&self, expected: &str) -> Box<ParseError> {
        match self
            .text
            .get(self.pos..)
            .and_then(|rest| rest.chars().next())
        {
            None => self.error(&format!("unexpected end of the block: expected {expected}")),
            Some(c) if is_smart_quote(c) => self.error(&format!(
                "found a curly quote {c} where JSON needs a straight \" ({expected})"
            )),
            Some(c) => self.error(&format!("unexpected {c:?}: expected {expected}")),
        }
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    /// Parses the value here into `slot`, the place in its list where it is kept: a value
    /// handed back by return is copied there again, and that copy is slow to read right after
    /// the stores that wrote it.
    fn value(&mut self, depth: usize, slot: &mut Json<'t>) -> Step<()> {
        slot.start = self.pos;
        slot.value = match self.bytes.get(self.pos) {
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => Value::String(self.string()?),
            Some(b't') => self.literal("true", Value::Bool(true))?,
            Some(b'f') => self.literal("false", Value::Bool(false))?,
            Some(b'n') => self.literal("null", Value::Null)?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            _ => return Err(self.unexpected("a value")),
        };
        Ok(())
    }

    fn enter(&self, depth: usize) -> Step<()> {
        if depth >= MAX_DEPTH {
            return Err(Box::new(ParseError {
                offset: self.pos,
                message: format!("JSON nested more than {MAX_DEPTH} levels deep"),
                too_deep: true,
            }));
        }
        Ok(())
    }

    fn object(&mut self, depth: usize) -> Step<Value<'t>> {
        self.enter(depth)?;
        self.pos += 1;
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Value::Object(&[]));
        }
        // Room for a component object's handful of members, taken once up front.
        let mut members: BumpVec<Member<'t>> = BumpVec::with_capacity_in(8, self.arena);
        // Duplicate keys: a scan of `members` for small objects (component objects have a handful
        // of keys, and hashing costs more), a set once an object is wide enough that scanning
        // would turn quadratic.
        let mut seen: Option<HashSet<&'t str>> = None;
        loop {
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b'"') {
                return Err(self.unexpected("a \"key\" in double quotes"));
            }
            let key_start = self.pos;
            let key = self.string()?;
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b':') {
                return Err(self.unexpected("':' after the key"));
            }
            self.pos += 1;
            self.skip_ws();
            members.push(Member {
                key,
                key_start,
                value: Json::UNSET,
            });
            let last = members.len() - 1;
            self.value(depth + 1, &mut members[last].value)?;
            let earlier = &members[..last];
            let duplicate = match &mut seen {
                Some(set) => !set.insert(key),
                None => {
                    if earlier.len() >= WIDE_OBJECT {
                        seen = Some(members.iter().map(|m| m.key).collect());
                    }
                    earlier.iter().any(|m| same(m.key, key))
                }
            };
            if duplicate {
                self.duplicate_keys.push((key_start, key));
            }
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => {
                    let comma = self.pos;
                    self.pos += 1;
                    self.skip_ws();
                    if self.bytes.get(self.pos) == Some(&b'}') {
                        self.trailing_commas.push(comma);
                        self.pos += 1;
                        return Ok(Value::Object(members.into_bump_slice()));
                    }
                }
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(members.into_bump_slice()));
                }
                _ => return Err(self.unexpected("',' or '}'")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Step<Value<'t>> {
        self.enter(depth)?;
        self.pos += 1;
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Value::Array(&[]));
        }
        // Taken once for a short list; a longer one grows as usual.
        let mut items = BumpVec::with_capacity_in(4, self.arena);
        loop {
            self.skip_ws();
            items.push(Json::UNSET);
            let last = items.len() - 1;
            self.value(depth + 1, &mut items[last])?;
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => {
                    let comma = self.pos;
                    self.pos += 1;
                    self.skip_ws();
                    if self.bytes.get(self.pos) == Some(&b']') {
                        self.trailing_commas.push(comma);
                        self.pos += 1;
                        return Ok(Value::Array(items.into_bump_slice()));
                    }
                }
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items.into_bump_slice()));
                }
                _ => return Err(self.unexpected("',' or ']'")),
            }
        }
    }

    fn literal(&mut self, word: &str, value: Value<'t>) -> Step<Value<'t>> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.unexpected("a value"))
        }
    }

    fn number(&mut self) -> Step<Value<'t>> {
        let start = self.pos;
        if self.bytes.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        match self.bytes.get(self.pos) {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.unexpected("a digit")),
        }
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if !matches!(self.bytes.get(self.pos), Some(b'0'..=b'9')) {
                return Err(self.unexpected("a digit after '.'"));
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.pos) {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.pos) {
                self.pos += 1;
            }
            if !matches!(self.bytes.get(self.pos), Some(b'0'..=b'9')) {
                return Err(self.unexpected("a digit in the exponent"));
            }
            self.digits();
        }
        let text = &self.text[start..self.pos];
        // A short integer (a weight, a total) is exact in an f64: no need for the float parser.
        let (negative, digits) = match text.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, text),
        };
        if digits.len() <= 15 && digits.bytes().all(|b| b.is_ascii_digit()) {
            let n = digits
                .bytes()
                .fold(0u64, |n, b| n * 10 + u64::from(b - b'0')) as f64;
            return Ok(Value::Number(if negative { -n } else { n }));
        }
        match text.parse::<f64>() {
            Ok(n) if n.is_finite() => Ok(Value::Number(n)),
            _ => Err(Box::new(ParseError {
                offset: start,
                message: format!("the number {text} is out of range"),
                too_deep: false,
            })),
        }
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    /// A string: borrowed from the text when it holds no escape, decoded into the arena when it
    /// does.
    fn string(&mut self) -> Step<&'t str> {
        let start = self.pos + 1; // past the opening quote
        let end = start + plain_run(&self.bytes[start..]);
        // Most strings hold no escape: one scan to the closing quote, and a slice of the text.
        if self.bytes.get(end) == Some(&b'"') {
            self.pos = end + 1;
            return Ok(&self.text[start..end]);
        }
        self.pos = end;
        self.escaped_string(start)
    }

    /// The rest of a string that stopped at an escape (or at an error) before its closing
    /// quote: `self.pos` is there, `start` is the string's first byte.
    #[cold]
    fn escaped_string(&mut self, start: usize) -> Step<&'t str> {
        let mut out = BumpString::new_in(self.arena);
        let mut run_start = start;
        loop {
            let run = &self.text[run_start..self.pos];
            match self.bytes.get(self.pos) {
                None => return Err(self.error("a string is not closed: add the closing \"")),
                Some(b'"') => {
                    out.push_str(run);
                    self.pos += 1;
                    return Ok(out.into_bump_str());
                }
                Some(b'\\') => {
                    out.push_str(run);
                    self.pos += 1;
                    self.escape(&mut out)?;
                }
                Some(b'\n') => {
                    return Err(self.error(
                        "a line break inside a string: write it as \\n or close the string",
                    ));
                }
                Some(_) => {
                    return Err(self.error("a control character inside a string: escape it"));
                }
            }
            run_start = self.pos;
            self.pos += plain_run(&self.bytes[self.pos..]);
        }
    }

    fn escape(&mut self, out: &mut BumpString) -> Step<()> {
        let c = match self.bytes.get(self.pos) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                self.pos += 1;
                let first = self.hex4()?;
                let c = if (0xD800..0xDC00).contains(&first)
                    && self.bytes.get(self.pos) == Some(&b'\\')
                    && self.bytes.get(self.pos + 1) == Some(&b'u')
                {
                    let save = self.pos;
                    self.pos += 2;
                    let second = self.hex4()?;
                    if (0xDC00..0xE000).contains(&second) {
                        char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
                    } else {
                        self.pos = save;
                        None
                    }
                } else {
                    // NUL becomes the replacement character, as CommonMark does for NUL in the
                    // Markdown: it has no place in HTML, SVG or mail.
                    char::from_u32(first).filter(|c| *c != '\0')
                };
                // A lone surrogate is legal JSON but not a Rust char; JS would keep it, we
                // substitute the replacement character.
                out.push(c.unwrap_or('\u{FFFD}'));
                return Ok(());
            }
            _ => return Err(self.error("an unknown escape sequence in a string")),
        };
        out.push(c);
        self.pos += 1;
        Ok(())
    }

    fn hex4(&mut self) -> Step<u32> {
        let digits = self
            .text
            .get(self.pos..self.pos + 4)
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| self.error("\\u must be followed by four hex digits"))?;
        let n = u32::from_str_radix(digits, 16).map_err(|_| self.error("bad \\u escape"))?;
        self.pos += 4;
        Ok(n)
    }
}

/// How many bytes at the start of `bytes` may stand in a string as they are: up to the first
/// `"`, `\\` or control character. Eight bytes are tested at a time, as one word.
fn plain_run(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut chunks = bytes.chunks_exact(8);
    let mut n = 0;
    for chunk in chunks.by_ref() {
        let w = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        // The high bit of each byte that is below 0x20 or is zero after the xor; a borrow can
        // only mark bytes above the first true one, so the lowest mark is exact.
        let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x;
        let marks =
            (below(w, 0x20) | below(w ^ (ONES * 0x22), 1) | below(w ^ (ONES * 0x5C), 1)) & HIGHS;
        if marks != 0 {
            return n + (marks.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + chunks
        .remainder()
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .unwrap_or(chunks.remainder().len())
}

fn is_smart_quote(c: char) -> bool {
    matches!(
        c,
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2018}' | '\u{2019}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As [`super::parse`], in an arena of its own that lives as long as the test.
    fn parse(text: &str) -> Result<Parsed<'_>, ParseError> {
        super::parse(text, Box::leak(Box::new(Bump::new())))
    }

    #[test]
    fn same_agrees_with_equality() {
        let words = [
            "",
            "a",
            "ab",
            "abc",
            "abcd",
            "abcde",
            "abcdefg",
            "abcdefgh",
            "abcdefghi",
        ];
        let long = "abcdefghijklmnopqrstuvwxyz";
        for n in 0..=long.len() {
            let a = &long[..n];
            assert!(same(a, a));
            for i in 0..n {
                // The same length with one byte changed, at every place.
                let mut b = a.as_bytes().to_vec();
                b[i] = b'_';
                let b = String::from_utf8(b).unwrap();
                assert!(!same(a, &b), "{a:?} {b:?}");
            }
        }
        for a in words {
            for b in words {
                assert_eq!(same(a, b), a == b, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn parses_nested_values_with_offsets() {
        let p = parse(r#"{ "a": [1, "x\u00e9", true, null], "b": {"c": -2.5e1} }"#).unwrap();
        let a = p.value.get("a").unwrap();
        assert_eq!(a.start, 7);
        assert_eq!(a.as_array().unwrap()[1].as_str(), Some("xé"));
        assert_eq!(
            p.value.get("b").unwrap().get("c").unwrap().value,
            Value::Number(-25.0)
        );
    }

    #[test]
    fn a_repeated_key_is_pointed_at_where_it_sits() {
        let text = r#"{"id": 1, "items": [{"id": "a"}, {"id": "b", "id": "c"}], "routing": {"from": "x", "from": "y"}, "id": 2}"#;
        let p = parse(text).unwrap();
        let paths: Vec<Option<String>> = p
            .duplicate_keys
            .iter()
            .map(|(at, _)| p.value.pointer_to_key(*at))
            .collect();
        let expected = ["/items/1/id", "/routing/from", "/id"];
        assert_eq!(paths, expected.map(|e| Some(e.to_string())));
        // An offset that starts no key.
        assert_eq!(p.value.pointer_to_key(3), None);
    }

    #[test]
    fn duplicate_keys_are_recorded_in_order() {
        let p = parse(r#"{"a": 1, "b": {"c": 1, "c": 2}, "a": 3, "a": 4}"#).unwrap();
        let keys: Vec<&str> = p.duplicate_keys.iter().map(|(_, k)| *k).collect();
        assert_eq!(keys, ["c", "a", "a"]);
        // A repeat inside a repeated key's value is met, and recorded, first.
        let p = parse(r#"{"a": 1, "a": {"b": 1, "b": 2}}"#).unwrap();
        let keys: Vec<&str> = p.duplicate_keys.iter().map(|(_, k)| *k).collect();
        assert_eq!(keys, ["b", "a"]);
        // Past the width where keys move into a set, before and after the switch.
        let mut wide: Vec<String> = (0..30).map(|i| format!("\"k{i}\": {i}")).collect();
        wide.insert(10, "\"k3\": 0".into());
        wide.push("\"k3\": 0".into());
        wide.push("\"k29\": 0".into());
        let text = format!("{{{}}}", wide.join(", "));
        let p = parse(&text).unwrap();
        let keys: Vec<&str> = p.duplicate_keys.iter().map(|(_, k)| *k).collect();
        assert_eq!(keys, ["k3", "k3", "k29"]);
    }

    #[test]
    fn plain_strings_are_borrowed_and_escaped_ones_decoded() {
        let text = r#"{"plain": "a b", "esc\u0041": "x\"y\n", "": ""}"#;
        let p = parse(text).unwrap();
        let members = p.value.as_object().unwrap();
        let in_text = |s: &str| text.as_bytes().as_ptr_range().contains(&s.as_ptr());
        assert_eq!(members[0].key, "plain");
        assert!(in_text(members[0].key));
        assert!(in_text(members[0].value.as_str().unwrap()));
        assert_eq!(members[1].key, "escA");
        assert!(!in_text(members[1].key));
        assert_eq!(members[1].value.as_str(), Some("x\"y\n"));
        assert_eq!(members[2].value.as_str(), Some(""));
        // Errors inside a string are still reported where they are.
        let err = parse("{\"a\": \"line\nbreak\"}").unwrap_err();
        assert_eq!(err.offset, 11);
        assert!(err.message.contains("line break"));
        let err = parse(r#"{"a": "never closed}"#).unwrap_err();
        assert!(err.message.contains("not closed"));
    }

    #[test]
    fn trailing_commas_are_accepted_and_recorded() {
        let p = parse("{\"a\": [1, 2,], }").unwrap();
        assert_eq!(p.trailing_commas, vec![11, 13]);
    }

    #[test]
    fn rejects_what_json_parse_rejects() {
        for bad in [
            "{a: 1}",
            "{'a': 1}",
            "[1 2]",
            "01",
            "\"\n\"",
            "{\"a\":1} x",
            "",
            "[1,,2]",
            "1.",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should not parse");
        }
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let deep = "[".repeat(100_000);
        let err = parse(&deep).unwrap_err();
        assert!(err.too_deep);
    }

    #[test]
    fn smart_quote_rescue_keeps_offsets_and_inner_quotes() {
        let text = "{\u{201C}q\u{201D}: \u{201C}say \u{201C}hi\u{201D} now\u{201D}}";
        let fixed = rescue_smart_quotes(text).unwrap();
        assert_eq!(fixed.len(), text.len());
        let p = parse(&fixed).unwrap();
        assert_eq!(
            p.value.get("q").unwrap().as_str(),
            Some("say \u{201C}hi\u{201D} now")
        );
    }

    #[test]
    fn plain_runs_stop_where_a_byte_loop_would() {
        let naive = |b: &[u8]| {
            b.iter()
                .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
                .unwrap_or(b.len())
        };
        let alphabet: &[u8] = b"a \"\\\n\x01\x1f\x20\x21\x5b\x5d\x7f\x80\xa2\xdc\xff";
        // Every length up to two words, each special byte at every place, after any filler.
        for len in 0..20 {
            for at in 0..len {
                for &fill in alphabet {
                    for &special in alphabet {
                        let mut bytes = vec![fill; len];
                        bytes[at] = special;
                        assert_eq!(plain_run(&bytes), naive(&bytes), "{bytes:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn integers_read_as_the_float_parser_reads_them() {
        for text in [
            "0",
            "-0",
            "7",
            "-25",
            "100",
            "999999999999999",
            "9999999999999999",
            "-123456789012345678",
            "12.5",
            "1e3",
        ] {
            let Value::Number(n) = parse(text).unwrap().value.value else {
                panic!("{text} is a number");
            };
            let expected: f64 = text.parse().unwrap();
            assert_eq!(n.to_bits(), expected.to_bits(), "{text}");
        }
    }

    #[test]
    fn surrogate_pairs_decode() {
        let p = parse(r#""\ud83d\ude00 \ud800""#).unwrap();
        assert_eq!(p.value.as_str(), Some("😀 \u{FFFD}"));
    }

    #[test]
    fn nul_becomes_the_replacement_character() {
        let p = parse(r#""a\u0000b""#).unwrap();
        assert_eq!(p.value.as_str(), Some("a\u{FFFD}b"));
    }
}
