//! What every component's parser shares: the checker that reports problems with their place,
//! the envelope fields (`routing`, `note_field`), and the note box they render.

use super::shared::Shared;
use crate::diag::{Code, Diagnostic, Severity, push_token};
use crate::html::{Text, escape_into};
use crate::json::{Json, Member, Value, same};
use maud::{Markup, html};
use std::borrow::Cow;
use std::cell::OnceCell;
use std::fmt::Display;
use std::sync::Arc;

/// `routing`: who sent the document and what to do with the answers (spec §5).
#[derive(Debug, Clone, PartialEq)]
pub struct Routing {
    pub from: Shared,
    pub return_prompt: Shared,
}

impl Routing {
    /// The return prompt with every occurrence of `from` in bold.
    pub fn render(&self) -> Markup {
        self.markup(None)
    }

    /// As [`Routing::render`], styled inline for mail.
    pub fn render_email(&self) -> Markup {
        self.markup(Some(crate::html::email::MUTED))
    }

    fn markup(&self, style: Option<&str>) -> Markup {
        let mut pieces: Vec<(bool, &str)> = Vec::new();
        let mut rest = self.return_prompt.as_str();
        while let Some(i) = rest.find(self.from.as_str()) {
            pieces.push((false, &rest[..i]));
            pieces.push((true, &rest[i..i + self.from.len()]));
            rest = &rest[i + self.from.len()..];
        }
        pieces.push((false, rest));
        html! {
            p class=[style.is_none().then_some("pb-routing")] style=[style] {
                @for (bold, text) in pieces {
                    @if bold { strong { (Text(text)) } } @else { (Text(text)) }
                }
            }
        }
    }
}

/// `note_field`: the optional block-level note of prioritize and allocate.
#[derive(Debug, Clone, PartialEq)]
pub struct NoteField {
    pub enabled: bool,
    /// The author's label; `None` means the localized default.
    pub label: Option<Shared>,
}

/// The strings met so far in one list (option labels, item or question ids), borrowed from the
/// JSON. A list holds a handful, so they sit in an array that is scanned, which costs less than
/// hashing them into a set that must be allocated; past that a set takes over, so a long list
/// stays linear.
pub struct Seen<'a> {
    few: [&'a str; Seen::FEW],
    len: usize,
    many: Option<std::collections::HashSet<&'a str>>,
}

impl<'a> Seen<'a> {
    const FEW: usize = 16;

    pub fn new() -> Self {
        Seen {
            few: [""; Seen::FEW],
            len: 0,
            many: None,
        }
    }

    pub fn contains(&self, s: &str) -> bool {
        match &self.many {
            Some(set) => set.contains(s),
            None => self.few[..self.len].iter().any(|f| same(f, s)),
        }
    }

    /// Adds `s`; false when it was there already.
    pub fn insert(&mut self, s: &'a str) -> bool {
        if self.contains(s) {
            return false;
        }
        match &mut self.many {
            Some(set) => {
                set.insert(s);
            }
            None if self.len < Seen::FEW => {
                self.few[self.len] = s;
                self.len += 1;
            }
            None => {
                let mut set: std::collections::HashSet<&str> = self.few.into_iter().collect();
                set.insert(s);
                self.many = Some(set);
            }
        }
        true
    }
}

impl Default for Seen<'_> {
    fn default() -> Self {
        Seen::new()
    }
}

/// Collects diagnostics for one block while its JSON is checked.
pub struct Checker<'a> {
    block: &'a str,
    locate: &'a dyn Fn(usize) -> (usize, usize),
    pub diags: Vec<Diagnostic>,
    pub errors: usize,
    /// The block's JSON text, when known (`with_text`).
    text: &'a str,
    /// One copy of `text`, made when a component first keeps a string of it (see
    /// [`Checker::keep`]).
    shared: OnceCell<Arc<str>>,
}

/// Where a value sits in the block, as a chain of borrowed JSON Pointer tokens: the pointer
/// string is only written when a diagnostic needs it, and most blocks have none.
#[derive(Clone, Copy)]
pub struct Path<'p> {
    parent: Option<&'p Path<'p>>,
    token: Token<'p>,
}

