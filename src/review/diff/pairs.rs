//! The (agent, tool) pairs two policies are compared on, the rules that bear on a pair, and a
//! fingerprint of everything a pair's decisions depend on.

use crate::lint::lang::{glob_regex, Lang, Langs};
use crate::resolve::{ArgType, CondDef, Grant, NamePattern, NameTest, ParamDef, Policy, RuleDef};
use std::collections::BTreeSet;
use std::rc::Rc;

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

/// Names (of tools, or of servers) that every name pattern of both policies judges in every
/// way it can: each literal, and for each combination of glob matches a shortest other name
/// (a breadth-first search of the product of the globs' DFAs). `None` when the product is
/// too large.
fn name_regions(
    patterns: &[&NamePattern],
    literals: &BTreeSet<String>,
    langs: &mut Langs,
    limit: usize,
) -> Option<Vec<String>> {
    let mut globs: Vec<(NameTest, Rc<Lang>)> = Vec::new();
    let mut seen = BTreeSet::new();
    let mut literals = literals.clone();
    for p in patterns {
        match p {
            NamePattern::Any => {}
            NamePattern::Literal(l) => {
                literals.insert(l.clone());
            }
            NamePattern::Glob { regex, .. } => {
                if seen.insert(regex.clone()) {
                    globs.push((NameTest::new(p), langs.get(&glob_regex(regex))?));
                }
            }
        }
    }
    let is_literal = if literals.is_empty() {
        None
    } else {
        let alts: Vec<String> = literals.iter().map(|l| regex_syntax::escape(l)).collect();
        Some(langs.get(&format!("(?:{})", alts.join("|")))?)
    };
    let guard = langs.get(r"(?s:.)+")?;
    let comps: Vec<&Lang> = globs
        .iter()
        .map(|(_, l)| l.as_ref())
        .chain(is_literal.as_deref())
        .collect();
    let words = super::regions::explore(&guard, &comps, limit).ok()?;
    let mut out: Vec<String> = literals.iter().cloned().collect();
    out.extend(words.into_iter().filter_map(|w| String::from_utf8(w).ok()));
    out.push(String::new());
    // One name per way the patterns judge names (as the engine matches them); a literal is a
    // region of its own.
    let mut keys = BTreeSet::new();
    let mut kept = Vec::new();
    for name in out {
        let globs_key: Vec<bool> = globs.iter().map(|(t, _)| t.is_match(&name)).collect();
        let literal = literals.contains(&name).then(|| name.clone());
        if keys.insert((globs_key, literal)) {
            kept.push(name);
        }
    }
    kept.sort();
    kept.dedup();
    Some(kept)
}

