//! Golden HTML: every `fixtures/golden/NAME.md` is rendered as a fragment on each surface and
//! compared with `fixtures/golden/NAME.<surface>.html`. Set `UPDATE_GOLDEN=1` to write the
//! files instead (then read the diff: a golden file is only as good as its review).
//!
//! The content hash depends on the engine version and the stylesheet, so it is replaced by
//! `HASH` (and its 8-digit id prefix by `HASH8`) before comparing.

use passback_engine::{Format, Options, Surface, render};
use std::path::{Path, PathBuf};

const SURFACES: [Surface; 3] = [Surface::Page, Surface::Routed, Surface::Email];

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/golden")
}

fn documents() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(golden_dir())
        .expect("fixtures/golden exists")
        .map(|e| {
            e.expect("readable directory entry")
                .file_name()
                .into_string()
                .expect("UTF-8 file names")
        })
        .filter_map(|f| f.strip_suffix(".md").map(str::to_string))
        .collect();
    names.sort();
    names
}

fn rendered(src: &str, surface: Surface) -> String {
    let out = render(
        src,
        &Options::default()
            .with_surface(surface)
            .with_format(Format::Fragment),
    );
    let mut html = out.html.replace(&out.hash, "HASH");
    html = html.replace(&format!("pb-{}-", &out.hash[..8]), "pb-HASH8-");
    html.push('\n');
    html
}

/// The first place two texts differ, with a little context.
fn first_difference(expected: &str, actual: &str) -> String {
    let at = expected
        .char_indices()
        .zip(actual.chars())
        .find(|((_, a), b)| a != b)
        .map(|((i, _), _)| i)
        .unwrap_or_else(|| expected.len().min(actual.len()));
    let window = |s: &str| {
        let mut start = at.saturating_sub(80).min(s.len());
        while !s.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (at + 80).min(s.len());
        while !s.is_char_boundary(end) {
            end += 1;
        }
        s[start..end].to_string()
    };
    format!(
        "first difference at byte {at}\n  expected: …{}…\n  actual:   …{}…",
        window(expected),
        window(actual)
    )
}

#[test]
fn golden_html_matches() {
    let update = std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1");
    let names = documents();
    assert!(!names.is_empty(), "fixtures/golden has no documents");
    let mut failures = Vec::new();
    for name in &names {
        let src = std::fs::read_to_string(golden_dir().join(format!("{name}.md")))
            .unwrap_or_else(|e| panic!("{name}.md: {e}"));
        let text = render(
            &src,
            &Options::default()
                .with_surface(Surface::Email)
                .with_format(Format::Text),
        )
        .body()
        .to_string();
        let outputs = SURFACES
            .iter()
            .map(|s| (format!("{name}.{}.html", s.name()), rendered(&src, *s)))
            .chain(std::iter::once((format!("{name}.email.txt"), text)));
        for (file, actual) in outputs {
            let path = golden_dir().join(&file);
            if update {
                std::fs::write(&path, &actual)
                    .unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
                continue;
            }
            match std::fs::read_to_string(&path) {
                Ok(expected) if expected == actual => {}
                Ok(expected) => {
                    failures.push(format!("{file}: {}", first_difference(&expected, &actual)))
                }
                Err(e) => failures.push(format!(
                    "{}: {e} (run with UPDATE_GOLDEN=1 to create it)",
                    path.display()
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden file(s) differ (UPDATE_GOLDEN=1 rewrites them; review the diff):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_golden_html_has_its_document() {
    let names = documents();
    let surfaces: Vec<&str> = SURFACES.iter().map(|s| s.name()).collect();
    let mut strays = Vec::new();
    for entry in std::fs::read_dir(golden_dir()).expect("fixtures/golden exists") {
        let file = entry
            .expect("readable directory entry")
            .file_name()
            .into_string()
            .expect("UTF-8 file names");
        if file.ends_with(".md") {
            continue;
        }
        if let Some(doc) = file.strip_suffix(".email.txt")
            && names.iter().any(|n| n == doc)
        {
            continue;
        }
        let owned = file.strip_suffix(".html").and_then(|stem| {
            let (doc, surface) = stem.rsplit_once('.')?;
            (names.iter().any(|n| n == doc) && surfaces.contains(&surface)).then_some(())
        });
        if owned.is_none() {
            strays.push(file);
        }
    }
    assert!(
        strays.is_empty(),
        "files in fixtures/golden that no document renders to: {strays:?}"
    );
}

#[test]
fn golden_documents_are_valid() {
    for name in documents() {
        if name.starts_with("invalid") {
            continue;
        }
        let src = std::fs::read_to_string(golden_dir().join(format!("{name}.md")))
            .unwrap_or_else(|e| panic!("{name}.md: {e}"));
        let v = passback_engine::validate(&src);
        // Notes on how a block was read (raw Mermaid) ask for nothing.
        assert!(
            v.ok && v.diagnostics.iter().all(|d| d.severity.name() == "info"),
            "{name}.md should be a clean document: {:#?}",
            v.diagnostics
        );
    }
}
