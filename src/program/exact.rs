//! Patterns that are a finite set of literals, between optional zero-width assertions:
//! `re"\b(drop|grant)\b"`, `re"(?i)\bsudo\b"`, `re"rm -rf"`. Such a pattern matches a value
//! exactly when one of its literals occurs there with the assertions holding at both ends of
//! the occurrence, so one Aho-Corasick pass over the value finds what any number of them
//! match, and they need no automaton of their own: no determinization at compile, no DFA pass
//! per shard at a decision.

use regex_automata::util::look::{Look, LookMatcher};
use regex_syntax::hir::literal::{ExtractKind, Extractor};
use regex_syntax::hir::{Hir, HirKind};

/// The most literals one exact pattern may hold (case variants count): past that, a pattern
/// such as `(?i)\bdeployment\b` is left to an automaton.
const MAX_LITERALS: usize = 64;

/// A pattern read as literals between assertions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ExactPattern {
    /// Holds where an occurrence starts (`\b` in `\bdrop`).
    before: Option<Look>,
    /// Holds where an occurrence ends.
    after: Option<Look>,
    /// Every string the pattern's middle matches, none empty.
    pub(crate) literals: Vec<Vec<u8>>,
}

impl ExactPattern {
    /// Reads `hir` (an unanchored pattern, matched anywhere in the value) as literals between
    /// assertions; `None` when its middle is not a finite set of non-empty literals.
    pub(crate) fn of(hir: &Hir) -> Option<ExactPattern> {
        // An unbounded repetition matches infinitely many strings: skip the extractor.
        hir.properties().maximum_len()?;
        let hir = unwrap_captures(hir);
        let parts: &[Hir] = match hir.kind() {
            HirKind::Concat(parts) => parts,
            _ => std::slice::from_ref(hir),
        };
        // regex-automata numbers its assertions as regex-syntax does.
        let look = |h: Option<&Hir>| match h.map(|h| unwrap_captures(h).kind()) {
            Some(HirKind::Look(l)) => Look::from_repr(l.as_repr()),
            _ => None,
        };
        let before = look(parts.first());
        let after = if parts.len() > 1 {
            look(parts.last())
        } else {
            None
        };
        let lo = usize::from(before.is_some());
        let hi = parts.len() - usize::from(after.is_some());
        let middle = match parts.get(lo..hi)? {
            [] => return None,
            [one] => one.clone(),
            many => Hir::concat(many.to_vec()),
        };
        let mut extractor = Extractor::new();
        extractor.kind(ExtractKind::Prefix);
        // The extractor reads an assertion inside the middle as the empty string (`ab$x` as
        // `abx`): such a middle is not exact.
        if !middle.properties().look_set().is_empty() {
            return None;
        }
        let seq = extractor.extract(&middle);
        if !seq.is_exact() {
            return None;
        }
        let lits = seq.literals()?;
        if lits.is_empty() || lits.len() > MAX_LITERALS {
            return None;
        }
        let mut literals: Vec<Vec<u8>> = lits.iter().map(|l| l.as_bytes().to_vec()).collect();
        if literals.iter().any(Vec::is_empty) {
            return None;
        }
        literals.sort_unstable();
        literals.dedup();
        Some(ExactPattern {
            before,
            after,
            literals,
        })
    }

    /// Whether an occurrence of one of the literals at `start..end` of `value` is a match: the
    /// assertions hold at its ends.
    pub(crate) fn holds_at(&self, value: &[u8], start: usize, end: usize) -> bool {
        let matcher = LookMatcher::new();
        let holds =
            |look: Option<Look>, at: usize| look.is_none_or(|l| matcher.matches(l, value, at));
        holds(self.before, start) && holds(self.after, end)
    }
}

fn unwrap_captures(mut hir: &Hir) -> &Hir {
    while let HirKind::Capture(c) = hir.kind() {
        hir = &c.sub;
    }
    hir
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn exact(pattern: &str) -> Option<ExactPattern> {
        ExactPattern::of(&crate::program::index::parse(pattern).unwrap())
    }

    /// What the pattern matches in `value`, read as literals between assertions.
    fn matches(p: &ExactPattern, value: &[u8]) -> bool {
        p.literals.iter().any(|lit| {
            (0..=value.len().saturating_sub(lit.len())).any(|s| {
                value.get(s..s + lit.len()) == Some(lit.as_slice())
                    && p.holds_at(value, s, s + lit.len())
            })
        })
    }

    #[test]
    fn literal_sets_between_assertions_are_exact() {
        let p = exact(r"\b(drop|grant7)\b").unwrap();
        assert_eq!(p.literals, [b"drop".to_vec(), b"grant7".to_vec()]);
        assert_eq!(
            (p.before, p.after),
            (Some(Look::WordUnicode), Some(Look::WordUnicode))
        );
        assert_eq!(exact("rm -rf").unwrap().literals, [b"rm -rf".to_vec()]);
        // Simple case folding: `s` is also `S` and `ſ` (U+017F).
        assert_eq!(exact(r"(?i)\bsudo").unwrap().literals.len(), 3 * 2 * 2 * 2);
        assert_eq!(
            exact(r"ab(c|d)\b").unwrap().literals,
            [b"abc".to_vec(), b"abd".to_vec()]
        );
        assert_eq!(exact("^ab").unwrap().before, Some(Look::Start));
        for not_exact in [
            r"\b(drop|grant[0-9]+)\b",
            r"a.*b",
            "(a|)",
            r"\b",
            "ab$x",
            r"a\bb",
        ] {
            assert_eq!(exact(not_exact), None, "{not_exact}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// A pattern read as exact matches what the `regex` crate says it matches.
        #[test]
        fn exact_patterns_match_like_the_regex_crate(
            before in prop::sample::select(vec!["", r"\b", r"\B", "^", r"(?-u:\b)", r"\b{start}"]),
            words in prop::collection::vec("[a-cé_ -]{1,3}", 1..4),
            after in prop::sample::select(vec!["", r"\b", r"\B", "$", r"(?-u:\b)", r"\b{end}"]),
            case in prop::bool::ANY,
            value in "[a-cé_ \\-\u{300}]{0,12}",
        ) {
            let flags = if case { "(?i)" } else { "" };
            let alternation = words.iter().map(|w| regex_syntax::escape(w)).collect::<Vec<_>>().join("|");
            let pattern = format!("{flags}{before}(?:{alternation}){after}");
            if let Some(p) = exact(&pattern) {
                let want = regex::bytes::Regex::new(&pattern).unwrap().is_match(value.as_bytes());
                prop_assert_eq!(matches(&p, value.as_bytes()), want, "{} on {:?}", pattern, value);
            }
        }
    }
}
