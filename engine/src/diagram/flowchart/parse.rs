//! The flowchart parser: the chart's keyword and direction, its statements (split at `;` and
//! line ends outside quotes and brackets), and each statement read into nodes, edges,
//! subgraphs and directives.

use super::label::label_text;
use super::statement::{Cursor, NodeSpec, preview};
use super::styling::Styling;
use super::{Direction, Edge, Flowchart, MAX_EDGES, Node, Subgraph, Unsupported};
use crate::diagram::colour::Colour;
use crate::diagram::directive;
use crate::diagram::shapes::Shape;
use crate::diagram::style::{Paint, Style};
use smallvec::SmallVec;
use std::collections::{HashMap, HashSet};

/// Where the diagram text starts, after an optional `---` front-matter block.
fn body_start(source: &str) -> usize {
    let trimmed = source.trim_start();
    let lead = source.len() - trimmed.len();
    let Some(after) = trimmed.strip_prefix("---") else {
        return 0;
    };
    if !after.starts_with(['\n', '\r']) {
        return 0;
    }
    let mut at = lead + 3;
    for line in source[at..].split_inclusive('\n').skip(1) {
        at += line.len();
        if line.trim() == "---" {
            return at;
        }
    }
    0
}

/// The diagram type keyword (`graph`, `sequenceDiagram`, …), if there is one.
pub fn keyword(source: &str) -> Option<&str> {
    let (blank, _) = directive::blanked(source);
    let start = body_start(&blank);
    let (at, first) = statements(&blank[start..]).into_iter().next()?;
    let word = first.split_whitespace().next()?;
    // The same bytes of the source itself (a directive's blanks are all that differ).
    let lead = first.len() - first.trim_start().len();
    source.get(start + at + lead..start + at + lead + word.len())
}

/// `graph`, `flowchart`, and `flowchart-elk` (a flowchart Mermaid lays out with ELK; we lay
/// it out as any other).
pub fn is_flowchart_keyword(keyword: &str) -> bool {
    matches!(keyword, "graph" | "flowchart" | "flowchart-elk")
}

