//! A real `mdbook build` of `examples/book` with the real preprocessor binary: every component,
//! fences in lists and quotes, an `{{#include}}`d chapter, and an invalid block.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

#[test]
fn a_real_book_builds_with_live_components() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/book");
    let dir: PathBuf = std::env::temp_dir().join(format!("pb-book-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    common::copy_dir(&example, &dir);
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_mdbook-passback"));
    let path = common::path_with_preprocessor();

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
    assert!(dir.join("passback.css").exists() && dir.join("passback.js").exists());
    // A misspelt option, an invalid block below an {{#include}}, and mdbook-mermaid's raw
    // Mermaid, added to this copy of the book.
    let toml = std::fs::read_to_string(dir.join("book.toml")).expect("book.toml");
    let toml = toml.replace(
        "[preprocessor.passback]\n",
        "[preprocessor.passback]\nsurfac = \"email\"\n",
    );
    std::fs::write(dir.join("book.toml"), toml).expect("write book.toml");
    let nested_md = dir.join("src/nested.md");
    let mut nested_src = std::fs::read_to_string(&nested_md).expect("nested.md");
    nested_src.push_str("\n```open-question\n{ \"version\": 2, \"question\": \"Why?\" }\n```\n\n```mermaid\ngraph TD; A-->B;\n```\n");
    std::fs::write(&nested_md, nested_src).expect("write nested.md");

    let build = Command::new("mdbook")
        .arg("build")
        .arg(&dir)
        .env("PATH", &path)
        .output();
    let build = build.expect("the mdbook binary is needed for this test: cargo install mdbook --locked --no-default-features --features search");
    let stderr = String::from_utf8_lossy(&build.stderr);
    assert!(build.status.success(), "mdbook build failed:\n{stderr}");
    // The invalid block is reported the way compilers print, with its place in the chapter.
    assert!(
        stderr.contains("src/decisions.md:44:14: warning[wrong_version]"),
        "{stderr}"
    );
    // Lines counted after an {{#include}} are not the file's: the message says so.
    assert!(
        stderr.contains("src/nested.md (with its includes expanded):"),
        "{stderr}"
    );
    assert!(
        stderr.contains("unknown option `surfac` in [preprocessor.passback]"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("unsupported_diagram") && !stderr.contains("graph TD"),
        "raw Mermaid is not ours unless the book says mermaid = \"svg\": {stderr}"
    );

    let read = |name: &str| {
        std::fs::read_to_string(dir.join("book").join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    let decisions = read("decisions.html");
    for kind in [
        "single-choice",
        "multi-choice",
        "open-question",
        "questionnaire",
        "prioritize",
        "allocate",
    ] {
        assert!(
            decisions.contains(&format!("data-pb-kind=\"{kind}\"")),
            "{kind} missing"
        );
    }
    assert!(
        decisions.contains("<pre class=\"pb-invalid\""),
        "the invalid block falls back to code"
    );
    assert!(
        decisions.contains("passback") && decisions.contains(".css"),
        "the stylesheet is linked"
    );
    assert!(
        !decisions.contains("language-single-choice"),
        "no fence is left as a code block"
    );

    let nested = read("nested.html");
    assert_eq!(
        nested.matches("class=\"pb-doc pb-chapter-part\"").count(),
        4,
        "list, quote and included fences, and the invalid one"
    );
    assert!(
        nested.contains("language-mermaid") && nested.contains("graph TD; A--&gt;B;"),
        "raw Mermaid stays a code block for other tools"
    );
    assert!(
        nested.contains("and the item goes on after it")
            && nested.contains("The quote goes on too")
    );
    let li = nested.find("<li>").expect("a list item");
    let in_list = nested
        .find("Number the steps?")
        .expect("the list's component");
    let li_end = nested[li..]
        .find("</li>")
        .map(|i| i + li)
        .expect("end of item");
    assert!(
        li < in_list && in_list < li_end,
        "the component stays inside its list item"
    );
    let quote = nested.find("<blockquote").expect("a quote");
    let quote_end = nested.find("</blockquote>").expect("end of quote");
    let in_quote = nested
        .find("What should the quote say?")
        .expect("the quote's component");
    assert!(
        quote < in_quote && in_quote < quote_end,
        "the component stays inside its quote"
    );

    let media = read("media.html");
    assert!(
        media.contains("data-pb-kind=\"mermaid\"") && media.contains("data-pb-kind=\"youtube\"")
    );
    assert!(
        !media.contains("youtube-nocookie.com/embed"),
        "the page surface never embeds YouTube"
    );

    // The search index has the questions (content) but not the controls' names (chrome).
    let index = std::fs::read_dir(dir.join("book"))
        .expect("book dir")
        .flatten()
        .find(|e| {
            e.file_name().to_string_lossy().starts_with("searchindex")
                && e.file_name().to_string_lossy().ends_with(".js")
        })
        .map(|e| std::fs::read_to_string(e.path()).expect("search index"))
        .expect("a search index");
    assert!(
        index.contains("Which host serves the docs"),
        "questions are searchable"
    );
    for chrome in [
        "Position of",
        "Move User guide",
        "Remove Blog",
        "Get answers",
    ] {
        assert!(!index.contains(chrome), "{chrome:?} is in the search index");
    }

    // print.html holds every chapter: ids must stay unique across the whole book.
    let print = read("print.html");
    let mut ids: Vec<&str> = print
        .split(" id=\"")
        .skip(1)
        .filter_map(|r| r.split('"').next())
        .filter(|i| i.starts_with("pb-"))
        .collect();
    let n = ids.len();
    assert!(n > 20, "print.html has the components");
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n, "duplicate ids in print.html");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn other_renderers_are_declined_quietly() {
    let bin = env!("CARGO_BIN_EXE_mdbook-passback");
    let html = Command::new(bin)
        .args(["supports", "html"])
        .output()
        .expect("run");
    assert!(html.status.success());
    let md = Command::new(bin)
        .args(["supports", "markdown"])
        .output()
        .expect("run");
    assert!(!md.status.success());
    assert!(md.stdout.is_empty() && md.stderr.is_empty());
}

/// A hostile chapter: component titles and a questionnaire section that spell markup, and a
/// field name that spells terminal escapes. mdBook's search takes a heading with an id as a
/// section title and shows it as HTML (`breadcrumbs`), so no document text may reach the index
/// as a title; and the warning that quotes the field name must not reach the terminal raw.
#[test]
fn hostile_titles_reach_no_search_title_and_warnings_no_terminal_escapes() {
    let dir: PathBuf = std::env::temp_dir().join(format!("pb-hostile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).expect("create the book");
    std::fs::write(
        dir.join("book.toml"),
        "[book]\ntitle = \"hostile\"\n\n[preprocessor.passback]\nafter = [\"links\"]\n",
    )
    .expect("book.toml");
    std::fs::write(
        dir.join("src/SUMMARY.md"),
        "# Summary\n\n- [Chapter](chapter.md)\n",
    )
    .expect("SUMMARY.md");
    let img = "<img src=x onerror=alert(document.domain)>";
    let chapter = format!(
        "# Chapter\n\nProse.\n\n\
         ```single-choice\n{{\"version\":\"1\",\"title\":\"{img}\",\"question\":\"Q?\",\"options\":[\"A\",\"B\"],\
         \"\\u001b[2J\\u001b]0;pwned\\u0007\\nforged: line\":1}}\n```\n\n\
         ```questionnaire\n{{\"version\":\"1\",\"title\":\"T {img}\",\"questions\":[\
         {{\"id\":\"a\",\"section\":\"S {img}\",\"question\":\"Q1?\",\"options\":[\"A\",\"B\"]}},\
         {{\"id\":\"b\",\"question\":\"Q2?\",\"options\":[\"A\",\"B\"]}}]}}\n```\n\n\
         ```prioritize\n{{\"version\":\"1\",\"title\":\"P {img}\",\"items\":[\
         {{\"id\":\"x\",\"label\":\"X\"}},{{\"id\":\"y\",\"label\":\"Y\"}}]}}\n```\n\n\
         ```allocate\n{{\"version\":\"1\",\"title\":\"A {img}\",\"total\":100,\"items\":[\
         {{\"id\":\"x\",\"label\":\"X\",\"weight\":1}},{{\"id\":\"y\",\"label\":\"Y\",\"weight\":1}}]}}\n```\n"
    );
    std::fs::write(dir.join("src/chapter.md"), chapter).expect("chapter.md");
    let path = common::path_with_preprocessor();
    let build = Command::new("mdbook")
        .arg("build")
        .arg(&dir)
        .env("PATH", &path)
        .output()
        .expect("the mdbook binary is needed for this test: cargo install mdbook --locked --no-default-features --features search");
    let stderr = String::from_utf8_lossy(&build.stderr);
    assert!(build.status.success(), "mdbook build failed:\n{stderr}");
    assert!(stderr.contains("warning[unknown_field]"), "{stderr}");
    assert!(
        !stderr.contains('\u{1b}') && !stderr.contains('\u{7}') && !stderr.contains("\nforged"),
        "control characters reached the terminal: {stderr:?}"
    );
    assert!(stderr.contains("\\u{1b}[2J"), "{stderr}");

    let page = std::fs::read_to_string(dir.join("book/chapter.html")).expect("chapter.html");
    assert!(
        page.contains("data-pb-kind=\"questionnaire\""),
        "the components render"
    );
    assert!(!page.contains("<img src=x"), "the titles are text");
    let index = std::fs::read_dir(dir.join("book"))
        .expect("book dir")
        .flatten()
        .find(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            name.starts_with("searchindex") && name.ends_with(".js")
        })
        .map(|e| std::fs::read_to_string(e.path()).expect("search index"))
        .expect("a search index");
    // The titles are searchable text of the page, in the body, which the search shows escaped.
    assert!(index.contains("onerror"), "the titles are indexed as text");
    let mut fields = 0;
    for field in ["\"title\":\"", "\"breadcrumbs\":\""] {
        for value in index.split(field).skip(1) {
            let value = value.split('"').next().unwrap_or("");
            fields += 1;
            assert!(
                !value.contains('<') && !value.contains("onerror"),
                "document text in a search {field} field, which mdBook shows as HTML: {value}"
            );
        }
    }
    assert!(fields > 0, "the index has titles: {index}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A book that replaces mdbook-mermaid: `mermaid = "svg"` draws every plain ```mermaid fence
/// at build time, in any container; one it cannot draw stays a code block with a warning
/// naming chapter and line; a bad value for the option stops the build with a sentence.
#[test]
fn plain_mermaid_fences_are_drawn_at_build_time() {
    let dir: PathBuf = std::env::temp_dir().join(format!("pb-book-svg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).expect("src dir");
    let toml = "[book]\ntitle = \"Diagrams\"\n\n[preprocessor.passback]\nmermaid = \"svg\"\n";
    std::fs::write(dir.join("book.toml"), toml).expect("book.toml");
    std::fs::write(
        dir.join("src/SUMMARY.md"),
        "# Summary\n\n- [Diagrams](chapter.md)\n",
    )
    .expect("SUMMARY.md");
    let chapter = "# Diagrams\n\n\
        ```mermaid\nflowchart LR\n  A[Build] --> B{Tests pass?}\n  B -- yes --> C[Ship]\n```\n\n\
        - In a list:\n\n  ```mermaid\n  sequenceDiagram\n    Alice->>Bob: Hello\n  ```\n\n\
        > ```mermaid\n> stateDiagram-v2\n>   [*] --> Idle\n> ```\n\n\
        ```mermaid\npie\n  title Plan\n  \"Done\" : 3\n```\n\n\
        After the diagrams.\n";
    std::fs::write(dir.join("src/chapter.md"), chapter).expect("chapter.md");
    let path = common::path_with_preprocessor();
    let build = Command::new("mdbook")
        .arg("build")
        .arg(&dir)
        .env("PATH", &path)
        .output()
        .expect("the mdbook binary is needed for this test: cargo install mdbook --locked --no-default-features --features search");
    let stderr = String::from_utf8_lossy(&build.stderr);
    assert!(build.status.success(), "mdbook build failed:\n{stderr}");
    assert!(
        stderr.contains(
            "chapter.md:22:1: warning[unsupported_diagram]: Pie charts are not drawn here yet"
        ),
        "{stderr}"
    );
    let page = std::fs::read_to_string(dir.join("book/chapter.html")).expect("chapter.html");
    assert_eq!(
        page.matches("<figure class=\"pb-mermaid pb-figure\">")
            .count(),
        3,
        "{page}"
    );
    for text in ["Build", "Tests pass?", "Alice", "Idle"] {
        assert!(page.contains(&format!(">{text}<")), "{text} drawn: {page}");
    }
    // The list item and the quote keep their diagrams; the pie chart stays its source.
    let in_list = page.find("In a list:").expect("list item");
    assert!(
        page[in_list..]
            .split("</li>")
            .next()
            .unwrap_or("")
            .contains("pb-figure")
    );
    let quote = page.find("<blockquote>").expect("quote");
    assert!(
        page[quote..]
            .split("</blockquote>")
            .next()
            .unwrap_or("")
            .contains("pb-figure")
    );
    assert!(
        page.contains("title Plan"),
        "the pie chart's source stays: {page}"
    );
    assert!(page.contains("After the diagrams."));
    // Diagrams alone make no review page: no comments on the prose.
    assert!(!page.contains("data-pb-chapter"), "{page}");

    std::fs::write(
        dir.join("book.toml"),
        toml.replace("mermaid = \"svg\"", "mermaid = \"png\""),
    )
    .expect("book.toml");
    let build = Command::new("mdbook")
        .arg("build")
        .arg(&dir)
        .env("PATH", &path)
        .output()
        .expect("mdbook");
    let stderr = String::from_utf8_lossy(&build.stderr);
    assert!(!build.status.success());
    assert!(
        stderr.contains("preprocessor.passback.mermaid must be svg"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `examples/book` builds exactly as it is checked out, with no `install` first: the build
/// writes the stylesheet and script its `book.toml` lists, and says so. A chapter's components
/// leave copying to the chapter's one "Copy all answers on this page" unless the book asks for
/// `copy = "component"`.
#[test]
fn the_example_book_builds_as_shipped_with_one_copy_button_per_chapter() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/book");
    let dir: PathBuf = std::env::temp_dir().join(format!("pb-shipped-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    common::copy_dir(&example, &dir);
    for stale in ["passback.css", "passback.js"] {
        let _ = std::fs::remove_file(dir.join(stale));
    }
    let path = common::path_with_preprocessor();
    let build = |dir: &Path| {
        let out = Command::new("mdbook")
            .arg("build")
            .arg(dir)
            .env("PATH", &path)
            .output()
            .expect("the mdbook binary is needed for this test: cargo install mdbook --locked --no-default-features --features search");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "mdbook build failed:\n{stderr}");
        stderr
    };
    let stderr = build(&dir);
    assert!(
        stderr.contains("mdbook-passback: wrote passback.css beside book.toml")
            && stderr.contains("mdbook-passback: wrote passback.js beside book.toml"),
        "{stderr}"
    );
    let css = std::fs::read_to_string(dir.join("passback.css")).expect("the stylesheet");
    assert_eq!(css, mdbook_passback::install::book_css());
    assert!(
        css.contains(".pb-chapter-part .pb-copy,"),
        "the components' own copy buttons are hidden"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("passback.js")).expect("the script"),
        passback_engine::assets::js()
    );
    let decisions = std::fs::read_to_string(dir.join("book/decisions.html")).expect("a chapter");
    let components = decisions
        .matches("<div class=\"pb-doc pb-chapter-part\"")
        .count();
    assert!(components >= 6, "{components} components marked");
    assert_eq!(
        decisions.matches("<div class=\"pb-doc\"").count(),
        0,
        "every component leaves copying to the chapter"
    );
    assert_eq!(decisions.matches("class=\"pb-doc pb-chapter\"").count(), 1);
    // A second build has nothing to write.
    let again = build(&dir);
    assert!(!again.contains("wrote passback"), "{again}");

    // copy = "component": every component keeps its own button.
    let toml = std::fs::read_to_string(dir.join("book.toml")).expect("book.toml");
    std::fs::write(
        dir.join("book.toml"),
        toml.replace(
            "[preprocessor.passback]\n",
            "[preprocessor.passback]\ncopy = \"component\"\n",
        ),
    )
    .expect("write book.toml");
    build(&dir);
    let decisions = std::fs::read_to_string(dir.join("book/decisions.html")).expect("a chapter");
    assert_eq!(decisions.matches("pb-chapter-part").count(), 0);
    assert!(decisions.matches("<div class=\"pb-doc\"").count() >= 6);

    // A book that lists neither file is told what to run.
    std::fs::write(
        dir.join("book.toml"),
        "[book]\ntitle = \"t\"\n\n[preprocessor.passback]\n",
    )
    .expect("write book.toml");
    let stderr = build(&dir);
    assert!(
        stderr.contains("does not list passback.css and passback.js in [output.html]")
            && stderr.contains("run `mdbook-passback install`"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn help_prints_the_usage() {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_mdbook-passback"));
    for flag in ["--help", "-h", "help"] {
        let out = Command::new(&bin).arg(flag).output().expect("run");
        assert!(out.status.success(), "{flag}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.starts_with("mdbook-passback — "), "{flag}: {text}");
        for part in [
            "install [BOOK_DIR]",
            "copy = \"chapter\"",
            "mermaid = ",
            "on-error",
        ] {
            assert!(text.contains(part), "{flag}: {part} missing from {text}");
        }
    }
    let out = Command::new(&bin).arg("--nonsense").output().expect("run");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("see --help"));
}
