//! Test coverage: which rules the policy's `test` blocks exercise (`toolgate test --coverage`).
//!
//! Every expectation that holds is decided again with an explanation. A rule is **covered**
//! when
//!
//! - the decision of such an expectation names it (it decided: `allowed_by_rule` or
//!   `denied_by_rule`), or
//! - it is an `allow` rule whose condition failed in an expectation of a deny decided
//!   `no_matching_rule`: had the rule fired, the call would have been allowed, so the failing
//!   condition is what the expectation checks.
//!
//! A rule no call can ever reach is **unreachable** rather than uncovered: with a catalog,
//! every tool it targets is refused before the rules run (a permission the agent is not
//! granted, or a host tool whose name is declared elsewhere too, so no request can name it),
//! or it targets no tool at all. No test can exercise such a rule, so it is listed apart and
//! left out of the totals (`toolgate check` reports it). Everything is read from the
//! [`Engine`], so a compiled bundle, which carries its policy's tests, is covered exactly as
//! its source is.

use crate::engine::{Engine, Reason, RuleRef};
use crate::program::ids::{AgentId, LocalRuleId};
use crate::program::Program;
use crate::resolve::TestCase;
use crate::source::Location;
use crate::syntax::ast::Effect;
use std::collections::HashMap;

/// How a test exercises a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum How {
    /// The rule decided the expectation's request.
    Decided,
    /// The expectation is a deny decided `no_matching_rule`, and this condition of the
    /// (`allow`) rule, as written, is the first that did not hold.
    FailedCondition(String),
}

/// The expectation that exercises a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoveredBy {
    /// The test block's name.
    pub test: String,
    /// Where the expectation is written.
    pub location: Location,
    /// How it exercises the rule.
    pub how: How,
}

/// Whether a rule is exercised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Some expectation exercises it (one that decided it when there is one, else the first).
    Covered(CoveredBy),
    /// No expectation exercises it.
    Uncovered,
    /// No call can reach it; the text says why. Not counted in the totals.
    Unreachable(String),
}

/// One rule and its coverage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleCoverage {
    /// The rule: agent, effect, target and location.
    pub rule: RuleRef,
    /// The rule as written, without `because`: `allow T where C and D`.
    pub text: String,
    /// Whether a test exercises it.
    pub status: Status,
}

/// Covered and counted rules of a set (an agent, or the whole policy).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tally {
    /// Rules some test exercises.
    pub covered: usize,
    /// Rules a call can reach (the unreachable ones are not counted).
    pub total: usize,
    /// Rules no call can reach.
    pub unreachable: usize,
}

impl Tally {
    /// The covered share in percent, rounded **down** to one decimal (so that 99.96 % reads
    /// 99.9 %, never 100 %); 100 when there is nothing to cover.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::testing::coverage::Tally;
    /// assert_eq!(Tally { covered: 2, total: 3, unreachable: 0 }.percent(), 66.6);
    /// assert_eq!(Tally { covered: 0, total: 0, unreachable: 1 }.percent(), 100.0);
    /// ```
    pub fn percent(&self) -> f64 {
        if self.total == 0 {
            return 100.0;
        }
        let tenths = (self.covered as u128 * 1000) / self.total as u128;
        tenths as f64 / 10.0
    }

    /// True when the covered share is at least `min` percent (compared exactly, not on the
    /// rounded [`percent`](Tally::percent)).
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::testing::coverage::Tally;
    /// let t = Tally { covered: 1999, total: 2000, unreachable: 0 };
    /// assert!(t.meets(99.95) && !t.meets(100.0));
    /// ```
    pub fn meets(&self, min: f64) -> bool {
        self.covered as f64 * 100.0 >= min * self.total as f64
    }

    fn count(&mut self, status: &Status) {
        match status {
            Status::Covered(_) => {
                self.covered += 1;
                self.total += 1;
            }
            Status::Uncovered => self.total += 1,
            Status::Unreachable(_) => self.unreachable += 1,
        }
    }
}

