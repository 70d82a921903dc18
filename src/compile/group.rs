//! A rule group: the rules of one agent that can apply to one tool, with one matcher per
//! argument they constrain.
//!
//! Conditions are deduplicated and numbered so that each argument's conditions form one
//! contiguous ID range. Every string pattern on an argument is compiled into one multi-pattern
//! automaton (plus one over the normalized value for path patterns, and one aho-corasick
//! automaton for `contains` needles); a pass reports the satisfied conditions as a bitset.
//! Each rule is indexed under one "key" condition, so finding the rules that fire costs the
//! number of satisfied conditions, not the number of rules.

use super::csr::{Csr, Strings};
use super::dfa::{DfaError, DfaLimits};
use super::index::{Automata, PatternIndex};
use super::matcher::NeedleMatcher;
use crate::resolve::{CondDef, CondTest, RuleDef, StrPattern};
use crate::syntax::ast::{CmpOp, Effect};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Patterns compiled together, and the conditions each pattern satisfies.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct PatternConds<M> {
    pub matcher: M,
    /// Per pattern: the conditions it satisfies.
    pub conds: Csr,
}

/// Everything the rules of a group ask of one argument path.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ArgMatcher {
    /// The argument path.
    pub path: Vec<String>,
    /// The argument's condition IDs are `lo..hi`.
    pub lo: usize,
    pub hi: usize,
    /// Patterns over the raw string value.
    pub raw: Option<PatternConds<PatternIndex>>,
    /// Path patterns over the normalized value.
    pub norm: Option<PatternConds<PatternIndex>>,
    /// `contains` needles (an index into the engine's needle matchers).
    pub needles: Option<PatternConds<u32>>,
    /// Numeric comparisons.
    pub numeric: Vec<(u32, CmpOp, f64)>,
    /// `present` conditions.
    pub present: Vec<u32>,
    /// `!=` conditions (the negation of their pattern).
    pub negated: Vec<u32>,
    /// Path-pattern conditions (fail closed in a deny).
    pub path_conds: Vec<u32>,
}

/// The rules of one agent for one tool (or, without a catalog, all of an agent's rules).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Group {
    /// Global rule IDs in source order; a rule's local ID is its index here.
    pub rules: Vec<u32>,
    /// Effect of each local rule.
    pub effects: Vec<Effect>,
    /// Condition IDs of each local rule, in the rule's order.
    pub rule_conds: Csr,
    /// Per condition: the local rules keyed on it.
    pub keyed: Csr,
    /// Local rules with no condition, ascending.
    pub unconditional: Vec<u32>,
    /// Per argument: the local rules keyed on one of its conditions other than `present`,
    /// ascending (the rules an absent argument satisfies vacuously in an allow).
    pub arg_keyed: Csr,
    /// Number of distinct conditions.
    pub n_conds: usize,
    /// Each rule's conditions as written (aligned with `rule_conds`' items), for
    /// explanations: two rules may share a condition written differently.
    pub rule_cond_text: Strings,
    /// One matcher per argument path.
    pub args: Vec<ArgMatcher>,
    /// Derived (not stored in bundles): the argument of each condition.
    #[serde(skip)]
    pub cond_arg: Vec<u32>,
    /// Derived (not stored in bundles): the arguments some deny rule reads, ascending. A
    /// decision judges these first and stops when a deny fires.
    #[serde(skip)]
    pub deny_args: Vec<u32>,
}

/// Why a group could not be built: the argument whose matcher failed, and why.
#[derive(Debug, Clone)]
pub(crate) struct GroupError {
    pub arg: String,
    pub first_rule: usize,
    pub error: DfaError,
}

/// Compile-time state shared by every group: the automata and the needle matchers, each
/// deduplicated.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    pub automata: Automata,
    pub needles: Vec<NeedleMatcher>,
    pub needle_ids: HashMap<Vec<String>, u32>,
    pub limits: DfaLimits,
}

