//! mdbook-passback: turns PassbackAI component fences in an mdBook's chapters into live widgets.
//!
//! Each component fence is rendered by the engine as its own small document and spliced into the
//! chapter by line, so everything else in the chapter stays byte-identical. The HTML is written
//! on one line (newlines become `&#10;`) with the indentation or `>` prefix of the fence it
//! replaces, followed by a blank line, so it stays inside lists and block quotes.
//!
//! A chapter with components also takes comments on its prose (contract §7), which mdBook writes
//! itself: an empty `.pb-chapter-start` goes before the chapter and an empty `.pb-chapter` after
//! it, and the script numbers the prose between the two in the page as the engine numbers a
//! document's leaves, and fills the `.pb-chapter` with the whole-page comment box and "Copy all
//! answers on this page": its components' exports, then `## Comments on the text`.
//!
//! With `mermaid = "svg"`, plain ```` ```mermaid ```` fences (Mermaid text, not JSON) are drawn as
//! figures by the engine and spliced in the same way; one it cannot draw stays as written. What a
//! drawn one ignores is printed as `validate` reports it for a `mermaid` component.
#![forbid(unsafe_code)]

pub mod install;

use mdbook_markdown::pulldown_cmark::{CodeBlockKind, Event, Tag, TagEnd};
use mdbook_markdown::{MarkdownOptions, new_cmark_parser};
use passback_engine::{Alone, Format, Kind, Options, Severity, Surface};

/// The `[preprocessor.passback]` options.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub surface: Surface,
    /// Where the no-JavaScript form posts; without it the page relies on "Copy answers".
    pub answers_action: Option<String>,
    pub on_error: OnError,
    /// mdBook's `output.html.definition-lists` and `output.html.admonitions`, which change how
    /// it reads a chapter (both on by default).
    pub definition_lists: bool,
    pub admonitions: bool,
    /// Whether chapters with components take comments on their prose (`prose-comments`).
    pub prose_comments: bool,
    /// What becomes of plain ```` ```mermaid ```` fences (`mermaid`).
    pub mermaid: PlainMermaid,
    /// Where "Copy answers" buttons go (`copy`).
    pub copy: CopyButtons,
}

/// Where a chapter's "Copy answers" buttons go (`copy` in `[preprocessor.passback]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyButtons {
    /// One per chapter, "Copy all answers on this page", which copies every component of the
    /// chapter and the comments on its text (`copy = "chapter"`, the default). A chapter that
    /// takes no comments on its prose (`prose-comments = false`) has no chapter-wide button, so
    /// there each component keeps its own.
    Chapter,
    /// Each component its own "Copy answers" as well (`copy = "component"`).
    Component,
}

/// Plain ```` ```mermaid ```` fences (Mermaid text, not a component's JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlainMermaid {
    /// Left as they are, for another preprocessor or mdBook's script (the default).
    Leave,
    /// Drawn here as SVG (`mermaid = "svg"`), so the book needs no diagram JavaScript.
    Svg,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            surface: Surface::Page,
            answers_action: None,
            on_error: OnError::Warn,
            definition_lists: true,
            admonitions: true,
            prose_comments: true,
            mermaid: PlainMermaid::Leave,
            copy: CopyButtons::Chapter,
        }
    }
}

