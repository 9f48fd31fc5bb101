//! `mdbook-passback`: the mdBook preprocessor binary (logic in the library).
#![forbid(unsafe_code)]

use mdbook_passback::{
    CopyButtons, OnError, PlainMermaid, Settings, install, process_chapter, version_warning,
};
use mdbook_preprocessor::book::BookItem;
use passback_engine::Surface;
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    // One process renders every chapter of the book, on the main thread.
    passback_engine::raise_heap_trim_threshold();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        // mdBook asks before running: only HTML gets widgets; say nothing on the skip path.
        Some("supports") => {
            if args.get(1).map(String::as_str) == Some("html") {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Some("install") => {
            let dir = args
                .get(1)
                .map_or_else(|| std::path::PathBuf::from("."), std::path::PathBuf::from);
            match install::install(&dir) {
                Ok(changes) if changes.is_empty() => {
                    eprintln!("mdbook-passback: already installed in {}", dir.display());
                    ExitCode::SUCCESS
                }
                Ok(changes) => {
                    for c in changes {
                        eprintln!("mdbook-passback: {c}");
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!(
                        "mdbook-passback: {}",
                        passback_engine::terminal_safe(&e.to_string())
                    );
                    ExitCode::FAILURE
                }
            }
        }
        Some("-h" | "--help" | "help") => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some("-V" | "--version") => {
            println!("mdbook-passback {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        None => match preprocess() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!(
                    "mdbook-passback: {}",
                    passback_engine::terminal_safe(&e.to_string())
                );
                ExitCode::FAILURE
            }
        },
        Some(other) => {
            eprintln!(
                "mdbook-passback: unknown command `{other}`; use `install [BOOK_DIR]`, or let mdBook run it (see --help)"
            );
            ExitCode::FAILURE
        }
    }
}

/// `mdbook-passback --help`.
const USAGE: &str = "\
mdbook-passback — PassbackAI components as live widgets in an mdBook

USAGE:
  mdbook-passback install [BOOK_DIR]   write passback.css and passback.js beside book.toml and
                                       add them and [preprocessor.passback] to book.toml
                                       (BOOK_DIR defaults to the current directory)
  mdbook-passback supports RENDERER    what mdBook asks first: exit 0 for html only
  mdbook-passback                      what mdBook runs: a book on stdin, the book on stdout
  mdbook-passback --help | --version

In book.toml, [preprocessor.passback] takes:
  surface = \"page\"          page (default), routed or email
  answers-action = \"URL\"    where the form posts without JavaScript (default: nowhere;
                             readers copy their answers)
  on-error = \"warn\"         warn (default: an invalid component is shown as its source)
                             or fail (the build stops)
  prose-comments = true     whether readers can comment on a chapter's text
  copy = \"chapter\"          one \"Copy all answers on this page\" per chapter (default), or
                             component: each component its own \"Copy answers\" as well
  mermaid = \"leave\"         leave plain ```mermaid fences to other tools (default), or svg:
                             draw them at build time

Each build writes passback.css and passback.js beside book.toml when [output.html] lists them
and they are missing or from another version; `install` lists them.
";

/// Keys `[preprocessor.passback]` may hold: ours, then mdBook's own for every preprocessor.
const KNOWN_KEYS: [&str; 11] = [
    "surface",
    "mermaid",
    "copy",
    "answers-action",
    "on-error",
    "prose-comments",
    "command",
    "renderers",
    "before",
    "after",
    "optional",
];

