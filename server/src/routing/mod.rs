//! The routed documents' rules (contract §6), with no HTTP in them: a sender routes a document,
//! a reader answers it, the sender lists the answers with the document's bearer token. The HTTP
//! routes (`http::documents`, `http::review`) and the MCP tools (`mcp`) both call these, so ids,
//! tokens, expiry, limits and long-polls behave alike; each maps [`RoutingError`] in one place.
//!
//! | rule | here |
//! |---|---|
//! | route a document: validate it in a render slot, keep it with fresh secrets | [`Routing::route_checked`], [`RouteOptions`], [`Routing::route`] |
//! | how long it lives: `expires_in` within the retention period | [`Routing::lifetime`] |
//! | how many a client may route (`--route-limit`) | [`take_route_token`] |
//! | how many long-polls wait at once (server, document, client, sender key) | [`enter_long_poll`] |
//! | how many answers a link takes a minute; how large one is as stored | [`take_answer_token`], [`check_stored_size`] |
//! | open it: by id for a reader, by id and bearer token for its sender | [`Routing::live`], [`Routing::authorized`] |
//! | a sender key: live, or refused as unknown or revoked | [`Routing::sender`] |
//! | open it for its sender by its token or the key that routed it (another key: as unknown) | [`Routing::owned`] |
//! | how many a key may route an hour (`--key-documents-per-hour`) | [`Routing::within_quota`] |
//! | a key's documents, newest first, a page at a time | [`Routing::documents_of`] |
//! | keep a reader's response, up to the limit per document | [`Routing::respond`] |
//! | list the responses after a cursor, waiting for the first | [`Routing::responses_after`] |
//! | close or reopen it (its status); count its review page's views | [`Routing::set_status`], [`Routing::count_view`] |
//! | an `Idempotency-Key` on routing: claim it, replay the first answer, refuse another body | [`idempotency::Idempotent`] |
//! | delete it; purge what is due | [`Routing::delete`], [`Routing::sweep`], [`sweep_every_minute`] |
//! | revise it: validate, warn of answers a revision makes ambiguous, keep it as the latest | [`Routing::revise_checked`] |
//! | read an earlier revision; carry answers across revisions | [`Routing::revision_text`], [`carry`] |
//! | route it with a callback URL; a key's events after a cursor, as listed | [`RouteOptions::callback_url`], [`Routing::events_after`], [`event_json`] |
//! | route it to recipients, each with a link of their own, asking for a verdict | [`RouteOptions::asks`], [`Asks::from_fields`] |
//! | a recipient by their link's secret; how far each got; a response through their link | [`Routing::recipient`], [`Routing::with_recipients`], [`Routing::respond_with`] |
//!
//! Each part lives in a file of its own: the limits in `limits`; what is done for a sender key
//! (`sender`, `owned`, `within_quota`, `documents_of`, `events_after`) in `keys`; recipients
//! and the verdict in `recipients`; a reader's responses (`respond*`, `receipt`,
//! `responses_after`, [`Answer`]) in `responses`; revisions (`revise_checked`,
//! `revision_text`, [`Revision`]) in `revisions`; the events as listed ([`event_json`]) in
//! `events`. They are re-exported or are methods of [`Routing`], so their paths are as above.

mod answerable;
pub mod carry;
mod error;
mod events;
pub mod idempotency;
mod keys;
mod limits;
mod recipients;
mod responses;
mod revisions;

pub use answerable::{Answerable, KEPT_BYTES, KEPT_FOR};
pub use error::RoutingError;
pub use events::{EVENTS_DEFAULT, EVENTS_MAX, event_json};
pub use limits::{
    PAGE_DEFAULT, PAGE_MAX, check_stored_size, enter_long_poll, take_answer_token, take_route_token,
};
pub use recipients::{
    Asks, DEFAULT_VERDICT, MAX_RECIPIENT_NAME, MAX_RECIPIENTS, MAX_SENDER_NAME, MAX_VERDICT_LABEL,
    chosen_verdict, is_recipient_secret, recipient_json, secret_hash, with_verdict_line,
};
pub use responses::{Answer, is_submission_id};
pub use revisions::{MAX_REVISIONS, Revision};

use crate::admission::RenderSlots;
use crate::quote::truncate;
use crate::store::{
    self, Document, DocumentSummary, ID_BYTES, KeyInfo, Lookup, Millis, NewDocument, Recipient,
    Status, Store, StoreError, TOKEN_BYTES,
};
use passback_engine::Options;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// The longest `wait` a long-poll may ask for.
pub const MAX_WAIT: Duration = Duration::from_secs(60);