/// `None` when the source is another diagram type (sequence, class, …): those take only
/// whole-diagram comments.
pub fn parse(source: &str) -> Option<Result<Flowchart, Unsupported>> {
    // `%%{init}%%` directives, on one line or several, are read here and blanked for the
    // rest: offsets into `source` still hold.
    let (blank, directives) = directive::blanked(source);
    let source: &str = &blank;
    let start = body_start(source);
    let body = &source[start..];
    let mut statements = statements(body).into_iter();
    let (header_at, header) = statements.next()?;
    let count = statements.len();
    let header_at = header_at + start;
    let mut words = header.split_whitespace();
    let keyword = words.next()?;
    if !is_flowchart_keyword(keyword) {
        return None;
    }
    let mut p = Parser::default();
    // A statement mostly adds a node or an edge or two: room for one of each per statement
    // saves the first few doublings.
    p.chart.nodes.reserve(count + 1);
    p.chart.edges.reserve(count);
    if start > 0 {
        // The title is drawn; any other setting (`config:`, `displayMode:`) is not.
        let mut other = false;
        for line in source[..start].lines().map(str::trim) {
            if let Some(t) = line.strip_prefix("title:") {
                let t = t.trim().trim_matches(['"', '\'']);
                p.chart.title = Some(label_text(t).0).filter(|t| !t.is_empty());
            } else if !line.is_empty() && line != "---" && !line.starts_with(['#', ' ']) {
                other |= !line.starts_with(char::is_whitespace);
            }
        }
        if other {
            p.chart.ignored.push("front matter config".into());
        }
    }
    if !directives.is_empty() {
        let t = directive::theme(&directives);
        let colour = |c: Option<Colour>| c.map(Paint::Colour);
        p.styling.theme_node = Style {
            fill: colour(t.primary_color),
            stroke: colour(t.primary_border_color),
            color: t.primary_text_color,
            ..Style::default()
        };
        p.styling.theme_edge = Style {
            stroke: colour(t.line_color),
            ..Style::default()
        };
        if !t.other.is_empty() {
            p.chart.ignored.push("init".into());
        }
    }
    let rest_of_header = header[keyword.len()..].trim_start();
    let (dir_word, after_dir) = match rest_of_header.split_once(char::is_whitespace) {
        Some((d, r)) => (d, r.trim()),
        None => (rest_of_header, ""),
    };
    if !dir_word.is_empty() {
        match Direction::parse(dir_word) {
            Some(d) => p.chart.direction = d,
            None => {
                return Some(Err(Unsupported {
                    offset: header_at + header.len() - rest_of_header.len(),
                    message: format!("{dir_word:?} is not a direction; use TD, TB, BT, LR or RL"),
                }));
            }
        }
    }
    // Statements are borrowed from `source` as they are parsed: none is copied.
    let after_header = (!after_dir.is_empty())
        .then(|| (header_at + header.find(after_dir).unwrap_or(0), after_dir));
    // Statements inside an `accDescr { … }` block are its text, up to this offset.
    let mut skip_to = 0;
    for (at, stmt) in after_header
        .into_iter()
        .chain(statements.map(|(a, s)| (a + start, s)))
    {
        if at < skip_to {
            continue;
        }
        if let Some(rest) = stmt.strip_prefix("accDescr")
            && rest.trim_start().starts_with('{')
        {
            let open = at + stmt.find('{').unwrap_or(0) + 1;
            let close = source[open..].find('}').map_or(source.len(), |i| open + i);
            let text: Vec<&str> = source[open..close]
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            p.chart.acc_descr = Some(text.join(" "));
            skip_to = close + 1;
            continue;
        }
        if let Err(e) = p.statement(stmt, at) {
            return Some(Err(e));
        }
    }
    if let Some(&open) = p.open.last() {
        let s = &p.chart.subgraphs[open];
        return Some(Err(Unsupported {
            offset: source.len(),
            message: format!(
                "subgraph {:?} is not closed with `end`",
                s.id.as_deref().unwrap_or(&s.title)
            ),
        }));
    }
    let mut chart = p.chart;
    p.styling.resolve(&mut chart);
    // A subgraph mentioned inside another is placed by its own `parent`, not as a member.
    let named: HashSet<String> = chart
        .subgraphs
        .iter()
        .filter_map(|s| s.id.clone())
        .collect();
    for s in &mut chart.subgraphs {
        s.members.retain(|m| !named.contains(m));
    }
    Some(Ok(chart))
}

/// Splits on newlines and `;` outside quotes and brackets; drops `%%` comments. A quoted
/// label inside brackets, and an `@{ … }` block, may run over several lines; a line that
/// starts with a link (`--> b`) continues the statement before it.
fn statements(source: &str) -> Vec<(usize, &str)> {
    let mut out = split_statements(source);
    let mut i = 1;
    while i < out.len() {
        let (at, s) = out[i];
        let (prev_at, prev) = out[i - 1];
        let continues = matches!(s.as_bytes()[0], b'-' | b'=' | b'~' | b'<' | b'&')
            && ["--", "==", "-.", "~~~", "<-", "<=", "<.", "&"]
                .iter()
                .any(|p| s.starts_with(p))
            && !matches!(prev.split_whitespace().next(), Some("subgraph" | "end"))
            && at > prev_at + prev.len()
            && only_comments(&source[prev_at + prev.len()..at]);
        if continues {
            out[i - 1] = (prev_at, &source[prev_at..at + s.len()]);
            out.remove(i);
        } else {
            i += 1;
        }
    }
    out
}

/// Whether the text between two statements is only line breaks, spaces and `%%` comment
/// lines: a link on the next line then continues the statement before.
fn only_comments(between: &str) -> bool {
    !between.contains(';')
        && between.lines().all(|l| {
            let l = l.trim();
            l.is_empty() || (l.starts_with("%%") && !l.starts_with("%%{"))
        })
}

