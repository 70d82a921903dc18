//! Conditions judged one value at a time (docs/language.md sections 7-10), with the absent /
//! array / effect rules of section 8 on top.

use globset::{GlobBuilder, GlobMatcher};
use serde_json::Value;
use toolgate::syntax::ast::{CmpOp, CondOp};

/// One compiled condition.
#[derive(Debug)]
pub enum Cond {
    Present,
    Eq(String),
    Ne(String),
    In(Vec<String>),
    /// A plain glob: the whole string, no normalization.
    Glob(GlobMatcher),
    /// A path pattern: the full glob, and for a trailing unescaped `/**` the directory glob.
    PathGlob {
        full: GlobMatcher,
        dir: Option<GlobMatcher>,
        root: bool,
    },
    Regex(regex::Regex),
    ContainsAny(Vec<String>),
    Num(CmpOp, f64),
    /// A `shell` argv pattern. The command-line reading is `toolgate::shell`'s (its own corpus
    /// and properties test it); what the reference models is how a reading decides: strictly
    /// for an allow, generously and failing closed for a deny, and never on a non-string.
    Shell(Box<toolgate::shell::PatternSet>),
}

fn glob(g: &str) -> GlobMatcher {
    try_glob(g).expect("globs of a valid policy build")
}

fn try_glob(g: &str) -> Option<GlobMatcher> {
    cached(&format!("value glob {g}"), |_| {
        GlobBuilder::new(g)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .ok()
            .map(|g| g.compile_matcher())
    })
}

/// A glob over tool and server names: no separator, so `*` matches any run of characters.
pub fn name_glob(g: &str) -> GlobMatcher {
    cached(&format!("name glob {g}"), |_| {
        GlobBuilder::new(g)
            .literal_separator(false)
            .build()
            .ok()
            .map(|g| g.compile_matcher())
    })
    .expect("target globs of a valid policy build")
}

fn regex(r: &str) -> regex::Regex {
    cached(r, |r| regex::Regex::new(r).ok()).expect("regexes of a valid policy build")
}

/// Compiled patterns are kept per thread (tests build thousands of small policies from a
/// small vocabulary; compiling is the slow part in a debug build).
fn cached<T: Clone + 'static>(key: &str, build: impl FnOnce(&str) -> Option<T>) -> Option<T> {
    use std::any::Any;
    use std::cell::RefCell;
    use std::collections::HashMap;
    thread_local! {
        static CACHE: RefCell<HashMap<(std::any::TypeId, String), Box<dyn Any>>> =
            RefCell::new(HashMap::new());
    }
    let k = (std::any::TypeId::of::<T>(), key.to_string());
    if let Some(hit) = CACHE.with(|c| {
        c.borrow()
            .get(&k)
            .map(|v| v.downcast_ref::<Option<T>>().cloned())
    }) {
        return hit.flatten();
    }
    let value = build(key);
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() > 10_000 {
            c.clear();
        }
        c.insert(k, Box::new(value.clone()));
    });
    value
}

/// Lexical normalization of an absolute path (section 9): `//` and `/./` collapse, `..`
/// removes the previous segment, a trailing `/` is dropped. `None` for a value that cannot be
/// read as an absolute path: relative (including empty), climbing above `/`, or holding NUL.
pub fn normalize(v: &str) -> Option<String> {
    if !v.starts_with('/') || v.contains('\0') {
        return None;
    }
    let mut kept: Vec<&str> = Vec::new();
    for seg in v.split('/') {
        match seg {
            "" | "." => continue,
            ".." => {
                kept.pop()?;
            }
            _ => kept.push(seg),
        }
    }
    if kept.is_empty() {
        Some("/".to_string())
    } else {
        Some(kept.iter().map(|s| format!("/{s}")).collect())
    }
}

