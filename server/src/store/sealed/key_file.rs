//! The key file: the operator's sealing keys, one `ID:BASE64` a line, the first sealing and
//! every one opening.

use chacha20poly1305::aead::KeyInit;
use chacha20poly1305::{Key, XChaCha20Poly1305};

const KEY_BYTES: usize = 32;

/// The operator's keys: the first seals, every one opens.
pub struct SealKeys {
    pub(super) keys: Vec<(String, XChaCha20Poly1305)>,
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sealed::K1;

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
