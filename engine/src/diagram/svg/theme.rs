//! The light theme, as presentation attributes: the colours (`colour`) and the fixed attributes
//! most elements end with (`paint`). The stylesheet themes each by its class.

/// The light theme, also used where no stylesheet applies.
pub mod colour {
    use crate::diagram::svg::writer::{Plain, Val};
    pub const BG: Val = Val::Plain(Plain::new("#ffffff"));
    /// Written only in `paint::SHAPE`: kept to check it by.
    #[cfg(test)]
    pub const NODE_FILL: Val = Val::Plain(Plain::new("#eef4ff"));
    pub const NODE_LINE: Val = Val::Plain(Plain::new("#4a6fa5"));
    pub const TEXT: Val = Val::Plain(Plain::new("#1f2328"));
    pub const LINE: Val = Val::Plain(Plain::new("#57606a"));
    pub const CLUSTER_FILL: Val = Val::Plain(Plain::new("#f6f8fa"));
    pub const CLUSTER_LINE: Val = Val::Plain(Plain::new("#8c959f"));
    pub const MUTED: Val = Val::Plain(Plain::new("#57606a"));
}

/// The fixed attributes that end most elements, in one piece each: the colours of [`colour`]
/// (a test checks each against the attributes it stands for).
pub mod paint {
    use crate::diagram::line::Stroke;
    use crate::diagram::svg::writer::{Run, run};

    /// A node's outline.
    pub const SHAPE: Run = run!(
        ("class", "pb-d-shape"),
        ("fill", "#eef4ff"),
        ("stroke", "#4a6fa5"),
        ("stroke-width", "1.5"),
    );
    /// A line on a node's face.
    pub const SHAPE_LINE: Run = run!(
        ("class", "pb-d-shape-line"),
        ("fill", "none"),
        ("stroke", "#4a6fa5"),
        ("stroke-width", "1.5"),
    );
    /// A node filled in its outline's colour.
    pub const SHAPE_SOLID: Run = run!(
        ("class", "pb-d-shape-solid"),
        ("fill", "#4a6fa5"),
        ("stroke", "#4a6fa5"),
        ("stroke-width", "1.5"),
    );
    /// A node's face where its outline is not drawn.
    pub const SHAPE_FILL: Run = run!(
        ("class", "pb-d-shape-fill"),
        ("fill", "#eef4ff"),
        ("stroke", "none")
    );
    /// A node's area where nothing is drawn.
    pub const SHAPE_BARE: Run = run!(
        ("class", "pb-d-shape-bare"),
        ("fill", "none"),
        ("stroke", "none")
    );
    /// An arrowhead.
    pub const HEAD: Run = run!(
        ("fill", "#57606a"),
        ("stroke", "#57606a"),
        ("stroke-width", "1")
    );

    /// An edge's line: dashed when dotted, not painted when invisible.
    pub fn line(stroke: Stroke) -> Run {
        match stroke {
            Stroke::Invisible => run!(("fill", "none"), ("stroke", "none"), ("stroke-width", "1")),
            Stroke::Thick => run!(
                ("fill", "none"),
                ("stroke", "#57606a"),
                ("stroke-width", "3")
            ),
            Stroke::Solid => run!(
                ("fill", "none"),
                ("stroke", "#57606a"),
                ("stroke-width", "1.5")
            ),
            Stroke::Dotted => run!(
                ("fill", "none"),
                ("stroke", "#57606a"),
                ("stroke-width", "1.5"),
                ("stroke-dasharray", "3 4"),
            ),
        }
    }
}
