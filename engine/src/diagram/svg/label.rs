//! Lines of text centred on a point, each label in its own direction, with bold and italic
//! runs where a markdown label has them.

use super::writer::{Plain, Val, Writer};
use crate::diagram::geometry::Pt;
use crate::diagram::svg::writer::plain;
use crate::diagram::text::{Block, Emphasis, FONT_SIZE, LINE_HEIGHT};

#[cfg(test)]
pub(super) fn direction(text: &str) -> &'static str {
    direction_of(text.chars()).0
}

/// `rtl` when the first strong character of the text `chars` make is Hebrew or Arabic, else
/// `ltr`: each label keeps its own direction whatever the page's (punctuation lands on the
/// right side). Takes characters, so a label's lines need not be joined first.
fn direction_of(chars: impl Iterator<Item = char>) -> Plain {
    const LTR: Plain = Plain::new("ltr");
    for c in chars {
        match u32::from(c) {
            0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF => {
                return const { Plain::new("rtl") };
            }
            _ if c.is_alphabetic() => return LTR,
            _ => {}
        }
    }
    LTR
}

/// Lines of text centred on `center`.
pub fn lines(w: &mut Writer, class: Plain, fill: Val, block: &Block, center: Pt) {
    lines_styled(w, class, fill, block, center, None);
}

/// A label's line: plain text, or runs of `tspan`s where a markdown label has bold or
/// italic text. `at` is where the line starts in the label the emphasis ranges index.
fn line_text(w: &mut Writer, line: &str, styled: Option<(usize, &[Emphasis])>) {
    let Some((at, emphasis)) = styled.filter(|(_, e)| !e.is_empty()) else {
        w.text(line);
        return;
    };
    let end = at + line.len();
    let mut i = at;
    while i < end {
        let here = emphasis.iter().find(|e| e.start <= i && i < e.end);
        let next = match here {
            Some(e) => e.end.min(end),
            None => emphasis
                .iter()
                .map(|e| e.start)
                .filter(|&s| s > i)
                .min()
                .unwrap_or(end)
                .min(end),
        };
        let piece = line.get(i - at..next - at).unwrap_or("");
        match here {
            Some(e) => {
                let mut attrs: Vec<(&'static str, Val)> = Vec::with_capacity(2);
                if e.bold {
                    attrs.push(("font-weight", plain!("bold")));
                }
                if e.italic {
                    attrs.push(("font-style", plain!("italic")));
                }
                w.open("tspan", &attrs);
                w.text(piece);
                w.close("tspan");
            }
            None => w.text(piece),
        }
        i = next.max(i + 1);
    }
}

/// Lines of text centred on `center`; `styled` is the label the lines were wrapped from and
/// its emphasis, for a markdown label.
pub fn lines_styled(
    w: &mut Writer,
    class: Plain,
    fill: Val,
    block: &Block,
    center: Pt,
    styled: Option<(&str, &[Emphasis])>,
) {
    // Where each line starts in the label: found in order, as wrapping keeps it.
    let mut from = 0;
    let mut starts = Vec::new();
    if let Some((label, _)) = styled {
        for line in block.lines() {
            let at = label
                .get(from..)
                .and_then(|r| r.find(line))
                .map_or(usize::MAX, |i| from + i);
            if at != usize::MAX {
                from = at + line.len();
            }
            starts.push(at);
        }
    }
    let style_of = |i: usize| {
        styled.and_then(|(_, em)| {
            starts
                .get(i)
                .filter(|&&at| at != usize::MAX)
                .map(|&at| (at, em))
        })
    };
    let x = Val::Num(center.x);
    let class = Val::Plain(class);
    let top = center.y - block.height / 2.0;
    // Baseline: the middle of the line plus about a third of the font size.
    let baseline = |i: usize| Val::Num(top + LINE_HEIGHT * (i as f64 + 0.5) + 0.35 * FONT_SIZE);
    if !block.is_multiline() {
        let dir = direction_of(block.text.chars());
        w.open(
            "text",
            &[
                ("class", class),
                ("x", x),
                ("y", baseline(0)),
                ("text-anchor", plain!("middle")),
                ("direction", Val::Plain(dir)),
                ("fill", fill),
            ],
        );
        line_text(w, &block.text, style_of(0));
    } else {
        w.open(
            "text",
            &[
                ("class", class),
                ("text-anchor", plain!("middle")),
                ("fill", fill),
            ],
        );
        for (i, line) in block.lines().enumerate() {
            // A line break between the lines, so the text reads as words (a wrapped
            // "refresh in" / "background" is not "inbackground" to a checker or a copy).
            if i > 0 {
                w.newline();
            }
            w.open("tspan", &[("x", x), ("y", baseline(i))]);
            line_text(w, line, style_of(i));
            w.close("tspan");
        }
    }
    w.close("text");
    w.newline();
}
