//! `toolgate diff`: end-to-end tests of the command on the shipped policies and edited copies
//! (the semantic difference itself is property-tested in the library's tests/diff.rs).

use assert_cmd::Command;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------------
// The command

fn toolgate() -> Command {
    let mut cmd = Command::cargo_bin("toolgate").expect("the toolgate binary is built");
    cmd.env("NO_COLOR", "1");
    // Relative paths are the repository's, as they are for the library's tests.
    cmd.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    cmd
}

fn shipped(name: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .join("policies")
        .join(name)
}

/// A copy of a shipped policy with one text replaced (the text must occur).
fn edited(dir: &Path, name: &str, from: &str, to: &str) -> PathBuf {
    let text = std::fs::read_to_string(shipped(name)).unwrap();
    assert!(text.contains(from), "{from:?} is not in {name}");
    let path = dir.join(name);
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    path
}

#[test]
fn identical_shipped_policies_print_nothing() {
    for name in [
        "example.policy",
        "hermes.policy",
        "steerholm.policy",
        "agent-lattice.policy",
    ] {
        let dir = tempfile::tempdir().unwrap();
        // The same text under another file name, reformatted by the toolgate formatter.
        let copy = dir.path().join("renamed.policy");
        std::fs::copy(shipped(name), &copy).unwrap();
        toolgate().arg("fmt").arg(&copy).assert().success();
        let out = toolgate()
            .args(["diff", "--fail-on", "any"])
            .arg(shipped(name))
            .arg(&copy)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            out.stdout.is_empty(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

#[test]
fn a_folder_equals_its_files_merged() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(shipped("hermes.policy"), dir.path().join("a.policy")).unwrap();
    toolgate()
        .args(["diff", "--fail-on", "any"])
        .arg(shipped("hermes.policy"))
        .arg(dir.path())
        .assert()
        .code(0)
        .stdout("");
}

#[test]
fn a_widening_edit_fails_the_widen_gate_with_a_witness() {
    let dir = tempfile::tempdir().unwrap();
    let new = edited(
        dir.path(),
        "example.policy",
        "\"/srv/review/**\"",
        "\"/srv/**\"",
    );
    let out = toolgate()
        .args(["diff", "--fail-on", "widen"])
        .arg(shipped("example.policy"))
        .arg(&new)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("reviewer git.git_log: widened"), "{text}");
    // The witness line is a request `toolgate eval` decides: denied by the old policy,
    // allowed by the new one.
    let witness = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("widened: "))
        .expect("a witness line");
    let req = dir.path().join("req.json");
    std::fs::write(&req, witness).unwrap();
    for (policy, expect) in [(shipped("example.policy"), "deny"), (new.clone(), "allow")] {
        let out = toolgate()
            .arg("eval")
            .arg(&policy)
            .arg("--request")
            .arg(&req)
            .output()
            .unwrap();
        let d: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(d["decision"], expect, "{witness}");
    }
    // Without --fail-on, the same difference exits 0.
    toolgate()
        .arg("diff")
        .arg(shipped("example.policy"))
        .arg(&new)
        .assert()
        .code(0);
}

#[test]
fn a_narrowing_edit_passes_the_widen_gate() {
    let dir = tempfile::tempdir().unwrap();
    let new = edited(
        dir.path(),
        "example.policy",
        "\"/srv/review/**\"",
        "\"/srv/review/a/**\"",
    );
    let out = toolgate()
        .args(["diff", "--fail-on", "widen"])
        .arg(shipped("example.policy"))
        .arg(&new)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("reviewer git.git_log: narrowed"), "{text}");
    assert!(!text.contains("widened"), "{text}");
    toolgate()
        .args(["diff", "--fail-on", "any"])
        .arg(shipped("example.policy"))
        .arg(&new)
        .assert()
        .code(1);
}

/// The witness line of a direction in `toolgate diff` text output, as JSON.
fn witness_line(text: &str, direction: &str) -> Value {
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix(&format!("{direction}: ")))
        .unwrap_or_else(|| panic!("no {direction} witness in {text}"));
    serde_json::from_str(line).unwrap()
}

