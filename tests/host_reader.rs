//! The host request reader (`toolgate::host::request::RequestReader`) against the CLI's
//! request line: a host that reports a value's parts gets the decision `toolgate eval` gives
//! for the same value as JSON text, on every field, for odd keys, sizes and depths.

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use toolgate::host::request::{Refused, RequestReader, FIELDS, MAX_DEPTH, MAX_REQUEST_BYTES};
use toolgate::Engine;

const POLICY: &str = r#"
tool read(path: string, opts?)
tool run(cmd, n?: integer)
agent a {
  allow read where path matches "/srv/**"
  allow run where cmd == "ls" and n < 5
  deny read where opts.force == "yes"
}
"#;

fn engine() -> Engine {
    toolgate::load::engine_from_str("p.policy", POLICY).unwrap()
}

/// Reports a serde_json value's parts, as a host walks its own values.
fn walk(r: &mut RequestReader, v: &Value) -> Result<(), Refused> {
    match v {
        Value::Null => r.null(),
        Value::Bool(b) => r.bool(*b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                r.i64(i)
            } else if let Some(u) = n.as_u64() {
                r.u64(u)
            } else {
                r.f64(n.as_f64().unwrap_or(f64::NAN))
            }
        }
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

/// Reports a request object as a host does: the known fields first, in `FIELDS` order.
fn walk_request(r: &mut RequestReader, v: &Value) -> Result<(), Refused> {
    let Value::Object(m) = v else {
        return walk(r, v);
    };
    r.begin_object()?;
    let known = FIELDS.iter().filter_map(|&f| m.get_key_value(f));
    let others = m.iter().filter(|(k, _)| !FIELDS.contains(&k.as_str()));
    for (k, v) in known.chain(others) {
        r.key(k)?;
        walk(r, v)?;
    }
    r.end_object()
}

fn read(engine: &Engine, v: &Value) -> serde_json::Value {
    let mut r = RequestReader::new();
    let _ = walk_request(&mut r, v);
    serde_json::to_value(r.decide(engine, true)).unwrap()
}

fn cli(engine: &Engine, v: &Value) -> serde_json::Value {
    let line = serde_json::to_string(v).unwrap();
    serde_json::to_value(engine.decide_json(&line, true)).unwrap()
}

fn nested(levels: usize) -> Value {
    let mut v = json!(1);
    for _ in 0..levels {
        v = json!([v]);
    }
    v
}

#[test]
fn odd_requests_get_the_cli_answer() {
    let e = engine();
    let cases = vec![
        json!({"agent": "a", "tool": "read", "args": {"path": "/srv/x"}}),
        json!({"agent": "a", "tool": "read", "args": {"path": "/srv/../etc/passwd"}}),
        json!({"agent": "a", "tool": "read", "args": {"path": "/srv/x", "opts": {"force": "yes"}}}),
        json!({"agent": "a", "tool": "run", "args": {"cmd": "ls", "n": 4}, "tool_use_id": "t1"}),
        json!({"agent": "a", "tool": "run", "args": {"cmd": "ls", "n": 4.0}}),
        json!({"agent": "a", "tool": "run", "args": {"cmd": "ls", "n": 4.5}}),
        json!({"agent": "a", "tool": "run", "args": {"cmd": "ls", "n": u64::MAX}}),
        json!({"agent": "a", "tool": "run", "args": {"cmd": "ls", "n": i64::MIN}}),
        json!({"agent": "a", "tool": "run", "args": {"cmd": "ls"}, "permissions": ["x"]}),
        json!({"agent": "a", "tool": "run", "permissions": ["x", 1], "tool_use_id": "t2"}),
        json!({"agent": "a", "tool": "run", "permissions": "x"}),
        json!({"agent": "a", "tool": "run", "server": null, "tool_use_id": null}),
        json!({"agent": "a", "tool": "run", "server": 3, "tool_use_id": "t3"}),
        json!({"agent": 1, "tool": "run", "tool_use_id": "t4"}),
        json!({"tool": "run"}),
        json!({"agent": "a"}),
        json!({"agent": "a", "tool": "run", "args": []}),
        json!({"agent": "a", "tool": "run", "tool_use_id": 7}),
        json!({"agent": "a", "tool": "run", "meta": {"x": [1, {"y": null}]}}),
        json!({"agent": "a", "tool": "read", "args": {"path": "/srv/\u{0}\n\"\\é"}}),
        json!({"": "", "agent": "a", "tool": "run"}),
        json!([]),
        json!("agent"),
        json!(null),
        json!({"agent": "a", "tool": "run", "args": {"deep": nested(MAX_DEPTH - 3)}}),
    ];
    for c in &cases {
        assert_eq!(read(&e, c), cli(&e, c), "for {c}");
    }
}

#[test]
fn depth_is_the_cli_limit() {
    let e = engine();
    let ok = json!({"agent": "a", "tool": "run", "meta": nested(MAX_DEPTH - 1)});
    assert_eq!(read(&e, &ok)["reason"], "missing_argument");
    assert_eq!(read(&e, &ok), cli(&e, &ok));
    let deep = json!({"agent": "a", "tool": "run", "meta": nested(MAX_DEPTH), "tool_use_id": "t"});
    let (host, line) = (read(&e, &deep), cli(&e, &deep));
    assert_eq!(
        (&host["reason"], &line["reason"]),
        (&json!("bad_request"), &json!("bad_request"))
    );
    let message = host["message"].as_str().unwrap();
    assert!(
        message.starts_with("bad request: `meta[0][0][0][0][0]...[0][0][0] (127 levels deep)` nests deeper than 127 levels"),
        "{message}"
    );
    assert_eq!(host["tool_use_id"], "t");
}

#[test]
fn size_is_the_cli_limit_counted_exactly() {
    let e = engine();
    let base = json!({"agent": "a", "tool": "run", "args": {"cmd": ""}});
    let room = MAX_REQUEST_BYTES - serde_json::to_string(&base).unwrap().len();
    // Escapes and non-ASCII text count as the JSON text they are.
    for unit in ["x", "é", "\n", "\u{1}", "\"", "€"] {
        let unit_len = serde_json::to_string(unit).unwrap().len() - 2;
        let n = room / unit_len;
        for (count, fits) in [(n, true), (n + 1, false)] {
            let v = json!({"agent": "a", "tool": "run", "args": {"cmd": unit.repeat(count)}});
            let fits = fits && serde_json::to_string(&v).unwrap().len() <= MAX_REQUEST_BYTES;
            let (host, line) = (read(&e, &v), cli(&e, &v));
            assert_eq!(host["reason"] == "bad_request", !fits, "{unit:?} x {count}");
            assert_eq!(line["reason"] == "bad_request", !fits, "{unit:?} x {count}");
        }
    }
}

#[test]
fn values_json_cannot_hold_are_refused_where_they_are() {
    let e = engine();
    let mut r = RequestReader::new();
    let walk = |r: &mut RequestReader| -> Result<(), Refused> {
        r.begin_object()?;
        r.key("tool_use_id")?;
        r.str("t9")?;
        r.key("agent")?;
        r.str("a")?;
        r.key("tool")?;
        r.str("run")?;
        r.key("meta")?;
        r.begin_object()?;
        r.key("a.b")?;
        r.begin_array()?;
        r.i64(1)?;
        r.f64(f64::INFINITY)?;
        r.end_array()?;
        r.end_object()?;
        r.end_object()
    };
    assert_eq!(walk(&mut r), Err(Refused));
    let d = r.decide(&e, false);
    assert_eq!(d.reason.as_str(), "bad_request");
    assert_eq!(
        d.message,
        r#"bad request: `meta["a.b"][1]` is Infinity, which is not a JSON number"#
    );
    assert_eq!(d.tool_use_id.as_deref(), Some("t9"));

    // A duplicate key (a host whose keys can repeat, e.g. `str` subclasses), anywhere.
    r.clear();
    let dup = |r: &mut RequestReader| -> Result<(), Refused> {
        r.begin_object()?;
        r.key("agent")?;
        r.str("a")?;
        r.key("args")?;
        r.begin_object()?;
        for i in 0..40 {
            r.key(&format!("k{i}"))?;
            r.null()?;
        }
        r.key("k3")?;
        r.null()?;
        r.end_object()?;
        r.end_object()
    };
    assert_eq!(dup(&mut r), Err(Refused));
    assert_eq!(
        r.decide(&e, false).message,
        "bad request: `args` has the key `k3` twice"
    );

    // What the host itself finds (a set, a function).
    r.clear();
    let host = |r: &mut RequestReader| -> Result<(), Refused> {
        r.begin_object()?;
        r.key("args")?;
        r.begin_object()?;
        r.key("p")?;
        Err(r.refuse("is a `set`, which has no JSON form"))
    };
    assert_eq!(host(&mut r), Err(Refused));
    assert_eq!(
        r.decide(&e, false).message,
        "bad request: `args.p` is a `set`, which has no JSON form"
    );
    // Once refused, every later part is refused too.
    assert_eq!(r.null(), Err(Refused));

    // The reader is reused: a clean request after a refused one is decided.
    r.clear();
    let _ = walk_request(
        &mut r,
        &json!({"agent": "a", "tool": "run", "args": {"cmd": "ls", "n": 1}}),
    );
    assert!(r.decide(&e, false).is_allowed());
}

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop_oneof![
            Just("/srv/x".to_string()),
            Just("ls".to_string()),
            "\\PC{0,8}",
            "[\\x00-\\x20\"\\\\]{0,4}"
        ]
        .prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        Just("path".to_string()),
                        Just("cmd".to_string()),
                        Just("n".to_string()),
                        Just("force".to_string()),
                        Just("opts".to_string()),
                        "\\PC{0,4}"
                    ],
                    inner
                ),
                0..4
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn arb_request() -> impl Strategy<Value = Value> {
    let field = |name: &'static str| (Just(name), prop::option::of(arb_value()));
    (
        prop::option::of(prop_oneof![Just(json!("a")), arb_value()]),
        prop::option::of(prop_oneof![
            Just(json!("read")),
            Just(json!("run")),
            arb_value()
        ]),
        prop::option::of(arb_value()),
        field("server"),
        field("tool_use_id"),
        field("permissions"),
        field("meta"),
    )
        .prop_map(|(agent, tool, args, s, id, p, m)| {
            let mut o = Map::new();
            if let Some(a) = agent {
                o.insert("agent".into(), a);
            }
            if let Some(t) = tool {
                o.insert("tool".into(), t);
            }
            if let Some(a) = args {
                o.insert("args".into(), a);
            }
            for (k, v) in [s, id, p, m] {
                if let Some(v) = v {
                    o.insert(k.into(), v);
                }
            }
            Value::Object(o)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn a_host_value_gets_the_cli_decision(req in arb_request()) {
        let e = engine();
        prop_assert_eq!(read(&e, &req), cli(&e, &req));
    }
}
