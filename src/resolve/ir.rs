//! The resolved policy: names checked, catalog merged, grants and patterns validated.
//! This is what the compiler (and the test runner) consume.

use super::permission::{Grant, Permission};
use crate::source::{SourceMap, Span};
use crate::syntax::ast::{CmpOp, Effect, TestBlock};

/// A validated, merged policy.
///
/// # Example
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "tool t\nagent a { allow t }\nagent b {}");
/// let (policy, diags) = toolgate::load::policy_from_sources(m);
/// assert!(!diags.has_errors());
/// assert_eq!((policy.tools.len(), policy.agents.len()), (1, 2));
/// ```
#[derive(Debug, Clone)]
pub struct Policy {
    /// The files the policy came from.
    pub sources: SourceMap,
    /// Declared servers.
    pub servers: Vec<ServerDef>,
    /// Declared tools (server tools and host tools) in declaration order.
    pub tools: Vec<ToolDef>,
    /// Agents in declaration order.
    pub agents: Vec<AgentDef>,
    /// Test blocks in declaration order.
    pub tests: Vec<TestBlock>,
    /// Catalog tool indices by bare name (several when servers share a tool name).
    pub(crate) tool_index: rustc_hash::FxHashMap<String, Vec<u32>>,
}

impl Policy {
    /// True when the policy declares at least one tool: the catalog is then authoritative.
    ///
    /// # Example
    ///
    /// ```
    /// let mut m = toolgate::source::SourceMap::new();
    /// m.add("p.policy", "agent a { allow t }");
    /// let (policy, _) = toolgate::load::policy_from_sources(m);
    /// assert!(!policy.has_catalog());
    /// ```
    pub fn has_catalog(&self) -> bool {
        !self.tools.is_empty()
    }

    /// The name of a tool as messages show it: `server.tool`, or the bare name of a host tool.
    ///
    /// # Example
    ///
    /// ```
    /// let mut m = toolgate::source::SourceMap::new();
    /// m.add("p.policy", "server git { tool log }\ntool Bash");
    /// let (p, _) = toolgate::load::policy_from_sources(m);
    /// assert_eq!(p.tool_display(&p.tools[0]), "git.log");
    /// assert_eq!(p.tool_display(&p.tools[1]), "Bash");
    /// ```
    pub fn tool_display(&self, tool: &ToolDef) -> String {
        match tool.server.and_then(|s| self.servers.get(s)) {
            Some(server) => format!("{}.{}", server.name, tool.name),
            None => tool.name.clone(),
        }
    }

    /// The agent with this name.
    ///
    /// # Example
    ///
    /// ```
    /// let mut m = toolgate::source::SourceMap::new();
    /// m.add("p.policy", "tool t\nagent a { allow t }");
    /// let (policy, _) = toolgate::load::policy_from_sources(m);
    /// assert_eq!(policy.agent("a").unwrap().rules.len(), 1);
    /// assert!(policy.agent("b").is_none());
    /// ```
    pub fn agent(&self, name: &str) -> Option<&AgentDef> {
        self.agents.iter().find(|a| a.name == name)
    }

    /// The catalog tools (indices into [`Policy::tools`]) with this bare name: several when
    /// servers share a tool name, none when no tool has it.
    ///
    /// # Example
    ///
    /// ```
    /// let mut m = toolgate::source::SourceMap::new();
    /// m.add("p.policy", "server a { tool log }\nserver b { tool log }\ntool Bash");
    /// let (p, _) = toolgate::load::policy_from_sources(m);
    /// assert_eq!((p.tools_named("log"), p.tools_named("x")), (&[0, 1][..], &[][..]));
    /// ```
    pub fn tools_named(&self, name: &str) -> &[u32] {
        self.tool_index.get(name).map_or(&[], Vec::as_slice)
    }

    /// The first permission catalog tool `tool` needs that agent `agent` (indices into
    /// [`Policy::tools`] and [`Policy::agents`]) is not granted: the permission gate's refusal.
    /// `None` when the gate lets the agent through (or either index is out of range).
    ///
    /// # Example
    ///
    /// ```
    /// let mut m = toolgate::source::SourceMap::new();
    /// m.add("p.policy", "tool r needs fs:read\ntool w needs fs:read, fs:write\nagent a { grant fs:read }");
    /// let (p, _) = toolgate::load::policy_from_sources(m);
    /// assert!(p.missing(0, 0).is_none());
    /// assert_eq!(p.missing(0, 1).unwrap().to_string(), "fs:write");
    /// ```
    pub fn missing(&self, agent: usize, tool: u32) -> Option<&Permission> {
        let need = self.agents.get(agent)?.gate.get(tool as usize).copied()??;
        self.tools.get(tool as usize)?.needs.get(need)
    }
}

