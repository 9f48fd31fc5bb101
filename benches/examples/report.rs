//! Prints the last `cargo bench -p passback-benches --bench engine` run as the README's table:
//! each cold render beside plain comrak on the same document, the cache hit beside the cold
//! render, and the rest. Reads criterion's estimates under `$CARGO_TARGET_DIR/criterion`.
//!
//! `cargo run --release -p passback-benches --example report`
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The median of every benchmark, in microseconds, by its id (`cold_render/comrak/typical_20KB`).
fn medians(dir: &Path, id: &str, out: &mut BTreeMap<String, f64>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == "new" {
            let estimates = std::fs::read_to_string(path.join("estimates.json"))
                .ok()
                .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
            if let Some(ns) = estimates.and_then(|e| e["median"]["point_estimate"].as_f64()) {
                out.insert(id.to_string(), ns / 1000.0);
            }
        } else if path.is_dir() && name != "report" && name != "base" {
            let child = if id.is_empty() {
                name
            } else {
                format!("{id}/{name}")
            };
            medians(&path, &child, out);
        }
    }
}

fn show(us: f64) -> String {
    if us >= 1000.0 {
        format!("{:.2} ms", us / 1000.0)
    } else {
        format!("{us:.1} µs")
    }
}

fn main() {
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    let mut m = BTreeMap::new();
    medians(&target.join("criterion"), "", &mut m);
    if m.is_empty() {
        eprintln!(
            "report: no criterion results under {}; run `cargo bench -p passback-benches --bench engine` first",
            target.display()
        );
        std::process::exit(1);
    }
    println!("| bench | passback | baseline (same run) | ratio |");
    println!("|---|---|---|---|");
    for family in ["typical", "dense"] {
        for size in ["2KB", "20KB", "200KB"] {
            let doc = format!("{family}_{size}");
            if let (Some(p), Some(c)) = (
                m.get(&format!("cold_render/passback/{doc}")),
                m.get(&format!("cold_render/comrak/{doc}")),
            ) {
                println!(
                    "| cold render, {family} {size} | {} | plain comrak {} | {:.2}× |",
                    show(*p),
                    show(*c),
                    p / c
                );
            }
        }
    }
    if let (Some(hit), Some(cold)) = (
        m.get("cache/hit_20KB"),
        m.get("cold_render/passback/typical_20KB"),
    ) {
        println!(
            "| cache hit, typical 20 KB | {} | cold render {} | {:.0}× faster |",
            show(*hit),
            show(*cold),
            cold / hit
        );
    }
    for (id, label) in [
        ("other/validate_20KB", "validate, typical 20 KB"),
        ("other/export_20KB", "answers export, typical 20 KB"),
    ] {
        if let Some(v) = m.get(id) {
            println!("| {label} | {} | | |", show(*v));
        }
    }
    let diagrams: Vec<String> = ["5", "20", "100"]
        .iter()
        .filter_map(|n| {
            m.get(&format!("diagram/layout_and_svg/{n}"))
                .map(|v| show(*v))
        })
        .collect();
    if !diagrams.is_empty() {
        println!(
            "| diagram layout + SVG, 5 / 20 / 100 nodes | {} | | |",
            diagrams.join(" / ")
        );
    }
}
