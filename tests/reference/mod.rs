//! A deliberately naive reference interpreter for the `.policy` language, used only by tests.
//!
//! It walks the syntax tree (`toolgate::syntax::parse_file`) and decides a
//! [`toolgate::Request`] the way LANGUAGE.md section 7 (and docs/language.md sections 5-11)
//! say, judging every condition on its own: globset (literal separator, backslash escapes) for
//! globs, the `regex` crate for regexes, `str::contains` for needles, `==` for strings, `f64`
//! comparisons for numbers, and a path normalization written here. It shares no matcher code
//! with `toolgate::compile` or `toolgate::engine`; it is slow on purpose (nothing is merged,
//! indexed or cached beyond compiling each pattern once).
//!
//! The interpreter assumes the policy is valid (`toolgate check` reports no error): it is an
//! oracle for decisions, not a checker.

#![allow(dead_code)]

pub mod cond;

use cond::Cond;
use serde_json::{Map, Value};
use toolgate::source::FileId;
use toolgate::syntax::ast;
use toolgate::{Decision, Request};

/// One declared tool.
#[derive(Debug, Clone)]
struct Tool {
    server: Option<String>,
    name: String,
    /// `(name, optional, declared type)` in declaration order; `None` without an argument
    /// list.
    params: Option<Vec<(String, bool, Option<Type>)>>,
    needs: Vec<String>,
}

/// A declared argument type (docs/language.md section 3), as nested as written.
#[derive(Debug, Clone)]
pub enum Type {
    Any,
    String,
    Number,
    Integer,
    Boolean,
    Path,
    Object,
    Array(Box<Type>),
}

impl Type {
    /// The type of the words `array`, `array`, `integer` (`array` last is `array<any>`).
    /// Assumes a valid policy.
    pub fn new<'a>(mut words: impl Iterator<Item = &'a str>) -> Type {
        match words.next() {
            Some("string") => Type::String,
            Some("number") => Type::Number,
            Some("integer") => Type::Integer,
            Some("boolean") => Type::Boolean,
            Some("path") => Type::Path,
            Some("object") => Type::Object,
            Some("array") => Type::Array(Box::new(Type::new(words))),
            _ => Type::Any,
        }
    }

    /// The type in canonical form: `array<array<integer>>`, `array<any>`.
    pub fn written(&self) -> String {
        match self {
            Type::Any => "any".into(),
            Type::String => "string".into(),
            Type::Number => "number".into(),
            Type::Integer => "integer".into(),
            Type::Boolean => "boolean".into(),
            Type::Path => "path".into(),
            Type::Object => "object".into(),
            Type::Array(t) => format!("array<{}>", t.written()),
        }
    }

    /// `None` when the value has the type; else what the value is, as the message says it
    /// (section 11): the first wrong element of an array, recursively.
    pub fn refuses(&self, v: &Value) -> Option<String> {
        let ok = match (self, v) {
            (Type::Any, _) => true,
            (Type::String | Type::Path, Value::String(_)) => true,
            (Type::Number, Value::Number(_)) => true,
            (Type::Integer, Value::Number(n)) => n.as_f64().is_some_and(|f| f.trunc() == f),
            (Type::Boolean, Value::Bool(_)) => true,
            (Type::Object, Value::Object(_)) => true,
            (Type::Array(inner), Value::Array(items)) => {
                return items
                    .iter()
                    .find_map(|i| inner.refuses(i))
                    .map(|m| format!("an array holding {m}"));
            }
            _ => false,
        };
        if ok {
            return None;
        }
        Some(
            match v {
                Value::Null => "null",
                Value::Bool(_) => "a boolean",
                Value::Number(_) if matches!(self, Type::Integer) => {
                    "a number with a fractional part"
                }
                Value::Number(_) => "a number",
                Value::String(_) => "a string",
                Value::Array(_) => "an array",
                Value::Object(_) => "an object",
            }
            .to_string(),
        )
    }
}

/// One rule with everything needed to judge and report it.
#[derive(Debug)]
struct Rule {
    deny: bool,
    server: Option<NamePart>,
    tool: NamePart,
    target_text: String,
    /// `(argument path, condition, condition as written)`.
    conds: Vec<(Vec<String>, Cond, String)>,
    because: Option<String>,
    file: String,
    line: usize,
    column: usize,
}