impl Shared {
    fn needles(&mut self, needles: Vec<String>) -> Result<u32, DfaError> {
        if let Some(&id) = self.needle_ids.get(&needles) {
            return Ok(id);
        }
        let m = NeedleMatcher::new(&needles).map_err(|e| DfaError {
            message: e.message,
            too_large: e.too_large,
        })?;
        self.needles.push(m);
        let id = self.needles.len() as u32 - 1;
        self.needle_ids.insert(needles, id);
        Ok(id)
    }
}

fn cond_key(c: &CondDef) -> String {
    format!("{:?}", c.test)
}

/// Builds a group from rules given as (global ID, definition), in source order.
pub(crate) fn build(rules: &[(u32, &RuleDef)], shared: &mut Shared) -> Result<Group, GroupError> {
    // Distinct conditions, grouped by argument path in order of first appearance.
    let mut paths: Vec<&Vec<String>> = Vec::new();
    let mut per_path: Vec<Vec<&CondDef>> = Vec::new();
    let mut seen: HashMap<(&Vec<String>, String), ()> = HashMap::new();
    for (_, rule) in rules {
        for c in &rule.conditions {
            if seen.insert((&c.path, cond_key(c)), ()).is_some() {
                continue;
            }
            match paths.iter().position(|p| *p == &c.path) {
                Some(i) => per_path[i].push(c),
                None => {
                    paths.push(&c.path);
                    per_path.push(vec![c]);
                }
            }
        }
    }
    let mut ids: HashMap<(&Vec<String>, String), u32> = HashMap::new();

    let mut args = Vec::new();
    let mut next = 0u32;
    for (i, conds) in per_path.iter().enumerate() {
        let lo = next as usize;
        for c in conds {
            ids.insert((&c.path, cond_key(c)), next);
            next += 1;
        }
        let hi = next as usize;
        let arg = build_arg(paths[i], conds, lo, shared).map_err(|error| GroupError {
            arg: paths[i].join("."),
            first_rule: rules
                .iter()
                .position(|(_, r)| r.conditions.iter().any(|c| &c.path == paths[i]))
                .unwrap_or(0),
            error,
        })?;
        debug_assert_eq!(arg.hi, hi);
        args.push(arg);
    }
    let n_conds = next as usize;
    let mut group = Group {
        rules: rules.iter().map(|(id, _)| *id).collect(),
        effects: rules.iter().map(|(_, r)| r.effect).collect(),
        n_conds,
        args,
        ..Group::default()
    };
    let mut keyed: Vec<Vec<u32>> = vec![Vec::new(); n_conds];
    let mut arg_keyed: Vec<Vec<u32>> = vec![Vec::new(); group.args.len()];
    for (local, (_, rule)) in rules.iter().enumerate() {
        let conds: Vec<u32> = rule
            .conditions
            .iter()
            .filter_map(|c| ids.get(&(&c.path, cond_key(c))).copied())
            .collect();
        // Key on the most selective condition: a positive pattern when there is one.
        let key = rule
            .conditions
            .iter()
            .position(|c| {
                matches!(
                    c.test,
                    CondTest::Str { negated: false, .. } | CondTest::Contains(_)
                )
            })
            .or(if conds.is_empty() { None } else { Some(0) });
        match key.and_then(|k| conds.get(k).copied()) {
            Some(c) => {
                keyed[c as usize].push(local as u32);
                if let Some(a) = group.arg_of(c) {
                    if !group.args[a].present.contains(&c) {
                        arg_keyed[a].push(local as u32);
                    }
                }
            }
            None => group.unconditional.push(local as u32),
        }
        group.rule_conds.push_row(&conds);
        for c in &rule.conditions {
            group.rule_cond_text.push(&c.text);
        }
    }
    group.keyed = Csr::from_rows(keyed);
    group.arg_keyed = Csr::from_rows(arg_keyed);
    group.derive();
    Ok(group)
}

