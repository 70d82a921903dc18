//! The matrix as a compact grid for a terminal: tools as rows, agents as columns, a legend,
//! then the conditions of the conditional cells, each listed once under its number.

use super::{Access, Always, Clause, Matrix, Never};

/// The short label of a cell in the grid.
fn label(access: &Access, group: Option<usize>) -> String {
    match access {
        Access::Always(Always::Rule(_)) => "yes".to_string(),
        Access::Always(Always::Default) => "yes (default)".to_string(),
        Access::Conditional(_) => format!("if [{}]", group.unwrap_or(0)),
        Access::Never(Never::PermissionMissing(p)) => format!("no: {p}"),
        Access::Never(Never::Ambiguous) => "no (ambiguous)".to_string(),
        Access::Never(Never::NoAllowRule) => "no (no rule)".to_string(),
        Access::Never(Never::DeniedByRule(_)) => "no (denied)".to_string(),
        Access::Never(Never::AllowsOverridden(_)) => "no (overridden)".to_string(),
    }
}

const LEGEND: &str = "\
legend:
  yes              always allowed (with the required arguments, each of its declared type)
  yes (default)    always allowed by the agent's `default allow`; no deny rule targets the tool
  if [n]           allowed under the conditions listed under [n] below
  no: PERM         never: the agent is not granted PERM, the first permission the tool needs
  no (no rule)     never: no allow rule targets the tool and the default is deny
  no (denied)      never: a deny rule fires on every call
  no (overridden)  never: every allow rule is covered by a deny rule
  no (ambiguous)   never: a server declares a tool of the same name, so no request can name this host tool
";

/// Renders the matrix as text (no colour).
///
/// # Example
///
/// ```
/// use toolgate::review::matrix::{to_text, Matrix};
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "tool t(p)\nagent a { allow t where p == \"x\" }");
/// let (policy, _) = toolgate::load::policy_from_sources(m);
/// let text = to_text(&Matrix::build(&policy));
/// assert!(text.contains("if [1]") && text.contains("p == \"x\""));
/// ```
#[allow(
    clippy::indexing_slicing,
    reason = "the matrix holds one cell per agent and tool, agent by agent, and `numbers` one entry per cell"
)]
pub fn to_text(matrix: &Matrix) -> String {
    let groups = matrix.conditional_groups();
    let numbers = Matrix::group_numbers(&groups, matrix.cells.len());
    let mut out = String::new();
    if !matrix.catalog {
        out.push_str(
            "note: the policy declares no tools (no catalog): the rows are the tools its rules \
             name (a tool no rule targets gets the agent's default); permissions are declared by \
             each request and are not judged here\n\n",
        );
    }
    let n_tools = matrix.tools.len();
    let rows: Vec<Vec<String>> = std::iter::once(
        std::iter::once("tool".to_string())
            .chain(matrix.agents.iter().cloned())
            .collect(),
    )
    .chain(matrix.tools.iter().enumerate().map(|(t, tool)| {
        std::iter::once(tool.display.clone())
            .chain((0..matrix.agents.len()).map(|a| {
                let i = a * n_tools + t;
                label(&matrix.cells[i].access, numbers[i])
            }))
            .collect()
    }))
    .collect();
    out.push_str(&grid(&rows));
    if n_tools == 0 {
        out.push_str("(no tools)\n");
    }
    out.push('\n');
    out.push_str(LEGEND);
    out.push_str(&argument_types(matrix));
    if !groups.is_empty() {
        out.push_str("\nconditions:\n");
    }
    for (g, group) in groups.iter().enumerate() {
        let cells: Vec<String> = group
            .by_agent(matrix)
            .into_iter()
            .map(|(agent, tools)| format!("{agent} on {}", tools.join(", ")))
            .collect();
        out.push_str(&format!("\n[{}] {}\n", g + 1, cells.join("; ")));
        let c = group.conditional;
        if c.default_allow {
            out.push_str("    allowed by the agent's `default allow`\n");
        } else {
            let head = if c.allows.len() == 1 {
                "    allowed when:\n"
            } else {
                "    allowed when one of:\n"
            };
            out.push_str(head);
            out.push_str(&clauses(&c.allows));
        }
        if !c.exceptions.is_empty() {
            out.push_str("    except when one of these denies fires:\n");
            out.push_str(&clauses(&c.exceptions));
        }
        for (arg, tools) in group.undeclared(matrix) {
            out.push_str(&format!(
                "    note: `{arg}` is not an argument of {}; its conditions hold unless a call passes it\n",
                tools.join(", ")
            ));
        }
    }
    out
}

/// The tools that declare argument types, one line each: a call whose argument has another
/// type is never allowed, whatever its cell says.
fn argument_types(matrix: &Matrix) -> String {
    let lines: Vec<(&str, String)> = matrix
        .tools
        .iter()
        .filter_map(|t| Some((t.display.as_str(), t.types_text()?)))
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    let width = lines
        .iter()
        .map(|(t, _)| t.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::from(
        "\nargument types (a call whose argument has another type is never allowed):\n",
    );
    for (tool, types) in lines {
        let pad = width - tool.chars().count();
        out.push_str(&format!(
            "  {tool}{}  arguments must be: {types}\n",
            " ".repeat(pad)
        ));
    }
    out
}

/// One line per clause: its conditions grouped by argument, then the rule and where it is.
fn clauses(list: &[Clause]) -> String {
    let lines: Vec<(String, String)> = list
        .iter()
        .map(|c| {
            let conds: Vec<String> = c
                .by_argument()
                .into_iter()
                .flat_map(|(_, cs)| cs.into_iter().map(|c| c.text.clone()))
                .collect();
            let text = if conds.is_empty() {
                "(every call)".to_string()
            } else {
                conds.join(" and ")
            };
            (text, format!("{}  {}", c.rule.text, c.rule.location()))
        })
        .collect();
    let width = lines
        .iter()
        .map(|(t, _)| t.chars().count())
        .max()
        .unwrap_or(0);
    lines
        .into_iter()
        .map(|(t, r)| {
            let pad = width - t.chars().count();
            format!("      {t}{}   # {r}\n", " ".repeat(pad))
        })
        .collect()
}

/// Left-aligned columns two spaces apart.
fn grid(rows: &[Vec<String>]) -> String {
    let n = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..n)
        .map(|k| {
            rows.iter()
                .filter_map(|r| r.get(k))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (k, (cell, width)) in row.iter().zip(&widths).enumerate() {
            line.push_str(cell);
            if k + 1 < row.len() {
                line.push_str(&" ".repeat(width - cell.chars().count() + 2));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
