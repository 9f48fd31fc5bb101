//! The engine's modules depend downward only: read every `crate::` path in the engine's sources
//! (tests excluded), take the top-level module it names, and require the graph between the
//! top-level modules to have no cycle. Paths must name a module (`crate::options::Options`, not
//! the crate root's re-export `crate::Options`), so every dependency shows in the graph.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("readable source directory") {
        let path = entry.expect("readable entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a source file belongs to (`components/list.rs` → `components`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src");
    let first = rel.components().next().expect("a path");
    let name = first.as_os_str().to_string_lossy();
    name.trim_end_matches(".rs").to_string()
}

/// The file's code before its unit tests (`#[cfg(test)]` followed by a `mod`).
fn without_tests(text: &str) -> &str {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.trim() == "#[cfg(test)]" {
            let rest = &text[at + line.len()..];
            if rest.trim_start().starts_with("mod ")
                || rest.trim_start().starts_with("pub(crate) mod ")
            {
                return &text[..at];
            }
        }
        at += line.len();
    }
    text
}

/// The first path segment of every `crate::…` path, expanding `crate::{a, b::c}` groups.
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let after = &rest[i + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let mut depth = 0;
            let end = group
                .char_indices()
                .find(|&(_, c)| {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => return true,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    false
                })
                .map_or(group.len(), |(e, _)| e);
            let mut depth = 0;
            let mut start = 0;
            let inner = &group[..end];
            for (k, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(first_ident(&inner[start..k]));
                        start = k + 1;
                    }
                    _ => {}
                }
            }
            out.push(first_ident(&inner[start..]));
        } else {
            out.push(first_ident(after));
        }
        rest = after;
    }
    out.retain(|s| !s.is_empty());
    out
}

fn first_ident(s: &str) -> String {
    s.trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

#[test]
fn modules_depend_downward_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let modules: BTreeSet<String> = files
        .iter()
        .map(|f| module_of(&src, f))
        .filter(|m| m != "lib")
        .collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut not_modules = Vec::new();
    for file in &files {
        let from = module_of(&src, file);
        if from == "lib" || from == "tests" {
            continue;
        }
        let text = fs::read_to_string(file).expect("readable source");
        // Comments may name anything (doc links included).
        let code: String = without_tests(&text)
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        for to in crate_paths(&code) {
            if !modules.contains(&to) {
                not_modules.push(format!("{}: crate::{to}", file.display()));
            } else if to != from {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    assert!(
        not_modules.is_empty(),
        "name the defining module, not the crate root's re-export:\n{}",
        not_modules.join("\n")
    );
    // Depth-first search for a cycle; report it as a path.
    fn visit(
        m: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|s| s == m) {
            let mut cycle = stack[at..].to_vec();
            cycle.push(m.to_string());
            return Some(cycle);
        }
        if done.contains(m) {
            return None;
        }
        stack.push(m.to_string());
        for next in edges.get(m).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, stack, done) {
                return Some(cycle);
            }
        }
        stack.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for m in &modules {
        if let Some(cycle) = visit(m, &edges, &mut Vec::new(), &mut done) {
            panic!("import circle: {}", cycle.join(" → "));
        }
    }
}

#[test]
fn the_reader_of_paths_sees_groups_and_nesting() {
    assert_eq!(
        crate_paths("use crate::{a, b::{c, d}, e::F};\nlet x = crate::g::h();"),
        ["a", "b", "e", "g"]
    );
    assert_eq!(
        without_tests("fn a() {}\n#[cfg(test)]\nmod tests {\n use crate::x;\n}\n"),
        "fn a() {}\n"
    );
}
