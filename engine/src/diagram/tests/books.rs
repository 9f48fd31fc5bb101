//! The diagrams of the public books that used mdbook-mermaid (`fixtures/mdbook-mermaid-books/`),
//! drawn as the mdBook preprocessor draws them: every one drawn, every line inside the drawing
//! (curves sampled, not only their end points), and the flowcharts pass the corpus's geometric
//! check (no two boxes overlap, no edge through a box it does not join, no label on a box).

use crate::diagram::tests::corpus::geometry_faults;
use crate::diagram::{Alone, draw_alone};
use std::path::{Path, PathBuf};

fn chapters(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            chapters(&p, out);
        } else if p.extension().is_some_and(|x| x == "md") {
            out.push(p);
        }
    }
}

/// Each ```` ```mermaid ```` fence's body (at the top level of its chapter, as these books
/// write them).
fn fences(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut body: Option<String> = None;
    for line in markdown.lines() {
        match body.as_mut() {
            None if line.trim_start().trim_end() == "```mermaid" => body = Some(String::new()),
            Some(b) if line.trim_start().starts_with("```") => {
                out.push(std::mem::take(b));
                body = None;
            }
            Some(b) => {
                b.push_str(line);
                b.push('\n');
            }
            None => {}
        }
    }
    out
}

/// The points of the SVG's lines (`M`, `L` and `C` paths, as the engine writes them) that lie
/// outside its `viewBox`, cubic curves sampled along their length. Every kind's corpus test
/// checks its drawings with it too.
pub fn outside(svg: &str) -> Vec<(f64, f64)> {
    let number = |s: &str| s.parse::<f64>().ok();
    let view = svg
        .split("viewBox=\"")
        .nth(1)
        .or_else(|| svg.split("viewbox=\"").nth(1))
        .and_then(|v| v.split('"').next())
        .map(|v| v.split(' ').filter_map(number).collect::<Vec<_>>())
        .unwrap_or_default();
    let [x0, y0, w, h] = view[..] else {
        return vec![(f64::NAN, f64::NAN)];
    };
    let mut out = Vec::new();
    let mut check = |x: f64, y: f64| {
        if x < x0 - 1.0 || y < y0 - 1.0 || x > x0 + w + 1.0 || y > y0 + h + 1.0 {
            out.push((x, y));
        }
    };
    for d in svg
        .split(" d=\"")
        .skip(1)
        .filter_map(|r| r.split('"').next())
    {
        if d.contains(['A', 'a', 'V', 'H', 'Q', 'S']) {
            continue;
        }
        let mut points = d
            .split([' ', 'M', 'L', 'C', 'Z'])
            .filter(|t| !t.is_empty())
            .filter_map(|t| t.split_once(','))
            .filter_map(|(x, y)| Some((number(x)?, number(y)?)));
        let commands: Vec<char> = d.chars().filter(|c| matches!(c, 'M' | 'L' | 'C')).collect();
        let mut at = (0.0, 0.0);
        for c in commands {
            if c == 'M' || c == 'L' {
                let Some(p) = points.next() else { break };
                check(p.0, p.1);
                at = p;
            } else {
                let (Some(b), Some(c), Some(e)) = (points.next(), points.next(), points.next())
                else {
                    break;
                };
                for k in 1..=16 {
                    let t = f64::from(k) / 16.0;
                    let u = 1.0 - t;
                    let f = [u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t];
                    check(
                        f[0] * at.0 + f[1] * b.0 + f[2] * c.0 + f[3] * e.0,
                        f[0] * at.1 + f[1] * b.1 + f[2] * c.1 + f[3] * e.1,
                    );
                }
                at = e;
            }
        }
    }
    out
}

#[test]
fn every_diagram_of_the_books_is_drawn_and_the_flowcharts_are_tidy() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/mdbook-mermaid-books");
    let mut files = Vec::new();
    chapters(&root, &mut files);
    files.sort();
    let (mut drawn, mut problems) = (0, Vec::new());
    for file in &files {
        let text = std::fs::read_to_string(file).expect("chapter");
        for (k, source) in fences(&text).iter().enumerate() {
            let at = format!("{}#{k}", file.strip_prefix(&root).unwrap_or(file).display());
            match draw_alone(source, "d") {
                Alone::Drawn { svg, .. } => {
                    drawn += 1;
                    let out = outside(&svg);
                    if !out.is_empty() {
                        problems.push(format!(
                            "{at}: lines leave the drawing at {:?}",
                            &out[..out.len().min(3)]
                        ));
                    }
                    let kind = source
                        .lines()
                        .map(str::trim)
                        .find(|l| !l.is_empty() && !l.starts_with("%%"))
                        .unwrap_or("");
                    if kind.starts_with("graph") || kind.starts_with("flowchart") {
                        problems.extend(
                            geometry_faults(&svg)
                                .into_iter()
                                .map(|f| format!("{at}: {f}")),
                        );
                    }
                }
                Alone::NotDrawn { reason, line } => problems.push(format!("{at}:{line}: {reason}")),
            }
        }
    }
    assert_eq!(drawn, 31, "{problems:#?}");
    assert!(problems.is_empty(), "{problems:#?}");
}
