//! The registry: every lint, every other diagnostic code, and the generated `docs/lints.md`.

use super::rules::*;
use super::{Lint, Stage};
use crate::diagnostic::code::{self, Code};
use crate::diagnostic::Severity;

/// Every lint, sorted by name. Each has its own file under `src/lint/rules/`.
pub static LINTS: &[&Lint] = &[
    &alternatives_hide_path::ALTERNATIVES_HIDE_PATH,
    &command_as_text::COMMAND_AS_TEXT,
    &comparison_undecided::COMPARISON_UNDECIDED,
    &condition_type_mismatch::CONDITION_TYPE_MISMATCH,
    &dead_allow::DEAD_ALLOW,
    &deny_never_fires::DENY_NEVER_FIRES,
    &duplicate_definition::DUPLICATE_DEFINITION,
    &duplicate_permission::DUPLICATE_PERMISSION,
    &invalid_glob::INVALID_GLOB,
    &invalid_regex::INVALID_REGEX,
    &invalid_shell_pattern::INVALID_SHELL_PATTERN,
    &needs_ignored::NEEDS_IGNORED,
    &path_not_normalizable::PATH_NOT_NORMALIZABLE,
    &path_pattern_not_normal::PATH_PATTERN_NOT_NORMAL,
    &pointless_allow::POINTLESS_ALLOW,
    &redundant_allow::REDUNDANT_ALLOW,
    &redundant_grant::REDUNDANT_GRANT,
    &relative_glob_in_allow::RELATIVE_GLOB_IN_ALLOW,
    &relative_glob_in_deny::RELATIVE_GLOB_IN_DENY,
    &shell_glob_path::SHELL_GLOB_PATH,
    &substring_allow::SUBSTRING_ALLOW,
    &target_matches_nothing::TARGET_MATCHES_NOTHING,
    &tool_name_collision::TOOL_NAME_COLLISION,
    &unanchored_regex::UNANCHORED_REGEX,
    &unknown_argument::UNKNOWN_ARGUMENT,
    &unknown_lint::UNKNOWN_LINT,
    &unknown_name_in_test::UNKNOWN_NAME_IN_TEST,
    &unknown_server::UNKNOWN_SERVER,
    &unknown_tool::UNKNOWN_TOOL,
    &unknown_type::UNKNOWN_TYPE,
    &unreachable_host_tool::UNREACHABLE_HOST_TOOL,
    &unreachable_rule::UNREACHABLE_RULE,
    &unsatisfiable_condition::UNSATISFIABLE_CONDITION,
    &unused_grant::UNUSED_GRANT,
    &unused_suppression::UNUSED_SUPPRESSION,
    &wildcard_domain::WILDCARD_DOMAIN,
];

/// The other diagnostic codes (syntax, limits, tests, the gateway's catalog drift), which have
/// no lint file: code, severity, one-line description, from their declarations in
/// [`crate::diagnostic::code`]. docs/language.md section 17 describes them.
pub static OTHER_CODES: &[(&str, Severity, &str)] = &[
    other(code::SYNTAX),
    other(code::INVALID_ESCAPE),
    other(code::INVALID_NUMBER),
    other(code::DUPLICATE_KEY),
    other(code::EMPTY_NAME),
    other(code::INVALID_PERMISSION),
    other(code::DUPLICATE_DEFAULT),
    other(code::BECAUSE_ON_ALLOW),
    other(code::UNKNOWN_REASON),
    other(code::LIMIT_FILE_SIZE),
    other(code::LIMIT_NESTING),
    other(code::LIMIT_TABLE_SIZE),
    other(code::AUTOMATON_TOO_LARGE),
    other(code::AUTOMATON_BUILD),
    other(code::INTERNAL_ERROR),
    other(code::TEST_FAILED),
    other(code::DRIFT_TOOL_MISSING_UPSTREAM),
    other(code::DRIFT_TOOL_NOT_IN_CATALOG),
    other(code::DRIFT_REQUIRED_ARGUMENT_UNDECLARED),
    other(code::DRIFT_ARGUMENT_NOT_IN_SCHEMA),
    other(code::DRIFT_ARGUMENT_OPTIONALITY),
    other(code::DRIFT_ARGUMENT_TYPE),
    other(code::DRIFT_SERVER_WITHOUT_UPSTREAM),
    other(code::DRIFT_TOOL_NAME_COLLISION),
    other(code::DRIFT_TOOL_LISTED_TWICE),
];

/// A code's registry entry.
const fn other(c: Code) -> (&'static str, Severity, &'static str) {
    (c.code, c.severity, c.summary)
}