#[test]
fn a_number_argument_made_integer_narrows_with_a_fractional_witness() {
    let dir = tempfile::tempdir().unwrap();
    // The shipped policy declares `timeout?: integer`; the old one said `number`.
    let old = edited(
        dir.path(),
        "typed.policy",
        "timeout?: integer",
        "timeout?: number",
    );
    // Shell patterns are only sampled, which the widen gate counts as a possible widening:
    // no gate here.
    let out = toolgate()
        .arg("diff")
        .arg(&old)
        .arg(shipped("typed.policy"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("typed-builder typed-ci.run: narrowed"),
        "{text}"
    );
    assert!(!text.contains("widened"), "{text}");
    let w = witness_line(&text, "narrowed");
    let timeout = w["args"]["timeout"].as_f64().unwrap();
    assert_ne!(timeout.fract(), 0.0, "{w}");
    assert!(text.contains("new: deny (invalid_argument)"), "{text}");
    // The other way round, the same request is a widening.
    let out = toolgate()
        .args(["diff", "--fail-on", "widen"])
        .arg(shipped("typed.policy"))
        .arg(&old)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("typed-builder typed-ci.run: widened"),
        "{text}"
    );
    assert_eq!(witness_line(&text, "widened")["args"], w["args"], "{text}");
}

#[test]
fn typing_an_untyped_argument_narrows() {
    let dir = tempfile::tempdir().unwrap();
    let new = edited(
        dir.path(),
        "example.policy",
        "tool Bash(command, timeout?)",
        "tool Bash(command: string, timeout?: number)",
    );
    let out = toolgate()
        .arg("diff")
        .arg(shipped("example.policy"))
        .arg(&new)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("code-assistant Bash: narrowed"), "{text}");
    assert!(!text.contains("widened"), "{text}");
    let w = witness_line(&text, "narrowed");
    let args = w["args"].as_object().unwrap();
    assert!(
        !args["command"].is_string() || args.get("timeout").is_some_and(|t| !t.is_number()),
        "{w}"
    );
    assert!(text.contains("new: deny (invalid_argument)"), "{text}");
}

#[test]
fn json_output_has_stable_keys() {
    let dir = tempfile::tempdir().unwrap();
    let new = edited(
        dir.path(),
        "hermes.policy",
        "\nagent ",
        "\nagent extra {\n  grant *\n  default allow\n}\nagent ",
    );
    let out = toolgate()
        .args(["diff", "--format", "json"])
        .arg(shipped("hermes.policy"))
        .arg(&new)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["compared", "differences"]);
    let diffs = v["differences"].as_array().unwrap();
    assert!(!diffs.is_empty());
    for d in diffs {
        let keys: Vec<&str> = d.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "agent",
                "change",
                "server",
                "tool",
                "undecided",
                "witnesses"
            ]
        );
        assert_eq!(d["agent"], "extra");
        assert_eq!(d["change"], "widened");
        for w in d["witnesses"].as_array().unwrap() {
            let keys: Vec<&str> = w.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(keys, ["direction", "new", "old", "request"]);
            assert_eq!(w["old"]["reason"], "unknown_agent");
            assert_eq!(w["new"]["decision"], "allow");
            let side: Vec<&str> = w["new"]
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(side, ["decision", "message", "reason", "rule"]);
        }
    }
    // Equivalent policies: an empty list.
    let out = toolgate()
        .args(["diff", "--format", "json"])
        .arg(shipped("hermes.policy"))
        .arg(shipped("hermes.policy"))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["differences"], json!([]));
}

/// `toolgate compile` of `policy` into `dir`.
fn compiled(dir: &Path, policy: &Path, name: &str) -> PathBuf {
    let bundle = dir.join(name);
    toolgate()
        .arg("compile")
        .arg(policy)
        .arg("-o")
        .arg(&bundle)
        .assert()
        .success();
    bundle
}

#[test]
fn a_bundle_does_not_differ_from_its_source() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["example.policy", "hermes.policy"] {
        let bundle = compiled(dir.path(), &shipped(name), &format!("{name}.bundle"));
        for (old, new) in [
            (shipped(name), bundle.clone()),
            (bundle.clone(), shipped(name)),
        ] {
            let out = toolgate().arg("diff").arg(&old).arg(&new).output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{name}");
            assert_eq!(String::from_utf8_lossy(&out.stdout), "", "{name}");
        }
    }
}

#[test]
fn a_bundle_of_an_edited_copy_differs_as_the_copy_does() {
    let dir = tempfile::tempdir().unwrap();
    let copy = edited(
        dir.path(),
        "example.policy",
        "\"/srv/review/**\"",
        "\"/srv/**\"",
    );
    let bundle = compiled(dir.path(), &copy, "copy.bundle");
    let run = |new: &Path| {
        toolgate()
            .args(["diff", "--format", "json", "--fail-on", "widen"])
            .arg(shipped("example.policy"))
            .arg(new)
            .output()
            .unwrap()
    };
    let (from_source, from_bundle) = (run(&copy), run(&bundle));
    assert_eq!(from_source.status.code(), Some(1));
    assert_eq!(from_bundle.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&from_source.stdout).unwrap();
    assert!(!v["differences"].as_array().unwrap().is_empty());
    // The same pairs, witnesses and decisions, down to the rule locations (the bundle
    // records the copy's file, lines and columns).
    assert_eq!(
        String::from_utf8_lossy(&from_source.stdout),
        String::from_utf8_lossy(&from_bundle.stdout)
    );
}

