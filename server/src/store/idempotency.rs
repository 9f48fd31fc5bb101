//! What the store keeps of an `Idempotency-Key` on `POST /v1/documents` (migration 0008): one
//! row per key (as a hash with its sender's scope), claimed by the first request, holding that
//! request's answer once it has one. The rules (the window, the scope, what a replay answers)
//! are in `routing::idempotency`.

use super::Millis;

/// What [`super::Store::claim_idempotency`] found.
#[derive(Debug, Clone, PartialEq)]
pub enum Claim {
    /// The key is new (or its earlier use is past the window, or was abandoned): the caller does
    /// the work, then [`super::Store::finish_idempotency`] or
    /// [`super::Store::release_idempotency`].
    Claimed,
    /// The key was used by a request whose body hashes to `request_hash`: answered with
    /// `answer` (status, sealed body), or `None` while that request is still being worked on.
    Seen {
        request_hash: String,
        answer: Option<(u16, String)>,
    },
}

/// A key to claim: its scoped hash, the request's hash, and the times that decide whether an
/// earlier use still counts.
#[derive(Debug, Clone)]
pub struct KeyClaim {
    pub key_hash: String,
    pub request_hash: String,
    pub now: Millis,
    /// A use made before this is past the window: forgotten, the key claimed afresh.
    pub expired_before: Millis,
    /// A use still without an answer that began before this was abandoned (its server stopped
    /// mid-request): taken over.
    pub abandoned_before: Millis,
}
