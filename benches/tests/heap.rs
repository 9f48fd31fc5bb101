//! Documents render again and again on the main thread without faulting their memory back
//! in: with `raise_heap_trim_threshold` called first, as the benches, `passback bench` and the
//! mdBook preprocessor do, glibc keeps the blocks a render frees for the next one. Without it,
//! a 20 KB document took about 20 page faults a render (glibc trimmed the main heap after
//! each). At 200 KB a typical document's tree arena and page are blocks of a megabyte or more;
//! with the threshold raised to only 512 KB they were mapped and unmapped every render, some
//! 670 page faults each, and the render took 1.67× plain comrak's time instead of 1.29×.
//!
//! Its own binary without the test harness (`harness = false`): the thresholds are
//! process-wide, and only the main thread's heap (glibc's main arena) was trimmed this way;
//! the harness would run the test on another thread.

/// Minor page faults of this process so far (`minflt`, the tenth field of /proc/self/stat).
#[cfg(target_os = "linux")]
fn minor_faults() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("Linux has /proc/self/stat");
    // The command name, in parentheses, may hold spaces: count fields after it.
    let after_name = &stat[stat.rfind(')').expect("stat has (comm)") + 2..];
    after_name
        .split(' ')
        .nth(7)
        .and_then(|f| f.parse().ok())
        .expect("minflt is a number")
}

#[cfg(target_os = "linux")]
fn main() {
    const RENDERS: u64 = 20;
    passback_engine::raise_heap_trim_threshold();
    let options = passback_engine::Options::default();
    for (name, doc) in [
        ("typical 20 KB", passback_benches::typical(20_000)),
        ("typical 200 KB", passback_benches::typical(200_000)),
        ("dense 200 KB", passback_benches::dense(200_000)),
    ] {
        // A few renders first, so the heap reaches the size this document needs.
        for _ in 0..3 {
            passback_engine::render(&doc, &options);
        }
        let before = minor_faults();
        for _ in 0..RENDERS {
            let rendered = passback_engine::render(&doc, &options);
            assert!(!rendered.html.is_empty());
        }
        let faults = minor_faults() - before;
        assert!(
            faults < 4 * RENDERS,
            "{faults} page faults in {RENDERS} renders of the {name} document: blocks freed by \
             one render are handed back to the system and faulted in again by the next"
        );
        println!("heap: {faults} page faults in {RENDERS} renders of the {name} document: ok");
    }
}

#[cfg(not(target_os = "linux"))]
fn main() {}
