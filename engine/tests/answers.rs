//! The copy-back export, checked against `fixtures/answers/`: for every `NAME.md`, the JSON
//! responses in `NAME.responses.json` must export to `NAME.expected.md` exactly; when
//! `NAME.form.txt` exists (one `field=value` per line, unencoded), the same choices posted as the
//! rendered form must export identically; when `NAME.error.txt` exists instead of an expected
//! export, the responses must be rejected with an error containing its text.

use passback_engine::{
    Doc, FormOp, FormPost, Responses, answers_from_form, answers_from_json, answers_to_json, export,
};
use std::fs;
use std::path::{Path, PathBuf};

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/answers");
    let mut docs: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("fixtures/answers exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "md")
                && !p.to_string_lossy().ends_with(".expected.md")
        })
        .collect();
    docs.sort();
    docs
}

fn sibling(doc: &Path, suffix: &str) -> PathBuf {
    let stem = doc
        .file_stem()
        .expect("a file name")
        .to_string_lossy()
        .to_string();
    doc.with_file_name(format!("{stem}{suffix}"))
}

fn form_pairs(text: &str, source: &str) -> Vec<(String, String)> {
    let mut pairs = vec![
        ("pb.source".to_string(), source.to_string()),
        ("pb.op".to_string(), "export".to_string()),
    ];
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (k, v) = line.split_once('=').unwrap_or((line, ""));
        pairs.push((k.to_string(), v.to_string()));
    }
    pairs
}

fn check(doc_path: &Path) -> Result<(), String> {
    let name = doc_path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .to_string();
    let src = fs::read_to_string(doc_path).map_err(|e| format!("{name}: {e}"))?;
    let doc = Doc::parse(&src);
    let responses_text = fs::read_to_string(sibling(doc_path, ".responses.json"))
        .map_err(|e| format!("{name}: missing .responses.json: {e}"))?;
    let json: serde_json::Value = serde_json::from_str(&responses_text)
        .map_err(|e| format!("{name}: bad responses JSON: {e}"))?;
    let result = answers_from_json(&doc, &json);
    if let Ok(error) = fs::read_to_string(sibling(doc_path, ".error.txt")) {
        return match result {
            Ok(r) => Err(format!(
                "{name}: expected rejection containing {:?}, got {r:?}",
                error.trim()
            )),
            Err(e) if e.to_string().contains(error.trim()) => Ok(()),
            Err(e) => Err(format!(
                "{name}: wrong error\n  expected to contain: {}\n  got: {e}",
                error.trim()
            )),
        };
    }
    let expected = fs::read_to_string(sibling(doc_path, ".expected.md"))
        .map_err(|e| format!("{name}: missing .expected.md: {e}"))?;
    let responses = result.map_err(|e| format!("{name}: responses rejected: {e}"))?;
    let export = export(&doc, &responses);
    if export.markdown != expected {
        return Err(format!(
            "{name}: JSON export differs\n--- expected\n{expected}--- got\n{}---",
            export.markdown
        ));
    }
    same_through_json(&name, "JSON", &doc, &responses, &expected)?;
    if let Ok(form) = fs::read_to_string(sibling(doc_path, ".form.txt")) {
        let pairs = form_pairs(&form, &src);
        let post = answers_from_form(&pairs).map_err(|e| format!("{name}: form rejected: {e}"))?;
        let from_form = passback_engine::export(&post.doc, &post.responses);
        if from_form.markdown != expected {
            return Err(format!(
                "{name}: form export differs from the JSON export\n--- expected\n{expected}--- got\n{}---",
                from_form.markdown
            ));
        }
        if post.op == FormOp::Export {
            same_through_json(&name, "form", &post.doc, &post.responses, &expected)?;
        }
        // The server's one-parse path answers the same post as the decode above: the same
        // export, or after a list edit the page `render_with_answers` gives.
        let options = passback_engine::Options::default();
        match passback_engine::answer_form(&pairs, &options) {
            Ok(passback_engine::FormOutcome::Export(e))
                if post.op == FormOp::Export && e.markdown == expected => {}
            Ok(passback_engine::FormOutcome::Edited(page))
                if post.op == FormOp::Edit
                    && page.html
                        == passback_engine::render_with_answers(
                            &src,
                            &options,
                            &post.responses,
                        )
                        .html => {}
            other => return Err(format!("{name}: answer_form gave {other:?}")),
        }
    }
    Ok(())
}

