//! Prometheus text metrics: requests by route and status, a latency histogram per route, the
//! engine's render time by surface and cache outcome, cache counters and the build.
//!
//! Counters and gauges are one table in [`Metrics::render`]; each histogram family is written by
//! a function of its own.

use passback_engine::{CacheStats, Surface};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Upper bounds of the histograms' buckets, in seconds: from 10 µs (a cache hit takes about
/// 1 µs of engine time, a `/healthz` tens of µs) to 10 s (a request near its time limit).
pub const BUCKETS: [f64; 19] = [
    0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
    0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// [`BUCKETS`] in nanoseconds, which an observation is compared with.
const BUCKET_NANOS: [u64; BUCKETS.len()] = {
    let mut nanos = [0; BUCKETS.len()];
    let mut i = 0;
    // 10 µs × 1, 2.5, 5 × 10^k: written out from the pattern, as `f64` cannot be cast in a const.
    let steps = [10_000, 25_000, 50_000];
    let mut scale = 1;
    while i < BUCKETS.len() {
        nanos[i] = steps[i % 3] * scale;
        if i % 3 == 2 {
            scale *= 10;
        }
        i += 1;
    }
    nanos
};

/// One histogram: a count per bucket (not cumulative: an observation adds to one bucket, the
/// last one being "over 10 s"), their total and the sum of the observations.
#[derive(Default)]
pub struct Histogram {
    buckets: [AtomicU64; BUCKETS.len() + 1],
    count: AtomicU64,
    sum_nanos: AtomicU64,
}

impl Histogram {
    pub fn observe(&self, elapsed: Duration) {
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        let bucket = BUCKET_NANOS.partition_point(|&le| le < nanos);
        self.buckets[bucket].fetch_add(1, Ordering::Relaxed);
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum_nanos.fetch_add(nanos, Ordering::Relaxed);
    }

    fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    /// The `_bucket`, `_sum` and `_count` lines, each with `labels` (`a="x",b="y"`, or empty).
    fn write(&self, out: &mut String, name: &str, labels: &str) {
        let sep = if labels.is_empty() { "" } else { "," };
        let mut cumulative = 0;
        for (i, le) in BUCKETS.iter().enumerate() {
            cumulative += self.buckets[i].load(Ordering::Relaxed);
            let _ = writeln!(
                out,
                "{name}_bucket{{{labels}{sep}le=\"{le}\"}} {cumulative}"
            );
        }
        cumulative += self.buckets[BUCKETS.len()].load(Ordering::Relaxed);
        let _ = writeln!(
            out,
            "{name}_bucket{{{labels}{sep}le=\"+Inf\"}} {cumulative}"
        );
        let braced = if labels.is_empty() {
            String::new()
        } else {
            format!("{{{labels}}}")
        };
        let sum = self.sum_nanos.load(Ordering::Relaxed) as f64 / 1e9;
        let _ = writeln!(out, "{name}_sum{braced} {sum}");
        let _ = writeln!(out, "{name}_count{braced} {cumulative}");
    }
}

/// Whether a render was answered from the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheOutcome {
    Hit,
    Miss,
}

impl CacheOutcome {
    pub fn name(self) -> &'static str {
        match self {
            CacheOutcome::Hit => "hit",
            CacheOutcome::Miss => "miss",
        }
    }
}

const SURFACES: [Surface; 3] = [Surface::Page, Surface::Routed, Surface::Email];
const OUTCOMES: [CacheOutcome; 2] = [CacheOutcome::Hit, CacheOutcome::Miss];

