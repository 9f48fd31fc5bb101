//! The SVG of a laid-out class diagram: namespaces as containers (`data-node` each, by their
//! dotted id), relations (`data-edge`, keyed `LEFT→RIGHT`, `LEFT→RIGHT#2`, … as written), each
//! a line (dashed for `..`) with its markers, cardinalities and label; notes' dotted lines;
//! namespace names over them; then classes (`data-node`, by Mermaid's id), each a box of three
//! compartments, interfaces and notes.

use super::describe::describe;
use super::layout::{Compartments, PAD_X, PAD_Y, RING, ROW_H, compartments};
use super::{Class, ClassDiagram, Classifier, End, Kind};
use crate::diagram::colour::Colour;
use crate::diagram::flowchart::draw::{
    Titles, edge_label, node_class, open_chart, open_relation, plain_cluster_title, push_curve,
    push_edge_key,
};
use crate::diagram::flowchart::layout::{Drawing, EdgePath};
use crate::diagram::geometry::{Bounds, Pt};
use crate::diagram::line::Stroke;
use crate::diagram::shapes::Shape;
use crate::diagram::style::{self, Painted};
use crate::diagram::svg::label::lines;
use crate::diagram::svg::number::push_pt;
use crate::diagram::svg::shape::shape_element_painted;
use crate::diagram::svg::theme::{colour, paint};
use crate::diagram::svg::writer::{Plain, Run, Val, Writer, plain, run};
use crate::diagram::svg::{Frame, TEXT};
use crate::diagram::text::{Block, FONT_SIZE, LINE_HEIGHT};

/// A note's paint (yellow, as a sequence diagram's notes): themed by `pb-s-note`.
const NOTE: Run = run!(
    ("class", "pb-s-note"),
    ("fill", "#fff8c5"),
    ("stroke", "#9a6700"),
    ("stroke-width", "1"),
);

/// How far a line runs straight out of its class before it bends: past its marker.
const STUB: f64 = 22.0;
/// A marker's length along the line and half its width across, px.
const MARK_LEN: f64 = 14.0;
const MARK_HALF: f64 = 7.0;

/// The marker `end` with its tip at `tip` on a class's border, `out` the unit vector along
/// the line away from the class.
fn marker(w: &mut Writer, end: End, tip: Pt, out: Pt) {
    let across = Pt::new(-out.y, out.x);
    let at = |t: f64, s: f64| tip.plus(out.scale(t)).plus(across.scale(s));
    let polygon = |w: &mut Writer, pts: &[Pt], open: bool| {
        let d = |s: &mut String| {
            for (k, p) in pts.iter().enumerate() {
                s.push(if k == 0 { 'M' } else { 'L' });
                push_pt(s, *p);
                s.push(' ');
            }
            s.push('Z');
        };
        if open {
            w.leaf(
                "path",
                &[
                    ("class", plain!("pb-d-head-open pb-class-marker")),
                    ("d", Val::Ours(&d)),
                    ("fill", colour::BG),
                    ("stroke", colour::LINE),
                    ("stroke-width", plain!("1.5")),
                ],
            );
        } else {
            w.leaf_painted(
                "path",
                &[
                    ("class", plain!("pb-d-head pb-class-marker")),
                    ("d", Val::Ours(&d)),
                ],
                paint::HEAD,
            );
        }
    };
    match end {
        End::None => {}
        End::Extension => polygon(
            w,
            &[tip, at(MARK_LEN, MARK_HALF), at(MARK_LEN, -MARK_HALF)],
            true,
        ),
        End::Dependency => polygon(
            w,
            &[
                tip,
                at(MARK_LEN - 2.0, MARK_HALF - 2.0),
                at(MARK_LEN - 6.0, 0.0),
                at(MARK_LEN - 2.0, -(MARK_HALF - 2.0)),
            ],
            false,
        ),
        End::Composition | End::Aggregation => polygon(
            w,
            &[
                tip,
                at(MARK_LEN / 2.0 + 1.0, MARK_HALF - 1.0),
                at(MARK_LEN + 2.0, 0.0),
                at(MARK_LEN / 2.0 + 1.0, -(MARK_HALF - 1.0)),
            ],
            end == End::Aggregation,
        ),
        End::Lollipop => {
            let c = at(RING, 0.0);
            w.leaf(
                "circle",
                &[
                    ("class", plain!("pb-d-head-open pb-class-marker")),
                    ("cx", Val::Num(c.x)),
                    ("cy", Val::Num(c.y)),
                    ("r", Val::Num(RING)),
                    ("fill", colour::BG),
                    ("stroke", colour::LINE),
                    ("stroke-width", plain!("1.5")),
                ],
            );
        }
    }
}

