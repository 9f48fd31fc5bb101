//! `GET /` and `POST /`: the playground. The page itself is in `pages`, its script, styles and
//! examples in `assets` and `examples`.

use crate::AppState;
use crate::handlers::read_document;
use crate::pages;
use crate::problem::{PLAYGROUND_CSP, Resp, html};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Request, StatusCode};
use passback_engine::{Options, parse_urlencoded};
use std::sync::Arc;

/// `GET /`, or `GET /?example=NAME` with that example loaded and rendered (an unknown name
/// loads nothing).
pub async fn get(state: Arc<AppState>, req: &Request<Incoming>) -> Resp {
    let query = parse_urlencoded(req.uri().query().unwrap_or("")).unwrap_or_default();
    let example = query
        .iter()
        .find(|(k, _)| k == "example")
        .and_then(|(_, v)| crate::examples::by_id(v));
    match example {
        Some(e) => page(state, e.markdown.to_string(), Some(e.id)).await,
        None => respond(pages::playground("", None, None), None),
    }
}

/// `POST /`: the form's post without JavaScript, answered with the document rendered.
pub async fn post(state: Arc<AppState>, req: Request<Incoming>) -> Resp {
    match read_document(&state, req).await {
        Ok(src) => page(state, src, None).await,
        Err(r) => r,
    }
}

/// The playground with `src` in the editor and rendered beside it.
async fn page(state: Arc<AppState>, src: String, example: Option<&'static str>) -> Resp {
    let engine_state = state.clone();
    let page = crate::handlers::heavy(&state, move || {
        let rendered = crate::handlers::render_counted(&engine_state, &src, &Options::default());
        let shown = pages::Shown {
            fragment: &rendered.html,
            diagnostics: &rendered.diagnostics,
            blocks: rendered.blocks.len(),
        };
        (
            pages::playground(&src, Some(shown), example),
            rendered.frame_src,
        )
    })
    .await;
    match page {
        Ok((page, frame_src)) => respond(page, frame_src),
        Err(r) => r,
    }
}

/// A playground page: the strict policy with `connect-src 'self'` for its live preview.
fn respond(page: String, frame_src: Option<&str>) -> Resp {
    let mut r = html(StatusCode::OK, page, frame_src);
    let policy = match frame_src {
        Some(src) => HeaderValue::try_from(format!("{PLAYGROUND_CSP}; frame-src {src}")).ok(),
        None => Some(HeaderValue::from_static(PLAYGROUND_CSP)),
    };
    if let Some(policy) = policy {
        r.headers_mut()
            .insert(header::CONTENT_SECURITY_POLICY, policy);
    }
    r
}
