//! Label measurement from real font metrics (see `font_widths.rs`), and line wrapping.

use super::font_widths::{FALLBACK, RUNS};

/// The font the SVG asks for, as its `font-family` attribute gives it (the quotes escaped,
/// once, here); the width table covers the widest of these that is common.
pub const FONT_FAMILY_ESCAPED: &str =
    "Arial, &#39;Liberation Sans&#39;, Helvetica, &#39;DejaVu Sans&#39;, sans-serif";
/// Label font size, px.
pub const FONT_SIZE: f64 = 14.0;
/// Distance between baselines, px.
pub const LINE_HEIGHT: f64 = 18.0;
/// Lines longer than this wrap at spaces.
pub const WRAP_WIDTH: f64 = 220.0;

/// The advance of `c` in ems.
fn advance(c: char) -> f64 {
    let cp = u32::from(c);
    // Most labels are ASCII: a table read instead of the search.
    let thousandths = match ASCII.get(cp as usize) {
        Some(&t) => t,
        None => thousandths(cp),
    };
    f64::from(thousandths) / 1000.0
}

/// The advances of the ASCII characters, in thousandths of an em, as [`thousandths`] finds
/// them (no ASCII character is zero-width or wide).
const ASCII: [u16; 128] = {
    let mut table = [FALLBACK; 128];
    // Runs are sorted and do not overlap, so each character gets its run's width.
    let mut k = 0;
    while k < RUNS.len() {
        let (lo, hi, w) = RUNS[k];
        let mut cp = lo;
        while cp <= hi && cp < 128 {
            table[cp as usize] = w;
            cp += 1;
        }
        k += 1;
    }
    table
};

/// The advance of the character `cp`, in thousandths of an em.
fn thousandths(cp: u32) -> u16 {
    match RUNS.binary_search_by(|&(lo, hi, _)| {
        if hi < cp {
            std::cmp::Ordering::Less
        } else if lo > cp {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    }) {
        Ok(i) => RUNS[i].2,
        Err(_) if is_zero_width(cp) => 0,
        Err(_) if is_wide(cp) => 1000,
        Err(_) => FALLBACK,
    }
}

fn is_zero_width(cp: u32) -> bool {
    matches!(cp, 0x200B..=0x200F | 0xFE00..=0xFE0F | 0x1AB0..=0x1AFF | 0x20D0..=0x20FF)
}

/// East Asian wide and emoji ranges: a full em each.
fn is_wide(cp: u32) -> bool {
    matches!(
        cp,
        0x1100..=0x115F
            | 0x2E80..=0x303E
            | 0x3041..=0x33FF
            | 0x3400..=0x4DBF
            | 0x4E00..=0x9FFF
            | 0xA000..=0xA4CF
            | 0xAC00..=0xD7A3
            | 0xF900..=0xFAFF
            | 0xFE30..=0xFE4F
            | 0xFF00..=0xFF60
            | 0xFFE0..=0xFFE6
            | 0x1F300..=0x1FAFF
            | 0x20000..=0x3FFFD
    )
}

/// The width of one line of text at `FONT_SIZE`, px.
pub fn width(line: &str) -> f64 {
    ems(line) * FONT_SIZE
}

/// The width of one line of text in ems: the sum [`width`] scales.
fn ems(line: &str) -> f64 {
    line.chars().map(advance).sum::<f64>()
}

/// A label broken into lines: at its own line breaks, and at spaces where a line would be
/// wider than `max`. A single word wider than `max` keeps its own line.
#[cfg(test)]
fn wrap(label: &str, max: f64) -> Vec<String> {
    wrap_measured(label, max)
        .0
        .split('\n')
        .map(str::to_string)
        .collect()
}

/// The lines of `label` wrapped at `max` (see `wrap`), joined by `\n`, and the widest line's
/// width, px: each line's width is kept as it grows, adding one character's advance at a time
/// in the order [`width`] sums them, so every width (and every wrapping decision) is exactly
/// what measuring the whole line would give.
fn wrap_measured(label: &str, max: f64) -> (String, f64) {
    // Most labels are a few single-spaced words on one line, well inside `max`: that line is
    // the label itself, measured in one pass. The margin is far beyond the rounding of the
    // word-by-word test below, which would keep every word on the line; and the width is
    // the same sum, taken in the same order.
    let bytes = label.as_bytes();
    let one_line = bytes.first().is_some_and(|&b| b != b' ')
        && bytes.last() != Some(&b' ')
        && !bytes.contains(&b'\n')
        && !bytes.windows(2).any(|pair| pair == b"  ");
    if one_line {
        let line_width = width(label);
        if line_width + 1.0 <= max {
            return (label.to_string(), 0.0_f64.max(line_width));
        }
    }
    let space_ems = advance(' ');
    let space = width(" ");
    // The lines are at most the label: one allocation, with no string per line.
    let mut lines = String::with_capacity(label.len());
    let mut widest: f64 = 0.0;
    for (k, part) in label.split('\n').enumerate() {
        if k > 0 {
            lines.push('\n');
        }
        // Where the line being filled starts in `lines`.
        let mut line_start = lines.len();
        let mut line_ems = ems("");
        for word in part.split(' ').filter(|w| !w.is_empty()) {
            if lines.len() == line_start {
                lines.push_str(word);
                line_ems = ems(word);
                continue;
            }
            // One pass over the word: its own width (to decide) and the line's continued.
            let (word_ems, joined_ems) = word
                .chars()
                .map(advance)
                .fold((ems(""), line_ems + space_ems), |(w, l), a| (w + a, l + a));
            if line_ems * FONT_SIZE + space + word_ems * FONT_SIZE <= max {
                lines.push(' ');
                lines.push_str(word);
                line_ems = joined_ems;
            } else {
                lines.push('\n');
                widest = widest.max(line_ems * FONT_SIZE);
                line_start = lines.len();
                lines.push_str(word);
                line_ems = word_ems;
            }
        }
        widest = widest.max(line_ems * FONT_SIZE);
    }
    (lines, widest)
}

/// Lines and the size of the block they make.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// The lines, joined by `\n` (no line holds one); at least one line, maybe empty.
    pub text: String,
    pub width: f64,
    pub height: f64,
}

