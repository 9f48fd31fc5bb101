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

/// Which images from the web the prose may show (an `<img>` from Markdown or raw HTML, its
/// `srcset`, a `<picture>`'s sources). A relative image is on the page's own host and passes
/// every policy but on the email surface, where only absolute `https` images can load. An image
/// refused is shown as a link to it (http and https) or as its words.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ImagePolicy {
    /// Only images on the page's own host (relative references).
    SameOrigin,
    /// `https` images from any host, as GitHub shows them (the default).
    #[default]
    Https,
    /// `https` images from these hosts only (lowercase, `host` or `host:port`).
    Hosts(Vec<String>),
    /// Every http(s) image through a camo-style proxy (see [`ImageProxy`]).
    Proxy(ImageProxy),
}

/// A camo-compatible image proxy: an image at `url` is loaded from
/// `{base}/{hex HMAC-SHA256(key, url)}/{hex url}`, so a reader's browser only ever contacts the
/// proxy, which checks the signature and fetches the image itself.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ImageProxy {
    base: String,
    key: Vec<u8>,
}

impl ImageProxy {
    /// A proxy at `base` (an `https://` URL, without a trailing `/`) sharing `key` with it.
    /// `None` unless `base` is an https URL with a host and `key` is not empty.
    pub fn new(base: &str, key: impl Into<Vec<u8>>) -> Option<ImageProxy> {
        let base = base.trim_end_matches('/');
        let key = key.into();
        let host = base.strip_prefix("https://")?;
        let plain = !host.is_empty()
            && host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._:/~%".contains(&b));
        (plain && !key.is_empty()).then(|| ImageProxy {
            base: base.to_string(),
            key,
        })
    }

    /// The proxy's base URL.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The proxy's origin (`https://host[:port]`), for a CSP's `img-src`.
    pub fn origin(&self) -> &str {
        let after = "https://".len();
        let end = self.base[after..]
            .find('/')
            .map_or(self.base.len(), |i| after + i);
        &self.base[..end]
    }

    /// The proxied address of `url`.
    pub fn url_for(&self, url: &str) -> String {
        use hmac::{KeyInit, Mac};
        let mut mac = <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(&self.key)
            .expect("HMAC takes a key of any length");
        mac.update(url.as_bytes());
        let digest = mac.finalize().into_bytes();
        let mut out = String::with_capacity(self.base.len() + 66 + 2 * url.len());
        out.push_str(&self.base);
        out.push('/');
        push_hex(&mut out, &digest);
        out.push('/');
        push_hex(&mut out, url.as_bytes());
        out
    }
}

fn push_hex(out: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 15)]));
    }
}

// The key is a secret: never printed.
impl std::fmt::Debug for ImageProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImageProxy")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for ImagePolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImagePolicy::SameOrigin => f.write_str("SameOrigin"),
            ImagePolicy::Https => f.write_str("Https"),
            ImagePolicy::Hosts(h) => f.debug_tuple("Hosts").field(h).finish(),
            ImagePolicy::Proxy(p) => f.debug_tuple("Proxy").field(p).finish(),
        }
    }
}

impl ImagePolicy {
    /// A policy from its written form: `same-origin`, `https`, `hosts:a.example,b.example`, or
    /// `proxy:https://camo.example` (with the proxy's `key`). An error names what is wrong.
    pub fn parse(s: &str, key: Option<&[u8]>) -> Result<ImagePolicy, String> {
        match s {
            "same-origin" => return Ok(ImagePolicy::SameOrigin),
            "https" => return Ok(ImagePolicy::Https),
            _ => {}
        }
        if let Some(list) = s.strip_prefix("hosts:") {
            let hosts: Vec<String> = list
                .split(',')
                .map(|h| h.trim().to_ascii_lowercase())
                .filter(|h| !h.is_empty())
                .collect();
            let plain = |h: &String| {
                h.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-.:".contains(&b))
            };
            if hosts.is_empty() || !hosts.iter().all(plain) {
                return Err(format!(
                    "`{s}` does not list host names: write hosts:img.example,cdn.example"
                ));
            }
            return Ok(ImagePolicy::Hosts(hosts));
        }
        if let Some(base) = s.strip_prefix("proxy:") {
            let Some(key) = key.filter(|k| !k.is_empty()) else {
                return Err("an image proxy needs its HMAC key: give it in a file".into());
            };
            return ImageProxy::new(base, key)
                .map(ImagePolicy::Proxy)
                .ok_or_else(|| {
                    format!("`{base}` is not an https URL: write proxy:https://camo.example")
                });
        }
        Err(format!(
            "`{s}` is not an image policy: same-origin, https, hosts:a.example,b.example or proxy:https://camo.example"
        ))
    }

