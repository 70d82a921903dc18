//! `toolgate diff`: property tests of the semantic difference on random small policies, and
//! end-to-end tests of the command on the shipped policies and edited copies.

use assert_cmd::Command;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use toolgate::review::diff::{diff, Budget, Direction, Report, Side};
use toolgate::source::SourceMap;
use toolgate::{Engine, Request};

// ---------------------------------------------------------------------------------------------
// Random small policies

const ARGS: [&str; 3] = ["p", "q", "n"];
const LITS: [&str; 4] = ["a", "b", "ab", "x1"];
const GLOBS: [&str; 4] = ["x*", "a?", "*b", "{a,b}*"];
const PATHS: [&str; 4] = ["/srv/**", "/srv/*.txt", "/etc/**", "/srv/a"];
const REGEXES: [&str; 4] = ["^a", "b$", "a", "^x\\d"];
const NUMS: [&str; 4] = ["3", "5", "4.5", "-1"];
const OPS: [&str; 6] = ["<", "<=", ">", ">=", "==", "!="];
const NEEDS: [&str; 3] = ["a:r", "a:w", "b:x"];
const GRANTS: [&str; 5] = ["a:r", "a:w", "b:x", "a:*", "*"];
/// Declared argument types: every base type and arrays of them, nested ones included.
const TYPES: [&str; 13] = [
    "string",
    "number",
    "integer",
    "boolean",
    "path",
    "object",
    "any",
    "array<string>",
    "array<integer>",
    "array<number>",
    "array<array<integer>>",
    "array<object>",
    "array<any>",
];

#[derive(Clone, Debug)]
struct Cond {
    kind: usize,
    arg: usize,
    lit: usize,
    op: usize,
}

impl Cond {
    fn render(&self) -> String {
        let a = ARGS[self.arg];
        let l = LITS[self.lit];
        match self.kind {
            0 => format!("{a} == \"{l}\""),
            1 => format!("{a} in [\"{l}\", \"{}\"]", LITS[(self.lit + 1) % 4]),
            2 => format!("{a} != \"{l}\""),
            3 => format!("{a} contains \"{l}\""),
            4 => format!("{a} matches \"{}\"", GLOBS[self.lit]),
            5 => format!("{a} matches \"{}\"", PATHS[self.lit]),
            6 => format!("{a} matches re\"{}\"", REGEXES[self.lit]),
            7 => format!("{a} {} {}", OPS[self.op], NUMS[self.lit]),
            _ => format!("{a} present"),
        }
    }
}

#[derive(Clone, Debug)]
struct Rule {
    allow: bool,
    target: usize,
    conds: Vec<Cond>,
}

#[derive(Clone, Debug)]
struct Agent {
    grants: Vec<usize>,
    default_allow: bool,
    rules: Vec<Rule>,
}

#[derive(Clone, Debug)]
struct Tool {
    on_server: bool,
    /// Argument, optional, declared type (an index into `TYPES`; `None`: untyped).
    args: Vec<(usize, bool, Option<usize>)>,
    needs: Vec<usize>,
}

#[derive(Clone, Debug)]
struct Pol {
    /// False: no tool is declared (names are free, requests carry `permissions`).
    catalog: bool,
    tools: Vec<Tool>,
    agents: Vec<Agent>,
}

/// How a policy is laid out: the same policy in another order and other files.
#[derive(Clone, Copy, Default)]
struct Layout {
    reorder: bool,
}

impl Pol {
    fn tool_name(i: usize) -> String {
        format!("t{i}")
    }

    fn target(&self, t: usize) -> String {
        match t {
            0..=2 => Self::tool_name(t),
            3..=5 if self.tools[t - 3].on_server => format!("s.t{}", t - 3),
            3..=5 => Self::tool_name(t - 3),
            6 => "*".into(),
            7 => "t*".into(),
            _ => "*.*".into(),
        }
    }

