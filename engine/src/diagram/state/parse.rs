//! A state diagram's source read in two steps, as Mermaid reads it: its lines into statements
//! (`Stmt`, a composite state holding its own), then (`build`) the statements into the model,
//! where a `[*]` takes its id from the composite or region it is written in (`Parent_start`,
//! `Parent_end`; `root_start` at the top; `Parent/2_start` in a composite's second region) and
//! a composite's `--` lines split it into regions.

use super::build::{Builder, End, Stmt};
use super::{Kind, Side, StateDiagram};
use crate::diagram::directive;
use crate::diagram::flowchart::{Direction, Unsupported};
use crate::diagram::sequence::syntax::decode;

/// `stateDiagram` and `stateDiagram-v2`.
pub fn is_state_keyword(keyword: &str) -> bool {
    matches!(keyword, "stateDiagram" | "stateDiagram-v2")
}

/// What the line reader has gathered besides the statements.
#[derive(Default)]
struct Reader {
    ignored: Vec<String>,
    notes: Vec<String>,
    title: Option<String>,
    acc_title: Option<String>,
    acc_descr: Option<String>,
}

impl Reader {
    fn ignore(&mut self, what: &str) {
        if !self.ignored.iter().any(|i| i == what) {
            self.ignored.push(what.to_string());
        }
    }
}

/// The source's lines with their byte offsets, comments dropped and trimmed (empty lines
/// left out). `%%{…}%%` directives are dropped as comments are.
fn lines(body: &str, base: usize) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut at = base;
    for raw in body.split_inclusive('\n') {
        let start = at;
        at += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let lead = line.len() - line.trim_start().len();
        let mut text = line.trim();
        if text.starts_with("%%") || text.starts_with('#') {
            continue;
        }
        // A `%%` comment after a statement, outside its description.
        let code_end = text.find(':').unwrap_or(text.len());
        if let Some(c) = text[..code_end].find("%%") {
            text = text[..c].trim_end();
        }
        let text = text.trim_end_matches(';').trim_end();
        if !text.is_empty() {
            out.push((start + lead, text));
        }
    }
    out
}

/// Whether `s` is a state's id as Mermaid reads one: no space, `:`, `-` or `{`.
fn is_id(s: &str) -> bool {
    !s.is_empty() && !s.contains(|c: char| c.is_whitespace() || matches!(c, ':' | '-' | '{' | '"'))
}

/// A transition's end or a state as written: `[*]` or an id, either with an optional
/// `:::class` (which is not drawn).
fn end(s: &str, r: &mut Reader) -> Option<End> {
    let (id, class) = match s.split_once(":::") {
        Some((id, class)) => (id.trim(), Some(class.trim())),
        None => (s.trim(), None),
    };
    if class.is_some() {
        r.ignore(":::");
    }
    if id == "[*]" {
        return Some(End::Star);
    }
    is_id(id).then(|| End::Id(id.to_string()))
}

/// Where the `:` before a label or description is: the first one not part of a `:::`.
fn label_colon(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut k = 0;
    while k < b.len() {
        if b[k] == b':' {
            if b[k..].starts_with(b":::") {
                k += 3;
                continue;
            }
            return Some(k);
        }
        k += 1;
    }
    None
}

/// A description's text: entity codes decoded, `<br>` as a line break, trimmed.
fn text(s: &str) -> String {
    decode(s.trim())
        .split('\n')
        .map(str::trim)
        .collect::<Vec<_>>()
        .join("\n")
}

fn unsupported(offset: usize, message: impl Into<String>) -> Unsupported {
    Unsupported {
        offset,
        message: message.into(),
    }
}

/// The statements from line `*i` on, up to the `}` that closes the composite they are in
/// (`depth` > 0) or the end.
fn document(
    lines: &[(usize, &str)],
    i: &mut usize,
    depth: usize,
    r: &mut Reader,
) -> Result<Vec<Stmt>, Unsupported> {
    let mut doc = Vec::new();
    while *i < lines.len() {
        let (at, line) = lines[*i];
        *i += 1;
        if line == "}" {
            if depth == 0 {
                return Err(unsupported(at, "`}` closes no composite state: remove it"));
            }
            return Ok(doc);
        }
        if let Some(stmt) = statement(lines, i, at, line, depth, r)? {
            doc.push(stmt);
        }
    }
    if depth > 0 {
        return Err(unsupported(
            lines.last().map_or(0, |l| l.0),
            "a composite state is not closed: end it with `}`",
        ));
    }
    Ok(doc)
}

/// `direction TB` and the like, anywhere in the line (as Mermaid finds it).
fn direction(line: &str) -> Option<Direction> {
    let at = line.find("direction")?;
    let word = line[at + "direction".len()..].split_whitespace().next()?;
    match word {
        "TB" | "TD" => Some(Direction::TopDown),
        "BT" => Some(Direction::BottomUp),
        "LR" => Some(Direction::LeftRight),
        "RL" => Some(Direction::RightLeft),
        _ => None,
    }
}

