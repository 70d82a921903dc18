//! The function `toolgate.js` decides most requests with: a JS function bound to one engine
//! that takes the request as UTF-8 JSON text in a byte buffer and answers with a number (see
//! [`code`]).
//!
//! It is a plain Node-API callback whose engine rides in the function's own data pointer,
//! set when the function is made: a call costs one `napi_get_cb_info`, one `ArrayBuffer` lookup
//! (the text is read in place: no JS string is flattened or converted to UTF-8) and two
//! numbers, without the receiver unwrapping and borrow bookkeeping that a `#[napi]`
//! method pays on every call (more than the decision itself).

use crate::output::Raw;
use crate::shapes::Shapes;
use napi::sys;
use std::ffi::c_void;
use std::ptr;
use std::sync::Arc;
use toolgate::engine::request::MAX_REQUEST_BYTES;

/// What a decider function holds: the engine and its shape table.
pub struct Bound {
    /// The engine that decides.
    pub engine: Arc<toolgate::Engine>,
    /// The engine's numbered decision shapes, shared with `Engine.decisionShape`.
    pub shapes: Arc<Shapes>,
}

/// The answer for a request given as JSON text: `2 * shape + id`, where `shape` numbers the
/// decision's shape in `bound.shapes` and `id` is 1 when the decision's `tool_use_id` is the
/// request's (always the `tool_use_id` the text holds) and 0 when it is `null`; -1 when this
/// path does not answer: the text does not parse (the caller's accurate path names the value
/// JSON cannot hold), is too large, or the shape table is full.
pub fn code(bound: &Bound, text: &str) -> i32 {
    if text.len() > MAX_REQUEST_BYTES {
        return -1;
    }
    // The common form is read in place; anything else by the CLI's own parser.
    let mut parsed = crate::text::Parsed::new();
    let d = match crate::text::read_into(text, &mut parsed) {
        true => bound.engine.decide_ref(&parsed.request()),
        false => match toolgate::Request::from_json(text) {
            Ok(req) => bound.engine.decide(&req),
            Err(bad) if bad.message.starts_with("invalid JSON") => return -1,
            Err(bad) => bound
                .engine
                .bad_request(format!("bad request: {}", bad.message), bad.tool_use_id),
        },
    };
    match bound.shapes.number(&d) {
        Some(n) if n < (1 << 30) => (n * 2 + u32::from(d.tool_use_id.is_some())) as i32,
        _ => -1,
    }
}

/// A JS function `(bytes: ArrayBuffer, length: number) => number` answering with the [`code`]
/// of the UTF-8 text in `bytes` for `bound`; the engine is released when the function is
/// collected.
///
/// # Errors
///
/// When Node-API cannot make the function.
///
/// # Safety
///
/// `env` must be the live environment of the current call.
pub unsafe fn function(env: sys::napi_env, bound: Bound) -> napi::Result<Raw> {
    let data = Box::into_raw(Box::new(bound));
    let mut f = ptr::null_mut();
    let status = sys::napi_create_function(
        env,
        c"decideJson".as_ptr(),
        10,
        Some(call),
        data.cast(),
        &mut f,
    );
    if status != sys::Status::napi_ok {
        drop(Box::from_raw(data));
        return Err(napi::Error::from_reason(
            "could not make the decider function",
        ));
    }
    let status = sys::napi_add_finalizer(
        env,
        f,
        data.cast(),
        Some(release),
        ptr::null_mut(),
        ptr::null_mut(),
    );
    if status != sys::Status::napi_ok {
        // The function is dropped unreachable; its engine stays allocated rather than risk
        // a function whose data is freed.
        return Err(napi::Error::from_reason(
            "could not make the decider function",
        ));
    }
    Ok(Raw::new(f))
}

/// Frees what a collected decider function held.
unsafe extern "C" fn release(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    if !data.is_null() {
        drop(Box::from_raw(data.cast::<Bound>()));
    }
}

