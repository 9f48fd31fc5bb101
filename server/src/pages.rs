//! The service's own pages: the paste playground and the answers page. Both work with
//! JavaScript off; the script enhances the rendered document and the copy button.

use maud::{Markup, PreEscaped, html};
use passback_engine::Diagnostic;

/// A page of the service: the engine's page shell, so the stylesheet and the script are linked
/// the same way as on rendered documents.
fn shell(title: &str, body: Markup) -> String {
    passback_engine::page(&body.into_string(), title, "/assets")
}

/// `GET /` and `POST /`: paste a document, see it rendered below, fill it in.
pub fn playground(markdown: &str, rendered: Option<(&str, &[Diagnostic])>) -> String {
    let body = html! {
        h1 { "passback playground" }
        p { "Paste a PassbackAI document (Markdown with component fences), render it, fill it in, and get the answers." }
        form class="pb-playground" method="post" action="/" {
            label for="pb-playground-doc" { "Document" }
            textarea id="pb-playground-doc" name="markdown" rows="16" spellcheck="false" { (markdown) }
            div class="pb-actions" { button type="submit" class="pb-submit" { "Render" } }
        }
        @if let Some((fragment, diagnostics)) = rendered {
            @if !diagnostics.is_empty() {
                section class="pb-diagnostics" aria-labelledby="pb-diag-title" {
                    h2 id="pb-diag-title" { "Problems found" }
                    ul {
                        @for d in diagnostics {
                            li {
                                strong { (d.severity.name()) " [" (d.code) "]" }
                                " line " (d.line) ", column " (d.column) ": " (d.message) " — " (d.hint)
                            }
                        }
                    }
                }
            }
            h2 { "Rendered" }
            (PreEscaped(fragment))
        }
    };
    shell("passback playground", body)
}

/// The export as a page: a read-only text area (select and copy without JavaScript) and a copy
/// button the script reveals.
pub fn answers(markdown: &str, notices: &[String]) -> String {
    let body = html! {
        h1 { "Your answers" }
        @for n in notices { p class="pb-notice" role="note" { (n) } }
        @if markdown.is_empty() {
            p { "Nothing was answered yet. Go back, fill in the document, and get the answers again." }
        } @else {
            label for="pb-export" { "Copy this and paste it back to whoever sent you the document:" }
            textarea id="pb-export" class="pb-export" rows="16" readonly { (markdown) }
            div class="pb-actions" {
                button type="button" class="pb-submit" data-pb-copy="pb-export" data-pb-status="pb-copy-status" hidden { "Copy answers" }
                span id="pb-copy-status" role="status" {}
            }
        }
    };
    shell("Your answers", body)
}
