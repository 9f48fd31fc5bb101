//! Reading gantt charts: dates, durations, `after` / `until`, excluded days, ids, and the
//! statements read but not drawn.

use crate::diagram::gantt::time::{self, DAY, HOUR, Ms, TODAY};
use crate::diagram::gantt::{GanttChart, parse::parse};

fn read(src: &str) -> GanttChart {
    parse(src).expect("a gantt chart").expect("read")
}

fn day(y: i64, m: i64, d: i64) -> Ms {
    time::days_from_civil(y, m, d) * DAY
}

/// Each task's id, start and end.
fn times(g: &GanttChart) -> Vec<(String, Ms, Ms)> {
    g.tasks
        .iter()
        .map(|t| (g.chart.nodes[t.node].id.clone(), t.start, t.end))
        .collect()
}

#[test]
fn ids_are_as_written_else_counted_over_the_tasks_without_one() {
    let g = read(
        "gantt\ndateFormat YYYY-MM-DD\nsection A\nOne : 2024-01-01, 2d\nTwo : b, 2024-01-02, 1d\nThree : 1d\n",
    );
    let ids: Vec<_> = times(&g).into_iter().map(|t| t.0).collect();
    assert_eq!(ids, ["task1", "b", "task2"]);
    // Three starts where Two ends.
    assert_eq!(g.tasks[2].start, day(2024, 1, 3));
    assert_eq!(g.chart.nodes[0].label, "One");
    assert!(g.chart.edges.is_empty());
}

#[test]
fn durations_are_added_as_dayjs_adds_them() {
    let g = read(
        "gantt\ndateFormat YYYY-MM-DD\nA : a, 2024-01-31, 1M\nB : b, 2024-01-01, 1w\nC : c, 2024-01-01, 36h\nD : d, 2024-01-01, 1.5d\nE : e, 2024-01-01, 1d12h\n",
    );
    let t = times(&g);
    // A month from 31 January is the last of February.
    assert_eq!(t[0].2, day(2024, 2, 29));
    assert_eq!(t[1].2, day(2024, 1, 8));
    assert_eq!(t[2].2, day(2024, 1, 2) + 12 * HOUR);
    // Days round to whole ones.
    assert_eq!(t[3].2, day(2024, 1, 3));
    // Mermaid 11 reads no mixed duration: the task ends where it starts.
    assert_eq!(t[4].2, t[4].1);
}

#[test]
fn after_takes_the_latest_end_and_until_the_earliest_start() {
    let g = read(
        "gantt\ndateFormat YYYY-MM-DD\nA : a, 2024-01-01, 3d\nB : b, 2024-01-01, 5d\nC : c, after a b, until d e\nD : d, 2024-01-20, 1d\nE : e, 2024-01-15, 1d\n",
    );
    let t = times(&g);
    assert_eq!(t[2].1, day(2024, 1, 6));
    // `until` reaches forward: the passes over the tasks resolve it.
    assert_eq!(t[2].2, day(2024, 1, 15));
}

#[test]
fn an_after_naming_no_task_starts_on_the_fixed_today() {
    let g = read("gantt\ndateFormat YYYY-MM-DD\nA : a, after nothing, 2d\n");
    assert_eq!(g.tasks[0].start, TODAY);
    assert_eq!(time::dayjs_format(TODAY, "YYYY-MM-DD"), "2026-01-01");
}

#[test]
fn excluded_days_push_the_end_on() {
    // 2024-01-05 is a Friday.
    let src = "gantt\ndateFormat YYYY-MM-DD\nexcludes weekends\nA : a, 2024-01-05, 2d\n";
    let g = read(src);
    assert_eq!(g.tasks[0].end, day(2024, 1, 9));
    // A Friday-and-Saturday weekend: the start day itself is not looked at, as in Mermaid.
    let g = read(&src.replace("excludes weekends", "excludes weekends\nweekend friday"));
    assert_eq!(g.tasks[0].end, day(2024, 1, 8));
    let g = read(&src.replace("weekends", "2024-01-06"));
    assert_eq!(g.tasks[0].end, day(2024, 1, 8));
    let g = read(&src.replace("weekends", "monday"));
    assert_eq!(g.tasks[0].end, day(2024, 1, 7));
    // An end date written as a date is kept.
    let g = read(&src.replace("2d", "2024-01-07"));
    assert_eq!(g.tasks[0].end, day(2024, 1, 7));
}

