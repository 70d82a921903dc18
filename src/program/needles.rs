//! Substring needles matched in one pass (aho-corasick), for `contains` and `contains any`.
//! The automaton is rebuilt from the needles when a bundle is loaded.

use super::needle_table::NeedleTable;
use aho_corasick::automaton::Automaton;
use aho_corasick::automaton::StateID;
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
    /// Up to 64 needles (and a small enough automaton): the automaton as a compact table.
    #[serde(skip)]
    table: Option<NeedleTable>,
}

impl NeedleMatcher {
    /// Compiles the needles; needle `i` is reported as `i`.
    pub fn new(needles: &[String]) -> Result<NeedleMatcher, MatcherError> {
        let mut m = NeedleMatcher {
            needles: needles.to_vec(),
            ac: None,
            table: None,
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
        let ac = ac.map_err(error)?;
        self.table = match &ac {
            Needles::Dfa(a) => NeedleTable::new(a, &self.needles),
            Needles::Nfa(a) => NeedleTable::new(a, &self.needles),
        };
        self.ac = Some(ac);
        Ok(())
    }

    /// Calls `hit` with the index of every needle found in `value`, once each. `seen` is
    /// scratch space (used beyond 64 needles). Returns false when the automaton is missing
    /// or failed.
    pub fn matches(
        &self,
        value: &str,
        seen: &mut super::bitset::BitSet,
        hit: impl FnMut(usize),
    ) -> bool {
        if let Some(table) = &self.table {
            for_each_bit(table.find(value.as_bytes()), hit);
            return true;
        }
        match &self.ac {
            Some(Needles::Dfa(a)) => find(a, value.as_bytes(), self.needles.len(), seen, hit),
            Some(Needles::Nfa(a)) => find(a, value.as_bytes(), self.needles.len(), seen, hit),
            None => false,
        }
    }

    /// Number of needles.
    pub fn len(&self) -> usize {
        self.needles.len()
    }
}

/// Reports each needle found in `hay` once. Up to 64 needles, the needles found are
/// collected as bits of a word and reported after the pass; beyond, `seen` tracks them and
/// each is reported as it is found.
#[inline]
fn find<A: Automaton>(
    aut: &A,
    hay: &[u8],
    n_needles: usize,
    seen: &mut super::bitset::BitSet,
    mut hit: impl FnMut(usize),
) -> bool {
    let needles_of = |sid| (0..aut.match_len(sid)).map(move |i| aut.match_pattern(sid, i));
    if n_needles <= 64 {
        let all = u64::MAX >> (64 - n_needles.clamp(1, 64));
        let mut found = 0u64;
        let walked = walk(aut, hay, |sid| {
            for id in needles_of(sid) {
                found |= 1u64.checked_shl(id.as_u32()).unwrap_or(0);
            }
            found & all == all
        });
        for_each_bit(found, hit);
        walked
    } else {
        seen.reset(n_needles);
        let mut found = 0;
        walk(aut, hay, |sid| {
            for id in needles_of(sid) {
                if !seen.contains(id.as_usize()) {
                    seen.insert(id.as_usize());
                    hit(id.as_usize());
                    found += 1;
                }
            }
            found >= n_needles
        })
    }
}

/// Calls `f` with the position of each bit set in `bits`, lowest first.
#[inline]
fn for_each_bit(mut bits: u64, mut f: impl FnMut(usize)) {
    while bits != 0 {
        f(bits.trailing_zeros() as usize);
        bits &= bits - 1;
    }
}

/// One unanchored pass, a transition per byte, calling `on_match` with each match state until
/// it returns true. False when the automaton has no unanchored start.
#[inline]
fn walk<A: Automaton>(aut: &A, hay: &[u8], mut on_match: impl FnMut(StateID) -> bool) -> bool {
    let Ok(mut sid) = aut.start_state(Anchored::No) else {
        return false;
    };
    if aut.is_match(sid) && on_match(sid) {
        return true;
    }
    for &byte in hay {
        sid = aut.next_state(Anchored::No, sid, byte);
        if aut.is_special(sid) {
            if aut.is_dead(sid) {
                break;
            }
            if aut.is_match(sid) && on_match(sid) {
                break;
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
        let mut seen = crate::program::bitset::BitSet::new(3);
        let mut hits = Vec::new();
        assert!(n.matches("rm -rf / && rm x", &mut seen, |i| hits.push(i)));
        hits.sort();
        assert_eq!(hits, vec![0, 2]);
    }

    #[test]
    fn few_short_needles_get_a_table_and_large_sets_the_automaton() {
        let few = NeedleMatcher::new(&["rm -rf".into(), "mkfs".into(), "sudo ".into()]).unwrap();
        assert!(few.table.is_some());
        let long: Vec<String> = (0..20).map(|i| format!("{i}{}", "y".repeat(60))).collect();
        assert!(NeedleMatcher::new(&long).unwrap().table.is_none());
        let many: Vec<String> = (0..65).map(|i| format!("n{i}")).collect();
        assert!(NeedleMatcher::new(&many).unwrap().table.is_none());
    }

    proptest::proptest! {
        /// The direct walk finds the needles aho-corasick's own overlapping search finds, on
        /// both automaton kinds (few needles: DFA; many: contiguous NFA).
        #[test]
        fn walk_agrees_with_aho_corasick(
            needles in proptest::collection::vec("[ab/]{0,3}", 1..6),
            filler in 0usize..120,
            long in proptest::bool::ANY,
            hay in "[ab/ ]{0,16}",
        ) {
            // Long filler needles rule the compact table out, so that up to 64 needles the
            // automaton is walked directly too.
            let tail = if long { "y".repeat(60) } else { "zz".to_string() };
            let mut all = needles.clone();
            all.extend((0..filler).map(|i| format!("zz{i}{tail}")));
            let m = NeedleMatcher::new(&all).unwrap();
            let mut seen = crate::program::bitset::BitSet::new(all.len());
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
