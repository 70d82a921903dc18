//! Which rules decide that no call to a catalog tool can be allowed, as the tool listing
//! (docs/language.md section 12) and `toolgate matrix` (docs/review.md) both judge it.
//!
//! A tool is listed when some allow may apply and no deny always overrides it. Both the
//! compiler (the listing behind `tools`, the gateway's `tools/list` and the bindings) and the
//! matrix (its `never` cells) use these functions, so a tool is listed exactly when its
//! matrix cell is not `never`.

use super::{CondTest, Policy, RuleDef};
use crate::syntax::ast::Effect;

/// True when every call to catalog tool `tool` that passes the argument check satisfies
/// `rule`'s conditions: it has none, or only `present` on required top-level arguments.
/// `None` for `tool` (no catalog) counts only rules without conditions.
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "tool t(s, o?)\nagent a {\n deny t where s present\n deny t where o present\n}");
/// let (policy, _) = toolgate::load::policy_from_sources(m);
/// let rules = &policy.agents[0].rules;
/// assert!(toolgate::resolve::listing::fires_on_every_call(&policy, Some(0), &rules[0]));
/// assert!(!toolgate::resolve::listing::fires_on_every_call(&policy, Some(0), &rules[1]));
/// ```
pub fn fires_on_every_call(policy: &Policy, tool: Option<u32>, rule: &RuleDef) -> bool {
    rule.conditions
        .iter()
        .all(|c| matches!(c.test, CondTest::Present) && required(policy, tool, &c.path))
}

/// True when argument `path` is a required top-level argument of catalog tool `tool`.
fn required(policy: &Policy, tool: Option<u32>, path: &[String]) -> bool {
    let [arg] = path else {
        return false;
    };
    tool.and_then(|t| policy.tools.get(t as usize))
        .and_then(|t| t.params.as_ref())
        .is_some_and(|ps| ps.iter().any(|p| p.name == *arg && !p.optional))
}

/// True when `deny`, whose conditions are all `present`, fires on every call to catalog tool
/// `tool` that `allow` admits: each argument it needs is required by the tool or needed by a
/// `present` condition of `allow`. Both rules are taken to target the tool. A deny with value
/// conditions is never counted (a call whose argument is an empty array satisfies an allow's
/// conditions vacuously and fires no deny condition).
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "tool t(s?)\nagent a {\n allow t where s present\n deny t where s present\n}");
/// let (policy, _) = toolgate::load::policy_from_sources(m);
/// let rules = &policy.agents[0].rules;
/// assert!(toolgate::resolve::listing::overrides(&policy, 0, &rules[0], &rules[1]));
/// ```
pub fn overrides(policy: &Policy, tool: u32, allow: &RuleDef, deny: &RuleDef) -> bool {
    deny.conditions.iter().all(|c| {
        matches!(c.test, CondTest::Present)
            && (required(policy, Some(tool), &c.path)
                || allow
                    .conditions
                    .iter()
                    .any(|a| a.path == c.path && matches!(a.test, CondTest::Present)))
    })
}

/// True when some call to catalog tool `tool` may be allowed by `rules` (the agent's rules
/// that target the tool, in order) and the agent's `default`: no deny fires on every call,
/// and the default is allow or some allow is not overridden by a deny ([`overrides`]). The
/// permission gate and the tool lookup are judged apart.
///
/// ```
/// use toolgate::syntax::ast::Effect;
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "tool t(s)\nagent a {\n allow t\n deny t where s present\n}");
/// let (policy, _) = toolgate::load::policy_from_sources(m);
/// let rules: Vec<_> = policy.agents[0].rules.iter().collect();
/// assert!(!toolgate::resolve::listing::may_allow(&policy, 0, Effect::Deny, &rules));
/// ```
pub fn may_allow(policy: &Policy, tool: u32, default: Effect, rules: &[&RuleDef]) -> bool {
    let denies = || rules.iter().filter(|r| r.effect == Effect::Deny);
    if denies().any(|d| fires_on_every_call(policy, Some(tool), d)) {
        return false;
    }
    default == Effect::Allow
        || rules
            .iter()
            .filter(|r| r.effect == Effect::Allow)
            .any(|a| !denies().any(|d| overrides(policy, tool, a, d)))
}
