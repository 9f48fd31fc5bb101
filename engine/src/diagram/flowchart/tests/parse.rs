use crate::diagram::flowchart::parse::*;
use crate::diagram::flowchart::statement::*;
use crate::diagram::flowchart::*;

#[test]
fn edge_occurrences_count_earlier_copies_of_a_pair_in_small_and_large_charts() {
    for copies in [2, 20] {
        let src: String = (0..copies).map(|_| "A --> B\nB --> A\nA --> C\n").collect();
        let c = chart(&format!("graph TD\n{src}"));
        let want: Vec<usize> = (0..copies).flat_map(|k| [k, k, k]).collect();
        assert_eq!(c.edge_occurrences(), want);
    }
}

#[test]
fn closers_are_found_where_str_find_finds_them() {
    let hays = [
        "", "]", "a]b]", "x)]y", ")) )", "é]]", "\\]/]", "abc", "]]]", "/", "中)]",
    ];
    for hay in hays {
        for needle in ["]", ")]", "]]", "))", ")))", "\\]", "/]", "])", "}}"] {
            assert_eq!(
                find_ascii(hay, needle),
                hay.find(needle),
                "{hay:?} {needle:?}"
            );
        }
    }
}

#[test]
fn white_space_is_skipped_as_trim_start_skips_it() {
    let texts = [
        "",
        " ",
        "a",
        " \t\r\n\x0b\x0cb",
        "\u{a0} x",
        " \u{2003}\ty",
        "\u{85}",
        "é ",
        "  中",
    ];
    for text in texts {
        let mut c = Cursor {
            s: text,
            pos: 0,
            base: 0,
        };
        c.skip_ws();
        assert_eq!(c.rest(), text.trim_start(), "{text:?}");
    }
}

fn chart(src: &str) -> Flowchart {
    parse(src).expect("a flowchart").expect("supported")
}

fn edges(c: &Flowchart) -> Vec<String> {
    c.edges
        .iter()
        .map(|e| {
            format!(
                "{}→{}{}",
                c.id_of(e.from),
                c.id_of(e.to),
                e.label
                    .as_ref()
                    .map(|l| format!(" ({l})"))
                    .unwrap_or_default()
            )
        })
        .collect()
}

#[test]
fn the_spec_examples() {
    let c = chart("graph TD; A[Paste] --> B[Review] --> C[Copy back];");
    assert_eq!(
        c.nodes.iter().map(|n| n.label.as_str()).collect::<Vec<_>>(),
        ["Paste", "Review", "Copy back"]
    );
    assert_eq!(edges(&c), ["A→B", "B→C"]);
    let c = chart(
        "graph TD; R[Read request] --> C{In edge cache?}; C -->|hit| S[Serve cached]; C -->|miss| O{Origin healthy?}; O -->|healthy| F[Fetch, cache, serve]; O -->|slow| B[Serve stale + refresh in background]; O -->|no cached copy| W[Block on origin];",
    );
    assert_eq!(c.nodes.len(), 7);
    assert_eq!(edges(&c)[1], "C→S (hit)");
    assert_eq!(c.nodes[1].shape, Shape::Rhombus);
    let c = chart("graph LR; A-->B; B-.->C; C==>D; D---E; E --o F; F --x G");
    assert_eq!(edges(&c), ["A→B", "B→C", "C→D", "D→E", "E→F", "F→G"]);
    assert_eq!(c.direction, Direction::LeftRight);
}

#[test]
fn arrows_labels_groups_and_subgraphs() {
    let c = chart(
        "flowchart LR\n  A -- yes --> B\n  B -.-> C & D\n  C == go ==> E\n  E --- F\n  F -. maybe .-> G\n  subgraph S1 [Group]\n  G --> H((Round))\n  end\n  click A callback\n  %% a comment\n  H --x I\n  I <--> J\n",
    );
    assert_eq!(
        edges(&c),
        [
            "A→B (yes)",
            "B→C",
            "B→D",
            "C→E (go)",
            "E→F",
            "F→G (maybe)",
            "G→H",
            "H→I",
            "I→J"
        ]
    );
    assert!(c.nodes.iter().any(|n| n.id == "H" && n.label == "Round"));
    assert_eq!(c.ignored, ["click"]);
}