/// The decider's Node-API callback: `(bytes: ArrayBuffer, length: number) => number`, the
/// [`code`] of the UTF-8 text in the first `length` bytes of `bytes`; -1 when the arguments
/// are not that (or the text is not UTF-8).
unsafe extern "C" fn call(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    let mut argc = 2usize;
    let mut argv = [ptr::null_mut(); 2];
    let mut data = ptr::null_mut();
    let status = sys::napi_get_cb_info(
        env,
        info,
        &mut argc,
        argv.as_mut_ptr(),
        ptr::null_mut(),
        &mut data,
    );
    let answer = if status != sys::Status::napi_ok || data.is_null() || argc < 2 {
        -1
    } else {
        let bound = &*data.cast::<Bound>();
        match bytes(env, argv[0], argv[1]) {
            Some(text) => std::panic::catch_unwind(|| match std::str::from_utf8(text) {
                Ok(text) => code(bound, text),
                Err(_) => -1,
            })
            .unwrap_or(-1),
            None => -1,
        }
    };
    let mut out = ptr::null_mut();
    sys::napi_create_int32(env, answer, &mut out);
    out
}

/// The first `length` bytes of the `ArrayBuffer` `buffer`, read in place; `None` when
/// `buffer` is no `ArrayBuffer` or `length` is no count within it. (An `ArrayBuffer` costs
/// Node-API less to read than a typed array, which must find its buffer first.)
///
/// # Safety
///
/// `env`, `buffer` and `length` must be the live environment and values of the current call,
/// and the slice must be dropped before any JS runs (which could detach or change it).
unsafe fn bytes<'a>(
    env: sys::napi_env,
    buffer: sys::napi_value,
    length: sys::napi_value,
) -> Option<&'a [u8]> {
    let mut len = 0usize;
    let mut data = ptr::null_mut();
    if sys::napi_get_arraybuffer_info(env, buffer, &mut data, &mut len) != sys::Status::napi_ok {
        return None;
    }
    let mut n = 0u32;
    if sys::napi_get_value_uint32(env, length, &mut n) != sys::Status::napi_ok {
        return None;
    }
    let n = n as usize;
    if n > len || data.is_null() {
        return None;
    }
    Some(std::slice::from_raw_parts(data.cast::<u8>(), n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound() -> Bound {
        let engine = toolgate::load::engine_from_str(
            "t.policy",
            "tool t(p?)\nagent a {\n  allow t where p == \"x\"\n}\n",
        )
        .unwrap();
        Bound {
            engine: Arc::new(engine),
            shapes: Arc::default(),
        }
    }

    #[test]
    fn codes_number_shapes_and_say_whether_the_id_is_echoed() {
        let b = bound();
        let allow = code(
            &b,
            r#"{"agent":"a","tool":"t","args":{"p":"x"},"tool_use_id":"k"}"#,
        );
        assert_eq!(allow, 1);
        assert_eq!(code(&b, r#"{"agent":"a","tool":"t","args":{"p":"x"}}"#), 0);
        let none = code(&b, r#"{"agent":"a","tool":"t","args":{"p":"z"}}"#);
        assert_eq!(none, 2);
        assert_eq!(b.shapes.get(1).unwrap().reason.as_str(), "no_matching_rule");
        // A request the CLI refuses for its shape keeps its id; one that is no object has none.
        let bad = code(&b, r#"{"agent":5,"tool":"t","tool_use_id":"k"}"#);
        assert_eq!(bad & 1, 1);
        assert_eq!(
            b.shapes.get((bad >> 1) as u32).unwrap().message,
            "bad request: `agent` must be a string"
        );
        assert_eq!(code(&b, "null") & 1, 0);
    }

    #[test]
    fn text_that_does_not_parse_is_left_to_the_accurate_path() {
        let b = bound();
        assert_eq!(
            code(&b, r#"{"agent":"a","tool":"t","args":{"p":"\ud800"}}"#),
            -1
        );
        assert_eq!(code(&b, "{"), -1);
        let big = format!(
            r#"{{"agent":"a","tool":"t","args":{{"p":"{}"}}}}"#,
            "x".repeat(MAX_REQUEST_BYTES)
        );
        assert_eq!(code(&b, &big), -1);
    }
}
