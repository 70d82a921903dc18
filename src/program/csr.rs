//! Compact tables: many small lists in two vectors (compressed sparse rows), and many small
//! strings in one (packed in one allocation, or, for tables read on every decision, in one
//! `str` beside their ends). They keep compiled engines and bundles to a handful of
//! allocations, so a bundle of thousands of rules loads in milliseconds.

use super::ids::{Id, IdOverflow};
use serde::de::{DeserializeSeed, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::marker::PhantomData;

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

    /// The table of `rows` rows where row `r` holds, in the order given, the items paired
    /// with `r` (pairs naming a row past the last are left out): built by counting, in one
    /// allocation, however many rows there are.
    pub fn from_pairs(
        rows: usize,
        pairs: impl Iterator<Item = (usize, T)> + Clone,
    ) -> Result<Csr<T>, IdOverflow> {
        let too_many = || IdOverflow("items in one table");
        let mut ends = vec![0u32; rows + 1];
        for (r, _) in pairs.clone() {
            if let Some(n) = ends.get_mut(r + 1) {
                *n = n.checked_add(1).ok_or_else(too_many)?;
            }
        }
        let mut total = 0u32;
        for end in &mut ends {
            total = total.checked_add(*end).ok_or_else(too_many)?;
            *end = total;
        }
        let n_items = ends.last().map_or(0, |&n| n as usize);
        let mut items = vec![T::from_raw(0); n_items];
        // `ends[r]` is where row `r`'s next item goes; once filled it is where row `r` ends.
        let mut next = ends.clone();
        for (r, item) in pairs {
            if let Some(at) = next.get_mut(r) {
                if let Some(slot) = items.get_mut(*at as usize) {
                    *slot = item;
                    *at += 1;
                }
            }
        }
        Csr::pack(&ends, &items).ok_or(IdOverflow("rows in one table"))
    }

    /// The table of the same rows keeping only the items `keep` accepts (given the row and
    /// the item).
    pub fn filtered(&self, keep: impl Fn(usize, &T) -> bool) -> Result<Csr<T>, IdOverflow> {
        let mut offsets = Vec::with_capacity(self.rows() + 1);
        offsets.push(0u32);
        let mut items = Vec::new();
        for r in 0..self.rows() {
            items.extend(self.row(r).iter().copied().filter(|i| keep(r, i)));
            offsets.push(u32::try_from(items.len()).map_err(|_| IdOverflow("items in one table"))?);
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

    /// The table, borrowed.
    #[inline]
    pub fn view(&self) -> CsrRef<'_, T> {
        CsrRef { data: &self.data }
    }

    /// The packed slice (see [`CsrRef::packed`]).
    pub fn packed(&self) -> &[T] {
        &self.data
    }

    /// Number of rows.
    #[inline]
    pub fn rows(&self) -> usize {
        self.view().rows()
    }

    /// Row `i` (empty when out of range).
    #[inline]
    pub fn row(&self, i: usize) -> &[T] {
        self.view().row(i)
    }

    /// Where row `i` starts among the items.
    pub fn row_start(&self, i: usize) -> usize {
        self.view().row_start(i)
    }

    /// Every item.
    pub fn items(&self) -> &[T] {
        self.view().items()
    }

    /// True when the offsets are well formed and every item is below `bound`.
    pub fn is_valid(&self, rows: usize, bound: usize) -> bool {
        self.view().is_valid(rows, bound)
    }
}

/// A [`Csr`] table borrowed, or read in place from a larger slice (the packed form,
/// `[rows, offsets (rows + 1, the first 0), items...]`).
#[derive(Debug, Clone, Copy)]
pub struct CsrRef<'a, T> {
    data: &'a [T],
}

impl<'a, T: Id> CsrRef<'a, T> {
    /// The table packed in `data` (unchecked: see [`CsrRef::is_valid`]).
    #[inline]
    pub fn packed(data: &'a [T]) -> CsrRef<'a, T> {
        CsrRef { data }
    }

    /// The stored offsets.
    fn offsets(self) -> &'a [T] {
        self.data.get(1..self.rows() + 2).unwrap_or(&[])
    }

    /// Number of rows.
    #[inline]
    pub fn rows(self) -> usize {
        self.data.first().map_or(0, |r| r.index())
    }

    /// Row `i` (empty when out of range).
    #[inline]
    pub fn row(self, i: usize) -> &'a [T] {
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
    pub fn row_start(self, i: usize) -> usize {
        self.offsets().get(i).map_or(0, |o| o.index())
    }

