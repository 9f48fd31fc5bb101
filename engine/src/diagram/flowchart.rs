//! A parser for the Mermaid flowchart grammar people actually write: enough to know every node
//! and edge of a diagram, so a reviewer's comment can be pinned to one and checked against it,
//! and enough to draw it: node shapes, edge kinds, subgraphs.
//!
//! Node and edge order is part of the answers format (`bN.node.I`, `bN.edge.I`): nodes in
//! order of first appearance (a subgraph's id counts as a node), edges in source order with
//! chains and `&` groups expanded left to right.

use smallvec::SmallVec;
use std::collections::HashSet;

/// A flowchart's nodes (in order of first appearance) and edges (in source order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Flowchart {
    pub direction: Direction,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    /// Subgraphs in order of declaration; a nested one names its parent.
    pub subgraphs: Vec<Subgraph>,
    /// Directives that were recognised and ignored (`click`, `style`, `init`, …), each once,
    /// in the order each first appears.
    pub ignored: Vec<String>,
    /// Other things read but not drawn as written (an icon, an unknown shape name), each once,
    /// as a sentence for a warning.
    pub notes: Vec<String>,
    /// The front matter's `title:`, drawn above the diagram.
    pub title: Option<String>,
    /// `accTitle:` and `accDescr:`: the SVG's accessible name and description.
    pub acc_title: Option<String>,
    pub acc_descr: Option<String>,
}

impl Flowchart {
    /// Per edge: how many earlier edges join the same `from` to the same `to` (0 for the first
    /// of a pair, 1 for the second, …). Edge keys and comment fields both number repeated
    /// pairs by this.
    pub fn edge_occurrences(&self) -> Vec<usize> {
        // Most charts have a few edges: counting the earlier copies of each costs less than
        // hashing every pair.
        if self.edges.len() <= 32 {
            return self
                .edges
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    self.edges[..i]
                        .iter()
                        .filter(|p| p.from == e.from && p.to == e.to)
                        .count()
                })
                .collect();
        }
        let mut seen: std::collections::HashMap<(usize, usize), usize> =
            std::collections::HashMap::with_capacity(self.edges.len());
        self.edges
            .iter()
            .map(|e| {
                let n = seen.entry((e.from, e.to)).or_insert(0);
                *n += 1;
                *n - 1
            })
            .collect()
    }

    /// The id of node `node` (an index into `nodes`, as an edge's ends are).
    pub fn id_of(&self, node: usize) -> &str {
        &self.nodes[node].id
    }

    /// The label of node `id` (the id itself when unknown).
    pub fn label_of<'a>(&'a self, id: &'a str) -> &'a str {
        self.nodes
            .iter()
            .find(|n| n.id == id)
            .map_or(id, |n| n.label.as_str())
    }

    /// The subgraph whose id is `id`, if `id` names one.
    pub fn subgraph_named(&self, id: &str) -> Option<usize> {
        self.subgraphs
            .iter()
            .position(|s| s.id.as_deref() == Some(id))
    }
}

/// Which way the ranks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    /// `TD` / `TB`
    #[default]
    TopDown,
    /// `BT`
    BottomUp,
    /// `LR`
    LeftRight,
    /// `RL`
    RightLeft,
}

impl Direction {
    fn parse(word: &str) -> Option<Direction> {
        Some(match word {
            "TD" | "TB" | "v" => Direction::TopDown,
            "BT" | "^" => Direction::BottomUp,
            "LR" | ">" => Direction::LeftRight,
            "RL" | "<" => Direction::RightLeft,
            _ => return None,
        })
    }

    /// Whether ranks run horizontally.
    pub fn is_horizontal(self) -> bool {
        matches!(self, Direction::LeftRight | Direction::RightLeft)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub id: String,
    /// The label (the id when the node has no shape text), as plain text: line breaks
    /// (`<br>`, a new line in a markdown string) are `\n`, HTML tags and icons dropped,
    /// entity codes decoded.
    pub label: String,
    pub shape: Shape,
    /// Bold and italic byte ranges of `label`, from a markdown string (`"`**a** b`"`).
    pub emphasis: Vec<Emphasis>,
}

/// A run of a label drawn bold and/or italic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Emphasis {
    pub start: usize,
    pub end: usize,
    pub bold: bool,
    pub italic: bool,
}

/// The node shapes of the Mermaid flowchart grammar: by their brackets, then the others of
/// Mermaid's shape table (`@{ shape: … }`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shape {
    /// `A[text]` (and a bare `A`)
    #[default]
    Rect,
    /// `A(text)`
    Round,
    /// `A([text])`
    Stadium,
    /// `A[[text]]`
    Subroutine,
    /// `A[(text)]`
    Cylinder,
    /// `A((text))`
    Circle,
    /// `A(((text)))`
    DoubleCircle,
    /// `A>text]`
    Asymmetric,
    /// `A{text}`
    Rhombus,
    /// `A{{text}}`
    Hexagon,
    /// `A[/text/]`
    Parallelogram,
    /// `A[\text\]`
    ParallelogramAlt,
    /// `A[/text\]`
    Trapezoid,
    /// `A[\text/]`
    TrapezoidAlt,
    /// `@{ shape: notch-rect }` (card)
    NotchedRect,
    /// `@{ shape: lin-rect }` (lined or shaded process)
    LinedRect,
    /// `@{ shape: div-rect }` (divided process)
    DividedRect,
    /// `@{ shape: win-pane }` (internal storage)
    WindowPane,
    /// `@{ shape: tag-rect }` (tagged process)
    TaggedRect,
    /// `@{ shape: st-rect }` (processes)
    StackedRect,
    /// `@{ shape: sl-rect }` (manual input)
    SlopedRect,
    /// `@{ shape: bow-rect }` (stored data)
    BowTieRect,
    /// `@{ shape: notch-pent }` (loop limit)
    LoopLimit,
    /// `@{ shape: delay }` (half-rounded rectangle)
    Delay,
    /// `@{ shape: curv-trap }` (display)
    CurvedTrapezoid,
    /// `@{ shape: doc }`
    Document,
    /// `@{ shape: lin-doc }`
    LinedDocument,
    /// `@{ shape: tag-doc }`
    TaggedDocument,
    /// `@{ shape: docs }` (documents)
    StackedDocument,
    /// `@{ shape: flag }` (paper tape)
    PaperTape,
    /// `@{ shape: h-cyl }` (direct access storage)
    HorizontalCylinder,
    /// `@{ shape: lin-cyl }` (disk)
    LinedCylinder,
    /// `@{ shape: tri }` (extract)
    Triangle,
    /// `@{ shape: flip-tri }` (manual file)
    FlippedTriangle,
    /// `@{ shape: sm-circ }` (start)
    SmallCircle,
    /// `@{ shape: f-circ }` (junction)
    FilledCircle,
    /// `@{ shape: fr-circ }` (stop)
    FramedCircle,
    /// `@{ shape: cross-circ }` (summary)
    CrossedCircle,
    /// `@{ shape: fork }` (join) where ranks run down or up: a bar across
    Fork,
    /// `@{ shape: fork }` where ranks run sideways: a bar upright
    ForkSideways,
    /// `@{ shape: hourglass }` (collate)
    Hourglass,
    /// `@{ shape: bolt }` (communication link)
    Bolt,
    /// `@{ shape: brace }` (comment)
    BraceLeft,
    /// `@{ shape: brace-r }`
    BraceRight,
    /// `@{ shape: braces }`
    Braces,
    /// `@{ shape: text }`: the label alone
    Text,
    /// `@{ shape: datastore }`: lines above and below, open at the sides
    DataStore,
    /// `@{ shape: cloud }`
    Cloud,
    /// `@{ shape: bang }`
    Bang,
}

