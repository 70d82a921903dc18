//! Adversarial suites through the library: hostile paths against path patterns and hostile
//! policies through the checker. Request lines through `toolgate eval` and policies through
//! `toolgate check` are in cli/tests/adversarial.rs.
//!
//! What is pinned here:
//! - paths are normalized lexically only: `..`, `//`, `/./` and a trailing `/` are resolved;
//!   percent-encoding (`%2e%2e`, `%2f`), Unicode look-alikes (U+2024 ONE DOT LEADER, U+FF0F
//!   FULLWIDTH SOLIDUS, U+2215 DIVISION SLASH), backslashes and decomposed accents are NOT
//!   decoded: they are ordinary characters of a segment;
//! - values that cannot be read as an absolute path fail closed (never allow, always deny);
//! - every non-blank request line gets exactly one answer, in order; limits give `bad_request`;
//! - no policy text makes the checker, compiler or test runner panic.

mod reference;

use proptest::prelude::*;
use reference::{Outcome, Reference};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use toolgate::source::SourceMap;
use toolgate::Request;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

// ---------------------------------------------------------------------------------------
// paths

const PATHS: &str = "tests/adversarial/paths.policy";

/// `(value, allowed under "/dir/**", denied by "/dir/**")`. An unreadable value is
/// `(false, true)`: it fails closed both ways.
fn dir_cases() -> Vec<(String, bool, bool)> {
    const IN: (bool, bool) = (true, true);
    const OUT: (bool, bool) = (false, false);
    const UNREADABLE: (bool, bool) = (false, true);
    let mut cases: Vec<(String, (bool, bool))> = vec![
        ("/dir".into(), IN),
        ("/dir/".into(), IN),
        ("/dir/a".into(), IN),
        ("/dir/a/b/c.txt".into(), IN),
        ("/dir/.".into(), IN),
        ("/dir/./".into(), IN),
        ("/dir/a/.".into(), IN),
        ("/dir/a/..".into(), IN),
        ("//dir//a".into(), IN),
        ("///dir".into(), IN),
        ("/./dir/./a".into(), IN),
        ("/x/../dir/a".into(), IN),
        ("/dir/x/../y".into(), IN),
        ("/dir/...".into(), IN),
        ("/dir/.../..".into(), IN),
        ("/dir/..a".into(), IN),
        ("/dir/a..".into(), IN),
        // prefix traps
        ("/dir2".into(), OUT),
        ("/dir2/a".into(), OUT),
        ("/dirx/a".into(), OUT),
        ("/di".into(), OUT),
        ("/dir/../dir2".into(), OUT),
        ("/dir/..".into(), OUT),
        ("/dir/../etc/passwd".into(), OUT),
        ("/dir/a/../../etc".into(), OUT),
        ("/".into(), OUT),
        ("/DIR/a".into(), OUT),
        ("/x/dir/a".into(), OUT),
        ("/...".into(), OUT),
        // climbing above `/`, relative, NUL: unreadable
        ("/..".into(), UNREADABLE),
        ("/../dir/a".into(), UNREADABLE),
        ("/dir/../..".into(), UNREADABLE),
        ("/dir/../../dir/a".into(), UNREADABLE),
        ("/dir/a/../../../dir".into(), UNREADABLE),
        ("dir/a".into(), UNREADABLE),
        ("./dir/a".into(), UNREADABLE),
        ("../dir/a".into(), UNREADABLE),
        ("..".into(), UNREADABLE),
        (".".into(), UNREADABLE),
        ("".into(), UNREADABLE),
        (" /dir/a".into(), UNREADABLE),
        ("~/dir".into(), UNREADABLE),
        ("\\dir\\a".into(), UNREADABLE),
        ("/dir/a\0".into(), UNREADABLE),
        ("/dir/\0/..".into(), UNREADABLE),
        ("\0/dir".into(), UNREADABLE),
        // percent-encoding is not decoded: `%2e%2e` is an ordinary segment
        ("/dir/%2e%2e/%2e%2e/etc".into(), IN),
        ("/dir/%2E%2E".into(), IN),
        ("/dir%2f..%2f..%2fetc".into(), OUT),
        ("/%2e%2e/dir/a".into(), OUT),
        ("/dir/..%2f..%2fetc".into(), IN),
        ("%2fdir%2fa".into(), UNREADABLE),
        // Unicode look-alikes are not folded: U+2024 is not `.`, U+FF0F and U+2215 are not `/`
        ("/dir/\u{2024}\u{2024}/\u{2024}\u{2024}/etc".into(), IN),
        ("/dir/a\u{FF0F}..\u{FF0F}..\u{FF0F}etc".into(), IN),
        ("/dir\u{FF0F}a".into(), OUT),
        ("/dir\u{2215}a".into(), OUT),
        ("\u{FF0F}dir\u{FF0F}a".into(), UNREADABLE),
        ("/dir/\u{FE52}\u{FE52}/x".into(), IN),
        // backslashes are ordinary characters
        ("/dir/..\\..\\etc".into(), IN),
        ("/dir\\..\\x".into(), OUT),
        // long and deep
        (format!("/dir/{}", "a".repeat(200_000)), IN),
        (format!("/dir/{}", "a/".repeat(20_000)), IN),
        (
            format!("/dir/{}{}x", "a/".repeat(5_000), "../".repeat(5_000)),
            IN,
        ),
        (
            format!("/dir/{}{}x", "a/".repeat(5_000), "../".repeat(5_001)),
            OUT,
        ),
        (
            format!("/dir/{}{}x", "a/".repeat(5_000), "../".repeat(5_002)),
            UNREADABLE,
        ),
        (format!("{}/dir/a", "/.".repeat(10_000)), IN),
        (format!("{}dir/a", "/".repeat(10_000)), IN),
        (format!("/{}", "../".repeat(1_000)), UNREADABLE),
    ];
    cases.push(("/dir/a/".repeat(1_000), IN));
    cases.into_iter().map(|(v, (a, d))| (v, a, d)).collect()
}

