//! The sequence-diagram parser: each statement read into participants, messages, notes,
//! activations, frames and groups.

use super::colour::{leading_colour, plain_colour};
use super::syntax::Statement;
use super::syntax::{
    bad_number, config_pairs, decode, find_arrow, find_as, format_hundredths, hundredths,
    is_header, keyword, split_colon, statements,
};
use super::{
    Event, Frame, Group, Kind, MAX_EVENTS, MAX_PARTICIPANTS, Message, Participant, Sequence, Side,
    TOO_LARGE, Unsupported,
};

#[derive(Default)]
struct Parser {
    seq: Sequence,
    /// Open frames (kind) and `box` groups (`None`), innermost last.
    open: Vec<Option<Frame>>,
    /// The `box` being filled.
    group: Option<usize>,
    /// Autonumbering: the next number and the step, tenths… as hundredths.
    number: Option<(i64, i64)>,
    /// Set by `create`: the next declaration creates.
    creating: bool,
}

impl Parser {
    fn participant(&mut self, id: &str) -> usize {
        if let Some(i) = self.seq.participants.iter().position(|p| p.id == id) {
            return i;
        }
        self.seq.participants.push(Participant {
            id: id.to_string(),
            label: decode(id),
            kind: Kind::Participant,
            created: false,
            destroyed: false,
        });
        let i = self.seq.participants.len() - 1;
        if let Some(g) = self.group {
            self.seq.groups[g].members.push(i);
        }
        i
    }

    fn ignore(&mut self, what: &str) {
        if !self.seq.ignored.iter().any(|w| w == what) {
            self.seq.ignored.push(what.to_string());
        }
    }

    fn push(&mut self, at: usize, e: Event) -> Result<(), Unsupported> {
        if self.seq.events.len() >= MAX_EVENTS {
            return Err(Unsupported {
                offset: at,
                message: format!(
                    "more than {MAX_EVENTS} messages, notes and frame lines: {TOO_LARGE}"
                ),
            });
        }
        self.seq.events.push(e);
        Ok(())
    }

    /// `participant …` / `actor …`: `ID`, `ID as Alias`, `ID@{ "type": …, "alias": … }`.
    fn declare(&mut self, at: usize, rest: &str, actor: bool) -> Result<(), Unsupported> {
        let fail = |message: String| Unsupported {
            offset: at,
            message,
        };
        let (mut head, mut alias) = (rest, None);
        let mut kind = if actor {
            Kind::Actor
        } else {
            Kind::Participant
        };
        let mut config_alias = None;
        if let Some(i) = rest.find("@{") {
            let close = rest[i..]
                .find('}')
                .ok_or_else(|| fail("`@{` is not closed with `}`".into()))?;
            let config = &rest[i + 2..i + close];
            for (key, value) in config_pairs(config) {
                match key.as_str() {
                    "type" => {
                        kind = Kind::from_name(&value).ok_or_else(|| {
                            fail(format!(
                                "unknown participant type \"{value}\"; use participant, actor, boundary, control, entity, database, collections or queue"
                            ))
                        })?;
                    }
                    "alias" => config_alias = Some(value),
                    _ => self.ignore("@{…} settings"),
                }
            }
            let after = rest[i + close + 1..].trim();
            head = &rest[..i];
            if let Some(a) = keyword(after, "as") {
                alias = Some(a);
            } else if !after.is_empty() {
                return Err(fail(format!(
                    "unexpected `{after}` after the participant's settings"
                )));
            }
        } else if let Some(i) = find_as(rest) {
            head = &rest[..i];
            alias = Some(rest[i + 3..].trim());
        }
        let id = head.trim();
        if id.is_empty() {
            return Err(fail("a participant needs a name".into()));
        }
        if id.contains(['<', '>', ':', ',']) || find_arrow(id).is_some() {
            return Err(fail(format!(
                "`{id}` is not a participant name; a name may not hold `<`, `>`, `:`, `,` or an arrow"
            )));
        }
        let existed = self.seq.participants.iter().any(|p| p.id == id);
        let i = self.participant(id);
        let p = &mut self.seq.participants[i];
        p.kind = kind;
        if let Some(a) = alias.filter(|a| !a.is_empty()).or(config_alias.as_deref()) {
            p.label = decode(a);
        }
        if std::mem::take(&mut self.creating) {
            if existed {
                return Err(fail(format!(
                    "`create` for `{id}`, which already appeared above; create a participant at its first appearance"
                )));
            }
            p.created = true;
        }
        Ok(())
    }

