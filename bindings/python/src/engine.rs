//! `toolgate.Engine`: a compiled policy, loaded once and asked about every tool call.

use crate::convert;
use crate::decision::PyDecision;
use crate::errors;
use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, TryLockError};
use toolgate::host::request::{Refused, RequestReader};
use toolgate::load::LoadFailure;
use toolgate::{Engine, Request};

/// A compiled toolgate policy. Immutable and safe to share between threads.
///
/// Build one with `Engine.load(path)` (a `.policy` file, a folder of them, or a compiled
/// bundle), `Engine.from_bundle(data)` or `Engine.from_source(text)`; ask it with
/// `decide(...)` or `decide_request({...})`.
#[pyclass(frozen, module = "toolgate", name = "Engine")]
pub struct PyEngine {
    /// Shared with the decisions it makes, which borrow their texts from it.
    engine: Arc<Engine>,
    /// Reads requests given as Python values, its buffers kept between calls.
    reader: Mutex<RequestReader>,
}

impl PyEngine {
    fn new(engine: Engine) -> PyEngine {
        PyEngine {
            engine: Arc::new(engine),
            reader: Mutex::new(RequestReader::new()),
        }
    }

    /// Reads a request with `walk` and decides it (`bad_request` when it is refused).
    ///
    /// The engine's reader keeps its buffers from one request to the next; a call that finds
    /// it in use (another thread, on a build without the GIL) reads with a reader of its own.
    fn read(&self, walk: impl FnOnce(&mut RequestReader) -> Result<(), Refused>) -> PyDecision {
        let decide = |r: &mut RequestReader| {
            r.clear();
            // A refusal is kept by the reader, which answers it.
            let _ = walk(r);
            r.decide(&self.engine, false)
        };
        let decision = match self.reader.try_lock() {
            Ok(mut r) => decide(&mut r),
            Err(TryLockError::Poisoned(p)) => decide(&mut p.into_inner()),
            Err(TryLockError::WouldBlock) => decide(&mut RequestReader::new()),
        };
        PyDecision::new(&self.engine, decision)
    }

    /// Decides a request built from JSON text, or answers `bad_request`.
    fn answer(&self, req: Result<Request, (String, Option<String>)>) -> PyDecision {
        let decision = match req {
            Ok(req) => self.engine.decide(&req),
            Err((message, id)) => self.engine.bad_request(message, id),
        };
        PyDecision::new(&self.engine, decision)
    }
}

/// A keyword argument of `decide` that is given: `None` is an absent field.
fn given<'a, 'py>(v: Option<&'a Bound<'py, PyAny>>) -> Option<&'a Bound<'py, PyAny>> {
    v.filter(|v| !v.is_none())
}

/// `Engine.load`'s argument: one path, or a list of paths merged into one policy.
#[derive(FromPyObject)]
enum Paths {
    One(PathBuf),
    Many(Vec<PathBuf>),
}

#[pymethods]
impl PyEngine {
    /// Loads a compiled bundle (`toolgate compile`'s output, or `Engine.to_bundle()`).
    ///
    /// Raises `toolgate.BundleError` (with `.code`) for a truncated, corrupt, foreign or newer
    /// bundle; never returns a half-loaded engine.
    #[staticmethod]
    fn from_bundle(py: Python<'_>, data: Cow<'_, [u8]>) -> PyResult<PyEngine> {
        Engine::from_bundle(&data)
            .map(PyEngine::new)
            .map_err(|e| errors::bundle_error(py, e.to_string(), e.code()))
    }

    /// Compiles policy source text; `filename` is the name diagnostics and rules point at.
    ///
    /// Raises `toolgate.PolicyError` when the policy has errors.
    #[staticmethod]
    #[pyo3(signature = (text, filename="inline.policy"))]
    fn from_source(py: Python<'_>, text: &str, filename: &str) -> PyResult<PyEngine> {
        toolgate::load::engine_from_str(filename, text)
            .map(PyEngine::new)
            .map_err(|e| errors::policy_error(py, &e))
    }

