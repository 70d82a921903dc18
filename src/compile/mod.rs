#![allow(
    clippy::indexing_slicing,
    reason = "compile creates every index it uses (rule, group, permission and tool IDs are positions in the tables it is building); `decide` turns a panic into an `internal_error` deny"
)]
//! Resolved policy to [`Program`], in named steps: intern the permissions, number the rules,
//! build each agent's grant set and rule group, then either the catalog tables (the permission
//! gate, visible tools and candidate rules of every (agent, catalog tool) pair) or, without a
//! catalog, the rule-target matchers. A failure in any step is a diagnostic.

pub(crate) mod group;

use crate::diagnostic::{code, Diagnostic, Diagnostics};
use crate::program::agent::AgentRt;
use crate::program::agent_index::AgentIndex;
use crate::program::catalog::{AgentColumns, Catalog, ToolSpec};
use crate::program::csr::Csr;
use crate::program::dfa::{DfaError, DfaLimits};
use crate::program::group::Group;
use crate::program::ids::{
    DomainId, GroupId, IdOverflow, LocalRuleId, PermId, RuleId, ServerId, ToolId,
};
use crate::program::index::{Automata, PatternIndex};
use crate::program::perms::{Grants, PermTable};
use crate::program::rule::{RuleRef, Rules};
use crate::program::target::TargetMatcher;
use crate::program::Program;
use crate::resolve::{listing, AgentDef, Grant, NamePattern, Policy, RuleDef};
use crate::source::Span;
use crate::syntax::ast::Effect;
use std::sync::Arc;

/// Compiles a resolved policy with the default size limits.
pub fn compile(policy: &Policy) -> Result<Program, Diagnostics> {
    compile_with_limits(policy, DfaLimits::default())
}

/// Compiles a resolved policy with explicit automaton size limits. Exceeding a limit is a
/// diagnostic, never an abort.
pub(crate) fn compile_with_limits(
    policy: &Policy,
    limits: DfaLimits,
) -> Result<Program, Diagnostics> {
    let mut shared = group::Shared {
        limits,
        ..group::Shared::default()
    };
    let mut diags = Diagnostics::new();
    let perms = intern_permissions(policy).map_err(too_large)?;
    let (rules, agent_rules) = rule_table(policy).map_err(too_large)?;
    let mut groups = vec![Group::empty()];
    let mut agents = Vec::with_capacity(policy.agents.len());
    for (agent, mine) in policy.agents.iter().zip(&agent_rules) {
        let group = rule_group(agent, mine, &mut shared, &mut groups, &mut diags);
        agents.push(agent_tables(agent, group));
    }
    let grants =
        Grants::new(policy.agents.iter().map(|a| grant_set(a, &perms))).map_err(too_large)?;
    let catalog = if policy.has_catalog() {
        Some(catalog_tables(policy, &perms, &agent_rules).map_err(too_large)?)
    } else {
        target_matchers(policy, &mut agents, &agent_rules, &mut shared, &mut diags);
        None
    };
    if diags.has_errors() {
        return Err(diags);
    }
    let agent_index = AgentIndex::build(&agents).map_err(|_| too_large(IdOverflow("agents")))?;
    Ok(Program {
        agents,
        grants,
        agent_index,
        catalog,
        rules,
        groups,
        perms,
        automata: shared.automata,
        needles: shared.needles,
        tests: crate::resolve::test_case::cases(policy),
    })
}

/// A table of the policy that outgrew its IDs: the policy cannot be compiled.
fn too_large(e: IdOverflow) -> Diagnostics {
    let mut diags = Diagnostics::new();
    diags.push(
        Diagnostic::new(
            &code::LIMIT_TABLE_SIZE,
            Span::default(),
            format!(
                "the compiled policy would have {e}; its tables number entries with 32-bit IDs"
            ),
        )
        .with_help("split the policy into smaller ones"),
    );
    diags
}

