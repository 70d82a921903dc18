//! argv patterns: `"git log ..."`, `"npm run test"`, `"ls -l? ..."`, `"rm -{r,f} ..."`.
//!
//! A pattern is a list of words split on blanks, with shell quoting (`'a b'`, `"a b"`, `\ `)
//! for words that hold blanks or glob characters literally. Unquoted, a word is a glob over one
//! word (`*`, `?`, `[...]`); `...` (or `**`) as the last word matches any number of remaining
//! words; `-{a,b}` matches the options of the remaining words when they include the flags `a`
//! and `b` in any spelling (`-={a,b}`: exactly those flags); the other words then match the
//! operands. See docs/language.md, section 10a.

use std::fmt;
use std::ops::Range;

use super::glob::{Glob, Piece};
use super::options::{self, Flag};
use super::words::{Command, CommandView, Word};
use super::wrappers::basename;

/// The most words a pattern may have.
pub const MAX_WORDS: usize = 63;

/// A pattern that does not parse: a message and the byte range in the pattern text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternError {
    /// What is wrong (lowercase).
    pub message: String,
    /// Where, as a byte range into the pattern.
    pub span: Range<usize>,
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (bytes {}..{})",
            self.message, self.span.start, self.span.end
        )
    }
}

impl std::error::Error for PatternError {}

/// A flag set element: `-{r,f}` or `-={r,f}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlagSet {
    /// The word index where options start (the words before it match positionally).
    pub at: usize,
    /// The flags, as written (one letter: a short flag; longer: a long option name).
    pub flags: Vec<String>,
    /// `-={...}`: no other options may appear.
    pub exact: bool,
}

/// A compiled argv pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    text: String,
    words: Vec<Glob>,
    /// The program glob compared by last path component (deny).
    program_base: Glob,
    flags: Option<FlagSet>,
    rest: bool,
}

enum Token {
    Word(Glob),
    Rest,
    Flags(Vec<String>, bool),
}

fn err<T>(message: impl Into<String>, span: Range<usize>) -> Result<T, PatternError> {
    Err(PatternError {
        message: message.into(),
        span,
    })
}