/// A cardinality beside the line near one end.
fn cardinality(w: &mut Writer, text: &str, tip: Pt, out: Pt) {
    if text.is_empty() {
        return;
    }
    let across = Pt::new(-out.y, out.x);
    let half = crate::diagram::text::width(text) / 2.0;
    // Beside the marker, to the side square to the line, far enough that the text clears it.
    let side = if across.x.abs() > 0.5 {
        MARK_HALF + 6.0
    } else {
        MARK_HALF + 4.0 + half
    };
    let p = tip.plus(out.scale(MARK_LEN + 6.0)).plus(across.scale(side));
    w.open(
        "text",
        &[
            ("class", plain!("pb-d-text pb-class-card")),
            ("x", Val::Num(p.x)),
            ("y", Val::Num(p.y + 0.35 * FONT_SIZE)),
            ("text-anchor", plain!("middle")),
            ("fill", colour::TEXT),
        ],
    );
    w.text(text);
    w.close("text");
}

/// One relation: its line, markers, cardinalities and label, in a `data-edge` group.
fn relation(
    w: &mut Writer,
    d: &ClassDiagram,
    k: usize,
    path: &EdgePath,
    ends: [Option<Bounds>; 2],
    key: &str,
) {
    let r = &d.relations[k];
    let e = &d.chart.edges[k];
    let [(first, out_a), (last, out_b)] =
        open_relation(w, path, ends, e.from == e.to, key, r.dashed, STUB);
    // An interface's end is its circle: no marker there.
    let at_interface = |i: usize| d.kinds[i] == Kind::Interface;
    if !at_interface(e.from) {
        marker(w, r.ends[0], first, out_a);
    }
    if !at_interface(e.to) {
        marker(w, r.ends[1], last, out_b);
    }
    if let (Some((at, _)), Some(label)) = (&path.label, &e.label) {
        edge_label(w, &Block::new(label), *at);
    }
    w.close("g");
    w.newline();
    // The cardinalities beside the ends, outside the comment target (its name is its classes
    // and label) and said in the `<desc>`.
    if r.cards.iter().any(|c| !c.is_empty()) {
        w.open(
            "g",
            &[
                ("class", plain!("pb-class-cards")),
                ("pointer-events", plain!("none")),
                ("aria-hidden", plain!("true")),
            ],
        );
        cardinality(w, &r.cards[0], first, out_a);
        cardinality(w, &r.cards[1], last, out_b);
        w.close("g");
        w.newline();
    }
}

/// A note's dotted line to its class (no key: not commentable).
fn note_line(w: &mut Writer, path: &EdgePath) {
    w.open("g", &[("class", plain!("pb-d-note-link pb-d-dotted"))]);
    w.newline();
    let points = &path.points[..];
    let (first, last) = (points[0], points[points.len() - 1]);
    let d = |d: &mut String| push_curve(d, points, first, last, path.axis, path.straight);
    w.leaf_painted(
        "path",
        &[("class", plain!("pb-d-line")), ("d", Val::Ours(&d))],
        paint::line(Stroke::Dotted),
    );
    w.close("g");
    w.newline();
}

/// A line across a class's box.
fn rule(w: &mut Writer, y: f64, b: Bounds, authored: Option<&Painted>) {
    let (a, c) = (Pt::new(b.left(), y), Pt::new(b.right(), y));
    let d = |s: &mut String| {
        s.push('M');
        push_pt(s, a);
        s.push_str(" L");
        push_pt(s, c);
    };
    w.leaf(
        "path",
        &[
            (
                "class",
                if authored.is_some() {
                    plain!("pb-d-shape-line pb-d-authored")
                } else {
                    plain!("pb-d-shape-line")
                },
            ),
            ("d", Val::Ours(&d)),
            ("fill", plain!("none")),
            (
                "stroke",
                authored.map_or(colour::NODE_LINE, |p| Val::Text(&p.stroke)),
            ),
            ("stroke-width", plain!("1")),
        ],
    );
}

/// One member's row, from the box's left.
fn row(w: &mut Writer, text: &str, c: Classifier, x: f64, mid: f64, class: Plain, fill: Val) {
    let (key, value) = match c {
        Classifier::None => ("data-classifier", plain!("none")),
        Classifier::Static => ("text-decoration", plain!("underline")),
        Classifier::Abstract => ("font-style", plain!("italic")),
    };
    let mut attrs = vec![
        ("class", Val::Plain(class)),
        ("x", Val::Num(x)),
        ("y", Val::Num(mid + 0.35 * FONT_SIZE)),
        ("fill", fill),
    ];
    if c != Classifier::None {
        attrs.push((key, value));
    }
    w.open("text", &attrs);
    w.text(text);
    w.close("text");
}

