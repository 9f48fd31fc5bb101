//! Mermaid sequence diagrams: a parser for the syntax of Mermaid's sequence-diagram page
//! (participants and actors, aliases, the message arrows, activations, notes, the
//! `loop`/`alt`/`opt`/`par`/`critical`/`break`/`rect` frames, `autonumber`, `box` groups,
//! creation and destruction), and its layout: participants in columns, one row per message,
//! note or frame edge, top to bottom in source order.
//!
//! A reviewer comments on a participant (a node) or a message (an edge `FROM→TO`, numbered
//! `#2`, `#3`, … when a pair repeats), exactly as on a flowchart: [`Sequence::as_flowchart`]
//! gives the nodes and edges the answers and the export use.

use super::flowchart::{Edge, Flowchart, Marker, Node, Shape, Stroke};
use super::shapes::cylinder_cap;
use super::text::{Block, LINE_HEIGHT, width};

/// Most participants and messages (and notes and frame lines) drawn; beyond, a diagnostic
/// and the placeholder. The same caps as flowcharts' nodes and edges.
pub const MAX_PARTICIPANTS: usize = super::layout::MAX_NODES;
pub const MAX_EVENTS: usize = super::layout::MAX_EDGES;

/// A parsed sequence diagram.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sequence {
    pub participants: Vec<Participant>,
    /// Messages, notes, activations and frame lines, in source order.
    pub events: Vec<Event>,
    /// `box` groups, in order of declaration.
    pub groups: Vec<Group>,
    /// `title` (or front matter `title:`).
    pub title: Option<String>,
    pub acc_title: Option<String>,
    pub acc_descr: Option<String>,
    /// Statements recognised and not drawn (`link`, `links`, `properties`, `details`, colours,
    /// `%%{init}%%`), each once, in the order each first appears.
    pub ignored: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Participant {
    pub id: String,
    pub label: String,
    pub kind: Kind,
    /// Drawn where it is created (`create participant …`), not at the top.
    pub created: bool,
    /// Its lifeline ends at its last message, where it is drawn again (`destroy …`).
    pub destroyed: bool,
}

/// How a participant is drawn: `actor` as a figure, the rest as boxes (the `@{ "type": … }`
/// types have their own outline).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Kind {
    #[default]
    Participant,
    Actor,
    Boundary,
    Control,
    Entity,
    Database,
    Collections,
    Queue,
}

impl Kind {
    fn from_name(name: &str) -> Option<Kind> {
        Some(match name.to_ascii_lowercase().as_str() {
            "participant" => Kind::Participant,
            "actor" => Kind::Actor,
            "boundary" => Kind::Boundary,
            "control" => Kind::Control,
            "entity" => Kind::Entity,
            "database" => Kind::Database,
            "collections" => Kind::Collections,
            "queue" => Kind::Queue,
            _ => return None,
        })
    }
}

/// A message's line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    Solid,
    Dotted,
}

/// A message's head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Head {
    /// `->`, `-->`
    None,
    /// `->>`, `-->>`
    Arrow,
    /// `-x`, `--x`
    Cross,
    /// `-)`, `--)`: asynchronous.
    Open,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Participant indices.
    pub from: usize,
    pub to: usize,
    pub text: String,
    pub line: Line,
    pub head: Head,
    /// `<<->>`, `<<-->>`: a head at both ends.
    pub both: bool,
    /// `()` at an end: a central connection.
    pub dot_from: bool,
    pub dot_to: bool,
    /// `+`: activates `to`; `-`: deactivates `from`.
    pub activate: bool,
    pub deactivate: bool,
    /// Its `autonumber` number, as written.
    pub number: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
    Over,
}

/// The frame kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    Loop,
    Alt,
    Opt,
    Par,
    Critical,
    Break,
    Rect,
}

impl Frame {
    pub fn name(self) -> &'static str {
        match self {
            Frame::Loop => "loop",
            Frame::Alt => "alt",
            Frame::Opt => "opt",
            Frame::Par => "par",
            Frame::Critical => "critical",
            Frame::Break => "break",
            Frame::Rect => "rect",
        }
    }

    /// The keyword that divides it (`else`, `and`, `option`).
    fn divider(self) -> Option<&'static str> {
        match self {
            Frame::Alt => Some("else"),
            Frame::Par => Some("and"),
            Frame::Critical => Some("option"),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Message(Message),
    Note {
        side: Side,
        /// One participant, or two for `over A,B`.
        of: (usize, Option<usize>),
        text: String,
    },
    Activate(usize),
    Deactivate(usize),
    /// A frame opens: its kind, its label, and (a `rect`) its colour when it is a plain one
    /// ([`plain_colour`]).
    Start(Frame, String, Option<String>),
    /// `else`, `and`, `option`: its label.
    Divide(String),
    End,
}

/// `box [colour] [title] … end`.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub title: String,
    /// Its colour when it is a plain one ([`plain_colour`]).
    pub colour: Option<String>,
    /// Participant indices, in order.
    pub members: Vec<usize>,
}

/// Why a source is not a sequence diagram this parser can read, and where (byte offset in
/// the source).
#[derive(Debug, Clone, PartialEq)]
pub struct Unsupported {
    pub offset: usize,
    pub message: String,
}

/// The end of the message of a diagram over the caps.
const TOO_LARGE: &str = "too large to draw";

impl Unsupported {
    /// Refused for its size (over [`MAX_PARTICIPANTS`] or [`MAX_EVENTS`]), not its syntax.
    pub fn too_large(&self) -> bool {
        self.message.ends_with(TOO_LARGE)
    }
}

impl Sequence {
    /// The participants as nodes and the messages as edges, in order: what comments are
    /// pinned to and checked against.
    pub fn as_flowchart(&self) -> Flowchart {
        Flowchart {
            nodes: self
                .participants
                .iter()
                .map(|p| Node {
                    id: p.id.clone(),
                    label: p.label.clone(),
                    shape: Shape::Rect,
                    emphasis: Vec::new(),
                })
                .collect(),
            edges: self
                .messages()
                .map(|m| Edge {
                    // Node `i` is participant `i`.
                    from: m.from,
                    to: m.to,
                    label: (!m.text.is_empty()).then(|| m.text.clone()),
                    label_emphasis: Vec::new(),
                    stroke: match m.line {
                        Line::Solid => Stroke::Solid,
                        Line::Dotted => Stroke::Dotted,
                    },
                    start: if m.both { Marker::Arrow } else { Marker::None },
                    end: match m.head {
                        Head::None => Marker::None,
                        Head::Arrow | Head::Open => Marker::Arrow,
                        Head::Cross => Marker::Cross,
                    },
                    length: 1,
                })
                .collect(),
            ..Flowchart::default()
        }
    }

    pub fn messages(&self) -> impl Iterator<Item = &Message> {
        self.events.iter().filter_map(|e| match e {
            Event::Message(m) => Some(m),
            _ => None,
        })
    }

    /// Per message: how many earlier messages join the same pair (as
    /// `Flowchart::edge_occurrences` counts edges).
    pub fn occurrences(&self) -> Vec<usize> {
        let mut seen: std::collections::HashMap<(usize, usize), usize> =
            std::collections::HashMap::new();
        self.messages()
            .map(|m| {
                let n = seen.entry((m.from, m.to)).or_insert(0);
                *n += 1;
                *n - 1
            })
            .collect()
    }
}

/// Where the diagram text starts, after an optional `---` front-matter block, and the front
/// matter's `title:`.
fn front_matter(source: &str) -> (usize, Option<String>) {
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

/// A statement: its byte offset in the source and its text (comments removed, trimmed).
type Statement<'a> = (usize, &'a str);

/// The source's statements: lines split at `;` (but not the `;` ending an entity code such as
/// `#9829;`), with `%%` comments and `#` comments dropped.
fn statements(body: &str, base: usize) -> Vec<Statement<'_>> {
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
fn is_header(s: &str) -> bool {
    s.split_whitespace()
        .next()
        .is_some_and(|w| w.eq_ignore_ascii_case("sequenceDiagram"))
}

/// The message arrows, longest first; `None` for the half arrows (not drawn here).
/// A message arrow's line, head, and whether it has a head at both ends; `None` for an arrow
/// not drawn here.
type ArrowKind = Option<(Line, Head, bool)>;

