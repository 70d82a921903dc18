//! Python values read into the library's request reader, and JSON values back to Python.
//!
//! A request is read by walking the Python objects and reporting each value to a
//! [`RequestReader`] (`toolgate::host::request`), which applies the rules every host shares:
//! the CLI's size limit ([`MAX_REQUEST_BYTES`](toolgate::host::request::MAX_REQUEST_BYTES),
//! counted as compact JSON), its nesting limit ([`MAX_DEPTH`]), distinct keys, the top-level
//! fields' types, and one format for the path of a refused value. The mapping is exactly
//! JSON, as the CLI's strict request parser reads it:
//!
//! | Python | JSON |
//! | --- | --- |
//! | `None` | `null` |
//! | `bool` | `true` / `false` |
//! | `int` (and subclasses) | its exact value: an integer when it fits `i64` or `u64`, else the nearest `f64` (as a JSON parser reads a long integer literal); beyond `f64`'s range it is refused |
//! | `float` (and subclasses) | a number; NaN and infinities are refused |
//! | `str` (and subclasses) | a string; a lone surrogate is refused |
//! | `dict` (and subclasses) | an object; every key must be a `str`, and two keys with the same text are refused (a duplicate key) |
//! | `list`, `tuple` (and subclasses) | an array |
//! | anything else (`bytes`, `set`, objects, ...) | refused |
//!
//! Values are read from the objects' own storage (`PyDict_Next`, the digits of an `int`, the
//! UTF-8 of a `str`): no method of a subclass (`__float__`, `__index__`, `__iter__`, `__eq__`,
//! ...) is called, so user code can neither change the answer nor the value being read. A
//! refused value is never an exception: the reader answers `bad_request`.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::Value;
use std::borrow::Cow;
use std::os::raw::c_int;
use toolgate::host::request::{Refused, RequestReader, FIELDS};

/// The deepest nesting of objects and arrays a request may have, the request object included
/// (the library's limit, the CLI's).
pub use toolgate::host::request::MAX_DEPTH;

/// The Python type name of a value, for messages.
///
/// Only called once the value is refused: the walk stops there, so whatever a metaclass
/// does to answer `__name__` cannot change a value that is still to be read.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_string())
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

const SURROGATE: &str = "is a string with a lone surrogate, which is not valid Unicode";

/// Reports one Python value to the reader.
pub fn walk(r: &mut RequestReader, obj: &Bound<'_, PyAny>) -> Result<(), Refused> {
    if let Ok(s) = obj.cast::<PyString>() {
        return match utf8(s) {
            Some(text) => r.str(&text),
            None => Err(r.refuse(SURROGATE)),
        };
    }
    if obj.is_none() {
        return r.null();
    }
    if let Ok(b) = obj.cast_exact::<PyBool>() {
        return r.bool(b.is_true());
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        return object(r, d);
    }
    if let Ok(i) = obj.cast::<PyInt>() {
        return integer(r, i);
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        // `PyFloat_AsDouble` reads a `float` (or subclass) directly, without `__float__`.
        return r.f64(f.value());
    }
    if let Ok(l) = obj.cast::<PyList>() {
        r.begin_array()?;
        let mut i = 0;
        // The length is read again each time: nothing read here changes the list, but a
        // shorter list must end the walk, never fail it.
        while i < l.len() {
            if let Ok(item) = l.get_item(i) {
                walk(r, &item)?;
            }
            i += 1;
        }
        return r.end_array();
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        r.begin_array()?;
        for item in t.iter() {
            walk(r, &item)?;
        }
        return r.end_array();
    }
    Err(r.refuse(&format!(
        "is a `{}`, which has no JSON form",
        type_name(obj)
    )))
}

/// The members of a dict, read from its own table (`PyDict_Next`: a subclass's `items` or
/// `__iter__` is not called). Ends with `Err` if the dict changes size while it is read,
/// which no value read here can cause; it is checked so that no change can make the walk fail
/// any other way.
struct Members<'a, 'py> {
    dict: &'a Bound<'py, PyDict>,
    pos: ffi::Py_ssize_t,
    len: ffi::Py_ssize_t,
    done: bool,
}

/// A dict changed while it was read.
struct Changed;

impl<'a, 'py> Members<'a, 'py> {
    fn new(dict: &'a Bound<'py, PyDict>) -> Self {
        // SAFETY: `dict` is a live dict and the GIL is held (`Bound`).
        let len = unsafe { ffi::PyDict_Size(dict.as_ptr()) };
        Members {
            dict,
            pos: 0,
            len,
            done: false,
        }
    }
}

impl<'py> Iterator for Members<'_, 'py> {
    type Item = Result<(Bound<'py, PyAny>, Bound<'py, PyAny>), Changed>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let py = self.dict.py();
        // SAFETY: as in `new`.
        if unsafe { ffi::PyDict_Size(self.dict.as_ptr()) } != self.len {
            self.done = true;
            return Some(Err(Changed));
        }
        let mut key: *mut ffi::PyObject = std::ptr::null_mut();
        let mut value: *mut ffi::PyObject = std::ptr::null_mut();
        // SAFETY: `pos` only ever comes from `PyDict_Next`, which bounds-checks it against the
        // dict's current table; it returns borrowed, non-null references on success.
        if unsafe { ffi::PyDict_Next(self.dict.as_ptr(), &mut self.pos, &mut key, &mut value) } == 0
        {
            self.done = true;
            return None;
        }
        // SAFETY: non-null borrowed references (above); each is taken as a new reference.
        let (k, v) = unsafe {
            (
                Bound::from_borrowed_ptr(py, key),
                Bound::from_borrowed_ptr(py, value),
            )
        };
        Some(Ok((k, v)))
    }
}

