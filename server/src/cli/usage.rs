//! The help texts, made from the command table: `passback --help` lists every command's
//! synopsis and summary, `passback COMMAND --help` gives one command's synopsis, about, options
//! (each with its environment variable) and notes.

use super::{COMMANDS, Command};

/// What `passback COMMAND --help` prints below its title, in this order.
pub(super) struct Usage {
    /// The arguments after `passback COMMAND`, one line each (continuation lines are indented
    /// under the first argument).
    pub(super) synopsis: &'static [&'static str],
    /// Paragraphs between the synopsis and the options ("" for none).
    pub(super) about: &'static str,
    /// The flags the command accepts, as its help lists them.
    pub(super) flags: &'static [Flag],
    /// The column the flags' descriptions start at.
    pub(super) column: usize,
    /// A paragraph after the options ("" for none).
    pub(super) notes: &'static str,
}

/// A flag: `--name VALUE` and what it does (lines after the first are indented to the
/// description's column). An empty `value` makes it a switch, which takes none.
pub(super) struct Flag {
    pub(super) name: &'static str,
    pub(super) value: &'static str,
    pub(super) about: &'static str,
}

impl Flag {
    /// The environment variable that gives this flag when the command line does not.
    pub(super) fn env(&self) -> String {
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
pub(super) fn usage() -> String {
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
    pub(super) fn synopsis(&self) -> String {
        let lead = format!("  passback {}", self.name);
        let indent = format!("\n{}", " ".repeat(lead.chars().count() + 1));
        match self.usage.synopsis {
            [] => lead,
            lines => format!("{lead} {}", lines.join(&indent)),
        }
    }

    /// `passback NAME --help`.
    pub(super) fn help(&self) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{COMMANDS, unknown_command};

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
}
