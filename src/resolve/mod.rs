//! Syntax trees to a resolved [`Policy`]: merges files, checks names (duplicates, unknown
//! targets with did-you-mean), validates permissions, globs and regexes, and reports every
//! problem as a diagnostic.

pub mod arg_type;
mod collision;
pub mod ir;
pub mod listing;
mod name_test;
pub mod permission;
pub mod suggest;
pub mod test_case;

pub use arg_type::{ArgType, BaseType};
pub use ir::*;
pub use name_test::{name_matches, NameTest};
pub use permission::{parse_grant, parse_permission, Grant, Permission, PermissionError};
pub use test_case::TestCase;

use crate::diagnostic::{code, Diagnostic, Diagnostics};
use crate::pattern::glob;
use crate::source::{SourceMap, Span};
use crate::syntax::ast::{self, AgentStmt, CondOp, Effect, Item};
use crate::syntax::literal::regex_offset_in_body;
use std::collections::HashMap;
use suggest::help_with;

/// Type names of other languages, with the type meant.
const TYPE_ALIASES: &[(&str, &str)] = &[
    ("int", "integer"),
    ("str", "string"),
    ("bool", "boolean"),
    ("float", "number"),
    ("double", "number"),
    ("list", "array<T>"),
    ("dict", "object"),
    ("map", "object"),
];

/// What a target's server part selects.
enum ServerScope {
    /// These servers (`None` stands for host tools, for a target without a server part).
    Servers(Vec<Option<usize>>),
    /// A literal server name that is not declared (an error was reported).
    Unknown,
    /// A server pattern matching no declared server (a warning was reported).
    MatchesNothing,
}

/// Resolves parsed files into one policy. The policy is usable only when the diagnostics
/// hold no error.
///
/// # Example
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// let id = m.add("p.policy", "agent a { grant *:read }");
/// let (file, _) = toolgate::syntax::parse_file(id, &m.file(id).text.clone());
/// let (policy, diags) = toolgate::resolve::resolve(m, vec![file]);
/// assert!(policy.agent("a").is_some() && diags.has_errors());
/// ```
pub fn resolve(sources: SourceMap, files: Vec<ast::File>) -> (Policy, Diagnostics) {
    let mut r = Resolver {
        diags: Diagnostics::new(),
        sources: &sources,
    };
    let mut servers: Vec<ServerDef> = Vec::new();
    let mut tools: Vec<ToolDef> = Vec::new();
    let mut agent_asts: Vec<ast::Agent> = Vec::new();
    let mut tests = Vec::new();
    let mut server_index: HashMap<String, usize> = HashMap::new();
    let mut tool_index: HashMap<(Option<usize>, String), Span> = HashMap::new();

    for file in files {
        for item in file.items {
            match item {
                Item::Server(s) => {
                    let id = match server_index.get(&s.name.text) {
                        Some(&id) => {
                            if let Some(first) = servers.get(id) {
                                r.duplicate("server", &s.name, first.span);
                            }
                            id
                        }
                        None => {
                            r.check_name(&s.name, "server");
                            servers.push(ServerDef {
                                name: s.name.text.clone(),
                                span: s.name.span,
                            });
                            server_index.insert(s.name.text.clone(), servers.len() - 1);
                            servers.len() - 1
                        }
                    };
                    for t in s.tools {
                        r.tool(Some(id), t, &mut tools, &mut tool_index);
                    }
                }
                Item::Tool(t) => r.tool(None, t, &mut tools, &mut tool_index),
                Item::Agent(a) => agent_asts.push(a),
                Item::Test(t) => {
                    r.test(&t);
                    tests.push(t)
                }
            }
        }
    }

    if !tools.is_empty() {
        for e in tests.iter().flat_map(|t: &ast::TestBlock| &t.expectations) {
            if let (Some(first), Some(last)) = (
                e.needs.as_ref().and_then(|n| n.first()),
                e.needs.as_ref().and_then(|n| n.last()),
            ) {
                r.diags.push(
                    Diagnostic::new(&code::NEEDS_IGNORED, first.span.to(last.span), "`needs` is ignored: the policy has a tool catalog")
                        .with_label("ignored")
                        .with_help("with a catalog, a tool's permissions come from its declaration; remove `needs` from the expectation"),
                );
            }
        }
    }
    collision::check(&servers, &tools, &mut r.diags);
    let tool_index = tools_by_name(&tools);
    let catalog = Catalog {
        servers: &servers,
        tools: &tools,
        by_name: &tool_index,
    };
    // Sized up front: grown by doubling, a table of 100,000 agents would hold room for 131,072
    // and, while growing, two copies.
    let mut agents: Vec<AgentDef> = Vec::with_capacity(agent_asts.len());
    let mut agent_index: HashMap<String, Span> = HashMap::with_capacity(agent_asts.len());
    for a in agent_asts {
        if let Some(&first) = agent_index.get(&a.name.text) {
            r.duplicate("agent", &a.name, first);
            continue;
        }
        r.check_name(&a.name, "agent");
        agent_index.insert(a.name.text.clone(), a.name.span);
        agents.push(r.agent(a, &catalog));
    }

    let diags = r.diags;
    (
        Policy {
            sources,
            servers,
            tools,
            agents,
            tests,
            tool_index,
        },
        diags,
    )
}