impl Block {
    /// `label` wrapped at `WRAP_WIDTH`.
    pub fn new(label: &str) -> Block {
        Block::wrapped(label, WRAP_WIDTH)
    }

    pub fn wrapped(label: &str, max: f64) -> Block {
        let (text, width) = wrap_measured(label, max);
        let height = LINE_HEIGHT * (memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1) as f64;
        Block {
            text,
            width,
            height,
        }
    }

    /// Its lines, in order.
    pub fn lines(&self) -> std::str::Split<'_, char> {
        self.text.split('\n')
    }

    /// Whether it has nothing to draw: no line holds any text.
    pub fn is_blank(&self) -> bool {
        self.text.bytes().all(|b| b == b'\n')
    }

    /// Whether it has more than one line.
    pub fn is_multiline(&self) -> bool {
        // Labels are short: a plain search costs less than setting up `memchr`'s vector one.
        self.text.as_bytes().contains(&b'\n')
    }
}

/// A run of a label drawn bold and/or italic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Emphasis {
    pub start: usize,
    pub end: usize,
    pub bold: bool,
    pub italic: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ascii_table_is_the_search() {
        for cp in 0..128 {
            assert_eq!(ASCII[cp as usize], thousandths(cp), "{cp:#x}");
        }
    }

    #[test]
    fn widths_come_from_the_table() {
        // "A" is 0.685 em in DejaVu Sans (wider than Liberation Sans' 0.667).
        assert!((width("A") - 0.685 * FONT_SIZE).abs() < 1e-9);
        assert!(width("WWW") > width("iii") * 2.0);
        assert_eq!(width(""), 0.0);
        // Hebrew and a CJK character are measured, not zero.
        assert!(width("שלום") > 0.0);
        assert_eq!(width("中"), FONT_SIZE);
    }

    /// Wrapping by measuring every candidate line whole: what `wrap_measured` must match
    /// bit for bit, widths included.
    fn wrap_whole(label: &str, max: f64) -> (Vec<String>, f64) {
        let mut lines = Vec::new();
        for part in label.split('\n') {
            let mut line = String::new();
            for word in part.split(' ').filter(|w| !w.is_empty()) {
                if line.is_empty() {
                    line.push_str(word);
                } else if width(&line) + width(" ") + width(word) <= max {
                    line.push(' ');
                    line.push_str(word);
                } else {
                    lines.push(std::mem::take(&mut line));
                    line.push_str(word);
                }
            }
            lines.push(line);
        }
        let widest = lines.iter().fold(0.0_f64, |m, l| m.max(width(l)));
        (lines, widest)
    }

    #[test]
    fn wrapping_measures_as_whole_lines_do() {
        let words = [
            "a",
            "Step",
            "1",
            "ff",
            "Serve",
            "cached?",
            "שלום",
            "中文",
            "W",
            "—",
            "x\u{200B}y",
        ];
        let mut bits = crate::diagram::xorshift(0x1234_5678_9abc_def1);
        for _ in 0..3_000 {
            let n = (bits() % 12) as usize;
            let mut label = String::new();
            for k in 0..n {
                if k > 0 {
                    label.push_str(match bits() % 8 {
                        0 => "\n",
                        1 => "  ",
                        _ => " ",
                    });
                }
                label.push_str(words[(bits() % words.len() as u64) as usize]);
            }
            let max = (bits() % 300) as f64;
            let (lines, widest) = wrap_measured(&label, max);
            let (want, want_widest) = wrap_whole(&label, max);
            assert_eq!(lines, want.join("\n"), "{label:?} {max}");
            assert_eq!(widest.to_bits(), want_widest.to_bits(), "{label:?} {max}");
        }
    }

    #[test]
    fn wrapping() {
        assert_eq!(wrap("one\ntwo", 1000.0), ["one", "two"]);
        assert_eq!(wrap("a b c", width("a b")), ["a b", "c"]);
        assert_eq!(
            wrap("averyveryverylongword x", 10.0),
            ["averyveryverylongword", "x"]
        );
        assert_eq!(wrap("", 10.0), [""]);
        let b = Block::new("Serve stale + refresh in background and then some more words here");
        assert!(b.is_multiline());
        assert!(b.width <= WRAP_WIDTH);
    }
}
