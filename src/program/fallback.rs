//! The slow path of a pattern index: patterns a dense DFA cannot hold, matched by a lazy DFA.
//!
//! A [`FallbackRegex`] runs a pattern set forward only: one Thompson NFA (no captures, no
//! reverse automaton, since an index asks only *which* patterns match, never where), searched
//! by regex-automata's lazy DFA (`hybrid`) with a bounded cache per thread. When the lazy DFA
//! gives up (its cache thrashes) or quits (a Unicode word boundary meets a non-ASCII byte), the
//! same NFA is searched by the PikeVM. Both are linear in the value. Bundles keep the sources;
//! the shared regexes are built when the program is compiled or loaded, and a gated pattern's
//! own regex the first time its literal occurs in a value (see [`FallbackSet`]).

use super::dfa::DfaError;
use super::exact::ExactPattern;
use crate::pattern::size::estimated_size;
use aho_corasick::AhoCorasick;
use regex_automata::hybrid;
use regex_automata::nfa::thompson::{self, pikevm, WhichCaptures, NFA};
use regex_automata::util::pool::Pool;
use regex_automata::{Input, MatchKind, PatternSet};
use regex_syntax::hir::literal::{ExtractKind, Extractor, Literal, Seq};
use regex_syntax::hir::{Hir, HirKind};
use std::collections::HashMap;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::OnceLock;

/// The estimated automaton size (see [`estimated_size`]) of the patterns one regex takes: well
/// inside the `regex` crate's default size limit.
const CHUNK_ESTIMATE: usize = 150_000;

/// Up to this estimated automaton size (see [`estimated_size`]), a gated pattern's regex is
/// built the first time its literal occurs rather than with the program: well inside
/// [`NFA_SIZE_LIMIT`] (the estimate counts states, an NFA state takes tens of bytes), so the
/// deferred build cannot be refused. Larger ones are built with the program, where a pattern
/// over the limit is an error.
const DEFERRED_ESTIMATE: usize = CHUNK_ESTIMATE;

/// The largest NFA one regex may compile to: the `regex` crate's default size limit, so that
/// every regex it accepts is accepted here and the ones it refuses are refused.
const NFA_SIZE_LIMIT: usize = 10 << 20;

/// The lazy DFA's cache per thread, in bytes (regex-automata's default): past it the cache is
/// cleared, and after a few clears with little progress the search moves to the PikeVM.
const CACHE_CAPACITY: usize = 2 << 20;

/// One thread's search state for both engines.
#[derive(Debug)]
struct Caches {
    hybrid: hybrid::dfa::Cache,
    pikevm: pikevm::Cache,
}

/// Makes a thread's caches.
type MakeCaches = Box<dyn Fn() -> Caches + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// A pattern set searched forward by a lazy DFA, the PikeVM when that cannot finish.
pub(crate) struct FallbackRegex {
    dfa: hybrid::dfa::DFA,
    pikevm: pikevm::PikeVM,
    caches: Pool<Caches, MakeCaches>,
}

impl std::fmt::Debug for FallbackRegex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FallbackRegex")
            .field("patterns", &self.pattern_len())
            .finish()
    }
}

impl Clone for FallbackRegex {
    fn clone(&self) -> FallbackRegex {
        FallbackRegex::from_engines(self.dfa.clone(), self.pikevm.clone())
    }
}

fn error(too_large: bool, message: String) -> DfaError {
    DfaError { message, too_large }
}

