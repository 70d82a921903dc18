//! The lints: every rule of the registry has a fixture (`tests/lints/<name>.policy`) whose
//! lines marked `# lint: <name>` are exactly where `check` reports it, a snapshot of the
//! rendered diagnostics, and documentation examples that behave as documented. Plus the
//! suppression comments and no false positives on the shipped policies. The JSON and SARIF
//! output of `toolgate check` are tested in cli/tests/lints.rs.

use std::collections::BTreeSet;
use std::path::PathBuf;
use toolgate::diagnostic::Diagnostics;
use toolgate::lint::registry::LINTS;
use toolgate::source::SourceMap;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn check(files: &[(&str, &str)]) -> (Diagnostics, SourceMap) {
    let mut sources = SourceMap::new();
    for (name, text) in files {
        sources.add(*name, *text);
    }
    let (policy, diags) = toolgate::load::check_sources(sources);
    (diags, policy.sources)
}

fn fixture(name: &str) -> (String, String) {
    let path = root().join("tests/lints").join(format!("{name}.policy"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("lint `{name}` has no fixture {}: {e}", path.display()));
    (format!("tests/lints/{name}.policy"), text)
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

#[test]
fn every_lint_is_reported_exactly_on_its_fixture_lines() {
    for lint in LINTS {
        let (file, text) = fixture(lint.name);
        let want = marked(&text, lint.name);
        assert!(
            !want.is_empty(),
            "{file} marks no line with `# lint: {}`",
            lint.name
        );
        let (diags, sources) = check(&[(&file, &text)]);
        let rendered = diags.render(&sources, false, 100);
        let got: BTreeSet<usize> = diags
            .iter()
            .filter(|d| d.code == lint.code)
            .map(|d| sources.location(d.span).line)
            .collect();
        assert_eq!(got, want, "lines of {} in {file}:\n{rendered}", lint.code);
        for d in diags.iter() {
            assert_eq!(d.severity, lint.severity, "{d:?}");
            assert!(
                d.help.as_deref().is_some_and(|h| !h.is_empty()),
                "help: {d:?}"
            );
            assert!(!d.label.is_empty(), "label: {d:?}");
            assert!(!d.message.ends_with('.'), "message style: {d:?}");
            assert!(
                d.message.chars().next().is_some_and(|c| !c.is_uppercase()),
                "message style: {d:?}"
            );
        }
        // Nothing else is reported in the fixture (it would be a false positive there),
        // except the errors a syntax-level fixture cannot avoid.
        let other: Vec<&str> = diags
            .iter()
            .map(|d| d.code)
            .filter(|c| *c != lint.code)
            .collect();
        assert!(
            other.is_empty(),
            "{file} also reports {other:?}:\n{rendered}"
        );
    }
}

#[test]
fn every_lint_has_a_snapshot_of_its_fixture() {
    for lint in LINTS {
        let (file, text) = fixture(lint.name);
        let (diags, sources) = check(&[(&file, &text)]);
        let snap = root().join(format!("tests/snapshots/lints__{}.snap", lint.name));
        assert!(
            snap.exists() || std::env::var_os("INSTA_UPDATE").is_some(),
            "lint `{}` has no snapshot {} (run with INSTA_UPDATE=always once, then review)",
            lint.name,
            snap.display()
        );
        insta::assert_snapshot!(lint.name, diags.render(&sources, false, 100));
    }
}

/// The first ```policy block after `marker` in the lint's documentation.
fn doc_block(doc: &str, marker: &str) -> Option<String> {
    let at = doc.find(marker)?;
    let rest = &doc[at..];
    let open = rest.find("```policy\n")? + "```policy\n".len();
    let close = rest[open..].find("```")?;
    Some(rest[open..open + close].to_string())
}

#[test]
fn documentation_examples_behave_as_documented() {
    for lint in LINTS {
        let doc = lint.doc_text();
        let bad = doc_block(&doc, "## Example").expect("an example");
        let good = doc_block(&doc, "Use instead:").expect("a fix");
        let (diags, sources) = check(&[("example.policy", &bad)]);
        assert!(
            diags.iter().any(|d| d.code == lint.code),
            "the example of {} does not report it:\n{}",
            lint.name,
            diags.render(&sources, false, 100)
        );
        let (diags, sources) = check(&[("fixed.policy", &good)]);
        assert!(
            diags.is_empty(),
            "the `Use instead` of {} is not clean:\n{}",
            lint.name,
            diags.render(&sources, false, 100)
        );
    }
}

#[test]
fn the_shipped_policies_are_clean() {
    let mut sources = SourceMap::new();
    for f in toolgate::load::policy_files(&root().join("policies")).unwrap() {
        sources.add(
            f.display().to_string(),
            std::fs::read_to_string(&f).unwrap(),
        );
    }
    let (policy, diags) = toolgate::load::check_sources(sources);
    assert!(
        diags.is_empty(),
        "{}",
        diags.render(&policy.sources, false, 100)
    );
}

#[test]
fn every_warning_on_the_corpus_is_a_known_true_positive() {
    // The corpus deliberately holds odd rules to pin down semantics; each of these warnings
    // was reviewed and is right about the rule it points at.
    let expected: BTreeSet<(&str, usize, &str)> = [
        ("absent.policy", 39, "toolgate::command_as_text"),
        ("absent.policy", 44, "toolgate::command_as_text"),
        ("absent.policy", 53, "toolgate::pointless_allow"),
        ("globs.policy", 58, "toolgate::relative_glob_in_deny"),
        ("globs.policy", 62, "toolgate::relative_glob_in_deny"),
        ("globs.policy", 66, "toolgate::relative_glob_in_deny"),
        ("globs.policy", 70, "toolgate::relative_glob_in_deny"),
        ("grants.policy", 62, "toolgate::unreachable_rule"),
        ("order.policy", 20, "toolgate::unreachable_host_tool"),
        ("rules.policy", 24, "toolgate::command_as_text"),
        ("rules.policy", 30, "toolgate::command_as_text"),
        ("rules.policy", 35, "toolgate::command_as_text"),
        ("rules.policy", 54, "toolgate::pointless_allow"),
        ("rules.policy", 57, "toolgate::pointless_allow"),
        ("strings.policy", 36, "toolgate::substring_allow"),
        ("strings.policy", 43, "toolgate::substring_allow"),
        ("strings.policy", 50, "toolgate::unanchored_regex"),
        ("strings.policy", 59, "toolgate::unanchored_regex"),
        ("strings.policy", 84, "toolgate::substring_allow"),
    ]
    .into_iter()
    .collect();
    let mut got = BTreeSet::new();
    let dir = root().join("tests/corpus");
    for f in toolgate::load::policy_files(&dir).unwrap() {
        let name = f.file_name().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(&f).unwrap();
        let (diags, sources) = check(&[(&name, &text)]);
        assert!(
            !diags.has_errors(),
            "{}",
            diags.render(&sources, false, 100)
        );
        for d in diags.iter() {
            let name: &'static str = Box::leak(name.clone().into_boxed_str());
            got.insert((name, sources.location(d.span).line, d.code));
        }
    }
    assert_eq!(got, expected);
}

const CATALOG: &str = "\
server git {
  tool git_log(repo_path, max_count?) needs fs:read
  tool git_push(repo_path, remote?)   needs net:http
}
tool Bash(command, timeout?) needs proc:exec
";

fn codes(text: &str) -> Vec<(usize, &'static str, String)> {
    let (diags, sources) = check(&[("p.policy", text)]);
    diags
        .sorted()
        .into_iter()
        .map(|d| {
            (
                sources.location(d.span).line,
                d.code,
                d.help.clone().unwrap_or_default(),
            )
        })
        .collect()
}

#[test]
fn unreachable_rule_names_the_missing_permission() {
    let text = format!("{CATALOG}agent a {{\n  grant fs:read\n  allow git.git_push\n}}\n");
    let (diags, _) = check(&[("p.policy", &text)]);
    let d = diags.iter().next().expect("a warning");
    assert_eq!(d.code, "toolgate::unreachable_rule");
    assert!(d.message.contains("`net:http`"), "{}", d.message);
    assert!(d.message.contains("`git.git_push`"), "{}", d.message);
}

#[test]
fn redundancy_is_decided_on_languages_not_text() {
    // Different text, same language: the later is redundant.
    let text = format!(
        "{CATALOG}agent a {{\n  grant fs:read\n  allow git.git_log where repo_path matches \"/srv/{{a,b}}/**\"\n  allow git.git_log where repo_path matches \"/srv/[ab]/**\"\n}}\n"
    );
    let got = codes(&text);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!((got[0].0, got[0].1), (9, "toolgate::redundant_allow"));
    // Same prefix, different language: nothing.
    let text = format!(
        "{CATALOG}agent a {{\n  grant fs:read\n  allow git.git_log where repo_path matches \"/srv/a*/**\"\n  allow git.git_log where repo_path matches \"/srv/ab/*\"\n}}\n"
    );
    assert_eq!(
        codes(&text).iter().map(|c| c.1).collect::<Vec<_>>(),
        ["toolgate::redundant_allow"]
    );
    let text = format!(
        "{CATALOG}agent a {{\n  grant fs:read\n  allow git.git_log where repo_path matches \"/srv/ab/**\"\n  allow git.git_log where repo_path matches \"/srv/a*/x\"\n}}\n"
    );
    assert_eq!(codes(&text), []);
}

#[test]
fn a_rule_covering_only_some_tools_does_not_make_another_redundant() {
    let text = format!(
        "{CATALOG}agent a {{\n  grant *\n  allow git.git_log\n  allow git.*\n  allow Bash where command == \"ls\"\n  allow * where command matches \"l*\"\n}}\n"
    );
    let got: Vec<(usize, &str)> = codes(&text).into_iter().map(|c| (c.0, c.1)).collect();
    // git.git_log is covered by git.*; Bash == "ls" by `* where command matches "l*"`.
    assert_eq!(
        got,
        [
            (8, "toolgate::redundant_allow"),
            (10, "toolgate::redundant_allow"),
            // The glob judges a command as text.
            (11, "toolgate::command_as_text"),
        ]
    );
}

#[test]
fn unknown_argument_suggests_the_declared_one() {
    let text = format!(
        "{CATALOG}agent a {{\n  grant proc:exec\n  allow Bash where comand matches \"npm *\"\n}}\n"
    );
    let got = codes(&text);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].1, "toolgate::unknown_argument");
    assert_eq!(got[0].2, "did you mean `command`?");
}