impl Settings {
    fn markdown(&self) -> MarkdownOptions {
        let mut m = MarkdownOptions::default();
        m.definition_lists = self.definition_lists;
        m.admonitions = self.admonitions;
        m
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

/// A fence the preprocessor replaces: 1-based first and last line, what it is, and its content.
struct Fence {
    start: usize,
    end: usize,
    what: What,
    literal: String,
}

/// A component, or a plain Mermaid diagram drawn as a figure.
#[derive(Clone, Copy)]
enum What {
    Component(Kind),
    Diagram,
}

/// What reading a chapter finds: its component fences, and the warnings its other fenced code
/// blocks earn (a misspelt tag, a component caught inside another block).
struct Found {
    fences: Vec<Fence>,
    warnings: Vec<passback_engine::Diagnostic>,
}

/// Finds the fences as mdBook itself will read the chapter (pulldown-cmark with mdBook's
/// options: definition lists, admonitions…), so a fence mdBook shows as code is never taken for
/// a component, nor the other way round.
fn fences(content: &str, markdown: &MarkdownOptions, mermaid: PlainMermaid) -> Found {
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(content.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_of = |offset: usize| line_starts.partition_point(|&s| s <= offset);
    let mut found = Found {
        fences: Vec::new(),
        warnings: Vec::new(),
    };
    // The fenced block being read: its source range, info string and text.
    let mut open: Option<(std::ops::Range<usize>, String, String)> = None;
    for (event, range) in new_cmark_parser(content, markdown).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                open = Some((range, info.to_string(), String::new()));
            }
            Event::Text(text) => {
                if let Some((_, _, literal)) = &mut open {
                    literal.push_str(&text);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                let Some((range, info, literal)) = open.take() else {
                    continue;
                };
                let source = &content[range.clone()];
                let start = line_of(range.start);
                let end = line_of(range.start + source.trim_end().len().saturating_sub(1));
                match Kind::from_tag(info.trim()) {
                    // Raw Mermaid in a ```mermaid fence is not a component (a PassbackAI
                    // diagram is JSON): drawn here when the book asks, else another tool's.
                    Some(Kind::Mermaid) if !literal.trim_start().starts_with('{') => {
                        if mermaid == PlainMermaid::Svg {
                            found.fences.push(Fence {
                                start,
                                end,
                                what: What::Diagram,
                                literal,
                            });
                        }
                    }
                    Some(kind) => found.fences.push(Fence {
                        start,
                        end,
                        what: What::Component(kind),
                        literal,
                    }),
                    None => {
                        let opening = source.lines().next().unwrap_or("");
                        let column = opening.find(['`', '~']).map_or(1, |c| c + 1)
                            + (range.start - line_starts[start - 1]);
                        let last = source.trim_end().lines().last().unwrap_or("");
                        let closed =
                            end > start && passback_engine::markdown::is_closing_fence(last);
                        found
                            .warnings
                            .extend(passback_engine::markdown::code_block_warnings(
                                info.trim(),
                                &literal,
                                closed,
                                start,
                                column,
                            ));
                    }
                }
            }
            _ => {}
        }
    }
    found
}

/// Processes one chapter. `path` names the chapter in messages and salts element ids, so ids
/// stay unique across the whole book (print.html puts every chapter on one page).
pub fn process_chapter(path: &str, content: &str, settings: &Settings) -> Processed {
    let Found {
        fences: found,
        warnings,
    } = fences(content, &settings.markdown(), settings.mermaid);
    let mut messages: Vec<String> = warnings
        .iter()
        .map(|d| d.compiler_line(path, d.line, d.column, "warning"))
        .collect();
    if found.is_empty() {
        return Processed {
            content: content.to_string(),
            messages,
            errors: 0,
        };
    }
    let lines: Vec<&str> = content.split_inclusive('\n').collect();
    let mut errors = 0;
    let mut components = 0;
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
        // A following line must not continue our HTML block: end it with a blank line that keeps
        // the container (`>` stays, list markers and text become spaces).
        let continuation: String = prefix
            .chars()
            .map(|c| if c == '>' { '>' } else { ' ' })
            .collect();
        let kind = match fence.what {
            What::Component(kind) => kind,
            What::Diagram => {
                let id = format!("{}-fig{index}", chapter_key(path));
                match passback_engine::draw_alone(&fence.literal, &id) {
                    Alone::Drawn { svg, warnings } => {
                        // What the drawing ignores, as `validate` reports it for a `mermaid`
                        // component: the fence's content starts on the line after its opening.
                        for d in &warnings {
                            let column = d.column + prefix.chars().count();
                            messages.push(d.compiler_line(
                                path,
                                fence.start + d.line,
                                column,
                                "warning",
                            ));
                        }
                        let figure = format!(
                            "<figure class=\"pb-mermaid pb-figure\"><div class=\"pb-diagram-canvas\">{}</div></figure>",
                            svg.replace('\r', "").replace('\n', "&#10;")
                        );
                        let replacement =
                            format!("{prefix}{figure}\n{}\n", continuation.trim_end());
                        replacements.push((fence.start, fence.end.min(lines.len()), replacement));
                    }
                    // The fence stays a code block, as it was written.
                    Alone::NotDrawn { reason, line } => messages.push(format!(
                        "{path}:{}:{}: warning[unsupported_diagram]: {reason}; the diagram's source is shown as a code block",
                        fence.start + line,
                        prefix.chars().count() + 1
                    )),
                }
                continue;
            }
        };
        components += 1;
        let mini = format!("```{}\n{}```\n", kind.tag(), fence.literal);
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
                Severity::Info => "info",
            };
            messages.push(d.compiler_line(path, line, column, severity));
        }
        let mut one_line = rendered.html.replace('\r', "").replace('\n', "&#10;");
        // The chapter's own button copies this component: the stylesheet hides its own.
        if settings.copy == CopyButtons::Chapter && settings.prose_comments {
            one_line = one_line.replacen(
                "<div class=\"pb-doc\"",
                "<div class=\"pb-doc pb-chapter-part\"",
                1,
            );
        }
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
    // Comments on the prose come with components: a chapter with only diagrams takes none.
    if settings.prose_comments && components > 0 {
        out = with_chapter_markers(path, &out, content);
    }
    Processed {
        content: out,
        messages,
        errors,
    }
}

