//! The SVG of a laid-out sequence diagram, written with the SVG writer (so escaped by
//! construction, with the same colours, classes and accessible name and description).
//!
//! Each participant is a `data-node` group and each message a `data-edge` group keyed
//! `FROM→TO`, `FROM→TO#2`, … as flowchart edges are: the comment UI and the export treat
//! both kinds alike.

use super::colour::colour_parts;
use super::describe::describe;
use super::layout::{BADGE_R, Drawing, Rect};
use super::{Frame as Kind, Head, Kind as Who, Line, Sequence};
use crate::diagram::geometry::{Bounds, Pt};
use crate::diagram::line::Stroke;
use crate::diagram::shapes::{Shape, cylinder_cap};
use crate::diagram::svg::label::lines;
use crate::diagram::svg::number::{push_path, push_pt};
use crate::diagram::svg::shape::shape_element;
use crate::diagram::svg::theme::{colour, paint};
use crate::diagram::svg::writer::plain;
use crate::diagram::svg::writer::run;
use crate::diagram::svg::writer::{Plain, Run, Val, Writer};
use crate::diagram::svg::{Frame, start};
use crate::diagram::text::Block;

/// A note's paint (yellow, as notes are): the stylesheet themes it by `pb-s-note`.
const NOTE: Run = run!(
    ("class", "pb-s-note"),
    ("fill", "#fff8c5"),
    ("stroke", "#9a6700"),
    ("stroke-width", "1"),
);

/// An activation bar.
const BAR: Run = run!(
    ("class", "pb-s-bar"),
    ("fill", "#f6f8fa"),
    ("stroke", "#4a6fa5"),
    ("stroke-width", "1"),
);

/// A frame's outline (`loop`, `alt`, …).
const FRAME: Run = run!(
    ("class", "pb-s-frame"),
    ("fill", "none"),
    ("stroke", "#8c959f"),
    ("stroke-width", "1.5"),
);

/// A lifeline.
const LIFELINE: Run = run!(
    ("class", "pb-s-lifeline"),
    ("fill", "none"),
    ("stroke", "#8c959f"),
    ("stroke-width", "1"),
    ("stroke-dasharray", "4 4"),
);

/// A participant's hit area and extent, not painted.
const HIT: Run = run!(("class", "pb-s-head"), ("fill", "none"), ("stroke", "none"));

const MESSAGE_TEXT: Plain = Plain::new("pb-d-label pb-s-msg-text");

const NOTE_TEXT: Plain = Plain::new("pb-d-text pb-s-note-text");

const NAME_TEXT: Plain = Plain::new("pb-d-text pb-s-name");

const FRAME_TEXT: Plain = Plain::new("pb-d-cluster-title pb-s-frame-text");

const TAB_TEXT: Plain = Plain::new("pb-d-cluster-title pb-s-tab-text");

const GROUP_TEXT: Plain = Plain::new("pb-d-cluster-title pb-s-group-text");

const COLOURED_GROUP_TEXT: Plain = Plain::new("pb-d-text pb-s-group-text");

/// The least relative luminance of a background under the diagram's text (#1f2328) for a
/// contrast of 4.5:1.
const LEAST_LUMINANCE: f64 = 0.25;