/// The lint with this name (`unreachable_rule`).
pub fn by_name(name: &str) -> Option<&'static Lint> {
    LINTS.iter().copied().find(|l| l.name == name)
}

/// The lint with this code (`toolgate::unreachable_rule`).
pub fn by_code(code: &str) -> Option<&'static Lint> {
    LINTS.iter().copied().find(|l| l.code == code)
}

/// The names a suppression comment may use: every warning.
pub fn silenceable() -> impl Iterator<Item = &'static Lint> {
    LINTS
        .iter()
        .copied()
        .filter(|l| l.severity == Severity::Warning)
}

fn stage_text(lint: &Lint) -> &'static str {
    match lint.stage {
        Stage::Resolve => "every command (found while resolving names)",
        Stage::Suppression if lint.severity == Severity::Error => {
            "every command (suppression comments)"
        }
        Stage::Suppression => "`check` (suppression comments)",
        Stage::Lint => "`check`",
    }
}

/// The text of `docs/lints.md`, generated from the rules' doc comments.
pub fn markdown() -> String {
    let mut s = String::new();
    s.push_str("# Lints\n\n");
    s.push_str("<!-- Generated from the doc comments in src/lint/rules/*.rs; do not edit.\n");
    s.push_str("     Regenerate with: TOOLGATE_BLESS=1 cargo test --test lint_docs -->\n\n");
    s.push_str(
        "`toolgate check` reports every problem it finds in a policy. Errors make the policy \
unloadable (every command refuses it); warnings are reported by `check`, and `--deny-warnings` \
makes them fail the run. Every diagnostic has a stable code `toolgate::<name>`; the codes not \
listed here (syntax, limits, tests, the gateway's catalog drift) are in [language.md, section 17](language.md#17-diagnostic-codes).\n\n",
    );
    s.push_str("## Silencing a warning\n\n");
    s.push_str(
        "A comment `# toolgate: allow(<name>)` (or `// toolgate: allow(<name>)`) on the line \
before a statement silences that warning for the statement: a rule, a `grant`, a tool, a test \
expectation, or a whole `agent`, `server` or `test` block when it precedes the block. Several \
names are separated by commas: `# toolgate: allow(substring_allow, unanchored_regex)`. Text \
after the closing parenthesis is free, so the comment can say why. Errors cannot be silenced; \
an unknown name is an error (`toolgate::unknown_lint`), and a name that silences nothing is a \
warning (`toolgate::unused_suppression`).\n\n",
    );
    s.push_str("```policy\nagent builder {\n  # toolgate: allow(substring_allow) -- the build script checks the rest\n  allow Bash where command contains \"npm run\"\n}\n```\n\n");
    s.push_str("## Index\n\n| lint | severity | reported by | what it reports |\n| --- | --- | --- | --- |\n");
    for l in LINTS {
        s.push_str(&format!(
            "| [`{}`](#{}) | {} | {} | {} |\n",
            l.name,
            l.name,
            l.severity.as_str(),
            stage_text(l),
            l.summary.replace('|', "\\|")
        ));
    }
    for l in LINTS {
        s.push_str(&format!("\n## {}\n\n", l.name));
        s.push_str(&format!(
            "Code `{}` · {} · reported by {}\n\n",
            l.code,
            l.severity.as_str(),
            stage_text(l)
        ));
        for line in l.doc_text().trim().lines() {
            match line.strip_prefix("## ") {
                Some(h) => s.push_str(&format!("### {h}\n")),
                None => {
                    s.push_str(line);
                    s.push('\n');
                }
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_sorted_and_codes_follow_them() {
        let names: Vec<&str> = LINTS.iter().map(|l| l.name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(names, sorted, "LINTS is sorted by name, without duplicates");
        for l in LINTS {
            assert_eq!(l.code, format!("toolgate::{}", l.name));
            assert!(OTHER_CODES.iter().all(|(c, _, _)| *c != l.code));
        }
    }

    #[test]
    fn every_lint_has_the_doc_sections() {
        for l in LINTS {
            for h in ["What it does", "Why is this bad?", "Example"] {
                assert!(
                    l.section(h).is_some_and(|t| !t.is_empty()),
                    "{} lacks `## {h}`",
                    l.name
                );
            }
            assert!(
                l.doc_text().contains("\nUse instead:\n"),
                "{} lacks `Use instead:`",
                l.name
            );
            assert!(!l.summary.ends_with('.'), "{}", l.name);
        }
    }
}
