//! The command line: one table of commands, from which `passback --help`, each
//! `passback COMMAND --help` and the flags each command accepts are all made, and the parsing
//! every command shares. Every mistake is one line on stderr and a non-zero exit.
//!
//! Adding a command is one row in [`COMMANDS`] plus its file, which holds its [`Usage`] and
//! what runs it.

mod answers;
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
mod validate;

use lexopt::Arg;
use shared::write_out;
use std::ffi::{OsStr, OsString};

/// Every command, in the order the usage lists them; `mcp` only in a build with the `mcp`
/// feature.
const COMMANDS: &[Command] = &[
    Command {
        name: "serve",
        summary: "run the HTTP service",
        usage: serve::USAGE,
        run: serve::run,
    },
    #[cfg(feature = "mcp")]
    Command {
        name: "mcp",
        summary: "serve the MCP tools for agents on standard input and output",
        usage: mcp::USAGE,
        run: mcp::run,
    },
    #[cfg(feature = "store")]
    Command {
        name: "keys",
        summary: "make, list and revoke the sender keys routing takes",
        usage: keys::USAGE,
        run: keys::run,
    },
    Command {
        name: "render",
        summary: "render a document; its diagnostics go to standard error",
        usage: render::USAGE,
        run: render::run,
    },
    Command {
        name: "validate",
        summary: "check a document's components",
        usage: validate::USAGE,
        run: validate::run,
    },
    Command {
        name: "answers",
        summary: "the copy-back Markdown export of a reader's responses",
        usage: answers::USAGE,
        run: answers::run,
    },
    Command {
        name: "schema",
        summary: "print the JSON Schema (2020-12) of every component",
        usage: schema::USAGE,
        run: schema::run,
    },
    Command {
        name: "bench",
        summary: "how fast your documents render, beside plain comrak",
        usage: bench::USAGE,
        run: bench::run,
    },
];

/// A command: its name, the line `passback --help` gives it (also the title of its own help),
/// the rest of its help, and what runs it.
struct Command {
    name: &'static str,
    summary: &'static str,
    usage: Usage,
    run: fn(&Args) -> Result<i32, String>,
}

/// What `passback COMMAND --help` prints below its title, in this order.
struct Usage {
    /// The arguments after `passback COMMAND`, one line each (continuation lines are indented
    /// under the first argument).
    synopsis: &'static [&'static str],
    /// Paragraphs between the synopsis and the options ("" for none).
    about: &'static str,
    /// The flags the command accepts, as its help lists them.
    flags: &'static [Flag],
    /// The column the flags' descriptions start at.
    column: usize,
    /// A paragraph after the options ("" for none).
    notes: &'static str,
}

/// A flag: `--name VALUE` and what it does (lines after the first are indented to the
/// description's column). An empty `value` makes it a switch, which takes none.
struct Flag {
    name: &'static str,
    value: &'static str,
    about: &'static str,
}

/// The lines of the top-level usage after the commands.
const USAGE_END: &str = "  passback --help | --version
  passback help [COMMAND]  or  passback COMMAND --help
                                    this text, or one command's

FILE defaults to standard input.
";

/// The column the top-level usage starts each command's summary at.
const SUMMARY_COLUMN: usize = 36;

/// `passback --help`: every command's synopsis and summary.
fn usage() -> String {
    let mut text = "passback — render PassbackAI decision documents\n\nUSAGE:\n".to_string();
    for command in COMMANDS {
        push_columns(
            &mut text,
            &command.synopsis(),
            SUMMARY_COLUMN,
            command.summary,
        );
    }
    text.push_str(USAGE_END);
    text
}

