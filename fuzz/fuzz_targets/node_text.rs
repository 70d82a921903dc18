//! Bytes -> the Node package's in-place request text reader (`bindings/node/src/text.rs`)
//! against the CLI's parser. Any panic is a bug; so is text the reader accepts whose decision
//! differs from the one `Request::from_json` + `Engine::decide` gives for the same text (the
//! reader promises to hold exactly the values the CLI's parser reads, or to decline).
#![no_main]

#[path = "../../bindings/node/src/text.rs"]
#[allow(dead_code)]
mod text;

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use toolgate::{Engine, Request};

const EXAMPLE: &str = include_str!("../../policies/example.policy");

fn engine() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| toolgate::load::engine_from_str("example.policy", EXAMPLE).unwrap())
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let engine = engine();
    let mut parsed = text::Parsed::new();
    if !text::read_into(text, &mut parsed) {
        return;
    }
    let fast = engine.decide_ref(&parsed.request());
    let req = Request::from_json(text).unwrap_or_else(|bad| {
        panic!("the reader accepted text the CLI refuses ({}): {text:?}", bad.message)
    });
    let slow = engine.decide(&req);
    assert_eq!(
        fast.into_owned(),
        slow.into_owned(),
        "the reader and the CLI decide {text:?} differently"
    );
});
