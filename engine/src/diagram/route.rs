//! Lines routed around boxes: whether a line, straight or the curve through its points, passes
//! through a box, and the shortest way around boxes in straight runs (a visibility graph over
//! their corners, the boxes grown by a margin), each bend rounded as far as the boxes beside it
//! allow. A kind's layout uses it to route again what its own placement ran through a box
//! (see `flowchart::layout::reroute`).

use super::geometry::{self, Bounds, Pt};

/// How far a rerouted edge keeps from the boxes it passes: half a subgraph's padding, so an
/// edge between a member and its subgraph's border runs down the middle of the gap rather
/// than along the border.
pub const PAD: f64 = 6.0;

/// A box's inside, for the check: its bounds less this much all round.
pub const INSET: f64 = 1.0;

/// How far around the straight way between an edge's ends boxes are first routed around.
pub const NEAR: f64 = 60.0;

/// Samples per cubic piece of a curve when it is checked.
const STEPS: usize = 24;

/// An axis-aligned rectangle: left, top, right, bottom.
#[derive(Debug, Clone, Copy)]
pub struct Rect(pub f64, pub f64, pub f64, pub f64);

impl Rect {
    pub fn of(b: &Bounds, grow: f64) -> Rect {
        Rect(
            b.left() - grow,
            b.top() - grow,
            b.right() + grow,
            b.bottom() + grow,
        )
    }

    pub fn contains(&self, p: Pt) -> bool {
        self.0 < p.x && p.x < self.2 && self.1 < p.y && p.y < self.3
    }

    pub fn overlaps(&self, o: &Rect) -> bool {
        self.0 < o.2 && o.0 < self.2 && self.1 < o.3 && o.1 < self.3
    }

    /// Whether the segment a→b passes through the open inside (Liang–Barsky clipping).
    pub fn cut_by(&self, a: Pt, b: Pt) -> bool {
        let d = b.minus(a);
        let (mut t0, mut t1) = (0.0_f64, 1.0_f64);
        for (p, q) in [
            (-d.x, a.x - self.0),
            (d.x, self.2 - a.x),
            (-d.y, a.y - self.1),
            (d.y, self.3 - a.y),
        ] {
            if p.abs() < 1e-12 {
                if q <= 0.0 {
                    return false;
                }
            } else {
                let r = q / p;
                if p < 0.0 {
                    t0 = t0.max(r);
                } else {
                    t1 = t1.min(r);
                }
            }
        }
        t1 - t0 > 1e-9
    }
}

