//! The render pipeline: parse, police, render the prose and the components, finish the page.

use crate::components::answer::AnswersError;
use crate::diag::{Code, Diagnostic, Severity};
use crate::document::{self, BlockInfo, FrontMatter};
use crate::html::i18n::Lang;
use crate::options::{Format, Options, Surface};
use crate::{answers, assets, email, html, prose, sanitize, text};
use comrak::Arena;
use comrak::nodes::NodeValue;
use maud::{PreEscaped, html};
use serde::Serialize;
use std::borrow::Cow;
use std::sync::Arc;

/// A finished rendering. Serialized, it is the JSON format's body: `html`, `hash`, `blocks` and
/// `diagnostics`.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct Rendered {
    /// The body when the format is not the fragment itself (a page, text, or the JSON object);
    /// `None` for `Format::Fragment`, whose body is `html`. See [`Rendered::body`].
    #[serde(skip)]
    wrapped: Option<String>,
    /// The HTML fragment (also inside the body).
    pub html: String,
    /// Content hash of (document, options): the ETag, and the name `GET /v1/render/{hash}` finds
    /// the cached rendering by.
    pub hash: String,
    /// Every component fence, in document order.
    pub blocks: Vec<BlockInfo>,
    /// Every problem found, located in the Markdown.
    pub diagnostics: Vec<Diagnostic>,
    /// The format the body is in.
    #[serde(skip)]
    pub format: Format,
    /// A source the page's CSP must allow in `frame-src` (a routed YouTube block's player).
    #[serde(skip)]
    pub frame_src: Option<&'static str>,
    /// The surface it was rendered for (email HTML carries inline styles, so its CSP differs).
    #[serde(skip)]
    pub surface: Surface,
    /// Diagrams this rendering links as images: (key, SVG), for the server to publish at
    /// `/v1/diagrams/{key}.svg|png`.
    #[serde(skip)]
    pub diagrams: Vec<(String, Arc<str>)>,
    /// Email surface with [`Options::cid_images`]: the video thumbnails the HTML refers to, as
    /// (content id, `data:` URI): the MIME message attaches them.
    #[serde(skip)]
    pub thumbnails: Vec<(String, String)>,
    /// The document's YAML front matter, which the page never shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub front_matter: Option<FrontMatter>,
    /// How many of the prose's images the image policy refused, Markdown images (each shown as
    /// a link to it or as its words) and raw `<img>` (each left with its alt text), for a host
    /// to say so.
    #[serde(skip)]
    pub blocked_images: u32,
}

impl Rendered {
    /// Approximate heap size, for the cache's byte bound.
    pub fn weight(&self) -> usize {
        let diags: usize = self
            .diagnostics
            .iter()
            .map(|d| d.message.len() + d.hint.len() + d.path.len() + 96)
            .sum();
        let diagrams: usize = self
            .diagrams
            .iter()
            .map(|(key, svg)| key.capacity() + svg.len() + 48)
            .chain(
                self.thumbnails
                    .iter()
                    .map(|(id, uri)| id.len() + uri.len() + 48),
            )
            .sum();
        // Capacities, not lengths: the cache's byte bound is about memory.
        self.wrapped.as_ref().map_or(0, String::capacity)
            + self.html.capacity()
            + self.hash.capacity()
            + diags
            + diagrams
            + self.blocks.len() * 64
            + 256
    }

    /// The HTTP `Content-Type` of [`Rendered::body`].
    pub fn content_type(&self) -> &'static str {
        self.format.content_type()
    }

    /// The body in the requested format: the fragment, a page, text, or the JSON object.
    pub fn body(&self) -> &str {
        self.wrapped.as_deref().unwrap_or(&self.html)
    }

    /// [`Rendered::body`], taken without a copy.
    pub fn into_body(self) -> String {
        self.wrapped.unwrap_or(self.html)
    }
}

/// A document's verdict (contract §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Outcome {
    /// No errors (warnings allowed).
    Valid,
    /// At least one error.
    Violating,
}

impl Outcome {
    /// `valid` or `violating`, as the JSON output spells it.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Valid => "valid",
            Outcome::Violating => "violating",
        }
    }
}

/// The result of `validate` (contract §2).
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct Validation {
    /// Whether there are no errors.
    pub ok: bool,
    /// `valid` (no errors) or `violating`.
    pub outcome: Outcome,
    /// Every component fence, in document order.
    pub blocks: Vec<BlockInfo>,
    /// Every problem found, located in the Markdown.
    pub diagnostics: Vec<Diagnostic>,
}

/// blake3 of (engine version, options, blake3 of the document), 32 hex digits. The document is
/// hashed on its own, in one call: blake3's one-shot path is the fastest. A cache hit does not
/// need it (the cache looks documents up by a faster key, see the `cache` module).
pub fn content_hash(src: &str, options: &Options) -> String {
    keyed_content_hash(None, src, options)
}

/// [`content_hash`] keyed with a host's secret (blake3's keyed mode): without the key, no one
/// can work out the hash of a document, so a service that names its renderings by hash does
/// not tell who guesses a document whether it was rendered there. `None` is the plain hash.
pub fn keyed_content_hash(key: Option<&[u8; 32]>, src: &str, options: &Options) -> String {
    let document = blake3::hash(src.as_bytes());
    let mut h = key.map_or_else(blake3::Hasher::new, blake3::Hasher::new_keyed);
    h.update(concat!("passback-render ", env!("CARGO_PKG_VERSION"), "\n").as_bytes());
    h.update(assets::css_name().as_bytes());
    h.update(assets::js_name().as_bytes());
    options.hash_into(&mut h);
    h.update(document.as_bytes());
    h.finalize().to_hex()[..32].to_string()
}

/// Validates a document without producing HTML.
pub fn validate(src: &str) -> Validation {
    let arena = document::arena_for(src);
    let (parsed, _) = parse_and_police(&arena, src);
    let ok = !parsed.diagnostics.iter().any(Diagnostic::is_error);
    Validation {
        ok,
        outcome: if ok {
            Outcome::Valid
        } else {
            Outcome::Violating
        },
        blocks: parsed.blocks.into_iter().map(|b| b.info).collect(),
        diagnostics: parsed.diagnostics,
    }
}

/// Parses `src` and applies the URL and raw-HTML policy, as both validation and rendering see
/// the document (so both report the same diagnostics). Returns whether the prose holds raw HTML
/// that ammonia must sanitize: nesting too deep for it gets its HTML escaped instead, with a
/// warning.
fn parse_and_police<'a>(arena: &'a Arena<'a>, src: &str) -> (document::Parsed<'a>, bool) {
    let mut parsed = document::parse(arena, src);
    let raw_html = police(&mut parsed, src);
    (parsed, raw_html)
}

