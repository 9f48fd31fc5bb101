//! The command line: one table of commands, from which `passback --help`, each
//! `passback COMMAND --help` and the flags each command accepts are all made, and the parsing
//! every command shares. Every mistake is one line on stderr and a non-zero exit.
//!
//! Adding a command is one row in [`COMMANDS`] plus its file, which holds its [`Usage`] and
//! what runs it.
//!
//! Every flag may also come from the environment: `--max-body` is `PASSBACK_MAX_BODY`, a switch
//! such as `--require-keys` is on for `PASSBACK_REQUIRE_KEYS=1` (or `true`, `yes`). The command
//! line wins over the environment; an empty variable counts as unset.

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

impl Flag {
    /// The environment variable that gives this flag when the command line does not.
    fn env(&self) -> String {
        format!("PASSBACK_{}", self.name.to_uppercase().replace('-', "_"))
    }

    /// `about`, with the environment variable after its last line, or on a line of its own
    /// when that would make the line too wide.
    fn about_with_env(&self, column: usize) -> String {
        let env = format!("[env {}]", self.env());
        let last = self
            .about
            .lines()
            .last()
            .unwrap_or_default()
            .chars()
            .count();
        if column + last + 1 + env.chars().count() <= HELP_WIDTH {
            format!("{} {env}", self.about)
        } else {
            format!("{}\n{env}", self.about)
        }
    }
}

/// The widest a help line may be.
const HELP_WIDTH: usize = 100;

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
                push_columns(
                    &mut text,
                    &head,
                    usage.column,
                    &flag.about_with_env(usage.column),
                );
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

/// A command's parsed flags (the last of a repeated flag wins, except where [`Args::flag_all`]
/// reads them all) and positional arguments.
struct Args {
    command: &'static Command,
    flags: Vec<(&'static str, OsString)>,
    positional: Vec<OsString>,
    /// The flags that came from the environment, not the command line.
    from_env: Vec<&'static Flag>,
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
            from_env: Vec::new(),
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
        args.read_env(|name| std::env::var_os(name))?;
        Ok(Some(args))
    }

    /// Adds the flags the command line left out that the environment gives (`env` reads one
    /// variable).
    fn read_env(&mut self, env: impl Fn(&str) -> Option<OsString>) -> Result<(), String> {
        for flag in self.command.usage.flags {
            if self.flags.iter().any(|(n, _)| *n == flag.name) {
                continue;
            }
            let name = flag.env();
            let Some(value) = env(&name).filter(|v| !v.is_empty()) else {
                continue;
            };
            if flag.value.is_empty() {
                match value.to_str().map(str::to_ascii_lowercase).as_deref() {
                    Some("1" | "true" | "yes") => {}
                    Some("0" | "false" | "no") => continue,
                    _ => {
                        return Err(format!(
                            "{name} turns on --{} with 1, true or yes, or leaves it off with 0, false or no; not `{}`",
                            flag.name,
                            value.to_string_lossy()
                        ));
                    }
                }
                self.flags.push((flag.name, OsString::new()));
            } else {
                self.flags.push((flag.name, value));
            }
            self.from_env.push(flag);
        }
        Ok(())
    }

