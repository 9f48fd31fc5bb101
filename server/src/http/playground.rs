//! `GET /` and `POST /`: the playground. The page itself, its script, styles and examples are in
//! [`crate::playground`].

use super::render::render_counted;
use super::request::read_document;
use super::response::{PLAYGROUND_CSP, Resp, html, unadmitted};
use crate::playground;
use crate::state::AppState;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, StatusCode};
use passback_engine::{Options, parse_urlencoded};
use std::sync::Arc;

/// `GET /` or `POST /`.
pub async fn serve(state: Arc<AppState>, req: Request<Incoming>, _: &str) -> Resp {
    if req.method() == Method::POST {
        post(state, req).await
    } else {
        get(state, &req).await
    }
}

/// `GET /`, or `GET /?example=NAME` with that example loaded and rendered (an unknown name
/// loads nothing).
async fn get(state: Arc<AppState>, req: &Request<Incoming>) -> Resp {
    let query = parse_urlencoded(req.uri().query().unwrap_or("")).unwrap_or_default();
    let example = query
        .iter()
        .find(|(k, _)| k == "example")
        .and_then(|(_, v)| playground::examples::by_id(v));
    match example {
        Some(e) => page(state, e.markdown.to_string(), Some(e.id)).await,
        None => respond(playground::page("", None, None), None),
    }
}

/// `POST /`: the form's post without JavaScript, answered with the document rendered.
async fn post(state: Arc<AppState>, req: Request<Incoming>) -> Resp {
    match read_document(&state, req).await {
        Ok(src) => page(state, src, None).await,
        Err(r) => r,
    }
}

/// The playground with `src` in the editor and rendered beside it.
async fn page(state: Arc<AppState>, src: String, example: Option<&'static str>) -> Resp {
    let engine_state = state.clone();
    let page = state
        .slots()
        .run(move || {
            let options = Options::default().with_images(engine_state.config.images.clone());
            let rendered = render_counted(&engine_state, &src, &options);
            let shown = playground::Shown {
                fragment: &rendered.html,
                diagnostics: &rendered.diagnostics,
                blocks: rendered.blocks.len(),
            };
            (
                playground::page(&src, Some(shown), example),
                rendered.frame_src,
            )
        })
        .await;
    match page {
        Ok((page, frame_src)) => respond(page, frame_src),
        Err(refused) => unadmitted(refused),
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
