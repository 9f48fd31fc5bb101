//! Places a flowchart: node boxes sized from their labels, ranks on `layout-rs`'s layered graph
//! (longest-path ranks as it assigns them, worked out by `rank_nodes`; the order within ranks is
//! ours, see `order_ranks`, and so is where boxes go across the ranks, see `spread`), subgraphs
//! as boxes of their own, and edge routes clipped to shapes.
//!
//! Subgraphs are laid out inside out: each subgraph's members are laid out on their own, and
//! the result becomes one box in the enclosing layout. So a subgraph's box holds exactly its
//! members: the enclosing layout never places anything else inside it. An edge that crosses
//! a subgraph's border is routed to the border in the enclosing layout, then straight to the
//! member. Where that member lies deep enough in its subgraph, the edge does not put its
//! ends' boxes one after the other: they may share a rank, as they would with every node
//! ranked together (see `flat_edges`).
//!
//! `layout-rs` only knows boxes: labels become boxes of their measured size in the middle of
//! their edge (so they get room and never sit on a node), and every shape's outline is ours.
//! It panics on some inputs (an empty graph, some of its own label splits): every run is
//! guarded (`guarded`), and a failed run is retried without label boxes.
//!
//! - `attempt`: one layout attempt, every scope placed inside out and the drawing assembled;
//! - `place`: one scope's boxes placed, with `graph` (the layered graph), `rank` (ranks),
//!   `order` (the order within ranks) and `spread` (where boxes go across the ranks);
//! - `reroute`: edges that pass through a box routed again around it.

mod attempt;
mod graph;
mod order;
mod place;
mod rank;
mod reroute;
mod spread;

use super::{Direction, Flowchart};
use crate::diagram::geometry::{Bounds, Pt};
use crate::diagram::shapes::Shape;
use crate::diagram::text::Block;
use attempt::draw;
use smallvec::SmallVec;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Larger diagrams are not drawn (the source is shown instead).
pub const MAX_NODES: usize = 150;

pub const MAX_EDGES: usize = 300;

/// Nor is a subgraph or chart whose layout needs more boxes than this, counting label boxes
/// and one connector per rank a long edge crosses: placement time grows faster than linearly
/// (about 5 ms for 250, 0.5 s for 2,500).
pub const MAX_LAYOUT_BOXES: usize = 1000;

/// Space around the whole drawing.
const MARGIN: f64 = 8.0;

/// Space between a subgraph's border and its contents.
const CLUSTER_PAD: f64 = 12.0;

/// How far a self-loop reaches out of its node.
const LOOP_REACH: f64 = 26.0;

/// Padding around an edge label (its background).
pub const LABEL_PAD_X: f64 = 4.0;

pub const LABEL_PAD_Y: f64 = 2.0;

/// Everything the SVG writer needs, in one coordinate system with the origin at the top left.
#[derive(Debug, Clone)]
pub struct Drawing {
    pub width: f64,
    pub height: f64,
    /// Per chart node: its box, or `None` for a subgraph's id (drawn as the subgraph).
    pub nodes: Vec<Option<NodeBox>>,
    /// Per chart subgraph.
    pub clusters: Vec<ClusterBox>,
    /// Per chart edge.
    pub edges: Vec<EdgePath>,
}

#[derive(Debug, Clone)]
pub struct NodeBox {
    pub bounds: Bounds,
    pub shape: Shape,
    pub text: Block,
}

#[derive(Debug, Clone)]
pub struct ClusterBox {
    pub bounds: Bounds,
    pub title: Block,
}

#[derive(Debug, Clone)]
pub struct EdgePath {
    /// From the outline of the start to the outline of the end; at least two points.
    pub points: Vec<Pt>,
    /// Where the label's centre goes.
    pub label: Option<(Pt, Block)>,
    /// The direction ranks run in where this edge was routed: bends follow it.
    pub axis: Pt,
    /// Routed around boxes: drawn as lines between the points with each bend rounded as far as
    /// the boxes beside it allow, not as the layout's curve through them.
    pub straight: bool,
}

/// Why a flowchart was not drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// More nodes or edges than `MAX_NODES` / `MAX_EDGES`, or a layout of more than
    /// `MAX_LAYOUT_BOXES` boxes.
    TooLarge,
    /// The layout engine failed on this graph, with and without label boxes.
    LayoutFailed,
}

