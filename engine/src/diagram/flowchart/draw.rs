//! The SVG of a laid-out flowchart: subgraph boxes, then edges with their markers and labels,
//! subgraph titles over them, then nodes. Each node is a `data-node` group and each edge a
//! `data-edge` group keyed `FROM→TO`, `FROM→TO#2`, … for repeated pairs: what comments are
//! pinned to.

use super::describe::describe;
use super::layout::{ClusterBox, Drawing, EdgePath, LABEL_PAD_X, LABEL_PAD_Y};
use super::{Edge, Flowchart, Subgraph};
use crate::diagram::colour::Colour;
use crate::diagram::geometry::{self, Bounds, Pt};
use crate::diagram::line::{Marker, Stroke};
use crate::diagram::shapes::{self, Shape};
use crate::diagram::style::{self, Painted};
use crate::diagram::svg::label::{lines, lines_styled};
use crate::diagram::svg::number::{push_num, push_path, push_pt};
use crate::diagram::svg::shape::shape_element_painted;
use crate::diagram::svg::theme::{colour, paint};
use crate::diagram::svg::writer::plain;
use crate::diagram::svg::writer::{Plain, Run, Val, Writer, run};
use crate::diagram::svg::{CLUSTER_TITLE, Frame, TEXT, start};
use crate::diagram::text::Block;

/// Appends the path through `points`, its ends moved to `first` and `last`: smooth
/// (`geometry::curve`), or, for an edge routed around boxes, straight runs whose bends are
/// rounded (`geometry::bend`, the radius the router checked against the boxes).
pub fn push_curve(d: &mut String, points: &[Pt], first: Pt, last: Pt, axis: Pt, straight: bool) {
    d.push('M');
    push_pt(d, first);
    let n = points.len();
    if straight || n == 2 {
        let at = |i: usize| match i {
            0 => first,
            i if i == n - 1 => last,
            i => points[i],
        };
        for (i, &c) in points.iter().enumerate().take(n - 1).skip(1) {
            d.push_str(" L");
            match geometry::bend(at(i - 1), c, at(i + 1), geometry::BEND) {
                Some((into, out)) => {
                    push_pt(d, into);
                    d.push_str(" Q");
                    push_pt(d, c);
                    d.push(' ');
                    push_pt(d, out);
                }
                None => push_pt(d, c),
            }
        }
        d.push_str(" L");
        push_pt(d, last);
        return;
    }
    for [_, c1, c2, q] in geometry::curve(points, first, last, axis) {
        d.push_str(" C");
        push_pt(d, c1);
        d.push(' ');
        push_pt(d, c2);
        d.push(' ');
        push_pt(d, q);
    }
}

const HEAD_LEN: f64 = 9.0;

const HEAD_HALF: f64 = 4.5;

const DOT_R: f64 = 4.0;

/// Draws the marker whose tip is `tip`, arriving along `dir`; returns how far the line
/// should stop short of the tip.
/// The theme's light colours an author's style is laid over.
const NODE_FILL: Colour = Colour::rgb(0xeef4ff);
const NODE_LINE: Colour = Colour::rgb(0x4a6fa5);
const LINE: Colour = Colour::rgb(0x57606a);
const BG: Colour = Colour::rgb(0xffffff);
const CLUSTER_FILL: Colour = Colour::rgb(0xf6f8fa);
const CLUSTER_LINE: Colour = Colour::rgb(0x8c959f);