/// One statement, read from `line` (and the lines after it, for a composite or a note over
/// several lines); `None` for one that adds nothing to draw.
fn statement(
    lines: &[(usize, &str)],
    i: &mut usize,
    at: usize,
    line: &str,
    depth: usize,
    r: &mut Reader,
) -> Result<Option<Stmt>, Unsupported> {
    let first = line.split_whitespace().next().unwrap_or("");
    if let Some(rest) = line.strip_prefix("accTitle")
        && let Some(v) = rest.trim_start().strip_prefix(':')
    {
        r.acc_title = Some(v.trim().to_string());
        return Ok(None);
    }
    if let Some(rest) = line.strip_prefix("accDescr") {
        let rest = rest.trim_start();
        if let Some(v) = rest.strip_prefix(':') {
            r.acc_descr = Some(v.trim().to_string());
            return Ok(None);
        }
        if let Some(v) = rest.strip_prefix('{') {
            let mut words = vec![v.trim_end_matches('}').trim()];
            let mut closed = v.contains('}');
            while !closed && *i < lines.len() {
                let l = lines[*i].1;
                *i += 1;
                closed = l.contains('}');
                words.push(l.trim_end_matches('}').trim());
            }
            let words: Vec<&str> = words.into_iter().filter(|w| !w.is_empty()).collect();
            r.acc_descr = Some(words.join(" "));
            return Ok(None);
        }
    }
    if let Some(d) = direction(line) {
        return Ok(Some(Stmt::Direction(d)));
    }
    match first {
        "classDef" | "class" | "style" | "click" => {
            r.ignore(first);
            return Ok(None);
        }
        "scale" | "hide" => return Ok(None),
        "title" => {
            r.title = Some(line["title".len()..].trim().to_string());
            return Ok(None);
        }
        "state" => return state(lines, i, at, line["state".len()..].trim(), depth, r),
        "note" => return note(lines, i, at, line["note".len()..].trim(), r),
        "--" if line == "--" => {
            if depth == 0 {
                return Err(unsupported(
                    at,
                    "`--` divides a composite state into regions: use it inside `state X { … }`",
                ));
            }
            return Ok(Some(Stmt::Divider));
        }
        _ => {}
    }
    // A transition, with its label after `:`.
    if let Some(arrow) = line.find("-->") {
        let (left, right) = (&line[..arrow], &line[arrow + 3..]);
        let (right, label) = match label_colon(right) {
            Some(k) => (
                &right[..k],
                Some(text(&right[k + 1..])).filter(|l| !l.is_empty()),
            ),
            None => (right, None),
        };
        let (Some(from), Some(to)) = (end(left, r), end(right, r)) else {
            return Err(unsupported(
                at,
                format!(
                    "`{}` is not a transition Mermaid reads: write `A --> B` or `A --> B : label`, with ids without spaces or `-`",
                    line
                ),
            ));
        };
        return Ok(Some(Stmt::Transition { from, to, label }));
    }
    // `X`, `X : description`, `X:::class`.
    let (head, description) = match label_colon(line) {
        Some(k) => (&line[..k], Some(text(&line[k + 1..]))),
        None => (line, None),
    };
    match end(head, r) {
        Some(End::Id(id)) => Ok(Some(Stmt::State {
            id,
            kind: Kind::State,
            descriptions: description.into_iter().filter(|d| !d.is_empty()).collect(),
            doc: None,
        })),
        _ => Err(unsupported(
            at,
            format!(
                "`{line}` is not a statement of a state diagram: write a state's id, `A --> B`, `state X {{`, `note right of X : text` or `}}`"
            ),
        )),
    }
}

