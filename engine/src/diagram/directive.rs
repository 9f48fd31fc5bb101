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

/// Where the diagram starts, after an optional `---` front-matter block, and the block's
/// `title:` (the kinds that read nothing else from it).
pub fn front_matter(source: &str) -> (usize, Option<String>) {
    let trimmed = source.trim_start();
    let lead = source.len() - trimmed.len();
    let Some(after) = trimmed.strip_prefix("---") else {
        return (0, None);
    };
    if !after.starts_with(['\n', '\r']) {
        return (0, None);
    }
    let mut at = lead + 3;
    let mut title = None;
    for line in source[at..].split_inclusive('\n').skip(1) {
        at += line.len();
        if line.trim() == "---" {
            return (at, title);
        }
        if let Some(t) = line.trim().strip_prefix("title:") {
            let t = t.trim().trim_matches(['"', '\'']).trim();
            if !t.is_empty() {
                title = Some(t.to_string());
            }
        }
    }
    (0, None)
}

/// The settings of a front-matter block (the lines between its `---`), each as its dotted key
/// path (`config.gantt.displayMode`) and its scalar value: YAML's nesting by indent, quoted or
/// bare values, `#` comments. Lists and multi-line values are not read.
pub fn front_matter_settings(block: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    // The keys above the line being read, each with its indent.
    let mut path: Vec<(usize, &str)> = Vec::new();
    for line in block.lines() {
        let body = line.trim_end();
        let indent = body.len() - body.trim_start().len();
        let text = body.trim_start();
        if text.starts_with('#') {
            continue;
        }
        let Some((key, value)) = text.split_once(':') else {
            continue;
        };
        while path.last().is_some_and(|&(i, _)| i >= indent) {
            path.pop();
        }
        let key = key.trim().trim_matches(['"', '\'']);
        let value = yaml_scalar(value);
        if value.is_empty() {
            path.push((indent, key));
            continue;
        }
        let mut dotted: Vec<&str> = path.iter().map(|&(_, k)| k).collect();
        dotted.push(key);
        out.push((dotted.join("."), value.to_string()));
    }
    out
}

/// A YAML scalar as written after its key: quoted (to the closing quote) or bare (up to a
/// ` #` comment), trimmed.
fn yaml_scalar(value: &str) -> &str {
    let value = value.trim();
    if let Some(q) = value.chars().next().filter(|c| *c == '"' || *c == '\'') {
        let inner = &value[1..];
        return inner[..inner.find(q).unwrap_or(inner.len())].trim();
    }
    let comment = value.find(" #").or_else(|| value.find("\t#"));
    value[..comment.unwrap_or(value.len())].trim()
}

/// The value an `%%{init: … }%%` directive gives `key` within the diagram kind's `section`
/// object (`%%{init: {"gantt": {"displayMode": "compact"}}}%%`), quotes removed; the last
/// directive that sets it wins.
pub fn init_setting(directives: &[&str], section: &str, key: &str) -> Option<String> {
    let mut found = None;
    for d in directives {
        let Some(at) = d.find(section) else {
            continue;
        };
        let rest = &d[at + section.len()..];
        let Some(k) = rest.find(key) else {
            continue;
        };
        let value = rest[k + key.len()..]
            .trim_start_matches(['"', '\''])
            .trim_start()
            .strip_prefix(':')
            .unwrap_or("")
            .trim_start();
        let value = match value.chars().next() {
            Some(q @ ('"' | '\'')) => value[1..].split(q).next().unwrap_or(""),
            _ => value.split([',', '}', '\n']).next().unwrap_or("").trim(),
        };
        found = Some(value.to_string());
    }
    found
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
