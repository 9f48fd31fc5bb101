//! Where a webhook may go: the callback URL read, its host resolved, and every address it
//! resolves to checked against the internal ranges (loopback, private, link-local — cloud
//! metadata at 169.254.169.254 included —, unspecified, multicast, CGNAT, and their
//! IPv4-mapped forms). The connection is then made to a checked address, so a second DNS
//! answer cannot send it elsewhere.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

/// A callback URL, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub https: bool,
    /// Without the brackets of an IPv6 literal.
    pub host: String,
    pub port: u16,
    /// The path and query, `/` at least.
    pub path: String,
}

impl Target {
    /// An absolute `http://` or `https://` URL with a host; the error names `callback_url`.
    pub fn parse(url: &str) -> Result<Target, String> {
        let bad = |why: &str| format!("\"callback_url\" must be an absolute https:// URL: {why}.");
        let uri: hyper::Uri = url.parse().map_err(|_| bad("this is not a URL"))?;
        let https = match uri.scheme_str() {
            Some("https") => true,
            Some("http") => false,
            _ => return Err(bad("it must start with https://")),
        };
        let host = uri
            .host()
            .filter(|h| !h.is_empty())
            .ok_or_else(|| bad("it has no host"))?;
        if uri.authority().is_some_and(|a| a.as_str().contains('@')) {
            return Err(bad("it must not carry a user name or password"));
        }
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        Ok(Target {
            https,
            port: uri.port_u16().unwrap_or(if https { 443 } else { 80 }),
            path: uri
                .path_and_query()
                .map_or("/".to_string(), |p| p.as_str().to_string()),
            host,
        })
    }
}

/// Why `ip` is not a public address; `None` when it is.
pub fn forbidden(ip: IpAddr) -> Option<&'static str> {
    match ip.to_canonical() {
        IpAddr::V4(a) => forbidden_v4(a),
        IpAddr::V6(a) => {
            let s = a.segments();
            if a.is_loopback() {
                Some("a loopback address")
            } else if a.is_unspecified() {
                Some("the unspecified address")
            } else if a.is_multicast() {
                Some("a multicast address")
            } else if s[0] & 0xfe00 == 0xfc00 {
                Some("a private (unique local) address")
            } else if s[0] & 0xffc0 == 0xfe80 {
                Some("a link-local address")
            } else if s[0..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                // NAT64: the IPv4 address it stands for.
                let o = a.octets();
                forbidden_v4(Ipv4Addr::new(o[12], o[13], o[14], o[15]))
            } else {
                None
            }
        }
    }
}

fn forbidden_v4(a: Ipv4Addr) -> Option<&'static str> {
    let o = a.octets();
    if a.is_loopback() {
        Some("a loopback address")
    } else if a.is_private() {
        Some("a private address")
    } else if a.is_link_local() {
        Some("a link-local address (cloud metadata lives there)")
    } else if a.is_unspecified() || o[0] == 0 {
        Some("the unspecified network")
    } else if a.is_multicast() || a.is_broadcast() || o[0] >= 240 {
        Some("a multicast, broadcast or reserved address")
    } else if o[0] == 100 && o[1] & 0xc0 == 64 {
        Some("a carrier-grade NAT address")
    } else {
        None
    }
}

/// The address to connect to for `target`: its host resolved (once), every address it gives
/// checked unless `allow_private`, the first one taken.
pub async fn resolve(target: &Target, allow_private: bool) -> Result<SocketAddr, String> {
    let found: Vec<SocketAddr> = tokio::net::lookup_host((target.host.as_str(), target.port))
        .await
        .map_err(|e| format!("cannot resolve {}: {e}", target.host))?
        .collect();
    let first = *found
        .first()
        .ok_or_else(|| format!("{} resolves to no address", target.host))?;
    if !allow_private {
        for addr in &found {
            if let Some(why) = forbidden(addr.ip()) {
                return Err(format!(
                    "refused: {} resolves to {}, {why} (allowed only with --webhook-allow-private)",
                    target.host,
                    addr.ip()
                ));
            }
        }
    }
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_addresses_are_refused_in_every_form() {
        for bad in [
            "127.0.0.1",
            "10.0.0.1",
            "172.16.5.4",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fc00::1",
            "fd12::1",
            "fe80::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a00:1",
        ] {
            assert!(forbidden(bad.parse().unwrap()).is_some(), "{bad}");
        }
        for good in ["93.184.216.34", "1.1.1.1", "2606:4700::1111", "100.128.0.1"] {
            assert_eq!(forbidden(good.parse().unwrap()), None, "{good}");
        }
    }

    #[test]
    fn targets_read_scheme_host_port_and_path() {
        let t = Target::parse("https://[::1]:8443/a?b=c").unwrap();
        assert_eq!(
            (t.https, t.host.as_str(), t.port, t.path.as_str()),
            (true, "::1", 8443, "/a?b=c")
        );
        let t = Target::parse("http://example.com").unwrap();
        assert_eq!((t.port, t.path.as_str()), (80, "/"));
        assert!(Target::parse("https://user:pw@example.com/").is_err());
    }
}
