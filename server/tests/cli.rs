//! The real `passback` binary: every surface and format, `validate` and `schema`, standard
//! input, and every way to call it wrongly. A mistake must give a non-zero exit and exactly one
//! line on stderr that starts with `passback:`, never a panic or a backtrace.

mod common;

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const VALID: &str = "# Pick\n\n```single-choice\n{ \"version\": \"1\", \"question\": \"Which?\", \"options\": [\"A\", \"B\"] }\n```\n";
const VIOLATING: &str = "```single-choice\n{ \"version\": 1, \"question\": \"Which?\", \"options\": [\"A\", \"B\"] }\n```\n";

/// Runs `passback` with `args`, feeding `stdin` when given (otherwise stdin is empty).
fn passback(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_passback"))
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the passback binary starts");
    let input = stdin.unwrap_or_default().to_vec();
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let writer = std::thread::spawn(move || {
        // The binary may exit before reading (e.g. on a bad flag): a broken pipe is fine.
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("passback runs to the end");
    writer.join().expect("the stdin writer finishes");
    out
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("stderr is UTF-8")
}

/// A file in this test binary's scratch directory.
fn scratch(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("passback-cli");
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("scratch file");
    path
}

fn example() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/decision.md")
        .to_string_lossy()
        .into_owned()
}

/// A user mistake: non-zero exit, nothing on stdout, one `passback:` line on stderr, no panic.
#[track_caller]
fn assert_one_line_error(out: &Output, mentions: &str) {
    let err = stderr(out);
    assert!(
        !out.status.success(),
        "exit {:?}, stderr {err:?}",
        out.status
    );
    assert_eq!(out.status.code(), Some(2), "stderr {err:?}");
    assert!(out.stdout.is_empty(), "stdout: {:?}", stdout(out));
    assert_eq!(err.lines().count(), 1, "stderr must be one line: {err:?}");
    assert!(err.starts_with("passback: "), "{err:?}");
    assert!(err.ends_with('\n'), "{err:?}");
    for bad in ["panicked", "backtrace", "RUST_BACKTRACE", "internal error"] {
        assert!(!err.contains(bad), "{err:?}");
    }
    assert!(
        err.to_lowercase().contains(&mentions.to_lowercase()),
        "{err:?} should mention {mentions:?}"
    );
}

#[test]
fn renders_every_surface_in_every_format() {
    let file = example();
    for surface in ["page", "routed", "email"] {
        for format in ["fragment", "page", "json"] {
            let out = passback(
                &["render", &file, "--surface", surface, "--format", format],
                None,
            );
            let what = format!("{surface}/{format}");
            assert!(out.status.success(), "{what}: {}", stderr(&out));
            assert!(stderr(&out).is_empty(), "{what}: {}", stderr(&out));
            let body = stdout(&out);
            let fragment = match format {
                "fragment" => {
                    assert!(body.starts_with("<div class=\"pb-doc\""), "{what}");
                    body.clone()
                }
                "page" => {
                    assert!(body.starts_with("<!DOCTYPE html>"), "{what}");
                    assert!(body.trim_end().ends_with("</html>"), "{what}");
                    body.clone()
                }
                _ => {
                    let json: Value = serde_json::from_str(&body).expect("json output parses");
                    let html = json["html"].as_str().expect("html is a string");
                    let hash = json["hash"].as_str().expect("hash is a string");
                    assert_eq!(hash.len(), 32, "{what}");
                    assert!(html.contains(&format!("data-pb-hash=\"{hash}\"")), "{what}");
                    assert_eq!(json["blocks"].as_array().map(Vec::len), Some(8), "{what}");
                    assert_eq!(json["diagnostics"].as_array().map(Vec::len), Some(0));
                    html.to_string()
                }
            };
            assert!(
                fragment.contains(&format!("data-pb-surface=\"{surface}\"")),
                "{what}"
            );
            assert_eq!(fragment.matches("data-pb-block=").count(), 8, "{what}");
            // The only script is the page format's link to the hashed enhancement script.
            for (i, _) in fragment.match_indices("<script") {
                assert!(
                    surface != "email"
                        && fragment[i..].starts_with("<script src=\"/assets/passback-"),
                    "{what}: a script that is not the linked enhancement script"
                );
            }
            if surface == "email" {
                assert!(!fragment.contains("<form"), "{what}");
                assert!(!fragment.contains("<link"), "{what}");
            } else {
                assert!(fragment.contains("<form class=\"pb-form\""), "{what}");
                assert!(!fragment.contains("style="), "{what}: no inline styles");
            }
            if surface == "routed" {
                assert!(fragment.contains("youtube-nocookie.com"), "{what}");
            } else {
                assert!(!fragment.contains("youtube-nocookie.com"), "{what}");
            }
        }
    }
}

#[test]
fn render_defaults_to_a_page_surface_fragment() {
    let out = passback(&["render", &example()], None);
    assert!(out.status.success());
    let body = stdout(&out);
    assert!(body.starts_with("<div class=\"pb-doc\""));
    assert!(body.contains("data-pb-surface=\"page\""));
}

#[test]
fn render_reports_diagnostics_on_stderr_and_still_renders() {
    let path = scratch("violating.md", VIOLATING.as_bytes());
    let out = passback(&["render", path.to_str().unwrap_or_default()], None);
    assert!(out.status.success());
    assert!(stdout(&out).contains("class=\"pb-invalid\""));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(":2:") && err.contains("error[wrong_version]"),
        "{err}"
    );
}

