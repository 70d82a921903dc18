//! Lints: what `toolgate check` finds in a policy beyond what makes it unloadable.
//!
//! Every diagnostic a lint can report is a [`Lint`] of a code declared in
//! [`crate::diagnostic::code`], given its stage and documentation in its own file under
//! `src/lint/rules/`, whose doc comment (`## What it does`, `## Why is this bad?`, `## Example`,
//! `Use instead:`) is also its user documentation: `docs/lints.md` is generated from those
//! comments by [`registry::markdown`]. The [`registry`] lists every lint.
//!
//! Lints run in three places:
//!
//! | stage | where | what |
//! | --- | --- | --- |
//! | [`Stage::Resolve`] | `resolve` | errors that make a policy unloadable, and the warnings found while resolving names |
//! | [`Stage::Suppression`] | `suppress` | `# toolgate: allow(<lint>)` comments: unknown names, unused ones |
//! | [`Stage::Lint`] | [`run`] | analyses of the resolved policy: unreachable, redundant and dead rules, risky patterns |
//!
//! Warnings of every stage can be silenced with a `# toolgate: allow(<lint_name>)` comment on
//! the line before the rule.
//!
//! ## Example
//!
//! ```
//! let mut sources = toolgate::source::SourceMap::new();
//! sources.add("p.policy", r#"
//!     tool read_file(path) needs fs:read
//!     agent bot {
//!       grant fs:read
//!       allow read_file where path matches "/srv/**"
//!       allow read_file where path matches "/srv/data/**"
//!     }
//! "#);
//! let (_, diags) = toolgate::load::check_sources(sources);
//! let codes: Vec<&str> = diags.iter().map(|d| d.code).collect();
//! assert_eq!(codes, ["toolgate::redundant_allow"]);
//! ```

pub(crate) mod cover;
pub(crate) mod dfa;
pub(crate) mod factor;
pub(crate) mod lang;
pub mod registry;
pub(crate) mod rules;
pub(crate) mod suppress;

use crate::diagnostic::{Code, Diagnostic, Diagnostics, Severity};
use crate::resolve::{AgentDef, Policy};
use crate::source::Span;
use lang::{Langs, ValueSet};
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, HashSet};
use std::rc::Rc;

/// Where a lint is detected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// While resolving names (`resolve`); errors there make the policy unloadable.
    Resolve,
    /// While reading `# toolgate: allow(...)` comments.
    Suppression,
    /// By an analysis of the resolved policy (`toolgate check` only).
    Lint,
}

/// One lint: its code (declared in [`crate::diagnostic::code`]), where it is detected, and
/// its documentation. `name`, `code`, `severity` and `summary` are the declaration's.
#[derive(Debug)]
pub struct Lint {
    /// The snake_case name used in `# toolgate: allow(<name>)`.
    pub name: &'static str,
    /// The stable code, `toolgate::<name>`.
    pub code: &'static str,
    /// Error or warning.
    pub severity: Severity,
    /// Where it is detected.
    pub stage: Stage,
    /// One line: what the lint reports.
    pub summary: &'static str,
    /// The rule file's doc comment (Markdown, one leading space per line as rustc keeps it).
    pub doc: &'static str,
    /// The declaration of its code, which diagnostics of this lint are built from.
    pub declared: &'static Code,
}

impl Lint {
    /// The lint of a declared code.
    pub const fn new(declared: &'static Code, stage: Stage, doc: &'static str) -> Lint {
        Lint {
            name: declared.name,
            code: declared.code,
            severity: declared.severity,
            stage,
            summary: declared.summary,
            doc,
            declared,
        }
    }

