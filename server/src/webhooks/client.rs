//! The webhook POST: one HTTP/1.1 request over a TCP connection to the address [`super::guard`]
//! checked, with TLS (rustls, the system's CA certificates) for `https://`. The whole attempt
//! has a timeout; the answer's status is what counts, its body is read up to [`MAX_ANSWER`]
//! bytes and dropped; a redirect is not followed (it is a failure like any non-2xx).

use super::Tuning;
use super::guard::{self, Target};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use std::sync::{Arc, OnceLock};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// Bytes of a receiver's answer read at most.
pub const MAX_ANSWER: usize = 64 * 1024;

/// POSTs `body` as JSON to `url` with `headers`; the receiver's status, or why there is none.
pub async fn post(
    url: &str,
    headers: &[(&'static str, String)],
    body: String,
    tuning: &Tuning,
) -> Result<u16, String> {
    let target = Target::parse(url)?;
    match tokio::time::timeout(tuning.timeout, attempt(&target, headers, body, tuning)).await {
        Ok(outcome) => outcome,
        Err(_) => Err(format!(
            "no answer within {} ms",
            tuning.timeout.as_millis()
        )),
    }
}

async fn attempt(
    target: &Target,
    headers: &[(&'static str, String)],
    body: String,
    tuning: &Tuning,
) -> Result<u16, String> {
    // A key's callback URL is checked for its shape only when the key is made.
    if !target.https && !tuning.allow_private {
        return Err(
            "refused: http:// callback URLs need --webhook-allow-private; use https://".into(),
        );
    }
    let addr = guard::resolve(target, tuning.allow_private).await?;
    let tcp = TcpStream::connect(addr)
        .await
        .map_err(|e| format!("cannot connect to {addr}: {e}"))?;
    let _ = tcp.set_nodelay(true);
    if !target.https {
        return exchange(tcp, target, headers, body).await;
    }
    let config = tls_config()?;
    let name = rustls::pki_types::ServerName::try_from(target.host.clone())
        .map_err(|e| format!("{} is not a name TLS can check: {e}", target.host))?;
    let tls = tokio_rustls::TlsConnector::from(config)
        .connect(name, tcp)
        .await
        .map_err(|e| format!("TLS with {} failed: {e}", target.host))?;
    exchange(tls, target, headers, body).await
}

async fn exchange<S>(
    stream: S,
    target: &Target,
    headers: &[(&'static str, String)],
    body: String,
) -> Result<u16, String>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("HTTP handshake failed: {e}"))?;
    let driver = tokio::spawn(conn);
    let host = if target.host.contains(':') {
        format!("[{}]:{}", target.host, target.port)
    } else {
        format!("{}:{}", target.host, target.port)
    };
    let mut req = hyper::Request::post(target.path.as_str())
        .header(hyper::header::HOST, host)
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .header(hyper::header::USER_AGENT, "passback-webhooks")
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| format!("cannot build the request: {e}"))?;
    for (name, value) in headers {
        let value = hyper::header::HeaderValue::from_str(value)
            .map_err(|e| format!("bad header {name}: {e}"))?;
        req.headers_mut().insert(*name, value);
    }
    let answer = sender
        .send_request(req)
        .await
        .map_err(|e| format!("the request failed: {e}"))?;
    let status = answer.status().as_u16();
    // Read a little of the answer, then drop the connection.
    let mut body = answer.into_body();
    let mut read = 0;
    while read < MAX_ANSWER {
        match body.frame().await {
            Some(Ok(frame)) => read += frame.data_ref().map_or(0, |d| d.len()),
            _ => break,
        }
    }
    driver.abort();
    Ok(status)
}

/// The TLS settings: ring, and the CA certificates of the system (`SSL_CERT_FILE`, else
/// Debian's, Fedora's or Alpine's bundle).
fn tls_config() -> Result<Arc<rustls::ClientConfig>, String> {
    static CONFIG: OnceLock<Result<Arc<rustls::ClientConfig>, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            use rustls::pki_types::CertificateDer;
            use rustls::pki_types::pem::PemObject;
            let candidates = std::env::var("SSL_CERT_FILE").into_iter().chain(
                [
                    "/etc/ssl/certs/ca-certificates.crt",
                    "/etc/pki/tls/certs/ca-bundle.crt",
                    "/etc/ssl/cert.pem",
                ]
                .map(String::from),
            );
            let mut roots = rustls::RootCertStore::empty();
            for path in candidates {
                if let Ok(certs) = CertificateDer::pem_file_iter(&path) {
                    for cert in certs.flatten() {
                        let _ = roots.add(cert);
                    }
                    if !roots.is_empty() {
                        break;
                    }
                }
            }
            if roots.is_empty() {
                return Err(
                    "no CA certificates found for https webhooks (set SSL_CERT_FILE)".into(),
                );
            }
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map(|b| Arc::new(b.with_root_certificates(roots).with_no_client_auth()))
                .map_err(|e| format!("cannot set up TLS: {e}"))
        })
        .clone()
}
