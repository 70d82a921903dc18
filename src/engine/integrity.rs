//! Checking a decoded engine before it answers anything: every index in range, every table
//! the length it must have; then rebuilding what bundles do not carry.

use super::Engine;
use crate::compile::group::Group;

fn check(ok: bool, what: &str) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(what.to_string())
    }
}

fn all_below(ids: &[u32], bound: usize) -> bool {
    ids.iter().all(|&i| (i as usize) < bound)
}

impl Engine {
    /// Validates a decoded engine and rebuilds its lookup maps and automata.
    pub(crate) fn validate_and_rebuild(&mut self) -> Result<(), String> {
        self.perms.rebuild()?;
        let (n_perms, n_domains) = (self.perms.len(), self.perms.domain_len());
        let n_groups = self.groups.len();
        check(n_groups > 0, "no rule groups")?;
        for g in &self.groups {
            validate_group(g, self)?;
        }
        for n in &mut self.needles {
            n.rebuild().map_err(|e| e.message)?;
        }
        self.agent_index.clear();
        for (i, a) in self.agents.iter().enumerate() {
            check(
                self.agent_index.insert(a.name.clone(), i as u32).is_none(),
                "duplicate agent",
            )?;
            check(
                a.grants.exact.words().len() <= n_perms.div_ceil(64).max(1),
                "grant set too large",
            )?;
            check(
                a.grants.domains.words().len() <= n_domains.div_ceil(64).max(1),
                "domain set too large",
            )?;
            check((a.group as usize) < n_groups, "agent group out of range")?;
        }
        let n_agents = self.agents.len();
        for a in &mut self.agents {
            if let Some(t) = a.targets.as_mut() {
                let n = t.n_rules;
                check(
                    all_below(&t.tool_rules, n)
                        && all_below(&t.tool_any, n)
                        && all_below(&t.server_rules, n)
                        && all_below(&t.server_any, n)
                        && all_below(&t.no_server, n),
                    "target rule out of range",
                )?;
                t.tool.validate(&self.automata, t.tool_rules.len())?;
                t.server.validate(&self.automata, t.server_rules.len())?;
                t.tool.rebuild().map_err(|e| e.message)?;
                t.server.rebuild().map_err(|e| e.message)?;
                check(self.catalog.is_none(), "targets in a policy with a catalog")?;
                check(
                    n == self.groups[a.group as usize].rules.len(),
                    "target table size mismatch",
                )?;
            }
        }
        if let Some(cat) = self.catalog.as_mut() {
            check(cat.n_tools == cat.tools.len(), "tool count mismatch")?;
            let slots = n_agents
                .checked_mul(cat.n_tools)
                .ok_or("table size overflow")?;
            check(
                cat.gate.len() == slots && cat.group.len() == slots,
                "agent-tool table size mismatch",
            )?;
            check(
                cat.gate.iter().flatten().all(|&p| (p as usize) < n_perms),
                "gate permission out of range",
            )?;
            check(
                all_below(&cat.group, n_groups),
                "agent-tool group out of range",
            )?;
            for t in &cat.tools {
                check(
                    t.server.is_none_or(|s| (s as usize) < cat.servers.len()),
                    "tool server out of range",
                )?;
                check(all_below(&t.needs, n_perms), "tool permission out of range")?;
            }
            for a in &self.agents {
                check(
                    all_below(&a.visible, cat.n_tools),
                    "visible tool out of range",
                )?;
                check(a.targets.is_none(), "targets in a policy with a catalog")?;
            }
            cat.by_name.clear();
            for (i, t) in cat.tools.iter().enumerate() {
                cat.by_name
                    .entry(t.name.clone())
                    .or_default()
                    .push(i as u32);
            }
        } else {
            check(
                self.agents.iter().all(|a| a.targets.is_some()),
                "agent without targets",
            )?;
        }
        for g in &mut self.groups {
            for arg in &mut g.args {
                for index in [arg.raw.as_mut(), arg.norm.as_mut()].into_iter().flatten() {
                    index.matcher.rebuild().map_err(|e| e.message)?;
                }
            }
        }
        for c in &self.tests {
            check(
                serde_json::from_str::<serde_json::Value>(&c.args).is_ok_and(|v| v.is_object()),
                "test arguments are not an object",
            )?;
        }
        Ok(())
    }
}

fn validate_group(g: &Group, engine: &Engine) -> Result<(), String> {
    let n_rules = g.rules.len();
    let n = g.n_conds;
    check(
        all_below(&g.rules, engine.rules.len()),
        "group rule out of range",
    )?;
    check(
        g.effects.len() == n_rules && g.rule_conds.len() == n_rules,
        "group rule table size mismatch",
    )?;
    check(
        g.rule_conds.iter().all(|c| all_below(c, n)),
        "rule condition out of range",
    )?;
    check(
        g.keyed.len() == n && g.cond_text.len() == n,
        "condition table size mismatch",
    )?;
    check(
        g.keyed.iter().all(|k| all_below(k, n_rules)),
        "keyed rule out of range",
    )?;
    check(
        all_below(&g.unconditional, n_rules),
        "unconditional rule out of range",
    )?;
    check(
        g.arg_keyed.len() == g.args.len(),
        "argument table size mismatch",
    )?;
    check(
        g.arg_keyed.iter().all(|k| all_below(k, n_rules)),
        "argument rule out of range",
    )?;
    let mut next = 0;
    for arg in &g.args {
        check(
            arg.lo == next && arg.lo <= arg.hi && arg.hi <= n,
            "argument condition ranges are not contiguous",
        )?;
        next = arg.hi;
        let in_range = |ids: &[u32]| {
            ids.iter()
                .all(|&c| (c as usize) >= arg.lo && (c as usize) < arg.hi)
        };
        check(!arg.path.is_empty(), "empty argument path")?;
        check(
            in_range(&arg.present) && in_range(&arg.negated) && in_range(&arg.path_conds),
            "argument condition out of range",
        )?;
        check(
            arg.numeric
                .iter()
                .all(|(c, _, _)| (*c as usize) >= arg.lo && (*c as usize) < arg.hi),
            "numeric condition out of range",
        )?;
        for index in [arg.raw.as_ref(), arg.norm.as_ref()].into_iter().flatten() {
            check(
                index.conds.iter().all(|c| in_range(c)),
                "pattern condition out of range",
            )?;
            index
                .matcher
                .validate(&engine.automata, index.conds.len())?;
        }
        if let Some(n) = &arg.needles {
            let m = engine
                .needles
                .get(n.matcher as usize)
                .ok_or("needle matcher out of range")?;
            check(
                n.conds.len() == m.len() && n.conds.iter().all(|c| in_range(c)),
                "needle table mismatch",
            )?;
        }
    }
    check(
        next == n,
        "argument condition ranges do not cover the conditions",
    )
}
