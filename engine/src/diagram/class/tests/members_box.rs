//! `hideEmptyMembersBox`: read from the front matter's config and from `%%{init}%%`, and a
//! class with no members and no methods then drawn as its name alone, as Mermaid draws it.

use crate::diagram::class::ClassDiagram;
use crate::diagram::class::layout::compartments;
use crate::diagram::class::parse::parse;

fn read(src: &str) -> ClassDiagram {
    parse(src).expect("a class diagram").expect("read")
}

const BODY: &str = "classDiagram\nclass Duck\nclass Pond {\n  +depth\n}\nclass Egg\n<<entity>> Egg\nDuck --> Pond\n";

#[test]
fn the_setting_is_read_from_the_front_matter_and_from_init() {
    // Mermaid's documented form, indented.
    let front = format!("---\n  config:\n    class:\n      hideEmptyMembersBox: true\n---\n{BODY}");
    assert!(read(&front).hide_empty_members_box);
    let init = format!("%%{{init: {{'class': {{'hideEmptyMembersBox': true}}}}}}%%\n{BODY}");
    assert!(read(&init).hide_empty_members_box);
    // init wins over the front matter, as Mermaid applies it last.
    let both = format!(
        "---\nconfig:\n  class:\n    hideEmptyMembersBox: true\n---\n%%{{init: {{\"class\": {{\"hideEmptyMembersBox\": false}}}}}}%%\n{BODY}"
    );
    assert!(!read(&both).hide_empty_members_box);
    assert!(!read(BODY).hide_empty_members_box);
    let elsewhere =
        format!("---\nconfig:\n  flowchart:\n    hideEmptyMembersBox: true\n---\n{BODY}");
    assert!(!read(&elsewhere).hide_empty_members_box);
}

#[test]
fn only_a_class_with_neither_members_nor_methods_loses_its_compartments() {
    let shown = compartments(&read(BODY));
    let hidden = compartments(&read(&format!(
        "---\nconfig:\n  class:\n    hideEmptyMembersBox: true\n---\n{BODY}"
    )));
    let (duck, pond, egg) = (0, 1, 2);
    let h = |c: &[Option<crate::diagram::class::layout::Compartments>], k: usize| {
        c[k].as_ref().expect("a class").clone()
    };
    // Duck: by default two empty compartments below its name; hidden, its name alone.
    assert!(h(&shown, duck).members_h > 0.0 && h(&shown, duck).methods_h > 0.0);
    assert_eq!(
        (h(&hidden, duck).members_h, h(&hidden, duck).methods_h),
        (0.0, 0.0)
    );
    assert_eq!(h(&hidden, duck).h, h(&hidden, duck).head_h);
    assert!(h(&hidden, duck).h < h(&shown, duck).h);
    // Pond has a member: its box is unchanged, the empty methods compartment too.
    assert_eq!(h(&hidden, pond), h(&shown, pond));
    // Egg has only an annotation: it counts as empty, as in Mermaid.
    assert_eq!(h(&hidden, egg).h, h(&hidden, egg).head_h);
}

#[test]
fn a_class_drawn_alone_has_no_rules_under_its_name() {
    let rules = |src: &str| {
        let d = read(src);
        let laid = crate::diagram::class::layout::layout(&d).expect("laid out");
        let frame = crate::diagram::svg::Frame {
            id: "d",
            title: "Diagram",
            t: &crate::html::i18n::EN,
            inline_style: false,
        };
        let (svg, _, _) = crate::diagram::class::draw::class_diagram(&d, &laid, &frame);
        svg.matches("pb-d-shape-line").count()
    };
    let src = "classDiagram\nclass Duck\n";
    assert_eq!(rules(src), 2);
    assert_eq!(
        rules(&format!(
            "---\nconfig:\n  class:\n    hideEmptyMembersBox: true\n---\n{src}"
        )),
        0
    );
}
