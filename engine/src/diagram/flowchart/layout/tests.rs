use super::attempt::midpoint;
use super::graph::{Graph, Rank};
use super::rank::{Search, Spans, rank_nodes, sink_nodes};
use super::spread::Fit;
use super::*;
use crate::diagram::flowchart;
use crate::diagram::shapes;
use layout::adt::dag::NodeHandle;

use layout::adt::dag::DAG;

/// Our graph and layout-rs's, with `n` boxes and `edges` added in order.
fn both(n: usize, edges: &[(usize, usize)]) -> (Graph, DAG) {
    let mut ours = Graph::default();
    let mut theirs = DAG::new();
    theirs.set_validate(false);
    for _ in 0..n {
        ours.new_node();
        theirs.new_node();
    }
    for &(a, b) in edges {
        ours.add_edge(NodeHandle::new(a), NodeHandle::new(b));
        theirs.add_edge(NodeHandle::new(a), NodeHandle::new(b));
    }
    (ours, theirs)
}

fn as_vecs(ranks: &[Rank]) -> Vec<Vec<NodeHandle>> {
    ranks.iter().map(|r| r.to_vec()).collect()
}

#[test]
fn the_search_answers_as_layout_rs_does() {
    // Small pseudo-random graphs (cycles allowed), every pair asked both ways: the answers
    // must be layout-rs's, which are right but slow.
    let mut bits = crate::diagram::xorshift(0x2545_f491);
    let mut next = |m: u64| (bits() % m) as usize;
    let mut search = Search::default();
    for _ in 0..200 {
        let n = 1 + next(9);
        let edges: Vec<(usize, usize)> = (0..next(2 * n as u64 + 1))
            .map(|_| (next(n as u64), next(n as u64)))
            .collect();
        let (ours, theirs) = both(n, &edges);
        for a in (0..n).map(NodeHandle::new) {
            for b in (0..n).map(NodeHandle::new) {
                assert_eq!(search.reaches(&ours, a, b), theirs.is_reachable(a, b));
            }
        }
    }
}

/// Small pseudo-random DAGs on up to 12 boxes (edges follow a shuffled order, with
/// repeats and self-edges).
fn random_dags(seed: u64, count: usize) -> Vec<(usize, Vec<(usize, usize)>)> {
    let mut bits = crate::diagram::xorshift(seed);
    let mut next = |m: u64| (bits() % m) as usize;
    (0..count)
        .map(|_| {
            let n = 1 + next(12);
            let mut order: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                order.swap(i, next(i as u64 + 1));
            }
            let edges = (0..next(3 * n as u64 + 1))
                .map(|_| {
                    let (a, b) = (next(n as u64), next(n as u64));
                    (order[a.min(b)], order[a.max(b)])
                })
                .collect();
            (n, edges)
        })
        .collect()
}

#[test]
fn nodes_are_ranked_as_layout_rs_ranks_them() {
    for (n, edges) in random_dags(0x1234_5678, 300) {
        let (mut ours, mut theirs) = both(n, &edges);
        assert!(rank_nodes(&mut ours, &Spans::default(), 1).is_some());
        theirs.recompute_node_ranks();
        assert_eq!(as_vecs(ours.ranks()), *theirs.ranks(), "{edges:?}");
    }
    // A cycle is refused.
    let (mut dag, _) = both(2, &[(0, 1), (1, 0)]);
    assert_eq!(rank_nodes(&mut dag, &Spans::default(), 1), None);
}

#[test]
fn nodes_sink_as_layout_rs_sinks_them() {
    // Without longer links, `sink_nodes` moves boxes as layout-rs's `RankOptimizer`
    // does, box for box and in the same order within each rank.
    for (n, edges) in random_dags(0x0bad_cafe, 300) {
        // (`place` adds no self-edge, which would hold its box in layout-rs's optimizer.)
        let edges: Vec<(usize, usize)> = edges.into_iter().filter(|(a, b)| a != b).collect();
        let (mut ours, mut theirs) = both(n, &edges);
        let mut levels = rank_nodes(&mut ours, &Spans::default(), 1).expect("a DAG");
        sink_nodes(&mut ours, &Spans::default(), 1, &mut levels);
        theirs.recompute_node_ranks();
        layout::topo::optimizer::RankOptimizer::new(&mut theirs).optimize();
        assert_eq!(as_vecs(ours.ranks()), *theirs.ranks(), "{edges:?}");
    }
}

