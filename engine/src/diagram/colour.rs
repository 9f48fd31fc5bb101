//! Colours as authors write them in a diagram (`style`, `classDef`, `box`, `rect`, a theme
//! variable): read into their red, green, blue and alpha, and written back from those numbers,
//! never from the author's text. Shared by every diagram kind.
//!
//! Read: the CSS colour names, `transparent`, `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`, and
//! `rgb()`, `rgba()`, `hsl()`, `hsla()` with comma- or space-separated arguments (an alpha
//! after `/` too). Anything else (`var(…)`, `url(…)`, `currentColor`) is not a colour here.

/// A colour read from the source.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Colour {
    pub r: u8,
    pub g: u8,
    pub b: u8,
    /// Opacity, 0 to 1.
    pub a: f64,
}

/// The CSS colour names, sorted for a binary search, with their `0xrrggbb`.
const NAMES: [(&str, u32); 148] = [
    ("aliceblue", 0xf0f8ff),
    ("antiquewhite", 0xfaebd7),
    ("aqua", 0x00ffff),
    ("aquamarine", 0x7fffd4),
    ("azure", 0xf0ffff),
    ("beige", 0xf5f5dc),
    ("bisque", 0xffe4c4),
    ("black", 0x000000),
    ("blanchedalmond", 0xffebcd),
    ("blue", 0x0000ff),
    ("blueviolet", 0x8a2be2),
    ("brown", 0xa52a2a),
    ("burlywood", 0xdeb887),
    ("cadetblue", 0x5f9ea0),
    ("chartreuse", 0x7fff00),
    ("chocolate", 0xd2691e),
    ("coral", 0xff7f50),
    ("cornflowerblue", 0x6495ed),
    ("cornsilk", 0xfff8dc),
    ("crimson", 0xdc143c),
    ("cyan", 0x00ffff),
    ("darkblue", 0x00008b),
    ("darkcyan", 0x008b8b),
    ("darkgoldenrod", 0xb8860b),
    ("darkgray", 0xa9a9a9),
    ("darkgreen", 0x006400),
    ("darkgrey", 0xa9a9a9),
    ("darkkhaki", 0xbdb76b),
    ("darkmagenta", 0x8b008b),
    ("darkolivegreen", 0x556b2f),
    ("darkorange", 0xff8c00),
    ("darkorchid", 0x9932cc),
    ("darkred", 0x8b0000),
    ("darksalmon", 0xe9967a),
    ("darkseagreen", 0x8fbc8f),
    ("darkslateblue", 0x483d8b),
    ("darkslategray", 0x2f4f4f),
    ("darkslategrey", 0x2f4f4f),
    ("darkturquoise", 0x00ced1),
    ("darkviolet", 0x9400d3),
    ("deeppink", 0xff1493),
    ("deepskyblue", 0x00bfff),
    ("dimgray", 0x696969),
    ("dimgrey", 0x696969),
    ("dodgerblue", 0x1e90ff),
    ("firebrick", 0xb22222),
    ("floralwhite", 0xfffaf0),
    ("forestgreen", 0x228b22),
    ("fuchsia", 0xff00ff),
    ("gainsboro", 0xdcdcdc),
    ("ghostwhite", 0xf8f8ff),
    ("gold", 0xffd700),
    ("goldenrod", 0xdaa520),
    ("gray", 0x808080),
    ("green", 0x008000),
    ("greenyellow", 0xadff2f),
    ("grey", 0x808080),
    ("honeydew", 0xf0fff0),
    ("hotpink", 0xff69b4),
    ("indianred", 0xcd5c5c),
    ("indigo", 0x4b0082),
    ("ivory", 0xfffff0),
    ("khaki", 0xf0e68c),
    ("lavender", 0xe6e6fa),
    ("lavenderblush", 0xfff0f5),
    ("lawngreen", 0x7cfc00),
    ("lemonchiffon", 0xfffacd),
    ("lightblue", 0xadd8e6),
    ("lightcoral", 0xf08080),
    ("lightcyan", 0xe0ffff),
    ("lightgoldenrodyellow", 0xfafad2),
    ("lightgray", 0xd3d3d3),
    ("lightgreen", 0x90ee90),
    ("lightgrey", 0xd3d3d3),
    ("lightpink", 0xffb6c1),
    ("lightsalmon", 0xffa07a),
    ("lightseagreen", 0x20b2aa),
    ("lightskyblue", 0x87cefa),
    ("lightslategray", 0x778899),
    ("lightslategrey", 0x778899),
    ("lightsteelblue", 0xb0c4de),
    ("lightyellow", 0xffffe0),
    ("lime", 0x00ff00),
    ("limegreen", 0x32cd32),
    ("linen", 0xfaf0e6),
    ("magenta", 0xff00ff),
    ("maroon", 0x800000),
    ("mediumaquamarine", 0x66cdaa),
    ("mediumblue", 0x0000cd),
    ("mediumorchid", 0xba55d3),
    ("mediumpurple", 0x9370db),
    ("mediumseagreen", 0x3cb371),
    ("mediumslateblue", 0x7b68ee),
    ("mediumspringgreen", 0x00fa9a),
    ("mediumturquoise", 0x48d1cc),
    ("mediumvioletred", 0xc71585),
    ("midnightblue", 0x191970),
    ("mintcream", 0xf5fffa),
    ("mistyrose", 0xffe4e1),
    ("moccasin", 0xffe4b5),
    ("navajowhite", 0xffdead),
    ("navy", 0x000080),
    ("oldlace", 0xfdf5e6),
    ("olive", 0x808000),
    ("olivedrab", 0x6b8e23),
    ("orange", 0xffa500),
    ("orangered", 0xff4500),
    ("orchid", 0xda70d6),
    ("palegoldenrod", 0xeee8aa),
    ("palegreen", 0x98fb98),
    ("paleturquoise", 0xafeeee),
    ("palevioletred", 0xdb7093),
    ("papayawhip", 0xffefd5),
    ("peachpuff", 0xffdab9),
    ("peru", 0xcd853f),
    ("pink", 0xffc0cb),
    ("plum", 0xdda0dd),
    ("powderblue", 0xb0e0e6),
    ("purple", 0x800080),
    ("rebeccapurple", 0x663399),
    ("red", 0xff0000),
    ("rosybrown", 0xbc8f8f),
    ("royalblue", 0x4169e1),
    ("saddlebrown", 0x8b4513),
    ("salmon", 0xfa8072),
    ("sandybrown", 0xf4a460),
    ("seagreen", 0x2e8b57),
    ("seashell", 0xfff5ee),
    ("sienna", 0xa0522d),
    ("silver", 0xc0c0c0),
    ("skyblue", 0x87ceeb),
    ("slateblue", 0x6a5acd),
    ("slategray", 0x708090),
    ("slategrey", 0x708090),
    ("snow", 0xfffafa),
    ("springgreen", 0x00ff7f),
    ("steelblue", 0x4682b4),
    ("tan", 0xd2b48c),
    ("teal", 0x008080),
    ("thistle", 0xd8bfd8),
    ("tomato", 0xff6347),
    ("turquoise", 0x40e0d0),
    ("violet", 0xee82ee),
    ("wheat", 0xf5deb3),
    ("white", 0xffffff),
    ("whitesmoke", 0xf5f5f5),
    ("yellow", 0xffff00),
    ("yellowgreen", 0x9acd32),
];