    /// Every item.
    pub fn items(self) -> &'a [T] {
        self.data.get(self.rows() + 2..).unwrap_or(&[])
    }

    /// True when the offsets are well formed and every item is below `bound`.
    pub fn is_valid(self, rows: usize, bound: usize) -> bool {
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
        self.view().serialize(serializer)
    }
}

impl<T: Id + Serialize> Serialize for CsrRef<'_, T> {
    /// As a [`Csr`]: the offsets and the items.
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
    /// Reads the offsets and the items straight into the packed slice (one allocation
    /// grown in place, no intermediate vectors): loading a bundle decodes several tables
    /// per agent.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Csr<T>, D::Error> {
        deserializer.deserialize_struct("Csr", &["offsets", "items"], CsrVisitor(PhantomData))
    }
}

/// Decodes a [`Csr`] from its two sequences.
struct CsrVisitor<T>(PhantomData<T>);

impl<'de, T: Id + Deserialize<'de>> Visitor<'de> for CsrVisitor<T> {
    type Value = Csr<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a table of offsets and items")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Csr<T>, A::Error> {
        let mut data = vec![T::from_raw(0)];
        let offsets = Append {
            data: &mut data,
            raw: true,
        };
        seq.next_element_seed(offsets)?
            .ok_or_else(|| serde::de::Error::invalid_length(0, &self))?;
        let n_offsets = data.len() - 1;
        let items = Append {
            data: &mut data,
            raw: false,
        };
        seq.next_element_seed(items)?
            .ok_or_else(|| serde::de::Error::invalid_length(1, &self))?;
        // No offsets at all: a table that `is_valid` refuses.
        let Some(rows) = n_offsets.checked_sub(1).and_then(|r| u32::try_from(r).ok()) else {
            return Ok(Csr::unset());
        };
        if let Some(first) = data.first_mut() {
            *first = T::from_raw(rows);
        }
        Ok(Csr {
            data: data.into_boxed_slice(),
        })
    }
}

/// Appends one decoded sequence to a packed table: raw `u32` counts (`raw`) or IDs.
struct Append<'a, T> {
    data: &'a mut Vec<T>,
    raw: bool,
}

impl<'de, T: Id + Deserialize<'de>> DeserializeSeed<'de> for Append<'_, T> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, T: Id + Deserialize<'de>> Visitor<'de> for Append<'_, T> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a sequence of IDs")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        // The declared length is only a hint (a damaged bundle may claim anything).
        self.data.reserve(seq.size_hint().unwrap_or(0).min(1 << 16));
        if self.raw {
            while let Some(o) = seq.next_element::<u32>()? {
                self.data.push(T::from_raw(o));
            }
        } else {
            while let Some(id) = seq.next_element::<T>()? {
                self.data.push(id);
            }
        }
        Ok(())
    }
}

/// Many strings in one buffer.
///
/// One boxed slice of bytes holds the count, the offsets (little-endian `u32`s) and the
/// text, end to end: one allocation and a two-word header. Bundles store the offsets and
/// the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Strings {
    /// `[count, offsets (count + 1, the first 0), text]`.
    data: Box<[u8]>,
}

impl Default for Strings {
    fn default() -> Strings {
        Strings::pack(&[0], "")
    }
}

