//! Dense DFAs over many patterns at once, serializable with regex-automata's own format.
//!
//! A [`Dfa`] is built from regex syntax trees (one per pattern) with `MatchKind::All`, so one
//! overlapping pass reports every pattern that matches. It never backtracks: a pass is linear
//! in the haystack. Bundles store it with `to_bytes_little_endian` and load it with the
//! validating `from_bytes`.

use regex_automata::dfa::{dense, Automaton, OverlappingState, StartKind};
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::util::{primitives::StateID, start};
use regex_automata::{Anchored, Input, MatchKind};
use regex_syntax::hir::Hir;

/// Size limits for one DFA.
#[derive(Debug, Clone, Copy)]
pub struct DfaLimits {
    /// Largest Thompson NFA, in bytes.
    pub nfa: usize,
    /// Largest DFA over patterns, in bytes (also bounds determinization memory). A pattern
    /// set over it is split, and a single pattern over it takes the fallback regex: the budget
    /// bounds compile time and bundle size, never what a policy may say.
    pub dfa: usize,
    /// What building one pattern index's unanchored DFA shards may spend, in bytes of DFA
    /// (each DFA built counts its size, each attempt over its limit the limit); patterns past
    /// it take the fallback regex.
    pub shards: usize,
}

impl Default for DfaLimits {
    fn default() -> DfaLimits {
        DfaLimits {
            nfa: 16 << 20,
            dfa: 4 << 20,
            shards: 4 << 20,
        }
    }
}

/// Why a DFA could not be built or loaded.
#[derive(Debug, Clone)]
pub struct DfaError {
    /// What went wrong.
    pub message: String,
    /// True when a size limit was exceeded.
    pub too_large: bool,
}

impl From<super::ids::IdOverflow> for DfaError {
    /// A table of the automata outgrew its IDs: a size limit.
    fn from(e: super::ids::IdOverflow) -> DfaError {
        DfaError {
            message: e.to_string(),
            too_large: true,
        }
    }
}

/// How searches of `dfa` start: anchored when it was built anchored.
fn anchored_mode(dfa: &dense::DFA<Vec<u32>>) -> Anchored {
    if dfa.start_kind() == StartKind::Anchored {
        Anchored::Yes
    } else {
        Anchored::No
    }
}

/// A dense DFA reporting every pattern that matches.
#[derive(Clone, Debug)]
pub struct Dfa {
    dfa: dense::DFA<Vec<u32>>,
    /// The start state when it does not depend on what precedes the search (no look-behind
    /// assertion), or `None` when it must be computed per search.
    start: Option<StateID>,
}

impl Dfa {
    fn new(dfa: dense::DFA<Vec<u32>>) -> Dfa {
        let start = if dfa.has_empty() && dfa.is_utf8() {
            None
        } else {
            dfa.universal_start_state(anchored_mode(&dfa))
        };
        Dfa { dfa, start }
    }

    /// Builds one DFA over `patterns`; pattern `i` is reported as `i`. `anchored` DFAs are
    /// searched from a given offset; unanchored ones find matches anywhere. An `ascii_word`
    /// DFA reads Unicode word boundaries as ASCII ones and quits on a non-ASCII byte (its
    /// search then reports `false`, and the caller asks a regex that knows Unicode).
    pub fn build<H: std::borrow::Borrow<Hir>>(
        patterns: &[H],
        anchored: bool,
        ascii_word: bool,
        limits: DfaLimits,
    ) -> Result<Dfa, DfaError> {
        let nfa = thompson::Compiler::new()
            .configure(
                thompson::Config::new()
                    .which_captures(WhichCaptures::None)
                    .utf8(false)
                    .nfa_size_limit(Some(limits.nfa)),
            )
            .build_many_from_hir(patterns)
            .map_err(|e| DfaError {
                too_large: e.size_limit().is_some(),
                message: e.to_string(),
            })?;
        let dfa = dense::Builder::new()
            .configure(
                dense::Config::new()
                    .match_kind(MatchKind::All)
                    .start_kind(if anchored {
                        StartKind::Anchored
                    } else {
                        StartKind::Unanchored
                    })
                    .minimize(false)
                    .unicode_word_boundary(ascii_word)
                    .dfa_size_limit(Some(limits.dfa))
                    .determinize_size_limit(Some(limits.dfa)),
            )
            .build_from_nfa(&nfa)
            .map_err(|e| DfaError {
                too_large: e.is_size_limit_exceeded(),
                message: e.to_string(),
            })?;
        Ok(Dfa::new(dfa))
    }