/// A routed document as created: what the sender keeps.
#[derive(Debug, Clone)]
pub struct Routed {
    pub id: String,
    /// The bearer token, shown once: the store keeps only its hash.
    pub token: String,
    pub hash: String,
    pub created_at: Millis,
    pub expires_at: Millis,
    /// The document's own webhook secret, shown once: for a document routed with a
    /// `callback_url` and without a key (a key's documents are signed with the key's secret).
    pub webhook_secret: Option<String>,
    /// Each recipient's name and link secret, shown once: the store keeps only its hash.
    pub recipients: Vec<(String, String)>,
    /// The verdict's choices, when it asks for one.
    pub verdict: Option<Vec<String>>,
}

/// How a document is routed, beyond its text: each field may be left at its default.
#[derive(Debug, Clone, Default)]
pub struct RouteOptions<'a> {
    /// How long it lives; the retention period when `None`, and never longer.
    pub expires_in: Option<Duration>,
    /// The sender key that routes it, or none.
    pub owner: Option<&'a KeyInfo>,
    /// Where its events are POSTed; the key's callback URL, if any, when `None`.
    pub callback_url: Option<String>,
    /// Its recipients and the verdict it asks for.
    pub asks: Asks,
}

/// A document routed after its validation: it, and the validation's warnings.
pub struct Checked {
    pub routed: Routed,
    pub diagnostics: Value,
}

impl Checked {
    /// The sender's record, `{ id, review_url, token, hash, expires_at, diagnostics }`, with
    /// review links under `origin`.
    pub fn record(&self, origin: &str) -> Value {
        let routed = &self.routed;
        let mut record = json!({
            "id": routed.id,
            "review_url": format!("{origin}/r/{}", routed.id),
            "token": routed.token,
            "hash": routed.hash,
            "expires_at": store::rfc3339(routed.expires_at),
            "diagnostics": self.diagnostics,
        });
        let Some(fields) = record.as_object_mut() else {
            return record;
        };
        if let Some(secret) = &routed.webhook_secret {
            fields.insert("webhook_secret".into(), json!(secret));
        }
        if !routed.recipients.is_empty() {
            let links: Vec<Value> = routed
                .recipients
                .iter()
                .map(|(name, secret)| {
                    json!({
                        "name": name,
                        "review_url": recipients::recipient_url(origin, &routed.id, secret),
                    })
                })
                .collect();
            fields.insert("recipients".into(), Value::Array(links));
        }
        if let Some(verdict) = &routed.verdict {
            fields.insert("verdict".into(), json!(verdict));
        }
        record
    }
}

/// The store with the rules every front end shares: fresh secrets, expiry within the
/// retention period, the limit of responses per document.
#[derive(Clone)]
pub struct Routing {
    pub store: Arc<dyn Store>,
    /// How long a document may live, and how long a tombstone is kept.
    pub retention: Duration,
    /// How long a closed or expired document keeps its text and responses, from the moment it
    /// stopped taking responses, before the sweep purges it.
    pub closed_retention: Duration,
    /// Responses one document takes at most.
    pub max_responses: u64,
    /// Open documents as readers answer them, kept a short while.
    answerable: Arc<answerable::AnswerableCache>,
    /// This server's webhook worker, when it runs one: the events of the responses stored
    /// here are claimed for it and handed to it.
    hand_off: Arc<std::sync::OnceLock<crate::webhooks::HandOff>>,
}

impl Routing {
    /// The rules over `store`, with the retention periods and the limit of responses a
    /// document takes.
    pub fn new(
        store: Arc<dyn Store>,
        retention: Duration,
        closed_retention: Duration,
        max_responses: u64,
    ) -> Self {
        Routing {
            store,
            retention,
            closed_retention,
            max_responses,
            answerable: Default::default(),
            hand_off: Default::default(),
        }
    }

    /// Hands the events of the responses stored from now on to `hand_off`'s worker.
    pub fn deliver_here(&self, hand_off: crate::webhooks::HandOff) {
        let _ = self.hand_off.set(hand_off);
    }

