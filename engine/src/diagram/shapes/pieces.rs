//! The shapes drawn from pieces (curved, stacked and lined ones): each piece a run of points,
//! closed or not, and how it is painted.

use super::outline::{Outline, outline};
use super::{
    FRAME, LINED, PANE, SCALLOP, STACK, Shape, band_of_total, bow, cap_across, cylinder_cap, tag,
    wave_of_total,
};
use crate::diagram::geometry::{Bounds, Pt};

/// How a piece of a node's drawing is painted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paint {
    /// Filled and outlined as a node is.
    Face,
    /// Filled in the outline's colour (a junction, a fork's bar).
    Solid,
    /// A line on or beside the face: not filled, and not part of the node's area.
    Line,
    /// Filled as a face is, its outline not drawn (a data store's open sides).
    Fill,
    /// Not painted: part of the node's area where nothing is drawn (a comment's text).
    Bare,
}

/// A piece of a node's drawing: a closed polygon, or for a [`Paint::Line`] a polyline (closed
/// when `closed`). Curves are traced as straight runs short enough to look round.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    pub paint: Paint,
    pub closed: bool,
    pub points: Vec<Pt>,
}

impl Piece {
    fn face(points: Vec<Pt>) -> Piece {
        Piece {
            paint: Paint::Face,
            closed: true,
            points,
        }
    }
    fn line(points: Vec<Pt>) -> Piece {
        Piece {
            paint: Paint::Line,
            closed: false,
            points,
        }
    }
}

/// Points along the ellipse around `c` from `from` to `to` degrees (0 to the right, 90 down),
/// both ends included, `steps` runs between.
fn arc(c: Pt, rx: f64, ry: f64, from: f64, to: f64, steps: usize) -> impl Iterator<Item = Pt> {
    (0..=steps).map(move |k| {
        let a = (from + (to - from) * k as f64 / steps as f64).to_radians();
        Pt::new(c.x + rx * a.cos(), c.y + ry * a.sin())
    })
}

/// Points along a wavy edge from `x0` to `x1` (either way round): at `x` it lies
/// `amp · sin(2π · cycles · (x - left) / width)` below `base`, so that edges traced either way
/// over the same span match.
fn wavy(x0: f64, x1: f64, left: f64, width: f64, base: f64, amp: f64, cycles: f64) -> Vec<Pt> {
    const STEPS: usize = 32;
    (0..=STEPS)
        .map(|k| {
            let x = x0 + (x1 - x0) * k as f64 / STEPS as f64;
            let phase = std::f64::consts::TAU * cycles * (x - left) / width;
            Pt::new(x, base + amp * phase.sin())
        })
        .collect()
}

/// A document's outline in the box from `tl` to `br`: flat top and sides, the bottom a wave
/// of height `a` (most of a cycle, as Mermaid's) that reaches the box's bottom.
fn document(tl: Pt, br: Pt, a: f64) -> Vec<Pt> {
    let (l, r, t, bo) = (tl.x, br.x, tl.y, br.y);
    let mut pts = vec![Pt::new(l, t), Pt::new(r, t)];
    pts.extend(wavy(r, l, l, r - l, bo - a, a, 0.8));
    pts
}

/// The corners of the box `b`, clockwise from the top left.
fn box_points(b: Bounds) -> Vec<Pt> {
    let (tl, br) = b.corners();
    vec![tl, Pt::new(br.x, tl.y), br, Pt::new(tl.x, br.y)]
}

/// How a node of `shape` in `b` is drawn, piece by piece, back to front, for the shapes
/// drawn as traced pieces (`None` for the fourteen of the bracket syntax, which are drawn
/// from their [`Outline`]). The pieces that are not lines cover the node's area: edges end on
/// its outline.
pub fn pieces(shape: Shape, b: Bounds) -> Option<Vec<Piece>> {
    let pieces = traced(shape, b);
    (!pieces.is_empty()).then_some(pieces)
}

