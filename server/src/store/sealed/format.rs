//! The format of a stored value: `pbs1.{key id}.{base64url(nonce ‖ ciphertext ‖ tag)}` when
//! sealed, bound to its document and field; `pbs0.` in front of a plain value that would
//! otherwise start like a stored one; any other text as it is.

use super::key_file::SealKeys;
use crate::store::StoreError;
use chacha20poly1305::XNonce;
use chacha20poly1305::aead::{Aead, Payload};

/// What every sealed value starts with.
pub(super) const PREFIX: &str = "pbs1.";
const NONCE_BYTES: usize = 24;

impl SealKeys {
    /// `text` sealed with the current key, bound to `document` and `field`.
    pub(super) fn seal(
        &self,
        document: &str,
        field: &str,
        text: &str,
    ) -> Result<String, StoreError> {
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
        Ok(format!(
            "{PREFIX}{id}.{}",
            crate::store::secrets::base64url(&raw)
        ))
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
pub(super) fn to_stored(
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
pub(super) fn from_stored(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sealed::{K1, K2, SealKeys};

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
}
