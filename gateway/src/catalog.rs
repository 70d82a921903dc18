//! `catalog --from gateway.toml`: starts each upstream, reads its `tools/list`, and prints the
//! matching `server NAME { tool name(args) }` declarations, descriptions as comments.
//!
//! Arguments are printed untyped (the language has no argument types); an argument the tool's
//! `inputSchema` does not require is printed `name?`.

use std::path::Path;

use rmcp::model::Tool;
use serde_json::Value;

use crate::config::{Config, UpstreamSpec};
use crate::upstream::Upstream;

/// Longest description kept in a comment, per tool, in lines.
const MAX_COMMENT_LINES: usize = 3;

/// A tool's arguments from its input schema: `(name, required)`, required ones first, each
/// group in the order the schema object yields them.
pub fn schema_args(tool: &Tool) -> Vec<(String, bool)> {
    let required: Vec<&str> = tool
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut args: Vec<(String, bool)> = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .keys()
                .map(|k| (k.clone(), required.contains(&k.as_str())))
                .collect()
        })
        .unwrap_or_default();
    args.sort_by_key(|(_, required)| !required);
    args
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The declaration of one server's tools.
pub fn render_server(server: &str, tools: &[Tool]) -> String {
    let mut out = format!("server {server} {{\n");
    for t in tools {
        if let Some(desc) = &t.description {
            for line in desc
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .take(MAX_COMMENT_LINES)
            {
                out.push_str(&format!("  # {line}\n"));
            }
        }
        if !is_ident(&t.name) {
            out.push_str(&format!(
                "  # skipped `{}`: not a name the policy language accepts\n",
                t.name
            ));
            continue;
        }
        let args: Vec<String> = schema_args(t)
            .into_iter()
            .filter(|(n, _)| is_ident(n))
            .map(|(n, req)| if req { n } else { format!("{n}?") })
            .collect();
        out.push_str(&format!("  tool {}({})\n", t.name, args.join(", ")));
    }
    out.push_str("}\n");
    out
}

/// Starts one upstream, lists its tools and stops it.
///
/// # Errors
///
/// Why the upstream could not be started or listed.
pub async fn list_once(spec: &UpstreamSpec) -> Result<Vec<Tool>, String> {
    let (session, tools, _) = Upstream::connect(spec).await?;
    let _ = session.cancel().await;
    Ok(tools)
}

/// Runs `catalog --from`; returns the exit code.
pub async fn run(config_path: &Path) -> i32 {
    let config = match Config::load(config_path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let mut code = 0;
    let mut first = true;
    for (name, spec) in &config.upstreams {
        match list_once(spec).await {
            Ok(tools) => {
                if !first {
                    println!();
                }
                first = false;
                print!("{}", render_server(name, &tools));
            }
            Err(e) => {
                eprintln!("error: upstream `{name}`: {e}");
                code = 1;
            }
        }
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn rendered_catalog_is_a_loadable_policy() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"repo_path": {"type": "string"}, "max_count": {"type": "integer"}},
            "required": ["repo_path"]
        });
        let tools = vec![
            Tool::new(
                "git_log",
                "Shows the commit logs\n\nwith details",
                Arc::new(schema.as_object().unwrap().clone()),
            ),
            Tool::new("git_status", "", Arc::new(serde_json::Map::new())),
        ];
        let text = render_server("git", &tools);
        assert!(text.contains("  # Shows the commit logs\n  # with details\n"));
        assert!(
            text.contains("tool git_log(max_count?, repo_path)")
                || text.contains("tool git_log(repo_path, max_count?)")
        );
        assert!(text.contains("tool git_status()"));
        let policy = format!("{text}agent a {{ allow git.git_log }}\n");
        let engine = toolgate::load::engine_from_str("catalog.policy", &policy).unwrap();
        let seen: Vec<String> = engine
            .visible_tools("a")
            .unwrap()
            .iter()
            .map(|t| t.to_string())
            .collect();
        assert_eq!(seen, ["git.git_log"]);
    }
}
