//! Node shapes: how big each is around its label, its outline, and whether a point is inside
//! (edges are clipped to the outline by bisection on that test).

use super::flowchart::Shape;
use super::text::Block;
use std::f64::consts::SQRT_2;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pt {
    pub x: f64,
    pub y: f64,
}

impl Pt {
    pub fn new(x: f64, y: f64) -> Pt {
        Pt { x, y }
    }
    pub fn plus(self, o: Pt) -> Pt {
        Pt::new(self.x + o.x, self.y + o.y)
    }
    pub fn minus(self, o: Pt) -> Pt {
        Pt::new(self.x - o.x, self.y - o.y)
    }
    pub fn scale(self, s: f64) -> Pt {
        Pt::new(self.x * s, self.y * s)
    }
    pub fn len(self) -> f64 {
        // Diagram coordinates are small: no need for `hypot`'s care against overflow, which
        // costs several times more.
        (self.x * self.x + self.y * self.y).sqrt()
    }
    pub fn lerp(self, o: Pt, t: f64) -> Pt {
        self.plus(o.minus(self).scale(t))
    }
    /// The unit vector, or `None` for a zero vector.
    pub fn unit(self) -> Option<Pt> {
        let l = self.len();
        (l > 1e-9).then(|| self.scale(1.0 / l))
    }
}

/// An axis-aligned box by its centre and size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub center: Pt,
    pub w: f64,
    pub h: f64,
}

impl Bounds {
    pub fn left(&self) -> f64 {
        self.center.x - self.w / 2.0
    }
    pub fn right(&self) -> f64 {
        self.center.x + self.w / 2.0
    }
    pub fn top(&self) -> f64 {
        self.center.y - self.h / 2.0
    }
    pub fn bottom(&self) -> f64 {
        self.center.y + self.h / 2.0
    }
    /// The top left and bottom right corners.
    pub fn corners(&self) -> (Pt, Pt) {
        (
            Pt::new(self.left(), self.top()),
            Pt::new(self.right(), self.bottom()),
        )
    }
    pub fn contains(&self, p: Pt) -> bool {
        (p.x - self.center.x).abs() <= self.w / 2.0 && (p.y - self.center.y).abs() <= self.h / 2.0
    }
    /// Whether the two boxes share any area (touching edges do not count).
    #[cfg(test)]
    pub fn overlaps(&self, o: &Bounds) -> bool {
        self.left() < o.right() - 1e-6
            && o.left() < self.right() - 1e-6
            && self.top() < o.bottom() - 1e-6
            && o.top() < self.bottom() - 1e-6
    }
}

const PAD_X: f64 = 14.0;
const PAD_Y: f64 = 9.0;
const MIN_W: f64 = 40.0;
/// The ring of a double circle sits this far outside the inner one.
pub const RING: f64 = 5.0;

/// The cylinder's cap: half the height of its ellipse.
pub(super) fn cylinder_cap(w: f64) -> f64 {
    (w * 0.08).clamp(5.0, 12.0)
}