fn paths_engine() -> (toolgate::Engine, Reference, String) {
    let text = std::fs::read_to_string(root().join(PATHS)).unwrap();
    let engine = toolgate::load::engine_from_str(PATHS, &text).unwrap();
    let reference = Reference::new(&[(PATHS, text.as_str())]);
    (engine, reference, text)
}

fn decide<'e>(
    engine: &'e toolgate::Engine,
    reference: &Reference,
    agent: &str,
    p: Value,
) -> toolgate::Decision<'e> {
    let req = Request::new(agent, "t").args(json!({ "p": p }));
    let d = engine.decide(&req);
    assert_eq!(
        Outcome::of(&d),
        reference.decide(&req),
        "engine vs reference: {agent} {p}"
    );
    d
}

#[test]
fn hostile_paths_against_a_directory_pattern() {
    let (engine, reference, _) = paths_engine();
    for (v, allowed, denied) in dir_cases() {
        let shown: String = v.chars().take(80).collect();
        let a = decide(&engine, &reference, "allow_dir", json!(v));
        assert_eq!(a.is_allowed(), allowed, "allow /dir/** on {shown:?}");
        let d = decide(&engine, &reference, "deny_dir", json!(v));
        assert_eq!(
            d.reason.as_str(),
            if denied {
                "denied_by_rule"
            } else {
                "default_allow"
            },
            "deny /dir/** on {shown:?}"
        );
        // In an array, an allow needs every element and a deny fires on any element.
        let with_inside = json!(["/dir/ok", v]);
        assert_eq!(
            decide(&engine, &reference, "allow_dir", with_inside.clone()).is_allowed(),
            allowed
        );
        assert!(
            !decide(&engine, &reference, "deny_dir", with_inside).is_allowed(),
            "the /dir/ok element alone fires the deny"
        );
        let with_outside = json!(["/elsewhere", [v]]);
        assert!(!decide(&engine, &reference, "allow_dir", with_outside.clone()).is_allowed());
        assert_eq!(
            decide(&engine, &reference, "deny_dir", with_outside).is_allowed(),
            !denied
        );
    }
}

#[test]
fn non_string_values_fail_closed() {
    let (engine, reference, _) = paths_engine();
    for v in [
        json!(5),
        json!(0),
        json!(-1.5),
        json!(true),
        json!(false),
        json!(null),
        json!({}),
        json!({"p": "/dir/a"}),
        json!([null]),
        json!([[["/dir/a", 1]]]),
    ] {
        assert!(
            !decide(&engine, &reference, "allow_dir", v.clone()).is_allowed(),
            "{v}"
        );
        assert_eq!(
            decide(&engine, &reference, "deny_dir", v.clone())
                .reason
                .as_str(),
            "denied_by_rule",
            "{v}"
        );
    }
    // An empty array carries no values: vacuous in an allow, never fires a deny.
    assert!(decide(&engine, &reference, "allow_dir", json!([])).is_allowed());
    assert!(decide(&engine, &reference, "deny_dir", json!([[]])).is_allowed());
}