    /// The documentation with the leading space of each line removed.
    pub fn doc_text(&self) -> String {
        self.doc
            .lines()
            .map(|l| l.strip_prefix(' ').unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The text of one `## ` section of the documentation (without its heading).
    pub fn section(&self, heading: &str) -> Option<String> {
        let doc = self.doc_text();
        let start = doc.find(&format!("## {heading}\n"))? + heading.len() + 4;
        let rest = &doc[start..];
        let end = rest.find("\n## ").unwrap_or(rest.len());
        Some(rest[..end].trim().to_string())
    }
}

/// Declares a lint of a code of [`crate::diagnostic::code`]: its doc comment becomes both the
/// item's rustdoc and [`Lint::doc`].
macro_rules! declare_lint {
    (
        $(#[doc = $doc:literal])*
        $vis:vis static $ident:ident = {
            code: $code:ident,
            stage: $stage:ident $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        $vis static $ident: $crate::lint::Lint = $crate::lint::Lint::new(
            &$crate::diagnostic::code::$code,
            $crate::lint::Stage::$stage,
            concat!($($doc, "\n"),*),
        );
    };
}
pub(crate) use declare_lint;

/// Runs every [`Stage::Lint`] analysis on a resolved policy (warnings, and the error
/// `toolgate::unknown_argument`). Rules whose span overlaps one of
/// `errors` (a part of them failed to resolve) are left out of every analysis, so a
/// half-resolved rule is never reported, nor used to report another.
pub fn run(policy: &Policy, errors: &[Span]) -> Diagnostics {
    let mut cx = Context::new(policy, errors);
    let mut out = Vec::new();
    rules::unreachable_rule::check(&mut cx, &mut out);
    rules::deny_never_fires::check(&mut cx, &mut out);
    rules::pointless_allow::check(&mut cx, &mut out);
    rules::dead_allow::check(&mut cx, &mut out);
    rules::redundant_allow::check(&mut cx, &mut out);
    rules::comparison_undecided::check(&mut cx, &mut out);
    rules::unsatisfiable_condition::check(&mut cx, &mut out);
    rules::unanchored_regex::check(&mut cx, &mut out);
    rules::substring_allow::check(&mut cx, &mut out);
    rules::command_as_text::check(&mut cx, &mut out);
    rules::condition_type_mismatch::check(&mut cx, &mut out);
    rules::unused_grant::check(&mut cx, &mut out);
    rules::redundant_grant::check(&mut cx, &mut out);
    rules::unknown_name_in_test::check(&mut cx, &mut out);
    rules::unknown_argument::check(&mut cx, &mut out);
    rules::unreachable_host_tool::check(&mut cx, &mut out);
    let mut diags = Diagnostics::new();
    diags.extend(out);
    diags
}

/// What every analysis shares: the policy (with the tools each rule covers, as resolved),
/// compiled patterns.
pub(crate) struct Context<'a> {
    /// The resolved policy.
    pub policy: &'a Policy,
    /// Compiled condition patterns.
    pub langs: Langs,
    /// For each agent and rule, true when the rule overlaps an error and is left alone.
    pub skip: Vec<Vec<bool>>,
    /// Allow rules found dead (`dead_allow`), not reported again as redundant.
    pub dead: HashSet<(usize, usize)>,
    /// Rules (agent, rule) whose coverage could not be fully decided, each with the first
    /// rule it could not be compared with (`None`: the run's pair budget was spent first).
    pub undecided: BTreeMap<(usize, usize), Option<usize>>,
    /// Candidate pairs the coverage lints may still compare ([`cover::PAIR_BUDGET`]).
    pub pairs_left: usize,
    /// The value set of each (agent, rule, condition) the coverage lints compared, made once:
    /// a rule is compared with up to thousands of others.
    value_sets: FxHashMap<(usize, usize, usize), Option<Rc<ValueSet>>>,
    /// The rule [`Context::undecided`] recorded last.
    last_undecided: Option<(usize, usize)>,
}

impl<'a> Context<'a> {
    pub(crate) fn new(policy: &'a Policy, errors: &[Span]) -> Context<'a> {
        let overlaps = |s: Span| {
            errors.iter().any(|e| {
                e.file == s.file
                    && e.start < s.end.max(s.start + 1)
                    && s.start < e.end.max(e.start + 1)
            })
        };
        let skip = policy
            .agents
            .iter()
            .map(|a| a.rules.iter().map(|r| overlaps(r.span)).collect())
            .collect();
        Context {
            policy,
            langs: Langs::default(),
            skip,
            dead: HashSet::new(),
            undecided: BTreeMap::new(),
            pairs_left: cover::PAIR_BUDGET,
            value_sets: FxHashMap::default(),
            last_undecided: None,
        }
    }

    /// [`ValueSet::of`] condition `c` of rule `r` of agent `a`, for the rule's effect, made
    /// once; `None` when it is undecided or there is no such condition.
    pub(crate) fn value_set(&mut self, a: usize, r: usize, c: usize) -> Option<Rc<ValueSet>> {
        if let Some(v) = self.value_sets.get(&(a, r, c)) {
            return v.clone();
        }
        let rule = self.policy.agents.get(a)?.rules.get(r)?;
        let v = rule
            .conditions
            .get(c)
            .and_then(|cond| ValueSet::of(&cond.test, rule.effect))
            .map(Rc::new);
        self.value_sets.insert((a, r, c), v.clone());
        v
    }

    /// Records that whether rule `r` of agent `a` is covered could not be decided (against
    /// rule `other`, or at all); the first record of a rule is kept.
    pub(crate) fn undecided(&mut self, a: usize, r: usize, other: Option<usize>) {
        // A rule is compared with its candidates one after the other, and each undecided
        // pair lands here: the last rule recorded needs no lookup.
        if self.last_undecided == Some((a, r)) {
            return;
        }
        self.last_undecided = Some((a, r));
        self.undecided.entry((a, r)).or_insert(other);
    }

    /// The catalog tools rule `r` of agent `a` covers (sorted; empty without a catalog).
    pub fn covers(&self, a: usize, r: usize) -> &'a [u32] {
        let policy = self.policy;
        let rule = policy.agents.get(a).and_then(|agent| agent.rules.get(r));
        rule.map_or(&[], |rule| &rule.covers)
    }

    /// True when rule `r` of agent `a` overlaps an error and is left alone (or is no rule).
    pub fn skipped(&self, a: usize, r: usize) -> bool {
        self.skip
            .get(a)
            .and_then(|rules| rules.get(r))
            .copied()
            .unwrap_or(true)
    }

    /// The tools rule `r` of agent `a` covers whose permission gate lets the agent through.
    pub fn reachable(&self, a: usize, r: usize) -> Vec<u32> {
        self.covers(a, r)
            .iter()
            .copied()
            .filter(|&t| self.policy.missing(a, t).is_none())
            .collect()
    }

    /// The name of a tool as messages show it.
    pub fn tool_name(&self, t: u32) -> String {
        let tool = self.policy.tools.get(t as usize);
        tool.map_or_else(String::new, |tool| self.policy.tool_display(tool))
    }

    /// True when every call to any of `tools` carries argument `path` (a required argument
    /// of each, enforced before rules run).
    pub fn always_present(&self, tools: &[u32], path: &[String]) -> bool {
        let [arg] = path else {
            return false;
        };
        !tools.is_empty()
            && tools.iter().all(|&t| {
                self.policy
                    .tools
                    .get(t as usize)
                    .and_then(|tool| tool.params.as_ref())
                    .is_some_and(|ps| ps.iter().any(|p| p.name == *arg && !p.optional))
            })
    }

    /// The agents with their index.
    pub fn agents(&self) -> impl Iterator<Item = (usize, &'a AgentDef)> {
        self.policy.agents.iter().enumerate()
    }

    /// The `allow` rules a lint may judge (those no error touches), with their agent.
    pub(crate) fn allow_rules(
        &self,
    ) -> impl Iterator<Item = (&'a AgentDef, &'a crate::resolve::RuleDef)> + '_ {
        self.agents().flat_map(move |(a, agent)| {
            agent
                .rules
                .iter()
                .enumerate()
                .filter(move |&(r, rule)| {
                    rule.effect == crate::syntax::ast::Effect::Allow && !self.skipped(a, r)
                })
                .map(move |(_, rule)| (agent, rule))
        })
    }
}

/// A warning for `lint` at `span`.
pub(crate) fn warning(lint: &Lint, span: Span, message: impl Into<String>) -> Diagnostic {
    debug_assert_eq!(lint.severity, Severity::Warning);
    Diagnostic::new(lint.declared, span, message)
}

/// `a`, `a` and `b`, `a`, `b` and `c`.
pub(crate) fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
