//! Permissions (`domain:action`) and grants (`domain:action`, `domain:*`, `*`).

use std::fmt;

/// A concrete permission a tool needs: `domain:action`.
///
/// # Example
///
/// ```
/// let p = toolgate::resolve::parse_permission("fs:read").unwrap();
/// assert_eq!((p.domain.as_str(), p.action.as_str()), ("fs", "read"));
/// assert_eq!(p.to_string(), "fs:read");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Permission {
    /// The domain, e.g. `fs`.
    pub domain: String,
    /// The action, e.g. `read`.
    pub action: String,
}

impl fmt::Display for Permission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.domain, self.action)
    }
}

/// What an agent is granted by one item of a `grant` statement.
///
/// # Example
///
/// ```
/// use toolgate::resolve::{parse_grant, Grant};
/// assert_eq!(parse_grant("*"), Ok(Grant::All));
/// assert_eq!(parse_grant("fs:*"), Ok(Grant::Domain("fs".into())));
/// assert_eq!(parse_grant("fs:*").unwrap().to_string(), "fs:*");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Grant {
    /// `*`: everything.
    All,
    /// `domain:*`: every action of a domain, including actions no tool declares yet.
    Domain(String),
    /// `domain:action`.
    Exact(Permission),
}

impl Grant {
    /// True when this grant lets an agent use `p`.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::resolve::{parse_grant, parse_permission};
    /// let read = parse_permission("fs:read").unwrap();
    /// assert!(parse_grant("fs:*").unwrap().allows(&read));
    /// assert!(!parse_grant("fs:write").unwrap().allows(&read));
    /// ```
    pub fn allows(&self, p: &Permission) -> bool {
        match self {
            Grant::All => true,
            Grant::Domain(d) => *d == p.domain,
            Grant::Exact(e) => e == p,
        }
    }
}

impl fmt::Display for Grant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Grant::All => f.write_str("*"),
            Grant::Domain(d) => write!(f, "{d}:*"),
            Grant::Exact(p) => p.fmt(f),
        }
    }
}

/// Why a permission or grant was refused.
///
/// # Example
///
/// ```
/// use toolgate::resolve::{parse_grant, PermissionError};
/// assert_eq!(parse_grant("*:read"), Err(PermissionError::WildcardDomain));
/// assert_eq!(parse_grant("Fs:read"), Err(PermissionError::BadPart("Fs".into())));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionError {
    /// `*:action`: a wildcard over domains.
    WildcardDomain,
    /// A wildcard where a concrete permission is required (in `needs`).
    WildcardInNeeds,
    /// Not of the form `domain:action`.
    Malformed,
    /// A part that is not a lowercase name.
    BadPart(String),
}

impl PermissionError {
    /// A one-line description.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::resolve::PermissionError;
    /// let msg = PermissionError::Malformed.message("fs");
    /// assert_eq!(msg, "`fs` is not a permission of the form `domain:action`");
    /// ```
    pub fn message(&self, text: &str) -> String {
        match self {
            PermissionError::WildcardDomain => format!("`{text}` puts a wildcard on the domain"),
            PermissionError::WildcardInNeeds => {
                format!("`{text}` is a wildcard, but a tool needs concrete permissions")
            }
            PermissionError::Malformed => {
                format!("`{text}` is not a permission of the form `domain:action`")
            }
            PermissionError::BadPart(p) => format!("`{p}` in `{text}` is not a lowercase name"),
        }
    }

    /// How to fix it.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::resolve::PermissionError;
    /// assert!(PermissionError::WildcardInNeeds.help().contains("`fs:read`"));
    /// ```
    pub fn help(&self) -> &'static str {
        match self {
            PermissionError::WildcardDomain => "a wildcard covers a domain, never an action across domains: `*:read` would span every domain, including ones a plugin nobody reviewed adds later; grant each domain's action (`fs:read, net:read`) or a whole domain (`fs:*`)",
            PermissionError::WildcardInNeeds => "list the exact permissions the tool needs, such as `fs:read`",
            PermissionError::Malformed => "write a permission as `domain:action` (e.g. `fs:read`), a domain wildcard `fs:*`, or `*` for everything",
            PermissionError::BadPart(_) => "domains and actions are lowercase names: letters, digits, `_` and `-`, starting with a letter",
        }
    }
}

fn valid_part(p: &str) -> bool {
    let mut chars = p.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

/// Parses a concrete permission `domain:action`.
///
/// # Example
///
/// ```
/// use toolgate::resolve::{parse_permission, PermissionError};
/// assert_eq!(parse_permission("net:http").unwrap().to_string(), "net:http");
/// assert_eq!(parse_permission("fs:*"), Err(PermissionError::WildcardInNeeds));
/// ```
pub fn parse_permission(text: &str) -> Result<Permission, PermissionError> {
    match parse_grant(text)? {
        Grant::Exact(p) => Ok(p),
        _ => Err(PermissionError::WildcardInNeeds),
    }
}

/// Parses a grant: `domain:action`, `domain:*` or `*`.
///
/// # Example
///
/// ```
/// use toolgate::resolve::{parse_grant, Grant, PermissionError};
/// assert!(matches!(parse_grant("fs:read"), Ok(Grant::Exact(p)) if p.action == "read"));
/// assert_eq!(parse_grant("fs"), Err(PermissionError::Malformed));
/// ```
pub fn parse_grant(text: &str) -> Result<Grant, PermissionError> {
    if text == "*" {
        return Ok(Grant::All);
    }
    let Some((domain, action)) = text.split_once(':') else {
        return Err(PermissionError::Malformed);
    };
    if domain == "*" {
        return Err(PermissionError::WildcardDomain);
    }
    if !valid_part(domain) {
        return Err(PermissionError::BadPart(domain.to_string()));
    }
    if action == "*" {
        return Ok(Grant::Domain(domain.to_string()));
    }
    if !valid_part(action) {
        return Err(PermissionError::BadPart(action.to_string()));
    }
    Ok(Grant::Exact(Permission {
        domain: domain.to_string(),
        action: action.to_string(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_parse() {
        assert_eq!(parse_grant("*"), Ok(Grant::All));
        assert_eq!(parse_grant("fs:*"), Ok(Grant::Domain("fs".into())));
        assert_eq!(
            parse_grant("fs:read"),
            Ok(Grant::Exact(Permission {
                domain: "fs".into(),
                action: "read".into()
            }))
        );
    }

    #[test]
    fn bad_grants_are_refused() {
        assert_eq!(parse_grant("*:read"), Err(PermissionError::WildcardDomain));
        assert_eq!(parse_grant("fs"), Err(PermissionError::Malformed));
        assert_eq!(
            parse_grant("Fs:read"),
            Err(PermissionError::BadPart("Fs".into()))
        );
        assert_eq!(
            parse_permission("fs:*"),
            Err(PermissionError::WildcardInNeeds)
        );
        assert_eq!(parse_permission("*"), Err(PermissionError::WildcardInNeeds));
    }
}
