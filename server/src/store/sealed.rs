//! Encryption at rest (`--store-key-file`): a [`Store`] that seals a document's text and every
//! field of its responses with XChaCha20-Poly1305 before they reach the backend, and opens
//! them on the way back. The backend, its files, its WAL and its backups then hold only
//! ciphertext for the text, its content hash (a plain hash would confirm a guessed document)
//! and the answers; ids, token hashes, times and counts stay in the clear.
//!
//! A sealed value is the text `pbs1.{key id}.{base64url(nonce ‖ ciphertext ‖ tag)}`. The
//! document id and the field's name are its associated data, so a value moved to another row
//! or column fails to open instead of showing the wrong text. Values written before a key was
//! configured stay readable as they are.
//!
//! Rotation: the key file lists keys one per line as `ID:BASE64` (32 bytes); the first seals,
//! all of them open. Put a new key first, restart, and drop an old key once everything sealed
//! with it has been deleted or purged (at most the retention periods after the switch).

use super::events::{Attempt, Delivery, Event};
use super::keys::{Cursor, KeyAdded, KeyInfo, NewKey};
use super::{
    Added, Document, DocumentSummary, Lookup, Millis, NewDocument, NewRecipient, NewResponse,
    Recipient, Revised, RevisionText, Store, StoreError, StoreFuture, StoredResponse,
};
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// What every sealed value starts with.
const PREFIX: &str = "pbs1.";
const NONCE_BYTES: usize = 24;
const KEY_BYTES: usize = 32;

/// The operator's keys: the first seals, every one opens.
pub struct SealKeys {
    keys: Vec<(String, XChaCha20Poly1305)>,
}

impl std::fmt::Debug for SealKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key material.
        let ids: Vec<&str> = self.keys.iter().map(|(id, _)| id.as_str()).collect();
        f.debug_struct("SealKeys").field("ids", &ids).finish()
    }
}

impl SealKeys {
    /// Reads a key file: one `ID:BASE64` per line (ID of letters, digits, `-` and `_`; 32
    /// bytes of key in standard or URL-safe base64), `#` comments and blank lines skipped.
    /// The error names the line and what to write instead.
    pub fn parse(text: &str) -> Result<SealKeys, String> {
        use base64::Engine as _;
        let mut keys: Vec<(String, XChaCha20Poly1305)> = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let n = n + 1;
            let Some((id, b64)) = line.split_once(':') else {
                return Err(format!(
                    "line {n}: write a key as ID:BASE64 (for example `k2026:` followed by the output of `head -c 32 /dev/urandom | base64`)"
                ));
            };
            let id = id.trim();
            if id.is_empty()
                || id.len() > 32
                || !id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            {
                return Err(format!(
                    "line {n}: a key's ID is 1 to 32 letters, digits, `-` or `_`, not `{id}`"
                ));
            }
            if keys.iter().any(|(seen, _)| seen == id) {
                return Err(format!("line {n}: the key ID `{id}` is listed twice"));
            }
            let b64 = b64.trim();
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(b64)
                .or_else(|_| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(b64))
                .map_err(|_| format!("line {n}: the key `{id}` is not base64"))?;
            if bytes.len() != KEY_BYTES {
                return Err(format!(
                    "line {n}: the key `{id}` is {} bytes; a key is {KEY_BYTES} random bytes (`head -c 32 /dev/urandom | base64`)",
                    bytes.len()
                ));
            }
            let cipher = XChaCha20Poly1305::new(Key::from_slice(&bytes));
            keys.push((id.to_string(), cipher));
        }
        if keys.is_empty() {
            return Err("the key file lists no key; write one as ID:BASE64".into());
        }
        Ok(SealKeys { keys })
    }

    /// The ID of the key that seals.
    pub fn current(&self) -> &str {
        &self.keys[0].0
    }

    /// `text` sealed with the current key, bound to `document` and `field`.
    fn seal(&self, document: &str, field: &str, text: &str) -> Result<String, StoreError> {
        let (id, cipher) = &self.keys[0];
        let mut nonce = [0u8; NONCE_BYTES];
        getrandom::fill(&mut nonce)
            .map_err(|e| StoreError::new("the system's random source failed", e))?;
        let aad = associated(document, field);
        let sealed = cipher
            .encrypt(
                XNonce::from_slice(&nonce),
                Payload {
                    msg: text.as_bytes(),
                    aad: &aad,
                },
            )
            .map_err(|_| StoreError("sealing a stored value failed".into()))?;
        let mut raw = nonce.to_vec();
        raw.extend_from_slice(&sealed);
        Ok(format!("{PREFIX}{id}.{}", super::base64url(&raw)))
    }

    /// The text of a sealed value (or of a plain one, as it is).
    #[cfg(test)]
    fn open(&self, document: &str, field: &str, stored: &str) -> Result<String, StoreError> {
        from_stored(Some(self), document, field, stored.to_string())
    }
}

