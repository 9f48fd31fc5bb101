//! Subcommands and their arguments. Every mistake is one line on stderr and a non-zero exit.

use lexopt::Arg;
use passback_engine::{Format, Options, Surface};
use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::path::Path;

pub const USAGE: &str = "\
passback — render PassbackAI decision documents

USAGE:
  passback serve [--listen ADDR] [--max-body BYTES] [--header-timeout SECS] [--request-timeout SECS]
                 [--max-connections N] [--cache-entries N] [--cache-bytes BYTES] [--public-url URL]
                 [--store sqlite:PATH|postgres://…|off] [--retention TIME] [--max-responses N]
                 [--body-timeout SECS] [--max-connections-per-client N] [--max-renders N]
                 [--queue-timeout SECS] [--max-table-cells N] [--max-diagram-parts N]
                 [--max-output-bytes BYTES] [--hash-secret TEXT] [--metrics-listen ADDR]
                 [--route-limit N/min|N/h|off]
                                    run the HTTP service (defaults: 127.0.0.1:8080, 1 MiB, 10 s, 30 s,
                                    1024 connections, 4096 entries, 64 MiB, sqlite:passback.db, 30d,
                                    1000)
  passback mcp [--store sqlite:PATH|postgres://…|off] [--public-url URL] [--retention TIME]
                                    serve the MCP tools for agents on stdin/stdout (defaults:
                                    sqlite:passback.db, http://127.0.0.1:8080, 30d)
  passback render [FILE|-] [--surface page|routed|email] [--format fragment|page|json|text|eml]
                  [--answers-action URL] [--respond-url URL] [--asset-base URL] [--link-base URL]
  passback validate [FILE|-]        print { ok, outcome, blocks, diagnostics }; exit 0 valid, 1 violating
  passback answers --doc FILE --responses FILE
                                    print the copy-back Markdown export of the responses
  passback schema                   print the JSON Schema of every component
  passback bench FILE… [--iterations N] [--surface page,routed,email] [--json] [--max-ratio R]
                                    time each document's render beside plain comrak; exit 1
                                    when one's median ratio is over R
  passback --help | --version
  passback help [COMMAND]  or  passback COMMAND --help
                                    this text, or one command's

FILE defaults to standard input.
";

/// A command: its usage text, the flags it takes, each with a value (name, value's name; an
/// empty value's name for a switch, which takes none), and what runs it.
struct Command {
    name: &'static str,
    usage: &'static str,
    flags: &'static [(&'static str, &'static str)],
    run: fn(&Args) -> Result<i32, String>,
}

const SERVE: Command = Command {
    name: "serve",
    run: serve,
    usage: "\
passback serve — run the HTTP service

USAGE:
  passback serve [--listen ADDR] [--max-body BYTES] [--header-timeout SECS] [--request-timeout SECS]
                 [--max-connections N] [--cache-entries N] [--cache-bytes BYTES] [--public-url URL]
                 [--store sqlite:PATH|postgres://…|off] [--retention TIME] [--max-responses N]
                 [--route-limit N/min|N/h|off]

OPTIONS:
  --listen ADDR             address and port to listen on (default 127.0.0.1:8080; port 0 picks one)
  --max-body BYTES          largest request body (default 1048576, 1 MiB)
  --header-timeout SECS     time a client has to send its request headers (default 10)
  --request-timeout SECS    time one request may take, body and render included (default 30)
  --max-connections N       connections served at once; more get 503 (default 1024)
  --cache-entries N         rendered documents the cache keeps (default 4096)
  --cache-bytes BYTES       bytes the cache keeps (default 67108864, 64 MiB)
  --public-url URL          the server's address as mail clients and readers reach it: email
                            previews link diagrams as PNG images from it instead of inline SVG,
                            and review links of routed documents start with it
  --store SPEC              where routed documents are kept: sqlite:PATH (default
                            sqlite:passback.db, created with the first routed document),
                            postgres://USER@HOST:PORT/DATABASE (replicas may share it), or off
  --retention TIME          how long a routed document may live, and its tombstone after it is
                            deleted: seconds, or a number with s, m, h or d (default 30d)
  --max-responses N         responses one routed document takes at most (default 1000)
  --body-timeout SECS       time a client has to send a request's body (default 10; then 408)
  --max-connections-per-client N
                            connections one client address may hold (default 256)
  --max-renders N           renders, validations and exports run at once (default: the cores)
  --queue-timeout SECS      time a request waits for a render slot before a 503 with
                            Retry-After (default 5)
  --max-table-cells N       table cells one document may make, GFM's filled-in ones included
                            (default 250000; also at most its length in bytes plus 4096)
  --max-diagram-parts N     diagram nodes and edges with comment fields per document
                            (default 20000; also at most a quarter of its length plus 4096)
  --max-output-bytes BYTES  component markup per document (default 33554432, 32 MiB; also at
                            most 64 bytes per byte of the document plus 1 MiB)
  --hash-secret TEXT        the secret content hashes (ETags, /v1/render/{hash}) are keyed with;
                            also PASSBACK_HASH_SECRET. Replicas behind one address need the
                            same; without one, a random secret is drawn at start
  --metrics-listen ADDR     serve /metrics on this address only (e.g. 127.0.0.1:9090), not on
                            --listen
  --route-limit RATE        documents one client address may route, N/min or N/h: a burst of N,
                            then one per minute/N (hour/N); more get 429 (default off)
",
    flags: &[
        ("body-timeout", "SECS"),
        ("max-connections-per-client", "N"),
        ("max-renders", "N"),
        ("queue-timeout", "SECS"),
        ("max-table-cells", "N"),
        ("max-diagram-parts", "N"),
        ("max-output-bytes", "BYTES"),
        ("hash-secret", "TEXT"),
        ("metrics-listen", "ADDR"),
        ("listen", "ADDR"),
        ("max-body", "BYTES"),
        ("header-timeout", "SECS"),
        ("request-timeout", "SECS"),
        ("max-connections", "N"),
        ("cache-entries", "N"),
        ("cache-bytes", "BYTES"),
        ("public-url", "URL"),
        ("store", "SPEC"),
        ("retention", "TIME"),
        ("max-responses", "N"),
        ("route-limit", "RATE"),
    ],
};

const MCP: Command = Command {
    name: "mcp",
    run: mcp,
    usage: "\
passback mcp — serve the MCP tools for agents on standard input and output

USAGE:
  passback mcp [--store sqlite:PATH|postgres://…|off] [--public-url URL] [--retention TIME]

An agent (an MCP client) starts this command and speaks MCP over its standard input and output;
log lines go to standard error. The tools: route_document, list_responses, validate_document and
get_components_spec. Routed documents go to the store `passback serve` uses, which serves their
review links to readers: give both the same --store. (`passback serve` also answers the same
tools over streamable HTTP at /mcp.)

OPTIONS:
  --store SPEC          where routed documents are kept: sqlite:PATH (default sqlite:passback.db;
                        a file shared with `passback serve`), postgres://USER@HOST:PORT/DATABASE,
                        or off (route_document and list_responses then say how to turn it on)
  --public-url URL      the address of the `passback serve` readers open review links on
                        (default http://127.0.0.1:8080, where it listens by default)
  --retention TIME      how long a routed document may live: seconds, or a number with s, m, h or
                        d (default 30d); give the server's --retention
",
    flags: &[
        ("store", "SPEC"),
        ("public-url", "URL"),
        ("retention", "TIME"),
    ],
};

const RENDER: Command = Command {
    name: "render",
    run: render,
    usage: "\
passback render — render a document; its diagnostics go to standard error

USAGE:
  passback render [FILE|-] [--surface page|routed|email] [--format fragment|page|json|text|eml]
                  [--answers-action URL] [--respond-url URL] [--asset-base URL] [--link-base URL]

OPTIONS:
  --surface page|routed|email          page: forms, an inert video facade (default);
                                       routed: as page, videos load on click;
                                       email: a static preview, no scripts or forms
  --format fragment|page|json|text|eml the HTML fragment (default), a whole HTML page,
                                       { html, hash, blocks, diagnostics }, plain text, or
                                       (email) a MIME message ready to send: text and HTML,
                                       diagrams and thumbnails attached; no From/To/Date
  --answers-action URL                 where the form posts (default /v1/answers; empty: no
                                       form action, the script's \"Copy answers\" exports)
  --respond-url URL                    the email surface's \"Respond\" link (absolute http(s))
  --asset-base URL                     URL prefix of the stylesheet and script (default /assets)
  --link-base URL                      email: where the document is published; relative links
                                       are made absolute against it (without it, a link that
                                       cannot work in a mail is kept as its words)

FILE defaults to standard input.
",
    flags: &[
        ("surface", "page|routed|email"),
        ("format", "fragment|page|json|text|eml"),
        ("answers-action", "URL"),
        ("respond-url", "URL"),
        ("asset-base", "URL"),
        ("link-base", "URL"),
    ],
};

const VALIDATE: Command = Command {
    name: "validate",
    run: validate,
    usage: "\
passback validate — check a document's components

USAGE:
  passback validate [FILE|-]

Prints { ok, outcome, blocks, diagnostics } as JSON; exits 0 when the document is valid, 1 when
it violates the spec. FILE defaults to standard input.
",
    flags: &[],
};

const ANSWERS: Command = Command {
    name: "answers",
    run: answers,
    usage: "\
passback answers — the copy-back Markdown export of a reader's responses

USAGE:
  passback answers --doc FILE --responses FILE

OPTIONS:
  --doc FILE          the document (- for standard input)
  --responses FILE    the responses as JSON keyed by block id (b1, b2, …)
",
    flags: &[("doc", "FILE"), ("responses", "FILE")],
};

const SCHEMA: Command = Command {
    name: "schema",
    run: schema,
    usage: "\
passback schema — print the JSON Schema (2020-12) of every component

USAGE:
  passback schema
",
    flags: &[],
};

const BENCH: Command = Command {
    name: "bench",
    run: bench,
    usage: "\
passback bench — how fast your documents render, beside plain comrak

USAGE:
  passback bench FILE… [--iterations N] [--surface page,routed,email] [--json] [--max-ratio R]

For each FILE and surface, times a cold render (the cache bypassed), plain comrak on the same
Markdown, a cache hit, validate, and an empty answers export, in this one process, and prints
each one's min, median and p99 per operation. The engine and comrak take turns in every
iteration, so a busy machine slows both alike: their ratio is the figure to track, more than
the times. Progress goes to standard error on long runs.

OPTIONS:
  --iterations N        timed iterations per document and surface (default 100), after a tenth
                        as many (1 to 10) untimed
  --surface LIST        the surfaces to render for, separated by commas (default page)
  --json                print JSON (described by schema/bench.schema.json) instead of a table
  --max-ratio R         exit 1 when a document's median cold render takes more than R times
                        plain comrak's median (for CI); the report is printed either way
",
    flags: &[
        ("iterations", "N"),
        ("surface", "LIST"),
        ("json", ""),
        ("max-ratio", "R"),
    ],
};

const COMMANDS: [&Command; 7] = [&SERVE, &MCP, &RENDER, &VALIDATE, &ANSWERS, &SCHEMA, &BENCH];

fn command(name: &OsStr) -> Result<&'static Command, String> {
    COMMANDS
        .into_iter()
        .find(|c| name == c.name)
        .ok_or_else(|| unknown_command(&name.to_string_lossy()))
}

fn unknown_command(name: &str) -> String {
    format!(
        "unknown command `{name}`; the commands are serve, mcp, render, validate, answers, schema and bench (see --help)"
    )
}

/// Runs a command line (without the program's name); `Ok` carries the exit code, `Err` a
/// one-line message (exit 2).
pub fn run(args: impl IntoIterator<Item = OsString>) -> Result<i32, String> {
    let mut parser = lexopt::Parser::from_args(args);
    let name = match parser.next() {
        Ok(None) => return Err("no command given; try `passback --help`".into()),
        Ok(Some(Arg::Short('h') | Arg::Long("help"))) => return usage(USAGE),
        Ok(Some(Arg::Short('V') | Arg::Long("version"))) => {
            write_out(concat!("passback ", env!("CARGO_PKG_VERSION")))?;
            return Ok(0);
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
        return usage(command.usage);
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
    usage(topic.map_or(USAGE, |c| c.usage))
}

fn usage(text: &str) -> Result<i32, String> {
    write_out(text)?;
    Ok(0)
}

/// A command's parsed flags (the last of a repeated flag wins) and positional arguments.
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
                Arg::Long(flag) => match command.flags.iter().find(|(f, _)| *f == flag) {
                    Some(&(flag, "")) => {
                        args.flags.push((flag, OsString::new()));
                        continue;
                    }
                    Some(&(flag, value)) => {
                        let given = parser.value().map_err(|_| {
                            format!("--{flag} needs a value: --{flag} {value} (see `passback {name} --help`)")
                        })?;
                        args.flags.push((flag, given));
                        continue;
                    }
                    None => format!("--{flag}"),
                },
            };
            if command.flags.is_empty() {
                return Err(format!(
                    "unknown option {unknown}: `{name}` takes no options"
                ));
            }
            let list: Vec<String> = command
                .flags
                .iter()
                .map(|(f, _)| format!("--{f}"))
                .collect();
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

    fn input(&self) -> Result<(String, String), String> {
        match self.positional.as_slice() {
            [] => Ok(("<stdin>".into(), read_input(None)?)),
            [path] if path == "-" => Ok(("<stdin>".into(), read_input(None)?)),
            [path] => Ok((
                path.to_string_lossy().into_owned(),
                read_input(Some(Path::new(path)))?,
            )),
            _ => Err(format!(
                "`{}` takes one FILE (or - for standard input)",
                self.command.name
            )),
        }
    }
}

/// Reads a file or stdin as UTF-8, with a message that names the problem.
fn read_input(path: Option<&Path>) -> Result<String, String> {
    let mut bytes = Vec::new();
    let name = path.map_or("standard input".into(), |p| p.display().to_string());
    match path {
        None => std::io::stdin().read_to_end(&mut bytes).map(|_| ()),
        Some(p) => std::fs::File::open(p)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map(|_| ()),
    }
    .map_err(|e| format!("cannot read {name}: {}", io_reason(&e)))?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{name} is not valid UTF-8 (bad byte at offset {}); save it as UTF-8",
            e.utf8_error().valid_up_to()
        )
    })
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ if e.raw_os_error() == Some(21) => "it is a directory".into(),
        _ => e.to_string(),
    }
}

fn write_out(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| {
            if text.ends_with('\n') {
                Ok(())
            } else {
                out.write_all(b"\n")
            }
        })
        .and_then(|_| out.flush())
        .or_else(|e| {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                Ok(())
            } else {
                Err(format!("cannot write output: {e}"))
            }
        })
}

