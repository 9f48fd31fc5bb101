//! [`SealedStore`] as a [`Store`]: every call passes to the backend, sealing what goes in and
//! opening what comes out.

use super::SealedStore;
use crate::store::events::{Attempt, Delivery, Event};
use crate::store::keys::{Cursor, KeyAdded, KeyInfo, NewKey};
use crate::store::{
    Added, Document, DocumentSummary, Lookup, Millis, NewDocument, NewRecipient, NewResponse,
    Recipient, Revised, RevisionText, Store, StoreError, StoreFuture, StoredResponse,
};
use std::time::Duration;

impl Store for SealedStore {
    fn prepare(&self) -> StoreFuture<'_, ()> {
        self.inner.prepare()
    }

    fn create(&self, doc: NewDocument) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let markdown = self.store_text(&doc.id, "markdown", &doc.markdown)?;
            let hash = self.store_text(&doc.id, "hash", &doc.hash)?;
            let verdict = match &doc.verdict {
                Some(labels) => Some(
                    labels
                        .iter()
                        .map(|l| self.store_text(&doc.id, "verdict_choice", l))
                        .collect::<Result<Vec<_>, _>>()?,
                ),
                None => None,
            };
            let recipients = doc
                .recipients
                .iter()
                .map(|r| {
                    Ok(NewRecipient {
                        secret_hash: r.secret_hash,
                        name: self.store_text(&doc.id, "recipient_name", &r.name)?,
                        email: self.store_option(&doc.id, "recipient_email", r.email.as_deref())?,
                    })
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            let sender = self.store_option(&doc.id, "sender", doc.sender.as_deref())?;
            self.inner
                .create(NewDocument {
                    markdown,
                    hash,
                    verdict,
                    recipients,
                    sender,
                    ..doc
                })
                .await
        })
    }

    /// A revision's text and hash are sealed as the routed document's are, bound to the same
    /// fields: a revision moves from the document's row to the revisions' as it is.
    fn revise(
        &self,
        id: &str,
        markdown: String,
        hash: String,
        now: Millis,
        max_revisions: u64,
    ) -> StoreFuture<'_, Revised> {
        let id = id.to_string();
        Box::pin(async move {
            let markdown = self.store_text(&id, "markdown", &markdown)?;
            let hash = self.store_text(&id, "hash", &hash)?;
            self.inner
                .revise(&id, markdown, hash, now, max_revisions)
                .await
        })
    }

    fn revision(&self, id: &str, revision: u64) -> StoreFuture<'_, Option<RevisionText>> {
        let id = id.to_string();
        Box::pin(async move {
            match self.inner.revision(&id, revision).await? {
                Some(found) => Ok(Some(RevisionText {
                    markdown: self.read_text(&id, "markdown", found.markdown)?,
                    hash: self.read_text(&id, "hash", found.hash)?,
                })),
                None => Ok(None),
            }
        })
    }

    fn document(&self, id: &str, now: Millis) -> StoreFuture<'_, Lookup<Document>> {
        let id = id.to_string();
        Box::pin(async move {
            match self.inner.document(&id, now).await? {
                Lookup::Live(doc) => {
                    let markdown = self.read_text(&id, "markdown", doc.markdown.clone())?;
                    let hash = self.read_text(&id, "hash", doc.hash.clone())?;
                    let verdict = match doc.verdict.clone() {
                        Some(labels) => Some(
                            labels
                                .into_iter()
                                .map(|l| self.read_text(&id, "verdict_choice", l))
                                .collect::<Result<Vec<_>, _>>()?,
                        ),
                        None => None,
                    };
                    let sender = self.read_option(&id, "sender", doc.sender.clone())?;
                    Ok(Lookup::Live(Document {
                        markdown,
                        hash,
                        verdict,
                        sender,
                        ..doc
                    }))
                }
                other => Ok(other),
            }
        })
    }

    fn delete(&self, id: &str, now: Millis) -> StoreFuture<'_, Lookup<()>> {
        self.inner.delete(id, now)
    }

    /// A summary holds nothing sealed (ids, times and counts are kept in the clear).
    fn set_closed(
        &self,
        id: &str,
        closed: bool,
        now: Millis,
    ) -> StoreFuture<'_, Lookup<DocumentSummary>> {
        self.inner.set_closed(id, closed, now)
    }

    fn count_view(&self, id: &str) -> StoreFuture<'_, ()> {
        self.inner.count_view(id)
    }

    fn add_response(
        &self,
        id: &str,
        response: NewResponse,
        max_responses: u64,
    ) -> StoreFuture<'_, Added> {
        let id = id.to_string();
        Box::pin(async move {
            let stored = NewResponse {
                received_at: response.received_at,
                reviewer: match &response.reviewer {
                    Some(name) => Some(self.store_text(&id, "reviewer", name)?),
                    None => None,
                },
                component_inputs: self.store_json(
                    &id,
                    "component_inputs",
                    response.component_inputs,
                )?,
                annotations: self.store_json(&id, "annotations", response.annotations)?,
                export: self.store_text(&id, "export", &response.export)?,
                submission: response.submission,
                recipient: match &response.recipient {
                    Some((seq, name)) => Some((*seq, self.store_text(&id, "recipient", name)?)),
                    None => None,
                },
                verdict: self.store_option(&id, "verdict", response.verdict.as_deref())?,
                revision: response.revision,
                claim_until: response.claim_until,
            };
            match self.inner.add_response(&id, stored, max_responses).await? {
                Added::Stored(kept, delivery) => Ok(Added::Stored(
                    Box::new(self.open_response(&id, *kept)?),
                    delivery,
                )),
                other => Ok(other),
            }
        })
    }

    fn responses(&self, id: &str, since: u64) -> StoreFuture<'_, Vec<StoredResponse>> {
        let id = id.to_string();
        Box::pin(async move {
            let found = self.inner.responses(&id, since).await?;
            self.open_responses(&id, found)
        })
    }

    fn wait_for_responses(
        &self,
        id: &str,
        since: u64,
        timeout: Duration,
    ) -> StoreFuture<'_, Vec<StoredResponse>> {
        let id = id.to_string();
        Box::pin(async move {
            let found = self.inner.wait_for_responses(&id, since, timeout).await?;
            self.open_responses(&id, found)
        })
    }

    fn expire(
        &self,
        now: Millis,
        purge_before: Millis,
        forget_before: Millis,
    ) -> StoreFuture<'_, u64> {
        self.inner.expire(now, purge_before, forget_before)
    }

    fn wake_all(&self) {
        self.inner.wake_all()
    }

    // Keys are kept as hashes, and listings hold ids, times and counts: nothing to seal.

    fn add_key(&self, key: NewKey) -> StoreFuture<'_, KeyAdded> {
        self.inner.add_key(key)
    }

    fn keys(&self) -> StoreFuture<'_, Vec<KeyInfo>> {
        self.inner.keys()
    }

    fn revoke_key(&self, name: &str, now: Millis) -> StoreFuture<'_, Lookup<()>> {
        self.inner.revoke_key(name, now)
    }

    fn set_webhook_secret(
        &self,
        name: &str,
        secret: &str,
        previous_until: Millis,
    ) -> StoreFuture<'_, Lookup<()>> {
        self.inner.set_webhook_secret(name, secret, previous_until)
    }

    fn key_by_hash(&self, hash: [u8; 32]) -> StoreFuture<'_, Option<KeyInfo>> {
        self.inner.key_by_hash(hash)
    }

    fn list_documents(
        &self,
        owner: &str,
        after: Option<Cursor>,
        limit: usize,
        now: Millis,
    ) -> StoreFuture<'_, Vec<DocumentSummary>> {
        self.inner.list_documents(owner, after, limit, now)
    }

    fn routed_since(&self, owner: &str, since: Millis) -> StoreFuture<'_, (u64, Option<Millis>)> {
        self.inner.routed_since(owner, since)
    }

    fn stored_bytes(&self, owner: &str) -> StoreFuture<'_, u64> {
        // Counted as sealed: what the key's documents take on disk.
        self.inner.stored_bytes(owner)
    }

    // Events hold no text of a document or its answers: ids, types and times only.
    fn claim_events(
        &self,
        now: Millis,
        lease_until: Millis,
        limit: usize,
    ) -> StoreFuture<'_, Vec<Delivery>> {
        self.inner.claim_events(now, lease_until, limit)
    }

    fn record_attempts(&self, attempts: Vec<(String, Attempt)>) -> StoreFuture<'_, ()> {
        self.inner.record_attempts(attempts)
    }

    fn events_of_key(
        &self,
        owner: &str,
        since: Option<String>,
        limit: usize,
    ) -> StoreFuture<'_, Option<Vec<Event>>> {
        self.inner.events_of_key(owner, since, limit)
    }

    fn events_of_document(&self, id: &str) -> StoreFuture<'_, Vec<Event>> {
        self.inner.events_of_document(id)
    }

    fn redeliver(&self, id: &str, event: &str, now: Millis) -> StoreFuture<'_, bool> {
        self.inner.redeliver(id, event, now)
    }

    fn recipients(&self, id: &str) -> StoreFuture<'_, Vec<Recipient>> {
        let id = id.to_string();
        Box::pin(async move {
            let found = self.inner.recipients(&id).await?;
            found
                .into_iter()
                .map(|r| self.open_recipient(&id, r))
                .collect()
        })
    }

    fn recipient(
        &self,
        id: &str,
        secret_hash: [u8; 32],
        opened: Option<Millis>,
    ) -> StoreFuture<'_, Option<Recipient>> {
        let id = id.to_string();
        Box::pin(async move {
            match self.inner.recipient(&id, secret_hash, opened).await? {
                Some(r) => Ok(Some(self.open_recipient(&id, r)?)),
                None => Ok(None),
            }
        })
    }

    // The answers an idempotency key keeps are sealed already, with a key of their own.
    fn claim_idempotency(
        &self,
        claim: crate::store::idempotency::KeyClaim,
    ) -> StoreFuture<'_, crate::store::idempotency::Claim> {
        self.inner.claim_idempotency(claim)
    }

    fn finish_idempotency(
        &self,
        key_hash: &str,
        status: u16,
        sealed: String,
    ) -> StoreFuture<'_, ()> {
        self.inner.finish_idempotency(key_hash, status, sealed)
    }

    fn release_idempotency(&self, key_hash: &str) -> StoreFuture<'_, ()> {
        self.inner.release_idempotency(key_hash)
    }

    fn forget_idempotency(&self, before: Millis) -> StoreFuture<'_, u64> {
        self.inner.forget_idempotency(before)
    }
}