#[derive(Clone, Copy)]
enum Token<'p> {
    Root,
    Key(&'p str),
    Index(usize),
}

impl Path<'_> {
    /// The block itself: the empty pointer.
    pub const ROOT: Path<'static> = Path {
        parent: None,
        token: Token::Root,
    };

    /// The member `key` of the object here.
    pub fn key<'a>(&'a self, key: &'a str) -> Path<'a> {
        Path {
            parent: Some(self),
            token: Token::Key(key),
        }
    }

    /// Entry `i` of the array here.
    pub fn index(&self, i: usize) -> Path<'_> {
        Path {
            parent: Some(self),
            token: Token::Index(i),
        }
    }

    /// The JSON Pointer, e.g. `/questions/2/options`.
    pub fn pointer(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        if let Some(parent) = self.parent {
            parent.write(out);
        }
        match self.token {
            Token::Root => {}
            Token::Key(key) => push_token(out, key),
            Token::Index(i) => {
                out.push('/');
                crate::html::push_decimal(out, i as u64);
            }
        }
    }
}

/// An object being validated, with the path that leads to it.
pub struct Obj<'j, 'p> {
    pub members: &'j [Member<'j>],
    path: Path<'p>,
    pub at: usize,
}

impl<'j> Obj<'j, '_> {
    pub fn get(&self, key: &str) -> Option<&'j Json<'j>> {
        self.members
            .iter()
            .rev()
            .find(|m| same(m.key, key))
            .map(|m| &m.value)
    }

    /// The JSON Pointer to `key`, for a diagnostic.
    pub fn path(&self, key: &str) -> String {
        self.field(key).pointer()
    }

    /// Where `key` sits, for a check that writes the pointer only if it reports.
    pub fn field<'a>(&'a self, key: &'a str) -> Path<'a> {
        self.path.key(key)
    }

    /// Where `key`'s value starts, or the object itself when the key is absent: the place a
    /// diagnostic about that field points at.
    pub fn start_of(&self, key: &str) -> usize {
        self.get(key).map_or(self.at, |v| v.start)
    }
}

impl<'a> Checker<'a> {
    /// `locate` maps a byte offset in the block's JSON text to a 1-based (line, column) in the
    /// original Markdown.
    pub fn new(block: &'a str, locate: &'a dyn Fn(usize) -> (usize, usize)) -> Self {
        Checker {
            block,
            locate,
            diags: Vec::new(),
            errors: 0,
            text: "",
            shared: OnceCell::new(),
        }
    }

    /// The block's JSON text, so a place inside a string value can be located
    /// (`string_offset`).
    pub fn with_text(mut self, text: &'a str) -> Self {
        self.text = text;
        self
    }

    /// The offset in the block's JSON text of byte `decoded` of the string value that starts
    /// (at its opening quote) at `start`: escapes (`\n`, `\"`, `\u00e9`) are walked as the
    /// bytes they decode to. `start` itself when the text is not known or not a string there.
    pub fn string_offset(&self, start: usize, decoded: usize) -> usize {
        let Some(raw) = self.text.get(start..).and_then(|t| t.strip_prefix('"')) else {
            return start;
        };
        let bytes = raw.as_bytes();
        let (mut i, mut out) = (0, 0);
        while i < bytes.len() && out < decoded {
            match bytes[i] {
                b'"' => break,
                b'\\' => {
                    let (raw_len, len) = match bytes.get(i + 1) {
                        Some(b'u') => {
                            let code = raw
                                .get(i + 2..i + 6)
                                .and_then(|h| u32::from_str_radix(h, 16).ok())
                                .unwrap_or(0);
                            match code {
                                // A surrogate pair: two escapes, one four-byte character.
                                0xD800..=0xDBFF => (12, 4),
                                _ => (6, char::from_u32(code).map_or(3, char::len_utf8)),
                            }
                        }
                        _ => (2, 1),
                    };
                    i += raw_len;
                    out += len;
                }
                _ => {
                    i += 1;
                    out += 1;
                }
            }
        }
        start + 1 + i.min(bytes.len())
    }

