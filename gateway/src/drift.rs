//! `check --against gateway.toml POLICY...`: catalog drift as diagnostics on the policy.
//!
//! Each upstream is started and its `tools/list` read. Reported, with did-you-mean:
//! `toolgate::drift_tool_missing_upstream` (error: the catalog declares a tool the upstream
//! lacks), `toolgate::drift_tool_not_in_catalog` (warning: the upstream offers a tool the
//! catalog lacks; it is never listed or callable), `toolgate::drift_required_argument_undeclared`
//! (error: the inputSchema requires an argument the catalog does not declare),
//! `toolgate::drift_argument_not_in_schema` (warning: the catalog declares an argument the
//! schema lacks), `toolgate::drift_argument_optionality` (warning: the catalog requires an
//! argument the schema makes optional), `toolgate::drift_argument_type` (warning: the catalog
//! declares a type the schema's type disagrees with, see [`types_agree`]),
//! `toolgate::drift_server_without_upstream` (error), `toolgate::drift_tool_name_collision`
//! (error: one name would reach two tools the upstreams offer, see [`crate::naming`]; the
//! gateway withholds both).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rmcp::model::Tool;
use toolgate::diagnostic::code;
use toolgate::resolve::Policy;
use toolgate::{Diagnostic, Diagnostics};

use toolgate::resolve::{ArgType, BaseType};
use toolgate::syntax::name_text;

use crate::catalog::{list_once, listed_twice, schema_args, toml_key, tool_declaration};
use crate::config::Config;

/// The closest candidate to `name`, the way `toolgate check` suggests names.
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    toolgate::resolve::suggest::did_you_mean(name, candidates)
}

/// True when a declared catalog type and the type an upstream schema states agree: equal, or
/// `path` against `string` (a path is a string), or `any` on either side where the other has
/// as many `array<...>` levels or more (`array` declared for `array<string>` upstream, say).
///
/// # Example
///
/// ```
/// use toolgate::resolve::{ArgType, BaseType};
/// use toolgate_gateway::drift::types_agree;
/// let t = |arrays, base| ArgType { arrays, base };
/// assert!(types_agree(t(0, BaseType::Path), t(0, BaseType::String)));
/// assert!(types_agree(t(1, BaseType::Any), t(1, BaseType::String)));
/// assert!(!types_agree(t(0, BaseType::Number), t(0, BaseType::String)));
/// assert!(!types_agree(t(0, BaseType::Integer), t(0, BaseType::Number)));
/// ```
pub fn types_agree(declared: ArgType, upstream: ArgType) -> bool {
    let norm = |b: BaseType| {
        if b == BaseType::Path {
            BaseType::String
        } else {
            b
        }
    };
    let (d, u) = (norm(declared.base), norm(upstream.base));
    match declared.arrays.cmp(&upstream.arrays) {
        std::cmp::Ordering::Equal => d == u || d == BaseType::Any || u == BaseType::Any,
        std::cmp::Ordering::Less => d == BaseType::Any,
        std::cmp::Ordering::Greater => u == BaseType::Any,
    }
}

fn with_suggestion(d: Diagnostic, suggestion: Option<&str>) -> Diagnostic {
    match suggestion {
        Some(s) => d.with_help(format!("did you mean `{s}`?")),
        None => d,
    }
}

