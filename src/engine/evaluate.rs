//! Running a rule group against a call's arguments: one matcher pass per argument value, then
//! the firing rules read off the satisfied conditions.
//!
//! The work is proportional to the arguments and to the conditions that hold, not to the
//! number of rules: satisfied conditions are set sparsely in per-thread bitsets, and rules are
//! reached through the condition they are keyed on.

use super::args::visit;
use crate::pattern::path::normalize;
use crate::program::bitset::BitSet;
use crate::program::group::{ArgMatcher, Group, PatternConds};
use crate::program::ids::{CondId, LocalRuleId, PatternId};
use crate::program::index::{Automata, Location, PatternIndex};
use crate::program::needles::NeedleMatcher;
use crate::syntax::ast::Effect;
use crate::value::{JsonArgs, JsonKind, JsonValue};
use std::cell::RefCell;

/// The rule that decides (a local ID): the first deny that fires, else the first allow, in
/// source order. Small enough to be returned in registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fired {
    Deny(LocalRuleId),
    Allow(LocalRuleId),
    Nothing,
}

/// When explaining: each candidate rule, with `None` if it fired, else the position of its
/// first failing condition among the rule's own.
pub(crate) type Trace = Vec<(LocalRuleId, Option<usize>)>;

/// Which of a group's rules may fire for this call.
pub(crate) enum Candidates<'a> {
    /// The rules targeting the catalog tool (local IDs, ascending), and the deny rules
    /// among them.
    List {
        all: &'a [LocalRuleId],
        deny: &'a [LocalRuleId],
    },
    /// The rules whose targets matched the request (policies without a catalog).
    Bits(BitSet),
}

impl Candidates<'_> {
    fn contains(&self, local: LocalRuleId) -> bool {
        match self {
            Candidates::List { all, .. } => all.binary_search(&local).is_ok(),
            Candidates::Bits(b) => b.contains(local.index()),
        }
    }
}

/// Appends `items` to `out`. Condition lists are a few items long, where a loop beats
/// `extend_from_slice`'s call into `memcpy`.
#[inline]
fn extend_small<T: Copy>(out: &mut Vec<T>, items: &[T]) {
    for &c in items {
        out.push(c);
    }
}

/// With at most this many candidate rules, each is checked directly.
const DIRECT_CANDIDATES: usize = 32;

/// Deny rules are also checked directly when there are at most this many per deny condition
/// that holds.
const DENSE_DENY_FACTOR: usize = 4;

/// How an argument was found in the call.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ArgState {
    /// Not judged (yet): no rule read it so far.
    Unjudged,
    /// Not in the call: vacuous in an allow (except `present`), never evidence in a deny.
    Absent,
    /// Present with no values (an empty array): vacuous in an allow, never fires a deny
    /// (except `present`).
    Empty,
    /// Present with values: judged per value.
    Judged,
}

/// Conditions that hold: a bitset for membership plus the list of what was set, so that
/// clearing and enumerating cost what was set, not the size of the group.
struct Held {
    bits: BitSet,
    set: Vec<CondId>,
}

impl Held {
    const EMPTY: Held = Held {
        bits: BitSet::EMPTY,
        set: Vec::new(),
    };

    /// Empties the set (touching only what was set) and makes room for `n` conditions.
    #[inline]
    fn reset(&mut self, n: usize) {
        for &c in &self.set {
            self.bits.remove(c.index());
        }
        self.set.clear();
        self.bits.grow(n);
    }

    #[inline]
    fn insert(&mut self, c: CondId) {
        if !self.bits.contains(c.index()) {
            self.bits.insert(c.index());
            self.set.push(c);
        }
    }

    #[inline]
    fn contains(&self, c: CondId) -> bool {
        self.bits.contains(c.index())
    }
}