/// Document text in a warning (here an unknown field's name) cannot drive the terminal: no
/// escape sequence, bell or line of its own reaches stderr; the JSON output stays JSON.
#[test]
fn warnings_print_no_control_characters() {
    let doc = "```single-choice\n{ \"version\": \"1\", \"question\": \"Which?\", \"options\": [\"A\", \"B\"], \
               \"\\u001b[2J\\u001b]0;pwned\\u0007\\npassback: forged\": 1 }\n```\n";
    let out = passback(&["render", "-"], Some(doc.as_bytes()));
    assert!(out.status.success());
    let err = stderr(&out);
    assert!(err.contains("warning[unknown_field]"), "{err}");
    assert!(
        !err.contains('\u{1b}') && !err.contains('\u{7}') && err.lines().count() == 1,
        "{err:?}"
    );
    assert!(
        err.contains("\\u{1b}[2J") && err.contains("\\npassback: forged"),
        "{err}"
    );
    let out = passback(&["validate", "-"], Some(doc.as_bytes()));
    let json: Value = serde_json::from_str(&stdout(&out)).expect("validate prints JSON");
    assert!(
        json["diagnostics"].to_string().contains("\\u001b[2J"),
        "{json}"
    );
}

#[test]
fn validate_exit_codes_and_shape() {
    for (src, ok, code) in [(VALID, true, 0), (VIOLATING, false, 1)] {
        let out = passback(&["validate", "-"], Some(src.as_bytes()));
        assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
        assert!(stderr(&out).is_empty(), "{}", stderr(&out));
        let json: Value = serde_json::from_str(&stdout(&out)).expect("validate prints JSON");
        let mut keys: Vec<&str> = json
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(keys, ["blocks", "diagnostics", "ok", "outcome"]);
        assert_eq!(json["ok"], ok);
        assert_eq!(json["outcome"], if ok { "valid" } else { "violating" });
        let block = &json["blocks"][0];
        assert_eq!(block["id"], "b1");
        assert_eq!(block["kind"], "single-choice");
        assert_eq!(block["valid"], ok);
        let diags = json["diagnostics"].as_array().expect("an array");
        if ok {
            assert!(diags.is_empty());
        } else {
            let d = &diags[0];
            assert_eq!(d["severity"], "error");
            assert_eq!(d["code"], "wrong_version");
            assert_eq!(d["block"], "b1");
            assert_eq!(
                (d["line"].as_u64(), d["column"].as_u64()),
                (Some(2), Some(14))
            );
            assert_eq!(d["path"], "/version");
            assert!(d["message"].is_string() && d["hint"].is_string());
        }
    }
}