    /// Loads what the CLI would: a `.policy` file, a folder of them, a list of such paths
    /// (merged into one policy), or a compiled bundle (told apart by its magic bytes).
    ///
    /// Raises `toolgate.LoadError` when a path cannot be read, `toolgate.BundleError` for a
    /// bad bundle, and `toolgate.PolicyError` for a policy with errors.
    #[staticmethod]
    fn load(py: Python<'_>, path: Paths) -> PyResult<PyEngine> {
        let paths = match path {
            Paths::One(p) => vec![p],
            Paths::Many(ps) => ps,
        };
        match toolgate::load::engine_from_paths(&paths) {
            Ok(loaded) => Ok(PyEngine::new(loaded.engine)),
            Err(LoadFailure::Io(e)) => Err(errors::load_error(py, e.to_string())),
            Err(LoadFailure::Bundle { path, error }) => Err(errors::bundle_error(
                py,
                format!("{}: {error}", path.display()),
                error.code(),
            )),
            Err(LoadFailure::Policy(e)) => Err(errors::policy_error(py, &e)),
        }
    }

    /// The compiled policy as bundle bytes (what `toolgate compile` writes).
    fn to_bundle(&self) -> Vec<u8> {
        self.engine.to_bundle()
    }

    /// The SHA-256 (hex) of the compiled policy; every decision carries it.
    #[getter]
    fn policy_hash(&self) -> &str {
        self.engine.policy_hash()
    }

    /// The agents' names, in declaration order.
    #[getter]
    fn agents(&self) -> Vec<String> {
        self.engine.agent_names().map(str::to_owned).collect()
    }

    /// Decides one tool call.
    ///
    /// `args` is a dict of the call's arguments (JSON-compatible values); `server` names the
    /// MCP server when the host knows it; `tool_use_id` is echoed in the decision;
    /// `permissions` lists what the tool declares (only for policies without a catalog).
    /// A value JSON cannot hold, or a field of the wrong type, gives a `bad_request`
    /// decision, never an exception.
    #[pyo3(signature = (agent, tool, args=None, *, server=None, tool_use_id=None, permissions=None))]
    fn decide(
        &self,
        agent: &Bound<'_, PyAny>,
        tool: &Bound<'_, PyAny>,
        args: Option<&Bound<'_, PyAny>>,
        server: Option<&Bound<'_, PyAny>>,
        tool_use_id: Option<&Bound<'_, PyAny>>,
        permissions: Option<&Bound<'_, PyAny>>,
    ) -> PyDecision {
        self.read(|r| {
            r.begin_object()?;
            // In `FIELDS` order, as a request dict is read; `None` is an absent field.
            if let Some(id) = given(tool_use_id) {
                r.key("tool_use_id")?;
                convert::walk(r, id)?;
            }
            r.key("agent")?;
            convert::walk(r, agent)?;
            r.key("tool")?;
            convert::walk(r, tool)?;
            let rest = [
                ("server", given(server)),
                ("args", given(args)),
                ("permissions", given(permissions)),
            ];
            for (name, value) in rest {
                if let Some(v) = value {
                    r.key(name)?;
                    convert::walk(r, v)?;
                }
            }
            r.end_object()
        })
    }

    /// Decides a request given as a dict of the CLI's request JSON (`agent`, `tool`,
    /// `server`, `args`, `tool_use_id`, `permissions`). Anything JSON cannot hold, or that
    /// the CLI would refuse, gives a `bad_request` decision.
    fn decide_request(&self, request: &Bound<'_, PyAny>) -> PyDecision {
        self.read(|r| match request.cast::<PyDict>() {
            Ok(d) => convert::request(r, d),
            Err(_) => convert::walk(r, request),
        })
    }