    /// `s`, a string of the block's JSON, as a component keeps it: a slice of the shared copy
    /// of the block's text when it is a part of that text (a string without escapes), else a
    /// copy of its own.
    pub fn keep(&self, s: &str) -> Shared {
        let (base, at) = (self.text.as_ptr() as usize, s.as_ptr() as usize);
        if !s.is_empty() && at >= base && at + s.len() <= base + self.text.len() {
            let text = self.shared.get_or_init(|| Arc::from(self.text));
            return Shared::slice(text, at - base, at - base + s.len());
        }
        Shared::from(s)
    }

    pub fn report(
        &mut self,
        severity: Severity,
        code: Code,
        at: usize,
        path: &str,
        message: String,
        hint: String,
    ) {
        if severity == Severity::Error {
            self.errors += 1;
        }
        let (line, column) = (self.locate)(at);
        self.diags.push(Diagnostic {
            severity,
            code,
            block: Some(self.block.to_string()),
            line,
            column,
            path: path.to_string(),
            message,
            hint,
        });
    }

    pub fn error(&mut self, code: Code, at: usize, path: &str, message: String, hint: String) {
        self.report(Severity::Error, code, at, path, message, hint);
    }

    pub fn warn(&mut self, code: Code, at: usize, path: &str, message: String, hint: String) {
        self.report(Severity::Warning, code, at, path, message, hint);
    }

    fn wrong_type(&mut self, json: &Json, path: Path, expected: &str, hint: String) {
        let path = path.pointer();
        self.error(
            Code::InvalidType,
            json.start,
            &path,
            format!(
                "{} must be {expected}, not {}",
                name(&path),
                json.value.type_name()
            ),
            hint,
        );
    }

    /// The value as an object, or an `invalid_type` error.
    pub fn object<'j, 'p>(
        &mut self,
        json: &'j Json<'j>,
        path: Path<'p>,
        what: impl Display,
    ) -> Option<Obj<'j, 'p>> {
        match &json.value {
            Value::Object(members) => Some(Obj {
                members,
                path,
                at: json.start,
            }),
            other => {
                self.error(
                    Code::InvalidType,
                    json.start,
                    &path.pointer(),
                    format!(
                        "{what} must be a JSON object {{ … }}, not {}",
                        other.type_name()
                    ),
                    "wrap the fields in { } as the spec's examples show".to_string(),
                );
                None
            }
        }
    }

    /// `version` must be the string "1".
    pub fn version(&mut self, o: &Obj) {
        match o.get("version") {
            None => self.missing(o, "version", "add \"version\": \"1\""),
            Some(Json {
                value: Value::String(s),
                ..
            }) if *s == "1" => {}
            Some(v) => self.error(
                Code::WrongVersion,
                v.start,
                &o.path("version"),
                format!("`version` must be the string \"1\", found {}", describe(v)),
                "write \"version\": \"1\", a string in quotes; the number 1 is rejected".into(),
            ),
        }
    }

    pub fn missing(&mut self, o: &Obj, key: &str, hint: &str) {
        let at = o.at;
        self.error(
            Code::MissingField,
            at,
            &o.path(key),
            format!("required field `{key}` is missing"),
            hint.to_string(),
        );
    }

    /// A required, non-empty string.
    pub fn required_string(&mut self, o: &Obj, key: &str, hint: &str) -> Option<String> {
        self.required_str(o, key, hint).map(str::to_owned)
    }

    /// [`Checker::required_string`], kept (see [`Checker::keep`]).
    pub fn required_shared(&mut self, o: &Obj, key: &str, hint: &str) -> Option<Shared> {
        self.required_str(o, key, hint).map(|s| self.keep(s))
    }

    /// [`Checker::required_string`], borrowed from the JSON.
    pub fn required_str<'j>(&mut self, o: &Obj<'j, '_>, key: &str, hint: &str) -> Option<&'j str> {
        match o.get(key) {
            None => {
                self.missing(o, key, hint);
                None
            }
            Some(v) => self.nonempty_str(v, o.field(key), hint),
        }
    }

    /// A string that must not be empty (or only whitespace), kept (see [`Checker::keep`]).
    pub fn nonempty_string(&mut self, v: &Json, path: Path, hint: &str) -> Option<Shared> {
        self.nonempty_str(v, path, hint).map(|s| self.keep(s))
    }