fn render(a: &Args) -> Result<i32, String> {
    let mut options = Options::default();
    if let Some(s) = a.flag("surface")? {
        options =
            options
                .with_surface(Surface::parse(s).ok_or_else(|| {
                    format!("--surface must be page, routed or email, not `{s}`")
                })?);
    }
    let eml = a.flag("format")? == Some("eml");
    if let Some(f) = a.flag("format")?.filter(|_| !eml) {
        options = options.with_format(Format::parse(f).ok_or_else(|| {
            format!("--format must be fragment, page, json, text or eml, not `{f}`")
        })?);
    }
    if eml && !options.surface.is_email() {
        return Err(
            "--format eml is a mail message: add --surface email (the other surfaces are web pages)"
                .into(),
        );
    }
    if let Some(url) = a.flag("link-base")? {
        if !passback_engine::is_respond_url(url) {
            return Err(format!(
                "--link-base must be an absolute http:// or https:// address with a host and no spaces, such as https://docs.example/decisions/ (not \"{url}\")"
            ));
        }
        options = options.with_link_base_url(Some(url.to_string()));
    }
    if let Some(url) = a.flag("answers-action")? {
        options = options.with_answers_action((!url.is_empty()).then(|| url.to_string()));
    }
    if let Some(url) = a.flag("respond-url")? {
        if !passback_engine::is_respond_url(url) {
            return Err(format!(
                "--respond-url must be an absolute http:// or https:// address with a host and no spaces, not \"{url}\""
            ));
        }
        options = options.with_respond_url(Some(url.to_string()));
    }
    if let Some(base) = a.flag("asset-base")? {
        options = options.with_asset_base(base);
    }
    let (name, src) = a.input()?;
    if eml {
        let message = passback_server::eml::message(&src, &options, passback_server::eml::draw)?;
        for d in &message.diagnostics {
            eprintln!(
                "{}",
                d.compiler_line(&name, d.line, d.column, d.severity.name())
            );
        }
        write_out(&String::from_utf8_lossy(&message.bytes))?;
        return Ok(0);
    }
    let rendered = passback_engine::render(&src, &options);
    if options.format != Format::Json {
        for d in &rendered.diagnostics {
            let severity = d.severity.name();
            eprintln!("{}", d.compiler_line(&name, d.line, d.column, severity));
        }
    }
    write_out(rendered.body())?;
    Ok(0)
}

