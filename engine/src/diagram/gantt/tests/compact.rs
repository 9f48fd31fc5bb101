//! `displayMode: compact`: where it is read from, which tasks share a row (as Mermaid's
//! renderer places them), and dates written with month names.

use crate::diagram::gantt::layout::{self, ROW_H};
use crate::diagram::gantt::time::{self, DAY, Ms};
use crate::diagram::gantt::{GanttChart, parse::parse};

fn read(src: &str) -> GanttChart {
    parse(src).expect("a gantt chart").expect("read")
}

fn day(y: i64, m: i64, d: i64) -> Ms {
    time::days_from_civil(y, m, d) * DAY
}

const TASKS: &str = "gantt\ndateFormat YYYY-MM-DD\nsection Build\nA : a, 2024-01-01, 3d\nB : b, 2024-01-02, 3d\nC : c, 2024-01-04, 2d\nD : d, 2024-01-06, 1d\nsection Ship\nE : e, 2024-01-01, 1d\nF : f, 2024-01-03, 1d\n";

#[test]
fn compact_mode_is_read_from_the_front_matter_config_and_from_init() {
    let config = format!("---\nconfig:\n  gantt:\n    displayMode: compact\n---\n{TASKS}");
    assert!(read(&config).compact);
    // The top-level key Mermaid still reads, indented, with a comment after it.
    let legacy = format!("---\n  title: Plan\n  displayMode: compact  # gantt only\n---\n{TASKS}");
    let g = read(&legacy);
    assert!(g.compact);
    assert_eq!(g.chart.title.as_deref(), Some("Plan"));
    let init = format!("%%{{init: {{\"gantt\": {{\"displayMode\": \"compact\"}}}}}}%%\n{TASKS}");
    assert!(read(&init).compact);
    assert!(!read(TASKS).compact);
    // Another kind's setting, or another value, is not compact mode.
    let other = format!("---\nconfig:\n  flowchart:\n    displayMode: compact\n---\n{TASKS}");
    assert!(!read(&other).compact);
    let off = format!("---\ndisplayMode: standard\n---\n{TASKS}");
    assert!(!read(&off).compact);
}

#[test]
fn in_compact_mode_tasks_that_do_not_overlap_share_a_row_within_their_section() {
    let (rows, count, spans) =
        layout::rows(&read(&format!("---\ndisplayMode: compact\n---\n{TASKS}")));
    // A (1–4), B (2–5) overlap; C starts when A ends and takes A's row; D starts when C ends
    // (C ends on the 6th) and takes the same row. E and F never overlap: one row below.
    assert_eq!(rows, [0, 1, 0, 0, 2, 2]);
    assert_eq!(count, 3);
    assert_eq!(spans, [(Some(0), 0, 2), (Some(1), 2, 3)]);
    // Without it, a row per task in the order written.
    let (rows, count, _) = layout::rows(&read(TASKS));
    assert_eq!(rows, [0, 1, 2, 3, 4, 5]);
    assert_eq!(count, 6);
}

#[test]
fn compact_rows_group_a_section_written_twice_and_sort_by_start() {
    let src = "---\ndisplayMode: compact\n---\ngantt\ndateFormat YYYY-MM-DD\nsection X\nLate : l, 2024-01-10, 2d\nsection Y\nY1 : y, 2024-01-01, 30d\nsection X\nEarly : e, 2024-01-01, 3d\nOverlap : o, 2024-01-02, 2d\n";
    let (rows, count, spans) = layout::rows(&read(src));
    // X's tasks by start: Early (row 0), Overlap (row 1), Late (row 0 again, after Early).
    assert_eq!(rows, [0, 2, 0, 1]);
    assert_eq!(count, 3);
    assert_eq!(spans.len(), 2);
}

#[test]
fn a_compact_chart_is_shorter_and_its_bars_share_rows_without_overlapping() {
    let g = read(&format!("---\ndisplayMode: compact\n---\n{TASKS}"));
    let laid = layout::layout(&g);
    let full = layout::layout(&read(TASKS));
    assert!(((full.bottom - full.top) - (laid.bottom - laid.top) - 3.0 * ROW_H).abs() < 1e-9);
    for (i, a) in laid.tasks.iter().enumerate() {
        for b in &laid.tasks[i + 1..] {
            let same_row = (a.mid_y - b.mid_y).abs() < 1e-9;
            let apart =
                a.bounds.right() <= b.bounds.x + 1e-9 || b.bounds.right() <= a.bounds.x + 1e-9;
            assert!(!same_row || apart, "bars in one row overlap: {a:?} {b:?}");
        }
    }
    // The section bands follow the rows: Build two rows, Ship one.
    let bands: Vec<f64> = laid.sections.iter().map(|s| (s.2 - s.1) / ROW_H).collect();
    assert_eq!(bands, [2.0, 1.0]);
}

#[test]
fn dates_with_month_names_are_read_as_dayjs_reads_them() {
    let g = read(
        "gantt\ndateFormat D MMMM YYYY\naxisFormat %d %b\nA : a, 3 January 2024, 2d\nB : b, 28 February 2024, 2d\n",
    );
    assert_eq!(
        (g.tasks[0].start, g.tasks[0].end),
        (day(2024, 1, 3), day(2024, 1, 5))
    );
    assert_eq!(g.tasks[1].end, day(2024, 3, 1));
    let g = read("gantt\ndateFormat MMM D YYYY\nA : a, Mar 5 2024, 1d\n");
    assert_eq!(g.tasks[0].start, day(2024, 3, 5));
    assert_eq!(
        time::d3_format(day(2024, 3, 5), "%d %b, %B"),
        "05 Mar, March"
    );
}