#[test]
fn validate_the_example_document() {
    let out = passback(&["validate", &example()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let json: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let kinds: Vec<&str> = json["blocks"]
        .as_array()
        .expect("blocks")
        .iter()
        .filter_map(|b| b["kind"].as_str())
        .collect();
    assert_eq!(
        kinds,
        [
            "single-choice",
            "multi-choice",
            "open-question",
            "questionnaire",
            "prioritize",
            "allocate",
            "youtube",
            "mermaid"
        ]
    );
}

#[test]
fn schema_prints_json() {
    let out = passback(&["schema"], None);
    assert!(out.status.success());
    let json: Value = serde_json::from_str(&stdout(&out)).expect("schema is JSON");
    assert!(json.is_object());
}

#[test]
fn standard_input_with_a_dash_or_no_file() {
    for args in [&["render", "-"][..], &["render"][..]] {
        let out = passback(args, Some(VALID.as_bytes()));
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert!(stdout(&out).contains("pb-single-choice"), "{args:?}");
    }
    let out = passback(
        &["render", "--format", "json", "-"],
        Some(b"# Just prose\n"),
    );
    let json: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(json["blocks"].as_array().map(Vec::len), Some(0));
    // Empty input is a valid, empty document.
    let out = passback(&["validate"], Some(b""));
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn help_and_version() {
    let out = passback(&["--help"], None);
    assert!(out.status.success());
    assert!(stdout(&out).contains("passback render"));
    let out = passback(&["--version"], None);
    assert!(out.status.success());
    assert!(stdout(&out).starts_with("passback "));
}

#[test]
fn help_in_every_spelling() {
    let top = passback(&["--help"], None);
    for args in [&["-h"][..], &["help"][..]] {
        let out = passback(args, None);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), stdout(&top), "{args:?}");
    }
    let commands: [(&str, &[&str]); 6] = [
        (
            "serve",
            &[
                "--listen",
                "--max-body",
                "--header-timeout",
                "--request-timeout",
                "--max-connections",
                "--cache-entries",
                "--cache-bytes",
                "--public-url",
            ],
        ),
        (
            "render",
            &[
                "--surface",
                "--format",
                "--answers-action",
                "--respond-url",
                "--asset-base",
            ],
        ),
        ("mcp", &["--store", "--public-url", "--retention"]),
        ("validate", &[]),
        ("answers", &["--doc", "--responses"]),
        ("schema", &[]),
    ];
    for (command, flags) in commands {
        assert!(
            stdout(&top).contains(&format!("passback {command}")),
            "{command}"
        );
        let help = passback(&["help", command], None);
        let text = stdout(&help);
        assert!(
            text.starts_with(&format!("passback {command} — ")),
            "{text}"
        );
        for flag in flags {
            assert!(text.contains(flag), "`{command} --help` leaves out {flag}");
        }
        for args in [[command, "--help"], [command, "-h"]] {
            let out = passback(&args, None);
            assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
            assert!(stderr(&out).is_empty(), "{args:?}: {}", stderr(&out));
            assert_eq!(stdout(&out), text, "{args:?}");
        }
    }
    // Asking for help wins over the rest of a well-formed command line, which is not run.
    let out = passback(&["render", "-", "--surface", "email", "--help"], None);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).starts_with("passback render — "));
    assert_one_line_error(&passback(&["help", "rendr"], None), "unknown command");
    assert_one_line_error(
        &passback(&["help", "render", "serve"], None),
        "at most one command",
    );
    let out = passback(&["-V"], None);
    assert_eq!(
        stdout(&out),
        format!("passback {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn a_missing_value_names_the_flag_and_its_form() {
    assert_one_line_error(
        &passback(&["answers", "--doc"], None),
        "--doc needs a value: --doc FILE",
    );
    assert_one_line_error(
        &passback(&["serve", "--listen"], None),
        "--listen needs a value: --listen ADDR",
    );
}

#[test]
fn missing_file() {
    let out = passback(&["render", "/nonexistent/passback/doc.md"], None);
    assert_one_line_error(&out, "no such file");
    let out = passback(&["validate", "/nonexistent/passback/doc.md"], None);
    assert_one_line_error(&out, "no such file");
}

#[cfg(unix)]
#[test]
fn a_file_name_that_is_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::OsStr::from_bytes(b"/nonexistent/passback/\xff.md");
    let out = Command::new(env!("CARGO_BIN_EXE_passback"))
        .arg("render")
        .arg(name)
        .stdin(Stdio::null())
        .output()
        .expect("the passback binary runs");
    assert_one_line_error(&out, "no such file");
}

