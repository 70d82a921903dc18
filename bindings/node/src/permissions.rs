//! Hermes' permission model: an immutable grant set and the exact denial message.

use napi_derive::napi;
use toolgate::host;

/// What a host grants its tools: exact permissions (`fs:read`), whole domains (`fs:*`), or
/// everything (`*`). Immutable: `grant` returns a widened copy. `*:action` is refused.
#[napi]
pub struct PermissionSet {
    inner: host::PermissionSet,
}

#[napi]
impl PermissionSet {
    /// Grants exactly what is listed. Throws an `Error` (code `InvalidArg`) naming the first item
    /// that is not a grant, such as `*:read` or `fs`.
    #[napi(constructor)]
    pub fn new(grants: Option<Vec<String>>) -> napi::Result<PermissionSet> {
        host::PermissionSet::new(grants.unwrap_or_default())
            .map(|inner| PermissionSet { inner })
            .map_err(|e| invalid(e.to_string()))
    }

    /// Grants nothing: the right default for an untrusted context.
    #[napi(factory)]
    pub fn none() -> PermissionSet {
        PermissionSet {
            inner: host::PermissionSet::none(),
        }
    }

    /// Grants everything, for a host that has decided it trusts its tools.
    #[napi(factory)]
    pub fn all() -> PermissionSet {
        PermissionSet {
            inner: host::PermissionSet::all(),
        }
    }

    /// A copy with more granted (`set.grant('fs:read', 'net:http')`); this set is unchanged.
    #[napi(ts_args_type = "...permissions: Array<string | Array<string>>")]
    pub fn grant(&self, permissions: Vec<String>) -> napi::Result<PermissionSet> {
        self.inner
            .grant(permissions)
            .map(|inner| PermissionSet { inner })
            .map_err(|e| invalid(e.to_string()))
    }

    /// True when `permission` (`domain:action`) is granted: exactly, by its domain's
    /// wildcard, or by `*`. A malformed permission never is.
    #[napi]
    pub fn has(&self, permission: String) -> bool {
        self.inner.allows(&permission)
    }

    /// The first of `permissions`, in order, that is not granted (a malformed one never is);
    /// `null` when all are.
    #[napi]
    pub fn first_missing(&self, permissions: Vec<String>) -> Option<String> {
        permissions.into_iter().find(|p| !self.inner.allows(p))
    }

    /// The grants, sorted and comma-separated (`*` for everything).
    #[napi(js_name = "toString")]
    pub fn to_display(&self) -> String {
        self.inner.to_string()
    }
}

/// A grant that could not be parsed, thrown with code `InvalidArg`.
fn invalid(message: String) -> napi::Error {
    napi::Error::new(napi::Status::InvalidArg, message)
}

/// The message of a call refused for a missing permission, exactly as toolgate words it
/// (two lines: `fs.write requires the "fs:write" permission, which was not granted.`, then
/// `Retrying with different arguments will not help`).
#[napi]
pub fn permission_denied_message(tool: String, permission: String) -> String {
    match toolgate::resolve::parse_permission(&permission) {
        Ok(permission) => host::PermissionDeniedError { tool, permission }.to_string(),
        // A tool that declares a malformed permission is refused all the same.
        Err(e) => format!("{tool} declares {}: {}", e.message(&permission), e.help()),
    }
}
