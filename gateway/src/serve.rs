//! The plain decision API for hosts in any language: `POST /v1/decide`, `GET /v1/tools`,
//! `GET /healthz`. Every answer carries the policy's `policy_hash`.
//!
//! The agent comes from the key, as on `/mcp`: a request may omit `agent` (the key's agent is
//! filled in) or name the key's own agent; naming another agent is a `bad_request` decision.

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use http::StatusCode;
use serde::Deserialize;
use serde_json::{json, Value};
use toolgate::Engine;

use crate::keys::Caller;
use crate::state::Shared;

/// The authenticated `/v1` routes.
pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/v1/decide", post(decide))
        .route("/v1/tools", get(tools))
}

/// `GET /healthz`: unauthenticated liveness with the current policy hash.
pub async fn healthz(State(shared): State<Arc<Shared>>) -> Response {
    Json(json!({"ok": true, "policy_hash": shared.engine().policy_hash()})).into_response()
}

/// Decides one request value for the caller, the way `toolgate eval` decides a line (the
/// key's agent filled in when the request omits it).
pub fn decide_value(engine: &Engine, caller: &Caller, mut value: Value) -> Value {
    let tool_use_id = value
        .get("tool_use_id")
        .and_then(Value::as_str)
        .map(str::to_owned);
    if let Value::Object(obj) = &mut value {
        match obj.get("agent") {
            None => {
                obj.insert("agent".into(), Value::String(caller.agent.clone()));
            }
            Some(Value::String(a)) if *a == caller.agent => {}
            Some(_) => {
                let d = engine.bad_request(
                    "bad request: `agent` must be omitted or name the key's own agent",
                    tool_use_id,
                );
                return serde_json::to_value(&d).unwrap_or(Value::Null);
            }
        }
    }
    // The value is decided as it is: `decide_value` answers exactly as `decide_json` answers
    // its text (the size limit included), without writing and parsing that text again.
    serde_json::to_value(engine.decide_value(value, false)).unwrap_or(Value::Null)
}

/// `POST /v1/decide`: one request object, or an array of them answered in order.
async fn decide(
    State(shared): State<Arc<Shared>>,
    Extension(caller): Extension<Caller>,
    body: axum::body::Bytes,
) -> Response {
    let engine = shared.engine();
    let Ok(body) = std::str::from_utf8(&body) else {
        let d = engine.bad_request("bad request: the body is not UTF-8 text", None);
        return Json(serde_json::to_value(&d).unwrap_or(Value::Null)).into_response();
    };
    let answer = match toolgate::engine::json::parse_strict(body) {
        Err(e) => {
            let d = engine.bad_request(format!("bad request: {e}"), None);
            serde_json::to_value(&d).unwrap_or(Value::Null)
        }
        Ok(Value::Array(items)) => Value::Array(
            items
                .into_iter()
                .map(|v| decide_value(&engine, &caller, v))
                .collect(),
        ),
        Ok(v) => decide_value(&engine, &caller, v),
    };
    Json(answer).into_response()
}

#[derive(Deserialize)]
struct ToolsQuery {
    agent: Option<String>,
}

/// `GET /v1/tools?agent=`: the tools the key's agent may see (`agent` may only name it).
async fn tools(
    State(shared): State<Arc<Shared>>,
    Extension(caller): Extension<Caller>,
    Query(q): Query<ToolsQuery>,
) -> Response {
    let engine = shared.engine();
    let hash = engine.policy_hash().to_string();
    if q.agent.as_deref().is_some_and(|a| a != caller.agent) {
        return (
            StatusCode::FORBIDDEN,
            Json(json!({"error": "forbidden", "message": "`agent` must be omitted or name the key's own agent", "policy_hash": hash})),
        )
            .into_response();
    }
    match engine.visible_tools(&caller.agent) {
        Some(list) => Json(json!({
            "agent": caller.agent,
            "tools": toolgate::engine::tools_json(&list),
            "policy_hash": hash,
        }))
        .into_response(),
        None => (
            StatusCode::NOT_FOUND,
            Json(json!({"error": "unknown_agent", "message": "the key's agent is not in the policy", "policy_hash": hash})),
        )
            .into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_names_the_agent() {
        let engine = toolgate::load::engine_from_str(
            "p.policy",
            "tool t(x)\nagent a { allow t }\nagent b {}",
        )
        .unwrap();
        let caller = Caller {
            agent: "a".into(),
            key_id: "tg_00000000".into(),
        };
        let filled = decide_value(&engine, &caller, json!({"tool": "t", "args": {"x": 1}}));
        assert_eq!(filled["decision"], "allow");
        assert_eq!(filled["policy_hash"], engine.policy_hash());
        let other = decide_value(
            &engine,
            &caller,
            json!({"agent": "b", "tool": "t", "tool_use_id": "u1"}),
        );
        assert_eq!(
            (other["reason"].as_str(), other["tool_use_id"].as_str()),
            (Some("bad_request"), Some("u1"))
        );
        let bad = decide_value(&engine, &caller, json!({"tool": 5}));
        assert_eq!(bad["reason"], "bad_request");
    }
}
