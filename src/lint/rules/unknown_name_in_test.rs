//! `toolgate::unknown_name_in_test`

use crate::diagnostic::Diagnostic;
use crate::lint::{declare_lint, warning, Context};
use crate::resolve::suggest::did_you_mean;

declare_lint! {
    /// ## What it does
    /// Reports a `test` expectation naming an agent, a server or (with a catalog) a tool the
    /// policy does not define, with a did-you-mean, unless the expectation's reason is
    /// `unknown_agent` (then the tool is not checked either: it is never looked up) or
    /// `unknown_tool` (for a server or tool), which says the author meant it.
    ///
    /// ## Why is this bad?
    /// A misspelt name turns the expectation into a test of something else: `deny
    /// code-asistant Bash {}` passes because the agent does not exist, not because the
    /// policy denies the shell. The test suite stays green while checking nothing.
    ///
    /// ## Example
    /// ```policy
    /// tool Bash(command)
    /// agent code-assistant {
    ///   deny Bash
    /// }
    /// test "no shell" {
    ///   deny code-asistant Bash { command: "ls" }
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool Bash(command)
    /// agent code-assistant {
    ///   deny Bash
    /// }
    /// test "no shell" {
    ///   deny code-assistant Bash { command: "ls" } denied_by_rule
    /// }
    /// ```
    pub static UNKNOWN_NAME_IN_TEST = {
        code: UNKNOWN_NAME_IN_TEST,
        stage: Lint,
    }
}

fn help(name: &str, candidates: Vec<&str>, reason: &str) -> String {
    match did_you_mean(name, candidates) {
        Some(s) => format!("did you mean `{s}`? If the name is unknown on purpose, end the expectation with `{reason}`"),
        None => format!("fix the name; if it is unknown on purpose, end the expectation with `{reason}`"),
    }
}

/// Runs the lint.
pub(crate) fn check(cx: &mut Context, out: &mut Vec<Diagnostic>) {
    let policy = cx.policy;
    for e in policy.tests.iter().flat_map(|t| &t.expectations) {
        let reason = e.reason.as_ref().map(|r| r.text.as_str());
        // An unknown agent on purpose: the tool is never looked up either.
        if reason == Some("unknown_agent") {
            continue;
        }
        if policy.agent(&e.agent.text).is_none() {
            out.push(
                warning(
                    &UNKNOWN_NAME_IN_TEST,
                    e.agent.span,
                    format!(
                        "test names agent `{}`, which the policy does not define",
                        e.agent.text
                    ),
                )
                .with_label("not a defined agent")
                .with_help(help(
                    &e.agent.text,
                    policy.agents.iter().map(|a| a.name.as_str()).collect(),
                    "unknown_agent",
                )),
            );
        }
        if !policy.has_catalog() || reason == Some("unknown_tool") {
            continue;
        }
        let server = match &e.server {
            Some(s) => match policy.servers.iter().position(|d| d.name == s.text) {
                Some(i) => Some(i),
                None => {
                    out.push(
                        warning(
                            &UNKNOWN_NAME_IN_TEST,
                            s.span,
                            format!(
                                "test names server `{}`, which the policy does not declare",
                                s.text
                            ),
                        )
                        .with_label("not a declared server")
                        .with_help(help(
                            &s.text,
                            policy.servers.iter().map(|d| d.name.as_str()).collect(),
                            "unknown_tool",
                        )),
                    );
                    continue;
                }
            },
            None => None,
        };
        let on_server = |t: &&crate::resolve::ToolDef| server.is_none() || t.server == server;
        if !policy
            .tools
            .iter()
            .filter(on_server)
            .any(|t| t.name == e.tool.text)
        {
            let where_ = match &e.server {
                Some(s) => format!(" on server `{}`", s.text),
                None => String::new(),
            };
            out.push(
                warning(
                    &UNKNOWN_NAME_IN_TEST,
                    e.tool.span,
                    format!(
                        "test names tool `{}`{where_}, which the catalog does not declare",
                        e.tool.text
                    ),
                )
                .with_label("not a declared tool")
                .with_help(help(
                    &e.tool.text,
                    policy
                        .tools
                        .iter()
                        .filter(on_server)
                        .map(|t| t.name.as_str())
                        .collect(),
                    "unknown_tool",
                )),
            );
        }
    }
}
