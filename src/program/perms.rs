//! Interned permissions and domains, and the grant sets built over them.

use super::csr::Csr;
use super::ids::{AgentId, DomainId, IdOverflow, PermId};
use super::{ascending, check, Invalid};
use crate::resolve::Permission;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// Interned permissions and domains.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct PermTable {
    names: Vec<String>,
    domain_of: Vec<DomainId>,
    domain_names: Vec<String>,
    #[serde(skip)]
    index: FxHashMap<String, PermId>,
    #[serde(skip)]
    domains: FxHashMap<String, DomainId>,
}

impl PermTable {
    /// The ID of domain `d`, interned if new; an error when there are too many domains.
    pub(crate) fn intern_domain(&mut self, d: &str) -> Result<DomainId, IdOverflow> {
        if let Some(&id) = self.domains.get(d) {
            return Ok(id);
        }
        let id = DomainId::new(self.domain_names.len())?;
        self.domain_names.push(d.to_string());
        self.domains.insert(d.to_string(), id);
        Ok(id)
    }

    /// Rebuilds the lookup maps and checks every reference (after loading a bundle).
    pub(crate) fn rebuild(&mut self) -> Result<(), Invalid> {
        if self.domain_of.len() != self.names.len()
            || self
                .domain_of
                .iter()
                .any(|&d| d.index() >= self.domain_names.len())
        {
            return Err(Invalid("permission table is inconsistent"));
        }
        let too_many = |_| Invalid("permission table too large");
        self.index = self
            .names
            .iter()
            .enumerate()
            .map(|(i, n)| Ok((n.clone(), PermId::new(i)?)))
            .collect::<Result<_, IdOverflow>>()
            .map_err(too_many)?;
        self.domains = self
            .domain_names
            .iter()
            .enumerate()
            .map(|(i, n)| Ok((n.clone(), DomainId::new(i)?)))
            .collect::<Result<_, IdOverflow>>()
            .map_err(too_many)?;
        if self.index.len() != self.names.len() || self.domains.len() != self.domain_names.len() {
            return Err(Invalid("permission table has duplicates"));
        }
        Ok(())
    }
    /// The ID of permission `p`, interned (with its domain) if new; an error when there are
    /// too many permissions or domains.
    pub(crate) fn intern(&mut self, p: &Permission) -> Result<PermId, IdOverflow> {
        let d = self.intern_domain(&p.domain)?;
        let key = p.to_string();
        if let Some(&id) = self.index.get(&key) {
            return Ok(id);
        }
        let id = PermId::new(self.names.len())?;
        self.names.push(key.clone());
        self.domain_of.push(d);
        self.index.insert(key, id);
        Ok(id)
    }
    pub(crate) fn id(&self, domain: &str, action: &str) -> Option<PermId> {
        self.index.get(&format!("{domain}:{action}")).copied()
    }
    pub(crate) fn domain_id(&self, d: &str) -> Option<DomainId> {
        self.domains.get(d).copied()
    }
    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }
    pub(crate) fn domain_len(&self) -> usize {
        self.domain_names.len()
    }
    pub(crate) fn name(&self, id: PermId) -> &str {
        &self.names[id.index()]
    }
    /// The name of an interned domain; `None` when out of range.
    pub(crate) fn domain_name(&self, id: DomainId) -> Option<&str> {
        self.domain_names.get(id.index()).map(String::as_str)
    }
    /// The name (`domain:action`) of an interned permission; `None` when out of range.
    pub(crate) fn get_name(&self, id: PermId) -> Option<&str> {
        self.names.get(id.index()).map(String::as_str)
    }
}

/// What each agent was granted, by column (row `a` is agent `a`): a policy of many small
/// agents pays a few bytes per grant, not a bitset per agent.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Grants {
    /// Per agent: granted everything (`grant *`).
    pub all: Box<[bool]>,
    /// Per agent: the permissions granted by name, ascending.
    pub exact: Csr<PermId>,
    /// Per agent: the domains granted whole (`domain:*`), ascending.
    pub domains: Csr<DomainId>,
}