#[cfg(test)]
impl Shape {
    /// Every shape, for tests and the golden diagrams.
    pub const ALL: [Shape; 49] = [
        Shape::Rect,
        Shape::Round,
        Shape::Stadium,
        Shape::Subroutine,
        Shape::Cylinder,
        Shape::Circle,
        Shape::DoubleCircle,
        Shape::Asymmetric,
        Shape::Rhombus,
        Shape::Hexagon,
        Shape::Parallelogram,
        Shape::ParallelogramAlt,
        Shape::Trapezoid,
        Shape::TrapezoidAlt,
        Shape::NotchedRect,
        Shape::LinedRect,
        Shape::DividedRect,
        Shape::WindowPane,
        Shape::TaggedRect,
        Shape::StackedRect,
        Shape::SlopedRect,
        Shape::BowTieRect,
        Shape::LoopLimit,
        Shape::Delay,
        Shape::CurvedTrapezoid,
        Shape::Document,
        Shape::LinedDocument,
        Shape::TaggedDocument,
        Shape::StackedDocument,
        Shape::PaperTape,
        Shape::HorizontalCylinder,
        Shape::LinedCylinder,
        Shape::Triangle,
        Shape::FlippedTriangle,
        Shape::SmallCircle,
        Shape::FilledCircle,
        Shape::FramedCircle,
        Shape::CrossedCircle,
        Shape::Fork,
        Shape::ForkSideways,
        Shape::Hourglass,
        Shape::Bolt,
        Shape::BraceLeft,
        Shape::BraceRight,
        Shape::Braces,
        Shape::Text,
        Shape::DataStore,
        Shape::Cloud,
        Shape::Bang,
    ];

    /// A stable lowercase name (used in class names).
    pub fn name(self) -> &'static str {
        match self {
            Shape::Rect => "rect",
            Shape::Round => "round",
            Shape::Stadium => "stadium",
            Shape::Subroutine => "subroutine",
            Shape::Cylinder => "cylinder",
            Shape::Circle => "circle",
            Shape::DoubleCircle => "double-circle",
            Shape::Asymmetric => "asymmetric",
            Shape::Rhombus => "rhombus",
            Shape::Hexagon => "hexagon",
            Shape::Parallelogram => "parallelogram",
            Shape::ParallelogramAlt => "parallelogram-alt",
            Shape::Trapezoid => "trapezoid",
            Shape::TrapezoidAlt => "trapezoid-alt",
            Shape::NotchedRect => "notch-rect",
            Shape::LinedRect => "lin-rect",
            Shape::DividedRect => "div-rect",
            Shape::WindowPane => "win-pane",
            Shape::TaggedRect => "tag-rect",
            Shape::StackedRect => "st-rect",
            Shape::SlopedRect => "sl-rect",
            Shape::BowTieRect => "bow-rect",
            Shape::LoopLimit => "notch-pent",
            Shape::Delay => "delay",
            Shape::CurvedTrapezoid => "curv-trap",
            Shape::Document => "doc",
            Shape::LinedDocument => "lin-doc",
            Shape::TaggedDocument => "tag-doc",
            Shape::StackedDocument => "docs",
            Shape::PaperTape => "flag",
            Shape::HorizontalCylinder => "h-cyl",
            Shape::LinedCylinder => "lin-cyl",
            Shape::Triangle => "tri",
            Shape::FlippedTriangle => "flip-tri",
            Shape::SmallCircle => "sm-circ",
            Shape::FilledCircle => "f-circ",
            Shape::FramedCircle => "fr-circ",
            Shape::CrossedCircle => "cross-circ",
            Shape::Fork => "fork",
            Shape::ForkSideways => "fork",
            Shape::Hourglass => "hourglass",
            Shape::Bolt => "bolt",
            Shape::BraceLeft => "brace",
            Shape::BraceRight => "brace-r",
            Shape::Braces => "braces",
            Shape::Text => "text",
            Shape::DataStore => "datastore",
            Shape::Cloud => "cloud",
            Shape::Bang => "bang",
        }
    }
}

/// How an edge's line is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stroke {
    /// `--`
    #[default]
    Solid,
    /// `-.-`
    Dotted,
    /// `==`
    Thick,
    /// `~~~`: takes part in the layout, is not drawn.
    Invisible,
}

/// What an edge's end looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Marker {
    #[default]
    None,
    /// `>` (or `<` at the start)
    Arrow,
    /// `x`
    Cross,
    /// `o`
    Circle,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    /// The node it starts at, as an index into `Flowchart::nodes` (ids are looked up there
    /// only where they are written out).
    pub from: usize,
    /// The node it ends at, as `from` is given.
    pub to: usize,
    pub label: Option<String>,
    /// Bold and italic runs of a markdown label, as byte ranges of `label`.
    pub label_emphasis: Vec<Emphasis>,
    pub stroke: Stroke,
    /// The marker at `from`.
    pub start: Marker,
    /// The marker at `to`.
    pub end: Marker,
    /// How many ranks it spans at least: 1 for `-->`, 2 for `--->`, 3 for `---->`.
    pub length: usize,
}

/// `subgraph id [title] … end`.
#[derive(Debug, Clone, PartialEq)]
pub struct Subgraph {
    /// The id, when it has one (`subgraph "Only a title"` has none). An id is also a node,
    /// so edges and comments can point at the subgraph.
    pub id: Option<String>,
    pub title: String,
    /// Bold and italic runs of a markdown title, as byte ranges of `title`.
    pub title_emphasis: Vec<Emphasis>,
    /// The enclosing subgraph.
    pub parent: Option<usize>,
    /// `direction LR` inside the subgraph.
    pub direction: Option<Direction>,
    /// Node ids that belong directly to this subgraph (not to a nested one), in order of
    /// first mention. A node belongs to the first subgraph that mentions it.
    pub members: Vec<String>,
}

/// Most edges a flowchart may have once its `&` groups are expanded. A source within the
/// mermaid block's 8 KB limit that writes every edge out has fewer than 2100 (`a-->b-->c…`, four
/// bytes an edge); only `&` groups, which join every node on one side with every node on the
/// other, go past it (`l0 & … & l586 --> r0 & … & r586` is 344,569 edges in 8 KB).
pub const MAX_EDGES: usize = 4096;

