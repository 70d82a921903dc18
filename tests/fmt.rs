//! `toolgate fmt`: one canonical layout, comments kept, idempotent, and the formatted text
//! parses to the same policy. Checked on every file in policies/ and tests/corpus/, and on
//! generated policies written with arbitrary spacing and comments. The command's exit codes
//! are tested in cli/tests/fmt.rs.

use proptest::prelude::*;
use std::path::PathBuf;
use toolgate::fmt::{format_source, same_policy, FmtError};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn policy_files(dir: &str) -> Vec<PathBuf> {
    toolgate::load::policy_files(&root().join(dir)).unwrap()
}

fn comments(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| toolgate::syntax::comment_start(l).map(|c| l[c..].trim_end().to_string()))
        .collect()
}

fn assert_formats(name: &str, text: &str) -> String {
    let once = format_source(name, text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let twice = format_source(name, &once).unwrap_or_else(|e| panic!("{name} (formatted): {e}"));
    assert_eq!(once, twice, "{name}: fmt is not idempotent");
    assert!(same_policy(text, &once), "{name}: fmt changed the policy");
    assert_eq!(comments(text), comments(&once), "{name}: comments changed");
    assert!(once.ends_with('\n') && !once.ends_with("\n\n"), "{name}");
    assert!(
        !once.lines().any(|l| l.ends_with(' ')),
        "{name}: trailing spaces"
    );
    once
}

#[test]
fn shipped_policies_and_the_corpus_format_stably() {
    for f in policy_files("policies")
        .into_iter()
        .chain(policy_files("tests/corpus"))
    {
        let text = std::fs::read_to_string(&f).unwrap();
        assert_formats(&f.display().to_string(), &text);
    }
}

#[test]
fn shipped_policies_are_formatted() {
    // A newcomer's first `toolgate fmt --check policies/` passes.
    for f in policy_files("policies") {
        let text = std::fs::read_to_string(&f).unwrap();
        assert_eq!(
            format_source("p", &text).unwrap(),
            text,
            "{} is not formatted",
            f.display()
        );
    }
}

#[test]
fn formatted_policies_pass_their_tests() {
    let mut sources = toolgate::source::SourceMap::new();
    for f in policy_files("policies") {
        let text = std::fs::read_to_string(&f).unwrap();
        sources.add(f.display().to_string(), format_source("p", &text).unwrap());
    }
    let (engine, policy, _) = toolgate::load::engine_from_sources(sources).unwrap();
    let report = toolgate::testing::run_tests(&policy, &engine);
    assert_eq!(report.failed, 0);
    assert!(report.passed > 100);
}

#[test]
fn canonical_layout() {
    let text = "tool Bash(command,timeout?) needs proc:exec # shell\nagent a{grant proc:exec\n\n\n\
allow Bash where command matches \"npm run *\" and timeout <= 600\n\
deny Bash where command contains any [\"rm -rf\",\"mkfs\",\"sudo \"] because \"Destructive shell commands are disabled for this session.\"}\n\
test \"t\" {deny a Bash {command:\"x\",timeout:[1,2,]} denied_by_rule\n allow a Bash {command: \"npm run x\"}}";
    let want = "\
tool Bash(command, timeout?) needs proc:exec  # shell
agent a {
  grant proc:exec

  allow Bash where command matches \"npm run *\" and timeout <= 600
  deny  Bash where command contains any [\"rm -rf\", \"mkfs\", \"sudo \"]
             because \"Destructive shell commands are disabled for this session.\"
}
test \"t\" {
  deny  a Bash { command: \"x\", timeout: [1, 2] } denied_by_rule
  allow a Bash { command: \"npm run x\" }
}
";
    assert_eq!(assert_formats("t.policy", text), want);
}

#[test]
fn declared_types_are_printed_back() {
    let text = "tool Bash(command:string,timeout? : number,f?:array < array<path> >,g : array)\nagent a { allow Bash }\n";
    let want = "tool Bash(command: string, timeout?: number, f?: array<array<path>>, g: array)\nagent a {\n  allow Bash\n}\n";
    assert_eq!(assert_formats("t.policy", text), want);
    // A formatted typed catalog means the same: the types are part of the policy compared.
    assert!(!same_policy("tool t(a: string)\n", "tool t(a: number)\n"));
    assert!(!same_policy("tool t(a: string)\n", "tool t(a)\n"));
}

#[test]
fn comments_inside_a_statement_move_before_it() {
    let text =
        "tool t(x)\nagent a {\n  allow t where x == \"a\" # one\n    and x != \"b\" # two\n}\n";
    let out = assert_formats("t.policy", text);
    assert_eq!(
        out,
        "tool t(x)\nagent a {\n  # one\n  allow t where x == \"a\" and x != \"b\"  # two\n}\n"
    );
}

#[test]
fn syntax_errors_are_refused() {
    match format_source("bad.policy", "agent a {\n  allow x where\n}\n") {
        Err(FmtError::Syntax { diagnostics, .. }) => assert!(diagnostics.has_errors()),
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// generated policies

fn sep() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(" ".to_string()),
        Just("  ".to_string()),
        Just("\n".to_string()),
        Just("\n\n\n".to_string()),
        Just("\t".to_string()),
        Just(" # note\n".to_string()),
        Just(" // x: \"y\"\n".to_string()),
    ]
}

/// A declared type, spaced arbitrarily inside its brackets.
fn arg_type() -> impl Strategy<Value = String> {
    (
        proptest::sample::select(vec![
            "string", "number", "integer", "boolean", "path", "object", "any", "array",
        ]),
        0usize..3,
        proptest::sample::select(vec!["", " ", "\n"]),
    )
        .prop_map(|(base, arrays, sp)| {
            format!(
                "{}{base}{}",
                format!("array{sp}<{sp}").repeat(arrays),
                format!("{sp}>").repeat(arrays)
            )
        })
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-z0-9_-]{0,6}".prop_map(|s| s),
        Just("\"fs.write\"".to_string()),
        Just("\"a b\"".to_string()),
    ]
}

fn condition() -> impl Strategy<Value = String> {
    let arg = prop_oneof![Just("path"), Just("cmd"), Just("opts.cwd"), Just("\"a.b\"")];
    let op = prop_oneof![
        Just("present".to_string()),
        Just("== \"x\\\"y\"".to_string()),
        Just("!= \"\\u00e9\"".to_string()),
        Just("< 1e3".to_string()),
        Just(">= -2.5".to_string()),
        Just("in [\"a\" , \"b\",]".to_string()),
        Just("matches \"/srv/**\"".to_string()),
        Just("matches re\"^a\\s+\\\"b$\"".to_string()),
        Just("contains \"#\"".to_string()),
        Just("contains any [\"//\", \"x\"]".to_string()),
    ];
    (arg, op).prop_map(|(a, o)| format!("{a} {o}"))
}

fn rule() -> impl Strategy<Value = String> {
    let target = prop_oneof![
        Just("*"),
        Just("git.*"),
        Just("git_?og"),
        Just("Bash"),
        Just("\"fs.write\""),
        Just("s.\"t u\"")
    ];
    (
        prop_oneof![Just("allow"), Just("deny")],
        target,
        proptest::collection::vec(condition(), 0..4),
        proptest::option::of(Just("\"no # not a comment\"")),
        sep(),
    )
        .prop_map(|(effect, target, conds, because, s)| {
            let mut r = format!("{effect}{s}{target}");
            if !conds.is_empty() {
                r.push_str(&format!(" where{s}{}", conds.join(&format!("{s}and "))));
            }
            if let (Some(b), "deny") = (because, effect) {
                r.push_str(&format!("{s}because {b}"));
            }
            r
        })
}

fn policy() -> impl Strategy<Value = String> {
    let tool = (
        name(),
        proptest::option::of(proptest::collection::vec(
            (name(), proptest::option::of(arg_type())),
            0..3,
        )),
        proptest::bool::ANY,
        sep(),
    )
        .prop_map(|(n, params, needs, s)| {
            let mut t = format!("tool{s}{n}");
            if let Some(ps) = params {
                let mut seen: Vec<(String, Option<String>)> = Vec::new();
                for (p, ty) in ps {
                    if !seen.iter().any(|(q, _)| *q == p) {
                        seen.push((p, ty));
                    }
                }
                t.push_str(&format!(
                    "({})",
                    seen.iter()
                        .map(|(p, ty)| match ty {
                            Some(ty) => format!("{p}?{s}:{s}{ty}"),
                            None => format!("{p}?"),
                        })
                        .collect::<Vec<_>>()
                        .join(",")
                ));
            }
            if needs {
                t.push_str(&format!("{s}needs fs:read,{s}net:http"));
            }
            t
        });
    let agent = (
        name(),
        proptest::collection::vec(rule(), 0..5),
        proptest::bool::ANY,
        sep(),
    )
        .prop_map(|(n, rules, dflt, s)| {
            let mut a = format!("agent {n}{s}{{{s}grant fs:*, net:http{s}");
            if dflt {
                a.push_str("default allow\n");
            }
            for r in rules {
                a.push_str(&r);
                a.push_str(&s);
            }
            a.push('}');
            a
        });
    let test = (sep(), proptest::collection::vec((name(), name()), 0..3)).prop_map(|(s, exps)| {
        let mut t = format!("test \"generated\"{s}{{");
        for (a, tool) in exps {
            t.push_str(&format!("{s}deny {a} s.{tool} {{ x: [1, {{ y: null }}], \"k\": \"v\" }}{s}needs fs:read no_matching_rule"));
        }
        t.push_str(&format!("{s}}}"));
        t
    });
    (
        proptest::collection::vec(tool, 0..4),
        proptest::collection::vec(agent, 0..3),
        proptest::collection::vec(test, 0..2),
        sep(),
    )
        .prop_map(|(tools, agents, tests, s)| {
            let mut p = String::from("# generated\n");
            p.push_str(&format!("server s{s}{{{s}"));
            for t in &tools {
                p.push_str(t);
                p.push_str(&s);
            }
            p.push_str("}\n");
            for a in agents {
                p.push_str(&a);
                p.push_str(&s);
            }
            for t in tests {
                p.push_str(&t);
                p.push_str(&s);
            }
            p
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn generated_policies_format_stably(text in policy()) {
        // Only text that parses is formatted.
        let (_, diags) = toolgate::syntax::parse_file(toolgate::source::FileId(0), &text);
        prop_assume!(!diags.has_errors());
        assert_formats("generated.policy", &text);
    }
}
