//! Many `shell` patterns on one argument, matched in one pass over the parsed words.
//!
//! A compiler builds a [`PatternSet`] once per argument (allow and deny patterns alike); the
//! engine asks it once per value: [`PatternSet::allow_matches`] reads the value strictly and
//! returns the patterns it satisfies, [`PatternSet::deny_matches`] reads it generously and
//! returns the patterns any of its commands satisfies, plus whether something was unreadable
//! (then every deny fires). Patterns are indexed by their program word, so a value is compared
//! only with the patterns that name its program (and those whose program is a glob).

use std::cell::RefCell;

use super::names::NameTable;
use super::parser;
use super::pattern::Pattern;
use super::unreadable::Unreadable;
use super::words::{Command, CommandView, Word};
use super::wrappers::{self, basename, Wrapper, WRAPPERS};

/// The index of a pattern in its set, in the order added.
pub type PatternId = usize;

/// A set of pattern ids (the first 64 held inline, so a set of up to 64 patterns answers
/// without allocating).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Matches {
    /// Ids `0..64`.
    first: u64,
    /// Ids `64..`, 64 per word; no longer than the highest id inserted needs.
    more: Vec<u64>,
}

impl Matches {
    fn insert(&mut self, id: PatternId) {
        let (w, b) = (id / 64, id % 64);
        if w == 0 {
            self.first |= 1 << b;
            return;
        }
        if self.more.len() < w {
            self.more.resize(w, 0);
        }
        if let Some(word) = self.more.get_mut(w - 1) {
            *word |= 1 << b;
        }
    }

    /// Whether `id` is in the set.
    pub fn contains(&self, id: PatternId) -> bool {
        let (w, b) = (id / 64, id % 64);
        let word = if w == 0 {
            self.first
        } else {
            self.more.get(w - 1).copied().unwrap_or(0)
        };
        word & (1 << b) != 0
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.first == 0 && self.more.iter().all(|w| *w == 0)
    }

