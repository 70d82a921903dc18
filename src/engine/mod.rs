//! The decision engine: a compiled policy answering [`Request`]s with [`Decision`]s.
//!
//! Nothing here parses a policy. The order of checks is LANGUAGE.md section 7: agent, tool
//! lookup, permission gate (precomputed per agent and catalog tool), required arguments, then
//! the rule group (deny wins, then allow, then the agent's default).

pub mod args;
pub mod decision;
mod evaluate;
mod integrity;
pub mod json;
pub mod request;

use decision::Verdict;
pub use decision::{Decision, Explanation, Reason, RuleRef, RuleTrace};
pub use request::{BadRequest, Request};

use crate::compile::bitset::BitSet;
use crate::compile::group::Group;
use crate::compile::index::{Automata, PatternIndex};
use crate::compile::matcher::NeedleMatcher;
use crate::resolve::{parse_permission, Permission};
use crate::syntax::ast::Effect;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// Interned permissions and domains.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct PermTable {
    names: Vec<String>,
    domain_of: Vec<u32>,
    domain_names: Vec<String>,
    #[serde(skip)]
    index: FxHashMap<String, u32>,
    #[serde(skip)]
    domains: FxHashMap<String, u32>,
}

impl PermTable {
    pub(crate) fn intern_domain(&mut self, d: &str) -> u32 {
        if let Some(&id) = self.domains.get(d) {
            return id;
        }
        let id = self.domain_names.len() as u32;
        self.domain_names.push(d.to_string());
        self.domains.insert(d.to_string(), id);
        id
    }

    /// Rebuilds the lookup maps and checks every reference (after loading a bundle).
    pub(crate) fn rebuild(&mut self) -> Result<(), String> {
        if self.domain_of.len() != self.names.len()
            || self
                .domain_of
                .iter()
                .any(|&d| d as usize >= self.domain_names.len())
        {
            return Err("permission table is inconsistent".into());
        }
        self.index = self
            .names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i as u32))
            .collect();
        self.domains = self
            .domain_names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i as u32))
            .collect();
        if self.index.len() != self.names.len() || self.domains.len() != self.domain_names.len() {
            return Err("permission table has duplicates".into());
        }
        Ok(())
    }
    pub(crate) fn intern(&mut self, p: &Permission) -> u32 {
        let d = self.intern_domain(&p.domain);
        let key = p.to_string();
        if let Some(&id) = self.index.get(&key) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(key.clone());
        self.domain_of.push(d);
        self.index.insert(key, id);
        id
    }
    pub(crate) fn id(&self, domain: &str, action: &str) -> Option<u32> {
        self.index.get(&format!("{domain}:{action}")).copied()
    }
    pub(crate) fn domain_id(&self, d: &str) -> Option<u32> {
        self.domains.get(d).copied()
    }
    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }
    pub(crate) fn domain_len(&self) -> usize {
        self.domain_names.len()
    }
    pub(crate) fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }
}

/// What one agent was granted: bitsets over interned permissions and domains.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct GrantSet {
    pub all: bool,
    pub exact: BitSet,
    pub domains: BitSet,
}

impl GrantSet {
    /// Membership of an interned permission: constant time.
    #[inline]
    pub(crate) fn contains(&self, perms: &PermTable, p: u32) -> bool {
        self.all
            || self.exact.contains(p as usize)
            || self.domains.contains(perms.domain_of[p as usize] as usize)
    }

    /// Membership of any permission, interned or not (policies without a catalog).
    fn contains_permission(&self, perms: &PermTable, p: &Permission) -> bool {
        if self.all {
            return true;
        }
        if let Some(id) = perms.id(&p.domain, &p.action) {
            if self.exact.contains(id as usize) {
                return true;
            }
        }
        perms
            .domain_id(&p.domain)
            .is_some_and(|d| self.domains.contains(d as usize))
    }
}

