//! A pattern index: which of many regexes match a value, in one linear pass.
//!
//! Patterns anchored at the start with a literal prefix (every glob and `==`/`in` literal, and
//! regexes written `^literal...`) are bucketed by that prefix. A trie walk (aho-corasick,
//! anchored) finds the buckets whose prefix starts the value, and one DFA over each bucket's
//! suffixes finishes the match. Prefixes may nest (`/data/team1` starts `/data/team10`), but
//! only a few deep: a prefix under too many others goes to the unanchored shards, so a value
//! meets a bounded number of buckets and the pass stays linear in its length. Suffix DFAs are shared:
//! 10,000 globs `/data/team{i}/**/*.csv` need ten thousand prefixes and one DFA. Patterns without
//! a usable prefix go to a few unanchored DFA shards. Regexes a DFA cannot run (Unicode word
//! boundaries) go to a lazy fallback regex rebuilt from source when a bundle is loaded.

use super::dfa::{Dfa, DfaError, DfaLimits};
use regex_automata::{
    meta, nfa::thompson::WhichCaptures, util::syntax, Input, MatchKind, PatternSet,
};
use regex_syntax::hir::{Hir, HirKind, Look};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Most patterns compiled into one unanchored DFA shard.
const SHARD_PATTERNS: usize = 64;
/// Above this many buckets the prefix lookup uses an automaton instead of a scan.
const SCAN_BUCKETS: usize = 8;
/// Most bucket prefixes that can start one value (a deeper prefix goes to the shards).
const MAX_NESTED_PREFIXES: usize = 8;

/// Automata shared by every matcher of an engine, deduplicated at compile time.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Automata {
    /// Dense DFAs, referenced by index.
    pub dfas: Vec<Dfa>,
    #[serde(skip)]
    dfa_ids: HashMap<String, u32>,
}

impl Automata {
    fn dfa(&mut self, hirs: Vec<Hir>, anchored: bool, limits: DfaLimits) -> Result<u32, DfaError> {
        let mut key = String::from(if anchored { "A" } else { "U" });
        for h in &hirs {
            key.push('\u{0}');
            key.push_str(&h.to_string());
        }
        if let Some(&id) = self.dfa_ids.get(&key) {
            return Ok(id);
        }
        let dfa = Dfa::build(&hirs, anchored, limits)?;
        self.dfas.push(dfa);
        let id = self.dfas.len() as u32 - 1;
        self.dfa_ids.insert(key, id);
        Ok(id)
    }

    /// Total heap memory of the DFAs.
    pub fn memory_usage(&self) -> usize {
        self.dfas.iter().map(Dfa::memory_usage).sum()
    }
}

/// A pattern's remainder after its bucket prefix, and the pattern's index.
type Suffix = (Hir, u32);

/// A DFA and the original pattern index of each of its patterns.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Mapped {
    dfa: u32,
    patterns: Vec<u32>,
}

/// Patterns a DFA cannot run, matched by a lazy regex rebuilt from source at load.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Fallback {
    sources: Vec<String>,
    patterns: Vec<u32>,
    #[serde(skip)]
    regex: Option<meta::Regex>,
}

/// Which of a set of patterns match a value.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PatternIndex {
    prefixes: Vec<Vec<u8>>,
    /// Per bucket: the bucket whose prefix is the longest proper prefix of its own.
    parents: Vec<Option<u32>>,
    buckets: Vec<Mapped>,
    rest: Vec<Mapped>,
    fallback: Option<Fallback>,
    #[serde(skip)]
    prefix_ac: Option<aho_corasick::AhoCorasick>,
}

fn parse(pattern: &str) -> Result<Hir, DfaError> {
    regex_syntax::ParserBuilder::new()
        .utf8(false)
        .nest_limit(crate::resolve::REGEX_NEST_LIMIT)
        .build()
        .parse(pattern)
        .map_err(|e| DfaError {
            message: e.to_string(),
            too_large: false,
        })
}

