//! Where boxes go across the ranks: packed, then each rank fitted towards the weighted medians
//! of its neighbours, sweep after sweep.

use super::graph::Layered;
use layout::adt::dag::NodeHandle;
use layout::core::geometry::Position;
use layout::core::geometry::do_boxes_intersect;
use layout::topo::placer::EPSILON;

/// What layout-rs's `Placer::layout(true)` does to these graphs, without its copies of every
/// rank: each rank's boxes are centred on its depth (the ranks stacked, each as deep as its
/// deepest box) and packed from 0 in rank order. Its pass that moves connector labels between
/// ranks has nothing to move here (no connector has a label). Its check that each rank's boxes
/// are apart and in order is kept: `None` where it would panic.
///
/// A rank marked `between` (see `place`) holds label boxes and the connectors passing them: it
/// is as deep as its label boxes.
pub(super) fn pack_ranks(vg: &mut Layered, between: &[bool]) -> Option<()> {
    // Left to right is laid out top to bottom, transposed.
    let transpose = !vg.orientation().is_top_to_bottom();
    if transpose {
        vg.transpose();
    }
    let levels = vg.dag.num_levels();
    let mut lowest_point = 0.0;
    for i in 0..levels {
        let between = between.get(i).copied().unwrap_or(false);
        let max_height = vg
            .dag
            .row(i)
            .iter()
            .filter(|&&h| !(between && vg.is_connector(h)))
            .fold(0.0_f64, |m, &h| m.max(vg.pos(h).size(true).y));
        let new_center = lowest_point + max_height / 2.0;
        for k in 0..vg.dag.row(i).len() {
            let h = vg.dag.row(i)[k];
            let height = vg.pos(h).size(true).y;
            vg.pos_mut(h).align_to_top(new_center - height / 2.0);
        }
        lowest_point += max_height;
    }
    for i in 0..levels {
        let mut rightmost_point = 0.0;
        for k in 0..vg.dag.row(i).len() {
            let h = vg.dag.row(i)[k];
            let pos = vg.pos_mut(h);
            pos.align_to_left(rightmost_point + EPSILON);
            rightmost_point = pos.bbox(true).1.x + EPSILON;
        }
    }
    for i in 0..levels {
        let row = vg.dag.row(i);
        let Some((&first, rest)) = row.split_first() else {
            continue;
        };
        let bb0 = vg.pos(first).bbox(true);
        for &h in rest {
            let bb1 = vg.pos(h).bbox(true);
            let in_order = bb0.0.x < bb1.0.x;
            if do_boxes_intersect(bb0, bb1) || !in_order {
                return None;
            }
        }
    }
    if transpose {
        vg.transpose();
    }
    Some(())
}

/// How many times `spread` goes over all the ranks, at most.
const SPREAD_SWEEPS: usize = 24;

/// How many of `spread`'s sweeps weigh one side only (alternately predecessors going down
/// and successors going up).
const ONE_SIDED_SWEEPS: usize = 4;

/// `spread` stops once no box moved further than this in a sweep.
const SPREAD_SETTLED: f64 = 0.25;

