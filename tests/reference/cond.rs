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
                let g = g.value;
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
