#![allow(
    clippy::indexing_slicing,
    reason = "the tables are validated index by index when a bundle is decoded (and compile creates the indices it stores), so every index a table holds is in bounds; `decide` turns a panic into an `internal_error` deny"
)]
//! The compiled program: every table a decision reads, in one place.
//!
//! `compile` builds a [`Program`] from a resolved policy; `bundle` encodes and decodes one;
//! the [`crate::Engine`] holds one and decides. Each table type sits beside its validation
//! (regex-automata keeps a DFA's `from_bytes` beside the DFA): a program decoded from bundle
//! bytes is checked index by index before it answers anything, and what bundles do not carry
//! (lookup maps, aho-corasick automata, derived tables) is rebuilt.

pub(crate) mod agent;
pub(crate) mod agent_index;
pub(crate) mod bitset;
pub(crate) mod catalog;
pub(crate) mod csr;
pub(crate) mod dfa;
mod exact;
mod fallback;
pub(crate) mod group;
pub(crate) mod ids;
pub(crate) mod index;
pub(crate) mod needle_table;
pub(crate) mod needles;
pub(crate) mod perms;
pub(crate) mod rule;
pub(crate) mod target;
pub(crate) mod tool_names;

pub use rule::RuleRef;

use agent::AgentRt;
use agent_index::AgentIndex;
use catalog::Catalog;
use group::Group;
use ids::{AgentId, Id};
use index::{Automata, BuiltFallback};
use needles::NeedleMatcher;
use perms::{Grants, PermTable};
use rule::Rules;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Why a decoded program was refused: which table is inconsistent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid(pub &'static str);

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl From<dfa::DfaError> for Invalid {
    fn from(_: dfa::DfaError) -> Invalid {
        Invalid("an automaton of the bundle cannot be rebuilt")
    }
}

impl From<needles::MatcherError> for Invalid {
    fn from(_: needles::MatcherError) -> Invalid {
        Invalid("a needle matcher of the bundle cannot be rebuilt")
    }
}

/// `Ok` when `ok`, else the named inconsistency.
pub(crate) fn check(ok: bool, what: &'static str) -> Result<(), Invalid> {
    if ok {
        Ok(())
    } else {
        Err(Invalid(what))
    }
}

/// True when every ID is below `bound`.
pub(crate) fn all_below<I: Id>(ids: &[I], bound: usize) -> bool {
    ids.iter().all(|&i| i.index() < bound)
}

/// True when the IDs are strictly ascending.
pub(crate) fn ascending<I: Id>(ids: &[I]) -> bool {
    ids.windows(2).all(|w| w[0] < w[1])
}

/// A compiled policy: interned tables, rule groups, automata. Immutable once built; the field
/// order is the bundle payload's encoding order.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Program {
    pub(crate) agents: Vec<AgentRt>,
    /// What each agent was granted.
    pub(crate) grants: Grants,
    #[serde(skip)]
    pub(crate) agent_index: AgentIndex,
    pub(crate) catalog: Option<Catalog>,
    pub(crate) rules: Rules,
    pub(crate) groups: Vec<Group>,
    pub(crate) perms: PermTable,
    pub(crate) automata: Automata,
    pub(crate) needles: Vec<NeedleMatcher>,
    /// The policy's test blocks, so a bundle can still be tested.
    pub(crate) tests: Vec<crate::resolve::TestCase>,
}

impl Program {
    /// Validates a decoded program and rebuilds its lookup maps, automata and derived tables.
    pub(crate) fn validate_and_rebuild(&mut self) -> Result<(), Invalid> {
        self.perms.rebuild()?;
        self.rules.validate()?;
        check(!self.groups.is_empty(), "no rule groups")?;
        for g in &self.groups {
            g.validate(self.rules.len(), &self.automata, &self.needles)?;
        }
        for n in &mut self.needles {
            n.rebuild()?;
        }
        self.validate_agents()?;
        let n_agents = self.agents.len();
        self.grants.validate(n_agents, &self.perms)?;
        // A decoded table grows by doubling; a policy of many small agents should not pay
        // for the slack.
        self.agents.shrink_to_fit();
        self.groups.shrink_to_fit();
        if let Some(cat) = self.catalog.as_mut() {
            cat.validate_and_rebuild(n_agents, self.perms.len())?;
            let group_of: Vec<ids::GroupId> = self.agents.iter().map(|a| a.group).collect();
            cat.validate_agents(&group_of, &self.groups)?;
        }
        for g in &mut self.groups {
            g.rebuild()?;
        }
        self.share_agent_names();
        group::share_paths(&mut self.groups);
        for c in &self.tests {
            let args = serde_json::from_str::<serde_json::Value>(&c.args);
            check(
                args.is_ok_and(|v| v.is_object()),
                "test arguments are not an object",
            )?;
        }
        Ok(())
    }

