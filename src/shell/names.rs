//! A table of names for the words of a command line: most command words are not wrappers, and
//! most are not named by any pattern of a set, so a lookup must above all say "no" quickly.

/// A set of names, each with its index (in the order first inserted).
///
/// A name's key is its length and its first and last bytes (no pass over the whole word); its
/// slot is chosen from the key, and slots are probed in order from there. At most a quarter of
/// the slots are used and each holds its name's key, so a word that is not a name is usually
/// refused after one load, without comparing text.
///
/// ```
/// use toolgate::shell::names::NameTable;
///
/// let mut t = NameTable::default();
/// assert_eq!(t.insert("sudo"), 0);
/// assert_eq!(t.insert("env"), 1);
/// assert_eq!(t.insert("sudo"), 0);
/// assert_eq!(t.get("env"), Some(1));
/// assert_eq!(t.get("echo"), None);
/// ```
#[derive(Clone, Debug, Default)]
pub struct NameTable {
    /// Per slot: (0, 0) when empty, else a name's key and 1 + its index in `names`. The length
    /// is 0 or a power of two at least four times the number of names.
    slots: Vec<(u32, u32)>,
    names: Vec<Box<str>>,
}

/// The key of `name`: its first and last bytes and its length (cut to 16 bits).
#[inline]
fn key(name: &[u8]) -> u32 {
    let first = u32::from(name.first().copied().unwrap_or(0));
    let last = u32::from(name.last().copied().unwrap_or(0));
    first | last << 8 | (name.len() as u32) << 16
}

/// The first slot to probe for `key` in a table of `mask + 1` slots.
#[inline]
fn slot(key: u32, mask: usize) -> usize {
    (key.wrapping_mul(0x9E37_79B1) >> 12) as usize & mask
}

impl NameTable {
    /// Adds a name (if new); returns its index.
    pub fn insert(&mut self, name: &str) -> usize {
        if let Some(index) = self.get(name) {
            return index;
        }
        let index = self.names.len();
        self.names.push(name.into());
        if self.names.len() * 4 > self.slots.len() {
            let size = (self.names.len() * 4).next_power_of_two().max(16);
            self.slots = vec![(0, 0); size];
            for i in 0..self.names.len() {
                self.place(i);
            }
        } else {
            self.place(index);
        }
        index
    }

    /// Puts name `index` in the first empty slot from its own.
    fn place(&mut self, index: usize) {
        let mask = self.slots.len().wrapping_sub(1);
        let Some(name) = self.names.get(index) else {
            return;
        };
        let key = key(name.as_bytes());
        let mut s = slot(key, mask);
        while self.slots.get(s).is_some_and(|&(_, x)| x != 0) {
            s = (s + 1) & mask;
        }
        if let Some(x) = self.slots.get_mut(s) {
            *x = (key, index as u32 + 1);
        }
    }

    /// The index of `word`, if it is one of the names.
    #[inline]
    pub fn get(&self, word: &str) -> Option<usize> {
        let mask = self.slots.len().wrapping_sub(1);
        let key = key(word.as_bytes());
        let mut s = slot(key, mask);
        loop {
            let &(k, i) = self.slots.get(s)?;
            let index = i.checked_sub(1)? as usize;
            if k == key && self.names.get(index).is_some_and(|n| **n == *word) {
                return Some(index);
            }
            s = (s + 1) & mask;
        }
    }

    /// The number of names.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the table has no name.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::NameTable;
    use proptest::prelude::*;

    proptest! {
        /// Every name inserted is found at its index; a word that is not a name is not found.
        #[test]
        fn finds_exactly_the_names(names in prop::collection::vec("[a-c]{0,6}", 0..40), word in "[a-c]{0,6}") {
            let mut t = NameTable::default();
            let mut order: Vec<&String> = Vec::new();
            for n in &names {
                let i = t.insert(n);
                if !order.contains(&n) {
                    order.push(n);
                }
                prop_assert_eq!(order.get(i), Some(&n));
            }
            for (i, n) in order.iter().enumerate() {
                prop_assert_eq!(t.get(n), Some(i));
            }
            prop_assert_eq!(t.get(&word), order.iter().position(|n| **n == word));
            prop_assert_eq!(t.len(), order.len());
        }
    }
}
