//! `toolgate matrix`: the command shows real cells of the shipped policies in each format (the
//! classification is tested in the library's tests/matrix.rs).

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------
// the command on the shipped policies

fn toolgate() -> Command {
    let mut cmd = Command::cargo_bin("toolgate").expect("the toolgate binary is built");
    cmd.env("NO_COLOR", "1");
    // Relative paths are the repository's, as they are for the library's tests.
    cmd.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    cmd
}

fn policy_path(name: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .join("policies")
        .join(name)
}

fn matrix_json(args: &[&str]) -> Value {
    let out = toolgate()
        .arg("matrix")
        .args(args)
        .arg("--format")
        .arg("json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn cell<'a>(m: &'a Value, agent: &str, tool: &str) -> &'a Value {
    m["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["agent"] == agent && c["tool"] == tool)
        .unwrap_or_else(|| panic!("no cell {agent} × {tool}"))
}

/// The 1-based line of a shipped policy whose trimmed text starts with `prefix`.
fn line_of(name: &str, prefix: &str) -> usize {
    let text = std::fs::read_to_string(policy_path(name)).unwrap();
    text.lines()
        .position(|l| l.trim_start().starts_with(prefix))
        .map(|i| i + 1)
        .unwrap_or_else(|| panic!("no line starting {prefix:?} in {name}"))
}

#[test]
fn example_cells_in_json() {
    let example = policy_path("example.policy");
    let m = matrix_json(&[example.to_str().unwrap()]);
    assert_eq!(m["catalog"], true);
    assert_eq!(m["agents"].as_array().unwrap().len(), 4);

    let push = cell(&m, "code-assistant", "git.git_push");
    assert_eq!(push["access"], "never");
    assert_eq!(push["reason"], "permission_missing");
    assert_eq!(push["permission"], "net:http");

    let log = cell(&m, "code-assistant", "git.git_log");
    assert_eq!(log["access"], "conditional");
    assert_eq!(
        log["conditions"][0]["arguments"]["repo_path"][0],
        r#"repo_path matches "/home/user/projects/**""#
    );
    assert_eq!(
        log["conditions"][0]["rule"]["line"],
        line_of("example.policy", "allow git.git_log")
    );
    assert_eq!(log["conditions"][0]["rule"]["column"], 3);

    let bash = cell(&m, "code-assistant", "Bash");
    assert_eq!(bash["access"], "conditional");
    let allow = &bash["conditions"][0]["arguments"];
    assert_eq!(allow["command"][0], r#"command matches shell "npm run *""#);
    assert_eq!(allow["timeout"][0], "timeout <= 600");
    let exceptions = bash["exceptions"].as_array().unwrap();
    assert_eq!(exceptions.len(), 3);
    assert_eq!(
        exceptions[2]["rule"]["line"],
        line_of(
            "example.policy",
            "deny  Bash           where command matches shell \"sudo"
        )
    );

    let sh = cell(&m, "shell-helper", "Bash");
    assert_eq!(
        (sh["access"].as_str(), sh["reason"].as_str()),
        (Some("never"), Some("denied_by_rule"))
    );
    assert_eq!(cell(&m, "shell-helper", "read_file")["access"], "always");
    assert_eq!(
        cell(&m, "shell-helper", "read_file")["reason"],
        "default_allow"
    );
    assert_eq!(
        cell(&m, "code-assistant", "read_file")["reason"],
        "no_allow_rule"
    );
    assert_eq!(cell(&m, "sandboxed", "fs.write")["permission"], "fs:write");
    // `allow *` with a condition on `repo_path`: conditional on every tool it reaches.
    assert_eq!(cell(&m, "reviewer", "read_file")["access"], "conditional");
}

#[test]
fn example_grid_in_text() {
    let out = toolgate()
        .arg("matrix")
        .arg(policy_path("example.policy"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let row = |tool: &str| -> Vec<String> {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{tool} ")))
            .unwrap();
        line.split("  ")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect()
    };
    assert_eq!(
        row("tool"),
        [
            "tool",
            "code-assistant",
            "reviewer",
            "shell-helper",
            "sandboxed"
        ]
    );
    let push = row("git.git_push");
    assert_eq!(push[1], "no: net:http");
    assert_eq!(push[3], "yes (default)");
    let bash = row("Bash");
    assert!(bash[1].starts_with("if ["), "{bash:?}");
    assert_eq!(bash[3], "no (denied)");
    // The conditions of the code-assistant's Bash cell, under its reference.
    let reference = bash[1].trim_start_matches("if ").to_string();
    let block = text.split(&format!("\n{reference} ")).nth(1).unwrap();
    assert!(block.starts_with("code-assistant on Bash"), "{block}");
    assert!(block.contains(r#"command matches shell "npm run *" and timeout <= 600"#));
    assert!(block.contains(r#"command matches shell "sudo ...""#));
    assert!(text.contains("legend:"));
}

#[test]
fn agent_filter_and_did_you_mean() {
    let example = policy_path("example.policy");
    let m = matrix_json(&[example.to_str().unwrap(), "--agent", "reviewer"]);
    assert_eq!(m["agents"], serde_json::json!(["reviewer"]));
    assert!(m["cells"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["agent"] == "reviewer"));
    assert_eq!(
        m["cells"].as_array().unwrap().len(),
        m["tools"].as_array().unwrap().len()
    );

    let out = toolgate()
        .args(["matrix", example.to_str().unwrap(), "--agent", "reviewr"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown agent `reviewr`") && err.contains("did you mean `reviewer`?"),
        "{err}"
    );
}

#[test]
fn markdown_table_and_details() {
    let out = toolgate()
        .args(["matrix", "--format", "markdown"])
        .arg(policy_path("example.policy"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("| tool | `code-assistant` | `reviewer` | `shell-helper` | `sandboxed` |"));
    let push = md
        .lines()
        .find(|l| l.starts_with("| `git.git_push` |"))
        .unwrap();
    assert!(push.contains("❌ needs `net:http`"), "{push}");
    assert!(md.contains("#### Conditions"));
    assert!(md.contains(r#"`command matches shell "npm run *"` and `timeout <= 600`"#));
}

#[test]
fn other_shipped_policies() {
    let lattice = matrix_json(&[policy_path("agent-lattice.policy").to_str().unwrap()]);
    let cells = lattice["cells"].as_array().unwrap();
    assert!(!cells.is_empty());
    // A deny-list agent: `default allow` with a conditional deny is conditional.
    let conditional: Vec<&Value> = cells
        .iter()
        .filter(|c| c["access"] == "conditional" && c["default_allow"] == true)
        .collect();
    assert!(!conditional.is_empty());
    assert!(conditional
        .iter()
        .all(|c| !c["exceptions"].as_array().unwrap().is_empty()));

    for name in ["steerholm.policy", "hermes.policy"] {
        let m = matrix_json(&[policy_path(name).to_str().unwrap()]);
        let n = m["agents"].as_array().unwrap().len() * m["tools"].as_array().unwrap().len();
        assert_eq!(m["cells"].as_array().unwrap().len(), n, "{name}");
    }
    let hermes = matrix_json(&[policy_path("hermes.policy").to_str().unwrap()]);
    assert!(hermes["cells"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["reason"] == "permission_missing"));
}

#[test]
fn without_catalog_the_rows_are_named_tools() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.policy");
    std::fs::write(
        &path,
        "agent a {\n  allow read where path matches \"/srv/**\"\n  allow git.log\n}\n",
    )
    .unwrap();
    let m = matrix_json(&[path.to_str().unwrap()]);
    assert_eq!(m["catalog"], false);
    assert_eq!(m["tools"], serde_json::json!(["read", "git.log"]));
    assert_eq!(cell(&m, "a", "git.log")["access"], "always");
    assert_eq!(cell(&m, "a", "read")["access"], "conditional");
    let out = toolgate().arg("matrix").arg(&path).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("declares no tools"));
}

/// The lines of a matrix output but its notes on undeclared arguments, which a bundle
/// cannot back (it does not record optional untyped arguments).
fn without_argument_notes(out: &[u8]) -> String {
    String::from_utf8_lossy(out)
        .lines()
        .filter(|l| !l.contains("note: `"))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn a_bundle_prints_the_matrix_of_its_source() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["example.policy", "hermes.policy"] {
        let bundle = dir.path().join(format!("{name}.bundle"));
        toolgate()
            .args(["compile"])
            .arg(policy_path(name))
            .arg("-o")
            .arg(&bundle)
            .assert()
            .success();
        for format in ["text", "markdown", "json"] {
            let run = |path: &Path| {
                let out = toolgate()
                    .args(["matrix", "--format", format])
                    .arg(path)
                    .output()
                    .unwrap();
                assert_eq!(out.status.code(), Some(0), "{name} {format}");
                out.stdout
            };
            let (source, compiled) = (run(&policy_path(name)), run(&bundle));
            // The same grid, conditions and rule locations (the source's files and lines).
            assert_eq!(
                without_argument_notes(&source),
                without_argument_notes(&compiled),
                "{name} {format}"
            );
            if format == "json" {
                assert_eq!(source, compiled, "{name}");
            }
        }
    }
    // One agent of a bundle.
    let bundle = dir.path().join("example.policy.bundle");
    let out = toolgate()
        .args(["matrix", "--agent", "nobody"])
        .arg(&bundle)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
