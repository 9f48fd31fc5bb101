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

mod format;
mod key_file;
mod store;

pub use key_file::SealKeys;

use super::{Recipient, Store, StoreError, StoredResponse};
use format::{PREFIX, from_stored, to_stored};
use serde_json::Value;
use std::sync::Arc;

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

/// Two keys the tests seal with, as a key file lists them.
#[cfg(test)]
const K1: &str = "k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
#[cfg(test)]
const K2: &str = "k2:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8=";
