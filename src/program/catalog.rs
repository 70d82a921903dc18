//! The tool catalog: tools, servers and the permission gate of every (agent, tool) pair.
//!
//! The tools are stored by column (names, permissions, arguments: each one table for every
//! tool), so a catalog of 10,000 tools loads in a handful of allocations; [`Tool`] reads one
//! tool across the columns.

use super::csr::{Csr, TextTable};
use super::group::Group;
use super::ids::{
    AgentId, ArgNameId, GroupId, Id, IdOverflow, LocalRuleId, PermId, ServerId, ToolId,
};
use super::tool_names::{Named, ToolsByName};
use super::{all_below, ascending, check, Invalid};
use crate::resolve::ArgType;
use crate::syntax::ast::Effect;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::HashMap;

/// One catalog tool as the compiler describes it (see [`Catalog::new`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolSpec {
    pub server: Option<ServerId>,
    pub name: String,
    pub needs: Vec<PermId>,
    /// The required arguments, in declaration order.
    pub required: Vec<String>,
    /// The arguments with a declared type other than `any`, in declaration order.
    pub typed: Vec<(String, ArgType)>,
}

/// The catalog with the per-(agent, tool) tables.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Catalog {
    /// Per tool: its name, without its server's.
    pub names: TextTable,
    /// Per tool: the server that declares it (`None` for a host tool).
    pub server_of: Box<[Option<ServerId>]>,
    /// Per tool: the permissions it needs.
    pub needs: Csr<PermId>,
    /// Per tool: its required arguments (positions in `arg_names`), in declaration order.
    pub required: Csr<ArgNameId>,
    /// Per tool: the arguments with a declared type other than `any` (positions in
    /// `arg_names`), in declaration order; checked before any rule runs. An untyped tool
    /// has none and costs nothing.
    pub typed: Csr<ArgNameId>,
    /// The type of each item of `typed`, item by item.
    pub types: Box<[ArgType]>,
    /// Every argument name `required` and `typed` mention, once each (a handful: one string
    /// each, read without a UTF-8 check on every call).
    pub arg_names: Box<[Box<str>]>,
    pub servers: Vec<String>,
    /// Derived (not stored in bundles): the tools by name.
    #[serde(skip)]
    pub by_name: ToolsByName,
    /// `agent * n_tools + tool` -> the first permission not granted, as its ID plus one
    /// (0 when every permission is granted): four bytes a pair (see [`Catalog::missing`]).
    /// Bundles store each entry as an optional permission.
    #[serde(with = "gate_encoding")]
    pub gate: Box<[u32]>,
    /// Per agent: the tools it may see, in declaration order.
    pub visible: Csr<ToolId>,
    /// `agent * n_tools + tool` -> the local IDs (in the agent's group) of the agent's rules
    /// that target the tool, ascending.
    pub candidates: Csr<LocalRuleId>,
    /// Derived (not stored in bundles): `candidates` keeping only deny rules, so that looking
    /// for a firing deny reads only deny rules. Holds no rows (and allocates nothing) when no
    /// agent has a deny rule.
    #[serde(skip, default = "Csr::unset")]
    pub deny_candidates: Csr<LocalRuleId>,
}

/// What the compiler gives [`Catalog::new`] beside the tools: the tables with a row per
/// agent or per (agent, tool) pair.
#[derive(Debug, Default)]
pub(crate) struct AgentColumns {
    /// See [`Catalog::gate`].
    pub gate: Box<[u32]>,
    /// See [`Catalog::visible`].
    pub visible: Csr<ToolId>,
    /// See [`Catalog::candidates`].
    pub candidates: Csr<LocalRuleId>,
}

/// One tool of a [`Catalog`], read across its columns.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tool<'c> {
    cat: &'c Catalog,
    id: ToolId,
}

impl<'c> Tool<'c> {
    /// Its position in the catalog.
    pub(crate) fn id(self) -> ToolId {
        self.id
    }