/// [`pieces`], empty for the bracket shapes (every traced shape has at least one piece).
pub(super) fn traced(shape: Shape, b: Bounds) -> Vec<Piece> {
    let (l, r, t, bo) = (b.left(), b.right(), b.top(), b.bottom());
    let (cx, cy) = (b.center.x, b.center.y);
    let polygon = |o: Outline| match o {
        Outline::Polygon(c) => c.as_slice().to_vec(),
        _ => box_points(b),
    };
    let circle = |rx: f64, steps: usize| arc(b.center, rx, rx, 0.0, 360.0, steps).collect();
    let v = |x: f64| Piece::line(vec![Pt::new(x, t), Pt::new(x, bo)]);
    let h = |y: f64| Piece::line(vec![Pt::new(l, y), Pt::new(r, y)]);
    match shape {
        Shape::Rect
        | Shape::Round
        | Shape::Stadium
        | Shape::Subroutine
        | Shape::Cylinder
        | Shape::Circle
        | Shape::DoubleCircle
        | Shape::Asymmetric
        | Shape::Rhombus
        | Shape::Hexagon
        | Shape::Parallelogram
        | Shape::ParallelogramAlt
        | Shape::Trapezoid
        | Shape::TrapezoidAlt => Vec::new(),
        Shape::NotchedRect
        | Shape::LoopLimit
        | Shape::Triangle
        | Shape::FlippedTriangle
        | Shape::SlopedRect
        | Shape::Bolt => vec![Piece::face(polygon(outline(shape, b)))],
        Shape::Hourglass => vec![
            // Edges end on its box: from above or below on the glass, from the sides beside
            // its waist rather than in its notch.
            Piece {
                paint: Paint::Bare,
                closed: true,
                points: box_points(b),
            },
            Piece::face(vec![
                Pt::new(l, t),
                Pt::new(r, t),
                Pt::new(cx + 1.0, cy),
                Pt::new(r, bo),
                Pt::new(l, bo),
                Pt::new(cx - 1.0, cy),
            ]),
        ],
        Shape::LinedRect => vec![Piece::face(box_points(b)), v(l + FRAME)],
        Shape::DividedRect => vec![Piece::face(box_points(b)), h(t + band_of_total(b.h))],
        Shape::WindowPane => vec![Piece::face(box_points(b)), h(t + PANE), v(l + PANE)],
        Shape::TaggedRect => {
            let e = tag(b.h);
            vec![
                Piece::face(box_points(b)),
                Piece::line(vec![Pt::new(r - e, bo), Pt::new(r, bo - e)]),
            ]
        }
        Shape::Text => vec![Piece {
            paint: Paint::Bare,
            closed: true,
            points: box_points(b),
        }],
        Shape::BraceLeft | Shape::BraceRight | Shape::Braces => {
            let mut out = vec![Piece {
                paint: Paint::Bare,
                closed: true,
                points: box_points(b),
            }];
            if shape != Shape::BraceRight {
                out.push(Piece::line(brace(l, t, bo, 1.0)));
            }
            if shape != Shape::BraceLeft {
                out.push(Piece::line(brace(r, t, bo, -1.0)));
            }
            out
        }
        Shape::DataStore => vec![
            Piece {
                paint: Paint::Fill,
                closed: true,
                points: box_points(b),
            },
            h(t),
            h(bo),
        ],
        Shape::Cloud => vec![Piece::face(scalloped(b, 1.0))],
        Shape::Bang => vec![Piece::face(scalloped(b, -1.0))],
        Shape::Fork | Shape::ForkSideways => vec![Piece {
            paint: Paint::Solid,
            closed: true,
            points: box_points(b),
        }],
        Shape::SmallCircle => vec![Piece::face(circle(b.w / 2.0, 24))],
        Shape::FilledCircle => vec![Piece {
            paint: Paint::Solid,
            closed: true,
            points: circle(b.w / 2.0, 24),
        }],
        Shape::FramedCircle => vec![
            Piece::face(circle(b.w / 2.0, 24)),
            Piece {
                paint: Paint::Solid,
                closed: true,
                points: circle(b.w * 5.0 / 14.0, 24),
            },
        ],
        Shape::CrossedCircle => {
            let d = b.w / 2.0 * std::f64::consts::FRAC_1_SQRT_2;
            vec![
                Piece::face(circle(b.w / 2.0, 48)),
                Piece::line(vec![Pt::new(cx - d, cy - d), Pt::new(cx + d, cy + d)]),
                Piece::line(vec![Pt::new(cx - d, cy + d), Pt::new(cx + d, cy - d)]),
            ]
        }
        Shape::StackedRect => (0..3)
            .rev()
            .map(|k| {
                let o = STACK * f64::from(k);
                Piece::face(box_points(Bounds {
                    center: Pt::new(cx - STACK + o, cy + STACK - o),
                    w: b.w - 2.0 * STACK,
                    h: b.h - 2.0 * STACK,
                }))
            })
            .collect(),
        Shape::StackedDocument => {
            let a = wave_of_total(b.h - 2.0 * STACK);
            (0..3)
                .rev()
                .map(|k| {
                    let o = STACK * f64::from(k);
                    let tl = Pt::new(l + o, t + 2.0 * STACK - o);
                    let br = Pt::new(r - 2.0 * STACK + o, bo - o);
                    Piece::face(document(tl, br, a))
                })
                .collect()
        }
        Shape::Document => vec![Piece::face(document(
            Pt::new(l, t),
            Pt::new(r, bo),
            wave_of_total(b.h),
        ))],
        Shape::LinedDocument => {
            let a = wave_of_total(b.h);
            let face = document(Pt::new(l, t), Pt::new(r, bo), a);
            // The line down to where it meets the wave.
            let x = l + FRAME;
            let phase = std::f64::consts::TAU * 0.8 * FRAME / b.w;
            let end = bo - a + a * phase.sin();
            vec![
                Piece::face(face),
                Piece::line(vec![Pt::new(x, t), Pt::new(x, end)]),
            ]
        }
        Shape::TaggedDocument => {
            let a = wave_of_total(b.h);
            let e = tag(b.h - a);
            let y_at = |x: f64| {
                let phase = std::f64::consts::TAU * 0.8 * (x - l) / b.w;
                bo - a + a * phase.sin()
            };
            vec![
                Piece::face(document(Pt::new(l, t), Pt::new(r, bo), a)),
                Piece::line(vec![Pt::new(r - e, y_at(r - e)), Pt::new(r, y_at(r) - e)]),
            ]
        }
        Shape::PaperTape => {
            // Top and bottom waves run alike: a flag in the wind.
            let a = (b.h / 10.0).max(3.0).min(b.h / 4.0);
            let mut pts = wavy(l, r, l, b.w, t + a, -a, 1.0);
            pts.extend(wavy(r, l, l, b.w, bo - a, -a, 1.0));
            vec![Piece::face(pts)]
        }
        Shape::Delay => {
            let rr = b.h / 2.0;
            let mut pts = vec![Pt::new(l, t)];
            pts.extend(arc(Pt::new(r - rr, cy), rr, rr, -90.0, 90.0, 24));
            pts.push(Pt::new(l, bo));
            vec![Piece::face(pts)]
        }
        Shape::CurvedTrapezoid => {
            let rr = b.h / 2.0;
            let e = b.h / 4.0;
            let mut pts = vec![Pt::new(l + e, t)];
            pts.extend(arc(Pt::new(r - rr, cy), rr, rr, -90.0, 90.0, 24));
            pts.extend([Pt::new(l + e, bo), Pt::new(l, cy)]);
            vec![Piece::face(pts)]
        }
        Shape::BowTieRect => {
            // Stored data: the left side bows out, the right side in.
            let e = bow(b.h);
            let ry = b.h / 2.0;
            let mut pts: Vec<Pt> = arc(Pt::new(l + e, cy), e, ry, 90.0, 270.0, 16).collect();
            pts.extend(arc(Pt::new(r, cy), e, ry, 270.0, 90.0, 16));
            vec![Piece::face(pts)]
        }
        Shape::HorizontalCylinder => {
            let e = cap_across(b.h);
            let ry = b.h / 2.0;
            let (left, right) = (Pt::new(l + e, cy), Pt::new(r - e, cy));
            let mut pts: Vec<Pt> = arc(left, e, ry, 90.0, 270.0, 16).collect();
            pts.extend(arc(right, e, ry, -90.0, 90.0, 16));
            // The near end, seen whole.
            let rim = arc(right, e, ry, 90.0, 270.0, 16).collect();
            vec![Piece::face(pts), Piece::line(rim)]
        }
        Shape::LinedCylinder => {
            let c = cylinder_cap(b.w);
            let rx = b.w / 2.0;
            let (top, bottom) = (Pt::new(cx, t + c), Pt::new(cx, bo - c));
            let mut pts: Vec<Pt> = arc(top, rx, c, 180.0, 360.0, 24).collect();
            pts.extend(arc(bottom, rx, c, 0.0, 180.0, 24));
            vec![
                Piece::face(pts),
                Piece::line(arc(top, rx, c, 180.0, 0.0, 24).collect()),
                Piece::line(arc(Pt::new(cx, t + c + LINED), rx, c, 180.0, 0.0, 24).collect()),
            ]
        }
    }
}

