//! Modules depend downward only, with no import circle at any depth: every module of a crate
//! is read (tests excluded), every path its code names is resolved to the module it names, and
//! the graph between sibling modules, at every level of the module tree, must have no cycle.
//!
//! What counts, precisely:
//!
//! - **Modules.** Every `.rs` file under `src/` and every inline `mod x { … }` block. A file's
//!   module path comes from its path: `diagram/flowchart/layout.rs` (or `…/layout/mod.rs`) is
//!   `diagram::flowchart::layout`. The library (`lib.rs`) and the binary (`main.rs`) are
//!   checked apart, a file belonging to the binary when the binary's `mod` declarations reach
//!   it. Test code is left out: an item under `#[cfg(test)]` (a `mod tests`, a test-only
//!   function or import, and the files of a test module) is not read.
//! - **Paths.** Every path in the code and every path of a `use` tree (groups `{a, b::c}`,
//!   `self` in a group, `as` renames, globs) that starts with `crate::`, `super::`, `self::`
//!   (or `$crate::` in a macro), or with the name of one of the module's own child modules.
//!   A path names the deepest module its leading segments spell. Paths into other crates, and
//!   names brought in by a `use` (already counted there), add nothing.
//! - **Edges.** A path from module A into module B is an edge between the two children of
//!   their deepest common ancestor that hold them: `diagram::flowchart::layout` naming
//!   `diagram::route::Rect` is the edge `flowchart → route` within `diagram`. A module naming
//!   its own descendants is the downward direction itself and adds no edge.
//! - **A child naming an ancestor's own items** (an item written in the ancestor's own file: a
//!   trait its children implement, a model they share) is allowed and adds no edge: a parent's
//!   own file is the level's common ground, as `components/mod.rs` holds the `Component` trait
//!   every component implements and the registry that dispatches to them. What is refused is
//!   naming what an ancestor only imports, re-exported or not (`crate::Options` for
//!   `crate::options::Options`, or `super::layout` for a `use` in the parent): the dependency
//!   would not show in the graph, so the path must name the defining module.
//! - **The rule.** At every level, the edges between siblings form no cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A module's path below its crate root (empty for the root).
type ModPath = Vec<String>;

/// The edges between the children of one module: each child and the siblings it names.
type Siblings = BTreeMap<String, BTreeSet<String>>;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
}

