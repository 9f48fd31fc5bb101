//! The per-client limit on routing documents (`--route-limit N/min`, or `N/h`): a token bucket
//! per client address. A client may route up to N documents at once, then one more every
//! minute/N (hour/N);
//! past that `POST /v1/documents` answers 429 with `Retry-After`, and the MCP tool
//! `route_document` (over HTTP) says when to try again.
//!
//! A client is its IP address; an IPv6 client is its /64 network, which one host usually holds
//! whole. Behind a proxy every client shares the proxy's address: see docs/store.md.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Clients whose buckets are kept at most. Past this, buckets that have filled up again (their
/// clients idle) are forgotten; if every one is still in use, all are, so memory stays bounded
/// even when a flood comes from more addresses than that.
const MAX_CLIENTS: usize = 65_536;

/// The bucket of one client: tokens left, and when they were counted.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// A limit: `count` routings per `period`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteLimit {
    pub count: u32,
    pub period: Duration,
}

impl std::fmt::Display for RouteLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let per = if self.period >= Duration::from_secs(3600) {
            "hour"
        } else {
            "minute"
        };
        let noun = if self.count == 1 {
            "document"
        } else {
            "documents"
        };
        write!(f, "{} {noun} a {per}", self.count)
    }
}

/// Token buckets by client, `count` tokens each, refilled at `count` a `period`.
#[derive(Debug)]
pub struct RouteLimiter {
    limit: RouteLimit,
    buckets: Mutex<HashMap<IpAddr, Bucket>>,
}

impl RouteLimiter {
    pub fn new(limit: RouteLimit) -> Self {
        RouteLimiter {
            limit: RouteLimit {
                count: limit.count.max(1),
                period: limit.period.max(Duration::from_secs(1)),
            },
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// The limit.
    pub fn limit(&self) -> RouteLimit {
        self.limit
    }

    /// Takes one token for `client` at `now`: `Ok` when it may route, else how long until it
    /// may (whole seconds, at least 1, as `Retry-After` says it).
    pub fn take(&self, client: IpAddr, now: Instant) -> Result<(), Duration> {
        let capacity = f64::from(self.limit.count);
        let per_second = capacity / self.limit.period.as_secs_f64();
        let key = client_key(client);
        // A poisoned lock only means another request panicked mid-update: the counts are
        // still numbers, so carry on with them.
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if buckets.len() >= MAX_CLIENTS && !buckets.contains_key(&key) {
            buckets.retain(|_, b| refilled(*b, now, capacity, per_second) < capacity);
            if buckets.len() >= MAX_CLIENTS {
                buckets.clear();
            }
        }
        let bucket = buckets.entry(key).or_insert(Bucket {
            tokens: capacity,
            at: now,
        });
        let tokens = refilled(*bucket, now, capacity, per_second);
        *bucket = Bucket { tokens, at: now };
        if tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            let wait = ((1.0 - tokens) / per_second).ceil().max(1.0);
            Err(Duration::from_secs(wait as u64))
        }
    }
}

/// The tokens `b` holds at `now`, refilled since it was counted.
fn refilled(b: Bucket, now: Instant, capacity: f64, per_second: f64) -> f64 {
    let elapsed = now.saturating_duration_since(b.at).as_secs_f64();
    (b.tokens + elapsed * per_second).min(capacity)
}

/// The address a client is counted under: IPv4 as it is (an IPv4-mapped IPv6 address as its
/// IPv4 address), IPv6 by its /64 network.
fn client_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

/// `--route-limit`: `N/min` or `N/h` (a bare `N` is a minute's), or `off` (`None`).
pub fn parse_route_limit(text: &str) -> Result<Option<RouteLimit>, String> {
    let wrong = || {
        format!(
            "--route-limit must be a number of documents per client such as 30/min or 100/h, or off; not `{text}`"
        )
    };
    let text = text.trim();
    if text.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    let (n, per) = text.split_once('/').unwrap_or((text, "min"));
    let count: u32 = n.trim().parse().map_err(|_| wrong())?;
    if count == 0 {
        return Err(
            "--route-limit must allow at least 1 document (such as 1/h); give `off` for no limit"
                .into(),
        );
    }
    let period = match per.trim().to_ascii_lowercase().as_str() {
        "m" | "min" | "minute" => Duration::from_secs(60),
        "h" | "hour" => Duration::from_secs(3600),
        _ => return Err(wrong()),
    };
    Ok(Some(RouteLimit { count, period }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn per_minute(count: u32) -> RouteLimiter {
        RouteLimiter::new(RouteLimit {
            count,
            period: Duration::from_secs(60),
        })
    }

    #[test]
    fn a_client_routes_its_burst_then_waits_for_the_refill() {
        let limiter = per_minute(3);
        let t0 = Instant::now();
        for _ in 0..3 {
            assert_eq!(limiter.take(ip("192.0.2.1"), t0), Ok(()));
        }
        // Empty: one token comes back every 20 s.
        assert_eq!(
            limiter.take(ip("192.0.2.1"), t0),
            Err(Duration::from_secs(20))
        );
        assert_eq!(
            limiter.take(ip("192.0.2.1"), t0 + Duration::from_secs(15)),
            Err(Duration::from_secs(5))
        );
        assert_eq!(
            limiter.take(ip("192.0.2.1"), t0 + Duration::from_secs(20)),
            Ok(())
        );
        // Another client has its own bucket.
        assert_eq!(limiter.take(ip("192.0.2.2"), t0), Ok(()));
    }

    #[test]
    fn ipv6_clients_count_by_their_64_network() {
        let limiter = per_minute(1);
        let t0 = Instant::now();
        assert_eq!(limiter.take(ip("2001:db8:1:2::1"), t0), Ok(()));
        assert!(limiter.take(ip("2001:db8:1:2::ffff"), t0).is_err());
        assert_eq!(limiter.take(ip("2001:db8:1:3::1"), t0), Ok(()));
        assert_eq!(limiter.take(ip("::ffff:192.0.2.9"), t0), Ok(()));
        assert!(limiter.take(ip("192.0.2.9"), t0).is_err());
    }

    #[test]
    fn memory_stays_bounded_under_a_flood_of_addresses() {
        let limiter = per_minute(1);
        let t0 = Instant::now();
        for n in 0..(MAX_CLIENTS as u32 + 10) {
            let _ = limiter.take(IpAddr::V4(n.into()), t0);
        }
        assert!(limiter.buckets.lock().unwrap().len() <= MAX_CLIENTS);
    }

    #[test]
    fn limits_parse_or_say_how_to_write_them() {
        let min = |count| {
            Some(RouteLimit {
                count,
                period: Duration::from_secs(60),
            })
        };
        assert_eq!(parse_route_limit("30/min"), Ok(min(30)));
        assert_eq!(parse_route_limit("30"), Ok(min(30)));
        assert_eq!(parse_route_limit("off"), Ok(None));
        assert_eq!(
            parse_route_limit("100/h"),
            Ok(Some(RouteLimit {
                count: 100,
                period: Duration::from_secs(3600)
            }))
        );
        for bad in ["", "x/min", "-1/min", "3/day", "0/min"] {
            let e = parse_route_limit(bad).unwrap_err();
            assert!(e.starts_with("--route-limit must"), "{bad}: {e}");
        }
    }
}