impl Pattern {
    /// Parses a pattern.
    pub fn parse(text: &str) -> Result<Pattern, PatternError> {
        let tokens = tokenize(text)?;
        let mut words = Vec::new();
        let mut flags: Option<FlagSet> = None;
        let mut rest = false;
        for (i, (tok, span)) in tokens.iter().enumerate() {
            if rest {
                return err(
                    "`...` must be the last word of a shell pattern",
                    span.clone(),
                );
            }
            match tok {
                Token::Rest => {
                    if i == 0 {
                        return err("a shell pattern starts with the program", span.clone());
                    }
                    rest = true;
                }
                Token::Flags(list, exact) => {
                    if i == 0 {
                        return err(
                            "a shell pattern starts with the program, not a flag set",
                            span.clone(),
                        );
                    }
                    if flags.is_some() {
                        return err("a shell pattern has at most one flag set", span.clone());
                    }
                    flags = Some(FlagSet {
                        at: words.len(),
                        flags: list.clone(),
                        exact: *exact,
                    });
                }
                Token::Word(g) => {
                    if words.len() == MAX_WORDS {
                        return err(
                            format!("a shell pattern has at most {MAX_WORDS} words"),
                            span.clone(),
                        );
                    }
                    words.push(g.clone());
                }
            }
        }
        let Some(first) = words.first() else {
            return err("a shell pattern names at least a program", 0..text.len());
        };
        Ok(Pattern {
            text: text.to_string(),
            program_base: first.basename(),
            words,
            flags,
            rest,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The program word, if it is exact (for indexing).
    pub fn program(&self) -> Option<&str> {
        self.words.first().and_then(Glob::exact)
    }

    /// The argument words that are globs holding a `/` (`/srv/*`), written out: an allow
    /// compares them as written, so they admit `..` (lint `shell_glob_path`).
    pub fn path_globs(&self) -> impl Iterator<Item = String> + '_ {
        self.words.iter().skip(1).filter_map(|w| {
            let Glob::Pieces(pieces) = w else {
                return None;
            };
            let slash = pieces.iter().any(|p| matches!(p, Piece::Char('/')));
            let wild = pieces.iter().any(|p| !matches!(p, Piece::Char(_)));
            (slash && wild).then(|| {
                let mut text = String::new();
                for p in pieces {
                    match p {
                        Piece::Char(c) => text.push(*c),
                        Piece::One => text.push('?'),
                        Piece::Star => text.push('*'),
                        Piece::Class { .. } => text.push_str("[...]"),
                    }
                }
                text
            })
        })
    }

    /// The program's last path component, if exact (for indexing denies).
    pub fn program_base(&self) -> Option<&str> {
        self.program_base.exact()
    }

    /// The literal text every program word this pattern matches starts with (allow: as
    /// written; deny: its last path component), for rejecting a command before matching.
    pub(crate) fn program_prefix(&self, deny: bool) -> String {
        let glob = if deny {
            Some(&self.program_base)
        } else {
            self.words.first()
        };
        match glob {
            Some(Glob::Exact(s)) => s.clone(),
            Some(Glob::Pieces(pieces)) => pieces
                .iter()
                .map_while(|p| match p {
                    Piece::Char(c) => Some(*c),
                    _ => None,
                })
                .collect(),
            Some(Glob::Any) | None => String::new(),
        }
    }

    /// Whether `cmd` matches. `deny` selects the generous semantics: the program compares by
    /// last path component, and a run-time word may stand for anything (the match is possible).
    pub fn matches(&self, cmd: &Command, deny: bool) -> bool {
        self.matches_view(cmd.view(), deny)
    }

    /// [`Pattern::matches`] for a view of a command's words.
    pub fn matches_view(&self, cmd: CommandView<'_>, deny: bool) -> bool {
        if self.second_word_differs(cmd) {
            return false;
        }
        let Some(fs) = &self.flags else {
            return self.sequence(0, cmd.words().map(item), deny);
        };
        // The words before the flag set, one by one.
        let n = cmd.len();
        for i in 0..fs.at {
            match cmd.get(i) {
                None => return false,
                Some(Word::Literal(s)) => {
                    if !self.word_matches(i, s, deny) {
                        return false;
                    }
                }
                Some(Word::Unknown { fields: false }) => {}
                Some(Word::Unknown { fields: true }) => return deny,
            }
        }
        let table = options::for_command(cmd);
        let region = (fs.at..n).filter_map(|i| cmd.get(i));
        // Split the rest into options and operands (`--` ends the options).
        let mut unknown = false;
        let mut ddash = false;
        let options = region.clone().filter_map(move |w| match w {
            Word::Literal("--") if !ddash => {
                ddash = true;
                None
            }
            Word::Literal(s) if !ddash && s.len() > 1 && s.starts_with('-') => Some(s),
            _ => None,
        });
        for w in region.clone() {
            if let Word::Unknown { .. } = w {
                unknown = true;
                break;
            }
        }
        let want = |f| wanted(table, f);
        if !unknown {
            for w in &fs.flags {
                let w = want(w);
                let present = options
                    .clone()
                    .any(|o| !options::each_flag(table, o, |f| f != w));
                if !present {
                    return false;
                }
            }
            if fs.exact {
                let extra = options.clone().any(|o| {
                    !options::each_flag(table, o, |f| fs.flags.iter().any(|w| want(w) == f))
                });
                if extra {
                    return false;
                }
            }
        }
        let mut ddash = false;
        let operands = region.filter_map(move |w| match w {
            Word::Literal("--") if !ddash => {
                ddash = true;
                None
            }
            Word::Literal(s) if !ddash && s.len() > 1 && s.starts_with('-') => None,
            other => Some(item(other)),
        });
        self.sequence(fs.at, operands, deny)
    }

    /// Whether the command's second word is known, the pattern's is an exact word and they
    /// differ, the program word being known and the second word not in a flag set's region:
    /// then the command does not match (most patterns of a program differ by their
    /// subcommand, so this refuses them with one comparison).
    #[inline]
    fn second_word_differs(&self, cmd: CommandView<'_>) -> bool {
        let Some(Glob::Exact(want)) = self.words.get(1) else {
            return false;
        };
        if self.flags.as_ref().is_some_and(|fs| fs.at < 2) {
            return false;
        }
        match (cmd.get(0), cmd.get(1)) {
            (Some(Word::Literal(_)), Some(Word::Literal(second))) => second != want,
            _ => false,
        }
    }

    fn word_matches(&self, i: usize, s: &str, deny: bool) -> bool {
        if i == 0 && deny {
            return self.program_base.matches(basename(s));
        }
        self.words.get(i).is_some_and(|g| g.matches(s))
    }

    /// Matches `items` against the globs from `from` on (then `...`), as a set of positions.
    fn sequence<'a>(&self, from: usize, items: impl Iterator<Item = Item<'a>>, deny: bool) -> bool {
        let n = self.words.len() - from;
        let accept = 1u64 << n;
        let upto = accept | (accept - 1);
        let mut states: u64 = 1;
        for it in items {
            let next = match it {
                Item::Lit(s) => {
                    let mut next = 0;
                    let mut bits = states;
                    while bits != 0 {
                        let k = bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        if k < n {
                            if self.word_matches(from + k, s, deny) {
                                next |= 1 << (k + 1);
                            }
                        } else if self.rest {
                            next |= accept;
                        }
                    }
                    next
                }
                Item::One => {
                    let mut next = (states << 1) & upto;
                    if self.rest && states & accept != 0 {
                        next |= accept;
                    }
                    next
                }
                Item::Many => {
                    if states == 0 {
                        0
                    } else {
                        let low = states.trailing_zeros();
                        upto & !((1u64 << low) - 1)
                    }
                }
            };
            states = next;
            if states == 0 {
                return false;
            }
            if self.rest && states & accept != 0 {
                // Every pattern word is matched and `...` takes whatever follows.
                return true;
            }
        }
        states & accept != 0
    }
}

/// A flag of a flag set in canonical form under `table` (one letter: a short flag).
fn wanted<'a>(table: Option<&'static options::Spellings>, flag: &'a str) -> Flag<'a> {
    let mut chars = flag.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => options::canonical(table, Flag::Short(c)),
        _ => options::canonical(table, Flag::Long(flag)),
    }
}

