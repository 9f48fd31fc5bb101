//! `passback answers`: the copy-back Markdown export of a reader's responses.

use super::Command;
use super::args::Args;
use super::shared::{read_input, write_out};
use super::usage::{Flag, Usage};
use std::path::Path;

pub(super) const COMMAND: Command = Command {
    name: "answers",
    summary: "the copy-back Markdown export of a reader's responses",
    usage: USAGE,
    run,
};

const USAGE: Usage = Usage {
    synopsis: &["--doc FILE --responses FILE"],
    about: "",
    column: 22,
    flags: &[
        Flag {
            name: "doc",
            value: "FILE",
            about: "the document (- for standard input)",
        },
        Flag {
            name: "responses",
            value: "FILE",
            about: "the responses as JSON keyed by block id (b1, b2, …)",
        },
    ],
    notes: "",
};

fn run(a: &Args) -> Result<i32, String> {
    a.no_positional("no positional argument", "; use --doc and --responses")?;
    let doc_path = Path::new(
        a.flag_os("doc")
            .ok_or("`answers` needs --doc FILE (the document)")?,
    );
    let responses_path = Path::new(
        a.flag_os("responses")
            .ok_or("`answers` needs --responses FILE (JSON keyed by block id)")?,
    );
    let stdin = Path::new("-");
    let src = read_input((doc_path != stdin).then_some(doc_path))?;
    let text = read_input((responses_path != stdin).then_some(responses_path))?;
    let (doc_path, responses_path) = (doc_path.display(), responses_path.display());
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{responses_path} is not valid JSON: {e}"))?;
    let doc = passback_engine::Doc::parse(&src);
    let responses = passback_engine::answers_from_json(&doc, &json)
        .map_err(|e| format!("{responses_path} does not fit {doc_path}: {e}"))?;
    let export = passback_engine::export(&doc, &responses);
    for notice in &export.notices {
        eprintln!("passback: note: {}", passback_engine::terminal_safe(notice));
    }
    if export.markdown.is_empty() {
        eprintln!("passback: note: nothing to export (no block was answered)");
    } else {
        write_out(&export.markdown)?;
    }
    Ok(0)
}
