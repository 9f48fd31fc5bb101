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
    }
}

fn slant(h: f64) -> f64 {
    h * 0.4
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
}

pub fn outline(shape: Shape, b: Bounds) -> Outline {
    let (l, r, t, bo) = (b.left(), b.right(), b.top(), b.bottom());
    let cy = b.center.y;
    let poly = |pts: &[(f64, f64)]| Outline::Polygon(Corners::new(pts));
    match shape {
        Shape::Rect | Shape::Subroutine => Outline::Polygon(Corners {
            is_box: true,
            ..Corners::new(&[(l, t), (r, t), (r, bo), (l, bo)])
        }),
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
            Outline::Polygon(corners) => {
                let pts = corners.as_slice();
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
    bisect(outline, inside, outside)
}

/// Where the segment crosses the outline by bisection on `contains`: the outside end of a step
/// under a thousandth of a pixel long.
fn bisect(outline: &Outline, inside: Pt, outside: Pt) -> Pt {
    let (mut a, mut b) = (inside, outside);
    for _ in 0..40 {
        // |a - b| < 0.001, without a square root each round.
        let e = a.minus(b);
        if e.x * e.x + e.y * e.y < 1e-6 {
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
