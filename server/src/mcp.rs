//! Tools for agents over the Model Context Protocol (contract §6): `route_document`,
//! `list_documents`, `list_responses`, `get_document`, `set_status`, `delete_document`,
//! `validate_document` and `get_components_spec`.
//!
//! A document's tools take its `token`; over HTTP with a sender key (contract §6.1), they take
//! the key's own documents without one, and `list_documents` lists them.
//!
//! Two transports serve the same tools: `passback mcp` on stdio (an agent on the desktop starts
//! it, [`stdio`]), and streamable HTTP at `POST /mcp` on `passback serve` (`http::mcp`). Both
//! go through the routing core the HTTP routes use ([`crate::routing`]), so ids, tokens,
//! expiry, limits and long-polls behave alike; its refusals become tool errors in one place
//! (`impl From<RoutingError> for Refusal`).

use crate::blocks::blocks_to_markdown;
use crate::quote::truncate;
use crate::routing::{
    MAX_WAIT, PAGE_DEFAULT, PAGE_MAX, Routing, RoutingError, enter_long_poll, requested_status,
    take_route_token,
};
use crate::state::AppState;
use crate::store::{Cursor, Document};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

/// The component reference `get_components_spec` answers (the project's own text).
pub const COMPONENTS: &str = include_str!("../../docs/components.md");

/// The tools, served over either transport.
#[derive(Clone)]
pub struct PassbackMcp {
    state: Arc<AppState>,
    /// The HTTP client's address, which `route_document` counts against `--route-limit`;
    /// `None` on stdio (the agent runs the command itself).
    client: Option<std::net::IpAddr>,
    /// The sender key the HTTP client showed (checked already): `route_document` routes for
    /// it. `None` on stdio, and over HTTP without a key.
    key: Option<crate::store::KeyInfo>,
}

impl PassbackMcp {
    /// Tools over `state`'s store (none with `--store off`) and review-link origin.
    pub fn new(state: Arc<AppState>) -> Self {
        PassbackMcp {
            state,
            client: None,
            key: None,
        }
    }

    /// The same tools for the holder of `key`, for whom `route_document` routes.
    pub fn for_key(mut self, key: Option<crate::store::KeyInfo>) -> Self {
        self.key = key;
        self
    }

    /// The same tools for one HTTP client, whose routing `--route-limit` counts.
    pub fn for_client(mut self, client: Option<std::net::IpAddr>) -> Self {
        self.client = client;
        self
    }

    /// Runs tool `name` on `args`: its answer, or why it refused.
    async fn run(&self, name: &str, args: &JsonObject) -> Result<Answer, Refusal> {
        match name {
            "route_document" => self.route_document(args).await.map(Answer::Json),
            "list_documents" => self.list_documents(args).await.map(Answer::Json),
            "list_responses" => self.list_responses(args).await.map(Answer::Json),
            "get_document" => self.get_document(args).await.map(Answer::Json),
            "set_status" => self.set_status(args).await.map(Answer::Json),
            "delete_document" => self.delete_document(args).await.map(Answer::Json),
            "validate_document" => self.validate_document(args).await.map(Answer::Json),
            "list_events" => self.list_events(args).await.map(Answer::Json),
            "get_components_spec" => {
                only(args, name, &[])?;
                Ok(Answer::Spec)
            }
            _ => Err(Refusal::new(format!(
                "There is no tool \"{}\"; the tools are {}.",
                truncate(name),
                TOOL_NAMES.join(", ")
            ))),
        }
    }

    async fn route_document(&self, args: &JsonObject) -> Result<Value, Refusal> {
        only(
            args,
            "route_document",
            &["markdown", "blocks", "expires_in", "callback_url"],
        )?;
        let routing = self.state.routing.as_ref().ok_or(RoutingError::StoreOff)?;
        let expires_in = routing.lifetime(args.get("expires_in"))?;
        let callback_url = match args.get("callback_url") {
            None | Some(Value::Null) => None,
            Some(Value::String(url)) => Some(
                crate::webhooks::check_callback_url(url, self.state.config.webhook_allow_private)
                    .map_err(RoutingError::Callback)?,
            ),
            Some(other) => {
                return Err(Refusal::new(format!(
                    "\"callback_url\" must be a string, an https:// URL, not {}.",
                    truncate(&other.to_string())
                )));
            }
        };
        let src = self.document(args, "route_document")?;
        take_route_token(self.state.route_limiter.as_ref(), self.client)?;
        if let Some(key) = &self.key {
            routing
                .within_quota(
                    key,
                    self.state.config.key_documents_per_hour,
                    self.state.config.key_max_bytes,
                )
                .await?;
        }
        let checked = routing
            .route_checked_with(
                &self.state.slots(),
                src,
                expires_in,
                self.key.as_ref(),
                callback_url,
            )
            .await?;
        Ok(checked.record(&self.state.origin()))
    }

