//! Property tests of the matchers against independent oracles: translated globs compiled
//! together in one multi-pattern automaton agree with globset (literal separator) pattern by
//! pattern; needles agree with `str::contains`; path patterns agree with globset applied to
//! an independently normalized path. (That the engine judges arrays per effect is tested
//! through the public API in tests/matchers.rs.)

use crate::pattern::glob::translate;
use crate::program::bitset::BitSet;
use crate::program::dfa::DfaLimits;
use crate::program::ids::PatternId;
use crate::program::index::{Automata, PatternIndex};
use crate::program::needles::NeedleMatcher;
use proptest::prelude::*;

/// The indices of the patterns that match `value`, through one pattern index.
fn index_matches(regexes: &[String], value: &str) -> Vec<usize> {
    let mut automata = Automata::default();
    let idx = PatternIndex::build(regexes, &mut automata, DfaLimits::default()).unwrap();
    let (mut scratch, mut hits) = (Vec::new(), Vec::new());
    assert!(idx.matches(value.as_bytes(), &automata, &mut scratch, &mut hits));
    let mut out: Vec<usize> = hits.into_iter().map(PatternId::index).collect();
    out.sort_unstable();
    out.dedup();
    out
}

fn glob_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("a".to_string()),
        Just("b".to_string()),
        Just(".".to_string()),
        Just("/".to_string()),
        Just("*".to_string()),
        Just("**".to_string()),
        Just("/**/".to_string()),
        Just("?".to_string()),
        Just("[ab]".to_string()),
        Just("[!a]".to_string()),
        Just("[a-c]".to_string()),
        Just("{a,b/c}".to_string()),
        Just("\\*".to_string()),
        Just("é".to_string()),
    ]
}

fn glob() -> impl Strategy<Value = String> {
    proptest::collection::vec(glob_piece(), 0..6).prop_map(|v| v.concat())
}

fn value() -> impl Strategy<Value = String> {
    let piece =
        proptest::sample::select(vec!["a", "b", "c", "/", ".", "..", "*", "é", "ab/", "\n"]);
    proptest::collection::vec(piece, 0..8).prop_map(|v| v.concat())
}

fn globset_matches(glob: &str, value: &str) -> Option<bool> {
    let g = globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .ok()?;
    Some(g.compile_matcher().is_match(value))
}

/// An independent lexical normalization, written differently from the engine's.
fn normalize_oracle(v: &str) -> Option<String> {
    if !v.starts_with('/') || v.contains('\0') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for seg in v.split('/').filter(|s| !s.is_empty() && *s != ".") {
        if seg == ".." {
            parts.pop()?;
        } else {
            parts.push(seg);
        }
    }
    Some(format!("/{}", parts.join("/")))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn one_automaton_agrees_with_globset_per_pattern(globs in proptest::collection::vec(glob(), 1..6), v in value()) {
        let usable: Vec<String> = globs.into_iter().filter(|g| !g.starts_with('/') && globset_matches(g, "").is_some()).collect();
        prop_assume!(!usable.is_empty());
        let regexes: Vec<String> = usable.iter().map(|g| translate(g).unwrap().regex).collect();
        let hits = index_matches(&regexes, &v);
        for (i, g) in usable.iter().enumerate() {
            prop_assert_eq!(hits.contains(&i), globset_matches(g, &v).unwrap(), "glob {:?} value {:?}", g, v);
        }
    }

    #[test]
    fn path_patterns_agree_with_globset_after_normalization(tail in glob(), v in value()) {
        let g = format!("/{tail}");
        prop_assume!(globset_matches(&g, "").is_some());
        // Patterns not in normal form are normalized first; tests/differential.rs compares
        // those with an independent normalization. Here: patterns already normal.
        let Ok(t) = translate(&g) else { return Ok(()) };
        prop_assume!(t.normalized.is_none());
        prop_assert!(t.is_path);
        let value = format!("/{v}");
        let engine = crate::pattern::path::normalize(&value).map(|p| p.into_owned());
        prop_assert_eq!(&engine, &normalize_oracle(&value));
        if let Some(n) = engine {
            let matched = !index_matches(std::slice::from_ref(&t.regex), &n).is_empty();
            let dir_rule = g.strip_suffix("/**").filter(|d| !d.is_empty()).and_then(|d| globset_matches(d, &n)).unwrap_or(false);
            prop_assert_eq!(matched, globset_matches(&g, &n).unwrap() || dir_rule, "glob {:?} value {:?}", g, n);
        }
    }

    #[test]
    fn needles_agree_with_contains(needles in proptest::collection::vec("[ab ]{0,3}", 1..6), hay in "[ab -]{0,12}") {
        let m = NeedleMatcher::new(&needles).unwrap();
        let mut seen = BitSet::new(needles.len());
        let mut found = BitSet::new(needles.len());
        prop_assert!(m.matches(&hay, &mut seen, |i| found.insert(i)));
        for (i, n) in needles.iter().enumerate() {
            prop_assert_eq!(found.contains(i), hay.contains(n.as_str()), "needle {:?} in {:?}", n, hay);
        }
    }
}

