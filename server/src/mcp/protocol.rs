//! JSON-RPC messages checked before the SDK reads them, and the stdio front of `passback mcp`.

use super::PassbackMcp;
use super::tools::TOOL_NAMES;
use crate::quote::truncate;
use crate::state::AppState;
use serde_json::{Value, json};
use std::sync::Arc;

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
