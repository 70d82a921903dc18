//! The (agent, tool) pairs two policies are compared on, the rules that bear on a pair, and a
//! fingerprint of everything a pair's decisions depend on.

use crate::resolve::{CondDef, Grant, NamePattern, NameTest, Policy, RuleDef};
use std::collections::BTreeSet;

/// How a request addresses a tool: the `server` field (if any) and the bare tool name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Address {
    /// The request's `server`.
    pub server: Option<String>,
    /// The request's `tool`.
    pub tool: String,
}

impl Address {
    /// The tool as text: `server.tool`, or the bare name.
    pub fn display(&self) -> String {
        match &self.server {
            Some(s) => format!("{s}.{}", self.tool),
            None => self.tool.clone(),
        }
    }
}

/// A tool name standing for every name no target or catalog mentions.
pub(crate) const OTHER_TOOL: &str = "other_tool";
/// A server name standing for every server no target mentions.
pub(crate) const OTHER_SERVER: &str = "other_server";

/// A name a name pattern covers (for catalog-less policies, where names are free).
fn sample_name(p: &NamePattern) -> Option<String> {
    match p {
        NamePattern::Any => None,
        NamePattern::Literal(l) => Some(l.clone()),
        NamePattern::Glob { text, .. } => {
            let mut out = String::new();
            let mut chars = text.chars();
            while let Some(c) = chars.next() {
                match c {
                    '*' | '?' => out.push('x'),
                    '[' => {
                        let mut first = None;
                        for d in chars.by_ref() {
                            if d == ']' {
                                break;
                            }
                            if first.is_none() && d != '!' && d != '^' {
                                first = Some(d);
                            }
                        }
                        out.extend(first);
                    }
                    '\\' => out.extend(chars.next()),
                    c => out.push(c),
                }
            }
            Some(out)
        }
    }
}

/// True when a request naming `tool` without a server is decided, by both policies, exactly
/// as one naming its server: each policy that declares the name declares it once, all on
/// the same server (and both have a catalog).
fn same_as_server_address(policies: [&Policy; 2], tool: &str) -> bool {
    let mut server: Option<&str> = None;
    for p in policies {
        if !p.has_catalog() {
            return false;
        }
        let decls: Vec<Option<usize>> = p
            .tools
            .iter()
            .filter(|t| t.name == tool)
            .map(|t| t.server)
            .collect();
        match decls.as_slice() {
            [] => {}
            [Some(i)] => {
                let name = p.servers[*i].name.as_str();
                if server.is_some_and(|s| s != name) {
                    return false;
                }
                server = Some(name);
            }
            _ => return false,
        }
    }
    server.is_some()
}

/// Every tool address worth asking about, and whether the tool names were only sampled (a
/// policy without a catalog accepts any name).
pub(crate) fn addresses(policies: [&Policy; 2]) -> (Vec<Address>, bool) {
    let mut out = BTreeSet::new();
    let mut sampled = false;
    for p in policies {
        for t in &p.tools {
            if let Some(s) = t.server {
                out.insert(Address {
                    server: Some(p.servers[s].name.clone()),
                    tool: t.name.clone(),
                });
            }
            if !same_as_server_address(policies, &t.name) {
                out.insert(Address {
                    server: None,
                    tool: t.name.clone(),
                });
            }
        }
    }
    if policies.iter().any(|p| !p.has_catalog()) {
        sampled = true;
        let mut tools: BTreeSet<String> = BTreeSet::from([OTHER_TOOL.to_string()]);
        let mut servers: BTreeSet<Option<String>> =
            BTreeSet::from([None, Some(OTHER_SERVER.to_string())]);
        for p in policies {
            for t in &p.tools {
                tools.insert(t.name.clone());
            }
            for s in &p.servers {
                servers.insert(Some(s.name.clone()));
            }
            for r in p.agents.iter().flat_map(|a| &a.rules) {
                tools.extend(sample_name(&r.target.tool));
                if let Some(s) = &r.target.server {
                    servers.insert(Some(sample_name(s).unwrap_or(OTHER_SERVER.into())));
                }
            }
        }
        for s in &servers {
            for t in &tools {
                out.insert(Address {
                    server: s.clone(),
                    tool: t.clone(),
                });
            }
        }
    }
    (out.into_iter().collect(), sampled)
}

