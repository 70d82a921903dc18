//! `catalog --from gateway.toml`: starts each upstream, reads its `tools/list`, and prints the
//! matching `server NAME { tool name(args) }` declarations, descriptions as comments.
//!
//! Each argument is printed with the catalog type its `inputSchema` property states
//! ([`schema_type`]: `repo_path: string`, `files: array<string>`); a property whose type has
//! no catalog equivalent (a union, `null`, no `type` at all) is printed untyped, which the
//! language reads as `any`. An argument the schema does not require is printed `name?`.

use std::path::Path;
use std::time::Duration;

use rmcp::model::Tool;
use serde_json::Value;
use toolgate::resolve::arg_type::MAX_ARRAY_DEPTH;
use toolgate::resolve::{ArgType, BaseType};

use crate::config::{Config, UpstreamSpec};
use crate::upstream::Upstream;

/// Longest description kept in a comment, per tool, in lines.
const MAX_COMMENT_LINES: usize = 3;

/// One argument of a tool's input schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaArg {
    /// The property name.
    pub name: String,
    /// True when the schema's `required` lists it.
    pub required: bool,
    /// Its catalog type, when the schema states one the language has ([`schema_type`]).
    pub ty: Option<ArgType>,
}

impl SchemaArg {
    /// The argument as a catalog declares it: `name`, `name?`, `name: type`, `name?: type`.
    pub fn declaration(&self) -> String {
        let mark = if self.required { "" } else { "?" };
        match self.ty {
            Some(t) => format!("{}{mark}: {t}", self.name),
            None => format!("{}{mark}", self.name),
        }
    }
}

/// The catalog type of one JSON Schema property: `string`, `number`, `integer`, `boolean` and
/// `object` map to the type of that name, `array` to `array<T>` with `T` from `items` (`any`
/// when `items` is absent or has no catalog type). Anything else (a list of types, `null`,
/// `anyOf`, no `type`) is `None`: the argument stays untyped.
///
/// # Example
///
/// ```
/// use serde_json::json;
/// use toolgate_gateway::catalog::schema_type;
/// let t = schema_type(&json!({"type": "array", "items": {"type": "string"}}));
/// assert_eq!(t.unwrap().to_string(), "array<string>");
/// assert_eq!(schema_type(&json!({"type": ["string", "null"]})), None);
/// ```
pub fn schema_type(property: &Value) -> Option<ArgType> {
    let base = |base| ArgType { arrays: 0, base };
    match property.get("type")?.as_str()? {
        "string" => Some(base(BaseType::String)),
        "number" => Some(base(BaseType::Number)),
        "integer" => Some(base(BaseType::Integer)),
        "boolean" => Some(base(BaseType::Boolean)),
        "object" => Some(base(BaseType::Object)),
        "array" => {
            let inner = property
                .get("items")
                .and_then(schema_type)
                .unwrap_or(ArgType::ANY);
            if usize::from(inner.arrays) >= MAX_ARRAY_DEPTH {
                return None;
            }
            Some(ArgType {
                arrays: inner.arrays + 1,
                base: inner.base,
            })
        }
        _ => None,
    }
}

/// A tool's arguments from its input schema, required ones first, each group in the order
/// the schema object yields them.
pub fn schema_args(tool: &Tool) -> Vec<SchemaArg> {
    let required: Vec<&str> = tool
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut args: Vec<SchemaArg> = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .map(|(k, v)| SchemaArg {
                    name: k.clone(),
                    required: required.contains(&k.as_str()),
                    ty: schema_type(v),
                })
                .collect()
        })
        .unwrap_or_default();
    args.sort_by_key(|a| !a.required);
    args
}

/// The argument list a catalog declares for `tool`, as `toolgate check` accepts it.
pub fn declared_args(tool: &Tool) -> String {
    schema_args(tool)
        .iter()
        .filter(|a| is_ident(&a.name))
        .map(SchemaArg::declaration)
        .collect::<Vec<_>>()
        .join(", ")
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
        out.push_str(&format!("  tool {}({})\n", t.name, declared_args(t)));
    }
    out.push_str("}\n");
    out
}

