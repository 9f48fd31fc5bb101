//! Recipients and a verdict (contract §6.2): what a sender may ask for when routing, checked
//! and bounded; each recipient's link secret; the verdict's line in the export.

use super::error::RoutingError;
use crate::quote::truncate;
use crate::store::{self, NewRecipient, Recipient};
use serde_json::{Map, Value, json};

/// Recipients one document names at most.
pub const MAX_RECIPIENTS: usize = 100;
/// The longest recipient name, in characters.
pub const MAX_RECIPIENT_NAME: usize = 200;
/// The longest sender name, in characters (as given, before cleaning).
pub const MAX_SENDER_NAME: usize = 200;
/// The longest email address kept.
pub const MAX_EMAIL: usize = 254;
/// A verdict offers this many choices, at least and at most.
pub const VERDICT_CHOICES: std::ops::RangeInclusive<usize> = 2..=6;
/// The longest verdict label, in characters.
pub const MAX_VERDICT_LABEL: usize = 60;
/// The choices of `"verdict": true` in English; a document in another language gets its
/// own language's (see [`Asks::in_language`]).
pub const DEFAULT_VERDICT: [&str; 3] = ["Approve", "Request changes", "Reject"];
/// Bytes of randomness in a recipient's link secret (128 bits).
pub const RECIPIENT_SECRET_BYTES: usize = 16;

/// What a sender asks for beyond the document: who it goes to, whether a verdict is asked,
/// and the name the review page introduces its sender by.
#[derive(Debug, Clone, Default)]
pub struct Asks {
    pub recipients: Vec<(String, Option<String>)>,
    pub verdict: Option<Vec<String>>,
    /// Whether `verdict` holds the default choices (`"verdict": true`): they are then written
    /// in the document's language (see [`Asks::in_language`]).
    pub default_verdict: bool,
    /// The sender's display name ("Dana from Finance"), cleaned as a recipient's name is.
    pub sender: Option<String>,
}

impl Asks {
    /// `recipients`, `verdict` and `sender` of a JSON body (or a tool's arguments), checked.
    /// The error names the field and what to give instead.
    pub fn from_fields(fields: &Map<String, Value>) -> Result<Asks, RoutingError> {
        Ok(Asks {
            recipients: recipients(fields.get("recipients"))?,
            verdict: verdict(fields.get("verdict"))?,
            default_verdict: matches!(fields.get("verdict"), Some(Value::Bool(true))),
            sender: sender(fields.get("sender"))?,
        })
    }

    /// These asks for a document whose chrome speaks `choices`' language: the default verdict
    /// choices are written in it, so a Hebrew or Arabic review page, its responses and its
    /// export name the verdict in the document's language. A sender's own labels stay as given.
    pub fn in_language(mut self, choices: [&str; 3]) -> Asks {
        if self.default_verdict {
            self.verdict = Some(choices.map(String::from).to_vec());
        }
        self
    }
}

/// `sender` of a routing request: a display name of at most [`MAX_SENDER_NAME`] characters,
/// cleaned as a recipient's name is ([`clean_name`]); `null`, or a name that is empty once
/// cleaned, is none.
fn sender(value: Option<&Value>) -> Result<Option<String>, RoutingError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.chars().count() <= MAX_SENDER_NAME => {
            let name = clean_name(s);
            Ok((!name.is_empty()).then_some(name))
        }
        Some(Value::String(s)) => Err(refuse(format!(
            "\"sender\" is {} characters long; give a display name of at most {MAX_SENDER_NAME}, such as \"Dana from Finance\".",
            s.chars().count()
        ))),
        Some(other) => Err(refuse(format!(
            "\"sender\" must be a display name such as \"Dana from Finance\" (a string), or left out; not {}.",
            truncate(&other.to_string())
        ))),
    }
}

fn refuse(said: String) -> RoutingError {
    RoutingError::Field(said)
}

