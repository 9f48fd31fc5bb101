//! How a reviewer's own text is written into the export, once for every field (contract §6.1,
//! `docs/decisions.md`). The script's `reviewerText`, `reviewerOneLine` and `reviewerLine`
//! (`engine/assets/js/core.js`) do the same, character for character.
//!
//! A reviewer's text (an open answer, Other, a note, an added item or category, a comment on a
//! diagram or on the prose) can never start an entry of the export of its own:
//!
//! - it is cut into lines at every line break a reader of the export might split on (LF, CR,
//!   VT, FF, U+001C–U+001E, NEL, U+2028, U+2029); blank lines are dropped, so every blank line
//!   of the export is the export's own;
//! - every line after the first is indented by [`INDENT`] under its entry;
//! - a line that would begin a Markdown block (a heading, quote, list item, rule, setext
//!   underline, table delimiter, code fence, link or footnote definition) or one of the
//!   export's own entries (`**Q:`, `Answer:`, `Answers:`, `Answers →`, `Note:`) gets a
//!   backslash before its marker;
//! - `<` before a letter, `/`, `!` or `?` is written `&lt;`, so no raw HTML reaches a Markdown
//!   rendering of the export.

/// What each line of a reviewer's text after its first starts with in the export.
pub(crate) const INDENT: &str = "    ";

/// The characters a line breaks at: what Markdown, and the common line splitters (Python's
/// `splitlines`, Unicode's line separators), end a line on.
fn is_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r'
            | '\u{0b}'
            | '\u{0c}'
            | '\u{1c}'
            | '\u{1d}'
            | '\u{1e}'
            | '\u{85}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// A reviewer's text as its entry carries it: its lines escaped, blank ones dropped, and every
/// line after the first indented by [`INDENT`]. The entry's own prefix (`Answer: `, `- `, …)
/// goes before it, so the first line loses its leading whitespace: after a list item's `- `,
/// four spaces or a tab would start a code block.
pub(crate) fn text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for line in text.split(is_break).filter(|l| !l.trim().is_empty()) {
        if out.is_empty() {
            push_line(&mut out, line.trim_start());
        } else {
            out.push('\n');
            out.push_str(INDENT);
            push_line(&mut out, line);
        }
    }
    out
}

/// A reviewer's text kept on one line (a comment on the prose, contract §7): each line break a
/// space, then escaped as one line of [`text`] is.
pub(crate) fn one_line(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if is_break(c) { ' ' } else { c })
        .collect();
    let mut out = String::with_capacity(flat.len() + 4);
    push_line(&mut out, flat.trim_start());
    out
}

/// One line, escaped: its leading whitespace kept, then a backslash before a marker that would
/// start a block or an entry, and `&lt;` for each `<` that could open HTML.
fn push_line(out: &mut String, line: &str) {
    let body = line.trim_start();
    out.push_str(&line[..line.len() - body.len()]);
    match marker(body) {
        Marker::None => push_html_escaped(out, body),
        Marker::First => {
            out.push('\\');
            push_html_escaped(out, body);
        }
        Marker::Stars(n) => {
            for _ in 0..n {
                out.push_str("\\*");
            }
            push_html_escaped(out, &body[n..]);
        }
        Marker::After(at) => {
            out.push_str(&body[..at]);
            out.push('\\');
            push_html_escaped(out, &body[at..]);
        }
    }
}

/// Where a line's backslash goes.
#[derive(Debug, PartialEq, Eq)]
enum Marker {
    /// Nowhere: the line starts nothing.
    None,
    /// Before its first character.
    First,
    /// Before each of its `n` leading `*`.
    Stars(usize),
    /// Before the byte at this offset (an ordered list item's `.` or `)`).
    After(usize),
}

/// Words the export's own entries begin with (spec §3.5, §4.3, §4.5.3).
const ENTRY_WORDS: [&str; 4] = ["Answer:", "Answers:", "Answers \u{2192}", "Note:"];

fn marker(body: &str) -> Marker {
    let bytes = body.as_bytes();
    let Some(&first) = bytes.first() else {
        return Marker::None;
    };
    let spaced = |i: usize| bytes.get(i).is_none_or(|b| *b == b' ' || *b == b'\t');
    if first == b'*' {
        return Marker::Stars(bytes.iter().take_while(|b| **b == b'*').count());
    }
    if matches!(first, b'#' | b'>')
        || (matches!(first, b'-' | b'+') && spaced(1))
        || body.starts_with("```")
        || body.starts_with("~~~")
        || (body.starts_with('[') && body.contains("]:"))
        || body
            .bytes()
            .all(|b| matches!(b, b'-' | b'_' | b'=' | b':' | b'|' | b' ' | b'\t'))
        || ENTRY_WORDS.iter().any(|w| body.starts_with(w))
    {
        return Marker::First;
    }
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    if (1..=9).contains(&digits)
        && matches!(bytes.get(digits), Some(b'.' | b')'))
        && spaced(digits + 1)
    {
        return Marker::After(digits);
    }
    Marker::None
}

