//! The gantt charts of Mermaid's own documentation, demos and rendering tests, and of public
//! repositories (`fixtures/mermaid-gantt/`): how many are drawn, whether the engine reads the
//! same tasks as mermaid.js's task database (`parse.json`: ids, sections, every start and end
//! and tags), and the geometry of every drawing: no two tasks' boxes overlap, and no task's
//! text lies on another task's box.

use crate::diagram;
use crate::diagram::gantt::time::{Civil, Ms};
use crate::diagram::gantt::{GanttChart, layout, parse};
use crate::diagram::geometry::{Bounds, Pt};
use crate::diagram::tests::corpus::{
    Corpus, assert_drawn_but_named, assert_geometry, assert_none_differ, assert_parts_marked,
    assert_rejects_say_where, draw_prefixes, frame, overlap, read_or_say, write_svgs,
};
use serde_json::Value;

const CORPUS: Corpus = Corpus::new("mermaid-gantt");

/// Diagrams mermaid.js reads that are not drawn, each with the reason.
const NOT_DRAWN: [(&str, &str); 1] = [(
    "docs-gantt-369",
    "no tasks: the example shows only `tickInterval` and `weekday`, so there is nothing to comment on",
)];

fn draw(src: &str) -> Option<(GanttChart, layout::Laid, diagram::Rendered)> {
    let g = parse::parse(src)?.ok()?;
    let laid = layout::layout(&g);
    let r = diagram::render_gantt(&g, &frame());
    Some((g, laid, r))
}

/// The box from `left` to `right` and `top` to `bottom`, as the shared overlap check takes it.
fn spanning(left: f64, top: f64, right: f64, bottom: f64) -> Bounds {
    Bounds {
        center: Pt::new((left + right) / 2.0, (top + bottom) / 2.0),
        w: right - left,
        h: bottom - top,
    }
}

/// A time as `Date.toISOString` writes it.
fn iso(t: Ms) -> String {
    let c = Civil::of(t);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        c.y, c.mo, c.d, c.h, c.mi, c.s, c.ms
    )
}

/// Our reading in the shape of `parse.json`'s tasks.
fn ours(g: &GanttChart) -> Vec<Value> {
    g.tasks
        .iter()
        .map(|t| {
            let tags: Vec<&str> = [
                (t.active, "active"),
                (t.done, "done"),
                (t.crit, "crit"),
                (t.milestone, "milestone"),
                (t.vert, "vert"),
            ]
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| *n)
            .collect();
            serde_json::json!([
                g.chart.nodes[t.node].id,
                t.section.map_or("", |s| g.sections[s].as_str()),
                t.text.trim(),
                iso(t.start),
                iso(t.end),
                t.render_end.map(iso),
                tags,
            ])
        })
        .collect()
}

#[test]
fn the_engine_reads_the_tasks_mermaid_reads() {
    let reference = CORPUS.reference();
    let mut wrong = Vec::new();
    let mut compared = 0;
    for (name, src) in CORPUS.accepted() {
        let want = &reference["diagrams"][&name];
        let Some(g) = read_or_say(&mut wrong, &name, "a gantt chart", parse::parse(&src)) else {
            continue;
        };
        compared += 1;
        let got = ours(&g);
        let want_tasks: Vec<Value> = want["tasks"]
            .as_array()
            .expect("tasks")
            .iter()
            .map(|t| {
                let mut t = t.clone();
                t[2] = Value::String(t[2].as_str().unwrap_or("").trim().to_string());
                t
            })
            .collect();
        let ids = |v: &[Value]| v.iter().map(|t| t[0].to_string()).collect::<Vec<_>>();
        if ids(&got) != ids(&want_tasks) {
            wrong.push(format!(
                "{name}: ids: ours {:?}, mermaid's {:?}",
                ids(&got),
                ids(&want_tasks)
            ));
            continue;
        }
        for (a, b) in got.iter().zip(&want_tasks) {
            if a != b {
                wrong.push(format!("{name}: ours {a}, mermaid's {b}"));
            }
        }
        let title = want["title"].as_str().unwrap_or("");
        if g.chart.title.as_deref().unwrap_or("") != title {
            wrong.push(format!(
                "{name}: title {:?}, mermaid's {title:?}",
                g.chart.title
            ));
        }
    }
    assert_none_differ(&wrong);
    assert!(compared >= 60, "only {compared} compared");
}