/// Rule targets compiled for run-time selection (policies without a catalog).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct TargetMatcher {
    pub n_rules: usize,
    pub tool: PatternIndex,
    pub tool_rules: Vec<u32>,
    pub tool_any: Vec<u32>,
    pub server: PatternIndex,
    pub server_rules: Vec<u32>,
    pub server_any: Vec<u32>,
    pub no_server: Vec<u32>,
}

impl TargetMatcher {
    fn candidates(&self, server: Option<&str>, tool: &str, automata: &Automata) -> Option<BitSet> {
        let (mut scratch, mut hits) = (Vec::new(), Vec::new());
        let mut tool_ok = BitSet::new(self.n_rules);
        for &r in &self.tool_any {
            tool_ok.insert(r as usize);
        }
        if !self
            .tool
            .matches(tool.as_bytes(), automata, &mut scratch, &mut hits)
        {
            return None;
        }
        for &p in &hits {
            tool_ok.insert(*self.tool_rules.get(p as usize)? as usize);
        }
        let mut out = BitSet::new(self.n_rules);
        for &r in &self.no_server {
            if tool_ok.contains(r as usize) {
                out.insert(r as usize);
            }
        }
        if let Some(server) = server {
            for &r in &self.server_any {
                if tool_ok.contains(r as usize) {
                    out.insert(r as usize);
                }
            }
            hits.clear();
            if !self
                .server
                .matches(server.as_bytes(), automata, &mut scratch, &mut hits)
            {
                return None;
            }
            for &p in &hits {
                let r = *self.server_rules.get(p as usize)? as usize;
                if tool_ok.contains(r) {
                    out.insert(r);
                }
            }
        }
        Some(out)
    }
}

/// One compiled agent.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct AgentRt {
    pub name: String,
    pub default: Effect,
    pub grants: GrantSet,
    /// The group of all the agent's rules.
    pub group: u32,
    /// Without a catalog: the rule targets.
    pub targets: Option<TargetMatcher>,
    /// With a catalog: the tools the agent may see, in declaration order.
    pub visible: Vec<u32>,
    /// With a catalog: per tool, the local IDs of the rules that target it, ascending.
    pub candidates: crate::compile::csr::Csr,
    /// With a catalog: per tool, the deny rules among `candidates` (derived, not stored), so
    /// that looking for a firing deny reads only deny rules.
    #[serde(skip)]
    pub deny_candidates: crate::compile::csr::Csr,
    pub default_message: String,
}

impl AgentRt {
    /// Computes the tables derived from the stored ones (after building, and after loading
    /// a bundle once the stored tables are validated).
    pub(crate) fn derive(&mut self, group: &Group, n_tools: usize) {
        let is_deny = |&local: &u32| group.effects.get(local as usize) == Some(&Effect::Deny);
        self.deny_candidates = crate::compile::csr::Csr::from_rows((0..n_tools).map(|t| {
            let row = self.candidates.row(t).iter().copied();
            row.filter(is_deny).collect::<Vec<u32>>()
        }));
    }
}

/// One catalog tool.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ToolRt {
    pub server: Option<u32>,
    pub name: String,
    pub display: String,
    pub needs: Vec<u32>,
    pub required: Vec<String>,
}

/// The catalog with the per-(agent, tool) tables.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Catalog {
    pub tools: Vec<ToolRt>,
    #[serde(skip)]
    pub by_name: FxHashMap<String, Vec<u32>>,
    pub servers: Vec<String>,
    /// `agent * n_tools + tool` -> the first permission not granted.
    pub gate: Vec<Option<u32>>,
    pub n_tools: usize,
}

/// One compiled rule.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RuleRt {
    pub info: RuleRef,
    pub message: String,
}

