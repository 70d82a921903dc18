//! The languages of conditions, decided with automata.
//!
//! A condition holds for a set of argument values. [`ValueSet`] describes that set (strings,
//! numbers, everything else) for one effect, and answers two questions the lints ask:
//! inclusion (`A ⊆ B`: every value admitted by one condition satisfies the other) and
//! disjointness (`A ∩ B = ∅`: no value satisfies both).
//!
//! String patterns (globs, regexes, `contains` needles) are compiled to DFAs over bytes that
//! accept a string when the pattern matches all of it ([`Dfa`], which accepts what a fully
//! anchored regex-automata dense DFA with `MatchKind::All`, [`Lang`], accepts, built more
//! cheaply; `toolgate diff` uses [`Lang`] itself). Inclusion `A ⊆ B` is decided by a
//! breadth-first search of the product automaton for a word that `A` accepts and `B` rejects
//! (emptiness of `A ∩ ¬B`); disjointness by a search for a word both accept. Both searches are
//! bounded: an automaton too large to build, or a product too large to explore, is "undecided",
//! and every caller treats undecided as the answer that reports nothing.
//!
//! Deciding over bytes rather than UTF-8 strings is conservative in both directions: an
//! inclusion over all byte strings holds over valid UTF-8 strings too, and a byte string both
//! patterns accept may be invalid UTF-8, in which case two conditions are merely not reported
//! as contradictory.

use super::dfa::Dfa;
use crate::pattern::path::normalize;
use crate::pattern::size::{estimated_size, DENSE_ESTIMATE_BUDGET};
use crate::resolve::{CondTest, NamePattern, StrPattern};
use crate::syntax::ast::{CmpOp, Effect};
use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::util::primitives::StateID;
use regex_automata::{Anchored, Input, MatchKind};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;
use std::rc::Rc;

/// The largest DFA built for one pattern, in bytes.
pub(crate) const DFA_LIMIT: usize = 2 << 20;
/// The most state pairs one product search visits before giving up.
const PRODUCT_LIMIT: usize = 50_000;

/// A fully anchored DFA: it accepts a string when the pattern matches all of it.
pub(crate) struct Lang {
    pub(crate) dfa: dense::DFA<Vec<u32>>,
    pub(crate) start: StateID,
}

/// The Thompson NFA the lints build their automata from: bytes, no captures, within
/// [`DFA_LIMIT`]; `None` past it.
pub(crate) fn lint_nfa(hir: &regex_syntax::hir::Hir) -> Option<thompson::NFA> {
    thompson::Compiler::new()
        .configure(
            thompson::Config::new()
                .utf8(false)
                .which_captures(WhichCaptures::None)
                .nfa_size_limit(Some(DFA_LIMIT)),
        )
        .build_from_hir(hir)
        .ok()
}

impl Lang {
    /// The pattern's DFA; `None` when it cannot be built within the limits, or when its
    /// estimated size says it would be too large to compare quickly (the compiler sends such
    /// a pattern to its lazy fallback too).
    pub(crate) fn build(pattern: &str) -> Option<Lang> {
        Lang::from_hir(&parse(pattern)?)
    }

    /// [`Lang::build`] of a parsed pattern.
    pub(crate) fn from_hir(hir: &regex_syntax::hir::Hir) -> Option<Lang> {
        if estimated_size(hir) > DENSE_ESTIMATE_BUDGET {
            return None;
        }
        let nfa = lint_nfa(hir)?;
        let dfa = dense::Builder::new()
            .configure(
                dense::Config::new()
                    .match_kind(MatchKind::All)
                    .start_kind(StartKind::Anchored)
                    .minimize(false)
                    .dfa_size_limit(Some(DFA_LIMIT))
                    .determinize_size_limit(Some(DFA_LIMIT)),
            )
            .build_from_nfa(&nfa)
            .ok()?;
        let start = dfa
            .start_state_forward(&Input::new("").anchored(Anchored::Yes))
            .ok()?;
        Some(Lang { dfa, start })
    }

    /// True when a word ending in state `s` is in the language.
    pub(crate) fn accepts_here(&self, s: StateID) -> bool {
        self.dfa.is_match_state(self.dfa.next_eoi_state(s))
    }

    /// True when the whole of `value` is in the language.
    pub(crate) fn accepts(&self, value: &[u8]) -> bool {
        let mut s = self.start;
        for &b in value {
            s = self.dfa.next_state(s, b);
            if self.dfa.is_dead_state(s) {
                return false;
            }
        }
        self.accepts_here(s)
    }
}

/// One representative byte for every pair of byte classes of two DFAs. Byte classes are
/// contiguous ranges numbered in byte order, so a pair's first byte is where either class
/// changes.
pub(crate) fn joint_classes(a: &Dfa, b: &Dfa) -> Vec<u8> {
    std::iter::once(0u8)
        .chain(
            (1..=255u8).filter(|&x| a.class(x) != a.class(x - 1) || b.class(x) != b.class(x - 1)),
        )
        .collect()
}

