//! `toolgate.Decision` and `toolgate.RuleRef`: immutable answers, with the CLI JSON's fields.

use crate::convert::to_python;
use pyo3::basic::CompareOp;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use toolgate::{Decision, RuleRef};

/// The answer to one tool call: allow or deny, why, and the rule that decided.
///
/// Immutable. Its fields are those of the CLI's decision JSON (`decision`, `reason`,
/// `permission`, `argument`, `message`, `rule`, `tool_use_id`, `policy_hash`); `to_dict()`
/// gives exactly that JSON as a dict. Test `decision.allowed`: a `Decision` has no truth
/// value, so `if engine.decide(...):` raises instead of allowing everything.
#[pyclass(frozen, module = "toolgate", name = "Decision")]
pub struct PyDecision {
    pub inner: Decision<'static>,
}

#[pymethods]
impl PyDecision {
    /// `"allow"` or `"deny"`.
    #[getter]
    fn decision(&self) -> &'static str {
        self.inner.decision.as_str()
    }

    /// True when the call may run.
    #[getter]
    fn allowed(&self) -> bool {
        self.inner.is_allowed()
    }

    /// Why: `allowed_by_rule`, `default_allow`, `denied_by_rule`, `no_matching_rule`,
    /// `permission_missing`, `missing_argument`, `invalid_argument`, `unknown_agent`,
    /// `unknown_tool`, `ambiguous_tool`, `bad_request` or `internal_error`.
    #[getter]
    fn reason(&self) -> &'static str {
        self.inner.reason.as_str()
    }

    /// The first missing permission, for `permission_missing`; else None.
    #[getter]
    fn permission(&self) -> Option<&str> {
        self.inner.permission.as_deref()
    }

    /// The first missing argument, for `missing_argument`; the first wrongly typed one, for
    /// `invalid_argument`; else None.
    #[getter]
    fn argument(&self) -> Option<&str> {
        self.inner.argument.as_deref()
    }

    /// A message for the agent or the operator (a denial's text is what the model reads).
    #[getter]
    fn message(&self) -> &str {
        &self.inner.message
    }

    /// The rule that decided, when one did.
    #[getter]
    fn rule(&self) -> Option<PyRuleRef> {
        self.inner.rule.as_ref().map(|r| PyRuleRef {
            inner: r.clone().into_owned(),
        })
    }

    /// The request's `tool_use_id`, echoed.
    #[getter]
    fn tool_use_id(&self) -> Option<&str> {
        self.inner.tool_use_id.as_deref()
    }

    /// The SHA-256 (hex) of the compiled policy that decided.
    #[getter]
    fn policy_hash(&self) -> &str {
        &self.inner.policy_hash
    }

    /// The decision as the CLI prints it, as a dict (`json.loads` of `toolgate eval`'s line).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let value = serde_json::to_value(&self.inner)
            .map_err(|e| PyTypeError::new_err(format!("decision has no JSON form: {e}")))?;
        to_python(py, &value)
    }

    /// The decision as an agent-SDK tool result: `{"type": "tool_result", "tool_use_id",
    /// "is_error", "content"}`. `tool_use_id` overrides the request's own id when given.
    #[pyo3(signature = (tool_use_id=None))]
    fn to_tool_result<'py>(
        &self,
        py: Python<'py>,
        tool_use_id: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &self.inner.to_tool_result(tool_use_id))
    }

    fn __bool__(&self) -> PyResult<bool> {
        Err(PyTypeError::new_err(
            "a Decision has no truth value; test `decision.allowed`",
        ))
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> Py<PyAny> {
        let py = other.py();
        let Ok(other) = other.cast::<PyDecision>() else {
            return py.NotImplemented();
        };
        let equal = self.inner == other.get().inner;
        crate::compare::equality(py, equal, op)
    }

    fn __repr__(&self) -> String {
        format!(
            "Decision(decision={:?}, reason={:?}, message={:?})",
            self.inner.decision.as_str(),
            self.inner.reason.as_str(),
            &*self.inner.message
        )
    }
}

/// Where the deciding rule is: its agent, effect, target as written, file, line and column.
#[pyclass(frozen, module = "toolgate", name = "RuleRef")]
pub struct PyRuleRef {
    inner: RuleRef,
}

#[pymethods]
impl PyRuleRef {
    /// The agent the rule belongs to.
    #[getter]
    fn agent(&self) -> &str {
        &self.inner.agent
    }

    /// `"allow"` or `"deny"`.
    #[getter]
    fn effect(&self) -> &'static str {
        self.inner.effect.as_str()
    }

    /// The rule's target as written (`git.git_log`, `*`, ...).
    #[getter]
    fn target(&self) -> &str {
        &self.inner.target
    }

    /// The policy file the rule is in.
    #[getter]
    fn file(&self) -> &str {
        &self.inner.file
    }

    /// 1-based line.
    #[getter]
    fn line(&self) -> usize {
        self.inner.line
    }

    /// 1-based column.
    #[getter]
    fn column(&self) -> usize {
        self.inner.column
    }

    /// The rule as the decision JSON's `rule` object.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let value = serde_json::to_value(&self.inner)
            .map_err(|e| PyTypeError::new_err(format!("rule has no JSON form: {e}")))?;
        to_python(py, &value)
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!("RuleRef({:?})", self.inner.to_string())
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> Py<PyAny> {
        let py = other.py();
        let Ok(other) = other.cast::<PyRuleRef>() else {
            return py.NotImplemented();
        };
        let equal = self.inner == other.get().inner;
        crate::compare::equality(py, equal, op)
    }
}
