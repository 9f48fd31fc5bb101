//! A drawing's geometry read back from the SVG text the engine wrote (boxes from the
//! `data-node` groups, lines and labels from the `data-edge` groups), and the faults found in
//! it: two boxes that overlap, a line through a box it does not join, a label on a box, a
//! subgraph title under a line or over an arrowhead; and the pairs of lines that cross.

/// An axis-aligned box: left, top, right, bottom.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Box4(pub f64, pub f64, pub f64, pub f64);

impl Box4 {
    fn inset(self, by: f64) -> Box4 {
        Box4(self.0 + by, self.1 + by, self.2 - by, self.3 - by)
    }
    fn overlaps(self, o: Box4) -> bool {
        self.0 < o.2 && o.0 < self.2 && self.1 < o.3 && o.1 < self.3
    }
    fn contains(self, x: f64, y: f64) -> bool {
        self.0 < x && x < self.2 && self.1 < y && y < self.3
    }
    fn grow(&mut self, x: f64, y: f64) {
        *self = Box4(self.0.min(x), self.1.min(y), self.2.max(x), self.3.max(y));
    }
}

pub(crate) fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let at = tag.find(&key)? + key.len();
    let len = tag[at..].find('"')?;
    Some(&tag[at..at + len])
}

fn num(tag: &str, name: &str) -> f64 {
    attr(tag, name).and_then(|v| v.parse().ok()).unwrap_or(0.0)
}

fn numbers(s: &str) -> Vec<f64> {
    s.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e'))
        .filter_map(|t| t.parse().ok())
        .collect()
}

/// The points along a path's `d` (M, L, Q, C and Z; curves sampled), one list per subpath.
fn path_points(d: &str) -> Vec<(f64, f64)> {
    let mut pts: Vec<(f64, f64)> = Vec::new();
    let mut cmd = ' ';
    let mut buf = String::new();
    let flush = |cmd: char, buf: &str, pts: &mut Vec<(f64, f64)>| {
        let v = numbers(buf);
        match cmd {
            'M' | 'L' => pts.extend(v.chunks(2).filter(|c| c.len() == 2).map(|c| (c[0], c[1]))),
            'Q' => {
                for c in v.chunks(4).filter(|c| c.len() == 4) {
                    let p0 = *pts.last().unwrap_or(&(c[2], c[3]));
                    for k in 1..=24 {
                        let t = k as f64 / 24.0;
                        let u = 1.0 - t;
                        let b = |a: f64, b: f64, c2: f64| u * u * a + 2.0 * u * t * b + t * t * c2;
                        pts.push((b(p0.0, c[0], c[2]), b(p0.1, c[1], c[3])));
                    }
                }
            }
            'C' => {
                for c in v.chunks(6).filter(|c| c.len() == 6) {
                    let p0 = *pts.last().unwrap_or(&(c[4], c[5]));
                    for k in 1..=24 {
                        let t = k as f64 / 24.0;
                        let u = 1.0 - t;
                        let b = |a: f64, b: f64, c2: f64, d: f64| {
                            u * u * u * a
                                + 3.0 * u * u * t * b
                                + 3.0 * u * t * t * c2
                                + t * t * t * d
                        };
                        pts.push((b(p0.0, c[0], c[2], c[4]), b(p0.1, c[1], c[3], c[5])));
                    }
                }
            }
            _ => {}
        }
    };
    for ch in d.chars() {
        if ch.is_ascii_alphabetic() && ch != 'e' {
            flush(cmd, &buf, &mut pts);
            buf.clear();
            cmd = ch;
        } else {
            buf.push(ch);
        }
    }
    flush(cmd, &buf, &mut pts);
    pts
}

/// Whether the segment a→b passes through the inside of `b4`.
fn crosses(a: (f64, f64), b: (f64, f64), b4: Box4) -> bool {
    let steps = (((b.0 - a.0).abs() + (b.1 - a.1).abs()) / 2.0)
        .ceil()
        .max(1.0) as usize;
    (0..=steps).any(|k| {
        let t = k as f64 / steps as f64;
        b4.contains(a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t)
    })
}

/// Edge key, its line's points, its label's box.
pub(crate) type ReadEdge = (String, Vec<(f64, f64)>, Option<Box4>);

pub(crate) struct Read {
    /// Node id → its box.
    pub(crate) nodes: Vec<(String, Box4)>,
    /// Subgraph id → its box.
    pub(crate) clusters: Vec<(String, Box4)>,
    pub(crate) edges: Vec<ReadEdge>,
    /// Each arrowhead's corners.
    pub(crate) heads: Vec<Vec<(f64, f64)>>,
    /// Each subgraph title's words, its patch (if it has one), and whether an edge is drawn
    /// after it (over it).
    pub(crate) titles: Vec<(String, Option<Box4>, bool)>,
}

