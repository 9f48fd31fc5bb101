//! Prometheus text metrics: requests by route and status, a latency histogram, cache counters.

use passback_engine::CacheStats;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

#[derive(Default)]
pub struct Metrics {
    requests: Mutex<BTreeMap<(&'static str, u16), u64>>,
    buckets: [AtomicU64; BUCKETS.len()],
    count: AtomicU64,
    sum_micros: AtomicU64,
    rejected: AtomicU64,
}

impl Metrics {
    pub fn observe(&self, route: &'static str, status: u16, elapsed: Duration) {
        *self
            .requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry((route, status))
            .or_insert(0) += 1;
        let secs = elapsed.as_secs_f64();
        for (i, le) in BUCKETS.iter().enumerate() {
            if secs <= *le {
                self.buckets[i].fetch_add(1, Ordering::Relaxed);
            }
        }
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum_micros
            .fetch_add(elapsed.as_micros() as u64, Ordering::Relaxed);
    }

    pub fn rejected_connection(&self) {
        self.rejected.fetch_add(1, Ordering::Relaxed);
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
        out.push_str("# HELP passback_request_duration_seconds Time to answer a request.\n# TYPE passback_request_duration_seconds histogram\n");
        for (i, le) in BUCKETS.iter().enumerate() {
            let _ = writeln!(
                out,
                "passback_request_duration_seconds_bucket{{le=\"{le}\"}} {}",
                self.buckets[i].load(Ordering::Relaxed)
            );
        }
        let count = self.count.load(Ordering::Relaxed);
        let _ = writeln!(
            out,
            "passback_request_duration_seconds_bucket{{le=\"+Inf\"}} {count}"
        );
        let _ = writeln!(
            out,
            "passback_request_duration_seconds_sum {}",
            self.sum_micros.load(Ordering::Relaxed) as f64 / 1e6
        );
        let _ = writeln!(out, "passback_request_duration_seconds_count {count}");
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
        ];
        for (name, kind, help, value) in gauges {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
            );
        }
        out
    }
}
