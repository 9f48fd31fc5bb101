//! Subcommands and their arguments. Every mistake is one line on stderr and a non-zero exit.

use passback_engine::{Format, Options, Surface};
use std::io::{Read, Write};

pub const USAGE: &str = "\
passback — render PassbackAI decision documents

USAGE:
  passback serve [--listen ADDR] [--max-body BYTES] [--header-timeout SECS] [--request-timeout SECS]
                 [--max-connections N] [--cache-entries N] [--cache-bytes BYTES] [--public-url URL]
                                    run the HTTP service (defaults: 127.0.0.1:8080, 1 MiB, 10 s, 30 s,
                                    1024 connections, 4096 entries, 64 MiB)
  passback render [FILE|-] [--surface page|routed|email] [--format fragment|page|json|text]
                  [--answers-action URL] [--respond-url URL] [--asset-base URL]
  passback validate [FILE|-]        print { ok, outcome, blocks, diagnostics }; exit 0 valid, 1 violating
  passback answers --doc FILE --responses FILE
                                    print the copy-back Markdown export of the responses
  passback schema                   print the JSON Schema of every component
  passback --help | --version

FILE defaults to standard input.
";

/// Runs a command line; `Ok` carries the exit code, `Err` a one-line message (exit 2).
pub fn run(args: &[String]) -> Result<i32, String> {
    let Some((command, rest)) = args.split_first() else {
        return Err("no command given; try `passback --help`".into());
    };
    match command.as_str() {
        "-h" | "--help" | "help" => {
            print!("{USAGE}");
            Ok(0)
        }
        "-V" | "--version" => {
            println!("passback {}", env!("CARGO_PKG_VERSION"));
            Ok(0)
        }
        "serve" => serve(rest),
        "render" => render(rest),
        "answers" => answers(rest),
        "validate" => validate(rest),
        "schema" => {
            no_more(rest, "schema")?;
            write_out(passback_engine::SCHEMA)?;
            Ok(0)
        }
        other => Err(format!(
            "unknown command `{other}`; the commands are serve, render, validate, answers and schema (see --help)"
        )),
    }
}

/// Parsed `--flag value` pairs and positional arguments.
struct Args<'a> {
    command: &'static str,
    flags: Vec<(&'a str, &'a str)>,
    positional: Vec<&'a str>,
}

impl<'a> Args<'a> {
    fn parse(command: &'static str, args: &'a [String], known: &[&str]) -> Result<Self, String> {
        let mut flags = Vec::new();
        let mut positional = Vec::new();
        let mut iter = args.iter();
        while let Some(arg) = iter.next() {
            if let Some(flag) = arg.strip_prefix("--") {
                let (name, inline) = match flag.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (flag, None),
                };
                if !known.contains(&name) {
                    if known.is_empty() {
                        return Err(format!(
                            "unknown option --{name}: `{command}` takes no options"
                        ));
                    }
                    let list: Vec<String> = known.iter().map(|k| format!("--{k}")).collect();
                    return Err(format!(
                        "unknown option --{name} for `{command}`; it takes {}",
                        list.join(", ")
                    ));
                }
                let value = match inline {
                    Some(v) => v,
                    None => iter
                        .next()
                        .map(String::as_str)
                        .ok_or_else(|| format!("--{name} needs a value"))?,
                };
                flags.push((name, value));
            } else if arg.len() > 1 && arg.starts_with('-') {
                return Err(format!("unknown option {arg} for `{command}`"));
            } else {
                positional.push(arg.as_str());
            }
        }
        Ok(Args {
            command,
            flags,
            positional,
        })
    }

    fn flag(&self, name: &str) -> Option<&'a str> {
        self.flags
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
    }

    fn input(&self) -> Result<(String, String), String> {
        match self.positional.as_slice() {
            [] | ["-"] => Ok(("<stdin>".into(), read_input(None)?)),
            [path] => Ok((path.to_string(), read_input(Some(path))?)),
            _ => Err(format!(
                "`{}` takes one FILE (or - for standard input)",
                self.command
            )),
        }
    }
}

fn no_more(args: &[String], command: &str) -> Result<(), String> {
    match args.first() {
        None => Ok(()),
        Some(a) => Err(format!("`{command}` takes no arguments, got `{a}`")),
    }
}