impl Group {
    /// Computes the tables derived from the stored ones (after building, and after loading
    /// a bundle once the stored tables are validated).
    pub(crate) fn derive(&mut self) {
        self.cond_arg = vec![0; self.n_conds];
        for (a, arg) in self.args.iter().enumerate() {
            for slot in self.cond_arg.get_mut(arg.lo..arg.hi).into_iter().flatten() {
                *slot = a as u32;
            }
        }
        let mut deny_args: Vec<u32> = (0..self.rules.len())
            .filter(|&local| self.effects.get(local) == Some(&Effect::Deny))
            .flat_map(|local| self.rule_conds.row(local).iter())
            .filter_map(|&c| self.cond_arg.get(c as usize).copied())
            .collect();
        deny_args.sort_unstable();
        deny_args.dedup();
        self.deny_args = deny_args;
    }

    /// The argument a condition is about.
    pub(crate) fn arg_of(&self, cond: u32) -> Option<usize> {
        let c = cond as usize;
        let i = self.args.partition_point(|a| a.hi <= c);
        (i < self.args.len() && self.args[i].lo <= c).then_some(i)
    }
}

fn one_of_regex(values: &[String]) -> String {
    let alts: Vec<String> = values.iter().map(|v| regex_syntax::escape(v)).collect();
    format!("^(?:{})$", alts.join("|"))
}

fn build_arg(
    path: &[String],
    conds: &[&CondDef],
    lo: usize,
    shared: &mut Shared,
) -> Result<ArgMatcher, DfaError> {
    let mut m = ArgMatcher {
        path: path.to_vec(),
        lo,
        hi: lo + conds.len(),
        raw: None,
        norm: None,
        needles: None,
        numeric: Vec::new(),
        present: Vec::new(),
        negated: Vec::new(),
        path_conds: Vec::new(),
    };
    /// Distinct patterns in first-seen order, each with the conditions it satisfies.
    #[derive(Default)]
    struct Patterns {
        sources: Vec<String>,
        conds: Vec<Vec<u32>>,
        index: HashMap<String, usize>,
    }
    impl Patterns {
        fn add(&mut self, p: String, id: u32) {
            match self.index.get(&p) {
                Some(&i) => self.conds[i].push(id),
                None => {
                    self.index.insert(p.clone(), self.sources.len());
                    self.sources.push(p);
                    self.conds.push(vec![id]);
                }
            }
        }
    }
    let (mut raw, mut norm, mut needles) = (
        Patterns::default(),
        Patterns::default(),
        Patterns::default(),
    );
    for (i, c) in conds.iter().enumerate() {
        let id = (lo + i) as u32;
        match &c.test {
            CondTest::Present => m.present.push(id),
            CondTest::Num(op, n) => m.numeric.push((id, *op, *n)),
            CondTest::Contains(list) => {
                for n in list {
                    needles.add(n.clone(), id);
                }
            }
            CondTest::Str { pattern, negated } => {
                if *negated {
                    m.negated.push(id);
                }
                match pattern {
                    StrPattern::OneOf(values) if values.is_empty() => {}
                    StrPattern::OneOf(values) => raw.add(one_of_regex(values), id),
                    StrPattern::Glob { regex, .. } => raw.add(regex.clone(), id),
                    StrPattern::Regex(regex) => raw.add(regex.clone(), id),
                    StrPattern::PathGlob { regex, .. } => {
                        m.path_conds.push(id);
                        norm.add(regex.clone(), id)
                    }
                }
            }
        }
    }
    let limits = shared.limits;
    if !raw.sources.is_empty() {
        m.raw = Some(PatternConds {
            matcher: PatternIndex::build(&raw.sources, &mut shared.automata, limits)?,
            conds: Csr::from_rows(raw.conds),
        });
    }
    if !norm.sources.is_empty() {
        m.norm = Some(PatternConds {
            matcher: PatternIndex::build(&norm.sources, &mut shared.automata, limits)?,
            conds: Csr::from_rows(norm.conds),
        });
    }
    if !needles.sources.is_empty() {
        m.needles = Some(PatternConds {
            matcher: shared.needles(needles.sources)?,
            conds: Csr::from_rows(needles.conds),
        });
    }
    Ok(m)
}