/// Splits `^literal rest` into the literal and the rest.
fn split_prefix(hir: &Hir) -> Option<(Vec<u8>, Hir)> {
    let HirKind::Concat(subs) = hir.kind() else {
        return None;
    };
    if !matches!(
        subs.first().map(Hir::kind),
        Some(HirKind::Look(Look::Start))
    ) {
        return None;
    }
    let HirKind::Literal(lit) = subs.get(1)?.kind() else {
        return None;
    };
    if lit.0.is_empty() {
        return None;
    }
    Some((lit.0.to_vec(), Hir::concat(subs[2..].to_vec())))
}

fn fallback_regex(sources: &[String]) -> Result<meta::Regex, DfaError> {
    meta::Builder::new()
        .configure(
            meta::Config::new()
                .match_kind(MatchKind::All)
                .which_captures(WhichCaptures::None),
        )
        .syntax(
            syntax::Config::new()
                .utf8(false)
                .nest_limit(crate::resolve::REGEX_NEST_LIMIT),
        )
        .build_many(sources)
        .map_err(|e| DfaError {
            too_large: e.size_limit().is_some(),
            message: e.to_string(),
        })
}

/// For each prefix, the index of the longest other prefix that starts it.
fn parents_of(prefixes: &[Vec<u8>]) -> Vec<Option<u32>> {
    let mut order: Vec<usize> = (0..prefixes.len()).collect();
    order.sort_by(|&a, &b| prefixes[a].cmp(&prefixes[b]));
    let mut parents = vec![None; prefixes.len()];
    let mut stack: Vec<usize> = Vec::new();
    for i in order {
        while stack
            .last()
            .is_some_and(|&a| !prefixes[i].starts_with(&prefixes[a]))
        {
            stack.pop();
        }
        parents[i] = stack.last().map(|&a| a as u32);
        stack.push(i);
    }
    parents
}

fn prefix_automaton(prefixes: &[Vec<u8>]) -> Result<Option<aho_corasick::AhoCorasick>, DfaError> {
    if prefixes.len() <= SCAN_BUCKETS {
        return Ok(None);
    }
    aho_corasick::AhoCorasick::builder()
        .start_kind(aho_corasick::StartKind::Anchored)
        .match_kind(aho_corasick::MatchKind::LeftmostLongest)
        .build(prefixes)
        .map(Some)
        .map_err(|e| DfaError {
            message: e.to_string(),
            too_large: true,
        })
}

