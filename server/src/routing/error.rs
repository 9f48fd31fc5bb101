//! [`RoutingError`]: every way a routed-documents rule says no, for each front end to map in
//! one place (HTTP to problem+json, the MCP tools to tool errors).

use crate::admission::Unadmitted;
use crate::limit::RouteLimit;
use crate::store::StoreError;
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
    /// The document holds its limit of responses already.
    Full { max_responses: u64 },
    /// The client has routed as many documents as `--route-limit` allows: retry after `wait`.
    OverLimit { wait: Duration, limit: RouteLimit },
    /// A bound on one holder was reached (long-polls waiting at once, answers a minute): the
    /// sentence says which; retry after `wait`.
    Bounded { wait: Duration, why: String },
    /// An answer over `--max-answer-bytes` as it would be stored (`bytes`).
    AnswerTooLarge { bytes: usize, max: usize },
    /// `expires_in` out of range: the sentence says what to give instead.
    Lifetime(String),
    /// The document violates the PassbackAI spec: how many errors, and every diagnostic.
    Violating { errors: usize, diagnostics: Value },
    /// No render slot came free within the queue timeout (`waited`).
    Busy { waited: Duration },
    /// The validation failed on an internal error.
    Internal,
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
            RoutingError::Full { max_responses } => write!(
                f,
                "This document has taken its limit of {max_responses} responses, so no more are kept; ask its sender to route it again."
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
            RoutingError::Lifetime(said) => f.write_str(said),
            RoutingError::Violating { errors, .. } => write!(
                f,
                "The document violates the PassbackAI spec ({errors} error{}); fix what \"diagnostics\" lists, then route it again.",
                if *errors == 1 { "" } else { "s" }
            ),
            RoutingError::Busy { waited } => Unadmitted::Busy { waited: *waited }.fmt(f),
            RoutingError::Internal => {
                f.write_str("Validation failed on an internal error; please report it.")
            }
        }
    }
}