/// What a product search looks for.
#[derive(Clone, Copy, PartialEq)]
enum Search {
    /// A word `a` accepts and `b` rejects.
    AButNotB,
    /// A word both accept.
    Both,
}

/// Searches the product of `a` and `b` for a word the search looks for. `Some(true)`: such a
/// word exists; `Some(false)`: none does; `None`: too big. Pairs from which no such word can
/// follow are not visited: `a` dead, or `b` dead (looking for a word both accept) or
/// universal (looking for a word `b` rejects).
fn product_search(a: &Dfa, b: &Dfa, search: Search, budget: &mut usize) -> Option<bool> {
    let found = |x: u32, y: u32| match search {
        Search::AButNotB => a.accepts_here(x) && !b.accepts_here(y),
        Search::Both => a.accepts_here(x) && b.accepts_here(y),
    };
    let hopeless = |y: u32| match search {
        Search::AButNotB => b.is_universal(y),
        Search::Both => b.is_dead(y),
    };
    let bytes = joint_classes(a, b);
    let mut seen = Seen::new(a.states(), b.states());
    let mut queue = VecDeque::new();
    seen.insert(a.start(), b.start());
    queue.push_back((a.start(), b.start()));
    while let Some((sa, sb)) = queue.pop_front() {
        if found(sa, sb) {
            return Some(true);
        }
        for &x in &bytes {
            let na = a.next(sa, x);
            if a.is_dead(na) {
                continue;
            }
            let nb = b.next(sb, x);
            if hopeless(nb) {
                continue;
            }
            if seen.insert(na, nb) {
                if seen.len() > PRODUCT_LIMIT || *budget == 0 {
                    return None;
                }
                *budget -= 1;
                queue.push_back((na, nb));
            }
        }
    }
    Some(false)
}

/// The state pairs a product search has visited: a bit per pair when the product is small,
/// a hash set otherwise.
enum Seen {
    Bits {
        bits: Vec<u64>,
        width: usize,
        len: usize,
    },
    Set(FxHashSet<(u32, u32)>),
}

/// Up to this many state pairs, the visited pairs of a product search are a bitmap.
const SEEN_BITS: usize = 1 << 16;

impl Seen {
    fn new(a: usize, b: usize) -> Seen {
        match a.checked_mul(b) {
            Some(n) if n <= SEEN_BITS => Seen::Bits {
                bits: vec![0; n.div_ceil(64)],
                width: b,
                len: 0,
            },
            _ => Seen::Set(FxHashSet::default()),
        }
    }

    /// Records a pair; true when it is new.
    fn insert(&mut self, x: u32, y: u32) -> bool {
        match self {
            Seen::Bits { bits, width, len } => {
                let i = x as usize * *width + y as usize;
                let Some(word) = bits.get_mut(i / 64) else {
                    return false;
                };
                let bit = 1u64 << (i % 64);
                if *word & bit != 0 {
                    return false;
                }
                *word |= bit;
                *len += 1;
                true
            }
            Seen::Set(set) => set.insert((x, y)),
        }
    }

    fn len(&self) -> usize {
        match self {
            Seen::Bits { len, .. } => *len,
            Seen::Set(set) => set.len(),
        }
    }
}

/// The product states all searches of one run may visit together: past it, every further
/// comparison is undecided, so the lints of a policy of any size finish in bounded time.
const SEARCH_BUDGET: usize = 4_000_000;
/// The bytes of DFAs one run may build together; past it, further patterns are undecided.
const BUILD_BUDGET: usize = 256 << 20;

/// Compiled patterns, built once each, and what the comparisons of one run may still spend.
///
/// The maps are looked up once or twice per compared pair of rules (hundreds of thousands in
/// a large agent), never iterated: they hash with `FxHash`.
pub(crate) struct Langs {
    cache: FxHashMap<String, Option<Rc<Lang>>>,
    /// The automata the comparisons use.
    dfas: FxHashMap<String, Option<Rc<Dfa>>>,
    /// The index keys of glob and regex conditions, by regex.
    keys: FxHashMap<String, Rc<Keys>>,
    shortest: FxHashMap<String, Option<Rc<[u8]>>>,
    /// Product states the searches may still visit.
    search_left: usize,
    /// DFA bytes that may still be built.
    build_left: usize,
}

impl Default for Langs {
    fn default() -> Langs {
        Langs {
            cache: FxHashMap::default(),
            dfas: FxHashMap::default(),
            keys: FxHashMap::default(),
            shortest: FxHashMap::default(),
            search_left: SEARCH_BUDGET,
            build_left: BUILD_BUDGET,
        }
    }
}

/// `pattern`'s entry in `cache`, built by `build` (which gives the value and its size) when
/// absent and `budget` is not spent; each build, or each refusal, takes its size (or
/// [`DFA_LIMIT`]) from `budget`, and its answer is kept.
fn built_once<T>(
    cache: &mut FxHashMap<String, Option<Rc<T>>>,
    budget: &mut usize,
    pattern: &str,
    build: impl FnOnce(&str) -> Option<(T, usize)>,
) -> Option<Rc<T>> {
    if let Some(v) = cache.get(pattern) {
        return v.clone();
    }
    if *budget == 0 {
        return None;
    }
    let (v, used) = match build(pattern) {
        Some((v, used)) => (Some(Rc::new(v)), used),
        None => (None, DFA_LIMIT),
    };
    *budget = budget.saturating_sub(used);
    cache.insert(pattern.to_string(), v.clone());
    v
}

