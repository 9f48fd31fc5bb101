//! What the corpus tests of every diagram kind share: the fixtures (`fixtures/mermaid-*/`:
//! `corpus.json`, and `parse.json`, mermaid.js's reading of each diagram), the frame they are
//! drawn in, and the checks every kind passes: enough of the corpus is drawn and the rest is
//! named, what mermaid.js rejects is refused with a place, no two boxes overlap and no line
//! passes through a box it does not join (in the layout, and read back from the SVG:
//! [`geometry_faults`]), the parts read are mermaid's, every part is marked in the SVG, and no
//! prefix of a diagram panics.

mod svg;

pub(crate) use svg::{attr, crossing_edges, geometry_faults, read_svg};

use crate::diagram::flowchart::Unsupported;
use crate::diagram::flowchart::layout::Drawing;
use crate::diagram::geometry::Bounds;
use crate::diagram::svg::Frame;
use crate::html::i18n::EN;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::Path;

/// A corpus of one diagram kind: a folder below `fixtures/` holding `corpus.json` (a list of
/// `{ name, source }`) and `parse.json` (mermaid.js's reading, `{ diagrams: { name: … } }`,
/// with an `error` for each diagram it rejects).
pub(crate) struct Corpus {
    folder: &'static str,
}

impl Corpus {
    pub(crate) const fn new(folder: &'static str) -> Corpus {
        Corpus { folder }
    }

    /// A JSON file of the corpus's folder.
    pub(crate) fn load(&self, file: &str) -> Value {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures")
            .join(self.folder)
            .join(file);
        serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("JSON")
    }

    /// Every diagram, as its name and its source.
    pub(crate) fn diagrams(&self) -> Vec<(String, String)> {
        self.load("corpus.json")
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

    /// mermaid.js's reading of every diagram (`parse.json`).
    pub(crate) fn reference(&self) -> Value {
        self.load("parse.json")
    }

    /// The diagrams mermaid.js reads (the corpus also keeps a few it rejects).
    pub(crate) fn accepted(&self) -> Vec<(String, String)> {
        let reference = self.reference();
        self.diagrams()
            .into_iter()
            .filter(|(name, _)| reference["diagrams"][name].get("error").is_none())
            .collect()
    }
}

/// The frame every corpus diagram is drawn in.
pub(crate) fn frame() -> Frame<'static> {
    Frame {
        id: "d",
        title: "Diagram",
        t: &EN,
        inline_style: false,
    }
}

/// The diagram `parse` reads from `name`'s source; when it reads none, or fails, a line on
/// `wrong` that says so (`kind` names what it should have been, as "a state diagram").
pub(crate) fn read_or_say<D>(
    wrong: &mut Vec<String>,
    name: &str,
    kind: &str,
    parsed: Option<Result<D, Unsupported>>,
) -> Option<D> {
    match parsed {
        Some(Ok(d)) => Some(d),
        Some(Err(e)) => {
            wrong.push(format!("{name}: not read: {} at {}", e.message, e.offset));
            None
        }
        None => {
            wrong.push(format!("{name}: not {kind}"));
            None
        }
    }
}

/// `parse` refuses every diagram of `corpus` that mermaid.js rejects, saying where (an offset
/// within the source) and why; the corpus keeps at least one such diagram.
pub(crate) fn assert_rejects_say_where<D: Debug>(
    corpus: &Corpus,
    parse: impl Fn(&str) -> Option<Result<D, Unsupported>>,
) {
    let reference = corpus.reference();
    let mut rejected = 0;
    for (name, src) in corpus.diagrams() {
        if reference["diagrams"][&name].get("error").is_none() {
            continue;
        }
        rejected += 1;
        match parse(&src) {
            Some(Err(e)) => assert!(e.offset <= src.len() && !e.message.is_empty(), "{name}"),
            other => panic!("{name}: read: {other:?}"),
        }
    }
    assert!(rejected > 0);
}

/// Whether our reading of `what` equals mermaid's; when not, a line on `wrong` that shows
/// both.
pub(crate) fn same_as_mermaid<T: PartialEq + Debug>(
    wrong: &mut Vec<String>,
    name: &str,
    what: &str,
    ours: &T,
    mermaids: &T,
) -> bool {
    if ours == mermaids {
        return true;
    }
    wrong.push(format!(
        "{name}: {what}: ours {ours:?}, mermaid's {mermaids:?}"
    ));
    false
}

/// How often each (from, to) pair occurs: edges compared as a multiset.
pub(crate) fn edge_counts<T: Ord>(
    pairs: impl IntoIterator<Item = (T, T)>,
) -> BTreeMap<(T, T), usize> {
    let mut counts = BTreeMap::new();
    for pair in pairs {
        *counts.entry(pair).or_default() += 1;
    }
    counts
}