/// The width and height of a node of `shape` around `text`.
pub fn size(shape: Shape, text: &Block) -> (f64, f64) {
    let (tw, th) = (text.width, text.height);
    let h = th + 2.0 * PAD_Y;
    let w = (tw + 2.0 * PAD_X).max(MIN_W);
    match shape {
        Shape::Rect | Shape::Round => (w, h),
        Shape::Subroutine => (w + 16.0, h),
        Shape::Stadium => (w + h / 2.0, h),
        Shape::Cylinder => (w, h + 2.0 * cylinder_cap(w)),
        Shape::Circle | Shape::DoubleCircle => {
            let d = (tw.hypot(th) + 12.0).max(MIN_W);
            let d = if shape == Shape::DoubleCircle {
                d + 2.0 * RING
            } else {
                d
            };
            (d, d)
        }
        Shape::Asymmetric => (w + h / 2.0, h),
        Shape::Rhombus => {
            // The label box (a × b) fits a rhombus W × H when a/W + b/H ≤ 1; take H = W / 2.
            let a = tw + 12.0;
            let b = th + 8.0;
            let big_w = (a + 2.0 * b).max(MIN_W + 20.0);
            (big_w, big_w / 2.0)
        }
        Shape::Hexagon => (w + 2.0 * h / 3.0, h),
        Shape::Parallelogram | Shape::ParallelogramAlt | Shape::Trapezoid | Shape::TrapezoidAlt => {
            (w + 2.0 * slant(h), h)
        }
        Shape::NotchedRect => (w + NOTCH / 2.0, h),
        Shape::LinedRect | Shape::BraceLeft | Shape::BraceRight => (w + FRAME, h),
        Shape::Braces => (w + 2.0 * FRAME, h),
        Shape::DividedRect => (w, h + band(h)),
        Shape::WindowPane => (w + PANE, h + PANE),
        Shape::TaggedRect => (w + tag(h), h),
        Shape::StackedRect => (w + 2.0 * STACK, h + 2.0 * STACK),
        Shape::SlopedRect => (w, h + band(h) * 2.0),
        Shape::BowTieRect => (w + 2.0 * bow(h), h),
        Shape::LoopLimit | Shape::Text | Shape::DataStore => (w, h),
        Shape::Cloud | Shape::Bang => {
            // The label's box fits the ellipse √2 times its half-size; the bumps or bites
            // go round that.
            let (rx, ry) = ((tw / 2.0 + 6.0) * SQRT_2, (th / 2.0 + 4.0) * SQRT_2);
            let margin = if shape == Shape::Bang {
                2.0 * SCALLOP
            } else {
                SCALLOP
            };
            (2.0 * (rx + margin), 2.0 * (ry + margin))
        }
        Shape::Delay => (w + h / 2.0, h),
        Shape::CurvedTrapezoid => (w + 0.75 * h, h),
        Shape::Document | Shape::TaggedDocument => (w, h + wave(h)),
        Shape::LinedDocument => (w + FRAME, h + wave(h)),
        Shape::StackedDocument => (w + 2.0 * STACK, h + wave(h) + 2.0 * STACK),
        Shape::PaperTape => (w, h + 2.0 * wave(h)),
        Shape::HorizontalCylinder => (w + 2.0 * cap_across(h), h),
        Shape::LinedCylinder => (w, h + 2.0 * cylinder_cap(w) + LINED),
        Shape::Triangle | Shape::FlippedTriangle => {
            // As Mermaid: as tall as wide, the label in the wide half.
            let side = (tw + th + 2.0 * PAD_X + 2.0).max(MIN_W + 20.0);
            (side, side)
        }
        // Mermaid draws these without their label.
        Shape::SmallCircle | Shape::FilledCircle | Shape::FramedCircle => (14.0, 14.0),
        Shape::CrossedCircle => (44.0, 44.0),
        Shape::Fork => (70.0, 10.0),
        Shape::ForkSideways => (10.0, 70.0),
        Shape::Hourglass => (30.0, 30.0),
        Shape::Bolt => (35.0, 70.0),
    }
}

/// Whether the node's label is drawn: Mermaid leaves it out of its small symbols.
pub fn shows_label(shape: Shape) -> bool {
    !matches!(
        shape,
        Shape::SmallCircle
            | Shape::FilledCircle
            | Shape::FramedCircle
            | Shape::CrossedCircle
            | Shape::Fork
            | Shape::ForkSideways
            | Shape::Hourglass
            | Shape::Bolt
    )
}

