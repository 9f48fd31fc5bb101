//! [`RoutingError`]: every way a routed-documents rule says no, for each front end to map in
//! one place (HTTP to problem+json, the MCP tools to tool errors).

use crate::admission::Unadmitted;
use crate::limit::RouteLimit;
use crate::store::{self, Millis, Status, StoreError};
use serde_json::Value;
use std::fmt;
use std::time::Duration;

/// Why a routed-documents operation did not happen.
#[derive(Debug)]
pub enum RoutingError {
    /// The server keeps no routed documents (`--store off`).
    StoreOff,
    /// The store failed; the failure was logged when it happened.
    Store(StoreError),
    /// No document has this id (never routed here, or forgotten after the retention period).
    Unknown { id: String },
    /// The document was deleted or its time ran out.
    Gone,
    /// The bearer token is not the document's.
    WrongToken,
    /// The document is closed or expired: it takes no responses.
    NotOpen { status: Status },
    /// An expired document's status cannot change; `expires_at` is when it expired.
    StatusFixed { expires_at: Millis },
    /// No key is presented where one is required (`GET /v1/documents`; routing on a server
    /// that is not on loopback).
    KeyRequired,
    /// The presented key is not one of this server's.
    UnknownKey,
    /// The presented key was revoked.
    RevokedKey,
    /// The key has routed as many documents this hour as `--key-documents-per-hour` allows.
    KeyQuota { limit: u64, wait: Duration },
    /// The key's kept documents take as many bytes as `--key-max-bytes` allows.
    KeyFull {
        used: u64,
        limit: u64,
        wait: Duration,
    },
    /// The document holds its limit of responses already.
    Full { max_responses: u64 },
    /// The answers were read against revision `answered`, but the document is at `revision`
    /// now: nothing was kept.
    Stale { answered: u64, revision: u64 },
    /// The document has as many revisions as it may.
    Revisions { max: u64 },
    /// The client has routed as many documents as `--route-limit` allows: retry after `wait`.
    OverLimit { wait: Duration, limit: RouteLimit },
    /// A bound on one holder was reached (long-polls waiting at once, answers a minute): the
    /// sentence says which; retry after `wait`.
    Bounded { wait: Duration, why: String },
    /// An answer over `--max-answer-bytes` as it would be stored (`bytes`).
    AnswerTooLarge { bytes: usize, max: usize },
    /// `expires_in` out of range: the sentence says what to give instead.
    Lifetime(String),
    /// `callback_url` refused: the sentence names it and says what to give instead.
    Callback(String),
    /// A field of the request (`recipients`, `verdict`) refused: the sentence names it and says
    /// what to give instead.
    Field(String),
    /// The document violates the PassbackAI spec: how many errors, and every diagnostic.
    Violating { errors: usize, diagnostics: Value },
    /// No render slot came free within the queue timeout (`waited`).
    Busy { waited: Duration },
    /// The validation failed on an internal error.
    Internal,
    /// The `Idempotency-Key` was used (by this sender, within the window) with another body.
    IdempotencyMismatch,
    /// A request with the same `Idempotency-Key` is still being worked on.
    IdempotencyInProgress,
}

impl RoutingError {
    /// A store failure, logged here so each one is logged once whichever front end answers it.
    pub(crate) fn store(e: StoreError) -> Self {
        tracing::error!(error = %e, "the document store failed");
        RoutingError::Store(e)
    }
}

impl From<Unadmitted> for RoutingError {
    fn from(refused: Unadmitted) -> Self {
        match refused {
            Unadmitted::Busy { waited } => RoutingError::Busy { waited },
            Unadmitted::Failed => RoutingError::Internal,
        }
    }
}

