//! The semantic difference between two policies: the agents and tools whose decisions differ,
//! each with a witness request decided differently by the two engines.
//!
//! For one agent and one tool, a decision depends on the agent's grants and the tool's needs,
//! the catalog (the tool's existence, server, required arguments and declared argument
//! types) and the conditions of
//! the rules that target the tool, in both policies. When all of these are the same in both
//! (up to order, layout and file names), the pair is equivalent without further work.
//! Otherwise each argument path named by a condition or required (or typed) by a catalog is
//! split into regions of values that every condition and every declared type of both
//! policies judges alike; one
//! witness per region, crossed over the paths, gives a finite set of requests that covers
//! every way the two policies can judge the pair. Each is decided by both engines; the ones
//! decided differently are the differences, and only those are reported.
//!
//! The search is bounded ([`Budget`]): a pair whose automata or candidate requests exceed the
//! budget is reported undecided rather than equivalent, as is a pair whose values were only
//! sampled (`matches shell` conditions, path patterns mixed with other string patterns on one
//! argument, tool names of a policy without a catalog).
//!
//! # Example
//!
//! ```
//! use toolgate::review::diff::{diff, Budget, Change, Side};
//! let load = |text: &str| {
//!     let mut m = toolgate::source::SourceMap::new();
//!     m.add("p.policy", text);
//!     let (engine, policy, _) = toolgate::load::engine_from_sources(m).unwrap();
//!     (engine, policy)
//! };
//! let (old_engine, old) = load("tool read(path)\nagent a { allow read where path matches \"/srv/**\" }");
//! let (new_engine, new) = load("tool read(path)\nagent a { allow read where path matches \"/**\" }");
//! let report = diff(
//!     Side { policy: &old, engine: &old_engine },
//!     Side { policy: &new, engine: &new_engine },
//!     &Budget::default(),
//! );
//! assert_eq!(report.pairs.len(), 1);
//! assert_eq!(report.pairs[0].change, Change::Widened);
//! let w = &report.pairs[0].witnesses[0];
//! assert_eq!((w.old.decision.as_str(), w.new.decision.as_str()), ("deny", "allow"));
//! ```

mod atoms;
mod pairs;
mod regions;
mod typed;

pub use pairs::Address;

use crate::engine::{Engine, Request, RuleRef};
use crate::lint::lang::Langs;
use crate::resolve::{ArgType, Policy};
use crate::syntax::ast::Effect;
use crate::Reason;
use atoms::Atom;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One policy to compare: its resolved form (to find what to ask) and its engine (to decide).
#[derive(Clone, Copy)]
pub struct Side<'a> {
    /// The resolved policy.
    pub policy: &'a Policy,
    /// Its compiled engine.
    pub engine: &'a Engine,
}

/// How much work one (agent, tool) pair may take before it is reported undecided.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Product-automaton states (and array regions) explored per argument path.
    pub states: usize,
    /// Candidate requests decided per pair.
    pub candidates: usize,
}

impl Default for Budget {
    /// 20,000 states per argument path, 5,000 candidate requests per pair.
    fn default() -> Budget {
        Budget {
            states: 20_000,
            candidates: 5_000,
        }
    }
}

/// How a pair's decisions changed from the old policy to the new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// The new policy allows some request the old one denies.
    Widened,
    /// The new policy denies some request the old one allows.
    Narrowed,
    /// Both.
    Both,
    /// No difference was found, but not every request was covered.
    Undecided,
}

impl Change {
    /// `widened`, `narrowed`, `both` or `undecided`.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Widened => "widened",
            Change::Narrowed => "narrowed",
            Change::Both => "both",
            Change::Undecided => "undecided",
        }
    }
}

/// The direction of one witness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Denied by the old policy, allowed by the new one.
    Widened,
    /// Allowed by the old policy, denied by the new one.
    Narrowed,
}

/// What one engine decided for a witness.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideDecision {
    /// `allow` or `deny`.
    pub decision: Effect,
    /// The decision's reason.
    pub reason: String,
    /// The deciding rule, when a rule decided.
    pub rule: Option<RuleRef>,
    /// The decision's message.
    pub message: String,
}

