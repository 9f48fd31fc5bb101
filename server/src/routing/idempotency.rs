//! `Idempotency-Key` on routing (`POST /v1/documents`): the same key with the same body within
//! [`WINDOW`] answers what the first request answered, the document's token included (the same
//! sender asked); the same key with another body is refused. A key is scoped to its sender:
//! their key's id, or their client address when they route without a key. See
//! docs/decisions.md.
//!
//! The store keeps the key only as a hash with its scope, and the first answer sealed
//! (XChaCha20-Poly1305) with a key derived from the Idempotency-Key and the scope: the database
//! alone does not give the token away.

use super::Routing;
use super::error::RoutingError;
use crate::store::idempotency::{Claim, KeyClaim};
use crate::store::{self, Millis};
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};
use std::time::Duration;

/// How long a key is remembered.
pub const WINDOW: Duration = Duration::from_secs(24 * 3600);

/// A claim with no answer this old was abandoned (its server stopped mid-request): the key is
/// taken over. Longer than any request may take.
const ABANDONED: Duration = Duration::from_secs(120);

/// How long a request waits for the answer of another still working on the same key, before it
/// is told to retry.
pub const WAIT_FOR_FIRST: Duration = Duration::from_secs(10);

/// The longest `Idempotency-Key` taken, in characters (as Stripe's).
pub const MAX_KEY_CHARS: usize = 255;

const NONCE_BYTES: usize = 24;

/// Whether `key` can be an `Idempotency-Key`: 1 to [`MAX_KEY_CHARS`] visible ASCII characters.
pub fn check_key(key: &[u8]) -> Result<&str, String> {
    if key.len() > MAX_KEY_CHARS {
        return Err(format!(
            "The Idempotency-Key header is {} characters long, over the {MAX_KEY_CHARS}-character limit; send a shorter one (a UUID will do).",
            key.len()
        ));
    }
    match std::str::from_utf8(key) {
        Ok(k) if !k.is_empty() && k.bytes().all(|b| b.is_ascii_graphic()) => Ok(k),
        _ => Err(format!(
            "The Idempotency-Key header must be 1 to {MAX_KEY_CHARS} visible ASCII characters, with no spaces (a UUID will do)."
        )),
    }
}

/// One request's key, bound to its sender's scope and its body.
pub struct Idempotent {
    key_hash: String,
    request_hash: String,
    seal: XChaCha20Poly1305,
}

/// What the request carrying an `Idempotency-Key` is to do.
pub enum Outcome {
    /// Route the document, then [`Idempotent::finish`] (or [`Idempotent::release`] when
    /// refused).
    Proceed,
    /// Answer what the first request answered.
    Replay { status: u16, body: String },
}

impl Idempotent {
    /// `key` as `scope` sent it (`key:{id}` for a sender key, `client:{address}` without one),
    /// with the body it came with.
    pub fn new(scope: &str, key: &str, content_type: &str, body: &[u8]) -> Idempotent {
        let mix = |context: &str| {
            let mut h = blake3::Hasher::new_derive_key(context);
            h.update(&(scope.len() as u64).to_le_bytes())
                .update(scope.as_bytes())
                .update(key.as_bytes());
            h.finalize()
        };
        let mut request = blake3::Hasher::new();
        request
            .update(&(content_type.len() as u64).to_le_bytes())
            .update(content_type.as_bytes())
            .update(body);
        Idempotent {
            key_hash: mix("passback 2026 idempotency-key lookup")
                .to_hex()
                .to_string(),
            request_hash: request.finalize().to_hex().to_string(),
            seal: XChaCha20Poly1305::new(Key::from_slice(
                mix("passback 2026 idempotency-key answer").as_bytes(),
            )),
        }
    }

