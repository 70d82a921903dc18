//! A quick test that a word is not one of a set of names, before a hash lookup: most command
//! words are not wrappers, and most are not named by any pattern of a set.

/// The first byte and length of every name in a set: a word whose pair is absent is not in the
/// set.
#[derive(Clone, Debug)]
pub struct NameFilter {
    /// Per first byte: bit `n` (at most 31) set when some name of length `n` starts with it.
    lengths: [u32; 256],
}

impl Default for NameFilter {
    fn default() -> Self {
        NameFilter { lengths: [0; 256] }
    }
}

/// A name's first byte (0 for the empty name) and its length bit.
fn key(name: &str) -> (usize, u32) {
    let first = name.as_bytes().first().copied().unwrap_or(0);
    (first as usize, 1 << name.len().min(31))
}

impl NameFilter {
    /// Adds a name.
    pub fn insert(&mut self, name: &str) {
        let (first, bit) = key(name);
        if let Some(lengths) = self.lengths.get_mut(first) {
            *lengths |= bit;
        }
    }

    /// Whether `word` may be one of the names (false: it certainly is not).
    pub fn may_contain(&self, word: &str) -> bool {
        let (first, bit) = key(word);
        self.lengths.get(first).is_some_and(|l| l & bit != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::NameFilter;
    use proptest::prelude::*;

    proptest! {
        /// Every name inserted may be contained; a word refused is not a name.
        #[test]
        fn never_refuses_a_name(names in prop::collection::vec("[a-c]{0,40}", 0..8), word in "[a-c]{0,40}") {
            let mut f = NameFilter::default();
            for n in &names {
                f.insert(n);
            }
            for n in &names {
                prop_assert!(f.may_contain(n));
            }
            if !f.may_contain(&word) {
                prop_assert!(!names.contains(&word));
            }
        }
    }
}