    /// Its name, without its server's.
    pub(crate) fn name(self) -> &'c str {
        self.cat.names.get(self.id.index()).unwrap_or("")
    }

    /// The server that declares it (`None` for a host tool).
    pub(crate) fn server_id(self) -> Option<ServerId> {
        self.cat.server_of.get(self.id.index()).copied().flatten()
    }

    /// The name of the server that declares it.
    pub(crate) fn server(self) -> Option<&'c str> {
        let s = self.server_id()?;
        self.cat.servers.get(s.index()).map(String::as_str)
    }

    /// `server.name` for a server's tool, `name` for a host tool: how messages name it.
    pub(crate) fn display(self) -> Cow<'c, str> {
        match self.server() {
            Some(s) => Cow::Owned(format!("{s}.{}", self.name())),
            None => Cow::Borrowed(self.name()),
        }
    }

    /// The permissions it needs.
    pub(crate) fn needs(self) -> &'c [PermId] {
        self.cat.needs.row(self.id.index())
    }

    /// Its required arguments, in declaration order.
    pub(crate) fn required(self) -> impl Iterator<Item = &'c str> + Clone {
        let names = &self.cat.arg_names;
        let row = self.cat.required.row(self.id.index()).iter();
        row.map(move |a| names.get(a.index()).map_or("", |n| &**n))
    }

    /// Its arguments with a declared type other than `any`, in declaration order.
    pub(crate) fn typed(self) -> impl Iterator<Item = (&'c str, ArgType)> + Clone {
        let cat = self.cat;
        // Most catalogs declare no types: nothing to look up.
        let t = if cat.types.is_empty() {
            usize::MAX
        } else {
            self.id.index()
        };
        let start = cat.typed.row_start(t);
        let row = cat.typed.row(t).iter();
        row.zip(cat.types.get(start..).unwrap_or(&[]))
            .map(move |(a, &ty)| (cat.arg_names.get(a.index()).map_or("", |n| &**n), ty))
    }
}

impl Catalog {
    /// The catalog of `tools` (in catalog order) declared by `servers`, with the agents'
    /// tables over them.
    pub(crate) fn new(
        tools: &[ToolSpec],
        servers: Vec<String>,
        agents: AgentColumns,
    ) -> Result<Catalog, IdOverflow> {
        let mut arg_ids: HashMap<&str, ArgNameId> = HashMap::new();
        let mut arg_names: Vec<&str> = Vec::new();
        let mut required = Vec::with_capacity(tools.len());
        let mut typed = Vec::with_capacity(tools.len());
        let mut types = Vec::new();
        for t in tools {
            let mut row = Vec::with_capacity(t.required.len());
            for a in &t.required {
                row.push(intern_name(&mut arg_ids, &mut arg_names, a)?);
            }
            required.push(row);
            let mut row = Vec::with_capacity(t.typed.len());
            for (a, ty) in &t.typed {
                row.push(intern_name(&mut arg_ids, &mut arg_names, a)?);
                types.push(*ty);
            }
            typed.push(row);
        }
        let mut cat = Catalog {
            names: TextTable::from_strs(tools.iter().map(|t| &t.name))?,
            server_of: tools.iter().map(|t| t.server).collect(),
            needs: Csr::from_rows(tools.iter().map(|t| &t.needs))?,
            required: Csr::from_rows(required)?,
            typed: Csr::from_rows(typed)?,
            types: types.into_boxed_slice(),
            arg_names: arg_names.into_iter().map(Box::from).collect(),
            servers,
            by_name: ToolsByName::default(),
            gate: agents.gate,
            visible: agents.visible,
            candidates: agents.candidates,
            deny_candidates: Csr::unset(),
        };
        cat.by_name = ToolsByName::new(&cat.names)?;
        Ok(cat)
    }

    /// Number of tools.
    #[inline]
    pub(crate) fn n_tools(&self) -> usize {
        self.names.len()
    }