fn changed(r: &mut RequestReader) -> Refused {
    r.refuse_container("changed while it was read")
}

/// Reports a dict's key: a `str` without lone surrogates.
fn key(r: &mut RequestReader, k: &Bound<'_, PyAny>) -> Result<(), Refused> {
    let Ok(s) = k.cast::<PyString>() else {
        let what = format!(
            "has a key of type `{}`; JSON object keys are strings",
            type_name(k)
        );
        return Err(r.refuse_container(&what));
    };
    match utf8(s) {
        Some(text) => r.key(&text),
        None => {
            Err(r.refuse_container("has a key with a lone surrogate, which is not valid Unicode"))
        }
    }
}

/// Reports a dict as an object.
fn object(r: &mut RequestReader, d: &Bound<'_, PyDict>) -> Result<(), Refused> {
    r.begin_object()?;
    for member in Members::new(d) {
        let Ok((k, v)) = member else {
            return Err(changed(r));
        };
        key(r, &k)?;
        walk(r, &v)?;
    }
    r.end_object()
}

/// Reports a request dict: its known fields first, in [`FIELDS`] order (so that a request
/// refused for a later value still carries its `tool_use_id`), then the other keys in the
/// dict's order. A second key with a field's text is reported with the others, where the
/// reader refuses it as a duplicate.
pub fn request(r: &mut RequestReader, d: &Bound<'_, PyDict>) -> Result<(), Refused> {
    r.begin_object()?;
    // (the member's position in the dict, its value) per field.
    let mut fields: [Option<(usize, Bound<'_, PyAny>)>; FIELDS.len()] = Default::default();
    let mut found = 0;
    let mut len = 0;
    for (i, member) in Members::new(d).enumerate() {
        let Ok((k, v)) = member else {
            return Err(changed(r));
        };
        len = i + 1;
        let Some(text) = k.cast::<PyString>().ok().and_then(|s| utf8(s)) else {
            continue;
        };
        let slot = FIELDS
            .iter()
            .position(|f| *f == text)
            .and_then(|f| fields.get_mut(f));
        if let Some(slot @ None) = slot {
            *slot = Some((i, v));
            found += 1;
        }
    }
    for (name, field) in FIELDS.iter().zip(&fields) {
        if let Some((_, v)) = field {
            r.key(name)?;
            walk(r, v)?;
        }
    }
    if found < len {
        for (i, member) in Members::new(d).enumerate() {
            let Ok((k, v)) = member else {
                return Err(changed(r));
            };
            if fields.iter().flatten().any(|(at, _)| *at == i) {
                continue;
            }
            key(r, &k)?;
            walk(r, &v)?;
        }
    }
    r.end_object()
}

/// Reports an `int` by its exact value, read from its digits (for an `int` or subclass these
/// C functions never call `__index__`, `__int__` or `__float__`): an `i64` or `u64` when it
/// fits, else the nearest `f64` (`PyLong_AsDouble` rounds half to even, as CPython's
/// `float(int)` does); beyond `f64`'s range it is refused.
fn integer(r: &mut RequestReader, i: &Bound<'_, PyInt>) -> Result<(), Refused> {
    const TWO_TO_64: f64 = 18_446_744_073_709_551_616.0;
    let p = i.as_ptr();
    let mut overflow: c_int = 0;
    // SAFETY: `p` is a live `int` and the GIL is held; on overflow this sets `overflow`
    // instead of raising.
    let v = unsafe { ffi::PyLong_AsLongLongAndOverflow(p, &mut overflow) };
    if overflow == 0 {
        // SAFETY: the GIL is held. An `int` always has a value, but never trust -1 blindly.
        if v == -1 && unsafe { !ffi::PyErr_Occurred().is_null() } {
            unsafe { ffi::PyErr_Clear() };
            return Err(r.refuse("is an `int` whose value cannot be read"));
        }
        return r.i64(v);
    }
    // SAFETY: as above; beyond `f64` this raises `OverflowError`, cleared here.
    let d = unsafe { ffi::PyLong_AsDouble(p) };
    if d == -1.0 && unsafe { !ffi::PyErr_Occurred().is_null() } {
        unsafe { ffi::PyErr_Clear() };
        return Err(r.refuse("is an integer beyond the range of a JSON number (f64)"));
    }
    if overflow > 0 && d <= TWO_TO_64 {
        // The value is at least 2^63. Rounding is monotonic, so below 2^64 as a float it is
        // below 2^64; at exactly 2^64 it is within a few thousand of it, and the low 64 bits
        // (no overflow check, no exception) tell a value below 2^64 (at least 2^63) from one
        // at or above it (below 2^63).
        // SAFETY: as above; never raises for an `int`.
        let low = unsafe { ffi::PyLong_AsUnsignedLongLongMask(p) };
        if d < TWO_TO_64 || low >= 1 << 63 {
            return r.u64(low);
        }
    }
    r.f64(d)
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
