//! Many `shell` patterns on one argument, matched in one pass over the parsed words.
//!
//! A compiler builds a [`PatternSet`] once per argument (allow and deny patterns alike); the
//! engine asks it once per value: [`PatternSet::allow_matches`] reads the value strictly and
//! returns the patterns it satisfies, [`PatternSet::deny_matches`] reads it generously and
//! returns the patterns any of its commands satisfies, plus whether something was unreadable
//! (then every deny fires). Patterns are indexed by their program word, so a value is compared
//! only with the patterns that name its program (and those whose program is a glob).

use rustc_hash::FxHashMap;

use super::parser;
use super::pattern::Pattern;
use super::unreadable::Unreadable;
use super::words::{Command, Word};
use super::wrappers::basename;

/// The index of a pattern in its set, in the order added.
pub type PatternId = usize;

/// A set of pattern ids.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Matches {
    bits: Vec<u64>,
}

impl Matches {
    fn insert(&mut self, id: PatternId) {
        let (w, b) = (id / 64, id % 64);
        if self.bits.len() <= w {
            self.bits.resize(w + 1, 0);
        }
        self.bits[w] |= 1 << b;
    }

    /// Whether `id` is in the set.
    pub fn contains(&self, id: PatternId) -> bool {
        self.bits
            .get(id / 64)
            .is_some_and(|w| w & (1 << (id % 64)) != 0)
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.bits.iter().all(|w| *w == 0)
    }

    /// The ids, ascending.
    pub fn iter(&self) -> impl Iterator<Item = PatternId> + '_ {
        self.bits.iter().enumerate().flat_map(|(i, &w)| {
            (0..64)
                .filter(move |b| w & (1 << b) != 0)
                .map(move |b| i * 64 + b)
        })
    }
}

/// What a deny reading found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DenyMatches {
    /// The patterns some visible command matches.
    pub matches: Matches,
    /// The first construct that could not be read: when set, every deny pattern fires.
    pub unreadable: Option<Unreadable>,
}

impl DenyMatches {
    /// Whether the deny pattern `id` fires (it matched, or the value was unreadable).
    pub fn fires(&self, id: PatternId) -> bool {
        self.unreadable.is_some() || self.matches.contains(id)
    }
}

/// Patterns on one argument, indexed by program.
#[derive(Clone, Debug, Default)]
pub struct PatternSet {
    patterns: Vec<Pattern>,
    /// Allow: exact program word as written.
    by_program: FxHashMap<String, Vec<PatternId>>,
    /// Deny: exact program last component.
    by_base: FxHashMap<String, Vec<PatternId>>,
    /// Patterns whose program word is a glob.
    glob_program: Vec<PatternId>,
    glob_base: Vec<PatternId>,
}

impl PatternSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a pattern; returns its id.
    pub fn add(&mut self, pattern: Pattern) -> PatternId {
        let id = self.patterns.len();
        match pattern.program() {
            Some(p) => self.by_program.entry(p.to_string()).or_default().push(id),
            None => self.glob_program.push(id),
        }
        match pattern.program_base() {
            Some(p) => self.by_base.entry(p.to_string()).or_default().push(id),
            None => self.glob_base.push(id),
        }
        self.patterns.push(pattern);
        id
    }

    /// The number of patterns.
    pub fn len(&self) -> usize {
        self.patterns.len()
    }

    /// Whether the set has no pattern.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// The pattern with id `id`.
    pub fn get(&self, id: PatternId) -> Option<&Pattern> {
        self.patterns.get(id)
    }

    /// The patterns `value` satisfies as an allow: the value must be exactly one simple
    /// command of known words, matched as written. An unreadable value satisfies none.
    pub fn allow_matches(&self, value: &str) -> Result<Matches, Unreadable> {
        let cmd = parser::strict(value)?;
        Ok(self.allow_matches_command(&cmd))
    }

    /// [`PatternSet::allow_matches`] for an already parsed command.
    pub fn allow_matches_command(&self, cmd: &Command) -> Matches {
        let mut m = Matches::default();
        let Some(Word::Literal(program)) = cmd.get(0) else {
            return m;
        };
        let exact = self
            .by_program
            .get(program)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        for &id in exact.iter().chain(&self.glob_program) {
            if self.patterns[id].matches(cmd, false) {
                m.insert(id);
            }
        }
        m
    }

    /// The patterns some command of `value` matches as a deny (generous reading), and whether
    /// anything was unreadable (then every deny fires).
    pub fn deny_matches(&self, value: &str) -> DenyMatches {
        let g = parser::generous(value);
        let mut out = DenyMatches {
            matches: Matches::default(),
            unreadable: g.unreadable,
        };
        for cmd in &g.commands {
            self.deny_command(cmd, &mut out.matches);
        }
        out
    }

    /// Adds the deny patterns one command matches to `m`.
    pub fn deny_command(&self, cmd: &Command, m: &mut Matches) {
        let candidates: &[PatternId] = match cmd.get(0) {
            Some(Word::Literal(program)) => self
                .by_base
                .get(basename(program))
                .map(Vec::as_slice)
                .unwrap_or(&[]),
            // A run-time program could be anything.
            Some(Word::Unknown { .. }) => {
                for id in 0..self.patterns.len() {
                    m.insert(id);
                }
                return;
            }
            None => return,
        };
        for &id in candidates.iter().chain(&self.glob_base) {
            if !m.contains(id) && self.patterns[id].matches(cmd, true) {
                m.insert(id);
            }
        }
    }
}