/// Reads node boxes and edge lines and labels back from the SVG the engine wrote.
pub(crate) fn read_svg(svg: &str) -> Read {
    let mut read = Read {
        nodes: Vec::new(),
        clusters: Vec::new(),
        edges: Vec::new(),
        heads: Vec::new(),
        titles: Vec::new(),
    };
    for group in svg.split("<g ").skip(1) {
        let head = &group[..group.find('>').unwrap_or(group.len())];
        let body = &group[..group.find("</g>").unwrap_or(group.len())];
        let tags: Vec<&str> = body.split('<').skip(1).collect();
        if head.contains("pb-d-edge") {
            for t in tags.iter().filter(|t| t.contains("pb-d-head")) {
                read.heads
                    .push(path_points(attr(&format!(" {t}"), "d").unwrap_or("")));
            }
            for title in &mut read.titles {
                title.2 = true;
            }
        }
        for (i, t) in tags.iter().enumerate() {
            if !t.starts_with("text") || !t.contains("pb-d-cluster-title") {
                continue;
            }
            let words = t.split_once('>').map_or("", |(_, w)| w).to_string();
            let patch = i
                .checked_sub(1)
                .map(|j| format!(" {}", tags[j]))
                .filter(|p| p.contains("pb-d-cluster-title-bg"))
                .map(|p| {
                    let (x, y) = (num(&p, "x"), num(&p, "y"));
                    Box4(x, y, x + num(&p, "width"), y + num(&p, "height"))
                });
            read.titles.push((words, patch, false));
        }
        if let Some(id) = attr(&format!(" {head}"), "data-node") {
            if head.contains("pb-d-cluster") {
                if let Some(t) = tags.iter().find(|t| t.contains("pb-d-cluster-box")) {
                    let t = format!(" {t}");
                    let (x, y) = (num(&t, "x"), num(&t, "y"));
                    let b = Box4(x, y, x + num(&t, "width"), y + num(&t, "height"));
                    read.clusters.push((id.to_string(), b));
                }
                continue;
            }
            let mut b = Box4(f64::MAX, f64::MAX, f64::MIN, f64::MIN);
            for t in &tags {
                if t.starts_with("text") || t.starts_with("tspan") || t.starts_with('/') {
                    continue;
                }
                let t = format!(" {t}");
                if t.starts_with(" rect") {
                    let (x, y) = (num(&t, "x"), num(&t, "y"));
                    b.grow(x, y);
                    b.grow(x + num(&t, "width"), y + num(&t, "height"));
                } else if t.starts_with(" ellipse") {
                    let (cx, cy, rx, ry) =
                        (num(&t, "cx"), num(&t, "cy"), num(&t, "rx"), num(&t, "ry"));
                    b.grow(cx - rx, cy - ry);
                    b.grow(cx + rx, cy + ry);
                } else if t.starts_with(" polygon") {
                    for c in numbers(attr(&t, "points").unwrap_or("")).chunks(2) {
                        if c.len() == 2 {
                            b.grow(c[0], c[1]);
                        }
                    }
                } else if t.starts_with(" path") {
                    // Its M, L and curves' points (a cylinder's V and A are within its ellipse).
                    for (x, y) in path_points(attr(&t, "d").unwrap_or("")) {
                        b.grow(x, y);
                    }
                }
            }
            read.nodes.push((id.to_string(), b));
        } else if let Some(key) = attr(&format!(" {head}"), "data-edge") {
            if head.contains("pb-d-invisible") {
                continue;
            }
            let mut line = Vec::new();
            let mut label = None;
            for t in &tags {
                let t = format!(" {t}");
                if t.starts_with(" path") && t.contains("pb-d-line") {
                    line = path_points(attr(&t, "d").unwrap_or(""));
                } else if t.starts_with(" rect") && t.contains("pb-d-label-bg") {
                    let (x, y) = (num(&t, "x"), num(&t, "y"));
                    label = Some(Box4(x, y, x + num(&t, "width"), y + num(&t, "height")));
                }
            }
            read.edges.push((key.to_string(), line, label));
        }
    }
    read
}