    fn statement(&mut self, at: usize, s: &str) -> Result<(), Unsupported> {
        let fail = |message: String| Unsupported {
            offset: at,
            message,
        };
        if self.creating && keyword(s, "participant").is_none() && keyword(s, "actor").is_none() {
            return Err(fail(
                "`create` must be followed by `participant` or `actor` and a name".into(),
            ));
        }
        if let Some(rest) = keyword(s, "participant") {
            return self.declare(at, rest, false);
        }
        if let Some(rest) = keyword(s, "actor") {
            return self.declare(at, rest, true);
        }
        if let Some(rest) = keyword(s, "create") {
            self.creating = true;
            return self.statement(at, rest);
        }
        if let Some(rest) = keyword(s, "destroy") {
            let i = self.known(at, rest.trim())?;
            self.seq.participants[i].destroyed = true;
            return Ok(());
        }
        if let Some(rest) = keyword(s, "box") {
            if self.group.is_some() {
                return Err(fail(
                    "a `box` inside a `box`: close the first with `end`".into(),
                ));
            }
            if !self.open.is_empty() {
                return Err(fail(
                    "a `box` inside a frame: boxes group participants, so declare them first"
                        .into(),
                ));
            }
            let (colour, title) = leading_colour(rest);
            let plain = colour.and_then(plain_colour);
            if colour.is_some() && plain.is_none() {
                self.ignore("box colours other than a name, #hex, rgb(…) or hsl(…)");
            }
            self.seq.groups.push(Group {
                title: decode(title),
                colour: plain,
                members: Vec::new(),
            });
            self.group = Some(self.seq.groups.len() - 1);
            self.open.push(None);
            return Ok(());
        }
        for (word, frame) in [
            ("loop", Frame::Loop),
            ("alt", Frame::Alt),
            ("opt", Frame::Opt),
            ("par_over", Frame::Par),
            ("par", Frame::Par),
            ("critical", Frame::Critical),
            ("break", Frame::Break),
            ("rect", Frame::Rect),
        ] {
            if let Some(rest) = keyword(s, word) {
                let (label, colour) = if frame == Frame::Rect {
                    let colour = leading_colour(rest).0;
                    let plain = colour.and_then(plain_colour);
                    if colour.is_some() && plain.is_none() {
                        self.ignore("rect colours other than a name, #hex, rgb(…) or hsl(…)");
                    }
                    (String::new(), plain)
                } else {
                    (decode(rest), None)
                };
                self.open.push(Some(frame));
                return self.push(at, Event::Start(frame, label, colour));
            }
        }
        for word in ["else", "and", "option"] {
            if let Some(rest) = keyword(s, word) {
                return match self.open.last() {
                    Some(Some(f)) if f.divider() == Some(word) => {
                        self.push(at, Event::Divide(decode(rest)))
                    }
                    _ => Err(fail(format!(
                        "`{word}` outside {}: it divides {}",
                        match word {
                            "else" => "an `alt` frame",
                            "and" => "a `par` frame",
                            _ => "a `critical` frame",
                        },
                        match word {
                            "else" => "the cases of `alt … else … end`",
                            "and" => "the branches of `par … and … end`",
                            _ => "the options of `critical … option … end`",
                        }
                    ))),
                };
            }
        }
        if keyword(s, "end").is_some() {
            return match self.open.pop() {
                Some(None) => {
                    self.group = None;
                    Ok(())
                }
                Some(Some(_)) => self.push(at, Event::End),
                None => Err(fail(
                    "`end` with nothing open: remove it, or open a `loop`, `alt`, `opt`, `par`, `critical`, `break`, `rect` or `box` above".into(),
                )),
            };
        }
        if let Some(rest) = keyword(s, "activate") {
            let i = self.known_or_new(at, rest.trim())?;
            return self.push(at, Event::Activate(i));
        }
        if let Some(rest) = keyword(s, "deactivate") {
            let i = self.known_or_new(at, rest.trim())?;
            return self.push(at, Event::Deactivate(i));
        }
        if let Some(rest) = keyword(s, "autonumber") {
            let words: Vec<&str> = rest.split_whitespace().collect();
            self.number = match words.as_slice() {
                ["off"] => None,
                [] => Some((100, 100)),
                [start] => Some((
                    hundredths(start).ok_or_else(|| fail(bad_number(start)))?,
                    100,
                )),
                [start, step] => Some((
                    hundredths(start).ok_or_else(|| fail(bad_number(start)))?,
                    hundredths(step).ok_or_else(|| fail(bad_number(step)))?,
                )),
                _ => {
                    return Err(fail(
                        "`autonumber` takes `off`, or a start and a step".into(),
                    ));
                }
            };
            return Ok(());
        }
        if let Some(rest) = keyword(s, "note") {
            return self.note(at, rest);
        }
        if let Some(rest) = s.strip_prefix("title:").or_else(|| keyword(s, "title")) {
            self.seq.title = Some(decode(rest.trim()));
            return Ok(());
        }
        for (word, slot) in [("accTitle", 0), ("accDescr", 1)] {
            if s.get(..word.len())
                .is_some_and(|h| h.eq_ignore_ascii_case(word))
            {
                let after = s[word.len()..].trim_start();
                if let Some(v) = after.strip_prefix(':') {
                    let v = Some(decode(v.trim()));
                    if slot == 0 {
                        self.seq.acc_title = v;
                    } else {
                        self.seq.acc_descr = v;
                    }
                    return Ok(());
                }
            }
        }
        for word in ["links", "link", "properties", "details"] {
            if keyword(s, word).is_some() {
                self.ignore(word);
                return Ok(());
            }
        }
        if s.starts_with("%%{") {
            self.ignore("%%{init}%%");
            return Ok(());
        }
        self.message(at, s)
    }

