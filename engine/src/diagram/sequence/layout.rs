//! A sequence diagram's layout: participants in columns, one row per message, note or frame
//! edge, top to bottom in source order.

use super::{Event, Frame, Kind, Sequence, Side};
use crate::diagram::shapes::cylinder_cap;
use crate::diagram::text::{Block, LINE_HEIGHT, width};

/// Text centred on a point: x, y and its lines.
pub type Placed = (f64, f64, Block);

/// A box, by its top left corner.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn right(&self) -> f64 {
        self.x + self.w
    }
    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }
    pub fn cx(&self) -> f64 {
        self.x + self.w / 2.0
    }
    pub fn cy(&self) -> f64 {
        self.y + self.h / 2.0
    }
    fn shift(&mut self, dx: f64) {
        self.x += dx;
    }
}

/// A participant drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Lane {
    pub rect: Rect,
    /// The same box again where the lifeline ends: below the last row, or on the line of a
    /// destroyed participant's last message.
    pub foot: Rect,
    pub text: Block,
    /// Lifeline: x, from y, to y.
    pub lifeline: (f64, f64, f64),
}

/// A message drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Arrow {
    /// The line's points: two for a message between two participants, four for a message to
    /// itself.
    pub points: Vec<(f64, f64)>,
    /// The label, centred on this point.
    pub label: Option<Placed>,
    /// The autonumber badge's centre.
    pub badge: Option<(f64, f64)>,
}

/// A frame drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameBox {
    pub kind: Frame,
    pub rect: Rect,
    /// The kind's tab (top left) and its width.
    pub tab: f64,
    /// The label after the tab, centred at the point.
    pub label: Option<Placed>,
    /// Dividers: y, and the label centred at a point.
    pub dividers: Vec<(f64, Option<Placed>)>,
    pub depth: usize,
    /// A `rect`'s colour from the source, when plain.
    pub colour: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Drawing {
    pub width: f64,
    pub height: f64,
    pub heads: Vec<Lane>,
    /// One per message, in order.
    pub arrows: Vec<Arrow>,
    pub notes: Vec<(Rect, Block)>,
    pub frames: Vec<FrameBox>,
    /// Activation bars.
    pub bars: Vec<Rect>,
    /// `box` groups: the box, its title's centre, and its colour from the source when plain.
    pub groups: Vec<(Rect, Option<Placed>, Option<String>)>,
}

const MARGIN: f64 = 12.0;

const BOX_PAD_X: f64 = 14.0;

const BOX_PAD_Y: f64 = 10.0;

const MIN_BOX_W: f64 = 96.0;

/// Between two participants' boxes, at least.
const GAP: f64 = 36.0;

/// A label's clearance from the ends of its arrow.
const LABEL_CLEAR: f64 = 22.0;

const NOTE_PAD: f64 = 8.0;

const BAR_W: f64 = 10.0;

const LOOP_W: f64 = 32.0;

const LOOP_H: f64 = 22.0;

const GROUP_PAD: f64 = 10.0;

/// Between the last row and the participants drawn again at the bottom.
const FOOT_GAP: f64 = 8.0;

const FRAME_PAD: f64 = 12.0;

/// Actor figure height, above the name.
const FIGURE_H: f64 = 34.0;

/// How far a message to a created actor stops short of its figure's middle.
const FIGURE_REACH: f64 = 14.0;

pub const TAB_H: f64 = 20.0;

pub const BADGE_R: f64 = 9.0;

/// Wraps for each kind of text.
const MESSAGE_WRAP: f64 = 320.0;

const NOTE_WRAP: f64 = 220.0;

const NAME_WRAP: f64 = 180.0;

fn label(text: &str, wrap: f64) -> Option<Block> {
    (!text.trim().is_empty()).then(|| Block::wrapped(text, wrap))
}

/// A frame's label as drawn: in brackets, as Mermaid draws a condition.
fn bracketed(kind: Frame, text: &str) -> String {
    if text.trim().is_empty() || kind == Frame::Rect {
        String::new()
    } else {
        format!("[{}]", text.trim())
    }
}

/// Per frame (by the index of its `Start`): where its contents reach, x.
#[derive(Clone, Copy)]
struct Reach {
    lo: f64,
    hi: f64,
}

