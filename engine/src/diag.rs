//! Diagnostics: every problem the engine finds, located in the original Markdown.

use serde::Serialize;

/// Whether a problem rejects its block (`Error`) or is only reported (`Warning`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The block is rejected (shown as its source).
    Error,
    /// Reported; the block still renders.
    Warning,
}

impl Severity {
    /// The lowercase word people read, `error` or `warning`, as the JSON output spells it.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
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
    /// `missing_field`
    MissingField,
    /// `nested_json_fence_rescued`
    NestedJsonFenceRescued,
    /// `other_in_options`
    OtherInOptions,
    /// `out_of_range`
    OutOfRange,
    /// `question_alias_rescued`
    QuestionAliasRescued,
    /// `raw_html_escaped`
    RawHtmlEscaped,
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
            Code::Empty => "empty",
            Code::IgnoredDirective => "ignored_directive",
            Code::InvalidJson => "invalid_json",
            Code::InvalidPattern => "invalid_pattern",
            Code::InvalidType => "invalid_type",
            Code::MissingField => "missing_field",
            Code::NestedJsonFenceRescued => "nested_json_fence_rescued",
            Code::OtherInOptions => "other_in_options",
            Code::OutOfRange => "out_of_range",
            Code::QuestionAliasRescued => "question_alias_rescued",
            Code::RawHtmlEscaped => "raw_html_escaped",
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

    /// The compiler-style line `FILE:LINE:COL: SEVERITY[code]: message (hint)`, at a place the
    /// caller gives (a host may have moved the text, as mdBook chapters do).
    pub fn compiler_line(&self, file: &str, line: usize, column: usize, severity: &str) -> String {
        format!(
            "{file}:{line}:{column}: {severity}[{}]: {} ({})",
            self.code, self.message, self.hint
        )
    }
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
    fn pointer_escapes_tokens() {
        let mut pointer = "/items".to_string();
        super::push_token(&mut pointer, "a/b~c");
        assert_eq!(pointer, "/items/a~1b~0c");
    }
}
