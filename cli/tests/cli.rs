//! End-to-end tests of the `toolgate` binary: exit codes, stdout/stderr, and the JSON shapes
//! of SPEC.md ("CLI contract") and LANGUAGE.md sections 7 and 8.

use assert_cmd::Command;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use tempfile::TempDir;

const HERMES_GIT_PUSH: &str =
    "git.git_push requires the \"net:http\" permission, which was not granted.\nRetrying with different arguments will not help";

const DECISION_KEYS: [&str; 7] = [
    "decision",
    "reason",
    "permission",
    "argument",
    "message",
    "rule",
    "tool_use_id",
];

fn toolgate() -> Command {
    let mut cmd = Command::cargo_bin("toolgate").expect("the toolgate binary is built");
    cmd.env("NO_COLOR", "1");
    // Relative paths are the repository's, as they are for the library's tests.
    cmd.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    cmd
}

fn example() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("policies/example.policy")
}

/// The 1-based line of example.policy whose text (trimmed) starts with `prefix`.
fn example_line(prefix: &str) -> usize {
    let text = std::fs::read_to_string(example()).unwrap();
    let hits: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with(prefix))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(
        hits.len(),
        1,
        "`{prefix}` should start exactly one line of example.policy"
    );
    hits[0]
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }

    /// Every non-blank stdout line parsed as JSON.
    fn json_lines(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                serde_json::from_str(l).unwrap_or_else(|e| panic!("line is not JSON ({e}): {l}"))
            })
            .collect()
    }

    fn both(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

fn run(args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut cmd = toolgate();
    cmd.args(args);
    if let Some(input) = stdin {
        cmd.write_stdin(input.to_vec());
    }
    let out = cmd.output().expect("toolgate runs");
    Run {
        code: out
            .status
            .code()
            .expect("toolgate exits normally, not by a signal"),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

fn run_p(args: &[&str], paths: &[&Path], stdin: Option<&[u8]>) -> Run {
    let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    // Insert the paths right after the subcommand.
    for (i, p) in paths.iter().enumerate() {
        all.insert(1 + i, p.display().to_string());
    }
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    run(&refs, stdin)
}

fn write(dir: &TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&path, text).unwrap();
    path
}

fn eval_stdin(policy: &Path, extra: &[&str], stdin: &[u8]) -> Run {
    let mut args = vec!["eval", "--request", "-"];
    args.extend_from_slice(extra);
    run_p(&args, &[policy], Some(stdin))
}

fn assert_decision_shape(d: &Value) {
    let obj = d
        .as_object()
        .unwrap_or_else(|| panic!("a decision is an object: {d}"));
    for k in DECISION_KEYS {
        assert!(obj.contains_key(k), "decision lacks `{k}`: {d}");
    }
    assert!(d["decision"] == "allow" || d["decision"] == "deny", "{d}");
    assert!(d["reason"].is_string(), "{d}");
    assert!(d["message"].is_string(), "{d}");
    if d["reason"] != "permission_missing" {
        assert!(
            d["permission"].is_null(),
            "permission is set only for permission_missing: {d}"
        );
    }
    if d["reason"] != "missing_argument" {
        assert!(
            d["argument"].is_null(),
            "argument is set only for missing_argument: {d}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// check

const CATALOG: &str = "\
server git {
  tool git_log(repo_path, max_count?) needs fs:read
}
tool read_file(path) needs fs:read
";

#[test]
fn check_clean_file_exits_0() {
    let r = run_p(&["check"], &[&example()], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("0 errors"), "{}", r.stderr);
    let r = run_p(&["check", "--format", "json"], &[&example()], None);
    assert_eq!(r.code, 0);
    assert_eq!(r.json(), json!({"diagnostics": []}));
}

#[test]
fn check_syntax_error_exits_1_and_names_the_file() {
    let dir = TempDir::new().unwrap();
    let bad = write(
        &dir,
        "bad.policy",
        "agent a {\n  allow git.git_log where\n}\n",
    );
    let r = run_p(&["check"], &[&bad], None);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("bad.policy"),
        "stderr should name the file:\n{}",
        r.stderr
    );
    assert!(r.stderr.contains("toolgate::syntax"), "{}", r.stderr);
    assert!(
        r.stderr.contains("bad.policy:2:"),
        "stderr should give the line:\n{}",
        r.stderr
    );
}

#[test]
fn check_missing_file_exits_2() {
    let dir = TempDir::new().unwrap();
    let r = run_p(&["check"], &[&dir.path().join("nope.policy")], None);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("nope.policy"), "{}", r.stderr);
    assert!(r.stdout.is_empty());
}

#[test]
fn check_usage_error_exits_2() {
    assert_eq!(run(&["check"], None).code, 2, "no path");
    assert_eq!(
        run_p(&["check", "--format", "xml"], &[&example()], None).code,
        2
    );
    assert_eq!(run(&["frobnicate"], None).code, 2);
}

#[test]
fn check_empty_folder_exits_2() {
    let dir = TempDir::new().unwrap();
    write(&dir, "notes.txt", "not a policy");
    let r = run_p(&["check"], &[dir.path()], None);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn check_folder_merges_files() {
    let dir = TempDir::new().unwrap();
    // The catalog in one file, the agent using it in another: only a merge makes this valid.
    write(&dir, "pol/a_catalog.policy", CATALOG);
    write(
        &dir,
        "pol/b_agents.policy",
        "agent a {\n  grant fs:read\n  allow read_file\n  allow git.git_log\n}\n",
    );
    write(&dir, "pol/README.md", "not a policy, ignored");
    let folder = dir.path().join("pol");
    let r = run_p(&["check"], &[&folder], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("checked 2 files"), "{}", r.stderr);

    // The merged folder is a policy for eval too.
    let req = br#"{"agent": "a", "tool": "read_file", "args": {"path": "/x"}}"#;
    let r = eval_stdin(&folder, &[], req);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let d = &r.json_lines()[0];
    assert_eq!(d["reason"], "allowed_by_rule");
    assert!(
        d["rule"]["file"]
            .as_str()
            .unwrap()
            .ends_with("b_agents.policy"),
        "{d}"
    );
}

#[test]
fn check_folder_duplicate_agent_across_files() {
    let dir = TempDir::new().unwrap();
    write(
        &dir,
        "pol/one.policy",
        &format!("{CATALOG}agent a {{\n  grant fs:read\n}}\n"),
    );
    write(
        &dir,
        "pol/two.policy",
        "agent b {\n}\nagent a {\n  allow read_file\n}\n",
    );
    let folder = dir.path().join("pol");
    let r = run_p(&["check"], &[&folder], None);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("one.policy"),
        "first definition's file named:\n{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("two.policy"),
        "second definition's file named:\n{}",
        r.stderr
    );
    assert!(r.stderr.contains("duplicate_definition"), "{}", r.stderr);

    let r = run_p(&["check", "--format", "json"], &[&folder], None);
    assert_eq!(r.code, 1);
    let diags = r.json()["diagnostics"].as_array().unwrap().clone();
    let dup: Vec<&Value> = diags
        .iter()
        .filter(|d| d["code"] == "toolgate::duplicate_definition")
        .collect();
    assert_eq!(dup.len(), 1, "{diags:?}");
    assert!(dup[0]["file"].as_str().unwrap().ends_with("two.policy"));
    assert_eq!(dup[0]["line"], 3);

    // The same files given one by one are merged the same way.
    let r = run_p(
        &["check"],
        &[&folder.join("one.policy"), &folder.join("two.policy")],
        None,
    );
    assert_eq!(r.code, 1);
}

#[test]
fn check_json_fields() {
    let dir = TempDir::new().unwrap();
    let bad = write(
        &dir,
        "bad.policy",
        "agent a {\n  allow git.git_log where\n}\n",
    );
    let r = run_p(&["check", "--format", "json"], &[&bad], None);
    assert_eq!(r.code, 1);
    let v = r.json();
    let diags = v["diagnostics"].as_array().expect("diagnostics array");
    assert!(!diags.is_empty());
    for d in diags {
        for k in [
            "code",
            "severity",
            "message",
            "help",
            "file",
            "line",
            "column",
            "end_line",
            "end_column",
        ] {
            assert!(d.get(k).is_some(), "diagnostic lacks `{k}`: {d}");
        }
        assert!(d["code"].as_str().unwrap().starts_with("toolgate::"), "{d}");
        for k in ["line", "column", "end_line", "end_column"] {
            assert!(d[k].as_u64().unwrap() >= 1, "{k} is 1-based: {d}");
        }
        assert!(
            (d["end_line"].as_u64(), d["end_column"].as_u64())
                >= (d["line"].as_u64(), d["column"].as_u64()),
            "end is not before start: {d}"
        );
    }
    let d = &diags[0];
    assert_eq!(d["code"], "toolgate::syntax");
    assert_eq!(d["severity"], "error");
    assert!(d["file"].as_str().unwrap().ends_with("bad.policy"));
    assert_eq!(d["line"], 2, "the error is on line 2 (1-based)");
    // `where` is at column 21 of `  allow git.git_log where`.
    assert_eq!(d["column"], 21);
    assert!(d["message"].as_str().unwrap().contains("where"), "{d}");
    assert!(d["help"].is_string(), "{d}");
}

#[test]
fn check_sarif() {
    let dir = TempDir::new().unwrap();
    let bad = write(
        &dir,
        "bad.policy",
        "agent a {\n  allow git.git_log where\n}\n",
    );
    let r = run_p(&["check", "--format", "sarif"], &[&bad], None);
    assert_eq!(r.code, 1);
    let v = r.json();
    assert_eq!(v["version"], "2.1.0");
    let run0 = &v["runs"][0];
    assert_eq!(run0["tool"]["driver"]["name"], "toolgate");
    let results = run0["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for res in results {
        assert!(
            res["ruleId"].as_str().unwrap().starts_with("toolgate::"),
            "{res}"
        );
        assert!(res["message"]["text"].is_string());
        let loc = &res["locations"][0]["physicalLocation"];
        assert!(
            loc["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
                .ends_with("bad.policy"),
            "{res}"
        );
        assert!(loc["region"]["startLine"].as_u64().unwrap() >= 1);
        assert!(loc["region"]["startColumn"].as_u64().unwrap() >= 1);
    }
    assert_eq!(results[0]["ruleId"], "toolgate::syntax");
    assert_eq!(results[0]["level"], "error");
    assert_eq!(
        results[0]["locations"][0]["physicalLocation"]["region"]["startLine"],
        2
    );
    // Each ruleId is described in the driver's rules, and ruleIndex points to it.
    let rules = run0["tool"]["driver"]["rules"].as_array().unwrap();
    for res in results {
        let idx = res["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[idx]["id"], res["ruleId"]);
    }

    // A clean policy is a SARIF log with no results.
    let r = run_p(&["check", "--format", "sarif"], &[&example()], None);
    assert_eq!(r.code, 0);
    assert_eq!(r.json()["runs"][0]["results"], json!([]));
}

#[test]
fn check_deny_warnings() {
    let dir = TempDir::new().unwrap();
    let p = write(
        &dir,
        "warn.policy",
        &format!("{CATALOG}agent a {{\n  grant fs:read\n  allow nosuch_*\n  allow read_file\n}}\n"),
    );
    let r = run_p(&["check", "--format", "json"], &[&p], None);
    assert_eq!(r.code, 0, "a warning alone does not fail: {}", r.stdout);
    let diags = r.json()["diagnostics"].as_array().unwrap().clone();
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0]["code"], "toolgate::target_matches_nothing");
    assert_eq!(diags[0]["severity"], "warning");
    assert_eq!(diags[0]["line"], 7);

    let r = run_p(&["check"], &[&p], None);
    assert_eq!(r.code, 0);
    assert!(r.stderr.contains("1 warning"), "{}", r.stderr);

    let r = run_p(&["check", "--deny-warnings"], &[&p], None);
    assert_eq!(
        r.code, 1,
        "--deny-warnings turns the warning into a failure"
    );
    assert!(r.stderr.contains("target_matches_nothing"), "{}", r.stderr);
    let r = run_p(
        &["check", "--deny-warnings", "--format", "sarif"],
        &[&p],
        None,
    );
    assert_eq!(r.code, 1);
    assert_eq!(r.json()["runs"][0]["results"][0]["level"], "warning");

    // --deny-warnings on a clean policy still passes.
    assert_eq!(
        run_p(&["check", "--deny-warnings"], &[&example()], None).code,
        0
    );
}

fn check_json(text: &str) -> (i32, Vec<Value>) {
    let dir = TempDir::new().unwrap();
    let p = write(&dir, "p.policy", text);
    let r = run_p(&["check", "--format", "json"], &[&p], None);
    let diags = r.json()["diagnostics"].as_array().unwrap().clone();
    (r.code, diags)
}

fn only<'a>(diags: &'a [Value], code: &str) -> &'a Value {
    let hits: Vec<&Value> = diags.iter().filter(|d| d["code"] == code).collect();
    assert_eq!(hits.len(), 1, "want exactly one {code} in {diags:#?}");
    hits[0]
}

