//! TLS on PostgreSQL connections, as the URL's `sslmode` and `sslrootcert` ask, with libpq's
//! meanings (rustls with ring does the TLS):
//!
//! | URL | TLS | the server's certificate |
//! |---|---|---|
//! | `sslmode=disable` | never | — |
//! | `sslmode=prefer` (the default) | when the server offers it | not checked |
//! | `sslmode=require` | always: a server without TLS is refused | not checked, unless `sslrootcert` is given |
//! | `sslmode=verify-full&sslrootcert=PATH` | always | signed by a CA in the PEM file `PATH`, for the URL's host |
//!
//! `sslrootcert=PATH` with `require` checks as `verify-full` does. Without a check the link is
//! encrypted against eavesdroppers but not against someone who can stand in for the server,
//! as with libpq: give the database's CA to close that too.

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use std::path::PathBuf;
use std::sync::Arc;
use tokio_postgres::Config;
use tokio_postgres::config::SslMode;
use tokio_postgres_rustls::MakeRustlsConnect;

/// A PostgreSQL URL read: the driver's configuration, and the TLS its `sslmode` asks for.
#[derive(Clone)]
pub struct Target {
    pub config: Config,
    pub tls: MakeRustlsConnect,
    /// Whether the server's certificate is checked (`sslrootcert`).
    pub verified: bool,
}

/// What the URL says about TLS, taken out of it before the driver reads the rest (it knows
/// neither `sslrootcert` nor `verify-full`).
#[derive(Debug, Default, PartialEq)]
pub struct TlsAsk {
    /// The URL with `sslrootcert` removed and `verify-full` written as `require`.
    pub url: String,
    pub root_cert: Option<PathBuf>,
    pub verify_full: bool,
}

/// Splits the TLS settings out of `url`, or says what is wrong with them.
pub fn tls_ask(url: &str) -> Result<TlsAsk, String> {
    let Some((base, query)) = url.split_once('?') else {
        return Ok(TlsAsk {
            url: url.to_string(),
            ..TlsAsk::default()
        });
    };
    let mut ask = TlsAsk::default();
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "sslrootcert" => {
                let path = percent_decode(value)
                    .filter(|p| !p.is_empty())
                    .ok_or_else(|| {
                        "sslrootcert must be the path of a PEM file of CA certificates, percent-encoded in the URL".to_string()
                    })?;
                ask.root_cert = Some(PathBuf::from(path));
            }
            "sslmode" => match value {
                "disable" | "prefer" | "require" => kept.push(pair.to_string()),
                "verify-full" => {
                    ask.verify_full = true;
                    kept.push("sslmode=require".to_string());
                }
                "allow" | "verify-ca" => {
                    return Err(format!(
                        "sslmode={value} is not supported; use disable, prefer, require or verify-full (with sslrootcert=PATH)"
                    ));
                }
                other => {
                    return Err(format!(
                        "sslmode must be disable, prefer, require or verify-full, not `{other}`"
                    ));
                }
            },
            _ => kept.push(pair.to_string()),
        }
    }
    if ask.verify_full && ask.root_cert.is_none() {
        return Err("sslmode=verify-full needs sslrootcert=PATH, the PEM file of the CA that signed the server's certificate".into());
    }
    ask.url = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    Ok(ask)
}

