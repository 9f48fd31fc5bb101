//! The playground's own script, stylesheet and examples, served beside the engine's assets
//! under content-hashed names, so they can be cached forever and still change with the binary.

use std::sync::LazyLock;

pub const CSS: &str = include_str!("../../playground/playground.css");
pub const JS: &str = include_str!("../../playground/playground.js");

struct Named {
    name: String,
    content_type: &'static str,
    text: &'static str,
}

fn named(stem: &str, ext: &str, content_type: &'static str, text: &'static str) -> Named {
    let hash = blake3::hash(text.as_bytes()).to_hex();
    Named {
        name: format!("{stem}-{}.{ext}", &hash[..12]),
        content_type,
        text,
    }
}

static ASSETS: LazyLock<[Named; 3]> = LazyLock::new(|| {
    [
        named("playground", "css", "text/css; charset=utf-8", CSS),
        named("playground", "js", "text/javascript; charset=utf-8", JS),
        named(
            "playground-examples",
            "json",
            "application/json",
            super::examples::JSON.as_str(),
        ),
    ]
});

pub fn css_name() -> &'static str {
    &ASSETS[0].name
}

pub fn js_name() -> &'static str {
    &ASSETS[1].name
}

pub fn examples_name() -> &'static str {
    &ASSETS[2].name
}

/// An asset by its hashed name: (content type, text).
pub fn by_name(name: &str) -> Option<(&'static str, &'static str)> {
    ASSETS
        .iter()
        .find(|a| a.name == name)
        .map(|a| (a.content_type, a.text))
}
