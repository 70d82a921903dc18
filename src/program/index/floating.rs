//! Patterns whose match floats: the ones a shared DFA must not hold many of.
//!
//! A pattern matched against the whole value, whose literal part can occur anywhere inside
//! an unbounded repetition and is then carried to the end by another (`*-5-*`, `**/secret/**`,
//! `.*token.*`), needs its DFA to remember that the part was seen. A DFA over many such
//! patterns remembers every set of them seen so far: its states grow as 2^n, and building it
//! takes seconds before it fails the size budget. Past [`MAX_FLOATING_PER_DFA`] in one group,
//! such patterns go to the fallback regex (a lazy DFA gated by their literals) instead.

use crate::program::ids::PatternId;
use regex_syntax::hir::{Class, Hir, HirKind};

/// The most floating patterns one DFA of the index holds.
pub(super) const MAX_FLOATING_PER_DFA: usize = 4;

/// Moves the floating patterns of `group` to `fallback` when it holds more than
/// [`MAX_FLOATING_PER_DFA`] of them.
pub(super) fn divert<H: std::borrow::Borrow<Hir>>(
    group: &mut Vec<(H, PatternId)>,
    fallback: &mut Vec<PatternId>,
) {
    if group.iter().filter(|(h, _)| floats(h.borrow())).count() <= MAX_FLOATING_PER_DFA {
        return;
    }
    super::move_to_fallback(group, fallback, |_, h| floats(h));
}

/// True when a match of `hir` floats (see the module documentation).
pub(super) fn floats(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Capture(c) => floats(&c.sub),
        HirKind::Alternation(branches) => branches.iter().any(floats),
        HirKind::Concat(subs) => {
            let mut subs = subs.as_slice();
            while let Some((last, rest)) = subs.split_last() {
                if matches!(last.kind(), HirKind::Look(_)) {
                    subs = rest;
                } else {
                    break;
                }
            }
            let Some(last) = subs.last() else {
                return false;
            };
            absorbs(last)
                && subs.windows(2).any(|w| match w {
                    [before, after] => match after.kind() {
                        HirKind::Literal(lit) => {
                            absorbs(before) && lit.0.first().is_none_or(|&b| may_hold(before, b))
                        }
                        _ => false,
                    },
                    _ => false,
                })
        }
        _ => false,
    }
}

/// True when `h` can match text of any length (an unbounded repetition, perhaps inside an
/// optional group or a concatenation).
fn absorbs(h: &Hir) -> bool {
    match h.kind() {
        HirKind::Repetition(r) => r.max.is_none() || absorbs(&r.sub),
        HirKind::Capture(c) => absorbs(&c.sub),
        HirKind::Concat(subs) => subs.iter().any(absorbs),
        HirKind::Alternation(branches) => branches.iter().any(absorbs),
        _ => false,
    }
}

/// True when text matched by `h` may hold the byte `b` (false only when `h` is a repetition
/// of a class without it).
fn may_hold(h: &Hir, b: u8) -> bool {
    match h.kind() {
        HirKind::Repetition(r) => match r.sub.kind() {
            HirKind::Class(Class::Bytes(c)) => c
                .ranges()
                .iter()
                .any(|r| (r.start()..=r.end()).contains(&b)),
            HirKind::Class(Class::Unicode(c)) => c
                .ranges()
                .iter()
                .any(|r| (r.start()..=r.end()).contains(&char::from(b))),
            _ => true,
        },
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(r: &str) -> Hir {
        regex_syntax::ParserBuilder::new()
            .utf8(false)
            .build()
            .parse(r)
            .unwrap()
    }

    #[test]
    fn floating_matches_are_told_apart() {
        let glob = |g: &str| parse(&crate::pattern::glob::translate(g).unwrap().regex);
        assert!(floats(&glob("*-5-*")));
        assert!(floats(&glob("**/secret/**")));
        assert!(floats(&parse("^.*token.*$")));
        // The literal's place is fixed, or nothing is carried to the end.
        assert!(!floats(&glob("/home/*/.ssh/**")));
        assert!(!floats(&glob("*.rs")));
        assert!(!floats(&glob("/data/team5/**/*.csv")));
        assert!(!floats(&parse("(foo|bar)[0-9]+-5")));
        assert!(!floats(&parse("^npm run [a-z]+$")));
    }
}