/// `%XX` escapes decoded; `None` when one is broken or the result is not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Reads `url` (a `postgres://` URL) into the driver's configuration and the TLS connector its
/// `sslmode` and `sslrootcert` ask for. The CA file is read here, so a wrong path is said at
/// once.
pub fn target(url: &str) -> Result<Target, String> {
    let ask = tls_ask(url)?;
    let config: Config = ask.url.parse().map_err(|e| {
        format!("the PostgreSQL URL does not parse ({e}); write it as postgres://USER@HOST:PORT/DATABASE")
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("cannot set up TLS: {e}"))?;
    let verified = ask.root_cert.is_some();
    let client = match &ask.root_cert {
        Some(path) => {
            let mut roots = RootCertStore::empty();
            let certs = CertificateDer::pem_file_iter(path).map_err(|e| {
                format!(
                    "sslrootcert: cannot read {} as PEM certificates ({e})",
                    path.display()
                )
            })?;
            for cert in certs {
                let cert = cert.map_err(|e| {
                    format!(
                        "sslrootcert: {} holds a broken certificate ({e})",
                        path.display()
                    )
                })?;
                roots.add(cert).map_err(|e| {
                    format!(
                        "sslrootcert: {} holds a certificate rustls refuses ({e})",
                        path.display()
                    )
                })?;
            }
            if roots.is_empty() {
                return Err(format!(
                    "sslrootcert: {} holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
                    path.display()
                ));
            }
            builder.with_root_certificates(roots).with_no_client_auth()
        }
        None => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(EncryptOnly(provider)))
            .with_no_client_auth(),
    };
    Ok(Target {
        config,
        tls: MakeRustlsConnect::new(client),
        verified,
    })
}

/// The sentence a failed connection gets after the driver's, when TLS was the trouble.
pub fn hint(target: &Target, error: &str) -> Option<&'static str> {
    if error.contains("does not support TLS") && target.config.get_ssl_mode() == SslMode::Require {
        Some(
            "the URL asks for TLS (sslmode=require) and this server offers none: turn on ssl in its postgresql.conf, or connect with sslmode=prefer or disable",
        )
    } else if target.verified && error.contains("certificate") {
        Some(
            "the server's certificate did not check out against sslrootcert: give the CA that signed it, and the host name the certificate names",
        )
    } else {
        None
    }
}

/// `prefer` and `require` without `sslrootcert`, as libpq does them: the link is encrypted and
/// the handshake's signatures are checked, but not who signed the server's certificate.
#[derive(Debug)]
struct EncryptOnly(Arc<CryptoProvider>);

impl ServerCertVerifier for EncryptOnly {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_settings_come_out_of_the_url() {
        let ask = tls_ask(
            "postgres://u@h/db?sslmode=verify-full&sslrootcert=%2Ftmp%2Fca.pem&application_name=x",
        )
        .unwrap();
        assert_eq!(
            ask.url,
            "postgres://u@h/db?sslmode=require&application_name=x"
        );
        assert_eq!(ask.root_cert, Some(PathBuf::from("/tmp/ca.pem")));
        assert!(ask.verify_full);
        assert_eq!(
            tls_ask("postgres://u@h/db").unwrap().url,
            "postgres://u@h/db"
        );
        assert_eq!(
            tls_ask("postgres://u@h/db?sslrootcert=/ca.pem")
                .unwrap()
                .url,
            "postgres://u@h/db"
        );
        for (bad, says) in [
            ("postgres://h/db?sslmode=verify-full", "needs sslrootcert"),
            ("postgres://h/db?sslmode=verify-ca", "not supported"),
            ("postgres://h/db?sslmode=always", "must be disable, prefer"),
            ("postgres://h/db?sslrootcert=%zz", "PEM file"),
        ] {
            let e = tls_ask(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn the_modes_set_the_drivers_mode() {
        for (mode, want) in [
            ("disable", SslMode::Disable),
            ("prefer", SslMode::Prefer),
            ("require", SslMode::Require),
        ] {
            let t = target(&format!("postgres://u@h/db?sslmode={mode}")).unwrap();
            assert_eq!(t.config.get_ssl_mode(), want, "{mode}");
            assert!(!t.verified);
        }
        assert_eq!(
            target("postgres://u@h/db").unwrap().config.get_ssl_mode(),
            SslMode::Prefer
        );
        let missing = target("postgres://u@h/db?sslmode=verify-full&sslrootcert=/no/such.pem")
            .err()
            .unwrap();
        assert!(missing.contains("cannot read /no/such.pem"), "{missing}");
    }
}
