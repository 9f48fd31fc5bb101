use std::time::Instant;
fn time<F: FnMut()>(mut f: F) -> f64 {
    for _ in 0..20 {
        f();
    }
    let n = 200;
    let t = Instant::now();
    for _ in 0..n {
        f();
    }
    t.elapsed().as_secs_f64() * 1e6 / n as f64
}
fn main() {
    let doc = passback_benches::typical(20_000);
    // Same prose, components removed.
    let prose: String = {
        let mut out = String::new();
        let mut skip = false;
        for line in doc.lines() {
            if line.starts_with("```")
                && [
                    "single", "multi", "open", "quest", "prior", "alloc", "youtube", "mermaid",
                ]
                .iter()
                .any(|k| line[3..].starts_with(k))
            {
                skip = true;
                continue;
            }
            if skip {
                if line == "```" {
                    skip = false;
                }
                continue;
            }
            out.push_str(line);
            out.push('\n');
        }
        out
    };
    let o = passback_engine::Options::default();
    let kinds = [
        (
            "single",
            "```single-choice\n{ \"version\": \"1\", \"question\": \"Which auth method ships first?\", \"options\": [\"PIN\", \"Room number\", \"Magic link\"], \"recommended\": \"Magic link\" }\n```\n\n",
        ),
        (
            "open",
            "```open-question\n{ \"version\": \"1\", \"question\": \"What is the retention constraint?\", \"placeholder\": \"e.g. 30 days\" }\n```\n\n",
        ),
        (
            "youtube",
            "```youtube\n{ \"version\": \"1\", \"id\": \"dQw4w9WgXcQ\", \"title\": \"Walkthrough\" }\n```\n\n",
        ),
        (
            "prioritize",
            "```prioritize\n{ \"version\": \"1\", \"title\": \"Launch order\", \"items\": [ { \"id\": \"eu\", \"label\": \"EU\", \"context\": \"largest waitlist\" }, { \"id\": \"us\", \"label\": \"US\" }, { \"id\": \"apac\", \"label\": \"APAC\" } ] }\n```\n\n",
        ),
        (
            "mermaid",
            "```mermaid\n{ \"version\": \"1\", \"source\": \"graph TD; A[Paste] --> B[Review] --> C[Copy back]; B -->|edit| A;\", \"title\": \"The review loop\" }\n```\n\n",
        ),
    ];
    for (name, block) in kinds {
        let d = block.repeat(50);
        let c = time(|| {
            std::hint::black_box(passback_benches::comrak_only(&d));
        });
        let p = time(|| {
            std::hint::black_box(passback_engine::render(&d, &o));
        });
        let v = time(|| {
            std::hint::black_box(passback_engine::validate(&d));
        });
        let out = passback_engine::render(&d, &o).html.len();
        println!(
            "{name}: per block comrak {:.2}us passback {:.2}us validate {:.2}us, {} bytes out per block",
            c / 50.0,
            p / 50.0,
            v / 50.0,
            out / 50
        );
    }
    let load = std::fs::read_to_string("benches/load/doc-2k.md").unwrap();
    for (name, d) in [
        ("typical20", &doc),
        ("prose-only", &prose),
        ("load-doc", &load),
    ] {
        let c = time(|| {
            std::hint::black_box(passback_benches::comrak_only(d));
        });
        let p = time(|| {
            std::hint::black_box(passback_engine::render(d, &o));
        });
        let v = time(|| {
            std::hint::black_box(passback_engine::validate(d));
        });
        println!(
            "{name}: {} bytes comrak {c:.1}us passback {p:.1}us ({:.2}x) validate {v:.1}us",
            d.len(),
            p / c
        );
    }
}
#[allow(dead_code)]
fn unused() {}
