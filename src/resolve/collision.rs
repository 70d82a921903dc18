//! Tool names that print alike: a host tool named like a server's tool is printed.

use super::ir::{ServerDef, ToolDef};
use crate::diagnostic::{code, Diagnostic, Diagnostics};
use std::collections::HashMap;

/// Reports each host tool whose name is the printed name (`server.tool`) of a server's tool
/// (`toolgate::tool_name_collision`): both would print as the same text everywhere.
pub(super) fn check(servers: &[ServerDef], tools: &[ToolDef], diags: &mut Diagnostics) {
    let printed: HashMap<String, (&str, &ToolDef)> = tools
        .iter()
        .filter_map(|t| {
            let server = servers.get(t.server?)?.name.as_str();
            Some((format!("{server}.{}", t.name), (server, t)))
        })
        .collect();
    for host in tools.iter().filter(|t| t.server.is_none()) {
        let Some(&(server, other)) = printed.get(&host.name) else {
            continue;
        };
        diags.push(
            Diagnostic::new(
                &code::TOOL_NAME_COLLISION,
                host.span,
                format!(
                    "host tool `{}` prints like the tool `{}` of server `{}`",
                    host.name, other.name, server
                ),
            )
            .with_label("a host tool named like a server's tool")
            .with_related(other.span, "the server's tool")
            .with_help(
                "listings, messages and rule references could not tell the two apart; rename \
                 the host tool",
            ),
        );
    }
}
