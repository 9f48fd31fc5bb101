//! One statement read left to right: node ids with their shapes and labels, `@{ … }`
//! attributes, and the links between them with their arrows, strokes and labels.

use super::Unsupported;
use super::label::{has_icon, label_text};
use crate::diagram::line::{Marker, Stroke};
use crate::diagram::shapes::Shape;
use crate::diagram::text::Emphasis;

/// A node as written: the id is borrowed from the source, and copied only for a new node.
pub(super) struct NodeSpec<'s> {
    pub(super) id: &'s str,
    pub(super) label: Option<String>,
    pub(super) shape: Option<Shape>,
    pub(super) emphasis: Vec<Emphasis>,
    /// The class a `:::class` after it names.
    pub(super) class: Option<&'s str>,
    /// Warnings about it (an icon, an unknown shape name).
    pub(super) notes: Vec<String>,
}

pub(super) struct Link {
    /// The label's text and its emphasis.
    pub(super) label: Option<(String, Vec<Emphasis>)>,
    pub(super) stroke: Stroke,
    pub(super) start: Marker,
    pub(super) end: Marker,
    pub(super) length: usize,
}

pub(super) struct Cursor<'s> {
    pub(super) s: &'s str,
    pub(super) pos: usize,
    pub(super) base: usize,
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
    pub(super) fn rest(&self) -> &'s str {
        &self.s[self.pos..]
    }

    pub(super) fn at_end(&self) -> bool {
        self.pos >= self.s.len()
    }

    pub(super) fn skip_ws(&mut self) {
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
        // `%%` comment lines inside a statement that goes on over them (a link on a later
        // line).
        if self.rest().starts_with("%%") && self.pos > 0 && bytes[..self.pos].contains(&b'\n') {
            self.pos += self.rest().find('\n').unwrap_or(self.rest().len());
            self.skip_ws();
        }
    }

    pub(super) fn error(&self, message: String) -> Unsupported {
        Unsupported {
            offset: self.base + self.pos,
            message,
        }
    }

    /// An id with an optional shape and label: `A`, `A[Text]`, `B{"Quoted"}`, `C((Round))`.
    /// Ids may hold `-`, `.`, `/` and `:` between their letters (`my-node`, `P1.5`,
    /// `data/inputs`, `svc:api`, as Mermaid's node strings may), never where a link starts
    /// (`A-->B`, `A-.->B`) or a class does (`A:::c`), and `*` anywhere (`mir_borrowck*`: a
    /// node string or Mermaid's `MULT` token).
    pub(super) fn node(&mut self) -> Result<Option<NodeSpec<'s>>, Unsupported> {
        let start = self.pos;
        let r = self.rest();
        let bytes = r.as_bytes();
        let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$' || c == '*';
        let mut id_len = 0;
        for (i, c) in r.char_indices() {
            if word(c) {
                id_len = i + c.len_utf8();
            } else if (c == '-' || c == '.' || c == '/' || (c == ':' && !r[i..].starts_with(":::")))
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
            class: None,
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
            spec.class = Some(&self.rest()[3..skip]).filter(|c| !c.is_empty());
            self.pos += skip;
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
    pub(super) fn shape(&mut self) -> Result<Option<(String, Shape, Vec<Emphasis>)>, Unsupported> {
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
    pub(super) fn arrow(&mut self) -> Result<Link, Unsupported> {
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
pub(super) fn find_ascii(hay: &str, needle: &str) -> Option<usize> {
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

/// The shape Mermaid's `@{ shape: … }` name stands for, by its short name or an alias (the
/// flowchart page's shape table); `None` for a name not in the table.
pub(super) fn shape_named(name: &str) -> Option<Shape> {
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

pub(super) fn preview(s: &str) -> String {
    s.chars().take(20).collect()
}
