//! Renders a ~200 KB document in a loop, for profilers (`perf record`, `valgrind --tool=callgrind`).
//! `profile [runs] [typical|typical20|dense|dense20|prose|load|load-unique|single|diagrams|sequence|flowchart20] [comrak]
//! [untuned]`; with `comrak`, the baseline (plain comrak) renders the same document instead;
//! with `untuned`, glibc trims the heap after every render as it does by default.
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
        // The load document as the uncached load test sends it, with a trailing comment (which
        // there also holds the round's salt, a few bytes more).
        Some("load-unique") => {
            std::fs::read_to_string("benches/load/doc-2k.md").expect("run from the root")
                + "\n<!-- request 1 -->\n"
        }
        // Any Markdown file.
        Some(path) if path.ends_with(".md") => {
            std::fs::read_to_string(path).expect("a readable file")
        }
        Some("typical20") => passback_benches::typical(20_000),
        Some("dense") => passback_benches::dense(200_000),
        Some("dense20") => passback_benches::dense(20_000),
        // Only diagrams: the 5-node bench chart, 100 times over.
        Some("diagrams") => {
            let block = format!(
                "```mermaid\n{}\n```\n\n",
                serde_json::json!({ "version": "1", "source": passback_benches::flowchart(5) })
            );
            block.repeat(100)
        }
        // One 30-message sequence diagram, the bench's.
        Some("sequence") => format!(
            "```mermaid\n{}\n```\n",
            serde_json::json!({ "version": "1", "source": passback_benches::sequence(30) })
        ),
        // One 20-node flowchart, the bench's.
        Some("flowchart20") => format!(
            "```mermaid\n{}\n```\n",
            serde_json::json!({ "version": "1", "source": passback_benches::flowchart(20) })
        ),
        _ => passback_benches::typical(200_000),
    };
    let flags: Vec<String> = args.collect();
    let baseline = flags.iter().any(|f| f == "comrak");
    // As the benches and the mdBook preprocessor do, unless asked for glibc's default trimming.
    if !flags.iter().any(|f| f == "untuned") {
        passback_engine::raise_heap_trim_threshold();
    }
    let mut bytes = 0;
    for _ in 0..n {
        bytes += if baseline {
            passback_benches::comrak_only(&doc).len()
        } else {
            passback_engine::render(&doc, &passback_engine::Options::default())
                .html
                .len()
        };
    }
    println!("{} bytes in, {bytes} bytes out", doc.len() * n);
}
