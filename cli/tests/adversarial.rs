//! Adversarial suites through the command line: hostile request lines through `toolgate eval`,
//! hostile paths through `eval`, and hostile policies and bundles through `toolgate check` and
//! `eval`. The library's side is tests/adversarial.rs.
//!
//! What is pinned here:
//! - paths are normalized lexically only: `..`, `//`, `/./` and a trailing `/` are resolved;
//!   percent-encoding (`%2e%2e`, `%2f`), Unicode look-alikes (U+2024 ONE DOT LEADER, U+FF0F
//!   FULLWIDTH SOLIDUS, U+2215 DIVISION SLASH), backslashes and decomposed accents are NOT
//!   decoded: they are ordinary characters of a segment;
//! - values that cannot be read as an absolute path fail closed (never allow, always deny);
//! - every non-blank request line gets exactly one answer, in order; limits give `bad_request`;
//! - no policy text makes the checker, compiler or test runner panic.

use assert_cmd::Command;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use toolgate::source::SourceMap;
use toolgate::Request;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn toolgate() -> Command {
    let mut cmd = Command::cargo_bin("toolgate").expect("the toolgate binary is built");
    cmd.env("NO_COLOR", "1");
    // Relative paths are the repository's, as they are for the library's tests.
    cmd.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    cmd
}

fn example() -> PathBuf {
    root().join("policies/example.policy")
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

/// The same path cases through the binary: one JSON line each, answered in order.
#[test]
fn hostile_paths_through_eval() {
    let cases = dir_cases();
    let mut input = String::new();
    for (i, (v, _, _)) in cases.iter().enumerate() {
        for agent in ["allow_dir", "deny_dir"] {
            input.push_str(
                &json!({"agent": agent, "tool": "t", "args": {"p": v}, "tool_use_id": format!("{agent}-{i}")})
                    .to_string(),
            );
            input.push('\n');
        }
    }
    let out = toolgate()
        .args(["eval", PATHS, "--request", "-"])
        .current_dir(root())
        .write_stdin(input)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let answers: Vec<Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), cases.len() * 2);
    for (i, (_, allowed, denied)) in cases.iter().enumerate() {
        let a = &answers[2 * i];
        let d = &answers[2 * i + 1];
        assert_eq!(a["tool_use_id"], format!("allow_dir-{i}"));
        assert_eq!(d["tool_use_id"], format!("deny_dir-{i}"));
        assert_eq!(a["decision"] == "allow", *allowed, "case {i}: {a}");
        assert_eq!(d["reason"] == "denied_by_rule", *denied, "case {i}: {d}");
    }
}

// ---------------------------------------------------------------------------------------
// hostile requests through `toolgate eval`

fn eval_stdin(input: impl Into<Vec<u8>>) -> Vec<Value> {
    let out = toolgate()
        .arg("eval")
        .arg(example())
        .args(["--request", "-"])
        .write_stdin(input.into())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    parse_answers(&out)
}

fn eval_file(bytes: &[u8]) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("requests.jsonl");
    std::fs::write(&file, bytes).unwrap();
    let out = toolgate()
        .arg("eval")
        .arg(example())
        .arg("--request")
        .arg(&file)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    parse_answers(&out)
}

fn parse_answers(out: &[u8]) -> Vec<Value> {
    let text = std::str::from_utf8(out).expect("answers are UTF-8");
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "answers end with a newline"
    );
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn short(v: &Value) -> (String, String, Value) {
    (
        v["decision"].as_str().unwrap().to_string(),
        v["reason"].as_str().unwrap().to_string(),
        v["tool_use_id"].clone(),
    )
}

