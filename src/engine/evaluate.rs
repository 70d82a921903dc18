//! Running a rule group against a call's arguments: one matcher pass per argument value, then
//! the firing rules read off the satisfied-condition bitsets.

use super::args::collect;
use crate::compile::bitset::BitSet;
use crate::compile::group::{ArgMatcher, Group};
use crate::compile::path::normalize;
use serde_json::{Map, Value};

/// Which conditions hold, judged per effect.
pub(crate) struct Satisfied {
    /// Conditions that hold for an `allow` (every value satisfies; absent is vacuous).
    pub allow: BitSet,
    /// Conditions that hold for a `deny` (some value satisfies; absent never does).
    pub deny: BitSet,
}

/// The firing rules (local IDs), first in source order.
pub(crate) struct Outcome {
    pub first_deny: Option<u32>,
    pub first_allow: Option<u32>,
    pub satisfied: Satisfied,
}

impl Group {
    /// Evaluates the group. `candidates`, when given, limits which local rules may fire
    /// (policies without a catalog select rules by target at run time).
    pub(crate) fn evaluate(
        &self,
        args: &Map<String, Value>,
        candidates: Option<&BitSet>,
    ) -> Outcome {
        let mut allow = BitSet::full(self.n_conds);
        let mut deny = BitSet::new(self.n_conds);
        let mut sat = BitSet::new(self.n_conds);
        let mut values = Vec::new();
        for arg in &self.args {
            arg.judge(args, &mut values, &mut sat, &mut allow, &mut deny);
        }
        let fires = |local: u32, acc: &BitSet| {
            candidates.is_none_or(|c| c.contains(local as usize))
                && self.rule_conds[local as usize]
                    .iter()
                    .all(|&c| acc.contains(c as usize))
        };
        let mut first_deny: Option<u32> = None;
        let mut first_allow: Option<u32> = None;
        let mut consider = |local: u32, effect_is_deny: bool| {
            let slot = if effect_is_deny {
                &mut first_deny
            } else {
                &mut first_allow
            };
            if slot.is_none_or(|f| local < f) {
                *slot = Some(local);
            }
        };
        for &local in &self.unconditional {
            let is_deny = self.effects[local as usize] == crate::syntax::ast::Effect::Deny;
            if candidates.is_none_or(|c| c.contains(local as usize)) {
                consider(local, is_deny);
            }
        }
        for c in deny.iter() {
            for &local in &self.keyed[c] {
                if self.effects[local as usize] == crate::syntax::ast::Effect::Deny
                    && fires(local, &deny)
                {
                    consider(local, true);
                }
            }
        }
        for c in allow.iter() {
            for &local in &self.keyed[c] {
                if self.effects[local as usize] == crate::syntax::ast::Effect::Allow
                    && fires(local, &allow)
                {
                    consider(local, false);
                }
            }
        }
        Outcome {
            first_deny,
            first_allow,
            satisfied: Satisfied { allow, deny },
        }
    }
}

impl ArgMatcher {
    fn judge<'a>(
        &self,
        args: &'a Map<String, Value>,
        values: &mut Vec<&'a Value>,
        sat: &mut BitSet,
        allow: &mut BitSet,
        deny: &mut BitSet,
    ) {
        if !collect(args, &self.path, values) {
            // Absent: vacuous in an allow (except `present`), never evidence for a deny.
            for &c in &self.present {
                allow.remove(c as usize);
            }
            return;
        }
        for &c in &self.present {
            deny.insert(c as usize);
        }
        let mut raw_set = self.raw.as_ref().map(|r| r.matcher.new_set());
        let mut norm_set = self.norm.as_ref().map(|r| r.matcher.new_set());
        let mut seen = self.needles.as_ref().map(|n| BitSet::new(n.matcher.len()));
        for value in values.iter() {
            sat.clear_range(self.lo, self.hi);
            let mut unreadable_path = false;
            match value {
                Value::String(s) => {
                    if let (Some(r), Some(set)) = (&self.raw, raw_set.as_mut()) {
                        r.matcher.matches(s, set);
                        for pid in set.iter() {
                            for &c in &r.conds[pid.as_usize()] {
                                sat.insert(c as usize);
                            }
                        }
                    }
                    if let (Some(n), Some(seen)) = (&self.needles, seen.as_mut()) {
                        n.matcher.matches(s, seen, |id| {
                            for &c in &n.conds[id] {
                                sat.insert(c as usize);
                            }
                        });
                    }
                    if let (Some(r), Some(set)) = (&self.norm, norm_set.as_mut()) {
                        match normalize(s) {
                            Some(path) => {
                                r.matcher.matches(&path, set);
                                for pid in set.iter() {
                                    for &c in &r.conds[pid.as_usize()] {
                                        sat.insert(c as usize);
                                    }
                                }
                            }
                            None => unreadable_path = true,
                        }
                    }
                }
                Value::Number(n) => {
                    if let Some(x) = n.as_f64() {
                        for &(c, op, rhs) in &self.numeric {
                            if op.apply(x, rhs) {
                                sat.insert(c as usize);
                            }
                        }
                    }
                    unreadable_path = true;
                }
                _ => unreadable_path = true,
            }
            for &c in &self.negated {
                sat.toggle(c as usize);
            }
            for &c in &self.present {
                sat.insert(c as usize);
            }
            allow.and_range(sat, self.lo, self.hi);
            deny.or_range(sat, self.lo, self.hi);
            if unreadable_path {
                // A value that cannot be read as an absolute path fails closed: it never
                // satisfies a path pattern in an allow, and always does in a deny.
                for &c in &self.path_conds {
                    deny.insert(c as usize);
                }
            }
        }
    }
}
