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
            // An email gets the link to answer by, or warns that it cannot be answered.
            let mut args = vec!["render", &file, "--surface", surface, "--format", format];
            if surface == "email" {
                args.extend(["--respond-url", "https://app.example/r/1"]);
            }
            let out = passback(&args, None);
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
    let heads: Vec<&str> = err.lines().filter(|l| l.contains("error[")).collect();
    assert_eq!(heads.len(), 1, "{err}");
    assert!(
        heads[0].ends_with(
            "violating.md:2:14: error[wrong_version]: `version` must be the string \"1\", found the number 1"
        ),
        "{err}"
    );
    // As `validate --format text` prints it: the source line, the caret, the hint.
    assert!(err.contains("2 | { \"version\": 1,"), "{err}");
    assert!(err.contains("  |              ^\n"), "{err}");
    assert!(err.contains("= help: write \"version\": \"1\""), "{err}");
}

/// For people: each problem as a compiler prints it, with the line and a caret under the
/// column, then a closing verdict; the exit code as with JSON. Not a terminal, so no colour.
#[test]
fn validate_text_points_at_the_problem() {
    let out = passback(
        &["validate", "-", "--format", "text"],
        Some(VIOLATING.as_bytes()),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "<stdin>:2:14: error[wrong_version]: `version` must be the string \"1\", found the number 1",
        "{text}"
    );
    let source = lines
        .iter()
        .position(|l| l.starts_with("2 | "))
        .expect("the source line");
    let caret = lines[source + 1];
    // The caret stands under column 14 of the source line.
    let offset = "2 | ".len();
    assert_eq!(caret.find('^'), Some(offset + 13), "{text}");
    assert!(text.contains("= help: write \"version\": \"1\""), "{text}");
    assert_eq!(
        lines.last().copied(),
        Some("<stdin>: violates the spec (1 component; 1 error)"),
        "{text}"
    );
    assert!(
        !text.contains('\u{1b}'),
        "no colour when not a terminal: {text:?}"
    );
    let out = passback(
        &["validate", "-", "--format", "text"],
        Some(VALID.as_bytes()),
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out).trim(), "<stdin>: valid (1 component)");
    // Piped, the default stays the JSON programs read.
    let out = passback(&["validate", "-"], Some(VALID.as_bytes()));
    assert!(serde_json::from_str::<Value>(&stdout(&out)).is_ok());
    let out = passback(
        &["validate", "-", "--format", "json"],
        Some(VALID.as_bytes()),
    );
    assert!(serde_json::from_str::<Value>(&stdout(&out)).is_ok());
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
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
    assert_eq!(
        err.lines()
            .filter(|l| l.contains("[unknown_field]"))
            .count(),
        1,
        "{err:?}"
    );
    assert!(
        !err.lines().any(|l| l.starts_with("passback: forged")),
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

/// The example shows every component the registry knows, in the registry's order.
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
    let registry: Vec<&str> = passback_engine::Kind::ALL.iter().map(|k| k.tag()).collect();
    assert_eq!(kinds, registry);
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
    let commands: &[(&str, &[&str])] = &[
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
                #[cfg(feature = "store")]
                "--route-limit",
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
        #[cfg(feature = "mcp")]
        (
            "mcp",
            &[
                "--store",
                "--public-url",
                "--retention",
                "--closed-retention",
            ],
        ),
        ("validate", &[]),
        ("answers", &["--doc", "--responses"]),
        ("schema", &[]),
        (
            "bench",
            &["--iterations", "--surface", "--json", "--max-ratio"],
        ),
    ];
    for &(command, flags) in commands {
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

/// The commands of the binary's table, as its message for an unknown command lists them.
fn table_commands() -> Vec<String> {
    let err = stderr(&passback(&["no-such-command"], None));
    let list = err
        .split_once("the commands are ")
        .and_then(|(_, rest)| rest.split_once(" (see --help)"))
        .map_or("", |(list, _)| list);
    let names: Vec<String> = list
        .split(", ")
        .flat_map(|part| part.split(" and "))
        .map(str::to_string)
        .collect();
    // Seven commands, `mcp` only in a build with the `mcp` feature.
    let commands = if cfg!(feature = "mcp") { 7 } else { 6 };
    assert!(
        names.len() >= commands && names.iter().all(|n| !n.is_empty() && !n.contains(' ')),
        "{err}"
    );
    names
}

/// The usage and every `COMMAND --help` come from one table: each command the table holds has a
/// line in `passback --help` (as in its own help) and help that names it.
#[test]
fn usage_and_help_cover_every_command_of_the_table() {
    let top = stdout(&passback(&["--help"], None));
    let listed: Vec<&str> = top
        .lines()
        .filter_map(|l| l.strip_prefix("  passback "))
        .filter_map(|l| l.split(' ').next())
        .filter(|name| !name.starts_with('-') && *name != "help")
        .collect();
    let table = table_commands();
    assert_eq!(listed, table, "{top}");
    for name in &table {
        let out = passback(&[name, "--help"], None);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        let help = stdout(&out);
        let title = format!("passback {name} — ");
        assert!(help.starts_with(&title), "{help}");
        // Its summary and synopsis are the usage's own.
        let summary = help
            .lines()
            .next()
            .unwrap_or_default()
            .replacen(&title, "", 1);
        assert!(top.contains(&format!(" {summary}\n")), "{name}: {summary}");
        let synopsis: String = help
            .split_once("USAGE:\n")
            .and_then(|(_, rest)| rest.split_once("\n\n").or(Some((rest, ""))))
            .map_or("", |(synopsis, _)| synopsis)
            .to_string();
        assert!(top.contains(synopsis.trim_end()), "{name}: {synopsis}");
    }
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
        "for `validate`; it takes --format",
    );
    assert_one_line_error(
        &passback(&["validate", "--format", "yaml"], None),
        "--format must be json or text",
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

/// The JSON schema `passback bench --json` is documented with.
fn bench_schema() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/bench.schema.json");
    let text = std::fs::read_to_string(&path).expect("schema/bench.schema.json");
    let schema: Value = serde_json::from_str(&text).expect("the bench schema is JSON");
    jsonschema::meta::validate(&schema).expect("the bench schema is a valid JSON Schema");
    jsonschema::validator_for(&schema).expect("the bench schema compiles")
}

#[track_caller]
fn assert_fits_bench_schema(json: &Value) {
    let errors: Vec<String> = bench_schema()
        .iter_errors(json)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}\n{json:#}");
}

#[test]
fn bench_json_fits_its_schema_for_every_file_and_surface() {
    let file = example();
    let plain = scratch("plain.md", b"# Notes\n\nJust prose, *no* components.\n");
    let plain = plain.to_string_lossy();
    let out = passback(
        &[
            "bench",
            &file,
            &plain,
            "--iterations",
            "5",
            "--surface",
            "page,email",
            "--json",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: Value = serde_json::from_str(&stdout(&out)).expect("the report is JSON");
    assert_fits_bench_schema(&json);
    assert_eq!(json["ok"], true);
    assert_eq!(json["max_ratio"], Value::Null);
    assert_eq!(json["iterations"], 5);
    let docs = json["documents"].as_array().expect("documents");
    let order: Vec<(&str, &str)> = docs
        .iter()
        .map(|d| (d["file"].as_str().unwrap(), d["surface"].as_str().unwrap()))
        .collect();
    assert_eq!(
        order,
        [
            (file.as_str(), "page"),
            (file.as_str(), "email"),
            (plain.as_ref(), "page"),
            (plain.as_ref(), "email")
        ]
    );
    let bytes = std::fs::metadata(&file).unwrap().len();
    assert_eq!(docs[0]["bytes"], bytes);
    for d in docs {
        for measure in [
            "cold_render",
            "plain_comrak",
            "cache_hit",
            "validate",
            "empty_export",
        ] {
            let (min, median, p99) = (
                d[measure]["min_ns"].as_u64().unwrap(),
                d[measure]["median_ns"].as_u64().unwrap(),
                d[measure]["p99_ns"].as_u64().unwrap(),
            );
            assert!(min <= median && median <= p99, "{measure}: {d}");
        }
        let ratio = d["cold_ratio"].as_f64().unwrap();
        let (cold, comrak) = (
            d["cold_render"]["median_ns"].as_f64().unwrap(),
            d["plain_comrak"]["median_ns"].as_f64().unwrap(),
        );
        assert!((ratio - cold / comrak).abs() < 0.001, "{d}");
        assert_eq!(d["over_max_ratio"], false);
    }
    // The example's eight components, two of them diagrams: a cold render lays them out and
    // draws them, a hit compares the text with the cached one. Orders of magnitude apart.
    assert!(
        docs[0]["cache_hit"]["median_ns"].as_u64().unwrap() * 10
            < docs[0]["cold_render"]["median_ns"].as_u64().unwrap(),
        "{}",
        docs[0]
    );
}

#[test]
fn bench_fails_a_document_over_the_max_ratio_and_still_reports() {
    let file = example();
    // No render takes a millionth of plain comrak's time.
    let out = passback(
        &[
            "bench",
            &file,
            "--iterations",
            "2",
            "--max-ratio",
            "0.000001",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let table = stdout(&out);
    assert!(table.contains(&format!("{file} (")), "{table}");
    for row in [
        "cold render",
        "plain comrak",
        "cache hit",
        "validate",
        "empty export",
    ] {
        assert!(table.contains(row), "{row}: {table}");
    }
    assert!(table.contains("over --max-ratio 0.000001"), "{table}");
    let err = stderr(&out);
    assert!(
        err.lines().any(|l| l.starts_with("passback: ")
            && l.contains(&file)
            && l.contains("over --max-ratio")),
        "{err}"
    );
    let out = passback(
        &[
            "bench",
            &file,
            "--iterations",
            "2",
            "--max-ratio",
            "0.000001",
            "--json",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_str(&stdout(&out)).expect("the report is JSON");
    assert_fits_bench_schema(&json);
    assert_eq!(json["ok"], false);
    assert_eq!(json["documents"][0]["over_max_ratio"], true);
    // A generous bound passes.
    let out = passback(
        &["bench", &file, "--iterations", "2", "--max-ratio", "1000"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn bench_mistakes_are_one_line_each() {
    let file = example();
    assert_one_line_error(&passback(&["bench"], None), "at least one FILE");
    assert_one_line_error(
        &passback(&["bench", &file, "--iterations", "0"], None),
        "--iterations must be at least 1",
    );
    assert_one_line_error(
        &passback(&["bench", &file, "--iterations", "many"], None),
        "--iterations must be a whole number",
    );
    assert_one_line_error(
        &passback(&["bench", &file, "--surface", "page,web"], None),
        "not `web`",
    );
    for bad in ["0", "-1", "NaN", "inf"] {
        assert_one_line_error(
            &passback(&["bench", &file, "--max-ratio", bad], None),
            "--max-ratio must be",
        );
    }
    assert_one_line_error(
        &passback(&["bench", &file, "/no/such/file.md"], None),
        "no such file",
    );
}

/// `render --format json` carries the diagnostics in the JSON rather than on stderr, and its
/// help says so, so a script reading stderr for warnings is not surprised.
#[test]
fn render_help_says_where_json_diagnostics_go() {
    let help = stdout(&passback(&["render", "--help"], None));
    assert!(help.contains("into --format json"), "{help}");
    let out = passback(
        &["render", "-", "--format", "json"],
        Some(b"```single_choice\n{}\n```\n"),
    );
    assert!(out.status.success());
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    assert!(stdout(&out).contains("unknown_tag"), "{}", stdout(&out));
}

/// A body limit of 0 would refuse every POST (413) while the server looked healthy; it is
/// refused at start, as the other limits that must be at least 1 are.
#[test]
fn a_body_limit_of_zero_is_refused_at_start() {
    assert_one_line_error(
        &passback(
            &["serve", "--listen", "127.0.0.1:0", "--max-body", "0"],
            None,
        ),
        "--max-body must be at least 1",
    );
}

#[cfg(feature = "store")]
#[test]
fn bad_route_limits_and_store_urls_are_one_line() {
    for (args, says) in [
        (
            &["serve", "--route-limit", "3/day"][..],
            "--route-limit must be a number of documents per client such as 30/min",
        ),
        (
            &["serve", "--route-limit", "0/min"][..],
            "give `off` for no limit",
        ),
        (
            &["serve", "--store", "postgres://db/x?sslmode=verify-full"][..],
            "sslmode=verify-full needs sslrootcert=PATH",
        ),
        (
            &["serve", "--store", "postgres://db/x?sslmode=on"][..],
            "sslmode must be disable, prefer, require or verify-full",
        ),
    ] {
        assert_one_line_error(&passback(args, None), says);
    }
}