/// Section 9: a path pattern is matched in normal form. Written independently of the engine:
/// the pattern is cut into segments at every `/` that is not inside `{...}` or `[...]`
/// (an escaped `\/` cuts too), then `.`, empty and `..` segments are resolved as for values.
/// `None` when the pattern cannot be normalized: `..` above the root, `..` after a segment that
/// is not a plain name, or a `{...}` alternative that is not a normal path itself.
pub fn normalize_pattern(glob: &str) -> Option<String> {
    let mut segments: Vec<(String, bool)> = Vec::new(); // (text, plain name?)
    let (mut cur, mut plain) = (String::new(), true);
    let (mut in_class, mut in_alt) = (false, false);
    let mut alt = String::new();
    let mut alt_whole = false;
    let cs: Vec<char> = glob.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if in_class {
            if c == ']' && !cur.ends_with('[') && !cur.ends_with("[!") && !cur.ends_with("[^") {
                in_class = false;
            }
            if c == '/' {
                plain = false;
            }
            cur.push(c);
        } else if c == '\\' && i + 1 < cs.len() && cs[i + 1] == '/' && !in_alt {
            segments.push((std::mem::take(&mut cur), plain));
            plain = true;
            i += 1;
        } else if c == '\\' && i + 1 < cs.len() {
            cur.push(c);
            cur.push(cs[i + 1]);
            if in_alt {
                alt.push(cs[i + 1]);
            }
            i += 1;
        } else if in_alt {
            if c == ',' || c == '}' {
                let bad = alt.contains('/')
                    && alt
                        .split('/')
                        .any(|p| p.is_empty() || p == "." || p == "..");
                let closes_segment = c != '}' || i + 1 == cs.len() || cs[i + 1] == '/';
                if bad || (alt.is_empty() && alt_whole && (c == ',' || closes_segment)) {
                    // An empty alternative only matters if the group is the whole segment.
                    let group_end = cs[i..].iter().position(|&k| k == '}').map(|k| i + k);
                    let whole = alt_whole
                        && group_end.is_some_and(|e| e + 1 == cs.len() || cs[e + 1] == '/');
                    if bad || whole {
                        return None;
                    }
                }
                alt.clear();
                in_alt = c == ',';
            } else {
                if c == '/' {
                    plain = false;
                }
                alt.push(c);
            }
            cur.push(c);
        } else {
            match c {
                '/' => {
                    segments.push((std::mem::take(&mut cur), plain));
                    plain = true;
                    i += 1;
                    continue;
                }
                '[' => {
                    in_class = true;
                    plain = false;
                }
                '{' => {
                    in_alt = true;
                    plain = false;
                    alt_whole = cur.is_empty();
                }
                '*' | '?' => plain = false,
                _ => {}
            }
            cur.push(c);
        }
        i += 1;
    }
    segments.push((cur, plain));
    let unescape = |t: &str| -> String {
        let mut out = String::new();
        let mut esc = false;
        for ch in t.chars() {
            if esc || ch != '\\' {
                out.push(ch);
                esc = false;
            } else {
                esc = true;
            }
        }
        out
    };
    let mut kept: Vec<(String, bool)> = Vec::new();
    for (text, plain) in segments.into_iter().skip(1) {
        let name = if plain { Some(unescape(&text)) } else { None };
        match name.as_deref() {
            Some("") | Some(".") => {}
            Some("..") => match kept.pop() {
                Some((_, true)) => {}
                _ => return None,
            },
            _ => kept.push((text, plain)),
        }
    }
    Some(if kept.is_empty() {
        "/".to_string()
    } else {
        kept.iter().map(|(t, _)| format!("/{t}")).collect()
    })
}

