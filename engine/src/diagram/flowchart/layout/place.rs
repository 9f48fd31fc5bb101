//! One scope placed: its boxes ranked, ordered within ranks and spread across them, and its
//! edges routed through a connector per rank they cross.

use super::graph::{Layered, boxed, halo};
use super::order::{Ports, adjoin, order_ranks};
use super::rank::{Search, Spans, rank_nodes, sink_nodes};
use super::spread::{pack_ranks, spread};
use super::{
    Few, Item, LABEL_PAD_X, LABEL_PAD_Y, LOOP_REACH, MAX_LAYOUT_BOXES, Placed, PlacedEdge, Plan,
};
use crate::diagram::flowchart::Direction;
use crate::diagram::geometry::Bounds;
use crate::diagram::geometry::Pt;
use crate::diagram::shapes;
use crate::diagram::shapes::Shape;
use layout::adt::dag::NodeHandle;
use layout::core::base::Orientation;

/// One scope edge as `place` lays it out.
struct Run {
    /// Its ends' item indices (equal for a self-loop).
    from: usize,
    to: usize,
    /// Its label box: handle and size.
    label: Option<(NodeHandle, f64, f64)>,
    /// Its segments, in `segs`: one, or two through its label box (none for a self-loop).
    segs: std::ops::Range<usize>,
}

/// One layout edge of a scope edge, pointing down the DAG.
struct Seg {
    from: NodeHandle,
    to: NodeHandle,
    /// Whether it runs against its scope edge (to break a cycle).
    reversed: bool,
    /// Its path (its ends and a connector per rank between) in `place`'s `path_nodes`.
    nodes: std::ops::Range<usize>,
}