    /// Keeps `markdown` (already validated) as `options` say: for `expires_in` (at most the
    /// retention period; the retention period when `None`), for a key or none, with a callback
    /// URL, recipients and a verdict or without.
    pub async fn route(
        &self,
        markdown: String,
        hash: String,
        options: RouteOptions<'_>,
    ) -> Result<Routed, StoreError> {
        let RouteOptions {
            expires_in,
            owner,
            callback_url,
            asks,
        } = options;
        let (secrets, recipients) = recipients::new_recipients(&asks.recipients)?;
        let lifetime = expires_in.unwrap_or(self.retention).min(self.retention);
        let created_at = store::now();
        // Signed with the key's secret; a document without one (no key, or a key made before
        // webhooks) gets its own.
        let webhook_secret = match (&callback_url, owner) {
            (Some(_), Some(key)) if key.webhook_secret.is_some() => None,
            (Some(_), _) => Some(store::new_webhook_secret()?),
            (None, _) => None,
        };
        let routed = Routed {
            webhook_secret,
            id: store::random_secret(ID_BYTES)?,
            token: store::random_secret(TOKEN_BYTES)?,
            hash,
            created_at,
            expires_at: created_at.saturating_add(lifetime.as_millis() as Millis),
            recipients: asks
                .recipients
                .iter()
                .map(|(name, _)| name.clone())
                .zip(secrets)
                .collect(),
            verdict: asks.verdict.clone(),
        };
        self.store
            .create(NewDocument {
                id: routed.id.clone(),
                token_hash: *blake3::hash(routed.token.as_bytes()).as_bytes(),
                markdown,
                hash: routed.hash.clone(),
                created_at: routed.created_at,
                expires_at: routed.expires_at,
                owner: owner.map(|k| k.id.clone()),
                callback_url,
                webhook_secret: routed.webhook_secret.clone(),
                recipients,
                verdict: asks.verdict,
                sender: asks.sender,
            })
            .await?;
        Ok(routed)
    }

    /// Validates `src` in a render slot and, when it is valid, keeps it as `options` say (the
    /// key, callback URL and asks checked already: see [`Routing::sender`],
    /// [`crate::webhooks::check_callback_url`], [`Asks::from_fields`]). Every front end routes
    /// a document through here.
    pub async fn route_checked(
        &self,
        slots: &RenderSlots<'_>,
        src: String,
        mut options: RouteOptions<'_>,
    ) -> Result<Checked, RoutingError> {
        // The default verdict's choices are written in the document's language.
        let wants_lang = options.asks.default_verdict;
        let (src, validation, hash, lang) = slots
            .run(move || {
                let validation = passback_engine::validate(&src);
                let hash = passback_engine::content_hash(&src, &Options::default());
                let lang = wants_lang.then(|| passback_engine::Doc::parse(&src).lang_code());
                (src, validation, hash, lang)
            })
            .await?;
        if let Some(lang) = lang {
            let choices = passback_engine::chrome_strings(lang).verdict_choices;
            options.asks = options.asks.in_language(choices);
        }
        let diagnostics = checked_diagnostics(&validation)?;
        let routed = self
            .route(src, hash, options)
            .await
            .map_err(RoutingError::store)?;
        Ok(Checked {
            routed,
            diagnostics,
        })
    }

    /// A document's `expires_in`, when given: whole seconds, at least 1, at most the retention
    /// period. The error says what to give instead.
    pub fn lifetime(&self, expires_in: Option<&Value>) -> Result<Option<Duration>, RoutingError> {
        let retention = self.retention.as_secs();
        match expires_in {
            None | Some(Value::Null) => Ok(None),
            Some(v) => match v.as_u64().filter(|&s| s >= 1) {
                Some(s) if s <= retention => Ok(Some(Duration::from_secs(s))),
                Some(s) => Err(RoutingError::Lifetime(format!(
                    "\"expires_in\" is {s} s, over this server's retention period of {retention} s (--retention); give at most {retention}, or leave it out to keep the document that long."
                ))),
                None => Err(RoutingError::Lifetime(format!(
                    "\"expires_in\" must be a whole number of seconds, at least 1 and at most {retention}, not {}.",
                    truncate(&v.to_string())
                ))),
            },
        }
    }

    /// The document `id`: live, gone or unknown (for a reader: no token needed, the id is the
    /// secret).
    pub async fn document(&self, id: &str) -> Result<Lookup<Document>, StoreError> {
        if !store::is_document_id(id) {
            return Ok(Lookup::Unknown);
        }
        self.store.document(id, store::now()).await
    }

    /// The kept document `id` (open, closed or expired but not purged), for a reader.
    pub async fn live(&self, id: &str) -> Result<Document, RoutingError> {
        match self.document(id).await.map_err(RoutingError::store)? {
            Lookup::Live(doc) => Ok(doc),
            Lookup::Gone => Err(RoutingError::Gone),
            Lookup::Unknown => Err(RoutingError::Unknown { id: id.to_string() }),
        }
    }

