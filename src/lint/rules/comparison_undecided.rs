//! `toolgate::comparison_undecided`

use crate::diagnostic::Diagnostic;
use crate::lint::{declare_lint, warning, Context};

declare_lint! {
    /// ## What it does
    /// Reports, once per agent, that `redundant_allow` and `dead_allow` could not decide
    /// whether some of its `allow` rules are covered by another rule: the two rules' patterns
    /// were too large to compare as automata, or the policy was so large that the run's
    /// budget for comparisons was spent (`toolgate check` bounds that work so it finishes in
    /// seconds on any policy). The report points at the first such rule, names the rule it
    /// could not be compared with, and counts the others.
    ///
    /// ## Why is this bad?
    /// Nothing is wrong with the policy itself, but the check is incomplete: a redundant or
    /// dead allow among these rules would go unreported. Saying so is better than a silent
    /// pass a reviewer would read as "no findings".
    ///
    /// ## Example
    /// ```policy
    /// tool search(query)
    /// agent bot {
    ///   allow search where query matches re"^\w{1,100}$"
    ///   allow search where query matches re"^[a-z]{1,20}$"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool search(query)
    /// agent bot {
    ///   # ASCII word characters: small enough to compare with the other patterns.
    ///   allow search where query matches re"^[A-Za-z0-9_]{1,100}$"
    ///   allow search where query matches re"^[a-z]{1,20}-[0-9]+$"
    /// }
    /// ```
    ///
    /// Or keep the patterns and silence the report with `# toolgate: allow(comparison_undecided)`
    /// on the line before the reported rule.
    pub static COMPARISON_UNDECIDED = {
        code: COMPARISON_UNDECIDED,
        stage: Lint,
    }
}

/// Runs the lint on what the coverage lints recorded in `cx.undecided`.
pub(crate) fn check(cx: &mut Context, out: &mut Vec<Diagnostic>) {
    let mut by_agent: Vec<(usize, usize, Option<usize>, usize)> = Vec::new();
    for (&(a, r), &other) in &cx.undecided {
        match by_agent.last_mut() {
            Some(last) if last.0 == a => last.3 += 1,
            _ => by_agent.push((a, r, other, 0)),
        }
    }
    for (a, r, other, more) in by_agent {
        let Some(agent) = cx.policy.agents.get(a) else {
            continue;
        };
        let Some(rule) = agent.rules.get(r) else {
            continue;
        };
        let others = match more {
            0 => String::new(),
            1 => format!(" (and 1 more rule of agent `{}`)", agent.name),
            n => format!(" (and {n} more rules of agent `{}`)", agent.name),
        };
        let with = other.and_then(|s| agent.rules.get(s));
        let message = match with {
            Some(o) => format!(
                "`{} {}`{others} could not be compared with the `{} {}` on line {}: `redundant_allow` and `dead_allow` may miss findings here",
                rule.effect.as_str(),
                rule.target.text,
                o.effect.as_str(),
                o.target.text,
                cx.policy.sources.location(o.span).line
            ),
            None => format!(
                "`{} {}`{others} could not be compared with the other rules: the policy is too large for `redundant_allow` and `dead_allow` to compare every pair",
                rule.effect.as_str(), rule.target.text
            ),
        };
        let mut d = warning(&COMPARISON_UNDECIDED, rule.span, message)
            .with_label("not judged for redundant or dead allows")
            .with_help("patterns with large bounded repetitions or Unicode classes are too large to compare; narrow them (ASCII classes, smaller bounds) if these rules should be checked, or split a very large agent");
        if let Some(o) = with {
            d = d.with_related(o.span, "the rule it could not be compared with");
        }
        out.push(d);
    }
}
