//! The stylesheet and script shipped with the engine, under content-hashed names so they can be
//! cached forever (`Cache-Control: immutable`).
//!
//! The script is one file per component (`engine/assets/js`), joined here in the order
//! [`SCRIPT_FILES`] gives; the chrome strings it puts on the page are written into it from
//! `html::i18n`, for every language, so that file is their only source.

use crate::html::AssetLinks;
use crate::html::i18n::Lang;
use std::fmt::Write as _;
use std::sync::LazyLock;

/// The stylesheet's text: the base styles, then those of the enhanced widgets.
pub const CSS: &str = concat!(
    include_str!("../assets/passback.css"),
    "\n",
    include_str!("../assets/enhance.css")
);

/// `[(name, text), …]` for files of `engine/assets/js`, read in at compile time.
macro_rules! script_files {
    ($($name:literal),* $(,)?) => {
        [$(($name, include_str!(concat!("../assets/js/", $name)))),*]
    };
}

/// The script's files (`engine/assets/js`), in the order they are joined: `head.js` opens the
/// one function they share and `tail.js` closes it. The core comes before the components, which
/// register themselves with it as they load; the page's start comes last. `tests/registry.rs`
/// holds every file of the folder to a place here.
pub const SCRIPT_FILES: [(&str, &str); 17] = script_files![
    "head.js",
    "core.js",
    "list.js",
    "question.js",
    "single_choice.js",
    "multi_choice.js",
    "open_question.js",
    "questionnaire.js",
    "prioritize.js",
    "split.js",
    "allocate.js",
    "youtube.js",
    "mermaid.js",
    "prose.js",
    "chapter.js",
    "page.js",
    "tail.js",
];

/// The script: [`SCRIPT_FILES`] joined, with `STRINGS` (the chrome strings) after the head.
fn joined_script() -> String {
    let mut out = String::with_capacity(SCRIPT_FILES.iter().map(|(_, text)| text.len()).sum());
    for (k, (_, text)) in SCRIPT_FILES.iter().enumerate() {
        out.push_str(text);
        if k == 0 {
            write_strings(&mut out);
        }
    }
    out
}

/// `var STRINGS = { "en": {"added_by_you":"added by you",…}, … };`: the strings the script reads
/// (`Strings::for_script`), by language code, a line for each.
fn write_strings(out: &mut String) {
    out.push_str(
        "/** The chrome strings by language, from engine/src/html/i18n.rs (written by the engine). */\nvar STRINGS = {",
    );
    for (k, lang) in Lang::ALL.into_iter().enumerate() {
        out.push_str(if k > 0 { ",\n  " } else { "\n  " });
        write_js_string(out, lang.code());
        out.push_str(": {");
        for (j, (name, text)) in lang.strings().for_script().into_iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            write_js_string(out, name);
            out.push(':');
            write_js_string(out, text);
        }
        out.push('}');
    }
    out.push_str("\n};\n\n");
}

/// A JavaScript string literal for `text`: quotes, backslashes, control characters and the two
/// line separators escaped, every other character as it is.
fn write_js_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c < ' ' || c == '\u{2028}' || c == '\u{2029}' => {
                // Writing into a String cannot fail.
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

static JS: LazyLock<String> = LazyLock::new(joined_script);

/// The enhancement script's text, as served: built once, on first use.
pub fn js() -> &'static str {
    &JS
}

fn hashed(stem: &str, ext: &str, text: &str) -> String {
    let hash = blake3::hash(text.as_bytes()).to_hex();
    format!("{stem}-{}.{ext}", &hash[..12])
}

static CSS_HASHED: LazyLock<String> = LazyLock::new(|| hashed("passback", "css", CSS));
static JS_HASHED: LazyLock<String> = LazyLock::new(|| hashed("passback", "js", js()));

/// `passback-<hash>.css`: changes whenever the stylesheet changes.
pub fn css_name() -> &'static str {
    &CSS_HASHED
}

