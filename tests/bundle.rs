//! Compiled bundles: every shipped and corpus policy decides the same from its bundle as from
//! source; a bundle written by an earlier build still loads; and damaged bundles are refused
//! with a named error, never a panic and never a half-loaded engine.

use proptest::prelude::*;
use serde_json::json;
use std::path::{Path, PathBuf};
use toolgate::{Engine, Request};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn policies() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["policies", "tests/corpus"] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = entry.unwrap().path();
            if p.extension().is_some_and(|x| x == "policy") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

fn compile(path: &Path) -> Engine {
    let sources = toolgate::load::read_sources(&[path.to_path_buf()]).unwrap();
    toolgate::load::engine_from_sources(sources).unwrap().0
}

/// The same decision, field by field (the explanation aside).
fn same(a: &toolgate::Decision, b: &toolgate::Decision) -> bool {
    serde_json::to_value(a).unwrap() == serde_json::to_value(b).unwrap()
}

#[test]
fn every_policy_decides_the_same_from_its_bundle() {
    for path in policies() {
        let source = compile(&path);
        let loaded = Engine::from_bundle(&source.to_bundle())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(loaded.policy_hash(), source.policy_hash());
        assert_eq!(loaded.test_cases(), source.test_cases());
        let (passed, failures) = toolgate::testing::run_compiled_tests(&loaded);
        assert!(failures.is_empty(), "{}: {failures:?}", path.display());
        assert_eq!(passed, source.test_cases().len());
        for case in source.test_cases() {
            let req = case.request();
            assert!(
                same(&source.decide(&req), &loaded.decide(&req)),
                "{}: {req:?}",
                path.display()
            );
            let explained = (source.decide_explained(&req), loaded.decide_explained(&req));
            assert_eq!(explained.0.explanation, explained.1.explanation);
        }
    }
}

#[test]
fn a_bundle_from_an_earlier_build_still_loads() {
    // Written by `toolgate compile policies/example.policy` with format version 6. If this
    // fails, the bundle format changed: bump bundle::FORMAT_VERSION (old bundles are then
    // refused with a clear message) and regenerate the fixture.
    let bytes = std::fs::read(root().join("tests/fixtures/example-v6.bundle")).unwrap();
    let engine = Engine::from_bundle(&bytes).unwrap();
    let d = engine.decide(
        &Request::new("code-assistant", "git_push")
            .server("git")
            .args(json!({"repo_path": "/x"})),
    );
    assert_eq!(d.reason.as_str(), "permission_missing");
    assert_eq!(d.permission.as_deref(), Some("net:http"));
    let (passed, failures) = toolgate::testing::run_compiled_tests(&engine);
    assert_eq!((passed, failures.len()), (28, 0));
    // The same policy compiled by this build decides every test request the same way. (Its
    // hash may differ: the hash names the compiled program, and a newer compiler may lay
    // the same policy out differently; docs/language.md section 16, item 18.)
    let fresh = compile(Path::new("policies/example.policy"));
    for agent in ["code-assistant", "reviewer", "shell-helper", "sandboxed"] {
        for (tool, server, args) in [
            ("git_push", Some("git"), json!({"repo_path": "/x"})),
            ("git_log", Some("git"), json!({"repo_path": "/srv/repos/a"})),
            ("read_file", None, json!({"path": "/home/bob/.ssh/id_rsa"})),
            (
                "Bash",
                None,
                json!({"command": "npm run test", "timeout": 60}),
            ),
            ("Bash", None, json!({"command": "ls && rm -rf /"})),
        ] {
            let mut req = Request::new(agent, tool).args(args);
            if let Some(s) = server {
                req = req.server(s);
            }
            let (old, new) = (engine.decide(&req), fresh.decide(&req));
            assert_eq!(
                (old.reason, old.rule, old.message),
                (new.reason, new.rule, new.message),
                "{agent} {tool}"
            );
        }
    }
}

#[test]
fn compiling_twice_gives_the_same_hash() {
    let a = compile(Path::new("policies/example.policy"));
    let b = compile(Path::new("policies/example.policy"));
    assert_eq!(a.policy_hash(), b.policy_hash());
    assert_eq!(a.to_bundle(), b.to_bundle());
}

