//! `catalog --from gateway.toml`: starts each upstream, reads its `tools/list`, and prints the
//! matching `server NAME { tool name(args) }` declarations, descriptions as comments.
//!
//! Each argument is printed with the catalog type its `inputSchema` property states
//! ([`schema_type`]: `repo_path: string`, `files: array<string>`); a property whose type has
//! no catalog equivalent (a union, `null`, no `type` at all) is printed untyped, which the
//! language reads as `any`. An argument the schema does not require is printed `name?`.
//! Required arguments come first. Names the language does not accept bare (`git.status`,
//! `has space`, `héllo`, `1st-tool`) are printed quoted ([`toolgate::syntax::name_text`]), the
//! server name too; a tool the upstream lists twice is printed once, with a comment saying so.

use std::path::Path;
use std::time::Duration;

use rmcp::model::Tool;
use serde_json::Value;
use toolgate::resolve::arg_type::MAX_ARRAY_DEPTH;
use toolgate::resolve::{ArgType, BaseType};
use toolgate::syntax::{name_text, quoted};

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
        let name = name_text(&self.name);
        match self.ty {
            Some(t) => format!("{name}{mark}: {t}"),
            None => format!("{name}{mark}"),
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
/// the schema object yields them (by name: the MCP library reads the schema into a sorted map,
/// so the order the server wrote is not available).
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

/// The argument list a catalog declares for `tool`, as `toolgate check` accepts it (an
/// argument with an empty name, which the language cannot declare, is left out).
pub fn declared_args(tool: &Tool) -> String {
    schema_args(tool)
        .iter()
        .filter(|a| !a.name.is_empty())
        .map(SchemaArg::declaration)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The declaration of one tool, `tool NAME(ARGS)`, as `toolgate check` accepts it.
pub fn tool_declaration(tool: &Tool) -> String {
    format!("tool {}({})", name_text(&tool.name), declared_args(tool))
}

/// A name as a TOML key: bare when TOML accepts it so (`[A-Za-z0-9_-]+`), otherwise quoted
/// (`[upstream."my.server"]`).
pub fn toml_key(name: &str) -> String {
    if !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        name.to_string()
    } else {
        quoted(name)
    }
}

/// The names of the tools a list holds more than once, each once, in list order.
pub fn listed_twice(tools: &[Tool]) -> Vec<&str> {
    let mut seen = std::collections::HashSet::new();
    let mut twice = Vec::new();
    for t in tools {
        let name: &str = t.name.as_ref();
        if !seen.insert(name) && !twice.contains(&name) {
            twice.push(name);
        }
    }
    twice
}

/// The declaration of one server's tools. A tool listed twice is declared once (the first
/// listing), with a comment saying so; a tool with an empty name is skipped with a comment.
pub fn render_server(server: &str, tools: &[Tool]) -> String {
    let mut out = format!("server {} {{\n", name_text(server));
    let twice = listed_twice(tools);
    let mut printed = std::collections::HashSet::new();
    for t in tools {
        let name: &str = t.name.as_ref();
        if !printed.insert(name) {
            continue;
        }
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
        if name.is_empty() {
            out.push_str("  # skipped a tool with an empty name: the language cannot declare it\n");
            continue;
        }
        if twice.contains(&name) {
            out.push_str(
                "  # listed more than once by the upstream; declared once, from its first listing\n",
            );
        }
        out.push_str(&format!("  {}\n", tool_declaration(t)));
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
                for t in listed_twice(&tools) {
                    eprintln!(
                        "warning: upstream `{name}` lists tool `{}` more than once; it is declared once",
                        crate::log::shown_name(t)
                    );
                }
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

    /// A fuzzer's find: a server name with a raw U+0084 (a C1 control character, which
    /// serde_json leaves unescaped and the language refuses raw) printed a catalog that did
    /// not load. Input: the server name, a newline, the `tools/list` result.
    #[test]
    fn a_catalog_with_control_characters_in_names_loads() {
        let input =
            include_bytes!("../../tests/regressions/fuzz/catalog_import-crash-a2d8e766.bin");
        let text = String::from_utf8_lossy(input);
        let (server, json) = text.split_once('\n').unwrap();
        let list: rmcp::model::ListToolsResult = serde_json::from_str(json).unwrap();
        let printed = render_server(server, &list.tools);
        toolgate::load::engine_from_str("catalog.policy", &printed).unwrap();
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
        // Required first, then the rest, each group by name.
        assert_eq!(
            args,
            [
                "files: array<string>",
                "s: string",
                "union",
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

    #[test]
    fn names_that_need_quotes_are_quoted_and_a_tool_listed_twice_is_printed_once() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "zeta": {"type": "string"},
                "has space": {"type": "string"},
                "a.b": {"type": "integer"},
                "héllo": {},
                "alpha": {"type": "boolean"}
            },
            "required": ["has space", "alpha"]
        });
        let tools = vec![
            tool("git.status", "", schema.clone()),
            tool("héllo_wörld", "", serde_json::json!({})),
            tool("has space", "", serde_json::json!({})),
            tool("1st-tool", "", serde_json::json!({})),
            tool("quote\"d\u{7f}", "", serde_json::json!({})),
            tool("git.status", "", schema),
            tool("", "", serde_json::json!({})),
        ];
        let text = render_server("my.server", &tools);
        assert!(text.starts_with("server \"my.server\" {"), "{text}");
        assert!(
            text.contains("tool \"git.status\"(alpha: boolean, \"has space\": string, \"a.b\"?: integer, \"héllo\"?, zeta?: string)"),
            "{text}"
        );
        assert_eq!(text.matches("tool \"git.status\"").count(), 1, "{text}");
        assert!(text.contains("listed more than once"), "{text}");
        for name in ["\"héllo_wörld\"()", "\"has space\"()", "\"1st-tool\"()"] {
            assert!(text.contains(name), "{name}: {text}");
        }
        let policy = format!(
            "{text}agent a {{ allow \"my.server\".\"git.status\" where \"has space\" == \"x\" }}\n"
        );
        let engine = toolgate::load::engine_from_str("catalog.policy", &policy).unwrap();
        let seen: Vec<String> = engine
            .visible_tools("a")
            .unwrap()
            .iter()
            .map(|t| t.tool.clone())
            .collect();
        assert_eq!(seen, ["git.status"]);
        let call = |args: serde_json::Value| {
            engine.decide(
                &toolgate::Request::new("a", "git.status")
                    .server("my.server")
                    .args(args),
            )
        };
        assert!(call(serde_json::json!({"has space": "x", "alpha": true})).is_allowed());
        assert!(!call(serde_json::json!({"has space": "x"})).is_allowed());
        assert_eq!(toml_key("my.server"), "\"my.server\"");
        assert_eq!(toml_key("git-2_x"), "git-2_x");
        assert_eq!(listed_twice(&tools), ["git.status"]);
    }
}