#[test]
fn suppression_silences_only_the_named_lint_on_the_next_statement() {
    let text = format!(
        "{CATALOG}agent a {{\n  grant proc:exec\n  # toolgate: allow(substring_allow)\n  allow Bash where command contains \"npm\"\n  allow Bash where command contains \"make\"\n}}\n"
    );
    let got: Vec<(usize, &str)> = codes(&text).into_iter().map(|c| (c.0, c.1)).collect();
    assert_eq!(got, [(10, "toolgate::substring_allow")]);
    // Before a block: the whole agent.
    let text = format!(
        "{CATALOG}# toolgate: allow(substring_allow, unreachable_rule)\nagent a {{\n  grant proc:exec\n  allow Bash where command contains \"npm\"\n  allow git.git_push\n}}\n"
    );
    assert_eq!(codes(&text), []);
    // A trailing comment on the statement's line.
    let text = format!(
        "{CATALOG}agent a {{\n  grant proc:exec\n  allow Bash where command contains \"npm\"  # toolgate: allow(substring_allow)\n}}\n"
    );
    assert_eq!(codes(&text), []);
}

#[test]
fn suppression_comments_are_honoured_when_loading_too() {
    // Warnings found while resolving are silenced for every command, not only `check`.
    let text = "server git {\n  tool git_log(repo_path)\n}\nagent a {\n  # toolgate: allow(target_matches_nothing)\n  allow git.nothing_*\n}\n";
    let mut sources = SourceMap::new();
    sources.add("p.policy", text);
    let (_, diags) = toolgate::load::policy_from_sources(sources);
    assert!(diags.is_empty(), "{diags:?}");
}