#[test]
fn inclusive_end_dates_end_a_day_later() {
    let g =
        read("gantt\ndateFormat YYYY-MM-DD\ninclusiveEndDates\nA : a, 2024-01-01, 2024-01-03\n");
    assert_eq!(g.tasks[0].end, day(2024, 1, 4));
}

#[test]
fn date_formats_are_read_strictly_and_times_too() {
    let g = read("gantt\ndateFormat HH:mm\naxisFormat %H:%M\nA : a, 10:30, 90m\n");
    assert_eq!(g.tasks[0].start, TODAY + 10 * HOUR + 30 * 60_000);
    assert_eq!(g.tasks[0].end - g.tasks[0].start, 90 * 60_000);
    assert_eq!(time::parse_strict("2024-1-05", "YYYY-MM-DD"), None);
    assert_eq!(
        time::parse_strict("05.01.2024", "DD.MM.YYYY"),
        Some(day(2024, 1, 5))
    );
    assert_eq!(
        time::d3_format(day(2024, 1, 5), "%a %d %b %Y, w%V"),
        "Fri 05 Jan 2024, w01"
    );
}

#[test]
fn tags_and_milestones_are_read() {
    let g = read(
        "gantt\ndateFormat YYYY-MM-DD\nA : crit, done, a, 2024-01-01, 1d\nM : milestone, m, 2024-01-03, 0d\nB : active, 1d\n",
    );
    assert!(g.tasks[0].crit && g.tasks[0].done && !g.tasks[0].active);
    assert!(g.tasks[1].milestone);
    assert!(g.tasks[2].active);
}

#[test]
fn click_and_today_marker_are_read_and_named_as_not_drawn() {
    let g = read(
        "gantt\ndateFormat YYYY-MM-DD\ntodayMarker stroke-width:5px\nA : a, 2024-01-01, 1d\nclick a href \"https://example.com\"\n",
    );
    assert_eq!(g.chart.ignored, ["click"]);
    assert!(g.chart.notes.iter().any(|n| n.contains("todayMarker")));
    let g = read("gantt\ndateFormat YYYY-MM-DD\ntodayMarker off\nA : a, 2024-01-01, 1d\n");
    assert!(g.chart.notes.is_empty());
}

#[test]
fn what_mermaid_rejects_is_refused_with_a_place() {
    for (src, at) in [
        ("gantt\nA : 1d\n", "A"),
        ("gantt\ndateFormat YYYY-MM-DD\nA : a, 2024-13-45, 1d\n", "A"),
        ("gantt\ndateFormat YYYY-MM-DD\nA task without data\n", "A"),
        ("gantt\ndateFormat YYYY-MM-DD\nA : done\n", "A"),
    ] {
        let e = parse(src).expect("a gantt chart").expect_err(src);
        assert_eq!(e.offset, src.find(at).unwrap_or(0), "{src}");
    }
    assert!(parse("graph TD\nA-->B\n").is_none());
    assert!(parse("ganttish\n").is_none());
}

#[test]
fn text_is_escaped_in_the_drawing() {
    let g = read(
        "gantt\ntitle <b>&\ndateFormat YYYY-MM-DD\nsection <i>\n<script> : a\"', 2024-01-01, 1d\n",
    );
    let f = crate::diagram::svg::Frame {
        id: "d",
        title: "Diagram",
        t: &crate::html::i18n::EN,
        inline_style: false,
    };
    let r = crate::diagram::render_gantt(&g, &f);
    assert!(r.drawn);
    assert!(!r.svg.contains("<script") && !r.svg.contains("<b>") && !r.svg.contains("<i>"));
    assert!(r.svg.contains("&lt;script&gt;") && r.svg.contains("data-node=\"a&quot;&#39;\""));
}

#[test]
fn a_chart_spanning_centuries_of_excluded_days_is_refused_not_walked_for_ever() {
    let mut src = String::from("gantt\ndateFormat YYYY-MM-DD\nexcludes weekends\n");
    for i in 0..50 {
        src.push_str(&format!("T{i} : t{i}, 2000-01-01, 100y\n"));
    }
    let e = parse(&src).expect("a gantt chart").expect_err("too large");
    assert!(e.message.contains("too large"), "{}", e.message);
}
