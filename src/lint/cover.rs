//! Rule coverage: does one rule fire on every call another rule admits?
//!
//! Used by `redundant_allow` (an allow covered by another allow) and `dead_allow` (an allow
//! covered by a deny). A rule `S` covers an allow `R` of the same agent when `S`'s target
//! covers every tool `R` can reach and every condition of `S` is implied by a condition of
//! `R` on the same argument, decided on the conditions' value languages ([`ValueSet`]).
//!
//! Candidate pairs are pruned through a [`RuleIndex`]: a covering rule is indexed under each
//! tool it covers, the argument of its first value condition, and that condition's literal
//! prefix and literal suffix, or, when it has neither, a literal every value it admits
//! contains ([`super::factor`]); a rule looks up only the buckets of its first tool, its own
//! arguments, the prefixes of its own literal prefix, the suffixes of its own literal suffix,
//! and the factors found in a sample of its own values. No pass compares all pairs of rules
//! of these shapes.
//!
//! What is left is bounded: the comparisons of one run share a budget of candidate pairs
//! ([`PAIR_BUDGET`]) and of automaton work (in [`super::lang::Langs`]). A pair left
//! undecided, by the budget or by automata too large to compare, is recorded in
//! [`Context::undecided`] and reported by `comparison_undecided` instead of being passed over
//! in silence.

use super::lang::{StrSet, ValueSet};
use super::Context;
use crate::resolve::{CondTest, NamePattern, RuleDef, TargetDef};
use crate::syntax::ast::Effect;
use aho_corasick::{AhoCorasick, AhoCorasickKind};
use std::collections::HashMap;

/// The candidate pairs the coverage lints of one run may compare together.
pub(crate) const PAIR_BUDGET: usize = 2_000_000;

/// What a rule is indexed under: a catalog tool it covers (its index in the resolved policy's
/// tools), or without a catalog the literal tool name of its target (numbered in first-seen
/// order), or any tool (a glob or `*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum ToolKey {
    Tool(u32),
    Name(usize),
    Wild,
}

/// A bucket key: a tool key and the argument of the key condition (`None` for rules without
/// a value condition).
type BucketKey = (ToolKey, Option<Vec<String>>);

/// The rules of one bucket by the literal prefix, then the literal suffix, of their key
/// condition.
type ByPrefix = HashMap<String, HashMap<String, Vec<usize>>>;

/// Up to this many window lookups (distinct factor lengths times the value's length), the
/// factors in a value are found by looking up each window; past it, by an automaton.
const WINDOW_LOOKUPS: usize = 512;

/// The rules of one bucket without a literal prefix or suffix but with a required factor:
/// the factors, the rules of each, and how to find them in a value.
#[derive(Default)]
struct ByFactor {
    factors: Vec<Vec<u8>>,
    rules: Vec<Vec<usize>>,
    positions: HashMap<Vec<u8>, usize>,
    /// The factors' distinct lengths.
    lengths: Vec<usize>,
    /// An automaton over the factors, built the first time a value is too long for window
    /// lookups (`None` inside when it cannot be built). Values are samples, mostly short, so
    /// it is seldom built: building one over thousands of factors costs more than all the
    /// lookups (its construction is quadratic when many short factors share a prefix).
    finder: std::cell::OnceCell<Option<AhoCorasick>>,
}

impl ByFactor {
    fn add(&mut self, factor: Vec<u8>, rule: usize) {
        let next = self.factors.len();
        let at = *self.positions.entry(factor.clone()).or_insert(next);
        if at == next {
            if let Err(i) = self.lengths.binary_search(&factor.len()) {
                self.lengths.insert(i, factor.len());
            }
            self.factors.push(factor);
            self.rules.push(Vec::new());
        }
        if let Some(v) = self.rules.get_mut(at) {
            v.push(rule);
        }
    }