#[test]
fn check_wildcard_domain() {
    let (code, diags) = check_json(&format!("{CATALOG}agent a {{\n  grant *:read\n}}\n"));
    assert_eq!(code, 1);
    let d = only(&diags, "toolgate::wildcard_domain");
    assert_eq!(d["severity"], "error");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(6), Some(9))
    );
    assert!(d["help"].as_str().unwrap().contains("domain"), "{d}");
}

#[test]
fn check_unknown_tool_did_you_mean() {
    let (code, diags) = check_json(&format!(
        "{CATALOG}agent a {{\n  grant fs:read\n  allow read_fle\n}}\n"
    ));
    assert_eq!(code, 1);
    let d = only(&diags, "toolgate::unknown_tool");
    assert!(d["message"].as_str().unwrap().contains("read_fle"), "{d}");
    assert!(
        d["help"]
            .as_str()
            .unwrap()
            .contains("did you mean `read_file`"),
        "{d}"
    );
    assert_eq!(d["line"], 7);

    let (code, diags) = check_json(&format!(
        "{CATALOG}agent a {{\n  grant fs:read\n  allow git.git_lgo\n}}\n"
    ));
    assert_eq!(code, 1);
    let d = only(&diags, "toolgate::unknown_tool");
    assert!(d["help"].as_str().unwrap().contains("git_log"), "{d}");
}