impl PatternIndex {
    /// Indexes `patterns` (regex sources); pattern `i` is reported as `i`.
    pub fn build(
        patterns: &[String],
        automata: &mut Automata,
        limits: DfaLimits,
    ) -> Result<PatternIndex, DfaError> {
        let mut prefixed: Vec<(Vec<u8>, Hir, u32)> = Vec::new();
        let mut rest: Vec<(Hir, u32)> = Vec::new();
        let mut fallback = Vec::new();
        for (i, p) in patterns.iter().enumerate() {
            let hir = parse(p)?;
            if hir.properties().look_set().contains_word_unicode() {
                fallback.push(i as u32);
            } else if let Some((prefix, suffix)) = split_prefix(&hir) {
                prefixed.push((prefix, suffix, i as u32));
            } else {
                rest.push((hir, i as u32));
            }
        }
        // Bound how many bucket prefixes can start one value: a prefix nested under too many
        // others goes to the rest.
        let mut distinct: Vec<&[u8]> = prefixed.iter().map(|(p, _, _)| p.as_slice()).collect();
        distinct.sort_unstable();
        distinct.dedup();
        let mut too_deep: std::collections::HashSet<Vec<u8>> = std::collections::HashSet::new();
        let mut ancestors: Vec<&[u8]> = Vec::new();
        for p in distinct {
            while ancestors.last().is_some_and(|a| !p.starts_with(a)) {
                ancestors.pop();
            }
            if ancestors.len() >= MAX_NESTED_PREFIXES {
                too_deep.insert(p.to_vec());
            } else {
                ancestors.push(p);
            }
        }
        let mut bucket_of: HashMap<Vec<u8>, usize> = HashMap::new();
        let mut bucket_members: Vec<(Vec<u8>, Vec<Suffix>)> = Vec::new();
        for (prefix, suffix, i) in prefixed {
            if too_deep.contains(&prefix) {
                rest.push((parse(&patterns[i as usize])?, i));
                continue;
            }
            let b = *bucket_of.entry(prefix.clone()).or_insert_with(|| {
                bucket_members.push((prefix, Vec::new()));
                bucket_members.len() - 1
            });
            bucket_members[b].1.push((suffix, i));
        }
        let mut prefixes = Vec::with_capacity(bucket_members.len());
        let mut buckets = Vec::with_capacity(bucket_members.len());
        for (prefix, members) in bucket_members {
            let (hirs, ids): (Vec<Hir>, Vec<u32>) = members.into_iter().unzip();
            buckets.push(Mapped {
                dfa: automata.dfa(hirs, true, limits)?,
                patterns: ids,
            });
            prefixes.push(prefix);
        }
        let parents = parents_of(&prefixes);
        let mut shards = Vec::new();
        let mut queue: Vec<Vec<(Hir, u32)>> =
            rest.chunks(SHARD_PATTERNS).map(<[_]>::to_vec).collect();
        while let Some(chunk) = queue.pop() {
            let (hirs, ids): (Vec<Hir>, Vec<u32>) = chunk.iter().cloned().unzip();
            match automata.dfa(hirs, false, limits) {
                Ok(dfa) => shards.push(Mapped { dfa, patterns: ids }),
                Err(e) if e.too_large && chunk.len() > 1 => {
                    let half = chunk.len() / 2;
                    queue.push(chunk[..half].to_vec());
                    queue.push(chunk[half..].to_vec());
                }
                Err(e) => return Err(e),
            }
        }
        let fallback = if fallback.is_empty() {
            None
        } else {
            let sources: Vec<String> = fallback
                .iter()
                .map(|&i| patterns[i as usize].clone())
                .collect();
            Some(Fallback {
                regex: Some(fallback_regex(&sources)?),
                sources,
                patterns: fallback,
            })
        };
        let prefix_ac = prefix_automaton(&prefixes)?;
        Ok(PatternIndex {
            prefixes,
            parents,
            buckets,
            rest: shards,
            fallback,
            prefix_ac,
        })
    }

    /// Rebuilds what is not serialized (the prefix automaton and the fallback regex).
    pub fn rebuild(&mut self) -> Result<(), DfaError> {
        self.prefix_ac = prefix_automaton(&self.prefixes)?;
        if let Some(f) = self.fallback.as_mut() {
            f.regex = Some(fallback_regex(&f.sources)?);
        }
        Ok(())
    }

    /// Checks that every DFA reference is in range and every mapping fits its DFA.
    pub fn validate(&self, automata: &Automata, n_patterns: usize) -> Result<(), String> {
        if self.prefixes.len() != self.buckets.len() || self.parents != parents_of(&self.prefixes) {
            return Err("bucket table is inconsistent".into());
        }
        for m in self.buckets.iter().chain(&self.rest) {
            let dfa = automata
                .dfas
                .get(m.dfa as usize)
                .ok_or("DFA reference out of range")?;
            if dfa.pattern_len() != m.patterns.len() {
                return Err("DFA pattern count mismatch".into());
            }
            if m.patterns.iter().any(|&p| p as usize >= n_patterns) {
                return Err("pattern reference out of range".into());
            }
        }
        if let Some(f) = &self.fallback {
            if f.sources.len() != f.patterns.len()
                || f.patterns.iter().any(|&p| p as usize >= n_patterns)
            {
                return Err("fallback pattern table is inconsistent".into());
            }
        }
        Ok(())
    }