/// `server NAME`
///
/// # Example
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "server git { tool log }");
/// let (policy, _) = toolgate::load::policy_from_sources(m);
/// assert_eq!(policy.servers[0].name, "git");
/// assert_eq!(policy.tools[0].server, Some(0));
/// ```
#[derive(Debug, Clone)]
pub struct ServerDef {
    /// Its name.
    pub name: String,
    /// Where it is declared.
    pub span: Span,
}

/// One declared tool.
///
/// # Example
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "tool read_file(path) needs fs:read");
/// let (policy, _) = toolgate::load::policy_from_sources(m);
/// let t = &policy.tools[0];
/// assert_eq!((t.name.as_str(), t.server, t.needs[0].to_string()), ("read_file", None, "fs:read".into()));
/// ```
#[derive(Debug, Clone)]
pub struct ToolDef {
    /// The server that owns it; `None` for a host tool.
    pub server: Option<usize>,
    /// Its bare name.
    pub name: String,
    /// Declared arguments; `None` when no argument list was written.
    pub params: Option<Vec<ParamDef>>,
    /// Permissions it needs, in declaration order.
    pub needs: Vec<Permission>,
    /// Where it is declared.
    pub span: Span,
}

impl ToolDef {
    /// The names of the required arguments, in declaration order (the first one missing is the
    /// one a denial names).
    ///
    /// # Example
    ///
    /// ```
    /// let mut m = toolgate::source::SourceMap::new();
    /// m.add("p.policy", "tool t(a, b?, c: integer)");
    /// let (policy, _) = toolgate::load::policy_from_sources(m);
    /// assert_eq!(policy.tools[0].required_args(), ["a", "c"]);
    /// ```
    pub fn required_args(&self) -> Vec<String> {
        let params = self.params.iter().flatten();
        params
            .filter(|p| !p.optional)
            .map(|p| p.name.clone())
            .collect()
    }

    /// The arguments declared with a type other than `any`, with it, in declaration order.
    ///
    /// # Example
    ///
    /// ```
    /// let mut m = toolgate::source::SourceMap::new();
    /// m.add("p.policy", "tool t(a, b?: string, c: any)");
    /// let (policy, _) = toolgate::load::policy_from_sources(m);
    /// let typed = policy.tools[0].typed_args();
    /// assert_eq!((typed.len(), typed[0].0.as_str()), (1, "b"));
    /// ```
    pub fn typed_args(&self) -> Vec<(String, super::ArgType)> {
        let params = self.params.iter().flatten();
        params
            .filter(|p| !p.ty.is_any())
            .map(|p| (p.name.clone(), p.ty))
            .collect()
    }
}

/// A declared argument.
///
/// # Example
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "tool git_log(repo, max?)");
/// let (policy, _) = toolgate::load::policy_from_sources(m);
/// let params = policy.tools[0].params.as_ref().unwrap();
/// assert_eq!((params[1].name.as_str(), params[1].optional), ("max", true));
/// assert!(params[1].ty.is_any());
/// ```
#[derive(Debug, Clone)]
pub struct ParamDef {
    /// Its name.
    pub name: String,
    /// True for `name?`.
    pub optional: bool,
    /// Its declared type; `any` when none is written.
    pub ty: super::ArgType,
    /// Where its type is written, if it is.
    pub ty_span: Option<Span>,
}

/// One agent.
///
/// # Example
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "tool t needs fs:read\nagent a {\n grant fs:read\n allow t\n}");
/// let (policy, _) = toolgate::load::policy_from_sources(m);
/// let a = policy.agent("a").unwrap();
/// assert_eq!((a.grants.len(), a.rules.len(), a.invalid_grants), (1, 1, false));
/// assert_eq!(a.gate, [None]);
/// ```
#[derive(Debug, Clone)]
pub struct AgentDef {
    /// Its name.
    pub name: String,
    /// Where its name is.
    pub span: Span,
    /// Everything granted, with where.
    pub grants: Vec<(Grant, Span)>,
    /// True when a `grant` item was refused (an error was reported): what the agent was
    /// meant to be granted is unknown.
    pub invalid_grants: bool,
    /// What happens when no rule matches.
    pub default: Effect,
    /// Where `default` was written, if it was.
    pub default_span: Option<Span>,
    /// Rules in source order.
    pub rules: Vec<RuleDef>,
    /// For each catalog tool, the position in its `needs` of the first permission the agent
    /// is not granted; `None` when the permission gate lets the agent through. Empty without
    /// a catalog. [`Policy::missing`] reads it as a permission.
    pub gate: Vec<Option<usize>>,
}