/// The SVG of a laid-out sequence diagram, and its width and height, px.
pub fn sequence(seq: &Sequence, d: &Drawing, f: &Frame) -> (String, u32, u32) {
    let mut w = Writer::with_capacity(2048 + 512 * (d.arrows.len() + d.heads.len()));
    let title = seq
        .acc_title
        .as_deref()
        .or(seq.title.as_deref())
        .unwrap_or(f.title);
    let mut desc = String::new();
    if let Some(a) = &seq.acc_descr {
        desc.push_str(a);
        desc.push(' ');
    }
    desc.push_str(&describe(seq, f.t));
    let frame = Frame { title, ..*f };
    let (width, height) = start(
        &mut w,
        &frame,
        const { Plain::new("pb-mermaid pb-mermaid-sequence") },
        d.width,
        d.height,
        &desc,
    );
    for (r, t, colour) in &d.groups {
        w.open("g", &[("class", plain!("pb-s-group"))]);
        w.newline();
        let class = match colour {
            Some(_) => plain!("pb-s-coloured"),
            None => plain!("pb-d-cluster-box"),
        };
        rect(&mut w, class, *r, colour.as_deref());
        if let Some((cx, cy, b)) = t {
            // On the source's colour the title takes the text's colour, which keeps its
            // contrast on any tint `rect` lays down.
            match colour {
                Some(_) => lines(
                    &mut w,
                    COLOURED_GROUP_TEXT,
                    colour::TEXT,
                    b,
                    Pt::new(*cx, *cy),
                ),
                None => lines(&mut w, GROUP_TEXT, colour::MUTED, b, Pt::new(*cx, *cy)),
            }
        }
        w.close("g");
        w.newline();
    }
    // `rect` highlights under everything else.
    for fr in d.frames.iter().filter(|f| f.kind == Kind::Rect) {
        let class = match fr.colour {
            Some(_) => plain!("pb-s-coloured pb-s-rect"),
            None => plain!("pb-d-cluster-box pb-s-rect"),
        };
        rect(&mut w, class, fr.rect, fr.colour.as_deref());
    }
    for h in &d.heads {
        let (x, y0, y1) = h.lifeline;
        let p =
            |s: &mut String| push_path(s, &[("M", &[Pt::new(x, y0)]), (" L", &[Pt::new(x, y1)])]);
        w.leaf_painted("path", &[("d", Val::Ours(&p))], LIFELINE);
    }
    for b in &d.bars {
        painted_rect(&mut w, *b, BAR);
    }
    for fr in d.frames.iter().filter(|f| f.kind != Kind::Rect) {
        w.open("g", &[("class", plain!("pb-s-block"))]);
        w.newline();
        let r = fr.rect;
        painted_rect(&mut w, r, FRAME);
        let tab = fr.tab;
        let th = super::layout::TAB_H;
        let corners = [
            Pt::new(r.x, r.y),
            Pt::new(r.x + tab, r.y),
            Pt::new(r.x + tab, r.y + th - 6.0),
            Pt::new(r.x + tab - 6.0, r.y + th),
            Pt::new(r.x, r.y + th),
        ];
        let pts = |s: &mut String| push_path(s, &[("", corners.as_slice())]);
        w.leaf(
            "polygon",
            &[
                ("class", plain!("pb-d-cluster-box pb-s-tab")),
                ("points", Val::Ours(&pts)),
                ("fill", colour::CLUSTER_FILL),
                ("stroke", colour::CLUSTER_LINE),
                ("stroke-width", plain!("1")),
            ],
        );
        let name = Block::wrapped(fr.kind.name(), f64::INFINITY);
        lines(
            &mut w,
            TAB_TEXT,
            colour::MUTED,
            &name,
            Pt::new(r.x + (tab - 4.0) / 2.0, r.y + th / 2.0),
        );
        if let Some((cx, cy, b)) = &fr.label {
            lines(&mut w, FRAME_TEXT, colour::MUTED, b, Pt::new(*cx, *cy));
        }
        for (y, label) in &fr.dividers {
            let p = |s: &mut String| {
                push_path(
                    s,
                    &[
                        ("M", &[Pt::new(r.x, *y)]),
                        (" L", &[Pt::new(r.right(), *y)]),
                    ],
                );
            };
            w.leaf(
                "path",
                &[
                    ("class", plain!("pb-s-divider")),
                    ("d", Val::Ours(&p)),
                    ("stroke", colour::CLUSTER_LINE),
                    ("stroke-width", plain!("1.5")),
                    ("stroke-dasharray", plain!("5 4")),
                ],
            );
            if let Some((cx, cy, b)) = label {
                lines(&mut w, FRAME_TEXT, colour::MUTED, b, Pt::new(*cx, *cy));
            }
        }
        w.close("g");
        w.newline();
    }
    for (r, b) in &d.notes {
        w.open("g", &[("class", plain!("pb-s-note-group"))]);
        w.newline();
        painted_rect(&mut w, *r, NOTE);
        lines(&mut w, NOTE_TEXT, colour::TEXT, b, Pt::new(r.cx(), r.cy()));
        w.close("g");
        w.newline();
    }
    let ids: Vec<&str> = seq.participants.iter().map(|p| p.id.as_str()).collect();
    let mut key = String::with_capacity(32);
    for ((m, a), n) in seq.messages().zip(&d.arrows).zip(seq.occurrences()) {
        key.clear();
        key.push_str(ids[m.from]);
        key.push('→');
        key.push_str(ids[m.to]);
        if n > 0 {
            key.push('#');
            crate::html::push_decimal(&mut key, n as u64 + 1);
        }
        let class = match m.line {
            Line::Solid => plain!("pb-d-edge pb-s-message pb-d-solid"),
            Line::Dotted => plain!("pb-d-edge pb-s-message pb-d-dotted"),
        };
        w.open("g", &[("class", class), ("data-edge", Val::Text(&key))]);
        w.newline();
        let pts: Vec<Pt> = a.points.iter().map(|&(x, y)| Pt::new(x, y)).collect();
        let k = pts.len();
        let mut first = pts[0];
        let mut last = pts[k - 1];
        // The way the message goes, for a half head's side.
        let way = last
            .minus(first)
            .unit()
            .or_else(|| last.minus(pts[k - 2]).unit());
        if let Some(dir) = last.minus(pts[k - 2]).unit()
            && !m.reverse
        {
            let back = head(&mut w, m.head, last, dir, way.unwrap_or(dir));
            last = last.minus(dir.scale(back));
        }
        if m.reverse
            && let Some(dir) = first.minus(pts[1]).unit()
        {
            let back = head(&mut w, m.head, first, dir, way.unwrap_or(dir.scale(-1.0)));
            first = first.minus(dir.scale(back));
        }
        if m.both
            && let Some(dir) = first.minus(pts[1]).unit()
        {
            let back = head(&mut w, Head::Arrow, first, dir, dir);
            first = first.minus(dir.scale(back));
        }
        let stroke = match m.line {
            Line::Solid => Stroke::Solid,
            Line::Dotted => Stroke::Dotted,
        };
        let line = |s: &mut String| {
            s.push('M');
            push_pt(s, first);
            for p in &pts[1..k - 1] {
                s.push_str(" L");
                push_pt(s, *p);
            }
            s.push_str(" L");
            push_pt(s, last);
        };
        w.leaf_painted(
            "path",
            &[("class", plain!("pb-d-line")), ("d", Val::Ours(&line))],
            paint::line(stroke),
        );
        for (on, at) in [(m.dot_from, pts[0]), (m.dot_to, pts[k - 1])] {
            if on {
                w.leaf(
                    "circle",
                    &[
                        ("class", plain!("pb-d-head-open")),
                        ("cx", Val::Num(at.x)),
                        ("cy", Val::Num(at.y)),
                        ("r", plain!("4")),
                        ("fill", colour::BG),
                        ("stroke", colour::LINE),
                        ("stroke-width", plain!("1.5")),
                    ],
                );
            }
        }
        if let Some((cx, cy, b)) = &a.label {
            lines(&mut w, MESSAGE_TEXT, colour::TEXT, b, Pt::new(*cx, *cy));
        }
        w.close("g");
        w.newline();
        // The number beside, not inside, the message's group: a commentable message's name is
        // its comment field's label, which holds the message's text and not its number.
        if let (Some((bx, by)), Some(number)) = (a.badge, &m.number) {
            w.open(
                "g",
                &[
                    ("class", plain!("pb-s-number")),
                    ("aria-hidden", plain!("true")),
                ],
            );
            w.leaf(
                "circle",
                &[
                    ("class", plain!("pb-s-badge")),
                    ("cx", Val::Num(bx)),
                    ("cy", Val::Num(by)),
                    ("r", Val::Num(BADGE_R)),
                    ("fill", colour::LINE),
                ],
            );
            w.open(
                "text",
                &[
                    ("class", plain!("pb-s-badge-text")),
                    ("x", Val::Num(bx)),
                    ("y", Val::Num(by + 4.0)),
                    ("text-anchor", plain!("middle")),
                    ("font-size", plain!("11")),
                    ("fill", colour::BG),
                ],
            );
            w.text(number);
            w.close("text");
            w.newline();
            w.close("g");
            w.newline();
        }
    }
    for (p, h) in seq.participants.iter().zip(&d.heads) {
        let class = match p.kind {
            Who::Participant => plain!("pb-s-participant"),
            Who::Actor => plain!("pb-s-participant pb-s-actor"),
            Who::Boundary => plain!("pb-s-participant pb-s-boundary"),
            Who::Control => plain!("pb-s-participant pb-s-control"),
            Who::Entity => plain!("pb-s-participant pb-s-entity"),
            Who::Database => plain!("pb-s-participant pb-s-database"),
            Who::Collections => plain!("pb-s-participant pb-s-collections"),
            Who::Queue => plain!("pb-s-participant pb-s-queue"),
        };
        w.open("g", &[("class", class), ("data-node", Val::Text(&p.id))]);
        w.newline();
        participant(&mut w, p.kind, h.rect, &h.text);
        w.close("g");
        w.newline();
    }
    // The copies below the lifelines: for the eye only, so neither commented on nor read out
    // a second time.
    for (p, h) in seq.participants.iter().zip(&d.heads) {
        w.open(
            "g",
            &[
                ("class", plain!("pb-s-foot")),
                ("aria-hidden", plain!("true")),
            ],
        );
        w.newline();
        participant(&mut w, p.kind, h.foot, &h.text);
        w.close("g");
        w.newline();
    }
    w.close("svg");
    (w.finish(), width, height)
}