/// Catalog tool indices by bare name (several when servers share a tool name).
fn tools_by_name(tools: &[ToolDef]) -> rustc_hash::FxHashMap<String, Vec<u32>> {
    let mut by_name: rustc_hash::FxHashMap<String, Vec<u32>> = Default::default();
    for (i, tool) in (0u32..).zip(tools) {
        by_name.entry(tool.name.clone()).or_default().push(i);
    }
    by_name
}

struct Catalog<'a> {
    servers: &'a [ServerDef],
    tools: &'a [ToolDef],
    /// Tool indexes by name, so a literal target is checked without a scan.
    by_name: &'a rustc_hash::FxHashMap<String, Vec<u32>>,
}

impl Catalog<'_> {
    /// The catalog tools (sorted indices) a target covers: those of `servers` (any tool when
    /// the target names no server) whose name its tool part matches.
    fn covered(&self, target: &TargetDef, servers: &[Option<usize>]) -> Vec<u32> {
        let in_scope = |t: u32| {
            self.tools
                .get(t as usize)
                .is_some_and(|tool| target.server.is_none() || servers.contains(&tool.server))
        };
        match &target.tool {
            NamePattern::Literal(name) => self
                .by_name
                .get(name.as_str())
                .into_iter()
                .flatten()
                .copied()
                .filter(|&t| in_scope(t))
                .collect(),
            pattern => {
                let test = NameTest::new(pattern);
                (0u32..)
                    .zip(self.tools)
                    .filter(|&(t, tool)| in_scope(t) && test.is_match(&tool.name))
                    .map(|(t, _)| t)
                    .collect()
            }
        }
    }
}

struct Resolver<'s> {
    diags: Diagnostics,
    sources: &'s SourceMap,
}

