//! Whether a point is inside a shape, and where a segment from inside to outside crosses its
//! outline: exactly for polygons, boxes and ellipses, by bisection for traced shapes. Edges
//! are clipped to outlines with it.

use super::outline::Outline;
use super::pieces::{Paint, Piece, traced};
use crate::diagram::geometry::Pt;

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
pub(super) fn bisect(outline: &Outline, inside: Pt, outside: Pt) -> Pt {
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
    pub(super) fn exit(&self, from: Pt, d: Pt) -> Option<f64> {
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
