//! Criterion benches, each beside its baseline in the same run:
//! cold render (cache off) vs plain comrak, for ~2 KB, ~20 KB and ~200 KB documents;
//! a cache hit vs a cold render; validate; answers export.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use passback_benches::{comrak_only, dense, typical};
use passback_engine::{CacheConfig, Engine, Options};
use passback_engine::{Doc, answers_from_json, export};
use std::hint::black_box;

/// Both document families at the three sizes.
fn sizes() -> Vec<(String, String)> {
    let mut docs = Vec::new();
    for (family, make) in [
        ("typical", typical as fn(usize) -> String),
        ("dense", dense),
    ] {
        for (size, bytes) in [("2KB", 2_000), ("20KB", 20_000), ("200KB", 200_000)] {
            docs.push((format!("{family}_{size}"), make(bytes)));
        }
    }
    docs
}

fn cold_render(c: &mut Criterion) {
    let mut group = c.benchmark_group("cold_render");
    for (name, doc) in sizes() {
        group.throughput(Throughput::Bytes(doc.len() as u64));
        group.bench_with_input(BenchmarkId::new("comrak", &name), &doc, |b, d| {
            b.iter(|| comrak_only(black_box(d)))
        });
        group.bench_with_input(BenchmarkId::new("passback", name), &doc, |b, d| {
            b.iter(|| passback_engine::render(black_box(d), &Options::default()))
        });
    }
    group.finish();
}

fn cache_hit(c: &mut Criterion) {
    let mut group = c.benchmark_group("cache");
    let doc = typical(20_000);
    let engine = Engine::new(CacheConfig::new(16, 64 << 20));
    engine.render(&doc, &Options::default());
    // The cold render it is compared with is cold_render/passback/typical_20KB.
    group.bench_function("hit_20KB", |b| {
        b.iter(|| engine.render(black_box(&doc), &Options::default()))
    });
    group.finish();
}

fn validate_and_export(c: &mut Criterion) {
    let mut group = c.benchmark_group("other");
    let doc = typical(20_000);
    group.bench_function("validate_20KB", |b| {
        b.iter(|| passback_engine::validate(black_box(&doc)))
    });
    let parsed = Doc::parse(&doc);
    let responses = serde_json::json!({
        "b1": { "selected": ["PIN"], "note": "cheapest" },
        "b2": { "comments": [{ "on": "node", "id": "B", "text": "who reviews?" }] },
        "b3": { "selected": ["English", "Arabic"], "other": "Yiddish" },
        "b4": { "order": ["us", "eu", "apac"] },
        "b5": { "text": "30 days" },
        "b6": { "weights": { "product": 50, "infra": 30, "support": 20 } },
        "b7": { "questions": { "q1": { "selected": ["Opt-in"] }, "q3": { "other": "June" } } }
    });
    let responses =
        answers_from_json(&parsed, &responses).expect("responses fit the bench document");
    group.bench_function("export_20KB", |b| {
        b.iter(|| export(black_box(&parsed), black_box(&responses)))
    });
    group.finish();
}

/// A document holding one flowchart of 5, 20 and 100 nodes, rendered without the cache: parse,
/// layout and SVG, with the little around them a block needs; and one of each size written
/// in the syntax of Mermaid's documentation (`mermaid_flowchart`).
fn diagram_layout(c: &mut Criterion) {
    let mut group = c.benchmark_group("diagram");
    let options = Options::default();
    for nodes in [5, 20, 100] {
        let source = serde_json::to_string(&passback_benches::flowchart(nodes)).expect("a string");
        let doc = format!("```mermaid\n{{\"version\": \"1\", \"source\": {source}}}\n```\n");
        group.bench_with_input(BenchmarkId::new("render_document", nodes), &doc, |b, d| {
            b.iter(|| passback_engine::render(black_box(d), &options))
        });
        let source =
            serde_json::to_string(&passback_benches::mermaid_flowchart(nodes)).expect("a string");
        let doc = format!("```mermaid\n{{\"version\": \"1\", \"source\": {source}}}\n```\n");
        group.bench_with_input(BenchmarkId::new("mermaid_syntax", nodes), &doc, |b, d| {
            b.iter(|| passback_engine::render(black_box(d), &options))
        });
    }
    group.finish();
}

