//! Node shapes: how big each is around its label, its outline, and whether a point is inside
//! (edges are clipped to the outline by bisection on that test).

use super::flowchart::Shape;
use super::text::Block;

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
    pub fn contains(&self, p: Pt) -> bool {
        (p.x - self.center.x).abs() <= self.w / 2.0 && (p.y - self.center.y).abs() <= self.h / 2.0
    }
    /// Whether the two boxes share any area (touching edges do not count).
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
    }
}

fn slant(h: f64) -> f64 {
    h * 0.4
}

/// The outline of a node, in absolute coordinates.
#[derive(Debug, Clone, PartialEq)]
pub enum Outline {
    Polygon(Vec<Pt>),
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
}

pub fn outline(shape: Shape, b: Bounds) -> Outline {
    let (l, r, t, bo) = (b.left(), b.right(), b.top(), b.bottom());
    let cy = b.center.y;
    let poly =
        |pts: &[(f64, f64)]| Outline::Polygon(pts.iter().map(|&(x, y)| Pt::new(x, y)).collect());
    match shape {
        Shape::Rect | Shape::Subroutine => poly(&[(l, t), (r, t), (r, bo), (l, bo)]),
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
    }
}

impl Outline {
    pub fn contains(&self, p: Pt) -> bool {
        match self {
            Outline::Polygon(pts) => {
                let mut inside = false;
                let mut j = pts.len().wrapping_sub(1);
                for (i, a) in pts.iter().enumerate() {
                    let b = pts[j];
                    if (a.y > p.y) != (b.y > p.y)
                        && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x
                    {
                        inside = !inside;
                    }
                    j = i;
                }
                inside
            }
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

/// Where the segment from `inside` to `outside` crosses the outline (bisection).
pub fn crossing(outline: &Outline, inside: Pt, outside: Pt) -> Pt {
    let (mut a, mut b) = (inside, outside);
    // Coordinates are printed to a tenth: stop well below that.
    for _ in 0..40 {
        // |a - b| < 0.001, without a square root each round.
        let d = a.minus(b);
        if d.x * d.x + d.y * d.y < 1e-6 {
            break;
        }
        let m = a.lerp(b, 0.5);
        if outline.contains(m) {
            a = m;
        } else {
            b = m;
        }
    }
    b
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
    let at = crossing(outline, path[first_out - 1], path[first_out]);
    path.drain(..first_out);
    path.insert(0, at);
}

/// As `clip_start`, for the end of the path.
pub fn clip_end(path: &mut Vec<Pt>, outline: &Outline) {
    path.reverse();
    clip_start(path, outline);
    path.reverse();
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
}