/// The raw-HTML policy of [`parse_and_police`], for a document already parsed (the parse has
/// applied the URL policy, [`sanitize::Police`], and found whether there is raw HTML).
fn police(parsed: &mut document::Parsed, src: &str) -> bool {
    let raw_html = parsed.raw_html;
    match too_deep_to_sanitize(parsed.root, src, raw_html) {
        Some(warning) => {
            // Sanitizing this much nesting would take quadratic time: show the HTML as text.
            sanitize::escape_raw_html(parsed.root);
            parsed.diagnostics.push(warning);
            false
        }
        None => {
            if raw_html {
                let notes = sanitize::raw_notes(parsed.root, &parsed.nodes);
                parsed
                    .diagnostics
                    .extend(notes.into_iter().map(raw_warning));
            }
            raw_html
        }
    }
}

/// The block size `raise_heap_trim_threshold` frees: glibc then keeps up to twice this much
/// free memory at the top of each heap instead of returning it, and serves blocks up to this
/// size from the heap rather than mapping each. 4 MB: a 200 KB document's tree arena and page
/// are blocks of a megabyte or more, which a threshold of 512 KB mapped and unmapped every
/// render (some 670 page faults a render; see the benches' `heap` test).
pub const HEAP_SETTLE_BYTES: usize = 4 << 20;

/// Call once at the start of a process that renders many documents on its main thread (the
/// mdBook preprocessor, the benches). With glibc, every such render of a document of a few tens
/// of KB freed the top of the main heap back to the system and the next render faulted it back
/// in: about 8 page faults and a tenth of the render's time. mallopt(3) documents that freeing
/// a memory-mapped block raises the mmap threshold to the block's size and the trim threshold
/// to twice that, so allocating and freeing one block of `HEAP_SETTLE_BYTES` does it without a
/// call into libc. Other allocators see one allocation and ignore it. The server does not call
/// it: it renders on worker threads, whose heaps glibc did not trim this way, and every heap
/// would keep up to twice `HEAP_SETTLE_BYTES` more.
pub fn raise_heap_trim_threshold() {
    let block = vec![0u8; HEAP_SETTLE_BYTES];
    drop(std::hint::black_box(block));
}

/// Renders without the cache.
pub fn render(src: &str, options: &Options) -> Rendered {
    render_with_hash(src, options, content_hash(src, options))
}

/// Renders the form again with the reader's answers filled in (after a no-JavaScript list edit).
/// Not cached: the answers are the reader's own.
pub fn render_with_answers(src: &str, options: &Options, answers: &answers::Responses) -> Rendered {
    render_inner(src, options, content_hash(src, options), Some(answers))
}

pub(crate) fn render_with_hash(src: &str, options: &Options, hash: String) -> Rendered {
    render_inner(src, options, hash, None)
}

/// The receipt a reader sees after sending a routed document's answers, in the document's
/// language and direction: that they were sent, what was sent (`export`, the Markdown export
/// drawn as prose, with the `notices` about it), and a link to `edit_href`, the form again with
/// these answers filled in. The export's text is the reader's own: raw HTML in it is shown as
/// text, and what it draws passes the prose's sanitizer.
pub fn receipt_page(
    doc: &answers::Doc,
    export: &str,
    notices: &[String],
    edit_href: &str,
    asset_base: &str,
) -> String {
    let t = doc.lang.strings();
    let mut options = comrak::Options::default();
    options.extension.strikethrough = true;
    options.extension.table = true;
    // The export's lines are its entries' lines ("Answer:" under its question).
    options.render.hardbreaks = true;
    // Raw HTML the reader typed is shown as they typed it.
    options.render.escape = true;
    // Its headings sit under the receipt's own "Your answers". What a reader typed loads no
    // image from the web, whatever the server's policy for documents.
    let same_origin = crate::sanitize::ImageRules {
        policy: crate::options::ImagePolicy::SameOrigin,
        ..Default::default()
    };
    let drawn = crate::sanitize::clean(&comrak::markdown_to_html(export, &options), &same_origin)
        .replace("<h1>", "<h3>")
        .replace("</h1>", "</h3>")
        .replace("<h2>", "<h3>")
        .replace("</h2>", "</h3>");
    let body = html! {
        div class="pb-doc pb-receipt" dir=(doc.lang.dir()) lang=(doc.lang.code()) {
            div class="pb-receipt-panel" {
                h1 { (t.sent_title) }
                p { (t.sent_intro) }
            }
            @for n in notices { p class="pb-notice" role="note" { (n) } }
            section class="pb-receipt-answers" aria-labelledby="pb-receipt-answers" {
                h2 id="pb-receipt-answers" { (t.your_answers) }
                div class="pb-receipt-summary" { (PreEscaped(drawn)) }
            }
            pre id="pb-export" hidden { (export) }
            div class="pb-actions" {
                a class="pb-button pb-primary" href=(edit_href) { (t.change_heading) }
                button type="button" class="pb-secondary" data-pb-copy="pb-export"
                    data-pb-status="pb-copy-status" data-pb-copied=(t.copied)
                    data-pb-copy-failed=(t.copy_failed) hidden { (t.copy_answers) }
                span id="pb-copy-status" role="status" {}
            }
            p class="pb-hint" { (t.change_intro) }
        }
    };
    html::page(
        &body.into_string(),
        t.sent_title,
        doc.lang,
        assets::links(asset_base),
    )
}

/// What the rendered form's own post leads to.
#[derive(Debug)]
pub enum FormOutcome {
    /// "Get answers": the export.
    Export(answers::Export),
    /// A list edit: the page again, with the reader's answers and the edit applied (not cached:
    /// the answers are the reader's own).
    Edited(Rendered),
}

/// Answers the rendered form's post (`pb.source`, `pb.surface` and the fields): the export, or
/// after a list edit the page rendered again with `options` on the surface the form was
/// rendered for. The document is parsed once for both the decode and the new page.
pub fn answer_form(
    pairs: &[(String, String)],
    options: &Options,
) -> Result<FormOutcome, AnswersError> {
    let (src, surface) = answers::form_document(pairs)?;
    let clean = without_nul(src);
    let src = &*clean;
    let arena = document::arena_for(src);
    let mut parsed = document::parse(&arena, src);
    let leaves = answers::leaf_texts(&parsed, src);
    let decoded = answers::decode_form(&parsed.blocks, &leaves, pairs)?;
    if decoded.op == answers::FormOp::Edit {
        // Only the page needs the prose policed; the export reads the blocks alone.
        let raw_html = police(&mut parsed, src);
        let options = options.clone().with_surface(surface);
        let hash = content_hash(src, &options);
        let page = render_parsed(
            parsed,
            raw_html,
            src,
            &options,
            hash,
            Some(&decoded.responses),
        );
        return Ok(FormOutcome::Edited(page));
    }
    let doc = answers::Doc::from_leaves(parsed, leaves);
    let mut export = answers::export(&doc, &decoded.responses);
    export.notices.extend(decoded.notices);
    Ok(FormOutcome::Export(export))
}

/// The document as every render path reads it. NUL has no place in HTML or mail: CommonMark
/// replaces it in the prose, and the form's copy of the source and the text part get the same
/// replacement character.
fn without_nul(src: &str) -> Cow<'_, str> {
    if memchr::memchr(0, src.as_bytes()).is_some() {
        Cow::Owned(src.replace('\0', "\u{FFFD}"))
    } else {
        Cow::Borrowed(src)
    }
}