/// Solves one rank: per box (half width, points as (at, weight)).
fn fit(boxes: &[(f64, &[(f64, f64)])], stay: bool, now: &[f64]) -> Vec<f64> {
    let mut f = Fit::default();
    for (k, (half, points)) in boxes.iter().enumerate() {
        f.start_box(*half, now.get(k).copied().unwrap_or(0.0));
        for &(at, w) in *points {
            f.point(at, w);
        }
    }
    f.solve(stay).collect()
}

#[test]
fn a_rank_fit_keeps_order_and_room_and_goes_to_weighted_medians() {
    // Room for both: each box goes to its median (the heavier pull wins).
    let x = fit(
        &[(5.0, &[(0.0, 1.0), (30.0, 3.0)]), (5.0, &[(100.0, 1.0)])],
        false,
        &[],
    );
    assert_eq!(x, vec![30.0, 100.0]);
    // Both want 50: they share it, touching, around the pooled median.
    let x = fit(
        &[(10.0, &[(50.0, 1.0)]), (10.0, &[(50.0, 1.0)])],
        false,
        &[],
    );
    assert_eq!(x, vec![40.0, 60.0]);
    // In the wrong order: the heavier box keeps its place, the other is pushed aside.
    let x = fit(&[(10.0, &[(80.0, 1.0)]), (10.0, &[(0.0, 5.0)])], false, &[]);
    assert_eq!(x, vec![-20.0, 0.0]);
    // Two equal pulls: the middle, or with `stay` the current place if it lies between.
    let x = fit(&[(5.0, &[(0.0, 1.0), (100.0, 1.0)])], false, &[]);
    assert_eq!(x, vec![50.0]);
    let x = fit(&[(5.0, &[(0.0, 1.0), (100.0, 1.0)])], true, &[20.0]);
    assert_eq!(x, vec![20.0]);
    let x = fit(&[(5.0, &[(0.0, 1.0), (100.0, 1.0)])], true, &[130.0]);
    assert_eq!(x, vec![100.0]);
}

#[test]
fn a_rank_fit_never_overlaps_or_reorders() {
    let mut bits = crate::diagram::xorshift(0x9e37_79b9);
    let mut next = |m: u64| (bits() % m) as f64;
    for _ in 0..300 {
        let n = 1 + next(12) as usize;
        let boxes: Vec<(f64, Vec<(f64, f64)>)> = (0..n)
            .map(|_| {
                let points = (0..next(4) as usize + 1)
                    .map(|_| (next(400) - 200.0, 1.0 + next(8)))
                    .collect();
                (1.0 + next(40), points)
            })
            .collect();
        let refs: Vec<(f64, &[(f64, f64)])> = boxes.iter().map(|(h, p)| (*h, &p[..])).collect();
        let x = fit(&refs, next(2) == 1.0, &[]);
        for k in 1..n {
            let room = boxes[k - 1].0 + boxes[k].0;
            assert!(x[k] - x[k - 1] >= room - 1e-9, "{x:?}");
        }
    }
}

fn centre_of(c: &Flowchart, d: &Drawing, id: &str) -> Pt {
    let i = c.nodes.iter().position(|n| n.id == id).expect("node");
    d.nodes[i].as_ref().expect("a box").bounds.center
}