/// Draws the marker whose tip is `tip`, arriving along `dir`, in the theme's line colour or
/// `authored`; returns how far the line should stop short of the tip.
pub fn marker(
    w: &mut Writer,
    m: Marker,
    tip: Pt,
    dir: Pt,
    thick: bool,
    authored: Option<&str>,
) -> f64 {
    let scale = if thick { 1.3 } else { 1.0 };
    let normal = Pt::new(-dir.y, dir.x);
    match m {
        Marker::None => 0.0,
        Marker::Arrow => {
            let base = tip.minus(dir.scale(HEAD_LEN * scale));
            let a = base.plus(normal.scale(HEAD_HALF * scale));
            let b = base.minus(normal.scale(HEAD_HALF * scale));
            let d = |d: &mut String| {
                push_path(d, &[("M", &[tip]), (" L", &[a]), (" L", &[b]), (" Z", &[])]);
            };
            match authored {
                Some(c) => w.leaf(
                    "path",
                    &[
                        ("class", plain!("pb-d-head pb-d-authored")),
                        ("d", Val::Ours(&d)),
                        ("fill", Val::Text(c)),
                        ("stroke", Val::Text(c)),
                        ("stroke-width", plain!("1")),
                    ],
                ),
                None => w.leaf_painted(
                    "path",
                    &[("class", plain!("pb-d-head")), ("d", Val::Ours(&d))],
                    paint::HEAD,
                ),
            }
            HEAD_LEN * scale - 1.0
        }
        Marker::Circle => {
            let c = tip.minus(dir.scale(DOT_R));
            w.leaf(
                "circle",
                &[
                    (
                        "class",
                        match authored {
                            Some(_) => plain!("pb-d-head-open pb-d-authored"),
                            None => plain!("pb-d-head-open"),
                        },
                    ),
                    ("cx", Val::Num(c.x)),
                    ("cy", Val::Num(c.y)),
                    ("r", Val::Num(DOT_R)),
                    ("fill", colour::BG),
                    ("stroke", authored.map_or(colour::LINE, Val::Text)),
                    ("stroke-width", plain!("1.5")),
                ],
            );
            2.0 * DOT_R
        }
        Marker::Cross => {
            let c = tip.minus(dir.scale(5.0));
            let (u, v) = (dir.plus(normal).scale(3.5), dir.minus(normal).scale(3.5));
            let d = |d: &mut String| {
                push_path(
                    d,
                    &[
                        ("M", &[c.minus(u)]),
                        (" L", &[c.plus(u)]),
                        (" M", &[c.minus(v)]),
                        (" L", &[c.plus(v)]),
                    ],
                );
            };
            w.leaf(
                "path",
                &[
                    (
                        "class",
                        match authored {
                            Some(_) => plain!("pb-d-cross pb-d-authored"),
                            None => plain!("pb-d-cross"),
                        },
                    ),
                    ("d", Val::Ours(&d)),
                    ("stroke", authored.map_or(colour::LINE, Val::Text)),
                    ("stroke-width", plain!("2")),
                ],
            );
            0.0
        }
    }
}

/// The end `end` of a segment from `before`, moved back by `by` along it if the segment is
/// long enough.
fn shortened(end: Pt, before: Pt, by: f64) -> Pt {
    if by <= 0.0 {
        return end;
    }
    let seg = end.minus(before);
    match seg.unit() {
        Some(u) if seg.len() > by + 2.0 => end.minus(u.scale(by)),
        _ => end,
    }
}