    /// The rules whose factor occurs in `value`; every rule when `value` is unknown (or the
    /// automaton could not be built).
    /// Calls `add` with the rules of each factor found in `value` (of every factor when no
    /// value is known) until it returns true.
    fn find(&self, value: Option<&[u8]>, add: &mut dyn FnMut(&[usize]) -> bool) {
        let Some(v) = value else {
            for r in &self.rules {
                if add(r) {
                    return;
                }
            }
            return;
        };
        if self.lengths.len().saturating_mul(v.len()) <= WINDOW_LOOKUPS {
            // Factors are never empty (`windows` needs a length of at least one).
            for &n in self.lengths.iter().filter(|&&n| n > 0) {
                for w in v.windows(n) {
                    if let Some(rules) = self.positions.get(w).and_then(|&at| self.rules.get(at)) {
                        if add(rules) {
                            return;
                        }
                    }
                }
            }
            return;
        }
        let finder = self.finder.get_or_init(|| {
            AhoCorasick::builder()
                .kind(Some(AhoCorasickKind::NoncontiguousNFA))
                .build(&self.factors)
                .ok()
        });
        match finder {
            Some(f) => {
                for m in f.find_overlapping_iter(v) {
                    if let Some(rules) = self.rules.get(m.pattern().as_usize()) {
                        if add(rules) {
                            return;
                        }
                    }
                }
            }
            None => {
                for r in &self.rules {
                    if add(r) {
                        return;
                    }
                }
            }
        }
    }
}

/// Buckets of rules by (tool, argument of the key condition) and literal prefix.
#[derive(Default)]
pub(crate) struct RuleIndex {
    buckets: HashMap<BucketKey, ByPrefix>,
    factors: HashMap<BucketKey, ByFactor>,
    names: HashMap<String, usize>,
}

impl RuleIndex {
    fn name_key(&mut self, target: &TargetDef) -> ToolKey {
        match &target.tool {
            NamePattern::Literal(n) => {
                let next = self.names.len();
                ToolKey::Name(*self.names.entry(n.clone()).or_insert(next))
            }
            _ => ToolKey::Wild,
        }
    }