impl Colour {
    pub const fn rgb(rgb: u32) -> Colour {
        Colour {
            r: (rgb >> 16) as u8,
            g: (rgb >> 8) as u8,
            b: rgb as u8,
            a: 1.0,
        }
    }

    /// The colour `written` names, when it is one of those this module reads.
    pub fn parse(written: &str) -> Option<Colour> {
        let w = written.trim();
        if w.len() > 64 {
            return None;
        }
        let lower = w.to_ascii_lowercase();
        if let Some(hex) = lower.strip_prefix('#') {
            return hex_colour(hex);
        }
        if lower == "transparent" {
            return Some(Colour {
                a: 0.0,
                ..Colour::rgb(0)
            });
        }
        if let Ok(i) = NAMES.binary_search_by(|(n, _)| (*n).cmp(lower.as_str())) {
            return Some(Colour::rgb(NAMES[i].1));
        }
        let (func, args) = lower.split_once('(')?;
        let args = args.strip_suffix(')')?;
        let (main, slash_alpha) = match args.split_once('/') {
            Some((m, a)) => (m, Some(a.trim())),
            None => (args, None),
        };
        let parts: Vec<&str> = if main.contains(',') {
            main.split(',').map(str::trim).collect()
        } else {
            main.split_whitespace().collect()
        };
        let (channels, alpha) = match (parts.len(), slash_alpha) {
            (3, a) => (&parts[..3], a),
            (4, None) => (&parts[..3], Some(parts[3])),
            _ => return None,
        };
        let a = match alpha {
            Some(a) => unit(a, 1.0)?,
            None => 1.0,
        };
        match func.trim() {
            "rgb" | "rgba" => {
                let c = |s: &str| unit(s, 255.0).map(|v| (v * 255.0).round() as u8);
                Some(Colour {
                    r: c(channels[0])?,
                    g: c(channels[1])?,
                    b: c(channels[2])?,
                    a,
                })
            }
            "hsl" | "hsla" => {
                let h = channels[0].strip_suffix("deg").unwrap_or(channels[0]);
                let h = number(h)?.rem_euclid(360.0);
                let s = unit(channels[1], 100.0)?;
                let l = unit(channels[2], 100.0)?;
                let [r, g, b] = hsl_to_rgb(h, s, l);
                Some(Colour { r, g, b, a })
            }
            _ => None,
        }
    }

