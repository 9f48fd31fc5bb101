use crate::diagram::sequence::colour::*;
use crate::diagram::sequence::layout::*;
use crate::diagram::sequence::parse::*;
use crate::diagram::sequence::syntax::*;
use crate::diagram::sequence::*;

fn parsed(src: &str) -> Sequence {
    parse(src).expect("a sequence diagram").expect("readable")
}

#[test]
fn participants_aliases_and_messages() {
    let s = parsed(
        "sequenceDiagram\n participant A as Alice\n actor J as John\n A->>J: Hello\n J-->>A: Hi\n A-)J: Later\n A-xJ: No\n A--xJ: No\n A->J: plain\n A-->J: dotted\n A<<->>J: both\n A--)J: async",
    );
    assert_eq!(s.participants.len(), 2);
    assert_eq!(s.participants[0].label, "Alice");
    assert_eq!(s.participants[1].kind, Kind::Actor);
    let kinds: Vec<(Line, Head, bool)> = s.messages().map(|m| (m.line, m.head, m.both)).collect();
    assert_eq!(
        kinds,
        [
            (Line::Solid, Head::Arrow, false),
            (Line::Dotted, Head::Arrow, false),
            (Line::Solid, Head::Open, false),
            (Line::Solid, Head::Cross, false),
            (Line::Dotted, Head::Cross, false),
            (Line::Solid, Head::None, false),
            (Line::Dotted, Head::None, false),
            (Line::Solid, Head::Arrow, true),
            (Line::Dotted, Head::Open, false),
        ]
    );
    let chart = s.as_flowchart();
    assert_eq!(chart.id_of(chart.edges[0].from), "A");
    assert_eq!(chart.id_of(chart.edges[0].to), "J");
    assert_eq!(chart.label_of("J"), "John");
}

#[test]
fn names_with_dashes_and_spaces() {
    let s = parsed("sequenceDiagram\nmy-service->>Other One: call\nOther One-->>my-service: ok");
    let ids: Vec<&str> = s.participants.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["my-service", "Other One"]);
}

#[test]
fn activations_notes_frames_and_numbers() {
    let s = parsed(
        "sequenceDiagram\nautonumber\nAlice->>+John: Hi\nJohn-->>-Alice: Yo\nactivate John\ndeactivate John\nNote over Alice,John: both\nloop Every minute\nJohn->>John: self\nend\nalt a\nA->>B: x\nelse b\nA->>B: y\nend",
    );
    let numbers: Vec<String> = s.messages().filter_map(|m| m.number.clone()).collect();
    assert_eq!(numbers, ["1", "2", "3", "4", "5"]);
    assert!(
        s.events
            .iter()
            .any(|e| matches!(e, Event::Divide(t) if t == "b"))
    );
    let d = layout(&s);
    assert_eq!(d.arrows.len(), 5);
    assert_eq!(d.frames.len(), 2);
    assert_eq!(d.bars.len(), 2);
}

#[test]
fn box_and_rect_colours_are_read_and_written_from_their_numbers() {
    for (written, read) in [
        ("Purple", "#800080"),
        ("#ABC", "#aabbcc"),
        ("#aabbcc80", "rgba(170,187,204,0.502)"),
        ("rgb(191,223, 255)", "#bfdfff"),
        ("rgba(0, 0, 255, .1)", "rgba(0,0,255,0.1)"),
        ("hsl(120, 100%, 25%)", "#008000"),
    ] {
        assert_eq!(plain_colour(written).as_deref(), Some(read), "{written}");
    }
    for written in [
        "rgb(1,2)",
        "rgb(1,2,3,4,5)",
        "rgb(1,2,3);fill:red",
        "rgb(1,2,3",
        "rgb(.,2,3)",
        "#12345",
        "#abcg",
        "var(--x)",
        "url(#a)",
        "notacolour",
    ] {
        assert_eq!(plain_colour(written), None, "{written}");
    }
    assert_eq!(colour_parts("purple"), Some([128.0, 0.0, 128.0, 1.0]));
    assert_eq!(
        colour_parts("#00ff0080"),
        Some([0.0, 255.0, 0.0, 128.0 / 255.0])
    );
    assert_eq!(colour_parts("rgb(300, 0, 0)"), Some([255.0, 0.0, 0.0, 1.0]));
}

