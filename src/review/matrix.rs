//! The effective permissions of a policy: for every agent and catalog tool, never, always, or
//! under which conditions.
//!
//! [`Matrix::build`] reads the resolved policy and classifies each agent × tool cell
//! ([`Access`]) in the engine's order of checks (docs/language.md, section 11):
//!
//! 1. **never**, when the tool is a host tool whose name a server also uses (no request can
//!    address it), or when the agent lacks a permission the tool needs (the first one, as the
//!    gate reports it);
//! 2. then the rules targeting the tool: a `deny` whose only conditions are `present` on
//!    required arguments (or none) always fires, so **never**; with `default deny`, no `allow`
//!    targeting the tool is **never**, and so is every `allow` being covered by such a deny
//!    (coverage as `toolgate check` decides it, `src/lint/cover.rs`);
//! 3. **always**, when an `allow` holds on every call (no conditions but `present` on required
//!    arguments), or the default is `allow`, and no `deny` targets the tool;
//! 4. otherwise **under conditions**: the `allow` rules that may fire (an OR of their
//!    conjunctions; or the `allow` default), except when one of the `deny` rules fires.
//!
//! A deny with value conditions never makes a cell "never": a call whose argument is an empty
//! array passes an allow's conditions vacuously and fires no deny condition, so such a deny
//! carves calls out of the allowed ones but cannot remove them all.
//!
//! A call whose argument has another type than the catalog declares (`tool Bash(command:
//! string)`) is refused (`invalid_argument`) before any rule runs: the classification is of
//! well-typed calls, and each cell keeps its tool's declared types.
//!
//! The conditions are kept evaluable ([`Condition::holds`], built from the engine's own
//! matchers), so a cell can be asked whether it admits a call ([`Cell::admits`]: the declared
//! types, checked as the engine checks them, then [`Access::admits`]), and
//! [`Matrix::disagreements`] checks the matrix against the compiled engine.
//!
//! Without a catalog, the tools are the ones rules name literally, and permissions are not
//! judged (each request declares its own).
//!
//! # Example
//!
//! ```
//! use toolgate::review::matrix::{Access, Matrix};
//! let mut m = toolgate::source::SourceMap::new();
//! m.add("p.policy", r#"
//!     tool read_file(path) needs fs:read
//!     tool write_file(path) needs fs:write
//!     agent bot {
//!       grant fs:read
//!       allow read_file where path matches "/srv/**"
//!     }
//! "#);
//! let (policy, _) = toolgate::load::policy_from_sources(m);
//! let matrix = Matrix::build(&policy);
//! assert!(matches!(matrix.cell(0, 0).access, Access::Conditional(_)));
//! assert!(matches!(matrix.cell(0, 1).access, Access::Never(_)));
//! ```

mod classify;
mod condition;
mod json;
mod markdown;
mod text;

pub use condition::Condition;
pub use json::to_json;
pub use markdown::to_markdown;
pub use text::to_text;

use crate::resolve::{ArgType, BaseType, Policy, RuleDef};
use crate::source::SourceMap;
use crate::syntax::ast::Effect;
use crate::{Engine, Request};
use serde_json::{Map, Value};

/// The effective permissions of every agent on every tool.
#[derive(Debug, Clone)]
pub struct Matrix {
    /// False when the policy declares no tools: the tools are those rules name literally.
    pub catalog: bool,
    /// The agents, in declaration order.
    pub agents: Vec<String>,
    /// The tools, in declaration order (without a catalog: in order of first mention).
    pub tools: Vec<MatrixTool>,
    /// One cell per agent and tool, agent by agent.
    pub cells: Vec<Cell>,
}

