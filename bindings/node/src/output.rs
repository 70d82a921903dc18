//! Writing a decision into a JS object directly, field by field: no intermediate owned
//! strings, and exactly the CLI's fields (`explanation` only when asked for).

use napi::bindgen_prelude::ToNapiValue;
use napi::sys;
use std::ffi::CStr;
use std::ptr;

/// A JS value built by this module, handed back from a napi function as it is.
pub struct Raw(sys::napi_value);

impl ToNapiValue for Raw {
    unsafe fn to_napi_value(_env: sys::napi_env, val: Raw) -> napi::Result<sys::napi_value> {
        Ok(val.0)
    }
}

/// Builds JS values, remembering the first failure instead of stopping at each call.
struct Builder {
    env: sys::napi_env,
    ok: bool,
}

impl Builder {
    unsafe fn status(&mut self, s: sys::napi_status) {
        self.ok &= s == sys::Status::napi_ok;
    }

    unsafe fn object(&mut self) -> sys::napi_value {
        let mut o = ptr::null_mut();
        let s = sys::napi_create_object(self.env, &mut o);
        self.status(s);
        o
    }

    unsafe fn string(&mut self, text: &str) -> sys::napi_value {
        let mut v = ptr::null_mut();
        let s = sys::napi_create_string_utf8(
            self.env,
            text.as_ptr().cast(),
            text.len() as isize,
            &mut v,
        );
        self.status(s);
        v
    }

    unsafe fn null(&mut self) -> sys::napi_value {
        let mut v = ptr::null_mut();
        let s = sys::napi_get_null(self.env, &mut v);
        self.status(s);
        v
    }

    unsafe fn opt_string(&mut self, text: Option<&str>) -> sys::napi_value {
        match text {
            Some(t) => self.string(t),
            None => self.null(),
        }
    }

    unsafe fn number(&mut self, n: usize) -> sys::napi_value {
        let mut v = ptr::null_mut();
        let s = sys::napi_create_double(self.env, n as f64, &mut v);
        self.status(s);
        v
    }

    unsafe fn set(&mut self, obj: sys::napi_value, name: &CStr, value: sys::napi_value) {
        if self.ok {
            let s = sys::napi_set_named_property(self.env, obj, name.as_ptr(), value);
            self.status(s);
        }
    }
}

/// The JS object for a decision: `decision`, `reason`, `permission`, `argument`, `message`,
/// `rule` (`agent`, `effect`, `target`, `file`, `line`, `column`), `tool_use_id`,
/// `policy_hash`, and `explanation` when the decision has one.
///
/// # Errors
///
/// When Node-API fails to create a value (out of memory, or an exception pending).
///
/// # Safety
///
/// `env` must be the live environment of the current call.
pub unsafe fn decision(env: sys::napi_env, d: &toolgate::Decision<'_>) -> napi::Result<Raw> {
    let mut b = Builder { env, ok: true };
    let o = b.object();
    let v = b.string(d.decision.as_str());
    b.set(o, c"decision", v);
    let v = b.string(d.reason.as_str());
    b.set(o, c"reason", v);
    let v = b.opt_string(d.permission.as_deref());
    b.set(o, c"permission", v);
    let v = b.opt_string(d.argument.as_deref());
    b.set(o, c"argument", v);
    let v = b.string(&d.message);
    b.set(o, c"message", v);
    let v = match d.rule.as_deref() {
        Some(r) => {
            let ro = b.object();
            let v = b.string(&r.agent);
            b.set(ro, c"agent", v);
            let v = b.string(r.effect.as_str());
            b.set(ro, c"effect", v);
            let v = b.string(&r.target);
            b.set(ro, c"target", v);
            let v = b.string(&r.file);
            b.set(ro, c"file", v);
            let v = b.number(r.line);
            b.set(ro, c"line", v);
            let v = b.number(r.column);
            b.set(ro, c"column", v);
            ro
        }
        None => b.null(),
    };
    b.set(o, c"rule", v);
    let v = b.opt_string(d.tool_use_id.as_deref());
    b.set(o, c"tool_use_id", v);
    let v = b.string(&d.policy_hash);
    b.set(o, c"policy_hash", v);
    if let Some(e) = &d.explanation {
        let json = serde_json::to_value(e).map_err(|e| napi::Error::from_reason(e.to_string()))?;
        let v = serde_json::Value::to_napi_value(env, json)?;
        b.set(o, c"explanation", v);
    }
    if b.ok {
        Ok(Raw(o))
    } else {
        Err(napi::Error::from_reason(
            "could not build the decision object in JS",
        ))
    }
}