#[test]
fn unknown_lint_suggests_a_name() {
    let got = codes("tool t(x)\nagent a {\n  # toolgate: allow(unreachable_rul)\n  allow t\n}\n");
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].1, "toolgate::unknown_lint");
    assert_eq!(got[0].2, "did you mean `unreachable_rule`?");
}

#[test]
fn lints_skip_rules_an_error_touches() {
    // The regex is invalid, so the rule resolves without it; it must not then look like an
    // unconditional allow that makes the other one redundant.
    let text = "tool t(x)\nagent a {\n  allow t where x matches re\"(?!a)\"\n  allow t where x == \"b\"\n}\n";
    let got: Vec<&str> = codes(text).into_iter().map(|c| c.1).collect();
    assert_eq!(got, ["toolgate::invalid_regex"]);
}

#[test]
fn odd_inputs_never_panic() {
    for text in [
        "",
        "agent a {}",
        "tool t() agent a { allow t where x.y present }",
        "agent a { grant * allow * where x matches re\"\\\\b\" and x matches re\"a{0,1000}\" }",
        "tool t(x) agent a { allow t where x matches \"\" and x matches \"**\" and x == \"\" }",
        "tool t(x) agent a { allow t where x matches re\"(a|b)*c{5}\" allow t where x matches re\"[^a]{20}\" }",
        "# toolgate: allow(\nagent a {}",
        "# toolgate: allow(a,,b)\n",
        "// toolgate: allow(substring_allow)",
    ] {
        let _ = codes(text);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// `check` never panics, whatever the text: fragments of the language in any order.
    #[test]
    fn check_never_panics(parts in proptest::collection::vec(proptest::sample::select(vec![
        "tool t(x, y?) needs fs:read\n", "server s {", "}", "agent a {", "agent b {", "grant fs:*",
        "grant *", "grant fs:read", "default allow", "allow t", "deny t", "allow s.*", "allow *",
        "where", "x", "y", "and", "present", "== \"a\"", "!= \"b\"", "< 5", ">= 5", "in [\"a\"]",
        "in []", "matches \"/a/**\"", "matches \"a/*\"", "matches re\"^a\"", "matches re\"b\"",
        "contains \"c\"", "contains any []", "because \"no\"", "test \"t\" {", "allow a t {}",
        "deny b s.t { x: 1 } no_matching_rule", "# toolgate: allow(redundant_allow)\n",
        "# toolgate: allow(nope)\n", "\n", " ",
    ]), 0..40)) {
        let text = parts.join(" ");
        let _ = codes(&text);
        let _ = toolgate::fmt::format_source("p.policy", &text);
    }
}
