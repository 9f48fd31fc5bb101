//! The order of the boxes within each rank: chains kept together, then swaps of neighbours
//! while they cross fewer edges.

use super::Few;
use super::graph::{Graph, Layered};
use layout::adt::dag::NodeHandle;
use smallvec::SmallVec;

/// Per layout edge `(from, to)` (node indices) that leaves or reaches a subgraph on behalf of a
/// member: where along the rank it does so at each end, as a fraction of the box (see
/// `member_ports`). Edges not listed leave from and arrive at their boxes' middles.
pub(super) type Ports = std::collections::HashMap<(usize, usize), (f64, f64)>;

/// Orders each rank to reduce crossings: barycentre sweeps down and up, keeping the best
/// order seen, then adjacent swaps that remove crossings. Bounded work, unlike layout-rs's
/// own pass (cubic in the width of a rank, 50 rounds), which dominated the time. Edges that
/// leave or reach a subgraph's box count from their member's side of it (`ports`).
pub(super) fn order_ranks(vg: &mut Layered, ports: &Ports) {
    let levels = vg.dag.num_levels();
    if levels < 2 {
        return;
    }
    let mut scratch = Scratch::new(&vg.dag, ports);
    let mut best_count = crossings(&vg.dag, &mut scratch);
    // Nothing to improve (the usual case for small charts): the sweeps below only ever keep an
    // order with fewer crossings.
    if best_count == 0 {
        return;
    }
    // The best order seen, every rank's nodes one after another (sorting keeps each rank's
    // length): one buffer, as long as the graph (every box is in a rank).
    let mut best: SmallVec<[NodeHandle; 32]> = SmallVec::with_capacity(vg.dag.len());
    for row in vg.dag.ranks() {
        best.extend_from_slice(row);
    }
    // One rank's nodes with their sort keys, reused for every rank.
    let mut keyed: Few<(f64, usize, NodeHandle)> = Few::new();
    for round in 0..8 {
        let down = round % 2 == 0;
        for step in 1..levels {
            let (neighbour_row, row) = if down {
                (step - 1, step)
            } else {
                (levels - step, levels - 1 - step)
            };
            let pos = &mut scratch.pos;
            for (p, h) in vg.dag.row(neighbour_row).iter().enumerate() {
                pos[h.get_index()] = p;
            }
            keyed.clear();
            keyed.extend(vg.dag.row(row).iter().enumerate().map(|(p, &h)| {
                let adj = if down {
                    vg.dag.predecessors(h)
                } else {
                    vg.dag.successors(h)
                };
                let (sum, count) = adj
                    .iter()
                    .filter(|a| pos[a.get_index()] != usize::MAX)
                    .map(|a| {
                        let (a, me) = (a.get_index(), h.get_index());
                        let port = if down {
                            port_of(ports, a, me).0
                        } else {
                            port_of(ports, me, a).1
                        };
                        pos[a] as f64 + port
                    })
                    .fold((0.0, 0usize), |(s, c), q| (s + q, c + 1));
                let key = if count == 0 {
                    p as f64
                } else {
                    sum / count as f64
                };
                (key, p, h)
            }));
            for h in vg.dag.row(neighbour_row) {
                pos[h.get_index()] = usize::MAX;
            }
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            for (slot, &(_, _, h)) in vg.dag.row_mut(row).iter_mut().zip(&keyed) {
                *slot = h;
            }
        }
        let count = crossings(&vg.dag, &mut scratch);
        // No crossings left: this order is the best, and nothing is left for the swaps.
        if count == 0 {
            return;
        }
        if count < best_count {
            best_count = count;
            best.clear();
            for row in vg.dag.ranks() {
                best.extend_from_slice(row);
            }
        }
    }
    let mut rest = &best[..];
    for row in vg.dag.ranks_mut() {
        let (this, next) = rest.split_at(row.len());
        row.copy_from_slice(this);
        rest = next;
    }
    // Adjacent swaps, a few passes.
    transpose(vg, &mut scratch, 4);
}

