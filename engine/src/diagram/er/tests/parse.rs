//! Reading ER diagrams: each construct of Mermaid's grammar, as Mermaid reads it, and a
//! diagnostic naming the place and the fix for what it cannot read.

use crate::diagram::er::describe::describe;
use crate::diagram::er::layout::{layout, tables, type_text};
use crate::diagram::er::parse::parse;
use crate::diagram::er::{Cardinality, ErDiagram, Key};
use crate::diagram::flowchart::Direction;
use crate::diagram::line::Stroke;
use crate::diagram::style::Paint;
use crate::diagram::svg::Frame;
use crate::html::i18n::EN;

fn read(src: &str) -> ErDiagram {
    match parse(src) {
        Some(Ok(d)) => d,
        Some(Err(e)) => panic!("not read: {} at {}", e.message, e.offset),
        None => panic!("not an ER diagram"),
    }
}

fn error(src: &str) -> (usize, String) {
    match parse(src) {
        Some(Err(e)) => (e.offset, e.message),
        other => panic!("read: {other:?}"),
    }
}

fn ids(d: &ErDiagram) -> Vec<&str> {
    d.chart.nodes.iter().map(|n| n.id.as_str()).collect()
}

#[test]
fn other_kinds_are_not_read() {
    assert!(parse("flowchart TD\nA-->B").is_none());
    assert!(parse("stateDiagram-v2\n[*] --> A").is_none());
    assert!(parse("").is_none());
}

#[test]
fn every_symbol_cardinality_is_read_at_its_end() {
    let d = read(
        "erDiagram\nA |o--o| B : x\nC ||--|| D : x\nE }o--o{ F : x\nG }|--|{ H : x\nI u--o{ J : x",
    );
    let cards: Vec<(Cardinality, Cardinality)> = d
        .relationships
        .iter()
        .map(|r| (r.at_first, r.at_second))
        .collect();
    use Cardinality::*;
    assert_eq!(
        cards,
        [
            (ZeroOrOne, ZeroOrOne),
            (ExactlyOne, ExactlyOne),
            (ZeroOrMore, ZeroOrMore),
            (OneOrMore, OneOrMore),
            (Parent, ZeroOrMore),
        ]
    );
    assert_eq!(ids(&d), ["A", "B", "C", "D", "E", "F", "G", "H", "I", "J"]);
}

#[test]
fn word_cardinalities_and_identification_are_read_in_any_case() {
    let d = read(
        "erDiagram\n\
         CAR 1 to zero or more NAMED-DRIVER : allows\n\
         PERSON many(0) optionally to 0+ NAMED-DRIVER : is\n\
         A one or zero to one or more B : x\n\
         C Only One optionally to many(1) D : x\n\
         E 1+ to zero or many F : x\n\
         G one or many to many G2 : x\n\
         H zero or one .- one H2 : x",
    );
    use Cardinality::*;
    let got: Vec<(Cardinality, Cardinality, bool)> = d
        .relationships
        .iter()
        .map(|r| (r.at_first, r.at_second, r.identifying))
        .collect();
    assert_eq!(
        got,
        [
            (ExactlyOne, ZeroOrMore, true),
            (ZeroOrMore, ZeroOrMore, false),
            (ZeroOrOne, OneOrMore, true),
            (ExactlyOne, OneOrMore, false),
            (OneOrMore, ZeroOrMore, true),
            (OneOrMore, ZeroOrMore, true),
            (ZeroOrOne, ExactlyOne, false),
        ]
    );
    // A dashed line for a non-identifying relationship.
    assert_eq!(d.chart.edges[1].stroke, Stroke::Dotted);
    assert_eq!(d.chart.edges[0].stroke, Stroke::Solid);
    assert_eq!(d.chart.edges[0].label.as_deref(), Some("allows"));
}

#[test]
fn a_word_cardinality_needs_its_word_to_end() {
    // `MANY_THINGS`, `TOKEN` and `oneTime` are names, not `many`, `to` and `one`.
    let d = read("erDiagram\nMANY_THINGS ||--o{ TOKEN : has\noneTime ||--|| TOKEN : x");
    assert_eq!(ids(&d), ["MANY_THINGS", "TOKEN", "oneTime"]);
}

