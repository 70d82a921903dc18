//! The automata the lints compare patterns with: small DFAs over byte classes, built directly
//! from a pattern's Thompson NFA.
//!
//! A [`Dfa`] accepts a string when the pattern matches all of it (what a fully anchored
//! regex-automata dense DFA with `MatchKind::All` accepts, see [`super::lang::Lang`]), but is
//! cheaper to build for the patterns the lints see most:
//!
//! - a pattern without look-around assertions is determinized by a plain subset construction
//!   over its NFA (no start states per look-behind context, no delayed matches, no special
//!   state shuffling), which is several times cheaper than a general dense DFA build;
//! - a pattern ending in `(?s-u:.)*` (every unanchored regex and `contains` needle becomes
//!   `(?s-u:.)*(?:R)(?s-u:.)*`, see [`super::lang::anywhere`]) accepts every extension of a
//!   string it accepts: the part before that suffix is determinized alone and every state in
//!   which it matches becomes one universal state, instead of a copy of the prefix automaton
//!   that keeps tracking matches after the first one;
//! - a pattern with look-around assertions (`\b`, or `^` and `$` anywhere but at its start
//!   and end, where they always hold) is built as a dense DFA, as before, and its states
//!   copied.
//!
//! Each is bounded like the dense DFA it replaces: an automaton larger than
//! [`super::lang::DFA_LIMIT`] bytes is not built.

use super::lang::{joint_classes, parse, Lang, DFA_LIMIT};
use crate::pattern::size::{estimated_size, DENSE_ESTIMATE_BUDGET};
use regex_automata::dfa::Automaton;
use regex_automata::nfa::thompson::{State, NFA};
use regex_automata::util::primitives::StateID;
use regex_syntax::hir::{Class, Hir, HirKind};
use rustc_hash::FxHashMap;

/// The most states a search for a pattern's shortest string visits.
const SHORTEST_LIMIT: usize = 10_000;

/// The state every string leads to once it cannot be extended to an accepted one.
pub(crate) const DEAD: u32 = 0;

/// A DFA over byte classes: state `s` reads a byte of class `c` into `trans[s * width + c]`.
/// State [`DEAD`] rejects everything; `universal`, when there is one, accepts everything.
#[derive(Debug)]
pub(crate) struct Dfa {
    /// The class of each byte; classes are contiguous byte ranges numbered in byte order.
    classes: [u8; 256],
    /// The number of classes.
    width: usize,
    /// The transitions, `width` per state.
    trans: Vec<u32>,
    /// For each state, whether a string ending there is accepted.
    accept: Vec<bool>,
    /// The start state.
    start: u32,
    /// The state that accepts every continuation, if the construction made one.
    universal: Option<u32>,
}

impl Dfa {
    /// A DFA over `width` classes holding only the [`DEAD`] state, which it starts in.
    fn dead_only(classes: [u8; 256], width: usize) -> Dfa {
        Dfa {
            classes,
            width,
            trans: vec![DEAD; width],
            accept: vec![false],
            start: DEAD,
            universal: None,
        }
    }

    /// The DFA of a pattern; `None` when it does not parse, or when its automaton would be too
    /// large (by its estimated size, its NFA's size or its own size).
    pub(crate) fn build(pattern: &str) -> Option<Dfa> {
        let hir = parse(pattern)?;
        if estimated_size(&hir) > DENSE_ESTIMATE_BUDGET {
            return None;
        }
        let stripped = without_outer_anchors(&hir);
        let inner = stripped.as_ref().unwrap_or(&hir);
        if !inner.properties().look_set().is_empty() {
            return Dfa::from_lang(&Lang::from_hir(&hir)?);
        }
        let (body, sticky) = match without_any_suffix(inner) {
            Some(body) => (body, true),
            None => (stripped.unwrap_or(hir), false),
        };
        let nfa = super::lang::lint_nfa(&body)?;
        if !nfa.look_set_any().is_empty() {
            return Dfa::from_lang(&Lang::build(pattern)?);
        }
        Determinizer::new(&nfa, sticky).run()
    }