    /// The document a tool acts on for its sender: by its `token` (or a key given as the
    /// token), or, without one, by the session's sender key when that key routed it.
    async fn owned(
        &self,
        routing: &Routing,
        args: &JsonObject,
        tool: &str,
    ) -> Result<Document, Refusal> {
        let id = tool_text_arg(args, tool, "id", "the id route_document answered")?;
        if args.contains_key("token") {
            let token = tool_text_arg(args, tool, "token", "the token route_document answered")?;
            return Ok(routing.owned(id, token).await?);
        }
        let Some(key) = &self.key else {
            return Err(Refusal::new(format!(
                "{tool} needs \"token\": the token route_document answered, as a string (or call /mcp with the sender key that routed the document, as Authorization: Bearer pbk_…)."
            )));
        };
        let doc = routing.live(id).await?;
        if doc.owner.as_deref() == Some(key.id.as_str()) {
            Ok(doc)
        } else {
            // Word for word the answer for an id never routed: a key learns nothing of others.
            Err(RoutingError::Unknown { id: id.to_string() }.into())
        }
    }

    async fn list_documents(&self, args: &JsonObject) -> Result<Value, Refusal> {
        only(args, "list_documents", &["after", "limit"])?;
        let routing = self.state.routing.as_ref().ok_or(RoutingError::StoreOff)?;
        let Some(key) = &self.key else {
            return Err(Refusal::new(
                "list_documents lists a sender key's documents: call /mcp with Authorization: Bearer pbk_… (a key from `passback keys add NAME`). Documents routed without a key are read with their token.",
            ));
        };
        let after = match args.get("after") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.is_empty() => None,
            Some(Value::String(s)) => Some(Cursor::decode(s).ok_or_else(|| {
                Refusal::new(
                    "list_documents: \"after\" must be the \"next\" cursor of a page, as given.",
                )
            })?),
            Some(_) => {
                return Err(Refusal::new(
                    "list_documents: \"after\" must be the \"next\" cursor of a page, a string.",
                ));
            }
        };
        let limit = match args.get("limit") {
            None | Some(Value::Null) => PAGE_DEFAULT,
            Some(v) => v
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .filter(|n| (1..=PAGE_MAX).contains(n))
                .ok_or_else(|| {
                    Refusal::new(format!(
                        "list_documents: \"limit\" must be a whole number from 1 to {PAGE_MAX}."
                    ))
                })?,
        };
        Ok(routing.documents_of(key, after, limit).await?)
    }

    async fn list_responses(&self, args: &JsonObject) -> Result<Value, Refusal> {
        only(args, "list_responses", &["id", "token", "since", "wait"])?;
        let routing = self.state.routing.as_ref().ok_or(RoutingError::StoreOff)?;
        let since = since_arg(args.get("since"))?;
        let wait = wait_arg(args.get("wait"))?;
        let doc = self.owned(routing, args, "list_responses").await?;
        // A wait holds a place in the long-poll budget while it lasts.
        let _slot = if wait.is_zero() {
            None
        } else {
            Some(enter_long_poll(&self.state.long_polls, &doc, self.client)?)
        };
        Ok(routing.responses_after(&doc, since, wait).await?)
    }

    async fn get_document(&self, args: &JsonObject) -> Result<Value, Refusal> {
        only(args, "get_document", &["id", "token"])?;
        let routing = self.state.routing.as_ref().ok_or(RoutingError::StoreOff)?;
        let doc = self.owned(routing, args, "get_document").await?;
        Ok(routing.summary_json(&doc.summary()))
    }

    async fn set_status(&self, args: &JsonObject) -> Result<Value, Refusal> {
        only(args, "set_status", &["id", "token", "status"])?;
        let routing = self.state.routing.as_ref().ok_or(RoutingError::StoreOff)?;
        let doc = self.owned(routing, args, "set_status").await?;
        let closed = requested_status(args.get("status")).map_err(Refusal::new)?;
        let summary = routing.set_status(&doc.id, closed).await?;
        Ok(routing.summary_json(&summary))
    }

    async fn delete_document(&self, args: &JsonObject) -> Result<Value, Refusal> {
        only(args, "delete_document", &["id", "token"])?;
        let routing = self.state.routing.as_ref().ok_or(RoutingError::StoreOff)?;
        let doc = self.owned(routing, args, "delete_document").await?;
        routing.delete(&doc.id).await?;
        Ok(json!({ "id": doc.id, "deleted": true }))
    }

    async fn list_events(&self, args: &JsonObject) -> Result<Value, Refusal> {
        only(args, "list_events", &["since", "limit"])?;
        let routing = self.state.routing.as_ref().ok_or(RoutingError::StoreOff)?;
        let Some(key) = &self.key else {
            return Err(Refusal::new(
                "list_events lists the events of a sender key's documents: connect to /mcp with Authorization: Bearer pbk_… (a key made with `passback keys add NAME`).",
            ));
        };
        let since = match args.get("since") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(other) => {
                return Err(Refusal::new(format!(
                    "\"since\" must be an event id (the \"next\" list_events answered), not {}.",
                    truncate(&other.to_string())
                )));
            }
        };
        let limit = match args.get("limit") {
            None | Some(Value::Null) => crate::routing::EVENTS_DEFAULT,
            Some(v) => v
                .as_u64()
                .filter(|n| (1..=crate::routing::EVENTS_MAX as u64).contains(n))
                .map(|n| n as usize)
                .ok_or_else(|| {
                    Refusal::new(format!(
                        "\"limit\" must be a whole number from 1 to {}, not {}.",
                        crate::routing::EVENTS_MAX,
                        truncate(&v.to_string())
                    ))
                })?,
        };
        routing
            .events_after(key, since, limit)
            .await?
            .map_err(Refusal::new)
    }

    async fn validate_document(&self, args: &JsonObject) -> Result<Value, Refusal> {
        only(args, "validate_document", &["markdown", "blocks"])?;
        let src = self.document(args, "validate_document")?;
        let validated = self
            .state
            .slots()
            .run(move || passback_engine::validate(&src))
            .await
            .map_err(RoutingError::from)?;
        serde_json::to_value(&validated)
            .map_err(|e| Refusal::new(format!("The result could not be written as JSON: {e}.")))
    }

    /// The document from `blocks` (which wins) or `markdown`, within the server's body limit.
    fn document(&self, args: &JsonObject, tool: &str) -> Result<String, Refusal> {
        let src = match (args.get("blocks"), args.get("markdown")) {
            (Some(blocks), _) if !blocks.is_null() => {
                blocks_to_markdown(blocks).map_err(Refusal::new)?
            }
            (_, Some(Value::String(markdown))) => markdown.clone(),
            (_, None | Some(Value::Null)) => {
                return Err(Refusal::new(format!(
                    "{tool} needs \"markdown\" (the document as Markdown, components in ```<tag> fences) or \"blocks\" (typed blocks, such as [{{\"type\": \"markdown\", \"text\": \"…\"}}, {{\"type\": \"single-choice\", \"version\": \"1\", …}}])."
                )));
            }
            (_, Some(_)) => {
                return Err(Refusal::new(
                    "\"markdown\" must be a string holding the whole document.",
                ));
            }
        };
        let max = self.state.config.max_body;
        if src.len() > max {
            return Err(Refusal::new(format!(
                "The document is {} bytes, over this server's limit of {max} bytes (--max-body); send a shorter document.",
                src.len()
            )));
        }
        Ok(src)
    }

    /// The reference and the schema, as `get_components_spec` answers them.
    fn spec() -> CallToolResult {
        let schema: Value = serde_json::from_str(passback_engine::SCHEMA).unwrap_or(Value::Null);
        let mut result = CallToolResult::success(vec![
            ContentBlock::text(COMPONENTS),
            ContentBlock::text(passback_engine::SCHEMA),
        ]);
        result.structured_content = Some(json!({ "reference": COMPONENTS, "schema": schema }));
        result
    }
}

