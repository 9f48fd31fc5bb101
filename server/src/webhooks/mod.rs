//! Webhooks (contract §6.2): the events the store writes beside each change (its outbox) are
//! POSTed to the document's callback URL by [`run_worker`], signed as the Standard Webhooks
//! specification says, at least once, with retries and exponential backoff.
//!
//! - Signature: `webhook-id` (the event id), `webhook-timestamp` (Unix seconds) and
//!   `webhook-signature: v1,{base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")}`, the key
//!   being the base64-decoded part of the `whsec_…` secret after its prefix ([`sign`]). For a
//!   grace period after a key's secret is rotated, the old secret's signature follows the new
//!   one's, space-separated ([`signatures`]).
//! - Schedule: the first attempt at once; after a failure, [`Tuning::retry_base`] (30 s)
//!   doubling up to 720 times that (6 h); given up once the next attempt would come more than
//!   2880 times it (24 h) after the event.
//! - Claims: each attempt leases its event for twice the timeout and a second, so a worker
//!   that dies mid-delivery leaves it to be tried again (by any replica on PostgreSQL) once the
//!   lease is over. A response's event is claimed at birth by the server that stores it
//!   ([`HandOff`]): that server's worker delivers it at once, with no claim of its own; others
//!   take it only if the lease runs out first.
//! - The target: [`guard`] resolves it and refuses loopback, private, link-local and other
//!   internal addresses unless `--webhook-allow-private`; [`client`] connects to the checked
//!   address, with a timeout, a cap on the answer's size and no redirects followed.

pub mod client;
pub mod guard;

use crate::store::{self, Attempt, Delivery, Millis, Store};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Tells the worker an event was just written by this process and not handed to it (a close,
/// an expiry, a response whose event was not claimed at birth).
pub fn wake() {
    store::OUTBOX_WRITTEN.notify_one();
}

/// Deliveries handed from where responses are stored to this server's worker: their events
/// were claimed for it when they were written ([`crate::store::NewResponse::claim_until`]).
#[derive(Debug, Clone)]
pub struct HandOff {
    sender: tokio::sync::mpsc::Sender<Delivery>,
    lease: Duration,
}

/// Deliveries waiting for a place in the worker, at most. One that finds no room stays claimed
/// until its lease ends, and is then taken by any worker's claim.
const HANDED_AT_ONCE: usize = 4096;

impl HandOff {
    /// A hand-off for a worker with `tuning`, and the end the worker reads.
    pub fn new(tuning: &Tuning) -> (HandOff, tokio::sync::mpsc::Receiver<Delivery>) {
        let (sender, handed) = tokio::sync::mpsc::channel(HANDED_AT_ONCE);
        let lease = tuning.lease();
        (HandOff { sender, lease }, handed)
    }

    /// Until when an event written at `at` is claimed for this worker; `None` once the worker
    /// is gone (the event is then due at once, for any worker).
    pub fn claim_until(&self, at: Millis) -> Option<Millis> {
        (!self.sender.is_closed()).then(|| at.saturating_add(self.lease.as_millis() as Millis))
    }

    /// Gives `delivery` to the worker; when it has no room, the event waits for its lease.
    pub fn give(&self, delivery: Delivery) {
        if self.sender.try_send(delivery).is_err() {
            tracing::debug!("the webhook worker is full; an event waits for its claim to end");
        }
    }
}

/// The worker's timings.
#[derive(Debug, Clone, Copy)]
pub struct Tuning {
    /// The first retry's delay; later ones double it.
    pub retry_base: Duration,
    /// How long one attempt may take, connection included.
    pub timeout: Duration,
    /// How often the store is asked for due events when nothing wakes the worker.
    pub poll: Duration,
    /// Whether private and loopback targets are allowed (`--webhook-allow-private`).
    pub allow_private: bool,
}

impl Tuning {
    /// The defaults (30 s, 10 s, 1 s), with `PASSBACK_WEBHOOK_RETRY_BASE_MS` and
    /// `PASSBACK_WEBHOOK_TIMEOUT_MS` read for tests and tuning.
    pub fn from_env(allow_private: bool) -> Tuning {
        let ms = |name: &str, default: u64| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|&n| n > 0)
                .map_or(Duration::from_millis(default), Duration::from_millis)
        };
        Tuning {
            retry_base: ms("PASSBACK_WEBHOOK_RETRY_BASE_MS", 30_000),
            timeout: ms("PASSBACK_WEBHOOK_TIMEOUT_MS", 10_000),
            poll: Duration::from_secs(1),
            allow_private,
        }
    }

    fn lease(&self) -> Duration {
        self.timeout * 2 + Duration::from_secs(1)
    }

    /// When to try again after `attempts` failed attempts of an event made at `created_at`;
    /// `None` to give up.
    pub fn next_attempt(&self, created_at: Millis, attempts: u32, now: Millis) -> Option<Millis> {
        let base = self.retry_base.as_millis() as Millis;
        let delay = base
            .saturating_mul(1 << attempts.saturating_sub(1).min(20))
            .min(base.saturating_mul(720));
        let at = now.saturating_add(delay);
        (at <= created_at.saturating_add(base.saturating_mul(2880))).then_some(at)
    }
}