const ARROWS: &[(&str, ArrowKind)] = &[
    ("<<-->>", Some((Line::Dotted, Head::Arrow, true))),
    ("<<->>", Some((Line::Solid, Head::Arrow, true))),
    ("--|\\", None),
    ("--|/", None),
    ("--\\\\", None),
    ("--//", None),
    ("/|--", None),
    ("\\|--", None),
    ("//--", None),
    ("\\\\--", None),
    ("-->>", Some((Line::Dotted, Head::Arrow, false))),
    ("->>", Some((Line::Solid, Head::Arrow, false))),
    ("-->", Some((Line::Dotted, Head::None, false))),
    ("--x", Some((Line::Dotted, Head::Cross, false))),
    ("--)", Some((Line::Dotted, Head::Open, false))),
    ("-|\\", None),
    ("-|/", None),
    ("-\\\\", None),
    ("-//", None),
    ("/|-", None),
    ("\\|-", None),
    ("//-", None),
    ("\\\\-", None),
    ("->", Some((Line::Solid, Head::None, false))),
    ("-x", Some((Line::Solid, Head::Cross, false))),
    ("-)", Some((Line::Solid, Head::Open, false))),
];

/// The first arrow in a message statement: its byte range and kind. A `-` between letters
/// (`my-service`) is part of a name.
fn find_arrow(s: &str) -> Option<(usize, usize, ArrowKind)> {
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
fn split_colon(text: &str) -> (&str, Option<&str>) {
    match text.split_once(':') {
        Some((a, b)) => (a, Some(b.trim())),
        None => (text, None),
    }
}

/// A word at the start of `s`, case-insensitively, followed by a space or the end: the rest.
fn keyword<'a>(s: &'a str, word: &str) -> Option<&'a str> {
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

/// CSS colour names Mermaid takes as a `box` colour (a common subset; `rgb(…)` and `#…` too),
/// with their red, green, blue and alpha.
const COLOURS: &[(&str, [u8; 4])] = &[
    ("transparent", [0, 0, 0, 0]),
    ("aqua", [0, 255, 255, 255]),
    ("black", [0, 0, 0, 255]),
    ("blue", [0, 0, 255, 255]),
    ("fuchsia", [255, 0, 255, 255]),
    ("gray", [128, 128, 128, 255]),
    ("grey", [128, 128, 128, 255]),
    ("green", [0, 128, 0, 255]),
    ("lime", [0, 255, 0, 255]),
    ("maroon", [128, 0, 0, 255]),
    ("navy", [0, 0, 128, 255]),
    ("olive", [128, 128, 0, 255]),
    ("orange", [255, 165, 0, 255]),
    ("purple", [128, 0, 128, 255]),
    ("red", [255, 0, 0, 255]),
    ("silver", [192, 192, 192, 255]),
    ("teal", [0, 128, 128, 255]),
    ("white", [255, 255, 255, 255]),
    ("yellow", [255, 255, 0, 255]),
    ("aliceblue", [240, 248, 255, 255]),
    ("antiquewhite", [250, 235, 215, 255]),
    ("aquamarine", [127, 255, 212, 255]),
    ("azure", [240, 255, 255, 255]),
    ("beige", [245, 245, 220, 255]),
    ("bisque", [255, 228, 196, 255]),
    ("brown", [165, 42, 42, 255]),
    ("coral", [255, 127, 80, 255]),
    ("cyan", [0, 255, 255, 255]),
    ("gold", [255, 215, 0, 255]),
    ("indigo", [75, 0, 130, 255]),
    ("ivory", [255, 255, 240, 255]),
    ("khaki", [240, 230, 140, 255]),
    ("lavender", [230, 230, 250, 255]),
    ("lightblue", [173, 216, 230, 255]),
    ("lightgray", [211, 211, 211, 255]),
    ("lightgrey", [211, 211, 211, 255]),
    ("lightgreen", [144, 238, 144, 255]),
    ("lightyellow", [255, 255, 224, 255]),
    ("magenta", [255, 0, 255, 255]),
    ("mintcream", [245, 255, 250, 255]),
    ("orchid", [218, 112, 214, 255]),
    ("pink", [255, 192, 203, 255]),
    ("plum", [221, 160, 221, 255]),
    ("salmon", [250, 128, 114, 255]),
    ("skyblue", [135, 206, 235, 255]),
    ("tan", [210, 180, 140, 255]),
    ("tomato", [255, 99, 71, 255]),
    ("turquoise", [64, 224, 208, 255]),
    ("violet", [238, 130, 238, 255]),
    ("wheat", [245, 222, 179, 255]),
];

/// A colour written in the source, when it is a plain one, rewritten from what was read: a
/// colour name of [`COLOURS`], `#` and 3, 4, 6 or 8 hex digits, or `rgb(…)`/`rgba(…)` of three
/// or four plain numbers (each maybe a percentage). Anything else (`hsl(…)`, `var(…)`, a
/// stray character) is not passed on.
pub fn plain_colour(written: &str) -> Option<String> {
    let lower = written.trim().to_ascii_lowercase();
    if COLOURS.iter().any(|(name, _)| *name == lower) {
        return Some(lower);
    }
    if let Some(hex) = lower.strip_prefix('#') {
        let ok = matches!(hex.len(), 3 | 4 | 6 | 8) && hex.bytes().all(|b| b.is_ascii_hexdigit());
        return ok.then_some(lower);
    }
    let (name, args) = if let Some(a) = lower.strip_prefix("rgba(") {
        ("rgba", a)
    } else {
        ("rgb", lower.strip_prefix("rgb(")?)
    };
    let args = args.strip_suffix(')')?;
    let parts: Vec<&str> = args.split(',').map(str::trim).collect();
    let number = |p: &str| {
        let digits = p.strip_suffix('%').unwrap_or(p);
        let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
        !digits.is_empty()
            && digits != "."
            && digits.len() <= 8
            && whole
                .bytes()
                .chain(frac.bytes())
                .all(|b| b.is_ascii_digit())
    };
    if !(3..=4).contains(&parts.len()) || !parts.iter().all(|p| number(p)) {
        return None;
    }
    Some(format!("{name}({})", parts.join(", ")))
}

/// A plain colour (as [`plain_colour`] writes it) as red, green and blue from 0 to 255 and
/// alpha from 0 to 1.
pub fn colour_parts(plain: &str) -> Option<[f64; 4]> {
    if let Some((_, [r, g, b, a])) = COLOURS.iter().find(|(name, _)| *name == plain) {
        return Some([
            f64::from(*r),
            f64::from(*g),
            f64::from(*b),
            f64::from(*a) / 255.0,
        ]);
    }
    if let Some(hex) = plain.strip_prefix('#') {
        let digit = |i: usize| u8::from_str_radix(&hex[i..=i], 16).ok().map(f64::from);
        let pair = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok().map(f64::from);
        return match hex.len() {
            3 => Some([digit(0)? * 17.0, digit(1)? * 17.0, digit(2)? * 17.0, 1.0]),
            4 => Some([
                digit(0)? * 17.0,
                digit(1)? * 17.0,
                digit(2)? * 17.0,
                digit(3)? / 15.0,
            ]),
            6 => Some([pair(0)?, pair(2)?, pair(4)?, 1.0]),
            8 => Some([pair(0)?, pair(2)?, pair(4)?, pair(6)? / 255.0]),
            _ => None,
        };
    }
    let args = plain.split_once('(')?.1.strip_suffix(')')?;
    let mut parts = [0.0, 0.0, 0.0, 1.0];
    for (k, p) in args.split(", ").enumerate().take(4) {
        let (value, full) = match p.strip_suffix('%') {
            Some(v) => (v, 100.0),
            None => (p, if k < 3 { 255.0 } else { 1.0 }),
        };
        let v: f64 = value.parse().ok()?;
        parts[k] = (v / full).min(1.0) * if k < 3 { 255.0 } else { 1.0 };
    }
    Some(parts)
}

/// `(colour, rest)` of a `box` or `rect` line when it starts with a colour.
fn leading_colour(s: &str) -> (Option<&str>, &str) {
    let lower = s.to_ascii_lowercase();
    for f in ["rgb(", "rgba(", "hsl(", "hsla("] {
        if lower.starts_with(f)
            && let Some(end) = s.find(')')
        {
            return (Some(&s[..=end]), s[end + 1..].trim());
        }
    }
    let word = s.split_whitespace().next().unwrap_or("");
    let lower = word.to_ascii_lowercase();
    if word.starts_with('#') || COLOURS.iter().any(|(name, _)| *name == lower) {
        return (Some(word), s[word.len()..].trim());
    }
    (None, s)
}

#[derive(Default)]
struct Parser {
    seq: Sequence,
    /// Open frames (kind) and `box` groups (`None`), innermost last.
    open: Vec<Option<Frame>>,
    /// The `box` being filled.
    group: Option<usize>,
    /// Autonumbering: the next number and the step, tenths… as hundredths.
    number: Option<(i64, i64)>,
    /// Set by `create`: the next declaration creates.
    creating: bool,
}

