//! Runs the `test` blocks of every policy in `tests/corpus/` and `policies/` through the
//! compiled engine: each file alone, and `policies/` merged as one folder. The corpus pins the
//! semantics of LANGUAGE.md area by area (order of checks, grants, rules, absent arguments,
//! strings, numbers, arrays, globs, paths, catalog-less policies).

use std::path::{Path, PathBuf};
use toolgate::source::SourceMap;

fn policy_files(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "policy"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no policies in {dir}");
    files
}

/// Compiles the files as one policy and runs its tests; returns (passed, rendered failures).
fn run(files: &[PathBuf]) -> (usize, usize, String) {
    let sources = toolgate::load::read_sources(files).expect("readable");
    let (engine, policy, _) = match toolgate::load::engine_from_sources(sources) {
        Ok(x) => x,
        Err(e) => panic!(
            "policy errors:\n{}",
            e.diagnostics.render(&e.sources, false, 100)
        ),
    };
    let report = toolgate::testing::run_tests(&policy, &engine);
    (
        report.passed,
        report.failed,
        report.failures.render(&policy.sources, false, 100),
    )
}

#[test]
fn every_corpus_file_passes_its_tests() {
    let mut total = 0;
    for file in policy_files("tests/corpus") {
        let (passed, failed, failures) = run(std::slice::from_ref(&file));
        assert_eq!(failed, 0, "{}:\n{failures}", file.display());
        assert!(passed > 10, "{} has too few expectations", file.display());
        total += passed;
    }
    assert!(total > 500, "the corpus shrank: {total} expectations");
}

#[test]
fn every_shipped_policy_passes_alone_and_merged() {
    let files = policy_files("policies");
    for file in &files {
        let (passed, failed, failures) = run(std::slice::from_ref(file));
        assert_eq!(failed, 0, "{}:\n{failures}", file.display());
        assert!(passed > 0, "{} has no tests", file.display());
    }
    let (_, failed, failures) = run(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("policies")]);
    assert_eq!(failed, 0, "merged policies/:\n{failures}");
}

#[test]
fn invalid_policies_are_refused() {
    for file in policy_files("policies/invalid") {
        let sources = toolgate::load::read_sources(std::slice::from_ref(&file)).unwrap();
        assert!(
            toolgate::load::engine_from_sources(sources).is_err(),
            "{} compiled",
            file.display()
        );
    }
}

#[test]
fn a_failing_expectation_is_reported_at_its_span() {
    let text = "tool t(p)\nagent a {\n  allow t\n}\ntest \"x\" {\n  allow a t { p: 1 }\n  deny a t { p: 1 } no_matching_rule\n}\n";
    let mut sources = SourceMap::new();
    sources.add("f.policy", text);
    let (engine, policy, _) = toolgate::load::engine_from_sources(sources).unwrap();
    let report = toolgate::testing::run_tests(&policy, &engine);
    assert_eq!((report.passed, report.failed), (1, 1));
    let d = report.failures.iter().next().unwrap();
    assert_eq!(d.code, "toolgate::test_failed");
    assert_eq!(policy.sources.location(d.span).line, 7);
    assert!(
        d.message
            .contains("expected deny (no_matching_rule), got allow (allowed_by_rule)"),
        "{}",
        d.message
    );
}

/// The command rules of LANGUAGE.md's example as policies/example.policy writes them: the
/// glob and the substring deny-list over raw shell text are bypassed by chaining, quoting and
/// option spellings, so the shipped example parses the command (`matches shell`), and adds a
/// test block showing those bypasses refused (docs/language.md, section on shell patterns).
const SHELL_REWRITE: &[(&str, &str)] = &[
    (
        r#"where command matches "npm run *" and"#,
        r#"where command matches shell "npm run *" and"#,
    ),
    (
        r#"  deny  Bash           where command contains any ["rm -rf", "mkfs", "sudo "]
                       because "Destructive shell commands are disabled for this session."
"#,
        r#"  deny  Bash           where command matches shell "rm -{r,f} ..."
                       because "Destructive shell commands are disabled for this session."
  deny  Bash           where command matches shell "mkfs* ..."
                       because "Destructive shell commands are disabled for this session."
  deny  Bash           where command matches shell "sudo ..."
                       because "Destructive shell commands are disabled for this session."
"#,
    ),
];

#[test]
fn example_policy_means_the_language_example() {
    let lang = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/LANGUAGE.md");
    let Ok(text) = std::fs::read_to_string(&lang) else {
        eprintln!("skipped: {} not present", lang.display());
        return;
    };
    let start = text.find("## 1. A complete example").expect("section 1");
    let block = &text[start..];
    let open = block.find("```\n").expect("code block") + 4;
    let close = block[open..].find("```").expect("end of block");
    let mut example = block[open..open + close].to_string();
    for (from, to) in SHELL_REWRITE {
        assert!(
            example.contains(from),
            "LANGUAGE.md's example no longer has {from:?}"
        );
        example = example.replace(from, to);
    }
    let shipped = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("policies/example.policy"),
    )
    .unwrap();
    // The shipped copy is in fmt's canonical layout, may add suppression comments (the
    // `sandboxed` agent shows an unreachable rule on purpose) and adds the shell test block:
    // otherwise its meaning, not its spacing, is LANGUAGE.md's.
    let shell_tests = shipped
        .find("test \"shell commands are parsed")
        .expect("the shell test block");
    let without_additions: String = shipped[..shell_tests]
        .split_inclusive('\n')
        .filter(|line| !line.trim_start().starts_with("# toolgate: allow("))
        .collect();
    assert!(
        toolgate::fmt::same_policy(&without_additions, &example),
        "policies/example.policy no longer means LANGUAGE.md's example"
    );
    assert!(!toolgate::fmt::same_policy(
        &without_additions.replace("600", "601"),
        &example
    ));
}
