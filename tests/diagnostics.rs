//! Snapshot tests of rendered diagnostics (miette's graphical report, no colour, 80 columns),
//! one per kind of mistake, plus the code each one carries.

use toolgate::diagnostic::{Diagnostics, Severity};
use toolgate::source::SourceMap;

const WIDTH: usize = 80;

/// A small catalog most cases start from (4 lines).
const CATALOG: &str = "\
server git {
  tool git_log(repo_path, max_count?) needs fs:read
}
tool read_file(path) needs fs:read
";

/// Parses, resolves and compiles `files` (merged); returns every diagnostic and the sources.
fn diagnose(files: &[(&str, &str)]) -> (Diagnostics, SourceMap) {
    let mut sources = SourceMap::new();
    for (name, text) in files {
        sources.add(*name, *text);
    }
    match toolgate::load::engine_from_sources(sources) {
        Ok((_, policy, warnings)) => (warnings, policy.sources),
        Err(err) => (err.diagnostics, err.sources),
    }
}

/// Diagnoses `files`, checks that the diagnostics are exactly `codes` (sorted order) and that
/// the syntax/resolve stage (`policy_from_sources`) agrees, and returns the rendering.
fn render(files: &[(&str, &str)], codes: &[&str]) -> String {
    let (diags, sources) = diagnose(files);
    let got: Vec<&str> = diags.sorted().iter().map(|d| d.code).collect();
    assert_eq!(
        got,
        codes,
        "diagnostic codes of {files:?}:\n{}",
        diags.render(&sources, false, WIDTH)
    );
    for d in diags.iter() {
        assert!(d.code.starts_with("toolgate::"), "{}", d.code);
        assert!(
            d.help.is_some(),
            "every diagnostic says how to fix it: {d:?}"
        );
        assert!(d.span.start <= d.span.end, "{d:?}");
        assert!(d.span.end <= sources.file(d.span.file).text.len(), "{d:?}");
    }
    diags.render(&sources, false, WIDTH)
}

fn one(name: &str, text: &str, code: &str) -> String {
    render(&[(name, text)], &[code])
}

fn with_catalog(body: &str) -> String {
    format!("{CATALOG}{body}")
}

// ---------------------------------------------------------------------------------------------
// syntax

#[test]
fn syntax_after_where() {
    let text = with_catalog("agent a {\n  allow read_file where\n}\n");
    insta::assert_snapshot!(one("where.policy", &text, "toolgate::syntax"));
}

#[test]
fn syntax_after_and() {
    let text = with_catalog("agent a {\n  allow read_file where path present and\n}\n");
    insta::assert_snapshot!(one("and.policy", &text, "toolgate::syntax"));
}

#[test]
fn syntax_missing_closing_brace() {
    let text = with_catalog("agent a {\n  grant fs:read\n  allow read_file\n");
    insta::assert_snapshot!(one("brace.policy", &text, "toolgate::syntax"));
}

#[test]
fn syntax_bad_token_in_params() {
    let text = with_catalog("tool write_file(path, 42) needs fs:write\n");
    insta::assert_snapshot!(one("params.policy", &text, "toolgate::syntax"));
}

#[test]
fn syntax_unknown_escape() {
    let text = with_catalog("agent a {\n  allow read_file where path == \"C:\\q\"\n}\n");
    insta::assert_snapshot!(one("escape.policy", &text, "toolgate::invalid_escape"));
}

#[test]
fn syntax_empty_quoted_name() {
    let text = with_catalog("agent \"\" {\n}\n");
    insta::assert_snapshot!(one("empty.policy", &text, "toolgate::empty_name"));
}

// ---------------------------------------------------------------------------------------------
// permissions

#[test]
fn wildcard_domain() {
    let text = with_catalog("agent a {\n  grant *:read\n}\n");
    insta::assert_snapshot!(one("star.policy", &text, "toolgate::wildcard_domain"));
}

#[test]
fn invalid_permission() {
    let text = with_catalog("agent a {\n  grant FS:Read\n}\n");
    insta::assert_snapshot!(one("perm.policy", &text, "toolgate::invalid_permission"));
}

// ---------------------------------------------------------------------------------------------
// names

