//! mdbook-passback: turns PassbackAI component fences in an mdBook's chapters into live widgets.
//!
//! Each component fence is rendered by the engine as its own small document and spliced into the
//! chapter by line, so everything else in the chapter stays byte-identical. The HTML is written
//! on one line (newlines become `&#10;`) with the indentation or `>` prefix of the fence it
//! replaces, followed by a blank line, so it stays inside lists and block quotes.
#![forbid(unsafe_code)]

pub mod install;

use comrak::nodes::NodeValue;
use passback_engine::{Format, Kind, Options, Severity, Surface};

/// The `[preprocessor.passback]` options.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub surface: Surface,
    /// Where the no-JavaScript form posts; without it the page relies on "Copy answers".
    pub answers_action: Option<String>,
    pub on_error: OnError,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            surface: Surface::Page,
            answers_action: None,
            on_error: OnError::Warn,
        }
    }
}

/// What an invalid component does to the build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnError {
    /// Render the fallback code block and print a warning.
    Warn,
    /// Print the error and fail the build.
    Fail,
}

/// A chapter after processing, with what to print.
#[derive(Debug, Clone, PartialEq)]
pub struct Processed {
    pub content: String,
    /// Compiler-style lines: `path:LINE:COL: warning[code]: message`.
    pub messages: Vec<String>,
    /// Whether any component had an error.
    pub errors: usize,
}

/// A component fence found in a chapter: 1-based first and last line, and its content.
struct Fence {
    start: usize,
    end: usize,
    kind: Kind,
    literal: String,
}

fn fences(content: &str) -> Vec<Fence> {
    let arena = comrak::Arena::new();
    let root = comrak::parse_document(
        &arena,
        content,
        &passback_engine::document::comrak_options(false),
    );
    let mut out = Vec::new();
    for node in root.descendants() {
        let data = node.data();
        let NodeValue::CodeBlock(cb) = &data.value else {
            continue;
        };
        let Some(kind) = cb.fenced.then(|| Kind::from_tag(cb.info.trim())).flatten() else {
            continue;
        };
        out.push(Fence {
            start: data.sourcepos.start.line,
            end: data.sourcepos.end.line,
            kind,
            literal: cb.literal.clone(),
        });
    }
    out
}

/// Processes one chapter. `path` names the chapter in messages and salts element ids, so ids
/// stay unique across the whole book (print.html puts every chapter on one page).
pub fn process_chapter(path: &str, content: &str, settings: &Settings) -> Processed {
    let found = fences(content);
    if found.is_empty() {
        return Processed {
            content: content.to_string(),
            messages: Vec::new(),
            errors: 0,
        };
    }
    let lines: Vec<&str> = content.split_inclusive('\n').collect();
    let mut messages = Vec::new();
    let mut errors = 0;
    let mut replacements: Vec<(usize, usize, String)> = Vec::new();
    for (index, fence) in found.iter().enumerate() {
        let Some(opening) = lines.get(fence.start - 1) else {
            continue;
        };
        let marker = opening
            .find("```")
            .into_iter()
            .chain(opening.find("~~~"))
            .min()
            .unwrap_or(0);
        let prefix = &opening[..marker];
        let mini = format!("```{}\n{}```\n", fence.kind.tag(), fence.literal);
        let options = Options::default()
            .with_surface(settings.surface)
            .with_format(Format::Fragment)
            .with_answers_action(settings.answers_action.clone())
            .with_id_salt(Some(format!("{path}#{index}")));
        let rendered = passback_engine::render(&mini, &options);
        for d in &rendered.diagnostics {
            let line = fence.start + d.line.saturating_sub(1);
            let column = if d.line > 1 {
                d.column + prefix.chars().count()
            } else {
                d.column + marker
            };
            let severity = match d.severity {
                Severity::Error => {
                    errors += 1;
                    if settings.on_error == OnError::Fail {
                        "error"
                    } else {
                        "warning"
                    }
                }
                Severity::Warning => "warning",
            };
            messages.push(d.compiler_line(path, line, column, severity));
        }
        let one_line = rendered.html.replace('\r', "").replace('\n', "&#10;");
        // A following line must not continue our HTML block: end it with a blank line that keeps
        // the container (`>` stays, list markers and text become spaces).
        let continuation: String = prefix
            .chars()
            .map(|c| if c == '>' { '>' } else { ' ' })
            .collect();
        let replacement = format!("{prefix}{one_line}\n{}\n", continuation.trim_end());
        replacements.push((fence.start, fence.end.min(lines.len()), replacement));
    }
    let mut out = String::with_capacity(content.len() * 2);
    let mut line = 1;
    let mut pending = replacements.into_iter().peekable();
    while line <= lines.len() {
        match pending.peek() {
            Some((start, end, text)) if *start == line => {
                out.push_str(text);
                line = end + 1;
                pending.next();
            }
            _ => {
                out.push_str(lines[line - 1]);
                line += 1;
            }
        }
    }
    Processed {
        content: out,
        messages,
        errors,
    }
}

/// The mdBook versions this preprocessor speaks to (0.5's wire format).
pub const SUPPORTED: &str = ">=0.5.0, <0.6.0";