fn render_inner(
    src: &str,
    options: &Options,
    hash: String,
    answers: Option<&answers::Responses>,
) -> Rendered {
    let clean = without_nul(src);
    let src = &*clean;
    // With placeholders, the tree is freed once the prose is HTML, before the components
    // render: its memory serves them instead of fresh pages.
    let prose = {
        let arena = document::arena_for(src);
        let (parsed, raw_html) = parse_and_police(&arena, src);
        if !needs_placeholders(raw_html, options) {
            return render_in_place(parsed, src, options, hash, answers);
        }
        render_prose(parsed, raw_html, src, options, &hash)
    };
    render_components(prose, src, options, hash, answers)
}

/// Renders a document already parsed and policed (see [`parse_and_police`]).
fn render_parsed(
    parsed: document::Parsed,
    raw_html: bool,
    src: &str,
    options: &Options,
    hash: String,
    answers: Option<&answers::Responses>,
) -> Rendered {
    if !needs_placeholders(raw_html, options) {
        return render_in_place(parsed, src, options, hash, answers);
    }
    let prose = render_prose(parsed, raw_html, src, options, &hash);
    render_components(prose, src, options, hash, answers)
}

/// Whether the prose must be HTML of its own before the components join it: ammonia cleans
/// prose with raw HTML (and would strip the components' forms), and the email surface restyles
/// the prose. The components then stand in it as placeholders (see [`Spliced`]). Otherwise
/// comrak writes the prose straight into the page with each component's markup in its place
/// ([`render_in_place`]), and the page is not copied again.
fn needs_placeholders(raw_html: bool, options: &Options) -> bool {
    raw_html || options.surface.is_email()
}

/// Whether `url` can be an email's "Respond" link: an absolute http(s) address with a host and
/// nothing a mail client would break it at (whitespace, controls, quotes, angle brackets). A
/// relative link means nothing in a mail. The CLI and the server refuse anything else, and
/// the engine leaves such a link out.
pub fn is_respond_url(url: &str) -> bool {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    let Some(rest) = rest else { return false };
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    !host.is_empty()
        && !host.starts_with(':')
        && !url
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '"' | '<' | '>' | '\\'))
}

/// Whether `url` can be where a document's form posts (`--answers-action`, the render
/// route's `answers_action`): a relative reference (`/v1/answers`, `answers/`) or an absolute
/// http(s) address, with no whitespace, controls, quotes, angle brackets or backslashes. Any
/// other scheme (`javascript:`, `data:`) is refused: the CLI and the server say so, and the
/// engine renders such a form with no action at all.
pub fn is_answers_action(url: &str) -> bool {
    !url.is_empty()
        && !url.chars().any(|c| {
            c.is_whitespace() || c.is_control() || matches!(c, '"' | '\'' | '<' | '>' | '\\' | '`')
        })
        && (crate::sanitize::is_web_link(url)
            || (crate::sanitize::is_safe_link(url)
                && !url.to_ascii_lowercase().starts_with("mailto:")))
}

/// The email preview's "Respond" link, when it is a usable one.
fn safe_respond_url(options: &Options) -> Option<&str> {
    options.respond_url.as_deref().filter(|u| is_respond_url(u))
}

/// What the page takes from the tree besides its HTML (see [`read_tree`]).
struct Reading {
    lang: html::i18n::Lang,
    diagnostics: Vec<Diagnostic>,
    /// The plain-text body, for [`Format::Text`].
    text_body: Option<String>,
    /// The page's `<title>`, for [`Format::Page`].
    title: Option<String>,
    /// The document's front matter, for [`Format::Json`].
    front_matter: Option<document::FrontMatter>,
    /// The prefix of every element id on the page.
    id_base: String,
    /// Whether the document has prose leaves a reader can comment on (see [`prose`]).
    has_leaves: bool,
}

/// Reads the tree before its HTML is written: the language, the plain-text body and the title.
/// Each component's node becomes a `Raw` node holding `stand_in(i)` (its children dropped),
/// and footnote names get the page's id prefix.
fn read_tree(
    parsed: &mut document::Parsed,
    options: &Options,
    hash: &str,
    stand_in: impl Fn(usize) -> String,
) -> Reading {
    let diagnostics = std::mem::take(&mut parsed.diagnostics);

    // Language and direction come from everything the reader sees.
    let lang = parsed.lang();

    for (i, node) in parsed.nodes.iter().enumerate() {
        node.data_mut().value = NodeValue::Raw(stand_in(i));
        while let Some(child) = node.first_child() {
            child.detach();
        }
    }
    // The components are raw nodes now: any leaf left is prose, and most documents start with
    // one, so the walk stops at once.
    let has_leaves = !options.surface.is_email()
        && document::preorder(parsed.root).any(|n| prose::is_leaf(&n.data().value));

    // The plain-text body reads the tree before the footnote names get the page's prefix.
    let text_body = (options.format == Format::Text).then(|| {
        text::render(
            parsed.root,
            &parsed.blocks,
            &parsed.nodes,
            lang,
            safe_respond_url(options),
            if options.surface.is_email() {
                text::Links::Mail {
                    link_base: options.link_base_url.as_deref(),
                }
            } else {
                text::Links::AsWritten
            },
        )
    });

    // Element ids are unique per document and block (`pb-1a2b3c4d-b1`), so several documents
    // can share a page. Footnote ids (`fn-NAME`, `fnref-NAME`) would collide the same way: their
    // names get the same prefix.
    let id_base = format!("pb-{}-", &hash[..8]);
    for node in &parsed.footnotes {
        match &mut node.data_mut().value {
            NodeValue::FootnoteDefinition(d) => d.name.insert_str(0, &id_base),
            NodeValue::FootnoteReference(r) => r.name.insert_str(0, &id_base),
            _ => {}
        }
    }
    let title = (options.format == Format::Page).then(|| page_title(parsed));
    let front_matter = parsed.front_matter.take();
    Reading {
        lang,
        diagnostics,
        text_body,
        title,
        front_matter,
        id_base,
        has_leaves,
    }
}

/// What rendering keeps of a parsed document once its prose is HTML; the tree is no longer
/// needed.
struct Prose {
    /// The prose, each component fence replaced by a placeholder (see [`Spliced`]).
    html: String,
    mark: char,
    blocks: Vec<document::Block>,
    reading: Reading,
    /// Images the policy refused.
    blocked_images: u32,
}

