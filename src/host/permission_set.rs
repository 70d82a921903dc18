//! An immutable set of granted permissions.

use crate::resolve::{parse_grant, Grant, Permission, PermissionError};
use std::fmt;

/// What a host grants its tools: exact permissions, whole domains (`fs:*`), or everything.
///
/// Immutable: [`PermissionSet::grant`] returns a copy and leaves the original unchanged, so
/// "what is this host allowed to do" has one answer however late it is asked. Membership is a
/// constant-time hash lookup, and `domain:*` covers actions no tool declared when the set was
/// built.
///
/// ```
/// use toolgate::host::PermissionSet;
///
/// let granted = PermissionSet::none().grant(["fs:read", "net:http"]).unwrap();
/// assert!(granted.allows("fs:read"));
/// assert!(!granted.allows("fs:write"));
///
/// let fs = PermissionSet::new(["fs:*"]).unwrap();
/// assert!(fs.allows("fs:write") && fs.allows("fs:chmod"));
/// assert!(PermissionSet::new(["*:read"]).is_err()); // a wildcard covers a domain, not an action
/// assert!(PermissionSet::all().allows("anything:at-all"));
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct PermissionSet {
    all: bool,
    /// Per domain, sorted by domain: what is granted in it. Hosts grant a handful of
    /// domains, so a membership check is a short scan (a binary search when there are many).
    domains: Vec<(String, Actions)>,
}

/// The grants in one domain: all of it (`domain:*`), or some actions.
#[derive(Clone, Default, PartialEq, Eq)]
struct Actions {
    any: bool,
    /// Sorted, without duplicates; empty when `any`.
    names: Vec<String>,
}

impl Actions {
    fn contains(&self, action: &str) -> bool {
        self.any
            || if self.names.len() <= 8 {
                self.names
                    .iter()
                    .any(|n| n.len() == action.len() && n == action)
            } else {
                self.names
                    .binary_search_by(|n| n.as_str().cmp(action))
                    .is_ok()
            }
    }
}

impl PermissionSet {
    /// Grants nothing: the right default for an untrusted context.
    ///
    /// ```
    /// assert!(!toolgate::host::PermissionSet::none().allows("fs:read"));
    /// ```
    pub fn none() -> PermissionSet {
        PermissionSet::default()
    }

    /// Grants everything, for a host that has decided it trusts its tools.
    ///
    /// ```
    /// assert!(toolgate::host::PermissionSet::all().allows("proc:exec"));
    /// ```
    pub fn all() -> PermissionSet {
        PermissionSet {
            all: true,
            ..PermissionSet::default()
        }
    }

