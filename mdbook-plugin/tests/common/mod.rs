//! What the real-build tests share: a scratch copy of a book, and a `PATH` where `mdbook`
//! finds the preprocessor under test.

use std::path::{Path, PathBuf};

/// Copies the book at `from` to `to`, leaving out a `book` folder (an earlier build's output).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create dir");
    for e in std::fs::read_dir(from).expect("read dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "book") {
                continue;
            }
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).expect("copy file");
        }
    }
}

/// `PATH` with the built `mdbook-passback` first, so `mdbook build` runs this one.
pub fn path_with_preprocessor() -> String {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_mdbook-passback"));
    format!(
        "{}:{}",
        bin.parent().expect("bin dir").display(),
        std::env::var("PATH").unwrap_or_default()
    )
}