#[derive(Clone, Copy)]
enum Item<'a> {
    Lit(&'a str),
    One,
    Many,
}

fn item(w: Word<'_>) -> Item<'_> {
    match w {
        Word::Literal(s) => Item::Lit(s),
        Word::Unknown { fields: false } => Item::One,
        Word::Unknown { fields: true } => Item::Many,
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn tokenize(text: &str) -> Result<Vec<(Token, Range<usize>)>, PatternError> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b' ' || c == b'\t' {
            i += 1;
            continue;
        }
        let start = i;
        let end = word_end(b, i);
        let raw = &text[start..end];
        if raw == "..." || raw == "**" {
            out.push((Token::Rest, start..end));
            i = end;
            continue;
        }
        if raw.starts_with("-{") || raw.starts_with("-={") {
            let exact = raw.starts_with("-={");
            let open = start + if exact { 3 } else { 2 };
            let Some(close) = raw.find('}').map(|c| start + c) else {
                return err("unclosed flag set: expected `}`", start..end);
            };
            if close + 1 != end {
                return err("a flag set ends its word", close + 1..end);
            }
            let mut flags = Vec::new();
            let mut at = open;
            for item in text[open..close].split(',') {
                let name = item.trim();
                let span = at..at + item.len();
                at += item.len() + 1;
                if name.is_empty() {
                    if exact && text[open..close].trim().is_empty() {
                        break;
                    }
                    return err("empty flag in a flag set", span);
                }
                let name = name.trim_start_matches('-');
                if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                    return err(
                        format!(
                            "invalid flag `{}`: letters, digits and `-` only",
                            item.trim()
                        ),
                        span,
                    );
                }
                flags.push(name.to_string());
            }
            out.push((Token::Flags(flags, exact), start..end));
            i = end;
            continue;
        }
        let (pieces, next) = word_pieces(text, start)?;
        out.push((Token::Word(Glob::new(pieces)), start..next));
        i = next;
    }
    Ok(out)
}

