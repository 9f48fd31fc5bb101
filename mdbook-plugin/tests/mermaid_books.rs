//! Real books that use mdbook-mermaid today (`fixtures/mdbook-mermaid-books/`), switched to
//! `mermaid = "svg"` the way their authors would and built with the real `mdbook`: every
//! ```` ```mermaid ```` fence of their chapters becomes an inline SVG in the chapter's page and in
//! `print.html`, no Mermaid code block or script is left, and the build prints no warning but
//! those a test names (what a drawing ignores, as `validate` reports it).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use toml_edit::{Array, DocumentMut, Item, Value};

const FIGURE: &str = "<figure class=\"pb-mermaid pb-figure\">";

/// The ```` ```mermaid ```` fences of a chapter as mdbook-mermaid finds them (also inside list
/// items and quotes), each as the kind its first statement names.
fn mermaid_fences(markdown: &str) -> Vec<String> {
    let mut kinds = Vec::new();
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        let opening = line.trim_start_matches([' ', '>']);
        let Some(info) = opening.strip_prefix("```mermaid") else {
            continue;
        };
        if !info.trim().is_empty() {
            continue;
        }
        let mut kind = String::new();
        let mut in_front_matter = false;
        for body in lines.by_ref() {
            let text = body.trim_start_matches([' ', '>']).trim();
            if text.starts_with("```") {
                break;
            }
            if text == "---" {
                in_front_matter = !in_front_matter;
                continue;
            }
            if kind.is_empty() && !in_front_matter && !text.is_empty() && !text.starts_with("%%") {
                kind = text
                    .split(|c: char| c.is_whitespace() || c == ';')
                    .next()
                    .unwrap_or_default()
                    .to_string();
            }
        }
        kinds.push(kind);
    }
    kinds
}

/// The chapters `SUMMARY.md` lists, as paths under `src/`.
fn chapters(src: &Path) -> Vec<String> {
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).expect("SUMMARY.md");
    summary
        .lines()
        .filter_map(|l| l.split("](").nth(1)?.split(')').next())
        .map(str::to_string)
        .collect()
}

/// `book.toml` as its authors would change it to draw the diagrams here: `[preprocessor.mermaid]`
/// becomes `[preprocessor.passback]` with `mermaid = "svg"`, and mermaid.js leaves
/// `additional-js`. What belongs to other tools this build does not have (other preprocessors,
/// other outputs, stylesheets and scripts those tools write) is left out, so the build's output
/// is about the diagrams alone; so is `multilingual`, which mdBook 0.5 (the one this
/// preprocessor is built for) no longer takes.
fn switch_to_passback(toml: &str) -> String {
    let mut doc: DocumentMut = toml.parse().expect("the fixture's book.toml is TOML");
    if let Some(book) = doc.get_mut("book").and_then(Item::as_table_mut) {
        book.remove("multilingual");
    }
    let preprocessors = doc["preprocessor"]
        .as_table_mut()
        .expect("the fixture has a [preprocessor] table");
    assert!(
        preprocessors.remove("mermaid").is_some(),
        "the fixture uses mdbook-mermaid"
    );
    let others: Vec<String> = preprocessors.iter().map(|(k, _)| k.to_string()).collect();
    for other in others {
        preprocessors.remove(&other);
    }
    let mut passback = toml_edit::Table::new();
    passback.insert("mermaid", toml_edit::value("svg"));
    preprocessors.insert("passback", Item::Table(passback));
    if let Some(outputs) = doc.get_mut("output").and_then(Item::as_table_mut) {
        let others: Vec<String> = outputs
            .iter()
            .map(|(k, _)| k.to_string())
            .filter(|k| k != "html")
            .collect();
        for other in others {
            outputs.remove(&other);
        }
    }
    doc.to_string()
}