/// A tool of the matrix.
#[derive(Debug, Clone)]
pub struct MatrixTool {
    /// The server that owns it; `None` for a host tool.
    pub server: Option<String>,
    /// Its bare name.
    pub name: String,
    /// `server.tool`, or the host tool's name.
    pub display: String,
    /// The arguments every call must include (declared without `?`).
    pub required: Vec<String>,
    /// The declared arguments; `None` when the tool declares no argument list (or without a
    /// catalog).
    pub arguments: Option<Vec<String>>,
    /// The arguments declared with a type other than `any`, in declaration order, each with
    /// its type: the engine refuses a call whose argument has another type
    /// (`invalid_argument`) before any rule runs.
    pub types: Vec<(String, ArgType)>,
}

impl MatrixTool {
    /// `command: string, timeout: number`: the declared types, for reports; `None` when the
    /// tool declares none.
    pub fn types_text(&self) -> Option<String> {
        (!self.types.is_empty()).then(|| {
            self.types
                .iter()
                .map(|(arg, ty)| format!("{arg}: {ty}"))
                .collect::<Vec<_>>()
                .join(", ")
        })
    }
}

/// What one agent may do with one tool.
#[derive(Debug, Clone)]
pub struct Cell {
    /// The agent.
    pub agent: String,
    /// The tool as messages show it.
    pub tool: String,
    /// Never, always, or under conditions, for calls whose arguments have their declared
    /// types (any other call is never allowed).
    pub access: Access,
    /// The tool's declared argument types (as [`MatrixTool::types`]).
    pub types: Vec<(String, ArgType)>,
}

impl Cell {
    /// Whether the cell admits a call with these arguments (the required ones present): what
    /// the matrix predicts the engine decides. A call whose argument has another type than
    /// the declared one is never admitted; otherwise as [`Access::admits`]. `None` when a
    /// matcher could not run.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::review::matrix::Matrix;
    /// let mut m = toolgate::source::SourceMap::new();
    /// m.add("p.policy", "tool t(p: integer)\nagent a { allow t }");
    /// let (policy, _) = toolgate::load::policy_from_sources(m);
    /// let matrix = Matrix::build(&policy);
    /// let cell = matrix.cell(0, 0);
    /// let args = |v: serde_json::Value| v.as_object().unwrap().clone();
    /// assert_eq!(cell.admits(&args(serde_json::json!({"p": 3}))), Some(true));
    /// assert_eq!(cell.admits(&args(serde_json::json!({"p": 0.5}))), Some(false));
    /// ```
    pub fn admits(&self, args: &Map<String, Value>) -> Option<bool> {
        if !well_typed(&self.types, args) {
            return Some(false);
        }
        self.access.admits(args)
    }
}

/// The classification of one cell.
#[derive(Debug, Clone)]
pub enum Access {
    /// No call is allowed.
    Never(Never),
    /// Every call that includes the required arguments, with every argument of its declared
    /// type, is allowed.
    Always(Always),
    /// Some calls are allowed.
    Conditional(Conditional),
}

/// Why no call is allowed.
#[derive(Debug, Clone)]
pub enum Never {
    /// The agent is not granted this permission, the first the tool needs that it lacks.
    PermissionMissing(String),
    /// A host tool whose name is also a server tool's: every request for it is ambiguous.
    Ambiguous,
    /// The default is deny and no allow rule targets the tool.
    NoAllowRule,
    /// A deny rule fires on every call.
    DeniedByRule(RuleLoc),
    /// Every allow rule targeting the tool is covered by a deny that fires wherever it does:
    /// pairs of (allow, deny).
    AllowsOverridden(Vec<(RuleLoc, RuleLoc)>),
}

/// Why every call is allowed.
#[derive(Debug, Clone)]
pub enum Always {
    /// This allow rule holds on every call.
    Rule(RuleLoc),
    /// The agent's default is allow and no deny rule targets the tool.
    Default,
}

/// Allowed when one of `allows` holds (or always, with `default_allow`), unless one of
/// `exceptions` fires.
#[derive(Debug, Clone)]
pub struct Conditional {
    /// The agent's default is allow: every call is allowed unless an exception fires.
    pub default_allow: bool,
    /// The allow rules that may fire, in source order: an OR of their conditions.
    pub allows: Vec<Clause>,
    /// The deny rules that may fire, in source order.
    pub exceptions: Vec<Clause>,
}

