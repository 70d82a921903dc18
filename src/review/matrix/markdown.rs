//! The matrix as Markdown for a pull-request comment: a table of agents × tools, then the
//! conditions of each conditional cell group.

use super::{Access, Always, Clause, Matrix, Never};

/// Text as an inline code span, whatever backticks it holds.
fn code(text: &str) -> String {
    let mut run = 0;
    let mut longest = 0;
    for ch in text.chars() {
        run = if ch == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    if longest == 0 {
        format!("{fence}{text}{fence}")
    } else {
        format!("{fence} {text} {fence}")
    }
}

/// A code span usable inside a table cell (`|` escaped).
fn cell_code(text: &str) -> String {
    code(text).replace('|', "\\|")
}

fn label(access: &Access, group: Option<usize>) -> String {
    match access {
        Access::Always(Always::Rule(_)) => "✅ always".to_string(),
        Access::Always(Always::Default) => "✅ always (default allow)".to_string(),
        Access::Conditional(_) => format!("⚠️ if **C{}**", group.unwrap_or(0)),
        Access::Never(Never::PermissionMissing(p)) => format!("❌ needs {}", cell_code(p)),
        Access::Never(Never::Ambiguous) => "❌ ambiguous name".to_string(),
        Access::Never(Never::NoAllowRule) => "❌ no allow rule".to_string(),
        Access::Never(Never::DeniedByRule(r)) => format!("❌ {}", cell_code(&r.text)),
        Access::Never(Never::AllowsOverridden(_)) => "❌ allows overridden".to_string(),
    }
}

/// Renders the matrix as Markdown.
///
/// # Example
///
/// ```
/// use toolgate::review::matrix::{to_markdown, Matrix};
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "tool t(p)\nagent a { allow t where p == \"x\" }");
/// let (policy, _) = toolgate::load::policy_from_sources(m);
/// let md = to_markdown(&Matrix::build(&policy));
/// assert!(md.contains("| `t` | ⚠️ if **C1** |"));
/// ```
#[allow(
    clippy::indexing_slicing,
    reason = "the matrix holds one cell per agent and tool, agent by agent, and `numbers` one entry per cell"
)]
pub fn to_markdown(matrix: &Matrix) -> String {
    let groups = matrix.conditional_groups();
    let numbers = Matrix::group_numbers(&groups, matrix.cells.len());
    let mut out = String::from("### Effective permissions\n\n");
    if !matrix.catalog {
        out.push_str(
            "> The policy declares no tools (no catalog): the rows are the tools its rules \
             name (a tool no rule targets gets the agent's default). Permissions are declared by \
             each request and are not judged here.\n\n",
        );
    }
    let n_tools = matrix.tools.len();
    out.push_str("| tool |");
    for a in &matrix.agents {
        out.push_str(&format!(" {} |", cell_code(a)));
    }
    out.push_str("\n| --- |");
    out.push_str(&" --- |".repeat(matrix.agents.len()));
    out.push('\n');
    for (t, tool) in matrix.tools.iter().enumerate() {
        out.push_str(&format!("| {} |", cell_code(&tool.display)));
        for a in 0..matrix.agents.len() {
            let i = a * n_tools + t;
            out.push_str(&format!(
                " {} |",
                label(&matrix.cells[i].access, numbers[i])
            ));
        }
        out.push('\n');
    }
    out.push_str(
        "\n✅ always allowed (with the required arguments, each of its declared type) · ⚠️ \
         allowed under conditions (below) · ❌ never\n",
    );
    let typed: Vec<String> = matrix
        .tools
        .iter()
        .filter_map(|t| {
            let types: Vec<String> = t
                .types
                .iter()
                .map(|(arg, ty)| code(&format!("{arg}: {ty}")))
                .collect();
            (!types.is_empty()).then(|| {
                format!(
                    "- {}: arguments must be: {}\n",
                    code(&t.display),
                    types.join(", ")
                )
            })
        })
        .collect();
    if !typed.is_empty() {
        out.push_str(
            "\n#### Argument types\n\nA call whose argument has another type is never allowed.\n\n",
        );
        out.push_str(&typed.concat());
    }
    if groups.is_empty() {
        return out;
    }
    out.push_str("\n#### Conditions\n");
    for (g, group) in groups.iter().enumerate() {
        let cells: Vec<String> = group
            .by_agent(matrix)
            .into_iter()
            .map(|(agent, tools)| {
                let tools: Vec<String> = tools.into_iter().map(code).collect();
                format!("{} on {}", code(agent), tools.join(", "))
            })
            .collect();
        out.push_str(&format!("\n**C{}** · {}\n\n", g + 1, cells.join("; ")));
        let c = group.conditional;
        if c.default_allow {
            out.push_str("- allowed by the agent's `default allow`\n");
        } else {
            out.push_str(if c.allows.len() == 1 {
                "- allowed when:\n"
            } else {
                "- allowed when one of:\n"
            });
            out.push_str(&clauses(&c.allows));
        }
        if !c.exceptions.is_empty() {
            out.push_str("- except when one of these denies fires:\n");
            out.push_str(&clauses(&c.exceptions));
        }
        for (arg, tools) in group.undeclared(matrix) {
            let tools: Vec<String> = tools.into_iter().map(code).collect();
            out.push_str(&format!(
                "- note: {} is not an argument of {}; its conditions hold unless a call passes it\n",
                code(&arg),
                tools.join(", ")
            ));
        }
    }
    out
}

fn clauses(list: &[Clause]) -> String {
    list.iter()
        .map(|c| {
            let conds: Vec<String> = c
                .by_argument()
                .into_iter()
                .flat_map(|(_, cs)| cs.into_iter().map(|c| code(&c.text)))
                .collect();
            let text = if conds.is_empty() {
                "every call".to_string()
            } else {
                conds.join(" and ")
            };
            format!(
                "  - {text} — {} ({})\n",
                code(&c.rule.text),
                c.rule.location()
            )
        })
        .collect()
}
