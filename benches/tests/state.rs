//! The bench's state diagrams are drawn, not shown as a placeholder: the bench measures the
//! drawing.

#[test]
fn the_bench_state_diagrams_are_drawn() {
    for states in [5, 20, 60] {
        let source = serde_json::to_string(&passback_benches::state(states)).expect("a string");
        let doc = format!("```mermaid\n{{\"version\": \"1\", \"source\": {source}}}\n```\n");
        let out = passback_engine::render(&doc, &passback_engine::Options::default());
        assert!(out.html.contains("pb-mermaid-state"), "{states} states");
        assert!(
            !out.html.contains("pb-mermaid-placeholder"),
            "{states} states"
        );
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    }
}
