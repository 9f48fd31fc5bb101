//! One layout attempt: each scope placed inside out (a subgraph's members first, then the
//! subgraph as one box in its parent), then the drawing assembled in one coordinate system:
//! node and subgraph boxes, edge routes clipped to shapes, self-loops, labels.

use super::place::place;
use super::{
    CLUSTER_PAD, ClusterBox, Drawing, EdgePath, Few, Item, LABEL_PAD_X, LABEL_PAD_Y, LOOP_REACH,
    MARGIN, NodeBox, PerScope, Placed, Plan, Routing, flat_edges, member_ports, sized_as,
};
use crate::diagram::geometry::Bounds;
use crate::diagram::geometry::Pt;
use crate::diagram::shapes;
use crate::diagram::shapes::Shape;
use crate::diagram::shapes::outline::Outline;

/// One layout attempt. Its labels have their sizes but no lines (see `sized_as`).
pub(super) fn draw(plan: &Plan, label_boxes: bool) -> Option<Drawing> {
    let chart = plan.chart;
    let n_scopes = plan.items.len();
    let mut placed: PerScope<Placed> = PerScope::from_elem(Placed::default(), n_scopes);
    // Per scope: its edges that may run across a rank (see `flat_edges`).
    let mut flats: PerScope<Vec<bool>> = PerScope::from_elem(Vec::new(), n_scopes);
    let mut cluster_size = vec![(0.0, 0.0); chart.subgraphs.len()];
    // Content offset inside each subgraph's box.
    let mut inset = vec![Pt::new(0.0, 0.0); chart.subgraphs.len()];
    // Inner scopes first: a subgraph's box size comes from its own layout.
    for scope in (0..n_scopes).rev() {
        let sizes: Few<(f64, f64)> = plan.items[scope]
            .iter()
            .map(|it| match *it {
                Item::Node(i) => shapes::size(plan.shape(i), &plan.node_text[i]),
                Item::Cluster(s) => cluster_size[s],
            })
            .collect();
        let ports = member_ports(plan, scope, &placed);
        flats[scope] = flat_edges(plan, scope, &placed);
        let p = place(plan, scope, sizes, &ports, &flats[scope], label_boxes)?;
        if scope > 0 {
            let s = scope - 1;
            let title = &plan.cluster_title[s];
            let title_h = if title.is_blank() {
                0.0
            } else {
                title.height + 4.0
            };
            let w = p.width.max(title.width) + 2.0 * CLUSTER_PAD;
            let h = p.height + 2.0 * CLUSTER_PAD + title_h;
            let (w, h) = if plan.items[scope].is_empty() {
                (w.max(80.0), h.max(title_h + 40.0))
            } else {
                (w, h)
            };
            cluster_size[s] = (w, h);
            inset[s] = Pt::new((w - p.width) / 2.0, CLUSTER_PAD + title_h);
        }
        placed[scope] = p;
    }
    // Outer scopes first: place each scope's content where its box landed.
    // Where each scope's content starts: the chart's at the margin, a subgraph's inside its box
    // (per subgraph, so a chart without any needs no list).
    let mut inner_at = vec![Pt::new(MARGIN, MARGIN); chart.subgraphs.len()];
    let offset = |scope: usize, inner_at: &[Pt]| match scope {
        0 => Pt::new(MARGIN, MARGIN),
        s => inner_at[s - 1],
    };
    let mut nodes: Vec<Option<NodeBox>> = vec![None; chart.nodes.len()];
    let mut clusters: Vec<Option<ClusterBox>> = vec![None; chart.subgraphs.len()];
    for (scope, p) in placed.iter().enumerate() {
        for (k, item) in plan.items[scope].iter().enumerate() {
            let center = p.centers[k].plus(offset(scope, &inner_at));
            match *item {
                Item::Node(i) => {
                    let shape = plan.shape(i);
                    let (w, h) = shapes::size(shape, &plan.node_text[i]);
                    nodes[i] = Some(NodeBox {
                        bounds: Bounds { center, w, h },
                        shape,
                        text: sized_as(&plan.node_text[i]),
                    });
                }
                Item::Cluster(s) => {
                    let (w, h) = cluster_size[s];
                    let bounds = Bounds { center, w, h };
                    inner_at[s] = Pt::new(bounds.left(), bounds.top()).plus(inset[s]);
                    clusters[s] = Some(ClusterBox {
                        bounds,
                        title: sized_as(&plan.cluster_title[s]),
                    });
                }
            }
        }
    }
    let clusters: Vec<ClusterBox> = clusters.into_iter().collect::<Option<_>>()?;
    let outline_of = |item: Item| -> (Outline, Bounds) {
        match item {
            Item::Node(i) => {
                let b = nodes[i].as_ref().map(|n| n.bounds).unwrap_or(Bounds {
                    center: Pt::new(0.0, 0.0),
                    w: 0.0,
                    h: 0.0,
                });
                (shapes::outline::outline(plan.shape(i), b), b)
            }
            Item::Cluster(s) => {
                let b = clusters[s].bounds;
                (shapes::outline::outline(Shape::Rect, b), b)
            }
        }
    };
    let mut edges = Vec::with_capacity(chart.edges.len());
    for e in 0..chart.edges.len() {
        let (a, b) = plan.ends[e];
        let label = plan.edge_label[e].as_ref().map(sized_as);
        let (oa, ba) = outline_of(a);
        let (ob, bb) = outline_of(b);
        let mut label_at = None;
        let scope = match plan.routing[e] {
            Routing::Scope(l, _) => l,
            Routing::SelfLoop(s) => s,
            Routing::Direct => plan.scope_of(a),
        };
        let axis = if plan.direction(scope).is_horizontal() {
            Pt::new(1.0, 0.0)
        } else {
            Pt::new(0.0, 1.0)
        };
        let mut points = match plan.routing[e] {
            Routing::SelfLoop(scope) => {
                let horizontal = plan.direction(scope).is_horizontal();
                let (q1, q2, far) = if horizontal {
                    let y = ba.bottom() + LOOP_REACH;
                    (
                        Pt::new(ba.center.x - 12.0, y),
                        Pt::new(ba.center.x + 12.0, y),
                        Pt::new(ba.center.x, y),
                    )
                } else {
                    let x = ba.right() + LOOP_REACH;
                    (
                        Pt::new(x, ba.center.y - 12.0),
                        Pt::new(x, ba.center.y + 12.0),
                        Pt::new(x, ba.center.y),
                    )
                };
                if let Some(l) = &label {
                    label_at = Some(if horizontal {
                        far.plus(Pt::new(0.0, l.height / 2.0 + LABEL_PAD_Y + 2.0))
                    } else {
                        far.plus(Pt::new(l.width / 2.0 + LABEL_PAD_X + 2.0, 0.0))
                    });
                }
                vec![ba.center, q1, q2, ba.center]
            }
            Routing::Direct => direct(a, b, ba, bb, &nodes, &clusters),
            Routing::Scope(l, k) => {
                let se = &plan.edges[l][k];
                let pe = &placed[l].edges[k];
                let route = &placed[l].points[pe.route.clone()];
                let at = offset(l, &inner_at);
                let moved = |p: &Pt| p.plus(at);
                label_at = pe.label_at.map(|p| p.plus(at));
                // An edge across a rank (straight from box to box, or through its label's box)
                // leaves and reaches a subgraph's side level with its member, not the side's
                // middle.
                let straight = route.len() == 2 + usize::from(pe.label_at.is_some());
                let flat = flats[l].get(k) == Some(&true) && straight && {
                    let (f, t) = (outline_of(se.from).1, outline_of(se.to).1);
                    if axis.x != 0.0 {
                        f.left() < t.right() && t.left() < f.right()
                    } else {
                        f.top() < t.bottom() && t.top() < f.bottom()
                    }
                };
                let side = |unit: Item, member: Pt, other: Item| {
                    let (u, o) = (outline_of(unit).1, outline_of(other).1);
                    if axis.x != 0.0 {
                        let y = if o.center.y > u.center.y {
                            u.bottom()
                        } else {
                            u.top()
                        };
                        Pt::new(member.x, y)
                    } else {
                        let x = if o.center.x > u.center.x {
                            u.right()
                        } else {
                            u.left()
                        };
                        Pt::new(x, member.y)
                    }
                };
                let mut pts = Vec::with_capacity(route.len() + 2);
                pts.push(ba.center);
                if se.from != a
                    && let Some(first) = route.first()
                {
                    pts.push(if flat {
                        side(se.from, ba.center, se.to)
                    } else {
                        moved(first)
                    });
                }
                if route.len() > 2 {
                    pts.extend(route[1..route.len() - 1].iter().map(moved));
                }
                if se.to != b
                    && let Some(last) = route.last()
                {
                    pts.push(if flat {
                        side(se.to, bb.center, se.from)
                    } else {
                        moved(last)
                    });
                }
                pts.push(bb.center);
                pts
            }
        };
        shapes::clip::clip_start(&mut points, &oa);
        shapes::clip::clip_end(&mut points, &ob);
        points.dedup_by(|p, q| p.minus(*q).len() < 1e-6);
        if points.len() < 2 {
            let p = points.first().copied().unwrap_or(ba.center);
            points = vec![p, p];
        }
        let label = label.map(|block| {
            let at = match label_at {
                Some(at) if label_boxes || matches!(plan.routing[e], Routing::SelfLoop(..)) => at,
                _ => midpoint(&points),
            };
            (at, block)
        });
        edges.push(EdgePath {
            points,
            label,
            axis,
            straight: false,
        });
    }
    let root = &placed[0];
    let mut width = root.width + 2.0 * MARGIN;
    let mut height = root.height + 2.0 * MARGIN;
    // Labels placed by midpoint (the fallback) may reach past the content.
    for e in &edges {
        if let Some((at, l)) = &e.label {
            width = width.max(at.x + l.width / 2.0 + LABEL_PAD_X + MARGIN);
            height = height.max(at.y + l.height / 2.0 + LABEL_PAD_Y + MARGIN);
        }
    }
    Some(Drawing {
        width,
        height,
        nodes,
        clusters,
        edges,
    })
}

