//! A pattern index: which of many regexes match a value, in one linear pass.
//!
//! Patterns anchored at the start with a literal prefix (every glob and `==`/`in` literal, and
//! regexes written `^literal...`) are bucketed by that prefix. The buckets whose prefix starts
//! the value are found by a scan when there are at most 16 of them, else by a binary search
//! of the sorted prefixes: the greatest prefix not above the value, then the chain of
//! prefixes it nests in. Prefixes may nest (`/data/team1` starts `/data/team10`), but only a
//! few deep: a prefix under too many others goes to the shards. One DFA over each matching
//! bucket's suffixes finishes the match; suffix DFAs are shared, so 10,000 globs `/data/team{i}/**/*.csv` need one. Patterns
//! without a usable prefix go to a few unanchored DFA shards.
//!
//! The dense DFAs are an optimisation, never a limit on what a policy may say: a pattern a DFA
//! cannot run (Unicode word boundaries), one whose automaton would be large (bounded
//! repetitions of Unicode classes such as `\w{1,100}`, estimated from its syntax before any
//! automaton is built), and one whose DFA still exceeds the size budget go to one fallback
//! regex (regex-automata's `meta::Regex`: a lazy DFA with a bounded cache, or a PikeVM; linear
//! time either way), kept as source in the bundle and rebuilt when it is loaded.

use super::csr::{Csr, CsrRef};
use super::dfa::{Dfa, DfaError, DfaLimits};
use super::fallback::FallbackSet;
use super::ids::{self, DfaId, Id, PatternId};
use super::Invalid;
use crate::pattern::glob::LiteralSplit;
use crate::pattern::size::{estimated_size, DENSE_ESTIMATE_BUDGET};
use regex_syntax::hir::{Hir, HirKind, Look};
use serde::{Deserialize, Serialize};
use std::borrow::Borrow;
use std::collections::HashMap;

mod exact;
mod floating;
mod focus;
mod gated;
pub(crate) use focus::Location;

/// Moves the patterns of `group` that `diverted` picks (given each one's position and
/// pattern) to `fallback`, in order; the rest stay in `group`, in order. The diverts
/// (`exact`, `floating`, `gated`) each decide which of a group's patterns the fallback takes.
fn move_to_fallback<H: Borrow<Hir>>(
    group: &mut Vec<(H, PatternId)>,
    fallback: &mut Vec<PatternId>,
    mut diverted: impl FnMut(usize, &Hir) -> bool,
) {
    let mut at = 0;
    group.retain(|(hir, id)| {
        let moved = diverted(at, hir.borrow());
        at += 1;
        if moved {
            fallback.push(*id);
        }
        !moved
    });
}

/// Most patterns compiled into one unanchored DFA shard.
const SHARD_PATTERNS: usize = 64;
/// Most bucket prefixes that can start one value (a deeper prefix goes to the shards).
const MAX_NESTED_PREFIXES: usize = 8;
/// With more buckets than this, the prefixes are found by a binary search instead of a scan.
const SCAN_BUCKETS: usize = 16;

/// Keeps on `chain` (indices of prefixes, each nesting in the one before it) only the prefixes
/// that `prefix` nests in. Read in sorted order, the prefixes a prefix nests in are exactly
/// those left on the chain.
fn nest<'p>(chain: &mut Vec<usize>, prefix: &[u8], prefix_of: impl Fn(usize) -> &'p [u8]) {
    while chain
        .last()
        .is_some_and(|&a| !prefix.starts_with(prefix_of(a)))
    {
        chain.pop();
    }
}

/// A bucket in the making: its prefix and the suffixes of its patterns with their indices.
type Bucket<'r> = (Vec<u8>, Vec<(Suffix<'r>, PatternId)>);

/// What follows a bucket pattern's prefix: its own, or the one many split patterns share
/// (with the text it was read from, which names it).
enum Suffix<'r> {
    Own(Hir),
    Shared(&'r Hir, &'r str),
}

impl Borrow<Hir> for Suffix<'_> {
    fn borrow(&self) -> &Hir {
        match self {
            Suffix::Own(h) => h,
            Suffix::Shared(h, _) => h,
        }
    }
}

/// A pattern of a DFA, as the key that deduplicates DFAs names it.
trait KeyPart: Borrow<Hir> {
    /// Appends what names the pattern to `key`.
    fn write_key(&self, key: &mut String);
}

impl KeyPart for Hir {
    fn write_key(&self, key: &mut String) {
        use std::fmt::Write;
        key.push('\u{0}');
        // Writing to a String cannot fail.
        let _ = write!(key, "{self}");
    }
}

impl KeyPart for Suffix<'_> {
    fn write_key(&self, key: &mut String) {
        match self {
            Suffix::Own(h) => h.write_key(key),
            // The suffix read from a split's rest text: the text names it.
            Suffix::Shared(_, text) => {
                key.push_str("\u{0}\u{1}");
                key.push_str(text);
            }
        }
    }
}

/// Automata shared by every matcher of an engine, deduplicated at compile time.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Automata {
    /// Dense DFAs, referenced by index.
    pub dfas: Vec<Dfa>,
    #[serde(skip)]
    dfa_ids: HashMap<String, DfaId>,
    /// How each split rest text reads (see [`split_rest`]), read once per compile: every
    /// agent's `/home/aI/**` has the rest `**`.
    #[serde(skip)]
    split_rests: HashMap<String, SplitRest>,
    /// DFA builds attempted so far, over their limit or not (see [`Automata::builds`]).
    #[serde(skip)]
    builds: usize,
}

impl Automata {
    /// How many DFAs were determinized (or attempted and found over their size limit) while
    /// building into these automata; a DFA found by its key is not built again. Zero for
    /// automata read from a bundle.
    #[cfg(test)]
    pub(crate) fn builds(&self) -> usize {
        self.builds
    }

    /// The [`SplitRest`] of `rest`, read once.
    fn split_rest(&mut self, rest: &str) -> SplitRest {
        if let Some(known) = self.split_rests.get(rest) {
            return known.clone();
        }
        let read = split_rest(rest);
        self.split_rests.insert(rest.to_string(), read.clone());
        read
    }

    fn dfa<H: KeyPart>(
        &mut self,
        hirs: &[H],
        anchored: bool,
        limits: DfaLimits,
    ) -> Result<DfaId, DfaError> {
        self.dfa_with(hirs, anchored, false, limits)
    }

    /// A DFA over `hirs`; `ascii_word` DFAs treat Unicode word boundaries as ASCII ones and
    /// quit on a non-ASCII byte (see [`Dfa::build`]).
    fn dfa_with<H: KeyPart>(
        &mut self,
        hirs: &[H],
        anchored: bool,
        ascii_word: bool,
        limits: DfaLimits,
    ) -> Result<DfaId, DfaError> {
        let mut key = String::from(match (anchored, ascii_word) {
            (true, _) => "A",
            (false, false) => "U",
            (false, true) => "W",
        });
        for h in hirs {
            h.write_key(&mut key);
        }
        if let Some(&id) = self.dfa_ids.get(&key) {
            return Ok(id);
        }
        let id = DfaId::new(self.dfas.len())?;
        self.builds += 1;
        let dfa = Dfa::build(hirs, anchored, ascii_word, limits)?;
        self.dfas.push(dfa);
        self.dfa_ids.insert(key, id);
        Ok(id)
    }

