//! A reader's responses: keep one (once per submission, through a recipient's link, with a verdict), open a receipt, list them after a cursor.

use super::Routing;
use super::error::RoutingError;
use crate::store::{self, Added, Document, NewResponse, Recipient, Status, StoredResponse};
use serde_json::{Value, json};
use std::time::Duration;

impl Routing {
    /// Keeps a reader's response to `id`, unless the document holds its limit of them.
    pub async fn respond(
        &self,
        id: &str,
        reviewer: Option<String>,
        component_inputs: Value,
        annotations: Value,
        export: String,
    ) -> Result<Box<StoredResponse>, RoutingError> {
        let revision = self.live(id).await?.revision;
        self.respond_once(
            id,
            reviewer,
            component_inputs,
            annotations,
            export,
            None,
            revision,
        )
        .await
    }

    /// [`Routing::respond`] to revision `revision` (the one the answers were read against),
    /// and with a `submission` id, a response already kept for it is the answer, and nothing
    /// new is kept.
    #[allow(clippy::too_many_arguments)]
    pub async fn respond_once(
        &self,
        id: &str,
        reviewer: Option<String>,
        component_inputs: Value,
        annotations: Value,
        export: String,
        submission: Option<&str>,
        revision: u64,
    ) -> Result<Box<StoredResponse>, RoutingError> {
        let answer = Answer {
            revision,
            reviewer,
            component_inputs,
            annotations,
            export,
            submission: submission.map(str::to_string),
            recipient: None,
            verdict: None,
        };
        self.respond_with(id, answer).await
    }

    /// [`Routing::respond_once`] for a whole [`Answer`]: through a recipient's link, with a
    /// verdict.
    pub async fn respond_with(
        &self,
        id: &str,
        answer: Answer,
    ) -> Result<Box<StoredResponse>, RoutingError> {
        let answered = answer.revision;
        let received_at = store::now();
        let hand_off = self.hand_off.get();
        let claim_until = hand_off.and_then(|h| h.claim_until(received_at));
        let response = NewResponse {
            revision: answer.revision,
            received_at,
            claim_until,
            reviewer: answer.reviewer,
            component_inputs: answer.component_inputs,
            annotations: answer.annotations,
            export: answer.export,
            submission: answer.submission.as_deref().map(submission_hash),
            recipient: answer.recipient.map(|r| (r.seq, r.name)),
            verdict: answer.verdict,
        };
        match self
            .store
            .add_response(id, response, self.max_responses)
            .await
        {
            Ok(Added::Stored(stored, delivery)) => {
                match (delivery, hand_off) {
                    (Some(delivery), Some(hand_off)) => hand_off.give(*delivery),
                    // Claimed, yet nothing came back: the document has no callback URL.
                    (None, _) if claim_until.is_some() => {}
                    _ => crate::webhooks::wake(),
                }
                Ok(stored)
            }
            // A copy kept of it is out of date: the next reader reads it afresh.
            Ok(Added::NotOpen(status)) => {
                self.answerable.forget(id);
                Err(RoutingError::NotOpen { status })
            }
            Ok(Added::Gone) => {
                self.answerable.forget(id);
                Err(RoutingError::Gone)
            }
            Ok(Added::Unknown) => {
                self.answerable.forget(id);
                Err(RoutingError::Unknown { id: id.to_string() })
            }
            Ok(Added::Full) => Err(RoutingError::Full {
                max_responses: self.max_responses,
            }),
            Ok(Added::Stale { revision }) => {
                self.answerable.forget(id);
                Err(RoutingError::Stale { answered, revision })
            }
            Err(e) => Err(RoutingError::store(e)),
        }
    }

    /// The response `response_id` to `id`, when `submission` is the id of the form that sent it
    /// (what opens a reader's receipt page); `None` for anything else.
    pub async fn receipt(
        &self,
        id: &str,
        response_id: u64,
        submission: &str,
    ) -> Result<Option<StoredResponse>, RoutingError> {
        if response_id == 0 || !is_submission_id(submission) {
            return Ok(None);
        }
        let found = self
            .store
            .responses(id, response_id - 1)
            .await
            .map_err(RoutingError::store)?;
        let want = submission_hash(submission);
        // Hashes are compared, not secrets: timing tells nothing about the id.
        Ok(found.into_iter().next().filter(|r| {
            r.response_id == response_id && r.submission.as_deref() == Some(want.as_str())
        }))
    }

    /// `{ document, responses }`: the responses to `doc` after `since`, oldest first, waiting
    /// up to `wait` for the first when there are none yet. Every front end lists responses
    /// through here, once the token was checked ([`Routing::authorized`]).
    pub async fn responses_after(
        &self,
        doc: &Document,
        since: u64,
        wait: Duration,
    ) -> Result<Value, RoutingError> {
        // A closed or expired document takes no new response: nothing to wait for.
        let found = if wait.is_zero() || doc.status != Status::Open {
            self.store.responses(&doc.id, since).await
        } else {
            self.store.wait_for_responses(&doc.id, since, wait).await
        }
        .map_err(RoutingError::store)?;
        // A wait that ends empty may have ended because the document was deleted (410) or
        // closed meanwhile: the list then says how it is now.
        let now;
        let doc = if found.is_empty() && !wait.is_zero() {
            now = self.live(&doc.id).await?;
            &now
        } else {
            doc
        };
        Ok(json!({
            "document": document_summary(doc),
            "responses": found.iter().map(response_json).collect::<Vec<_>>(),
        }))
    }
}

/// A reader's response to keep (see [`Routing::respond_with`]).
#[derive(Debug, Clone, Default)]
pub struct Answer {
    pub reviewer: Option<String>,
    pub component_inputs: Value,
    pub annotations: Value,
    pub export: String,
    /// The form's submission id: a second post with it finds the first response.
    pub submission: Option<String>,
    /// The recipient whose link it came through.
    pub recipient: Option<Recipient>,
    /// The verdict's label chosen (one of the document's).
    pub verdict: Option<String>,
    /// The revision of the document the answers were read against.
    pub revision: u64,
}

/// The document's `{ id, hash, created_at, expires_at, status }`.
fn document_summary(doc: &Document) -> Value {
    json!({
        "id": doc.id,
        "hash": doc.hash,
        "created_at": store::rfc3339(doc.created_at),
        "expires_at": store::rfc3339(doc.expires_at),
        "status": doc.status.name(),
        "revision": doc.revision,
    })
}

/// Whether `s` can be a submission id: 16 to 128 URL-safe characters (the server writes 22,
/// 128 random bits; a JSON client may send its own, such as a UUID).
pub fn is_submission_id(s: &str) -> bool {
    (16..=128).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// What the store keeps of a submission id: its blake3 hash, base64url.
fn submission_hash(submission: &str) -> String {
    store::base64url(&store::key_hash(submission))
}

fn response_json(r: &StoredResponse) -> Value {
    json!({
        "response_id": r.response_id,
        "revision": r.revision,
        "received_at": store::rfc3339(r.received_at),
        "reviewer": r.reviewer,
        "componentInputs": r.component_inputs,
        "annotations": r.annotations,
        "export": r.export,
        "recipient": r.recipient,
        "verdict": r.verdict,
    })
}
