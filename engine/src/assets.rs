//! The stylesheet shipped with the engine, under a content-hashed name so it can be cached
//! forever (`Cache-Control: immutable`).

use std::sync::LazyLock;

/// The stylesheet's text.
pub const CSS: &str = include_str!("../assets/passback.css");

static CSS_HASHED: LazyLock<String> = LazyLock::new(|| {
    let hash = blake3::hash(CSS.as_bytes()).to_hex();
    format!("passback-{}.css", &hash[..12])
});

/// `passback-<hash>.css`: changes whenever the stylesheet changes.
pub fn css_name() -> &'static str {
    &CSS_HASHED
}