/// Per-thread buffers, reused across decisions.
struct Scratch {
    allow: Held,
    deny: Held,
    states: Vec<ArgState>,
    hits: Vec<PatternId>,
    dfa: Vec<u32>,
    value: Vec<CondId>,
    /// Conditions one value satisfies in the deny sense only (`shell` patterns read
    /// generously, and every `shell` condition when the command is unreadable).
    deny_only: Vec<CondId>,
    common: Vec<CondId>,
    seen: BitSet,
    /// The patterns of the candidate rules' conditions on the argument being judged (raw and
    /// normalized), when only they are matched.
    wanted_raw: Vec<PatternId>,
    wanted_norm: Vec<PatternId>,
    locations: Vec<Location>,
}

impl Scratch {
    const EMPTY: Scratch = Scratch {
        allow: Held::EMPTY,
        deny: Held::EMPTY,
        states: Vec::new(),
        hits: Vec::new(),
        dfa: Vec::new(),
        value: Vec::new(),
        deny_only: Vec::new(),
        common: Vec::new(),
        seen: BitSet::EMPTY,
        wanted_raw: Vec::new(),
        wanted_norm: Vec::new(),
        locations: Vec::new(),
    };
}

thread_local! {
    // Initialised at compile time: reaching it costs no "first use on this thread" check.
    static SCRATCH: RefCell<Scratch> = const { RefCell::new(Scratch::EMPTY) };
}

/// The shared automata an evaluation reads.
struct Judge<'e> {
    automata: &'e Automata,
    needles: &'e [NeedleMatcher],
    /// With few candidate rules: the group and those rules, whose patterns alone are matched
    /// in a large pattern index.
    focus: Option<(&'e Group, &'e [LocalRuleId])>,
}

