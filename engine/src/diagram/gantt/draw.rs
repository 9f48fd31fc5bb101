//! The SVG of a laid-out gantt chart: the section bands and names, the grid and the axis
//! (below, and above too with `topAxis`), then each task (`data-node`, by Mermaid's id) as a
//! bar in its tags' colours (a milestone as a diamond) with its text inside or beside it.

use super::GanttChart;
use super::describe::describe;
use super::layout::{AXIS_H, LabelAt, Laid, layout};
use crate::diagram::flowchart::draw::{Titles, open_chart};
use crate::diagram::svg::number::push_num;
use crate::diagram::svg::theme::colour;
use crate::diagram::svg::writer::{Plain, Run, Val, Writer, plain, run};
use crate::diagram::svg::{Frame, TEXT};

const TASK: Run = run!(
    ("class", "pb-g-bar"),
    ("fill", "#eef4ff"),
    ("stroke", "#4a6fa5"),
    ("stroke-width", "1.5"),
);
const DONE: Run = run!(
    ("class", "pb-g-bar pb-g-done"),
    ("fill", "#d0d7de"),
    ("stroke", "#6e7781"),
    ("stroke-width", "1.5"),
);
const ACTIVE: Run = run!(
    ("class", "pb-g-bar pb-g-active"),
    ("fill", "#ddf4ff"),
    ("stroke", "#0969da"),
    ("stroke-width", "1.5"),
    ("stroke-dasharray", "4 2"),
);
const CRIT: Run = run!(
    ("class", "pb-g-bar pb-g-crit"),
    ("fill", "#ffebe9"),
    ("stroke", "#cf222e"),
    ("stroke-width", "2"),
);
const CRIT_DONE: Run = run!(
    ("class", "pb-g-bar pb-g-done pb-g-crit"),
    ("fill", "#d0d7de"),
    ("stroke", "#cf222e"),
    ("stroke-width", "2"),
);
const CRIT_ACTIVE: Run = run!(
    ("class", "pb-g-bar pb-g-active pb-g-crit"),
    ("fill", "#ddf4ff"),
    ("stroke", "#cf222e"),
    ("stroke-width", "2"),
    ("stroke-dasharray", "4 2"),
);
const BAND: Run = run!(
    ("class", "pb-g-band"),
    ("fill", "#f6f8fa"),
    ("stroke", "none")
);
const EXCLUDED: Run = run!(
    ("class", "pb-g-excluded"),
    ("fill", "#eaeef2"),
    ("stroke", "none")
);
const GRID: Run = run!(
    ("class", "pb-g-grid"),
    ("stroke", "#d0d7de"),
    ("stroke-width", "1")
);
const VERT: Run = run!(
    ("class", "pb-g-vert"),
    ("stroke", "#8c959f"),
    ("stroke-width", "1.5"),
    ("stroke-dasharray", "4 3"),
);

fn paint(done: bool, active: bool, crit: bool) -> Run {
    match (crit, done, active) {
        (true, true, _) => CRIT_DONE,
        (true, false, true) => CRIT_ACTIVE,
        (true, false, false) => CRIT,
        (false, true, _) => DONE,
        (false, false, true) => ACTIVE,
        (false, false, false) => TASK,
    }
}

fn text(w: &mut Writer, class: Plain, fill: Val, x: f64, y: f64, anchor: Plain, s: &str) {
    w.open(
        "text",
        &[
            ("class", Val::Plain(class)),
            ("x", Val::Num(x)),
            ("y", Val::Num(y)),
            ("text-anchor", Val::Plain(anchor)),
            ("dominant-baseline", plain!("central")),
            ("fill", fill),
        ],
    );
    w.text(s);
    w.close("text");
    w.newline();
}

/// The axis's tick texts along `y`.
fn axis(w: &mut Writer, laid: &Laid, y: f64) {
    w.open(
        "g",
        &[
            ("class", plain!("pb-g-axis")),
            ("font-size", plain!("12")),
            ("aria-hidden", plain!("true")),
        ],
    );
    w.newline();
    for (x, label) in laid.ticks.iter().filter(|(_, l)| !l.is_empty()) {
        text(
            w,
            const { Plain::new("pb-g-tick") },
            colour::MUTED,
            *x,
            y,
            const { Plain::new("middle") },
            label,
        );
    }
    w.close("g");
    w.newline();
}

/// The SVG of a gantt chart, with its width and height, px.
pub fn gantt(g: &GanttChart, f: &Frame) -> (String, u32, u32) {
    let laid = layout(g);
    draw(g, &laid, f)
}