/// `responses` written as JSON (`answers_to_json`, and the comments on the prose beside them as
/// the `"annotations"` array) and read back export `expected` too: what a host keeps of a form
/// post means what the reader sent.
fn same_through_json(
    name: &str,
    path: &str,
    doc: &Doc,
    responses: &Responses,
    expected: &str,
) -> Result<(), String> {
    let mut json = answers_to_json(doc, responses);
    if !responses.annotations().is_empty() {
        let annotations = serde_json::to_value(responses.annotations()).expect("plain data");
        json["annotations"] = annotations;
    }
    let back = answers_from_json(doc, &json)
        .map_err(|e| format!("{name}: the {path} answers as JSON ({json}) are refused: {e}"))?;
    let again = export(doc, &back).markdown;
    if again != expected {
        return Err(format!(
            "{name}: the {path} answers through JSON ({json}) export differently\n--- expected\n{expected}--- got\n{again}---"
        ));
    }
    Ok(())
}

#[test]
fn every_answers_fixture_exports_as_expected() {
    let docs = fixtures();
    assert!(
        docs.len() >= 30,
        "expected the full answers corpus, found {}",
        docs.len()
    );
    let failures: Vec<String> = docs.iter().filter_map(|d| check(d).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n\n{}",
        failures.len(),
        docs.len(),
        failures.join("\n\n")
    );
}

/// The hand-written form fixtures use the field names the renderer really emits.
#[test]
fn form_fixtures_use_rendered_field_names() {
    for doc_path in fixtures() {
        let Ok(form) = fs::read_to_string(sibling(&doc_path, ".form.txt")) else {
            continue;
        };
        let src = fs::read_to_string(&doc_path).expect("readable fixture");
        let html = passback_engine::render(&src, &passback_engine::Options::default()).html;
        // The most authored ids in one fence.
        let authored = src
            .split("```")
            .map(|block| block.matches("\"id\"").count())
            .max()
            .unwrap_or(0);
        for line in form.lines().filter(|l| !l.is_empty()) {
            let name = line.split_once('=').map_or(line, |(k, _)| k);
            let index = name
                .rsplit('.')
                .next()
                .and_then(|n| n.parse::<usize>().ok());
            let dynamic =
                (name.contains(".w.") || name.contains(".was.") || name.contains(".pos."))
                    && index.is_some_and(|i| i >= authored);
            // Comments on leaves are fields the script makes.
            if dynamic || name.ends_with(".removed") || name.starts_with("pb.note.") {
                continue;
            }
            assert!(
                html.contains(&format!("name=\"{name}\"")),
                "{}: the form never renders a field named {name}",
                doc_path.display()
            );
        }
    }
}

/// The page rendered again with `responses` filled in.
fn page_with(src: &str, responses: &Responses) -> String {
    passback_engine::render_with_answers(src, &passback_engine::Options::default(), responses).html
}

