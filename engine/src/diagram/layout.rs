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

use super::flowchart::{Direction, Flowchart, Shape};
use super::shapes::{self, Bounds, Outline, Pt};
use super::text::Block;
use layout::adt::dag::NodeHandle;
use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::format::Visible;
use layout::core::geometry::{Point, Position, do_boxes_intersect};
use layout::core::style::StyleAttr;
use layout::std_shapes::shapes::Element;
use layout::topo::placer::EPSILON;
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
    if chart.nodes.len() > MAX_NODES || chart.edges.len() > MAX_EDGES {
        return Err(Failure::TooLarge);
    }
    let plan = Plan::new(chart);
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
    super::route::avoid_boxes(chart, &mut d);
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

/// One layout attempt. Its labels have their sizes but no lines (see `sized_as`).
fn draw(plan: &Plan, label_boxes: bool) -> Option<Drawing> {
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
                (shapes::outline(plan.shape(i), b), b)
            }
            Item::Cluster(s) => {
                let b = clusters[s].bounds;
                (shapes::outline(Shape::Rect, b), b)
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
            Routing::Direct => vec![ba.center, bb.center],
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
        shapes::clip_start(&mut points, &oa);
        shapes::clip_end(&mut points, &ob);
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
fn midpoint(points: &[Pt]) -> Pt {
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

/// Gaps between boxes: (across ranks, along a rank) for a vertical layout.
fn halo(horizontal: bool, label: bool) -> Point {
    match (horizontal, label) {
        (_, true) => Point::new(16.0, 12.0),
        (false, false) => Point::new(36.0, 44.0),
        (true, false) => Point::new(56.0, 26.0),
    }
}

/// The layout engine never draws, so the style is only a placeholder: `StyleAttr::simple()`'s
/// values, which it would look up by colour name for every box.
fn style() -> StyleAttr {
    StyleAttr::new(
        Color::new(0x0000_00ff),
        2,
        Some(Color::new(0xffff_ffff)),
        0,
        15,
    )
}

/// A box of `w` × `h` with room `halo` around it, not placed yet.
fn boxed(w: f64, h: f64, halo: Point) -> Position {
    Position::new(Point::zero(), Point::new(w, h), Point::zero(), halo)
}

/// The layered graph of one scope: its edges and ranks (`Graph`) and each box's place, in the
/// part of layout-rs's `VisualGraph` API that `place` uses. A `VisualGraph` keeps a whole
/// `Element` per box, shape and style, which nothing here reads.
struct Layered {
    dag: Graph,
    positions: Vec<Position>,
    orientation: Orientation,
    /// Boxes from this index on are connectors (they are added last).
    first_connector: usize,
    /// A connector's box, once one is made: they are all alike.
    connector: Option<Position>,
}

impl Layered {
    fn new(orientation: Orientation, boxes: usize) -> Layered {
        Layered {
            dag: Graph::with_capacity(boxes),
            positions: Vec::with_capacity(boxes),
            orientation,
            first_connector: usize::MAX,
            connector: None,
        }
    }

    fn add_node(&mut self, pos: Position) -> NodeHandle {
        self.positions.push(pos);
        self.dag.new_node()
    }

    /// Room for `more` boxes.
    fn reserve(&mut self, more: usize) {
        self.positions.reserve_exact(more);
        self.dag.links.reserve_exact(more);
    }

    /// Adds a connector, the small box a long edge passes a rank through, at the end of rank
    /// `level`.
    fn add_connector(&mut self, level: usize) -> NodeHandle {
        self.first_connector = self.first_connector.min(self.positions.len());
        // `Element::empty_connector` sized as layout-rs sizes it, without its colour lookups.
        let orientation = self.orientation;
        let pos = *self.connector.get_or_insert_with(|| {
            let mut connector = Element::create_connector("", &style(), orientation);
            connector.resize();
            connector.pos
        });
        let c = self.add_node(pos);
        self.dag.ranks[level].push(c);
        c
    }

    fn num_nodes(&self) -> usize {
        self.positions.len()
    }

    fn is_connector(&self, h: NodeHandle) -> bool {
        h.get_index() >= self.first_connector
    }

    fn orientation(&self) -> Orientation {
        self.orientation
    }

    fn pos(&self, h: NodeHandle) -> Position {
        self.positions[h.get_index()]
    }

    fn pos_mut(&mut self, h: NodeHandle) -> &mut Position {
        &mut self.positions[h.get_index()]
    }

    /// Swaps the axes of every box (a left-to-right layout is placed top to bottom).
    fn transpose(&mut self) {
        for p in &mut self.positions {
            p.transpose();
        }
    }
}

/// A scope's layout graph as layout-rs's `DAG` keeps one: per box its layout edges out and
/// in, each list in the order its edges were added, and the ranks, each a list of boxes in
/// order. A `DAG` gives each box two lists of its own on the heap; here a box's first few
/// edges are kept inline, so a small chart's graph is a few allocations, not a few per box.
#[derive(Default)]
struct Graph {
    links: Vec<Links>,
    ranks: Vec<Rank>,
}

/// One rank's boxes, in order: a small chart's ranks hold a few each, kept inline.
type Rank = SmallVec<[NodeHandle; 4]>;

#[derive(Default)]
struct Links {
    successors: SmallVec<[NodeHandle; 2]>,
    predecessors: SmallVec<[NodeHandle; 2]>,
}

impl Graph {
    fn with_capacity(boxes: usize) -> Graph {
        Graph {
            links: Vec::with_capacity(boxes),
            ranks: Vec::new(),
        }
    }

    /// A new box, in no rank yet (`rank_nodes` ranks them all).
    fn new_node(&mut self) -> NodeHandle {
        self.links.push(Links::default());
        NodeHandle::new(self.links.len() - 1)
    }

    fn len(&self) -> usize {
        self.links.len()
    }

    fn add_edge(&mut self, from: NodeHandle, to: NodeHandle) {
        self.links[from.get_index()].successors.push(to);
        self.links[to.get_index()].predecessors.push(from);
    }

    /// Removes the first edge from `from` to `to`, keeping the others in order.
    fn remove_edge(&mut self, from: NodeHandle, to: NodeHandle) {
        let succ = &mut self.links[from.get_index()].successors;
        if let Some(at) = succ.iter().position(|&h| h == to) {
            succ.remove(at);
        }
        let pred = &mut self.links[to.get_index()].predecessors;
        if let Some(at) = pred.iter().position(|&h| h == from) {
            pred.remove(at);
        }
    }

    fn successors(&self, h: NodeHandle) -> &[NodeHandle] {
        &self.links[h.get_index()].successors
    }

    fn predecessors(&self, h: NodeHandle) -> &[NodeHandle] {
        &self.links[h.get_index()].predecessors
    }

    fn num_levels(&self) -> usize {
        self.ranks.len()
    }

    fn row(&self, level: usize) -> &Rank {
        &self.ranks[level]
    }

    fn row_mut(&mut self, level: usize) -> &mut Rank {
        &mut self.ranks[level]
    }

    fn ranks(&self) -> &[Rank] {
        &self.ranks
    }

    fn ranks_mut(&mut self) -> &mut Vec<Rank> {
        &mut self.ranks
    }

    /// The rank `h` is in. Panics when it is in none (`guarded` catches it).
    fn level(&self, h: NodeHandle) -> usize {
        self.ranks
            .iter()
            .position(|row| row.contains(&h))
            .expect("every box is ranked")
    }

    /// Sets each ranked box's rank in `levels`, for passes that ask often: `level` looks
    /// through the ranks.
    fn fill_levels(&self, levels: &mut [usize]) {
        for (level, row) in self.ranks.iter().enumerate() {
            for h in row {
                levels[h.get_index()] = level;
            }
        }
    }

    /// Moves `h` to the end of rank `level`.
    fn update_node_rank_level(&mut self, h: NodeHandle, level: usize) {
        let from = self.level(h);
        self.move_node(h, from, level);
    }

    /// Moves `h` from rank `from` to the end of rank `level`.
    fn move_node(&mut self, h: NodeHandle, from: usize, level: usize) {
        let at = self.ranks[from].iter().position(|&x| x == h);
        if let Some(at) = at {
            self.ranks[from].remove(at);
        }
        if self.ranks.len() <= level {
            self.ranks.resize_with(level + 1, Rank::new);
        }
        self.ranks[level].push(h);
    }
}

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
fn place(
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
            let from_box = shapes::outline(Shape::Rect, item_box(f, &centers));
            let to_box = shapes::outline(Shape::Rect, item_box(t, &centers));
            pts[0] = shapes::crossing(&from_box, pts[0], pts[1]);
            pts[n - 1] = shapes::crossing(&to_box, pts[n - 1], pts[n - 2]);
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

/// What layout-rs's `Placer::layout(true)` does to these graphs, without its copies of every
/// rank: each rank's boxes are centred on its depth (the ranks stacked, each as deep as its
/// deepest box) and packed from 0 in rank order. Its pass that moves connector labels between
/// ranks has nothing to move here (no connector has a label). Its check that each rank's boxes
/// are apart and in order is kept: `None` where it would panic.
///
/// A rank marked `between` (see `place`) holds label boxes and the connectors passing them: it
/// is as deep as its label boxes.
fn pack_ranks(vg: &mut Layered, between: &[bool]) -> Option<()> {
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
fn spread(vg: &mut Layered, horizontal: bool, first_waypoint: usize) {
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
struct Fit {
    boxes: Vec<FitBox>,
    /// (position, weight), shifted in `solve` and sorted pool by pool in `median`.
    points: Vec<(f64, f64)>,
    /// Pooled runs of boxes: (first box, end box, optimum).
    pools: Vec<(usize, usize, f64)>,
}

struct FitBox {
    half: f64,
    /// Where it is now, shifted in `solve`.
    now: f64,
    /// Where its points start in `points`.
    first: usize,
    /// Where `solve` puts it.
    at: f64,
}

impl Fit {
    fn with_capacity(boxes: usize, points: usize) -> Fit {
        Fit {
            boxes: Vec::with_capacity(boxes),
            points: Vec::with_capacity(points),
            pools: Vec::with_capacity(boxes),
        }
    }

    fn clear(&mut self) {
        self.boxes.clear();
        self.points.clear();
    }

    fn start_box(&mut self, half: f64, now: f64) {
        self.boxes.push(FitBox {
            half,
            now,
            first: self.points.len(),
            at: now,
        });
    }

    fn point(&mut self, at: f64, weight: f64) {
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
    fn solve(&mut self, stay: bool) -> impl Iterator<Item = f64> + '_ {
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

/// Ranks the nodes as layout-rs's `DAG::recompute_node_ranks` does (each node on the rank of
/// the longest path reaching it, each rank in node order), without its traversal's lists.
/// `None` on a cycle, where layout-rs panics (`place` breaks every cycle first); else each
/// node's rank.
fn rank_nodes(dag: &mut Graph, long: &Spans, step: usize) -> Option<Vec<usize>> {
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
struct Spans(SmallVec<[((usize, usize), usize); 4]>);

impl Spans {
    /// Asks for at least `span` ranks for `edge`.
    fn ask(&mut self, edge: (usize, usize), span: usize) {
        match self.0.binary_search_by_key(&edge, |&(e, _)| e) {
            Ok(i) => self.0[i].1 = self.0[i].1.max(span),
            Err(i) => self.0.insert(i, (edge, span)),
        }
    }

    fn get(&self, edge: (usize, usize)) -> Option<usize> {
        let i = self.0.binary_search_by_key(&edge, |&(e, _)| e).ok()?;
        Some(self.0[i].1)
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Moves each node down as far as its successors and the spans to them allow, where it has
/// no more predecessors than successors (so fewer edges run long), until nothing moves: what
/// layout-rs's `RankOptimizer` does, but keeping each edge's span (`long`, else `step`).
/// `levels` holds each node's rank, and is kept up to date.
fn sink_nodes(dag: &mut Graph, long: &Spans, step: usize, levels: &mut [usize]) {
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
struct Search {
    /// Inline for a small chart's graph.
    seen: SmallVec<[bool; 32]>,
    stack: SmallVec<[NodeHandle; 8]>,
}

impl Search {
    /// Whether `to` can be reached from `from` (a node reaches itself).
    fn reaches(&mut self, dag: &Graph, from: NodeHandle, to: NodeHandle) -> bool {
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

/// Per layout edge `(from, to)` (node indices) that leaves or reaches a subgraph on behalf of a
/// member: where along the rank it does so at each end, as a fraction of the box (see
/// `member_ports`). Edges not listed leave from and arrive at their boxes' middles.
type Ports = std::collections::HashMap<(usize, usize), (f64, f64)>;

/// Orders each rank to reduce crossings: barycentre sweeps down and up, keeping the best
/// order seen, then adjacent swaps that remove crossings. Bounded work, unlike layout-rs's
/// own pass (cubic in the width of a rank, 50 rounds), which dominated the time. Edges that
/// leave or reach a subgraph's box count from their member's side of it (`ports`).
fn order_ranks(vg: &mut Layered, ports: &Ports) {
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
fn adjoin(vg: &mut Layered, chain: &[NodeHandle], ports: &Ports) {
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
    pos: Vec<usize>,
    ends: SmallVec<[(f64, f64); 16]>,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagram::flowchart;

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
        let c = chart(
            "graph TD\nA[A wide first box] --> B\nB --> C[Third]\nC --> D & E\nD --> F\nE --> F",
        );
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
        flowchart::parse(src)
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
        let o = shapes::outline(Shape::Rhombus, b);
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
}
