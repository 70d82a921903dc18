//! Substring needles matched in one pass (aho-corasick), for `contains` and `contains any`.
//! The automaton is rebuilt from the needles when a bundle is loaded.

use aho_corasick::automaton::Automaton;
use aho_corasick::{dfa, nfa::contiguous, Anchored, MatchKind};
use serde::{Deserialize, Serialize};

/// Up to this many needles, the automaton is a DFA (one table lookup per byte); above, a
/// contiguous NFA (smaller, a little slower). The same split aho-corasick makes by default.
const DFA_NEEDLES: usize = 100;

/// The aho-corasick automaton, walked directly one byte at a time.
#[derive(Debug, Clone)]
enum Needles {
    Dfa(dfa::DFA),
    Nfa(contiguous::NFA),
}

/// Why a needle matcher could not be built.
#[derive(Debug, Clone)]
pub struct MatcherError {
    /// What went wrong.
    pub message: String,
    /// True when a size limit was exceeded.
    pub too_large: bool,
}

/// Substring needles matched in one pass.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NeedleMatcher {
    needles: Vec<String>,
    #[serde(skip)]
    ac: Option<Needles>,
}

impl NeedleMatcher {
    /// Compiles the needles; needle `i` is reported as `i`.
    pub fn new(needles: &[String]) -> Result<NeedleMatcher, MatcherError> {
        let mut m = NeedleMatcher {
            needles: needles.to_vec(),
            ac: None,
        };
        m.rebuild()?;
        Ok(m)
    }

    /// Builds the automaton from the needles (after loading a bundle).
    pub fn rebuild(&mut self) -> Result<(), MatcherError> {
        let error = |e: aho_corasick::BuildError| MatcherError {
            message: e.to_string(),
            too_large: true,
        };
        let ac = if self.needles.len() <= DFA_NEEDLES {
            dfa::Builder::new()
                .match_kind(MatchKind::Standard)
                .start_kind(aho_corasick::StartKind::Unanchored)
                .prefilter(false)
                .build(&self.needles)
                .map(Needles::Dfa)
        } else {
            contiguous::Builder::new()
                .match_kind(MatchKind::Standard)
                .prefilter(false)
                .build(&self.needles)
                .map(Needles::Nfa)
        };
        self.ac = Some(ac.map_err(error)?);
        Ok(())
    }

    /// Calls `hit` with the index of every needle found in `value`, once each. Returns false
    /// when the automaton is missing or failed.
    pub fn matches(
        &self,
        value: &str,
        seen: &mut super::bitset::BitSet,
        hit: impl FnMut(usize),
    ) -> bool {
        seen.clear();
        match &self.ac {
            Some(Needles::Dfa(a)) => walk(a, value.as_bytes(), self.needles.len(), seen, hit),
            Some(Needles::Nfa(a)) => walk(a, value.as_bytes(), self.needles.len(), seen, hit),
            None => false,
        }
    }

    /// Number of needles.
    pub fn len(&self) -> usize {
        self.needles.len()
    }

    /// True when there are no needles.
    pub fn is_empty(&self) -> bool {
        self.needles.is_empty()
    }
}

/// One unanchored pass: a transition per byte, reporting each needle the first time a match
/// state names it, and stopping once every needle was seen.
fn walk<A: Automaton>(
    aut: &A,
    hay: &[u8],
    n_needles: usize,
    seen: &mut super::bitset::BitSet,
    mut hit: impl FnMut(usize),
) -> bool {
    let Ok(mut sid) = aut.start_state(Anchored::No) else {
        return false;
    };
    let mut found = 0;
    let mut report = |sid, found: &mut usize| {
        for i in 0..aut.match_len(sid) {
            let id = aut.match_pattern(sid, i).as_usize();
            if !seen.contains(id) {
                seen.insert(id);
                hit(id);
                *found += 1;
            }
        }
    };
    if aut.is_match(sid) {
        report(sid, &mut found);
    }
    for &byte in hay {
        if found >= n_needles {
            break;
        }
        sid = aut.next_state(Anchored::No, sid, byte);
        if aut.is_special(sid) {
            if aut.is_dead(sid) {
                break;
            }
            if aut.is_match(sid) {
                report(sid, &mut found);
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needles_are_found_once_each() {
        let n = NeedleMatcher::new(&["rm -rf".into(), "sudo ".into(), "rm".into()]).unwrap();
        let mut seen = crate::compile::bitset::BitSet::new(3);
        let mut hits = Vec::new();
        assert!(n.matches("rm -rf / && rm x", &mut seen, |i| hits.push(i)));
        hits.sort();
        assert_eq!(hits, vec![0, 2]);
    }

    proptest::proptest! {
        /// The direct walk finds the needles aho-corasick's own overlapping search finds, on
        /// both automaton kinds (few needles: DFA; many: contiguous NFA).
        #[test]
        fn walk_agrees_with_aho_corasick(
            needles in proptest::collection::vec("[ab/]{0,3}", 1..6),
            filler in 0usize..120,
            hay in "[ab/ ]{0,16}",
        ) {
            let mut all = needles.clone();
            all.extend((0..filler).map(|i| format!("zz{i}zz")));
            let m = NeedleMatcher::new(&all).unwrap();
            let mut seen = crate::compile::bitset::BitSet::new(all.len());
            let mut walked = Vec::new();
            proptest::prop_assert!(m.matches(&hay, &mut seen, |i| walked.push(i)));
            walked.sort();
            let ac = aho_corasick::AhoCorasick::new(&all).unwrap();
            let mut expected: Vec<usize> =
                ac.find_overlapping_iter(&hay).map(|m| m.pattern().as_usize()).collect();
            expected.sort();
            expected.dedup();
            proptest::prop_assert_eq!(walked, expected);
        }
    }
}