fn bench(a: &Args) -> Result<i32, String> {
    if a.positional.is_empty() {
        return Err(
            "`bench` needs at least one FILE, such as `passback bench docs/plan.md`".into(),
        );
    }
    let iterations = number::<usize>(a, "iterations", "a whole number")?.unwrap_or(100);
    if iterations == 0 {
        return Err("--iterations must be at least 1".into());
    }
    let surfaces = match a.flag("surface")? {
        None => vec![Surface::Page],
        Some(list) => list
            .split(',')
            .map(|s| {
                Surface::parse(s.trim()).ok_or_else(|| {
                    format!("--surface takes page, routed or email, separated by commas, not `{s}`")
                })
            })
            .collect::<Result<Vec<_>, _>>()?,
    };
    let max_ratio = number::<f64>(a, "max-ratio", "a number such as 1.5")?;
    if max_ratio.is_some_and(|r| !(r.is_finite() && r > 0.0)) {
        return Err("--max-ratio must be a positive number such as 1.5".into());
    }
    let as_json = a.flag_os("json").is_some();
    // Every file is read before any is timed: a typo fails at once, not after a long run.
    let mut documents = Vec::new();
    for path in &a.positional {
        let name = path.to_string_lossy().into_owned();
        let src = if path == "-" {
            read_input(None)?
        } else {
            read_input(Some(Path::new(path)))?
        };
        documents.push((name, src));
    }
    let plan = passback_server::bench::Plan {
        iterations,
        surfaces,
    };
    // As the mdBook preprocessor does: both sides render on this thread, whose heap glibc
    // would otherwise hand back and fault in again around every render.
    passback_engine::raise_heap_trim_threshold();
    let started = std::time::Instant::now();
    let mut last_report = started;
    let mut results = Vec::new();
    for (name, src) in &documents {
        let mut progress = |surface: Surface, done: usize, total: usize| {
            let now = std::time::Instant::now();
            // Only long runs report, once a second.
            if now - last_report >= std::time::Duration::from_secs(1) {
                last_report = now;
                // Progress only: a closed standard error must not stop the run.
                let _ = writeln!(
                    std::io::stderr(),
                    "passback bench: {name} ({}): {done}/{total} iterations",
                    surface.name()
                );
            }
        };
        results.extend(passback_server::bench::measure(
            name,
            src,
            &plan,
            &mut progress,
        ));
    }
    if as_json {
        let report = passback_server::bench::json(&results, &plan, max_ratio);
        let text = serde_json::to_string_pretty(&report)
            .map_err(|e| format!("cannot encode the report: {e}"))?;
        write_out(&text)?;
    } else {
        write_out(&passback_server::bench::table(&results, &plan, max_ratio))?;
    }
    let mut over = false;
    for r in &results {
        if let Some(max) = max_ratio.filter(|&m| r.ratio() > m) {
            over = true;
            eprintln!(
                "passback: {} ({}): the median cold render takes {:.2}× plain comrak's, over --max-ratio {max}",
                r.file,
                r.surface.name(),
                r.ratio()
            );
        }
    }
    Ok(if over { 1 } else { 0 })
}