/// The body POSTed for an event: `{ type, document_id, response_id?, created_at }`.
pub fn payload(event: &store::Event) -> Value {
    let mut body = json!({
        "type": event.kind,
        "document_id": event.document_id,
        "created_at": store::rfc3339(event.created_at),
    });
    if let (Some(n), Some(fields)) = (event.response_id, body.as_object_mut()) {
        fields.insert("response_id".into(), json!(n));
    }
    body
}

/// `v1,{base64 HMAC-SHA256}` of `"{id}.{timestamp}.{body}"` with the `whsec_…` `secret`;
/// `None` when the secret is not `whsec_` and base64.
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> Option<String> {
    use base64::Engine as _;
    use hmac::{KeyInit, Mac};
    let b64 = base64::engine::general_purpose::STANDARD;
    let key = b64
        .decode(secret.strip_prefix(store::WEBHOOK_SECRET_PREFIX)?)
        .ok()?;
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(&key).ok()?;
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    Some(format!("v1,{}", b64.encode(mac.finalize().into_bytes())))
}

/// The `webhook-signature` header of `delivery`: its secret's signature and, while a rotated
/// key's grace lasts, the previous secret's after a space (Standard Webhooks lets a header carry
/// several, and a receiver accepts a delivery when one of them verifies). `None` when the
/// current secret is not `whsec_` and base64; a malformed previous one is left out.
pub fn signatures(delivery: &Delivery, timestamp: i64, body: &[u8]) -> Option<String> {
    let id = &delivery.event.id;
    let mut header = sign(&delivery.to.secret, id, timestamp, body)?;
    if let Some(previous) = delivery
        .to
        .previous_secret
        .as_deref()
        .and_then(|old| sign(old, id, timestamp, body))
    {
        header.push(' ');
        header.push_str(&previous);
    }
    Some(header)
}

/// Where delivery time goes, summed since the last [`Timings::log`]: from an event's creation to
/// its claim (first attempts only), the POST, and the record of its outcome, in milliseconds.
#[derive(Default)]
struct Timings {
    claimed: AtomicU64,
    waited_ms: AtomicU64,
    waited_max_ms: AtomicU64,
    sent: AtomicU64,
    send_ms: AtomicU64,
    send_max_ms: AtomicU64,
    recorded: AtomicU64,
    record_ms: AtomicU64,
    record_max_ms: AtomicU64,
}

static TIMINGS: Timings = Timings {
    claimed: AtomicU64::new(0),
    waited_ms: AtomicU64::new(0),
    waited_max_ms: AtomicU64::new(0),
    sent: AtomicU64::new(0),
    send_ms: AtomicU64::new(0),
    send_max_ms: AtomicU64::new(0),
    recorded: AtomicU64::new(0),
    record_ms: AtomicU64::new(0),
    record_max_ms: AtomicU64::new(0),
};

impl Timings {
    fn add(count: &AtomicU64, total: &AtomicU64, max: &AtomicU64, n: u64, ms: u64) {
        count.fetch_add(n, Ordering::Relaxed);
        total.fetch_add(ms.saturating_mul(n), Ordering::Relaxed);
        max.fetch_max(ms, Ordering::Relaxed);
    }

