//! The syntax tree of a `.policy` file. Every node carries the byte span it came from; two
//! trees are equal (`==`) when they differ at most in spans (see `syntax::same`).

use super::same::{span_blind_enum, span_blind_struct};
use crate::source::Span;

/// A name as written: an identifier or a quoted string.
#[derive(Debug, Clone)]
pub struct Name {
    /// The name's text (quotes removed, escapes decoded).
    pub text: String,
    /// True when it was written as a quoted string.
    pub quoted: bool,
    /// Where it is.
    pub span: Span,
}

/// A string literal (JSON escapes decoded) or a regex literal (raw).
#[derive(Debug, Clone)]
pub struct StrLit {
    /// The decoded value.
    pub value: String,
    /// The span of the whole literal, quotes included.
    pub span: Span,
}

/// A permission as written (`fs:read`, `fs:*`, `*`); validated by the resolver.
#[derive(Debug, Clone)]
pub struct PermissionLit {
    /// The text as written.
    pub text: String,
    /// Where it is.
    pub span: Span,
}

/// One parsed file.
#[derive(Debug, Clone, Default)]
pub struct File {
    /// Top-level items in source order.
    pub items: Vec<Item>,
}

/// A top-level item.
#[derive(Debug, Clone)]
pub enum Item {
    /// `server NAME { tool ... }`
    Server(Server),
    /// A host tool: `tool NAME(...) needs ...` at the top level.
    Tool(ToolDecl),
    /// `agent NAME { ... }`
    Agent(Agent),
    /// `test "name" { ... }`
    Test(TestBlock),
}

/// `server NAME { tool ... }`
#[derive(Debug, Clone)]
pub struct Server {
    /// The server's name.
    pub name: Name,
    /// Its tools.
    pub tools: Vec<ToolDecl>,
    /// The whole declaration.
    pub span: Span,
}

/// `tool NAME(args) needs perms`
#[derive(Debug, Clone)]
pub struct ToolDecl {
    /// The tool's name.
    pub name: Name,
    /// Declared arguments; `None` when the tool has no argument list.
    pub params: Option<Vec<Param>>,
    /// Permissions the tool needs, in declaration order.
    pub needs: Vec<PermissionLit>,
    /// The whole declaration.
    pub span: Span,
}

/// One declared argument.
#[derive(Debug, Clone)]
pub struct Param {
    /// The argument's name.
    pub name: Name,
    /// True for `name?`.
    pub optional: bool,
    /// The declared type (`name: string`); `None` when none is written.
    pub ty: Option<TypeExpr>,
}

/// A declared argument type as written: `string`, `array<path>`, `array<array<integer>>`.
/// Validated by the resolver (`crate::resolve::ArgType`).
#[derive(Debug, Clone)]
pub struct TypeExpr {
    /// The type words, outermost first: `array<array<integer>>` is `array`, `array`,
    /// `integer`.
    pub words: Vec<Name>,
    /// The whole type.
    pub span: Span,
}

/// Allow or deny.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Effect {
    /// `allow`
    Allow,
    /// `deny`
    Deny,
}

impl Effect {
    /// `"allow"` or `"deny"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Allow => "allow",
            Effect::Deny => "deny",
        }
    }
}

/// `agent NAME { ... }`
#[derive(Debug, Clone)]
pub struct Agent {
    /// The agent's name.
    pub name: Name,
    /// Statements in source order.
    pub stmts: Vec<AgentStmt>,
    /// The whole block.
    pub span: Span,
}

/// A statement inside an agent.
#[derive(Debug, Clone)]
pub enum AgentStmt {
    /// `grant p, q`
    Grant(Vec<PermissionLit>, Span),
    /// `default allow|deny`
    Default(Effect, Span),
    /// `allow ...` / `deny ...` (boxed: a rule is six times the size of the other
    /// statements, and a policy may hold a hundred thousand agents' statements at once)
    Rule(Box<Rule>),
}

/// `allow|deny TARGET [where ...] [because "..."]`
#[derive(Debug, Clone)]
pub struct Rule {
    /// Allow or deny.
    pub effect: Effect,
    /// What the rule applies to.
    pub target: Target,
    /// Conditions joined by `and`.
    pub conditions: Vec<Condition>,
    /// The denial message.
    pub because: Option<StrLit>,
    /// The whole rule.
    pub span: Span,
}

/// A rule target: `SERVER.TOOL`, `TOOL`, or globs over either part.
#[derive(Debug, Clone)]
pub struct Target {
    /// The server part, when written.
    pub server: Option<TargetPart>,
    /// The tool part.
    pub tool: TargetPart,
    /// The whole target.
    pub span: Span,
}

/// One part of a target. Quoted parts are literal names, never globs.
#[derive(Debug, Clone)]
pub struct TargetPart {
    /// The text (quotes removed).
    pub text: String,
    /// True when quoted.
    pub quoted: bool,
    /// Where it is.
    pub span: Span,
}