/// Reads a file or stdin as UTF-8, with a message that names the problem.
pub fn read_input(path: Option<&str>) -> Result<String, String> {
    let mut bytes = Vec::new();
    let name = path.unwrap_or("standard input");
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

fn render(args: &[String]) -> Result<i32, String> {
    let a = Args::parse(
        "render",
        args,
        &[
            "surface",
            "format",
            "answers-action",
            "respond-url",
            "asset-base",
        ],
    )?;
    let mut options = Options::default();
    if let Some(s) = a.flag("surface") {
        options =
            options
                .with_surface(Surface::parse(s).ok_or_else(|| {
                    format!("--surface must be page, routed or email, not `{s}`")
                })?);
    }
    if let Some(f) = a.flag("format") {
        options =
            options.with_format(Format::parse(f).ok_or_else(|| {
                format!("--format must be fragment, page, json or text, not `{f}`")
            })?);
    }
    if let Some(url) = a.flag("answers-action") {
        options = options.with_answers_action((!url.is_empty()).then(|| url.to_string()));
    }
    if let Some(url) = a.flag("respond-url") {
        if !passback_engine::is_respond_url(url) {
            return Err(format!(
                "--respond-url must be an absolute http:// or https:// address with a host and no spaces, not \"{url}\""
            ));
        }
        options = options.with_respond_url(Some(url.to_string()));
    }
    if let Some(base) = a.flag("asset-base") {
        options = options.with_asset_base(base);
    }
    let (name, src) = a.input()?;
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

fn validate(args: &[String]) -> Result<i32, String> {
    let a = Args::parse("validate", args, &[])?;
    let (_, src) = a.input()?;
    let v = passback_engine::validate(&src);
    let json =
        serde_json::to_string_pretty(&v).map_err(|e| format!("cannot encode the result: {e}"))?;
    write_out(&json)?;
    Ok(if v.ok { 0 } else { 1 })
}

fn answers(args: &[String]) -> Result<i32, String> {
    let a = Args::parse("answers", args, &["doc", "responses"])?;
    if let Some(extra) = a.positional.first() {
        return Err(format!(
            "`answers` takes no positional argument, got `{extra}`; use --doc and --responses"
        ));
    }
    let doc_path = a
        .flag("doc")
        .ok_or("`answers` needs --doc FILE (the document)")?;
    let responses_path = a
        .flag("responses")
        .ok_or("`answers` needs --responses FILE (JSON keyed by block id)")?;
    let src = read_input((doc_path != "-").then_some(doc_path))?;
    let text = read_input((responses_path != "-").then_some(responses_path))?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{responses_path} is not valid JSON: {e}"))?;
    let doc = passback_engine::Doc::parse(&src);
    let responses = passback_engine::answers_from_json(&doc, &json)
        .map_err(|e| format!("{responses_path} does not fit {doc_path}: {e}"))?;
    let export = passback_engine::export(&doc, &responses);
    for notice in &export.notices {
        eprintln!("passback: note: {notice}");
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
    a.flag(name)
        .map(|v| {
            v.parse::<T>()
                .map_err(|_| format!("--{name} must be {what}, not `{v}`"))
        })
        .transpose()
}

fn serve(args: &[String]) -> Result<i32, String> {
    let a = Args::parse(
        "serve",
        args,
        &[
            "listen",
            "max-body",
            "header-timeout",
            "request-timeout",
            "max-connections",
            "cache-entries",
            "cache-bytes",
            "public-url",
        ],
    )?;
    if let Some(extra) = a.positional.first() {
        return Err(format!(
            "`serve` takes no positional argument, got `{extra}`"
        ));
    }
    let mut config = passback_server::Config::default();
    if let Some(addr) = a.flag("listen") {
        let addr = addr.parse().map_err(|_| {
            format!("--listen must be an address such as 127.0.0.1:8080, not `{addr}`")
        })?;
        config = config.with_listen(addr);
    }
    if let Some(n) = number::<usize>(&a, "max-body", "a number of bytes")? {
        config = config.with_max_body(n);
    }
    if let Some(n) = number::<f64>(&a, "header-timeout", "a number of seconds")? {
        config = config.with_header_timeout(seconds(n, "header-timeout")?);
    }
    if let Some(n) = number::<f64>(&a, "request-timeout", "a number of seconds")? {
        config = config.with_request_timeout(seconds(n, "request-timeout")?);
    }
    if let Some(n) = number::<usize>(&a, "max-connections", "a whole number")? {
        if n == 0 {
            return Err("--max-connections must be at least 1".into());
        }
        config = config.with_max_connections(n);
    }
    let entries =
        number::<usize>(&a, "cache-entries", "a whole number")?.unwrap_or(config.cache.max_entries);
    let bytes =
        number::<usize>(&a, "cache-bytes", "a number of bytes")?.unwrap_or(config.cache.max_bytes);
    config = config.with_cache(passback_engine::CacheConfig::new(entries, bytes));
    if let Some(url) = a.flag("public-url") {
        config = config.with_public_url(Some(public_url(url)?));
    }

    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
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
        println!("passback: listening on http://{addr}");
        let _ = std::io::stdout().flush();
        passback_server::run(listener, config, passback_server::shutdown_signal()).await;
        Ok::<(), String>(())
    });
    // `run` has waited out the grace period; a render still running on the blocking pool
    // cannot be interrupted, and dropping the runtime would wait for it: exit without it.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    served?;
    Ok(0)
}

fn seconds(n: f64, name: &str) -> Result<std::time::Duration, String> {
    if n.is_finite() && n > 0.0 && n < 1e9 {
        Ok(std::time::Duration::from_secs_f64(n))
    } else {
        Err(format!("--{name} must be a positive number of seconds"))
    }
}
