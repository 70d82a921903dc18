//! The decision procedure, in the order of docs/language.md section 11: agent, tool lookup,
//! permission gate (precomputed per agent and catalog tool), required arguments, declared
//! argument types, then the rule group (deny wins, then allow, then the agent's default).

use super::decision::{Explanation, Reason, RuleTrace, Verdict};
use super::request::RequestRef;
use super::{evaluate, Engine};
use crate::program::agent::AgentRt;
use crate::program::bitset::BitSet;
use crate::program::catalog::{Catalog, Tool};
use crate::program::group::Group;
use crate::program::ids::AgentId;
use crate::resolve::parse_permission;
use crate::syntax::ast::Effect;
use crate::value::JsonArgs;
use std::borrow::Cow;

/// The resolved tool of a request.
pub(super) struct Resolved<'a> {
    /// How messages name the tool.
    display: Shown<'a>,
    needs_missing: Option<Cow<'a, str>>,
    needs: Vec<String>,
    /// The catalog tool, whose required and typed arguments are checked (none without a
    /// catalog).
    declared: Option<Tool<'a>>,
    group: &'a Group,
    candidates: evaluate::Candidates<'a>,
}

/// How messages name a resolved tool: `server.tool` or `tool`, written only when a message
/// needs it (an allowed call writes none).
enum Shown<'a> {
    Catalog(Tool<'a>),
    Request(String),
}

impl Shown<'_> {
    /// The server's name (for a server's tool) and the tool's.
    fn parts(&self) -> (Option<&str>, &str) {
        match self {
            Shown::Catalog(t) => (t.server(), t.name()),
            Shown::Request(s) => (None, s),
        }
    }

    /// Appends the name to `out`.
    fn write_to(&self, out: &mut String) {
        let (server, name) = self.parts();
        if let Some(s) = server {
            out.push_str(s);
            out.push('.');
        }
        out.push_str(name);
    }

    /// The name's length in bytes.
    fn len(&self) -> usize {
        let (server, name) = self.parts();
        server.map_or(0, |s| s.len() + 1) + name.len()
    }
}

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (server, name) = self.parts();
        if let Some(s) = server {
            write!(f, "{s}.")?;
        }
        f.write_str(name)
    }
}

impl Engine {
    /// Decides; when `explanation` is given, records how in it.
    pub(super) fn verdict<'r, A: JsonArgs<'r>>(
        &self,
        req: &RequestRef<'r, A>,
        explanation: &mut Option<Explanation>,
    ) -> Verdict<'_> {
        let explain = explanation.is_some();

        // 1. agent
        let Some((agent_id, agent)) = self.program.agent(req.agent) else {
            let hint = crate::resolve::suggest::did_you_mean(req.agent, self.agent_names())
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            return Verdict::new(
                Reason::UnknownAgent,
                format!("unknown agent `{}`{hint}", req.agent),
            );
        };
        if let Some(e) = explanation.as_mut() {
            e.agent = Some(agent.name.to_string());
        }

        // 2. tool lookup (and, without a catalog, the request's declared permissions)
        let resolved = match self.resolve_tool(agent_id, agent, req, explain) {
            Ok(r) => r,
            Err(v) => return v,
        };
        if let Some(e) = explanation.as_mut() {
            e.tool = Some(resolved.display.to_string());
            e.needs = resolved.needs.clone();
        }

        // 3. permission gate
        if let Some(p) = resolved.needs_missing {
            let message = format!(
                "{} requires the \"{p}\" permission, which was not granted.\nRetrying with different arguments will not help",
                resolved.display
            );
            return Verdict {
                permission: Some(p),
                ..Verdict::new(Reason::PermissionMissing, message)
            };
        }

        // 4. required arguments, then declared argument types
        if let Some(refused) = argument_refusal(&resolved, req) {
            return refused;
        }

