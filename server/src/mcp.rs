//! Tools for agents over the Model Context Protocol (contract §6): `route_document`,
//! `list_responses`, `validate_document` and `get_components_spec`.
//!
//! Two transports serve the same tools: `passback mcp` on stdio (an agent on the desktop starts
//! it), and streamable HTTP at `POST /mcp` on `passback serve`. Both go through the code the
//! HTTP routes use ([`routed::route_checked`], [`crate::store::Routing::authorized`],
//! [`routed::responses_after`]), so ids, tokens, expiry, limits and long-polls behave alike.
//!
//! `/mcp` is stateless: every POST carries one JSON-RPC message and gets its answer as JSON
//! (no sessions, no event stream), so it needs nothing beyond the server's ordinary
//! request-response path and works the same behind several replicas.

// The HTTP handler returns a ready response as its error, as in `handlers`.
#![allow(clippy::result_large_err)]

use crate::AppState;
use crate::handlers::{media, read_body_of, truncate};
use crate::problem::{Resp, problem};
use crate::routed::{self, NotRouted};
use crate::store::Denied;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Request, StatusCode};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
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
        let Some(routing) = &self.state.routing else {
            return Err(Refusal::new(routed::STORE_OFF));
        };
        let expires_in = routed::lifetime(args.get("expires_in"), routing).map_err(Refusal::new)?;
        let src = self.document(args, "route_document")?;
        if let Err(wait) = routed::take_route_token(&self.state, self.client) {
            return Err(Refusal::new(routed::over_limit(&self.state, wait))
                .with("retry_after", json!(wait.as_secs())));
        }
        match routed::route_checked(&self.state, routing, src, expires_in).await {
            Ok((_, body)) => Ok(body),
            Err(NotRouted::Violating {
                errors,
                diagnostics,
            }) => Err(Refusal::new(routed::violation(errors)).with("diagnostics", diagnostics)),
            Err(NotRouted::Store(e)) => {
                routed::log_store_failure(&e);
                Err(Refusal::new(routed::STORE_UNAVAILABLE))
            }
            Err(NotRouted::Internal) => Err(Refusal::new(
                "Validation failed on an internal error; please report it.",
            )),
            Err(NotRouted::Busy(_)) => Err(Refusal::new(
                "The server is busy: every render slot is taken; retry in a moment.",
            )),
        }
    }

    async fn list_responses(&self, args: &JsonObject) -> Result<Value, Refusal> {
        only(args, "list_responses", &["id", "token", "since", "wait"])?;
        let Some(routing) = &self.state.routing else {
            return Err(Refusal::new(routed::STORE_OFF));
        };
        let id = text_arg(args, "id", "the id route_document answered")?;
        let token = text_arg(args, "token", "the token route_document answered")?;
        let since = since_arg(args.get("since"))?;
        let wait = wait_arg(args.get("wait"))?;
        let doc = match routing.authorized(id, token).await {
            Ok(Ok(doc)) => doc,
            Ok(Err(Denied::WrongToken)) => {
                return Err(Refusal::new(
                    "That token is not this document's; use the token route_document answered when it routed the document.",
                ));
            }
            Ok(Err(Denied::Gone)) => {
                return Err(Refusal::new(
                    "This document is gone: it was deleted or its time ran out, and its answers with it. Route it again to collect new answers.",
                ));
            }
            Ok(Err(Denied::Unknown)) => {
                return Err(Refusal::new(format!(
                    "There is no document \"{}\" in this store (never routed here, or forgotten after the retention period); check the id route_document answered.",
                    truncate(id)
                )));
            }
            Err(e) => {
                routed::log_store_failure(&e);
                return Err(Refusal::new(routed::STORE_UNAVAILABLE));
            }
        };
        routed::responses_after(routing, &doc, since, wait)
            .await
            .map_err(|e| {
                routed::log_store_failure(&e);
                Refusal::new(routed::STORE_UNAVAILABLE)
            })
    }

    async fn validate_document(&self, args: &JsonObject) -> Result<Value, Refusal> {
        only(args, "validate_document", &["markdown", "blocks"])?;
        let src = self.document(args, "validate_document")?;
        let validated =
            crate::handlers::heavy(&self.state, move || passback_engine::validate(&src))
                .await
                .map_err(|r| {
                    Refusal::new(if r.status() == hyper::StatusCode::SERVICE_UNAVAILABLE {
                        "The server is busy: every render slot is taken; retry in a moment."
                    } else {
                        "Validation failed on an internal error; please report it."
                    })
                })?;
        serde_json::to_value(&validated)
            .map_err(|e| Refusal::new(format!("The result could not be written as JSON: {e}.")))
    }

    /// The document from `blocks` (which wins) or `markdown`, within the server's body limit.
    fn document(&self, args: &JsonObject, tool: &str) -> Result<String, Refusal> {
        let src = match (args.get("blocks"), args.get("markdown")) {
            (Some(blocks), _) if !blocks.is_null() => {
                crate::handlers::blocks_to_markdown(blocks).map_err(Refusal::new)?
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
/// [`routed::MAX_WAIT`].
fn wait_arg(v: Option<&Value>) -> Result<Duration, Refusal> {
    let max = routed::MAX_WAIT.as_secs();
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

const TAGS: [&str; 9] = [
    "markdown",
    "single-choice",
    "multi-choice",
    "open-question",
    "questionnaire",
    "prioritize",
    "allocate",
    "youtube",
    "mermaid",
];

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
                "properties": { "type": { "enum": TAGS } }
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
        "wait": { "type": "number", "minimum": 0, "maximum": routed::MAX_WAIT.as_secs(), "default": 0, "description": "When there is no newer response yet, wait up to this many seconds for one and answer as soon as it arrives (an empty list when the time is up)." }
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
            "How to write a PassbackAI document: every component (single-choice, multi-choice, open-question, questionnaire, prioritize, allocate, youtube, mermaid) with its fields, an example, what the reader does and what the exported answer looks like, as Markdown; and the JSON Schema (2020-12) of every component and of typed blocks. Read it before writing a document.",
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
// Streamable HTTP: POST /mcp

/// `POST /mcp`: one JSON-RPC message in, its answer out as JSON. The Content-Type, the body
/// (within `--max-body`, like every other) and its JSON are checked here, so each fault gets a
/// sentence; the SDK's transport checks the rest (Accept, Host and Origin against DNS
/// rebinding, the protocol version). Its plain-text refusals are answered as problem+json, as
/// everywhere on this server.
pub async fn http(state: Arc<AppState>, req: Request<Incoming>) -> Resp {
    let client = routed::client_of(&req);
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_string);
    let (mut parts, body) = req.into_parts();
    accept_as_mcp_client(&mut parts.headers);
    let content_type = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_ascii_lowercase);
    if media(&content_type) != "application/json" {
        return problem(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "POST /mcp takes one JSON-RPC message as application/json, not {}.",
                truncate(
                    content_type
                        .as_deref()
                        .unwrap_or("a body without a Content-Type")
                )
            ),
        );
    }
    let bytes = match read_body_of(
        &parts.headers,
        body,
        state.config.max_body,
        state.config.body_timeout,
    )
    .await
    {
        Ok(b) => b,
        Err(r) => return r,
    };
    match json_rpc_message(&bytes) {
        Err(why) => return problem(StatusCode::BAD_REQUEST, why),
        // This server never sends the client a request, so a response answers nothing here; it
        // is taken, as MCP has servers take responses (202, no body). The stateless transport
        // would refuse it with a JSON-RPC error instead.
        Ok(Message::Response) => {
            let mut r = hyper::Response::new(Full::new(Bytes::new()));
            *r.status_mut() = StatusCode::ACCEPTED;
            return r;
        }
        Ok(Message::Other) => {}
    }
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_max_request_body_bytes(state.config.max_body)
        .with_allowed_hosts(allowed_hosts(&state))
        .with_allowed_origins(allowed_origins(&state))
        .enforce_origin_validation();
    let tools = PassbackMcp::new(state).for_client(client);
    let service = StreamableHttpService::new(
        move || Ok(tools.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let answer = service
        .handle(Request::from_parts(parts, Full::new(bytes)))
        .await;
    let (parts, body) = answer.into_parts();
    let Ok(collected) = body.collect().await;
    let body = collected.to_bytes();
    if parts.status.is_client_error() || parts.status.is_server_error() {
        return refused(parts.status, &body, host.as_deref());
    }
    let mut r = hyper::Response::from_parts(parts, Full::new(body));
    // Tool answers carry review links, tokens and answers.
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// A client that takes JSON (`application/json`, `application/*`, `*/*`, or no Accept at all,
/// as curl sends) takes what this endpoint answers: its Accept is written as an MCP client's,
/// which the transport looks for. A client that names only other types still gets 406.
fn accept_as_mcp_client(headers: &mut hyper::HeaderMap) {
    let ranges: Vec<String> = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|range| {
            range
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .collect();
    let json = ranges.is_empty()
        || ranges
            .iter()
            .any(|r| matches!(r.as_str(), "*/*" | "application/*" | "application/json"));
    if json {
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
    }
}

/// What one JSON-RPC message posted to `/mcp` is.
enum Message {
    /// A client's response to a server request: no method, a result or an error.
    Response,
    /// Anything else (a request, a notification, or neither): the transport judges it.
    Other,
}

/// Whether `body` is one JSON-RPC 2.0 message (batches left MCP in its 2025-06-18 version), and
/// which kind; the error says what was sent instead.
fn json_rpc_message(body: &[u8]) -> Result<Message, String> {
    let example = "such as {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/list\"}";
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        format!("The body is not valid JSON ({e}); send one JSON-RPC message, {example}.")
    })?;
    match value.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {
            // A response as JSON-RPC words it: the id of the request it answers, and one of a
            // result or an error, each an object. Anything else goes to the transport, which
            // refuses it.
            let id = matches!(value.get("id"), Some(Value::String(_) | Value::Number(_)));
            let result = value.get("result").map(Value::is_object);
            let error = value.get("error").map(Value::is_object);
            let answers = matches!((result, error), (Some(true), None) | (None, Some(true)));
            Ok(if value.get("method").is_none() && id && answers {
                Message::Response
            } else {
                Message::Other
            })
        }
        _ if value.is_array() => Err(format!(
            "The body is a batch; MCP takes one JSON-RPC message per request, {example}."
        )),
        _ => Err(format!(
            "The body is not a JSON-RPC 2.0 message (it needs \"jsonrpc\": \"2.0\"); send one, {example}."
        )),
    }
}

/// The transport's refusal (plain text or a JSON-RPC error) as problem+json, with what to do about it.
fn refused(status: StatusCode, body: &Bytes, host: Option<&str>) -> Resp {
    // The transport words some refusals as a JSON-RPC error; its message is what it said.
    let rpc_message = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(str::to_string));
    let said = match rpc_message {
        Some(message) => message.into(),
        None => String::from_utf8_lossy(body),
    };
    let said = said.trim().trim_end_matches('.');
    // The transport reads a message it cannot decode as an unsupported media type; the
    // Content-Type was checked already, so it is the message that is wrong.
    let status = if status == StatusCode::UNSUPPORTED_MEDIA_TYPE {
        StatusCode::BAD_REQUEST
    } else {
        status
    };
    let detail = if status == StatusCode::NOT_ACCEPTABLE {
        "POST /mcp answers with JSON: send Accept: application/json, text/event-stream (as MCP clients do), or no Accept at all.".to_string()
    } else if status == StatusCode::FORBIDDEN && said.contains("Host") {
        format!(
            "This server answers MCP only at the addresses it knows (a guard against DNS rebinding), and the Host header {} is not one of them; connect through 127.0.0.1 or localhost, or start the server with --public-url set to the address clients use.",
            truncate(host.unwrap_or("(none)"))
        )
    } else if status == StatusCode::FORBIDDEN && said.contains("Origin") {
        "A web page from another origin may not call this server's MCP endpoint; connect from an MCP client, or serve the page from this server's --public-url.".to_string()
    } else if said.is_empty() {
        format!(
            "The MCP request was refused ({status}); send one JSON-RPC message as application/json, accepting application/json and text/event-stream."
        )
    } else {
        format!("The MCP request was refused: {}.", truncate(said))
    };
    let mut r = problem(status, detail);
    if status == StatusCode::METHOD_NOT_ALLOWED {
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST"));
    }
    r
}

/// The Host names `/mcp` answers: loopback, the address the server listens on, and the host of
/// `--public-url`. (A port-less entry matches any port.)
fn allowed_hosts(state: &AppState) -> Vec<String> {
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"].map(String::from).into();
    let listen = state.bound.get().copied().unwrap_or(state.config.listen);
    if !listen.ip().is_unspecified() {
        hosts.push(listen.ip().to_string());
    }
    if let Some(host) = state.config.public_url.as_deref().and_then(crate::web_host) {
        hosts.push(host.to_string());
    }
    hosts
}

/// The browser origins `/mcp` answers (requests without an Origin, as agents send them,
/// always pass): pages on loopback, and pages from `--public-url`.
fn allowed_origins(state: &AppState) -> Vec<String> {
    let mut origins: Vec<String> = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"]
        .map(String::from)
        .into();
    if let Some(url) = &state.config.public_url
        && let Some(host) = crate::web_host(url)
        && let Some((scheme, _)) = url.split_once("://")
    {
        // `[::1]:8080` names a port; `[::1]` and `example.com` do not.
        let named = host.rsplit(']').next().unwrap_or(host).contains(':');
        let port = if named { "" } else { ":*" };
        origins.push(format!("{}://{host}{port}", scheme.to_ascii_lowercase()));
    }
    origins
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