/// Compares the policy's catalog with each upstream's tools (`None` = the upstream is not
/// configured).
pub fn diagnose(
    policy: &Policy,
    upstream_tools: &BTreeMap<String, Option<Vec<Tool>>>,
) -> Diagnostics {
    let mut out = Diagnostics::new();
    // The declared tools the upstreams offer, which the gateway may show: one name must not
    // reach two of them.
    let mut offered = Vec::new();
    for def in &policy.tools {
        let Some(server) = def.server.and_then(|i| policy.servers.get(i)) else {
            continue;
        };
        if let Some(Some(tools)) = upstream_tools.get(&server.name) {
            if tools.iter().any(|t| t.name == def.name) {
                offered.push((server.name.as_str(), def.name.as_str(), def.span));
            }
        }
    }
    for c in crate::naming::collisions(offered.iter().map(|(s, t, _)| (*s, *t))) {
        let span = offered
            .iter()
            .find(|(s, t, _)| *s == c.second.server && *t == c.second.tool)
            .map(|o| o.2);
        if let Some(span) = span {
            out.push(
                Diagnostic::new(&code::DRIFT_TOOL_NAME_COLLISION, span, c.message())
                    .with_label(format!("`{}` also names another upstream's tool", c.name)),
            );
        }
    }
    for (si, server) in policy.servers.iter().enumerate() {
        let declared: Vec<&toolgate::resolve::ToolDef> = policy
            .tools
            .iter()
            .filter(|t| t.server == Some(si))
            .collect();
        let Some(Some(tools)) = upstream_tools.get(&server.name) else {
            if !upstream_tools.contains_key(&server.name) {
                out.push(with_suggestion(
                    Diagnostic::new(
                        &code::DRIFT_SERVER_WITHOUT_UPSTREAM,
                        server.span,
                        format!(
                            "server `{}` has no `[upstream.{}]` in the gateway config",
                            server.name,
                            toml_key(&server.name)
                        ),
                    )
                    .with_label("no upstream serves this"),
                    did_you_mean(&server.name, upstream_tools.keys().map(String::as_str)),
                ));
            }
            continue;
        };
        for def in &declared {
            let Some(up) = tools.iter().find(|t| t.name == def.name) else {
                out.push(with_suggestion(
                    Diagnostic::new(
                        &code::DRIFT_TOOL_MISSING_UPSTREAM,
                        def.span,
                        format!("upstream `{}` has no tool `{}`", server.name, def.name),
                    )
                    .with_label("declared here, not offered upstream"),
                    did_you_mean(&def.name, tools.iter().map(|t| t.name.as_ref())),
                ));
                continue;
            };
            let Some(params) = &def.params else { continue };
            let schema = schema_args(up);
            for arg in &schema {
                let (arg, required) = (&arg.name, arg.required);
                if required && params.iter().all(|p| &p.name != arg) {
                    out.push(with_suggestion(
                        Diagnostic::new(
                            &code::DRIFT_REQUIRED_ARGUMENT_UNDECLARED,
                            def.span,
                            format!("`{}.{}` requires argument `{arg}` upstream, which the catalog does not declare", server.name, def.name),
                        )
                        .with_label(format!("add `{}` here", name_text(arg))),
                        did_you_mean(arg, params.iter().map(|p| p.name.as_str())),
                    ));
                }
            }
            for p in params {
                let upstream = schema.iter().find(|a| a.name == p.name);
                if let Some(ty) = upstream.and_then(|a| a.ty) {
                    if !p.ty.is_any() && !types_agree(p.ty, ty) {
                        out.push(
                            Diagnostic::new(
                                &code::DRIFT_ARGUMENT_TYPE,
                                p.ty_span.unwrap_or(def.span),
                                format!("`{}.{}` declares `{}: {}`, but the upstream's inputSchema types it `{ty}`", server.name, def.name, p.name, p.ty),
                            )
                            .with_label("disagrees with the upstream schema")
                            .with_help(format!("the upstream type is `{ty}`: write `{}{}: {ty}`", name_text(&p.name), if p.optional { "?" } else { "" })),
                        );
                    }
                }
                match upstream.map(|a| a.required) {
                    None => out.push(with_suggestion(
                        Diagnostic::new(
                            &code::DRIFT_ARGUMENT_NOT_IN_SCHEMA,
                            def.span,
                            format!("`{}.{}` declares argument `{}`, which the upstream's inputSchema lacks", server.name, def.name, p.name),
                        )
                        .with_label("not in the upstream schema"),
                        did_you_mean(&p.name, schema.iter().map(|a| a.name.as_str())),
                    )),
                    Some(false) if !p.optional => out.push(
                        Diagnostic::new(
                            &code::DRIFT_ARGUMENT_OPTIONALITY,
                            def.span,
                            format!("`{}.{}` declares `{}` required, but the upstream makes it optional", server.name, def.name, p.name),
                        )
                        .with_help(format!("write `{}?`", name_text(&p.name))),
                    ),
                    _ => {}
                }
            }
        }
        for name in listed_twice(tools) {
            out.push(
                Diagnostic::new(
                    &code::DRIFT_TOOL_LISTED_TWICE,
                    server.span,
                    format!(
                        "upstream `{}` lists tool `{}` more than once; the gateway uses its first listing",
                        server.name,
                        crate::log::shown_name(name)
                    ),
                )
                .with_label("an upstream list with a repeated tool"),
            );
        }
        let mut reported = std::collections::HashSet::new();
        for t in tools {
            let name: &str = t.name.as_ref();
            if declared.iter().all(|d| d.name != t.name) && reported.insert(name) {
                let declaration = tool_declaration(t);
                let d = Diagnostic::new(
                    &code::DRIFT_TOOL_NOT_IN_CATALOG,
                    server.span,
                    format!("upstream `{}` offers tool `{}`, which the catalog lacks (it is never listed or callable)", server.name, t.name),
                )
                .with_label("not declared in this server");
                let suggestion = did_you_mean(&t.name, declared.iter().map(|d| d.name.as_str()));
                out.push(match suggestion {
                    Some(s) => d.with_help(format!(
                        "did you mean `{s}`? otherwise declare `{declaration}`"
                    )),
                    None => d.with_help(format!("declare `{declaration}` to make it callable")),
                });
            }
        }
    }
    out
}