impl Reach {
    const NONE: Reach = Reach {
        lo: f64::INFINITY,
        hi: f64::NEG_INFINITY,
    };
    fn add(&mut self, lo: f64, hi: f64) {
        self.lo = self.lo.min(lo);
        self.hi = self.hi.max(hi);
    }
}

/// Lays the diagram out.
pub fn layout(seq: &Sequence) -> Drawing {
    let n = seq.participants.len();
    let names: Vec<Block> = seq
        .participants
        .iter()
        .map(|p| Block::wrapped(&p.label, NAME_WRAP))
        .collect();
    let widths: Vec<f64> = names
        .iter()
        .map(|b| (b.width + 2.0 * BOX_PAD_X).max(MIN_BOX_W))
        .collect();
    let names_h = names.iter().map(|b| b.height).fold(LINE_HEIGHT, f64::max);
    // Boxes share one height, figures another; rows start below the taller.
    let box_h = names_h + 2.0 * BOX_PAD_Y;
    let figure_h = names_h + BOX_PAD_Y + FIGURE_H;
    let heights: Vec<f64> = seq
        .participants
        .iter()
        .zip(&widths)
        .map(|(p, w)| match p.kind {
            Kind::Actor => figure_h,
            // Room for the cylinder's caps above and below the name.
            Kind::Database => box_h + 2.0 * cylinder_cap(*w),
            _ => box_h,
        })
        .collect();
    let head_h = heights.iter().copied().fold(0.0, f64::max);
    let group_of = |i: usize| seq.groups.iter().position(|g| g.members.contains(&i));

    // Columns: the participants side by side, then pushed apart for what sits between.
    let mut x = vec![0.0; n];
    for i in 1..n {
        let mut gap = GAP;
        if group_of(i) != group_of(i - 1) {
            gap += 2.0 * GROUP_PAD * f64::from(u8::from(group_of(i).is_some()))
                + 2.0 * GROUP_PAD * f64::from(u8::from(group_of(i - 1).is_some()));
        }
        x[i] = x[i - 1] + widths[i - 1] / 2.0 + gap + widths[i] / 2.0;
    }
    // The index of the last message involving each participant: a destroyed one's box is
    // drawn again on that message's line, where its lifeline ends.
    let mut last_msg: Vec<Option<usize>> = vec![None; n];
    for (k, m) in seq.messages().enumerate() {
        last_msg[m.from] = Some(k);
        last_msg[m.to] = Some(k);
    }
    let ends_at = |i: usize, k: usize| seq.participants[i].destroyed && last_msg[i] == Some(k);
    // (lo, hi, distance): x[hi] - x[lo] must be at least the distance.
    let mut needs: Vec<(usize, usize, f64)> = Vec::new();
    let mut k = 0;
    for e in &seq.events {
        match e {
            Event::Message(m) => {
                let w = label(&m.text, MESSAGE_WRAP).map_or(0.0, |b| b.width);
                let this = k;
                k += 1;
                // Half a box drawn on the message's line, at either end.
                let boxed = |i: usize| {
                    if seq.participants[i].created || ends_at(i, this) {
                        widths[i] / 2.0
                    } else {
                        0.0
                    }
                };
                if m.from == m.to {
                    if m.from + 1 < n {
                        needs.push((m.from, m.from + 1, (LOOP_W + 8.0).max(w + 16.0) + BAR_W));
                    }
                } else {
                    let (lo, hi) = (m.from.min(m.to), m.from.max(m.to));
                    let badge = if m.number.is_some() {
                        2.0 * BADGE_R
                    } else {
                        0.0
                    };
                    needs.push((
                        lo,
                        hi,
                        w + 2.0 * LABEL_CLEAR + badge + boxed(m.to) + boxed(m.from) + BAR_W,
                    ));
                }
            }
            Event::Note { side, of, text } => {
                let w = Block::wrapped(text, NOTE_WRAP).width + 2.0 * NOTE_PAD;
                match (side, of) {
                    (Side::Right, (a, _)) if a + 1 < n => needs.push((*a, a + 1, w + 24.0)),
                    (Side::Left, (a, _)) if *a > 0 => needs.push((a - 1, *a, w + 24.0)),
                    (Side::Over, (a, Some(b))) => {
                        let (lo, hi) = (*a.min(b), *a.max(b));
                        needs.push((lo, hi, (w - 40.0).max(0.0)));
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    // Shortest spans first: the widest need between neighbours is met before a longer span is
    // measured.
    needs.sort_by_key(|&(lo, hi, _)| hi - lo);
    for (lo, hi, need) in needs {
        let short = need - (x[hi] - x[lo]);
        if short > 0.0 {
            for v in &mut x[hi..] {
                *v += short;
            }
        }
    }

    // Rows.
    let top = MARGIN
        + if seq.groups.iter().any(|g| !g.title.trim().is_empty()) {
            LINE_HEIGHT + 6.0
        } else if seq.groups.is_empty() {
            0.0
        } else {
            4.0
        };
    let mut y = top + head_h + 18.0;
    let mut heads: Vec<Option<Rect>> = (0..n)
        .map(|i| {
            (!seq.participants[i].created).then(|| Rect {
                x: x[i] - widths[i] / 2.0,
                y: top,
                w: widths[i],
                h: heights[i],
            })
        })
        .collect();
    // Where each destroyed participant's lifeline ends, and its box drawn there.
    let mut ends: Vec<Option<Rect>> = vec![None; n];
    // Open activation bars per participant: start y.
    let mut open_bars: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut bars: Vec<(usize, usize, f64, f64)> = Vec::new();
    let mut arrows: Vec<Arrow> = Vec::new();
    let mut notes = Vec::new();
    let mut frames: Vec<FrameBox> = Vec::new();
    // Open frames: (index in `frames`, reach).
    let mut stack: Vec<(usize, Reach)> = Vec::new();
    let mut last_arrow_y: Option<f64> = None;
    // The x where a message meets participant `i`'s bars, coming from `toward`.
    let edge_x = |open: &Vec<Vec<f64>>, i: usize, toward: f64| {
        let depth = open[i].len() as f64;
        if depth == 0.0 {
            x[i]
        } else if toward > x[i] {
            x[i] + BAR_W / 2.0 + (depth - 1.0) * BAR_W / 2.0
        } else {
            x[i] - BAR_W / 2.0
        }
    };
    let reach_all = |stack: &mut Vec<(usize, Reach)>, lo: f64, hi: f64| {
        if let Some((_, r)) = stack.last_mut() {
            r.add(lo, hi);
        }
    };
    let mut k = 0;
    for e in &seq.events {
        match e {
            Event::Message(m) => {
                let text = label(&m.text, MESSAGE_WRAP);
                let lh = text.as_ref().map_or(0.0, |b| b.height);
                let created = seq.participants[m.to].created && heads[m.to].is_none();
                if m.from == m.to {
                    let x0 = edge_x(&open_bars, m.from, f64::INFINITY);
                    let label_at = text.map(|b| {
                        let at = (x0 + 8.0 + b.width / 2.0, y + b.height / 2.0);
                        (at.0, at.1, b)
                    });
                    let y0 = y + lh + 6.0;
                    let points = vec![
                        (x0, y0),
                        (x0 + LOOP_W, y0),
                        (x0 + LOOP_W, y0 + LOOP_H),
                        (x0, y0 + LOOP_H),
                    ];
                    let right = label_at.as_ref().map_or(x0 + LOOP_W, |(cx, _, b)| {
                        (cx + b.width / 2.0).max(x0 + LOOP_W)
                    });
                    reach_all(&mut stack, x0 - BAR_W, right);
                    let badge = m.number.as_ref().map(|_| (x0 - BADGE_R - 2.0, y0));
                    if badge.is_some() {
                        reach_all(&mut stack, x0 - 2.0 * BADGE_R - 2.0, right);
                    }
                    last_arrow_y = Some(y0 + LOOP_H);
                    arrows.push(Arrow {
                        points,
                        label: label_at,
                        badge,
                    });
                    y = y0 + LOOP_H + 16.0;
                    let i = m.from;
                    if ends_at(i, k) && ends[i].is_none() {
                        let r = Rect {
                            x: x[i] - widths[i] / 2.0,
                            y: y0 + LOOP_H + 8.0,
                            w: widths[i],
                            h: heights[i],
                        };
                        y = r.bottom() + 14.0;
                        ends[i] = Some(r);
                    }
                } else {
                    // A participant created or destroyed here is drawn on the line.
                    let end_from = ends_at(m.from, k) && ends[m.from].is_none();
                    let end_to = ends_at(m.to, k) && ends[m.to].is_none();
                    let half_h = |i: usize, on: bool| if on { heights[i] / 2.0 } else { 0.0 };
                    let head_half = half_h(m.to, created || end_to).max(half_h(m.from, end_from));
                    let line_y = (y + lh + 8.0).max(y + head_half + 2.0);
                    let mut x1 = edge_x(&open_bars, m.from, x[m.to]);
                    let mut x2 = edge_x(&open_bars, m.to, x[m.from]);
                    let on_line = |i: usize| Rect {
                        x: x[i] - widths[i] / 2.0,
                        y: line_y - heights[i] / 2.0,
                        w: widths[i],
                        h: heights[i],
                    };
                    // Where a message meets a box on its line, coming from `toward` (a figure
                    // is narrower than its name).
                    let box_side = |i: usize, toward: f64| {
                        let half = if seq.participants[i].kind == Kind::Actor {
                            FIGURE_REACH
                        } else {
                            widths[i] / 2.0
                        };
                        if toward > x[i] {
                            x[i] + half
                        } else {
                            x[i] - half
                        }
                    };
                    if created {
                        heads[m.to] = Some(on_line(m.to));
                    }
                    if created || end_to {
                        x2 = box_side(m.to, x1);
                    }
                    if end_from {
                        x1 = box_side(m.from, x[m.to]);
                        ends[m.from] = Some(on_line(m.from));
                    }
                    if end_to {
                        ends[m.to] = Some(on_line(m.to));
                    }
                    let boxed = created || end_to || end_from;
                    let (lo, hi) = (x1.min(x2), x1.max(x2));
                    let label_at = text.map(|b| {
                        let mid = if boxed {
                            // Clear of the new participant's box.
                            (x1 + x2) / 2.0
                        } else {
                            (x[m.from] + x[m.to]) / 2.0
                        };
                        (mid, y + b.height / 2.0, b)
                    });
                    let badge = m.number.as_ref().map(|_| (x1, line_y));
                    reach_all(&mut stack, lo, hi);
                    // And the activation bars at its ends, so a frame's side never cuts one.
                    let (l, r) = (x[m.from].min(x[m.to]), x[m.from].max(x[m.to]));
                    reach_all(&mut stack, l - BAR_W, r + BAR_W);
                    if let Some((cx, _, b)) = &label_at {
                        reach_all(&mut stack, cx - b.width / 2.0, cx + b.width / 2.0);
                    }
                    if badge.is_some() {
                        reach_all(&mut stack, x1 - BADGE_R, x1 + BADGE_R);
                    }
                    last_arrow_y = Some(line_y);
                    arrows.push(Arrow {
                        points: vec![(x1, line_y), (x2, line_y)],
                        label: label_at,
                        badge,
                    });
                    y = line_y + if boxed { head_half + 14.0 } else { 16.0 };
                }
                let at = last_arrow_y.unwrap_or(y);
                if m.activate {
                    open_bars[m.to].push(at);
                }
                if m.deactivate
                    && let Some(start) = open_bars[m.from].pop()
                {
                    let depth = open_bars[m.from].len();
                    bars.push((m.from, depth, start, at.max(start + 8.0)));
                }
                k += 1;
            }
            Event::Note { side, of, text } => {
                let b = Block::wrapped(text, NOTE_WRAP);
                let (w, h) = (b.width + 2.0 * NOTE_PAD, b.height + 2.0 * NOTE_PAD);
                let (a, second) = *of;
                let nx = match (side, second) {
                    (Side::Right, _) => x[a] + BAR_W,
                    (Side::Left, _) => x[a] - BAR_W - w,
                    (Side::Over, Some(b2)) => {
                        let (l, r) = (x[a].min(x[b2]), x[a].max(x[b2]));
                        let span = (r - l) + 40.0;
                        if span > w {
                            l - 20.0
                        } else {
                            (l + r) / 2.0 - w / 2.0
                        }
                    }
                    (Side::Over, None) => x[a] - w / 2.0,
                };
                let w = match (side, second) {
                    (Side::Over, Some(b2)) => w.max((x[a] - x[b2]).abs() + 40.0),
                    _ => w,
                };
                let rect = Rect {
                    x: nx,
                    y: y + 2.0,
                    w,
                    h,
                };
                reach_all(&mut stack, rect.x, rect.right());
                y = rect.bottom() + 14.0;
                notes.push((rect, b));
            }
            Event::Activate(i) => {
                open_bars[*i].push(last_arrow_y.unwrap_or(y - 8.0));
            }
            Event::Deactivate(i) => {
                if let Some(start) = open_bars[*i].pop() {
                    let depth = open_bars[*i].len();
                    let end = last_arrow_y.unwrap_or(y).max(start + 8.0);
                    bars.push((*i, depth, start, end));
                }
            }
            Event::Start(kind, text, colour) => {
                let tab = width(kind.name()) + 18.0;
                let b = label(&bracketed(*kind, text), MESSAGE_WRAP);
                let h = b.as_ref().map_or(0.0, |b| b.height).max(TAB_H);
                frames.push(FrameBox {
                    kind: *kind,
                    rect: Rect {
                        x: 0.0,
                        y,
                        w: 0.0,
                        h: 0.0,
                    },
                    tab,
                    label: b.map(|b| (0.0, y + 2.0 + b.height / 2.0, b)),
                    dividers: Vec::new(),
                    depth: stack.len(),
                    colour: colour.clone(),
                });
                stack.push((frames.len() - 1, Reach::NONE));
                y += h + 12.0;
                // Messages arriving at a frame's first row attach below its header.
                last_arrow_y = None;
            }
            Event::Divide(text) => {
                if let Some((f, _)) = stack.last() {
                    let b = label(&bracketed(frames[*f].kind, text), MESSAGE_WRAP);
                    let h = b.as_ref().map_or(0.0, |b| b.height).max(LINE_HEIGHT);
                    let at = b.map(|b| (0.0, y + 4.0 + b.height / 2.0, b));
                    frames[*f].dividers.push((y, at));
                    y += h + 14.0;
                }
            }
            Event::End => {
                if let Some((f, reach)) = stack.pop() {
                    let fr = &mut frames[f];
                    let (lo, hi) = if reach.lo.is_finite() {
                        (reach.lo - FRAME_PAD, reach.hi + FRAME_PAD)
                    } else {
                        let c = x.first().copied().unwrap_or(0.0);
                        (c - 50.0, c + 50.0)
                    };
                    // Room for the tab and the labels.
                    let mut need = fr.tab;
                    if let Some((_, _, b)) = &fr.label {
                        need += b.width + 24.0;
                    }
                    for (_, d) in &fr.dividers {
                        if let Some((_, _, b)) = d {
                            need = need.max(b.width + 24.0);
                        }
                    }
                    let w = (hi - lo).max(need);
                    fr.rect = Rect {
                        x: lo,
                        y: fr.rect.y,
                        w,
                        h: y + 2.0 - fr.rect.y,
                    };
                    let tab = fr.tab;
                    if let Some((cx, _, b)) = &mut fr.label {
                        // Centred in what the tab leaves, as far right as it needs.
                        let room_l = lo + tab + 8.0;
                        *cx = (room_l + b.width / 2.0)
                            .max(lo + w / 2.0)
                            .min(lo + w - 8.0 - b.width / 2.0);
                    }
                    for (_, d) in &mut fr.dividers {
                        if let Some((cx, _, _)) = d {
                            *cx = lo + w / 2.0;
                        }
                    }
                    let (l, r) = (fr.rect.x, fr.rect.right());
                    y += 14.0;
                    reach_all(&mut stack, l, r);
                }
            }
        }
    }
    let bottom = y + 4.0;
    // The participants drawn again below the lifelines, as Mermaid does (its `mirrorActors`),
    // all at one height; lifelines run down to them.
    let foot_top = bottom + FOOT_GAP;
    let foot_bottom = foot_top + head_h;
    // Bars still open run to the end.
    for (i, open) in open_bars.iter().enumerate() {
        for (depth, start) in open.iter().enumerate() {
            bars.push((i, depth, *start, (bottom - 4.0).max(start + 8.0)));
        }
    }
    let bars: Vec<Rect> = bars
        .into_iter()
        .map(|(i, depth, start, end)| Rect {
            x: x[i] - BAR_W / 2.0 + depth as f64 * BAR_W / 2.0,
            y: start,
            w: BAR_W,
            h: end - start,
        })
        .collect();
    let mut out_heads: Vec<Lane> = (0..n)
        .map(|i| {
            // A created participant never reached keeps its place at the top.
            let rect = heads[i].unwrap_or(Rect {
                x: x[i] - widths[i] / 2.0,
                y: top,
                w: widths[i],
                h: heights[i],
            });
            // A destroyed participant stands again where its lifeline ends, the rest below.
            let foot = ends[i].unwrap_or(Rect {
                x: rect.x,
                y: foot_top,
                w: rect.w,
                h: heights[i],
            });
            Lane {
                rect,
                foot,
                text: names[i].clone(),
                lifeline: (x[i], rect.bottom(), foot.y.max(rect.bottom())),
            }
        })
        .collect();
    let mut groups: Vec<(Rect, Option<Placed>, Option<String>)> = seq
        .groups
        .iter()
        .filter(|g| !g.members.is_empty())
        .map(|g| {
            let lo = g
                .members
                .iter()
                .map(|&i| x[i] - widths[i] / 2.0)
                .fold(f64::INFINITY, f64::min)
                - GROUP_PAD;
            let hi = g
                .members
                .iter()
                .map(|&i| x[i] + widths[i] / 2.0)
                .fold(f64::NEG_INFINITY, f64::max)
                + GROUP_PAD;
            let title = label(&g.title, NAME_WRAP * 2.0).map(|b| {
                // (A block has at least one line.)
                let cy = MARGIN + LINE_HEIGHT / 2.0;
                ((lo + hi) / 2.0, cy, b)
            });
            let w = (hi - lo).max(title.as_ref().map_or(0.0, |(_, _, b)| b.width + 12.0));
            (
                Rect {
                    x: (lo + hi) / 2.0 - w / 2.0,
                    y: MARGIN - 4.0,
                    w,
                    h: foot_bottom + 4.0 - (MARGIN - 4.0),
                },
                title,
                g.colour.clone(),
            )
        })
        .collect();
    // A group's title keeps to one line's height: cut to its first line.
    for (_, t, _) in &mut groups {
        if let Some((_, _, b)) = t {
            if let Some(end) = b.text.find('\n') {
                b.text.truncate(end);
            }
            b.height = LINE_HEIGHT;
        }
    }
    // Everything from x = MARGIN.
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    let mut span = |a: f64, b: f64| {
        lo = lo.min(a);
        hi = hi.max(b);
    };
    for h in &out_heads {
        span(h.rect.x, h.rect.right());
    }
    for a in &arrows {
        for p in &a.points {
            span(p.0, p.0);
        }
        if let Some((cx, _, b)) = &a.label {
            span(cx - b.width / 2.0, cx + b.width / 2.0);
        }
        if let Some((cx, _)) = a.badge {
            span(cx - BADGE_R, cx + BADGE_R);
        }
    }
    for (r, _) in &notes {
        span(r.x, r.right());
    }
    for f in &frames {
        span(f.rect.x, f.rect.right());
    }
    for (r, _, _) in &groups {
        span(r.x, r.right());
    }
    if !lo.is_finite() {
        lo = 0.0;
        hi = 100.0;
    }
    let dx = MARGIN - lo;
    for h in &mut out_heads {
        h.rect.shift(dx);
        h.foot.shift(dx);
        h.lifeline.0 += dx;
    }
    for a in &mut arrows {
        for p in &mut a.points {
            p.0 += dx;
        }
        if let Some((cx, _, _)) = &mut a.label {
            *cx += dx;
        }
        if let Some((cx, _)) = &mut a.badge {
            *cx += dx;
        }
    }
    for (r, _) in &mut notes {
        r.shift(dx);
    }
    for f in &mut frames {
        f.rect.shift(dx);
        if let Some((cx, _, _)) = &mut f.label {
            *cx += dx;
        }
        for (_, d) in &mut f.dividers {
            if let Some((cx, _, _)) = d {
                *cx += dx;
            }
        }
    }
    let mut bars = bars;
    for b in &mut bars {
        b.shift(dx);
    }
    for (r, t, _) in &mut groups {
        r.shift(dx);
        if let Some((cx, _, _)) = t {
            *cx += dx;
        }
    }
    Drawing {
        width: hi - lo + 2.0 * MARGIN,
        height: foot_bottom + 4.0 + MARGIN,
        heads: out_heads,
        arrows,
        notes,
        frames,
        bars,
        groups,
    }
}
