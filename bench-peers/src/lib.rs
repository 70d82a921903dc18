//! The same generated policies and requests as toolgate's `benches/decide.rs`, expressed in
//! toolgate and in three peers: Cedar (`cedar-policy`), Rego (`regorus`, interpreter and bytecode
//! VM) and Casbin (`casbin`).
//!
//! Logical policy (see `../benches/support/generate.rs`), at N = 10, 100, 1,000, 10,000:
//! - **wide**: N tools `t0..t{N-1}`, one allow rule each: `path` matches `/data/team{i}/**/*.csv`;
//! - **deep**: one tool `t0`, N allow rules on the same `path` argument with those N globs;
//! - both: a deny when `command` contains any of `"rm -rf"`, `"mkfs"`, `"sudo "` (on every tool
//!   in wide, on `t0` in deep). Deny wins over allow; no matching rule denies.
//!
//! Requests (see `requests()` in `../benches/decide.rs`), with `hit = N / 2`:
//! - `allow`: agent `bench`, tool `t{hit}` (wide) or `t0` (deep), `path = /data/team{hit}/q3/report.csv`;
//! - `deny`: same tool, `path = /data/team{hit}/x.csv`, `command = "sudo rm -rf /"`;
//! - `nomatch`: same tool, `path = /data/other/report.csv`.
//!
//! Each engine module builds its engine from the layout and N, pre-builds each request in its own
//! representation, and has a `decide` that returns the engine's raw answer plus an `Outcome`
//! reader, used to assert the setup before timing.

#[path = "../../benches/support/generate.rs"]
pub mod generate;

use std::fmt::Write as _;

/// The two generated layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// N tools, one rule each.
    Wide,
    /// One tool, N rules on the same argument.
    Deep,
}

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Layout::Wide => "wide",
            Layout::Deep => "deep",
        }
    }
    pub fn parse(s: &str) -> Option<Layout> {
        match s {
            "wide" => Some(Layout::Wide),
            "deep" => Some(Layout::Deep),
            _ => None,
        }
    }
    /// toolgate source for this layout, from the generator shared with toolgate's own benches.
    pub fn toolgate_source(self, n: usize) -> String {
        match self {
            Layout::Wide => generate::wide(n),
            Layout::Deep => generate::deep(n),
        }
    }
}

/// What a decision should be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Allowed by an allow rule.
    Allow,
    /// Denied by the deny rule.
    DenyByRule,
    /// Denied because no rule matched.
    NoMatch,
    /// Denied, and the engine does not say why (Casbin's `enforce` returns a bool).
    Deny,
}

impl Outcome {
    /// Whether `self` (what an engine answered) is consistent with `expected`.
    pub fn satisfies(self, expected: Outcome) -> bool {
        self == expected
            || (self == Outcome::Deny && matches!(expected, Outcome::DenyByRule | Outcome::NoMatch))
    }
}

/// One logical request.
#[derive(Clone, Debug)]
pub struct Req {
    pub agent: String,
    pub tool: String,
    pub path: String,
    pub command: Option<String>,
}

impl Req {
    /// The same request without its `command` argument.
    pub fn without_command(&self) -> Req {
        Req {
            command: None,
            ..self.clone()
        }
    }
}

/// The three outcomes measured, in the order of toolgate's bench.
pub const OUTCOMES: [&str; 3] = ["allow", "deny", "nomatch"];