impl Parser {
    fn participant(&mut self, id: &str) -> usize {
        if let Some(i) = self.seq.participants.iter().position(|p| p.id == id) {
            return i;
        }
        self.seq.participants.push(Participant {
            id: id.to_string(),
            label: decode(id),
            kind: Kind::Participant,
            created: false,
            destroyed: false,
        });
        let i = self.seq.participants.len() - 1;
        if let Some(g) = self.group {
            self.seq.groups[g].members.push(i);
        }
        i
    }

    fn ignore(&mut self, what: &str) {
        if !self.seq.ignored.iter().any(|w| w == what) {
            self.seq.ignored.push(what.to_string());
        }
    }

    fn push(&mut self, at: usize, e: Event) -> Result<(), Unsupported> {
        if self.seq.events.len() >= MAX_EVENTS {
            return Err(Unsupported {
                offset: at,
                message: format!(
                    "more than {MAX_EVENTS} messages, notes and frame lines: {TOO_LARGE}"
                ),
            });
        }
        self.seq.events.push(e);
        Ok(())
    }

    /// `participant …` / `actor …`: `ID`, `ID as Alias`, `ID@{ "type": …, "alias": … }`.
    fn declare(&mut self, at: usize, rest: &str, actor: bool) -> Result<(), Unsupported> {
        let fail = |message: String| Unsupported {
            offset: at,
            message,
        };
        let (mut head, mut alias) = (rest, None);
        let mut kind = if actor {
            Kind::Actor
        } else {
            Kind::Participant
        };
        let mut config_alias = None;
        if let Some(i) = rest.find("@{") {
            let close = rest[i..]
                .find('}')
                .ok_or_else(|| fail("`@{` is not closed with `}`".into()))?;
            let config = &rest[i + 2..i + close];
            for (key, value) in config_pairs(config) {
                match key.as_str() {
                    "type" => {
                        kind = Kind::from_name(&value).ok_or_else(|| {
                            fail(format!(
                                "unknown participant type \"{value}\"; use participant, actor, boundary, control, entity, database, collections or queue"
                            ))
                        })?;
                    }
                    "alias" => config_alias = Some(value),
                    _ => self.ignore("@{…} settings"),
                }
            }
            let after = rest[i + close + 1..].trim();
            head = &rest[..i];
            if let Some(a) = keyword(after, "as") {
                alias = Some(a);
            } else if !after.is_empty() {
                return Err(fail(format!(
                    "unexpected `{after}` after the participant's settings"
                )));
            }
        } else if let Some(i) = find_as(rest) {
            head = &rest[..i];
            alias = Some(rest[i + 3..].trim());
        }
        let id = head.trim();
        if id.is_empty() {
            return Err(fail("a participant needs a name".into()));
        }
        if id.contains(['<', '>', ':', ',']) || find_arrow(id).is_some() {
            return Err(fail(format!(
                "`{id}` is not a participant name; a name may not hold `<`, `>`, `:`, `,` or an arrow"
            )));
        }
        let existed = self.seq.participants.iter().any(|p| p.id == id);
        let i = self.participant(id);
        let p = &mut self.seq.participants[i];
        p.kind = kind;
        if let Some(a) = alias.filter(|a| !a.is_empty()).or(config_alias.as_deref()) {
            p.label = decode(a);
        }
        if std::mem::take(&mut self.creating) {
            if existed {
                return Err(fail(format!(
                    "`create` for `{id}`, which already appeared above; create a participant at its first appearance"
                )));
            }
            p.created = true;
        }
        Ok(())
    }

    fn statement(&mut self, at: usize, s: &str) -> Result<(), Unsupported> {
        let fail = |message: String| Unsupported {
            offset: at,
            message,
        };
        if self.creating && keyword(s, "participant").is_none() && keyword(s, "actor").is_none() {
            return Err(fail(
                "`create` must be followed by `participant` or `actor` and a name".into(),
            ));
        }
        if let Some(rest) = keyword(s, "participant") {
            return self.declare(at, rest, false);
        }
        if let Some(rest) = keyword(s, "actor") {
            return self.declare(at, rest, true);
        }
        if let Some(rest) = keyword(s, "create") {
            self.creating = true;
            return self.statement(at, rest);
        }
        if let Some(rest) = keyword(s, "destroy") {
            let i = self.known(at, rest.trim())?;
            self.seq.participants[i].destroyed = true;
            return Ok(());
        }
        if let Some(rest) = keyword(s, "box") {
            if self.group.is_some() {
                return Err(fail(
                    "a `box` inside a `box`: close the first with `end`".into(),
                ));
            }
            if !self.open.is_empty() {
                return Err(fail(
                    "a `box` inside a frame: boxes group participants, so declare them first"
                        .into(),
                ));
            }
            let (colour, title) = leading_colour(rest);
            let plain = colour.and_then(plain_colour);
            if colour.is_some() && plain.is_none() {
                self.ignore("box colours other than a name, rgb(…), rgba(…) or #hex");
            }
            self.seq.groups.push(Group {
                title: decode(title),
                colour: plain,
                members: Vec::new(),
            });
            self.group = Some(self.seq.groups.len() - 1);
            self.open.push(None);
            return Ok(());
        }
        for (word, frame) in [
            ("loop", Frame::Loop),
            ("alt", Frame::Alt),
            ("opt", Frame::Opt),
            ("par_over", Frame::Par),
            ("par", Frame::Par),
            ("critical", Frame::Critical),
            ("break", Frame::Break),
            ("rect", Frame::Rect),
        ] {
            if let Some(rest) = keyword(s, word) {
                let (label, colour) = if frame == Frame::Rect {
                    let colour = leading_colour(rest).0;
                    let plain = colour.and_then(plain_colour);
                    if colour.is_some() && plain.is_none() {
                        self.ignore("rect colours other than a name, rgb(…), rgba(…) or #hex");
                    }
                    (String::new(), plain)
                } else {
                    (decode(rest), None)
                };
                self.open.push(Some(frame));
                return self.push(at, Event::Start(frame, label, colour));
            }
        }
        for word in ["else", "and", "option"] {
            if let Some(rest) = keyword(s, word) {
                return match self.open.last() {
                    Some(Some(f)) if f.divider() == Some(word) => {
                        self.push(at, Event::Divide(decode(rest)))
                    }
                    _ => Err(fail(format!(
                        "`{word}` outside {}: it divides {}",
                        match word {
                            "else" => "an `alt` frame",
                            "and" => "a `par` frame",
                            _ => "a `critical` frame",
                        },
                        match word {
                            "else" => "the cases of `alt … else … end`",
                            "and" => "the branches of `par … and … end`",
                            _ => "the options of `critical … option … end`",
                        }
                    ))),
                };
            }
        }
        if keyword(s, "end").is_some() {
            return match self.open.pop() {
                Some(None) => {
                    self.group = None;
                    Ok(())
                }
                Some(Some(_)) => self.push(at, Event::End),
                None => Err(fail(
                    "`end` with nothing open: remove it, or open a `loop`, `alt`, `opt`, `par`, `critical`, `break`, `rect` or `box` above".into(),
                )),
            };
        }
        if let Some(rest) = keyword(s, "activate") {
            let i = self.known_or_new(at, rest.trim())?;
            return self.push(at, Event::Activate(i));
        }
        if let Some(rest) = keyword(s, "deactivate") {
            let i = self.known_or_new(at, rest.trim())?;
            return self.push(at, Event::Deactivate(i));
        }
        if let Some(rest) = keyword(s, "autonumber") {
            let words: Vec<&str> = rest.split_whitespace().collect();
            self.number = match words.as_slice() {
                ["off"] => None,
                [] => Some((100, 100)),
                [start] => Some((
                    hundredths(start).ok_or_else(|| fail(bad_number(start)))?,
                    100,
                )),
                [start, step] => Some((
                    hundredths(start).ok_or_else(|| fail(bad_number(start)))?,
                    hundredths(step).ok_or_else(|| fail(bad_number(step)))?,
                )),
                _ => {
                    return Err(fail(
                        "`autonumber` takes `off`, or a start and a step".into(),
                    ));
                }
            };
            return Ok(());
        }
        if let Some(rest) = keyword(s, "note") {
            return self.note(at, rest);
        }
        if let Some(rest) = s.strip_prefix("title:").or_else(|| keyword(s, "title")) {
            self.seq.title = Some(decode(rest.trim()));
            return Ok(());
        }
        for (word, slot) in [("accTitle", 0), ("accDescr", 1)] {
            if s.get(..word.len())
                .is_some_and(|h| h.eq_ignore_ascii_case(word))
            {
                let after = s[word.len()..].trim_start();
                if let Some(v) = after.strip_prefix(':') {
                    let v = Some(decode(v.trim()));
                    if slot == 0 {
                        self.seq.acc_title = v;
                    } else {
                        self.seq.acc_descr = v;
                    }
                    return Ok(());
                }
            }
        }
        for word in ["links", "link", "properties", "details"] {
            if keyword(s, word).is_some() {
                self.ignore(word);
                return Ok(());
            }
        }
        if s.starts_with("%%{") {
            self.ignore("%%{init}%%");
            return Ok(());
        }
        self.message(at, s)
    }