#[derive(Debug)]
struct Agent {
    name: String,
    grants: Vec<String>,
    default_allow: bool,
    rules: Vec<Rule>,
}

/// One rule in an explanation: `(line, column, fired, first failed condition as written)`.
pub type RuleTrace = (usize, usize, bool, Option<String>);

/// The reference interpreter over one (possibly multi-file) policy.
#[derive(Debug)]
pub struct Reference {
    tools: Vec<Tool>,
    agents: Vec<Agent>,
}

/// What a decision says, in a form both the engine and the reference can produce.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub decision: &'static str,
    pub reason: String,
    pub permission: Option<String>,
    pub argument: Option<String>,
    /// The message, for the reasons whose message is fully specified (section 11); `None` for
    /// the lookup failures, whose message carries a did-you-mean hint.
    pub message: Option<String>,
    /// `(effect, target as written, file, line, column)` of the deciding rule.
    pub rule: Option<(String, String, String, usize, usize)>,
    pub tool_use_id: Option<String>,
}

impl Outcome {
    /// The engine's decision in the same form.
    pub fn of(d: &Decision) -> Outcome {
        let reason = d.reason.as_str();
        Outcome {
            decision: d.decision.as_str(),
            reason: reason.to_string(),
            permission: d.permission.as_deref().map(str::to_string),
            argument: d.argument.as_deref().map(str::to_string),
            message: message_is_specified(reason).then(|| d.message.to_string()),
            rule: d.rule.as_ref().map(|r| {
                (
                    r.effect.as_str().to_string(),
                    r.target.to_string(),
                    r.file.to_string(),
                    r.line,
                    r.column,
                )
            }),
            tool_use_id: d.tool_use_id.clone(),
        }
    }

    fn deny(reason: &str) -> Outcome {
        Outcome {
            decision: "deny",
            reason: reason.to_string(),
            permission: None,
            argument: None,
            message: None,
            rule: None,
            tool_use_id: None,
        }
    }
}

fn message_is_specified(reason: &str) -> bool {
    !matches!(
        reason,
        "bad_request" | "unknown_agent" | "unknown_tool" | "ambiguous_tool" | "internal_error"
    )
}

/// 1-based line and column (in characters) of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// A concrete `domain:action` permission (section 4).
pub fn is_concrete_permission(p: &str) -> bool {
    fn part(s: &str) -> bool {
        let mut chars = s.chars();
        matches!(chars.next(), Some('a'..='z'))
            && chars.all(|c| matches!(c, 'a'..='z' | '0'..='9' | '_' | '-'))
    }
    match p.split_once(':') {
        Some((d, a)) => part(d) && part(a),
        None => false,
    }
}

fn granted(grants: &[String], p: &str) -> bool {
    let domain = p.split(':').next().unwrap_or("");
    grants
        .iter()
        .any(|g| g == "*" || g == p || g.strip_suffix(":*") == Some(domain))
}

/// One part of a rule target: a quoted literal, or an unquoted glob over names (`*` matches
/// any run of characters; a part without wildcards matches itself).
#[derive(Debug)]
enum NamePart {
    Literal(String),
    Glob(globset::GlobMatcher),
}

impl NamePart {
    fn new(part: ast::TargetPart) -> NamePart {
        if part.quoted {
            return NamePart::Literal(part.text);
        }
        NamePart::Glob(cond::name_glob(&part.text))
    }

    fn covers(&self, name: &str) -> bool {
        match self {
            NamePart::Literal(s) => s == name,
            NamePart::Glob(g) => g.is_match(name),
        }
    }
}

