//! Building rule groups (`program::group`): the rules of one agent, with one matcher per
//! argument they constrain.
//!
//! Conditions are deduplicated and numbered so that each argument's conditions form one
//! contiguous ID range. Every string pattern on an argument is compiled into one multi-pattern
//! automaton (plus one over the normalized value for path patterns, and one aho-corasick
//! automaton for `contains` needles); a pass reports the satisfied conditions as a bitset.
//! Each rule is indexed under one "key" condition, so finding the rules that fire costs the
//! number of satisfied conditions, not the number of rules.

use crate::pattern::glob::{literal_split, LiteralSplit};
use crate::program::csr::{Csr, Strings};
use crate::program::dfa::{DfaError, DfaLimits};
use crate::program::group::{arg_of, ArgMatcher, Group, OtherConds, PatternConds, ShellPatterns};
use crate::program::ids::{CondId, IdOverflow, LocalRuleId, NeedleId, RuleId};
use crate::program::index::{Automata, PatternIndex};
use crate::program::needles::NeedleMatcher;
use crate::resolve::{CondDef, CondTest, RuleDef, StrPattern};
use crate::syntax::ast::Effect;
use rustc_hash::FxHashMap;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// Why a group could not be built.
#[derive(Debug, Clone)]
pub(crate) enum GroupError {
    /// The matcher of one argument failed: the argument, the first rule constraining it, and
    /// why.
    Arg {
        arg: String,
        first_rule: usize,
        error: DfaError,
    },
    /// A table of the group outgrew its IDs.
    TooLarge(IdOverflow),
}

impl From<IdOverflow> for GroupError {
    fn from(e: IdOverflow) -> GroupError {
        GroupError::TooLarge(e)
    }
}

/// Compile-time state shared by every group: the automata and the needle matchers, each
/// deduplicated.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    pub automata: Automata,
    pub needles: Vec<NeedleMatcher>,
    pub needle_ids: HashMap<Vec<String>, NeedleId>,
    pub limits: DfaLimits,
    /// Pattern indexes already built, by pattern set (and whether the patterns judge the
    /// normalized path): agents holding the same patterns on an argument share the work.
    pub indexes: HashMap<(bool, Vec<String>), PatternIndex>,
}

/// Pattern sets with fewer patterns than this are built again rather than remembered (unless
/// they need unanchored automata): a prefix bucket costs little to build, and a policy with an
/// agent per user holds one such set per agent.
const CACHED_PATTERNS: usize = 2;

impl Shared {
    /// The pattern index of `patterns` (judging the normalized path when `norm`), built once
    /// per distinct pattern set.
    fn index(&mut self, norm: bool, patterns: &Patterns) -> Result<PatternIndex, DfaError> {
        let key = (norm, patterns.sources.clone());
        if let Some(index) = self.indexes.get(&key) {
            return Ok(index.clone());
        }
        let index = PatternIndex::build_split(
            &patterns.sources,
            &patterns.splits,
            &mut self.automata,
            self.limits,
        )?;
        if patterns.sources.len() >= CACHED_PATTERNS || index.has_unanchored() {
            self.indexes.insert(key, index.clone());
        }
        Ok(index)
    }

    fn needles(&mut self, needles: Vec<String>) -> Result<NeedleId, DfaError> {
        if let Some(&id) = self.needle_ids.get(&needles) {
            return Ok(id);
        }
        let id = NeedleId::new(self.needles.len())?;
        let m = NeedleMatcher::new(&needles).map_err(|e| DfaError {
            message: e.message,
            too_large: e.too_large,
        })?;
        self.needles.push(m);
        self.needle_ids.insert(needles, id);
        Ok(id)
    }
}

/// A condition's test as a map key: two conditions on one argument with equal keys are one
/// condition. Equal means every field equal (a number by its bits, every NaN alike), which is
/// what comparing the tests' `Debug` text used to decide, without formatting each test.
#[derive(Clone, Copy)]
struct CondKey<'a>(&'a CondTest);