    fn known(&mut self, at: usize, id: &str) -> Result<usize, Unsupported> {
        self.seq
            .participants
            .iter()
            .position(|p| p.id == id)
            .ok_or_else(|| Unsupported {
                offset: at,
                message: format!("`{id}` is not a participant of the diagram"),
            })
    }

    fn known_or_new(&mut self, at: usize, id: &str) -> Result<usize, Unsupported> {
        if id.is_empty() {
            return Err(Unsupported {
                offset: at,
                message: "a participant's name is missing".into(),
            });
        }
        Ok(self.participant(id))
    }

    fn note(&mut self, at: usize, rest: &str) -> Result<(), Unsupported> {
        let fail = |message: &str| Unsupported {
            offset: at,
            message: message.into(),
        };
        let (side, rest) = if let Some(r) = keyword(rest, "left") {
            (Side::Left, keyword(r, "of"))
        } else if let Some(r) = keyword(rest, "right") {
            (Side::Right, keyword(r, "of"))
        } else {
            (Side::Over, keyword(rest, "over"))
        };
        let rest = rest.ok_or_else(|| {
            fail("a note is `Note left of A: text`, `Note right of A: text` or `Note over A[,B]: text`")
        })?;
        let (who, text) = split_colon(rest);
        let text =
            text.ok_or_else(|| fail("a note needs `:` and its text after the participant"))?;
        let mut names = who.split(',').map(str::trim);
        let first = names.next().unwrap_or("");
        let second = names.next();
        if names.next().is_some() || (second.is_some() && side != Side::Over) {
            return Err(fail(
                "a note is over one or two participants, or left or right of one",
            ));
        }
        let a = self.known_or_new(at, first)?;
        let b = match second {
            Some(s) => Some(self.known_or_new(at, s)?),
            None => None,
        };
        self.push(
            at,
            Event::Note {
                side,
                of: (a, b.filter(|&b| b != a)),
                text: decode(text),
            },
        )
    }