    fn catalog(&self, layout: Layout) -> String {
        if !self.catalog {
            return String::new();
        }
        let mut lines = Vec::new();
        let mut server = Vec::new();
        for (i, t) in self.tools.iter().enumerate() {
            let mut args: Vec<String> = t
                .args
                .iter()
                .map(|&(a, opt, ty)| {
                    let ty = ty.map(|k| format!(": {}", TYPES[k])).unwrap_or_default();
                    format!("{}{}{ty}", ARGS[a], if opt { "?" } else { "" })
                })
                .collect();
            let mut needs: Vec<&str> = t.needs.iter().map(|&k| NEEDS[k]).collect();
            if layout.reorder {
                args.reverse();
                needs.reverse();
            }
            let needs = if needs.is_empty() {
                String::new()
            } else {
                format!(" needs {}", needs.join(", "))
            };
            let decl = format!("tool t{i}({}){needs}", args.join(", "));
            if t.on_server {
                server.push(decl);
            } else {
                lines.push(decl);
            }
        }
        if layout.reorder {
            lines.reverse();
            server.reverse();
        }
        if !server.is_empty() {
            lines.push(format!("server s {{\n  {}\n}}", server.join("\n  ")));
        }
        lines.join("\n") + "\n"
    }

    fn agents_text(&self, layout: Layout) -> String {
        let mut out = Vec::new();
        for (i, a) in self.agents.iter().enumerate() {
            let mut body = Vec::new();
            if !a.grants.is_empty() {
                let mut g: Vec<&str> = a.grants.iter().map(|&k| GRANTS[k]).collect();
                if layout.reorder {
                    g.reverse();
                }
                body.push(format!("grant {}", g.join(", ")));
            }
            if a.default_allow {
                body.push("default allow".into());
            }
            let mut rules: Vec<String> = a
                .rules
                .iter()
                .map(|r| {
                    let mut conds: Vec<String> = r.conds.iter().map(Cond::render).collect();
                    if layout.reorder {
                        conds.reverse();
                    }
                    let w = if conds.is_empty() {
                        String::new()
                    } else {
                        format!(" where {}", conds.join(" and "))
                    };
                    format!(
                        "{} {}{w}",
                        if r.allow { "allow" } else { "deny" },
                        self.target(r.target)
                    )
                })
                .collect();
            if layout.reorder {
                rules.reverse();
                // A duplicated rule changes nothing.
                if let Some(first) = rules.first().cloned() {
                    rules.push(first);
                }
                body.reverse();
            }
            out.push(if layout.reorder {
                format!(
                    "agent ag{i} {{\n      {}\n}}",
                    body.iter()
                        .chain(&rules)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join("\n   ")
                )
            } else {
                format!(
                    "agent ag{i} {{ {} }}",
                    body.iter()
                        .chain(&rules)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join("\n")
                )
            });
        }
        if layout.reorder {
            out.reverse();
        }
        out.join("\n") + "\n"
    }

    /// Loads the policy: one file, or (reordered) the catalog and the agents in two files of
    /// other names.
    fn load(&self, layout: Layout) -> (Engine, toolgate::resolve::Policy) {
        let mut m = SourceMap::new();
        if layout.reorder {
            m.add("other/agents.policy", self.agents_text(layout));
            m.add("other/catalog.policy", self.catalog(layout));
        } else {
            m.add("p.policy", self.catalog(layout) + &self.agents_text(layout));
        }
        match toolgate::load::engine_from_sources(m) {
            Ok((engine, policy, _)) => (engine, policy),
            Err(e) => panic!(
                "generated policy does not load: {:?}\n{}{}",
                e.diagnostics
                    .iter()
                    .map(|d| d.message.clone())
                    .collect::<Vec<_>>(),
                self.catalog(layout),
                self.agents_text(layout)
            ),
        }
    }
}

fn cond() -> impl Strategy<Value = Cond> {
    (0..9usize, 0..3usize, 0..4usize, 0..6usize).prop_map(|(kind, arg, lit, op)| Cond {
        kind,
        arg,
        lit,
        op,
    })
}

fn rule() -> impl Strategy<Value = Rule> {
    (
        any::<bool>(),
        0..9usize,
        prop::collection::vec(cond(), 0..3),
    )
        .prop_map(|(allow, target, conds)| Rule {
            allow,
            target,
            conds,
        })
}

fn agent() -> impl Strategy<Value = Agent> {
    (
        prop::collection::vec(0..5usize, 0..3),
        prop::bool::weighted(0.3),
        prop::collection::vec(rule(), 0..4),
    )
        .prop_map(|(grants, default_allow, rules)| Agent {
            grants,
            default_allow,
            rules,
        })
}

/// About a third of the arguments are typed.
fn ty() -> impl Strategy<Value = Option<usize>> {
    prop::option::weighted(0.33, 0..TYPES.len())
}