/// A request the two policies decide differently.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Witness {
    /// Which way it differs.
    pub direction: Direction,
    /// The request, as `toolgate eval` reads it.
    pub request: Value,
    /// The old policy's decision.
    pub old: SideDecision,
    /// The new policy's decision.
    pub new: SideDecision,
}

impl Witness {
    /// `widened` or `narrowed`.
    pub fn direction_str(&self) -> &'static str {
        match self.direction {
            Direction::Widened => "widened",
            Direction::Narrowed => "narrowed",
        }
    }
}

/// One (agent, tool) pair whose decisions differ or could not be compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairDiff {
    /// The agent.
    pub agent: String,
    /// The request's `server`, if it names one.
    pub server: Option<String>,
    /// The request's `tool`.
    pub tool: String,
    /// How the decisions changed.
    pub change: Change,
    /// At most one witness per direction, the shortest found; each was decided by both
    /// engines.
    pub witnesses: Vec<Witness>,
    /// Why the comparison of this pair is not complete (`None` when every region
    /// combination was decided).
    pub undecided: Option<String>,
}

impl PairDiff {
    /// True when the new policy allows, or may allow, a request the old one denies: a
    /// widening witness, or an undecided comparison (counted as a possible widening).
    pub fn may_widen(&self) -> bool {
        self.undecided.is_some() || self.change == Change::Widened || self.change == Change::Both
    }

    /// The tool as addressed: `server.tool`, or the bare name.
    pub fn tool_display(&self) -> String {
        Address {
            server: self.server.clone(),
            tool: self.tool.clone(),
        }
        .display()
    }
}

/// The differences between two policies.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The pairs that differ or could not be decided, by agent then tool (`differences` in
    /// JSON).
    #[serde(rename = "differences")]
    pub pairs: Vec<PairDiff>,
    /// How many (agent, tool) pairs were compared.
    pub compared: usize,
}

impl Report {
    /// True when no pair differs and every pair was decided.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// True when some pair may widen (see [`PairDiff::may_widen`]).
    pub fn may_widen(&self) -> bool {
        self.pairs.iter().any(PairDiff::may_widen)
    }
}

/// Compares two policies on every agent of either and every tool either can address.
pub fn diff(old: Side<'_>, new: Side<'_>, budget: &Budget) -> Report {
    let policies = [old.policy, new.policy];
    let mut agents: Vec<&str> = policies
        .iter()
        .flat_map(|p| p.agents.iter().map(|a| a.name.as_str()))
        .collect();
    agents.sort();
    agents.dedup();
    let mut langs = Langs::default();
    let addresses = match pairs::addresses(policies, &mut langs, budget.states) {
        Ok(a) => a,
        Err(why) => {
            // Every agent whose rules, grants or catalog differ is undecided.
            return Report {
                pairs: agents
                    .iter()
                    .filter(|a| {
                        pairs::agent_fingerprint(old.policy, a)
                            != pairs::agent_fingerprint(new.policy, a)
                    })
                    .map(|a| PairDiff {
                        agent: a.to_string(),
                        server: None,
                        tool: "*".into(),
                        change: Change::Undecided,
                        witnesses: Vec::new(),
                        undecided: Some(format!("undecided: {why}")),
                    })
                    .collect(),
                compared: 0,
            };
        }
    };
    let mut out = Vec::new();
    let mut compared = 0;
    for agent in agents {
        let perms = pairs::permission_candidates(policies, agent);
        for addr in &addresses {
            compared += 1;
            let same = pairs::fingerprint(old.policy, agent, addr)
                == pairs::fingerprint(new.policy, agent, addr);
            if same {
                continue;
            }
            let pair = Pair {
                agent,
                addr,
                perms: &perms,
            };
            if let Some(d) = pair.compare(old, new, budget, &mut langs) {
                out.push(d);
            }
        }
    }
    Report {
        pairs: out,
        compared,
    }
}

/// One (agent, tool) pair being compared.
struct Pair<'a> {
    agent: &'a str,
    addr: &'a Address,
    perms: &'a [Option<Vec<String>>],
}

/// Sets the value at a dotted path, creating objects on the way; `false` when a value that
/// is not an object is in the way.
fn set_path(args: &mut Map<String, Value>, path: &[String], value: Value) -> bool {
    let Some((last, init)) = path.split_last() else {
        return false;
    };
    let mut at = args;
    for key in init {
        let next = at
            .entry(key.clone())
            .or_insert_with(|| Value::Object(Map::new()));
        match next {
            Value::Object(m) => at = m,
            _ => return false,
        }
    }
    if at.contains_key(last) {
        return false;
    }
    at.insert(last.clone(), value);
    true
}