fn schema(a: &Args) -> Result<i32, String> {
    a.no_positional("no arguments", "")?;
    write_out(passback_engine::SCHEMA)?;
    Ok(0)
}

fn validate(a: &Args) -> Result<i32, String> {
    let (_, src) = a.input()?;
    let v = passback_engine::validate(&src);
    let json =
        serde_json::to_string_pretty(&v).map_err(|e| format!("cannot encode the result: {e}"))?;
    write_out(&json)?;
    Ok(if v.ok { 0 } else { 1 })
}

fn answers(a: &Args) -> Result<i32, String> {
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

/// `--public-url`: where mail clients fetch this server's diagram images, so an absolute
/// http(s) URL with a host, and optionally a path (no query or fragment: the image paths are
/// appended to it). Returned without a trailing `/`.
fn public_url(url: &str) -> Result<String, String> {
    let fail = |why: &str| {
        Err(format!(
            "--public-url {why}: give the server's address as mail clients reach it, such as \
             https://render.example.com (not `{url}`)"
        ))
    };
    // The same host rule as the email previews' CSP, which must be able to name the origin.
    let Some(host) = passback_server::web_host(url) else {
        return fail("must start with https:// or http://");
    };
    if !passback_server::plain_host(host) {
        return fail("needs a host name (letters, digits, dots, hyphens and a :port)");
    }
    if url.contains(['?', '#']) {
        return fail("cannot hold a query or fragment");
    }
    if url
        .bytes()
        .any(|b| b <= b' ' || matches!(b, b'"' | b'\'' | b'<' | b'>' | b'\\' | b'`'))
    {
        return fail("cannot hold spaces, quotes or angle brackets");
    }
    Ok(url.trim_end_matches('/').to_string())
}

fn number<T: std::str::FromStr>(a: &Args, name: &str, what: &str) -> Result<Option<T>, String> {
    a.flag(name)?
        .map(|v| {
            v.parse::<T>()
                .map_err(|_| format!("--{name} must be {what}, not `{v}`"))
        })
        .transpose()
}

fn serve(a: &Args) -> Result<i32, String> {
    a.no_positional("no positional argument", "")?;
    let mut config = passback_server::Config::default();
    if let Some(addr) = a.flag("listen")? {
        let addr = addr.parse().map_err(|_| {
            format!("--listen must be an address such as 127.0.0.1:8080, not `{addr}`")
        })?;
        config = config.with_listen(addr);
    }
    if let Some(n) = number::<usize>(a, "max-body", "a number of bytes")? {
        config = config.with_max_body(n);
    }
    if let Some(n) = number::<f64>(a, "header-timeout", "a number of seconds")? {
        config = config.with_header_timeout(seconds(n, "header-timeout")?);
    }
    if let Some(n) = number::<f64>(a, "request-timeout", "a number of seconds")? {
        config = config.with_request_timeout(seconds(n, "request-timeout")?);
    }
    if let Some(n) = number::<usize>(a, "max-connections", "a whole number")? {
        if n == 0 {
            return Err("--max-connections must be at least 1".into());
        }
        config = config.with_max_connections(n);
    }
    let entries =
        number::<usize>(a, "cache-entries", "a whole number")?.unwrap_or(config.cache.max_entries);
    let bytes =
        number::<usize>(a, "cache-bytes", "a number of bytes")?.unwrap_or(config.cache.max_bytes);
    config = config.with_cache(passback_engine::CacheConfig::new(entries, bytes));
    if let Some(url) = a.flag("public-url")? {
        config = config.with_public_url(Some(public_url(url)?));
    }
    let store = a.flag("store")?.unwrap_or("sqlite:passback.db");
    config = config.with_store(passback_server::store::StoreConfig::parse(store)?);
    if let Some(time) = a.flag("retention")? {
        config = config.with_retention(retention(time)?);
    }
    if let Some(n) = number::<u64>(a, "max-responses", "a whole number")? {
        if n == 0 {
            return Err("--max-responses must be at least 1".into());
        }
        config = config.with_max_responses(n);
    }
    if let Some(rate) = a.flag("route-limit")? {
        config = config.with_route_limit(passback_server::limit::parse_route_limit(rate)?);
    }

    if let Some(n) = number::<f64>(a, "body-timeout", "a number of seconds")? {
        config = config.with_body_timeout(seconds(n, "body-timeout")?);
    }
    if let Some(n) = number::<usize>(a, "max-connections-per-client", "a whole number")? {
        if n == 0 {
            return Err("--max-connections-per-client must be at least 1".into());
        }
        config = config.with_max_connections_per_client(n);
    }
    if let Some(n) = number::<usize>(a, "max-renders", "a whole number")? {
        if n == 0 {
            return Err("--max-renders must be at least 1".into());
        }
        config = config.with_max_renders(n);
    }
    if let Some(n) = number::<f64>(a, "queue-timeout", "a number of seconds")? {
        config = config.with_queue_timeout(seconds(n, "queue-timeout")?);
    }
    let caps = config.limits;
    config = config.with_limits(passback_engine::Limits::new(
        number::<usize>(a, "max-table-cells", "a whole number")?.unwrap_or(caps.table_cells),
        number::<usize>(a, "max-diagram-parts", "a whole number")?.unwrap_or(caps.diagram_parts),
        number::<usize>(a, "max-output-bytes", "a number of bytes")?.unwrap_or(caps.output_bytes),
    ));
    let secret = match a.flag("hash-secret")? {
        Some(s) => Some(s.to_string()),
        None => std::env::var("PASSBACK_HASH_SECRET").ok(),
    };
    if let Some(secret) = secret {
        if secret.is_empty() {
            return Err("--hash-secret (or PASSBACK_HASH_SECRET) must not be empty".into());
        }
        config = config.with_hash_secret(Some(passback_server::hash_secret_from(&secret)));
    }
    if let Some(addr) = a.flag("metrics-listen")? {
        let addr = addr.parse().map_err(|_| {
            format!("--metrics-listen must be an address such as 127.0.0.1:9090, not `{addr}`")
        })?;
        config = config.with_metrics_listen(Some(addr));
    }

    // The log never holds up a request: a full queue drops lines and counts them.
    tracing_subscriber::fmt()
        .with_writer(passback_server::log::stderr())
        .with_target(false)
        .init();
    // Renders are CPU-bound: more blocking threads than cores only queue inside the kernel
    // instead of in tokio, and every extra thread can bring the allocator another arena.
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(cores * 2)
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let served = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(config.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", config.listen))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("cannot read the bound address: {e}"))?;
        let metrics = match config.metrics_listen {
            Some(at) => Some(
                tokio::net::TcpListener::bind(at)
                    .await
                    .map_err(|e| format!("cannot listen on --metrics-listen {at}: {e}"))?,
            ),
            None => None,
        };
        let described = config.store.describe();
        let state = prepared_state(config).await?;
        let metrics_at = metrics.as_ref().and_then(|m| m.local_addr().ok());
        if let Some(metrics) = metrics {
            tokio::spawn(passback_server::serve_metrics(
                metrics,
                state.clone(),
                passback_server::shutdown_signal(),
            ));
        }
        tracing::info!(store = %described, "routed documents");
        println!("passback: listening on http://{addr}");
        if let Some(at) = metrics_at {
            println!("passback: metrics on http://{at}/metrics");
        }
        let _ = std::io::stdout().flush();
        passback_server::serve(listener, state, passback_server::shutdown_signal()).await;
        Ok::<(), String>(())
    });
    // `run` has waited out the grace period; a render still running on the blocking pool
    // cannot be interrupted, and dropping the runtime would wait for it: exit without it.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    served?;
    Ok(0)
}

