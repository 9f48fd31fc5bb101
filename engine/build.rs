//! Generates one `#[test]` per conformance fixture (`fixtures/conformance/*.md`), so a failing
//! case is reported by name. The tests themselves live in `src/tests/conformance.rs`, which
//! `include!`s the generated file.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;
use std::{env, fs};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=../fixtures/conformance");
    let manifest = env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let out_dir = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let dir = Path::new(&manifest).join("../fixtures/conformance");

    // A packaged crate has no fixtures: generate nothing rather than fail the build.
    let mut names: Vec<String> = fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .filter_map(|f| f.strip_suffix(".md").map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    names.sort();

    let mut used = BTreeSet::new();
    let mut code = String::new();
    for name in &names {
        let base = identifier(name);
        let mut ident = base.clone();
        let mut n = 2;
        while !used.insert(ident.clone()) {
            ident = format!("{base}_{n}");
            n += 1;
        }
        // Writing into a String cannot fail.
        let _ = writeln!(
            code,
            "#[test]\nfn {ident}() {{\n    run_fixture({name:?});\n}}\n"
        );
    }
    fs::write(Path::new(&out_dir).join("conformance_fixtures.rs"), code)
        .expect("write the generated conformance tests");

    spec_examples(&manifest, &out_dir);
    github_corpus(&manifest, &out_dir);
}

/// One `#[test]` per document of `fixtures/github-readmes/` (`github_readme_sharkdp_bat_readme_md`),
/// run by `tests/github_corpus.rs`.
fn github_corpus(manifest: &str, out_dir: &str) {
    println!("cargo:rerun-if-changed=../fixtures/github-readmes");
    let dir = Path::new(manifest).join("../fixtures/github-readmes");
    let mut names: Vec<String> = fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|f| f.ends_with(".md") && f != "SOURCE.md")
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut code = String::new();
    for name in &names {
        // Writing into a String cannot fail.
        let _ = writeln!(
            code,
            "#[test]\nfn github_readme_{}() {{\n    run_document({name:?});\n}}\n",
            identifier(name)
        );
    }
    fs::write(Path::new(out_dir).join("github_corpus.rs"), code)
        .expect("write the generated corpus tests");
}

/// One `#[test]` per example of `fixtures/spec/*.json` (`commonmark_0_31_2_0042`), run by
/// `src/tests/spec_examples.rs`. The numbers are read from the `"example": N` lines.
fn spec_examples(manifest: &str, out_dir: &str) {
    println!("cargo:rerun-if-changed=../fixtures/spec");
    let mut code = String::new();
    for spec in ["commonmark-0.31.2", "gfm-0.29"] {
        let path = Path::new(manifest).join(format!("../fixtures/spec/{spec}.json"));
        let text = fs::read_to_string(path).unwrap_or_default();
        let prefix = identifier(spec);
        for line in text.lines() {
            let Some(n) = line.trim().strip_prefix("\"example\": ") else {
                continue;
            };
            let Ok(n) = n.trim_end_matches(',').parse::<u32>() else {
                continue;
            };
            // Writing into a String cannot fail.
            let _ = writeln!(
                code,
                "#[test]\nfn {prefix}_{n:04}() {{\n    run_example({spec:?}, {n});\n}}\n"
            );
        }
    }
    fs::write(Path::new(out_dir).join("spec_examples.rs"), code)
        .expect("write the generated spec-example tests");
}

/// `single-choice.options-too-few` → `single_choice_options_too_few` (snake case: runs of
/// other characters become one `_`).
fn identifier(name: &str) -> String {
    let mut s = String::with_capacity(name.len() + 8);
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if !s.is_empty() && !s.ends_with('_') {
            s.push('_');
        }
    }
    while s.ends_with('_') {
        s.pop();
    }
    let keyword = matches!(
        s.as_str(),
        "as" | "break"
            | "const"
            | "continue"
            | "crate"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "self"
            | "static"
            | "struct"
            | "super"
            | "trait"
            | "true"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
            | "async"
            | "await"
            | "dyn"
            | "abstract"
            | "become"
            | "box"
            | "do"
            | "final"
            | "macro"
            | "override"
            | "priv"
            | "typeof"
            | "unsized"
            | "virtual"
            | "yield"
            | "try"
            | "gen"
    );
    if s.is_empty() || keyword || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert_str(0, "fixture_");
    }
    s
}
