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

fn ascending(ids: &[u32]) -> bool {
    ids.windows(2).all(|w| w[0] < w[1])
}

impl Engine {
    /// Validates a decoded engine and rebuilds its lookup maps and automata.
    pub(crate) fn validate_and_rebuild(&mut self) -> Result<(), String> {
        self.perms.rebuild()?;
        let (n_perms, n_domains) = (self.perms.len(), self.perms.domain_len());
        check(!self.groups.is_empty(), "no rule groups")?;
        for g in &self.groups {
            validate_group(g, self)?;
        }
        for n in &mut self.needles {
            n.rebuild().map_err(|e| e.message)?;
        }
        let n_tools = self.catalog.as_ref().map_or(0, |c| c.tools.len());
        self.agent_index.clear();
        for (i, a) in self.agents.iter().enumerate() {
            check(
                self.agent_index.insert(a.name.clone(), i as u32).is_none(),
                "duplicate agent",
            )?;
            check(
                a.grants.exact.words().len() <= n_perms.div_ceil(64),
                "grant set too large",
            )?;
            check(
                a.grants.domains.words().len() <= n_domains.div_ceil(64),
                "domain set too large",
            )?;
            let group = self
                .groups
                .get(a.group as usize)
                .ok_or("agent group out of range")?;
            let n_rules = group.rules.len();
            match (&self.catalog, &a.targets) {
                (Some(_), None) => {
                    check(
                        a.candidates.is_valid(n_tools, n_rules),
                        "candidate table is inconsistent",
                    )?;
                    check(
                        (0..n_tools).all(|t| ascending(a.candidates.row(t))),
                        "candidates not ascending",
                    )?;
                    check(
                        all_below(&a.visible, n_tools) && ascending(&a.visible),
                        "visible tools out of range",
                    )?;
                }
                (None, Some(t)) => {
                    let n = t.n_rules;
                    check(n == n_rules, "target table size mismatch")?;
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
                }
                _ => return Err("agent tables do not match the catalog".into()),
            }
        }
        for a in &mut self.agents {
            if let Some(t) = a.targets.as_mut() {
                t.tool.rebuild().map_err(|e| e.message)?;
                t.server.rebuild().map_err(|e| e.message)?;
            }
        }
        if let Some(cat) = self.catalog.as_mut() {
            check(cat.n_tools == cat.tools.len(), "tool count mismatch")?;
            let slots = self
                .agents
                .len()
                .checked_mul(cat.n_tools)
                .ok_or("table size overflow")?;
            check(
                cat.gate.len() == slots,
                "permission gate table size mismatch",
            )?;
            check(
                cat.gate.iter().flatten().all(|&p| (p as usize) < n_perms),
                "gate permission out of range",
            )?;
            for t in &cat.tools {
                check(
                    t.server.is_none_or(|s| (s as usize) < cat.servers.len()),
                    "tool server out of range",
                )?;
                check(all_below(&t.needs, n_perms), "tool permission out of range")?;
            }
            cat.by_name.clear();
            for (i, t) in cat.tools.iter().enumerate() {
                cat.by_name
                    .entry(t.name.clone())
                    .or_default()
                    .push(i as u32);
            }
        }
        for g in &mut self.groups {
            g.derive();
            for arg in &mut g.args {
                for index in [arg.raw.as_mut(), arg.norm.as_mut()].into_iter().flatten() {
                    index.matcher.rebuild().map_err(|e| e.message)?;
                }
            }
        }
        self.derive_agents();
        for c in &self.tests {
            let args = serde_json::from_str::<serde_json::Value>(&c.args);
            check(
                args.is_ok_and(|v| v.is_object()),
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
    check(g.effects.len() == n_rules, "group rule table size mismatch")?;
    check(
        g.rule_conds.is_valid(n_rules, n),
        "rule condition table is inconsistent",
    )?;
    check(
        g.keyed.is_valid(n, n_rules),
        "keyed rule table is inconsistent",
    )?;
    check(
        g.rule_cond_text.is_valid(g.rule_conds.items().len()),
        "condition text table is inconsistent",
    )?;
    check(
        all_below(&g.unconditional, n_rules),
        "unconditional rule out of range",
    )?;
    check(
        g.arg_keyed.is_valid(g.args.len(), n_rules),
        "argument rule table is inconsistent",
    )?;
    check(
        (0..g.args.len()).all(|a| ascending(g.arg_keyed.row(a))),
        "argument rules not ascending",
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
            let rows = index.conds.rows();
            check(
                in_range(index.conds.items()) && index.conds.is_valid(rows, n),
                "pattern condition out of range",
            )?;
            index.matcher.validate(&engine.automata, rows)?;
        }
        if let Some(nd) = &arg.needles {
            let m = engine
                .needles
                .get(nd.matcher as usize)
                .ok_or("needle matcher out of range")?;
            check(
                nd.conds.is_valid(m.len(), n) && in_range(nd.conds.items()),
                "needle table mismatch",
            )?;
        }
    }
    check(
        next == n,
        "argument condition ranges do not cover the conditions",
    )
}
