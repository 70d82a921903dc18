//! Resolved policy to [`Engine`]: interned IDs for permissions, domains, tools and agents;
//! grant bitsets; the permission gate for every (agent, catalog tool) pair; a rule group per
//! (agent, tool) with one multi-pattern matcher per argument.

pub mod bitset;
pub mod csr;
pub mod dfa;
pub mod glob;
pub(crate) mod group;
pub mod index;
pub mod matcher;
pub mod needle_table;
pub mod path;

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::engine::{AgentRt, Catalog, Engine, GrantSet, PermTable, RuleRt, TargetMatcher, ToolRt};
use crate::resolve::{Grant, NamePattern, NameTest, Policy, RuleDef};
use crate::syntax::ast::Effect;
use crate::RuleRef;
use bitset::BitSet;
use csr::Csr;
use dfa::{DfaError, DfaLimits};
use group::Group;
use index::{Automata, PatternIndex};
use rustc_hash::FxHashMap;
use std::collections::HashMap;

/// Compiles a resolved policy with the default size limits.
pub fn compile(policy: &Policy) -> Result<Engine, Diagnostics> {
    compile_with_limits(policy, DfaLimits::default())
}

/// Compiles a resolved policy with explicit automaton size limits. Exceeding a limit is a
/// diagnostic, never an abort.
pub fn compile_with_limits(policy: &Policy, limits: DfaLimits) -> Result<Engine, Diagnostics> {
    let mut shared = group::Shared {
        limits,
        ..group::Shared::default()
    };
    let mut diags = Diagnostics::new();
    let mut perms = PermTable::default();
    for tool in &policy.tools {
        for p in &tool.needs {
            perms.intern(p);
        }
    }
    for agent in &policy.agents {
        for (g, _) in &agent.grants {
            match g {
                Grant::Exact(p) => {
                    perms.intern(p);
                }
                Grant::Domain(d) => {
                    perms.intern_domain(d);
                }
                Grant::All => {}
            }
        }
    }

    // Rules, globally numbered, with their locations and messages.
    let mut rules: Vec<RuleRt> = Vec::new();
    let mut agent_rules: Vec<Vec<(u32, &RuleDef)>> = Vec::new();
    for agent in &policy.agents {
        let mut mine = Vec::new();
        for rule in &agent.rules {
            let loc = policy.sources.location(rule.span);
            let info = RuleRef {
                agent: agent.name.clone(),
                effect: rule.effect,
                target: rule.target.text.clone(),
                file: loc.file,
                line: loc.line,
                column: loc.column,
            };
            let message = match (&rule.because, rule.effect) {
                (Some(b), _) => b.clone(),
                (None, Effect::Deny) => format!(
                    "denied by rule `deny {}` of agent `{}` ({}:{})",
                    rule.target.text, agent.name, info.file, info.line
                ),
                (None, Effect::Allow) => format!(
                    "allowed by rule `allow {}` of agent `{}` ({}:{})",
                    rule.target.text, agent.name, info.file, info.line
                ),
            };
            mine.push((rules.len() as u32, rule));
            rules.push(RuleRt { info, message });
        }
        agent_rules.push(mine);
    }

    let mut groups: Vec<Group> = vec![Group::default()];
    let mut group_ids: HashMap<Vec<u32>, u32> = HashMap::new();
    group_ids.insert(Vec::new(), 0);
    let mut build_group = |members: &[(u32, &RuleDef)],
                           agent: &str,
                           diags: &mut Diagnostics|
     -> u32 {
        let key: Vec<u32> = members.iter().map(|(id, _)| *id).collect();
        if let Some(&g) = group_ids.get(&key) {
            return g;
        }
        match group::build(members, &mut shared) {
            Ok(g) => {
                groups.push(g);
                let id = groups.len() as u32 - 1;
                group_ids.insert(key, id);
                id
            }
            Err(e) => {
                let span = members[e.first_rule].1.span;
                diags.push(
                    Diagnostic::error(
                        if e.error.too_large { "toolgate::automaton_too_large" } else { "toolgate::automaton_build" },
                        span,
                        format!(
                            "the patterns agent `{agent}` places on argument `{}` cannot be compiled together: {}",
                            e.arg, e.error.message
                        ),
                    )
                    .with_label("first rule constraining this argument")
                    .with_help("split the patterns across tools, simplify them (bounded repetitions such as `{1,1000}` are expensive), or raise the automaton size limit"),
                );
                group_ids.insert(key, 0);
                0
            }
        }
    };

    let mut agents: Vec<AgentRt> = Vec::new();
    let mut agent_index: FxHashMap<String, u32> = FxHashMap::default();
    for agent in &policy.agents {
        let mut grants = GrantSet {
            all: false,
            exact: BitSet::new(perms.len()),
            domains: BitSet::new(perms.domain_len()),
        };
        for (g, _) in &agent.grants {
            match g {
                Grant::All => grants.all = true,
                Grant::Domain(d) => {
                    if let Some(id) = perms.domain_id(d) {
                        grants.domains.insert(id as usize);
                    }
                }
                Grant::Exact(p) => {
                    if let Some(id) = perms.id(&p.domain, &p.action) {
                        grants.exact.insert(id as usize);
                    }
                }
            }
        }
        agent_index.insert(agent.name.clone(), agents.len() as u32);
        agents.push(AgentRt {
            name: agent.name.clone(),
            default: agent.default,
            grants,
            group: 0,
            targets: None,
            visible: Vec::new(),
            candidates: Csr::default(),
            deny_candidates: Csr::default(),
            default_message: match agent.default {
                Effect::Allow => format!("allowed by the default of agent `{}`", agent.name),
                Effect::Deny => String::new(),
            },
        });
    }

    // One rule group per agent, holding all its rules; with a catalog, each (agent, tool)
    // selects its candidate rules from it through a precomputed list.
    for (ai, agent) in policy.agents.iter().enumerate() {
        agents[ai].group = build_group(&agent_rules[ai], &agent.name, &mut diags);
    }

    let catalog = if policy.has_catalog() {
        let tools: Vec<ToolRt> = policy
            .tools
            .iter()
            .map(|t| ToolRt {
                server: t.server.map(|s| s as u32),
                name: t.name.clone(),
                display: policy.tool_display(t),
                needs: t
                    .needs
                    .iter()
                    .filter_map(|p| perms.id(&p.domain, &p.action))
                    .collect(),
                required: t
                    .params
                    .iter()
                    .flatten()
                    .filter(|p| !p.optional)
                    .map(|p| p.name.clone())
                    .collect(),
            })
            .collect();
        let mut by_name: FxHashMap<String, Vec<u32>> = FxHashMap::default();
        for (i, t) in tools.iter().enumerate() {
            by_name.entry(t.name.clone()).or_default().push(i as u32);
        }
        let servers: Vec<String> = policy.servers.iter().map(|s| s.name.clone()).collect();
        let n_tools = tools.len();
        let mut gate = Vec::with_capacity(agents.len() * n_tools);
        for (ai, agent) in policy.agents.iter().enumerate() {
            // Invert rule -> targeted tools into tool -> rules (source order kept).
            let mut per_tool: Vec<Vec<(u32, &RuleDef)>> = vec![Vec::new(); n_tools];
            for &(id, rule) in &agent_rules[ai] {
                let server_test = rule.target.server.as_ref().map(NameTest::new);
                let tool_test = NameTest::new(&rule.target.tool);
                let candidates: Vec<u32> = match &tool_test {
                    NameTest::Literal(l) => by_name.get(l).cloned().unwrap_or_default(),
                    _ => (0..n_tools as u32)
                        .filter(|&t| tool_test.is_match(&tools[t as usize].name))
                        .collect(),
                };
                for t in candidates {
                    let tool = &tools[t as usize];
                    let server_ok = match (&server_test, tool.server) {
                        (None, _) => true,
                        (Some(test), Some(s)) => test.is_match(&servers[s as usize]),
                        (Some(_), None) => false,
                    };
                    if server_ok {
                        per_tool[t as usize].push((id, rule));
                    }
                }
            }
            let rt = &agents[ai];
            let first_rule = agent_rules[ai].first().map_or(0, |(id, _)| *id);
            let mut visible = Vec::new();
            let mut candidates = Csr::default();
            for (t, members) in per_tool.iter().enumerate() {
                let missing = tools[t]
                    .needs
                    .iter()
                    .copied()
                    .find(|&p| !rt.grants.contains(&perms, p));
                gate.push(missing);
                let locals: Vec<u32> = members.iter().map(|(id, _)| id - first_rule).collect();
                candidates.push_row(&locals);
                let targeted_by_allow = members.iter().any(|(_, r)| r.effect == Effect::Allow);
                let removed = members
                    .iter()
                    .any(|(_, r)| r.effect == Effect::Deny && r.conditions.is_empty());
                if missing.is_none()
                    && (targeted_by_allow || agent.default == Effect::Allow)
                    && !removed
                {
                    visible.push(t as u32);
                }
            }
            agents[ai].visible = visible;
            agents[ai].candidates = candidates;
        }
        Some(Catalog {
            tools,
            by_name,
            servers,
            gate,
            n_tools,
        })
    } else {
        for (ai, agent) in policy.agents.iter().enumerate() {
            let targets = agent_rules[ai].iter().map(|(_, r)| &r.target);
            match TargetMatcher::new(targets, &mut shared.automata, limits) {
                Ok(t) => agents[ai].targets = Some(t),
                Err(e) => diags.push(
                    Diagnostic::error(
                        "toolgate::automaton_too_large",
                        agent.span,
                        format!(
                            "the rule targets of agent `{}` cannot be compiled: {}",
                            agent.name, e.message
                        ),
                    )
                    .with_label("in this agent")
                    .with_help("use fewer or simpler target globs"),
                ),
            }
        }
        None
    };

    if diags.has_errors() {
        return Err(diags);
    }
    Ok(Engine::new(
        agents,
        agent_index,
        catalog,
        rules,
        groups,
        perms,
        shared.automata,
        shared.needles,
        crate::testing::cases(policy),
    ))
}

