//! The history chart of `benches/RESULTS.md`: the cold-render ratios (20 KB, typical and dense
//! documents, against plain comrak) and the server's throughput ratios (cached and uncached
//! renders, as shares of `/healthz`), drawn as an SVG from the file's own tables.
//!
//! `cargo run -p passback-benches --example chart` writes `benches/history.svg`; a test fails
//! when the committed chart is not what the tables give, so a new row comes with its chart.

use std::fmt::Write;

/// One run: where it stands in its table, its commit, and its figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub run: usize,
    pub commit: String,
    pub value: f64,
}

/// The series the chart draws, read from the tables.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    /// Cold render of the typical 20 KB document over plain comrak's.
    pub typical: Vec<Point>,
    /// Cold render of the dense 20 KB document over plain comrak's.
    pub dense: Vec<Point>,
    /// Cached renders per second as a percentage of `/healthz`'s.
    pub cached: Vec<Point>,
    /// Uncached renders per second as a percentage of `/healthz`'s.
    pub uncached: Vec<Point>,
    /// Rows in the cold-render and throughput tables.
    pub ratio_rows: usize,
    pub throughput_rows: usize,
}

/// The rows of the Markdown table that follows the heading starting with `heading`: each row's
/// cells, trimmed, header and separator left out.
fn table_rows<'a>(markdown: &'a str, heading: &str) -> Vec<Vec<&'a str>> {
    let mut lines = markdown.lines().skip_while(|l| !l.starts_with(heading));
    let _ = lines.next();
    lines
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim()
                .trim_matches('|')
                .split('|')
                .map(str::trim)
                .collect()
        })
        .collect()
}

/// The number after the last `= ` and before `×` in a cell such as
/// `typical 288 µs / 231 µs = 1.25×`.
fn ratio_of(cell: &str) -> Option<f64> {
    let (_, after) = cell.rsplit_once("= ")?;
    after.split('×').next()?.trim().parse().ok()
}

/// The percentage a throughput cell gives: its `median N%` if it says one, or else the median
/// of the percentages in its first parenthesis (up to a `;`): `(67%)`, `(61–72%)`,
/// `(76%, 81%, 71%)`.
fn share_of(cell: &str) -> Option<f64> {
    if let Some((_, after)) = cell.split_once("median ") {
        return after.split('%').next()?.trim().parse().ok();
    }
    let start = cell.find('(')?;
    let group = &cell[start + 1..];
    let group = group.split([')', ';']).next()?;
    if !group.contains('%') {
        return None;
    }
    let mut numbers: Vec<f64> = group
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect();
    if numbers.is_empty() {
        return None;
    }
    numbers.sort_by(f64::total_cmp);
    let n = numbers.len();
    Some(if n % 2 == 1 {
        numbers[n / 2]
    } else {
        (numbers[n / 2 - 1] + numbers[n / 2]) / 2.0
    })
}

/// The first word of a commit cell (`4486e13 (load.sh …)` → `4486e13`).
fn commit_of(cell: &str) -> String {
    cell.split_whitespace().next().unwrap_or("").to_string()
}

/// Reads the two history tables of `benches/RESULTS.md`.
pub fn history(results: &str) -> History {
    let mut h = History::default();
    let ratios = table_rows(results, "## Cold render vs plain comrak");
    h.ratio_rows = ratios.len();
    for (run, row) in ratios.iter().enumerate() {
        // date | commit | 2 KB | 20 KB | 200 KB | note
        let Some(cell) = row.get(3) else { continue };
        let Some(value) = ratio_of(cell) else {
            continue;
        };
        let point = Point {
            run,
            commit: commit_of(row[1]),
            value,
        };
        // Before the typical family existed, the rows name no family: they are dense.
        if cell.starts_with("typical") {
            h.typical.push(point);
        } else {
            h.dense.push(point);
        }
    }
    let throughput = table_rows(results, "## Server throughput");
    h.throughput_rows = throughput.len();
    for (run, row) in throughput.iter().enumerate() {
        // date | commit | healthz | cached render | uncached render
        for (column, series) in [(3, &mut h.cached), (4, &mut h.uncached)] {
            if let Some(value) = row.get(column).and_then(|c| share_of(c)) {
                series.push(Point {
                    run,
                    commit: commit_of(row[1]),
                    value,
                });
            }
        }
    }
    h
}

const WIDTH: f64 = 760.0;
const PANEL: f64 = 230.0;
const LEFT: f64 = 60.0;
const RIGHT: f64 = 150.0;
const TOP: f64 = 40.0;
const GAP: f64 = 80.0;

