//! The slow path of a pattern index: patterns a dense DFA cannot hold, matched by a lazy DFA.
//!
//! A [`FallbackRegex`] runs a pattern set forward only: one Thompson NFA (no captures, no
//! reverse automaton, since an index asks only *which* patterns match, never where), searched
//! by regex-automata's lazy DFA (`hybrid`) with a bounded cache per thread. When the lazy DFA
//! gives up (its cache thrashes) or quits (a Unicode word boundary meets a non-ASCII byte), the
//! same NFA is searched by the PikeVM. Both are linear in the value. Bundles keep the sources;
//! the regexes are built when the program is compiled or loaded.

use super::dfa::DfaError;
use crate::pattern::size::estimated_size;
use regex_automata::hybrid;
use regex_automata::nfa::thompson::{self, pikevm, WhichCaptures, NFA};
use regex_automata::util::pool::Pool;
use regex_automata::{util::syntax, Input, MatchKind, PatternSet};
use std::panic::{RefUnwindSafe, UnwindSafe};

/// The estimated automaton size (see [`estimated_size`]) of the patterns one regex takes: well
/// inside the `regex` crate's default size limit.
const CHUNK_ESTIMATE: usize = 150_000;

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
        let nfa = thompson::Compiler::new()
            .syntax(
                syntax::Config::new()
                    .utf8(false)
                    .nest_limit(crate::pattern::REGEX_NEST_LIMIT),
            )
            .configure(
                thompson::Config::new()
                    .which_captures(WhichCaptures::None)
                    .utf8(false)
                    .shrink(false),
            )
            .build_many(sources)
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
pub(crate) fn fallback_regexes(
    sources: &[String],
) -> Result<Vec<(FallbackRegex, usize)>, DfaError> {
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_clone_searches_like_the_original() {
        let re = FallbackRegex::new(&[r"\p{L}{1,30}".to_string()]).unwrap();
        let copy = re.clone();
        let mut set = PatternSet::new(1);
        copy.which_match("héllo".as_bytes(), &mut set);
        assert!(set.contains(regex_automata::PatternID::ZERO));
    }
}
