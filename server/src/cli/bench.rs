//! `passback bench`: how fast documents render, beside plain comrak.

use super::Command;
use super::args::Args;
use super::shared::{read_input, write_out};
use super::usage::{Flag, Usage};
use passback_engine::Surface;
use std::io::Write;
use std::path::Path;

pub(super) const COMMAND: Command = Command {
    name: "bench",
    summary: "how fast your documents render, beside plain comrak",
    usage: USAGE,
    run,
};

const USAGE: Usage = Usage {
    synopsis: &["FILE… [--iterations N] [--surface page,routed,email] [--json] [--max-ratio R]"],
    about: "\
For each FILE and surface, times a cold render (the cache bypassed), plain comrak on the same
Markdown, a cache hit, validate, and an empty answers export, in this one process, and prints
each one's min, median and p99 per operation. The engine and comrak take turns in every
iteration, so a busy machine slows both alike: their ratio is the figure to track, more than
the times. Progress goes to standard error on long runs.
",
    column: 24,
    flags: &[
        Flag {
            name: "iterations",
            value: "N",
            about: "timed iterations per document and surface (default 100), after a tenth\n\
                    as many (1 to 10) untimed",
        },
        Flag {
            name: "surface",
            value: "LIST",
            about: "the surfaces to render for, separated by commas (default page)",
        },
        Flag {
            name: "json",
            value: "",
            about: "print JSON (described by schema/bench.schema.json) instead of a table",
        },
        Flag {
            name: "max-ratio",
            value: "R",
            about: "exit 1 when a document's median cold render takes more than R times\n\
                    plain comrak's median (for CI); the report is printed either way",
        },
    ],
    notes: "",
};

fn run(a: &Args) -> Result<i32, String> {
    if a.positional.is_empty() {
        return Err(
            "`bench` needs at least one FILE, such as `passback bench docs/plan.md`".into(),
        );
    }
    let iterations = a
        .number::<usize>("iterations", "a whole number")?
        .unwrap_or(100);
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
    let max_ratio = a.number::<f64>("max-ratio", "a number such as 1.5")?;
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
