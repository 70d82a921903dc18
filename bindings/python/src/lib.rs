//! `toolgate._native`: the Rust extension module of the `toolgate` Python package.
//!
//! It wraps the `toolgate` crate's public API: a compiled [`toolgate::Engine`] behind a
//! frozen Python class, decisions as immutable Python objects, the Hermes-style
//! [`toolgate::host::PermissionSet`], and the permission guard of tools that declare what they
//! need. Python values become JSON here, in Rust, by walking the objects; nothing in Python
//! decides anything.

// Decisions borrow their engine (a lifetime the Python objects hold by reference) and strings
// are read through CPython's UTF-8 cache; each unsafe block says why it holds.
#![allow(unsafe_code)]

use pyo3::prelude::*;

mod compare;
mod convert;
mod decision;
mod engine;
mod errors;
mod permissions;

/// The module's contents, registered under `toolgate._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<engine::PyEngine>()?;
    m.add_class::<decision::PyDecision>()?;
    m.add_class::<decision::PyRuleRef>()?;
    m.add_class::<engine::PyVisibleTool>()?;
    m.add_class::<permissions::PyPermissionSet>()?;
    m.add_class::<permissions::PyGuard>()?;
    m.add("MAX_DEPTH", convert::MAX_DEPTH)?;
    Ok(())
}
