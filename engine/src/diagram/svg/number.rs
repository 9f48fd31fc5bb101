//! Coordinates as the SVG writes them: one decimal, no trailing `.0`, no `-0`; points and path
//! data built from them.

use crate::diagram::geometry::Pt;

/// A coordinate: one decimal, no trailing `.0`, no `-0`.
#[cfg(test)]
pub(super) fn num(v: f64) -> String {
    let mut s = String::with_capacity(8);
    push_num(&mut s, v);
    s
}

/// `v` in whole tenths, as [`num`] writes it; `None` where it writes 0 instead: layout
/// coordinates are finite and small, anything else is drawn at 0 rather than as `NaN`.
pub(super) fn tenths(v: f64) -> Option<i64> {
    let x = v * 10.0;
    // `f64::round` is a library call on the baseline target. Below 2^52 the cast truncates
    // and the fraction left is exact, so rounding half away from zero by hand gives the same
    // whole number. The rounded value is within 1e15 just when `x` is below 1e15 + 0.5 (exact
    // in an f64): one test for that, for the range the cast needs, and with NaN's for NaN.
    if x.is_nan() || x.abs() >= 1e15 + 0.5 {
        return None;
    }
    let whole = x as i64;
    let fraction = x - whole as f64;
    let t = if fraction >= 0.5 {
        whole + 1
    } else if fraction <= -0.5 {
        whole - 1
    } else {
        whole
    };
    Some(t)
}

/// Appends [`num`]`(v)`, written from whole tenths (integer formatting is much cheaper than
/// float formatting, and diagrams print many numbers) straight into `out`, left to right: no
/// buffer to copy or check afterwards.
pub fn push_num(out: &mut String, v: f64) {
    let Some(t) = tenths(v) else {
        out.push('0');
        return;
    };
    // (A value that rounds to 0 has no sign.)
    if t < 0 {
        out.push('-');
    }
    let u = t.unsigned_abs();
    push_whole(out, u / 10);
    if u % 10 != 0 {
        out.push('.');
        out.push(crate::html::digit(u % 10));
    }
}

/// Appends `n` in decimal. Coordinates are below 10 000: their digits go in one by one, which
/// costs less than formatting into a buffer and copying it.
fn push_whole(out: &mut String, n: u64) {
    use crate::html::digit;
    if n >= 10_000 {
        crate::html::push_decimal(out, n);
        return;
    }
    if n >= 1000 {
        out.push(digit(n / 1000));
    }
    if n >= 100 {
        out.push(digit(n / 100));
    }
    if n >= 10 {
        out.push(digit(n / 10));
    }
    out.push(digit(n));
}

/// Appends a point, `x,y`, each as [`push_num`] writes it.
pub fn push_pt(out: &mut String, p: Pt) {
    push_num(out, p.x);
    out.push(',');
    push_num(out, p.y);
}

/// Appends a path's `d` from a run of commands: each letter (with the space before it, after
/// the first) followed by its points, space-separated.
pub fn push_path(d: &mut String, commands: &[(&'static str, &[Pt])]) {
    for (c, points) in commands {
        d.push_str(c);
        for (k, p) in points.iter().enumerate() {
            if k > 0 {
                d.push(' ');
            }
            push_pt(d, *p);
        }
    }
}

/// The whole pixels a `width` or `height` given to [`start`](super::start) shows as in the viewBox, as a
/// reader of `num(v.ceil())` gets them: 0 for what `num` writes as 0, negative or not finite;
/// saturated at `u32::MAX`.
pub fn pixels(v: f64) -> u32 {
    let whole = v.ceil();
    if tenths(whole).is_some() {
        whole as u32
    } else {
        0
    }
}
