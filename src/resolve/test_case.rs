//! The expectations of a policy's `test` blocks, read out of the resolved policy in a form that
//! needs no source text (bundles carry them). `crate::testing` runs them against an engine.

use super::Policy;
use crate::source::Location;
use crate::syntax::ast::Effect;
use serde::{Deserialize, Serialize};

/// One expectation of a `test` block, independent of the source text.
///
/// # Example
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "tool t\nagent a { allow t }\ntest \"x\" { allow a t {} allowed_by_rule }");
/// let (_, policy, _) = toolgate::load::engine_from_sources(m).unwrap();
/// let case = &toolgate::testing::cases(&policy)[0];
/// assert_eq!((case.block.as_str(), case.agent.as_str(), case.tool.as_str()), ("x", "a", "t"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestCase {
    /// The test block's name.
    pub block: String,
    /// The expected decision.
    pub expect: Effect,
    /// The agent making the call.
    pub agent: String,
    /// The server, for `server.tool`.
    pub server: Option<String>,
    /// The tool.
    pub tool: String,
    /// The call's arguments, as JSON text.
    pub args: String,
    /// Permissions the call declares (policies without a catalog).
    pub needs: Option<Vec<String>>,
    /// The expected reason.
    pub reason: Option<String>,
    /// Where the expectation is written.
    pub location: Location,
}

/// Every expectation of every test block, in order.
///
/// # Example
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "tool t\nagent a { allow t }\ntest \"x\" { allow a t {}\n deny a u {} }");
/// let (policy, _) = toolgate::load::policy_from_sources(m);
/// assert_eq!(toolgate::testing::cases(&policy).len(), 2);
/// ```
pub fn cases(policy: &Policy) -> Vec<TestCase> {
    let mut out = Vec::new();
    for block in &policy.tests {
        for e in &block.expectations {
            out.push(TestCase {
                block: block.name.value.clone(),
                expect: e.expect,
                agent: e.agent.text.clone(),
                server: e.server.as_ref().map(|s| s.text.clone()),
                tool: e.tool.text.clone(),
                args: serde_json::Value::Object(e.args.clone()).to_string(),
                needs: e
                    .needs
                    .as_ref()
                    .map(|n| n.iter().map(|p| p.text.clone()).collect()),
                reason: e.reason.as_ref().map(|r| r.text.clone()),
                location: policy.sources.location(e.span),
            });
        }
    }
    out
}
