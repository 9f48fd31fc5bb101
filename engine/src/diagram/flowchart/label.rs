//! A label's text as Mermaid shows it: HTML tags and entities read, icons dropped, and a
//! markdown label's bold and italic runs.

use crate::diagram::text::Emphasis;

/// Whether a label holds a Font Awesome icon (`fa:fa-car`, `fab:fa-github`).
pub(super) fn has_icon(s: &str) -> bool {
    ["fa:", "fab:", "fas:", "far:", "fal:", "fak:"]
        .iter()
        .any(|p| s.contains(p))
}

/// A label as Mermaid shows it, in plain text with its bold and italic runs: a markdown
/// string (`` `**bold** _it_` ``) has its emphasis and line breaks; otherwise `<br>` breaks
/// the line and other HTML tags show their text; icons (`fa:fa-car`) are dropped; entity
/// codes (`#quot;`, `#9829;`) are decoded; new lines inside a quoted label break it too.
pub fn label_text(raw: &str) -> (String, Vec<Emphasis>) {
    let raw = raw.trim();
    // Most labels are plain words: nothing to decode. (Bytes, not chars: these are ASCII.)
    if !raw
        .bytes()
        .any(|b| matches!(b, b'<' | b'#' | b'&' | b'`' | b':' | b'\n'))
    {
        return (raw.to_string(), Vec::new());
    }
    if let Some(md) = raw.strip_prefix('`').and_then(|r| r.strip_suffix('`')) {
        return markdown(md);
    }
    let text = entities(&tags(raw));
    let text = drop_icons(&text);
    let lines: Vec<&str> = text.split('\n').map(str::trim).collect();
    (lines.join("\n").trim().to_string(), Vec::new())
}

/// The HTML tags a label may hold (Mermaid renders them): shown as their text.
const HTML_TAGS: [&str; 24] = [
    "br", "b", "i", "u", "s", "em", "strong", "span", "sub", "sup", "small", "big", "code", "a",
    "p", "div", "font", "strike", "mark", "del", "ins", "center", "tt", "kbd",
];

/// `<br>` (any case, `<br/>`, `<br />`) becomes `\n`; any other tag is dropped, its text
/// kept. A `<` that starts no tag stays.
fn tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let close = tail.find('>');
        let name_ok = tail[1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '/');
        match close {
            Some(end) if name_ok && !tail[1..end].contains('<') => {
                let name = tail[1..end].trim_start_matches('/');
                let name = name
                    .split(|c: char| !c.is_ascii_alphanumeric())
                    .next()
                    .unwrap_or("");
                if !HTML_TAGS.iter().any(|t| t.eq_ignore_ascii_case(name)) {
                    out.push('<');
                    rest = &tail[1..];
                    continue;
                }
                if name.eq_ignore_ascii_case("br") {
                    out.push('\n');
                }
                rest = &tail[end + 1..];
            }
            _ => {
                out.push('<');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Mermaid's entity codes: `#35;` (decimal), `#quot;` and other HTML names; and HTML's own,
/// `&amp;`, `&#35;`, which Mermaid's HTML labels show decoded.
fn entities(text: &str) -> String {
    if !text.contains(['#', '&']) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['#', '&']) {
        out.push_str(&rest[..i]);
        let lead = if rest[i..].starts_with("&#") { 2 } else { 1 };
        let mark = &rest[i..i + lead];
        let tail = &rest[i + lead..];
        let end = tail
            .find(|c: char| !c.is_ascii_alphanumeric())
            .filter(|&e| e > 0 && tail[e..].starts_with(';'));
        let decoded = end.and_then(|e| {
            let name = &tail[..e];
            let c = match name.parse::<u32>() {
                Ok(n) => char::from_u32(n)?,
                Err(_) => match name {
                    "quot" => '"',
                    "amp" => '&',
                    "lt" => '<',
                    "gt" => '>',
                    "apos" => '\'',
                    "nbsp" => '\u{a0}',
                    "copy" => '©',
                    "reg" => '®',
                    "hearts" => '♥',
                    "hellip" => '…',
                    "mdash" => '—',
                    "ndash" => '–',
                    "deg" => '°',
                    "times" => '×',
                    "rarr" => '→',
                    "larr" => '←',
                    _ => return None,
                },
            };
            Some((c, e))
        });
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &tail[e + 1..];
            }
            None => {
                out.push_str(mark);
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Drops `fa:fa-name` (and `fab:`, `fas:`, …) icon words.
fn drop_icons(text: &str) -> String {
    if !has_icon(text) {
        return text.to_string();
    }
    text.split('\n')
        .map(|line| {
            line.split(' ')
                .filter(|w| !has_icon(w) || !w.contains(":fa-"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A markdown string: `**bold**` / `__bold__`, `*italic*` / `_italic_`, a new line breaks
/// the line (a blank line too). The text is returned plain, with the emphasis as byte ranges.
fn markdown(md: &str) -> (String, Vec<Emphasis>) {
    let md = entities(&tags(md));
    let mut out = String::with_capacity(md.len());
    let mut runs: Vec<Emphasis> = Vec::new();
    let (mut bold, mut italic) = (false, false);
    let mut run_start = 0;
    let lines: Vec<&str> = md.split('\n').map(str::trim).collect();
    let close = |out: &str, start: usize, bold: bool, italic: bool, runs: &mut Vec<Emphasis>| {
        if (bold || italic) && out.len() > start {
            runs.push(Emphasis {
                start,
                end: out.len(),
                bold,
                italic,
            });
        }
    };
    for (k, line) in lines.iter().enumerate() {
        if k > 0 {
            close(&out, run_start, bold, italic, &mut runs);
            out.push('\n');
            run_start = out.len();
        }
        let mut rest = *line;
        while !rest.is_empty() {
            let (toggle_bold, len) = if rest.starts_with("**") || rest.starts_with("__") {
                (Some(true), 2)
            } else if rest.starts_with(['*', '_']) && (italic || rest[1..].contains(&rest[..1])) {
                (Some(false), 1)
            } else {
                (None, 0)
            };
            match toggle_bold {
                Some(b) => {
                    close(&out, run_start, bold, italic, &mut runs);
                    run_start = out.len();
                    if b {
                        bold = !bold;
                    } else {
                        italic = !italic;
                    }
                    rest = &rest[len..];
                }
                None => {
                    let c = rest.chars().next().unwrap_or(' ');
                    out.push(c);
                    rest = &rest[c.len_utf8()..];
                }
            }
        }
    }
    close(&out, run_start, bold, italic, &mut runs);
    (out, runs)
}
