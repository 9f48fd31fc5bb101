//! `passback validate`: a document's components checked, as JSON for programs or as
//! compiler-style diagnostics for people.

use super::args::Args;
use super::shared::write_out;
use super::usage::{Flag, Usage};
use super::{Command, report};
use std::io::IsTerminal;

pub(super) const COMMAND: Command = Command {
    name: "validate",
    summary: "check a document's components",
    usage: USAGE,
    run,
};

const USAGE: Usage = Usage {
    synopsis: &["[FILE|-] [--format json|text]"],
    about: "\
Checks the document's components; exits 0 when the document is valid, 1 when it violates the
spec (warnings alone leave it valid).
",
    column: 24,
    flags: &[Flag {
        name: "format",
        value: "json|text",
        about: "json: { ok, outcome, blocks, diagnostics }, for programs;\n\
                text: each problem as FILE:LINE:COL: error[code]: message,\n\
                the source line with a caret under the column, and the\n\
                hint. Default: text on a terminal, json otherwise",
    }],
    notes: "FILE defaults to standard input.\n",
};

fn run(a: &Args) -> Result<i32, String> {
    let text = match a.flag("format")? {
        None => std::io::stdout().is_terminal(),
        Some("json") => false,
        Some("text") => true,
        Some(f) => return Err(format!("--format must be json or text, not `{f}`")),
    };
    let (name, src) = a.input()?;
    let v = passback_engine::validate(&src);
    let code = if v.ok { 0 } else { 1 };
    if !text {
        let json = serde_json::to_string_pretty(&v)
            .map_err(|e| format!("cannot encode the result: {e}"))?;
        write_out(&json)?;
        return Ok(code);
    }
    let colour = report::colour(&std::io::stdout());
    let mut out = String::new();
    for d in &v.diagnostics {
        out.push_str(&report::diagnostic(&name, &src, d, colour));
        out.push('\n');
    }
    let components = v.blocks.len();
    let noun = if components == 1 {
        "component"
    } else {
        "components"
    };
    let verdict = if v.ok { "valid" } else { "violates the spec" };
    out.push_str(&format!(
        "{}: {verdict} ({components} {noun}{})",
        passback_engine::terminal_safe(&name),
        report::summary(&v.diagnostics).map_or_else(String::new, |s| format!("; {s}"))
    ));
    write_out(&out)?;
    Ok(code)
}
