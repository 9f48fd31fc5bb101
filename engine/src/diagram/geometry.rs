//! Points, boxes and the curves through them: what every layout, shape and route is measured
//! in.

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
    /// The unit vector from this point toward `to` (straight down when they coincide).
    pub fn toward(self, to: Pt) -> Pt {
        to.minus(self).unit().unwrap_or(Pt::new(0.0, 1.0))
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
    /// The unit vector out of the box square to the side `p` lies on (the nearest side).
    pub fn outward(&self, p: Pt) -> Pt {
        let sides = [
            ((p.x - self.left()).abs(), Pt::new(-1.0, 0.0)),
            ((p.x - self.right()).abs(), Pt::new(1.0, 0.0)),
            ((p.y - self.top()).abs(), Pt::new(0.0, -1.0)),
            ((p.y - self.bottom()).abs(), Pt::new(0.0, 1.0)),
        ];
        sides
            .iter()
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map_or(Pt::new(0.0, 1.0), |s| s.1)
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
    let across = Pt::new(axis.y, -axis.x);
    let dot = |v: Pt, w: Pt| v.x * w.x + v.y * w.y;
    // Where the path turns back along the axis (a U-turn past a box, also one with a flat run
    // across at its far end), or stops moving along it: the curve runs across the axis there,
    // so the point is its furthest along the axis and it stays in the drawing.
    let reverses = move |i: usize| {
        if i == 0 || i >= n - 1 {
            return false;
        }
        let moved = |a: usize, b: usize| dot(at(b).minus(at(a)), axis);
        let before = (1..=i)
            .rev()
            .map(|k| moved(k - 1, k))
            .find(|d| d.abs() > 1e-6);
        let after = (i..n - 1).map(|k| moved(k, k + 1)).find(|d| d.abs() > 1e-6);
        match (before, after) {
            (Some(b), Some(a)) => b * a < 0.0,
            // The path runs only across the axis before or after this point: it ends its run
            // along the axis here.
            (Some(_), None) | (None, Some(_)) => true,
            (None, None) => false,
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
        if reverses(i) {
            return across.scale(if dot(chord, across) < 0.0 { -1.0 } else { 1.0 });
        }
        let along = dot(chord, axis);
        if i > 0 && i < n - 1 && along.abs() > 1e-6 {
            axis.scale(along.signum())
        } else {
            chord.unit().unwrap_or(axis)
        }
    };
    (0..n.saturating_sub(1)).map(move |i| {
        let (p, q) = (at(i), at(i + 1));
        let reach = q.minus(p).len() / 3.0;
        // Across the axis at a U-turn, no further than the piece itself goes across; along it
        // at a bend, no further than the piece goes along (a piece mostly across would
        // otherwise swing far past its ends).
        let across_room = dot(q.minus(p), across).abs();
        let along_room = dot(q.minus(p), axis).abs();
        let reach_at = |k: usize| {
            if reverses(k) {
                reach.min(across_room)
            } else if k > 0 && k < n - 1 {
                reach.min(along_room)
            } else {
                reach
            }
        };
        [
            p,
            p.plus(tangent(i).scale(reach_at(i))),
            q.minus(tangent(i + 1).scale(reach_at(i + 1))),
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

    /// The route of an edge back up a top-down chart from a box in its last rank, under the
    /// box and up past it (the Zebra book's mempool diagram has four): the curve turns at the
    /// route's lowest point instead of dipping below it, out of the drawing.
    #[test]
    fn a_curve_turning_back_goes_no_further_than_its_turning_point() {
        let route = [
            Pt::new(626.7, 493.5),
            Pt::new(867.4, 539.0),
            Pt::new(867.4, 482.5),
            Pt::new(867.4, 311.5),
        ];
        let down = Pt::new(0.0, 1.0);
        let pieces: Vec<[Pt; 4]> = curve(&route, route[0], route[3], down).collect();
        let lowest = pieces
            .iter()
            .flat_map(|p| sample(p, 32).collect::<Vec<_>>())
            .map(|p| p.y)
            .fold(f64::MIN, f64::max);
        assert!(lowest <= 539.0 + 1e-9, "the curve dips to {lowest}");
        // Sideways: across the axis at the turn, arriving from the left.
        assert!((pieces[0][2].y - 539.0).abs() < 1e-9 && pieces[0][2].x < 867.4);
        // A route that ends on a run across the axis (a note's line into a class's side) turns
        // across where the run starts, not past it.
        let flat = [
            Pt::new(697.3, 148.0),
            Pt::new(757.3, 249.0),
            Pt::new(1160.2, 249.0),
        ];
        let lowest = curve(&flat, flat[0], flat[2], down)
            .flat_map(|p| sample(&p, 32).collect::<Vec<_>>())
            .map(|p| p.y)
            .fold(f64::MIN, f64::max);
        assert!(lowest <= 249.0 + 1e-9, "the curve dips to {lowest}");
        // A piece mostly across the axis (an ER relation between far-apart entities) reaches
        // along the axis at its bend no further than it goes along: no swing above the chart.
        let long = [
            Pt::new(1743.1, 28.7),
            Pt::new(465.3, 103.0),
            Pt::new(465.3, 140.0),
        ];
        let highest = curve(&long, long[0], long[2], down)
            .flat_map(|p| sample(&p, 32).collect::<Vec<_>>())
            .map(|p| p.y)
            .fold(f64::MAX, f64::min);
        assert!(highest >= 28.7 - 1e-9, "the curve swings up to {highest}");
        // Where the route does not turn back, the curve still runs along the axis at a bend.
        let bend = [Pt::new(0.0, 0.0), Pt::new(50.0, 40.0), Pt::new(50.0, 100.0)];
        let pieces: Vec<[Pt; 4]> = curve(&bend, bend[0], bend[2], down).collect();
        assert!((pieces[1][1].x - 50.0).abs() < 1e-9 && pieces[1][1].y > 40.0);
    }
}
