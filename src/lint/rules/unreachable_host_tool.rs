//! `toolgate::unreachable_host_tool`

use crate::diagnostic::Diagnostic;
use crate::lint::{declare_lint, warning, Context};
use std::collections::HashMap;

declare_lint! {
    /// ## What it does
    /// Reports a host tool that shares its name with a tool of a server. A request names a
    /// server or none; it cannot name "the host", so every request for the host tool is
    /// `ambiguous_tool`, and `tools` does not list it.
    ///
    /// ## Why is this bad?
    /// The host tool can never run, whatever the rules say about it: its rules are dead and
    /// an agent that expects it is refused on every call.
    ///
    /// ## Example
    /// ```policy
    /// server git {
    ///   tool status(repo_path) needs fs:read
    /// }
    /// tool status needs fs:read
    /// agent dev {
    ///   grant fs:read
    ///   allow status
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// server git {
    ///   tool status(repo_path) needs fs:read
    /// }
    /// tool host_status needs fs:read
    /// agent dev {
    ///   grant fs:read
    ///   allow status
    ///   allow host_status
    /// }
    /// ```
    pub static UNREACHABLE_HOST_TOOL = {
        code: UNREACHABLE_HOST_TOOL,
        stage: Lint,
    }
}

/// Runs the lint.
pub(crate) fn check(cx: &mut Context, out: &mut Vec<Diagnostic>) {
    let policy = cx.policy;
    let mut server_tools: HashMap<&str, Vec<String>> = HashMap::new();
    for t in policy.tools.iter().filter(|t| t.server.is_some()) {
        let shown = format!("`{}`", policy.tool_display(t));
        server_tools.entry(t.name.as_str()).or_default().push(shown);
    }
    for host in policy.tools.iter().filter(|t| t.server.is_none()) {
        let Some(servers) = server_tools.get(host.name.as_str()) else {
            continue;
        };
        out.push(
            warning(
                &UNREACHABLE_HOST_TOOL,
                host.span,
                format!(
                    "host tool `{}` can never be called: it shares its name with {}",
                    host.name,
                    crate::lint::and_list(servers)
                ),
            )
            .with_label("every request for it is `ambiguous_tool`")
            .with_help(
                "a request cannot name the host as its server; give the host tool a name no \
                 server uses",
            ),
        );
    }
}
