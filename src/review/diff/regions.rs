//! The regions of one argument path: its values grouped by the truth of every atom on the
//! path (both policies together), one witness value per region.
//!
//! Two values in one region make every rule of both policies judge the path alike, so a
//! request is decided the same with either. Strings are explored by a breadth-first search of
//! the product of the atoms' DFAs (the first word reaching a combination of accepting states
//! is the shortest string of that region); path patterns are explored over normalized
//! absolute paths, plus unreadable values; numbers by the comparison constants and the points
//! around and between them; other kinds by one value each. Arrays are the closure of the
//! regions under concatenation (an allow needs every element, a deny any). The absent
//! argument is one more region. A typed argument's regions also tell apart the values each
//! declared type accepts (`super::typed`).

use super::atoms::{Atom, StrKind};
use crate::lint::lang::{Lang, Langs};
use crate::resolve::ArgType;
use regex_automata::dfa::Automaton;
use regex_automata::util::primitives::StateID;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};

/// Valid UTF-8 strings: a JSON string is one.
const UTF8: &str = r"(?s:.)*";
/// Absolute paths in normal form (what a normalized path can be).
const NORMAL_PATH: &str = r"/|(?:/(?:[^/\x00.][^/\x00]*|\.[^/\x00.][^/\x00]*|\.\.[^/\x00]+))+";

/// The most regions one path may have once arrays are counted (their closure is quadratic).
pub(crate) const MAX_ARRAY_REGIONS: usize = 1_000;
/// Strings starting with `/`.
const SLASH: &str = r"/(?s:.)*";
/// Strings not starting with `/`.
const NOT_SLASH: &str = r"(?:[^/](?s:.)*)?";

/// Adds the words that are valid UTF-8 as string candidates.
fn push_words(candidates: &mut Vec<Value>, words: Vec<Vec<u8>>) {
    candidates.extend(
        words
            .into_iter()
            .filter_map(|w| String::from_utf8(w).ok())
            .map(Value::String),
    );
}

/// The witnesses of one path's regions.
pub(crate) struct Regions {
    /// One value per region; `None` is the absent argument.
    pub values: Vec<Option<Value>>,
    /// `None` when every region has a witness; otherwise what was only sampled.
    pub sampled: Option<&'static str>,
}

/// Why a path's regions could not be found within the budget.
pub(crate) type GaveUp = String;

/// Explores the product of `comps` restricted to words the guard accepts: one shortest word
/// per combination of the components' acceptance. `Err` when more than `limit` product
/// states would be visited.
#[allow(
    clippy::indexing_slicing,
    reason = "states are pushed before their index is used (parents and `i` point back into `states`), and every state vector has one entry per language of `all`, which starts with the guard"
)]
pub(crate) fn explore(guard: &Lang, comps: &[&Lang], limit: usize) -> Result<Vec<Vec<u8>>, GaveUp> {
    let all: Vec<&Lang> = std::iter::once(guard)
        .chain(comps.iter().copied())
        .collect();
    let mut reps = Vec::new();
    let mut classes = HashSet::new();
    // Readable bytes first, so that witnesses are made of letters and digits where they can.
    let preferred = (b'a'..=b'z')
        .chain(b'0'..=b'9')
        .chain(b'A'..=b'Z')
        .chain(b' '..=b'~')
        .chain(0..=255u8);
    for b in preferred {
        let key: Vec<u8> = all.iter().map(|l| l.dfa.byte_classes().get(b)).collect();
        if classes.insert(key) {
            reps.push(b);
        }
    }
    let start: Vec<StateID> = all.iter().map(|l| l.start).collect();
    // (state, parent index, byte that led here)
    let mut states: Vec<(Vec<StateID>, usize, u8)> = vec![(start.clone(), 0, 0)];
    let mut index: HashMap<Vec<StateID>, usize> = HashMap::from([(start, 0)]);
    let mut found: HashMap<Vec<bool>, usize> = HashMap::new();
    let mut i = 0;
    while i < states.len() {
        let st = states[i].0.clone();
        if all[0].accepts_here(st[0]) {
            let key: Vec<bool> = all[1..]
                .iter()
                .zip(&st[1..])
                .map(|(l, &s)| l.accepts_here(s))
                .collect();
            found.entry(key).or_insert(i);
        }
        for &b in &reps {
            let next: Vec<StateID> = all
                .iter()
                .zip(&st)
                .map(|(l, &s)| l.dfa.next_state(s, b))
                .collect();
            if all[0].dfa.is_dead_state(next[0]) || index.contains_key(&next) {
                continue;
            }
            if states.len() >= limit {
                return Err(format!("gave up after {limit} automaton states"));
            }
            index.insert(next.clone(), states.len());
            states.push((next, i, b));
        }
        i += 1;
    }
    let mut words: Vec<(usize, Vec<u8>)> = found
        .into_values()
        .map(|mut at| {
            let mut word = Vec::new();
            while at != 0 {
                word.push(states[at].2);
                at = states[at].1;
            }
            word.reverse();
            (word.len(), word)
        })
        .collect();
    words.sort();
    Ok(words.into_iter().map(|(_, w)| w).collect())
}

