//! Running a policy's `test` blocks: each expectation is decided by the compiled engine and
//! compared with the expected decision and reason. A failure is a diagnostic at its span.

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::engine::{Engine, Request};
use crate::resolve::Policy;

/// The outcome of running every test block.
#[derive(Debug, Clone, Default)]
pub struct TestReport {
    /// Expectations that held.
    pub passed: usize,
    /// Expectations that did not.
    pub failed: usize,
    /// One diagnostic per failed expectation.
    pub failures: Diagnostics,
}

/// Runs every expectation of every test block of `policy` against `engine`.
pub fn run_tests(policy: &Policy, engine: &Engine) -> TestReport {
    let mut report = TestReport::default();
    for block in &policy.tests {
        for e in &block.expectations {
            let mut req = Request::new(e.agent.text.clone(), e.tool.text.clone());
            req.server = e.server.as_ref().map(|s| s.text.clone());
            req.args = e.args.clone();
            req.permissions = e
                .needs
                .as_ref()
                .map(|n| n.iter().map(|p| p.text.clone()).collect());
            let d = engine.decide(&req);
            let effect_ok = d.decision == e.expect;
            let reason_ok = e
                .reason
                .as_ref()
                .is_none_or(|r| r.text == d.reason.as_str());
            if effect_ok && reason_ok {
                report.passed += 1;
                continue;
            }
            report.failed += 1;
            let expected = match &e.reason {
                Some(r) => format!("{} ({})", e.expect.as_str(), r.text),
                None => e.expect.as_str().to_string(),
            };
            let got = format!("{} ({})", d.decision.as_str(), d.reason.as_str());
            let mut diag = Diagnostic::error(
                "toolgate::test_failed",
                e.span,
                format!(
                    "test `{}`: expected {expected}, got {got}",
                    block.name.value
                ),
            )
            .with_label(format!("got {got}"));
            let mut help = format!("the engine said: {}", d.message.replace('\n', " "));
            if let Some(rule) = &d.rule {
                help.push_str(&format!(" [decided by {rule}]"));
            }
            diag = diag.with_help(help);
            report.failures.push(diag);
        }
    }
    report
}
