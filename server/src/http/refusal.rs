//! The routing core's refusals as HTTP: the one place its outcomes become statuses, for the
//! routed documents' routes and the review pages.

use super::response::{Resp, busy, html, no_store, problem, problem_with};
use crate::routing::RoutingError;
use crate::store::Status;
use hyper::StatusCode;
use hyper::header::{self, HeaderValue};
use maud::html as markup;
use serde_json::json;

/// The routing core's refusal as HTTP. `browser`: a reader's browser asked, so a missing
/// document is a page, not problem+json.
pub fn refused(e: RoutingError, browser: bool) -> Resp {
    let status = match &e {
        RoutingError::Unknown { .. } => return missing(false, browser),
        RoutingError::Gone => return missing(true, browser),
        RoutingError::WrongToken => {
            return problem(
                StatusCode::FORBIDDEN,
                "That token is not this document's; use the token POST /v1/documents answered when it was routed.",
            );
        }
        RoutingError::NotOpen { status } => return not_open(*status, &e, browser),
        RoutingError::Busy { waited } => return busy(*waited),
        RoutingError::KeyRequired | RoutingError::UnknownKey | RoutingError::RevokedKey => {
            let mut r = problem(StatusCode::UNAUTHORIZED, e.to_string());
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"passback\""),
            );
            return r;
        }
        RoutingError::Bounded { wait, .. } => return too_many(*wait, e.to_string(), browser),
        RoutingError::OverLimit { wait, .. }
        | RoutingError::KeyQuota { wait, .. }
        | RoutingError::KeyFull { wait, .. } => {
            let mut r = problem_with(
                StatusCode::TOO_MANY_REQUESTS,
                e.to_string(),
                json!({ "retry_after": wait.as_secs() }),
            );
            if let Ok(v) = HeaderValue::from_str(&wait.as_secs().to_string()) {
                r.headers_mut().insert(header::RETRY_AFTER, v);
            }
            return r;
        }
        RoutingError::Stale { answered, revision } => {
            return problem_with(
                StatusCode::CONFLICT,
                e.to_string(),
                json!({ "revision": revision, "answered_revision": answered }),
            );
        }
        RoutingError::Violating { diagnostics, .. } => {
            return problem_with(
                StatusCode::UNPROCESSABLE_ENTITY,
                e.to_string(),
                json!({ "diagnostics": diagnostics }),
            );
        }
        RoutingError::Store(_) => {
            let mut r = problem(StatusCode::SERVICE_UNAVAILABLE, e.to_string());
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            return r;
        }
        RoutingError::AnswerTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
        RoutingError::StoreOff => StatusCode::NOT_FOUND,
        RoutingError::Full { .. }
        | RoutingError::StatusFixed { .. }
        | RoutingError::Revisions { .. }
        | RoutingError::IdempotencyInProgress => StatusCode::CONFLICT,
        RoutingError::IdempotencyMismatch => StatusCode::UNPROCESSABLE_ENTITY,
        RoutingError::Lifetime(_) | RoutingError::Callback(_) | RoutingError::Field(_) => {
            StatusCode::UNPROCESSABLE_ENTITY
        }
        RoutingError::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    };
    problem(status, e.to_string())
}

/// 409 for an answer to a closed or expired document, as a page for a browser's form post.
fn not_open(status: Status, e: &RoutingError, browser: bool) -> Resp {
    if !browser {
        return problem_with(
            StatusCode::CONFLICT,
            e.to_string(),
            json!({ "document_status": status.name() }),
        );
    }
    let (title, said) = match status {
        Status::Expired => (
            "This document has expired",
            "Its time ran out, so it takes no more answers and yours were not sent. Ask its sender for a new link if you still need to answer.",
        ),
        _ => (
            "This document is closed",
            "Its sender closed it, so it takes no more answers and yours were not sent. Ask its sender to reopen it if you still need to answer.",
        ),
    };
    let page = markup! { h1 { (title) } p { (said) } };
    let mut r = html(
        StatusCode::CONFLICT,
        passback_engine::page(&page.into_string(), title, "/assets"),
        None,
    );
    no_store(&mut r);
    r
}

/// 404 or 410 for a review link, as a page for a browser.
fn missing(gone: bool, browser: bool) -> Resp {
    let (status, title, said) = if gone {
        (
            StatusCode::GONE,
            "This document is no longer here",
            "It was deleted by its sender or its time ran out, and its answers with it. Ask the sender for a new link if you still need to answer.",
        )
    } else {
        (
            StatusCode::NOT_FOUND,
            "There is no document at this link",
            "Check that the link is complete, or ask the sender for it again.",
        )
    };
    if !browser {
        return problem(status, said);
    }
    let page = markup! { h1 { (title) } p { (said) } };
    let mut r = html(
        status,
        passback_engine::page(&page.into_string(), title, "/assets"),
        None,
    );
    no_store(&mut r);
    r
}

/// 429 with `Retry-After`: problem+json, or a page for a reader's browser (the review page's
/// form post).
fn too_many(wait: std::time::Duration, said: String, browser: bool) -> Resp {
    let mut r = if browser {
        let title = "Too many answers just now";
        let page = markup! { h1 { (title) } p { (said) } p { "Go back to keep what you wrote, and send it again in a moment." } };
        let mut r = html(
            StatusCode::TOO_MANY_REQUESTS,
            passback_engine::page(&page.into_string(), title, "/assets"),
            None,
        );
        no_store(&mut r);
        r
    } else {
        problem_with(
            StatusCode::TOO_MANY_REQUESTS,
            said,
            json!({ "retry_after": wait.as_secs() }),
        )
    };
    if let Ok(v) = HeaderValue::from_str(&wait.as_secs().to_string()) {
        r.headers_mut().insert(header::RETRY_AFTER, v);
    }
    r
}
