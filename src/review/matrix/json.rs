//! The matrix as JSON for tools. The shape is stable (docs/review.md):
//!
//! ```text
//! {"catalog": bool, "agents": [NAME], "tools": [TOOL],
//!  "argument_types": {TOOL: {ARG: TYPE}},
//!  "cells": [{"agent", "tool", "access": "never"|"always"|"conditional",
//!             "reason", "permission", "default_allow", "rules": [RULE],
//!             "conditions": [{"rule": RULE, "arguments": {ARG: [CONDITION]}}],
//!             "exceptions": [{"rule": RULE, "arguments": {ARG: [CONDITION]}}]}]}
//! RULE = {"effect": "allow"|"deny", "rule": "allow TARGET", "file", "line", "column"}
//! ```
//!
//! `argument_types` holds the tools that declare types other than `any` (a call whose
//! argument has another type is never allowed, whatever its cell says).

use super::{Access, Always, Clause, Matrix, Never, RuleLoc};
use serde_json::{json, Map, Value};

fn rule(r: &RuleLoc) -> Value {
    json!({
        "effect": r.effect.as_str(),
        "rule": r.text,
        "file": r.file,
        "line": r.line,
        "column": r.column,
    })
}

fn clause(c: &Clause) -> Value {
    let mut arguments = Map::new();
    for (arg, conds) in c.by_argument() {
        arguments.insert(
            arg,
            conds.iter().map(|c| Value::from(c.text.clone())).collect(),
        );
    }
    json!({ "rule": rule(&c.rule), "arguments": arguments })
}

fn cell(agent: &str, tool: &str, access: &Access) -> Value {
    let (reason, permission, default_allow, rules, conditions, exceptions) = match access {
        Access::Never(n) => {
            let rules: Vec<Value> = match n {
                Never::DeniedByRule(r) => vec![rule(r)],
                Never::AllowsOverridden(pairs) => {
                    pairs.iter().flat_map(|(a, d)| [rule(a), rule(d)]).collect()
                }
                _ => Vec::new(),
            };
            let permission = match n {
                Never::PermissionMissing(p) => Value::from(p.clone()),
                _ => Value::Null,
            };
            (
                Value::from(n.as_str()),
                permission,
                false,
                rules,
                vec![],
                vec![],
            )
        }
        Access::Always(Always::Rule(r)) => (
            Value::from("allowed_by_rule"),
            Value::Null,
            false,
            vec![rule(r)],
            vec![],
            vec![],
        ),
        Access::Always(Always::Default) => (
            Value::from("default_allow"),
            Value::Null,
            true,
            vec![],
            vec![],
            vec![],
        ),
        Access::Conditional(c) => (
            Value::Null,
            Value::Null,
            c.default_allow,
            c.allows
                .iter()
                .chain(&c.exceptions)
                .map(|c| rule(&c.rule))
                .collect(),
            c.allows.iter().map(clause).collect(),
            c.exceptions.iter().map(clause).collect(),
        ),
    };
    json!({
        "agent": agent,
        "tool": tool,
        "access": access.as_str(),
        "reason": reason,
        "permission": permission,
        "default_allow": default_allow,
        "rules": rules,
        "conditions": conditions,
        "exceptions": exceptions,
    })
}

/// The matrix as a JSON value (see the module documentation for the shape).
///
/// # Example
///
/// ```
/// use toolgate::review::matrix::{to_json, Matrix};
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "tool t(p) needs fs:read\nagent a { allow t }");
/// let (policy, _) = toolgate::load::policy_from_sources(m);
/// let v = to_json(&Matrix::build(&policy));
/// assert_eq!(v["cells"][0]["access"], "never");
/// assert_eq!(v["cells"][0]["permission"], "fs:read");
/// ```
pub fn to_json(matrix: &Matrix) -> Value {
    json!({
        "catalog": matrix.catalog,
        "agents": matrix.agents,
        "tools": matrix.tools.iter().map(|t| t.display.clone()).collect::<Vec<_>>(),
        "argument_types": matrix
            .tools
            .iter()
            .filter(|t| !t.types.is_empty())
            .map(|t| {
                let types: Map<String, Value> = t
                    .types
                    .iter()
                    .map(|(arg, ty)| (arg.clone(), Value::from(ty.to_string())))
                    .collect();
                (t.display.clone(), Value::Object(types))
            })
            .collect::<Map<String, Value>>(),
        "cells": matrix
            .cells
            .iter()
            .map(|c| cell(&c.agent, &c.tool, &c.access))
            .collect::<Vec<_>>(),
    })
}