/// One rule and its conditions (all of which must hold).
#[derive(Debug, Clone)]
pub struct Clause {
    /// The rule.
    pub rule: RuleLoc,
    /// Its conditions, as written.
    pub conditions: Vec<Condition>,
}

/// A rule as reports show it: `allow TARGET` and where it is written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RuleLoc {
    /// Allow or deny.
    pub effect: Effect,
    /// `allow TARGET` / `deny TARGET`, the target as written.
    pub text: String,
    /// The policy file.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

impl RuleLoc {
    /// The rule of a resolved policy.
    pub fn new(rule: &RuleDef, sources: &SourceMap) -> RuleLoc {
        let at = sources.location(rule.span);
        RuleLoc {
            effect: rule.effect,
            text: format!("{} {}", rule.effect.as_str(), rule.target.text),
            file: at.file,
            line: at.line,
            column: at.column,
        }
    }

    /// `FILE:LINE:COLUMN`.
    pub fn location(&self) -> String {
        format!("{}:{}:{}", self.file, self.line, self.column)
    }
}

/// Conditional cells that say the same thing.
#[derive(Debug, Clone)]
pub struct ConditionalGroup<'m> {
    /// The cells (indices into [`Matrix::cells`]), in order.
    pub cells: Vec<usize>,
    /// What they say.
    pub conditional: &'m Conditional,
}

impl ConditionalGroup<'_> {
    /// The arguments the group's allow rules constrain that some of its tools do not declare,
    /// each with those tools: such a condition only matters when a call passes the argument.
    pub fn undeclared<'m>(&self, matrix: &'m Matrix) -> Vec<(String, Vec<&'m str>)> {
        let mut out: Vec<(String, Vec<&'m str>)> = Vec::new();
        let args = self
            .conditional
            .allows
            .iter()
            .flat_map(|c| &c.conditions)
            .filter_map(|c| c.argument.first());
        for arg in args {
            if out.iter().any(|(a, _)| a == arg) {
                continue;
            }
            let tools: Vec<&str> = self
                .cells
                .iter()
                .filter_map(|&i| {
                    let tool = matrix.tools.get(i % matrix.tools.len().max(1))?;
                    let declared = tool.arguments.as_ref()?;
                    (!declared.contains(arg)).then_some(tool.display.as_str())
                })
                .collect();
            if !tools.is_empty() {
                out.push((arg.clone(), tools));
            }
        }
        out
    }

    /// The group's cells by agent: each agent once, with its tools, in order.
    pub fn by_agent<'m>(&self, matrix: &'m Matrix) -> Vec<(&'m str, Vec<&'m str>)> {
        let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
        for cell in self.cells.iter().filter_map(|&i| matrix.cells.get(i)) {
            match out.iter_mut().find(|(a, _)| *a == cell.agent) {
                Some((_, tools)) => tools.push(&cell.tool),
                None => out.push((&cell.agent, vec![&cell.tool])),
            }
        }
        out
    }
}

fn rules_of(clauses: &[Clause]) -> Vec<&RuleLoc> {
    clauses.iter().map(|c| &c.rule).collect()
}

impl Clause {
    /// Whether every condition holds on `args` for the rule's effect; `None` when a matcher
    /// could not run.
    pub fn holds(&self, args: &Map<String, Value>) -> Option<bool> {
        for c in &self.conditions {
            if !c.holds(args, self.rule.effect)? {
                return Some(false);
            }
        }
        Some(true)
    }

    /// The conditions grouped by argument, arguments in order of first mention.
    pub fn by_argument(&self) -> Vec<(String, Vec<&Condition>)> {
        let mut out: Vec<(String, Vec<&Condition>)> = Vec::new();
        for c in &self.conditions {
            let arg = c.argument_text();
            match out.iter_mut().find(|(a, _)| *a == arg) {
                Some((_, list)) => list.push(c),
                None => out.push((arg, vec![c])),
            }
        }
        out
    }
}