/// `state …`: a kind (`X <<choice>>`), a described state (`"text" as X`), a composite
/// (`X {`, `"text" as X {`) or a name alone.
fn state(
    lines: &[(usize, &str)],
    i: &mut usize,
    at: usize,
    rest: &str,
    depth: usize,
    r: &mut Reader,
) -> Result<Option<Stmt>, Unsupported> {
    for (mark, kind) in [
        ("<<fork>>", Kind::Fork),
        ("<<join>>", Kind::Join),
        ("<<choice>>", Kind::Choice),
        ("[[fork]]", Kind::Fork),
        ("[[join]]", Kind::Join),
        ("[[choice]]", Kind::Choice),
    ] {
        if let Some(id) = rest.strip_suffix(mark) {
            let id = id.trim();
            if !is_id(id) {
                break;
            }
            return Ok(Some(Stmt::State {
                id: id.to_string(),
                kind,
                descriptions: Vec::new(),
                doc: None,
            }));
        }
    }
    let (id, mut descriptions, after) = if let Some(quoted) = rest.strip_prefix('"') {
        let Some(close) = quoted.find('"') else {
            return Err(unsupported(
                at,
                "the state's description has no closing `\"`",
            ));
        };
        let description = text(&quoted[..close]);
        let after = quoted[close + 1..].trim_start();
        let Some(named) = after.strip_prefix("as") else {
            return Err(unsupported(
                at,
                "a quoted description names its state with `as`: write `state \"text\" as X`",
            ));
        };
        let named = named.trim();
        let (name, after) = match named.find('{') {
            Some(k) => (named[..k].trim(), &named[k..]),
            None => (named, ""),
        };
        let (name, more) = match name.split_once(':') {
            Some((n, d)) => (n.trim(), Some(text(d))),
            None => (name, None),
        };
        let mut d = vec![description];
        d.extend(more);
        (name, d, after)
    } else {
        let end_of_id = rest.find(['{', ' ', '\t']).unwrap_or(rest.len());
        (&rest[..end_of_id], Vec::new(), rest[end_of_id..].trim())
    };
    let id = id.split(":::").next().unwrap_or(id).trim();
    if !is_id(id) {
        return Err(unsupported(
            at,
            format!("`{id}` is not a state's id: use one without spaces or `-`"),
        ));
    }
    descriptions.retain(|d| !d.is_empty());
    // `state X` with its `{` on the next line.
    let after = match (after, lines.get(*i)) {
        ("", Some(&(_, "{"))) => {
            *i += 1;
            "{"
        }
        (a, _) => a,
    };
    let doc = match after {
        "" => None,
        "{" => Some(document(lines, i, depth + 1, r)?),
        "{}" => Some(Vec::new()),
        // Mermaid reads the state and passes over the rest (an escaped `&lt;&lt;fork&gt;&gt;`).
        other => {
            let n = format!(
                "`{other}` after `state {id}` is not read: the state is drawn as a plain one"
            );
            if !r.notes.contains(&n) {
                r.notes.push(n);
            }
            None
        }
    };
    Ok(Some(Stmt::State {
        id: id.to_string(),
        kind: if doc.is_some() {
            Kind::Composite
        } else {
            Kind::State
        },
        descriptions,
        doc,
    }))
}

/// `note left of X : text`, `note right of X` … `end note`, or a floating `note "…" as N`
/// (not drawn, as Mermaid does not draw it).
fn note(
    lines: &[(usize, &str)],
    i: &mut usize,
    at: usize,
    rest: &str,
    r: &mut Reader,
) -> Result<Option<Stmt>, Unsupported> {
    let (side, rest) = if let Some(x) = rest.strip_prefix("left of") {
        (Side::Left, x)
    } else if let Some(x) = rest.strip_prefix("right of") {
        (Side::Right, x)
    } else if rest.starts_with('"') {
        let n = "a note with no state (`note \"…\" as N`) is not drawn, as Mermaid draws none";
        if !r.notes.iter().any(|x| x == n) {
            r.notes.push(n.to_string());
        }
        return Ok(None);
    } else {
        return Err(unsupported(
            at,
            "a note needs its place: write `note left of X : text` or `note right of X : text`",
        ));
    };
    let rest = rest.trim();
    let (id, inline) = match rest.split_once(':') {
        Some((id, t)) => (id.trim(), Some(t)),
        None => (rest, None),
    };
    if !is_id(id) {
        return Err(unsupported(at, format!("`{id}` is not a state's id")));
    }
    let text = match inline {
        Some(t) => text(t),
        None => {
            let mut parts = Vec::new();
            loop {
                let Some(&(_, l)) = lines.get(*i) else {
                    return Err(unsupported(
                        at,
                        "the note over several lines is not closed: end it with `end note`",
                    ));
                };
                *i += 1;
                if l == "end note" {
                    break;
                }
                parts.push(text(l));
            }
            parts.join("\n")
        }
    };
    Ok(Some(Stmt::Note {
        id: id.to_string(),
        side,
        text,
    }))
}

/// `None` when the source is not a state diagram.
pub fn parse(source: &str) -> Option<Result<StateDiagram, Unsupported>> {
    let (start, title) = directive::front_matter(source);
    let all = lines(&source[start..], start);
    let (&(header_at, header), rest) = all.split_first()?;
    let mut words = header.split_whitespace();
    if !is_state_keyword(words.next()?) {
        return None;
    }
    let mut r = Reader {
        title,
        ..Reader::default()
    };
    // `stateDiagram-v2 direction LR`, or anything else after the keyword on its line.
    let mut lines_after: Vec<(usize, &str)> = Vec::with_capacity(rest.len() + 1);
    let after_keyword = header
        .split_once(char::is_whitespace)
        .map(|(_, a)| a.trim());
    if let Some(a) = after_keyword.filter(|a| !a.is_empty()) {
        lines_after.push((header_at + header.len() - a.len(), a));
    }
    lines_after.extend_from_slice(rest);
    let mut i = 0;
    let doc = match document(&lines_after, &mut i, 0, &mut r) {
        Ok(doc) => doc,
        Err(e) => return Some(Err(e)),
    };
    let mut b = Builder::default();
    b.doc(&doc, "root", None);
    let mut d = b.finish();
    d.chart.ignored = r.ignored;
    d.chart.notes = r.notes;
    d.chart.title = r.title;
    d.chart.acc_title = r.acc_title;
    d.chart.acc_descr = r.acc_descr;
    Some(Ok(d))
}