fn edge(w: &mut Writer, chart: &Flowchart, i: usize, path: &EdgePath, key: &str) {
    let e = &chart.edges[i];
    let stroke = match e.stroke {
        Stroke::Solid => plain!("pb-d-edge pb-d-solid"),
        Stroke::Dotted => plain!("pb-d-edge pb-d-dotted"),
        Stroke::Thick => plain!("pb-d-edge pb-d-thick"),
        Stroke::Invisible => plain!("pb-d-edge pb-d-invisible"),
    };
    w.open("g", &[("class", stroke), ("data-edge", Val::Text(key))]);
    w.newline();
    // The author's colours (`linkStyle`), over the theme's for this kind of line; a fill
    // means nothing on a line, so the label keeps the page's background.
    let width = if e.stroke == Stroke::Thick { 3.0 } else { 1.5 };
    let authored = chart.styles.edge(i).and_then(|s| {
        let mut s = s.clone();
        s.fill = None;
        if s.dash.is_none() && e.stroke == Stroke::Dotted {
            s.dash = Some(vec![3.0, 4.0]);
        }
        style::painted(&s, BG, LINE, width)
    });
    let head = authored.as_ref().map(|p| p.stroke.as_str());
    let points = &path.points[..];
    let n = points.len();
    // The ends, moved back for their markers.
    let (mut first, mut last) = (points[0], points[n - 1]);
    let thick = e.stroke == Stroke::Thick;
    if e.stroke != Stroke::Invisible {
        let end_dir = points[n - 1].minus(points[n - 2]).unit();
        let start_dir = points[0].minus(points[1]).unit();
        let mut back_end = 0.0;
        let mut back_start = 0.0;
        if let Some(d) = end_dir {
            back_end = marker(w, e.end, points[n - 1], d, thick, head);
        }
        if let Some(d) = start_dir {
            back_start = marker(w, e.start, points[0], d, thick, head);
        }
        last = shortened(last, points[n - 2], back_end);
        // With two points, the start's neighbour is the end as just moved.
        let next = if n == 2 { last } else { points[1] };
        first = shortened(first, next, back_start);
    }
    let d = |d: &mut String| push_curve(d, points, first, last, path.axis, path.straight);
    let class = match e.stroke {
        Stroke::Invisible => plain!("pb-d-hidden"),
        _ => plain!("pb-d-line"),
    };
    match authored.as_ref().filter(|_| e.stroke != Stroke::Invisible) {
        Some(p) => {
            let mut attrs = vec![
                ("class", plain!("pb-d-line pb-d-authored")),
                ("d", Val::Ours(&d)),
                ("fill", plain!("none")),
                ("stroke", Val::Text(&p.stroke)),
                ("stroke-width", Val::Text(&p.stroke_width)),
            ];
            if let Some(dash) = &p.dash {
                attrs.push(("stroke-dasharray", Val::Text(dash)));
            }
            w.leaf("path", &attrs);
        }
        None => w.leaf_painted(
            "path",
            &[("class", class), ("d", Val::Ours(&d))],
            paint::line(e.stroke),
        ),
    }
    if let Some((at, block)) = &path.label {
        let bw = block.width + 2.0 * LABEL_PAD_X;
        let bh = block.height + 2.0 * LABEL_PAD_Y;
        w.leaf(
            "rect",
            &[
                (
                    "class",
                    match authored {
                        Some(_) => plain!("pb-d-label-bg pb-d-authored"),
                        None => plain!("pb-d-label-bg"),
                    },
                ),
                ("x", Val::Num(at.x - bw / 2.0)),
                ("y", Val::Num(at.y - bh / 2.0)),
                ("width", Val::Num(bw)),
                ("height", Val::Num(bh)),
                ("rx", plain!("3")),
                (
                    "fill",
                    authored.as_ref().map_or(colour::BG, |p| Val::Text(&p.fill)),
                ),
            ],
        );
        let styled = e
            .label
            .as_deref()
            .filter(|_| !e.label_emphasis.is_empty())
            .map(|label| (label, &e.label_emphasis[..]));
        match &authored {
            Some(p) => lines_styled(
                w,
                const { Plain::new("pb-d-label pb-d-authored") },
                Val::Text(&p.text),
                block,
                *at,
                styled,
            ),
            None => lines_styled(
                w,
                const { Plain::new("pb-d-label") },
                colour::TEXT,
                block,
                *at,
                styled,
            ),
        }
    }
    w.close("g");
    w.newline();
}

/// The data-edge keys: `FROM→TO`, then `FROM→TO#2`, `#3`, … for repeated pairs.
#[cfg(test)]
pub fn edge_keys(chart: &Flowchart) -> Vec<String> {
    chart
        .edges
        .iter()
        .zip(chart.edge_occurrences())
        .map(|(e, n)| {
            let mut key = String::new();
            push_edge_key(&mut key, chart, e, n);
            key
        })
        .collect()
}

/// Appends the data-edge key of `e`, the `n`th earlier copy of its pair (see [`edge_keys`]).
pub fn push_edge_key(key: &mut String, chart: &Flowchart, e: &Edge, n: usize) {
    key.push_str(chart.id_of(e.from));
    key.push('→');
    key.push_str(chart.id_of(e.to));
    if n > 0 {
        key.push('#');
        crate::html::push_decimal(key, n as u64 + 1);
    }
}

/// A line's label on its background patch, centred on `at`: as the class, ER and state
/// drawings put it (a flowchart's label may carry authored paint, and is drawn apart).
pub fn edge_label(w: &mut Writer, block: &Block, at: Pt) {
    let bw = block.width + 2.0 * LABEL_PAD_X;
    let bh = block.height + 2.0 * LABEL_PAD_Y;
    w.leaf(
        "rect",
        &[
            ("class", plain!("pb-d-label-bg")),
            ("x", Val::Num(at.x - bw / 2.0)),
            ("y", Val::Num(at.y - bh / 2.0)),
            ("width", Val::Num(bw)),
            ("height", Val::Num(bh)),
            ("rx", plain!("3")),
            ("fill", colour::BG),
        ],
    );
    lines(
        w,
        const { Plain::new("pb-d-label") },
        colour::TEXT,
        block,
        at,
    );
}

