//! From a compiled bundle back to the policy source it was compiled from, up to meaning, so
//! that `toolgate diff` and `toolgate matrix` review a bundle as they review source.
//!
//! A [`crate::program::Program`] keeps everything a decision reads, and [`decompile`] writes
//! it out again as one `.policy` text, then resolves that text with the normal pipeline
//! ([`crate::load::policy_from_sources`]):
//!
//! - **the catalog**: every server, every tool with the permissions it needs (in order), its
//!   required arguments and its arguments of a declared type (other than `any`). The program
//!   keeps no other argument: an optional untyped argument is checked by nothing, so it cannot
//!   change a decision. A tool that kept some argument is written with an argument list that
//!   also declares, as optional untyped arguments, every argument a rule constrains; a tool
//!   that kept none is written without a list. So the matrix of a bundle never notes that a
//!   tool does not declare an argument its rules constrain (a note the bundle cannot back),
//!   where the matrix of the source may;
//! - **each agent**: its grants from its grant set (each granted permission, `domain:*`, `*`;
//!   a grant of a permission no tool needs is kept only without a catalog, where it matters),
//!   its `default`, and every rule in source order: the target and the conditions as written,
//!   joined by `and`, and `because "..."` when the message of a deny is the author's (the
//!   message the compiler writes for a deny without `because` is left out).
//!
//! Test blocks are left out (review does not read them). The reconstructed text puts each
//! rule on its own line; [`Decompiled::original`] maps a rule's place in that text back to the
//! place the bundle records ([`crate::RuleRef`]), so what review prints points at the
//! author's files. A review still decides every request it prints with the bundle's own
//! engine, so nothing printed can be wrong even where the reconstruction fell short.
//!
//! # Example
//!
//! ```
//! let src = "tool t(p: string) needs fs:read\nagent a {\n  grant fs:*\n  deny t where p == \"x\" because \"no\"\n  allow t\n}\n";
//! let engine = toolgate::load::engine_from_str("p.policy", src).unwrap();
//! let bundle = toolgate::Engine::from_bundle(&engine.to_bundle()).unwrap();
//! let back = toolgate::review::decompile::decompile(&bundle).unwrap();
//! assert!(back.text.contains("deny t where p == \"x\" because \"no\""));
//! let rule = &back.policy.agents[0].rules[0];
//! let at = back.policy.sources.location(rule.span);
//! assert_eq!(back.original(&at.file, at.line).map(|r| r.line), Some(4));
//! ```

use crate::program::ids::AgentId;
use crate::program::Program;
use crate::resolve::Policy;
use crate::source::SourceMap;
use crate::syntax::ast::Effect;
use crate::syntax::{name_text, quoted};
use crate::{Engine, RuleRef};
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

/// The name of the reconstructed source in its [`SourceMap`].
pub const RECONSTRUCTED: &str = "<bundle>";

/// A bundle's policy, rebuilt from its program.
#[derive(Debug)]
pub struct Decompiled {
    /// The reconstructed `.policy` text.
    pub text: String,
    /// That text, resolved.
    pub policy: Policy,
    /// Line of the reconstructed text -> the rule written there, as the bundle records it.
    rules_by_line: HashMap<usize, RuleRef>,
}

impl Decompiled {
    /// The rule the bundle records for the rule at `line` of the reconstructed source
    /// `file`; `None` for any other place.
    pub fn original(&self, file: &str, line: usize) -> Option<&RuleRef> {
        if file != RECONSTRUCTED {
            return None;
        }
        self.rules_by_line.get(&line)
    }
}

/// Why a bundle cannot be turned back into source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String);

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The policy `engine`'s program was compiled from, up to meaning (module docs).
pub fn decompile(engine: &Engine) -> Result<Decompiled, Refusal> {
    let program = &engine.program;
    let mut out = Writer::default();
    catalog(program, &mut out)?;
    for agent in 0..program.agents.len() {
        self::agent(program, agent, &mut out)?;
    }
    let mut sources = SourceMap::new();
    sources.add(RECONSTRUCTED, out.text.as_str());
    let (policy, diags) = crate::load::policy_from_sources(sources);
    if let Some(d) = diags.iter().find(|d| d.severity == crate::Severity::Error) {
        let at = policy.sources.location(d.span);
        return Err(Refusal(format!(
            "the policy rebuilt from the bundle does not resolve ({}, line {}: {})",
            d.code, at.line, d.message
        )));
    }
    Ok(Decompiled {
        text: out.text,
        policy,
        rules_by_line: out.rules_by_line,
    })
}