#[test]
fn every_task_is_a_node_named_by_mermaids_id_and_there_are_no_edges() {
    let reference = CORPUS.reference();
    for (name, src) in CORPUS.accepted() {
        let Some((g, _, r)) = draw(&src) else {
            continue;
        };
        let mut want: Vec<String> = reference["diagrams"][&name]["tasks"]
            .as_array()
            .expect("tasks")
            .iter()
            .map(|t| t[0].as_str().unwrap_or("").to_string())
            .collect();
        want.dedup();
        let mut got: Vec<String> = g.chart.nodes.iter().map(|n| n.id.clone()).collect();
        got.sort();
        want.sort();
        want.dedup();
        assert_eq!(got, want, "{name}");
        assert!(g.chart.edges.is_empty(), "{name}");
        if !r.drawn {
            continue;
        }
        let ids = g.chart.nodes.iter().map(|n| n.id.as_str());
        assert_parts_marked(&name, &r.svg, ids, 0);
    }
}

#[test]
fn at_least_97_percent_are_drawn_and_the_rest_are_named() {
    let all = CORPUS.accepted();
    assert!(all.len() >= 60, "{} diagrams", all.len());
    assert_drawn_but_named(&all, &NOT_DRAWN, |src| {
        draw(src).is_some_and(|(_, _, r)| r.drawn)
    });
}

#[test]
fn diagrams_mermaid_rejects_are_not_drawn_and_say_where() {
    assert_rejects_say_where(&CORPUS, parse::parse);
}

#[test]
fn every_drawn_diagram_passes_the_geometric_check() {
    assert_geometry(&CORPUS.diagrams(), |src| draw(src).map(|(_, _, r)| r.svg));
}

#[test]
fn no_two_tasks_overlap_and_no_text_lies_on_another_task() {
    let mut bad = Vec::new();
    for (name, src) in CORPUS.diagrams() {
        let Some((_, laid, _)) = draw(&src) else {
            continue;
        };
        let boxes: Vec<Bounds> = laid
            .tasks
            .iter()
            .map(|t| {
                spanning(
                    t.bounds.x,
                    t.bounds.y,
                    t.bounds.right(),
                    t.bounds.y + t.bounds.h,
                )
            })
            .collect();
        for (k, a) in boxes.iter().enumerate() {
            for b in &boxes[k + 1..] {
                if overlap(a, b) {
                    bad.push(format!("{name}: two tasks overlap"));
                }
            }
            let t = &laid.tasks[k];
            let text = spanning(
                t.label_x,
                t.mid_y - 8.0,
                t.label_x + t.label_w,
                t.mid_y + 8.0,
            );
            for (j, b) in boxes.iter().enumerate() {
                if j != k && overlap(&text, b) {
                    bad.push(format!("{name}: the text of task {k} lies on task {j}"));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{bad:?}");
}

/// `CORPUS_SVG_DIR=DIR cargo test -p passback-engine --lib write_the_gantt_svgs -- --ignored`
/// writes every corpus diagram's SVG to DIR, to look at.
#[test]
#[ignore = "writes files; run by hand"]
fn write_the_gantt_svgs() {
    write_svgs(&CORPUS.diagrams(), |src| draw(src).map(|(_, _, r)| r.svg));
}

/// Prefixes of every corpus diagram are read and laid out without a panic.
#[test]
fn cut_diagrams_never_panic() {
    draw_prefixes(&CORPUS.diagrams(), 3, |src| {
        let _ = draw(src);
    });
}

#[test]
fn no_two_tick_labels_run_into_each_other() {
    let mut bad = Vec::new();
    for (name, src) in CORPUS.diagrams() {
        let Some((_, laid, _)) = draw(&src) else {
            continue;
        };
        let shown: Vec<_> = laid.ticks.iter().filter(|(_, l)| !l.is_empty()).collect();
        for w in shown.windows(2) {
            let room =
                (crate::diagram::text::width(&w[0].1) + crate::diagram::text::width(&w[1].1)) / 2.0;
            if w[1].0 - w[0].0 < room {
                bad.push(format!("{name}: {:?} and {:?}", w[0].1, w[1].1));
            }
        }
    }
    assert!(bad.is_empty(), "{bad:?}");
}
