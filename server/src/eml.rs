//! `--format eml` / `format=eml`: the email surface as a complete MIME message (contract §8),
//! ready for a digest or notification system to send with no image hosting.
//!
//! `multipart/alternative` of the plain-text part and a `multipart/related` whose HTML part
//! refers to its images by `cid:`: each drawn diagram as a PNG, each video thumbnail as the
//! image the document carries. `Subject` is the document's title; no `From`, `To`, `Date` or
//! `Message-ID`: the sender adds them. The parts are built and encoded by `mail-builder`.

use mail_builder::headers::Header;
use mail_builder::headers::text::Text;
use mail_builder::mime::MimePart;
use passback_engine::{Diagnostic, Format, Options, Surface};

/// A built message and the diagnostics of its rendering.
pub struct Message {
    pub bytes: Vec<u8>,
    pub diagnostics: Vec<Diagnostic>,
    /// The content hash of the HTML part's rendering (the response's ETag).
    pub hash: String,
}

/// The message for `src`, with `options`' Respond link and link base; `png` draws a diagram's
/// SVG as PNG. Fails only when a diagram cannot be drawn.
pub fn message(
    src: &str,
    options: &Options,
    png: impl Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<Message, String> {
    let email = options
        .clone()
        .with_surface(Surface::Email)
        .with_diagram_base_url(None);
    let html = passback_engine::render(
        src,
        &email
            .clone()
            .with_format(Format::Page)
            .with_cid_images(true),
    );
    let text = passback_engine::render(src, &email.with_format(Format::Text));
    let mut related = vec![MimePart::new("text/html", html.body().to_string())];
    for (key, svg) in &html.diagrams {
        let image = png(svg)?;
        related.push(
            MimePart::new("image/png", image)
                .inline()
                .cid(format!("{key}@passback")),
        );
    }
    for (cid, uri) in &html.thumbnails {
        // The engine checked the URI when it read the block: `data:image/TYPE;base64,DATA`.
        let Some((kind, bytes)) = passback_engine::decode_thumbnail(uri) else {
            return Err(format!(
                "a video thumbnail ({}…) cannot be attached: it is not a base64 data: image",
                uri.chars().take(24).collect::<String>()
            ));
        };
        related.push(
            MimePart::new(kind.to_string(), bytes)
                .inline()
                .cid(cid.clone()),
        );
    }
    let body = MimePart::new(
        "multipart/alternative",
        vec![
            MimePart::new("text/plain", text.body().to_string()),
            MimePart::new("multipart/related", related),
        ],
    );
    let mut bytes = Vec::with_capacity(html.body().len() * 2 + 4096);
    bytes.extend_from_slice(b"Subject: ");
    Text::new(passback_engine::document_title(src)).write_header(&mut bytes, 9);
    bytes.extend_from_slice(b"MIME-Version: 1.0\r\n");
    body.write_part(&mut bytes);
    Ok(Message {
        bytes,
        diagnostics: html.diagnostics,
        hash: html.hash,
    })
}

/// Draws a diagram for the message with the server's rasterizer.
#[cfg(feature = "png")]
pub fn draw(svg: &str) -> Result<Vec<u8>, String> {
    crate::raster::png(svg)
}

/// Without the `png` feature no diagram can be drawn into a message.
#[cfg(not(feature = "png"))]
pub fn draw(_svg: &str) -> Result<Vec<u8>, String> {
    Err("this passback was built without the png feature, so the message cannot carry its diagrams; build it with the default features".into())
}