fn tool() -> impl Strategy<Value = Tool> {
    (
        any::<bool>(),
        prop::collection::btree_map(0..3usize, (any::<bool>(), ty()), 0..3),
        prop::collection::btree_set(0..3usize, 0..2),
    )
        .prop_map(|(on_server, args, needs)| Tool {
            on_server,
            args: args
                .into_iter()
                .map(|(a, (opt, ty))| (a, opt, ty))
                .collect(),
            needs: needs.into_iter().collect(),
        })
}

fn policy() -> impl Strategy<Value = Pol> {
    (
        prop::bool::weighted(0.8),
        prop::collection::vec(tool(), 3..4),
        prop::collection::vec(agent(), 1..3),
    )
        .prop_map(|(catalog, tools, agents)| Pol {
            catalog,
            tools,
            agents,
        })
}

/// One edit of a policy: the kinds a policy review meets.
#[derive(Clone, Debug)]
enum Edit {
    AddRule(usize, Rule),
    RemoveRule(usize, usize),
    ChangeLiteral(usize, usize, usize),
    ChangeGrant(usize, usize),
    FlipDefault(usize),
    AddTool(Tool),
    ChangeNeeds(usize, usize),
    /// Tool, argument slot, new type (`None`: untyped).
    ChangeType(usize, usize, Option<usize>),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0..3usize, rule()).prop_map(|(a, r)| Edit::AddRule(a, r)),
        (0..3usize, 0..4usize).prop_map(|(a, r)| Edit::RemoveRule(a, r)),
        (0..3usize, 0..4usize, 0..4usize).prop_map(|(a, r, l)| Edit::ChangeLiteral(a, r, l)),
        (0..3usize, 0..5usize).prop_map(|(a, g)| Edit::ChangeGrant(a, g)),
        (0..3usize).prop_map(Edit::FlipDefault),
        tool().prop_map(Edit::AddTool),
        (0..4usize, 0..3usize).prop_map(|(t, n)| Edit::ChangeNeeds(t, n)),
        (0..4usize, 0..3usize, ty()).prop_map(|(t, a, ty)| Edit::ChangeType(t, a, ty)),
        (0..4usize, 0..3usize, 0..TYPES.len()).prop_map(|(t, a, ty)| Edit::ChangeType(
            t,
            a,
            Some(ty)
        )),
    ]
}

fn apply(p: &Pol, e: &Edit) -> Pol {
    let mut p = p.clone();
    let na = p.agents.len();
    match e {
        Edit::AddRule(a, r) => p.agents[a % na].rules.push(r.clone()),
        Edit::RemoveRule(a, r) => {
            let rules = &mut p.agents[a % na].rules;
            if !rules.is_empty() {
                let k = r % rules.len();
                rules.remove(k);
            }
        }
        Edit::ChangeLiteral(a, r, l) => {
            let rules = &mut p.agents[a % na].rules;
            if !rules.is_empty() {
                let k = r % rules.len();
                if let Some(c) = rules[k].conds.first_mut() {
                    c.lit = *l;
                }
            }
        }
        Edit::ChangeGrant(a, g) => {
            let grants = &mut p.agents[a % na].grants;
            if grants.is_empty() {
                grants.push(*g);
            } else {
                grants[0] = *g;
            }
        }
        Edit::FlipDefault(a) => p.agents[a % na].default_allow ^= true,
        Edit::AddTool(t) => p.tools.push(t.clone()),
        Edit::ChangeNeeds(t, n) => {
            let k = t % p.tools.len();
            p.tools[k].needs = vec![*n];
        }
        Edit::ChangeType(t, a, ty) => {
            let k = t % p.tools.len();
            let args = &mut p.tools[k].args;
            if args.is_empty() {
                args.push((a % ARGS.len(), true, *ty));
            } else {
                let n = args.len();
                args[a % n].2 = *ty;
            }
        }
    }
    p
}

fn run_diff(
    old: &(Engine, toolgate::resolve::Policy),
    new: &(Engine, toolgate::resolve::Policy),
) -> Report {
    diff(
        Side {
            policy: &old.1,
            engine: &old.0,
        },
        Side {
            policy: &new.1,
            engine: &new.0,
        },
        &Budget {
            states: 5_000,
            candidates: 2_000,
        },
    )
}