    fn nonempty_str<'j>(&mut self, v: &'j Json<'j>, path: Path, hint: &str) -> Option<&'j str> {
        match &v.value {
            Value::String(s) if blank(s) => {
                let path = path.pointer();
                self.error(
                    Code::Empty,
                    v.start,
                    &path,
                    format!("{} must not be empty", name(&path)),
                    hint.to_string(),
                );
                None
            }
            Value::String(s) => Some(s),
            _ => {
                self.wrong_type(v, path, "a string", hint.to_string());
                None
            }
        }
    }

    /// An optional string field (any string, empty allowed), kept (see [`Checker::keep`]).
    pub fn optional_string(&mut self, o: &Obj, key: &str) -> Option<Shared> {
        self.optional_str(o, key).map(|s| self.keep(s))
    }

    /// [`Checker::optional_string`], borrowed from the JSON: for a field that is only checked,
    /// or not always kept.
    pub fn optional_str<'j>(&mut self, o: &Obj<'j, '_>, key: &str) -> Option<&'j str> {
        let v = o.get(key)?;
        match &v.value {
            Value::String(s) => Some(s),
            _ => {
                self.wrong_type(
                    v,
                    o.field(key),
                    "a string",
                    format!("write \"{key}\": \"…\" or remove it"),
                );
                None
            }
        }
    }

    /// An optional text shown to the reader (a title, a context line, a section name): a
    /// blank one is left out, with a warning, so that no empty heading, dangling "— " or
    /// empty `##` line is drawn or exported. Kept (see [`Checker::keep`]).
    pub fn optional_text(&mut self, o: &Obj, key: &str) -> Option<Shared> {
        self.optional_text_str(o, key).map(|s| self.keep(s))
    }

    fn optional_text_str<'j>(&mut self, o: &Obj<'j, '_>, key: &str) -> Option<&'j str> {
        let s = self.optional_str(o, key)?;
        if !blank(s) {
            return Some(s);
        }
        self.warn(
            Code::Empty,
            o.start_of(key),
            &o.path(key),
            format!("`{key}` is blank, so it is left out"),
            format!("give `{key}` some text, or remove it"),
        );
        None
    }

    /// An optional string clamped to `max` characters (with a warning when it was longer);
    /// blank counts as absent, as in [`Checker::optional_text`].
    pub fn clamped_string(&mut self, o: &Obj, key: &str, max: usize) -> Option<String> {
        self.clamped(o, key, max).map(Cow::into_owned)
    }

    /// [`Checker::clamped_string`], kept (see [`Checker::keep`]).
    pub fn clamped_shared(&mut self, o: &Obj, key: &str, max: usize) -> Option<Shared> {
        match self.clamped(o, key, max)? {
            Cow::Borrowed(s) => Some(self.keep(s)),
            Cow::Owned(s) => Some(s.into()),
        }
    }

    fn clamped<'j>(&mut self, o: &Obj<'j, '_>, key: &str, max: usize) -> Option<Cow<'j, str>> {
        let s = self.optional_text_str(o, key)?;
        let count = s.chars().count();
        if count <= max {
            return Some(Cow::Borrowed(s));
        }
        let at = o.start_of(key);
        self.warn(
            Code::TooLong,
            at,
            &o.path(key),
            format!("`{key}` is {count} characters; it is shown clamped to {max}"),
            format!("shorten `{key}` to at most {max} characters"),
        );
        Some(Cow::Owned(s.chars().take(max).collect()))
    }

    pub fn optional_bool(&mut self, o: &Obj, key: &str) -> Option<bool> {
        let v = o.get(key)?;
        match v.value {
            Value::Bool(b) => Some(b),
            _ => {
                self.wrong_type(
                    v,
                    o.field(key),
                    "a boolean (true or false)",
                    format!("write \"{key}\": true or false, without quotes"),
                );
                None
            }
        }
    }

    pub fn optional_number(&mut self, o: &Obj, key: &str) -> Option<f64> {
        let v = o.get(key)?;
        self.number(v, o.field(key))
    }

