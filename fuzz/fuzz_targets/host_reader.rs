//! Bytes -> a JSON value -> the host request reader (`toolgate::host::request::RequestReader`,
//! what the Python and Node packages report their values to) against the CLI's parser. Any
//! panic is a bug; so is a value decided differently from `Engine::decide_json` on its text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::sync::OnceLock;
use toolgate::host::request::{Refused, RequestReader, FIELDS};
use toolgate::Engine;

const EXAMPLE: &str = include_str!("../../policies/example.policy");

fn engine() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| toolgate::load::engine_from_str("example.policy", EXAMPLE).unwrap())
}

fn walk(r: &mut RequestReader, v: &Value) -> Result<(), Refused> {
    match v {
        Value::Null => r.null(),
        Value::Bool(b) => r.bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => r.i64(i),
            (_, Some(u)) => r.u64(u),
            _ => r.f64(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => r.str(s),
        Value::Array(items) => {
            r.begin_array()?;
            for i in items {
                walk(r, i)?;
            }
            r.end_array()
        }
        Value::Object(m) => {
            r.begin_object()?;
            for (k, v) in m {
                r.key(k)?;
                walk(r, v)?;
            }
            r.end_object()
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(value) = toolgate::engine::json::parse_strict(text) else {
        return;
    };
    let mut r = RequestReader::new();
    let _ = match &value {
        Value::Object(m) => (|| {
            r.begin_object()?;
            let known = FIELDS.iter().filter_map(|&f| m.get_key_value(f));
            let others = m.iter().filter(|(k, _)| !FIELDS.contains(&k.as_str()));
            for (k, v) in known.chain(others) {
                r.key(k)?;
                walk(&mut r, v)?;
            }
            r.end_object()
        })(),
        v => walk(&mut r, v),
    };
    let host = r.decide(engine(), false).into_owned();
    let line = serde_json::to_string(&value).unwrap();
    let cli = engine().decide_json(&line, false).into_owned();
    if cli.reason.as_str() == "bad_request" {
        // Over-size and over-depth refusals are worded by each reader; both must refuse.
        assert_eq!(host.reason, cli.reason, "{line}");
    } else {
        assert_eq!(host, cli, "{line}");
    }
});
