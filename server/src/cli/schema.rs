//! `passback schema`: the JSON Schema of every component.

use super::shared::write_out;
use super::{Args, Usage};

pub(super) const USAGE: Usage = Usage {
    synopsis: &[],
    about: "",
    column: 0,
    flags: &[],
    notes: "",
};

pub(super) fn run(a: &Args) -> Result<i32, String> {
    a.no_positional("no arguments", "")?;
    write_out(passback_engine::SCHEMA)?;
    Ok(0)
}
