//! One compiled agent: its default, grants, rule group and per-tool candidate rules.

use super::csr::Csr;
use super::group::Group;
use super::ids::{GroupId, IdOverflow, LocalRuleId, ToolId};
use super::perms::GrantSet;
use super::target::TargetMatcher;
use crate::syntax::ast::Effect;
use serde::{Deserialize, Serialize};

/// One compiled agent.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct AgentRt {
    pub name: Box<str>,
    pub default: Effect,
    pub grants: GrantSet,
    /// The group of all the agent's rules.
    pub group: GroupId,
    /// Without a catalog: the rule targets.
    /// Boxed: with a catalog (the common case) there is none.
    pub targets: Option<Box<TargetMatcher>>,
    /// With a catalog: the tools the agent may see, in declaration order.
    pub visible: Box<[ToolId]>,
    /// With a catalog: per tool, the local IDs of the rules that target it, ascending.
    pub candidates: Csr<LocalRuleId>,
    /// With a catalog: per tool, the deny rules among `candidates` (derived, not stored), so
    /// that looking for a firing deny reads only deny rules. Holds no rows (and allocates
    /// nothing) when the agent has no deny rule.
    #[serde(skip, default = "Csr::unset")]
    pub deny_candidates: Csr<LocalRuleId>,
    pub default_message: Box<str>,
}

impl AgentRt {
    /// Computes the tables derived from the stored ones (after building, and after loading
    /// a bundle once the stored tables are validated).
    pub(crate) fn derive(&mut self, group: &Group, n_tools: usize) -> Result<(), IdOverflow> {
        let is_deny =
            |&local: &LocalRuleId| group.effects.get(local.index()) == Some(&Effect::Deny);
        if !group.effects.contains(&Effect::Deny) {
            self.deny_candidates = Csr::unset();
            return Ok(());
        }
        debug_assert_eq!(self.candidates.rows(), n_tools);
        self.deny_candidates = self.candidates.filtered(is_deny)?;
        Ok(())
    }
}