    /// Writes it as `#rrggbb`, or `rgba(r,g,b,a)` when it is not opaque.
    pub fn push_to(&self, out: &mut String) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        if self.a >= 1.0 {
            out.push('#');
            for v in [self.r, self.g, self.b] {
                out.push(char::from(HEX[usize::from(v >> 4)]));
                out.push(char::from(HEX[usize::from(v & 15)]));
            }
        } else {
            out.push_str("rgba(");
            for v in [self.r, self.g, self.b] {
                crate::html::push_decimal(out, u64::from(v));
                out.push(',');
            }
            // Three places: `{}` of a rounded f64 is its shortest decimal form.
            let a = (self.a * 1000.0).round() / 1000.0;
            out.push_str(&format!("{a}"));
            out.push(')');
        }
    }

    /// [`Colour::push_to`] as a new string.
    pub fn css(&self) -> String {
        let mut s = String::with_capacity(24);
        self.push_to(&mut s);
        s
    }

    /// The colour seen over `under` (opaque): its alpha blended away.
    pub fn over(&self, under: Colour) -> Colour {
        let mix =
            |c: u8, u: u8| (f64::from(c) * self.a + f64::from(u) * (1.0 - self.a)).round() as u8;
        Colour {
            r: mix(self.r, under.r),
            g: mix(self.g, under.g),
            b: mix(self.b, under.b),
            a: 1.0,
        }
    }

    /// Relative luminance, as WCAG defines it (alpha not counted).
    pub fn luminance(&self) -> f64 {
        let lin = |v: u8| {
            let c = f64::from(v) / 255.0;
            if c <= 0.039_28 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(self.r) + 0.7152 * lin(self.g) + 0.0722 * lin(self.b)
    }

    /// The WCAG contrast ratio between two opaque colours, 1 to 21.
    pub fn contrast(&self, other: Colour) -> f64 {
        let (a, b) = (self.luminance(), other.luminance());
        (a.max(b) + 0.05) / (a.min(b) + 0.05)
    }
}

/// `#` and 3, 4, 6 or 8 hex digits.
fn hex_colour(hex: &str) -> Option<Colour> {
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let d = |i: usize| u8::from_str_radix(&hex[i..=i], 16).ok();
    let p = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
    let (r, g, b, a) = match hex.len() {
        3 => (d(0)? * 17, d(1)? * 17, d(2)? * 17, 255),
        4 => (d(0)? * 17, d(1)? * 17, d(2)? * 17, d(3)? * 17),
        6 => (p(0)?, p(2)?, p(4)?, 255),
        8 => (p(0)?, p(2)?, p(4)?, p(6)?),
        _ => return None,
    };
    Some(Colour {
        r,
        g,
        b,
        a: f64::from(a) / 255.0,
    })
}