impl TargetPart {
    /// True when the part is an unquoted glob with a wildcard in it.
    pub fn is_glob(&self) -> bool {
        !self.quoted && self.text.contains(['*', '?', '['])
    }
}

/// `ARG OP ...`
#[derive(Debug, Clone)]
pub struct Condition {
    /// The argument path.
    pub arg: ArgPath,
    /// What must hold of it.
    pub op: CondOp,
    /// The whole condition.
    pub span: Span,
}

/// `name` or `a.b.c`: a path into the call's arguments.
#[derive(Debug, Clone)]
pub struct ArgPath {
    /// The keys, outermost first.
    pub segments: Vec<String>,
    /// Where it is.
    pub span: Span,
}

impl ArgPath {
    /// The path as written (segments joined by `.`).
    pub fn display(&self) -> String {
        self.segments.join(".")
    }
}

/// A numeric comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

impl CmpOp {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
        }
    }

    /// Applies the comparison `lhs OP rhs`.
    pub fn apply(self, lhs: f64, rhs: f64) -> bool {
        match self {
            CmpOp::Lt => lhs < rhs,
            CmpOp::Le => lhs <= rhs,
            CmpOp::Gt => lhs > rhs,
            CmpOp::Ge => lhs >= rhs,
            CmpOp::Eq => lhs == rhs,
            CmpOp::Ne => lhs != rhs,
        }
    }
}

/// What a condition asks of an argument.
#[derive(Debug, Clone)]
pub enum CondOp {
    /// `present`
    Present,
    /// `== "s"`
    StrEq(StrLit),
    /// `!= "s"`
    StrNe(StrLit),
    /// `< N` and friends
    Num(CmpOp, f64, Span),
    /// `in ["a", "b"]`
    In(Vec<StrLit>),
    /// `matches "glob"`
    Glob(StrLit),
    /// `matches re"regex"`
    Regex(StrLit),
    /// `matches shell "argv pattern"`
    Shell(StrLit),
    /// `contains "s"`
    Contains(StrLit),
    /// `contains any ["a", "b"]`
    ContainsAny(Vec<StrLit>),
}

/// `test "name" { expectations }`
#[derive(Debug, Clone)]
pub struct TestBlock {
    /// The test's name.
    pub name: StrLit,
    /// Its expectations in order.
    pub expectations: Vec<Expectation>,
    /// The whole block.
    pub span: Span,
}

/// `allow|deny AGENT TOOL {ARGS} [needs ...] [REASON]`
#[derive(Debug, Clone)]
pub struct Expectation {
    /// The expected decision.
    pub expect: Effect,
    /// The agent making the call.
    pub agent: Name,
    /// The server, for `server.tool`.
    pub server: Option<Name>,
    /// The tool.
    pub tool: Name,
    /// The call's arguments.
    pub args: serde_json::Map<String, serde_json::Value>,
    /// Permissions the call declares (policies without a catalog).
    pub needs: Option<Vec<PermissionLit>>,
    /// The expected reason.
    pub reason: Option<Name>,
    /// The whole expectation.
    pub span: Span,
}

// Equality of syntax trees ignores spans: two texts that differ only in layout parse to equal
// trees (`fmt` checks its output so).
span_blind_struct!(Name { text, quoted, span });
span_blind_struct!(StrLit { value, span });
span_blind_struct!(PermissionLit { text, span });
span_blind_struct!(File { items });
span_blind_enum!(Item {
    Server(a / b),
    Tool(a / b),
    Agent(a / b),
    Test(a / b),
});
span_blind_struct!(Server { name, tools, span });
span_blind_struct!(ToolDecl {
    name,
    params,
    needs,
    span
});
span_blind_struct!(Param { name, optional, ty });
span_blind_struct!(TypeExpr { words, span });
span_blind_struct!(Agent { name, stmts, span });
span_blind_enum!(AgentStmt {
    Grant(a0 / b0, a1 / b1),
    Default(a0 / b0, a1 / b1),
    Rule(a / b),
});
span_blind_struct!(Rule {
    effect,
    target,
    conditions,
    because,
    span
});
span_blind_struct!(Target { server, tool, span });
span_blind_struct!(TargetPart { text, quoted, span });
span_blind_struct!(Condition { arg, op, span });
span_blind_struct!(ArgPath { segments, span });
span_blind_enum!(CondOp {
    Present,
    StrEq(a / b),
    StrNe(a / b),
    Num(a0 / b0, a1 / b1, a2 / b2),
    In(a / b),
    Glob(a / b),
    Regex(a / b),
    Shell(a / b),
    Contains(a / b),
    ContainsAny(a / b),
});
span_blind_struct!(TestBlock {
    name,
    expectations,
    span
});
span_blind_struct!(Expectation {
    expect,
    agent,
    server,
    tool,
    args,
    needs,
    reason,
    span
});
