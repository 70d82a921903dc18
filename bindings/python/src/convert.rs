//! Python values to JSON and back, walking the Python objects in Rust.
//!
//! The mapping is exactly JSON, as the CLI's strict request parser reads it:
//!
//! | Python | JSON |
//! | --- | --- |
//! | `None` | `null` |
//! | `bool` | `true` / `false` |
//! | `int` (and subclasses) | an integer when it fits `i64` or `u64`, else the nearest `f64` (as a JSON parser reads a long integer literal); beyond `f64`'s range it is refused |
//! | `float` (and subclasses) | a number; NaN and infinities are refused |
//! | `str` (and subclasses) | a string; a lone surrogate is refused |
//! | `dict` (and subclasses) | an object; every key must be a `str`, and two keys with the same text are refused (a duplicate key) |
//! | `list`, `tuple` (and subclasses) | an array |
//! | anything else (`bytes`, `set`, objects, ...) | refused |
//!
//! Containers nest at most [`MAX_DEPTH`] deep, counting the request object itself, as in the
//! CLI; a recursive structure hits that limit. A refused value is never an exception: the
//! caller turns a [`Refusal`] into a `bad_request` decision.

#[cfg(not(windows))]
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;

/// The deepest nesting of objects and arrays a request may have, the request object included
/// (the CLI's JSON parser refuses the 128th level).
pub const MAX_DEPTH: usize = 127;

/// One step of the path from the request to a refused value.
enum Step {
    Key(String),
    Index(usize),
}

/// Why a Python value has no JSON form, and where it is.
pub struct Refusal {
    /// What is wrong with the value.
    what: String,
    /// The path from the top, innermost step first (it is built while unwinding).
    steps: Vec<Step>,
}

impl Refusal {
    /// A refusal of the request object itself.
    pub fn top(what: impl Into<String>) -> Refusal {
        Refusal::new(what)
    }

    fn new(what: impl Into<String>) -> Refusal {
        Refusal {
            what: what.into(),
            steps: Vec::new(),
        }
    }

    fn at(mut self, step: Step) -> Refusal {
        self.steps.push(step);
        self
    }

    /// The refusal under one more key (used by callers that convert a field themselves).
    pub fn under(self, key: &str) -> Refusal {
        self.at(Step::Key(key.to_string()))
    }

    /// The message of the `bad_request` decision: `bad request: `args.p[0]` ...`.
    pub fn message(&self) -> String {
        let mut path = String::new();
        for step in self.steps.iter().rev() {
            match step {
                Step::Key(k) => {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(k);
                }
                Step::Index(i) => path.push_str(&format!("[{i}]")),
            }
        }
        if path.is_empty() {
            format!("bad request: the request {}", self.what)
        } else {
            format!("bad request: `{path}` {}", self.what)
        }
    }
}

/// The Python type name of a value, for messages.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_string())
}

/// Converts one Python value at nesting `depth` (the number of containers around it).
pub fn to_json(obj: &Bound<'_, PyAny>, depth: usize) -> Result<Value, Refusal> {
    if let Ok(s) = obj.cast::<PyString>() {
        return string(s).map(Value::String);
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast_exact::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        return object(d, depth + 1).map(Value::Object);
    }
    if obj.is_instance_of::<PyInt>() {
        return integer(obj);
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let v = f.value();
        return Number::from_f64(v).map(Value::Number).ok_or_else(|| {
            Refusal::new(format!(
                "is the float `{v}`; NaN and infinities are not JSON numbers"
            ))
        });
    }
    if let Ok(l) = obj.cast::<PyList>() {
        check_depth(depth + 1)?;
        let mut out = Vec::with_capacity(l.len());
        for (i, item) in l.iter().enumerate() {
            out.push(to_json(&item, depth + 1).map_err(|r| r.at(Step::Index(i)))?);
        }
        return Ok(Value::Array(out));
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        check_depth(depth + 1)?;
        let mut out = Vec::with_capacity(t.len());
        for (i, item) in t.iter().enumerate() {
            out.push(to_json(&item, depth + 1).map_err(|r| r.at(Step::Index(i)))?);
        }
        return Ok(Value::Array(out));
    }
    Err(Refusal::new(format!(
        "is a `{}`, which has no JSON form",
        type_name(obj)
    )))
}

fn check_depth(depth: usize) -> Result<(), Refusal> {
    if depth > MAX_DEPTH {
        return Err(Refusal::new(format!(
            "is nested too deeply: a request holds at most {MAX_DEPTH} levels of objects and arrays"
        )));
    }
    Ok(())
}