fn summary(d: &crate::Decision<'_>) -> SideDecision {
    SideDecision {
        decision: d.decision,
        reason: d.reason.as_str().to_string(),
        rule: d.rule.as_ref().map(|r| r.as_ref().clone()),
        message: d.message.to_string(),
    }
}

impl Pair<'_> {
    fn undecided(&self, why: String) -> PairDiff {
        PairDiff {
            agent: self.agent.to_string(),
            server: self.addr.server.clone(),
            tool: self.addr.tool.clone(),
            change: Change::Undecided,
            witnesses: Vec::new(),
            undecided: Some(why),
        }
    }

    /// The argument paths of the pair, each with its atoms from both policies.
    fn atoms(
        &self,
        old: Side<'_>,
        new: Side<'_>,
        langs: &mut Langs,
    ) -> Option<BTreeMap<Vec<String>, Vec<Atom>>> {
        let mut paths: BTreeMap<Vec<String>, Vec<Atom>> = BTreeMap::new();
        for side in [old, new] {
            for rule in pairs::relevant_rules(side.policy, self.agent, self.addr) {
                for c in &rule.conditions {
                    let atom = Atom::new(&c.test, rule.effect, langs)?;
                    let list = paths.entry(c.path.clone()).or_default();
                    if !list.iter().any(|a| a.key == atom.key) {
                        list.push(atom);
                    }
                }
            }
            for arg in pairs::required_args(side.policy, self.addr) {
                paths.entry(vec![arg]).or_default();
            }
            for (arg, _) in pairs::typed_args(side.policy, self.addr) {
                paths.entry(vec![arg]).or_default();
            }
        }
        Some(paths)
    }

    /// The types other than `any` either policy declares for an argument path (none unless
    /// the path is a declared argument).
    fn types(&self, old: Side<'_>, new: Side<'_>, path: &[String]) -> Vec<ArgType> {
        let mut out: Vec<ArgType> = Vec::new();
        let [name] = path else {
            return out;
        };
        for side in [old, new] {
            for (arg, ty) in pairs::typed_args(side.policy, self.addr) {
                if arg == *name && !out.contains(&ty) {
                    out.push(ty);
                }
            }
        }
        out
    }

    /// Compares the pair; `None` when equivalent.
    fn compare(
        &self,
        old: Side<'_>,
        new: Side<'_>,
        budget: &Budget,
        langs: &mut Langs,
    ) -> Option<PairDiff> {
        // Permission candidates for which both policies refuse every call before reading an
        // argument decide alike whatever the arguments; only the others are searched. When
        // none is left, no call can pass the permission gate (or the agent and tool lookup)
        // in either policy, and the pair is equivalent, however hard its conditions are.
        let open: Vec<&Option<Vec<String>>> = self
            .perms
            .iter()
            .filter(|perms| !self.closed_before_arguments(old, new, perms))
            .collect();
        if open.is_empty() {
            return None;
        }
        let Some(paths) = self.atoms(old, new, langs) else {
            return Some(
                self.undecided("undecided: a condition's automaton is too large to explore".into()),
            );
        };
        let mut sampled: Vec<&str> = Vec::new();
        let keys: Vec<&Vec<String>> = paths.keys().collect();
        let mut regions = Vec::new();
        for (path, atoms) in &paths {
            let is_prefix = keys.iter().any(|k| *k != path && k.starts_with(path));
            let types = self.types(old, new, path);
            if is_prefix && atoms.is_empty() {
                match prefix_regions(&types, budget) {
                    Ok(values) => regions.push(values),
                    Err(why) => return Some(self.undecided(format!("undecided: {why}"))),
                }
                continue;
            }
            if is_prefix {
                sampled.push("a condition on an argument path that is a prefix of another");
            }
            match regions::regions(atoms, &types, langs, budget.states) {
                Ok(r) => {
                    sampled.extend(r.sampled);
                    regions.push(r.values);
                }
                Err(why) => return Some(self.undecided(format!("undecided: {why}"))),
            }
        }
        let total = regions
            .iter()
            .fold(open.len(), |n, r| n.saturating_mul(r.len()));
        let mut widened: Option<Witness> = None;
        let mut narrowed: Option<Witness> = None;
        let mut idx = vec![0usize; regions.len()];
        let mut decided = 0usize;
        'all: loop {
            for &perms in &open {
                if decided >= budget.candidates {
                    break 'all;
                }
                decided += 1;
                let mut args = Map::new();
                for ((path, values), &i) in paths.keys().zip(&regions).zip(&idx) {
                    if let Some(Some(v)) = values.get(i) {
                        set_path(&mut args, path, v.clone());
                    }
                }
                self.try_candidate(old, new, args, perms, &mut widened, &mut narrowed);
            }
            // Next combination of regions (an odometer over the paths).
            let mut k = 0;
            loop {
                let (Some(at), Some(of)) = (idx.get_mut(k), regions.get(k)) else {
                    break 'all;
                };
                *at += 1;
                if *at < of.len() {
                    break;
                }
                *at = 0;
                k += 1;
            }
        }
        let mut undecided = None;
        if decided < total {
            undecided = Some(format!(
                "undecided: gave up after {decided} of {total} candidate requests"
            ));
        } else if !sampled.is_empty() {
            sampled.sort();
            sampled.dedup();
            undecided = Some(format!(
                "undecided: only sampled, not decided exhaustively ({})",
                sampled.join("; ")
            ));
        }
        let change = match (&widened, &narrowed) {
            (Some(_), Some(_)) => Change::Both,
            (Some(_), None) => Change::Widened,
            (None, Some(_)) => Change::Narrowed,
            (None, None) if undecided.is_some() => Change::Undecided,
            (None, None) => return None,
        };
        Some(PairDiff {
            agent: self.agent.to_string(),
            server: self.addr.server.clone(),
            tool: self.addr.tool.clone(),
            change,
            witnesses: widened.into_iter().chain(narrowed).collect(),
            undecided,
        })
    }

    /// True when both policies deny every call with these declared permissions before any
    /// argument is read: an unknown agent or tool, an ambiguous tool name, or a permission
    /// not granted (docs/language.md section 7, steps 1 to 3).
    fn closed_before_arguments(
        &self,
        old: Side<'_>,
        new: Side<'_>,
        perms: &Option<Vec<String>>,
    ) -> bool {
        let req = Request {
            agent: self.agent.to_string(),
            server: self.addr.server.clone(),
            tool: self.addr.tool.clone(),
            args: Map::new(),
            tool_use_id: None,
            permissions: perms.clone(),
        };
        [old, new].iter().all(|side| {
            matches!(
                side.engine.decide(&req).reason,
                Reason::UnknownAgent
                    | Reason::UnknownTool
                    | Reason::AmbiguousTool
                    | Reason::PermissionMissing
            )
        })
    }

    /// Decides one candidate with both engines and keeps it if it is the shortest witness of
    /// its direction so far.
    fn try_candidate(
        &self,
        old: Side<'_>,
        new: Side<'_>,
        args: Map<String, Value>,
        perms: &Option<Vec<String>>,
        widened: &mut Option<Witness>,
        narrowed: &mut Option<Witness>,
    ) {
        let req = Request {
            agent: self.agent.to_string(),
            server: self.addr.server.clone(),
            tool: self.addr.tool.clone(),
            args,
            tool_use_id: None,
            permissions: perms.clone(),
        };
        let (a, b) = (old.engine.decide(&req), new.engine.decide(&req));
        if a.decision == b.decision {
            return;
        }
        let slot = if b.is_allowed() { widened } else { narrowed };
        let request = request_json(&req);
        let len = request.to_string().len();
        if slot
            .as_ref()
            .is_some_and(|w| w.request.to_string().len() <= len)
        {
            return;
        }
        *slot = Some(Witness {
            direction: if b.is_allowed() {
                Direction::Widened
            } else {
                Direction::Narrowed
            },
            request,
            old: summary(&a),
            new: summary(&b),
        });
    }
}