/// Something a layout places: a node, or a subgraph as one box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    Node(usize),
    Cluster(usize),
}

/// One edge as the layout of one scope sees it.
#[derive(Debug, Clone)]
struct ScopeEdge {
    edge: usize,
    from: Item,
    to: Item,
}

/// How each chart edge is routed.
#[derive(Debug, Clone, Copy)]
enum Routing {
    /// By the layout of scope `.0`, as its edge `.1`.
    Scope(usize, usize),
    /// Both ends are the same box at every level (an edge between a subgraph and its own
    /// member): a straight line.
    Direct,
    /// From a node (or subgraph) in scope `.0` to itself (that scope's layout reserves its
    /// room; the loop is drawn by hand).
    SelfLoop(usize),
}

/// One thing per node or edge of a chart: a small chart's are kept inline.
type Few<T> = SmallVec<[T; 8]>;

/// One thing per scope. Most charts have no subgraphs, so one scope: kept inline.
type PerScope<T> = SmallVec<[T; 1]>;

/// The scope tree: scope 0 is the whole chart, scope `s + 1` is subgraph `s`.
struct Plan<'c> {
    chart: &'c Flowchart,
    /// Per node: the subgraph it names, if any; empty when the chart has no subgraphs (see
    /// `names_cluster`).
    names_cluster: Vec<Option<usize>>,
    /// Per node: the scope it sits in; empty when the chart has no subgraphs (see `node_scope`).
    node_scope: Vec<usize>,
    items: PerScope<Vec<Item>>,
    edges: PerScope<Vec<ScopeEdge>>,
    routing: Vec<Routing>,
    node_text: Vec<Block>,
    cluster_title: Vec<Block>,
    /// Per edge: its label, measured once for every layout attempt and the drawing.
    edge_label: Vec<Option<Block>>,
    /// Per edge: what its ends stand for (`thing`), looked up once for the plan and every
    /// layout attempt.
    ends: Vec<(Item, Item)>,
    /// Set when a layout gave up for `MAX_LAYOUT_BOXES`.
    too_large: std::cell::Cell<bool>,
    /// Per subgraph: whether an edge joins something inside it to something outside. Such a
    /// subgraph ignores its own `direction`, as Mermaid's flowchart docs say, and runs its
    /// parent's way.
    linked_out: Vec<bool>,
}

