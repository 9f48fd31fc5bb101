//! `passback schema`: the JSON Schema of every component.

use super::Command;
use super::args::Args;
use super::shared::write_out;
use super::usage::Usage;

pub(super) const COMMAND: Command = Command {
    name: "schema",
    summary: "print the JSON Schema (2020-12) of every component",
    usage: USAGE,
    run,
};

const USAGE: Usage = Usage {
    synopsis: &[],
    about: "",
    column: 0,
    flags: &[],
    notes: "",
};

fn run(a: &Args) -> Result<i32, String> {
    a.no_positional("no arguments", "")?;
    write_out(passback_engine::SCHEMA)?;
    Ok(0)
}
