//! How and where a document is rendered: the surface, the format and the other options.

/// Where the HTML will be shown (contract §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Surface {
    /// Forms and enhancement; YouTube is an inert facade.
    #[default]
    Page,
    /// As `Page`, but YouTube is click-to-load from youtube-nocookie.com.
    Routed,
    /// A static preview for mail: no scripts, no forms, inline styles.
    Email,
}

impl Surface {
    /// The surface's name: `page`, `routed` or `email`.
    pub fn name(self) -> &'static str {
        match self {
            Surface::Page => "page",
            Surface::Routed => "routed",
            Surface::Email => "email",
        }
    }

    /// The surface a name names.
    pub fn parse(s: &str) -> Option<Surface> {
        match s {
            "page" => Some(Surface::Page),
            "routed" => Some(Surface::Routed),
            "email" => Some(Surface::Email),
            _ => None,
        }
    }

    /// Whether this is the email surface (static, inline styles).
    pub fn is_email(self) -> bool {
        self == Surface::Email
    }
}

/// What the render returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Format {
    /// The document's HTML fragment (`<div class="pb-doc">…`).
    #[default]
    Fragment,
    /// A complete HTML page linking the stylesheet.
    Page,
    /// `{ html, hash, blocks, diagnostics }`.
    Json,
    /// A plain-text version of the preview (for `multipart/alternative` mail).
    Text,
}

impl Format {
    /// The format's name: `fragment`, `page`, `json` or `text`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Fragment => "fragment",
            Format::Page => "page",
            Format::Json => "json",
            Format::Text => "text",
        }
    }

    /// The format a name names.
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "fragment" => Some(Format::Fragment),
            "page" => Some(Format::Page),
            "json" => Some(Format::Json),
            "text" => Some(Format::Text),
            _ => None,
        }
    }

    /// The HTTP `Content-Type` of a body in this format.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Fragment | Format::Page => "text/html; charset=utf-8",
            Format::Json => "application/json",
            Format::Text => "text/plain; charset=utf-8",
        }
    }
}

/// Render options. Part of the cache key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Options {
    /// Where the HTML will be shown.
    pub surface: Surface,
    /// What the render returns.
    pub format: Format,
    /// Where the document's form posts (no-JavaScript answers). `None` (static sites) renders
    /// the form without an action or a "Get answers" button: the script's "Copy answers" exports.
    pub answers_action: Option<String>,
    /// URL prefix of the stylesheet and script, e.g. `/assets`.
    pub asset_base: String,
    /// The email surface's "Respond" link.
    pub respond_url: Option<String>,
    /// Mixed into the content hash (and so into every element id): lets a host render the same
    /// text twice on one page with distinct ids, e.g. mdBook's print.html.
    pub id_salt: Option<String>,
    /// Email surface: a public base URL for diagram images. When set, a drawn diagram is an
    /// `<img src="{base}/v1/diagrams/{key}.png">` (the SVG is in [`Rendered::diagrams`](crate::Rendered::diagrams) for the
    /// server to publish) instead of inline SVG, which many mail clients drop.
    pub diagram_base_url: Option<String>,
    /// Email surface: the base URL relative links in the prose are resolved against. Without
    /// it, a link that cannot work in mail (relative, in-page, a footnote) is kept as its words,
    /// with no `href`.
    pub link_base_url: Option<String>,
    /// Email surface: images are parts of a MIME message, referred to by `cid:` (drawn
    /// diagrams in [`Rendered::diagrams`](crate::Rendered::diagrams), video thumbnails in
    /// [`Rendered::thumbnails`](crate::Rendered::thumbnails)), rather than URLs.
    pub cid_images: bool,
    /// Whether the form carries the whole document in its hidden `pb.source` field (the
    /// default), so a stateless server can export a post. A host that keeps the document
    /// itself (a routed document, looked up by its id) turns it off: the page then holds no
    /// copy of the source, and the host puts the document back before decoding the post.
    pub form_source: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            surface: Surface::Page,
            format: Format::Fragment,
            answers_action: Some("/v1/answers".to_string()),
            asset_base: "/assets".to_string(),
            respond_url: None,
            id_salt: None,
            diagram_base_url: None,
            link_base_url: None,
            cid_images: false,
            form_source: true,
        }
    }
}

impl Options {
    /// These options on another surface.
    pub fn with_surface(mut self, surface: Surface) -> Self {
        self.surface = surface;
        self
    }

    /// These options with another format.
    pub fn with_format(mut self, format: Format) -> Self {
        self.format = format;
        self
    }

    /// These options with another form action (`None`: no server takes the post).
    pub fn with_answers_action(mut self, action: Option<String>) -> Self {
        self.answers_action = action;
        self
    }

    /// These options with an email "Respond" link.
    pub fn with_respond_url(mut self, url: Option<String>) -> Self {
        self.respond_url = url;
        self
    }

    /// These options with a public base URL for email diagram images.
    pub fn with_diagram_base_url(mut self, base: Option<String>) -> Self {
        self.diagram_base_url = base;
        self
    }

    /// These options with a base URL for the email surface's relative links.
    pub fn with_link_base_url(mut self, base: Option<String>) -> Self {
        self.link_base_url = base;
        self
    }

    /// These options with the email surface's images as `cid:` parts (see
    /// [`Options::cid_images`]).
    pub fn with_cid_images(mut self, cid: bool) -> Self {
        self.cid_images = cid;
        self
    }

    /// These options with or without the document's copy in the form (see
    /// [`Options::form_source`]).
    pub fn with_form_source(mut self, carried: bool) -> Self {
        self.form_source = carried;
        self
    }

    /// These options with a salt mixed into the content hash and ids.
    pub fn with_id_salt(mut self, salt: Option<String>) -> Self {
        self.id_salt = salt;
        self
    }

    /// These options with another URL prefix for the stylesheet and script.
    pub fn with_asset_base(mut self, base: impl Into<String>) -> Self {
        self.asset_base = base.into();
        self
    }

    /// Feeds every option into the content hash, without building a key string.
    pub(crate) fn hash_into(&self, h: &mut blake3::Hasher) {
        let mut field = |value: Option<&str>| {
            match value {
                // A tag byte and the length keep `None`, `Some("")` and neighbouring fields apart.
                None => h.update(&[0]),
                Some(v) => h
                    .update(&[1])
                    .update(&(v.len() as u64).to_le_bytes())
                    .update(v.as_bytes()),
            };
        };
        field(Some(self.surface.name()));
        field(Some(self.format.name()));
        field(self.answers_action.as_deref());
        field(Some(&self.asset_base));
        field(self.respond_url.as_deref());
        field(self.id_salt.as_deref());
        field(self.diagram_base_url.as_deref());
        // Fed only when off, so the hashes (and element ids) of every other rendering stay as
        // they were.
        if !self.form_source {
            h.update(b"\x02no-form-source");
        }
        if let Some(base) = &self.link_base_url {
            h.update(b"\x03link-base").update(base.as_bytes());
        }
        if self.cid_images {
            h.update(b"\x04cid");
        }
    }
}