/// The text being written, and which rule each line holds.
#[derive(Default)]
struct Writer {
    text: String,
    line: usize,
    rules_by_line: HashMap<usize, RuleRef>,
}

impl Writer {
    /// Appends one line.
    fn line(&mut self, s: &str) {
        self.text.push_str(s);
        self.text.push('\n');
        self.line += s.matches('\n').count() + 1;
    }
}

/// The server and tool declarations.
fn catalog(program: &Program, out: &mut Writer) -> Result<(), Refusal> {
    let Some(cat) = &program.catalog else {
        return Ok(());
    };
    // The arguments some rule constrains, declared (optional, untyped) by every tool written
    // with an argument list: the bundle does not say which tools declared them, and
    // declaring them claims nothing a decision depends on.
    let constrained: BTreeSet<&str> = program
        .groups
        .iter()
        .flat_map(|g| g.args.iter())
        .filter_map(|a| a.path.first().map(String::as_str))
        .collect();
    let decl = |t: crate::program::catalog::Tool<'_>| -> Result<String, Refusal> {
        let mut s = format!("tool {}", name_text(t.name()));
        let type_of = |arg: &str| t.typed().find(|(n, _)| *n == arg).map(|(_, ty)| ty);
        let mut params: Vec<String> = Vec::new();
        // Both lists are in declaration order, which decides which missing or ill-typed
        // argument a denial names: merge them keeping both orders (where an untyped required
        // argument stands among optional typed ones decides nothing).
        let (mut r, mut ty) = (t.required().peekable(), t.typed().peekable());
        loop {
            let required = |a: &str| t.required().any(|x| x == a);
            match (r.peek(), ty.peek()) {
                (Some(a), _) if type_of(a).is_none() => {
                    params.push(name_text(a));
                    r.next();
                }
                (_, Some((a, typ))) if !required(a) => {
                    params.push(format!("{}?: {typ}", name_text(a)));
                    ty.next();
                }
                (Some(a), Some((b, typ))) if a == b => {
                    params.push(format!("{}: {typ}", name_text(a)));
                    r.next();
                    ty.next();
                }
                (None, None) => break,
                _ => {
                    return Err(Refusal(format!(
                        "the arguments of tool `{}` are in no declaration order",
                        t.display()
                    )))
                }
            }
        }
        if !params.is_empty() {
            let known = |a: &str| t.required().any(|r| r == a) || type_of(a).is_some();
            for arg in constrained.iter().filter(|a| !known(a)) {
                params.push(format!("{}?", name_text(arg)));
            }
            let _ = write!(s, "({})", params.join(", "));
        }
        if !t.needs().is_empty() {
            let needs: Result<Vec<&str>, Refusal> = t
                .needs()
                .iter()
                .map(|&p| {
                    program.perms.get_name(p).ok_or_else(|| {
                        Refusal(format!(
                            "tool `{}` needs an unknown permission",
                            t.display()
                        ))
                    })
                })
                .collect();
            let _ = write!(s, " needs {}", needs?.join(", "));
        }
        Ok(s)
    };
    // Tools in catalog order; a server's tools in one block, where its first tool is.
    let mut written: BTreeSet<usize> = BTreeSet::new();
    for t in cat.tools() {
        match t.server_id() {
            None => out.line(&decl(t)?),
            Some(s) if written.insert(s.index()) => {
                let server = cat
                    .servers
                    .get(s.index())
                    .ok_or_else(|| Refusal("a tool's server is out of range".into()))?;
                out.line(&format!("server {} {{", name_text(server)));
                for u in cat.tools().filter(|u| u.server_id() == Some(s)) {
                    out.line(&format!("  {}", decl(u)?));
                }
                out.line("}");
            }
            Some(_) => {}
        }
    }
    for (s, server) in cat.servers.iter().enumerate() {
        if !written.contains(&s) {
            out.line(&format!("server {} {{\n}}", name_text(server)));
        }
    }
    Ok(())
}

