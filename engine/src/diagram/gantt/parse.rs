//! A gantt chart's source read as Mermaid's own lexer and grammar read it (the statements
//! that take the rest of their line, a task's text up to `:` and its data up to `#`, `;` or
//! the line's end, keywords in any case), then every task's start and end computed as
//! Mermaid's task database does: passes over the tasks until each `after` and `until` is
//! resolved, durations added as dayjs adds them, and excluded days pushed past the end.

use super::time::{self, DAY, Ms, TODAY};
use super::{GanttChart, MAX_TASKS, Task, TickUnit};
use crate::diagram::directive;
use crate::diagram::flowchart::{Node, Unsupported};
use crate::diagram::shapes::Shape;
use std::collections::HashMap;

/// `gantt`.
pub fn is_gantt_keyword(keyword: &str) -> bool {
    keyword == "gantt"
}

/// Most days walked over to skip excluded ones, all tasks and passes together: beyond, the
/// chart spans centuries of tasks and is refused as too large.
const MAX_WALK_DAYS: i64 = 400_000;

fn unsupported(offset: usize, message: impl Into<String>) -> Unsupported {
    Unsupported {
        offset,
        message: message.into(),
    }
}

/// What the front matter says: its `title:`, and whether it asks for compact mode (Mermaid's
/// `displayMode: compact`, at the top or as `config:` → `gantt:` → `displayMode:`).
#[derive(Debug, Default)]
struct FrontMatter {
    title: Option<String>,
    compact: bool,
}

/// Where the diagram starts, after an optional `---` front matter, and what that says.
fn front_matter(source: &str) -> (usize, FrontMatter) {
    let trimmed = source.trim_start();
    let lead = source.len() - trimmed.len();
    let Some(after) = trimmed.strip_prefix("---") else {
        return (0, FrontMatter::default());
    };
    if !after.starts_with(['\n', '\r']) {
        return (0, FrontMatter::default());
    }
    let block_at = lead + 3;
    let mut at = block_at;
    for (k, line) in source[block_at..].split_inclusive('\n').enumerate() {
        let line_at = at;
        at += line.len();
        if k == 0 {
            // The rest of the opening `---` line.
            continue;
        }
        if line.trim() == "---" {
            let mut found = FrontMatter::default();
            for (key, value) in directive::front_matter_settings(&source[block_at..line_at]) {
                match key.as_str() {
                    "title" => found.title = Some(value),
                    // Mermaid reads the top-level key too, for older charts.
                    "displayMode" | "config.gantt.displayMode" => {
                        found.compact = value == "compact";
                    }
                    _ => {}
                }
            }
            return (at, found);
        }
    }
    (0, FrontMatter::default())
}

/// The source with `%%` comment lines blanked (same length, same line breaks), as Mermaid
/// drops them before it reads the diagram, and carriage returns made spaces.
fn without_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    for line in source.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        let t = body.trim_start();
        if t.starts_with("%%") && !t.starts_with("%%{") && t.len() > 2 {
            out.extend(std::iter::repeat_n(' ', body.len()));
            out.push_str(&line[body.len()..]);
        } else {
            out.push_str(&line.replace('\r', " "));
        }
    }
    out
}