/// What is wrong with a drawing, in words (empty when nothing is).
pub(crate) fn geometry_faults(svg: &str) -> Vec<String> {
    let read = read_svg(svg);
    let mut faults = Vec::new();
    for (i, (a, ba)) in read.nodes.iter().enumerate() {
        for (b, bb) in &read.nodes[i + 1..] {
            if ba.inset(0.5).overlaps(bb.inset(0.5)) {
                faults.push(format!("boxes {a} and {b} overlap"));
            }
        }
    }
    for (key, line, label) in &read.edges {
        let base = key.split('#').next().unwrap_or(key);
        let (from, to) = base.split_once('→').unwrap_or((base, base));
        for (id, b) in &read.nodes {
            if id == from || id == to {
                continue;
            }
            let inner = b.inset(1.0);
            if line.windows(2).any(|w| crosses(w[0], w[1], inner)) {
                faults.push(format!("edge {key} passes through {id}"));
            }
            if let Some(l) = label
                && l.inset(0.5).overlaps(*b)
            {
                faults.push(format!("the label of {key} lies on {id}"));
            }
        }
    }
    // Subgraph titles go over the edges, each on a patch that hides what passes behind its
    // words but no arrowhead (one whose corner it clips by a pixel or so still reads as one).
    for (words, patch, edge_over) in &read.titles {
        if *edge_over {
            faults.push(format!("an edge is drawn over the title {words:?}"));
        }
        let Some(patch) = patch else {
            faults.push(format!("the title {words:?} has no patch"));
            continue;
        };
        if read
            .heads
            .iter()
            .any(|h| h.iter().any(|&(x, y)| patch.inset(1.5).contains(x, y)))
        {
            faults.push(format!("the title {words:?} hides an arrowhead"));
        }
    }
    faults
}

/// Where segment p1→p2 crosses segment q1→q2, if it does at one point (segments that run
/// along each other do not cross).
fn segment_crossing(
    p1: (f64, f64),
    p2: (f64, f64),
    q1: (f64, f64),
    q2: (f64, f64),
) -> Option<(f64, f64)> {
    let cross = |a: (f64, f64), b: (f64, f64)| a.0 * b.1 - a.1 * b.0;
    let r = (p2.0 - p1.0, p2.1 - p1.1);
    let s = (q2.0 - q1.0, q2.1 - q1.1);
    let denom = cross(r, s);
    if denom.abs() < 1e-9 {
        return None;
    }
    let w = (q1.0 - p1.0, q1.1 - p1.1);
    let t = cross(w, s) / denom;
    let u = cross(w, r) / denom;
    let inside = |v: f64| (-1e-9..=1.0 + 1e-9).contains(&v);
    (inside(t) && inside(u)).then_some((p1.0 + r.0 * t, p1.1 + r.1 * t))
}

/// How far from a shared node a meeting of two of its edges counts as their ports' business,
/// not a crossing: lines stop short of a node by their arrowhead's length (about 8 px).
const PORT_REACH: f64 = 10.0;

