//! `toolgate check --format json|sarif` on the lint fixtures (`tests/lints/<name>.policy`):
//! each defect on its line, and the rules' metadata in SARIF. The lints themselves are tested
//! in the library's tests/lints.rs.

use assert_cmd::Command;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use toolgate::diagnostic::Severity;
use toolgate::lint::registry::{self, LINTS};

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Lines (1-based) marked `# lint: <name>`.
fn marked(text: &str, name: &str) -> BTreeSet<usize> {
    let marker = format!("# lint: {name}");
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.contains(&marker))
        .map(|(i, _)| i + 1)
        .collect()
}

// ---------------------------------------------------------------------------------------------
// output formats

fn toolgate() -> Command {
    let mut cmd = Command::cargo_bin("toolgate").expect("the binary is built");
    cmd.env("NO_COLOR", "1");
    // Relative paths are the repository's, as they are for the library's tests.
    cmd.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    cmd
}

fn run_check(format: &str, path: &Path) -> (i32, Value) {
    let out = toolgate()
        .args(["check", "--format", format])
        .arg(path)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    (out.status.code().unwrap_or(-1), v)
}

#[test]
fn json_reports_each_defect_on_its_line() {
    let path = root().join("tests/lints/redundant_allow.policy");
    let text = std::fs::read_to_string(&path).unwrap();
    let (code, v) = run_check("json", &path);
    assert_eq!(code, 0, "warnings only");
    let lines: BTreeSet<usize> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
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
                assert!(d.get(k).is_some(), "{k} missing in {d}");
            }
            assert_eq!(d["code"], "toolgate::redundant_allow");
            d["line"].as_u64().unwrap() as usize
        })
        .collect();
    assert_eq!(lines, marked(&text, "redundant_allow"));
    let out = toolgate()
        .args(["check", "--deny-warnings"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn sarif_carries_the_rules_metadata() {
    let path = root().join("tests/lints/unreachable_rule.policy");
    let (_, v) = run_check("sarif", &path);
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    for lint in LINTS {
        let r = rules
            .iter()
            .find(|r| r["id"] == lint.code)
            .expect("every lint is described");
        assert_eq!(r["name"], lint.name);
        assert_eq!(r["shortDescription"]["text"], lint.summary);
        assert!(r["fullDescription"]["text"].as_str().unwrap().len() > 20);
        assert!(r["help"]["markdown"]
            .as_str()
            .unwrap()
            .contains("## Why is this bad?"));
        assert!(r["helpUri"]
            .as_str()
            .unwrap()
            .ends_with(&format!("lints.md#{}", lint.name)));
        let level = if lint.severity == Severity::Error {
            "error"
        } else {
            "warning"
        };
        assert_eq!(r["defaultConfiguration"]["level"], level);
    }
    for (code, _, _) in registry::OTHER_CODES {
        assert!(rules.iter().any(|r| r["id"] == *code), "{code}");
    }
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    for res in results {
        let idx = res["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[idx]["id"], res["ruleId"]);
        assert_eq!(res["ruleId"], "toolgate::unreachable_rule");
        assert_eq!(res["level"], "warning");
        let uri = res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap();
        assert!(
            uri.starts_with("file:///") && uri.ends_with("unreachable_rule.policy"),
            "{uri}"
        );
    }
    let lines: BTreeSet<u64> = results
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["region"]["startLine"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(lines, [9, 10, 13].into_iter().collect());
}
