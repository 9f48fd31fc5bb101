//! `GET /r/{id}/sent`: the reader's receipt, what they sent and a way to edit it; and the
//! sent response read back into the form for that edit.

use super::*;

/// `n` and `k` of a receipt's query (`?n=3&k=…`, or the edit link's `?edit=3&k=…`).
pub(super) fn receipt_query(query: Option<&str>) -> Option<(u64, String)> {
    let pairs = passback_engine::parse_urlencoded(query?).ok()?;
    let find = |name: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let n = find("n").or_else(|| find("edit"))?.parse().ok()?;
    Some((n, find("k")?.to_string()))
}

/// The form of `markdown` (parsed: `doc`) with a sent response's answers (and name and
/// comments) filled in.
pub(super) fn render_sent(
    doc: &Doc,
    markdown: &str,
    options: &Options,
    sent: &StoredResponse,
) -> Option<passback_engine::Rendered> {
    let mut inputs = sent.component_inputs.clone();
    if let (Some(map), Some(list)) = (inputs.as_object_mut(), sent.annotations.as_array())
        && !list.is_empty()
    {
        map.insert("annotations".into(), sent.annotations.clone());
    }
    let mut filled = passback_engine::answers_from_json(doc, &inputs).ok()?;
    filled.set_reviewer(sent.reviewer.clone());
    Some(passback_engine::render_with_answers(
        markdown, options, &filled,
    ))
}

/// `GET /r/{id}/sent?n={response_id}&k={submission}`: the reader's receipt. Only the
/// submission id of the form that sent it opens it (it shows the reader's answers); anything
/// else is 404.
pub async fn receipt(state: Arc<AppState>, req: Request<Incoming>, id: &str) -> Resp {
    let (routing, browser, doc) = match reader_get(&state, &req, id).await {
        Ok(found) => found,
        Err(refusal) => return refusal,
    };
    let found = match receipt_query(req.uri().query()) {
        Some((n, k)) => match routing.receipt(id, n, &k).await {
            Ok(found) => found.map(|r| (r, n, k)),
            Err(e) => return refused(e, browser),
        },
        None => None,
    };
    let Some((sent, n, k)) = found else {
        return problem(
            StatusCode::NOT_FOUND,
            "There is no receipt at this address: use the link the page gave you after sending, or open the review link again.",
        );
    };
    // The receipt reads the revision the response answered.
    let markdown = match sent.revision {
        r if r == doc.revision => doc.markdown.clone(),
        r => match routing.revision_text(id, r).await {
            Ok(Some(old)) => old,
            _ => doc.markdown.clone(),
        },
    };
    let id = id.to_string();
    // Sent through a recipient's link: editing goes through it again.
    let back = recipient_query(req.uri().query())
        .filter(|s| crate::routing::is_recipient_secret(s))
        .map_or_else(String::new, |s| format!("&for={s}"));
    let page = tokio::task::spawn_blocking(move || {
        let parsed = Doc::parse(&markdown);
        let edit = format!("/r/{id}?edit={n}&k={k}{back}");
        // What the export says about how it was made (weights rescaled, …), read again from
        // the answers kept.
        let notices = passback_engine::answers_from_json(&parsed, &sent.component_inputs)
            .map(|answers| passback_engine::export(&parsed, &answers).notices)
            .unwrap_or_default();
        passback_engine::receipt_page(&parsed, &sent.export, &notices, &edit, "/assets")
    })
    .await;
    let mut r = match page {
        Ok(page) => html(StatusCode::OK, page, None),
        Err(_) => problem(
            StatusCode::INTERNAL_SERVER_ERROR,
            "The receipt could not be shown on an internal error; your answers were kept.",
        ),
    };
    no_store(&mut r);
    r.headers_mut()
        .insert("x-robots-tag", HeaderValue::from_static("noindex"));
    // The receipt's address holds its secret: it is not passed on to anything it links to.
    r.headers_mut()
        .insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    r
}