#[test]
fn hostile_paths_against_a_file_pattern() {
    let (engine, reference, _) = paths_engine();
    let cases: &[(&str, bool, bool)] = &[
        ("/dir/a.txt", true, true),
        ("/dir//a.txt", true, true),
        ("/dir/x/../a.txt", true, true),
        ("/dir/a.txt/", true, true),
        ("/dir/sub/a.txt", false, false),
        ("/dir/a.txt/../../etc/b.txt", false, false),
        ("/dir/a.txt\0", false, true),
        ("/dir/.txt", true, true),
        ("/dir/..txt", true, true),
        ("/dir/a%2ftxt", false, false),
        ("/dir/a\u{FF0F}b.txt", true, true),
        ("/dir", false, false),
        ("dir/a.txt", false, true),
        ("/../dir/a.txt", false, true),
    ];
    for &(v, allowed, denied) in cases {
        assert_eq!(
            decide(&engine, &reference, "allow_file", json!(v)).is_allowed(),
            allowed,
            "allow /dir/*.txt on {v:?}"
        );
        assert_eq!(
            !decide(&engine, &reference, "deny_file", json!(v)).is_allowed(),
            denied,
            "deny /dir/*.txt on {v:?}"
        );
    }
}

#[test]
fn plain_globs_and_unicode_are_matched_literally() {
    let (engine, reference, _) = paths_engine();
    // A plain glob is compared as written: `..` is not resolved (check warns about it).
    for (v, allowed) in [
        ("dir/a", true),
        ("dir/../../etc/passwd", true),
        ("/dir/a", false),
        ("dir", false),
        ("dir/", true),
    ] {
        assert_eq!(
            decide(&engine, &reference, "allow_plain", json!(v)).is_allowed(),
            allowed,
            "{v:?}"
        );
    }
    // No Unicode normalization: a decomposed `é` is another string.
    for (v, allowed) in [
        ("/café/x", true),
        ("/cafe\u{301}/x", false),
        ("/CAFÉ/x", false),
        ("/café", true),
        ("/x/../café/y", true),
    ] {
        assert_eq!(
            decide(&engine, &reference, "allow_cafe", json!(v)).is_allowed(),
            allowed,
            "{v:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// hostile policies

/// Everything `toolgate check`, `eval` and `test` do with a policy, through the library: a
/// diagnostic or success, never a panic.
fn check_text(text: &str) {
    let mut sources = SourceMap::new();
    sources.add("fuzz.policy", text);
    let _ = toolgate::load::check_sources(sources.clone());
    if let Ok((engine, policy, _)) = &toolgate::load::engine_from_sources(sources) {
        let _ = toolgate::testing::run_tests(policy, engine);
        for agent in engine.agent_names().map(String::from).collect::<Vec<_>>() {
            let _ = engine.visible_tools(&agent);
            let _ = engine.decide_json(
                &format!(r#"{{"agent": {}, "tool": "Bash", "args": {{"command": "x", "path": "/a/../b"}}}}"#,
                    serde_json::to_string(&agent).unwrap()),
                true,
            );
        }
    }
}

/// `check_text` for random input.
fn check_random_text(text: &str) {
    check_text(text);
}

fn corpus_texts() -> Vec<String> {
    let mut out = Vec::new();
    for dir in [
        "policies",
        "policies/invalid",
        "tests/corpus",
        "tests/adversarial",
        "tests/regressions",
    ] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "policy"))
            .collect();
        files.sort();
        out.extend(files.iter().map(|f| std::fs::read_to_string(f).unwrap()));
    }
    out
}

fn mutate(base: &[u8], edits: &[(usize, u8, Vec<u8>)]) -> Vec<u8> {
    let mut bytes = base.to_vec();
    for (at, kind, text) in edits {
        let at = at % (bytes.len() + 1);
        let end = (at + text.len().max(1)).min(bytes.len());
        match kind % 4 {
            0 => {
                bytes.splice(at..at, text.iter().copied());
            }
            1 => {
                bytes.drain(at..end);
            }
            2 => {
                bytes.splice(at..end, text.iter().copied());
            }
            _ => {
                // duplicate a slice elsewhere (moves whole statements around)
                let chunk = bytes[at..end].to_vec();
                let to = (at * 7 + text.len()) % (bytes.len() + 1);
                bytes.splice(to..to, chunk);
            }
        }
    }
    bytes
}