fn post(src: &str, fields: &[(&str, &str)]) -> FormPost {
    let mut pairs = vec![("pb.source".to_string(), src.to_string())];
    pairs.extend(fields.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    answers_from_form(&pairs).expect("a valid post")
}

/// A list edit without JavaScript: the page comes back with the new state filled in, and the
/// state survives the next post.
#[test]
fn list_edits_round_trip_through_the_rendered_form() {
    let src = "```prioritize\n{\"version\":\"1\",\"items\":[{\"id\":\"eu\",\"label\":\"EU\"},{\"id\":\"us\",\"label\":\"US\"},{\"id\":\"apac\",\"label\":\"APAC\"}]}\n```\n";
    let p = post(
        src,
        &[
            ("b1.item", "i:eu"),
            ("b1.item", "i:us"),
            ("b1.item", "i:apac"),
            ("b1.op", "remove:0"),
            ("b1.add", "LATAM"),
        ],
    );
    assert_eq!(p.op, FormOp::Edit);
    let html = page_with(src, &p.responses);
    // The server's path parses the document once for the decode and the page: same page.
    let mut pairs = vec![("pb.source".to_string(), src.to_string())];
    for (k, v) in [
        ("b1.item", "i:eu"),
        ("b1.item", "i:us"),
        ("b1.item", "i:apac"),
        ("b1.op", "remove:0"),
        ("b1.add", "LATAM"),
    ] {
        pairs.push((k.to_string(), v.to_string()));
    }
    match passback_engine::answer_form(&pairs, &passback_engine::Options::default()) {
        Ok(passback_engine::FormOutcome::Edited(page)) => assert_eq!(page.html, html),
        other => panic!("expected the edited page, got {other:?}"),
    }
    let us = html.find("value=\"i:us\"").expect("us listed");
    let apac = html.find("value=\"i:apac\"").expect("apac listed");
    let latam = html
        .find("value=\"a:LATAM\"")
        .expect("the added item listed");
    assert!(us < apac && apac < latam, "order us, apac, LATAM");
    assert!(
        html.contains("name=\"b1.removed\" value=\"eu\""),
        "removed item carried"
    );
    assert!(html.contains("value=\"restore:eu\""), "a restore button");
    // Restore EU in the next post: it comes back where it was authored (first), as the
    // script's Undo puts it back, and the export reflects it.
    let p2 = post(
        src,
        &[
            ("b1.item", "i:us"),
            ("b1.item", "i:apac"),
            ("b1.item", "a:LATAM"),
            ("b1.removed", "eu"),
            ("b1.op", "restore:eu"),
        ],
    );
    let export = export(&p2.doc, &p2.responses).markdown;
    assert_eq!(
        export,
        "(reader edited the list)\n\n1. EU\n2. US\n3. APAC\n4. LATAM — (added by reader)\n"
    );
}

#[test]
fn answers_prefill_choices_and_notes() {
    let src = "```multi-choice\n{\"version\":\"1\",\"question\":\"Which?\",\"options\":[\"A\",\"B\",\"C\"]}\n```\n";
    let p = post(
        src,
        &[
            ("b1.q0.pick", "2"),
            ("b1.q0.other", "D"),
            ("b1.q0.note", "why not"),
        ],
    );
    let html = page_with(src, &p.responses);
    assert!(
        html.contains("value=\"2\" checked"),
        "C stays checked: {html}"
    );
    assert!(!html.contains("value=\"0\" checked"));
    assert!(html.contains("value=\"other\" checked"));
    assert!(html.contains("value=\"D\""));
    assert!(html.contains(">why not</textarea>"));
}

#[test]
fn allocate_form_rescales_and_says_so() {
    let src = "```allocate\n{\"version\":\"1\",\"items\":[{\"id\":\"a\",\"label\":\"A\",\"weight\":60},{\"id\":\"b\",\"label\":\"B\",\"weight\":40}]}\n```\n";
    let p = post(
        src,
        &[
            ("b1.item", "i:a"),
            ("b1.w.0", "30"),
            ("b1.item", "i:b"),
            ("b1.w.1", "30"),
        ],
    );
    let export = export(&p.doc, &p.responses);
    assert_eq!(
        export.notices,
        vec!["The split: the weights summed to 60%, so they were rescaled to 100%".to_string()]
    );
    assert!(export.markdown.contains("- A: 50% (was 60%)"));
    let bad = answers_from_form(&[
        ("pb.source".into(), src.into()),
        ("b1.w.0".into(), "lots".into()),
    ])
    .unwrap_err();
    assert!(
        bad.to_string()
            .contains("the weight of \"A\" must be a number"),
        "{bad}"
    );
    // Two 1e308 weights summed to infinity, and the export called the split unchanged.
    let huge = answers_from_form(&[
        ("pb.source".into(), src.into()),
        ("b1.item".into(), "i:a".into()),
        ("b1.w.0".into(), "1e308".into()),
        ("b1.item".into(), "i:b".into()),
        ("b1.w.1".into(), "1e308".into()),
    ])
    .unwrap_err();
    assert!(huge.to_string().contains("from 0 to 10^15"), "{huge}");
}

/// An arrow drawn twice between the same boxes keeps one comment per arrow through a round trip.
#[test]
fn repeated_edges_keep_their_own_comments() {
    let src = "```mermaid\n{\"version\":\"1\",\"source\":\"graph TD; A[One] --> B[Two]; A -->|again| B\"}\n```\n";
    let p = post(src, &[("b1.edge.0", "first"), ("b1.edge.1", "second")]);
    let html = page_with(src, &p.responses);
    let first = html
        .find(">first</textarea>")
        .expect("the first arrow keeps its comment");
    let second = html
        .find(">second</textarea>")
        .expect("the second arrow keeps its comment");
    assert!(first < second);
    let export = export(&p.doc, &p.responses).markdown;
    assert!(
        export.contains("— first") && export.contains("— second"),
        "{export}"
    );

    // A comment on the second arrow only stays on the second arrow's field.
    let p = post(src, &[("b1.edge.0", ""), ("b1.edge.1", "only the second")]);
    let html = page_with(src, &p.responses);
    let field = |n: usize| {
        let name = format!("name=\"b1.edge.{n}\"");
        let at = html.find(&name).expect("a field per arrow");
        let body = &html[at..];
        let open = body.find('>').unwrap() + 1;
        let close = body.find("</textarea>").unwrap();
        body[open..close].to_string()
    };
    assert_eq!(field(0), "");
    assert_eq!(field(1), "only the second");
}

#[test]
fn a_tampered_form_post_is_refused_naming_the_field() {
    let src = "```prioritize\n{\"version\":\"1\",\"items\":[{\"id\":\"eu\",\"label\":\"EU\"},{\"id\":\"us\",\"label\":\"US\"}]}\n```\n";
    for (field, value, says) in [
        (
            "b9.q0.pick",
            "1",
            "b9 q0.pick: the document has no block b9",
        ),
        (
            "b1.pos.0",
            "9",
            "b1 pos.0: \"9\" is not a position in this list of 2",
        ),
        ("b1.pos.1", "first", "b1 pos.1: \"first\" is not a position"),
    ] {
        let pairs: Vec<(String, String)> = [
            ("pb.source", src),
            ("b1.item", "i:eu"),
            ("b1.item", "i:us"),
            (field, value),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        match passback_engine::answer_form(&pairs, &passback_engine::Options::default()) {
            Err(e) => assert!(e.to_string().starts_with(says), "{field}: {e}"),
            Ok(_) => panic!("{field}={value} was accepted"),
        }
    }
}

#[test]
fn notices_name_a_block_by_its_title() {
    let src = "```allocate\n{\"version\":\"1\",\"title\":\"Team time\",\"items\":[{\"id\":\"a\",\"label\":\"A\",\"weight\":60},{\"id\":\"b\",\"label\":\"B\",\"weight\":40}]}\n```\n";
    let p = post(
        src,
        &[
            ("b1.item", "i:a"),
            ("b1.w.0", "30"),
            ("b1.item", "i:b"),
            ("b1.w.1", "30"),
        ],
    );
    let notices = export(&p.doc, &p.responses).notices;
    assert_eq!(
        notices,
        ["\u{201c}Team time\u{201d}: the weights summed to 60%, so they were rescaled to 100%"]
    );
    assert!(!notices[0].contains("b1"), "no internal id: {notices:?}");
}

#[test]
fn a_form_that_removed_every_item_says_so_beside_its_export() {
    let src = "```prioritize\n{\"version\":\"1\",\"items\":[{\"id\":\"eu\",\"label\":\"EU\"},{\"id\":\"us\",\"label\":\"US\"}]}\n```\n";
    let pairs: Vec<(String, String)> = [
        ("pb.source", src),
        ("b1.removed", "eu"),
        ("b1.removed", "us"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    match passback_engine::answer_form(&pairs, &passback_engine::Options::default()) {
        Ok(passback_engine::FormOutcome::Export(e)) => {
            assert_eq!(
                e.notices,
                ["The list to rank: every item was removed; restore or add one"]
            );
            assert_eq!(
                e.markdown,
                "(reader edited the list)\n\nRemoved by reader: EU; US\n"
            );
        }
        other => panic!("expected the export, got {other:?}"),
    }
}

/// Hand-made posts the rendered form never makes get the answer the JSON path gives, or are
/// ignored where the page has no such field, and never export what the reader could not have
/// chosen.
#[test]
fn hand_made_posts_do_not_export_what_the_form_cannot_hold() {
    let single = "```single-choice\n{\"version\":\"1\",\"question\":\"Which?\",\"options\":[\"A\",\"B\"]}\n```\n";
    let pairs = |fields: &[(&str, &str)]| -> Vec<(String, String)> {
        let mut pairs = vec![("pb.source".to_string(), single.to_string())];
        pairs.extend(fields.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        pairs
    };
    // An option and Other in one radio group.
    let both = answers_from_form(&pairs(&[
        ("b1.q0.pick", "0"),
        ("b1.q0.pick", "other"),
        ("b1.q0.other", "C"),
    ]))
    .unwrap_err();
    assert!(both.to_string().contains("takes one answer"), "{both}");

    // A note for a list whose note field is off: the page has no such box.
    let no_note = "```prioritize\n{\"version\":\"1\",\"note_field\":{\"enabled\":false},\"items\":[{\"id\":\"a\",\"label\":\"A\"},{\"id\":\"b\",\"label\":\"B\"}]}\n```\n";
    let p = post(no_note, &[("b1.note", "sneaked in")]);
    assert!(!export(&p.doc, &p.responses).markdown.contains("sneaked"));

    // Two added categories with the same label keep their own weights.
    let split = "```allocate\n{\"version\":\"1\",\"items\":[{\"id\":\"a\",\"label\":\"A\",\"weight\":50},{\"id\":\"b\",\"label\":\"B\",\"weight\":50}]}\n```\n";
    let p = post(
        split,
        &[
            ("b1.item", "i:a"),
            ("b1.w.0", "40"),
            ("b1.item", "i:b"),
            ("b1.w.1", "40"),
            ("b1.item", "a:Ops"),
            ("b1.w.2", "15"),
            ("b1.item", "a:Ops"),
            ("b1.w.3", "5"),
        ],
    );
    let md = export(&p.doc, &p.responses).markdown;
    assert!(
        md.contains("- Ops: 15% — (added by reader)\n- Ops: 5% — (added by reader)"),
        "{md}"
    );

    // Removing one of them keeps the other's weight: the 15% row goes, the 5% one stays.
    let p = post(
        split,
        &[
            ("b1.item", "i:a"),
            ("b1.w.0", "40"),
            ("b1.item", "i:b"),
            ("b1.w.1", "40"),
            ("b1.item", "a:Ops"),
            ("b1.w.2", "15"),
            ("b1.item", "a:Ops"),
            ("b1.w.3", "5"),
            ("b1.op", "remove:2"),
        ],
    );
    let md = export(&p.doc, &p.responses).markdown;
    assert!(
        md.contains("- A: 47% (was 50%)") && md.contains("- Ops: 6% — (added by reader)"),
        "{md}"
    );

    // An item removed twice is listed once.
    let p = post(
        split,
        &[
            ("b1.item", "i:a"),
            ("b1.item", "i:b"),
            ("b1.removed", "a"),
            ("b1.op", "remove:0"),
        ],
    );
    let md = export(&p.doc, &p.responses).markdown;
    assert!(
        md.contains("Removed by reader: A\n") && !md.contains("A; A"),
        "{md}"
    );

    // Fields for two blocks the document lacks: the first posted is named, every time.
    for _ in 0..8 {
        let e = answers_from_form(&pairs(&[("b7.q0.pick", "0"), ("b9.q0.pick", "1")])).unwrap_err();
        assert_eq!(e.block, "b7", "{e}");
    }
}

/// A host that keeps the document itself renders the form without its copy of the source, and
/// puts the document back into the post: the same export.
#[test]
fn a_form_without_its_source_exports_once_the_host_puts_it_back() {
    let src = "```single-choice\n{\"version\":\"1\",\"question\":\"Which?\",\"options\":[\"A\",\"B\"]}\n```\n";
    let carried = passback_engine::Options::default();
    let kept = carried.clone().with_form_source(false);
    assert!(
        passback_engine::render(src, &carried)
            .html
            .contains("name=\"pb.source\"")
    );
    let page = passback_engine::render(src, &kept).html;
    assert!(!page.contains("pb.source") && page.contains("name=\"b1.q0.pick\""));
    let p = post(src, &[("b1.q0.pick", "0")]);
    assert_eq!(
        export(&p.doc, &p.responses).markdown,
        "**Q: Which?**\nAnswer: A\n"
    );
}

/// A routed form that posts to a store (the host keeps the document) sends the answers: its
/// button says so in the document's language, and it asks for the reader's optional name, filled
/// in again when the page is shown with answers. Elsewhere the button stays "Get answers".
#[test]
fn a_routed_form_posting_to_a_store_says_send_and_asks_for_a_name() {
    use passback_engine::{Format, Options, Surface, render, render_with_answers};
    let src = "# Pick\n\n```single-choice\n{\"version\":\"1\",\"question\":\"Which?\",\"options\":[\"A\",\"B\"]}\n```\n";
    let store = Options::default()
        .with_surface(Surface::Routed)
        .with_format(Format::Fragment)
        .with_answers_action(Some("/r/abc/responses".into()))
        .with_form_source(false);
    let html = render(src, &store).html;
    assert!(html.contains(">Send answers</button>"), "{html}");
    assert!(!html.contains("Get answers"), "{html}");
    assert!(html.contains("name=\"pb.reviewer\""), "{html}");
    assert!(html.contains(">Your name (optional)</label>"), "{html}");
    let mut answers = passback_engine::answers_from_json(
        &Doc::parse(src),
        &serde_json::json!({ "b1": { "selected": ["A"] } }),
    )
    .expect("answers");
    answers.set_reviewer(Some("Noa \"N\" Levi".into()));
    let again = render_with_answers(src, &store, &answers).html;
    assert!(
        again.contains("value=\"Noa &quot;N&quot; Levi\""),
        "{again}"
    );
    // Hebrew chrome for a Hebrew document.
    let he = "# בחירה\n\nאיזו אפשרות מתאימה לנו?\n\n```single-choice\n{\"version\":\"1\",\"question\":\"איזו?\",\"options\":[\"א\",\"ב\"]}\n```\n";
    let html = render(he, &store).html;
    assert!(html.contains(">שליחת התשובות</button>"), "{html}");
    // The same surface posting to the stateless /v1/answers (the form carries the document):
    // the answers only come back to the reader.
    let stateless = render(src, &Options::default().with_surface(Surface::Routed)).html;
    assert!(stateless.contains(">Get answers</button>"));
    assert!(!stateless.contains("pb.reviewer"));
    let page = render(src, &Options::default()).html;
    assert!(page.contains(">Get answers</button>") && !page.contains("pb.reviewer"));
}
