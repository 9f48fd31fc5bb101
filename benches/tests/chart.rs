//! The committed history chart is the one its tables give: adding a row to
//! `benches/RESULTS.md` means running `cargo run -p passback-benches --example chart`.
use std::path::Path;

#[test]
fn the_committed_chart_is_drawn_from_the_tables() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let results = std::fs::read_to_string(dir.join("RESULTS.md")).expect("benches/RESULTS.md");
    let history = passback_benches::chart::history(&results);
    // Both tables were found and every run in them gave a point.
    assert!(
        history.ratio_rows > 20 && history.throughput_rows > 15,
        "{history:?}"
    );
    assert_eq!(
        history.typical.len() + history.dense.len(),
        history.ratio_rows,
        "a cold-render row without a 20 KB ratio"
    );
    assert_eq!(history.cached.len(), history.throughput_rows, "{history:?}");
    assert_eq!(
        history.uncached.len(),
        history.throughput_rows,
        "{history:?}"
    );
    let committed = std::fs::read_to_string(dir.join("history.svg")).unwrap_or_default();
    assert!(
        committed == passback_benches::chart::svg(&history),
        "benches/history.svg is not the chart of benches/RESULTS.md's tables: run \
         `cargo run -p passback-benches --example chart` and commit the result"
    );
}