#[test]
fn attributes_with_types_keys_and_comments() {
    let d = read(
        "erDiagram\nCUSTOMER {\n  string(99) name PK, FK \"the name\"\n  List~int~ ids UK\n  *int count\n  type[] values\n  int a pk\n}",
    );
    let attrs = &d.entities[0].attributes;
    assert_eq!(attrs.len(), 5);
    assert_eq!(attrs[0].ty, "string(99)");
    assert_eq!(attrs[0].name, "name");
    assert_eq!(attrs[0].keys, [Key::Primary, Key::Foreign]);
    assert_eq!(attrs[0].comment, "the name");
    assert_eq!(attrs[1].ty, "List~int~");
    assert_eq!(type_text(&attrs[1].ty), "List<int>");
    assert_eq!(attrs[1].keys, [Key::Unique]);
    assert_eq!(attrs[2].ty, "*int");
    assert_eq!(attrs[3].ty, "type[]");
    assert_eq!(attrs[4].keys, [Key::Primary]);
}

#[test]
fn an_entity_s_blocks_add_up_and_an_alias_is_its_label() {
    let d = read(
        "erDiagram\np[Person] {\n string name\n}\np {\n int age\n}\n\"Two words\"[\"Alias two\"]\na[\"\"]",
    );
    assert_eq!(ids(&d), ["p", "Two words", "a"]);
    assert_eq!(d.entities[0].alias.as_deref(), Some("Person"));
    assert_eq!(d.chart.nodes[0].label, "Person");
    assert_eq!(d.entities[0].attributes.len(), 2);
    assert_eq!(d.chart.nodes[1].label, "Alias two");
    // An empty alias leaves the name as the label.
    assert_eq!(d.chart.nodes[2].label, "a");
}

#[test]
fn quoted_names_labels_and_statements_without_line_breaks() {
    let d = read("erDiagram \"A B\" ||--o{ \"C-D\" : \"has many\" E ||--|| F : x");
    assert_eq!(ids(&d), ["A B", "C-D", "E", "F"]);
    assert_eq!(d.chart.edges[0].label.as_deref(), Some("has many"));
    assert_eq!(d.chart.edges[1].label.as_deref(), Some("x"));
}

#[test]
fn direction_comments_and_accessibility() {
    let d = read(
        "---\ntitle: Shop\n---\n%%{init: {'theme': 'forest'}}%%\nerDiagram\n  %% a comment\n  direction LR\n  accTitle: Shop data\n  accDescr {\n    who buys\n    what\n  }\n  A ||--o{ B : x",
    );
    assert_eq!(d.chart.direction, Direction::LeftRight);
    assert_eq!(d.chart.title.as_deref(), Some("Shop"));
    assert_eq!(d.chart.acc_title.as_deref(), Some("Shop data"));
    assert_eq!(d.chart.acc_descr.as_deref(), Some("who buys what"));
    assert_eq!(ids(&d), ["A", "B"]);
}

#[test]
fn styles_classes_and_the_triple_colon_colour_entities() {
    let d = read(
        "erDiagram\nA:::hot ||--o{ B : x\nC\nclassDef hot fill:#f00,color:#fff\nclassDef cool fill:#00f\nclass C cool\nstyle B stroke:#0f0,font-weight:bold",
    );
    let s = &d.chart.styles.nodes;
    assert_eq!(s.len(), 3);
    assert!(matches!(s[0].fill, Some(Paint::Colour(_))));
    assert!(matches!(s[1].stroke, Some(Paint::Colour(_))));
    assert!(matches!(s[2].fill, Some(Paint::Colour(_))));
    // What is not drawn is named for a warning.
    assert!(
        d.chart.notes.iter().any(|n| n.contains("font-weight")),
        "{:?}",
        d.chart.notes
    );
    let laid = layout(&d).expect("laid out");
    let frame = Frame {
        id: "d",
        title: "t",
        t: &EN,
        inline_style: false,
    };
    let (svg, _, _) = crate::diagram::er::draw::er(&d, &laid, &frame);
    assert!(svg.contains("pb-d-authored"), "{svg}");
    assert!(
        svg.contains("#ff0000") || svg.contains("#f00") || svg.contains("rgb(255"),
        "{svg}"
    );
}

