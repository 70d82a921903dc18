//! `toolgate::deny_never_fires`

use crate::diagnostic::Diagnostic;
use crate::lint::rules::unreachable_rule::{gated, report};
use crate::lint::{declare_lint, Context};
use crate::syntax::ast::Effect;

declare_lint! {
    /// ## What it does
    /// Reports a `deny` rule when every tool it targets needs a permission the agent is not
    /// granted, and names the missing permission.
    ///
    /// ## Why is this bad?
    /// The permission gate already refuses those calls (`permission_missing`) before any rule
    /// runs, so the `deny` never fires and its `because` message is never shown. It often
    /// means the rule was meant for another agent, or that a grant is missing and the deny
    /// guards a tool nobody can reach yet: once the grant is added, check the rule again.
    ///
    /// ## Example
    /// ```policy
    /// tool Bash(command)   needs proc:exec
    /// tool read_file(path) needs fs:read
    /// agent reader {
    ///   grant fs:read
    ///   allow read_file
    ///   deny  Bash because "no shell"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool Bash(command)   needs proc:exec
    /// tool read_file(path) needs fs:read
    /// agent reader {
    ///   grant fs:read
    ///   allow read_file
    /// }
    /// ```
    pub static DENY_NEVER_FIRES = {
        code: DENY_NEVER_FIRES,
        stage: Lint,
    }
}

/// Runs the lint.
pub(crate) fn check(cx: &mut Context, out: &mut Vec<Diagnostic>) {
    for (a, agent) in cx.agents() {
        for (r, rule) in agent.rules.iter().enumerate() {
            if rule.effect != Effect::Deny {
                continue;
            }
            if let Some(g) = gated(cx, a, r) {
                out.push(report(cx, a, r, &DENY_NEVER_FIRES, "never fires", &g));
            }
        }
    }
}
