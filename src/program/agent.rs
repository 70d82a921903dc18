//! One compiled agent: its name, default and rule group. What it was granted and, with a
//! catalog, which tools it sees and which of its rules target each tool are program-wide
//! tables with a row per agent ([`super::perms::Grants`], [`super::catalog::Catalog`]).

use super::ids::GroupId;
use super::target::TargetMatcher;
use crate::syntax::ast::Effect;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One compiled agent.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct AgentRt {
    /// Its name (shared with its rules' [`super::RuleRef::agent`] once loaded).
    pub name: Arc<str>,
    pub default: Effect,
    /// The group of all the agent's rules.
    pub group: GroupId,
    /// Without a catalog: the rule targets.
    /// Boxed: with a catalog (the common case) there is none.
    pub targets: Option<Box<TargetMatcher>>,
    pub default_message: Box<str>,
}
