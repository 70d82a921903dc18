//! Classifying each agent × tool cell from the resolved policy, in the engine's order of
//! checks: the permission gate, the tool lookup, then the rules targeting the tool.

use super::{
    Access, Always, Cell, Clause, Condition, Conditional, Matrix, MatrixTool, Never, RuleLoc,
};
use crate::lint::cover::covers;
use crate::lint::Context;
use crate::resolve::listing::{self, fires_on_every_call};
use crate::resolve::{name_matches, CondTest, NamePattern, Policy, TargetDef};
use crate::syntax::ast::Effect;

/// Builds the matrix of a policy.
pub(super) fn build(policy: &Policy, relocate: &dyn Fn(RuleLoc) -> RuleLoc) -> Matrix {
    let mut cx = Context::new(policy, &[]);
    let tools = if policy.has_catalog() {
        catalog_tools(policy)
    } else {
        named_tools(policy)
    };
    let mut cells = Vec::with_capacity(policy.agents.len() * tools.len());
    for (a, agent) in policy.agents.iter().enumerate() {
        for (t, tool) in tools.iter().enumerate() {
            let access = classify(&mut cx, a, t, tool, relocate);
            cells.push(Cell {
                agent: agent.name.clone(),
                tool: tool.display.clone(),
                access,
                types: tool.types.clone(),
            });
        }
    }
    Matrix {
        catalog: policy.has_catalog(),
        agents: policy.agents.iter().map(|a| a.name.clone()).collect(),
        tools,
        cells,
    }
}

/// The declared tools.
fn catalog_tools(policy: &Policy) -> Vec<MatrixTool> {
    policy
        .tools
        .iter()
        .map(|tool| MatrixTool {
            server: tool
                .server
                .and_then(|s| policy.servers.get(s))
                .map(|s| s.name.clone()),
            name: tool.name.clone(),
            display: policy.tool_display(tool),
            required: tool.required_args(),
            arguments: tool
                .params
                .as_ref()
                .map(|ps| ps.iter().map(|p| p.name.clone()).collect()),
            types: tool.typed_args(),
        })
        .collect()
}

/// Without a catalog: the tools rules name literally (`t`, `s.t`), in order of first mention.
fn named_tools(policy: &Policy) -> Vec<MatrixTool> {
    let mut out: Vec<MatrixTool> = Vec::new();
    for rule in policy.agents.iter().flat_map(|a| &a.rules) {
        let NamePattern::Literal(name) = &rule.target.tool else {
            continue;
        };
        let server = match &rule.target.server {
            None => None,
            Some(NamePattern::Literal(s)) => Some(s.clone()),
            Some(_) => continue,
        };
        let display = match &server {
            Some(s) => format!("{s}.{name}"),
            None => name.clone(),
        };
        if !out
            .iter()
            .any(|t| t.display == display && t.server == server)
        {
            out.push(MatrixTool {
                server,
                name: name.clone(),
                display,
                required: Vec::new(),
                arguments: None,
                types: Vec::new(),
            });
        }
    }
    out
}

/// Whether a target covers a request for this tool, the way the engine matches targets
/// without a catalog: a server part needs a request naming a matching server.
fn target_covers(target: &TargetDef, tool: &MatrixTool) -> bool {
    let server_ok = match (&target.server, &tool.server) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(p), Some(s)) => name_matches(p, s),
    };
    server_ok && name_matches(&target.tool, &tool.name)
}

