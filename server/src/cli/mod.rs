//! The command line: one table of commands, from which `passback --help`, each
//! `passback COMMAND --help` and the flags each command accepts are all made, and the parsing
//! every command shares. Every mistake is one line on stderr and a non-zero exit.
//!
//! Adding a command is one row in [`COMMANDS`] plus its file, which holds its [`Command`]: its
//! name and summary, its [`Usage`], its flags and what runs it. The help texts are made in
//! `usage.rs`, the flags read in `args.rs`.
//!
//! Every flag may also come from the environment: `--max-body` is `PASSBACK_MAX_BODY`, a switch
//! such as `--require-keys` is on for `PASSBACK_REQUIRE_KEYS=1` (or `true`, `yes`). The command
//! line wins over the environment; an empty variable counts as unset.

mod answers;
mod args;
mod bench;
#[cfg(feature = "store")]
mod keys;
#[cfg(feature = "mcp")]
mod mcp;
mod render;
mod report;
mod schema;
mod serve;
mod shared;
mod usage;
mod validate;

use args::Args;
use lexopt::Arg;
use shared::write_out;
use std::ffi::{OsStr, OsString};
use usage::{Usage, usage};

/// Every command, in the order the usage lists them; `mcp` only in a build with the `mcp`
/// feature.
const COMMANDS: &[Command] = &[
    serve::COMMAND,
    #[cfg(feature = "mcp")]
    mcp::COMMAND,
    #[cfg(feature = "store")]
    keys::COMMAND,
    render::COMMAND,
    validate::COMMAND,
    answers::COMMAND,
    schema::COMMAND,
    bench::COMMAND,
];

/// A command: its name, the line `passback --help` gives it (also the title of its own help),
/// the rest of its help, and what runs it.
struct Command {
    name: &'static str,
    summary: &'static str,
    usage: Usage,
    run: fn(&Args) -> Result<i32, String>,
}

fn command(name: &OsStr) -> Result<&'static Command, String> {
    COMMANDS
        .iter()
        .find(|c| name == c.name)
        .ok_or_else(|| unknown_command(&name.to_string_lossy()))
}

fn unknown_command(name: &str) -> String {
    let names: Vec<&str> = COMMANDS.iter().map(|c| c.name).collect();
    let list = match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    format!("unknown command `{name}`; the commands are {list} (see --help)")
}

/// Runs a command line (without the program's name); `Ok` carries the exit code, `Err` a
/// one-line message (exit 2).
pub fn run(args: impl IntoIterator<Item = OsString>) -> Result<i32, String> {
    let mut parser = lexopt::Parser::from_args(args);
    let name = match parser.next() {
        Ok(None) => return Err("no command given; try `passback --help`".into()),
        Ok(Some(Arg::Short('h') | Arg::Long("help"))) => return print(&usage()),
        Ok(Some(Arg::Short('V') | Arg::Long("version"))) => {
            return print(concat!("passback ", env!("CARGO_PKG_VERSION")));
        }
        Ok(Some(Arg::Value(name))) => name,
        Ok(Some(Arg::Long(flag))) => return Err(unknown_command(&format!("--{flag}"))),
        Ok(Some(Arg::Short(flag))) => return Err(unknown_command(&format!("-{flag}"))),
        Err(e) => return Err(e.to_string()),
    };
    if name == "help" {
        return help(&mut parser);
    }
    let command = command(&name)?;
    let Some(args) = Args::parse(command, &mut parser)? else {
        return print(&command.help());
    };
    (command.run)(&args).map_err(|e| args.blame_env(e))
}

/// `passback help [COMMAND]`.
fn help(parser: &mut lexopt::Parser) -> Result<i32, String> {
    let mut topic = None;
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Arg::Value(name) if topic.is_none() => topic = Some(command(&name)?),
            _ => {
                return Err(
                    "`help` takes at most one command, such as `passback help render`".into(),
                );
            }
        }
    }
    print(&topic.map_or_else(usage, Command::help))
}

fn print(text: &str) -> Result<i32, String> {
    write_out(text)?;
    Ok(0)
}