/// A relation's dashed line (class diagrams' `..`, ER diagrams' non-identifying lines).
const DASHED: Run = run!(
    ("fill", "none"),
    ("stroke", "#57606a"),
    ("stroke-width", "1.5"),
    ("stroke-dasharray", "6 4"),
);

/// Opens the `data-edge` group `key` of a relation between boxes (class and ER diagrams) and
/// draws its line along `path`, `dashed` or solid. Each end leaves its box (`ends`, `None`
/// where there is none) square to the side it touches, straight for up to `stub` px (past its
/// marker), then joins the layout's route; a line from a box `to_itself` joins it at once.
/// Each end's point and the unit vector along the line away from its box, for its marker;
/// the caller closes the group.
pub fn open_relation(
    w: &mut Writer,
    path: &EdgePath,
    ends: [Option<Bounds>; 2],
    to_itself: bool,
    key: &str,
    dashed: bool,
    stub: f64,
) -> [(Pt, Pt); 2] {
    w.open(
        "g",
        &[
            (
                "class",
                if dashed {
                    plain!("pb-d-edge pb-d-dotted")
                } else {
                    plain!("pb-d-edge pb-d-solid")
                },
            ),
            ("data-edge", Val::Text(key)),
        ],
    );
    w.newline();
    let points = &path.points[..];
    let n = points.len();
    let (first, last) = (points[0], points[n - 1]);
    let stub = (first.minus(last).len() / 3.0).min(stub);
    let out_a = ends[0].map_or_else(|| first.toward(points[1]), |b| b.outward(first));
    let out_b = ends[1].map_or_else(|| last.toward(points[n - 2]), |b| b.outward(last));
    let (first_out, last_out) = if to_itself {
        (first, last)
    } else {
        (first.plus(out_a.scale(stub)), last.plus(out_b.scale(stub)))
    };
    let curve = |s: &mut String| {
        // The route from the first stub's end, its `M` made an `L`: one line.
        let mut route = String::with_capacity(64 * n);
        push_curve(
            &mut route,
            points,
            first_out,
            last_out,
            path.axis,
            path.straight,
        );
        s.push('M');
        push_pt(s, first);
        s.push_str(" L");
        s.push_str(route.get(1..).unwrap_or(""));
        s.push_str(" L");
        push_pt(s, last);
    };
    w.leaf_painted(
        "path",
        &[("class", plain!("pb-d-line")), ("d", Val::Ours(&curve))],
        if dashed {
            DASHED
        } else {
            paint::line(Stroke::Solid)
        },
    );
    [(first, out_a), (last, out_b)]
}