/// A name as kept: line breaks and other control characters become spaces, and the Unicode
/// controls that reorder text (embeddings, overrides, isolates, marks) are dropped, so a name
/// shows as one line that cannot turn the text around it; runs of spaces become one.
pub fn clean_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        let c = if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
            ' '
        } else {
            c
        };
        if matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        {
            continue;
        }
        if c == ' ' && (out.is_empty() || out.ends_with(' ')) {
            continue;
        }
        out.push(c);
    }
    out.trim_end().to_string()
}

fn recipients(value: Option<&Value>) -> Result<Vec<(String, Option<String>)>, RoutingError> {
    let list = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(list)) => list,
        Some(other) => {
            return Err(refuse(format!(
                "\"recipients\" must be a list such as [{{\"name\": \"Dana\", \"email\": \"dana@example.com\"}}], not {}.",
                truncate(&other.to_string())
            )));
        }
    };
    if list.len() > MAX_RECIPIENTS {
        return Err(refuse(format!(
            "\"recipients\" lists {} people; a document is sent to at most {MAX_RECIPIENTS}.",
            list.len()
        )));
    }
    let mut out = Vec::with_capacity(list.len());
    for (n, entry) in list.iter().enumerate() {
        let Value::Object(fields) = entry else {
            return Err(refuse(format!(
                "\"recipients[{n}]\" must be an object such as {{\"name\": \"Dana\"}}."
            )));
        };
        if let Some(other) = fields
            .keys()
            .find(|k| !matches!(k.as_str(), "name" | "email"))
        {
            return Err(refuse(format!(
                "\"recipients[{n}].{}\" is not a field of a recipient; give \"name\" and, if you like, \"email\".",
                truncate(other)
            )));
        }
        let name = match fields.get("name") {
            Some(Value::String(s)) => clean_name(s),
            _ => String::new(),
        };
        if name.is_empty() || name.chars().count() > MAX_RECIPIENT_NAME {
            return Err(refuse(format!(
                "\"recipients[{n}].name\" must be a name of 1 to {MAX_RECIPIENT_NAME} characters."
            )));
        }
        let email = match fields.get("email") {
            None | Some(Value::Null) => None,
            Some(Value::String(s))
                if s.len() <= MAX_EMAIL
                    && s.contains('@')
                    && !s.chars().any(|c| c.is_whitespace() || c.is_control()) =>
            {
                Some(s.clone())
            }
            Some(_) => {
                return Err(refuse(format!(
                    "\"recipients[{n}].email\" must be an email address (at most {MAX_EMAIL} characters), or left out."
                )));
            }
        };
        out.push((name, email));
    }
    Ok(out)
}

fn verdict(value: Option<&Value>) -> Result<Option<Vec<String>>, RoutingError> {
    let said = || {
        refuse(format!(
            "\"verdict\" must be true (the choices {}), false, or a list of {} to {} distinct labels of at most {MAX_VERDICT_LABEL} characters on one line, such as [\"Ship it\", \"Needs work\"].",
            DEFAULT_VERDICT.join(" / "),
            VERDICT_CHOICES.start(),
            VERDICT_CHOICES.end()
        ))
    };
    match value {
        None | Some(Value::Null) | Some(Value::Bool(false)) => Ok(None),
        Some(Value::Bool(true)) => Ok(Some(DEFAULT_VERDICT.map(String::from).to_vec())),
        Some(Value::Array(list)) if VERDICT_CHOICES.contains(&list.len()) => {
            let mut labels: Vec<String> = Vec::with_capacity(list.len());
            for v in list {
                let label = v.as_str().map(clean_name).unwrap_or_default();
                if label.is_empty()
                    || label.chars().count() > MAX_VERDICT_LABEL
                    || labels.contains(&label)
                {
                    return Err(said());
                }
                labels.push(label);
            }
            Ok(Some(labels))
        }
        Some(_) => Err(said()),
    }
}

