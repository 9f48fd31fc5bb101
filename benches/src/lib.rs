//! Inputs for the benches: documents of a given size that mix prose, tables and every
//! component kind, and the same documents as plain comrak sees them.
//!
//! Two families, both measured: `typical` documents are prose-led (one component after every
//! ~2.5 KB of prose, tables and lists, so each 20 KB holds every kind once); `dense` documents
//! are mostly components (every kind in every 3.4 KB section), the worst case for the renderer.

pub mod chart;

/// One section: prose, a table, and one component of each kind (about 3.4 KB).
fn section(n: usize) -> String {
    format!(
        r#"## Part {n}: the rollout

The plan for part {n} is mostly settled. We ship the **kiosk flow** first, then the mobile
flow, and we keep the _old desk flow_ as a fallback for a quarter. See [the brief](https://example.com/brief/{n})
and the notes below; ~~nothing~~ little here is new.

| Step | Owner | Weeks |
|---|---|---:|
| Kiosk | Dana | 3 |
| Mobile | Lior | 5 |
| Desk | Sam | 1 |

- [x] brief written
- [ ] legal sign-off

```single-choice
{{ "version": "1", "question": "Which auth method ships in part {n}?", "options": ["PIN", "Room number", "Magic link"], "recommended": "Magic link" }}
```

```multi-choice
{{ "version": "1", "question": "Which locales at launch?", "options": ["English", "Hebrew", "Arabic"], "recommended": ["English", "Hebrew"] }}
```

```open-question
{{ "version": "1", "question": "What is the retention constraint from legal?", "placeholder": "e.g. delete after 30 days" }}
```

```questionnaire
{{ "version": "1", "title": "Open decisions {n}", "questions": [
  {{ "id": "q1", "section": "Auth", "question": "Offer biometrics in v1?", "options": ["No", "Opt-in", "Required"], "recommended": "No" }},
  {{ "id": "q2", "section": "Data", "question": "Which fields do we collect?", "multi": true, "options": ["Name", "Phone", "Email"] }},
  {{ "id": "q3", "question": "Target date?", "options": [], "open_field": {{ "label": "Date:" }} }}
] }}
```

```prioritize
{{ "version": "1", "title": "Order {n}", "items": [
  {{ "id": "eu", "label": "EU", "context": "largest waitlist" }},
  {{ "id": "us", "label": "US" }},
  {{ "id": "apac", "label": "APAC" }}
] }}
```

```allocate
{{ "version": "1", "items": [
  {{ "id": "product", "label": "Product", "weight": 40 }},
  {{ "id": "infra", "label": "Infra", "weight": 35 }},
  {{ "id": "support", "label": "Support", "weight": 25 }}
] }}
```

```youtube
{{ "version": "1", "id": "dQw4w9WgXcQ", "title": "Walkthrough {n}" }}
```

```mermaid
{{ "version": "1", "source": "graph TD; A[Paste] --> B[Review] --> C[Copy back]; B -->|edit| A;", "title": "Loop {n}" }}
```

"#
    )
}

/// A dense document of about `bytes` bytes (at least one whole section).
pub fn dense(bytes: usize) -> String {
    let mut doc = String::from("# Decision document\n\nIntro prose for the reader.\n\n");
    let mut n = 1;
    while doc.len() < bytes {
        let s = section(n);
        if doc.len() + s.len() > bytes && n > 1 {
            // Pad with prose to land near the size instead of overshooting by a section.
            while doc.len() < bytes {
                doc.push_str("More context for the reader, settled and written as prose.\n");
            }
            break;
        }
        doc.push_str(&s);
        n += 1;
    }
    doc
}

/// One component of each kind, in the order a prose-led document cycles through them.
pub const COMPONENTS: [&str; 8] = [
    r#"```single-choice
{ "version": "1", "question": "Which auth method ships first?", "options": ["PIN", "Room number", "Magic link"], "recommended": "Magic link" }
```"#,
    r#"```mermaid
{ "version": "1", "source": "graph TD; A[Paste] --> B[Review] --> C[Copy back]; B -->|edit| A;", "title": "The review loop" }
```"#,
    r#"```multi-choice
{ "version": "1", "question": "Which locales at launch?", "options": ["English", "Hebrew", "Arabic"], "recommended": ["English", "Hebrew"] }
```"#,
    r#"```prioritize
{ "version": "1", "title": "Launch order", "items": [
  { "id": "eu", "label": "EU", "context": "largest waitlist" },
  { "id": "us", "label": "US" },
  { "id": "apac", "label": "APAC" }
] }
```"#,
    r#"```open-question
{ "version": "1", "question": "What is the retention constraint from legal?", "placeholder": "e.g. delete after 30 days" }
```"#,
    r#"```allocate
{ "version": "1", "items": [
  { "id": "product", "label": "Product", "weight": 40 },
  { "id": "infra", "label": "Infra", "weight": 35 },
  { "id": "support", "label": "Support", "weight": 25 }
] }
```"#,
    r#"```questionnaire
{ "version": "1", "title": "Open decisions", "questions": [
  { "id": "q1", "section": "Auth", "question": "Offer biometrics in v1?", "options": ["No", "Opt-in", "Required"], "recommended": "No" },
  { "id": "q2", "section": "Data", "question": "Which fields do we collect?", "multi": true, "options": ["Name", "Phone", "Email"] },
  { "id": "q3", "question": "Target date?", "options": [], "open_field": { "label": "Date:" } }
] }
```"#,
    r#"```youtube
{ "version": "1", "id": "dQw4w9WgXcQ", "title": "Walkthrough" }
```"#,
];

/// One chapter of a prose-led document: about 2.5 KB of headings, paragraphs, a table, lists,
/// a quote and a code sample, then one component.
fn chapter(n: usize) -> String {
    format!(
        r#"## {n}. Where the check-in flow stands

Guests reach the front desk tired, often late at night, and the current flow asks them for
the same details three times. Over the last quarter we watched **412 check-ins** across four
properties; the median took _six minutes_, and one in nine needed a second member of staff.
The brief for this part is short: cut the wait, keep the audit trail, and do not make the desk
team learn a new system in the middle of the season. See [the research notes](https://example.com/notes/{n})
and the [raw timings](https://example.com/timings/{n}.csv) for the detail behind these figures.

### What we measured

| Step | Median | Worst decile | Owner |
|---|---:|---:|---|
| Find the booking | 0:48 | 2:10 | Desk |
| Confirm identity | 1:35 | 4:05 | Desk |
| Take payment | 1:12 | 3:30 | Payments |
| Issue the key | 0:40 | 1:55 | Desk |

Most of the time goes to identity and payment. Both steps repeat information the guest already
gave when booking, which is why the kiosk prototype pre-fills them from the confirmation email.

> The desk team's view, from the March workshop: "anything that saves us typing the booking
> number again is welcome, anything that adds a screen is not."

### Constraints we already know

1. Payment data never touches our servers; the terminal provider keeps it.
2. Identity checks stay with a person for anyone under 25 or paying cash.
3. The audit log keeps every step for ~~five~~ seven years, per the new policy.
4. Each property may switch the kiosk off without a release.

- [x] timings collected at all four properties
- [x] prototype tested with twelve guests
- [ ] legal review of the identity step

A sketch of the pre-fill call the kiosk makes, for reference:

```rust
let booking = bookings.find(&confirmation_code)?;
kiosk.prefill(booking.guest(), booking.nights());
```

{component}

"#,
        component = COMPONENTS[(n - 1) % COMPONENTS.len()]
    )
}

/// A prose-led document of about `bytes` bytes (at least one chapter).
pub fn typical(bytes: usize) -> String {
    let mut doc = String::from(
        "# Check-in redesign: decisions

What we know, and what we need from you.

",
    );
    let mut n = 1;
    loop {
        let c = chapter(n);
        if doc.len() + c.len() / 2 > bytes && n > 1 {
            break;
        }
        doc.push_str(&c);
        n += 1;
    }
    doc
}

/// Plain comrak over the same Markdown with the same extensions; component fences stay code
/// blocks. The baseline every render is compared with.
pub fn comrak_only(doc: &str) -> String {
    let options = passback_engine::markdown::comrak_options(false);
    comrak::markdown_to_html(doc, &options)
}

/// A flowchart of `nodes` nodes: a chain plus a cross edge every few nodes, some labelled.
/// A flowchart of `nodes` nodes written as Mermaid's documentation writes them: `@{ shape }`
/// nodes, markdown labels, subgraphs of five, and edges into a subgraph past its other boxes
/// (each routed around them).
pub fn mermaid_flowchart(nodes: usize) -> String {
    let shapes = ["rect", "cyl", "diam", "stadium", "hex"];
    let mut src = String::from("flowchart TB\n  accTitle: Generated\n");
    for g in 0..nodes.div_ceil(5) {
        src.push_str(&format!("  subgraph group-{g} [Group {g}]\n"));
        for k in 0..5.min(nodes - 5 * g) {
            let i = 5 * g + k;
            let shape = shapes[i % shapes.len()];
            src.push_str(&format!(
                "    n-{i}@{{ shape: {shape}, label: \"Step {i}\" }}\n"
            ));
            if k > 0 {
                src.push_str(&format!("    n-{} --> n-{i}\n", i - 1));
            }
        }
        src.push_str("  end\n");
        if g > 0 {
            let last = (5 * g + 4).min(nodes - 1);
            src.push_str(&format!(
                "  n-{} -->|\"`**next** group`\"| n-{last}\n",
                5 * g - 5
            ));
        }
    }
    src
}

pub fn flowchart(nodes: usize) -> String {
    let mut src = String::from("graph TD\n");
    for i in 1..nodes {
        src.push_str(&format!(
            "  n{}[Step {}] --> n{i}[Step {i}]\n",
            i - 1,
            i - 1
        ));
    }
    for i in (0..nodes.saturating_sub(3)).step_by(3) {
        src.push_str(&format!("  n{i} -->|skip {i}| n{}\n", i + 3));
    }
    src
}

/// A state diagram of `states` states: a chain with a labelled transition between each pair,
/// every fifth state a composite of two states, a choice every seventh, a note every eleventh.
pub fn state(states: usize) -> String {
    let mut src = String::from("stateDiagram-v2\n  [*] --> s0\n");
    for i in 0..states {
        if i % 5 == 4 {
            src.push_str(&format!(
                "  state s{i} {{\n    [*] --> a{i}\n    a{i} --> b{i} : inner\n    b{i} --> [*]\n  }}\n"
            ));
        }
        if i % 7 == 6 {
            src.push_str(&format!("  state s{i} <<choice>>\n"));
        }
        if i + 1 < states {
            src.push_str(&format!("  s{i} --> s{} : step {i}\n", i + 1));
        }
        if i % 11 == 10 {
            src.push_str(&format!("  note right of s{i} : checked {i}\n"));
        }
    }
    src.push_str(&format!("  s{} --> [*]\n", states.saturating_sub(1)));
    src
}

/// An ER diagram of `entities` entities: each with four attributes (a key, a foreign key, a
/// commented column), joined to the one before it and, every third, to one three back, with
/// the cardinalities and both kinds of line in turn.
pub fn er(entities: usize) -> String {
    let cards = ["||--o{", "|o--|{", "}|..||", "||..o|", "}o--o{"];
    let mut src = String::from(
        "erDiagram
",
    );
    for i in 0..entities {
        src.push_str(&format!(
            "  E{i} {{
    int id PK
    int parent_id FK
    string name \"shown to people\"
    decimal(10) amount
  }}
"
        ));
        if i > 0 {
            let c = cards[i % cards.len()];
            src.push_str(&format!(
                "  E{} {c} E{i} : \"holds {i}\"
",
                i - 1
            ));
        }
        if i >= 3 && i % 3 == 0 {
            src.push_str(&format!(
                "  E{} ||..o{{ E{i} : refers
",
                i - 3
            ));
        }
    }
    src
}

/// A class diagram of `classes` classes: two members and two methods each (one static, one
/// abstract, generics among them), every fourth class an interface, each class related to
/// the one before it with the six relations in turn (cardinalities on every other), classes
/// in namespaces of five, and a note every tenth class.
pub fn class(classes: usize) -> String {
    let rels = ["<|--", "*--", "o--", "-->", "..>", "..|>"];
    let mut src = String::from("classDiagram\n");
    for ns in 0..classes.div_ceil(5) {
        src.push_str(&format!("  namespace N{ns} {{\n"));
        for i in ns * 5..(ns * 5 + 5).min(classes) {
            src.push_str(&format!(
                "    class C{i} {{\n      +int id\n      -List~String~ names\n      +count()$ int\n      +apply(item)* bool\n    }}\n"
            ));
        }
        src.push_str("  }\n");
    }
    for i in 0..classes {
        if i % 4 == 3 {
            src.push_str(&format!("  <<interface>> C{i}\n"));
        }
        if i > 0 {
            let r = rels[i % rels.len()];
            if i % 2 == 0 {
                src.push_str(&format!(
                    "  C{} \"1\" {r} \"many\" C{i} : holds {i}\n",
                    i - 1
                ));
            } else {
                src.push_str(&format!("  C{} {r} C{i}\n", i - 1));
            }
        }
        if i % 10 == 9 {
            src.push_str(&format!("  note for C{i} \"checked every {i} s\"\n"));
        }
    }
    src
}

/// A sequence diagram of `messages` messages among five participants: requests and dotted
/// replies, a note every few messages and a loop around the middle.
pub fn sequence(messages: usize) -> String {
    let names = ["Client", "Gateway", "Auth", "Store", "Queue"];
    let mut src = String::from("sequenceDiagram\n  autonumber\n  actor Client\n");
    let half = messages / 2;
    for i in 0..messages {
        if i == messages / 3 {
            src.push_str("  loop every retry\n");
        }
        let from = names[i % names.len()];
        let to = names[(i * 3 + 1) % names.len()];
        let arrow = if i % 2 == 0 { "->>" } else { "-->>" };
        src.push_str(&format!("  {from}{arrow}{to}: step {i}\n"));
        if i % 7 == 3 {
            src.push_str(&format!("  Note right of {to}: checked {i}\n"));
        }
        if i == half {
            src.push_str("  end\n");
        }
    }
    if messages / 3 > half {
        src.push_str("  end\n");
    }
    src
}

/// A gantt chart of `tasks` tasks: a section every five, each task after the one before it or
/// on a date, durations in days, weeks and hours in turn, the tags in turn, a milestone every
/// seventh, weekends excluded, and an axis format and tick interval.
pub fn gantt(tasks: usize) -> String {
    let mut src = String::from(
        "gantt\n  title Release plan\n  dateFormat YYYY-MM-DD\n  axisFormat %b %d\n  excludes weekends\n  tickInterval 1week\n",
    );
    let tags = ["", "done, ", "active, ", "crit, ", "crit, done, "];
    let lengths = ["3d", "1w", "36h", "2d", "5d"];
    for i in 0..tasks {
        if i % 5 == 0 {
            src.push_str(&format!("  section Stage {}\n", i / 5 + 1));
        }
        let start = if i == 0 || i % 4 == 0 {
            format!("2024-{:02}-{:02}", 1 + (i / 40) % 12, 1 + i % 28)
        } else {
            format!("after t{}", i - 1)
        };
        if i % 7 == 6 {
            src.push_str(&format!("  Milestone {i} : milestone, t{i}, {start}, 0d\n"));
        } else {
            src.push_str(&format!(
                "  Task number {i} : {}t{i}, {start}, {}\n",
                tags[i % tags.len()],
                lengths[i % lengths.len()]
            ));
        }
    }
    src
}