/// Values requests are drawn from: the policies' literals, their mutations, and every kind.
fn value_pool() -> Vec<Option<Value>> {
    vec![
        None,
        Some(json!("a")),
        Some(json!("b")),
        Some(json!("ab")),
        Some(json!("x1")),
        Some(json!("a1")),
        Some(json!("ba")),
        Some(json!("/srv/a")),
        Some(json!("/srv/x.txt")),
        Some(json!("/srv/../etc/x")),
        Some(json!("/etc/passwd")),
        Some(json!("srv/a")),
        Some(json!("")),
        Some(json!(3)),
        Some(json!(5)),
        Some(json!(4.5)),
        Some(json!(4)),
        Some(json!(-1)),
        Some(json!(null)),
        Some(json!(true)),
        Some(json!(["a", "b"])),
        Some(json!([])),
        Some(json!(["/srv/a", "/etc/b"])),
        Some(json!(["x1", "ab"])),
        Some(json!({"k": 1})),
        Some(json!(0.5)),
        Some(json!(false)),
        Some(json!([1, 2])),
        Some(json!([0.5])),
        Some(json!([[1], []])),
        Some(json!([[0.5]])),
        Some(json!([1, "a"])),
        Some(json!([{}])),
        Some(json!([null])),
        Some(json!([true, [2]])),
        Some(json!({"cwd": "/srv/a"})),
    ]
}

/// agent, tool, whether to name the server, the three arguments' values, permissions.
type Drawn = (usize, usize, bool, [usize; 3], usize);

fn requests() -> impl Strategy<Value = Drawn> {
    (
        0..4usize,
        0..6usize,
        any::<bool>(),
        [0..36usize, 0..36usize, 0..36usize],
        0..7usize,
    )
}