/// Places the boxes across the ranks (x in a top-down layout, y in a left-to-right one),
/// keeping each rank's order and its boxes apart, so that edges run as straight as they
/// can: it minimizes the sum over layout edges of weight × across distance. Waypoints
/// (connectors of long edges, and label boxes) weigh more, as in dot's coordinate pass
/// (Gansner et al.), so long edges run straight; an edge weighs a little more where it
/// arrives than where it leaves, so a fan-out bends at its source and each branch comes
/// straight down into its target.
///
/// One rank at a time, with the other ranks held, this is exact: each box's cost is a sum of
/// distances to its neighbours, and the best order-keeping placement of the rank is an
/// isotonic regression under absolute loss (pooled weighted medians, `Fit`). The first sweeps
/// alternate going down, hanging each box under its predecessors, and going up, centring
/// each box over its successors; then sweeps weigh both sides until nothing moves. Where the
/// pulls balance (anywhere between them costs the same), the one-sided sweeps take the
/// middle and the later ones leave the box where it is. A box with no neighbours keeps its place.
///
/// Boxes from `first_waypoint` on are waypoints.
pub(super) fn spread(vg: &mut Layered, horizontal: bool, first_waypoint: usize) {
    let across = |p: &Position| {
        if horizontal {
            p.center().y
        } else {
            p.center().x
        }
    };
    let half = |p: &Position| {
        let s = p.size(true);
        (if horizontal { s.y } else { s.x }) / 2.0
    };
    let n = vg.dag.len();
    let mut at: Vec<f64> = (0..n)
        .map(|i| across(&vg.pos(NodeHandle::new(i))))
        .collect();
    // Weight of the layout edge from `u` down to `v`.
    let weight = |u: usize, v: usize| match (u >= first_waypoint, v >= first_waypoint) {
        (true, true) => 8.0,
        (false, true) => 2.0,
        (true, false) => 3.0,
        (false, false) => 1.0,
    };
    let levels = vg.dag.num_levels();
    // Room for the widest rank and all its points: no buffer grows in the sweeps.
    let (widest, links) = (0..levels).fold((0, 0), |(w, l), k| {
        let row = vg.dag.row(k);
        let links: usize = row
            .iter()
            .map(|&h| vg.dag.predecessors(h).len() + vg.dag.successors(h).len() + 1)
            .sum();
        (w.max(row.len()), l.max(links))
    });
    let mut fit = Fit::with_capacity(widest, links);
    for sweep in 0..SPREAD_SWEEPS {
        let mut moved: f64 = 0.0;
        let down = sweep % 2 == 0;
        // The first sweeps hang boxes from one side only; then both sides count.
        let one_sided = sweep < ONE_SIDED_SWEEPS;
        let (preds, succs) = (!one_sided || down, !one_sided || !down);
        for k in 0..levels {
            let row = vg.dag.row(if down { k } else { levels - 1 - k });
            fit.clear();
            for &h in row {
                let i = h.get_index();
                fit.start_box(half(&vg.pos(h)), at[i]);
                if preds {
                    for &m in vg.dag.predecessors(h) {
                        fit.point(at[m.get_index()], weight(m.get_index(), i));
                    }
                }
                if succs {
                    for &m in vg.dag.successors(h) {
                        fit.point(at[m.get_index()], weight(i, m.get_index()));
                    }
                }
                if fit.box_is_free() {
                    fit.point(at[i], 1e-3);
                }
            }
            for (&h, x) in row.iter().zip(fit.solve(!one_sided)) {
                let i = h.get_index();
                moved = moved.max((x - at[i]).abs());
                at[i] = x;
            }
        }
        if moved < SPREAD_SETTLED {
            break;
        }
    }
    for (i, &x) in at.iter().enumerate() {
        let pos = vg.pos_mut(NodeHandle::new(i));
        if horizontal {
            pos.set_y(x);
        } else {
            pos.set_x(x);
        }
    }
}

/// One rank's placement problem for `spread`. Per box, in rank order: half its width (with
/// its halo) and the points it wants to be near, with weights. Its buffers are reused.
#[derive(Default)]
pub(super) struct Fit {
    boxes: Vec<FitBox>,
    /// (position, weight), shifted in `solve` and sorted pool by pool in `median`.
    pub(super) points: Vec<(f64, f64)>,
    /// Pooled runs of boxes: (first box, end box, optimum).
    pools: Vec<(usize, usize, f64)>,
}

struct FitBox {
    half: f64,
    /// Where it is now, shifted in `solve`.
    now: f64,
    /// Where its points start in `points`.
    pub(super) first: usize,
    /// Where `solve` puts it.
    pub(super) at: f64,
}

impl Fit {
    fn with_capacity(boxes: usize, points: usize) -> Fit {
        Fit {
            boxes: Vec::with_capacity(boxes),
            points: Vec::with_capacity(points),
            pools: Vec::with_capacity(boxes),
        }
    }