/// What a tool answers.
enum Answer {
    /// A JSON object, given as structured content and as its text.
    Json(Value),
    /// `get_components_spec`: Markdown and a schema, each readable as text.
    Spec,
}

/// Why a tool refused: a sentence saying what to fix, and members that detail it (a violating
/// document's diagnostics). The agent reads it as a tool error, `{ "error": …, … }`.
struct Refusal {
    message: String,
    extra: Option<(&'static str, Value)>,
}

impl Refusal {
    fn new(message: impl Into<String>) -> Self {
        Refusal {
            message: message.into(),
            extra: None,
        }
    }

    fn with(mut self, name: &'static str, value: Value) -> Self {
        self.extra = Some((name, value));
        self
    }

    fn into_result(self) -> CallToolResult {
        let mut body = json!({ "error": self.message });
        if let (Some((name, value)), Some(fields)) = (self.extra, body.as_object_mut()) {
            fields.insert(name.to_string(), value);
        }
        CallToolResult::structured_error(body)
    }
}

/// The routing core's refusal as a tool error: the one place its outcomes become the tools'
/// words. Where the HTTP routes name their own ways (a token from `POST /v1/documents`, a page
/// for a missing document), these name the tools'.
impl From<RoutingError> for Refusal {
    fn from(e: RoutingError) -> Self {
        match e {
            RoutingError::WrongToken => Refusal::new(
                "That token is not this document's; use the token route_document answered when it routed the document.",
            ),
            RoutingError::Gone => Refusal::new(
                "This document is gone: it was deleted, or purged after it closed or expired, and its answers with it. Route it again to collect new answers.",
            ),
            RoutingError::Unknown { id } => Refusal::new(format!(
                "There is no document \"{}\" in this store (never routed here, or forgotten after the retention period); check the id route_document answered.",
                truncate(&id)
            )),
            RoutingError::OverLimit { wait, .. }
            | RoutingError::KeyQuota { wait, .. }
            | RoutingError::KeyFull { wait, .. }
            | RoutingError::Bounded { wait, .. } => {
                Refusal::new(e.to_string()).with("retry_after", json!(wait.as_secs()))
            }
            RoutingError::Violating {
                ref diagnostics, ..
            } => {
                let diagnostics = diagnostics.clone();
                Refusal::new(e.to_string()).with("diagnostics", diagnostics)
            }
            _ => Refusal::new(e.to_string()),
        }
    }
}

/// Refuses arguments the tool does not take (a misspelt name would otherwise be ignored).
fn only(args: &JsonObject, tool: &str, names: &[&str]) -> Result<(), Refusal> {
    let Some(unknown) = args.keys().find(|k| !names.contains(&k.as_str())) else {
        return Ok(());
    };
    Err(Refusal::new(if names.is_empty() {
        format!(
            "{tool} takes no arguments, but was given \"{}\".",
            truncate(unknown)
        )
    } else {
        format!(
            "{tool} takes {}, not \"{}\".",
            names
                .iter()
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(", "),
            truncate(unknown)
        )
    }))
}

fn tool_text_arg<'a>(
    args: &'a JsonObject,
    tool: &str,
    name: &str,
    what: &str,
) -> Result<&'a str, Refusal> {
    match args.get(name) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s),
        _ => Err(Refusal::new(format!(
            "{tool} needs \"{name}\": {what}, as a string."
        ))),
    }
}