fn build_request(p: &Pol, (agent, tool, server, vals, perms): Drawn) -> Request {
    let pool = value_pool();
    let tool_name = format!("t{tool}");
    let mut req = Request::new(format!("ag{agent}"), tool_name);
    if server && (!p.catalog || p.tools.get(tool).is_some_and(|t| t.on_server)) {
        req = req.server("s");
    }
    let mut args = serde_json::Map::new();
    for (k, &v) in vals.iter().enumerate() {
        if let Some(Some(x)) = pool.get(v) {
            args.insert(ARGS[k].into(), x.clone());
        }
    }
    req.args = args;
    if !p.catalog {
        let pool: [&[&str]; 7] = [
            &[],
            &["a:r"],
            &["a:w"],
            &["b:x"],
            &["c:y"],
            &["a:r", "b:x"],
            &["a:x", "a:r"],
        ];
        if perms > 0 {
            req = req.permissions(pool[perms].iter().copied());
        }
        if server && tool >= 3 {
            req = req.server("u");
        }
    }
    req
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn a_policy_rebuilt_from_its_bundle_decides_as_it_does(
        p in policy(),
        draws in prop::collection::vec(requests(), 1..24),
    ) {
        let source = p.load(Layout::default());
        let bundle = Engine::from_bundle(&source.0.to_bundle()).unwrap();
        let back = toolgate::review::decompile::decompile(&bundle).unwrap();
        let rebuilt = toolgate::load::engine_from_str(
            toolgate::review::decompile::RECONSTRUCTED,
            &back.text,
        )
        .unwrap();
        for d in draws {
            let req = build_request(&p, d);
            let (want, got) = (source.0.decide(&req), rebuilt.decide(&req));
            prop_assert_eq!(want.decision, got.decision, "{:?}\n{}", req, back.text);
            prop_assert_eq!(want.reason, got.reason, "{:?}\n{}", req, back.text);
            // The deciding rule is the same, and maps back to where the source has it.
            let mapped = got.rule.as_deref().map(|r| back.original(&r.file, r.line).cloned());
            prop_assert_eq!(want.rule.as_deref().cloned().map(Some), mapped, "{:?}", req);
            prop_assert_eq!(&want.permission, &got.permission, "{:?}", req);
            prop_assert_eq!(&want.argument, &got.argument, "{:?}", req);
            if want.rule.is_none() {
                prop_assert_eq!(&want.message, &got.message, "{:?}", req);
            }
        }
        // Nothing differs between the source and the bundle, in either direction.
        let bundle = (bundle, back.policy);
        let report = run_diff(&source, &bundle);
        prop_assert!(report.is_empty(), "{:?}\n{}", report.pairs, back.text);
        let report = run_diff(&bundle, &source);
        prop_assert!(report.is_empty(), "{:?}", report.pairs);
    }

    #[test]
    fn a_policy_does_not_differ_from_itself(p in policy()) {
        let a = p.load(Layout::default());
        let b = p.load(Layout::default());
        let report = run_diff(&a, &b);
        prop_assert!(report.is_empty(), "{:?}", report.pairs);
    }

    #[test]
    fn reordering_and_refiling_change_nothing(p in policy()) {
        let a = p.load(Layout::default());
        let b = p.load(Layout { reorder: true });
        let report = run_diff(&a, &b);
        prop_assert!(report.is_empty(), "{:?}", report.pairs);
        let report = run_diff(&b, &a);
        prop_assert!(report.is_empty(), "{:?}", report.pairs);
    }

    #[test]
    fn a_narrower_copy_of_a_rule_changes_nothing(p in policy(), extra in cond()) {
        // `R where C and D` next to `R where C` never fires without it: equivalent, but no
        // longer the same rules, so the pairs are compared region by region.
        let mut q = p.clone();
        for a in &mut q.agents {
            let copies: Vec<Rule> = a.rules.iter().map(|r| {
                let mut r = r.clone();
                r.conds.push(extra.clone());
                r
            }).collect();
            a.rules.extend(copies);
        }
        let report = run_diff(&p.load(Layout::default()), &q.load(Layout::default()));
        for pair in &report.pairs {
            prop_assert!(pair.witnesses.is_empty(), "{:?}", pair);
            let why = pair.undecided.as_deref().unwrap_or("");
            prop_assert!(why.contains("only sampled"), "{:?}", pair);
        }
        let samples = p.agents.iter().chain(&q.agents).flat_map(|a| &a.rules).flat_map(|r| &r.conds)
            .any(|c| c.kind == 3 || c.kind == 6);
        if !samples {
            prop_assert!(report.is_empty(), "{:?}", report.pairs);
        }
    }

    #[test]
    fn witnesses_are_decided_differently_and_differences_are_found(
        p in policy(),
        e in edit(),
        reqs in prop::collection::vec(requests(), 40),
    ) {
        let q = apply(&p, &e);
        let old = p.load(Layout::default());
        let new = q.load(Layout::default());
        let report = run_diff(&old, &new);
        for pair in &report.pairs {
            for w in &pair.witnesses {
                let req = Request::from_json(&w.request.to_string()).unwrap();
                let (a, b) = (old.0.decide(&req), new.0.decide(&req));
                prop_assert_ne!(a.decision, b.decision, "witness {} is not a difference", w.request);
                prop_assert_eq!(a.decision, w.old.decision);
                prop_assert_eq!(b.decision, w.new.decision);
                let widened = b.is_allowed();
                prop_assert_eq!(widened, w.direction == Direction::Widened);
                prop_assert_eq!(req.agent.as_str(), pair.agent.as_str());
                prop_assert_eq!(&req.tool, &pair.tool);
                prop_assert_eq!(&req.server, &pair.server);
            }
        }
        for r in reqs {
            let req = build_request(&q, r);
            let (a, b) = (old.0.decide(&req), new.0.decide(&req));
            if a.decision != b.decision {
                // With a catalog: the same address (a request naming no server, for a tool
                // declared once on the same server in both policies, is reported under the
                // server's name). Without one, names are free and the pair is reported under a
                // name every target judges alike: the request with that name must be decided
                // as this one.
                let found = report.pairs.iter().find(|d| {
                    if d.agent != req.agent {
                        return false;
                    }
                    if p.catalog && q.catalog {
                        return d.tool == req.tool
                            && (d.server == req.server || req.server.is_none());
                    }
                    let mut alt = req.clone();
                    alt.tool = d.tool.clone();
                    alt.server = d.server.clone();
                    old.0.decide(&alt).decision == a.decision
                        && new.0.decide(&alt).decision == b.decision
                });
                prop_assert!(
                    found.is_some(),
                    "{} is decided {:?} then {:?}, but diff reports nothing for it",
                    serde_json::to_string(&json!({"agent": req.agent, "server": req.server, "tool": req.tool, "args": req.args, "permissions": req.permissions})).unwrap(),
                    a.decision, b.decision
                );
                let found = found.unwrap();
                let covered = found.undecided.is_some()
                    || found.witnesses.iter().any(|w| (w.direction == Direction::Widened) == b.is_allowed());
                prop_assert!(covered, "the difference's direction is not reported: {:?}", found);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The command

fn toolgate() -> Command {
    let mut cmd = Command::cargo_bin("toolgate").expect("the toolgate binary is built");
    cmd.env("NO_COLOR", "1");
    cmd
}

fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("policies")
        .join(name)
}

/// A copy of a shipped policy with one text replaced (the text must occur).
fn edited(dir: &Path, name: &str, from: &str, to: &str) -> PathBuf {
    let text = std::fs::read_to_string(shipped(name)).unwrap();
    assert!(text.contains(from), "{from:?} is not in {name}");
    let path = dir.join(name);
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    path
}

#[test]
fn identical_shipped_policies_print_nothing() {
    for name in [
        "example.policy",
        "hermes.policy",
        "steerholm.policy",
        "agent-lattice.policy",
    ] {
        let dir = tempfile::tempdir().unwrap();
        // The same text under another file name, reformatted by the toolgate formatter.
        let copy = dir.path().join("renamed.policy");
        std::fs::copy(shipped(name), &copy).unwrap();
        toolgate().arg("fmt").arg(&copy).assert().success();
        let out = toolgate()
            .args(["diff", "--fail-on", "any"])
            .arg(shipped(name))
            .arg(&copy)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            out.stdout.is_empty(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

#[test]
fn a_folder_equals_its_files_merged() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(shipped("hermes.policy"), dir.path().join("a.policy")).unwrap();
    toolgate()
        .args(["diff", "--fail-on", "any"])
        .arg(shipped("hermes.policy"))
        .arg(dir.path())
        .assert()
        .code(0)
        .stdout("");
}

#[test]
fn a_widening_edit_fails_the_widen_gate_with_a_witness() {
    let dir = tempfile::tempdir().unwrap();
    let new = edited(
        dir.path(),
        "example.policy",
        "\"/srv/review/**\"",
        "\"/srv/**\"",
    );
    let out = toolgate()
        .args(["diff", "--fail-on", "widen"])
        .arg(shipped("example.policy"))
        .arg(&new)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("reviewer git.git_log: widened"), "{text}");
    // The witness line is a request `toolgate eval` decides: denied by the old policy,
    // allowed by the new one.
    let witness = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("widened: "))
        .expect("a witness line");
    let req = dir.path().join("req.json");
    std::fs::write(&req, witness).unwrap();
    for (policy, expect) in [(shipped("example.policy"), "deny"), (new.clone(), "allow")] {
        let out = toolgate()
            .arg("eval")
            .arg(&policy)
            .arg("--request")
            .arg(&req)
            .output()
            .unwrap();
        let d: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(d["decision"], expect, "{witness}");
    }
    // Without --fail-on, the same difference exits 0.
    toolgate()
        .arg("diff")
        .arg(shipped("example.policy"))
        .arg(&new)
        .assert()
        .code(0);
}

#[test]
fn a_narrowing_edit_passes_the_widen_gate() {
    let dir = tempfile::tempdir().unwrap();
    let new = edited(
        dir.path(),
        "example.policy",
        "\"/srv/review/**\"",
        "\"/srv/review/a/**\"",
    );
    let out = toolgate()
        .args(["diff", "--fail-on", "widen"])
        .arg(shipped("example.policy"))
        .arg(&new)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("reviewer git.git_log: narrowed"), "{text}");
    assert!(!text.contains("widened"), "{text}");
    toolgate()
        .args(["diff", "--fail-on", "any"])
        .arg(shipped("example.policy"))
        .arg(&new)
        .assert()
        .code(1);
}

/// The witness line of a direction in `toolgate diff` text output, as JSON.
fn witness_line(text: &str, direction: &str) -> Value {
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix(&format!("{direction}: ")))
        .unwrap_or_else(|| panic!("no {direction} witness in {text}"));
    serde_json::from_str(line).unwrap()
}

#[test]
fn a_number_argument_made_integer_narrows_with_a_fractional_witness() {
    let dir = tempfile::tempdir().unwrap();
    // The shipped policy declares `timeout?: integer`; the old one said `number`.
    let old = edited(
        dir.path(),
        "typed.policy",
        "timeout?: integer",
        "timeout?: number",
    );
    // Shell patterns are only sampled, which the widen gate counts as a possible widening:
    // no gate here.
    let out = toolgate()
        .arg("diff")
        .arg(&old)
        .arg(shipped("typed.policy"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("typed-builder typed-ci.run: narrowed"),
        "{text}"
    );
    assert!(!text.contains("widened"), "{text}");
    let w = witness_line(&text, "narrowed");
    let timeout = w["args"]["timeout"].as_f64().unwrap();
    assert_ne!(timeout.fract(), 0.0, "{w}");
    assert!(text.contains("new: deny (invalid_argument)"), "{text}");
    // The other way round, the same request is a widening.
    let out = toolgate()
        .args(["diff", "--fail-on", "widen"])
        .arg(shipped("typed.policy"))
        .arg(&old)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("typed-builder typed-ci.run: widened"),
        "{text}"
    );
    assert_eq!(witness_line(&text, "widened")["args"], w["args"], "{text}");
}

#[test]
fn typing_an_untyped_argument_narrows() {
    let dir = tempfile::tempdir().unwrap();
    let new = edited(
        dir.path(),
        "example.policy",
        "tool Bash(command, timeout?)",
        "tool Bash(command: string, timeout?: number)",
    );
    let out = toolgate()
        .arg("diff")
        .arg(shipped("example.policy"))
        .arg(&new)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("code-assistant Bash: narrowed"), "{text}");
    assert!(!text.contains("widened"), "{text}");
    let w = witness_line(&text, "narrowed");
    let args = w["args"].as_object().unwrap();
    assert!(
        !args["command"].is_string() || args.get("timeout").is_some_and(|t| !t.is_number()),
        "{w}"
    );
    assert!(text.contains("new: deny (invalid_argument)"), "{text}");
}

