//! Each shape's outline: a polygon, an ellipse, a rounded box, a cylinder, or traced from its
//! pieces.

use super::{NOTCH, Shape, cylinder_cap, slant};
use crate::diagram::geometry::{Bounds, Pt};

/// A polygon's corners, kept inline (at most six: the hexagon) so an outline costs no
/// allocation; edges ask for one per end.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Corners {
    pub(super) pts: [Pt; 6],
    pub(super) len: usize,
    /// The box with corners 0 and 2 (most outlines): its crossings are the cheapest to solve.
    pub(super) is_box: bool,
}

impl Corners {
    pub(super) fn new(corners: &[(f64, f64)]) -> Corners {
        let mut pts = [Pt::new(0.0, 0.0); 6];
        for (p, &(x, y)) in pts.iter_mut().zip(corners) {
            *p = Pt::new(x, y);
        }
        Corners {
            pts,
            len: corners.len().min(6),
            is_box: false,
        }
    }

    pub fn as_slice(&self) -> &[Pt] {
        &self.pts[..self.len]
    }
}

/// The outline of a node, in absolute coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outline {
    Polygon(Corners),
    Ellipse {
        center: Pt,
        rx: f64,
        ry: f64,
    },
    /// A box with half-circle ends (stadium) or rounded corners.
    RoundedBox {
        bounds: Bounds,
        r: f64,
    },
    /// A cylinder: a box with elliptical caps of half-height `cap`.
    Cylinder {
        bounds: Bounds,
        cap: f64,
    },
    /// The area of the pieces that [`pieces`](super::pieces::pieces) traces for `shape` (curves as short straight
    /// runs), where no outline above fits.
    Traced {
        shape: Shape,
        bounds: Bounds,
    },
}

pub fn outline(shape: Shape, b: Bounds) -> Outline {
    let (l, r, t, bo) = (b.left(), b.right(), b.top(), b.bottom());
    let cy = b.center.y;
    let poly = |pts: &[(f64, f64)]| Outline::Polygon(Corners::new(pts));
    let whole_box = || {
        Outline::Polygon(Corners {
            is_box: true,
            ..Corners::new(&[(l, t), (r, t), (r, bo), (l, bo)])
        })
    };
    match shape {
        Shape::Rect | Shape::Subroutine => whole_box(),
        Shape::Round => Outline::RoundedBox {
            bounds: b,
            r: 8.0_f64.min(b.h / 2.0),
        },
        Shape::Stadium => Outline::RoundedBox {
            bounds: b,
            r: b.h / 2.0,
        },
        Shape::Cylinder => Outline::Cylinder {
            bounds: b,
            cap: cylinder_cap(b.w),
        },
        Shape::Circle | Shape::DoubleCircle => Outline::Ellipse {
            center: b.center,
            rx: b.w / 2.0,
            ry: b.h / 2.0,
        },
        Shape::Asymmetric => {
            let e = b.h / 2.0;
            poly(&[(l, t), (r, t), (r, bo), (l, bo), (l + e, cy)])
        }
        Shape::Rhombus => poly(&[(b.center.x, t), (r, cy), (b.center.x, bo), (l, cy)]),
        Shape::Hexagon => {
            let e = b.h / 3.0;
            poly(&[
                (l + e, t),
                (r - e, t),
                (r, cy),
                (r - e, bo),
                (l + e, bo),
                (l, cy),
            ])
        }
        Shape::Parallelogram => {
            let e = slant(b.h);
            poly(&[(l + e, t), (r, t), (r - e, bo), (l, bo)])
        }
        Shape::ParallelogramAlt => {
            let e = slant(b.h);
            poly(&[(l, t), (r - e, t), (r, bo), (l + e, bo)])
        }
        Shape::Trapezoid => {
            let e = slant(b.h);
            poly(&[(l + e, t), (r - e, t), (r, bo), (l, bo)])
        }
        Shape::TrapezoidAlt => {
            let e = slant(b.h);
            poly(&[(l, t), (r, t), (r - e, bo), (l + e, bo)])
        }
        Shape::LinedRect
        | Shape::DividedRect
        | Shape::WindowPane
        | Shape::TaggedRect
        | Shape::Text
        | Shape::DataStore
        | Shape::BraceLeft
        | Shape::BraceRight
        | Shape::Braces
        | Shape::Fork
        | Shape::ForkSideways
        | Shape::Hourglass => whole_box(),
        Shape::NotchedRect => poly(&[(l + NOTCH, t), (r, t), (r, bo), (l, bo), (l, t + NOTCH)]),
        Shape::LoopLimit => {
            let e = (b.h * 0.3).min(b.w * 0.1).min(12.0);
            poly(&[
                (l + e, t),
                (r - e, t),
                (r, t + e),
                (r, bo),
                (l, bo),
                (l, t + e),
            ])
        }
        Shape::Triangle => poly(&[(b.center.x, t), (r, bo), (l, bo)]),
        Shape::FlippedTriangle => poly(&[(l, t), (r, t), (b.center.x, bo)]),
        Shape::SlopedRect => poly(&[(l, t + b.h / 3.0), (r, t), (r, bo), (l, bo)]),
        Shape::Bolt => {
            // Two strokes down to the left, offset by a step across the middle.
            let (w, h) = (b.w, b.h);
            let at = |fx: f64, fy: f64| (l + fx * w, t + fy * h);
            poly(&[
                at(1.0, 0.0),
                at(0.0, 0.55),
                at(0.6, 0.55),
                at(0.0, 1.0),
                at(1.0, 0.45),
                at(0.4, 0.45),
            ])
        }
        Shape::SmallCircle | Shape::FilledCircle | Shape::FramedCircle | Shape::CrossedCircle => {
            Outline::Ellipse {
                center: b.center,
                rx: b.w / 2.0,
                ry: b.h / 2.0,
            }
        }
        Shape::LinedCylinder => Outline::Cylinder {
            bounds: b,
            cap: cylinder_cap(b.w),
        },
        Shape::StackedRect
        | Shape::BowTieRect
        | Shape::Delay
        | Shape::CurvedTrapezoid
        | Shape::Document
        | Shape::LinedDocument
        | Shape::TaggedDocument
        | Shape::StackedDocument
        | Shape::PaperTape
        | Shape::HorizontalCylinder
        | Shape::Cloud
        | Shape::Bang => Outline::Traced { shape, bounds: b },
    }
}