/// `since`: a response id, 0 (the default) for all of them. An id beyond any there can be
/// is past every response: nothing is newer.
fn since_arg(v: Option<&Value>) -> Result<u64, Refusal> {
    match v {
        None | Some(Value::Null) => Ok(0),
        Some(Value::Number(n)) => n
            .as_u64()
            .or_else(|| {
                n.as_f64()
                    .filter(|f| f.is_finite() && *f >= 0.0 && f.fract() == 0.0)
                    .map(|f| f as u64)
            })
            .ok_or_else(|| since_refusal(v)),
        Some(_) => Err(since_refusal(v)),
    }
}

fn since_refusal(v: Option<&Value>) -> Refusal {
    Refusal::new(format!(
        "\"since\" must be a response_id (a whole number, 0 or more), not {}.",
        truncate(&v.map(Value::to_string).unwrap_or_default())
    ))
}

/// `wait`: seconds to wait for a response when there is none yet, from 0 (the default) to
/// [`MAX_WAIT`].
fn wait_arg(v: Option<&Value>) -> Result<Duration, Refusal> {
    let max = MAX_WAIT.as_secs();
    match v {
        None | Some(Value::Null) => Ok(Duration::ZERO),
        Some(given) => given
            .as_f64()
            .filter(|s| s.is_finite() && (0.0..=max as f64).contains(s))
            .map(Duration::from_secs_f64)
            .ok_or_else(|| {
                Refusal::new(format!(
                    "\"wait\" must be a number of seconds from 0 to {max}, not {}.",
                    truncate(&given.to_string())
                ))
            }),
    }
}

// ---------------------------------------------------------------------------------------------
// The tools as agents see them

const TOOL_NAMES: [&str; 9] = [
    "route_document",
    "list_documents",
    "list_responses",
    "get_document",
    "set_status",
    "delete_document",
    "validate_document",
    "list_events",
    "get_components_spec",
];

/// Every component's tag, from the engine's registry.
fn component_tags() -> impl Iterator<Item = &'static str> {
    passback_engine::Kind::ALL.iter().map(|k| k.tag())
}

/// What a typed block's `type` may be: `markdown`, or a component's tag.
fn block_types() -> Vec<&'static str> {
    std::iter::once("markdown")
        .chain(component_tags())
        .collect()
}