#[test]
fn other_diagrams_and_errors() {
    assert!(parse("sequenceDiagram\nA->>B: hi").is_none());
    // ELK is only another layout engine for the same flowchart.
    let elk = parse("flowchart-elk TD\nA --> B").unwrap().unwrap();
    assert_eq!((elk.nodes.len(), elk.edges.len()), (2, 1));
    assert!(parse("graph TD; A[unclosed --> B").unwrap().is_err());
    assert!(parse("graph TD; A --> ").unwrap().is_err());
}

#[test]
fn every_shape() {
    let c = chart(
        "flowchart TD\nA[rect] --> B(round) --> C([stadium]) --> D[[sub]] --> E[(db)]\nF((circle)) --> G(((double))) --> H>flag] --> I{diamond} --> J{{hex}}\nK[/para/] --> L[\\alt\\] --> M[/trap\\] --> N[\\trapalt/] --> O",
    );
    let shapes: Vec<Shape> = c.nodes.iter().map(|n| n.shape).collect();
    // The shapes with brackets come first in `ALL`.
    let mut expected = Shape::ALL[..14].to_vec();
    expected.push(Shape::Rect);
    assert_eq!(shapes, expected);
    assert_eq!(c.nodes[12].label, "trap");
    assert_eq!(c.nodes[14].label, "O");
}

fn kinds(c: &Flowchart) -> Vec<(Stroke, Marker, Marker)> {
    c.edges.iter().map(|e| (e.stroke, e.start, e.end)).collect()
}

#[test]
fn every_edge_kind() {
    use Marker as M;
    use Stroke as S;
    let c = chart(
        "graph LR\nA --> B\nA --- B\nA -.-> B\nA -.- B\nA ==> B\nA === B\nA <--> B\nA --x B\nA --o B\nA ~~~ B\nA x--x B\nA o==o B\nA ---> B\nA -..-> B",
    );
    assert_eq!(
        kinds(&c),
        [
            (S::Solid, M::None, M::Arrow),
            (S::Solid, M::None, M::None),
            (S::Dotted, M::None, M::Arrow),
            (S::Dotted, M::None, M::None),
            (S::Thick, M::None, M::Arrow),
            (S::Thick, M::None, M::None),
            (S::Solid, M::Arrow, M::Arrow),
            (S::Solid, M::None, M::Cross),
            (S::Solid, M::None, M::Circle),
            (S::Invisible, M::None, M::None),
            (S::Solid, M::Cross, M::Cross),
            (S::Thick, M::Circle, M::Circle),
            (S::Solid, M::None, M::Arrow),
            (S::Dotted, M::None, M::Arrow),
        ]
    );
    assert_eq!(c.nodes.len(), 2);
}

#[test]
fn labelled_edge_forms() {
    use Marker as M;
    use Stroke as S;
    let c = chart(
        "graph TD\nA -- solid --> B\nA -. dotted .-> B\nA == thick ==> B\nA--tight-->B\nA -- plain line --- B\nA -->|pipe| B\nA ---|line pipe| B\nA <-- both --> B\nA -- read-only --> B\nA -. no head .- B",
    );
    assert_eq!(
        edges(&c),
        [
            "A→B (solid)",
            "A→B (dotted)",
            "A→B (thick)",
            "A→B (tight)",
            "A→B (plain line)",
            "A→B (pipe)",
            "A→B (line pipe)",
            "A→B (both)",
            "A→B (read-only)",
            "A→B (no head)",
        ]
    );
    assert_eq!(
        kinds(&c),
        [
            (S::Solid, M::None, M::Arrow),
            (S::Dotted, M::None, M::Arrow),
            (S::Thick, M::None, M::Arrow),
            (S::Solid, M::None, M::Arrow),
            (S::Solid, M::None, M::None),
            (S::Solid, M::None, M::Arrow),
            (S::Solid, M::None, M::None),
            (S::Solid, M::Arrow, M::Arrow),
            (S::Solid, M::None, M::Arrow),
            (S::Dotted, M::None, M::None),
        ]
    );
}

