//! Edges routed around boxes. The layered layout gives each long edge a connector per rank it
//! crosses, but a subgraph is one box in its parent's layout, and an edge into a subgraph runs
//! from its border straight to the member, past whatever else the subgraph holds; a curve
//! through connectors can also swing into a box beside them. Every edge is checked against
//! every box it does not connect, as the SVG will draw it; one that passes through a box is
//! routed again around the boxes (`crate::diagram::route`).

use super::{Drawing, LABEL_PAD_X, LABEL_PAD_Y};
use crate::diagram::flowchart::Flowchart;
use crate::diagram::geometry::Pt;
use crate::diagram::route::{
    INSET, NEAR, PAD, Rect, blocked, point_along, shortest_around, soften,
};
use crate::diagram::shapes;

/// Routes again every edge of `d` that passes through a box it does not connect.
pub fn avoid_boxes(chart: &Flowchart, d: &mut Drawing) {
    // A small chart's boxes are kept inline.
    let boxes: smallvec::SmallVec<[(usize, Rect); 8]> = d
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| n.as_ref().map(|n| (i, Rect::of(&n.bounds, -INSET))))
        .collect();
    if boxes.len() < 3 {
        return;
    }
    for e in 0..d.edges.len() {
        let edge = &chart.edges[e];
        let (a, b) = (edge.from, edge.to);
        if a == b {
            continue;
        }
        let path = &d.edges[e];
        if !blocked(&path.points, path.axis, path.straight, &boxes, a, b) {
            continue;
        }
        let obstacles: Vec<Rect> = boxes
            .iter()
            .filter(|(i, _)| *i != a && *i != b)
            .filter_map(|(i, _)| d.nodes[*i].as_ref().map(|n| Rect::of(&n.bounds, 0.0)))
            .collect();
        // A node end starts at its centre (clipped to its outline after); a subgraph end
        // keeps its point on the subgraph's border.
        let end = |i: usize, fallback: Pt| match &d.nodes[i] {
            Some(n) => (
                n.bounds.center,
                Some(shapes::outline::outline(n.shape, n.bounds)),
            ),
            None => (fallback, None),
        };
        let n = path.points.len();
        let (start, from_outline) = end(a, path.points[0]);
        let (finish, to_outline) = end(b, path.points[n - 1]);
        // The boxes near the straight way first (a few, so the search is small); all of them
        // when no way around those is clear of the rest.
        let near = Rect(
            start.x.min(finish.x) - NEAR,
            start.y.min(finish.y) - NEAR,
            start.x.max(finish.x) + NEAR,
            start.y.max(finish.y) + NEAR,
        );
        let local: Vec<Rect> = obstacles
            .iter()
            .filter(|r| r.overlaps(&near))
            .copied()
            .collect();
        let clear_of_all = |route: &Vec<Pt>| {
            route
                .windows(2)
                .all(|w| obstacles.iter().all(|r| !r.cut_by(w[0], w[1])))
        };
        let found = shortest_around(start, finish, &local)
            .filter(clear_of_all)
            .or_else(|| shortest_around(start, finish, &obstacles));
        let Some(mut route) = found else {
            continue;
        };
        if let Some(o) = &from_outline {
            shapes::clip::clip_start(&mut route, o);
        }
        if let Some(o) = &to_outline {
            shapes::clip::clip_end(&mut route, o);
        }
        route.dedup_by(|p, q| p.minus(*q).len() < 1e-6);
        if route.len() < 2 {
            continue;
        }
        // A bend's rounding lies within the triangle of its corner and the runs either side,
        // so inside the route's bounds: only the boxes that reach into them can be in its way.
        let (x0, y0, x1, y1) = route.iter().fold(
            (f64::MAX, f64::MAX, f64::MIN, f64::MIN),
            |(x0, y0, x1, y1), p| (x0.min(p.x), y0.min(p.y), x1.max(p.x), y1.max(p.y)),
        );
        let others: Vec<Rect> = boxes
            .iter()
            .filter(|(i, _)| *i != a && *i != b)
            .map(|(_, r)| *r)
            .filter(|r| r.0 <= x1 + 1.0 && r.2 >= x0 - 1.0 && r.1 <= y1 + 1.0 && r.3 >= y0 - 1.0)
            .collect();
        let route = soften(&route, &others);
        let path = &mut d.edges[e];
        path.points = route;
        path.straight = true;
        if let Some((at, block)) = &mut path.label {
            let (w, h) = (
                block.width + 2.0 * LABEL_PAD_X,
                block.height + 2.0 * LABEL_PAD_Y,
            );
            let free = |p: Pt| {
                let r = Rect(p.x - w / 2.0, p.y - h / 2.0, p.x + w / 2.0, p.y + h / 2.0);
                !boxes.iter().any(|(_, b)| b.overlaps(&r))
            };
            let along = [0.5, 0.35, 0.65, 0.2, 0.8, 0.1, 0.9];
            if let Some(p) = along
                .iter()
                .map(|&f| point_along(&path.points, f))
                .find(|p| free(*p))
            {
                *at = p;
            }
        }
    }
    // A route around a box near the edge of the drawing may reach past it.
    let (mut w, mut h) = (d.width, d.height);
    for e in &d.edges {
        for p in &e.points {
            w = w.max(p.x + PAD);
            h = h.max(p.y + PAD);
        }
        if let Some((at, l)) = &e.label {
            w = w.max(at.x + l.width / 2.0 + LABEL_PAD_X + PAD);
            h = h.max(at.y + l.height / 2.0 + LABEL_PAD_Y + PAD);
        }
    }
    d.width = w;
    d.height = h;
}
