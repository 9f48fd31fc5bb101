//! The SVG of a laid-out ER diagram: relationships (`data-edge`, keyed `FIRST→SECOND`,
//! `FIRST→SECOND#2`, … in the order they are written), each a line (dashed when not
//! identifying) with a crow's-foot marker at each end and its label over it; then entities
//! (`data-node`, by the name Mermaid keys them by), each a table with its name above its
//! attributes.

use super::ErDiagram;
use super::describe::describe;
use super::layout::{CELL_PAD, ROW_H, Table, keys_text, tables, type_text};
use super::{Cardinality, Entity};
use crate::diagram::colour::Colour;
use crate::diagram::flowchart::draw::{
    Titles, edge_label, node_class, open_chart, open_relation, push_edge_key,
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
use crate::diagram::svg::writer::{Plain, Val, Writer, plain};
use crate::diagram::svg::{Frame, TEXT};
use crate::diagram::text::{Block, FONT_SIZE};

/// How far a marker's parts sit from the entity's border, px.
const BAR_NEAR: f64 = 8.0;
const BAR_FAR: f64 = 14.0;
const FOOT: f64 = 14.0;
const SPREAD: f64 = 8.0;
const RING: f64 = 4.5;

/// How far a line runs straight out of its entity before it bends: past its marker.
const STUB: f64 = 24.0;

/// The marker of `card` at `tip` on an entity's border, `out` the unit vector along the line
/// away from the entity.
fn marker(w: &mut Writer, card: Cardinality, tip: Pt, out: Pt) {
    let across = Pt::new(-out.y, out.x);
    let at = |t: f64, s: f64| tip.plus(out.scale(t)).plus(across.scale(s));
    let mut d = String::with_capacity(96);
    let mut segment = |a: Pt, b: Pt| {
        d.push('M');
        push_pt(&mut d, a);
        d.push_str(" L");
        push_pt(&mut d, b);
        d.push(' ');
    };
    let bar = |t: f64, seg: &mut dyn FnMut(Pt, Pt)| seg(at(t, -SPREAD), at(t, SPREAD));
    let foot = |seg: &mut dyn FnMut(Pt, Pt)| {
        seg(at(FOOT, 0.0), at(0.0, -SPREAD));
        seg(at(FOOT, 0.0), at(0.0, SPREAD));
    };
    let ring = match card {
        Cardinality::ExactlyOne => {
            bar(BAR_NEAR, &mut segment);
            bar(BAR_FAR, &mut segment);
            None
        }
        Cardinality::ZeroOrOne => {
            bar(BAR_NEAR, &mut segment);
            Some(at(BAR_FAR + RING + 2.0, 0.0))
        }
        Cardinality::OneOrMore => {
            foot(&mut segment);
            bar(FOOT + 4.0, &mut segment);
            None
        }
        Cardinality::ZeroOrMore => {
            foot(&mut segment);
            Some(at(FOOT + RING + 3.0, 0.0))
        }
        Cardinality::Parent => {
            let (a, b, c, e) = (at(0.0, 0.0), at(6.0, 5.0), at(12.0, 0.0), at(6.0, -5.0));
            segment(a, b);
            segment(b, c);
            segment(c, e);
            segment(e, a);
            None
        }
    };
    let d = d.trim_end().to_string();
    let path = |s: &mut String| s.push_str(&d);
    w.leaf_painted(
        "path",
        &[
            ("class", plain!("pb-d-cross pb-er-marker")),
            ("d", Val::Ours(&path)),
        ],
        paint::line(Stroke::Solid),
    );
    if let Some(c) = ring {
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
    }
}

/// One relationship: its line, its markers and its label, in a `data-edge` group.
fn relationship(
    w: &mut Writer,
    d: &ErDiagram,
    k: usize,
    path: &EdgePath,
    ends: [Option<Bounds>; 2],
    key: &str,
) {
    let r = &d.relationships[k];
    let e = &d.chart.edges[k];
    let [(first, out_a), (last, out_b)] =
        open_relation(w, path, ends, e.from == e.to, key, !r.identifying, STUB);
    marker(w, r.at_first, first, out_a);
    marker(w, r.at_second, last, out_b);
    // The layout's label box is the label and its lines' room for markers: the label is
    // measured again here.
    if let (Some((at, _)), Some(label)) = (&path.label, &e.label) {
        edge_label(w, &Block::new(label), *at);
    }
    w.close("g");
    w.newline();
}

/// One cell's text, from `x`, on the row whose middle is at `y`.
fn cell(w: &mut Writer, text: &str, x: f64, y: f64, class: Plain, fill: Val) {
    if text.is_empty() {
        return;
    }
    w.open(
        "text",
        &[
            ("class", Val::Plain(class)),
            ("x", Val::Num(x)),
            ("y", Val::Num(y + 0.35 * FONT_SIZE)),
            ("fill", fill),
        ],
    );
    w.text(text);
    w.close("text");
}

/// A straight line inside an entity's box.
fn rule(w: &mut Writer, a: Pt, b: Pt, authored: Option<&Painted>) {
    let d = |s: &mut String| {
        s.push('M');
        push_pt(s, a);
        s.push_str(" L");
        push_pt(s, b);
    };
    match authored {
        Some(p) => w.leaf(
            "path",
            &[
                ("class", plain!("pb-d-shape-line pb-d-authored")),
                ("d", Val::Ours(&d)),
                ("fill", plain!("none")),
                ("stroke", Val::Text(&p.stroke)),
                ("stroke-width", plain!("1")),
            ],
        ),
        None => w.leaf(
            "path",
            &[
                ("class", plain!("pb-d-shape-line")),
                ("d", Val::Ours(&d)),
                ("fill", plain!("none")),
                ("stroke", colour::NODE_LINE),
                ("stroke-width", plain!("1")),
            ],
        ),
    }
}

/// One entity: its box, its name on a band above, its attributes in rows and columns.
fn entity(
    w: &mut Writer,
    id: &str,
    e: &Entity,
    table: &Table,
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
    let (left, top) = (b.left(), b.top());
    if authored.is_none() {
        w.leaf(
            "rect",
            &[
                ("class", plain!("pb-d-cluster-title-bg")),
                ("x", Val::Num(left + 0.75)),
                ("y", Val::Num(top + 0.75)),
                ("width", Val::Num((b.w - 1.5).max(0.0))),
                ("height", Val::Num((table.header_h - 0.75).max(0.0))),
                ("fill", colour::CLUSTER_FILL),
            ],
        );
    }
    let (text_class, text_fill) = match authored {
        Some(p) => (
            const { Plain::new("pb-d-text pb-d-authored") },
            Val::Text(&p.text),
        ),
        None => (TEXT, colour::TEXT),
    };
    let head = Pt::new(b.center.x, top + table.header_h / 2.0);
    lines(w, text_class, text_fill, &table.header, head);
    // The comment target is the box with its name, as its comment field is named; the rows
    // are drawn over it, let clicks through to it, and are said in the `<desc>`.
    w.close("g");
    w.newline();
    if e.attributes.is_empty() {
        return;
    }
    w.open(
        "g",
        &[
            ("class", plain!("pb-er-rows")),
            ("pointer-events", plain!("none")),
            ("aria-hidden", plain!("true")),
        ],
    );
    w.newline();
    {
        rule(
            w,
            Pt::new(left, top + table.header_h),
            Pt::new(b.right(), top + table.header_h),
            authored,
        );
    }
    for (r, a) in e.attributes.iter().enumerate() {
        let row_top = top + table.header_h + ROW_H * r as f64;
        if r > 0 {
            rule(
                w,
                Pt::new(left, row_top),
                Pt::new(b.right(), row_top),
                authored,
            );
        }
        let mid = row_top + ROW_H / 2.0;
        let keys = keys_text(&a.keys);
        let ty = type_text(&a.ty);
        let cells = [&*ty, a.name.as_str(), keys.as_str(), a.comment.as_str()];
        let mut x = left;
        for (c, text) in cells.iter().enumerate() {
            if table.cols[c] > 0.0 {
                cell(w, text, x + CELL_PAD, mid, text_class, text_fill);
            }
            x += table.cols[c];
        }
        w.newline();
    }
    w.close("g");
    w.newline();
}

/// The SVG of a laid-out ER diagram, and its width and height, px.
pub fn er(d: &ErDiagram, laid: &Drawing, f: &Frame) -> (String, u32, u32) {
    let chart = &d.chart;
    let tables = tables(d);
    let mut w = Writer::with_capacity(1024 + 768 * laid.nodes.len() + 768 * laid.edges.len());
    let (width, height, headed) = open_chart(
        &mut w,
        f,
        Titles::of(chart),
        describe(d, f.t),
        const { Plain::new("pb-mermaid pb-mermaid-er") },
        (laid.width, laid.height),
    );
    let occurrences = chart.edge_occurrences();
    let mut key = String::with_capacity(32);
    for (k, path) in laid.edges.iter().enumerate() {
        if path.points.len() < 2 {
            continue;
        }
        key.clear();
        let e = &chart.edges[k];
        push_edge_key(&mut key, chart, e, occurrences[k]);
        let bounds = |i: usize| laid.nodes.get(i).and_then(|n| n.as_ref()).map(|n| n.bounds);
        relationship(&mut w, d, k, path, [bounds(e.from), bounds(e.to)], &key);
    }
    let fill = Colour::rgb(0xeef4ff);
    let line = Colour::rgb(0x4a6fa5);
    for (i, n) in laid.nodes.iter().enumerate() {
        let Some(n) = n else { continue };
        let authored = chart
            .styles
            .node(i)
            .and_then(|s| style::painted(s, fill, line, 1.5));
        entity(
            &mut w,
            &chart.nodes[i].id,
            &d.entities[i],
            &tables[i],
            n.bounds,
            authored.as_ref(),
        );
    }
    if headed {
        w.close("g");
        w.newline();
    }
    w.close("svg");
    (w.finish(), width, height)
}