/// The recipients to keep with a new document, each with a fresh secret: the secrets (for the
/// links), and what the store keeps (their hashes).
pub fn new_recipients(
    asked: &[(String, Option<String>)],
) -> Result<(Vec<String>, Vec<NewRecipient>), store::StoreError> {
    let mut secrets = Vec::with_capacity(asked.len());
    let mut kept = Vec::with_capacity(asked.len());
    for (name, email) in asked {
        let secret = store::random_secret(RECIPIENT_SECRET_BYTES)?;
        kept.push(NewRecipient {
            secret_hash: secret_hash(&secret),
            name: name.clone(),
            email: email.clone(),
        });
        secrets.push(secret);
    }
    Ok((secrets, kept))
}

/// What the store keeps of a recipient's secret.
pub fn secret_hash(secret: &str) -> [u8; 32] {
    *blake3::hash(secret.as_bytes()).as_bytes()
}

/// Whether `s` has the shape of a recipient's secret (22 base64url characters).
pub fn is_recipient_secret(s: &str) -> bool {
    store::is_document_id(s)
}

/// A recipient's review link under `origin`.
pub fn recipient_url(origin: &str, id: &str, secret: &str) -> String {
    format!("{origin}/r/{id}?for={secret}")
}

/// A recipient as the sender sees them in `GET /v1/documents/{id}`: `status` is `answered`,
/// `opened` or `not_opened`.
pub fn recipient_json(r: &Recipient) -> Value {
    let status = if r.answered_at.is_some() {
        "answered"
    } else if r.opened_at.is_some() {
        "opened"
    } else {
        "not_opened"
    };
    json!({
        "name": r.name,
        "email": r.email,
        "status": status,
        "opened_at": r.opened_at.map(store::rfc3339),
        "answered_at": r.answered_at.map(store::rfc3339),
    })
}

/// The verdict `given` as one of `choices`: `Ok(None)` when none was given; the error names the
/// field and the choices.
pub fn chosen_verdict(
    choices: Option<&[String]>,
    given: Option<&str>,
) -> Result<Option<String>, String> {
    let Some(given) = given.filter(|g| !g.is_empty()) else {
        return Ok(None);
    };
    match choices {
        None => Err("\"verdict\": this document asks for no verdict; leave it out.".into()),
        Some(choices) => choices
            .iter()
            .find(|c| c.as_str() == given)
            .map(|c| Some(c.clone()))
            .ok_or_else(|| {
                format!(
                    "\"verdict\" must be one of {}, not \"{}\".",
                    choices
                        .iter()
                        .map(|c| format!("\"{c}\""))
                        .collect::<Vec<_>>()
                        .join(", "),
                    truncate(given)
                )
            }),
    }
}

