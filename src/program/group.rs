//! A rule group: the rules of one agent, with one matcher per argument they constrain.
//!
//! Conditions are deduplicated and numbered so that each argument's conditions form one
//! contiguous ID range. Every string pattern on an argument is compiled into one multi-pattern
//! automaton (plus one over the normalized value for path patterns, and one aho-corasick
//! automaton for `contains` needles); a pass reports the satisfied conditions as a bitset.
//! Each rule is indexed under one "key" condition, so finding the rules that fire costs the
//! number of satisfied conditions, not the number of rules. The compiler builds groups
//! (`compile::group`), the engine evaluates them (`engine::evaluate`).

use super::csr::{Csr, CsrRef, Strings};
use super::ids::{ArgId, CondId, Id, IdOverflow, LocalRuleId, NeedleId, PatternId, RuleId};
use super::index::{Automata, PatternIndex};
use super::needles::NeedleMatcher;
use super::{ascending, check, Invalid};
use crate::syntax::ast::{CmpOp, Effect};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::sync::Arc;

/// With at least this many patterns in an argument's index, a call whose tool has few rules
/// runs only the automata holding those rules' patterns (see `PatternIndex::matches_some`);
/// below it, one pass over the whole index costs less.
pub(crate) const FOCUS_MIN_PATTERNS: usize = 64;

/// Patterns compiled together, and the conditions each pattern satisfies.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct PatternConds<M> {
    pub matcher: M,
    /// Per pattern: the conditions it satisfies.
    pub conds: Csr<CondId>,
}

/// The `shell` patterns of one argument: their source text (what bundles store) and the
/// pattern set built from it (rebuilt when a bundle is loaded).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ShellPatterns {
    pub sources: Vec<String>,
    #[serde(skip)]
    pub set: crate::shell::PatternSet,
}

impl ShellPatterns {
    /// Parses the patterns into one set; pattern `i` is reported as `i`.
    pub(crate) fn new(sources: Vec<String>) -> Result<ShellPatterns, crate::shell::PatternError> {
        let mut set = crate::shell::PatternSet::new();
        for s in &sources {
            set.add(crate::shell::Pattern::parse(s)?);
        }
        Ok(ShellPatterns { sources, set })
    }
}

/// Everything the rules of a group ask of one argument path.
///
/// Bundles store the fields one after the other as [`ArgEncoding`] lists them.
#[derive(Debug, Clone, Deserialize)]
#[serde(from = "ArgEncoding")]
pub(crate) struct ArgMatcher {
    /// The argument path (one allocation shared by every matcher of the same path once
    /// loaded: see [`share_paths`]).
    pub path: Arc<[String]>,
    /// The argument's condition IDs are `lo..hi`.
    pub lo: u32,
    pub hi: u32,
    /// Patterns over the raw string value.
    /// (Boxed, like `norm`: an argument usually has one of the two, and a group is held per
    /// agent.)
    pub raw: Option<Box<PatternConds<PatternIndex>>>,
    /// Path patterns over the normalized value.
    pub norm: Option<Box<PatternConds<PatternIndex>>>,
    /// The other kinds of condition, boxed together: most arguments have none of them, and
    /// an argument matcher is held per argument of every agent. `None` when all are empty.
    pub other: Option<Box<OtherConds>>,
}

/// The conditions of an argument other than its string and path patterns.
#[derive(Debug, Clone, Default)]
pub(crate) struct OtherConds {
    /// `contains` needles (an index into the engine's needle matchers).
    pub needles: Option<PatternConds<NeedleId>>,
    /// `shell` argv patterns, matched on the parsed command line.
    pub shell: Option<PatternConds<ShellPatterns>>,
    /// The `shell` conditions, ascending (an unreadable command fires them all in a deny).
    pub shell_conds: Box<[CondId]>,
    /// Numeric comparisons.
    pub numeric: Box<[(CondId, CmpOp, f64)]>,
    /// `present` conditions.
    pub present: Box<[CondId]>,
    /// `!=` conditions (the negation of their pattern).
    pub negated: Box<[CondId]>,
}

impl OtherConds {
    /// True when there is no condition of these kinds.
    fn is_empty(&self) -> bool {
        self.needles.is_none()
            && self.shell.is_none()
            && self.shell_conds.is_empty()
            && self.numeric.is_empty()
            && self.present.is_empty()
            && self.negated.is_empty()
    }
}