impl Resolver<'_> {
    fn duplicate(&mut self, what: &str, name: &ast::Name, first: Span) {
        self.diags.push(
            Diagnostic::new(&code::DUPLICATE_DEFINITION, name.span, format!("{what} `{}` is defined twice", name.text))
                .with_label(format!("second definition of `{}`", name.text))
                .with_related(first, "first defined here")
                .with_help(format!("rename one of them or remove the duplicate; each {what} is defined once across all merged files")),
        );
    }

    fn check_name(&mut self, name: &ast::Name, what: &str) {
        if name.text.is_empty() {
            self.diags.push(
                Diagnostic::new(
                    &code::EMPTY_NAME,
                    name.span,
                    format!("a {what} name cannot be empty"),
                )
                .with_label("empty name")
                .with_help("give it a name"),
            );
        }
    }

    fn permission_error(&mut self, lit: &ast::PermissionLit, e: PermissionError) {
        let code = match e {
            PermissionError::WildcardDomain => &code::WILDCARD_DOMAIN,
            _ => &code::INVALID_PERMISSION,
        };
        let label = match e {
            PermissionError::WildcardDomain => "a wildcard must not stand for the domain",
            _ => "not a valid permission",
        };
        self.diags.push(
            Diagnostic::new(code, lit.span, e.message(&lit.text))
                .with_label(label)
                .with_help(e.help()),
        );
    }

    fn tool(
        &mut self,
        server: Option<usize>,
        t: ast::ToolDecl,
        tools: &mut Vec<ToolDef>,
        index: &mut HashMap<(Option<usize>, String), Span>,
    ) {
        self.check_name(&t.name, "tool");
        let key = (server, t.name.text.clone());
        if let Some(&first) = index.get(&key) {
            let what = if server.is_some() {
                "tool on this server"
            } else {
                "host tool"
            };
            self.duplicate(what, &t.name, first);
            return;
        }
        index.insert(key, t.name.span);
        let params = t.params.map(|ps| {
            let mut seen: HashMap<&str, Span> = HashMap::new();
            for p in &ps {
                if let Some(&first) = seen.get(p.name.text.as_str()) {
                    self.duplicate("argument", &p.name, first);
                }
                seen.insert(&p.name.text, p.name.span);
            }
            ps.iter()
                .map(|p| ParamDef {
                    name: p.name.text.clone(),
                    optional: p.optional,
                    ty: p.ty.as_ref().map_or(ArgType::ANY, |t| self.arg_type(t)),
                    ty_span: p.ty.as_ref().map(|t| t.span),
                })
                .collect()
        });
        let mut needs: Vec<Permission> = Vec::new();
        for lit in &t.needs {
            match parse_permission(&lit.text) {
                Ok(p) if needs.contains(&p) => self.diags.push(
                    Diagnostic::new(
                        &code::DUPLICATE_PERMISSION,
                        lit.span,
                        format!("`{}` is listed twice", lit.text),
                    )
                    .with_label("already listed")
                    .with_help("list each permission once"),
                ),
                Ok(p) => needs.push(p),
                Err(e) => self.permission_error(lit, e),
            }
        }
        tools.push(ToolDef {
            server,
            name: t.name.text,
            params,
            needs,
            span: t.name.span,
        });
    }

    /// A declared type, validated: every word but the last is `array`, the last is a known
    /// type (`array` alone is `array<any>`). A wrong type is an error; `any` stands in.
    fn arg_type(&mut self, t: &ast::TypeExpr) -> ArgType {
        let Some((last, wrappers)) = t.words.split_last() else {
            return ArgType::ANY;
        };
        if let Some(w) = wrappers.iter().find(|w| w.text != "array") {
            let known = BaseType::from_name(&w.text).is_some();
            let help = if known {
                format!(
                    "only `array` takes an element type: write `array<{}>`, or `{}` alone",
                    last.text, w.text
                )
            } else {
                help_with(
                    &w.text,
                    ["array"],
                    "only `array` takes an element type: `array<string>`",
                )
            };
            self.diags.push(
                Diagnostic::new(
                    &code::UNKNOWN_TYPE,
                    w.span,
                    format!("`{}` does not take an element type", w.text),
                )
                .with_label("not an array type")
                .with_help(help),
            );
            return ArgType::ANY;
        }
        let (arrays, base) = match (last.text.as_str(), BaseType::from_name(&last.text)) {
            (_, Some(base)) => (wrappers.len(), base),
            ("array", None) => (wrappers.len() + 1, BaseType::Any),
            (name, None) => {
                let names = BaseType::ALL.iter().map(|(n, _)| *n).chain(["array"]);
                let help = match TYPE_ALIASES.iter().find(|(alias, _)| *alias == name) {
                    Some((_, meant)) => format!("did you mean `{meant}`?"),
                    None => help_with(
                        name,
                        names,
                        "types are `string`, `number`, `integer`, `boolean`, `path`, `array<T>`, `object` and `any`",
                    ),
                };
                self.diags.push(
                    Diagnostic::new(
                        &code::UNKNOWN_TYPE,
                        last.span,
                        format!("unknown type `{name}`"),
                    )
                    .with_label("not a type")
                    .with_help(help),
                );
                return ArgType::ANY;
            }
        };
        match u8::try_from(arrays) {
            Ok(arrays) if usize::from(arrays) <= arg_type::MAX_ARRAY_DEPTH => {
                ArgType { arrays, base }
            }
            _ => {
                self.diags.push(
                    Diagnostic::new(
                        &code::UNKNOWN_TYPE,
                        t.span,
                        format!(
                            "the type nests {arrays} arrays; at most {} are supported",
                            arg_type::MAX_ARRAY_DEPTH
                        ),
                    )
                    .with_label("too deep")
                    .with_help("declare the argument `array<any>` (or leave it untyped) and constrain it with conditions"),
                );
                ArgType::ANY
            }
        }
    }

    fn agent(&mut self, a: ast::Agent, catalog: &Catalog) -> AgentDef {
        let mut def = AgentDef {
            name: a.name.text.clone(),
            span: a.name.span,
            grants: Vec::new(),
            invalid_grants: false,
            default: Effect::Deny,
            default_span: None,
            // Sized up front: a policy may hold an agent per user, each with a rule or two,
            // and growing by pushes would reserve room for four of each.
            rules: Vec::with_capacity(
                a.stmts
                    .iter()
                    .filter(|s| matches!(s, AgentStmt::Rule(_)))
                    .count(),
            ),
            gate: Vec::new(),
        };
        def.grants.reserve_exact(
            a.stmts
                .iter()
                .map(|s| match s {
                    AgentStmt::Grant(perms, _) => perms.len(),
                    _ => 0,
                })
                .sum(),
        );
        for stmt in a.stmts {
            match stmt {
                AgentStmt::Grant(perms, _) => {
                    for lit in perms {
                        match parse_grant(&lit.text) {
                            Ok(g) => def.grants.push((g, lit.span)),
                            Err(e) => {
                                def.invalid_grants = true;
                                self.permission_error(&lit, e)
                            }
                        }
                    }
                }
                AgentStmt::Default(effect, span) => {
                    if let Some(first) = def.default_span {
                        self.diags.push(
                            Diagnostic::new(
                                &code::DUPLICATE_DEFAULT,
                                span,
                                format!("agent `{}` has a second `default`", def.name),
                            )
                            .with_label("second `default`")
                            .with_related(first, "first `default` here")
                            .with_help("an agent has at most one `default`; remove one of them"),
                        );
                    } else {
                        def.default = effect;
                        def.default_span = Some(span);
                    }
                }
                AgentStmt::Rule(rule) => {
                    if let Some(r) = self.rule(*rule, catalog) {
                        def.rules.push(r);
                    }
                }
            }
        }
        def.gate = catalog
            .tools
            .iter()
            .map(|tool| {
                tool.needs
                    .iter()
                    .position(|p| !def.grants.iter().any(|(g, _)| g.allows(p)))
            })
            .collect();
        def
    }

    fn rule(&mut self, rule: ast::Rule, catalog: &Catalog) -> Option<RuleDef> {
        if rule.effect == Effect::Allow {
            if let Some(b) = &rule.because {
                self.diags.push(
                    Diagnostic::new(
                        &code::BECAUSE_ON_ALLOW,
                        b.span,
                        "`because` on an `allow` rule",
                    )
                    .with_label("only a denial carries a message")
                    .with_help("remove `because`, or make the rule a `deny`"),
                );
            }
        }
        let (target, covers) = self.target(&rule.target, catalog)?;
        let mut conditions = Vec::with_capacity(rule.conditions.len());
        for c in &rule.conditions {
            if let CondOp::Glob(g) = &c.op {
                self.glob_warnings(g, rule.effect);
            }
            if let (CondOp::Shell(p), Effect::Allow) = (&c.op, rule.effect) {
                self.shell_glob_warnings(p);
            }
            if let Some(c) = self.condition(c) {
                conditions.push(c);
            }
        }
        Some(RuleDef {
            effect: rule.effect,
            target,
            conditions,
            because: rule.because.map(|b| b.value),
            span: rule.span,
            covers,
        })
    }

    fn name_pattern(&mut self, part: &ast::TargetPart) -> Option<NamePattern> {
        if part.quoted {
            if part.text.is_empty() {
                self.diags.push(
                    Diagnostic::new(
                        &code::EMPTY_NAME,
                        part.span,
                        "a target name cannot be empty",
                    )
                    .with_label("empty name")
                    .with_help("name a tool, or write `*` for every tool"),
                );
                return None;
            }
            return Some(NamePattern::Literal(part.text.clone()));
        }
        if part.text == "*" {
            return Some(NamePattern::Any);
        }
        if !part.is_glob() {
            return Some(NamePattern::Literal(part.text.clone()));
        }
        match glob::translate_name(&part.text) {
            Ok(regex) => Some(NamePattern::Glob {
                text: part.text.clone(),
                regex,
            }),
            Err(e) => {
                self.diags.push(
                    Diagnostic::new(&code::INVALID_GLOB, part.span, format!("invalid glob `{}`: {}", part.text, e.message))
                        .with_label("not a valid glob")
                        .with_help("target globs use `*`, `?` and `[...]` classes; quote a name to use it literally"),
                );
                None
            }
        }
    }

    /// The target of a rule, with the catalog tools it covers (sorted; empty without a
    /// catalog). `None` when the rule is dropped (an error was reported).
    fn target(&mut self, t: &ast::Target, catalog: &Catalog) -> Option<(TargetDef, Vec<u32>)> {
        let server = match &t.server {
            Some(s) => Some(self.name_pattern(s)?),
            None => None,
        };
        let tool = self.name_pattern(&t.tool)?;
        let def = TargetDef {
            server,
            tool,
            text: self.sources.slice(t.span).to_string(),
            span: t.span,
        };
        if catalog.tools.is_empty() {
            return Some((def, Vec::new()));
        }
        // With a catalog, literal names must exist; globs should match something.
        let server_ids = match self.target_servers(&def, t, catalog) {
            ServerScope::Servers(ids) => ids,
            ServerScope::Unknown => return None,
            ServerScope::MatchesNothing => return Some((def, Vec::new())),
        };
        let covers = catalog.covered(&def, &server_ids);
        if covers.is_empty() && self.report_missing_tool(&def, t, catalog, &server_ids) {
            return None;
        }
        Some((def, covers))
    }

    /// The servers a target's server part names (all declared ones when it names none).
    fn target_servers(
        &mut self,
        def: &TargetDef,
        t: &ast::Target,
        catalog: &Catalog,
    ) -> ServerScope {
        let mut server_ids: Vec<Option<usize>> = Vec::new();
        match (&def.server, &t.server) {
            (Some(NamePattern::Literal(name)), Some(part)) => {
                match catalog.servers.iter().position(|s| &s.name == name) {
                    Some(i) => server_ids.push(Some(i)),
                    None => {
                        let help = help_with(
                            name,
                            catalog.servers.iter().map(|s| s.name.as_str()),
                            "declare the server with `server NAME { tool ... }`, or fix the name",
                        );
                        self.diags.push(
                            Diagnostic::new(
                                &code::UNKNOWN_SERVER,
                                part.span,
                                format!("unknown server `{name}`"),
                            )
                            .with_label("not a declared server")
                            .with_help(help),
                        );
                        return ServerScope::Unknown;
                    }
                }
            }
            (Some(pattern), Some(part)) => {
                let test = NameTest::new(pattern);
                server_ids.extend(
                    catalog
                        .servers
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| test.is_match(&s.name))
                        .map(|(i, _)| Some(i)),
                );
                if server_ids.is_empty() {
                    self.diags.push(
                        Diagnostic::new(
                            &code::TARGET_MATCHES_NOTHING,
                            part.span,
                            format!("`{}` matches no declared server", part.text),
                        )
                        .with_label("matches no server")
                        .with_help("the rule can never apply; fix the pattern or remove the rule"),
                    );
                    return ServerScope::MatchesNothing;
                }
            }
            _ => {}
        }
        ServerScope::Servers(server_ids)
    }

    /// Reports a target whose tool part names no declared tool in its servers: an error for a
    /// literal name (true: the rule is dropped), a warning for a pattern.
    fn report_missing_tool(
        &mut self,
        def: &TargetDef,
        t: &ast::Target,
        catalog: &Catalog,
        server_ids: &[Option<usize>],
    ) -> bool {
        let candidates: Vec<&ToolDef> = catalog
            .tools
            .iter()
            .filter(|tool| def.server.is_none() || server_ids.contains(&tool.server))
            .collect();
        let where_ = match &t.server {
            Some(s) => format!(" on server `{}`", s.text),
            None => String::new(),
        };
        if let NamePattern::Literal(name) = &def.tool {
            let help = help_with(
                name,
                candidates.iter().map(|t| t.name.as_str()),
                "declare the tool in the catalog, or fix the name",
            );
            self.diags.push(
                Diagnostic::new(
                    &code::UNKNOWN_TOOL,
                    t.tool.span,
                    format!("unknown tool `{name}`{where_}"),
                )
                .with_label("not a declared tool")
                .with_help(help),
            );
            return true;
        }
        self.diags.push(
            Diagnostic::new(
                &code::TARGET_MATCHES_NOTHING,
                t.tool.span,
                format!("`{}` matches no declared tool{where_}", t.tool.text),
            )
            .with_label("matches no tool")
            .with_help("the rule can never apply; fix the pattern or remove the rule"),
        );
        false
    }

    fn condition(&mut self, c: &ast::Condition) -> Option<CondDef> {
        if c.arg.segments.iter().any(|s| s.is_empty()) {
            self.diags.push(
                Diagnostic::new(
                    &code::EMPTY_NAME,
                    c.arg.span,
                    "an argument name cannot be empty",
                )
                .with_label("empty name")
                .with_help("name the argument, e.g. `path` or `options.cwd`"),
            );
            return None;
        }
        let test = match &c.op {
            CondOp::Present => CondTest::Present,
            CondOp::StrEq(s) => CondTest::Str {
                pattern: StrPattern::OneOf(vec![s.value.clone()]),
                negated: false,
            },
            CondOp::StrNe(s) => CondTest::Str {
                pattern: StrPattern::OneOf(vec![s.value.clone()]),
                negated: true,
            },
            CondOp::In(list) => CondTest::Str {
                pattern: StrPattern::OneOf(list.iter().map(|s| s.value.clone()).collect()),
                negated: false,
            },
            CondOp::Num(op, n, _) => CondTest::Num(*op, *n),
            CondOp::Contains(s) => CondTest::Contains(vec![s.value.clone()]),
            CondOp::ContainsAny(list) => {
                CondTest::Contains(list.iter().map(|s| s.value.clone()).collect())
            }
            CondOp::Glob(g) => match glob::translate(&g.value) {
                Ok(t) if t.is_path => {
                    if let Some(normal) = &t.normalized {
                        self.diags.push(path_not_normal_warning(g, normal));
                    }
                    CondTest::Str {
                        pattern: StrPattern::PathGlob {
                            text: t.normalized.unwrap_or_else(|| g.value.clone()),
                            regex: t.regex,
                        },
                        negated: false,
                    }
                }
                Ok(t) => CondTest::Str {
                    pattern: StrPattern::Glob {
                        text: g.value.clone(),
                        regex: t.regex,
                    },
                    negated: false,
                },
                Err(e) if e.not_normalizable => {
                    self.diags
                        .push(path_not_normalizable_error(g, &e, self.sources));
                    return None;
                }
                Err(e) => {
                    self.diags.push(
                        Diagnostic::new(&code::INVALID_GLOB, g.span, format!("invalid glob `{}`: {}", g.value, e.message))
                            .with_label("not a valid glob")
                            .with_help("globs use `*`, `**`, `?`, `[abc]`, `[!a]`, `{a,b}` and `\\` escapes; for a regex write re\"...\""),
                    );
                    return None;
                }
            },
            CondOp::Shell(p) => match crate::shell::Pattern::parse(&p.value) {
                Ok(_) => CondTest::Shell(p.value.clone()),
                Err(e) => {
                    self.diags.push(invalid_shell_pattern(p, &e, self.sources));
                    return None;
                }
            },
            CondOp::Regex(r) => {
                if let Err(d) = validate_regex(r, self.sources) {
                    self.diags.push(*d);
                    return None;
                }
                CondTest::Str {
                    pattern: StrPattern::Regex(r.value.clone()),
                    negated: false,
                }
            }
        };
        Some(CondDef {
            path: c.arg.segments.clone(),
            test,
            text: self.sources.slice(c.span).to_string(),
            span: c.span,
        })
    }

    /// LANGUAGE.md section 6: plain globs that look like paths in an allow, and alternatives
    /// that hide a path pattern, are warned about.
    fn glob_warnings(&mut self, g: &ast::StrLit, effect: Effect) {
        let glob = g.value.as_str();
        if glob.starts_with('/') || has_url_scheme(glob) {
            return;
        }
        if glob.starts_with('{') && glob[1..].split(',').any(|alt| alt.starts_with('/')) {
            self.diags.push(
                Diagnostic::new(
                    &code::ALTERNATIVES_HIDE_PATH,
                    g.span,
                    format!("`{glob}` starts with alternatives, so it is a plain glob: values are not normalized"),
                )
                .with_label("not a path pattern")
                .with_help("start the pattern with `/` so `..` and `//` are resolved first: write `/{a,b}/**` rather than `{/a,/b}/**`"),
            );
        } else if effect == Effect::Allow && (glob.contains('/') || glob.contains("**")) {
            self.diags.push(
                Diagnostic::new(
                    &code::RELATIVE_GLOB_IN_ALLOW,
                    g.span,
                    format!("`{glob}` looks like a relative path, but plain globs are not normalized"),
                )
                .with_label("matched as a plain string")
                .with_help("a value such as `a/../../etc` is compared as written; anchor the pattern at `/` to make it a path pattern, which normalizes values and fails closed on relative ones"),
            );
        } else if effect == Effect::Deny && (glob.contains('/') || glob.contains("**")) {
            self.diags.push(
                Diagnostic::new(
                    &code::RELATIVE_GLOB_IN_DENY,
                    g.span,
                    format!("`{glob}` looks like a path, but plain globs are compared as written"),
                )
                .with_label("matched as a plain string, `*` stopping at `/`")
                .with_help("a plain glob matches the whole value as written: `*/.ssh/*` misses `/home/bob/.ssh/id_rsa` and `a/./.ssh/x`; write a path pattern that starts with `/` (`/**/.ssh/**`), which normalizes values and fails closed on relative ones"),
            );
        }
    }

    /// A shell allow whose argument glob holds a `/`: arguments are compared as written, so
    /// `cat /srv/*` admits `cat /srv/../etc/passwd`.
    fn shell_glob_warnings(&mut self, p: &ast::StrLit) {
        let Ok(pattern) = crate::shell::Pattern::parse(&p.value) else {
            return;
        };
        let Some(word) = pattern.path_globs().next() else {
            return;
        };
        self.diags.push(
            Diagnostic::new(
                &code::SHELL_GLOB_PATH,
                p.span,
                format!("the argument glob `{word}` looks like a path, but shell arguments are compared as written"),
            )
            .with_label("the glob admits `..` and `/` in the argument")
            .with_help(format!("`{word}` is not resolved as a path (`cat /srv/*` admits `cat /srv/../etc/passwd`); name the files exactly, or give the agent a file tool whose `path` argument a path pattern normalizes")),
        );
    }

    fn test(&mut self, t: &ast::TestBlock) {
        for e in &t.expectations {
            if let Some(reason) = &e.reason {
                if crate::reason::Reason::from_name(&reason.text).is_none() {
                    let help = help_with(
                        &reason.text,
                        crate::reason::Reason::ALL.iter().map(|r| r.as_str()),
                        &format!(
                            "reasons are: {}",
                            crate::reason::Reason::ALL.map(|r| r.as_str()).join(", ")
                        ),
                    );
                    self.diags.push(
                        Diagnostic::new(
                            &code::UNKNOWN_REASON,
                            reason.span,
                            format!("unknown reason `{}`", reason.text),
                        )
                        .with_label("not a decision reason")
                        .with_help(help),
                    );
                }
            }
            for lit in e.needs.iter().flatten() {
                if let Err(err) = parse_permission(&lit.text) {
                    self.permission_error(lit, err);
                }
            }
        }
    }
}

