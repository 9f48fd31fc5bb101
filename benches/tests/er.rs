//! The bench's ER diagrams are drawn, not shown as a placeholder: the bench measures the
//! drawing.

#[test]
fn the_bench_er_diagrams_are_drawn() {
    for entities in [5, 20, 60] {
        let source = serde_json::to_string(&passback_benches::er(entities)).expect("a string");
        let doc = format!("```mermaid\n{{\"version\": \"1\", \"source\": {source}}}\n```\n");
        let out = passback_engine::render(&doc, &passback_engine::Options::default());
        assert!(out.html.contains("pb-mermaid-er"), "{entities} entities");
        assert!(
            !out.html.contains("pb-mermaid-placeholder"),
            "{entities} entities"
        );
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
        assert_eq!(
            out.html.matches("data-node=\"E").count(),
            entities,
            "{entities} entities"
        );
    }
}
