//! Diagnostics: every problem the engine finds, located in the original Markdown.

use serde::Serialize;

/// Whether a problem rejects its block (`Error`), is only reported (`Warning`), or is a note
/// on how the block was read that asks for nothing (`Info`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The block is rejected (shown as its source).
    Error,
    /// Reported; the block still renders.
    Warning,
    /// How the block was read, for the author's information; nothing to fix.
    Info,
}

impl Severity {
    /// The lowercase word people read, `error`, `warning` or `info`, as the JSON output spells
    /// it.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// What kind of problem a diagnostic reports. Serialized as its stable snake_case name
/// (contract §2), e.g. `missing_field`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Code {
    /// `all_zero_weights`
    AllZeroWeights,
    /// `bare_json_wrapped`
    BareJsonWrapped,
    /// `component_in_code_block`
    ComponentInCodeBlock,
    /// `duplicate_id`
    DuplicateId,
    /// `duplicate_key`
    DuplicateKey,
    /// `duplicate_option`
    DuplicateOption,
    /// `email_clipped`
    EmailClipped,
    /// `email_unanswerable`
    EmailUnanswerable,
    /// `empty`
    Empty,
    /// `ignored_directive`
    IgnoredDirective,
    /// `invalid_json`
    InvalidJson,
    /// `invalid_pattern`
    InvalidPattern,
    /// `invalid_type`
    InvalidType,
    /// `mermaid_source_bare` (info)
    MermaidSourceBare,
    /// `missing_field`
    MissingField,
    /// `nested_json_fence_rescued`
    NestedJsonFenceRescued,
    /// `other_in_options`
    OtherInOptions,
    /// `out_of_range`
    OutOfRange,
    /// `over_budget`
    OverBudget,
    /// `question_alias_rescued`
    QuestionAliasRescued,
    /// `raw_html_escaped`
    RawHtmlEscaped,
    /// `raw_html_filtered`
    RawHtmlFiltered,
    /// `raw_html_unbalanced`
    RawHtmlUnbalanced,
    /// `recommended_mismatch`
    RecommendedMismatch,
    /// `routing_from_missing`
    RoutingFromMissing,
    /// `smart_quotes_rescued`
    SmartQuotesRescued,
    /// `thumbnail_dropped`
    ThumbnailDropped,
    /// `too_deep`
    TooDeep,
    /// `too_few`
    TooFew,
    /// `too_long`
    TooLong,
    /// `too_many`
    TooMany,
    /// `trailing_comma_rescued`
    TrailingCommaRescued,
    /// `unknown_field`
    UnknownField,
    /// `unknown_tag`
    UnknownTag,
    /// `unsupported_diagram`
    UnsupportedDiagram,
    /// `wrong_version`
    WrongVersion,
}

impl Code {
    /// The stable snake_case name, as the JSON output spells it.
    pub fn name(self) -> &'static str {
        match self {
            Code::AllZeroWeights => "all_zero_weights",
            Code::BareJsonWrapped => "bare_json_wrapped",
            Code::ComponentInCodeBlock => "component_in_code_block",
            Code::DuplicateId => "duplicate_id",
            Code::DuplicateKey => "duplicate_key",
            Code::DuplicateOption => "duplicate_option",
            Code::EmailClipped => "email_clipped",
            Code::EmailUnanswerable => "email_unanswerable",
            Code::Empty => "empty",
            Code::IgnoredDirective => "ignored_directive",
            Code::InvalidJson => "invalid_json",
            Code::InvalidPattern => "invalid_pattern",
            Code::InvalidType => "invalid_type",
            Code::MermaidSourceBare => "mermaid_source_bare",
            Code::MissingField => "missing_field",
            Code::NestedJsonFenceRescued => "nested_json_fence_rescued",
            Code::OtherInOptions => "other_in_options",
            Code::OutOfRange => "out_of_range",
            Code::OverBudget => "over_budget",
            Code::QuestionAliasRescued => "question_alias_rescued",
            Code::RawHtmlEscaped => "raw_html_escaped",
            Code::RawHtmlFiltered => "raw_html_filtered",
            Code::RawHtmlUnbalanced => "raw_html_unbalanced",
            Code::RecommendedMismatch => "recommended_mismatch",
            Code::RoutingFromMissing => "routing_from_missing",
            Code::SmartQuotesRescued => "smart_quotes_rescued",
            Code::ThumbnailDropped => "thumbnail_dropped",
            Code::TooDeep => "too_deep",
            Code::TooFew => "too_few",
            Code::TooLong => "too_long",
            Code::TooMany => "too_many",
            Code::TrailingCommaRescued => "trailing_comma_rescued",
            Code::UnknownField => "unknown_field",
            Code::UnknownTag => "unknown_tag",
            Code::UnsupportedDiagram => "unsupported_diagram",
            Code::WrongVersion => "wrong_version",
        }
    }
}

