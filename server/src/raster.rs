//! Diagram SVG → PNG for mail clients that do not show inline SVG (the `png` feature).
//!
//! Text needs a font loaded explicitly: fontdb maps `sans-serif` to Arial by default, which is
//! absent here, and then no text is drawn at all. We load one real font file and make it every
//! generic family.

use resvg::{tiny_skia, usvg};
use std::sync::{Arc, LazyLock};

/// Font files tried in order; `PASSBACK_FONT` comes first when set.
const FONTS: [&str; 3] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
];

static FONT_DB: LazyLock<Option<Arc<usvg::fontdb::Database>>> = LazyLock::new(|| {
    let mut db = usvg::fontdb::Database::new();
    let candidates = std::env::var("PASSBACK_FONT")
        .into_iter()
        .chain(FONTS.iter().map(|s| s.to_string()));
    for path in candidates {
        let Ok(data) = std::fs::read(&path) else {
            continue;
        };
        db.load_font_data(data);
        if !db.is_empty() {
            let family = db
                .faces()
                .next()
                .and_then(|f| f.families.first().map(|(name, _)| name.clone()))?;
            db.set_sans_serif_family(family.clone());
            db.set_serif_family(family.clone());
            db.set_monospace_family(family.clone());
            db.set_cursive_family(family.clone());
            db.set_fantasy_family(family);
            return Some(Arc::new(db));
        }
    }
    None
});

/// Rasterizes `svg` at twice its size (sharp on high-density screens).
pub fn png(svg: &str) -> Result<Vec<u8>, String> {
    let db = FONT_DB.clone().ok_or(
        "no font is available to draw diagram text: install fonts-dejavu-core or set PASSBACK_FONT to a .ttf file",
    )?;
    let options = usvg::Options {
        fontdb: db,
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &options)
        .map_err(|e| format!("the diagram SVG could not be read: {e}"))?;
    let size = tree.size();
    let scale = 2.0;
    let (w, h) = (
        (size.width() * scale).ceil() as u32,
        (size.height() * scale).ceil() as u32,
    );
    let mut pixmap = tiny_skia::Pixmap::new(w.clamp(1, 8000), h.clamp(1, 8000))
        .ok_or("the diagram is too large to draw")?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| format!("the PNG could not be encoded: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dark_pixels(png: &[u8]) -> usize {
        let p = tiny_skia::Pixmap::decode_png(png).expect("a PNG");
        p.pixels()
            .iter()
            .filter(|c| c.red() < 100 && c.green() < 100 && c.blue() < 100)
            .count()
    }

    #[test]
    fn diagram_text_is_really_drawn() {
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" height=\"50\" viewBox=\"0 0 200 50\"><text x=\"10\" y=\"30\" font-family=\"system-ui, sans-serif\" font-size=\"20\" fill=\"#000\">Review</text></svg>";
        let with_text = png(svg).expect("rasterized");
        assert!(with_text.starts_with(b"\x89PNG"));
        let blank = png(&svg.replace("Review", "")).expect("rasterized");
        // Without a loaded font the text would vanish and both images would be blank.
        assert!(
            dark_pixels(&with_text) > dark_pixels(&blank) + 100,
            "no text was drawn"
        );
    }
}
