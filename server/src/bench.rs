//! `passback bench`: how fast this build renders a user's own documents, beside plain comrak on
//! the same Markdown in the same process.
//!
//! For each document and surface, every iteration times a cold render (no cache), plain comrak,
//! a cache hit, a validation and an empty answers export, one after the other: the engine and
//! comrak alternate within every iteration (engine first on even iterations, comrak first on
//! odd ones), so a busy machine slows both sides alike and their ratio holds where the times
//! themselves drift. The JSON form is described by `schema/bench.schema.json`.

use passback_engine::{CacheConfig, Doc, Engine, Options, Responses, Surface};
use serde_json::{Value, json};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// What to measure and how often.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Timed iterations per document and surface.
    pub iterations: usize,
    pub surfaces: Vec<Surface>,
}

/// The min / median / p99 of one measure, in nanoseconds per operation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub min: u64,
    pub median: u64,
    pub p99: u64,
}

impl Summary {
    /// `samples` sorted in place; p99 by nearest rank (the largest of up to 100 samples).
    fn of(samples: &mut [u64]) -> Summary {
        samples.sort_unstable();
        let n = samples.len();
        let rank = (n * 99).div_ceil(100).max(1);
        Summary {
            min: samples[0],
            median: samples[n / 2],
            p99: samples[rank - 1],
        }
    }

    fn json(self) -> Value {
        json!({ "min_ns": self.min, "median_ns": self.median, "p99_ns": self.p99 })
    }
}

/// The figures of one document on one surface.
#[derive(Debug, Clone)]
pub struct Figures {
    pub file: String,
    pub bytes: usize,
    pub surface: Surface,
    pub cold_render: Summary,
    pub plain_comrak: Summary,
    pub cache_hit: Summary,
    pub validate: Summary,
    pub empty_export: Summary,
}

impl Figures {
    /// The median cold render over plain comrak's median.
    pub fn ratio(&self) -> f64 {
        self.cold_render.median as f64 / self.plain_comrak.median.max(1) as f64
    }

    /// The measures in the order the table and the JSON give them.
    fn measures(&self) -> [(&'static str, &'static str, Summary); 5] {
        [
            ("cold_render", "cold render", self.cold_render),
            ("plain_comrak", "plain comrak", self.plain_comrak),
            ("cache_hit", "cache hit", self.cache_hit),
            ("validate", "validate", self.validate),
            ("empty_export", "empty export", self.empty_export),
        ]
    }
}

/// Warm-up iterations before the timed ones: a tenth, at least 1 and at most 10.
pub fn warmup(iterations: usize) -> usize {
    (iterations / 10).clamp(1, 10)
}