/// An argument matcher as bundles store it.
#[derive(Deserialize)]
struct ArgEncoding {
    path: Arc<[String]>,
    lo: u32,
    hi: u32,
    raw: Option<Box<PatternConds<PatternIndex>>>,
    norm: Option<Box<PatternConds<PatternIndex>>>,
    needles: Option<PatternConds<NeedleId>>,
    shell: Option<PatternConds<ShellPatterns>>,
    shell_conds: Box<[CondId]>,
    numeric: Box<[(CondId, CmpOp, f64)]>,
    present: Box<[CondId]>,
    negated: Box<[CondId]>,
}

impl From<ArgEncoding> for ArgMatcher {
    fn from(e: ArgEncoding) -> ArgMatcher {
        ArgMatcher::new(
            (e.path, e.lo, e.hi),
            e.raw,
            e.norm,
            OtherConds {
                needles: e.needles,
                shell: e.shell,
                shell_conds: e.shell_conds,
                numeric: e.numeric,
                present: e.present,
                negated: e.negated,
            },
        )
    }
}

impl Serialize for ArgMatcher {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("ArgEncoding", 11)?;
        s.serialize_field("path", &self.path)?;
        s.serialize_field("lo", &self.lo)?;
        s.serialize_field("hi", &self.hi)?;
        s.serialize_field("raw", &self.raw)?;
        s.serialize_field("norm", &self.norm)?;
        s.serialize_field("needles", &self.needles())?;
        s.serialize_field("shell", &self.shell())?;
        s.serialize_field("shell_conds", self.shell_conds())?;
        s.serialize_field("numeric", self.numeric())?;
        s.serialize_field("present", self.present())?;
        s.serialize_field("negated", self.negated())?;
        s.end()
    }
}

impl ArgMatcher {
    /// A matcher of argument `path` whose conditions are `lo..hi`; `other` is kept only when
    /// it holds something.
    pub(crate) fn new(
        (path, lo, hi): (Arc<[String]>, u32, u32),
        raw: Option<Box<PatternConds<PatternIndex>>>,
        norm: Option<Box<PatternConds<PatternIndex>>>,
        other: OtherConds,
    ) -> ArgMatcher {
        ArgMatcher {
            path,
            lo,
            hi,
            raw,
            norm,
            other: (!other.is_empty()).then(|| Box::new(other)),
        }
    }

    /// The `contains` needles.
    pub(crate) fn needles(&self) -> Option<&PatternConds<NeedleId>> {
        self.other.as_deref()?.needles.as_ref()
    }

    /// The `shell` argv patterns.
    pub(crate) fn shell(&self) -> Option<&PatternConds<ShellPatterns>> {
        self.other.as_deref()?.shell.as_ref()
    }

    /// The `shell` conditions, ascending.
    pub(crate) fn shell_conds(&self) -> &[CondId] {
        self.other.as_deref().map_or(&[], |o| &o.shell_conds)
    }

    /// The numeric comparisons.
    pub(crate) fn numeric(&self) -> &[(CondId, CmpOp, f64)] {
        self.other.as_deref().map_or(&[], |o| &o.numeric)
    }

    /// The `present` conditions.
    pub(crate) fn present(&self) -> &[CondId] {
        self.other.as_deref().map_or(&[], |o| &o.present)
    }

    /// The `!=` conditions.
    pub(crate) fn negated(&self) -> &[CondId] {
        self.other.as_deref().map_or(&[], |o| &o.negated)
    }

    /// The path-pattern conditions (they fail closed in a deny), each once per pattern.
    pub(crate) fn path_conds(&self) -> &[CondId] {
        self.norm.as_deref().map_or(&[], |n| n.conds.items())
    }

    /// The argument's condition IDs, as positions.
    pub(crate) fn conds(&self) -> std::ops::Range<usize> {
        self.lo as usize..self.hi as usize
    }
}

/// Makes every argument matcher of `groups` with the same path hold one shared copy of it
/// (policies of many agents constrain the same few arguments).
pub(crate) fn share_paths(groups: &mut [Group]) {
    let mut seen: HashSet<Arc<[String]>> = HashSet::new();
    for arg in groups.iter_mut().flat_map(|g| g.args.iter_mut()) {
        match seen.get(&arg.path) {
            Some(p) => arg.path = Arc::clone(p),
            None => {
                seen.insert(Arc::clone(&arg.path));
            }
        }
    }
}