/// A node's group's class: `pb-d-node pb-d-{shape name}`.
pub fn node_class(shape: Shape) -> Val<'static> {
    match shape {
        Shape::Rect => plain!("pb-d-node pb-d-rect"),
        Shape::Round => plain!("pb-d-node pb-d-round"),
        Shape::Stadium => plain!("pb-d-node pb-d-stadium"),
        Shape::Subroutine => plain!("pb-d-node pb-d-subroutine"),
        Shape::Cylinder => plain!("pb-d-node pb-d-cylinder"),
        Shape::Circle => plain!("pb-d-node pb-d-circle"),
        Shape::DoubleCircle => plain!("pb-d-node pb-d-double-circle"),
        Shape::Asymmetric => plain!("pb-d-node pb-d-asymmetric"),
        Shape::Rhombus => plain!("pb-d-node pb-d-rhombus"),
        Shape::Hexagon => plain!("pb-d-node pb-d-hexagon"),
        Shape::Parallelogram => plain!("pb-d-node pb-d-parallelogram"),
        Shape::ParallelogramAlt => plain!("pb-d-node pb-d-parallelogram-alt"),
        Shape::Trapezoid => plain!("pb-d-node pb-d-trapezoid"),
        Shape::TrapezoidAlt => plain!("pb-d-node pb-d-trapezoid-alt"),
        Shape::NotchedRect => plain!("pb-d-node pb-d-notch-rect"),
        Shape::LinedRect => plain!("pb-d-node pb-d-lin-rect"),
        Shape::DividedRect => plain!("pb-d-node pb-d-div-rect"),
        Shape::WindowPane => plain!("pb-d-node pb-d-win-pane"),
        Shape::TaggedRect => plain!("pb-d-node pb-d-tag-rect"),
        Shape::StackedRect => plain!("pb-d-node pb-d-st-rect"),
        Shape::SlopedRect => plain!("pb-d-node pb-d-sl-rect"),
        Shape::BowTieRect => plain!("pb-d-node pb-d-bow-rect"),
        Shape::LoopLimit => plain!("pb-d-node pb-d-notch-pent"),
        Shape::Delay => plain!("pb-d-node pb-d-delay"),
        Shape::CurvedTrapezoid => plain!("pb-d-node pb-d-curv-trap"),
        Shape::Document => plain!("pb-d-node pb-d-doc"),
        Shape::LinedDocument => plain!("pb-d-node pb-d-lin-doc"),
        Shape::TaggedDocument => plain!("pb-d-node pb-d-tag-doc"),
        Shape::StackedDocument => plain!("pb-d-node pb-d-docs"),
        Shape::PaperTape => plain!("pb-d-node pb-d-flag"),
        Shape::HorizontalCylinder => plain!("pb-d-node pb-d-h-cyl"),
        Shape::LinedCylinder => plain!("pb-d-node pb-d-lin-cyl"),
        Shape::Triangle => plain!("pb-d-node pb-d-tri"),
        Shape::FlippedTriangle => plain!("pb-d-node pb-d-flip-tri"),
        Shape::SmallCircle => plain!("pb-d-node pb-d-sm-circ"),
        Shape::FilledCircle => plain!("pb-d-node pb-d-f-circ"),
        Shape::FramedCircle => plain!("pb-d-node pb-d-fr-circ"),
        Shape::CrossedCircle => plain!("pb-d-node pb-d-cross-circ"),
        Shape::Hourglass => plain!("pb-d-node pb-d-hourglass"),
        Shape::Bolt => plain!("pb-d-node pb-d-bolt"),
        Shape::BraceLeft => plain!("pb-d-node pb-d-brace"),
        Shape::BraceRight => plain!("pb-d-node pb-d-brace-r"),
        Shape::Braces => plain!("pb-d-node pb-d-braces"),
        Shape::Text => plain!("pb-d-node pb-d-text"),
        Shape::DataStore => plain!("pb-d-node pb-d-datastore"),
        Shape::Cloud => plain!("pb-d-node pb-d-cloud"),
        Shape::Bang => plain!("pb-d-node pb-d-bang"),
        Shape::Fork | Shape::ForkSideways => plain!("pb-d-node pb-d-fork"),
    }
}

/// What names a chart beside its drawing: `accTitle` and `accDescr` (which name and describe
/// it when given), and the front matter's title, drawn above it.
pub(crate) struct Titles<'a> {
    pub acc_title: Option<&'a str>,
    pub acc_descr: Option<&'a str>,
    pub title: Option<&'a str>,
}

impl<'a> Titles<'a> {
    pub(crate) fn of(chart: &'a Flowchart) -> Self {
        Titles {
            acc_title: chart.acc_title.as_deref(),
            acc_descr: chart.acc_descr.as_deref(),
            title: chart.title.as_deref(),
        }
    }
}

/// Opens a chart's SVG (every kind drawn on the flowchart's layout): its `<title>` and `<desc>`
/// (the author's description, then `desc`, the chart in words), and the title above it, with
/// the drawing of `size` moved down below that title. Returns the SVG's width and height, and
/// whether a group was opened for the move, which the caller closes after the drawing.
pub(crate) fn open_chart(
    w: &mut Writer,
    f: &Frame,
    titles: Titles,
    desc: String,
    class: Plain,
    (width, height): (f64, f64),
) -> (u32, u32, bool) {
    let frame = Frame {
        title: titles.acc_title.unwrap_or(f.title),
        ..*f
    };
    let desc = match titles.acc_descr {
        Some(a) => format!("{a} {desc}"),
        None => desc,
    };
    let heading = titles.title.map(|t| Block::wrapped(t, width.max(320.0)));
    let top = heading.as_ref().map_or(0.0, |h| h.height + 12.0);
    let wide = heading.as_ref().map_or(0.0, |h| h.width + 16.0);
    let (svg_width, svg_height) = start(w, &frame, class, width.max(wide), height + top, &desc);
    if let Some(h) = &heading {
        let at = Pt::new(width.max(wide) / 2.0, 6.0 + h.height / 2.0);
        lines(w, const { Plain::new("pb-d-heading") }, colour::TEXT, h, at);
        let shift = |s: &mut String| {
            s.push_str("translate(0 ");
            push_num(s, top);
            s.push(')');
        };
        w.open("g", &[("transform", Val::Ours(&shift))]);
        w.newline();
    }
    (svg_width, svg_height, heading.is_some())
}

