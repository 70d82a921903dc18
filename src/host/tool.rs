//! Tools and the permission wrapper that guards them.

use super::PermissionSet;
use crate::resolve::Permission;
use serde_json::Value;
use std::fmt;

/// A tool a host can run: a name, the permissions it declares, and its effect.
///
/// ```
/// use toolgate::host::{Tool, ToolError};
/// use toolgate::resolve::{parse_permission, Permission};
/// use serde_json::{json, Value};
///
/// struct ReadFile { needs: Vec<Permission> }
/// impl Tool for ReadFile {
///     fn name(&self) -> &str { "read_file" }
///     fn permissions(&self) -> &[Permission] { &self.needs }
///     fn execute(&self, input: &Value) -> Result<Value, ToolError> {
///         Ok(json!({ "read": input["path"] }))
///     }
/// }
/// let tool = ReadFile { needs: vec![parse_permission("fs:read").unwrap()] };
/// assert_eq!(tool.execute(&json!({"path": "/a"})).unwrap()["read"], "/a");
/// ```
pub trait Tool {
    /// The tool's name, as messages show it.
    fn name(&self) -> &str;
    /// The permissions the tool needs, in declaration order.
    fn permissions(&self) -> &[Permission];
    /// Runs the tool.
    ///
    /// # Errors
    ///
    /// [`ToolError::PermissionDenied`] when a guard refuses the call, or
    /// [`ToolError::Failed`] when the tool itself fails.
    fn execute(&self, input: &Value) -> Result<Value, ToolError>;
}

impl<T: Tool + ?Sized> Tool for Box<T> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn permissions(&self) -> &[Permission] {
        (**self).permissions()
    }
    fn execute(&self, input: &Value) -> Result<Value, ToolError> {
        (**self).execute(input)
    }
}

/// A call refused because a permission the tool declares was not granted. It names one
/// missing permission (the first in declaration order) and stops: an operator grants one at a
/// time, and a model needs "stop" rather than a menu.
///
/// ```
/// let e = toolgate::host::PermissionDeniedError {
///     tool: "fs.write".into(),
///     permission: toolgate::resolve::parse_permission("fs:write").unwrap(),
/// };
/// assert_eq!(
///     e.to_string(),
///     "fs.write requires the \"fs:write\" permission, which was not granted.\nRetrying with different arguments will not help"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionDeniedError {
    /// The tool that was refused.
    pub tool: String,
    /// The first permission it declares that was not granted.
    pub permission: Permission,
}

impl fmt::Display for PermissionDeniedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} requires the \"{}\" permission, which was not granted.\nRetrying with different arguments will not help",
            self.tool, self.permission
        )
    }
}

impl std::error::Error for PermissionDeniedError {}

/// Why a tool call did not produce a result.
///
/// # Example
///
/// ```
/// use toolgate::host::ToolError;
/// let e = ToolError::Failed("disk full".into());
/// assert_eq!(e.to_string(), "disk full");
/// assert!(std::error::Error::source(&e).is_some());
/// ```
#[derive(Debug)]
pub enum ToolError {
    /// Refused before the tool ran.
    PermissionDenied(PermissionDeniedError),
    /// The tool ran and failed.
    Failed(Box<dyn std::error::Error + Send + Sync>),
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::PermissionDenied(e) => e.fmt(f),
            ToolError::Failed(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ToolError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ToolError::PermissionDenied(e) => Some(e),
            ToolError::Failed(e) => Some(&**e),
        }
    }
}

/// A tool that checks its permissions against a grant set before every call.
///
/// # Example
///
/// ```
/// use toolgate::host::{with_permissions, PermissionSet, Tool};
/// # use toolgate::host::ToolError; use toolgate::resolve::Permission; use serde_json::Value;
/// # struct Noop; impl Tool for Noop { fn name(&self) -> &str { "noop" } fn permissions(&self) -> &[Permission] { &[] } fn execute(&self, v: &Value) -> Result<Value, ToolError> { Ok(v.clone()) } }
/// let guarded = with_permissions(Noop, PermissionSet::none());
/// assert_eq!(guarded.name(), "noop");
/// assert_eq!(guarded.execute(&serde_json::json!(7)).unwrap(), 7);
/// ```
#[derive(Debug, Clone)]
pub struct Guarded<T> {
    tool: T,
    granted: PermissionSet,
}