/// A one-line warning when the running mdBook is outside [`SUPPORTED`], else `None`.
pub fn version_warning(running: &str) -> Option<String> {
    let req = semver::VersionReq::parse(SUPPORTED).ok()?;
    match semver::Version::parse(running) {
        Ok(v) if req.matches(&v) => None,
        Ok(v) => Some(format!(
            "mdbook-passback: warning: built for mdBook {SUPPORTED}, running under {v}; if the build fails, use a matching mdBook"
        )),
        Err(_) => Some(format!(
            "mdbook-passback: warning: cannot read the mdBook version \"{running}\"; expected {SUPPORTED}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const Q: &str = "```single-choice\n{ \"version\": \"1\", \"question\": \"Which?\", \"options\": [\"A\", \"B\"] }\n```\n";

    #[test]
    fn everything_but_the_fence_stays_byte_identical() {
        let chapter = format!(
            "# Title\r\n\nSome *prose*.  \n\n{Q}\nAfter.\n\n```rust\nfn main() {{}}\n```\n"
        );
        let out = process_chapter("intro.md", &chapter, &Settings::default());
        assert!(
            out.content
                .starts_with("# Title\r\n\nSome *prose*.  \n\n<div class=\"pb-doc\""),
            "{}",
            out.content
        );
        assert!(
            out.content
                .ends_with("\n\nAfter.\n\n```rust\nfn main() {}\n```\n")
        );
        assert_eq!(
            out.content
                .lines()
                .filter(|l| l.contains("pb-block"))
                .count(),
            1,
            "the HTML is one line"
        );
        assert!(out.messages.is_empty());
    }

    #[test]
    fn fences_in_lists_and_quotes_keep_their_container() {
        let indented: String = Q.lines().map(|l| format!("   {l}\n")).collect();
        let quoted: String = Q.lines().map(|l| format!("> {l}\n")).collect();
        let chapter =
            format!("1. First\n\n{indented}\n   still in the item\n\n{quoted}> still quoted\n");
        let out = process_chapter("c.md", &chapter, &Settings::default()).content;
        assert!(out.contains("\n   <div class=\"pb-doc\""), "{out}");
        assert!(out.contains("\n> <div class=\"pb-doc\""), "{out}");
        assert!(out.contains("\n>\n> still quoted"), "{out}");
        let html = comrak::markdown_to_html(&out, &passback_engine::document::comrak_options(true));
        assert!(html.contains("<li>") && html.contains("<blockquote>"));
        assert!(html.matches("pb-single-choice").count() == 2, "{html}");
    }

    #[test]
    fn ids_differ_between_chapters_and_blocks() {
        let chapter = format!("{Q}\n{Q}");
        let a = process_chapter("a.md", &chapter, &Settings::default()).content;
        let b = process_chapter("b.md", &chapter, &Settings::default()).content;
        let ids = |s: &str| -> Vec<String> {
            s.split("id=\"")
                .skip(1)
                .map(|r| r.split('"').next().unwrap_or("").to_string())
                .collect()
        };
        let mut all = ids(&a);
        all.extend(ids(&b));
        let n = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), n, "ids repeat across blocks or chapters");
    }

    #[test]
    fn invalid_blocks_fall_back_and_report_where() {
        let chapter = "Intro\n\n```single-choice\n{ \"version\": 1, \"question\": \"Q\", \"options\": [\"A\", \"B\"] }\n```\n";
        let out = process_chapter("guide/setup.md", chapter, &Settings::default());
        assert_eq!(out.errors, 1);
        assert_eq!(out.messages, vec!["guide/setup.md:4:14: warning[wrong_version]: `version` must be the string \"1\", found the number 1 (write \"version\": \"1\" (a string, in quotes; the number 1 is rejected))".to_string()]);
        assert!(out.content.contains("<pre class=\"pb-invalid\""));
        let strict = process_chapter(
            "guide/setup.md",
            chapter,
            &Settings {
                on_error: OnError::Fail,
                ..Settings::default()
            },
        );
        assert!(strict.messages[0].contains(": error[wrong_version]"));
    }

    #[test]
    fn the_form_posts_only_with_an_answers_action() {
        let without = process_chapter("a.md", Q, &Settings::default()).content;
        assert!(
            without.contains("<form class=\"pb-form\" method=\"dialog\">"),
            "a form that never submits without an action"
        );
        assert!(
            !without.contains("class=\"pb-submit\""),
            "no Get answers button with nowhere to post"
        );
        let with = process_chapter(
            "a.md",
            Q,
            &Settings {
                answers_action: Some("https://answers.example/v1/answers".into()),
                ..Settings::default()
            },
        )
        .content;
        assert!(with.contains(
            "<form class=\"pb-form\" method=\"post\" action=\"https://answers.example/v1/answers\">"
        ));
        assert!(
            with.contains("&#10;"),
            "newlines in the hidden source are encoded"
        );
    }

    #[test]
    fn version_range() {
        assert_eq!(version_warning("0.5.4"), None);
        assert!(version_warning("0.4.40").is_some_and(|w| !w.contains('\n')));
        assert!(version_warning("0.6.0").is_some());
    }
}
