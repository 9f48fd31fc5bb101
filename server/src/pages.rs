//! The service's own pages beside the playground's (in `playground`): the answers page, which
//! works with JavaScript off.

use maud::{Markup, html};

/// A page of the service: the engine's page shell, so the stylesheet and the script are linked
/// the same way as on rendered documents.
fn shell(title: &str, body: Markup) -> String {
    passback_engine::page(&body.into_string(), title, "/assets")
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
