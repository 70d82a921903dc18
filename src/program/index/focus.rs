//! Matching only some of an index's patterns: for a call whose tool has few rules, the value
//! is run through the automata that hold those rules' patterns, never through the rest of
//! the index (the other tools' patterns are not walked, nor fetched into cache).

use super::{Automata, PatternIndex};
use crate::program::group::FOCUS_MIN_PATTERNS;
use crate::program::ids::{DfaId, PatternId};

/// Where a pattern is matched within its index (derived from the stored tables at build and
/// at load, not stored).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Location {
    /// In the suffix DFA of a prefix bucket.
    Bucket(u32),
    /// In an unanchored DFA shard.
    Shard(u32),
    /// In a word-boundary shard (whose fallback answers when it quits).
    WordShard(u32),
    /// In the fallback regexes.
    Fallback,
    /// Not found in any table: a focused match runs the whole index.
    Unknown,
}

impl PatternIndex {
    /// Counts the patterns and, for an index large enough to be matched in part, returns
    /// where each one is matched (empty for a smaller one).
    pub(super) fn derive_locations(&mut self) -> Box<[Location]> {
        let mut locations = Vec::new();
        let mut place = |p: PatternId, at: Location| {
            let p = p.index();
            if locations.len() <= p {
                locations.resize(p + 1, Location::Unknown);
            }
            if let Some(slot) = locations.get_mut(p) {
                *slot = at;
            }
        };
        for b in 0..self.bucket_patterns().rows() {
            for &p in self.bucket_patterns().row(b) {
                place(p, Location::Bucket(b as u32));
            }
        }
        for (s, shard) in self.rest().iter().enumerate() {
            for &p in &shard.patterns {
                place(p, Location::Shard(s as u32));
            }
        }
        for (s, shard) in self.word_rest().iter().enumerate() {
            for &p in &shard.patterns {
                place(p, Location::WordShard(s as u32));
            }
        }
        if let Some(f) = self.fallback() {
            for &p in &f.patterns {
                place(p, Location::Fallback);
            }
        }
        // A pattern ID is a u32, so its count fits one.
        self.n_patterns = u32::try_from(locations.len()).unwrap_or(u32::MAX);
        if locations.len() < FOCUS_MIN_PATTERNS {
            Box::default()
        } else {
            locations.into_boxed_slice()
        }
    }

    /// The number of patterns the index places.
    #[inline]
    pub(crate) fn n_patterns(&self) -> usize {
        self.n_patterns as usize
    }

    /// Reports onto `out` every pattern among `wanted` that matches `value` (and possibly
    /// other patterns that match it: whatever is reported matches). Runs only the automata
    /// holding `wanted`; `locations` is scratch space. False when a matcher failed.
    pub(crate) fn matches_some(
        &self,
        wanted: &[PatternId],
        value: &[u8],
        automata: &Automata,
        locations: &mut Vec<Location>,
        scratch: &mut Vec<u32>,
        out: &mut Vec<PatternId>,
    ) -> bool {
        locations.clear();
        for &p in wanted {
            let at = self
                .large
                .as_deref()
                .map_or(&[][..], |l| &l.locations)
                .get(p.index())
                .copied()
                .unwrap_or(Location::Unknown);
            if at == Location::Unknown {
                return self.matches(value, automata, scratch, out);
            }
            locations.push(at);
        }
        locations.sort_unstable();
        locations.dedup();
        let mut ok = true;
        let run = |dfa: DfaId,
                   patterns: &[PatternId],
                   start: usize,
                   scratch: &mut Vec<u32>,
                   out: &mut Vec<PatternId>| {
            scratch.clear();
            let finished = match automata.dfas.get(dfa.index()) {
                Some(d) => d.matches(value, start, scratch),
                None => false,
            };
            out.extend(scratch.iter().filter_map(|&j| patterns.get(j as usize)));
            finished
        };
        for &at in locations.iter() {
            match at {
                Location::Bucket(b) => {
                    let b = b as usize;
                    let prefix = self.prefix(b);
                    if !prefix.is_empty() && value.starts_with(prefix) {
                        match self.bucket_dfas().get(b) {
                            Some(&dfa) => {
                                ok &= run(
                                    dfa,
                                    self.bucket_patterns().row(b),
                                    prefix.len(),
                                    scratch,
                                    out,
                                )
                            }
                            None => ok = false,
                        }
                    }
                }
                Location::Shard(s) => match self.rest().get(s as usize) {
                    Some(shard) => ok &= run(shard.dfa, &shard.patterns, 0, scratch, out),
                    None => ok = false,
                },
                Location::WordShard(s) => match self.word_rest().get(s as usize) {
                    // A word-boundary DFA quits on a non-ASCII byte: its patterns are then
                    // matched by their fallback regexes.
                    Some(shard) => {
                        if !run(shard.dfa, &shard.patterns, 0, scratch, out) {
                            ok &= self
                                .word_fallback()
                                .is_some_and(|f| f.matches(value, scratch, out));
                        }
                    }
                    None => ok = false,
                },
                Location::Fallback => match self.fallback() {
                    Some(f) => ok &= f.matches(value, scratch, out),
                    None => ok = false,
                },
                Location::Unknown => ok = false,
            }
        }
        ok
    }
}
