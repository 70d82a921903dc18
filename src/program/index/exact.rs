//! Unanchored literal patterns past one shard: found by the fallback's literal search.
//!
//! A pattern that is a few literals between assertions (`re"\b(drop|grant7)\b"`, see
//! [`ExactPattern`]) is matched exactly by the Aho-Corasick pass the fallback makes over every
//! value anyway. In a shard, each such pattern adds to a determinization whose every state
//! carries all 64 patterns' starts (10,000 of them took seconds to compile), and each further
//! shard costs every decision another pass over the value. Past one shard, they all go to the
//! fallback, where they cost neither.

use super::super::exact::ExactPattern;
use crate::program::ids::PatternId;
use regex_syntax::hir::Hir;

/// Moves the literal patterns of `group` to `fallback`, when `group` holds more than `shard`
/// patterns.
pub(super) fn divert(
    group: &mut Vec<(Hir, PatternId)>,
    fallback: &mut Vec<PatternId>,
    shard: usize,
) {
    if group.len() <= shard {
        return;
    }
    super::move_to_fallback(group, fallback, |_, hir| ExactPattern::of(hir).is_some());
}