/// Every tool address worth asking about; `Err` with why when the names of a policy without a
/// catalog cannot be enumerated within the budget.
pub(crate) fn addresses(
    policies: [&Policy; 2],
    langs: &mut Langs,
    limit: usize,
) -> Result<Vec<Address>, String> {
    let mut out = BTreeSet::new();
    for p in policies {
        for t in &p.tools {
            if let Some(s) = t.server {
                out.insert(Address {
                    server: p.servers.get(s).map(|s| s.name.clone()),
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
        // Names are free: every way the rule targets (and the catalog) can judge a name.
        let rules: Vec<&RuleDef> = policies
            .iter()
            .flat_map(|p| p.agents.iter().flat_map(|a| &a.rules))
            .collect();
        let tool_patterns: Vec<&NamePattern> = rules.iter().map(|r| &r.target.tool).collect();
        let server_patterns: Vec<&NamePattern> = rules
            .iter()
            .filter_map(|r| r.target.server.as_ref())
            .collect();
        let tool_names: BTreeSet<String> = policies
            .iter()
            .flat_map(|p| p.tools.iter().map(|t| t.name.clone()))
            .collect();
        let server_names: BTreeSet<String> = policies
            .iter()
            .flat_map(|p| p.servers.iter().map(|s| s.name.clone()))
            .collect();
        let too_many = || format!("the tool or server names exceed {limit} automaton states");
        let tools = name_regions(&tool_patterns, &tool_names, langs, limit).ok_or_else(too_many)?;
        let servers =
            name_regions(&server_patterns, &server_names, langs, limit).ok_or_else(too_many)?;
        for s in std::iter::once(None).chain(servers.into_iter().map(Some)) {
            for t in &tools {
                out.insert(Address {
                    server: s.clone(),
                    tool: t.clone(),
                });
            }
        }
    }
    Ok(out.into_iter().collect())
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
                let name = p.servers.get(*i).map_or("", |s| s.name.as_str());
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

/// The declared arguments of the tools with this name (on the addressed server, if any).
fn declared_params<'p>(policy: &'p Policy, addr: &Address) -> impl Iterator<Item = &'p ParamDef> {
    let server = addr.server.clone();
    let tool = addr.tool.clone();
    policy
        .tools
        .iter()
        .filter(move |t| t.name == tool)
        .filter(move |t| match (&server, t.server) {
            (Some(s), Some(i)) => policy.servers.get(i).is_some_and(|x| x.name == *s),
            (Some(_), None) => false,
            (None, _) => true,
        })
        .flat_map(|t| t.params.iter().flatten())
}

/// The arguments the catalog requires of a tool with this name (on the addressed server, if
/// any).
pub(crate) fn required_args(policy: &Policy, addr: &Address) -> Vec<String> {
    declared_params(policy, addr)
        .filter(|p| !p.optional)
        .map(|p| p.name.clone())
        .collect()
}

/// The arguments the catalog declares with a type other than `any` for a tool with this name
/// (on the addressed server, if any), each with its type: the engine refuses a call whose
/// argument has another type (`invalid_argument`).
pub(crate) fn typed_args(policy: &Policy, addr: &Address) -> Vec<(String, ArgType)> {
    declared_params(policy, addr)
        .filter(|p| !p.ty.is_any())
        .map(|p| (p.name.clone(), p.ty))
        .collect()
}

fn cond_key(c: &CondDef) -> String {
    format!("{:?} {:?}", c.path, c.test)
}

/// Everything the decisions of `agent` on `addr` depend on, in a form independent of order,
/// layout and file names: two policies with equal fingerprints decide the pair alike.
pub(crate) fn fingerprint(policy: &Policy, agent: &str, addr: &Address) -> String {
    fingerprint_of(policy, agent, Some(addr))
}

/// Everything an agent's decisions depend on, for every tool at once: the catalog, the
/// agent's grants, default and rules, independent of order, layout and file names.
pub(crate) fn agent_fingerprint(policy: &Policy, agent: &str) -> String {
    fingerprint_of(policy, agent, None)
}

/// The fingerprint of the agent's decisions on the addressed tool, or on every tool (`None`):
/// the catalog entries of the tool(s), then the agent's default, grants and the rules that
/// may target the tool(s).
fn fingerprint_of(policy: &Policy, agent: &str, addr: Option<&Address>) -> String {
    let mut catalog: Vec<String> = policy
        .tools
        .iter()
        .filter(|t| addr.is_none_or(|a| t.name == a.tool))
        .map(|t| {
            // Only whether a call is allowed matters: the order of `needs` (which names the
            // first missing permission) and of the arguments does not. A declared type
            // decides which values are refused (`invalid_argument`). An optional argument
            // without a type is checked by nothing, so it is left out (as is whether the
            // tool has an argument list at all): a policy rebuilt from a bundle, which keeps
            // only what decides, has the same fingerprint as its source.
            let server = t
                .server
                .and_then(|i| policy.servers.get(i))
                .map(|s| s.name.as_str());
            let mut needs: Vec<String> = t.needs.iter().map(ToString::to_string).collect();
            needs.sort();
            needs.dedup();
            let mut params: Vec<(String, bool, String)> = t
                .params
                .iter()
                .flatten()
                .filter(|p| !(p.optional && p.ty.is_any()))
                .map(|p| (p.name.clone(), p.optional, p.ty.to_string()))
                .collect();
            params.sort();
            format!("{server:?} {} {needs:?} {params:?}", t.name)
        })
        .collect();
    catalog.sort();
    let agent_part = match policy.agent(agent) {
        None => "no agent".to_string(),
        Some(a) => {
            let mut grants: Vec<String> = a.grants.iter().map(|(g, _)| g.to_string()).collect();
            grants.sort();
            grants.dedup();
            let rules: Vec<&RuleDef> = match addr {
                Some(addr) => relevant_rules(policy, agent, addr),
                None => a.rules.iter().collect(),
            };
            let mut rules: Vec<String> = rules
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

/// A name not in `used`, made of lowercase letters (valid in a permission).
fn fresh(used: &BTreeSet<String>) -> String {
    let mut name = "other".to_string();
    while used.contains(&name) {
        name.push('x');
    }
    name
}

/// The `permissions` a request carries, to try against policies without a catalog: none,
/// and each single permission that some grant or need names or that a `domain:*` or `*`
/// grant covers (by an action, or a domain, no grant names). The permission gate passes
/// exactly when every listed permission is granted, so these decide every way the two
/// policies' grants can differ.
pub(crate) fn permission_candidates(
    policies: [&Policy; 2],
    agent: &str,
) -> Vec<Option<Vec<String>>> {
    if policies.iter().all(|p| p.has_catalog()) {
        return vec![None];
    }
    let mut named: BTreeSet<(String, String)> = BTreeSet::new();
    let mut domains: BTreeSet<String> = BTreeSet::new();
    let mut wildcard_domains: BTreeSet<String> = BTreeSet::new();
    let split = |p: &str| -> (String, String) {
        let (d, a) = p.split_once(':').unwrap_or((p, ""));
        (d.to_string(), a.to_string())
    };
    for p in policies {
        for t in &p.tools {
            named.extend(t.needs.iter().map(|n| split(&n.to_string())));
        }
        for a in &p.agents {
            for (g, _) in &a.grants {
                match g {
                    Grant::All => {}
                    Grant::Domain(d) => {
                        domains.insert(d.clone());
                        if a.name == agent {
                            wildcard_domains.insert(d.clone());
                        }
                    }
                    Grant::Exact(x) => {
                        named.insert(split(&x.to_string()));
                    }
                }
            }
        }
    }
    domains.extend(named.iter().map(|(d, _)| d.clone()));
    let mut perms: BTreeSet<String> = named.iter().map(|(d, a)| format!("{d}:{a}")).collect();
    for d in &wildcard_domains {
        let actions: BTreeSet<String> = named
            .iter()
            .filter(|(nd, _)| nd == d)
            .map(|(_, a)| a.clone())
            .collect();
        perms.insert(format!("{d}:{}", fresh(&actions)));
    }
    let other = fresh(&domains);
    perms.insert(format!("{other}:{other}"));
    std::iter::once(None)
        .chain(perms.into_iter().map(|p| Some(vec![p])))
        .collect()
}
