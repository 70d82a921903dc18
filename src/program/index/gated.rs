//! Unanchored patterns past one shard: searched when their literal occurs instead.
//!
//! Patterns that match anywhere in the value and share no literal prefix go to unanchored
//! DFAs of [`SHARD_PATTERNS`](super::SHARD_PATTERNS) each, and every value runs through every
//! one of them. Past one shard, each further shard costs every decision another pass over the
//! value, and every compile a determinization whose states multiply where the patterns'
//! repetitions overlap (10,000 `(foo|bar)[0-9]+-{i}` took seconds to compile, and a decision
//! ran 157 DFAs). A pattern holding a literal that few others hold is better searched only
//! when that literal occurs: past one shard, such patterns go to the fallback, whose one
//! Aho-Corasick pass over the value picks the few to run.

use super::super::fallback::{literal_holders, required_literal_sets};
use crate::program::ids::PatternId;
use regex_syntax::hir::Hir;

/// The most patterns of the group a gating literal may belong to: a value holding it runs all
/// of them.
const MAX_SHARING: usize = 8;

/// The shortest gating literal: a single byte occurs in too many values to gate anything.
const MIN_LITERAL: usize = 2;

/// Moves the patterns of `group` that a rare literal gates to `fallback`, when `group` holds
/// more than `shard` patterns.
pub(super) fn divert(
    group: &mut Vec<(Hir, PatternId)>,
    fallback: &mut Vec<PatternId>,
    shard: usize,
) {
    if group.len() <= shard {
        return;
    }
    let sets: Vec<Vec<Vec<Vec<u8>>>> = group
        .iter()
        .map(|(h, _)| {
            required_literal_sets(h)
                .into_iter()
                .filter(|set| set.iter().all(|l| l.len() >= MIN_LITERAL))
                .collect()
        })
        .collect();
    let holders = literal_holders(&sets);
    let gated: Vec<bool> = sets
        .iter()
        .map(|mine| {
            mine.iter().any(|set| {
                set.iter()
                    .all(|l| holders.get(l.as_slice()).copied().unwrap_or(0) <= MAX_SHARING)
            })
        })
        .collect();
    super::move_to_fallback(group, fallback, |at, _| {
        gated.get(at).copied().unwrap_or(false)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(patterns: &[String]) -> Vec<(Hir, PatternId)> {
        patterns
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let hir = regex_syntax::ParserBuilder::new()
                    .utf8(false)
                    .build()
                    .parse(p)
                    .unwrap();
                (hir, PatternId::new(i).unwrap())
            })
            .collect()
    }

    #[test]
    fn only_past_one_shard_and_only_rarely_gated_patterns_move() {
        let pats: Vec<String> = (0..10).map(|i| format!("(foo|bar)[0-9]+-{i}x")).collect();
        let (mut g, mut fallback) = (group(&pats), Vec::new());
        divert(&mut g, &mut fallback, 64);
        assert_eq!(
            (g.len(), fallback.len()),
            (10, 0),
            "one shard: nothing moves"
        );
        divert(&mut g, &mut fallback, 4);
        assert_eq!((g.len(), fallback.len()), (0, 10));

        // Literals more than a few patterns hold, or one byte long, gate nothing: gating would
        // run them all on a value holding `foo`.
        let pats: Vec<String> = (0..20)
            .map(|i| format!("(foo|bar)[0-9]+{}", ["a", "b"][i % 2]))
            .collect();
        let (mut g, mut fallback) = (group(&pats), Vec::new());
        divert(&mut g, &mut fallback, 4);
        assert_eq!((g.len(), fallback.len()), (20, 0));
    }
}
