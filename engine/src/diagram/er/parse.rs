//! An ER diagram's source read as Mermaid's own grammar reads it: a stream of tokens (names,
//! cardinalities in symbols or words, `--` / `..` and their words `to` / `optionally to`,
//! `:::`, `[alias]`, attribute blocks `{ … }`), statements made of them whatever the line
//! breaks, and a few statements that take the rest of their line (`direction`, `accTitle`,
//! `accDescr`, `style`, `classDef`, `class`). Keywords are read in any case, as Mermaid reads
//! them; a word cardinality (`one`, `many`) only where a word ends.

use super::{Attribute, Cardinality, Entity, ErDiagram, Key, MAX_ATTRIBUTES, Relationship};
use crate::diagram::directive;
use crate::diagram::flowchart::{Direction, Edge, Node, Unsupported};
use crate::diagram::line::{Marker, Stroke};
use crate::diagram::shapes::Shape;
use crate::diagram::style::{self, Style};
use std::collections::HashMap;

/// `erDiagram`.
pub fn is_er_keyword(keyword: &str) -> bool {
    keyword == "erDiagram"
}

/// Most entities and relationships read: beyond the layout's caps, so the diagram is refused
/// as too large, and reading stops there.
const MAX_READ: usize = 2_000;

fn unsupported(offset: usize, message: impl Into<String>) -> Unsupported {
    Unsupported {
        offset,
        message: message.into(),
    }
}

/// The source with `%%` comment lines blanked (same length, same line breaks), as Mermaid
/// drops them before it reads the diagram.
fn without_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    for line in source.split_inclusive('\n') {
        if line.trim_start().starts_with("%%") {
            let body = line.trim_end_matches(['\n', '\r']);
            out.extend(std::iter::repeat_n(' ', body.len()));
            out.push_str(&line[body.len()..]);
        } else {
            out.push_str(line);
        }
    }
    out
}

/// One token of a statement.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    /// An entity's name, or a label word.
    Name(String),
    Card(Cardinality),
    /// `--`, `to` (identifying) or `..`, `.-`, `-.`, `optionally to`.
    Rel(bool),
    Colon,
    StyleSep,
    Comma,
    Open,
    Close,
    /// `{ … }`: the attributes read.
    Block(Vec<Attribute>),
    Newline,
    Other(char),
}

/// The diagram being read.
struct Reader<'s> {
    src: &'s str,
    at: usize,
    d: ErDiagram,
    index: HashMap<String, usize>,
    classes: HashMap<String, Style>,
    /// Per entity: its classes (after `default`), and its own `style`.
    entity_classes: Vec<Vec<String>>,
    entity_style: Vec<Style>,
    skipped: Vec<String>,
}

fn is_name_char(c: char) -> bool {
    !c.is_ascii() || c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '*' | '.')
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether `s` starts with `word` in any case and, when `word` ends with a letter or digit,
/// a word ends there.
fn starts_word(s: &str, word: &str) -> bool {
    let Some(head) = s.get(..word.len()) else {
        return false;
    };
    if !head.eq_ignore_ascii_case(word) {
        return false;
    }
    let ends_in_word = word.chars().last().is_some_and(is_word_char);
    !ends_in_word || !s[word.len()..].chars().next().is_some_and(is_word_char)
}

/// The word cardinalities and symbols in the order Mermaid's lexer tries them (before a
/// name): the first that matches is the token.
const CARDS: [(&str, Cardinality); 16] = [
    ("one or zero", Cardinality::ZeroOrOne),
    ("one or more", Cardinality::OneOrMore),
    ("one or many", Cardinality::OneOrMore),
    ("1+", Cardinality::OneOrMore),
    ("|o", Cardinality::ZeroOrOne),
    ("zero or one", Cardinality::ZeroOrOne),
    ("zero or more", Cardinality::ZeroOrMore),
    ("zero or many", Cardinality::ZeroOrMore),
    ("0+", Cardinality::ZeroOrMore),
    ("}o", Cardinality::ZeroOrMore),
    ("many(0)", Cardinality::ZeroOrMore),
    ("many(1)", Cardinality::OneOrMore),
    ("many", Cardinality::ZeroOrMore),
    ("}|", Cardinality::OneOrMore),
    ("one", Cardinality::ExactlyOne),
    ("only one", Cardinality::ExactlyOne),
];

