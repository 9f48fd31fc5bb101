//! Tools for agents over the Model Context Protocol (contract §6): `route_document`,
//! `revise_document`, `list_documents`, `list_responses`, `get_document`, `close_document`,
//! `set_status`, `delete_document`, `list_events`, `validate_document` and
//! `get_components_spec`.
//!
//! A document's tools take its `token`; over HTTP with a sender key (contract §6.1), they take
//! the key's own documents without one, and `list_documents` lists them.
//!
//! Two transports serve the same tools: `passback mcp` on stdio (an agent on the desktop starts
//! it, [`stdio`]), and streamable HTTP at `POST /mcp` on `passback serve` (`http::mcp`). Both
//! go through the routing core the HTTP routes use ([`crate::routing`]), so ids, tokens,
//! expiry, limits and long-polls behave alike; its refusals become tool errors in one place
//! (`impl From<RoutingError> for Refusal`).
//!
//! The tools' schemas are in `tools`; the JSON-RPC checks and the stdio front in `protocol`.

use crate::blocks::blocks_to_markdown;
use crate::quote::truncate;
use crate::routing::{
    Asks, MAX_WAIT, PAGE_DEFAULT, PAGE_MAX, RouteOptions, Routing, RoutingError, enter_long_poll,
    requested_status, take_route_token,
};
use crate::state::AppState;
use crate::store::{Cursor, Document};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

mod protocol;
mod tools;

pub use protocol::{
    Checked, INVALID_PARAMS, INVALID_REQUEST, MAX_STDIO_MESSAGE, PARSE_ERROR, check_message,
    rpc_error, stdio,
};
use tools::{TOOL_NAMES, TOOLS};

/// The component reference `get_components_spec` answers (the project's own text).
pub const COMPONENTS: &str = include_str!("../../../docs/components.md");

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
            "revise_document" => self.revise_document(args).await.map(Answer::Json),
            "list_documents" => self.list_documents(args).await.map(Answer::Json),
            "list_responses" => self.list_responses(args).await.map(Answer::Json),
            "get_document" => self.get_document(args).await.map(Answer::Json),
            "close_document" => self.close_document(args).await.map(Answer::Json),
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
            &[
                "markdown",
                "blocks",
                "expires_in",
                "callback_url",
                "recipients",
                "verdict",
                "sender",
            ],
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
        let asks = Asks::from_fields(args)?;
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
            .route_checked(
                &self.state.slots(),
                src,
                RouteOptions {
                    expires_in,
                    owner: self.key.as_ref(),
                    callback_url,
                    asks,
                },
            )
            .await?;
        Ok(checked.record(&self.state.origin()))
    }

    async fn revise_document(&self, args: &JsonObject) -> Result<Value, Refusal> {
        only(
            args,
            "revise_document",
            &["id", "token", "markdown", "blocks"],
        )?;
        let routing = self.state.routing.as_ref().ok_or(RoutingError::StoreOff)?;
        let doc = self.owned(routing, args, "revise_document").await?;
        let src = self.document(args, "revise_document")?;
        // A revision is routed text: it counts against the same limits as routing.
        take_route_token(self.state.route_limiter.as_ref(), self.client)?;
        if let Some(owner) = &doc.owner {
            routing
                .within_bytes(owner, self.state.config.key_max_bytes)
                .await?;
        }
        let revision = routing
            .revise_checked(&self.state.slots(), &doc, src)
            .await?;
        Ok(revision.record())
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
        let mut body = routing.summary_json(&doc.summary());
        if let Some(fields) = body.as_object_mut() {
            fields.insert("revision".into(), json!(doc.revision));
        }
        Ok(routing.with_recipients(&doc, body).await?)
    }

    async fn close_document(&self, args: &JsonObject) -> Result<Value, Refusal> {
        only(args, "close_document", &["id", "token"])?;
        let routing = self.state.routing.as_ref().ok_or(RoutingError::StoreOff)?;
        let doc = self.owned(routing, args, "close_document").await?;
        let summary = routing.set_status(&doc.id, true).await?;
        Ok(routing.summary_json(&summary))
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

impl ServerHandler for PassbackMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("passback", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Ask a person for decisions with a PassbackAI document: read get_components_spec, write the document, check it with validate_document, publish it with route_document and send the person its review_url, then collect the answers with list_responses (wait up to 60 s for the next one). get_document shows its status and counts; close_document closes it when you have the answers you need (they stay readable; set_status reopens it), and delete_document removes it and its answers. Called with a sender key, list_documents lists the key's documents, and the other tools need no token for them.",
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