/// Appends `head`, then spaces up to `column` (or, when its last line reaches that far, a new
/// line indented to it), then `lines`, each line after the first indented to `column`.
fn push_columns(text: &mut String, head: &str, column: usize, lines: &str) {
    let width = head.lines().last().unwrap_or_default().chars().count();
    text.push_str(head);
    if width < column {
        text.push_str(&" ".repeat(column - width));
    } else {
        text.push('\n');
        text.push_str(&" ".repeat(column));
    }
    for (i, line) in lines.lines().enumerate() {
        if i > 0 {
            text.push_str(&" ".repeat(column));
        }
        text.push_str(line);
        text.push('\n');
    }
}

impl Command {
    /// `  passback NAME ARGS…`, continuation lines under the first argument, without a final
    /// newline.
    fn synopsis(&self) -> String {
        let lead = format!("  passback {}", self.name);
        let indent = format!("\n{}", " ".repeat(lead.chars().count() + 1));
        match self.usage.synopsis {
            [] => lead,
            lines => format!("{lead} {}", lines.join(&indent)),
        }
    }

    /// `passback NAME --help`.
    fn help(&self) -> String {
        let usage = &self.usage;
        let mut text = format!(
            "passback {} — {}\n\nUSAGE:\n{}\n",
            self.name,
            self.summary,
            self.synopsis()
        );
        if !usage.about.is_empty() {
            text.push('\n');
            text.push_str(usage.about);
        }
        if !usage.flags.is_empty() {
            text.push_str("\nOPTIONS:\n");
            for flag in usage.flags {
                let head = match flag.value {
                    "" => format!("  --{}", flag.name),
                    value => format!("  --{} {value}", flag.name),
                };
                push_columns(&mut text, &head, usage.column, flag.about);
            }
        }
        if !usage.notes.is_empty() {
            text.push('\n');
            text.push_str(usage.notes);
        }
        text
    }
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
    (command.run)(&args)
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

/// A command's parsed flags (the last of a repeated flag wins, except where [`Args::flag_all`]
/// reads them all) and positional arguments.
struct Args {
    command: &'static Command,
    flags: Vec<(&'static str, OsString)>,
    positional: Vec<OsString>,
}

impl Args {
    /// `None` when the arguments ask for the command's help.
    fn parse(
        command: &'static Command,
        parser: &mut lexopt::Parser,
    ) -> Result<Option<Self>, String> {
        let mut args = Args {
            command,
            flags: Vec::new(),
            positional: Vec::new(),
        };
        let name = command.name;
        let flags = command.usage.flags;
        while let Some(arg) = parser
            .next()
            .map_err(|e| format!("{e}; see `passback {name} --help`"))?
        {
            let unknown = match arg {
                Arg::Short('h') | Arg::Long("help") => return Ok(None),
                Arg::Value(value) => {
                    args.positional.push(value);
                    continue;
                }
                Arg::Short(flag) => format!("-{flag}"),
                Arg::Long(flag) => match flags.iter().find(|f| f.name == flag) {
                    Some(&Flag {
                        name: flag,
                        value: "",
                        ..
                    }) => {
                        args.flags.push((flag, OsString::new()));
                        continue;
                    }
                    Some(&Flag {
                        name: flag, value, ..
                    }) => {
                        let given = parser.value().map_err(|_| {
                            format!("--{flag} needs a value: --{flag} {value} (see `passback {name} --help`)")
                        })?;
                        args.flags.push((flag, given));
                        continue;
                    }
                    None => format!("--{flag}"),
                },
            };
            if flags.is_empty() {
                return Err(format!(
                    "unknown option {unknown}: `{name}` takes no options"
                ));
            }
            let list: Vec<String> = flags.iter().map(|f| format!("--{}", f.name)).collect();
            return Err(format!(
                "unknown option {unknown} for `{name}`; it takes {}",
                list.join(", ")
            ));
        }
        Ok(Some(args))
    }

    fn flag_os(&self, name: &str) -> Option<&OsStr> {
        self.flags
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_os_str())
    }

