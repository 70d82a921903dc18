//! The tool catalog: tools, servers and the permission gate of every (agent, tool) pair.

use super::ids::{Id, IdOverflow, PermId, ServerId};
use super::tool_names::{Named, ToolsByName};
use super::{all_below, check, Invalid};
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
    /// Derived (not stored in bundles): the tools by name.
    #[serde(skip)]
    pub by_name: ToolsByName,
    pub servers: Vec<String>,
    /// `agent * n_tools + tool` -> the first permission not granted, as its ID plus one
    /// (0 when every permission is granted): four bytes a pair (see [`Catalog::missing`]).
    /// Bundles store each entry as an optional permission.
    #[serde(with = "gate_encoding")]
    pub gate: Box<[u32]>,
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
            self.gate
                .iter()
                .all(|&g| g.checked_sub(1).is_none_or(|p| (p as usize) < n_perms)),
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
        self.by_name = ToolsByName::new(&self.tools).map_err(|_| Invalid("too many tools"))?;
        Ok(())
    }

    /// The tools named `name`, in catalog order (several when servers share a tool name).
    #[inline]
    pub(crate) fn named(&self, name: &str) -> Named<'_> {
        self.by_name.get(&self.tools, name)
    }

    /// Every distinct tool name.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.by_name.names(&self.tools)
    }
}

impl Catalog {
    /// The first permission the (agent, tool) pair at `slot` of the gate is not granted.
    #[inline]
    pub(crate) fn missing(&self, slot: usize) -> Option<PermId> {
        let entry = *self.gate.get(slot)?;
        entry.checked_sub(1).map(PermId::from_raw)
    }

    /// The gate entry of a pair whose first missing permission is `missing`.
    pub(crate) fn gate_entry(missing: Option<PermId>) -> Result<u32, IdOverflow> {
        missing.map_or(Ok(0), |p| {
            p.raw().checked_add(1).ok_or(IdOverflow("permissions"))
        })
    }
}

/// The gate as bundles store it: one optional permission ID per (agent, tool) pair.
mod gate_encoding {
    use super::{Catalog, Id, PermId};
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(gate: &[u32], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(gate.iter().map(|&g| g.checked_sub(1).map(PermId::from_raw)))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<[u32]>, D::Error> {
        let entries = Vec::<Option<PermId>>::deserialize(d)?;
        entries
            .into_iter()
            .map(|p| Catalog::gate_entry(p).map_err(serde::de::Error::custom))
            .collect()
    }
}