impl TargetMatcher {
    /// Compiles rule targets (in local rule order) for matching at run time.
    fn new<'a>(
        targets: impl Iterator<Item = &'a crate::resolve::TargetDef>,
        automata: &mut Automata,
        limits: DfaLimits,
    ) -> Result<TargetMatcher, DfaError> {
        let mut tool_patterns = Vec::new();
        let mut tool_rules = Vec::new();
        let mut server_patterns = Vec::new();
        let mut server_rules = Vec::new();
        let mut tool_any = Vec::new();
        let mut no_server = Vec::new();
        let mut server_any = Vec::new();
        let mut n = 0;
        for (i, t) in targets.enumerate() {
            n = i + 1;
            match name_regex(&t.tool) {
                None => tool_any.push(i as u32),
                Some(r) => {
                    tool_patterns.push(r);
                    tool_rules.push(i as u32);
                }
            }
            match &t.server {
                None => no_server.push(i as u32),
                Some(p) => match name_regex(p) {
                    None => server_any.push(i as u32),
                    Some(r) => {
                        server_patterns.push(r);
                        server_rules.push(i as u32);
                    }
                },
            }
        }
        Ok(TargetMatcher {
            n_rules: n,
            tool: PatternIndex::build(&tool_patterns, automata, limits)?,
            tool_rules,
            tool_any,
            server: PatternIndex::build(&server_patterns, automata, limits)?,
            server_rules,
            server_any,
            no_server,
        })
    }
}

fn name_regex(p: &NamePattern) -> Option<String> {
    match p {
        NamePattern::Any => None,
        NamePattern::Literal(l) => Some(format!("^{}$", regex_syntax::escape(l))),
        NamePattern::Glob { regex, .. } => Some(regex.clone()),
    }
}