/// One class: its box, annotations and name, members and methods.
fn class(
    w: &mut Writer,
    id: &str,
    c: &Class,
    comp: &Compartments,
    b: Bounds,
    authored: Option<&Painted>,
) {
    w.open(
        "g",
        &[
            ("class", node_class(Shape::Rect)),
            ("data-node", Val::Text(id)),
        ],
    );
    w.newline();
    shape_element_painted(w, Shape::Rect, b, authored);
    let (text_class, text_fill) = match authored {
        Some(p) => (
            const { Plain::new("pb-d-text pb-d-authored") },
            Val::Text(&p.text),
        ),
        None => (TEXT, colour::TEXT),
    };
    let top = b.top();
    let name_top = top + PAD_Y + LINE_HEIGHT * comp.annotations.len() as f64;
    lines(
        w,
        if authored.is_some() {
            const { Plain::new("pb-d-text pb-d-authored pb-class-name") }
        } else {
            const { Plain::new("pb-d-text pb-class-name") }
        },
        text_fill,
        &comp.name,
        Pt::new(b.center.x, name_top + comp.name.height / 2.0),
    );
    // The comment target is the box with its name, as its comment field is named; the
    // annotations, members and methods are drawn over it, let clicks through to it, and are
    // said in the `<desc>`.
    w.close("g");
    w.newline();
    w.open(
        "g",
        &[
            ("class", plain!("pb-class-rows")),
            ("pointer-events", plain!("none")),
            ("aria-hidden", plain!("true")),
        ],
    );
    w.newline();
    let mut y = top + PAD_Y;
    for a in &comp.annotations {
        let block = Block::new(a);
        lines(
            w,
            text_class,
            text_fill,
            &block,
            Pt::new(b.center.x, y + LINE_HEIGHT / 2.0),
        );
        y += LINE_HEIGHT;
    }
    let members_top = top + comp.head_h;
    let methods_top = members_top + comp.members_h;
    // No rules under a name drawn alone (`hideEmptyMembersBox`).
    if comp.members_h + comp.methods_h > 0.0 {
        rule(w, members_top, b, authored);
        rule(w, methods_top, b, authored);
    }
    let x = b.left() + PAD_X;
    for (k, m) in c.members.iter().enumerate() {
        let mid = members_top + PAD_Y + ROW_H * (k as f64 + 0.5);
        row(w, &m.text, m.classifier, x, mid, text_class, text_fill);
    }
    for (k, m) in c.methods.iter().enumerate() {
        let mid = methods_top + PAD_Y + ROW_H * (k as f64 + 0.5);
        row(w, &m.text, m.classifier, x, mid, text_class, text_fill);
    }
    w.close("g");
    w.newline();
}

