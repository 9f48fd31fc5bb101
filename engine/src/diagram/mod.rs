//! Mermaid diagrams: the flowchart parser (nodes and edges a reviewer can comment on) and its
//! layout.

pub mod flowchart;
mod font_widths;
pub mod layout;
pub mod shapes;
pub mod text;