/// The coverage of every rule of a policy, in the engine's order (agents in declaration
/// order, each agent's rules in source order).
///
/// # Example
///
/// ```
/// let engine = toolgate::load::engine_from_str("p.policy", r#"
/// tool t(p)
/// tool u
/// agent a {
///   allow t where p == "x"
///   allow u
/// }
/// test "x" {
///   deny a t { p: "y" } no_matching_rule
/// }"#).unwrap();
/// let cov = toolgate::testing::coverage::coverage(&engine);
/// let uncovered: Vec<String> = cov.uncovered().map(|r| r.text.clone()).collect();
/// assert_eq!(uncovered, ["allow u"]);
/// assert_eq!((cov.overall().covered, cov.overall().total), (1, 2));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Coverage {
    /// Every rule with its coverage.
    pub rules: Vec<RuleCoverage>,
}

impl Coverage {
    /// The tally of every rule.
    pub fn overall(&self) -> Tally {
        let mut t = Tally::default();
        for r in &self.rules {
            t.count(&r.status);
        }
        t
    }

    /// The tally of each agent that has rules, in declaration order.
    pub fn per_agent(&self) -> Vec<(String, Tally)> {
        let mut out: Vec<(String, Tally)> = Vec::new();
        for r in &self.rules {
            match out.last_mut() {
                Some((agent, t)) if **agent == *r.rule.agent => t.count(&r.status),
                _ => {
                    let mut t = Tally::default();
                    t.count(&r.status);
                    out.push((r.rule.agent.to_string(), t));
                }
            }
        }
        out
    }

    /// The rules a call can reach that no test exercises.
    pub fn uncovered(&self) -> impl Iterator<Item = &RuleCoverage> {
        self.rules
            .iter()
            .filter(|r| matches!(r.status, Status::Uncovered))
    }

    /// The rules no call can reach.
    pub fn unreachable(&self) -> impl Iterator<Item = &RuleCoverage> {
        self.rules
            .iter()
            .filter(|r| matches!(r.status, Status::Unreachable(_)))
    }
}

/// Computes which rules of the engine's policy its test expectations exercise. Expectations
/// that do not hold exercise nothing (`toolgate test` reports them as failures).
pub fn coverage(engine: &Engine) -> Coverage {
    let program = &engine.program;
    let mut rules: Vec<RuleCoverage> = program
        .rules
        .iter()
        .map(|r| RuleCoverage {
            rule: r.info.clone(),
            text: format!("{} {}", r.info.effect.as_str(), r.info.target),
            status: Status::Uncovered,
        })
        .collect();
    for (a, agent) in program.agents.iter().enumerate() {
        let Some(group) = program.groups.get(agent.group.index()) else {
            continue;
        };
        for (local, id) in group.rule_ids().enumerate() {
            let Some(rule) = rules.get_mut(id.index()) else {
                continue;
            };
            let start = group.rule_conds().row_start(local);
            let conds: Vec<&str> = (0..group.rule_conds().row(local).len())
                .map(|k| group.rule_cond_text.get(start + k))
                .collect();
            if !conds.is_empty() {
                rule.text = format!("{} where {}", rule.text, conds.join(" and "));
            }
            let why = LocalRuleId::new(local)
                .ok()
                .and_then(|local| unreachable(program, a, local));
            if let Some(why) = why {
                rule.status = Status::Unreachable(why);
            }
        }
    }
    let index: HashMap<(&str, &str, usize, usize), usize> = program
        .rules
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let at = &r.info;
            ((&*at.agent, &*at.file, at.line, at.column), i)
        })
        .collect();
    let find = |r: &RuleRef| index.get(&(&*r.agent, &*r.file, r.line, r.column)).copied();
    for case in engine.test_cases() {
        for (i, how) in exercised(engine, case, &find) {
            if let Some(rule) = rules.get_mut(i) {
                record(
                    &mut rule.status,
                    CoveredBy {
                        test: case.block.clone(),
                        location: case.location.clone(),
                        how,
                    },
                );
            }
        }
    }
    Coverage { rules }
}

/// The rules (indices into the engine's rules) one expectation exercises, and how.
fn exercised(
    engine: &Engine,
    case: &TestCase,
    find: &impl Fn(&RuleRef) -> Option<usize>,
) -> Vec<(usize, How)> {
    let d = engine.decide_explained(&case.request());
    if !case.holds(&d) {
        return Vec::new();
    }
    let mut out = Vec::new();
    if let Some(i) = d.rule.as_deref().and_then(find) {
        out.push((i, How::Decided));
    }
    if d.reason == Reason::NoMatchingRule {
        let traces = d.explanation.iter().flat_map(|e| e.rules.iter());
        for t in traces.filter(|t| t.rule.effect == Effect::Allow) {
            if let (Some(cond), Some(i)) = (&t.failed_condition, find(&t.rule)) {
                out.push((i, How::FailedCondition(cond.clone())));
            }
        }
    }
    out
}