/// The sentence every front end says for the outcome, where they say the same (the others name
/// their own ways to a token or a document, and say those themselves).
impl fmt::Display for RoutingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RoutingError::StoreOff => f.write_str(
                "This server keeps no routed documents (it was started with --store off); start it with --store sqlite:PATH or --store postgres://USER@HOST/DATABASE to route documents.",
            ),
            RoutingError::Store(_) => {
                f.write_str("The document store is unavailable just now; try again in a moment.")
            }
            RoutingError::Unknown { .. } => f.write_str("There is no document with this id."),
            RoutingError::Gone => f.write_str("This document is no longer here."),
            RoutingError::WrongToken => f.write_str("That token is not this document's."),
            RoutingError::NotOpen {
                status: Status::Expired,
            } => f.write_str(
                "This document has expired: it takes no more answers. Its sender can still read the answers it took.",
            ),
            RoutingError::NotOpen { .. } => f.write_str(
                "This document is closed: its sender takes no more answers to it. The answers it took are kept.",
            ),
            RoutingError::StatusFixed { expires_at } => write!(
                f,
                "This document expired at {}; its status can no longer change. Its answers stay readable until it is purged; route it again to collect new answers.",
                store::rfc3339(*expires_at)
            ),
            RoutingError::KeyRequired => f.write_str(
                "This needs a sender key: send Authorization: Bearer KEY, with a key the server's operator made with `passback keys add NAME` (a server listening beyond loopback routes only for keys, unless started with --open-routing).",
            ),
            RoutingError::UnknownKey => f.write_str(
                "That key is not one this server knows; check that it was copied whole (it starts with pbk_), or ask the operator for a key (`passback keys add NAME`).",
            ),
            RoutingError::RevokedKey => f.write_str(
                "That key was revoked; ask the server's operator for a new one (`passback keys add NAME`).",
            ),
            RoutingError::KeyQuota { limit, wait } => write!(
                f,
                "This key has routed {limit} documents in the last hour, as many as this server allows (--key-documents-per-hour); try again in {} s.",
                wait.as_secs()
            ),
            RoutingError::KeyFull { used, limit, .. } => write!(
                f,
                "This key's documents and their answers take {used} bytes, and this server keeps at most {limit} for one key (--key-max-bytes); delete documents you no longer need (DELETE /v1/documents/{{id}}), or wait for them to expire and be purged.",
            ),
            RoutingError::Full { max_responses } => write!(
                f,
                "This document has taken its limit of {max_responses} responses, so no more are kept; ask its sender to route it again."
            ),
            RoutingError::Stale { answered, revision } => write!(
                f,
                "These answers are to revision {answered}, but the document is at revision {revision} now: nothing was kept. Read it again (GET /r/{{id}}) and answer the latest revision."
            ),
            RoutingError::Revisions { max } => write!(
                f,
                "This document has {max} revisions, as many as one document may have; route the new text as a new document (POST /v1/documents)."
            ),
            RoutingError::OverLimit { wait, limit } => write!(
                f,
                "This address has routed as many documents as this server allows, {limit} (--route-limit); try again in {} s.",
                wait.as_secs()
            ),
            RoutingError::Bounded { why, .. } => f.write_str(why),
            RoutingError::AnswerTooLarge { bytes, max } => write!(
                f,
                "The answer would be stored as {bytes} bytes, over this server's limit of {max} bytes an answer (--max-answer-bytes); send fewer or shorter comments."
            ),
            RoutingError::Lifetime(said)
            | RoutingError::Callback(said)
            | RoutingError::Field(said) => f.write_str(said),
            RoutingError::Violating { errors, .. } => write!(
                f,
                "The document violates the PassbackAI spec ({errors} error{}); fix what \"diagnostics\" lists, then route it again.",
                if *errors == 1 { "" } else { "s" }
            ),
            RoutingError::Busy { waited } => Unadmitted::Busy { waited: *waited }.fmt(f),
            RoutingError::Internal => {
                f.write_str("Validation failed on an internal error; please report it.")
            }
            RoutingError::IdempotencyMismatch => f.write_str(
                "This Idempotency-Key was used with another body; send that body again to get its answer, or use a new key for a new request.",
            ),
            RoutingError::IdempotencyInProgress => f.write_str(
                "A request with this Idempotency-Key is still being worked on; retry in a moment to get its answer.",
            ),
        }
    }
}