impl CondKey<'_> {
    /// A number's bits, with every NaN one value (`Debug` prints them all as `NaN`).
    fn num_bits(n: f64) -> u64 {
        if n.is_nan() {
            f64::NAN.to_bits()
        } else {
            n.to_bits()
        }
    }
}

impl PartialEq for CondKey<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self.0, other.0) {
            (CondTest::Present, CondTest::Present) => true,
            (
                CondTest::Str {
                    pattern: a,
                    negated: x,
                },
                CondTest::Str {
                    pattern: b,
                    negated: y,
                },
            ) => x == y && str_pattern_eq(a, b),
            (CondTest::Contains(a), CondTest::Contains(b)) => a == b,
            (CondTest::Num(o, a), CondTest::Num(p, b)) => {
                o == p && CondKey::num_bits(*a) == CondKey::num_bits(*b)
            }
            (CondTest::Shell(a), CondTest::Shell(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for CondKey<'_> {}

fn str_pattern_eq(a: &StrPattern, b: &StrPattern) -> bool {
    match (a, b) {
        (StrPattern::OneOf(a), StrPattern::OneOf(b)) => a == b,
        (StrPattern::Glob { text: t, regex: r }, StrPattern::Glob { text: u, regex: s })
        | (
            StrPattern::PathGlob { text: t, regex: r },
            StrPattern::PathGlob { text: u, regex: s },
        ) => t == u && r == s,
        (StrPattern::Regex(a), StrPattern::Regex(b)) => a == b,
        _ => false,
    }
}

impl Hash for CondKey<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        std::mem::discriminant(self.0).hash(h);
        match self.0 {
            CondTest::Present => {}
            CondTest::Str { pattern, negated } => {
                negated.hash(h);
                std::mem::discriminant(pattern).hash(h);
                match pattern {
                    StrPattern::OneOf(values) => values.hash(h),
                    StrPattern::Glob { text, regex } | StrPattern::PathGlob { text, regex } => {
                        text.hash(h);
                        regex.hash(h);
                    }
                    StrPattern::Regex(regex) => regex.hash(h),
                }
            }
            CondTest::Contains(needles) => needles.hash(h),
            CondTest::Num(op, n) => {
                op.hash(h);
                CondKey::num_bits(*n).hash(h);
            }
            CondTest::Shell(pattern) => pattern.hash(h),
        }
    }
}

/// Builds a group from rules given as (global ID, definition), in source order and numbered
/// one after the other (as an agent's rules are).
pub(crate) fn build(
    rules: &[(RuleId, &RuleDef)],
    shared: &mut Shared,
) -> Result<Group, GroupError> {
    // Distinct conditions, grouped by argument path in order of first appearance; each
    // condition of each rule remembers its (path, position in the path's list).
    let mut paths: Vec<&Vec<String>> = Vec::new();
    let mut per_path: Vec<Vec<&CondDef>> = Vec::new();
    let mut seen: FxHashMap<(&[String], CondKey<'_>), (usize, usize)> = FxHashMap::default();
    let mut placed: Vec<(usize, usize)> = Vec::new();
    for (_, rule) in rules {
        for c in &rule.conditions {
            let at = *seen
                .entry((c.path.as_slice(), CondKey(&c.test)))
                .or_insert_with(|| match paths.iter().position(|p| *p == &c.path) {
                    Some(i) => {
                        per_path[i].push(c);
                        (i, per_path[i].len() - 1)
                    }
                    None => {
                        paths.push(&c.path);
                        per_path.push(vec![c]);
                        (paths.len() - 1, 0)
                    }
                });
            placed.push(at);
        }
    }

    let mut args = Vec::new();
    let mut next = 0usize;
    let mut path_lo = Vec::with_capacity(per_path.len());
    for (i, conds) in per_path.iter().enumerate() {
        let lo = next;
        path_lo.push(lo);
        CondId::new(lo + conds.len().saturating_sub(1))?;
        next += conds.len();
        let hi = next;
        let arg = build_arg(paths[i], conds, lo, shared).map_err(|error| GroupError::Arg {
            arg: paths[i].join("."),
            first_rule: rules
                .iter()
                .position(|(_, r)| r.conditions.iter().any(|c| &c.path == paths[i]))
                .unwrap_or(0),
            error,
        })?;
        debug_assert_eq!(arg.hi as usize, hi);
        args.push(arg);
    }
    let n_conds = next;
    debug_assert!(rules
        .windows(2)
        .all(|w| w[0].0.index() + 1 == w[1].0.index()));
    let first_rule = rules.first().map_or(RuleId::FIRST, |&(id, _)| id);
    let effects: Vec<Effect> = rules.iter().map(|(_, r)| r.effect).collect();
    let mut unconditional = Vec::new();
    let mut rule_conds = Vec::with_capacity(rules.len());
    let mut placed = placed.as_slice();
    let mut rule_cond_text = Vec::new();
    let mut keyed: Vec<Vec<LocalRuleId>> = vec![Vec::new(); n_conds];
    let mut arg_keyed: Vec<Vec<LocalRuleId>> = vec![Vec::new(); args.len()];
    for (local, (_, rule)) in rules.iter().enumerate() {
        let local = LocalRuleId::new(local)?;
        let (mine, rest) = placed.split_at(rule.conditions.len().min(placed.len()));
        placed = rest;
        let conds: Vec<CondId> = mine
            .iter()
            .map(|&(p, k)| CondId::new(path_lo[p] + k))
            .collect::<Result<_, _>>()?;
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
                keyed[c.index()].push(local);
                if let Some(a) = arg_of(&args, c) {
                    if !args[a].present().contains(&c) {
                        arg_keyed[a].push(local);
                    }
                }
            }
            None => unconditional.push(local),
        }
        rule_conds.push(conds);
        rule_cond_text.extend(rule.conditions.iter().map(|c| c.text.as_str()));
    }
    keyed.extend(arg_keyed);
    if !unconditional.is_empty() {
        keyed.push(unconditional);
    }
    let mut group = Group::new(
        (first_rule, &effects),
        &Csr::from_rows(rule_conds)?,
        &Csr::from_rows(keyed)?,
        u32::try_from(n_conds).map_err(|_| IdOverflow("conditions of one agent"))?,
        Strings::from_strs(rule_cond_text)?,
        args.into_boxed_slice(),
    )?;
    group.derive()?;
    Ok(group)
}

