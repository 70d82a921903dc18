//! `toolgate::unreachable_rule`

use crate::diagnostic::Diagnostic;
use crate::lint::{and_list, declare_lint, warning, Context};
use crate::resolve::Permission;
use crate::syntax::ast::Effect;

declare_lint! {
    /// ## What it does
    /// Reports an `allow` rule when every tool it targets needs a permission the agent is
    /// not granted, and names the missing permission.
    ///
    /// ## Why is this bad?
    /// The permission gate runs before any rule: a call to a tool whose permissions are not
    /// all granted is refused as `permission_missing`, whatever the rules say. The rule can
    /// never allow anything; usually a `grant` is missing or names the wrong permission.
    ///
    /// This holds for an agent that grants nothing at all (Hermes' `PermissionSet.none()`):
    /// a rule allowing a tool that needs a permission can only ever be refused. Where a
    /// policy shows that on purpose, silence the lint on the rule with
    /// `# toolgate: allow(unreachable_rule)`.
    ///
    /// ## Example
    /// ```policy
    /// server git {
    ///   tool git_log(repo_path)  needs fs:read
    ///   tool git_push(repo_path) needs net:http
    /// }
    /// agent ci {
    ///   grant fs:read
    ///   allow git.git_log
    ///   allow git.git_push
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// server git {
    ///   tool git_log(repo_path)  needs fs:read
    ///   tool git_push(repo_path) needs net:http
    /// }
    /// agent ci {
    ///   grant fs:read, net:http
    ///   allow git.git_log
    ///   allow git.git_push
    /// }
    /// ```
    pub static UNREACHABLE_RULE = {
        code: UNREACHABLE_RULE,
        stage: Lint,
    }
}

/// When every tool rule `r` of agent `a` covers is refused by the permission gate: each
/// tool with its first missing permission. `None` when some tool gets through and when the
/// policy has no catalog.
#[allow(
    clippy::indexing_slicing,
    reason = "`a` and the rule indices are positions of an agent and its rules in `cx.policy`, as the callers enumerate them; `cx.skip` has the policy's shape"
)]
pub(crate) fn gated<'a>(
    cx: &Context<'a>,
    a: usize,
    r: usize,
) -> Option<Vec<(u32, &'a Permission)>> {
    // With a refused grant, what the agent was meant to be granted is unknown: the error
    // on the grant is the finding.
    if cx.policy.agents[a].invalid_grants || cx.skip[a][r] || cx.covers(a, r).is_empty() {
        return None;
    }
    cx.covers(a, r)
        .iter()
        .map(|&t| cx.policy.missing(a, t).map(|p| (t, p)))
        .collect()
}

/// The diagnostic for a rule no call can reach.
#[allow(
    clippy::indexing_slicing,
    reason = "`a` and the rule indices are positions of an agent and its rules in `cx.policy`, as the callers enumerate them; `cx.skip` has the policy's shape"
)]
pub(crate) fn report(
    cx: &Context,
    a: usize,
    r: usize,
    lint: &crate::lint::Lint,
    what: &str,
    gated: &[(u32, &Permission)],
) -> Diagnostic {
    let agent = &cx.policy.agents[a];
    let rule = &agent.rules[r];
    let head = format!("{} {}", rule.effect.as_str(), rule.target.text);
    let mut missing: Vec<String> = Vec::new();
    for (_, p) in gated {
        let p = format!("`{p}`");
        if !missing.contains(&p) {
            missing.push(p);
        }
    }
    let message = match gated {
        [(t, p)] => format!(
            "`{head}` {what}: `{}` needs `{p}`, which agent `{}` is not granted",
            cx.tool_name(*t),
            agent.name
        ),
        _ => {
            let shown: Vec<String> = gated
                .iter()
                .take(3)
                .map(|(t, p)| format!("`{}` needs `{p}`", cx.tool_name(*t)))
                .collect();
            let more = if gated.len() > 3 {
                format!(" (and {} more tools)", gated.len() - 3)
            } else {
                String::new()
            };
            format!(
                "`{head}` {what}: every tool it targets needs a permission agent `{}` is not granted ({}{more})",
                agent.name,
                shown.join(", ")
            )
        }
    };
    warning(lint, rule.span, message)
        .with_label(format!("needs {}, not granted", and_list(&missing)))
        .with_help(format!(
            "grant {} to agent `{}` if it should reach these tools, or remove the rule",
            and_list(&missing),
            agent.name
        ))
}

/// Runs the lint.
pub(crate) fn check(cx: &mut Context, out: &mut Vec<Diagnostic>) {
    for (a, agent) in cx.agents() {
        for (r, rule) in agent.rules.iter().enumerate() {
            if rule.effect != Effect::Allow {
                continue;
            }
            if let Some(g) = gated(cx, a, r) {
                out.push(report(
                    cx,
                    a,
                    r,
                    &UNREACHABLE_RULE,
                    "can never allow a call",
                    &g,
                ));
            }
        }
    }
}
