//! The effective-permission matrix (`review::matrix`): the classification agrees with the
//! engine on sampled requests (a property test over random small policies), and pinned cells
//! (the `toolgate matrix` command is tested in cli/tests/matrix.rs).
//!
//! `TOOLGATE_PROPTEST_CASES=N` sets the number of generated policies (default 300).

use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Map, Value};
use toolgate::review::matrix::{Access, Always, Matrix, Never};
use toolgate::source::SourceMap;

// ---------------------------------------------------------------------------------------
// random policies

/// Conditions of several kinds, on the arguments `path`, `cmd`, `n`, `mode`.
const CONDITIONS: &[&str] = &[
    r#"path matches "/srv/**""#,
    r#"path matches "/srv/*.txt""#,
    r#"path matches "/etc/**""#,
    r#"path == "/srv/a""#,
    r#"path != "/srv/a""#,
    r#"path matches "*.txt""#,
    r#"path present"#,
    r#"cmd matches shell "git log ...""#,
    r#"cmd matches shell "rm -{r,f} ...""#,
    r#"cmd contains "rm""#,
    r#"cmd contains any ["sudo", "curl"]"#,
    r#"cmd matches re"^ls( |$)""#,
    r#"cmd present"#,
    r#"n <= 5"#,
    r#"n > 2"#,
    r#"n != 3"#,
    r#"mode in ["r", "w"]"#,
    r#"mode != "r""#,
    r#"mode matches "r*""#,
    r#"mode present"#,
];

/// Values the conditions are about, and traps near them.
const STRINGS: &[&str] = &[
    "/srv/a",
    "/srv/a.txt",
    "/srv/b/c.txt",
    "/srv",
    "/etc/passwd",
    "/srv/../etc/passwd",
    "srv/a",
    "a.txt",
    "",
    "r",
    "w",
    "rw",
    "git log -1",
    "git log; rm -rf /",
    "rm -rf /",
    "rm -f x",
    "ls -l",
    "ls",
    "sudo ls",
    "echo $(curl x)",
    "$CMD -rf /",
    "python -c 'import os'",
    "ls *",
];

const PARAMS: &[&str] = &["path", "cmd", "n", "mode"];
/// Declared argument types: every base type and arrays of them, nested ones included.
const TYPES: &[&str] = &[
    "string",
    "number",
    "integer",
    "boolean",
    "path",
    "object",
    "any",
    "array<string>",
    "array<path>",
    "array<integer>",
    "array<array<number>>",
    "array<object>",
];
const PERMS: &[&str] = &["fs:read", "fs:write", "proc:exec", "net:http"];
const TOOL_NAMES: &[&str] = &["read", "write", "run", "status"];

#[derive(Debug, Clone)]
struct ToolM {
    server: Option<&'static str>,
    name: &'static str,
    /// (name, optional, declared type)
    params: Vec<(&'static str, bool, Option<&'static str>)>,
    needs: Vec<&'static str>,
}

#[derive(Debug, Clone)]
struct RuleM {
    deny: bool,
    target: String,
    conds: Vec<&'static str>,
}

#[derive(Debug, Clone)]
struct AgentM {
    name: &'static str,
    grants: Vec<&'static str>,
    default_allow: bool,
    rules: Vec<RuleM>,
}

#[derive(Debug, Clone)]
struct PolicyM {
    tools: Vec<ToolM>,
    agents: Vec<AgentM>,
}

impl PolicyM {
    fn render(&self) -> String {
        let mut out = String::new();
        let render_tool = |t: &ToolM| {
            let params: Vec<String> = t
                .params
                .iter()
                .map(|(p, opt, ty)| {
                    let ty = ty.map(|t| format!(": {t}")).unwrap_or_default();
                    format!("{p}{}{ty}", if *opt { "?" } else { "" })
                })
                .collect();
            let needs = if t.needs.is_empty() {
                String::new()
            } else {
                format!(" needs {}", t.needs.join(", "))
            };
            format!("tool {}({}){needs}\n", t.name, params.join(", "))
        };
        for server in ["git", "db"] {
            let tools: Vec<&ToolM> = self
                .tools
                .iter()
                .filter(|t| t.server == Some(server))
                .collect();
            if !tools.is_empty() {
                out.push_str(&format!("server {server} {{\n"));
                for t in tools {
                    out.push_str("  ");
                    out.push_str(&render_tool(t));
                }
                out.push_str("}\n");
            }
        }
        for t in self.tools.iter().filter(|t| t.server.is_none()) {
            out.push_str(&render_tool(t));
        }
        for a in &self.agents {
            out.push_str(&format!("agent {} {{\n", a.name));
            if !a.grants.is_empty() {
                out.push_str(&format!("  grant {}\n", a.grants.join(", ")));
            }
            if a.default_allow {
                out.push_str("  default allow\n");
            }
            for r in &a.rules {
                let effect = if r.deny { "deny" } else { "allow" };
                let conds = if r.conds.is_empty() {
                    String::new()
                } else {
                    format!(" where {}", r.conds.join(" and "))
                };
                out.push_str(&format!("  {effect} {}{conds}\n", r.target));
            }
            out.push_str("}\n");
        }
        out
    }