    fn known(&mut self, at: usize, id: &str) -> Result<usize, Unsupported> {
        self.seq
            .participants
            .iter()
            .position(|p| p.id == id)
            .ok_or_else(|| Unsupported {
                offset: at,
                message: format!("`{id}` is not a participant of the diagram"),
            })
    }

    fn known_or_new(&mut self, at: usize, id: &str) -> Result<usize, Unsupported> {
        if id.is_empty() {
            return Err(Unsupported {
                offset: at,
                message: "a participant's name is missing".into(),
            });
        }
        Ok(self.participant(id))
    }

    fn note(&mut self, at: usize, rest: &str) -> Result<(), Unsupported> {
        let fail = |message: &str| Unsupported {
            offset: at,
            message: message.into(),
        };
        let (side, rest) = if let Some(r) = keyword(rest, "left") {
            (Side::Left, keyword(r, "of"))
        } else if let Some(r) = keyword(rest, "right") {
            (Side::Right, keyword(r, "of"))
        } else {
            (Side::Over, keyword(rest, "over"))
        };
        let rest = rest.ok_or_else(|| {
            fail("a note is `Note left of A: text`, `Note right of A: text` or `Note over A[,B]: text`")
        })?;
        let (who, text) = split_colon(rest);
        let text =
            text.ok_or_else(|| fail("a note needs `:` and its text after the participant"))?;
        let mut names = who.split(',').map(str::trim);
        let first = names.next().unwrap_or("");
        let second = names.next();
        if names.next().is_some() || (second.is_some() && side != Side::Over) {
            return Err(fail(
                "a note is over one or two participants, or left or right of one",
            ));
        }
        let a = self.known_or_new(at, first)?;
        let b = match second {
            Some(s) => Some(self.known_or_new(at, s)?),
            None => None,
        };
        self.push(
            at,
            Event::Note {
                side,
                of: (a, b.filter(|&b| b != a)),
                text: decode(text),
            },
        )
    }

    fn message(&mut self, at: usize, s: &str) -> Result<(), Unsupported> {
        let fail = |message: String| Unsupported {
            offset: at,
            message,
        };
        let Some((a, b, kind)) = find_arrow(s) else {
            let word = s.split_whitespace().next().unwrap_or(s);
            return Err(fail(format!(
                "`{word}` is not a sequence-diagram statement this renderer reads (a message is `A->>B: text`)"
            )));
        };
        let Some((line, head, both)) = kind else {
            return Err(Unsupported {
                offset: at + a,
                message: format!(
                    "the half arrow `{}` is not drawn here; use `->>`, `-->>`, `-)`, `-x` or `->`",
                    &s[a..b]
                ),
            });
        };
        let mut from = s[..a].trim_end();
        let dot_from = from.ends_with("()");
        if dot_from {
            from = from[..from.len() - 2].trim_end();
        }
        let (mut to, text) = split_colon(&s[b..]);
        to = to.trim();
        let (mut activate, mut deactivate) = (false, false);
        if let Some(r) = to.strip_prefix('+') {
            activate = true;
            to = r.trim_start();
        } else if let Some(r) = to.strip_prefix('-') {
            deactivate = true;
            to = r.trim_start();
        }
        let dot_to = to.starts_with("()");
        if dot_to {
            to = to[2..].trim_start();
        }
        let from = from.trim();
        for (name, what) in [(from, "sender"), (to, "receiver")] {
            if name.is_empty() {
                return Err(fail(format!(
                    "the message has no {what}: write `A->>B: text`"
                )));
            }
            if name.contains(['<', '>', ',', '+']) || find_arrow(name).is_some() {
                return Err(fail(format!(
                    "`{name}` is not a participant name (a message is `A->>B: text`)"
                )));
            }
        }
        let from = self.participant(from);
        let to = self.participant(to);
        let number = self.number.map(|(n, step)| {
            self.number = Some((n + step, step));
            format_hundredths(n)
        });
        self.push(
            at,
            Event::Message(Message {
                from,
                to,
                text: text.map(decode).unwrap_or_default(),
                line,
                head,
                both,
                dot_from,
                dot_to,
                activate,
                deactivate,
                number,
            }),
        )
    }
}

/// ` as ` (any case) in a declaration, outside the name.
fn find_as(s: &str) -> Option<usize> {
    let lower = s.to_ascii_lowercase();
    lower.find(" as ").or_else(|| lower.find("\tas "))
}

/// The `"key": "value"` pairs of a participant's `@{ … }`, keys lowercased.
fn config_pairs(config: &str) -> Vec<(String, String)> {
    config
        .split(',')
        .filter_map(|pair| {
            let (k, v) = pair.split_once(':')?;
            let unquote = |s: &str| s.trim().trim_matches(['"', '\'']).trim().to_string();
            Some((unquote(k).to_ascii_lowercase(), unquote(v)))
        })
        .collect()
}

fn bad_number(s: &str) -> String {
    format!("`{s}` is not a number for `autonumber` (e.g. `autonumber 10 5`)")
}

/// A number with up to two decimals, in hundredths.
fn hundredths(s: &str) -> Option<i64> {
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

fn format_hundredths(n: i64) -> String {
    if n % 100 == 0 {
        (n / 100).to_string()
    } else if n % 10 == 0 {
        format!("{}.{}", n / 100, (n % 100) / 10)
    } else {
        format!("{}.{:02}", n / 100, n % 100)
    }
}

/// `None` when the source is not a sequence diagram; else the diagram, or what stops it being
/// read and where.
pub fn parse(source: &str) -> Option<Result<Sequence, Unsupported>> {
    let (start, title) = front_matter(source);
    let body = &source[start..];
    let list = statements(body, start);
    let mut it = list.into_iter().peekable();
    // `%%{init}%%` lines may come before the keyword.
    let mut directives = false;
    while let Some((_, s)) = it.peek() {
        if s.starts_with("%%{") {
            directives = true;
            it.next();
        } else {
            break;
        }
    }
    let (header_at, header) = it.next()?;
    if !is_header(header) {
        return None;
    }
    let mut p = Parser::default();
    p.seq.title = title;
    if directives {
        p.ignore("%%{init}%%");
    }
    let after_keyword = header["sequenceDiagram".len()..].trim();
    let mut pending: Vec<Statement> = Vec::new();
    if !after_keyword.is_empty() {
        pending.push((
            header_at + header.len() - after_keyword.len(),
            after_keyword,
        ));
    }
    let mut it = pending.into_iter().chain(it);
    Some((|| {
        while let Some((at, s)) = it.next() {
            // `accDescr { … }` over several lines.
            if let Some(rest) = s
                .get(..8)
                .filter(|h| h.eq_ignore_ascii_case("accDescr"))
                .map(|_| s[8..].trim_start())
                && let Some(open) = rest.strip_prefix('{')
            {
                let mut text = String::new();
                let mut piece = open;
                loop {
                    if let Some(i) = piece.find('}') {
                        text.push_str(piece[..i].trim());
                        break;
                    }
                    text.push_str(piece.trim());
                    text.push(' ');
                    match it.next() {
                        Some((_, next)) => piece = next,
                        None => {
                            return Err(Unsupported {
                                offset: at,
                                message: "`accDescr {` is not closed with `}`".into(),
                            });
                        }
                    }
                }
                p.seq.acc_descr = Some(decode(text.trim()));
                continue;
            }
            p.statement(at, s)?;
            if p.seq.participants.len() > MAX_PARTICIPANTS {
                return Err(Unsupported {
                    offset: at,
                    message: format!("more than {MAX_PARTICIPANTS} participants: {TOO_LARGE}"),
                });
            }
        }
        if p.creating {
            return Err(Unsupported {
                offset: source.len(),
                message: "`create` at the end, with nothing to create".into(),
            });
        }
        if let Some(open) = p.open.last() {
            return Err(Unsupported {
                offset: source.len(),
                message: format!(
                    "`{}` is not closed: add `end`",
                    open.map_or("box", Frame::name)
                ),
            });
        }
        Ok(std::mem::take(&mut p.seq))
    })())
}

// ---------------------------------------------------------------------------------------------
// Layout

/// Text centred on a point: x, y and its lines.
pub type Placed = (f64, f64, Block);

/// A box, by its top left corner.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn right(&self) -> f64 {
        self.x + self.w
    }
    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }
    pub fn cx(&self) -> f64 {
        self.x + self.w / 2.0
    }
    pub fn cy(&self) -> f64 {
        self.y + self.h / 2.0
    }
    fn shift(&mut self, dx: f64) {
        self.x += dx;
    }
}