    /// Pushes onto `out` every pattern matching `hay` (anchored DFAs: starting at `start`).
    /// Returns false if the search could not run (it then reports nothing; callers treat that
    /// as an internal error).
    pub fn matches(&self, hay: &[u8], start: usize, out: &mut Vec<u32>) -> bool {
        let dfa = &self.dfa;
        let start = start.min(hay.len());
        let mut sid = match self.start {
            Some(sid) => sid,
            _ => {
                if dfa.has_empty() && dfa.is_utf8() {
                    // Never built by toolgate (its automata are byte-oriented); kept correct.
                    return self.matches_by_search(hay, start, out);
                }
                let config = start::Config::new()
                    .anchored(anchored_mode(dfa))
                    .look_behind(start.checked_sub(1).and_then(|i| hay.get(i).copied()));
                match dfa.start_state(&config) {
                    Ok(sid) => sid,
                    Err(_) => return false,
                }
            }
        };
        // One transition per byte. Matches are delayed by one byte in regex-automata's DFAs,
        // so a match state seen after byte i reports the patterns that match up to i; the
        // end-of-input transition reports those that match the whole rest.
        if dfa.is_special_state(sid) {
            if dfa.is_dead_state(sid) {
                return true;
            }
            if dfa.is_quit_state(sid) {
                return false;
            }
        }
        for &byte in hay.get(start..).unwrap_or(&[]) {
            sid = dfa.next_state(sid, byte);
            if dfa.is_special_state(sid) {
                if dfa.is_match_state(sid) {
                    self.push_matches(sid, out);
                } else if dfa.is_dead_state(sid) {
                    return true;
                } else if dfa.is_quit_state(sid) {
                    return false;
                }
            }
        }
        sid = dfa.next_eoi_state(sid);
        if dfa.is_match_state(sid) {
            self.push_matches(sid, out);
        }
        true
    }

    fn push_matches(&self, sid: StateID, out: &mut Vec<u32>) {
        match self.dfa.match_len(sid) {
            1 => out.push(self.dfa.match_pattern(sid, 0).as_u32()),
            n => out.extend((0..n).map(|i| self.dfa.match_pattern(sid, i).as_u32())),
        }
    }

    /// [`Dfa::matches`] through regex-automata's overlapping search.
    fn matches_by_search(&self, hay: &[u8], start: usize, out: &mut Vec<u32>) -> bool {
        let input = Input::new(hay)
            .range(start.min(hay.len())..)
            .anchored(anchored_mode(&self.dfa));
        let mut state = OverlappingState::start();
        loop {
            if self
                .dfa
                .try_search_overlapping_fwd(&input, &mut state)
                .is_err()
            {
                return false;
            }
            match state.get_match() {
                Some(m) => out.push(m.pattern().as_u32()),
                None => return true,
            }
        }
    }

    /// Number of patterns.
    pub fn pattern_len(&self) -> usize {
        self.dfa.pattern_len()
    }

    /// Heap memory used, in bytes.
    pub fn memory_usage(&self) -> usize {
        self.dfa.memory_usage()
    }

    /// The DFA in regex-automata's little-endian wire format.
    pub fn to_bytes(&self) -> Vec<u8> {
        let (bytes, pad) = self.dfa.to_bytes_little_endian();
        bytes[pad..].to_vec()
    }

    /// Loads a DFA written by [`Dfa::to_bytes`], validating it completely.
    pub fn from_bytes(bytes: &[u8]) -> Result<Dfa, DfaError> {
        if cfg!(target_endian = "big") {
            return Err(DfaError {
                message: "bundles are little-endian; this machine is big-endian".into(),
                too_large: false,
            });
        }
        // from_bytes needs 4-byte alignment: copy into an aligned window.
        let mut buf = vec![0u8; bytes.len() + 3];
        let pad = buf.as_ptr().align_offset(4).min(3);
        buf[pad..pad + bytes.len()].copy_from_slice(bytes);
        let (dfa, read) =
            dense::DFA::from_bytes(&buf[pad..pad + bytes.len()]).map_err(|e| DfaError {
                message: e.to_string(),
                too_large: false,
            })?;
        if read != bytes.len() {
            return Err(DfaError {
                message: format!("{} trailing bytes after a DFA", bytes.len() - read),
                too_large: false,
            });
        }
        Ok(Dfa::new(dfa.to_owned()))
    }
}

impl serde::Serialize for Dfa {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.to_bytes())
    }
}