/// The `markdown` and `blocks` arguments, shared by route_document and validate_document.
fn document_properties() -> JsonObject {
    let Value::Object(properties) = json!({
        "markdown": {
            "type": "string",
            "description": "The whole document as Markdown. Each component is a fenced code block whose info string is its tag (```single-choice, ```prioritize, …) holding the component's JSON; everything else is prose."
        },
        "blocks": {
            "type": "array",
            "description": "The document as typed blocks, in order: prose as {\"type\": \"markdown\", \"text\": \"…\"}, a component as {\"type\": \"<tag>\", \"version\": \"1\", …its fields}. The server writes the fences. Wins over \"markdown\" when both are given. get_components_spec has every component's fields.",
            "items": {
                "type": "object",
                "required": ["type"],
                "properties": { "type": { "enum": block_types() } }
            }
        }
    }) else {
        unreachable!("an object literal")
    };
    properties
}

fn schema(properties: JsonObject, required: &[&str]) -> Arc<JsonObject> {
    let Value::Object(schema) = json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    }) else {
        unreachable!("an object literal")
    };
    Arc::new(schema)
}

static TOOLS: LazyLock<Vec<Tool>> = LazyLock::new(|| {
    let mut route_properties = document_properties();
    route_properties.insert(
        "expires_in".into(),
        json!({
            "type": "integer",
            "minimum": 1,
            "description": "Seconds until the document expires (it then takes no more answers; those it took stay readable until they are purged); at most the server's retention period, which is also the default."
        }),
    );
    route_properties.insert(
        "callback_url".into(),
        json!({
            "type": "string",
            "description": "An https:// URL to POST each answer, close and expiry of the document to, signed as Standard Webhooks says, so you are woken instead of polling; the answer then carries webhook_secret (unless your sender key has one) to check the signatures with."
        }),
    );
    let Value::Object(list_properties) = json!({
        "id": { "type": "string", "description": "The document's id, from route_document." },
        "token": { "type": "string", "description": "The document's token, from route_document: it alone opens the answers. Not needed over HTTP with the sender key that routed the document." },
        "since": { "type": "integer", "minimum": 0, "default": 0, "description": "Only responses after this response_id (0: all). Pass the last response_id you have." },
        "wait": { "type": "number", "minimum": 0, "maximum": MAX_WAIT.as_secs(), "default": 0, "description": "When there is no newer response yet, wait up to this many seconds for one and answer as soon as it arrives (an empty list when the time is up)." }
    }) else {
        unreachable!("an object literal")
    };
    let Value::Object(owner_properties) = json!({
        "id": { "type": "string", "description": "The document's id, from route_document." },
        "token": { "type": "string", "description": "The document's token, from route_document. Not needed over HTTP with the sender key that routed the document." }
    }) else {
        unreachable!("an object literal")
    };
    let Value::Object(page_properties) = json!({
        "after": { "type": "string", "description": "The next cursor of the previous page; leave out for the first page." },
        "limit": { "type": "integer", "minimum": 1, "maximum": PAGE_MAX, "default": PAGE_DEFAULT, "description": "Documents on the page." }
    }) else {
        unreachable!("an object literal")
    };
    let Value::Object(events_properties) = json!({
        "since": { "type": "string", "description": "The id of the last event you have (the next list_events answered); leave it out for the first page." },
        "limit": { "type": "integer", "minimum": 1, "maximum": crate::routing::EVENTS_MAX, "default": crate::routing::EVENTS_DEFAULT, "description": "Events per page." }
    }) else {
        unreachable!("an object literal")
    };
    let mut status_properties = owner_properties.clone();
    status_properties.insert(
        "status".into(),
        json!({
            "enum": ["open", "closed"],
            "description": "closed: the review page says so and takes no more answers (those it took stay readable); open: it takes answers again. An expired document cannot change."
        }),
    );
    vec![
        Tool::new(
            "route_document",
            "Publish a PassbackAI decision document for a person to answer. Give it as \"markdown\" or as typed \"blocks\". It is validated first: a document that violates the spec is refused with its diagnostics (fix them and call again; validate_document checks without publishing). Answers {id, review_url, token, hash, expires_at, diagnostics}: send review_url to the person who should answer; keep id and token for list_responses (the token is shown only this once). diagnostics holds warnings only.",
            schema(route_properties, &[]),
        )
        .with_title("Route a document to a reader")
        .with_annotations(
            ToolAnnotations::new()
                .read_only(false)
                .destructive(false)
                .idempotent(false)
                .open_world(false),
        ),
        Tool::new(
            "list_documents",
            "The documents your sender key routed, newest first, a page at a time: {documents: [{id, status, created_at, expires_at, views, responses, last_response_at, purge_at}], next}. Pass next as after for the next page (null on the last). Needs /mcp called with a sender key (Authorization: Bearer pbk_…).",
            schema(page_properties, &[]),
        )
        .with_title("List your routed documents")
        .with_annotations(ToolAnnotations::new().read_only(true).open_world(false)),
        Tool::new(
            "list_responses",
            "The answers people sent to a routed document, oldest first, as {document, responses}. Each response has response_id, received_at, reviewer, componentInputs (the answers as JSON keyed by block id: b1, b2, …), annotations, and export (the answers as Markdown, ready to read). Pass since = the last response_id you have for only newer ones, and wait (seconds, at most 60) to wait for the next answer instead of polling.",
            schema(list_properties, &["id"]),
        )
        .with_title("Read the answers to a routed document")
        .with_annotations(ToolAnnotations::new().read_only(true).open_world(false)),
        Tool::new(
            "get_document",
            "Where a routed document stands, without pulling its answers: {id, status (open, closed or expired), created_at, expires_at, views (review page loads), responses (how many), last_response_at, purge_at (when a closed or expired document and its answers will be deleted; null while open)}.",
            schema(owner_properties.clone(), &["id"]),
        )
        .with_title("A routed document's status and counts")
        .with_annotations(ToolAnnotations::new().read_only(true).open_world(false)),
        Tool::new(
            "set_status",
            "Close a routed document (status \"closed\": its review page says it is closed and takes no more answers; the answers it took stay readable with list_responses) or reopen it (\"open\"). Answers the document's status and counts, as get_document.",
            schema(status_properties, &["id", "status"]),
        )
        .with_title("Close or reopen a routed document")
        .with_annotations(
            ToolAnnotations::new()
                .read_only(false)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        ),
        Tool::new(
            "delete_document",
            "Delete a routed document and all its answers now: its review link answers that it is gone, and list_responses can no longer read them. Answers {id, deleted: true}.",
            schema(owner_properties, &["id"]),
        )
        .with_title("Delete a routed document and its answers")
        .with_annotations(
            ToolAnnotations::new()
                .read_only(false)
                .destructive(true)
                .idempotent(false)
                .open_world(false),
        ),
        Tool::new(
            "list_events",
            "The events of the documents your sender key routed, oldest first, as {events, next}: each {id, type (response.created, document.closed or document.expired), document_id, response_id (for response.created), created_at}. Pass since = the next you were given to get only newer ones; use it to catch up after an absence instead of calling list_responses on every document. Needs /mcp with a sender key.",
            schema(events_properties, &[]),
        )
        .with_title("Events of the key's documents")
        .with_annotations(ToolAnnotations::new().read_only(true).open_world(false)),
        Tool::new(
            "validate_document",
            "Check a PassbackAI document against the spec without publishing it; the same input as route_document. Answers {ok, outcome, blocks, diagnostics}: outcome is valid or violating; blocks lists every component fence (id b1, b2, …, kind, valid, line); each diagnostic has severity, code, block, line, column, JSON path, message and hint.",
            schema(document_properties(), &[]),
        )
        .with_title("Validate a document")
        .with_annotations(
            ToolAnnotations::new()
                .read_only(true)
                .idempotent(true)
                .open_world(false),
        ),
        Tool::new(
            "get_components_spec",
            format!(
                "How to write a PassbackAI document: every component ({}) with its fields, an example, what the reader does and what the exported answer looks like, as Markdown; and the JSON Schema (2020-12) of every component and of typed blocks. Read it before writing a document.",
                component_tags().collect::<Vec<_>>().join(", ")
            ),
            schema(JsonObject::new(), &[]),
        )
        .with_title("The component reference and schema")
        .with_annotations(
            ToolAnnotations::new()
                .read_only(true)
                .idempotent(true)
                .open_world(false),
        ),
    ]
});

