//! Node shapes: the shapes a node can have, how big each is around its label, its outline
//! (`outline`), the pieces a traced shape is drawn from (`pieces`), and whether a point is
//! inside it and where a line leaves it (`clip`: edges are clipped to the outline).

pub mod clip;
pub mod outline;
pub mod pieces;

use super::geometry::{Bounds, Pt};
use super::text::Block;
use std::f64::consts::SQRT_2;

/// The node shapes of the Mermaid flowchart grammar: by their brackets, then the others of
/// Mermaid's shape table (`@{ shape: … }`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shape {
    /// `A[text]` (and a bare `A`)
    #[default]
    Rect,
    /// `A(text)`
    Round,
    /// `A([text])`
    Stadium,
    /// `A[[text]]`
    Subroutine,
    /// `A[(text)]`
    Cylinder,
    /// `A((text))`
    Circle,
    /// `A(((text)))`
    DoubleCircle,
    /// `A>text]`
    Asymmetric,
    /// `A{text}`
    Rhombus,
    /// `A{{text}}`
    Hexagon,
    /// `A[/text/]`
    Parallelogram,
    /// `A[\text\]`
    ParallelogramAlt,
    /// `A[/text\]`
    Trapezoid,
    /// `A[\text/]`
    TrapezoidAlt,
    /// `@{ shape: notch-rect }` (card)
    NotchedRect,
    /// `@{ shape: lin-rect }` (lined or shaded process)
    LinedRect,
    /// `@{ shape: div-rect }` (divided process)
    DividedRect,
    /// `@{ shape: win-pane }` (internal storage)
    WindowPane,
    /// `@{ shape: tag-rect }` (tagged process)
    TaggedRect,
    /// `@{ shape: st-rect }` (processes)
    StackedRect,
    /// `@{ shape: sl-rect }` (manual input)
    SlopedRect,
    /// `@{ shape: bow-rect }` (stored data)
    BowTieRect,
    /// `@{ shape: notch-pent }` (loop limit)
    LoopLimit,
    /// `@{ shape: delay }` (half-rounded rectangle)
    Delay,
    /// `@{ shape: curv-trap }` (display)
    CurvedTrapezoid,
    /// `@{ shape: doc }`
    Document,
    /// `@{ shape: lin-doc }`
    LinedDocument,
    /// `@{ shape: tag-doc }`
    TaggedDocument,
    /// `@{ shape: docs }` (documents)
    StackedDocument,
    /// `@{ shape: flag }` (paper tape)
    PaperTape,
    /// `@{ shape: h-cyl }` (direct access storage)
    HorizontalCylinder,
    /// `@{ shape: lin-cyl }` (disk)
    LinedCylinder,
    /// `@{ shape: tri }` (extract)
    Triangle,
    /// `@{ shape: flip-tri }` (manual file)
    FlippedTriangle,
    /// `@{ shape: sm-circ }` (start)
    SmallCircle,
    /// `@{ shape: f-circ }` (junction)
    FilledCircle,
    /// `@{ shape: fr-circ }` (stop)
    FramedCircle,
    /// `@{ shape: cross-circ }` (summary)
    CrossedCircle,
    /// `@{ shape: fork }` (join) where ranks run down or up: a bar across
    Fork,
    /// `@{ shape: fork }` where ranks run sideways: a bar upright
    ForkSideways,
    /// `@{ shape: hourglass }` (collate)
    Hourglass,
    /// `@{ shape: bolt }` (communication link)
    Bolt,
    /// `@{ shape: brace }` (comment)
    BraceLeft,
    /// `@{ shape: brace-r }`
    BraceRight,
    /// `@{ shape: braces }`
    Braces,
    /// `@{ shape: text }`: the label alone
    Text,
    /// `@{ shape: datastore }`: lines above and below, open at the sides
    DataStore,
    /// `@{ shape: cloud }`
    Cloud,
    /// `@{ shape: bang }`
    Bang,
}

