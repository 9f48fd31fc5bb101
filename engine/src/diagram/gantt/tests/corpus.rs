//! The gantt charts of Mermaid's own documentation, demos and rendering tests, and of public
//! repositories (`fixtures/mermaid-gantt/`): how many are drawn, whether the engine reads the
//! same tasks as mermaid.js's task database (`parse.json`: ids, sections, every start and end
//! and tags), and the geometry of every drawing: no two tasks' boxes overlap, and no task's
//! text lies on another task's box.

use crate::diagram::flowchart::tests::corpus::geometry_faults;
use crate::diagram::gantt::time::{Civil, Ms};
use crate::diagram::gantt::{GanttChart, layout, parse};
use crate::diagram::{self, svg::Frame};
use crate::html::i18n::EN;
use serde_json::Value;
use std::path::Path;

/// Diagrams mermaid.js reads that are not drawn, each with the reason.
const NOT_DRAWN: [(&str, &str); 1] = [(
    "docs-gantt-369",
    "no tasks: the example shows only `tickInterval` and `weekday`, so there is nothing to comment on",
)];

fn load(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/mermaid-gantt")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("JSON")
}

fn corpus() -> Vec<(String, String)> {
    load("corpus.json")
        .as_array()
        .expect("a list")
        .iter()
        .map(|d| {
            (
                d["name"].as_str().expect("name").to_string(),
                d["source"].as_str().expect("source").to_string(),
            )
        })
        .collect()
}

/// The diagrams mermaid.js reads (the corpus also keeps one it rejects).
fn accepted() -> Vec<(String, String)> {
    let reference = load("parse.json");
    corpus()
        .into_iter()
        .filter(|(name, _)| reference["diagrams"][name].get("error").is_none())
        .collect()
}

fn frame() -> Frame<'static> {
    Frame {
        id: "d",
        title: "Diagram",
        t: &EN,
        inline_style: false,
    }
}

fn draw(src: &str) -> Option<(GanttChart, layout::Laid, diagram::Rendered)> {
    let g = parse::parse(src)?.ok()?;
    let laid = layout::layout(&g);
    let r = diagram::render_gantt(&g, &frame());
    Some((g, laid, r))
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
    let reference = load("parse.json");
    let mut wrong = Vec::new();
    let mut compared = 0;
    for (name, src) in accepted() {
        let want = &reference["diagrams"][&name];
        let g = match parse::parse(&src) {
            Some(Ok(g)) => g,
            Some(Err(e)) => {
                wrong.push(format!("{name}: not read: {} at {}", e.message, e.offset));
                continue;
            }
            None => {
                wrong.push(format!("{name}: not a gantt chart"));
                continue;
            }
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
    assert!(
        wrong.is_empty(),
        "{} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(compared >= 60, "only {compared} compared");
}

#[test]
fn every_task_is_a_node_named_by_mermaids_id_and_there_are_no_edges() {
    let reference = load("parse.json");
    for (name, src) in accepted() {
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
        for n in &g.chart.nodes {
            let mut attr = "data-node=\"".to_string();
            crate::html::escape_into(&n.id.replace('\'', "\u{1}"), &mut attr);
            let attr = attr.replace('\u{1}', "&#39;") + "\"";
            assert!(r.svg.contains(&attr), "{name}: {}", n.id);
        }
        assert!(!r.svg.contains("data-edge="), "{name}");
        assert!(
            r.svg.contains("<title") && r.svg.contains("<desc"),
            "{name}"
        );
        assert!(!r.svg.contains("<script") && !r.svg.contains("foreignObject"));
    }
}

#[test]
fn at_least_97_percent_are_drawn_and_the_rest_are_named() {
    let all = accepted();
    assert!(all.len() >= 60, "{} diagrams", all.len());
    let mut not_drawn = Vec::new();
    for (name, src) in &all {
        if !draw(src).is_some_and(|(_, _, r)| r.drawn) {
            not_drawn.push(name.clone());
        }
    }
    let named: Vec<String> = NOT_DRAWN.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(not_drawn, named, "not drawn");
    assert!(
        (all.len() - not_drawn.len()) * 100 >= all.len() * 97,
        "{} of {} drawn",
        all.len() - not_drawn.len(),
        all.len()
    );
}

#[test]
fn diagrams_mermaid_rejects_are_not_drawn_and_say_where() {
    let reference = load("parse.json");
    let mut rejected = 0;
    for (name, src) in corpus() {
        if reference["diagrams"][&name].get("error").is_none() {
            continue;
        }
        rejected += 1;
        match parse::parse(&src) {
            Some(Err(e)) => assert!(e.offset <= src.len() && !e.message.is_empty(), "{name}"),
            other => panic!("{name}: read: {other:?}"),
        }
    }
    assert!(rejected > 0);
}

#[test]
fn every_drawn_diagram_passes_the_geometric_check() {
    let mut bad = Vec::new();
    for (name, src) in corpus() {
        let Some((_, _, r)) = draw(&src) else {
            continue;
        };
        let mut faults = geometry_faults(&r.svg);
        let out = crate::diagram::tests::books::outside(&r.svg);
        if !out.is_empty() {
            faults.push(format!(
                "lines leave the drawing at {:?}",
                &out[..out.len().min(2)]
            ));
        }
        if !faults.is_empty() {
            bad.push(format!("{name}: {}", faults.join("; ")));
        }
    }
    assert!(bad.is_empty(), "{}:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn no_two_tasks_overlap_and_no_text_lies_on_another_task() {
    let mut bad = Vec::new();
    for (name, src) in corpus() {
        let Some((_, laid, _)) = draw(&src) else {
            continue;
        };
        let boxes: Vec<_> = laid.tasks.iter().map(|t| t.bounds).collect();
        let overlap = |a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)| {
            a.0 + 0.5 < b.2 && b.0 + 0.5 < a.2 && a.1 + 0.5 < b.3 && b.1 + 0.5 < a.3
        };
        let of = |r: &layout::Rect| (r.x, r.y, r.right(), r.y + r.h);
        for (k, a) in boxes.iter().enumerate() {
            for b in &boxes[k + 1..] {
                if overlap(of(a), of(b)) {
                    bad.push(format!("{name}: two tasks overlap"));
                }
            }
            let t = &laid.tasks[k];
            let text = (
                t.label_x,
                t.mid_y - 8.0,
                t.label_x + t.label_w,
                t.mid_y + 8.0,
            );
            for (j, b) in boxes.iter().enumerate() {
                if j != k && overlap(text, of(b)) {
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
    let dir = std::env::var("CORPUS_SVG_DIR").expect("CORPUS_SVG_DIR");
    std::fs::create_dir_all(&dir).expect("a directory");
    for (name, src) in corpus() {
        if let Some((_, _, r)) = draw(&src) {
            std::fs::write(Path::new(&dir).join(format!("{name}.svg")), r.svg).expect("written");
        }
    }
}

/// Prefixes of every corpus diagram are read and laid out without a panic.
#[test]
fn cut_diagrams_never_panic() {
    for (_, src) in corpus() {
        for cut in (0..=src.len()).step_by(3) {
            if src.is_char_boundary(cut) {
                let _ = draw(&src[..cut]);
            }
        }
    }
}

#[test]
fn no_two_tick_labels_run_into_each_other() {
    let mut bad = Vec::new();
    for (name, src) in corpus() {
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