    /// One log line of the averages and maxima since the last one, when anything happened.
    fn log(&self) {
        let take = |a: &AtomicU64| a.swap(0, Ordering::Relaxed);
        let (claimed, sent, recorded) =
            (take(&self.claimed), take(&self.sent), take(&self.recorded));
        let avg = |total: u64, n: u64| total.checked_div(n).unwrap_or(0);
        let (waited, send, record) = (
            avg(take(&self.waited_ms), claimed),
            avg(take(&self.send_ms), sent),
            avg(take(&self.record_ms), recorded),
        );
        let (waited_max, send_max, record_max) = (
            take(&self.waited_max_ms),
            take(&self.send_max_ms),
            take(&self.record_max_ms),
        );
        if claimed + sent + recorded > 0 {
            tracing::info!(
                claimed,
                created_to_claim_ms = waited,
                created_to_claim_max_ms = waited_max,
                sent,
                send_ms = send,
                send_max_ms = send_max,
                recorded,
                record_ms = record,
                record_max_ms = record_max,
                "webhook timings"
            );
        }
    }
}

/// How often the worker logs [`Timings`].
const TIMINGS_EVERY: Duration = Duration::from_secs(5);

/// Deliveries in flight at once, per server.
const IN_FLIGHT: usize = 32;

/// Delivers due events until aborted: takes the deliveries handed to it (their events claimed
/// for it when they were written) and claims due ones from the store, as many as there are
/// free places among [`IN_FLIGHT`]; POSTs each on a task of its own, and takes more as places
/// free up (a slow receiver holds up only its own place). It asks the store when woken
/// ([`wake`]), at the poll interval, and again while a claim fills every place; a hand-off
/// alone needs no claim. The outcomes go to one recorder, which records those that ended
/// together in one statement and only then frees their places: under load a claim takes a
/// batch, not one.
pub async fn run_worker(
    store: Arc<dyn Store>,
    tuning: Tuning,
    mut handed: tokio::sync::mpsc::Receiver<Delivery>,
) {
    let places = Arc::new(tokio::sync::Semaphore::new(IN_FLIGHT));
    let (ended, outcomes) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(record_outcomes(store.clone(), outcomes));
    let logger = tokio::spawn(async {
        let mut every = tokio::time::interval(TIMINGS_EVERY);
        loop {
            every.tick().await;
            TIMINGS.log();
        }
    });
    // The logger stops with the worker.
    struct Stop(tokio::task::JoinHandle<()>);
    impl Drop for Stop {
        fn drop(&mut self) {
            self.0.abort();
        }
    }
    let _logger = Stop(logger);
    let timeout = tuning.timeout.as_millis() as Millis;
    let mut must_claim = true;
    let mut waiting: Option<Delivery> = None;
    let mut handing = true;
    loop {
        // One free place at least, then every other free one.
        let Ok(first) = places.clone().acquire_owned().await else {
            return;
        };
        let mut held = vec![first];
        while let Ok(more) = places.clone().try_acquire_owned() {
            held.push(more);
        }
        let now = store::now();
        // Handed ones first. One whose claim would end before an attempt could (it waited
        // long for a place) is left to the claim's end, when any worker takes it.
        let mut due = Vec::new();
        while due.len() < held.len() {
            let Some(delivery) = waiting.take().or_else(|| handed.try_recv().ok()) else {
                break;
            };
            if delivery
                .event
                .next_attempt_at
                .is_some_and(|until| until.saturating_sub(now) > timeout)
            {
                due.push(delivery);
            }
        }
        if must_claim && due.len() < held.len() {
            let lease = now + tuning.lease().as_millis() as Millis;
            let wanted = held.len() - due.len();
            match store.claim_events(now, lease, wanted).await {
                Ok(claimed) => {
                    // A full claim may have left more due.
                    must_claim = claimed.len() == wanted;
                    due.extend(claimed);
                }
                Err(e) => {
                    tracing::warn!(error = %e, "cannot claim webhook events");
                    if due.is_empty() {
                        drop(held);
                        tokio::time::sleep(tuning.poll).await;
                        continue;
                    }
                }
            }
        }
        if due.is_empty() {
            drop(held);
            tokio::select! {
                () = store::OUTBOX_WRITTEN.notified() => must_claim = true,
                () = tokio::time::sleep(tuning.poll) => must_claim = true,
                delivery = handed.recv(), if handing => match delivery {
                    Some(delivery) => waiting = Some(delivery),
                    // No one hands any more: claims alone from now on.
                    None => handing = false,
                },
            }
            continue;
        }
        for delivery in &due {
            if delivery.event.attempts == 0 {
                let waited = now.saturating_sub(delivery.event.created_at).max(0) as u64;
                Timings::add(
                    &TIMINGS.claimed,
                    &TIMINGS.waited_ms,
                    &TIMINGS.waited_max_ms,
                    1,
                    waited,
                );
            }
        }
        for delivery in due {
            let place = held.pop();
            let ended = ended.clone();
            tokio::spawn(async move {
                let started = Instant::now();
                let attempt = deliver(&delivery, &tuning).await;
                let took = started.elapsed().as_millis() as u64;
                Timings::add(
                    &TIMINGS.sent,
                    &TIMINGS.send_ms,
                    &TIMINGS.send_max_ms,
                    1,
                    took,
                );
                // The recorder is gone only when the worker is: the lease then brings it back.
                let _ = ended.send(Outcome {
                    event: delivery.event.id,
                    attempt,
                    place,
                });
            });
        }
        // Places left over go back; more may be due already.
        drop(held);
    }
}

