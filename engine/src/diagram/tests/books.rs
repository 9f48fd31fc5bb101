//! The diagrams of the public books that used mdbook-mermaid (`fixtures/mdbook-mermaid-books/`),
//! drawn as the mdBook preprocessor draws them: every one drawn, and the flowcharts pass the
//! corpus's geometric check (no two boxes overlap, no edge through a box it does not join, no
//! label on a box).

use crate::diagram::flowchart::tests::corpus::geometry_faults;
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
                Alone::Drawn(svg) => {
                    drawn += 1;
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