fn token() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::sample::select(vec![
            "{",
            "}",
            "\"",
            "re\"",
            "\\",
            "(",
            ")",
            "[",
            "]",
            ",",
            ".",
            "?",
            "*",
            "**",
            "/**",
            " where ",
            " and ",
            " because \"x\"",
            " matches ",
            " contains any [",
            " in [",
            " present",
            " == ",
            " != 5",
            " <= -1e3",
            "\n",
            "#",
            "//",
            "*:read",
            "fs:*",
            "\\u",
            "\\ud800",
            "\\\"",
            "(?=x)",
            "\\1",
            "{a,b",
            "[!",
            "agent a {",
            "server s {",
            "tool t(p?)",
            "test \"t\" {",
            "allow",
            "deny",
            "default allow",
            "grant *",
            "needs x:y",
            "\u{0}",
            "é",
            "\u{FEFF}",
            "\r",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        proptest::collection::vec(any::<u8>(), 0..6),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 250, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_real_policies_never_panic(
        which in any::<proptest::sample::Index>(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), token()), 1..6),
    ) {
        let texts = corpus_texts();
        let base = which.get(&texts);
        let bytes = mutate(base.as_bytes(), &edits);
        check_random_text(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        check_random_text(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn arbitrary_token_soup_never_panics(tokens in proptest::collection::vec(token(), 0..40)) {
        check_random_text(&String::from_utf8_lossy(&tokens.concat()));
    }
}

#[test]
fn hostile_policies_are_diagnosed_not_crashed() {
    let deep = format!(
        "tool t\nagent a {{ allow t }}\ntest \"x\" {{ allow a t {{ p: {}1{} }} }}\n",
        "[".repeat(70),
        "]".repeat(70)
    );
    let many_rules: String = std::iter::once("tool t(p)\nagent a {\n".to_string())
        .chain((0..500).map(|i| format!("  allow t where p matches \"/d{i}/**\"\n")))
        .chain(std::iter::once("}\n".to_string()))
        .collect();
    let cases: Vec<(&str, String, bool)> = vec![
        ("bracket nesting beyond 64", deep, false),
        (
            "regex nesting beyond 100",
            format!(
                "tool t\nagent a {{ allow t where p matches re\"{}a{}\" }}\n",
                "(".repeat(150),
                ")".repeat(150)
            ),
            false,
        ),
        (
            "huge bounded repetition",
            "tool t\nagent a { allow t where p matches re\"\\w{5000}\\w{5000}\" }\n".into(),
            false,
        ),
        (
            "lone surrogate in a string",
            "tool t\nagent a { allow t where p == \"\\ud800\" }\n".into(),
            false,
        ),
        (
            "NUL in the text",
            "tool t\nagent a {\0 allow t }\n".into(),
            false,
        ),
        (
            "NUL escaped in a string",
            "tool t\nagent a { allow t where p == \"\\u0000\" }\n".into(),
            true,
        ),
        (
            "byte-order mark",
            "\u{FEFF}tool t\nagent a { allow t }\n".into(),
            true,
        ),
        (
            "CRLF",
            "tool t(p)\r\nagent a {\r\n  allow t where p matches \"/x/**\"\r\n}\r\n".into(),
            true,
        ),
        ("many rules on one argument", many_rules, true),
        (
            "number overflow",
            "tool t\nagent a { allow t where n < 1e999 }\n".into(),
            false,
        ),
        ("empty file", String::new(), true),
        ("only comments", "# a\n// b\n".into(), true),
        (
            "unterminated string",
            "tool t\nagent a { deny t because \"x }\n".into(),
            false,
        ),
        (
            "unterminated regex",
            "tool t\nagent a { allow t where p matches re\"(a }\n".into(),
            false,
        ),
    ];
    for (what, text, ok) in cases {
        let mut sources = SourceMap::new();
        sources.add("hostile.policy", text.as_str());
        let (_, diags) = toolgate::load::check_sources(sources.clone());
        assert_eq!(!diags.has_errors(), ok, "{what}");
        check_text(&text);
    }
    let mut sources = SourceMap::new();
    sources.add(
        "big.policy",
        format!("# {}\n", "x".repeat(toolgate::load::MAX_FILE_BYTES)),
    );
    let (_, diags) = toolgate::load::check_sources(sources);
    assert!(diags.iter().any(|d| d.code == "toolgate::limit::file_size"));
}
