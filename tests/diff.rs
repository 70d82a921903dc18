//! The semantic difference (`review::diff`): property tests on random small policies (the
//! `toolgate diff` command is tested in cli/tests/diff.rs).

use proptest::prelude::*;
use serde_json::{json, Value};
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