/// Opens `rest` (a sealed value after its prefix) with `keys`; without keys, or without the
/// key it names, the error tells the operator which key file to give.
fn open_with(
    keys: Option<&SealKeys>,
    document: &str,
    field: &str,
    rest: &str,
) -> Result<String, StoreError> {
    use base64::Engine as _;
    let (id, b64) = rest.split_once('.').ok_or_else(|| {
        StoreError(format!(
            "document {document}: a sealed {field} is malformed"
        ))
    })?;
    let Some((_, cipher)) = keys.and_then(|k| k.keys.iter().find(|(kid, _)| kid == id)) else {
        return Err(StoreError(format!(
            "document {document}: its {field} is sealed with the key `{id}`, which this server was not given; pass --store-key-file with a file that lists it"
        )));
    };
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(b64)
        .ok()
        .filter(|raw| raw.len() > NONCE_BYTES)
        .ok_or_else(|| {
            StoreError(format!(
                "document {document}: a sealed {field} is malformed"
            ))
        })?;
    let (nonce, sealed) = raw.split_at(NONCE_BYTES);
    let aad = associated(document, field);
    let plain = cipher
        .decrypt(
            XNonce::from_slice(nonce),
            Payload {
                msg: sealed,
                aad: &aad,
            },
        )
        .map_err(|_| {
            StoreError(format!(
                "document {document}: its sealed {field} does not open with the key `{id}` (altered, or moved from another row)"
            ))
        })?;
    String::from_utf8(plain)
        .map_err(|_| StoreError(format!("document {document}: a sealed {field} is not text")))
}

/// The associated data of a sealed value: which document and which field it belongs to.
fn associated(document: &str, field: &str) -> Vec<u8> {
    let mut aad = Vec::with_capacity(document.len() + field.len() + 1);
    aad.extend_from_slice(document.as_bytes());
    aad.push(0);
    aad.extend_from_slice(field.as_bytes());
    aad
}

/// What a plain value that happens to start like a sealed one is stored with in front, so that
/// no text a sender or reviewer writes is ever taken for a sealed value.
const PLAIN_PREFIX: &str = "pbs0.";

/// `text` as stored: sealed when there are keys; as it is otherwise, unless it starts like a
/// stored value, when it is marked plain.
fn to_stored(
    keys: Option<&SealKeys>,
    document: &str,
    field: &str,
    text: &str,
) -> Result<String, StoreError> {
    match keys {
        Some(keys) => keys.seal(document, field, text),
        None if text.starts_with(PREFIX) || text.starts_with(PLAIN_PREFIX) => {
            Ok(format!("{PLAIN_PREFIX}{text}"))
        }
        None => Ok(text.to_string()),
    }
}

/// The text of a stored value: opened when sealed (an error naming the key when this server
/// lacks it), unmarked when marked plain, as it is otherwise.
fn from_stored(
    keys: Option<&SealKeys>,
    document: &str,
    field: &str,
    stored: String,
) -> Result<String, StoreError> {
    if let Some(rest) = stored.strip_prefix(PREFIX) {
        open_with(keys, document, field, rest)
    } else if let Some(plain) = stored.strip_prefix(PLAIN_PREFIX) {
        Ok(plain.to_string())
    } else {
        Ok(stored)
    }
}