    /// Takes out the fallback regexes built while compiling, in a fixed order, so that the
    /// program decoded from this one's bundle can reuse them ([`Program::reuse_fallbacks`])
    /// instead of building them a second time.
    /// Only the indexes that have any are listed, by their position in that order (most
    /// indexes have none, and a policy may hold hundreds of thousands).
    pub(crate) fn take_fallbacks(&mut self) -> Vec<(usize, [Option<BuiltFallback>; 2])> {
        let groups = self.groups.iter_mut();
        groups
            .flat_map(Group::pattern_indexes_mut)
            .enumerate()
            .filter_map(|(i, index)| {
                let built = index.take_fallbacks();
                built.iter().any(Option::is_some).then_some((i, built))
            })
            .collect()
    }

    /// Puts back what [`Program::take_fallbacks`] took from the program this one was decoded
    /// from; what does not fit (other sources) is left for the rebuild.
    pub(crate) fn reuse_fallbacks(&mut self, built: Vec<(usize, [Option<BuiltFallback>; 2])>) {
        let mut built = built.into_iter().peekable();
        let groups = self.groups.iter_mut();
        for (i, index) in groups.flat_map(Group::pattern_indexes_mut).enumerate() {
            if let Some((_, fallbacks)) = built.next_if(|(at, _)| *at == i) {
                index.reuse_fallbacks(fallbacks);
            }
        }
    }

    /// Checks each agent's group and targets against the catalog (or its absence), and
    /// rebuilds the agent lookup.
    fn validate_agents(&mut self) -> Result<(), Invalid> {
        self.agent_index =
            AgentIndex::build(&self.agents).map_err(|_| Invalid("duplicate agent"))?;
        for a in &self.agents {
            let group = self
                .groups
                .get(a.group.index())
                .ok_or(Invalid("agent group out of range"))?;
            let n_rules = group.n_rules();
            match (&self.catalog, &a.targets) {
                (Some(_), None) => {}
                (None, Some(t)) => t.validate(n_rules, &self.automata)?,
                _ => return Err(Invalid("agent tables do not match the catalog")),
            }
        }
        for a in &mut self.agents {
            if let Some(t) = a.targets.as_mut() {
                t.rebuild()?;
            }
        }
        Ok(())
    }

    /// Makes each agent hold its name in the string its rules already hold.
    fn share_agent_names(&mut self) {
        for a in &mut self.agents {
            let Some(group) = self.groups.get(a.group.index()) else {
                continue;
            };
            let first = group.rule(ids::LocalRuleId::FIRST);
            if let Some(rule) = first.and_then(|r| self.rules.get(r.index())) {
                if *rule.info.agent == *a.name {
                    a.name = Arc::clone(&rule.info.agent);
                }
            }
        }
    }

    /// The agent named `name`, with its ID.
    #[inline]
    pub(crate) fn agent(&self, name: &str) -> Option<(AgentId, &AgentRt)> {
        let id = self.agent_index.get(name, &self.agents)?;
        self.agents.get(id.index()).map(|a| (id, a))
    }
}

#[cfg(test)]
mod matchers_tests;

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    /// A one-rule agent must stay small: path patterns of different agents share their
    /// suffix automaton, rarely used parts of the tables are boxed, a group's and an index's
    /// small tables are one slice each, and equal argument paths are shared (the sizes are
    /// those of a 64-bit target).
    #[test]
    fn agents_share_automata_and_stay_small() {
        let agents: String = (0..50)
            .map(|i| {
                format!(
                    "agent a{i} {{\n grant fs:read\n allow read_file where path matches \"/home/a{i}/**\"\n}}\n"
                )
            })
            .collect();
        let src = format!("tool read_file(path) needs fs:read\n{agents}");
        let engine = crate::load::engine_from_str("x.policy", &src).unwrap();
        assert_eq!(engine.program.automata.dfas.len(), 1);
        use super::group::{ArgMatcher, Group, PatternConds};
        use std::mem::size_of;
        assert!(size_of::<ArgMatcher>() <= 48);
        assert!(size_of::<super::agent::AgentRt>() <= 48);
        assert!(size_of::<Group>() <= 72);
        assert!(size_of::<PatternConds<super::index::PatternIndex>>() <= 80);
        assert!(size_of::<super::csr::Csr<super::ids::CondId>>() <= 16);
        assert!(size_of::<super::csr::Strings>() <= 16);
        // Every agent's matcher holds the one copy of the path `path`, and each agent holds
        // its name in the string its rule holds.
        let program = &engine.program;
        let paths: Vec<&Arc<[String]>> = program
            .groups
            .iter()
            .flat_map(|g| g.args.iter().map(|a| &a.path))
            .collect();
        assert_eq!(paths.len(), 50);
        assert!(paths.windows(2).all(|w| Arc::ptr_eq(w[0], w[1])));
        for agent in &program.agents {
            let group = &program.groups[agent.group.index()];
            let rule = program.rules.get(group.first_rule.index()).unwrap();
            assert!(Arc::ptr_eq(&agent.name, &rule.info.agent));
        }
    }
}