    /// Pushes onto `out` the index of every pattern that matches `value` (possibly more than
    /// once). Returns false when a search could not run.
    pub fn matches(
        &self,
        value: &[u8],
        automata: &Automata,
        scratch: &mut Vec<u32>,
        out: &mut Vec<u32>,
    ) -> bool {
        let mut ok = true;
        let mut ac_failed = false;
        let mut run = |m: &Mapped, start: usize| {
            scratch.clear();
            match automata.dfas.get(m.dfa as usize) {
                Some(dfa) => ok &= dfa.matches(value, start, scratch),
                None => ok = false,
            }
            out.extend(scratch.iter().filter_map(|&j| m.patterns.get(j as usize)));
        };
        match &self.prefix_ac {
            Some(ac) => {
                // The longest bucket prefix starting the value; every other one that starts it
                // is a prefix of that one, so it is on its parent chain.
                let input = aho_corasick::Input::new(value).anchored(aho_corasick::Anchored::Yes);
                match ac.try_find(input) {
                    Ok(found) => {
                        let mut next = found.map(|m| m.pattern().as_u32());
                        let mut steps = 0;
                        while let Some(b) = next.filter(|_| steps <= MAX_NESTED_PREFIXES) {
                            let (Some(bucket), Some(prefix)) =
                                (self.buckets.get(b as usize), self.prefixes.get(b as usize))
                            else {
                                break;
                            };
                            run(bucket, prefix.len());
                            next = self.parents.get(b as usize).copied().flatten();
                            steps += 1;
                        }
                    }
                    Err(_) => ac_failed = true,
                }
            }
            None => {
                for (b, prefix) in self.buckets.iter().zip(&self.prefixes) {
                    if value.starts_with(prefix) {
                        run(b, prefix.len());
                    }
                }
            }
        }
        for shard in &self.rest {
            run(shard, 0);
        }
        ok &= !ac_failed;
        if let Some(f) = &self.fallback {
            match &f.regex {
                Some(re) => {
                    let mut set = PatternSet::new(re.pattern_len());
                    re.which_overlapping_matches(&Input::new(value), &mut set);
                    out.extend(set.iter().filter_map(|p| f.patterns.get(p.as_usize())));
                }
                None => ok = false,
            }
        }
        ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deeply_nested_prefixes_go_to_the_shards() {
        let pats: Vec<String> = (1..=12).map(|n| format!("^{}", "a".repeat(n))).collect();
        let mut automata = Automata::default();
        let idx = PatternIndex::build(&pats, &mut automata, DfaLimits::default()).unwrap();
        assert_eq!(idx.buckets.len(), MAX_NESTED_PREFIXES);
        let (mut scratch, mut out) = (Vec::new(), Vec::new());
        idx.matches(b"aaaaaaaaaaaaaaaa", &automata, &mut scratch, &mut out);
        out.sort();
        assert_eq!(out, (0..12).collect::<Vec<u32>>());
    }

    fn matches(patterns: &[&str], value: &str) -> Vec<u32> {
        let pats: Vec<String> = patterns.iter().map(|s| s.to_string()).collect();
        let mut automata = Automata::default();
        let idx = PatternIndex::build(&pats, &mut automata, DfaLimits::default()).unwrap();
        let (mut scratch, mut out) = (Vec::new(), Vec::new());
        assert!(idx.matches(value.as_bytes(), &automata, &mut scratch, &mut out));
        out.sort();
        out.dedup();
        out
    }

    #[test]
    fn prefixed_rest_and_fallback_patterns() {
        let pats = [
            "(?-u)^/data/a/.*$",
            "(?-u)^/data/b/.*$",
            "^/data/",
            "SELECT",
            r"\bword\b",
            "(?i)^x",
        ];
        assert_eq!(matches(&pats, "/data/a/f"), vec![0, 2]);
        assert_eq!(matches(&pats, "/data/b/SELECT"), vec![1, 2, 3]);
        assert_eq!(matches(&pats, "a word here"), vec![4]);
        assert_eq!(matches(&pats, "Xyz"), vec![5]);
        assert_eq!(matches(&pats, "/other"), Vec::<u32>::new());
    }

    #[test]
    fn many_prefixes_share_one_suffix_dfa() {
        let pats: Vec<String> = (0..500)
            .map(|i| format!(r"(?-u)^/data/team{i}/(?:.*/)?[^/]*\.csv$"))
            .collect();
        let mut automata = Automata::default();
        let idx = PatternIndex::build(&pats, &mut automata, DfaLimits::default()).unwrap();
        assert_eq!(automata.dfas.len(), 1);
        let (mut scratch, mut out) = (Vec::new(), Vec::new());
        idx.matches(b"/data/team42/x/y.csv", &automata, &mut scratch, &mut out);
        assert_eq!(out, vec![42]);
    }
}
