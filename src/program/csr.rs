//! Compact tables: many small lists in two vectors (compressed sparse rows), and many small
//! strings in one. They keep compiled engines and bundles to a handful of allocations, so a
//! bundle of thousands of rules loads in milliseconds.

use serde::{Deserialize, Serialize};

/// Rows of `u32`s: row `i` is `items[offsets[i]..offsets[i + 1]]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Csr {
    offsets: Vec<u32>,
    items: Vec<u32>,
}

impl Default for Csr {
    fn default() -> Csr {
        Csr {
            offsets: vec![0],
            items: Vec::new(),
        }
    }
}

impl Csr {
    /// A table from rows.
    pub fn from_rows<R: AsRef<[u32]>>(rows: impl IntoIterator<Item = R>) -> Csr {
        let mut t = Csr::default();
        for r in rows {
            t.push_row(r.as_ref());
        }
        t
    }

    /// Appends a row.
    pub fn push_row(&mut self, row: &[u32]) {
        self.items.extend_from_slice(row);
        self.offsets.push(self.items.len() as u32);
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Row `i` (empty when out of range).
    #[inline]
    pub fn row(&self, i: usize) -> &[u32] {
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => self.items.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Where row `i` starts among the items.
    pub fn row_start(&self, i: usize) -> usize {
        self.offsets.get(i).copied().unwrap_or(0) as usize
    }

    /// Every item.
    pub fn items(&self) -> &[u32] {
        &self.items
    }

    /// True when the offsets are well formed and every item is below `bound`.
    pub fn is_valid(&self, rows: usize, bound: usize) -> bool {
        self.offsets.len() == rows + 1
            && self.offsets.first() == Some(&0)
            && self.offsets.windows(2).all(|w| w[0] <= w[1])
            && self
                .offsets
                .last()
                .is_some_and(|&l| l as usize == self.items.len())
            && self.items.iter().all(|&i| (i as usize) < bound)
    }
}

/// Many strings in one buffer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Strings {
    offsets: Vec<u32>,
    text: String,
}

impl Default for Strings {
    fn default() -> Strings {
        Strings {
            offsets: vec![0],
            text: String::new(),
        }
    }
}

impl Strings {
    /// Appends a string.
    pub fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.offsets.push(self.text.len() as u32);
    }

    /// Number of strings.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// String `i` (empty when out of range).
    pub fn get(&self, i: usize) -> &str {
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => self.text.get(a as usize..b as usize).unwrap_or(""),
            _ => "",
        }
    }

    /// True when the offsets are well formed and fall on character boundaries.
    pub fn is_valid(&self, len: usize) -> bool {
        self.offsets.len() == len + 1
            && self.offsets.first() == Some(&0)
            && self.offsets.windows(2).all(|w| w[0] <= w[1])
            && self
                .offsets
                .last()
                .is_some_and(|&l| l as usize == self.text.len())
            && self
                .offsets
                .iter()
                .all(|&o| self.text.is_char_boundary(o as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_strings_round_trip() {
        let t = Csr::from_rows([vec![1, 2], vec![], vec![3]]);
        assert_eq!(
            (t.rows(), t.row(0), t.row(1), t.row(2), t.row(9)),
            (3, &[1, 2][..], &[][..], &[3][..], &[][..])
        );
        assert!(t.is_valid(3, 4) && !t.is_valid(3, 3) && !t.is_valid(2, 4));
        let mut s = Strings::default();
        s.push("é");
        s.push("");
        s.push("ab");
        assert_eq!(
            (s.get(0), s.get(1), s.get(2), s.get(3)),
            ("é", "", "ab", "")
        );
        assert!(s.is_valid(3));
        let broken = Strings {
            offsets: vec![0, 1, 2],
            text: "é".into(),
        };
        assert!(!broken.is_valid(2));
    }
}
