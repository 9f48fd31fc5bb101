//! `mdbook-passback install`: writes the stylesheet and script beside `book.toml` (so books
//! build offline) and registers them and the preprocessor in `book.toml`, keeping the user's
//! formatting. Running it again changes nothing.

use std::fs;
use std::path::Path;
use toml_edit::{Array, DocumentMut, Item, Table, value};

pub const CSS_FILE: &str = "passback.css";
pub const JS_FILE: &str = "passback.js";

/// Installs into the book at `dir`; returns one line per change made.
pub fn install(dir: &Path) -> Result<Vec<String>, String> {
    let toml_path = dir.join("book.toml");
    let text = fs::read_to_string(&toml_path).map_err(|e| {
        format!(
            "cannot read {}: {e} (run install in the book's directory, or pass it)",
            toml_path.display()
        )
    })?;
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e| format!("{} is not valid TOML: {e}", toml_path.display()))?;
    let mut changes = write_assets(dir, &[CSS_FILE, JS_FILE])?;

    let after_links = || {
        let mut after = Array::new();
        after.push("links");
        value(after)
    };
    let preprocessor = table(&mut doc, "preprocessor")?;
    if !preprocessor.contains_key("passback") {
        let mut t = Table::new();
        t.insert("after", after_links());
        preprocessor.insert("passback", Item::Table(t));
        changes.push("added [preprocessor.passback] with after = [\"links\"]".into());
    } else if let Some(t) = preprocessor
        .get_mut("passback")
        .and_then(Item::as_table_like_mut)
        && !t.contains_key("after")
    {
        t.insert("after", after_links());
        changes.push("set after = [\"links\"] in [preprocessor.passback]".into());
    }

    let output = table(&mut doc, "output")?;
    if !output.contains_key("html") {
        output.insert("html", Item::Table(Table::new()));
    }
    let html = output
        .get_mut("html")
        .and_then(Item::as_table_like_mut)
        .ok_or("[output.html] in book.toml is not a table")?;
    for (key, file) in [("additional-css", CSS_FILE), ("additional-js", JS_FILE)] {
        if !html.contains_key(key) {
            html.insert(key, value(Array::new()));
        }
        let list = html
            .get_mut(key)
            .and_then(Item::as_array_mut)
            .ok_or_else(|| format!("output.html.{key} in book.toml is not an array"))?;
        let listed = |v: &toml_edit::Value| {
            v.as_str()
                .is_some_and(|p| p.trim_start_matches("./") == file)
        };
        if !list.iter().any(listed) {
            list.push(file);
            changes.push(format!("added {file} to output.html.{key}"));
        }
    }
    let new_text = doc.to_string();
    if new_text != text {
        fs::write(&toml_path, new_text)
            .map_err(|e| format!("cannot write {}: {e}", toml_path.display()))?;
    }
    Ok(changes)
}

/// The stylesheet as a book gets it: scaled for mdBook's root font, and, in a chapter whose
/// "Copy all answers on this page" copies every component (`copy = "chapter"`, the default),
/// without each component's own copy button.
pub fn book_css() -> String {
    let mut css = css_for_mdbook(passback_engine::assets::CSS);
    css.push_str(
        "\n.pb-chapter-part .pb-copy,.pb-chapter-part .pb-copy-status,\
         .pb-chapter-part .pb-copied{display:none!important}\n",
    );
    css
}

/// Writes those of `files` (of [`CSS_FILE`] and [`JS_FILE`]) into `dir` that are missing or
/// not this version's; returns one line per file written.
pub fn write_assets(dir: &Path, files: &[&str]) -> Result<Vec<String>, String> {
    let mut changes = Vec::new();
    let css = book_css();
    for (file, content) in [
        (CSS_FILE, css.as_str()),
        (JS_FILE, passback_engine::assets::js()),
    ] {
        if !files.contains(&file) {
            continue;
        }
        let path = dir.join(file);
        if fs::read_to_string(&path).ok().as_deref() != Some(content) {
            fs::write(&path, content)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            changes.push(format!("wrote {file}"));
        }
    }
    Ok(changes)
}

