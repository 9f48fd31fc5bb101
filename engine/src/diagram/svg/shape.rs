//! A node's shape as SVG elements: its outline, or the pieces it is traced from.

use super::number::{push_num, push_path, push_pt};
use super::theme::{colour, paint};
use super::writer::{Run, Val, Writer};
use crate::diagram::geometry::{Bounds, Pt};
use crate::diagram::shapes::outline::Outline;
use crate::diagram::shapes::{self, RING, Shape};
use crate::diagram::svg::writer::plain;

pub fn shape_element(w: &mut Writer, shape: Shape, b: Bounds) {
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
            w.leaf_painted("path", &[("d", Val::Ours(&d))], paint);
        }
        return;
    }
    match shapes::outline::outline(shape, b) {
        Outline::Polygon(corners) => {
            let pts = |d: &mut String| push_path(d, &[("", corners.as_slice())]);
            w.leaf_painted("polygon", &[("points", Val::Ours(&pts))], PAINT);
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
                            ("class", plain!("pb-d-shape-line")),
                            ("d", Val::Ours(&line)),
                            ("stroke", colour::NODE_LINE),
                            ("stroke-width", plain!("1.5")),
                        ],
                    );
                }
            }
        }
        Outline::Ellipse { center, rx, ry } => {
            let (cx, cy) = (Val::Num(center.x), Val::Num(center.y));
            if shape == Shape::DoubleCircle {
                w.leaf_painted(
                    "ellipse",
                    &[
                        ("cx", cx),
                        ("cy", cy),
                        ("rx", Val::Num(rx)),
                        ("ry", Val::Num(ry)),
                    ],
                    PAINT,
                );
            }
            let inset = if shape == Shape::DoubleCircle {
                RING
            } else {
                0.0
            };
            w.leaf_painted(
                "ellipse",
                &[
                    ("cx", cx),
                    ("cy", cy),
                    ("rx", Val::Num(rx - inset)),
                    ("ry", Val::Num(ry - inset)),
                ],
                PAINT,
            );
        }
        Outline::RoundedBox { bounds, r } => w.leaf_painted(
            "rect",
            &[
                ("x", Val::Num(bounds.left())),
                ("y", Val::Num(bounds.top())),
                ("width", Val::Num(bounds.w)),
                ("height", Val::Num(bounds.h)),
                ("rx", Val::Num(r)),
            ],
            PAINT,
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
            w.leaf_painted("path", &[("d", Val::Ours(&d))], PAINT);
            w.leaf_painted(
                "ellipse",
                &[
                    ("cx", Val::Num(bounds.center.x)),
                    ("cy", Val::Num(t)),
                    ("rx", Val::Num(rx)),
                    ("ry", Val::Num(c)),
                ],
                PAINT,
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
