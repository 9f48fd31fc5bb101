//! An ER diagram placed by the flowchart's layout: each entity a box the size of its table
//! (its name above, then one row per attribute in columns of type, name, keys and comment,
//! the columns no attribute fills left out), the relationships the chart's edges.

use super::ErDiagram;
use crate::diagram::flowchart::layout::{self, Drawing, Failure};
use crate::diagram::text::{Block, width};

/// Height of one attribute's row, px.
pub const ROW_H: f64 = 24.0;
/// Space left and right of a cell's text, px.
pub const CELL_PAD: f64 = 10.0;
/// Space above and below the entity's name, px.
pub const HEADER_PAD: f64 = 8.0;
/// The room a relationship's line needs at each end for its marker, px.
pub const END_ROOM: f64 = 22.0;
/// The narrowest entity box, px.
const MIN_W: f64 = 100.0;

/// One entity's table: its name and the width of each column (type, name, keys, comment; 0
/// for a column no attribute fills).
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub header: Block,
    pub header_h: f64,
    pub cols: [f64; 4],
    pub w: f64,
    pub h: f64,
}

/// The keys of an attribute as its cell shows them: `PK, FK`.
pub fn keys_text(keys: &[super::Key]) -> String {
    keys.iter()
        .map(|k| k.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A type as its cell shows it: Mermaid's generic `List~string~` as `List<string>`.
pub fn type_text(ty: &str) -> std::borrow::Cow<'_, str> {
    if !ty.contains('~') {
        return std::borrow::Cow::Borrowed(ty);
    }
    // `~` in pairs: the first of each pair opens, the second closes; an odd last one stays.
    let pairs = ty.matches('~').count() / 2;
    let mut out = String::with_capacity(ty.len());
    let mut seen = 0;
    for c in ty.chars() {
        match c {
            '~' if seen < 2 * pairs => {
                out.push(if seen % 2 == 0 { '<' } else { '>' });
                seen += 1;
            }
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Each entity's table, measured.
pub fn tables(d: &ErDiagram) -> Vec<Table> {
    d.chart
        .nodes
        .iter()
        .zip(&d.entities)
        .map(|(n, e)| {
            let header = Block::new(&n.label);
            let header_h = header.height + 2.0 * HEADER_PAD;
            let mut cols = [0.0f64; 4];
            for a in &e.attributes {
                let cells = [
                    width(&type_text(&a.ty)),
                    width(&a.name),
                    if a.keys.is_empty() {
                        0.0
                    } else {
                        width(&keys_text(&a.keys))
                    },
                    if a.comment.is_empty() {
                        0.0
                    } else {
                        width(&a.comment)
                    },
                ];
                for (c, w) in cols.iter_mut().zip(cells) {
                    *c = c.max(w);
                }
            }
            for c in &mut cols {
                if *c > 0.0 {
                    *c += 2.0 * CELL_PAD;
                }
            }
            let sum: f64 = cols.iter().sum();
            let w = sum.max(header.width + 4.0 * CELL_PAD).max(MIN_W);
            // The room left over goes to the last column shown.
            if let Some(last) = cols.iter_mut().rev().find(|c| **c > 0.0) {
                *last += w - sum;
            }
            let h = header_h + ROW_H * e.attributes.len() as f64;
            Table {
                header,
                header_h,
                cols,
                w,
                h,
            }
        })
        .collect()
}

/// The diagram laid out, each entity's box its table's size.
pub fn layout(d: &ErDiagram) -> Result<Drawing, Failure> {
    let sizes: Vec<(f64, f64)> = tables(d).iter().map(|t| (t.w, t.h)).collect();
    layout::layout_sized(&d.chart, &sizes, END_ROOM)
}