/// Words to try on a shell pattern: the pattern with its wildcards filled in, and a few
/// variants around it. Shell conditions are only sampled.
fn shell_samples(pattern: &str) -> Vec<String> {
    let mut words = Vec::new();
    for tok in pattern.split_whitespace() {
        if tok == "..." || tok == "**" {
            continue;
        }
        if let Some(flags) = tok
            .strip_prefix("-={")
            .or_else(|| tok.strip_prefix("-{"))
            .and_then(|f| f.strip_suffix('}'))
        {
            for f in flags.split(',').filter(|f| !f.is_empty()) {
                words.push(if f.len() == 1 {
                    format!("-{f}")
                } else {
                    format!("--{f}")
                });
            }
            continue;
        }
        let mut w = String::new();
        let mut in_class = false;
        let mut class_first = true;
        for c in tok.chars() {
            match c {
                '[' if !in_class => {
                    in_class = true;
                    class_first = true;
                }
                ']' if in_class => in_class = false,
                _ if in_class => {
                    if class_first && c != '!' && c != '^' {
                        w.push(c);
                        class_first = false;
                    }
                }
                '*' | '?' => w.push('x'),
                _ => w.push(c),
            }
        }
        words.push(w);
    }
    let base = words.join(" ");
    vec![
        base.clone(),
        format!("{base} x"),
        format!("{base} /"),
        format!("sudo {base}"),
        format!("{base}; x"),
        format!("x && {base}"),
    ]
}

/// Finds the regions of one path from its atoms and the types the catalogs declare for it
/// (none but for a declared argument). `required` paths with no atoms still get an absent
/// and a present region.
pub(crate) fn regions(
    atoms: &[Atom],
    types: &[ArgType],
    langs: &mut Langs,
    limit: usize,
) -> Result<Regions, GaveUp> {
    let mut sampled = None;
    let kinds: Vec<StrKind> = atoms.iter().map(Atom::str_kind).collect();
    let plain: Vec<&Lang> = atoms
        .iter()
        .filter(|a| a.str_kind() == StrKind::Plain)
        .filter_map(Atom::lang)
        .collect();
    let paths: Vec<&Lang> = atoms
        .iter()
        .filter(|a| a.str_kind() == StrKind::Path)
        .filter_map(Atom::lang)
        .collect();
    let too_large = || "an automaton is too large to explore".to_string();
    let mut candidates: Vec<Value> = Vec::new();
    if paths.is_empty() {
        let guard = langs.get(UTF8).ok_or_else(too_large)?;
        push_words(&mut candidates, explore(&guard, &plain, limit)?);
    } else {
        // A path pattern judges the normalized value, the other patterns the raw one. When
        // each other pattern judges every string starting with `/` alike, the strings split
        // exactly into: those not starting with `/` (unreadable as paths), normal absolute
        // paths, and unreadable ones starting with `/` (all alike).
        let slash = langs.get(SLASH).ok_or_else(too_large)?;
        let mut split = true;
        for l in &plain {
            if explore(&slash, &[l], limit)?.len() > 1 {
                split = false;
                break;
            }
        }
        let not_slash = langs.get(NOT_SLASH).ok_or_else(too_large)?;
        push_words(&mut candidates, explore(&not_slash, &plain, limit)?);
        let normal = langs.get(NORMAL_PATH).ok_or_else(too_large)?;
        let words = explore(&normal, &paths, limit)?;
        if !split {
            let extra = mixed_paths(atoms, &plain, &paths, &words, langs, limit)?;
            if !extra.covered {
                sampled = Some("a path pattern next to a string pattern that tells paths apart");
            }
            candidates.extend(extra.values.into_iter().map(Value::String));
        }
        push_words(&mut candidates, words);
        candidates.push(Value::String("/..".into()));
    }
    if kinds.contains(&StrKind::Shell) {
        sampled = Some("shell patterns");
        for a in atoms {
            if let Some(p) = a.shell_text() {
                candidates.extend(shell_samples(p).into_iter().map(Value::String));
            }
        }
    }
    candidates.extend(numbers(atoms));
    candidates.extend([Value::Null, Value::Bool(true), json!({})]);
    if !types.is_empty() {
        // A value of every kind a type tells apart, in every number interval.
        candidates.extend(typed_numbers(atoms));
        candidates.push(Value::String(String::new()));
        let values = super::typed::regions(atoms, types, candidates, limit.min(MAX_ARRAY_REGIONS))?;
        return Ok(Regions { values, sampled });
    }

    let values = witnesses(atoms, candidates, limit)?;
    Ok(Regions { values, sampled })
}

