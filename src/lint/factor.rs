//! Required factors: a literal that every string of a condition's value set contains.
//!
//! The coverage lints use it to prune candidate pairs ([`super::cover::RuleIndex`]): a rule
//! whose condition only admits strings containing `F` can cover another rule only if that
//! rule's values contain `F` too, so a rule is compared only with the rules whose factor
//! occurs in one of its own values (found with one Aho-Corasick pass over a sample value).
//! Patterns without a literal prefix or suffix (`contains "x"`, `"*.x.*"`, unanchored
//! regexes) are where the prefix and suffix index cannot help and this one does.

use crate::resolve::{CondTest, StrPattern};
use regex_syntax::hir::{Hir, HirKind, Literal};

/// A literal every string admitted by `test` contains (the longest found); empty when none
/// is known. Path patterns have none: a raw value need not contain its normal form's text.
pub(crate) fn required_factor(test: &CondTest) -> Vec<u8> {
    match test {
        CondTest::Contains(needles) => match needles.as_slice() {
            [one] => one.as_bytes().to_vec(),
            _ => Vec::new(),
        },
        CondTest::Str {
            pattern: StrPattern::Glob { regex, .. } | StrPattern::Regex(regex),
            negated: false,
        } => regex_factor(regex),
        _ => Vec::new(),
    }
}

/// The longest literal that every match of `regex` contains; empty when none is known or
/// the regex does not parse.
fn regex_factor(regex: &str) -> Vec<u8> {
    crate::pattern::hir::parse(regex, false)
        .map(|hir| hir_factor(&hir))
        .unwrap_or_default()
}

/// The longest run of literal bytes that every match of `h` contains: consecutive literals
/// of a concatenation, looked for through groups and repetitions of at least one.
/// Alternations and classes contribute nothing (case-insensitive text is a class).
pub(crate) fn hir_factor(h: &Hir) -> Vec<u8> {
    match h.kind() {
        HirKind::Literal(Literal(bytes)) => bytes.to_vec(),
        HirKind::Capture(c) => hir_factor(&c.sub),
        HirKind::Repetition(r) if r.min >= 1 => hir_factor(&r.sub),
        HirKind::Concat(subs) => {
            let mut best = Vec::new();
            let mut run = Vec::new();
            for s in subs {
                if let HirKind::Literal(Literal(bytes)) = s.kind() {
                    run.extend_from_slice(bytes);
                    continue;
                }
                keep_longer(&mut best, std::mem::take(&mut run));
                keep_longer(&mut best, hir_factor(s));
            }
            keep_longer(&mut best, run);
            best
        }
        _ => Vec::new(),
    }
}

fn keep_longer(best: &mut Vec<u8>, other: Vec<u8>) {
    if other.len() > best.len() {
        *best = other;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::lang::tests::{glob, re};
    use crate::lint::lang::Langs;
    use proptest::prelude::*;

    #[test]
    fn factors_are_the_longest_required_literal() {
        let f = |t: &CondTest| String::from_utf8(required_factor(t)).unwrap();
        assert_eq!(f(&CondTest::Contains(vec!["x17y".into()])), "x17y");
        assert_eq!(f(&CondTest::Contains(vec!["a".into(), "b".into()])), "");
        assert_eq!(f(&re("(foo|bar)[0-9]+-17")), "-17");
        assert_eq!(f(&re("^select\\s+from t1_\\w+")), "from t1_");
        assert_eq!(f(&re("(?:abc)+d")), "abc");
        assert_eq!(f(&re("(?i)select")), "");
        assert_eq!(f(&re("a|b")), "");
        assert_eq!(f(&re("(?:abc)*")), "");
        assert_eq!(f(&glob("{foo,bar}*-17-*")), "-17-");
        // A path pattern's text need not occur in the raw value (`/a/./b` is `/a/b`).
        assert_eq!(f(&glob("/a/b/**")), "");
    }

    proptest! {
        /// Every string a pattern accepts contains its factor.
        #[test]
        fn every_accepted_string_contains_the_factor(
            r in "(\\(?[ab]{0,3}\\)?[*+?]?(\\|[ab])?[.]?){1,5}",
            words in proptest::collection::vec("[abc]{0,8}", 1..20),
        ) {
            let Ok(_) = regex_syntax::Parser::new().parse(&r) else { return Ok(()) };
            let factor = required_factor(&re(&r));
            let anchored = format!("(?s:{})", crate::lint::lang::anywhere(&r));
            let mut langs = Langs::default();
            let Some(lang) = langs.get(&anchored) else { return Ok(()) };
            for w in words {
                if lang.accepts(w.as_bytes()) {
                    prop_assert!(
                        w.as_bytes().windows(factor.len().max(1)).any(|x| x == factor.as_slice())
                            || factor.is_empty(),
                        "{w:?} is accepted by {r:?} but lacks {:?}", String::from_utf8_lossy(&factor)
                    );
                }
            }
            if let Some(w) = langs.shortest(&anchored) {
                prop_assert!(lang.accepts(&w));
                prop_assert!(factor.is_empty() || w.windows(factor.len()).any(|x| x == factor.as_slice()));
            }
        }
    }
}