/// A participant's box (or figure) filling `r`, with its name.
fn participant(w: &mut Writer, kind: Who, r: Rect, text: &Block) {
    painted_rect(w, r, HIT);
    let bounds = Bounds {
        center: Pt::new(r.cx(), r.cy()),
        w: r.w,
        h: r.h,
    };
    let mut at = bounds.center;
    match kind {
        Who::Actor => {
            at.y = r.bottom() - 6.0 - text.height / 2.0;
            figure(w, Pt::new(r.cx(), r.y + 2.0));
        }
        Who::Participant => {
            w.leaf_painted(
                "rect",
                &[
                    ("x", Val::Num(r.x)),
                    ("y", Val::Num(r.y)),
                    ("width", Val::Num(r.w)),
                    ("height", Val::Num(r.h)),
                    ("rx", plain!("3")),
                ],
                paint::SHAPE,
            );
        }
        Who::Collections => {
            let back = Bounds {
                center: Pt::new(bounds.center.x + 4.0, bounds.center.y - 4.0),
                w: r.w - 4.0,
                h: r.h - 4.0,
            };
            let front = Bounds {
                center: Pt::new(bounds.center.x - 2.0, bounds.center.y + 2.0),
                w: r.w - 4.0,
                h: r.h - 4.0,
            };
            shape_element(w, Shape::Rect, back);
            shape_element(w, Shape::Rect, front);
            at = front.center;
        }
        kind => {
            let shape = match kind {
                Who::Boundary => Shape::Subroutine,
                Who::Control => Shape::Round,
                Who::Entity => Shape::Stadium,
                Who::Database => Shape::Cylinder,
                _ => Shape::Hexagon,
            };
            shape_element(w, shape, bounds);
            if shape == Shape::Cylinder {
                // Below the top cap (the layout made the box taller by both caps).
                at.y += cylinder_cap(r.w);
            }
        }
    }
    lines(w, NAME_TEXT, colour::TEXT, text, at);
}