    /// Total heap memory of the DFAs.
    #[cfg(test)]
    pub(crate) fn memory_usage(&self) -> usize {
        self.dfas.iter().map(Dfa::memory_usage).sum()
    }
}

/// A DFA and the original pattern index of each of its patterns.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Shard {
    dfa: DfaId,
    patterns: Vec<PatternId>,
}

/// Patterns a DFA cannot run, matched by a lazy regex rebuilt from source at load.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Fallback {
    sources: Vec<String>,
    patterns: Vec<PatternId>,
    /// The regexes over `sources` (`None` until built).
    #[serde(skip)]
    set: Option<FallbackSet>,
}

impl Fallback {
    fn new(patterns: &[String], ids: Vec<PatternId>) -> Result<Fallback, DfaError> {
        let sources: Vec<String> = ids.iter().map(|&i| patterns[i.index()].clone()).collect();
        Ok(Fallback {
            set: Some(FallbackSet::new(&sources)?),
            sources,
            patterns: ids,
        })
    }

    fn is_valid(&self, n_patterns: usize) -> bool {
        self.sources.len() == self.patterns.len()
            && self.patterns.iter().all(|&p| p.index() < n_patterns)
    }

    /// Reports every pattern matching `value` onto `out`; false when the regexes are not
    /// built (or one could not be).
    fn matches(&self, value: &[u8], scratch: &mut Vec<u32>, out: &mut Vec<PatternId>) -> bool {
        let Some(set) = &self.set else {
            return false;
        };
        set.which_match(value, scratch, |i| {
            if let Some(&p) = self.patterns.get(i as usize) {
                out.push(p);
            }
        })
    }

    fn take(slot: &mut Option<Fallback>) -> Option<BuiltFallback> {
        let f = slot.as_mut()?;
        let set = f.set.take()?;
        Some(BuiltFallback {
            sources: f.sources.clone(),
            set,
        })
    }

    fn reuse(slot: &mut Option<Fallback>, built: Option<BuiltFallback>) {
        if let (Some(f), Some(built)) = (slot.as_mut(), built) {
            if f.set.is_none() && f.sources == built.sources {
                f.set = Some(built.set);
            }
        }
    }

    fn rebuild(slot: &mut Option<Fallback>) -> Result<(), DfaError> {
        if let Some(f) = slot.as_mut().filter(|f| f.set.is_none()) {
            f.set = Some(FallbackSet::new(&f.sources)?);
        }
        Ok(())
    }
}

/// Fallback regexes taken from a compiled index, with the sources they match.
pub(crate) struct BuiltFallback {
    sources: Vec<String>,
    set: FallbackSet,
}

/// The patterns of an index without a usable prefix: few indexes have any, and an index is
/// held per argument of every agent, so they are boxed together.
#[derive(Debug, Clone, Default)]
struct Unanchored {
    rest: Box<[Shard]>,
    /// Unanchored DFAs over patterns with Unicode word boundaries, read as ASCII ones: such a
    /// DFA quits on a non-ASCII byte, and then `word_fallback` answers for its patterns.
    word_rest: Box<[Shard]>,
    fallback: Option<Fallback>,
    /// The patterns of `word_rest`, for values on which their DFAs quit.
    word_fallback: Option<Fallback>,
}

/// Which of a set of patterns match a value.
///
/// Bundles store the fields one after the other as [`IndexEncoding`] lists them.
#[derive(Debug, Clone, Deserialize)]
#[serde(from = "IndexEncoding")]
pub struct PatternIndex {
    /// Bucket prefixes, sorted ascending, stored end to end.
    prefix_bytes: Box<[u8]>,
    /// The bucket tables end to end, in one allocation (an index is held per argument of
    /// every agent): per bucket, where its prefix ends in `prefix_bytes`
    /// ([`PatternIndex::prefix_ends`]); per bucket, the suffix DFA
    /// ([`PatternIndex::bucket_dfas`]); then per bucket, the original pattern index of each
    /// suffix DFA pattern (a packed [`Csr`], [`PatternIndex::bucket_patterns`]).
    bucket_tables: Box<[u32]>,
    /// Where the suffix DFAs start in `bucket_tables` (the number of buckets).
    dfas_at: u32,
    /// Where the bucket patterns start in `bucket_tables`.
    patterns_at: u32,
    /// `None` when every pattern is in a prefix bucket.
    unanchored: Option<Box<Unanchored>>,
    /// Derived (not stored in bundles): the number of patterns the index places.
    n_patterns: u32,
    /// Derived (not stored in bundles): the tables only a large index needs.
    large: Option<Box<Large>>,
}

/// Tables derived (at build and at load, never stored) for a large index; an index is held per
/// argument of every agent, and most are small, so these are boxed together.
#[derive(Debug, Clone, Default)]
struct Large {
    /// Where each pattern is matched, for an index large enough to be matched in part (at
    /// least `FOCUS_MIN_PATTERNS` patterns); empty below.
    locations: Box<[Location]>,
    /// With more than [`SCAN_BUCKETS`] buckets: per bucket, the bucket whose prefix is the
    /// longest proper prefix of its own ([`NO_PARENT`] if none); empty with fewer.
    parents: Box<[u32]>,
    /// Set by the group that holds the index (it knows the conditions), for an index large
    /// enough to be matched in part: per condition of the argument, the patterns that
    /// satisfy it (see [`PatternIndex::set_by_cond`]).
    by_cond: Csr<PatternId>,
}

/// The parent of a bucket whose prefix nests in no other.
const NO_PARENT: u32 = u32::MAX;

/// A pattern index as bundles store it.
#[derive(Deserialize)]
struct IndexEncoding {
    prefix_bytes: Box<[u8]>,
    prefix_ends: Box<[u32]>,
    bucket_dfas: Box<[DfaId]>,
    bucket_patterns: Csr<PatternId>,
    rest: Box<[Shard]>,
    word_rest: Box<[Shard]>,
    fallback: Option<Fallback>,
    word_fallback: Option<Fallback>,
}

impl From<IndexEncoding> for PatternIndex {
    fn from(e: IndexEncoding) -> PatternIndex {
        let mut index = PatternIndex::with_buckets(
            e.prefix_bytes,
            &e.prefix_ends,
            &e.bucket_dfas,
            &e.bucket_patterns,
        );
        index.set_unanchored(Unanchored {
            rest: e.rest,
            word_rest: e.word_rest,
            fallback: e.fallback,
            word_fallback: e.word_fallback,
        });
        index
    }
}