/// `passback-<hash>.js`.
pub fn js_name() -> &'static str {
    &JS_HASHED
}

/// What a page under `base` links: the stylesheet and the script by their hashed names.
pub(crate) fn links(base: &str) -> AssetLinks<'_> {
    AssetLinks {
        base,
        css: css_name(),
        js: js_name(),
    }
}

/// An asset by its hashed name: (content type, text).
pub fn by_name(name: &str) -> Option<(&'static str, &'static str)> {
    if name == css_name() {
        Some(("text/css; charset=utf-8", CSS))
    } else if name == js_name() {
        Some(("text/javascript; charset=utf-8", js()))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The served script is every file, in order, with the strings between the head and the rest.
    /// In an mdBook the diagrams follow the book's theme: each of its two theme blocks sets
    /// every diagram colour the stylesheet reads, so none is left to the system's preference
    /// (a note dark on a light page, say).
    #[test]
    fn the_book_themes_set_every_diagram_colour() {
        let used: std::collections::BTreeSet<&str> = CSS
            .match_indices("var(--pb-diagram-")
            .map(|(at, _)| {
                let name = &CSS[at + 4..];
                &name[..name.find([',', ')']).unwrap_or(name.len())]
            })
            .collect();
        assert!(used.len() > 10, "{used:?}");
        for theme in [
            "html:is(.light, .rust) :is(.pb-doc, .pb-figure) {",
            "html:is(.coal, .navy, .ayu) :is(.pb-doc, .pb-figure) {",
        ] {
            let at = CSS.find(theme).expect("the theme's block");
            let block = &CSS[at..at + CSS[at..].find('}').expect("closed")];
            for name in &used {
                assert!(block.contains(&format!("{name}:")), "{theme} sets {name}");
            }
        }
    }

    #[test]
    fn the_script_is_its_files_in_order() {
        let script = js();
        let mut at = 0;
        for (name, text) in SCRIPT_FILES {
            let found = script[at..]
                .find(text)
                .unwrap_or_else(|| panic!("{name} is not in the script in its place"));
            at += found + text.len();
        }
        assert!(script.starts_with(SCRIPT_FILES[0].1));
        assert!(script.ends_with(SCRIPT_FILES[SCRIPT_FILES.len() - 1].1));
        assert!(script[SCRIPT_FILES[0].1.len()..].starts_with("/** The chrome strings"));
    }

    /// Every chrome string the script reads (`t.NAME`, `ui.t.NAME`, `STRINGS.en.NAME`) is one it
    /// carries, and it carries none it does not read.
    #[test]
    fn the_script_reads_the_strings_it_carries() {
        let names: Vec<&str> = Lang::En.strings().for_script().map(|(n, _)| n).to_vec();
        let name_at = |text: &str| -> String {
            text.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        };
        let mut read = Vec::new();
        for (file, text) in SCRIPT_FILES {
            for (i, _) in text.match_indices("t.") {
                let before = text[..i].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                    continue;
                }
                let name = name_at(&text[i + 2..]);
                assert!(names.contains(&name.as_str()), "{file} reads t.{name}");
                read.push(name);
            }
            for (i, m) in text.match_indices("STRINGS.en.") {
                let name = name_at(&text[i + m.len()..]);
                assert!(
                    names.contains(&name.as_str()),
                    "{file} reads STRINGS.en.{name}"
                );
                read.push(name);
            }
        }
        for name in names {
            assert!(
                read.iter().any(|r| r == name),
                "the script never reads {name}"
            );
        }
    }

    #[test]
    fn strings_are_written_as_javascript_literals() {
        let mut out = String::new();
        write_js_string(&mut out, "a\"b\\c\nd\u{1}e\u{2028}“é”");
        assert_eq!(out, "\"a\\\"b\\\\c\\nd\\u0001e\\u2028“é”\"");
    }
}