#[test]
fn check_invalid_regex_points_into_the_literal() {
    let line = r#"  allow read_file where path matches re"^/srv/(?!secret)""#;
    let (code, diags) = check_json(&format!(
        "{CATALOG}agent a {{\n  grant fs:read\n{line}\n}}\n"
    ));
    assert_eq!(code, 1);
    let d = only(&diags, "toolgate::invalid_regex");
    assert_eq!(d["line"], 7);
    let open = line.find("re\"").unwrap() + 3; // 0-based offset of the first regex character
    let close = line.len() - 1; // 0-based offset of the closing quote
    let col = d["column"].as_u64().unwrap() as usize - 1;
    assert!(
        col >= open && col < close,
        "column {} should be inside the literal {open}..{close}: {d}",
        col + 1
    );
    // It points at the look-around itself, `(?!`.
    assert_eq!(&line[col..col + 3], "(?!", "{d}");
    assert_eq!(d["end_line"], 7);
    assert!(
        (d["end_column"].as_u64().unwrap() as usize - 1) <= close,
        "{d}"
    );
    assert!(
        d["message"].as_str().unwrap().contains("look-around"),
        "{d}"
    );
}

#[test]
fn check_reports_several_errors_in_one_run() {
    let text = format!(
        "{CATALOG}agent a {{\n  grant *:read\n}}\nagent ok {{\n  grant fs:read\n  allow read_file\n}}\nagent b {{\n  grant fs:read\n  allow nosuch\n}}\n"
    );
    let (code, diags) = check_json(&text);
    assert_eq!(code, 1);
    only(&diags, "toolgate::wildcard_domain");
    only(&diags, "toolgate::unknown_tool");
    // Sorted by position.
    let lines: Vec<u64> = diags.iter().map(|d| d["line"].as_u64().unwrap()).collect();
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted);
}