    /// Every value of a repeatable flag, in the order given.
    fn flag_all(&self, name: &str) -> Result<Vec<&str>, String> {
        self.flags
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, v)| {
                v.to_str().ok_or_else(|| {
                    format!(
                        "--{name} must be valid UTF-8, not `{}`",
                        v.to_string_lossy()
                    )
                })
            })
            .collect()
    }

    fn flag(&self, name: &str) -> Result<Option<&str>, String> {
        self.flag_os(name)
            .map(|v| {
                v.to_str().ok_or_else(|| {
                    format!(
                        "--{name} must be valid UTF-8, not `{}`",
                        v.to_string_lossy()
                    )
                })
            })
            .transpose()
    }

    /// The flag's value parsed as a `T`; the error says it must be `what`.
    fn number<T: std::str::FromStr>(&self, name: &str, what: &str) -> Result<Option<T>, String> {
        self.flag(name)?
            .map(|v| {
                v.parse::<T>()
                    .map_err(|_| format!("--{name} must be {what}, not `{v}`"))
            })
            .transpose()
    }

    /// An error naming the first positional argument, if any: "`cmd` takes {takes}, got `x`{then}".
    fn no_positional(&self, takes: &str, then: &str) -> Result<(), String> {
        match self.positional.first() {
            None => Ok(()),
            Some(extra) => Err(format!(
                "`{}` takes {takes}, got `{}`{then}",
                self.command.name,
                extra.to_string_lossy()
            )),
        }
    }

    /// The one FILE argument (standard input for none or `-`): its name and its text.
    fn input(&self) -> Result<(String, String), String> {
        match self.positional.as_slice() {
            [] => Ok(("<stdin>".into(), shared::read_input(None)?)),
            [path] if path == "-" => Ok(("<stdin>".into(), shared::read_input(None)?)),
            [path] => Ok((
                path.to_string_lossy().into_owned(),
                shared::read_input(Some(std::path::Path::new(path)))?,
            )),
            _ => Err(format!(
                "`{}` takes one FILE (or - for standard input)",
                self.command.name
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_help_that_names_it_and_its_flags() {
        for command in COMMANDS {
            let help = command.help();
            let name = command.name;
            assert!(help.starts_with(&format!("passback {name} — ")), "{help}");
            assert!(help.contains(&format!("\n  passback {name}")), "{help}");
            for flag in command.usage.flags {
                assert!(
                    help.contains(&format!("\n  --{} ", flag.name)),
                    "`{name} --help` leaves out --{}",
                    flag.name
                );
            }
        }
    }

    #[test]
    fn the_usage_lists_every_command_with_its_summary() {
        let usage = usage();
        for command in COMMANDS {
            assert!(
                usage.contains(&format!("\n{}", command.synopsis())),
                "{}",
                command.name
            );
            assert!(usage.contains(command.summary), "{}", command.name);
            assert!(
                unknown_command("x").contains(&format!(" {}", command.name)),
                "{}",
                command.name
            );
        }
    }

    /// A synopsis that leaves out a flag its options describe is how usage texts drift.
    #[test]
    fn every_flag_is_in_its_synopsis() {
        for command in COMMANDS {
            let synopsis = command.synopsis();
            for flag in command.usage.flags {
                let name = flag.name;
                assert!(
                    synopsis.contains(&format!("--{name} "))
                        || synopsis.contains(&format!("--{name}]")),
                    "the synopsis of `{}` leaves out --{name}",
                    command.name
                );
            }
        }
    }

    #[test]
    fn names_are_unique_and_help_fits_a_terminal() {
        for (i, command) in COMMANDS.iter().enumerate() {
            assert!(
                COMMANDS[..i].iter().all(|c| c.name != command.name),
                "{} twice",
                command.name
            );
            let flags = command.usage.flags;
            for (j, flag) in flags.iter().enumerate() {
                assert!(
                    flags[..j].iter().all(|f| f.name != flag.name),
                    "--{} twice",
                    flag.name
                );
            }
            for line in command.help().lines().chain(usage().lines()) {
                assert!(line.chars().count() <= 100, "too wide: {line:?}");
            }
        }
    }
}
