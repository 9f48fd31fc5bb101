use super::clip::{bisect, clip_end, clip_start, crossing};
use super::outline::{Corners, Outline, outline};
use super::*;
use crate::diagram::geometry::{Bounds, Pt};

fn b() -> Bounds {
    Bounds {
        center: Pt::new(100.0, 50.0),
        w: 80.0,
        h: 40.0,
    }
}

#[test]
fn every_outline_contains_its_centre_and_not_far_points() {
    for shape in Shape::ALL {
        let o = outline(shape, b());
        assert!(o.contains(Pt::new(100.0, 50.0)), "{shape:?}");
        assert!(!o.contains(Pt::new(100.0, 200.0)), "{shape:?}");
        assert!(!o.contains(Pt::new(141.0, 50.0)), "{shape:?}");
    }
}

#[test]
fn clipping_lands_on_the_outline() {
    // A rhombus 80 wide: its right corner is at x = 140; a line from the centre going
    // up-right at 45° meets the edge x/40 + y/20 = 1 at x = 40/3 (to a thousandth: the
    // SVG prints tenths).
    let o = outline(Shape::Rhombus, b());
    let mut path = vec![Pt::new(100.0, 50.0), Pt::new(200.0, -50.0)];
    clip_start(&mut path, &o);
    assert!((path[0].x - (100.0 + 40.0 / 3.0)).abs() < 1e-3, "{path:?}");
    // Circle: radius 20 (w = h = 40).
    let c = outline(
        Shape::Circle,
        Bounds {
            center: Pt::new(0.0, 0.0),
            w: 40.0,
            h: 40.0,
        },
    );
    let mut path = vec![Pt::new(-100.0, 0.0), Pt::new(0.0, 0.0)];
    clip_end(&mut path, &c);
    assert!((path[1].x + 20.0).abs() < 1e-3, "{path:?}");
}

#[test]
fn a_label_fits_its_rhombus() {
    let text = Block::new("In edge cache?");
    let (w, h) = size(Shape::Rhombus, &text);
    let o = outline(
        Shape::Rhombus,
        Bounds {
            center: Pt::new(0.0, 0.0),
            w,
            h,
        },
    );
    assert!(o.contains(Pt::new(text.width / 2.0, text.height / 2.0)));
}

#[test]
fn exact_crossings_agree_with_bisection() {
    let mut bits = crate::diagram::xorshift(0x853c_49e6_748f_ea9b);
    let mut next = |m: f64| (bits() >> 11) as f64 / (1u64 << 53) as f64 * m;
    let mut solved = 0;
    for round in 0..4000 {
        // Round sizes and places too, where steps land exactly on the outline.
        let coarse = round % 2 == 0;
        let pick = |v: f64| if coarse { (v * 4.0).round() / 4.0 } else { v };
        let b = Bounds {
            center: Pt::new(pick(next(400.0)), pick(next(400.0))),
            w: pick(1.0 + next(200.0)),
            h: pick(1.0 + next(120.0)),
        };
        for shape in Shape::ALL {
            let o = outline(shape, b);
            let inside = match round % 3 {
                0 => b.center,
                _ => Pt::new(pick(b.left() + next(b.w)), pick(b.top() + next(b.h))),
            };
            let outside = match round % 4 {
                // Straight across or down, as ranked layouts mostly go.
                0 => Pt::new(inside.x, pick(inside.y + next(400.0) - 200.0)),
                1 => Pt::new(pick(inside.x + next(400.0) - 200.0), inside.y),
                _ => Pt::new(pick(next(600.0) - 100.0), pick(next(600.0) - 100.0)),
            };
            let d = outside.minus(inside);
            if o.exit(inside, d).is_some() {
                solved += 1;
            }
            let (got, want) = (crossing(&o, inside, outside), bisect(&o, inside, outside));
            // The bisection stops within a thousandth of the crossing, on its outside.
            assert!(
                got.minus(want).len() <= 1.001e-3,
                "{shape:?} {b:?} {inside:?} → {outside:?}: {got:?}, bisection {want:?}"
            );
        }
    }
    // A star turns the same way at every point but is not convex: not solved.
    let star: Vec<(f64, f64)> = (0..5)
        .map(|k| {
            let a = f64::from(k) * 4.0 * std::f64::consts::PI / 5.0;
            (50.0 * a.cos(), 50.0 * a.sin())
        })
        .collect();
    let o = Outline::Polygon(Corners::new(&star));
    let centre = Pt::new(0.0, 0.0);
    assert_eq!(o.exit(centre, Pt::new(100.0, 30.0)), None);
    let far = Pt::new(100.0, 30.0);
    assert_eq!(crossing(&o, centre, far), bisect(&o, centre, far));
    // Most cases take the exact path (the rest are the bisection itself).
    assert!(solved > 4000 * Shape::ALL.len() / 2, "{solved}");
}