// ---------------------------------------------------------------------------------------------
// eval

fn git_log_req(id: &str) -> Value {
    json!({"agent": "code-assistant", "server": "git", "tool": "git_log",
           "args": {"repo_path": "/home/user/projects/toolgate"}, "tool_use_id": id})
}

fn git_push_req(id: &str) -> Value {
    json!({"agent": "code-assistant", "server": "git", "tool": "git_push",
           "args": {"repo_path": "/home/user/projects/toolgate"}, "tool_use_id": id})
}

#[test]
fn eval_json_lines_from_stdin_in_order() {
    let lines = [
        git_log_req("toolu_01").to_string(),
        String::new(),
        "   \t ".to_string(),
        git_push_req("toolu_02").to_string(),
        json!({"agent": "shell-helper", "tool": "Bash", "args": {"command": "ls"}, "tool_use_id": "toolu_03"}).to_string(),
        "not json".to_string(),
        json!({"agent": "code-assistant", "server": "git", "tool": "git_log", "args": {}, "tool_use_id": "toolu_04"})
            .to_string(),
        String::new(),
    ];
    let input = lines.join("\n");
    let r = eval_stdin(&example(), &[], input.as_bytes());
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out = r.json_lines();
    assert_eq!(out.len(), 5, "5 non-blank lines, 5 answers:\n{}", r.stdout);
    for d in &out {
        assert_decision_shape(d);
    }
    assert_eq!(out[0]["decision"], "allow");
    assert_eq!(out[0]["reason"], "allowed_by_rule");
    assert_eq!(out[0]["tool_use_id"], "toolu_01");

    assert_eq!(out[1]["decision"], "deny");
    assert_eq!(out[1]["reason"], "permission_missing");
    assert_eq!(out[1]["permission"], "net:http");
    assert_eq!(out[1]["message"], HERMES_GIT_PUSH);
    assert_eq!(out[1]["rule"], Value::Null);
    assert_eq!(out[1]["tool_use_id"], "toolu_02");

    assert_eq!(out[2]["reason"], "denied_by_rule");
    assert_eq!(
        out[2]["message"],
        "Shell access is disabled for this session."
    );
    assert_eq!(out[2]["tool_use_id"], "toolu_03");

    assert_eq!(out[3]["decision"], "deny");
    assert_eq!(out[3]["reason"], "bad_request");

    assert_eq!(out[4]["reason"], "missing_argument");
    assert_eq!(out[4]["argument"], "repo_path");
    assert_eq!(out[4]["permission"], Value::Null);
    assert_eq!(out[4]["tool_use_id"], "toolu_04");
}

#[test]
fn eval_exact_hermes_message_for_git_push() {
    let r = eval_stdin(
        &example(),
        &[],
        format!("{}\n", git_push_req("toolu_01")).as_bytes(),
    );
    assert_eq!(r.code, 0);
    let mut out = r.json_lines();
    assert_eq!(out.len(), 1);
    // The policy hash is a SHA-256 in hex; the rest of the decision is fixed.
    let hash = out[0]
        .as_object_mut()
        .unwrap()
        .remove("policy_hash")
        .unwrap();
    assert!(hash
        .as_str()
        .is_some_and(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit())));
    assert_eq!(
        out[0],
        json!({"decision": "deny", "reason": "permission_missing", "permission": "net:http", "argument": null,
               "message": HERMES_GIT_PUSH, "rule": null, "tool_use_id": "toolu_01"})
    );
}