    /// `message`, saying which environment variable gave the flag it names, if one did.
    fn blame_env(&self, message: String) -> String {
        let from: Vec<String> = self
            .from_env
            .iter()
            .filter(|f| {
                let named = format!("--{}", f.name);
                message.match_indices(&named).any(|(at, _)| {
                    !message[at + named.len()..]
                        .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-')
                })
            })
            .map(|f| f.env())
            .collect();
        if from.is_empty() {
            message
        } else {
            format!("{message} (from the environment: {})", from.join(", "))
        }
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
                assert!(line.chars().count() <= HELP_WIDTH, "too wide: {line:?}");
            }
        }
    }

    /// The variables the server reads for other purposes, which no flag's may shadow.
    const OTHER_VARIABLES: &[&str] = &[
        "PASSBACK_FONT",
        "PASSBACK_SWEEP_EVERY_MS",
        "PASSBACK_WEBHOOK_RETRY_BASE_MS",
        "PASSBACK_WEBHOOK_TIMEOUT_MS",
        "PASSBACK_TEST_POSTGRES",
        "PASSBACK_BIN",
        "PASSBACK_BUILD_COMMIT",
        "PASSBACK_BUILD_RUSTC",
    ];

    #[test]
    fn every_flag_has_its_own_environment_variable_named_in_its_help() {
        for command in COMMANDS {
            let help = command.help();
            let flags = command.usage.flags;
            for (j, flag) in flags.iter().enumerate() {
                let env = flag.env();
                assert!(env.starts_with("PASSBACK_") && env.len() > 9, "{env}");
                assert!(
                    env[9..]
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'),
                    "{env}"
                );
                assert!(
                    flags[..j].iter().all(|f| f.env() != env),
                    "{env} twice in `{}`",
                    command.name
                );
                assert!(!OTHER_VARIABLES.contains(&env.as_str()), "{env} is taken");
                assert!(
                    help.contains(&format!("[env {env}]")),
                    "`{} --help` leaves out {env}",
                    command.name
                );
            }
        }
    }

    /// `Args` for `passback COMMAND ARGS…` with the environment `env` (name, value pairs).
    fn args_with_env(command: &str, argv: &[&str], env: &[(&str, &str)]) -> Result<Args, String> {
        let command = super::command(OsStr::new(command))?;
        let mut parser = lexopt::Parser::from_args(argv.iter().map(OsString::from));
        let mut args = Args::parse(command, &mut parser)?.expect("not --help");
        // `parse` read the real environment; start over from the command line alone.
        let given: Vec<_> = args
            .flags
            .iter()
            .filter(|(n, _)| !args.from_env.iter().any(|f| f.name == *n))
            .cloned()
            .collect();
        args.flags = given;
        args.from_env.clear();
        args.read_env(|name| {
            env.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| OsString::from(v))
        })?;
        Ok(args)
    }

    #[test]
    fn the_environment_gives_the_flags_the_command_line_leaves_out() {
        let a = args_with_env(
            "serve",
            &["--max-body", "10"],
            &[
                ("PASSBACK_MAX_BODY", "20"),
                ("PASSBACK_LISTEN", "127.0.0.1:9"),
                ("PASSBACK_HEADER_TIMEOUT", ""),
                ("PASSBACK_METRICS_LISTEN", "127.0.0.1:10"),
            ],
        )
        .unwrap();
        assert_eq!(
            a.flag("max-body").unwrap(),
            Some("10"),
            "the command line wins"
        );
        assert_eq!(a.flag("listen").unwrap(), Some("127.0.0.1:9"));
        assert_eq!(a.flag("header-timeout").unwrap(), None, "empty is unset");
        let blamed = a.blame_env("--listen must be an address".into());
        assert!(
            blamed.ends_with("(from the environment: PASSBACK_LISTEN)"),
            "{blamed}"
        );
        let not = a.blame_env("--max-body must be a number".into());
        assert!(!not.contains("environment"), "{not}");
    }

    #[cfg(feature = "store")]
    #[test]
    fn switches_from_the_environment_take_yes_or_no() {
        for (value, on) in [
            ("1", true),
            ("true", true),
            ("YES", true),
            ("0", false),
            ("no", false),
        ] {
            let a = args_with_env("serve", &[], &[("PASSBACK_REQUIRE_KEYS", value)]).unwrap();
            assert_eq!(a.flag_os("require-keys").is_some(), on, "{value}");
        }
        let Err(e) = args_with_env("serve", &[], &[("PASSBACK_REQUIRE_KEYS", "maybe")]) else {
            panic!("`maybe` taken for a switch");
        };
        assert!(
            e.contains("PASSBACK_REQUIRE_KEYS") && e.contains("--require-keys"),
            "{e}"
        );
    }
}