/// Starts one upstream, lists its tools and stops it; `initialize` and `tools/list` may each
/// take up to `timeout`.
///
/// # Errors
///
/// Why the upstream could not be started or listed in time.
pub async fn list_once(spec: &UpstreamSpec, timeout: Duration) -> Result<Vec<Tool>, String> {
    let (session, tools, _) = Upstream::connect(spec, timeout).await?;
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
        match list_once(spec, config.limits.upstream_start_timeout).await {
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

    fn tool(name: &str, desc: &str, schema: serde_json::Value) -> Tool {
        Tool::new(
            name.to_string(),
            desc.to_string(),
            Arc::new(schema.as_object().unwrap().clone()),
        )
    }

    #[test]
    fn rendered_catalog_is_a_loadable_policy() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"repo_path": {"type": "string"}, "max_count": {"type": "integer"}},
            "required": ["repo_path"]
        });
        let tools = vec![
            tool("git_log", "Shows the commit logs\n\nwith details", schema),
            tool("git_status", "", serde_json::json!({})),
        ];
        let text = render_server("git", &tools);
        assert!(text.contains("  # Shows the commit logs\n  # with details\n"));
        assert!(
            text.contains("tool git_log(repo_path: string, max_count?: integer)"),
            "{text}"
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

    #[test]
    fn each_schema_type_maps_to_its_catalog_type_and_the_rest_stays_untyped() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "s": {"type": "string"},
                "n": {"type": "number"},
                "i": {"type": "integer"},
                "b": {"type": "boolean"},
                "o": {"type": "object", "properties": {"x": {"type": "string"}}},
                "files": {"type": "array", "items": {"type": "string"}},
                "grid": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
                "bag": {"type": "array"},
                "mixed": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
                "union": {"type": ["string", "null"]},
                "opt": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
                "nul": {"type": "null"},
                "untyped": {"description": "anything"}
            },
            "required": ["s", "files", "union"]
        });
        let t = tool("t", "", schema);
        let args: Vec<String> = schema_args(&t).iter().map(SchemaArg::declaration).collect();
        // Required first, then the rest, each group in the schema object's order.
        let (required, optional) = args.split_at(3);
        let mut required = required.to_vec();
        required.sort();
        assert_eq!(required, ["files: array<string>", "s: string", "union"]);
        let mut optional = optional.to_vec();
        optional.sort();
        assert_eq!(
            optional,
            [
                "b?: boolean",
                "bag?: array<any>",
                "grid?: array<array<integer>>",
                "i?: integer",
                "mixed?: array<any>",
                "n?: number",
                "nul?",
                "o?: object",
                "opt?",
                "untyped?",
            ]
        );

        // The printed catalog loads and `check`'s lints find nothing wrong with it, and the
        // declared types are the ones the engine enforces.
        let policy = format!(
            "{}agent a {{ allow srv.t }}\n",
            render_server("srv", std::slice::from_ref(&t))
        );
        let mut m = toolgate::source::SourceMap::new();
        m.add("catalog.policy", policy.as_str());
        let (resolved, diags) = toolgate::load::policy_from_sources(m);
        assert!(diags.is_empty(), "{policy}");
        let lints = toolgate::lint::run(&resolved, &[]);
        assert_eq!(lints.error_count(), 0, "{policy}");
        let engine = toolgate::load::engine_from_str("catalog.policy", &policy).unwrap();
        let call = |args: serde_json::Value| {
            engine.decide(&toolgate::Request::new("a", "t").server("srv").args(args))
        };
        let ok = serde_json::json!({"s": "x", "files": ["a"], "union": null, "grid": [[1]]});
        assert!(call(ok).is_allowed());
        let bad = serde_json::json!({"s": "x", "files": ["a", 1], "union": null});
        assert!(!call(bad).is_allowed());
        let bad = serde_json::json!({"s": "x", "files": [], "union": 1, "i": 2.5});
        assert!(!call(bad).is_allowed());
    }

    #[test]
    fn too_many_array_levels_fall_back_to_any_inside() {
        let mut prop = serde_json::json!({"type": "string"});
        for _ in 0..(MAX_ARRAY_DEPTH + 2) {
            prop = serde_json::json!({"type": "array", "items": prop});
        }
        let t = schema_type(&prop).unwrap();
        assert!(usize::from(t.arrays) <= MAX_ARRAY_DEPTH);
        let text = format!("tool t(a: {t})\nagent x {{ allow t }}\n");
        assert!(
            toolgate::load::engine_from_str("p.policy", &text).is_ok(),
            "{text}"
        );
    }
}
