//! Compact tables: many small lists in two vectors (compressed sparse rows), and many small
//! strings in one. They keep compiled engines and bundles to a handful of allocations, so a
//! bundle of thousands of rules loads in milliseconds.

use super::ids::{Id, IdOverflow};
use serde::{Deserialize, Serialize};

/// Rows of IDs: row `i` is `items[offsets[i]..offsets[i + 1]]`.
///
/// One boxed slice holds the row count, the offsets and the items, end to end (the counts
/// stored as raw IDs): a table is built once, and an engine holds several per agent, so one
/// allocation and a two-word header each, with no capacity or slack, matter. Bundles store
/// the offsets and the items as two sequences.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Csr<T> {
    /// `[rows, offsets (rows + 1, the first 0), items...]`; empty for [`Csr::unset`].
    data: Box<[T]>,
}

impl<T: Id> Default for Csr<T> {
    /// The table of no rows, as bundles store it (offsets `[0]`).
    fn default() -> Csr<T> {
        Csr {
            data: Box::new([T::from_raw(0), T::from_raw(0)]),
        }
    }
}

impl<T> Csr<T> {
    /// A table of no rows that allocates nothing, for derived tables (never stored, never
    /// validated): every row reads as empty.
    pub fn unset() -> Csr<T> {
        Csr {
            data: Box::default(),
        }
    }
}

impl<T: Id> Csr<T> {
    /// A table from rows; an error when it would hold more items than a `u32` offset
    /// reaches.
    pub fn from_rows<R: AsRef<[T]>>(
        rows: impl IntoIterator<Item = R>,
    ) -> Result<Csr<T>, IdOverflow> {
        let mut offsets = vec![0];
        let mut items = Vec::new();
        for r in rows {
            let row = r.as_ref();
            let end = u32::try_from(items.len() + row.len())
                .map_err(|_| IdOverflow("items in one table"))?;
            items.extend_from_slice(row);
            offsets.push(end);
        }
        Csr::pack(&offsets, &items).ok_or(IdOverflow("rows in one table"))
    }

    /// The table of `offsets` and `items` (unchecked: see [`Csr::is_valid`]); `None` when
    /// there are no offsets or too many rows to count.
    fn pack(offsets: &[u32], items: &[T]) -> Option<Csr<T>> {
        let rows = u32::try_from(offsets.len().checked_sub(1)?).ok()?;
        let mut data = Vec::with_capacity(1 + offsets.len() + items.len());
        data.push(T::from_raw(rows));
        data.extend(offsets.iter().map(|&o| T::from_raw(o)));
        data.extend_from_slice(items);
        Some(Csr {
            data: data.into_boxed_slice(),
        })
    }

    /// The stored offsets (empty for [`Csr::unset`]).
    fn offsets(&self) -> &[T] {
        self.data.get(1..self.rows() + 2).unwrap_or(&[])
    }

    /// Number of rows.
    #[inline]
    pub fn rows(&self) -> usize {
        self.data.first().map_or(0, |r| r.index())
    }

    /// Row `i` (empty when out of range).
    #[inline]
    pub fn row(&self, i: usize) -> &[T] {
        let rows = self.rows();
        if i >= rows {
            return &[];
        }
        match (self.data.get(i + 1), self.data.get(i + 2)) {
            (Some(a), Some(b)) => {
                let base = rows + 2;
                self.data
                    .get(base + a.index()..base + b.index())
                    .unwrap_or(&[])
            }
            _ => &[],
        }
    }

    /// Where row `i` starts among the items.
    pub fn row_start(&self, i: usize) -> usize {
        self.offsets().get(i).map_or(0, |o| o.index())
    }

    /// Every item.
    pub fn items(&self) -> &[T] {
        self.data.get(self.rows() + 2..).unwrap_or(&[])
    }

    /// True when the offsets are well formed and every item is below `bound`.
    pub fn is_valid(&self, rows: usize, bound: usize) -> bool {
        let offsets = self.offsets();
        self.rows() == rows
            && offsets.len() == rows + 1
            && offsets.first().map(|o| o.index()) == Some(0)
            && offsets.windows(2).all(|w| w[0] <= w[1])
            && offsets
                .last()
                .is_some_and(|l| l.index() == self.items().len())
            && self.items().iter().all(|&i| i.index() < bound)
    }
}

impl<T: Id + Serialize> Serialize for Csr<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let unset = [T::from_raw(0)];
        let offsets = match self.offsets() {
            [] => &unset[..],
            o => o,
        };
        let mut s = serializer.serialize_struct("Csr", 2)?;
        s.serialize_field("offsets", &Raw(offsets))?;
        s.serialize_field("items", self.items())?;
        s.end()
    }
}

/// IDs serialized as the `u32` counts they hold.
struct Raw<'a, T>(&'a [T]);

impl<T: Id> Serialize for Raw<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|&o| o.raw()))
    }
}

impl<'de, T: Id + Deserialize<'de>> Deserialize<'de> for Csr<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Csr<T>, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename = "Csr")]
        struct Parts<T> {
            offsets: Vec<u32>,
            items: Vec<T>,
        }
        let parts = Parts::<T>::deserialize(deserializer)?;
        // No offsets at all: a table that `is_valid` refuses.
        Ok(Csr::pack(&parts.offsets, &parts.items).unwrap_or_else(Csr::unset))
    }
}

/// Many strings in one buffer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Strings {
    offsets: Box<[u32]>,
    text: Box<str>,
}

impl Default for Strings {
    fn default() -> Strings {
        Strings {
            offsets: Box::new([0]),
            text: Box::default(),
        }
    }
}

impl Strings {
    /// The strings end to end; an error when the text would outgrow a `u32` offset.
    pub fn from_strs<S: AsRef<str>>(
        strings: impl IntoIterator<Item = S>,
    ) -> Result<Strings, IdOverflow> {
        let mut offsets = vec![0];
        let mut text = String::new();
        for s in strings {
            let s = s.as_ref();
            let end = u32::try_from(text.len() + s.len())
                .map_err(|_| IdOverflow("bytes in one string table"))?;
            text.push_str(s);
            offsets.push(end);
        }
        Ok(Strings {
            offsets: offsets.into_boxed_slice(),
            text: text.into_boxed_str(),
        })
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
        let s = Strings::from_strs(["é", "", "ab"]).unwrap();
        assert_eq!(
            (s.get(0), s.get(1), s.get(2), s.get(3)),
            ("é", "", "ab", "")
        );
        assert!(s.is_valid(3));
        let broken = Strings {
            offsets: Box::new([0, 1, 2]),
            text: "é".into(),
        };
        assert!(!broken.is_valid(2));
    }
}
