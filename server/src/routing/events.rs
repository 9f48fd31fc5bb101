//! A key's events as listed (`GET /v1/events`, `list_events`): the page sizes and each event's JSON.

use crate::store::{self, Event};
use serde_json::{Value, json};

/// Events a page of `GET /v1/events` (and `list_events`) lists by default, and at most.
pub const EVENTS_DEFAULT: usize = 100;
pub const EVENTS_MAX: usize = 500;

/// An event as listed: `{ id, type, document_id, response_id?, created_at }`, and with
/// `delivery`, its delivery state.
pub fn event_json(e: &Event, delivery: bool) -> Value {
    let mut v = crate::webhooks::payload(e);
    if let Some(fields) = v.as_object_mut() {
        fields.insert("id".into(), json!(e.id));
        if delivery {
            let status = if !e.deliver {
                "none"
            } else if e.delivered_at.is_some() && e.next_attempt_at.is_none() {
                "delivered"
            } else if e.next_attempt_at.is_some() {
                "pending"
            } else {
                "failed"
            };
            fields.insert("status".into(), json!(status));
            fields.insert("attempts".into(), json!(e.attempts));
            fields.insert(
                "next_attempt_at".into(),
                json!(e.next_attempt_at.map(store::rfc3339)),
            );
            fields.insert(
                "delivered_at".into(),
                json!(e.delivered_at.map(store::rfc3339)),
            );
            fields.insert("last_status".into(), json!(e.last_status));
            fields.insert("last_error".into(), json!(e.last_error));
        }
    }
    v
}
