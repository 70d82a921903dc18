//! Declared argument types (docs/language.md sections 3 and 11): a call whose argument has
//! another type is refused with `invalid_argument` before any rule runs, naming the argument,
//! the declared type and what the call gives. tests/corpus/types.policy pins the decisions
//! of every type; the differential tests compare them with the reference interpreter.

use serde_json::{json, Value};
use toolgate::{Engine, Request};

const POLICY: &str = "\
tool Bash(command: string, timeout?: number, retries?: integer) needs proc:exec
tool copy(paths: array<path>, grid?: array<array<integer>>, flag?: boolean, opts?: object)
agent a {
  grant proc:exec
  deny Bash where command contains \"rm -rf\"
  deny Bash where timeout > 600
  allow Bash
  allow copy
}
agent none {
  allow copy
}
";

fn engine() -> Engine {
    toolgate::load::engine_from_str("typed.policy", POLICY).unwrap()
}

/// `(reason, argument, message)` of a call by agent `a`.
fn decide(tool: &str, args: Value) -> (String, Option<String>, String) {
    let e = engine();
    let d = e.decide(&Request::new("a", tool).args(args));
    (
        d.reason.as_str().to_string(),
        d.argument.as_deref().map(String::from),
        d.message.to_string(),
    )
}

fn refused(tool: &str, args: Value, arg: &str, message: &str) {
    let (reason, argument, got) = decide(tool, args.clone());
    assert_eq!(
        (reason.as_str(), argument.as_deref(), got.as_str()),
        ("invalid_argument", Some(arg), message),
        "{args}"
    );
}

#[test]
fn the_edge_shapes_of_the_issue_are_refused_with_what_they_are() {
    refused(
        "Bash",
        json!({"command": {"0": "rm -rf /"}}),
        "command",
        "Bash requires the argument `command` to be `string`; the call gives an object",
    );
    refused(
        "Bash",
        json!({"command": ["x"]}),
        "command",
        "Bash requires the argument `command` to be `string`; the call gives an array",
    );
    refused(
        "Bash",
        json!({"command": "ls", "timeout": "9999"}),
        "timeout",
        "Bash requires the argument `timeout` to be `number`; the call gives a string",
    );
    // The well-typed calls reach the rules, which now see the shapes they were written for.
    assert_eq!(
        decide("Bash", json!({"command": "rm -rf /"})).0,
        "denied_by_rule"
    );
    assert_eq!(
        decide("Bash", json!({"command": "ls", "timeout": 9999})).0,
        "denied_by_rule"
    );
    assert_eq!(
        decide("Bash", json!({"command": "ls"})).0,
        "allowed_by_rule"
    );
}

#[test]
fn each_type_names_what_the_call_gives() {
    refused(
        "Bash",
        json!({"command": "ls", "retries": 2.5}),
        "retries",
        "Bash requires the argument `retries` to be `integer`; the call gives a number with a fractional part",
    );
    refused(
        "Bash",
        json!({"command": null}),
        "command",
        "Bash requires the argument `command` to be `string`; the call gives null",
    );
    refused(
        "copy",
        json!({"paths": ["/a", 3]}),
        "paths",
        "copy requires the argument `paths` to be `array<path>`; the call gives an array holding a number",
    );
    refused(
        "copy",
        json!({"paths": [], "grid": [[1], [2.5]]}),
        "grid",
        "copy requires the argument `grid` to be `array<array<integer>>`; the call gives an array holding an array holding a number with a fractional part",
    );
    refused(
        "copy",
        json!({"paths": [], "flag": "true"}),
        "flag",
        "copy requires the argument `flag` to be `boolean`; the call gives a string",
    );
    refused(
        "copy",
        json!({"paths": [], "opts": [{}]}),
        "opts",
        "copy requires the argument `opts` to be `object`; the call gives an array",
    );
    for ok in [
        json!({"paths": []}),
        json!({"paths": ["/a", "b"], "grid": [[1, 2e0], [], [-0.0]], "flag": true, "opts": {"x": 1}}),
    ] {
        assert_eq!(decide("copy", ok.clone()).0, "allowed_by_rule", "{ok}");
    }
}

#[test]
fn types_are_checked_after_permissions_and_required_arguments_in_declaration_order() {
    let e = engine();
    let d = e.decide(&Request::new("none", "Bash").args(json!({"command": 5})));
    assert_eq!(d.reason.as_str(), "permission_missing");
    let (reason, argument, _) = decide("Bash", json!({"timeout": "x"}));
    assert_eq!(
        (reason.as_str(), argument.as_deref()),
        ("missing_argument", Some("command"))
    );
    let (reason, argument, _) = decide("Bash", json!({"command": 1, "timeout": "x"}));
    assert_eq!(
        (reason.as_str(), argument.as_deref()),
        ("invalid_argument", Some("command"))
    );
}

#[test]
fn no_rule_runs_on_a_wrongly_typed_argument() {
    let e = engine();
    let d = e.decide_explained(&Request::new("a", "Bash").args(json!({"command": ["rm -rf /"]})));
    assert_eq!(d.reason.as_str(), "invalid_argument");
    let e = d.explanation.unwrap();
    assert!(e.rules.is_empty() && e.default.is_none(), "{e:?}");
}

#[test]
fn invalid_argument_is_a_reason_tests_may_expect() {
    let text = format!(
        "{POLICY}test \"t\" {{\n  deny a Bash {{ command: {{ \"0\": \"rm -rf /\" }} }} invalid_argument\n}}\n"
    );
    let mut sources = toolgate::source::SourceMap::new();
    sources.add("t.policy", text);
    let (engine, policy, _) = toolgate::load::engine_from_sources(sources).unwrap();
    let report = toolgate::testing::run_tests(&policy, &engine);
    assert_eq!((report.passed, report.failed), (1, 0));
}

#[test]
fn every_reason_is_in_the_reference_table() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/language.md")).unwrap();
    for r in toolgate::Reason::ALL {
        let row = format!("| `{}` | {} |", r.as_str(), r.effect().as_str());
        assert!(
            doc.contains(&row),
            "docs/language.md section 11 lacks {row}"
        );
    }
}
