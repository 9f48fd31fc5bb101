//! The layered graph of one scope, on layout-rs's boxes: its edges and ranks (`Graph`) and
//! each box's place (`Layered`).

use layout::adt::dag::NodeHandle;
use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::format::Visible;
use layout::core::geometry::Point;
use layout::core::geometry::Position;
use layout::core::style::StyleAttr;
use layout::std_shapes::shapes::Element;
use smallvec::SmallVec;

/// Gaps between boxes: (across ranks, along a rank) for a vertical layout.
pub(super) fn halo(horizontal: bool, label: bool) -> Point {
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
pub(super) fn boxed(w: f64, h: f64, halo: Point) -> Position {
    Position::new(Point::zero(), Point::new(w, h), Point::zero(), halo)
}

/// The layered graph of one scope: its edges and ranks (`Graph`) and each box's place, in the
/// part of layout-rs's `VisualGraph` API that `place` uses. A `VisualGraph` keeps a whole
/// `Element` per box, shape and style, which nothing here reads.
pub(super) struct Layered {
    pub(super) dag: Graph,
    positions: Vec<Position>,
    pub(super) orientation: Orientation,
    /// Boxes from this index on are connectors (they are added last).
    first_connector: usize,
    /// A connector's box, once one is made: they are all alike.
    connector: Option<Position>,
}

impl Layered {
    pub(super) fn new(orientation: Orientation, boxes: usize) -> Layered {
        Layered {
            dag: Graph::with_capacity(boxes),
            positions: Vec::with_capacity(boxes),
            orientation,
            first_connector: usize::MAX,
            connector: None,
        }
    }

    pub(super) fn add_node(&mut self, pos: Position) -> NodeHandle {
        self.positions.push(pos);
        self.dag.new_node()
    }

    /// Room for `more` boxes.
    pub(super) fn reserve(&mut self, more: usize) {
        self.positions.reserve_exact(more);
        self.dag.links.reserve_exact(more);
    }

    /// Adds a connector, the small box a long edge passes a rank through, at the end of rank
    /// `level`.
    pub(super) fn add_connector(&mut self, level: usize) -> NodeHandle {
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

    pub(super) fn num_nodes(&self) -> usize {
        self.positions.len()
    }

    pub(super) fn is_connector(&self, h: NodeHandle) -> bool {
        h.get_index() >= self.first_connector
    }

    pub(super) fn orientation(&self) -> Orientation {
        self.orientation
    }

    pub(super) fn pos(&self, h: NodeHandle) -> Position {
        self.positions[h.get_index()]
    }

    pub(super) fn pos_mut(&mut self, h: NodeHandle) -> &mut Position {
        &mut self.positions[h.get_index()]
    }

    /// Swaps the axes of every box (a left-to-right layout is placed top to bottom).
    pub(super) fn transpose(&mut self) {
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
pub(super) struct Graph {
    links: Vec<Links>,
    pub(super) ranks: Vec<Rank>,
}

/// One rank's boxes, in order: a small chart's ranks hold a few each, kept inline.
pub(super) type Rank = SmallVec<[NodeHandle; 4]>;

#[derive(Default)]
struct Links {
    pub(super) successors: SmallVec<[NodeHandle; 2]>,
    pub(super) predecessors: SmallVec<[NodeHandle; 2]>,
}

impl Graph {
    fn with_capacity(boxes: usize) -> Graph {
        Graph {
            links: Vec::with_capacity(boxes),
            ranks: Vec::new(),
        }
    }

    /// A new box, in no rank yet (`rank_nodes` ranks them all).
    pub(super) fn new_node(&mut self) -> NodeHandle {
        self.links.push(Links::default());
        NodeHandle::new(self.links.len() - 1)
    }

    pub(super) fn len(&self) -> usize {
        self.links.len()
    }

    pub(super) fn add_edge(&mut self, from: NodeHandle, to: NodeHandle) {
        self.links[from.get_index()].successors.push(to);
        self.links[to.get_index()].predecessors.push(from);
    }

    /// Removes the first edge from `from` to `to`, keeping the others in order.
    pub(super) fn remove_edge(&mut self, from: NodeHandle, to: NodeHandle) {
        let succ = &mut self.links[from.get_index()].successors;
        if let Some(at) = succ.iter().position(|&h| h == to) {
            succ.remove(at);
        }
        let pred = &mut self.links[to.get_index()].predecessors;
        if let Some(at) = pred.iter().position(|&h| h == from) {
            pred.remove(at);
        }
    }

    pub(super) fn successors(&self, h: NodeHandle) -> &[NodeHandle] {
        &self.links[h.get_index()].successors
    }

    pub(super) fn predecessors(&self, h: NodeHandle) -> &[NodeHandle] {
        &self.links[h.get_index()].predecessors
    }

    pub(super) fn num_levels(&self) -> usize {
        self.ranks.len()
    }

    pub(super) fn row(&self, level: usize) -> &Rank {
        &self.ranks[level]
    }

    pub(super) fn row_mut(&mut self, level: usize) -> &mut Rank {
        &mut self.ranks[level]
    }

    pub(super) fn ranks(&self) -> &[Rank] {
        &self.ranks
    }

    pub(super) fn ranks_mut(&mut self) -> &mut Vec<Rank> {
        &mut self.ranks
    }

    /// The rank `h` is in. Panics when it is in none (`guarded` catches it).
    pub(super) fn level(&self, h: NodeHandle) -> usize {
        self.ranks
            .iter()
            .position(|row| row.contains(&h))
            .expect("every box is ranked")
    }

    /// Sets each ranked box's rank in `levels`, for passes that ask often: `level` looks
    /// through the ranks.
    pub(super) fn fill_levels(&self, levels: &mut [usize]) {
        for (level, row) in self.ranks.iter().enumerate() {
            for h in row {
                levels[h.get_index()] = level;
            }
        }
    }

    /// Moves `h` to the end of rank `level`.
    pub(super) fn update_node_rank_level(&mut self, h: NodeHandle, level: usize) {
        let from = self.level(h);
        self.move_node(h, from, level);
    }

    /// Moves `h` from rank `from` to the end of rank `level`.
    pub(super) fn move_node(&mut self, h: NodeHandle, from: usize, level: usize) {
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
