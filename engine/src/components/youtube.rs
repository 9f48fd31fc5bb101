//! `youtube`: a video to watch; display-only, exports nothing (spec §4.6).

use super::answer::{AnswersError, FormFields, Part, err};
use super::check::{Checker, Obj};
use super::shared::Shared;
use super::{Component, NoAnswer};
use crate::diag::Code;
use crate::html::i18n::{Lang, Strings};
use crate::html::{Fill, Parts, RenderCx, Text, email};
use crate::json::Json;
use crate::options::Surface;
use base64::Engine as _;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use maud::{Markup, html};

const FIELDS: [&str; 5] = ["version", "id", "title", "thumbnail", "skill_version"];
/// Largest thumbnail data URI accepted, in bytes (the spec says "under ~40 KB").
pub const MAX_THUMBNAIL: usize = 40 * 1024;
pub const MAX_TITLE: usize = 200;

#[derive(Debug, Clone)]
pub struct Youtube {
    pub id: Shared,
    pub title: Option<Shared>,
    /// A validated `data:image/(png|jpeg|webp);base64,…` URI.
    pub thumbnail: Option<Shared>,
}

fn parse(o: &Obj, ck: &mut Checker) -> Option<Youtube> {
    ck.unknown_fields(o, &FIELDS, "a youtube block");
    ck.version(o);
    ck.optional_str(o, "skill_version");
    let title = ck.clamped_shared(o, "title", MAX_TITLE);
    let id = ck.required_shared(
        o,
        "id",
        "give the 11-character video id, e.g. \"id\": \"dQw4w9WgXcQ\"",
    )?;
    if !is_video_id(&id) {
        let at = o.start_of("id");
        let hint = match id_from_url(&id) {
            Some(found) => format!("pass the id only: \"id\": \"{found}\""),
            None => {
                "pass the 11-character id only (letters, digits, - and _), never a URL".to_string()
            }
        };
        ck.error(
            Code::InvalidPattern,
            at,
            &o.path("id"),
            format!("\"{id}\" is not a YouTube video id"),
            hint,
        );
        return None;
    }
    // Spec §4.6.1: an invalid thumbnail is dropped, never the block; a value that is not a
    // string at all is as invalid as a bad URI.
    let thumbnail = o.get("thumbnail").and_then(|v| {
        let checked = match v.as_str() {
            Some(t) => check_thumbnail(t).map(|()| t),
            None => Err(format!("it is a JSON {}, not a data URI string", v.value.type_name())),
        };
        match checked {
        Ok(t) => Some(ck.keep(t)),
        Err(why) => {
            let at = o.start_of("thumbnail");
            ck.warn(
                Code::ThumbnailDropped,
                at,
                &o.path("thumbnail"),
                format!("`thumbnail` was dropped: {why}; a neutral preview is shown"),
                "use a small base64 data:image/png, jpeg or webp URI (~320×180, under 40 KB), or omit it".into(),
            );
            None
        }
        }
    });
    Some(Youtube {
        id,
        title,
        thumbnail,
    })
}

/// Where the routed surface loads the player from, for the page's `frame-src`.
pub const PLAYER_ORIGIN: &str = "https://www.youtube-nocookie.com";

impl Component for Youtube {
    const TAG: &'static str = "youtube";
    const MISNAMED: &'static [&'static str] = &["video", "yt", "you-tube"];
    const TAKES_ANSWERS: bool = false;
    const BARE_RANK: u8 = 7;
    type Answer = NoAnswer;

    fn parse(o: &Obj, ck: &mut Checker) -> Option<Self> {
        parse(o, ck)
    }

    /// An `id` of 11 characters, a video id's length.
    fn bare_shape(value: &Json) -> bool {
        value
            .get("id")
            .and_then(Json::as_str)
            .is_some_and(|id| id.chars().count() == 11)
    }

    fn render(&self, cx: &RenderCx, _answer: Option<&NoAnswer>) -> Markup {
        render(self, cx)
    }

    fn answer_from_json(
        &self,
        block: &str,
        _value: &serde_json::Value,
    ) -> Result<NoAnswer, AnswersError> {
        Err(err(block, "", "a youtube block takes no answers"))
    }

    fn answer_from_form(&self, fields: &mut FormFields) -> Result<NoAnswer, AnswersError> {
        Err(err(fields.block(), "", "a youtube block takes no answers"))
    }

    fn answer_to_json(&self, answer: &NoAnswer) -> serde_json::Value {
        match *answer {}
    }

    fn export(&self, _answer: Option<&NoAnswer>, _lang: Lang) -> Part {
        Part::default()
    }

    fn plain_text(&self, t: &Strings, lines: &mut Vec<String>) {
        let title = self.title.as_deref().unwrap_or(t.video);
        lines.push(format!(
            "▶ {title}: https://www.youtube.com/watch?v={}",
            self.id
        ));
    }

    fn visible_text(&self, push: &mut dyn FnMut(&str)) {
        push(self.title.as_deref().unwrap_or(""));
    }

    /// The routed surface loads the player on a click.
    fn frame_source(&self, surface: Surface) -> Option<&'static str> {
        (surface == Surface::Routed).then_some(PLAYER_ORIGIN)
    }
}

