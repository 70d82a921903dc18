//! Arbitrary request bytes against the compiled `policies/example.policy`, through
//! `Engine::decide_json` (the path `toolgate eval` takes). Every answer must be a well-formed
//! decision; a request that parses must get the reference interpreter's decision.
#![no_main]

#[path = "../../tests/reference/mod.rs"]
mod reference;

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use toolgate::{Engine, Request};

const EXAMPLE: &str = include_str!("../../policies/example.policy");

fn setup() -> &'static (Engine, reference::Reference) {
    static S: OnceLock<(Engine, reference::Reference)> = OnceLock::new();
    S.get_or_init(|| {
        let engine = toolgate::load::engine_from_str("example.policy", EXAMPLE).unwrap();
        let reference = reference::Reference::new(&[("example.policy", EXAMPLE)]);
        (engine, reference)
    })
}

fuzz_target!(|data: &[u8]| {
    let (engine, reference) = setup();
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let d = engine.decide_json(text, flags & 1 == 1);
    let json = serde_json::to_value(&d).expect("a decision serializes");
    assert_eq!(json["decision"] == "allow", d.is_allowed());
    assert_ne!(
        d.reason.as_str(),
        "internal_error",
        "the engine failed on {text:?}"
    );
    match Request::from_json(text) {
        Ok(req) => {
            assert_ne!(d.reason.as_str(), "bad_request");
            assert_eq!(
                reference::Outcome::of(&d),
                reference.decide(&req),
                "engine vs reference on {text:?}"
            );
        }
        Err(_) => assert_eq!(d.reason.as_str(), "bad_request"),
    }
});