#[test]
fn a_directory() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let out = passback(&["render", dir.to_str().unwrap_or_default()], None);
    assert_one_line_error(&out, "directory");
    let out = passback(&["validate", dir.to_str().unwrap_or_default()], None);
    assert_one_line_error(&out, "directory");
}

#[test]
fn bad_utf8_bytes() {
    let bytes = b"# Title\n\nvalid text then \xff\xfe bad bytes\n";
    let path = scratch("latin1.md", bytes);
    let out = passback(&["render", path.to_str().unwrap_or_default()], None);
    assert_one_line_error(&out, "UTF-8");
    let out = passback(&["validate", "-"], Some(bytes));
    assert_one_line_error(&out, "UTF-8");
    // A truncated multi-byte character at the very end.
    let out = passback(
        &["render"],
        Some("שלום".as_bytes().split_last().map_or(&[][..], |(_, r)| r)),
    );
    assert_one_line_error(&out, "UTF-8");
}

#[test]
fn unknown_or_missing_command() {
    assert_one_line_error(&passback(&["rendr"], None), "unknown command");
    assert_one_line_error(&passback(&["--surface", "page"], None), "unknown command");
    assert_one_line_error(&passback(&[], None), "no command");
}

#[test]
fn unknown_flag() {
    assert_one_line_error(&passback(&["render", "--colour", "red"], None), "--colour");
    assert_one_line_error(&passback(&["render", "-x"], None), "-x");
    for bad in ["javascript:alert(1)", "/relative", "https://"] {
        assert_one_line_error(
            &passback(
                &["render", "-", "--surface", "email", "--respond-url", bad],
                Some(b"# hi\n"),
            ),
            "--respond-url must be an absolute http",
        );
    }
    assert_one_line_error(
        &passback(&["validate", "-", "--surface", "page"], Some(b"# hi\n")),
        "validate` takes no options",
    );
    assert_one_line_error(
        &passback(&["validate", "--format", "json"], None),
        "--format",
    );
}

#[test]
fn bad_surface_or_format_value() {
    let out = passback(&["render", "--surface", "print"], Some(VALID.as_bytes()));
    assert_one_line_error(&out, "--surface");
    let out = passback(&["render", "--format=xml"], Some(VALID.as_bytes()));
    assert_one_line_error(&out, "--format");
    let out = passback(&["render", "--surface", ""], Some(VALID.as_bytes()));
    assert_one_line_error(&out, "--surface");
}

#[test]
fn missing_flag_value() {
    assert_one_line_error(&passback(&["render", "--surface"], None), "needs a value");
    assert_one_line_error(
        &passback(&["render", "-", "--format"], Some(VALID.as_bytes())),
        "needs a value",
    );
}

#[test]
fn extra_positional_arguments() {
    let file = example();
    assert_one_line_error(&passback(&["render", &file, &file], None), "one FILE");
    assert_one_line_error(&passback(&["validate", "-", "-"], None), "one FILE");
    assert_one_line_error(&passback(&["schema", "extra"], None), "no arguments");
}

#[test]
fn serve_refuses_a_public_url_mail_clients_could_not_use() {
    for (url, why) in [
        ("render.example.com", "https://"),
        ("ftp://example.com", "https://"),
        ("https://", "host"),
        ("https:///path", "host"),
        ("https://exa mple.com", "host"),
        ("https://example.com/a?b=1", "query"),
        ("https://example.com/a b", "spaces"),
        ("https://example.com/\"x", "quotes"),
    ] {
        let out = passback(
            &["serve", "--listen", "127.0.0.1:0", "--public-url", url],
            None,
        );
        assert!(!out.status.success(), "{url} was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--public-url") && err.contains(why),
            "{url}: {err}"
        );
        assert_one_line_error(&out, "--public-url");
    }
}

#[test]
fn serve_accepts_the_documented_public_url() {
    let served = common::serve(&["--public-url", "https://example.org:8443/passback/"]);
    let line = &served.line;
    assert!(
        line.starts_with("passback: listening on http://127.0.0.1:"),
        "{line:?}"
    );
}
