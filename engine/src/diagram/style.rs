//! Authors' styles (`style`, `classDef`, `linkStyle`, a theme's variables): the CSS
//! declarations a diagram may carry, read into the few properties drawn — fill, stroke,
//! stroke width and dash, text colour — and resolved into the colours an element is written
//! with. Every value is written from what was read (numbers, a [`Colour`]), never copied from
//! the source, and as a presentation attribute: the page's strict CSP allows no `style`.
//!
//! Shared by every diagram kind.

use super::colour::Colour;

/// Paint for a fill or a stroke: a colour or `none`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Paint {
    None,
    Colour(Colour),
}

/// The properties an author set, each when set.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Style {
    pub fill: Option<Paint>,
    pub stroke: Option<Paint>,
    /// px, 0 to [`MAX_STROKE_WIDTH`].
    pub stroke_width: Option<f64>,
    /// Dash and gap lengths, px; empty for `none`.
    pub dash: Option<Vec<f64>>,
    /// The text's colour (`color`).
    pub color: Option<Colour>,
}

/// Widest stroke drawn, px.
pub const MAX_STROKE_WIDTH: f64 = 12.0;
/// Most numbers in a dash pattern, and the longest dash or gap, px.
const MAX_DASHES: usize = 8;
const MAX_DASH: f64 = 100.0;

/// The properties drawn, for a warning's words.
pub const DRAWN: &str = "fill, stroke, stroke-width, stroke-dasharray and color";

impl Style {
    pub fn is_empty(&self) -> bool {
        *self == Style::default()
    }

    /// `other`'s properties over these.
    pub fn apply(&mut self, other: &Style) {
        if other.fill.is_some() {
            self.fill = other.fill;
        }
        if other.stroke.is_some() {
            self.stroke = other.stroke;
        }
        if other.stroke_width.is_some() {
            self.stroke_width = other.stroke_width;
        }
        if other.dash.is_some() {
            self.dash.clone_from(&other.dash);
        }
        if other.color.is_some() {
            self.color = other.color;
        }
    }
}

/// `fill:#f9f,stroke:#333,stroke-width:4px`: the declarations read into a [`Style`], and
/// what was not applied, for a warning: a property not drawn (by its name, as written when it
/// is a plain name) or a value not read (`fill` with a value that is not a colour).
pub fn declarations(text: &str) -> (Style, Vec<String>) {
    let mut style = Style::default();
    let mut skipped = Vec::new();
    for decl in split_top_level(text) {
        let decl = decl.trim();
        if decl.is_empty() {
            continue;
        }
        let Some((name, value)) = decl.split_once(':') else {
            skipped.push(format!("`{}`", plain_name(decl)));
            continue;
        };
        let name = name.trim().to_ascii_lowercase();
        let value = value.trim();
        let value = value
            .strip_suffix("!important")
            .map_or(value, str::trim_end);
        let ok = match name.as_str() {
            "fill" | "background" | "background-color" => {
                paint(value).map(|p| style.fill = Some(p))
            }
            "stroke" | "border-color" => paint(value).map(|p| style.stroke = Some(p)),
            "stroke-width" => length(value, MAX_STROKE_WIDTH).map(|w| style.stroke_width = Some(w)),
            "stroke-dasharray" => dashes(value).map(|d| style.dash = Some(d)),
            "color" => Colour::parse(value).map(|c| style.color = Some(c)),
            _ => {
                skipped.push(format!("`{}`", plain_name(&name)));
                continue;
            }
        };
        if ok.is_none() {
            skipped.push(format!(
                "`{}` (its value is not one this engine reads)",
                plain_name(&name)
            ));
        }
    }
    (style, skipped)
}

/// A property's name as a warning shows it: letters, digits and `-` only, at most 40.
fn plain_name(name: &str) -> String {
    let n: String = name
        .trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .take(40)
        .collect();
    if n.is_empty() { "?".into() } else { n }
}

/// The pieces between top-level `,` and `;` (not those inside `rgb(…)`).
fn split_top_level(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0u32;
    let mut start = 0;
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            b',' | b';' if depth == 0 => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out
}

fn paint(value: &str) -> Option<Paint> {
    if value.eq_ignore_ascii_case("none") {
        return Some(Paint::None);
    }
    Colour::parse(value).map(Paint::Colour)
}

/// A length in px (`4`, `4px`, `1.5`), 0 to `max`.
fn length(value: &str, max: f64) -> Option<f64> {
    let v = value.trim();
    let v = v.strip_suffix("px").unwrap_or(v).trim();
    let ok = !v.is_empty()
        && v.len() <= 10
        && v.bytes().filter(|&b| b == b'.').count() <= 1
        && v.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && v.bytes().any(|b| b.is_ascii_digit());
    let n: f64 = if ok { v.parse().ok()? } else { return None };
    Some(n.min(max))
}

/// `5 5`, `5,5`, `5px 3px`, `none`.
fn dashes(value: &str) -> Option<Vec<f64>> {
    if value.eq_ignore_ascii_case("none") {
        return Some(Vec::new());
    }
    let parts: Vec<&str> = value
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|p| !p.is_empty())
        .collect();
    if parts.is_empty() || parts.len() > MAX_DASHES {
        return None;
    }
    parts.iter().map(|p| length(p, MAX_DASH)).collect()
}

/// What the page behind a diagram may be: the light theme's and the dark theme's backgrounds.
const PAGE_LIGHT: Colour = Colour::rgb(0xffffff);
const PAGE_DARK: Colour = Colour::rgb(0x0d1117);
/// The text colours chosen between: the light theme's text and white, or black where
/// neither reads.
const TEXT_DARK: Colour = Colour::rgb(0x1f2328);
const TEXT_LIGHT: Colour = Colour::rgb(0xffffff);
const TEXT_BLACK: Colour = Colour::rgb(0x000000);
/// WCAG AA for normal text.
pub const AA: f64 = 4.5;