/// One witness per distinct truth vector of the atoms among `candidates` (first, simplest,
/// first), then the arrays: the closure under concatenation, starting from the empty array.
/// The first region is "absent" (`None`).
#[allow(
    clippy::indexing_slicing,
    reason = "`i` and `j` <= `i` enumerate `order` while it only grows"
)]
fn witnesses(
    atoms: &[Atom],
    candidates: Vec<Value>,
    limit: usize,
) -> Result<Vec<Option<Value>>, GaveUp> {
    // One witness per distinct truth vector, first (simplest) first.
    let mut seen: HashMap<Vec<bool>, Vec<Value>> = HashMap::new();
    let mut order: Vec<Vec<bool>> = Vec::new();
    for v in candidates {
        let key: Vec<bool> = atoms.iter().map(|a| a.holds(&v)).collect();
        if let std::collections::hash_map::Entry::Vacant(e) = seen.entry(key.clone()) {
            e.insert(vec![v]);
            order.push(key);
        }
    }
    // Arrays: the closure under concatenation, starting from the empty array.
    let empty: Vec<bool> = atoms.iter().map(Atom::holds_on_empty).collect();
    if let std::collections::hash_map::Entry::Vacant(e) = seen.entry(empty.clone()) {
        e.insert(Vec::new());
        order.push(empty);
    }
    let mut i = 0;
    while i < order.len() {
        for j in 0..=i {
            let (a, b) = (&order[i], &order[j]);
            let key: Vec<bool> = atoms
                .iter()
                .zip(a.iter().zip(b))
                .map(|(atom, (&x, &y))| atom.combine(x, y))
                .collect();
            if seen.contains_key(&key) {
                continue;
            }
            if order.len() >= limit.min(MAX_ARRAY_REGIONS) {
                return Err(format!(
                    "gave up after {} regions of array values",
                    limit.min(MAX_ARRAY_REGIONS)
                ));
            }
            let mut elems = seen.get(&order[i]).cloned().unwrap_or_default();
            elems.extend(seen.get(&order[j]).cloned().unwrap_or_default());
            order.push(key.clone());
            seen.insert(key, elems);
        }
        i += 1;
    }
    let mut values: Vec<Option<Value>> = vec![None];
    for key in order {
        if let Some(elems) = seen.remove(&key) {
            values.push(Some(match <[Value; 1]>::try_from(elems) {
                Ok([one]) => one,
                Err(many) => Value::Array(many),
            }));
        }
    }
    Ok(values)
}

/// Candidates for strings starting with `/` when both path patterns (judging the normalized
/// value) and string patterns that tell such strings apart (judging the raw value) are on one
/// argument.
struct Mixed {
    values: Vec<String>,
    /// True when the candidates reach every pair of (raw-pattern truths over strings
    /// starting with `/`) and (path-pattern truths over normal paths, or unreadable): the
    /// pairs any string can reach are among these, so every region has a witness.
    covered: bool,
}

/// The depth of a normal path (`/` is 0).
fn depth(normal: &str) -> usize {
    normal.matches('/').count() - usize::from(normal == "/")
}