/// The first half of rendering with placeholders: everything that reads the tree.
fn render_prose(
    mut parsed: document::Parsed,
    raw_html: bool,
    src: &str,
    options: &Options,
    hash: &str,
) -> Prose {
    // Each component fence becomes a placeholder the prose renderer passes through untouched.
    let mark = marker_char(src);
    let nonce = placeholder_nonce(hash);
    let placeholder = |i: usize| {
        // Pushed piece by piece: `format!` with a `char` argument costs several times more.
        let mut placeholder = String::with_capacity(2 * mark.len_utf8() + nonce.len() + 8);
        placeholder.push(mark);
        placeholder.push_str("pb");
        html::push_decimal(&mut placeholder, i as u64);
        placeholder.push('.');
        placeholder.push_str(nonce);
        placeholder.push(mark);
        placeholder
    };
    let reading = read_tree(&mut parsed, options, hash, placeholder);

    let mut prose = String::with_capacity(src.len() + src.len() / 2);
    let comrak_options = document::comrak_options(raw_html);
    let images = sanitize::ImageRules::of(options);
    let blocked = std::cell::Cell::new(0);
    // The headings' ids come from their text as written, before any is sanitized.
    let anchors = prose::Anchors::of_nodes(&parsed.named);
    if raw_html {
        // Each block's raw HTML is sanitized on its own; the engine's markup around it is not.
        let mut key = String::with_capacity(nonce.len() + 8);
        key.push(mark);
        key.push_str(nonce);
        let refused = sanitize::clean_blocks(
            parsed.root,
            &parsed.nodes,
            &|node, out| {
                let written = prose::write_html(
                    node,
                    &comrak_options,
                    prose::Marks::Unnumbered,
                    &images,
                    &anchors,
                    out,
                );
                blocked.set(blocked.get() + written.blocked_images);
            },
            &key,
            &images,
        );
        blocked.set(blocked.get() + refused);
    }
    // No leaf numbers in mail: nothing there takes comments.
    let marks = if options.surface.is_email() {
        prose::Marks::Unnumbered
    } else {
        prose::Marks::Plain
    };
    let written = prose::write_html(
        parsed.root,
        &comrak_options,
        marks,
        &images,
        &anchors,
        &mut prose,
    );
    if options.surface.is_email() {
        prose = email::style_prose(
            &prose,
            reading.lang.dir() == "rtl",
            options.link_base_url.as_deref(),
        );
    }
    Prose {
        html: prose,
        mark,
        blocks: parsed.blocks,
        reading,
        blocked_images: blocked.get() + written.blocked_images,
    }
}

/// The second half of rendering with placeholders: the components, spliced into the prose.
fn render_components(
    prose: Prose,
    src: &str,
    options: &Options,
    hash: String,
    answers: Option<&answers::Responses>,
) -> Rendered {
    let Prose {
        html: prose,
        mark,
        blocks,
        reading,
        blocked_images,
    } = prose;
    let (markup, found) = render_blocks(&blocks, &reading, options, answers, src.len());
    let nonce = placeholder_nonce(&hash).to_string();
    let body = Spliced {
        prose: &prose,
        mark,
        nonce: &nonce,
        blocks: &markup,
    };
    let body_len = prose.len() + markup.iter().map(String::len).sum::<usize>();
    let mut rendered = finish(
        body, body_len, blocks, reading, found, src, options, hash, answers,
    );
    rendered.blocked_images = blocked_images;
    rendered
}

/// Rendering without placeholders (see [`needs_placeholders`]): the components render first,
/// each one's markup takes its fence's place in the tree, and comrak writes the whole body
/// straight into the page. It saves a copy of the body and about 25 k of the typical 20 KB
/// document's 3.87 M instructions (`benches/render-instructions.sh`); a test holds it to the
/// bytes the placeholder path writes.
fn render_in_place(
    mut parsed: document::Parsed,
    src: &str,
    options: &Options,
    hash: String,
    answers: Option<&answers::Responses>,
) -> Rendered {
    let reading = read_tree(&mut parsed, options, &hash, |_| String::new());
    let (markup, found) = render_blocks(&parsed.blocks, &reading, options, answers, src.len());
    let body_len = src.len() + src.len() / 2 + markup.iter().map(String::len).sum::<usize>();
    for (node, markup) in parsed.nodes.iter().zip(markup) {
        node.data_mut().value = NodeValue::Raw(markup);
    }
    let images = sanitize::ImageRules::of(options);
    let anchors = prose::Anchors::of_nodes(&parsed.named);
    let body = InPlace {
        root: parsed.root,
        images: &images,
        anchors: &anchors,
        blocked: std::cell::Cell::new(0),
    };
    let mut rendered = finish(
        &body,
        body_len,
        parsed.blocks,
        reading,
        found,
        src,
        options,
        hash,
        answers,
    );
    rendered.blocked_images = body.blocked.get();
    rendered
}

/// The prose of `src` as a page shows it, by the path a render takes (in place, or with raw
/// HTML sanitized block by block), for the spec-example tests.
#[cfg(test)]
pub(crate) fn prose_html(src: &str) -> String {
    let options = Options::default();
    let hash = content_hash(src, &options);
    let arena = document::arena_for(src);
    let (mut parsed, raw_html) = parse_and_police(&arena, src);
    if needs_placeholders(raw_html, &options) {
        return render_prose(parsed, raw_html, src, &options, &hash).html;
    }
    read_tree(&mut parsed, &options, &hash, |_| String::new());
    let mut out = String::new();
    let images = sanitize::ImageRules::of(&options);
    let anchors = prose::Anchors::of_nodes(&parsed.named);
    let body = InPlace {
        root: parsed.root,
        images: &images,
        anchors: &anchors,
        blocked: std::cell::Cell::new(0),
    };
    maud::Render::render_to(&body, &mut out);
    out
}

/// The body of a page rendered in place: comrak's HTML of the tree, written into the page.
struct InPlace<'a, 'r> {
    root: &'a comrak::nodes::AstNode<'a>,
    images: &'r sanitize::ImageRules,
    anchors: &'r prose::Anchors,
    /// Images the policy refused, once written.
    blocked: std::cell::Cell<u32>,
}

impl maud::Render for InPlace<'_, '_> {
    fn render_to(&self, out: &mut String) {
        let written = prose::write_html(
            self.root,
            &document::comrak_options(false),
            prose::Marks::Plain,
            self.images,
            self.anchors,
            out,
        );
        self.blocked.set(written.blocked_images);
    }
}

/// What rendering the components found besides their markup.
struct Found {
    frame_src: Option<&'static str>,
    /// Diagrams published for the email surface (key, SVG).
    published: Vec<(String, std::sync::Arc<str>)>,
    /// Video thumbnails a MIME message attaches (content id, `data:` URI).
    thumbnails: Vec<(String, String)>,
    /// Components left out for the output budget.
    diagnostics: Vec<Diagnostic>,
}

/// Renders one block at a time, and keeps what the components found besides their markup.
struct BlockRenderer<'r> {
    reading: &'r Reading,
    options: &'r Options,
    answers: Option<&'r answers::Responses>,
    frame_src: Option<&'static str>,
    published: std::cell::RefCell<Vec<(String, Arc<str>)>>,
    thumbnails: std::cell::RefCell<Vec<(String, String)>>,
    /// Each block's id prefix (`pb-1a2b3c4d-b1`) is written over the last one in this buffer,
    /// instead of being allocated per block.
    id_prefix: String,
}

