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
    let mut changes = Vec::new();

    for (file, content) in [
        (CSS_FILE, passback_engine::assets::CSS),
        (JS_FILE, passback_engine::assets::JS),
    ] {
        let path = dir.join(file);
        if fs::read_to_string(&path).ok().as_deref() != Some(content) {
            fs::write(&path, content)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            changes.push(format!("wrote {file}"));
        }
    }

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
        if !list.iter().any(|v| v.as_str() == Some(file)) {
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
    fn install_is_idempotent_and_keeps_formatting() {
        let dir = std::env::temp_dir().join(format!("pb-install-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let original = "[book]\ntitle = \"Docs\"   # keep this comment\n\n[output.html]\nadditional-css = [\"custom.css\"]\n";
        fs::write(dir.join("book.toml"), original).unwrap();
        let first = install(&dir).unwrap();
        assert!(first.len() >= 4, "{first:?}");
        let toml = fs::read_to_string(dir.join("book.toml")).unwrap();
        assert!(toml.contains("title = \"Docs\"   # keep this comment"));
        assert!(
            toml.contains("additional-css = [\"custom.css\", \"passback.css\"]"),
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