#[test]
fn bad_input_is_a_diagnostic_at_its_place() {
    let src = "erDiagram\nA ||--o{ B : x\nC ||--\n";
    let (at, msg) = error(src);
    assert_eq!(&src[..at].matches('\n').count(), &2, "{msg}");
    assert!(msg.contains("||--o{"), "{msg}");
    let (at, msg) = error("erDiagram\nA {\n string name\n");
    assert_eq!(at, "erDiagram\nA ".len());
    assert!(msg.contains("`}`"), "{msg}");
    let (_, msg) = error("erDiagram\nA {\n string\n}");
    assert!(msg.contains("no name"), "{msg}");
    let (_, msg) = error("erDiagram\nA {\n string name $\n}");
    assert!(msg.contains('$'), "{msg}");
    let (_, msg) = error("erDiagram\n\"A ||--o{ B : x");
    assert!(msg.contains('"'), "{msg}");
    let (_, msg) = error("erDiagram\nA[Alias ||--o{ B : x");
    assert!(msg.contains("Alias"), "{msg}");
    let (_, msg) = error("erDiagram\n||--o{ B : x");
    assert!(msg.contains("first entity"), "{msg}");
}

#[test]
fn tables_size_their_boxes_and_the_layout_keeps_them_apart() {
    let d = read(
        "erDiagram\nA ||--o{ B : has\nA {\n string a_rather_long_name PK \"and a comment\"\n int b\n}\nB {\n int c\n}",
    );
    let t = tables(&d);
    assert!(t[0].w > t[1].w);
    assert!(t[0].h > t[1].h);
    // No comment or key in B: those columns are left out.
    assert_eq!(t[1].cols[2], 0.0);
    assert_eq!(t[1].cols[3], 0.0);
    let laid = layout(&d).expect("laid out");
    let (a, b) = (
        laid.nodes[0].as_ref().expect("A").bounds,
        laid.nodes[1].as_ref().expect("B").bounds,
    );
    assert!((a.w - t[0].w).abs() < 0.01 && (a.h - t[0].h).abs() < 0.01);
    assert!(a.bottom() < b.top(), "A above B, apart");
}

#[test]
fn the_words_say_each_entity_attribute_and_relationship() {
    let d = read(
        "erDiagram\nCUSTOMER ||--o{ ORDER : places\nCUSTOMER }|..|{ ADDRESS : uses\nCUSTOMER {\n string name PK\n int age\n}",
    );
    let words = describe(&d, &EN);
    assert!(
        words.starts_with("Entity relationship diagram, top to bottom."),
        "{words}"
    );
    assert!(
        words.contains("has attributes string name (PK); int age"),
        "{words}"
    );
    assert!(
        words.contains("places zero or more “ORDER”, and exactly one “CUSTOMER” for each “ORDER”")
            || words.contains("places zero or more \"ORDER\""),
        "{words}"
    );
    assert!(words.contains("not identifying"), "{words}");
}

#[test]
fn the_drawing_is_accessible_and_keyed_as_the_contract_says() {
    let d = read(
        "erDiagram\naccTitle: Orders\nA ||--o{ B : x\nA ||--o{ B : y\nB }o..|| A : z\nA ||--|| A : self\n\"<b>\" ||--o{ A : \"<i>\"",
    );
    let laid = layout(&d).expect("laid out");
    let frame = Frame {
        id: "d",
        title: "t",
        t: &EN,
        inline_style: false,
    };
    let (svg, _, _) = crate::diagram::er::draw::er(&d, &laid, &frame);
    assert!(
        svg.contains("<title id=\"d-title\">Orders</title>"),
        "{svg}"
    );
    for key in ["A→B", "A→B#2", "B→A", "A→A", "&lt;b&gt;→A"] {
        assert!(
            svg.contains(&format!("data-edge=\"{key}\"")),
            "{key}: {svg}"
        );
    }
    assert!(svg.contains("data-node=\"&lt;b&gt;\""), "{svg}");
    assert!(!svg.contains("<b>") && !svg.contains("<i>"), "escaped");
    // Crow's feet and rings on the markers; dashed for the non-identifying line.
    assert!(svg.contains("pb-er-marker") && svg.contains("<circle"));
    assert!(svg.contains("stroke-dasharray=\"6 4\""));
}

#[test]
fn large_diagrams_are_refused_not_hung() {
    let mut src = String::from("erDiagram\n");
    for i in 0..400 {
        src.push_str(&format!("E{i} ||--o{{ E{} : x\n", i + 1));
    }
    let d = read(&src);
    assert!(layout(&d).is_err());
    let mut wide = String::from("erDiagram\nA {\n");
    for i in 0..150 {
        wide.push_str(&format!(" int a{i}\n"));
    }
    wide.push('}');
    let (_, msg) = error(&wide);
    assert!(msg.contains("100"), "{msg}");
}
