//! The decision shapes an engine has answered with, numbered: everything of a decision but
//! the request's `tool_use_id` (and an explanation, which the numbered path never asks for).
//!
//! A policy answers with few distinct shapes (one per rule, per default, per missing
//! permission or argument), so `decide` can hand JS a shape's number instead of the
//! decision's strings: `toolgate.js` keeps each shape as a template object, fetched once, and
//! copies it into a fresh decision with a literal. Creating a handful of JS strings and calling
//! back into JS costs far more than that copy. Messages that quote the request (an unknown
//! tool's name, a `bad_request`'s reason) make shapes unbounded in principle, so the table
//! stops at [`MAX_SHAPES`]; a decision of a new shape past that is answered in full.
//!
//! Most decisions borrow every text from the engine (a rule's message, a default's), so they
//! are first looked up by where those texts are ([`Place`]): a few words to hash and compare
//! instead of the texts themselves. The engine outlives its table and never changes, so the
//! same place always holds the same texts.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::Mutex;
use toolgate::{Decision, Reason};

/// The most shapes one engine numbers.
pub const MAX_SHAPES: usize = 4096;

/// The numbered shapes of one engine's decisions.
#[derive(Default)]
pub struct Shapes {
    table: Mutex<Table>,
}

#[derive(Default)]
struct Table {
    /// Shape numbers by the hash of their fields (collisions share a list).
    by_hash: HashMap<u64, Vec<u32>, BuildHasherDefault<Fx>>,
    /// Shape numbers by the place of their texts, for decisions borrowing all of them.
    by_place: HashMap<Place, u32, BuildHasherDefault<Fx>>,
    /// The shapes, by number, each a decision without `tool_use_id` and explanation.
    entries: Vec<Decision<'static>>,
}

/// Where a decision's texts are (address and length), when it borrows all of them from the
/// engine: equal places mean equal texts.
#[derive(PartialEq, Eq, Hash)]
struct Place {
    reason: Reason,
    message: (usize, usize),
    permission: (usize, usize),
    argument: (usize, usize),
    rule: usize,
    policy_hash: (usize, usize),
}

impl Place {
    /// The place of `d`'s texts; `None` when it owns one of them.
    fn of(d: &Decision<'_>) -> Option<Place> {
        #[allow(
            clippy::ptr_arg,
            reason = "whether the text is borrowed is what is asked, not only its content"
        )]
        fn text(t: &Cow<'_, str>) -> Option<(usize, usize)> {
            match t {
                Cow::Borrowed(s) => Some((s.as_ptr() as usize, s.len())),
                Cow::Owned(_) => None,
            }
        }
        fn optional(t: &Option<Cow<'_, str>>) -> Option<(usize, usize)> {
            t.as_ref().map_or(Some((0, 0)), text)
        }
        Some(Place {
            reason: d.reason,
            message: text(&d.message)?,
            permission: optional(&d.permission)?,
            argument: optional(&d.argument)?,
            rule: match &d.rule {
                None => 0,
                Some(Cow::Borrowed(r)) => std::ptr::from_ref(*r) as usize,
                Some(Cow::Owned(_)) => return None,
            },
            policy_hash: text(&d.policy_hash)?,
        })
    }
}

impl Shapes {
    /// The number of `d`'s shape, numbered now when it is new; `None` when it is new and the
    /// table is full (or its lock was poisoned).
    pub fn number(&self, d: &Decision<'_>) -> Option<u32> {
        let place = Place::of(d);
        let mut table = self.table.lock().ok()?;
        if let Some(&n) = place.as_ref().and_then(|p| table.by_place.get(p)) {
            return Some(n);
        }
        let n = table.number_by_fields(d)?;
        if let Some(p) = place {
            if table.by_place.len() < MAX_SHAPES {
                table.by_place.insert(p, n);
            }
        }
        Some(n)
    }

    /// Shape `n`, as a decision with no `tool_use_id`; `None` for a number never given.
    pub fn get(&self, n: u32) -> Option<Decision<'static>> {
        let table = self.table.lock().ok()?;
        table.entries.get(n as usize).cloned()
    }
}

impl Table {
    /// The number of `d`'s shape found by its fields, numbered now when it is new; `None` when
    /// it is new and the table is full.
    fn number_by_fields(&mut self, d: &Decision<'_>) -> Option<u32> {
        let mut h = Fx::default();
        hash_shape(d, &mut h);
        let key = h.finish();
        if let Some(found) = self.by_hash.get(&key).and_then(|numbers| {
            numbers
                .iter()
                .copied()
                .find(|&n| same_shape(&self.entries[n as usize], d))
        }) {
            return Some(found);
        }
        if self.entries.len() >= MAX_SHAPES {
            return None;
        }
        let n = self.entries.len() as u32;
        let mut entry = d.clone().into_owned();
        entry.tool_use_id = None;
        entry.explanation = None;
        self.entries.push(entry);
        self.by_hash.entry(key).or_default().push(n);
        Some(n)
    }
}

