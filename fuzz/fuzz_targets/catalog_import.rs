//! Bytes -> a `tools/list` result -> the catalog `toolgate catalog` prints for it. Any panic is
//! a bug; so is a printed catalog that does not load as a policy, since `catalog` output is
//! meant to be pasted into a policy and checked against the same server.
//!
//! Input: the server's name on the first line, then the `tools/list` result as JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rmcp::model::ListToolsResult;
use toolgate_gateway::catalog::render_server;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (server, json) = text.split_once('\n').unwrap_or(("srv", text));
    if server.is_empty() {
        return;
    }
    let Ok(list) = serde_json::from_str::<ListToolsResult>(json) else {
        return;
    };
    let printed = render_server(server, &list.tools);
    if let Err(e) = toolgate::load::engine_from_str("catalog.policy", &printed) {
        panic!("the printed catalog does not load: {e:?}\n{printed}");
    }
});
