//! Substring needles matched in one pass (aho-corasick), for `contains` and `contains any`.
//! The automaton is rebuilt from the needles when a bundle is loaded.

use serde::{Deserialize, Serialize};

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
    ac: Option<aho_corasick::AhoCorasick>,
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
        let ac = aho_corasick::AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::Standard)
            .build(&self.needles)
            .map_err(|e| MatcherError {
                message: e.to_string(),
                too_large: true,
            })?;
        self.ac = Some(ac);
        Ok(())
    }

    /// Calls `hit` with the index of every needle found in `value`, once each. Returns false
    /// when the automaton is missing.
    pub fn matches(
        &self,
        value: &str,
        seen: &mut super::bitset::BitSet,
        mut hit: impl FnMut(usize),
    ) -> bool {
        let Some(ac) = &self.ac else { return false };
        seen.clear();
        let mut found = 0;
        for m in ac.find_overlapping_iter(value) {
            let id = m.pattern().as_usize();
            if !seen.contains(id) {
                seen.insert(id);
                hit(id);
                found += 1;
                if found == self.needles.len() {
                    break;
                }
            }
        }
        true
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
}