/// The SVG of a laid-out flowchart, and its width and height, px.
pub fn flowchart(chart: &Flowchart, d: &Drawing, f: &Frame) -> (String, u32, u32) {
    // A few hundred bytes a node or edge (the golden diagrams need less): the page is written
    // without growing.
    let mut w = Writer::with_capacity(1024 + 384 * d.nodes.len() + 512 * d.edges.len());
    let (width, height, headed) = open_chart(
        &mut w,
        f,
        Titles::of(chart),
        describe(chart, f.t),
        const { Plain::new("pb-mermaid pb-mermaid-flowchart") },
        (d.width, d.height),
    );
    for (s, c) in d.clusters.iter().enumerate() {
        let sub = &chart.subgraphs[s];
        let is_node = sub
            .id
            .as_deref()
            .is_some_and(|id| chart.nodes.iter().any(|n| n.id == id));
        let class = ("class", plain!("pb-d-cluster"));
        match (is_node, sub.id.as_deref()) {
            (true, Some(id)) => w.open("g", &[class, ("data-node", Val::Text(id))]),
            _ => w.open("g", &[class]),
        }
        w.newline();
        let b = c.bounds;
        let authored = cluster_paint(chart, sub);
        let mut attrs = vec![
            (
                "class",
                match authored {
                    Some(_) => plain!("pb-d-cluster-box pb-d-authored"),
                    None => plain!("pb-d-cluster-box"),
                },
            ),
            ("x", Val::Num(b.left())),
            ("y", Val::Num(b.top())),
            ("width", Val::Num(b.w)),
            ("height", Val::Num(b.h)),
            ("rx", plain!("4")),
        ];
        match &authored {
            Some(p) => {
                attrs.push(("fill", Val::Text(&p.fill)));
                attrs.push(("stroke", Val::Text(&p.stroke)));
                attrs.push(("stroke-width", Val::Text(&p.stroke_width)));
                if let Some(d) = &p.dash {
                    attrs.push(("stroke-dasharray", Val::Text(d)));
                }
            }
            None => {
                attrs.push(("fill", colour::CLUSTER_FILL));
                attrs.push(("stroke", colour::CLUSTER_LINE));
                attrs.push(("stroke-width", plain!("1")));
            }
        }
        w.leaf("rect", &attrs);
        w.close("g");
        w.newline();
    }
    // Each edge's key (as `edge_keys` gives it) in one buffer, reused.
    let mut key = String::with_capacity(32);
    for ((i, path), n) in d.edges.iter().enumerate().zip(chart.edge_occurrences()) {
        key.clear();
        push_edge_key(&mut key, chart, &chart.edges[i], n);
        edge(&mut w, chart, i, path, &key);
    }
    for (s, c) in d.clusters.iter().enumerate() {
        cluster_title(&mut w, chart, &chart.subgraphs[s], c);
    }
    for (i, n) in d.nodes.iter().enumerate() {
        let Some(n) = n else { continue };
        w.open(
            "g",
            &[
                ("class", node_class(n.shape)),
                ("data-node", Val::Text(&chart.nodes[i].id)),
            ],
        );
        w.newline();
        let authored = chart
            .styles
            .node(i)
            .and_then(|s| style::painted(s, NODE_FILL, NODE_LINE, 1.5));
        shape_element_painted(&mut w, n.shape, n.bounds, authored.as_ref());
        if shapes::shows_label(n.shape) {
            let at = shapes::label_center(n.shape, n.bounds, n.text.height);
            let node = &chart.nodes[i];
            let styled =
                (!node.emphasis.is_empty()).then(|| (node.label.as_str(), &node.emphasis[..]));
            match &authored {
                // A label outside its shape's face stands on the page: it keeps the theme's.
                Some(p) if shapes::label_inside(n.shape) => lines_styled(
                    &mut w,
                    const { Plain::new("pb-d-text pb-d-authored") },
                    Val::Text(&p.text),
                    &n.text,
                    at,
                    styled,
                ),
                _ => lines_styled(&mut w, TEXT, colour::TEXT, &n.text, at, styled),
            }
        }
        w.close("g");
        w.newline();
    }
    if headed {
        w.close("g");
        w.newline();
    }
    w.close("svg");
    (w.finish(), width, height)
}