/// The store every backend is opened through: with keys, document text and response fields
/// are sealed at rest; without, values are kept as they are, and a sealed value found (the
/// key file was left out) is an error naming the key instead of ciphertext shown as text.
pub struct SealedStore {
    inner: Arc<dyn Store>,
    keys: Option<Arc<SealKeys>>,
}

impl SealedStore {
    pub fn new(inner: Arc<dyn Store>, keys: Option<Arc<SealKeys>>) -> Self {
        SealedStore { inner, keys }
    }

    fn store_text(&self, document: &str, field: &str, text: &str) -> Result<String, StoreError> {
        to_stored(self.keys.as_deref(), document, field, text)
    }

    fn read_text(&self, document: &str, field: &str, text: String) -> Result<String, StoreError> {
        from_stored(self.keys.as_deref(), document, field, text)
    }

    /// A JSON field (an object or an array as written): sealed into a JSON string with keys.
    fn store_json(&self, document: &str, field: &str, value: Value) -> Result<Value, StoreError> {
        match self.keys.as_deref() {
            Some(keys) => Ok(Value::String(keys.seal(
                document,
                field,
                &value.to_string(),
            )?)),
            None => Ok(value),
        }
    }

    fn read_json(&self, document: &str, field: &str, value: Value) -> Result<Value, StoreError> {
        match value {
            Value::String(s) if s.starts_with(PREFIX) => {
                let text = from_stored(self.keys.as_deref(), document, field, s)?;
                serde_json::from_str(&text).map_err(|e| {
                    StoreError::new(&format!("document {document}: a sealed {field}"), e)
                })
            }
            other => Ok(other),
        }
    }

    fn read_option(
        &self,
        document: &str,
        field: &str,
        text: Option<String>,
    ) -> Result<Option<String>, StoreError> {
        text.map(|t| self.read_text(document, field, t)).transpose()
    }

    fn store_option(
        &self,
        document: &str,
        field: &str,
        text: Option<&str>,
    ) -> Result<Option<String>, StoreError> {
        text.map(|t| self.store_text(document, field, t))
            .transpose()
    }

    fn open_recipient(&self, document: &str, r: Recipient) -> Result<Recipient, StoreError> {
        Ok(Recipient {
            name: self.read_text(document, "recipient_name", r.name)?,
            email: self.read_option(document, "recipient_email", r.email)?,
            ..r
        })
    }

    fn open_response(
        &self,
        document: &str,
        r: StoredResponse,
    ) -> Result<StoredResponse, StoreError> {
        Ok(StoredResponse {
            recipient: self.read_option(document, "recipient", r.recipient)?,
            verdict: self.read_option(document, "verdict", r.verdict)?,
            response_id: r.response_id,
            received_at: r.received_at,
            reviewer: match r.reviewer {
                Some(name) => Some(self.read_text(document, "reviewer", name)?),
                None => None,
            },
            component_inputs: self.read_json(document, "component_inputs", r.component_inputs)?,
            annotations: self.read_json(document, "annotations", r.annotations)?,
            export: self.read_text(document, "export", r.export)?,
            submission: r.submission,
            revision: r.revision,
        })
    }