#[test]
fn subgraph_members_nesting_and_direction() {
    let c = chart(
        "flowchart TB\nc1 --> a2\nsubgraph one [First]\na1 --> a2\nend\nsubgraph two\ndirection LR\nb1 --> b2\nsubgraph inner\nb3\nend\nend\nsubgraph \"Just a title\"\nq\nend\none --> two\nsubgraph Many words here\nw\nend",
    );
    assert_eq!(c.subgraphs.len(), 5);
    let one = &c.subgraphs[0];
    assert_eq!(one.id.as_deref(), Some("one"));
    assert_eq!(one.title, "First");
    assert_eq!(one.members, ["a1", "a2"]);
    let two = &c.subgraphs[1];
    assert_eq!(two.direction, Some(Direction::LeftRight));
    assert_eq!(two.members, ["b1", "b2"]);
    assert_eq!(c.subgraphs[2].parent, Some(1));
    assert_eq!(c.subgraphs[2].members, ["b3"]);
    assert_eq!(c.subgraphs[3].id, None);
    assert_eq!(c.subgraphs[3].title, "Just a title");
    // A title of several words is not an id (as Mermaid reads it).
    assert_eq!(c.subgraphs[4].id, None);
    assert_eq!(c.subgraphs[4].title, "Many words here");
    // Subgraph ids are nodes (edges and comments can point at them), in order of mention.
    let ids: Vec<&str> = c.nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "c1", "a2", "one", "a1", "two", "b1", "b2", "inner", "b3", "q", "w"
        ]
    );
    assert_eq!(c.label_of("one"), "First");
    assert!(c.ignored.is_empty());
}

#[test]
fn directives_are_ignored_and_recorded() {
    let c = chart(
        "%%{init: {\"theme\": \"dark\"}}%%\ngraph TD\nA --> B\nstyle A fill:#f9f\nclassDef red fill:#f00\nclass B red\nlinkStyle 0 stroke:#f00\nclick A \"https://example.com\"\ndirection LR",
    );
    assert_eq!(c.ignored, ["init", "click", "direction"]);
    // The theme and the colours are read, not ignored.
    assert_eq!(c.styles.nodes.len(), 2);
    assert_eq!(c.styles.edges.len(), 1);
    assert_eq!(edges(&c), ["A→B"]);
}

#[test]
fn front_matter_and_line_breaks() {
    let src = "---\ntitle: Hello\n---\nflowchart LR\nA[one<br>two] -->|a<br/>b| B";
    assert_eq!(keyword(src), Some("flowchart"));
    let c = chart(src);
    assert_eq!(c.nodes[0].label, "one\ntwo");
    assert_eq!(c.edges[0].label.as_deref(), Some("a\nb"));
    assert_eq!(c.title.as_deref(), Some("Hello"));
    assert!(c.ignored.is_empty());
    let c = chart("---\ntitle: T\nconfig:\n  theme: dark\n---\ngraph TD\nA");
    assert_eq!(c.ignored, ["front matter config"]);
    assert_eq!(
        keyword("---\ntitle: x\n---\nsequenceDiagram\nA->>B: x"),
        Some("sequenceDiagram")
    );
}

#[test]
fn errors_carry_offsets() {
    let e = parse("graph TD\nA --> B\nend").unwrap().unwrap_err();
    assert_eq!(e.offset, 17);
    let e = parse("graph TD\nsubgraph S\nA").unwrap().unwrap_err();
    assert!(e.message.contains("not closed"), "{e:?}");
    let e = parse("graph XY\nA").unwrap().unwrap_err();
    assert_eq!(e.offset, 6);
    let e = parse("graph TD\nA -- never closed B").unwrap().unwrap_err();
    assert_eq!(e.offset, 11);
    let e = parse("graph TD\nA -=> B").unwrap().unwrap_err();
    assert_eq!(e.offset, 11);
}

fn labels(c: &Flowchart) -> Vec<&str> {
    c.nodes.iter().map(|n| n.label.as_str()).collect()
}

#[test]
fn node_attributes_and_every_documented_shape_name() {
    let c = chart(
        "flowchart TD\nA@{ shape: cyl, label: \"DB\" } --> B@{ label: \"Hi\" }\nC@{ icon: \"fa:user\", label: \"User\" }\nD@{ img: \"https://example.com/x.png\" }\nE@{ shape: warp }\nF@{\n  shape: diam\n  label: \"Two\n  lines\"\n}",
    );
    assert_eq!(labels(&c), ["DB", "Hi", "User", "D", "E", "Two\nlines"]);
    let shapes: Vec<Shape> = c.nodes.iter().map(|n| n.shape).collect();
    use Shape as S;
    assert_eq!(
        shapes,
        [S::Cylinder, S::Rect, S::Rect, S::Rect, S::Rect, S::Rhombus]
    );
    assert_eq!(c.notes.len(), 3, "{:?}", c.notes);
    assert!(c.notes[2].contains("`warp`"));
    // Every short name and alias of Mermaid's shape table is known.
    for row in SHAPE_TABLE {
        for name in row {
            assert!(shape_named(name).is_some(), "{name}");
        }
    }
}