/// The symbols Mermaid tries after its numbers.
const SYMBOLS: [(&str, Cardinality); 4] = [
    ("||", Cardinality::ExactlyOne),
    ("o|", Cardinality::ZeroOrOne),
    ("o{", Cardinality::ZeroOrMore),
    ("|{", Cardinality::OneOrMore),
];

/// `direction TB` and the like anywhere in `line`, in any case.
fn direction(line: &str) -> Option<Direction> {
    let lower = line.to_ascii_lowercase();
    let mut from = 0;
    while let Some(k) = lower[from..].find("direction") {
        let after = &line[from + k + "direction".len()..];
        let word = after.trim_start();
        if word.len() < after.len() {
            let dir = word.get(..2).map(str::to_ascii_uppercase);
            match dir.as_deref() {
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

impl<'s> Reader<'s> {
    fn rest(&self) -> &'s str {
        &self.src[self.at..]
    }

    /// The rest of the current line, and moves past it (not past its line break).
    fn take_line(&mut self) -> &'s str {
        let rest = self.rest();
        let end = rest.find('\n').unwrap_or(rest.len());
        self.at += end;
        rest[..end].trim_end_matches('\r')
    }

    fn skip_blanks(&mut self) {
        let rest = self.rest();
        let n = rest.len() - rest.trim_start_matches([' ', '\t', '\r', ';']).len();
        self.at += n;
    }

    /// The next token, and where it starts; `None` at the end.
    fn token(&mut self) -> Result<Option<(usize, Tok)>, Unsupported> {
        self.skip_blanks();
        let start = self.at;
        let rest = self.rest();
        let Some(c) = rest.chars().next() else {
            return Ok(None);
        };
        let mut take = |n: usize, t: Tok| {
            self.at += n;
            Ok(Some((start, t)))
        };
        if c == '\n' {
            return take(1, Tok::Newline);
        }
        if c == '"' {
            let Some(close) = rest[1..].find('"') else {
                return Err(unsupported(
                    start,
                    "a quoted name has no closing `\"`: close it on the same line",
                ));
            };
            let text = &rest[1..1 + close];
            if text.contains('\n') {
                return Err(unsupported(
                    start,
                    "a quoted name has no closing `\"` on its line: close it there",
                ));
            }
            return take(close + 2, Tok::Name(text.to_string()));
        }
        if c == '{' {
            self.at += 1;
            let attrs = self.block(start)?;
            return Ok(Some((start, Tok::Block(attrs))));
        }
        if rest.starts_with(":::") {
            return take(3, Tok::StyleSep);
        }
        match c {
            ':' => return take(1, Tok::Colon),
            ',' => return take(1, Tok::Comma),
            '[' => return take(1, Tok::Open),
            ']' => return take(1, Tok::Close),
            _ => {}
        }
        for (word, card) in CARDS {
            if starts_word(rest, word) {
                return take(word.len(), Tok::Card(card));
            }
        }
        // Numbers: `1` before a name or a line is `only one`, else a name.
        if c.is_ascii_digit() {
            let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let after = &rest[digits..];
            if digits == 1 && c == '1' {
                let spaced = after.trim_start();
                let card = if spaced.len() < after.len() {
                    spaced
                        .chars()
                        .next()
                        .is_some_and(|n| n.is_ascii_alphanumeric() || matches!(n, '_' | '"' | '\''))
                } else {
                    ["--", "..", ".-", "-."]
                        .iter()
                        .any(|r| after.starts_with(r))
                };
                if card {
                    return take(1, Tok::Card(Cardinality::ExactlyOne));
                }
            }
        }
        for (sym, card) in SYMBOLS {
            if rest.starts_with(sym) {
                return take(2, Tok::Card(card));
            }
        }
        if (c == 'u' || c == 'U') && rest[1..].starts_with(['.', '-', '|']) {
            return take(1, Tok::Card(Cardinality::Parent));
        }
        for (sym, identifying) in [("..", false), ("--", true)] {
            if rest.starts_with(sym) {
                return take(2, Tok::Rel(identifying));
            }
        }
        if starts_word(rest, "to") {
            return take(2, Tok::Rel(true));
        }
        if starts_word(rest, "optionally to") {
            return take("optionally to".len(), Tok::Rel(false));
        }
        for sym in [".-", "-."] {
            if rest.starts_with(sym) {
                return take(2, Tok::Rel(false));
            }
        }
        let n = rest.len() - rest.trim_start_matches(is_name_char).len();
        if n > 0 {
            return take(n, Tok::Name(rest[..n].to_string()));
        }
        take(c.len_utf8(), Tok::Other(c))
    }

    /// An attribute block's contents, after its `{`, up to and past its `}`.
    fn block(&mut self, open: usize) -> Result<Vec<Attribute>, Unsupported> {
        #[derive(PartialEq)]
        enum A {
            Word(String),
            Key(Key),
            Comment(String),
            Comma,
        }
        let mut toks: Vec<(usize, A)> = Vec::new();
        loop {
            let rest = self.rest();
            let trimmed = rest.trim_start();
            self.at += rest.len() - trimmed.len();
            let at = self.at;
            let Some(c) = trimmed.chars().next() else {
                return Err(unsupported(
                    open,
                    "an entity's attribute block is not closed: end it with `}`",
                ));
            };
            if c == '}' {
                self.at += 1;
                break;
            }
            if c == '"' {
                let Some(close) = trimmed[1..].find('"') else {
                    return Err(unsupported(
                        at,
                        "an attribute's comment has no closing `\"`",
                    ));
                };
                toks.push((at, A::Comment(trimmed[1..1 + close].to_string())));
                self.at += close + 2;
                continue;
            }
            if c == ',' {
                toks.push((at, A::Comma));
                self.at += 1;
                continue;
            }
            let key = [
                ("PK", Key::Primary),
                ("FK", Key::Foreign),
                ("UK", Key::Unique),
            ]
            .into_iter()
            .find(|(k, _)| starts_word(trimmed, k));
            if let Some((k, key)) = key {
                toks.push((at, A::Key(key)));
                self.at += k.len();
                continue;
            }
            // A generic type (`type~T~`): from here to the line's last `~`, and on to a space.
            let run = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
            let line_end = trimmed.find('\n').unwrap_or(trimmed.len());
            if let Some(first) = trimmed[..run].find('~')
                && let Some(last) = trimmed[..line_end].rfind('~')
                && last > first
            {
                let tail = trimmed[last + 1..]
                    .find(char::is_whitespace)
                    .map_or(line_end, |k| last + 1 + k);
                toks.push((at, A::Word(trimmed[..tail].to_string())));
                self.at += tail;
                continue;
            }
            let starts = c == '*' || c == '_' || c.is_ascii_alphabetic() || u32::from(c) >= 0xC0;
            if starts {
                let n = trimmed.len()
                    - trimmed
                        .trim_start_matches(|c: char| {
                            c.is_ascii_alphanumeric()
                                || matches!(c, '-' | '_' | '[' | ']' | '(' | ')' | '*')
                                || u32::from(c) >= 0xC0
                        })
                        .len();
                toks.push((at, A::Word(trimmed[..n].to_string())));
                self.at += n;
                continue;
            }
            return Err(unsupported(
                at,
                format!(
                    "`{c}` cannot stand in an attribute: write each as `type name`, then keys (`PK`, `FK`, `UK`) and a \"comment\""
                ),
            ));
        }
        let mut out = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            let (at, ty) = match &toks[i] {
                (at, A::Word(w)) => (*at, w.clone()),
                (at, _) => {
                    return Err(unsupported(
                        *at,
                        "an attribute starts with its type: write `type name`",
                    ));
                }
            };
            let Some((_, A::Word(name))) = toks.get(i + 1) else {
                return Err(unsupported(
                    at,
                    format!("the attribute of type `{ty}` has no name: write `{ty} name`"),
                ));
            };
            let mut attr = Attribute {
                ty,
                name: name.clone(),
                keys: Vec::new(),
                comment: String::new(),
            };
            i += 2;
            while let Some((_, A::Key(k))) = toks.get(i) {
                attr.keys.push(*k);
                i += 1;
                if let Some((at, A::Comma)) = toks.get(i) {
                    if !matches!(toks.get(i + 1), Some((_, A::Key(_)))) {
                        return Err(unsupported(
                            *at,
                            "a `,` between keys is followed by another key: `PK, FK`",
                        ));
                    }
                    i += 1;
                }
            }
            if let Some((_, A::Comment(c))) = toks.get(i) {
                attr.comment = c.clone();
                i += 1;
            }
            if let Some((at, A::Comma)) = toks.get(i) {
                return Err(unsupported(
                    *at,
                    "a `,` separates keys only: put each attribute on its own line",
                ));
            }
            out.push(attr);
        }
        Ok(out)
    }

    /// The entity named `name`, added when new (with `alias` when given and it has none).
    fn entity(&mut self, name: &str, alias: Option<&str>) -> usize {
        let i = match self.index.get(name) {
            Some(&i) => i,
            None => {
                let i = self.d.chart.nodes.len();
                self.d.chart.nodes.push(Node {
                    id: name.to_string(),
                    label: name.to_string(),
                    shape: Shape::Rect,
                    emphasis: Vec::new(),
                });
                self.d.entities.push(Entity::default());
                self.entity_classes.push(Vec::new());
                self.entity_style.push(Style::default());
                self.index.insert(name.to_string(), i);
                i
            }
        };
        if let Some(a) = alias.filter(|a| !a.is_empty())
            && self.d.entities[i].alias.is_none()
        {
            self.d.entities[i].alias = Some(a.to_string());
            self.d.chart.nodes[i].label = a.to_string();
        }
        i
    }

    fn skip(&mut self, what: String) {
        if !self.skipped.contains(&what) {
            self.skipped.push(what);
        }
    }

    /// `style a,b fill:#f9f`, `classDef name,other fill:#f9f`, `class a,b name,other`: the rest
    /// of the line.
    fn styling(&mut self, keyword: &str) {
        let line = self.take_line().trim();
        let (ids, rest) = line
            .split_once(char::is_whitespace)
            .map_or((line, ""), |(a, b)| (a, b.trim()));
        let ids: Vec<&str> = ids
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        match keyword {
            "class" => {
                let classes: Vec<String> = rest
                    .split(',')
                    .map(|c| c.trim().to_string())
                    .filter(|c| !c.is_empty())
                    .collect();
                for id in ids {
                    if let Some(&i) = self.index.get(id) {
                        self.entity_classes[i].extend(classes.iter().cloned());
                    }
                }
            }
            _ => {
                let (s, skipped) = style::declarations(rest);
                for k in skipped {
                    self.skip(k);
                }
                for id in ids {
                    if keyword == "style" {
                        if let Some(&i) = self.index.get(id) {
                            self.entity_style[i].apply(&s);
                        }
                    } else {
                        self.classes.entry(id.to_string()).or_default().apply(&s);
                    }
                }
            }
        }
    }

    /// `:::a,b` after an entity, when there: the class names.
    fn classes_after(&mut self, toks: &mut Toks) -> Result<Vec<String>, Unsupported> {
        let mut out = Vec::new();
        if !matches!(toks.peek(self)?, Some((_, Tok::StyleSep))) {
            return Ok(out);
        }
        toks.next(self)?;
        loop {
            match toks.next(self)? {
                Some((_, Tok::Name(n))) => out.push(n),
                other => {
                    let at = other.as_ref().map_or(toks.last_at, |t| t.0);
                    return Err(unsupported(
                        at,
                        "`:::` is followed by a class's name: `ENTITY:::name`",
                    ));
                }
            }
            match toks.peek(self)? {
                Some((_, Tok::Comma)) => {
                    toks.next(self)?;
                }
                _ => break,
            }
        }
        Ok(out)
    }

    /// One statement, from its first token on.
    fn statement(&mut self, toks: &mut Toks, first: (usize, Tok)) -> Result<(), Unsupported> {
        let (at, tok) = first;
        let Tok::Name(name) = tok else {
            let what = match tok {
                Tok::Card(_) | Tok::Rel(_) => {
                    "a relationship starts with its first entity: `A ||--o{ B : label`".to_string()
                }
                Tok::Other(c) => format!(
                    "`{c}` is not part of an ER diagram's statement: write an entity's name, `A ||--o{{ B : label` or `A {{ type name }}`"
                ),
                _ => "an ER diagram's statement starts with an entity's name".to_string(),
            };
            return Err(unsupported(at, what));
        };
        // `name[alias]`
        let mut alias = None;
        if matches!(toks.peek(self)?, Some((_, Tok::Open))) {
            toks.next(self)?;
            match toks.next(self)? {
                Some((_, Tok::Name(a))) => alias = Some(a),
                _ => {
                    return Err(unsupported(
                        at,
                        format!(
                            "`{name}[` is followed by the entity's alias and `]`: `{name}[Alias]`"
                        ),
                    ));
                }
            }
            if !matches!(toks.next(self)?, Some((_, Tok::Close))) {
                return Err(unsupported(
                    at,
                    format!(
                        "the alias of `{name}` is not closed: write `{name}[Alias]`, quoting an alias with spaces"
                    ),
                ));
            }
        }
        let classes = self.classes_after(toks)?;
        let next = toks.peek(self)?.map(|t| t.1.clone());
        match next {
            Some(Tok::Card(left)) if alias.is_none() => {
                toks.next(self)?;
                let rel = |t: Option<(usize, Tok)>| match t {
                    Some((_, Tok::Rel(r))) => Some(r),
                    _ => None,
                };
                let card = |t: Option<(usize, Tok)>| match t {
                    Some((_, Tok::Card(c))) => Some(c),
                    _ => None,
                };
                let hint = "write a relationship as `A ||--o{ B : label`: a cardinality at each end (`||`, `|o`, `}o`, `}|` and their mirror images), `--` or `..` between them";
                let identifying = rel(toks.next(self)?).ok_or_else(|| unsupported(at, hint))?;
                let right = card(toks.next(self)?).ok_or_else(|| unsupported(at, hint))?;
                let Some((_, Tok::Name(second))) = toks.next(self)? else {
                    return Err(unsupported(
                        at,
                        format!("the relationship from `{name}` names no second entity: {hint}"),
                    ));
                };
                let second_classes = self.classes_after(toks)?;
                // `: label`: the rest of the line, its quotes dropped (Mermaid wants one word
                // or a quoted text; several words are read too).
                let label = match toks.peek(self)? {
                    Some((_, Tok::Colon)) => {
                        toks.next(self)?;
                        toks.drain();
                        self.skip_blanks();
                        let rest = self.rest();
                        let line = rest.split('\n').next().unwrap_or("");
                        // A quoted label ends at its quote, and another statement may follow
                        // on the line; a bare one is the rest of the line.
                        match line
                            .strip_prefix('"')
                            .and_then(|q| q.find('"').map(|k| &q[..k]))
                        {
                            Some(quoted) => {
                                self.at += quoted.len() + 2;
                                Some(quoted.to_string())
                            }
                            None => Some(self.take_line().trim().replace('"', "")),
                        }
                    }
                    _ => None,
                };
                if self.d.chart.edges.len() >= MAX_READ {
                    return Ok(());
                }
                let a = self.entity(&name, None);
                let b = self.entity(&second, None);
                self.entity_classes[a].extend(classes);
                self.entity_classes[b].extend(second_classes);
                self.d.chart.edges.push(Edge {
                    from: a,
                    to: b,
                    label: label.filter(|l| !l.trim().is_empty()),
                    label_emphasis: Vec::new(),
                    stroke: if identifying {
                        Stroke::Solid
                    } else {
                        Stroke::Dotted
                    },
                    start: Marker::None,
                    end: Marker::None,
                    length: 1,
                });
                self.d.relationships.push(Relationship {
                    at_first: left,
                    at_second: right,
                    identifying,
                });
                Ok(())
            }
            Some(Tok::Block(_)) => {
                let Some((b_at, Tok::Block(attrs))) = toks.next(self)? else {
                    return Ok(());
                };
                if self.d.chart.nodes.len() >= MAX_READ {
                    return Ok(());
                }
                let i = self.entity(&name, alias.as_deref());
                self.entity_classes[i].extend(classes);
                let list = &mut self.d.entities[i].attributes;
                list.extend(attrs);
                if list.len() > MAX_ATTRIBUTES {
                    return Err(unsupported(
                        b_at,
                        format!(
                            "`{name}` has {} attributes; the most drawn is {MAX_ATTRIBUTES}: split the entity",
                            list.len()
                        ),
                    ));
                }
                Ok(())
            }
            _ => {
                if self.d.chart.nodes.len() < MAX_READ {
                    let i = self.entity(&name, alias.as_deref());
                    self.entity_classes[i].extend(classes);
                }
                Ok(())
            }
        }
    }
}

/// Tokens read on demand, with one put back.
struct Toks {
    back: Option<(usize, Tok)>,
    last_at: usize,
}

impl Toks {
    fn next(&mut self, r: &mut Reader) -> Result<Option<(usize, Tok)>, Unsupported> {
        if let Some(t) = self.back.take() {
            return Ok(Some(t));
        }
        let t = r.token()?;
        if let Some((at, _)) = &t {
            self.last_at = *at;
        }
        Ok(t)
    }

    fn peek(&mut self, r: &mut Reader) -> Result<Option<&(usize, Tok)>, Unsupported> {
        if self.back.is_none() {
            self.back = r.token()?;
        }
        Ok(self.back.as_ref())
    }

    /// Forgets a token peeked at (the reader is moved on by hand after it).
    fn drain(&mut self) {
        self.back = None;
    }
}

/// `None` when the source is not an ER diagram.
pub fn parse(source: &str) -> Option<Result<ErDiagram, Unsupported>> {
    let (blank, directives) = directive::blanked(source);
    let (start, title) = directive::front_matter(&blank);
    let clean = without_comments(&blank[start..]);
    let trimmed = clean.trim_start();
    let lead = clean.len() - trimmed.len();
    let word_end = trimmed
        .find(|c: char| c.is_whitespace() || c == ';')
        .unwrap_or(trimmed.len());
    if !is_er_keyword(&trimmed[..word_end]) {
        return None;
    }
    // Offsets below are into `body`, which starts `start` bytes into the source.
    let body = format!("{}{}", " ".repeat(start), clean);
    let mut r = Reader {
        src: &body,
        at: start + lead + word_end,
        d: ErDiagram::default(),
        index: HashMap::new(),
        classes: HashMap::new(),
        entity_classes: Vec::new(),
        entity_style: Vec::new(),
        skipped: Vec::new(),
    };
    r.d.chart.direction = Direction::TopDown;
    r.d.chart.title = title;
    let theme = directive::theme(&directives);
    match read(&mut r) {
        Ok(()) => {}
        Err(e) => return Some(Err(e)),
    }
    resolve_styles(&mut r, &theme);
    if !r.skipped.is_empty() {
        r.d.chart.notes.push(format!(
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
    Some(Ok(r.d))
}

/// Each entity's style: the theme's, `classDef default`, its classes in order, its `style`.
fn resolve_styles(r: &mut Reader, theme: &directive::Theme) {
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
    if let Some(d) = r.classes.get("default") {
        base.apply(d);
    }
    let n = r.d.chart.nodes.len();
    let mut styles = Vec::with_capacity(n);
    let mut any = false;
    for i in 0..n {
        let mut s = base.clone();
        for c in &r.entity_classes[i] {
            if let Some(cs) = r.classes.get(c) {
                s.apply(cs);
            }
        }
        s.apply(&r.entity_style[i]);
        any |= !s.is_empty();
        styles.push(s);
    }
    if any {
        r.d.chart.styles.nodes = styles;
    }
}

/// Every statement of the diagram.
fn read(r: &mut Reader) -> Result<(), Unsupported> {
    let mut toks = Toks {
        back: None,
        last_at: r.at,
    };
    loop {
        if toks.back.is_none() {
            r.skip_blanks();
            // Statements that take the rest of their line.
            let rest = r.rest();
            let line = rest.split('\n').next().unwrap_or("");
            if let Some(dir) = direction(line) {
                r.take_line();
                r.d.chart.direction = dir;
                continue;
            }
            let lower_starts = |w: &str| starts_word(line, w);
            if lower_starts("accTitle") || lower_starts("accDescr") {
                let after = line[8..].trim_start();
                if let Some(v) = after.strip_prefix(':') {
                    let v = v.trim().to_string();
                    r.take_line();
                    if lower_starts("accTitle") {
                        r.d.chart.acc_title = Some(v);
                    } else {
                        r.d.chart.acc_descr = Some(v);
                    }
                    continue;
                }
                if lower_starts("accDescr")
                    && let Some(v) = after.strip_prefix('{')
                {
                    let from = r.at + (line.len() - v.len());
                    let Some(close) = r.src[from..].find('}') else {
                        return Err(unsupported(
                            r.at,
                            "`accDescr {` is not closed: end the description with `}`",
                        ));
                    };
                    let text = r.src[from..from + close]
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ");
                    r.d.chart.acc_descr = Some(text);
                    r.at = from + close + 1;
                    continue;
                }
            }
            for k in ["classDef", "class", "style"] {
                if lower_starts(k) {
                    r.at += k.len();
                    r.styling(if k == "classDef" { "classDef" } else { k });
                    break;
                }
            }
            if rest.len() != r.rest().len() {
                continue;
            }
            if lower_starts("click") {
                r.take_line();
                if !r.d.chart.ignored.iter().any(|i| i == "click") {
                    r.d.chart.ignored.push("click".to_string());
                }
                continue;
            }
        }
        let Some(first) = toks.next(r)? else {
            return Ok(());
        };
        if first.1 == Tok::Newline {
            continue;
        }
        r.statement(&mut toks, first)?;
    }
}