/// The tokens of Rust source that matter for paths: identifiers, `::` and punctuation, with
/// comments, string and character literals, lifetimes and numbers left out.
fn tokens(src: &str) -> Vec<Tok> {
    let c: Vec<char> = src.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let is_ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut out = Vec::new();
    let mut i = 0;
    // Skips a quoted literal whose opening quote is at `i`; returns the index after it.
    let quoted = |mut i: usize, quote: char| {
        i += 1;
        while i < c.len() && c[i] != quote {
            i += if c[i] == '\\' { 2 } else { 1 };
        }
        i + 1
    };
    // Skips a raw string whose `#`s (or opening quote) start at `i`.
    let raw = |mut i: usize| {
        let mut hashes = 0;
        while at(i) == '#' {
            hashes += 1;
            i += 1;
        }
        i += 1;
        loop {
            if i >= c.len() {
                return i;
            }
            if c[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#') {
                return i + 1 + hashes;
            }
            i += 1;
        }
    };
    while i < c.len() {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == '"' {
            i = quoted(i, '"');
        } else if ch == '\'' {
            if at(i + 1) == '\\' || at(i + 2) == '\'' {
                i = quoted(i, '\'');
            } else {
                // A lifetime or a label.
                i += 1;
                while i < c.len() && is_ident(c[i]) {
                    i += 1;
                }
            }
        } else if ch.is_ascii_digit() {
            while i < c.len() && (is_ident(c[i]) || (c[i] == '.' && at(i + 1).is_ascii_digit())) {
                i += 1;
            }
        } else if is_ident(ch) || (ch == '$' && is_ident(at(i + 1))) {
            let start = i;
            i += 1;
            while i < c.len() && is_ident(c[i]) {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            match (word.as_str(), at(i)) {
                ("r" | "br", '"') => i = raw(i),
                ("r" | "br", '#') if matches!(at(i + 1), '#' | '"') => i = raw(i),
                // A raw identifier, `r#type`.
                ("r", '#') => i += 1,
                ("b", '"') => i = quoted(i, '"'),
                ("b", '\'') => i = quoted(i, '\''),
                ("$crate", _) => out.push(Tok::Ident("crate".into())),
                _ if word.starts_with('$') => {}
                _ => out.push(Tok::Ident(word)),
            }
        } else if ch == ':' && at(i + 1) == ':' {
            out.push(Tok::Sep);
            i += 2;
        } else {
            out.push(Tok::Punct(ch));
            i += 1;
        }
    }
    out
}

/// What one file's code names, read from its tokens.
#[derive(Debug, Default)]
struct FileRead {
    /// `mod x;` declarations: the module they declare.
    declared: Vec<ModPath>,
    /// Inline `mod x { … }` blocks.
    inline: Vec<ModPath>,
    /// Every path named: the module it is named in, and its segments (a leading `::` kept as
    /// an empty first segment).
    paths: Vec<(ModPath, Vec<String>)>,
    /// Names each module brings in with `use` (re-exported or not).
    imports: Vec<(ModPath, String)>,
    /// Modules declared under `#[cfg(test)]`.
    tests: Vec<ModPath>,
}

fn is(t: Option<&Tok>, word: &str) -> bool {
    matches!(t, Some(Tok::Ident(w)) if w == word)
}

fn punct(t: Option<&Tok>, p: char) -> bool {
    t == Some(&Tok::Punct(p))
}

/// The index after the bracket that closes the one at `i`.
fn closing(toks: &[Tok], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < toks.len() {
        match &toks[i] {
            Tok::Punct('{' | '(' | '[') => depth += 1,
            Tok::Punct('}' | ')' | ']') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// The index after the item starting at `i`: its `;`, or the `}` closing its first block.
fn item_end(toks: &[Tok], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < toks.len() {
        match &toks[i] {
            Tok::Punct('{' | '(' | '[') => depth += 1,
            Tok::Punct(c @ ('}' | ')' | ']')) => {
                depth = depth.saturating_sub(1);
                if depth == 0 && *c == '}' {
                    return i + 1;
                }
            }
            Tok::Punct(';') if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    i
}

/// The paths of the `use` tree starting at `i` (after `use`), each prefixed by `prefix`;
/// returns the index after the tree.
fn use_tree(
    toks: &[Tok],
    mut i: usize,
    prefix: &[String],
    out: &mut Vec<(Vec<String>, String)>,
) -> usize {
    let mut path = prefix.to_vec();
    if toks.get(i) == Some(&Tok::Sep) {
        path.push(String::new());
        i += 1;
    }
    loop {
        match toks.get(i) {
            Some(Tok::Punct('{')) => {
                i += 1;
                while !punct(toks.get(i), '}') && i < toks.len() {
                    let next = use_tree(toks, i, &path, out);
                    // A token no use tree holds: step over it rather than stop.
                    i = if punct(toks.get(next), ',') || next == i {
                        next + 1
                    } else {
                        next
                    };
                }
                return i + 1;
            }
            Some(Tok::Punct('*')) => {
                out.push((path, "*".into()));
                return i + 1;
            }
            Some(Tok::Ident(w)) if w == "self" && !path.is_empty() => {
                // `a::{self}`: the module `a` itself.
                let name = path.last().cloned().unwrap_or_default();
                let name = alias(toks, i + 1).unwrap_or(name);
                out.push((path, name));
                return skip_alias(toks, i + 1);
            }
            Some(Tok::Ident(w)) => {
                path.push(w.clone());
                if toks.get(i + 1) == Some(&Tok::Sep) {
                    i += 2;
                } else {
                    let name = alias(toks, i + 1).unwrap_or_else(|| w.clone());
                    out.push((path, name));
                    return skip_alias(toks, i + 1);
                }
            }
            _ => return i,
        }
    }
}

/// The name after `as` at `i`, if there is one.
fn alias(toks: &[Tok], i: usize) -> Option<String> {
    match (is(toks.get(i), "as"), toks.get(i + 1)) {
        (true, Some(Tok::Ident(name))) => Some(name.clone()),
        _ => None,
    }
}

fn skip_alias(toks: &[Tok], i: usize) -> usize {
    if is(toks.get(i), "as") { i + 2 } else { i }
}

/// Reads one file of module `module`.
fn read_file(text: &str, module: &ModPath) -> FileRead {
    let toks = tokens(text);
    let mut read = FileRead::default();
    // The module the tokens are in, with the brace depth each inline module opened at.
    let mut within: Vec<(ModPath, usize)> = vec![(module.clone(), 0)];
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let here = within.last().map(|(m, _)| m.clone()).unwrap_or_default();
        match &toks[i] {
            // An outer attribute: `#[cfg(test)]` takes the item after it out.
            Tok::Punct('#') if punct(toks.get(i + 1), '[') => {
                let end = closing(&toks, i + 1);
                let attr = &toks[i + 2..end.saturating_sub(1)];
                let test = matches!(attr, [Tok::Ident(cfg), Tok::Punct('('), Tok::Ident(t), Tok::Punct(')')] if cfg == "cfg" && t == "test");
                i = end;
                if test {
                    // Further attributes of the same item, then the item.
                    while punct(toks.get(i), '#') && punct(toks.get(i + 1), '[') {
                        i = closing(&toks, i + 1);
                    }
                    // `mod`, `pub mod`, `pub(…) mod`.
                    let mut k = i;
                    if is(toks.get(k), "pub") {
                        k += 1;
                        if punct(toks.get(k), '(') {
                            k = closing(&toks, k);
                        }
                    }
                    if let (true, Some(Tok::Ident(name))) =
                        (is(toks.get(k), "mod"), toks.get(k + 1))
                    {
                        let mut m = here.clone();
                        m.push(name.clone());
                        read.tests.push(m);
                    }
                    i = item_end(&toks, i);
                }
                continue;
            }
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if within.len() > 1 && within.last().is_some_and(|(_, d)| *d == depth) {
                    within.pop();
                }
            }
            Tok::Ident(w) if w == "mod" => {
                if let Some(Tok::Ident(name)) = toks.get(i + 1) {
                    let mut child = here.clone();
                    child.push(name.clone());
                    if punct(toks.get(i + 2), ';') {
                        read.declared.push(child);
                    } else if punct(toks.get(i + 2), '{') {
                        read.inline.push(child.clone());
                        within.push((child, depth));
                        depth += 1;
                        i += 3;
                        continue;
                    }
                }
            }
            Tok::Ident(w) if w == "use" => {
                let mut paths = Vec::new();
                i = use_tree(&toks, i + 1, &[], &mut paths);
                for (path, name) in paths {
                    read.imports.push((here.clone(), name));
                    read.paths.push((here.clone(), path));
                }
                continue;
            }
            Tok::Ident(first) if toks.get(i + 1) == Some(&Tok::Sep) => {
                let leading = i > 0 && toks[i - 1] == Tok::Sep;
                if !leading {
                    let mut path = vec![first.clone()];
                    let mut k = i + 1;
                    while toks.get(k) == Some(&Tok::Sep) {
                        match toks.get(k + 1) {
                            Some(Tok::Ident(w)) => {
                                path.push(w.clone());
                                k += 2;
                            }
                            _ => break,
                        }
                    }
                    read.paths.push((here, path));
                    i = k;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    read
}

/// A crate's module tree and what each module names.
#[derive(Debug, Default)]
struct Crate {
    modules: BTreeSet<ModPath>,
    imports: BTreeMap<ModPath, BTreeSet<String>>,
    paths: Vec<(ModPath, Vec<String>, PathBuf)>,
}

impl Crate {
    fn add(&mut self, file: &Path, module: &ModPath, read: &FileRead) {
        self.modules.insert(module.clone());
        self.modules.extend(read.inline.iter().cloned());
        for (m, name) in &read.imports {
            self.imports
                .entry(m.clone())
                .or_default()
                .insert(name.clone());
        }
        for (m, p) in &read.paths {
            self.paths.push((m.clone(), p.clone(), file.to_path_buf()));
        }
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// A file's module path from its path below `src`: `a/b.rs` and `a/b/mod.rs` are `a::b`;
/// `lib.rs` and `main.rs` are crate roots.
fn module_of(src: &Path, file: &Path) -> ModPath {
    let rel = file.strip_prefix(src).unwrap_or(file);
    let mut parts: ModPath = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") || parts == ["lib"] || parts == ["main"] {
        parts.pop();
    }
    parts
}

/// The crates whose sources are in `src`: the library (`lib.rs`) and the binary (`main.rs`),
/// each named by its root file. Every `.rs` file is read (found by walking the directory, not
/// only by following `mod` declarations, so modules a macro declares count too), its module
/// path taken from its path. A file belongs to the binary when the binary's `mod`
/// declarations reach it, else to the library; a file of a module declared under
/// `#[cfg(test)]` is test code and left out. (`src/bin/` is not read: no crate here has one.)
fn read_crates(src: &Path) -> Result<Vec<(String, Crate)>, String> {
    let mut files = Vec::new();
    rust_files(src, &mut files)?;
    files.retain(|f| !f.strip_prefix(src).is_ok_and(|rel| rel.starts_with("bin")));
    files.sort();
    let mut reads = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let module = module_of(src, file);
        let read = read_file(&text, &module);
        reads.push((file.clone(), module, read));
    }
    let tests: Vec<ModPath> = reads
        .iter()
        .flat_map(|(_, _, r)| r.tests.iter().cloned())
        .collect();
    let is_test = |m: &ModPath| tests.iter().any(|t| m.starts_with(t));
    let (lib_rs, main_rs) = (src.join("lib.rs"), src.join("main.rs"));
    let mut crates = Vec::new();
    // The binary first: what its `mod` declarations reach is its own.
    let mut binary_files: BTreeSet<&PathBuf> = BTreeSet::new();
    if let Some((root, _, root_read)) = reads.iter().find(|(f, _, _)| *f == main_rs) {
        let mut binary = Crate::default();
        binary.add(root, &ModPath::new(), root_read);
        let mut todo: Vec<ModPath> = root_read.declared.clone();
        while let Some(m) = todo.pop() {
            for (file, module, read) in reads
                .iter()
                .filter(|(f, module, _)| *module == m && *f != lib_rs)
            {
                if binary_files.insert(file) {
                    binary.add(file, module, read);
                    todo.extend(read.declared.iter().cloned());
                }
            }
        }
        crates.push(("main.rs".to_string(), binary));
    }
    if lib_rs.is_file() {
        let mut lib = Crate::default();
        for (file, module, read) in &reads {
            if *file != main_rs && !binary_files.contains(file) && !is_test(module) {
                lib.add(file, module, read);
            }
        }
        crates.insert(0, ("lib.rs".to_string(), lib));
    }
    Ok(crates)
}

/// The module path `path` names from module `at`, as far as its segments are modules; `None`
/// for a path into another crate or starting with a name brought in by a `use`, and for the
/// segment after that module (the item named, if any).
fn resolve(
    modules: &BTreeSet<ModPath>,
    at: &ModPath,
    path: &[String],
) -> Option<(ModPath, Option<String>)> {
    let mut segments = path.iter().peekable();
    let mut base: ModPath = match segments.peek().map(|s| s.as_str()) {
        Some("crate") => {
            segments.next();
            ModPath::new()
        }
        Some("self") => {
            segments.next();
            at.clone()
        }
        Some("super") => {
            let mut m = at.clone();
            while segments.peek().is_some_and(|s| *s == "super") {
                segments.next();
                m.pop()?;
            }
            m
        }
        Some(first) => {
            let mut child = at.clone();
            child.push(first.to_string());
            if !modules.contains(&child) {
                return None;
            }
            at.clone()
        }
        None => return None,
    };
    for s in segments {
        let mut next = base.clone();
        next.push(s.clone());
        if modules.contains(&next) {
            base = next;
        } else {
            return Some((base, Some(s.clone())));
        }
    }
    Some((base, None))
}

/// What [`check`] found wrong in a crate: paths naming what an ancestor imports, and import
/// circles (each a level and the siblings on one cycle there).
#[derive(Debug, Default)]
struct Findings {
    imported: Vec<String>,
    circles: Vec<String>,
}

/// The sibling graph of a crate at every level: for each parent module, edges between its
/// children.
fn levels(krate: &Crate) -> (BTreeMap<ModPath, Siblings>, Vec<String>) {
    let mut levels: BTreeMap<ModPath, Siblings> = BTreeMap::new();
    let mut imported = Vec::new();
    for (from, path, file) in &krate.paths {
        let Some((to, item)) = resolve(&krate.modules, from, path) else {
            continue;
        };
        let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
        if common == from.len() {
            // Itself or a descendant.
            continue;
        }
        if common == to.len() {
            // An ancestor's own item: allowed unless the ancestor only imports it.
            if let Some(name) =
                item.filter(|n| krate.imports.get(&to).is_some_and(|r| r.contains(n)))
            {
                imported.push(format!(
                    "{}: {} names {}::{name}, an import there",
                    file.display(),
                    path.join("::"),
                    display(&to)
                ));
            }
            continue;
        }
        levels
            .entry(from[..common].to_vec())
            .or_default()
            .entry(from[common].clone())
            .or_default()
            .insert(to[common].clone());
    }
    (levels, imported)
}

fn display(m: &ModPath) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        format!("crate::{}", m.join("::"))
    }
}

/// Each strongly connected set of siblings (more than one module, each reaching every other),
/// with one cycle through it.
fn cycles(edges: &Siblings) -> Vec<(BTreeSet<String>, Vec<String>)> {
    // The modules each reaches.
    let reach = |start: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![start.to_string()];
        while let Some(m) = todo.pop() {
            for next in edges.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let nodes: BTreeSet<&String> = edges.keys().chain(edges.values().flatten()).collect();
    let reaches: BTreeMap<&String, BTreeSet<String>> =
        nodes.iter().map(|n| (*n, reach(n))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for &n in &nodes {
        if done.contains(n) || !reaches[n].contains(n) {
            continue;
        }
        let set: BTreeSet<String> = reaches[n]
            .iter()
            .filter(|m| reaches[*m].contains(n))
            .cloned()
            .collect();
        // The shortest way back to `n`, breadth first within its set.
        let mut back: BTreeMap<String, String> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([n.clone()]);
        'search: while let Some(m) = queue.pop_front() {
            for next in edges
                .get(&m)
                .into_iter()
                .flatten()
                .filter(|x| set.contains(*x))
            {
                if next == n {
                    back.insert(n.clone(), m.clone());
                    break 'search;
                }
                if !back.contains_key(next) {
                    back.insert(next.clone(), m.clone());
                    queue.push_back(next.clone());
                }
            }
        }
        let mut cycle = vec![n.clone()];
        let mut m = back[n].clone();
        while &m != n {
            cycle.push(m.clone());
            m = back[&m].clone();
        }
        cycle.push(n.clone());
        cycle.reverse();
        done.extend(set.iter().cloned());
        out.push((set, cycle));
    }
    out
}

/// What [`check`] finds in the crates of `src`.
fn check_crate_roots(src: &Path) -> Result<Findings, String> {
    let mut findings = Findings::default();
    for (root, krate) in read_crates(src)? {
        let (levels, imported) = levels(&krate);
        findings.imported.extend(imported);
        findings.imported.dedup();
        for (parent, edges) in &levels {
            for (set, cycle) in cycles(edges) {
                findings.circles.push(format!(
                    "{} (in {}): {}{}",
                    display(parent),
                    root,
                    cycle.join(" → "),
                    if set.len() > cycle.len() - 1 {
                        format!(
                            " (all of {} reach each other)",
                            Vec::from_iter(set).join(", ")
                        )
                    } else {
                        String::new()
                    }
                ));
            }
        }
    }
    Ok(findings)
}

/// Checks the crate sources in `src`: no import circle between sibling modules at any depth,
/// and no path naming what an ancestor imports. The error lists every finding.
fn check(src: &Path) -> Result<(), String> {
    let findings = check_crate_roots(src)?;
    let mut problems = Vec::new();
    if !findings.imported.is_empty() {
        problems.push(format!(
            "name the defining module, not an ancestor's import of it:\n  {}",
            findings.imported.join("\n  ")
        ));
    }
    if !findings.circles.is_empty() {
        problems.push(format!(
            "import circles:\n  {}",
            findings.circles.join("\n  ")
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn crate_src(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(name)
        .join("src")
}

#[test]
fn the_engine_depends_downward_only() {
    if let Err(e) = check(&crate_src("engine")) {
        panic!("{e}");
    }
}

#[test]
fn the_server_depends_downward_only() {
    if let Err(e) = check(&crate_src("server")) {
        panic!("{e}");
    }
}

#[test]
fn the_mdbook_plugin_depends_downward_only() {
    if let Err(e) = check(&crate_src("mdbook-plugin")) {
        panic!("{e}");
    }
}

/// A source tree in a fresh temporary directory, from `(path, text)` pairs; removed on drop.
struct Tree(PathBuf);

impl Tree {
    fn new(name: &str, files: &[(&str, &str)]) -> Tree {
        let dir = std::env::temp_dir().join(format!("layers-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        for (path, text) in files {
            let file = dir.join(path);
            fs::create_dir_all(file.parent().expect("a parent")).expect("a temporary directory");
            fs::write(file, text).expect("a temporary file");
        }
        Tree(dir)
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_circle_at_depth_two_fails() {
    let tree = Tree::new(
        "depth",
        &[
            ("lib.rs", "mod a;\n"),
            ("a/mod.rs", "pub mod b;\npub mod c;\n"),
            ("a/b/mod.rs", "pub mod x;\npub mod y;\n"),
            ("a/b/x.rs", "use crate::a::b::y::Y;\npub struct X;\n"),
            (
                "a/b/y.rs",
                "pub struct Y;\npub fn f() -> crate::a::b::x::X { crate::a::b::x::X }\n",
            ),
            ("a/c.rs", "use super::b::x::X;\n"),
        ],
    );
    let err = check(&tree.0).expect_err("x and y import each other");
    assert!(err.contains("crate::a::b (in lib.rs): x → y → x"), "{err}");
    // One level up the same paths are `c → b` only: no circle there.
    assert!(!err.contains("crate::a (in"), "{err}");
}

#[test]
fn a_circle_through_super_fails() {
    let tree = Tree::new(
        "super",
        &[
            ("lib.rs", "mod p;\nmod q;\n"),
            ("p/mod.rs", "mod inner;\n"),
            ("p/inner.rs", "use super::super::q::Q;\npub struct P;\n"),
            (
                "q.rs",
                "pub struct Q;\nfn f() { let _ = crate::p::inner::P; }\n",
            ),
        ],
    );
    let err = check(&tree.0).expect_err("p reaches q through super::super, and q reaches p");
    assert!(err.contains("crate (in lib.rs): p → q → p"), "{err}");
}

#[test]
fn groups_self_and_child_names_are_read() {
    let tree = Tree::new(
        "groups",
        &[
            ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
            // `b` named through a group with `self`; `c` by a bare child path in the parent is
            // downward and fine; `a` names `c` inside a nested group.
            ("a.rs", "use crate::{b::{self, B}, c::{d::D}};\n"),
            ("b.rs", "pub struct B;\n"),
            ("c/mod.rs", "pub mod d;\nfn f() { d::g(); }\n"),
            (
                "c/d.rs",
                "pub struct D;\npub fn g() { let _ = crate::a::A; }\n",
            ),
        ],
    );
    let err = check(&tree.0).expect_err("a → c and c → a");
    assert!(err.contains("a → c → a"), "{err}");
    assert!(!err.contains("→ b"), "{err}");
}

#[test]
fn tests_comments_strings_and_parents_own_items_add_nothing() {
    let tree = Tree::new(
        "quiet",
        &[
            ("lib.rs", "mod a;\nmod b;\npub use a::A;\n"),
            (
                "a.rs",
                "pub struct A;\n// crate::b::B\nconst S: &str = \"crate::b::B\";\n\
                 #[cfg(test)]\nfn only_in_tests() { let _ = crate::b::B; }\n\
                 #[cfg(test)]\nmod tests {\n    use crate::b::B;\n}\n",
            ),
            // A child naming its parent's own item is allowed: `lib.rs` defines nothing
            // `b` names here but the module `a`.
            (
                "b.rs",
                "pub struct B;\nfn f() -> crate::a::A { crate::a::A }\n",
            ),
        ],
    );
    assert_eq!(check(&tree.0), Ok(()));
}

#[test]
fn naming_what_an_ancestor_imports_fails() {
    let tree = Tree::new(
        "reexport",
        &[
            ("lib.rs", "mod a;\nmod b;\npub use a::A;\n"),
            ("a.rs", "pub struct A;\n"),
            ("b.rs", "fn f() -> crate::A { crate::a::A }\n"),
        ],
    );
    let err = check(&tree.0).expect_err("crate::A is the root's re-export");
    assert!(
        err.contains("crate::A names crate::A, an import there"),
        "{err}"
    );
    // A private import of the parent, reached through `super::`, hides `q → p::x` alike.
    let tree = Tree::new(
        "import",
        &[
            (
                "lib.rs", "mod d;
",
            ),
            (
                "d/mod.rs",
                "mod p;
mod q;
use p::x;
",
            ),
            (
                "d/p/mod.rs",
                "pub mod x;
",
            ),
            (
                "d/p/x.rs",
                "pub const N: usize = 1;
",
            ),
            (
                "d/q.rs",
                "pub const M: usize = super::x::N;
",
            ),
        ],
    );
    let err = check(&tree.0).expect_err("super::x is the parent's import");
    assert!(
        err.contains("super::x::N names crate::d::x, an import there"),
        "{err}"
    );
}

#[test]
fn inline_modules_and_their_super_are_read() {
    // `super` inside an inline module is the file's module, not its parent.
    let tree = Tree::new(
        "inline",
        &[
            ("lib.rs", "mod a;\nmod b;\n"),
            (
                "a.rs",
                "struct Run;\nmod paint {\n    use super::Run;\n}\nfn f() { paint::g(); }\n",
            ),
            ("b.rs", "fn f() { let _ = crate::a::paint::G; }\n"),
        ],
    );
    assert_eq!(check(&tree.0), Ok(()));
}

#[test]
fn the_tokens_skip_literals_and_lifetimes() {
    let toks = tokens("fn f<'a>(x: &'a str) -> char { let _ = r#\"crate::x\"#; '\\'' }");
    assert!(!toks.contains(&Tok::Ident("crate".into())), "{toks:?}");
    assert!(!toks.contains(&Tok::Ident("a".into())), "{toks:?}");
    assert_eq!(
        tokens("'→' crate::y"),
        [Tok::Ident("crate".into()), Tok::Sep, Tok::Ident("y".into())]
    );
}
