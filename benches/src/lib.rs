//! Inputs for the benches: documents of a given size that mix prose, tables and every
//! component kind, and the same documents as plain comrak sees them.

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

/// A document of at least `bytes` bytes.
pub fn document(bytes: usize) -> String {
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

/// Plain comrak over the same Markdown with the same extensions; component fences stay code
/// blocks. The baseline every render is compared with.
pub fn comrak_only(doc: &str) -> String {
    let options = passback_engine::document::comrak_options(false);
    comrak::markdown_to_html(doc, &options)
}

/// A flowchart of `nodes` nodes: a chain plus a cross edge every few nodes, some labelled.
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