/// A participant drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Lane {
    pub rect: Rect,
    /// The same box again where the lifeline ends: below the last row, or on the line of a
    /// destroyed participant's last message.
    pub foot: Rect,
    pub text: Block,
    /// Lifeline: x, from y, to y.
    pub lifeline: (f64, f64, f64),
}

/// A message drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Arrow {
    /// The line's points: two for a message between two participants, four for a message to
    /// itself.
    pub points: Vec<(f64, f64)>,
    /// The label, centred on this point.
    pub label: Option<Placed>,
    /// The autonumber badge's centre.
    pub badge: Option<(f64, f64)>,
}

/// A frame drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameBox {
    pub kind: Frame,
    pub rect: Rect,
    /// The kind's tab (top left) and its width.
    pub tab: f64,
    /// The label after the tab, centred at the point.
    pub label: Option<Placed>,
    /// Dividers: y, and the label centred at a point.
    pub dividers: Vec<(f64, Option<Placed>)>,
    pub depth: usize,
    /// A `rect`'s colour from the source, when plain.
    pub colour: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Drawing {
    pub width: f64,
    pub height: f64,
    pub heads: Vec<Lane>,
    /// One per message, in order.
    pub arrows: Vec<Arrow>,
    pub notes: Vec<(Rect, Block)>,
    pub frames: Vec<FrameBox>,
    /// Activation bars.
    pub bars: Vec<Rect>,
    /// `box` groups: the box, its title's centre, and its colour from the source when plain.
    pub groups: Vec<(Rect, Option<Placed>, Option<String>)>,
}

const MARGIN: f64 = 12.0;
const BOX_PAD_X: f64 = 14.0;
const BOX_PAD_Y: f64 = 10.0;
const MIN_BOX_W: f64 = 96.0;
/// Between two participants' boxes, at least.
const GAP: f64 = 36.0;
/// A label's clearance from the ends of its arrow.
const LABEL_CLEAR: f64 = 22.0;
const NOTE_PAD: f64 = 8.0;
const BAR_W: f64 = 10.0;
const LOOP_W: f64 = 32.0;
const LOOP_H: f64 = 22.0;
const GROUP_PAD: f64 = 10.0;
/// Between the last row and the participants drawn again at the bottom.
const FOOT_GAP: f64 = 8.0;
const FRAME_PAD: f64 = 12.0;
/// Actor figure height, above the name.
const FIGURE_H: f64 = 34.0;
/// How far a message to a created actor stops short of its figure's middle.
const FIGURE_REACH: f64 = 14.0;
pub const TAB_H: f64 = 20.0;
pub const BADGE_R: f64 = 9.0;

/// Wraps for each kind of text.
const MESSAGE_WRAP: f64 = 320.0;
const NOTE_WRAP: f64 = 220.0;
const NAME_WRAP: f64 = 180.0;

fn label(text: &str, wrap: f64) -> Option<Block> {
    (!text.trim().is_empty()).then(|| Block::wrapped(text, wrap))
}

/// A frame's label as drawn: in brackets, as Mermaid draws a condition.
fn bracketed(kind: Frame, text: &str) -> String {
    if text.trim().is_empty() || kind == Frame::Rect {
        String::new()
    } else {
        format!("[{}]", text.trim())
    }
}

/// Per frame (by the index of its `Start`): where its contents reach, x.
#[derive(Clone, Copy)]
struct Reach {
    lo: f64,
    hi: f64,
}

impl Reach {
    const NONE: Reach = Reach {
        lo: f64::INFINITY,
        hi: f64::NEG_INFINITY,
    };
    fn add(&mut self, lo: f64, hi: f64) {
        self.lo = self.lo.min(lo);
        self.hi = self.hi.max(hi);
    }
}