impl Rule {
    /// Does the rule's target cover a tool named `tool` on `server` (`None`: a host tool, or
    /// without a catalog a request naming no server)?
    fn covers(&self, server: Option<&str>, tool: &str) -> bool {
        let server_ok = match (&self.server, server) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(p), Some(s)) => p.covers(s),
        };
        server_ok && self.tool.covers(tool)
    }

    /// Does the rule fire on these arguments? Every condition is judged for the rule's effect.
    fn fires(&self, args: &Map<String, Value>) -> bool {
        self.failed_condition(args).is_none()
    }

    /// The first condition (as written) that does not hold, if any.
    fn failed_condition(&self, args: &Map<String, Value>) -> Option<&str> {
        self.conds
            .iter()
            .find(|(path, c, _)| !c.holds_for_rule(lookup(args, path).as_deref(), self.deny))
            .map(|(_, _, text)| text.as_str())
    }
}

/// The values an argument path yields (section 8): `None` when absent. Objects are walked by
/// key; arrays are walked element by element (nested arrays included); the values reached are
/// flattened.
pub fn lookup<'a>(args: &'a Map<String, Value>, path: &[String]) -> Option<Vec<&'a Value>> {
    fn step<'a>(v: &'a Value, key: &str, out: &mut Vec<&'a Value>) {
        match v {
            Value::Object(m) => out.extend(m.get(key)),
            Value::Array(items) => items.iter().for_each(|i| step(i, key, out)),
            _ => {}
        }
    }
    fn flatten<'a>(v: &'a Value, out: &mut Vec<&'a Value>) {
        match v {
            Value::Array(items) => items.iter().for_each(|i| flatten(i, out)),
            v => out.push(v),
        }
    }
    let mut reached = vec![args.get(&path[0])?];
    for key in &path[1..] {
        let mut next = Vec::new();
        for v in reached {
            step(v, key, &mut next);
        }
        if next.is_empty() {
            return None;
        }
        reached = next;
    }
    let mut values = Vec::new();
    for v in reached {
        flatten(v, &mut values);
    }
    Some(values)
}

impl Reference {
    /// Builds the interpreter from `(file name, text)` pairs, merged in order.
    /// Panics on a syntax error: the reference only judges valid policies.
    pub fn new(files: &[(&str, &str)]) -> Reference {
        let mut tools = Vec::new();
        let mut agents = Vec::new();
        for (i, (name, text)) in files.iter().enumerate() {
            let (file, diags) = toolgate::syntax::parse_file(FileId(i as u32), text);
            assert!(!diags.has_errors(), "reference: {name} has syntax errors");
            for item in file.items {
                match item {
                    ast::Item::Server(s) => {
                        for t in s.tools {
                            tools.push(tool(Some(s.name.text.clone()), t));
                        }
                    }
                    ast::Item::Tool(t) => tools.push(tool(None, t)),
                    ast::Item::Agent(a) => agents.push(agent(name, text, a)),
                    ast::Item::Test(_) => {}
                }
            }
        }
        Reference { tools, agents }
    }

    /// Decides a request (section 7: agent, tool lookup, permission gate, required
    /// arguments, rules).
    pub fn decide(&self, req: &Request) -> Outcome {
        let mut out = self.decide_inner(req);
        out.tool_use_id = req.tool_use_id.clone();
        out
    }

    /// Section 11, `--explain`: when the rules were reached (step 5), every rule of the agent
    /// whose target covers the tool, in source order, as `(line, column, fired, first failed
    /// condition as written)`; `None` when an earlier step decided.
    pub fn explain(&self, req: &Request) -> Option<Vec<RuleTrace>> {
        if !matches!(
            self.decide_inner(req).reason.as_str(),
            "denied_by_rule" | "allowed_by_rule" | "no_matching_rule" | "default_allow"
        ) {
            return None;
        }
        let agent = self.agents.iter().find(|a| a.name == req.agent)?;
        let server = if self.tools.is_empty() {
            req.server.clone()
        } else {
            self.tools
                .iter()
                .find(|t| t.name == req.tool && (req.server.is_none() || t.server == req.server))?
                .server
                .clone()
        };
        Some(
            agent
                .rules
                .iter()
                .filter(|r| r.covers(server.as_deref(), &req.tool))
                .map(|r| {
                    let failed = r.failed_condition(&req.args).map(String::from);
                    (r.line, r.column, failed.is_none(), failed)
                })
                .collect(),
        )
    }