/// One agent: grants, default, then its rules in order, one line each.
fn agent(program: &Program, a: usize, out: &mut Writer) -> Result<(), Refusal> {
    let Some(agent) = program.agents.get(a) else {
        return Ok(());
    };
    out.line(&format!("agent {} {{", name_text(&agent.name)));
    let mut grants: Vec<String> = Vec::new();
    let granted = program
        .grants
        .of(AgentId::new(a).map_err(|e| Refusal(e.to_string()))?);
    if granted.all {
        grants.push("*".into());
    }
    for &d in granted.domains {
        let domain = program.perms.domain_name(d);
        let domain = domain.ok_or_else(|| {
            Refusal(format!(
                "agent `{}` is granted an unknown domain",
                agent.name
            ))
        })?;
        grants.push(format!("{domain}:*"));
    }
    for &p in granted.exact {
        let perm = program.perms.get_name(p);
        let perm = perm.ok_or_else(|| {
            Refusal(format!(
                "agent `{}` is granted an unknown permission",
                agent.name
            ))
        })?;
        grants.push(perm.to_string());
    }
    if !grants.is_empty() {
        out.line(&format!("  grant {}", grants.join(", ")));
    }
    out.line(&format!("  default {}", agent.default.as_str()));
    let group = program
        .groups
        .get(agent.group.index())
        .ok_or_else(|| Refusal(format!("agent `{}` has no rule group", agent.name)))?;
    let mine = program
        .rules
        .iter()
        .filter(|r| *r.info.agent == *agent.name)
        .count();
    if mine != group.n_rules() || group.rule_cond_text.len() != group.rule_conds().items().len() {
        return Err(Refusal(format!(
            "the rules of agent `{}` do not match its rule group",
            agent.name
        )));
    }
    for (local, global) in group.rule_ids().enumerate() {
        let rule = program
            .rules
            .get(global.index())
            .filter(|r| *r.info.agent == *agent.name)
            .ok_or_else(|| {
                Refusal(format!(
                    "a rule of agent `{}` is not in the rule table",
                    agent.name
                ))
            })?;
        let info = &rule.info;
        let mut s = format!("  {} {}", info.effect.as_str(), info.target);
        let start = group.rule_conds().row_start(local);
        let n = group.rule_conds().row(local).len();
        let conds: Vec<&str> = (start..start + n)
            .map(|i| group.rule_cond_text.get(i))
            .collect();
        if !conds.is_empty() {
            let _ = write!(s, " where {}", conds.join(" and "));
        }
        if info.effect == Effect::Deny && rule.message != compiled_message(info) {
            let _ = write!(s, " because {}", quoted(rule.message));
        }
        out.rules_by_line.insert(out.line + 1, (*info).clone());
        out.line(&s);
    }
    out.line("}");
    Ok(())
}

/// The message the compiler gives a deny rule written without `because`.
fn compiled_message(info: &RuleRef) -> String {
    format!(
        "denied by rule `deny {}` of agent `{}` ({}:{})",
        info.target, info.agent, info.file, info.line
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn back(src: &str) -> Decompiled {
        let engine = crate::load::engine_from_str("p.policy", src).unwrap();
        let bundle = Engine::from_bundle(&engine.to_bundle()).unwrap();
        decompile(&bundle).unwrap()
    }

    #[test]
    fn names_messages_and_grants_are_written_back() {
        let src = "server \"my srv\" {\n  tool \"a.b\"(\"x y\": string, n?: integer, k) needs fs:read, net:http\n}\nserver empty {\n}\ntool h\nagent \"the bot\" {\n  grant fs:*, net:http, mail:send\n  default allow\n  deny \"a.b\" where \"x y\" matches shell \"rm *\" because \"no \\\"rm\\\"\"\n  deny h\n  allow *\n}\nagent none {\n  grant *\n}\n";
        let b = back(src);
        let t = &b.text;
        assert!(t.contains("server \"my srv\" {\n  tool \"a.b\"(\"x y\": string, k, n?: integer) needs fs:read, net:http\n}"), "{t}");
        assert!(t.contains("server empty {\n}"), "{t}");
        assert!(t.contains("grant fs:*, net:http, mail:send"), "{t}");
        assert!(t.contains("because \"no \\\"rm\\\"\""), "{t}");
        // A deny without `because` gets the compiler's message again, not a `because`.
        assert!(t.contains("  deny h\n"), "{t}");
        assert!(
            t.contains("agent none {\n  grant *\n  default deny\n}"),
            "{t}"
        );
        let agent = b.policy.agent("the bot").unwrap();
        let lines: Vec<usize> = agent
            .rules
            .iter()
            .map(|r| {
                let at = b.policy.sources.location(r.span);
                b.original(&at.file, at.line).unwrap().line
            })
            .collect();
        assert_eq!(lines, [10, 11, 12]);
        assert_eq!(b.original("p.policy", 10), None);
    }

    #[test]
    fn a_policy_without_a_catalog_keeps_its_free_names() {
        let b =
            back("agent a {\n  grant fs:read\n  allow read_* where path matches \"/srv/**\"\n}\n");
        assert!(!b.policy.has_catalog());
        assert_eq!(
            b.text,
            "agent a {\n  grant fs:read\n  default deny\n  allow read_* where path matches \"/srv/**\"\n}\n"
        );
    }
}
