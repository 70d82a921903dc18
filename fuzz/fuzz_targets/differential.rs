//! Policy text and a request, both from the fuzzer: when the policy compiles and the request
//! parses, the engine must decide exactly as the reference interpreter (tests/reference/).
//! Input layout: policy text, a NUL byte, then one JSON request.
#![no_main]

#[path = "../../tests/reference/mod.rs"]
mod reference;

use libfuzzer_sys::fuzz_target;
use toolgate::Request;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (policy, request) = text.split_once('\0').unwrap_or((text, "{}"));
    let Ok(engine) = toolgate::load::engine_from_str("fuzz.policy", policy) else {
        return;
    };
    let Ok(req) = Request::from_json(request) else {
        return;
    };
    let reference = reference::Reference::new(&[("fuzz.policy", policy)]);
    assert_eq!(
        reference::Outcome::of(&engine.decide(&req)),
        reference.decide(&req),
        "engine vs reference\n--- policy ---\n{policy}\n--- request ---\n{request}"
    );
});