/// One panel: its title, its y scale and guide lines, and its series.
struct Panel<'a> {
    title: &'a str,
    top: f64,
    runs: usize,
    /// Value → height in [0, 1].
    scale: &'a dyn Fn(f64) -> f64,
    ticks: &'a [(f64, &'a str)],
    targets: &'a [(f64, &'a str)],
    series: [(&'a str, &'a str, &'a [Point]); 2],
    /// A figure as the legend and the tooltips quote it.
    label: &'a dyn Fn(f64) -> String,
}

/// Numbers with at most one decimal, so the file is the same on every machine.
fn n(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    if r.fract() == 0.0 {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

impl Panel<'_> {
    fn x(&self, run: usize) -> f64 {
        let span = (self.runs.max(2) - 1) as f64;
        LEFT + (WIDTH - LEFT - RIGHT) * run as f64 / span
    }

    fn y(&self, value: f64) -> f64 {
        self.top + PANEL * (1.0 - (self.scale)(value).clamp(0.0, 1.0))
    }

    fn draw(&self, out: &mut String) {
        let (x0, x1) = (LEFT, WIDTH - RIGHT);
        let (y0, y1) = (self.top, self.top + PANEL);
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}" class="title">{}</text>"#,
            n(x0),
            n(y0 - 12.0),
            escape(self.title)
        );
        let _ = writeln!(
            out,
            r#"<rect x="{}" y="{}" width="{}" height="{}" class="frame"/>"#,
            n(x0),
            n(y0),
            n(x1 - x0),
            n(PANEL)
        );
        for &(value, label) in self.ticks {
            let y = n(self.y(value));
            let _ = writeln!(
                out,
                r#"<line x1="{}" y1="{y}" x2="{}" y2="{y}" class="grid"/><text x="{}" y="{y}" dy="4" class="tick">{}</text>"#,
                n(x0),
                n(x1),
                n(x0 - 6.0),
                escape(label)
            );
        }
        for &(value, label) in self.targets {
            let y = n(self.y(value));
            let _ = writeln!(
                out,
                r#"<line x1="{}" y1="{y}" x2="{}" y2="{y}" class="target"/><text x="{}" y="{y}" dy="4" class="note">{}</text>"#,
                n(x0),
                n(x1),
                n(x1 + 6.0),
                escape(label)
            );
        }
        for (i, &(name, class, points)) in self.series.iter().enumerate() {
            if points.is_empty() {
                continue;
            }
            let path: Vec<String> = points
                .iter()
                .map(|p| format!("{},{}", n(self.x(p.run)), n(self.y(p.value))))
                .collect();
            let _ = writeln!(
                out,
                r#"<polyline points="{}" class="line {class}"/>"#,
                path.join(" ")
            );
            for p in points {
                let _ = writeln!(
                    out,
                    r#"<circle cx="{}" cy="{}" r="2.5" class="dot {class}"><title>{} {}: {}</title></circle>"#,
                    n(self.x(p.run)),
                    n(self.y(p.value)),
                    escape(&p.commit),
                    escape(name),
                    (self.label)(p.value)
                );
            }
            let last = points.last().expect("not empty");
            let ly = n(y0 + 16.0 + 18.0 * i as f64);
            let _ = writeln!(
                out,
                r#"<line x1="{}" y1="{ly}" x2="{}" y2="{ly}" class="line {class}"/><text x="{}" y="{ly}" dy="4" class="legend">{} (last {})</text>"#,
                n(x1 + 6.0),
                n(x1 + 22.0),
                n(x1 + 26.0),
                escape(name),
                (self.label)(last.value)
            );
        }
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}" class="axis">runs in table order, oldest first ({} rows)</text>"#,
            n(x0),
            n(y1 + 18.0),
            self.runs
        );
    }
}

/// Two decimals, for the figures the tooltips and the legend quote.
fn n2(x: f64) -> String {
    format!("{:.2}", (x * 100.0).round() / 100.0)
}

