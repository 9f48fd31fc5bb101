//! The bench's class diagrams are drawn, not shown as a placeholder: the bench measures the
//! drawing.

#[test]
fn the_bench_class_diagrams_are_drawn() {
    for classes in [5, 20, 60] {
        let source = serde_json::to_string(&passback_benches::class(classes)).expect("a string");
        let doc = format!("```mermaid\n{{\"version\": \"1\", \"source\": {source}}}\n```\n");
        let out = passback_engine::render(&doc, &passback_engine::Options::default());
        assert!(out.html.contains("pb-mermaid-class"), "{classes} classes");
        assert!(
            !out.html.contains("pb-mermaid-placeholder"),
            "{classes} classes"
        );
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
        assert_eq!(
            out.html.matches("data-node=\"C").count(),
            classes,
            "{classes} classes"
        );
        assert_eq!(
            out.html.matches("data-edge=\"C").count(),
            classes - 1,
            "{classes} classes"
        );
    }
}