/// An authored box's colours, ready to write: every value from numbers this module chose or
/// read. Written on an element marked `pb-d-authored`, which the stylesheet leaves alone, so
/// the colours hold in the dark theme too.
#[derive(Debug, Clone, PartialEq)]
pub struct Painted {
    pub fill: String,
    pub stroke: String,
    pub stroke_width: String,
    pub dash: Option<String>,
    /// The text's colour: the author's when it keeps AA contrast on the fill, else dark or
    /// light text, whichever contrasts more.
    pub text: String,
}

/// The colours to draw a box an author styled with, over the theme's light `fill` and
/// `stroke` and `width` where the author set none: `None` when the author set nothing.
pub fn painted(style: &Style, fill: Colour, stroke: Colour, width: f64) -> Option<Painted> {
    if style.is_empty() {
        return None;
    }
    // A see-through fill is written as it looks on the light page, so the text chosen for
    // it reads the same in either theme.
    let face = match style.fill {
        None => Some(fill),
        Some(Paint::None) => None,
        Some(Paint::Colour(c)) if c.a == 0.0 => None,
        Some(Paint::Colour(c)) => Some(c.over(PAGE_LIGHT)),
    };
    let text = match face {
        Some(face) => pick_text(style.color, &[face]),
        None => pick_text(style.color, &[PAGE_LIGHT, PAGE_DARK]),
    };
    let stroke = match style.stroke {
        None => stroke.css(),
        Some(Paint::None) => "none".into(),
        Some(Paint::Colour(c)) => c.css(),
    };
    let w = short(style.stroke_width.unwrap_or(width));
    Some(Painted {
        fill: face.map_or_else(|| "none".into(), |c| c.css()),
        stroke,
        stroke_width: w,
        dash: style
            .dash
            .as_ref()
            .filter(|d| !d.is_empty())
            .map(|d| d.iter().map(|v| short(*v)).collect::<Vec<_>>().join(" ")),
        text: text.css(),
    })
}

/// A length as few digits write it: two places at most (`1.5`, `4`).
fn short(v: f64) -> String {
    let r = (v * 100.0).round() / 100.0;
    format!("{r}")
}

/// The author's text colour when it has AA contrast on every one of `behind`, else the one
/// of dark and light text whose worst contrast there is the better.
pub fn pick_text(author: Option<Colour>, behind: &[Colour]) -> Colour {
    let worst = |c: Colour| {
        behind
            .iter()
            .map(|b| c.over(*b).contrast(*b))
            .fold(f64::INFINITY, f64::min)
    };
    if let Some(c) = author
        && worst(c) >= AA
    {
        return c;
    }
    let best = if worst(TEXT_DARK) >= worst(TEXT_LIGHT) {
        TEXT_DARK
    } else {
        TEXT_LIGHT
    };
    // On a mid-tone (pure red) neither reaches AA; black or white always does.
    if worst(best) >= AA || worst(TEXT_BLACK) <= worst(best) {
        best
    } else {
        TEXT_BLACK
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_drawn_properties_are_read_and_the_rest_named() {
        let (s, skipped) = declarations(
            "fill:#f9f,stroke:rgb(1, 2, 3),stroke-width:4px, stroke-dasharray: 5 5;color:white,font-size:20px,fill-opacity:0.5",
        );
        assert_eq!(s.fill, Some(Paint::Colour(Colour::rgb(0xff99ff))));
        assert_eq!(s.stroke, Some(Paint::Colour(Colour::rgb(0x010203))));
        assert_eq!(s.stroke_width, Some(4.0));
        assert_eq!(s.dash, Some(vec![5.0, 5.0]));
        assert_eq!(s.color, Some(Colour::rgb(0xffffff)));
        assert_eq!(skipped, ["`font-size`", "`fill-opacity`"]);
        let (s, skipped) = declarations("fill:url(#x),stroke-width:1e9,stroke:none");
        assert_eq!(s.fill, None);
        assert_eq!(s.stroke, Some(Paint::None));
        assert_eq!(skipped.len(), 2, "{skipped:?}");
        assert!(skipped[0].starts_with("`fill`"));
    }

    #[test]
    fn text_keeps_aa_contrast_on_the_authors_fill() {
        let theme = (Colour::rgb(0xeef4ff), Colour::rgb(0x4a6fa5), 1.5);
        let paint = |decl: &str| {
            let (s, _) = declarations(decl);
            painted(&s, theme.0, theme.1, theme.2).expect("styled")
        };
        // Dark fill, no text colour: light text.
        assert_eq!(paint("fill:#8b0000").text, "#ffffff");
        // Light fill: dark text.
        assert_eq!(paint("fill:#f9f").text, "#1f2328");
        // The author's colour, kept where it reads.
        assert_eq!(paint("fill:#000,color:yellow").text, "#ffff00");
        // And replaced where it does not.
        assert_eq!(paint("fill:#fff,color:#eee").text, "#1f2328");
        // Every pick has AA contrast on the face it is drawn on.
        for decl in [
            "fill:red",
            "fill:green",
            "fill:blue",
            "fill:#777",
            "fill:orange",
            "fill:rgba(0,0,0,0.5)",
        ] {
            let p = paint(decl);
            let face = Colour::parse(&p.fill).unwrap();
            let text = Colour::parse(&p.text).unwrap();
            assert!(face.contrast(text) >= AA, "{decl}: {p:?}");
        }
        // Only a stroke: the theme's light face is kept, fixed.
        assert_eq!(paint("stroke:#f00").fill, "#eef4ff");
    }
}
