//! What several commands share: reading input, writing output, the options `serve` and `mcp`
//! both take, and the server state they both start.

use std::io::{Read, Write};
use std::path::Path;

/// Reads a file or stdin as UTF-8, with a message that names the problem.
pub(super) fn read_input(path: Option<&Path>) -> Result<String, String> {
    let mut bytes = Vec::new();
    let name = path.map_or("standard input".into(), |p| p.display().to_string());
    match path {
        None => std::io::stdin().read_to_end(&mut bytes).map(|_| ()),
        Some(p) => std::fs::File::open(p)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map(|_| ()),
    }
    .map_err(|e| format!("cannot read {name}: {}", io_reason(&e)))?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{name} is not valid UTF-8 (bad byte at offset {}); save it as UTF-8",
            e.utf8_error().valid_up_to()
        )
    })
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ if e.raw_os_error() == Some(21) => "it is a directory".into(),
        _ => e.to_string(),
    }
}

/// Writes `text` to stdout with a final newline; a reader that went away is not an error.
pub(super) fn write_out(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| {
            if text.ends_with('\n') {
                Ok(())
            } else {
                out.write_all(b"\n")
            }
        })
        .and_then(|_| out.flush())
        .or_else(|e| {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                Ok(())
            } else {
                Err(format!("cannot write output: {e}"))
            }
        })
}

/// `--public-url`: where mail clients fetch this server's diagram images, so an absolute
/// http(s) URL with a host, and optionally a path (no query or fragment: the image paths are
/// appended to it). Returned without a trailing `/`.
pub(super) fn public_url(url: &str) -> Result<String, String> {
    let fail = |why: &str| {
        Err(format!(
            "--public-url {why}: give the server's address as mail clients reach it, such as \
             https://render.example.com (not `{url}`)"
        ))
    };
    // The same host rule as the email previews' CSP, which must be able to name the origin.
    let Some(host) = passback_server::web_host(url) else {
        return fail("must start with https:// or http://");
    };
    if !passback_server::plain_host(host) {
        return fail("needs a host name (letters, digits, dots, hyphens and a :port)");
    }
    if url.contains(['?', '#']) {
        return fail("cannot hold a query or fragment");
    }
    if url
        .bytes()
        .any(|b| b <= b' ' || matches!(b, b'"' | b'\'' | b'<' | b'>' | b'\\' | b'`'))
    {
        return fail("cannot hold spaces, quotes or angle brackets");
    }
    Ok(url.trim_end_matches('/').to_string())
}

/// `--retention`: seconds, or a whole number with `s`, `m`, `h` or `d`.
#[cfg(feature = "store")]
pub(super) fn retention(text: &str) -> Result<std::time::Duration, String> {
    time_flag(text, "retention")
}

/// `--closed-retention`: as `--retention`.
#[cfg(feature = "store")]
pub(super) fn closed_retention(text: &str) -> Result<std::time::Duration, String> {
    time_flag(text, "closed-retention")
}

/// `--grace` of `keys rotate-secret`: as `--retention`, or `0` for none.
#[cfg(feature = "store")]
pub(super) fn grace(text: &str) -> Result<std::time::Duration, String> {
    if text.trim_end_matches(['s', 'm', 'h', 'd']) == "0" {
        return Ok(std::time::Duration::ZERO);
    }
    time_flag(text, "grace").map_err(|e| format!("{e} (or 0 for no grace)"))
}

/// A time flag `--{flag}`: seconds, or a whole number with `s`, `m`, `h` or `d`.
#[cfg(feature = "store")]
fn time_flag(text: &str, flag: &str) -> Result<std::time::Duration, String> {
    let (digits, unit) = match text.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&text[..i], c),
        _ => (text, 's'),
    };
    let scale = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3600,
        'd' => 86_400,
        _ => 0,
    };
    digits
        .parse::<u64>()
        .ok()
        .filter(|&n| n > 0 && scale > 0)
        .and_then(|n| n.checked_mul(scale))
        .filter(|&s| s < 1 << 40)
        .map(std::time::Duration::from_secs)
        .ok_or_else(|| {
            format!("--{flag} must be a time such as 30d, 12h, 90m or 3600 (seconds), not `{text}`")
        })
}

/// `--images POLICY`, with the proxy's key read from `key_file` (its bytes, without a trailing
/// newline).
pub(super) fn image_policy(
    policy: &str,
    key_file: Option<&str>,
) -> Result<passback_engine::ImagePolicy, String> {
    let key = match key_file {
        Some(path) => {
            let mut key = std::fs::read(path)
                .map_err(|e| format!("--image-proxy-key-file {path}: cannot read it: {e}"))?;
            while key.last().is_some_and(|b| matches!(b, b'\n' | b'\r')) {
                key.pop();
            }
            Some(key)
        }
        None => None,
    };
    if key.is_some() && !policy.starts_with("proxy:") {
        return Err(format!(
            "--image-proxy-key-file is the key of an image proxy, but --images is `{policy}`"
        ));
    }
    passback_engine::ImagePolicy::parse(policy, key.as_deref()).map_err(|e| format!("--images {e}"))
}

/// `--store-key-file`: the keys to seal the store with, read and checked now so a bad file
/// stops the start with its line named.
#[cfg(feature = "store")]
pub(super) fn store_key_file(
    path: &str,
) -> Result<std::sync::Arc<passback_server::store::sealed::SealKeys>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--store-key-file {path}: cannot read it: {e}"))?;
    passback_server::store::sealed::SealKeys::parse(&text)
        .map(std::sync::Arc::new)
        .map_err(|e| format!("--store-key-file {path}: {e}"))
}

/// The server's state, its store ready: a database that cannot be reached, or whose schema is
/// newer than this binary knows, stops the start here, naming the flag. The store it uses goes
/// to the log.
pub(super) async fn prepared_state(
    config: passback_server::Config,
) -> Result<std::sync::Arc<passback_server::AppState>, String> {
    let state = std::sync::Arc::new(passback_server::AppState::new(config));
    #[cfg(feature = "store")]
    {
        let described = state.config.store.describe();
        if let Some(routing) = &state.routing {
            routing
                .store
                .prepare()
                .await
                .map_err(|e| format!("--store {described}: {e}"))?;
        }
        tracing::info!(store = %described, "routed documents");
    }
    Ok(state)
}