/// The point halfway along a polyline.
pub(super) fn midpoint(points: &[Pt]) -> Pt {
    let total: f64 = points.windows(2).map(|w| w[1].minus(w[0]).len()).sum();
    let mut left = total / 2.0;
    for w in points.windows(2) {
        let l = w[1].minus(w[0]).len();
        if l >= left && l > 0.0 {
            return w[0].lerp(w[1], left / l);
        }
        left -= l;
    }
    points.first().copied().unwrap_or(Pt::new(0.0, 0.0))
}

/// The way between a subgraph and something inside it (a member, or a subgraph nested in
/// it): from the subgraph's border straight to the inner end, along the side of the four
/// whose run there crosses no other box, the shortest such (the top one only clear of the
/// title); the nearest side when every run crosses one (the boxes are then routed around
/// afterwards, from that border point).
fn direct(
    a: Item,
    b: Item,
    ba: Bounds,
    bb: Bounds,
    nodes: &[Option<NodeBox>],
    clusters: &[ClusterBox],
) -> Vec<Pt> {
    let holds = |o: Bounds, i: Bounds| {
        o.left() <= i.left() + 0.5
            && o.right() >= i.right() - 0.5
            && o.top() <= i.top() + 0.5
            && o.bottom() >= i.bottom() - 0.5
    };
    let (outer, inner, inner_item, outer_first) = if holds(ba, bb) {
        (ba, bb, b, true)
    } else {
        (bb, ba, a, false)
    };
    let c = inner.center;
    let title = match if outer_first { a } else { b } {
        Item::Cluster(s) => clusters[s].title.width + 20.0,
        Item::Node(_) => 0.0,
    };
    let candidates = [
        (Pt::new(c.x, outer.top()), c.x > outer.left() + title),
        (Pt::new(c.x, outer.bottom()), true),
        (Pt::new(outer.left(), c.y), true),
        (Pt::new(outer.right(), c.y), true),
    ];
    let clear = |from: Pt| {
        nodes.iter().enumerate().all(|(i, n)| {
            let Some(n) = n else { return true };
            Item::Node(i) == inner_item || !segment_meets(from, c, n.bounds)
        })
    };
    let length = |p: &Pt| p.minus(c).len();
    let best = candidates
        .iter()
        .filter(|(p, ok)| *ok && clear(*p))
        .map(|(p, _)| *p)
        .min_by(|p, q| length(p).total_cmp(&length(q)))
        .or_else(|| {
            candidates
                .iter()
                .map(|(p, _)| *p)
                .min_by(|p, q| length(p).total_cmp(&length(q)))
        })
        .unwrap_or(outer.center);
    if outer_first {
        vec![best, c]
    } else {
        vec![c, best]
    }
}

/// Whether the segment from `p` to `q` passes through the inside of `b` (Liang and Barsky's
/// clipping: the part of the segment within the box is not empty).
fn segment_meets(p: Pt, q: Pt, b: Bounds) -> bool {
    let d = q.minus(p);
    let (mut t0, mut t1) = (0.0_f64, 1.0_f64);
    for (den, num) in [
        (-d.x, p.x - b.left()),
        (d.x, b.right() - p.x),
        (-d.y, p.y - b.top()),
        (d.y, b.bottom() - p.y),
    ] {
        if den == 0.0 {
            if num <= 0.0 {
                return false;
            }
            continue;
        }
        let t = num / den;
        if den < 0.0 {
            t0 = t0.max(t);
        } else {
            t1 = t1.min(t);
        }
        if t0 >= t1 {
            return false;
        }
    }
    true
}
