//! Request framing on `/mcp`, checked before rmcp reads the body, so that bad input gets a
//! JSON-RPC error rather than rmcp's HTTP 415 (its answer to any body it cannot deserialize)
//! or "method not found":
//!
//! - a body that is not JSON (or not UTF-8): HTTP 400, `-32700` parse error, `id: null`;
//! - a JSON array (a batch, which MCP no longer has) or a value that is not a JSON-RPC request,
//!   notification or response: HTTP 400, `-32600` invalid request;
//! - `tools/call` whose `params` is not an object, whose `name` is not a string, or whose
//!   `arguments` is present and not an object: HTTP 200, `-32602` invalid params, with the
//!   request's `id`.
//!
//! Only POSTs declaring a JSON body are read; anything else goes on to rmcp unchanged.

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{header, HeaderValue, Method, StatusCode};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage};
use serde_json::{json, Value};

/// JSON-RPC: the body is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: not a valid request object.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: the method's parameters are invalid.
pub const INVALID_PARAMS: i64 = -32602;

/// Why a body is refused: the HTTP status and the JSON-RPC error answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The HTTP status.
    pub status: StatusCode,
    /// The JSON-RPC error code.
    pub code: i64,
    /// The error message.
    pub message: &'static str,
    /// The request's id, when it has one.
    pub id: Value,
}

impl Refusal {
    fn new(status: StatusCode, code: i64, message: &'static str, id: Value) -> Refusal {
        Refusal {
            status,
            code,
            message,
            id,
        }
    }

    /// The JSON-RPC error object answered.
    pub fn body(&self) -> Value {
        json!({"jsonrpc": "2.0", "id": self.id, "error": {"code": self.code, "message": self.message}})
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let mut r = (self.status, self.body().to_string()).into_response();
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        r
    }
}

/// The `tools/call` parameter problem, if there is one.
fn bad_call_params(params: Option<&Value>) -> Option<&'static str> {
    let Some(Value::Object(p)) = params else {
        return Some("Invalid params: `tools/call` needs a `params` object");
    };
    if !p.get("name").is_some_and(Value::is_string) {
        return Some("Invalid params: the tool `name` must be a string");
    }
    match p.get("arguments") {
        None | Some(Value::Null) | Some(Value::Object(_)) => None,
        Some(_) => Some("Invalid params: `arguments` must be an object"),
    }
}

/// What is wrong with a body, or `None` when rmcp may read it.
pub fn refusal(body: &[u8]) -> Option<Refusal> {
    let typed = serde_json::from_slice::<ClientJsonRpcMessage>(body);
    if let Ok(message) = &typed {
        // A `tools/call` whose params do not deserialize is read as a custom method, which
        // would be answered "method not found".
        let JsonRpcMessage::Request(request) = message else {
            return None;
        };
        let ClientRequest::CustomRequest(custom) = &request.request else {
            return None;
        };
        if custom.method != "tools/call" {
            return None;
        }
        let id = serde_json::to_value(&request.id).unwrap_or(Value::Null);
        let message = bad_call_params(custom.params.as_ref())
            .unwrap_or("Invalid params: not valid `tools/call` parameters");
        return Some(Refusal::new(StatusCode::OK, INVALID_PARAMS, message, id));
    }
    let bad = StatusCode::BAD_REQUEST;
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        return Some(Refusal::new(
            bad,
            PARSE_ERROR,
            "Parse error: the body is not JSON",
            Value::Null,
        ));
    };
    let Value::Object(obj) = &value else {
        let message = if value.is_array() {
            "Invalid Request: batches (JSON arrays) are not supported; send one message per request"
        } else {
            "Invalid Request: the body must be a JSON-RPC message object"
        };
        return Some(Refusal::new(bad, INVALID_REQUEST, message, Value::Null));
    };
    let id = match obj.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
    if obj.get("method").and_then(Value::as_str) == Some("tools/call") {
        if let Some(message) = bad_call_params(obj.get("params")) {
            if !id.is_null() {
                return Some(Refusal::new(StatusCode::OK, INVALID_PARAMS, message, id));
            }
        }
    }
    Some(Refusal::new(
        bad,
        INVALID_REQUEST,
        "Invalid Request: not a JSON-RPC 2.0 request, notification or response",
        id,
    ))
}

fn declares_json(req: &Request) -> bool {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            let essence = v.split_once(';').map_or(v, |(e, _)| e);
            essence.trim().eq_ignore_ascii_case("application/json")
        })
}

/// The middleware; its state is the largest body read (`[limits] max_body_bytes`).
pub async fn check(State(max_body): State<usize>, req: Request, next: Next) -> Response {
    if req.method() != Method::POST || !declares_json(&req) {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    let bytes: Bytes = match axum::body::to_bytes(body, max_body).await {
        Ok(b) => b,
        Err(_) => {
            return (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the request body exceeds {max_body} bytes"),
            )
                .into_response()
        }
    };
    if let Some(r) = refusal(&bytes) {
        return r.into_response();
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(body: &str) -> Option<(u16, i64, Value)> {
        refusal(body.as_bytes()).map(|r| (r.status.as_u16(), r.code, r.id))
    }

    #[test]
    fn each_kind_of_bad_body_gets_its_json_rpc_error() {
        assert_eq!(code("{\"jsonrpc\":"), Some((400, PARSE_ERROR, Value::Null)));
        assert_eq!(refusal(b"\xff\xfe").map(|r| r.code), Some(PARSE_ERROR));
        let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        assert_eq!(
            code(&format!("[{ping}]")),
            Some((400, INVALID_REQUEST, Value::Null))
        );
        assert_eq!(code("42").map(|c| c.1), Some(INVALID_REQUEST));
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":3}"#),
            Some((400, INVALID_REQUEST, json!(3)))
        );
        for params in [
            r#"{"name":"t","arguments":[1]}"#,
            r#"{"name":"t","arguments":"x"}"#,
            r#"{"name":5}"#,
            r#"{"arguments":{}}"#,
            r#"[1]"#,
        ] {
            let body =
                format!(r#"{{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{params}}}"#);
            assert_eq!(
                code(&body),
                Some((200, INVALID_PARAMS, json!("a"))),
                "{body}"
            );
        }
        assert_eq!(code(ping), None);
        let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{"x":1}}}"#;
        assert_eq!(code(call), None);
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            None
        );
    }
}
