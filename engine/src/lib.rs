//! passback-engine turns PassbackAI decision documents (Markdown with fenced JSON components)
//! into accessible, server-rendered HTML, validates them, caches renderings by content hash, and
//! turns the reader's answers back into the spec's Markdown export.
//!
//! ```
//! use passback_engine::{Engine, Options};
//! let engine = Engine::default();
//! let doc = "Pick one.\n\n```single-choice\n{ \"version\": \"1\", \"question\": \"Which?\", \"options\": [\"A\", \"B\"] }\n```\n";
//! let out = engine.render(doc, &Options::default());
//! assert!(out.html.contains("pb-single-choice"));
//! assert!(out.diagnostics.is_empty());
//! ```
//!
//! Answers come back as JSON ([`answers_from_json`]) or as the rendered form's own post
//! ([`answer_form`]), and [`export`] writes them as the Markdown the sender reads.
//!
//! # Layout
//!
//! Data flows one way, and modules depend only on the ones above them in this list:
//!
//! | module | what it holds |
//! |---|---|
//! | `diag`, `json`, `options`, `schema`, `budget` | leaves: diagnostics, lenient JSON with positions, render options, the JSON Schema |
//! | `html` | markup helpers: escaping, ids, the render context, the page shell, chrome strings (en/he/ar), email styles |
//! | `assets` | the stylesheet, and the script joined from its files with the chrome strings it uses |
//! | `diagram` | Mermaid: one folder per kind (flowchart, sequence: parse, layout, draw), shared text, shapes, routing and SVG writer below |
//! | `sanitize` | prose HTML cleaning and the URL policy |
//! | `prose` | the prose leaves readers comment on: their numbers in the HTML, their visible text |
//! | `components` | the `Component` trait, the registry that generates [`Kind`], and one module per component |
//! | `document` | comrak parse, fence dispatch, bare-paste detection, block numbering |
//! | `answers` | the responses envelope (JSON, urlencoded), dispatch to the components, joining exports |
//! | `text`, `email` | the plain-text and email surfaces |
//! | `render` | the page pipeline: parse, police, render prose and components, finish |
//! | `cache`, `engine` | the bounded cache by content hash, and [`Engine`] that renders through it |
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod answers;
pub mod assets;
mod budget;
mod cache;
mod components;
mod diag;
mod diagram;
mod document;
mod email;
mod engine;
mod html;
mod json;
mod options;
mod prose;
mod render;
mod sanitize;
mod schema;
mod text;

pub use answers::{
    Annotation, Doc, Export, FormOp, FormPost, Responses, export, from_form as answers_from_form,
    from_json as answers_from_json, parse_urlencoded, to_json as answers_to_json,
};
pub use budget::{Limits, cancelled, with_limits};
pub use cache::{CacheConfig, CacheStats};
pub use components::answer::{AnswersError, AnswersErrorKind};
pub use components::{Kind, decode_thumbnail};
pub use diag::{Code, Diagnostic, Severity, terminal_safe};
pub use diagram::{Alone, draw_alone};
pub use document::{BlockInfo, FrontMatter};
pub use engine::{Engine, Miss};
pub use options::{Format, ImagePolicy, ImageProxy, Options, Surface};
pub use render::{
    FormOutcome, GMAIL_CLIP_BYTES, HEAP_SETTLE_BYTES, Outcome, Rendered, Validation, answer_form,
    content_hash, document_title, is_answers_action, is_respond_url, keyed_content_hash,
    raise_heap_trim_threshold, receipt_page, render, render_with_answers, validate,
};
pub use schema::SCHEMA;

/// A complete HTML page (English chrome) around `fragment`, linking the stylesheet and the
/// script from `asset_base`: the shell the engine's own pages use, for a host's pages around
/// them (a playground, an answers page).
pub fn page(fragment: &str, title: &str, asset_base: &str) -> String {
    html::page(
        fragment,
        title,
        html::i18n::Lang::En,
        assets::links(asset_base),
    )
}

pub use html::i18n::Strings;

/// The engine's strings in a document's language by its code (`en`, `he`, `ar`; English for
/// any other): for a host that writes parts of a page around the engine's (the routed review
/// page's intro and error summary) in the language the page already speaks.
pub fn chrome_strings(lang: &str) -> &'static Strings {
    html::i18n::Lang::ALL
        .into_iter()
        .find(|l| l.code() == lang)
        .unwrap_or(html::i18n::Lang::En)
        .strings()
}

/// The Markdown reading the engine shares with hosts that read the same text around it (an
/// mdBook preprocessor, the typed-blocks input of an HTTP service).
pub mod markdown {
    pub use crate::document::{code_block_warnings, comrak_options, is_closing_fence, left_open};
}

#[cfg(test)]
mod tests {
    mod conformance;
    mod spec_examples;
}