    /// The document `id` as a reader answers it: a copy read less than [`KEPT_FOR`] ago when
    /// this server keeps one (the store still refuses an answer the copy no longer fits), or
    /// as stored now.
    pub async fn answerable(&self, id: &str) -> Result<Arc<Answerable>, RoutingError> {
        if let Some(copy) = self.answerable.get(id) {
            return Ok(copy);
        }
        self.answerable_now(id).await
    }

    /// [`Routing::answerable`] read from the store, whatever copy is kept.
    pub async fn answerable_now(&self, id: &str) -> Result<Arc<Answerable>, RoutingError> {
        let copy = Arc::new(Answerable::new(self.live(id).await?));
        self.answerable.keep(copy.clone());
        Ok(copy)
    }

    /// The kept document `id`, if `token` is its bearer token: for its sender.
    pub async fn authorized(&self, id: &str, token: &str) -> Result<Document, RoutingError> {
        let doc = self.live(id).await?;
        if doc.token_matches(token) {
            Ok(doc)
        } else {
            Err(RoutingError::WrongToken)
        }
    }

    /// Deletes the document `id` and its responses, leaving a tombstone.
    pub async fn delete(&self, id: &str) -> Result<(), RoutingError> {
        self.answerable.forget(id);
        match self.store.delete(id, store::now()).await {
            Ok(Lookup::Live(())) => Ok(()),
            Ok(Lookup::Gone) => Err(RoutingError::Gone),
            Ok(Lookup::Unknown) => Err(RoutingError::Unknown { id: id.to_string() }),
            Err(e) => Err(RoutingError::store(e)),
        }
    }

    /// Closes (`closed`) or reopens the document `id`; its summary afterwards. An expired
    /// document's status cannot change.
    pub async fn set_status(
        &self,
        id: &str,
        closed: bool,
    ) -> Result<DocumentSummary, RoutingError> {
        self.answerable.forget(id);
        match self.store.set_closed(id, closed, store::now()).await {
            Ok(Lookup::Live(summary)) if summary.status == Status::Expired => {
                Err(RoutingError::StatusFixed {
                    expires_at: summary.expires_at,
                })
            }
            Ok(Lookup::Live(summary)) => {
                crate::webhooks::wake();
                Ok(summary)
            }
            Ok(Lookup::Gone) => Err(RoutingError::Gone),
            Ok(Lookup::Unknown) => Err(RoutingError::Unknown { id: id.to_string() }),
            Err(e) => Err(RoutingError::store(e)),
        }
    }

    /// Counts a load of `id`'s review page. A failure is logged, not answered: the reader
    /// still gets the page.
    pub async fn count_view(&self, id: &str) {
        if let Err(e) = self.store.count_view(id).await {
            tracing::warn!(error = %e, "a review page's view was not counted");
        }
    }

    /// When a closed or expired document is purged: `closed_retention` after it stopped taking
    /// responses. `None` while it is open.
    pub fn purge_at(&self, summary: &DocumentSummary) -> Option<Millis> {
        if summary.status == Status::Open {
            return None;
        }
        let stopped = summary
            .closed_at
            .map_or(summary.expires_at, |c| c.min(summary.expires_at));
        Some(stopped.saturating_add(self.closed_retention.as_millis() as Millis))
    }

    /// The recipient of `id` whose link carries `secret`: `Unknown` (404) for any other secret.
    /// With `opened`, a view of their page is recorded (the first one is kept).
    pub async fn recipient(
        &self,
        id: &str,
        secret: &str,
        opened: bool,
    ) -> Result<Recipient, RoutingError> {
        let unknown = || RoutingError::Unknown { id: id.to_string() };
        if !is_recipient_secret(secret) {
            return Err(unknown());
        }
        let at = opened.then(store::now);
        self.store
            .recipient(id, secret_hash(secret), at)
            .await
            .map_err(RoutingError::store)?
            .ok_or_else(unknown)
    }

    /// The recipients of `doc` as its sender sees them (see [`recipient_json`]).
    pub async fn recipients_json(&self, doc: &Document) -> Result<Value, RoutingError> {
        let found = self
            .store
            .recipients(&doc.id)
            .await
            .map_err(RoutingError::store)?;
        Ok(Value::Array(found.iter().map(recipient_json).collect()))
    }

