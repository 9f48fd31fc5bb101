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
use std::sync::{Arc, Mutex};
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
    parse_rate(text, "route-limit", "documents per client")
}

/// A rate flag (`--{flag}`): `N/min` or `N/h` (a bare `N` is a minute's), or `off` (`None`);
/// `what` names what is counted, for the error.
pub fn parse_rate(text: &str, flag: &str, what: &str) -> Result<Option<RouteLimit>, String> {
    let wrong = || {
        format!("--{flag} must be a number of {what} such as 30/min or 100/h, or off; not `{text}`")
    };
    let text = text.trim();
    if text.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    let (n, per) = text.split_once('/').unwrap_or((text, "min"));
    let count: u32 = n.trim().parse().map_err(|_| wrong())?;
    if count == 0 {
        return Err(format!(
            "--{flag} must allow at least 1 (such as 1/h); give `off` for no limit"
        ));
    }
    let period = match per.trim().to_ascii_lowercase().as_str() {
        "m" | "min" | "minute" => Duration::from_secs(60),
        "h" | "hour" => Duration::from_secs(3600),
        _ => return Err(wrong()),
    };
    Ok(Some(RouteLimit { count, period }))
}

/// `count` a `period`, said in words: `10 answers a minute`.
pub fn rate_words(limit: RouteLimit, one: &str, many: &str) -> String {
    let per = if limit.period >= Duration::from_secs(3600) {
        "hour"
    } else {
        "minute"
    };
    let noun = if limit.count == 1 { one } else { many };
    format!("{} {noun} a {per}", limit.count)
}

/// Token buckets by any key, filled as [`RouteLimiter`]'s are, and bounded in memory alike.
#[derive(Debug)]
struct Buckets<K> {
    limit: RouteLimit,
    map: Mutex<HashMap<K, Bucket>>,
}

