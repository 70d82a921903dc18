//! `toolgate fmt` and `toolgate fmt --check`: exit codes, and `--check` changes nothing (the
//! formatter itself is tested in the library's tests/fmt.rs).

use std::path::Path;

#[test]
fn cli_check_reports_and_fixes() {
    let dir = tempfile::TempDir::new().unwrap();
    let p = dir.path().join("a.policy");
    std::fs::write(&p, "agent a{default allow}\n").unwrap();
    let out = assert_cmd::Command::cargo_bin("toolgate")
        .unwrap()
        .args(["fmt", "--check"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("not formatted"));
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        "agent a{default allow}\n",
        "--check changes nothing"
    );
    let out = assert_cmd::Command::cargo_bin("toolgate")
        .unwrap()
        .arg("fmt")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        "agent a {\n  default allow\n}\n"
    );
    let out = assert_cmd::Command::cargo_bin("toolgate")
        .unwrap()
        .args(["fmt", "--check"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let missing = Path::new("/nonexistent/x.policy");
    let out = assert_cmd::Command::cargo_bin("toolgate")
        .unwrap()
        .arg("fmt")
        .arg(missing)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
