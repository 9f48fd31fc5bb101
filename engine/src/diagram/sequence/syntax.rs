//! The pieces a sequence diagram's statement is read from: statements, entities, arrows,
//! keywords, `as`, configuration pairs and numbers.

use super::{Head, Line};

/// A statement: its byte offset in the source and its text (comments removed, trimmed).
pub(super) type Statement<'a> = (usize, &'a str);

/// The source's statements: lines split at `;` (but not the `;` ending an entity code such as
/// `#9829;`), with `%%` comments and `#` comments dropped.
pub(super) fn statements(body: &str, base: usize) -> Vec<Statement<'_>> {
    let mut out = Vec::new();
    let mut line_start = 0;
    for line in body.split_inclusive('\n') {
        let bytes = line.as_bytes();
        let mut start = 0;
        let mut i = 0;
        let mut end_of_code = line.len();
        while i < bytes.len() {
            match bytes[i] {
                b'%' if bytes.get(i + 1) == Some(&b'%') && bytes.get(i + 2) != Some(&b'{') => {
                    end_of_code = i;
                    break;
                }
                b'#' => match entity_len(&line[i..]) {
                    Some(n) => i += n,
                    None => {
                        end_of_code = i;
                        break;
                    }
                },
                b';' => {
                    push_statement(&mut out, line, start, i, base + line_start);
                    start = i + 1;
                    i += 1;
                }
                _ => i += 1,
            }
        }
        push_statement(&mut out, line, start, end_of_code, base + line_start);
        line_start += line.len();
    }
    out
}

fn push_statement<'a>(
    out: &mut Vec<Statement<'a>>,
    line: &'a str,
    from: usize,
    to: usize,
    base: usize,
) {
    let piece = &line[from..to.max(from)];
    let trimmed = piece.trim_start();
    let text = trimmed.trim_end();
    if !text.is_empty() {
        out.push((base + from + piece.len() - trimmed.len(), text));
    }
}

/// The length of the entity code (`#9829;`, `#infin;`) at the start of `s`.
fn entity_len(s: &str) -> Option<usize> {
    let rest = s.strip_prefix('#')?;
    let n = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    (n > 0 && n <= 12 && rest.as_bytes().get(n) == Some(&b';')).then_some(n + 2)
}

/// The named entities Mermaid's examples use (and the common markup ones).
const NAMED: &[(&str, char)] = &[
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("nbsp", '\u{A0}'),
    ("infin", '∞'),
    ("hearts", '♥'),
    ("copy", '©'),
    ("reg", '®'),
    ("trade", '™'),
    ("hellip", '…'),
    ("mdash", '—'),
    ("ndash", '–'),
    ("rarr", '→'),
    ("larr", '←'),
    ("harr", '↔'),
    ("check", '✓'),
    ("times", '×'),
    ("deg", '°'),
    ("euro", '€'),
    ("pound", '£'),
    ("semi", ';'),
    ("num", '#'),
];

/// Label text as shown: entity codes (`#9829;`, `#infin;`) decoded, `<br>` as a line break.
pub fn decode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['#', '<']) {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        if rest.starts_with('<') {
            let lower: String = rest
                .chars()
                .take(6)
                .collect::<String>()
                .to_ascii_lowercase();
            let n = ["<br/>", "<br />", "<br>"]
                .iter()
                .find(|b| lower.starts_with(**b))
                .map(|b| b.len());
            match n {
                Some(n) => {
                    out.push('\n');
                    rest = &rest[n..];
                }
                None => {
                    out.push('<');
                    rest = &rest[1..];
                }
            }
            continue;
        }
        let Some(n) = entity_len(rest) else {
            out.push('#');
            rest = &rest[1..];
            continue;
        };
        let name = &rest[1..n - 1];
        let c = if let Some(digits) = name.strip_prefix(['x', 'X']).filter(|_| name.len() > 1) {
            u32::from_str_radix(digits, 16)
                .ok()
                .and_then(char::from_u32)
        } else if name.bytes().all(|b| b.is_ascii_digit()) {
            name.parse::<u32>().ok().and_then(char::from_u32)
        } else {
            NAMED.iter().find(|(k, _)| *k == name).map(|&(_, c)| c)
        };
        match c {
            Some(c) if c != '\0' => out.push(c),
            _ => out.push_str(&rest[..n]),
        }
        rest = &rest[n..];
    }
    out.push_str(rest);
    out
}

/// The diagram keyword, case-insensitively.
pub(super) fn is_header(s: &str) -> bool {
    s.split_whitespace()
        .next()
        .is_some_and(|w| w.eq_ignore_ascii_case("sequenceDiagram"))
}

/// A message arrow's line, head, whether it has a head at both ends, and whether its one head
/// is at the sender's end (Mermaid's reverse half arrows, `/|-`).
pub(super) type ArrowKind = (Line, Head, bool, bool);

