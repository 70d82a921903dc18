//! Compact tables: many small lists in two vectors (compressed sparse rows), and many small
//! strings in one. They keep compiled engines and bundles to a handful of allocations, so a
//! bundle of thousands of rules loads in milliseconds.

use super::ids::{Id, IdOverflow};
use serde::{Deserialize, Serialize};

/// Rows of IDs: row `i` is `items[offsets[i]..offsets[i + 1]]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Csr<T> {
    offsets: Vec<u32>,
    items: Vec<T>,
}

impl<T> Default for Csr<T> {
    fn default() -> Csr<T> {
        Csr {
            offsets: vec![0],
            items: Vec::new(),
        }
    }
}

impl<T: Id> Csr<T> {
    /// A table from rows; an error when it would hold more items than a `u32` offset
    /// reaches.
    pub fn from_rows<R: AsRef<[T]>>(
        rows: impl IntoIterator<Item = R>,
    ) -> Result<Csr<T>, IdOverflow> {
        let mut t = Csr::default();
        for r in rows {
            t.push_row(r.as_ref())?;
        }
        Ok(t)
    }

    /// Appends a row; an error (and the table unchanged) when the table would hold more
    /// items than a `u32` offset reaches.
    pub fn push_row(&mut self, row: &[T]) -> Result<(), IdOverflow> {
        let end = u32::try_from(self.items.len() + row.len())
            .map_err(|_| IdOverflow("items in one table"))?;
        self.items.extend_from_slice(row);
        self.offsets.push(end);
        Ok(())
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Row `i` (empty when out of range).
    #[inline]
    pub fn row(&self, i: usize) -> &[T] {
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
    pub fn items(&self) -> &[T] {
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
            && self.items.iter().all(|&i| i.index() < bound)
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
    /// Appends a string; an error (and the table unchanged) when the text would outgrow a
    /// `u32` offset.
    pub fn push(&mut self, s: &str) -> Result<(), IdOverflow> {
        let end = u32::try_from(self.text.len() + s.len())
            .map_err(|_| IdOverflow("bytes in one string table"))?;
        self.text.push_str(s);
        self.offsets.push(end);
        Ok(())
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
    use crate::program::ids::CondId;

    #[test]
    fn rows_and_strings_round_trip() {
        let c = |i: usize| CondId::new(i).unwrap();
        let t = Csr::from_rows([vec![c(1), c(2)], vec![], vec![c(3)]]).unwrap();
        assert_eq!(
            (t.rows(), t.row(0), t.row(1), t.row(2), t.row(9)),
            (3, &[c(1), c(2)][..], &[][..], &[c(3)][..], &[][..])
        );
        assert!(t.is_valid(3, 4) && !t.is_valid(3, 3) && !t.is_valid(2, 4));
        let mut s = Strings::default();
        for text in ["é", "", "ab"] {
            s.push(text).unwrap();
        }
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