/// `^[A-Za-z0-9_-]{11}$`
pub fn is_video_id(id: &str) -> bool {
    id.len() == 11
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The id inside a pasted URL (`watch?v=…`, `youtu.be/…`, `/embed/…`), for the hint.
fn id_from_url(text: &str) -> Option<&str> {
    for marker in ["v=", "youtu.be/", "/embed/", "/shorts/"] {
        if let Some(i) = text.find(marker) {
            let rest = &text[i + marker.len()..];
            if let Some(candidate) = rest.get(..11).filter(|c| is_video_id(c)) {
                return Some(candidate);
            }
        }
    }
    None
}

fn check_thumbnail(uri: &str) -> Result<(), String> {
    if uri.len() > MAX_THUMBNAIL {
        return Err(format!(
            "it is {} KB, over the 40 KB limit",
            uri.len() / 1024
        ));
    }
    let (kind, data) = ["png", "jpeg", "webp"]
        .iter()
        .find_map(|k| {
            uri.strip_prefix(&format!("data:image/{k};base64,"))
                .map(|d| (*k, d))
        })
        .ok_or("it is not a data:image/png, jpeg or webp base64 URI")?;
    // Whole base64: the alphabet, then at most two `=` at the end, in groups of four.
    let unpadded = data.trim_end_matches('=');
    if data.is_empty()
        || data.len() % 4 != 0
        || data.len() - unpadded.len() > 2
        || !unpadded
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
    {
        return Err("its base64 data is malformed".into());
    }
    // The image's signature is in its first twelve bytes: sixteen characters, a whole group.
    let head = lenient_base64()
        .decode(&data[..data.len().min(16)])
        .map_err(|_| "its base64 data is malformed")?;
    let ok = match kind {
        "png" => head.starts_with(b"\x89PNG"),
        "jpeg" => head.starts_with(&[0xFF, 0xD8, 0xFF]),
        _ => head.starts_with(b"RIFF") && head.get(8..12) == Some(b"WEBP"),
    };
    if ok {
        Ok(())
    } else {
        Err(format!("its bytes are not a {kind} image"))
    }
}

/// Base64 as thumbnails carry it: the standard alphabet, padded or not, stray low bits allowed.
fn lenient_base64() -> GeneralPurpose {
    let config = GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true);
    GeneralPurpose::new(&alphabet::STANDARD, config)
}

/// A video thumbnail as [`Rendered::thumbnails`](crate::Rendered::thumbnails) carries it
/// (`data:image/TYPE;base64,DATA`, checked when the block was read), as its media type and its
/// bytes, for a MIME message to attach; `None` for any other URI.
pub fn decode_thumbnail(uri: &str) -> Option<(&str, Vec<u8>)> {
    let (media_type, data) = uri.strip_prefix("data:")?.split_once(";base64,")?;
    if !media_type.starts_with("image/") {
        return None;
    }
    let bytes = lenient_base64().decode(data).ok()?;
    Some((media_type, bytes))
}

