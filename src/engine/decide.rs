//! The decision procedure, in the order of docs/language.md section 11: agent, tool lookup,
//! permission gate (precomputed per agent and catalog tool), required arguments, declared
//! argument types, then the rule group (deny wins, then allow, then the agent's default).

use super::decision::{Explanation, Reason, RuleTrace, Verdict};
use super::request::RequestRef;
use super::{evaluate, Engine};
use crate::program::agent::AgentRt;
use crate::program::bitset::BitSet;
use crate::program::catalog::Catalog;
use crate::program::group::Group;
use crate::program::ids::AgentId;
use crate::resolve::{parse_permission, ArgType};
use crate::syntax::ast::Effect;
use crate::value::JsonArgs;
use std::borrow::Cow;

/// The resolved tool of a request.
pub(super) struct Resolved<'a> {
    display: Cow<'a, str>,
    needs_missing: Option<Cow<'a, str>>,
    needs: Vec<String>,
    required: &'a [String],
    typed: &'a [(String, ArgType)],
    group: &'a Group,
    candidates: evaluate::Candidates<'a>,
}

const NO_REQUIRED: &[String] = &[];
const NO_TYPED: &[(String, ArgType)] = &[];

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
        let rule = &self.program.rules[group.rules[local.index()].index()];
        Verdict {
            rule: Some(&rule.info),
            ..Verdict::new(reason, &*rule.message)
        }
    }

    /// Records, for `--explain`, each rule the group judged: fired, or the condition that
    /// failed.
    fn record_trace(&self, e: &mut Explanation, group: &Group, trace: &evaluate::Trace) {
        for &(local, failed) in trace {
            let Some(&rule_id) = group.rules.get(local.index()) else {
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
                    let at = group.rule_conds.row_start(local.index()) + k;
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
            None => self.resolve_uncataloged(agent, req),
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
            Some(server) => named.clone().find(|&t| {
                cat.tools[t.index()]
                    .server
                    .is_some_and(|s| cat.servers[s.index()] == server)
            }),
            None => match (two.next(), two.next()) {
                (Some(t), None) => Some(t),
                (None, _) => None,
                (Some(_), Some(_)) => {
                    let places: Vec<String> = named
                        .map(|t| match cat.tools[t.index()].server {
                            Some(s) => format!("server `{}`", cat.servers[s.index()]),
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
        let tool = &cat.tools[t.index()];
        let slot = agent_id.index() * cat.n_tools + t.index();
        Ok(Resolved {
            display: Cow::Borrowed(tool.display.as_str()),
            needs_missing: cat
                .missing(slot)
                .map(|p| Cow::Borrowed(self.program.perms.name(p))),
            needs: if explain {
                tool.needs
                    .iter()
                    .map(|&p| self.program.perms.name(p).to_string())
                    .collect()
            } else {
                Vec::new()
            },
            required: &tool.required,
            typed: &tool.typed,
            group: &self.program.groups[agent.group.index()],
            candidates: evaluate::Candidates::List {
                all: agent.candidates.row(t.index()),
                deny: agent.deny_candidates.row(t.index()),
            },
        })
    }

    /// Step 2 without a catalog: the tool is what the request says, and the permissions it
    /// needs are the ones the request declares.
    fn resolve_uncataloged<'a, 'r, A: JsonArgs<'r>>(
        &'a self,
        agent: &'a AgentRt,
        req: &RequestRef<'r, A>,
    ) -> Result<Resolved<'a>, Verdict<'a>> {
        let display = match req.server {
            Some(s) => format!("{s}.{}", req.tool),
            None => req.tool.to_string(),
        };
        let mut needs_missing = None;
        let mut needs = Vec::new();
        for text in req.permissions.unwrap_or_default() {
            let p = parse_permission(text).map_err(|e| {
                Verdict::new(
                    Reason::BadRequest,
                    format!("bad request: permission {}", e.message(text)),
                )
            })?;
            if needs_missing.is_none() && !agent.grants.contains_permission(&self.program.perms, &p)
            {
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
            display: Cow::Owned(display),
            needs_missing,
            needs,
            required: NO_REQUIRED,
            typed: NO_TYPED,
            group: &self.program.groups[agent.group.index()],
            candidates,
        })
    }
}

/// The message of a `no_matching_rule` decision: ``no rule of agent `A` allows T``. Built by
/// hand: `format!` costs several times as much, and every call no rule admits pays it.
fn no_rule_allows(agent: &str, tool: &str) -> String {
    const HEAD: &str = "no rule of agent `";
    const MIDDLE: &str = "` allows ";
    let mut m = String::with_capacity(HEAD.len() + agent.len() + MIDDLE.len() + tool.len());
    m.push_str(HEAD);
    m.push_str(agent);
    m.push_str(MIDDLE);
    m.push_str(tool);
    m
}

/// Steps 4 and 4b of a decision: the first required argument the call lacks, then the first
/// declared argument (in declaration order) whose value has the wrong type; absent optional
/// arguments pass.
fn argument_refusal<'e, 'r, A: JsonArgs<'r>>(
    resolved: &Resolved<'e>,
    req: &RequestRef<'r, A>,
) -> Option<Verdict<'e>> {
    if let Some(arg) = resolved.required.iter().find(|a| req.args.arg(a).is_none()) {
        return Some(Verdict {
            argument: Some(Cow::Borrowed(arg.as_str())),
            ..Verdict::new(
                Reason::MissingArgument,
                format!(
                    "{} requires the argument `{arg}`, which the call does not include",
                    resolved.display
                ),
            )
        });
    }
    for (arg, ty) in resolved.typed {
        let Some(value) = req.args.arg(arg) else {
            continue;
        };
        if let Some(given) = ty.mismatch(value) {
            return Some(Verdict {
                argument: Some(Cow::Borrowed(arg.as_str())),
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
        assert_eq!(
            super::no_rule_allows("code-assistant", "git.git_push"),
            "no rule of agent `code-assistant` allows git.git_push"
        );
    }
}