/// The `u32` at position `i` of `data`'s offset area (the count is position 0).
fn word(data: &[u8], i: usize) -> Option<u32> {
    let bytes = data.get(i * 4..i * 4 + 4)?;
    Some(u32::from_le_bytes(bytes.try_into().ok()?))
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
        u32::try_from(offsets.len()).map_err(|_| IdOverflow("strings in one table"))?;
        Ok(Strings::pack(&offsets, &text))
    }

    /// The table of `offsets` over `text` (unchecked: see [`Strings::is_valid`]; no offsets
    /// at all or more than a `u32` counts give a table it refuses).
    fn pack(offsets: &[u32], text: &str) -> Strings {
        let count = offsets
            .len()
            .checked_sub(1)
            .and_then(|c| u32::try_from(c).ok());
        let Some(count) = count else {
            return Strings {
                data: Box::default(),
            };
        };
        let mut data = Vec::with_capacity(4 * (offsets.len() + 1) + text.len());
        data.extend_from_slice(&count.to_le_bytes());
        for o in offsets {
            data.extend_from_slice(&o.to_le_bytes());
        }
        data.extend_from_slice(text.as_bytes());
        Strings {
            data: data.into_boxed_slice(),
        }
    }

    /// Number of strings.
    pub fn len(&self) -> usize {
        word(&self.data, 0).map_or(0, |c| c as usize)
    }

    /// The text, after the offsets.
    fn text(&self) -> &[u8] {
        self.data.get(4 * (self.len() + 2)..).unwrap_or(&[])
    }

    /// The offsets.
    fn offsets(&self) -> impl Iterator<Item = u32> + '_ {
        (1..self.len() + 2).map_while(|i| word(&self.data, i))
    }

    /// String `i` (empty when out of range).
    pub fn get(&self, i: usize) -> &str {
        if i >= self.len() {
            return "";
        }
        match (word(&self.data, i + 1), word(&self.data, i + 2)) {
            (Some(a), Some(b)) => self
                .text()
                .get(a as usize..b as usize)
                .and_then(|t| std::str::from_utf8(t).ok())
                .unwrap_or(""),
            _ => "",
        }
    }

    /// True when the offsets are well formed and fall on character boundaries.
    pub fn is_valid(&self, len: usize) -> bool {
        let Ok(text) = std::str::from_utf8(self.text()) else {
            return false;
        };
        let offsets: Vec<u32> = self.offsets().collect();
        self.data.len() >= 4 * (len + 2)
            && self.len() == len
            && offsets.len() == len + 1
            && offsets.first() == Some(&0)
            && offsets.windows(2).all(|w| w[0] <= w[1])
            && offsets.last().is_some_and(|&l| l as usize == text.len())
            && offsets.iter().all(|&o| text.is_char_boundary(o as usize))
    }
}

/// Many strings in one `str`, with where each starts and ends: string `i` is read back as a
/// slice of it, with no UTF-8 check, so this is the table for strings read on every decision
/// (tool names, rule messages); [`Strings`] packs per-agent tables tighter but checks on
/// every read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextTable {
    text: Box<str>,
    /// `[0, end of string 0, end of string 1, ...]`.
    bounds: Box<[u32]>,
}

impl Default for TextTable {
    fn default() -> TextTable {
        TextTable {
            text: Box::default(),
            bounds: Box::new([0]),
        }
    }
}

impl TextTable {
    /// The strings end to end; an error when the text would outgrow a `u32` offset.
    pub fn from_strs<S: AsRef<str>>(
        strings: impl IntoIterator<Item = S>,
    ) -> Result<TextTable, IdOverflow> {
        let mut text = String::new();
        let mut bounds = vec![0];
        for s in strings {
            text.push_str(s.as_ref());
            let end =
                u32::try_from(text.len()).map_err(|_| IdOverflow("bytes in one text table"))?;
            bounds.push(end);
        }
        Ok(TextTable {
            text: text.into_boxed_str(),
            bounds: bounds.into_boxed_slice(),
        })
    }

    /// Number of strings.
    #[inline]
    pub fn len(&self) -> usize {
        self.bounds.len().saturating_sub(1)
    }

    /// The byte range of string `i`.
    #[inline]
    fn range(&self, i: usize) -> Option<std::ops::Range<usize>> {
        let start = *self.bounds.get(i)? as usize;
        Some(start..*self.bounds.get(i + 1)? as usize)
    }

    /// String `i`, or `None` when out of range.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&str> {
        self.text.get(self.range(i)?)
    }

    /// True when string `i` is `s` (a byte comparison).
    #[inline]
    pub fn is(&self, i: usize, s: &str) -> bool {
        let bytes = self.range(i).and_then(|r| self.text.as_bytes().get(r));
        bytes == Some(s.as_bytes())
    }

    /// True when the bounds start at 0 and ascend to the end of the text, each on a character
    /// boundary.
    pub fn is_valid(&self) -> bool {
        self.bounds.first() == Some(&0)
            && self.bounds.windows(2).all(|w| w[0] <= w[1])
            && self.bounds.last().map_or(0, |&e| e as usize) == self.text.len()
            && self
                .bounds
                .iter()
                .all(|&e| self.text.is_char_boundary(e as usize))
    }
}

impl Serialize for Strings {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let text = std::str::from_utf8(self.text()).unwrap_or("");
        let mut s = serializer.serialize_struct("Strings", 2)?;
        s.serialize_field("offsets", &self.offsets().collect::<Vec<u32>>())?;
        s.serialize_field("text", text)?;
        s.end()
    }
}

