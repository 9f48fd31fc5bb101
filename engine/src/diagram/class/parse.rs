//! A class diagram's source read as Mermaid's own grammar reads it: statements one a line
//! (`class`, relations, `Name : member`, `<<annotation>> Name`, `note`, `namespace … {`,
//! `direction`, `accTitle`, `accDescr`, `classDef`, `cssClass`, `style`, `click`, `link`,
//! `callback`), with a class's body `{ … }` and a namespace's body running over several lines.

use super::{Class, ClassDiagram, Classifier, End, Kind, MAX_MEMBERS, Member, Relation};
use crate::diagram::directive;
use crate::diagram::flowchart::{Direction, Edge, Node, Subgraph, Unsupported};
use crate::diagram::line::{Marker, Stroke};
use crate::diagram::shapes::Shape;
use crate::diagram::style::{self, Style};
use std::collections::HashMap;

/// `classDiagram` or `classDiagram-v2`.
pub fn is_class_keyword(keyword: &str) -> bool {
    keyword == "classDiagram" || keyword == "classDiagram-v2"
}

/// Most classes, notes and relations read: beyond the layout's caps, so the diagram is
/// refused as too large, and reading stops there.
const MAX_READ: usize = 2_000;

fn unsupported(offset: usize, message: impl Into<String>) -> Unsupported {
    Unsupported {
        offset,
        message: message.into(),
    }
}

/// What the front matter says: its `title:` and the `config.class.hideEmptyMembersBox`
/// setting, if given.
#[derive(Debug, Default)]
struct FrontMatter {
    title: Option<String>,
    hide_empty_members_box: Option<bool>,
}

/// Where the diagram starts, after an optional `---` front matter, and what that says.
fn front_matter(source: &str) -> (usize, FrontMatter) {
    let trimmed = source.trim_start();
    let lead = source.len() - trimmed.len();
    let Some(after) = trimmed.strip_prefix("---") else {
        return (0, FrontMatter::default());
    };
    if !after.starts_with(['\n', '\r']) {
        return (0, FrontMatter::default());
    }
    let block_at = lead + 3;
    let mut at = block_at;
    for (k, line) in source[block_at..].split_inclusive('\n').enumerate() {
        let line_at = at;
        at += line.len();
        if k == 0 {
            // The rest of the opening `---` line.
            continue;
        }
        if line.trim() == "---" {
            let mut found = FrontMatter::default();
            for (key, value) in directive::front_matter_settings(&source[block_at..line_at]) {
                match key.as_str() {
                    "title" => found.title = Some(value),
                    "config.class.hideEmptyMembersBox" => {
                        found.hide_empty_members_box = Some(value == "true");
                    }
                    _ => {}
                }
            }
            return (at, found);
        }
    }
    (0, FrontMatter::default())
}