/// `export` ending with `Verdict: {label}` when one was chosen. The label is one of the
/// sender's (one line, checked when routed); it is still written on one line with `<` as
/// `&lt;`, so it can never start an entry or open HTML in a rendering of the export.
pub fn with_verdict_line(export: String, verdict: Option<&str>) -> String {
    let Some(label) = verdict else {
        return export;
    };
    let mut out = export.trim_end().to_string();
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str("Verdict: ");
    for c in clean_name(label).chars() {
        match c {
            '<' => out.push_str("&lt;"),
            c => out.push(c),
        }
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_one_line_that_cannot_reorder_text() {
        assert_eq!(clean_name("  Dana\n\r Q. "), "Dana Q.");
        assert_eq!(clean_name("a\u{202e}b\u{2066}c\u{2028}d"), "abc d");
        assert_eq!(clean_name("<b>x</b>"), "<b>x</b>");
    }

    #[test]
    fn recipients_and_verdicts_are_bounded_and_named() {
        let ok = json!({"recipients": [{"name": "Dana"}, {"name": "Lee", "email": "l@x.org"}], "verdict": true});
        let asks = Asks::from_fields(ok.as_object().unwrap()).unwrap();
        assert_eq!(asks.recipients.len(), 2);
        assert_eq!(asks.verdict.unwrap(), DEFAULT_VERDICT);
        let many: Vec<Value> = (0..=MAX_RECIPIENTS).map(|_| json!({"name": "x"})).collect();
        for (bad, names) in [
            (json!({"recipients": many}), "\"recipients\""),
            (json!({"recipients": [{"name": ""}]}), "recipients[0].name"),
            (
                json!({"recipients": [{"name": "x".repeat(201)}]}),
                "recipients[0].name",
            ),
            (
                json!({"recipients": [{"name": "x", "email": "no"}]}),
                "recipients[0].email",
            ),
            (
                json!({"recipients": [{"name": "x", "role": "y"}]}),
                "recipients[0].role",
            ),
            (json!({"verdict": ["one"]}), "\"verdict\""),
            (json!({"verdict": ["a", "a"]}), "\"verdict\""),
            (json!({"verdict": ["a", "b".repeat(61)]}), "\"verdict\""),
            (json!({"verdict": "yes"}), "\"verdict\""),
        ] {
            let err = Asks::from_fields(bad.as_object().unwrap())
                .unwrap_err()
                .to_string();
            assert!(err.contains(names), "{bad}: {err}");
        }
    }

    #[test]
    fn a_sender_name_is_bounded_and_cleaned() {
        let asks = |v: Value| Asks::from_fields(json!({ "sender": v }).as_object().unwrap());
        assert_eq!(
            asks(json!(" Dana from\nFinance "))
                .unwrap()
                .sender
                .as_deref(),
            Some("Dana from Finance")
        );
        // Overrides and isolates are dropped: the name cannot turn the intro's text around.
        assert_eq!(
            asks(json!("\u{202e}Dana\u{2066} \u{200f}Q.\u{2069}"))
                .unwrap()
                .sender
                .as_deref(),
            Some("Dana Q.")
        );
        // HTML is kept as text; the page escapes it.
        assert_eq!(
            asks(json!("<img src=x onerror=alert(1)>"))
                .unwrap()
                .sender
                .as_deref(),
            Some("<img src=x onerror=alert(1)>")
        );
        assert_eq!(asks(json!("\u{202e}\u{0007} ")).unwrap().sender, None);
        assert_eq!(asks(Value::Null).unwrap().sender, None);
        assert!(asks(json!("x".repeat(MAX_SENDER_NAME))).is_ok());
        for bad in [
            json!("x".repeat(MAX_SENDER_NAME + 1)),
            json!(7),
            json!(["Dana"]),
        ] {
            let err = asks(bad.clone()).unwrap_err().to_string();
            assert!(err.contains("\"sender\""), "{bad}: {err}");
        }
    }

    #[test]
    fn default_verdict_choices_speak_the_document_language() {
        let he = ["מאשר", "לתקן", "דוחה"];
        let asks = |v: Value| {
            Asks::from_fields(json!({ "verdict": v }).as_object().unwrap())
                .unwrap()
                .in_language(he)
                .verdict
        };
        assert_eq!(asks(json!(true)).unwrap(), he);
        // The sender's own labels, even the English defaults spelled out, stay as given.
        assert_eq!(asks(json!(DEFAULT_VERDICT)).unwrap(), DEFAULT_VERDICT);
        assert_eq!(asks(json!(false)), None);
    }

    #[test]
    fn a_verdict_is_one_of_the_choices_and_ends_the_export() {
        let choices = vec!["Ship it".to_string(), "Needs work".to_string()];
        assert_eq!(
            chosen_verdict(Some(&choices), Some("Ship it")).unwrap(),
            Some("Ship it".into())
        );
        assert_eq!(chosen_verdict(Some(&choices), None).unwrap(), None);
        assert!(chosen_verdict(Some(&choices), Some("ship it")).is_err());
        assert!(chosen_verdict(None, Some("Ship it")).is_err());
        assert_eq!(
            with_verdict_line("**Q: x**\nAnswer: y\n".into(), Some("<b>Ok")),
            "**Q: x**\nAnswer: y\n\nVerdict: &lt;b>Ok\n"
        );
        assert_eq!(with_verdict_line("e\n".into(), None), "e\n");
    }
}
