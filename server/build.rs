//! Records what the binary was built from for `/metrics` (`passback_build_info`): the commit,
//! when built from a git checkout with git installed, and the compiler's version. Either may be
//! missing; the metric then leaves its label out.

use std::process::Command;

fn output(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (out.status.success() && !text.is_empty()).then(|| text.to_string())
}

fn main() {
    let commit = std::env::var("PASSBACK_BUILD_COMMIT")
        .ok()
        .or_else(|| output("git", &["rev-parse", "--short=12", "HEAD"]));
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    // `rustc 1.91.0 (f8297e351 2025-10-28)`: the version number.
    let version = output(&rustc, &["--version"])
        .and_then(|v| v.split_whitespace().nth(1).map(str::to_string));
    println!(
        "cargo:rustc-env=PASSBACK_BUILD_COMMIT={}",
        commit.unwrap_or_default()
    );
    println!(
        "cargo:rustc-env=PASSBACK_BUILD_RUSTC={}",
        version.unwrap_or_default()
    );
    println!("cargo:rerun-if-env-changed=PASSBACK_BUILD_COMMIT");
    // Run again when the checkout moves to another commit (HEAD's log grows with every commit,
    // checkout and reset), not on every edit of the package.
    if let Some(dir) = output("git", &["rev-parse", "--absolute-git-dir"]) {
        for file in ["HEAD", "logs/HEAD"] {
            println!("cargo:rerun-if-changed={dir}/{file}");
        }
    } else {
        println!("cargo:rerun-if-changed=build.rs");
    }
}