    /// Indexes rules `rules` (indices into agent `a`'s rules) as covering rules.
    #[allow(
        clippy::indexing_slicing,
        reason = "`a` and the rule indices are positions of an agent and its rules in `cx.policy`, as the callers enumerate them; `cx.skip` has the policy's shape"
    )]
    pub(crate) fn build(cx: &mut Context, a: usize, rules: &[usize]) -> RuleIndex {
        let mut index = RuleIndex::default();
        let agent = &cx.policy.agents[a];
        for &s in rules {
            let rule = &agent.rules[s];
            let key_cond = rule
                .conditions
                .iter()
                .find(|c| !matches!(c.test, CondTest::Present));
            let cond_keys = key_cond.map(|c| cx.langs.keys(&c.test));
            let (path, prefix, suffix) = match (key_cond, &cond_keys) {
                (Some(c), Some(k)) => (
                    Some(c.path.clone()),
                    ValueSet::prefix(&c.test),
                    k.suffix.clone(),
                ),
                _ => (None, String::new(), String::new()),
            };
            let keys: Vec<ToolKey> = if cx.policy.has_catalog() {
                cx.covers(a, s).iter().map(|&t| ToolKey::Tool(t)).collect()
            } else {
                vec![index.name_key(&rule.target)]
            };
            let factor = match &cond_keys {
                Some(k) if prefix.is_empty() && suffix.is_empty() => k.factor.clone(),
                _ => Vec::new(),
            };
            for k in keys {
                if !factor.is_empty() {
                    index
                        .factors
                        .entry((k, path.clone()))
                        .or_default()
                        .add(factor.clone(), s);
                    continue;
                }
                index
                    .buckets
                    .entry((k, path.clone()))
                    .or_default()
                    .entry(prefix.clone())
                    .or_default()
                    .entry(suffix.clone())
                    .or_default()
                    .push(s);
            }
        }
        index
    }

    /// The indexed rules that may cover rule `r` (reaching `tools`), sorted, without `r`.
    /// With `any`, only whether there is one: the list stops at the first bucket that holds
    /// one (when the pair budget is spent, a rule with candidates is undecided whatever they
    /// are, and listing all of them for each of 10,000 rules would cost more than the rest of
    /// the lint).
    #[allow(
        clippy::indexing_slicing,
        reason = "`a` and the rule indices are positions of an agent and its rules in `cx.policy`, as the callers enumerate them; `cx.skip` has the policy's shape"
    )]
    pub(crate) fn candidates(
        &self,
        cx: &mut Context,
        a: usize,
        r: usize,
        tools: &[u32],
        any: bool,
    ) -> Vec<usize> {
        let rule = &cx.policy.agents[a].rules[r];
        let keys: Vec<ToolKey> = if cx.policy.has_catalog() {
            tools
                .first()
                .map(|&t| ToolKey::Tool(t))
                .into_iter()
                .collect()
        } else {
            let own = match &rule.target.tool {
                NamePattern::Literal(n) => self.names.get(n).map(|&n| ToolKey::Name(n)),
                _ => None,
            };
            own.into_iter().chain([ToolKey::Wild]).collect()
        };
        let mut out = Vec::new();
        let found = |out: &Vec<usize>| any && out.iter().any(|&s| s != r);
        // With `any`, one rule of a bucket other than `r` is enough (not a copy of thousands);
        // true once one is there.
        let extend = |out: &mut Vec<usize>, v: &[usize]| {
            if !any {
                out.extend(v);
                return false;
            }
            if let Some(&s) = v.iter().find(|&&s| s != r) {
                out.push(s);
                return true;
            }
            false
        };
        'keys: for k in keys {
            if let Some(b) = self.buckets.get(&(k, None)) {
                b.values().flat_map(HashMap::values).for_each(|v| {
                    extend(&mut out, v);
                });
            }
            for c in &rule.conditions {
                if found(&out) {
                    break 'keys;
                }
                if matches!(c.test, CondTest::Present) {
                    continue;
                }
                let key = (k, Some(c.path.clone()));
                if let Some(by) = self.factors.get(&key) {
                    let value = sample(cx, &c.test, rule.effect);
                    by.find(value.as_deref(), &mut |v| extend(&mut out, v));
                }
                let Some(b) = self.buckets.get(&key) else {
                    continue;
                };
                // A covering condition's prefix starts this one's, and its suffix ends it.
                let (prefix, suffix) = (ValueSet::prefix(&c.test), cx.langs.keys(&c.test));
                let suffix = suffix.suffix.as_str();
                let suffixes: Vec<&str> = suffix
                    .char_indices()
                    .map(|(i, _)| &suffix[i..])
                    .chain([""])
                    .collect();
                for (i, _) in prefix.char_indices().chain([(prefix.len(), ' ')]) {
                    let Some(by_suffix) = b.get(&prefix[..i]) else {
                        continue;
                    };
                    for &x in &suffixes {
                        if let Some(v) = by_suffix.get(x) {
                            extend(&mut out, v);
                            if found(&out) {
                                break 'keys;
                            }
                        }
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out.retain(|&s| s != r);
        out
    }
}

/// One value the condition admits, when one is known: a rule covering the condition's rule
/// admits it too, so contains the covering rule's factor.
fn sample(cx: &mut Context, test: &CondTest, effect: Effect) -> Option<Vec<u8>> {
    let set = ValueSet::of(test, effect)?;
    match set.string_set() {
        StrSet::Lits(v) => v.first().map(|x| x.as_bytes().to_vec()),
        StrSet::Plain(p) | StrSet::Path(p) | StrSet::PathOrUnreadable(p) => {
            cx.langs.shortest(p).map(|w| w.to_vec())
        }
        StrSet::None | StrSet::All | StrSet::NotLits(_) => None,
    }
}

fn has_present(rule: &RuleDef, path: &[String]) -> bool {
    rule.conditions
        .iter()
        .any(|c| c.path == path && matches!(c.test, CondTest::Present))
}

/// True when rule `s` of agent `a` fires on every call the allow rule `r` admits; `tools`
/// are the catalog tools `r` can reach. Calls whose argument is an empty array are not
/// counted (an allow admits them vacuously, a deny condition never fires on them).
#[allow(
    clippy::indexing_slicing,
    reason = "`a` and the rule indices are positions of an agent and its rules in `cx.policy`, as the callers enumerate them; `cx.skip` has the policy's shape"
)]
pub(crate) fn covers(cx: &mut Context, a: usize, r: usize, tools: &[u32], s: usize) -> bool {
    let policy = cx.policy;
    let agent = &policy.agents[a];
    let (rr, ss) = (&agent.rules[r], &agent.rules[s]);
    if cx.policy.has_catalog() {
        let cs = cx.covers(a, s);
        if !tools.iter().all(|t| cs.binary_search(t).is_ok()) {
            return false;
        }
    } else if !target_included(cx, &rr.target, &ss.target) {
        return false;
    }
    for (ci, c) in ss.conditions.iter().enumerate() {
        let present = has_present(rr, &c.path) || cx.always_present(tools, &c.path);
        let ok = match &c.test {
            CondTest::Present => present,
            _ => {
                let Some(want) = cx.value_set(a, s, ci) else {
                    return false;
                };
                if ss.effect == Effect::Deny && !present {
                    return false;
                }
                let mut undecided = false;
                let implied = rr.conditions.iter().enumerate().any(|(di, d)| {
                    d.path == c.path
                        && cx.value_set(a, r, di).is_some_and(|have| {
                            let answer = have.subset(&want, &mut cx.langs);
                            undecided |= answer.is_none();
                            answer == Some(true)
                        })
                });
                if !implied && undecided {
                    cx.undecided(a, r, Some(s));
                }
                implied
            }
        };
        if !ok {
            return false;
        }
    }
    true
}