impl<'r> BlockRenderer<'r> {
    fn new(
        reading: &'r Reading,
        options: &'r Options,
        answers: Option<&'r answers::Responses>,
    ) -> BlockRenderer<'r> {
        BlockRenderer {
            reading,
            options,
            answers,
            frame_src: None,
            published: Default::default(),
            thumbnails: Default::default(),
            id_prefix: reading.id_base.clone(),
        }
    }

    /// The block's component, or its source shown as invalid.
    fn render(&mut self, b: &document::Block) -> String {
        let Some(c) = &b.component else {
            return invalid_block(b, self.options.surface).into_string();
        };
        let (options, lang) = (self.options, self.reading.lang);
        self.id_prefix.truncate(self.reading.id_base.len());
        self.id_prefix.push_str(&b.info.id);
        let cx = html::RenderCx {
            block: &b.info.id,
            id_prefix: &self.id_prefix,
            surface: options.surface,
            tag: b.info.kind.tag(),
            t: lang.strings(),
            rtl: lang.dir() == "rtl",
            focus: self.answers.and_then(|a| a.focus_in(&b.info.id)),
            diagram_base: options.diagram_base_url.as_deref(),
            cid_images: options.cid_images && options.surface.is_email(),
            diagrams: &self.published,
            thumbnails: &self.thumbnails,
            answerable: !options.surface.is_email() || safe_respond_url(options).is_some(),
        };
        self.frame_src = self.frame_src.or(c.frame_source(options.surface));
        c.render(&cx, self.answers.and_then(|a| a.get(&b.info.id)))
            .into_string()
    }

    /// What the components found, and `diagnostics` about the blocks left out.
    fn found(self, diagnostics: Vec<Diagnostic>) -> Found {
        Found {
            frame_src: self.frame_src,
            published: self.published.into_inner(),
            thumbnails: self.thumbnails.into_inner(),
            diagnostics,
        }
    }
}

/// Renders every block, its component or its source shown as invalid: the markup in block
/// order.
///
/// The blocks render kind by kind (every single-choice block, then every multi-choice one…):
/// in a component-dense document, document order would run through every kind's code for
/// each section and keep little of it in the instruction cache; kind by kind, one kind's code
/// serves all its blocks. Each kind's blocks still render in document order, so the diagrams
/// and thumbnails a mail publishes keep theirs. Only the output budget depends on the order
/// across kinds (it cuts the components from the first one past it, in document order): when
/// the markup passes the budget, or the request goes away, the blocks render again one after
/// another as the budget asks.
fn render_blocks(
    blocks: &[document::Block],
    reading: &Reading,
    options: &Options,
    answers: Option<&answers::Responses>,
    src_len: usize,
) -> (Vec<String>, Found) {
    let budget = crate::budget::limits().output_bytes_for(src_len);
    let mut renderer = BlockRenderer::new(reading, options, answers);
    let mut markup = vec![String::new(); blocks.len()];
    let mut total = 0;
    let mut within_budget = true;
    'kinds: for &kind in crate::components::Kind::ALL {
        for (b, out) in blocks.iter().zip(&mut markup) {
            if b.info.kind != kind {
                continue;
            }
            if crate::budget::cancelled() {
                within_budget = false;
                break 'kinds;
            }
            *out = renderer.render(b);
            total += out.len();
            if total > budget {
                within_budget = false;
                break 'kinds;
            }
        }
    }
    if within_budget {
        let found = renderer.found(Vec::new());
        return (markup, found);
    }
    render_blocks_in_order(blocks, reading, options, answers, budget)
}

/// [`render_blocks`] one block after another, in document order: the components from the
/// first one past `budget` bytes of markup on (and from a cancelled render's point on) are
/// shown as their source.
fn render_blocks_in_order(
    blocks: &[document::Block],
    reading: &Reading,
    options: &Options,
    answers: Option<&answers::Responses>,
    budget: usize,
) -> (Vec<String>, Found) {
    let mut renderer = BlockRenderer::new(reading, options, answers);
    let mut markup = Vec::with_capacity(blocks.len());
    let mut diagnostics = Vec::new();
    let mut bytes_left = budget;
    let mut over_budget = false;
    for b in blocks {
        // A render whose request is gone stops here: what it would write is never read.
        if over_budget || crate::budget::cancelled() {
            markup.push(invalid_block(b, options.surface).into_string());
            continue;
        }
        let html = renderer.render(b);
        if html.len() > bytes_left {
            over_budget = true;
            diagnostics.push(Diagnostic {
                severity: Severity::Warning,
                code: Code::OverBudget,
                block: Some(b.info.id.clone()),
                line: b.info.line,
                column: 1,
                path: String::new(),
                message: format!(
                    "the components from this one on would write more than the document's budget of {budget} bytes of markup, so they are shown as their source"
                ),
                hint: "split the document in several".into(),
            });
            markup.push(invalid_block(b, options.surface).into_string());
            continue;
        }
        bytes_left -= html.len();
        markup.push(html);
    }
    let found = renderer.found(diagnostics);
    (markup, found)
}