/// What one agent was granted, read from [`Grants`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct GrantSet<'g> {
    /// Granted everything.
    pub all: bool,
    /// The permissions granted by name, ascending.
    pub exact: &'g [PermId],
    /// The domains granted whole, ascending.
    pub domains: &'g [DomainId],
}

impl Grants {
    /// The table of `agents`' grants, one `(all, permissions, domains)` per agent in any
    /// order (sorted and deduplicated here).
    pub(crate) fn new(
        agents: impl IntoIterator<Item = (bool, Vec<PermId>, Vec<DomainId>)>,
    ) -> Result<Grants, IdOverflow> {
        let (mut all, mut exact, mut domains) = (Vec::new(), Vec::new(), Vec::new());
        for (a, mut e, mut d) in agents {
            e.sort_unstable();
            e.dedup();
            d.sort_unstable();
            d.dedup();
            all.push(a);
            exact.push(e);
            domains.push(d);
        }
        Ok(Grants {
            all: all.into_boxed_slice(),
            exact: Csr::from_rows(exact)?,
            domains: Csr::from_rows(domains)?,
        })
    }

    /// The grants of agent `a` (nothing when out of range).
    pub(crate) fn of(&self, a: AgentId) -> GrantSet<'_> {
        GrantSet {
            all: self.all.get(a.index()).copied().unwrap_or(false),
            exact: self.exact.row(a.index()),
            domains: self.domains.row(a.index()),
        }
    }

    /// Checks the table against `n_agents` agents and the interned permissions.
    pub(crate) fn validate(&self, n_agents: usize, perms: &PermTable) -> Result<(), Invalid> {
        let ok = self.all.len() == n_agents
            && self.exact.is_valid(n_agents, perms.len())
            && self.domains.is_valid(n_agents, perms.domain_len())
            && (0..n_agents)
                .all(|a| ascending(self.exact.row(a)) && ascending(self.domains.row(a)));
        check(ok, "grant table is inconsistent")
    }
}

impl GrantSet<'_> {
    /// Membership of any permission, interned or not (policies without a catalog).
    pub(crate) fn contains_permission(&self, perms: &PermTable, p: &Permission) -> bool {
        if self.all {
            return true;
        }
        if let Some(id) = perms.id(&p.domain, &p.action) {
            if self.exact.binary_search(&id).is_ok() {
                return true;
            }
        }
        perms
            .domain_id(&p.domain)
            .is_some_and(|d| self.domains.binary_search(&d).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perm(text: &str) -> Permission {
        let (domain, action) = text.split_once(':').unwrap();
        Permission {
            domain: domain.into(),
            action: action.into(),
        }
    }

    #[test]
    fn grants_are_rows_per_agent() {
        let mut perms = PermTable::default();
        let read = perms.intern(&perm("fs:read")).unwrap();
        let write = perms.intern(&perm("fs:write")).unwrap();
        let net = perms.intern_domain("net").unwrap();
        let grants = Grants::new([
            (false, vec![write, read, read], vec![]),
            (false, vec![], vec![net]),
            (true, vec![], vec![]),
        ])
        .unwrap();
        grants.validate(3, &perms).unwrap();
        assert!(grants.validate(4, &perms).is_err());
        let agent = |a| grants.of(AgentId::new(a).unwrap());
        assert_eq!(agent(0).exact, &[read, write]);
        let allowed = |a, p| agent(a).contains_permission(&perms, &perm(p));
        assert!(allowed(0, "fs:read") && allowed(0, "fs:write") && !allowed(0, "net:http"));
        assert!(allowed(1, "net:http") && !allowed(1, "fs:read"));
        assert!(allowed(2, "anything:else"));
        // Out of range: nothing granted.
        assert!(!allowed(3, "fs:read"));
        // A row out of order is refused.
        let unsorted = Grants {
            exact: Csr::from_rows([vec![write, read], vec![], vec![]]).unwrap(),
            ..grants.clone()
        };
        assert!(unsorted.validate(3, &perms).is_err());
    }
}
