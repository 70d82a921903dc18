//! Whether two texts are the same policy: both parsed, and their syntax trees compared with positions cleared.

use super::*;

pub(super) fn z() -> Span {
    Span::default()
}

pub(super) fn strip_name(n: &Name) -> Name {
    Name {
        span: z(),
        ..n.clone()
    }
}

pub(super) fn strip_lit(s: &StrLit) -> StrLit {
    StrLit {
        span: z(),
        ..s.clone()
    }
}

pub(super) fn strip_perms(p: &[PermissionLit]) -> Vec<PermissionLit> {
    p.iter()
        .map(|p| PermissionLit {
            span: z(),
            ..p.clone()
        })
        .collect()
}

pub(super) fn strip_tool(t: &ToolDecl) -> ToolDecl {
    ToolDecl {
        name: strip_name(&t.name),
        params: t.params.as_ref().map(|ps| {
            ps.iter()
                .map(|p| Param {
                    name: strip_name(&p.name),
                    optional: p.optional,
                    ty: p.ty.as_ref().map(|t| TypeExpr {
                        words: t.words.iter().map(strip_name).collect(),
                        span: z(),
                    }),
                })
                .collect()
        }),
        needs: strip_perms(&t.needs),
        span: z(),
    }
}

pub(super) fn strip_part(p: &TargetPart) -> TargetPart {
    TargetPart {
        span: z(),
        ..p.clone()
    }
}

pub(super) fn strip_cond(c: &Condition) -> Condition {
    let lits = |v: &[StrLit]| v.iter().map(strip_lit).collect();
    Condition {
        arg: ArgPath {
            segments: c.arg.segments.clone(),
            span: z(),
        },
        op: match &c.op {
            CondOp::Present => CondOp::Present,
            CondOp::StrEq(s) => CondOp::StrEq(strip_lit(s)),
            CondOp::StrNe(s) => CondOp::StrNe(strip_lit(s)),
            CondOp::Num(op, n, _) => CondOp::Num(*op, *n, z()),
            CondOp::In(v) => CondOp::In(lits(v)),
            CondOp::Glob(s) => CondOp::Glob(strip_lit(s)),
            CondOp::Regex(s) => CondOp::Regex(strip_lit(s)),
            CondOp::Shell(s) => CondOp::Shell(strip_lit(s)),
            CondOp::Contains(s) => CondOp::Contains(strip_lit(s)),
            CondOp::ContainsAny(v) => CondOp::ContainsAny(lits(v)),
        },
        span: z(),
    }
}

/// The file with every position cleared, for comparing two parses.
pub(super) fn strip_file(f: &File) -> File {
    let items = f
        .items
        .iter()
        .map(|item| match item {
            Item::Server(s) => Item::Server(Server {
                name: strip_name(&s.name),
                tools: s.tools.iter().map(strip_tool).collect(),
                span: z(),
            }),
            Item::Tool(t) => Item::Tool(strip_tool(t)),
            Item::Agent(a) => Item::Agent(Agent {
                name: strip_name(&a.name),
                stmts: a
                    .stmts
                    .iter()
                    .map(|s| match s {
                        AgentStmt::Grant(p, _) => AgentStmt::Grant(strip_perms(p), z()),
                        AgentStmt::Default(e, _) => AgentStmt::Default(*e, z()),
                        AgentStmt::Rule(r) => AgentStmt::Rule(Rule {
                            effect: r.effect,
                            target: Target {
                                server: r.target.server.as_ref().map(strip_part),
                                tool: strip_part(&r.target.tool),
                                span: z(),
                            },
                            conditions: r.conditions.iter().map(strip_cond).collect(),
                            because: r.because.as_ref().map(strip_lit),
                            span: z(),
                        }),
                    })
                    .collect(),
                span: z(),
            }),
            Item::Test(t) => Item::Test(TestBlock {
                name: strip_lit(&t.name),
                expectations: t
                    .expectations
                    .iter()
                    .map(|e| Expectation {
                        expect: e.expect,
                        agent: strip_name(&e.agent),
                        server: e.server.as_ref().map(strip_name),
                        tool: strip_name(&e.tool),
                        args: e.args.clone(),
                        needs: e.needs.as_deref().map(strip_perms),
                        reason: e.reason.as_ref().map(strip_name),
                        span: z(),
                    })
                    .collect(),
                span: z(),
            }),
        })
        .collect();
    File { items }
}

/// True when two texts parse to the same policy, positions aside (both must parse).
///
/// # Example
///
/// ```
/// assert!(toolgate::fmt::same_policy("agent a { allow t }", "agent a {\n  allow t\n}\n"));
/// assert!(!toolgate::fmt::same_policy("agent a { allow t }", "agent a { deny t }"));
/// ```
pub fn same_policy(a: &str, b: &str) -> bool {
    let (fa, da) = parse_file(FileId(0), a);
    let (fb, db) = parse_file(FileId(0), b);
    !da.has_errors() && !db.has_errors() && strip_file(&fa) == strip_file(&fb)
}