/// Records that `by` exercises a rule: the first expectation is kept, unless a later one
/// decided the rule where the first only failed a condition of it.
fn record(status: &mut Status, by: CoveredBy) {
    match status {
        Status::Unreachable(_) => {}
        Status::Covered(first) if first.how == How::Decided || by.how != How::Decided => {}
        _ => *status = Status::Covered(by),
    }
}

/// Why no call can reach rule `local` of agent `a`, or `None` when one can. Without a catalog
/// any tool name may be requested, so every rule can be reached.
fn unreachable(program: &Program, a: usize, local: LocalRuleId) -> Option<String> {
    let cat = program.catalog.as_ref()?;
    let agent = program.agents.get(a)?;
    let id = AgentId::new(a).ok()?;
    let mut blocked = Vec::new();
    for tool in cat.tools() {
        let t = tool.id().index();
        if !cat.candidates(id, tool.id()).0.contains(&local) {
            continue;
        }
        let homonyms = cat.named(tool.name()).count();
        if tool.server().is_none() && homonyms > 1 {
            blocked.push(format!(
                "`{}` cannot be named (a server declares a tool of that name too)",
                tool.display()
            ));
            continue;
        }
        match cat.missing(a * cat.n_tools() + t) {
            Some(p) => blocked.push(format!(
                "`{}` needs `{}`, which agent `{}` is not granted",
                tool.display(),
                program.perms.name(p),
                agent.name
            )),
            None => return None,
        }
    }
    Some(if blocked.is_empty() {
        "it targets no tool of the catalog".to_string()
    } else {
        format!("no call reaches it: {}", blocked.join("; "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cov(src: &str) -> Coverage {
        coverage(&crate::load::engine_from_str("p.policy", src).unwrap())
    }

    fn status_of<'c>(c: &'c Coverage, text: &str) -> &'c Status {
        &c.rules
            .iter()
            .find(|r| r.text == text)
            .unwrap_or_else(|| panic!("no rule `{text}` in {c:?}"))
            .status
    }

    const TWO_ALLOWS: &str = "tool t(p)\nagent a {\n  allow t where p == \"x\"\n  allow t where p == \"y\"\n  deny t where p == \"z\"\n}\n";

    #[test]
    fn a_rule_no_test_reaches_is_uncovered() {
        let c = cov(&format!(
            "{TWO_ALLOWS}test \"x\" {{ allow a t {{ p: \"x\" }} }}"
        ));
        assert!(
            matches!(status_of(&c, "allow t where p == \"x\""), Status::Covered(by) if by.how == How::Decided)
        );
        assert_eq!(
            status_of(&c, "allow t where p == \"y\""),
            &Status::Uncovered
        );
        assert_eq!(status_of(&c, "deny t where p == \"z\""), &Status::Uncovered);
        assert_eq!(
            c.overall(),
            Tally {
                covered: 1,
                total: 3,
                unreachable: 0
            }
        );
        assert_eq!(c.overall().percent(), 33.3);
    }

    #[test]
    fn a_deny_decided_by_no_rule_covers_every_allow_whose_condition_failed() {
        let c = cov(&format!(
            "{TWO_ALLOWS}test \"x\" {{ deny a t {{ p: \"w\" }} no_matching_rule }}"
        ));
        for text in ["allow t where p == \"x\"", "allow t where p == \"y\""] {
            assert!(
                matches!(status_of(&c, text), Status::Covered(by) if by.how == How::FailedCondition(text.trim_start_matches("allow t where ").to_string())),
                "{text}: {c:?}"
            );
        }
        // A deny rule that did not fire decided nothing.
        assert_eq!(status_of(&c, "deny t where p == \"z\""), &Status::Uncovered);
    }

    #[test]
    fn a_deny_decided_by_a_deny_rule_covers_only_that_rule() {
        let c = cov(&format!(
            "{TWO_ALLOWS}test \"x\" {{ deny a t {{ p: \"z\" }} denied_by_rule }}"
        ));
        assert!(matches!(
            status_of(&c, "deny t where p == \"z\""),
            Status::Covered(_)
        ));
        assert_eq!(c.overall().covered, 1);
    }

    #[test]
    fn an_allow_whose_condition_fails_under_a_default_allow_is_not_covered() {
        let c = cov("tool t(p)\nagent a {\n  default allow\n  allow t where p == \"x\"\n}\ntest \"x\" { allow a t { p: \"y\" } default_allow }");
        assert_eq!(
            status_of(&c, "allow t where p == \"x\""),
            &Status::Uncovered
        );
    }

    #[test]
    fn a_failing_expectation_covers_nothing() {
        let c = cov(&format!(
            "{TWO_ALLOWS}test \"x\" {{ deny a t {{ p: \"x\" }}\n deny a t {{ p: \"w\" }} default_allow }}"
        ));
        assert_eq!(c.overall().covered, 0);
    }

    #[test]
    fn a_later_expectation_that_decides_the_rule_is_preferred() {
        let c = cov(&format!(
            "{TWO_ALLOWS}test \"x\" {{ deny a t {{ p: \"w\" }}\n allow a t {{ p: \"y\" }} }}"
        ));
        let Status::Covered(by) = status_of(&c, "allow t where p == \"y\"") else {
            panic!("{c:?}")
        };
        assert_eq!((by.how.clone(), by.location.line), (How::Decided, 8));
        let Status::Covered(by) = status_of(&c, "allow t where p == \"x\"") else {
            panic!("{c:?}")
        };
        assert_eq!(by.location.line, 7);
    }

    #[test]
    fn a_rule_behind_a_permission_never_granted_is_unreachable_and_not_counted() {
        let c = cov("tool t needs fs:write\ntool u\nagent a {\n  allow t\n  allow u\n}\nagent b {\n  grant fs:write\n  allow t\n}\ntest \"x\" { allow a u {}\n allow b t {} }");
        let Status::Unreachable(why) = &c.rules[0].status else {
            panic!("{c:?}")
        };
        assert!(why.contains("`t` needs `fs:write`"), "{why}");
        assert_eq!(
            c.overall(),
            Tally {
                covered: 2,
                total: 2,
                unreachable: 1
            }
        );
        let agents = c.per_agent();
        assert_eq!(agents[0].0, "a");
        assert_eq!((agents[0].1.total, agents[0].1.unreachable), (1, 1));
        assert!(c.overall().meets(100.0));
    }

    #[test]
    fn a_host_tool_whose_name_a_server_also_declares_is_unreachable() {
        // `allow t` covers `s.t` and the host tool `t`; a request naming no server is
        // ambiguous, so only `s.t` can be asked for, and its gate refuses the agent.
        let src = "server s { tool t needs x:y }\ntool t\nagent a {\n  allow t\n}\n";
        let c = cov(src);
        let Status::Unreachable(why) = &c.rules[0].status else {
            panic!("{c:?}")
        };
        assert!(why.contains("`t` cannot be named"), "{why}");
        assert!(why.contains("`s.t` needs `x:y`"), "{why}");
        let granted = cov(&src.replace("agent a {", "agent a {\n  grant x:y"));
        assert_eq!(granted.rules[0].status, Status::Uncovered);
    }

    #[test]
    fn without_a_catalog_every_rule_is_reachable() {
        let c = cov("agent a {\n  grant fs:read\n  allow git.*\n  allow x\n}\ntest \"x\" { allow a git.log {} needs fs:read }");
        assert_eq!(
            c.overall(),
            Tally {
                covered: 1,
                total: 2,
                unreachable: 0
            }
        );
    }

    #[test]
    fn per_agent_tallies_follow_declaration_order() {
        let c = cov("tool t\nagent b { allow t }\nagent a { allow t\n deny t }\ntest \"x\" { allow b t {} }");
        let agents: Vec<(String, usize, usize)> = c
            .per_agent()
            .into_iter()
            .map(|(a, t)| (a, t.covered, t.total))
            .collect();
        assert_eq!(agents, [("b".into(), 1, 1), ("a".into(), 0, 2)]);
    }

    #[test]
    fn a_bundle_is_covered_as_its_source() {
        let src = format!("{TWO_ALLOWS}test \"x\" {{ deny a t {{ p: \"w\" }} }}");
        let engine = crate::load::engine_from_str("p.policy", &src).unwrap();
        let bundle = Engine::from_bundle(&engine.to_bundle()).unwrap();
        assert_eq!(coverage(&bundle), coverage(&engine));
    }
}
