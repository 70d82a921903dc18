//! A fixed-size bitset over small integer IDs (conditions, rules, needles).

/// A set of IDs `0..len` stored as 64-bit words.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    /// The empty set with room for nothing (usable in constants).
    pub const EMPTY: BitSet = BitSet { words: Vec::new() };

    /// An empty set able to hold IDs `0..len`.
    pub fn new(len: usize) -> BitSet {
        BitSet {
            words: vec![0; len.div_ceil(64)],
        }
    }

    /// A set holding every ID `0..len`.
    #[cfg(test)]
    pub(crate) fn full(len: usize) -> BitSet {
        let mut words = vec![u64::MAX; len.div_ceil(64)];
        if let (Some(last), rem @ 1..) = (words.last_mut(), len % 64) {
            *last = (1u64 << rem) - 1;
        }
        BitSet { words }
    }

    /// Adds an ID (IDs beyond the capacity are ignored).
    #[inline]
    pub fn insert(&mut self, i: usize) {
        if let Some(w) = self.words.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }

    /// Removes an ID.
    #[inline]
    pub fn remove(&mut self, i: usize) {
        if let Some(w) = self.words.get_mut(i / 64) {
            *w &= !(1 << (i % 64));
        }
    }

    /// Flips an ID.
    #[inline]
    #[cfg(test)]
    pub(crate) fn toggle(&mut self, i: usize) {
        if let Some(w) = self.words.get_mut(i / 64) {
            *w ^= 1 << (i % 64);
        }
    }

    /// Membership: one shift and one mask.
    #[inline]
    pub fn contains(&self, i: usize) -> bool {
        self.words
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Makes the set empty with room for IDs `0..len`, reusing its memory.
    #[inline]
    pub fn reset(&mut self, len: usize) {
        let words = len.div_ceil(64);
        self.words.truncate(words);
        for w in &mut self.words {
            *w = 0;
        }
        self.words.resize(words, 0);
    }

    /// Makes room for IDs `0..len`, keeping the current members.
    pub fn grow(&mut self, len: usize) {
        let words = len.div_ceil(64);
        if self.words.len() < words {
            self.words.resize(words, 0);
        }
    }

    /// The IDs in the set, ascending.
    #[cfg(test)]
    pub(crate) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        ids(&self.words)
    }
}

/// The IDs set in `words`, ascending.
#[cfg(test)]
fn ids(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(wi, &w)| {
        let mut w = w;
        std::iter::from_fn(move || {
            if w == 0 {
                return None;
            }
            let b = w.trailing_zeros() as usize;
            w &= w - 1;
            Some(wi * 64 + b)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::BitSet;
    use proptest::prelude::*;

    fn ops_len(model: &std::collections::BTreeSet<usize>) -> usize {
        model.iter().next_back().map_or(0, |m| m + 1)
    }

    proptest! {
        #[test]
        fn behaves_like_a_set(ops in proptest::collection::vec((0usize..200, 0u8..3), 0..100)) {
            let mut s = BitSet::new(200);
            let mut model = std::collections::BTreeSet::new();
            for (i, op) in ops {
                match op {
                    0 => { s.insert(i); model.insert(i); }
                    1 => { s.remove(i); model.remove(&i); }
                    _ => { s.toggle(i); if !model.remove(&i) { model.insert(i); } }
                }
            }
            prop_assert_eq!(s.iter().collect::<Vec<_>>(), model.iter().copied().collect::<Vec<_>>());
            let len = ops_len(&model);
            prop_assert_eq!(BitSet::full(len).iter().collect::<Vec<_>>(), (0..len).collect::<Vec<_>>());
            for i in 0..200 { prop_assert_eq!(s.contains(i), model.contains(&i)); }
        }
    }
}

impl BitSet {
    #[cfg(test)]
    fn range_masks(lo: usize, hi: usize) -> impl Iterator<Item = (usize, u64)> {
        let (first, last) = (lo / 64, (hi.max(1) - 1) / 64);
        (first..=last).filter(move |_| hi > lo).map(move |w| {
            let start = if w == first { lo % 64 } else { 0 };
            let end = if w == last { (hi - 1) % 64 + 1 } else { 64 };
            let mask = if end - start == 64 {
                u64::MAX
            } else {
                ((1u64 << (end - start)) - 1) << start
            };
            (w, mask)
        })
    }

    /// Within IDs `lo..hi`, keeps only the IDs also in `other` (`self &= other` on the range).
    #[cfg(test)]
    pub(crate) fn and_range(&mut self, other: &BitSet, lo: usize, hi: usize) {
        for (w, mask) in BitSet::range_masks(lo, hi) {
            if let (Some(a), Some(b)) = (self.words.get_mut(w), other.words.get(w)) {
                *a &= b | !mask;
            }
        }
    }

    /// Within IDs `lo..hi`, adds the IDs in `other` (`self |= other` on the range).
    #[cfg(test)]
    pub(crate) fn or_range(&mut self, other: &BitSet, lo: usize, hi: usize) {
        for (w, mask) in BitSet::range_masks(lo, hi) {
            if let (Some(a), Some(b)) = (self.words.get_mut(w), other.words.get(w)) {
                *a |= b & mask;
            }
        }
    }

    /// Removes the IDs `lo..hi`.
    #[cfg(test)]
    pub(crate) fn clear_range(&mut self, lo: usize, hi: usize) {
        for (w, mask) in BitSet::range_masks(lo, hi) {
            if let Some(a) = self.words.get_mut(w) {
                *a &= !mask;
            }
        }
    }
}

#[cfg(test)]
mod range_tests {
    use super::BitSet;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn range_ops_touch_only_the_range(a in proptest::collection::vec(any::<bool>(), 150), b in proptest::collection::vec(any::<bool>(), 150), lo in 0usize..150, len in 0usize..150) {
            let hi = (lo + len).min(150);
            let mk = |v: &Vec<bool>| { let mut s = BitSet::new(150); for (i, x) in v.iter().enumerate() { if *x { s.insert(i) } } s };
            let (sa, sb) = (mk(&a), mk(&b));
            let mut and = sa.clone(); and.and_range(&sb, lo, hi);
            let mut or = sa.clone(); or.or_range(&sb, lo, hi);
            let mut clr = sa.clone(); clr.clear_range(lo, hi);
            for i in 0..150 {
                let inr = i >= lo && i < hi;
                prop_assert_eq!(and.contains(i), if inr { a[i] && b[i] } else { a[i] });
                prop_assert_eq!(or.contains(i), if inr { a[i] || b[i] } else { a[i] });
                prop_assert_eq!(clr.contains(i), if inr { false } else { a[i] });
            }
        }
    }
}
