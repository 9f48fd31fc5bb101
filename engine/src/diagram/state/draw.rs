//! The SVG of a laid-out state diagram: composite states as boxes with their name (a
//! `data-node` each, as a flowchart's subgraph with an id), their concurrency regions as
//! dashed boxes inside, transitions (`data-edge`, keyed `FROM→TO`, `FROM→TO#2`, … as a
//! flowchart's edges), notes' dotted lines, names over them, then states and notes.

use super::describe::describe;
use super::{Kind, StateDiagram};
use crate::diagram::flowchart::draw::{
    Titles, edge_label, marker, node_class, open_chart, plain_cluster_title, push_curve,
    push_edge_key,
};
use crate::diagram::flowchart::layout::{Drawing, EdgePath};
use crate::diagram::geometry::Bounds;
use crate::diagram::line::{Marker, Stroke};
use crate::diagram::shapes;
use crate::diagram::svg::label::lines;
use crate::diagram::svg::shape::shape_element;
use crate::diagram::svg::theme::{colour, paint};
use crate::diagram::svg::writer::{Plain, Run, Val, Writer, plain, run};
use crate::diagram::svg::{Frame, TEXT};
use crate::diagram::text::Block;

/// A note's paint (yellow, as a sequence diagram's notes): themed by `pb-s-note`.
const NOTE: Run = run!(
    ("class", "pb-s-note"),
    ("fill", "#fff8c5"),
    ("stroke", "#9a6700"),
    ("stroke-width", "1"),
);

/// A concurrency region's border: dashed, inside its composite.
const REGION: Run = run!(
    ("class", "pb-d-region"),
    ("fill", "none"),
    ("stroke", "#8c959f"),
    ("stroke-width", "1"),
    ("stroke-dasharray", "6 4"),
);

/// One line: a transition (with its key) or a note's dotted line (without).
fn line(
    w: &mut Writer,
    path: &EdgePath,
    key: Option<&str>,
    label: Option<&Block>,
    stroke: Stroke,
    end: Marker,
) {
    match key {
        Some(key) => w.open(
            "g",
            &[
                ("class", plain!("pb-d-edge pb-d-solid")),
                ("data-edge", Val::Text(key)),
            ],
        ),
        None => w.open("g", &[("class", plain!("pb-d-note-link pb-d-dotted"))]),
    }
    w.newline();
    let points = &path.points[..];
    let n = points.len();
    let (first, mut last) = (points[0], points[n - 1]);
    if let Some(dir) = points[n - 1].minus(points[n - 2]).unit() {
        let back = marker(w, end, points[n - 1], dir, false, None);
        let seg = last.minus(points[n - 2]);
        if back > 0.0 && seg.len() > back + 2.0 {
            last = last.minus(dir.scale(back));
        }
    }
    let d = |d: &mut String| push_curve(d, points, first, last, path.axis, path.straight);
    w.leaf_painted(
        "path",
        &[("class", plain!("pb-d-line")), ("d", Val::Ours(&d))],
        paint::line(stroke),
    );
    if let (Some((at, block)), Some(_)) = (&path.label, label) {
        edge_label(w, block, *at);
    }
    w.close("g");
    w.newline();
}

fn rect(w: &mut Writer, b: Bounds, rx: Plain, paint: Run) {
    w.leaf_painted(
        "rect",
        &[
            ("x", Val::Num(b.left())),
            ("y", Val::Num(b.top())),
            ("width", Val::Num(b.w)),
            ("height", Val::Num(b.h)),
            ("rx", Val::Plain(rx)),
        ],
        paint,
    );
}

/// The SVG of a laid-out state diagram, and its width and height, px.
pub fn state(d: &StateDiagram, laid: &Drawing, f: &Frame) -> (String, u32, u32) {
    let chart = &d.chart;
    let mut w = Writer::with_capacity(1024 + 384 * laid.nodes.len() + 512 * laid.edges.len());
    let (width, height, headed) = open_chart(
        &mut w,
        f,
        Titles::of(chart),
        describe(d, f.t),
        const { Plain::new("pb-mermaid pb-mermaid-state") },
        (laid.width, laid.height),
    );
    // Composite states, each a node for comments, then their regions over them.
    for (s, c) in laid.clusters.iter().enumerate() {
        let sub = &chart.subgraphs[s];
        if d.regions[s].is_some() {
            continue;
        }
        let class = ("class", plain!("pb-d-cluster"));
        match sub.id.as_deref() {
            Some(id) => w.open("g", &[class, ("data-node", Val::Text(id))]),
            None => w.open("g", &[class]),
        }
        w.newline();
        let b = c.bounds;
        w.leaf(
            "rect",
            &[
                ("class", plain!("pb-d-cluster-box")),
                ("x", Val::Num(b.left())),
                ("y", Val::Num(b.top())),
                ("width", Val::Num(b.w)),
                ("height", Val::Num(b.h)),
                ("rx", plain!("8")),
                ("fill", colour::CLUSTER_FILL),
                ("stroke", colour::CLUSTER_LINE),
                ("stroke-width", plain!("1")),
            ],
        );
        w.close("g");
        w.newline();
    }
    for (s, c) in laid.clusters.iter().enumerate() {
        if d.regions[s].is_some() {
            rect(&mut w, c.bounds, const { Plain::new("4") }, REGION);
            w.newline();
        }
    }
    let transitions = chart.edges.len();
    let occurrences = chart.edge_occurrences();
    let mut key = String::with_capacity(32);
    for (i, path) in laid.edges.iter().enumerate() {
        if i < transitions {
            key.clear();
            push_edge_key(&mut key, chart, &chart.edges[i], occurrences[i]);
            let label = path.label.as_ref().map(|(_, b)| b);
            line(
                &mut w,
                path,
                Some(&key),
                label,
                Stroke::Solid,
                Marker::Arrow,
            );
        } else {
            line(&mut w, path, None, None, Stroke::Dotted, Marker::None);
        }
    }
    // Composite states' names over the lines, each on a patch of its box's colour.
    for (s, c) in laid.clusters.iter().enumerate() {
        if d.regions[s].is_some() || c.title.is_blank() {
            continue;
        }
        plain_cluster_title(&mut w, c);
    }
    let states = chart.nodes.len();
    for (i, n) in laid.nodes.iter().enumerate() {
        let Some(n) = n else { continue };
        if i >= states {
            w.open("g", &[("class", plain!("pb-d-note"))]);
            w.newline();
            rect(&mut w, n.bounds, const { Plain::new("0") }, NOTE);
            lines(&mut w, TEXT, colour::TEXT, &n.text, n.bounds.center);
            w.close("g");
            w.newline();
            continue;
        }
        if d.kinds[i] == Kind::Composite {
            continue;
        }
        w.open(
            "g",
            &[
                ("class", node_class(n.shape)),
                ("data-node", Val::Text(&chart.nodes[i].id)),
            ],
        );
        w.newline();
        shape_element(&mut w, n.shape, n.bounds);
        if shapes::shows_label(n.shape) && !n.text.is_blank() {
            let at = shapes::label_center(n.shape, n.bounds, n.text.height);
            lines(&mut w, TEXT, colour::TEXT, &n.text, at);
        }
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