        // 5. rules
        let group = resolved.group;
        let mut trace = evaluate::Trace::new();
        let Some(fired) = group.evaluate(
            req.args,
            &resolved.candidates,
            &self.program.automata,
            &self.program.needles,
            explain.then_some(&mut trace),
        ) else {
            return Verdict::new(
                Reason::InternalError,
                "a matcher of the policy failed while deciding this call; it is denied",
            );
        };
        if let Some(e) = explanation.as_mut() {
            e.default = Some(agent.default.as_str().to_string());
            self.record_trace(e, group, &trace);
        }
        let (local, reason) = match fired {
            evaluate::Fired::Deny(local) => (local, Reason::DeniedByRule),
            evaluate::Fired::Allow(local) => (local, Reason::AllowedByRule),
            evaluate::Fired::Nothing if agent.default == Effect::Allow => {
                return Verdict::new(Reason::DefaultAllow, &*agent.default_message)
            }
            evaluate::Fired::Nothing => {
                return Verdict::new(
                    Reason::NoMatchingRule,
                    no_rule_allows(&agent.name, &resolved.display),
                )
            }
        };
        let Some(rule) = group
            .rule(local)
            .and_then(|r| self.program.rules.get(r.index()))
        else {
            return Verdict::new(
                Reason::InternalError,
                "the deciding rule is missing from the policy; the call is denied",
            );
        };
        Verdict {
            rule: Some(rule.info),
            ..Verdict::new(reason, rule.message)
        }
    }

    /// Records, for `--explain`, each rule the group judged: fired, or the condition that
    /// failed.
    fn record_trace(&self, e: &mut Explanation, group: &Group, trace: &evaluate::Trace) {
        for &(local, failed) in trace {
            let Some(rule_id) = group.rule(local) else {
                continue;
            };
            let Some(rule) = self.program.rules.get(rule_id.index()) else {
                continue;
            };
            e.rules.push(RuleTrace {
                rule: rule.info.clone(),
                outcome: if failed.is_some() {
                    "not_fired"
                } else {
                    "fired"
                },
                failed_condition: failed.map(|k| {
                    let at = group.rule_conds().row_start(local.index()) + k;
                    group.rule_cond_text.get(at).to_string()
                }),
            });
        }
    }

    fn resolve_tool<'a, 'r, A: JsonArgs<'r>>(
        &'a self,
        agent_id: AgentId,
        agent: &'a AgentRt,
        req: &RequestRef<'r, A>,
        explain: bool,
    ) -> Result<Resolved<'a>, Verdict<'a>> {
        match &self.program.catalog {
            Some(cat) => self.resolve_catalog_tool(cat, agent_id, agent, req, explain),
            None => self.resolve_uncataloged(agent_id, agent, req),
        }
    }

    /// Step 2 with a catalog: the request's tool among the declared ones, with its gate.
    fn resolve_catalog_tool<'a, 'r, A: JsonArgs<'r>>(
        &'a self,
        cat: &'a Catalog,
        agent_id: AgentId,
        agent: &'a AgentRt,
        req: &RequestRef<'r, A>,
        explain: bool,
    ) -> Result<Resolved<'a>, Verdict<'a>> {
        let named = cat.named(req.tool);
        let mut two = named.clone();
        let chosen = match req.server {
            Some(server) => named
                .clone()
                .find(|&t| cat.tool(t).server() == Some(server)),
            None => match (two.next(), two.next()) {
                (Some(t), None) => Some(t),
                (None, _) => None,
                (Some(_), Some(_)) => {
                    let places: Vec<String> = named
                        .map(|t| match cat.tool(t).server() {
                            Some(s) => format!("server `{s}`"),
                            None => "a host tool".to_string(),
                        })
                        .collect();
                    return Err(Verdict::new(
                        Reason::AmbiguousTool,
                        format!(
                            "tool `{}` is declared as {}; name the server in the request",
                            req.tool,
                            places.join(", ")
                        ),
                    ));
                }
            },
        };
        let Some(t) = chosen else {
            let shown = match req.server {
                Some(s) => format!("{s}.{}", req.tool),
                None => req.tool.to_string(),
            };
            let hint = crate::resolve::suggest::did_you_mean(req.tool, cat.names())
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            return Err(Verdict::new(
                Reason::UnknownTool,
                format!("unknown tool `{shown}`{hint}"),
            ));
        };
        let tool = cat.tool(t);
        let slot = agent_id.index() * cat.n_tools() + t.index();
        let (all, deny) = cat.candidates(agent_id, t);
        Ok(Resolved {
            display: Shown::Catalog(tool),
            needs_missing: cat
                .missing(slot)
                .map(|p| Cow::Borrowed(self.program.perms.name(p))),
            needs: if explain {
                tool.needs()
                    .iter()
                    .map(|&p| self.program.perms.name(p).to_string())
                    .collect()
            } else {
                Vec::new()
            },
            declared: Some(tool),
            group: &self.program.groups[agent.group.index()],
            candidates: evaluate::Candidates::List { all, deny },
        })
    }

    /// Step 2 without a catalog: the tool is what the request says, and the permissions it
    /// needs are the ones the request declares.
    fn resolve_uncataloged<'a, 'r, A: JsonArgs<'r>>(
        &'a self,
        agent_id: AgentId,
        agent: &'a AgentRt,
        req: &RequestRef<'r, A>,
    ) -> Result<Resolved<'a>, Verdict<'a>> {
        let display = match req.server {
            Some(s) => format!("{s}.{}", req.tool),
            None => req.tool.to_string(),
        };
        let mut needs_missing = None;
        let mut needs = Vec::new();
        let grants = self.program.grants.of(agent_id);
        for text in req.permissions.unwrap_or_default() {
            let p = parse_permission(text).map_err(|e| {
                Verdict::new(
                    Reason::BadRequest,
                    format!("bad request: permission {}", e.message(text)),
                )
            })?;
            if needs_missing.is_none() && !grants.contains_permission(&self.program.perms, &p) {
                needs_missing = Some(Cow::Owned(text.clone()));
            }
            needs.push(text.clone());
        }
        let candidates = match &agent.targets {
            Some(t) => match t.candidates(req.server, req.tool, &self.program.automata) {
                Some(c) => evaluate::Candidates::Bits(c),
                None => {
                    return Err(Verdict::new(
                        Reason::InternalError,
                        "a matcher of the policy failed while deciding this call; it is denied",
                    ))
                }
            },
            None => evaluate::Candidates::Bits(BitSet::new(0)),
        };
        Ok(Resolved {
            display: Shown::Request(display),
            needs_missing,
            needs,
            declared: None,
            group: &self.program.groups[agent.group.index()],
            candidates,
        })
    }
}

