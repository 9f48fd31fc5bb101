//! The sender key types and helpers: a key to keep, a kept key, making and hashing keys, and
//! the cursor that pages a key's documents.

use super::secrets::{TOKEN_BYTES, base64url, is_document_id, random_secret};
use super::{Millis, StoreError};

/// A sender key to keep: only its hash (the key is shown once, by `passback keys add`).
#[derive(Debug, Clone)]
pub struct NewKey {
    /// 128 random bits, base64url: what its documents' `owner_key` names.
    pub id: String,
    pub name: String,
    /// blake3 of the key.
    pub key_hash: [u8; 32],
    pub created_at: Millis,
    /// `whsec_…`: signs the webhooks of its documents.
    pub webhook_secret: String,
    /// Where its documents' events go when a document names no callback URL of its own.
    pub callback_url: Option<String>,
}

/// A kept key, without its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyInfo {
    pub id: String,
    pub name: String,
    pub created_at: Millis,
    pub revoked_at: Option<Millis>,
    /// `whsec_…`; `None` for a key made before webhooks were.
    pub webhook_secret: Option<String>,
    pub callback_url: Option<String>,
}

/// What [`Store::add_key`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyAdded {
    Added,
    /// A key of that name exists already (perhaps revoked).
    NameTaken,
}

/// Where a page of [`Store::list_documents`] ends: its last document's creation time and id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    pub created_at: Millis,
    pub id: String,
}

impl Cursor {
    /// As `GET /v1/documents` gives it: `{created_at}.{id}` in base64url, opaque to clients.
    pub fn encode(&self) -> String {
        base64url(format!("{}.{}", self.created_at, self.id).as_bytes())
    }

    /// A cursor [`Cursor::encode`] wrote; `None` for anything else.
    pub fn decode(text: &str) -> Option<Cursor> {
        use base64::Engine as _;
        let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(text)
            .ok()?;
        let raw = String::from_utf8(raw).ok()?;
        let (at, id) = raw.split_once('.')?;
        let created_at = at.parse().ok()?;
        is_document_id(id).then(|| Cursor {
            created_at,
            id: id.to_string(),
        })
    }
}

/// What every sender key starts with, so a key is told from a document's token at a glance
/// (and by secret scanners); 256 random bits follow, base64url.
pub const KEY_PREFIX: &str = "pbk_";

/// A new sender key: [`KEY_PREFIX`] and 256 random bits.
pub fn new_key() -> Result<String, StoreError> {
    Ok(format!("{KEY_PREFIX}{}", random_secret(TOKEN_BYTES)?))
}

/// The hash a key is kept and looked up by. Keys are 256 random bits, so a fast hash is enough:
/// there is nothing to guess that a slow one would protect.
pub fn key_hash(key: &str) -> [u8; 32] {
    *blake3::hash(key.as_bytes()).as_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ID_BYTES;

    #[test]
    fn cursors_read_back_what_they_wrote_and_nothing_else() {
        let id = random_secret(ID_BYTES).unwrap();
        let cursor = Cursor {
            created_at: 1_767_225_599_999,
            id: id.clone(),
        };
        assert_eq!(Cursor::decode(&cursor.encode()), Some(cursor));
        for bad in [
            "",
            "not base64!",
            &base64url(b"1767225599999"),
            &base64url(format!("x.{id}").as_bytes()),
            &base64url(b"1.short"),
            &base64url(format!("1.{id}/").as_bytes()),
        ] {
            assert_eq!(Cursor::decode(bad), None, "{bad}");
        }
    }

    #[test]
    fn keys_are_prefixed_high_entropy_and_kept_by_hash() {
        let (a, b) = (new_key().unwrap(), new_key().unwrap());
        assert!(
            a.starts_with(KEY_PREFIX) && a.len() == KEY_PREFIX.len() + 43,
            "{a}"
        );
        assert_ne!(a, b);
        assert_eq!(key_hash(&a), key_hash(&a));
        assert_ne!(key_hash(&a), key_hash(&b));
    }
}