    pub(super) fn clear(&mut self) {
        self.boxes.clear();
        self.points.clear();
    }

    pub(super) fn start_box(&mut self, half: f64, now: f64) {
        self.boxes.push(FitBox {
            half,
            now,
            first: self.points.len(),
            at: now,
        });
    }

    pub(super) fn point(&mut self, at: f64, weight: f64) {
        self.points.push((at, weight));
    }

    /// Whether the box started last has no points yet.
    fn box_is_free(&self) -> bool {
        self.boxes.last().map(|b| b.first) == Some(self.points.len())
    }

    /// Where the points of boxes `start..end` are in `points`.
    fn points_of(&self, start: usize, end: usize) -> std::ops::Range<usize> {
        let end = self.boxes.get(end).map_or(self.points.len(), |b| b.first);
        self.boxes[start].first..end
    }

    /// The centres minimizing the sum of weight × |centre − point| with every box at least
    /// touching the one before it. Measured from where each box would sit if the rank were
    /// packed from 0, the constraint is that positions never decrease: an isotonic
    /// regression, solved by pooling adjacent violators, a pool's optimum being the weighted
    /// median of its boxes' points. Where the median is an interval, `stay` keeps the boxes
    /// as near where they are as it allows; otherwise they go to its middle.
    pub(super) fn solve(&mut self, stay: bool) -> impl Iterator<Item = f64> + '_ {
        let mut offset = 0.0;
        for b in 0..self.boxes.len() {
            if b > 0 {
                offset += self.boxes[b - 1].half + self.boxes[b].half;
            }
            self.boxes[b].now -= offset;
            for k in self.points_of(b, b + 1) {
                self.points[k].0 -= offset;
            }
        }
        self.pools.clear();
        for b in 0..self.boxes.len() {
            let mut pool = (b, b + 1, self.median(b, b + 1, stay));
            while let Some(&(start, _, before)) = self.pools.last() {
                if before <= pool.2 {
                    break;
                }
                self.pools.pop();
                pool = (start, pool.1, self.median(start, pool.1, stay));
            }
            self.pools.push(pool);
        }
        let mut offset = 0.0;
        for &(start, end, at) in &self.pools {
            for b in start..end {
                if b > 0 {
                    offset += self.boxes[b - 1].half + self.boxes[b].half;
                }
                self.boxes[b].at = at + offset;
            }
        }
        self.boxes.iter().map(|b| b.at)
    }

    /// The weighted median of the points of boxes `start..end`. When the weights split evenly
    /// the medians are an interval: its middle, or with `stay` the point of it nearest the
    /// boxes' mean position now.
    fn median(&mut self, start: usize, end: usize, stay: bool) -> f64 {
        let range = self.points_of(start, end);
        // One point (a box with one neighbour) is its own median.
        if range.len() == 1 {
            return self.points[range.start].0;
        }
        // Sorted where they are: a pool's points are one run of `points`, and a stable sort
        // of a run whose parts were sorted before orders it as sorting it afresh would.
        self.points[range.clone()].sort_by(|a, b| a.0.total_cmp(&b.0));
        let sorted = &self.points[range];
        let total: f64 = sorted.iter().map(|p| p.1).sum();
        let mut below = 0.0;
        for (k, &(at, w)) in sorted.iter().enumerate() {
            below += w;
            if below * 2.0 > total * (1.0 + 1e-9) {
                return at;
            }
            if below * 2.0 >= total * (1.0 - 1e-9) {
                let next = sorted.get(k + 1).map_or(at, |p| p.0);
                if stay {
                    let now = self.boxes[start..end].iter().map(|b| b.now).sum::<f64>()
                        / (end - start) as f64;
                    return now.clamp(at, next);
                }
                return (at + next) / 2.0;
            }
        }
        sorted.last().map_or(0.0, |p| p.0)
    }
}
