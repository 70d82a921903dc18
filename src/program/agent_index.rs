//! The agent lookup: an agent's name to its ID, without a second copy of the names.
//!
//! An open-addressing table of agent IDs (linear probing, at most 7/8 full) hashed by name;
//! a probe compares the name with the agent's own. A slot costs four bytes, where a map from
//! owned names would hold each name again with its string header.

use super::agent::AgentRt;
use super::ids::AgentId;
use std::hash::BuildHasher;

/// Agent names to agent IDs, over the program's agents.
#[derive(Debug, Clone, Default)]
pub(crate) struct AgentIndex {
    /// Per slot: the agent's ID plus one; zero is an empty slot. The length is a power of
    /// two (or zero, for no agents).
    slots: Box<[u32]>,
}

/// Two agents share a name, or there are more agents than a slot numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IndexError;

fn hash(name: &str) -> usize {
    rustc_hash::FxBuildHasher.hash_one(name) as usize
}

impl AgentIndex {
    /// Indexes `agents` by name; an error when two share a name or there are too many.
    pub(crate) fn build(agents: &[AgentRt]) -> Result<AgentIndex, IndexError> {
        if agents.is_empty() {
            return Ok(AgentIndex::default());
        }
        let wanted = agents.len().checked_add(agents.len() / 7 + 1);
        let len = wanted
            .and_then(usize::checked_next_power_of_two)
            .ok_or(IndexError)?;
        let mut slots = vec![0u32; len];
        let mask = len - 1;
        for (i, a) in agents.iter().enumerate() {
            let entry = u32::try_from(i + 1).map_err(|_| IndexError)?;
            let mut at = hash(&a.name) & mask;
            loop {
                match slots.get(at).copied() {
                    Some(0) => break,
                    Some(other) => {
                        let other = agents.get(other as usize - 1).map(|o| &*o.name);
                        if other == Some(&*a.name) {
                            return Err(IndexError);
                        }
                        at = (at + 1) & mask;
                    }
                    None => return Err(IndexError),
                }
            }
            if let Some(slot) = slots.get_mut(at) {
                *slot = entry;
            }
        }
        Ok(AgentIndex {
            slots: slots.into_boxed_slice(),
        })
    }

    /// The ID of the agent named `name` among `agents` (those the index was built over).
    #[inline]
    pub(crate) fn get(&self, name: &str, agents: &[AgentRt]) -> Option<AgentId> {
        let mask = self.slots.len().checked_sub(1)?;
        let mut at = hash(name) & mask;
        // The table is never full, so an empty slot ends every probe; the bound guards a
        // table that does not match `agents`.
        for _ in 0..self.slots.len() {
            let entry = *self.slots.get(at)?;
            let i = (entry as usize).checked_sub(1)?;
            if agents.get(i).is_some_and(|a| *a.name == *name) {
                return AgentId::new(i).ok();
            }
            at = (at + 1) & mask;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn agents(names: &[String]) -> Vec<AgentRt> {
        let src: String = names
            .iter()
            .map(|n| format!("agent {n} {{\n  allow t\n}}\n"))
            .collect();
        let engine = crate::load::engine_from_str("x.policy", &format!("tool t\n{src}")).unwrap();
        engine.program.agents.clone()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        /// Every agent is found under its name, and no other name finds one.
        #[test]
        fn finds_exactly_the_agents(
            names in proptest::collection::btree_set("[a-z][a-z0-9_]{0,6}", 0..40),
            other in "[a-z][a-z0-9_]{0,6}",
        ) {
            let names: Vec<String> = names.into_iter().collect();
            let agents = agents(&names);
            let index = AgentIndex::build(&agents).unwrap();
            for (i, a) in agents.iter().enumerate() {
                prop_assert_eq!(index.get(&a.name, &agents).map(AgentId::index), Some(i));
            }
            let expected = agents.iter().position(|a| *a.name == *other);
            prop_assert_eq!(index.get(&other, &agents).map(AgentId::index), expected);
        }
    }

    #[test]
    fn refuses_a_duplicate_name() {
        let mut agents = agents(&["a".to_string(), "b".to_string()]);
        assert!(AgentIndex::build(&agents).is_ok());
        agents[1].name = "a".into();
        assert_eq!(AgentIndex::build(&agents).unwrap_err(), IndexError);
    }
}