/// The tool's column ID (with a catalog: the policy's own tool number) and the rules of agent
/// `a` that target the tool; `Err` with the `never` that the tool lookup or the permission
/// gate decides before any rule.
#[allow(
    clippy::indexing_slicing,
    reason = "`a` enumerates `policy.agents` (`build`), and `r` the agent's rules"
)]
fn targeting(
    cx: &mut Context,
    a: usize,
    t: usize,
    tool: &MatrixTool,
) -> Result<(Option<u32>, Vec<usize>), Access> {
    let policy = cx.policy;
    let catalog = policy.has_catalog();
    // With a catalog, the columns are the policy's tools in order, numbered as resolve numbers
    // them (a catalog too large to number is refused by the compiler before a matrix is drawn).
    let id = u32::try_from(t).ok().filter(|_| catalog);
    if let Some(id) = id {
        // The tool lookup comes before the permission gate.
        if tool.server.is_none() && policy.tools_named(&tool.name).len() > 1 {
            return Err(Access::Never(Never::Ambiguous));
        }
        if let Some(p) = policy.missing(a, id) {
            return Err(Access::Never(Never::PermissionMissing(p.to_string())));
        }
    }
    let agent = &policy.agents[a];
    let targeting: Vec<usize> = (0..agent.rules.len())
        .filter(|&r| {
            let target = &agent.rules[r].target;
            if catalog {
                id.is_some_and(|id| cx.covers(a, r).binary_search(&id).is_ok())
            } else {
                target_covers(target, tool)
            }
        })
        .collect();
    Ok((id, targeting))
}

/// The cell of agent `a` and tool `t`.
#[allow(
    clippy::indexing_slicing,
    reason = "`a` enumerates `policy.agents` (`build`), and `r`, `d` the agent's rules"
)]
fn classify(
    cx: &mut Context,
    a: usize,
    t: usize,
    tool: &MatrixTool,
    relocate: &dyn Fn(RuleLoc) -> RuleLoc,
) -> Access {
    let (id, targeting) = match targeting(cx, a, t, tool) {
        Ok(found) => found,
        Err(never) => return never,
    };
    let policy = cx.policy;
    let agent = &policy.agents[a];
    let of = |effect: Effect| -> Vec<usize> {
        targeting
            .iter()
            .copied()
            .filter(|&r| agent.rules[r].effect == effect)
            .collect()
    };
    let (allows, denies) = (of(Effect::Allow), of(Effect::Deny));
    let tools: Vec<u32> = id.into_iter().collect();
    let loc = |r: usize| relocate(RuleLoc::new(&agent.rules[r], &policy.sources));

    if let Some(&d) = denies
        .iter()
        .find(|&&d| fires_on_every_call(policy, id, &agent.rules[d]))
    {
        return Access::Never(Never::DeniedByRule(loc(d)));
    }
    let clauses = |rules: &[usize]| -> Vec<Clause> {
        rules
            .iter()
            .map(|&r| Clause {
                rule: loc(r),
                conditions: agent.rules[r]
                    .conditions
                    .iter()
                    .map(Condition::new)
                    .collect(),
            })
            .collect()
    };
    if agent.default == Effect::Allow {
        if denies.is_empty() {
            return Access::Always(Always::Default);
        }
        return Access::Conditional(Conditional {
            default_allow: true,
            allows: Vec::new(),
            exceptions: clauses(&denies),
        });
    }
    if allows.is_empty() {
        return Access::Never(Never::NoAllowRule);
    }
    // Allows covered by a deny that fires wherever they do. Only denies whose conditions are
    // all `present` are exact: a deny with value conditions lets through a call whose
    // argument is an empty array, which the allow admits vacuously. With a catalog this is
    // the judgement the tool listing makes (`resolve::listing`).
    let mut overridden = Vec::new();
    let mut live = Vec::new();
    for &r in &allows {
        let by = denies.iter().copied().find(|&d| match id {
            Some(id) => listing::overrides(policy, id, &agent.rules[r], &agent.rules[d]),
            None => {
                agent.rules[d]
                    .conditions
                    .iter()
                    .all(|c| matches!(c.test, CondTest::Present))
                    && covers(cx, a, r, &tools, d)
            }
        });
        match by {
            Some(d) => overridden.push((loc(r), loc(d))),
            None => live.push(r),
        }
    }
    if live.is_empty() {
        return Access::Never(Never::AllowsOverridden(overridden));
    }
    if denies.is_empty() {
        if let Some(&r) = live
            .iter()
            .find(|&&r| fires_on_every_call(policy, id, &agent.rules[r]))
        {
            return Access::Always(Always::Rule(loc(r)));
        }
    }
    Access::Conditional(Conditional {
        default_allow: false,
        allows: clauses(&live),
        exceptions: clauses(&denies),
    })
}