impl Langs {
    /// The DFA of a pattern, built once; `None` when it is too large, or the run's budget for
    /// building is spent.
    pub(crate) fn get(&mut self, pattern: &str) -> Option<Rc<Lang>> {
        built_once(&mut self.cache, &mut self.build_left, pattern, |p| {
            Lang::build(p).map(|l| {
                let used = l.dfa.memory_usage();
                (l, used)
            })
        })
    }

    /// The automaton the comparisons use for a pattern ([`Dfa`]), built once; `None` when it
    /// is too large, or the run's budget for building is spent.
    pub(crate) fn dfa(&mut self, pattern: &str) -> Option<Rc<Dfa>> {
        built_once(&mut self.dfas, &mut self.build_left, pattern, |p| {
            Dfa::build(p).map(|d| {
                let used = d.memory_usage();
                (d, used)
            })
        })
    }

    /// The literal suffix and the required factor of a condition ([`ValueSet::suffix`],
    /// [`super::factor::required_factor`]), a glob's or regex's found once from one parse.
    pub(crate) fn keys(&mut self, test: &CondTest) -> Rc<Keys> {
        let CondTest::Str {
            pattern: StrPattern::Glob { regex, .. } | StrPattern::Regex(regex),
            negated: false,
        } = test
        else {
            return Rc::new(Keys {
                suffix: ValueSet::suffix(test),
                factor: super::factor::required_factor(test),
                ..Keys::default()
            });
        };
        self.regex_keys(regex)
    }

    /// [`Keys`] of a glob's or regex's regex, found once from one parse.
    pub(crate) fn regex_keys(&mut self, regex: &str) -> Rc<Keys> {
        if let Some(k) = self.keys.get(regex) {
            return k.clone();
        }
        let keys = Rc::new(parse(regex).map_or_else(Keys::default, |hir| {
            let p = hir.properties();
            Keys {
                suffix: hir_suffix(&hir).unwrap_or_default(),
                factor: super::factor::hir_factor(&hir),
                anchored: p.look_set_prefix().contains(regex_syntax::hir::Look::Start)
                    || p.look_set_suffix().contains(regex_syntax::hir::Look::End),
                may_match_empty: p.minimum_len() == Some(0),
            }
        }));
        self.keys.insert(regex.to_string(), keys.clone());
        keys
    }

    /// A shortest string the pattern accepts (bytes, perhaps not UTF-8), found once; `None`
    /// when it accepts nothing, is too large, or the search gives up.
    pub(crate) fn shortest(&mut self, pattern: &str) -> Option<Rc<[u8]>> {
        if let Some(w) = self.shortest.get(pattern) {
            return w.clone();
        }
        let w = self.dfa(pattern).and_then(|d| d.shortest()).map(Rc::from);
        self.shortest.insert(pattern.to_string(), w.clone());
        w
    }

    /// `Some(true)` when every string `p` accepts, `q` accepts too.
    fn included(&mut self, p: &str, q: &str) -> Option<bool> {
        if p == q {
            return Some(true);
        }
        let (a, b) = (self.dfa(p)?, self.dfa(q)?);
        product_search(&a, &b, Search::AButNotB, &mut self.search_left).map(|c| !c)
    }

    /// `Some(true)` when no string is accepted by both.
    fn disjoint(&mut self, p: &str, q: &str) -> Option<bool> {
        let (a, b) = (self.dfa(p)?, self.dfa(q)?);
        product_search(&a, &b, Search::Both, &mut self.search_left).map(|both| !both)
    }

    fn accepts(&mut self, p: &str, value: &str) -> Option<bool> {
        Some(self.dfa(p)?.accepts(value.as_bytes()))
    }

    /// `Some(true)` when the name pattern `a` covers only names `b` covers.
    pub(crate) fn name_included(&mut self, a: &NamePattern, b: &NamePattern) -> Option<bool> {
        match (a, b) {
            (_, NamePattern::Any) => Some(true),
            (NamePattern::Any, _) => Some(false),
            (NamePattern::Literal(x), NamePattern::Literal(y)) => Some(x == y),
            (NamePattern::Literal(x), NamePattern::Glob { regex, .. }) => {
                self.accepts(&glob_regex(regex), x)
            }
            (NamePattern::Glob { .. }, NamePattern::Literal(_)) => Some(false),
            (NamePattern::Glob { regex: p, .. }, NamePattern::Glob { regex: q, .. }) => {
                self.included(&glob_regex(p), &glob_regex(q))
            }
        }
    }
}

