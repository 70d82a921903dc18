//! `==` and `!=` for the frozen classes: equal by value, no ordering.

use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::types::PyBool;

/// The answer of `__richcmp__` given whether the two values are equal: a bool for `==` and
/// `!=`, `NotImplemented` for the orderings.
pub fn equality(py: Python<'_>, equal: bool, op: CompareOp) -> Py<PyAny> {
    match op {
        CompareOp::Eq => PyBool::new(py, equal).to_owned().into_any().unbind(),
        CompareOp::Ne => PyBool::new(py, !equal).to_owned().into_any().unbind(),
        _ => py.NotImplemented(),
    }
}