#[test]
fn duplicate_agent_across_files() {
    let one_text = with_catalog("agent a {\n  grant fs:read\n}\n");
    let two_text = "agent b {\n}\nagent a {\n  allow read_file\n}\n";
    let out = render(
        &[("one.policy", &one_text), ("two.policy", two_text)],
        &["toolgate::duplicate_definition"],
    );
    assert!(
        out.contains("one.policy") && out.contains("two.policy"),
        "{out}"
    );
    insta::assert_snapshot!(out);
}

#[test]
fn duplicate_tool() {
    let text = with_catalog("tool read_file(path) needs fs:read\n");
    insta::assert_snapshot!(one(
        "duptool.policy",
        &text,
        "toolgate::duplicate_definition"
    ));
}

#[test]
fn unknown_tool_did_you_mean() {
    let text = with_catalog("agent a {\n  grant fs:read\n  allow git.git_lgo\n}\n");
    let out = one("tool.policy", &text, "toolgate::unknown_tool");
    assert!(out.contains("git_log"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn unknown_host_tool_did_you_mean() {
    let text = with_catalog("agent a {\n  grant fs:read\n  allow read_fle\n}\n");
    let out = one("hosttool.policy", &text, "toolgate::unknown_tool");
    assert!(out.contains("did you mean `read_file`"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn unknown_server() {
    let text = with_catalog("agent a {\n  grant fs:read\n  allow gti.git_log\n}\n");
    let out = one("server.policy", &text, "toolgate::unknown_server");
    assert!(out.contains("did you mean `git`"), "{out}");
    insta::assert_snapshot!(out);
}

// ---------------------------------------------------------------------------------------------
// rules

#[test]
fn because_on_allow() {
    let text = with_catalog("agent a {\n  grant fs:read\n  allow read_file because \"fine\"\n}\n");
    insta::assert_snapshot!(one("because.policy", &text, "toolgate::because_on_allow"));
}

#[test]
fn second_default() {
    let text = with_catalog("agent a {\n  default allow\n  grant fs:read\n  default deny\n}\n");
    insta::assert_snapshot!(one("default.policy", &text, "toolgate::duplicate_default"));
}

#[test]
fn target_matches_nothing_is_a_warning() {
    let text = with_catalog("agent a {\n  grant fs:read\n  allow nosuch_*\n}\n");
    let (diags, _) = diagnose(&[("warn.policy", &text)]);
    assert!(!diags.has_errors());
    let d: Vec<_> = diags.iter().collect();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, "toolgate::target_matches_nothing");
    assert_eq!(d[0].severity, Severity::Warning);
    insta::assert_snapshot!(one(
        "warn.policy",
        &text,
        "toolgate::target_matches_nothing"
    ));
}

// ---------------------------------------------------------------------------------------------
// patterns

fn pattern_policy(pattern: &str) -> String {
    with_catalog(&format!(
        "agent a {{\n  grant fs:read\n  allow read_file where path matches {pattern}\n}}\n"
    ))
}

/// The diagnostic's span lies inside the literal `pattern` (between its quotes).
fn assert_points_into(text: &str, pattern: &str) {
    assert_within(text, pattern, 1);
}

/// The diagnostic's span lies within `pattern` in `text`, `trim` bytes in from its closing end
/// and from its opening quote (`trim` 0: the quotes may be included).
fn assert_within(text: &str, pattern: &str, trim: usize) {
    let (diags, _) = diagnose(&[("p.policy", text)]);
    let d = diags.iter().next().expect("a diagnostic");
    let lit = text.find(pattern).unwrap();
    let open = lit + pattern.find('"').unwrap() + trim;
    let close = lit + pattern.len() - trim;
    assert!(
        d.span.start >= open && d.span.end <= close && d.span.start < d.span.end,
        "span {:?} should lie inside the literal {open}..{close} ({pattern})",
        d.span
    );
}

#[test]
fn invalid_regex_look_around() {
    let pat = r#"re"^/srv/(?!secret)""#;
    let text = pattern_policy(pat);
    assert_points_into(&text, pat);
    insta::assert_snapshot!(one("lookaround.policy", &text, "toolgate::invalid_regex"));
}

#[test]
fn invalid_regex_backreference() {
    let pat = r#"re"(a)\1""#;
    let text = pattern_policy(pat);
    assert_points_into(&text, pat);
    insta::assert_snapshot!(one("backref.policy", &text, "toolgate::invalid_regex"));
}

#[test]
fn invalid_regex_unclosed_group() {
    let pat = r#"re"^/srv/(abc""#;
    let text = pattern_policy(pat);
    assert_points_into(&text, pat);
    insta::assert_snapshot!(one("unclosed.policy", &text, "toolgate::invalid_regex"));
}

#[test]
fn invalid_glob() {
    let pat = r#""/srv/[abc""#;
    let text = pattern_policy(pat);
    // globset does not say where in the glob it failed: the whole literal is marked.
    assert_within(&text, pat, 0);
    insta::assert_snapshot!(one("glob.policy", &text, "toolgate::invalid_glob"));
}

// ---------------------------------------------------------------------------------------------
// tests

#[test]
fn unknown_reason_in_test() {
    let text = with_catalog(
        "agent a {\n  grant fs:read\n}\ntest \"t\" {\n  deny a read_file { path: \"/x\" } no_matching_rul\n}\n",
    );
    let out = one("reason.policy", &text, "toolgate::unknown_reason");
    assert!(out.contains("did you mean `no_matching_rule`"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn failed_expectation() {
    let text = with_catalog(
        "agent a {\n  grant fs:read\n  allow read_file where path matches \"/srv/**\"\n}\n\
         test \"reads\" {\n  allow a read_file { path: \"/srv/x\" }\n  allow a read_file { path: \"/etc/passwd\" }\n  \
         deny  a read_file { path: \"/etc/passwd\" } no_matching_rule\n}\n",
    );
    let mut sources = SourceMap::new();
    sources.add("failing.policy", text.as_str());
    let (engine, policy, warnings) =
        toolgate::load::engine_from_sources(sources).expect("the policy compiles");
    assert!(warnings.is_empty());
    let report = toolgate::testing::run_tests(&policy, &engine);
    assert_eq!((report.passed, report.failed), (2, 1));
    let d: Vec<_> = report.failures.iter().collect();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, "toolgate::test_failed");
    assert_eq!(policy.sources.location(d[0].span).line, 11);
    insta::assert_snapshot!(report.failures.render(&policy.sources, false, WIDTH));
}

#[test]
fn test_failure_span_is_one_line() {
    let text = with_catalog(
        "agent a {\n  grant fs:read\n}\ntest \"t\" {\n  allow a read_file { path: \"/x\" }\n  allow a read_file { path: \"/y\" }\n}\n",
    );
    let mut sources = SourceMap::new();
    sources.add("span.policy", text.as_str());
    let (engine, policy, _) =
        toolgate::load::engine_from_sources(sources).expect("the policy compiles");
    let report = toolgate::testing::run_tests(&policy, &engine);
    assert_eq!(report.failed, 2);
    for d in report.failures.iter() {
        let covered = policy.sources.slice(d.span);
        assert!(covered.starts_with("allow a read_file"), "{covered:?}");
        assert!(covered.trim_end().ends_with('}'), "{covered:?}");
        assert!(
            !covered.contains('\n'),
            "the span covers one expectation, not the next line: {covered:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// one run, several errors

#[test]
fn several_independent_errors_in_one_run() {
    let text = with_catalog(
        "agent a {\n  allow read_file where\n}\n\
         agent ok {\n  grant fs:read\n  allow read_file\n}\n\
         agent b {\n  grant *:read\n  allow nosuch\n}\n",
    );
    let (diags, sources) = diagnose(&[("multi.policy", &text)]);
    let rendered = diags.render(&sources, false, WIDTH);
    assert!(
        diags.error_count() >= 2,
        "more than one error is reported in one run:\n{rendered}"
    );
    let codes: Vec<&str> = diags.sorted().iter().map(|d| d.code).collect();
    assert!(codes.contains(&"toolgate::syntax"), "{codes:?}");
    assert!(codes.contains(&"toolgate::wildcard_domain"), "{codes:?}");
    assert!(codes.contains(&"toolgate::unknown_tool"), "{codes:?}");
}

#[test]
fn several_syntax_errors_in_one_run() {
    // Two broken agents separated by a valid one: both syntax errors are reported.
    let text = with_catalog(
        "agent a {\n  allow read_file where\n}\n\
         agent ok {\n  grant fs:read\n  allow read_file\n}\n\
         agent b {\n  allow read_file where path present and\n}\n",
    );
    let (diags, sources) = diagnose(&[("multi.policy", &text)]);
    let syntax: Vec<usize> = diags
        .sorted()
        .iter()
        .filter(|d| d.code == "toolgate::syntax")
        .map(|d| sources.location(d.span).line)
        .collect();
    assert_eq!(syntax, [6, 13], "{}", diags.render(&sources, false, WIDTH));
}

#[test]
fn several_errors_across_files() {
    let (diags, _) = diagnose(&[
        ("a.policy", &with_catalog("agent a {\n  grant *:read\n}\n")),
        ("b.policy", "agent b {\n  allow read_file where\n}\n"),
    ]);
    let codes: Vec<&str> = diags.sorted().iter().map(|d| d.code).collect();
    assert_eq!(codes, ["toolgate::wildcard_domain", "toolgate::syntax"]);
}

#[test]
fn policy_from_sources_reports_the_same() {
    // The resolve stage alone (no compile) already reports the checks above.
    let mut sources = SourceMap::new();
    sources.add(
        "p.policy",
        with_catalog("agent a {\n  grant *:read\n  allow read_fle\n}\n"),
    );
    let (_, diags) = toolgate::load::policy_from_sources(sources);
    let codes: Vec<&str> = diags.sorted().iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        ["toolgate::wildcard_domain", "toolgate::unknown_tool"]
    );
}

#[test]
fn needs_with_a_catalog_is_ignored_with_a_warning() {
    let (diags, sources) = diagnose(&[(
        "needs.policy",
        "tool t\nagent a { allow t }\ntest \"x\" { allow a t {} needs fs:read allowed_by_rule }\n",
    )]);
    let d = diags.iter().next().expect("a warning");
    assert_eq!(d.code, "toolgate::needs_ignored");
    assert_eq!(d.severity, toolgate::Severity::Warning);
    assert_eq!(sources.slice(d.span), "fs:read");
}

#[test]
fn plain_globs_that_look_like_paths_are_warned_about() {
    // URLs (`scheme://...`) are not paths: neither relative-glob warning applies to them, but
    // a glob whose "scheme" is not one (`-x://`) is still a relative path.
    let text = "tool t(p)\nagent a {\n  allow t where p matches \"src/**\"\n  deny t where p matches \"tmp/*\"\n  deny t where p matches \"{/a,/b}/**\"\n  allow t where p matches \"/{a,b}/**\"\n  allow t where p matches \"https://api.example.com/*\"\n  deny t where p matches \"s3+v2://bucket/**\"\n  allow t where p matches \"-x://y/*\"\n}\n";
    let (diags, sources) = diagnose(&[("globs.policy", text)]);
    let got: Vec<(&str, String)> = diags
        .sorted()
        .into_iter()
        .map(|d| (d.code, sources.slice(d.span).to_string()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("toolgate::relative_glob_in_allow", "\"src/**\"".to_string()),
            ("toolgate::relative_glob_in_deny", "\"tmp/*\"".to_string()),
            (
                "toolgate::alternatives_hide_path",
                "\"{/a,/b}/**\"".to_string()
            ),
            (
                "toolgate::relative_glob_in_allow",
                "\"-x://y/*\"".to_string()
            ),
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// declared argument types

#[test]
fn unknown_type_did_you_mean() {
    let text = "tool Bash(command: strng, timeout?: number)\n";
    let out = one("types.policy", text, "toolgate::unknown_type");
    assert!(out.contains("did you mean `string`"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn element_type_on_a_non_array_type() {
    let text = "tool write_file(paths: path<string>)\n";
    insta::assert_snapshot!(one("element.policy", text, "toolgate::unknown_type"));
}

#[test]
fn syntax_unclosed_array_type() {
    let text = "tool write_file(paths: array<path)\n";
    insta::assert_snapshot!(one("unclosed.policy", text, "toolgate::syntax"));
}

#[test]
fn syntax_missing_type_after_colon() {
    let text = "tool write_file(paths: )\n";
    insta::assert_snapshot!(one("colon.policy", text, "toolgate::syntax"));
}

#[test]
fn too_many_nested_arrays() {
    let deep = format!("{}string{}", "array<".repeat(17), ">".repeat(17));
    let text = format!("tool t(a: {deep})\n");
    let out = one("deep.policy", &text, "toolgate::unknown_type");
    assert!(out.contains("nests 17 arrays"), "{out}");
    // A type as deep as the limit is accepted.
    let ok = format!(
        "tool t(a: {}string{})\n",
        "array<".repeat(16),
        ">".repeat(16)
    );
    render(&[("ok.policy", &ok)], &[]);
}
