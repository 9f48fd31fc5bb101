//! Any bytes as a document: render on every surface, validate, and check the answers path,
//! without a panic. Run with `cargo fuzz run render -s none -- -max_total_time=60`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use passback_engine::{Format, Options, Surface};

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = std::str::from_utf8(data) else { return };
    for surface in [Surface::Page, Surface::Email] {
        let _ = passback_engine::render(doc, &Options::default().with_surface(surface).with_format(Format::Page));
    }
    let v = passback_engine::validate(doc);
    let parsed = passback_engine::Doc::parse(doc);
    let empty = passback_engine::answers_from_json(&parsed, &serde_json::json!({})).expect("empty responses fit any document");
    let _ = passback_engine::export(&parsed, &empty);
    assert_eq!(v.blocks.len(), parsed.blocks().len());
});