/// Step 1: every permission a tool needs or an agent is granted, and every granted domain.
fn intern_permissions(policy: &Policy) -> Result<PermTable, IdOverflow> {
    let mut perms = PermTable::default();
    for tool in &policy.tools {
        for p in &tool.needs {
            perms.intern(p)?;
        }
    }
    for agent in &policy.agents {
        for (g, _) in &agent.grants {
            match g {
                Grant::Exact(p) => {
                    perms.intern(p)?;
                }
                Grant::Domain(d) => {
                    perms.intern_domain(d)?;
                }
                Grant::All => {}
            }
        }
    }
    Ok(perms)
}

/// The rules of one agent, as (global rule ID, definition) in source order.
type AgentRules<'p> = Vec<(RuleId, &'p RuleDef)>;

/// Step 2: every rule, globally numbered, with its location and message; and each agent's
/// rules with their IDs.
fn rule_table(policy: &Policy) -> Result<(Rules, Vec<AgentRules<'_>>), IdOverflow> {
    let mut rules: Vec<(RuleRef, String)> =
        Vec::with_capacity(policy.agents.iter().map(|a| a.rules.len()).sum());
    let mut agent_rules = Vec::with_capacity(policy.agents.len());
    let (mut file, mut target) = (None, None);
    for agent in &policy.agents {
        let mut mine = Vec::with_capacity(agent.rules.len());
        let agent_name: Arc<str> = Arc::from(agent.name.as_str());
        for rule in &agent.rules {
            let loc = policy.sources.location(rule.span);
            let info = RuleRef {
                agent: Arc::clone(&agent_name),
                effect: rule.effect,
                target: crate::program::rule::shared(&mut target, &rule.target.text),
                file: crate::program::rule::shared(&mut file, &loc.file),
                line: loc.line,
                column: loc.column,
            };
            let message = match &rule.because {
                Some(b) => b.clone(),
                None => format!(
                    "{} by rule `{} {}` of agent `{}` ({}:{})",
                    match rule.effect {
                        Effect::Deny => "denied",
                        Effect::Allow => "allowed",
                    },
                    rule.effect.as_str(),
                    rule.target.text,
                    agent.name,
                    info.file,
                    info.line
                ),
            };
            mine.push((RuleId::new(rules.len())?, rule));
            rules.push((info, message));
        }
        agent_rules.push(mine);
    }
    Ok((Rules::new(rules)?, agent_rules))
}

/// Step 3: an agent's grants over the interned permissions and domains: whether it was
/// granted everything, the permissions and the whole domains.
fn grant_set(agent: &AgentDef, perms: &PermTable) -> (bool, Vec<PermId>, Vec<DomainId>) {
    let (mut all, mut exact, mut domains) = (false, Vec::new(), Vec::new());
    for (g, _) in &agent.grants {
        match g {
            Grant::All => all = true,
            Grant::Domain(d) => domains.extend(perms.domain_id(d)),
            Grant::Exact(p) => exact.extend(perms.id(&p.domain, &p.action)),
        }
    }
    (all, exact, domains)
}

/// Step 4: the agent's rule group (all its rules), pushed onto `groups`; its ID. An agent
/// without rules shares group 0, the empty group; a group that cannot be built is a
/// diagnostic (and group 0 stands in, so compiling goes on to report more).
fn rule_group(
    agent: &AgentDef,
    members: &AgentRules<'_>,
    shared: &mut group::Shared,
    groups: &mut Vec<Group>,
    diags: &mut Diagnostics,
) -> GroupId {
    if members.is_empty() {
        return GroupId::FIRST;
    }
    let built = GroupId::new(groups.len())
        .map_err(group::GroupError::TooLarge)
        .and_then(|id| Ok((id, group::build(members, shared)?)));
    match built {
        Ok((id, g)) => {
            groups.push(g);
            id
        }
        Err(group::GroupError::TooLarge(e)) => {
            diags.extend(too_large(e));
            GroupId::FIRST
        }
        Err(group::GroupError::Arg {
            arg,
            first_rule,
            error,
        }) => {
            let span = members.get(first_rule).map_or(agent.span, |(_, r)| r.span);
            diags.push(
                Diagnostic::new(
                    if error.too_large {
                        &code::AUTOMATON_TOO_LARGE
                    } else {
                        &code::AUTOMATON_BUILD
                    },
                    span,
                    format!(
                        "the patterns agent `{}` places on argument `{}` cannot be compiled together: {}",
                        agent.name, arg, error.message
                    ),
                )
                .with_label("first rule constraining this argument")
                .with_help("split the patterns across tools or agents, or simplify them (bounded repetitions such as `{1,1000}` are expensive)"),
            );
            GroupId::FIRST
        }
    }
}

