//! A gantt chart in words, for its SVG's `<desc>`, a mail's text and the plain-text surface:
//! its span, then each section's tasks (or the tasks, with no sections), each with its start
//! and end (a milestone with its day) and its tags.

use super::GanttChart;
use super::time::{Civil, Ms};
use crate::html::i18n::Strings;

/// A moment as `2024-01-06`, with its time when it is not midnight (`2024-01-06 09:30`).
pub fn when(t: Ms) -> String {
    let c = Civil::of(t);
    let mut s = format!("{:04}-{:02}-{:02}", c.y, c.mo, c.d);
    if (c.h, c.mi, c.s, c.ms) != (0, 0, 0, 0) {
        s.push_str(&format!(" {:02}:{:02}", c.h, c.mi));
        if (c.s, c.ms) != (0, 0) {
            s.push_str(&format!(":{:02}", c.s));
        }
        if c.ms != 0 {
            s.push_str(&format!(".{:03}", c.ms));
        }
    }
    s
}

/// Task `k` in words: "“Design” from 2024-01-01 to 2024-01-04 (done, critical)".
pub fn task(g: &GanttChart, k: usize, t: &Strings) -> String {
    let task = &g.tasks[k];
    let name = Strings::fill(
        t.diagram_quote,
        &g.chart.nodes[task.node].label.replace('\n', " "),
    );
    let mut out = if task.milestone {
        Strings::fill_all(
            t.diagram_gantt[4],
            &[&name, &when(task.start + (task.end - task.start) / 2)],
        )
    } else {
        Strings::fill_all(
            t.diagram_gantt[3],
            &[
                &name,
                &when(task.start),
                &when(task.render_end.unwrap_or(task.end)),
            ],
        )
    };
    let tags: Vec<&str> = [
        (task.done, t.diagram_gantt[5]),
        (task.active, t.diagram_gantt[6]),
        (task.crit, t.diagram_gantt[7]),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, w)| *w)
    .collect();
    if !tags.is_empty() {
        out.push_str(" (");
        out.push_str(&tags.join(", "));
        out.push(')');
    }
    out
}

/// The chart in words.
pub fn describe(g: &GanttChart, t: &Strings) -> String {
    let start = g.tasks.iter().map(|k| k.start).min().unwrap_or(0);
    let end = g.tasks.iter().map(|k| k.end).max().unwrap_or(0);
    let mut parts = vec![Strings::fill_all(
        t.diagram_gantt[1],
        &[&when(start), &when(end)],
    )];
    let mut k = 0;
    while k < g.tasks.len() {
        let s = g.tasks[k].section;
        let mut e = k;
        while e < g.tasks.len() && g.tasks[e].section == s {
            e += 1;
        }
        let list: Vec<String> = (k..e).map(|i| task(g, i, t)).collect();
        let list = list.join("; ");
        parts.push(match s {
            Some(s) => Strings::fill_all(
                t.diagram_gantt[2],
                &[&Strings::fill(t.diagram_quote, g.sections[s].trim()), &list],
            ),
            None => Strings::fill(t.diagram_gantt[8], &list),
        });
        k = e;
    }
    parts.join(" ")
}