    /// Targets that name declared things (or, without a catalog, anything).
    fn targets(tools: &[ToolM]) -> Vec<String> {
        let mut out = vec!["*".to_string()];
        if tools.is_empty() {
            out.extend(
                [
                    "read", "run", "git.read", "git.*", "*.status", "r*", "db.run",
                ]
                .iter()
                .map(|s| s.to_string()),
            );
            return out;
        }
        for t in tools {
            out.push(t.name.to_string());
            if let Some(s) = t.server {
                out.push(format!("{s}.{}", t.name));
                out.push(format!("{s}.*"));
                out.push(format!("*.{}", t.name));
            }
        }
        out.push("r*".to_string());
        out.sort();
        out.dedup();
        out
    }
}

fn tool() -> impl Strategy<Value = ToolM> {
    (
        prop_oneof![2 => Just(Some("git")), 1 => Just(Some("db")), 2 => Just(None)],
        select(TOOL_NAMES.to_vec()),
        proptest::sample::subsequence(PARAMS.to_vec(), 0..=4),
        proptest::collection::vec(any::<bool>(), 4),
        // About a third of the arguments are typed.
        proptest::collection::vec(proptest::option::weighted(0.33, select(TYPES.to_vec())), 4),
        proptest::sample::subsequence(PERMS.to_vec(), 0..=2),
    )
        .prop_map(|(server, name, params, optional, types, needs)| ToolM {
            server,
            name,
            params: params
                .into_iter()
                .zip(optional)
                .zip(types)
                .map(|((p, opt), ty)| (p, opt, ty))
                .collect(),
            needs,
        })
}

/// A catalog without duplicate declarations (host tool names may collide with server ones).
fn catalog() -> impl Strategy<Value = Vec<ToolM>> {
    prop_oneof![
        1 => Just(Vec::new()),
        5 => proptest::collection::vec(tool(), 1..5),
    ]
    .prop_map(|tools| {
        let mut seen = Vec::new();
        tools
            .into_iter()
            .filter(|t| {
                let key = (t.server, t.name);
                let fresh = !seen.contains(&key);
                seen.push(key);
                fresh
            })
            .collect()
    })
}

fn rule(targets: Vec<String>) -> impl Strategy<Value = RuleM> {
    (
        proptest::bool::weighted(0.4),
        select(targets),
        proptest::collection::vec(select(CONDITIONS.to_vec()), 0..3),
    )
        .prop_map(|(deny, target, conds)| RuleM {
            deny,
            target,
            conds,
        })
}

fn agent(name: &'static str, targets: Vec<String>) -> impl Strategy<Value = AgentM> {
    (
        prop_oneof![
            1 => Just(vec!["*"]),
            3 => proptest::sample::subsequence(vec!["fs:read", "fs:*", "proc:exec", "net:http"], 0..=3),
        ],
        proptest::bool::weighted(0.25),
        proptest::collection::vec(rule(targets), 0..5),
    )
        .prop_map(move |(grants, default_allow, rules)| AgentM {
            name,
            grants,
            default_allow,
            rules,
        })
}

fn policy() -> impl Strategy<Value = PolicyM> {
    catalog().prop_flat_map(|tools| {
        let targets = PolicyM::targets(&tools);
        let agents = proptest::sample::subsequence(vec!["alice", "bob", "carol"], 1..=3)
            .prop_flat_map(move |names| {
                names
                    .into_iter()
                    .map(|n| agent(n, targets.clone()))
                    .collect::<Vec<_>>()
            });
        (Just(tools), agents).prop_map(|(tools, agents)| PolicyM { tools, agents })
    })
}

// ---------------------------------------------------------------------------------------
// random requests: the policy's own literals, mutations of them, other JSON values

