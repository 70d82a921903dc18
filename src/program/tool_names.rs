//! Tool name -> the catalog tools of that name, without an owned string per name: loading a
//! catalog of 10,000 tools builds one hash table of tool IDs, not 10,000 strings and lists.

use super::csr::TextTable;
use super::ids::{Id, IdOverflow, ToolId};
use hashbrown::HashTable;
use std::hash::BuildHasher;

/// The catalog tools by name: a hash table of the first tool of each distinct name (hashed
/// and compared by the tool's own name), and per tool the next tool of the same name
/// (several servers may declare one name), in catalog order.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolsByName {
    first: HashTable<ToolId>,
    next: Box<[u32]>,
}

/// The end of a chain of same-named tools.
const END: u32 = u32::MAX;

fn hash(name: &str) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(name)
}

fn name_of(names: &TextTable, t: ToolId) -> &str {
    names.get(t.index()).unwrap_or("")
}

impl ToolsByName {
    /// Indexes the tools named `tools` (tool `i` is named `tools.get(i)`) by name.
    pub(crate) fn new(tools: &TextTable) -> Result<ToolsByName, IdOverflow> {
        let mut first: HashTable<ToolId> = HashTable::with_capacity(tools.len());
        let mut next = vec![END; tools.len()];
        // From the last tool to the first, each one going in front of its name's chain, so
        // that a chain lists its tools in catalog order.
        for i in (0..tools.len()).rev() {
            let id = ToolId::new(i)?;
            let name = name_of(tools, id);
            let h = hash(name);
            match first.find_mut(h, |&t| name_of(tools, t) == name) {
                Some(head) => {
                    if let Some(slot) = next.get_mut(i) {
                        *slot = head.raw();
                    }
                    *head = id;
                }
                None => {
                    first.insert_unique(h, id, |&t| hash(name_of(tools, t)));
                }
            }
        }
        Ok(ToolsByName {
            first,
            next: next.into_boxed_slice(),
        })
    }

    /// The tools of `tools` (the catalog this was built from) named `name`, in catalog order.
    pub(crate) fn get<'a>(&'a self, tools: &'a TextTable, name: &str) -> Named<'a> {
        Named {
            at: self
                .first
                .find(hash(name), |&t| tools.is(t.index(), name))
                .map_or(END, |t| t.raw()),
            next: &self.next,
        }
    }

    /// Every distinct tool name of `tools` (the catalog this was built from).
    pub(crate) fn names<'a>(&'a self, tools: &'a TextTable) -> impl Iterator<Item = &'a str> {
        self.first.iter().map(move |&t| name_of(tools, t))
    }
}

/// The tools of one name (see [`ToolsByName::get`]).
#[derive(Debug, Clone)]
pub(crate) struct Named<'a> {
    at: u32,
    next: &'a [u32],
}

impl Iterator for Named<'_> {
    type Item = ToolId;

    fn next(&mut self) -> Option<ToolId> {
        if self.at == END {
            return None;
        }
        let t = ToolId::from_raw(self.at);
        // A chain only moves forward in the catalog, so it ends.
        self.at = match self.next.get(t.index()) {
            Some(&n) if n > self.at => n,
            _ => END,
        };
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_of_a_name_is_found_in_catalog_order() {
        let tools = TextTable::from_strs(["read", "write", "read", "list", "read"]).unwrap();
        let by_name = ToolsByName::new(&tools).unwrap();
        let ids =
            |name: &str| -> Vec<usize> { by_name.get(&tools, name).map(|t| t.index()).collect() };
        assert_eq!(ids("read"), [0, 2, 4]);
        assert_eq!(ids("write"), [1]);
        assert_eq!(ids("list"), [3]);
        assert!(ids("delete").is_empty());
        let mut names: Vec<&str> = by_name.names(&tools).collect();
        names.sort_unstable();
        assert_eq!(names, ["list", "read", "write"]);
    }

    proptest::proptest! {
        /// The lookup finds what a scan of the catalog finds, for any names.
        #[test]
        fn the_lookup_agrees_with_a_scan(
            names in proptest::collection::vec("[ab]{0,3}", 0..40),
            asked in "[ab]{0,3}",
        ) {
            let tools = TextTable::from_strs(&names).unwrap();
            let by_name = ToolsByName::new(&tools).unwrap();
            let found: Vec<usize> = by_name.get(&tools, &asked).map(|t| t.index()).collect();
            let scanned: Vec<usize> = (0..names.len()).filter(|&i| names[i] == asked).collect();
            proptest::prop_assert_eq!(found, scanned);
        }
    }
}