impl ServerHandler for PassbackMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("passback", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Ask a person for decisions with a PassbackAI document: read get_components_spec, write the document, check it with validate_document, publish it with route_document and send the person its review_url, then collect the answers with list_responses (wait up to 60 s for the next one). get_document shows its status and counts; set_status closes it when you have the answers you need (they stay readable), and delete_document removes it and its answers. Called with a sender key, list_documents lists the key's documents, and the other tools need no token for them.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(TOOLS.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        TOOLS.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let result = match self.run(&request.name, &args).await {
            Ok(Answer::Json(value)) => CallToolResult::structured(value),
            Ok(Answer::Spec) => Self::spec(),
            Err(refusal) => refusal.into_result(),
        };
        Ok(result.into())
    }
}

// ---------------------------------------------------------------------------------------------
// Messages checked before the SDK reads them

/// JSON-RPC's error codes for a message that never reaches a tool: not JSON, not a request,
/// a known method's parameters malformed.
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const INVALID_PARAMS: i64 = -32602;

/// The largest message `passback mcp` reads on standard input; a longer line is answered with
/// an error and skipped.
pub const MAX_STDIO_MESSAGE: usize = 16 << 20;

/// What one JSON-RPC message from a client is, checked before the SDK reads it: the SDK would
/// answer a malformed `tools/call` as an unknown method (-32601), and on stdio nothing at all
/// to what is not JSON, so those faults are answered here with their own codes.
pub enum Checked {
    /// A client's response to a server request: no method, an id, one of a result or an error.
    Response,
    /// A request or notification to hand to the SDK.
    Forward,
    /// Refused: the JSON-RPC error reply (`id` null when it could not be read), and its code.
    Refused { reply: Value, code: i64 },
}