#[cfg(test)]
impl Shape {
    /// Every shape, for tests and the golden diagrams.
    pub const ALL: [Shape; 49] = [
        Shape::Rect,
        Shape::Round,
        Shape::Stadium,
        Shape::Subroutine,
        Shape::Cylinder,
        Shape::Circle,
        Shape::DoubleCircle,
        Shape::Asymmetric,
        Shape::Rhombus,
        Shape::Hexagon,
        Shape::Parallelogram,
        Shape::ParallelogramAlt,
        Shape::Trapezoid,
        Shape::TrapezoidAlt,
        Shape::NotchedRect,
        Shape::LinedRect,
        Shape::DividedRect,
        Shape::WindowPane,
        Shape::TaggedRect,
        Shape::StackedRect,
        Shape::SlopedRect,
        Shape::BowTieRect,
        Shape::LoopLimit,
        Shape::Delay,
        Shape::CurvedTrapezoid,
        Shape::Document,
        Shape::LinedDocument,
        Shape::TaggedDocument,
        Shape::StackedDocument,
        Shape::PaperTape,
        Shape::HorizontalCylinder,
        Shape::LinedCylinder,
        Shape::Triangle,
        Shape::FlippedTriangle,
        Shape::SmallCircle,
        Shape::FilledCircle,
        Shape::FramedCircle,
        Shape::CrossedCircle,
        Shape::Fork,
        Shape::ForkSideways,
        Shape::Hourglass,
        Shape::Bolt,
        Shape::BraceLeft,
        Shape::BraceRight,
        Shape::Braces,
        Shape::Text,
        Shape::DataStore,
        Shape::Cloud,
        Shape::Bang,
    ];

    /// A stable lowercase name (used in class names).
    pub fn name(self) -> &'static str {
        match self {
            Shape::Rect => "rect",
            Shape::Round => "round",
            Shape::Stadium => "stadium",
            Shape::Subroutine => "subroutine",
            Shape::Cylinder => "cylinder",
            Shape::Circle => "circle",
            Shape::DoubleCircle => "double-circle",
            Shape::Asymmetric => "asymmetric",
            Shape::Rhombus => "rhombus",
            Shape::Hexagon => "hexagon",
            Shape::Parallelogram => "parallelogram",
            Shape::ParallelogramAlt => "parallelogram-alt",
            Shape::Trapezoid => "trapezoid",
            Shape::TrapezoidAlt => "trapezoid-alt",
            Shape::NotchedRect => "notch-rect",
            Shape::LinedRect => "lin-rect",
            Shape::DividedRect => "div-rect",
            Shape::WindowPane => "win-pane",
            Shape::TaggedRect => "tag-rect",
            Shape::StackedRect => "st-rect",
            Shape::SlopedRect => "sl-rect",
            Shape::BowTieRect => "bow-rect",
            Shape::LoopLimit => "notch-pent",
            Shape::Delay => "delay",
            Shape::CurvedTrapezoid => "curv-trap",
            Shape::Document => "doc",
            Shape::LinedDocument => "lin-doc",
            Shape::TaggedDocument => "tag-doc",
            Shape::StackedDocument => "docs",
            Shape::PaperTape => "flag",
            Shape::HorizontalCylinder => "h-cyl",
            Shape::LinedCylinder => "lin-cyl",
            Shape::Triangle => "tri",
            Shape::FlippedTriangle => "flip-tri",
            Shape::SmallCircle => "sm-circ",
            Shape::FilledCircle => "f-circ",
            Shape::FramedCircle => "fr-circ",
            Shape::CrossedCircle => "cross-circ",
            Shape::Fork => "fork",
            Shape::ForkSideways => "fork",
            Shape::Hourglass => "hourglass",
            Shape::Bolt => "bolt",
            Shape::BraceLeft => "brace",
            Shape::BraceRight => "brace-r",
            Shape::Braces => "braces",
            Shape::Text => "text",
            Shape::DataStore => "datastore",
            Shape::Cloud => "cloud",
            Shape::Bang => "bang",
        }
    }
}

const PAD_X: f64 = 14.0;

const PAD_Y: f64 = 9.0;

const MIN_W: f64 = 40.0;

/// The ring of a double circle sits this far outside the inner one.
pub const RING: f64 = 5.0;

/// The cylinder's cap: half the height of its ellipse.
pub(super) fn cylinder_cap(w: f64) -> f64 {
    (w * 0.08).clamp(5.0, 12.0)
}

/// The size of the text a `Rect` node `w` × `h` px holds: [`size`] of a `Rect` around text of
/// this size is `w` × `h` (for `w` of at least 40 px).
pub fn rect_room(w: f64, h: f64) -> (f64, f64) {
    ((w - 2.0 * PAD_X).max(0.0), (h - 2.0 * PAD_Y).max(0.0))
}

