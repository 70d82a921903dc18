//! `toolgate::redundant_allow`

use crate::diagnostic::Diagnostic;
use crate::lint::cover::{covers, first_covering};
use crate::lint::{declare_lint, warning, Context};
use crate::syntax::ast::Effect;

declare_lint! {
    /// ## What it does
    /// Reports an `allow` rule when another `allow` of the same agent already admits every
    /// call it admits: the other rule's target covers every tool this one reaches, and each of
    /// the other rule's conditions is implied by a condition of this one on the same argument.
    ///
    /// Implication is decided on what the patterns match, with automata: glob ⊆ glob
    /// (`"/srv/data/**"` ⊆ `"/srv/**"`), regex ⊆ regex (`re"^SELECT\s+id"` ⊆ `re"^SELECT\s"`),
    /// literal ∈ pattern (`== "/srv/a"` ⊆ `"/srv/**"`), and number ranges (`<= 600` ⊆
    /// `< 1000`); not by comparing text. A comparison too large to decide is taken as "not
    /// redundant". Of two equivalent rules, the later one is reported.
    ///
    /// ## Why is this bad?
    /// The rule changes no decision. A reader reviewing it believes it matters (perhaps that
    /// it is the only way in), while the broader rule admits more. Redundant rules hide the
    /// real extent of an agent's access.
    ///
    /// ## Example
    /// ```policy
    /// tool read_file(path)
    /// agent reader {
    ///   allow read_file where path matches "/srv/**"
    ///   allow read_file where path matches "/srv/reports/*.csv"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool read_file(path)
    /// agent reader {
    ///   allow read_file where path matches "/srv/**"
    /// }
    /// ```
    pub static REDUNDANT_ALLOW = {
        code: REDUNDANT_ALLOW,
        stage: Lint,
    }
}

/// Runs the lint.
#[allow(
    clippy::indexing_slicing,
    reason = "`first_covering` passes positions of an agent and two of its rules in `cx.policy`"
)]
pub(crate) fn check(cx: &mut Context, out: &mut Vec<Diagnostic>) {
    first_covering(
        cx,
        Effect::Allow,
        // Equivalent rules: report only the later one.
        |cx, a, r, s| s < r || !covers(cx, a, s, &cx.reachable(a, s), r),
        |cx, a, r, s| {
            let agent = &cx.policy.agents[a];
            let (this, other) = (&agent.rules[r], &agent.rules[s]);
            let line = cx.policy.sources.location(other.span).line;
            out.push(
                warning(
                    &REDUNDANT_ALLOW,
                    this.span,
                    format!(
                        "`allow {}` is redundant: the `allow {}` on line {line} already admits every call it admits",
                        this.target.text, other.target.text
                    ),
                )
                .with_label("admits nothing the other rule does not")
                .with_related(other.span, "already admits these calls")
                .with_help("remove this rule, or narrow the other one if it admits more than intended"),
            );
        },
    );
}