/// A token of Mermaid's gantt lexer.
#[derive(Debug, Clone, PartialEq)]
enum Tok<'s> {
    Gantt,
    Nl,
    /// A statement with its value (the rest of its line, as the lexer cut it).
    Keyword(&'static str, &'s str),
    AccTitle(&'s str),
    AccDescr(&'s str),
    Click,
    /// `href "…"` or `call name(…)`, after a `click`.
    Action,
    TaskText(&'s str),
    TaskData(&'s str),
    /// Anything the grammar has no place for (a bare date, a lone `:`).
    Stray,
}

fn starts_ci(s: &str, word: &str) -> bool {
    s.len() >= word.len() && s.as_bytes()[..word.len()].eq_ignore_ascii_case(word.as_bytes())
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// The length of the run at the start of `s` without any of `stops`.
fn run_without(s: &str, stops: &[u8]) -> usize {
    s.bytes()
        .position(|c| stops.contains(&c))
        .unwrap_or(s.len())
}

/// The next token at `at` of `s` and where it ends, skipping what the lexer skips; `None` at
/// the end.
fn next_token(s: &str, mut at: usize) -> Option<(Tok<'_>, usize, usize)> {
    let b = s.as_bytes();
    loop {
        if at >= s.len() {
            return None;
        }
        let rest = &s[at..];
        let r = rest.as_bytes();
        // accTitle / accDescr and their values.
        for (word, multi) in [("accTitle", false), ("accDescr", false), ("accDescr", true)] {
            if starts_ci(rest, word) {
                let after = &rest[word.len()..];
                let sp = after.bytes().take_while(|&c| is_space(c)).count();
                let mark = if multi { b'{' } else { b':' };
                if after.as_bytes().get(sp) == Some(&mark) {
                    let mut k = at + word.len() + sp + 1;
                    k += s[k..].bytes().take_while(|&c| is_space(c)).count();
                    if multi {
                        let end = s[k..].find('}').map_or(s.len(), |e| k + e);
                        let tok = Tok::AccDescr(s[k..end].trim());
                        return Some((tok, at, (end + 1).min(s.len())));
                    }
                    let end = k + run_without(&s[k..], b"\n");
                    let tok = if word == "accTitle" {
                        Tok::AccTitle(s[k..end].trim())
                    } else {
                        Tok::AccDescr(s[k..end].trim())
                    };
                    return Some((tok, at, end));
                }
            }
        }
        // Comments: `%%…`, any character but `}` then `%…`, and `%…` with the line breaks
        // after it.
        if rest.starts_with("%%") {
            at += run_without(rest, b"\n");
            continue;
        }
        if r.len() >= 2 && r[0] != b'}' && r[1] == b'%' {
            let first = rest.chars().next().map_or(1, char::len_utf8);
            if first == 1 {
                at += 1 + run_without(&rest[1..], b"\n");
                continue;
            }
        }
        if r[0] == b'%' {
            at += run_without(rest, b"\n");
            at += s[at..].bytes().take_while(|&c| c == b'\n').count();
            continue;
        }
        if r[0] == b'\n' {
            let n = r.iter().take_while(|&&c| c == b'\n').count();
            return Some((Tok::Nl, at, at + n));
        }
        if is_space(r[0]) {
            at += r.iter().take_while(|&&c| is_space(c)).count();
            continue;
        }
        // `href "…"`, `call name(…)`, `click id`.
        if starts_ci(rest, "href") {
            let sp = r[4..].iter().take_while(|&&c| is_space(c)).count();
            if sp > 0 && r.get(4 + sp) == Some(&b'"') {
                let k = at + 4 + sp + 1;
                let end = s[k..].find('"').map_or(s.len(), |e| k + e + 1);
                return Some((Tok::Action, at, end));
            }
        }
        if starts_ci(rest, "call") && r.get(4).is_some_and(|&c| is_space(c)) {
            let k = at + 4;
            let open = s[k..].find('(').map_or(s.len(), |e| k + e);
            let end = if open < s.len() {
                s[open..].find(')').map_or(s.len(), |e| open + e + 1)
            } else {
                open
            };
            return Some((Tok::Action, at, end));
        }
        if starts_ci(rest, "click") && r.get(5).is_some_and(|&c| is_space(c)) {
            let k = at + 5 + r[5..].iter().take_while(|&&c| is_space(c)).count();
            let end = k + s[k..].bytes().take_while(|&c| !is_space(c)).count();
            return Some((Tok::Click, at, (end + 1).min(s.len())));
        }
        if starts_ci(rest, "gantt") {
            return Some((Tok::Gantt, at, at + 5));
        }
        // Statements that take the rest of their line: `word`, one space, then up to `#`,
        // `;` or the line's end (`todayMarker` keeps `#`, `title` and `section` everything).
        const LINE: [(&str, &[u8]); 10] = [
            ("dateFormat", b"#\n;"),
            ("axisFormat", b"#\n;"),
            ("tickInterval", b"#\n;"),
            ("includes", b"#\n;"),
            ("excludes", b"#\n;"),
            ("todayMarker", b"\n;"),
            ("title", b"\n"),
            ("accDescription", b"#\n;"),
            ("section", b"\n"),
            ("", b""),
        ];
        for (word, stops) in LINE.iter().take(9) {
            if starts_ci(rest, word) && r.get(word.len()).is_some_and(|&c| is_space(c)) {
                let v = word.len() + 1;
                let n = run_without(&rest[v..], stops);
                if n > 0 {
                    // dateFormat comes before title in the lexer, but no keyword is a prefix
                    // of another that matters here.
                    return Some((Tok::Keyword(word, &rest[v..v + n]), at, at + v + n));
                }
            }
            if *word == "todayMarker" {
                for flag in ["inclusiveEndDates", "topAxis"] {
                    if starts_ci(rest, flag) {
                        return Some((Tok::Keyword(flag, ""), at, at + flag.len()));
                    }
                }
                for (word, days) in [
                    (
                        "weekday",
                        &[
                            "monday",
                            "tuesday",
                            "wednesday",
                            "thursday",
                            "friday",
                            "saturday",
                            "sunday",
                        ][..],
                    ),
                    ("weekend", &["friday", "saturday"][..]),
                ] {
                    if starts_ci(rest, word) {
                        let sp = r[word.len()..].iter().take_while(|&&c| is_space(c)).count();
                        let k = word.len() + sp;
                        if sp > 0
                            && let Some(day) = days.iter().find(|d| starts_ci(&rest[k..], d))
                        {
                            return Some((Tok::Keyword(word, day), at, at + k + day.len()));
                        }
                    }
                }
                // A bare date.
                if r.len() >= 10
                    && r[..4].iter().all(u8::is_ascii_digit)
                    && r[4] == b'-'
                    && r[5..7].iter().all(u8::is_ascii_digit)
                    && r[7] == b'-'
                    && r[8..10].iter().all(u8::is_ascii_digit)
                {
                    return Some((Tok::Stray, at, at + 10));
                }
            }
        }
        if r[0] == b':' {
            let n = run_without(&rest[1..], b"#\n;");
            if n > 0 {
                return Some((Tok::TaskData(&rest[1..1 + n]), at, at + 1 + n));
            }
            return Some((Tok::Stray, at, at + 1));
        }
        let n = run_without(rest, b":\n");
        let _ = b;
        return Some((Tok::TaskText(&rest[..n]), at, at + n));
    }
}

/// How a task's start is given.
#[derive(Debug, Clone)]
enum StartSpec {
    /// At the end of the task written before it (by that task's id).
    Previous(Option<String>),
    /// A date or `after …`.
    Given(String),
}

/// A task as written, and its times as the passes over the tasks have them so far.
#[derive(Debug, Clone)]
struct RawTask {
    id: String,
    text: String,
    section: Option<usize>,
    start_spec: StartSpec,
    end_data: String,
    tags: [bool; 5],
    offset: usize,
    start: Option<Ms>,
    end: Option<Ms>,
    render_end: Option<Ms>,
    processed: bool,
}

/// The settings the times are computed with.
struct Calendar {
    date_format: String,
    excludes: Vec<String>,
    includes: Vec<String>,
    inclusive: bool,
    /// `weekend friday`: the weekend is Friday and Saturday.
    weekend_friday: bool,
}

const TAGS: [&str; 5] = ["active", "done", "crit", "milestone", "vert"];

impl Calendar {
    /// Mermaid's `isInvalidDate`: whether `t` is an excluded day.
    fn excluded(&self, t: Ms) -> bool {
        const NAMES: [&str; 7] = [
            "sunday",
            "monday",
            "tuesday",
            "wednesday",
            "thursday",
            "friday",
            "saturday",
        ];
        let has = |list: &[String], s: &str| list.iter().any(|x| x == s);
        // Dates are written out only when a list may hold one (most hold `weekends` alone).
        let dated = |list: &[String]| {
            list.iter()
                .any(|x| !x.is_empty() && x != "weekends" && !NAMES.contains(&x.as_str()))
        };
        let (formatted, date_only) = if dated(&self.includes) || dated(&self.excludes) {
            (
                time::dayjs_format(t, &self.date_format),
                time::dayjs_format(t, "YYYY-MM-DD"),
            )
        } else {
            (String::new(), String::new())
        };
        if !formatted.is_empty()
            && (has(&self.includes, &formatted) || has(&self.includes, &date_only))
        {
            return false;
        }
        let wd = time::Civil::weekday(t);
        // isoWeekday: Monday 1 … Sunday 7; the weekend starts on Saturday (6) or Friday (5).
        let iso = if wd == 0 { 7 } else { wd };
        let first = if self.weekend_friday { 5 } else { 6 };
        if has(&self.excludes, "weekends") && (iso == first || iso == first + 1) {
            return true;
        }
        has(&self.excludes, NAMES[wd as usize])
            || (!formatted.is_empty()
                && (has(&self.excludes, &formatted) || has(&self.excludes, &date_only)))
    }

    /// `start` in the chart's format or as JavaScript's `Date` reads it.
    fn date(&self, s: &str) -> Option<Ms> {
        time::parse_strict(s, &self.date_format).or_else(|| time::parse_js(s))
    }
}

/// The ids after `after` / `until` (`[\d\w- ]+`, split at each space), when `s` starts so.
fn ids_after<'a>(s: &'a str, word: &str) -> Option<Vec<&'a str>> {
    let rest = s.strip_prefix(word)?;
    let sp = rest.bytes().take_while(|&c| is_space(c)).count();
    if sp == 0 {
        return None;
    }
    let rest = &rest[sp..];
    let n = rest
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b' '))
        .count();
    (n > 0).then(|| rest[..n].split(' ').collect())
}

