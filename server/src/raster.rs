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

/// The longest side of a diagram PNG, px.
const MAX_SIDE: f32 = 8000.0;
/// The most pixels a diagram PNG may have: 16 M pixels are 64 MiB while it is drawn.
const MAX_PIXELS: f32 = 16_000_000.0;

/// The scale a diagram of `width` × `height` is drawn at: twice its size (sharp on high-density
/// screens), or less, so that the whole diagram fits `MAX_SIDE` and `MAX_PIXELS`. A wide
/// diagram is shrunk rather than cut off at the edge (the mail client scales the image to the
/// column anyway).
fn scale_for(width: f32, height: f32) -> f32 {
    let (w, h) = (width.max(1.0), height.max(1.0));
    2.0_f32
        .min(MAX_SIDE / w)
        .min(MAX_SIDE / h)
        .min((MAX_PIXELS / (w * h)).sqrt())
}

/// Rasterizes `svg`, whole, at [`scale_for`] its size.
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
    let scale = scale_for(size.width(), size.height());
    let side = |v: f32| ((v * scale).ceil() as u32).clamp(1, MAX_SIDE as u32);
    let (w, h) = (side(size.width()), side(size.height()));
    // Left transparent: the mail's own background shows through, light or dark. The boxes are
    // filled and their text dark on them; the lines are a grey that reads on either.
    let mut pixmap = tiny_skia::Pixmap::new(w, h).ok_or("the diagram is too large to draw")?;
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
            .filter(|c| c.alpha() > 200 && c.red() < 100 && c.green() < 100 && c.blue() < 100)
            .count()
    }

    #[test]
    fn the_background_is_transparent_so_dark_themes_show_through() {
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"50\" viewBox=\"0 0 100 50\"><rect x=\"20\" y=\"10\" width=\"60\" height=\"30\" fill=\"#eef4ff\"/></svg>";
        let p = tiny_skia::Pixmap::decode_png(&png(svg).expect("rasterized")).expect("a PNG");
        assert_eq!(
            p.pixel(0, 0).map(|c| c.alpha()),
            Some(0),
            "a corner is painted"
        );
        let centre = p.pixel(p.width() / 2, p.height() / 2).expect("a pixel");
        assert_eq!(centre.alpha(), 255, "the box is not drawn");
    }

    #[test]
    fn a_very_wide_diagram_is_shrunk_whole_not_cut_off() {
        // 30,000 px wide: at twice the size it would be cut at 8,000 px, losing the right end,
        // where the only dark box is.
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"30000\" height=\"60\" viewBox=\"0 0 30000 60\"><rect x=\"29800\" y=\"0\" width=\"200\" height=\"60\" fill=\"#000\"/></svg>";
        let out = png(svg).expect("rasterized");
        let p = tiny_skia::Pixmap::decode_png(&out).expect("a PNG");
        assert!(
            p.width() <= 8000 && p.height() >= 1,
            "{}x{}",
            p.width(),
            p.height()
        );
        assert!(
            dark_pixels(&out) > 0,
            "the right end of the diagram is missing"
        );
    }

    #[test]
    fn scales_keep_within_the_pixel_budget() {
        assert_eq!(scale_for(300.0, 200.0), 2.0);
        for (w, h) in [
            (30_000.0, 60.0),
            (5_000.0, 5_000.0),
            (100.0, 40_000.0),
            (0.0, 0.0),
        ] {
            let s = scale_for(w, h);
            let (pw, ph) = ((w.max(1.0) * s).ceil(), (h.max(1.0) * s).ceil());
            assert!(
                pw <= MAX_SIDE + 1.0 && ph <= MAX_SIDE + 1.0,
                "{w}x{h}: {pw}x{ph}"
            );
            assert!(pw * ph <= MAX_PIXELS * 1.01, "{w}x{h}: {pw}x{ph}");
            assert!(s > 0.0 && s <= 2.0);
        }
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