/// The centre of the label of a node of `shape` drawn in `b`: off the box's centre where the
/// shape gives part of its box to something else (a cap, a band, the copies behind a stack).
pub fn label_center(shape: Shape, b: Bounds, text_height: f64) -> Pt {
    let h = b.h;
    let (dx, dy) = match shape {
        Shape::Cylinder => (0.0, cylinder_cap(b.w) / 2.0),
        Shape::LinedCylinder => (0.0, (cylinder_cap(b.w) + LINED) / 2.0),
        Shape::LinedRect | Shape::BraceLeft => (FRAME / 2.0, 0.0),
        Shape::BraceRight => (-FRAME / 2.0, 0.0),
        Shape::DividedRect => (0.0, band_of_total(h) / 2.0),
        Shape::WindowPane => (PANE / 2.0, PANE / 2.0),
        Shape::TaggedRect => (-tag(h) / 2.0, 0.0),
        Shape::StackedRect => (-STACK, STACK),
        // The slope rises a third of the height.
        Shape::SlopedRect => (0.0, h / 6.0),
        Shape::Delay => (-h / 4.0, 0.0),
        Shape::CurvedTrapezoid => (-h / 8.0, 0.0),
        Shape::HorizontalCylinder => (-cap_across(h) / 2.0, 0.0),
        Shape::Document | Shape::TaggedDocument => (0.0, -wave_of_total(h) / 2.0),
        Shape::LinedDocument => (FRAME / 2.0, -wave_of_total(h) / 2.0),
        Shape::StackedDocument => {
            let a = wave_of_total(h - 2.0 * STACK);
            (-STACK, STACK - a / 2.0)
        }
        // Near the base, where the triangle is widest.
        Shape::Triangle => (0.0, h / 2.0 - text_height / 2.0 - PAD_Y - 4.0),
        Shape::FlippedTriangle => (0.0, -(h / 2.0 - text_height / 2.0 - PAD_Y - 4.0)),
        _ => (0.0, 0.0),
    };
    b.center.plus(Pt::new(dx, dy))
}

fn slant(h: f64) -> f64 {
    h * 0.4
}

/// How far a cloud's bumps reach out, or a bang's bites in, at most.
const SCALLOP: f64 = 9.0;

/// The cut corner of a card.
const NOTCH: f64 = 12.0;
/// The band at the side of a lined process or lined document, and the room for a brace.
const FRAME: f64 = 8.0;
/// The bands at the top and left of a window pane (internal storage).
const PANE: f64 = 10.0;
/// How far each copy behind a stack (processes, documents) is offset.
const STACK: f64 = 5.0;
/// The gap between a lined cylinder's top and its second line.
const LINED: f64 = 5.0;

/// The band above a divided process's label (a quarter of the label's box); a sloped
/// rectangle rises twice that.
fn band(h: f64) -> f64 {
    h * 0.25
}

/// [`band`] of a divided process whose whole height, band included, is `total`.
fn band_of_total(total: f64) -> f64 {
    total * 0.2
}

/// The height of a document's wave (an eighth of the label's box, as Mermaid).
fn wave(h: f64) -> f64 {
    (h / 8.0).max(3.0)
}

/// [`wave`] of a document whose whole height, wave included, is `total`.
fn wave_of_total(total: f64) -> f64 {
    // h + h/8 = total where the wave is not at its least.
    (total / 9.0).max(3.0).min(total / 2.0)
}

/// The side of a tagged process's corner tag.
fn tag(h: f64) -> f64 {
    (h * 0.3).clamp(6.0, 14.0)
}

/// How far a stored-data shape's curved sides bow.
fn bow(h: f64) -> f64 {
    (h / 6.0).clamp(4.0, 10.0)
}

/// The half-width of a horizontal cylinder's end caps.
fn cap_across(h: f64) -> f64 {
    (h * 0.15).clamp(5.0, 12.0)
}

/// A polygon's corners, kept inline (at most six: the hexagon) so an outline costs no
/// allocation; edges ask for one per end.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Corners {
    pts: [Pt; 6],
    len: usize,
    /// The box with corners 0 and 2 (most outlines): its crossings are the cheapest to solve.
    is_box: bool,
}