pub struct Metrics {
    requests: Mutex<BTreeMap<(&'static str, u16), u64>>,
    /// Request durations by route.
    durations: RouteDurations,
    /// Engine time per render, by surface and cache outcome ([`SURFACES`] × [`OUTCOMES`]).
    renders: [[Histogram; 2]; 3],
    rejected: AtomicU64,
    shed: AtomicU64,
}

/// A histogram for every route, in the route table's order, then one for "other".
struct RouteDurations(Box<[(&'static str, Histogram)]>);

impl Metrics {
    /// Counters for a server whose routes are `routes` (their patterns, the fixed labels
    /// requests are counted by).
    pub fn new(routes: impl Iterator<Item = &'static str>) -> Self {
        Metrics {
            requests: Mutex::default(),
            durations: RouteDurations(
                routes
                    .chain(["other"])
                    .map(|route| (route, Histogram::default()))
                    .collect(),
            ),
            renders: Default::default(),
            rejected: AtomicU64::default(),
            shed: AtomicU64::default(),
        }
    }

    /// A request answered: `route` is its fixed label (a route's pattern, or "other").
    pub fn observe(&self, route: &'static str, status: u16, elapsed: Duration) {
        *self
            .requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry((route, status))
            .or_insert(0) += 1;
        let routes = &self.durations.0;
        let i = routes
            .iter()
            .position(|(r, _)| *r == route)
            .unwrap_or(routes.len() - 1);
        routes[i].1.observe(elapsed);
    }

    /// The engine's part of a render: the cache lookup, and the render itself on a miss.
    pub fn observe_render(&self, surface: Surface, outcome: CacheOutcome, elapsed: Duration) {
        let s = SURFACES.iter().position(|&x| x == surface).unwrap_or(0);
        self.renders[s][outcome as usize].observe(elapsed);
    }

    pub fn rejected_connection(&self) {
        self.rejected.fetch_add(1, Ordering::Relaxed);
    }

    /// A request answered 503 because no render slot came free in time.
    pub fn shed(&self) {
        self.shed.fetch_add(1, Ordering::Relaxed);
    }

    pub fn render(&self, cache: CacheStats) -> String {
        let mut out = String::new();
        out.push_str("# HELP passback_requests_total HTTP requests by route and status.\n# TYPE passback_requests_total counter\n");
        for ((route, status), n) in self
            .requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            let _ = writeln!(
                out,
                "passback_requests_total{{route=\"{route}\",status=\"{status}\"}} {n}"
            );
        }
        self.write_durations(&mut out);
        self.write_renders(&mut out);
        let gauges = [
            (
                "passback_cache_hits_total",
                "counter",
                "Renders answered from the cache.",
                cache.hits as f64,
            ),
            (
                "passback_cache_misses_total",
                "counter",
                "Renders that had to be computed.",
                cache.misses as f64,
            ),
            (
                "passback_cache_evictions_total",
                "counter",
                "Renderings dropped to stay within bounds.",
                cache.evictions as f64,
            ),
            (
                "passback_cache_bytes",
                "gauge",
                "Bytes of rendered output held in the cache.",
                cache.bytes as f64,
            ),
            (
                "passback_cache_entries",
                "gauge",
                "Renderings held in the cache.",
                cache.entries as f64,
            ),
            (
                "passback_connections_rejected_total",
                "counter",
                "Connections turned away at the connection limit.",
                self.rejected.load(Ordering::Relaxed) as f64,
            ),
            (
                "passback_requests_shed_total",
                "counter",
                "Requests answered 503 because no render slot came free within the queue timeout.",
                self.shed.load(Ordering::Relaxed) as f64,
            ),
            (
                "passback_log_lines_dropped_total",
                "counter",
                "Log lines dropped because standard error did not take them fast enough.",
                crate::log::dropped() as f64,
            ),
        ];
        for (name, kind, help, value) in gauges {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
            );
        }
        write_build_info(&mut out);
        out
    }

    /// One histogram per route that has been requested.
    fn write_durations(&self, out: &mut String) {
        out.push_str("# HELP passback_request_duration_seconds Time to answer a request, by route.\n# TYPE passback_request_duration_seconds histogram\n");
        for (route, h) in self.durations.0.iter().filter(|(_, h)| h.count() > 0) {
            h.write(
                out,
                "passback_request_duration_seconds",
                &format!("route=\"{route}\""),
            );
        }
    }

    /// Every surface and outcome, observed or not, so a dashboard's series exist from the start.
    fn write_renders(&self, out: &mut String) {
        out.push_str("# HELP passback_render_duration_seconds Engine time per render (the cache lookup, and the render on a miss), by surface and cache outcome.\n# TYPE passback_render_duration_seconds histogram\n");
        for (s, surface) in SURFACES.iter().enumerate() {
            for (o, outcome) in OUTCOMES.iter().enumerate() {
                self.renders[s][o].write(
                    out,
                    "passback_render_duration_seconds",
                    &format!(
                        "surface=\"{}\",cache=\"{}\"",
                        surface.name(),
                        outcome.name()
                    ),
                );
            }
        }
    }
}

/// `passback_build_info{version,commit,rustc} 1`: commit and rustc when the build knew them.
fn write_build_info(out: &mut String) {
    out.push_str("# HELP passback_build_info The running build: its version, and the commit and compiler it was built from when known.\n# TYPE passback_build_info gauge\n");
    let _ = write!(
        out,
        "passback_build_info{{version=\"{}\"",
        env!("CARGO_PKG_VERSION")
    );
    for (label, value) in [
        ("commit", option_env!("PASSBACK_BUILD_COMMIT")),
        ("rustc", option_env!("PASSBACK_BUILD_RUSTC")),
    ] {
        if let Some(value) = value.filter(|v| !v.is_empty()) {
            let _ = write!(out, ",{label}=\"{}\"", label_value(value));
        }
    }
    out.push_str("} 1\n");
}

/// A label value as the text format writes it: `\`, `"` and newlines escaped.
fn label_value(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_in_nanoseconds_match_the_seconds() {
        for (le, nanos) in BUCKETS.iter().zip(BUCKET_NANOS) {
            assert_eq!((le * 1e9).round() as u64, nanos, "{le}");
        }
    }

    #[test]
    fn an_observation_lands_in_the_first_bucket_that_holds_it() {
        let h = Histogram::default();
        h.observe(Duration::from_nanos(10_000));
        h.observe(Duration::from_nanos(10_001));
        h.observe(Duration::from_secs(11));
        let mut out = String::new();
        h.write(&mut out, "x", "a=\"b\"");
        assert!(
            out.contains("x_bucket{a=\"b\",le=\"0.00001\"} 1\n"),
            "{out}"
        );
        assert!(
            out.contains("x_bucket{a=\"b\",le=\"0.000025\"} 2\n"),
            "{out}"
        );
        assert!(out.contains("x_bucket{a=\"b\",le=\"10\"} 2\n"), "{out}");
        assert!(out.contains("x_bucket{a=\"b\",le=\"+Inf\"} 3\n"), "{out}");
        assert!(out.contains("x_count{a=\"b\"} 3\n"), "{out}");
    }
}
