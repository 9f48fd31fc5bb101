//! `raise_heap_trim_threshold` keeps repeated renders on the main thread from returning the
//! heap to the system and faulting it back in. Its own binary without the test harness
//! (`harness = false`): the threshold is process-wide, and only the main thread's heap (glibc's
//! main arena) was trimmed after every render; the harness would run the test on another thread.

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
    passback_engine::raise_heap_trim_threshold();
    let example = include_str!("../../examples/decision.md");
    let doc = example.repeat(20_000 / example.len() + 1);
    let options = passback_engine::Options::default();
    let first = passback_engine::render(&doc, &options);
    assert!(first.diagnostics.is_empty(), "{:?}", first.diagnostics);
    // Nothing from a render may stay alive: a live block at the top of the heap would stop
    // the trimming this test looks for.
    let html_len = first.html.len();
    drop(first);
    // A few renders first, so the heap reaches the size this document needs.
    for _ in 0..5 {
        passback_engine::render(&doc, &options);
    }
    let before = minor_faults();
    const RENDERS: u64 = 40;
    for _ in 0..RENDERS {
        let rendered = passback_engine::render(&doc, &options);
        assert_eq!(rendered.html.len(), html_len);
    }
    let faults = minor_faults() - before;
    // Without the raised threshold this was about 20 faults a render (800 here).
    assert!(
        faults < RENDERS,
        "{faults} page faults in {RENDERS} renders: the heap is trimmed and refilled each time"
    );
    println!("heap: {faults} page faults in {RENDERS} renders of a 20 KB document: ok");
}

#[cfg(not(target_os = "linux"))]
fn main() {}
