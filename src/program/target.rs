//! Rule targets compiled for run-time selection, for policies without a catalog: the tool and
//! server name patterns of an agent's rules, matched against the request's names.

use super::bitset::BitSet;
use super::ids::LocalRuleId;
use super::index::{Automata, PatternIndex};
use super::{all_below, check, Invalid};
use serde::{Deserialize, Serialize};

/// Rule targets compiled for run-time selection (policies without a catalog).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct TargetMatcher {
    pub n_rules: usize,
    pub tool: PatternIndex,
    /// Per tool pattern: the rule it comes from.
    pub tool_rules: Vec<LocalRuleId>,
    /// The rules targeting any tool.
    pub tool_any: Vec<LocalRuleId>,
    pub server: PatternIndex,
    /// Per server pattern: the rule it comes from.
    pub server_rules: Vec<LocalRuleId>,
    /// The rules targeting any server.
    pub server_any: Vec<LocalRuleId>,
    /// The rules targeting host tools (no server).
    pub no_server: Vec<LocalRuleId>,
}

impl TargetMatcher {
    /// The rules whose target covers `server.tool`; `None` when a matcher failed.
    pub(crate) fn candidates(
        &self,
        server: Option<&str>,
        tool: &str,
        automata: &Automata,
    ) -> Option<BitSet> {
        let (mut scratch, mut hits) = (Vec::new(), Vec::new());
        let mut tool_ok = BitSet::new(self.n_rules);
        for &r in &self.tool_any {
            tool_ok.insert(r.index());
        }
        if !self
            .tool
            .matches(tool.as_bytes(), automata, &mut scratch, &mut hits)
        {
            return None;
        }
        for &p in &hits {
            tool_ok.insert(self.tool_rules.get(p.index())?.index());
        }
        let mut out = BitSet::new(self.n_rules);
        for &r in &self.no_server {
            if tool_ok.contains(r.index()) {
                out.insert(r.index());
            }
        }
        if let Some(server) = server {
            for &r in &self.server_any {
                if tool_ok.contains(r.index()) {
                    out.insert(r.index());
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
                let r = self.server_rules.get(p.index())?.index();
                if tool_ok.contains(r) {
                    out.insert(r);
                }
            }
        }
        Some(out)
    }
}

impl TargetMatcher {
    /// Checks every rule reference against a group of `n_rules` rules.
    pub(crate) fn validate(&self, n_rules: usize, automata: &Automata) -> Result<(), Invalid> {
        let n = self.n_rules;
        check(n == n_rules, "target table size mismatch")?;
        check(
            all_below(&self.tool_rules, n)
                && all_below(&self.tool_any, n)
                && all_below(&self.server_rules, n)
                && all_below(&self.server_any, n)
                && all_below(&self.no_server, n),
            "target rule out of range",
        )?;
        self.tool.validate(automata, self.tool_rules.len())?;
        self.server.validate(automata, self.server_rules.len())
    }

    /// Rebuilds what bundles do not carry.
    pub(crate) fn rebuild(&mut self) -> Result<(), Invalid> {
        self.tool.rebuild().map_err(Invalid::from)?;
        self.server.rebuild().map_err(Invalid::from)
    }
}