/// Mermaid's shape table (its flowchart page), a row a shape: short name, then aliases.
const SHAPE_TABLE: [&[&str]; 48] = [
    &["rect", "proc", "process", "rectangle"],
    &["rounded", "event"],
    &["stadium", "pill", "terminal"],
    &[
        "fr-rect",
        "framed-rectangle",
        "subproc",
        "subprocess",
        "subroutine",
    ],
    &["cyl", "cylinder", "database", "db"],
    &["circle", "circ"],
    &["dbl-circ", "double-circle"],
    &["odd"],
    &["diam", "decision", "diamond", "question"],
    &["hex", "hexagon", "prepare"],
    &["lean-r", "in-out", "lean-right"],
    &["lean-l", "lean-left", "out-in"],
    &["trap-b", "priority", "trapezoid", "trapezoid-bottom"],
    &["trap-t", "inv-trapezoid", "manual", "trapezoid-top"],
    &["notch-rect", "card", "notched-rectangle"],
    &[
        "lin-rect",
        "lin-proc",
        "lined-process",
        "lined-rectangle",
        "shaded-process",
    ],
    &[
        "div-rect",
        "div-proc",
        "divided-process",
        "divided-rectangle",
    ],
    &["win-pane", "internal-storage", "window-pane"],
    &["tag-rect", "tag-proc", "tagged-process", "tagged-rectangle"],
    &["st-rect", "processes", "procs", "stacked-rectangle"],
    &["sl-rect", "manual-input", "sloped-rectangle"],
    &["bow-rect", "bow-tie-rectangle", "stored-data"],
    &["notch-pent", "loop-limit", "notched-pentagon"],
    &["delay", "half-rounded-rectangle"],
    &["curv-trap", "curved-trapezoid", "display"],
    &["doc", "document"],
    &["lin-doc", "lined-document"],
    &["tag-doc", "tagged-document"],
    &["docs", "documents", "st-doc", "stacked-document"],
    &["flag", "paper-tape"],
    &["h-cyl", "das", "horizontal-cylinder"],
    &["lin-cyl", "disk", "lined-cylinder"],
    &["tri", "extract", "triangle"],
    &["flip-tri", "manual-file", "flipped-triangle"],
    &["sm-circ", "small-circle", "start"],
    &["f-circ", "filled-circle", "junction"],
    &["fr-circ", "framed-circle", "stop"],
    &["cross-circ", "crossed-circle", "summary"],
    &["fork", "join"],
    &["hourglass", "collate"],
    &["bolt", "com-link", "lightning-bolt"],
    &["brace", "brace-l", "comment"],
    &["brace-r"],
    &["braces"],
    &["text"],
    &["datastore", "data-store"],
    &["cloud"],
    &["bang"],
];

#[test]
fn each_row_of_the_shape_table_is_its_own_shape() {
    let mut seen = Vec::new();
    for row in SHAPE_TABLE {
        let shape = shape_named(row[0]).expect("known");
        for alias in &row[1..] {
            assert_eq!(shape_named(alias), Some(shape), "{alias} is {}", row[0]);
        }
        assert!(
            !seen.contains(&shape),
            "{} is drawn as another row's shape",
            row[0]
        );
        seen.push(shape);
    }
    // Every shape but the upright fork bar is some row's.
    assert_eq!(seen.len(), Shape::ALL.len() - 1);
    // A fork is one shape here; the layout stands its bar across the way ranks run.
    let across = chart("flowchart TD\nA@{ shape: fork } --> B");
    assert_eq!(across.nodes[0].shape, Shape::Fork);
    let upright = chart("flowchart LR\nA@{ shape: join } --> B\nC --> A");
    assert_eq!(upright.nodes[0].shape, Shape::Fork);
}

#[test]
fn labels_as_mermaid_shows_them() {
    let c = chart(
        "flowchart LR\nA[\"Line1\nLine2\"] --> B[\"`**bold** and *it*\nnext`\"]\nC[fa:fa-car Car] --> D[<b>x</b> #quot;q#quot; #9829;]\nE[a<br>b] --> F[1 < 2 <angle>]",
    );
    assert_eq!(
        labels(&c),
        [
            "Line1\nLine2",
            "bold and it\nnext",
            "Car",
            "x \"q\" ♥",
            "a\nb",
            "1 < 2 <angle>"
        ]
    );
    let em = &c.nodes[1].emphasis;
    assert_eq!(em.len(), 2);
    assert_eq!((em[0].start, em[0].end, em[0].bold), (0, 4, true));
    assert_eq!(
        (&c.nodes[1].label[em[1].start..em[1].end], em[1].italic),
        ("it", true)
    );
    assert!(c.notes[0].contains("Font Awesome"), "{:?}", c.notes);
}