/// The width and height of a node of `shape` around `text`.
pub fn size(shape: Shape, text: &Block) -> (f64, f64) {
    let (tw, th) = (text.width, text.height);
    let h = th + 2.0 * PAD_Y;
    let w = (tw + 2.0 * PAD_X).max(MIN_W);
    match shape {
        Shape::Rect | Shape::Round => (w, h),
        Shape::Subroutine => (w + 16.0, h),
        Shape::Stadium => (w + h / 2.0, h),
        Shape::Cylinder => (w, h + 2.0 * cylinder_cap(w)),
        Shape::Circle | Shape::DoubleCircle => {
            let d = (tw.hypot(th) + 12.0).max(MIN_W);
            let d = if shape == Shape::DoubleCircle {
                d + 2.0 * RING
            } else {
                d
            };
            (d, d)
        }
        Shape::Asymmetric => (w + h / 2.0, h),
        Shape::Rhombus => {
            // The label box (a × b) fits a rhombus W × H when a/W + b/H ≤ 1; take H = W / 2.
            let a = tw + 12.0;
            let b = th + 8.0;
            let big_w = (a + 2.0 * b).max(MIN_W + 20.0);
            (big_w, big_w / 2.0)
        }
        Shape::Hexagon => (w + 2.0 * h / 3.0, h),
        Shape::Parallelogram | Shape::ParallelogramAlt | Shape::Trapezoid | Shape::TrapezoidAlt => {
            (w + 2.0 * slant(h), h)
        }
        Shape::NotchedRect => (w + NOTCH / 2.0, h),
        Shape::LinedRect | Shape::BraceLeft | Shape::BraceRight => (w + FRAME, h),
        Shape::Braces => (w + 2.0 * FRAME, h),
        Shape::DividedRect => (w, h + band(h)),
        Shape::WindowPane => (w + PANE, h + PANE),
        Shape::TaggedRect => (w + tag(h), h),
        Shape::StackedRect => (w + 2.0 * STACK, h + 2.0 * STACK),
        Shape::SlopedRect => (w, h + band(h) * 2.0),
        Shape::BowTieRect => (w + 2.0 * bow(h), h),
        Shape::LoopLimit | Shape::Text | Shape::DataStore => (w, h),
        Shape::Cloud | Shape::Bang => {
            // The label's box fits the ellipse √2 times its half-size; the bumps or bites
            // go round that.
            let (rx, ry) = ((tw / 2.0 + 6.0) * SQRT_2, (th / 2.0 + 4.0) * SQRT_2);
            let margin = if shape == Shape::Bang {
                2.0 * SCALLOP
            } else {
                SCALLOP
            };
            (2.0 * (rx + margin), 2.0 * (ry + margin))
        }
        Shape::Delay => (w + h / 2.0, h),
        Shape::CurvedTrapezoid => (w + 0.75 * h, h),
        Shape::Document | Shape::TaggedDocument => (w, h + wave(h)),
        Shape::LinedDocument => (w + FRAME, h + wave(h)),
        Shape::StackedDocument => (w + 2.0 * STACK, h + wave(h) + 2.0 * STACK),
        Shape::PaperTape => (w, h + 2.0 * wave(h)),
        Shape::HorizontalCylinder => (w + 2.0 * cap_across(h), h),
        Shape::LinedCylinder => (w, h + 2.0 * cylinder_cap(w) + LINED),
        Shape::Triangle | Shape::FlippedTriangle => {
            // As Mermaid: as tall as wide, the label in the wide half.
            let side = (tw + th + 2.0 * PAD_X + 2.0).max(MIN_W + 20.0);
            (side, side)
        }
        // Mermaid draws these without their label.
        Shape::SmallCircle | Shape::FilledCircle | Shape::FramedCircle => (14.0, 14.0),
        Shape::CrossedCircle => (44.0, 44.0),
        Shape::Fork => (70.0, 10.0),
        Shape::ForkSideways => (10.0, 70.0),
        Shape::Hourglass => (30.0, 30.0),
        Shape::Bolt => (35.0, 70.0),
    }
}

/// Whether the node's label is drawn: Mermaid leaves it out of its small symbols.
pub fn shows_label(shape: Shape) -> bool {
    !matches!(
        shape,
        Shape::SmallCircle
            | Shape::FilledCircle
            | Shape::FramedCircle
            | Shape::CrossedCircle
            | Shape::Fork
            | Shape::ForkSideways
            | Shape::Hourglass
            | Shape::Bolt
    )
}

