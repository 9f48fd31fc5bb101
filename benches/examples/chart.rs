//! Writes `benches/history.svg`, the chart of the history tables in `benches/RESULTS.md`.
//! Run it after adding a row: `cargo run -p passback-benches --example chart`.
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let results = std::fs::read_to_string(dir.join("RESULTS.md")).expect("benches/RESULTS.md");
    let history = passback_benches::chart::history(&results);
    let out = dir.join("history.svg");
    std::fs::write(&out, passback_benches::chart::svg(&history)).expect("write the chart");
    println!(
        "{}: {} cold-render runs (typical {}, dense {}), {} throughput runs",
        out.display(),
        history.ratio_rows,
        history.typical.len(),
        history.dense.len(),
        history.throughput_rows
    );
}