/// The strings a condition holds for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StrSet {
    /// No string.
    None,
    /// Every string.
    All,
    /// Exactly these strings.
    Lits(Vec<String>),
    /// Every string but these.
    NotLits(Vec<String>),
    /// The strings a fully anchored regex accepts.
    Plain(String),
    /// The strings that normalize to an absolute path the regex accepts (a path pattern in an
    /// allow).
    Path(String),
    /// As [`StrSet::Path`], plus every string that cannot be normalized (a path pattern in a
    /// deny fails closed).
    PathOrUnreadable(String),
}

/// A closed, open or unbounded end of an interval.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Bound {
    value: f64,
    inclusive: bool,
}

/// An interval of numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Interval {
    lo: Bound,
    hi: Bound,
}

impl Interval {
    fn all() -> Interval {
        Interval {
            lo: Bound {
                value: f64::NEG_INFINITY,
                inclusive: true,
            },
            hi: Bound {
                value: f64::INFINITY,
                inclusive: true,
            },
        }
    }

    fn within(&self, other: &Interval) -> bool {
        let lo_ok = self.lo.value > other.lo.value
            || (self.lo.value == other.lo.value && (other.lo.inclusive || !self.lo.inclusive));
        let hi_ok = self.hi.value < other.hi.value
            || (self.hi.value == other.hi.value && (other.hi.inclusive || !self.hi.inclusive));
        lo_ok && hi_ok
    }

    fn meets(&self, other: &Interval) -> bool {
        let lo = if self.lo.value > other.lo.value
            || (self.lo.value == other.lo.value && !self.lo.inclusive)
        {
            self.lo
        } else {
            other.lo
        };
        let hi = if self.hi.value < other.hi.value
            || (self.hi.value == other.hi.value && !self.hi.inclusive)
        {
            self.hi
        } else {
            other.hi
        };
        lo.value < hi.value || (lo.value == hi.value && lo.inclusive && hi.inclusive)
    }
}

/// The values one condition holds for, judged for one effect.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ValueSet {
    strings: StrSet,
    numbers: Vec<Interval>,
    /// Booleans, null and objects.
    others: bool,
}

fn numbers_of(op: CmpOp, n: f64) -> Vec<Interval> {
    let inf = f64::INFINITY;
    let b = |value, inclusive| Bound { value, inclusive };
    match op {
        CmpOp::Lt => vec![Interval {
            lo: b(-inf, true),
            hi: b(n, false),
        }],
        CmpOp::Le => vec![Interval {
            lo: b(-inf, true),
            hi: b(n, true),
        }],
        CmpOp::Gt => vec![Interval {
            lo: b(n, false),
            hi: b(inf, true),
        }],
        CmpOp::Ge => vec![Interval {
            lo: b(n, true),
            hi: b(inf, true),
        }],
        CmpOp::Eq => vec![Interval {
            lo: b(n, true),
            hi: b(n, true),
        }],
        CmpOp::Ne => vec![
            Interval {
                lo: b(-inf, true),
                hi: b(n, false),
            },
            Interval {
                lo: b(n, false),
                hi: b(inf, true),
            },
        ],
    }
}

/// A glob's regex with globset's matching semantics: globset matches with `.` crossing
/// newlines, so `**` (translated to `.*`) matches a value holding a newline.
pub(crate) fn glob_regex(regex: &str) -> String {
    format!("(?s:{regex})")
}

/// A regex accepting exactly the strings in which `regex` matches somewhere.
pub(crate) fn anywhere(regex: &str) -> String {
    format!("(?s-u:.)*(?:{regex})(?s-u:.)*")
}

impl ValueSet {
    fn strings(strings: StrSet) -> ValueSet {
        ValueSet {
            strings,
            numbers: Vec::new(),
            others: false,
        }
    }

    /// The values a condition holds for in a rule of `effect`; `None` for `present`, which is
    /// about the argument rather than its values.
    pub(crate) fn of(test: &CondTest, effect: Effect) -> Option<ValueSet> {
        Some(match test {
            // `shell` conditions are judged on parsed words, not on a language of strings:
            // undecided, so no lint claims anything about them.
            CondTest::Present | CondTest::Shell(_) => return None,
            CondTest::Num(op, n) => ValueSet {
                strings: StrSet::None,
                numbers: numbers_of(*op, *n),
                others: false,
            },
            CondTest::Contains(needles) if needles.is_empty() => ValueSet::strings(StrSet::None),
            CondTest::Contains(needles) if needles.iter().any(String::is_empty) => {
                ValueSet::strings(StrSet::All)
            }
            CondTest::Contains(needles) => {
                let alts: Vec<String> = needles.iter().map(|n| regex_syntax::escape(n)).collect();
                ValueSet::strings(StrSet::Plain(anywhere(&alts.join("|"))))
            }
            CondTest::Str {
                pattern,
                negated: true,
            } => match pattern {
                StrPattern::OneOf(v) => ValueSet {
                    strings: StrSet::NotLits(v.clone()),
                    numbers: vec![Interval::all()],
                    others: true,
                },
                _ => return None,
            },
            CondTest::Str {
                pattern,
                negated: false,
            } => match pattern {
                StrPattern::OneOf(v) => ValueSet::strings(StrSet::Lits(v.clone())),
                StrPattern::Glob { regex, .. } => {
                    ValueSet::strings(StrSet::Plain(glob_regex(regex)))
                }
                StrPattern::Regex(r) => ValueSet::strings(StrSet::Plain(anywhere(r))),
                StrPattern::PathGlob { regex, .. } if effect == Effect::Deny => ValueSet {
                    strings: StrSet::PathOrUnreadable(glob_regex(regex)),
                    numbers: vec![Interval::all()],
                    others: true,
                },
                StrPattern::PathGlob { regex, .. } => {
                    ValueSet::strings(StrSet::Path(glob_regex(regex)))
                }
            },
        })
    }