    /// The ids, ascending.
    pub fn iter(&self) -> impl Iterator<Item = PatternId> + '_ {
        std::iter::once(self.first)
            .chain(self.more.iter().copied())
            .enumerate()
            .flat_map(|(i, w)| {
                let mut bits = w;
                std::iter::from_fn(move || {
                    if bits == 0 {
                        return None;
                    }
                    let b = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    Some(i * 64 + b)
                })
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

/// The parsers' buffers, kept per thread so that reading a value allocates only when it needs
/// more room than every value before it.
struct Buffers {
    strict: Command,
    generous: parser::Buffers,
}

impl Buffers {
    const fn new() -> Self {
        Buffers {
            strict: Command::new(),
            generous: parser::Buffers::new(),
        }
    }
}

thread_local! {
    static BUFFERS: RefCell<Buffers> = const { RefCell::new(Buffers::new()) };
}

/// Values longer than this are read in buffers of their own, dropped after (so a thread does
/// not keep the room one huge value needed).
const KEEP_BUFFERS_UP_TO: usize = 64 * 1024;

/// Runs `f` with this thread's buffers (fresh ones while they are in use, or for a long
/// `value`).
fn with_buffers<T>(value: &str, mut f: impl FnMut(&mut Buffers) -> T) -> T {
    if value.len() <= KEEP_BUFFERS_UP_TO {
        let kept = BUFFERS.try_with(|cell| cell.try_borrow_mut().ok().map(|mut b| f(&mut b)));
        if let Ok(Some(out)) = kept {
            return out;
        }
    }
    f(&mut Buffers::new())
}

/// A deny reading's sink: the patterns the commands seen match.
struct DenySink<'a> {
    set: &'a PatternSet,
    matches: Matches,
}

impl parser::Sink for DenySink<'_> {
    #[inline]
    fn command(&mut self, cmd: CommandView<'_>) {
        self.set.deny_view(cmd, &mut self.matches)
    }

    #[inline]
    fn command_named(&mut self, cmd: CommandView<'_>, base: &str) -> Option<&'static Wrapper> {
        self.set.deny_named(cmd, base, &mut self.matches)
    }

    #[inline]
    fn wants(&self, base: &str) -> bool {
        self.set.may_deny(base)
    }

    #[inline(always)]
    fn keeps(&self, base: &str) -> bool {
        let names = &self.set.bases;
        if names.is_empty() {
            return wrappers::find_base(base).is_some() || self.wants(base);
        }
        names.get(base).is_some() || self.set.may_glob(base) || wrappers::family(base).is_some()
    }
}

/// Patterns on one argument, indexed by program.
#[derive(Clone, Debug, Default)]
pub struct PatternSet {
    patterns: Vec<Pattern>,
    /// Allow: exact program words as written; `by_program[i]` are the patterns naming program
    /// `i`.
    programs: NameTable,
    by_program: Vec<Vec<PatternId>>,
    /// Deny: the wrappers' names (indexed as in [`WRAPPERS`]), then the exact program last
    /// components, likewise (so one lookup says whether a command's words must be kept, which
    /// patterns may match it and which wrapper it is); empty while the set is.
    bases: NameTable,
    by_base: Vec<Vec<PatternId>>,
    /// Patterns whose program word is a glob, with the literal text it starts with.
    glob_program: Vec<(String, PatternId)>,
    glob_base: Vec<(String, PatternId)>,
    /// The first bytes of the `glob_base` prefixes, one bit each (all set when a prefix is
    /// empty): a base outside them is matched by no glob.
    glob_base_first: [u64; 4],
}

/// Sets the bit of `byte` in a 256-bit set.
fn set_bit(bits: &mut [u64; 4], byte: u8) {
    if let Some(word) = bits.get_mut(usize::from(byte / 64)) {
        *word |= 1 << (byte % 64);
    }
}

/// Whether the bit of `byte` is set.
fn has_bit(bits: &[u64; 4], byte: u8) -> bool {
    bits.get(usize::from(byte / 64))
        .is_some_and(|w| w & (1 << (byte % 64)) != 0)
}

/// Records that pattern `id` names `name`, in a table of names and the ids per name.
fn index_under(names: &mut NameTable, ids: &mut Vec<Vec<PatternId>>, name: &str, id: PatternId) {
    let i = names.insert(name);
    match ids.get_mut(i) {
        Some(list) => list.push(id),
        None => ids.push(vec![id]),
    }
}

/// The ids of the patterns naming `name` ([`index_under`]'s tables).
#[inline]
fn ids_of<'a>(names: &NameTable, ids: &'a [Vec<PatternId>], name: &str) -> &'a [PatternId] {
    names
        .get(name)
        .and_then(|i| ids.get(i))
        .map_or(&[], Vec::as_slice)
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
            Some(p) => index_under(&mut self.programs, &mut self.by_program, p, id),
            None => self.glob_program.push((pattern.program_prefix(false), id)),
        }
        if self.bases.is_empty() {
            for w in WRAPPERS {
                self.bases.insert(w.name);
                self.by_base.push(Vec::new());
            }
        }
        match pattern.program_base() {
            Some(p) => index_under(&mut self.bases, &mut self.by_base, p, id),
            None => {
                let prefix = pattern.program_prefix(true);
                match prefix.as_bytes().first() {
                    Some(&b) => set_bit(&mut self.glob_base_first, b),
                    None => self.glob_base_first = [u64::MAX; 4],
                }
                self.glob_base.push((prefix, id))
            }
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
        with_buffers(value, |b| {
            parser::strict_into(value, &mut b.strict, &mut b.generous)?;
            Ok(self.allow_matches_command(&b.strict))
        })
    }

    /// [`PatternSet::allow_matches`] for an already parsed command.
    pub fn allow_matches_command(&self, cmd: &Command) -> Matches {
        let mut m = Matches::default();
        let Some(Word::Literal(program)) = cmd.get(0) else {
            return m;
        };
        let exact = ids_of(&self.programs, &self.by_program, program);
        let globs = self
            .glob_program
            .iter()
            .filter(|(prefix, _)| program.starts_with(prefix.as_str()))
            .map(|(_, id)| id);
        for &id in exact.iter().chain(globs) {
            if self.patterns.get(id).is_some_and(|p| p.matches(cmd, false)) {
                m.insert(id);
            }
        }
        m
    }

    /// The patterns some command of `value` matches as a deny (generous reading), and whether
    /// anything was unreadable (then every deny fires).
    pub fn deny_matches(&self, value: &str) -> DenyMatches {
        with_buffers(value, |b| {
            let mut sink = DenySink {
                set: self,
                matches: Matches::default(),
            };
            let unreadable = parser::generous_into(value, &mut b.generous, &mut sink).err();
            let matches = sink.matches;
            DenyMatches {
                matches,
                unreadable,
            }
        })
    }

    /// Whether some deny pattern may match a command whose program's last path component is
    /// `base` (false: [`PatternSet::deny_view`] adds nothing for any such command).
    fn may_deny(&self, base: &str) -> bool {
        !ids_of(&self.bases, &self.by_base, base).is_empty() || self.may_glob(base)
    }

    /// Whether some pattern whose program is a glob may match `base` (its first byte is that
    /// of some glob's literal prefix).
    #[inline]
    fn may_glob(&self, base: &str) -> bool {
        match base.as_bytes().first() {
            Some(&b) => has_bit(&self.glob_base_first, b),
            None => !self.glob_base.is_empty(),
        }
    }

    /// Adds the deny patterns one command matches to `m`.
    pub fn deny_command(&self, cmd: &Command, m: &mut Matches) {
        self.deny_view(cmd.view(), m)
    }

    /// [`PatternSet::deny_command`] for a view of a command's words.
    pub fn deny_view(&self, cmd: CommandView<'_>, m: &mut Matches) {
        match cmd.get(0) {
            Some(Word::Literal(program)) => {
                self.deny_named(cmd, basename(program), m);
            }
            // A run-time program could be anything.
            Some(Word::Unknown { .. }) => {
                for id in 0..self.patterns.len() {
                    m.insert(id);
                }
            }
            None => {}
        }
    }

    /// [`PatternSet::deny_view`] for a command whose program is a known word with the last
    /// path component `base`.
    /// Returns the wrapper named `base`, if any.
    #[inline]
    fn deny_named(
        &self,
        cmd: CommandView<'_>,
        base: &str,
        m: &mut Matches,
    ) -> Option<&'static Wrapper> {
        let index = self.bases.get(base);
        let wrapper = if self.bases.is_empty() {
            wrappers::find_base(base)
        } else {
            index
                .and_then(|i| WRAPPERS.get(i))
                .or_else(|| wrappers::family(base))
        };
        let candidates = index
            .and_then(|i| self.by_base.get(i))
            .map_or(&[][..], Vec::as_slice);
        let may_glob = self.may_glob(base);
        if candidates.is_empty() && !may_glob {
            // Most programs are named by no pattern.
            return wrapper;
        }
        let globs = self
            .glob_base
            .iter()
            .filter(|(prefix, _)| may_glob && base.starts_with(prefix.as_str()))
            .map(|(_, id)| id);
        for &id in candidates.iter().chain(globs) {
            if !m.contains(id)
                && self
                    .patterns
                    .get(id)
                    .is_some_and(|p| p.matches_view(cmd, true))
            {
                m.insert(id);
            }
        }
        wrapper
    }
}