impl Access {
    /// Whether the cell admits a call with these arguments (the required ones present, every
    /// argument of its declared type): what the matrix predicts the engine decides for such a
    /// call. It does not check the types: [`Cell::admits`] does. `None` when a matcher could
    /// not run.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::review::matrix::Matrix;
    /// let mut m = toolgate::source::SourceMap::new();
    /// m.add("p.policy", "tool t(p)\nagent a {\n allow t where p in [\"x\", \"y\"]\n deny t where p == \"y\"\n}");
    /// let (policy, _) = toolgate::load::policy_from_sources(m);
    /// let matrix = Matrix::build(&policy);
    /// let access = &matrix.cell(0, 0).access;
    /// let args = |v: serde_json::Value| v.as_object().unwrap().clone();
    /// assert_eq!(access.admits(&args(serde_json::json!({"p": "x"}))), Some(true));
    /// assert_eq!(access.admits(&args(serde_json::json!({"p": "y"}))), Some(false));
    /// ```
    pub fn admits(&self, args: &Map<String, Value>) -> Option<bool> {
        match self {
            Access::Never(_) => Some(false),
            Access::Always(_) => Some(true),
            Access::Conditional(c) => {
                for e in &c.exceptions {
                    if e.holds(args)? {
                        return Some(false);
                    }
                }
                if c.default_allow {
                    return Some(true);
                }
                for a in &c.allows {
                    if a.holds(args)? {
                        return Some(true);
                    }
                }
                Some(false)
            }
        }
    }

    /// `"never"`, `"always"` or `"conditional"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Access::Never(_) => "never",
            Access::Always(_) => "always",
            Access::Conditional(_) => "conditional",
        }
    }
}

impl Never {
    /// A stable name: `permission_missing`, `ambiguous_tool`, `no_allow_rule`,
    /// `denied_by_rule` or `allows_overridden`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Never::PermissionMissing(_) => "permission_missing",
            Never::Ambiguous => "ambiguous_tool",
            Never::NoAllowRule => "no_allow_rule",
            Never::DeniedByRule(_) => "denied_by_rule",
            Never::AllowsOverridden(_) => "allows_overridden",
        }
    }
}

impl Matrix {
    /// Classifies every agent × tool cell of a resolved policy (one without errors).
    pub fn build(policy: &Policy) -> Matrix {
        classify::build(policy, &|loc| loc)
    }

    /// The matrix of a policy whose rules are shown at other places than their spans say:
    /// `relocate` maps each rule's place (a policy rebuilt from a bundle,
    /// [`crate::review::decompile`], shows the places the bundle records).
    pub fn build_relocated(policy: &Policy, relocate: &dyn Fn(RuleLoc) -> RuleLoc) -> Matrix {
        classify::build(policy, relocate)
    }