/// The requests of toolgate's `benches/decide.rs`, with their expected outcome.
pub fn requests(n: usize, layout: Layout) -> [(&'static str, Req, Outcome); 3] {
    let hit = n / 2;
    let tool = match layout {
        Layout::Wide => format!("t{hit}"),
        Layout::Deep => "t0".to_string(),
    };
    let mk = |path: String, command: Option<&str>| Req {
        agent: "bench".into(),
        tool: tool.clone(),
        path,
        command: command.map(str::to_string),
    };
    [
        (
            "allow",
            mk(format!("/data/team{hit}/q3/report.csv"), None),
            Outcome::Allow,
        ),
        (
            "deny",
            mk(format!("/data/team{hit}/x.csv"), Some("sudo rm -rf /")),
            Outcome::DenyByRule,
        ),
        (
            "nomatch",
            mk("/data/other/report.csv".into(), None),
            Outcome::NoMatch,
        ),
    ]
}

/// The substrings of the deny rule.
pub const DENY_SUBSTRINGS: [&str; 3] = ["rm -rf", "mkfs", "sudo "];

// ---------------------------------------------------------------------------------------------
// toolgate
// ---------------------------------------------------------------------------------------------

pub mod tg {
    use super::*;
    use serde_json::json;

    pub fn build(layout: Layout, n: usize) -> toolgate::Engine {
        toolgate::load::engine_from_str("bench.policy", &layout.toolgate_source(n))
            .expect("bench policy compiles")
    }

    pub fn request(r: &Req) -> toolgate::Request {
        let mut args = json!({ "path": r.path });
        if let Some(c) = &r.command {
            args["command"] = json!(c);
        }
        toolgate::Request::new(r.agent.clone(), r.tool.clone()).args(args)
    }

    pub fn outcome(d: &toolgate::Decision) -> Outcome {
        match d.reason.as_str() {
            "allowed_by_rule" => Outcome::Allow,
            "denied_by_rule" => Outcome::DenyByRule,
            "no_matching_rule" => Outcome::NoMatch,
            other => panic!("unexpected toolgate reason {other}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Cedar
// ---------------------------------------------------------------------------------------------

/// Cedar: principal `Agent::"bench"`, action `Action::"call"`, resource `Tool::"t{i}"`, the
/// arguments in the context (`context.path`, `context.command` when present).
///
/// Globs become `like` patterns. Cedar's `*` matches any run of characters **including `/`**, and
/// Cedar has no `**`, so the glob `/data/team{i}/**/*.csv` (any depth under `/data/team{i}/`,
/// last segment ending in `.csv`) is written `like "/data/team{i}/*.csv"`. On the benchmark's
/// requests the two agree; in general the `like` pattern is the same set of strings *before*
/// path normalization: Cedar does not normalize, so `/data/team1/../../etc/x.csv` matches it,
/// which toolgate (path patterns are normalized, section 9 of docs/language.md) would refuse.
/// The deny (`command contains any [...]`) is a `forbid` with `like "*rm -rf*"` alternatives.
pub mod cedar {
    use super::*;
    use cedar_policy::{
        Authorizer, Context, Decision, Effect, Entities, EntityUid, PolicySet, Request, Response,
        RestrictedExpression,
    };
    use std::collections::HashMap;
    use std::str::FromStr;

    fn permit(tool: &str, i: usize) -> String {
        format!(
            "permit(principal == Agent::\"bench\", action == Action::\"call\", resource == Tool::\"{tool}\")\n  when {{ context.path like \"/data/team{i}/*.csv\" }};\n"
        )
    }

    fn forbid(layout: Layout) -> String {
        let resource = match layout {
            Layout::Wide => "resource".to_string(),
            Layout::Deep => "resource == Tool::\"t0\"".to_string(),
        };
        let alts: Vec<String> = DENY_SUBSTRINGS
            .iter()
            .map(|s| format!("context.command like \"*{s}*\""))
            .collect();
        format!(
            "forbid(principal == Agent::\"bench\", action == Action::\"call\", {resource})\n  when {{ context has command && ({}) }};\n",
            alts.join(" || ")
        )
    }

    /// All N permits and the forbid, as one Cedar source.
    pub fn source(layout: Layout, n: usize) -> String {
        let mut s = String::new();
        for i in 0..n {
            let tool = match layout {
                Layout::Wide => format!("t{i}"),
                Layout::Deep => "t0".to_string(),
            };
            s.push_str(&permit(&tool, i));
        }
        s.push_str(&forbid(layout));
        s
    }

    /// One policy set with all policies: `Authorizer::is_authorized` over everything.
    pub struct Plain {
        pub authorizer: Authorizer,
        pub policies: PolicySet,
        pub entities: Entities,
    }

    pub fn build_plain(layout: Layout, n: usize) -> Plain {
        Plain {
            authorizer: Authorizer::new(),
            policies: PolicySet::from_str(&source(layout, n)).expect("cedar policies parse"),
            entities: Entities::empty(),
        }
    }

    /// Policies sliced by tool by the host: tool name -> a policy set with only the permits
    /// for that tool and the forbids that can apply to it.
    pub struct Sliced {
        pub authorizer: Authorizer,
        pub slices: HashMap<String, PolicySet>,
        pub empty: PolicySet,
        pub entities: Entities,
    }

    pub fn build_sliced(layout: Layout, n: usize) -> Sliced {
        let mut texts: HashMap<String, String> = HashMap::new();
        for i in 0..n {
            let tool = match layout {
                Layout::Wide => format!("t{i}"),
                Layout::Deep => "t0".to_string(),
            };
            texts.entry(tool.clone()).or_default().push_str(&permit(&tool, i));
        }
        let deny = forbid(layout);
        let slices = texts
            .into_iter()
            .map(|(tool, mut text)| {
                text.push_str(&deny);
                let ps = PolicySet::from_str(&text).expect("cedar slice parses");
                (tool, ps)
            })
            .collect();
        Sliced {
            authorizer: Authorizer::new(),
            slices,
            empty: PolicySet::new(),
            entities: Entities::empty(),
        }
    }

    /// A pre-built request: the tool name (for the slice lookup) and the Cedar request.
    pub struct CReq {
        pub tool: String,
        pub request: Request,
    }

    pub fn request(r: &Req) -> CReq {
        let mut pairs = vec![(
            "path".to_string(),
            RestrictedExpression::new_string(r.path.clone()),
        )];
        if let Some(c) = &r.command {
            pairs.push(("command".into(), RestrictedExpression::new_string(c.clone())));
        }
        let uid = |t: &str, id: &str| {
            let mut s = String::new();
            write!(s, "{t}::\"{id}\"").unwrap();
            EntityUid::from_str(&s).unwrap()
        };
        CReq {
            tool: r.tool.clone(),
            request: Request::new(
                uid("Agent", &r.agent),
                uid("Action", "call"),
                uid("Tool", &r.tool),
                Context::from_pairs(pairs).unwrap(),
                None,
            )
            .unwrap(),
        }
    }

    impl Plain {
        #[inline]
        pub fn decide(&self, r: &CReq) -> Response {
            self.authorizer
                .is_authorized(&r.request, &self.policies, &self.entities)
        }
        pub fn outcome(&self, resp: &Response) -> Outcome {
            outcome(resp, &self.policies)
        }
    }

    impl Sliced {
        #[inline]
        pub fn slice(&self, tool: &str) -> &PolicySet {
            self.slices.get(tool).unwrap_or(&self.empty)
        }
        #[inline]
        pub fn decide(&self, r: &CReq) -> Response {
            self.authorizer
                .is_authorized(&r.request, self.slice(&r.tool), &self.entities)
        }
        pub fn outcome(&self, r: &CReq, resp: &Response) -> Outcome {
            outcome(resp, self.slice(&r.tool))
        }
    }

    fn outcome(resp: &Response, ps: &PolicySet) -> Outcome {
        let errors: Vec<String> = resp.diagnostics().errors().map(|e| e.to_string()).collect();
        // A permit whose `context.command` is absent is guarded by `has`; no errors expected.
        assert!(errors.is_empty(), "cedar evaluation errors: {errors:?}");
        let reasons: Vec<_> = resp.diagnostics().reason().collect();
        match resp.decision() {
            Decision::Allow => Outcome::Allow,
            Decision::Deny if reasons.is_empty() => Outcome::NoMatch,
            Decision::Deny => {
                assert!(reasons
                    .iter()
                    .all(|id| ps.policy(id).map(|p| p.effect()) == Some(Effect::Forbid)));
                Outcome::DenyByRule
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Rego (regorus)
// ---------------------------------------------------------------------------------------------

/// Rego: `input = {"agent", "tool", "args": {"path", "command"?}}`, and a `decision` rule that
/// yields `"allowed_by_rule"`, `"denied_by_rule"` or `"no_matching_rule"`. Each allow rule is
/// `input.tool == "t{i}"` and `glob.match("/data/team{i}/**/*.csv", ["/"], input.args.path)`:
/// regorus implements `glob.match` with globset and `literal_separator`, the same glob dialect
/// as toolgate's (toolgate additionally normalizes absolute paths). The deny is
/// `some s in [...]; contains(input.args.command, s)`.
pub mod rego {
    use super::*;
    use regorus::languages::rego::compiler::Compiler;
    use regorus::rvm::RegoVM;
    use regorus::{Engine, Value};
    use std::sync::Arc;

    pub const ENTRY: &str = "data.bench.decision";

    pub fn source(layout: Layout, n: usize) -> String {
        let mut s = String::from(
            r#"package bench

import rego.v1

default decision := "no_matching_rule"

decision := "denied_by_rule" if {
	input.agent == "bench"
	deny
}

decision := "allowed_by_rule" if {
	input.agent == "bench"
	not deny
	allow
}

"#,
        );
        for i in 0..n {
            let tool = match layout {
                Layout::Wide => format!("t{i}"),
                Layout::Deep => "t0".to_string(),
            };
            writeln!(
                s,
                "allow if {{\n\tinput.tool == \"{tool}\"\n\tglob.match(\"/data/team{i}/**/*.csv\", [\"/\"], input.args.path)\n}}\n"
            )
            .unwrap();
        }
        let tool_check = match layout {
            Layout::Wide => "",
            Layout::Deep => "\tinput.tool == \"t0\"\n",
        };
        let list: Vec<String> = DENY_SUBSTRINGS.iter().map(|s| format!("{s:?}")).collect();
        writeln!(
            s,
            "deny if {{\n{tool_check}\tsome s in [{}]\n\tcontains(input.args.command, s)\n}}",
            list.join(", ")
        )
        .unwrap();
        s
    }

    /// regorus keeps compiled globs in a process-wide LRU cache of 128 entries by default; with
    /// more distinct globs than that on one decision path (deep, N >= 1,000) every decision would
    /// recompile globs. A careful host raises the cache, so we do (to its maximum, 65,536).
    pub fn configure_cache() {
        regorus::cache::configure(regorus::cache::Config {
            regex: 256,
            glob: regorus::cache::Config::MAX_CAPACITY,
        });
    }

    /// regorus refuses a policy file over 20,000 lines or 1 MiB by default; at N = 10,000 the
    /// generated policy is over both, so the host raises the limits (as a careful host would).
    pub fn new_engine() -> Engine {
        configure_cache();
        let mut e = Engine::new();
        e.set_policy_length_config(regorus::PolicyLengthConfig {
            max_col: std::num::NonZeroU32::new(1024).unwrap(),
            max_file_bytes: std::num::NonZeroUsize::new(256 << 20).unwrap(),
            max_lines: std::num::NonZeroUsize::new(10_000_000).unwrap(),
        });
        e
    }

    pub fn build_interpreter(layout: Layout, n: usize) -> Engine {
        let mut e = new_engine();
        e.add_policy("bench.rego".into(), source(layout, n))
            .expect("rego policy parses");
        e
    }

    pub fn input(r: &Req) -> Value {
        let mut args = serde_json::json!({ "path": r.path });
        if let Some(c) = &r.command {
            args["command"] = serde_json::json!(c);
        }
        let v = serde_json::json!({ "agent": r.agent, "tool": r.tool, "args": args });
        Value::from_json_str(&v.to_string()).unwrap()
    }

    #[inline]
    pub fn decide_interpreter(e: &mut Engine, input: &Value) -> Value {
        e.set_input(input.clone());
        e.eval_rule(ENTRY.to_string()).expect("rego evaluates")
    }

    /// The bytecode VM: the policy compiled for the `decision` entry point, loaded once.
    pub fn build_vm(layout: Layout, n: usize) -> anyhow_like::Result<RegoVM> {
        let mut e = new_engine();
        e.add_policy("bench.rego".into(), source(layout, n))
            .map_err(|x| x.to_string())?;
        let compiled = e
            .compile_with_entrypoint(&ENTRY.into())
            .map_err(|x| x.to_string())?;
        let program: Arc<_> =
            Compiler::compile_from_policy(&compiled, &[ENTRY]).map_err(|x| x.to_string())?;
        let mut vm = RegoVM::new();
        vm.load_program(program);
        Ok(vm)
    }

    #[inline]
    pub fn decide_vm(vm: &mut RegoVM, input: &Value) -> Value {
        vm.set_input(input.clone());
        vm.execute().expect("rvm executes")
    }

    pub fn outcome(v: &Value) -> Outcome {
        match v.as_string().map(|s| s.as_ref().to_string()).as_deref() {
            Ok("allowed_by_rule") => Outcome::Allow,
            Ok("denied_by_rule") => Outcome::DenyByRule,
            Ok("no_matching_rule") => Outcome::NoMatch,
            _ => panic!("unexpected rego decision {v}"),
        }
    }

    /// String errors without an extra dependency.
    pub mod anyhow_like {
        pub type Result<T> = std::result::Result<T, String>;
    }
}

// ---------------------------------------------------------------------------------------------
// Casbin
// ---------------------------------------------------------------------------------------------

/// Casbin: request `(sub, tool, path, cmd)` (`cmd` is `""` when absent), policy rows
/// `p, bench, t{i}, /data/team{i}/**/*.csv, allow` and one `deny` row per substring
/// (`p, bench, *, rm -rf, deny` in wide, tool `t0` in deep), effect deny-overrides. Paths use the
/// stock `globMatch` (globset with `literal_separator`: the same glob dialect as toolgate, less
/// path normalization). Casbin's expression engine (rhai, as casbin configures it) has no string
/// `contains`, so the substring test is a registered function `hasSubstring`. `enforce` returns a
/// bool: a deny by rule and a no-match are both `false`. The stock `globMatch` builds a globset
/// matcher on every call; `build(.., cached: true)` swaps in `cachedGlobMatch`, same semantics
/// with compiled globs kept per thread.
pub mod casbin_peer {
    use super::*;
    use casbin::function_map::OperatorFunction;
    use casbin::prelude::*;
    use casbin::rhai::{Dynamic, ImmutableString};

    pub const MODEL: &str = r#"
[request_definition]
r = sub, tool, path, cmd

[policy_definition]
p = sub, tool, pat, eft

[policy_effect]
e = some(where (p.eft == allow)) && !some(where (p.eft == deny))

[matchers]
m = r.sub == p.sub && ((p.eft == "allow" && r.tool == p.tool && globMatch(r.path, p.pat)) || (p.eft == "deny" && (p.tool == "*" || r.tool == p.tool) && hasSubstring(r.cmd, p.pat)))
"#;

    /// The matcher with casbin's stock `globMatch` replaced by `cachedGlobMatch`.
    pub fn model_cached() -> String {
        MODEL.replace("globMatch(", "cachedGlobMatch(")
    }

    thread_local! {
        static GLOBS: std::cell::RefCell<std::collections::HashMap<String, globset::GlobMatcher>> =
            std::cell::RefCell::new(std::collections::HashMap::new());
    }

    /// casbin's `globMatch` builds a globset matcher on every call; a careful host registers a
    /// function with the same semantics (globset, `literal_separator`) that keeps compiled globs.
    fn cached_glob_match(value: Dynamic, pattern: Dynamic) -> Dynamic {
        let value = value.into_immutable_string().unwrap_or_default();
        let pattern = pattern.into_immutable_string().unwrap_or_default();
        GLOBS.with(|g| {
            let mut g = g.borrow_mut();
            if let Some(m) = g.get(pattern.as_str()) {
                return Dynamic::from(m.is_match(value.as_str()));
            }
            let m = globset::GlobBuilder::new(pattern.as_str())
                .literal_separator(true)
                .build()
                .expect("valid glob")
                .compile_matcher();
            let hit = m.is_match(value.as_str());
            g.insert(pattern.to_string(), m);
            Dynamic::from(hit)
        })
    }

    fn has_substring(hay: Dynamic, needle: Dynamic) -> Dynamic {
        let hay = hay.into_immutable_string().unwrap_or_default();
        let needle = needle.into_immutable_string().unwrap_or_default();
        Dynamic::from(hay.contains(needle.as_str()))
    }

    pub fn rows(layout: Layout, n: usize) -> Vec<Vec<String>> {
        let mut rows = Vec::with_capacity(n + 3);
        for i in 0..n {
            let tool = match layout {
                Layout::Wide => format!("t{i}"),
                Layout::Deep => "t0".to_string(),
            };
            rows.push(vec![
                "bench".into(),
                tool,
                format!("/data/team{i}/**/*.csv"),
                "allow".into(),
            ]);
        }
        let deny_tool = match layout {
            Layout::Wide => "*",
            Layout::Deep => "t0",
        };
        for s in DENY_SUBSTRINGS {
            rows.push(vec![
                "bench".into(),
                deny_tool.into(),
                s.into(),
                "deny".into(),
            ]);
        }
        rows
    }

    /// `cached`: use `cachedGlobMatch` instead of the stock `globMatch`.
    pub fn build(layout: Layout, n: usize, cached: bool) -> Enforcer {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let text = if cached { model_cached() } else { MODEL.to_string() };
            let model = DefaultModel::from_str(&text).await.expect("casbin model");
            let mut e = Enforcer::new(model, MemoryAdapter::default())
                .await
                .expect("casbin enforcer");
            e.add_function("hasSubstring", OperatorFunction::Arg2(has_substring));
            e.add_function("cachedGlobMatch", OperatorFunction::Arg2(cached_glob_match));
            e.add_policies(rows(layout, n)).await.expect("casbin policies");
            e
        })
    }

    /// A pre-built request: rhai strings are reference counted, so a clone per call is cheap.
    pub type CasReq = Vec<ImmutableString>;

    pub fn request(r: &Req) -> CasReq {
        vec![
            r.agent.as_str().into(),
            r.tool.as_str().into(),
            r.path.as_str().into(),
            r.command.as_deref().unwrap_or("").into(),
        ]
    }

    #[inline]
    pub fn decide(e: &Enforcer, r: &CasReq) -> bool {
        e.enforce(r.clone()).expect("casbin enforces")
    }

    pub fn outcome(b: bool) -> Outcome {
        if b {
            Outcome::Allow
        } else {
            Outcome::Deny
        }
    }
}
