//! The class diagram reader on the forms Mermaid's documentation writes, one by one.

use crate::diagram::class::parse::{generics, parse};
use crate::diagram::class::{Classifier, End, Kind};

fn read(src: &str) -> crate::diagram::class::ClassDiagram {
    parse(src).expect("a class diagram").expect("read")
}

#[test]
fn members_are_shown_as_mermaid_shows_them() {
    let d = read(
        "classDiagram\nclass A {\n  +List~int~ items\n  -count()$ int\n  #draw(List~T~ x)* bool\n  <<service>>\n}\nA : +name$",
    );
    let c = &d.classes[0];
    assert_eq!(c.annotations, ["service"]);
    assert_eq!(c.members[0].text, "+List<int> items");
    assert_eq!(c.members[1].text, "+name");
    assert_eq!(c.members[1].classifier, Classifier::Static);
    assert_eq!(c.methods[0].text, "-count() : int");
    assert_eq!(c.methods[0].classifier, Classifier::Static);
    assert_eq!(c.methods[1].text, "#draw(List<T> x) : bool");
    assert_eq!(c.methods[1].classifier, Classifier::Abstract);
    assert_eq!(generics("List~List~int~~"), "List<List<int>>");
    assert_eq!(generics("Map~K, V~"), "Map<K, V>");
}

#[test]
fn relations_keep_the_order_written_and_both_markers() {
    let d = read("classDiagram\nA <|-- B\nC \"1\" *--o \"many\" D : has\nE ..|> F\nG --() H");
    let pairs: Vec<(&str, &str)> = d
        .chart
        .edges
        .iter()
        .map(|e| (d.chart.id_of(e.from), d.chart.id_of(e.to)))
        .collect();
    assert_eq!(
        pairs,
        [("A", "B"), ("C", "D"), ("E", "F"), ("G", "interface0")]
    );
    assert_eq!(d.relations[0].ends, [End::Extension, End::None]);
    assert_eq!(d.relations[1].ends, [End::Composition, End::Aggregation]);
    assert_eq!(d.relations[1].cards, ["1".to_string(), "many".to_string()]);
    assert_eq!(d.chart.edges[1].label.as_deref(), Some("has"));
    assert!(d.relations[2].dashed);
    assert_eq!(d.relations[2].ends, [End::None, End::Extension]);
    assert_eq!(d.kinds[d.chart.edges[3].to], Kind::Interface);
}

#[test]
fn namespaces_notes_and_generic_names() {
    let d = read(
        "classDiagram\nnamespace A.B {\n  class Square~Shape~\n  note for Square \"four\\nsides\"\n}\nnote \"free\"\nclass `Odd name!`",
    );
    let ids: Vec<&str> = d.chart.nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids, ["Square", "Odd name!", "A", "A.B", "note0", "note1"]);
    assert_eq!(d.chart.nodes[0].label, "Square<Shape>");
    assert_eq!(d.chart.nodes[4].label, "four\nsides");
    assert_eq!(d.chart.subgraphs[1].parent, Some(0));
    assert_eq!(d.chart.subgraphs[1].members, ["Square", "note0"]);
    assert_eq!(d.note_on, [(4, Some(0)), (5, None)]);
}

#[test]
fn clicks_are_ignored_and_styles_applied() {
    let d = read(
        "classDiagram\nclass A:::hot\nclass B\nclick A call cb()\nlink B \"https://x\"\ncssClass \"B\" hot\nclassDef hot fill:#f00\nstyle A stroke:#00f",
    );
    assert_eq!(d.chart.ignored, ["click", "link"]);
    assert_eq!(d.chart.styles.nodes.len(), 2);
    assert!(d.chart.styles.nodes.iter().all(|s| s.fill.is_some()));
    assert!(d.chart.styles.nodes[0].stroke.is_some());
}

#[test]
fn what_mermaid_refuses_is_refused_at_its_place() {
    for (src, at) in [
        ("classDiagram\nA <|-- \n", "classDiagram\nA <|-- ".len()),
        ("classDiagram\nnamespace N {\nclass A\n", 0),
        (
            "classDiagram\nclass A {\n+x\n",
            "classDiagram\nclass A ".len(),
        ),
    ] {
        match parse(src) {
            Some(Err(e)) => assert!(
                at == 0 || e.offset == at,
                "{src:?}: {} at {}",
                e.message,
                e.offset
            ),
            other => panic!("{src:?}: {other:?}"),
        }
    }
    assert!(parse("flowchart TD\nA-->B").is_none());
}

#[test]
fn a_class_past_the_member_cap_is_cut_with_a_note() {
    let mut src = String::from("classDiagram\nclass A {\n");
    for k in 0..120 {
        src.push_str(&format!("  +int m{k}\n"));
    }
    src.push_str("}\n");
    let d = read(&src);
    assert_eq!(d.classes[0].members.len(), 100);
    assert!(
        d.chart.notes[0].contains("more than 100"),
        "{:?}",
        d.chart.notes
    );
}