/// `processed` between the chapter's two markers (see the crate's documentation). `source` is
/// the chapter as written: its language and direction are the markers', as the engine finds
/// them for a document.
fn with_chapter_markers(path: &str, processed: &str, source: &str) -> String {
    let key = chapter_key(path);
    let doc = passback_engine::Doc::parse(source);
    let mut out = String::with_capacity(processed.len() + 256);
    out.push_str(&format!(
        "<div class=\"pb-chapter-start\" data-pb-chapter=\"{key}\" hidden></div>\n\n"
    ));
    out.push_str(processed);
    if !processed.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!(
        "\n<div class=\"pb-doc pb-chapter\" data-pb-chapter=\"{key}\" id=\"{key}\" lang=\"{}\" dir=\"{}\" hidden></div>\n",
        doc.lang_code(),
        doc.dir()
    ));
    out
}

/// An id for a chapter's markers, unique across the book (print.html holds every chapter):
/// `pb-ch-` and 16 hex digits of the FNV-1a hash of its path.
fn chapter_key(path: &str) -> String {
    let hash = path.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("pb-ch-{hash:016x}")
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

    /// Without the chapter's comment markers: the chapter exactly as it was but for the fence.
    fn plain() -> Settings {
        Settings {
            prose_comments: false,
            ..Settings::default()
        }
    }

    #[test]
    fn a_chapter_with_components_is_marked_for_comments_on_its_prose() {
        let chapter = format!("# Title\n\nSome prose.\n\n{Q}");
        let out = process_chapter("guide/a.md", &chapter, &Settings::default()).content;
        let key = chapter_key("guide/a.md");
        assert!(
            out.starts_with(&format!(
                "<div class=\"pb-chapter-start\" data-pb-chapter=\"{key}\" hidden></div>\n\n# Title\n\nSome prose.\n\n"
            )),
            "{out}"
        );
        assert!(out.ends_with(&format!("\n\n<div class=\"pb-doc pb-chapter\" data-pb-chapter=\"{key}\" id=\"{key}\" lang=\"en\" dir=\"ltr\" hidden></div>\n")), "{out}");
        assert_ne!(key, chapter_key("guide/b.md"));
        // Hebrew prose: the chapter's chrome is Hebrew, right to left.
        let he = process_chapter(
            "he.md",
            &format!("שלום לכולם, זו החלטה חשובה.\n\n{Q}"),
            &Settings::default(),
        )
        .content;
        assert!(he.contains("lang=\"he\" dir=\"rtl\""), "{he}");
        // No components, no markers: the chapter is left alone.
        assert_eq!(
            process_chapter("c.md", "# Only prose\n", &Settings::default()).content,
            "# Only prose\n"
        );
        // Turned off in book.toml.
        assert!(
            !process_chapter("a.md", &chapter, &plain())
                .content
                .contains("pb-chapter")
        );
    }

    const Q: &str = "```single-choice\n{ \"version\": \"1\", \"question\": \"Which?\", \"options\": [\"A\", \"B\"] }\n```\n";

    #[test]
    fn everything_but_the_fence_stays_byte_identical() {
        let chapter = format!(
            "# Title\r\n\nSome *prose*.  \n\n{Q}\nAfter.\n\n```rust\nfn main() {{}}\n```\n"
        );
        let out = process_chapter("intro.md", &chapter, &plain());
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
        assert!(
            out.contains("\n   <div class=\"pb-doc pb-chapter-part\""),
            "{out}"
        );
        assert!(
            out.contains("\n> <div class=\"pb-doc pb-chapter-part\""),
            "{out}"
        );
        assert!(out.contains("\n>\n> still quoted"), "{out}");
        let html = comrak::markdown_to_html(&out, &passback_engine::markdown::comrak_options(true));
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
        assert_eq!(out.messages, vec!["guide/setup.md:4:14: warning[wrong_version]: `version` must be the string \"1\", found the number 1 — write \"version\": \"1\", a string in quotes; the number 1 is rejected".to_string()]);
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
    fn fences_are_read_as_mdbook_reads_them() {
        // A code block inside a definition: comrak (without definition lists) would open a fence
        // at its indented closing line and swallow the component below.
        let chapter = format!("Term\n: ```text\n  plain text\n  ```\n\n{Q}\nAfter.\n");
        let out = process_chapter("d.md", &chapter, &plain());
        assert!(out.content.contains("pb-single-choice"), "{}", out.content);
        assert!(out.content.contains(": ```text\n  plain text\n  ```\n"));
        assert!(out.messages.is_empty(), "{:?}", out.messages);
        // A component written inside a definition (its lines indented under it) renders there.
        let inside = format!("Term\n: {}", Q.replace('\n', "\n  ").trim_end());
        let out = process_chapter("d.md", &inside, &plain());
        assert!(out.content.contains("pb-single-choice"), "{}", out.content);
        assert!(
            out.content.starts_with("Term\n: <div class=\"pb-doc\""),
            "{}",
            out.content
        );
        // Not indented, the JSON is not in the fence (mdBook shows an empty code block and a
        // paragraph): an empty component, reported.
        let out = process_chapter("d.md", &format!("Term\n: {Q}"), &plain());
        assert!(
            out.messages.iter().any(|m| m.contains("[invalid_json]")),
            "{:?}",
            out.messages
        );
    }

    #[test]
    fn the_chapter_warnings_validate_gives_are_printed() {
        // A component caught in a code block, and a misspelt tag: both reported, at their lines.
        let chapter =
            format!("```multiple-choice\n{{}}\n```\n\n```markdown\nHere is how:\n{Q}```\n");
        let out = process_chapter("w.md", &chapter, &Settings::default());
        assert_eq!(out.messages.len(), 2, "{:?}", out.messages);
        assert!(
            out.messages[0].starts_with("w.md:1:1: warning[unknown_tag]"),
            "{:?}",
            out.messages
        );
        assert!(
            out.messages[1].starts_with("w.md:5:1: warning[component_in_code_block]"),
            "{:?}",
            out.messages
        );
        assert_eq!(out.errors, 0);
    }

    #[test]
    fn raw_mermaid_is_left_to_other_tools() {
        let chapter = "```mermaid\ngraph TD; A-->B;\n```\n\n```mermaid\n{\"version\": \"1\", \"source\": \"graph TD; A-->B;\"}\n```\n";
        let out = process_chapter("m.md", chapter, &plain());
        assert!(
            out.content
                .starts_with("```mermaid\ngraph TD; A-->B;\n```\n"),
            "{}",
            out.content
        );
        assert_eq!(
            out.content.matches("class=\"pb-block pb-mermaid\"").count(),
            1
        );
        assert!(out.messages.is_empty(), "{:?}", out.messages);
    }

    fn svg() -> Settings {
        Settings {
            mermaid: PlainMermaid::Svg,
            ..plain()
        }
    }

    #[test]
    fn a_drawn_diagram_prints_what_it_ignores_as_validate_does() {
        let diagram =
            "graph TD\n  A --> B\n  classDef hidden width:0px,height:0px\n  class B hidden\n";
        let chapter = format!("# Flow\n\nProse.\n\n```mermaid\n{diagram}```\n");
        let out = process_chapter("guide/flow.md", &chapter, &svg());
        assert!(out.content.contains("<svg"), "drawn: {}", out.content);
        // The same warnings, in the same words, as `validate` gives the diagram as a component.
        let doc = format!(
            "```mermaid\n{}\n```\n",
            serde_json::json!({ "version": "1", "source": diagram })
        );
        let validated: Vec<String> = passback_engine::validate(&doc)
            .diagnostics
            .iter()
            .map(|d| d.compiler_line("guide/flow.md", 6, 1, "warning"))
            .collect();
        assert!(!validated.is_empty());
        assert_eq!(out.messages, validated);
        assert!(
            out.messages[0].starts_with("guide/flow.md:6:1: warning[ignored_directive]: "),
            "{:?}",
            out.messages
        );
        assert_eq!(out.errors, 0);
        // In a block quote, the column counts the `> `.
        let quoted: String = format!("```mermaid\n{diagram}```\n")
            .lines()
            .map(|l| format!("> {l}\n"))
            .collect();
        let out = process_chapter("q.md", &format!("Intro\n\n{quoted}"), &svg());
        assert!(
            out.messages[0].starts_with("q.md:4:3: warning[ignored_directive]: "),
            "{:?}",
            out.messages
        );
    }

    #[test]
    fn a_clean_drawn_diagram_prints_nothing() {
        let chapter = "```mermaid\ngraph TD\n  A[Start] --> B{Ready?}\n  B -->|yes| C\n```\n\n```mermaid\nsequenceDiagram\n  A->>B: hi\n```\n";
        let out = process_chapter("c.md", chapter, &svg());
        assert_eq!(out.content.matches("<svg").count(), 2, "{}", out.content);
        assert!(out.messages.is_empty(), "{:?}", out.messages);
    }

    #[test]
    fn version_range() {
        assert_eq!(version_warning("0.5.4"), None);
        assert!(version_warning("0.4.40").is_some_and(|w| !w.contains('\n')));
        assert!(version_warning("0.6.0").is_some());
    }
}
