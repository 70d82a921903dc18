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

/// Splits a tool name as agent SDKs spell it (`toolgate::host::split_tool_name`):
/// `mcp__<server>__<tool>` gives `(server, tool)`, any other name `(None, name)`. `server` is
/// the MCP server's name when the host knows it, so that a server whose name holds `__` splits
/// where it ends.
#[pyfunction]
#[pyo3(signature = (name, server=None))]
fn split_tool_name(name: &str, server: Option<&str>) -> (Option<String>, String) {
    let (server, tool) = toolgate::host::split_tool_name(name, server);
    (server.map(str::to_string), tool.to_string())
}

/// The module's contents, registered under `toolgate._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<engine::PyEngine>()?;
    m.add_class::<decision::PyDecision>()?;
    m.add_class::<decision::PyRuleRef>()?;
    m.add_class::<engine::PyVisibleTool>()?;
    m.add_class::<permissions::PyPermissionSet>()?;
    m.add_class::<permissions::PyGuard>()?;
    m.add_function(wrap_pyfunction!(split_tool_name, m)?)?;
    m.add("MAX_DEPTH", convert::MAX_DEPTH)?;
    Ok(())
}