#[test]
fn box_and_rect_colours_reach_the_layout() {
    let s = parsed(
        "sequenceDiagram\nbox Purple Team\nparticipant A\nend\nbox hsl(1,2%,3%) Other\nparticipant B\nend\nbox rgb(1,2) Third\nparticipant C\nend\nrect rgba(0, 0, 255, .1)\nA->>B: hi\nend\nrect hsl(1,2%,3%)\nB->>A: ok\nend\nrect rgb(1,2)\nB->>A: ok\nend",
    );
    let d = layout(&s);
    let colours: Vec<Option<&str>> = d.groups.iter().map(|g| g.2.as_deref()).collect();
    assert_eq!(colours, [Some("#800080"), Some("#080807"), None]);
    let rects: Vec<Option<&str>> = d.frames.iter().map(|f| f.colour.as_deref()).collect();
    assert_eq!(rects, [Some("rgba(0,0,255,0.1)"), Some("#080807"), None]);
    assert_eq!(
        s.ignored,
        [
            "box colours other than a name, #hex, rgb(…) or hsl(…)",
            "rect colours other than a name, #hex, rgb(…) or hsl(…)"
        ]
    );
}

#[test]
fn participants_stand_again_below_and_a_created_one_at_its_message() {
    let s = parsed(
        "sequenceDiagram\nA->>B: one\nB->>A: two\ncreate participant C\nB->>C: make\nC->>A: three\ndestroy C\nA->>C: gone",
    );
    let d = layout(&s);
    let last_line = d
        .arrows
        .iter()
        .flat_map(|a| a.points.iter().map(|p| p.1))
        .fold(f64::MIN, f64::max);
    let make_y = d.arrows[2].points[0].1;
    let (a, c) = (&d.heads[0], &d.heads[2]);
    let gone_y = d.arrows[4].points[0].1;
    // C's box is centred on the line of the message that creates it, its lifeline starts
    // below that box, and ends at its box drawn again on the line of its last message,
    // which stops at that box's side.
    assert!((c.rect.cy() - make_y).abs() < 0.5, "{:?} {make_y}", c.rect);
    assert!(c.rect.y > a.rect.bottom());
    assert_eq!(c.lifeline.1, c.rect.bottom());
    assert!((c.foot.cy() - gone_y).abs() < 0.5, "{:?} {gone_y}", c.foot);
    assert_eq!(c.lifeline.2, c.foot.y);
    assert_eq!(d.arrows[4].points[1].0, c.foot.x);
    // A's and B's boxes again below the last message, their lifelines reaching them.
    for h in &d.heads[..2] {
        let foot = h.foot;
        assert!(foot.y > last_line + 4.0);
        assert_eq!(h.lifeline.2, foot.y);
        assert_eq!((foot.x, foot.w, foot.h), (h.rect.x, h.rect.w, h.rect.h));
        assert!(foot.bottom() < d.height);
    }
}

#[test]
fn entities_and_breaks_are_decoded() {
    assert_eq!(decode("I #9829; you #infin; times"), "I ♥ you ∞ times");
    assert_eq!(decode("a<br/>b<BR>c"), "a\nb\nc");
    assert_eq!(decode("#x41; #unknown; # x"), "A #unknown; # x");
    let s = parsed("sequenceDiagram\nA->>B: I #9829; you!; B->>A: ok");
    assert_eq!(s.messages().count(), 2);
    assert_eq!(
        s.messages().next().map(|m| m.text.as_str()),
        Some("I ♥ you!")
    );
}

#[test]
fn what_cannot_be_read_says_where() {
    for (src, needle) in [
        ("sequenceDiagram\nA->>B: hi\nloop x\nA->>B: y", "not closed"),
        ("sequenceDiagram\nend", "nothing open"),
        ("sequenceDiagram\nelse x", "outside"),
        ("sequenceDiagram\nfoo bar", "`foo`"),
        (
            "sequenceDiagram\nparticipant A@{ \"type\": \"blob\" }",
            "unknown participant type",
        ),
    ] {
        let e = parse(src).expect("sequence").expect_err(src);
        assert!(e.message.contains(needle), "{src}: {}", e.message);
        assert!(e.offset <= src.len());
    }
    let e = parse("sequenceDiagram\nA->>B: ok\nfoo bar")
        .unwrap()
        .unwrap_err();
    assert_eq!(e.offset, "sequenceDiagram\nA->>B: ok\n".len());
    assert!(parse("graph TD; A-->B").is_none());
}
