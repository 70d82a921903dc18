//! Typed IDs: one type per kind of table entry the compiled program numbers.
//!
//! Every ID is a `u32` in a `#[repr(transparent)]` newtype, so tables and bundles stay as
//! compact as bare numbers (bundles encode an ID exactly as the `u32` it wraps) and the
//! decision path pays nothing for them, while the compiler keeps kinds apart: a rule's
//! position in its agent's group is not a global rule ID, a permission is not a domain.
//! IDs are made only by checked construction ([`AgentId::new`], or `TryFrom<usize>`): a
//! table that outgrows `u32` is an [`IdOverflow`] error, never a silent wrap. Tables stay
//! plain `Vec`s, read through [`AgentId::index`] and its siblings.

use serde::{Deserialize, Serialize};

/// A table grew past what a `u32` ID can number; names the kind of entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdOverflow(pub &'static str);

impl std::fmt::Display for IdOverflow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "more than {} {}", u64::from(u32::MAX) + 1, self.0)
    }
}

impl std::error::Error for IdOverflow {}

/// What generic tables ([`super::csr::Csr`], range and order checks) need of an ID.
pub trait Id: Copy + Ord {
    /// The entry's position in its table.
    fn index(self) -> usize;
    /// The `u32` the ID wraps.
    fn raw(self) -> u32;
    /// The ID wrapping `raw`, unchecked against any table: for tables that store counts
    /// among their IDs ([`super::csr::Csr`]).
    fn from_raw(raw: u32) -> Self;
    /// The `u32`s of `raw` read as IDs (no copy), unchecked against any table: for tables
    /// of several kinds of ID in one allocation ([`super::group::Group`]).
    fn slice(raw: &[u32]) -> &[Self];
}

/// Defines one ID kind: the newtype, checked construction and table access.
macro_rules! id_kind {
    ($(#[$doc:meta])* $name:ident, $plural:literal) => {
        $(#[$doc])*
        /// (The default is the first entry.)
        #[derive(
            Debug,
            Clone,
            Copy,
            Default,
            PartialEq,
            Eq,
            PartialOrd,
            Ord,
            Hash,
            Serialize,
            Deserialize,
            bytemuck::TransparentWrapper,
        )]
        #[repr(transparent)]
        #[serde(transparent)]
        pub struct $name(u32);

        impl $name {
            /// The first entry of its table.
            #[allow(dead_code, reason = "made for every ID type; some tables never name their first")]
            pub const FIRST: $name = $name(0);

            /// The ID of entry `i`; an error when `i` does not fit in a `u32`.
            #[inline]
            pub fn new(i: usize) -> Result<$name, IdOverflow> {
                u32::try_from(i).map($name).map_err(|_| IdOverflow($plural))
            }

            /// The entry's position in its table.
            #[inline(always)]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl TryFrom<usize> for $name {
            type Error = IdOverflow;

            #[inline]
            fn try_from(i: usize) -> Result<$name, IdOverflow> {
                $name::new(i)
            }
        }

        impl Id for $name {
            #[inline(always)]
            fn index(self) -> usize {
                self.0 as usize
            }

            #[inline(always)]
            fn raw(self) -> u32 {
                self.0
            }

            #[inline(always)]
            fn from_raw(raw: u32) -> $name {
                $name(raw)
            }

            #[inline(always)]
            fn slice(raw: &[u32]) -> &[$name] {
                <$name as bytemuck::TransparentWrapper<u32>>::wrap_slice(raw)
            }
        }
    };
}

id_kind!(
    /// An agent: its position in the program's agents (and its row of the permission gate).
    AgentId,
    "agents"
);
id_kind!(
    /// A catalog tool: its position in the catalog, in declaration order (the same numbering
    /// as the resolved policy's tools).
    ToolId,
    "catalog tools"
);
id_kind!(
    /// A server: its position among the declared servers.
    ServerId,
    "servers"
);
id_kind!(
    /// An interned permission (`domain:action`).
    PermId,
    "permissions"
);
id_kind!(
    /// An interned permission domain (the part before `:`).
    DomainId,
    "permission domains"
);
id_kind!(
    /// A rule of the whole policy: its position in the program's rule table, in source order.
    RuleId,
    "rules"
);
id_kind!(
    /// A rule group; group 0 is the empty group agents without rules share.
    GroupId,
    "rule groups"
);
id_kind!(
    /// A rule within its group (the agent's rules, in source order): the position of its
    /// [`RuleId`] in the group's rules.
    LocalRuleId,
    "rules of one agent"
);
id_kind!(
    /// A distinct condition of one group; each argument's conditions form one contiguous
    /// range.
    CondId,
    "conditions of one agent"
);
id_kind!(
    /// An argument matcher of one group: its position among the group's arguments.
    ArgId,
    "arguments of one agent"
);
id_kind!(
    /// An argument name of the catalog: its position among the names tools declare.
    ArgNameId,
    "argument names"
);
id_kind!(
    /// A pattern of one pattern index (or of one target matcher's patterns): its position in
    /// the list the index was built from.
    PatternId,
    "patterns of one argument"
);
id_kind!(
    /// A shared automaton (deduplicated across groups).
    DfaId,
    "automata"
);
id_kind!(
    /// A shared `contains` needle matcher (deduplicated across groups).
    NeedleId,
    "needle matchers"
);

/// The IDs `0..len` of one kind, in order; an error when `len` exceeds what the kind can
/// number.
pub fn all<I: TryFrom<usize, Error = IdOverflow>>(
    len: usize,
) -> Result<impl Iterator<Item = I>, IdOverflow> {
    I::try_from(len.saturating_sub(1))?;
    Ok((0..len).filter_map(|i| I::try_from(i).ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn construction_is_checked() {
        let last = u32::MAX as usize;
        assert_eq!(ToolId::new(last).map(ToolId::index), Ok(last));
        assert_eq!(ToolId::new(last + 1), Err(IdOverflow("catalog tools")));
        assert_eq!(CondId::try_from(5usize).map(CondId::index), Ok(5));
        assert!(all::<RuleId>(last + 2).is_err());
        let ids: Vec<RuleId> = all(3).unwrap().collect();
        assert_eq!(ids.iter().map(|r| r.index()).collect::<Vec<_>>(), [0, 1, 2]);
        assert!(RuleId::FIRST < ids[1]);
    }

    #[test]
    fn ids_encode_as_their_number() {
        let id = PermId::new(300).unwrap();
        let bytes = postcard::to_allocvec(&id).unwrap();
        assert_eq!(bytes, postcard::to_allocvec(&300u32).unwrap());
        assert_eq!(postcard::from_bytes::<PermId>(&bytes), Ok(id));
    }
}

#[cfg(test)]
mod construction {
    use super::{RuleId, ToolId};

    #[test]
    fn ids_are_made_by_checked_construction() {
        let tool = ToolId::new(3).unwrap();
        assert_eq!(tool.index(), 3);
        assert_eq!(RuleId::try_from(7usize).map(RuleId::index), Ok(7));
        let too_many = ToolId::new(u32::MAX as usize + 1).unwrap_err();
        assert_eq!(too_many.to_string(), "more than 4294967296 catalog tools");
    }
}