/// A rectangle in the group colours, or filled with `fill` (a plain colour from the source,
/// see `sequence::colour::plain_colour`; its class then is `pb-s-coloured`, which the theme's fill
/// leaves alone).
fn rect(w: &mut Writer, class: Val, r: Rect, fill: Option<&str>) {
    let opacity = fill.and_then(readable_opacity);
    let attrs = [
        ("class", class),
        ("x", Val::Num(r.x)),
        ("y", Val::Num(r.y)),
        ("width", Val::Num(r.w)),
        ("height", Val::Num(r.h)),
        ("fill", fill.map_or(colour::CLUSTER_FILL, Val::Text)),
        ("stroke", colour::CLUSTER_LINE),
        ("stroke-width", plain!("1")),
        ("rx", plain!("4")),
        ("fill-opacity", Val::Num(opacity.unwrap_or(1.0))),
    ];
    w.leaf(
        "rect",
        &attrs[..attrs.len() - usize::from(opacity.is_none())],
    );
}

/// The opacity at which the source's colour `fill` is laid on the (light) page so that the
/// diagram's text on it keeps its contrast: `None` when the colour itself is light enough, else
/// the strongest of a few tints that is.
fn readable_opacity(fill: &str) -> Option<f64> {
    let [r, g, b, alpha] = colour_parts(fill)?;
    // WCAG's relative luminance of the colour laid over white at `opacity`.
    let luminance = |opacity: f64| {
        let a = opacity * alpha;
        let linear = |c: f64| {
            let v = (a * c + (1.0 - a) * 255.0) / 255.0;
            if v <= 0.04045 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
    };
    if luminance(1.0) >= LEAST_LUMINANCE {
        return None;
    }
    Some(
        [0.5, 0.3]
            .into_iter()
            .find(|&o| luminance(o) >= LEAST_LUMINANCE)
            .unwrap_or(0.15),
    )
}

/// A stick figure whose head's top is at `top`.
fn figure(w: &mut Writer, top: Pt) {
    let c = Pt::new(top.x, top.y + 6.0);
    w.leaf(
        "circle",
        &[
            ("class", plain!("pb-d-shape")),
            ("cx", Val::Num(c.x)),
            ("cy", Val::Num(c.y)),
            ("r", plain!("6")),
            ("fill", plain!("#eef4ff")),
            ("stroke", colour::NODE_LINE),
            ("stroke-width", plain!("1.5")),
        ],
    );
    let (x, y) = (c.x, c.y);
    let d = |s: &mut String| {
        push_path(
            s,
            &[
                ("M", &[Pt::new(x, y + 6.0)]),
                (" L", &[Pt::new(x, y + 18.0)]),
                (" M", &[Pt::new(x - 9.0, y + 10.0)]),
                (" L", &[Pt::new(x + 9.0, y + 10.0)]),
                (" M", &[Pt::new(x - 8.0, y + 28.0)]),
                (" L", &[Pt::new(x, y + 18.0), Pt::new(x + 8.0, y + 28.0)]),
            ],
        );
    };
    w.leaf(
        "path",
        &[
            ("class", plain!("pb-d-shape-line")),
            ("d", Val::Ours(&d)),
            ("fill", plain!("none")),
            ("stroke", colour::NODE_LINE),
            ("stroke-width", plain!("1.5")),
        ],
    );
}

/// An ✕ centred on `c`.
fn cross(w: &mut Writer, c: Pt, r: f64) {
    let d = |s: &mut String| {
        push_path(
            s,
            &[
                ("M", &[Pt::new(c.x - r, c.y - r)]),
                (" L", &[Pt::new(c.x + r, c.y + r)]),
                (" M", &[Pt::new(c.x - r, c.y + r)]),
                (" L", &[Pt::new(c.x + r, c.y - r)]),
            ],
        );
    };
    w.leaf(
        "path",
        &[
            ("class", plain!("pb-d-cross")),
            ("d", Val::Ours(&d)),
            ("stroke", colour::LINE),
            ("stroke-width", plain!("2")),
        ],
    );
}

const HEAD_LEN: f64 = 9.0;

const HEAD_HALF: f64 = 4.5;

/// Draws a message's head with its tip at `tip`, arriving along `dir`, for a message going
/// `way` (a half head's "top" is to the left of it, as Mermaid draws a message to the right
/// with it above); returns how far the line stops short of the tip.
fn head(w: &mut Writer, kind: Head, tip: Pt, dir: Pt, way: Pt) -> f64 {
    let normal = Pt::new(-dir.y, dir.x);
    let base = tip.minus(dir.scale(HEAD_LEN));
    let (a, b) = (
        base.plus(normal.scale(HEAD_HALF)),
        base.minus(normal.scale(HEAD_HALF)),
    );
    match kind {
        Head::None => 0.0,
        Head::Arrow => {
            let d = |s: &mut String| {
                push_path(s, &[("M", &[tip]), (" L", &[a]), (" L", &[b]), (" Z", &[])]);
            };
            w.leaf_painted(
                "path",
                &[("class", plain!("pb-d-head")), ("d", Val::Ours(&d))],
                paint::HEAD,
            );
            HEAD_LEN - 1.0
        }
        Head::Open => {
            let d = |s: &mut String| push_path(s, &[("M", &[a]), (" L", &[tip, b])]);
            w.leaf(
                "path",
                &[
                    ("class", plain!("pb-d-cross pb-s-open")),
                    ("d", Val::Ours(&d)),
                    ("fill", plain!("none")),
                    ("stroke", colour::LINE),
                    ("stroke-width", plain!("1.5")),
                ],
            );
            0.0
        }
        Head::Cross => {
            cross(w, tip.minus(dir.scale(5.0)), 4.0);
            0.0
        }
        Head::HalfTop | Head::HalfBottom | Head::StickTop | Head::StickBottom => {
            // Left of the way in the SVG's y-down frame is (way.y, -way.x).
            let left = Pt::new(way.y, -way.x);
            let side = match kind {
                Head::HalfTop | Head::StickTop => left,
                _ => left.scale(-1.0),
            };
            let barb = base.plus(side.scale(HEAD_HALF * 1.6));
            if matches!(kind, Head::HalfTop | Head::HalfBottom) {
                let d = |s: &mut String| {
                    push_path(
                        s,
                        &[("M", &[tip]), (" L", &[barb]), (" L", &[base]), (" Z", &[])],
                    );
                };
                w.leaf_painted(
                    "path",
                    &[("class", plain!("pb-d-head")), ("d", Val::Ours(&d))],
                    paint::HEAD,
                );
                HEAD_LEN - 1.0
            } else {
                let d = |s: &mut String| push_path(s, &[("M", &[barb]), (" L", &[tip])]);
                w.leaf(
                    "path",
                    &[
                        ("class", plain!("pb-d-cross pb-s-open")),
                        ("d", Val::Ours(&d)),
                        ("fill", plain!("none")),
                        ("stroke", colour::LINE),
                        ("stroke-width", plain!("1.5")),
                    ],
                );
                0.0
            }
        }
    }
}

/// A `<rect>` covering `r`, painted with `paint`.
fn painted_rect(w: &mut Writer, r: Rect, paint: Run) {
    w.leaf_painted(
        "rect",
        &[
            ("x", Val::Num(r.x)),
            ("y", Val::Num(r.y)),
            ("width", Val::Num(r.w)),
            ("height", Val::Num(r.h)),
        ],
        paint,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dark_colour_is_laid_down_as_a_tint_and_a_light_one_as_it_is() {
        assert_eq!(readable_opacity("purple"), Some(0.5));
        assert_eq!(readable_opacity("black"), Some(0.3));
        for light in [
            "rgb(191, 223, 255)",
            "rgb(200, 150, 255)",
            "rgba(0, 0, 255, .1)",
            "white",
            "transparent",
            "#ffeecc",
        ] {
            assert_eq!(readable_opacity(light), None, "{light}");
        }
    }
}