    /// A copy of a dense DFA's states reachable from its start.
    pub(crate) fn from_lang(lang: &Lang) -> Option<Dfa> {
        let byte_classes = lang.dfa.byte_classes();
        let mut classes = [0u8; 256];
        for (b, c) in (0..=255u8).zip(classes.iter_mut()) {
            *c = byte_classes.get(b);
        }
        let width = usize::from(classes[255]) + 1;
        let reps = representatives(&classes);
        let mut ids: FxHashMap<StateID, u32> = FxHashMap::default();
        let mut states: Vec<StateID> = Vec::new();
        let mut dfa = Dfa::dead_only(classes, width);
        let mut id_of = |s: StateID, dfa: &mut Dfa, states: &mut Vec<StateID>| -> Option<u32> {
            if lang.dfa.is_dead_state(s) {
                return Some(DEAD);
            }
            if let Some(&id) = ids.get(&s) {
                return Some(id);
            }
            let id = u32::try_from(dfa.accept.len()).ok()?;
            ids.insert(s, id);
            states.push(s);
            dfa.accept.push(lang.accepts_here(s));
            dfa.trans.resize(dfa.trans.len() + width, DEAD);
            (dfa.trans.len() * 4 <= DFA_LIMIT).then_some(id)
        };
        dfa.start = id_of(lang.start, &mut dfa, &mut states)?;
        let mut next = 0;
        while let Some(&s) = states.get(next) {
            let from = (next + 1) * width;
            for (c, &b) in reps.iter().enumerate() {
                let t = id_of(lang.dfa.next_state(s, b), &mut dfa, &mut states)?;
                if let Some(slot) = dfa.trans.get_mut(from + c) {
                    *slot = t;
                }
            }
            next += 1;
        }
        Some(dfa)
    }

    /// The start state.
    pub(crate) fn start(&self) -> u32 {
        self.start
    }

    /// The state reached from `s` by reading `byte`.
    #[allow(
        clippy::indexing_slicing,
        reason = "`s` is a state of this DFA (every transition stores one) and a class is below `width`"
    )]
    pub(crate) fn next(&self, s: u32, byte: u8) -> u32 {
        self.trans[s as usize * self.width + usize::from(self.classes[usize::from(byte)])]
    }

    /// True when no string leads from `s` to acceptance.
    pub(crate) fn is_dead(&self, s: u32) -> bool {
        s == DEAD
    }

    /// True when every string leads from `s` to acceptance (as far as this DFA knows: only
    /// its universal state says so).
    pub(crate) fn is_universal(&self, s: u32) -> bool {
        self.universal == Some(s)
    }

    /// True when a string ending in state `s` is accepted.
    pub(crate) fn accepts_here(&self, s: u32) -> bool {
        self.accept.get(s as usize).copied().unwrap_or(false)
    }

    /// The class of a byte.
    pub(crate) fn class(&self, byte: u8) -> u8 {
        self.classes.get(usize::from(byte)).copied().unwrap_or(0)
    }

    /// The number of states, the dead state included.
    pub(crate) fn states(&self) -> usize {
        self.accept.len()
    }

    /// The bytes the DFA takes in memory.
    pub(crate) fn memory_usage(&self) -> usize {
        self.trans.len() * 4 + self.accept.len() + 256
    }

    /// A shortest word of the language (the first in byte order among the shortest), by a
    /// breadth-first search over one byte per class; `None` when the language is empty or the
    /// search visits too many states.
    pub(crate) fn shortest(&self) -> Option<Vec<u8>> {
        let bytes = joint_classes(self, self);
        // Each visited state with the state it was reached from and the byte read.
        let mut visited: Vec<(u32, usize, u8)> = vec![(self.start, usize::MAX, 0)];
        let mut seen = vec![false; self.states()];
        let mut seen_len = 1;
        if let Some(x) = seen.get_mut(self.start as usize) {
            *x = true;
        }
        let mut next = 0;
        while let Some(&(s, _, _)) = visited.get(next) {
            if self.accepts_here(s) {
                let mut word = Vec::new();
                let mut at = next;
                while let Some(&(_, from, byte)) = visited.get(at) {
                    if from == usize::MAX {
                        break;
                    }
                    word.push(byte);
                    at = from;
                }
                word.reverse();
                return Some(word);
            }
            for &x in &bytes {
                let t = self.next(s, x);
                if self.is_dead(t) {
                    continue;
                }
                let Some(mark) = seen.get_mut(t as usize).filter(|m| !**m) else {
                    continue;
                };
                *mark = true;
                seen_len += 1;
                if seen_len > SHORTEST_LIMIT {
                    return None;
                }
                visited.push((t, next, x));
            }
            next += 1;
        }
        None
    }

    /// True when the whole of `value` is accepted.
    pub(crate) fn accepts(&self, value: &[u8]) -> bool {
        let mut s = self.start;
        for &b in value {
            s = self.next(s, b);
            if self.is_dead(s) {
                return false;
            }
        }
        self.accepts_here(s)
    }
}

