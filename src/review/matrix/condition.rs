//! A condition of the matrix, kept evaluable: the condition as written, with a matcher built
//! from the engine's own pieces (the compiled pattern index for globs and regexes, path
//! normalization, the shell pattern set, the argument walk), judged for one effect the way a
//! rule judges it (docs/language.md, sections 7 and 8).

use crate::engine::args::visit;
use crate::pattern::path::normalize;
use crate::program::dfa::DfaLimits;
use crate::program::index::{Automata, PatternIndex};
use crate::resolve::{CondDef, CondTest, StrPattern};
use crate::shell::{Pattern, PatternSet};
use crate::syntax::ast::{CmpOp, Effect};
use serde_json::{Map, Value};

/// One condition of a rule, as written, and how to judge it on a call's arguments.
#[derive(Debug, Clone)]
pub struct Condition {
    /// The argument path (keys, outermost first).
    pub argument: Vec<String>,
    /// The condition in the policy's own syntax (`path matches "/srv/**"`).
    pub text: String,
    matcher: Matcher,
}

/// A pattern compiled into the engine's pattern index, with the automata it runs on.
#[derive(Debug, Clone)]
struct Compiled {
    index: PatternIndex,
    automata: Automata,
}

impl Compiled {
    fn new(regex: &str) -> Option<Compiled> {
        let mut automata = Automata::default();
        let index =
            PatternIndex::build(&[regex.to_string()], &mut automata, DfaLimits::default()).ok()?;
        Some(Compiled { index, automata })
    }

    /// `None` when the search could not run.
    fn matches(&self, value: &str) -> Option<bool> {
        let (mut scratch, mut hits) = (Vec::new(), Vec::new());
        self.index
            .matches(value.as_bytes(), &self.automata, &mut scratch, &mut hits)
            .then_some(!hits.is_empty())
    }
}

/// How one value is judged.
#[derive(Debug, Clone)]
enum Matcher {
    /// `present`: about the argument, not its values.
    Present,
    /// `==` / `in` (or their negation).
    OneOf { values: Vec<String>, negated: bool },
    /// A plain glob or a regex (or its negation).
    Pattern { compiled: Compiled, negated: bool },
    /// A path glob: matched on the normalized value; unreadable values fail closed.
    Path { compiled: Compiled, negated: bool },
    /// `contains` / `contains any`.
    Contains(Vec<String>),
    /// A numeric comparison.
    Num(CmpOp, f64),
    /// `matches shell`.
    Shell(Box<PatternSet>),
    /// A pattern that could not be built (never for a policy the engine compiled).
    Unavailable,
}

/// How one value satisfies a condition: in an allow, and in a deny.
#[derive(Clone, Copy)]
struct Verdict {
    allow: bool,
    deny: bool,
}

impl Verdict {
    fn same(holds: bool) -> Verdict {
        Verdict {
            allow: holds,
            deny: holds,
        }
    }
}

impl Condition {
    /// The condition of a resolved rule, made evaluable.
    pub fn new(cond: &CondDef) -> Condition {
        let matcher = match &cond.test {
            CondTest::Present => Matcher::Present,
            CondTest::Num(op, n) => Matcher::Num(*op, *n),
            CondTest::Contains(needles) => Matcher::Contains(needles.clone()),
            CondTest::Shell(text) => match Pattern::parse(text) {
                Ok(p) => {
                    let mut set = PatternSet::new();
                    set.add(p);
                    Matcher::Shell(Box::new(set))
                }
                Err(_) => Matcher::Unavailable,
            },
            CondTest::Str { pattern, negated } => {
                let negated = *negated;
                match pattern {
                    StrPattern::OneOf(values) => Matcher::OneOf {
                        values: values.clone(),
                        negated,
                    },
                    StrPattern::Glob { regex, .. } | StrPattern::Regex(regex) => {
                        match Compiled::new(regex) {
                            Some(compiled) => Matcher::Pattern { compiled, negated },
                            None => Matcher::Unavailable,
                        }
                    }
                    StrPattern::PathGlob { regex, .. } => match Compiled::new(regex) {
                        Some(compiled) => Matcher::Path { compiled, negated },
                        None => Matcher::Unavailable,
                    },
                }
            }
        };
        Condition {
            argument: cond.path.clone(),
            text: cond.text.clone(),
            matcher,
        }
    }