#[test]
fn ids_edge_ids_next_line_links_lengths_and_accessibility() {
    let c = chart(
        "flowchart TD\naccTitle: The title\naccDescr: A description\nmy-node --> other\nP1 --> P1.5\nA e1@--> B\ne1@{ animate: true }\na\n--> b\nA ----> C\nA -.-> D\nA -..-> E\nA -- x ---> F\nA:::warm --> G",
    );
    assert_eq!(
        edges(&c),
        [
            "my-node→other",
            "P1→P1.5",
            "A→B",
            "a→b",
            "A→C",
            "A→D",
            "A→E",
            "A→F (x)",
            "A→G"
        ]
    );
    let lengths: Vec<usize> = c.edges.iter().map(|e| e.length).collect();
    assert_eq!(lengths, [1, 1, 1, 1, 3, 1, 2, 2, 1]);
    assert_eq!(c.acc_title.as_deref(), Some("The title"));
    assert_eq!(c.acc_descr.as_deref(), Some("A description"));
    assert_eq!(c.ignored, ["edge attributes"]);
    let c = chart("flowchart TD\naccDescr {\n  Several\n  lines\n}\nA --> B");
    assert_eq!(c.acc_descr.as_deref(), Some("Several lines"));
    assert_eq!(edges(&c), ["A→B"]);
}

#[test]
fn repeated_pairs_and_groups() {
    let c = chart("graph TD\nA --> B\nA -->|again| B\nA & B --> C & D");
    assert_eq!(
        edges(&c),
        ["A→B", "A→B (again)", "A→C", "A→D", "B→C", "B→D"]
    );
}

#[test]
fn a_shape_label_may_go_over_its_lines_end() {
    // As a README's state machine writes it.
    let c =
        chart("flowchart TD\n    A[idle] --> B[wait_input\n    message -> PS1]\n    B --> C[done]");
    assert_eq!(edges(&c), ["A→B", "B→C"]);
    assert_eq!(c.label_of("B"), "wait_input\nmessage -> PS1");
    // A bracket left open is still an error on its own line, not the rest of the diagram.
    let e = parse("flowchart TD\nA[open --> B\nB --> C")
        .unwrap()
        .unwrap_err();
    assert!(e.message.contains("not closed"), "{}", e.message);
}

#[test]
fn ids_hold_slashes_dots_and_colons_as_mermaid_reads_them() {
    // A data pipeline's files and services, as its docs name them.
    let c = chart(
        "flowchart LR\n  data/inputs --> load[Load]\n  load --> cards.aux.kv.json\n  svc:api --> load\n  A:::hot --> B\n  classDef hot fill:#f96",
    );
    let ids: Vec<&str> = c.nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "data/inputs",
            "load",
            "cards.aux.kv.json",
            "svc:api",
            "A",
            "B"
        ]
    );
    assert!(c.styles.node(4).is_some());
}

#[test]
fn ids_hold_a_star_as_mermaid_reads_them() {
    // The rustc-dev-guide's MIR passes: queries that read a stolen result are marked `*`.
    let c = chart(
        "flowchart BT\n  mir_for_ctfe* --borrow--> id40\n  mir_const_qualif* -- borrow --> id2\n  *x --> id2\n  id40([mir_drops_elaborated_and_const_checked])\n  style id40 fill:#bbf",
    );
    let ids: Vec<&str> = c.nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(
        ids,
        ["mir_for_ctfe*", "id40", "mir_const_qualif*", "id2", "*x"]
    );
    assert_eq!(
        edges(&c),
        [
            "mir_for_ctfe*→id40 (borrow)",
            "mir_const_qualif*→id2 (borrow)",
            "*x→id2"
        ]
    );
}

#[test]
fn a_link_continues_after_comment_lines() {
    let c = chart(
        "graph TD\n  A[Build]\n  %% deploy only after the tests\n  %% pass on main\n  --> B[Deploy]",
    );
    assert_eq!(edges(&c), ["A→B"]);
}

#[test]
fn an_entity_in_a_dashed_label_is_not_a_statement_end() {
    let c = chart("graph LR\n  A[Ask] -- Q&amp;A --> B[Answer]; B --> C");
    assert_eq!(edges(&c), ["A→B (Q&A)", "B→C"]);
}