/// Lines up `chain` (the ends of an edge across a rank, with its label box between when it
/// has one) next to each other in their rank: the rest moved beside the first end, on the
/// side the far end was on, or else beside the far end, where that adds no crossings. The
/// edge across the rank then passes no other box.
pub(super) fn adjoin(vg: &mut Layered, chain: &[NodeHandle], ports: &Ports) {
    let (Some(&first), Some(&last)) = (chain.first(), chain.last()) else {
        return;
    };
    let level = vg.dag.level(first);
    if chain.iter().any(|&h| vg.dag.level(h) != level) {
        return;
    }
    let original = vg.dag.row(level).clone();
    let at = |h: NodeHandle| original.iter().position(|&x| x == h);
    let places: Option<Vec<usize>> = chain.iter().map(|&h| at(h)).collect();
    let Some(places) = places else {
        return;
    };
    let in_line = |step: isize| {
        places
            .windows(2)
            .all(|w| w[1] as isize - w[0] as isize == step)
    };
    if in_line(1) || in_line(-1) {
        return;
    }
    let mut scratch = Scratch::new(&vg.dag, ports);
    // Only the crossings next to this rank can change.
    let before = local_crossings(&vg.dag, level, &mut scratch);
    for (stay, far) in [(first, last), (last, first)] {
        let right = at(far) > at(stay);
        // The others in order from `stay` outwards.
        let mut others: Vec<NodeHandle> = chain.iter().copied().filter(|&h| h != stay).collect();
        if stay == last {
            others.reverse();
        }
        let row = vg.dag.row_mut(level);
        row.retain(|h| !others.contains(h));
        let Some(s) = row.iter().position(|&h| h == stay) else {
            break;
        };
        if right {
            row.insert_many(s + 1, others.iter().copied());
        } else {
            row.insert_many(s, others.iter().rev().copied());
        }
        if local_crossings(&vg.dag, level, &mut scratch) <= before {
            return;
        }
        *vg.dag.row_mut(level) = original.clone();
    }
}

/// Swaps neighbours within ranks where that removes crossings, for up to `passes` passes over
/// all ranks (fewer when a pass changes nothing).
fn transpose(vg: &mut Layered, scratch: &mut Scratch, passes: usize) {
    for _ in 0..passes {
        let mut changed = false;
        for i in 0..vg.dag.num_levels() {
            let len = vg.dag.row(i).len();
            for j in 0..len.saturating_sub(1) {
                let before = local_crossings(&vg.dag, i, scratch);
                vg.dag.row_mut(i).swap(j, j + 1);
                if local_crossings(&vg.dag, i, scratch) < before {
                    changed = true;
                } else {
                    vg.dag.row_mut(i).swap(j, j + 1);
                }
            }
        }
        if !changed {
            break;
        }
    }
}

/// The ports of layout edge `from` → `to` (0 at both ends when it has none).
fn port_of(ports: &Ports, from: usize, to: usize) -> (f64, f64) {
    if ports.is_empty() {
        return (0.0, 0.0);
    }
    ports.get(&(from, to)).copied().unwrap_or((0.0, 0.0))
}

/// Buffers the crossing counts reuse: a position per node of the graph (`usize::MAX` when
/// not in the rank at hand, and left that way after each use), and the edges between two
/// ranks, as positions along each (a port moves an end within its box's place).
struct Scratch<'p> {
    pub(super) pos: Vec<usize>,
    pub(super) ends: SmallVec<[(f64, f64); 16]>,
    ports: &'p Ports,
}

impl<'p> Scratch<'p> {
    fn new(dag: &Graph, ports: &'p Ports) -> Scratch<'p> {
        Scratch {
            pos: vec![usize::MAX; dag.len()],
            ends: SmallVec::new(),
            ports,
        }
    }
}

/// Crossings between rank `i` and its neighbours.
fn local_crossings(dag: &Graph, i: usize, scratch: &mut Scratch) -> usize {
    let mut n = 0;
    if i > 0 {
        n += crossings_between(dag, i - 1, scratch);
    }
    if i + 1 < dag.num_levels() {
        n += crossings_between(dag, i, scratch);
    }
    n
}

fn crossings(dag: &Graph, scratch: &mut Scratch) -> usize {
    (0..dag.num_levels().saturating_sub(1))
        .map(|i| crossings_between(dag, i, scratch))
        .sum()
}

/// Edge crossings between rank `i` and rank `i + 1`.
fn crossings_between(dag: &Graph, i: usize, scratch: &mut Scratch) -> usize {
    let Scratch { pos, ends, ports } = scratch;
    // Edges that share an end cannot cross unless ports set them apart within their boxes.
    if ports.is_empty() && (dag.row(i).len() < 2 || dag.row(i + 1).len() < 2) {
        return 0;
    }
    for (p, h) in dag.row(i + 1).iter().enumerate() {
        pos[h.get_index()] = p;
    }
    ends.clear();
    for (p, h) in dag.row(i).iter().enumerate() {
        for s in dag.successors(*h) {
            let q = pos[s.get_index()];
            if q != usize::MAX {
                let (at_p, at_q) = port_of(ports, h.get_index(), s.get_index());
                ends.push((p as f64 + at_p, q as f64 + at_q));
            }
        }
    }
    for h in dag.row(i + 1) {
        pos[h.get_index()] = usize::MAX;
    }
    let mut n = 0;
    for (a, &(p1, q1)) in ends.iter().enumerate() {
        for &(p2, q2) in &ends[a + 1..] {
            if (p1 < p2 && q1 > q2) || (p1 > p2 && q1 < q2) {
                n += 1;
            }
        }
    }
    n
}