impl Group {
    /// Evaluates the group for the candidate rules; when `trace` is given, records every
    /// candidate rule's outcome in it. Returns `None` when a matcher failed (the caller
    /// denies).
    pub(crate) fn evaluate<'a, A: JsonArgs<'a>>(
        &self,
        args: A,
        candidates: &Candidates,
        automata: &Automata,
        needles: &[NeedleMatcher],
        trace: Option<&mut Trace>,
    ) -> Option<Fired> {
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => {
                self.evaluate_with(args, candidates, automata, needles, trace, &mut scratch)
            }
            // Re-entered on this thread (cannot happen in practice): use fresh buffers.
            Err(_) => {
                let mut fresh = Scratch::EMPTY;
                self.evaluate_with(args, candidates, automata, needles, trace, &mut fresh)
            }
        })
    }

    /// Judges the arguments the deny rules read and looks for a deny first; only when none
    /// fires are the other arguments judged and the allow rules checked. Explaining judges
    /// everything (the trace shows every candidate rule).
    fn evaluate_with<'a, A: JsonArgs<'a>>(
        &self,
        args: A,
        candidates: &Candidates,
        automata: &Automata,
        needles: &[NeedleMatcher],
        trace: Option<&mut Trace>,
        s: &mut Scratch,
    ) -> Option<Fired> {
        let explain = trace.is_some();
        s.allow.reset(self.n_conds as usize);
        s.deny.reset(self.n_conds as usize);
        s.states.clear();
        s.states.resize(self.args.len(), ArgState::Unjudged);
        let focus = match candidates {
            Candidates::List { all, .. } if all.len() <= DIRECT_CANDIDATES => Some((self, *all)),
            _ => None,
        };
        let judge = Judge {
            automata,
            needles,
            focus,
        };
        let judge_arg = |a: usize, s: &mut Scratch| -> Option<()> {
            if s.states.get(a) == Some(&ArgState::Unjudged) {
                let state = judge.judge(self.args.get(a)?, args, s)?;
                s.states[a] = state;
            }
            Some(())
        };
        if explain {
            for a in 0..self.args.len() {
                judge_arg(a, s)?;
            }
        } else {
            for &a in self.deny_args() {
                judge_arg(a.index(), s)?;
            }
        }
        let first_deny = self.first_firing(Effect::Deny, candidates, s);
        if let (Some(local), false) = (first_deny, explain) {
            return Some(Fired::Deny(local));
        }
        for a in 0..self.args.len() {
            judge_arg(a, s)?;
        }
        let first_allow = self.first_firing(Effect::Allow, candidates, s);
        if let Some(trace) = trace {
            trace.extend(
                crate::program::ids::all::<LocalRuleId>(self.n_rules())
                    .ok()?
                    .filter(|&local| candidates.contains(local))
                    .filter_map(|local| {
                        let effect = self.effect(local)?;
                        let failed = self
                            .rule_conds()
                            .row(local.index())
                            .iter()
                            .position(|&c| !self.holds(c, effect, s));
                        Some((local, failed))
                    }),
            );
        }
        Some(match (first_deny, first_allow) {
            (Some(local), _) => Fired::Deny(local),
            (None, Some(local)) => Fired::Allow(local),
            (None, None) => Fired::Nothing,
        })
    }

    /// Whether condition `c` holds for a rule of this effect.
    fn holds(&self, c: CondId, effect: Effect, s: &Scratch) -> bool {
        // Judging an argument is what puts its conditions in the deny set, so a deny
        // condition holds exactly when it is there.
        if effect == Effect::Deny {
            return s.deny.contains(c);
        }
        let Some(a) = self.cond_arg(c) else {
            return false;
        };
        let (Some(arg), Some(&state)) = (self.args.get(a.index()), s.states.get(a.index())) else {
            return false;
        };
        match state {
            ArgState::Unjudged => false,
            ArgState::Absent => !arg.present().contains(&c),
            ArgState::Empty => true,
            ArgState::Judged => s.allow.contains(c),
        }
    }

    /// Whether a rule fires: every condition holds.
    fn fires(&self, local: LocalRuleId, s: &Scratch) -> bool {
        let Some(effect) = self.effect(local) else {
            return false;
        };
        self.rule_conds()
            .row(local.index())
            .iter()
            .all(|&c| self.holds(c, effect, s))
    }

    /// The first candidate rule of this effect that fires (source order).
    fn first_firing(
        &self,
        effect: Effect,
        candidates: &Candidates,
        s: &Scratch,
    ) -> Option<LocalRuleId> {
        let of_effect = |local: LocalRuleId| self.effect(local) == Some(effect);
        match candidates {
            // Few candidates (the usual case with a catalog): check each, in order; a deny
            // is looked for among the tool's deny rules only. So are more deny rules when
            // many deny conditions hold: walking what holds would then cost more than
            // checking the rules in order, where the first that fires ends the search.
            Candidates::List { deny, .. }
                if effect == Effect::Deny
                    && (deny.len() <= DIRECT_CANDIDATES
                        || deny.len() <= DENSE_DENY_FACTOR * s.deny.set.len()) =>
            {
                deny.iter().copied().find(|&local| self.fires(local, s))
            }
            Candidates::List { all, .. } if all.len() <= DIRECT_CANDIDATES => all
                .iter()
                .copied()
                .find(|&local| of_effect(local) && self.fires(local, s)),
            _ => {
                let candidate = |local: LocalRuleId| of_effect(local) && candidates.contains(local);
                let mut first = None::<LocalRuleId>;
                // Only an earlier rule than the one found can change the answer.
                let earlier = |first: Option<LocalRuleId>, local: LocalRuleId| {
                    first.is_none_or(|f| local < f)
                };
                for &local in self.unconditional() {
                    if earlier(first, local) && candidate(local) {
                        first = Some(local);
                    }
                }
                // Rules keyed on a condition that holds: a deny needs its key condition
                // in the deny set, an allow keyed on a judged argument in the allow set.
                let held = match effect {
                    Effect::Deny => &s.deny.set,
                    Effect::Allow => &s.allow.set,
                };
                for &c in held {
                    for &local in self.keyed(c) {
                        // Skipped before asking whether it fires, the costly part.
                        if earlier(first, local) && candidate(local) && self.fires(local, s) {
                            first = Some(local);
                        }
                    }
                }
                // Allow rules keyed on an absent argument (or an empty array) hold that
                // condition vacuously: the first of them that fires is the only one that
                // can matter.
                if effect == Effect::Allow {
                    for (a, state) in s.states.iter().enumerate() {
                        if matches!(state, ArgState::Absent | ArgState::Empty) {
                            if let Some(&local) = self
                                .arg_keyed(a)
                                .iter()
                                .find(|&&l| candidate(l) && self.fires(l, s))
                            {
                                if earlier(first, local) {
                                    first = Some(local);
                                }
                            }
                        }
                    }
                }
                first
            }
        }
    }
}