    /// Section 12: the catalog tools an agent may see, as `(server, tool)` in declaration
    /// order; `None` for an unknown agent; empty without a catalog.
    pub fn visible_tools(&self, agent: &str) -> Option<Vec<(Option<String>, String)>> {
        let agent = self.agents.iter().find(|a| a.name == agent)?;
        Some(
            self.tools
                .iter()
                .filter(|t| t.needs.iter().all(|p| granted(&agent.grants, p)))
                // A host tool that shares its name with a server's tool cannot be called: a
                // request naming no server is ambiguous, and none can name the host.
                .filter(|t| {
                    t.server.is_some()
                        || !self
                            .tools
                            .iter()
                            .any(|o| o.server.is_some() && o.name == t.name)
                })
                // Listed when some call may be allowed: no deny fires on every call (its
                // conditions, if any, are `present` on required arguments), and the default
                // allows or some allow is not overridden by a deny whose `present` conditions
                // each name a required argument or one the allow needs present.
                .filter(|t| {
                    let targeted = |deny: bool| {
                        agent
                            .rules
                            .iter()
                            .filter(move |r| r.deny == deny)
                            .filter(|r| r.covers(t.server.as_deref(), &t.name))
                    };
                    let required = |path: &[String]| match path {
                        [arg] => t
                            .params
                            .iter()
                            .flatten()
                            .any(|(name, optional, _)| name == arg && !optional),
                        _ => false,
                    };
                    let present_only =
                        |r: &Rule| r.conds.iter().all(|(_, c, _)| matches!(c, Cond::Present));
                    let always = targeted(true)
                        .any(|d| present_only(d) && d.conds.iter().all(|(p, _, _)| required(p)));
                    let overridden = |a: &Rule| {
                        targeted(true).any(|d| {
                            present_only(d)
                                && d.conds.iter().all(|(p, _, _)| {
                                    required(p)
                                        || a.conds
                                            .iter()
                                            .any(|(q, c, _)| q == p && matches!(c, Cond::Present))
                                })
                        })
                    };
                    !always && (agent.default_allow || targeted(false).any(|a| !overridden(a)))
                })
                .map(|t| (t.server.clone(), t.name.clone()))
                .collect(),
        )
    }

