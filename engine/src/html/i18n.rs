//! Chrome strings in the three languages the spec supports, and detection of the document's
//! language and direction from its content (spec §6).

/// The chrome language of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    He,
    Ar,
}

impl Lang {
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::He => "he",
            Lang::Ar => "ar",
        }
    }

    pub fn dir(self) -> &'static str {
        match self {
            Lang::En => "ltr",
            Lang::He | Lang::Ar => "rtl",
        }
    }

    /// Every language, in the order the served script lists them.
    pub const ALL: [Lang; 3] = [Lang::En, Lang::He, Lang::Ar];

    pub fn strings(self) -> &'static Strings {
        match self {
            Lang::En => &EN,
            Lang::He => &HE,
            Lang::Ar => &AR,
        }
    }
}

/// Whether `src` can hold a letter [`Letters`] counts as Hebrew or Arabic: the UTF-8 of one of
/// those characters, or an escape that could produce one (a numeric character reference `&#`
/// in Markdown, a `\u` escape in a component's JSON; no named HTML entity is such a letter).
/// Most documents hold none, and then their language is English without counting anything.
pub fn may_hold_rtl(src: &str) -> bool {
    let bytes = src.as_bytes();
    has_escape_lead(bytes) || has_rtl_lead(bytes)
}

/// Whether `bytes` hold `&#` or `\u`: one `memchr2` pass over the document, stopping at each
/// `&` and `\` (few in most documents), rather than a substring search for each.
fn has_escape_lead(bytes: &[u8]) -> bool {
    memchr::memchr2_iter(b'&', b'\\', bytes).any(|i| {
        let want = if bytes[i] == b'&' { b'#' } else { b'u' };
        bytes.get(i + 1) == Some(&want)
    })
}

/// Whether `bytes` hold the first two bytes of a character [`may_hold_rtl`] looks for. Each
/// run of [`ASCII_RUN`] bytes is tested for a high bit with one OR over the run, which the
/// compiler turns into a few vector instructions, and only a run that is not all ASCII is
/// looked at byte by byte: most prose has only a few non-ASCII characters.
fn has_rtl_lead(bytes: &[u8]) -> bool {
    let lead_in = |start: usize, end: usize| {
        (start..end).any(|i| is_rtl_lead(bytes[i], bytes.get(i + 1).copied().unwrap_or(0)))
    };
    let mut runs = bytes.chunks_exact(ASCII_RUN);
    for (k, run) in runs.by_ref().enumerate() {
        let high = run.iter().fold(0u8, |seen, &b| seen | b) & 0x80 != 0;
        if high && lead_in(k * ASCII_RUN, (k + 1) * ASCII_RUN) {
            return true;
        }
    }
    lead_in(bytes.len() - runs.remainder().len(), bytes.len())
}

/// Whether `lead` then `next` begin the UTF-8 of a character [`may_hold_rtl`] looks for.
fn is_rtl_lead(lead: u8, next: u8) -> bool {
    match lead {
        // U+0580..U+07FF: Hebrew, Arabic and the Arabic supplement (and some neighbours).
        0xD6..=0xDF => true,
        // U+0800..U+08FF: Arabic extended-A.
        0xE0 => (0xA0..=0xA3).contains(&next),
        // U+FB00..U+FDFF and U+FE40..U+FEFF: Hebrew and Arabic presentation forms (not the
        // variation selectors between them, which follow many emoji).
        0xEF => matches!(next, 0xAC..=0xB7 | 0xB9..=0xBB),
        _ => false,
    }
}

/// The stride of [`has_rtl_lead`]'s ASCII skip.
const ASCII_RUN: usize = 64;

/// Letters counted by script, text by text: Hebrew or Arabic is picked when letters of that
/// script outnumber all other letters.
#[derive(Debug, Default)]
pub struct Letters {
    hebrew: usize,
    arabic: usize,
    other: usize,
}

impl Letters {
    pub fn add(&mut self, text: &str) {
        // Most prose is ASCII: count its letters in one branch-free pass over the bytes (a byte
        // of 0x80 and above never counts there), then decode only the non-ASCII characters.
        // Byte-wide counters over chunks of at most 255 bytes cannot overflow, and let the
        // compiler count sixteen bytes per vector instruction.
        let (mut ascii_letters, mut high) = (0usize, 0u8);
        for chunk in text.as_bytes().chunks(255) {
            let (mut letters, mut chunk_high) = (0u8, 0u8);
            for &b in chunk {
                letters += u8::from((b | 0x20).wrapping_sub(b'a') < 26);
                chunk_high |= b;
            }
            ascii_letters += usize::from(letters);
            high |= chunk_high;
        }
        self.other += ascii_letters;
        if high < 0x80 {
            return;
        }
        // An em dash or a curly quote in English prose must not send the whole text through
        // the character decoder: jump from one non-ASCII character to the next.
        let mut rest = text;
        while let Some(at) = rest.bytes().position(|b| b >= 0x80) {
            let Some(c) = rest[at..].chars().next() else {
                break;
            };
            self.count(c);
            rest = &rest[at + c.len_utf8()..];
        }
    }

    /// Counts one character by its script (nothing for a character that is not a letter).
    fn count(&mut self, c: char) {
        match c {
            '\u{0590}'..='\u{05FF}' | '\u{FB1D}'..='\u{FB4F}' => self.hebrew += 1,
            '\u{0600}'..='\u{06FF}'
            | '\u{0750}'..='\u{077F}'
            | '\u{08A0}'..='\u{08FF}'
            | '\u{FB50}'..='\u{FDFF}'
            | '\u{FE70}'..='\u{FEFF}' => self.arabic += 1,
            c if c.is_alphabetic() => self.other += 1,
            _ => {}
        }
    }

    pub fn lang(&self) -> Lang {
        if self.hebrew + self.arabic > self.other {
            if self.arabic > self.hebrew {
                Lang::Ar
            } else {
                Lang::He
            }
        } else {
            Lang::En
        }
    }
}