/// Whether the node's label stands on its shape's face (not on the page, as a text node's
/// or a brace's does): an author's fill is then behind it.
pub fn label_inside(shape: Shape) -> bool {
    !matches!(
        shape,
        Shape::Text | Shape::BraceLeft | Shape::BraceRight | Shape::Braces
    )
}

/// The centre of the label of a node of `shape` drawn in `b`: off the box's centre where the
/// shape gives part of its box to something else (a cap, a band, the copies behind a stack).
pub fn label_center(shape: Shape, b: Bounds, text_height: f64) -> Pt {
    let h = b.h;
    let (dx, dy) = match shape {
        Shape::Cylinder => (0.0, cylinder_cap(b.w) / 2.0),
        Shape::LinedCylinder => (0.0, (cylinder_cap(b.w) + LINED) / 2.0),
        Shape::LinedRect | Shape::BraceLeft => (FRAME / 2.0, 0.0),
        Shape::BraceRight => (-FRAME / 2.0, 0.0),
        Shape::DividedRect => (0.0, band_of_total(h) / 2.0),
        Shape::WindowPane => (PANE / 2.0, PANE / 2.0),
        Shape::TaggedRect => (-tag(h) / 2.0, 0.0),
        Shape::StackedRect => (-STACK, STACK),
        // The slope rises a third of the height.
        Shape::SlopedRect => (0.0, h / 6.0),
        Shape::Delay => (-h / 4.0, 0.0),
        Shape::CurvedTrapezoid => (-h / 8.0, 0.0),
        Shape::HorizontalCylinder => (-cap_across(h) / 2.0, 0.0),
        Shape::Document | Shape::TaggedDocument => (0.0, -wave_of_total(h) / 2.0),
        Shape::LinedDocument => (FRAME / 2.0, -wave_of_total(h) / 2.0),
        Shape::StackedDocument => {
            let a = wave_of_total(h - 2.0 * STACK);
            (-STACK, STACK - a / 2.0)
        }
        // Near the base, where the triangle is widest.
        Shape::Triangle => (0.0, h / 2.0 - text_height / 2.0 - PAD_Y - 4.0),
        Shape::FlippedTriangle => (0.0, -(h / 2.0 - text_height / 2.0 - PAD_Y - 4.0)),
        _ => (0.0, 0.0),
    };
    b.center.plus(Pt::new(dx, dy))
}

fn slant(h: f64) -> f64 {
    h * 0.4
}

/// How far a cloud's bumps reach out, or a bang's bites in, at most.
const SCALLOP: f64 = 9.0;

/// The cut corner of a card.
const NOTCH: f64 = 12.0;

/// The band at the side of a lined process or lined document, and the room for a brace.
const FRAME: f64 = 8.0;

/// The bands at the top and left of a window pane (internal storage).
const PANE: f64 = 10.0;

/// How far each copy behind a stack (processes, documents) is offset.
const STACK: f64 = 5.0;

/// The gap between a lined cylinder's top and its second line.
const LINED: f64 = 5.0;

/// The band above a divided process's label (a quarter of the label's box); a sloped
/// rectangle rises twice that.
fn band(h: f64) -> f64 {
    h * 0.25
}

/// [`band`] of a divided process whose whole height, band included, is `total`.
fn band_of_total(total: f64) -> f64 {
    total * 0.2
}

/// The height of a document's wave (an eighth of the label's box, as Mermaid).
fn wave(h: f64) -> f64 {
    (h / 8.0).max(3.0)
}

/// [`wave`] of a document whose whole height, wave included, is `total`.
fn wave_of_total(total: f64) -> f64 {
    // h + h/8 = total where the wave is not at its least.
    (total / 9.0).max(3.0).min(total / 2.0)
}

/// The side of a tagged process's corner tag.
fn tag(h: f64) -> f64 {
    (h * 0.3).clamp(6.0, 14.0)
}

/// How far a stored-data shape's curved sides bow.
fn bow(h: f64) -> f64 {
    (h / 6.0).clamp(4.0, 10.0)
}

/// The half-width of a horizontal cylinder's end caps.
fn cap_across(h: f64) -> f64 {
    (h * 0.15).clamp(5.0, 12.0)
}

#[cfg(test)]
mod tests;