/// A cloud (`out` 1: bumps out from an ellipse inside `b`) or a bang (`out` -1: bites in
/// from the ellipse that fills `b`), each bump or bite a half ellipse over a chord.
fn scalloped(b: Bounds, out: f64) -> Vec<Pt> {
    let depth = SCALLOP.min(b.w.min(b.h) / 4.0);
    let inset = if out > 0.0 { depth } else { 0.0 };
    let (rx, ry) = (b.w / 2.0 - inset, b.h / 2.0 - inset);
    // Some ten bumps round a wide cloud, at least six.
    let n = ((rx + ry) / 12.0).round().clamp(6.0, 14.0) as usize;
    let anchor = |k: usize| {
        let a = std::f64::consts::TAU * k as f64 / n as f64 - std::f64::consts::FRAC_PI_2;
        Pt::new(b.center.x + rx * a.cos(), b.center.y + ry * a.sin())
    };
    let mut pts = Vec::with_capacity(n * 8);
    for k in 0..n {
        let (p, q) = (anchor(k), anchor(k + 1));
        let half = q.minus(p).scale(0.5);
        let mid = p.plus(half);
        // Clockwise on screen: the outward normal of p → q is to its left.
        let normal = Pt::new(half.y, -half.x)
            .unit()
            .unwrap_or(Pt::new(0.0, -1.0));
        let normal = normal.scale(out * depth);
        // From p over the bump to just before q (q starts the next one).
        for step in 0..8 {
            let a = std::f64::consts::PI * f64::from(step) / 8.0;
            pts.push(mid.minus(half.scale(a.cos())).plus(normal.scale(a.sin())));
        }
    }
    pts
}

/// A curly brace along the side `x` from `t` to `bo`, its point towards `-side` (1 for a
/// brace on the left, pointing left).
fn brace(x: f64, t: f64, bo: f64, side: f64) -> Vec<Pt> {
    let rr = FRAME / 2.0;
    let mid = (t + bo) / 2.0;
    // Angles mirrored for a brace on the right.
    let turn = |deg: f64| if side > 0.0 { deg } else { 180.0 - deg };
    let mut pts: Vec<Pt> = arc(
        Pt::new(x + side * FRAME, t + rr),
        rr,
        rr,
        turn(270.0),
        turn(180.0),
        6,
    )
    .collect();
    pts.extend(arc(Pt::new(x, mid - rr), rr, rr, turn(0.0), turn(90.0), 6));
    pts.extend(arc(
        Pt::new(x, mid + rr),
        rr,
        rr,
        turn(270.0),
        turn(360.0),
        6,
    ));
    pts.extend(arc(
        Pt::new(x + side * FRAME, bo - rr),
        rr,
        rr,
        turn(180.0),
        turn(90.0),
        6,
    ));
    pts
}
