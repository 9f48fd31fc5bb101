//! Colours as a sequence diagram writes them (`rect`, `box`): only plain ones pass (a name,
//! `#rgb`, `rgb()`/`rgba()`), read into their parts where the drawing needs them.

/// CSS colour names Mermaid takes as a `box` colour (a common subset; `rgb(…)` and `#…` too),
/// with their red, green, blue and alpha.
const COLOURS: &[(&str, [u8; 4])] = &[
    ("transparent", [0, 0, 0, 0]),
    ("aqua", [0, 255, 255, 255]),
    ("black", [0, 0, 0, 255]),
    ("blue", [0, 0, 255, 255]),
    ("fuchsia", [255, 0, 255, 255]),
    ("gray", [128, 128, 128, 255]),
    ("grey", [128, 128, 128, 255]),
    ("green", [0, 128, 0, 255]),
    ("lime", [0, 255, 0, 255]),
    ("maroon", [128, 0, 0, 255]),
    ("navy", [0, 0, 128, 255]),
    ("olive", [128, 128, 0, 255]),
    ("orange", [255, 165, 0, 255]),
    ("purple", [128, 0, 128, 255]),
    ("red", [255, 0, 0, 255]),
    ("silver", [192, 192, 192, 255]),
    ("teal", [0, 128, 128, 255]),
    ("white", [255, 255, 255, 255]),
    ("yellow", [255, 255, 0, 255]),
    ("aliceblue", [240, 248, 255, 255]),
    ("antiquewhite", [250, 235, 215, 255]),
    ("aquamarine", [127, 255, 212, 255]),
    ("azure", [240, 255, 255, 255]),
    ("beige", [245, 245, 220, 255]),
    ("bisque", [255, 228, 196, 255]),
    ("brown", [165, 42, 42, 255]),
    ("coral", [255, 127, 80, 255]),
    ("cyan", [0, 255, 255, 255]),
    ("gold", [255, 215, 0, 255]),
    ("indigo", [75, 0, 130, 255]),
    ("ivory", [255, 255, 240, 255]),
    ("khaki", [240, 230, 140, 255]),
    ("lavender", [230, 230, 250, 255]),
    ("lightblue", [173, 216, 230, 255]),
    ("lightgray", [211, 211, 211, 255]),
    ("lightgrey", [211, 211, 211, 255]),
    ("lightgreen", [144, 238, 144, 255]),
    ("lightyellow", [255, 255, 224, 255]),
    ("magenta", [255, 0, 255, 255]),
    ("mintcream", [245, 255, 250, 255]),
    ("orchid", [218, 112, 214, 255]),
    ("pink", [255, 192, 203, 255]),
    ("plum", [221, 160, 221, 255]),
    ("salmon", [250, 128, 114, 255]),
    ("skyblue", [135, 206, 235, 255]),
    ("tan", [210, 180, 140, 255]),
    ("tomato", [255, 99, 71, 255]),
    ("turquoise", [64, 224, 208, 255]),
    ("violet", [238, 130, 238, 255]),
    ("wheat", [245, 222, 179, 255]),
];

/// A colour written in the source, when it is a plain one, rewritten from what was read: a
/// colour name of [`COLOURS`], `#` and 3, 4, 6 or 8 hex digits, or `rgb(…)`/`rgba(…)` of three
/// or four plain numbers (each maybe a percentage). Anything else (`hsl(…)`, `var(…)`, a
/// stray character) is not passed on.
pub fn plain_colour(written: &str) -> Option<String> {
    let lower = written.trim().to_ascii_lowercase();
    if COLOURS.iter().any(|(name, _)| *name == lower) {
        return Some(lower);
    }
    if let Some(hex) = lower.strip_prefix('#') {
        let ok = matches!(hex.len(), 3 | 4 | 6 | 8) && hex.bytes().all(|b| b.is_ascii_hexdigit());
        return ok.then_some(lower);
    }
    let (name, args) = if let Some(a) = lower.strip_prefix("rgba(") {
        ("rgba", a)
    } else {
        ("rgb", lower.strip_prefix("rgb(")?)
    };
    let args = args.strip_suffix(')')?;
    let parts: Vec<&str> = args.split(',').map(str::trim).collect();
    let number = |p: &str| {
        let digits = p.strip_suffix('%').unwrap_or(p);
        let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
        !digits.is_empty()
            && digits != "."
            && digits.len() <= 8
            && whole
                .bytes()
                .chain(frac.bytes())
                .all(|b| b.is_ascii_digit())
    };
    if !(3..=4).contains(&parts.len()) || !parts.iter().all(|p| number(p)) {
        return None;
    }
    Some(format!("{name}({})", parts.join(", ")))
}

/// A plain colour (as [`plain_colour`] writes it) as red, green and blue from 0 to 255 and
/// alpha from 0 to 1.
pub fn colour_parts(plain: &str) -> Option<[f64; 4]> {
    if let Some((_, [r, g, b, a])) = COLOURS.iter().find(|(name, _)| *name == plain) {
        return Some([
            f64::from(*r),
            f64::from(*g),
            f64::from(*b),
            f64::from(*a) / 255.0,
        ]);
    }
    if let Some(hex) = plain.strip_prefix('#') {
        let digit = |i: usize| u8::from_str_radix(&hex[i..=i], 16).ok().map(f64::from);
        let pair = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok().map(f64::from);
        return match hex.len() {
            3 => Some([digit(0)? * 17.0, digit(1)? * 17.0, digit(2)? * 17.0, 1.0]),
            4 => Some([
                digit(0)? * 17.0,
                digit(1)? * 17.0,
                digit(2)? * 17.0,
                digit(3)? / 15.0,
            ]),
            6 => Some([pair(0)?, pair(2)?, pair(4)?, 1.0]),
            8 => Some([pair(0)?, pair(2)?, pair(4)?, pair(6)? / 255.0]),
            _ => None,
        };
    }
    let args = plain.split_once('(')?.1.strip_suffix(')')?;
    let mut parts = [0.0, 0.0, 0.0, 1.0];
    for (k, p) in args.split(", ").enumerate().take(4) {
        let (value, full) = match p.strip_suffix('%') {
            Some(v) => (v, 100.0),
            None => (p, if k < 3 { 255.0 } else { 1.0 }),
        };
        let v: f64 = value.parse().ok()?;
        parts[k] = (v / full).min(1.0) * if k < 3 { 255.0 } else { 1.0 };
    }
    Some(parts)
}

/// `(colour, rest)` of a `box` or `rect` line when it starts with a colour.
pub(super) fn leading_colour(s: &str) -> (Option<&str>, &str) {
    let lower = s.to_ascii_lowercase();
    for f in ["rgb(", "rgba(", "hsl(", "hsla("] {
        if lower.starts_with(f)
            && let Some(end) = s.find(')')
        {
            return (Some(&s[..=end]), s[end + 1..].trim());
        }
    }
    let word = s.split_whitespace().next().unwrap_or("");
    let lower = word.to_ascii_lowercase();
    if word.starts_with('#') || COLOURS.iter().any(|(name, _)| *name == lower) {
        return (Some(word), s[word.len()..].trim());
    }
    (None, s)
}