impl<K: std::hash::Hash + Eq> Buckets<K> {
    fn new(limit: RouteLimit) -> Self {
        Buckets {
            limit: RouteLimit {
                count: limit.count.max(1),
                period: limit.period.max(Duration::from_secs(1)),
            },
            map: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one token for `key` at `now`, or says how long until there is one (whole seconds,
    /// at least 1).
    fn take(&self, key: K, now: Instant) -> Result<(), Duration> {
        let capacity = f64::from(self.limit.count);
        let per_second = capacity / self.limit.period.as_secs_f64();
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() >= MAX_CLIENTS && !map.contains_key(&key) {
            map.retain(|_, b| refilled(*b, now, capacity, per_second) < capacity);
            if map.len() >= MAX_CLIENTS {
                map.clear();
            }
        }
        let bucket = map.entry(key).or_insert(Bucket {
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

// ---------------------------------------------------------------------------------------------
// Answers per review link

/// The limits on answers to one routed document (`--answer-limit`, per client address and
/// document, and `--document-answer-limit`, per document from everyone): whoever holds a review
/// link can post answers, and without them one holder could fill the document's
/// `--max-responses` before the real reviewers answer.
#[derive(Debug)]
pub struct AnswerLimiter {
    per_client: Option<Buckets<(String, IpAddr)>>,
    per_document: Option<Buckets<String>>,
}

impl AnswerLimiter {
    pub fn new(per_client: Option<RouteLimit>, per_document: Option<RouteLimit>) -> Self {
        AnswerLimiter {
            per_client: per_client.map(Buckets::new),
            per_document: per_document.map(Buckets::new),
        }
    }

    /// Takes one answer to `document` from `client` at `now`, or says how long to wait and
    /// which limit was reached. The client's own limit is taken first, so a client over it
    /// spends nothing of the document's.
    pub fn take(
        &self,
        document: &str,
        client: Option<IpAddr>,
        now: Instant,
    ) -> Result<(), (Duration, String)> {
        if let (Some(buckets), Some(ip)) = (&self.per_client, client) {
            buckets
                .take((document.to_string(), client_key(ip)), now)
                .map_err(|wait| {
                    (
                        wait,
                        format!(
                            "This review link takes at most {} from one address (--answer-limit); retry in {} s.",
                            rate_words(buckets.limit, "answer", "answers"),
                            wait.as_secs()
                        ),
                    )
                })?;
        }
        if let Some(buckets) = &self.per_document {
            buckets.take(document.to_string(), now).map_err(|wait| {
                (
                    wait,
                    format!(
                        "This document takes at most {} (--document-answer-limit); retry in {} s.",
                        rate_words(buckets.limit, "answer", "answers"),
                        wait.as_secs()
                    ),
                )
            })?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Long-polls

/// How long a long-poll refused for want of room is told to wait (`Retry-After`).
pub const LONG_POLL_RETRY: Duration = Duration::from_secs(2);

/// How many long-polls may wait at once: on the whole server (`--max-long-polls`), on one
/// document (`--long-polls-per-document`), from one client address
/// (`--long-polls-per-client`), on the documents of one sender key (`--long-polls-per-key`). A waiting long-poll holds a connection for up to a minute, so
/// without its own budget a few holders of one document's token could hold every connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LongPollBudget {
    pub total: usize,
    pub per_document: usize,
    pub per_client: usize,
    pub per_key: usize,
}

impl Default for LongPollBudget {
    fn default() -> Self {
        LongPollBudget {
            total: 256,
            per_document: 8,
            per_client: 32,
            per_key: 64,
        }
    }
}

/// The long-polls waiting now, counted against their [`LongPollBudget`].
#[derive(Debug)]
pub struct LongPolls {
    budget: LongPollBudget,
    held: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    total: usize,
    documents: HashMap<String, usize>,
    clients: HashMap<IpAddr, usize>,
    keys: HashMap<String, usize>,
}

/// One waiting long-poll's place in the budget; given back when dropped.
#[derive(Debug)]
pub struct LongPollSlot {
    polls: Arc<LongPolls>,
    document: String,
    client: Option<IpAddr>,
    key: Option<String>,
}

impl LongPolls {
    pub fn new(budget: LongPollBudget) -> Self {
        LongPolls {
            budget,
            held: Mutex::new(Held::default()),
        }
    }

    /// The budget.
    pub fn budget(&self) -> LongPollBudget {
        self.budget
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A place for one long-poll on `document` from `client` (`None`: a client without an
    /// address, the stdio tools, counted on the server and the document only), whose sender
    /// key is `key` (the id of the key that routed it; `None` when routed without one), or the
    /// sentence saying which budget is full.
    pub fn enter(
        self: &Arc<Self>,
        document: &str,
        client: Option<IpAddr>,
        key: Option<&str>,
    ) -> Result<LongPollSlot, String> {
        let client = client.map(client_key);
        let mut held = self.lock();
        let b = self.budget;
        if held.total >= b.total {
            return Err(format!(
                "The server has {} long-polls waiting, its limit (--max-long-polls); retry in {} s, or ask without wait.",
                b.total,
                LONG_POLL_RETRY.as_secs()
            ));
        }
        if held.documents.get(document).copied().unwrap_or(0) >= b.per_document {
            return Err(format!(
                "This document has {} long-polls waiting already, its limit (--long-polls-per-document); retry in {} s, or ask without wait.",
                b.per_document,
                LONG_POLL_RETRY.as_secs()
            ));
        }
        if let Some(ip) = client
            && held.clients.get(&ip).copied().unwrap_or(0) >= b.per_client
        {
            return Err(format!(
                "This address has {} long-polls waiting already, its limit (--long-polls-per-client); retry in {} s, or ask without wait.",
                b.per_client,
                LONG_POLL_RETRY.as_secs()
            ));
        }
        if let Some(key) = key
            && held.keys.get(key).copied().unwrap_or(0) >= b.per_key
        {
            return Err(format!(
                "This sender key's documents have {} long-polls waiting already, its limit (--long-polls-per-key); retry in {} s, or ask without wait.",
                b.per_key,
                LONG_POLL_RETRY.as_secs()
            ));
        }
        held.total += 1;
        *held.documents.entry(document.to_string()).or_insert(0) += 1;
        if let Some(ip) = client {
            *held.clients.entry(ip).or_insert(0) += 1;
        }
        if let Some(key) = key {
            *held.keys.entry(key.to_string()).or_insert(0) += 1;
        }
        Ok(LongPollSlot {
            polls: self.clone(),
            document: document.to_string(),
            client,
            key: key.map(str::to_string),
        })
    }

    /// How many long-polls wait now.
    pub fn waiting(&self) -> usize {
        self.lock().total
    }
}

impl Drop for LongPollSlot {
    fn drop(&mut self) {
        let mut held = self.polls.lock();
        held.total = held.total.saturating_sub(1);
        if let Some(n) = held.documents.get_mut(&self.document) {
            *n -= 1;
            if *n == 0 {
                held.documents.remove(&self.document);
            }
        }
        if let Some(ip) = self.client
            && let Some(n) = held.clients.get_mut(&ip)
        {
            *n -= 1;
            if *n == 0 {
                held.clients.remove(&ip);
            }
        }
        if let Some(key) = &self.key
            && let Some(n) = held.keys.get_mut(key)
        {
            *n -= 1;
            if *n == 0 {
                held.keys.remove(key);
            }
        }
    }
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

    #[test]
    fn long_polls_fit_their_budget_and_give_their_places_back() {
        let polls = Arc::new(LongPolls::new(LongPollBudget {
            total: 3,
            per_document: 2,
            per_client: 2,
            per_key: 3,
        }));
        let a = polls.enter("doc", Some(ip("192.0.2.1")), None).unwrap();
        let _b = polls.enter("doc", Some(ip("192.0.2.2")), None).unwrap();
        let e = polls.enter("doc", Some(ip("192.0.2.3")), None).unwrap_err();
        assert!(e.contains("--long-polls-per-document"), "{e}");
        let _c = polls.enter("other", Some(ip("192.0.2.1")), None).unwrap();
        let e = polls.enter("third", None, None).unwrap_err();
        assert!(e.contains("--max-long-polls"), "{e}");
        // Places come back when dropped; an address holds at most its share.
        drop(a);
        let _d = polls.enter("other", Some(ip("192.0.2.1")), None).unwrap();
        drop(_b);
        let e = polls
            .enter("fourth", Some(ip("192.0.2.1")), None)
            .unwrap_err();
        assert!(e.contains("--long-polls-per-client"), "{e}");
        let _e = polls.enter("fourth", None, None).unwrap();
        assert_eq!(polls.waiting(), 3);
    }

    #[test]
    fn a_sender_keys_documents_share_one_budget() {
        let polls = Arc::new(LongPolls::new(LongPollBudget {
            total: 100,
            per_document: 100,
            per_client: 100,
            per_key: 2,
        }));
        // Each document and address differs: only the key they share counts them together.
        let a = polls.enter("d1", Some(ip("192.0.2.1")), Some("k")).unwrap();
        let _b = polls.enter("d2", Some(ip("192.0.2.2")), Some("k")).unwrap();
        let e = polls
            .enter("d3", Some(ip("192.0.2.3")), Some("k"))
            .unwrap_err();
        assert!(e.contains("--long-polls-per-key"), "{e}");
        let _other = polls.enter("d3", Some(ip("192.0.2.3")), Some("j")).unwrap();
        let _keyless = polls.enter("d4", Some(ip("192.0.2.4")), None).unwrap();
        drop(a);
        let _c = polls.enter("d3", Some(ip("192.0.2.3")), Some("k")).unwrap();
    }

    #[test]
    fn answers_are_limited_per_client_and_per_document() {
        let limiter = AnswerLimiter::new(
            Some(RouteLimit {
                count: 2,
                period: Duration::from_secs(60),
            }),
            Some(RouteLimit {
                count: 3,
                period: Duration::from_secs(60),
            }),
        );
        let t0 = Instant::now();
        assert!(limiter.take("d", Some(ip("192.0.2.1")), t0).is_ok());
        assert!(limiter.take("d", Some(ip("192.0.2.1")), t0).is_ok());
        let (wait, why) = limiter.take("d", Some(ip("192.0.2.1")), t0).unwrap_err();
        assert_eq!(wait, Duration::from_secs(30));
        assert!(why.contains("--answer-limit"), "{why}");
        // Another document is another link.
        assert!(limiter.take("e", Some(ip("192.0.2.1")), t0).is_ok());
        assert!(limiter.take("d", Some(ip("192.0.2.2")), t0).is_ok());
        let (_, why) = limiter.take("d", Some(ip("192.0.2.3")), t0).unwrap_err();
        assert!(why.contains("--document-answer-limit"), "{why}");
    }
}