impl Cond {
    pub fn new(op: CondOp) -> Cond {
        match op {
            CondOp::Present => Cond::Present,
            CondOp::StrEq(s) => Cond::Eq(s.value),
            CondOp::StrNe(s) => Cond::Ne(s.value),
            CondOp::Num(op, n, _) => Cond::Num(op, n),
            CondOp::In(list) => Cond::In(list.into_iter().map(|s| s.value).collect()),
            CondOp::Contains(s) => Cond::ContainsAny(vec![s.value]),
            CondOp::ContainsAny(list) => {
                Cond::ContainsAny(list.into_iter().map(|s| s.value).collect())
            }
            CondOp::Regex(r) => Cond::Regex(regex(&r.value)),
            CondOp::Glob(g) if g.value.starts_with('/') => {
                let g = normalize_pattern(&g.value)
                    .expect("the engine refuses a path pattern that cannot be normalized");
                // A trailing `/**` whose `/` is not escaped (an even number of backslashes
                // before it) also matches the directory itself.
                let (dir, root) = match g.strip_suffix("/**") {
                    Some(d) if (d.len() - d.trim_end_matches('\\').len()) % 2 == 0 => {
                        if d.is_empty() {
                            (None, true)
                        } else {
                            (try_glob(d), false)
                        }
                    }
                    _ => (None, false),
                };
                Cond::PathGlob {
                    full: glob(&g),
                    dir,
                    root,
                }
            }
            CondOp::Glob(g) => Cond::Glob(glob(&g.value)),
            CondOp::Shell(p) => {
                let mut set = toolgate::shell::PatternSet::new();
                set.add(toolgate::shell::Pattern::parse(&p.value).expect("a valid shell pattern"));
                Cond::Shell(Box::new(set))
            }
        }
    }

    /// Does the condition hold for one value `v`, in a rule of this effect? (Only path
    /// patterns depend on the effect: an unreadable value fails closed.)
    pub fn holds(&self, v: &Value, deny: bool) -> bool {
        let s = v.as_str();
        match self {
            Cond::Present => true,
            Cond::Eq(x) => s == Some(x.as_str()),
            Cond::Ne(x) => s != Some(x.as_str()),
            Cond::In(list) => s.is_some_and(|s| list.iter().any(|x| x == s)),
            Cond::Glob(g) => s.is_some_and(|s| g.is_match(s)),
            Cond::PathGlob { full, dir, root } => match s.and_then(normalize) {
                None => deny,
                Some(n) => {
                    full.is_match(&n)
                        || dir.as_ref().is_some_and(|d| d.is_match(&n))
                        || (*root && n == "/")
                }
            },
            Cond::Regex(r) => s.is_some_and(|s| r.is_match(s)),
            Cond::ContainsAny(needles) => s.is_some_and(|s| needles.iter().any(|n| s.contains(n))),
            Cond::Shell(set) => match s {
                None => deny,
                Some(s) if deny => set.deny_matches(s).fires(0),
                Some(s) => set.allow_matches(s).is_ok_and(|m| m.contains(0)),
            },
            Cond::Num(op, n) => match v {
                Value::Number(x) => {
                    let x = x.as_f64().expect("a JSON number is an f64");
                    match op {
                        CmpOp::Lt => x < *n,
                        CmpOp::Le => x <= *n,
                        CmpOp::Gt => x > *n,
                        CmpOp::Ge => x >= *n,
                        CmpOp::Eq => x == *n,
                        CmpOp::Ne => x != *n,
                    }
                }
                _ => false,
            },
        }
    }

    /// Section 8: absent arguments are vacuous in an allow (except `present`) and never hold
    /// in a deny; otherwise every value must hold (allow) or any value (deny). An empty array
    /// is present with no values.
    pub fn holds_for_rule(&self, values: Option<&[&Value]>, deny: bool) -> bool {
        match (values, self) {
            (None, Cond::Present) => false,
            (None, _) => !deny,
            (Some(_), Cond::Present) => true,
            (Some(vs), _) if deny => vs.iter().any(|v| self.holds(v, true)),
            (Some(vs), _) => vs.iter().all(|v| self.holds(v, false)),
        }
    }
}