#[test]
fn eval_pretty_printed_request_file_gets_one_answer() {
    let dir = TempDir::new().unwrap();
    let req = write(
        &dir,
        "req.json",
        &serde_json::to_string_pretty(&git_push_req("toolu_01")).unwrap(),
    );
    assert!(std::fs::read_to_string(&req).unwrap().lines().count() > 3);
    let r = run_p(
        &["eval", "--request", req.to_str().unwrap()],
        &[&example()],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out = r.json_lines();
    assert_eq!(out.len(), 1, "{}", r.stdout);
    assert_eq!(out[0]["reason"], "permission_missing");
    assert_eq!(out[0]["message"], HERMES_GIT_PUSH);
    assert_eq!(out[0]["tool_use_id"], "toolu_01");
}

#[test]
fn eval_malformed_pretty_printed_request_gets_one_answer() {
    // One request over several lines, with a duplicate key: it is one (bad) request, and a host
    // pairing answers with requests must get exactly one answer back.
    let dir = TempDir::new().unwrap();
    let req = write(
        &dir,
        "dup.json",
        "{\n  \"agent\": \"reviewer\",\n  \"agent\": \"x\",\n  \"tool\": \"read_file\",\n  \"tool_use_id\": \"toolu_01\"\n}\n",
    );
    let r = run_p(
        &["eval", "--request", req.to_str().unwrap()],
        &[&example()],
        None,
    );
    assert_eq!(r.code, 0);
    let out = r.json_lines();
    assert_eq!(out.len(), 1, "{}", r.stdout);
    assert_eq!(out[0]["reason"], "bad_request");
}

#[test]
fn eval_json_lines_file() {
    let dir = TempDir::new().unwrap();
    let text = format!(
        "{}\n\n{}\n{}\n{}\n",
        git_log_req("a"),
        json!({"agent": "reviewer", "tool": "read_file", "args": {"path": "/etc/hosts"}, "tool_use_id": "b"}),
        "{\"agent\": ",
        json!({"agent": "sandboxed", "tool": "fs.write", "args": {"path": "/tmp/x", "content": ""}, "tool_use_id": "c"}),
    );
    let req = write(&dir, "reqs.jsonl", &text);
    let r = run_p(
        &["eval", "--request", req.to_str().unwrap()],
        &[&example()],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out = r.json_lines();
    assert_eq!(out.len(), 4, "{}", r.stdout);
    let got: Vec<(&str, &str)> = out
        .iter()
        .map(|d| {
            (
                d["reason"].as_str().unwrap(),
                d["tool_use_id"].as_str().unwrap_or("-"),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("allowed_by_rule", "a"),
            ("allowed_by_rule", "b"),
            ("bad_request", "-"),
            ("permission_missing", "c")
        ]
    );
    assert_eq!(out[3]["permission"], "fs:write");
}

#[test]
fn eval_rule_points_to_the_deciding_line() {
    let input = format!(
        "{}\n{}\n",
        git_log_req("a"),
        json!({"agent": "code-assistant", "tool": "Bash", "args": {"command": "npm run build && rm -rf /"}})
    );
    let r = eval_stdin(&example(), &[], input.as_bytes());
    assert_eq!(r.code, 0);
    let out = r.json_lines();
    let rule = &out[0]["rule"];
    assert!(
        rule["file"].as_str().unwrap().ends_with("example.policy"),
        "{rule}"
    );
    assert_eq!(
        rule["line"].as_u64().unwrap() as usize,
        example_line("allow git.git_log")
    );
    assert_eq!(rule["column"], 3);
    assert_eq!(rule["effect"], "allow");
    assert_eq!(rule["agent"], "code-assistant");
    assert_eq!(rule["target"], "git.git_log");

    assert_eq!(out[1]["reason"], "denied_by_rule");
    assert_eq!(
        out[1]["message"],
        "Destructive shell commands are disabled for this session."
    );
    let rule = &out[1]["rule"];
    assert_eq!(
        rule["line"].as_u64().unwrap() as usize,
        example_line("deny  Bash           where command matches shell \"rm")
    );
    assert_eq!(rule["effect"], "deny");
    assert_eq!(rule["target"], "Bash");
}

#[test]
fn eval_other_reasons() {
    let reqs = [
        json!({"agent": "shell-helper", "tool": "read_file", "args": {"path": "/tmp/x"}}),
        json!({"agent": "code-assistant", "tool": "read_file", "args": {"path": "/tmp/x"}}),
        json!({"agent": "code-assistant", "server": "git", "tool": "rebase", "args": {}}),
        json!({"agent": "code-assistant", "tool": "Bash", "args": {"command": "npm run build", "timeout": 601}}),
        json!({"agent": "code-assistant", "tool": "Bash", "args": {"command": "npm run build", "timeout": 600}}),
    ];
    let input: String = reqs.iter().map(|r| format!("{r}\n")).collect();
    let r = eval_stdin(&example(), &[], input.as_bytes());
    assert_eq!(r.code, 0);
    let reasons: Vec<String> = r
        .json_lines()
        .iter()
        .map(|d| d["reason"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        reasons,
        [
            "default_allow",
            "no_matching_rule",
            "unknown_tool",
            "no_matching_rule",
            "allowed_by_rule"
        ]
    );
}

#[test]
fn eval_tool_result_format() {
    let input = format!(
        "{}\n{}\n",
        json!({"agent": "shell-helper", "tool": "Bash", "args": {"command": "ls"}, "tool_use_id": "toolu_03"}),
        git_log_req("toolu_04")
    );
    let r = eval_stdin(&example(), &["--format", "tool-result"], input.as_bytes());
    assert_eq!(r.code, 0);
    let out = r.json_lines();
    assert_eq!(
        out[0],
        json!({"type": "tool_result", "tool_use_id": "toolu_03", "is_error": true,
               "content": "Shell access is disabled for this session."})
    );
    assert_eq!(out[1]["type"], "tool_result");
    assert_eq!(out[1]["tool_use_id"], "toolu_04");
    assert_eq!(out[1]["is_error"], false);
    assert!(out[1]["content"].is_string());
}

#[test]
fn eval_explain() {
    let input = format!(
        "{}\n",
        json!({"agent": "code-assistant", "tool": "Bash", "args": {"command": "rm -rf /"}, "tool_use_id": "t"})
    );
    let r = eval_stdin(&example(), &["--explain"], input.as_bytes());
    assert_eq!(r.code, 0);
    let d = &r.json_lines()[0];
    assert_decision_shape(d);
    assert_eq!(d["reason"], "denied_by_rule");
    let ex = &d["explanation"];
    assert!(ex.is_object(), "--explain adds an explanation: {d}");
    let rules = ex["rules"].as_array().expect("explanation.rules");
    assert_eq!(
        rules.len(),
        4,
        "all four Bash rules of code-assistant are considered: {ex}"
    );
    assert_eq!(rules[0]["rule"]["effect"], "allow");
    assert_eq!(
        rules[0]["rule"]["line"].as_u64().unwrap() as usize,
        example_line("allow Bash")
    );
    assert_eq!(rules[0]["outcome"], "not_fired");
    assert!(
        rules[0]["failed_condition"]
            .as_str()
            .unwrap()
            .contains("command"),
        "{ex}"
    );
    assert_eq!(rules[1]["rule"]["effect"], "deny");
    assert_eq!(rules[1]["outcome"], "fired");
    assert_eq!(rules[2]["outcome"], "not_fired");

    // Without --explain there is no explanation key.
    let r = eval_stdin(&example(), &[], input.as_bytes());
    assert!(r.json_lines()[0].get("explanation").is_none());
}

#[test]
fn eval_bad_requests() {
    let lines: Vec<Vec<u8>> = vec![
        br#"{"agent": "a", "agent": "b", "tool": "read_file"}"#.to_vec(), // duplicate keys
        b"[1, 2, 3]".to_vec(),                                            // not an object
        b"\"code-assistant\"".to_vec(),                                   // not an object
        br#"{"agent": 3, "tool": "read_file", "tool_use_id": "toolu_07"}"#.to_vec(), // agent not a string
        br#"{"agent": "reviewer", "tool_use_id": "toolu_08"}"#.to_vec(),             // no tool
        br#"{"agent": "reviewer", "tool": "read_file", "args": [1], "tool_use_id": "toolu_09"}"#
            .to_vec(), // args not an object
        vec![0xff, 0xfe, b'{', b'}'], // invalid UTF-8
        git_log_req("toolu_10").to_string().into_bytes(), // still answered
    ];
    let input = lines.join(&b'\n');
    let r = eval_stdin(&example(), &[], &input);
    assert_eq!(
        r.code, 0,
        "bad requests are answered, not failures: {}",
        r.stderr
    );
    let out = r.json_lines();
    assert_eq!(out.len(), lines.len(), "{}", r.stdout);
    for (i, d) in out.iter().enumerate().take(lines.len() - 1) {
        assert_decision_shape(d);
        assert_eq!(d["decision"], "deny", "line {i}: {d}");
        assert_eq!(d["reason"], "bad_request", "line {i}: {d}");
    }
    assert!(
        out[0]["message"].as_str().unwrap().contains("duplicate"),
        "{}",
        out[0]
    );
    // A readable tool_use_id is echoed even in a bad_request.
    assert_eq!(out[3]["tool_use_id"], "toolu_07");
    assert_eq!(out[4]["tool_use_id"], "toolu_08");
    assert_eq!(out[5]["tool_use_id"], "toolu_09");
    assert_eq!(out[1]["tool_use_id"], Value::Null);
    assert_eq!(out[7]["reason"], "allowed_by_rule");
    assert_eq!(out[7]["tool_use_id"], "toolu_10");
}

#[test]
fn eval_invalid_utf8_line_is_bad_request() {
    let mut input = Vec::new();
    input.extend_from_slice(b"{\"agent\": \"code-assistant\", \"tool\": \"B\xe4sh\"}\n");
    input.extend_from_slice(git_push_req("after").to_string().as_bytes());
    input.push(b'\n');
    let r = eval_stdin(&example(), &[], &input);
    assert_eq!(r.code, 0);
    let out = r.json_lines();
    assert_eq!(out.len(), 2);
    assert_eq!(out[0]["reason"], "bad_request");
    assert!(
        out[0]["message"].as_str().unwrap().contains("UTF-8"),
        "{}",
        out[0]
    );
    assert_eq!(out[1]["reason"], "permission_missing");
    assert_eq!(out[1]["tool_use_id"], "after");
}

#[test]
fn eval_unknown_agent_is_an_answer() {
    let input = json!({"agent": "nobody", "tool": "read_file", "args": {"path": "/tmp/x"}, "tool_use_id": "x"}).to_string();
    let r = eval_stdin(&example(), &[], input.as_bytes());
    assert_eq!(r.code, 0);
    let d = &r.json_lines()[0];
    assert_decision_shape(d);
    assert_eq!(d["decision"], "deny");
    assert_eq!(d["reason"], "unknown_agent");
    assert_eq!(d["tool_use_id"], "x");
}

#[test]
fn eval_policy_errors_exit_1() {
    let dir = TempDir::new().unwrap();
    let bad = write(
        &dir,
        "bad.policy",
        "agent a {\n  allow git.git_log where\n}\n",
    );
    let r = eval_stdin(&bad, &[], git_log_req("x").to_string().as_bytes());
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.is_empty(),
        "no decision from a broken policy: {}",
        r.stdout
    );
    assert!(r.stderr.contains("bad.policy"), "{}", r.stderr);
    assert!(r.stderr.contains("nothing was loaded"), "{}", r.stderr);
}

#[test]
fn eval_missing_request_file_exits_2() {
    let dir = TempDir::new().unwrap();
    let missing = dir.path().join("nope.json");
    let r = run_p(
        &["eval", "--request", missing.to_str().unwrap()],
        &[&example()],
        None,
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("nope.json"), "{}", r.stderr);
    // A missing policy is a usage/IO error too.
    let r = eval_stdin(&dir.path().join("nope.policy"), &[], b"{}");
    assert_eq!(r.code, 2);
    // And so is a missing --request.
    assert_eq!(run_p(&["eval"], &[&example()], None).code, 2);
}

#[test]
fn eval_empty_input_gives_no_answers() {
    let r = eval_stdin(&example(), &[], b"\n\n  \n");
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, "");
}

// ---------------------------------------------------------------------------------------------
// tools

fn tools(agent: &str, format: &str) -> Run {
    run_p(
        &["tools", "--agent", agent, "--format", format],
        &[&example()],
        None,
    )
}

fn tools_json(agent: &str) -> Vec<(Option<String>, String)> {
    let r = tools(agent, "json");
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.json()
        .as_array()
        .expect("a JSON array")
        .iter()
        .map(|t| {
            (
                t["server"].as_str().map(str::to_string),
                t["tool"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn st(server: Option<&str>, tool: &str) -> (Option<String>, String) {
    (server.map(str::to_string), tool.to_string())
}

#[test]
fn tools_code_assistant() {
    // Granted fs:*, net:sql, proc:exec and allowed by a rule: git_log, git_commit, query, Bash.
    // Not git_push (net:http not granted), not read_file / fs.write (no allow rule targets them).
    assert_eq!(
        tools_json("code-assistant"),
        [
            st(Some("git"), "git_log"),
            st(Some("git"), "git_commit"),
            st(Some("database"), "query"),
            st(None, "Bash")
        ]
    );
    let r = tools("code-assistant", "text");
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout.lines().collect::<Vec<_>>(),
        ["git.git_log", "git.git_commit", "database.query", "Bash"]
    );
    // text is the default format
    let r = run_p(&["tools", "--agent", "code-assistant"], &[&example()], None);
    assert_eq!(
        r.stdout.lines().collect::<Vec<_>>(),
        ["git.git_log", "git.git_commit", "database.query", "Bash"]
    );
}

#[test]
fn tools_reviewer() {
    // Granted fs:read only; `allow *` targets every tool: those needing only fs:read.
    assert_eq!(
        tools_json("reviewer"),
        [st(Some("git"), "git_log"), st(None, "read_file")]
    );
    assert_eq!(
        tools("reviewer", "text").stdout.lines().collect::<Vec<_>>(),
        ["git.git_log", "read_file"]
    );
}

#[test]
fn tools_shell_helper_and_sandboxed() {
    // Everything granted, default allow, Bash removed by an unconditional deny.
    assert_eq!(
        tools_json("shell-helper"),
        [
            st(Some("git"), "git_log"),
            st(Some("git"), "git_commit"),
            st(Some("git"), "git_push"),
            st(Some("database"), "query"),
            st(None, "read_file"),
            st(None, "fs.write"),
        ]
    );
    // Grants nothing: sees nothing (fs.write needs fs:write).
    assert_eq!(tools_json("sandboxed"), []);
    assert_eq!(tools("sandboxed", "text").stdout.trim(), "");
}

#[test]
fn tools_unknown_agent() {
    let r = tools("code-asistant", "json");
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.trim().is_empty(),
        "no list for an unknown agent: {}",
        r.stdout
    );
    assert!(r.stderr.contains("unknown agent"), "{}", r.stderr);
    assert!(
        r.stderr.contains("did you mean `code-assistant`"),
        "{}",
        r.stderr
    );
    let r = tools("zzzzzz", "text");
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("reviewer"),
        "the known agents are listed: {}",
        r.stderr
    );
}

#[test]
fn tools_omits_a_host_tool_no_request_can_reach() {
    // `status` is a host tool and a tool of server `git`: a request naming no server is
    // `ambiguous_tool`, and none can name the host, so the host tool is not listed.
    let dir = TempDir::new().unwrap();
    let policy = write(
        &dir,
        "p.policy",
        "server git { tool status needs fs:read }\ntool status needs fs:read\ntool log needs fs:read\n\
         agent dev {\n  grant fs:read\n  allow *\n}\n",
    );
    let r = run_p(&["tools", "--agent", "dev"], &[&policy], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let listed: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(listed, ["git.status", "log"]);
    let r = eval_stdin(&policy, &[], br#"{"agent": "dev", "tool": "status"}"#);
    assert_eq!(r.json_lines()[0]["reason"], "ambiguous_tool");
}

#[test]
fn tools_policy_errors_and_io() {
    let dir = TempDir::new().unwrap();
    let bad = write(
        &dir,
        "bad.policy",
        "agent a {\n  allow git.git_log where\n}\n",
    );
    assert_eq!(run_p(&["tools", "--agent", "a"], &[&bad], None).code, 1);
    assert_eq!(
        run_p(
            &["tools", "--agent", "a"],
            &[&dir.path().join("nope.policy")],
            None
        )
        .code,
        2
    );
}

// ---------------------------------------------------------------------------------------------
// test

#[test]
fn test_example_passes() {
    let r = run_p(&["test"], &[&example()], None);
    assert_eq!(r.code, 0, "{}", r.both());
    assert!(
        r.stdout.lines().any(|l| l.trim() == "28 passed, 0 failed"),
        "{}",
        r.both()
    );
}

#[test]
fn test_failure_is_reported_with_file_and_line() {
    let dir = TempDir::new().unwrap();
    let p = write(
        &dir,
        "failing.policy",
        r#"tool read_file(path) needs fs:read
agent a {
  grant fs:read
  allow read_file where path matches "/srv/**"
}
test "reads" {
  allow a read_file { path: "/srv/x" }
  allow a read_file { path: "/etc/passwd" }
  deny  a read_file { path: "/etc/passwd" } no_matching_rule
}
"#,
    );
    let r = run_p(&["test"], &[&p], None);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.lines().any(|l| l.trim() == "2 passed, 1 failed"),
        "{}",
        r.both()
    );
    assert!(r.stderr.contains("toolgate::test_failed"), "{}", r.stderr);
    assert!(
        r.stderr.contains("failing.policy:8:"),
        "the failure names file and line 8:\n{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("expected allow, got deny (no_matching_rule)"),
        "{}",
        r.stderr
    );
}

#[test]
fn test_wrong_reason_fails() {
    let dir = TempDir::new().unwrap();
    let p = write(
        &dir,
        "reason.policy",
        "tool read_file(path) needs fs:read\nagent a {\n  grant fs:read\n}\ntest \"t\" {\n  deny a read_file { path: \"/x\" } permission_missing\n}\n",
    );
    let r = run_p(&["test"], &[&p], None);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.lines().any(|l| l.trim() == "0 passed, 1 failed"),
        "{}",
        r.both()
    );
    assert!(r.stderr.contains("reason.policy:6:"), "{}", r.stderr);
}

#[test]
fn test_policy_errors_and_io() {
    let dir = TempDir::new().unwrap();
    let bad = write(
        &dir,
        "bad.policy",
        "agent a {\n  allow git.git_log where\n}\n",
    );
    assert_eq!(run_p(&["test"], &[&bad], None).code, 1);
    assert_eq!(
        run_p(&["test"], &[&dir.path().join("nope.policy")], None).code,
        2
    );
}

/// A host converses with `eval --request -` over a pipe: it sends one request, waits for the
/// answer, then sends the next. Each answer must arrive while stdin is still open.
#[test]
fn eval_answers_each_request_of_a_conversation_before_the_next_arrives() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command as StdCommand, Stdio};
    use std::sync::mpsc;
    use std::time::Duration;

    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("toolgate"))
        .arg("eval")
        .arg(example())
        .args(["--request", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("toolgate starts");
    let mut stdin = child.stdin.take().expect("piped stdin");
    let stdout = child.stdout.take().expect("piped stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    for i in 0..3 {
        let request = json!({
            "agent": "reviewer", "tool": "read_file",
            "args": {"path": "/x"}, "tool_use_id": format!("toolu_{i}"),
        });
        writeln!(stdin, "{request}").expect("request written");
        stdin.flush().expect("request flushed");
        let answer = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("an answer while stdin stays open")
            .expect("a readable line");
        let d: Value = serde_json::from_str(&answer).expect("a JSON decision");
        assert_eq!(d["tool_use_id"], format!("toolu_{i}"));
        assert_eq!(d["reason"], "allowed_by_rule");
    }
    drop(stdin);
    assert!(child.wait().expect("toolgate exits").success());
}

#[cfg(unix)]
#[test]
fn gateway_subcommands_are_handed_to_toolgate_gateway_unchanged() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new().unwrap();
    let fake = dir.path().join("toolgate-gateway");
    std::fs::write(&fake, "#!/bin/sh\nprintf '%s|' \"$@\"\nexit 7\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    for (args, seen) in [
        (
            &["gateway", "--config", "g.toml"][..],
            "gateway|--config|g.toml|",
        ),
        (&["keys", "add", "bot"][..], "keys|add|bot|"),
        (
            &["check", "--against", "g.toml", "p/"][..],
            "check|--against|g.toml|p/|",
        ),
    ] {
        let out = toolgate()
            .env("TOOLGATE_GATEWAY", &fake)
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(7), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), seen);
    }
    // A plain `check` is still toolgate's own.
    let out = toolgate()
        .env("TOOLGATE_GATEWAY", &fake)
        .args(["check", example().to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn gateway_subcommand_without_gateway_executable_is_a_usage_error() {
    let out = toolgate()
        .env("TOOLGATE_GATEWAY", "/nonexistent/toolgate-gateway")
        .args(["serve"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot run"));
}

#[test]
fn many_reports_of_one_lint_are_summarized_outside_check() {
    let dir = TempDir::new().unwrap();
    let mut text = String::from("tool t(p)\nagent a {\n");
    for i in 0..10 {
        text.push_str(&format!("  allow t where p matches \"src{i}/**\"\n"));
    }
    text.push_str("}\n");
    let policy = write(&dir, "many.policy", &text);
    let r = eval_stdin(&policy, &[], b"{\"agent\": \"a\", \"tool\": \"t\"}\n");
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stderr
            .matches("toolgate::relative_glob_in_allow\n")
            .count(),
        3,
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains(
            "... and 7 more `toolgate::relative_glob_in_allow` reports; `toolgate check` prints them all"
        ),
        "{}",
        r.stderr
    );
    // check prints every one.
    let r = run_p(&["check"], &[&policy], None);
    assert_eq!(
        r.stderr
            .matches("toolgate::relative_glob_in_allow\n")
            .count(),
        10
    );
}