    /// The cell of agent `a` and tool `t` (indices into `agents` and `tools`).
    ///
    /// # Panics
    ///
    /// When either index is out of range.
    #[allow(
        clippy::indexing_slicing,
        reason = "documented panic: the cell of an agent or tool that is not in the matrix"
    )]
    pub fn cell(&self, a: usize, t: usize) -> &Cell {
        &self.cells[a * self.tools.len() + t]
    }

    /// The matrix of one agent only; `None` when there is no such agent.
    pub fn only_agent(mut self, agent: &str) -> Option<Matrix> {
        let a = self.agents.iter().position(|x| x == agent)?;
        let n = self.tools.len();
        self.cells = self.cells.drain(a * n..(a + 1) * n).collect();
        self.agents = vec![agent.to_string()];
        Some(self)
    }

    /// The conditional cells grouped by what they say (the same allow and deny rules), in
    /// order of first cell: reports list each group's conditions once and refer to it by
    /// number (its index + 1) from every cell of the group.
    pub fn conditional_groups(&self) -> Vec<ConditionalGroup<'_>> {
        let mut groups: Vec<ConditionalGroup<'_>> = Vec::new();
        for (i, cell) in self.cells.iter().enumerate() {
            let Access::Conditional(c) = &cell.access else {
                continue;
            };
            let same = |g: &ConditionalGroup<'_>| {
                g.conditional.default_allow == c.default_allow
                    && rules_of(&g.conditional.allows) == rules_of(&c.allows)
                    && rules_of(&g.conditional.exceptions) == rules_of(&c.exceptions)
            };
            match groups.iter_mut().find(|g| same(g)) {
                Some(g) => g.cells.push(i),
                None => groups.push(ConditionalGroup {
                    cells: vec![i],
                    conditional: c,
                }),
            }
        }
        groups
    }

    /// The group number (1-based) of each cell that is conditional, by cell index.
    pub fn group_numbers(groups: &[ConditionalGroup<'_>], n_cells: usize) -> Vec<Option<usize>> {
        let mut out = vec![None; n_cells];
        for (g, group) in groups.iter().enumerate() {
            for &i in &group.cells {
                if let Some(slot) = out.get_mut(i) {
                    *slot = Some(g + 1);
                }
            }
        }
        out
    }

    /// The request for tool `t` that the matrix and the engine are compared on: the tool
    /// addressed as a host would (with its server), the required arguments not in `args` set
    /// to a plain value of their declared type (`null` when untyped).
    ///
    /// # Panics
    ///
    /// When either index is out of range.
    #[allow(
        clippy::indexing_slicing,
        reason = "documented panic: a probe of an agent or tool that is not in the matrix"
    )]
    pub fn probe(&self, a: usize, t: usize, args: Map<String, Value>) -> Request {
        let tool = &self.tools[t];
        let mut req = Request::new(self.agents[a].as_str(), tool.name.as_str());
        req.server = tool.server.clone();
        req.args = args;
        for r in &tool.required {
            let ty = tool
                .types
                .iter()
                .find(|(arg, _)| arg == r)
                .map_or(ArgType::ANY, |(_, ty)| *ty);
            req.args.entry(r.clone()).or_insert_with(|| plain_value(ty));
        }
        req
    }

    /// Checks the matrix against the engine compiled from the same policy: for every cell,
    /// the call with only the required arguments (see [`Matrix::probe`]) is decided and
    /// compared with what the cell predicts. Returns a message for each cell where they differ (none, unless
    /// the matrix has a bug).
    pub fn disagreements(&self, engine: &Engine) -> Vec<String> {
        let mut out = Vec::new();
        for a in 0..self.agents.len() {
            for t in 0..self.tools.len() {
                let req = self.probe(a, t, Map::new());
                let cell = self.cell(a, t);
                let decided = engine.decide(&req);
                let predicted = cell.admits(&req.args);
                if predicted != Some(decided.is_allowed()) {
                    out.push(format!(
                        "agent `{}`, tool `{}`: the matrix says {}, the engine decides {} ({})",
                        cell.agent,
                        cell.tool,
                        cell.access.as_str(),
                        decided.decision.as_str(),
                        decided.reason.as_str()
                    ));
                }
            }
        }
        out
    }
}

/// A plain value of a type: `""`, `0`, `false`, `{}`, `[]` (any array type), `null` (`any`).
fn plain_value(ty: ArgType) -> Value {
    if ty.arrays > 0 {
        return Value::Array(Vec::new());
    }
    match ty.base {
        BaseType::String | BaseType::Path => Value::String(String::new()),
        BaseType::Number | BaseType::Integer => Value::from(0),
        BaseType::Boolean => Value::Bool(false),
        BaseType::Object => Value::Object(Map::new()),
        BaseType::Any => Value::Null,
    }
}

/// Whether every present argument declared with a type has it, checked as the engine checks
/// it (the engine's argument lookup and [`ArgType::mismatch`]).
fn well_typed(types: &[(String, ArgType)], args: &Map<String, Value>) -> bool {
    types.iter().all(|(arg, ty)| {
        crate::engine::args::get(args, arg).is_none_or(|v| ty.mismatch(v).is_none())
    })
}
