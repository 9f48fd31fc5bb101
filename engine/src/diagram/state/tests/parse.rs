//! Reading state diagrams: ids as Mermaid gives them, composites, regions, notes, kinds.

use crate::diagram::state::parse::parse;
use crate::diagram::state::{Kind, Side, StateDiagram};

fn read(src: &str) -> StateDiagram {
    parse(src).expect("a state diagram").expect("read")
}

fn ids(d: &StateDiagram) -> Vec<&str> {
    d.chart.nodes.iter().map(|n| n.id.as_str()).collect()
}

fn pairs(d: &StateDiagram) -> Vec<(&str, &str)> {
    d.chart
        .edges
        .iter()
        .map(|e| (d.chart.id_of(e.from), d.chart.id_of(e.to)))
        .collect()
}

#[test]
fn starts_and_ends_are_named_per_scope_as_mermaid_names_them() {
    let d = read(
        "stateDiagram-v2\n[*] --> Still\nStill --> [*]\nstate Moving {\n  [*] --> Fast\n  Fast --> [*]\n}\nStill --> Moving : push",
    );
    assert_eq!(
        ids(&d),
        [
            "root_start",
            "Still",
            "root_end",
            "Moving",
            "Moving_start",
            "Fast",
            "Moving_end"
        ]
    );
    assert_eq!(
        pairs(&d),
        [
            ("root_start", "Still"),
            ("Still", "root_end"),
            ("Moving_start", "Fast"),
            ("Fast", "Moving_end"),
            ("Still", "Moving")
        ]
    );
    assert_eq!(d.chart.edges[4].label.as_deref(), Some("push"));
    assert_eq!(d.kinds[0], Kind::Start);
    assert_eq!(d.kinds[2], Kind::End);
    assert_eq!(d.kinds[3], Kind::Composite);
    assert_eq!(d.chart.subgraphs.len(), 1);
    assert_eq!(d.chart.subgraphs[0].id.as_deref(), Some("Moving"));
    assert_eq!(
        d.chart.subgraphs[0].members,
        ["Moving_start", "Fast", "Moving_end"]
    );
}

#[test]
fn descriptions_kinds_notes_and_directions_are_read() {
    let d = read(
        "stateDiagram\n    direction LR\n    state \"A long name\" as s1\n    s2 : a description\n    state c <<choice>>\n    state f <<fork>>\n    state j <<join>>\n    s1 --> c\n    c --> s2: yes\n    note right of s1 : one line\n    note left of s2\n        first\n        second\n    end note\n    %% a comment\n    s2 --> f %% another\n    classDef hot fill:#f00\n    class s1 hot\n    f --> j\n    j --> s3:::hot\n",
    );
    assert_eq!(d.chart.nodes[0].label, "A long name");
    assert_eq!(d.chart.nodes[1].label, "a description");
    assert_eq!(d.kinds[2..5], [Kind::Choice, Kind::Fork, Kind::Join]);
    assert!(d.chart.direction.is_horizontal());
    assert_eq!(d.notes.len(), 2);
    assert_eq!(d.notes[0].side, Side::Right);
    assert_eq!(d.notes[1].text, "first\nsecond");
    assert_eq!(d.chart.ignored, ["classDef", "class", ":::"]);
    assert_eq!(pairs(&d).last(), Some(&("j", "s3")));
    assert_eq!(d.chart.edges[1].label.as_deref(), Some("yes"));
}

#[test]
fn dividers_split_a_composite_into_regions_named_by_their_place() {
    let d = read(
        "stateDiagram-v2\n[*] --> Active\nstate Active {\n  [*] --> A1\n  --\n  [*] --> B1\n  --\n  [*] --> C1\n}",
    );
    assert!(ids(&d).contains(&"Active/1_start"));
    assert!(ids(&d).contains(&"Active/2_start"));
    assert!(ids(&d).contains(&"Active/3_start"));
    let regions: Vec<_> = d.regions.iter().flatten().collect();
    assert_eq!(regions, ["Active/1", "Active/2", "Active/3"]);
    for (s, sub) in d.chart.subgraphs.iter().enumerate() {
        if d.regions[s].is_some() {
            assert_eq!(sub.parent, Some(0));
            assert_eq!(sub.members.len(), 2);
        }
    }
}

#[test]
fn what_mermaid_rejects_is_an_error_at_its_line() {
    for (src, offset_of) in [
        ("stateDiagram-v2\nA --> B\nmy-state --> C", "my-state"),
        ("stateDiagram-v2\nstate X {\nA --> B\n", "A --> B"),
        ("stateDiagram-v2\nA --> B\n}", "}"),
        ("stateDiagram-v2\nnote right of A\ntext", "note"),
        ("stateDiagram-v2\n--", "--"),
    ] {
        let e = parse(src).expect("a state diagram").expect_err(src);
        assert_eq!(
            e.offset,
            src.find(offset_of).unwrap(),
            "{src}: {}",
            e.message
        );
    }
    assert!(parse("flowchart TD\nA-->B").is_none());
    assert!(parse("sequenceDiagram\nA->>B: x").is_none());
}

#[test]
fn a_diagram_too_large_to_lay_out_is_the_placeholder() {
    use crate::diagram::svg::Frame;
    use crate::diagram::{render_state, state::layout};
    let src: String = std::iter::once("stateDiagram-v2\n".to_string())
        .chain((0..200).map(|i| format!("s{i} --> s{}\n", i + 1)))
        .collect();
    let d = read(&src);
    let frame = Frame {
        id: "d",
        title: "Big",
        t: &crate::html::i18n::EN,
        inline_style: false,
    };
    let r = render_state(&d, &layout::layout(&d), &frame);
    assert!(!r.drawn);
    assert!(r.svg.contains("pb-mermaid-placeholder") && r.svg.contains("State diagram"));
    // One that fits is drawn, its text escaped.
    let d = read("stateDiagram-v2\ns1 : a <script> & \"b\"\ns1 --> s2 : x < y");
    let r = render_state(&d, &layout::layout(&d), &frame);
    assert!(r.drawn);
    assert!(!r.svg.contains("<script>") && r.svg.contains("a &lt;script&gt; &amp;"));
}
