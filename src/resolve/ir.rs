//! The resolved policy: names checked, catalog merged, grants and patterns validated.
//! This is what the compiler (and the test runner) consume.

use super::permission::{Grant, Permission};
use crate::source::{SourceMap, Span};
use crate::syntax::ast::{CmpOp, Effect, TestBlock};

/// A validated, merged policy.
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
}

impl Policy {
    /// True when the policy declares at least one tool: the catalog is then authoritative.
    pub fn has_catalog(&self) -> bool {
        !self.tools.is_empty()
    }

    /// The name of a tool as messages show it: `server.tool`, or the bare name of a host tool.
    pub fn tool_display(&self, tool: &ToolDef) -> String {
        match tool.server {
            Some(s) => format!("{}.{}", self.servers[s].name, tool.name),
            None => tool.name.clone(),
        }
    }

    /// The agent with this name.
    pub fn agent(&self, name: &str) -> Option<&AgentDef> {
        self.agents.iter().find(|a| a.name == name)
    }
}

/// `server NAME`
#[derive(Debug, Clone)]
pub struct ServerDef {
    /// Its name.
    pub name: String,
    /// Where it is declared.
    pub span: Span,
}

/// One declared tool.
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

/// A declared argument.
#[derive(Debug, Clone)]
pub struct ParamDef {
    /// Its name.
    pub name: String,
    /// True for `name?`.
    pub optional: bool,
}

/// One agent.
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
}

/// One allow or deny rule.
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
}

/// A rule target.
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
}

/// A string pattern.
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
