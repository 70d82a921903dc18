//! `toolgate::unsatisfiable_condition`

use crate::diagnostic::Diagnostic;
use crate::lint::lang::ValueSet;
use crate::lint::{declare_lint, warning, Context};
use crate::syntax::ast::Effect;

declare_lint! {
    /// ## What it does
    /// Reports a condition no argument value can satisfy: `in []` or `contains any []`, or,
    /// in an `allow`, two conditions on the same argument that no value satisfies together
    /// (`mode == "ro" and mode == "rw"`, `n < 5 and n > 10`, `path matches "/a/**" and path
    /// matches "/b/**"`). Disjointness is decided on what the patterns match, with automata.
    ///
    /// ## Why is this bad?
    /// An `allow` condition holds vacuously when the call lacks the argument, so such a rule
    /// allows only calls **without** that argument (or none, when the argument is required):
    /// the opposite of a restriction that was probably meant as `or`. A `deny` with an empty
    /// list never fires on the argument.
    ///
    /// ## Example
    /// ```policy
    /// tool open_session(db, mode?)
    /// agent ops {
    ///   allow open_session where mode == "readonly" and mode == "replica"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool open_session(db, mode?)
    /// agent ops {
    ///   allow open_session where mode in ["readonly", "replica"]
    /// }
    /// ```
    pub static UNSATISFIABLE_CONDITION = {
        code: UNSATISFIABLE_CONDITION,
        stage: Lint,
    }
}

/// Runs the lint.
#[allow(
    clippy::indexing_slicing,
    reason = "`a` and `r` enumerate `cx.policy`'s agents and their rules (and `cx.skip` has its shape); `sets` has one entry per condition of the rule, and `i` < `j` enumerate them"
)]
pub(crate) fn check(cx: &mut Context, out: &mut Vec<Diagnostic>) {
    for a in 0..cx.policy.agents.len() {
        for r in 0..cx.policy.agents[a].rules.len() {
            if cx.skip[a][r] {
                continue;
            }
            let rule = &cx.policy.agents[a].rules[r];
            let sets: Vec<Option<ValueSet>> = rule
                .conditions
                .iter()
                .map(|c| ValueSet::of(&c.test, rule.effect))
                .collect();
            let tools = cx.reachable(a, r);
            for (j, c) in rule.conditions.iter().enumerate() {
                let Some(set) = &sets[j] else {
                    continue;
                };
                let arg = c.path.join(".");
                let consequence = if rule.effect == Effect::Deny {
                    "the rule never fires".to_string()
                } else if cx.always_present(&tools, &c.path) {
                    format!("`{arg}` is required, so the rule never allows a call")
                } else {
                    format!("the rule allows only calls without `{arg}`")
                };
                if set.is_empty() {
                    out.push(
                        warning(
                            &UNSATISFIABLE_CONDITION,
                            c.span,
                            format!("no value of `{arg}` satisfies `{}`", c.text),
                        )
                        .with_label(consequence)
                        .with_help("list at least one value, or remove the condition"),
                    );
                    continue;
                }
                if rule.effect == Effect::Deny {
                    continue;
                }
                let clash = (0..j).find(|&i| {
                    rule.conditions[i].path == c.path
                        && sets[i].as_ref().is_some_and(|other| {
                            !other.is_empty() && other.disjoint(set, &mut cx.langs) == Some(true)
                        })
                });
                if let Some(i) = clash {
                    let first = &rule.conditions[i];
                    out.push(
                        warning(
                            &UNSATISFIABLE_CONDITION,
                            c.span,
                            format!(
                                "no value of `{arg}` satisfies both `{}` and `{}`",
                                first.text, c.text
                            ),
                        )
                        .with_label(consequence)
                        .with_related(first.span, "contradicts this condition")
                        .with_help("conditions are joined by `and`; to accept either, write `in [...]` or one rule per alternative"),
                    );
                }
            }
        }
    }
}