#[test]
fn damaged_bundles_are_refused() {
    let good = compile(&root().join("policies/example.policy")).to_bundle();
    for n in (0..good.len()).step_by(7) {
        assert!(
            Engine::from_bundle(&good[..n]).is_err(),
            "truncated to {n} bytes"
        );
    }
    let mut foreign = b"\x7fELF".to_vec();
    foreign.extend_from_slice(&good[4..]);
    assert_eq!(
        Engine::from_bundle(&foreign).unwrap_err().code(),
        "toolgate::bundle::not_a_bundle"
    );
    let mut newer = good.clone();
    newer[8..12].copy_from_slice(&7u32.to_le_bytes());
    let e = Engine::from_bundle(&newer).unwrap_err();
    assert_eq!(e.code(), "toolgate::bundle::version_mismatch");
    assert!(
        e.to_string().contains("version 7") && e.to_string().contains("reads version 6"),
        "{e}"
    );
    // A bundle of version 5 (whose agents held their grants and candidate rules), one of
    // version 4 (whose tools and rules were stored one record each) and one of version 3
    // (whose literal prefixes had their own DFA) are refused too.
    let mut v5 = good.clone();
    v5[8..12].copy_from_slice(&5u32.to_le_bytes());
    let e = Engine::from_bundle(&v5).unwrap_err();
    assert_eq!(e.code(), "toolgate::bundle::version_mismatch");
    assert!(e.to_string().contains("version 5 is not supported"), "{e}");
    let mut v4 = good.clone();
    v4[8..12].copy_from_slice(&4u32.to_le_bytes());
    let e = Engine::from_bundle(&v4).unwrap_err();
    assert_eq!(e.code(), "toolgate::bundle::version_mismatch");
    assert!(e.to_string().contains("version 4 is not supported"), "{e}");
    let mut v3 = good.clone();
    v3[8..12].copy_from_slice(&3u32.to_le_bytes());
    let e = Engine::from_bundle(&v3).unwrap_err();
    assert_eq!(e.code(), "toolgate::bundle::version_mismatch");
    assert!(e.to_string().contains("version 3 is not supported"), "{e}");
    // A bundle of the previous format (version 2, before declared argument types) is
    // refused the same way: recompiling it is the way forward.
    let mut older = good.clone();
    older[8..12].copy_from_slice(&2u32.to_le_bytes());
    let e = Engine::from_bundle(&older).unwrap_err();
    assert_eq!(e.code(), "toolgate::bundle::version_mismatch");
    assert!(e.to_string().contains("version 2 is not supported"), "{e}");
}

#[test]
fn declared_types_survive_the_bundle() {
    let text = "tool Bash(command: string, timeout?: integer, files?: array<path>)\nagent a { allow Bash }\n";
    let source = toolgate::load::engine_from_str("typed.policy", text).unwrap();
    let loaded = Engine::from_bundle(&source.to_bundle()).unwrap();
    for args in [
        json!({"command": "ls"}),
        json!({"command": {"0": "rm -rf /"}}),
        json!({"command": "ls", "timeout": 2.5}),
        json!({"command": "ls", "timeout": 3}),
        json!({"command": "ls", "files": ["/a", 1]}),
    ] {
        let req = Request::new("a", "Bash").args(args);
        let (a, b) = (source.decide(&req), loaded.decide(&req));
        assert!(same(&a, &b), "{req:?}");
    }
    let d = loaded.decide(&Request::new("a", "Bash").args(json!({"command": ["x"]})));
    assert_eq!(
        (d.reason.as_str(), d.argument.as_deref()),
        ("invalid_argument", Some("command"))
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Flipping any byte of a bundle is caught by the checksum.
    #[test]
    fn any_flipped_byte_is_refused(at in any::<prop::sample::Index>(), bit in 0u8..8) {
        let mut bytes = compile(&root().join("policies/example.policy")).to_bundle();
        let i = at.index(bytes.len());
        bytes[i] ^= 1 << bit;
        prop_assert!(Engine::from_bundle(&bytes).is_err());
    }

    /// Random requests decide the same from source and from the bundle.
    #[test]
    fn random_requests_decide_the_same(
        agent in prop::sample::select(vec!["code-assistant", "reviewer", "shell-helper", "sandboxed", "nobody"]),
        tool in prop::sample::select(vec!["git_log", "git_push", "query", "Bash", "read_file", "fs.write", "nope"]),
        server in prop::option::of(prop::sample::select(vec!["git", "database", "other"])),
        value in prop_oneof![
            Just(json!("/home/user/projects/x")), Just(json!("/home/user/projects/../../etc")),
            Just(json!("npm run build")), Just(json!("rm -rf /")), Just(json!(5)), Just(json!(null)),
            Just(json!(["/srv/review/a", "/srv/other"])), "[ -~]{0,12}".prop_map(serde_json::Value::from),
        ],
    ) {
        let source = compile(&root().join("policies/example.policy"));
        let loaded = Engine::from_bundle(&source.to_bundle()).unwrap();
        let mut req = Request::new(agent, tool).args(json!({
            "repo_path": value, "command": value, "timeout": value, "sql": value, "db": value, "path": value,
        }));
        req.server = server.map(String::from);
        prop_assert!(same(&source.decide(&req), &loaded.decide(&req)));
    }
}
