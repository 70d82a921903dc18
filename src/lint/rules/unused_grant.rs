//! `toolgate::unused_grant`

use crate::diagnostic::Diagnostic;
use crate::lint::{declare_lint, warning, Context};
use crate::resolve::suggest::did_you_mean;
use crate::resolve::Grant;
use std::collections::BTreeSet;

declare_lint! {
    /// ## What it does
    /// With a tool catalog, reports a granted permission that no declared tool needs. A
    /// domain wildcard `domain:*` is used when any tool needs an action of that domain, and
    /// `*` when any tool needs any permission. A misspelt permission gets a did-you-mean.
    ///
    /// ## Why is this bad?
    /// The grant does nothing today, so it is either a typo (`fs:raed` for `fs:read`, and the
    /// tool that needs `fs:read` stays refused) or a standing permission waiting for a tool
    /// that nobody has reviewed yet: a plugin that later declares a tool needing it is
    /// callable at once.
    ///
    /// ## Example
    /// ```policy
    /// tool read_file(path) needs fs:read
    /// agent reader {
    ///   grant fs:read, net:http
    ///   allow read_file
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool read_file(path) needs fs:read
    /// agent reader {
    ///   grant fs:read
    ///   allow read_file
    /// }
    /// ```
    pub static UNUSED_GRANT = {
        code: UNUSED_GRANT,
        stage: Lint,
    }
}

/// Runs the lint.
pub(crate) fn check(cx: &mut Context, out: &mut Vec<Diagnostic>) {
    if !cx.policy.has_catalog() {
        return;
    }
    let needed: BTreeSet<String> = cx
        .policy
        .tools
        .iter()
        .flat_map(|t| t.needs.iter().map(|p| p.to_string()))
        .collect();
    let domains: BTreeSet<&str> = cx
        .policy
        .tools
        .iter()
        .flat_map(|t| t.needs.iter().map(|p| p.domain.as_str()))
        .collect();
    for (_, agent) in cx.agents() {
        for (grant, span) in &agent.grants {
            let used = match grant {
                Grant::All => !needed.is_empty(),
                Grant::Domain(d) => domains.contains(d.as_str()),
                Grant::Exact(p) => needed.contains(&p.to_string()),
            };
            if used {
                continue;
            }
            let text = grant.to_string();
            let what = match grant {
                Grant::All => "no declared tool needs any permission".to_string(),
                Grant::Domain(d) => format!("no declared tool needs an action of domain `{d}`"),
                Grant::Exact(_) => "no declared tool needs it".to_string(),
            };
            let help = match did_you_mean(&text, needed.iter().map(String::as_str)) {
                Some(s) => format!("did you mean `{s}`?"),
                None => "remove it; grant a permission when a declared tool needs it".to_string(),
            };
            out.push(
                warning(
                    &UNUSED_GRANT,
                    *span,
                    format!("agent `{}` is granted `{text}`, but {what}", agent.name),
                )
                .with_label("needed by no tool")
                .with_help(help),
            );
        }
    }
}