/// mdBook's theme sets the root font size to 62.5% (10px) and the text to 1.6rem, so the
/// stylesheet's `rem` lengths, written for a 16px root, are scaled by 1.6 for a book. Lengths in
/// media query conditions stay as they are: there `rem` is the browser's initial font size,
/// whatever the root's style says.
pub fn css_for_mdbook(css: &str) -> String {
    const SCALE: f64 = 1.6;
    let mut out = String::with_capacity(css.len() + css.len() / 16);
    let mut in_condition = false;
    let bytes = css.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'@' {
            in_condition = true;
        } else if c == b'{' || c == b';' {
            in_condition = false;
        }
        // A number followed by `rem`, not part of a longer word.
        let starts_number = (c.is_ascii_digit() || c == b'.')
            && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'-'));
        if starts_number && !in_condition {
            let len = bytes[i..]
                .iter()
                .take_while(|b| b.is_ascii_digit() || **b == b'.')
                .count();
            let unit_end = i + len + 3;
            let is_rem = css.get(i + len..unit_end) == Some("rem")
                && !bytes.get(unit_end).is_some_and(u8::is_ascii_alphanumeric);
            if let (true, Ok(n)) = (is_rem, css[i..i + len].parse::<f64>()) {
                let scaled = (n * SCALE * 1000.0).round() / 1000.0;
                out.push_str(&format!("{scaled}rem"));
                i = unit_end;
                continue;
            }
            out.push_str(&css[i..i + len]);
            i += len;
            continue;
        }
        let ch_len = css[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&css[i..i + ch_len]);
        i += ch_len;
    }
    out
}

/// The top-level table `name`, created (implicitly, so it prints as `[name.sub]`) if missing.
fn table<'d>(doc: &'d mut DocumentMut, name: &str) -> Result<&'d mut Table, String> {
    if !doc.contains_key(name) {
        let mut t = Table::new();
        t.set_implicit(true);
        doc.insert(name, Item::Table(t));
    }
    doc.get_mut(name)
        .and_then(Item::as_table_mut)
        .ok_or_else(|| format!("`{name}` in book.toml is not a table"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rem_lengths_are_scaled_for_the_10px_root_outside_media_conditions() {
        let css = ".a{padding:.5rem 1rem;font-size:0.75rem;width:calc(100% - 2rem)}\n@media (max-width: 32rem) {.b{margin:1.25rem;--x:3rem}}\n.c{line-height:1.5;border:1px solid;gap:12rem}";
        assert_eq!(
            css_for_mdbook(css),
            ".a{padding:0.8rem 1.6rem;font-size:1.2rem;width:calc(100% - 3.2rem)}\n@media (max-width: 32rem) {.b{margin:2rem;--x:4.8rem}}\n.c{line-height:1.5;border:1px solid;gap:19.2rem}"
        );
        // Every rem in the real stylesheet is accounted for: those in media conditions stay.
        let scaled = css_for_mdbook(passback_engine::assets::CSS);
        assert_eq!(
            scaled.matches("rem").count(),
            passback_engine::assets::CSS.matches("rem").count()
        );
        assert!(scaled.contains("@media (max-width: 32rem)"));
    }

    #[test]
    fn install_is_idempotent_and_keeps_formatting() {
        let dir = std::env::temp_dir().join(format!("pb-install-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let original = "[book]\ntitle = \"Docs\"   # keep this comment\n\n[output.html]\nadditional-css = [\"custom.css\"]\nadditional-js = [\"./passback.js\"]\n";
        fs::write(dir.join("book.toml"), original).unwrap();
        let first = install(&dir).unwrap();
        assert!(first.len() >= 4, "{first:?}");
        let toml = fs::read_to_string(dir.join("book.toml")).unwrap();
        assert!(toml.contains("title = \"Docs\"   # keep this comment"));
        assert!(
            toml.contains("additional-css = [\"custom.css\", \"passback.css\"]"),
            "{toml}"
        );
        // Already listed as ./passback.js: not listed twice.
        assert!(
            toml.contains("additional-js = [\"./passback.js\"]\n"),
            "{toml}"
        );
        assert!(
            toml.contains("[preprocessor.passback]\nafter = [\"links\"]"),
            "{toml}"
        );
        assert!(dir.join(CSS_FILE).exists() && dir.join(JS_FILE).exists());
        assert!(
            install(&dir).unwrap().is_empty(),
            "a second run changes nothing"
        );
        assert_eq!(fs::read_to_string(dir.join("book.toml")).unwrap(), toml);
        fs::remove_dir_all(&dir).ok();
    }
}