/// The rules of `agent` whose target may cover the addressed tool (a superset: only the tool
/// part is compared).
pub(crate) fn relevant_rules<'p>(
    policy: &'p Policy,
    agent: &str,
    addr: &Address,
) -> Vec<&'p RuleDef> {
    policy
        .agent(agent)
        .map(|a| {
            a.rules
                .iter()
                .filter(|r| NameTest::new(&r.target.tool).is_match(&addr.tool))
                .collect()
        })
        .unwrap_or_default()
}

/// The arguments the catalog requires of a tool with this name (on the addressed server, if
/// any).
pub(crate) fn required_args(policy: &Policy, addr: &Address) -> Vec<String> {
    policy
        .tools
        .iter()
        .filter(|t| t.name == addr.tool)
        .filter(|t| match (&addr.server, t.server) {
            (Some(s), Some(i)) => policy.servers[i].name == *s,
            (Some(_), None) => false,
            (None, _) => true,
        })
        .flat_map(|t| t.params.iter().flatten())
        .filter(|p| !p.optional)
        .map(|p| p.name.clone())
        .collect()
}

fn cond_key(c: &CondDef) -> String {
    format!("{:?} {:?}", c.path, c.test)
}

/// Everything the decisions of `agent` on `addr` depend on, in a form independent of order,
/// layout and file names: two policies with equal fingerprints decide the pair alike.
pub(crate) fn fingerprint(policy: &Policy, agent: &str, addr: &Address) -> String {
    let mut catalog: Vec<String> = policy
        .tools
        .iter()
        .filter(|t| t.name == addr.tool)
        .map(|t| {
            // Only whether a call is allowed matters: the order of `needs` (which names the
            // first missing permission) and of the arguments does not.
            let server = t.server.map(|i| policy.servers[i].name.as_str());
            let mut needs: Vec<String> = t.needs.iter().map(ToString::to_string).collect();
            needs.sort();
            needs.dedup();
            let params: Option<Vec<(String, bool)>> = t.params.as_ref().map(|ps| {
                let mut v: Vec<(String, bool)> =
                    ps.iter().map(|p| (p.name.clone(), p.optional)).collect();
                v.sort();
                v
            });
            format!("{server:?} {needs:?} {params:?}")
        })
        .collect();
    catalog.sort();
    let agent_part = match policy.agent(agent) {
        None => "no agent".to_string(),
        Some(a) => {
            let mut grants: Vec<String> = a.grants.iter().map(|(g, _)| g.to_string()).collect();
            grants.sort();
            grants.dedup();
            let mut rules: Vec<String> = relevant_rules(policy, agent, addr)
                .into_iter()
                .map(|r| {
                    let mut conds: Vec<String> = r.conditions.iter().map(cond_key).collect();
                    conds.sort();
                    conds.dedup();
                    format!(
                        "{:?} {:?} {:?} {conds:?}",
                        r.effect, r.target.server, r.target.tool
                    )
                })
                .collect();
            rules.sort();
            rules.dedup();
            format!("{:?} {} {grants:?} {rules:?}", a.default, a.invalid_grants)
        }
    };
    format!("{} {catalog:?} {agent_part}", policy.has_catalog())
}

/// The `permissions` a request carries, to try against policies without a catalog: none,
/// and each single permission some grant names (`domain:*` by one action of the domain), plus
/// one no grant names.
pub(crate) fn permission_candidates(
    policies: [&Policy; 2],
    agent: &str,
) -> Vec<Option<Vec<String>>> {
    if policies.iter().all(|p| p.has_catalog()) {
        return vec![None];
    }
    let mut perms: BTreeSet<String> = BTreeSet::from(["other:other".to_string()]);
    for p in policies {
        for t in &p.tools {
            perms.extend(t.needs.iter().map(ToString::to_string));
        }
        if let Some(a) = p.agent(agent) {
            for (g, _) in &a.grants {
                match g {
                    Grant::All => {}
                    Grant::Domain(d) => {
                        perms.insert(format!("{d}:other"));
                    }
                    Grant::Exact(x) => {
                        perms.insert(x.to_string());
                    }
                }
            }
        }
    }
    std::iter::once(None)
        .chain(perms.into_iter().map(|p| Some(vec![p])))
        .collect()
}
