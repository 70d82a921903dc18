//! Bytes -> the gateway's `/mcp` request framing (`toolgate_gateway::framing::refusal`).
//! Any panic is a bug. A body it lets through must be one rmcp deserializes; a body it refuses
//! gets a JSON-RPC 2.0 error object with one of the three codes it documents, and an `id` that
//! is the request's own (a string or a number) or `null`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rmcp::model::ClientJsonRpcMessage;
use serde_json::Value;
use toolgate_gateway::framing::{refusal, INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR};

fuzz_target!(|data: &[u8]| {
    let Some(r) = refusal(data) else {
        assert!(
            serde_json::from_slice::<ClientJsonRpcMessage>(data).is_ok(),
            "let through a body rmcp cannot read: {:?}",
            String::from_utf8_lossy(data)
        );
        return;
    };
    assert!([PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS].contains(&r.code));
    assert!(matches!(
        r.id,
        Value::Null | Value::String(_) | Value::Number(_)
    ));
    if r.code == INVALID_PARAMS {
        assert!(
            !r.id.is_null(),
            "invalid params answered without the request's id"
        );
    }
    let body = r.body();
    assert_eq!(body["jsonrpc"], "2.0");
    assert_eq!(body["error"]["code"], r.code);
    // What is written on the wire is one JSON object. (Not compared value for value: serde_json
    // reads long float literals to the nearest few ulps, so an `id` like 9.99999919e+22 may
    // print back in its last digits differently.)
    let text = body.to_string();
    assert!(serde_json::from_str::<Value>(&text).is_ok_and(|v| v.is_object()));
});