/// Lays out one scope. `None` when the layout engine produced nothing usable. `sizes` (per
/// item) is widened in place for self-loops. An edge marked in `flat` (see `flat_edges`) lets
/// its ends share a rank.
pub(super) fn place(
    plan: &Plan,
    scope: usize,
    mut sizes: Few<(f64, f64)>,
    ports: &[(f64, f64)],
    flat: &[bool],
    label_boxes: bool,
) -> Option<Placed> {
    let items = &plan.items[scope];
    let edges = &plan.edges[scope];
    if items.is_empty() {
        return Some(Placed::default());
    }
    let dir = plan.direction(scope);
    let horizontal = dir.is_horizontal();
    let orientation = if horizontal {
        Orientation::LeftToRight
    } else {
        Orientation::TopToBottom
    };
    // Without subgraphs, item `i` is node `i`: no search.
    let index_of = |item: Item| match item {
        Item::Node(i) if items.get(i) == Some(&item) => Some(i),
        _ => items.iter().position(|i| *i == item),
    };
    // A self-loop is drawn by hand beside its node (right of it, or below it in a horizontal
    // layout): the node's box is widened by the room the loop and its label need. Per item,
    // and left empty (all zero) when the scope has no self-loop.
    let mut extra: Vec<(f64, f64)> = Vec::new();
    for se in edges.iter().filter(|se| se.from == se.to) {
        let i = index_of(se.from)?;
        if extra.is_empty() {
            extra.resize(items.len(), (0.0, 0.0));
        }
        let label = plan.edge_label[se.edge].as_ref();
        let (lw, lh) = label.map_or((0.0, 0.0), |l| {
            (
                l.width + 2.0 * LABEL_PAD_X + 4.0,
                l.height + 2.0 * LABEL_PAD_Y + 4.0,
            )
        });
        let e: &mut (f64, f64) = &mut extra[i];
        if horizontal {
            e.1 = f64::max(e.1, LOOP_REACH + lh + 2.0);
        } else {
            e.0 = f64::max(e.0, LOOP_REACH + lw + 2.0);
        }
    }
    for (s, &(dx, dy)) in sizes.iter_mut().zip(&extra) {
        *s = (s.0 + dx, s.1 + dy);
    }
    let sizes = &sizes[..];
    // Room for the items and label boxes; connectors come later.
    let mut vg = Layered::new(orientation, sizes.len() + edges.len());
    // Item `i` is the layout's node `i`.
    for &(w, h) in sizes {
        vg.add_node(boxed(w, h, halo(horizontal, false)));
    }
    let handle = NodeHandle::new;
    let mut runs: Vec<Run> = Vec::with_capacity(edges.len());
    let mut segs: Vec<Seg> = Vec::with_capacity(2 * edges.len());
    // Whether the scope has a labelled edge: then, as in dagre, every link's length counts
    // double and each label box sits on the half rank in the middle of its edge, so a
    // labelled link spans as far as an unlabelled one of the same length. Half ranks without
    // a label are dropped; the others are as deep as their label boxes (see `pack_ranks`).
    let mut half_ranks = false;
    let seg = |from: NodeHandle, to: NodeHandle| Seg {
        from,
        to,
        reversed: false,
        nodes: 0..0,
    };
    for se in edges {
        let (Some(f), Some(t)) = (index_of(se.from), index_of(se.to)) else {
            return None;
        };
        let start = segs.len();
        if f == t {
            runs.push(Run {
                from: f,
                to: t,
                label: None,
                segs: start..start,
            });
            continue;
        }
        let pair = (f.min(t), f.max(t));
        // (A self-loop's pair has equal ends, so it never matches.)
        // Flat edges between one pair reach their boxes level with their members, apart.
        let is_flat = |k: usize| flat.get(k) == Some(&true);
        let repeated = runs.iter().enumerate().any(|(k, r)| {
            (r.from.min(r.to), r.from.max(r.to)) == pair && !(is_flat(k) && is_flat(runs.len()))
        });
        let label = plan.edge_label[se.edge].as_ref();
        // A label, or a repeated pair, gets a box of its own in the middle of the edge, so
        // the label has room and parallel edges take separate routes.
        let label_size = match (label, repeated) {
            (Some(l), _) => Some((l.width + 2.0 * LABEL_PAD_X, l.height + 2.0 * LABEL_PAD_Y)),
            (None, true) => Some((2.0, 2.0)),
            (None, false) => None,
        };
        let label = match label_size.filter(|_| label_boxes) {
            Some((w, h)) => {
                half_ranks |= plan.edge_label[se.edge].is_some();
                let l = vg.add_node(boxed(w, h, halo(horizontal, true)));
                segs.push(seg(handle(f), l));
                segs.push(seg(l, handle(t)));
                Some((l, w, h))
            }
            None => {
                segs.push(seg(handle(f), handle(t)));
                None
            }
        };
        runs.push(Run {
            from: f,
            to: t,
            label,
            segs: start..segs.len(),
        });
    }
    // Break cycles: a segment that would close one points the other way in the DAG.
    let mut search = Search::default();
    for s in &mut segs {
        let (a, b) = (s.from, s.to);
        let reversed = search.reaches(&vg.dag, b, a);
        let (u, v) = if reversed { (b, a) } else { (a, b) };
        if !vg.dag.successors(u).contains(&v) {
            vg.dag.add_edge(u, v);
        }
        *s = Seg {
            reversed,
            ..seg(u, v)
        };
    }
    // Longer links (`--->`) span more ranks: the segment into their far end asks for them.
    // With half ranks, each of a labelled edge's two segments spans its length, and an
    // unlabelled edge spans twice its length.
    let step = if half_ranks { 2 } else { 1 };
    let mut long: Spans = Spans::default();
    // With a flat edge every span is listed, so a flat edge and another between the same
    // boxes keep the other's span.
    let any_flat = flat.contains(&true);
    // A flat edge runs across the rank, through its label's box if it has a label; the small
    // box that parts a repeated pair keeps it to the ranks.
    let is_flat_run = |k: usize, r: &Run| {
        flat.get(k) == Some(&true)
            && (r.label.is_none() || plan.edge_label[edges[k].edge].is_some())
    };
    for (k, (r, se)) in runs.iter().zip(edges).enumerate() {
        let len = plan.chart.edges[se.edge].length;
        let Some(run_segs) = segs.get(r.segs.clone()) else {
            continue;
        };
        let flat_run = is_flat_run(k, r);
        let spans: &[usize] = match (half_ranks, r.label.is_some()) {
            _ if flat_run => &[0, 0],
            (true, true) => &[len, len],
            (true, false) => &[2 * len],
            // A label box takes the first rank of its edge's span; a one-rank link with a
            // label still needs two.
            (false, true) => &[1, len - 1],
            (false, false) => &[len],
        };
        for (s, &span) in run_segs.iter().zip(spans) {
            if flat_run || (span > 0 && (any_flat || span != step)) {
                let key = (s.from.get_index(), s.to.get_index());
                long.ask(key, span);
            }
        }
    }
    // Each box's rank, kept along with the ranks.
    let mut levels = rank_nodes(&mut vg.dag, &long, step)?;
    // Per rank: whether it lies between two node ranks and holds label boxes only.
    let mut between: Few<bool> = Few::new();
    if half_ranks {
        sink_nodes(&mut vg.dag, &long, step, &mut levels);
        // Where a flat edge's ends did not come to share a rank, its label's box goes halfway
        // down between them.
        for (_, r) in runs.iter().enumerate().filter(|&(k, r)| is_flat_run(k, r)) {
            let Some((l, _, _)) = r.label else {
                continue;
            };
            let (from, to) = (handle(r.from), handle(r.to));
            let (upper, lower) = if vg.dag.level(from) <= vg.dag.level(to) {
                (from, to)
            } else {
                (to, from)
            };
            let (top, bottom) = (vg.dag.level(upper), vg.dag.level(lower));
            let through =
                vg.dag.successors(upper).contains(&l) && vg.dag.successors(l).contains(&lower);
            if bottom > top + 1 && through {
                vg.dag.update_node_rank_level(l, (top + bottom) / 2);
            }
        }
        // Nodes sit on even ranks and label boxes on odd ones. An odd rank without a label
        // box goes, so where no label lies between, neighbouring node ranks stay neighbours
        // and need no connector.
        let mut i = 0;
        vg.dag.ranks_mut().retain(|row| {
            let odd = i % 2 == 1;
            i += 1;
            let kept = !odd || !row.is_empty();
            if kept {
                between.push(odd);
            }
            kept
        });
        vg.dag.fill_levels(&mut levels);
    } else {
        // As layout-rs's `RankOptimizer`, which would pull a longer link's far end back up to
        // one rank.
        sink_nodes(&mut vg.dag, &long, step, &mut levels);
    }
    // Long edges pass through one small connector per rank they cross. Each segment's path
    // lies in `path_nodes`; segments with the same ends share one.
    // Room for every segment's path (a repeated one is counted again): filled without growing.
    // (Connectors, added below, are never asked their rank.)
    let level_of = |h: NodeHandle| levels[h.get_index()];
    let path_len = |s: &Seg| 2 + level_of(s.to).saturating_sub(level_of(s.from) + 1);
    let path_room: usize = segs.iter().map(path_len).sum();
    let mut path_nodes: Vec<NodeHandle> = Vec::with_capacity(path_room);
    // A path's connectors are its nodes but its ends: room for all of them at once.
    vg.reserve(path_room - 2 * segs.len());
    for k in 0..segs.len() {
        let (u, v) = (segs[k].from, segs[k].to);
        if let Some(done) = segs[..k].iter().find(|s| (s.from, s.to) == (u, v)) {
            segs[k].nodes = done.nodes.clone();
            continue;
        }
        let start = path_nodes.len();
        let target = level_of(v);
        let mut level = level_of(u);
        // The ends and one connector per rank between them.
        path_nodes.push(u);
        let mut prev = u;
        while level + 1 < target {
            let c = vg.add_connector(level + 1);
            vg.dag.remove_edge(prev, v);
            vg.dag.add_edge(prev, c);
            vg.dag.add_edge(c, v);
            path_nodes.push(c);
            prev = c;
            level += 1;
        }
        path_nodes.push(v);
        segs[k].nodes = start..path_nodes.len();
    }
    if vg.num_nodes() > MAX_LAYOUT_BOXES {
        plan.too_large.set(true);
        return None;
    }
    // Where edges leave and reach a subgraph's box along the rank, per layout edge, for
    // `order_ranks`: the first and last layout edge of each run carry its ends' ports.
    let mut edge_ports = Ports::default();
    for (run, &(at_from, at_to)) in runs.iter().zip(ports) {
        for s in &segs[run.segs.clone()] {
            let path = &path_nodes[s.nodes.clone()];
            for pair in [
                path.get(..2),
                path.len().checked_sub(2).and_then(|i| path.get(i..)),
            ]
            .into_iter()
            .flatten()
            {
                let (u, v) = (pair[0].get_index(), pair[1].get_index());
                let port = |i: usize| {
                    if i == run.from {
                        at_from
                    } else if i == run.to {
                        at_to
                    } else {
                        0.0
                    }
                };
                if port(u) != 0.0 || port(v) != 0.0 {
                    edge_ports.insert((u, v), (port(u), port(v)));
                }
            }
        }
    }
    order_ranks(&mut vg, &edge_ports);
    for (_, run) in runs.iter().enumerate().filter(|&(k, r)| is_flat_run(k, r)) {
        let label = run.label.map(|(h, _, _)| h);
        let chain: Vec<NodeHandle> = [Some(handle(run.from)), label, Some(handle(run.to))]
            .into_iter()
            .flatten()
            .collect();
        adjoin(&mut vg, &chain, &edge_ports);
    }
    // Each rank gets its depth and is packed; where boxes go across the ranks is ours
    // (`spread`).
    pack_ranks(&mut vg, &between)?;
    // Label boxes and connectors, the waypoints, come after the items.
    spread(&mut vg, horizontal, items.len());
    let center = |h: NodeHandle| {
        let c = vg.pos(h).center();
        Pt::new(c.x, c.y)
    };
    let mut centers: Vec<Pt> = (0..items.len()).map(|i| center(handle(i))).collect();
    let item_box = |i: usize, centers: &[Pt]| Bounds {
        center: centers[i],
        w: sizes[i].0,
        h: sizes[i].1,
    };
    // Each edge's route: box border to box border through its label box and connectors, all
    // in one buffer.
    let route_len = |r: &Run| -> usize {
        if r.from == r.to {
            2
        } else {
            segs[r.segs.clone()].iter().map(|s| s.nodes.len()).sum()
        }
    };
    let mut points: Vec<Pt> = Vec::with_capacity(runs.iter().map(route_len).sum());
    let mut placed_edges: Vec<PlacedEdge> = Vec::with_capacity(runs.len());
    for run in &runs {
        let (f, t) = (run.from, run.to);
        let start = points.len();
        let label_at = run.label.map(|(h, _, _)| center(h));
        if f == t {
            points.extend([centers[f], centers[f]]);
        } else {
            for s in &segs[run.segs.clone()] {
                let path = &path_nodes[s.nodes.clone()];
                // A later segment starts where the one before ended.
                let skip = usize::from(points.len() > start);
                if s.reversed {
                    points.extend(path.iter().rev().skip(skip).map(|&h| center(h)));
                } else {
                    points.extend(path.iter().skip(skip).map(|&h| center(h)));
                }
            }
            let pts = &mut points[start..];
            if pts.len() < 2 || pts.iter().any(|p| !p.x.is_finite() || !p.y.is_finite()) {
                return None;
            }
            let n = pts.len();
            let from_box = shapes::outline::outline(Shape::Rect, item_box(f, &centers));
            let to_box = shapes::outline::outline(Shape::Rect, item_box(t, &centers));
            pts[0] = shapes::clip::crossing(&from_box, pts[0], pts[1]);
            pts[n - 1] = shapes::clip::crossing(&to_box, pts[n - 1], pts[n - 2]);
        }
        placed_edges.push(PlacedEdge {
            route: start..points.len(),
            label_at,
        });
    }
    // Mirror for bottom-up and right-to-left, then move the content to (0, 0).
    let flip = |p: Pt| match dir {
        Direction::BottomUp => Pt::new(p.x, -p.y),
        Direction::RightLeft => Pt::new(-p.x, p.y),
        _ => p,
    };
    for c in &mut centers {
        *c = flip(*c);
    }
    for l in placed_edges.iter_mut().filter_map(|e| e.label_at.as_mut()) {
        *l = flip(*l);
    }
    for p in &mut points {
        *p = flip(*p);
    }
    let (mut min, mut max) = (
        Pt::new(f64::INFINITY, f64::INFINITY),
        Pt::new(f64::NEG_INFINITY, f64::NEG_INFINITY),
    );
    let mut grow = |b: Bounds| {
        min = Pt::new(min.x.min(b.left()), min.y.min(b.top()));
        max = Pt::new(max.x.max(b.right()), max.y.max(b.bottom()));
    };
    for i in 0..centers.len() {
        grow(item_box(i, &centers));
    }
    for (run, e) in runs.iter().zip(&placed_edges) {
        if let (Some((_, w, h)), Some(c)) = (run.label, e.label_at) {
            grow(Bounds { center: c, w, h });
        }
    }
    for p in &points {
        grow(Bounds {
            center: *p,
            w: 0.0,
            h: 0.0,
        });
    }
    if !min.x.is_finite() || !max.x.is_finite() {
        return None;
    }
    let shift = |p: Pt| p.minus(min);
    for c in &mut centers {
        *c = shift(*c);
    }
    // The node sits at the start of its widened box.
    for (c, &(dx, dy)) in centers.iter_mut().zip(&extra) {
        *c = c.minus(Pt::new(dx / 2.0, dy / 2.0));
    }
    for p in &mut points {
        *p = shift(*p);
    }
    for l in placed_edges.iter_mut().filter_map(|e| e.label_at.as_mut()) {
        *l = shift(*l);
    }
    let mut ranks = Vec::new();
    if scope > 0 {
        ranks.resize(items.len(), 0);
        let node_ranks =
            (0..vg.dag.num_levels()).filter(|&i| !between.get(i).copied().unwrap_or(false));
        for (rank, level) in node_ranks.enumerate() {
            for h in vg
                .dag
                .row(level)
                .iter()
                .filter(|h| h.get_index() < items.len())
            {
                ranks[h.get_index()] = rank;
            }
        }
    }
    Some(Placed {
        centers,
        points,
        edges: placed_edges,
        width: max.x - min.x,
        height: max.y - min.y,
        ranks,
    })
}
