//! Dates as a gantt chart reads and writes them: milliseconds from 1970 on a calendar with no
//! time zone (Mermaid computes in the reader's zone; the server in none, so a chart is drawn
//! the same everywhere), dayjs's strict parsing of the chart's `dateFormat`, the fallback
//! JavaScript's `Date` parses, durations, and d3's time format for the axis.

/// Milliseconds since 1970-01-01 00:00.
pub type Ms = i64;

pub const SECOND: Ms = 1_000;
pub const MINUTE: Ms = 60 * SECOND;
pub const HOUR: Ms = 60 * MINUTE;
pub const DAY: Ms = 24 * HOUR;

/// The day the server takes as "today", where Mermaid takes the reader's (a date format
/// without a day, an `after` naming no task): fixed, so a drawing never depends on the day it
/// is made. 2026-01-01.
pub const TODAY: Ms = 20_454 * DAY;

/// Days from 1970-01-01 to the civil date (proleptic Gregorian).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day count from 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A moment's parts: year, month (1–12), day, hour, minute, second, millisecond.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    pub y: i64,
    pub mo: i64,
    pub d: i64,
    pub h: i64,
    pub mi: i64,
    pub s: i64,
    pub ms: i64,
}

impl Civil {
    pub fn of(t: Ms) -> Civil {
        let days = t.div_euclid(DAY);
        let rest = t.rem_euclid(DAY);
        let (y, mo, d) = civil_from_days(days);
        Civil {
            y,
            mo,
            d,
            h: rest / HOUR,
            mi: rest % HOUR / MINUTE,
            s: rest % MINUTE / SECOND,
            ms: rest % SECOND,
        }
    }

    /// Day of the week, 0 Sunday … 6 Saturday.
    pub fn weekday(t: Ms) -> i64 {
        (t.div_euclid(DAY) + 4).rem_euclid(7)
    }
}

