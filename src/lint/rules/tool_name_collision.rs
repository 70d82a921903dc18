//! `toolgate::tool_name_collision` (an error, reported while resolving names)

use crate::lint::declare_lint;

declare_lint! {
    /// ## What it does
    /// Reports a host tool whose name is how a server's tool is printed: a host tool named
    /// `"fs.write"` beside `server fs { tool write }`.
    ///
    /// ## Why is this bad?
    /// Both print as `fs.write` in `tools` listings, decisions' messages, rule references and
    /// test reports, so a reader (or a log search) cannot tell which tool was refused or
    /// allowed, though they are different tools with different permissions.
    ///
    /// ## Example
    /// ```policy
    /// server fs {
    ///   tool write(path) needs fs:write
    /// }
    /// tool "fs.write"(path) needs fs:write
    /// agent writer {
    ///   grant fs:write
    ///   allow fs.write
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// server fs {
    ///   tool write(path) needs fs:write
    /// }
    /// tool "local.write"(path) needs fs:write
    /// agent writer {
    ///   grant fs:write
    ///   allow fs.write
    /// }
    /// ```
    pub static TOOL_NAME_COLLISION = {
        code: TOOL_NAME_COLLISION,
        stage: Resolve,
    }
}