/// Whether the line of an edge, as the SVG draws it (straight, or the curve through
/// `points`), passes through one of `boxes` other than those of its ends `a` and `b`. A curve
/// piece lies inside the bounds of its four points, so only a piece whose bounds meet a box is
/// sampled.
pub fn blocked(
    points: &[Pt],
    axis: Pt,
    straight: bool,
    boxes: &[(usize, Rect)],
    a: usize,
    b: usize,
) -> bool {
    let others = || boxes.iter().filter(move |(i, _)| *i != a && *i != b);
    if straight || points.len() <= 2 {
        return points
            .windows(2)
            .any(|w| others().any(|(_, r)| r.cut_by(w[0], w[1])));
    }
    let n = points.len();
    geometry::curve(points, points[0], points[n - 1], axis).any(|piece| {
        let mut span = Rect(f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for p in &piece {
            span = Rect(
                span.0.min(p.x),
                span.1.min(p.y),
                span.2.max(p.x),
                span.3.max(p.y),
            );
        }
        let span = Rect(span.0 - 1.0, span.1 - 1.0, span.2 + 1.0, span.3 + 1.0);
        if !others().any(|(_, r)| r.overlaps(&span)) {
            return false;
        }
        let mut prev = piece[0];
        geometry::sample(&piece, STEPS).any(|p| {
            let hit = others().any(|(_, r)| r.overlaps(&span) && r.cut_by(prev, p));
            prev = p;
            hit
        })
    })
}

/// Radii tried at a bend, largest first, until its rounding passes through no box; the last
/// is close enough to the corner to need no check (the straight runs keep at least `INSET`
/// from every box).
const RADII: [f64; 4] = [
    geometry::BEND,
    geometry::BEND / 2.0,
    geometry::BEND / 4.0,
    0.5,
];

/// The route with each bend's rounding, as the SVG draws it (`geometry::bend`), kept out of
/// `boxes`: where the full radius would cut into a box, two points on the runs either side of
/// the bend, twice a smaller radius away, make the SVG round it less. A bend drawn with a
/// smaller radius than the one checked (a marker shortens an end, a neighbour's points
/// shorten a run) lies between the checked curve and the corner, so it is clear too.
pub fn soften(route: &[Pt], boxes: &[Rect]) -> Vec<Pt> {
    let n = route.len();
    let mut out = Vec::with_capacity(n + 4);
    out.push(route[0]);
    for i in 1..n.saturating_sub(1) {
        let (before, c, after) = (route[i - 1], route[i], route[i + 1]);
        let fits = |r: f64| match geometry::bend(before, c, after, r) {
            Some((into, from)) => rounding_clear(into, c, from, boxes),
            None => true,
        };
        let r = RADII
            .into_iter()
            .find(|&r| fits(r))
            .unwrap_or(RADII[RADII.len() - 1]);
        let full = geometry::bend(before, c, after, geometry::BEND)
            .map_or(0.0, |(into, _)| into.minus(c).len());
        if r < full
            && let (Some(u), Some(v)) = (before.minus(c).unit(), after.minus(c).unit())
        {
            out.extend([c.plus(u.scale(2.0 * r)), c, c.plus(v.scale(2.0 * r))]);
        } else {
            out.push(c);
        }
    }
    if n > 1 {
        out.push(route[n - 1]);
    }
    out
}

/// Whether the rounding from `into` to `from` with control point `corner` passes through
/// none of `boxes`, sampled as finely as the corpus check reads it back and with half a pixel
/// to spare for the SVG's rounded numbers; a box wholly between the curve and the corner
/// counts as in the way too.
fn rounding_clear(into: Pt, corner: Pt, from: Pt, boxes: &[Rect]) -> bool {
    let samples: Vec<Pt> = (0..=STEPS)
        .map(|k| geometry::quadratic(into, corner, from, k as f64 / STEPS as f64))
        .collect();
    let cut = samples.windows(2).any(|w| {
        boxes
            .iter()
            .any(|r| Rect(r.0 - 0.5, r.1 - 0.5, r.2 + 0.5, r.3 + 0.5).cut_by(w[0], w[1]))
    });
    // The cap between the curve and the corner, as a polygon.
    let mut cap = samples;
    cap.push(corner);
    let inside = |p: Pt| {
        let mut odd = false;
        for k in 0..cap.len() {
            let (s, t) = (cap[k], cap[(k + 1) % cap.len()]);
            if (s.y > p.y) != (t.y > p.y) && p.x < s.x + (p.y - s.y) / (t.y - s.y) * (t.x - s.x) {
                odd = !odd;
            }
        }
        odd
    };
    !cut && !boxes.iter().any(|r| {
        [
            Pt::new(r.0, r.1),
            Pt::new(r.2, r.1),
            Pt::new(r.0, r.3),
            Pt::new(r.2, r.3),
        ]
        .into_iter()
        .any(inside)
    })
}

/// The point a fraction `f` of the way along a polyline.
pub fn point_along(points: &[Pt], f: f64) -> Pt {
    let total: f64 = points.windows(2).map(|w| w[1].minus(w[0]).len()).sum();
    let mut left = total * f;
    for w in points.windows(2) {
        let l = w[1].minus(w[0]).len();
        if l >= left && l > 0.0 {
            return w[0].lerp(w[1], left / l);
        }
        left -= l;
    }
    points.last().copied().unwrap_or(Pt::new(0.0, 0.0))
}

/// The shortest polyline from `s` to `t` that passes through none of `obstacles` (each
/// grown by `PAD`), over the grown boxes' corners; `None` when there is none.
pub fn shortest_around(s: Pt, t: Pt, obstacles: &[Rect]) -> Option<Vec<Pt>> {
    let grown: Vec<Rect> = obstacles
        .iter()
        .map(|r| Rect(r.0 - PAD, r.1 - PAD, r.2 + PAD, r.3 + PAD))
        .collect();
    // The corners sit a hair outside their own box, so a line along its side is clear of it.
    let corner = PAD + 0.5;
    let mut points = vec![s, t];
    for r in obstacles {
        for p in [
            Pt::new(r.0 - corner, r.1 - corner),
            Pt::new(r.2 + corner, r.1 - corner),
            Pt::new(r.0 - corner, r.3 + corner),
            Pt::new(r.2 + corner, r.3 + corner),
        ] {
            if !grown.iter().any(|g| g.contains(p)) {
                points.push(p);
            }
        }
    }
    // Boxes that hold an end (a neighbour closer than the margin) do not block leaving it.
    let near_end: Vec<bool> = grown
        .iter()
        .map(|g| g.contains(s) || g.contains(t))
        .collect();
    // A segment is clear of the boxes themselves (not grown) when it touches an end's
    // neighbour, and of the grown boxes otherwise.
    let clear = |a: Pt, b: Pt| {
        grown
            .iter()
            .zip(obstacles)
            .zip(&near_end)
            .all(|((g, r), &near)| {
                if near {
                    !r.cut_by(a, b)
                } else {
                    !g.cut_by(a, b)
                }
            })
    };
    // Dijkstra over the corners, edges tested when first reached.
    let n = points.len();
    let mut dist = vec![f64::INFINITY; n];
    let mut prev = vec![usize::MAX; n];
    let mut done = vec![false; n];
    dist[0] = 0.0;
    loop {
        let u = (0..n)
            .filter(|&i| !done[i] && dist[i].is_finite())
            .min_by(|&i, &j| dist[i].total_cmp(&dist[j]))?;
        if u == 1 {
            break;
        }
        done[u] = true;
        for v in 0..n {
            if done[v] {
                continue;
            }
            let nd = dist[u] + points[v].minus(points[u]).len();
            if nd < dist[v] && clear(points[u], points[v]) {
                dist[v] = nd;
                prev[v] = u;
            }
        }
    }
    let mut route = vec![points[1]];
    let mut at = 1;
    while prev[at] != usize::MAX {
        at = prev[at];
        route.push(points[at]);
    }
    route.reverse();
    (route.len() >= 2).then_some(route)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_route_goes_around_a_box_in_the_way() {
        let block = Rect(-10.0, 40.0, 10.0, 60.0);
        let r = shortest_around(Pt::new(0.0, 0.0), Pt::new(0.0, 100.0), &[block]).expect("a route");
        assert!(r.len() >= 3, "{r:?}");
        assert!(r.windows(2).all(|w| !block.cut_by(w[0], w[1])));
        let direct = shortest_around(Pt::new(50.0, 0.0), Pt::new(50.0, 100.0), &[block]);
        assert_eq!(direct.map(|r| r.len()), Some(2));
    }

    #[test]
    fn a_bend_hugging_a_box_is_rounded_less_and_clear_of_it() {
        let block = Rect(0.0, 0.0, 40.0, 40.0);
        let route = [
            Pt::new(-20.0, -2.0),
            Pt::new(42.0, -2.0),
            Pt::new(42.0, 60.0),
        ];
        let full = geometry::bend(route[0], route[1], route[2], geometry::BEND).expect("a bend");
        assert!(!rounding_clear(full.0, route[1], full.1, &[block]));
        let soft = soften(&route, &[block]);
        assert!(soft.len() > route.len(), "{soft:?}");
        // Every bend as the SVG draws it, from the softened points.
        for w in soft.windows(3) {
            if let Some((into, from)) = geometry::bend(w[0], w[1], w[2], geometry::BEND) {
                assert!(rounding_clear(into, w[1], from, &[block]), "{soft:?}");
            }
        }
        // Far from any box a bend keeps its full rounding.
        let free = [
            Pt::new(-20.0, -30.0),
            Pt::new(60.0, -30.0),
            Pt::new(60.0, 60.0),
        ];
        assert_eq!(soften(&free, &[block]), free);
    }

    #[test]
    fn segments_cut_a_box_only_through_its_inside() {
        let r = Rect(0.0, 0.0, 10.0, 10.0);
        assert!(r.cut_by(Pt::new(-5.0, 5.0), Pt::new(15.0, 5.0)));
        assert!(!r.cut_by(Pt::new(-5.0, 10.0), Pt::new(15.0, 10.0)));
        assert!(!r.cut_by(Pt::new(-5.0, -5.0), Pt::new(-1.0, 20.0)));
        assert!(r.cut_by(Pt::new(5.0, 5.0), Pt::new(5.0, 6.0)));
    }
}