/// Why a source is not a flowchart this parser can read, and where (byte offset).
#[derive(Debug, Clone, PartialEq)]
pub struct Unsupported {
    pub offset: usize,
    pub message: String,
}

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
    let start = body_start(source);
    let (_, first) = statements(&source[start..]).into_iter().next()?;
    first.split_whitespace().next()
}

/// `graph`, `flowchart`, and `flowchart-elk` (a flowchart Mermaid lays out with ELK; we lay
/// it out as any other).
pub fn is_flowchart_keyword(keyword: &str) -> bool {
    matches!(keyword, "graph" | "flowchart" | "flowchart-elk")
}

/// `None` when the source is another diagram type (sequence, class, …): those take only
/// whole-diagram comments.
pub fn parse(source: &str) -> Option<Result<Flowchart, Unsupported>> {
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
    if source.contains("%%{") {
        p.chart.ignored.push("init".into());
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
            && !source[prev_at + prev.len()..at].contains(['%', ';']);
        if continues {
            out[i - 1] = (prev_at, &source[prev_at..at + s.len()]);
            out.remove(i);
        } else {
            i += 1;
        }
    }
    out
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
            // A quoted label in brackets, or an `@{ … }`, goes on over the line's end.
            Some(b'\n') if depth > 0 && (quoted || attrs.is_some()) && has_closer(bytes, i) => {}
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
            Some(b';') if !quoted && depth == 0 => {
                push(&mut out, source, start, i);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out
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

const IGNORED: [&str; 6] = [
    "click",
    "style",
    "classDef",
    "class",
    "linkStyle",
    "direction",
];

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
    fn is_edge_id(&self, id: &str) -> bool {
        if self.edge_ids.contains(id) {
            return true;
        }
        if !id.starts_with("L_") {
            return false;
        }
        let mut seen: Vec<(usize, usize)> = Vec::new();
        self.chart.edges.iter().any(|e| {
            let n = seen.iter().filter(|p| **p == (e.from, e.to)).count();
            seen.push((e.from, e.to));
            let k = if n == 0 { 0 } else { n + 1 };
            id == format!(
                "L_{}_{}_{k}",
                self.chart.id_of(e.from),
                self.chart.id_of(e.to)
            )
        })
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
        if spec.class {
            self.ignore(":::");
        }
        for n in &spec.notes {
            self.note(n.clone());
        }
    }

    /// A subgraph's id is a node too, but not a member of the enclosing subgraph.
    fn declare(&mut self, id: &str, title: &str) {
        match self.chart.nodes.iter_mut().find(|n| n.id == id) {
            Some(n) => n.label = title.to_string(),
            None => self.chart.nodes.push(Node {
                id: id.to_string(),
                label: title.to_string(),
                shape: Shape::Rect,
                emphasis: Vec::new(),
            }),
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
        match self.chart.nodes.iter().position(|n| n.id == spec.id) {
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

/// A node as written: the id is borrowed from the source, and copied only for a new node.
struct NodeSpec<'s> {
    id: &'s str,
    label: Option<String>,
    shape: Option<Shape>,
    emphasis: Vec<Emphasis>,
    /// Whether a `:::class` follows.
    class: bool,
    /// Warnings about it (an icon, an unknown shape name).
    notes: Vec<String>,
}

struct Link {
    /// The label's text and its emphasis.
    label: Option<(String, Vec<Emphasis>)>,
    stroke: Stroke,
    start: Marker,
    end: Marker,
    length: usize,
}

struct Cursor<'s> {
    s: &'s str,
    pos: usize,
    base: usize,
}

/// Openers, longest first, with their closers and shapes.
const SHAPES: [(&str, &[(&str, Shape)]); 12] = [
    ("(((", &[(")))", Shape::DoubleCircle)]),
    ("((", &[("))", Shape::Circle)]),
    ("([", &[("])", Shape::Stadium)]),
    ("[(", &[(")]", Shape::Cylinder)]),
    ("[[", &[("]]", Shape::Subroutine)]),
    ("{{", &[("}}", Shape::Hexagon)]),
    (
        "[/",
        &[("/]", Shape::Parallelogram), ("\\]", Shape::Trapezoid)],
    ),
    (
        "[\\",
        &[
            ("\\]", Shape::ParallelogramAlt),
            ("/]", Shape::TrapezoidAlt),
        ],
    ),
    ("[", &[("]", Shape::Rect)]),
    ("(", &[(")", Shape::Round)]),
    ("{", &[("}", Shape::Rhombus)]),
    (">", &[("]", Shape::Asymmetric)]),
];

impl<'s> Cursor<'s> {
    fn rest(&self) -> &'s str {
        &self.s[self.pos..]
    }

    fn at_end(&self) -> bool {
        self.pos >= self.s.len()
    }

    fn skip_ws(&mut self) {
        // ASCII white space (as `char::is_whitespace` has it) byte by byte; past anything
        // else non-ASCII, as `trim_start` sees it.
        let bytes = self.s.as_bytes();
        while let Some(b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r') = bytes.get(self.pos) {
            self.pos += 1;
        }
        if bytes.get(self.pos).is_some_and(|b| !b.is_ascii()) {
            let r = self.rest();
            self.pos += r.len() - r.trim_start().len();
        }
    }

    fn error(&self, message: String) -> Unsupported {
        Unsupported {
            offset: self.base + self.pos,
            message,
        }
    }

    /// An id with an optional shape and label: `A`, `A[Text]`, `B{"Quoted"}`, `C((Round))`.
    /// Ids may hold `-` and `.` between their letters (`my-node`, `P1.5`), never where a link
    /// starts (`A-->B`, `A-.->B`).
    fn node(&mut self) -> Result<Option<NodeSpec<'s>>, Unsupported> {
        let start = self.pos;
        let r = self.rest();
        let bytes = r.as_bytes();
        let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
        let mut id_len = 0;
        for (i, c) in r.char_indices() {
            if word(c) {
                id_len = i + c.len_utf8();
            } else if (c == '-' || c == '.')
                && id_len == i
                && i > 0
                && r[i + 1..].starts_with(word)
                // `A-x B`, `A-o B`: not a link either way; `a-b` is an id.
                && !(c == '-' && bytes.get(i + 1) == Some(&b'-'))
            {
                continue;
            } else {
                break;
            }
        }
        if id_len == 0 {
            return Ok(None);
        }
        let id = &r[..id_len];
        self.pos += id_len;
        let mut spec = NodeSpec {
            id,
            label: None,
            shape: None,
            emphasis: Vec::new(),
            class: false,
            notes: Vec::new(),
        };
        if self.rest().starts_with("@{") {
            self.attributes(&mut spec)?;
        } else if let Some((l, s, em)) = self.shape()? {
            spec.label = Some(l);
            spec.shape = Some(s);
            spec.emphasis = em;
        }
        if self.rest().starts_with(":::") {
            let skip = self.rest()[3..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
                .map_or(self.rest().len(), |i| i + 3);
            self.pos += skip;
            spec.class = true;
        }
        let written = &self.s[start..self.pos];
        // An icon needs a colon: most nodes are passed over by one byte search.
        if memchr::memchr(b':', written.as_bytes()).is_some()
            && !written.contains("@{")
            && has_icon(written)
        {
            spec.notes.push(
                "Font Awesome icons (`fa:…`) are not drawn: the label is shown without them".into(),
            );
        }
        Ok(Some(spec))
    }

    /// `@{ shape: cyl, label: "Database" }`: the shape (by Mermaid's name, or rect with a
    /// warning for one unknown here) and the label; `icon` and `img` are named in a warning.
    fn attributes(&mut self, spec: &mut NodeSpec) -> Result<(), Unsupported> {
        let body_start = self.pos + 2;
        let bytes = self.s.as_bytes();
        let mut quoted = false;
        let mut end = None;
        for (i, &b) in bytes.iter().enumerate().skip(body_start) {
            match b {
                b'"' => quoted = !quoted,
                b'}' if !quoted => {
                    end = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let Some(end) = end else {
            return Err(self.error("`@{` is not closed with `}`".into()));
        };
        let body = &self.s[body_start..end];
        self.pos = end + 1;
        for (key, value) in attribute_pairs(body) {
            match key {
                "shape" => {
                    let shape = shape_named(value);
                    if shape.is_none() {
                        spec.notes.push(format!(
                            "shape `{value}` is not one this engine draws: it is drawn as a rectangle"
                        ));
                    }
                    spec.shape = Some(shape.unwrap_or(Shape::Rect));
                }
                "label" => {
                    let (text, em) = label_text(value);
                    spec.label = Some(text);
                    spec.emphasis = em;
                }
                "icon" => spec
                    .notes
                    .push(format!("icon `{value}` is not drawn: only the label is")),
                "img" => spec
                    .notes
                    .push("images (`img:`) are not drawn: only the label is".into()),
                _ => {}
            }
        }
        if spec.shape.is_none() {
            spec.shape = Some(Shape::Rect);
        }
        Ok(())
    }

    /// A bracketed label right here, with the shape its brackets name and the label's bold
    /// and italic runs.
    fn shape(&mut self) -> Result<Option<(String, Shape, Vec<Emphasis>)>, Unsupported> {
        let Some((open, closers)) = SHAPES.iter().find(|(o, _)| self.rest().starts_with(o)) else {
            return Ok(None);
        };
        self.pos += open.len();
        let closer_at = |s: &str| {
            closers
                .iter()
                .filter_map(|(c, sh)| find_ascii(s, c).map(|i| (i, *c, *sh)))
                .min_by_key(|(i, _, _)| *i)
        };
        // Only an error names them.
        let expected = || {
            closers
                .iter()
                .map(|(c, _)| *c)
                .collect::<Vec<_>>()
                .join(" or ")
        };
        if self.rest().starts_with('"') {
            let end = self.rest()[1..]
                .find('"')
                .ok_or_else(|| self.error("a quoted label is not closed".into()))?;
            let (text, em) = label_text(&self.rest()[1..1 + end]);
            self.pos += end + 2;
            self.skip_ws();
            let Some((_, c, sh)) = closer_at(self.rest()).filter(|(i, _, _)| *i == 0) else {
                return Err(self.error(format!("expected {} after a quoted label", expected())));
            };
            self.pos += c.len();
            Ok(Some((text, sh, em)))
        } else {
            let (end, c, sh) = closer_at(self.rest())
                .ok_or_else(|| self.error(format!("a shape is not closed with {}", expected())))?;
            let (text, em) = label_text(self.rest()[..end].trim());
            self.pos += end + c.len();
            Ok(Some((text, sh, em)))
        }
    }

    /// An edge operator with its optional label: `-->`, `-->|x|`, `-- x -->`, `-. x .->`,
    /// `== x ==>`, `---`, `-.->`, `==>`, `<-->`, `--x`, `--o`, `~~~`.
    fn arrow(&mut self) -> Result<Link, Unsupported> {
        let r = self.rest();
        let not_arrow = || self.error(format!("expected an arrow such as --> at {:?}", preview(r)));
        let start_len =
            usize::from(r.starts_with(['<', 'x', 'o']) && r[1..].starts_with(['-', '=', '.']));
        let start = marker(
            r.as_bytes().first().copied().filter(|_| start_len == 1),
            true,
        );
        let body_len = r[start_len..]
            .bytes()
            .take_while(|c| matches!(c, b'-' | b'=' | b'.' | b'~'))
            .count();
        let body = &r[start_len..start_len + body_len];
        let after = &r[start_len + body_len..];
        let end_char = end_marker_at(after);
        // Borrowed until it is final: one copy, with its line breaks.
        let mut label: Option<&str> = None;
        let mut link = Link {
            label: None,
            stroke: Stroke::Solid,
            start,
            end: Marker::None,
            length: 1,
        };
        // Either a whole link (`-->`, `-.-`, `==x`, `~~~`) or the opener of a labelled one
        // (`--`, `-.`, `==`) whose text runs to the matching closer.
        let opener = if body.len() >= 3 && body.bytes().all(|c| c == b'~') {
            link.stroke = Stroke::Invisible;
            None
        } else if body.len() >= 2 && body.bytes().all(|c| c == b'-') {
            if end_char.is_none() && body.len() == 2 {
                Some(Stroke::Solid)
            } else {
                None
            }
        } else if body.len() >= 2 && body.bytes().all(|c| c == b'=') {
            link.stroke = Stroke::Thick;
            if end_char.is_none() && body.len() == 2 {
                Some(Stroke::Thick)
            } else {
                None
            }
        } else if is_dotted(body) {
            link.stroke = Stroke::Dotted;
            None
        } else if body.starts_with("-.") && body[1..].bytes().all(|c| c == b'.') {
            Some(Stroke::Dotted)
        } else {
            return Err(not_arrow());
        };
        match opener {
            None => {
                if link.stroke != Stroke::Invisible {
                    link.end = marker(end_char, false);
                }
                link.length = match link.stroke {
                    Stroke::Dotted => body.bytes().filter(|&c| c == b'.').count(),
                    _ if end_char.is_some() && link.stroke != Stroke::Invisible => body_len - 1,
                    _ => body_len.saturating_sub(2),
                };
                self.pos += start_len + body_len + usize::from(end_char.is_some());
            }
            Some(stroke) => {
                let rest = &r[start_len + body_len..];
                let (at, len, end) = closer(rest, stroke).ok_or_else(|| {
                    self.error(format!(
                        "an edge label after {body} must end with an arrow such as {}",
                        match stroke {
                            Stroke::Thick => "==>",
                            Stroke::Dotted => ".->",
                            _ => "-->",
                        }
                    ))
                })?;
                link.stroke = stroke;
                link.end = end;
                let has_end = usize::from(end != Marker::None);
                link.length = match stroke {
                    Stroke::Dotted => len - has_end - 1,
                    _ if has_end == 1 => len - 2,
                    _ => len.saturating_sub(2),
                };
                label = Some(rest[..at].trim());
                self.pos += start_len + body_len + at + len;
            }
        }
        self.skip_ws();
        if self.rest().starts_with('|') {
            let end = self.rest()[1..]
                .find('|')
                .ok_or_else(|| self.error("an edge label |…| is not closed".into()))?;
            let raw = self.rest()[1..1 + end].trim();
            let unquoted = raw
                .strip_prefix('"')
                .and_then(|r| r.strip_suffix('"'))
                .unwrap_or(raw);
            label = Some(unquoted);
            self.pos += end + 2;
        }
        link.label = label.filter(|l| !l.is_empty()).map(|l| {
            let l = l.trim();
            let unquoted = l
                .strip_prefix('"')
                .and_then(|r| r.strip_suffix('"'))
                .unwrap_or(l);
            label_text(unquoted)
        });
        link.length = link.length.clamp(1, MAX_LENGTH);
        Ok(link)
    }
}

/// Where `needle` (ASCII, not empty) first occurs in `hay`, as `str::find` gives it: its
/// first byte found with `memchr`, then the rest compared. A closer is a byte or two, and
/// `str::find` sets up a two-way search for every call.
fn find_ascii(hay: &str, needle: &str) -> Option<usize> {
    let (&first, rest) = needle.as_bytes().split_first()?;
    let bytes = hay.as_bytes();
    let mut from = 0;
    while let Some(i) = memchr::memchr(first, &bytes[from..]) {
        let at = from + i;
        if bytes[at + 1..].starts_with(rest) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// `-.-`, `-..-`, `.-` (optionally followed by an end marker).
fn is_dotted(body: &str) -> bool {
    let b = body.strip_prefix('-').unwrap_or(body);
    let Some(dots) = b.strip_suffix('-') else {
        return false;
    };
    !dots.is_empty() && dots.bytes().all(|c| c == b'.')
}

/// The end marker character that follows a link body: `>` always; `x` and `o` only when they
/// are not the start of the next id.
fn end_marker_at(after: &str) -> Option<u8> {
    let b = *after.as_bytes().first()?;
    match b {
        b'>' => Some(b),
        b'x' | b'o' if !after[1..].starts_with(|c: char| c.is_alphanumeric() || c == '_') => {
            Some(b)
        }
        _ => None,
    }
}

fn marker(c: Option<u8>, at_start: bool) -> Marker {
    match c {
        Some(b'>') if !at_start => Marker::Arrow,
        Some(b'<') if at_start => Marker::Arrow,
        Some(b'x') => Marker::Cross,
        Some(b'o') => Marker::Circle,
        _ => Marker::None,
    }
}

/// Where the closer of a labelled link starts in `rest`, its length and its end marker.
fn closer(rest: &str, stroke: Stroke) -> Option<(usize, usize, Marker)> {
    let bytes = rest.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let found = match stroke {
            Stroke::Dotted => {
                // `.-`, `..->`, `.-x`
                let dots = bytes[i..].iter().take_while(|&&c| c == b'.').count();
                (dots > 0 && bytes.get(i + dots) == Some(&b'-')).then_some(dots + 1)
            }
            _ => {
                let ch = if stroke == Stroke::Thick { b'=' } else { b'-' };
                let run = bytes[i..].iter().take_while(|&&c| c == ch).count();
                (run >= 2).then_some(run)
            }
        };
        if let Some(len) = found {
            let end = end_marker_at(&rest[i + len..]);
            let long_enough = stroke == Stroke::Dotted || len >= 3;
            if end.is_some() || long_enough {
                let total = len + usize::from(end.is_some());
                return Some((i, total, marker(end, false)));
            }
            i += len;
            continue;
        }
        i += 1;
    }
    None
}

/// The most ranks one link may ask to span (`-------->`).
const MAX_LENGTH: usize = 8;

/// Whether a label holds a Font Awesome icon (`fa:fa-car`, `fab:fa-github`).
fn has_icon(s: &str) -> bool {
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
        .any(|b| matches!(b, b'<' | b'#' | b'`' | b':' | b'\n'))
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

/// Mermaid's entity codes: `#35;` (decimal), `#quot;` and other HTML names.
fn entities(text: &str) -> String {
    if !text.contains('#') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('#') {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 1..];
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
                out.push('#');
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

/// The shape Mermaid's `@{ shape: … }` name stands for, by its short name or an alias (the
/// flowchart page's shape table); `None` for a name not in the table.
fn shape_named(name: &str) -> Option<Shape> {
    Some(match name {
        "rect" | "proc" | "process" | "rectangle" => Shape::Rect,
        "rounded" | "event" => Shape::Round,
        "stadium" | "pill" | "terminal" => Shape::Stadium,
        "fr-rect" | "framed-rectangle" | "subproc" | "subprocess" | "subroutine" => {
            Shape::Subroutine
        }
        "cyl" | "cylinder" | "database" | "db" => Shape::Cylinder,
        "circle" | "circ" => Shape::Circle,
        "dbl-circ" | "double-circle" => Shape::DoubleCircle,
        "odd" => Shape::Asymmetric,
        "diam" | "decision" | "diamond" | "question" => Shape::Rhombus,
        "hex" | "hexagon" | "prepare" => Shape::Hexagon,
        "lean-r" | "in-out" | "lean-right" => Shape::Parallelogram,
        "lean-l" | "lean-left" | "out-in" => Shape::ParallelogramAlt,
        "trap-b" | "priority" | "trapezoid" | "trapezoid-bottom" => Shape::Trapezoid,
        "trap-t" | "inv-trapezoid" | "manual" | "trapezoid-top" => Shape::TrapezoidAlt,
        "notch-rect" | "card" | "notched-rectangle" => Shape::NotchedRect,
        "lin-rect" | "lin-proc" | "lined-process" | "lined-rectangle" | "shaded-process" => {
            Shape::LinedRect
        }
        "div-rect" | "div-proc" | "divided-process" | "divided-rectangle" => Shape::DividedRect,
        "win-pane" | "internal-storage" | "window-pane" => Shape::WindowPane,
        "tag-rect" | "tag-proc" | "tagged-process" | "tagged-rectangle" => Shape::TaggedRect,
        "st-rect" | "processes" | "procs" | "stacked-rectangle" => Shape::StackedRect,
        "sl-rect" | "manual-input" | "sloped-rectangle" => Shape::SlopedRect,
        "bow-rect" | "bow-tie-rectangle" | "stored-data" => Shape::BowTieRect,
        "notch-pent" | "loop-limit" | "notched-pentagon" => Shape::LoopLimit,
        "delay" | "half-rounded-rectangle" => Shape::Delay,
        "curv-trap" | "curved-trapezoid" | "display" => Shape::CurvedTrapezoid,
        "doc" | "document" => Shape::Document,
        "lin-doc" | "lined-document" => Shape::LinedDocument,
        "tag-doc" | "tagged-document" => Shape::TaggedDocument,
        "docs" | "documents" | "st-doc" | "stacked-document" => Shape::StackedDocument,
        "flag" | "paper-tape" => Shape::PaperTape,
        "h-cyl" | "das" | "horizontal-cylinder" => Shape::HorizontalCylinder,
        "lin-cyl" | "disk" | "lined-cylinder" => Shape::LinedCylinder,
        "tri" | "extract" | "triangle" => Shape::Triangle,
        "flip-tri" | "manual-file" | "flipped-triangle" => Shape::FlippedTriangle,
        "sm-circ" | "small-circle" | "start" => Shape::SmallCircle,
        "f-circ" | "filled-circle" | "junction" => Shape::FilledCircle,
        "fr-circ" | "framed-circle" | "stop" => Shape::FramedCircle,
        "cross-circ" | "crossed-circle" | "summary" => Shape::CrossedCircle,
        "fork" | "join" => Shape::Fork,
        "hourglass" | "collate" => Shape::Hourglass,
        "bolt" | "com-link" | "lightning-bolt" => Shape::Bolt,
        "brace" | "brace-l" | "comment" => Shape::BraceLeft,
        "brace-r" => Shape::BraceRight,
        "braces" => Shape::Braces,
        "text" => Shape::Text,
        "datastore" | "data-store" => Shape::DataStore,
        "cloud" => Shape::Cloud,
        "bang" => Shape::Bang,
        _ => return None,
    })
}

/// `key: value` pairs of an `@{ … }` body, split on commas and new lines outside quotes;
/// values unquoted.
fn attribute_pairs(body: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut quoted = false;
    let mut start = 0;
    let bytes = body.as_bytes();
    for i in 0..=bytes.len() {
        let b = bytes.get(i).copied();
        match b {
            Some(b'"') => quoted = !quoted,
            Some(b',' | b'\n') | None if !quoted || b.is_none() => {
                if let Some((k, v)) = body[start..i].split_once(':') {
                    let v = v.trim();
                    let v = v
                        .strip_prefix('"')
                        .and_then(|v| v.strip_suffix('"'))
                        .unwrap_or(v);
                    out.push((k.trim(), v));
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    out
}

fn preview(s: &str) -> String {
    s.chars().take(20).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_occurrences_count_earlier_copies_of_a_pair_in_small_and_large_charts() {
        for copies in [2, 20] {
            let src: String = (0..copies).map(|_| "A --> B\nB --> A\nA --> C\n").collect();
            let c = chart(&format!("graph TD\n{src}"));
            let want: Vec<usize> = (0..copies).flat_map(|k| [k, k, k]).collect();
            assert_eq!(c.edge_occurrences(), want);
        }
    }

    #[test]
    fn closers_are_found_where_str_find_finds_them() {
        let hays = [
            "", "]", "a]b]", "x)]y", ")) )", "é]]", "\\]/]", "abc", "]]]", "/", "中)]",
        ];
        for hay in hays {
            for needle in ["]", ")]", "]]", "))", ")))", "\\]", "/]", "])", "}}"] {
                assert_eq!(
                    find_ascii(hay, needle),
                    hay.find(needle),
                    "{hay:?} {needle:?}"
                );
            }
        }
    }

    #[test]
    fn white_space_is_skipped_as_trim_start_skips_it() {
        let texts = [
            "",
            " ",
            "a",
            " \t\r\n\x0b\x0cb",
            "\u{a0} x",
            " \u{2003}\ty",
            "\u{85}",
            "é ",
            "  中",
        ];
        for text in texts {
            let mut c = Cursor {
                s: text,
                pos: 0,
                base: 0,
            };
            c.skip_ws();
            assert_eq!(c.rest(), text.trim_start(), "{text:?}");
        }
    }

    fn chart(src: &str) -> Flowchart {
        parse(src).expect("a flowchart").expect("supported")
    }

    fn edges(c: &Flowchart) -> Vec<String> {
        c.edges
            .iter()
            .map(|e| {
                format!(
                    "{}→{}{}",
                    c.id_of(e.from),
                    c.id_of(e.to),
                    e.label
                        .as_ref()
                        .map(|l| format!(" ({l})"))
                        .unwrap_or_default()
                )
            })
            .collect()
    }

    #[test]
    fn the_spec_examples() {
        let c = chart("graph TD; A[Paste] --> B[Review] --> C[Copy back];");
        assert_eq!(
            c.nodes.iter().map(|n| n.label.as_str()).collect::<Vec<_>>(),
            ["Paste", "Review", "Copy back"]
        );
        assert_eq!(edges(&c), ["A→B", "B→C"]);
        let c = chart(
            "graph TD; R[Read request] --> C{In edge cache?}; C -->|hit| S[Serve cached]; C -->|miss| O{Origin healthy?}; O -->|healthy| F[Fetch, cache, serve]; O -->|slow| B[Serve stale + refresh in background]; O -->|no cached copy| W[Block on origin];",
        );
        assert_eq!(c.nodes.len(), 7);
        assert_eq!(edges(&c)[1], "C→S (hit)");
        assert_eq!(c.nodes[1].shape, Shape::Rhombus);
        let c = chart("graph LR; A-->B; B-.->C; C==>D; D---E; E --o F; F --x G");
        assert_eq!(edges(&c), ["A→B", "B→C", "C→D", "D→E", "E→F", "F→G"]);
        assert_eq!(c.direction, Direction::LeftRight);
    }

    #[test]
    fn arrows_labels_groups_and_subgraphs() {
        let c = chart(
            "flowchart LR\n  A -- yes --> B\n  B -.-> C & D\n  C == go ==> E\n  E --- F\n  F -. maybe .-> G\n  subgraph S1 [Group]\n  G --> H((Round))\n  end\n  click A callback\n  %% a comment\n  H --x I\n  I <--> J\n",
        );
        assert_eq!(
            edges(&c),
            [
                "A→B (yes)",
                "B→C",
                "B→D",
                "C→E (go)",
                "E→F",
                "F→G (maybe)",
                "G→H",
                "H→I",
                "I→J"
            ]
        );
        assert!(c.nodes.iter().any(|n| n.id == "H" && n.label == "Round"));
        assert_eq!(c.ignored, ["click"]);
    }

    #[test]
    fn other_diagrams_and_errors() {
        assert!(parse("sequenceDiagram\nA->>B: hi").is_none());
        // ELK is only another layout engine for the same flowchart.
        let elk = parse("flowchart-elk TD\nA --> B").unwrap().unwrap();
        assert_eq!((elk.nodes.len(), elk.edges.len()), (2, 1));
        assert!(parse("graph TD; A[unclosed --> B").unwrap().is_err());
        assert!(parse("graph TD; A --> ").unwrap().is_err());
    }

    #[test]
    fn every_shape() {
        let c = chart(
            "flowchart TD\nA[rect] --> B(round) --> C([stadium]) --> D[[sub]] --> E[(db)]\nF((circle)) --> G(((double))) --> H>flag] --> I{diamond} --> J{{hex}}\nK[/para/] --> L[\\alt\\] --> M[/trap\\] --> N[\\trapalt/] --> O",
        );
        let shapes: Vec<Shape> = c.nodes.iter().map(|n| n.shape).collect();
        // The shapes with brackets come first in `ALL`.
        let mut expected = Shape::ALL[..14].to_vec();
        expected.push(Shape::Rect);
        assert_eq!(shapes, expected);
        assert_eq!(c.nodes[12].label, "trap");
        assert_eq!(c.nodes[14].label, "O");
    }

    fn kinds(c: &Flowchart) -> Vec<(Stroke, Marker, Marker)> {
        c.edges.iter().map(|e| (e.stroke, e.start, e.end)).collect()
    }

    #[test]
    fn every_edge_kind() {
        use Marker as M;
        use Stroke as S;
        let c = chart(
            "graph LR\nA --> B\nA --- B\nA -.-> B\nA -.- B\nA ==> B\nA === B\nA <--> B\nA --x B\nA --o B\nA ~~~ B\nA x--x B\nA o==o B\nA ---> B\nA -..-> B",
        );
        assert_eq!(
            kinds(&c),
            [
                (S::Solid, M::None, M::Arrow),
                (S::Solid, M::None, M::None),
                (S::Dotted, M::None, M::Arrow),
                (S::Dotted, M::None, M::None),
                (S::Thick, M::None, M::Arrow),
                (S::Thick, M::None, M::None),
                (S::Solid, M::Arrow, M::Arrow),
                (S::Solid, M::None, M::Cross),
                (S::Solid, M::None, M::Circle),
                (S::Invisible, M::None, M::None),
                (S::Solid, M::Cross, M::Cross),
                (S::Thick, M::Circle, M::Circle),
                (S::Solid, M::None, M::Arrow),
                (S::Dotted, M::None, M::Arrow),
            ]
        );
        assert_eq!(c.nodes.len(), 2);
    }

    #[test]
    fn labelled_edge_forms() {
        use Marker as M;
        use Stroke as S;
        let c = chart(
            "graph TD\nA -- solid --> B\nA -. dotted .-> B\nA == thick ==> B\nA--tight-->B\nA -- plain line --- B\nA -->|pipe| B\nA ---|line pipe| B\nA <-- both --> B\nA -- read-only --> B\nA -. no head .- B",
        );
        assert_eq!(
            edges(&c),
            [
                "A→B (solid)",
                "A→B (dotted)",
                "A→B (thick)",
                "A→B (tight)",
                "A→B (plain line)",
                "A→B (pipe)",
                "A→B (line pipe)",
                "A→B (both)",
                "A→B (read-only)",
                "A→B (no head)",
            ]
        );
        assert_eq!(
            kinds(&c),
            [
                (S::Solid, M::None, M::Arrow),
                (S::Dotted, M::None, M::Arrow),
                (S::Thick, M::None, M::Arrow),
                (S::Solid, M::None, M::Arrow),
                (S::Solid, M::None, M::None),
                (S::Solid, M::None, M::Arrow),
                (S::Solid, M::None, M::None),
                (S::Solid, M::Arrow, M::Arrow),
                (S::Solid, M::None, M::Arrow),
                (S::Dotted, M::None, M::None),
            ]
        );
    }

    #[test]
    fn subgraph_members_nesting_and_direction() {
        let c = chart(
            "flowchart TB\nc1 --> a2\nsubgraph one [First]\na1 --> a2\nend\nsubgraph two\ndirection LR\nb1 --> b2\nsubgraph inner\nb3\nend\nend\nsubgraph \"Just a title\"\nq\nend\none --> two\nsubgraph Many words here\nw\nend",
        );
        assert_eq!(c.subgraphs.len(), 5);
        let one = &c.subgraphs[0];
        assert_eq!(one.id.as_deref(), Some("one"));
        assert_eq!(one.title, "First");
        assert_eq!(one.members, ["a1", "a2"]);
        let two = &c.subgraphs[1];
        assert_eq!(two.direction, Some(Direction::LeftRight));
        assert_eq!(two.members, ["b1", "b2"]);
        assert_eq!(c.subgraphs[2].parent, Some(1));
        assert_eq!(c.subgraphs[2].members, ["b3"]);
        assert_eq!(c.subgraphs[3].id, None);
        assert_eq!(c.subgraphs[3].title, "Just a title");
        // A title of several words is not an id (as Mermaid reads it).
        assert_eq!(c.subgraphs[4].id, None);
        assert_eq!(c.subgraphs[4].title, "Many words here");
        // Subgraph ids are nodes (edges and comments can point at them), in order of mention.
        let ids: Vec<&str> = c.nodes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "c1", "a2", "one", "a1", "two", "b1", "b2", "inner", "b3", "q", "w"
            ]
        );
        assert_eq!(c.label_of("one"), "First");
        assert!(c.ignored.is_empty());
    }

    #[test]
    fn directives_are_ignored_and_recorded() {
        let c = chart(
            "%%{init: {\"theme\": \"dark\"}}%%\ngraph TD\nA --> B\nstyle A fill:#f9f\nclassDef red fill:#f00\nclass B red\nlinkStyle 0 stroke:#f00\nclick A \"https://example.com\"\ndirection LR",
        );
        assert_eq!(
            c.ignored,
            [
                "init",
                "style",
                "classDef",
                "class",
                "linkStyle",
                "click",
                "direction"
            ]
        );
        assert_eq!(edges(&c), ["A→B"]);
    }

    #[test]
    fn front_matter_and_line_breaks() {
        let src = "---\ntitle: Hello\n---\nflowchart LR\nA[one<br>two] -->|a<br/>b| B";
        assert_eq!(keyword(src), Some("flowchart"));
        let c = chart(src);
        assert_eq!(c.nodes[0].label, "one\ntwo");
        assert_eq!(c.edges[0].label.as_deref(), Some("a\nb"));
        assert_eq!(c.title.as_deref(), Some("Hello"));
        assert!(c.ignored.is_empty());
        let c = chart("---\ntitle: T\nconfig:\n  theme: dark\n---\ngraph TD\nA");
        assert_eq!(c.ignored, ["front matter config"]);
        assert_eq!(
            keyword("---\ntitle: x\n---\nsequenceDiagram\nA->>B: x"),
            Some("sequenceDiagram")
        );
    }

    #[test]
    fn errors_carry_offsets() {
        let e = parse("graph TD\nA --> B\nend").unwrap().unwrap_err();
        assert_eq!(e.offset, 17);
        let e = parse("graph TD\nsubgraph S\nA").unwrap().unwrap_err();
        assert!(e.message.contains("not closed"), "{e:?}");
        let e = parse("graph XY\nA").unwrap().unwrap_err();
        assert_eq!(e.offset, 6);
        let e = parse("graph TD\nA -- never closed B").unwrap().unwrap_err();
        assert_eq!(e.offset, 11);
        let e = parse("graph TD\nA -=> B").unwrap().unwrap_err();
        assert_eq!(e.offset, 11);
    }

    fn labels(c: &Flowchart) -> Vec<&str> {
        c.nodes.iter().map(|n| n.label.as_str()).collect()
    }

    #[test]
    fn node_attributes_and_every_documented_shape_name() {
        let c = chart(
            "flowchart TD\nA@{ shape: cyl, label: \"DB\" } --> B@{ label: \"Hi\" }\nC@{ icon: \"fa:user\", label: \"User\" }\nD@{ img: \"https://example.com/x.png\" }\nE@{ shape: warp }\nF@{\n  shape: diam\n  label: \"Two\n  lines\"\n}",
        );
        assert_eq!(labels(&c), ["DB", "Hi", "User", "D", "E", "Two\nlines"]);
        let shapes: Vec<Shape> = c.nodes.iter().map(|n| n.shape).collect();
        use Shape as S;
        assert_eq!(
            shapes,
            [S::Cylinder, S::Rect, S::Rect, S::Rect, S::Rect, S::Rhombus]
        );
        assert_eq!(c.notes.len(), 3, "{:?}", c.notes);
        assert!(c.notes[2].contains("`warp`"));
        // Every short name and alias of Mermaid's shape table is known.
        for row in SHAPE_TABLE {
            for name in row {
                assert!(shape_named(name).is_some(), "{name}");
            }
        }
    }

    /// Mermaid's shape table (its flowchart page), a row a shape: short name, then aliases.
    const SHAPE_TABLE: [&[&str]; 48] = [
        &["rect", "proc", "process", "rectangle"],
        &["rounded", "event"],
        &["stadium", "pill", "terminal"],
        &[
            "fr-rect",
            "framed-rectangle",
            "subproc",
            "subprocess",
            "subroutine",
        ],
        &["cyl", "cylinder", "database", "db"],
        &["circle", "circ"],
        &["dbl-circ", "double-circle"],
        &["odd"],
        &["diam", "decision", "diamond", "question"],
        &["hex", "hexagon", "prepare"],
        &["lean-r", "in-out", "lean-right"],
        &["lean-l", "lean-left", "out-in"],
        &["trap-b", "priority", "trapezoid", "trapezoid-bottom"],
        &["trap-t", "inv-trapezoid", "manual", "trapezoid-top"],
        &["notch-rect", "card", "notched-rectangle"],
        &[
            "lin-rect",
            "lin-proc",
            "lined-process",
            "lined-rectangle",
            "shaded-process",
        ],
        &[
            "div-rect",
            "div-proc",
            "divided-process",
            "divided-rectangle",
        ],
        &["win-pane", "internal-storage", "window-pane"],
        &["tag-rect", "tag-proc", "tagged-process", "tagged-rectangle"],
        &["st-rect", "processes", "procs", "stacked-rectangle"],
        &["sl-rect", "manual-input", "sloped-rectangle"],
        &["bow-rect", "bow-tie-rectangle", "stored-data"],
        &["notch-pent", "loop-limit", "notched-pentagon"],
        &["delay", "half-rounded-rectangle"],
        &["curv-trap", "curved-trapezoid", "display"],
        &["doc", "document"],
        &["lin-doc", "lined-document"],
        &["tag-doc", "tagged-document"],
        &["docs", "documents", "st-doc", "stacked-document"],
        &["flag", "paper-tape"],
        &["h-cyl", "das", "horizontal-cylinder"],
        &["lin-cyl", "disk", "lined-cylinder"],
        &["tri", "extract", "triangle"],
        &["flip-tri", "manual-file", "flipped-triangle"],
        &["sm-circ", "small-circle", "start"],
        &["f-circ", "filled-circle", "junction"],
        &["fr-circ", "framed-circle", "stop"],
        &["cross-circ", "crossed-circle", "summary"],
        &["fork", "join"],
        &["hourglass", "collate"],
        &["bolt", "com-link", "lightning-bolt"],
        &["brace", "brace-l", "comment"],
        &["brace-r"],
        &["braces"],
        &["text"],
        &["datastore", "data-store"],
        &["cloud"],
        &["bang"],
    ];

    #[test]
    fn each_row_of_the_shape_table_is_its_own_shape() {
        let mut seen = Vec::new();
        for row in SHAPE_TABLE {
            let shape = shape_named(row[0]).expect("known");
            for alias in &row[1..] {
                assert_eq!(shape_named(alias), Some(shape), "{alias} is {}", row[0]);
            }
            assert!(
                !seen.contains(&shape),
                "{} is drawn as another row's shape",
                row[0]
            );
            seen.push(shape);
        }
        // Every shape but the upright fork bar is some row's.
        assert_eq!(seen.len(), Shape::ALL.len() - 1);
        // A fork is one shape here; the layout stands its bar across the way ranks run.
        let across = chart("flowchart TD\nA@{ shape: fork } --> B");
        assert_eq!(across.nodes[0].shape, Shape::Fork);
        let upright = chart("flowchart LR\nA@{ shape: join } --> B\nC --> A");
        assert_eq!(upright.nodes[0].shape, Shape::Fork);
    }

    #[test]
    fn labels_as_mermaid_shows_them() {
        let c = chart(
            "flowchart LR\nA[\"Line1\nLine2\"] --> B[\"`**bold** and *it*\nnext`\"]\nC[fa:fa-car Car] --> D[<b>x</b> #quot;q#quot; #9829;]\nE[a<br>b] --> F[1 < 2 <angle>]",
        );
        assert_eq!(
            labels(&c),
            [
                "Line1\nLine2",
                "bold and it\nnext",
                "Car",
                "x \"q\" ♥",
                "a\nb",
                "1 < 2 <angle>"
            ]
        );
        let em = &c.nodes[1].emphasis;
        assert_eq!(em.len(), 2);
        assert_eq!((em[0].start, em[0].end, em[0].bold), (0, 4, true));
        assert_eq!(
            (&c.nodes[1].label[em[1].start..em[1].end], em[1].italic),
            ("it", true)
        );
        assert!(c.notes[0].contains("Font Awesome"), "{:?}", c.notes);
    }

    #[test]
    fn ids_edge_ids_next_line_links_lengths_and_accessibility() {
        let c = chart(
            "flowchart TD\naccTitle: The title\naccDescr: A description\nmy-node --> other\nP1 --> P1.5\nA e1@--> B\ne1@{ animate: true }\na\n--> b\nA ----> C\nA -.-> D\nA -..-> E\nA -- x ---> F\nA:::warm --> G",
        );
        assert_eq!(
            edges(&c),
            [
                "my-node→other",
                "P1→P1.5",
                "A→B",
                "a→b",
                "A→C",
                "A→D",
                "A→E",
                "A→F (x)",
                "A→G"
            ]
        );
        let lengths: Vec<usize> = c.edges.iter().map(|e| e.length).collect();
        assert_eq!(lengths, [1, 1, 1, 1, 3, 1, 2, 2, 1]);
        assert_eq!(c.acc_title.as_deref(), Some("The title"));
        assert_eq!(c.acc_descr.as_deref(), Some("A description"));
        assert_eq!(c.ignored, ["edge attributes", ":::"]);
        let c = chart("flowchart TD\naccDescr {\n  Several\n  lines\n}\nA --> B");
        assert_eq!(c.acc_descr.as_deref(), Some("Several lines"));
        assert_eq!(edges(&c), ["A→B"]);
    }

    #[test]
    fn repeated_pairs_and_groups() {
        let c = chart("graph TD\nA --> B\nA -->|again| B\nA & B --> C & D");
        assert_eq!(
            edges(&c),
            ["A→B", "A→B (again)", "A→C", "A→D", "B→C", "B→D"]
        );
    }
}
