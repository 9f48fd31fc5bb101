//! The client's address behind a reverse proxy (`--trusted-proxies`): a proxy connects for
//! everyone, so the per-client limits would count every reader as one. When the connection
//! comes from an address in the configured list, the client is the last address in
//! `X-Forwarded-For` that is not itself a trusted proxy (the one the nearest trusted proxy
//! appended); from any other peer the header is ignored, so a client cannot spoof it.

use hyper::HeaderMap;
use std::net::IpAddr;

/// The proxies whose `X-Forwarded-For` is believed: addresses and networks (`10.0.0.0/8`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    nets: Vec<(IpAddr, u8)>,
}

impl TrustedProxies {
    /// A comma-separated list of addresses and CIDR networks, such as
    /// `127.0.0.1,10.0.0.0/8,::1`.
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut nets = Vec::new();
        for item in list.split(',').map(str::trim) {
            let bad = || {
                format!(
                    "--trusted-proxies takes addresses or networks such as 127.0.0.1,10.0.0.0/8, not `{item}`"
                )
            };
            let (addr, bits) = match item.split_once('/') {
                Some((addr, bits)) => (addr, Some(bits)),
                None => (item, None),
            };
            let addr: IpAddr = addr.parse().map_err(|_| bad())?;
            let max = if addr.is_ipv4() { 32 } else { 128 };
            let bits = match bits {
                Some(b) => b.parse::<u8>().ok().filter(|&b| b <= max).ok_or_else(bad)?,
                None => max,
            };
            nets.push((addr.to_canonical(), bits));
        }
        Ok(TrustedProxies { nets })
    }

    /// Whether `ip` is one of the proxies.
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.nets.iter().any(|&(net, bits)| match (net, ip) {
            (IpAddr::V4(n), IpAddr::V4(a)) => prefix(
                u128::from(u32::from(n)) << 96,
                u128::from(u32::from(a)) << 96,
                bits,
            ),
            (IpAddr::V6(n), IpAddr::V6(a)) => prefix(u128::from(n), u128::from(a), bits),
            _ => false,
        })
    }

    /// The client of a connection from `peer` carrying `headers`: `peer` itself unless it is
    /// a trusted proxy; then the last `X-Forwarded-For` address that is not one (all the
    /// header's lines taken in order), or `peer` when the header names none.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        if self.nets.is_empty() || !self.contains(peer) {
            return peer;
        }
        let mut client = peer;
        let hops: Vec<&str> = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .collect();
        for hop in hops.iter().rev() {
            // An address the proxy could not parse ends the walk: what is left of it came
            // from the client, unchecked.
            let Some(ip) = hop_address(hop) else {
                break;
            };
            client = ip;
            if !self.contains(ip) {
                break;
            }
        }
        client
    }
}

/// Whether the first `bits` bits of `a` and `b` agree.
fn prefix(a: u128, b: u128, bits: u8) -> bool {
    bits == 0 || (a ^ b) >> (128 - u32::from(bits)) == 0
}

/// One hop of `X-Forwarded-For`: an address, an IPv6 one possibly in brackets, possibly with
/// a port.
fn hop_address(hop: &str) -> Option<IpAddr> {
    let hop = hop.trim();
    if let Ok(ip) = hop.parse::<IpAddr>() {
        return Some(ip.to_canonical());
    }
    if let Ok(sock) = hop.parse::<std::net::SocketAddr>() {
        return Some(sock.ip().to_canonical());
    }
    hop.strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .and_then(|h| h.parse::<IpAddr>().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append("x-forwarded-for", v.parse().unwrap());
        }
        h
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn networks_match_by_prefix() {
        let t = TrustedProxies::parse("10.0.0.0/8, 192.168.1.7, fd00::/8").unwrap();
        assert!(t.contains(ip("10.200.3.4")));
        assert!(!t.contains(ip("11.0.0.1")));
        assert!(t.contains(ip("192.168.1.7")));
        assert!(!t.contains(ip("192.168.1.8")));
        assert!(t.contains(ip("fd12::1")));
        assert!(!t.contains(ip("fe80::1")));
        assert!(
            t.contains(ip("::ffff:10.1.1.1")),
            "a mapped IPv4 address is its IPv4"
        );
        assert!(
            TrustedProxies::parse("0.0.0.0/0")
                .unwrap()
                .contains(ip("8.8.8.8"))
        );
        for bad in ["", "10.0.0.0/33", "::/129", "example.com", "10.0.0.1/x"] {
            assert!(TrustedProxies::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_client_is_the_last_hop_not_a_proxy_and_only_from_a_proxy() {
        let t = TrustedProxies::parse("127.0.0.1,10.0.0.0/8").unwrap();
        let proxy = ip("127.0.0.1");
        // The proxy appended the address it saw; whatever the client sent before it is ignored.
        let h = headers(&["6.6.6.6, 203.0.113.9"]);
        assert_eq!(t.client(proxy, &h), ip("203.0.113.9"));
        // Two trusted proxies in a row: the client is beyond both.
        let h = headers(&["203.0.113.9", "10.1.2.3"]);
        assert_eq!(t.client(proxy, &h), ip("203.0.113.9"));
        // From a peer not in the list the header counts for nothing.
        assert_eq!(t.client(ip("198.51.100.1"), &h), ip("198.51.100.1"));
        // No header, or nothing usable in it: the proxy itself.
        assert_eq!(t.client(proxy, &HeaderMap::new()), proxy);
        assert_eq!(t.client(proxy, &headers(&["unknown"])), proxy);
        assert_eq!(
            t.client(proxy, &headers(&["[2001:db8::1]:443"])),
            ip("2001:db8::1")
        );
        // Nobody trusted: never read.
        assert_eq!(TrustedProxies::default().client(proxy, &h), proxy);
    }
}
