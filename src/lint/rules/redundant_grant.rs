//! `toolgate::redundant_grant`

use crate::diagnostic::Diagnostic;
use crate::lint::{declare_lint, warning, Context};
use crate::resolve::Grant;

declare_lint! {
    /// ## What it does
    /// Reports a granted permission that another grant of the same agent already covers: the
    /// same permission twice, `fs:read` next to `fs:*`, or anything next to `*`.
    ///
    /// ## Why is this bad?
    /// It changes nothing, and it misleads: a reader who sees `grant fs:read` believes the
    /// agent may only read, while an `fs:*` elsewhere in the agent grants every `fs` action,
    /// including ones tools add later.
    ///
    /// ## Example
    /// ```policy
    /// tool read_file(path)        needs fs:read
    /// tool write_file(path, body) needs fs:write
    /// agent editor {
    ///   grant fs:read
    ///   grant fs:*
    ///   allow read_file
    ///   allow write_file
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool read_file(path)        needs fs:read
    /// tool write_file(path, body) needs fs:write
    /// agent editor {
    ///   grant fs:*
    ///   allow read_file
    ///   allow write_file
    /// }
    /// ```
    pub static REDUNDANT_GRANT = {
        code: REDUNDANT_GRANT,
        stage: Lint,
    }
}

fn covers(wide: &Grant, narrow: &Grant) -> bool {
    match (wide, narrow) {
        (Grant::All, _) => true,
        (Grant::Domain(d), Grant::Domain(e)) => d == e,
        (Grant::Domain(d), Grant::Exact(p)) => *d == p.domain,
        (Grant::Exact(p), Grant::Exact(q)) => p == q,
        _ => false,
    }
}

/// Runs the lint.
pub(crate) fn check(cx: &mut Context, out: &mut Vec<Diagnostic>) {
    for (_, agent) in cx.agents() {
        for (i, (g, span)) in agent.grants.iter().enumerate() {
            // Covered by a different grant, or equal to an earlier one.
            let by = agent
                .grants
                .iter()
                .enumerate()
                .find(|(j, (h, _))| *j != i && covers(h, g) && (h != g || *j < i));
            let Some((_, (h, hspan))) = by else {
                continue;
            };
            let message = if h == g {
                format!("`{g}` is granted twice to agent `{}`", agent.name)
            } else {
                format!(
                    "`{g}` is already granted to agent `{}` by `{h}`",
                    agent.name
                )
            };
            out.push(
                warning(&REDUNDANT_GRANT, *span, message)
                    .with_label("already granted")
                    .with_related(*hspan, "covered by this grant")
                    .with_help("remove it; if the agent should have only this permission, narrow the wider grant instead"),
            );
        }
    }
}
