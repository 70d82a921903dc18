//! `toolgate.PermissionSet` and the guard behind `toolgate.with_permissions`, wrapping
//! `toolgate::host`.

use crate::errors;
use pyo3::basic::CompareOp;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use toolgate::host::{PermissionDeniedError, PermissionSet};
use toolgate::resolve::{parse_permission, Permission};

/// An immutable set of granted permissions (Hermes): exact `domain:action` grants, whole
/// domains (`fs:*`), or everything (`*`).
///
/// `PermissionSet(["fs:read", "net:*"])`, `PermissionSet.none()`, `PermissionSet.all()`;
/// `.grant(...)` returns a copy with more granted and leaves this one unchanged;
/// `"fs:read" in s` tests membership. `*:read` is refused: a wildcard covers a domain, never
/// an action across domains.
#[pyclass(frozen, module = "toolgate", name = "PermissionSet")]
pub struct PyPermissionSet {
    pub inner: PermissionSet,
}

/// Grants from one `str` or an iterable of `str`.
fn grant_texts(grants: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if let Ok(s) = grants.cast::<PyString>() {
        return Ok(vec![s.to_cow()?.into_owned()]);
    }
    let mut out = Vec::new();
    for item in grants.try_iter()? {
        out.push(item?.extract::<String>()?);
    }
    Ok(out)
}

fn build(py: Python<'_>, base: &PermissionSet, grants: &[String]) -> PyResult<PermissionSet> {
    base.grant(grants).map_err(|e| {
        // Name the first grant that does not parse on its own.
        let bad = grants
            .iter()
            .find(|g| PermissionSet::new([g.as_str()]).is_err())
            .map(String::as_str)
            .unwrap_or_default();
        errors::invalid_grant(py, e.to_string(), bad)
    })
}

#[pymethods]
impl PyPermissionSet {
    /// Grants exactly what is listed (an iterable of `domain:action`, `domain:*` or `*`).
    /// Raises `toolgate.InvalidGrantError` (a `ValueError`) for an invalid grant such as
    /// `*:read`, with the reason.
    #[new]
    #[pyo3(signature = (grants=None))]
    fn new(py: Python<'_>, grants: Option<&Bound<'_, PyAny>>) -> PyResult<PyPermissionSet> {
        let texts = match grants {
            Some(g) => grant_texts(g)?,
            None => Vec::new(),
        };
        Ok(PyPermissionSet {
            inner: build(py, &PermissionSet::none(), &texts)?,
        })
    }

    /// Grants nothing: the right default for an untrusted context.
    #[staticmethod]
    fn none() -> PyPermissionSet {
        PyPermissionSet {
            inner: PermissionSet::none(),
        }
    }

    /// Grants everything, for a host that has decided it trusts its tools.
    #[staticmethod]
    fn all() -> PyPermissionSet {
        PyPermissionSet {
            inner: PermissionSet::all(),
        }
    }

    /// A copy with more granted (`s.grant("fs:read", "net:http")`); this set is unchanged.
    #[pyo3(signature = (*grants))]
    fn grant(&self, py: Python<'_>, grants: Vec<String>) -> PyResult<PyPermissionSet> {
        Ok(PyPermissionSet {
            inner: build(py, &self.inner, &grants)?,
        })
    }

    /// Whether `permission` (`domain:action`) is granted; anything that is not a
    /// permission is not granted.
    fn allows(&self, permission: &str) -> bool {
        self.inner.allows(permission)
    }

    fn __contains__(&self, permission: &Bound<'_, PyAny>) -> bool {
        permission
            .cast::<PyString>()
            .ok()
            .and_then(|s| s.to_cow().ok().map(|s| self.inner.allows(&s)))
            .unwrap_or(false)
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!("PermissionSet({:?})", self.inner.to_string())
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.inner.to_string().hash(&mut h);
        h.finish()
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> Py<PyAny> {
        let py = other.py();
        let Ok(other) = other.cast::<PyPermissionSet>() else {
            return py.NotImplemented();
        };
        let equal = self.inner == other.get().inner;
        crate::compare::equality(py, equal, op)
    }
}

/// The check `with_permissions` puts in front of a tool: its name, the permissions it
/// declares (parsed once), and the grant set. `check()` raises
/// `toolgate.PermissionDeniedError` naming the first missing permission.
#[pyclass(frozen, module = "toolgate._native", name = "Guard")]
pub struct PyGuard {
    tool: String,
    needs: Vec<Permission>,
    granted: PermissionSet,
}

#[pymethods]
impl PyGuard {
    /// A guard for `tool` declaring `needs`, checked against `granted`. Raises `ValueError`
    /// when a declared permission is not a concrete `domain:action`.
    #[new]
    fn new(tool: String, needs: Vec<String>, granted: &PyPermissionSet) -> PyResult<PyGuard> {
        let mut parsed = Vec::with_capacity(needs.len());
        for n in &needs {
            let p = parse_permission(n).map_err(|e| {
                PyValueError::new_err(format!(
                    "tool `{tool}` declares {}: {}",
                    e.message(n),
                    e.help()
                ))
            })?;
            parsed.push(p);
        }
        Ok(PyGuard {
            tool,
            needs: parsed,
            granted: granted.inner.clone(),
        })
    }

    /// Raises `toolgate.PermissionDeniedError` when a declared permission is not granted.
    fn check(&self, py: Python<'_>) -> PyResult<()> {
        match self.granted.first_missing(&self.needs) {
            None => Ok(()),
            Some(p) => {
                let e = PermissionDeniedError {
                    tool: self.tool.clone(),
                    permission: p.clone(),
                };
                Err(errors::permission_denied(
                    py,
                    e.to_string(),
                    &self.tool,
                    p.to_string(),
                ))
            }
        }
    }

    /// The tool's name, as the denial message shows it.
    #[getter]
    fn tool(&self) -> &str {
        &self.tool
    }

    /// The permissions the tool declares.
    #[getter]
    fn needs(&self) -> Vec<String> {
        self.needs.iter().map(ToString::to_string).collect()
    }

    /// The grant set checked.
    #[getter]
    fn granted(&self) -> PyPermissionSet {
        PyPermissionSet {
            inner: self.granted.clone(),
        }
    }
}
