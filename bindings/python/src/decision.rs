//! `toolgate.Decision` and `toolgate.RuleRef`: immutable answers, with the CLI JSON's fields.

use crate::convert::to_python;
use pyo3::basic::CompareOp;
use pyo3::exceptions::PyTypeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyString;
use std::borrow::Cow;
use std::sync::Arc;
use toolgate::{Decision, Engine, RuleRef};

/// The answer to one tool call: allow or deny, why, and the rule that decided.
///
/// Immutable. Its fields are those of the CLI's decision JSON (`decision`, `reason`,
/// `permission`, `argument`, `message`, `rule`, `tool_use_id`, `policy_hash`); `to_dict()`
/// gives exactly that JSON as a dict. Test `decision.allowed`: a `Decision` has no truth
/// value, so `if engine.decide(...):` raises instead of allowing everything.
#[pyclass(frozen, module = "toolgate", name = "Decision")]
pub struct PyDecision {
    /// The decision, borrowing its texts (message, rule, permission, policy hash) from
    /// `engine`: making one copies no strings. Never handed out with its `'static` lifetime
    /// (see [`PyDecision::get`]); declared first, so it is dropped before `engine`.
    inner: Decision<'static>,
    /// The engine that made the decision, kept alive as long as the decision.
    engine: Arc<Engine>,
}

impl PyDecision {
    /// Wraps a decision `engine` made, keeping the engine alive for the texts it borrows.
    pub fn new<'e>(engine: &'e Arc<Engine>, decision: Decision<'e>) -> PyDecision {
        // SAFETY: the decision borrows only from `**engine` (its own `String`s and
        // `'static` data): the `Engine` lives on the heap behind the `Arc`, which this
        // `PyDecision` holds, is immutable (no interior mutability behind `&Engine`), and is
        // dropped after `inner` (field order). `inner` is only reached through `get`, which
        // shortens the lifetime to a borrow of `self`, so no `'static` borrow escapes.
        let inner = unsafe { std::mem::transmute::<Decision<'e>, Decision<'static>>(decision) };
        PyDecision {
            inner,
            engine: Arc::clone(engine),
        }
    }

    /// The decision, borrowed for as long as `self`.
    fn get<'s>(&'s self) -> &'s Decision<'s> {
        &self.inner
    }
}

#[pymethods]
impl PyDecision {
    /// `"allow"` or `"deny"`.
    #[getter]
    fn decision<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        interned(py, self.get().decision.as_str())
    }

    /// True when the call may run.
    #[getter]
    fn allowed(&self) -> bool {
        self.get().is_allowed()
    }

    /// Why: `allowed_by_rule`, `default_allow`, `denied_by_rule`, `no_matching_rule`,
    /// `permission_missing`, `missing_argument`, `invalid_argument`, `unknown_agent`,
    /// `unknown_tool`, `ambiguous_tool`, `bad_request` or `internal_error`.
    #[getter]
    fn reason<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        interned(py, self.get().reason.as_str())
    }

    /// The first missing permission, for `permission_missing`; else None.
    #[getter]
    fn permission(&self) -> Option<&str> {
        self.get().permission.as_deref()
    }

    /// The first missing argument, for `missing_argument`; the first wrongly typed one, for
    /// `invalid_argument`; else None.
    #[getter]
    fn argument(&self) -> Option<&str> {
        self.get().argument.as_deref()
    }

    /// A message for the agent or the operator (a denial's text is what the model reads).
    #[getter]
    fn message(&self) -> &str {
        &self.get().message
    }

    /// The rule that decided, when one did.
    #[getter]
    fn rule(&self) -> Option<PyRuleRef> {
        self.get().rule.as_ref().map(|r| match r {
            Cow::Borrowed(r) => PyRuleRef::new(&self.engine, r),
            Cow::Owned(r) => PyRuleRef::owned(r.clone()),
        })
    }

    /// The request's `tool_use_id`, echoed.
    #[getter]
    fn tool_use_id(&self) -> Option<&str> {
        self.get().tool_use_id.as_deref()
    }

    /// The SHA-256 (hex) of the compiled policy that decided.
    #[getter]
    fn policy_hash(&self) -> &str {
        &self.get().policy_hash
    }

    /// The decision as the CLI prints it, as a dict (`json.loads` of `toolgate eval`'s line).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let value = serde_json::to_value(self.get())
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
        to_python(py, &self.get().to_tool_result(tool_use_id))
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
        let equal = self.get() == other.get().get();
        crate::compare::equality(py, equal, op)
    }

    fn __repr__(&self) -> String {
        format!(
            "Decision(decision={:?}, reason={:?}, message={:?})",
            self.get().decision.as_str(),
            self.get().reason.as_str(),
            &*self.get().message
        )
    }
}

/// Where the deciding rule is: its agent, effect, target as written, file, line and column.
#[pyclass(frozen, module = "toolgate", name = "RuleRef")]
pub struct PyRuleRef {
    /// The rule, borrowed from `engine` when it is one of the engine's rules (see
    /// [`PyDecision::new`] for why this is sound); declared first, so dropped first.
    inner: Cow<'static, RuleRef>,
    /// The engine the rule is borrowed from, kept alive as long as the `RuleRef`.
    #[allow(dead_code)] // held for `inner`'s borrow, never read
    engine: Option<Arc<Engine>>,
}

impl PyRuleRef {
    /// One of `engine`'s rules, borrowed.
    fn new<'e>(engine: &'e Arc<Engine>, rule: &'e RuleRef) -> PyRuleRef {
        // SAFETY: as in `PyDecision::new`: `rule` is owned by the `Engine` behind the `Arc`
        // this `PyRuleRef` holds, and `inner` is only read through `&self` borrows.
        let rule = unsafe { std::mem::transmute::<&'e RuleRef, &'static RuleRef>(rule) };
        PyRuleRef {
            inner: Cow::Borrowed(rule),
            engine: Some(Arc::clone(engine)),
        }
    }

    /// A rule of no engine (for a decision that owns its texts).
    fn owned(rule: RuleRef) -> PyRuleRef {
        PyRuleRef {
            inner: Cow::Owned(rule),
            engine: None,
        }
    }
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
        let value = serde_json::to_value(&*self.inner)
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

/// A decision's `decision` or `reason` text as a Python string made once per interpreter,
/// so reading them allocates nothing.
fn interned<'py>(py: Python<'py>, text: &'static str) -> Bound<'py, PyString> {
    let s = match text {
        "allow" => intern!(py, "allow"),
        "deny" => intern!(py, "deny"),
        "bad_request" => intern!(py, "bad_request"),
        "unknown_agent" => intern!(py, "unknown_agent"),
        "unknown_tool" => intern!(py, "unknown_tool"),
        "ambiguous_tool" => intern!(py, "ambiguous_tool"),
        "permission_missing" => intern!(py, "permission_missing"),
        "missing_argument" => intern!(py, "missing_argument"),
        "invalid_argument" => intern!(py, "invalid_argument"),
        "denied_by_rule" => intern!(py, "denied_by_rule"),
        "no_matching_rule" => intern!(py, "no_matching_rule"),
        "allowed_by_rule" => intern!(py, "allowed_by_rule"),
        "default_allow" => intern!(py, "default_allow"),
        "internal_error" => intern!(py, "internal_error"),
        other => return PyString::new(py, other),
    };
    s.clone()
}