    /// The argument as written in a policy (`opts.cwd`).
    pub fn argument_text(&self) -> String {
        self.argument.join(".")
    }

    /// True for a `present` condition.
    pub fn is_present_test(&self) -> bool {
        matches!(self.matcher, Matcher::Present)
    }

    /// Whether the condition holds on `args` in a rule of `effect`: for an allow, every value
    /// the argument yields must satisfy it (an absent argument or an empty array holds
    /// vacuously, except that `present` needs the argument); for a deny, some value must (an
    /// absent argument never holds, an empty array only for `present`). `None` when a matcher
    /// could not run (a caller fails closed).
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::review::matrix::Condition;
    /// use toolgate::Effect;
    /// let mut m = toolgate::source::SourceMap::new();
    /// m.add("p.policy", "tool t(p)\nagent a { allow t where p matches \"/srv/**\" }");
    /// let (policy, _) = toolgate::load::policy_from_sources(m);
    /// let c = Condition::new(&policy.agents[0].rules[0].conditions[0]);
    /// let args = |v: serde_json::Value| v.as_object().unwrap().clone();
    /// assert_eq!(c.holds(&args(serde_json::json!({"p": "/srv/a"})), Effect::Allow), Some(true));
    /// assert_eq!(c.holds(&args(serde_json::json!({"p": "/srv/../etc"})), Effect::Allow), Some(false));
    /// assert_eq!(c.holds(&args(serde_json::json!({})), Effect::Allow), Some(true));
    /// assert_eq!(c.holds(&args(serde_json::json!({})), Effect::Deny), Some(false));
    /// ```
    pub fn holds(&self, args: &Map<String, Value>, effect: Effect) -> Option<bool> {
        let mut verdicts = Vec::new();
        let mut failed = false;
        let present = visit(args, &self.argument, &mut |v| match self.judge(v) {
            Some(verdict) => verdicts.push(verdict),
            None => failed = true,
        });
        if failed {
            return None;
        }
        let is_present = matches!(self.matcher, Matcher::Present);
        Some(match effect {
            Effect::Allow if !present => !is_present,
            Effect::Allow => is_present || verdicts.iter().all(|v| v.allow),
            Effect::Deny if !present => false,
            Effect::Deny => is_present || verdicts.iter().any(|v| v.deny),
        })
    }

    /// How one value satisfies the condition; `None` when a matcher could not run.
    fn judge(&self, value: &Value) -> Option<Verdict> {
        let text = value.as_str();
        Some(match &self.matcher {
            Matcher::Present => Verdict::same(true),
            Matcher::Unavailable => return None,
            Matcher::OneOf { values, negated } => {
                let hit = text.is_some_and(|t| values.iter().any(|v| v == t));
                Verdict::same(hit != *negated)
            }
            Matcher::Pattern { compiled, negated } => {
                let hit = match text {
                    Some(t) => compiled.matches(t)?,
                    None => false,
                };
                Verdict::same(hit != *negated)
            }
            Matcher::Path { compiled, negated } => {
                let normalized = text.and_then(normalize);
                let hit = match &normalized {
                    Some(path) => compiled.matches(path)?,
                    None => false,
                };
                // A value that cannot be read as an absolute path fails closed in a deny.
                Verdict {
                    allow: hit != *negated,
                    deny: hit != *negated || normalized.is_none(),
                }
            }
            Matcher::Contains(needles) => {
                Verdict::same(text.is_some_and(|t| needles.iter().any(|n| t.contains(n.as_str()))))
            }
            Matcher::Num(op, rhs) => {
                Verdict::same(value.as_f64().is_some_and(|x| op.apply(x, *rhs)))
            }
            Matcher::Shell(set) => match text {
                // Read strictly for an allow, generously (failing closed) for a deny.
                Some(t) => Verdict {
                    allow: set.allow_matches(t).is_ok_and(|m| m.contains(0)),
                    deny: set.deny_matches(t).fires(0),
                },
                None => Verdict {
                    allow: false,
                    deny: true,
                },
            },
        })
    }
}