/// One allow or deny rule.
///
/// # Example
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "tool t(p)\nagent a { deny t where p == \"x\" because \"no\" }");
/// let (policy, _) = toolgate::load::policy_from_sources(m);
/// let rule = &policy.agents[0].rules[0];
/// assert_eq!((rule.conditions.len(), rule.because.as_deref()), (1, Some("no")));
/// assert_eq!(rule.covers, [0]);
/// ```
#[derive(Debug, Clone)]
pub struct RuleDef {
    /// Allow or deny.
    pub effect: Effect,
    /// What it applies to.
    pub target: TargetDef,
    /// Conditions, all of which must hold.
    pub conditions: Vec<CondDef>,
    /// The denial message.
    pub because: Option<String>,
    /// The whole rule.
    pub span: Span,
    /// The catalog tools (sorted indices into [`Policy::tools`]) the target covers; empty
    /// without a catalog.
    pub covers: Vec<u32>,
}

/// A rule target.
///
/// # Example
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "server git { tool log }\nagent a { allow git.* }");
/// let (policy, _) = toolgate::load::policy_from_sources(m);
/// let target = &policy.agents[0].rules[0].target;
/// assert_eq!((target.text.as_str(), target.server.is_some()), ("git.*", true));
/// ```
#[derive(Debug, Clone)]
pub struct TargetDef {
    /// The server part; `None` when the target names no server.
    pub server: Option<NamePattern>,
    /// The tool part.
    pub tool: NamePattern,
    /// The target as written.
    pub text: String,
    /// Where it is.
    pub span: Span,
}

/// One part of a target.
///
/// # Example
///
/// ```
/// use toolgate::resolve::{name_matches, NamePattern};
/// assert!(name_matches(&NamePattern::Any, "anything"));
/// assert!(name_matches(&NamePattern::Literal("Bash".into()), "Bash"));
/// assert!(!name_matches(&NamePattern::Literal("Bash".into()), "bash"));
/// ```
#[derive(Debug, Clone)]
pub enum NamePattern {
    /// `*`: any name.
    Any,
    /// An exact name.
    Literal(String),
    /// A glob over names.
    Glob {
        /// As written.
        text: String,
        /// Anchored regex with globset's semantics.
        regex: String,
    },
}

/// One condition.
///
/// # Example
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "tool t(opts)\nagent a { allow t where opts.mode == \"r\" }");
/// let (policy, _) = toolgate::load::policy_from_sources(m);
/// let cond = &policy.agents[0].rules[0].conditions[0];
/// assert_eq!(cond.path, ["opts", "mode"]);
/// ```
#[derive(Debug, Clone)]
pub struct CondDef {
    /// The argument path (keys, outermost first).
    pub path: Vec<String>,
    /// What must hold.
    pub test: CondTest,
    /// The condition as written.
    pub text: String,
    /// Where it is.
    pub span: Span,
}

/// What a condition tests, after validation.
///
/// # Example
///
/// ```
/// use toolgate::resolve::CondTest;
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "tool t(n)\nagent a { allow t where n <= 5 and n present }");
/// let (policy, _) = toolgate::load::policy_from_sources(m);
/// let conds = &policy.agents[0].rules[0].conditions;
/// assert!(matches!(conds[0].test, CondTest::Num(_, n) if n == 5.0) && matches!(conds[1].test, CondTest::Present));
/// ```
#[derive(Debug, Clone)]
pub enum CondTest {
    /// `present`
    Present,
    /// A string pattern, possibly negated (`!=`).
    Str {
        /// The pattern.
        pattern: StrPattern,
        /// True for `!=`: the plain negation of `==`.
        negated: bool,
    },
    /// `contains "s"` / `contains any [..]`: holds when any needle occurs.
    Contains(Vec<String>),
    /// A numeric comparison.
    Num(CmpOp, f64),
    /// `matches shell "..."`: the value parsed as a shell command line and matched against an
    /// argv pattern (the pattern text, validated by the resolver).
    Shell(String),
}

/// A string pattern.
///
/// # Example
///
/// ```
/// use toolgate::resolve::{CondTest, StrPattern};
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "tool t(p)\nagent a { allow t where p matches \"/srv/**\" }");
/// let (policy, _) = toolgate::load::policy_from_sources(m);
/// let test = &policy.agents[0].rules[0].conditions[0].test;
/// assert!(matches!(test, CondTest::Str { pattern: StrPattern::PathGlob { .. }, negated: false }));
/// ```
#[derive(Debug, Clone)]
pub enum StrPattern {
    /// `== "s"` / `in [..]`: the value is one of these.
    OneOf(Vec<String>),
    /// A plain glob (no normalization).
    Glob {
        /// As written.
        text: String,
        /// Anchored regex.
        regex: String,
    },
    /// A path glob: the value is normalized first; unreadable values fail closed.
    PathGlob {
        /// As written.
        text: String,
        /// Anchored regex over the normalized value.
        regex: String,
    },
    /// A regex that matches anywhere in the value.
    Regex(String),
}