struct Tasks {
    raw: Vec<RawTask>,
    by_id: HashMap<String, usize>,
    cal: Calendar,
    /// Days walked over so far to skip excluded ones.
    walked: i64,
}

impl Tasks {
    fn find(&self, id: &str) -> Option<&RawTask> {
        self.by_id.get(id).map(|&k| &self.raw[k])
    }

    /// Mermaid's `getStartDate`: `Ok(None)` when an `after` names a task not yet timed.
    fn start_date(&self, s: &str) -> Result<Option<Ms>, String> {
        let s = s.trim();
        if matches!(self.cal.date_format.as_str(), "x" | "X")
            && !s.is_empty()
            && s.bytes().all(|c| c.is_ascii_digit())
        {
            return s
                .parse()
                .map(Some)
                .map_err(|_| format!("`{s}` is not a date"));
        }
        if let Some(ids) = ids_after(s, "after") {
            let mut latest: Option<&RawTask> = None;
            for id in ids {
                if let Some(t) = self.find(id) {
                    let later = match (t.end, latest.and_then(|l| l.end)) {
                        (Some(a), Some(b)) => a > b,
                        _ => false,
                    };
                    if latest.is_none() || later {
                        latest = Some(t);
                    }
                }
            }
            return Ok(match latest {
                Some(t) => t.end,
                None => Some(TODAY),
            });
        }
        match self.cal.date(s) {
            Some(t) => Ok(Some(t)),
            None => Err(format!(
                "`{s}` is not a date in the chart's `dateFormat` ({}) nor a task to start after",
                if self.cal.date_format.is_empty() {
                    "none given"
                } else {
                    &self.cal.date_format
                }
            )),
        }
    }