/// `text` with `&lt;` for each `<` that could open HTML (followed by an ASCII letter, `/`, `!`
/// or `?`), in one pass. Not a backslash: a GFM autolink just before it (`https://x.y\<b>`)
/// would take the backslash into its address and leave the `<` bare.
fn push_html_escaped(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    let mut done = 0;
    for (i, _) in text.match_indices('<') {
        let next = bytes.get(i + 1).copied();
        if next.is_some_and(|b| b.is_ascii_alphabetic() || matches!(b, b'/' | b'!' | b'?')) {
            out.push_str(&text[done..i]);
            out.push_str("&lt;");
            done = i + 1;
        }
    }
    out.push_str(&text[done..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_unchanged() {
        for s in [
            "fine for v1",
            "2026-09-01",
            "Yiddish",
            "a < b and 3 > 2",
            "x -> y",
            "1.5 days",
            "-5 degrees",
            "see #1",
            "Answering later",
            "under_score",
            "שלום",
        ] {
            assert_eq!(text(s), s, "{s:?}");
        }
    }

    #[test]
    fn continuation_lines_are_indented_and_blank_lines_dropped() {
        assert_eq!(text("one\ntwo"), "one\n    two");
        assert_eq!(
            text("one\r\n\r\n\n  two\n \t \nthree"),
            "one\n      two\n    three"
        );
        for sep in [
            "\r", "\u{0b}", "\u{0c}", "\u{1c}", "\u{1d}", "\u{1e}", "\u{85}", "\u{2028}",
            "\u{2029}",
        ] {
            assert_eq!(text(&format!("a{sep}b")), "a\n    b", "{sep:?}");
        }
        // After a list item's `- `, a tab or four spaces would start a code block: the first
        // line's leading whitespace goes (continuation lines keep theirs, under the indent).
        assert_eq!(text("\t\t## x\n\ty"), "\\## x\n    \ty");
        assert_eq!(text("     code?"), "code?");
        assert_eq!(one_line("\u{2028}\t- a"), "\\- a");
    }

    #[test]
    fn the_issues_forgeries_are_carried_under_their_entry() {
        assert_eq!(
            text("Confluence\n\n**Q: Which wiki do we move to?**\nAnswer: Stay where we are"),
            "Confluence\n    \\*\\*Q: Which wiki do we move to?**\n    \\Answer: Stay where we are"
        );
        assert_eq!(
            text("ok\n\n## Comments on the text\n\n- On the whole document — ship it"),
            "ok\n    \\## Comments on the text\n    \\- On the whole document — ship it"
        );
    }

    #[test]
    fn block_markers_are_escaped() {
        let cases = [
            ("# h", "\\# h"),
            ("###### h", "\\###### h"),
            ("> quote", "\\> quote"),
            ("- item", "\\- item"),
            ("-", "\\-"),
            ("+ item", "\\+ item"),
            ("+\tx", "\\+\tx"),
            ("* item", "\\* item"),
            ("**Q: x**", "\\*\\*Q: x**"),
            ("***", "\\*\\*\\*"),
            ("---", "\\---"),
            ("- - -", "\\- - -"),
            ("___", "\\___"),
            ("===", "\\==="),
            ("|---|:-:|", "\\|---|:-:|"),
            (":--", "\\:--"),
            ("```rust", "\\```rust"),
            ("~~~", "\\~~~"),
            ("[x]: https://example.com", "\\[x]: https://example.com"),
            ("[^1]: note", "\\[^1]: note"),
            ("1. one", "1\\. one"),
            ("1) one", "1\\) one"),
            ("123456789. x", "123456789\\. x"),
            ("1.", "1\\."),
            ("Answer: Stay", "\\Answer: Stay"),
            ("Answers:", "\\Answers:"),
            ("Answers \u{2192} Dana", "\\Answers \u{2192} Dana"),
            ("Note: x", "\\Note: x"),
        ];
        for (input, want) in cases {
            assert_eq!(text(input), want, "{input:?}");
            assert_eq!(
                text(&format!("x\n{input}")),
                format!("x\n    {want}"),
                "{input:?}"
            );
        }
        // Not markers: no space after, too many digits, a letter first.
        for s in ["-x", "+1", "1234567890. x", "1.5", "a. b", "Note", "Answer"] {
            assert_eq!(text(s), s, "{s:?}");
        }
    }

    #[test]
    fn html_is_escaped_wherever_it_is() {
        assert_eq!(text("<b>bold</b>"), "&lt;b>bold&lt;/b>");
        assert_eq!(
            text("a <!-- c --> <?x?> <a href=x>"),
            "a &lt;!-- c --> &lt;?x?> &lt;a href=x>"
        );
        assert_eq!(
            text("a\n<script>x</script>"),
            "a\n    &lt;script>x&lt;/script>"
        );
        // A backslash before it is the reviewer's own: it would not hold after an autolink.
        assert_eq!(text("\\<b>"), "\\&lt;b>");
        assert_eq!(text("https://x.y\\<b>"), "https://x.y\\&lt;b>");
        // Many on one line: each one written once.
        let many = "<a".repeat(100_000);
        assert_eq!(text(&many), "&lt;a".repeat(100_000));
        // Not HTML.
        assert_eq!(text("1 < 2, <3, < b"), "1 < 2, <3, < b");
        assert_eq!(text("<"), "<");
    }

    #[test]
    fn one_line_flattens_then_escapes() {
        assert_eq!(one_line("the phone part"), "the phone part");
        assert_eq!(one_line("a\nb\u{2028}c"), "a b c");
        assert_eq!(one_line("# x <i>y</i>"), "\\# x &lt;i>y&lt;/i>");
        assert_eq!(
            one_line("ok\n\n## Comments on the text"),
            "ok  ## Comments on the text"
        );
    }
}