fn render(y: &Youtube, cx: &RenderCx) -> Markup {
    let t = cx.t;
    let caption = y.title.as_deref().unwrap_or(t.video);
    // The links are written in parts, escaped as the joined text would be: no string is built.
    let watch = Parts(["https://www.youtube.com/watch?v=", &y.id]);
    if cx.surface.is_email() {
        // Gmail blocks `data:` images: the thumbnail is shown only as a part of a MIME message
        // (`cid:`); otherwise a dark ▶ panel, a table cell that every client draws. The caption
        // is a link too, so a reader whose client hides images still reaches the video.
        let cid = y.thumbnail.as_ref().filter(|_| cx.cid_images).map(|thumb| {
            let cid = format!("{}-{}@passback", cx.block, y.id);
            cx.thumbnails.borrow_mut().push((cid.clone(), thumb.to_string()));
            cid
        });
        return html! {
            (cx.root_start(None))
            @if let Some(cid) = &cid {
                a href=(watch) {
                    img src={ "cid:" (cid) } alt=(Fill(t.play, caption)) width="320" height="180" style="max-width:100%;height:auto;border:0;";
                }
            } @else {
                table role="presentation" cellpadding="0" cellspacing="0" border="0" {
                    tr {
                        td width="320" height="120" align="center" bgcolor="#24292f" style="background:#24292f;font-size:40px;line-height:1;" {
                            a href=(watch) style="color:#ffffff;text-decoration:none;" aria-label=(Fill(t.play, caption)) { "▶" }
                        }
                    }
                }
            }
            p style="margin:8px 0 0;" {
                a href=(watch) style=(email::LINK) { (caption) }
            }
            (cx.root_end())
        };
    }
    let embed = (cx.surface == Surface::Routed).then(|| {
        Parts([
            "https://www.youtube-nocookie.com/embed/",
            &y.id,
            "?autoplay=1",
        ])
    });
    let caption_id = cx.id_parts("caption");
    html! {
        (cx.root_start(Some(caption_id)))
        figure class="pb-yt" data-pb-embed=[embed] data-pb-title=(Text(caption)) {
            div class="pb-yt-facade" {
                @if let Some(thumb) = &y.thumbnail {
                    img src=(Text(thumb)) alt="" width="320" height="180";
                } @else {
                    span class="pb-yt-placeholder" aria-hidden="true" { "▶" }
                }
            }
            figcaption id=(caption_id) { (Text(caption)) }
            a class="pb-yt-link" href=(watch) rel="noopener noreferrer" {
                @match &y.title {
                    Some(title) => (Fill(t.watch, title)),
                    None => (Text(t.watch_untitled)),
                }
            }
        }
        (cx.root_end())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_urls() {
        assert!(is_video_id("dQw4w9WgXcQ"));
        assert!(!is_video_id("dQw4w9WgXc"));
        assert!(!is_video_id("dQw4w9WgXc?"));
        assert_eq!(
            id_from_url("https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=1"),
            Some("dQw4w9WgXcQ")
        );
        assert_eq!(
            id_from_url("https://youtu.be/dQw4w9WgXcQ"),
            Some("dQw4w9WgXcQ")
        );
    }

    #[test]
    fn thumbnails_are_checked_by_type_size_and_bytes() {
        // The first bytes of a PNG file, base64-encoded.
        assert!(check_thumbnail("data:image/png;base64,iVBORw0KGgo=").is_ok());
        assert!(check_thumbnail("data:image/jpeg;base64,iVBORw0KGgo=").is_err());
        assert!(check_thumbnail("https://img.youtube.com/vi/x/0.jpg").is_err());
        assert!(check_thumbnail("data:image/svg+xml;base64,PHN2Zz4=").is_err());
        let big = format!(
            "data:image/png;base64,iVBORw0KGgo{}",
            "A".repeat(MAX_THUMBNAIL)
        );
        assert!(check_thumbnail(&big).is_err());
        // Padding only at the end, at most two.
        assert!(check_thumbnail("data:image/png;base64,iVBO=w0KGgo=").is_err());
        assert!(check_thumbnail("data:image/png;base64,iVBORw0KGg===").is_err());
    }

    #[test]
    fn a_checked_thumbnail_decodes_to_its_bytes() {
        let png = b"\x89PNG\r\n\x1a\n";
        assert_eq!(
            decode_thumbnail("data:image/png;base64,iVBORw0KGgo="),
            Some(("image/png", png.to_vec()))
        );
        assert_eq!(
            decode_thumbnail("data:image/png;base64,iVBORw0KGgo"),
            Some(("image/png", png.to_vec()))
        );
        assert_eq!(decode_thumbnail("data:image/png;base64,aGk="), Some(("image/png", b"hi".to_vec())));
        assert_eq!(decode_thumbnail("data:text/html;base64,aGk="), None);
        assert_eq!(decode_thumbnail("https://example.com/a.png"), None);
    }
}
