//! The package's exceptions, raised from Rust.
//!
//! The classes are defined in Python (`toolgate/_errors.py`), so they carry docstrings and
//! attributes like any Python exception; Rust looks each one up once and raises it.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyTuple, PyType};

/// Looks up `toolgate._errors.<name>` once per process.
fn class<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyType>>,
    name: &str,
) -> PyResult<Bound<'py, PyType>> {
    cell.get_or_try_init(py, || {
        py.import("toolgate._errors")?
            .getattr(name)?
            .cast_into::<PyType>()
            .map(Bound::unbind)
            .map_err(|_| PyRuntimeError::new_err(format!("toolgate._errors.{name} is not a class")))
    })
    .map(|c| c.bind(py).clone())
}

static POLICY_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static BUNDLE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static LOAD_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static INVALID_GRANT: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static PERMISSION_DENIED: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static DIAGNOSTIC: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// Builds an exception of class `name` from constructor arguments.
fn raise(
    py: Python<'_>,
    cell: &'static PyOnceLock<Py<PyType>>,
    name: &str,
    args: Bound<'_, PyTuple>,
) -> PyErr {
    match class(py, cell, name).and_then(|c| c.call1(args)) {
        Ok(exc) => PyErr::from_value(exc),
        Err(e) => e,
    }
}

/// `toolgate.PolicyError(report, diagnostics)` from the library's [`toolgate::PolicyError`].
pub fn policy_error(py: Python<'_>, err: &toolgate::PolicyError) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let diag_class = class(py, &DIAGNOSTIC, "Diagnostic")?;
        let list = PyList::empty(py);
        for d in err.diagnostics.sorted() {
            let loc = err.sources.location(d.span);
            list.append(diag_class.call1((
                d.code,
                d.severity.as_str(),
                d.message.as_str(),
                loc.file,
                loc.line,
                loc.column,
                d.help.as_deref(),
            ))?)?;
        }
        let args = PyTuple::new(
            py,
            [
                err.to_string().into_pyobject(py)?.into_any(),
                list.into_any(),
            ],
        )?;
        Ok(raise(py, &POLICY_ERROR, "PolicyError", args))
    };
    build().unwrap_or_else(|e| e)
}

/// `toolgate.BundleError(message, code)`.
pub fn bundle_error(py: Python<'_>, message: String, code: &str) -> PyErr {
    match (message, code).into_pyobject(py) {
        Ok(args) => raise(py, &BUNDLE_ERROR, "BundleError", args),
        Err(e) => e,
    }
}

/// `toolgate.LoadError(message)`: a file or folder could not be read.
pub fn load_error(py: Python<'_>, message: String) -> PyErr {
    match (message,).into_pyobject(py) {
        Ok(args) => raise(py, &LOAD_ERROR, "LoadError", args),
        Err(e) => e,
    }
}

/// `toolgate.InvalidGrantError(message, grant)`.
pub fn invalid_grant(py: Python<'_>, message: String, grant: &str) -> PyErr {
    match (message, grant).into_pyobject(py) {
        Ok(args) => raise(py, &INVALID_GRANT, "InvalidGrantError", args),
        Err(e) => e,
    }
}

/// `toolgate.PermissionDeniedError(message, tool, permission)`.
pub fn permission_denied(py: Python<'_>, message: String, tool: &str, permission: String) -> PyErr {
    match (message, tool, permission).into_pyobject(py) {
        Ok(args) => raise(py, &PERMISSION_DENIED, "PermissionDeniedError", args),
        Err(e) => e,
    }
}