impl Serialize for PatternIndex {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("IndexEncoding", 8)?;
        s.serialize_field("prefix_bytes", &self.prefix_bytes)?;
        s.serialize_field("prefix_ends", self.prefix_ends())?;
        s.serialize_field("bucket_dfas", self.bucket_dfas())?;
        s.serialize_field("bucket_patterns", &self.bucket_patterns())?;
        s.serialize_field("rest", self.rest())?;
        s.serialize_field("word_rest", self.word_rest())?;
        s.serialize_field("fallback", &self.fallback())?;
        s.serialize_field("word_fallback", &self.word_fallback())?;
        s.end()
    }
}

/// Bucket `b`'s prefix, given the prefixes end to end and where each ends.
#[inline]
fn prefix_of<'a>(bytes: &'a [u8], ends: &[u32], b: usize) -> &'a [u8] {
    let start = match b.checked_sub(1) {
        Some(before) => ends.get(before).copied().unwrap_or(0) as usize,
        None => 0,
    };
    let end = ends.get(b).copied().unwrap_or(0) as usize;
    bytes.get(start..end).unwrap_or(&[])
}

/// Parses a pattern's source the way every automaton of an index reads it.
pub(crate) fn parse(pattern: &str) -> Result<Hir, DfaError> {
    crate::pattern::hir::parse(pattern, false).map_err(|e| DfaError {
        message: e.to_string(),
        too_large: false,
    })
}

/// Splits `^literal rest` into the literal and the rest. The start may be inside the
/// branches of an alternation, and the literal their common prefix: a path pattern
/// `/home/a/**` reads `^/home/a/.*$|^/home/a$`, which splits into `/home/a` and
/// `/.*$|$`, a suffix every such pattern shares.
fn split_prefix(hir: &Hir) -> Option<(Vec<u8>, Hir)> {
    let rest = after_start(hir)?;
    let (prefix, suffix) = leading_literal(&rest);
    if prefix.is_empty() {
        return None;
    }
    Some((prefix, suffix))
}

/// What follows the start of text, when every match must begin with `^`.
fn after_start(hir: &Hir) -> Option<Hir> {
    match hir.kind() {
        HirKind::Concat(subs) => match subs.split_first() {
            Some((first, rest)) if matches!(first.kind(), HirKind::Look(Look::Start)) => {
                Some(Hir::concat(rest.to_vec()))
            }
            Some((first, rest)) => {
                // `^` lifted out of nothing: the first element may itself begin with it.
                let first = after_start(first)?;
                let mut subs = vec![first];
                subs.extend_from_slice(rest);
                Some(Hir::concat(subs))
            }
            None => None,
        },
        HirKind::Alternation(branches) => branches
            .iter()
            .map(after_start)
            .collect::<Option<Vec<Hir>>>()
            .map(Hir::alternation),
        _ => None,
    }
}

/// The literal bytes every match of `hir` begins with (as far as the syntax shows), and what
/// must follow them.
fn leading_literal(hir: &Hir) -> (Vec<u8>, Hir) {
    match hir.kind() {
        HirKind::Literal(lit) => (lit.0.to_vec(), Hir::empty()),
        HirKind::Concat(subs) => match subs.split_first() {
            Some((first, rest)) => {
                let (prefix, head) = leading_literal(first);
                let mut subs = vec![head];
                subs.extend_from_slice(rest);
                (prefix, Hir::concat(subs))
            }
            None => (Vec::new(), hir.clone()),
        },
        HirKind::Alternation(branches) => {
            let split: Vec<(Vec<u8>, Hir)> = branches.iter().map(leading_literal).collect();
            let common = split
                .iter()
                .map(|(p, _)| p.as_slice())
                .reduce(|a, b| {
                    let n = a.iter().zip(b).take_while(|(x, y)| x == y).count();
                    a.get(..n).unwrap_or_default()
                })
                .unwrap_or_default()
                .to_vec();
            if common.is_empty() {
                return (Vec::new(), hir.clone());
            }
            let rests = split
                .into_iter()
                .map(|(p, rest)| {
                    let tail = p.get(common.len()..).unwrap_or_default();
                    Hir::concat(vec![Hir::literal(tail.to_vec()), rest])
                })
                .collect();
            (common, Hir::alternation(rests))
        }
        _ => (Vec::new(), hir.clone()),
    }
}

/// True when a pattern goes to the fallback regex rather than a DFA.
fn needs_fallback(hir: &Hir) -> bool {
    estimated_size(hir) > DENSE_ESTIMATE_BUDGET
}

/// True when a pattern holds a Unicode word boundary, which a dense DFA runs only on ASCII.
fn has_unicode_word_boundary(hir: &Hir) -> bool {
    hir.properties().look_set().contains_word_unicode()
}