    /// A prefix every string of the set starts with ("" when unknown). For path patterns it
    /// is a prefix of the normalized value.
    pub(crate) fn prefix(test: &CondTest) -> String {
        match test {
            CondTest::Str {
                pattern,
                negated: false,
            } => match pattern {
                StrPattern::OneOf(v) => common_prefix(v),
                StrPattern::Glob { text, .. } => glob_prefix(text).to_string(),
                StrPattern::PathGlob { text, .. } => {
                    let p = glob_prefix(text);
                    p.strip_suffix('/').unwrap_or(p).to_string()
                }
                StrPattern::Regex(_) => String::new(),
            },
            _ => String::new(),
        }
    }

    /// A suffix every string of the set ends with ("" when unknown). Path patterns give ""
    /// (a raw value need not end as its normal form does), and so do regexes not anchored
    /// at the end.
    pub(crate) fn suffix(test: &CondTest) -> String {
        match test {
            CondTest::Str {
                pattern,
                negated: false,
            } => match pattern {
                StrPattern::OneOf(v) => common_suffix(v),
                StrPattern::Glob { regex, .. } | StrPattern::Regex(regex) => {
                    regex_suffix(regex).unwrap_or_default()
                }
                StrPattern::PathGlob { .. } => String::new(),
            },
            _ => String::new(),
        }
    }

    /// `Some(true)`: every value in `self` is in `other`; `None`: undecided.
    pub(crate) fn subset(&self, other: &ValueSet, langs: &mut Langs) -> Option<bool> {
        if self.others && !other.others {
            return Some(false);
        }
        if !self
            .numbers
            .iter()
            .all(|i| other.numbers.iter().any(|j| i.within(j)))
        {
            return Some(false);
        }
        str_subset(&self.strings, &other.strings, langs)
    }

    /// `Some(true)`: no value is in both; `None`: undecided.
    pub(crate) fn disjoint(&self, other: &ValueSet, langs: &mut Langs) -> Option<bool> {
        if self.others && other.others {
            return Some(false);
        }
        if self
            .numbers
            .iter()
            .any(|i| other.numbers.iter().any(|j| i.meets(j)))
        {
            return Some(false);
        }
        str_disjoint(&self.strings, &other.strings, langs)
    }

    /// The strings of the set.
    pub(crate) fn string_set(&self) -> &StrSet {
        &self.strings
    }

    /// True when the number `n` is in the set.
    pub(crate) fn admits_number(&self, n: f64) -> bool {
        let point = Interval {
            lo: Bound {
                value: n,
                inclusive: true,
            },
            hi: Bound {
                value: n,
                inclusive: true,
            },
        };
        self.numbers.iter().any(|i| point.within(i))
    }

    /// True when booleans, null and objects are in the set.
    pub(crate) fn admits_others(&self) -> bool {
        self.others
    }

    /// True when the set holds no value at all.
    pub(crate) fn is_empty(&self) -> bool {
        !self.others
            && self.numbers.is_empty()
            && match &self.strings {
                StrSet::None => true,
                StrSet::Lits(v) => v.is_empty(),
                _ => false,
            }
    }
}

fn common_suffix(values: &[String]) -> String {
    let Some(first) = values.first() else {
        return String::new();
    };
    let mut len = first.len();
    for v in values.iter().skip(1) {
        let same = first
            .bytes()
            .rev()
            .zip(v.bytes().rev())
            .take_while(|(a, b)| a == b)
            .count();
        len = len.min(same);
    }
    let mut start = first.len() - len;
    while !first.is_char_boundary(start) {
        start += 1;
    }
    first[start..].to_string()
}

/// The literal suffix of a regex anchored at the end (`...-17$`): the longest common suffix
/// of the literals its matches end with (regex-syntax's suffix extractor). `None` when the
/// regex is not anchored at its end, or nothing is known.
fn regex_suffix(regex: &str) -> Option<String> {
    hir_suffix(&parse(regex)?)
}

/// A regex's syntax as the lints parse it; `None` when it does not parse.
pub(crate) fn parse(regex: &str) -> Option<regex_syntax::hir::Hir> {
    crate::pattern::hir::parse(regex, false).ok()
}