/// The rules of one agent for one tool (or, without a catalog, all of an agent's rules).
///
/// A group is held per agent, so its ID tables (the rules' effects, their conditions, the
/// rules by key, and the derived argument tables) sit in one allocation, `tables`, read in
/// place (see [`Group::new`]); its counts are `u32`. Bundles store the tables one by one
/// ([`GroupEncoding`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "GroupEncoding")]
pub(crate) struct Group {
    /// The global ID of the first rule: an agent's rules are numbered one after the other,
    /// so local rule `l` is global rule `first_rule + l`.
    pub first_rule: RuleId,
    /// Number of rules.
    n_rules: u32,
    /// Number of distinct conditions.
    pub n_conds: u32,
    /// Where the rules by key start in `tables`.
    key_at: u32,
    /// Where the argument tables start in `tables`.
    arg_at: u32,
    /// End to end: a bit per rule, set for a deny (in `u32` words); each rule's conditions
    /// (a packed [`Csr`]); the rules by key (a packed [`Csr`]: per condition, the local
    /// rules keyed on it; per argument, the local rules keyed on one of its conditions other
    /// than `present`; then, in a last row left out when empty, the local rules with no
    /// condition); and, derived, the argument of each condition followed by the arguments
    /// some deny rule reads, ascending.
    tables: Box<[u32]>,
    /// Each rule's conditions as written (aligned with `rule_conds`' items), for
    /// explanations: two rules may share a condition written differently.
    pub rule_cond_text: Strings,
    /// One matcher per argument path.
    pub args: Box<[ArgMatcher]>,
}

/// A group as bundles store it.
#[derive(Deserialize)]
pub(crate) struct GroupEncoding {
    first_rule: RuleId,
    effects: Box<[Effect]>,
    rule_conds: Csr<CondId>,
    by_key: Csr<LocalRuleId>,
    n_conds: u32,
    rule_cond_text: Strings,
    args: Box<[ArgMatcher]>,
}

impl TryFrom<GroupEncoding> for Group {
    type Error = IdOverflow;

    fn try_from(e: GroupEncoding) -> Result<Group, IdOverflow> {
        Group::new(
            (e.first_rule, &e.effects),
            &e.rule_conds,
            &e.by_key,
            e.n_conds,
            e.rule_cond_text,
            e.args,
        )
    }
}

impl Serialize for Group {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let effects: Vec<Effect> = (0..self.n_rules())
            .filter_map(|l| self.effect(LocalRuleId::new(l).ok()?))
            .collect();
        let mut s = serializer.serialize_struct("GroupEncoding", 7)?;
        s.serialize_field("first_rule", &self.first_rule)?;
        s.serialize_field("effects", &effects)?;
        s.serialize_field("rule_conds", &self.rule_conds())?;
        s.serialize_field("by_key", &self.by_key())?;
        s.serialize_field("n_conds", &self.n_conds)?;
        s.serialize_field("rule_cond_text", &self.rule_cond_text)?;
        s.serialize_field("args", &self.args)?;
        s.end()
    }
}

/// The argument (position in `args`) condition `cond` is about.
pub(crate) fn arg_of(args: &[ArgMatcher], cond: CondId) -> Option<usize> {
    let c = cond.index();
    let i = args.partition_point(|a| a.hi as usize <= c);
    (i < args.len() && args.get(i)?.lo as usize <= c).then_some(i)
}

impl Group {
    /// The group of no rule (the group of agents without rules).
    pub(crate) fn empty() -> Group {
        Group {
            first_rule: RuleId::FIRST,
            n_rules: 0,
            n_conds: 0,
            key_at: 2,
            arg_at: 4,
            // No effect bits, then two tables of no rows.
            tables: Box::new([0, 0, 0, 0]),
            rule_cond_text: Strings::default(),
            args: Box::default(),
        }
    }

