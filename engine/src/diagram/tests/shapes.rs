//! Every node shape: drawn with an outline of its own, and edges end on it whichever way they
//! come.

use crate::diagram::flowchart::{self, layout};
use crate::diagram::geometry::{Bounds, Pt};
use crate::diagram::shapes::{self, Shape};
use crate::diagram::svg::shape::shape_markup;
use crate::diagram::text::Block;

#[test]
fn every_shape_draws_its_own_outline() {
    let b = Bounds {
        center: Pt::new(100.0, 50.0),
        w: 80.0,
        h: 40.0,
    };
    let mut drawn: Vec<(Shape, String)> = Vec::new();
    for shape in Shape::ALL {
        let markup = shape_markup(shape, b);
        assert!(markup.contains("pb-d-shape"), "{shape:?}: {markup}");
        // The two ways a fork's bar lies are one outline in a box of the same size.
        if shape == Shape::ForkSideways {
            assert_eq!(markup, shape_markup(Shape::Fork, b));
            continue;
        }
        if let Some((other, _)) = drawn.iter().find(|(_, m)| *m == markup) {
            panic!("{shape:?} is drawn as {other:?}");
        }
        drawn.push((shape, markup));
    }
    // Sized for a label, the bar lies across the ranks.
    let text = Block::new("Fork");
    let (w, h) = shapes::size(Shape::Fork, &text);
    assert_eq!(shapes::size(Shape::ForkSideways, &text), (h, w));
    assert!(w > h);
}

#[test]
fn every_shape_holds_its_label_and_stays_in_its_box() {
    let text = Block::new("Multiple documents");
    for shape in Shape::ALL {
        let (w, h) = shapes::size(shape, &text);
        let b = Bounds {
            center: Pt::new(300.0, 200.0),
            w,
            h,
        };
        let o = shapes::outline::outline(shape, b);
        // Everything drawn lies in the box the layout keeps free for it.
        for piece in shapes::pieces::pieces(shape, b).unwrap_or_default() {
            for p in piece.points {
                assert!(
                    p.x >= b.left() - 1e-9
                        && p.x <= b.right() + 1e-9
                        && p.y >= b.top() - 1e-9
                        && p.y <= b.bottom() + 1e-9,
                    "{shape:?}: {p:?} outside {b:?}"
                );
            }
        }
        if !shapes::shows_label(shape) {
            continue;
        }
        // The label's corners, pulled in a little (the rhombus's corners only just fit).
        let c = shapes::label_center(shape, b, text.height);
        let (hw, hh) = (text.width / 2.0 - 2.0, text.height / 2.0 - 2.0);
        for (dx, dy) in [(-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh)] {
            let p = Pt::new(c.x + dx, c.y + dy);
            assert!(
                o.contains(p),
                "{shape:?}: the label's corner {p:?} is outside"
            );
        }
    }
}

/// Checks that every end of an edge at `node` lies on its outline: a hundredth of a pixel on
/// along the edge is inside, as much back is outside.
fn ends_on_outline(d: &layout::Drawing, node: usize, shape: Shape) -> usize {
    let n = d.nodes[node].as_ref().expect("a node");
    assert_eq!(n.shape, shape);
    let o = shapes::outline::outline(shape, n.bounds);
    let mut ends = 0;
    for e in &d.edges {
        let k = e.points.len();
        for (end, before) in [
            (e.points[0], e.points[1]),
            (e.points[k - 1], e.points[k - 2]),
        ] {
            // Only the ends in this node's box are its own.
            let near = Bounds {
                w: n.bounds.w + 1.0,
                h: n.bounds.h + 1.0,
                ..n.bounds
            };
            if !near.contains(end) {
                continue;
            }
            let along = end.minus(before).unit().expect("a segment");
            let (inner, outer) = (end.plus(along.scale(0.01)), end.minus(along.scale(0.01)));
            assert!(
                o.contains(inner) && !o.contains(outer),
                "{shape:?}: an edge ends at {end:?}, not on the outline of {:?}",
                n.bounds
            );
            ends += 1;
        }
    }
    ends
}

#[test]
fn edges_end_on_the_outline_of_every_shape() {
    for shape in Shape::ALL {
        for dir in ["TD", "LR"] {
            // Edges into the shape from above and beside, and out of it below.
            let src =
                format!("flowchart {dir}\nA --> S\nB --> S\nC --> S\nS --> D\nS --> E\nA --> D");
            let mut chart = flowchart::parse::parse(&src)
                .expect("a flowchart")
                .expect("read");
            let s = chart.nodes.iter().position(|n| n.id == "S").expect("S");
            chart.nodes[s].shape = shape;
            let d = layout::layout(&chart).expect("laid out");
            // A fork's bar is drawn across the ranks, whichever way it was given.
            let drawn = match shape {
                Shape::Fork | Shape::ForkSideways if dir == "LR" => Shape::ForkSideways,
                Shape::Fork | Shape::ForkSideways => Shape::Fork,
                _ => shape,
            };
            assert_eq!(ends_on_outline(&d, s, drawn), 5, "{shape:?} {dir}");
        }
    }
}