/// [`regex_suffix`] of a parsed regex.
fn hir_suffix(hir: &regex_syntax::hir::Hir) -> Option<String> {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    use regex_syntax::hir::{HirKind, Look};
    let mut last = hir;
    loop {
        match last.kind() {
            HirKind::Capture(c) => last = &c.sub,
            HirKind::Concat(subs) => last = subs.last()?,
            _ => break,
        }
    }
    if !matches!(last.kind(), HirKind::Look(Look::End)) {
        return None;
    }
    let seq = Extractor::new().kind(ExtractKind::Suffix).extract(hir);
    let lits: Vec<String> = seq
        .literals()?
        .iter()
        .map(|l| String::from_utf8(l.as_bytes().to_vec()).ok())
        .collect::<Option<_>>()?;
    Some(common_suffix(&lits))
}

/// What the coverage index keys a glob or regex condition on, and what `unanchored_regex`
/// asks of a regex, from one parse of its regex.
#[derive(Debug)]
pub(crate) struct Keys {
    /// [`ValueSet::suffix`] of the condition.
    pub(crate) suffix: String,
    /// [`super::factor::required_factor`] of the condition.
    pub(crate) factor: Vec<u8>,
    /// The regex is anchored at the start or the end of the value (true when it does not
    /// parse, so that nothing is claimed of it).
    pub(crate) anchored: bool,
    /// The regex may match the empty string (false when it does not parse).
    pub(crate) may_match_empty: bool,
}

impl Default for Keys {
    fn default() -> Keys {
        Keys {
            suffix: String::new(),
            factor: Vec::new(),
            anchored: true,
            may_match_empty: false,
        }
    }
}

fn common_prefix(values: &[String]) -> String {
    let Some(first) = values.first() else {
        return String::new();
    };
    let mut end = first.len();
    for v in values.iter().skip(1) {
        let mut e = 0;
        for ((i, a), b) in first.char_indices().zip(v.chars()) {
            if a != b || i >= end {
                break;
            }
            e = i + a.len_utf8();
        }
        end = end.min(e);
    }
    first[..end].to_string()
}

fn glob_prefix(glob: &str) -> &str {
    let end = glob.find(['*', '?', '[', '{', '\\']).unwrap_or(glob.len());
    &glob[..end]
}

/// Whether `value` is in the string set; `None` when undecided.
fn member(set: &StrSet, value: &str, langs: &mut Langs) -> Option<bool> {
    match set {
        StrSet::None => Some(false),
        StrSet::All => Some(true),
        StrSet::Lits(v) => Some(v.iter().any(|x| x == value)),
        StrSet::NotLits(v) => Some(!v.iter().any(|x| x == value)),
        StrSet::Plain(p) => langs.accepts(p, value),
        StrSet::Path(p) => match normalize(value) {
            Some(n) => langs.accepts(p, &n),
            None => Some(false),
        },
        StrSet::PathOrUnreadable(p) => match normalize(value) {
            Some(n) => langs.accepts(p, &n),
            None => Some(true),
        },
    }
}

fn all(values: &[String], mut f: impl FnMut(&str) -> Option<bool>) -> Option<bool> {
    for v in values {
        if !f(v)? {
            return Some(false);
        }
    }
    Some(true)
}

fn str_subset(a: &StrSet, b: &StrSet, langs: &mut Langs) -> Option<bool> {
    use StrSet::*;
    match (a, b) {
        (None, _) | (_, All) => Some(true),
        (All, _) => Some(false),
        (Lits(xs), _) => all(xs, |x| member(b, x, langs)),
        (NotLits(xs), NotLits(ys)) => Some(ys.iter().all(|y| xs.contains(y))),
        (NotLits(_), _) => Some(false),
        (_, NotLits(ys)) => all(ys, |y| member(a, y, langs).map(|m| !m)),
        (Plain(p), Plain(q)) => langs.included(p, q),
        (Path(p), Path(q)) | (Path(p), PathOrUnreadable(q)) => langs.included(p, q),
        (PathOrUnreadable(p), PathOrUnreadable(q)) => langs.included(p, q),
        _ => Some(false),
    }
}