impl Corners {
    fn new(corners: &[(f64, f64)]) -> Corners {
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
    /// The area of the pieces that [`pieces`] traces for `shape` (curves as short straight
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
fn traced(shape: Shape, b: Bounds) -> Vec<Piece> {
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

impl Outline {
    pub fn contains(&self, p: Pt) -> bool {
        match self {
            // The even-odd test of the box's four corners, worked out: only its two upright
            // sides can cross a level ray, and they cross it exactly at their x.
            Outline::Polygon(c) if c.is_box => {
                let (tl, br) = (c.pts[0], c.pts[2]);
                (tl.y > p.y) != (br.y > p.y) && (p.x < br.x) != (p.x < tl.x)
            }
            Outline::Polygon(corners) => polygon_contains(corners.as_slice(), p),
            Outline::Traced { shape, bounds } => area_contains(&traced(*shape, *bounds), p),
            Outline::Ellipse { center, rx, ry } => {
                let dx = (p.x - center.x) / rx;
                let dy = (p.y - center.y) / ry;
                dx * dx + dy * dy <= 1.0
            }
            Outline::RoundedBox { bounds, r } => {
                if !bounds.contains(p) {
                    return false;
                }
                let ix = (p.x - bounds.center.x).abs() - (bounds.w / 2.0 - r);
                let iy = (p.y - bounds.center.y).abs() - (bounds.h / 2.0 - r);
                ix <= 0.0 || iy <= 0.0 || ix * ix + iy * iy <= r * r
            }
            Outline::Cylinder { bounds, cap } => {
                if !bounds.contains(p) {
                    return false;
                }
                let body_top = bounds.top() + cap;
                let body_bottom = bounds.bottom() - cap;
                if p.y >= body_top && p.y <= body_bottom {
                    return true;
                }
                let cy = if p.y < body_top {
                    body_top
                } else {
                    body_bottom
                };
                let dx = (p.x - bounds.center.x) / (bounds.w / 2.0);
                let dy = (p.y - cy) / cap;
                dx * dx + dy * dy <= 1.0
            }
        }
    }
}

/// Whether `p` is inside the polygon through `pts` (even-odd).
fn polygon_contains(pts: &[Pt], p: Pt) -> bool {
    let mut inside = false;
    let mut j = pts.len().wrapping_sub(1);
    for (i, a) in pts.iter().enumerate() {
        let b = pts[j];
        if (a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x {
            inside = !inside;
        }
        j = i;
    }
    inside
}

/// Whether `p` is inside the area the pieces cover (every piece but lines).
fn area_contains(pieces: &[Piece], p: Pt) -> bool {
    pieces
        .iter()
        .any(|piece| piece.paint != Paint::Line && polygon_contains(&piece.points, p))
}

/// Where the segment from `inside` to `outside` crosses the outline: solved exactly for a
/// convex outline `inside` is strictly inside, else found by bisection on `contains` (to a
/// thousandth of a pixel; coordinates are printed to a tenth).
pub fn crossing(outline: &Outline, inside: Pt, outside: Pt) -> Pt {
    let d = outside.minus(inside);
    // (An `outside` that is not outside leaves the exit past the segment's end.)
    if let Some(t) = outline
        .exit(inside, d)
        .filter(|&t| (d.x != 0.0 || d.y != 0.0) && t <= 1.0)
    {
        return inside.plus(d.scale(t));
    }
    if let Outline::Traced { shape, bounds } = *outline {
        // Traced once for the whole search.
        let pieces = traced(shape, bounds);
        return bisect_by(|p| area_contains(&pieces, p), inside, outside);
    }
    bisect(outline, inside, outside)
}

/// Where the segment crosses the outline by bisection on `contains`: the outside end of a step
/// under a thousandth of a pixel long.
fn bisect(outline: &Outline, inside: Pt, outside: Pt) -> Pt {
    bisect_by(|p| outline.contains(p), inside, outside)
}

/// [`bisect`] on any test of being inside.
fn bisect_by(contains: impl Fn(Pt) -> bool, inside: Pt, outside: Pt) -> Pt {
    let (mut a, mut b) = (inside, outside);
    for _ in 0..40 {
        // |a - b| < 0.001, without a square root each round.
        let e = a.minus(b);
        if e.x * e.x + e.y * e.y < 1e-6 {
            break;
        }
        let m = a.lerp(b, 0.5);
        if contains(m) {
            a = m;
        } else {
            b = m;
        }
    }
    b
}

impl Outline {
    /// For a convex outline that `from` is strictly inside: the `t` at which `from + t·d`
    /// leaves it (points of the ray are inside before, outside after). `None` where that
    /// does not hold or is not worked out here.
    fn exit(&self, from: Pt, d: Pt) -> Option<f64> {
        match *self {
            Outline::Polygon(c) if c.is_box => {
                let (tl, br) = (c.pts[0], c.pts[2]);
                box_exit(tl, br, from, d)
            }
            Outline::Polygon(c) => polygon_exit(c.as_slice(), from, d),
            Outline::Ellipse { center, rx, ry } => {
                (ellipse_at(center, rx, ry, from) < 0.0).then_some(())?;
                ellipse_exit(center, rx, ry, from, d)
            }
            Outline::RoundedBox { bounds, r } => {
                // Straight sides, then a quarter circle in each corner square.
                let (kx, ky) = (bounds.w / 2.0 - r, bounds.h / 2.0 - r);
                if !(r > 0.0 && kx >= 0.0 && ky >= 0.0) {
                    return None;
                }
                // The centre of the corner circle whose square `p` is in, if any.
                let corner_of = |p: Pt| {
                    let (ox, oy) = (p.x - bounds.center.x, p.y - bounds.center.y);
                    (ox.abs() > kx && oy.abs() > ky).then(|| {
                        Pt::new(
                            bounds.center.x + kx.copysign(ox),
                            bounds.center.y + ky.copysign(oy),
                        )
                    })
                };
                if let Some(c) = corner_of(from)
                    && ellipse_at(c, r, r, from) >= 0.0
                {
                    return None;
                }
                let (tl, br) = bounds.corners();
                let t = box_exit(tl, br, from, d)?;
                match corner_of(from.plus(d.scale(t))) {
                    Some(c) => ellipse_exit(c, r, r, from, d),
                    None => Some(t),
                }
            }
            Outline::Cylinder { bounds, cap } => {
                // The body, then the elliptical cap above or below it.
                if !(cap > 0.0 && 2.0 * cap <= bounds.h) {
                    return None;
                }
                let (body_top, body_bottom) = (bounds.top() + cap, bounds.bottom() - cap);
                // The centre of the cap `y` is in, if any.
                let cap_of = |y: f64| {
                    if y < body_top {
                        Some(Pt::new(bounds.center.x, body_top))
                    } else if y > body_bottom {
                        Some(Pt::new(bounds.center.x, body_bottom))
                    } else {
                        None
                    }
                };
                let rx = bounds.w / 2.0;
                if let Some(c) = cap_of(from.y)
                    && ellipse_at(c, rx, cap, from) >= 0.0
                {
                    return None;
                }
                let (tl, br) = bounds.corners();
                let t = box_exit(tl, br, from, d)?;
                match cap_of(from.y + d.y * t) {
                    Some(c) => ellipse_exit(c, rx, cap, from, d),
                    None => Some(t),
                }
            }
            Outline::Traced { .. } => None,
        }
    }
}

/// [`Outline::exit`] for a polygon, when it is convex: the first side whose half-plane the
/// ray leaves.
fn polygon_exit(pts: &[Pt], from: Pt, d: Pt) -> Option<f64> {
    if pts.len() < 3 {
        return None;
    }
    let last = pts[pts.len() - 1];
    // Convex: every turn the same way, and the sides' directions go round once (their x and
    // y each change sign twice), which a star's do not.
    let mut turns = 0.0;
    let mut before = last.minus(pts[pts.len() - 2]);
    // Each side's normal either way round: `from` must be strictly on the same side of
    // every one, which fixes which way is out.
    let mut side = 0.0;
    let mut exit = f64::INFINITY;
    let mut p = last;
    for &q in pts {
        let edge = q.minus(p);
        let turn = before.x * edge.y - before.y * edge.x;
        if turn == 0.0 || turn * turns < 0.0 {
            return None;
        }
        turns = turn;
        before = edge;
        let n = Pt::new(edge.y, -edge.x);
        let f = (from.x - p.x) * n.x + (from.y - p.y) * n.y;
        if f == 0.0 || !f.is_finite() || f * side < 0.0 {
            return None;
        }
        side = f.signum();
        // Along the outward normal: `from` is -|f| from the line, moving at `g` a unit of t.
        let g = -side * (d.x * n.x + d.y * n.y);
        if g > 0.0 {
            exit = exit.min(f.abs() / g);
        }
        p = q;
    }
    let sides = || {
        pts.iter()
            .zip(pts.iter().cycle().skip(1))
            .map(|(p, q)| q.minus(*p))
    };
    let once_round =
        sign_changes(sides().map(|e| e.x)) <= 2 && sign_changes(sides().map(|e| e.y)) <= 2;
    (once_round && exit.is_finite()).then_some(exit)
}

/// How often a cyclic run of numbers changes sign, zeros skipped.
fn sign_changes(values: impl Iterator<Item = f64>) -> usize {
    let (mut first, mut before, mut changes) = (0.0, 0.0, 0);
    for v in values.filter(|v| *v != 0.0) {
        if before == 0.0 {
            first = v;
        } else if v * before < 0.0 {
            changes += 1;
        }
        before = v;
    }
    changes + usize::from(first * before < 0.0)
}

/// [`Outline::exit`] for the box from `tl` to `br`, `from` strictly inside.
fn box_exit(tl: Pt, br: Pt, from: Pt, d: Pt) -> Option<f64> {
    let (l, r, t, bo) = (tl.x, br.x, tl.y, br.y);
    if !(from.x > l && from.x < r && from.y > t && from.y < bo) {
        return None;
    }
    let along = |at: f64, lo: f64, hi: f64, v: f64| {
        if v > 0.0 {
            (hi - at) / v
        } else if v < 0.0 {
            (lo - at) / v
        } else {
            f64::INFINITY
        }
    };
    let exit = along(from.x, l, r, d.x).min(along(from.y, t, bo, d.y));
    exit.is_finite().then_some(exit)
}

/// Below 0 inside the ellipse, 0 on it, above 0 outside.
fn ellipse_at(center: Pt, rx: f64, ry: f64, p: Pt) -> f64 {
    let (u, v) = ((p.x - center.x) / rx, (p.y - center.y) / ry);
    u * u + v * v - 1.0
}

/// Where the ray `from + t·d` leaves the ellipse (the larger root), if it meets it at all.
fn ellipse_exit(center: Pt, rx: f64, ry: f64, from: Pt, d: Pt) -> Option<f64> {
    let (u, v) = ((from.x - center.x) / rx, (from.y - center.y) / ry);
    let (du, dv) = (d.x / rx, d.y / ry);
    let a = du * du + dv * dv;
    let b = 2.0 * (u * du + v * dv);
    let c = u * u + v * v - 1.0;
    let disc = b * b - 4.0 * a * c;
    if !(a > 0.0 && disc > 0.0 && disc.is_finite()) {
        return None;
    }
    // The larger root, written so that no two close numbers are subtracted.
    let root = disc.sqrt();
    let t = if b >= 0.0 {
        -2.0 * c / (b + root)
    } else {
        (root - b) / (2.0 * a)
    };
    t.is_finite().then_some(t)
}

/// Drops the leading points of `path` that lie inside `outline` and starts the path where it
/// leaves it. A path that never leaves is returned unchanged.
pub fn clip_start(path: &mut Vec<Pt>, outline: &Outline) {
    let Some(first_out) = path.iter().position(|p| !outline.contains(*p)) else {
        return;
    };
    if first_out == 0 {
        return;
    }
    path[first_out - 1] = crossing(outline, path[first_out - 1], path[first_out]);
    path.drain(..first_out - 1);
}

/// As `clip_start`, for the end of the path.
pub fn clip_end(path: &mut Vec<Pt>, outline: &Outline) {
    let Some(last_out) = path.iter().rposition(|p| !outline.contains(*p)) else {
        return;
    };
    if last_out + 1 == path.len() {
        return;
    }
    path[last_out + 1] = crossing(outline, path[last_out + 1], path[last_out]);
    path.truncate(last_out + 2);
}

/// How far along each of its sides the bend of an edge routed around boxes is rounded, at
/// most: the router's straight runs meet at the corners of the boxes they pass.
pub const BEND: f64 = 18.0;

/// The rounding of the corner `c` of a polyline coming from `before` and going to `after`:
/// where the curve leaves the line in and where it joins the line out, each `radius` from
/// the corner (less on a short side: at most half of it, so neighbouring bends never
/// overlap). The curve between is a quadratic with the corner as its control point, so it
/// lies inside the triangle it cuts off. `None` where the line runs straight on.
pub fn bend(before: Pt, c: Pt, after: Pt, radius: f64) -> Option<(Pt, Pt)> {
    let (back, on) = (before.minus(c), after.minus(c));
    let r = radius.min(back.len() / 2.0).min(on.len() / 2.0);
    let (u, v) = (back.unit()?, on.unit()?);
    let turn = u.x * v.y - u.y * v.x;
    if r < 1e-3 || (turn.abs() < 1e-6 && u.x * v.x + u.y * v.y < 0.0) {
        return None;
    }
    Some((c.plus(u.scale(r)), c.plus(v.scale(r))))
}

/// The point a fraction `t` along the quadratic from `a` to `b` whose control point is `c`.
pub fn quadratic(a: Pt, c: Pt, b: Pt, t: f64) -> Pt {
    let u = 1.0 - t;
    a.scale(u * u)
        .plus(c.scale(2.0 * u * t))
        .plus(b.scale(t * t))
}

/// The cubic pieces (start, two controls, end) of the smooth path through `points`, its ends
/// moved to `first` and `last`: at each bend the curve runs along `axis` (the way ranks run),
/// at the ends along the first and last segments. The SVG draws exactly these, and the
/// router checks them against the boxes.
pub fn curve(points: &[Pt], first: Pt, last: Pt, axis: Pt) -> impl Iterator<Item = [Pt; 4]> + '_ {
    let n = points.len();
    let at = move |i: usize| {
        if i == 0 {
            first
        } else if i == n - 1 {
            last
        } else {
            points[i]
        }
    };
    let tangent = move |i: usize| -> Pt {
        let chord = if i == 0 {
            at(1).minus(at(0))
        } else if i == n - 1 {
            at(n - 1).minus(at(n - 2))
        } else {
            at(i + 1).minus(at(i - 1))
        };
        let along = chord.x * axis.x + chord.y * axis.y;
        if i > 0 && i < n - 1 && along.abs() > 1e-6 {
            axis.scale(along.signum())
        } else {
            chord.unit().unwrap_or(axis)
        }
    };
    (0..n.saturating_sub(1)).map(move |i| {
        let (p, q) = (at(i), at(i + 1));
        let reach = q.minus(p).len() / 3.0;
        [
            p,
            p.plus(tangent(i).scale(reach)),
            q.minus(tangent(i + 1).scale(reach)),
            q,
        ]
    })
}

/// Points along a cubic piece, `steps` of them after its start.
pub fn sample(piece: &[Pt; 4], steps: usize) -> impl Iterator<Item = Pt> + '_ {
    (1..=steps).map(move |k| {
        let t = k as f64 / steps as f64;
        let u = 1.0 - t;
        let [a, b, c, d] = piece;
        let w = [u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t];
        Pt::new(
            w[0] * a.x + w[1] * b.x + w[2] * c.x + w[3] * d.x,
            w[0] * a.y + w[1] * b.y + w[2] * c.y + w[3] * d.y,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b() -> Bounds {
        Bounds {
            center: Pt::new(100.0, 50.0),
            w: 80.0,
            h: 40.0,
        }
    }

    #[test]
    fn every_outline_contains_its_centre_and_not_far_points() {
        for shape in Shape::ALL {
            let o = outline(shape, b());
            assert!(o.contains(Pt::new(100.0, 50.0)), "{shape:?}");
            assert!(!o.contains(Pt::new(100.0, 200.0)), "{shape:?}");
            assert!(!o.contains(Pt::new(141.0, 50.0)), "{shape:?}");
        }
    }

    #[test]
    fn clipping_lands_on_the_outline() {
        // A rhombus 80 wide: its right corner is at x = 140; a line from the centre going
        // up-right at 45° meets the edge x/40 + y/20 = 1 at x = 40/3 (to a thousandth: the
        // SVG prints tenths).
        let o = outline(Shape::Rhombus, b());
        let mut path = vec![Pt::new(100.0, 50.0), Pt::new(200.0, -50.0)];
        clip_start(&mut path, &o);
        assert!((path[0].x - (100.0 + 40.0 / 3.0)).abs() < 1e-3, "{path:?}");
        // Circle: radius 20 (w = h = 40).
        let c = outline(
            Shape::Circle,
            Bounds {
                center: Pt::new(0.0, 0.0),
                w: 40.0,
                h: 40.0,
            },
        );
        let mut path = vec![Pt::new(-100.0, 0.0), Pt::new(0.0, 0.0)];
        clip_end(&mut path, &c);
        assert!((path[1].x + 20.0).abs() < 1e-3, "{path:?}");
    }

    #[test]
    fn a_label_fits_its_rhombus() {
        let text = Block::new("In edge cache?");
        let (w, h) = size(Shape::Rhombus, &text);
        let o = outline(
            Shape::Rhombus,
            Bounds {
                center: Pt::new(0.0, 0.0),
                w,
                h,
            },
        );
        assert!(o.contains(Pt::new(text.width / 2.0, text.height / 2.0)));
    }

    #[test]
    fn exact_crossings_agree_with_bisection() {
        let mut bits = crate::diagram::xorshift(0x853c_49e6_748f_ea9b);
        let mut next = |m: f64| (bits() >> 11) as f64 / (1u64 << 53) as f64 * m;
        let mut solved = 0;
        for round in 0..4000 {
            // Round sizes and places too, where steps land exactly on the outline.
            let coarse = round % 2 == 0;
            let pick = |v: f64| if coarse { (v * 4.0).round() / 4.0 } else { v };
            let b = Bounds {
                center: Pt::new(pick(next(400.0)), pick(next(400.0))),
                w: pick(1.0 + next(200.0)),
                h: pick(1.0 + next(120.0)),
            };
            for shape in Shape::ALL {
                let o = outline(shape, b);
                let inside = match round % 3 {
                    0 => b.center,
                    _ => Pt::new(pick(b.left() + next(b.w)), pick(b.top() + next(b.h))),
                };
                let outside = match round % 4 {
                    // Straight across or down, as ranked layouts mostly go.
                    0 => Pt::new(inside.x, pick(inside.y + next(400.0) - 200.0)),
                    1 => Pt::new(pick(inside.x + next(400.0) - 200.0), inside.y),
                    _ => Pt::new(pick(next(600.0) - 100.0), pick(next(600.0) - 100.0)),
                };
                let d = outside.minus(inside);
                if o.exit(inside, d).is_some() {
                    solved += 1;
                }
                let (got, want) = (crossing(&o, inside, outside), bisect(&o, inside, outside));
                // The bisection stops within a thousandth of the crossing, on its outside.
                assert!(
                    got.minus(want).len() <= 1.001e-3,
                    "{shape:?} {b:?} {inside:?} → {outside:?}: {got:?}, bisection {want:?}"
                );
            }
        }
        // A star turns the same way at every point but is not convex: not solved.
        let star: Vec<(f64, f64)> = (0..5)
            .map(|k| {
                let a = f64::from(k) * 4.0 * std::f64::consts::PI / 5.0;
                (50.0 * a.cos(), 50.0 * a.sin())
            })
            .collect();
        let o = Outline::Polygon(Corners::new(&star));
        let centre = Pt::new(0.0, 0.0);
        assert_eq!(o.exit(centre, Pt::new(100.0, 30.0)), None);
        let far = Pt::new(100.0, 30.0);
        assert_eq!(crossing(&o, centre, far), bisect(&o, centre, far));
        // Most cases take the exact path (the rest are the bisection itself).
        assert!(solved > 4000 * Shape::ALL.len() / 2, "{solved}");
    }
}