    /// Purges the documents that stopped taking responses (closed or expired) longer than
    /// `closed_retention` ago, and forgets tombstones older than the retention period.
    pub async fn sweep(&self) -> Result<u64, StoreError> {
        let now = store::now();
        let purge_before = now.saturating_sub(self.closed_retention.as_millis() as Millis);
        let forget_before = now.saturating_sub(self.retention.as_millis() as Millis);
        let purged = self.store.expire(now, purge_before, forget_before).await;
        let keys_before = now.saturating_sub(idempotency::WINDOW.as_millis() as Millis);
        if let Err(e) = self.store.forget_idempotency(keys_before).await {
            tracing::warn!(error = %e, "old idempotency keys could not be forgotten");
        }
        crate::webhooks::wake();
        purged
    }

    /// `{ id, status, created_at, expires_at, views, responses, last_response_at, purge_at }`:
    /// a document as its sender sees it without its text or its responses. `purge_at` is when
    /// a closed or expired document and its responses will be purged (`null` while open).
    pub fn summary_json(&self, summary: &DocumentSummary) -> Value {
        json!({
            "id": summary.id,
            "status": summary.status.name(),
            "created_at": store::rfc3339(summary.created_at),
            "expires_at": store::rfc3339(summary.expires_at),
            "views": summary.views,
            "responses": summary.responses,
            "last_response_at": summary.last_response_at.map(store::rfc3339),
            "purge_at": self.purge_at(summary).map(store::rfc3339),
        })
    }

    /// `GET /v1/documents/{id}`'s body: the summary with the text and its hash.
    pub fn document_json(&self, doc: &Document) -> Value {
        let mut body = self.summary_json(&doc.summary());
        if let Some(fields) = body.as_object_mut() {
            fields.insert("markdown".into(), json!(doc.markdown));
            fields.insert("hash".into(), json!(doc.hash));
            fields.insert("revision".into(), json!(doc.revision));
        }
        body
    }

    /// `GET /v1/documents/{id}`'s (and `get_document`'s) `recipients`, `verdict` and `sender`
    /// added to `body`: how far each recipient got, the verdict's choices (`null` when none
    /// asked), and the sender's display name (`null` when none given).
    pub async fn with_recipients(
        &self,
        doc: &Document,
        mut body: Value,
    ) -> Result<Value, RoutingError> {
        let recipients = self.recipients_json(doc).await?;
        if let Some(fields) = body.as_object_mut() {
            fields.insert("recipients".into(), recipients);
            fields.insert("verdict".into(), json!(doc.verdict));
            fields.insert("sender".into(), json!(doc.sender));
        }
        Ok(body)
    }
}

/// The status a sender asks for (`"status"` of `PATCH /v1/documents/{id}` and of the
/// `set_status` tool): `"closed"` (true) or `"open"` (false). The error names the field and the
/// values it takes.
pub fn requested_status(value: Option<&Value>) -> Result<bool, String> {
    match value.and_then(Value::as_str) {
        Some("closed") => Ok(true),
        Some("open") => Ok(false),
        Some("expired") => Err(
            "\"status\" can be \"open\" or \"closed\"; a document expires by time alone.".into(),
        ),
        _ => Err(format!(
            "\"status\" must be \"open\" or \"closed\", not {}.",
            value.map_or_else(|| "missing".to_string(), |v| truncate(&v.to_string()))
        )),
    }
}

/// Purges what is due, announces expiries and forgets old tombstones now, then every minute
/// (until aborted; `PASSBACK_SWEEP_EVERY_MS` sets another period, for tests).
pub async fn sweep_every_minute(routing: Routing) {
    let period = std::env::var("PASSBACK_SWEEP_EVERY_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|&n| n > 0)
        .map_or(Duration::from_secs(60), Duration::from_millis);
    let mut every = tokio::time::interval(period);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        match routing.sweep().await {
            Ok(0) => {}
            Ok(n) => tracing::info!(purged = n, "closed and expired documents purged"),
            Err(e) => tracing::warn!(error = %e, "the store's sweep failed"),
        }
    }
}

/// A validation's diagnostics as JSON, or the refusal that counts its errors when it found any:
/// routing and revising refuse a violating document alike.
fn checked_diagnostics(validation: &passback_engine::Validation) -> Result<Value, RoutingError> {
    let diagnostics = serde_json::to_value(&validation.diagnostics).unwrap_or(Value::Null);
    if validation.ok {
        return Ok(diagnostics);
    }
    let errors = validation
        .diagnostics
        .iter()
        .filter(|d| d.severity == passback_engine::Severity::Error)
        .count();
    Err(RoutingError::Violating {
        errors,
        diagnostics,
    })
}
