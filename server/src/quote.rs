//! How a client's own text is quoted back in a message: briefly.

/// The first 80 characters of `s`.
pub fn truncate(s: &str) -> String {
    s.chars().take(80).collect()
}