/// Without a catalog: true when target `a` covers only requests target `b` covers.
fn target_included(cx: &mut Context, a: &TargetDef, b: &TargetDef) -> bool {
    let server_ok = match (&a.server, &b.server) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some(x), Some(y)) => cx.langs.name_included(x, y) == Some(true),
    };
    server_ok && cx.langs.name_included(&a.tool, &b.tool) == Some(true)
}

/// For each agent whose default is deny, each of its `allow` rules (not skipped, not already
/// found dead) and the first rule of effect `by` (not skipped) that covers it and that `accept`
/// approves: calls `found(cx, agent, allow, covering rule)`. `dead_allow` (covered by a deny)
/// and `redundant_allow` (covered by another allow) differ only in `by` and what they report.
#[allow(
    clippy::indexing_slicing,
    reason = "`a` and `s` enumerate `cx.policy.agents` and the agent's rules; `cx.skip` has the policy's shape"
)]
pub(crate) fn first_covering(
    cx: &mut Context,
    by: Effect,
    mut accept: impl FnMut(&mut Context, usize, usize, usize) -> bool,
    mut found: impl FnMut(&mut Context, usize, usize, usize),
) {
    let catalog = cx.policy.has_catalog();
    for a in 0..cx.policy.agents.len() {
        let agent = &cx.policy.agents[a];
        if agent.default == Effect::Allow {
            continue;
        }
        let of = |effect: Effect| -> Vec<usize> {
            (0..agent.rules.len())
                .filter(|&s| agent.rules[s].effect == effect && !cx.skip[a][s])
                .collect()
        };
        let (coverers, allows) = (of(by), of(Effect::Allow));
        if coverers.is_empty() || allows.is_empty() {
            continue;
        }
        let index = RuleIndex::build(cx, a, &coverers);
        for r in allows {
            if cx.dead.contains(&(a, r)) {
                continue;
            }
            let tools = cx.reachable(a, r);
            if catalog && tools.is_empty() {
                continue;
            }
            let candidates = index.candidates(cx, a, r, &tools, cx.pairs_left == 0);
            if candidates.len() > cx.pairs_left {
                cx.pairs_left = 0;
                cx.undecided(a, r, None);
                continue;
            }
            cx.pairs_left -= candidates.len();
            for s in candidates {
                if covers(cx, a, r, &tools, s) && accept(cx, a, r, s) {
                    found(cx, a, r, s);
                    break;
                }
            }
        }
    }
}