#[test]
fn json_output_has_stable_keys() {
    let dir = tempfile::tempdir().unwrap();
    let new = edited(
        dir.path(),
        "hermes.policy",
        "\nagent ",
        "\nagent extra {\n  grant *\n  default allow\n}\nagent ",
    );
    let out = toolgate()
        .args(["diff", "--format", "json"])
        .arg(shipped("hermes.policy"))
        .arg(&new)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["compared", "differences"]);
    let diffs = v["differences"].as_array().unwrap();
    assert!(!diffs.is_empty());
    for d in diffs {
        let keys: Vec<&str> = d.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "agent",
                "change",
                "server",
                "tool",
                "undecided",
                "witnesses"
            ]
        );
        assert_eq!(d["agent"], "extra");
        assert_eq!(d["change"], "widened");
        for w in d["witnesses"].as_array().unwrap() {
            let keys: Vec<&str> = w.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(keys, ["direction", "new", "old", "request"]);
            assert_eq!(w["old"]["reason"], "unknown_agent");
            assert_eq!(w["new"]["decision"], "allow");
            let side: Vec<&str> = w["new"]
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(side, ["decision", "message", "reason", "rule"]);
        }
    }
    // Equivalent policies: an empty list.
    let out = toolgate()
        .args(["diff", "--format", "json"])
        .arg(shipped("hermes.policy"))
        .arg(shipped("hermes.policy"))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["differences"], json!([]));
}