impl<'de> Deserialize<'de> for Strings {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Strings, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename = "Strings")]
        struct Parts {
            offsets: Vec<u32>,
            text: String,
        }
        let parts = Parts::deserialize(deserializer)?;
        Ok(Strings::pack(&parts.offsets, &parts.text))
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
        let broken = Strings::pack(&[0, 1, 2], "é");
        assert!(!broken.is_valid(2));
        let t = TextTable::from_strs(["é", "", "ab"]).unwrap();
        assert_eq!(
            (t.get(0), t.get(1), t.get(2), t.get(3), t.len()),
            (Some("é"), Some(""), Some("ab"), None, 3)
        );
        assert!(t.is(0, "é") && t.is(1, "") && !t.is(2, "a") && !t.is(3, ""));
        assert!(t.is_valid());
        let back: TextTable = postcard::from_bytes(&postcard::to_allocvec(&t).unwrap()).unwrap();
        assert_eq!(back, t);
        // Bounds past the text, inside a character, descending or not from 0 are refused.
        for bounds in [
            vec![0u32, 2, 2, 5],
            vec![0, 1, 1, 4],
            vec![0, 2, 1, 4],
            vec![1, 2, 2, 4],
            vec![],
        ] {
            let broken = TextTable {
                bounds: bounds.into_boxed_slice(),
                ..t.clone()
            };
            assert!(!broken.is_valid(), "{broken:?}");
        }
        let unset = Csr::<CondId>::unset();
        assert_eq!(
            (unset.rows(), unset.row(0), unset.items()),
            (0, &[][..], &[][..])
        );
    }

    proptest::proptest! {
        /// The packed tables read back their rows and strings, and bundles hold them as the
        /// two sequences they always held (offsets, then items or text).
        #[test]
        fn packed_tables_keep_rows_and_their_encoding(
            rows in proptest::collection::vec(proptest::collection::vec(0u32..50, 0..5), 0..8),
            texts in proptest::collection::vec(".{0,4}", 0..8),
        ) {
            let ids: Vec<Vec<CondId>> = rows
                .iter()
                .map(|r| r.iter().map(|&i| CondId::new(i as usize).unwrap()).collect())
                .collect();
            let t = Csr::from_rows(&ids).unwrap();
            proptest::prop_assert!(t.is_valid(rows.len(), 50));
            let mut offsets = vec![0u32];
            for (i, r) in ids.iter().enumerate() {
                proptest::prop_assert_eq!(t.row(i), &r[..]);
                offsets.push(offsets[i] + r.len() as u32);
            }
            // Odd items in even rows, even items in odd rows.
            let keep = |r: usize, c: &CondId| (c.index() + r) % 2 == 1;
            let kept: Vec<Vec<CondId>> = ids.iter().enumerate().map(|(i, r)| r.iter().copied().filter(|c| keep(i, c)).collect()).collect();
            proptest::prop_assert_eq!(t.filtered(keep).unwrap(), Csr::from_rows(&kept).unwrap());
            // Rows by item (a transpose): pairs build the same table as rows collected one by one.
            let pairs = ids.iter().enumerate().flat_map(|(r, row)| row.iter().map(move |&c| (c.index() % 7, CondId::new(r).unwrap())));
            let mut by_item = vec![Vec::new(); 7];
            for (r, c) in pairs.clone() {
                by_item[r].push(c);
            }
            proptest::prop_assert_eq!(Csr::from_pairs(7, pairs).unwrap(), Csr::from_rows(&by_item).unwrap());
            let items: Vec<CondId> = ids.concat();
            let bytes = postcard::to_allocvec(&t).unwrap();
            proptest::prop_assert_eq!(&bytes, &postcard::to_allocvec(&(&offsets, &items)).unwrap());
            proptest::prop_assert_eq!(postcard::from_bytes::<Csr<CondId>>(&bytes).unwrap(), t);

            let s = Strings::from_strs(&texts).unwrap();
            proptest::prop_assert!(s.is_valid(texts.len()));
            let mut ends = vec![0u32];
            for (i, text) in texts.iter().enumerate() {
                proptest::prop_assert_eq!(s.get(i), text.as_str());
                ends.push(ends[i] + text.len() as u32);
            }
            let bytes = postcard::to_allocvec(&s).unwrap();
            proptest::prop_assert_eq!(&bytes, &postcard::to_allocvec(&(&ends, texts.concat())).unwrap());
            proptest::prop_assert_eq!(postcard::from_bytes::<Strings>(&bytes).unwrap(), s);
        }
    }
}