#[test]
fn chains_run_straight_and_parents_sit_over_their_children() {
    let c =
        chart("graph TD\nA[A wide first box] --> B\nB --> C[Third]\nC --> D & E\nD --> F\nE --> F");
    let d = layout(&c).expect("drawn");
    let x = |id: &str| centre_of(&c, &d, id).x;
    assert!((x("A") - x("B")).abs() < 0.5 && (x("B") - x("C")).abs() < 0.5);
    assert!((x("C") - (x("D") + x("E")) / 2.0).abs() < 0.5);
    assert!((x("F") - x("C")).abs() < 0.5);
    assert!(x("D") < x("E"));
    // Left to right, the same across y.
    let c = chart("graph LR\nA --> B\nB --> C\nA --> C");
    let d = layout(&c).expect("drawn");
    let y = |id: &str| centre_of(&c, &d, id).y;
    assert!((y("A") - y("C")).abs() < 0.5, "{} {}", y("A"), y("C"));
}

#[test]
fn a_subgraph_linked_to_the_outside_runs_its_parents_way() {
    // Mermaid's docs example: both subgraphs say `direction TB`; a link to subgraph1 itself
    // keeps it, a link into subgraph2's node makes it run left to right like the chart.
    let c = chart(
        "flowchart LR\nsubgraph subgraph1\ndirection TB\ntop1[top] --> bottom1[bottom]\nend\nsubgraph subgraph2\ndirection TB\ntop2[top] --> bottom2[bottom]\nend\noutside --> subgraph1\noutside ---> top2",
    );
    let d = layout(&c).expect("drawn");
    let at = |id: &str| centre_of(&c, &d, id);
    assert!((at("top1").x - at("bottom1").x).abs() < 0.5);
    assert!(at("top1").y < at("bottom1").y);
    assert!((at("top2").y - at("bottom2").y).abs() < 0.5);
    assert!(at("top2").x < at("bottom2").x);
    // A link between two members of one subgraph is not a link out.
    let c = chart("flowchart LR\nsubgraph S\ndirection TB\na --> b\nend\nx --> S");
    let d = layout(&c).expect("drawn");
    let at = |id: &str| centre_of(&c, &d, id);
    assert!((at("a").x - at("b").x).abs() < 0.5 && at("a").y < at("b").y);
}

#[test]
fn a_forks_bar_lies_across_the_ranks_of_its_own_subgraph() {
    let shape_of = |src: &str, id: &str| {
        let c = chart(src);
        let d = layout(&c).expect("drawn");
        let i = c.nodes.iter().position(|n| n.id == id).expect("the node");
        let n = d.nodes[i].as_ref().expect("placed");
        (n.shape, n.bounds.w > n.bounds.h)
    };
    // The chart's direction, and a subgraph's own where it keeps it.
    assert_eq!(
        shape_of("flowchart TD\nF@{ shape: fork } --> B", "F"),
        (Shape::Fork, true)
    );
    assert_eq!(
        shape_of("flowchart LR\nF@{ shape: fork } --> B", "F"),
        (Shape::ForkSideways, false)
    );
    let inside =
        "flowchart TD\nsubgraph S\ndirection LR\nA --> F@{ shape: fork } --> B\nend\nX --> S";
    assert_eq!(shape_of(inside, "F"), (Shape::ForkSideways, false));
    // A subgraph linked out runs its parent's way, and so does its fork.
    let linked =
        "flowchart TD\nsubgraph S\ndirection LR\nA --> F@{ shape: fork } --> B\nend\nX --> A";
    assert_eq!(shape_of(linked, "F"), (Shape::Fork, true));
}

#[test]
fn a_long_edge_runs_straight_through_its_connectors() {
    // A → E skips three ranks: between its ends it is one straight run.
    let c = chart("graph TD\nA --> B --> C --> D --> E\nA --> E\nB --> X --> Y --> Z");
    let d = layout(&c).expect("drawn");
    let e = d
        .edges
        .iter()
        .zip(&c.edges)
        .find(|(_, ce)| c.id_of(ce.from) == "A" && c.id_of(ce.to) == "E")
        .map(|(e, _)| e)
        .expect("A --> E");
    let inner = &e.points[1..e.points.len() - 1];
    assert!(inner.len() >= 2, "{:?}", e.points);
    assert!(
        inner.iter().all(|p| (p.x - inner[0].x).abs() < 0.5),
        "{:?}",
        e.points
    );
}

