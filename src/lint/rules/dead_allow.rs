//! `toolgate::dead_allow`

use crate::diagnostic::Diagnostic;
use crate::lint::cover::first_covering;
use crate::lint::{declare_lint, warning, Context};
use crate::syntax::ast::Effect;

declare_lint! {
    /// ## What it does
    /// Reports an `allow` rule when a `deny` rule of the same agent refuses every call the
    /// allow admits: the deny's target covers every tool the allow reaches, and each of the
    /// deny's conditions holds whenever the allow's conditions do.
    ///
    /// Conditions are compared on what they match (glob ⊆ glob, regex ⊆ regex, literal ∈
    /// pattern, number ranges), decided with automata, not by comparing text. A deny condition
    /// only fires on an argument the call includes, so it counts only when the argument is
    /// required by every targeted tool or demanded by the allow (`ARG present`). Calls whose
    /// argument is an empty array are not counted.
    ///
    /// ## Why is this bad?
    /// Deny wins over allow, so the allow never allows anything. Either the allow is
    /// leftover, or the deny is broader than intended and refuses calls the author meant to
    /// allow.
    ///
    /// ## Example
    /// ```policy
    /// tool read_file(path)
    /// agent reader {
    ///   allow read_file where path matches "/srv/secrets/**"
    ///   deny  read_file where path matches "/srv/**"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool read_file(path)
    /// agent reader {
    ///   allow read_file where path matches "/srv/**"
    ///   deny  read_file where path matches "/srv/secrets/**"
    /// }
    /// ```
    pub static DEAD_ALLOW = {
        code: DEAD_ALLOW,
        stage: Lint,
    }
}

/// Runs the lint; records the dead rules in the context.
#[allow(
    clippy::indexing_slicing,
    reason = "`first_covering` passes positions of an agent and two of its rules in `cx.policy`"
)]
pub(crate) fn check(cx: &mut Context, out: &mut Vec<Diagnostic>) {
    first_covering(
        cx,
        Effect::Deny,
        |_, _, _, _| true,
        |cx, a, r, s| {
            let agent = &cx.policy.agents[a];
            let (allow, deny) = (&agent.rules[r], &agent.rules[s]);
            let line = cx.policy.sources.location(deny.span).line;
            out.push(
                warning(
                    &DEAD_ALLOW,
                    allow.span,
                    format!(
                        "`allow {}` never allows a call: the `deny {}` on line {line} refuses every call it admits",
                        allow.target.text, deny.target.text
                    ),
                )
                .with_label("every call this admits is denied")
                .with_related(deny.span, "this deny wins")
                .with_help("remove the allow, or narrow the deny if it refuses calls that should be allowed"),
            );
            cx.dead.insert((a, r));
        },
    );
}