/// A path pattern written out of normal form still works (it is matched in normal form), but
/// the reader of the policy should see what it means.
fn path_not_normal_warning(g: &ast::StrLit, normal: &str) -> Diagnostic {
    Diagnostic::new(
        &code::PATH_PATTERN_NOT_NORMAL,
        g.span,
        format!("path pattern `{}` is not in normal form; it is matched as `{normal}`", g.value),
    )
    .with_label("normalized when compiled")
    .with_help(format!(
        "values are normalized before they are matched (`//` and `/./` collapse, `..` is resolved, a trailing `/` is dropped), and so is the pattern: write `\"{normal}\"`"
    ))
}

/// A `shell` pattern that does not parse, pointing into the literal.
fn invalid_shell_pattern(
    p: &ast::StrLit,
    e: &crate::shell::PatternError,
    sources: &SourceMap,
) -> Diagnostic {
    Diagnostic::new(
        &code::INVALID_SHELL_PATTERN,
        literal_span(p, e.span.clone(), sources),
        format!("invalid shell pattern `{}`: {}", p.value, e.message),
    )
    .with_label("not a valid argv pattern")
    .with_help("a shell pattern is words matched one by one: each word a glob (`*`, `?`, `[...]` within the word), `...` for any remaining words, `-{r,f}` for flags in any spelling; see docs/language.md")
}