/// Drops from `additional-js` mermaid.js and its start-up script, and from both lists the files
/// other tools write that the fixture does not hold.
fn drop_foreign_assets(dir: &Path) {
    let path = dir.join("book.toml");
    let mut doc: DocumentMut = std::fs::read_to_string(&path)
        .expect("book.toml")
        .parse()
        .expect("TOML");
    let Some(html) = doc
        .get_mut("output")
        .and_then(|o| o.get_mut("html"))
        .and_then(Item::as_table_like_mut)
    else {
        return;
    };
    for key in ["additional-js", "additional-css"] {
        let Some(list) = html.get_mut(key).and_then(Item::as_array_mut) else {
            continue;
        };
        let kept: Array = list
            .iter()
            .filter_map(Value::as_str)
            .filter(|f| !f.contains("mermaid") && dir.join(f).exists())
            .collect();
        *list = kept;
    }
    std::fs::write(&path, doc.to_string()).expect("write book.toml");
}

struct Figures {
    chapters: usize,
    kinds: BTreeMap<String, usize>,
    drawn: usize,
}

/// Builds the book `name`; its build prints exactly the warnings `expected` (compiler-style
/// lines, in order).
fn build_book(name: &str, expected: &[&str]) -> Figures {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/mdbook-mermaid-books")
        .join(name);
    let dir: PathBuf =
        std::env::temp_dir().join(format!("pb-mermaid-book-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    common::copy_dir(&fixture, &dir);
    let original = std::fs::read_to_string(dir.join("book.toml")).expect("book.toml");
    std::fs::write(dir.join("book.toml"), switch_to_passback(&original)).expect("book.toml");

    let bin = PathBuf::from(env!("CARGO_BIN_EXE_mdbook-passback"));
    let path = common::path_with_preprocessor();
    // `install` lists the stylesheet (the diagrams' dark theme) as `mdbook-mermaid install`
    // listed mermaid.js.
    let install = Command::new(&bin)
        .arg("install")
        .arg(&dir)
        .output()
        .expect("run install");
    assert!(
        install.status.success(),
        "{}",
        String::from_utf8_lossy(&install.stderr)
    );
    drop_foreign_assets(&dir);

    // Into the copy, wherever the book builds to (Martin's builds to `../target/book`).
    let out = dir.join("book");
    let build = Command::new("mdbook")
        .arg("build")
        .arg(&dir)
        .arg("--dest-dir")
        .arg(&out)
        .env("PATH", &path)
        .output()
        .expect("the mdbook binary is needed for this test: cargo install mdbook --locked --no-default-features --features search");
    let stderr = String::from_utf8_lossy(&build.stderr);
    assert!(
        build.status.success(),
        "{name}: mdbook build failed:\n{stderr}"
    );
    let noisy: Vec<&str> = stderr
        .lines()
        .filter(|l| {
            let l = l.to_ascii_lowercase();
            l.contains("warn") || l.contains("error")
        })
        .collect();
    assert_eq!(noisy, expected, "{name}: the build's warnings:\n{stderr}");

    let src = dir.join("src");
    let mut figures = Figures {
        chapters: 0,
        kinds: BTreeMap::new(),
        drawn: 0,
    };
    for chapter in chapters(&src) {
        let markdown = std::fs::read_to_string(src.join(&chapter)).expect("chapter");
        let fences = mermaid_fences(&markdown);
        assert!(!fences.is_empty(), "{name}/{chapter} holds Mermaid");
        figures.chapters += 1;
        for kind in &fences {
            *figures.kinds.entry(kind.clone()).or_default() += 1;
        }
        let page = std::fs::read_to_string(out.join(chapter.replace(".md", ".html")))
            .expect("the chapter's page");
        let drawn: Vec<&str> = page.split(FIGURE).skip(1).collect();
        assert_eq!(
            drawn.len(),
            fences.len(),
            "{name}/{chapter}: every fence a figure"
        );
        for figure in &drawn {
            let inside = figure.split("</figure>").next().unwrap_or_default();
            assert!(
                inside.contains("<svg") && inside.contains("</svg>"),
                "{name}/{chapter}: a figure holds an inline SVG: {inside}"
            );
        }
        assert!(
            !page.contains("language-mermaid") && !page.contains("class=\"mermaid\""),
            "{name}/{chapter}: no Mermaid code block is left"
        );
        figures.drawn += drawn.len();
    }
    let print = std::fs::read_to_string(out.join("print.html")).expect("print.html");
    assert_eq!(
        print.matches(FIGURE).count(),
        figures.kinds.values().sum::<usize>(),
        "{name}: print.html holds every diagram"
    );
    assert!(!print.contains("language-mermaid"), "{name}: print.html");
    for page in walk_html(&out) {
        let html = std::fs::read_to_string(&page).expect("page");
        assert!(
            !html.contains("mermaid.min.js")
                && !html.contains("mermaid-init.js")
                && !html.contains("mermaid.initialize"),
            "{}: no Mermaid JavaScript",
            page.display()
        );
    }
    assert!(
        !out.join("mermaid.min.js").exists(),
        "{name}: mermaid.js is not shipped"
    );
    println!(
        "{name}: {} chapters, {} diagrams {:?}, {} drawn",
        figures.chapters,
        figures.kinds.values().sum::<usize>(),
        figures.kinds,
        figures.drawn
    );
    if std::env::var_os("PB_KEEP_BOOKS").is_none() {
        std::fs::remove_dir_all(&dir).ok();
    } else {
        println!("{name}: kept at {}", dir.display());
    }
    figures
}

fn walk_html(dir: &Path) -> Vec<PathBuf> {
    let mut pages = Vec::new();
    for e in std::fs::read_dir(dir).expect("read dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            pages.extend(walk_html(&p));
        } else if p.extension().is_some_and(|x| x == "html") {
            pages.push(p);
        }
    }
    pages
}

fn assert_all_drawn(name: &str, chapters: usize, diagrams: usize, warnings: &[&str]) {
    let figures = build_book(name, warnings);
    assert_eq!(figures.chapters, chapters, "{name}: chapters");
    assert_eq!(
        figures.kinds.values().sum::<usize>(),
        diagrams,
        "{name}: diagrams"
    );
    assert_eq!(figures.drawn, diagrams, "{name}: drawn");
}

#[test]
fn the_rustc_dev_guide_draws_every_diagram() {
    // Its bootstrapping diagram sizes the empty joints of its edges `width:0px,height:0px`,
    // which the engine does not apply (it draws them at an empty node's size): the build says so.
    assert_all_drawn(
        "rustc-dev-guide",
        4,
        6,
        &[
            "src/building/bootstrapping/what-bootstrapping-does.md:31:1: warning[ignored_directive]: in the diagram, the style `width`, `height` are not drawn: only fill, stroke, stroke-width, stroke-dasharray and color are — nothing to do; the rest of the diagram is drawn as written",
        ],
    );
}

#[test]
fn martins_book_draws_every_diagram() {
    assert_all_drawn("martin", 1, 6, &[]);
}

#[test]
fn the_hermes_guide_draws_every_diagram() {
    assert_all_drawn("hermes", 10, 16, &[]);
}

#[test]
fn the_zebra_book_draws_every_diagram() {
    assert_all_drawn("zebra", 2, 2, &[]);
}

#[test]
fn the_bootc_book_draws_every_diagram() {
    assert_all_drawn("bootc", 1, 1, &[]);
}

#[test]
fn fences_are_counted_where_mdbook_mermaid_finds_them() {
    let chapter = "```mermaid\ngraph TD; A-->B;\n```\n\n- item\n\n  ```mermaid\n  ---\n  title: T\n  ---\n  %% note\n  sequenceDiagram\n  ```\n\n> ```mermaid\n> stateDiagram-v2\n> ```\n\n```mermaid-example\ngraph TD\n```\n\n```rust\nlet s = \"```mermaid\";\n```\n";
    assert_eq!(
        mermaid_fences(chapter),
        vec!["graph", "sequenceDiagram", "stateDiagram-v2"]
    );
}