/// Runs `check --against`; returns the exit code (0 clean, 1 findings, 2 usage or I/O).
pub async fn run(config_path: &Path, policy_paths: &[PathBuf]) -> i32 {
    let config = match Config::load(config_path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let loaded = match toolgate::load::engine_from_paths(policy_paths) {
        Ok(l) => l,
        Err(toolgate::load::LoadFailure::Policy(e)) => {
            eprint!("{e}");
            return 1;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let Some(policy) = loaded.policy else {
        eprintln!(
            "error: `check --against` needs policy source (a bundle carries no catalog spans)"
        );
        return 2;
    };
    let mut upstream_tools = BTreeMap::new();
    let mut failed = false;
    for (name, spec) in &config.upstreams {
        match list_once(spec, config.limits.upstream_start_timeout).await {
            Ok(tools) => {
                upstream_tools.insert(name.clone(), Some(tools));
            }
            Err(e) => {
                eprintln!("error: upstream `{name}`: {e}");
                upstream_tools.insert(name.clone(), None);
                failed = true;
            }
        }
    }
    let found = diagnose(&policy, &upstream_tools);
    if !found.is_empty() {
        eprint!("{}", found.render(&policy.sources, false, 100));
    }
    eprintln!(
        "{} errors, {} warnings",
        found.error_count(),
        found.warning_count()
    );
    if failed || !found.is_empty() {
        1
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn tool(name: &str, props: &[&str], required: &[&str]) -> Tool {
        let props: serde_json::Map<String, serde_json::Value> = props
            .iter()
            .map(|p| (p.to_string(), serde_json::json!({"type": "string"})))
            .collect();
        let schema =
            serde_json::json!({"type": "object", "properties": props, "required": required});
        Tool::new(
            name.to_string(),
            "",
            Arc::new(schema.as_object().unwrap().clone()),
        )
    }

    #[test]
    fn reports_each_kind_of_drift_with_suggestions() {
        let mut m = toolgate::source::SourceMap::new();
        m.add(
            "p.policy",
            "server git {\n tool git_logg(repo_path)\n tool git_status(repo_pth, extra)\n tool git_show(repo_path, revision)\n}\nserver web { tool fetch(url) }\n",
        );
        let (policy, _) = toolgate::load::policy_from_sources(m);
        let mut ups = BTreeMap::new();
        ups.insert(
            "git".to_string(),
            Some(vec![
                tool("git_log", &["repo_path"], &["repo_path"]),
                tool("git_status", &["repo_path"], &["repo_path"]),
                tool("git_show", &["repo_path", "revision"], &["repo_path"]),
            ]),
        );
        let found = diagnose(&policy, &ups);
        let codes: Vec<(&str, String)> = found
            .iter()
            .map(|d| (d.code, d.help.clone().unwrap_or_default()))
            .collect();
        let has =
            |code: &str, help: &str| codes.iter().any(|(c, h)| *c == code && h.contains(help));
        assert!(
            has(
                code::DRIFT_TOOL_MISSING_UPSTREAM.code,
                "did you mean `git_log`?"
            ),
            "{codes:?}"
        );
        assert!(
            has(
                code::DRIFT_TOOL_NOT_IN_CATALOG.code,
                "did you mean `git_logg`?"
            ),
            "{codes:?}"
        );
        assert!(
            has(
                code::DRIFT_REQUIRED_ARGUMENT_UNDECLARED.code,
                "did you mean `repo_pth`?"
            ),
            "{codes:?}"
        );
        assert!(
            has(
                code::DRIFT_ARGUMENT_NOT_IN_SCHEMA.code,
                "did you mean `repo_path`?"
            ),
            "{codes:?}"
        );
        assert!(
            has(code::DRIFT_ARGUMENT_OPTIONALITY.code, "`revision?`"),
            "{codes:?}"
        );
        assert!(
            has(code::DRIFT_SERVER_WITHOUT_UPSTREAM.code, ""),
            "{codes:?}"
        );
        assert_eq!(codes.len(), 7, "{codes:?}");
    }

    #[test]
    fn a_declared_type_the_schema_disagrees_with_is_a_warning_with_the_upstream_type() {
        let mut m = toolgate::source::SourceMap::new();
        m.add(
            "p.policy",
            "server git {\n tool git_log(repo_path: path, max_count?: string, since?: number, files?: array, flag?)\n}\n",
        );
        let (policy, diags) = toolgate::load::policy_from_sources(m);
        assert!(diags.is_empty());
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "repo_path": {"type": "string"},
                "max_count": {"type": "integer"},
                "since": {"type": ["string", "null"]},
                "files": {"type": "array", "items": {"type": "string"}},
                "flag": {"type": "boolean"}
            },
            "required": ["repo_path"]
        });
        let up = Tool::new("git_log", "", Arc::new(schema.as_object().unwrap().clone()));
        let mut ups = BTreeMap::new();
        ups.insert("git".to_string(), Some(vec![up]));
        let found = diagnose(&policy, &ups);
        let typed: Vec<&Diagnostic> = found
            .iter()
            .filter(|d| d.code == code::DRIFT_ARGUMENT_TYPE.code)
            .collect();
        // Only `max_count` disagrees: `path` is a string, `since` has no single type upstream,
        // `array` holds any element, and an untyped `flag` checks nothing.
        assert_eq!(typed.len(), 1, "{:?}", found.iter().collect::<Vec<_>>());
        let d = typed[0];
        assert_eq!(d.severity, toolgate::Severity::Warning);
        assert!(d.message.contains("`max_count: string`"), "{}", d.message);
        assert!(
            d.help.as_deref().unwrap_or("").contains("`integer`"),
            "{:?}",
            d.help
        );
        assert_eq!(found.iter().count(), 1);
        // The warning points at the written type.
        let text = found.render(&policy.sources, false, 100);
        assert!(text.contains("max_count?: string"), "{text}");
    }

    #[test]
    fn a_name_that_reaches_two_offered_tools_is_an_error() {
        let mut m = toolgate::source::SourceMap::new();
        m.add(
            "p.policy",
            "server aaa { tool \"git.echo\"(text) }\nserver git { tool echo(text) }\n",
        );
        let (policy, diags) = toolgate::load::policy_from_sources(m);
        assert!(diags.is_empty());
        let mut ups = BTreeMap::new();
        ups.insert(
            "aaa".to_string(),
            Some(vec![tool("git.echo", &["text"], &["text"])]),
        );
        ups.insert(
            "git".to_string(),
            Some(vec![tool("echo", &["text"], &["text"])]),
        );
        let found = diagnose(&policy, &ups);
        let hits: Vec<&Diagnostic> = found
            .iter()
            .filter(|d| d.code == code::DRIFT_TOOL_NAME_COLLISION.code)
            .collect();
        assert_eq!(hits.len(), 1, "{:?}", found.iter().collect::<Vec<_>>());
        assert_eq!(hits[0].severity, toolgate::Severity::Error);
        assert!(
            hits[0].message.contains("`aaa`") && hits[0].message.contains("`git`"),
            "{}",
            hits[0].message
        );
        assert_eq!(found.iter().count(), 1);
    }

    #[test]
    fn drift_help_declares_tools_in_text_that_parses() {
        let mut m = toolgate::source::SourceMap::new();
        m.add(
            "p.policy",
            "server \"my.server\" { tool \"git.status\"(\"has space\") }\n",
        );
        let (policy, diags) = toolgate::load::policy_from_sources(m);
        assert!(diags.is_empty());
        let mut ups = BTreeMap::new();
        ups.insert(
            "my.server".to_string(),
            Some(vec![
                tool("git.status", &["has space", "a.b"], &["has space", "a.b"]),
                tool("1st tool", &["x.y"], &[]),
            ]),
        );
        let found = diagnose(&policy, &ups);
        let helps: Vec<String> = found.iter().filter_map(|d| d.help.clone()).collect();
        let declared: Vec<&String> = helps.iter().filter(|h| h.contains("declare")).collect();
        assert_eq!(declared.len(), 1, "{helps:?}");
        let decl = declared[0].split('`').nth(1).unwrap();
        assert_eq!(decl, "tool \"1st tool\"(\"x.y\"?: string)");
        let text = format!("server \"my.server\" {{ {decl} }}\n");
        assert!(
            toolgate::load::engine_from_str("d.policy", &text).is_ok(),
            "{text}"
        );
        let labels: Vec<&str> = found.iter().map(|d| d.label.as_str()).collect();
        assert!(labels.contains(&"add `\"a.b\"` here"), "{labels:?}");
    }
}
