//! One condition of one rule as a predicate on a single argument value (an "atom"), judged
//! for its rule's effect, the way the engine judges it (docs/language.md sections 7-9).

use crate::lint::lang::{Lang, Langs, StrSet, ValueSet};
use crate::pattern::path::normalize;
use crate::resolve::CondTest;
use crate::shell::{Pattern, PatternId, PatternSet};
use crate::syntax::ast::Effect;
use serde_json::Value;
use std::rc::Rc;

/// How an atom is judged on one value.
enum Judge {
    /// `present`: holds on every present value.
    Present,
    /// A condition with a value language; the DFA of its strings when they are a pattern.
    Set(ValueSet, Option<Rc<Lang>>),
    /// `matches shell`: judged by the shell reader.
    Shell(Box<PatternSet>, PatternId),
}

/// A condition on one argument path, for one effect.
pub(crate) struct Atom {
    effect: Effect,
    judge: Judge,
    constant: Option<f64>,
    /// The condition as the engine compiled it (for deduplication).
    pub key: String,
}

/// What kind of string language an atom has, for choosing how its values are explored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StrKind {
    /// Not a string pattern (present, numbers, all or no strings).
    None,
    /// A language over the raw string.
    Plain,
    /// A language over the normalized path.
    Path,
    /// A shell pattern: not a regular language.
    Shell,
}

/// The DFA accepting exactly these literals.
fn literals_regex(lits: &[String]) -> String {
    let alts: Vec<String> = lits.iter().map(|l| regex_syntax::escape(l)).collect();
    format!("(?:{})", alts.join("|"))
}

impl Atom {
    /// The atom of `test` in a rule of `effect`; `None` when a language could not be built
    /// within the automaton limits (the pair is then undecided).
    pub(crate) fn new(test: &CondTest, effect: Effect, langs: &mut Langs) -> Option<Atom> {
        let key = format!("{effect:?} {test:?}");
        let judge = match test {
            CondTest::Present => Judge::Present,
            CondTest::Shell(text) => {
                let mut set = PatternSet::new();
                let id = set.add(Pattern::parse(text).ok()?);
                Judge::Shell(Box::new(set), id)
            }
            _ => {
                let set = ValueSet::of(test, effect)?;
                let lang = match set.string_set() {
                    StrSet::Plain(p) | StrSet::Path(p) | StrSet::PathOrUnreadable(p) => {
                        Some(langs.get(p)?)
                    }
                    StrSet::Lits(v) | StrSet::NotLits(v) if !v.is_empty() => {
                        Some(langs.get(&literals_regex(v))?)
                    }
                    _ => None,
                };
                Judge::Set(set, lang)
            }
        };
        let constant = match test {
            CondTest::Num(_, n) => Some(*n),
            _ => None,
        };
        Some(Atom {
            effect,
            judge,
            constant,
            key,
        })
    }

    /// True for `present`.
    pub(crate) fn is_present(&self) -> bool {
        matches!(self.judge, Judge::Present)
    }

    /// The kind of string language.
    pub(crate) fn str_kind(&self) -> StrKind {
        match &self.judge {
            Judge::Present => StrKind::None,
            Judge::Shell(..) => StrKind::Shell,
            Judge::Set(set, Some(_)) => match set.string_set() {
                StrSet::Path(_) | StrSet::PathOrUnreadable(_) => StrKind::Path,
                _ => StrKind::Plain,
            },
            Judge::Set(_, None) => StrKind::None,
        }
    }

    /// The DFA of the atom's string language (over the raw string, or over the normalized
    /// path for a path pattern).
    pub(crate) fn lang(&self) -> Option<&Lang> {
        match &self.judge {
            Judge::Set(_, Some(l)) => Some(l),
            _ => None,
        }
    }

    /// The shell pattern's text.
    pub(crate) fn shell_text(&self) -> Option<&str> {
        match &self.judge {
            Judge::Shell(set, id) => set.get(*id).map(Pattern::as_str),
            _ => None,
        }
    }

    /// The constant of a numeric comparison.
    pub(crate) fn constant(&self) -> Option<f64> {
        self.constant
    }

    /// Whether the atom holds for one present, non-array value.
    pub(crate) fn holds(&self, value: &Value) -> bool {
        match &self.judge {
            Judge::Present => true,
            Judge::Shell(set, id) => match value {
                Value::String(s) if self.effect == Effect::Allow => set
                    .allow_matches(s)
                    .map(|m| m.contains(*id))
                    .unwrap_or(false),
                Value::String(s) => set.deny_matches(s).fires(*id),
                _ => self.effect == Effect::Deny,
            },
            Judge::Set(set, lang) => match value {
                Value::String(s) => {
                    let accepts = |v: &str| lang.as_ref().is_some_and(|l| l.accepts(v.as_bytes()));
                    match set.string_set() {
                        StrSet::None => false,
                        StrSet::All => true,
                        StrSet::Lits(v) => v.iter().any(|x| x == s),
                        StrSet::NotLits(v) => !v.iter().any(|x| x == s),
                        StrSet::Plain(_) => accepts(s),
                        StrSet::Path(_) => normalize(s).is_some_and(|n| accepts(&n)),
                        StrSet::PathOrUnreadable(_) => {
                            normalize(s).map(|n| accepts(&n)).unwrap_or(true)
                        }
                    }
                }
                Value::Number(n) => n.as_f64().is_some_and(|f| set.admits_number(f)),
                _ => set.admits_others(),
            },
        }
    }

    /// Whether the atom holds for a present argument with no values (an empty array): the
    /// identity of [`Atom::combine`].
    pub(crate) fn holds_on_empty(&self) -> bool {
        self.is_present() || self.effect == Effect::Allow
    }

    /// Combines the atom's truth on two value lists into its truth on their concatenation:
    /// an allow needs every value, a deny any.
    pub(crate) fn combine(&self, a: bool, b: bool) -> bool {
        if self.is_present() {
            true
        } else if self.effect == Effect::Allow {
            a && b
        } else {
            a || b
        }
    }
}