/// An attempt that ended, to record, and the place it held until it is recorded.
struct Outcome {
    event: String,
    attempt: Attempt,
    place: Option<tokio::sync::OwnedSemaphorePermit>,
}

/// Records the attempts as they end: each one at once when they are few, those that ended
/// meanwhile in one statement when they are many. An attempt not recorded (the store failed)
/// stays claimed until its lease ends, and is then tried again: at least once still holds.
async fn record_outcomes(
    store: Arc<dyn Store>,
    mut outcomes: tokio::sync::mpsc::UnboundedReceiver<Outcome>,
) {
    while let Some(first) = outcomes.recv().await {
        let mut batch = vec![first];
        while batch.len() < IN_FLIGHT {
            match outcomes.try_recv() {
                Ok(more) => batch.push(more),
                Err(_) => break,
            }
        }
        let attempts = batch
            .iter()
            .map(|o| (o.event.clone(), o.attempt.clone()))
            .collect();
        let started = Instant::now();
        if let Err(e) = store.record_attempts(attempts).await {
            tracing::warn!(error = %e, events = batch.len(), "cannot record webhook deliveries");
        }
        Timings::add(
            &TIMINGS.recorded,
            &TIMINGS.record_ms,
            &TIMINGS.record_max_ms,
            batch.len() as u64,
            started.elapsed().as_millis() as u64,
        );
        // The places free up here, all at once: the worker's next claim takes them together.
        let mut freed: Option<tokio::sync::OwnedSemaphorePermit> = None;
        for place in batch.into_iter().filter_map(|o| o.place) {
            match &mut freed {
                Some(all) => all.merge(place),
                None => freed = Some(place),
            }
        }
        drop(freed);
    }
}

/// One attempt at `delivery`, and what to record of it.
pub async fn deliver(delivery: &Delivery, tuning: &Tuning) -> Attempt {
    let event = &delivery.event;
    let body = payload(event).to_string();
    let timestamp = store::now() / 1000;
    let outcome = match signatures(delivery, timestamp, body.as_bytes()) {
        None => Err("the webhook secret is not whsec_ and base64".to_string()),
        Some(signature) => {
            let headers = [
                ("webhook-id", event.id.clone()),
                ("webhook-timestamp", timestamp.to_string()),
                ("webhook-signature", signature),
            ];
            client::post(&delivery.to.url, &headers, body, tuning).await
        }
    };
    let at = store::now();
    let failed = |status: Option<u16>, error: String| {
        tracing::info!(event = %event.id, %error, "webhook delivery failed");
        Attempt {
            at,
            status,
            error: Some(error),
            delivered: false,
            next_attempt_at: tuning.next_attempt(event.created_at, event.attempts + 1, at),
        }
    };
    match outcome {
        Ok(status) if (200..300).contains(&status) => Attempt {
            at,
            status: Some(status),
            error: None,
            delivered: true,
            next_attempt_at: None,
        },
        Ok(status) => failed(
            Some(status),
            format!("the receiver answered {status}, not 2xx"),
        ),
        Err(e) => failed(None, e),
    }
}