fn str_disjoint(a: &StrSet, b: &StrSet, langs: &mut Langs) -> Option<bool> {
    use StrSet::*;
    match (a, b) {
        (None, _) | (_, None) => Some(true),
        (Lits(xs), _) => all(xs, |x| member(b, x, langs).map(|m| !m)),
        (_, Lits(ys)) => all(ys, |y| member(a, y, langs).map(|m| !m)),
        (Plain(p), Plain(q)) | (Path(p), Path(q)) => langs.disjoint(p, q),
        _ => Some(false),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::pattern::glob::translate;

    /// A glob condition as resolve makes it (a path pattern when it starts with `/`).
    pub(crate) fn glob(text: &str) -> CondTest {
        let t = translate(text).unwrap();
        let pattern = if t.is_path {
            StrPattern::PathGlob {
                text: text.into(),
                regex: t.regex,
            }
        } else {
            StrPattern::Glob {
                text: text.into(),
                regex: t.regex,
            }
        };
        CondTest::Str {
            pattern,
            negated: false,
        }
    }

    /// A regex condition.
    pub(crate) fn re(r: &str) -> CondTest {
        CondTest::Str {
            pattern: StrPattern::Regex(r.into()),
            negated: false,
        }
    }

    #[test]
    fn suffixes_are_known_for_literals_end_anchored_regexes_and_plain_globs() {
        let lits = |v: &[&str]| CondTest::Str {
            pattern: StrPattern::OneOf(v.iter().map(|s| s.to_string()).collect()),
            negated: false,
        };
        assert_eq!(ValueSet::suffix(&lits(&["a-17", "bb-17", "-17"])), "-17");
        assert_eq!(ValueSet::suffix(&lits(&["aé", "bé"])), "é");
        assert_eq!(ValueSet::suffix(&lits(&["x", "y"])), "");
        assert_eq!(ValueSet::suffix(&re("^(foo|bar)[0-9]+-17$")), "-17");
        assert_eq!(ValueSet::suffix(&re("(ab|cb)$")), "b");
        // Not anchored at the end: the value may go on.
        assert_eq!(ValueSet::suffix(&re("^(foo|bar)[0-9]+-17")), "");
        assert_eq!(ValueSet::suffix(&re("(?m)-17$")), "");
        assert_eq!(ValueSet::suffix(&glob("{foo,bar}*-17")), "-17");
        assert_eq!(ValueSet::suffix(&glob("*.rs")), ".rs");
        // A path pattern's suffix is its normal form's, not the raw value's.
        assert_eq!(ValueSet::suffix(&glob("/src/**/*.rs")), "");
    }

    fn lits(v: &[&str]) -> CondTest {
        CondTest::Str {
            pattern: StrPattern::OneOf(v.iter().map(|s| s.to_string()).collect()),
            negated: false,
        }
    }

    fn sub(a: &CondTest, b: &CondTest) -> Option<bool> {
        let mut langs = Langs::default();
        let (a, b) = (
            ValueSet::of(a, Effect::Allow)?,
            ValueSet::of(b, Effect::Allow)?,
        );
        a.subset(&b, &mut langs)
    }

    fn disj(a: &CondTest, b: &CondTest) -> Option<bool> {
        let mut langs = Langs::default();
        let (a, b) = (
            ValueSet::of(a, Effect::Allow)?,
            ValueSet::of(b, Effect::Allow)?,
        );
        a.disjoint(&b, &mut langs)
    }

    #[test]
    fn glob_inclusion_is_decided_on_languages() {
        assert_eq!(sub(&glob("/srv/a/**"), &glob("/srv/**")), Some(true));
        assert_eq!(sub(&glob("/srv/**"), &glob("/srv/a/**")), Some(false));
        assert_eq!(sub(&glob("/srv/*.csv"), &glob("/srv/*")), Some(true));
        // globset matches with `.` crossing newlines: `**` covers what `*` does.
        assert_eq!(sub(&glob("/srv/*"), &glob("/srv/**")), Some(true));
        assert_eq!(sub(&glob("/srv/a/**"), &glob("/srv/**")), Some(true));
        assert_eq!(sub(&glob("/srv/**"), &glob("/srv/*")), Some(false));
        assert_eq!(
            sub(&glob("npm run {build,test}"), &glob("npm run *")),
            Some(true)
        );
        assert_eq!(sub(&glob("npm run *"), &glob("npm *")), Some(true));
        // `*` does not cross `/`.
        assert_eq!(sub(&glob("a/*"), &glob("*")), Some(false));
    }

    #[test]
    fn regex_inclusion_accounts_for_unanchored_matching() {
        assert_eq!(sub(&re("^SELECT\\s+id"), &re("^SELECT\\s")), Some(true));
        assert_eq!(sub(&re("^SELECT\\s"), &re("SELECT")), Some(true));
        assert_eq!(sub(&re("SELECT"), &re("^SELECT")), Some(false));
        assert_eq!(sub(&re("(?i)select"), &re("select")), Some(false));
        assert_eq!(sub(&re("select"), &re("(?i)select")), Some(true));
    }

    #[test]
    fn literals_in_patterns() {
        assert_eq!(sub(&lits(&["/srv/a/b"]), &glob("/srv/**")), Some(true));
        assert_eq!(sub(&lits(&["/srv/../etc"]), &glob("/srv/**")), Some(false));
        assert_eq!(sub(&lits(&["a", "b"]), &lits(&["a", "b", "c"])), Some(true));
        assert_eq!(
            sub(&lits(&["a", "d"]), &lits(&["a", "b", "c"])),
            Some(false)
        );
        assert_eq!(sub(&lits(&["SELECT 1"]), &re("^SELECT\\s")), Some(true));
    }

    #[test]
    fn numbers_compare_as_intervals() {
        assert_eq!(
            sub(
                &CondTest::Num(CmpOp::Le, 600.0),
                &CondTest::Num(CmpOp::Lt, 1000.0)
            ),
            Some(true)
        );
        assert_eq!(
            sub(
                &CondTest::Num(CmpOp::Le, 600.0),
                &CondTest::Num(CmpOp::Lt, 600.0)
            ),
            Some(false)
        );
        assert_eq!(
            sub(
                &CondTest::Num(CmpOp::Eq, 5.0),
                &CondTest::Num(CmpOp::Ne, 6.0)
            ),
            Some(true)
        );
        assert_eq!(
            disj(
                &CondTest::Num(CmpOp::Lt, 5.0),
                &CondTest::Num(CmpOp::Ge, 5.0)
            ),
            Some(true)
        );
        assert_eq!(
            disj(
                &CondTest::Num(CmpOp::Le, 5.0),
                &CondTest::Num(CmpOp::Ge, 5.0)
            ),
            Some(false)
        );
    }

    #[test]
    fn disjointness() {
        assert_eq!(disj(&lits(&["a"]), &lits(&["b"])), Some(true));
        assert_eq!(disj(&glob("/a/**"), &glob("/b/**")), Some(true));
        assert_eq!(disj(&glob("/a/**"), &glob("/**/x")), Some(false));
        assert_eq!(
            disj(&lits(&["x"]), &CondTest::Num(CmpOp::Lt, 5.0)),
            Some(true)
        );
        assert_eq!(disj(&re("^a"), &re("^b")), Some(true));
        assert_eq!(disj(&re("a"), &re("b")), Some(false));
    }

    /// Both automata of a pattern: the lints' and a copy of the dense DFA's states.
    fn both(pattern: &str) -> Option<(Dfa, Dfa)> {
        let fast = Dfa::build(pattern);
        let dense = Lang::build(pattern).and_then(|l| Dfa::from_lang(&l));
        assert_eq!(fast.is_some(), dense.is_some(), "{pattern:?}");
        Some((fast?, dense?))
    }

    /// A pattern as the lints see it: unanchored (matching anywhere), or a glob's regex.
    fn as_condition(r: &str, unanchored: bool) -> String {
        if unanchored {
            anywhere(r)
        } else {
            glob_regex(r)
        }
    }

    #[test]
    fn unanchored_patterns_get_a_universal_state() {
        let (fast, dense) = both(&anywhere("(foo|bar)[0-9]+-17")).unwrap();
        assert!(fast.states() < dense.states());
        assert!(fast.accepts(b"xxbar0-17") && fast.accepts(b"foo12-170-\xff"));
        assert!(!fast.accepts(b"foo-17") && !fast.accepts(b"bar1-1"));
        assert_eq!(fast.shortest().as_deref(), Some(&b"bar0-17"[..]));
        // A match confirmed only by what follows (`\b`, `$`) is not sticky.
        let (fast, _) = both(&anywhere("ab$")).unwrap();
        assert!(fast.accepts(b"xab") && !fast.accepts(b"xabx"));
        let (fast, _) = both(&anywhere("ab(?-u:\\b)")).unwrap();
        assert!(fast.accepts(b"ab c") && !fast.accepts(b"abc"));
    }

    proptest::proptest! {
        /// The lints' automaton accepts exactly what the dense DFA accepts, has the same
        /// shortest word, and product searches over either give the same answers.
        #[test]
        fn the_subset_construction_agrees_with_the_dense_dfa(
            r in "(\\(?([ab.]|\\[a-c\\]|\\^|\\$|é){0,3}\\)?[*+?]?(\\|[ab-])?){1,4}",
            s in "(\\(?([ab.]|\\^|é){0,3}\\)?[*+?]?(\\|[ab-])?){1,3}",
            unanchored in proptest::bool::ANY,
            words in proptest::collection::vec("[ab\\-\n.é]{0,8}", 1..30),
        ) {
            let (p, q) = (as_condition(&r, unanchored), as_condition(&s, !unanchored));
            let (Some((fast, dense)), Some((fast_q, dense_q))) = (both(&p), both(&q)) else {
                return Ok(());
            };
            for w in &words {
                proptest::prop_assert_eq!(fast.accepts(w.as_bytes()), dense.accepts(w.as_bytes()), "{:?} on {:?}", p, w);
            }
            proptest::prop_assert_eq!(fast.shortest(), dense.shortest(), "{:?}", p);
            for search in [Search::AButNotB, Search::Both] {
                let mut budget = SEARCH_BUDGET;
                for (x, y) in [(&fast, &fast_q), (&fast_q, &fast)] {
                    let (dx, dy) = if std::ptr::eq(x, &fast) { (&dense, &dense_q) } else { (&dense_q, &dense) };
                    proptest::prop_assert_eq!(
                        product_search(x, y, search, &mut budget),
                        product_search(dx, dy, search, &mut budget),
                        "{:?} / {:?}", p, q
                    );
                }
            }
        }
    }

    #[test]
    fn prefixes() {
        assert_eq!(ValueSet::prefix(&glob("/etc/**")), "/etc");
        assert_eq!(ValueSet::prefix(&glob("src/*.rs")), "src/");
        assert_eq!(ValueSet::prefix(&lits(&["/srv/a", "/srv/b"])), "/srv/");
        assert_eq!(common_prefix(&["héllo".into(), "hèllo".into()]), "h");
    }
}