/// The document root around `body` (about `body_len` bytes), the page or other wrapping the
/// format asks for, and the rendering's hash, blocks and diagnostics.
#[allow(clippy::too_many_arguments)]
fn finish(
    body: impl maud::Render,
    body_len: usize,
    blocks: Vec<document::Block>,
    reading: Reading,
    found: Found,
    src: &str,
    options: &Options,
    hash: String,
    answers: Option<&answers::Responses>,
) -> Rendered {
    let Reading {
        lang,
        mut diagnostics,
        text_body,
        title,
        front_matter,
        id_base,
        has_leaves,
    } = reading;
    diagnostics.extend(found.diagnostics);
    let answerable = blocks
        .iter()
        .any(|b| b.component.is_some() && b.info.kind.takes_answers());
    // The first component that asks something (a diagram takes comments, but sent by mail it
    // is there to be looked at): an email without a Respond link warns about it.
    let first_question = blocks
        .iter()
        .find(|b| {
            b.component.is_some()
                && b.info.kind.takes_answers()
                && b.info.kind != crate::components::Kind::Mermaid
        })
        .map(|b| b.info.line);
    // Prose takes comments: its whole-document box, and what a post carried (kept even where
    // the document has no prose to show a box for, so a list edit loses nothing posted).
    let annotations = answers.map_or(&[][..], answers::Responses::annotations);
    let reviewer_id = format!("{id_base}reviewer");
    let comments = (has_leaves || !annotations.is_empty()).then(|| {
        let boxed = annotations.iter().find(|a| a.boxed);
        html::Comments {
            id: has_leaves.then(|| id_base + "comment"),
            value: boxed.map_or("", |a| a.text.as_str()),
            carried: annotations
                .iter()
                .filter(|a| !a.boxed)
                .map(|a| html::CarriedNote {
                    leaf: a.leaf,
                    quote: a.quote.as_deref(),
                    text: &a.text,
                })
                .collect(),
        }
    });
    // The form always holds the controls (the script builds the export from its fields); it gets
    // an action and a "Get answers" button only when something can take the post.
    let form =
        ((answerable || has_leaves) && !options.surface.is_email()).then_some(html::FormChrome {
            action: options
                .answers_action
                .as_deref()
                .filter(|a| is_answers_action(a)),
            source: options.form_source.then_some(src),
            comments,
            // Only where the post goes to a store that keeps who answered: a routed form whose
            // host keeps the document.
            reviewer: (options.surface == Surface::Routed
                && options
                    .answers_action
                    .as_deref()
                    .is_some_and(is_answers_action)
                && !options.form_source)
                .then(|| html::Reviewer {
                    id: reviewer_id,
                    value: answers.and_then(answers::Responses::reviewer).unwrap_or(""),
                }),
        });
    // The "Respond" link belongs to the email preview only.
    let email_respond = safe_respond_url(options).filter(|_| options.surface.is_email());
    let fragment = html::document_root(
        body,
        body_len,
        lang,
        &hash,
        options.surface,
        form,
        email_respond,
        !blocks.is_empty(),
    )
    .into_string();

    let blocks: Vec<BlockInfo> = blocks.into_iter().map(|b| b.info).collect();

    let wrapped = match options.format {
        Format::Fragment => None,
        Format::Page if options.surface.is_email() => Some(email_page(
            &fragment,
            title.as_deref().unwrap_or_default(),
            lang,
        )),
        Format::Page => Some(html::page(
            &fragment,
            title.as_deref().unwrap_or_default(),
            lang,
            assets::links(&options.asset_base),
        )),
        Format::Text => text_body,
        // The JSON body is the rendering itself (see `Rendered`'s serde attributes).
        Format::Json => None,
    };
    if options.surface.is_email() {
        let size = wrapped
            .as_ref()
            .filter(|_| options.format == Format::Page)
            .map_or(fragment.len(), String::len);
        if size > GMAIL_CLIP_BYTES {
            diagnostics.push(clipped_warning(size, email_respond.is_some()));
        }
        if let Some(line) = first_question.filter(|_| safe_respond_url(options).is_none()) {
            diagnostics.push(unanswerable_warning(line));
        }
    }
    let mut rendered = Rendered {
        wrapped,
        html: fragment,
        hash,
        blocks,
        diagnostics,
        format: options.format,
        frame_src: found.frame_src,
        surface: options.surface,
        diagrams: found.published,
        thumbnails: found.thumbnails,
        front_matter,
        blocked_images: 0,
    };
    if options.format == Format::Json {
        // Strings, numbers and lists only: serializing cannot fail.
        rendered.wrapped = serde_json::to_string(&rendered).ok();
    }
    rendered
}

/// Gmail shows the first 102 KB of a message's HTML and hides the rest behind "View entire
/// message".
pub const GMAIL_CLIP_BYTES: usize = 102 * 1024;

/// The warning for an email with questions and no Respond link: it shows them, but nobody can
/// answer it.
fn unanswerable_warning(line: usize) -> Diagnostic {
    Diagnostic {
        severity: Severity::Warning,
        code: Code::EmailUnanswerable,
        block: None,
        line,
        column: 1,
        path: String::new(),
        message: "this email asks questions but has no Respond link, so it cannot be answered; \
                  its questions are shown as a plain list"
            .into(),
        hint: "give the address where the reader answers: --respond-url on the command line, \
               respond_url in the HTTP query, or route the document to get a review link"
            .into(),
    }
}

/// The warning for an email preview Gmail will clip; it speaks of the Respond link only when the
/// email has one (at its top, so clipping leaves the way to answer).
fn clipped_warning(size: usize, respond_link: bool) -> Diagnostic {
    let kept = if respond_link {
        " (the Respond link at the top stays visible)"
    } else {
        ""
    };
    Diagnostic {
        severity: Severity::Warning,
        code: Code::EmailClipped,
        block: None,
        line: 1,
        column: 1,
        path: String::new(),
        message: format!(
            "the email HTML is {size} bytes ({:.1} KB); Gmail clips a message's HTML after 102 KB \
             and hides the rest behind \"View entire message\"{kept}",
            size as f64 / 1024.0
        ),
        hint: "shorten the document or split it into several messages, so the whole of it is \
               shown"
            .into(),
    }
}

/// The warning for a block of raw HTML the sanitizer repairs: a tag shown as text, or HTML
/// closed at the end of its block.
fn raw_warning(note: sanitize::RawNote) -> Diagnostic {
    let (code, message, hint) = if note.filtered {
        (
            Code::RawHtmlFiltered,
            "raw <script>, <style>, <title>, <textarea>, <xmp>, <iframe>, <noembed>, \
             <noframes> or <plaintext> is shown as text, as GitHub shows it",
            "remove the tag, or put it in a code span or code block to show it as code",
        )
    } else {
        (
            Code::RawHtmlUnbalanced,
            "raw HTML here leaves an element or comment open, or closes one it did not open; \
             it is closed at the end of its Markdown block, so it cannot wrap what follows",
            "close every tag within the same paragraph or HTML block; a blank line ends the block",
        )
    };
    Diagnostic {
        severity: Severity::Warning,
        code,
        block: None,
        line: note.line,
        column: note.column,
        path: String::new(),
        message: message.into(),
        hint: hint.into(),
    }
}

/// The warning for raw HTML that will be shown as text because sanitizing it would take
/// quadratic time (nesting past [`sanitize::MAX_SANITIZE_DEPTH`], or a document past
/// [`sanitize::MAX_SANITIZE_BYTES`]); `None` when the sanitizer can take it.
fn too_deep_to_sanitize<'a>(
    root: &'a comrak::nodes::AstNode<'a>,
    src: &str,
    raw_html: bool,
) -> Option<Diagnostic> {
    sanitize::must_escape(root, src.len(), raw_html).then(|| Diagnostic {
        severity: Severity::Warning,
        code: Code::RawHtmlEscaped,
        block: None,
        line: 1,
        column: 1,
        path: String::new(),
        message: "the document nests too deeply (or is too large) for its raw HTML to be \
                  sanitized, so the HTML is shown as text"
            .into(),
        hint: format!(
            "keep nesting under {} levels, or remove the raw HTML",
            sanitize::MAX_SANITIZE_DEPTH
        ),
    })
}

/// The part of a placeholder that comes from the content hash: a document cannot spell its
/// own placeholders without knowing the hash of the text that spells them. (The marker alone
/// is not enough: a long document can hold every private-use character.)
fn placeholder_nonce(hash: &str) -> &str {
    hash.get(..16).unwrap_or(hash)
}

