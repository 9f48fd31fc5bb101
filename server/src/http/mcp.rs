//! `POST /mcp`: the MCP tools ([`crate::mcp`]) over streamable HTTP.
//!
//! `/mcp` is stateless: every POST carries one JSON-RPC message and gets its answer as JSON
//! (no sessions, no event stream), so it needs nothing beyond the server's ordinary
//! request-response path and works the same behind several replicas.

use super::documents::sender_of;
use super::refusal::refused;
use super::request::{client_of, media, read_body_of};
use super::response::{Resp, problem};
use crate::host::web_host;
use crate::mcp::{Checked, INVALID_PARAMS, PassbackMcp, check_message};
use crate::quote::truncate;
use crate::state::AppState;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Request, StatusCode};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use serde_json::Value;
use std::sync::Arc;

/// `POST /mcp`: one JSON-RPC message in, its answer out as JSON. The Content-Type, the body
/// (within `--max-body`, like every other) and its JSON are checked here, so each fault gets a
/// sentence; the SDK's transport checks the rest (Accept, Host and Origin against DNS
/// rebinding, the protocol version). Its plain-text refusals are answered as problem+json, as
/// everywhere on this server.
pub async fn post(state: Arc<AppState>, req: Request<Incoming>, _: &str) -> Resp {
    let client = client_of(&req);
    // A key, when shown, must be a live one; where routing needs a key, so does `/mcp`.
    let key = match &state.routing {
        Some(routing) => match sender_of(&state, routing, &req).await {
            Ok(key) => key,
            Err(e) => return refused(e, false),
        },
        None => None,
    };
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
    match check_message(&bytes) {
        // Not JSON, not a request, or a known method's parameters malformed: a JSON-RPC error
        // with its own code (400 for a message that is not a request at all).
        Checked::Refused { reply, code } => {
            let status = if code == INVALID_PARAMS {
                StatusCode::OK
            } else {
                StatusCode::BAD_REQUEST
            };
            let mut r = hyper::Response::new(Full::new(Bytes::from(reply.to_string())));
            *r.status_mut() = status;
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            r.headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            return r;
        }
        // This server never sends the client a request, so a response answers nothing here; it
        // is taken, as MCP has servers take responses (202, no body). The stateless transport
        // would refuse it with a JSON-RPC error instead.
        Checked::Response => {
            let mut r = hyper::Response::new(Full::new(Bytes::new()));
            *r.status_mut() = StatusCode::ACCEPTED;
            return r;
        }
        Checked::Forward => {}
    }
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_max_request_body_bytes(state.config.max_body)
        .with_allowed_hosts(allowed_hosts(&state))
        .with_allowed_origins(allowed_origins(&state))
        .enforce_origin_validation();
    let tools = PassbackMcp::new(state).for_client(client).for_key(key);
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
        return transport_refused(parts.status, &body, host.as_deref());
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

/// The transport's refusal (plain text or a JSON-RPC error) as problem+json, with what to do about it.
fn transport_refused(status: StatusCode, body: &Bytes, host: Option<&str>) -> Resp {
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
    if let Some(host) = state.config.public_url.as_deref().and_then(web_host) {
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
        && let Some(host) = web_host(url)
        && let Some((scheme, _)) = url.split_once("://")
    {
        // `[::1]:8080` names a port; `[::1]` and `example.com` do not.
        let named = host.rsplit(']').next().unwrap_or(host).contains(':');
        let port = if named { "" } else { ":*" };
        origins.push(format!("{}://{host}{port}", scheme.to_ascii_lowercase()));
    }
    origins
}