/// The message of a `no_matching_rule` decision: ``no rule of agent `A` allows T``. Built by
/// hand: `format!` costs several times as much, and every call no rule admits pays it.
fn no_rule_allows(agent: &str, tool: &Shown<'_>) -> String {
    const HEAD: &str = "no rule of agent `";
    const MIDDLE: &str = "` allows ";
    let mut m = String::with_capacity(HEAD.len() + agent.len() + MIDDLE.len() + tool.len());
    m.push_str(HEAD);
    m.push_str(agent);
    m.push_str(MIDDLE);
    tool.write_to(&mut m);
    m
}

/// Steps 4 and 4b of a decision: the first required argument the call lacks, then the first
/// declared argument (in declaration order) whose value has the wrong type; absent optional
/// arguments pass.
fn argument_refusal<'e, 'r, A: JsonArgs<'r>>(
    resolved: &Resolved<'e>,
    req: &RequestRef<'r, A>,
) -> Option<Verdict<'e>> {
    let tool = resolved.declared?;
    if let Some(arg) = tool.required().find(|a| req.args.arg(a).is_none()) {
        return Some(Verdict {
            argument: Some(Cow::Borrowed(arg)),
            ..Verdict::new(
                Reason::MissingArgument,
                format!(
                    "{} requires the argument `{arg}`, which the call does not include",
                    resolved.display
                ),
            )
        });
    }
    for (arg, ty) in tool.typed() {
        let Some(value) = req.args.arg(arg) else {
            continue;
        };
        if let Some(given) = ty.mismatch(value) {
            return Some(Verdict {
                argument: Some(Cow::Borrowed(arg)),
                ..Verdict::new(
                    Reason::InvalidArgument,
                    format!(
                        "{} requires the argument `{arg}` to be `{ty}`; the call gives {given}",
                        resolved.display
                    ),
                )
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_no_rule_message_reads_as_documented() {
        let tool = super::Shown::Request("git.git_push".to_string());
        assert_eq!(
            super::no_rule_allows("code-assistant", &tool),
            "no rule of agent `code-assistant` allows git.git_push"
        );
    }
}