/// The source with `%%` comments blanked (same length, same line breaks).
fn without_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    for line in source.split_inclusive('\n') {
        match line.find("%%") {
            Some(k) if !line[..k].contains('"') => {
                let body = line.trim_end_matches(['\n', '\r']);
                out.push_str(&line[..k]);
                out.extend(std::iter::repeat_n(' ', body.len().saturating_sub(k)));
                out.push_str(&line[body.len().max(k)..]);
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// `direction TB` and the like anywhere in `line`, as Mermaid's lexer finds it.
fn direction(line: &str) -> Option<Direction> {
    let mut from = 0;
    while let Some(k) = line[from..].find("direction") {
        let after = &line[from + k + "direction".len()..];
        let word = after.trim_start();
        if word.len() < after.len() {
            match word.get(..2) {
                Some("TB") => return Some(Direction::TopDown),
                Some("BT") => return Some(Direction::BottomUp),
                Some("LR") => return Some(Direction::LeftRight),
                Some("RL") => return Some(Direction::RightLeft),
                _ => {}
            }
        }
        from += k + 1;
    }
    None
}

/// Whether `c` may be part of a class's name (Mermaid's letters, digits, `_`, `-`, `.`).
fn is_name_char(c: char) -> bool {
    !c.is_ascii() && !c.is_whitespace() || c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// `word` at the start of `s`, with a word's end after it.
fn starts_word(s: &str, word: &str) -> bool {
    s.starts_with(word)
        && !s[word.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A class being read.
#[derive(Default)]
struct Building {
    id: String,
    label: Option<String>,
    class: Class,
    css: Vec<String>,
    style: Style,
    parent: Option<String>,
}

/// A namespace: its id, label and parent's id.
struct Namespace {
    id: String,
    label: String,
    parent: Option<String>,
}

struct Note {
    text: String,
    class: Option<String>,
    parent: Option<String>,
}

struct RelationRead {
    left: String,
    right: String,
    label: String,
    relation: Relation,
}

/// The diagram being read.
struct Reader<'s> {
    src: &'s str,
    at: usize,
    classes: Vec<Building>,
    index: HashMap<String, usize>,
    interfaces: Vec<(String, String)>,
    namespaces: Vec<Namespace>,
    ns_stack: Vec<String>,
    notes: Vec<Note>,
    relations: Vec<RelationRead>,
    defs: HashMap<String, Style>,
    skipped: Vec<String>,
    ignored: Vec<String>,
    /// Sentences for classes whose members were cut at `MAX_MEMBERS`.
    cut: Vec<String>,
    direction: Direction,
    acc_title: Option<String>,
    acc_descr: Option<String>,
}

/// A member as Mermaid shows it (`ClassMember.getDisplayDetails`).
fn member(input: &str, method: bool) -> Member {
    let mut classifier = "";
    let text;
    if method {
        // `([#+~-])?(.+)\((.*)\)([\s$*])?(.*)`
        let (vis, rest) = match input.chars().next() {
            Some(c @ ('#' | '+' | '~' | '-')) if input.len() > 1 => (c.to_string(), &input[1..]),
            _ => (String::new(), input),
        };
        let close = rest.rfind(')');
        let open = close.and_then(|c| rest[..c].rfind('(')).filter(|&o| o > 0);
        match (open, close) {
            (Some(o), Some(c)) => {
                let id = &rest[..o];
                let params = rest[o + 1..c].trim();
                let after = &rest[c + 1..];
                let mut ret = after;
                if let Some(ch) = after.chars().next()
                    && (ch.is_whitespace() || ch == '$' || ch == '*')
                {
                    if ch == '$' || ch == '*' {
                        classifier = &after[..1];
                    }
                    ret = &after[ch.len_utf8()..];
                }
                let mut ret = ret.trim().to_string();
                if classifier.is_empty()
                    && let Some(last @ ('$' | '*')) = ret.chars().last()
                {
                    classifier = if last == '$' { "$" } else { "*" };
                    ret.pop();
                }
                let id = if id.starts_with(' ') {
                    format!(" {}", id.trim())
                } else {
                    id.trim().to_string()
                };
                let mut t = format!("{vis}{}({})", generics(&id), generics(params));
                if !ret.is_empty() {
                    t.push_str(" : ");
                    t.push_str(&generics(&ret));
                }
                text = t.trim().to_string();
            }
            _ => text = input.trim().to_string(),
        }
    } else {
        let first = input.chars().next();
        let vis = match first {
            Some(c @ ('#' | '+' | '~' | '-')) => Some(c),
            _ => None,
        };
        let mut body = &input[vis.map_or(0, char::len_utf8)..];
        if let Some(c @ ('$' | '*')) = input.chars().last()
            && !body.is_empty()
        {
            classifier = if c == '$' { "$" } else { "*" };
            body = &body[..body.len() - 1];
        }
        let id = if body.starts_with(' ') {
            format!(" {}", body.trim())
        } else {
            body.trim().to_string()
        };
        let mut t = vis.map(String::from).unwrap_or_default();
        t.push_str(&generics(&id));
        text = t.trim().to_string();
    }
    Member {
        text: entities(&text),
        classifier: match classifier {
            "$" => Classifier::Static,
            "*" => Classifier::Abstract,
            _ => Classifier::None,
        },
    }
}

/// Mermaid's `parseGenericTypes`: `~` in pairs made `<` and `>`, a comma-split set rejoined
/// when each half holds one `~`.
pub fn generics(input: &str) -> String {
    if !input.contains('~') {
        return input.to_string();
    }
    let sets: Vec<&str> = split_keep_commas(input);
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sets.len() {
        let mut this = sets[i].to_string();
        if this == "," && i > 0 && i + 1 < sets.len() {
            let (prev, next) = (sets[i - 1], sets[i + 1]);
            if prev.matches('~').count() == 1 && next.matches('~').count() == 1 {
                this = format!("{prev},{next}");
                i += 1;
                out.pop();
            }
        }
        out.push(process_set(&this));
        i += 1;
    }
    out.concat()
}

fn split_keep_commas(input: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut from = 0;
    for (k, _) in input.match_indices(',') {
        out.push(&input[from..k]);
        out.push(",");
        from = k + 1;
    }
    out.push(&input[from..]);
    out
}

fn process_set(input: &str) -> String {
    let count = input.matches('~').count();
    if count <= 1 {
        return input.to_string();
    }
    let (mut chars, lead): (Vec<char>, bool) = if !count.is_multiple_of(2) && input.starts_with('~')
    {
        (input[1..].chars().collect(), true)
    } else {
        (input.chars().collect(), false)
    };
    loop {
        let first = chars.iter().position(|&c| c == '~');
        let last = chars.iter().rposition(|&c| c == '~');
        match (first, last) {
            (Some(f), Some(l)) if f != l => {
                chars[f] = '<';
                chars[l] = '>';
            }
            _ => break,
        }
    }
    let mut s: String = chars.into_iter().collect();
    if lead {
        s.insert(0, '~');
    }
    s
}

/// A note's or label's text as drawn: `\n` and `<br>` as line breaks, other HTML tags left
/// out, entities decoded.
pub fn note_text(raw: &str) -> String {
    let mut s = raw.replace("\\n", "\n");
    for br in ["<br/>", "<br />", "<br>", "<BR>", "<BR/>"] {
        s = s.replace(br, "\n");
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s.as_str();
    while let Some(k) = rest.find('<') {
        out.push_str(&rest[..k]);
        let after = &rest[k + 1..];
        let tag = after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/');
        match after.find('>') {
            Some(end) if tag => rest = &after[end + 1..],
            _ => {
                out.push('<');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    entities(&out)
}

/// `&lt;`, `&gt;`, `&amp;`, `&quot;`, `&#39;` and numeric references decoded.
pub fn entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(k) = rest.find('&') {
        out.push_str(&rest[..k]);
        let after = &rest[k + 1..];
        let end = after.find(';').filter(|&e| e <= 8);
        let decoded = end.and_then(|e| {
            let name = &after[..e];
            match name {
                "lt" => Some('<'),
                "gt" => Some('>'),
                "amp" => Some('&'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => {
                    let n = name.strip_prefix('#')?;
                    let v = match n.strip_prefix(['x', 'X']) {
                        Some(h) => u32::from_str_radix(h, 16).ok()?,
                        None => n.parse().ok()?,
                    };
                    char::from_u32(v)
                }
            }
        });
        match (decoded, end) {
            (Some(c), Some(e)) => {
                out.push(c);
                rest = &after[e + 1..];
            }
            _ => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Mermaid's first step: inside an HTML tag, `="…"` becomes `='…'`, so a quoted text may hold
/// tags with attributes.
fn single_quoted_attributes(source: &str) -> std::borrow::Cow<'_, str> {
    if !source.contains("=\"") {
        return std::borrow::Cow::Borrowed(source);
    }
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(k) = rest.find('<') {
        out.push_str(&rest[..k]);
        let after = &rest[k..];
        let is_tag = after[1..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        match after.find('>') {
            Some(end) if is_tag && !after[..end].contains('\n') => {
                let tag = &after[..=end];
                let mut t = String::with_capacity(tag.len());
                let mut inner = tag;
                while let Some(q) = inner.find("=\"") {
                    match inner[q + 2..].find('"') {
                        Some(close) => {
                            t.push_str(&inner[..q]);
                            t.push_str("='");
                            t.push_str(&inner[q + 2..q + 2 + close]);
                            t.push('\'');
                            inner = &inner[q + 2 + close + 1..];
                        }
                        None => break,
                    }
                }
                t.push_str(inner);
                out.push_str(&t);
                rest = &after[end + 1..];
            }
            _ => {
                out.push('<');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

impl<'s> Reader<'s> {
    fn rest(&self) -> &'s str {
        &self.src[self.at..]
    }

    fn skip_spaces(&mut self) {
        let rest = self.rest();
        self.at += rest.len() - rest.trim_start_matches([' ', '\t', '\r']).len();
    }

    fn skip_blanks(&mut self) {
        let rest = self.rest();
        self.at += rest.len() - rest.trim_start().len();
    }

    /// The rest of the current line, and moves past it (not past its line break).
    fn take_line(&mut self) -> &'s str {
        let rest = self.rest();
        let end = rest.find('\n').unwrap_or(rest.len());
        self.at += end;
        rest[..end].trim_end_matches('\r')
    }

    fn eat(&mut self, s: &str) -> bool {
        if self.rest().starts_with(s) {
            self.at += s.len();
            true
        } else {
            false
        }
    }

    fn ignore(&mut self, what: &str) {
        if !self.ignored.iter().any(|i| i == what) {
            self.ignored.push(what.to_string());
        }
    }

    /// `"…"` here (after spaces), its text; it may run over lines.
    fn string(&mut self) -> Result<Option<String>, Unsupported> {
        self.skip_spaces();
        if !self.rest().starts_with('"') {
            return Ok(None);
        }
        let open = self.at;
        let Some(end) = self.src[open + 1..].find('"') else {
            return Err(unsupported(
                open,
                "a quoted text is not closed: end it with `\"`",
            ));
        };
        self.at = open + 1 + end + 1;
        Ok(Some(self.src[open + 1..open + 1 + end].to_string()))
    }

    /// A class's name here (after spaces): `Name`, `a.b.C`, `` `Any text` ``, with its generic
    /// part `~T~`; `None` when there is none.
    fn name(&mut self) -> Result<Option<(String, String)>, Unsupported> {
        self.skip_spaces();
        let rest = self.rest();
        let start = self.at;
        let name = if let Some(after) = rest.strip_prefix('`') {
            let Some(end) = after.find('`') else {
                return Err(unsupported(
                    start,
                    "a `` ` `` name is not closed: end it with `` ` ``",
                ));
            };
            self.at += 1 + end + 1;
            after[..end].to_string()
        } else {
            let n = rest
                .char_indices()
                .find(|&(k, c)| !is_name_char(c) || (c == '-' && rest[k..].starts_with("--")))
                .map_or(rest.len(), |(k, _)| k);
            if n == 0 {
                return Ok(None);
            }
            self.at += n;
            rest[..n].to_string()
        };
        let mut generic = String::new();
        if let Some(after) = self.rest().strip_prefix('~') {
            let end = after.find('~').unwrap_or(after.len());
            generic = after[..end].to_string();
            self.at += 1 + end + usize::from(end < after.len());
        }
        Ok(Some((name, generic)))
    }

    fn add_class(&mut self, id: &str, generic: &str) -> usize {
        if let Some(&i) = self.index.get(id) {
            return i;
        }
        let i = self.classes.len();
        self.classes.push(Building {
            id: id.to_string(),
            class: Class {
                generic: generic.to_string(),
                ..Class::default()
            },
            ..Building::default()
        });
        self.index.insert(id.to_string(), i);
        i
    }

    fn add_member(&mut self, i: usize, text: &str) {
        let t = text.trim();
        let full = {
            let c = &self.classes[i].class;
            c.methods.len() + c.members.len() >= MAX_MEMBERS
        };
        if full && !t.is_empty() && !t.starts_with("<<") {
            let id = &self.classes[i].id;
            let note = format!(
                "the class `{id}` has more than {MAX_MEMBERS} members and methods: the rest are not shown"
            );
            if !self.cut.contains(&note) {
                self.cut.push(note);
            }
        }
        let c = &mut self.classes[i].class;
        if t.starts_with("<<") && t.ends_with(">>") && t.len() >= 4 {
            c.annotations.push(t[2..t.len() - 2].to_string());
        } else if t.find(')').is_some_and(|k| k > 0) {
            if c.methods.len() + c.members.len() < MAX_MEMBERS {
                c.methods.push(member(t, true));
            }
        } else if !t.is_empty() && c.methods.len() + c.members.len() < MAX_MEMBERS {
            c.members.push(member(t, false));
        }
    }

    /// `<<name>>` here (after spaces): the name.
    fn annotation(&mut self) -> Option<String> {
        self.skip_spaces();
        let after = self.rest().strip_prefix("<<")?;
        let end = after.find(">>")?;
        let name = after[..end].trim().to_string();
        self.at += 2 + end + 2;
        Some(name)
    }

    /// `{ member … }` after a class statement: its members, to its `}`.
    fn body(&mut self, i: usize) -> Result<(), Unsupported> {
        let open = self.at - 1;
        loop {
            let rest = self.rest();
            if rest.is_empty() {
                return Err(unsupported(
                    open,
                    "a class's `{` is not closed: end its members with `}`",
                ));
            }
            let end = rest.find(['\n', '}', '{']).unwrap_or(rest.len());
            let text = &rest[..end];
            self.at += end;
            self.add_member(i, text.trim_end_matches('\r'));
            match self.rest().chars().next() {
                Some('}') => {
                    self.at += 1;
                    return Ok(());
                }
                Some('{') => {
                    return Err(unsupported(
                        self.at,
                        "a member holds `{`: a class's members are one a line",
                    ));
                }
                Some(_) => self.at += 1,
                None => {}
            }
        }
    }

    /// `class Name~T~["label"]:::css <<annotation>> { … }`.
    fn class_statement(&mut self) -> Result<(), Unsupported> {
        let at = self.at;
        let Some((id, generic)) = self.name()? else {
            return Err(unsupported(at, "`class` is followed by the class's name"));
        };
        let i = self.add_class(&id, &generic);
        if let Some(ns) = self.ns_stack.last() {
            self.classes[i].parent = Some(ns.clone());
        }
        self.skip_spaces();
        if self.eat("[") {
            let label = self.string()?.unwrap_or_default();
            self.skip_spaces();
            if !self.eat("]") {
                return Err(unsupported(
                    self.at,
                    "a class's label is written `class Name[\"label\"]`",
                ));
            }
            self.classes[i].label = Some(label);
        }
        self.skip_spaces();
        if self.eat(":::") {
            let css: String = self
                .rest()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
                .collect();
            self.at += css.len();
            self.classes[i].css.push(css);
        }
        if let Some(a) = self.annotation() {
            self.classes[i].class.annotations.push(a);
        }
        self.skip_spaces();
        if self.eat("{") {
            self.body(i)?;
        }
        self.end_of_statement()
    }

    /// Nothing but spaces to the end of the line.
    fn end_of_statement(&mut self) -> Result<(), Unsupported> {
        self.skip_spaces();
        let rest = self.rest();
        let line = rest.split('\n').next().unwrap_or("").trim();
        if line.is_empty() || line.starts_with(';') {
            self.take_line();
            return Ok(());
        }
        Err(unsupported(
            self.at,
            format!(
                "`{}` is not part of a class diagram's statement",
                line.chars().take(24).collect::<String>()
            ),
        ))
    }

    /// A relation's marker here, on the side given.
    fn end_marker(&mut self, left: bool) -> End {
        self.skip_spaces();
        let rest = self.rest();
        let (tok, end) = if rest.starts_with("<|") || rest.starts_with("|>") {
            (2, End::Extension)
        } else if rest.starts_with("()") {
            (2, End::Lollipop)
        } else if rest.starts_with('*') {
            (1, End::Composition)
        } else if rest.starts_with('o')
            && (left || !rest[1..].starts_with(|c: char| c.is_alphanumeric()))
        {
            (1, End::Aggregation)
        } else if rest.starts_with('<') || rest.starts_with('>') {
            (1, End::Dependency)
        } else {
            (0, End::None)
        };
        self.at += tok;
        end
    }

    /// A relation or a member statement, from its first class's name.
    fn relation_or_member(&mut self) -> Result<(), Unsupported> {
        let at = self.at;
        let Some((left, left_generic)) = self.name()? else {
            let what: String = self.rest().chars().take(24).collect();
            return Err(unsupported(
                at,
                format!(
                    "`{}` does not start a class diagram's statement",
                    what.split('\n').next().unwrap_or("")
                ),
            ));
        };
        self.skip_spaces();
        if self.rest().starts_with(':') && !self.rest().starts_with(":::") {
            let text = self.take_line()[1..].trim().to_string();
            let i = self.add_class(&left, &left_generic);
            self.add_member(i, &text);
            return Ok(());
        }
        let card_left = self.string()?.unwrap_or_default();
        let mark = self.at;
        let first = self.end_marker(true);
        self.skip_spaces();
        let dashed = if self.eat("--") {
            false
        } else if self.eat("..") {
            true
        } else {
            if first == End::None && card_left.is_empty() {
                // A bare name: Mermaid reads it and adds nothing.
                return self.end_of_statement();
            }
            return Err(unsupported(
                mark,
                "a relation's line is `--` or `..`: `A <|-- B`",
            ));
        };
        let second = self.end_marker(false);
        let card_right = self.string()?.unwrap_or_default();
        let at2 = self.at;
        let Some((right, right_generic)) = self.name()? else {
            return Err(unsupported(
                at2,
                "a relation ends with a class's name: `A <|-- B`",
            ));
        };
        self.skip_spaces();
        let label = if self.rest().starts_with(':') {
            self.take_line()[1..].trim().to_string()
        } else {
            self.end_of_statement()?;
            String::new()
        };
        let invalid = |e: End| e != End::None && e != End::Lollipop;
        let (mut l, mut r) = (left, right);
        if first == End::Lollipop && !invalid(second) {
            self.add_class(&r, &right_generic);
            self.interfaces.push((l, r.clone()));
            l = format!("interface{}", self.interfaces.len() - 1);
        } else if second == End::Lollipop && !invalid(first) {
            self.add_class(&l, &left_generic);
            self.interfaces.push((r, l.clone()));
            r = format!("interface{}", self.interfaces.len() - 1);
        } else {
            self.add_class(&l, &left_generic);
            self.add_class(&r, &right_generic);
        }
        let card = |c: String| {
            if c.trim() == "none" {
                String::new()
            } else {
                c.trim().to_string()
            }
        };
        self.relations.push(RelationRead {
            left: l,
            right: r,
            label,
            relation: Relation {
                ends: [first, second],
                dashed,
                cards: [card(card_left), card(card_right)],
            },
        });
        Ok(())
    }

    /// `namespace A.B ["label"] {`: opens it.
    fn namespace(&mut self) -> Result<(), Unsupported> {
        let at = self.at;
        let Some((name, _)) = self.name()? else {
            return Err(unsupported(
                at,
                "`namespace` is followed by its name: `namespace Name {`",
            ));
        };
        self.skip_spaces();
        let mut label = None;
        if self.eat("[") {
            label = self.string()?;
            self.skip_spaces();
            self.eat("]");
        }
        self.skip_spaces();
        if !self.eat("{") {
            return Err(unsupported(
                self.at,
                "a namespace's classes are written in `{ … }` after its name",
            ));
        }
        let qualified = match self.ns_stack.last() {
            Some(p) => format!("{p}.{name}"),
            None => name.clone(),
        };
        self.ns_stack.push(qualified.clone());
        if let Some(n) = self.namespaces.iter_mut().find(|n| n.id == qualified) {
            if let Some(l) = label {
                n.label = l;
            }
            return Ok(());
        }
        let parts: Vec<&str> = qualified.split('.').collect();
        let mut id = String::new();
        for (k, part) in parts.iter().enumerate() {
            let parent = (k > 0).then(|| id.clone());
            if k > 0 {
                id.push('.');
            }
            id.push_str(part);
            if !self.namespaces.iter().any(|n| n.id == id) {
                let leaf = k + 1 == parts.len();
                self.namespaces.push(Namespace {
                    id: id.clone(),
                    label: if leaf {
                        label.clone().unwrap_or_else(|| part.to_string())
                    } else {
                        part.to_string()
                    },
                    parent,
                });
            }
        }
        Ok(())
    }

    /// `style a,b fill:#f9f`, `classDef name,other fill:#f9f`, `cssClass "a,b" name`.
    fn styling(&mut self, keyword: &str) {
        let line = self.take_line().trim();
        if keyword == "cssClass" {
            let Some(rest) = line.strip_prefix('"') else {
                return;
            };
            let Some((ids, name)) = rest.split_once('"') else {
                return;
            };
            let name = name.trim();
            for id in ids.split(',').map(str::trim) {
                if let Some(&i) = self.index.get(id) {
                    self.classes[i].css.push(name.to_string());
                }
            }
            return;
        }
        let (ids, rest) = line
            .split_once(char::is_whitespace)
            .map_or((line, ""), |(a, b)| (a, b.trim()));
        let (s, skipped) = style::declarations(rest);
        for k in skipped {
            if !self.skipped.contains(&k) {
                self.skipped.push(k);
            }
        }
        for id in ids.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if keyword == "style" {
                if let Some(&i) = self.index.get(id) {
                    self.classes[i].style.apply(&s);
                }
            } else {
                self.defs.entry(id.to_string()).or_default().apply(&s);
            }
        }
    }

    /// Every statement of the diagram.
    fn read(&mut self) -> Result<(), Unsupported> {
        loop {
            self.skip_blanks();
            if self.rest().is_empty() {
                if !self.ns_stack.is_empty() {
                    return Err(unsupported(
                        self.at,
                        "a namespace's `{` is not closed: end it with `}`",
                    ));
                }
                return Ok(());
            }
            if self.classes.len() + self.relations.len() + self.notes.len() > MAX_READ {
                return Ok(());
            }
            let rest = self.rest();
            let line = rest.split('\n').next().unwrap_or("");
            if let Some(dir) = direction(line) {
                self.take_line();
                self.direction = dir;
                continue;
            }
            if rest.starts_with(';') {
                self.at += 1;
                continue;
            }
            if rest.starts_with('}') {
                if self.ns_stack.pop().is_none() {
                    return Err(unsupported(self.at, "`}` closes nothing here"));
                }
                self.at += 1;
                continue;
            }
            for k in ["accTitle", "accDescr"] {
                if let Some(after) = rest.strip_prefix(k) {
                    let after = after.trim_start();
                    if let Some(v) = after.strip_prefix(':') {
                        let v = v.split('\n').next().unwrap_or("").trim().to_string();
                        self.take_line();
                        if k == "accTitle" {
                            self.acc_title = Some(v);
                        } else {
                            self.acc_descr = Some(v);
                        }
                    } else if let Some(v) = after.strip_prefix('{') {
                        let from = self.at + (rest.len() - v.len());
                        let Some(close) = self.src[from..].find('}') else {
                            return Err(unsupported(
                                self.at,
                                "`accDescr {` is not closed: end the description with `}`",
                            ));
                        };
                        self.acc_descr = Some(
                            self.src[from..from + close]
                                .split_whitespace()
                                .collect::<Vec<_>>()
                                .join(" "),
                        );
                        self.at = from + close + 1;
                    }
                }
            }
            if self.rest().len() != rest.len() {
                continue;
            }
            if starts_word(rest, "classDef")
                || starts_word(rest, "style")
                || starts_word(rest, "cssClass")
            {
                let k = if rest.starts_with("classDef") {
                    "classDef"
                } else if rest.starts_with("style") {
                    "style"
                } else {
                    "cssClass"
                };
                self.at += k.len();
                self.styling(k);
                continue;
            }
            if let Some(k) = ["click", "callback", "link"]
                .into_iter()
                .find(|k| starts_word(rest, k))
            {
                self.take_line();
                self.ignore(k);
                continue;
            }
            if starts_word(rest, "note") {
                self.at += 4;
                self.skip_spaces();
                let mut on = None;
                if starts_word(self.rest(), "for") {
                    self.at += 3;
                    on = self.name()?.map(|(n, _)| n);
                }
                let at = self.at;
                let Some(text) = self.string()? else {
                    return Err(unsupported(
                        at,
                        "a note's text is quoted: `note for A \"text\"`",
                    ));
                };
                self.notes.push(Note {
                    text,
                    class: on,
                    parent: self.ns_stack.last().cloned(),
                });
                self.end_of_statement()?;
                continue;
            }
            if starts_word(rest, "namespace") {
                self.at += "namespace".len();
                self.namespace()?;
                continue;
            }
            if starts_word(rest, "class") {
                self.at += "class".len();
                self.class_statement()?;
                continue;
            }
            if rest.starts_with("<<") {
                let at = self.at;
                let Some(a) = self.annotation() else {
                    return Err(unsupported(at, "an annotation is written `<<name>> Class`"));
                };
                let Some((id, generic)) = self.name()? else {
                    return Err(unsupported(
                        self.at,
                        "an annotation is followed by its class's name",
                    ));
                };
                let i = self.add_class(&id, &generic);
                self.classes[i].class.annotations.push(a);
                self.end_of_statement()?;
                continue;
            }
            self.relation_or_member()?;
        }
    }
}

/// `None` when the source is not a class diagram.
pub fn parse(source: &str) -> Option<Result<ClassDiagram, Unsupported>> {
    let source = single_quoted_attributes(source);
    let (blank, directives) = directive::blanked(&source);
    let (start, front) = front_matter(&blank);
    let clean = without_comments(&blank[start..]);
    let trimmed = clean.trim_start();
    let lead = clean.len() - trimmed.len();
    let word_end = trimmed
        .find(|c: char| c.is_whitespace() || c == ';')
        .unwrap_or(trimmed.len());
    if !is_class_keyword(&trimmed[..word_end]) {
        return None;
    }
    let body = format!("{}{}", " ".repeat(start), clean);
    let mut r = Reader {
        src: &body,
        at: start + lead + word_end,
        classes: Vec::new(),
        index: HashMap::new(),
        interfaces: Vec::new(),
        namespaces: Vec::new(),
        ns_stack: Vec::new(),
        notes: Vec::new(),
        relations: Vec::new(),
        defs: HashMap::new(),
        skipped: Vec::new(),
        ignored: Vec::new(),
        cut: Vec::new(),
        direction: Direction::TopDown,
        acc_title: None,
        acc_descr: None,
    };
    if let Err(e) = r.read() {
        return Some(Err(e));
    }
    let theme = directive::theme(&directives);
    let mut d = build(r, front.title, &theme);
    // An `%%{init}%%` directive is applied over the front matter's config, as Mermaid does.
    d.hide_empty_members_box = directive::init_setting(&directives, "class", "hideEmptyMembersBox")
        .map(|v| v == "true")
        .or(front.hide_empty_members_box)
        .unwrap_or(false);
    Some(Ok(d))
}

/// The model from what was read.
fn build(r: Reader, title: Option<String>, theme: &directive::Theme) -> ClassDiagram {
    let mut d = ClassDiagram::default();
    d.chart.direction = r.direction;
    d.chart.title = title;
    d.chart.acc_title = r.acc_title;
    d.chart.acc_descr = r.acc_descr;
    d.chart.ignored = r.ignored;
    let mut base = Style::default();
    if let Some(c) = theme.primary_color {
        base.fill = Some(style::Paint::Colour(c));
    }
    if let Some(c) = theme.primary_border_color {
        base.stroke = Some(style::Paint::Colour(c));
    }
    if let Some(c) = theme.primary_text_color {
        base.color = Some(c);
    }
    if let Some(s) = r.defs.get("default") {
        base.apply(s);
    }
    let mut styles = Vec::new();
    let mut any = false;
    let node = |id: &str, label: String| Node {
        id: id.to_string(),
        label,
        shape: Shape::Rect,
        emphasis: Vec::new(),
    };
    let mut subgraph_of: HashMap<String, usize> = HashMap::new();
    for (k, n) in r.namespaces.iter().enumerate() {
        subgraph_of.insert(n.id.clone(), k);
        d.chart.subgraphs.push(Subgraph {
            id: Some(n.id.clone()),
            title: n.label.clone(),
            title_emphasis: Vec::new(),
            parent: n
                .parent
                .as_ref()
                .and_then(|p| r.namespaces.iter().position(|q| &q.id == p)),
            direction: None,
            members: Vec::new(),
        });
    }
    for b in r.classes {
        let mut label = b.label.unwrap_or_else(|| b.id.clone());
        if !b.class.generic.is_empty() {
            label = format!("{label}<{}>", generics(&b.class.generic));
        }
        if let Some(p) = b.parent.as_ref().and_then(|p| subgraph_of.get(p)) {
            d.chart.subgraphs[*p].members.push(b.id.clone());
        }
        let mut s = base.clone();
        for c in &b.css {
            if let Some(cs) = r.defs.get(c) {
                s.apply(cs);
            }
        }
        s.apply(&b.style);
        any |= !s.is_empty();
        styles.push(s);
        d.chart.nodes.push(node(&b.id, label));
        d.kinds.push(Kind::Class);
        d.classes.push(b.class);
    }
    for (k, (label, _)) in r.interfaces.iter().enumerate() {
        d.chart
            .nodes
            .push(node(&format!("interface{k}"), label.clone()));
        d.kinds.push(Kind::Interface);
        d.classes.push(Class::default());
        styles.push(Style::default());
    }
    for n in &r.namespaces {
        d.chart.nodes.push(node(&n.id, n.label.clone()));
        d.kinds.push(Kind::Namespace);
        d.classes.push(Class::default());
        styles.push(Style::default());
    }
    let index: HashMap<String, usize> = d
        .chart
        .nodes
        .iter()
        .enumerate()
        .filter(|(i, _)| d.kinds[*i] == Kind::Class)
        .map(|(i, n)| (n.id.clone(), i))
        .collect();
    for (k, n) in r.notes.into_iter().enumerate() {
        let id = format!("note{k}");
        if let Some(p) = n.parent.as_ref().and_then(|p| subgraph_of.get(p)) {
            d.chart.subgraphs[*p].members.push(id.clone());
        }
        let at = d.chart.nodes.len();
        d.note_on
            .push((at, n.class.as_ref().and_then(|c| index.get(c).copied())));
        d.chart.nodes.push(node(&id, note_text(&n.text)));
        d.kinds.push(Kind::Note);
        d.classes.push(Class::default());
        styles.push(Style::default());
    }
    let all: HashMap<String, usize> = d
        .chart
        .nodes
        .iter()
        .enumerate()
        .filter(|(i, _)| matches!(d.kinds[*i], Kind::Class | Kind::Interface))
        .map(|(i, n)| (n.id.clone(), i))
        .collect();
    for rel in r.relations {
        let (Some(&from), Some(&to)) = (all.get(&rel.left), all.get(&rel.right)) else {
            continue;
        };
        d.chart.edges.push(Edge {
            from,
            to,
            label: (!rel.label.is_empty()).then(|| note_text(&rel.label)),
            label_emphasis: Vec::new(),
            stroke: if rel.relation.dashed {
                Stroke::Dotted
            } else {
                Stroke::Solid
            },
            start: Marker::None,
            end: Marker::None,
            length: 1,
        });
        d.relations.push(rel.relation);
    }
    if any {
        d.chart.styles.nodes = styles;
    }
    d.chart.notes.extend(r.cut);
    if !r.skipped.is_empty() {
        d.chart.notes.push(format!(
            "the style {} {} not drawn: only {} are",
            r.skipped
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", "),
            if r.skipped.len() == 1 { "is" } else { "are" },
            style::DRAWN
        ));
    }
    d
}
