//! `%%{init: … }%%` directives, on one line or several: found, read for the theme variables
//! this engine draws, and blanked out of the source (every byte but a line break made a
//! space, so offsets into the source still hold) before a kind's parser reads it.
//! Shared by every diagram kind.

use super::colour::Colour;
use std::borrow::Cow;

/// Longest directive read, bytes: a longer one is blanked up to here and left to the kind's
/// parser after that.
const MAX_DIRECTIVE: usize = 16 * 1024;

/// The byte ranges of the source's directives, each from `%%{` to its `}%%`.
fn spans(source: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = source[from..].find("%%{") {
        let start = from + i;
        let limit = (start + MAX_DIRECTIVE).min(source.len());
        let end = source
            .get(start + 3..limit)
            .and_then(|r| r.find("}%%"))
            .map(|j| start + 3 + j + 3);
        match end {
            Some(end) => {
                out.push((start, end));
                from = end;
            }
            // Not closed: the rest of its line only.
            None => {
                let end = source[start..]
                    .find('\n')
                    .map_or(source.len(), |j| start + j);
                out.push((start, end));
                from = end;
            }
        }
    }
    out
}

/// The source with its directives blanked (same length, same line breaks), and the text of
/// each directive.
pub fn blanked(source: &str) -> (Cow<'_, str>, Vec<&str>) {
    if memchr::memmem::find(source.as_bytes(), b"%%{").is_none() {
        return (Cow::Borrowed(source), Vec::new());
    }
    let spans = spans(source);
    let mut bytes = source.as_bytes().to_vec();
    for &(s, e) in &spans {
        for b in &mut bytes[s..e] {
            if *b != b'\n' && *b != b'\r' {
                *b = b' ';
            }
        }
    }
    let texts = spans.iter().map(|&(s, e)| &source[s..e]).collect();
    // Only ASCII bytes replaced whole characters' bytes: still UTF-8.
    let text = String::from_utf8(bytes).unwrap_or_default();
    (Cow::Owned(text), texts)
}

/// The theme variables read from a directive: what an author set for every node and edge.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Theme {
    pub primary_color: Option<Colour>,
    pub primary_text_color: Option<Colour>,
    pub primary_border_color: Option<Colour>,
    pub line_color: Option<Colour>,
    /// The other settings, by name, each once: not applied.
    pub other: Vec<String>,
}

/// The settings read from every directive's text: `key: value` pairs, keys quoted or not,
/// values quoted with `"` or `'` or bare, nested objects flattened.
pub fn theme(directives: &[&str]) -> Theme {
    let mut t = Theme::default();
    for d in directives {
        let body = d.trim_start_matches("%%{").trim_end_matches("}%%");
        let mut rest = body;
        while let Some(colon) = rest.find(':') {
            let key = rest[..colon]
                .rsplit(['{', ',', ' ', '\n', '\t', '\r'])
                .next()
                .unwrap_or("")
                .trim_matches(['"', '\'']);
            let after = rest[colon + 1..].trim_start();
            let (value, next) =
                if let Some(q) = after.chars().next().filter(|c| *c == '"' || *c == '\'') {
                    let inner = &after[1..];
                    match inner.find(q) {
                        Some(e) => (Some(&inner[..e]), &inner[e + 1..]),
                        None => (None, ""),
                    }
                } else if let Some(inner) = after.strip_prefix('{') {
                    (None, inner)
                } else {
                    let e = after.find([',', '}', '\n']).unwrap_or(after.len());
                    (Some(after[..e].trim()), &after[e..])
                };
            let colour = value.and_then(Colour::parse);
            let slot = match key {
                "init" | "initialize" | "themeVariables" => None,
                "primaryColor" => Some(&mut t.primary_color),
                "primaryTextColor" => Some(&mut t.primary_text_color),
                "primaryBorderColor" => Some(&mut t.primary_border_color),
                "lineColor" => Some(&mut t.line_color),
                other => {
                    let name: String = other
                        .chars()
                        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                        .take(40)
                        .collect();
                    if !name.is_empty() && !t.other.contains(&name) {
                        t.other.push(name);
                    }
                    None
                }
            };
            if let Some(slot) = slot {
                match colour {
                    Some(c) => *slot = Some(c),
                    None => {
                        let name = key.to_string();
                        if !t.other.contains(&name) {
                            t.other.push(name);
                        }
                    }
                }
            }
            rest = next;
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directive_over_several_lines_is_blanked_and_its_theme_read() {
        let src = "%%{init: {\n  'theme': 'base',\n  'themeVariables': {\n    'primaryColor': '#BB2528',\n    \"lineColor\": \"#F8B229\",\n    'primaryTextColor': '#fff'\n  }\n}}%%\ngraph TD\nA-->B";
        let (b, texts) = blanked(src);
        assert_eq!(b.len(), src.len());
        assert_eq!(b.lines().count(), src.lines().count());
        assert_eq!(b.trim_start(), "graph TD\nA-->B");
        assert_eq!(texts.len(), 1);
        let t = theme(&texts);
        assert_eq!(t.primary_color, Some(Colour::rgb(0xbb2528)));
        assert_eq!(t.line_color, Some(Colour::rgb(0xf8b229)));
        assert_eq!(t.primary_text_color, Some(Colour::rgb(0xffffff)));
        assert_eq!(t.other, ["theme"]);
        // Unclosed: its line only.
        let (b, _) = blanked("%%{init: {\ngraph TD");
        assert_eq!(b.trim(), "graph TD");
        // None: the source itself.
        assert!(matches!(blanked("graph TD").0, Cow::Borrowed(_)));
    }
}
