//! The limits routing applies: routing and answer tokens, long-poll places, an answer's stored size.

use super::error::RoutingError;
use crate::limit::RouteLimiter;
use crate::store::Document;
use serde_json::Value;
use std::net::IpAddr;

/// Takes one of `client`'s routing tokens (`--route-limit`). Without a limit, or a client
/// address (the MCP tools on stdio), there is nothing to take.
pub fn take_route_token(
    limiter: Option<&RouteLimiter>,
    client: Option<IpAddr>,
) -> Result<(), RoutingError> {
    match (limiter, client) {
        (Some(limiter), Some(ip)) => {
            limiter
                .take(ip, std::time::Instant::now())
                .map_err(|wait| RoutingError::OverLimit {
                    wait,
                    limit: limiter.limit(),
                })
        }
        _ => Ok(()),
    }
}

/// Documents a page of a key's listing holds by default (`GET /v1/documents`, the
/// `list_documents` tool), and at most.
pub const PAGE_DEFAULT: usize = 50;
pub const PAGE_MAX: usize = 200;

/// A place in `polls` (the server's long-poll budget) for a wait on `document` (counted on its
/// sender key too) by `client`, or the 429 saying which budget is full.
pub fn enter_long_poll(
    polls: &std::sync::Arc<crate::limit::LongPolls>,
    document: &Document,
    client: Option<IpAddr>,
) -> Result<crate::limit::LongPollSlot, RoutingError> {
    polls
        .enter(&document.id, client, document.owner.as_deref())
        .map_err(|why| RoutingError::Bounded {
            wait: crate::limit::LONG_POLL_RETRY,
            why,
        })
}

/// Takes one answer to `document` from `client` from `limiter` (`--answer-limit` and
/// `--document-answer-limit`).
pub fn take_answer_token(
    limiter: &crate::limit::AnswerLimiter,
    document: &str,
    client: Option<IpAddr>,
) -> Result<(), RoutingError> {
    limiter
        .take(document, client, std::time::Instant::now())
        .map_err(|(wait, why)| RoutingError::Bounded { wait, why })
}

/// Refuses an answer whose stored form (its answers, comments and export as the store writes
/// them, and the reviewer's name) is over `max` bytes: what is received is bounded by
/// `--max-body`, but comments expand when stored (each becomes an object with its quote and
/// place), so the bound is on what would be kept.
pub fn check_stored_size(
    inputs: &Value,
    annotations: &Value,
    export: &str,
    reviewer: Option<&str>,
    max: usize,
) -> Result<(), RoutingError> {
    let bytes =
        json_len(inputs) + json_len(annotations) + export.len() + reviewer.map_or(0, str::len);
    if bytes > max {
        return Err(RoutingError::AnswerTooLarge { bytes, max });
    }
    Ok(())
}

/// The length of `v` written as JSON, counted without keeping the text.
fn json_len(v: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, v);
    count.0
}