/// A request as the JSON `toolgate eval` reads.
fn request_json(req: &Request) -> Value {
    let mut m = Map::new();
    m.insert("agent".into(), Value::String(req.agent.clone()));
    if let Some(s) = &req.server {
        m.insert("server".into(), Value::String(s.clone()));
    }
    m.insert("tool".into(), Value::String(req.tool.clone()));
    m.insert("args".into(), Value::Object(req.args.clone()));
    if let Some(p) = &req.permissions {
        m.insert(
            "permissions".into(),
            Value::Array(p.iter().cloned().map(Value::String).collect()),
        );
    }
    Value::Object(m)
}

/// The regions of an argument path that only leads to longer ones (a required argument with
/// no condition of its own): absent or present and, when typed, each kind of value; present
/// as an object first, so that the longer paths can be set inside it.
fn prefix_regions(
    types: &[ArgType],
    budget: &Budget,
) -> Result<Vec<Option<Value>>, regions::GaveUp> {
    if types.is_empty() {
        return Ok(vec![None, Some(Value::Object(Map::new()))]);
    }
    let leaves = vec![
        Value::Object(Map::new()),
        Value::String(String::new()),
        Value::from(0),
        Value::from(0.5),
        Value::Bool(true),
        Value::Null,
    ];
    let cap = budget.states.min(regions::MAX_ARRAY_REGIONS);
    typed::regions(&[], types, leaves, cap)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn load(text: &str) -> (Engine, Policy) {
        let mut m = crate::source::SourceMap::new();
        m.add("p.policy", text);
        let (engine, policy, _) = crate::load::engine_from_sources(m).unwrap();
        (engine, policy)
    }

    fn run(old: &str, new: &str, budget: Budget) -> Report {
        let (a, b) = (load(old), load(new));
        diff(
            Side {
                policy: &a.1,
                engine: &a.0,
            },
            Side {
                policy: &b.1,
                engine: &b.0,
            },
            &budget,
        )
    }

    fn one(old: &str, new: &str) -> PairDiff {
        let r = run(old, new, Budget::default());
        assert_eq!(r.pairs.len(), 1, "{:?}", r.pairs);
        r.pairs[0].clone()
    }

    #[test]
    fn equivalent_rules_written_differently_are_found_equivalent() {
        let r = run(
            "tool t(p?)\nagent a { default allow\n deny t where p in [\"a\", \"b\"] }",
            "tool t(p?)\nagent a {\n default allow\n deny t where p == \"b\"\n deny t where p == \"a\"\n}",
            Budget::default(),
        );
        assert!(r.is_empty(), "{:?}", r.pairs);
        // Not so for allows: an allow needs every element, and `["a", "b"]` satisfies the
        // list but neither single literal.
        let d = one(
            "tool t(p?)\nagent a { allow t where p in [\"a\", \"b\"] }",
            "tool t(p?)\nagent a {\n allow t where p == \"b\"\n allow t where p == \"a\"\n}",
        );
        assert_eq!(d.change, Change::Narrowed);
        assert_eq!(
            d.witnesses[0].request["args"]["p"].as_array().map(Vec::len),
            Some(2)
        );
        let r = run(
            "tool t(path)\nagent a { allow t where path matches \"/srv/**\" and path matches re\"^/\" }",
            "tool t(path)\nagent a { allow t where path matches \"/srv/**\" }",
            Budget::default(),
        );
        // Every value `/srv/**` admits is normalized from a string starting with `/`.
        assert!(r.is_empty(), "{:?}", r.pairs);
    }

    #[test]
    fn path_patterns_next_to_raw_string_patterns_are_decided() {
        // `re"\.env$"` judges the raw value, `/w/**` the normalized one: every combination is
        // reached by some string, so the comparison is complete.
        let d = one(
            "tool t(path)\nagent a { allow t where path matches \"/w/**\" }",
            "tool t(path)\nagent a { allow t where path matches \"/w/**\"\n deny t where path matches re\"\\.env$\" }",
        );
        assert_eq!((d.change, d.undecided.as_deref()), (Change::Narrowed, None));
        assert_eq!(d.witnesses[0].request["args"]["path"], "/w/.env");
        // A literal that is not in normal form: only `/w/../x` itself is both, which no
        // combination of witnesses is sure to reach.
        let r = run(
            "tool t(path)\nagent a { allow t where path matches \"/x\" }",
            "tool t(path)\nagent a { allow t where path matches \"/x\"\n deny t where path == \"/w/../x\" }",
            Budget::default(),
        );
        assert_eq!(r.pairs.len(), 1);
        assert_eq!(r.pairs[0].change, Change::Narrowed);
    }

    #[test]
    fn a_required_argument_and_a_path_inside_it_are_decided() {
        let d = one(
            "tool t(opts)\nagent a { allow t where opts.cwd matches \"/w/**\" }",
            "tool t(opts)\nagent a { allow t where opts.cwd matches \"/**\" }",
        );
        assert_eq!((d.change, d.undecided.as_deref()), (Change::Widened, None));
        assert_eq!(
            d.witnesses[0].request["args"],
            json!({"opts": {"cwd": "/"}})
        );
        let r = run(
            "tool t(opts)\nagent a { allow t where opts.cwd matches \"/w/**\" }",
            "tool t(opts)\nagent a {\n allow t where opts.cwd matches \"/w\"\n allow t where opts.cwd matches \"/w/**\" }",
            Budget::default(),
        );
        assert!(r.is_empty(), "{:?}", r.pairs);
    }

    #[test]
    fn a_number_boundary_is_a_witness() {
        let d = one(
            "tool t(n?)\nagent a { allow t where n <= 600 }",
            "tool t(n?)\nagent a { allow t where n < 600 }",
        );
        assert_eq!(d.change, Change::Narrowed);
        assert_eq!(d.witnesses[0].request["args"], json!({"n": 600}));
        assert_eq!(d.witnesses[0].old.reason, "allowed_by_rule");
        assert_eq!(d.witnesses[0].new.reason, "no_matching_rule");
    }

    #[test]
    fn a_path_witness_is_a_shortest_normal_path() {
        let d = one(
            "tool t(path)\nagent a { allow t where path matches \"/srv/*\" }",
            "tool t(path)\nagent a { allow t where path matches \"/srv/**\" }",
        );
        assert_eq!(d.change, Change::Widened);
        let path = d.witnesses[0].request["args"]["path"].as_str().unwrap();
        assert!(path == "/srv" || path.matches('/').count() == 3, "{path}");
    }

    #[test]
    fn arrays_reach_what_no_single_value_does() {
        // Each condition of a deny needs some element, not the same one.
        let d = one(
            "tool t(p?)\nagent a { default allow\n deny t where p == \"a\" and p == \"b\" }",
            "tool t(p?)\nagent a { default allow }",
        );
        assert_eq!(d.change, Change::Widened);
        let p = &d.witnesses[0].request["args"]["p"];
        assert!(p == &json!(["a", "b"]) || p == &json!(["b", "a"]), "{p}");
    }

    #[test]
    fn catalog_and_grants_changes_are_differences() {
        let d = one(
            "tool t needs fs:read\nagent a { grant fs:read\n allow t }",
            "tool t needs fs:write\nagent a { grant fs:read\n allow t }",
        );
        assert_eq!(d.change, Change::Narrowed);
        assert_eq!(d.witnesses[0].new.reason, "permission_missing");
        let r = run(
            "tool t\nagent a { allow * }",
            "tool t\ntool u(x)\nagent a { allow * }",
            Budget::default(),
        );
        assert_eq!(r.pairs.len(), 1);
        assert_eq!(
            (r.pairs[0].tool.as_str(), r.pairs[0].change),
            ("u", Change::Widened)
        );
        assert_eq!(r.pairs[0].witnesses[0].old.reason, "unknown_tool");
        // A missing required argument is denied before the rules: the witness has it.
        assert_eq!(r.pairs[0].witnesses[0].request["args"], json!({"x": ""}));
    }

    #[test]
    fn an_agent_only_in_one_policy_differs_where_it_may_act() {
        let r = run(
            "tool t\ntool u needs x:y\nagent a {}",
            "tool t\ntool u needs x:y\nagent a {}\nagent b { default allow }",
            Budget::default(),
        );
        assert_eq!(r.pairs.len(), 1, "{:?}", r.pairs);
        assert_eq!(
            (r.pairs[0].agent.as_str(), r.pairs[0].tool.as_str()),
            ("b", "t")
        );
        assert!(r.may_widen());
    }

    #[test]
    fn over_budget_is_undecided_not_equivalent() {
        let r = run(
            "tool t(p?, q?)\nagent a { allow t where p == \"x\" and q == \"y\" }",
            "tool t(p?, q?)\nagent a { allow t where p == \"x\" and q == \"z\" }",
            Budget {
                states: 20_000,
                candidates: 2,
            },
        );
        assert_eq!(r.pairs.len(), 1);
        let why = r.pairs[0].undecided.as_deref().unwrap();
        assert!(why.starts_with("undecided: gave up after 2 of "), "{why}");
        assert!(r.may_widen());
    }

    #[test]
    fn a_type_change_is_a_difference_with_a_separating_witness() {
        let d = one(
            "tool t(n?: number)\nagent a { allow t }",
            "tool t(n?: integer)\nagent a { allow t }",
        );
        assert_eq!((d.change, d.undecided.as_deref()), (Change::Narrowed, None));
        let w = &d.witnesses[0];
        assert_eq!(w.request["args"], json!({"n": 0.5}));
        assert_eq!(w.new.reason, "invalid_argument");
        // Within the range a rule allows, the fractional number is between the constants.
        let d = one(
            "tool t(n?: number)\nagent a { allow t where n > 3 and n < 4 }",
            "tool t(n?: integer)\nagent a { allow t where n > 3 and n < 4 }",
        );
        assert_eq!(d.change, Change::Narrowed);
        assert_eq!(d.witnesses[0].request["args"], json!({"n": 3.5}));
        let d = one(
            "tool t(p)\nagent a { allow t }",
            "tool t(p: string)\nagent a { allow t }",
        );
        assert_eq!(d.change, Change::Narrowed);
        assert!(!d.witnesses[0].request["args"]["p"].is_string());
    }

    #[test]
    fn array_types_are_told_apart_by_their_elements() {
        let d = one(
            "tool t(p?: array<integer>)\nagent a { allow t }",
            "tool t(p?: array<number>)\nagent a { allow t }",
        );
        assert_eq!(d.change, Change::Widened);
        let p = d.witnesses[0].request["args"]["p"].clone();
        assert!(
            p.as_array().is_some_and(|a| a
                .iter()
                .any(|x| x.as_f64().is_some_and(|f| f.fract() != 0.0))),
            "{p}"
        );
        let d = one(
            "tool t(p?: array<array<string>>)\nagent a { allow t }",
            "tool t(p?: array<string>)\nagent a { allow t }",
        );
        assert_eq!(d.change, Change::Both);
        // A rule change on a typed argument is found with a value of the declared type.
        let d = one(
            "tool t(p: array<string>)\nagent a { allow t where p == \"a\" }",
            "tool t(p: array<string>)\nagent a { allow t where p in [\"a\", \"b\"] }",
        );
        assert_eq!(d.change, Change::Widened);
        assert_eq!(d.witnesses[0].request["args"], json!({"p": ["b"]}));
        // Types written in another order, or one type repeated, are no difference.
        let r = run(
            "tool t(a: string, b?: array<integer>)\nagent x { allow t }",
            "tool t(b?: array<integer>, a: string)\nagent x { allow t }",
            Budget::default(),
        );
        assert!(r.is_empty(), "{:?}", r.pairs);
    }

    #[test]
    fn a_typed_argument_holding_a_condition_path_is_decided() {
        let d = one(
            "tool t(opts: object)\nagent a { allow t where opts.cwd matches \"/w/**\" }",
            "tool t(opts: string)\nagent a { allow t where opts.cwd matches \"/w/**\" }",
        );
        // An allow holds on a path a value does not reach: the string passes the new rule.
        assert_eq!(d.change, Change::Both);
        assert!(d.witnesses[0].request["args"]["opts"].is_string());
        assert!(d.witnesses[1].request["args"]["opts"].is_object());
    }

    #[test]
    fn shell_conditions_are_only_sampled() {
        let d = one(
            "tool B(command)\nagent a { allow B where command matches shell \"git log ...\" }",
            "tool B(command)\nagent a { allow B where command matches shell \"git ...\" }",
        );
        assert_eq!(d.change, Change::Widened);
        assert!(d.undecided.as_deref().unwrap().contains("shell patterns"));
        let w = &d.witnesses[0];
        assert_eq!(
            (w.old.decision, w.new.decision),
            (Effect::Deny, Effect::Allow)
        );
    }
}
