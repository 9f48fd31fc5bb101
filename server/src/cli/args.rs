//! A command's arguments: its flags from the command line, then from the environment, and its
//! positional arguments, checked against the flags its usage lists.

use super::usage::Flag;
use super::{Command, shared};
use lexopt::Arg;
use std::ffi::{OsStr, OsString};

/// A command's parsed flags (the last of a repeated flag wins, except where [`Args::flag_all`]
/// reads them all) and positional arguments.
pub(super) struct Args {
    command: &'static Command,
    flags: Vec<(&'static str, OsString)>,
    pub(super) positional: Vec<OsString>,
    /// The flags that came from the environment, not the command line.
    from_env: Vec<&'static Flag>,
}

impl Args {
    /// `None` when the arguments ask for the command's help.
    pub(super) fn parse(
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
    pub(super) fn blame_env(&self, message: String) -> String {
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

    pub(super) fn flag_os(&self, name: &str) -> Option<&OsStr> {
        self.flags
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_os_str())
    }

    /// Every value of a repeatable flag, in the order given.
    pub(super) fn flag_all(&self, name: &str) -> Result<Vec<&str>, String> {
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

    pub(super) fn flag(&self, name: &str) -> Result<Option<&str>, String> {
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
    pub(super) fn number<T: std::str::FromStr>(
        &self,
        name: &str,
        what: &str,
    ) -> Result<Option<T>, String> {
        self.flag(name)?
            .map(|v| {
                v.parse::<T>()
                    .map_err(|_| format!("--{name} must be {what}, not `{v}`"))
            })
            .transpose()
    }

    /// An error naming the first positional argument, if any: "`cmd` takes {takes}, got `x`{then}".
    pub(super) fn no_positional(&self, takes: &str, then: &str) -> Result<(), String> {
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
    pub(super) fn input(&self) -> Result<(String, String), String> {
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
    use std::ffi::OsStr;

    /// `Args` for `passback COMMAND ARGS…` with the environment `env` (name, value pairs).
    fn args_with_env(command: &str, argv: &[&str], env: &[(&str, &str)]) -> Result<Args, String> {
        let command = crate::cli::command(OsStr::new(command))?;
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