impl FallbackRegex {
    /// Builds the regex over `sources` (each one pattern).
    ///
    /// # Errors
    ///
    /// A syntax error, or an NFA over the `regex` crate's default size limit
    /// (`too_large`).
    pub(crate) fn new(sources: &[String]) -> Result<FallbackRegex, DfaError> {
        // Parsed as every automaton of an index reads a pattern (`utf8(false)`), through the
        // class cache.
        let hirs = sources
            .iter()
            .enumerate()
            .map(|(i, s)| {
                super::index::parse(s)
                    .map_err(|e| error(false, format!("error parsing pattern {i}: {}", e.message)))
            })
            .collect::<Result<Vec<_>, DfaError>>()?;
        let nfa = thompson::Compiler::new()
            .configure(
                thompson::Config::new()
                    .which_captures(WhichCaptures::None)
                    .utf8(false)
                    .shrink(false)
                    .nfa_size_limit(Some(NFA_SIZE_LIMIT)),
            )
            .build_many_from_hir(&hirs)
            .map_err(|e| error(e.size_limit().is_some(), e.to_string()))?;
        let dfa = hybrid::dfa::Builder::new()
            .configure(
                hybrid::dfa::Config::new()
                    .match_kind(MatchKind::All)
                    .unicode_word_boundary(true)
                    .cache_capacity(CACHE_CAPACITY)
                    .skip_cache_capacity_check(true)
                    // Give up (and search with the PikeVM) when the cache thrashes, as the
                    // `regex` crate does.
                    .minimum_cache_clear_count(Some(3))
                    .minimum_bytes_per_state(Some(10)),
            )
            .build_from_nfa(nfa.clone())
            .map_err(|e| error(false, e.to_string()))?;
        let pikevm = pikevm::Builder::new()
            .configure(pikevm::Config::new().match_kind(MatchKind::All))
            .build_from_nfa(nfa)
            .map_err(|e| error(false, e.to_string()))?;
        Ok(FallbackRegex::from_engines(dfa, pikevm))
    }

    fn from_engines(dfa: hybrid::dfa::DFA, pikevm: pikevm::PikeVM) -> FallbackRegex {
        let (d, p) = (dfa.clone(), pikevm.clone());
        let make: MakeCaches = Box::new(move || Caches {
            hybrid: d.create_cache(),
            pikevm: p.create_cache(),
        });
        FallbackRegex {
            dfa,
            pikevm,
            caches: Pool::new(make),
        }
    }

    /// How many patterns it holds.
    pub(crate) fn pattern_len(&self) -> usize {
        self.nfa().pattern_len()
    }

    fn nfa(&self) -> &NFA {
        self.pikevm.get_nfa()
    }

    /// True when the regex's (first) pattern matches somewhere in `value`.
    pub(crate) fn is_match(&self, value: &[u8]) -> bool {
        let mut caches = self.caches.get();
        let input = Input::new(value).earliest(true);
        match self.dfa.try_search_fwd(&mut caches.hybrid, &input) {
            Ok(m) => m.is_some(),
            Err(_) => self.pikevm.is_match(&mut caches.pikevm, input),
        }
    }

    /// Adds to `set` (sized for [`FallbackRegex::pattern_len`]) every pattern matching
    /// somewhere in `value`.
    pub(crate) fn which_match(&self, value: &[u8], set: &mut PatternSet) {
        let mut caches = self.caches.get();
        let input = Input::new(value);
        if self
            .dfa
            .try_which_overlapping_matches(&mut caches.hybrid, &input, set)
            .is_err()
        {
            set.clear();
            self.pikevm
                .which_overlapping_matches(&mut caches.pikevm, &input, set);
        }
    }
}