    fn decide_inner(&self, req: &Request) -> Outcome {
        // 1. agent
        let Some(agent) = self.agents.iter().find(|a| a.name == req.agent) else {
            return Outcome::deny("unknown_agent");
        };

        // 2. tool lookup; the permissions the tool needs; its required arguments.
        let (server, display, needs, params): (Option<&str>, String, Vec<String>, _) =
            if self.tools.is_empty() {
                let needs = req.permissions.clone().unwrap_or_default();
                if !needs.iter().all(|p| is_concrete_permission(p)) {
                    return Outcome::deny("bad_request");
                }
                let display = match &req.server {
                    Some(s) => format!("{s}.{}", req.tool),
                    None => req.tool.clone(),
                };
                (req.server.as_deref(), display, needs, None)
            } else {
                let candidates: Vec<&Tool> = self
                    .tools
                    .iter()
                    .filter(|t| t.name == req.tool)
                    .filter(|t| req.server.is_none() || t.server == req.server)
                    .collect();
                let t = match candidates.as_slice() {
                    [] => return Outcome::deny("unknown_tool"),
                    [t] => *t,
                    _ => return Outcome::deny("ambiguous_tool"),
                };
                let display = match &t.server {
                    Some(s) => format!("{s}.{}", t.name),
                    None => t.name.clone(),
                };
                (
                    t.server.as_deref(),
                    display,
                    t.needs.clone(),
                    t.params.clone(),
                )
            };

        // 3. permission gate: the first missing permission in declaration order.
        if let Some(p) = needs.iter().find(|p| !granted(&agent.grants, p)) {
            let mut out = Outcome::deny("permission_missing");
            out.message = Some(format!(
                "{display} requires the \"{p}\" permission, which was not granted.\nRetrying with different arguments will not help"
            ));
            out.permission = Some(p.clone());
            return out;
        }

        // 4. required arguments, in declaration order.
        if let Some((arg, _, _)) = params
            .iter()
            .flatten()
            .find(|(name, optional, _)| !optional && !req.args.contains_key(name))
        {
            let mut out = Outcome::deny("missing_argument");
            out.message = Some(format!(
                "{display} requires the argument `{arg}`, which the call does not include"
            ));
            out.argument = Some(arg.clone());
            return out;
        }

        // 4b. declared types, in declaration order; an absent argument is not checked.
        for (arg, _, ty) in params.iter().flatten() {
            let (Some(ty), Some(value)) = (ty, req.args.get(arg)) else {
                continue;
            };
            if let Some(given) = ty.refuses(value) {
                let mut out = Outcome::deny("invalid_argument");
                out.message = Some(format!(
                    "{display} requires the argument `{arg}` to be `{}`; the call gives {given}",
                    ty.written()
                ));
                out.argument = Some(arg.clone());
                return out;
            }
        }

        // 5. rules: the first firing deny, else the first firing allow, else the default.
        let firing = |deny: bool| {
            agent
                .rules
                .iter()
                .filter(move |r| r.deny == deny)
                .find(|r| r.covers(server, &req.tool) && r.fires(&req.args))
        };
        let by_rule = |r: &Rule, decision: &'static str, reason: &str| {
            let effect = if r.deny { "deny" } else { "allow" };
            let default_message = format!(
                "{} by rule `{effect} {}` of agent `{}` ({}:{})",
                if r.deny { "denied" } else { "allowed" },
                r.target_text,
                agent.name,
                r.file,
                r.line
            );
            Outcome {
                decision,
                reason: reason.to_string(),
                permission: None,
                argument: None,
                message: Some(r.because.clone().unwrap_or(default_message)),
                rule: Some((
                    effect.to_string(),
                    r.target_text.clone(),
                    r.file.clone(),
                    r.line,
                    r.column,
                )),
                tool_use_id: None,
            }
        };
        if let Some(r) = firing(true) {
            return by_rule(r, "deny", "denied_by_rule");
        }
        if let Some(r) = firing(false) {
            return by_rule(r, "allow", "allowed_by_rule");
        }
        if agent.default_allow {
            let mut out = Outcome::deny("default_allow");
            out.decision = "allow";
            out.message = Some(format!("allowed by the default of agent `{}`", agent.name));
            out
        } else {
            let mut out = Outcome::deny("no_matching_rule");
            out.message = Some(format!(
                "no rule of agent `{}` allows {display}",
                agent.name
            ));
            out
        }
    }
}

fn tool(server: Option<String>, t: ast::ToolDecl) -> Tool {
    Tool {
        server,
        name: t.name.text,
        params: t.params.map(|ps| {
            ps.into_iter()
                .map(|p| {
                    let ty =
                        p.ty.map(|t| Type::new(t.words.iter().map(|w| w.text.as_str())));
                    (p.name.text, p.optional, ty)
                })
                .collect()
        }),
        needs: t.needs.into_iter().map(|p| p.text).collect(),
    }
}

fn agent(file: &str, text: &str, a: ast::Agent) -> Agent {
    let mut out = Agent {
        name: a.name.text,
        grants: Vec::new(),
        default_allow: false,
        rules: Vec::new(),
    };
    for stmt in a.stmts {
        match stmt {
            ast::AgentStmt::Grant(perms, _) => out.grants.extend(perms.into_iter().map(|p| p.text)),
            ast::AgentStmt::Default(effect, _) => {
                out.default_allow = effect == ast::Effect::Allow;
            }
            ast::AgentStmt::Rule(r) => {
                let r = *r;
                let (line, column) = line_col(text, r.span.start);
                out.rules.push(Rule {
                    deny: r.effect == ast::Effect::Deny,
                    target_text: text[r.target.span.start..r.target.span.end].to_string(),
                    server: r.target.server.map(NamePart::new),
                    tool: NamePart::new(r.target.tool),
                    conds: r
                        .conditions
                        .into_iter()
                        .map(|c| {
                            let written = text[c.span.start..c.span.end].to_string();
                            (c.arg.segments, Cond::new(c.op), written)
                        })
                        .collect(),
                    because: r.because.map(|b| b.value),
                    file: file.to_string(),
                    line,
                    column,
                });
            }
        }
    }
    out
}