fn mutate(s: &str, how: u8) -> String {
    match how {
        0 => s.to_string(),
        1 => format!("{s}/x"),
        2 => format!("{s}/"),
        3 => s.replacen('/', "//", 1),
        4 => format!("/tmp/..{s}"),
        5 => s.to_uppercase(),
        6 => format!("{s} && rm -rf /"),
        _ => format!(" {s}"),
    }
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        10 => (select(STRINGS.to_vec()), prop_oneof![6 => Just(0u8), 4 => 1u8..8])
            .prop_map(|(s, how)| Value::String(mutate(s, how))),
        3 => select(vec![0.0, 2.0, 2.5, 3.0, 5.0, 6.0, -1.0, 0.5]).prop_map(|n| serde_json::json!(n)),
        1 => select(vec![Value::Null, Value::Bool(true), Value::Bool(false), serde_json::json!({"k": "/srv/a"}), serde_json::json!({})]),
    ]
}

/// A value, an array of them, or an array of arrays: of every type the catalog may declare
/// and of wrong ones.
fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => leaf(),
        2 => proptest::collection::vec(leaf(), 0..3).prop_map(Value::Array),
        1 => proptest::collection::vec(
            prop_oneof![
                2 => proptest::collection::vec(leaf(), 0..3).prop_map(Value::Array),
                1 => leaf(),
            ],
            0..3,
        )
        .prop_map(Value::Array),
    ]
}

fn args() -> impl Strategy<Value = Map<String, Value>> {
    PARAMS
        .iter()
        .map(|k| {
            proptest::option::weighted(0.6, value())
                .prop_map(move |v| v.map(|v| (k.to_string(), v)))
        })
        .collect::<Vec<_>>()
        .prop_map(|kvs| kvs.into_iter().flatten().collect())
}

/// A sampled call: agent index, tool index (both taken modulo the matrix's size), arguments.
type Sample = (usize, usize, Map<String, Value>);

fn case() -> impl Strategy<Value = (PolicyM, Vec<Sample>)> {
    policy().prop_flat_map(|p| {
        let samples = proptest::collection::vec((0usize..8, 0usize..16, args()), 24..48);
        (Just(p), samples)
    })
}