    /// Grants exactly what is listed (`domain:action`, `domain:*` or `*`).
    ///
    /// # Errors
    ///
    /// The first item that is not a valid grant, such as `*:read` or `fs`.
    ///
    /// ```
    /// let set = toolgate::host::PermissionSet::new(["fs:read"]).unwrap();
    /// assert!(set.allows("fs:read"));
    /// let err = toolgate::host::PermissionSet::new(["*:read"]).unwrap_err();
    /// assert!(err.to_string().contains("wildcard"));
    /// ```
    pub fn new<I, S>(grants: I) -> Result<PermissionSet, InvalidGrant>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        PermissionSet::none().grant(grants)
    }

    /// A copy of this set with more granted; `self` is unchanged.
    ///
    /// # Errors
    ///
    /// The first item that is not a valid grant.
    ///
    /// ```
    /// use toolgate::host::PermissionSet;
    /// let base = PermissionSet::new(["fs:read"]).unwrap();
    /// let wider = base.grant(["net:http"]).unwrap();
    /// assert!(wider.allows("net:http"));
    /// assert!(!base.allows("net:http"));
    /// ```
    pub fn grant<I, S>(&self, grants: I) -> Result<PermissionSet, InvalidGrant>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut out = self.clone();
        for g in grants {
            let text = g.as_ref();
            match parse_grant(text) {
                Ok(Grant::All) => out.all = true,
                Ok(Grant::Domain(d)) => {
                    let actions = out.entry(d);
                    actions.any = true;
                    actions.names.clear();
                }
                Ok(Grant::Exact(p)) => {
                    let actions = out.entry(p.domain);
                    if !actions.any {
                        if let Err(at) = actions.names.binary_search(&p.action) {
                            actions.names.insert(at, p.action);
                        }
                    }
                }
                Err(error) => {
                    return Err(InvalidGrant {
                        text: text.to_string(),
                        error,
                    })
                }
            }
        }
        Ok(out)
    }

    /// True when `permission` is granted: exactly, by its domain's wildcard, or by `*`.
    ///
    /// ```
    /// use toolgate::resolve::parse_permission;
    /// let set = toolgate::host::PermissionSet::new(["fs:*"]).unwrap();
    /// assert!(set.contains(&parse_permission("fs:write").unwrap()));
    /// ```
    pub fn contains(&self, permission: &Permission) -> bool {
        self.has(&permission.domain, &permission.action)
    }

    /// Membership by parts, without allocating: two hash lookups at most.
    fn has(&self, domain: &str, action: &str) -> bool {
        self.all
            || self
                .find(domain)
                .is_some_and(|actions| actions.contains(action))
    }

    /// The grants in `domain`, if any.
    fn find(&self, domain: &str) -> Option<&Actions> {
        if self.domains.len() <= 8 {
            self.domains
                .iter()
                .find(|(d, _)| d.len() == domain.len() && d == domain)
                .map(|(_, a)| a)
        } else {
            self.domains
                .binary_search_by(|(d, _)| d.as_str().cmp(domain))
                .ok()
                .and_then(|i| self.domains.get(i))
                .map(|(_, a)| a)
        }
    }

    /// The grants in `domain`, added empty if absent.
    #[allow(
        clippy::indexing_slicing,
        reason = "`at` is where the binary search found the domain, or where it was just inserted"
    )]
    fn entry(&mut self, domain: String) -> &mut Actions {
        let at = match self
            .domains
            .binary_search_by(|(d, _)| d.as_str().cmp(&domain))
        {
            Ok(at) => at,
            Err(at) => {
                self.domains.insert(at, (domain, Actions::default()));
                at
            }
        };
        &mut self.domains[at].1
    }

    /// True when the permission written `domain:action` is granted; a malformed one never is.
    ///
    /// ```
    /// let set = toolgate::host::PermissionSet::new(["fs:read"]).unwrap();
    /// assert!(set.allows("fs:read") && !set.allows("fs") && !set.allows("fs:*"));
    /// ```
    pub fn allows(&self, permission: &str) -> bool {
        // A short text: a plain scan beats `split_once`'s searcher.
        let Some(colon) = permission.bytes().position(|b| b == b':') else {
            return false;
        };
        let (domain, action) = (&permission[..colon], &permission[colon + 1..]);
        // Stored names are valid, so a text that finds an exact grant is valid too; only a
        // grant by wildcard needs the text checked.
        if self.all {
            return is_name(domain) && is_name(action);
        }
        match self.find(domain) {
            Some(actions) if actions.any => is_name(action),
            Some(actions) => actions.contains(action),
            None => false,
        }
    }

    /// The first of `needs` (in declaration order) that is not granted.
    ///
    /// ```
    /// use toolgate::resolve::parse_permission;
    /// let needs = [parse_permission("fs:read").unwrap(), parse_permission("net:http").unwrap()];
    /// let set = toolgate::host::PermissionSet::new(["fs:read"]).unwrap();
    /// assert_eq!(set.first_missing(&needs).unwrap().to_string(), "net:http");
    /// ```
    pub fn first_missing<'a>(&self, needs: &'a [Permission]) -> Option<&'a Permission> {
        needs.iter().find(|p| !self.contains(p))
    }
}

impl fmt::Debug for PermissionSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PermissionSet({self})")
    }
}

impl fmt::Display for PermissionSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.all {
            return f.write_str("*");
        }
        let mut items: Vec<String> = Vec::new();
        for (d, actions) in &self.domains {
            if actions.any {
                items.push(format!("{d}:*"));
            }
            items.extend(actions.names.iter().map(|a| format!("{d}:{a}")));
        }
        items.sort();
        f.write_str(&items.join(", "))
    }
}

/// A lowercase name as permissions use them (checked without allocating).
#[allow(
    clippy::indexing_slicing,
    reason = "the table has 256 entries: every byte, and the loop building it, stays below"
)]
fn is_name(part: &str) -> bool {
    /// Bytes allowed after the first: `a-z`, `0-9`, `_`, `-`.
    const REST: [bool; 256] = {
        let mut t = [false; 256];
        let mut b = 0;
        while b < 256 {
            let c = b as u8;
            t[b] = c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_' || c == b'-';
            b += 1;
        }
        t
    };
    let bytes = part.as_bytes();
    matches!(bytes.first(), Some(b'a'..=b'z')) && bytes.iter().all(|&b| REST[b as usize])
}

/// A grant that could not be parsed.
///
/// # Example
///
/// ```
/// let err = toolgate::host::PermissionSet::new(["fs:read", "fs"]).unwrap_err();
/// assert!(err.to_string().starts_with("`fs` is not a permission of the form `domain:action`: "));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidGrant {
    text: String,
    error: PermissionError,
}

impl fmt::Display for InvalidGrant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}",
            self.error.message(&self.text),
            self.error.help()
        )
    }
}

impl std::error::Error for InvalidGrant {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grant_returns_a_copy() {
        let none = PermissionSet::none();
        let some = none.grant(["fs:read"]).unwrap();
        assert!(!none.allows("fs:read") && some.allows("fs:read"));
        assert_eq!(some.to_string(), "fs:read");
    }

    #[test]
    fn domain_wildcards_cover_later_actions_and_nothing_else() {
        let s = PermissionSet::new(["fs:*"]).unwrap();
        assert!(s.allows("fs:brand-new-action"));
        assert!(!s.allows("fsx:read"));
        assert!(!s.allows("net:http"));
    }

    #[test]
    fn malformed_grants_are_refused() {
        for bad in ["*:read", "fs", "FS:read", "fs:", ":read"] {
            assert!(PermissionSet::new([bad]).is_err(), "{bad}");
        }
    }
}
