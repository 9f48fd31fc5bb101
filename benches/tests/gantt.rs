//! The bench's gantt charts are drawn, not shown as a placeholder: the bench measures the
//! drawing.

#[test]
fn the_bench_gantt_charts_are_drawn() {
    for tasks in [10, 40, 120] {
        let source = serde_json::to_string(&passback_benches::gantt(tasks)).expect("a string");
        let doc = format!("```mermaid\n{{\"version\": \"1\", \"source\": {source}}}\n```\n");
        let out = passback_engine::render(&doc, &passback_engine::Options::default());
        assert!(out.html.contains("pb-mermaid-gantt"), "{tasks} tasks");
        assert!(
            !out.html.contains("pb-mermaid-placeholder"),
            "{tasks} tasks"
        );
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
        assert_eq!(
            out.html.matches("data-node=\"t").count(),
            tasks,
            "{tasks} tasks"
        );
    }
}