fn settings(ctx: &mdbook_preprocessor::PreprocessorContext) -> Result<Settings, String> {
    let get = |key: &str| -> Result<Option<String>, String> {
        ctx.config
            .get::<String>(&format!("preprocessor.passback.{key}"))
            .map_err(|e| format!("preprocessor.passback.{key} in book.toml must be a string: {e}"))
    };
    // A misspelt option would otherwise be ignored without a word.
    let keys = ctx
        .config
        .get::<std::collections::BTreeMap<String, serde::de::IgnoredAny>>("preprocessor.passback")
        .ok()
        .flatten()
        .unwrap_or_default();
    for key in keys.keys().filter(|k| !KNOWN_KEYS.contains(&k.as_str())) {
        eprintln!(
            "mdbook-passback: warning: unknown option `{key}` in [preprocessor.passback] is ignored (the options are surface, answers-action, on-error, prose-comments, copy and mermaid)"
        );
    }
    let flag = |key: &str| ctx.config.get::<bool>(key).ok().flatten().unwrap_or(true);
    let mut s = Settings {
        definition_lists: flag("output.html.definition-lists"),
        admonitions: flag("output.html.admonitions"),
        ..Settings::default()
    };
    if let Some(v) = get("surface")? {
        s.surface = Surface::parse(&v).ok_or_else(|| {
            format!("preprocessor.passback.surface must be page, routed or email, not \"{v}\"")
        })?;
    }
    s.answers_action = get("answers-action")?.filter(|a| !a.is_empty());
    if let Some(on) = ctx
        .config
        .get::<bool>("preprocessor.passback.prose-comments")
        .map_err(|e| {
            format!("preprocessor.passback.prose-comments in book.toml must be true or false: {e}")
        })?
    {
        s.prose_comments = on;
    }
    if let Some(v) = get("mermaid")? {
        s.mermaid = match v.as_str() {
            "svg" => PlainMermaid::Svg,
            "leave" => PlainMermaid::Leave,
            _ => {
                return Err(format!(
                    "preprocessor.passback.mermaid must be svg (draw plain mermaid fences here) or leave (the default), not \"{v}\""
                ));
            }
        };
    }
    if let Some(v) = get("copy")? {
        s.copy = match v.as_str() {
            "chapter" => CopyButtons::Chapter,
            "component" => CopyButtons::Component,
            _ => {
                return Err(format!(
                    "preprocessor.passback.copy must be chapter (one button per chapter) or component (one per component as well), not \"{v}\""
                ));
            }
        };
    }
    if let Some(v) = get("on-error")? {
        s.on_error = match v.as_str() {
            "warn" => OnError::Warn,
            "fail" => OnError::Fail,
            _ => {
                return Err(format!(
                    "preprocessor.passback.on-error must be warn or fail, not \"{v}\""
                ));
            }
        };
    }
    Ok(s)
}

fn preprocess() -> Result<(), String> {
    let (ctx, mut book) = mdbook_preprocessor::parse_input(std::io::stdin())
        .map_err(|e| format!("cannot read mdBook's input: {e}"))?;
    if let Some(w) = version_warning(&ctx.mdbook_version) {
        eprintln!("{w}");
    }
    let settings = settings(&ctx)?;
    assets(&ctx)?;
    let src = ctx.config.book.src.clone();
    let mut errors = 0;
    book.for_each_mut(|item| {
        let BookItem::Chapter(ch) = item else { return };
        let file = ch.source_path.as_ref().or(ch.path.as_ref());
        let mut path = file.map_or_else(|| ch.name.clone(), |p| src.join(p).display().to_string());
        // Lines are counted in the chapter as mdBook hands it over: when its {{#include}}s
        // were expanded into it, that is not the file on disk, and the messages say so.
        let on_disk = ch
            .source_path
            .as_ref()
            .and_then(|p| std::fs::read_to_string(ctx.root.join(&src).join(p)).ok());
        if on_disk.is_some_and(|text| text != ch.content) {
            path.push_str(" (with its includes expanded)");
        }
        let out = process_chapter(&path, &ch.content, &settings);
        for m in &out.messages {
            eprintln!("{m}");
        }
        errors += out.errors;
        ch.content = out.content;
    });
    if errors > 0 && settings.on_error == OnError::Fail {
        return Err(format!(
            "{errors} invalid component(s); fix them or set on-error = \"warn\""
        ));
    }
    let json = serde_json::to_string(&book).map_err(|e| format!("cannot encode the book: {e}"))?;
    let mut out = std::io::stdout().lock();
    out.write_all(json.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write the book: {e}"))
}

/// The stylesheet and script beside `book.toml`: written when `[output.html]` lists them and
/// they are missing or from another version (so a book builds as it is checked out, and stays
/// in step with this binary); a warning naming what to run when it lists neither.
fn assets(ctx: &mdbook_preprocessor::PreprocessorContext) -> Result<(), String> {
    let listed = |key: &str, file: &str| {
        ctx.config
            .get::<Vec<String>>(&format!("output.html.{key}"))
            .ok()
            .flatten()
            .unwrap_or_default()
            .iter()
            .any(|p| p.trim_start_matches("./") == file)
    };
    let mut files = Vec::new();
    if listed("additional-css", install::CSS_FILE) {
        files.push(install::CSS_FILE);
    }
    if listed("additional-js", install::JS_FILE) {
        files.push(install::JS_FILE);
    }
    if files.len() < 2 {
        eprintln!(
            "mdbook-passback: warning: book.toml does not list {} in [output.html] ({}), so the \
             widgets are unstyled and cannot copy answers; run `mdbook-passback install` in the \
             book's directory to add them",
            if files.is_empty() {
                "passback.css and passback.js"
            } else if files[0] == install::CSS_FILE {
                "passback.js"
            } else {
                "passback.css"
            },
            if files.is_empty() {
                "additional-css, additional-js"
            } else if files[0] == install::CSS_FILE {
                "additional-js"
            } else {
                "additional-css"
            }
        );
    }
    for change in install::write_assets(&ctx.root, &files).map_err(|e| {
        format!("{e}; run `mdbook-passback install` in the book's directory, or check that it is writable")
    })? {
        eprintln!("mdbook-passback: {change} beside book.toml");
    }
    Ok(())
}
