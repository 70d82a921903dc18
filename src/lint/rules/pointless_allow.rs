//! `toolgate::pointless_allow`

use crate::diagnostic::Diagnostic;
use crate::lint::{declare_lint, warning, Context};
use crate::syntax::ast::Effect;

declare_lint! {
    /// ## What it does
    /// Reports `allow` rules in an agent whose default is `default allow`.
    ///
    /// ## Why is this bad?
    /// Under `default allow` every call that no `deny` refuses is allowed already, so an
    /// `allow` rule changes no decision (only the reason, `allowed_by_rule` instead of
    /// `default_allow`). Its conditions look like restrictions but restrict nothing: a reader
    /// may believe `allow Bash where command matches shell "npm ..."` limits the shell, while every
    /// other command is allowed by the default.
    ///
    /// ## Example
    /// ```policy
    /// tool Bash(command)
    /// agent helper {
    ///   default allow
    ///   allow Bash where command matches shell "npm ..."
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool Bash(command)
    /// agent helper {
    ///   allow Bash where command matches shell "npm ..."
    /// }
    /// ```
    pub static POINTLESS_ALLOW = {
        code: POINTLESS_ALLOW,
        stage: Lint,
    }
}

/// Runs the lint.
pub(crate) fn check(cx: &mut Context, out: &mut Vec<Diagnostic>) {
    for (agent, rule) in cx.allow_rules() {
        if agent.default != Effect::Allow {
            continue;
        }
        let mut d = warning(
            &POINTLESS_ALLOW,
            rule.span,
            format!(
                "`allow {}` changes nothing: agent `{}` is `default allow`",
                rule.target.text, agent.name
            ),
        )
        .with_label("allows what the default allows already")
        .with_help("remove the rule, or make the agent `default deny` if it should allow only what its rules allow");
        if let Some(span) = agent.default_span {
            d = d.with_related(span, "every call not denied is allowed here");
        }
        out.push(d);
    }
}
