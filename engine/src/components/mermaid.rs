//! `mermaid`: a diagram to read and comment on (spec §4.7). Until the server-side SVG lands, the
//! diagram is shown as its source in a captioned figure.

use super::{Checker, Obj};
use crate::html::RenderCx;
use crate::html::email;
use maud::{Markup, html};

const FIELDS: [&str; 4] = ["version", "source", "title", "skill_version"];
/// Largest accepted `source`, in bytes ("under ~8 KB").
pub const MAX_SOURCE: usize = 8 * 1024;
pub const MAX_TITLE: usize = 200;

#[derive(Debug, Clone)]
pub struct Mermaid {
    pub source: String,
    pub title: Option<String>,
}

pub fn parse(o: &Obj, ck: &mut Checker) -> Option<Mermaid> {
    ck.unknown_fields(o, &FIELDS, "a mermaid block");
    ck.version(o);
    ck.optional_string(o, "skill_version");
    let title = ck.clamped_string(o, "title", MAX_TITLE);
    let source = ck.required_string(
        o,
        "source",
        "give the diagram text, e.g. \"source\": \"graph TD; A-->B;\"",
    )?;
    if source.len() > MAX_SOURCE {
        let at = o.get("source").map_or(o.at, |v| v.start);
        ck.error(
            "too_long",
            at,
            &o.path("source"),
            format!(
                "`source` is {} bytes; the limit is {MAX_SOURCE}",
                source.len()
            ),
            "split the diagram in two, or show less detail".into(),
        );
        return None;
    }
    Some(Mermaid { source, title })
}

pub fn render(m: &Mermaid, cx: &RenderCx) -> Markup {
    let t = cx.t;
    let caption = m.title.as_deref().unwrap_or(t.diagram);
    if cx.surface.is_email() {
        return cx.root(
            None,
            html! {
                p style=(email::TITLE) { (caption) }
                pre style=(email::PRE) { (m.source) }
            },
        );
    }
    let caption_id = cx.id("caption");
    cx.root(
        Some(&caption_id),
        html! {
            figure class="pb-diagram" {
                details class="pb-diagram-source" open {
                    summary { (t.diagram_source) }
                    pre { code class="language-mermaid" { (m.source) } }
                }
                figcaption id=(caption_id) { (caption) }
            }
            (super::note_box(cx, &cx.id("comment"), &cx.name("comment"), t.comment_diagram, ""))
        },
    )
}