/// `toolgate compile` of `policy` into `dir`.
fn compiled(dir: &Path, policy: &Path, name: &str) -> PathBuf {
    let bundle = dir.join(name);
    toolgate()
        .arg("compile")
        .arg(policy)
        .arg("-o")
        .arg(&bundle)
        .assert()
        .success();
    bundle
}

#[test]
fn a_bundle_does_not_differ_from_its_source() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["example.policy", "hermes.policy"] {
        let bundle = compiled(dir.path(), &shipped(name), &format!("{name}.bundle"));
        for (old, new) in [
            (shipped(name), bundle.clone()),
            (bundle.clone(), shipped(name)),
        ] {
            let out = toolgate().arg("diff").arg(&old).arg(&new).output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{name}");
            assert_eq!(String::from_utf8_lossy(&out.stdout), "", "{name}");
        }
    }
}

#[test]
fn a_bundle_of_an_edited_copy_differs_as_the_copy_does() {
    let dir = tempfile::tempdir().unwrap();
    let copy = edited(
        dir.path(),
        "example.policy",
        "\"/srv/review/**\"",
        "\"/srv/**\"",
    );
    let bundle = compiled(dir.path(), &copy, "copy.bundle");
    let run = |new: &Path| {
        toolgate()
            .args(["diff", "--format", "json", "--fail-on", "widen"])
            .arg(shipped("example.policy"))
            .arg(new)
            .output()
            .unwrap()
    };
    let (from_source, from_bundle) = (run(&copy), run(&bundle));
    assert_eq!(from_source.status.code(), Some(1));
    assert_eq!(from_bundle.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&from_source.stdout).unwrap();
    assert!(!v["differences"].as_array().unwrap().is_empty());
    // The same pairs, witnesses and decisions, down to the rule locations (the bundle
    // records the copy's file, lines and columns).
    assert_eq!(
        String::from_utf8_lossy(&from_source.stdout),
        String::from_utf8_lossy(&from_bundle.stdout)
    );
}