/// Lays the diagram out.
pub fn layout(seq: &Sequence) -> Drawing {
    let n = seq.participants.len();
    let names: Vec<Block> = seq
        .participants
        .iter()
        .map(|p| Block::wrapped(&p.label, NAME_WRAP))
        .collect();
    let widths: Vec<f64> = names
        .iter()
        .map(|b| (b.width + 2.0 * BOX_PAD_X).max(MIN_BOX_W))
        .collect();
    let names_h = names.iter().map(|b| b.height).fold(LINE_HEIGHT, f64::max);
    // Boxes share one height, figures another; rows start below the taller.
    let box_h = names_h + 2.0 * BOX_PAD_Y;
    let figure_h = names_h + BOX_PAD_Y + FIGURE_H;
    let heights: Vec<f64> = seq
        .participants
        .iter()
        .zip(&widths)
        .map(|(p, w)| match p.kind {
            Kind::Actor => figure_h,
            // Room for the cylinder's caps above and below the name.
            Kind::Database => box_h + 2.0 * cylinder_cap(*w),
            _ => box_h,
        })
        .collect();
    let head_h = heights.iter().copied().fold(0.0, f64::max);
    let group_of = |i: usize| seq.groups.iter().position(|g| g.members.contains(&i));

    // Columns: the participants side by side, then pushed apart for what sits between.
    let mut x = vec![0.0; n];
    for i in 1..n {
        let mut gap = GAP;
        if group_of(i) != group_of(i - 1) {
            gap += 2.0 * GROUP_PAD * f64::from(u8::from(group_of(i).is_some()))
                + 2.0 * GROUP_PAD * f64::from(u8::from(group_of(i - 1).is_some()));
        }
        x[i] = x[i - 1] + widths[i - 1] / 2.0 + gap + widths[i] / 2.0;
    }
    // The index of the last message involving each participant: a destroyed one's box is
    // drawn again on that message's line, where its lifeline ends.
    let mut last_msg: Vec<Option<usize>> = vec![None; n];
    for (k, m) in seq.messages().enumerate() {
        last_msg[m.from] = Some(k);
        last_msg[m.to] = Some(k);
    }
    let ends_at = |i: usize, k: usize| seq.participants[i].destroyed && last_msg[i] == Some(k);
    // (lo, hi, distance): x[hi] - x[lo] must be at least the distance.
    let mut needs: Vec<(usize, usize, f64)> = Vec::new();
    let mut k = 0;
    for e in &seq.events {
        match e {
            Event::Message(m) => {
                let w = label(&m.text, MESSAGE_WRAP).map_or(0.0, |b| b.width);
                let this = k;
                k += 1;
                // Half a box drawn on the message's line, at either end.
                let boxed = |i: usize| {
                    if seq.participants[i].created || ends_at(i, this) {
                        widths[i] / 2.0
                    } else {
                        0.0
                    }
                };
                if m.from == m.to {
                    if m.from + 1 < n {
                        needs.push((m.from, m.from + 1, (LOOP_W + 8.0).max(w + 16.0) + BAR_W));
                    }
                } else {
                    let (lo, hi) = (m.from.min(m.to), m.from.max(m.to));
                    let badge = if m.number.is_some() {
                        2.0 * BADGE_R
                    } else {
                        0.0
                    };
                    needs.push((
                        lo,
                        hi,
                        w + 2.0 * LABEL_CLEAR + badge + boxed(m.to) + boxed(m.from) + BAR_W,
                    ));
                }
            }
            Event::Note { side, of, text } => {
                let w = Block::wrapped(text, NOTE_WRAP).width + 2.0 * NOTE_PAD;
                match (side, of) {
                    (Side::Right, (a, _)) if a + 1 < n => needs.push((*a, a + 1, w + 24.0)),
                    (Side::Left, (a, _)) if *a > 0 => needs.push((a - 1, *a, w + 24.0)),
                    (Side::Over, (a, Some(b))) => {
                        let (lo, hi) = (*a.min(b), *a.max(b));
                        needs.push((lo, hi, (w - 40.0).max(0.0)));
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    // Shortest spans first: the widest need between neighbours is met before a longer span is
    // measured.
    needs.sort_by_key(|&(lo, hi, _)| hi - lo);
    for (lo, hi, need) in needs {
        let short = need - (x[hi] - x[lo]);
        if short > 0.0 {
            for v in &mut x[hi..] {
                *v += short;
            }
        }
    }

    // Rows.
    let top = MARGIN
        + if seq.groups.iter().any(|g| !g.title.trim().is_empty()) {
            LINE_HEIGHT + 6.0
        } else if seq.groups.is_empty() {
            0.0
        } else {
            4.0
        };
    let mut y = top + head_h + 18.0;
    let mut heads: Vec<Option<Rect>> = (0..n)
        .map(|i| {
            (!seq.participants[i].created).then(|| Rect {
                x: x[i] - widths[i] / 2.0,
                y: top,
                w: widths[i],
                h: heights[i],
            })
        })
        .collect();
    // Where each destroyed participant's lifeline ends, and its box drawn there.
    let mut ends: Vec<Option<Rect>> = vec![None; n];
    // Open activation bars per participant: start y.
    let mut open_bars: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut bars: Vec<(usize, usize, f64, f64)> = Vec::new();
    let mut arrows: Vec<Arrow> = Vec::new();
    let mut notes = Vec::new();
    let mut frames: Vec<FrameBox> = Vec::new();
    // Open frames: (index in `frames`, reach).
    let mut stack: Vec<(usize, Reach)> = Vec::new();
    let mut last_arrow_y: Option<f64> = None;
    // The x where a message meets participant `i`'s bars, coming from `toward`.
    let edge_x = |open: &Vec<Vec<f64>>, i: usize, toward: f64| {
        let depth = open[i].len() as f64;
        if depth == 0.0 {
            x[i]
        } else if toward > x[i] {
            x[i] + BAR_W / 2.0 + (depth - 1.0) * BAR_W / 2.0
        } else {
            x[i] - BAR_W / 2.0
        }
    };
    let reach_all = |stack: &mut Vec<(usize, Reach)>, lo: f64, hi: f64| {
        if let Some((_, r)) = stack.last_mut() {
            r.add(lo, hi);
        }
    };
    let mut k = 0;
    for e in &seq.events {
        match e {
            Event::Message(m) => {
                let text = label(&m.text, MESSAGE_WRAP);
                let lh = text.as_ref().map_or(0.0, |b| b.height);
                let created = seq.participants[m.to].created && heads[m.to].is_none();
                if m.from == m.to {
                    let x0 = edge_x(&open_bars, m.from, f64::INFINITY);
                    let label_at = text.map(|b| {
                        let at = (x0 + 8.0 + b.width / 2.0, y + b.height / 2.0);
                        (at.0, at.1, b)
                    });
                    let y0 = y + lh + 6.0;
                    let points = vec![
                        (x0, y0),
                        (x0 + LOOP_W, y0),
                        (x0 + LOOP_W, y0 + LOOP_H),
                        (x0, y0 + LOOP_H),
                    ];
                    let right = label_at.as_ref().map_or(x0 + LOOP_W, |(cx, _, b)| {
                        (cx + b.width / 2.0).max(x0 + LOOP_W)
                    });
                    reach_all(&mut stack, x0 - BAR_W, right);
                    let badge = m.number.as_ref().map(|_| (x0 - BADGE_R - 2.0, y0));
                    if badge.is_some() {
                        reach_all(&mut stack, x0 - 2.0 * BADGE_R - 2.0, right);
                    }
                    last_arrow_y = Some(y0 + LOOP_H);
                    arrows.push(Arrow {
                        points,
                        label: label_at,
                        badge,
                    });
                    y = y0 + LOOP_H + 16.0;
                    let i = m.from;
                    if ends_at(i, k) && ends[i].is_none() {
                        let r = Rect {
                            x: x[i] - widths[i] / 2.0,
                            y: y0 + LOOP_H + 8.0,
                            w: widths[i],
                            h: heights[i],
                        };
                        y = r.bottom() + 14.0;
                        ends[i] = Some(r);
                    }
                } else {
                    // A participant created or destroyed here is drawn on the line.
                    let end_from = ends_at(m.from, k) && ends[m.from].is_none();
                    let end_to = ends_at(m.to, k) && ends[m.to].is_none();
                    let half_h = |i: usize, on: bool| if on { heights[i] / 2.0 } else { 0.0 };
                    let head_half = half_h(m.to, created || end_to).max(half_h(m.from, end_from));
                    let line_y = (y + lh + 8.0).max(y + head_half + 2.0);
                    let mut x1 = edge_x(&open_bars, m.from, x[m.to]);
                    let mut x2 = edge_x(&open_bars, m.to, x[m.from]);
                    let on_line = |i: usize| Rect {
                        x: x[i] - widths[i] / 2.0,
                        y: line_y - heights[i] / 2.0,
                        w: widths[i],
                        h: heights[i],
                    };
                    // Where a message meets a box on its line, coming from `toward` (a figure
                    // is narrower than its name).
                    let box_side = |i: usize, toward: f64| {
                        let half = if seq.participants[i].kind == Kind::Actor {
                            FIGURE_REACH
                        } else {
                            widths[i] / 2.0
                        };
                        if toward > x[i] {
                            x[i] + half
                        } else {
                            x[i] - half
                        }
                    };
                    if created {
                        heads[m.to] = Some(on_line(m.to));
                    }
                    if created || end_to {
                        x2 = box_side(m.to, x1);
                    }
                    if end_from {
                        x1 = box_side(m.from, x[m.to]);
                        ends[m.from] = Some(on_line(m.from));
                    }
                    if end_to {
                        ends[m.to] = Some(on_line(m.to));
                    }
                    let boxed = created || end_to || end_from;
                    let (lo, hi) = (x1.min(x2), x1.max(x2));
                    let label_at = text.map(|b| {
                        let mid = if boxed {
                            // Clear of the new participant's box.
                            (x1 + x2) / 2.0
                        } else {
                            (x[m.from] + x[m.to]) / 2.0
                        };
                        (mid, y + b.height / 2.0, b)
                    });
                    let badge = m.number.as_ref().map(|_| (x1, line_y));
                    reach_all(&mut stack, lo, hi);
                    // And the activation bars at its ends, so a frame's side never cuts one.
                    let (l, r) = (x[m.from].min(x[m.to]), x[m.from].max(x[m.to]));
                    reach_all(&mut stack, l - BAR_W, r + BAR_W);
                    if let Some((cx, _, b)) = &label_at {
                        reach_all(&mut stack, cx - b.width / 2.0, cx + b.width / 2.0);
                    }
                    if badge.is_some() {
                        reach_all(&mut stack, x1 - BADGE_R, x1 + BADGE_R);
                    }
                    last_arrow_y = Some(line_y);
                    arrows.push(Arrow {
                        points: vec![(x1, line_y), (x2, line_y)],
                        label: label_at,
                        badge,
                    });
                    y = line_y + if boxed { head_half + 14.0 } else { 16.0 };
                }
                let at = last_arrow_y.unwrap_or(y);
                if m.activate {
                    open_bars[m.to].push(at);
                }
                if m.deactivate
                    && let Some(start) = open_bars[m.from].pop()
                {
                    let depth = open_bars[m.from].len();
                    bars.push((m.from, depth, start, at.max(start + 8.0)));
                }
                k += 1;
            }
            Event::Note { side, of, text } => {
                let b = Block::wrapped(text, NOTE_WRAP);
                let (w, h) = (b.width + 2.0 * NOTE_PAD, b.height + 2.0 * NOTE_PAD);
                let (a, second) = *of;
                let nx = match (side, second) {
                    (Side::Right, _) => x[a] + BAR_W,
                    (Side::Left, _) => x[a] - BAR_W - w,
                    (Side::Over, Some(b2)) => {
                        let (l, r) = (x[a].min(x[b2]), x[a].max(x[b2]));
                        let span = (r - l) + 40.0;
                        if span > w {
                            l - 20.0
                        } else {
                            (l + r) / 2.0 - w / 2.0
                        }
                    }
                    (Side::Over, None) => x[a] - w / 2.0,
                };
                let w = match (side, second) {
                    (Side::Over, Some(b2)) => w.max((x[a] - x[b2]).abs() + 40.0),
                    _ => w,
                };
                let rect = Rect {
                    x: nx,
                    y: y + 2.0,
                    w,
                    h,
                };
                reach_all(&mut stack, rect.x, rect.right());
                y = rect.bottom() + 14.0;
                notes.push((rect, b));
            }
            Event::Activate(i) => {
                open_bars[*i].push(last_arrow_y.unwrap_or(y - 8.0));
            }
            Event::Deactivate(i) => {
                if let Some(start) = open_bars[*i].pop() {
                    let depth = open_bars[*i].len();
                    let end = last_arrow_y.unwrap_or(y).max(start + 8.0);
                    bars.push((*i, depth, start, end));
                }
            }
            Event::Start(kind, text, colour) => {
                let tab = width(kind.name()) + 18.0;
                let b = label(&bracketed(*kind, text), MESSAGE_WRAP);
                let h = b.as_ref().map_or(0.0, |b| b.height).max(TAB_H);
                frames.push(FrameBox {
                    kind: *kind,
                    rect: Rect {
                        x: 0.0,
                        y,
                        w: 0.0,
                        h: 0.0,
                    },
                    tab,
                    label: b.map(|b| (0.0, y + 2.0 + b.height / 2.0, b)),
                    dividers: Vec::new(),
                    depth: stack.len(),
                    colour: colour.clone(),
                });
                stack.push((frames.len() - 1, Reach::NONE));
                y += h + 12.0;
                // Messages arriving at a frame's first row attach below its header.
                last_arrow_y = None;
            }
            Event::Divide(text) => {
                if let Some((f, _)) = stack.last() {
                    let b = label(&bracketed(frames[*f].kind, text), MESSAGE_WRAP);
                    let h = b.as_ref().map_or(0.0, |b| b.height).max(LINE_HEIGHT);
                    let at = b.map(|b| (0.0, y + 4.0 + b.height / 2.0, b));
                    frames[*f].dividers.push((y, at));
                    y += h + 14.0;
                }
            }
            Event::End => {
                if let Some((f, reach)) = stack.pop() {
                    let fr = &mut frames[f];
                    let (lo, hi) = if reach.lo.is_finite() {
                        (reach.lo - FRAME_PAD, reach.hi + FRAME_PAD)
                    } else {
                        let c = x.first().copied().unwrap_or(0.0);
                        (c - 50.0, c + 50.0)
                    };
                    // Room for the tab and the labels.
                    let mut need = fr.tab;
                    if let Some((_, _, b)) = &fr.label {
                        need += b.width + 24.0;
                    }
                    for (_, d) in &fr.dividers {
                        if let Some((_, _, b)) = d {
                            need = need.max(b.width + 24.0);
                        }
                    }
                    let w = (hi - lo).max(need);
                    fr.rect = Rect {
                        x: lo,
                        y: fr.rect.y,
                        w,
                        h: y + 2.0 - fr.rect.y,
                    };
                    let tab = fr.tab;
                    if let Some((cx, _, b)) = &mut fr.label {
                        // Centred in what the tab leaves, as far right as it needs.
                        let room_l = lo + tab + 8.0;
                        *cx = (room_l + b.width / 2.0)
                            .max(lo + w / 2.0)
                            .min(lo + w - 8.0 - b.width / 2.0);
                    }
                    for (_, d) in &mut fr.dividers {
                        if let Some((cx, _, _)) = d {
                            *cx = lo + w / 2.0;
                        }
                    }
                    let (l, r) = (fr.rect.x, fr.rect.right());
                    y += 14.0;
                    reach_all(&mut stack, l, r);
                }
            }
        }
    }
    let bottom = y + 4.0;
    // The participants drawn again below the lifelines, as Mermaid does (its `mirrorActors`),
    // all at one height; lifelines run down to them.
    let foot_top = bottom + FOOT_GAP;
    let foot_bottom = foot_top + head_h;
    // Bars still open run to the end.
    for (i, open) in open_bars.iter().enumerate() {
        for (depth, start) in open.iter().enumerate() {
            bars.push((i, depth, *start, (bottom - 4.0).max(start + 8.0)));
        }
    }
    let bars: Vec<Rect> = bars
        .into_iter()
        .map(|(i, depth, start, end)| Rect {
            x: x[i] - BAR_W / 2.0 + depth as f64 * BAR_W / 2.0,
            y: start,
            w: BAR_W,
            h: end - start,
        })
        .collect();
    let mut out_heads: Vec<Lane> = (0..n)
        .map(|i| {
            // A created participant never reached keeps its place at the top.
            let rect = heads[i].unwrap_or(Rect {
                x: x[i] - widths[i] / 2.0,
                y: top,
                w: widths[i],
                h: heights[i],
            });
            // A destroyed participant stands again where its lifeline ends, the rest below.
            let foot = ends[i].unwrap_or(Rect {
                x: rect.x,
                y: foot_top,
                w: rect.w,
                h: heights[i],
            });
            Lane {
                rect,
                foot,
                text: names[i].clone(),
                lifeline: (x[i], rect.bottom(), foot.y.max(rect.bottom())),
            }
        })
        .collect();
    let mut groups: Vec<(Rect, Option<Placed>, Option<String>)> = seq
        .groups
        .iter()
        .filter(|g| !g.members.is_empty())
        .map(|g| {
            let lo = g
                .members
                .iter()
                .map(|&i| x[i] - widths[i] / 2.0)
                .fold(f64::INFINITY, f64::min)
                - GROUP_PAD;
            let hi = g
                .members
                .iter()
                .map(|&i| x[i] + widths[i] / 2.0)
                .fold(f64::NEG_INFINITY, f64::max)
                + GROUP_PAD;
            let title = label(&g.title, NAME_WRAP * 2.0).map(|b| {
                // (A block has at least one line.)
                let cy = MARGIN + LINE_HEIGHT / 2.0;
                ((lo + hi) / 2.0, cy, b)
            });
            let w = (hi - lo).max(title.as_ref().map_or(0.0, |(_, _, b)| b.width + 12.0));
            (
                Rect {
                    x: (lo + hi) / 2.0 - w / 2.0,
                    y: MARGIN - 4.0,
                    w,
                    h: foot_bottom + 4.0 - (MARGIN - 4.0),
                },
                title,
                g.colour.clone(),
            )
        })
        .collect();
    // A group's title keeps to one line's height: cut to its first line.
    for (_, t, _) in &mut groups {
        if let Some((_, _, b)) = t {
            if let Some(end) = b.text.find('\n') {
                b.text.truncate(end);
            }
            b.height = LINE_HEIGHT;
        }
    }
    // Everything from x = MARGIN.
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    let mut span = |a: f64, b: f64| {
        lo = lo.min(a);
        hi = hi.max(b);
    };
    for h in &out_heads {
        span(h.rect.x, h.rect.right());
    }
    for a in &arrows {
        for p in &a.points {
            span(p.0, p.0);
        }
        if let Some((cx, _, b)) = &a.label {
            span(cx - b.width / 2.0, cx + b.width / 2.0);
        }
        if let Some((cx, _)) = a.badge {
            span(cx - BADGE_R, cx + BADGE_R);
        }
    }
    for (r, _) in &notes {
        span(r.x, r.right());
    }
    for f in &frames {
        span(f.rect.x, f.rect.right());
    }
    for (r, _, _) in &groups {
        span(r.x, r.right());
    }
    if !lo.is_finite() {
        lo = 0.0;
        hi = 100.0;
    }
    let dx = MARGIN - lo;
    for h in &mut out_heads {
        h.rect.shift(dx);
        h.foot.shift(dx);
        h.lifeline.0 += dx;
    }
    for a in &mut arrows {
        for p in &mut a.points {
            p.0 += dx;
        }
        if let Some((cx, _, _)) = &mut a.label {
            *cx += dx;
        }
        if let Some((cx, _)) = &mut a.badge {
            *cx += dx;
        }
    }
    for (r, _) in &mut notes {
        r.shift(dx);
    }
    for f in &mut frames {
        f.rect.shift(dx);
        if let Some((cx, _, _)) = &mut f.label {
            *cx += dx;
        }
        for (_, d) in &mut f.dividers {
            if let Some((cx, _, _)) = d {
                *cx += dx;
            }
        }
    }
    let mut bars = bars;
    for b in &mut bars {
        b.shift(dx);
    }
    for (r, t, _) in &mut groups {
        r.shift(dx);
        if let Some((cx, _, _)) = t {
            *cx += dx;
        }
    }
    Drawing {
        width: hi - lo + 2.0 * MARGIN,
        height: foot_bottom + 4.0 + MARGIN,
        heads: out_heads,
        arrows,
        notes,
        frames,
        bars,
        groups,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(src: &str) -> Sequence {
        parse(src).expect("a sequence diagram").expect("readable")
    }

    #[test]
    fn participants_aliases_and_messages() {
        let s = parsed(
            "sequenceDiagram\n participant A as Alice\n actor J as John\n A->>J: Hello\n J-->>A: Hi\n A-)J: Later\n A-xJ: No\n A--xJ: No\n A->J: plain\n A-->J: dotted\n A<<->>J: both\n A--)J: async",
        );
        assert_eq!(s.participants.len(), 2);
        assert_eq!(s.participants[0].label, "Alice");
        assert_eq!(s.participants[1].kind, Kind::Actor);
        let kinds: Vec<(Line, Head, bool)> =
            s.messages().map(|m| (m.line, m.head, m.both)).collect();
        assert_eq!(
            kinds,
            [
                (Line::Solid, Head::Arrow, false),
                (Line::Dotted, Head::Arrow, false),
                (Line::Solid, Head::Open, false),
                (Line::Solid, Head::Cross, false),
                (Line::Dotted, Head::Cross, false),
                (Line::Solid, Head::None, false),
                (Line::Dotted, Head::None, false),
                (Line::Solid, Head::Arrow, true),
                (Line::Dotted, Head::Open, false),
            ]
        );
        let chart = s.as_flowchart();
        assert_eq!(chart.id_of(chart.edges[0].from), "A");
        assert_eq!(chart.id_of(chart.edges[0].to), "J");
        assert_eq!(chart.label_of("J"), "John");
    }

    #[test]
    fn names_with_dashes_and_spaces() {
        let s =
            parsed("sequenceDiagram\nmy-service->>Other One: call\nOther One-->>my-service: ok");
        let ids: Vec<&str> = s.participants.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["my-service", "Other One"]);
    }

    #[test]
    fn activations_notes_frames_and_numbers() {
        let s = parsed(
            "sequenceDiagram\nautonumber\nAlice->>+John: Hi\nJohn-->>-Alice: Yo\nactivate John\ndeactivate John\nNote over Alice,John: both\nloop Every minute\nJohn->>John: self\nend\nalt a\nA->>B: x\nelse b\nA->>B: y\nend",
        );
        let numbers: Vec<String> = s.messages().filter_map(|m| m.number.clone()).collect();
        assert_eq!(numbers, ["1", "2", "3", "4", "5"]);
        assert!(
            s.events
                .iter()
                .any(|e| matches!(e, Event::Divide(t) if t == "b"))
        );
        let d = layout(&s);
        assert_eq!(d.arrows.len(), 5);
        assert_eq!(d.frames.len(), 2);
        assert_eq!(d.bars.len(), 2);
    }

    #[test]
    fn only_plain_colours_pass() {
        for (written, read) in [
            ("Purple", "purple"),
            ("#ABC", "#abc"),
            ("#aabbcc80", "#aabbcc80"),
            ("rgb(191,223, 255)", "rgb(191, 223, 255)"),
            ("rgba(0, 0, 255, .1)", "rgba(0, 0, 255, .1)"),
            ("RGB(10%,20%,30.5%)", "rgb(10%, 20%, 30.5%)"),
        ] {
            assert_eq!(plain_colour(written).as_deref(), Some(read), "{written}");
        }
        for written in [
            "hsl(120, 50%, 50%)",
            "rgb(1,2)",
            "rgb(1,2,3,4,5)",
            "rgb(-1,2,3)",
            "rgb(1,2,3);fill:red",
            "rgb(1,2,3",
            "rgb(1 2 3)",
            "rgb(.,2,3)",
            "#12345",
            "#abcg",
            "var(--x)",
            "url(#a)",
            "notacolour",
        ] {
            assert_eq!(plain_colour(written), None, "{written}");
        }
    }

    #[test]
    fn plain_colours_are_read_into_their_parts() {
        assert_eq!(colour_parts("purple"), Some([128.0, 0.0, 128.0, 1.0]));
        assert_eq!(colour_parts("#abc"), Some([170.0, 187.0, 204.0, 1.0]));
        assert_eq!(
            colour_parts("#00ff0080"),
            Some([0.0, 255.0, 0.0, 128.0 / 255.0])
        );
        assert_eq!(
            colour_parts("rgba(10%, 0, 255, 50%)"),
            Some([25.5, 0.0, 255.0, 0.5])
        );
        assert_eq!(colour_parts("rgb(300, 0, 0)"), Some([255.0, 0.0, 0.0, 1.0]));
    }

    #[test]
    fn box_and_rect_colours_reach_the_layout() {
        let s = parsed(
            "sequenceDiagram\nbox Purple Team\nparticipant A\nend\nbox hsl(1,2%,3%) Other\nparticipant B\nend\nrect rgba(0, 0, 255, .1)\nA->>B: hi\nend\nrect hsl(1,2%,3%)\nB->>A: ok\nend",
        );
        let d = layout(&s);
        let colours: Vec<Option<&str>> = d.groups.iter().map(|g| g.2.as_deref()).collect();
        assert_eq!(colours, [Some("purple"), None]);
        let rects: Vec<Option<&str>> = d.frames.iter().map(|f| f.colour.as_deref()).collect();
        assert_eq!(rects, [Some("rgba(0, 0, 255, .1)"), None]);
        assert_eq!(
            s.ignored,
            [
                "box colours other than a name, rgb(…), rgba(…) or #hex",
                "rect colours other than a name, rgb(…), rgba(…) or #hex"
            ]
        );
    }

    #[test]
    fn participants_stand_again_below_and_a_created_one_at_its_message() {
        let s = parsed(
            "sequenceDiagram\nA->>B: one\nB->>A: two\ncreate participant C\nB->>C: make\nC->>A: three\ndestroy C\nA->>C: gone",
        );
        let d = layout(&s);
        let last_line = d
            .arrows
            .iter()
            .flat_map(|a| a.points.iter().map(|p| p.1))
            .fold(f64::MIN, f64::max);
        let make_y = d.arrows[2].points[0].1;
        let (a, c) = (&d.heads[0], &d.heads[2]);
        let gone_y = d.arrows[4].points[0].1;
        // C's box is centred on the line of the message that creates it, its lifeline starts
        // below that box, and ends at its box drawn again on the line of its last message,
        // which stops at that box's side.
        assert!((c.rect.cy() - make_y).abs() < 0.5, "{:?} {make_y}", c.rect);
        assert!(c.rect.y > a.rect.bottom());
        assert_eq!(c.lifeline.1, c.rect.bottom());
        assert!((c.foot.cy() - gone_y).abs() < 0.5, "{:?} {gone_y}", c.foot);
        assert_eq!(c.lifeline.2, c.foot.y);
        assert_eq!(d.arrows[4].points[1].0, c.foot.x);
        // A's and B's boxes again below the last message, their lifelines reaching them.
        for h in &d.heads[..2] {
            let foot = h.foot;
            assert!(foot.y > last_line + 4.0);
            assert_eq!(h.lifeline.2, foot.y);
            assert_eq!((foot.x, foot.w, foot.h), (h.rect.x, h.rect.w, h.rect.h));
            assert!(foot.bottom() < d.height);
        }
    }

    #[test]
    fn entities_and_breaks_are_decoded() {
        assert_eq!(decode("I #9829; you #infin; times"), "I ♥ you ∞ times");
        assert_eq!(decode("a<br/>b<BR>c"), "a\nb\nc");
        assert_eq!(decode("#x41; #unknown; # x"), "A #unknown; # x");
        let s = parsed("sequenceDiagram\nA->>B: I #9829; you!; B->>A: ok");
        assert_eq!(s.messages().count(), 2);
        assert_eq!(
            s.messages().next().map(|m| m.text.as_str()),
            Some("I ♥ you!")
        );
    }

    #[test]
    fn what_cannot_be_read_says_where() {
        for (src, needle) in [
            ("sequenceDiagram\nA->>B: hi\nloop x\nA->>B: y", "not closed"),
            ("sequenceDiagram\nend", "nothing open"),
            ("sequenceDiagram\nA-|\\B: half", "half arrow"),
            ("sequenceDiagram\nelse x", "outside"),
            ("sequenceDiagram\nfoo bar", "`foo`"),
            (
                "sequenceDiagram\nparticipant A@{ \"type\": \"blob\" }",
                "unknown participant type",
            ),
        ] {
            let e = parse(src).expect("sequence").expect_err(src);
            assert!(e.message.contains(needle), "{src}: {}", e.message);
            assert!(e.offset <= src.len());
        }
        let e = parse("sequenceDiagram\nA->>B: ok\nfoo bar")
            .unwrap()
            .unwrap_err();
        assert_eq!(e.offset, "sequenceDiagram\nA->>B: ok\n".len());
        assert!(parse("graph TD; A-->B").is_none());
    }
}