#[cfg(not(windows))]
extern "C" {
    // Exported by every CPython 3.x; part of the stable ABI from 3.10, and declared here
    // because the module is built for the 3.9 stable ABI, where pyo3 copies every `str` out
    // through a temporary `bytes` object instead.
    fn PyUnicode_AsUTF8AndSize(
        unicode: *mut ffi::PyObject,
        size: *mut ffi::Py_ssize_t,
    ) -> *const std::os::raw::c_char;
}

/// A `str`'s UTF-8 text, borrowed from the string object (CPython keeps it with the string,
/// and an ASCII string is its own UTF-8), or `None` for a lone surrogate, which has no UTF-8
/// (and no JSON) form.
#[cfg(not(windows))]
pub fn utf8<'a>(s: &'a Bound<'_, PyString>) -> Option<Cow<'a, str>> {
    let mut size: ffi::Py_ssize_t = 0;
    // SAFETY: `s` is a live `str` and the GIL is held (`Bound`).
    let data = unsafe { PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size) };
    if data.is_null() {
        // The `UnicodeEncodeError` of a lone surrogate: not an exception here, a refusal.
        // SAFETY: the GIL is held.
        unsafe { ffi::PyErr_Clear() };
        return None;
    }
    let len = usize::try_from(size).ok()?;
    // SAFETY: CPython returns `size` bytes of valid UTF-8, owned by the string object, which
    // `s` keeps alive for `'a` (a `str` is immutable, so the buffer never changes).
    Some(Cow::Borrowed(unsafe {
        std::str::from_utf8_unchecked(std::slice::from_raw_parts(data.cast(), len))
    }))
}

/// A `str`'s UTF-8 text, or `None` for a lone surrogate. On Windows a stable-ABI module links
/// against `python3.dll`, which exports `PyUnicode_AsUTF8AndSize` only from 3.10 on, so the
/// text is copied out as pyo3 does.
#[cfg(windows)]
pub fn utf8<'a>(s: &'a Bound<'_, PyString>) -> Option<Cow<'a, str>> {
    s.to_cow().ok()
}

/// The refusal of a `str` with a lone surrogate.
pub fn surrogate() -> Refusal {
    Refusal::new("is a string with a lone surrogate, which is not valid Unicode")
}

/// A `str` as UTF-8; a lone surrogate has no UTF-8 (and no JSON) form.
pub fn string(s: &Bound<'_, PyString>) -> Result<String, Refusal> {
    utf8(s).map(Cow::into_owned).ok_or_else(surrogate)
}

/// A `dict` at nesting `depth` (itself included) as a JSON object.
pub fn object(d: &Bound<'_, PyDict>, depth: usize) -> Result<Map<String, Value>, Refusal> {
    check_depth(depth)?;
    let mut out = Map::new();
    for (k, v) in d.iter() {
        let Ok(ks) = k.cast::<PyString>() else {
            return Err(Refusal::new(format!(
                "has a key of type `{}`; JSON object keys are strings",
                type_name(&k)
            )));
        };
        let key = utf8(ks).ok_or_else(surrogate)?;
        let value = to_json(&v, depth).map_err(|r| r.at(Step::Key(key.to_string())))?;
        match out.entry(key.into_owned()) {
            serde_json::map::Entry::Vacant(slot) => {
                slot.insert(value);
            }
            serde_json::map::Entry::Occupied(slot) => {
                return Err(Refusal::new(format!("has the key `{}` twice", slot.key())));
            }
        }
    }
    Ok(out)
}

/// An `int`: exact when it fits 64 bits, else the nearest `f64`, as a JSON parser reads an
/// integer literal that long.
fn integer(obj: &Bound<'_, PyAny>) -> Result<Value, Refusal> {
    if let Ok(i) = obj.extract::<i64>() {
        return Ok(Value::from(i));
    }
    if let Ok(u) = obj.extract::<u64>() {
        return Ok(Value::from(u));
    }
    obj.extract::<f64>()
        .ok()
        .and_then(Number::from_f64)
        .map(Value::Number)
        .ok_or_else(|| Refusal::new("is an integer beyond the range of a JSON number (f64)"))
}

/// A JSON value as the Python value `json.loads` would give.
pub fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_python(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_python(py, v)?)?;
            }
            dict.into_any()
        }
    })
}
