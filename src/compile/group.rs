//! A rule group: the rules of one agent that can apply to one tool, with one matcher per
//! argument they constrain.
//!
//! Conditions are deduplicated and numbered so that each argument's conditions form one
//! contiguous ID range. Every string pattern on an argument is compiled into one multi-pattern
//! automaton (plus one over the normalized value for path patterns, and one aho-corasick
//! automaton for `contains` needles); a pass reports the satisfied conditions as a bitset.
//! Each rule is indexed under one "key" condition, so finding the rules that fire costs the
//! number of satisfied conditions, not the number of rules.

use super::matcher::{Limits, MatcherError, NeedleMatcher, PatternSetMatcher};
use crate::resolve::{CondDef, CondTest, RuleDef, StrPattern};
use crate::syntax::ast::{CmpOp, Effect};
use std::collections::HashMap;
use std::sync::Arc;

/// Patterns compiled together, and the conditions each pattern satisfies.
#[derive(Debug, Clone)]
pub(crate) struct PatternConds<M> {
    pub matcher: M,
    pub conds: Vec<Vec<u32>>,
}

/// Everything the rules of a group ask of one argument path.
#[derive(Debug, Clone)]
pub(crate) struct ArgMatcher {
    /// The argument path.
    pub path: Vec<String>,
    /// The argument's condition IDs are `lo..hi`.
    pub lo: usize,
    pub hi: usize,
    /// Patterns over the raw string value.
    pub raw: Option<PatternConds<PatternSetMatcher>>,
    /// Path patterns over the normalized value.
    pub norm: Option<PatternConds<PatternSetMatcher>>,
    /// `contains` needles.
    pub needles: Option<PatternConds<NeedleMatcher>>,
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
#[derive(Debug, Clone, Default)]
pub(crate) struct Group {
    /// Global rule IDs in source order; a rule's local ID is its index here.
    pub rules: Vec<u32>,
    /// Effect of each local rule.
    pub effects: Vec<Effect>,
    /// Condition IDs of each local rule, in the rule's order.
    pub rule_conds: Vec<Vec<u32>>,
    /// Per condition: the local rules keyed on it.
    pub keyed: Vec<Vec<u32>>,
    /// Local rules with no condition, ascending.
    pub unconditional: Vec<u32>,
    /// Number of distinct conditions.
    pub n_conds: usize,
    /// Each condition as written, for explanations.
    pub cond_text: Vec<Arc<str>>,
    /// One matcher per argument path.
    pub args: Vec<ArgMatcher>,
}

/// Why a group could not be built: the argument whose matcher failed, and why.
#[derive(Debug, Clone)]
pub(crate) struct GroupError {
    pub arg: String,
    pub first_rule: usize,
    pub error: MatcherError,
}

fn cond_key(c: &CondDef) -> String {
    format!("{:?}", c.test)
}

/// Builds a group from rules given as (global ID, definition), in source order.
pub(crate) fn build(rules: &[(u32, &RuleDef)], limits: Limits) -> Result<Group, GroupError> {
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
    let mut cond_text = Vec::new();
    let mut args = Vec::new();
    let mut next = 0u32;
    for (i, conds) in per_path.iter().enumerate() {
        let lo = next as usize;
        for c in conds {
            ids.insert((&c.path, cond_key(c)), next);
            cond_text.push(Arc::from(c.text.as_str()));
            next += 1;
        }
        let hi = next as usize;
        let arg = build_arg(paths[i], conds, lo, limits).map_err(|error| GroupError {
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
        rule_conds: Vec::with_capacity(rules.len()),
        keyed: vec![Vec::new(); n_conds],
        unconditional: Vec::new(),
        n_conds,
        cond_text,
        args,
    };
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
        match key {
            Some(k) => group.keyed[conds[k] as usize].push(local as u32),
            None => group.unconditional.push(local as u32),
        }
        group.rule_conds.push(conds);
    }
    Ok(group)
}

fn one_of_regex(values: &[String]) -> String {
    let alts: Vec<String> = values.iter().map(|v| regex_syntax::escape(v)).collect();
    format!("^(?:{})$", alts.join("|"))
}

fn build_arg(
    path: &[String],
    conds: &[&CondDef],
    lo: usize,
    limits: Limits,
) -> Result<ArgMatcher, MatcherError> {
    let mut raw: Vec<String> = Vec::new();
    let mut raw_conds: Vec<Vec<u32>> = Vec::new();
    let mut norm: Vec<String> = Vec::new();
    let mut norm_conds: Vec<Vec<u32>> = Vec::new();
    let mut needles: Vec<String> = Vec::new();
    let mut needle_conds: Vec<Vec<u32>> = Vec::new();
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
    fn add(pats: &mut Vec<String>, pc: &mut Vec<Vec<u32>>, p: String, id: u32) {
        match pats.iter().position(|q| *q == p) {
            Some(i) => pc[i].push(id),
            None => {
                pats.push(p);
                pc.push(vec![id]);
            }
        }
    }
    for (i, c) in conds.iter().enumerate() {
        let id = (lo + i) as u32;
        match &c.test {
            CondTest::Present => m.present.push(id),
            CondTest::Num(op, n) => m.numeric.push((id, *op, *n)),
            CondTest::Contains(list) => {
                for n in list {
                    add(&mut needles, &mut needle_conds, n.clone(), id);
                }
            }
            CondTest::Str { pattern, negated } => {
                if *negated {
                    m.negated.push(id);
                }
                match pattern {
                    StrPattern::OneOf(values) if values.is_empty() => {}
                    StrPattern::OneOf(values) => {
                        add(&mut raw, &mut raw_conds, one_of_regex(values), id)
                    }
                    StrPattern::Glob { regex, .. } => {
                        add(&mut raw, &mut raw_conds, regex.clone(), id)
                    }
                    StrPattern::Regex(regex) => add(&mut raw, &mut raw_conds, regex.clone(), id),
                    StrPattern::PathGlob { regex, .. } => {
                        m.path_conds.push(id);
                        add(&mut norm, &mut norm_conds, regex.clone(), id)
                    }
                }
            }
        }
    }
    if !raw.is_empty() {
        m.raw = Some(PatternConds {
            matcher: PatternSetMatcher::new(&raw, limits)?,
            conds: raw_conds,
        });
    }
    if !norm.is_empty() {
        m.norm = Some(PatternConds {
            matcher: PatternSetMatcher::new(&norm, limits)?,
            conds: norm_conds,
        });
    }
    if !needles.is_empty() {
        m.needles = Some(PatternConds {
            matcher: NeedleMatcher::new(&needles)?,
            conds: needle_conds,
        });
    }
    Ok(m)
}
