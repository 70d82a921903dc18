//! No input makes toolgate panic: arbitrary text and mutated real policies through the parser,
//! resolver and compiler; arbitrary request lines through the engine. Each must end in a
//! diagnostic, a compiled engine, or a decision.

use proptest::prelude::*;
use toolgate::source::SourceMap;

const EXAMPLE: &str = include_str!("../policies/example.policy");

fn compile(text: &str) {
    let mut sources = SourceMap::new();
    sources.add("fuzz.policy", text);
    if let Ok((engine, policy, _)) = toolgate::load::engine_from_sources(sources) {
        let _ = toolgate::testing::run_tests(&policy, &engine);
    }
}

fn mutate(base: &str, edits: &[(usize, u8, String)]) -> String {
    let mut bytes = base.as_bytes().to_vec();
    for (at, kind, text) in edits {
        let at = at % (bytes.len() + 1);
        match kind % 3 {
            0 => {
                bytes.splice(at..at, text.bytes());
            }
            1 => {
                let end = (at + text.len()).min(bytes.len());
                bytes.drain(at..end);
            }
            _ => {
                let end = (at + text.len()).min(bytes.len());
                bytes.splice(at..end, text.bytes());
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("{".to_string()),
        Just("}".to_string()),
        Just("\"".to_string()),
        Just("re\"".to_string()),
        Just("\\".to_string()),
        Just("(".to_string()),
        Just("[".to_string()),
        Just(" where ".to_string()),
        Just(" and ".to_string()),
        Just("**".to_string()),
        Just("*:read".to_string()),
        Just("\n".to_string()),
        Just("#".to_string()),
        "[ -~]{0,6}",
        ".{0,4}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,300}") {
        compile(&text);
    }

    #[test]
    fn mutated_example_never_panics(edits in proptest::collection::vec((any::<usize>(), any::<u8>(), token()), 1..6)) {
        compile(&mutate(EXAMPLE, &edits));
    }

    #[test]
    fn arbitrary_request_lines_are_answered(line in ".{0,200}") {
        let engine = toolgate::load::engine_from_str("example.policy", EXAMPLE).unwrap();
        let d = engine.decide_json(&line, true);
        prop_assert!(serde_json::to_string(&d).is_ok());
    }

    #[test]
    fn arbitrary_json_requests_are_answered(
        agent in prop_oneof![Just("code-assistant".to_string()), Just("reviewer".to_string()), ".{0,8}"],
        tool in prop_oneof![Just("git_log".to_string()), Just("Bash".to_string()), ".{0,8}"],
        value in prop_oneof![Just(serde_json::json!(null)), Just(serde_json::json!([["/a"], {"x": 1}])), any::<f64>().prop_map(|f| serde_json::json!(f)), ".{0,20}".prop_map(serde_json::Value::from)],
    ) {
        let engine = toolgate::load::engine_from_str("example.policy", EXAMPLE).unwrap();
        let req = serde_json::json!({"agent": agent, "tool": tool, "args": {"repo_path": value, "command": value, "timeout": value}});
        let d = engine.decide_json(&req.to_string(), false);
        prop_assert!(d.reason.as_str() != "internal_error");
    }
}

#[test]
fn deep_nesting_is_a_diagnostic_not_a_crash() {
    let text = format!(
        "test \"x\" {{ allow a t {{ p: {}1{} }} }}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let mut sources = SourceMap::new();
    sources.add("deep.policy", text);
    let (_, diags) = toolgate::load::policy_from_sources(sources);
    assert!(diags.iter().any(|d| d.code == "toolgate::limit::nesting"));
}

#[test]
fn deeply_nested_requests_are_bad_requests() {
    let engine = toolgate::load::engine_from_str("example.policy", EXAMPLE).unwrap();
    let line = format!(
        "{{\"agent\": \"reviewer\", \"tool\": \"read_file\", \"args\": {{\"path\": {}1{}}}}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    assert_eq!(
        engine.decide_json(&line, false).reason.as_str(),
        "bad_request"
    );
}

/// Thousands of patterns on one argument: the per-thread matcher state must not grow with
/// patterns × automaton states (it once tried to allocate gigabytes and aborted).
#[test]
fn many_patterns_on_one_argument_decide_without_blowing_up() {
    let mut text = String::from("tool t(path)\nagent a {\n");
    for i in 0..3000 {
        text.push_str(&format!(
            "  allow t where path matches \"/data/team{i}/**/*.csv\"\n"
        ));
    }
    text.push_str("}\n");
    let engine = toolgate::load::engine_from_str("deep.policy", &text).unwrap();
    let decide = |p: &str| {
        engine.decide(&toolgate::Request::new("a", "t").args(serde_json::json!({ "path": p })))
    };
    let d = decide("/data/team1234/x/y.csv");
    assert_eq!(d.reason.as_str(), "allowed_by_rule");
    assert_eq!(d.rule.as_ref().unwrap().line, 1237);
    assert_eq!(
        decide("/data/team99999/y.csv").reason.as_str(),
        "no_matching_rule"
    );
}

/// A newline in a value is an ordinary character for globs (as in globset): it must not let a
/// value slip past a deny.
#[test]
fn newlines_do_not_escape_globs() {
    let engine = toolgate::load::engine_from_str(
        "nl.policy",
        "tool read_file(path)\nagent a {\n  default allow\n  deny read_file where path matches \"/etc/**\"\n  deny read_file where path matches \"secret*\"\n}\n",
    )
    .unwrap();
    for path in ["/etc/a\nb", "/etc/\n", "secret\nx"] {
        let d = engine.decide(
            &toolgate::Request::new("a", "read_file").args(serde_json::json!({ "path": path })),
        );
        assert_eq!(d.reason.as_str(), "denied_by_rule", "{path:?}");
    }
}