    /// Mermaid's `getEndDate`: `None` when an `until` names a task not yet timed.
    fn end_date(&self, start: Ms, s: &str) -> Option<Ms> {
        let s = s.trim();
        if let Some(ids) = ids_after(s, "until") {
            let mut earliest: Option<&RawTask> = None;
            for id in ids {
                if let Some(t) = self.find(id) {
                    let sooner = match (t.start, earliest.and_then(|l| l.start)) {
                        (Some(a), Some(b)) => a < b,
                        _ => false,
                    };
                    if earliest.is_none() || sooner {
                        earliest = Some(t);
                    }
                }
            }
            return match earliest {
                Some(t) => t.start,
                None => Some(TODAY),
            };
        }
        if let Some(t) = time::parse_strict(s, &self.cal.date_format) {
            return Some(if self.cal.inclusive { t + DAY } else { t });
        }
        Some(time::add_duration(start, s).unwrap_or(start))
    }

    /// One pass of Mermaid's `compileTask` over task `k`.
    fn compile(&mut self, k: usize) -> Result<bool, Unsupported> {
        let offset = self.raw[k].offset;
        match self.raw[k].start_spec.clone() {
            StartSpec::Previous(prev) => {
                let prev = prev
                    .as_deref()
                    .and_then(|id| self.find(id))
                    .ok_or_else(|| {
                        unsupported(
                            offset,
                            "the first task has no start: give it a date (`: 2024-01-01, 3d`)",
                        )
                    })?;
                self.raw[k].start = prev.end;
            }
            StartSpec::Given(s) => {
                if let Some(t) = self.start_date(&s).map_err(|m| unsupported(offset, m))? {
                    self.raw[k].start = Some(t);
                }
            }
        }
        if let Some(start) = self.raw[k].start {
            let end = self.end_date(start, &self.raw[k].end_data.clone());
            self.raw[k].end = end;
            if let Some(end) = end {
                self.raw[k].processed = true;
                let manual =
                    time::parse_strict(self.raw[k].end_data.trim(), "YYYY-MM-DD").is_some();
                if !self.cal.excludes.is_empty() && !manual {
                    self.skip_excluded(k, start, end)?;
                }
            }
        }
        Ok(self.raw[k].processed)
    }