/// Measures `src` (named `file`) on every surface of `plan`; `progress` is called after each
/// iteration with (done, total) for this document and surface.
pub fn measure(
    file: &str,
    src: &str,
    plan: &Plan,
    progress: &mut dyn FnMut(Surface, usize, usize),
) -> Vec<Figures> {
    let comrak_options = passback_engine::markdown::comrak_options(false);
    let n = plan.iterations.max(1);
    let mut results = Vec::new();
    for &surface in &plan.surfaces {
        let options = Options::default().with_surface(surface);
        // A cache of its own, holding this document once rendered: every lookup after is a hit.
        let engine = Engine::new(CacheConfig::new(4, usize::MAX / 2));
        engine.render(src, &options);
        let empty = Responses::default();
        let time = |f: &mut dyn FnMut()| {
            let start = Instant::now();
            f();
            nanos(start.elapsed())
        };
        let mut samples: [Vec<u64>; 5] = Default::default();
        for i in 0..warmup(n) + n {
            let mut cold = || {
                black_box(passback_engine::render(black_box(src), &options));
            };
            let mut comrak = || {
                black_box(comrak::markdown_to_html(black_box(src), &comrak_options));
            };
            let (c, p) = if i % 2 == 0 {
                let c = time(&mut cold);
                (c, time(&mut comrak))
            } else {
                let p = time(&mut comrak);
                (time(&mut cold), p)
            };
            let hit = time(&mut || {
                black_box(engine.render(black_box(src), &options));
            });
            let v = time(&mut || {
                black_box(passback_engine::validate(black_box(src)));
            });
            let e = time(&mut || {
                let doc = Doc::parse(black_box(src));
                black_box(passback_engine::export(&doc, &empty));
            });
            if i >= warmup(n) {
                for (s, x) in samples.iter_mut().zip([c, p, hit, v, e]) {
                    s.push(x);
                }
                progress(surface, i + 1 - warmup(n), n);
            }
        }
        let [c, p, hit, v, e] = &mut samples;
        results.push(Figures {
            file: file.to_string(),
            bytes: src.len(),
            surface,
            cold_render: Summary::of(c),
            plain_comrak: Summary::of(p),
            cache_hit: Summary::of(hit),
            validate: Summary::of(v),
            empty_export: Summary::of(e),
        });
    }
    results
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// The JSON report (`schema/bench.schema.json`).
pub fn json(results: &[Figures], plan: &Plan, max_ratio: Option<f64>) -> Value {
    let documents: Vec<Value> = results
        .iter()
        .map(|r| {
            let mut doc = serde_json::Map::new();
            doc.insert("file".into(), json!(r.file));
            doc.insert("bytes".into(), json!(r.bytes));
            doc.insert("surface".into(), json!(r.surface.name()));
            for (key, _, summary) in r.measures() {
                doc.insert(key.into(), summary.json());
            }
            doc.insert("cold_ratio".into(), json!(round3(r.ratio())));
            doc.insert(
                "over_max_ratio".into(),
                json!(max_ratio.is_some_and(|m| r.ratio() > m)),
            );
            Value::Object(doc)
        })
        .collect();
    json!({
        "passback_version": env!("CARGO_PKG_VERSION"),
        "iterations": plan.iterations,
        "warmup": warmup(plan.iterations),
        "max_ratio": max_ratio,
        "ok": !results.iter().any(|r| max_ratio.is_some_and(|m| r.ratio() > m)),
        "documents": documents,
    })
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The human table.
pub fn table(results: &[Figures], plan: &Plan, max_ratio: Option<f64>) -> String {
    use std::fmt::Write;
    let mut out = format!(
        "passback bench: {} iterations after {} warm-up; time per operation\n",
        plan.iterations,
        warmup(plan.iterations)
    );
    for r in results {
        let _ = writeln!(
            out,
            "\n{} ({} bytes, surface {})",
            r.file,
            r.bytes,
            r.surface.name()
        );
        let _ = writeln!(
            out,
            "  {:<14} {:>10} {:>10} {:>10}",
            "measure", "min", "median", "p99"
        );
        for (_, name, s) in r.measures() {
            let _ = writeln!(
                out,
                "  {name:<14} {:>10} {:>10} {:>10}",
                duration(s.min),
                duration(s.median),
                duration(s.p99)
            );
        }
        let over = match max_ratio {
            Some(m) if r.ratio() > m => format!(" — over --max-ratio {m}"),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "  cold render / plain comrak (medians): {:.2}×{over}",
            r.ratio()
        );
    }
    out
}

/// `850 ns`, `12.3 µs`, `1.25 ms`, `2.10 s`.
fn duration(nanos: u64) -> String {
    let n = nanos as f64;
    if nanos < 1_000 {
        format!("{nanos} ns")
    } else if nanos < 1_000_000 {
        format!("{:.1} µs", n / 1e3)
    } else if nanos < 1_000_000_000 {
        format!("{:.2} ms", n / 1e6)
    } else {
        format!("{:.2} s", n / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_take_min_median_and_nearest_rank_p99() {
        let mut samples: Vec<u64> = (1..=200).rev().collect();
        assert_eq!(
            Summary::of(&mut samples),
            Summary {
                min: 1,
                median: 101,
                p99: 198
            }
        );
        assert_eq!(
            Summary::of(&mut [7]),
            Summary {
                min: 7,
                median: 7,
                p99: 7
            }
        );
    }

    #[test]
    fn durations_read_in_the_unit_that_fits() {
        assert_eq!(duration(850), "850 ns");
        assert_eq!(duration(12_345), "12.3 µs");
        assert_eq!(duration(1_250_000), "1.25 ms");
        assert_eq!(duration(2_100_000_000), "2.10 s");
    }
}
