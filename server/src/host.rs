//! The host of a URL the server is given (`--public-url`): for review links, the email
//! previews' image policy and the MCP endpoint's allowed hosts.

/// The `host[:port]` of an `http://` or `https://` URL, as written (possibly empty); `None` for
/// any other scheme.
pub fn web_host(url: &str) -> Option<&str> {
    let (scheme, rest) = url.split_once("://")?;
    let web = scheme.eq_ignore_ascii_case("https") || scheme.eq_ignore_ascii_case("http");
    web.then(|| rest.split(['/', '?', '#']).next().unwrap_or(""))
}

/// Whether `host` is not empty and holds only letters, digits, `.`, `-` and a port's `:`:
/// nothing that could end a CSP source or add a directive.
pub fn plain_host(host: &str) -> bool {
    !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':'))
}