#[test]
fn missing_paths_are_usage_errors() {
    toolgate()
        .arg("diff")
        .arg(Path::new("no/such/missing.policy"))
        .arg(shipped("hermes.policy"))
        .assert()
        .code(2);
}

#[test]
fn an_undecided_pair_fails_the_widen_gate() {
    // A narrowing edit, but with a budget too small to decide it: fail closed.
    let dir = tempfile::tempdir().unwrap();
    let new = edited(
        dir.path(),
        "example.policy",
        "\"/srv/review/**\"",
        "\"/srv/review/a/**\"",
    );
    let out = toolgate()
        .args(["diff", "--fail-on", "widen", "--max-candidates", "1"])
        .arg(shipped("example.policy"))
        .arg(&new)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("undecided: gave up after 1 of "), "{text}");
    assert!(!text.contains("widened"), "{text}");
}

#[test]
fn policies_without_a_catalog_are_compared_by_name_region() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.policy");
    let new = dir.path().join("new.policy");
    std::fs::write(
        &old,
        "agent a {\n  grant fs:read\n  allow read_* where path matches \"/srv/**\"\n}\n",
    )
    .unwrap();
    std::fs::write(
        &new,
        "agent a {\n  grant fs:*\n  allow read_* where path matches \"/srv/**\"\n}\n",
    )
    .unwrap();
    let out = toolgate()
        .args(["diff", "--format", "json"])
        .arg(&old)
        .arg(&new)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let diffs = v["differences"].as_array().unwrap();
    assert!(!diffs.is_empty());
    for d in diffs {
        assert_eq!(d["change"], "widened");
        assert_eq!(d["undecided"], Value::Null);
        let w = &d["witnesses"][0];
        // A permission `fs:*` covers and `fs:read` does not, on a tool `read_*` matches.
        assert!(w["request"]["tool"].as_str().unwrap().starts_with("read_"));
        let perms = w["request"]["permissions"].as_array().unwrap();
        assert!(perms[0].as_str().unwrap().starts_with("fs:") && perms[0] != "fs:read");
        assert_eq!(w["old"]["reason"], "permission_missing");
    }
}

#[test]
fn a_pair_no_call_can_reach_is_decided_exactly() {
    // `a` lacks the permission `t` needs in both policies, and `b` too before it is removed:
    // no call reaches the shell conditions (which are only sampled), so nothing differs.
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.policy");
    let new = dir.path().join("new.policy");
    std::fs::write(
        &old,
        "tool t(cmd) needs proc:exec\nagent a {\n  allow t where cmd matches shell \"ls ...\"\n}\nagent b {\n  grant fs:read\n  allow t where cmd matches shell \"ls ...\"\n}\n",
    )
    .unwrap();
    std::fs::write(
        &new,
        "tool t(cmd) needs proc:exec\nagent a {\n  allow t where cmd matches shell \"git ...\"\n}\n",
    )
    .unwrap();
    for budget in [None, Some("1")] {
        let mut cmd = toolgate();
        cmd.args(["diff", "--fail-on", "widen"]);
        if let Some(n) = budget {
            cmd.args(["--max-candidates", n]);
        }
        let out = cmd.arg(&old).arg(&new).output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(0), "{text}");
        assert_eq!(text, "");
    }
    // Granted in the new policy, the same edit is a real difference again.
    std::fs::write(
        &new,
        "tool t(cmd) needs proc:exec\nagent a {\n  grant proc:exec\n  allow t where cmd matches shell \"git ...\"\n}\n",
    )
    .unwrap();
    let out = toolgate()
        .args(["diff", "--fail-on", "widen"])
        .arg(&old)
        .arg(&new)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("widened: "), "{text}");
}

#[test]
fn text_witnesses_escape_control_characters() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.policy");
    let new = dir.path().join("new.policy");
    std::fs::write(&old, "tool t(cmd)\nagent a {\n}\n").unwrap();
    std::fs::write(
        &new,
        "tool t(cmd)\nagent a {\n  allow t where cmd matches re\"^\\x{9b}2J\\x7f\\x1b\\u{202e}\"\n}\n",
    )
    .unwrap();
    let out = toolgate().arg("diff").arg(&old).arg(&new).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        !text
            .chars()
            .any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'),
        "{text:?}"
    );
    let witness = witness_line(&text, "widened");
    assert_eq!(
        witness["args"]["cmd"], "\u{9b}2J\u{7f}\u{1b}\u{202e}",
        "{text}"
    );
    assert!(text.contains(r"\u009b2J\u007f\u001b\u202e"), "{text}");
}