/// Compares with the snake_case name, as the JSON carries it.
impl PartialEq<&str> for Code {
    fn eq(&self, name: &&str) -> bool {
        self.name() == *name
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One problem, as contract §2 describes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Diagnostic {
    /// Whether it rejects its block.
    pub severity: Severity,
    /// What kind of problem it is; serialized as a stable snake_case name, e.g. `missing_field`.
    pub code: Code,
    /// The block the problem belongs to (`b3`), or `None` for document-level problems.
    pub block: Option<String>,
    /// 1-based line in the original Markdown.
    pub line: usize,
    /// 1-based column (in characters) in the original Markdown.
    pub column: usize,
    /// JSON Pointer to the offending value inside the block ("" for the block itself).
    pub path: String,
    /// What is wrong, as a sentence.
    pub message: String,
    /// What to do about it.
    pub hint: String,
}

impl Diagnostic {
    /// Whether the diagnostic rejects its block.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The compiler-style line `FILE:LINE:COL: SEVERITY[code]: message — hint`, at a place the
    /// caller gives (a host may have moved the text, as mdBook chapters do).
    /// Messages quote the document, so control characters are escaped ([`terminal_safe`]): the
    /// line goes to a terminal or a log as one line, and does nothing to either.
    pub fn compiler_line(&self, file: &str, line: usize, column: usize, severity: &str) -> String {
        format!(
            "{}:{line}:{column}: {severity}[{}]: {}{}{}",
            terminal_safe(file),
            self.code,
            terminal_safe(&self.message),
            // The hint follows the message as its own clause, not in parentheses: hints hold
            // parentheses of their own, and nested ones read badly.
            if self.hint.is_empty() { "" } else { " — " },
            terminal_safe(&self.hint)
        )
    }
}

/// `text` fit to print on a terminal or into a log line: every control character (C0, DEL,
/// C1) and every bidirectional override is written as an escape (`\n`, `\u{1b}`…), so a
/// document cannot clear the screen, set the window title, ring the bell, reorder what is
/// shown, or forge a line of its own.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| {
        c.is_control()
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if unsafe_char(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Appends `/` and `token`, escaped, to a JSON Pointer being written.
pub fn push_token(out: &mut String, token: &str) {
    out.push('/');
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn terminal_lines_carry_no_control_characters() {
        let text = "field\u{1b}[2J\u{1b}]0;title\u{7}\nforged: ok\r\u{9b}\u{202e}x";
        let safe = super::terminal_safe(text);
        assert_eq!(
            safe,
            "field\\u{1b}[2J\\u{1b}]0;title\\u{7}\\nforged: ok\\r\\u{9b}\\u{202e}x"
        );
        assert!(!safe.chars().any(char::is_control));
        assert!(matches!(
            super::terminal_safe("plain é"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn pointer_escapes_tokens() {
        let mut pointer = "/items".to_string();
        super::push_token(&mut pointer, "a/b~c");
        assert_eq!(pointer, "/items/a~1b~0c");
    }
}