/// The agent's own tables; the catalog or target step fills in the rest.
fn agent_tables(agent: &AgentDef, group: GroupId) -> AgentRt {
    AgentRt {
        name: agent.name.as_str().into(),
        default: agent.default,
        group,
        targets: None,
        default_message: match agent.default {
            Effect::Allow => format!("allowed by the default of agent `{}`", agent.name).into(),
            Effect::Deny => Box::default(),
        },
    }
}

/// Step 5 (with a catalog): the tools, and for every (agent, tool) pair the first permission
/// not granted, whether the agent may see the tool, and the rules that target it.
fn catalog_tables(
    policy: &Policy,
    perms: &PermTable,
    agent_rules: &[AgentRules<'_>],
) -> Result<Catalog, IdOverflow> {
    let tools = policy
        .tools
        .iter()
        .map(|t| {
            Ok(ToolSpec {
                server: t.server.map(ServerId::new).transpose()?,
                name: t.name.clone(),
                needs: t
                    .needs
                    .iter()
                    .filter_map(|p| perms.id(&p.domain, &p.action))
                    .collect(),
                required: t.required_args(),
                typed: t.typed_args(),
            })
        })
        .collect::<Result<Vec<ToolSpec>, IdOverflow>>()?;
    let servers: Vec<String> = policy.servers.iter().map(|s| s.name.clone()).collect();
    let n_tools = tools.len();
    // The program numbers its tools as the resolved policy does (positions in
    // `policy.tools`); a catalog past what a ToolId holds is refused here.
    ToolId::new(n_tools.saturating_sub(1))?;
    let n_agents = policy.agents.len();
    let mut gate = Vec::with_capacity(n_agents * n_tools);
    let mut candidates = Vec::with_capacity(n_agents * n_tools);
    let mut visible = Vec::with_capacity(n_agents);
    for (a, (agent, mine)) in policy.agents.iter().zip(agent_rules).enumerate() {
        let per_tool = rules_per_tool(mine, n_tools);
        let first_rule = mine.first().map_or(0, |(id, _)| id.index());
        let mut sees = Vec::new();
        for ((t, members), tool) in (0u32..).zip(&per_tool).zip(&tools) {
            let missing = policy
                .missing(a, t)
                .and_then(|p| perms.id(&p.domain, &p.action));
            gate.push(Catalog::gate_entry(missing)?);
            let locals = members
                .iter()
                .map(|(id, _)| LocalRuleId::new(id.index() - first_rule))
                .collect::<Result<Vec<_>, _>>()?;
            candidates.push(locals);
            // Listed when some call may be allowed, judged as `toolgate matrix` judges it.
            let rules: Vec<&RuleDef> = members.iter().map(|&(_, r)| r).collect();
            let may_allow = listing::may_allow(policy, t, agent.default, &rules);
            // A host tool that shares its name with a server's tool cannot be called: a
            // request without a server is `ambiguous_tool`, and none can name the host.
            let callable = tool.server.is_some() || policy.tools_named(&tool.name).len() == 1;
            if missing.is_none() && callable && may_allow {
                sees.push(tool_id(t)?);
            }
        }
        visible.push(sees);
    }
    let columns = AgentColumns {
        gate: gate.into_boxed_slice(),
        visible: Csr::from_rows(visible)?,
        candidates: Csr::from_rows(candidates)?,
    };
    Catalog::new(&tools, servers, columns)
}

/// Inverts rule -> covered tools (computed by resolve) into tool -> rules, source order kept.
fn rules_per_tool<'p>(mine: &AgentRules<'p>, n_tools: usize) -> Vec<AgentRules<'p>> {
    let mut per_tool: Vec<AgentRules<'p>> = vec![Vec::new(); n_tools];
    for &(id, rule) in mine {
        for &t in &rule.covers {
            if let Some(rules) = per_tool.get_mut(t as usize) {
                rules.push((id, rule));
            }
        }
    }
    per_tool
}

