//! A compact transition table for a few substring needles (up to 64), copied out of the
//! aho-corasick automaton so that a pass over a value is one table lookup per byte with
//! nothing else in the loop: the needles found are collected as bits of a word.
//!
//! States are renumbered so that every state where some needle ends comes first: a single
//! comparison tells whether the state just entered names needles. Bytes that no state tells
//! apart share a class, which keeps the table small.

use aho_corasick::automaton::Automaton;
use aho_corasick::Anchored;
use std::collections::HashMap;

/// The most table entries (states times byte classes) a needle table may have; above, the
/// aho-corasick automaton is walked directly instead.
const MAX_ENTRIES: usize = 1 << 16;

/// The most needle bytes a table is built for (the automaton has at most one state per byte,
/// plus the start), which also bounds the work of building it.
const MAX_NEEDLE_BYTES: usize = 1024;

/// A dense DFA over byte classes for up to 64 needles.
#[derive(Debug, Clone)]
pub struct NeedleTable {
    /// Byte to class.
    classes: [u8; 256],
    /// `log2` of the row width (the number of classes rounded up to a power of two).
    shift: u32,
    /// Row `s << shift`, column `class`: the next state, premultiplied by the row width.
    trans: Vec<u32>,
    /// States below this (premultiplied) name needles.
    match_limit: u32,
    /// Per match state: the needles that end there, as bits.
    names: Vec<u64>,
    /// The start state (premultiplied).
    start: u32,
    /// Every needle's bit.
    all: u64,
}

impl NeedleTable {
    /// Copies the automaton of `needles` (pattern `i` is `needles[i]`) into a table; `None`
    /// when there are more than 64 needles or [`MAX_NEEDLE_BYTES`], the automaton has no
    /// unanchored start, or the table would be too large.
    pub fn new<A: Automaton>(aut: &A, needles: &[String]) -> Option<NeedleTable> {
        let n_needles = needles.len();
        let bytes: usize = needles.iter().map(String::len).sum();
        if n_needles == 0 || n_needles > 64 || bytes > MAX_NEEDLE_BYTES {
            return None;
        }
        let start = aut.start_state(Anchored::No).ok()?;
        // Every reachable state, breadth first, with its successor for each byte.
        let mut index: HashMap<usize, usize> = HashMap::from([(start.as_usize(), 0)]);
        let mut states = vec![start];
        let mut next: Vec<[usize; 256]> = Vec::new();
        let mut i = 0;
        while let Some(&sid) = states.get(i) {
            let mut row = [0usize; 256];
            for (byte, slot) in row.iter_mut().enumerate() {
                let to = aut.next_state(Anchored::No, sid, byte as u8);
                let fresh = index.len();
                *slot = *index.entry(to.as_usize()).or_insert(fresh);
                if *slot == fresh {
                    states.push(to);
                }
            }
            next.push(row);
            if states.len() > MAX_ENTRIES {
                return None;
            }
            i += 1;
        }
        // Bytes no state tells apart share a class.
        let mut classes = [0u8; 256];
        let mut columns: HashMap<Vec<usize>, u8> = HashMap::new();
        for byte in 0..256 {
            let column: Vec<usize> = next.iter().map(|row| row[byte]).collect();
            let fresh = columns.len();
            classes[byte] = *columns.entry(column).or_insert(fresh as u8);
        }
        let n_classes = columns.len();
        let width = n_classes.next_power_of_two();
        let shift = width.trailing_zeros();
        if states.len().checked_mul(width)? > MAX_ENTRIES {
            return None;
        }
        // Match states first.
        let names_of = |sid| {
            (0..aut.match_len(sid)).fold(0u64, |m, k| {
                m | 1u64
                    .checked_shl(aut.match_pattern(sid, k).as_u32())
                    .unwrap_or(0)
            })
        };
        let mut order: Vec<usize> = (0..states.len()).collect();
        order.sort_by_key(|&s| !aut.is_match(states[s]));
        let mut renumber = vec![0u32; states.len()];
        for (new, &old) in order.iter().enumerate() {
            renumber[old] = u32::try_from(new).ok()?.checked_shl(shift)?;
        }
        let n_match = order.iter().filter(|&&s| aut.is_match(states[s])).count();
        let mut trans = vec![0u32; states.len() * width];
        let mut names = Vec::with_capacity(n_match);
        for (new, &old) in order.iter().enumerate() {
            for byte in 0..256 {
                trans[(new << shift) + classes[byte] as usize] = renumber[next[old][byte]];
            }
            if new < n_match {
                names.push(names_of(states[old]));
            }
        }
        Some(NeedleTable {
            classes,
            shift,
            trans,
            match_limit: u32::try_from(n_match).ok()?.checked_shl(shift)?,
            names,
            start: renumber[0],
            all: u64::MAX >> (64 - n_needles),
        })
    }

    /// The needles found in `hay`, as bits (needle `i` is bit `i`).
    #[inline]
    pub fn find(&self, hay: &[u8]) -> u64 {
        let (classes, trans, limit) = (&self.classes, self.trans.as_slice(), self.match_limit);
        let mut s = self.start;
        let mut found = self.names_at(s);
        for &byte in hay {
            let Some(&next) = trans.get(s as usize + classes[byte as usize] as usize) else {
                break;
            };
            s = next;
            if s < limit {
                found |= self.names_at(s);
                if found == self.all {
                    break;
                }
            }
        }
        found
    }

    #[inline]
    fn names_at(&self, s: u32) -> u64 {
        if s < self.match_limit {
            self.names
                .get((s >> self.shift) as usize)
                .copied()
                .unwrap_or(0)
        } else {
            0
        }
    }
}
