//! `passback validate`: a document's components checked, as JSON.

use super::shared::write_out;
use super::{Args, Usage};

pub(super) const USAGE: Usage = Usage {
    synopsis: &["[FILE|-]"],
    about: "\
Prints { ok, outcome, blocks, diagnostics } as JSON; exits 0 when the document is valid, 1 when
it violates the spec. FILE defaults to standard input.
",
    column: 0,
    flags: &[],
    notes: "",
};

pub(super) fn run(a: &Args) -> Result<i32, String> {
    let (_, src) = a.input()?;
    let v = passback_engine::validate(&src);
    let json =
        serde_json::to_string_pretty(&v).map_err(|e| format!("cannot encode the result: {e}"))?;
    write_out(&json)?;
    Ok(if v.ok { 0 } else { 1 })
}