    /// Mermaid's `checkTaskDates`: the end moved a day later for each excluded day up to it.
    fn skip_excluded(&mut self, k: usize, start: Ms, end: Ms) -> Result<(), Unsupported> {
        let mut day = start + DAY;
        let mut end = end;
        let mut render_end = None;
        let mut invalid = false;
        while day <= end {
            if !invalid {
                render_end = Some(end);
            }
            invalid = self.cal.excluded(day);
            if invalid {
                end += DAY;
            }
            day += DAY;
            self.walked += 1;
            if self.walked > MAX_WALK_DAYS {
                return Err(unsupported(
                    self.raw[k].offset,
                    "the chart's tasks span too many days to skip the excluded ones: it is too large to draw",
                ));
            }
        }
        self.raw[k].end = Some(end);
        self.raw[k].render_end = render_end;
        Ok(())
    }
}

/// Reads a gantt chart: `None` when the source is not one, `Err` (with the byte offset of the
/// statement) when Mermaid would not draw it or it is too large.
pub fn parse(source: &str) -> Option<Result<GanttChart, Unsupported>> {
    let (blanked, directives) = directive::blanked(source);
    let (body_at, mut fm) = front_matter(&blanked);
    if let Some(mode) = directive::init_setting(&directives, "gantt", "displayMode") {
        fm.compact = mode == "compact";
    }
    let text = without_comments(&blanked[body_at..]);
    let lead = text.len() - text.trim_start().len();
    if !starts_ci(&text[lead..], "gantt") {
        return None;
    }
    let word_end = lead + 5;
    if text[word_end..]
        .bytes()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
    {
        return None;
    }
    Some(read(&text, lead, body_at, fm))
}

