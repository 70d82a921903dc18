//! The tool catalog: tools, servers and the permission gate of every (agent, tool) pair.

use super::ids::{IdOverflow, PermId, ServerId, ToolId};
use super::{all_below, check, Invalid};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// One catalog tool.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ToolRt {
    pub server: Option<ServerId>,
    pub name: String,
    pub display: String,
    pub needs: Vec<PermId>,
    pub required: Vec<String>,
    /// The arguments with a declared type other than `any`, in declaration order: checked
    /// before any rule runs. Empty for an untyped tool, which then costs nothing.
    pub typed: Vec<(String, crate::resolve::ArgType)>,
}

/// The catalog with the per-(agent, tool) tables.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Catalog {
    pub tools: Vec<ToolRt>,
    #[serde(skip)]
    pub by_name: FxHashMap<String, Vec<ToolId>>,
    pub servers: Vec<String>,
    /// `agent * n_tools + tool` -> the first permission not granted.
    pub gate: Vec<Option<PermId>>,
    pub n_tools: usize,
}

impl Catalog {
    /// Checks every table against `n_agents` agents and `n_perms` permissions, then rebuilds
    /// the name lookup.
    pub(crate) fn validate_and_rebuild(
        &mut self,
        n_agents: usize,
        n_perms: usize,
    ) -> Result<(), Invalid> {
        check(self.n_tools == self.tools.len(), "tool count mismatch")?;
        let slots = n_agents
            .checked_mul(self.n_tools)
            .ok_or(Invalid("table size overflow"))?;
        check(
            self.gate.len() == slots,
            "permission gate table size mismatch",
        )?;
        check(
            self.gate.iter().flatten().all(|&p| p.index() < n_perms),
            "gate permission out of range",
        )?;
        for t in &self.tools {
            check(
                t.server.is_none_or(|s| s.index() < self.servers.len()),
                "tool server out of range",
            )?;
            check(all_below(&t.needs, n_perms), "tool permission out of range")?;
            check(
                t.typed.iter().all(|(_, ty)| {
                    !ty.is_any()
                        && usize::from(ty.arrays) <= crate::resolve::arg_type::MAX_ARRAY_DEPTH
                }),
                "argument type out of range",
            )?;
        }
        self.by_name = by_name(&self.tools).map_err(|_| Invalid("too many tools"))?;
        Ok(())
    }
}

/// Tool name -> the catalog tools of that name (several when servers share a tool name).
pub(crate) fn by_name(tools: &[ToolRt]) -> Result<FxHashMap<String, Vec<ToolId>>, IdOverflow> {
    let mut map: FxHashMap<String, Vec<ToolId>> = FxHashMap::default();
    for (i, t) in tools.iter().enumerate() {
        map.entry(t.name.clone()).or_default().push(ToolId::new(i)?);
    }
    Ok(map)
}