proptest! {
    // Many patterns, so the prefix search and the nested-prefix chain are exercised.
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn many_nested_prefixes_agree_with_globset(
        heads in proptest::collection::vec(proptest::collection::vec(proptest::sample::select(vec!["a", "b", "/", "ab"]), 1..6), 10..40),
        tails in proptest::collection::vec(glob(), 40),
        v in value(),
    ) {
        let globs: Vec<String> = heads.iter().zip(&tails).map(|(h, t)| format!("{}{}", h.concat(), t)).collect();
        let usable: Vec<String> = globs.into_iter().filter(|g| !g.starts_with('/') && globset_matches(g, "").is_some()).collect();
        prop_assume!(usable.len() > 8);
        let regexes: Vec<String> = usable.iter().map(|g| translate(g).unwrap().regex).collect();
        let mut automata = Automata::default();
        let idx = PatternIndex::build(&regexes, &mut automata, DfaLimits::default()).unwrap();
        for value in [v.clone(), format!("ab{v}"), format!("a/b{v}"), format!("aab/{v}")] {
            let (mut scratch, mut hits) = (Vec::new(), Vec::new());
            prop_assert!(idx.matches(value.as_bytes(), &automata, &mut scratch, &mut hits));
            for (i, g) in usable.iter().enumerate() {
                prop_assert_eq!(hits.contains(&PatternId::new(i).unwrap()), globset_matches(g, &value).unwrap(), "glob {:?} value {:?}", g, value);
            }
        }
    }

}

/// Regex pieces that take every path through a pattern index: literal prefixes (buckets),
/// unanchored shards, and the fallback regex (Unicode word boundaries, bounded repetitions of
/// Unicode classes too large to determinize).
fn regex_piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "^a",
        "b",
        "a$",
        "[0-9]+",
        "é",
        r"\w{1,12}",
        r"[\w, ]{1,10}",
        r"\bab\b",
        r"(?i)sel",
        r"\s+",
        r"\w+",
        "(a|bé)",
        r"^\w{2,8}$",
        ".*",
        r"(?-u:\w){3}",
        r"\d{1,20}x",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Many regexes on one argument, some of which take the fallback path, agree pattern by
    /// pattern with the `regex` crate.
    #[test]
    fn regexes_agree_with_the_regex_crate_on_every_path(
        patterns in proptest::collection::vec(proptest::collection::vec(regex_piece(), 1..4), 1..6),
        value in "[abxé0-9 ,_\\-éÀ]{0,24}",
    ) {
        let regexes: Vec<String> = patterns.iter().map(|p| p.concat()).collect();
        let hits = index_matches(&regexes, &value);
        for (i, r) in regexes.iter().enumerate() {
            let want = regex::Regex::new(r).unwrap().is_match(&value);
            prop_assert_eq!(hits.contains(&i), want, "regex {:?} value {:?}", r, value);
        }
    }
}

#[test]
fn regexes_too_large_for_a_dfa_take_the_fallback_and_still_match() {
    let regexes: Vec<String> = [
        r"(?i)^select\s+[\w, ]{1,40}\s+from\s+t1_\w+(\s+where\s+.*)?$",
        r"\w{1,100}$",
        r"^ls$",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(
        index_matches(&regexes, "SELECT a, b FROM t1_x WHERE y"),
        [0, 1]
    );
    assert_eq!(index_matches(&regexes, "ls"), [1, 2]);
    assert_eq!(index_matches(&regexes, "-"), Vec::<usize>::new());
}

/// Anchored literal heads, some prefixes of others, some sharing only part of a UTF-8
/// character (`é` and `è` share their first byte).
fn anchored_head() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["a", "ab", "/x", "/x/y", "é", "è", "abé"])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Alternations whose every branch starts with `^` and a literal (what a path pattern
    /// ending in `/**` reads as) are indexed by their common prefix, and still agree with the
    /// `regex` crate pattern by pattern.
    #[test]
    fn anchored_alternations_agree_with_the_regex_crate(
        patterns in proptest::collection::vec(
            proptest::collection::vec((anchored_head(), regex_piece()), 1..4), 1..24),
        value in "(a|ab|/x|/x/y|é|è|abé){0,2}[abxé0-9 ,_/\\-]{0,12}",
    ) {
        let regexes: Vec<String> = patterns
            .iter()
            .map(|branches| {
                branches
                    .iter()
                    .map(|(head, piece)| format!("^{head}{}", piece.trim_start_matches('^')))
                    .collect::<Vec<_>>()
                    .join("|")
            })
            .collect();
        let hits = index_matches(&regexes, &value);
        for (i, r) in regexes.iter().enumerate() {
            let want = regex::Regex::new(r).unwrap().is_match(&value);
            prop_assert_eq!(hits.contains(&i), want, "regex {:?} value {:?}", r, value);
        }
    }
}

/// Past one shard, patterns that are literals between assertions leave the DFAs for the
/// fallback's literal search, and still match like the `regex` crate, pattern by pattern.
#[test]
fn many_literal_word_patterns_match_like_the_regex_crate() {
    let mut regexes: Vec<String> = (0..150).map(|i| format!(r"\b(drop|grant{i})\b")).collect();
    regexes.extend((0..80).map(|i| format!("(?i)rm -rf /{i}")));
    regexes.push(r"\bdrop\w+".to_string());
    for value in [
        "please drop it",
        "grant77 x",
        "grant77x dropped",
        "é grant99é",
        "RM -RF /7 and rm -rf /71",
        "",
    ] {
        let want: Vec<usize> = regexes
            .iter()
            .enumerate()
            .filter(|(_, r)| regex::Regex::new(r).unwrap().is_match(value))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(index_matches(&regexes, value), want, "{value:?}");
    }
}