fn cases() -> u32 {
    std::env::var("TOOLGATE_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        max_global_rejects: 100_000,
        max_shrink_iters: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Every cell's claim is checked against `Engine::decide`: a "never" cell is never
    /// allowed, an "always" cell always is (its required arguments present), and a
    /// "conditional" cell's own conditions, evaluated on the request, predict the decision.
    #[test]
    fn matrix_agrees_with_deciding_sampled_requests((p, samples) in case()) {
        let text = p.render();
        let mut sources = SourceMap::new();
        sources.add("p.policy", text.as_str());
        let Ok((engine, policy, _)) = toolgate::load::engine_from_sources(sources) else {
            // A combination the language refuses (e.g. a condition on an undeclared argument).
            return Err(TestCaseError::reject("policy does not load"));
        };
        let matrix = Matrix::build(&policy);
        prop_assert_eq!(matrix.agents.len(), p.agents.len());
        prop_assert_eq!(matrix.disagreements(&engine), Vec::<String>::new(), "{}", text);
        if matrix.tools.is_empty() {
            return Ok(());
        }
        for (a, t, args) in samples {
            let (a, t) = (a % matrix.agents.len(), t % matrix.tools.len());
            let req = matrix.probe(a, t, args.clone());
            let decision = engine.decide(&req);
            let cell = matrix.cell(a, t);
            let predicted = cell.admits(&req.args);
            prop_assert_eq!(
                predicted,
                Some(decision.is_allowed()),
                "agent {} tool {} ({}) args {} -> engine {} {}\n{}",
                cell.agent, cell.tool, cell.access.as_str(), Value::Object(req.args.clone()),
                decision.decision.as_str(), decision.reason.as_str(), text
            );
            let invalid = decision.reason.as_str() == "invalid_argument";
            if invalid {
                // Refused for a wrongly typed argument, which the cell's types predict.
                prop_assert!(!cell.types.is_empty());
            }
            match &cell.access {
                _ if invalid => {}
                Access::Never(Never::PermissionMissing(perm)) => {
                    prop_assert_eq!(decision.reason.as_str(), "permission_missing");
                    prop_assert_eq!(decision.permission.as_deref(), Some(perm.as_str()));
                }
                Access::Never(Never::Ambiguous) => {
                    prop_assert_eq!(decision.reason.as_str(), "ambiguous_tool");
                }
                Access::Never(Never::NoAllowRule) => {
                    // A deny may still fire first.
                    let reason = decision.reason.as_str();
                    prop_assert!(reason == "no_matching_rule" || reason == "denied_by_rule", "{}", reason);
                }
                Access::Never(Never::DeniedByRule(_)) => {
                    prop_assert_eq!(decision.reason.as_str(), "denied_by_rule");
                }
                Access::Never(Never::AllowsOverridden(_)) => {
                    // Where no allow fires, no deny needs to.
                    let reason = decision.reason.as_str();
                    prop_assert!(reason == "denied_by_rule" || reason == "no_matching_rule", "{}", reason);
                }
                Access::Always(Always::Default) => {
                    // An allow rule may fire before the default is reached.
                    let reason = decision.reason.as_str();
                    prop_assert!(reason == "default_allow" || reason == "allowed_by_rule", "{}", reason);
                }
                _ => {}
            }
            // Without its required arguments, a call is never allowed, whatever the cell says.
            if !matrix.tools[t].required.is_empty() {
                let mut bare = req.clone();
                bare.args.clear();
                prop_assert!(!engine.decide(&bare).is_allowed());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        max_global_rejects: 100_000,
        max_shrink_iters: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// The tool listing (`Engine::visible_tools`, behind `tools`, the gateway's `tools/list`
    /// and the bindings), from the source and from a bundle, holds exactly the tools whose
    /// matrix cell is not `never`.
    #[test]
    fn listing_agrees_with_matrix(p in policy()) {
        let text = p.render();
        let mut sources = SourceMap::new();
        sources.add("p.policy", text.as_str());
        let Ok((engine, policy, _)) = toolgate::load::engine_from_sources(sources) else {
            return Err(TestCaseError::reject("policy does not load"));
        };
        let bundled = toolgate::Engine::from_bundle(&engine.to_bundle())
            .map_err(|e| TestCaseError::fail(format!("bundle: {e}")))?;
        let matrix = Matrix::build(&policy);
        for (a, agent) in matrix.agents.iter().enumerate() {
            // Without a catalog nothing is listed (the rows are only the names rules spell).
            let want: Vec<&str> = (0..matrix.tools.len())
                .filter(|_| matrix.catalog)
                .filter(|&t| !matches!(matrix.cell(a, t).access, Access::Never(_)))
                .map(|t| matrix.tools[t].display.as_str())
                .collect();
            for e in [&engine, &bundled] {
                let listed = e.visible_tools(agent).unwrap_or_default();
                let got: Vec<String> = listed.iter().map(ToString::to_string).collect();
                prop_assert_eq!(&got, &want, "agent {}\n{}", agent, text);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// the library on hand-written policies

fn build(text: &str) -> (toolgate::Engine, Matrix) {
    let mut sources = SourceMap::new();
    sources.add("p.policy", text);
    let (engine, policy, _) = toolgate::load::engine_from_sources(sources).unwrap();
    let matrix = Matrix::build(&policy);
    assert!(matrix.disagreements(&engine).is_empty());
    (engine, matrix)
}

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

#[test]
fn a_deny_with_value_conditions_leaves_empty_arrays_allowed() {
    // The deny covers the allow on every value, but an empty array passes the allow vacuously
    // and fires no deny condition: the cell is conditional, not never.
    let (engine, matrix) = build(
        "tool t(path)\nagent a {\n  allow t where path matches \"/srv/*.txt\"\n  deny t where path matches \"/srv/**\"\n}\n",
    );
    let access = &matrix.cell(0, 0).access;
    assert!(matches!(access, Access::Conditional(_)), "{access:?}");
    for args in [
        serde_json::json!({"path": []}),
        serde_json::json!({"path": "/srv/a.txt"}),
    ] {
        let req = matrix.probe(0, 0, obj(args));
        assert_eq!(
            access.admits(&req.args),
            Some(engine.decide(&req).is_allowed())
        );
    }
    assert!(engine
        .decide(&matrix.probe(0, 0, obj(serde_json::json!({"path": []}))))
        .is_allowed());
}

#[test]
fn a_present_deny_on_a_required_argument_overrides() {
    let (_, matrix) = build(
        "tool t(path, mode?)\nagent a {\n  allow t where path matches \"/srv/**\"\n  deny t where path present\n}\nagent b {\n  allow t where mode == \"r\"\n  deny t where mode present\n  allow t where mode present and mode == \"r\"\n}\n",
    );
    assert!(
        matches!(&matrix.cell(0, 0).access, Access::Never(Never::DeniedByRule(r)) if r.line == 4)
    );
    // For `b`, the second allow is covered by the deny (both need `mode`), the first is not
    // (it holds when `mode` is absent).
    let Access::Conditional(c) = &matrix.cell(1, 0).access else {
        panic!("{:?}", matrix.cell(1, 0).access)
    };
    assert_eq!(c.allows.len(), 1);
    assert_eq!(c.allows[0].rule.line, 7);
}

#[test]
fn an_allow_overridden_by_a_present_deny_is_never() {
    let (_, matrix) = build(
        "tool t(path?)\nagent a {\n  allow t where path present and path matches \"/srv/**\"\n  deny t where path present\n}\n",
    );
    assert!(
        matches!(&matrix.cell(0, 0).access, Access::Never(Never::AllowsOverridden(pairs)) if pairs.len() == 1)
    );
}

#[test]
fn a_host_tool_shadowed_by_a_server_tool_is_never() {
    let (engine, matrix) =
        build("server git { tool status }\ntool status\nagent a {\n  grant *\n  allow *\n}\n");
    assert!(matches!(matrix.cell(0, 0).access, Access::Always(_)));
    assert!(matches!(
        matrix.cell(0, 1).access,
        Access::Never(Never::Ambiguous)
    ));
    assert_eq!(
        engine
            .decide(&matrix.probe(0, 1, Map::new()))
            .reason
            .as_str(),
        "ambiguous_tool"
    );
}

#[test]
fn a_wrongly_typed_argument_is_never_admitted() {
    let (engine, matrix) = build(
        "tool Bash(command: string, timeout?: number, env?: array<array<integer>>)\nagent a {\n  allow Bash\n}\nagent b {\n  allow Bash where command matches \"ls*\"\n}\n",
    );
    assert!(matches!(
        matrix.cell(0, 0).access,
        Access::Always(Always::Rule(_))
    ));
    for (args, allowed) in [
        (serde_json::json!({"command": "ls"}), true),
        (serde_json::json!({"command": "ls", "timeout": 0.5}), true),
        (serde_json::json!({"command": "ls", "timeout": "5"}), false),
        (serde_json::json!({"command": ["ls"]}), false),
        (serde_json::json!({"command": null}), false),
        (serde_json::json!({"command": "ls", "env": [[1], []]}), true),
        (serde_json::json!({"command": "ls", "env": [[1.5]]}), false),
        (serde_json::json!({"command": "ls", "env": [1]}), false),
    ] {
        for a in 0..2 {
            let req = matrix.probe(a, 0, obj(args.clone()));
            let decided = engine.decide(&req);
            assert_eq!(decided.is_allowed(), allowed, "{args} {a}");
            assert_eq!(matrix.cell(a, 0).admits(&req.args), Some(allowed), "{args}");
            if !allowed {
                assert_eq!(decided.reason.as_str(), "invalid_argument");
            }
        }
    }
    // The reports show the declared types.
    let text = toolgate::review::matrix::to_text(&matrix);
    assert!(
        text.contains(
            "Bash  arguments must be: command: string, timeout: number, env: array<array<integer>>"
        ),
        "{text}"
    );
    let json = toolgate::review::matrix::to_json(&matrix);
    assert_eq!(json["argument_types"]["Bash"]["timeout"], "number");
    let md = toolgate::review::matrix::to_markdown(&matrix);
    assert!(
        md.contains("`Bash`: arguments must be: `command: string`"),
        "{md}"
    );
}

#[test]
fn a_tool_is_listed_exactly_when_its_cell_is_not_never() {
    // `deny t where s present` on a required `s` fires on every call; on an optional `s` it
    // overrides only an allow that needs `s` present. Neither kind of `never` is listed.
    let (engine, matrix) = build(
        "tool req(s)\ntool opt(s?)\nagent a {\n  allow req\n  deny req where s present\n  allow opt\n  deny opt where s present\n}\nagent b {\n  allow opt where s present\n  deny opt where s present\n}\n",
    );
    assert!(matches!(
        matrix.cell(0, 0).access,
        Access::Never(Never::DeniedByRule(_))
    ));
    assert!(matches!(matrix.cell(0, 1).access, Access::Conditional(_)));
    assert!(matches!(
        matrix.cell(1, 1).access,
        Access::Never(Never::AllowsOverridden(_))
    ));
    let names = |agent: &str| -> Vec<String> {
        let tools = engine.visible_tools(agent).unwrap_or_default();
        tools.iter().map(ToString::to_string).collect()
    };
    assert_eq!(names("a"), ["opt"]);
    assert!(names("b").is_empty());
}