/// The SVG of a laid-out class diagram, and its width and height, px.
pub fn class_diagram(d: &ClassDiagram, laid: &Drawing, f: &Frame) -> (String, u32, u32) {
    let chart = &d.chart;
    let boxes = compartments(d);
    let mut w = Writer::with_capacity(1024 + 768 * laid.nodes.len() + 640 * laid.edges.len());
    let (width, height, headed) = open_chart(
        &mut w,
        f,
        Titles::of(chart),
        describe(d, f.t),
        const { Plain::new("pb-mermaid pb-mermaid-class") },
        (laid.width, laid.height),
    );
    for (s, c) in laid.clusters.iter().enumerate() {
        let sub = &chart.subgraphs[s];
        let class = ("class", plain!("pb-d-cluster"));
        match sub.id.as_deref() {
            Some(id) => w.open("g", &[class, ("data-node", Val::Text(id))]),
            None => w.open("g", &[class]),
        }
        w.newline();
        let b = c.bounds;
        w.leaf(
            "rect",
            &[
                ("class", plain!("pb-d-cluster-box")),
                ("x", Val::Num(b.left())),
                ("y", Val::Num(b.top())),
                ("width", Val::Num(b.w)),
                ("height", Val::Num(b.h)),
                ("rx", plain!("8")),
                ("fill", colour::CLUSTER_FILL),
                ("stroke", colour::CLUSTER_LINE),
                ("stroke-width", plain!("1")),
            ],
        );
        w.close("g");
        w.newline();
    }
    let bounds = |i: usize| laid.nodes.get(i).and_then(|n| n.as_ref()).map(|n| n.bounds);
    let relations = chart.edges.len();
    let occurrences = chart.edge_occurrences();
    let mut key = String::with_capacity(32);
    let full = chart_edges(d);
    for (k, path) in laid.edges.iter().enumerate() {
        if path.points.len() < 2 {
            continue;
        }
        if k < relations {
            key.clear();
            let e = &chart.edges[k];
            push_edge_key(&mut key, chart, e, occurrences[k]);
            relation(&mut w, d, k, path, [bounds(e.from), bounds(e.to)], &key);
        } else if k < full {
            note_line(&mut w, path);
        }
    }
    for (sub, c) in chart.subgraphs.iter().zip(&laid.clusters) {
        // The layout's title has a line more than is shown (`layout::chart`).
        let title = Block::new(&sub.title);
        let c = crate::diagram::flowchart::layout::ClusterBox {
            bounds: c.bounds,
            title,
        };
        if c.title.is_blank() {
            continue;
        }
        plain_cluster_title(&mut w, &c);
    }
    let fill = Colour::rgb(0xeef4ff);
    let line = Colour::rgb(0x4a6fa5);
    for (i, n) in laid.nodes.iter().enumerate() {
        let Some(n) = n else { continue };
        let id = &chart.nodes[i].id;
        match d.kinds[i] {
            Kind::Class => {
                let authored = chart
                    .styles
                    .node(i)
                    .and_then(|s| style::painted(s, fill, line, 1.5));
                if let Some(comp) = &boxes[i] {
                    class(&mut w, id, &d.classes[i], comp, n.bounds, authored.as_ref());
                }
            }
            Kind::Interface => {
                w.open(
                    "g",
                    &[
                        ("class", plain!("pb-d-node pb-class-interface")),
                        ("data-node", Val::Text(id)),
                    ],
                );
                w.newline();
                let b = n.bounds;
                w.leaf(
                    "rect",
                    &[
                        ("class", plain!("pb-class-hit")),
                        ("x", Val::Num(b.left())),
                        ("y", Val::Num(b.top())),
                        ("width", Val::Num(b.w)),
                        ("height", Val::Num(b.h)),
                        ("fill", plain!("transparent")),
                    ],
                );
                // The circle on the side its relation reaches, the name on the other.
                let below = chart
                    .edges
                    .iter()
                    .zip(&laid.edges)
                    .find_map(|(e, p)| match (e.from == i, e.to == i) {
                        (true, _) => p.points.first(),
                        (_, true) => p.points.last(),
                        _ => None,
                    })
                    .is_some_and(|p| p.y > b.center.y + 1.0);
                let c = if below {
                    Pt::new(b.center.x, b.bottom() - RING - 1.0)
                } else {
                    Pt::new(b.center.x, b.top() + RING + 1.0)
                };
                w.leaf(
                    "circle",
                    &[
                        ("class", plain!("pb-d-head-open")),
                        ("cx", Val::Num(c.x)),
                        ("cy", Val::Num(c.y)),
                        ("r", Val::Num(RING)),
                        ("fill", colour::BG),
                        ("stroke", colour::LINE),
                        ("stroke-width", plain!("1.5")),
                    ],
                );
                let block = Block::new(&chart.nodes[i].label);
                lines(
                    &mut w,
                    TEXT,
                    colour::TEXT,
                    &block,
                    if below {
                        Pt::new(b.center.x, b.top() + block.height / 2.0 + 1.0)
                    } else {
                        Pt::new(b.center.x, b.bottom() - block.height / 2.0 - 1.0)
                    },
                );
                w.close("g");
                w.newline();
            }
            Kind::Note => {
                w.open(
                    "g",
                    &[
                        ("class", plain!("pb-d-node pb-d-note")),
                        ("data-node", Val::Text(id)),
                    ],
                );
                w.newline();
                let b = n.bounds;
                w.leaf_painted(
                    "rect",
                    &[
                        ("x", Val::Num(b.left())),
                        ("y", Val::Num(b.top())),
                        ("width", Val::Num(b.w)),
                        ("height", Val::Num(b.h)),
                    ],
                    NOTE,
                );
                let block = Block::new(&chart.nodes[i].label);
                lines(&mut w, TEXT, colour::TEXT, &block, b.center);
                w.close("g");
                w.newline();
            }
            Kind::Namespace => {}
        }
    }
    if headed {
        w.close("g");
        w.newline();
    }
    w.close("svg");
    (w.finish(), width, height)
}

/// How many edges the layout's chart has: the relations and the notes' lines.
fn chart_edges(d: &ClassDiagram) -> usize {
    d.chart.edges.len() + d.note_on.iter().filter(|(_, on)| on.is_some()).count()
}