/// The chart of `history`, as the SVG file's text.
pub fn svg(h: &History) -> String {
    let height = TOP + PANEL + GAP + PANEL + 40.0;
    let mut out = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" font-family="sans-serif" font-size="12">
<desc>Generated by benches/examples/chart.rs from the tables of benches/RESULTS.md; do not edit.</desc>
<style>
.title {{ font-size: 14px; font-weight: bold; }}
.frame {{ fill: #fff; stroke: #999; }}
.grid {{ stroke: #e4e4e4; }}
.tick {{ text-anchor: end; fill: #444; }}
.target {{ stroke: #b00; stroke-dasharray: 5 4; }}
.note {{ fill: #b00; }}
.axis {{ fill: #666; }}
.line {{ fill: none; stroke-width: 2; }}
.a {{ stroke: #1f5fa8; fill: #1f5fa8; }}
.b {{ stroke: #d9822b; fill: #d9822b; }}
polyline.a, polyline.b, line.a, line.b {{ fill: none; }}
</style>
<rect width="100%" height="100%" fill="#fff"/>
"##,
        w = n(WIDTH),
        h = n(height)
    );
    // A log scale from 1× to 12×: the early 4–10× runs and today's 1.2–2.3× both read.
    let log = |v: f64| (v.max(1.0).ln()) / 12f64.ln();
    Panel {
        title: "Cold render, 20 KB, passback ÷ plain comrak (criterion medians)",
        top: TOP,
        runs: h.ratio_rows,
        scale: &log,
        ticks: &[
            (1.0, "1×"),
            (1.3, "1.3×"),
            (2.0, "2×"),
            (3.0, "3×"),
            (5.0, "5×"),
            (10.0, "10×"),
        ],
        targets: &[(1.3, "typical target"), (1.6, "dense target")],
        series: [("typical", "a", &h.typical), ("dense", "b", &h.dense)],
        label: &|v| format!("{}×", n2(v)),
    }
    .draw(&mut out);
    let linear = |v: f64| v / 100.0;
    Panel {
        title: "Renders per second as a share of /healthz (benches/load.sh)",
        top: TOP + PANEL + GAP,
        runs: h.throughput_rows,
        scale: &linear,
        ticks: &[
            (0.0, "0%"),
            (25.0, "25%"),
            (50.0, "50%"),
            (75.0, "75%"),
            (100.0, "100%"),
        ],
        targets: &[(60.0, "cached target"), (25.0, "uncached target")],
        series: [("cached", "a", &h.cached), ("uncached", "b", &h.uncached)],
        label: &|v| format!("{}%", n(v)),
    }
    .draw(&mut out);
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_give_their_figures() {
        assert_eq!(ratio_of("typical 288 µs / 231 µs = 1.25×"), Some(1.25));
        assert_eq!(ratio_of("1.64 ms / 194 µs = 8.5×"), Some(8.5));
        assert_eq!(ratio_of("n/a"), None);
        assert_eq!(share_of("36,503 (67%)"), Some(67.0));
        assert_eq!(share_of("52,583–55,682 (61–72%)"), Some(66.5));
        assert_eq!(share_of("46,594 (64%, 64%, 62%)"), Some(64.0));
        assert_eq!(
            share_of("21,155 (22%, 21%, 21%, 24%, 22%; 18,889–21,155 req/s)"),
            Some(22.0)
        );
        assert_eq!(
            share_of("59,104–68,042 (median 71%; 64, 71, 67%)"),
            Some(71.0)
        );
        assert_eq!(share_of("54,340 req/s"), None);
    }

    #[test]
    fn tables_are_read_under_their_headings() {
        let md = "# R\n\n## Cold render vs plain comrak (ratio)\n\n| date | commit | 2 KB | 20 KB | 200 KB | note |\n|---|---|---|---|---|---|\n| d | abc | x | 1 / 1 = 4.5× | y | early |\n| d | def | x | typical 2 / 1 = 1.25× | y | |\n| d | def | x | dense 3 / 1 = 2.30× | y | |\n\n## Server throughput (load)\n\n| date | commit | healthz | cached | uncached |\n|---|---|---|---|---|\n| d | 123 (5 s) | 1 req/s | 2 (67%) | 3 (10%) |\n";
        let h = history(md);
        assert_eq!(h.ratio_rows, 3);
        assert_eq!(h.throughput_rows, 1);
        let values = |s: &[Point]| s.iter().map(|p| (p.run, p.value)).collect::<Vec<_>>();
        assert_eq!(values(&h.dense), [(0, 4.5), (2, 2.3)]);
        assert_eq!(values(&h.typical), [(1, 1.25)]);
        assert_eq!(values(&h.cached), [(0, 67.0)]);
        assert_eq!(values(&h.uncached), [(0, 10.0)]);
        assert_eq!(h.cached[0].commit, "123");
        let svg = svg(&h);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches("<polyline").count(), 4);
    }
}