    fn open_responses(
        &self,
        document: &str,
        found: Vec<StoredResponse>,
    ) -> Result<Vec<StoredResponse>, StoreError> {
        found
            .into_iter()
            .map(|r| self.open_response(document, r))
            .collect()
    }
}

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
            self.inner
                .create(NewDocument {
                    markdown,
                    hash,
                    verdict,
                    recipients,
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
                    Ok(Lookup::Live(Document {
                        markdown,
                        hash,
                        verdict,
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
            };
            match self.inner.add_response(&id, stored, max_responses).await? {
                Added::Stored(kept) => Ok(Added::Stored(Box::new(self.open_response(&id, *kept)?))),
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
        claim: super::idempotency::KeyClaim,
    ) -> StoreFuture<'_, super::idempotency::Claim> {
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

#[cfg(test)]
mod tests {
    use super::*;

    const K1: &str = "k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
    const K2: &str = "k2:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8=";

    #[test]
    fn a_sealed_value_opens_with_its_key_and_only_for_its_row_and_field() {
        let keys = SealKeys::parse(K1).unwrap();
        let sealed = keys.seal("doc1", "markdown", "# Secret plan").unwrap();
        assert!(sealed.starts_with("pbs1.k1."), "{sealed}");
        assert!(!sealed.contains("Secret"));
        assert_eq!(
            keys.open("doc1", "markdown", &sealed).unwrap(),
            "# Secret plan"
        );
        // Moved to another document or another column, it does not open.
        let moved = keys.open("doc2", "markdown", &sealed).unwrap_err().0;
        assert!(moved.contains("does not open"), "{moved}");
        assert!(keys.open("doc1", "export", &sealed).is_err());
        // Altered by one character, it does not open.
        let mut altered = sealed.clone().into_bytes();
        let last = altered.len() - 2;
        altered[last] = if altered[last] == b'A' { b'B' } else { b'A' };
        let altered = String::from_utf8(altered).unwrap();
        assert!(keys.open("doc1", "markdown", &altered).is_err());
        // Two seals of one text differ (a fresh nonce each).
        assert_ne!(
            sealed,
            keys.seal("doc1", "markdown", "# Secret plan").unwrap()
        );
    }

    #[test]
    fn rotation_seals_with_the_first_key_and_opens_with_any() {
        let old = SealKeys::parse(K1).unwrap();
        let sealed_old = old.seal("d", "export", "answer").unwrap();
        let rotated = SealKeys::parse(&format!("# newest first\n{K2}\n\n{K1}\n")).unwrap();
        assert_eq!(rotated.current(), "k2");
        assert_eq!(rotated.open("d", "export", &sealed_old).unwrap(), "answer");
        let sealed_new = rotated.seal("d", "export", "answer").unwrap();
        assert!(sealed_new.starts_with("pbs1.k2."));
        // A server that dropped k2 names the key it lacks.
        let err = old.open("d", "export", &sealed_new).unwrap_err().0;
        assert!(
            err.contains("`k2`") && err.contains("--store-key-file"),
            "{err}"
        );
        // So does a server given no key file at all.
        let err = from_stored(None, "d", "export", sealed_new).unwrap_err().0;
        assert!(err.contains("`k2`"), "{err}");
    }

    #[test]
    fn plain_values_read_as_they_are_and_never_pass_for_sealed_ones() {
        let keys = SealKeys::parse(K1).unwrap();
        // Written before a key was configured.
        assert_eq!(keys.open("d", "export", "**Q: x**").unwrap(), "**Q: x**");
        // Text a reviewer wrote to look like a sealed value is kept plain and read back whole.
        for text in ["pbs1.k1.AAAA", "pbs0.x", "plain"] {
            let stored = to_stored(None, "d", "reviewer", text).unwrap();
            assert_eq!(
                from_stored(None, "d", "reviewer", stored.clone()).unwrap(),
                text
            );
            assert_eq!(
                from_stored(Some(&keys), "d", "reviewer", stored).unwrap(),
                text
            );
        }
    }

    #[test]
    fn a_bad_key_file_names_the_line_and_the_fix() {
        for (text, says) in [
            ("", "no key"),
            ("# only a comment\n", "no key"),
            ("justbase64", "line 1: write a key as ID:BASE64"),
            ("k1:not base64!", "line 1: the key `k1` is not base64"),
            ("\nk1:AAAA", "line 2: the key `k1` is 3 bytes"),
            ("bad id:AAAA", "line 1: a key's ID"),
        ] {
            let err = SealKeys::parse(text).unwrap_err();
            assert!(err.contains(says), "{text:?}: {err}");
        }
        let twice = format!("{K1}\n{K1}");
        assert!(
            SealKeys::parse(&twice)
                .unwrap_err()
                .contains("listed twice")
        );
        // The debug form never shows key material.
        let keys = SealKeys::parse(K1).unwrap();
        assert_eq!(format!("{keys:?}"), "SealKeys { ids: [\"k1\"] }");
    }
}