    /// The group of the rules numbered from `first_rule` with these `effects`, each rule's
    /// conditions (`rule_conds`), the rules by key (`by_key`: see [`Group::keyed`],
    /// [`Group::arg_keyed`], [`Group::unconditional`]), `n_conds` conditions, their text and
    /// the argument matchers; the argument tables are derived here. Unchecked (see
    /// [`Group::validate`]).
    pub(crate) fn new(
        (first_rule, effects): (RuleId, &[Effect]),
        rule_conds: &Csr<CondId>,
        by_key: &Csr<LocalRuleId>,
        n_conds: u32,
        rule_cond_text: Strings,
        args: Box<[ArgMatcher]>,
    ) -> Result<Group, IdOverflow> {
        let too_many = |_| IdOverflow("items in one group table");
        let n_rules = u32::try_from(effects.len()).map_err(too_many)?;
        let mut tables = vec![0u32; effects.len().div_ceil(32)];
        for (l, _) in effects
            .iter()
            .enumerate()
            .filter(|(_, e)| **e == Effect::Deny)
        {
            if let Some(word) = tables.get_mut(l / 32) {
                *word |= 1 << (l % 32);
            }
        }
        tables.extend(rule_conds.packed().iter().map(|c| c.raw()));
        let key_at = u32::try_from(tables.len()).map_err(too_many)?;
        tables.extend(by_key.packed().iter().map(|l| l.raw()));
        let arg_at = u32::try_from(tables.len()).map_err(too_many)?;
        // The argument of each condition, then the arguments some deny rule reads.
        let mut cond_arg = vec![ArgId::FIRST; n_conds as usize];
        for (a, arg) in args.iter().enumerate() {
            let id = ArgId::new(a)?;
            for slot in cond_arg.get_mut(arg.conds()).into_iter().flatten() {
                *slot = id;
            }
        }
        let mut deny_args: Vec<ArgId> = (0..effects.len())
            .filter(|&local| effects.get(local) == Some(&Effect::Deny))
            .flat_map(|local| rule_conds.row(local).iter())
            .filter_map(|&c| cond_arg.get(c.index()).copied())
            .collect();
        deny_args.sort_unstable();
        deny_args.dedup();
        tables.extend(cond_arg.iter().chain(&deny_args).map(|a| a.raw()));
        Ok(Group {
            first_rule,
            n_rules,
            n_conds,
            key_at,
            arg_at,
            tables: tables.into_boxed_slice(),
            rule_cond_text,
            args,
        })
    }

    /// The `u32`s of `tables` in `range` (empty when out of range).
    #[inline]
    fn part(&self, range: impl std::slice::SliceIndex<[u32], Output = [u32]>) -> &[u32] {
        self.tables.get(range).unwrap_or(&[])
    }