/// Feeds the fields that make a shape into `h`.
fn hash_shape(d: &Decision<'_>, h: &mut Fx) {
    d.decision.as_str().hash(h);
    d.reason.as_str().hash(h);
    d.permission.as_deref().hash(h);
    d.argument.as_deref().hash(h);
    d.message.hash(h);
    if let Some(r) = d.rule.as_deref() {
        r.line.hash(h);
        r.column.hash(h);
        r.file.hash(h);
        r.target.hash(h);
        r.agent.hash(h);
    }
}

/// Whether `d` has the shape `entry` (all but `tool_use_id` and explanation are equal).
fn same_shape(entry: &Decision<'_>, d: &Decision<'_>) -> bool {
    entry.decision == d.decision
        && entry.reason == d.reason
        && entry.permission == d.permission
        && entry.argument == d.argument
        && entry.message == d.message
        && entry.rule == d.rule
        && entry.policy_hash == d.policy_hash
}

/// A fast, non-cryptographic hasher (the Fx hash of rustc): shapes are the engine's own
/// decisions, hashed on every call, so speed matters more than resistance to chosen input,
/// and collisions are resolved by comparing fields.
#[derive(Default, Clone, Copy)]
struct Fx(u64);

impl Fx {
    const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Fx::K);
    }
}

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> toolgate::Engine {
        toolgate::load::engine_from_str(
            "t.policy",
            "tool t(p?)\nagent a {\n  allow t where p == \"x\"\n  deny t where p == \"y\"\n}\n",
        )
        .unwrap()
    }

    #[test]
    fn equal_shapes_share_a_number_and_ids_do_not_count() {
        let e = engine();
        let shapes = Shapes::default();
        let allow = toolgate::Request::from_json(
            r#"{"agent":"a","tool":"t","args":{"p":"x"},"tool_use_id":"1"}"#,
        )
        .unwrap();
        let allow2 =
            toolgate::Request::from_json(r#"{"agent":"a","tool":"t","args":{"p":"x"}}"#).unwrap();
        let deny =
            toolgate::Request::from_json(r#"{"agent":"a","tool":"t","args":{"p":"y"}}"#).unwrap();
        let a = shapes.number(&e.decide(&allow)).unwrap();
        assert_eq!(shapes.number(&e.decide(&allow2)), Some(a));
        let d = shapes.number(&e.decide(&deny)).unwrap();
        assert_ne!(a, d);
        let got = shapes.get(d).unwrap();
        let mut want = e.decide(&deny).into_owned();
        want.tool_use_id = None;
        assert_eq!(got, want);
        assert_eq!(shapes.get(a).unwrap().tool_use_id, None);
        assert!(shapes.get(d + 1).is_none());
    }

    #[test]
    fn borrowed_and_owned_texts_of_one_shape_share_its_number() {
        let e = engine();
        let shapes = Shapes::default();
        let req =
            toolgate::Request::from_json(r#"{"agent":"a","tool":"t","args":{"p":"y"}}"#).unwrap();
        let borrowed = e.decide(&req);
        assert!(Place::of(&borrowed).is_some());
        let owned = borrowed.clone().into_owned();
        assert!(Place::of(&owned).is_none());
        // Numbered by its fields first, then found by its texts' place, and the other way.
        let n = shapes.number(&owned).unwrap();
        assert_eq!(shapes.number(&borrowed), Some(n));
        assert_eq!(shapes.number(&borrowed), Some(n));
        let other = toolgate::Request::new("a", "t");
        let m = shapes.number(&e.decide(&other)).unwrap();
        assert_ne!(m, n);
        assert_eq!(shapes.number(&e.decide(&other).into_owned()), Some(m));
        assert_eq!(shapes.get(n).unwrap().message, borrowed.message);
    }

    #[test]
    fn the_table_stops_at_its_limit() {
        let e = engine();
        let shapes = Shapes::default();
        for i in 0..MAX_SHAPES {
            let req = toolgate::Request::new("a", format!("u{i}"));
            assert_eq!(shapes.number(&e.decide(&req)), Some(i as u32));
        }
        let again = toolgate::Request::new("a", "u7");
        assert_eq!(shapes.number(&e.decide(&again)), Some(7));
        let new = toolgate::Request::new("a", "unseen");
        assert_eq!(shapes.number(&e.decide(&new)), None);
    }
}