/// A JSON-RPC error reply.
pub fn rpc_error(id: Value, code: i64, message: impl Into<String>) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message.into() } })
}

/// Checks one message (see [`Checked`]); the refusal says what to send instead.
pub fn check_message(body: &[u8]) -> Checked {
    let example = "such as {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/list\"}";
    let refused = |id: Value, code: i64, message: String| Checked::Refused {
        reply: rpc_error(id, code, message),
        code,
    };
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return refused(
                Value::Null,
                PARSE_ERROR,
                format!(
                    "The message is not valid JSON ({e}); send one JSON-RPC message, {example}."
                ),
            );
        }
    };
    if value.is_array() {
        return refused(
            Value::Null,
            INVALID_REQUEST,
            format!("The message is a batch; MCP takes one JSON-RPC message at a time, {example}."),
        );
    }
    // The id, when it is one JSON-RPC allows: the reply names it.
    let id = match value.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
    if value.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return refused(
            id,
            INVALID_REQUEST,
            format!(
                "The message is not a JSON-RPC 2.0 message (it needs \"jsonrpc\": \"2.0\"); send one, {example}."
            ),
        );
    }
    let Some(method) = value.get("method") else {
        // A response as JSON-RPC words it: the id of the request it answers, and one of a
        // result or an error, each an object.
        let result = value.get("result").map(Value::is_object);
        let error = value.get("error").map(Value::is_object);
        let answers = matches!((result, error), (Some(true), None) | (None, Some(true)));
        return if !id.is_null() && answers {
            Checked::Response
        } else {
            refused(
                id,
                INVALID_REQUEST,
                format!(
                    "The message is neither a request (it has no \"method\") nor a response (an \"id\" with one \"result\" or \"error\" object); send one, {example}."
                ),
            )
        };
    };
    let Some(method) = method.as_str() else {
        return refused(
            id,
            INVALID_REQUEST,
            "\"method\" must be a string, such as \"tools/call\".".into(),
        );
    };
    if method == "tools/call"
        && let Err(why) = tool_call_params(value.get("params"))
    {
        return refused(id, INVALID_PARAMS, why);
    }
    Checked::Forward
}