    /// The policy's name: `same-origin`, `https`, `hosts` or `proxy`.
    pub fn name(&self) -> &'static str {
        match self {
            ImagePolicy::SameOrigin => "same-origin",
            ImagePolicy::Https => "https",
            ImagePolicy::Hosts(_) => "hosts",
            ImagePolicy::Proxy(_) => "proxy",
        }
    }

    /// The sources a page's CSP `img-src` must allow for the prose's images (besides `'self'`):
    /// `https:`, the listed hosts, the proxy's origin, or nothing.
    pub fn csp_sources(&self) -> String {
        match self {
            ImagePolicy::SameOrigin => String::new(),
            ImagePolicy::Https => "https:".into(),
            ImagePolicy::Hosts(hosts) => hosts
                .iter()
                .map(|h| format!("https://{h}"))
                .collect::<Vec<_>>()
                .join(" "),
            ImagePolicy::Proxy(p) => p.origin().to_string(),
        }
    }

    fn hash_into(&self, h: &mut blake3::Hasher) {
        h.update(b"images").update(self.name().as_bytes());
        match self {
            ImagePolicy::Hosts(hosts) => {
                for host in hosts {
                    h.update(&(host.len() as u64).to_le_bytes())
                        .update(host.as_bytes());
                }
            }
            ImagePolicy::Proxy(p) => {
                // The key is fed through its own hash: the content hash is public.
                h.update(&(p.base.len() as u64).to_le_bytes())
                    .update(p.base.as_bytes())
                    .update(blake3::hash(&p.key).as_bytes());
            }
            ImagePolicy::SameOrigin | ImagePolicy::Https => {}
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
    /// Which images from the web the prose shows ([`ImagePolicy`]). On the email surface only
    /// absolute `https` images pass, and none with [`Options::cid_images`] (a message holds all
    /// of its images).
    pub images: ImagePolicy,
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
            images: ImagePolicy::Https,
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

    /// These options with another image policy.
    pub fn with_images(mut self, images: ImagePolicy) -> Self {
        self.images = images;
        self
    }

    /// Whether an image must be an absolute URL that loads from the web with no page around it
    /// (the email surface), and whether any may (none in a message that holds its images).
    pub(crate) fn image_rules(&self) -> (bool, bool) {
        let email = self.surface.is_email();
        (email, !(email && self.cid_images))
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
        // The default policy adds nothing, so every other rendering's hash stays as it was.
        if self.images != ImagePolicy::Https {
            self.images.hash_into(h);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(options: &Options) -> String {
        crate::render::content_hash("# Doc\n", options)
    }

    #[test]
    fn the_image_policy_is_part_of_the_hash_but_not_the_key() {
        let default = Options::default();
        assert_eq!(
            hash(&default),
            hash(&default.clone().with_images(ImagePolicy::Https))
        );
        let proxy = |key: &[u8]| {
            ImagePolicy::Proxy(ImageProxy::new("https://camo.example", key.to_vec()).unwrap())
        };
        let hashes: Vec<String> = [
            ImagePolicy::Https,
            ImagePolicy::SameOrigin,
            ImagePolicy::Hosts(vec!["a.example".into()]),
            ImagePolicy::Hosts(vec!["b.example".into()]),
            proxy(b"one"),
            proxy(b"two"),
        ]
        .into_iter()
        .map(|p| hash(&default.clone().with_images(p)))
        .collect();
        let mut distinct = hashes.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), hashes.len(), "{hashes:?}");
        // The key is a secret: never printed.
        let shown = format!("{:?}", default.with_images(proxy(b"hunter2")));
        assert!(
            shown.contains("camo.example") && !shown.contains("hunter2"),
            "{shown}"
        );
    }

    #[test]
    fn policies_are_parsed_or_refused_with_the_fix() {
        assert_eq!(ImagePolicy::parse("https", None), Ok(ImagePolicy::Https));
        assert_eq!(
            ImagePolicy::parse("same-origin", None),
            Ok(ImagePolicy::SameOrigin)
        );
        assert_eq!(
            ImagePolicy::parse("hosts: IMG.example , cdn.example:8443", None),
            Ok(ImagePolicy::Hosts(vec![
                "img.example".into(),
                "cdn.example:8443".into()
            ]))
        );
        let proxy = ImagePolicy::parse("proxy:https://camo.example/", Some(b"k")).unwrap();
        assert_eq!(proxy.csp_sources(), "https://camo.example");
        let deep = ImagePolicy::parse("proxy:https://img.example:8443/camo", Some(b"k")).unwrap();
        assert_eq!(deep.csp_sources(), "https://img.example:8443");
        for (bad, says) in [
            ("http", "not an image policy"),
            ("hosts:", "does not list"),
            ("hosts:a.example;script-src", "does not list"),
            ("hosts:a b", "does not list"),
            ("proxy:https://camo.example", "needs its HMAC key"),
        ] {
            let e = ImagePolicy::parse(bad, None).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
        for bad in [
            "proxy:http://camo.example",
            "proxy:https://",
            "proxy:https://camo.example; img-src *",
            "proxy:https://camo.example\"",
        ] {
            assert!(ImagePolicy::parse(bad, Some(b"k")).is_err(), "{bad}");
        }
        assert_eq!(ImagePolicy::Https.csp_sources(), "https:");
        assert_eq!(ImagePolicy::SameOrigin.csp_sources(), "");
        assert_eq!(
            ImagePolicy::Hosts(vec!["a.example".into(), "b.example:8443".into()]).csp_sources(),
            "https://a.example https://b.example:8443"
        );
    }
}