/// The program's ID of a catalog tool the resolved policy numbers `t` (the same position in
/// the same order), checked.
fn tool_id(t: u32) -> Result<ToolId, IdOverflow> {
    ToolId::new(t as usize)
}

/// Step 5 (without a catalog): each agent's rule targets, compiled for matching the request's
/// tool and server names at run time.
fn target_matchers(
    policy: &Policy,
    agents: &mut [AgentRt],
    agent_rules: &[AgentRules<'_>],
    shared: &mut group::Shared,
    diags: &mut Diagnostics,
) {
    for ((rt, agent), mine) in agents.iter_mut().zip(&policy.agents).zip(agent_rules) {
        let targets = mine.iter().map(|(_, r)| &r.target);
        match target_matcher(targets, &mut shared.automata, shared.limits) {
            Ok(t) => rt.targets = Some(Box::new(t)),
            Err(e) => diags.push(
                Diagnostic::new(
                    if e.too_large {
                        &code::AUTOMATON_TOO_LARGE
                    } else {
                        &code::AUTOMATON_BUILD
                    },
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
}

/// Compiles rule targets (in local rule order) for matching at run time.
fn target_matcher<'a>(
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
        let local = LocalRuleId::new(i)?;
        match name_regex(&t.tool) {
            None => tool_any.push(local),
            Some(r) => {
                tool_patterns.push(r);
                tool_rules.push(local);
            }
        }
        match &t.server {
            None => no_server.push(local),
            Some(p) => match name_regex(p) {
                None => server_any.push(local),
                Some(r) => {
                    server_patterns.push(r);
                    server_rules.push(local);
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

fn name_regex(p: &NamePattern) -> Option<String> {
    match p {
        NamePattern::Any => None,
        NamePattern::Literal(l) => Some(format!("^{}$", regex_syntax::escape(l))),
        NamePattern::Glob { regex, .. } => Some(regex.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::compile;

    /// `agents` agents holding the same unanchored patterns with Unicode classes on `q`.
    fn shared_patterns(agents: usize) -> String {
        let mut text = String::from("tool search(q)\n");
        for a in 0..agents {
            text.push_str(&format!("agent r{a} {{\n"));
            for i in 0..24 {
                let script = ["Latin", "Greek", "Cyrillic", "Arabic"][i % 4];
                text.push_str(&format!(
                    "  allow search where q matches re\"\\p{{{script}}}\\w+{}\\p{{Han}}\"\n",
                    ["", "x", "y", "z", "w", "v"][i / 4]
                ));
            }
            text.push_str("}\n");
        }
        text
    }

    #[test]
    fn a_pattern_set_shared_by_agents_is_compiled_once() {
        // Five agents with one pattern set cost what one does: the index is built once, its
        // DFA attempts over the size limit (which no DFA key remembers) included.
        let builds = |agents: usize| {
            let (policy, diags) = crate::load::policy_from_sources({
                let mut m = crate::source::SourceMap::new();
                m.add("p.policy", shared_patterns(agents).as_str());
                m
            });
            assert!(!diags.has_errors());
            let program = compile(&policy).unwrap_or_else(|_| panic!("compiles"));
            program.automata.builds()
        };
        let one = builds(1);
        assert!(one > 0);
        assert_eq!(builds(5), one);
    }
}
