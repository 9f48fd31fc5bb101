//! Tools for agents over the Model Context Protocol (contract §6): `route_document`,
//! `list_responses`, `validate_document` and `get_components_spec`.
//!
//! Two transports serve the same tools: `passback mcp` on stdio (an agent on the desktop starts
//! it, [`stdio`]), and streamable HTTP at `POST /mcp` on `passback serve` (`http::mcp`). Both
//! go through the routing core the HTTP routes use ([`crate::routing`]), so ids, tokens,
//! expiry, limits and long-polls behave alike; its refusals become tool errors in one place
//! (`impl From<RoutingError> for Refusal`).

use crate::blocks::blocks_to_markdown;
use crate::quote::truncate;
use crate::routing::{MAX_WAIT, RoutingError, enter_long_poll, take_route_token};
use crate::state::AppState;
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
}

impl PassbackMcp {
    /// Tools over `state`'s store (none with `--store off`) and review-link origin.
    pub fn new(state: Arc<AppState>) -> Self {
        PassbackMcp {
            state,
            client: None,
        }
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
            "list_responses" => self.list_responses(args).await.map(Answer::Json),
            "validate_document" => self.validate_document(args).await.map(Answer::Json),
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
            &["markdown", "blocks", "expires_in"],
        )?;
        let routing = self.state.routing.as_ref().ok_or(RoutingError::StoreOff)?;
        let expires_in = routing.lifetime(args.get("expires_in"))?;
        let src = self.document(args, "route_document")?;
        take_route_token(self.state.route_limiter.as_ref(), self.client)?;
        let checked = routing
            .route_checked(&self.state.slots(), src, expires_in)
            .await?;
        Ok(checked.record(&self.state.origin()))
    }

    async fn list_responses(&self, args: &JsonObject) -> Result<Value, Refusal> {
        only(args, "list_responses", &["id", "token", "since", "wait"])?;
        let routing = self.state.routing.as_ref().ok_or(RoutingError::StoreOff)?;
        let id = text_arg(args, "id", "the id route_document answered")?;
        let token = text_arg(args, "token", "the token route_document answered")?;
        let since = since_arg(args.get("since"))?;
        let wait = wait_arg(args.get("wait"))?;
        let doc = routing.authorized(id, token).await?;
        // A wait holds a place in the long-poll budget while it lasts.
        let _slot = if wait.is_zero() {
            None
        } else {
            Some(enter_long_poll(&self.state, &doc.id, self.client)?)
        };
        Ok(routing.responses_after(&doc, since, wait).await?)
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
                "This document is gone: it was deleted or its time ran out, and its answers with it. Route it again to collect new answers.",
            ),
            RoutingError::Unknown { id } => Refusal::new(format!(
                "There is no document \"{}\" in this store (never routed here, or forgotten after the retention period); check the id route_document answered.",
                truncate(&id)
            )),
            RoutingError::OverLimit { wait, .. } | RoutingError::Bounded { wait, .. } => {
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

fn text_arg<'a>(args: &'a JsonObject, name: &str, what: &str) -> Result<&'a str, Refusal> {
    match args.get(name) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s),
        _ => Err(Refusal::new(format!(
            "list_responses needs \"{name}\": {what}, as a string."
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

const TOOL_NAMES: [&str; 4] = [
    "route_document",
    "list_responses",
    "validate_document",
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
            "description": "Seconds until the document and its answers are deleted; at most the server's retention period, which is also the default."
        }),
    );
    let Value::Object(list_properties) = json!({
        "id": { "type": "string", "description": "The document's id, from route_document." },
        "token": { "type": "string", "description": "The document's token, from route_document: it alone opens the answers." },
        "since": { "type": "integer", "minimum": 0, "default": 0, "description": "Only responses after this response_id (0: all). Pass the last response_id you have." },
        "wait": { "type": "number", "minimum": 0, "maximum": MAX_WAIT.as_secs(), "default": 0, "description": "When there is no newer response yet, wait up to this many seconds for one and answer as soon as it arrives (an empty list when the time is up)." }
    }) else {
        unreachable!("an object literal")
    };
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
            "list_responses",
            "The answers people sent to a routed document, oldest first, as {document, responses}. Each response has response_id, received_at, reviewer, componentInputs (the answers as JSON keyed by block id: b1, b2, …), annotations, and export (the answers as Markdown, ready to read). Pass since = the last response_id you have for only newer ones, and wait (seconds, at most 60) to wait for the next answer instead of polling.",
            schema(list_properties, &["id", "token"]),
        )
        .with_title("Read the answers to a routed document")
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
                "Ask a person for decisions with a PassbackAI document: read get_components_spec, write the document, check it with validate_document, publish it with route_document and send the person its review_url, then collect the answers with list_responses (wait up to 60 s for the next one).",
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
// stdio: passback mcp

/// Serves the tools on standard input and output until the client closes them or `shutdown`
/// resolves. Nothing else may write to standard output meanwhile.
pub async fn stdio(
    state: Arc<AppState>,
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<(), String> {
    use rmcp::ServiceExt;
    let routing = state.routing.clone();
    let running = PassbackMcp::new(state)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| format!("the MCP client did not start a session: {e}"))?;
    let cancel = running.cancellation_token();
    tokio::pin!(shutdown);
    let waiting = running.waiting();
    tokio::pin!(waiting);
    tokio::select! {
        ended = &mut waiting => {
            ended.map_err(|e| format!("the MCP session failed: {e}"))?;
        }
        () = &mut shutdown => {
            // Long-polls answer now, with what they have.
            if let Some(routing) = &routing {
                routing.store.wake_all();
            }
            cancel.cancel();
        }
    }
    Ok(())
}