/// `new Date(y, month0, d, h, mi, s, ms)`: parts out of range carry over.
pub fn make(y: i64, month0: i64, d: i64, h: i64, mi: i64, s: i64, ms: i64) -> Option<Ms> {
    if !(-300_000..=300_000).contains(&y) || month0.abs() > 1_000_000 || d.abs() > 100_000_000 {
        return None;
    }
    let y = y + month0.div_euclid(12);
    let m = month0.rem_euclid(12) + 1;
    let days = days_from_civil(y, m, 1) + d - 1;
    days.checked_mul(DAY)?
        .checked_add(h.checked_mul(HOUR)?)?
        .checked_add(mi.checked_mul(MINUTE)?)?
        .checked_add(s.checked_mul(SECOND)?)?
        .checked_add(ms)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    days_from_civil(y + (m / 12), m % 12 + 1, 1) - days_from_civil(y, m, 1)
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

fn ordinal(n: i64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn pad(n: i64, width: usize) -> String {
    if n < 0 {
        format!("-{:0width$}", -n)
    } else {
        format!("{n:0width$}")
    }
}

/// `t` in dayjs's format `fmt` (with the advanced-format tokens Mermaid loads), as dayjs
/// writes it in a zone at UTC+0.
pub fn dayjs_format(t: Ms, fmt: &str) -> String {
    let c = Civil::of(t);
    let mut out = String::new();
    let b = fmt.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'['
            && let Some(end) = fmt[i + 1..].find(']').filter(|&k| k > 0)
        {
            out.push_str(&fmt[i + 1..i + 1 + end]);
            i += end + 2;
            continue;
        }
        let run = b[i..].iter().take_while(|&&x| x == b[i]).count();
        let ch = b[i];
        let two = fmt.get(i..i + 2).unwrap_or("");
        let (text, used): (Option<String>, usize) = match ch {
            b'D' if two == "Do" => (Some(ordinal(c.d)), 2),
            b'Y' => match run {
                2 => (Some(pad(c.y.rem_euclid(100), 2)), 2),
                r if r >= 4 => (Some(pad(c.y, 4)), 4),
                r => (Some("+00:00".replace(':', "")), r),
            },
            b'M' => match run.min(4) {
                1 => (Some(c.mo.to_string()), 1),
                2 => (Some(pad(c.mo, 2)), 2),
                3 => (Some(MONTHS[(c.mo - 1) as usize][..3].to_string()), 3),
                _ => (Some(MONTHS[(c.mo - 1) as usize].to_string()), 4),
            },
            b'D' => match run.min(2) {
                1 => (Some(c.d.to_string()), 1),
                _ => (Some(pad(c.d, 2)), 2),
            },
            b'd' => {
                let w = Civil::weekday(t) as usize;
                match run.min(4) {
                    1 => (Some(w.to_string()), 1),
                    2 => (Some(WEEKDAYS[w][..2].to_string()), 2),
                    3 => (Some(WEEKDAYS[w][..3].to_string()), 3),
                    _ => (Some(WEEKDAYS[w].to_string()), 4),
                }
            }
            b'H' | b'k' => {
                let h = if ch == b'k' && c.h == 0 { 24 } else { c.h };
                match run.min(2) {
                    1 => (Some(h.to_string()), 1),
                    _ => (Some(pad(h, 2)), 2),
                }
            }
            b'h' => {
                let h = if c.h % 12 == 0 { 12 } else { c.h % 12 };
                match run.min(2) {
                    1 => (Some(h.to_string()), 1),
                    _ => (Some(pad(h, 2)), 2),
                }
            }
            b'a' => (Some(if c.h < 12 { "am" } else { "pm" }.into()), 1),
            b'A' => (Some(if c.h < 12 { "AM" } else { "PM" }.into()), 1),
            b'm' => match run.min(2) {
                1 => (Some(c.mi.to_string()), 1),
                _ => (Some(pad(c.mi, 2)), 2),
            },
            b's' => match run.min(2) {
                1 => (Some(c.s.to_string()), 1),
                _ => (Some(pad(c.s, 2)), 2),
            },
            b'S' if run >= 3 => (Some(pad(c.ms, 3)), 3),
            b'Z' => match run.min(2) {
                1 => (Some("+00:00".into()), 1),
                _ => (Some("+0000".into()), 2),
            },
            b'X' => (Some(t.div_euclid(1000).to_string()), 1),
            b'x' => (Some(t.to_string()), 1),
            b'Q' => (Some(((c.mo - 1) / 3 + 1).to_string()), 1),
            _ => (None, 0),
        };
        match text {
            Some(s) => {
                out.push_str(&s);
                i += used;
            }
            None => {
                let ch = fmt[i..].chars().next().unwrap_or(' ');
                out.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    out
}

/// One token of a dayjs parse format.
#[derive(Debug, Clone, PartialEq)]
enum PTok {
    Lit(String),
    Field(&'static str),
}

const FIELDS: [&str; 23] = [
    "A", "a", "Q", "YYYY", "YY", "Y", "ww", "w", "MMMM", "MMM", "MM", "M", "Do", "DD", "D", "hh",
    "h", "HH", "H", "mm", "m", "ss", "s",
];

/// The tokens of a parse format, as dayjs's customParseFormat splits it: bracketed literals,
/// runs of separators, and fields; anything else is dropped.
fn parse_tokens(fmt: &str) -> Vec<PTok> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        let rest = &fmt[i..];
        // `[…]`: the longest run up to a `]` with no `[` in it, as dayjs's `\[[^[]*\]` takes it.
        if let Some(inner) = rest.strip_prefix('[') {
            let segment = &inner[..inner.find('[').unwrap_or(inner.len())];
            if let Some(close) = segment.rfind(']') {
                out.push(PTok::Lit(segment[..close].to_string()));
                i += close + 2;
                continue;
            }
        }
        let seps = rest
            .chars()
            .take_while(|c| "-_:/.,() \t\n".contains(*c))
            .map(char::len_utf8)
            .sum::<usize>();
        if seps > 0 {
            out.push(PTok::Lit(rest[..seps].to_string()));
            i += seps;
            continue;
        }
        if let Some(s) = ["SSS", "SS", "S", "ZZ", "Z", "z"]
            .iter()
            .find(|f| rest.starts_with(**f))
        {
            out.push(PTok::Field(s));
            i += s.len();
            continue;
        }
        if let Some(f) = FIELDS.iter().find(|f| rest.starts_with(**f)) {
            out.push(PTok::Field(f));
            i += f.len();
            continue;
        }
        i += rest.chars().next().map_or(1, char::len_utf8);
    }
    out
}

/// The first run of `input` from `from` that `field`'s pattern matches (dayjs searches, not
/// anchored): its start and end.
fn find_field(input: &str, from: usize, field: &str) -> Option<(usize, usize)> {
    let b = input.as_bytes();
    let digits = |at: usize, min: usize, max: usize| -> Option<usize> {
        let n = b[at..]
            .iter()
            .take(max)
            .take_while(|c| c.is_ascii_digit())
            .count();
        (n >= min).then_some(at + n)
    };
    for at in from..b.len() {
        if !input.is_char_boundary(at) {
            continue;
        }
        let end = match field {
            "S" => digits(at, 1, 1),
            "SS" | "YY" => digits(at, 2, 2),
            "SSS" => digits(at, 3, 3),
            "YYYY" => digits(at, 4, 4),
            "Y" => {
                let sign = usize::from(matches!(b[at], b'+' | b'-'));
                digits(at + sign, 1, usize::MAX)
            }
            "Z" | "ZZ" => {
                if b[at] == b'Z' {
                    Some(at + 1)
                } else if matches!(b[at], b'+' | b'-') && digits(at + 1, 2, 2).is_some() {
                    let mut e = at + 3;
                    if b.get(e) == Some(&b':') {
                        e += 1;
                    }
                    Some(digits(e, 2, 2).unwrap_or(e.min(at + 3)))
                } else {
                    None
                }
            }
            "A" | "a" | "MMM" | "MMMM" | "Do" => {
                // \d*[^-_:/,()\s\d]+
                let d = b[at..].iter().take_while(|c| c.is_ascii_digit()).count();
                let w = input[at + d..]
                    .chars()
                    .take_while(|c| {
                        !c.is_ascii_digit() && !c.is_whitespace() && !"-_:/,()".contains(*c)
                    })
                    .map(char::len_utf8)
                    .sum::<usize>();
                (w > 0).then_some(at + d + w)
            }
            _ => digits(at, 1, 2),
        };
        if let Some(end) = end {
            return Some((at, end));
        }
    }
    None
}

/// dayjs's strict parse of `input` in `fmt` (`dayjs(input, fmt, true)`): `None` when it is
/// not a valid date in that format.
pub fn parse_strict(input: &str, fmt: &str) -> Option<Ms> {
    // The format most charts use, read directly: four, two and two digits, a real day.
    if fmt == "YYYY-MM-DD" {
        let b = input.as_bytes();
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        let num = |r: std::ops::Range<usize>| -> Option<i64> {
            b[r].iter().try_fold(0i64, |n, &c| {
                c.is_ascii_digit().then(|| n * 10 + i64::from(c - b'0'))
            })
        };
        let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) || y == 0 {
            return None;
        }
        return Some(days_from_civil(y, m, d) * DAY);
    }
    if fmt == "x" || fmt == "X" {
        let n: i64 = input.parse().ok()?;
        let t = if fmt == "X" { n.checked_mul(1000)? } else { n };
        return (dayjs_format(t, fmt) == input).then_some(t);
    }
    let tokens = parse_tokens(fmt);
    let (mut year, mut month, mut day) = (0i64, 0i64, 0i64);
    let (mut hours, mut minutes, mut seconds, mut millis) = (0i64, 0i64, 0i64, 0i64);
    let mut afternoon: Option<bool> = None;
    let mut zone: Option<i64> = None;
    // dayjs takes each matched value out of the input and moves on by the literals' lengths.
    let mut work = input.to_string();
    let mut start = 0usize;
    for tok in &tokens {
        match tok {
            PTok::Lit(s) => start += s.len(),
            PTok::Field(f) => {
                let from = start.min(work.len());
                let from = (0..=from)
                    .rev()
                    .find(|&k| work.is_char_boundary(k))
                    .unwrap_or(0);
                let (a, e) = find_field(&work, from, f)?;
                let v = work[a..e].to_string();
                let num = || v.trim_start_matches('+').parse::<i64>().ok();
                match *f {
                    "A" | "a" => afternoon = Some(v == if *f == "a" { "pm" } else { "PM" }),
                    "S" => millis = num()? * 100,
                    "SS" => millis = num()? * 10,
                    "SSS" => millis = num()?,
                    "s" | "ss" => seconds = num()?,
                    "m" | "mm" => minutes = num()?,
                    "H" | "HH" | "h" | "hh" => hours = num()?,
                    "D" | "DD" => day = num()?,
                    "Do" => {
                        day = v
                            .chars()
                            .take_while(char::is_ascii_digit)
                            .collect::<String>()
                            .parse()
                            .ok()?
                    }
                    "M" | "MM" => month = num()?,
                    "MMM" | "MMMM" => {
                        let k = MONTHS
                            .iter()
                            .position(|m| if *f == "MMM" { m[..3] == v } else { *m == v })?;
                        month = k as i64 + 1;
                    }
                    "YYYY" | "Y" => year = num()?,
                    "YY" => {
                        let n = num()?;
                        year = n + if n > 68 { 1900 } else { 2000 };
                    }
                    "Z" | "ZZ" => {
                        zone = Some(if v == "Z" {
                            0
                        } else {
                            let digits: String = v.chars().filter(char::is_ascii_digit).collect();
                            let hh: i64 = digits.get(..2)?.parse().ok()?;
                            let mm: i64 = digits
                                .get(2..)
                                .filter(|s| !s.is_empty())
                                .map_or(Some(0), |s| s.parse().ok())?;
                            let minutes = hh * 60 + mm;
                            if v.starts_with('+') {
                                -minutes
                            } else {
                                minutes
                            }
                        })
                    }
                    _ => return None,
                }
                work.replace_range(a..e, "");
            }
        }
    }
    if let Some(pm) = afternoon {
        if pm && hours < 12 {
            hours += 12;
        } else if !pm && hours == 12 {
            hours = 0;
        }
    }
    let now = Civil::of(TODAY);
    let d = if day != 0 {
        day
    } else if year == 0 && month == 0 {
        now.d
    } else {
        1
    };
    let y = if year != 0 { year } else { now.y };
    let m0 = if year != 0 && month == 0 {
        0
    } else if month > 0 {
        month - 1
    } else {
        now.mo - 1
    };
    let t = make(
        y,
        m0,
        d,
        hours,
        minutes,
        seconds,
        millis + zone.unwrap_or(0) * MINUTE,
    )?;
    (dayjs_format(t, fmt) == input).then_some(t)
}

/// What JavaScript's `new Date(text)` makes of the forms people write (ISO dates and times,
/// `YYYY/MM/DD`), in a zone at UTC+0; `None` for anything else, or a year beyond ±10000.
pub fn parse_js(text: &str) -> Option<Ms> {
    parse_iso(text).or_else(|| parse_legacy(text))
}

/// V8's fallback for what is not ISO: up to three numbers (month, day, year; or year, month,
/// day when the first cannot be a day), a missing day or month 1, a year 0–49 in the 2000s
/// and 50–99 in the 1900s, then an optional `hh:mm[:ss]` (a `-hh:mm` after the date is a zone
/// offset).
fn parse_legacy(text: &str) -> Option<Ms> {
    let s = text.trim();
    let (date, time) = match s.find(':') {
        Some(colon) => {
            // The time is the number before the first colon and what follows.
            let start = s[..colon]
                .rfind(|c: char| !c.is_ascii_digit())
                .map_or(0, |k| k + 1);
            (&s[..start], Some(&s[start..]))
        }
        None => (s, None),
    };
    let (date, zone_sign) = match date.strip_suffix('-') {
        Some(d) if time.is_some() => (d, Some(-1)),
        _ => match date.strip_suffix('+') {
            Some(d) if time.is_some() => (d, Some(1)),
            _ => (date, None),
        },
    };
    let nums: Vec<&str> = date
        .split(['-', '/', '.', ',', ' '])
        .filter(|p| !p.is_empty())
        .collect();
    if nums.is_empty()
        || nums.len() > 3
        || !nums
            .iter()
            .all(|p| p.bytes().all(|c| c.is_ascii_digit()) && p.len() <= 6)
    {
        return None;
    }
    let mut comp = [1i64; 3];
    for (k, p) in nums.iter().enumerate() {
        comp[k] = p.parse().ok()?;
    }
    let is_day = |n: i64| (1..=31).contains(&n);
    let (mut y, m, d) = if !is_day(comp[0]) {
        (comp[0], comp[1], comp[2])
    } else {
        (comp[2], comp[0], comp[1])
    };
    if !(1..=12).contains(&m) || !is_day(d) {
        return None;
    }
    if (0..=49).contains(&y) {
        y += 2000;
    } else if (50..=99).contains(&y) {
        y += 1900;
    }
    let (mut h, mut mi, mut sec) = (0, 0, 0);
    let mut offset = 0;
    if let Some(time) = time {
        let parts: Vec<&str> = time.trim().split(':').collect();
        if parts.len() > 3
            || parts
                .iter()
                .any(|p| p.is_empty() || p.len() > 2 || !p.bytes().all(|c| c.is_ascii_digit()))
        {
            return None;
        }
        let n = |k: usize| parts.get(k).map_or(Some(0), |p| p.parse::<i64>().ok());
        match zone_sign {
            Some(sign) => offset = sign * (n(0)? * 60 + n(1)?),
            None => {
                h = n(0)?;
                mi = n(1)?;
                sec = n(2)?;
            }
        }
        if h > 24 || mi > 59 || sec > 59 {
            return None;
        }
    }
    if !(-10_000..=10_000).contains(&y) {
        return None;
    }
    Some(make(y, m - 1, d, h, mi, sec, 0)? - offset * MINUTE)
}

/// The ISO forms `Date` reads first.
fn parse_iso(text: &str) -> Option<Ms> {
    let s = text.trim();
    let (date, time) = match s.find(['T', ' ']) {
        Some(k) => (&s[..k], Some(s[k + 1..].trim())),
        None => (s, None),
    };
    let sep = if date.contains('/') { '/' } else { '-' };
    let parts: Vec<&str> = date.split(sep).collect();
    let num = |p: &str, n: usize| -> Option<i64> {
        (p.len() == n && p.bytes().all(|c| c.is_ascii_digit()))
            .then(|| p.parse().ok())
            .flatten()
    };
    let num_1_2 = |p: &str| -> Option<i64> {
        (!p.is_empty() && p.len() <= 2 && p.bytes().all(|c| c.is_ascii_digit()))
            .then(|| p.parse().ok())
            .flatten()
    };
    let (y, m, d) = match (sep, parts.as_slice()) {
        ('-', [y]) => (num(y, 4)?, 1, 1),
        ('-', [y, m]) => (num(y, 4)?, num(m, 2)?, 1),
        ('-', [y, m, d]) => (num(y, 4)?, num(m, 2)?, num(d, 2)?),
        ('/', [y, m, d]) => (num(y, 4)?, num_1_2(m)?, num_1_2(d)?),
        _ => return None,
    };
    if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
        return None;
    }
    let (mut h, mut mi, mut sec, mut ms) = (0, 0, 0, 0);
    if let Some(time) = time {
        let time = time.trim_end_matches('Z');
        let hms: Vec<&str> = time.split(':').collect();
        let (sec_part, frac) = match hms.get(2) {
            Some(x) => match x.split_once('.') {
                Some((a, b)) => (Some(a), Some(b)),
                None => (Some(*x), None),
            },
            None => (None, None),
        };
        h = num(hms.first()?, 2)?;
        mi = num(hms.get(1)?, 2)?;
        if hms.len() > 3 {
            return None;
        }
        if let Some(sp) = sec_part {
            sec = num(sp, 2)?;
        }
        if let Some(f) = frac {
            if f.is_empty() || !f.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let f3: String = f.chars().chain("000".chars()).take(3).collect();
            ms = f3.parse().ok()?;
        }
        if h > 24 || mi > 59 || sec > 59 {
            return None;
        }
    }
    if !(-10_000..=10_000).contains(&y) {
        return None;
    }
    make(y, m - 1, d, h, mi, sec, ms)
}

/// A duration as Mermaid reads one (`2d`, `1.5w`, `36h`, `30m`, `3M`, `1y`, `500ms`):
/// `t` moved on by it, dayjs's way (days and weeks rounded to whole days, months and years
/// to whole ones with the day kept within the month); `None` when it is not one.
pub fn add_duration(t: Ms, text: &str) -> Option<Ms> {
    let s = text.trim();
    let unit_len = if s.ends_with("ms") { 2 } else { 1 };
    let (num, unit) = s.split_at(s.len().checked_sub(unit_len)?);
    if !matches!(unit, "M" | "d" | "h" | "m" | "s" | "w" | "y" | "ms") {
        return None;
    }
    let valid = {
        let (int, frac) = num.split_once('.').unwrap_or((num, "1"));
        !int.is_empty()
            && int.bytes().all(|c| c.is_ascii_digit())
            && !frac.is_empty()
            && frac.bytes().all(|c| c.is_ascii_digit())
    };
    if !valid {
        return None;
    }
    let n: f64 = num.parse().ok()?;
    let round = |x: f64| (x + 0.5).floor() as i64;
    let months = |k: i64| {
        let c = Civil::of(t);
        let total = c.y * 12 + c.mo - 1 + k;
        let (y, m) = (total.div_euclid(12), total.rem_euclid(12) + 1);
        let d = c.d.min(days_in_month(y, m));
        make(y, m - 1, d, c.h, c.mi, c.s, c.ms)
    };
    let out = match unit {
        "d" => t.checked_add(round(n).checked_mul(DAY)?)?,
        "w" => t.checked_add(round(n * 7.0).checked_mul(DAY)?)?,
        "M" => months(n.trunc() as i64)?,
        "y" => months((n.trunc() as i64).checked_mul(12)?)?,
        _ => {
            let step = match unit {
                "h" => HOUR,
                "m" => MINUTE,
                "s" => SECOND,
                _ => 1,
            } as f64;
            let v = t as f64 + n * step;
            if !v.is_finite() || v.abs() > 8.64e15 {
                return None;
            }
            v.trunc() as i64
        }
    };
    (out.abs() <= 8_640_000_000_000_000).then_some(out)
}

/// `t` in d3's time format `fmt` (`%Y-%m-%d`, `%b %d`, `%H:%M`, …), in a zone at UTC+0.
pub fn d3_format(t: Ms, fmt: &str) -> String {
    let c = Civil::of(t);
    let wd = Civil::weekday(t);
    let year_start = days_from_civil(c.y, 1, 1);
    let doy = t.div_euclid(DAY) - year_start;
    let mut out = String::new();
    let mut chars = fmt.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch != '%' {
            out.push(ch);
            continue;
        }
        let mut padding: Option<char> = None;
        if let Some(&p) = chars.peek()
            && matches!(p, '-' | '_' | '0')
        {
            padding = Some(p);
            chars.next();
        }
        let Some(spec) = chars.next() else {
            break;
        };
        let padded = |n: i64, width: usize, default: char| -> String {
            let p = padding.unwrap_or(default);
            let s = n.to_string();
            match p {
                '-' => s,
                _ if s.len() >= width => s,
                _ => format!("{}{s}", p.to_string().repeat(width - s.len())),
            }
        };
        let week_of = |first: i64| -> i64 {
            // Weeks begin on `first` (0 Sunday, 1 Monday); days before the year's first such
            // day are week 0.
            let jan1 = (year_start + 4).rem_euclid(7);
            (doy + (jan1 - first).rem_euclid(7)) / 7
        };
        let s = match spec {
            'a' => WEEKDAYS[wd as usize][..3].to_string(),
            'A' => WEEKDAYS[wd as usize].to_string(),
            'b' | 'h' => MONTHS[(c.mo - 1) as usize][..3].to_string(),
            'B' => MONTHS[(c.mo - 1) as usize].to_string(),
            'c' => format!(
                "{}/{}/{}, {}:{}:{} {}",
                c.mo,
                c.d,
                c.y,
                if c.h % 12 == 0 { 12 } else { c.h % 12 },
                pad(c.mi, 2),
                pad(c.s, 2),
                if c.h < 12 { "AM" } else { "PM" }
            ),
            'd' => padded(c.d, 2, '0'),
            'e' => padded(c.d, 2, ' '),
            'f' => padded(c.ms * 1000, 6, '0'),
            'H' => padded(c.h, 2, '0'),
            'I' => padded(if c.h % 12 == 0 { 12 } else { c.h % 12 }, 2, '0'),
            'j' => padded(doy + 1, 3, '0'),
            'L' => padded(c.ms, 3, '0'),
            'm' => padded(c.mo, 2, '0'),
            'M' => padded(c.mi, 2, '0'),
            'p' => if c.h < 12 { "AM" } else { "PM" }.to_string(),
            'q' => ((c.mo - 1) / 3 + 1).to_string(),
            'Q' => t.to_string(),
            's' => t.div_euclid(1000).to_string(),
            'S' => padded(c.s, 2, '0'),
            'u' => (if wd == 0 { 7 } else { wd }).to_string(),
            'U' => padded(week_of(0), 2, '0'),
            'W' => padded(week_of(1), 2, '0'),
            'V' => {
                // ISO week: the week holding the Thursday of this one.
                let thursday = t.div_euclid(DAY) - (wd + 6) % 7 + 3;
                let (ty, _, _) = civil_from_days(thursday);
                padded((thursday - days_from_civil(ty, 1, 1)) / 7 + 1, 2, '0')
            }
            'g' | 'G' => {
                let thursday = t.div_euclid(DAY) - (wd + 6) % 7 + 3;
                let (ty, _, _) = civil_from_days(thursday);
                if spec == 'g' {
                    padded(ty.rem_euclid(100), 2, '0')
                } else {
                    padded(ty, 4, '0')
                }
            }
            'w' => wd.to_string(),
            'x' => format!("{}/{}/{}", c.mo, c.d, c.y),
            'X' => format!(
                "{}:{}:{} {}",
                if c.h % 12 == 0 { 12 } else { c.h % 12 },
                pad(c.mi, 2),
                pad(c.s, 2),
                if c.h < 12 { "AM" } else { "PM" }
            ),
            'y' => padded(c.y.rem_euclid(100), 2, '0'),
            'Y' => padded(c.y, 4, '0'),
            'Z' => "+0000".to_string(),
            '%' => "%".to_string(),
            other => {
                let mut s = String::from('%');
                s.push(other);
                s
            }
        };
        out.push_str(&s);
    }
    out
}
