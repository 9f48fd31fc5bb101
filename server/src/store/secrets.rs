//! Random secrets and document ids, written in base64url.

use super::StoreError;

/// `n` bytes from the operating system's random source, base64url without padding.
pub fn random_secret(bytes: usize) -> Result<String, StoreError> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf)
        .map_err(|e| StoreError::new("the system's random source failed", e))?;
    Ok(base64url(&buf))
}

/// Base64url (RFC 4648 §5) without padding.
pub fn base64url(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Bytes of randomness in a document id (128 bits) and in a token (256 bits).
pub const ID_BYTES: usize = 16;
pub const TOKEN_BYTES: usize = 32;

/// Whether `id` has the shape of a document id (22 base64url characters), so a request for
/// anything else is answered without asking the database.
pub fn is_document_id(id: &str) -> bool {
    id.len() == (ID_BYTES * 8).div_ceil(6)
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_matches_rfc_4648() {
        for (bytes, text) in [
            (&b""[..], ""),
            (b"f", "Zg"),
            (b"fo", "Zm8"),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg"),
            (b"fooba", "Zm9vYmE"),
            (b"foobar", "Zm9vYmFy"),
            (&[0xfb, 0xff, 0xbf], "-_-_"),
        ] {
            assert_eq!(base64url(bytes), text);
        }
        let id = random_secret(ID_BYTES).unwrap();
        assert_eq!(id.len(), 22);
        assert!(is_document_id(&id), "{id}");
        assert!(!is_document_id("short") && !is_document_id(&format!("{id}x")));
        assert!(!is_document_id("aaaaaaaaaaaaaaaaaaaaa/"));
        assert_eq!(random_secret(TOKEN_BYTES).unwrap().len(), 43);
        assert_ne!(random_secret(ID_BYTES).unwrap(), id);
    }
}