/// The span of a byte range of a string literal's decoded value, in the source.
fn literal_span(g: &ast::StrLit, r: std::ops::Range<usize>, sources: &SourceMap) -> Span {
    let body_start = g.span.start + 1; // the opening quote
    let body = sources.slice(Span::new(
        g.span.file,
        body_start,
        g.span.end.saturating_sub(1).max(body_start),
    ));
    let start = body_start + crate::syntax::literal::string_offset_in_body(body, r.start);
    let end = body_start + crate::syntax::literal::string_offset_in_body(body, r.end);
    Span::new(g.span.file, start, end.max(start + 1).min(g.span.end))
}

/// A path pattern that no normalized path can match as written (`..` above `/`, `**/..`).
fn path_not_normalizable_error(
    g: &ast::StrLit,
    e: &glob::GlobError,
    sources: &SourceMap,
) -> Diagnostic {
    let span = match &e.range {
        Some(r) => literal_span(g, r.clone(), sources),
        None => g.span,
    };
    Diagnostic::new(
        &code::PATH_NOT_NORMALIZABLE,
        span,
        format!("path pattern `{}` cannot be normalized: {}", g.value, e.message),
    )
    .with_label("cannot be resolved")
    .with_help("values are matched after `..` is resolved, so the pattern must be too: remove the `..` or spell out the directory it leads to")
}

