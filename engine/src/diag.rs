//! Diagnostics: every problem the engine finds, located in the original Markdown.

use serde::Serialize;

/// Whether a problem rejects its block (`Error`) or is only reported (`Warning`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
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

/// One problem, as contract §2 describes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A stable snake_case name, e.g. `missing_field`.
    pub code: &'static str,
    /// The block the problem belongs to (`b3`), or `None` for document-level problems.
    pub block: Option<String>,
    /// 1-based line in the original Markdown.
    pub line: usize,
    /// 1-based column (in characters) in the original Markdown.
    pub column: usize,
    /// JSON Pointer to the offending value inside the block ("" for the block itself).
    pub path: String,
    pub message: String,
    /// What to do about it.
    pub hint: String,
}

impl Diagnostic {
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

/// Appends one reference token to a JSON Pointer, escaping `~` and `/` as RFC 6901 says.
pub fn pointer(base: &str, token: &str) -> String {
    let mut out = String::with_capacity(base.len() + token.len() + 1);
    out.push_str(base);
    push_token(&mut out, token);
    out
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
        assert_eq!(super::pointer("/items", "a/b~c"), "/items/a~1b~0c");
    }
}
