//! A gantt chart laid out: a row per task in the order written (as Mermaid draws them), the
//! section names in a column on the left, a time scale from the earliest start to the latest
//! end, each task's bar (or a milestone's diamond) on it with its text inside when it fits and
//! beside it when not, and the axis's ticks (d3's choice of interval, or `tickInterval`).

use super::time::{self, Civil, DAY, HOUR, MINUTE, Ms, SECOND};
use super::{GanttChart, TickUnit};
use crate::diagram::text::{Block, LINE_HEIGHT, width};

/// The time scale's width, px, unless its tick labels need more.
pub const SCALE_W: f64 = 720.0;
/// The widest the scale grows for its tick labels; past it, every other label (or fewer) is
/// shown.
const MAX_SCALE_W: f64 = 1_600.0;
/// Room between two tick labels, px.
const TICK_GAP: f64 = 12.0;
pub const ROW_H: f64 = 30.0;
pub const BAR_H: f64 = 20.0;
pub const MARGIN: f64 = 12.0;
/// The widest a section name is drawn before it wraps.
const SECTION_W: f64 = 170.0;
pub const AXIS_H: f64 = 26.0;
const TITLE_GAP: f64 = 12.0;
/// Most ticks drawn: beyond, d3's own choice is used (as Mermaid does past 10 000).
const MAX_TICKS: usize = 10_000;
/// Room around a label beside its bar.
pub const LABEL_GAP: f64 = 6.0;

/// A box by its top-left corner and size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn new(x: f64, y: f64, w: f64, h: f64) -> Rect {
        Rect { x, y, w, h }
    }

    pub fn right(&self) -> f64 {
        self.x + self.w
    }
}