/// Every piece of text the engine itself puts on the page. `{}` marks where a label goes.
/// Hosts read it through `crate::chrome_strings`; a field is named for what it says, and
/// documented where the name alone would not tell.
#[allow(missing_docs)]
#[derive(Debug)]
pub struct Strings {
    pub other: &'static str,
    pub recommended: &'static str,
    pub select_all: &'static str,
    pub note: &'static str,
    pub your_answer: &'static str,
    /// The plain-text part's mark before a question (`Q:` in English), in the document's
    /// language, so a right-to-left line starts with a right-to-left letter.
    pub question_mark: &'static str,
    pub position_of: &'static str,
    pub move_up: &'static str,
    pub move_down: &'static str,
    pub remove: &'static str,
    pub restore: &'static str,
    pub removed: &'static str,
    pub add_item: &'static str,
    pub add_category: &'static str,
    pub add: &'static str,
    pub total: &'static str,
    pub get_answers: &'static str,
    pub play: &'static str,
    pub watch: &'static str,
    pub watch_untitled: &'static str,
    pub video: &'static str,
    pub diagram: &'static str,
    pub diagram_source: &'static str,
    pub comment_diagram: &'static str,
    pub comment_parts: &'static str,
    pub comment_node: &'static str,
    pub comment_edge: &'static str,
    /// A quoted name inside a diagram's description.
    pub diagram_quote: &'static str,
    /// "Flowchart, {direction}."
    pub diagram_flowchart: &'static str,
    /// Top down, bottom up, left to right, right to left.
    pub diagram_directions: [&'static str; 4],
    pub diagram_boxes: &'static str,
    pub diagram_arrows: &'static str,
    /// "from {a} to {b}"
    pub diagram_arrow: &'static str,
    pub diagram_labelled: &'static str,
    /// Dotted, thick, invisible, without arrowheads, both ways.
    pub diagram_edge_kinds: [&'static str; 5],
    /// "Group {title} holds {members}."
    pub diagram_group: &'static str,
    /// The kind line of a flowchart that is not drawn.
    pub diagram_flowchart_kind: &'static str,
    /// Under a diagram type that is never drawn here.
    pub diagram_not_drawn: &'static str,
    /// Too large, the layout failed, the source could not be read, no boxes.
    pub diagram_failed: [&'static str; 4],
    /// A sequence diagram in words: "Sequence diagram.", "Participants: {}.", "In order: {}.",
    /// "note on {who}: {text}", "{frame} begins", "{frame} ends", and its kind's name.
    pub diagram_sequence: [&'static str; 7],
    /// A state diagram in words: "State diagram, {direction}.", "States: {}.",
    /// "Transitions: {}.", a start's and an end's name, "Composite state {name} holds
    /// {states}.", its kind's name, and what a choice, a fork and a join are.
    pub diagram_state: [&'static str; 10],
    /// An ER diagram in words: "Entity relationship diagram, {direction}.", "Entities: {}.",
    /// "Relationships: {}.", "{entity} has attributes {list}.", its kind's name, a
    /// relationship "{first} {label} {cardinality} {second}", "and {cardinality} {first} for
    /// each {second}", "not identifying", the label of a relationship without one, and "key".
    pub diagram_er: [&'static str; 10],
    /// The cardinalities in words: zero or one, exactly one, zero or more, one or more, and
    /// the parent of a multi-dimensional relationship.
    pub diagram_er_cards: [&'static str; 5],
    /// A class diagram in words: "Class diagram, {direction}.", "Classes: {}.", "Relations:
    /// {}.", "{class} has {members}.", its kind's name, a relation "{first} to {second}, {line}",
    /// a marker "{marker} at {class}", "Notes: {}.", "Namespace {} holds {}.", a note "on {}",
    /// the dashed and the solid line, and the static and abstract member markers.
    pub diagram_class: [&'static str; 14],
    /// A relation's end markers in words: aggregation, inheritance, composition, arrow,
    /// interface.
    pub diagram_class_markers: [&'static str; 5],
    /// A gantt chart in words: its kind's name, "Gantt chart from {start} to {end}.",
    /// "Section {name}: {tasks}.", a task "{text} from {start} to {end}", a milestone
    /// "{text} on {date}", the tags done, active, critical, and "Tasks: {}.".
    pub diagram_gantt: [&'static str; 9],
    pub respond: &'static str,
    pub added_by_you: &'static str,
    /// The export's heading over the comments on the prose (after `## `).
    pub comments_heading: &'static str,
    /// Before a quoted excerpt in the export: `On "…" — comment`.
    pub comment_on: &'static str,
    /// A comment on the whole document in the export: `On the whole document — comment`.
    pub comment_on_document: &'static str,
    /// The form's box for a comment on the whole document.
    pub comment_document: &'static str,
    /// The routed page's submit button: the answers go to the sender.
    pub send_answers: &'static str,
    /// The routed page's optional name field.
    pub reviewer: &'static str,
    /// The page after sending: its heading, what it says, and the box with what was sent.
    pub sent_title: &'static str,
    pub sent_intro: &'static str,
    pub your_answers: &'static str,
    pub copy_answers: &'static str,
    /// The receipt's link back to the form, filled in, and what sending again does.
    pub change_heading: &'static str,
    pub change_intro: &'static str,
    /// The copy button's status on the page after sending.
    pub copied: &'static str,
    pub copy_failed: &'static str,
    // What only the enhancement script puts on the page (it reads these and the others it needs
    // by their names here, see `Strings::for_script`).
    /// The export's status line when a split's unallocated remainder was spread.
    pub spread_unallocated: &'static str,
    /// The Copy button's status lines, and its box of what was copied.
    pub answers_copied: &'static str,
    pub copy_by_hand: &'static str,
    pub nothing_answered: &'static str,
    pub copied_answers: &'static str,
    /// A question's Clear button, and what it announces.
    pub clear_answer: &'static str,
    pub answer_cleared: &'static str,
    /// What a list announces: "{label} moved to position {n} of {count}", and the like.
    pub item_moved: &'static str,
    pub item_restored: &'static str,
    pub item_added: &'static str,
    pub item_removed: &'static str,
    /// What a split announces of a category removed (its share handed on) or added "at {weight}".
    pub category_removed: &'static str,
    pub category_added: &'static str,
    /// A category's weight ("{label}: {weight}") and the split's remainder ("{weight} unallocated").
    pub weight_of: &'static str,
    pub unallocated: &'static str,
    /// The Undo button of a removed row, and its label ("Undo removing {label}").
    pub undo: &'static str,
    pub undo_remove: &'static str,
    /// A prose comment's button and box ("Comment on “{excerpt}”"), the selection's button, the
    /// box's remove button, and what removing announces.
    pub comment_on_text: &'static str,
    pub comment_selection: &'static str,
    pub remove_comment: &'static str,
    pub comment_removed: &'static str,
    /// An mdBook chapter's Copy button: every component of the page and its comments.
    pub copy_page: &'static str,
    /// Near a list's controls: what leaving it as it is says.
    pub list_unchanged: &'static str,
    /// The routed page's progress line: "{answered} of {questions} answered".
    pub progress: &'static str,
    // What a host writes around a routed review page (the server's intro, error summary, field
    // messages and verdict step), in the document's language: see `crate::chrome_strings`.
    /// The intro's name (its region's label) and its greeting ("For {name}").
    pub review_about: &'static str,
    pub review_for: &'static str,
    /// How many questions: one, and "{n} questions".
    pub review_questions: [&'static str; 2],
    /// Before the expiry date: "open until".
    pub review_open_until: &'static str,
    /// What Send does: "When you press {Send answers}, …" (`{}` the button's name).
    pub review_send: &'static str,
    /// The summary of the intro's links to each question.
    pub review_go_to: &'static str,
    /// The error summary's title with unanswered questions only (one, and "{n}"), its title
    /// with any other problem, its advice, and its "Send anyway" button.
    pub summary_unanswered: [&'static str; 2],
    pub summary_problem: &'static str,
    pub summary_advice: &'static str,
    pub send_anyway: &'static str,
    /// "Other" chosen with nothing typed, in the summary and at the field; the hidden word
    /// before a field's message.
    pub other_empty: &'static str,
    pub error_prefix: &'static str,
    /// The verdict step's legend (also its link in the summary) and its hint.
    pub verdict: &'static str,
    pub verdict_hint: &'static str,
    /// The choices of a verdict asked for without labels of the sender's own (approve, request
    /// changes, reject): the host keeps them with the document as its labels.
    pub verdict_choices: [&'static str; 3],
    /// The intro's line naming who sent the document: "{sender} asks for your answers".
    pub review_from: &'static str,
    /// The notice of a page whose answers were carried from an earlier revision: its title,
    /// what it says when the reader's post was not kept, what it says otherwise, and before
    /// the answers left without a place.
    pub revised: [&'static str; 4],
    /// The notice of a closed document, and of an expired one: a title and what it means.
    pub closed_notice: [&'static str; 2],
    pub expired_notice: [&'static str; 2],
    /// The note that the server's image policy kept images from loading: one, and "{n}".
    pub images_blocked: [&'static str; 2],
}

/// `[("name", s.name), …]`: fields by their names.
macro_rules! by_name {
    ($s:expr; $($field:ident),* $(,)?) => {
        [$((stringify!($field), $s.$field)),*]
    };
}

impl Strings {
    /// The strings the enhancement script reads (`t.copy_answers`), by their names here: the
    /// served script carries them for every language (see `crate::assets`), so this file is
    /// their one source.
    pub fn for_script(&self) -> [(&'static str, &'static str); 38] {
        by_name!(self;
            added_by_you, answer_cleared, answers_copied, category_added, category_removed,
            clear_answer, comment_document, comment_on, comment_on_document, comment_on_text,
            comment_removed, comment_selection, comments_heading, copied, copied_answers,
            copy_answers, copy_by_hand, copy_failed, copy_page, item_added, item_moved,
            item_removed, item_restored, move_down, move_up, nothing_answered, play, position_of,
            progress, remove, remove_comment, removed, spread_unallocated, unallocated, undo, undo_remove,
            weight_of, your_answers,
        )
    }

    /// Fills the `{}` of a template with `value`.
    pub fn fill(template: &str, value: &str) -> String {
        match Strings::split(template) {
            Some((before, after)) => [before, value, after].concat(),
            None => template.to_string(),
        }
    }

    /// Fills the `{}`s of a template with `values` in order.
    pub fn fill_all(template: &str, values: &[&str]) -> String {
        let mut out =
            String::with_capacity(template.len() + values.iter().map(|v| v.len()).sum::<usize>());
        let mut rest = template;
        for v in values {
            match Strings::split(rest) {
                Some((before, after)) => {
                    out.push_str(before);
                    out.push_str(v);
                    rest = after;
                }
                None => break,
            }
        }
        out.push_str(rest);
        out
    }

    /// A template's text before and after its first `{}`; `None` when it has none.
    pub fn split(template: &str) -> Option<(&str, &str)> {
        // A byte search: `split_once("{}")` sets up a substring searcher on every call, which
        // cost more than the copy for these short templates.
        let at = template.as_bytes().windows(2).position(|w| w == b"{}")?;
        Some((&template[..at], &template[at + 2..]))
    }
}

pub static EN: Strings = Strings {
    other: "Other:",
    recommended: "Recommended",
    select_all: "Select all that apply",
    note: "Add a note (optional)",
    your_answer: "Your answer",
    question_mark: "Q:",
    position_of: "Position of {}",
    move_up: "Move {} up",
    move_down: "Move {} down",
    remove: "Remove {}",
    restore: "Restore {}",
    removed: "Removed:",
    add_item: "Add an item of your own",
    add_category: "Add a category of your own",
    add: "Add",
    total: "Total",
    get_answers: "Get answers",
    play: "Play: {} (YouTube)",
    watch: "Watch on YouTube: {}",
    watch_untitled: "Watch on YouTube",
    video: "YouTube video",
    diagram: "Diagram",
    diagram_source: "Diagram source",
    comment_diagram: "Comment on the whole diagram",
    comment_parts: "Comment on a box or an arrow",
    comment_node: "Comment on box “{}”",
    comment_edge: "Comment on the arrow from “{}” to “{}”",
    diagram_quote: "“{}”",
    diagram_flowchart: "Flowchart, {}.",
    diagram_directions: [
        "top to bottom",
        "bottom to top",
        "left to right",
        "right to left",
    ],
    diagram_boxes: "Boxes: {}.",
    diagram_arrows: "Arrows: {}.",
    diagram_arrow: "from {} to {}",
    diagram_labelled: "labelled {}",
    diagram_edge_kinds: [
        "dotted",
        "thick",
        "not drawn",
        "without arrowheads",
        "both ways",
    ],
    diagram_group: "Group {} holds {}.",
    diagram_flowchart_kind: "Flowchart",
    diagram_not_drawn: "Not drawn here: its source is below.",
    diagram_failed: [
        "Too large to draw here: its source is below.",
        "Could not be laid out: its source is below.",
        "Could not be read: its source is below.",
        "Has no boxes to draw: its source is below.",
    ],
    diagram_sequence: [
        "Sequence diagram.",
        "Participants: {}.",
        "In order: {}.",
        "note on {}: {}",
        "{} begins",
        "{} ends",
        "Sequence diagram",
    ],
    diagram_state: [
        "State diagram, {}.",
        "States: {}.",
        "Transitions: {}.",
        "start",
        "end",
        "Composite state {} holds {}.",
        "State diagram",
        "choice",
        "fork",
        "join",
    ],
    diagram_er: [
        "Entity relationship diagram, {}.",
        "Entities: {}.",
        "Relationships: {}.",
        "{} has attributes {}.",
        "Entity relationship diagram",
        "{} {} {} {}",
        "and {} {} for each {}",
        "not identifying",
        "relates to",
        "key",
    ],
    diagram_er_cards: [
        "zero or one",
        "exactly one",
        "zero or more",
        "one or more",
        "a parent of",
    ],
    diagram_class: [
        "Class diagram, {}.",
        "Classes: {}.",
        "Relations: {}.",
        "{} has {}.",
        "Class diagram",
        "{} to {}, {}",
        "{} at {}",
        "Notes: {}.",
        "Namespace {} holds {}.",
        "on {}",
        "dashed line",
        "solid line",
        "static",
        "abstract",
    ],
    diagram_class_markers: [
        "aggregation diamond",
        "inheritance triangle",
        "composition diamond",
        "arrow",
        "interface circle",
    ],
    diagram_gantt: [
        "Gantt chart",
        "Gantt chart from {} to {}.",
        "Section {}: {}.",
        "{} from {} to {}",
        "milestone {} on {}",
        "done",
        "active",
        "critical",
        "Tasks: {}.",
    ],
    respond: "Respond",
    added_by_you: "added by you",
    comments_heading: "Comments on the text",
    comment_on: "On",
    comment_on_document: "On the whole document",
    comment_document: "Comment on the whole document (optional)",
    send_answers: "Send answers",
    reviewer: "Your name (optional)",
    sent_title: "Your answers were sent",
    sent_intro: "The person who sent you this link can read them now. This is what you sent:",
    your_answers: "Your answers",
    copy_answers: "Copy answers",
    change_heading: "Edit your response",
    change_intro: "The form opens again with these answers filled in. Sending it again keeps a new response beside this one; the sender sees both, newest last.",
    copied: "Copied to the clipboard.",
    copy_failed: "Copy failed: select the text and copy it.",
    spread_unallocated: "What was unallocated was spread in proportion.",
    answers_copied: "Answers copied to the clipboard.",
    copy_by_hand: "Could not copy automatically: select the text below and copy it.",
    nothing_answered: "Nothing is answered yet.",
    copied_answers: "The copied answers",
    clear_answer: "Clear answer",
    answer_cleared: "Answer cleared.",
    item_moved: "{} moved to position {} of {}",
    item_restored: "{} restored at position {} of {}",
    item_added: "{} added at position {} of {}",
    item_removed: "{} removed. Undo brings it back.",
    category_removed: "{} removed; its share went to the others in proportion. Undo brings it back.",
    category_added: "{} added at {}",
    weight_of: "{}: {}",
    unallocated: "{} unallocated",
    undo: "Undo",
    undo_remove: "Undo removing {}",
    comment_on_text: "Comment on “{}”",
    comment_selection: "Comment on the selection",
    remove_comment: "Remove the comment on “{}”",
    comment_removed: "Comment removed.",
    copy_page: "Copy all answers on this page",
    list_unchanged: "Leaving this list as it is sends “kept unchanged”: that you agree with it as it stands.",
    progress: "{} of {} answered",
    review_about: "About this review",
    review_for: "For {}",
    review_questions: ["1 question", "{} questions"],
    review_open_until: "open until",
    review_send: "When you press {}, your answers go to the person who sent you this link; you can change them later.",
    review_go_to: "Go to a question",
    summary_unanswered: [
        "You have not answered 1 question",
        "You have not answered {} questions",
    ],
    summary_problem: "There is a problem",
    summary_advice: "Answer them below, or send what you have: a question left out is reported as not answered.",
    send_anyway: "Send anyway",
    other_empty: "Type your answer after “Other”, or choose another option.",
    error_prefix: "Error: ",
    verdict: "Your verdict",
    verdict_hint: "Your overall answer to this document, sent with your answers.",
    verdict_choices: ["Approve", "Request changes", "Reject"],
    review_from: "{} asks for your answers to this document.",
    revised: [
        "This document was revised",
        "Its sender changed it while you were answering, so your answers were not sent yet. They are filled in below where they still fit: check them, then send again.",
        "Its sender changed it since you answered. Your answers are filled in below where they still fit.",
        "These answers have no place in the new version; copy what you need before sending:",
    ],
    closed_notice: [
        "This document is closed.",
        "Its sender is not taking answers any more: you can read it, but nothing you fill in here is sent.",
    ],
    expired_notice: [
        "This document has expired.",
        "Its time ran out, so it takes no more answers: you can read it, but nothing you fill in here is sent.",
    ],
    images_blocked: [
        "1 image in this document is not shown: this server does not load images from its address. It is a link to it, or its description, instead.",
        "{} images in this document are not shown: this server does not load images from their addresses. Each is a link to it, or its description, instead.",
    ],
};

pub static HE: Strings = Strings {
    other: "אחר:",
    recommended: "מומלץ",
    select_all: "יש לבחור את כל מה שמתאים",
    note: "הוספת הערה (לא חובה)",
    your_answer: "התשובה שלך",
    question_mark: "ש:",
    position_of: "המיקום של {}",
    move_up: "הזזת {} למעלה",
    move_down: "הזזת {} למטה",
    remove: "הסרת {}",
    restore: "שחזור {}",
    removed: "הוסרו:",
    add_item: "הוספת פריט משלך",
    add_category: "הוספת קטגוריה משלך",
    add: "הוספה",
    total: "סה״כ",
    get_answers: "קבלת התשובות",
    play: "הפעלה: {} (YouTube)",
    watch: "צפייה ב-YouTube: {}",
    watch_untitled: "צפייה ב-YouTube",
    video: "סרטון YouTube",
    diagram: "תרשים",
    diagram_source: "קוד התרשים",
    comment_diagram: "הערה על התרשים כולו",
    comment_parts: "הערה על תיבה או חץ",
    comment_node: "הערה על התיבה „{}”",
    comment_edge: "הערה על החץ מ-„{}” אל „{}”",
    diagram_quote: "„{}”",
    diagram_flowchart: "תרשים זרימה, {}.",
    diagram_directions: ["מלמעלה למטה", "מלמטה למעלה", "משמאל לימין", "מימין לשמאל"],
    diagram_boxes: "תיבות: {}.",
    diagram_arrows: "חצים: {}.",
    diagram_arrow: "מ-{} אל {}",
    diagram_labelled: "עם התווית {}",
    diagram_edge_kinds: ["מנוקד", "עבה", "לא מצויר", "ללא ראשי חץ", "לשני הכיוונים"],
    diagram_group: "הקבוצה {} מכילה: {}.",
    diagram_flowchart_kind: "תרשים זרימה",
    diagram_not_drawn: "התרשים אינו מצויר כאן: הקוד שלו מופיע למטה.",
    diagram_failed: [
        "התרשים גדול מכדי לצייר אותו כאן: הקוד שלו מופיע למטה.",
        "לא ניתן היה לסדר את התרשים: הקוד שלו מופיע למטה.",
        "לא ניתן היה לקרוא את התרשים: הקוד שלו מופיע למטה.",
        "אין בתרשים תיבות לצייר: הקוד שלו מופיע למטה.",
    ],
    diagram_sequence: [
        "תרשים רצף.",
        "משתתפים: {}.",
        "לפי הסדר: {}.",
        "הערה על {}: {}",
        "{} מתחיל",
        "{} מסתיים",
        "תרשים רצף",
    ],
    diagram_state: [
        "תרשים מצבים, {}.",
        "מצבים: {}.",
        "מעברים: {}.",
        "התחלה",
        "סיום",
        "המצב המורכב {} מכיל: {}.",
        "תרשים מצבים",
        "בחירה",
        "פיצול",
        "איחוד",
    ],
    diagram_er: [
        "תרשים ישויות וקשרים, {}.",
        "ישויות: {}.",
        "קשרים: {}.",
        "ל־{} יש תכונות: {}.",
        "תרשים ישויות וקשרים",
        "{} {} {} {}",
        "ו־{} {} לכל {}",
        "לא מזהה",
        "קשור אל",
        "מפתח",
    ],
    diagram_er_cards: [
        "אפס או אחד",
        "בדיוק אחד",
        "אפס או יותר",
        "אחד או יותר",
        "הורה של",
    ],
    diagram_class: [
        "תרשים מחלקות, {}.",
        "מחלקות: {}.",
        "קשרים: {}.",
        "ל־{} יש {}.",
        "תרשים מחלקות",
        "{} אל {}, {}",
        "{} ליד {}",
        "הערות: {}.",
        "מרחב השמות {} מכיל {}.",
        "על {}",
        "קו מקווקו",
        "קו רציף",
        "סטטי",
        "מופשט",
    ],
    diagram_class_markers: [
        "יהלום צבירה",
        "משולש ירושה",
        "יהלום הרכבה",
        "חץ",
        "עיגול ממשק",
    ],
    diagram_gantt: [
        "תרשים גאנט",
        "תרשים גאנט מ־{} עד {}.",
        "מקטע {}: {}.",
        "{} מ־{} עד {}",
        "אבן דרך {} ב־{}",
        "הושלם",
        "פעיל",
        "קריטי",
        "משימות: {}.",
    ],
    respond: "למענה",
    added_by_you: "נוסף על ידך",
    comments_heading: "הערות על הטקסט",
    comment_on: "על",
    comment_on_document: "על המסמך כולו",
    comment_document: "הערה על המסמך כולו (לא חובה)",
    send_answers: "שליחת התשובות",
    reviewer: "השם שלך (לא חובה)",
    sent_title: "התשובות שלך נשלחו",
    sent_intro: "השולח יכול לקרוא אותן עכשיו. זה מה שנשלח:",
    your_answers: "התשובות שלך",
    copy_answers: "העתקת התשובות",
    change_heading: "עריכת התשובה שלך",
    change_intro: "הטופס ייפתח שוב עם התשובות האלה. כששולחים שוב, נשמרת תשובה חדשה לצד זו, והשולח רואה את שתיהן, החדשה אחרונה.",
    copied: "הועתק ללוח.",
    copy_failed: "ההעתקה נכשלה: יש לסמן את הטקסט ולהעתיק אותו.",
    spread_unallocated: "מה שלא הוקצה חולק באופן יחסי.",
    answers_copied: "התשובות הועתקו ללוח.",
    copy_by_hand: "ההעתקה האוטומטית נכשלה: יש לסמן את הטקסט שלמטה ולהעתיק אותו.",
    nothing_answered: "עדיין אין תשובות.",
    copied_answers: "התשובות שהועתקו",
    clear_answer: "ניקוי התשובה",
    answer_cleared: "התשובה נוקתה.",
    item_moved: "{} הועבר למקום {} מתוך {}",
    item_restored: "{} הוחזר למקום {} מתוך {}",
    item_added: "{} נוסף במקום {} מתוך {}",
    item_removed: "{} הוסר. אפשר לבטל את ההסרה.",
    category_removed: "{} הוסר; החלק שלו חולק בין האחרים באופן יחסי. אפשר לבטל את ההסרה.",
    category_added: "{} נוסף עם {}",
    weight_of: "{}: {}",
    unallocated: "{} לא הוקצו",
    undo: "ביטול",
    undo_remove: "ביטול ההסרה של {}",
    comment_on_text: "הערה על „{}”",
    comment_selection: "הערה על הטקסט המסומן",
    remove_comment: "הסרת ההערה על „{}”",
    comment_removed: "ההערה הוסרה.",
    copy_page: "העתקת כל התשובות בעמוד",
    list_unchanged: "השארת הרשימה כפי שהיא שולחת „ללא שינוי”, כלומר הסכמה לרשימה כפי שהיא.",
    progress: "{} מתוך {} נענו",
    review_about: "על הבקשה הזו",
    review_for: "עבור {}",
    review_questions: ["שאלה אחת", "{} שאלות"],
    review_open_until: "פתוח עד",
    review_send: "בלחיצה על {} התשובות שלך יגיעו למי ששלח לך את הקישור; אפשר לשנות אותן אחר כך.",
    review_go_to: "מעבר לשאלה",
    summary_unanswered: ["לא ענית על שאלה אחת", "לא ענית על {} שאלות"],
    summary_problem: "יש בעיה",
    summary_advice: "אפשר לענות עליהן למטה, או לשלוח את מה שיש: שאלה שנשארה ריקה מדווחת כשאלה שלא נענתה.",
    send_anyway: "לשלוח בכל זאת",
    other_empty: "יש להקליד תשובה אחרי „אחר”, או לבחור אפשרות אחרת.",
    error_prefix: "שגיאה: ",
    verdict: "ההכרעה שלך",
    verdict_hint: "התשובה הכוללת שלך למסמך, נשלחת יחד עם התשובות.",
    verdict_choices: ["אישור", "בקשת שינויים", "דחייה"],
    review_from: "המסמך נשלח אליך מאת {} לקבלת תשובותיך.",
    revised: [
        "המסמך עודכן",
        "המסמך שונה בזמן שענית, ולכן התשובות שלך עדיין לא נשלחו. הן מולאו למטה במקומות שבהם הן עדיין מתאימות: יש לבדוק אותן ולשלוח שוב.",
        "המסמך שונה מאז שענית. התשובות שלך מולאו למטה במקומות שבהם הן עדיין מתאימות.",
        "לתשובות האלה אין מקום בגרסה החדשה; כדאי להעתיק את מה שצריך לפני השליחה:",
    ],
    closed_notice: [
        "המסמך סגור.",
        "הוא כבר לא מקבל תשובות: אפשר לקרוא אותו, אבל שום דבר שימולא כאן לא יישלח.",
    ],
    expired_notice: [
        "תוקף המסמך פג.",
        "הזמן שלו נגמר, ולכן הוא כבר לא מקבל תשובות: אפשר לקרוא אותו, אבל שום דבר שימולא כאן לא יישלח.",
    ],
    images_blocked: [
        "תמונה אחת במסמך לא מוצגת: השרת הזה לא טוען תמונות מהכתובת שלה. במקומה מופיע קישור אליה או התיאור שלה.",
        "{} תמונות במסמך לא מוצגות: השרת הזה לא טוען תמונות מהכתובות שלהן. במקום כל אחת מהן מופיע קישור אליה או התיאור שלה.",
    ],
};

pub static AR: Strings = Strings {
    other: "أخر:",
    recommended: "موصى به",
    select_all: "اختر كل ما ينطبق",
    note: "أضف ملاحظة (اختياري)",
    your_answer: "إجابتك",
    question_mark: "س:",
    position_of: "موضع {}",
    move_up: "نقل {} لأعلى",
    move_down: "نقل {} لأسفل",
    remove: "إزالة {}",
    restore: "استعادة {}",
    removed: "المحذوفة:",
    add_item: "أضف عنصرًا خاصًا بك",
    add_category: "أضف فئة خاصة بك",
    add: "إضافة",
    total: "المجموع",
    get_answers: "احصل على الإجابات",
    play: "تشغيل: {} (YouTube)",
    watch: "شاهد على YouTube: {}",
    watch_untitled: "شاهد على YouTube",
    video: "فيديو YouTube",
    diagram: "مخطط",
    diagram_source: "مصدر المخطط",
    comment_diagram: "تعليق على المخطط بالكامل",
    comment_parts: "تعليق على مربع أو سهم",
    comment_node: "تعليق على المربع «{}»",
    comment_edge: "تعليق على السهم من «{}» إلى «{}»",
    diagram_quote: "«{}»",
    diagram_flowchart: "مخطط انسيابي، {}.",
    diagram_directions: [
        "من الأعلى إلى الأسفل",
        "من الأسفل إلى الأعلى",
        "من اليسار إلى اليمين",
        "من اليمين إلى اليسار",
    ],
    diagram_boxes: "المربعات: {}.",
    diagram_arrows: "الأسهم: {}.",
    diagram_arrow: "من {} إلى {}",
    diagram_labelled: "بعنوان {}",
    diagram_edge_kinds: ["منقط", "عريض", "غير مرسوم", "بلا رؤوس أسهم", "في الاتجاهين"],
    diagram_group: "المجموعة {} تضم: {}.",
    diagram_flowchart_kind: "مخطط انسيابي",
    diagram_not_drawn: "المخطط غير مرسوم هنا: مصدره أدناه.",
    diagram_failed: [
        "المخطط أكبر من أن يُرسم هنا: مصدره أدناه.",
        "تعذّر ترتيب المخطط: مصدره أدناه.",
        "تعذّرت قراءة المخطط: مصدره أدناه.",
        "لا مربعات في المخطط لرسمها: مصدره أدناه.",
    ],
    diagram_sequence: [
        "مخطط تسلسلي.",
        "المشاركون: {}.",
        "بالترتيب: {}.",
        "ملاحظة على {}: {}",
        "بداية {}",
        "نهاية {}",
        "مخطط تسلسلي",
    ],
    diagram_state: [
        "مخطط حالات، {}.",
        "الحالات: {}.",
        "الانتقالات: {}.",
        "البداية",
        "النهاية",
        "الحالة المركبة {} تضم: {}.",
        "مخطط حالات",
        "اختيار",
        "تفرّع",
        "دمج",
    ],
    diagram_er: [
        "مخطط الكيانات والعلاقات، {}.",
        "الكيانات: {}.",
        "العلاقات: {}.",
        "لـ{} السمات: {}.",
        "مخطط الكيانات والعلاقات",
        "{} {} {} {}",
        "و{} {} لكل {}",
        "غير معرِّفة",
        "مرتبط بـ",
        "مفتاح",
    ],
    diagram_er_cards: [
        "صفر أو واحد",
        "واحد بالضبط",
        "صفر أو أكثر",
        "واحد أو أكثر",
        "أصل لـ",
    ],
    diagram_class: [
        "مخطط أصناف، {}.",
        "الأصناف: {}.",
        "العلاقات: {}.",
        "لدى {} {}.",
        "مخطط أصناف",
        "{} إلى {}، {}",
        "{} عند {}",
        "الملاحظات: {}.",
        "مساحة الأسماء {} تضم {}.",
        "على {}",
        "خط متقطع",
        "خط متصل",
        "ساكن",
        "مجرد",
    ],
    diagram_class_markers: [
        "معين تجميع",
        "مثلث وراثة",
        "معين تركيب",
        "سهم",
        "دائرة واجهة",
    ],
    diagram_gantt: [
        "مخطط غانت",
        "مخطط غانت من {} إلى {}.",
        "القسم {}: {}.",
        "{} من {} إلى {}",
        "معلم {} في {}",
        "منجز",
        "نشط",
        "حرج",
        "المهام: {}.",
    ],
    respond: "الرد",
    added_by_you: "أضفته أنت",
    comments_heading: "تعليقات على النص",
    comment_on: "على",
    comment_on_document: "على المستند كله",
    comment_document: "تعليق على المستند كله (اختياري)",
    send_answers: "أرسل الإجابات",
    reviewer: "اسمك (اختياري)",
    sent_title: "تم إرسال إجاباتك",
    sent_intro: "يمكن للمرسل قراءتها الآن. هذا ما أُرسل:",
    your_answers: "إجاباتك",
    copy_answers: "نسخ الإجابات",
    change_heading: "عدّل ردّك",
    change_intro: "يُفتح النموذج مجددًا وفيه هذه الإجابات. عند الإرسال مجددًا يُحفظ ردّ جديد بجانب هذا، ويرى المرسل كليهما والأحدث أخيرًا.",
    copied: "تم النسخ إلى الحافظة.",
    copy_failed: "تعذّر النسخ: حدّد النص وانسخه.",
    spread_unallocated: "وُزّع غير المخصص بالتناسب.",
    answers_copied: "تم نسخ الإجابات إلى الحافظة.",
    copy_by_hand: "تعذّر النسخ تلقائيًا: حدّد النص أدناه وانسخه.",
    nothing_answered: "لا توجد إجابات بعد.",
    copied_answers: "الإجابات المنسوخة",
    clear_answer: "مسح الإجابة",
    answer_cleared: "تم مسح الإجابة.",
    item_moved: "تم نقل {} إلى الموضع {} من {}",
    item_restored: "تمت استعادة {} في الموضع {} من {}",
    item_added: "تمت إضافة {} في الموضع {} من {}",
    item_removed: "تمت إزالة {}. يمكنك التراجع.",
    category_removed: "تمت إزالة {}؛ وُزّعت حصته على البقية بالتناسب. يمكنك التراجع.",
    category_added: "تمت إضافة {} بقيمة {}",
    weight_of: "{}: {}",
    unallocated: "{} غير مخصص",
    undo: "تراجع",
    undo_remove: "تراجع عن إزالة {}",
    comment_on_text: "تعليق على «{}»",
    comment_selection: "تعليق على النص المحدد",
    remove_comment: "إزالة التعليق على «{}»",
    comment_removed: "تمت إزالة التعليق.",
    copy_page: "نسخ كل الإجابات في هذه الصفحة",
    list_unchanged: "تركُ هذه القائمة كما هي يُرسل «دون تغيير»، أي أنك توافق عليها كما هي.",
    progress: "تمت الإجابة عن {} من {}",
    review_about: "حول هذا الطلب",
    review_for: "إلى {}",
    review_questions: ["سؤال واحد", "عدد الأسئلة: {}"],
    review_open_until: "مفتوح حتى",
    review_send: "عند الضغط على {} تصل إجاباتك إلى من أرسل إليك هذا الرابط، ويمكنك تغييرها لاحقًا.",
    review_go_to: "انتقل إلى سؤال",
    summary_unanswered: ["لم تُجب عن سؤال واحد", "عدد الأسئلة التي لم تُجب عنها: {}"],
    summary_problem: "هناك مشكلة",
    summary_advice: "أجب عنها أدناه، أو أرسل ما لديك: السؤال المتروك يُبلَّغ عنه بأنه بلا إجابة.",
    send_anyway: "أرسل على أي حال",
    other_empty: "اكتب إجابتك بعد «أخرى»، أو اختر خيارًا آخر.",
    error_prefix: "خطأ: ",
    verdict: "قرارك",
    verdict_hint: "ردّك العام على هذه الوثيقة، يُرسل مع إجاباتك.",
    verdict_choices: ["موافقة", "طلب تعديلات", "رفض"],
    review_from: "وصلتك هذه الوثيقة من {} للإجابة عنها.",
    revised: [
        "عُدّلت هذه الوثيقة",
        "عُدّلت الوثيقة أثناء إجابتك، لذلك لم تُرسل إجاباتك بعد. وقد مُلئت أدناه حيث ما زالت مناسبة: راجعها ثم أرسلها من جديد.",
        "عُدّلت الوثيقة منذ أن أجبت. وقد مُلئت إجاباتك أدناه حيث ما زالت مناسبة.",
        "لا مكان لهذه الإجابات في النسخة الجديدة؛ انسخ ما تحتاج إليه قبل الإرسال:",
    ],
    closed_notice: [
        "هذه الوثيقة مغلقة.",
        "لم تعد تستقبل إجابات: يمكنك قراءتها، لكن لن يُرسل شيء مما تملؤه هنا.",
    ],
    expired_notice: [
        "انتهت صلاحية هذه الوثيقة.",
        "انتهت مدتها فلم تعد تستقبل إجابات: يمكنك قراءتها، لكن لن يُرسل شيء مما تملؤه هنا.",
    ],
    images_blocked: [
        "صورة واحدة في هذه الوثيقة غير معروضة: هذا الخادم لا يحمّل الصور من عنوانها. يظهر بدلًا منها رابط إليها أو وصفها.",
        "عدد الصور غير المعروضة في هذه الوثيقة: {}. هذا الخادم لا يحمّل الصور من عناوينها؛ يظهر بدلًا من كل منها رابط إليها أو وصفها.",
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_leads_are_found_as_substring_searches_would() {
        for text in [
            "",
            "&",
            "\\",
            "&#",
            "\\u",
            "a&b#",
            "&amp; &#1488;",
            "x\\n\\u05d0",
            "\\\\",
            "&&#",
            "#&",
            "u\\",
            "\\ u",
            "é&#",
        ] {
            let expected = text.contains("&#") || text.contains("\\u");
            assert_eq!(has_escape_lead(text.as_bytes()), expected, "{text:?}");
        }
    }

    /// A letter is found wherever it falls against the ASCII runs, across their edges too; a
    /// non-ASCII letter of another script is not taken for one.
    #[test]
    fn rtl_leads_are_found_at_every_offset() {
        for at in 0..3 * ASCII_RUN {
            let before = "x".repeat(at);
            let after = "y".repeat(2 * ASCII_RUN);
            assert!(has_rtl_lead(format!("{before}א{after}").as_bytes()), "{at}");
            assert!(has_rtl_lead(format!("{before}\u{FB50}").as_bytes()), "{at}");
            assert!(
                !has_rtl_lead(format!("{before}é{after}€").as_bytes()),
                "{at}"
            );
        }
    }

    fn detect(text: &str) -> Lang {
        let mut letters = Letters::default();
        letters.add(text);
        letters.lang()
    }

    #[test]
    fn detects_by_majority_of_letters() {
        assert_eq!(detect("Which auth method?"), Lang::En);
        assert_eq!(detect("באיזו שיטת אימות? PIN"), Lang::He);
        assert_eq!(detect("ما هي طريقة المصادقة؟ PIN"), Lang::Ar);
        assert_eq!(detect("Mostly English with one מילה"), Lang::En);
        assert_eq!(detect("1234 !!"), Lang::En);
    }

    /// Every character `Letters` counts as Hebrew or Arabic, and every escape, makes
    /// `may_hold_rtl` true; text without them keeps it false.
    #[test]
    fn rtl_precheck_never_misses_a_counted_letter() {
        for c in (0u32..=0x10FFFF).filter_map(char::from_u32) {
            let mut letters = Letters::default();
            letters.count(c);
            if letters.hebrew + letters.arabic > 0 {
                assert!(may_hold_rtl(&format!("a{c}b")), "U+{:04X}", u32::from(c));
            }
        }
        assert!(may_hold_rtl("x &#1488; y"));
        assert!(may_hold_rtl(r#"{"q": "\u05d0"}"#));
        for text in [
            "Plain English, R&D, a \\ path, “curly” quotes — dashes, emoji ❤️ and 中文",
            "",
            "ünïcödé Ελληνικά кириллица",
        ] {
            assert!(!may_hold_rtl(text), "{text}");
        }
    }

    #[test]
    fn long_ascii_runs_are_counted_whole() {
        // 600 letters against 400 Hebrew ones: the ASCII count spans several 255-byte chunks.
        let mut letters = Letters::default();
        letters.add(&"ab".repeat(300));
        letters.add(&"א".repeat(400));
        assert_eq!(letters.lang(), Lang::En);
        letters.add(&"ש".repeat(201));
        assert_eq!(letters.lang(), Lang::He);
        let mut letters = Letters::default();
        letters.add(&"a1[".repeat(200));
        letters.add(&"א".repeat(201));
        assert_eq!(letters.lang(), Lang::He);
    }

    #[test]
    fn counts_like_a_character_by_character_reference() {
        // Every character through `count`, with no ASCII pass and no skipping.
        fn reference(text: &str) -> (usize, usize, usize) {
            let mut letters = Letters::default();
            text.chars().for_each(|c| letters.count(c));
            (letters.hebrew, letters.arabic, letters.other)
        }
        let long_mixed = format!(
            "{}— “quoted” café {}",
            "plain words ".repeat(40),
            "שלום ".repeat(30)
        );
        for text in [
            "",
            "Ship it — now",
            "naïve café résumé, Ωmega",
            "مرحبا بالعالم 123",
            "עברית and English, 😀 emoji",
            "ends with é",
            "é",
            long_mixed.as_str(),
        ] {
            let mut letters = Letters::default();
            letters.add(text);
            assert_eq!(
                (letters.hebrew, letters.arabic, letters.other),
                reference(text),
                "{text:?}"
            );
        }
    }

    #[test]
    fn fills_the_first_placeholder_only() {
        assert_eq!(Strings::fill("Move {} up", "EU"), "Move EU up");
        assert_eq!(Strings::fill("{} first", "A"), "A first");
        assert_eq!(Strings::fill("“{}”", "box"), "“box”");
        assert_eq!(Strings::fill("from “{}” to “{}”", "A"), "from “A” to “{}”");
        assert_eq!(Strings::fill("no slot", "x"), "no slot");
        assert_eq!(Strings::fill("{", "x"), "{");
    }
}