    pub fn number(&mut self, v: &Json, path: Path) -> Option<f64> {
        match v.value {
            Value::Number(n) => Some(n),
            _ => {
                self.wrong_type(
                    v,
                    path,
                    "a number",
                    "write a plain number without quotes, e.g. 25".into(),
                );
                None
            }
        }
    }

    /// An array field; `required` reports `missing_field` when absent.
    pub fn array<'j>(
        &mut self,
        o: &Obj<'j, '_>,
        key: &str,
        required: bool,
        hint: &str,
    ) -> Option<&'j [Json<'j>]> {
        match o.get(key) {
            None => {
                if required {
                    self.missing(o, key, hint);
                }
                None
            }
            Some(v) => match &v.value {
                Value::Array(items) => Some(items),
                _ => {
                    self.wrong_type(v, o.field(key), "an array [ … ]", hint.to_string());
                    None
                }
            },
        }
    }

    /// Warns about every member not in `known`.
    pub fn unknown_fields(&mut self, o: &Obj, known: &[&str], what: &str) {
        self.unknown_fields_among(o, &[known], what);
    }

    /// [`Checker::unknown_fields`] for a field list put together from `groups` (in order), and
    /// a `what` that is only formatted for a warning: most blocks have no unknown field, so
    /// neither the list nor the name is built for them.
    pub fn unknown_fields_among(&mut self, o: &Obj, groups: &[&[&str]], what: impl Display) {
        for m in o.members {
            if groups.iter().any(|g| g.iter().any(|k| same(k, m.key))) {
                continue;
            }
            let known = groups.concat();
            // `q` is only unknown when `question` is given too (it is then the alias's twin).
            if m.key == "q" && known.contains(&"question") {
                self.warn(
                    Code::UnknownField,
                    m.key_start,
                    &o.path(m.key),
                    format!("`q` is ignored: it is an alias of `question`, which {what} also has"),
                    "remove `q` and keep `question`".to_string(),
                );
                continue;
            }
            let suggestion = closest(m.key, &known)
                .map(|k| format!("did you mean `{k}`? Otherwise remove it"))
                .unwrap_or_else(|| format!("remove it; {what} takes {}", known.join(", ")));
            self.warn(
                Code::UnknownField,
                m.key_start,
                &o.path(m.key),
                format!("unknown field `{}` in {what} is ignored", m.key),
                suggestion,
            );
        }
    }

    /// The shared `routing` object.
    pub fn routing(&mut self, o: &Obj) -> Option<Routing> {
        let v = o.get("routing")?;
        let r = self.object(v, o.field("routing"), "`routing`")?;
        self.unknown_fields(&r, &["from", "return_prompt"], "`routing`");
        let from = self.required_shared(
            &r,
            "from",
            "give the sender's name, e.g. \"from\": \"Elad\"",
        );
        let return_prompt = match r.get("return_prompt") {
            None => {
                self.missing(
                    &r,
                    "return_prompt",
                    "add \"return_prompt\": \"When done, send your answers back to …\"",
                );
                None
            }
            Some(p) => match &p.value {
                Value::String(s) => Some(self.keep(s)),
                _ => {
                    self.wrong_type(
                        p,
                        r.field("return_prompt"),
                        "a string",
                        "write the instruction as a string".into(),
                    );
                    None
                }
            },
        };
        let (from, return_prompt) = (from?, return_prompt?);
        if !return_prompt.contains(from.as_str()) {
            let at = r.start_of("return_prompt");
            self.warn(
                Code::RoutingFromMissing,
                at,
                &r.path("return_prompt"),
                format!("`return_prompt` does not mention the sender \"{from}\""),
                format!("include \"{from}\" in the prompt so the reader sees who to send it to (it is shown in bold)"),
            );
        }
        Some(Routing {
            from,
            return_prompt,
        })
    }

    /// The shared `note_field` object of prioritize and allocate.
    pub fn note_field(&mut self, o: &Obj) -> NoteField {
        let default = NoteField {
            enabled: true,
            label: None,
        };
        let Some(v) = o.get("note_field") else {
            return default;
        };
        let Some(n) = self.object(v, o.field("note_field"), "`note_field`") else {
            return default;
        };
        self.unknown_fields(&n, &["enabled", "label"], "`note_field`");
        NoteField {
            enabled: self.optional_bool(&n, "enabled").unwrap_or(true),
            label: self
                .optional_str(&n, "label")
                .filter(|l| !blank(l))
                .map(|l| self.keep(l)),
        }
    }
}

