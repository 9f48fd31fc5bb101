//! The playground: the page at `GET /` (here), its own script and stylesheet ([`assets`]) and
//! its example documents ([`examples`]). The page works with JavaScript off; the playground's
//! script makes the preview live and the engine's enhances the rendering.

pub mod assets;
pub mod examples;

use maud::{DOCTYPE, Markup, PreEscaped, html};
use passback_engine::Diagnostic;

/// What the playground shows under a document it rendered.
pub struct Shown<'a> {
    /// The rendering, an HTML fragment.
    pub fragment: &'a str,
    pub diagnostics: &'a [Diagnostic],
    /// How many component fences the document has.
    pub blocks: usize,
}

/// `GET /` and `POST /`: the editor, and beside it the document rendered, with its problems
/// under the editor. `example` is the example loaded, if any.
pub fn page(markdown: &str, shown: Option<Shown>, example: Option<&str>) -> String {
    let asset_url = |name: &str| format!("/assets/{name}");
    let body = html! {
        header class="pbp-head" {
            h1 { "passback playground" }
            p {
                "Write or paste a PassbackAI document: Markdown with component fences. The preview shows what your reader gets; fill it in and copy the answers they would send back."
            }
        }
        nav class="pbp-examples" aria-labelledby="pbp-examples-title" {
            h2 id="pbp-examples-title" { "Examples" }
            ul {
                @for e in examples::EXAMPLES {
                    li {
                        a href={ "/?example=" (e.id) } data-pbp-example=(e.id)
                            aria-current=[(example == Some(e.id)).then_some("page")] {
                            @if let Some((lang, name)) = e.native {
                                span lang=(lang) { (name) } " (" (e.label) ")"
                            } @else {
                                (e.label)
                            }
                        }
                    }
                }
            }
        }
        div class="pbp-work" {
            form class="pbp-editor" method="post" action="/" {
                div class="pbp-editor-head" {
                    label for="pbp-doc" { "Document" }
                    (status(markdown, shown.as_ref()))
                }
                // HTML drops one newline right after `<textarea>`: this one, so a document's own
                // leading newline survives.
                textarea id="pbp-doc" name="markdown" rows="20" spellcheck="false"
                    autocapitalize="off" placeholder=(PLACEHOLDER) { "\n" (markdown) }
                div class="pbp-tools" {
                    button type="submit" id="pbp-render" class="pbp-button pbp-primary" { "Render" }
                    button type="button" id="pbp-share" class="pbp-button" hidden { "Share" }
                    span id="pbp-share-status" class="pbp-note" role="status" {}
                }
                div id="pbp-share-box" class="pbp-share-box" hidden {
                    label for="pbp-share-link" { "Link to this document (the text travels in the link, after the #)" }
                    input id="pbp-share-link" type="text" readonly;
                }
                @let diagnostics = shown.as_ref().map_or(&[][..], |s| s.diagnostics);
                // Focusable: it may scroll, and without the script its rows are not.
                section id="pbp-diagnostics" class="pbp-diagnostics" aria-labelledby="pbp-diag-title"
                    tabindex="0" hidden[diagnostics.is_empty()] {
                    h2 id="pbp-diag-title" { "Problems " span id="pbp-diag-count" { "(" (diagnostics.len()) ")" } }
                    ul id="pbp-diag-list" {
                        @for d in diagnostics {
                            li class="pbp-diag" data-severity=(d.severity.name()) {
                                (diagnostic(d))
                            }
                        }
                    }
                }
            }
            div class="pbp-preview" {
                h2 id="pbp-preview-title" { "Preview" }
                // Focusable: on a wide screen it scrolls on its own.
                div id="pbp-preview" role="region" aria-labelledby="pbp-preview-title" tabindex="0" {
                    @match &shown {
                        Some(s) if !markdown.trim().is_empty() => (PreEscaped(s.fragment)),
                        _ => p class="pbp-empty" { (EMPTY) },
                    }
                }
            }
        }
    };
    html! {
        (DOCTYPE)
        html lang="en" dir="ltr" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { "passback playground" }
                // No icon: spares a request that would only find nothing.
                link rel="icon" href="data:,";
                link rel="stylesheet" href=(asset_url(passback_engine::assets::css_name()));
                link rel="stylesheet" href=(asset_url(assets::css_name()));
                // The playground's script first: it readies the preview before the engine's
                // script enhances it.
                script src=(asset_url(assets::js_name())) defer {}
                script src=(asset_url(passback_engine::assets::js_name())) defer {}
            }
            body class="pbp-body" {
                main class="pb-page pbp" data-pbp-examples=(asset_url(assets::examples_name())) {
                    (body)
                }
            }
        }
    }
    .into_string()
}

/// What the empty editor shows: the shape of a document.
const PLACEHOLDER: &str = "# A decision\n\nProse in Markdown, and each question in a fence:\n\n```single-choice\n{ \"version\": \"1\", \"question\": \"Which one?\", \"options\": [\"A\", \"B\"] }\n```";

/// What the empty preview says (the script writes the same).
const EMPTY: &str = "Nothing to show yet. Write in the editor, or pick an example above: \u{201c}Every component\u{201d} shows the whole palette.";

/// The status line: valid or violating, the component count, the problem counts. The script
/// writes the same words.
fn status(markdown: &str, shown: Option<&Shown>) -> Markup {
    let Some(s) = shown.filter(|_| !markdown.trim().is_empty()) else {
        return html! { p id="pbp-status" class="pbp-status" role="status" { "No document yet." } };
    };
    let errors = s.diagnostics.iter().filter(|d| d.is_error()).count();
    // Notes (`info`) ask for nothing: they are listed, not counted.
    let warnings = s
        .diagnostics
        .iter()
        .filter(|d| d.severity == passback_engine::Severity::Warning)
        .count();
    let outcome = if errors == 0 { "valid" } else { "violating" };
    let mut details = vec![plural(s.blocks, "component", "components")];
    if errors > 0 {
        details.push(plural(errors, "error", "errors"));
    }
    if warnings > 0 {
        details.push(plural(warnings, "warning", "warnings"));
    }
    html! {
        p id="pbp-status" class="pbp-status" role="status" data-outcome=(outcome) {
            strong { @if errors == 0 { "Valid" } @else { "Violating" } }
            @for d in &details { " · " (d) }
        }
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One problem: severity, `line:column`, message, hint and code.
fn diagnostic(d: &Diagnostic) -> Markup {
    html! {
        span class="pbp-sev" { (d.severity.name()) }
        " "
        span class="pbp-pos" {
            span class="pb-visually-hidden" { "line " (d.line) ", column " (d.column) }
            span aria-hidden="true" { (d.line) ":" (d.column) }
        }
        " "
        span class="pbp-msg" { (d.message) }
        " "
        span class="pbp-more" {
            span class="pbp-hint" { "Hint: " (d.hint) }
            " "
            code class="pbp-code" { (d.code) }
        }
    }
}