fn chart(src: &str) -> Flowchart {
    flowchart::parse::parse(src)
        .expect("a flowchart")
        .expect("readable")
}

#[test]
fn a_panicking_layout_is_retried_without_label_boxes_then_given_up() {
    let c = chart("graph TD\nA -->|yes| B\nA --> C");
    let plan = Plan::new(&c);
    let flaky = |p: &Plan, label_boxes: bool| {
        assert!(!label_boxes, "layout-rs fell over");
        draw(p, label_boxes)
    };
    let d = guarded(&plan, &flaky).expect("the retry draws");
    // Without label boxes the label sits halfway along its edge.
    let (at, _) = d.edges[0].label.clone().expect("a label");
    let mid = midpoint(&d.edges[0].points);
    assert!(at.minus(mid).len() < 1e-9);
    let broken = |_: &Plan, _: bool| -> Option<Drawing> { panic!("always") };
    assert_eq!(guarded(&plan, &broken).err(), Some(Failure::LayoutFailed));
}

#[test]
fn subgraph_boxes_hold_their_members_and_edges_end_on_outlines() {
    let c = chart("flowchart TB\nx --> a\nsubgraph S [Group]\na[One] --> b{Two}\nend\ny --> S");
    let d = layout(&c).expect("drawn");
    let s = d.clusters[0].bounds;
    let node = |id: &str| {
        let i = c.nodes.iter().position(|n| n.id == id).expect("node");
        d.nodes[i].as_ref().expect("a box").bounds
    };
    for id in ["a", "b"] {
        let n = node(id);
        assert!(s.left() < n.left() && n.right() < s.right(), "{id}");
        assert!(s.top() < n.top() && n.bottom() < s.bottom(), "{id}");
    }
    for id in ["x", "y"] {
        assert!(!s.overlaps(&node(id)), "{id}");
    }
    // The subgraph's id is drawn as the subgraph, not as a box.
    let si = c.nodes.iter().position(|n| n.id == "S").expect("S");
    assert!(d.nodes[si].is_none());
    // a → b ends on the rhombus outline of b.
    let e = &d.edges[1];
    let end = *e.points.last().expect("points");
    let b = node("b");
    let o = shapes::outline::outline(Shape::Rhombus, b);
    let out = e.points[e.points.len() - 2]
        .minus(end)
        .unit()
        .expect("a direction");
    assert!(o.contains(end.minus(out.scale(0.5))));
    assert!(!o.contains(end.plus(out.scale(0.5))));
    // y → S ends on the subgraph's border.
    let end = *d.edges[2].points.last().expect("points");
    let on_border = (end.y - s.top()).abs() < 0.01
        || (end.y - s.bottom()).abs() < 0.01
        || (end.x - s.left()).abs() < 0.01
        || (end.x - s.right()).abs() < 0.01;
    assert!(on_border, "{end:?} {s:?}");
}

#[test]
fn bottom_up_and_right_left_are_mirrored() {
    let down = layout(&chart("graph TD\nA --> B")).expect("drawn");
    let up = layout(&chart("graph BT\nA --> B")).expect("drawn");
    let y = |d: &Drawing, i: usize| d.nodes[i].as_ref().expect("box").bounds.center.y;
    assert!(y(&down, 0) < y(&down, 1));
    assert!(y(&up, 0) > y(&up, 1));
    let right = layout(&chart("graph LR\nA --> B")).expect("drawn");
    let left = layout(&chart("graph RL\nA --> B")).expect("drawn");
    let x = |d: &Drawing, i: usize| d.nodes[i].as_ref().expect("box").bounds.center.x;
    assert!(x(&right, 0) < x(&right, 1));
    assert!(x(&left, 0) > x(&left, 1));
}