    /// Claims the key, waiting up to [`WAIT_FOR_FIRST`] for a request with the same key still
    /// at work. Refused when the key was used with another body, or the first request is still
    /// at work after the wait.
    pub async fn claim(&self, routing: &Routing) -> Result<Outcome, RoutingError> {
        let deadline = tokio::time::Instant::now() + WAIT_FOR_FIRST;
        loop {
            let now = store::now();
            let claim = KeyClaim {
                key_hash: self.key_hash.clone(),
                request_hash: self.request_hash.clone(),
                now,
                expired_before: now.saturating_sub(WINDOW.as_millis() as Millis),
                abandoned_before: now.saturating_sub(ABANDONED.as_millis() as Millis),
            };
            match routing
                .store
                .claim_idempotency(claim)
                .await
                .map_err(RoutingError::store)?
            {
                Claim::Claimed => return Ok(Outcome::Proceed),
                Claim::Seen { request_hash, .. } if request_hash != self.request_hash => {
                    return Err(RoutingError::IdempotencyMismatch);
                }
                Claim::Seen {
                    answer: Some((status, sealed)),
                    ..
                } => {
                    let body = self.open(&sealed).ok_or_else(|| {
                        RoutingError::store(store::StoreError::new(
                            "cannot open an idempotent answer",
                            "it does not open with its key",
                        ))
                    })?;
                    return Ok(Outcome::Replay { status, body });
                }
                Claim::Seen { answer: None, .. } => {
                    if tokio::time::Instant::now() >= deadline {
                        return Err(RoutingError::IdempotencyInProgress);
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }

    /// Keeps the answer `body` (with `status`) for the requests that repeat this one.
    pub async fn finish(&self, routing: &Routing, status: u16, body: &str) {
        let sealed = self.sealed(body);
        if let Err(e) = routing
            .store
            .finish_idempotency(&self.key_hash, status, sealed)
            .await
        {
            // The document is routed; a repeat finds the claim abandoned and routes another.
            tracing::warn!(error = %e, "an idempotent answer could not be kept");
        }
    }

    /// Gives the key back: the request was refused, and may be sent again with it.
    pub async fn release(&self, routing: &Routing) {
        if let Err(e) = routing.store.release_idempotency(&self.key_hash).await {
            tracing::warn!(error = %e, "an idempotency key could not be released");
        }
    }

    fn sealed(&self, body: &str) -> String {
        use base64::Engine as _;
        let mut nonce = [0u8; NONCE_BYTES];
        // Without randomness the nonce is still unique per key: a key seals one answer.
        let _ = getrandom::fill(&mut nonce);
        let mut out = nonce.to_vec();
        out.extend(
            self.seal
                .encrypt(XNonce::from_slice(&nonce), body.as_bytes())
                .unwrap_or_default(),
        );
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(out)
    }

    fn open(&self, sealed: &str) -> Option<String> {
        use base64::Engine as _;
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(sealed)
            .ok()?;
        if bytes.len() < NONCE_BYTES {
            return None;
        }
        let (nonce, ct) = bytes.split_at(NONCE_BYTES);
        let plain = self.seal.decrypt(XNonce::from_slice(nonce), ct).ok()?;
        String::from_utf8(plain).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_opens_only_with_its_key_and_scope() {
        let first = Idempotent::new("key:k1", "abc", "application/json", b"{}");
        let sealed = first.sealed("{\"token\":\"t\"}");
        assert!(!sealed.contains("token"));
        assert_eq!(first.open(&sealed).as_deref(), Some("{\"token\":\"t\"}"));
        let other_scope = Idempotent::new("key:k2", "abc", "application/json", b"{}");
        assert_eq!(other_scope.open(&sealed), None);
        assert_ne!(other_scope.key_hash, first.key_hash);
        let other_key = Idempotent::new("key:k1", "abd", "application/json", b"{}");
        assert_eq!(other_key.open(&sealed), None);
        // The body and its type make the request's hash.
        assert_eq!(other_key.request_hash, first.request_hash);
        assert_ne!(
            Idempotent::new("key:k1", "abc", "text/markdown", b"{}").request_hash,
            first.request_hash
        );
    }

    #[test]
    fn keys_are_short_visible_ascii() {
        assert!(check_key(b"7c9e6679-7425-40de-944b-e07fc1f90ae7").is_ok());
        assert!(check_key(&[b'a'; MAX_KEY_CHARS]).is_ok());
        let long = check_key(&[b'a'; MAX_KEY_CHARS + 1]).unwrap_err();
        assert!(
            long.contains("Idempotency-Key") && long.contains("256"),
            "{long}"
        );
        for bad in [&b""[..], b"a b", b"caf\xc3\xa9", b"a\tb"] {
            assert!(check_key(bad).is_err());
        }
    }
}
