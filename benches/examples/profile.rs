//! Renders a ~200 KB document in a loop, for profilers (`perf record`, `valgrind --tool=callgrind`).
fn main() {
    let doc = passback_benches::document(200_000);
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20);
    let mut bytes = 0;
    for _ in 0..n {
        bytes += passback_engine::render(&doc, &passback_engine::Options::default())
            .html
            .len();
    }
    println!("{bytes}");
}