    /// Each rule's conditions, in the rule's order.
    #[inline]
    pub(crate) fn rule_conds(&self) -> CsrRef<'_, CondId> {
        let start = self.n_rules().div_ceil(32);
        CsrRef::packed(CondId::slice(self.part(start..self.key_at as usize)))
    }

    /// The rules by key (see [`Group::keyed`]).
    #[inline]
    fn by_key(&self) -> CsrRef<'_, LocalRuleId> {
        let part = self.part(self.key_at as usize..self.arg_at as usize);
        CsrRef::packed(LocalRuleId::slice(part))
    }

    /// The effect of local rule `local` (`None` when out of range).
    #[inline]
    pub(crate) fn effect(&self, local: LocalRuleId) -> Option<Effect> {
        let l = local.index();
        if l >= self.n_rules() {
            return None;
        }
        let word = self.tables.get(l / 32)?;
        Some(if word >> (l % 32) & 1 == 1 {
            Effect::Deny
        } else {
            Effect::Allow
        })
    }

    /// True when some rule is a deny.
    pub(crate) fn has_deny(&self) -> bool {
        self.part(..self.n_rules().div_ceil(32))
            .iter()
            .any(|&w| w != 0)
    }

    /// Computes the tables derived from the stored ones that need the pattern indexes
    /// rebuilt (after building, and after loading a bundle once the stored tables are
    /// validated).
    pub(crate) fn derive(&mut self) -> Result<(), IdOverflow> {
        for arg in &mut self.args {
            let n = arg.conds().len();
            let lo = arg.lo as usize;
            for index in [arg.raw.as_deref_mut(), arg.norm.as_deref_mut()]
                .into_iter()
                .flatten()
            {
                if index.matcher.n_patterns() < FOCUS_MIN_PATTERNS {
                    continue;
                }
                PatternId::new(index.conds.rows())?;
                let conds = &index.conds;
                let pairs = (0..conds.rows())
                    .filter_map(|p| Some((p, PatternId::new(p).ok()?)))
                    .flat_map(|(p, pattern)| {
                        let rows = conds.row(p).iter();
                        rows.filter_map(move |c| Some((c.index().checked_sub(lo)?, pattern)))
                    });
                index.matcher.set_by_cond(Csr::from_pairs(n, pairs)?);
            }
        }
        Ok(())
    }

    /// The local rules keyed on condition `c`.
    #[inline]
    pub(crate) fn keyed(&self, c: CondId) -> &[LocalRuleId] {
        let i = c.index();
        if i < self.n_conds as usize {
            self.by_key().row(i)
        } else {
            &[]
        }
    }

    /// The local rules keyed on one of argument `a`'s conditions other than `present`,
    /// ascending (the rules an absent argument satisfies vacuously in an allow).
    #[inline]
    pub(crate) fn arg_keyed(&self, a: usize) -> &[LocalRuleId] {
        if a < self.args.len() {
            self.by_key().row(self.n_conds as usize + a)
        } else {
            &[]
        }
    }

    /// The local rules with no condition, ascending.
    #[inline]
    pub(crate) fn unconditional(&self) -> &[LocalRuleId] {
        self.by_key().row(self.n_conds as usize + self.args.len())
    }

    /// The number of rules.
    #[inline]
    pub(crate) fn n_rules(&self) -> usize {
        self.n_rules as usize
    }

    /// The global ID of local rule `local` (`None` when out of range).
    #[inline]
    pub(crate) fn rule(&self, local: LocalRuleId) -> Option<RuleId> {
        (local.index() < self.n_rules())
            .then(|| RuleId::new(self.first_rule.index() + local.index()).ok())
            .flatten()
    }

    /// The global IDs of the rules, in local order.
    pub(crate) fn rule_ids(&self) -> impl Iterator<Item = RuleId> + '_ {
        (0..self.n_rules()).filter_map(|l| self.rule(LocalRuleId::new(l).ok()?))
    }

    /// The argument of condition `c` (derived; `None` when out of range).
    #[inline]
    pub(crate) fn cond_arg(&self, c: CondId) -> Option<ArgId> {
        let i = c.index();
        (i < self.n_conds as usize)
            .then(|| {
                self.tables
                    .get(self.arg_at as usize + i)
                    .map(|&a| ArgId::from_raw(a))
            })
            .flatten()
    }

    /// The arguments some deny rule reads, ascending (derived). A decision judges these
    /// first and stops when a deny fires.
    #[inline]
    pub(crate) fn deny_args(&self) -> &[ArgId] {
        ArgId::slice(self.part(self.arg_at as usize + self.n_conds as usize..))
    }

    /// Checks every table and index of the group against the program's `n_rules` rules, its
    /// automata and needle matchers.
    pub(crate) fn validate(
        &self,
        n_rules_total: usize,
        automata: &Automata,
        needles: &[NeedleMatcher],
    ) -> Result<(), Invalid> {
        let g = self;
        let n_rules = g.n_rules();
        let n = g.n_conds as usize;
        check(
            g.first_rule
                .index()
                .checked_add(n_rules)
                .is_some_and(|end| end <= n_rules_total),
            "group rule out of range",
        )?;
        check(
            g.rule_conds().is_valid(n_rules, n),
            "rule condition table is inconsistent",
        )?;
        let key_rows = g.by_key().rows();
        check(
            (key_rows == n + g.args.len() || key_rows == n + g.args.len() + 1)
                && g.by_key().is_valid(key_rows, n_rules),
            "keyed rule table is inconsistent",
        )?;
        check(
            g.rule_cond_text.is_valid(g.rule_conds().items().len()),
            "condition text table is inconsistent",
        )?;
        check(
            (0..g.args.len()).all(|a| ascending(g.arg_keyed(a))) && ascending(g.unconditional()),
            "argument rules not ascending",
        )?;
        let mut next = 0;
        for arg in &g.args {
            check(
                arg.lo as usize == next && arg.lo <= arg.hi && arg.hi as usize <= n,
                "argument condition ranges are not contiguous",
            )?;
            next = arg.hi as usize;
            let in_range = |ids: &[CondId]| ids.iter().all(|&c| arg.conds().contains(&c.index()));
            check(!arg.path.is_empty(), "empty argument path")?;
            check(
                in_range(arg.present()) && in_range(arg.negated()),
                "argument condition out of range",
            )?;
            check(
                arg.numeric()
                    .iter()
                    .all(|(c, _, _)| arg.conds().contains(&c.index())),
                "numeric condition out of range",
            )?;
            for index in [arg.raw.as_deref(), arg.norm.as_deref()]
                .into_iter()
                .flatten()
            {
                let rows = index.conds.rows();
                check(
                    in_range(index.conds.items()) && index.conds.is_valid(rows, n),
                    "pattern condition out of range",
                )?;
                index.matcher.validate(automata, rows)?;
            }
            if let Some(sh) = arg.shell() {
                check(
                    sh.conds.is_valid(sh.matcher.sources.len(), n)
                        && in_range(sh.conds.items())
                        && in_range(arg.shell_conds()),
                    "shell pattern table mismatch",
                )?;
            }
            if let Some(nd) = arg.needles() {
                let m = needles
                    .get(nd.matcher.index())
                    .ok_or(Invalid("needle matcher out of range"))?;
                check(
                    nd.conds.is_valid(m.len(), n) && in_range(nd.conds.items()),
                    "needle table mismatch",
                )?;
            }
        }
        check(
            next == n,
            "argument condition ranges do not cover the conditions",
        )
    }

    /// The pattern indexes of the group's arguments, in a fixed order.
    pub(crate) fn pattern_indexes_mut(&mut self) -> impl Iterator<Item = &mut PatternIndex> {
        self.args.iter_mut().flat_map(|arg| {
            [arg.raw.as_deref_mut(), arg.norm.as_deref_mut()]
                .into_iter()
                .flatten()
                .map(|index| &mut index.matcher)
        })
    }

    /// Rebuilds what bundles do not carry (the pattern indexes' search state and the derived
    /// tables), once the stored tables are validated.
    pub(crate) fn rebuild(&mut self) -> Result<(), Invalid> {
        for arg in &mut self.args {
            for index in [arg.raw.as_deref_mut(), arg.norm.as_deref_mut()]
                .into_iter()
                .flatten()
            {
                index.matcher.rebuild().map_err(Invalid::from)?;
            }
            let other = arg.other.as_deref_mut();
            if let Some(sh) = other.and_then(|o| o.shell.as_mut()) {
                let sources = std::mem::take(&mut sh.matcher.sources);
                sh.matcher = ShellPatterns::new(sources)
                    .map_err(|_| Invalid("a shell pattern of the bundle does not parse"))?;
            }
        }
        // After the indexes: which patterns satisfy which condition is derived only for
        // indexes large enough to be matched in part.
        self.derive()
            .map_err(|_| Invalid("too many arguments in a group"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The tables packed in one slice read back as they were given, across effect-bit
        /// words, and survive a bundle round trip.
        #[test]
        fn packed_tables_read_back(
            rules in proptest::collection::vec((proptest::bool::ANY, proptest::collection::vec(0u32..6, 0..3)), 0..80),
            first in 0usize..1000,
        ) {
            let effects: Vec<Effect> = rules
                .iter()
                .map(|(deny, _)| if *deny { Effect::Deny } else { Effect::Allow })
                .collect();
            let conds: Vec<Vec<CondId>> = rules
                .iter()
                .map(|(_, c)| c.iter().map(|&c| CondId::new(c as usize).unwrap()).collect())
                .collect();
            // Keyed on the first condition; the rules without one are unconditional.
            let mut by_key = vec![Vec::new(); 6];
            let mut unconditional = Vec::new();
            for (l, c) in conds.iter().enumerate() {
                let local = LocalRuleId::new(l).unwrap();
                match c.first() {
                    Some(c) => by_key[c.index()].push(local),
                    None => unconditional.push(local),
                }
            }
            by_key.push(unconditional.clone());
            let first_rule = RuleId::new(first).unwrap();
            let group = Group::new(
                (first_rule, &effects),
                &Csr::from_rows(&conds).unwrap(),
                &Csr::from_rows(&by_key).unwrap(),
                6,
                Strings::from_strs(conds.iter().flatten().map(|_| "x")).unwrap(),
                Box::default(),
            )
            .unwrap();
            let bytes = postcard::to_allocvec(&group).unwrap();
            let back: Group = postcard::from_bytes(&bytes).unwrap();
            for g in [&group, &back] {
                proptest::prop_assert_eq!(g.n_rules(), rules.len());
                proptest::prop_assert_eq!(g.has_deny(), effects.contains(&Effect::Deny));
                for (l, effect) in effects.iter().enumerate() {
                    let local = LocalRuleId::new(l).unwrap();
                    proptest::prop_assert_eq!(g.effect(local), Some(*effect));
                    proptest::prop_assert_eq!(g.rule(local), RuleId::new(first + l).ok());
                    proptest::prop_assert_eq!(g.rule_conds().row(l), &conds[l][..]);
                }
                proptest::prop_assert_eq!(g.effect(LocalRuleId::new(rules.len()).unwrap()), None);
                for (c, keyed) in by_key.iter().take(6).enumerate() {
                    proptest::prop_assert_eq!(g.keyed(CondId::new(c).unwrap()), &keyed[..]);
                }
                proptest::prop_assert_eq!(g.unconditional(), &unconditional[..]);
                proptest::prop_assert!(g.rule_conds().is_valid(rules.len(), 6));
            }
        }
    }
}
