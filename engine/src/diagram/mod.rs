//! Mermaid diagrams: the flowchart parser (nodes and edges a reviewer can comment on).

pub mod flowchart;
mod font_widths;
pub mod text;