/// The message arrows, longest first (as Mermaid's lexer tries them).
const ARROWS: &[(&str, ArrowKind)] = &[
    ("<<-->>", (Line::Dotted, Head::Arrow, true, false)),
    ("<<->>", (Line::Solid, Head::Arrow, true, false)),
    ("--|\\", (Line::Dotted, Head::HalfTop, false, false)),
    ("--|/", (Line::Dotted, Head::HalfBottom, false, false)),
    ("--\\\\", (Line::Dotted, Head::StickTop, false, false)),
    ("--//", (Line::Dotted, Head::StickBottom, false, false)),
    ("/|--", (Line::Dotted, Head::HalfTop, false, true)),
    ("\\|--", (Line::Dotted, Head::HalfBottom, false, true)),
    ("//--", (Line::Dotted, Head::StickTop, false, true)),
    ("\\\\--", (Line::Dotted, Head::StickBottom, false, true)),
    ("-->>", (Line::Dotted, Head::Arrow, false, false)),
    ("->>", (Line::Solid, Head::Arrow, false, false)),
    ("-->", (Line::Dotted, Head::None, false, false)),
    ("--x", (Line::Dotted, Head::Cross, false, false)),
    ("--)", (Line::Dotted, Head::Open, false, false)),
    ("-|\\", (Line::Solid, Head::HalfTop, false, false)),
    ("-|/", (Line::Solid, Head::HalfBottom, false, false)),
    ("-\\\\", (Line::Solid, Head::StickTop, false, false)),
    ("-//", (Line::Solid, Head::StickBottom, false, false)),
    ("/|-", (Line::Solid, Head::HalfTop, false, true)),
    ("\\|-", (Line::Solid, Head::HalfBottom, false, true)),
    ("//-", (Line::Solid, Head::StickTop, false, true)),
    ("\\\\-", (Line::Solid, Head::StickBottom, false, true)),
    ("->", (Line::Solid, Head::None, false, false)),
    ("-x", (Line::Solid, Head::Cross, false, false)),
    ("-)", (Line::Solid, Head::Open, false, false)),
];

/// The first arrow in a message statement: its byte range and kind. A `-` between letters
/// (`my-service`) is part of a name.
pub(super) fn find_arrow(s: &str) -> Option<(usize, usize, ArrowKind)> {
    let b = s.as_bytes();
    let colon = s.find(':').unwrap_or(s.len());
    for i in 0..colon {
        if !matches!(b[i], b'-' | b'<' | b'/' | b'\\') {
            continue;
        }
        for (token, kind) in ARROWS {
            if s[i..].starts_with(token) {
                // As Mermaid's lexer: `A-xB` is a cross to B.
                return Some((i, i + token.len(), *kind));
            }
        }
    }
    None
}

/// Splits `text` at the first `:`: (before, after), the after trimmed.
pub(super) fn split_colon(text: &str) -> (&str, Option<&str>) {
    match text.split_once(':') {
        Some((a, b)) => (a, Some(b.trim())),
        None => (text, None),
    }
}

/// A word at the start of `s`, case-insensitively, followed by a space or the end: the rest.
pub(super) fn keyword<'a>(s: &'a str, word: &str) -> Option<&'a str> {
    let head = s.get(..word.len())?;
    if !head.eq_ignore_ascii_case(word) {
        return None;
    }
    let rest = &s[word.len()..];
    if rest.is_empty() {
        Some(rest)
    } else if rest.starts_with(char::is_whitespace) {
        Some(rest.trim_start())
    } else {
        None
    }
}

/// ` as ` (any case) in a declaration, outside the name.
pub(super) fn find_as(s: &str) -> Option<usize> {
    let lower = s.to_ascii_lowercase();
    lower.find(" as ").or_else(|| lower.find("\tas "))
}

/// The `"key": "value"` pairs of a participant's `@{ … }`, keys lowercased.
pub(super) fn config_pairs(config: &str) -> Vec<(String, String)> {
    config
        .split(',')
        .filter_map(|pair| {
            let (k, v) = pair.split_once(':')?;
            let unquote = |s: &str| s.trim().trim_matches(['"', '\'']).trim().to_string();
            Some((unquote(k).to_ascii_lowercase(), unquote(v)))
        })
        .collect()
}

pub(super) fn bad_number(s: &str) -> String {
    format!("`{s}` is not a number for `autonumber` (e.g. `autonumber 10 5`)")
}

/// A number with up to two decimals, in hundredths.
pub(super) fn hundredths(s: &str) -> Option<i64> {
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    if whole.len() > 9
        || frac.len() > 2
        || (whole.is_empty() && frac.is_empty())
        || !whole
            .bytes()
            .chain(frac.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let w: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let f: i64 = format!("{frac:0<2}").parse().ok()?;
    Some(w * 100 + f)
}

pub(super) fn format_hundredths(n: i64) -> String {
    if n % 100 == 0 {
        (n / 100).to_string()
    } else if n % 10 == 0 {
        format!("{}.{}", n / 100, (n % 100) / 10)
    } else {
        format!("{}.{:02}", n / 100, n % 100)
    }
}