/// Checks a regex literal, pointing any error into the literal.
fn validate_regex(lit: &ast::StrLit, sources: &SourceMap) -> Result<(), Box<Diagnostic>> {
    let pattern = &lit.value;
    // The usual case, a valid regex with classes worth caching, through the class cache; an
    // invalid one is parsed again below for the error's place.
    if crate::pattern::hir::may_cache(pattern) && crate::pattern::hir::parse(pattern, true).is_ok()
    {
        return Ok(());
    }
    let body_start = lit.span.start + 3; // re"
    let raw = sources.slice(Span::new(
        lit.span.file,
        body_start,
        lit.span.end.saturating_sub(1),
    ));
    let to_span = |start: usize, end: usize| {
        let s = body_start + regex_offset_in_body(raw, start);
        let e =
            body_start + regex_offset_in_body(raw, end).max(regex_offset_in_body(raw, start) + 1);
        Span::new(
            lit.span.file,
            s,
            e.min(lit.span.end.saturating_sub(1)).max(s),
        )
    };
    let mut parser = regex_syntax::ast::parse::ParserBuilder::new()
        .nest_limit(REGEX_NEST_LIMIT)
        .build();
    let parsed = parser.parse(pattern);
    let result = parsed
        .map_err(|e| (e.kind().to_string(), *e.span()))
        .and_then(|ast| {
            regex_syntax::hir::translate::Translator::new()
                .translate(pattern, &ast)
                .map(|_| ())
                .map_err(|e| (e.kind().to_string(), *e.span()))
        });
    match result {
        Ok(()) => Ok(()),
        Err((message, span)) => {
            let help = if message.contains("look-around") {
                "toolgate's regexes run in linear time, so look-around is not supported; match the text directly or split the test into several conditions"
            } else if message.contains("backreference") {
                "backreferences are not supported (they need backtracking); rewrite without them"
            } else {
                "regexes use Rust `regex` syntax; see docs/language.md"
            };
            Err(Box::new(
                Diagnostic::new(
                    &code::INVALID_REGEX,
                    to_span(span.start.offset, span.end.offset),
                    format!("invalid regex: {message}"),
                )
                .with_label(message)
                .with_help(help),
            ))
        }
    }
}

pub use crate::pattern::REGEX_NEST_LIMIT;

/// True when a glob starts with a URL scheme (`https://`, `s3://`: a letter, then letters,
/// digits, `+`, `-` or `.`, then `://`): it is a URL, not a relative path, and its `*`
/// stopping at `/` is what a URL pattern wants.
fn has_url_scheme(glob: &str) -> bool {
    let Some((scheme, _)) = glob.split_once("://") else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}