/// The `shell` conditions one command line satisfies: read strictly for allows (one simple
/// command, or nothing), generously for denies (every command it can see; when anything is
/// unreadable, every `shell` condition, so a deny fails closed).
fn shell_hits(
    sh: &crate::program::group::PatternConds<crate::program::group::ShellPatterns>,
    text: &str,
    s: &mut Scratch,
) {
    if let Ok(m) = sh.matcher.set.allow_matches(text) {
        for id in m.iter() {
            extend_small(&mut s.value, sh.conds.row(id));
        }
    }
    let d = sh.matcher.set.deny_matches(text);
    if d.unreadable.is_some() {
        extend_small(&mut s.deny_only, sh.conds.items());
    } else {
        for id in d.matches.iter() {
            extend_small(&mut s.deny_only, sh.conds.row(id));
        }
    }
}

impl Judge<'_> {
    /// Judges one argument into the scratch bitsets; `None` when a matcher failed.
    fn judge<'a, A: JsonArgs<'a>>(
        &self,
        arg: &ArgMatcher,
        args: A,
        s: &mut Scratch,
    ) -> Option<ArgState> {
        let focused = [
            self.wanted(arg, arg.raw.as_deref(), &mut s.wanted_raw),
            self.wanted(arg, arg.norm.as_deref(), &mut s.wanted_norm),
        ];
        let mut count = 0usize;
        let mut failed = false;
        let present = visit(args, &arg.path, &mut |value| {
            if failed {
                return;
            }
            let Some(unreadable_path) = self.value_hits(arg, value, focused, s) else {
                failed = true;
                return;
            };
            // Deny: some value satisfies.
            for &c in &s.value {
                s.deny.insert(c);
            }
            for &c in &s.deny_only {
                s.deny.insert(c);
            }
            if unreadable_path {
                // A value that cannot be read as an absolute path fails closed: it never
                // satisfies a path pattern in an allow, and always does in a deny.
                for &c in arg.path_conds() {
                    s.deny.insert(c);
                }
            }
            // Allow: every value satisfies (intersection). The first value's conditions are
            // taken over whole (the next value refills `s.value`), and only a second value
            // needs them sorted, to be searched.
            if count == 0 {
                std::mem::swap(&mut s.common, &mut s.value);
            } else {
                s.value.sort_unstable();
                let value = &s.value;
                s.common.retain(|c| value.binary_search(c).is_ok());
            }
            count += 1;
        });
        if failed {
            return None;
        }
        if !present {
            return Some(ArgState::Absent);
        }
        for &c in arg.present() {
            s.deny.insert(c);
            s.allow.insert(c);
        }
        if count == 0 {
            return Some(ArgState::Empty);
        }
        for &c in &s.common {
            s.allow.insert(c);
        }
        Some(ArgState::Judged)
    }

    /// With few candidate rules and a large pattern index: fills `wanted` with the patterns
    /// that can satisfy the candidates' conditions on this argument, and returns true when
    /// matching only them pays.
    #[inline]
    fn wanted(
        &self,
        arg: &ArgMatcher,
        index: Option<&PatternConds<PatternIndex>>,
        wanted: &mut Vec<PatternId>,
    ) -> bool {
        // Most indexes are small: no call, no frame.
        let (Some(focus), Some(index)) = (self.focus, index) else {
            return false;
        };
        let Some(by_cond) = index.matcher.by_cond() else {
            return false;
        };
        Self::wanted_patterns(focus, arg, index, by_cond, wanted)
    }

    /// [`Judge::wanted`] for a large index.
    fn wanted_patterns(
        (group, rules): (&Group, &[LocalRuleId]),
        arg: &ArgMatcher,
        index: &PatternConds<PatternIndex>,
        by_cond: &crate::program::csr::Csr<PatternId>,
        wanted: &mut Vec<PatternId>,
    ) -> bool {
        wanted.clear();
        for &local in rules {
            for &c in group.rule_conds().row(local.index()) {
                let c = c.index();
                if arg.conds().contains(&c) {
                    extend_small(wanted, by_cond.row(c - arg.lo as usize));
                }
            }
        }
        wanted.sort_unstable();
        wanted.dedup();
        wanted.len() * 4 < index.matcher.n_patterns()
    }

    /// Matches a value's bytes against one of the argument's pattern indexes (the raw one, or
    /// the `normalized` one), only against the wanted patterns when `focused`, and adds the
    /// conditions the matching patterns satisfy to `s.value`. `None` when a matcher failed.
    fn index_hits(
        &self,
        r: &PatternConds<PatternIndex>,
        bytes: &[u8],
        focused: bool,
        normalized: bool,
        s: &mut Scratch,
    ) -> Option<()> {
        s.hits.clear();
        let ok = if focused {
            let wanted = if normalized {
                &s.wanted_norm
            } else {
                &s.wanted_raw
            };
            r.matcher.matches_some(
                wanted,
                bytes,
                self.automata,
                &mut s.locations,
                &mut s.dfa,
                &mut s.hits,
            )
        } else {
            r.matcher
                .matches(bytes, self.automata, &mut s.dfa, &mut s.hits)
        };
        if !ok {
            return None;
        }
        for &p in &s.hits {
            extend_small(&mut s.value, r.conds.row(p.index()));
        }
        Some(())
    }

    /// Fills `s.value` with the conditions one value satisfies in the allow sense (in no
    /// particular order, possibly repeated), `present` excepted; `focused` says, for the raw
    /// and normalized indexes, whether only the wanted patterns are matched. Returns whether
    /// the value is unreadable as a path.
    fn value_hits<'a, V: JsonValue<'a>>(
        &self,
        arg: &ArgMatcher,
        value: V,
        [raw_focused, norm_focused]: [bool; 2],
        s: &mut Scratch,
    ) -> Option<bool> {
        s.value.clear();
        s.deny_only.clear();
        let mut unreadable_path = false;
        match (value.as_str(), value.kind()) {
            (Some(text), _) => {
                if let Some(sh) = arg.shell() {
                    shell_hits(sh, text, s);
                }
                if let Some(r) = &arg.raw {
                    self.index_hits(r, text.as_bytes(), raw_focused, false, s)?;
                }
                if let Some(n) = arg.needles() {
                    let m = self.needles.get(n.matcher.index())?;
                    let (value_out, conds) = (&mut s.value, &n.conds);
                    if !m.matches(text, &mut s.seen, |id| {
                        extend_small(value_out, conds.row(id))
                    }) {
                        return None;
                    }
                }
                if let Some(r) = &arg.norm {
                    match normalize(text) {
                        Some(path) => {
                            self.index_hits(r, path.as_bytes(), norm_focused, true, s)?;
                        }
                        None => unreadable_path = true,
                    }
                }
            }
            (None, JsonKind::Number) => {
                if let Some(x) = value.as_f64() {
                    s.value.extend(
                        arg.numeric()
                            .iter()
                            .filter(|(_, op, rhs)| op.apply(x, *rhs))
                            .map(|(c, _, _)| *c),
                    );
                }
                unreadable_path = true;
                // Not a command line: a `shell` deny fails closed.
                s.deny_only.extend_from_slice(arg.shell_conds());
            }
            _ => {
                unreadable_path = true;
                s.deny_only.extend_from_slice(arg.shell_conds());
            }
        }
        // `!=` is the negation of its `==` pattern, judged per value (on the sorted list).
        if !arg.negated().is_empty() {
            s.value.sort_unstable();
            s.value.dedup();
        }
        for &c in arg.negated() {
            match s.value.binary_search(&c) {
                Ok(i) => {
                    s.value.remove(i);
                }
                Err(i) => s.value.insert(i, c),
            }
        }
        Some(unreadable_path)
    }
}