/// The fallback regexes over `sources`: as few as fit the regex size limits, each with the
/// offset of its first pattern. Chunks are sized by their estimated automata so that (nearly)
/// every build succeeds the first time; a chunk that still fails is halved. Deterministic, so
/// a loaded bundle rebuilds the same split. Fails only for a single pattern over the limits,
/// which the `regex` crate refuses too.
fn fallback_regexes(sources: &[String]) -> Result<Vec<(FallbackRegex, usize)>, DfaError> {
    let mut out = Vec::new();
    let mut queue = Vec::new();
    let (mut lo, mut weight) = (0, 0usize);
    for (i, source) in sources.iter().enumerate() {
        let w = super::index::parse(source).map_or(CHUNK_ESTIMATE, |h| estimated_size(&h));
        if i > lo && weight.saturating_add(w) > CHUNK_ESTIMATE {
            queue.push((lo, i));
            (lo, weight) = (i, 0);
        }
        weight = weight.saturating_add(w);
    }
    if lo < sources.len() {
        queue.push((lo, sources.len()));
    }
    queue.reverse();
    while let Some((lo, hi)) = queue.pop() {
        match FallbackRegex::new(&sources[lo..hi]) {
            Ok(re) => out.push((re, lo)),
            Err(e) if e.too_large && hi - lo > 1 => {
                let mid = lo + (hi - lo) / 2;
                queue.push((mid, hi));
                queue.push((lo, mid));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// The most literals one pattern's prefilter may hold (case variants count).
const MAX_REQUIRED_LITERALS: usize = 64;

/// Sets of literals such that every match of `hir` contains one literal of each set. Each
/// suffix of the pattern's top-level concatenation is asked for the literals its matches start
/// with (regex-syntax's prefix extractor); a set is kept when it is finite, holds no empty
/// literal and at most [`MAX_REQUIRED_LITERALS`] of them. `^select\s+[\w ]{1,40}\s+from\s+t1_`
/// gives `select`, `from` and `t1_` (among shorter ones); `\b(drop|grant)\b` gives
/// {`drop`, `grant`}.
pub(super) fn required_literal_sets(hir: &Hir) -> Vec<Vec<Vec<u8>>> {
    let mut hir = hir;
    while let HirKind::Capture(c) = hir.kind() {
        hir = &c.sub;
    }
    let subs: &[Hir] = match hir.kind() {
        HirKind::Concat(subs) => subs,
        _ => std::slice::from_ref(hir),
    };
    let extractor = extractor();
    // Each element's literals once; each suffix crosses them as the extractor does a
    // concatenation's ([`suffix_prefixes`]) instead of extracting a copy of the suffix, which
    // cost a pattern of a dozen elements with Unicode classes 0.7 M instructions.
    let parts: Vec<Seq> = subs.iter().map(|h| extractor.extract(h)).collect();
    let mut sets = Vec::new();
    for i in 0..subs.len() {
        let seq = suffix_prefixes(parts.get(i..).unwrap_or_default());
        let Some(lits) = seq.literals() else {
            continue;
        };
        if lits.is_empty()
            || lits.len() > MAX_REQUIRED_LITERALS
            || lits.iter().any(|l| l.as_bytes().is_empty())
        {
            continue;
        }
        let mut set: Vec<Vec<u8>> = lits.iter().map(|l| l.as_bytes().to_vec()).collect();
        set.sort_unstable();
        set.dedup();
        if !sets.contains(&set) {
            sets.push(set);
        }
    }
    sets
}

/// The extractor's limit on the literals of a sequence.
const EXTRACT_LIMIT_TOTAL: usize = 250;
/// The extractor's limit on the length of one literal.
const EXTRACT_LIMIT_LITERAL_LEN: usize = 100;

/// The prefix extractor [`required_literal_sets`] uses (regex-syntax's defaults, spelled out
/// because [`suffix_prefixes`] repeats its crossing).
fn extractor() -> Extractor {
    let mut extractor = Extractor::new();
    extractor
        .kind(ExtractKind::Prefix)
        .limit_total(EXTRACT_LIMIT_TOTAL)
        .limit_literal_len(EXTRACT_LIMIT_LITERAL_LEN);
    extractor
}

/// The prefix literals of the concatenation of elements whose own prefix literals are
/// `parts`: what [`extractor`] gives for that concatenation (one element: its own; more: the
/// crossing of each in turn, under the same limits, until the sequence is inexact).
fn suffix_prefixes(parts: &[Seq]) -> Seq {
    if let [only] = parts {
        return only.clone();
    }
    let mut seq = Seq::singleton(Literal::exact(Vec::new()));
    for part in parts {
        if seq.is_inexact() {
            break;
        }
        let mut next = part.clone();
        if seq
            .max_cross_len(&next)
            .is_some_and(|len| len > EXTRACT_LIMIT_TOTAL)
        {
            next.make_infinite();
        }
        seq.cross_forward(&mut next);
        seq.keep_first_bytes(EXTRACT_LIMIT_LITERAL_LEN);
    }
    seq
}

/// For each literal of the patterns' candidate sets (from [`required_literal_sets`]), how many
/// patterns hold it in some set.
pub(super) fn literal_holders(candidates: &[Vec<Vec<Vec<u8>>>]) -> HashMap<&[u8], usize> {
    let mut holders: HashMap<&[u8], usize> = HashMap::new();
    for sets in candidates {
        let mut mine: Vec<&[u8]> = sets.iter().flatten().map(Vec::as_slice).collect();
        mine.sort_unstable();
        mine.dedup();
        for lit in mine {
            *holders.entry(lit).or_default() += 1;
        }
    }
    holders
}

/// For each pattern (its candidate sets from [`required_literal_sets`]), the set that gates
/// it best: the one whose literals the fewest other patterns of the index also have as
/// candidates (`t12_` rather than `select` when every pattern starts with `select`), then
/// the one with the longest shortest literal.
fn choose_gates(candidates: Vec<Vec<Vec<Vec<u8>>>>) -> Vec<Option<Vec<Vec<u8>>>> {
    let shared = literal_holders(&candidates);
    let score = |set: &Vec<Vec<u8>>| {
        let commonest = set
            .iter()
            .map(|l| shared.get(l.as_slice()).copied().unwrap_or(0))
            .max()
            .unwrap_or(0);
        let shortest = set.iter().map(Vec::len).min().unwrap_or(0);
        (commonest, std::cmp::Reverse(shortest))
    };
    let chosen: Vec<Option<usize>> = candidates
        .iter()
        .map(|sets| (0..sets.len()).min_by_key(|&i| score(&sets[i])))
        .collect();
    candidates
        .into_iter()
        .zip(chosen)
        .map(|(mut sets, i)| i.map(|i| sets.swap_remove(i)))
        .collect()
}

/// Position `i` among a set's patterns as the `u32` the set reports; an error past `u32`.
fn pattern_number(i: usize) -> Result<u32, DfaError> {
    u32::try_from(i).map_err(|_| error(true, "too many fallback patterns".to_string()))
}

/// A gated pattern's own regex, built from its source the first time its literal occurs in a
/// value: a policy of 1,000 rules like `re"(?i)^select\s+[\w, ]{1,40}\s+from\s+t12_\w+"`
/// loads without compiling 1,000 Unicode-class NFAs (16 ms and nearly 1 MiB each), and only
/// the patterns a host's values reach are ever built. Patterns too large for that to be
/// certain to succeed ([`DEFERRED_ESTIMATE`]) are built with the set.
#[derive(Clone)]
struct GatedRegex {
    source: Box<str>,
    regex: OnceLock<Option<FallbackRegex>>,
}

impl GatedRegex {
    /// Defers the build, or builds now when the pattern is estimated large (so that one over
    /// the size limit is refused with the program).
    fn new(source: &str, estimate: usize) -> Result<GatedRegex, DfaError> {
        let regex = OnceLock::new();
        if estimate > DEFERRED_ESTIMATE {
            let built = FallbackRegex::new(&[source.to_string()])?;
            let _ = regex.set(Some(built));
        }
        Ok(GatedRegex {
            source: source.into(),
            regex,
        })
    }

    /// Whether the pattern matches somewhere in `value`; `None` when its regex cannot be
    /// built (never for a pattern the set accepted: see [`DEFERRED_ESTIMATE`]).
    fn is_match(&self, value: &[u8]) -> Option<bool> {
        let regex = self
            .regex
            .get_or_init(|| FallbackRegex::new(&[self.source.to_string()]).ok());
        regex.as_ref().map(|re| re.is_match(value))
    }

    /// Whether the regex is built.
    #[cfg(test)]
    fn is_built(&self) -> bool {
        self.regex.get().is_some_and(Option::is_some)
    }
}

/// Every fallback pattern of one index, searched so that a value costs what the patterns that
/// can match it cost. A pattern with required literals ([`required_literal_sets`]) gets a
/// regex of its own, searched only when one of its literals occurs in the value (one
/// Aho-Corasick pass finds them all) and built the first time that happens ([`GatedRegex`]);
/// the others share as few regexes as fit the size limits and are searched on every value.
pub(crate) struct FallbackSet {
    /// Regexes over the ungated patterns, each with the offset of its first pattern in
    /// `ungated`.
    shared: Vec<(FallbackRegex, usize)>,
    /// The ungated patterns (indices into the sources).
    ungated: Vec<u32>,
    /// One regex per gated pattern, with its index into the sources.
    gated: Vec<(GatedRegex, u32)>,
    /// Patterns that are literals between assertions ([`ExactPattern`]), matched by the
    /// literal search alone, with their index into the sources.
    exact: Vec<(ExactPattern, u32)>,
    /// The distinct literals of the gated and exact patterns; literal `i` belongs to
    /// `owners[i]`.
    literals: Option<AhoCorasick>,
    owners: Vec<Box<[Owner]>>,
}

/// A pattern a literal of [`FallbackSet`] belongs to.
#[derive(Debug, Clone, Copy)]
enum Owner {
    /// Gated pattern `i`: its regex runs when the literal occurs.
    Gated(u32),
    /// Exact pattern `i`: it matches where the literal occurs and its assertions hold.
    Exact(u32),
}

impl std::fmt::Debug for FallbackSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FallbackSet")
            .field("ungated", &self.ungated.len())
            .field("gated", &self.gated.len())
            .field("exact", &self.exact.len())
            .finish()
    }
}

impl Clone for FallbackSet {
    fn clone(&self) -> FallbackSet {
        FallbackSet {
            shared: self.shared.clone(),
            ungated: self.ungated.clone(),
            gated: self.gated.clone(),
            exact: self.exact.clone(),
            literals: self.literals.clone(),
            owners: self.owners.clone(),
        }
    }
}

impl FallbackSet {
    /// Builds the set over `sources` (pattern `i` is reported as `i`).
    ///
    /// # Errors
    ///
    /// A pattern that does not parse, or one over the `regex` crate's size limits.
    pub(crate) fn new(sources: &[String]) -> Result<FallbackSet, DfaError> {
        let mut ungated = Vec::new();
        let mut gated = Vec::new();
        let mut exact = Vec::new();
        let mut owned: HashMap<Vec<u8>, Vec<Owner>> = HashMap::new();
        let mut estimates = Vec::with_capacity(sources.len());
        let mut exacts = Vec::with_capacity(sources.len());
        let candidates = sources
            .iter()
            .map(|source| {
                let hir = super::index::parse(source)?;
                estimates.push(estimated_size(&hir));
                let pattern = ExactPattern::of(&hir);
                let sets = match pattern {
                    // Exact patterns need no gate; they do not compete for one either.
                    Some(_) => Vec::new(),
                    None => required_literal_sets(&hir),
                };
                exacts.push(pattern);
                Ok(sets)
            })
            .collect::<Result<Vec<_>, DfaError>>()?;
        let gates = choose_gates(candidates);
        for (i, ((source, gate), pattern)) in sources.iter().zip(gates).zip(exacts).enumerate() {
            let estimate = estimates.get(i).copied().unwrap_or(usize::MAX);
            let i = pattern_number(i)?;
            match (pattern, gate) {
                (Some(pattern), _) => {
                    let e = Owner::Exact(pattern_number(exact.len())?);
                    for lit in &pattern.literals {
                        owned.entry(lit.clone()).or_default().push(e);
                    }
                    exact.push((pattern, i));
                }
                (None, Some(lits)) => {
                    let re = GatedRegex::new(source, estimate)?;
                    let g = Owner::Gated(pattern_number(gated.len())?);
                    for lit in lits {
                        owned.entry(lit).or_default().push(g);
                    }
                    gated.push((re, i));
                }
                (None, None) => ungated.push(i),
            }
        }
        // Sorted, so that a set is built the same way every time.
        let mut owned: Vec<(Vec<u8>, Vec<Owner>)> = owned.into_iter().collect();
        owned.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let (patterns, owners): (Vec<Vec<u8>>, Vec<Box<[Owner]>>) = owned
            .into_iter()
            .map(|(lit, owners)| (lit, owners.into_boxed_slice()))
            .unzip();
        let ungated_sources: Vec<String> = ungated
            .iter()
            .map(|&i| sources[i as usize].clone())
            .collect();
        let literals = if patterns.is_empty() {
            None
        } else {
            Some(
                AhoCorasick::builder()
                    .match_kind(aho_corasick::MatchKind::Standard)
                    .build(&patterns)
                    .map_err(|e| error(true, e.to_string()))?,
            )
        };
        Ok(FallbackSet {
            shared: fallback_regexes(&ungated_sources)?,
            ungated,
            gated,
            exact,
            literals,
            owners,
        })
    }

    /// Calls `found` with every pattern matching somewhere in `value` (a pattern may be
    /// reported more than once). `scratch` is working space. False when a gated pattern's
    /// regex could not be built, so that the caller fails closed (never for a set [`new`]
    /// accepted: see [`DEFERRED_ESTIMATE`]).
    ///
    /// [`new`]: FallbackSet::new
    pub(crate) fn which_match(
        &self,
        value: &[u8],
        scratch: &mut Vec<u32>,
        mut found: impl FnMut(u32),
    ) -> bool {
        for (re, offset) in &self.shared {
            let mut set = PatternSet::new(re.pattern_len());
            re.which_match(value, &mut set);
            for p in set.iter() {
                if let Some(&i) = self.ungated.get(offset + p.as_usize()) {
                    found(i);
                }
            }
        }
        let Some(ac) = &self.literals else {
            return true;
        };
        scratch.clear();
        for m in ac.find_overlapping_iter(value) {
            let Some(owners) = self.owners.get(m.pattern().as_usize()) else {
                continue;
            };
            for &owner in owners.iter() {
                match owner {
                    Owner::Gated(g) => scratch.push(g),
                    Owner::Exact(e) => {
                        if let Some((pattern, i)) = self.exact.get(e as usize) {
                            if pattern.holds_at(value, m.start(), m.end()) {
                                found(*i);
                            }
                        }
                    }
                }
            }
        }
        scratch.sort_unstable();
        scratch.dedup();
        for &g in scratch.iter() {
            if let Some((re, i)) = self.gated.get(g as usize) {
                match re.is_match(value) {
                    Some(true) => found(*i),
                    Some(false) => {}
                    None => return false,
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]
        /// Crossing each element's literals gives what the extractor gives for each suffix
        /// of the concatenation.
        #[test]
        fn suffix_prefixes_equal_the_extractors(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    r"(?i)select", "from", r"\s+", r"[\w, ]{1,40}", "t1_", r"\w+", "(a|bc)",
                    "[ab]", "[a-c]{2}", "x*", "(?i:k)", "^", "$", r"\b", "(ab|cd|ef){3}",
                    "[0-9]", "(?:yz)?", "é",
                ]),
                1..12,
            )
        ) {
            let p: String = parts.concat();
            let hir = super::super::index::parse(&p).unwrap();
            let subs: Vec<Hir> = match hir.kind() {
                HirKind::Concat(subs) => subs.clone(),
                _ => vec![hir.clone()],
            };
            let ex = extractor();
            let seqs: Vec<Seq> = subs.iter().map(|h| ex.extract(h)).collect();
            for i in 0..subs.len() {
                let want = ex.extract(&Hir::concat(subs[i..].to_vec()));
                proptest::prop_assert_eq!(suffix_prefixes(&seqs[i..]), want, "{} from {}", p, i);
            }
        }
    }

    fn which(patterns: &[&str], value: &str) -> Vec<usize> {
        let sources: Vec<String> = patterns.iter().map(|s| s.to_string()).collect();
        let re = FallbackRegex::new(&sources).unwrap();
        let mut set = PatternSet::new(re.pattern_len());
        re.which_match(value.as_bytes(), &mut set);
        set.iter().map(|p| p.as_usize()).collect()
    }

    #[test]
    fn reports_every_pattern_that_matches_anywhere() {
        let pats = [r"\w{1,100}$", r"(?i)^select\s", r"\b(drop|delete)\b", "^x"];
        assert_eq!(which(&pats, "SELECT a; drop t"), vec![0, 1, 2]);
        assert_eq!(which(&pats, "x"), vec![0, 3]);
        assert_eq!(which(&pats, ""), Vec::<usize>::new());
    }

    #[test]
    fn unicode_word_boundaries_take_the_pikevm_on_non_ascii() {
        // The lazy DFA quits on a non-ASCII byte near `\b`; the PikeVM answers.
        assert_eq!(which(&[r"\bdrop\b"], "é drop é"), vec![0]);
        assert_eq!(which(&[r"\bdrop\b"], "édrop"), Vec::<usize>::new());
    }

    fn gates(patterns: &[&str]) -> Vec<Option<Vec<String>>> {
        let candidates = patterns
            .iter()
            .map(|p| required_literal_sets(&super::super::index::parse(p).unwrap()))
            .collect();
        choose_gates(candidates)
            .into_iter()
            .map(|g| {
                g.map(|v| {
                    v.into_iter()
                        .map(|l| String::from_utf8(l).unwrap())
                        .collect()
                })
            })
            .collect()
    }

    #[test]
    fn each_pattern_is_gated_by_its_most_distinctive_literals() {
        let strs = |v: &[&str]| Some(v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            gates(&[r"\b(drop|grant7)\b"]),
            vec![strs(&["drop", "grant7"])]
        );
        // Alone, the longest literal; beside patterns sharing it, the distinctive one.
        let select = |t: &str| format!(r"^select\s+[\w, ]{{1,40}}\s+from\s+{t}_\w+");
        assert_eq!(gates(&[&select("t12")]), vec![strs(&["select"])]);
        assert_eq!(
            gates(&[&select("t12"), &select("t7")]),
            vec![strs(&["t12_"]), strs(&["t7_"])]
        );
        assert_eq!(gates(&[r"\w{1,100}$"]), vec![None]);
        assert_eq!(gates(&[r"(a|\w+)x"]), vec![strs(&["x"])]);
        // Case variants count towards the limit of 64: `lected` has 64, `elected` 128.
        let g = gates(&[r"(?i)\w+selected"]).remove(0).unwrap();
        assert_eq!((g.len(), g[0].len()), (64, 6));
    }

    #[test]
    fn gated_and_shared_patterns_report_like_the_regex_crate() {
        let pats = [
            r"\w{1,100}$",
            r"(?i)^select\s+[\w, ]{1,40}\s+from\s+t1_\w+",
            r"(?i)^select\s+[\w, ]{1,40}\s+from\s+t2_\w+",
            r"\b(drop|delete)\b",
            r"\p{L}{2,30}\d",
        ];
        let sources: Vec<String> = pats.iter().map(|s| s.to_string()).collect();
        let set = FallbackSet::new(&sources).unwrap();
        // The selects are gated, the literal `\b(drop|delete)\b` needs no regex.
        assert_eq!(
            (set.gated.len(), set.exact.len(), set.ungated.len()),
            (2, 1, 2)
        );
        for value in [
            "SELECT a, b FROM t2_x",
            "select a from t1_users; drop table t",
            "dropped",
            "héllo7",
            "",
            "é drop é",
        ] {
            let mut got = Vec::new();
            set.which_match(value.as_bytes(), &mut Vec::new(), |i| got.push(i as usize));
            got.sort_unstable();
            got.dedup();
            let want: Vec<usize> = pats
                .iter()
                .enumerate()
                .filter(|(_, p)| {
                    regex::bytes::Regex::new(p)
                        .unwrap()
                        .is_match(value.as_bytes())
                })
                .map(|(i, _)| i)
                .collect();
            assert_eq!(got, want, "{value:?}");
        }
    }

    #[test]
    fn a_gated_pattern_is_built_when_its_literal_first_occurs() {
        let select = |t: &str| format!(r"(?i)^select\s+[\w, ]{{1,40}}\s+from\s+{t}_\w+");
        // Estimated past the deferred budget, so built with the set.
        let large = r"\w{60}needle".to_string();
        let sources = vec![select("t1"), select("t2"), large];
        let set = FallbackSet::new(&sources).unwrap();
        let built = |set: &FallbackSet| -> Vec<bool> {
            set.gated.iter().map(|(re, _)| re.is_built()).collect()
        };
        assert_eq!(built(&set), [false, false, true]);
        let mut got = Vec::new();
        assert!(set.which_match(b"SELECT a FROM t2_x", &mut Vec::new(), |i| got.push(i)));
        assert_eq!((got, built(&set)), (vec![1], vec![false, true, true]));
        // A value holding the literal but not matching builds the regex all the same.
        let mut got = Vec::new();
        assert!(set.which_match(b"t1_ alone", &mut Vec::new(), |i| got.push(i)));
        assert_eq!((got, built(&set)), (vec![], vec![true, true, true]));
        // A clone keeps what was built and searches alike.
        let copy = set.clone();
        let mut got = Vec::new();
        assert!(copy.which_match(b"select a from t1_y", &mut Vec::new(), |i| got.push(i)));
        assert_eq!(got, [0]);
    }

    /// The deferred build cannot fail: the largest repetitions of Unicode classes estimated
    /// within the budget still fit the NFA size limit.
    #[test]
    fn every_pattern_estimated_within_the_deferred_budget_builds() {
        for class in [r"\w", r"\p{L}", r"[^/]", r"(?i)\w", r"[\w\p{N}\s]", r"\D"] {
            let estimate = |k: usize| {
                estimated_size(&super::super::index::parse(&format!("{class}{{{k}}}x")).unwrap())
            };
            let k = (1..10_000)
                .take_while(|&k| estimate(k) <= DEFERRED_ESTIMATE)
                .last()
                .unwrap();
            let source = format!("{class}{{{k}}}x");
            assert!(
                FallbackRegex::new(std::slice::from_ref(&source)).is_ok(),
                "{source}"
            );
        }
    }

    #[test]
    fn a_gated_pattern_over_the_size_limit_is_refused_with_the_set() {
        let err = FallbackSet::new(&[r"\w{1000}needle".to_string()]).unwrap_err();
        assert!(err.too_large, "{}", err.message);
    }

    #[test]
    fn a_clone_searches_like_the_original() {
        let re = FallbackRegex::new(&[r"\p{L}{1,30}".to_string()]).unwrap();
        let copy = re.clone();
        let mut set = PatternSet::new(1);
        copy.which_match("héllo".as_bytes(), &mut set);
        assert!(set.contains(regex_automata::PatternID::ZERO));
    }
}