/// A tool an agent may see.
///
/// # Example
///
/// ```
/// let engine = toolgate::load::engine_from_str("p.policy", "server git { tool log }\ntool t\nagent a { allow git.log }").unwrap();
/// let tools = engine.visible_tools("a").unwrap();
/// assert_eq!((tools[0].server.as_deref(), tools[0].tool.as_str()), (Some("git"), "log"));
/// assert_eq!((tools.len(), tools[0].to_string()), (1, "git.log".to_string()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VisibleTool {
    /// The server, or `None` for a host tool.
    pub server: Option<String>,
    /// The tool's name.
    pub tool: String,
}

impl std::fmt::Display for VisibleTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.server {
            Some(s) => write!(f, "{s}.{}", self.tool),
            None => f.write_str(&self.tool),
        }
    }
}

/// A compiled policy. Immutable, `Send + Sync`, cheap to share behind an `Arc`.
///
/// Build one from source with [`crate::load::engine_from_str`] or
/// [`crate::load::engine_from_sources`], or load a compiled bundle with
/// [`Engine::from_bundle`]; ask it with [`Engine::decide`].
///
/// # Example
///
/// ```
/// use toolgate::{Engine, Request};
/// let engine = toolgate::load::engine_from_str("p.policy", include_str!("../../policies/example.policy")).unwrap();
/// let shared = std::sync::Arc::new(engine);
/// let from_bundle = Engine::from_bundle(&shared.to_bundle()).unwrap();
/// let req = Request::new("reviewer", "read_file").args(serde_json::json!({"path": "/srv/a"}));
/// assert_eq!(shared.decide(&req), from_bundle.decide(&req));
/// ```
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Engine {
    pub(crate) agents: Vec<AgentRt>,
    #[serde(skip)]
    pub(crate) agent_index: FxHashMap<String, u32>,
    pub(crate) catalog: Option<Catalog>,
    pub(crate) rules: Vec<RuleRt>,
    pub(crate) groups: Vec<Group>,
    pub(crate) perms: PermTable,
    pub(crate) automata: Automata,
    pub(crate) needles: Vec<NeedleMatcher>,
    /// The policy's test blocks, so a bundle can still be tested.
    pub(crate) tests: Vec<crate::testing::TestCase>,
    /// SHA-256 of the bundle payload, in hex.
    #[serde(skip)]
    pub(crate) policy_hash: String,
}

/// The resolved tool of a request.
struct Resolved<'a> {
    display: Cow<'a, str>,
    needs_missing: Option<Cow<'a, str>>,
    needs: Vec<String>,
    required: &'a [String],
    group: &'a Group,
    candidates: evaluate::Candidates<'a>,
}

const NO_REQUIRED: &[String] = &[];