/// `callback_url` as routing takes it: an absolute `https://` URL (or `http://` with
/// `--webhook-allow-private`), at most 2048 bytes, whose host, when it is an IP address, is not
/// an internal one unless allowed. The error says what is wrong and what to give.
pub fn check_callback_url(url: &str, allow_private: bool) -> Result<String, String> {
    let target = guard::Target::parse(url)?;
    if url.len() > 2048 {
        return Err("\"callback_url\" is longer than 2048 bytes.".into());
    }
    if !target.https && !allow_private {
        return Err(
            "\"callback_url\" must be an https:// URL (http:// only on a server run with --webhook-allow-private)."
                .into(),
        );
    }
    if let Ok(ip) = target.host.parse::<std::net::IpAddr>()
        && !allow_private
        && let Some(why) = guard::forbidden(ip)
    {
        return Err(format!(
            "\"callback_url\" points at {ip}, {why}; webhooks go only to public addresses (unless the server runs with --webhook-allow-private)."
        ));
    }
    Ok(url.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_the_standard_webhooks_one() {
        // The example of the Standard Webhooks specification's reference libraries.
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let body = br#"{"test": 2432232314}"#;
        assert_eq!(
            sign(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body).as_deref(),
            Some("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        );
        assert_eq!(sign("nope", "x", 1, b""), None);
    }

    #[test]
    fn a_rotated_secret_signs_beside_the_new_one() {
        let (new, old) = (
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
        );
        let mut delivery = Delivery {
            event: store::Event {
                id: "msg_p5jXN8AQM9LWM0D4loKWxJek".into(),
                document_id: "d".into(),
                kind: store::RESPONSE_CREATED.into(),
                response_id: Some(1),
                created_at: 0,
                deliver: true,
                attempts: 0,
                next_attempt_at: Some(0),
                delivered_at: None,
                last_status: None,
                last_error: None,
            },
            to: store::Destination {
                url: "https://example.com/hook".into(),
                secret: new.into(),
                previous_secret: Some(old.into()),
            },
        };
        let body = br#"{"test": 2432232314}"#;
        let id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
        let both = signatures(&delivery, 1614265330, body).unwrap();
        let parts: Vec<&str> = both.split(' ').collect();
        assert_eq!(
            parts,
            [
                sign(new, id, 1614265330, body).unwrap(),
                sign(old, id, 1614265330, body).unwrap()
            ]
        );
        assert_ne!(parts[0], parts[1]);
        // A malformed previous secret is left out; without one, one signature.
        delivery.to.previous_secret = Some("nope".into());
        assert_eq!(
            signatures(&delivery, 1614265330, body),
            Some(parts[0].to_string())
        );
        delivery.to.previous_secret = None;
        assert_eq!(
            signatures(&delivery, 1614265330, body),
            Some(parts[0].to_string())
        );
        delivery.to.secret = "nope".into();
        assert_eq!(signatures(&delivery, 1614265330, body), None);
    }

    #[test]
    fn retries_back_off_and_give_up_after_a_day() {
        let t = Tuning {
            retry_base: Duration::from_secs(30),
            timeout: Duration::from_secs(10),
            poll: Duration::from_secs(1),
            allow_private: false,
        };
        assert_eq!(t.next_attempt(0, 1, 0), Some(30_000));
        assert_eq!(t.next_attempt(0, 2, 0), Some(60_000));
        assert_eq!(t.next_attempt(0, 15, 0), Some(6 * 3_600_000));
        assert_eq!(t.next_attempt(0, 15, 20 * 3_600_000), None);
    }

    #[test]
    fn callback_urls_are_https_and_not_internal() {
        assert!(check_callback_url("https://example.com/hook", false).is_ok());
        for bad in [
            "http://example.com/hook",
            "https://127.0.0.1/x",
            "https://10.0.0.1/x",
            "https://169.254.169.254/latest",
            "https://[::1]/x",
            "https://[::ffff:127.0.0.1]/x",
            "ftp://example.com",
            "/relative",
        ] {
            let e = check_callback_url(bad, false).unwrap_err();
            assert!(e.contains("callback_url"), "{bad}: {e}");
        }
        assert!(check_callback_url("http://127.0.0.1:9/x", true).is_ok());
    }
}
