//! Renders a ~200 KB document in a loop, for profilers (`perf record`, `valgrind --tool=callgrind`).
//! `profile [runs] [typical|dense|prose|load|single|diagrams]`.
fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);
    let doc = match args.next().as_deref() {
        // Only the single-choice component, 100 times over.
        Some("single") => format!("{}\n\n", passback_benches::COMPONENTS[0]).repeat(100),
        // The prose-led document without its components.
        Some("prose") => passback_benches::typical(200_000)
            .split("\n\n")
            .filter(|p| !p.starts_with("```") || p.starts_with("```rust"))
            .collect::<Vec<_>>()
            .join("\n\n"),
        Some("load") => {
            std::fs::read_to_string("benches/load/doc-2k.md").expect("run from the root")
        }
        Some("dense") => passback_benches::dense(200_000),
        // Only diagrams: the 5-node bench chart, 100 times over.
        Some("diagrams") => {
            let block = format!(
                "```mermaid\n{}\n```\n\n",
                serde_json::json!({ "version": "1", "source": passback_benches::flowchart(5) })
            );
            block.repeat(100)
        }
        _ => passback_benches::typical(200_000),
    };
    let mut bytes = 0;
    for _ in 0..n {
        bytes += passback_engine::render(&doc, &passback_engine::Options::default())
            .html
            .len();
    }
    println!("{} bytes in, {bytes} bytes out", doc.len() * n);
}