/// The first byte of each class, in class order.
pub(crate) fn representatives(classes: &[u8; 256]) -> Vec<u8> {
    std::iter::once(0u8)
        .chain(
            (1..=255u8).filter(|&x| classes.get(usize::from(x)) != classes.get(usize::from(x - 1))),
        )
        .collect()
}

/// `hir` without a `^` that starts it or a `$` that ends it (`None` when it has neither): a
/// string is accepted when the pattern matches all of it, so such anchors always hold.
fn without_outer_anchors(hir: &Hir) -> Option<Hir> {
    use regex_syntax::hir::Look;
    let HirKind::Concat(subs) = hir.kind() else {
        return None;
    };
    let start = usize::from(matches!(
        subs.first().map(Hir::kind),
        Some(HirKind::Look(Look::Start))
    ));
    let end = usize::from(matches!(
        subs.last().map(Hir::kind),
        Some(HirKind::Look(Look::End))
    ));
    if start + end == 0 || subs.len() < start + end {
        return None;
    }
    let rest = subs.len() - start - end;
    Some(Hir::concat(
        subs.iter().skip(start).take(rest).cloned().collect(),
    ))
}

/// When `hir` is a concatenation ending in `(?s-u:.)*` (any bytes), the concatenation without
/// it: `hir` accepts exactly the strings that start with a string it accepts.
fn without_any_suffix(hir: &Hir) -> Option<Hir> {
    let HirKind::Concat(subs) = hir.kind() else {
        return None;
    };
    let (last, init) = subs.split_last()?;
    let HirKind::Repetition(rep) = last.kind() else {
        return None;
    };
    let any_byte = match rep.sub.kind() {
        HirKind::Class(Class::Bytes(c)) => {
            matches!(c.ranges(), [r] if r.start() == 0 && r.end() == 255)
        }
        _ => false,
    };
    (rep.min == 0 && rep.max.is_none() && any_byte).then(|| Hir::concat(init.to_vec()))
}

/// A subset construction over a look-free NFA.
struct Determinizer<'a> {
    nfa: &'a NFA,
    /// Every state in which the NFA matches is the universal state.
    sticky: bool,
    dfa: Dfa,
    /// The NFA states (those that read a byte, and matches) of each DFA state.
    subsets: Vec<Box<[u32]>>,
    ids: FxHashMap<Box<[u32]>, u32>,
    /// The first byte of each class.
    reps: Vec<u8>,
    /// Per NFA state, the closure that last visited it.
    stamp: Vec<u32>,
    generation: u32,
    stack: Vec<StateID>,
    /// Bytes held by the subsets, bounded like the DFA.
    subset_bytes: usize,
}

impl<'a> Determinizer<'a> {
    fn new(nfa: &'a NFA, sticky: bool) -> Determinizer<'a> {
        let byte_classes = nfa.byte_classes();
        let mut classes = [0u8; 256];
        for (b, c) in (0..=255u8).zip(classes.iter_mut()) {
            *c = byte_classes.get(b);
        }
        let width = usize::from(classes[255]) + 1;
        let reps = representatives(&classes);
        Determinizer {
            nfa,
            sticky,
            dfa: Dfa::dead_only(classes, width),
            subsets: vec![Box::new([])],
            ids: FxHashMap::default(),
            reps,
            stamp: vec![0; nfa.states().len()],
            generation: 0,
            stack: Vec::new(),
            subset_bytes: 0,
        }
    }

    /// The NFA states reachable from `seeds` without reading a byte that read one or match,
    /// sorted.
    fn closure(&mut self, seeds: &[u32], out: &mut Vec<u32>) {
        out.clear();
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.generation = 1;
        }
        self.stack.clear();
        self.stack.extend(
            seeds
                .iter()
                .rev()
                .filter_map(|&s| StateID::new(s as usize).ok()),
        );
        while let Some(id) = self.stack.pop() {
            let Some(stamp) = self.stamp.get_mut(id.as_usize()) else {
                continue;
            };
            if *stamp == self.generation {
                continue;
            }
            *stamp = self.generation;
            match self.nfa.state(id) {
                State::ByteRange { .. }
                | State::Sparse(_)
                | State::Dense(_)
                | State::Match { .. } => {
                    out.push(id.as_u32());
                }
                State::Union { alternates } => self.stack.extend(alternates.iter().rev()),
                State::BinaryUnion { alt1, alt2 } => {
                    self.stack.push(*alt2);
                    self.stack.push(*alt1);
                }
                State::Capture { next, .. } | State::Look { next, .. } => self.stack.push(*next),
                State::Fail => {}
            }
        }
        out.sort_unstable();
    }