    fn message(&mut self, at: usize, s: &str) -> Result<(), Unsupported> {
        let fail = |message: String| Unsupported {
            offset: at,
            message,
        };
        let Some((a, b, kind)) = find_arrow(s) else {
            let word = s.split_whitespace().next().unwrap_or(s);
            return Err(fail(format!(
                "`{word}` is not a sequence-diagram statement this renderer reads (a message is `A->>B: text`)"
            )));
        };
        let (line, head, both, reverse) = kind;
        let mut from = s[..a].trim_end();
        let dot_from = from.ends_with("()");
        if dot_from {
            from = from[..from.len() - 2].trim_end();
        }
        let (mut to, text) = split_colon(&s[b..]);
        to = to.trim();
        let (mut activate, mut deactivate) = (false, false);
        if let Some(r) = to.strip_prefix('+') {
            activate = true;
            to = r.trim_start();
        } else if let Some(r) = to.strip_prefix('-') {
            deactivate = true;
            to = r.trim_start();
        }
        let dot_to = to.starts_with("()");
        if dot_to {
            to = to[2..].trim_start();
        }
        let from = from.trim();
        for (name, what) in [(from, "sender"), (to, "receiver")] {
            if name.is_empty() {
                return Err(fail(format!(
                    "the message has no {what}: write `A->>B: text`"
                )));
            }
            if name.contains(['<', '>', ',', '+']) || find_arrow(name).is_some() {
                return Err(fail(format!(
                    "`{name}` is not a participant name (a message is `A->>B: text`)"
                )));
            }
        }
        let from = self.participant(from);
        let to = self.participant(to);
        let number = self.number.map(|(n, step)| {
            self.number = Some((n + step, step));
            format_hundredths(n)
        });
        self.push(
            at,
            Event::Message(Message {
                from,
                to,
                text: text.map(decode).unwrap_or_default(),
                line,
                head,
                both,
                reverse,
                dot_from,
                dot_to,
                activate,
                deactivate,
                number,
            }),
        )
    }
}

/// `None` when the source is not a sequence diagram; else the diagram, or what stops it being
/// read and where.
pub fn parse(source: &str) -> Option<Result<Sequence, Unsupported>> {
    // `%%{init}%%` directives, on one line or several, are blanked (offsets still hold); the
    // theme they set is not drawn here.
    let (blank, directive_texts) = crate::diagram::directive::blanked(source);
    let source: &str = &blank;
    let (start, title) = crate::diagram::directive::front_matter(source);
    let body = &source[start..];
    let list = statements(body, start);
    let mut it = list.into_iter().peekable();
    // `%%{init}%%` lines may come before the keyword.
    let mut directives = !directive_texts.is_empty();
    while let Some((_, s)) = it.peek() {
        if s.starts_with("%%{") {
            directives = true;
            it.next();
        } else {
            break;
        }
    }
    let (header_at, header) = it.next()?;
    if !is_header(header) {
        return None;
    }
    let mut p = Parser::default();
    p.seq.title = title;
    if directives {
        p.ignore("%%{init}%%");
    }
    let after_keyword = header["sequenceDiagram".len()..].trim();
    let mut pending: Vec<Statement> = Vec::new();
    if !after_keyword.is_empty() {
        pending.push((
            header_at + header.len() - after_keyword.len(),
            after_keyword,
        ));
    }
    let mut it = pending.into_iter().chain(it);
    Some((|| {
        while let Some((at, s)) = it.next() {
            // `accDescr { … }` over several lines.
            if let Some(rest) = s
                .get(..8)
                .filter(|h| h.eq_ignore_ascii_case("accDescr"))
                .map(|_| s[8..].trim_start())
                && let Some(open) = rest.strip_prefix('{')
            {
                let mut text = String::new();
                let mut piece = open;
                loop {
                    if let Some(i) = piece.find('}') {
                        text.push_str(piece[..i].trim());
                        break;
                    }
                    text.push_str(piece.trim());
                    text.push(' ');
                    match it.next() {
                        Some((_, next)) => piece = next,
                        None => {
                            return Err(Unsupported {
                                offset: at,
                                message: "`accDescr {` is not closed with `}`".into(),
                            });
                        }
                    }
                }
                p.seq.acc_descr = Some(decode(text.trim()));
                continue;
            }
            p.statement(at, s)?;
            if p.seq.participants.len() > MAX_PARTICIPANTS {
                return Err(Unsupported {
                    offset: at,
                    message: format!("more than {MAX_PARTICIPANTS} participants: {TOO_LARGE}"),
                });
            }
        }
        if p.creating {
            return Err(Unsupported {
                offset: source.len(),
                message: "`create` at the end, with nothing to create".into(),
            });
        }
        if let Some(open) = p.open.last() {
            return Err(Unsupported {
                offset: source.len(),
                message: format!(
                    "`{}` is not closed: add `end`",
                    open.map_or("box", Frame::name)
                ),
            });
        }
        Ok(std::mem::take(&mut p.seq))
    })())
}

// ---------------------------------------------------------------------------------------------
// Layout
