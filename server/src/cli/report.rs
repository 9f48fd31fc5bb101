//! Diagnostics as people read them on a terminal, as compilers print theirs: the
//! `FILE:LINE:COL: SEVERITY[code]: message` line editors jump to, then the source line with a
//! caret under the column, then the hint. `render` writes them to stderr and `validate --format
//! text` to stdout, both through [`diagnostic`].

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use passback_engine::{Diagnostic, Severity, terminal_safe};
use std::io::IsTerminal;

/// Whether output to this stream may be coloured: a terminal, and `NO_COLOR` unset (or empty).
pub(super) fn colour(stream: &impl IsTerminal) -> bool {
    stream.is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// One diagnostic of `src` (read from `file`), as several lines with a final newline.
///
/// Everything quoted from the document passes [`terminal_safe`], so a document cannot drive
/// the terminal or forge a line of its own.
pub(super) fn diagnostic(file: &str, src: &str, d: &Diagnostic, colour: bool) -> String {
    let renderer = if colour {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let level = match d.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Info => Level::INFO,
    };
    let head = format!(
        "{}:{}:{}: {}[{}]: {}",
        terminal_safe(file),
        d.line,
        d.column,
        d.severity.name(),
        d.code,
        terminal_safe(&d.message)
    );
    let mut out = if colour {
        let style = match d.severity {
            Severity::Error => annotate_snippets::renderer::DEFAULT_ERROR_STYLE,
            Severity::Warning => annotate_snippets::renderer::DEFAULT_WARNING_STYLE,
            Severity::Info => annotate_snippets::renderer::DEFAULT_INFO_STYLE,
        };
        format!("{style}{head}{style:#}\n")
    } else {
        format!("{head}\n")
    };
    let hint = terminal_safe(&d.hint);
    let mut group = Group::with_level(level.clone());
    if let Some((line, start, end)) = source_line(src, d.line, d.column) {
        group = group.element(
            Snippet::source(line)
                .line_start(d.line)
                .annotation(AnnotationKind::Primary.span(start..end)),
        );
    }
    if !hint.is_empty() {
        group = group.element(Level::HELP.message(hint));
    }
    if !group.is_empty() {
        out.push_str(&renderer.render(&[group]));
        out.push('\n');
    }
    out
}

/// The 1-based `line` of `src` made terminal-safe, with the byte span of the character at the
/// 1-based `column` in it (an empty span after the line's end when the column is past it).
fn source_line(src: &str, line: usize, column: usize) -> Option<(String, usize, usize)> {
    let text = src.lines().nth(line.checked_sub(1)?)?;
    if text.trim().is_empty() {
        return None;
    }
    let at = text
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(text.len(), |(i, _)| i);
    let before = terminal_safe(&text[..at]).len();
    let marked = text[at..].chars().next().map_or(0, |c| {
        terminal_safe(&text[at..at + c.len_utf8()])
            .len()
            .max(c.len_utf8())
    });
    let safe = terminal_safe(text).into_owned();
    let end = (before + marked).min(safe.len());
    Some((safe, before, end))
}

/// `N errors, M warnings` for the closing line of a report; `None` when there are none.
pub(super) fn summary(diagnostics: &[Diagnostic]) -> Option<String> {
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .count();
    let count =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    match (errors, warnings) {
        (0, 0) => None,
        (0, w) => Some(count(w, "warning", "warnings")),
        (e, 0) => Some(count(e, "error", "errors")),
        (e, w) => Some(format!(
            "{}, {}",
            count(e, "error", "errors"),
            count(w, "warning", "warnings")
        )),
    }
}