impl<T> Guarded<T> {
    /// The wrapped tool.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::host::{with_permissions, PermissionSet, Tool};
    /// # use toolgate::host::ToolError; use toolgate::resolve::Permission; use serde_json::Value;
    /// # struct Noop; impl Tool for Noop { fn name(&self) -> &str { "noop" } fn permissions(&self) -> &[Permission] { &[] } fn execute(&self, v: &Value) -> Result<Value, ToolError> { Ok(v.clone()) } }
    /// let guarded = with_permissions(Noop, PermissionSet::none());
    /// assert_eq!(guarded.inner().name(), "noop");
    /// ```
    pub fn inner(&self) -> &T {
        &self.tool
    }

    /// The grant set the guard checks.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::host::{with_permissions, PermissionSet, Tool};
    /// # use toolgate::host::ToolError; use toolgate::resolve::Permission; use serde_json::Value;
    /// # struct Noop; impl Tool for Noop { fn name(&self) -> &str { "noop" } fn permissions(&self) -> &[Permission] { &[] } fn execute(&self, v: &Value) -> Result<Value, ToolError> { Ok(v.clone()) } }
    /// let guarded = with_permissions(Noop, PermissionSet::new(["fs:read"]).unwrap());
    /// assert!(guarded.granted().allows("fs:read") && !guarded.granted().allows("fs:write"));
    /// ```
    pub fn granted(&self) -> &PermissionSet {
        &self.granted
    }
}

impl<T: Tool> Tool for Guarded<T> {
    fn name(&self) -> &str {
        self.tool.name()
    }
    fn permissions(&self) -> &[Permission] {
        self.tool.permissions()
    }
    /// Refuses the call before the tool runs when a declared permission is not granted.
    fn execute(&self, input: &Value) -> Result<Value, ToolError> {
        if let Some(p) = self.granted.first_missing(self.tool.permissions()) {
            return Err(ToolError::PermissionDenied(PermissionDeniedError {
                tool: self.tool.name().to_string(),
                permission: p.clone(),
            }));
        }
        self.tool.execute(input)
    }
}

/// Guards one tool with a grant set: enforcement is a property of the host, not of the tool.
///
/// ```
/// use toolgate::host::{with_permissions, PermissionSet, Tool, ToolError};
/// use toolgate::resolve::{parse_permission, Permission};
/// use serde_json::{json, Value};
///
/// struct WriteFile(Vec<Permission>);
/// impl Tool for WriteFile {
///     fn name(&self) -> &str { "fs.write" }
///     fn permissions(&self) -> &[Permission] { &self.0 }
///     fn execute(&self, _: &Value) -> Result<Value, ToolError> { panic!("must not run") }
/// }
/// let guarded = with_permissions(WriteFile(vec![parse_permission("fs:write").unwrap()]), PermissionSet::none());
/// match guarded.execute(&json!({})) {
///     Err(ToolError::PermissionDenied(e)) => assert_eq!(e.permission.to_string(), "fs:write"),
///     other => panic!("{other:?}"),
/// }
/// ```
pub fn with_permissions<T: Tool>(tool: T, granted: PermissionSet) -> Guarded<T> {
    Guarded { tool, granted }
}

/// Guards a whole toolset with one grant set, decided once at the composition root.
///
/// ```
/// use toolgate::host::{with_permissions_all, PermissionSet, Tool};
/// # use toolgate::host::ToolError; use toolgate::resolve::Permission; use serde_json::Value;
/// # struct Noop; impl Tool for Noop { fn name(&self) -> &str { "noop" } fn permissions(&self) -> &[Permission] { &[] } fn execute(&self, v: &Value) -> Result<Value, ToolError> { Ok(v.clone()) } }
/// let tools = with_permissions_all([Noop, Noop], &PermissionSet::none());
/// assert_eq!(tools.len(), 2);
/// assert!(tools[0].execute(&serde_json::json!(1)).is_ok()); // needs nothing
/// ```
pub fn with_permissions_all<T: Tool>(
    tools: impl IntoIterator<Item = T>,
    granted: &PermissionSet,
) -> Vec<Guarded<T>> {
    tools
        .into_iter()
        .map(|t| with_permissions(t, granted.clone()))
        .collect()
}
