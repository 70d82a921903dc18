//! `Engine::decide_value` (a request already parsed, as the gateway's `/v1/decide` has it)
//! answers exactly as `Engine::decide_json` answers the value's JSON text: the size limit,
//! the nesting limit and every field check, on random values and at the limits' edges.

use proptest::prelude::*;
use serde_json::{json, Value};
use toolgate::engine::request::MAX_REQUEST_BYTES;
use toolgate::{Engine, Request};

fn engine() -> Engine {
    toolgate::load::engine_from_str(
        "p.policy",
        "tool t(p, q?)\nagent a { allow t where p matches \"/srv/**\" }\n",
    )
    .unwrap()
}

/// Both answers, as JSON.
fn both(engine: &Engine, v: &Value) -> (Value, Value) {
    let via_value = serde_json::to_value(engine.decide_value(v.clone(), false)).unwrap();
    let via_text = serde_json::to_value(engine.decide_json(&v.to_string(), false)).unwrap();
    (via_value, via_text)
}

/// `depth` arrays around `inner`.
fn nested(depth: usize, inner: Value) -> Value {
    (0..depth).fold(inner, |v, _| Value::Array(vec![v]))
}

#[test]
fn the_limits_edges_answer_alike() {
    let e = engine();
    let request =
        |args: Value| json!({"agent": "a", "tool": "t", "args": args, "tool_use_id": "u"});
    let base = request(json!({"p": ""})).to_string().len();
    let mut cases = vec![];
    // Exactly at the size limit, one byte over, and over only once escapes are written.
    for pad in [MAX_REQUEST_BYTES - base, MAX_REQUEST_BYTES - base + 1] {
        cases.push(request(json!({"p": "x".repeat(pad)})));
    }
    cases.push(request(
        json!({"p": "\u{1}".repeat(MAX_REQUEST_BYTES / 6 + 1)}),
    ));
    // Numbers whose text is longer than they were written (`9e15` is `9000000000000000.0`).
    cases.push(request(
        json!({"q": vec![9e15; MAX_REQUEST_BYTES / 19 + 1]}),
    ));
    cases.push(request(
        json!({"q": [-0.0, 1e300, 5e-324, u64::MAX, i64::MIN]}),
    ));
    // Nesting: the parser takes 127 levels and refuses the 128th, at its column.
    for depth in [120, 125, 126, 127, 128, 129, 400] {
        cases.push(request(
            json!({"p": "/srv/a", "q": nested(depth, json!(1))}),
        ));
        cases.push(nested(depth, json!({})));
    }
    // Deep and over the size limit: the size is reported, as from text.
    cases.push(request(
        json!({"q": nested(300, json!("x".repeat(MAX_REQUEST_BYTES)))}),
    ));
    for v in &cases {
        let (via_value, via_text) = both(&e, v);
        assert_eq!(
            via_value,
            via_text,
            "{}",
            &v.to_string()[..200.min(v.to_string().len())]
        );
    }
    let over = both(&e, &cases[1]).0;
    assert!(
        over["message"].as_str().unwrap().contains("the limit is"),
        "{over}"
    );
    let deep = both(&e, &nested(128, json!({}))).0;
    assert!(
        deep["message"]
            .as_str()
            .unwrap()
            .contains("recursion limit"),
        "{deep}"
    );
    assert_eq!(
        both(&e, &nested(127, json!(1))).0["message"],
        "bad request: a request must be a JSON object"
    );
}

/// Request-like values: the request's keys with values of every type, other keys, nesting.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop_oneof![
            Just("a".to_string()),
            Just("t".to_string()),
            Just("/srv/x".to_string()),
            ".{0,6}"
        ]
        .prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("agent".to_string()),
                    Just("tool".to_string()),
                    Just("server".to_string()),
                    Just("args".to_string()),
                    Just("tool_use_id".to_string()),
                    Just("permissions".to_string()),
                    Just("p".to_string()),
                    ".{0,4}",
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn a_value_is_answered_as_its_text(v in value(), wrap in 0usize..40) {
        let e = engine();
        // Some values are wrapped to near the nesting limit, from either side.
        let v = if wrap > 0 { nested(95 + wrap, v) } else { v };
        let (via_value, via_text) = both(&e, &v);
        prop_assert_eq!(via_value, via_text, "{}", v);
        prop_assert_eq!(Request::from_json_value(v.clone()), Request::from_json(&v.to_string()));
    }
}