/// tests/adversarial/hostile.jsonl: invalid UTF-8, lone surrogates (escaped and raw),
/// duplicate keys, 1e400, non-objects, blank and CRLF lines, trailing data, a final line
/// without a newline. Each non-blank line has one expected answer.
#[test]
fn hostile_request_lines_get_one_answer_each_in_order() {
    let bytes = std::fs::read(root().join("tests/adversarial/hostile.jsonl")).unwrap();
    assert!(
        !bytes.ends_with(b"\n"),
        "the fixture's last line has no newline"
    );
    let expected: Vec<Value> =
        std::fs::read_to_string(root().join("tests/adversarial/hostile.expected.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
    let non_blank = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .count();
    assert_eq!(expected.len(), non_blank);
    for (how, answers) in [
        ("stdin", eval_stdin(bytes.clone())),
        ("file", eval_file(&bytes)),
    ] {
        assert_eq!(answers.len(), expected.len(), "{how}: one answer per line");
        for (i, (got, want)) in answers.iter().zip(&expected).enumerate() {
            assert_eq!(
                short(got),
                (
                    want["decision"].as_str().unwrap().to_string(),
                    want["reason"].as_str().unwrap().to_string(),
                    want["tool_use_id"].clone()
                ),
                "{how}: answer {i}: {got}"
            );
            for key in [
                "decision",
                "reason",
                "permission",
                "argument",
                "message",
                "rule",
                "tool_use_id",
            ] {
                assert!(got.get(key).is_some(), "{how}: answer {i} lacks {key}");
            }
        }
    }
}

fn bash(extra: &str, id: &str) -> String {
    format!(
        r#"{{"agent":"code-assistant","tool":"Bash","args":{{"command":"npm run x"{extra}}},"tool_use_id":"{id}"}}"#
    )
}

#[test]
fn nesting_limit_is_a_bad_request_and_nothing_overflows() {
    // The request object is level 1, `args` level 2; 127 levels pass, 128 are refused.
    let nested = |levels: usize| {
        let k = levels - 2;
        bash(
            &format!(r#","x":{}{}"#, "[".repeat(k), "]".repeat(k)),
            &format!("d{levels}"),
        )
    };
    let objects = |levels: usize| {
        bash(
            &format!(
                r#","x":{}1{}"#,
                r#"{"a":"#.repeat(levels),
                "}".repeat(levels)
            ),
            &format!("o{levels}"),
        )
    };
    let input = [
        nested(127),
        nested(128),
        nested(129),
        nested(100_000),
        objects(100_000),
        "[".repeat(500_000),
        "{\"a\":".repeat(200_000),
        bash("", "after"),
    ]
    .join("\n");
    let answers = eval_stdin(input);
    let got: Vec<(String, String, Value)> = answers.iter().map(short).collect();
    let bad = |id: Value| ("deny".to_string(), "bad_request".to_string(), id);
    assert_eq!(
        got,
        vec![
            ("allow".into(), "allowed_by_rule".into(), json!("d127")),
            bad(Value::Null),
            bad(Value::Null),
            bad(Value::Null),
            bad(Value::Null),
            bad(Value::Null),
            bad(Value::Null),
            ("allow".into(), "allowed_by_rule".into(), json!("after")),
        ]
    );
}

/// A line over the limit is answered with its length, however long it is (eval keeps only
/// the first MiB of it in memory); a whitespace-only line of any length is skipped.
#[test]
fn an_over_limit_line_is_answered_with_its_length_and_blank_lines_of_any_length_are_skipped() {
    let huge = bash(&format!(r#","pad":"{}""#, "a".repeat(9 << 20)), "huge");
    let blank = " \t".repeat(3 << 20);
    let input = format!("{huge}\r\n{blank}\n{}\n", bash("", "next"));
    let answers = eval_stdin(input);
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(answers[0]["reason"], "bad_request");
    assert_eq!(
        answers[0]["message"],
        format!(
            "bad request: request is {} bytes; the limit is {}",
            huge.len(),
            toolgate::engine::request::MAX_REQUEST_BYTES
        )
    );
    assert_eq!(answers[1]["tool_use_id"], "next");
}

#[test]
fn huge_lines_are_bad_requests_and_the_next_line_is_answered() {
    let huge = bash(&format!(r#","pad":"{}""#, "a".repeat(5 << 20)), "huge");
    let huge_ws = format!("{}{}", " ".repeat(2 << 20), bash("", "ws"));
    let input = format!("{huge}\n{huge_ws}\n{}\n", bash("", "next"));
    let got: Vec<_> = eval_stdin(input).iter().map(short).collect();
    assert_eq!(
        got,
        vec![
            ("deny".into(), "bad_request".into(), Value::Null),
            ("deny".into(), "bad_request".into(), Value::Null),
            ("allow".into(), "allowed_by_rule".into(), json!("next")),
        ]
    );
}

/// A request of exactly `MAX_REQUEST_BYTES` bytes.
fn request_of_exactly_the_limit() -> String {
    let base = bash(r#","pad":"""#, "limit");
    let pad = toolgate::engine::request::MAX_REQUEST_BYTES - base.len();
    let r = bash(&format!(r#","pad":"{}""#, "a".repeat(pad)), "limit");
    assert_eq!(r.len(), toolgate::engine::request::MAX_REQUEST_BYTES);
    r
}

#[test]
fn a_request_of_exactly_the_limit_is_answered_as_a_file_or_a_last_line() {
    let r = request_of_exactly_the_limit();
    let ok = vec![(
        "allow".to_string(),
        "allowed_by_rule".to_string(),
        json!("limit"),
    )];
    let as_file: Vec<_> = eval_file(format!("{r}\n").as_bytes())
        .iter()
        .map(short)
        .collect();
    assert_eq!(as_file, ok);
    let last_line: Vec<_> = eval_stdin(r.clone()).iter().map(short).collect();
    assert_eq!(last_line, ok);
    // One byte more is refused.
    let over = r.replacen(r#""pad":""#, r#""pad":"a"#, 1);
    let got: Vec<_> = eval_file(over.as_bytes()).iter().map(short).collect();
    assert_eq!(got[0].1, "bad_request");
}

/// docs/language.md section 15: the limit is 1 MiB per request. On stdin the line terminator
/// is not part of the request, so a request of exactly the limit is answered whether a
/// newline or CRLF follows it.
#[test]
fn a_request_of_exactly_the_limit_is_answered_on_stdin_with_a_newline() {
    let r = request_of_exactly_the_limit();
    for ending in ["\n", "\r\n"] {
        let got: Vec<_> = eval_stdin(format!("{r}{ending}"))
            .iter()
            .map(short)
            .collect();
        assert_eq!(
            got,
            vec![(
                "allow".to_string(),
                "allowed_by_rule".to_string(),
                json!("limit")
            )],
            "ending {ending:?}"
        );
    }
}

#[test]
fn huge_and_odd_numbers() {
    let cases = [
        (r#","timeout":1e400"#, "bad_request"),
        (r#","timeout":-1e400"#, "bad_request"),
        (r#","timeout":1e309"#, "bad_request"),
        (r#","timeout":1e308"#, "no_matching_rule"),
        (r#","timeout":-1e308"#, "allowed_by_rule"),
        (r#","timeout":1e-400"#, "allowed_by_rule"),
        (
            r#","timeout":123456789012345678901234567890"#,
            "no_matching_rule",
        ),
        (
            r#","timeout":-123456789012345678901234567890"#,
            "allowed_by_rule",
        ),
        (r#","timeout":18446744073709551615"#, "no_matching_rule"),
        (r#","timeout":-9223372036854775808"#, "allowed_by_rule"),
        (r#","timeout":600.0"#, "allowed_by_rule"),
        (r#","timeout":6e2"#, "allowed_by_rule"),
        (r#","timeout":-0"#, "allowed_by_rule"),
        (r#","timeout":0600"#, "bad_request"),
        (r#","timeout":NaN"#, "bad_request"),
        (r#","timeout":Infinity"#, "bad_request"),
        (r#","timeout":+1"#, "bad_request"),
        (r#","timeout":.5"#, "bad_request"),
    ];
    let input: Vec<String> = cases
        .iter()
        .enumerate()
        .map(|(i, (extra, _))| bash(extra, &format!("n{i}")))
        .collect();
    let answers = eval_stdin(input.join("\n"));
    assert_eq!(answers.len(), cases.len());
    for (i, ((extra, reason), a)) in cases.iter().zip(&answers).enumerate() {
        assert_eq!(a["reason"], *reason, "case {i} {extra}: {a}");
    }
}

#[test]
fn crlf_blank_lines_and_a_missing_final_newline() {
    let lines = [
        bash("", "a"),
        String::new(),
        "   ".into(),
        "\t".into(),
        bash(r#","command":"x""#, "dup"),
        bash(",\"timeout\":601", "b"),
    ];
    let lf = lines.join("\n");
    let crlf = lines.join("\r\n");
    let expected = vec![
        (
            "allow".to_string(),
            "allowed_by_rule".to_string(),
            json!("a"),
        ),
        ("deny".into(), "bad_request".into(), Value::Null),
        ("deny".into(), "no_matching_rule".into(), json!("b")),
    ];
    for input in [
        lf.clone(),
        crlf.clone(),
        format!("{lf}\n"),
        format!("{crlf}\r\n"),
        format!("\n\n{lf}\n\n"),
    ] {
        let got: Vec<_> = eval_stdin(input.clone()).iter().map(short).collect();
        assert_eq!(got, expected, "{input:?}");
        let got: Vec<_> = eval_file(input.as_bytes()).iter().map(short).collect();
        assert_eq!(got, expected, "file {input:?}");
    }
    // Nothing but blank lines: no answer at all.
    assert!(eval_stdin("\n \r\n\t\n").is_empty());
    assert!(eval_stdin("").is_empty());
}

/// Thousands of lines, a mix of good, malformed and blank: one answer per non-blank line, in
/// order (each good line's `tool_use_id` comes back at its position).
#[test]
fn many_lines_keep_their_order() {
    let mut input = Vec::new();
    let mut expected = Vec::new();
    for i in 0..4000 {
        match i % 7 {
            0 => input.extend_from_slice(b"\n"),
            1 => {
                input.extend_from_slice(b"{\"agent\": \xff}\n");
                expected.push(Value::Null);
            }
            2 => {
                input.extend_from_slice(
                    format!("{}\r\n", bash(",\"timeout\":\"x\"", &i.to_string())).as_bytes(),
                );
                expected.push(json!(i.to_string()));
            }
            3 => {
                input.extend_from_slice(b"[1,2,3]\n");
                expected.push(Value::Null);
            }
            _ => {
                input.extend_from_slice(format!("{}\n", bash("", &i.to_string())).as_bytes());
                expected.push(json!(i.to_string()));
            }
        }
    }
    let answers = eval_stdin(input.clone());
    let ids: Vec<Value> = answers.iter().map(|a| a["tool_use_id"].clone()).collect();
    assert_eq!(ids, expected);
    let answers = eval_file(&input);
    let ids: Vec<Value> = answers.iter().map(|a| a["tool_use_id"].clone()).collect();
    assert_eq!(ids, expected);
}

#[test]
fn tool_result_format_keeps_one_result_per_line() {
    let bytes = std::fs::read(root().join("tests/adversarial/hostile.jsonl")).unwrap();
    let out = toolgate()
        .arg("eval")
        .arg(example())
        .args(["--request", "-", "--format", "tool-result"])
        .write_stdin(bytes)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let results = parse_answers(&out);
    assert_eq!(results.len(), 33);
    for r in &results {
        assert_eq!(r["type"], "tool_result");
        assert!(r["is_error"].is_boolean());
        assert!(r["content"].is_string());
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

/// The binary, on a sample of mutated policies and raw bytes (including invalid UTF-8):
/// exit 0, 1 or 2 with a report, never a panic or a signal.
#[test]
fn check_binary_survives_mutated_policies() {
    let texts = corpus_texts();
    let dir = tempfile::tempdir().unwrap();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let tokens: [&[u8]; 8] = [
        b"{",
        b"}",
        b"\"",
        b"\xff\xfe",
        b" where ",
        b"**",
        b"\\",
        b"\n",
    ];
    for i in 0..40 {
        let base = texts[next() as usize % texts.len()].as_bytes();
        let edits: Vec<(usize, u8, Vec<u8>)> = (0..1 + next() % 4)
            .map(|_| {
                (
                    next() as usize,
                    next() as u8,
                    tokens[next() as usize % tokens.len()].to_vec(),
                )
            })
            .collect();
        let bytes = mutate(base, &edits);
        let file = dir.path().join(format!("m{i}.policy"));
        std::fs::write(&file, &bytes).unwrap();
        for sub in ["check", "test"] {
            let out = toolgate().arg(sub).arg(&file).output().unwrap();
            let code = out.status.code();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                matches!(code, Some(0..=2)),
                "{sub} {}: exit {code:?}\n{stderr}",
                file.display()
            );
            assert!(!stderr.contains("panicked"), "{sub}: {stderr}");
            if std::str::from_utf8(&bytes).is_err() {
                assert_eq!(
                    code,
                    Some(2),
                    "{sub}: a policy that is not UTF-8 is an I/O error"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// hostile bundles

fn compile_bundle(dir: &Path) -> Vec<u8> {
    let out = dir.join("example.bundle");
    toolgate()
        .arg("compile")
        .arg(example())
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    std::fs::read(&out).unwrap()
}

/// A payload sealed in a valid envelope (magic, version, flags, length, SHA-256), so that the
/// decoder itself is reached.
fn seal(payload: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    let mut out = Vec::new();
    out.extend_from_slice(toolgate::bundle::MAGIC);
    out.extend_from_slice(&toolgate::bundle::FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&sha2::Sha256::digest(payload));
    out.extend_from_slice(payload);
    out
}

/// `eval` on a bundle file: exit 0 with one answer per request, or exit 1 with a coded error
/// and no answer; never a panic.
fn eval_bundle(dir: &Path, name: &str, bytes: &[u8]) -> (i32, Vec<Value>, String) {
    let file = dir.join(name);
    std::fs::write(&file, bytes).unwrap();
    let out = toolgate()
        .arg("eval")
        .arg(&file)
        .args(["--request", "-"])
        .write_stdin(std::fs::read(root().join("tests/adversarial/hostile.jsonl")).unwrap())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    let code = out.status.code().expect("exited, not killed by a signal");
    (code, parse_answers(&out.stdout), stderr)
}

#[test]
fn a_bundle_answers_hostile_lines_like_its_source() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = compile_bundle(dir.path());
    let (code, from_bundle, _) = eval_bundle(dir.path(), "good.bundle", &bundle);
    assert_eq!(code, 0);
    let from_source =
        eval_stdin(std::fs::read(root().join("tests/adversarial/hostile.jsonl")).unwrap());
    assert_eq!(from_bundle, from_source);
}

#[test]
fn corrupt_bundles_are_refused_with_a_code() {
    let dir = tempfile::tempdir().unwrap();
    let good = compile_bundle(dir.path());
    let mut cases: Vec<(String, Vec<u8>, &str)> = vec![
        ("magic only".into(), b"TOOLGATE".to_vec(), "malformed"),
        ("header only".into(), good[..56].to_vec(), "truncated"),
        (
            "one byte short".into(),
            good[..good.len() - 1].to_vec(),
            "truncated",
        ),
        (
            "one byte more".into(),
            [good.as_slice(), b"\0"].concat(),
            "truncated",
        ),
        ("payload sealed twice".into(), seal(&good), "malformed"),
        ("empty payload".into(), seal(b""), "malformed"),
    ];
    for (at, code) in [
        (8, "version_mismatch"),
        (12, "unsupported_flags"),
        (16, "truncated"),
        (30, "checksum_mismatch"),
    ] {
        let mut b = good.clone();
        b[at] ^= 0x40;
        cases.push((format!("byte {at} flipped"), b, code));
    }
    let mut b = good.clone();
    let last = b.len() - 1;
    b[last] ^= 1;
    cases.push(("last payload byte flipped".into(), b, "checksum_mismatch"));
    for (i, (what, bytes, code)) in cases.iter().enumerate() {
        let (exit, answers, stderr) = eval_bundle(dir.path(), &format!("bad{i}.bundle"), bytes);
        assert_eq!(exit, 1, "{what}: {stderr}");
        assert!(
            answers.is_empty(),
            "{what}: a refused bundle answers nothing"
        );
        assert!(
            stderr.contains(&format!("toolgate::bundle::{code}")),
            "{what}: expected {code}: {stderr}"
        );
    }
}

/// Checksum-valid payloads with corrupted contents reach the decoder: each must load (and then
/// decide without failing) or be refused with a coded error.
#[test]
fn resealed_corrupt_payloads_never_crash() {
    let dir = tempfile::tempdir().unwrap();
    let good = compile_bundle(dir.path());
    let payload = &good[56..];
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut loaded = 0;
    for i in 0..300 {
        let mut p = payload.to_vec();
        match i % 4 {
            0 => {
                let at = next() as usize % p.len();
                p[at] ^= 1 << (next() % 8);
            }
            1 => {
                let at = next() as usize % p.len();
                p[at] = [0x00, 0xff, 0x7f, 0x80][next() as usize % 4];
            }
            2 => p.truncate(next() as usize % p.len()),
            _ => {
                let at = next() as usize % p.len();
                let n = 1 + next() as usize % 8;
                p.splice(at..at, std::iter::repeat_n(0xffu8, n));
            }
        }
        match toolgate::Engine::from_bundle(&seal(&p)) {
            Ok(engine) => {
                loaded += 1;
                for agent in ["code-assistant", "reviewer", "shell-helper", "sandboxed"] {
                    for tool in ["Bash", "read_file", "git_log", "query"] {
                        let d = engine.decide(
                            &Request::new(agent, tool)
                                .args(json!({"command": "npm run x", "path": "/etc/hosts", "repo_path": "/srv/review/a"})),
                        );
                        assert_ne!(
                            d.reason.as_str(),
                            "internal_error",
                            "mutation {i}: a loaded bundle failed"
                        );
                    }
                }
            }
            Err(e) => assert!(e.code().starts_with("toolgate::bundle::"), "{e}"),
        }
    }
    // Most single-byte changes of the payload must be caught by validation or decoding, but some
    // (a byte inside a message string) legitimately still load.
    assert!(loaded < 300, "every corrupted payload loaded");
}

// ---------------------------------------------------------------------------------------
// inputs found by fuzzing (tests/regressions/fuzz/)

/// Found by the `differential` fuzzer (twice). When a syntax error is reported right after a
/// `"`, the error reporter looks for the opening quote and checks whether `re` precedes it by
/// slicing two bytes back (src/syntax/error.rs); when the quote follows a character of three
/// or more bytes, that slice falls inside the character and `check` panics (exit 101).
/// Realistic trigger: a comment such as `# policy —"quoted"` followed by a bad line.
/// Minimal inputs: `# —"x"` + newline + `!`, and `tool \u{FEFF}"x" !`.
#[test]
fn a_multibyte_character_before_a_quote_at_a_syntax_error_is_a_diagnostic() {
    let dir = root().join("tests/regressions/fuzz");
    for name in [
        "parse-emdash-quote-in-comment.policy-bytes",
        "parse-bom-before-string.policy-bytes",
        "differential-crash-0c15fc79.bin",
        "differential-crash-aa4e2657.bin",
    ] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        let policy = text.split('\0').next().unwrap();
        let caught = std::panic::catch_unwind(|| check_text(policy));
        assert!(caught.is_ok(), "{name}: the checker panicked");
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("bom.policy");
        std::fs::write(&file, policy.as_bytes()).unwrap();
        let out = toolgate().arg("check").arg(&file).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(1),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