fn mixed_paths(
    atoms: &[Atom],
    plain: &[&Lang],
    paths: &[&Lang],
    path_words: &[Vec<u8>],
    langs: &mut Langs,
    limit: usize,
) -> Result<Mixed, GaveUp> {
    let too_large = || "an automaton is too large to explore".to_string();
    let slash = langs.get(SLASH).ok_or_else(too_large)?;
    let normal = langs.get(NORMAL_PATH).ok_or_else(too_large)?;
    let utf8 = |w: Vec<Vec<u8>>| -> Vec<String> {
        w.into_iter()
            .filter_map(|w| String::from_utf8(w).ok())
            .collect()
    };
    // One string per way the raw patterns judge strings starting with `/`, and one normal path
    // per way the path patterns judge normal paths.
    let xs = utf8(explore(&slash, plain, limit)?);
    let ys = utf8(path_words.to_vec());
    let both: Vec<&Lang> = plain.iter().chain(paths).copied().collect();
    let mut values = utf8(explore(&normal, &both, limit)?);
    values.extend(utf8(explore(&slash, &both, limit)?));
    // Combinations: a raw string followed by enough `..` to climb back to `/` and then a
    // normal path (normalizes to that path), the other way round, and unreadable spellings.
    for a in xs.iter().take(64) {
        values.push(format!("/..{a}"));
        if let Some(n) = crate::pattern::path::normalize(a) {
            let up = "/..".repeat(depth(&n));
            values.push(format!("{a}{up}/.."));
            for b in ys.iter().take(64) {
                values.push(format!("{a}{up}{b}"));
                values.push(format!("{b}{}{a}", "/..".repeat(depth(b))));
            }
        }
    }
    for b in &ys {
        values.push(format!("{b}/"));
        values.push(format!("/.{b}"));
    }
    let is_plain: Vec<bool> = atoms
        .iter()
        .map(|a| a.str_kind() == StrKind::Plain)
        .collect();
    let is_path: Vec<bool> = atoms
        .iter()
        .map(|a| a.str_kind() == StrKind::Path)
        .collect();
    let vector = |s: &str, which: &[bool]| -> Vec<bool> {
        let v = Value::String(s.to_string());
        atoms
            .iter()
            .zip(which)
            .filter(|(_, &w)| w)
            .map(|(a, _)| a.holds(&v))
            .collect()
    };
    let reached: HashSet<(Vec<bool>, Vec<bool>)> = values
        .iter()
        .filter(|s| s.starts_with('/'))
        .map(|s| (vector(s, &is_plain), vector(s, &is_path)))
        .collect();
    let mut path_vectors: HashSet<Vec<bool>> = ys.iter().map(|b| vector(b, &is_path)).collect();
    path_vectors.insert(vector("/..", &is_path));
    let covered = xs.iter().all(|a| {
        let x = vector(a, &is_plain);
        path_vectors
            .iter()
            .all(|y| reached.contains(&(x.clone(), y.clone())))
    });
    Ok(Mixed { values, covered })
}

/// The comparison constants of the atoms, sorted, each once.
fn constants(atoms: &[Atom]) -> Vec<f64> {
    let mut cs: Vec<f64> = atoms.iter().filter_map(Atom::constant).collect();
    cs.sort_by(f64::total_cmp);
    cs.dedup();
    cs
}

/// Numbers for a typed argument, where `integer` tells numbers apart: a fractional number and
/// an integer in every open interval between (and beyond) the comparison constants that has
/// one.
fn typed_numbers(atoms: &[Atom]) -> Vec<Value> {
    let cs = constants(atoms);
    let mut out = Vec::new();
    match (cs.first(), cs.last()) {
        (Some(&lo), Some(&hi)) => {
            // Below the lowest constant: 0 and 0.5 when they are, the plainest witnesses.
            out.push(if lo > 0.0 { 0.0 } else { lo.floor() - 1.0 });
            out.push(if lo > 0.5 { 0.5 } else { lo.floor() - 0.5 });
            for w in cs.windows(2) {
                let &[c, d] = w else {
                    continue;
                };
                let int = c.floor() + 1.0;
                if c < int && int < d {
                    out.push(int);
                }
                let mut mid = c + (d - c) / 2.0;
                if mid.fract() == 0.0 {
                    mid = c + (d - c) / 4.0;
                }
                if c < mid && mid < d {
                    out.push(mid);
                }
            }
            out.push(hi.ceil() + 1.0);
            out.push(hi.ceil() + 0.5);
        }
        _ => out.extend([0.0, 0.5]),
    }
    as_json_numbers(out)
}

/// Finite numbers as JSON, integral ones as integers.
fn as_json_numbers(out: Vec<f64>) -> Vec<Value> {
    out.into_iter()
        .filter(|f| f.is_finite())
        .map(|f| {
            if f.fract() == 0.0 && f.abs() < 9.0e15 {
                json!(f as i64)
            } else {
                json!(f)
            }
        })
        .collect()
}

/// Numbers: each comparison constant, a point between each two (the constant plus one when
/// that is still below the next), and one beyond each end.
fn numbers(atoms: &[Atom]) -> Vec<Value> {
    let cs = constants(atoms);
    let mut out = Vec::new();
    match (cs.first(), cs.last()) {
        (Some(&lo), Some(&hi)) => {
            out.push(if lo - 1.0 < lo {
                lo - 1.0
            } else {
                lo.next_down()
            });
            for (k, &c) in cs.iter().enumerate() {
                out.push(c);
                if let Some(&d) = cs.get(k + 1) {
                    // Just above `c` when that is still below `d`: the plainest witness.
                    out.push(if c + 1.0 < d {
                        c + 1.0
                    } else {
                        c + (d - c) / 2.0
                    });
                }
            }
            out.push(if hi + 1.0 > hi {
                hi + 1.0
            } else {
                hi.next_up()
            });
        }
        _ => out.push(0.0),
    }
    as_json_numbers(out)
}
