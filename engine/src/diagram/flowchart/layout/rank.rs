//! Ranks: longest-path ranks as layout-rs assigns them, nodes sunk towards their successors,
//! and the reachability search they use.

use super::graph::{Graph, Rank};
use layout::adt::dag::NodeHandle;
use smallvec::SmallVec;

/// Ranks the nodes as layout-rs's `DAG::recompute_node_ranks` does (each node on the rank of
/// the longest path reaching it, each rank in node order), without its traversal's lists.
/// `None` on a cycle, where layout-rs panics (`place` breaks every cycle first); else each
/// node's rank.
pub(super) fn rank_nodes(dag: &mut Graph, long: &Spans, step: usize) -> Option<Vec<usize>> {
    let n = dag.len();
    let mut level = vec![0usize; n];
    let span = |u: usize, v: usize| long.get((u, v)).unwrap_or(step);
    // Relaxed in node order until nothing changes: nodes mostly come in edge order, so a few
    // passes do; a DAG settles within `n`.
    let mut passes = 0;
    loop {
        let mut changed = false;
        for u in 0..n {
            for &v in dag.successors(NodeHandle::new(u)) {
                let v = v.get_index();
                let next = level[u] + if long.is_empty() { step } else { span(u, v) };
                // (A self-edge has no rank of its own.)
                if v != u && level[v] < next {
                    level[v] = next;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
        passes += 1;
        if passes > n {
            return None;
        }
    }
    let levels = level.iter().max().map_or(0, |m| m + 1);
    let mut ranks: Vec<Rank> = Vec::with_capacity(levels);
    ranks.resize_with(levels, Rank::new);
    for (i, &l) in level.iter().enumerate() {
        ranks[l].push(NodeHandle::new(i));
    }
    *dag.ranks_mut() = ranks;
    Some(level)
}

/// Per layout edge `(from, to)` (node indices): how many ranks it spans, where that is not
/// the scope's usual step. A list sorted by edge: a chart has a few such edges, found by
/// bisection without hashing, and kept inline.
#[derive(Default)]
pub(super) struct Spans(SmallVec<[((usize, usize), usize); 4]>);

impl Spans {
    /// Asks for at least `span` ranks for `edge`.
    pub(super) fn ask(&mut self, edge: (usize, usize), span: usize) {
        match self.0.binary_search_by_key(&edge, |&(e, _)| e) {
            Ok(i) => self.0[i].1 = self.0[i].1.max(span),
            Err(i) => self.0.insert(i, (edge, span)),
        }
    }

    pub(super) fn get(&self, edge: (usize, usize)) -> Option<usize> {
        let i = self.0.binary_search_by_key(&edge, |&(e, _)| e).ok()?;
        Some(self.0[i].1)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Moves each node down as far as its successors and the spans to them allow, where it has
/// no more predecessors than successors (so fewer edges run long), until nothing moves: what
/// layout-rs's `RankOptimizer` does, but keeping each edge's span (`long`, else `step`).
/// `levels` holds each node's rank, and is kept up to date.
pub(super) fn sink_nodes(dag: &mut Graph, long: &Spans, step: usize, levels: &mut [usize]) {
    let span = |u: usize, v: usize| long.get((u, v)).unwrap_or(step);
    // Each move lowers a node, and no node goes below the deepest rank: this ends.
    loop {
        let mut moved = false;
        for u in 0..dag.len() {
            let node = NodeHandle::new(u);
            let (backs, fwds) = (dag.predecessors(node), dag.successors(node));
            if backs.len() > fwds.len() || fwds.is_empty() {
                continue;
            }
            let lowest = fwds
                .iter()
                .filter(|&&v| v != node)
                .map(|&v| levels[v.get_index()].saturating_sub(span(u, v.get_index())))
                .min();
            if let Some(lowest) = lowest.filter(|&l| l > levels[u]) {
                dag.move_node(node, levels[u], lowest);
                levels[u] = lowest;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
}

/// Reachability in the layout graph, for breaking cycles. layout-rs's own `DAG::is_reachable`
/// unmarks each node on the way back, so it walks every path: a ladder of diamonds (each rung
/// two ways down) took exponential time, minutes for 30 rungs. This search marks each node
/// once, so a query costs at most the graph's size. The buffers are reused across queries.
#[derive(Default)]
pub(super) struct Search {
    /// Inline for a small chart's graph.
    seen: SmallVec<[bool; 32]>,
    stack: SmallVec<[NodeHandle; 8]>,
}

impl Search {
    /// Whether `to` can be reached from `from` (a node reaches itself).
    pub(super) fn reaches(&mut self, dag: &Graph, from: NodeHandle, to: NodeHandle) -> bool {
        if from == to {
            return true;
        }
        self.seen.clear();
        self.seen.resize(dag.len(), false);
        self.stack.clear();
        self.stack.push(from);
        self.seen[from.get_index()] = true;
        while let Some(n) = self.stack.pop() {
            for &next in dag.successors(n) {
                if next == to {
                    return true;
                }
                if !self.seen[next.get_index()] {
                    self.seen[next.get_index()] = true;
                    self.stack.push(next);
                }
            }
        }
        false
    }
}