/// A plain decimal number: digits with at most one `.`, an optional sign.
fn number(s: &str) -> Option<f64> {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    let ok = !digits.is_empty()
        && digits.len() <= 12
        && digits.bytes().filter(|&b| b == b'.').count() <= 1
        && digits.bytes().any(|b| b.is_ascii_digit())
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    ok.then(|| s.parse().ok()).flatten()
}

/// A number out of `full`, or a percentage, as a fraction clamped to 0..=1.
fn unit(s: &str, full: f64) -> Option<f64> {
    let (v, full) = match s.strip_suffix('%') {
        Some(p) => (number(p)?, 100.0),
        None => (number(s)?, full),
    };
    Some((v / full).clamp(0.0, 1.0))
}

/// Hue in degrees, saturation and lightness as fractions, to red, green and blue.
fn hsl_to_rgb(h: f64, s: f64, l: f64) -> [u8; 3] {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = h / 60.0;
    let x = c * (1.0 - (hp.rem_euclid(2.0) - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let v = |f: f64| ((f + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    [v(r), v(g), v(b)]
}

#[cfg(test)]
mod tests {
    use super::Colour;

    fn css(s: &str) -> Option<String> {
        Colour::parse(s).map(|c| c.css())
    }

    #[test]
    fn every_written_form_is_read_and_written_back_from_its_numbers() {
        assert_eq!(css("#F9F").as_deref(), Some("#ff99ff"));
        assert_eq!(css("#f9f8").as_deref(), Some("rgba(255,153,255,0.533)"));
        assert_eq!(css("#336699").as_deref(), Some("#336699"));
        assert_eq!(css("#33669980").as_deref(), Some("rgba(51,102,153,0.502)"));
        assert_eq!(css("RebeccaPurple").as_deref(), Some("#663399"));
        assert_eq!(css(" lightgoldenrodyellow ").as_deref(), Some("#fafad2"));
        assert_eq!(css("rgb(255, 0, 128)").as_deref(), Some("#ff0080"));
        assert_eq!(css("rgb(100% 0% 50%)").as_deref(), Some("#ff0080"));
        assert_eq!(css("rgba(0,0,0,0.5)").as_deref(), Some("rgba(0,0,0,0.5)"));
        assert_eq!(css("rgb(0 0 0 / 25%)").as_deref(), Some("rgba(0,0,0,0.25)"));
        assert_eq!(css("hsl(120, 100%, 25%)").as_deref(), Some("#008000"));
        assert_eq!(css("hsl(0deg 100% 50%)").as_deref(), Some("#ff0000"));
        assert_eq!(
            css("hsla(240, 100%, 50%, 0.2)").as_deref(),
            Some("rgba(0,0,255,0.2)")
        );
        assert_eq!(css("transparent").as_deref(), Some("rgba(0,0,0,0)"));
    }

    #[test]
    fn what_is_not_a_colour_is_refused() {
        for s in [
            "",
            "#ff",
            "#gggggg",
            "#1234567",
            "notacolour",
            "url(#x)",
            "var(--x)",
            "rgb(1,2)",
            "rgb(1,2,3,4,5)",
            "rgb(1e3,2,3)",
            "rgb(1,2,3",
            "expression(alert(1))",
            "red;fill:url(#a)",
            "\"red\"",
            "currentColor",
        ] {
            assert_eq!(Colour::parse(s), None, "{s:?}");
        }
    }

    #[test]
    fn contrast_is_wcag_s() {
        let black = Colour::rgb(0);
        let white = Colour::rgb(0xffffff);
        assert!((black.contrast(white) - 21.0).abs() < 1e-9);
        assert!((white.contrast(white) - 1.0).abs() < 1e-9);
        let half = Colour { a: 0.5, ..black };
        assert_eq!(half.over(white), Colour::rgb(0x808080));
    }
}