impl<'c> Plan<'c> {
    fn new(chart: &'c Flowchart) -> Plan<'c> {
        let n_scopes = chart.subgraphs.len() + 1;
        // Without subgraphs no node names one, and every node is in scope 0: nothing to store.
        let (names_cluster, node_scope) = if chart.subgraphs.is_empty() {
            (Vec::new(), Vec::new())
        } else {
            let names_cluster: Vec<Option<usize>> = chart
                .nodes
                .iter()
                .map(|n| chart.subgraph_named(&n.id))
                .collect();
            let mut node_scope = vec![0; chart.nodes.len()];
            for (s, sub) in chart.subgraphs.iter().enumerate() {
                for m in &sub.members {
                    if let Some(i) = chart.nodes.iter().position(|n| &n.id == m) {
                        node_scope[i] = s + 1;
                    }
                }
            }
            (names_cluster, node_scope)
        };
        let mut plan = Plan {
            chart,
            node_text: chart.nodes.iter().map(|n| Block::new(&n.label)).collect(),
            cluster_title: chart
                .subgraphs
                .iter()
                .map(|s| Block::new(&s.title))
                .collect(),
            edge_label: chart
                .edges
                .iter()
                .map(|e| e.label.as_deref().map(Block::new))
                .collect(),
            names_cluster,
            node_scope,
            items: scoped(n_scopes, chart.nodes.len()),
            edges: scoped(n_scopes, chart.edges.len()),
            routing: Vec::with_capacity(chart.edges.len()),
            ends: Vec::with_capacity(chart.edges.len()),
            too_large: std::cell::Cell::new(false),
            linked_out: vec![false; chart.subgraphs.len()],
        };
        for i in 0..chart.nodes.len() {
            if plan.names_cluster(i).is_none() {
                let s = plan.node_scope(i);
                plan.items[s].push(Item::Node(i));
            }
        }
        for (s, sub) in chart.subgraphs.iter().enumerate() {
            plan.items[sub.parent.map_or(0, |p| p + 1)].push(Item::Cluster(s));
        }
        for (e, edge) in chart.edges.iter().enumerate() {
            let (a, b) = (plan.thing(edge.from), plan.thing(edge.to));
            plan.ends.push((a, b));
            if a == b {
                let s = plan.scope_of(a);
                plan.routing.push(Routing::SelfLoop(s));
                plan.edges[s].push(ScopeEdge {
                    edge: e,
                    from: a,
                    to: a,
                });
                continue;
            }
            plan.mark_linked_out(a, b);
            let l = plan.common_scope(plan.scope_of(a), plan.scope_of(b));
            let (ra, rb) = (plan.rep(a, l), plan.rep(b, l));
            if ra == rb {
                plan.routing.push(Routing::Direct);
            } else {
                plan.routing.push(Routing::Scope(l, plan.edges[l].len()));
                plan.edges[l].push(ScopeEdge {
                    edge: e,
                    from: ra,
                    to: rb,
                });
            }
        }
        plan
    }

    /// What node `i` stands for in the drawing.
    fn thing(&self, i: usize) -> Item {
        match self.names_cluster(i) {
            Some(s) => Item::Cluster(s),
            None => Item::Node(i),
        }
    }

    /// The subgraph node `i` names, if any.
    fn names_cluster(&self, i: usize) -> Option<usize> {
        self.names_cluster.get(i).copied().flatten()
    }

    /// The scope node `i` sits in.
    fn node_scope(&self, i: usize) -> usize {
        self.node_scope.get(i).copied().unwrap_or(0)
    }

    /// Marks every subgraph that holds one end of an edge from `a` to `b` but not the other. A
    /// subgraph as an end is the whole box, in its parent: a link to it is not a link out.
    fn mark_linked_out(&mut self, a: Item, b: Item) {
        let (sa, sb) = (self.scope_of(a), self.scope_of(b));
        let common = self.common_scope(sa, sb);
        for start in [sa, sb] {
            let mut s = start;
            while s != common && s > 0 {
                self.linked_out[s - 1] = true;
                s = self.parent_scope(s).unwrap_or(0);
            }
        }
    }

    /// The way ranks run in `scope`: its subgraph's own (unless an edge links it out), or else
    /// its parent's.
    fn direction(&self, scope: usize) -> Direction {
        let mut s = scope;
        while s > 0 {
            let sub = &self.chart.subgraphs[s - 1];
            if let Some(d) = sub.direction.filter(|_| !self.linked_out[s - 1]) {
                return d;
            }
            s = sub.parent.map_or(0, |p| p + 1);
        }
        self.chart.direction
    }

    /// Node `i`'s shape as drawn: a fork's bar lies across the way ranks run in its scope.
    fn shape(&self, i: usize) -> Shape {
        match self.chart.nodes[i].shape {
            Shape::Fork | Shape::ForkSideways
                if self.direction(self.node_scope(i)).is_horizontal() =>
            {
                Shape::ForkSideways
            }
            Shape::ForkSideways => Shape::Fork,
            shape => shape,
        }
    }

    fn scope_of(&self, item: Item) -> usize {
        match item {
            Item::Node(i) => self.node_scope(i),
            Item::Cluster(s) => self.chart.subgraphs[s].parent.map_or(0, |p| p + 1),
        }
    }

    fn parent_scope(&self, scope: usize) -> Option<usize> {
        (scope > 0).then(|| self.chart.subgraphs[scope - 1].parent.map_or(0, |p| p + 1))
    }

    /// The innermost scope holding both `a` and `b`.
    fn common_scope(&self, a: usize, b: usize) -> usize {
        let mut s = b;
        loop {
            // Whether `s` is `a` or encloses it: walked up each time (nesting is shallow).
            let mut t = a;
            loop {
                if t == s {
                    return s;
                }
                match self.parent_scope(t) {
                    Some(p) => t = p,
                    None => break,
                }
            }
            match self.parent_scope(s) {
                Some(p) => s = p,
                None => return 0,
            }
        }
    }

    /// The item of `scope` that holds `item` (itself, or an enclosing subgraph).
    fn rep(&self, mut item: Item, scope: usize) -> Item {
        loop {
            let s = self.scope_of(item);
            if s == scope || s == 0 {
                return item;
            }
            item = Item::Cluster(s - 1);
        }
    }
}

/// `scopes` empty lists, the first (the whole chart's, where most of `all` go) with room for
/// `all`: filled without growing in a chart without subgraphs.
fn scoped<T>(scopes: usize, all: usize) -> PerScope<Vec<T>> {
    let mut lists = PerScope::with_capacity(scopes);
    lists.push(Vec::with_capacity(all));
    lists.resize_with(scopes, Vec::new);
    lists
}

/// One scope laid out, in its own coordinates with the top left of its content at (0, 0).
#[derive(Debug, Clone, Default)]
struct Placed {
    /// Per item of the scope.
    centers: Vec<Pt>,
    /// The edges' routes, one after another (see `PlacedEdge::route`).
    points: Vec<Pt>,
    /// Per edge of the scope.
    edges: Vec<PlacedEdge>,
    width: f64,
    height: f64,
    /// Per item of a subgraph's scope: its rank, counting node ranks only (not the half ranks
    /// of label boxes); empty for the whole chart's scope, where nothing asks.
    ranks: Vec<usize>,
}

#[derive(Debug, Clone)]
struct PlacedEdge {
    /// Where its route (box border to box border through the bends) lies in `points`.
    route: std::ops::Range<usize>,
    /// The centre of its label box.
    label_at: Option<Pt>,
}

/// Lays out `chart`, trying label boxes first, then plain edges; `Err` when both fail or the
/// chart is over the caps.
pub fn layout(chart: &Flowchart) -> Result<Drawing, Failure> {
    layout_with(chart, None)
}

/// [`layout`], with node `i` of `Shape::Rect` a box `sizes[i]` px (width, height) whatever its
/// label, and every edge given `end_room` px more along the ranks than its label takes, so
/// its ends have room for markers: for a kind whose boxes hold more than a label (an ER
/// entity's table). Its boxes' `text` is blank and its edges' label blocks are the room
/// reserved: such a kind draws its boxes' contents and its labels itself.
pub fn layout_sized(
    chart: &Flowchart,
    sizes: &[(f64, f64)],
    end_room: f64,
) -> Result<Drawing, Failure> {
    layout_with(chart, Some((sizes, end_room)))
}

fn layout_with(chart: &Flowchart, sized: Option<(&[(f64, f64)], f64)>) -> Result<Drawing, Failure> {
    if chart.nodes.len() > MAX_NODES || chart.edges.len() > MAX_EDGES {
        return Err(Failure::TooLarge);
    }
    let mut plan = Plan::new(chart);
    if let Some((sizes, room)) = sized {
        for (text, &(w, h)) in plan.node_text.iter_mut().zip(sizes) {
            let (width, height) = crate::diagram::shapes::rect_room(w, h);
            *text = Block {
                text: String::new(),
                width,
                height,
            };
        }
        let sideways = chart.direction.is_horizontal();
        for label in &mut plan.edge_label {
            let b = label.get_or_insert_with(|| Block {
                text: String::new(),
                width: 0.0,
                height: 0.0,
            });
            if sideways {
                b.width += 2.0 * room;
            } else {
                b.height += 2.0 * room;
            }
        }
    }
    let mut d = guarded(&plan, &draw)?;
    // The drawing's labels are their sizes only: their lines move in from the plan.
    let Plan {
        node_text,
        cluster_title,
        edge_label,
        ..
    } = plan;
    for (n, text) in d.nodes.iter_mut().zip(node_text) {
        if let Some(n) = n {
            n.text = text;
        }
    }
    for (c, title) in d.clusters.iter_mut().zip(cluster_title) {
        c.title = title;
    }
    for (e, label) in d.edges.iter_mut().zip(edge_label) {
        if let (Some((_, l)), Some(label)) = (&mut e.label, label) {
            *l = label;
        }
    }
    reroute::avoid_boxes(chart, &mut d);
    Ok(d)
}

/// A block of `b`'s size without its lines, for a drawing that may be dropped (`layout`
/// moves the lines in once one is kept).
fn sized_as(b: &Block) -> Block {
    Block {
        text: String::new(),
        width: b.width,
        height: b.height,
    }
}

/// Runs `attempt` with label boxes, then without, catching panics; the first drawing wins.
fn guarded(
    plan: &Plan,
    attempt: &dyn Fn(&Plan, bool) -> Option<Drawing>,
) -> Result<Drawing, Failure> {
    for label_boxes in [true, false] {
        if let Ok(Some(d)) = catch_unwind(AssertUnwindSafe(|| attempt(plan, label_boxes))) {
            return Ok(d);
        }
        if plan.too_large.get() {
            return Err(Failure::TooLarge);
        }
    }
    Err(Failure::LayoutFailed)
}

/// Per edge of `scope`: where along its end boxes' cross axis (the axis a rank runs along) it
/// leaves and arrives, as a fraction of the box from -0.5 to 0.5, when that end is a subgraph
/// standing for one of its members (`placed` holds the subgraph's own layout), and 0 otherwise.
/// Ordering the ranks with these keeps two edges into one subgraph from crossing at its border
/// on the way to their members. Empty when no edge of the scope has such an end.
fn member_ports(plan: &Plan, scope: usize, placed: &[Placed]) -> Vec<(f64, f64)> {
    let edges = &plan.edges[scope];
    if !edges
        .iter()
        .any(|se| matches!(se.from, Item::Cluster(_)) || matches!(se.to, Item::Cluster(_)))
    {
        return Vec::new();
    }
    let horizontal = plan.direction(scope).is_horizontal();
    let offset = |end: Item, real: Item| -> f64 {
        let Item::Cluster(s) = end else {
            return 0.0;
        };
        if real == end {
            return 0.0;
        }
        let inner = plan.rep(real, s + 1);
        let (Some(k), Some(p)) = (
            plan.items[s + 1].iter().position(|&i| i == inner),
            placed.get(s + 1),
        ) else {
            return 0.0;
        };
        let Some(c) = p.centers.get(k) else {
            return 0.0;
        };
        let (at, extent) = if horizontal {
            (c.y, p.height)
        } else {
            (c.x, p.width)
        };
        if extent > 0.0 {
            (at / extent - 0.5).clamp(-0.45, 0.45)
        } else {
            0.0
        }
    };
    edges
        .iter()
        .map(|se| {
            let (a, b) = plan.ends[se.edge];
            (offset(se.from, a), offset(se.to, b))
        })
        .collect()
}

/// Per edge of `scope`: whether its end boxes may share a rank, the edge running across the
/// rank between them. They may where it stands for an edge into or out of a subgraph's
/// member and the member it reaches lies at least the link's length deeper in its box than
/// the one it leaves does in its own (a node of the scope is at depth 0 in itself): with
/// every node ranked together, as in mermaid.js, the two boxes would start on one rank (a
/// label's box then sits on that rank between them). Empty when no edge of the scope stands
/// for a member's.
fn flat_edges(plan: &Plan, scope: usize, placed: &[Placed]) -> Vec<bool> {
    let edges = &plan.edges[scope];
    let for_member = |end: Item, real: Item| matches!(end, Item::Cluster(_)) && real != end;
    if !edges.iter().any(|se| {
        let (a, b) = plan.ends[se.edge];
        for_member(se.from, a) || for_member(se.to, b)
    }) {
        return Vec::new();
    }
    edges
        .iter()
        .map(|se| {
            let (a, b) = plan.ends[se.edge];
            let length = plan.chart.edges[se.edge].length;
            se.from != se.to
                && member_rank(plan, se.to, b, placed)
                    >= member_rank(plan, se.from, a, placed) + length
        })
        .collect()
}

/// The rank of `real` inside `end` (0 when `end` is `real` itself), through every subgraph
/// between, counting node ranks.
fn member_rank(plan: &Plan, end: Item, real: Item, placed: &[Placed]) -> usize {
    let mut rank = 0;
    let mut at = end;
    while let Item::Cluster(s) = at {
        if at == real {
            break;
        }
        let inner = plan.rep(real, s + 1);
        let k = plan.items[s + 1].iter().position(|&i| i == inner);
        rank += k
            .and_then(|k| placed.get(s + 1)?.ranks.get(k).copied())
            .unwrap_or(0);
        at = inner;
    }
    rank
}

#[cfg(test)]
mod tests;
