//! Colours as a sequence diagram writes them (`rect`, `box`): read with the shared colour
//! grammar (`crate::diagram::colour`) and written back from what was read.

use crate::diagram::colour::Colour;

/// A colour written in the source, rewritten from what was read (`#rrggbb`, or `rgba(…)` when
/// it is see-through); anything the grammar does not read (`var(…)`, a stray character) is
/// not passed on.
pub fn plain_colour(written: &str) -> Option<String> {
    Colour::parse(written).map(|c| c.css())
}

/// A colour (as [`plain_colour`] writes it) as red, green and blue from 0 to 255 and alpha
/// from 0 to 1.
pub fn colour_parts(plain: &str) -> Option<[f64; 4]> {
    let c = Colour::parse(plain)?;
    Some([f64::from(c.r), f64::from(c.g), f64::from(c.b), c.a])
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
    if word.starts_with('#') || Colour::parse(word).is_some() {
        return (Some(word), s[word.len()..].trim());
    }
    (None, s)
}
