//! A quick A/B of the cold render against plain comrak: short batches of each, interleaved, so
//! a busy neighbour slows both sides alike. Prints each side's fastest and median batch (per
//! render) and their ratios. For checking a change in a minute; the criterion benches stay the
//! figures of record.
//!
//! `cargo run --release -p passback-benches --example ratio -- [typical20|typical|dense20|dense]
//! [rounds]`, or any Markdown file for the document
use std::hint::black_box;
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "typical20".into());
    let rounds: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(200)
        .max(1);
    let doc = match mode.as_str() {
        "typical" => passback_benches::typical(200_000),
        "dense20" => passback_benches::dense(20_000),
        "dense" => passback_benches::dense(200_000),
        path if path.ends_with(".md") => std::fs::read_to_string(path).expect("a readable file"),
        _ => passback_benches::typical(20_000),
    };
    passback_engine::raise_heap_trim_threshold();
    let options = passback_engine::Options::default();
    // About 5 ms a batch.
    let batch = (5_000_000 / doc.len().max(1)).clamp(1, 500);
    let time = |f: &dyn Fn()| {
        let start = Instant::now();
        for _ in 0..batch {
            f();
        }
        start.elapsed() / batch as u32
    };
    let engine = || {
        black_box(passback_engine::render(black_box(&doc), &options));
    };
    let comrak = || {
        black_box(passback_benches::comrak_only(black_box(&doc)));
    };
    // Warm up both.
    for _ in 0..5 {
        time(&engine);
        time(&comrak);
    }
    let (mut e, mut c) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        e.push(time(&engine));
        c.push(time(&comrak));
    }
    e.sort();
    c.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let (e_min, c_min, e_med, c_med) = (e[0], c[0], e[rounds / 2], c[rounds / 2]);
    println!(
        "{mode} ({} bytes, {rounds} rounds of {batch}): passback min {:.1} µs median {:.1} µs; \
         comrak min {:.1} µs median {:.1} µs; ratio min {:.3} median {:.3}",
        doc.len(),
        us(e_min),
        us(e_med),
        us(c_min),
        us(c_med),
        us(e_min) / us(c_min),
        us(e_med) / us(c_med),
    );
}