#[test]
fn missing_paths_are_usage_errors() {
    toolgate()
        .arg("diff")
        .arg(Path::new("no/such/missing.policy"))
        .arg(shipped("hermes.policy"))
        .assert()
        .code(2);
}

#[test]
fn an_undecided_pair_fails_the_widen_gate() {
    // A narrowing edit, but with a budget too small to decide it: fail closed.
    let dir = tempfile::tempdir().unwrap();
    let new = edited(
        dir.path(),
        "example.policy",
        "\"/srv/review/**\"",
        "\"/srv/review/a/**\"",
    );
    let out = toolgate()
        .args(["diff", "--fail-on", "widen", "--max-candidates", "1"])
        .arg(shipped("example.policy"))
        .arg(&new)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("undecided: gave up after 1 of "), "{text}");
    assert!(!text.contains("widened"), "{text}");
}

#[test]
fn policies_without_a_catalog_are_compared_by_name_region() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.policy");
    let new = dir.path().join("new.policy");
    std::fs::write(
        &old,
        "agent a {\n  grant fs:read\n  allow read_* where path matches \"/srv/**\"\n}\n",
    )
    .unwrap();
    std::fs::write(
        &new,
        "agent a {\n  grant fs:*\n  allow read_* where path matches \"/srv/**\"\n}\n",
    )
    .unwrap();
    let out = toolgate()
        .args(["diff", "--format", "json"])
        .arg(&old)
        .arg(&new)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let diffs = v["differences"].as_array().unwrap();
    assert!(!diffs.is_empty());
    for d in diffs {
        assert_eq!(d["change"], "widened");
        assert_eq!(d["undecided"], Value::Null);
        let w = &d["witnesses"][0];
        // A permission `fs:*` covers and `fs:read` does not, on a tool `read_*` matches.
        assert!(w["request"]["tool"].as_str().unwrap().starts_with("read_"));
        let perms = w["request"]["permissions"].as_array().unwrap();
        assert!(perms[0].as_str().unwrap().starts_with("fs:") && perms[0] != "fs:read");
        assert_eq!(w["old"]["reason"], "permission_missing");
    }
}

#[test]
fn a_pair_no_call_can_reach_is_decided_exactly() {
    // `a` lacks the permission `t` needs in both policies, and `b` too before it is removed:
    // no call reaches the shell conditions (which are only sampled), so nothing differs.
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.policy");
    let new = dir.path().join("new.policy");
    std::fs::write(
        &old,
        "tool t(cmd) needs proc:exec\nagent a {\n  allow t where cmd matches shell \"ls ...\"\n}\nagent b {\n  grant fs:read\n  allow t where cmd matches shell \"ls ...\"\n}\n",
    )
    .unwrap();
    std::fs::write(
        &new,
        "tool t(cmd) needs proc:exec\nagent a {\n  allow t where cmd matches shell \"git ...\"\n}\n",
    )
    .unwrap();
    for budget in [None, Some("1")] {
        let mut cmd = toolgate();
        cmd.args(["diff", "--fail-on", "widen"]);
        if let Some(n) = budget {
            cmd.args(["--max-candidates", n]);
        }
        let out = cmd.arg(&old).arg(&new).output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(0), "{text}");
        assert_eq!(text, "");
    }
    // Granted in the new policy, the same edit is a real difference again.
    std::fs::write(
        &new,
        "tool t(cmd) needs proc:exec\nagent a {\n  grant proc:exec\n  allow t where cmd matches shell \"git ...\"\n}\n",
    )
    .unwrap();
    let out = toolgate()
        .args(["diff", "--fail-on", "widen"])
        .arg(&old)
        .arg(&new)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("widened: "), "{text}");
}

#[test]
fn text_witnesses_escape_control_characters() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.policy");
    let new = dir.path().join("new.policy");
    std::fs::write(&old, "tool t(cmd)\nagent a {\n}\n").unwrap();
    std::fs::write(
        &new,
        "tool t(cmd)\nagent a {\n  allow t where cmd matches re\"^\\x{9b}2J\\x7f\\x1b\\u{202e}\"\n}\n",
    )
    .unwrap();
    let out = toolgate().arg("diff").arg(&old).arg(&new).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        !text
            .chars()
            .any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'),
        "{text:?}"
    );
    let witness = witness_line(&text, "widened");
    assert_eq!(
        witness["args"]["cmd"], "\u{9b}2J\u{7f}\u{1b}\u{202e}",
        "{text}"
    );
    assert!(text.contains(r"\u009b2J\u007f\u001b\u202e"), "{text}");
}
