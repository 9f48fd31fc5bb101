//! A post that answers an earlier revision of its document: nothing is kept, and the reader
//! gets the latest revision back with their answers carried over where they fit.

use super::super::response::{Resp, html, no_store, problem};
use super::{
    CONFIRM_FIELD, Intro, PageParts, REVISION_FIELD, SUBMISSION_FIELD, Speech, VERDICT_FIELD,
    annotations_json, decorate, new_submission, revised_notice, routed_options, with_verdict,
};
use crate::routing::is_submission_id;
use hyper::StatusCode;
use passback_engine::{Doc, Format, Surface};
use serde_json::{Value, json};
/// The revision a post says it answers: the form's hidden field (a form without one was
/// rendered before the document could be revised: revision 1), or the JSON's `"revision"`
/// (`None` without one: the latest).
pub(super) fn posted_revision(form: bool, text: &str) -> Result<Option<u64>, Resp> {
    let bad = |said: &str| {
        problem(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("\"revision\" must be a revision number (1, 2, …), not {said}."),
        )
    };
    if form {
        let Ok(pairs) = passback_engine::parse_urlencoded(text) else {
            // Named when the form is decoded.
            return Ok(None);
        };
        return match pairs.iter().find(|(k, _)| k == REVISION_FIELD) {
            None => Ok(Some(1)),
            Some((_, v)) => v
                .parse::<u64>()
                .ok()
                .filter(|&r| r >= 1)
                .map(Some)
                .ok_or_else(|| bad(&format!("\"{}\"", crate::quote::truncate(v)))),
        };
    }
    let Ok(json) = serde_json::from_str::<Value>(text) else {
        return Ok(None);
    };
    match json.get("revision") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .filter(|&r| r >= 1)
            .map(Some)
            .ok_or_else(|| bad(&crate::quote::truncate(&v.to_string()))),
    }
}

/// A post that answers revision `answered` of a document now at a later one (or at none such):
/// nothing is kept. JSON: 409 naming the latest revision. A browser's form: 409 with the latest
/// revision's page, the reader's answers carried over where they fit, and every answer that
/// does not fit listed at the top in the reader's own words, so nothing typed is lost.
pub(super) async fn stale(
    routing: &crate::routing::Routing,
    doc: &crate::store::Document,
    parts: PageParts,
    answered: u64,
    form: bool,
    text: String,
) -> Resp {
    if !form {
        return super::super::refusal::refused(
            crate::routing::RoutingError::Stale {
                answered,
                revision: doc.revision,
            },
            false,
        );
    }
    let old = if answered < doc.revision {
        routing
            .revision_text(&doc.id, answered)
            .await
            .ok()
            .flatten()
    } else {
        None
    };
    let markdown = doc.markdown.clone();
    let page = tokio::task::spawn_blocking(move || {
        let posted = passback_engine::parse_urlencoded(&text).unwrap_or_default();
        let mut reviewer = None;
        let mut submission = None;
        let mut verdict = None;
        let mut pairs = vec![
            ("pb.source".to_string(), old.clone().unwrap_or_default()),
            ("pb.surface".to_string(), Surface::Routed.name().to_string()),
        ];
        for (k, v) in posted {
            match k.as_str() {
                "pb.source" | "pb.surface" | REVISION_FIELD | CONFIRM_FIELD => {}
                "pb.reviewer" => reviewer = Some(v),
                SUBMISSION_FIELD => submission = Some(v).filter(|s| is_submission_id(s)),
                VERDICT_FIELD => verdict = Some(v),
                _ => pairs.push((k, v)),
            }
        }
        let read = old.as_deref().and_then(|old| {
            let post = passback_engine::answers_from_form(&pairs).ok()?;
            let inputs = passback_engine::answers_to_json(&post.doc, &post.responses);
            let annotations = annotations_json(&post.responses);
            Some(crate::routing::carry::carry(
                old,
                &markdown,
                &inputs,
                &annotations,
            ))
        });
        let (inputs, left) = match read {
            Some(carried) => (carried.inputs, carried.left),
            // The revision it answered is not kept: every text the reader typed, as typed.
            None => (
                json!({}),
                pairs
                    .iter()
                    .skip(2)
                    .filter(|(k, v)| {
                        !k.starts_with("pb.")
                            && !k.ends_with(".pick")
                            && !k.ends_with(".item")
                            && !v.trim().is_empty()
                    })
                    .map(|(_, v)| format!("“{}”", v.trim()))
                    .collect(),
            ),
        };
        let new_doc = Doc::parse(&markdown);
        let mut responses =
            passback_engine::answers_from_json(&new_doc, &inputs).unwrap_or_default();
        responses.set_reviewer(
            reviewer
                .map(|r| r.trim().to_string())
                .filter(|r| !r.is_empty()),
        );
        let secret = parts.recipient.as_ref().map(|r| r.1.as_str());
        let rendered = passback_engine::render_with_answers(
            &markdown,
            &routed_options(&parts.id, Format::Page, &parts.images, secret),
            &responses,
        );
        let frame_src = rendered.frame_src;
        // The verdict chosen stays chosen when it is still one of the choices.
        let verdict = verdict.filter(|v| {
            parts
                .verdict
                .as_ref()
                .is_some_and(|choices| choices.contains(v))
        });
        let said = Speech::of(&new_doc);
        let page = with_verdict(
            rendered.into_body(),
            parts.verdict.as_deref(),
            verdict.as_deref(),
            said,
        );
        let mut intro = Intro::of(
            &new_doc,
            &markdown,
            parts.expires_at,
            parts.verdict.is_some(),
        );
        intro.recipient = parts.recipient.as_ref().map(|r| r.0.clone());
        intro.sender = parts.sender.clone();
        let intro = intro.html(&page, said);
        let notice = revised_notice(parts.revision, &left, true, said);
        let keep = submission.or_else(new_submission);
        (
            decorate(
                page,
                Some(&intro),
                Some(&notice),
                keep.as_deref(),
                parts.revision,
            ),
            frame_src,
        )
    })
    .await;
    match page {
        Ok((page, frame_src)) => {
            let mut r = html(StatusCode::CONFLICT, page, frame_src);
            no_store(&mut r);
            r
        }
        Err(_) => problem(
            StatusCode::INTERNAL_SERVER_ERROR,
            "The answers could not be read on an internal error; please report it.",
        ),
    }
}
