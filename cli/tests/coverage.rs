//! End-to-end tests of `toolgate test --coverage`: which rules the test blocks exercise, the
//! text and JSON reports, `--min`, bundles, and the shipped policies (docs/review.md).

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}{}", self.stdout, self.stderr))
    }
}

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn toolgate(args: &[&str]) -> Run {
    let out = Command::cargo_bin("toolgate")
        .expect("the toolgate binary is built")
        .env("NO_COLOR", "1")
        .current_dir(root())
        .args(args)
        .output()
        .expect("toolgate runs");
    Run {
        code: out.status.code().expect("toolgate exits normally"),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

fn write(dir: &TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The 1-based line of `text` whose trimmed text starts with `prefix` (exactly one).
fn line_of(text: &str, prefix: &str) -> usize {
    let hits: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with(prefix))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(hits.len(), 1, "`{prefix}` should start exactly one line");
    hits[0]
}

/// A policy whose `bot` has a rule of each kind: an allow with a path condition, an allow and
/// a deny on shell commands, and an allow behind a permission it is never granted.
const BOT: &str = r#"tool read(path)           needs fs:read
tool write(path, content) needs fs:write
tool shell(command)

agent bot {
  grant fs:read
  allow read  where path matches "/srv/**"
  allow shell where command matches shell "ls ..."
  deny  shell where command matches shell "rm ..."
  # toolgate: allow(unreachable_rule)
  allow write
}
"#;

/// `BOT` with one test block holding `expectations`, written to a fresh folder.
fn bot_with(expectations: &str) -> (TempDir, PathBuf) {
    let dir = TempDir::new().unwrap();
    let path = write(
        &dir,
        "bot.policy",
        &format!("{BOT}\ntest \"t\" {{\n{expectations}\n}}\n"),
    );
    (dir, path)
}

fn coverage_json(path: &Path, extra: &[&str]) -> (Run, Value) {
    let p = path.display().to_string();
    let mut args = vec!["test", "--coverage", "--format", "json"];
    args.extend_from_slice(extra);
    args.push(&p);
    let r = toolgate(&args);
    let v = r.json();
    (r, v)
}

/// The JSON entry of the rule whose text is `text`.
fn rule<'v>(report: &'v Value, text: &str) -> &'v Value {
    report["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["text"] == text)
        .unwrap_or_else(|| panic!("no rule `{text}` in {report:#}"))
}

const READ: &str = r#"allow read where path matches "/srv/**""#;
const LS: &str = r#"allow shell where command matches shell "ls ...""#;
const RM: &str = r#"deny shell where command matches shell "rm ...""#;

#[test]
fn an_uncovered_rule_is_listed_with_its_location_and_text() {
    let (_dir, path) = bot_with(r#"  allow bot read { path: "/srv/a" }"#);
    let p = path.display().to_string();
    let r = toolgate(&["test", "--coverage", &p]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let ls_line = line_of(BOT, "allow shell");
    let rm_line = line_of(BOT, "deny  shell");
    assert!(r.stdout.starts_with("1 passed, 0 failed\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains("rule coverage: 1 of 3 rules (33.3%)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("uncovered rules (2):"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains(&format!("  {p}:{ls_line}:3: bot: {LS}\n")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains(&format!("  {p}:{rm_line}:3: bot: {RM}\n")),
        "{}",
        r.stdout
    );
    // The covered rule is not listed; the unreachable one is listed apart, with why.
    assert!(
        !r.stdout.contains(&format!(": bot: {READ}")),
        "{}",
        r.stdout
    );
    let write_line = line_of(BOT, "allow write");
    let unreachable = r
        .stdout
        .split_once("unreachable rules, not counted (1):\n")
        .unwrap_or_else(|| panic!("{}", r.stdout))
        .1;
    assert!(
        unreachable.starts_with(&format!("  {p}:{write_line}:3: bot: allow write\n")),
        "{unreachable}"
    );
    assert!(
        unreachable.contains("`write` needs `fs:write`"),
        "{unreachable}"
    );
}

#[test]
fn a_rule_is_covered_by_a_test_its_decision_names() {
    let (_dir, path) = bot_with(
        r#"  allow bot read  { path: "/srv/a" }
  deny  bot shell { command: "rm -rf /" } denied_by_rule"#,
    );
    let (r, report) = coverage_json(&path, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let read = rule(&report, READ);
    assert_eq!(read["status"], "covered");
    assert_eq!(read["covered_by"]["how"], "decided");
    assert_eq!(read["covered_by"]["test"], "t");
    assert_eq!(read["covered_by"]["condition"], Value::Null);
    let rm = rule(&report, RM);
    assert_eq!(rm["status"], "covered");
    assert_eq!(rm["covered_by"]["how"], "decided");
    assert_eq!(
        rm["covered_by"]["line"],
        line_of(&std::fs::read_to_string(&path).unwrap(), "deny  bot shell")
    );
    // The `ls` allow did not fire and the call was decided by the deny: not covered.
    assert_eq!(rule(&report, LS)["status"], "uncovered");
    assert_eq!(
        (report["covered"].as_u64(), report["total"].as_u64()),
        (Some(2), Some(3))
    );
}

#[test]
fn a_deny_expecting_test_covers_the_allow_whose_condition_failed() {
    let (_dir, path) = bot_with(
        r#"  deny bot read  { path: "/srv/../etc/passwd" } no_matching_rule
  deny bot shell { command: "cat notes" }"#,
    );
    let (r, report) = coverage_json(&path, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let read = rule(&report, READ);
    assert_eq!(read["status"], "covered");
    assert_eq!(read["covered_by"]["how"], "failed_condition");
    assert_eq!(read["covered_by"]["condition"], r#"path matches "/srv/**""#);
    // A deny expectation without a reason counts as well when nothing fired.
    let ls = rule(&report, LS);
    assert_eq!(ls["covered_by"]["how"], "failed_condition");
    assert_eq!(
        ls["covered_by"]["condition"],
        r#"command matches shell "ls ...""#
    );
    // A deny rule that did not fire is not what decided the denial.
    assert_eq!(rule(&report, RM)["status"], "uncovered");
}

#[test]
fn an_allow_expecting_test_does_not_cover_a_deny_that_did_not_fire() {
    let (_dir, path) = bot_with(r#"  allow bot shell { command: "ls -la" } allowed_by_rule"#);
    let (_, report) = coverage_json(&path, &[]);
    assert_eq!(rule(&report, LS)["status"], "covered");
    assert_eq!(rule(&report, RM)["status"], "uncovered");
}

#[test]
fn a_failing_expectation_covers_nothing_and_still_fails_the_run() {
    let (_dir, path) = bot_with(r#"  allow bot read { path: "/etc/passwd" }"#);
    let (r, report) = coverage_json(&path, &["--min", "0"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("toolgate::test_failed"), "{}", r.stderr);
    assert_eq!(report["tests"]["failed"], 1);
    assert_eq!(report["covered"], 0);
    assert_eq!(report["below_min"], false);
}

#[test]
fn min_exits_1_below_the_threshold_and_says_so() {
    // 1 of 3 rules: 33.33...%.
    let (_dir, path) = bot_with(r#"  allow bot read { path: "/srv/a" }"#);
    let p = path.display().to_string();
    for (min, code) in [
        ("33", 0),
        ("33.3", 0),
        ("33.4", 1),
        ("34%", 1),
        ("100", 1),
        ("0", 0),
    ] {
        let r = toolgate(&["test", "--coverage", "--min", min, &p]);
        assert_eq!(r.code, code, "--min {min}: {}{}", r.stdout, r.stderr);
        let said = r.stderr.contains("is below the minimum of");
        assert_eq!(said, code == 1, "--min {min}: {}", r.stderr);
    }
    let r = toolgate(&["test", "--coverage", "--min", "50", &p]);
    assert!(
        r.stderr
            .contains("error: rule coverage 33.3% (1 of 3 rules) is below the minimum of 50%"),
        "{}",
        r.stderr
    );
    let (r, report) = coverage_json(&path, &["--min", "50"]);
    assert_eq!(r.code, 1);
    assert_eq!(
        (report["min"].as_f64(), report["below_min"].as_bool()),
        (Some(50.0), Some(true))
    );
}

#[test]
fn min_is_checked_on_the_exact_share_not_the_rounded_one() {
    // 2 of 3 = 66.66...%: shown 66.6, and 66.65 is met while 66.7 is not.
    let (_dir, path) = bot_with(
        r#"  allow bot read  { path: "/srv/a" }
  allow bot shell { command: "ls" }"#,
    );
    let p = path.display().to_string();
    assert_eq!(
        toolgate(&["test", "--coverage", "--min", "66.65", &p]).code,
        0
    );
    assert_eq!(
        toolgate(&["test", "--coverage", "--min", "66.7", &p]).code,
        1
    );
    assert_eq!(coverage_json(&path, &[]).1["percent"], 66.6);
}

#[test]
fn coverage_options_are_usage_errors_when_misused() {
    let (_dir, path) = bot_with(r#"  allow bot read { path: "/srv/a" }"#);
    let p = path.display().to_string();
    for args in [
        vec!["test", "--min", "50", &p],
        vec!["test", "--format", "json", &p],
        vec!["test", "--coverage", "--min", "101", &p],
        vec!["test", "--coverage", "--min", "-1", &p],
        vec!["test", "--coverage", "--min", "most", &p],
        vec!["test", "--coverage", "--format", "sarif", &p],
    ] {
        let r = toolgate(&args);
        assert_eq!(r.code, 2, "{args:?}: {}{}", r.stdout, r.stderr);
    }
}

#[test]
fn the_json_report_has_the_documented_shape() {
    let (_dir, path) = bot_with(
        r#"  allow bot read  { path: "/srv/a" }
  deny  bot shell { command: "cat x" } no_matching_rule"#,
    );
    let (r, report) = coverage_json(&path, &["--min", "10"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let keys = |v: &Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(
        keys(&report),
        [
            "agents",
            "below_min",
            "covered",
            "min",
            "percent",
            "rules",
            "tests",
            "total",
            "unreachable"
        ]
    );
    assert_eq!(keys(&report["tests"]), ["failed", "passed"]);
    assert_eq!(report["tests"]["passed"], 2);
    let agents = report["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 1);
    assert_eq!(
        keys(&agents[0]),
        ["agent", "covered", "percent", "total", "unreachable"]
    );
    assert_eq!(agents[0]["agent"], "bot");
    assert_eq!(
        (
            &agents[0]["covered"],
            &agents[0]["total"],
            &agents[0]["unreachable"]
        ),
        (&Value::from(2), &Value::from(3), &Value::from(1))
    );
    let rules = report["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 4, "every rule, unreachable ones included");
    for r in rules {
        assert_eq!(
            keys(r),
            [
                "agent",
                "column",
                "covered_by",
                "effect",
                "file",
                "line",
                "status",
                "target",
                "text",
                "unreachable_because"
            ]
        );
        assert_eq!(r["file"], path.display().to_string());
        match r["status"].as_str().unwrap() {
            "covered" => {
                assert_eq!(
                    keys(&r["covered_by"]),
                    ["column", "condition", "file", "how", "line", "test"]
                );
                assert!(r["unreachable_because"].is_null());
            }
            "uncovered" => assert!(r["covered_by"].is_null() && r["unreachable_because"].is_null()),
            "unreachable" => {
                assert!(r["covered_by"].is_null());
                assert!(r["unreachable_because"].is_string());
            }
            other => panic!("unknown status {other}"),
        }
    }
    let write = rule(&report, "allow write");
    assert_eq!(
        (
            &write["status"],
            &write["effect"],
            &write["target"],
            &write["agent"]
        ),
        (
            &Value::from("unreachable"),
            &Value::from("allow"),
            &Value::from("write"),
            &Value::from("bot")
        )
    );
    // Without --min: null and false.
    let (_, plain) = coverage_json(&path, &[]);
    assert_eq!(
        (plain["min"].clone(), plain["below_min"].clone()),
        (Value::Null, Value::Bool(false))
    );
}

#[test]
fn a_bundle_is_covered_like_its_source() {
    let (dir, path) = bot_with(
        r#"  allow bot read  { path: "/srv/a" }
  deny  bot shell { command: "cat x" } no_matching_rule"#,
    );
    let bundle = dir.path().join("bot.bundle");
    let (p, b) = (path.display().to_string(), bundle.display().to_string());
    let compiled = toolgate(&["compile", &p, "-o", &b]);
    assert_eq!(compiled.code, 0, "{}", compiled.stderr);
    let (from_source, from_bundle) = (coverage_json(&path, &[]).1, coverage_json(&bundle, &[]).1);
    assert_eq!(from_source, from_bundle);
    let r = toolgate(&["test", "--coverage", "--min", "100", &b]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains(&format!("{p}:")), "{}", r.stdout);
}

#[test]
fn a_policy_without_rules_is_fully_covered() {
    let dir = TempDir::new().unwrap();
    let path = write(&dir, "p.policy", "tool t\nagent a {\n  default allow\n}\n");
    let (r, report) = coverage_json(&path, &["--min", "100"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        (report["total"].as_u64(), report["percent"].as_f64()),
        (Some(0), Some(100.0))
    );
    assert_eq!(report["agents"], Value::Array(vec![]));
}

#[test]
fn the_shipped_policies_are_fully_covered() {
    let (r, report) = coverage_json(Path::new("policies"), &["--min", "100"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(report["total"].as_u64().unwrap() > 20, "{report:#}");
    assert_eq!(report["covered"], report["total"]);
    // The one rule no call reaches: `sandboxed` shows the permission gate on purpose.
    let example = std::fs::read_to_string(root().join("policies/example.policy")).unwrap();
    let unreachable: Vec<(&Value, &Value)> = report["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "unreachable")
        .map(|r| (&r["file"], &r["line"]))
        .collect();
    assert_eq!(
        unreachable,
        [(
            &Value::from("policies/example.policy"),
            &Value::from(line_of(&example, "allow \"fs.write\""))
        )]
    );
    // Each file alone too.
    for entry in std::fs::read_dir(root().join("policies")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "policy") {
            let p = path.display().to_string();
            let r = toolgate(&["test", "--coverage", "--min", "100", &p]);
            assert_eq!(r.code, 0, "{p}: {}{}", r.stdout, r.stderr);
        }
    }
}

#[test]
fn coverage_finds_the_example_rules_its_last_test_block_exercises() {
    // Without its last test block, example.policy leaves code-assistant's git_commit and
    // database.query rules uncovered: the block exists for them.
    let example = std::fs::read_to_string(root().join("policies/example.policy")).unwrap();
    let last = example.rfind("\ntest \"").unwrap();
    let dir = TempDir::new().unwrap();
    let path = write(&dir, "example.policy", &example[..last + 1]);
    let (r, report) = coverage_json(&path, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let uncovered: Vec<&str> = report["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "uncovered")
        .map(|r| r["target"].as_str().unwrap())
        .collect();
    assert_eq!(uncovered, ["git.git_commit", "database.query"]);
}