    /// Decides a call whose arguments arrive as JSON text (as agent SDKs hand them over),
    /// read with the CLI's strict parser: duplicate keys, NaN and over-deep nesting are
    /// refused, and text that is not one JSON object is a `bad_request` decision. Blank text
    /// means no arguments.
    #[pyo3(signature = (agent, tool, args_json, *, server=None, tool_use_id=None))]
    fn decide_json_args(
        &self,
        agent: String,
        tool: String,
        args_json: &str,
        server: Option<String>,
        tool_use_id: Option<String>,
    ) -> PyDecision {
        let text = if args_json.trim().is_empty() {
            "{}"
        } else {
            args_json
        };
        let req = if text.len() > toolgate::engine::request::MAX_REQUEST_BYTES {
            let bad = toolgate::engine::BadRequest::too_large(text.len());
            Err((format!("bad request: {}", bad.message), tool_use_id.clone()))
        } else {
            match toolgate::engine::json::parse_strict(text) {
                Ok(args) => {
                    let mut map = Map::new();
                    map.insert("agent".into(), Value::String(agent));
                    map.insert("tool".into(), Value::String(tool));
                    map.insert("args".into(), args);
                    if let Some(s) = server {
                        map.insert("server".into(), Value::String(s));
                    }
                    if let Some(id) = tool_use_id {
                        map.insert("tool_use_id".into(), Value::String(id));
                    }
                    Request::from_value(Value::Object(map))
                        .map_err(|bad| (format!("bad request: {}", bad.message), bad.tool_use_id))
                }
                Err(e) => Err((format!("bad request: invalid JSON: {e}"), tool_use_id)),
            }
        };
        self.answer(req)
    }

    /// Decides one request line of JSON text, with the CLI's own strict parser.
    fn decide_json(&self, line: &str) -> PyDecision {
        PyDecision::new(&self.engine, self.engine.decide_json(line, false))
    }

    /// The tools `agent` may see, in declaration order (the `toolgate tools` listing), or
    /// None for an unknown agent.
    fn tools(&self, agent: &str) -> Option<Vec<PyVisibleTool>> {
        self.engine.visible_tools(agent).map(|tools| {
            tools
                .into_iter()
                .map(|t| PyVisibleTool {
                    server: t.server,
                    tool: t.tool,
                })
                .collect()
        })
    }

    /// The expectations of the policy's `test` blocks, as dicts: `block`, `expect`,
    /// `agent`, `server`, `tool`, `args` (a dict), `needs`, `reason`, `location`
    /// (`file:line:column`).
    fn test_cases<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for case in self.engine.test_cases() {
            let args: Value = serde_json::from_str(&case.args).unwrap_or(Value::Null);
            let d = PyDict::new(py);
            d.set_item("block", &case.block)?;
            d.set_item("expect", case.expect.as_str())?;
            d.set_item("agent", &case.agent)?;
            d.set_item("server", case.server.as_deref())?;
            d.set_item("tool", &case.tool)?;
            d.set_item("args", convert::to_python(py, &args)?)?;
            d.set_item("needs", case.needs.clone())?;
            d.set_item("reason", case.reason.as_deref())?;
            d.set_item("location", case.location.to_string())?;
            list.append(d)?;
        }
        Ok(list)
    }

    fn __repr__(&self) -> String {
        format!("Engine(policy_hash={:?})", self.engine.policy_hash())
    }
}

/// A tool an agent may see: its server (None for a host tool) and name. `str()` gives the
/// CLI's form, `server.tool`.
#[pyclass(frozen, module = "toolgate", name = "VisibleTool")]
pub struct PyVisibleTool {
    server: Option<String>,
    tool: String,
}

#[pymethods]
impl PyVisibleTool {
    /// The server, or None for a host tool.
    #[getter]
    fn server(&self) -> Option<&str> {
        self.server.as_deref()
    }

    /// The tool's name.
    #[getter]
    fn tool(&self) -> &str {
        &self.tool
    }

    fn __str__(&self) -> String {
        match &self.server {
            Some(s) => format!("{s}.{}", self.tool),
            None => self.tool.clone(),
        }
    }

    fn __repr__(&self) -> String {
        let server = self
            .server
            .as_ref()
            .map_or_else(|| "None".to_string(), |s| format!("{s:?}"));
        format!("VisibleTool(server={server}, tool={:?})", self.tool)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (&self.server, &self.tool).hash(&mut h);
        h.finish()
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> Py<PyAny> {
        let py = other.py();
        let Ok(other) = other.cast::<PyVisibleTool>() else {
            return py.NotImplemented();
        };
        let o = other.get();
        let equal = self.server == o.server && self.tool == o.tool;
        crate::compare::equality(py, equal, op)
    }
}