/// A subgraph's title, top left in its box, where edges entering from above are least likely to
/// cross it. It is drawn over the edges on a patch of the box's colour: an edge that does cross
/// it passes behind the words instead of striking them through. Clicks go through it to the box
/// (a subgraph that is also a node takes comments) or the edge beneath.
fn cluster_title(w: &mut Writer, chart: &Flowchart, sub: &Subgraph, c: &ClusterBox) {
    if c.title.is_blank() {
        return;
    }
    let (left, top) = (c.bounds.left() + 10.0, c.bounds.top() + 8.0);
    let authored = cluster_paint(chart, sub);
    let at = Pt::new(left + c.title.width / 2.0, top + c.title.height / 2.0);
    w.open(
        "g",
        &[
            ("class", plain!("pb-d-cluster-label")),
            ("pointer-events", plain!("none")),
        ],
    );
    w.newline();
    // The patch covers the letters and little more: an arrow that only passes close by, or
    // ends on a box just below, stays whole.
    w.leaf(
        "rect",
        &[
            (
                "class",
                match authored {
                    Some(_) => plain!("pb-d-cluster-title-bg pb-d-authored"),
                    None => plain!("pb-d-cluster-title-bg"),
                },
            ),
            ("x", Val::Num(left - 1.0)),
            ("y", Val::Num(top + 2.0)),
            ("width", Val::Num(c.title.width + 2.0)),
            ("height", Val::Num(c.title.height - 3.0)),
            (
                "fill",
                authored
                    .as_ref()
                    .map_or(colour::CLUSTER_FILL, |p| Val::Text(&p.fill)),
            ),
        ],
    );
    let styled =
        (!sub.title_emphasis.is_empty()).then(|| (sub.title.as_str(), &sub.title_emphasis[..]));
    match &authored {
        Some(p) => lines_styled(
            w,
            const { Plain::new("pb-d-cluster-title pb-d-authored") },
            Val::Text(&p.text),
            &c.title,
            at,
            styled,
        ),
        None => lines_styled(w, CLUSTER_TITLE, colour::MUTED, &c.title, at, styled),
    }
    w.close("g");
    w.newline();
}

/// A group's title as `cluster_title` draws an unstyled subgraph's, over the lines on a
/// patch of the box's colour: a class diagram's namespace, a state diagram's composite.
pub fn plain_cluster_title(w: &mut Writer, c: &ClusterBox) {
    let (left, top) = (c.bounds.left() + 10.0, c.bounds.top() + 8.0);
    let at = Pt::new(left + c.title.width / 2.0, top + c.title.height / 2.0);
    w.open(
        "g",
        &[
            ("class", plain!("pb-d-cluster-label")),
            ("pointer-events", plain!("none")),
        ],
    );
    w.newline();
    w.leaf(
        "rect",
        &[
            ("class", plain!("pb-d-cluster-title-bg")),
            ("x", Val::Num(left - 1.0)),
            ("y", Val::Num(top + 2.0)),
            ("width", Val::Num(c.title.width + 2.0)),
            ("height", Val::Num(c.title.height - 3.0)),
            ("fill", colour::CLUSTER_FILL),
        ],
    );
    lines(w, CLUSTER_TITLE, colour::MUTED, &c.title, at);
    w.close("g");
    w.newline();
}

/// A subgraph's colours when its id is styled (`style id …`, `class id …`).
fn cluster_paint(chart: &Flowchart, sub: &Subgraph) -> Option<Painted> {
    let id = sub.id.as_deref()?;
    let i = chart.nodes.iter().position(|n| n.id == id)?;
    let s = chart.styles.node(i)?;
    style::painted(s, CLUSTER_FILL, CLUSTER_LINE, 1.0)
}