fn split_statements(source: &str) -> Vec<(usize, &str)> {
    // At most one statement per separator, and one after the last: no growing.
    let mut out =
        Vec::with_capacity(memchr::memchr2_iter(b'\n', b';', source.as_bytes()).count() + 1);
    let mut start = 0;
    let mut depth = 0i32;
    let mut quoted = false;
    // The depth an `@{` opened at, while it is open.
    let mut attrs: Option<i32> = None;
    let bytes = source.as_bytes();
    // The bytes the match below acts on: runs of others are passed over at once.
    let acted_on = |b: u8| {
        matches!(
            b,
            b'"' | b'{' | b'[' | b'(' | b']' | b')' | b'}' | b'\n' | b'%' | b';'
        )
    };
    let mut i = 0;
    while i <= bytes.len() {
        while bytes.get(i).is_some_and(|&b| !acted_on(b)) {
            i += 1;
        }
        let b = bytes.get(i).copied();
        match b {
            Some(b'"') => quoted = !quoted,
            Some(b'{') if !quoted && i > 0 && bytes[i - 1] == b'@' => {
                depth += 1;
                attrs.get_or_insert(depth);
            }
            Some(b'[' | b'(' | b'{') if !quoted => depth += 1,
            Some(b']' | b')' | b'}') if !quoted => {
                if attrs == Some(depth) {
                    attrs = None;
                }
                depth = (depth - 1).max(0);
            }
            // A quoted label in brackets, or an `@{ … }`, goes on over the line's end; so
            // does a shape's label whose bracket closes on the next line.
            Some(b'\n')
                if depth > 0
                    && (((quoted || attrs.is_some()) && has_closer(bytes, i))
                        || (!quoted && next_line_closes(bytes, i))) => {}
            Some(b'%') if !quoted && bytes.get(i + 1) == Some(&b'%') => {
                push(&mut out, source, start, i);
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                start = i;
                depth = 0;
                continue;
            }
            None | Some(b'\n') => {
                push(&mut out, source, start, i);
                start = i + 1;
                depth = 0;
                quoted = false;
                attrs = None;
            }
            // `;` ends a statement, but not an entity (`Q&amp;A`).
            Some(b';') if !quoted && depth == 0 && !ends_entity(bytes, i) => {
                push(&mut out, source, start, i);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Whether the line after the line break at `i` closes a bracket (`]`, `)` or `}`) and
/// opens none: the rest of a label that went over its line's end.
fn next_line_closes(bytes: &[u8], i: usize) -> bool {
    let rest = &bytes[i + 1..];
    let line = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
    let close = line.iter().position(|b| matches!(b, b']' | b')' | b'}'));
    let open = line.iter().position(|b| matches!(b, b'[' | b'(' | b'{'));
    match (close, open) {
        (Some(c), Some(o)) => c < o,
        (Some(_), None) => true,
        _ => false,
    }
}

/// Whether the `;` at `i` ends an HTML entity: `&` then a name or `#` and digits.
fn ends_entity(bytes: &[u8], i: usize) -> bool {
    let from = i.saturating_sub(12);
    let Some(amp) = memchr::memrchr(b'&', &bytes[from..i]) else {
        return false;
    };
    let name = &bytes[from + amp + 1..i];
    let name = name.strip_prefix(b"#").unwrap_or(name);
    !name.is_empty() && name.iter().all(u8::is_ascii_alphanumeric)
}

/// Whether a `"`, `}`, `]` or `)` follows `i` at all: a label left open to the end is an
/// error on its own line, not the whole rest of the diagram.
fn has_closer(bytes: &[u8], i: usize) -> bool {
    memchr::memchr3(b'"', b'}', b']', &bytes[i..]).is_some()
}

fn push<'s>(out: &mut Vec<(usize, &'s str)>, source: &'s str, start: usize, end: usize) {
    let Some(raw) = source.get(start..end) else {
        return;
    };
    let trimmed = raw.trim_start();
    let lead = raw.len() - trimmed.len();
    let trimmed = trimmed.trim_end();
    if !trimmed.is_empty() {
        out.push((start + lead, trimmed));
    }
}

const IGNORED: [&str; 2] = ["click", "direction"];

/// The statements that colour nodes and edges.
const STYLING: [&str; 4] = ["style", "classDef", "class", "linkStyle"];

/// The node indices of an `&` group: mostly one node, so kept inline.
type Group = SmallVec<[usize; 4]>;

#[derive(Default)]
struct Parser {
    chart: Flowchart,
    /// The subgraphs open at this point, innermost last.
    open: Vec<usize>,
    /// Nodes already placed in a subgraph.
    placed: HashSet<String>,
    /// Scratch for `statement`: the node indices of the groups either side of an arrow.
    previous: Group,
    next: Group,
    /// Edge ids (`A e1@--> B`): `e1@{ … }` sets that edge's attributes, not a node's.
    edge_ids: HashSet<String>,
    styling: Styling,
    /// Each node's index by its id: a source of thousands of nodes is not searched through
    /// for each.
    index: HashMap<String, usize>,
    /// The ids Mermaid gives edges without one (`L_FROM_TO_0`), for the edges so far
    /// (`edge_ids_done` of them), with the count of each pair.
    auto_ids: HashSet<String>,
    pair_counts: HashMap<(usize, usize), usize>,
    auto_ids_done: usize,
}

impl Parser {
    fn statement(&mut self, stmt: &str, at: usize) -> Result<(), Unsupported> {
        let first = stmt.split_whitespace().next().unwrap_or("");
        if first == "direction"
            && let Some(&open) = self.open.last()
        {
            let word = stmt["direction".len()..].trim();
            let d = Direction::parse(word).ok_or_else(|| Unsupported {
                offset: at,
                message: format!("{word:?} is not a direction; use TB, BT, LR or RL"),
            })?;
            self.chart.subgraphs[open].direction = Some(d);
            return Ok(());
        }
        if IGNORED.contains(&first) {
            self.ignore(first);
            return Ok(());
        }
        if STYLING.contains(&first) {
            return self.styling.directive(first, stmt, at);
        }
        for (key, slot) in [
            ("accTitle", &mut self.chart.acc_title),
            ("accDescr", &mut self.chart.acc_descr),
        ]
        .into_iter()
        .filter(|_| stmt.starts_with("acc"))
        {
            if let Some(rest) = stmt.strip_prefix(key)
                && let Some(text) = rest.trim_start().strip_prefix(':')
            {
                *slot = Some(text.trim().to_string());
                return Ok(());
            }
        }
        // `e1@{ animate: true }` for an edge named `e1`.
        if memchr::memchr(b'@', stmt.as_bytes()).is_some()
            && let Some((id, rest)) = stmt.split_once("@{")
            && rest.trim_end().ends_with('}')
            && self.is_edge_id(id.trim())
        {
            self.ignore("edge attributes");
            return Ok(());
        }
        if first == "subgraph" {
            return self.subgraph(stmt, at);
        }
        if stmt == "end" {
            return match self.open.pop() {
                Some(_) => Ok(()),
                None => Err(Unsupported {
                    offset: at,
                    message: "`end` without an open subgraph".into(),
                }),
            };
        }
        let mut c = Cursor {
            s: stmt,
            pos: 0,
            base: at,
        };
        // The groups' node indices, in buffers reused from statement to statement.
        let mut previous = std::mem::take(&mut self.previous);
        let mut next = std::mem::take(&mut self.next);
        previous.clear();
        self.group(&mut c, &mut previous)?;
        loop {
            c.skip_ws();
            if c.at_end() {
                self.previous = previous;
                self.next = next;
                return Ok(());
            }
            // An edge id: `A e1@--> B`.
            let r = c.rest();
            let id_len = r
                .find(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '-'))
                .unwrap_or(r.len());
            if id_len > 0
                && r[id_len..].starts_with('@')
                && r[id_len + 1..].starts_with(['-', '=', '.', '~', '<', 'x', 'o'])
            {
                self.edge_ids.insert(r[..id_len].to_string());
                c.pos += id_len + 1;
            }
            let mut link = c.arrow()?;
            next.clear();
            self.group(&mut c, &mut next)?;
            let pairs = previous.len() * next.len();
            // `&` groups multiply: checked before a single edge of them is made.
            if self.chart.edges.len().saturating_add(pairs) > MAX_EDGES {
                return Err(Unsupported {
                    offset: c.base + c.pos,
                    message: format!(
                        "the `&` groups here join {} nodes to {}, which makes the diagram more than {MAX_EDGES} edges",
                        previous.len(),
                        next.len()
                    ),
                });
            }
            let mut n = 0;
            for &from in &previous {
                for &to in &next {
                    n += 1;
                    // The last edge of the group takes the label.
                    let label = if n == pairs {
                        link.label.take()
                    } else {
                        link.label.clone()
                    };
                    let (label, label_emphasis) = label.unzip();
                    self.chart.edges.push(Edge {
                        from,
                        to,
                        label,
                        label_emphasis: label_emphasis.unwrap_or_default(),
                        stroke: link.stroke,
                        start: link.start,
                        end: link.end,
                        length: link.length,
                    });
                }
            }
            std::mem::swap(&mut previous, &mut next);
        }
    }

    /// `subgraph id`, `subgraph id [title]`, `subgraph "title"`, `subgraph some title`.
    fn subgraph(&mut self, stmt: &str, at: usize) -> Result<(), Unsupported> {
        let after = &stmt["subgraph".len()..];
        let rest = after.trim();
        let base = at + stmt.len() - rest.len();
        // As Mermaid reads them: a title alone is also the id, unless it has a space in it
        // (or follows two spaces); then the subgraph has no id to point at.
        let (id, title) = if let Some(quoted) = rest.strip_prefix('"') {
            let title = quoted.strip_suffix('"').unwrap_or(quoted);
            let id = title.trim_matches('`');
            let id = (!id.is_empty() && !id.contains(char::is_whitespace)).then_some(id);
            let title = label_text(title);
            if let Some(id) = id {
                self.declare(id, &title.0);
            }
            (id.map(str::to_string), title)
        } else if rest.is_empty() {
            (None, (String::new(), Vec::new()))
        } else {
            let mut c = Cursor {
                s: rest,
                pos: 0,
                base,
            };
            match c.node()? {
                Some(mut parsed) => {
                    self.note_node(&parsed);
                    if parsed.label.is_none() {
                        // `subgraph id [title]`: the title may follow a space.
                        let before = c.pos;
                        c.skip_ws();
                        match c.shape()? {
                            Some((label, _, emphasis)) => {
                                parsed.label = Some(label);
                                parsed.emphasis = emphasis;
                            }
                            None => c.pos = before,
                        }
                    }
                    let tail = c.rest().trim();
                    let mut lead = after.chars();
                    let spaced = lead.next().is_some_and(char::is_whitespace)
                        && lead.next().is_some_and(char::is_whitespace);
                    match (&parsed.label, tail.is_empty() && !spaced) {
                        (Some(l), _) => {
                            let title = l.clone();
                            self.declare(parsed.id, &title);
                            (Some(parsed.id.to_string()), (title, parsed.emphasis))
                        }
                        (None, true) => {
                            self.declare(parsed.id, parsed.id);
                            let title = parsed.id.to_string();
                            (Some(parsed.id.to_string()), (title, Vec::new()))
                        }
                        // `subgraph Some title`: a title only.
                        (None, false) => (None, label_text(rest)),
                    }
                }
                None => (None, (rest.to_string(), Vec::new())),
            }
        };
        let (title, title_emphasis) = title;
        let existing = id.as_deref().and_then(|id| self.chart.subgraph_named(id));
        let index = match existing {
            Some(i) => i,
            None => {
                self.chart.subgraphs.push(Subgraph {
                    id,
                    title,
                    title_emphasis,
                    parent: self.open.last().copied(),
                    direction: None,
                    members: Vec::new(),
                });
                self.chart.subgraphs.len() - 1
            }
        };
        self.open.push(index);
        Ok(())
    }

    /// `A & B & C`: their node indices go to `ids`.
    fn group(&mut self, c: &mut Cursor, ids: &mut Group) -> Result<(), Unsupported> {
        loop {
            c.skip_ws();
            let Some(node) = c.node()? else {
                return Err(c.error(format!("expected a node id at {:?}", preview(c.rest()))));
            };
            self.note_node(&node);
            ids.push(self.add_node(node));
            c.skip_ws();
            if c.rest().starts_with('&') {
                c.pos += 1;
            } else {
                return Ok(());
            }
        }
    }

    /// Whether `id` names an edge: one given (`A e1@--> B`), or one Mermaid gives an edge
    /// that has none, `L_FROM_TO_0` (then `_2`, `_3`, … for the same pair again).
    fn is_edge_id(&mut self, id: &str) -> bool {
        if self.edge_ids.contains(id) {
            return true;
        }
        if !id.starts_with("L_") {
            return false;
        }
        // The ids of the edges made since the last look, each once.
        for e in &self.chart.edges[self.auto_ids_done..] {
            let n = self.pair_counts.entry((e.from, e.to)).or_insert(0);
            let k = if *n == 0 { 0 } else { *n + 1 };
            *n += 1;
            self.auto_ids.insert(format!(
                "L_{}_{}_{k}",
                self.chart.id_of(e.from),
                self.chart.id_of(e.to)
            ));
        }
        self.auto_ids_done = self.chart.edges.len();
        self.auto_ids.contains(id)
    }

    /// Records a directive ignored, once.
    fn ignore(&mut self, name: &str) {
        if !self.chart.ignored.iter().any(|n| n == name) {
            self.chart.ignored.push(name.to_string());
        }
    }

    fn note(&mut self, note: String) {
        if !self.chart.notes.contains(&note) {
            self.chart.notes.push(note);
        }
    }

    /// The warnings a node as written calls for: a class, an icon, an image, a shape name
    /// this engine does not know.
    fn note_node(&mut self, spec: &NodeSpec) {
        if let Some(class) = spec.class {
            self.styling.node_class(spec.id, class);
        }
        for n in &spec.notes {
            self.note(n.clone());
        }
    }

    /// A subgraph's id is a node too, but not a member of the enclosing subgraph.
    fn declare(&mut self, id: &str, title: &str) {
        match self.index.get(id) {
            Some(&i) => self.chart.nodes[i].label = title.to_string(),
            None => {
                self.index.insert(id.to_string(), self.chart.nodes.len());
                self.chart.nodes.push(Node {
                    id: id.to_string(),
                    label: title.to_string(),
                    shape: Shape::Rect,
                    emphasis: Vec::new(),
                });
            }
        }
    }

    /// Adds or updates the node, returning its index.
    fn add_node(&mut self, spec: NodeSpec) -> usize {
        if let Some(&open) = self.open.last()
            && !self.placed.contains(spec.id)
            && self.chart.subgraphs[open].id.as_deref() != Some(spec.id)
        {
            self.placed.insert(spec.id.to_string());
            self.chart.subgraphs[open].members.push(spec.id.to_string());
        }
        match self.index.get(spec.id).copied() {
            Some(i) => {
                let n = &mut self.chart.nodes[i];
                if let Some(l) = spec.label {
                    n.label = l;
                    n.emphasis = spec.emphasis;
                }
                if let Some(s) = spec.shape {
                    n.shape = s;
                }
                i
            }
            None => {
                self.index
                    .insert(spec.id.to_string(), self.chart.nodes.len());
                self.chart.nodes.push(Node {
                    label: spec.label.unwrap_or_else(|| spec.id.to_string()),
                    shape: spec.shape.unwrap_or_default(),
                    id: spec.id.to_string(),
                    emphasis: spec.emphasis,
                });
                self.chart.nodes.len() - 1
            }
        }
    }
}
