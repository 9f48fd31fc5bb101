//! The stylesheet and script shipped with the engine, under content-hashed names so they can be
//! cached forever (`Cache-Control: immutable`).

use std::sync::LazyLock;

/// The stylesheet's text: the base styles, then those of the enhanced widgets.
pub const CSS: &str = concat!(
    include_str!("../assets/passback.css"),
    "\n",
    include_str!("../assets/enhance.css")
);
/// The enhancement script's text.
pub const JS: &str = include_str!("../assets/passback.js");

fn hashed(stem: &str, ext: &str, text: &str) -> String {
    let hash = blake3::hash(text.as_bytes()).to_hex();
    format!("{stem}-{}.{ext}", &hash[..12])
}

static CSS_HASHED: LazyLock<String> = LazyLock::new(|| hashed("passback", "css", CSS));
static JS_HASHED: LazyLock<String> = LazyLock::new(|| hashed("passback", "js", JS));

/// `passback-<hash>.css`: changes whenever the stylesheet changes.
pub fn css_name() -> &'static str {
    &CSS_HASHED
}

/// `passback-<hash>.js`.
pub fn js_name() -> &'static str {
    &JS_HASHED
}

/// An asset by its hashed name: (content type, text).
pub fn by_name(name: &str) -> Option<(&'static str, &'static str)> {
    if name == css_name() {
        Some(("text/css; charset=utf-8", CSS))
    } else if name == js_name() {
        Some(("text/javascript; charset=utf-8", JS))
    } else {
        None
    }
}