/// Whether `s` is empty or only whitespace (`s.trim().is_empty()`), decided at its first
/// letter rather than by trimming both ends.
pub fn blank(s: &str) -> bool {
    s.chars().all(char::is_whitespace)
}

/// The last token of a JSON Pointer, for messages ("`question`", "item 2").
fn name(path: &str) -> String {
    match path.rsplit('/').next() {
        Some("") | None => "the block".to_string(),
        Some(t) if t.bytes().all(|b| b.is_ascii_digit()) => {
            let parent = path[..path.len() - t.len() - 1]
                .rsplit('/')
                .next()
                .unwrap_or("");
            format!("`{parent}[{t}]`")
        }
        Some(t) => format!("`{}`", t.replace("~1", "/").replace("~0", "~")),
    }
}

fn describe(v: &Json) -> String {
    match &v.value {
        Value::String(s) => format!("\"{s}\""),
        Value::Number(n) => format!("the number {n}"),
        other => other.type_name().to_string(),
    }
}

/// The known name closest in spelling to `key` (edit distance at most 2), if any.
pub fn closest<'k>(key: &str, known: &[&'k str]) -> Option<&'k str> {
    // Names whose lengths differ by more than 2 are further apart than that: skip the work.
    let len = key.chars().count();
    known
        .iter()
        .filter(|k| k.len().abs_diff(len) <= 2)
        .map(|k| (edit_distance(key, k), *k))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance over chars; inputs here are short names.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a_len, b_len) = (a.chars().count(), b.chars().count());
    if a_len.abs_diff(b_len) > 3 || a_len > 64 || b_len > 64 {
        return a_len.max(b_len);
    }
    // Two rows on the stack, as no name gets here longer than 64 chars: every fence tag that is
    // not a component's is measured against the tags, so this runs without a diagnostic too.
    let mut prev = [0; 65];
    let mut cur = [0; 65];
    for (j, p) in prev.iter_mut().enumerate().take(b_len + 1) {
        *p = j;
    }
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.chars().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b_len]
}

/// The note box shared by questions, prioritize and allocate: a `<details>` so it works without
/// JavaScript and stays out of the way until wanted. Email previews have no inputs.
pub fn note_box<'a>(
    cx: &crate::html::RenderCx,
    id: impl maud::Render + Copy + 'a,
    name: &'a impl maud::Render,
    label: &'a str,
    value: &'a str,
) -> impl maud::Render + 'a {
    NoteBox {
        shown: !cx.surface.is_email(),
        id,
        name,
        label,
        value,
    }
}

/// See [`note_box`]. Written straight into the block's buffer (its own `html!` would allocate
/// a buffer to be copied over and freed); the markup is the engine's, the label and the value
/// are escaped, and a test holds it to the `html!` it replaces.
struct NoteBox<'a, I, N> {
    shown: bool,
    id: I,
    name: &'a N,
    label: &'a str,
    value: &'a str,
}

