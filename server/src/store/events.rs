//! The webhook event types: an event and its delivery state, a claimed delivery, an attempt,
//! the event type names and new webhook secrets.

use super::{Millis, StoreError};

/// One event (contract §6.2), with its delivery state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// `evt_` and 32 hex digits: the webhook's `webhook-id`.
    pub id: String,
    pub document_id: String,
    /// `response.created`, `document.closed` or `document.expired`.
    pub kind: String,
    pub response_id: Option<u64>,
    pub created_at: Millis,
    /// Whether it is delivered (a callback URL was set when it was made).
    pub deliver: bool,
    pub attempts: u32,
    /// When it is next tried; `None` once delivered, given up, or never to deliver.
    pub next_attempt_at: Option<Millis>,
    pub delivered_at: Option<Millis>,
    pub last_status: Option<u16>,
    pub last_error: Option<String>,
}

/// An event claimed for delivery, and where it goes.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    pub event: Event,
    pub to: Destination,
}

/// Where a document's events go and what signs them: its callback URL and secret (its own, or
/// its key's).
#[derive(Debug, Clone, PartialEq)]
pub struct Destination {
    pub url: String,
    /// `whsec_…`.
    pub secret: String,
    /// The key's secret before its last rotation, while its grace period lasts: deliveries
    /// are signed with both, so a receiver still on the old one verifies them.
    pub previous_secret: Option<String>,
}

impl Delivery {
    /// The `response.created` event `event_id` of response `response_id`, claimed at birth by
    /// the server that stored the response: not yet tried, first due at `due`, going `to`.
    pub fn of_new_response(
        event_id: String,
        document_id: &str,
        response_id: u64,
        created_at: Millis,
        due: Millis,
        to: Destination,
    ) -> Delivery {
        Delivery {
            event: Event {
                id: event_id,
                document_id: document_id.to_string(),
                kind: RESPONSE_CREATED.to_string(),
                response_id: Some(response_id),
                created_at,
                deliver: true,
                attempts: 0,
                next_attempt_at: Some(due),
                delivered_at: None,
                last_status: None,
                last_error: None,
            },
            to,
        }
    }
}

/// One delivery attempt's outcome.
#[derive(Debug, Clone)]
pub struct Attempt {
    pub at: Millis,
    /// The receiver's HTTP status, when it answered.
    pub status: Option<u16>,
    /// What went wrong; `None` for a delivered event.
    pub error: Option<String>,
    /// Whether it was delivered (a 2xx).
    pub delivered: bool,
    /// When to try again; `None` to stop (delivered, or given up).
    pub next_attempt_at: Option<Millis>,
}

/// Notified when an event was written to the outbox: by this process (see
/// `webhooks::wake`), or, on PostgreSQL, by another one (its listener hears the announcement).
/// The webhook worker waits on it between polls.
pub static OUTBOX_WRITTEN: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// The event types.
pub const RESPONSE_CREATED: &str = "response.created";
pub const DOCUMENT_CLOSED: &str = "document.closed";
pub const DOCUMENT_EXPIRED: &str = "document.expired";

/// What every webhook secret starts with (Standard Webhooks); base64 of 24 random bytes
/// follows.
pub const WEBHOOK_SECRET_PREFIX: &str = "whsec_";

/// A new webhook secret: `whsec_` and base64 (standard, as Standard Webhooks says) of 24
/// random bytes.
pub fn new_webhook_secret() -> Result<String, StoreError> {
    use base64::Engine as _;
    let mut buf = [0u8; 24];
    getrandom::fill(&mut buf)
        .map_err(|e| StoreError::new("the system's random source failed", e))?;
    Ok(format!(
        "{WEBHOOK_SECRET_PREFIX}{}",
        base64::engine::general_purpose::STANDARD.encode(buf)
    ))
}
