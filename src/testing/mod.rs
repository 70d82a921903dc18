//! Running a policy's `test` blocks: each expectation is decided by the compiled engine and
//! compared with the expected decision and reason. From source, a failure is a diagnostic at
//! its span; from a bundle (which carries the expectations), a failure names its location.
//! [`coverage`] says which rules the expectations exercise.

pub mod coverage;

pub use crate::resolve::test_case::{cases, TestCase};

use crate::diagnostic::{code, Diagnostic, Diagnostics};
use crate::engine::{Decision, Engine, Request};
use crate::resolve::Policy;

impl TestCase {
    /// The request this expectation makes.
    ///
    /// # Example
    ///
    /// ```
    /// let mut m = toolgate::source::SourceMap::new();
    /// m.add("p.policy", "tool t(p)\nagent a { allow t }\ntest \"x\" { allow a t { p: 1 } }");
    /// let (_, policy, _) = toolgate::load::engine_from_sources(m).unwrap();
    /// let req = toolgate::testing::cases(&policy)[0].request();
    /// assert_eq!((req.agent.as_str(), req.args["p"].as_i64()), ("a", Some(1)));
    /// ```
    pub fn request(&self) -> Request {
        let mut req = Request::new(self.agent.clone(), self.tool.clone());
        req.server = self.server.clone();
        if let Ok(serde_json::Value::Object(args)) = serde_json::from_str(&self.args) {
            req.args = args;
        }
        req.permissions = self.needs.clone();
        req
    }

    /// Decides the request; `Err` carries the decision when it is not what was expected.
    ///
    /// # Example
    ///
    /// ```
    /// let mut m = toolgate::source::SourceMap::new();
    /// m.add("p.policy", "tool t\nagent a { allow t }\ntest \"x\" { deny a t {} }");
    /// let (engine, policy, _) = toolgate::load::engine_from_sources(m).unwrap();
    /// let got = toolgate::testing::cases(&policy)[0].check(&engine).unwrap_err();
    /// assert!(got.is_allowed());
    /// ```
    pub fn check<'e>(&self, engine: &'e Engine) -> Result<(), Box<Decision<'e>>> {
        let d = engine.decide(&self.request());
        if self.holds(&d) {
            Ok(())
        } else {
            Err(Box::new(d))
        }
    }

    /// True when `d` is the expected decision (and reason, when one is expected).
    fn holds(&self, d: &Decision) -> bool {
        let effect_ok = d.decision == self.expect;
        let reason_ok = self.reason.as_ref().is_none_or(|r| r == d.reason.as_str());
        effect_ok && reason_ok
    }

    /// "expected deny (no_matching_rule), got allow (allowed_by_rule)"
    fn describe_failure(&self, d: &Decision) -> String {
        let expected = match &self.reason {
            Some(r) => format!("{} ({r})", self.expect.as_str()),
            None => self.expect.as_str().to_string(),
        };
        format!(
            "test `{}`: expected {expected}, got {} ({})",
            self.block,
            d.decision.as_str(),
            d.reason.as_str()
        )
    }
}

/// The outcome of running every test block.
///
/// # Example
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "tool t\nagent a { allow t }\ntest \"x\" { allow a t {}\n deny a t {} }");
/// let (engine, policy, _) = toolgate::load::engine_from_sources(m).unwrap();
/// let report = toolgate::testing::run_tests(&policy, &engine);
/// assert_eq!((report.passed, report.failed, report.failures.error_count()), (1, 1, 1));
/// ```
#[derive(Debug, Clone, Default)]
pub struct TestReport {
    /// Expectations that held.
    pub passed: usize,
    /// Expectations that did not.
    pub failed: usize,
    /// One diagnostic per failed expectation.
    pub failures: Diagnostics,
}

fn help_for(d: &Decision) -> String {
    let mut help = format!("the engine said: {}", d.message.replace('\n', " "));
    if let Some(rule) = &d.rule {
        help.push_str(&format!(" [decided by {rule}]"));
    }
    help
}

/// Runs every expectation of every test block of `policy` against `engine`.
///
/// # Example
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// m.add("p.policy", "tool t\nagent a { allow t }\ntest \"x\" { allow a t {} allowed_by_rule }");
/// let (engine, policy, _) = toolgate::load::engine_from_sources(m).unwrap();
/// let report = toolgate::testing::run_tests(&policy, &engine);
/// assert_eq!((report.passed, report.failed), (1, 0));
/// ```
pub fn run_tests(policy: &Policy, engine: &Engine) -> TestReport {
    let mut report = TestReport::default();
    let spans = policy
        .tests
        .iter()
        .flat_map(|b| b.expectations.iter().map(|e| e.span));
    for (case, span) in cases(policy).iter().zip(spans) {
        match case.check(engine) {
            Ok(()) => report.passed += 1,
            Err(d) => {
                report.failed += 1;
                report.failures.push(
                    Diagnostic::new(&code::TEST_FAILED, span, case.describe_failure(&d))
                        .with_label(format!(
                            "got {} ({})",
                            d.decision.as_str(),
                            d.reason.as_str()
                        ))
                        .with_help(help_for(&d)),
                );
            }
        }
    }
    report
}

/// Runs the expectations a compiled engine carries (for bundles, which hold no source text).
/// Returns (passed, failure lines `file:line:column: test ...`).
///
/// # Example
///
/// ```
/// let engine = toolgate::load::engine_from_str("p.policy",
///     "tool t\nagent a { allow t }\ntest \"x\" { deny a t {} }").unwrap();
/// let (passed, failures) = toolgate::testing::run_compiled_tests(&engine);
/// assert_eq!((passed, failures.len()), (0, 1));
/// assert!(failures[0].starts_with("p.policy:3:"));
/// ```
pub fn run_compiled_tests(engine: &Engine) -> (usize, Vec<String>) {
    let mut passed = 0;
    let mut failures = Vec::new();
    for case in engine.test_cases() {
        match case.check(engine) {
            Ok(()) => passed += 1,
            Err(d) => failures.push(format!(
                "{}: {}\n  help: {}",
                case.location,
                case.describe_failure(&d),
                help_for(&d)
            )),
        }
    }
    (passed, failures)
}