/// The server's state, its store ready: a database that cannot be reached, or whose schema is
/// newer than this binary knows, stops the start here, naming the flag.
async fn prepared_state(
    config: passback_server::Config,
) -> Result<std::sync::Arc<passback_server::AppState>, String> {
    let described = config.store.describe();
    let state = std::sync::Arc::new(passback_server::AppState::new(config));
    if let Some(routing) = &state.routing {
        routing
            .store
            .prepare()
            .await
            .map_err(|e| format!("--store {described}: {e}"))?;
    }
    Ok(state)
}

fn mcp(a: &Args) -> Result<i32, String> {
    a.no_positional("no positional argument", "")?;
    let store = a.flag("store")?.unwrap_or("sqlite:passback.db");
    let mut config = passback_server::Config::default()
        .with_store(passback_server::store::StoreConfig::parse(store)?);
    if let Some(url) = a.flag("public-url")? {
        config = config.with_public_url(Some(public_url(url)?));
    }
    if let Some(time) = a.flag("retention")? {
        config = config.with_retention(retention(time)?);
    }
    // Standard output is the protocol's: the log goes to standard error, warnings only.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_max_level(tracing::Level::WARN)
        .init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let served = runtime.block_on(async move {
        let state = prepared_state(config).await?;
        passback_server::mcp::stdio(state, passback_server::shutdown_signal()).await
    });
    // Standard input's reader cannot be interrupted: exit without waiting for it.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    served?;
    Ok(0)
}

/// `--retention`: seconds, or a whole number with `s`, `m`, `h` or `d`.
fn retention(text: &str) -> Result<std::time::Duration, String> {
    let (digits, unit) = match text.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&text[..i], c),
        _ => (text, 's'),
    };
    let scale = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3600,
        'd' => 86_400,
        _ => 0,
    };
    digits
        .parse::<u64>()
        .ok()
        .filter(|&n| n > 0 && scale > 0)
        .and_then(|n| n.checked_mul(scale))
        .filter(|&s| s < 1 << 40)
        .map(std::time::Duration::from_secs)
        .ok_or_else(|| {
            format!(
                "--retention must be a time such as 30d, 12h, 90m or 3600 (seconds), not `{text}`"
            )
        })
}

fn seconds(n: f64, name: &str) -> Result<std::time::Duration, String> {
    if n.is_finite() && n > 0.0 && n < 1e9 {
        Ok(std::time::Duration::from_secs_f64(n))
    } else {
        Err(format!("--{name} must be a positive number of seconds"))
    }
}
