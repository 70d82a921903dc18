//! Writing a decision into a JS object directly: no intermediate owned strings, each object's
//! properties defined in one Node-API call, and exactly the CLI's fields (`explanation` only
//! when asked for).

use napi::bindgen_prelude::ToNapiValue;
use napi::sys;
use std::ffi::CStr;
use std::ptr;

/// A JS value built by this module, handed back from a napi function as it is.
pub struct Raw(sys::napi_value);

impl Raw {
    /// A value made by Node-API in the current call.
    pub fn new(value: sys::napi_value) -> Raw {
        Raw(value)
    }
}

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

/// A plain data property (writable, enumerable, configurable), as an object literal has.
const PLAIN: sys::napi_property_attributes = sys::PropertyAttributes::writable
    | sys::PropertyAttributes::enumerable
    | sys::PropertyAttributes::configurable;

/// One property of an object under construction.
fn prop(name: &'static CStr, value: sys::napi_value) -> sys::napi_property_descriptor {
    sys::napi_property_descriptor {
        utf8name: name.as_ptr(),
        name: ptr::null_mut(),
        method: None,
        getter: None,
        setter: None,
        value,
        attributes: PLAIN,
        data: ptr::null_mut(),
    }
}

impl Builder {
    unsafe fn status(&mut self, s: sys::napi_status) {
        self.ok &= s == sys::Status::napi_ok;
    }

    /// An object with `props`, defined in one Node-API call.
    unsafe fn object(&mut self, props: &[sys::napi_property_descriptor]) -> sys::napi_value {
        let mut o = ptr::null_mut();
        let s = sys::napi_create_object(self.env, &mut o);
        self.status(s);
        if self.ok {
            let s = sys::napi_define_properties(self.env, o, props.len(), props.as_ptr());
            self.status(s);
        }
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

    unsafe fn undefined(&mut self) -> sys::napi_value {
        let mut v = ptr::null_mut();
        let s = sys::napi_get_undefined(self.env, &mut v);
        self.status(s);
        v
    }

    unsafe fn number(&mut self, n: usize) -> sys::napi_value {
        let mut v = ptr::null_mut();
        let s = sys::napi_create_double(self.env, n as f64, &mut v);
        self.status(s);
        v
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
    let rule = match d.rule.as_deref() {
        Some(r) => {
            let props = [
                prop(c"agent", b.string(&r.agent)),
                prop(c"effect", b.string(r.effect.as_str())),
                prop(c"target", b.string(&r.target)),
                prop(c"file", b.string(&r.file)),
                prop(c"line", b.number(r.line)),
                prop(c"column", b.number(r.column)),
            ];
            b.object(&props)
        }
        None => b.null(),
    };
    let explanation = match &d.explanation {
        Some(e) => {
            let json =
                serde_json::to_value(e).map_err(|e| napi::Error::from_reason(e.to_string()))?;
            Some(serde_json::Value::to_napi_value(env, json)?)
        }
        None => None,
    };
    let props = [
        prop(c"decision", b.string(d.decision.as_str())),
        prop(c"reason", b.string(d.reason.as_str())),
        prop(c"permission", b.opt_string(d.permission.as_deref())),
        prop(c"argument", b.opt_string(d.argument.as_deref())),
        prop(c"message", b.string(&d.message)),
        prop(c"rule", rule),
        prop(c"tool_use_id", b.opt_string(d.tool_use_id.as_deref())),
        prop(c"policy_hash", b.string(&d.policy_hash)),
        prop(c"explanation", explanation.unwrap_or(ptr::null_mut())),
    ];
    let count = if explanation.is_some() { 9 } else { 8 };
    let o = b.object(&props[..count]);
    if b.ok {
        Ok(Raw(o))
    } else {
        Err(napi::Error::from_reason(
            "could not build the decision object in JS",
        ))
    }
}

/// A decision handed to `build`, a JS function, as its arguments: `(decision, reason,
/// permission, argument, message, tool_use_id, policy_hash, explanation)` (`null` where a field
/// does not apply, `undefined` for no explanation), followed, when a rule decided, by the
/// rule's `agent, effect, target, file, line, column`; returns what `build` returns.
/// `toolgate.js` passes a function that makes the decision object with an object literal: one
/// call costs a fraction of defining each property (or array element) through Node-API.
///
/// # Errors
///
/// When `build` is not a function, throws, or Node-API fails to create a value.
///
/// # Safety
///
/// `env` and `build` must be the live environment and a value of the current call.
pub unsafe fn through(
    env: sys::napi_env,
    d: &toolgate::Decision<'_>,
    build: sys::napi_value,
) -> napi::Result<Raw> {
    let mut b = Builder { env, ok: true };
    let mut t = sys::ValueType::napi_undefined;
    if sys::napi_typeof(env, build, &mut t) != sys::Status::napi_ok
        || t != sys::ValueType::napi_function
    {
        return Err(napi::Error::new(
            napi::Status::InvalidArg,
            "`build` must be a function",
        ));
    }
    let explanation = match &d.explanation {
        Some(e) => {
            let json =
                serde_json::to_value(e).map_err(|e| napi::Error::from_reason(e.to_string()))?;
            serde_json::Value::to_napi_value(env, json)?
        }
        None => b.undefined(),
    };
    let mut args = [ptr::null_mut(); 14];
    args[0] = b.string(d.decision.as_str());
    args[1] = b.string(d.reason.as_str());
    args[2] = b.opt_string(d.permission.as_deref());
    args[3] = b.opt_string(d.argument.as_deref());
    args[4] = b.string(&d.message);
    args[5] = b.opt_string(d.tool_use_id.as_deref());
    args[6] = b.string(&d.policy_hash);
    args[7] = explanation;
    let argc = match d.rule.as_deref() {
        Some(r) => {
            args[8] = b.string(&r.agent);
            args[9] = b.string(r.effect.as_str());
            args[10] = b.string(&r.target);
            args[11] = b.string(&r.file);
            args[12] = b.number(r.line);
            args[13] = b.number(r.column);
            14
        }
        None => 8,
    };
    let recv = b.undefined();
    if !b.ok {
        return Err(napi::Error::from_reason(
            "could not build the decision fields in JS",
        ));
    }
    let mut out = ptr::null_mut();
    let s = sys::napi_call_function(env, recv, build, argc, args.as_ptr(), &mut out);
    if s == sys::Status::napi_ok {
        Ok(Raw(out))
    } else {
        // The pending exception (if any) is what the caller sees.
        Err(napi::Error::new(
            napi::Status::PendingException,
            "building the decision object failed",
        ))
    }
}