/// Whether `tools/call`'s params have their shape: an object with a string `name` and, when
/// given, an object of `arguments`. The error names the field. (What a tool makes of its
/// arguments is the tool's to say, as a tool error the agent reads.)
fn tool_call_params(params: Option<&Value>) -> Result<(), String> {
    let tools = TOOL_NAMES.join(", ");
    let Some(Value::Object(params)) = params else {
        return Err(format!(
            "tools/call needs \"params\": an object with \"name\" (one of {tools}) and \"arguments\" (an object), not {}.",
            truncate(&params.map_or("nothing".into(), Value::to_string))
        ));
    };
    match params.get("name") {
        Some(Value::String(_)) => {}
        other => {
            return Err(format!(
                "tools/call needs \"params.name\": the tool's name as a string (one of {tools}), not {}.",
                truncate(&other.map_or("nothing".into(), Value::to_string))
            ));
        }
    }
    match params.get("arguments") {
        None | Some(Value::Null | Value::Object(_)) => Ok(()),
        Some(other) => Err(format!(
            "tools/call's \"params.arguments\" must be an object of the tool's arguments, such as {{\"markdown\": \"# Title\"}}, not {}.",
            truncate(&other.to_string())
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// stdio: passback mcp

/// Serves the tools on standard input and output until the client closes them or `shutdown`
/// resolves. Nothing else may write to standard output meanwhile.
pub async fn stdio(
    state: Arc<AppState>,
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<(), String> {
    use rmcp::ServiceExt;
    let routing = state.routing.clone();
    // The SDK reads and writes through pipes; the lines between them and standard input and
    // output pass through `front`, which answers what the SDK would not.
    let (to_sdk, sdk_in) = tokio::io::duplex(1 << 16);
    let (sdk_out, from_sdk) = tokio::io::duplex(1 << 16);
    let front = front(tokio::io::stdin(), tokio::io::stdout(), to_sdk, from_sdk);
    let running = PassbackMcp::new(state)
        .serve((sdk_in, sdk_out))
        .await
        .map_err(|e| format!("the MCP client did not start a session: {e}"))?;
    let cancel = running.cancellation_token();
    tokio::pin!(shutdown);
    let waiting = running.waiting();
    tokio::pin!(waiting);
    let ended = tokio::select! {
        ended = &mut waiting => ended.map(|_| ()).map_err(|e| format!("the MCP session failed: {e}")),
        () = &mut shutdown => {
            // Long-polls answer now, with what they have.
            if let Some(routing) = &routing {
                routing.store.wake_all();
            }
            cancel.cancel();
            Ok(())
        }
    };
    front.finish().await;
    ended
}

/// The tasks between standard input and output and the SDK's pipes (see [`front`]).
struct Front {
    input: tokio::task::JoinHandle<()>,
    relay: tokio::task::JoinHandle<()>,
    writer: tokio::task::JoinHandle<()>,
}

impl Front {
    /// Once the session is over: the SDK's last replies are written out, then the tasks end.
    async fn finish(self) {
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), self.relay).await;
        self.input.abort();
        let _ = self.input.await;
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), self.writer).await;
    }
}

/// Passes lines from `input` to the SDK (`to_sdk`) and from the SDK (`from_sdk`) to `output`,
/// one whole line at a time. A line over [`MAX_STDIO_MESSAGE`], or one [`check_message`]
/// refuses, is answered here with its JSON-RPC error (and noted on standard error); the
/// session goes on. The end of `input` ends the SDK's.
fn front<I, O, T, F>(input: I, output: O, to_sdk: T, from_sdk: F) -> Front
where
    I: tokio::io::AsyncRead + Unpin + Send + 'static,
    O: tokio::io::AsyncWrite + Unpin + Send + 'static,
    T: tokio::io::AsyncWrite + Unpin + Send + 'static,
    F: tokio::io::AsyncRead + Unpin + Send + 'static,
{
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (lines_out, mut lines) = tokio::sync::mpsc::channel::<Vec<u8>>(64);
    // The one writer of `output`: replies from the SDK and from here never interleave.
    let writer = tokio::spawn(async move {
        let mut output = output;
        while let Some(line) = lines.recv().await {
            if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                break;
            }
        }
    });
    let sdk_lines = lines_out.clone();
    let relay = tokio::spawn(async move {
        let mut from_sdk = BufReader::new(from_sdk);
        loop {
            let mut line = Vec::new();
            match from_sdk.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if sdk_lines.send(line).await.is_err() {
                        break;
                    }
                }
            }
        }
    });
    let input = tokio::spawn(async move {
        let mut input = BufReader::new(input);
        let mut to_sdk = to_sdk;
        let reply = |v: Value| {
            let mut line = v.to_string().into_bytes();
            line.push(b'\n');
            line
        };
        loop {
            let (line, over) = match read_line_within(&mut input, MAX_STDIO_MESSAGE).await {
                Ok(Some(read)) => read,
                Ok(None) | Err(_) => break,
            };
            let refusal = if over {
                tracing::warn!(
                    limit = MAX_STDIO_MESSAGE,
                    "an MCP message over the size limit was refused"
                );
                Some(rpc_error(
                    Value::Null,
                    INVALID_REQUEST,
                    format!(
                        "The message is over {MAX_STDIO_MESSAGE} bytes, the most one line may hold here; it was skipped. Send a shorter one."
                    ),
                ))
            } else if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            } else {
                match check_message(&line) {
                    Checked::Refused { reply, .. } => Some(reply),
                    Checked::Response | Checked::Forward => None,
                }
            };
            if let Some(refusal) = refusal {
                if lines_out.send(reply(refusal)).await.is_err() {
                    break;
                }
                continue;
            }
            let mut line = line;
            if line.last() != Some(&b'\n') {
                line.push(b'\n');
            }
            if to_sdk.write_all(&line).await.is_err() {
                break;
            }
        }
        // End of input: the SDK sees it and finishes.
        let _ = to_sdk.shutdown().await;
    });
    Front {
        input,
        relay,
        writer,
    }
}

/// One line from `input`, newline included: `(line, false)`, or `(what was kept, true)` when it
/// was longer than `max` (the rest is read and dropped, so memory stays bounded). `None` at the
/// end of input.
async fn read_line_within<R: tokio::io::AsyncBufRead + Unpin>(
    input: &mut R,
    max: usize,
) -> std::io::Result<Option<(Vec<u8>, bool)>> {
    use tokio::io::AsyncBufReadExt;
    let mut line = Vec::new();
    let mut over = false;
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            return Ok((!line.is_empty() || over).then_some((line, over)));
        }
        let (take, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if !over {
            if line.len() + take > max {
                over = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(&buf[..take]);
            }
        }
        input.consume(take);
        if done {
            return Ok(Some((line, over)));
        }
    }
}