impl<'de> serde::Deserialize<'de> for Dfa {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Dfa, D::Error> {
        struct Bytes;
        impl serde::de::Visitor<'_> for Bytes {
            type Value = Dfa;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a serialized DFA")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Dfa, E> {
                Dfa::from_bytes(v)
                    .map_err(|e| E::custom(format_args!("invalid DFA: {}", e.message)))
            }
        }
        d.deserialize_bytes(Bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn hir(p: &str) -> Hir {
        regex_syntax::ParserBuilder::new()
            .utf8(false)
            .build()
            .parse(p)
            .unwrap()
    }

    #[test]
    fn reports_every_pattern_in_one_pass() {
        let d = Dfa::build(
            &[hir("SELECT"), hir("(?-u)^/a/.*$"), hir("b")],
            false,
            false,
            DfaLimits::default(),
        )
        .unwrap();
        let mut out = Vec::new();
        assert!(d.matches(b"/a/SELECT b", 0, &mut out));
        out.sort();
        out.dedup();
        assert_eq!(out, vec![0, 1, 2]);
    }

    #[test]
    fn anchored_search_starts_at_the_offset() {
        let d = Dfa::build(
            &[hir(r"(?-u)[^/]*\.csv$"), hir("x")],
            true,
            false,
            DfaLimits::default(),
        )
        .unwrap();
        let mut out = Vec::new();
        d.matches(b"/data/r.csv", 6, &mut out);
        assert_eq!(out, vec![0]);
        out.clear();
        d.matches(b"/data/r.csv", 0, &mut out);
        assert_eq!(out, Vec::<u32>::new());
    }

    #[test]
    fn round_trips_and_refuses_garbage() {
        let d = Dfa::build(
            &[hir("ab+c"), hir("(?-u)^x$")],
            false,
            false,
            DfaLimits::default(),
        )
        .unwrap();
        let bytes = d.to_bytes();
        let back = Dfa::from_bytes(&bytes).unwrap();
        let mut out = Vec::new();
        back.matches(b"zabbbc", 0, &mut out);
        assert_eq!(out, vec![0]);
        assert!(Dfa::from_bytes(&bytes[..bytes.len() / 2]).is_err());
        assert!(Dfa::from_bytes(b"garbage").is_err());
        let mut flipped = bytes.clone();
        let mid = flipped.len() / 2;
        flipped[mid] ^= 0xff;
        // A flipped byte either fails validation or yields a DFA that still cannot crash.
        if let Ok(d) = Dfa::from_bytes(&flipped) {
            let mut out = Vec::new();
            d.matches(b"zabbbcx", 0, &mut out);
        }
    }
}

#[cfg(test)]
mod walk_equals_search {
    use super::tests::hir;
    use super::*;
    use proptest::prelude::*;

    /// Small regexes over a small alphabet, with anchors and word boundaries, so that
    /// patterns overlap, nest and match at many positions.
    fn pattern() -> impl Strategy<Value = String> {
        let atom = prop_oneof![
            Just("a".to_string()),
            Just("b".to_string()),
            Just("/".to_string()),
            Just(".".to_string()),
            Just("[ab]".to_string()),
            Just("(?-u:\\b)".to_string()),
        ];
        (
            any::<bool>(),
            proptest::collection::vec((atom, prop_oneof![Just(""), Just("*"), Just("+")]), 1..5),
            any::<bool>(),
        )
            .prop_map(|(start, atoms, end)| {
                let body: String = atoms.into_iter().map(|(a, q)| format!("{a}{q}")).collect();
                format!(
                    "(?-u){}{body}{}",
                    if start { "^" } else { "" },
                    if end { "$" } else { "" }
                )
            })
    }

    proptest! {
        /// The hand-written walk reports the same patterns as regex-automata's own
        /// overlapping search, anchored or not, from any start offset.
        #[test]
        fn same_patterns_as_the_overlapping_search(
            patterns in proptest::collection::vec(pattern(), 1..6),
            hay in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(b'/'), Just(b' ')], 0..12),
            start in 0usize..14,
            anchored in any::<bool>(),
        ) {
            let hirs: Vec<Hir> = patterns.iter().map(|p| hir(p)).collect();
            let d = Dfa::build(&hirs, anchored, false, DfaLimits::default()).unwrap();
            let (mut walk, mut search) = (Vec::new(), Vec::new());
            prop_assert!(d.matches(&hay, start, &mut walk));
            prop_assert!(d.matches_by_search(&hay, start, &mut search));
            walk.sort();
            walk.dedup();
            search.sort();
            search.dedup();
            prop_assert_eq!(walk, search);
        }
    }
}
