//! A raw HTTP/1.1 client for the tests: one request per connection (`connection: close`),
//! written byte for byte, so slow, chunked and malformed clients can be played exactly, and the
//! whole reply read back. [`fetch`] and [`call`] are the ordinary requests, as a browser or an
//! agent makes them; [`request`], [`send`] and [`read_reply`] the raw bytes and the raw socket.

use std::io::{Read, Write};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, ToSocketAddrs};

/// A reply as it came off the wire.
#[derive(Debug)]
pub struct Reply {
    /// 0 when no status line came back.
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// Dechunked when the reply was chunked.
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("status {}: not JSON ({e}): {}", self.status, self.text()))
    }

    /// The problem's detail, checking that the reply is problem+json carrying its own status.
    pub fn problem_detail(&self) -> String {
        assert_eq!(
            self.header("content-type"),
            Some("application/problem+json"),
            "status {}: {}",
            self.status,
            self.text()
        );
        let v = self.json();
        assert_eq!(v["status"].as_u64(), Some(u64::from(self.status)));
        v["detail"].as_str().expect("a detail sentence").to_string()
    }
}

/// A reply as read off the wire; what is not there (no head, a cut body) is left empty.
pub fn parse_reply(raw: &[u8]) -> Reply {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n");
    let head = String::from_utf8_lossy(&raw[..split.unwrap_or(raw.len())]).into_owned();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let body = split.map_or(&[][..], |at| &raw[at + 4..]);
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_vec()
    };
    Reply {
        status,
        headers,
        body,
    }
}

fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&rest[..eol])
            .ok()
            .and_then(|s| usize::from_str_radix(s.trim(), 16).ok())
            .unwrap_or(0);
        let Some(chunk) = rest.get(eol + 2..eol + 2 + size) else {
            break;
        };
        if size == 0 {
            break;
        }
        out.extend_from_slice(chunk);
        rest = rest.get(eol + 2 + size + 2..).unwrap_or(&[]);
    }
    out
}

/// The bytes of one request. `host: test`, `connection: close` and the content length are
/// written unless `headers` names them.
pub fn request(method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let named = |name: &str| headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name));
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    if !named("host") {
        head.push_str("host: test\r\n");
    }
    if !named("connection") {
        head.push_str("connection: close\r\n");
    }
    if !named("content-length") && !named("transfer-encoding") {
        head.push_str(&format!("content-length: {}\r\n", body.len()));
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// `headers` with a `Host` naming `addr`, as a client that dialled it sends: review links are
/// built from it, and `/mcp` refuses a host it does not know.
fn with_host<'a>(addr: &'a str, headers: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let named = headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host"));
    let host = (!named).then_some(("host", addr));
    host.into_iter().chain(headers.iter().copied()).collect()
}

/// One request to the server at `addr` on its own connection, with the `Host` it was reached
/// at, and its whole reply (a minute at most).
pub async fn fetch(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: impl AsRef<[u8]>,
) -> Reply {
    send(
        addr,
        request(method, path, &with_host(addr, headers), body.as_ref()),
    )
    .await
}

/// [`fetch`] from a plain thread.
pub fn call(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: impl AsRef<[u8]>,
) -> Reply {
    let raw = request(method, path, &with_host(addr, headers), body.as_ref());
    send_blocking(addr, &raw).expect("a reply")
}

/// Sends `raw` on a new connection and reads the whole reply (a minute at most).
pub async fn send(addr: impl ToSocketAddrs, raw: Vec<u8>) -> Reply {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    s.write_all(&raw).await.expect("write the request");
    read_reply(&mut s, Duration::from_secs(60)).await
}

/// Reads what comes back on `stream` until the server closes it, which it must do `within`
/// the time given.
pub async fn read_reply(stream: &mut TcpStream, within: Duration) -> Reply {
    let mut buf = Vec::new();
    tokio::time::timeout(within, stream.read_to_end(&mut buf))
        .await
        .unwrap_or_else(|_| panic!("a reply within {within:?}"))
        .expect("read the reply");
    parse_reply(&buf)
}

/// Sends `raw` on a new connection from a plain thread; `None` when the connection could not
/// be made, the request not written, or nothing came back within two minutes. A reply cut
/// short by a reset (a server refusing a head it will not read closes at once) is what arrived.
pub fn send_blocking(addr: &str, raw: &[u8]) -> Option<Reply> {
    let mut s = std::net::TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(120))).ok()?;
    s.write_all(raw).ok()?;
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    (!buf.is_empty()).then(|| parse_reply(&buf))
}

/// The status of [`send_blocking`]'s reply, or 0 when there was none.
pub fn status_of(addr: &str, raw: &[u8]) -> u16 {
    send_blocking(addr, raw).map_or(0, |r| r.status)
}

/// Form encoding of `s`: every byte but the unreserved ones percent-encoded.
pub fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