fn one_of_regex(values: &[String]) -> String {
    let alts: Vec<String> = values.iter().map(|v| regex_syntax::escape(v)).collect();
    format!("^(?:{})$", alts.join("|"))
}

/// Distinct patterns in first-seen order, each with the conditions it satisfies.
#[derive(Default)]
struct Patterns {
    sources: Vec<String>,
    /// Per source, how a glob's regex splits after its literal (see
    /// [`PatternIndex::build_split`]).
    splits: Vec<Option<LiteralSplit>>,
    conds: Vec<Vec<CondId>>,
    index: HashMap<String, usize>,
}

impl Patterns {
    fn add(&mut self, p: String, id: CondId) {
        self.add_split(p, || None, id);
    }

    /// Adds a pattern whose regex may split after a literal (`split` is asked only for a
    /// pattern not seen yet).
    fn add_split(&mut self, p: String, split: impl FnOnce() -> Option<LiteralSplit>, id: CondId) {
        match self.index.get(&p) {
            Some(&i) => self.conds[i].push(id),
            None => {
                self.index.insert(p.clone(), self.sources.len());
                self.sources.push(p);
                self.splits.push(split());
                self.conds.push(vec![id]);
            }
        }
    }
}

/// The matcher of one argument path: its conditions (numbered from `lo`) sorted by kind, and
/// their patterns compiled into pattern indexes, needle matchers and shell pattern sets.
fn build_arg(
    path: &[String],
    conds: &[&CondDef],
    lo: usize,
    shared: &mut Shared,
) -> Result<ArgMatcher, DfaError> {
    let bound = |i: usize| u32::try_from(i).map_err(|_| IdOverflow("conditions of one agent"));
    let mut other = OtherConds::default();
    let (mut present, mut numeric, mut negated) = (Vec::new(), Vec::new(), Vec::new());
    let (mut raw, mut norm, mut needles, mut shell) = (
        Patterns::default(),
        Patterns::default(),
        Patterns::default(),
        Patterns::default(),
    );
    for (i, c) in conds.iter().enumerate() {
        let id = CondId::new(lo + i)?;
        match &c.test {
            CondTest::Present => present.push(id),
            CondTest::Num(op, n) => numeric.push((id, *op, *n)),
            CondTest::Contains(list) => {
                for n in list {
                    needles.add(n.clone(), id);
                }
            }
            CondTest::Shell(pattern) => shell.add(pattern.clone(), id),
            CondTest::Str {
                pattern,
                negated: is_negated,
            } => {
                if *is_negated {
                    negated.push(id);
                }
                match pattern {
                    StrPattern::OneOf(values) if values.is_empty() => {}
                    StrPattern::OneOf(values) => raw.add(one_of_regex(values), id),
                    StrPattern::Glob { text, regex } => {
                        raw.add_split(regex.clone(), || literal_split(text, false), id)
                    }
                    StrPattern::Regex(regex) => raw.add(regex.clone(), id),
                    StrPattern::PathGlob { text, regex } => {
                        norm.add_split(regex.clone(), || literal_split(text, true), id)
                    }
                }
            }
        }
    }
    other.present = present.into_boxed_slice();
    other.numeric = numeric.into_boxed_slice();
    other.negated = negated.into_boxed_slice();
    let mut raw_index = None;
    if !raw.sources.is_empty() {
        raw_index = Some(Box::new(PatternConds {
            matcher: shared.index(false, &raw)?,
            conds: Csr::from_rows(raw.conds)?,
        }));
    }
    let mut norm_index = None;
    if !norm.sources.is_empty() {
        norm_index = Some(Box::new(PatternConds {
            matcher: shared.index(true, &norm)?,
            conds: Csr::from_rows(norm.conds)?,
        }));
    }
    if !needles.sources.is_empty() {
        other.needles = Some(PatternConds {
            matcher: shared.needles(needles.sources)?,
            conds: Csr::from_rows(needles.conds)?,
        });
    }
    if !shell.sources.is_empty() {
        let mut shell_conds: Vec<CondId> = shell
            .index
            .values()
            .flat_map(|&i| shell.conds[i].clone())
            .collect();
        shell_conds.sort_unstable();
        other.shell_conds = shell_conds.into_boxed_slice();
        other.shell = Some(PatternConds {
            matcher: ShellPatterns::new(shell.sources).map_err(|e| DfaError {
                message: e.to_string(),
                too_large: false,
            })?,
            conds: Csr::from_rows(shell.conds)?,
        });
    }
    Ok(ArgMatcher::new(
        (path.into(), bound(lo)?, bound(lo + conds.len())?),
        raw_index,
        norm_index,
        other,
    ))
}

#[cfg(test)]
mod tests {
    fn n_conds(rules: &str) -> u32 {
        let src = format!("tool t(p, n?)\nagent a {{\n{rules}\n}}");
        let engine = crate::load::engine_from_str("g.policy", &src).unwrap();
        engine.program.groups[1].n_conds
    }

    #[test]
    fn equal_conditions_share_one_id() {
        let rules = "allow t where p matches \"/x/**\" and n <= 5\n\
                     deny t where p matches \"/x/**\" and n <= 5.0\n\
                     allow t where p == \"a\"\n\
                     allow t where p in [\"a\"]";
        assert_eq!(n_conds(rules), 3);
    }

    #[test]
    fn conditions_differing_in_any_field_stay_apart() {
        let rules = "allow t where p matches \"/x/**\"\n\
                     allow t where p != \"a\"\n\
                     allow t where p == \"a\"\n\
                     allow t where n <= 5\n\
                     allow t where n < 5\n\
                     allow t where n <= 6\n\
                     allow t where p contains \"a\"\n\
                     allow t where n == \"a\"";
        assert_eq!(n_conds(rules), 8);
    }
}