impl<I: maud::Render, N: maud::Render> maud::Render for NoteBox<'_, I, N> {
    fn render_to(&self, out: &mut String) {
        if !self.shown {
            return;
        }
        // Open when it holds the reader's note.
        out.push_str(if self.value.is_empty() {
            "<details class=\"pb-note\"><summary>"
        } else {
            "<details class=\"pb-note\" open><summary>"
        });
        escape_into(self.label, out);
        out.push_str("</summary><label class=\"pb-visually-hidden\" for=\"");
        self.id.render_to(out);
        out.push_str("\">");
        escape_into(self.label, out);
        out.push_str("</label><textarea id=\"");
        self.id.render_to(out);
        out.push_str("\" name=\"");
        self.name.render_to(out);
        out.push_str("\" rows=\"2\">");
        escape_into(self.value, out);
        out.push_str("</textarea></details>");
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::components::list::{Item, ListModel};
    use serde::Serialize;

    #[test]
    fn closest_finds_near_misses_only() {
        assert_eq!(
            closest("questoin", &["question", "options"]),
            Some("question")
        );
        assert_eq!(closest("zzz", &["question", "options"]), None);
    }

    proptest::proptest! {
        /// The hand-written model is the serde_json text of the derive, escaped for the
        /// single-quoted attribute.
        #[test]
        fn list_models_write_as_serde_json_would(
            texts in proptest::collection::vec(proptest::option::of(".{0,12}"), 4),
            items in proptest::collection::vec((".{0,8}", ".{0,12}", proptest::option::of(".{0,12}")), 0..4),
            total in proptest::option::of(proptest::num::f64::ANY),
            weights in proptest::option::of(proptest::collection::vec(0.0..1e6f64, 0..4)),
        ) {
            let items: Vec<Item> = items
                .iter()
                .map(|(id, label, context)| Item {
                    id: Shared::from(id.as_str()),
                    label: Shared::from(label.as_str()),
                    context: context.as_deref().map(Shared::from),
                })
                .collect();
            let model = ListModel {
                title: texts[0].as_deref(),
                from: texts[1].as_deref(),
                prompt: texts[2].as_deref(),
                items: &items,
                total,
                unit: texts[3].as_deref(),
                weights: weights.as_deref(),
            };
            proptest::prop_assert_eq!(written_model(&model), serde_model(&model));
        }
    }

    pub(crate) fn written_model(model: &dyn crate::html::model::WriteModel) -> String {
        let mut out = String::new();
        model.write_model(&mut crate::html::model::ModelJson::new(&mut out));
        out
    }

    pub(crate) fn serde_model(model: &impl Serialize) -> String {
        let mut out = String::new();
        crate::html::escape_single_quoted_into(&serde_json::to_string(model).unwrap(), &mut out);
        out
    }

    #[test]
    fn seen_finds_repeats_below_and_above_the_scan_limit() {
        let words: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
        let mut seen = Seen::new();
        for (i, w) in words.iter().enumerate() {
            assert!(!seen.contains(w));
            assert!(seen.insert(w), "{w}");
            // Every earlier word is still there, on either side of the switch to a set.
            assert!(
                words[..=i]
                    .iter()
                    .all(|w| seen.contains(w) && !seen.insert(w))
            );
        }
        assert!(!seen.contains("w40") && !seen.contains(""));
    }

    /// The note box as it was written with `html!`, which [`NoteBox`] must match.
    fn note_box_html(id: &str, name: &str, label: &str, value: &str) -> String {
        html! {
            details class="pb-note" open[!value.is_empty()] {
                summary { (Text(label)) }
                label class="pb-visually-hidden" for=(id) { (Text(label)) }
                textarea id=(id) name=(name) rows="2" { (Text(value)) }
            }
        }
        .into_string()
    }

    #[test]
    fn note_boxes_render_as_html_did() {
        let hostile = "a\"b<c>&'d é";
        for (label, value) in [("Add a note", ""), (hostile, hostile), ("", "x")] {
            let id = crate::html::Parts(["pb-1-", hostile]);
            let name = crate::html::Parts(["b1.", hostile]);
            let written = NoteBox {
                shown: true,
                id,
                name: &name,
                label,
                value,
            };
            assert_eq!(
                maud::Render::render(&written).into_string(),
                note_box_html(
                    &["pb-1-", hostile].concat(),
                    &["b1.", hostile].concat(),
                    label,
                    value
                )
            );
            let hidden = NoteBox {
                shown: false,
                ..written
            };
            assert_eq!(maud::Render::render(&hidden).into_string(), "");
        }
    }

    #[test]
    fn routing_bolds_every_occurrence() {
        let r = Routing {
            from: "Elad".into(),
            return_prompt: "Send to Elad, or Elad's team.".into(),
        };
        assert_eq!(
            r.render().into_string(),
            "<p class=\"pb-routing\">Send to <strong>Elad</strong>, or <strong>Elad</strong>'s team.</p>"
        );
    }
}