/// The end of the raw word starting at `i` (quotes skipped over; unclosed ones run to the end).
fn word_end(b: &[u8], mut i: usize) -> usize {
    while let Some(&c) = b.get(i) {
        match c {
            b' ' | b'\t' => break,
            b'\\' => i += 2,
            q @ (b'\'' | b'"') => {
                i += 1;
                while let Some(&c) = b.get(i).filter(|&&c| c != q) {
                    if q == b'"' && c == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    i.min(b.len())
}

fn word_pieces(text: &str, start: usize) -> Result<(Vec<Piece>, usize), PatternError> {
    let mut pieces = Vec::new();
    let mut chars = text[start..]
        .char_indices()
        .map(|(o, c)| (start + o, c))
        .peekable();
    while let Some(&(at, c)) = chars.peek() {
        match c {
            ' ' | '\t' => return Ok((pieces, at)),
            '\\' => {
                chars.next();
                let Some((_, e)) = chars.next() else {
                    return err("a backslash at the end of a shell pattern", at..at + 1);
                };
                pieces.push(Piece::Char(e));
            }
            '\'' | '"' => {
                chars.next();
                let mut closed = false;
                while let Some((_, q)) = chars.next() {
                    if q == c {
                        closed = true;
                        break;
                    }
                    if c == '"' && q == '\\' {
                        if let Some(&(_, e)) = chars.peek() {
                            if matches!(e, '"' | '\\' | '$' | '`') {
                                chars.next();
                                pieces.push(Piece::Char(e));
                                continue;
                            }
                        }
                    }
                    pieces.push(Piece::Char(q));
                }
                if !closed {
                    return err("unclosed quote in a shell pattern", at..text.len());
                }
            }
            '*' => {
                chars.next();
                pieces.push(Piece::Star);
            }
            '?' => {
                chars.next();
                pieces.push(Piece::One);
            }
            '[' => {
                chars.next();
                let mut negated = false;
                if let Some(&(_, '!' | '^')) = chars.peek() {
                    negated = true;
                    chars.next();
                }
                let mut ranges = Vec::new();
                let mut first = true;
                let mut closed = false;
                while let Some((_, x)) = chars.next() {
                    if x == ']' && !first {
                        closed = true;
                        break;
                    }
                    if x == ' ' || x == '\t' {
                        break;
                    }
                    first = false;
                    let lo = x;
                    let mut hi = x;
                    if let Some(&(_, '-')) = chars.peek() {
                        let mut ahead = chars.clone();
                        ahead.next();
                        if let Some(&(_, h)) = ahead.peek() {
                            if h != ']' {
                                chars.next();
                                chars.next();
                                hi = h;
                            }
                        }
                    }
                    if hi < lo {
                        return err(
                            format!("invalid range `{lo}-{hi}` in a character class"),
                            at..at + 1,
                        );
                    }
                    ranges.push((lo, hi));
                }
                if !closed {
                    return err(
                        "unclosed character class: expected `]`",
                        at..word_end(text.as_bytes(), at),
                    );
                }
                pieces.push(Piece::Class { negated, ranges });
            }
            _ => {
                chars.next();
                pieces.push(Piece::Char(c));
            }
        }
    }
    Ok((pieces, text.len()))
}