/// The pairs of edges whose drawn lines cross, as data-edge keys. Two edges of a common node
/// that meet next to it (its box grown by [`PORT_REACH`], or, for a subgraph, near where
/// their lines end on it) share a port rather than cross.
pub(crate) fn crossing_edges(svg: &str) -> Vec<(String, String)> {
    let read = read_svg(svg);
    let ends = |key: &str| -> (String, String) {
        let base = key.split('#').next().unwrap_or(key);
        let (from, to) = base.split_once('→').unwrap_or((base, base));
        (from.to_string(), to.to_string())
    };
    let bounds = |line: &[(f64, f64)]| {
        let mut b = Box4(f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for &(x, y) in line {
            b.grow(x, y);
        }
        b
    };
    let near = |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).hypot(a.1 - b.1) < PORT_REACH;
    let edges: Vec<_> = read
        .edges
        .iter()
        .filter(|(_, line, _)| line.len() >= 2)
        .map(|(key, line, _)| (key, ends(key), line, bounds(line)))
        .collect();
    let mut pairs = Vec::new();
    for (i, (ka, (fa, ta), la, ba)) in edges.iter().enumerate() {
        for (kb, (fb, tb), lb, bb) in &edges[i + 1..] {
            if !ba.inset(-0.5).overlaps(bb.inset(-0.5)) {
                continue;
            }
            let shared: Vec<&String> = [fa, ta]
                .into_iter()
                .filter(|n| *n == fb || *n == tb)
                .collect();
            // Whether a meeting point lies at a shared node's ports.
            let at_port = |p: (f64, f64)| {
                shared.iter().any(|&n| {
                    if let Some((_, b)) = read.nodes.iter().find(|(id, _)| id == n) {
                        return b.inset(-PORT_REACH).contains(p.0, p.1);
                    }
                    let line_end = |from: &String, line: &[(f64, f64)]| {
                        if from == n {
                            line[0]
                        } else {
                            line[line.len() - 1]
                        }
                    };
                    near(p, line_end(fa, la)) || near(p, line_end(fb, lb))
                })
            };
            let crossed = la.windows(2).any(|a| {
                lb.windows(2)
                    .any(|b| segment_crossing(a[0], a[1], b[0], b[1]).is_some_and(|p| !at_port(p)))
            });
            if crossed {
                pairs.push((ka.to_string(), kb.to_string()));
            }
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_finds_an_edge_through_a_box() {
        let svg = "<svg><g class=\"pb-d-node\" data-node=\"A\"><rect x=\"0\" y=\"0\" width=\"10\" height=\"10\"/></g>\
            <g class=\"pb-d-node\" data-node=\"B\"><rect x=\"0\" y=\"40\" width=\"10\" height=\"10\"/></g>\
            <g class=\"pb-d-node\" data-node=\"C\"><rect x=\"0\" y=\"80\" width=\"10\" height=\"10\"/></g>\
            <g class=\"pb-d-edge\" data-edge=\"A→C\"><path class=\"pb-d-line\" d=\"M5 10 C5 30 5 60 5 80\"/></g></svg>";
        assert_eq!(geometry_faults(svg), ["edge A→C passes through B"]);
    }

    #[test]
    fn the_check_finds_a_title_under_an_edge_or_over_an_arrowhead() {
        let title = "<g class=\"pb-d-cluster-label\"><rect class=\"pb-d-cluster-title-bg\" x=\"10\" y=\"10\" width=\"60\" height=\"15\"/>\
            <text class=\"pb-d-cluster-title\" x=\"40\" y=\"22\">Group</text></g>";
        let edge = |head_y: f64| {
            format!(
                "<g class=\"pb-d-edge\" data-edge=\"A→B\"><path class=\"pb-d-head\" d=\"M40,{head_y} L35,{} L45,{} Z\"/>\
                <path class=\"pb-d-line\" d=\"M40,0 L40,{head_y}\"/></g>",
                head_y - 9.0,
                head_y - 9.0
            )
        };
        // Over the edge, its arrowhead clear of the patch: nothing wrong.
        assert!(geometry_faults(&format!("<svg>{}{title}</svg>", edge(40.0))).is_empty());
        assert_eq!(
            geometry_faults(&format!("<svg>{title}{}</svg>", edge(40.0))),
            ["an edge is drawn over the title \"Group\""]
        );
        assert_eq!(
            geometry_faults(&format!("<svg>{}{title}</svg>", edge(30.0))),
            ["the title \"Group\" hides an arrowhead"]
        );
    }

    #[test]
    fn the_check_follows_a_rounded_bend() {
        // Both ends of the quadratic are clear of B; its middle is not.
        let svg = "<svg><g class=\"pb-d-node\" data-node=\"A\"><rect x=\"0\" y=\"0\" width=\"10\" height=\"10\"/></g>\
            <g class=\"pb-d-node\" data-node=\"B\"><rect x=\"0\" y=\"40\" width=\"10\" height=\"10\"/></g>\
            <g class=\"pb-d-node\" data-node=\"C\"><rect x=\"0\" y=\"80\" width=\"10\" height=\"10\"/></g>\
            <g class=\"pb-d-edge\" data-edge=\"A→C\"><path class=\"pb-d-line\" d=\"M10 10 L20 20 Q-10 45 20 70 L10 80\"/></g></svg>";
        assert_eq!(geometry_faults(svg), ["edge A→C passes through B"]);
    }

    #[test]
    fn the_crossing_count_sees_a_cross_but_not_a_shared_port() {
        let node = |id: &str, x: i32, y: i32| {
            format!(
                "<g class=\"pb-d-node\" data-node=\"{id}\"><rect x=\"{x}\" y=\"{y}\" width=\"20\" height=\"10\"/></g>"
            )
        };
        let edge = |key: &str, d: &str| {
            format!(
                "<g class=\"pb-d-edge\" data-edge=\"{key}\"><path class=\"pb-d-line\" d=\"{d}\"/></g>"
            )
        };
        let svg = [
            node("A", 0, 0),
            node("B", 100, 0),
            node("C", 0, 100),
            node("D", 100, 100),
            // A→D and B→C cross midway; A→C and A→D leave A from one point.
            edge("A→D", "M10 10 L110 100"),
            edge("B→C", "M110 10 C80 40 40 70 10 100"),
            edge("A→C", "M10 10 L10 100"),
        ]
        .concat();
        assert_eq!(
            crossing_edges(&format!("<svg>{svg}</svg>")),
            [("A→D".to_string(), "B→C".to_string())]
        );
    }
}