/// A private-use character absent from the document, so placeholders cannot be forged.
/// Only the characters whose UTF-8 starts with 0xEE or 0xEF can be private-use ones: those are
/// found with `memchr` and marked (a `contains` per candidate would scan the document up to
/// 6,400 times, and decoding all of it costs more than the rest of the prose work).
fn marker_char(src: &str) -> char {
    const FIRST: u32 = 0xE000;
    const LAST: u32 = 0xF8FF;
    let mut used: Option<Vec<bool>> = None;
    for at in memchr::memchr2_iter(0xEE, 0xEF, src.as_bytes()) {
        // Lead bytes: `at` starts a character.
        let Some(c) = src[at..].chars().next() else {
            continue;
        };
        if let Some(slot) = (c as u32).checked_sub(FIRST).filter(|&i| i <= LAST - FIRST) {
            used.get_or_insert_with(|| vec![false; (LAST - FIRST + 1) as usize])[slot as usize] =
                true;
        }
    }
    let Some(used) = used else {
        return '\u{E000}';
    };
    used.iter()
        .position(|u| !u)
        .and_then(|i| char::from_u32(FIRST + i as u32))
        .unwrap_or('\u{FFFF}')
}

/// The prose with each placeholder replaced by its block's markup, written straight into the
/// document root's buffer (the body is the bulk of the output: it is copied once).
struct Spliced<'a> {
    prose: &'a str,
    mark: char,
    nonce: &'a str,
    blocks: &'a [String],
}

impl maud::Render for Spliced<'_> {
    fn render_to(&self, out: &mut String) {
        splice_into(self.prose, self.mark, self.nonce, self.blocks, out);
    }
}

