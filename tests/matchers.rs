//! The matchers through the whole engine (their property tests against independent oracles
//! are unit tests of the library, src/program/matchers_tests.rs).

/// Through the whole engine: an allow with a glob admits an array only when every element
/// matches; a deny with the same glob fires when any element does.
#[test]
fn arrays_are_judged_per_effect_through_the_engine() {
    let policy = r#"
        tool t(p)
        agent a { allow t where p matches "x/*" }
        agent d { default allow  deny t where p matches "x/*" }
    "#;
    let engine = toolgate::load::engine_from_str("arrays.policy", policy).unwrap();
    let decide = |agent: &str, p: serde_json::Value| {
        engine
            .decide(&toolgate::Request::new(agent, "t").args(serde_json::json!({ "p": p })))
            .reason
            .as_str()
    };
    assert_eq!(
        decide("a", serde_json::json!(["x/1", "x/2"])),
        "allowed_by_rule"
    );
    assert_eq!(
        decide("a", serde_json::json!(["x/1", "y/2"])),
        "no_matching_rule"
    );
    assert_eq!(
        decide("d", serde_json::json!(["y/1", "x/2"])),
        "denied_by_rule"
    );
    assert_eq!(
        decide("d", serde_json::json!(["y/1", "y/2"])),
        "default_allow"
    );
    assert_eq!(decide("a", serde_json::json!([])), "allowed_by_rule");
    assert_eq!(decide("d", serde_json::json!([])), "default_allow");
}