    /// The DFA state of a subset, added (with its transitions still to fill) when new;
    /// `None` when the DFA grows past the limit.
    fn state_of(&mut self, subset: &[u32], pending: &mut Vec<u32>) -> Option<u32> {
        if subset.is_empty() {
            return Some(DEAD);
        }
        let matches = subset
            .iter()
            .any(|&s| matches!(self.nfa.states().get(s as usize), Some(State::Match { .. })));
        if matches && self.sticky {
            if let Some(u) = self.dfa.universal {
                return Some(u);
            }
            let u = self.add(Box::new([]), true)?;
            for slot in self.dfa.trans.iter_mut().skip(u as usize * self.dfa.width) {
                *slot = u;
            }
            self.dfa.universal = Some(u);
            return Some(u);
        }
        if let Some(&id) = self.ids.get(subset) {
            return Some(id);
        }
        let id = self.add(subset.into(), matches)?;
        self.ids.insert(subset.into(), id);
        pending.push(id);
        Some(id)
    }

    fn add(&mut self, subset: Box<[u32]>, accept: bool) -> Option<u32> {
        let id = u32::try_from(self.dfa.accept.len()).ok()?;
        self.subset_bytes += subset.len() * 8 + 48;
        self.subsets.push(subset);
        self.dfa.accept.push(accept);
        self.dfa
            .trans
            .resize(self.dfa.trans.len() + self.dfa.width, DEAD);
        (self.dfa.trans.len() * 4 <= DFA_LIMIT && self.subset_bytes <= DFA_LIMIT).then_some(id)
    }

    fn run(mut self) -> Option<Dfa> {
        let width = self.dfa.width;
        let mut pending = Vec::new();
        let mut subset = Vec::new();
        self.closure(&[self.nfa.start_anchored().as_u32()], &mut subset);
        self.dfa.start = self.state_of(&subset, &mut pending)?;
        let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); width];
        while let Some(id) = pending.pop() {
            buckets.iter_mut().for_each(Vec::clear);
            let Some(from) = self.subsets.get(id as usize) else {
                continue;
            };
            for &s in from.iter() {
                let Some(state) = self.nfa.states().get(s as usize) else {
                    continue;
                };
                match state {
                    State::ByteRange { trans } => {
                        self.spread(&mut buckets, trans.start, trans.end, trans.next);
                    }
                    State::Sparse(sparse) => {
                        for t in sparse.transitions.iter() {
                            self.spread(&mut buckets, t.start, t.end, t.next);
                        }
                    }
                    State::Dense(dense) => {
                        for (c, &lo) in self.reps.iter().enumerate() {
                            let next = dense.transitions.get(usize::from(lo)).copied();
                            if let (Some(next), Some(b)) = (next, buckets.get_mut(c)) {
                                if next != StateID::ZERO {
                                    b.push(next.as_u32());
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
            let mut previous: Option<(&Vec<u32>, u32)> = None;
            for (c, bucket) in buckets.iter().enumerate() {
                let target = match previous {
                    // Neighbouring classes often lead to the same NFA states.
                    Some((p, t)) if p == bucket => t,
                    _ if bucket.is_empty() => DEAD,
                    _ => {
                        self.closure(bucket, &mut subset);
                        self.state_of(&subset, &mut pending)?
                    }
                };
                previous = Some((bucket, target));
                if let Some(slot) = self.dfa.trans.get_mut(id as usize * width + c) {
                    *slot = target;
                }
            }
        }
        Some(self.dfa)
    }

    /// Adds the target `next` to the buckets of every class in `start..=end` (an NFA range
    /// covers whole classes, as the classes are built from the NFA's ranges).
    fn spread(&self, buckets: &mut [Vec<u32>], start: u8, end: u8, next: StateID) {
        let (lo, hi) = (self.dfa.class(start), self.dfa.class(end));
        for b in buckets
            .iter_mut()
            .take(usize::from(hi) + 1)
            .skip(usize::from(lo))
        {
            b.push(next.as_u32());
        }
    }
}
