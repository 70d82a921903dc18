//! Multi-pattern string matchers: one automaton pass over a value reports every pattern that
//! matches it.
//!
//! [`PatternSetMatcher`] compiles many regexes (translated globs, escaped literals, user
//! regexes) into one regex-automata meta regex run with `MatchKind::All`; [`NeedleMatcher`]
//! compiles `contains` needles into one aho-corasick automaton. Neither backtracks, so a pass
//! is linear in the value's length whatever the number of patterns.

use regex_automata::{meta, util::syntax, Input, MatchKind, PatternSet};

/// Size limits on one compiled argument matcher.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest Thompson NFA (bytes) for the patterns on one argument.
    pub nfa_size: usize,
    /// Lazy DFA cache per thread (bytes).
    pub dfa_cache: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            nfa_size: 64 << 20,
            dfa_cache: 8 << 20,
        }
    }
}

/// Why a matcher could not be built.
#[derive(Debug, Clone)]
pub struct MatcherError {
    /// What went wrong.
    pub message: String,
    /// True when a size limit was exceeded.
    pub too_large: bool,
}

/// Many regexes matched in one pass.
#[derive(Debug, Clone)]
pub struct PatternSetMatcher {
    regex: meta::Regex,
}

impl PatternSetMatcher {
    /// Compiles the patterns together; pattern `i` is reported as `i`.
    pub fn new(patterns: &[String], limits: Limits) -> Result<PatternSetMatcher, MatcherError> {
        let regex = meta::Builder::new()
            .configure(
                meta::Config::new()
                    .match_kind(MatchKind::All)
                    // Only "which patterns match" is asked: no capture slots, whose per-thread
                    // tables would otherwise grow with the number of patterns.
                    .which_captures(regex_automata::nfa::thompson::WhichCaptures::None)
                    .nfa_size_limit(Some(limits.nfa_size))
                    .onepass_size_limit(Some(limits.nfa_size))
                    .dfa_size_limit(Some(limits.nfa_size))
                    .hybrid_cache_capacity(limits.dfa_cache),
            )
            .syntax(
                syntax::Config::new()
                    .utf8(false)
                    .nest_limit(crate::resolve::REGEX_NEST_LIMIT),
            )
            .build_many(patterns)
            .map_err(|e| MatcherError {
                too_large: e.size_limit().is_some(),
                message: e.to_string(),
            })?;
        Ok(PatternSetMatcher { regex })
    }

    /// Number of patterns.
    pub fn len(&self) -> usize {
        self.regex.pattern_len()
    }

    /// True when there are no patterns.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A reusable result set sized for this matcher.
    pub fn new_set(&self) -> PatternSet {
        PatternSet::new(self.len())
    }

    /// Fills `set` with every pattern that matches `value` (one pass).
    pub fn matches(&self, value: &str, set: &mut PatternSet) {
        set.clear();
        self.regex
            .which_overlapping_matches(&Input::new(value), set);
    }
}

/// Substring needles matched in one pass.
#[derive(Debug, Clone)]
pub struct NeedleMatcher {
    ac: aho_corasick::AhoCorasick,
    len: usize,
}

impl NeedleMatcher {
    /// Compiles the needles; needle `i` is reported as `i`.
    pub fn new(needles: &[String]) -> Result<NeedleMatcher, MatcherError> {
        let ac = aho_corasick::AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::Standard)
            .build(needles)
            .map_err(|e| MatcherError {
                message: e.to_string(),
                too_large: true,
            })?;
        Ok(NeedleMatcher {
            ac,
            len: needles.len(),
        })
    }

    /// Calls `hit` with the index of every needle found in `value` (a needle found several
    /// times may be reported several times).
    pub fn matches(
        &self,
        value: &str,
        seen: &mut super::bitset::BitSet,
        mut hit: impl FnMut(usize),
    ) {
        seen.clear();
        let mut found = 0;
        for m in self.ac.find_overlapping_iter(value) {
            let id = m.pattern().as_usize();
            if !seen.contains(id) {
                seen.insert(id);
                hit(id);
                found += 1;
                if found == self.len {
                    break;
                }
            }
        }
    }

    /// Number of needles.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are no needles.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_every_matching_pattern() {
        let pats: Vec<String> = ["(?-u)^/a/.*$", "^x$", "SELECT", "(?-u)^/a/b$"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let m = PatternSetMatcher::new(&pats, Limits::default()).unwrap();
        let mut set = m.new_set();
        m.matches("/a/b", &mut set);
        assert_eq!(
            set.iter().map(|p| p.as_usize()).collect::<Vec<_>>(),
            vec![0, 3]
        );
        m.matches("please SELECT", &mut set);
        assert_eq!(
            set.iter().map(|p| p.as_usize()).collect::<Vec<_>>(),
            vec![2]
        );
    }

    #[test]
    fn needles_are_found_once_each() {
        let n = NeedleMatcher::new(&["rm -rf".into(), "sudo ".into(), "rm".into()]).unwrap();
        let mut seen = crate::compile::bitset::BitSet::new(3);
        let mut hits = Vec::new();
        n.matches("rm -rf / && rm x", &mut seen, |i| hits.push(i));
        hits.sort();
        assert_eq!(hits, vec![0, 2]);
    }

    #[test]
    fn size_limits_are_errors() {
        let pats: Vec<String> = (0..200).map(|i| format!("a{{1,100}}b{i}")).collect();
        let err = PatternSetMatcher::new(
            &pats,
            Limits {
                nfa_size: 10_000,
                dfa_cache: 1 << 20,
            },
        )
        .unwrap_err();
        assert!(err.too_large, "{}", err.message);
    }
}