    /// Tool `t`.
    #[inline]
    pub(crate) fn tool(&self, t: ToolId) -> Tool<'_> {
        Tool { cat: self, id: t }
    }

    /// Every tool, in catalog order.
    pub(crate) fn tools(&self) -> impl Iterator<Item = Tool<'_>> {
        (0..self.n_tools()).filter_map(|t| Some(self.tool(ToolId::new(t).ok()?)))
    }

    /// Checks every table against `n_agents` agents and `n_perms` permissions, then rebuilds
    /// the name lookup.
    pub(crate) fn validate_and_rebuild(
        &mut self,
        n_agents: usize,
        n_perms: usize,
    ) -> Result<(), Invalid> {
        let n_tools = self.names.len();
        check(self.names.is_valid(), "tool names are inconsistent")?;
        check(
            self.server_of.len() == n_tools
                && self.needs.is_valid(n_tools, n_perms)
                && self.required.is_valid(n_tools, self.arg_names.len())
                && self.typed.is_valid(n_tools, self.arg_names.len())
                && self.types.len() == self.typed.items().len(),
            "tool table size mismatch",
        )?;
        let slots = n_agents
            .checked_mul(n_tools)
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
        check(
            self.server_of
                .iter()
                .all(|s| s.is_none_or(|s| s.index() < self.servers.len())),
            "tool server out of range",
        )?;
        check(
            self.types.iter().all(|ty| {
                !ty.is_any() && usize::from(ty.arrays) <= crate::resolve::arg_type::MAX_ARRAY_DEPTH
            }),
            "argument type out of range",
        )?;
        self.by_name = ToolsByName::new(&self.names).map_err(|_| Invalid("too many tools"))?;
        Ok(())
    }

    /// Checks the per-agent tables against the agents' rule groups (`group_of` gives each
    /// agent's), then derives the deny candidates.
    pub(crate) fn validate_agents(
        &mut self,
        group_of: &[GroupId],
        groups: &[Group],
    ) -> Result<(), Invalid> {
        let n_tools = self.n_tools();
        let slots = group_of
            .len()
            .checked_mul(n_tools)
            .ok_or(Invalid("table size overflow"))?;
        check(
            self.visible.is_valid(group_of.len(), n_tools)
                && (0..group_of.len()).all(|a| ascending(self.visible.row(a))),
            "visible tools out of range",
        )?;
        check(
            self.candidates.is_valid(slots, u32::MAX as usize),
            "candidate table is inconsistent",
        )?;
        let n_rules = |a: usize| {
            let g = group_of.get(a)?;
            Some(groups.get(g.index())?.n_rules())
        };
        for (a, _) in group_of.iter().enumerate() {
            let n = n_rules(a).ok_or(Invalid("agent group out of range"))?;
            let ok = (a * n_tools..(a + 1) * n_tools).all(|slot| {
                let row = self.candidates.row(slot);
                ascending(row) && all_below(row, n)
            });
            check(ok, "candidates out of range")?;
        }
        self.derive(group_of, groups)
            .map_err(|_| Invalid("derived candidate table too large"))
    }

    /// Derives the deny candidates from the candidates and the agents' groups.
    fn derive(&mut self, group_of: &[GroupId], groups: &[Group]) -> Result<(), IdOverflow> {
        let is_deny = |g: &GroupId, local: &LocalRuleId| {
            groups.get(g.index()).and_then(|g| g.effect(*local)) == Some(Effect::Deny)
        };
        let any_deny = group_of
            .iter()
            .any(|g| groups.get(g.index()).is_some_and(Group::has_deny));
        if !any_deny {
            self.deny_candidates = Csr::unset();
            return Ok(());
        }
        let n_tools = self.n_tools().max(1);
        self.deny_candidates = self.candidates.filtered(|slot, local| {
            group_of
                .get(slot / n_tools)
                .is_some_and(|g| is_deny(g, local))
        })?;
        Ok(())
    }

    /// The local IDs of agent `a`'s rules that target tool `t`, ascending; and the deny rules
    /// among them.
    #[inline]
    pub(crate) fn candidates(&self, a: AgentId, t: ToolId) -> (&[LocalRuleId], &[LocalRuleId]) {
        let slot = a.index() * self.n_tools() + t.index();
        (self.candidates.row(slot), self.deny_candidates.row(slot))
    }

    /// The tools named `name`, in catalog order (several when servers share a tool name).
    #[inline]
    pub(crate) fn named(&self, name: &str) -> Named<'_> {
        self.by_name.get(&self.names, name)
    }

    /// Every distinct tool name.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.by_name.names(&self.names)
    }
}

/// The ID of argument name `name`, added to `names` when it is new.
fn intern_name<'a>(
    ids: &mut HashMap<&'a str, ArgNameId>,
    names: &mut Vec<&'a str>,
    name: &'a str,
) -> Result<ArgNameId, IdOverflow> {
    if let Some(&id) = ids.get(name) {
        return Ok(id);
    }
    let id = ArgNameId::new(names.len())?;
    names.push(name);
    ids.insert(name, id);
    Ok(id)
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