/// The SVG of a gantt chart laid out.
pub fn draw(g: &GanttChart, laid: &Laid, f: &Frame) -> (String, u32, u32) {
    let mut w = Writer::with_capacity(2048 + 512 * g.tasks.len());
    let (width, height, headed) = open_chart(
        &mut w,
        f,
        Titles::of(&g.chart),
        describe(g, f.t),
        const { Plain::new("pb-mermaid pb-mermaid-gantt") },
        (laid.width, laid.height),
    );
    // Section bands, every other section shaded, and their names.
    for (name, top, bottom, s) in &laid.sections {
        if s % 2 == 1 {
            w.leaf_painted(
                "rect",
                &[
                    ("x", Val::Num(super::layout::MARGIN)),
                    ("y", Val::Num(*top)),
                    ("width", Val::Num(laid.width - 2.0 * super::layout::MARGIN)),
                    ("height", Val::Num(bottom - top)),
                ],
                BAND,
            );
        }
        let cy = (top + bottom) / 2.0 - (name.height - crate::diagram::text::LINE_HEIGHT) / 2.0;
        for (k, line) in name.text.split('\n').enumerate() {
            text(
                &mut w,
                const { Plain::new("pb-g-section") },
                colour::TEXT,
                super::layout::MARGIN * 1.5,
                cy + k as f64 * crate::diagram::text::LINE_HEIGHT,
                const { Plain::new("start") },
                line,
            );
        }
    }
    // Excluded days, shaded across the rows.
    for (a, b) in &laid.excluded {
        w.leaf_painted(
            "rect",
            &[
                ("x", Val::Num(*a)),
                ("y", Val::Num(laid.top)),
                ("width", Val::Num(b - a)),
                ("height", Val::Num(laid.bottom - laid.top)),
            ],
            EXCLUDED,
        );
    }
    // The grid: a line at each tick across the rows.
    let grid_top = laid.top - if g.top_axis { 4.0 } else { 0.0 };
    for (x, _) in &laid.ticks {
        let d = |s: &mut String| {
            s.push('M');
            push_num(s, *x);
            s.push(' ');
            push_num(s, grid_top);
            s.push_str(" V");
            push_num(s, laid.bottom + 4.0);
        };
        w.leaf_painted("path", &[("d", Val::Ours(&d))], GRID);
    }
    axis(&mut w, laid, laid.bottom + AXIS_H / 2.0 + 2.0);
    if g.top_axis {
        axis(&mut w, laid, laid.top - AXIS_H / 2.0);
    }
    // `vert` tasks' lines down the chart, under the bars.
    for (k, t) in g.tasks.iter().enumerate() {
        let b = &laid.tasks[k];
        if t.vert {
            let x = b.bounds.x;
            let d = |s: &mut String| {
                s.push('M');
                push_num(s, x);
                s.push(' ');
                push_num(s, laid.top);
                s.push_str(" V");
                push_num(s, laid.bottom);
            };
            w.leaf_painted("path", &[("d", Val::Ours(&d))], VERT);
        }
    }
    // The tasks.
    for (k, t) in g.tasks.iter().enumerate() {
        let b = &laid.tasks[k];
        let id = &g.chart.nodes[t.node].id;
        w.open(
            "g",
            &[
                ("class", plain!("pb-d-node pb-g-task")),
                ("data-node", Val::Text(id)),
            ],
        );
        w.newline();
        let run = paint(t.done, t.active, t.crit);
        if t.milestone {
            let (cx, cy, r) = (b.bounds.x + b.bounds.w / 2.0, b.mid_y, b.bounds.w / 2.0);
            let points = |s: &mut String| {
                for (k, (x, y)) in [(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)]
                    .into_iter()
                    .enumerate()
                {
                    if k > 0 {
                        s.push(' ');
                    }
                    push_num(s, x);
                    s.push(',');
                    push_num(s, y);
                }
            };
            w.leaf_painted("polygon", &[("points", Val::Ours(&points))], run);
        } else {
            w.leaf_painted(
                "rect",
                &[
                    ("x", Val::Num(b.bounds.x)),
                    ("y", Val::Num(b.bounds.y)),
                    ("width", Val::Num(b.bounds.w)),
                    ("height", Val::Num(b.bounds.h)),
                    ("rx", plain!("3")),
                ],
                run,
            );
        }
        let label = g.chart.nodes[t.node].label.replace('\n', " ");
        // Inside its bar, or beside it where the bar is too short.
        let anchor = match b.label {
            LabelAt::Inside | LabelAt::Right | LabelAt::Left => b.label_x,
        };
        text(
            &mut w,
            TEXT,
            colour::TEXT,
            anchor,
            b.mid_y,
            const { Plain::new("start") },
            &label,
        );
        w.close("g");
        w.newline();
    }
    if headed {
        w.close("g");
        w.newline();
    }
    w.close("svg");
    (w.finish(), width, height)
}