/// A document holding one 30-message sequence diagram, rendered without the cache: parse,
/// layout and SVG.
fn sequence_layout(c: &mut Criterion) {
    let mut group = c.benchmark_group("diagram");
    let options = Options::default();
    let source = serde_json::to_string(&passback_benches::sequence(30)).expect("a string");
    let doc = format!("```mermaid\n{{\"version\": \"1\", \"source\": {source}}}\n```\n");
    group.bench_with_input(BenchmarkId::new("render_sequence", 30), &doc, |b, d| {
        b.iter(|| passback_engine::render(black_box(d), &options))
    });
    group.finish();
}

/// A document holding one state diagram of 5, 20 and 60 states (composites, choices and notes
/// among them), rendered without the cache: parse, layout and SVG.
fn state_layout(c: &mut Criterion) {
    let mut group = c.benchmark_group("diagram");
    let options = Options::default();
    for states in [5, 20, 60] {
        let source = serde_json::to_string(&passback_benches::state(states)).expect("a string");
        let doc = format!("```mermaid\n{{\"version\": \"1\", \"source\": {source}}}\n```\n");
        group.bench_with_input(BenchmarkId::new("render_state", states), &doc, |b, d| {
            b.iter(|| passback_engine::render(black_box(d), &options))
        });
    }
    group.finish();
}

/// A document holding one ER diagram of 5, 20 and 60 entities (four attributes each), rendered
/// without the cache: parse, layout and SVG.
fn er_layout(c: &mut Criterion) {
    let mut group = c.benchmark_group("diagram");
    let options = Options::default();
    for entities in [5, 20, 60] {
        let source = serde_json::to_string(&passback_benches::er(entities)).expect("a string");
        let doc = format!("```mermaid\n{{\"version\": \"1\", \"source\": {source}}}\n```\n");
        group.bench_with_input(BenchmarkId::new("render_er", entities), &doc, |b, d| {
            b.iter(|| passback_engine::render(black_box(d), &options))
        });
    }
    group.finish();
}

/// A document holding one class diagram of 5, 20 and 60 classes (members, methods, namespaces,
/// the six relations, notes), rendered without the cache: parse, layout and SVG.
fn class_layout(c: &mut Criterion) {
    let mut group = c.benchmark_group("diagram");
    let options = Options::default();
    for classes in [5, 20, 60] {
        let source = serde_json::to_string(&passback_benches::class(classes)).expect("a string");
        let doc = format!("```mermaid\n{{\"version\": \"1\", \"source\": {source}}}\n```\n");
        group.bench_with_input(BenchmarkId::new("render_class", classes), &doc, |b, d| {
            b.iter(|| passback_engine::render(black_box(d), &options))
        });
    }
    group.finish();
}

/// A document holding one gantt chart of 10, 40 and 120 tasks, rendered without the cache:
/// parse (every start and end computed, excluded days skipped), layout and SVG.
fn gantt_layout(c: &mut Criterion) {
    let mut group = c.benchmark_group("diagram");
    let options = Options::default();
    for tasks in [10, 40, 120] {
        let source = serde_json::to_string(&passback_benches::gantt(tasks)).expect("a string");
        let doc = format!("```mermaid\n{{\"version\": \"1\", \"source\": {source}}}\n```\n");
        group.bench_with_input(BenchmarkId::new("render_gantt", tasks), &doc, |b, d| {
            b.iter(|| passback_engine::render(black_box(d), &options))
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    cold_render,
    cache_hit,
    validate_and_export,
    diagram_layout,
    sequence_layout,
    state_layout,
    er_layout,
    class_layout,
    gantt_layout
);
/// `criterion_main!`, with the heap set up as the mdBook preprocessor sets it up: the benches
/// render on the main thread, whose heap glibc would otherwise trim after every render, where
/// the server renders on worker threads, whose heaps it does not trim.
fn main() {
    passback_engine::raise_heap_trim_threshold();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