/// Where a task's text goes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LabelAt {
    Inside,
    Right,
    Left,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TaskBox {
    /// The bar, or the milestone's diamond's bounds.
    pub bounds: Rect,
    pub label: LabelAt,
    /// The text's left end, px, and its width.
    pub label_x: f64,
    pub label_w: f64,
    /// The row's vertical middle.
    pub mid_y: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Laid {
    pub width: f64,
    pub height: f64,
    pub title: Option<Block>,
    /// The section column's width (0 with no section names).
    pub left: f64,
    /// The time scale's left and the rows' top and bottom.
    pub x0: f64,
    pub top: f64,
    pub bottom: f64,
    pub t0: Ms,
    pub t1: Ms,
    /// The time scale's width, px.
    pub scale_w: f64,
    /// Per task of the chart.
    pub tasks: Vec<TaskBox>,
    /// Each section's name wrapped, its rows' top and bottom, and its index (for the band's
    /// shade), in the order they come down the chart.
    pub sections: Vec<(Block, f64, f64, usize)>,
    /// Tick positions, px, and their text.
    pub ticks: Vec<(f64, String)>,
    /// Excluded days shaded: their left and right, px.
    pub excluded: Vec<(f64, f64)>,
}

impl Laid {
    pub fn x(&self, t: Ms) -> f64 {
        self.x0 + (t - self.t0) as f64 / (self.t1 - self.t0).max(1) as f64 * self.scale_w
    }
}

/// d3's `timeFormat` default for the axis: the chart's `axisFormat`, else `%d` for a
/// `dateFormat` of `D`, else `%Y-%m-%d`.
pub fn axis_format(g: &GanttChart) -> &str {
    if !g.axis_format.is_empty() {
        &g.axis_format
    } else if g.date_format == "D" {
        "%d"
    } else {
        "%Y-%m-%d"
    }
}

/// The first moment at or after `t` on the grid of `unit`, `every` apart (d3's
/// `interval.every(n)`: fields divisible by `n`).
fn ceil_to(t: Ms, unit: TickUnit, every: i64, week_start: i64) -> Ms {
    let floor = |t: Ms| -> Ms {
        let c = Civil::of(t);
        match unit {
            TickUnit::Millisecond => t.div_euclid(every) * every,
            TickUnit::Second => t.div_euclid(SECOND) * SECOND,
            TickUnit::Minute => t.div_euclid(MINUTE) * MINUTE,
            TickUnit::Hour => t.div_euclid(HOUR) * HOUR,
            TickUnit::Day => t.div_euclid(DAY) * DAY,
            TickUnit::Week => {
                let day = t.div_euclid(DAY);
                let wd = Civil::weekday(t);
                (day - (wd - week_start).rem_euclid(7)) * DAY
            }
            TickUnit::Month => time::days_from_civil(c.y, c.mo, 1) * DAY,
        }
    };
    let f = floor(t);
    match unit {
        _ if f >= t => f,
        TickUnit::Millisecond => f + every,
        _ => step(f, unit, 1),
    }
}

fn step(t: Ms, unit: TickUnit, n: i64) -> Ms {
    match unit {
        TickUnit::Millisecond => t + n,
        TickUnit::Second => t + n * SECOND,
        TickUnit::Minute => t + n * MINUTE,
        TickUnit::Hour => t + n * HOUR,
        TickUnit::Day => t + n * DAY,
        TickUnit::Week => t + 7 * n * DAY,
        TickUnit::Month => {
            let c = Civil::of(t);
            time::make(c.y, c.mo - 1 + n, 1, 0, 0, 0, 0).unwrap_or(t + 31 * DAY)
        }
    }
}

/// Whether `t` is on `unit`'s grid every `every` (d3's field test).
fn on_grid(t: Ms, unit: TickUnit, every: i64) -> bool {
    if every <= 1 {
        return true;
    }
    let c = Civil::of(t);
    match unit {
        TickUnit::Millisecond => t.rem_euclid(every) == 0,
        TickUnit::Second => c.s % every == 0,
        TickUnit::Minute => c.mi % every == 0,
        TickUnit::Hour => c.h % every == 0,
        TickUnit::Day => (c.d - 1) % every == 0,
        TickUnit::Week => true,
        TickUnit::Month => (c.mo - 1) % every == 0,
    }
}

/// The ticks from `t0` to `t1`: every `every` of `unit`.
fn ticks_every(t0: Ms, t1: Ms, unit: TickUnit, every: i64, week_start: i64) -> Option<Vec<Ms>> {
    let mut out = Vec::new();
    let mut t = ceil_to(
        t0,
        unit,
        if unit == TickUnit::Millisecond {
            every
        } else {
            1
        },
        week_start,
    );
    let stride = if matches!(unit, TickUnit::Week | TickUnit::Millisecond) {
        every
    } else {
        1
    };
    while t <= t1 {
        if on_grid(t, unit, every) || unit == TickUnit::Week {
            out.push(t);
            if out.len() > MAX_TICKS {
                return None;
            }
        }
        t = step(
            t,
            unit,
            if unit == TickUnit::Millisecond {
                1
            } else {
                stride
            },
        );
        if unit == TickUnit::Millisecond {
            t = ceil_to(t, unit, every, week_start);
        }
    }
    Some(out)
}

/// d3's `tickStep` for about `count` ticks from `a` to `b`.
fn tick_step(a: f64, b: f64, count: f64) -> f64 {
    let step0 = (b - a).abs() / count;
    let mut step1 = 10f64.powf(step0.log10().floor());
    let error = step0 / step1;
    if error >= 50f64.sqrt() {
        step1 *= 10.0;
    } else if error >= 10f64.sqrt() {
        step1 *= 5.0;
    } else if error >= 2f64.sqrt() {
        step1 *= 2.0;
    }
    step1
}

/// d3's own choice of ticks for a time scale, about ten.
fn default_ticks(t0: Ms, t1: Ms) -> Vec<Ms> {
    use TickUnit::*;
    const Y: i64 = 365 * DAY;
    let table: [(TickUnit, i64, i64); 17] = [
        (Second, 1, SECOND),
        (Second, 5, 5 * SECOND),
        (Second, 15, 15 * SECOND),
        (Second, 30, 30 * SECOND),
        (Minute, 1, MINUTE),
        (Minute, 5, 5 * MINUTE),
        (Minute, 15, 15 * MINUTE),
        (Minute, 30, 30 * MINUTE),
        (Hour, 1, HOUR),
        (Hour, 3, 3 * HOUR),
        (Hour, 6, 6 * HOUR),
        (Hour, 12, 12 * HOUR),
        (Day, 1, DAY),
        (Day, 2, 2 * DAY),
        (Week, 1, 7 * DAY),
        (Month, 1, 30 * DAY),
        (Month, 3, 90 * DAY),
    ];
    let target = (t1 - t0) as f64 / 10.0;
    let i = table
        .iter()
        .position(|e| e.2 as f64 > target)
        .unwrap_or(table.len());
    if i == table.len() && target >= Y as f64 {
        let k = tick_step(t0 as f64 / Y as f64, t1 as f64 / Y as f64, 10.0).max(1.0) as i64;
        let mut out = Vec::new();
        let mut y = Civil::of(t0).y;
        loop {
            let t = time::days_from_civil(y, 1, 1) * DAY;
            if t > t1 || out.len() > MAX_TICKS {
                break;
            }
            if t >= t0 && y.rem_euclid(k) == 0 {
                out.push(t);
            }
            y += 1;
        }
        return out;
    }
    if i == 0 {
        let k = tick_step(t0 as f64, t1 as f64, 10.0).max(1.0) as i64;
        return ticks_every(t0, t1, Millisecond, k, 0).unwrap_or_default();
    }
    let pick = if i == table.len() {
        table.len() - 1
    } else if target / (table[i - 1].2 as f64) < (table[i].2 as f64) / target {
        i - 1
    } else {
        i
    };
    let (unit, every, _) = table[pick];
    ticks_every(t0, t1, unit, every, 0).unwrap_or_default()
}

/// A run of rows down the chart: its section (an index into `GanttChart::sections`, `None`
/// before the first), its first row and the row after its last.
pub type SectionRows = (Option<usize>, usize, usize);

/// Each task's row, how many rows there are, and each section's run of rows down the chart.
/// A row per task in the order written; in compact mode, as Mermaid places them: sections in
/// the order they first come, and within one, tasks by start (then as written) each on the
/// first row whose last task has ended by its start.
pub fn rows(g: &GanttChart) -> (Vec<usize>, usize, Vec<SectionRows>) {
    let name = |t: &super::Task| t.section.map(|s| g.sections[s].as_str());
    let mut spans = Vec::new();
    if !g.compact {
        let mut k = 0;
        while k < g.tasks.len() {
            let s = g.tasks[k].section;
            let mut e = k;
            while e < g.tasks.len() && g.tasks[e].section == s {
                e += 1;
            }
            spans.push((s, k, e));
            k = e;
        }
        return ((0..g.tasks.len()).collect(), g.tasks.len(), spans);
    }
    let mut groups: Vec<(Option<&str>, Option<usize>, Vec<usize>)> = Vec::new();
    for (k, t) in g.tasks.iter().enumerate() {
        match groups.iter_mut().find(|(n, _, _)| *n == name(t)) {
            Some(group) => group.2.push(k),
            None => groups.push((name(t), t.section, vec![k])),
        }
    }
    let mut row_of = vec![0; g.tasks.len()];
    let mut first = 0;
    for (_, section, mut members) in groups {
        members.sort_by_key(|&k| (g.tasks[k].start, k));
        // Each row's last end so far.
        let mut ends: Vec<Ms> = Vec::new();
        for k in members {
            let t = &g.tasks[k];
            let row = match ends.iter().position(|&end| t.start >= end) {
                Some(r) => r,
                None => {
                    ends.push(Ms::MIN);
                    ends.len() - 1
                }
            };
            ends[row] = t.end;
            row_of[k] = first + row;
        }
        spans.push((section, first, first + ends.len()));
        first += ends.len();
    }
    (row_of, first, spans)
}

/// The chart laid out.
pub fn layout(g: &GanttChart) -> Laid {
    // The chart's title is drawn above the layout, by the chart's frame.
    let title: Option<Block> = None;
    let named: Vec<Block> = g
        .sections
        .iter()
        .map(|s| Block::wrapped(s.trim(), SECTION_W))
        .collect();
    let left = named.iter().map(|b| b.width).fold(0.0, f64::max).max(0.0);
    let left = if left > 0.0 { left + 2.0 * MARGIN } else { 0.0 };
    let (mut t0, mut t1) = (Ms::MAX, Ms::MIN);
    for t in &g.tasks {
        t0 = t0.min(t.start);
        t1 = t1.max(t.end);
    }
    if g.tasks.is_empty() {
        t0 = time::TODAY;
        t1 = time::TODAY + DAY;
    }
    if t1 <= t0 {
        t0 -= DAY / 2;
        t1 = t0 + DAY;
    }
    let title_h = title.as_ref().map_or(0.0, |b| b.height + TITLE_GAP);
    let x0 = MARGIN + left;
    let top = MARGIN + title_h + if g.top_axis { AXIS_H } else { 0.0 };
    let (row_of, row_count, spans) = rows(g);
    let bottom = top + row_count as f64 * ROW_H;
    // The ticks first: the scale is widened until their labels do not run into each other.
    let format = axis_format(g);
    let tick_times = g
        .tick_interval
        .and_then(|(n, unit)| ticks_every(t0, t1, unit, n, g.week_start))
        .unwrap_or_else(|| default_ticks(t0, t1));
    let labels: Vec<String> = tick_times
        .iter()
        .map(|&t| time::d3_format(t, format))
        .collect();
    let widest = labels.iter().map(|l| width(l)).fold(0.0, f64::max);
    let span = (t1 - t0).max(1) as f64;
    let closest = tick_times
        .windows(2)
        .map(|w| (w[1] - w[0]) as f64 / span)
        .fold(f64::INFINITY, f64::min);
    let needed = if closest.is_finite() && closest > 0.0 {
        (widest + TICK_GAP) / closest
    } else {
        SCALE_W
    };
    let scale_w = needed.clamp(SCALE_W, MAX_SCALE_W);
    // Past the widest scale, every `every`-th label only.
    let every = if closest.is_finite() && closest > 0.0 {
        ((widest + TICK_GAP) / (closest * scale_w)).ceil().max(1.0) as usize
    } else {
        1
    };
    let mut laid = Laid {
        width: 0.0,
        height: bottom + AXIS_H + MARGIN,
        title,
        left,
        x0,
        top,
        bottom,
        t0,
        t1,
        scale_w,
        tasks: Vec::with_capacity(g.tasks.len()),
        sections: Vec::new(),
        ticks: Vec::new(),
        excluded: Vec::new(),
    };
    let mut right = x0 + scale_w;
    let mut leftmost = x0;
    for (k, t) in g.tasks.iter().enumerate() {
        let y = top + row_of[k] as f64 * ROW_H;
        let mid_y = y + ROW_H / 2.0;
        let (xs, xe) = (laid.x(t.start), laid.x(t.render_end.unwrap_or(t.end)));
        let bounds = if t.milestone {
            let cx = laid.x(t.start + (t.end - t.start) / 2);
            Rect::new(cx - BAR_H / 2.0, mid_y - BAR_H / 2.0, BAR_H, BAR_H)
        } else {
            Rect::new(xs, mid_y - BAR_H / 2.0, (xe - xs).max(2.0), BAR_H)
        };
        let text = g.chart.nodes[t.node].label.replace('\n', " ");
        let w = width(&text);
        let (label, label_x) = if !t.milestone && w + 2.0 * LABEL_GAP <= bounds.w {
            (LabelAt::Inside, bounds.x + (bounds.w - w) / 2.0)
        } else if bounds.right() + LABEL_GAP + w <= x0 + scale_w + 160.0
            || bounds.x - LABEL_GAP - w < x0
        {
            (LabelAt::Right, bounds.right() + LABEL_GAP)
        } else {
            (LabelAt::Left, bounds.x - LABEL_GAP - w)
        };
        right = right.max(label_x + w).max(bounds.right());
        leftmost = leftmost.min(label_x).min(bounds.x);
        laid.tasks.push(TaskBox {
            bounds,
            label,
            label_x,
            label_w: w,
            mid_y,
        });
    }
    // Sections down the chart: a run of rows each.
    for (s, first, end) in spans {
        if let Some(s) = s {
            laid.sections.push((
                named[s].clone(),
                top + first as f64 * ROW_H,
                top + end as f64 * ROW_H,
                s,
            ));
        }
    }
    // A section's name taller than its rows pushes nothing: it is clipped to its wrap, and
    // rows are tall enough for two lines.
    for s in &mut laid.sections {
        let room = s.2 - s.1;
        if s.0.height > room {
            let lines = ((room / LINE_HEIGHT).floor() as usize).max(1);
            let text: Vec<&str> = s.0.text.split('\n').take(lines).collect();
            s.0 = Block {
                text: text.join("\n"),
                width: s.0.width,
                height: lines as f64 * LINE_HEIGHT,
            };
        }
    }
    laid.excluded = g
        .excluded
        .iter()
        .map(|&(a, b)| (laid.x(a.max(t0)), laid.x(b.min(t1))))
        .filter(|(a, b)| b > a)
        .collect();
    laid.ticks = tick_times
        .iter()
        .zip(labels)
        .enumerate()
        .map(|(k, (&t, label))| {
            (
                laid.x(t),
                if k % every == 0 { label } else { String::new() },
            )
        })
        .collect();
    // Tick labels may reach past the scale's ends.
    for (x, text) in &laid.ticks {
        let half = width(text) / 2.0;
        right = right.max(x + half);
        leftmost = leftmost.min(x - half);
    }
    if leftmost < MARGIN {
        let shift = MARGIN - leftmost;
        laid.shift(shift);
        right += shift;
    }
    let title_w = laid.title.as_ref().map_or(0.0, |b| b.width);
    laid.width = (right + MARGIN).max(title_w + 2.0 * MARGIN);
    laid
}

impl Laid {
    fn shift(&mut self, dx: f64) {
        self.x0 += dx;
        self.left += dx;
        for t in &mut self.tasks {
            t.bounds.x += dx;
            t.label_x += dx;
        }
        for t in &mut self.ticks {
            t.0 += dx;
        }
        for e in &mut self.excluded {
            e.0 += dx;
            e.1 += dx;
        }
    }
}