/// The lines on `wrong`, if any, as a failure that counts them.
pub(crate) fn assert_none_differ(wrong: &[String]) {
    assert!(
        wrong.is_empty(),
        "{} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// The diagrams of `all` that are not drawn are exactly those `named` (each with its
/// reason), and at least 97 percent are drawn.
pub(crate) fn assert_drawn_but_named(
    all: &[(String, String)],
    named: &[(&str, &str)],
    drawn: impl Fn(&str) -> bool,
) {
    let not_drawn: Vec<&str> = all
        .iter()
        .filter(|(_, src)| !drawn(src))
        .map(|(name, _)| name.as_str())
        .collect();
    let named: Vec<&str> = named.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        not_drawn, named,
        "the diagrams not drawn are the ones named"
    );
    let drawn = all.len() - not_drawn.len();
    assert!(
        drawn * 100 >= all.len() * 97,
        "{drawn} of {} drawn",
        all.len()
    );
}

/// Every diagram `svg` draws passes [`geometry_faults`]; `svg` gives `None` for one not drawn.
pub(crate) fn assert_geometry(all: &[(String, String)], svg: impl Fn(&str) -> Option<String>) {
    let mut bad = Vec::new();
    let mut count = 0;
    for (name, src) in all {
        let Some(svg) = svg(src) else {
            continue;
        };
        let mut faults = geometry_faults(&svg);
        let out = super::books::outside(&svg);
        if !out.is_empty() {
            faults.push(format!(
                "lines leave the drawing at {:?}",
                &out[..out.len().min(2)]
            ));
        }
        count += faults.len();
        if !faults.is_empty() {
            bad.push(format!("{name}: {}", faults.join("; ")));
        }
    }
    assert!(
        bad.is_empty(),
        "{count} faults in {} diagrams:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// Whether two boxes overlap by more than half a pixel each way.
pub(crate) fn overlap(a: &Bounds, b: &Bounds) -> bool {
    a.left() + 0.5 < b.right()
        && b.left() + 0.5 < a.right()
        && a.top() + 0.5 < b.bottom()
        && b.top() + 0.5 < a.bottom()
}

/// Whether `a` lies within `b`, give or take half a pixel (a member in its group's box).
pub(crate) fn inside(a: &Bounds, b: &Bounds) -> bool {
    a.left() >= b.left() - 0.5
        && a.right() <= b.right() + 0.5
        && a.top() >= b.top() - 0.5
        && a.bottom() <= b.bottom() + 0.5
}

/// The pairs of node boxes of a layout that overlap, by their index in `laid.nodes`.
pub(crate) fn overlapping_boxes(laid: &Drawing) -> Vec<(usize, usize)> {
    let boxes: Vec<(usize, Bounds)> = laid
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| n.as_ref().map(|n| (i, n.bounds)))
        .collect();
    let mut pairs = Vec::new();
    for (k, (i, a)) in boxes.iter().enumerate() {
        for (j, b) in &boxes[k + 1..] {
            if overlap(a, b) {
                pairs.push((*i, *j));
            }
        }
    }
    pairs
}

/// `svg` (of the diagram `name`) marks every node of `ids` with its `data-node`, holds
/// `edges` `data-edge`s, has a title and a description, and nothing that runs.
pub(crate) fn assert_parts_marked<'a>(
    name: &str,
    svg: &str,
    ids: impl IntoIterator<Item = &'a str>,
    edges: usize,
) {
    for id in ids {
        let mut attr = "data-node=\"".to_string();
        crate::html::escape_into(&id.replace('\'', "\u{1}"), &mut attr);
        let attr = attr.replace('\u{1}', "&#39;") + "\"";
        assert!(svg.contains(&attr), "{name}: {id}");
    }
    assert_eq!(svg.matches("data-edge=").count(), edges, "{name}");
    assert!(svg.contains("<title") && svg.contains("<desc"), "{name}");
    assert!(!svg.contains("<script") && !svg.contains("foreignObject"));
}

/// Writes the SVG of every diagram `svg` draws to the folder `CORPUS_SVG_DIR` names, to look
/// at.
pub(crate) fn write_svgs(all: &[(String, String)], svg: impl Fn(&str) -> Option<String>) {
    let dir = std::env::var("CORPUS_SVG_DIR").expect("CORPUS_SVG_DIR");
    std::fs::create_dir_all(&dir).expect("a directory");
    for (name, src) in all {
        if let Some(svg) = svg(src) {
            std::fs::write(Path::new(&dir).join(format!("{name}.svg")), svg).expect("written");
        }
    }
}

/// Runs `draw` on the prefixes of every diagram cut every `step` bytes (at character
/// boundaries), which must not panic.
pub(crate) fn draw_prefixes(all: &[(String, String)], step: usize, draw: impl Fn(&str)) {
    for (_, src) in all {
        for cut in (0..=src.len()).step_by(step) {
            if src.is_char_boundary(cut) {
                draw(&src[..cut]);
            }
        }
    }
}
