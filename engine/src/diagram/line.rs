//! What a line between two things looks like: its stroke and the markers at its ends. Every
//! kind's model says it in these words (a flowchart edge, a sequence message), and the SVG
//! writer paints it.

/// How an edge's line is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stroke {
    /// `--`
    #[default]
    Solid,
    /// `-.-`
    Dotted,
    /// `==`
    Thick,
    /// `~~~`: takes part in the layout, is not drawn.
    Invisible,
}

/// What an edge's end looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Marker {
    #[default]
    None,
    /// `>` (or `<` at the start)
    Arrow,
    /// `x`
    Cross,
    /// `o`
    Circle,
}