/// Appends `prose` to `out` with each `{mark}pb{i}.{nonce}{mark}` placeholder replaced by block
/// `i`'s HTML; anything else that looks like one stays as it is.
fn splice_into(prose: &str, mark: char, nonce: &str, blocks: &[String], out: &mut String) {
    // The mark's UTF-8 searched as bytes: `str::find(char)` looks for its last byte, a
    // continuation byte that curly quotes and dashes in the prose are full of.
    let mut utf8 = [0; 4];
    let finder = memchr::memmem::Finder::new(mark.encode_utf8(&mut utf8).as_bytes());
    let find = |text: &str| finder.find(text.as_bytes());
    let mut rest = prose;
    while let Some(start) = find(rest) {
        let after = &rest[start + mark.len_utf8()..];
        let index = after
            .strip_prefix("pb")
            .and_then(|a| find(a).map(|end| (&a[..end], end)))
            .and_then(|(inner, end)| {
                let (digits, n) = inner.split_once('.')?;
                (n == nonce).then_some((digits.parse::<usize>().ok()?, end))
            });
        match index.and_then(|(i, end)| blocks.get(i).map(|b| (b, end))) {
            Some((block, end)) => {
                out.push_str(&rest[..start]);
                out.push_str(block);
                rest = &after[2 + end + mark.len_utf8()..];
            }
            None => {
                out.push_str(&rest[..start + mark.len_utf8()]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
}

/// An invalid component: its source, escaped, as a visible code block.
fn invalid_block(b: &document::Block, surface: Surface) -> maud::Markup {
    let style = surface.is_email().then_some(html::email::PRE);
    html! {
        pre class="pb-invalid" data-pb-block=(b.info.id) data-pb-kind=(b.info.kind.tag()) style=[style] {
            code { (b.source) }
        }
    }
}

/// A document's title, as a page's `<title>` or a message's `Subject` names it: its front
/// matter's `title`, else its first heading, else its first component's title, else
/// "PassbackAI document".
pub fn document_title(src: &str) -> String {
    let arena = Arena::new();
    let (parsed, _) = parse_and_police(&arena, src);
    page_title(&parsed)
}

/// The page `<title>`: the front matter's title, else the first heading, else the first
/// component title.
fn page_title(parsed: &document::Parsed) -> String {
    if let Some(title) = parsed.front_matter.as_ref().and_then(|f| f.title.as_ref()) {
        return title.chars().take(120).collect();
    }
    for node in parsed.root.descendants() {
        if matches!(node.data().value, NodeValue::Heading(_)) {
            let mut s = String::new();
            for d in node.descendants() {
                if let NodeValue::Text(t) = &d.data().value {
                    s.push_str(t);
                }
            }
            if !s.trim().is_empty() {
                return s.trim().chars().take(120).collect();
            }
        }
    }
    for b in &parsed.blocks {
        if let Some(t) = b.component.as_ref().and_then(|c| c.page_title()) {
            return t.to_string();
        }
    }
    "PassbackAI document".to_string()
}

/// A whole email body: no stylesheet, no script, inline styles. One `<style>` block gives the
/// clients that honour `prefers-color-scheme` dark colours; nothing depends on it (the inline
/// colours read well light, and survive a client's forced inversion).
fn email_page(fragment: &str, title: &str, lang: Lang) -> String {
    html! {
        (maud::DOCTYPE)
        html lang=(lang.code()) dir=(lang.dir()) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="color-scheme" content="light dark";
                meta name="supported-color-schemes" content="light dark";
                title { (title) }
                style { (PreEscaped(EMAIL_DARK)) }
            }
            body class="pb-body" style="margin:0;padding:0;background:#ffffff;" { (PreEscaped(fragment)) }
        }
    }
    .into_string()
}

/// The dark colours, for the clients that honour `prefers-color-scheme` (Apple Mail, Outlook
/// for macOS and iOS, Thunderbird…). Each selector is a class the email surface writes. The
/// button's link is named more specifically than the document's links, so its white text wins
/// over their blue (which on the button's blue would be unreadable).
const EMAIL_DARK: &str = "@media (prefers-color-scheme:dark){\
.pb-body{background:#0d1117!important}\
.pb-doc{color:#e6edf3!important}\
.pb-doc *{color:inherit!important}\
.pb-doc pre,.pb-doc th{background:#161b22!important}\
.pb-card{background:#161b22!important;border-color:#3d444d!important}\
.pb-doc a[href]{color:#4493f8!important}\
.pb-badge{background:#0c2d6b!important;color:#cae8ff!important}\
.pb-respond{background:#1f6feb!important}\
.pb-doc .pb-respond a[href]{color:#ffffff!important}\
}";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Engine;

    #[test]
    fn a_form_posts_only_to_a_web_address_or_a_relative_one() {
        for good in [
            "/v1/answers",
            "answers/",
            "../a?x=1",
            "https://answers.example/v1/answers",
            "http://127.0.0.1:8080/v1/answers",
        ] {
            assert!(is_answers_action(good), "{good}");
        }
        for bad in [
            "",
            "javascript:alert(1)",
            " JavaScript:alert(1)",
            "java\tscript:alert(1)",
            "data:text/html,x",
            "mailto:a@b.example",
            "/a b",
            "/a\"onmouseover=x",
            "/a\\b",
            "/a<b",
        ] {
            assert!(!is_answers_action(bad), "{bad}");
        }
        let choice = "```single-choice\n{ \"version\": \"1\", \"question\": \"Which?\", \"options\": [\"A\", \"B\"] }\n```\n";
        let options = Options::default().with_answers_action(Some("javascript:alert(1)".into()));
        let page = render(choice, &options);
        assert!(!page.body().contains("javascript:"), "{}", page.body());
        assert!(page.body().contains("method=\"dialog\""), "{}", page.body());
    }

    #[test]
    fn a_receipt_draws_the_readers_text_and_nothing_it_could_smuggle() {
        let doc = answers::Doc::parse(
            "# T\n\n```open-question\n{\"version\":\"1\",\"question\":\"Why?\"}\n```\n",
        );
        let export = "**Q: Why?**\nAnswer: <script>alert(1)</script> <img src=x onerror=alert(1)> \
            [l](javascript:alert(1)) ![i](https://e.x/a.png) <b>bold</b>\n";
        let page = receipt_page(&doc, export, &[], "/r/abc?edit=1&k=K", "/assets");
        let summary =
            &page[page.find("pb-receipt-summary").unwrap()..page.find("id=\"pb-export\"").unwrap()];
        for bad in ["<script", "javascript:", "e.x/a.png", "<img src", "<b>"] {
            assert!(!summary.contains(bad), "{bad} in {summary}");
        }
        // What the reader typed reads as they typed it.
        assert!(
            summary.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{summary}"
        );
        assert!(summary.contains("<strong>Q: Why?</strong><br"), "{summary}");
        // The copy's text is the export, escaped.
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(page.contains("href=\"/r/abc?edit=1&amp;k=K\""));
    }

    #[test]
    fn splice_replaces_only_known_placeholders() {
        let m = '\u{E000}';
        let prose = format!(
            "<p>a</p>{m}pb0.n1{m}<p>{m}pbx.n1{m}{m}pb1{m}{m}pb1.n2{m}</p>{m}pb1.n1{m}{m}pb2.n1{m}"
        );
        let mut out = String::new();
        splice_into(&prose, m, "n1", &["<X>".into(), "<Y>".into()], &mut out);
        assert_eq!(
            out,
            format!("<p>a</p><X><p>{m}pbx.n1{m}{m}pb1{m}{m}pb1.n2{m}</p><Y>{m}pb2.n1{m}")
        );
    }

    #[test]
    fn a_document_cannot_forge_a_placeholder_even_with_every_private_use_char() {
        // Every BMP private-use character is taken, so the marker falls back to U+FFFF; the
        // prose then spells a placeholder with it, which must stay text.
        let pua: String = ('\u{E000}'..='\u{F8FF}').collect();
        let src = format!(
            "{pua}\n\nforged: \u{FFFF}pb0\u{FFFF} and \u{FFFF}pb0.0123456789abcdef\u{FFFF}\n\n\
             ```single-choice\n{{\"version\":\"1\",\"question\":\"Q?\",\"options\":[\"A\",\"B\"]}}\n```\n"
        );
        assert_eq!(marker_char(&src), '\u{FFFF}');
        let html = render(&src, &Options::default()).html;
        assert_eq!(html.matches("data-pb-block=\"b1\"").count(), 1, "{html}");
        assert!(html.contains("forged: \u{FFFF}pb0\u{FFFF}"));
    }

    /// Rendering in place and rendering with placeholders give the same bytes, for every
    /// conformance, golden and XSS fixture, on the surfaces and formats the in-place path
    /// takes (email and raw HTML always use placeholders).
    #[test]
    fn in_place_and_placeholder_renders_agree() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures");
        let mut compared = 0;
        for dir in ["conformance", "golden", "xss"] {
            let mut paths: Vec<_> = std::fs::read_dir(format!("{root}/{dir}"))
                .expect("the fixtures directory")
                .map(|e| e.expect("an entry").path())
                .filter(|p| p.extension().is_some_and(|e| e == "md"))
                .collect();
            paths.sort();
            for path in paths {
                let src = std::fs::read_to_string(&path).expect("a fixture");
                for options in [
                    Options::default(),
                    Options {
                        surface: Surface::Routed,
                        format: Format::Page,
                        ..Options::default()
                    },
                    Options {
                        format: Format::Text,
                        ..Options::default()
                    },
                ] {
                    let hash = content_hash(&src, &options);
                    let arena = Arena::new();
                    let (parsed, raw_html) = parse_and_police(&arena, &src);
                    if raw_html {
                        continue;
                    }
                    let placeholders = {
                        let prose = render_prose(parsed, raw_html, &src, &options, &hash);
                        render_components(prose, &src, &options, hash.clone(), None)
                    };
                    let in_place = render(&src, &options);
                    assert_eq!(in_place.body(), placeholders.body(), "{}", path.display());
                    assert_eq!(in_place.html, placeholders.html, "{}", path.display());
                    compared += 1;
                }
            }
        }
        assert!(compared > 300, "only {compared} renders compared");
    }

    #[test]
    fn marker_is_the_first_private_use_char_the_document_lacks() {
        assert_eq!(marker_char("plain"), '\u{E000}');
        assert_eq!(marker_char("a\u{E000}b\u{E001}"), '\u{E002}');
        // Characters whose UTF-8 starts like a private-use one's but are not (U+D7FF, U+F900,
        // U+FE0F after an emoji, U+FFFD) leave the first one free.
        assert_eq!(
            marker_char("“quoted” — \u{D7FF}\u{F900}❤\u{FE0F}\u{FFFD}"),
            '\u{E000}'
        );
        assert_eq!(marker_char("❤\u{FE0F} \u{E000}\u{F8FF}"), '\u{E001}');
        let all: String = ('\u{E000}'..='\u{F8FF}').collect();
        assert_eq!(marker_char(&all), '\u{FFFF}');
    }

    #[test]
    fn footnote_ids_are_unique_per_document_and_still_link() {
        let a = render("Text[^1].\n\n[^1]: One.\n", &Options::default()).html;
        let b = render("Other[^1].\n\n[^1]: Two.\n", &Options::default()).html;
        let id = |h: &str| {
            h.split("<li id=\"")
                .nth(1)
                .and_then(|r| r.split('"').next())
                .map(str::to_string)
        };
        let (ia, ib) = (id(&a).expect("a footnote"), id(&b).expect("a footnote"));
        assert_ne!(ia, ib);
        assert!(a.contains(&format!("href=\"#{ia}\"")), "{a}");
        // Raw HTML sends the prose through ammonia, which must keep the ids.
        let c = render("<b>x</b>[^n]\n\n[^n]: Three.\n", &Options::default()).html;
        let ic = id(&c).expect("a footnote");
        assert!(c.contains(&format!("href=\"#{ic}\"")), "{c}");
    }

    /// The prefix is for HTML ids only: plain text keeps the author's footnote names.
    #[test]
    fn plain_text_keeps_the_footnote_names() {
        let text = render(
            "Claim[^1].\n\n[^1]: Source.\n",
            &Options::default().with_format(Format::Text),
        );
        let body = text.body();
        assert!(body.contains("[^1]"), "{body}");
        assert!(!body.contains("pb-"), "{body}");
    }

    #[test]
    fn cache_hits_return_the_same_rendering() {
        let engine = Engine::default();
        let a = engine.render("# Hi", &Options::default());
        let b = engine.render("# Hi", &Options::default());
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(engine.cache_stats().hits, 1);
        let c = engine.render("# Hi", &Options::default().with_surface(Surface::Email));
        assert_ne!(a.hash, c.hash);
    }
}
