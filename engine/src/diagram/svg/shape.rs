//! A node's shape as SVG elements: its outline, or the pieces it is traced from.

use super::number::{push_num, push_path, push_pt};
use super::theme::{colour, paint};
use super::writer::{Run, Val, Writer};
use crate::diagram::geometry::{Bounds, Pt};
use crate::diagram::shapes::outline::Outline;
use crate::diagram::shapes::{self, RING, Shape};
use crate::diagram::style::Painted;
use crate::diagram::svg::writer::plain;

/// A node's shape in the theme's colours.
pub fn shape_element(w: &mut Writer, shape: Shape, b: Bounds) {
    shape_element_painted(w, shape, b, None);
}

/// Writes `<tag attrs/>` in the theme's `paint`, or in the author's colours when `authored`
/// is given: then with the same class and `pb-d-authored`, which the stylesheet leaves alone.
fn painted_leaf(
    w: &mut Writer,
    tag: &'static str,
    attrs: &[(&'static str, Val)],
    paint: Run,
    authored: Option<&Painted>,
) {
    let Some(p) = authored else {
        w.leaf_painted(tag, attrs, paint);
        return;
    };
    let (class, fill, stroke) = match paint.0 {
        x if x == paint::SHAPE.0 => (plain!("pb-d-shape pb-d-authored"), &p.fill, &p.stroke),
        x if x == paint::SHAPE_LINE.0 => {
            (plain!("pb-d-shape-line pb-d-authored"), &NONE, &p.stroke)
        }
        x if x == paint::SHAPE_SOLID.0 => (
            plain!("pb-d-shape-solid pb-d-authored"),
            &p.stroke,
            &p.stroke,
        ),
        x if x == paint::SHAPE_FILL.0 => (plain!("pb-d-shape-fill pb-d-authored"), &p.fill, &NONE),
        _ => {
            w.leaf_painted(tag, attrs, paint);
            return;
        }
    };
    let mut all: Vec<(&'static str, Val)> = Vec::with_capacity(attrs.len() + 5);
    all.push(("class", class));
    all.extend_from_slice(attrs);
    all.push(("fill", Val::Text(fill)));
    all.push(("stroke", Val::Text(stroke)));
    all.push(("stroke-width", Val::Text(&p.stroke_width)));
    if let Some(d) = &p.dash {
        all.push(("stroke-dasharray", Val::Text(d)));
    }
    w.leaf(tag, &all);
}

const NONE: String = String::new();

/// A node's shape, in the author's colours when `authored` is given.
pub fn shape_element_painted(w: &mut Writer, shape: Shape, b: Bounds, authored: Option<&Painted>) {
    // After each shape's own attributes.
    const PAINT: Run = paint::SHAPE;
    if let Some(pieces) = shapes::pieces::pieces(shape, b) {
        for piece in &pieces {
            let d = |d: &mut String| {
                if let Some((first, rest)) = piece.points.split_first() {
                    push_path(d, &[("M", &[*first]), (" L", rest)]);
                }
                if piece.closed {
                    d.push_str(" Z");
                }
            };
            let paint = match piece.paint {
                shapes::pieces::Paint::Face => PAINT,
                shapes::pieces::Paint::Solid => paint::SHAPE_SOLID,
                shapes::pieces::Paint::Line => paint::SHAPE_LINE,
                shapes::pieces::Paint::Fill => paint::SHAPE_FILL,
                shapes::pieces::Paint::Bare => paint::SHAPE_BARE,
            };
            painted_leaf(w, "path", &[("d", Val::Ours(&d))], paint, authored);
        }
        return;
    }
    match shapes::outline::outline(shape, b) {
        Outline::Polygon(corners) => {
            let pts = |d: &mut String| push_path(d, &[("", corners.as_slice())]);
            painted_leaf(
                w,
                "polygon",
                &[("points", Val::Ours(&pts))],
                PAINT,
                authored,
            );
            if shape == Shape::Subroutine {
                for x in [b.left() + 8.0, b.right() - 8.0] {
                    let line = |d: &mut String| {
                        d.push('M');
                        push_pt(d, Pt::new(x, b.top()));
                        d.push_str(" V");
                        push_num(d, b.bottom());
                    };
                    w.leaf(
                        "path",
                        &[
                            (
                                "class",
                                match authored {
                                    Some(_) => plain!("pb-d-shape-line pb-d-authored"),
                                    None => plain!("pb-d-shape-line"),
                                },
                            ),
                            ("d", Val::Ours(&line)),
                            (
                                "stroke",
                                authored.map_or(colour::NODE_LINE, |p| Val::Text(&p.stroke)),
                            ),
                            (
                                "stroke-width",
                                authored.map_or(plain!("1.5"), |p| Val::Text(&p.stroke_width)),
                            ),
                        ],
                    );
                }
            }
        }
        Outline::Ellipse { center, rx, ry } => {
            let (cx, cy) = (Val::Num(center.x), Val::Num(center.y));
            if shape == Shape::DoubleCircle {
                painted_leaf(
                    w,
                    "ellipse",
                    &[
                        ("cx", cx),
                        ("cy", cy),
                        ("rx", Val::Num(rx)),
                        ("ry", Val::Num(ry)),
                    ],
                    PAINT,
                    authored,
                );
            }
            let inset = if shape == Shape::DoubleCircle {
                RING
            } else {
                0.0
            };
            painted_leaf(
                w,
                "ellipse",
                &[
                    ("cx", cx),
                    ("cy", cy),
                    ("rx", Val::Num(rx - inset)),
                    ("ry", Val::Num(ry - inset)),
                ],
                PAINT,
                authored,
            );
        }
        Outline::RoundedBox { bounds, r } => painted_leaf(
            w,
            "rect",
            &[
                ("x", Val::Num(bounds.left())),
                ("y", Val::Num(bounds.top())),
                ("width", Val::Num(bounds.w)),
                ("height", Val::Num(bounds.h)),
                ("rx", Val::Num(r)),
            ],
            PAINT,
            authored,
        ),
        // Drawn from their pieces, above.
        Outline::Traced { .. } => {}
        Outline::Cylinder { bounds, cap } => {
            let (rx, c) = (bounds.w / 2.0, cap);
            let (l, r) = (bounds.left(), bounds.right());
            let (t, bo) = (bounds.top() + cap, bounds.bottom() - cap);
            let arc = |d: &mut String, to: Pt| {
                d.push_str(" A");
                push_pt(d, Pt::new(rx, c));
                d.push_str(" 0 0 0 ");
                push_pt(d, to);
            };
            let d = |d: &mut String| {
                d.push('M');
                push_pt(d, Pt::new(l, t));
                d.push_str(" V");
                push_num(d, bo);
                arc(d, Pt::new(r, bo));
                d.push_str(" V");
                push_num(d, t);
                arc(d, Pt::new(l, t));
                d.push_str(" Z");
            };
            painted_leaf(w, "path", &[("d", Val::Ours(&d))], PAINT, authored);
            painted_leaf(
                w,
                "ellipse",
                &[
                    ("cx", Val::Num(bounds.center.x)),
                    ("cy", Val::Num(t)),
                    ("rx", Val::Num(rx)),
                    ("ry", Val::Num(c)),
                ],
                PAINT,
                authored,
            );
        }
    }
}

/// The elements [`shape_element`] writes for a node of `shape` in `b`.
#[cfg(test)]
pub fn shape_markup(shape: Shape, b: Bounds) -> String {
    let mut w = Writer::new();
    shape_element(&mut w, shape, b);
    w.out
}