fn read(text: &str, lead: usize, base: usize, fm: FrontMatter) -> Result<GanttChart, Unsupported> {
    let mut g = GanttChart {
        chart: crate::diagram::flowchart::Flowchart {
            title: fm.title,
            ..Default::default()
        },
        compact: fm.compact,
        ..Default::default()
    };
    let mut cal = Calendar {
        date_format: String::new(),
        excludes: Vec::new(),
        includes: Vec::new(),
        inclusive: false,
        weekend_friday: false,
    };
    let mut raw: Vec<RawTask> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut section: Option<usize> = None;
    let mut last_id: Option<String> = None;
    let mut counter = 0;
    let mut at = lead;
    let mut seen_gantt = false;
    let mut pending_text: Option<(&str, usize)> = None;
    let mut in_click = false;
    let err = |offset: usize, m: &str| unsupported(base + offset, m);
    while let Some((tok, start, end)) = next_token(text, at) {
        at = end;
        if !seen_gantt {
            if tok != Tok::Gantt {
                return Err(err(start, "a gantt chart begins with `gantt`"));
            }
            seen_gantt = true;
            continue;
        }
        if let Some((_, t_at)) = pending_text {
            let Tok::TaskData(data) = tok else {
                return Err(err(
                    t_at,
                    "a task is its text, `:`, then its data (`Design : a1, 2024-01-01, 3d`)",
                ));
            };
            let (descr, _) = pending_text.take().unwrap_or(("", 0));
            if raw.len() >= MAX_TASKS {
                return Err(err(t_at, "the chart has too many tasks to draw"));
            }
            let mut parts: Vec<&str> = data.split(',').collect();
            let mut tags = [false; 5];
            loop {
                let Some(first) = parts.first() else {
                    return Err(err(
                        t_at,
                        "a task needs a start or a duration after its tags",
                    ));
                };
                match TAGS.iter().position(|t| first.trim() == *t) {
                    Some(k) => {
                        tags[k] = true;
                        parts.remove(0);
                        if parts.is_empty() {
                            return Err(err(
                                t_at,
                                "a task needs a start or a duration after its tags",
                            ));
                        }
                    }
                    None => break,
                }
            }
            let parts: Vec<&str> = parts.iter().map(|p| p.trim()).collect();
            let new_id = |counter: &mut usize| {
                *counter += 1;
                format!("task{counter}")
            };
            let (id, start_spec, end_data) = match parts.as_slice() {
                [e] => (
                    new_id(&mut counter),
                    StartSpec::Previous(last_id.clone()),
                    e.to_string(),
                ),
                [s, e] => (
                    new_id(&mut counter),
                    StartSpec::Given(s.to_string()),
                    e.to_string(),
                ),
                [id, s, e] => (
                    id.to_string(),
                    StartSpec::Given(s.to_string()),
                    e.to_string(),
                ),
                _ => {
                    return Err(err(
                        t_at,
                        "a task's data is at most an id, a start and an end, after its tags",
                    ));
                }
            };
            by_id.insert(id.clone(), raw.len());
            last_id = Some(id.clone());
            raw.push(RawTask {
                id,
                text: descr.to_string(),
                section,
                start_spec,
                end_data,
                tags,
                offset: base + t_at,
                start: None,
                end: None,
                render_end: None,
                processed: false,
            });
            continue;
        }
        if in_click {
            match tok {
                Tok::Action => continue,
                _ => in_click = false,
            }
        }
        match tok {
            Tok::Nl => {}
            Tok::Keyword(word, value) => match word {
                "dateFormat" => cal.date_format = value.trim().to_string(),
                "axisFormat" => g.axis_format = value.trim().to_string(),
                "tickInterval" => g.tick_interval = tick_interval(value.trim()),
                "includes" => {
                    cal.includes = value
                        .to_lowercase()
                        .split([' ', '\t', ','])
                        .map(str::to_string)
                        .collect()
                }
                "excludes" => {
                    cal.excludes = value
                        .to_lowercase()
                        .split([' ', '\t', ','])
                        .map(str::to_string)
                        .collect()
                }
                "todayMarker" if value.trim() != "off" => {
                    let note = "`todayMarker` is not drawn: the drawing does not depend on the day it is made".to_string();
                    if !g.chart.notes.contains(&note) {
                        g.chart.notes.push(note);
                    }
                }
                "title" => g.chart.title = Some(value.to_string()),
                "accDescription" => g.chart.acc_descr = Some(value.trim().to_string()),
                "section" => {
                    g.sections.push(value.to_string());
                    section = Some(g.sections.len() - 1);
                }
                "inclusiveEndDates" => cal.inclusive = true,
                "topAxis" => g.top_axis = true,
                "weekday" => {
                    g.week_start = [
                        "sunday",
                        "monday",
                        "tuesday",
                        "wednesday",
                        "thursday",
                        "friday",
                        "saturday",
                    ]
                    .iter()
                    .position(|d| d.eq_ignore_ascii_case(value))
                    .unwrap_or(0) as i64
                }
                "weekend" => cal.weekend_friday = value.eq_ignore_ascii_case("friday"),
                _ => {}
            },
            Tok::AccTitle(v) => g.chart.acc_title = Some(v.to_string()),
            Tok::AccDescr(v) => g.chart.acc_descr = Some(v.to_string()),
            Tok::Click => {
                match next_token(text, at) {
                    Some((Tok::Action, _, _)) => {}
                    _ => {
                        return Err(err(
                            start,
                            "`click` names a task then `href \"…\"` or `call …`",
                        ));
                    }
                }
                in_click = true;
                if !g.chart.ignored.iter().any(|i| i == "click") {
                    g.chart.ignored.push("click".into());
                }
            }
            Tok::TaskText(t) => pending_text = Some((t, start)),
            Tok::TaskData(_) | Tok::Stray | Tok::Gantt | Tok::Action => {
                return Err(err(start, "Mermaid does not read this here"));
            }
        }
    }
    if !seen_gantt {
        return Err(err(lead, "a gantt chart begins with `gantt`"));
    }
    if let Some((_, t_at)) = pending_text {
        return Err(err(
            t_at,
            "a task is its text, `:`, then its data (`Design : a1, 2024-01-01, 3d`)",
        ));
    }
    g.date_format = cal.date_format.clone();
    let mut tasks = Tasks {
        raw,
        by_id,
        cal,
        walked: 0,
    };
    // Mermaid's `getTasks`: a pass, then up to ten more while some task is not timed.
    let mut all = true;
    for pass in 0..11 {
        all = true;
        for k in 0..tasks.raw.len() {
            all &= tasks.compile(k)?;
        }
        if all || pass == 10 {
            break;
        }
    }
    if !all {
        let k = tasks.raw.iter().position(|t| !t.processed).unwrap_or(0);
        return Err(unsupported(
            tasks.raw[k].offset,
            format!(
                "the start of task `{}` cannot be worked out: its `after` or `until` goes round in a loop",
                tasks.raw[k].id
            ),
        ));
    }
    if !tasks.cal.excludes.is_empty() {
        let first = tasks.raw.iter().filter_map(|t| t.start).min();
        let last = tasks.raw.iter().filter_map(|t| t.end).max();
        if let (Some(first), Some(last)) = (first, last)
            && last - first <= 5 * 366 * DAY
        {
            let mut d = first.div_euclid(DAY) * DAY;
            while d <= last {
                if tasks.cal.excluded(d) {
                    match g.excluded.last_mut() {
                        Some(run) if run.1 == d => run.1 = d + DAY,
                        _ => g.excluded.push((d, d + DAY)),
                    }
                }
                d += DAY;
            }
        }
    }
    let mut node_of: HashMap<String, usize> = HashMap::new();
    for t in tasks.raw {
        let (Some(start), Some(end)) = (t.start, t.end) else {
            return Err(unsupported(
                t.offset,
                format!("the times of task `{}` cannot be worked out", t.id),
            ));
        };
        let node = *node_of.entry(t.id.clone()).or_insert_with(|| {
            g.chart.nodes.push(Node {
                id: t.id.clone(),
                label: t.text.trim().to_string(),
                shape: Shape::Rect,
                emphasis: Vec::new(),
            });
            g.chart.nodes.len() - 1
        });
        g.tasks.push(Task {
            node,
            section: t.section,
            text: t.text,
            start,
            end,
            render_end: t.render_end,
            active: t.tags[0],
            done: t.tags[1],
            crit: t.tags[2],
            milestone: t.tags[3],
            vert: t.tags[4],
        });
    }
    Ok(g)
}

/// `tickInterval`: `^([1-9]\d*)(millisecond|second|minute|hour|day|week|month)$`.
fn tick_interval(s: &str) -> Option<(i64, TickUnit)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let (n, unit) = s.split_at(digits);
    if n.starts_with('0') {
        return None;
    }
    let n: i64 = n.parse().ok().filter(|&n| n > 0)?;
    let unit = match unit {
        "millisecond" => TickUnit::Millisecond,
        "second" => TickUnit::Second,
        "minute" => TickUnit::Minute,
        "hour" => TickUnit::Hour,
        "day" => TickUnit::Day,
        "week" => TickUnit::Week,
        "month" => TickUnit::Month,
        _ => return None,
    };
    Some((n, unit))
}