impl Engine {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        agents: Vec<AgentRt>,
        agent_index: FxHashMap<String, u32>,
        catalog: Option<Catalog>,
        rules: Vec<RuleRt>,
        groups: Vec<Group>,
        perms: PermTable,
        automata: Automata,
        needles: Vec<NeedleMatcher>,
        tests: Vec<crate::testing::TestCase>,
    ) -> Engine {
        let mut engine = Engine {
            agents,
            agent_index,
            catalog,
            rules,
            groups,
            perms,
            automata,
            needles,
            tests,
            policy_hash: String::new(),
        };
        let payload = crate::bundle::payload(&engine);
        // Loading the payload back packs the tables together, as a host loading the bundle
        // gets them: compiling leaves them scattered among the memory it freed, and at 10,000
        // rules that made decisions on requests touching many rules up to three times slower.
        let mut engine = crate::bundle::decode_payload(&payload).unwrap_or_else(|_| {
            engine.derive_agents();
            engine
        });
        engine.policy_hash = crate::bundle::payload_hash(&payload);
        engine
    }

    /// Derives every agent's run-time tables from its rule group.
    pub(crate) fn derive_agents(&mut self) {
        let n_tools = self.catalog.as_ref().map_or(0, |c| c.n_tools);
        for a in &mut self.agents {
            if let Some(group) = self.groups.get(a.group as usize) {
                a.derive(group, n_tools);
            }
        }
    }

    /// Loads a compiled bundle (written by [`Engine::to_bundle`] or `toolgate compile`).
    ///
    /// The envelope's magic bytes, format version, length and SHA-256 are checked before
    /// anything is decoded, then every table and index is validated. No input makes this
    /// panic, and an engine is returned only when all of it loaded.
    ///
    /// # Errors
    ///
    /// A [`crate::bundle::BundleError`] naming what is wrong (foreign file, other format
    /// version, truncation, corruption, inconsistency).
    ///
    /// ```
    /// let engine = toolgate::load::engine_from_str("p.policy", "tool t\nagent a { allow t }").unwrap();
    /// let bytes = engine.to_bundle();
    /// let loaded = toolgate::Engine::from_bundle(&bytes).unwrap();
    /// assert_eq!(loaded.policy_hash(), engine.policy_hash());
    /// assert!(toolgate::Engine::from_bundle(&bytes[..bytes.len() - 1]).is_err());
    /// ```
    pub fn from_bundle(bytes: &[u8]) -> Result<Engine, crate::bundle::BundleError> {
        crate::bundle::decode(bytes)
    }

    /// Writes the compiled policy as a bundle.
    ///
    /// ```
    /// let engine = toolgate::load::engine_from_str("p.policy", "agent a {}").unwrap();
    /// assert!(engine.to_bundle().starts_with(b"TOOLGATE"));
    /// ```
    pub fn to_bundle(&self) -> Vec<u8> {
        crate::bundle::encode(self)
    }

    /// The expectations of the policy's `test` blocks (carried by bundles too).
    ///
    /// ```
    /// let engine = toolgate::load::engine_from_str("p.policy", include_str!("../../policies/example.policy")).unwrap();
    /// assert_eq!(engine.test_cases().len(), 11);
    /// ```
    pub fn test_cases(&self) -> &[crate::testing::TestCase] {
        &self.tests
    }

    /// The SHA-256 of the compiled policy (the bundle payload), in hex: the same for a policy
    /// compiled from source and for its bundle. Every decision carries it as `policy_hash`.
    ///
    /// ```
    /// let engine = toolgate::load::engine_from_str("p.policy", "agent a {}").unwrap();
    /// assert_eq!(engine.policy_hash().len(), 64);
    /// ```
    pub fn policy_hash(&self) -> &str {
        &self.policy_hash
    }

    /// Decides a request. Never panics: an internal failure is a deny with `internal_error`.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolgate::Request;
    /// let engine = toolgate::load::engine_from_str("p.policy", include_str!("../../policies/example.policy")).unwrap();
    /// let d = engine.decide(&Request::new("code-assistant", "git_push").server("git").args(json!({"repo_path": "/x"})));
    /// assert_eq!(d.reason.as_str(), "permission_missing");
    /// assert_eq!(d.permission.as_deref(), Some("net:http"));
    /// ```
    pub fn decide(&self, req: &Request) -> Decision<'_> {
        self.decide_guarded(req, false)
    }

    /// Decides a request and records how (`eval --explain`).
    ///
    /// ```
    /// use serde_json::json;
    /// let engine = toolgate::load::engine_from_str("p.policy", include_str!("../../policies/example.policy")).unwrap();
    /// let d = engine.decide_explained(&toolgate::Request::new("code-assistant", "Bash").args(json!({"command": "sudo ls"})));
    /// let trace = d.explanation.unwrap();
    /// assert_eq!(trace.rules.len(), 2);
    /// assert_eq!(trace.rules[1].outcome, "fired");
    /// ```
    pub fn decide_explained(&self, req: &Request) -> Decision<'_> {
        self.decide_guarded(req, true)
    }

    /// Decides one JSON request line; a malformed one is answered `bad_request`.
    ///
    /// ```
    /// let engine = toolgate::load::engine_from_str("p.policy", "tool t\nagent a { allow t }").unwrap();
    /// assert!(engine.decide_json(r#"{"agent": "a", "tool": "t"}"#, false).is_allowed());
    /// assert_eq!(engine.decide_json("not json", false).reason.as_str(), "bad_request");
    /// ```
    pub fn decide_json(&self, line: &str, explain: bool) -> Decision<'_> {
        match Request::from_json(line) {
            Ok(req) => self.decide_guarded(&req, explain),
            Err(bad) => self.bad_request(format!("bad request: {}", bad.message), bad.tool_use_id),
        }
    }

    fn decide_guarded(&self, req: &Request, explain: bool) -> Decision<'_> {
        let mut explanation = explain.then(Explanation::default);
        let verdict = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.verdict(req, &mut explanation)
        }))
        .unwrap_or_else(|_| {
            Verdict::new(
                Reason::InternalError,
                "the policy engine failed while deciding this call; it is denied",
            )
        });
        Decision {
            decision: verdict.reason.effect(),
            reason: verdict.reason,
            permission: verdict.permission,
            argument: verdict.argument,
            message: verdict.message,
            rule: verdict.rule.map(Cow::Borrowed),
            tool_use_id: req.tool_use_id.clone(),
            policy_hash: Cow::Borrowed(&self.policy_hash),
            explanation: explanation.map(Box::new),
        }
    }

    /// A `bad_request` denial for input that is not a request at all (for example a line
    /// that is not UTF-8), stamped with this engine's policy hash.
    ///
    /// ```
    /// let engine = toolgate::load::engine_from_str("p.policy", "agent a {}").unwrap();
    /// let d = engine.bad_request("bad request: not UTF-8", None);
    /// assert_eq!((d.reason.as_str(), &*d.policy_hash), ("bad_request", engine.policy_hash()));
    /// ```
    pub fn bad_request<'e>(
        &'e self,
        message: impl Into<Cow<'e, str>>,
        tool_use_id: Option<String>,
    ) -> Decision<'e> {
        Decision {
            policy_hash: Cow::Borrowed(&self.policy_hash),
            ..Decision::deny(Reason::BadRequest, message, tool_use_id)
        }
    }

    /// The names of the agents, in declaration order.
    ///
    /// ```
    /// let engine = toolgate::load::engine_from_str("p.policy", "agent a {}\nagent b {}").unwrap();
    /// assert_eq!(engine.agent_names().collect::<Vec<_>>(), ["a", "b"]);
    /// ```
    pub fn agent_names(&self) -> impl Iterator<Item = &str> {
        self.agents.iter().map(|a| a.name.as_str())
    }

    /// True when the policy has a tool catalog.
    ///
    /// ```
    /// assert!(toolgate::load::engine_from_str("p.policy", "tool t").unwrap().has_catalog());
    /// assert!(!toolgate::load::engine_from_str("p.policy", "agent a {}").unwrap().has_catalog());
    /// ```
    pub fn has_catalog(&self) -> bool {
        self.catalog.is_some()
    }

    /// The tools an agent may see (LANGUAGE.md section 8), in declaration order; `None` for
    /// an unknown agent. Without a catalog the list is empty.
    ///
    /// ```
    /// let engine = toolgate::load::engine_from_str("p.policy", include_str!("../../policies/example.policy")).unwrap();
    /// let tools: Vec<String> = engine.visible_tools("reviewer").unwrap().iter().map(|t| t.to_string()).collect();
    /// assert_eq!(tools, ["git.git_log", "read_file"]);
    /// assert!(engine.visible_tools("nobody").is_none());
    /// ```
    pub fn visible_tools(&self, agent: &str) -> Option<Vec<VisibleTool>> {
        let a = &self.agents[*self.agent_index.get(agent)? as usize];
        let Some(cat) = &self.catalog else {
            return Some(Vec::new());
        };
        Some(
            a.visible
                .iter()
                .map(|&t| {
                    let tool = &cat.tools[t as usize];
                    VisibleTool {
                        server: tool.server.map(|s| cat.servers[s as usize].clone()),
                        tool: tool.name.clone(),
                    }
                })
                .collect(),
        )
    }

    /// Decides; when `explanation` is given, records how in it.
    fn verdict(&self, req: &Request, explanation: &mut Option<Explanation>) -> Verdict<'_> {
        let explain = explanation.is_some();

        // 1. agent
        let Some(&agent_id) = self.agent_index.get(&req.agent) else {
            let hint = crate::resolve::suggest::did_you_mean(&req.agent, self.agent_names())
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            return Verdict::new(
                Reason::UnknownAgent,
                format!("unknown agent `{}`{hint}", req.agent),
            );
        };
        let agent = &self.agents[agent_id as usize];
        if let Some(e) = explanation.as_mut() {
            e.agent = Some(agent.name.clone());
        }

        // 2. tool lookup (and, without a catalog, the request's declared permissions)
        let resolved = match self.resolve_tool(agent_id, agent, req, explain) {
            Ok(r) => r,
            Err(v) => return v,
        };
        if let Some(e) = explanation.as_mut() {
            e.tool = Some(resolved.display.to_string());
            e.needs = resolved.needs.clone();
        }

        // 3. permission gate
        if let Some(p) = resolved.needs_missing {
            let message = format!(
                "{} requires the \"{p}\" permission, which was not granted.\nRetrying with different arguments will not help",
                resolved.display
            );
            return Verdict {
                permission: Some(p),
                ..Verdict::new(Reason::PermissionMissing, message)
            };
        }

        // 4. required arguments
        if let Some(arg) = resolved
            .required
            .iter()
            .find(|a| args::get(&req.args, a).is_none())
        {
            return Verdict {
                argument: Some(Cow::Borrowed(arg.as_str())),
                ..Verdict::new(
                    Reason::MissingArgument,
                    format!(
                        "{} requires the argument `{arg}`, which the call does not include",
                        resolved.display
                    ),
                )
            };
        }

        // 5. rules
        let group = resolved.group;
        let mut trace = evaluate::Trace::new();
        let Some(fired) = group.evaluate(
            &req.args,
            &resolved.candidates,
            &self.automata,
            &self.needles,
            explain.then_some(&mut trace),
        ) else {
            return Verdict::new(
                Reason::InternalError,
                "a matcher of the policy failed while deciding this call; it is denied",
            );
        };
        if let Some(e) = explanation.as_mut() {
            e.default = Some(agent.default.as_str().to_string());
            for &(local, failed) in &trace {
                let Some(&rule_id) = group.rules.get(local as usize) else {
                    continue;
                };
                e.rules.push(RuleTrace {
                    rule: self.rules[rule_id as usize].info.clone(),
                    outcome: if failed.is_some() {
                        "not_fired"
                    } else {
                        "fired"
                    },
                    failed_condition: failed.map(|k| {
                        let at = group.rule_conds.row_start(local as usize) + k;
                        group.rule_cond_text.get(at).to_string()
                    }),
                });
            }
        }
        let (local, reason) = match fired {
            evaluate::Fired::Deny(local) => (local, Reason::DeniedByRule),
            evaluate::Fired::Allow(local) => (local, Reason::AllowedByRule),
            evaluate::Fired::Nothing if agent.default == Effect::Allow => {
                return Verdict::new(Reason::DefaultAllow, agent.default_message.as_str())
            }
            evaluate::Fired::Nothing => {
                return Verdict::new(
                    Reason::NoMatchingRule,
                    format!(
                        "no rule of agent `{}` allows {}",
                        agent.name, resolved.display
                    ),
                )
            }
        };
        let rule = &self.rules[group.rules[local as usize] as usize];
        Verdict {
            rule: Some(&rule.info),
            ..Verdict::new(reason, rule.message.as_str())
        }
    }

    fn resolve_tool<'a>(
        &'a self,
        agent_id: u32,
        agent: &'a AgentRt,
        req: &Request,
        explain: bool,
    ) -> Result<Resolved<'a>, Verdict<'a>> {
        match &self.catalog {
            Some(cat) => {
                let ids: &[u32] = cat.by_name.get(&req.tool).map(Vec::as_slice).unwrap_or(&[]);
                let chosen = match &req.server {
                    Some(server) => ids.iter().copied().find(|&t| {
                        cat.tools[t as usize]
                            .server
                            .is_some_and(|s| &cat.servers[s as usize] == server)
                    }),
                    None if ids.len() == 1 => Some(ids[0]),
                    None if ids.len() > 1 => {
                        let places: Vec<String> = ids
                            .iter()
                            .map(|&t| match cat.tools[t as usize].server {
                                Some(s) => format!("server `{}`", cat.servers[s as usize]),
                                None => "a host tool".to_string(),
                            })
                            .collect();
                        return Err(Verdict::new(
                            Reason::AmbiguousTool,
                            format!(
                                "tool `{}` is declared as {}; name the server in the request",
                                req.tool,
                                places.join(", ")
                            ),
                        ));
                    }
                    None => None,
                };
                let Some(t) = chosen else {
                    let shown = match &req.server {
                        Some(s) => format!("{s}.{}", req.tool),
                        None => req.tool.clone(),
                    };
                    let hint = crate::resolve::suggest::did_you_mean(
                        &req.tool,
                        cat.by_name.keys().map(String::as_str),
                    )
                    .map(|s| format!(" (did you mean `{s}`?)"))
                    .unwrap_or_default();
                    return Err(Verdict::new(
                        Reason::UnknownTool,
                        format!("unknown tool `{shown}`{hint}"),
                    ));
                };
                let tool = &cat.tools[t as usize];
                let slot = agent_id as usize * cat.n_tools + t as usize;
                Ok(Resolved {
                    display: Cow::Borrowed(tool.display.as_str()),
                    needs_missing: cat.gate[slot].map(|p| Cow::Borrowed(self.perms.name(p))),
                    needs: if explain {
                        tool.needs
                            .iter()
                            .map(|&p| self.perms.name(p).to_string())
                            .collect()
                    } else {
                        Vec::new()
                    },
                    required: &tool.required,
                    group: &self.groups[agent.group as usize],
                    candidates: evaluate::Candidates::List {
                        all: agent.candidates.row(t as usize),
                        deny: agent.deny_candidates.row(t as usize),
                    },
                })
            }
            None => {
                let display = match &req.server {
                    Some(s) => format!("{s}.{}", req.tool),
                    None => req.tool.clone(),
                };
                let mut needs_missing = None;
                let mut needs = Vec::new();
                for text in req.permissions.iter().flatten() {
                    let p = parse_permission(text).map_err(|e| {
                        Verdict::new(
                            Reason::BadRequest,
                            format!("bad request: permission {}", e.message(text)),
                        )
                    })?;
                    if needs_missing.is_none() && !agent.grants.contains_permission(&self.perms, &p)
                    {
                        needs_missing = Some(Cow::Owned(text.clone()));
                    }
                    needs.push(text.clone());
                }
                let candidates = match &agent.targets {
                    Some(t) => match t.candidates(req.server.as_deref(), &req.tool, &self.automata)
                    {
                        Some(c) => evaluate::Candidates::Bits(c),
                        None => return Err(Verdict::new(
                            Reason::InternalError,
                            "a matcher of the policy failed while deciding this call; it is denied",
                        )),
                    },
                    None => evaluate::Candidates::Bits(BitSet::new(0)),
                };
                Ok(Resolved {
                    display: Cow::Owned(display),
                    needs_missing,
                    needs,
                    required: NO_REQUIRED,
                    group: &self.groups[agent.group as usize],
                    candidates,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Engine;

    #[test]
    fn engine_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Engine>();
    }
}
