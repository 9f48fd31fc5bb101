//! Mermaid gantt charts (`gantt`): tasks in sections, each from a start (a date in the chart's
//! `dateFormat`, or `after` other tasks) to an end (a date, a duration, or `until` another
//! task), milestones, the `done` / `active` / `crit` tags, and a date axis in the chart's
//! `axisFormat` with `tickInterval`, `excludes` (weekends, weekdays, dates) and `topAxis`.
//!
//! A gantt chart is kept with its tasks as a flowchart's nodes (`GanttChart::chart`, no
//! edges: Mermaid draws no line for an `after`, and contract §3.1 names no gantt edge), each
//! task by Mermaid's own id (as written, else `task1`, `task2`, … counting the tasks written
//! without one), so comments, the answers and the export work on it as on a flowchart's.
//!
//! - `time`: dates as Mermaid reads them (dayjs's strict formats, durations) and d3's axis
//!   format;
//! - `parse`: the source into the model, every start and end computed as Mermaid's task
//!   database computes them;
//! - `layout`: a row per task, the time scale and the axis's ticks;
//! - `draw`: the SVG, and `describe` the chart in words.

pub mod describe;
pub mod draw;
pub mod layout;
pub mod parse;
pub mod time;

use crate::diagram::flowchart::Flowchart;
use time::Ms;

/// Most tasks one chart draws: a row each, and beyond this the chart would not fit a page.
pub const MAX_TASKS: usize = 1_000;

/// A gantt chart: its tasks as a flowchart's nodes, and what the drawing needs beyond them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GanttChart {
    /// One node per task id, in the order first written (no edges). `title` is the chart's.
    pub chart: Flowchart,
    /// Every task in source order, each naming its node.
    pub tasks: Vec<Task>,
    /// Section names in the order written (as Mermaid keeps them, spaces and all).
    pub sections: Vec<String>,
    /// `dateFormat`, trimmed.
    pub date_format: String,
    /// `axisFormat`, trimmed; empty when not given.
    pub axis_format: String,
    /// `tickInterval`: every how many of which unit.
    pub tick_interval: Option<(i64, TickUnit)>,
    /// `weekday`: the day weeks start on for weekly ticks, 0 Sunday … 6 Saturday.
    pub week_start: i64,
    /// `topAxis`: the axis above the tasks as well as below.
    pub top_axis: bool,
    /// `displayMode: compact` (front matter or `%%{init}%%`): within a section, tasks that do
    /// not overlap in time share a row.
    pub compact: bool,
    /// The runs of excluded days within the chart's span, each from its first day's start to
    /// its last day's end (shaded, as Mermaid shades them; none past five years).
    pub excluded: Vec<(Ms, Ms)>,
}

/// A `tickInterval`'s unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TickUnit {
    Millisecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
}

/// One task, with its times as Mermaid computes them.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// Its node in `GanttChart::chart`.
    pub node: usize,
    /// The section it is in (an index into `GanttChart::sections`); `None` before the first.
    pub section: Option<usize>,
    /// Its text as written (the node's label is this, trimmed).
    pub text: String,
    pub start: Ms,
    pub end: Ms,
    /// Where the bar is drawn to when excluded days at its end are skipped (Mermaid's
    /// `renderEndTime`).
    pub render_end: Option<Ms>,
    pub done: bool,
    pub active: bool,
    pub crit: bool,
    pub milestone: bool,
    /// `vert`: a vertical marker line at its start.
    pub vert: bool,
}

#[cfg(test)]
mod tests {
    mod compact;
    mod corpus;
    mod parse;
}