/// Unanchored DFAs over `patterns`, at most [`SHARD_PATTERNS`] each, halved while over the
/// budget; a single pattern over it goes to `fallback`.
///
/// `work` is what determinization may still spend on this index's shards, in bytes of DFA:
/// each DFA built takes its size, each attempt that outgrows its limit the limit. An attempt
/// over several patterns may take half of what is left, one pattern all of it; once nothing
/// is left, the remaining patterns go to `fallback` (a lazy DFA, linear in the value too).
/// Unanchored patterns with Unicode classes multiply states when combined (100 patterns like
/// `\p{Greek}\w+\p{Latin}` made 50 MB of DFAs in 8 s, most of it attempts that failed):
/// the budget bounds both the compile time and the bundle.
fn shards(
    patterns: Vec<(Hir, PatternId)>,
    ascii_word: bool,
    automata: &mut Automata,
    limits: DfaLimits,
    work: &mut usize,
    fallback: &mut Vec<PatternId>,
) -> Result<Vec<Shard>, DfaError> {
    let mut out = Vec::new();
    let mut queue: Vec<Vec<(Hir, PatternId)>> =
        patterns.chunks(SHARD_PATTERNS).map(<[_]>::to_vec).collect();
    while let Some(chunk) = queue.pop() {
        let (hirs, ids): (Vec<Hir>, Vec<PatternId>) = chunk.iter().cloned().unzip();
        let share = if chunk.len() > 1 { *work / 2 } else { *work };
        let limit = limits.dfa.min(share);
        if limit == 0 {
            fallback.extend(ids);
            continue;
        }
        let built = automata.dfas.len();
        let attempt = DfaLimits {
            dfa: limit,
            ..limits
        };
        match automata.dfa_with(&hirs, false, ascii_word, attempt) {
            Ok(dfa) => {
                // A DFA built for another index (found by its key) cost nothing here.
                if automata.dfas.len() > built {
                    let size = automata.dfas.get(dfa.index()).map_or(0, Dfa::memory_usage);
                    *work = work.saturating_sub(size);
                }
                out.push(Shard { dfa, patterns: ids });
            }
            Err(e) if e.too_large && chunk.len() > 1 => {
                *work = work.saturating_sub(limit);
                let half = chunk.len() / 2;
                queue.push(chunk[..half].to_vec());
                queue.push(chunk[half..].to_vec());
            }
            // One pattern alone exceeds the budget: it takes the slow path.
            Err(e) if e.too_large => {
                *work = work.saturating_sub(limit);
                fallback.extend(ids);
            }
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// A split pattern's rest as the index reads it: the literal it starts with in turn, and what
/// follows that. `None` when the pattern must be read whole: its rest does not parse (the
/// whole pattern's parse then says why), or it takes the fallback or a word shard.
type SplitRest = Option<(Vec<u8>, Hir)>;

/// The [`SplitRest`] of a split's rest text.
fn split_rest(rest: &str) -> SplitRest {
    parse(rest)
        .ok()
        .filter(|h| !needs_fallback(h) && !has_unicode_word_boundary(h))
        .and_then(|h| after_start(&h))
        .map(|h| leading_literal(&h))
}

impl PatternIndex {
    /// An index of these prefix buckets (see [`PatternIndex::bucket_tables`]) and no other
    /// pattern yet. Unchecked (see [`PatternIndex::validate`]).
    fn with_buckets(
        prefix_bytes: Box<[u8]>,
        prefix_ends: &[u32],
        bucket_dfas: &[DfaId],
        bucket_patterns: &Csr<PatternId>,
    ) -> PatternIndex {
        let mut tables = Vec::with_capacity(
            prefix_ends.len() + bucket_dfas.len() + bucket_patterns.packed().len(),
        );
        tables.extend_from_slice(prefix_ends);
        tables.extend(bucket_dfas.iter().map(|d| d.raw()));
        tables.extend(bucket_patterns.packed().iter().map(|p| p.raw()));
        // Tables too long to be placed by a `u32` are refused by `validate` (the bucket
        // counts then disagree).
        let at = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        PatternIndex {
            prefix_bytes,
            bucket_tables: tables.into_boxed_slice(),
            dfas_at: at(prefix_ends.len()),
            patterns_at: at(prefix_ends.len() + bucket_dfas.len()),
            unanchored: None,
            n_patterns: 0,
            large: None,
        }
    }

    /// The three bucket tables: [`PatternIndex::prefix_ends`],
    /// [`PatternIndex::bucket_dfas`] and [`PatternIndex::bucket_patterns`], split once.
    #[inline]
    fn buckets(&self) -> (&[u32], &[DfaId], CsrRef<'_, PatternId>) {
        let (ends, rest) = self
            .bucket_tables
            .split_at_checked(self.dfas_at as usize)
            .unwrap_or_default();
        let dfas_len = self.patterns_at.saturating_sub(self.dfas_at) as usize;
        let (dfas, patterns) = rest.split_at_checked(dfas_len).unwrap_or_default();
        (
            ends,
            DfaId::slice(dfas),
            CsrRef::packed(PatternId::slice(patterns)),
        )
    }

    /// Per bucket: where its prefix ends in `prefix_bytes` (prefix `b` starts where `b - 1`
    /// ends).
    #[inline]
    fn prefix_ends(&self) -> &[u32] {
        self.buckets().0
    }

    /// Per bucket: the suffix DFA.
    #[inline]
    fn bucket_dfas(&self) -> &[DfaId] {
        self.buckets().1
    }

    /// Per bucket: the original pattern index of each suffix DFA pattern.
    #[inline]
    fn bucket_patterns(&self) -> CsrRef<'_, PatternId> {
        self.buckets().2
    }

    /// Indexes `patterns` (regex sources); pattern `i` is reported as `i`.
    pub fn build(
        patterns: &[String],
        automata: &mut Automata,
        limits: DfaLimits,
    ) -> Result<PatternIndex, DfaError> {
        Self::build_split(patterns, &[], automata, limits)
    }

    /// [`PatternIndex::build`], told for some patterns how their regex splits after a leading
    /// literal (`splits[i]` for pattern `i`; a missing entry is `None`). The rest of such a
    /// pattern is read once for every pattern that shares it, and the pattern goes to the
    /// bucket of its literal without its whole regex being read.
    pub fn build_split(
        patterns: &[String],
        splits: &[Option<LiteralSplit>],
        automata: &mut Automata,
        limits: DfaLimits,
    ) -> Result<PatternIndex, DfaError> {
        let mut prefixed: Vec<(Vec<u8>, Suffix, PatternId)> = Vec::new();
        let mut rest: Vec<(Hir, PatternId)> = Vec::new();
        let mut word_rest: Vec<(Hir, PatternId)> = Vec::new();
        let mut fallback = Vec::new();
        let mut rests: HashMap<&str, SplitRest> = HashMap::new();
        for split in splits.iter().flatten() {
            rests
                .entry(split.rest.as_str())
                .or_insert_with(|| automata.split_rest(&split.rest));
        }
        for (i, p) in patterns.iter().enumerate() {
            let i = PatternId::new(i)?;
            if let Some(split) = splits.get(i.index()).and_then(Option::as_ref) {
                if let Some(Some((more, suffix))) = rests.get(split.rest.as_str()) {
                    let mut prefix = split.prefix.as_bytes().to_vec();
                    prefix.extend_from_slice(more);
                    prefixed.push((prefix, Suffix::Shared(suffix, &split.rest), i));
                    continue;
                }
            }
            let hir = parse(p)?;
            if needs_fallback(&hir) {
                fallback.push(i);
            } else if has_unicode_word_boundary(&hir) {
                word_rest.push((hir, i));
            } else if let Some((prefix, suffix)) = split_prefix(&hir) {
                prefixed.push((prefix, Suffix::Own(suffix), i));
            } else {
                rest.push((hir, i));
            }
        }
        // Group by prefix (sorted), then bound the nesting: a prefix under too many others
        // goes to the rest.
        prefixed.sort_by(|a, b| a.0.cmp(&b.0));
        let mut groups: Vec<Bucket> = Vec::new();
        for (prefix, suffix, i) in prefixed {
            match groups.last_mut() {
                Some((p, members)) if *p == prefix => members.push((suffix, i)),
                _ => groups.push((prefix, vec![(suffix, i)])),
            }
        }
        let mut kept: Vec<Bucket> = Vec::new();
        let mut ancestors: Vec<usize> = Vec::new();
        for (prefix, members) in groups {
            nest(&mut ancestors, &prefix, |a| {
                kept.get(a).map_or(&[][..], |k| k.0.as_slice())
            });
            if ancestors.len() >= MAX_NESTED_PREFIXES {
                for (_, i) in members {
                    rest.push((parse(&patterns[i.index()])?, i));
                }
            } else {
                ancestors.push(kept.len());
                kept.push((prefix, members));
            }
        }
        let mut prefix_bytes = Vec::new();
        let mut prefix_ends = Vec::with_capacity(kept.len());
        let mut bucket_dfas = Vec::with_capacity(kept.len());
        let mut bucket_patterns = Vec::with_capacity(kept.len());
        for (prefix, mut members) in kept {
            floating::divert(&mut members, &mut fallback);
            if members.is_empty() {
                continue;
            }
            let (hirs, ids): (Vec<Suffix>, Vec<PatternId>) = members.into_iter().unzip();
            match automata.dfa(&hirs, true, limits) {
                Ok(dfa) => {
                    let end = u32::try_from(prefix_bytes.len() + prefix.len())
                        .map_err(|_| ids::IdOverflow("bytes of bucket prefixes"))?;
                    bucket_dfas.push(dfa);
                    bucket_patterns.push(ids);
                    prefix_bytes.extend_from_slice(&prefix);
                    prefix_ends.push(end);
                }
                // The bucket's suffixes do not fit the budget: its patterns take the slow path.
                Err(e) if e.too_large => fallback.extend(ids),
                Err(e) => return Err(e),
            }
        }
        let mut index = PatternIndex::with_buckets(
            prefix_bytes.into_boxed_slice(),
            &prefix_ends,
            &bucket_dfas,
            &Csr::from_rows(bucket_patterns)?,
        );
        floating::divert(&mut rest, &mut fallback);
        exact::divert(&mut rest, &mut fallback, SHARD_PATTERNS);
        gated::divert(&mut rest, &mut fallback, SHARD_PATTERNS);
        floating::divert(&mut word_rest, &mut fallback);
        exact::divert(&mut word_rest, &mut fallback, SHARD_PATTERNS);
        let mut work = limits.shards;
        let mut unanchored = Unanchored {
            rest: shards(rest, false, automata, limits, &mut work, &mut fallback)?
                .into_boxed_slice(),
            word_rest: shards(word_rest, true, automata, limits, &mut work, &mut fallback)?
                .into_boxed_slice(),
            fallback: None,
            word_fallback: None,
        };
        if !fallback.is_empty() {
            fallback.sort_unstable();
            unanchored.fallback = Some(Fallback::new(patterns, fallback)?);
        }
        let mut word: Vec<PatternId> = unanchored
            .word_rest
            .iter()
            .flat_map(|s| s.patterns.clone())
            .collect();
        if !word.is_empty() {
            word.sort_unstable();
            unanchored.word_fallback = Some(Fallback::new(patterns, word)?);
        }
        index.set_unanchored(unanchored);
        index.derive();
        Ok(index)
    }

    /// True when the index holds unanchored DFA shards or fallback regexes (patterns without
    /// a literal prefix), the parts that cost most to build.
    pub(crate) fn has_unanchored(&self) -> bool {
        self.unanchored.is_some()
    }

    /// Keeps `unanchored` when it holds anything.
    fn set_unanchored(&mut self, u: Unanchored) {
        let empty = u.rest.is_empty()
            && u.word_rest.is_empty()
            && u.fallback.is_none()
            && u.word_fallback.is_none();
        self.unanchored = (!empty).then(|| Box::new(u));
    }

    /// The unanchored DFA shards.
    fn rest(&self) -> &[Shard] {
        self.unanchored.as_deref().map_or(&[], |u| &u.rest)
    }

    /// The word-boundary DFA shards.
    fn word_rest(&self) -> &[Shard] {
        self.unanchored.as_deref().map_or(&[], |u| &u.word_rest)
    }

    /// The fallback regexes of patterns no DFA runs.
    fn fallback(&self) -> Option<&Fallback> {
        self.unanchored.as_deref()?.fallback.as_ref()
    }

    /// The fallback regexes of the word-boundary shards' patterns.
    fn word_fallback(&self) -> Option<&Fallback> {
        self.unanchored.as_deref()?.word_fallback.as_ref()
    }

    /// Bucket `b`'s prefix.
    fn prefix(&self, b: usize) -> &[u8] {
        prefix_of(&self.prefix_bytes, self.prefix_ends(), b)
    }

    /// Computes the tables not stored in bundles (keeping what the group set).
    fn derive(&mut self) {
        let locations = self.derive_locations();
        let parents = self.prefix_parents().0;
        let by_cond = self.large.take().map_or_else(Csr::unset, |l| l.by_cond);
        self.large =
            (!locations.is_empty() || !parents.is_empty() || by_cond.rows() > 0).then(|| {
                Box::new(Large {
                    locations,
                    parents,
                    by_cond,
                })
            });
    }

    /// Records, for an index large enough to be matched in part, which of its patterns
    /// satisfy each condition of its argument (row `c` for the argument's condition `c`,
    /// counted from its first).
    pub(crate) fn set_by_cond(&mut self, by_cond: Csr<PatternId>) {
        self.large.get_or_insert_with(Box::default).by_cond = by_cond;
    }

    /// What [`PatternIndex::set_by_cond`] recorded (`None` when nothing was).
    #[inline]
    pub(crate) fn by_cond(&self) -> Option<&Csr<PatternId>> {
        self.large
            .as_deref()
            .map(|l| &l.by_cond)
            .filter(|b| b.rows() > 0)
    }

    /// Per bucket, its parent (see [`Large::parents`]); empty with at most
    /// [`SCAN_BUCKETS`] buckets), and the length of the longest chain of nested prefixes.
    fn prefix_parents(&self) -> (Box<[u32]>, usize) {
        let buckets = self.prefix_ends().len();
        let mut parents = Vec::with_capacity(if buckets > SCAN_BUCKETS { buckets } else { 0 });
        let mut chain: Vec<usize> = Vec::new();
        let mut deepest = 0;
        for b in 0..buckets {
            nest(&mut chain, self.prefix(b), |a| self.prefix(a));
            if buckets > SCAN_BUCKETS {
                // A bucket index fits a u32: `prefix_ends` holds u32 offsets of non-empty prefixes.
                parents.push(chain.last().map_or(NO_PARENT, |&a| a as u32));
            }
            chain.push(b);
            deepest = deepest.max(chain.len());
        }
        (parents.into_boxed_slice(), deepest)
    }

    /// Writes into `out` the buckets whose prefix starts `value` (at most `out.len()`) and
    /// returns how many. With few buckets, a scan. With many, a binary search for the greatest
    /// prefix not above the value: every prefix that starts the value sorts between itself
    /// and the value, so it is that prefix or one it nests in, and those that start the value
    /// are the ones no longer than what that prefix shares with the value.
    fn buckets_starting(&self, value: &[u8], ends: &[u32], out: &mut [usize]) -> usize {
        let prefix = |b: usize| prefix_of(&self.prefix_bytes, ends, b);
        let buckets = ends.len();
        let mut found = 0;
        let parents = self.large.as_deref().map_or(&[][..], |l| &l.parents);
        if parents.len() != buckets || buckets <= SCAN_BUCKETS {
            for b in 0..buckets {
                if found < out.len() && value.starts_with(prefix(b)) {
                    out[found] = b;
                    found += 1;
                }
            }
            return found;
        }
        let (mut lo, mut hi) = (0, buckets);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if prefix(mid) <= value {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let Some(greatest) = lo.checked_sub(1) else {
            return 0;
        };
        let shared = prefix(greatest)
            .iter()
            .zip(value)
            .take_while(|(a, b)| a == b)
            .count();
        let mut b = greatest;
        loop {
            if prefix(b).len() <= shared && found < out.len() {
                out[found] = b;
                found += 1;
            }
            match parents.get(b) {
                // A parent sorts before its child, so the walk ends.
                Some(&p) if (p as usize) < b => b = p as usize,
                _ => return found,
            }
        }
    }

    /// Rebuilds what is not serialized (the fallback regexes), unless it is already built
    /// (a program fresh from the compiler).
    pub fn rebuild(&mut self) -> Result<(), DfaError> {
        self.derive();
        match self.unanchored.as_deref_mut() {
            Some(u) => {
                Fallback::rebuild(&mut u.fallback)?;
                Fallback::rebuild(&mut u.word_fallback)
            }
            None => Ok(()),
        }
    }

    /// Takes out the fallback regexes built for this index, with the sources they were built
    /// from (for [`PatternIndex::reuse_fallbacks`]).
    pub(crate) fn take_fallbacks(&mut self) -> [Option<BuiltFallback>; 2] {
        match self.unanchored.as_deref_mut() {
            Some(u) => [
                Fallback::take(&mut u.fallback),
                Fallback::take(&mut u.word_fallback),
            ],
            None => [None, None],
        }
    }

    /// Puts back fallback regexes built for an index with the same fallback sources (this
    /// index decoded from the bundle of the one they came from), so that [`Self::rebuild`]
    /// does not build them again. Regexes built from other sources are dropped.
    pub(crate) fn reuse_fallbacks(&mut self, [main, word]: [Option<BuiltFallback>; 2]) {
        if let Some(u) = self.unanchored.as_deref_mut() {
            Fallback::reuse(&mut u.fallback, main);
            Fallback::reuse(&mut u.word_fallback, word);
        }
    }

    /// Checks that the prefixes are sorted and consistent, every DFA reference is in range,
    /// and every mapping fits its DFA.
    pub fn validate(&self, automata: &Automata, n_patterns: usize) -> Result<(), Invalid> {
        let buckets = self.prefix_ends().len();
        let ends_ok = self.prefix_ends().windows(2).all(|w| w[0] < w[1])
            && self.prefix_ends().first().is_none_or(|&e| e > 0)
            && self
                .prefix_ends()
                .last()
                .map_or(self.prefix_bytes.is_empty(), |&e| {
                    e as usize == self.prefix_bytes.len()
                });
        if !ends_ok
            || self.bucket_dfas().len() != buckets
            || !self.bucket_patterns().is_valid(buckets, n_patterns)
        {
            return Err(Invalid("bucket table is inconsistent"));
        }
        if !(1..buckets).all(|b| self.prefix(b - 1) < self.prefix(b)) {
            return Err(Invalid("bucket prefixes are not sorted"));
        }
        if self.prefix_parents().1 > MAX_NESTED_PREFIXES {
            return Err(Invalid("bucket prefixes nest too deep"));
        }
        let dfa_fits = |dfa: DfaId, patterns: usize| {
            automata
                .dfas
                .get(dfa.index())
                .is_some_and(|d| d.pattern_len() == patterns)
        };
        for b in 0..buckets {
            if !dfa_fits(self.bucket_dfas()[b], self.bucket_patterns().row(b).len()) {
                return Err(Invalid("bucket DFA does not fit its patterns"));
            }
        }
        for s in self.rest() {
            if !dfa_fits(s.dfa, s.patterns.len())
                || s.patterns.iter().any(|&p| p.index() >= n_patterns)
            {
                return Err(Invalid("shard DFA does not fit its patterns"));
            }
        }
        for s in self.word_rest() {
            if !dfa_fits(s.dfa, s.patterns.len())
                || s.patterns.iter().any(|&p| p.index() >= n_patterns)
            {
                return Err(Invalid("shard DFA does not fit its patterns"));
            }
        }
        if [self.fallback(), self.word_fallback()]
            .into_iter()
            .flatten()
            .any(|f| !f.is_valid(n_patterns))
            || self.word_rest().is_empty() != self.word_fallback().is_none()
        {
            return Err(Invalid("fallback pattern table is inconsistent"));
        }
        Ok(())
    }

    /// Pushes onto `out` the index of every pattern that matches `value` (possibly more than
    /// once). Returns false when a search could not run.
    pub fn matches(
        &self,
        value: &[u8],
        automata: &Automata,
        scratch: &mut Vec<u32>,
        out: &mut Vec<PatternId>,
    ) -> bool {
        let mut buckets = [0usize; MAX_NESTED_PREFIXES + 1];
        let (ends, dfas, patterns) = self.buckets();
        let found = self.buckets_starting(value, ends, &mut buckets);
        let mut ok = true;
        let mut run = |dfa: DfaId, patterns: &[PatternId], start: usize| {
            scratch.clear();
            match automata.dfas.get(dfa.index()) {
                Some(d) => ok &= d.matches(value, start, scratch),
                None => ok = false,
            }
            out.extend(scratch.iter().filter_map(|&j| patterns.get(j as usize)));
        };
        for &b in &buckets[..found] {
            if let (Some(&dfa), Some(prefix)) = (
                dfas.get(b),
                (b < ends.len()).then(|| prefix_of(&self.prefix_bytes, ends, b)),
            ) {
                run(dfa, patterns.row(b), prefix.len());
            }
        }
        for shard in self.rest() {
            run(shard.dfa, &shard.patterns, 0);
        }
        // A word-boundary DFA quits on a non-ASCII byte: its patterns are then matched by
        // their fallback regexes (the matches it reported before quitting are real ones).
        let mut quit = false;
        for shard in self.word_rest() {
            scratch.clear();
            match automata.dfas.get(shard.dfa.index()) {
                Some(d) => quit |= !d.matches(value, 0, scratch),
                None => ok = false,
            }
            out.extend(
                scratch
                    .iter()
                    .filter_map(|&j| shard.patterns.get(j as usize)),
            );
        }
        if quit {
            ok &= self
                .word_fallback()
                .is_some_and(|f| f.matches(value, scratch, out));
        }
        if let Some(f) = self.fallback() {
            ok &= f.matches(value, scratch, out);
        }
        ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dfa_found_by_its_key_is_not_built_again() {
        let mut automata = Automata::default();
        let patterns = ["a[0-9]+b".to_string(), "c[0-9]+d".to_string()];
        PatternIndex::build(&patterns, &mut automata, DfaLimits::default()).unwrap();
        let once = automata.builds();
        PatternIndex::build(&patterns, &mut automata, DfaLimits::default()).unwrap();
        assert_eq!(automata.builds(), once);
    }

    fn matches(patterns: &[&str], value: &str) -> Vec<usize> {
        let pats: Vec<String> = patterns.iter().map(|s| s.to_string()).collect();
        let mut automata = Automata::default();
        let idx = PatternIndex::build(&pats, &mut automata, DfaLimits::default()).unwrap();
        idx.validate(&automata, pats.len()).unwrap();
        let (mut scratch, mut out) = (Vec::new(), Vec::new());
        assert!(idx.matches(value.as_bytes(), &automata, &mut scratch, &mut out));
        let mut out: Vec<usize> = out.into_iter().map(PatternId::index).collect();
        out.sort();
        out.dedup();
        out
    }

    /// 100 unanchored patterns with Unicode classes, `\p{Latin}\w+\p{Greek}` and so on:
    /// together their DFAs multiply states.
    fn unicode_patterns(n: usize) -> Vec<String> {
        const SCRIPTS: [&str; 10] = [
            "Latin",
            "Greek",
            "Cyrillic",
            "Arabic",
            "Hebrew",
            "Han",
            "Hiragana",
            "Katakana",
            "Thai",
            "Devanagari",
        ];
        (0..n)
            .map(|i| {
                let (a, b) = (SCRIPTS[i % 10], SCRIPTS[(i / 10) % 10]);
                format!(r"\p{{{a}}}\w+\p{{{b}}}")
            })
            .collect()
    }

    #[test]
    fn unanchored_shards_stay_within_their_budget() {
        // They made 50 MB of DFAs in 8 s (most of it attempts over the size limit, halved
        // again and again); past the budget, patterns take the fallback regex.
        let pats = unicode_patterns(100);
        let mut automata = Automata::default();
        let limits = DfaLimits::default();
        let idx = PatternIndex::build(&pats, &mut automata, limits).unwrap();
        idx.validate(&automata, pats.len()).unwrap();
        assert!(
            automata.memory_usage() <= limits.shards,
            "{} bytes of DFAs",
            automata.memory_usage()
        );
        for value in [
            "aβc",
            "Привет мир",
            "ab",
            "日本語テキスト",
            "xyz αβγ",
            "12 34",
            "",
        ] {
            let (mut scratch, mut out) = (Vec::new(), Vec::new());
            assert!(idx.matches(value.as_bytes(), &automata, &mut scratch, &mut out));
            let mut got: Vec<usize> = out.into_iter().map(PatternId::index).collect();
            got.sort();
            got.dedup();
            assert_eq!(got, searched(&pats, value), "{value}");
        }
    }

    #[test]
    fn a_small_budget_leaves_every_pattern_matched() {
        // With no budget at all, every unanchored pattern takes the fallback.
        let pats = unicode_patterns(12);
        let mut automata = Automata::default();
        let limits = DfaLimits {
            shards: 0,
            ..DfaLimits::default()
        };
        let idx = PatternIndex::build(&pats, &mut automata, limits).unwrap();
        assert_eq!(automata.builds(), 0);
        let (mut scratch, mut out) = (Vec::new(), Vec::new());
        assert!(idx.matches("aβc".as_bytes(), &automata, &mut scratch, &mut out));
        let mut got: Vec<usize> = out.into_iter().map(PatternId::index).collect();
        got.sort();
        got.dedup();
        assert_eq!(got, searched(&pats, "aβc"));
    }

    /// The patterns that `regex_automata::meta::Regex` finds in `value`: what the index must
    /// answer whichever way it holds them.
    fn searched(pats: &[String], value: &str) -> Vec<usize> {
        pats.iter()
            .enumerate()
            .filter(|(_, p)| {
                regex_automata::meta::Regex::builder()
                    .syntax(regex_automata::util::syntax::Config::new().utf8(false))
                    .build(p)
                    .unwrap()
                    .is_match(value)
            })
            .map(|(i, _)| i)
            .collect()
    }

    #[test]
    fn path_patterns_are_indexed_by_their_directory() {
        // `/home/u/p1/**` reads `^/home/u/p1/.*$|^/home/u/p1$`: it must go to a prefix
        // bucket (found by one walk over the value), not to an unanchored shard that every
        // value runs through whatever its tool.
        let pats: Vec<String> = (0..40)
            .map(|i| crate::pattern::glob::translate(&format!("/home/u/p{i}/**")))
            .map(|g| g.map(|g| g.regex))
            .collect::<Result<_, _>>()
            .unwrap();
        let mut automata = Automata::default();
        let idx = PatternIndex::build(&pats, &mut automata, DfaLimits::default()).unwrap();
        assert!(idx.rest().is_empty() && idx.word_rest().is_empty() && idx.fallback().is_none());
        assert_eq!(idx.prefix_ends().len(), 40);
        let refs: Vec<&str> = pats.iter().map(String::as_str).collect();
        assert_eq!(matches(&refs, "/home/u/p1/a"), vec![1]);
        assert_eq!(matches(&refs, "/home/u/p1"), vec![1]);
        assert_eq!(matches(&refs, "/home/u/p12/a"), vec![12]);
        assert_eq!(matches(&refs, "/home/u/p1x"), Vec::<usize>::new());
    }

    #[test]
    fn prefixed_rest_and_fallback_patterns() {
        let pats = [
            "(?-u)^/data/a/.*$",
            "(?-u)^/data/b/.*$",
            "^/data/",
            "SELECT",
            r"\bword\b",
            "(?i)^x",
        ];
        assert_eq!(matches(&pats, "/data/a/f"), vec![0, 2]);
        assert_eq!(matches(&pats, "/data/b/SELECT"), vec![1, 2, 3]);
        assert_eq!(matches(&pats, "a word here"), vec![4]);
        assert_eq!(matches(&pats, "Xyz"), vec![5]);
        assert_eq!(matches(&pats, "/other"), Vec::<usize>::new());
        assert_eq!(matches(&pats, ""), Vec::<usize>::new());
    }

    #[test]
    fn unicode_word_boundaries_use_a_dfa_on_ascii_and_the_fallback_beyond() {
        let pats = [r"\bdrop\b", r"\b(drop|grant)\b", "x"];
        let mut automata = Automata::default();
        let sources: Vec<String> = pats.iter().map(|s| s.to_string()).collect();
        let idx = PatternIndex::build(&sources, &mut automata, DfaLimits::default()).unwrap();
        assert_eq!((idx.word_rest().len(), idx.fallback().is_none()), (1, true));
        assert_eq!(matches(&pats, "a; drop table x"), vec![0, 1, 2]);
        assert_eq!(matches(&pats, "dropped"), Vec::<usize>::new());
        // Non-ASCII bytes: the DFA quits and the fallback answers, Unicode-aware.
        assert_eq!(matches(&pats, "é drop é"), vec![0, 1]);
        assert_eq!(matches(&pats, "édrop grant"), vec![1]);
        assert_eq!(matches(&pats, "grantÀ x"), vec![2]);
    }

    #[test]
    fn many_floating_patterns_take_the_fallback_and_match_as_before() {
        // `*-{i}-*` globs and one bucket of `/data/*-{i}-*`: one DFA over them would need a
        // state per set of them seen (2^n), so past a few they go to the fallback.
        let mut pats: Vec<String> = (0..40)
            .map(|i| format!("*-{i}-*"))
            .chain((0..40).map(|i| format!("/data/*-{i}-*")))
            .chain(["*.rs".to_string(), "/data/x/**".to_string()])
            .map(|g| crate::pattern::glob::translate(&g).map(|g| g.regex))
            .collect::<Result<_, _>>()
            .unwrap();
        pats.push("(foo|bar)[0-9]+-5".into());
        let mut automata = Automata::default();
        let idx = PatternIndex::build(&pats, &mut automata, DfaLimits::default()).unwrap();
        let fallback = idx.fallback().map_or(0, |f| f.patterns.len());
        assert_eq!(fallback, 80);
        let refs: Vec<&str> = pats.iter().map(String::as_str).collect();
        for value in [
            "a-3-b-17-c",
            "/data/q-3-x-39-",
            "/data/x/-1-.rs",
            "foo12-5",
            "-",
            "",
        ] {
            assert_eq!(matches(&refs, value), searched(&pats, value), "{value}");
        }
    }

    #[test]
    fn many_unanchored_patterns_are_gated_by_their_literals_and_match_as_before() {
        // Past one shard, unanchored patterns with a literal of their own go to the gated
        // fallback; those without (`[a-z]+[0-9]{2}`) stay in a shard.
        let mut pats: Vec<String> = (0..150)
            .map(|i| format!("(foo|bar)[0-9]+-{i}"))
            .chain((0..20).map(|i| format!("(?i)tok{i}en")))
            .collect();
        pats.extend(["[a-z]+[0-9]{2}".to_string(), "^/data/".to_string()]);
        let mut automata = Automata::default();
        let idx = PatternIndex::build(&pats, &mut automata, DfaLimits::default()).unwrap();
        let fallback = idx.fallback().map_or(0, |f| f.patterns.len());
        assert_eq!(fallback, 170);
        assert_eq!(idx.rest().len(), 1);
        let refs: Vec<&str> = pats.iter().map(String::as_str).collect();
        for value in [
            "foo12-5",
            "xbar7-149y",
            "foo-5",
            "TOK7EN and foo0-12",
            "ab12",
            "/data/bar1-1",
            "",
        ] {
            assert_eq!(matches(&refs, value), searched(&pats, value), "{value}");
        }
    }

    #[test]
    fn nested_prefixes_are_all_found() {
        let pats = ["^a", "^ab", "^abc", "^b", "^aa"];
        assert_eq!(matches(&pats, "abcd"), vec![0, 1, 2]);
        assert_eq!(matches(&pats, "aab"), vec![0, 4]);
        assert_eq!(matches(&pats, "ac"), vec![0]);
        assert_eq!(matches(&pats, "b"), vec![3]);
        assert_eq!(matches(&pats, "0"), Vec::<usize>::new());
    }

    #[test]
    fn many_buckets_are_found_by_a_binary_search() {
        let pats: Vec<String> = (0..40).map(|i| format!("^x{i}")).collect();
        let mut automata = Automata::default();
        let idx = PatternIndex::build(&pats, &mut automata, DfaLimits::default()).unwrap();
        assert_eq!(
            idx.large.as_deref().map_or(0, |l| l.parents.len()),
            idx.prefix_ends().len()
        );
        idx.validate(&automata, pats.len()).unwrap();
        let (mut scratch, mut out) = (Vec::new(), Vec::new());
        assert!(idx.matches(b"x10y", &automata, &mut scratch, &mut out));
        out.sort();
        assert_eq!(out.iter().map(|p| p.index()).collect::<Vec<_>>(), [1, 10]);
        out.clear();
        assert!(idx.matches(b"y", &automata, &mut scratch, &mut out));
        assert!(out.is_empty());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// The binary search finds exactly the buckets a scan of every prefix finds, on
        /// prefixes that nest (over a three-letter alphabet) and values near them.
        #[test]
        fn the_prefix_search_finds_what_a_scan_finds(
            prefixes in proptest::collection::btree_set("[ab/]{1,6}", 17..60),
            values in proptest::collection::vec("[ab/]{0,8}", 1..20),
        ) {
            let pats: Vec<String> = prefixes.iter().map(|p| format!("^{p}[0-9]*")).collect();
            let mut automata = Automata::default();
            let idx = PatternIndex::build(&pats, &mut automata, DfaLimits::default()).unwrap();
            proptest::prop_assume!(idx.prefix_ends().len() > SCAN_BUCKETS);
            proptest::prop_assert_eq!(idx.large.as_deref().map_or(0, |l| l.parents.len()), idx.prefix_ends().len());
            for value in values.iter().chain(&prefixes) {
                let value = value.as_bytes();
                let mut out = [0usize; MAX_NESTED_PREFIXES + 1];
                let n = idx.buckets_starting(value, idx.prefix_ends(), &mut out);
                let mut searched = out[..n].to_vec();
                searched.sort_unstable();
                let scanned: Vec<usize> = (0..idx.prefix_ends().len())
                    .filter(|&b| value.starts_with(idx.prefix(b)))
                    .collect();
                proptest::prop_assert_eq!(searched, scanned, "value {:?}", value);
            }
        }
    }

    #[test]
    fn deeply_nested_prefixes_go_to_the_shards() {
        let pats: Vec<String> = (1..=12).map(|n| format!("^{}", "a".repeat(n))).collect();
        let mut automata = Automata::default();
        let idx = PatternIndex::build(&pats, &mut automata, DfaLimits::default()).unwrap();
        assert_eq!(idx.bucket_dfas().len(), MAX_NESTED_PREFIXES);
        let (mut scratch, mut out) = (Vec::new(), Vec::new());
        idx.matches(b"aaaaaaaaaaaaaaaa", &automata, &mut scratch, &mut out);
        out.sort();
        assert_eq!(
            out.iter().map(|p| p.index()).collect::<Vec<_>>(),
            (0..12).collect::<Vec<_>>()
        );
    }

    #[test]
    fn many_prefixes_share_one_suffix_dfa() {
        // globset leaves the `/` of `/**/` out of the literal prefix, so prefixes nest:
        // `/data/team4` starts `/data/team42`.
        let pats: Vec<String> = (0..500)
            .map(|i| {
                crate::pattern::glob::translate(&format!("/data/team{i}/**/*.csv"))
                    .unwrap()
                    .regex
            })
            .collect();
        let mut automata = Automata::default();
        let idx = PatternIndex::build(&pats, &mut automata, DfaLimits::default()).unwrap();
        assert_eq!(automata.dfas.len(), 1, "one shared suffix DFA");
        assert!(idx.rest().is_empty(), "no pattern falls back to the shards");
        let (mut scratch, mut out) = (Vec::new(), Vec::new());
        idx.matches(b"/data/team42/x/y.csv", &automata, &mut scratch, &mut out);
        assert_eq!(out, [PatternId::new(42).unwrap()]);
    }

    #[test]
    fn validation_refuses_unsorted_prefixes() {
        let pats: Vec<String> = ["^b", "^a"].iter().map(|s| s.to_string()).collect();
        let mut automata = Automata::default();
        let mut idx = PatternIndex::build(&pats, &mut automata, DfaLimits::default()).unwrap();
        assert!(idx.validate(&automata, 2).is_ok());
        idx.prefix_bytes.reverse();
        assert!(idx.validate(&automata, 2).is_err());
    }
}
