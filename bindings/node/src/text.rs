//! Reading a JS string's UTF-8 text with as few Node-API calls and copies as it needs.

use napi::sys;
use std::ptr;

/// A JS string's UTF-8 text, read into a buffer on the stack when it fits (one Node-API
/// call) and measured first otherwise.
// The small variant is large on purpose: it lives on the stack for one call, and keeps the
// common short text off the heap.
#[allow(clippy::large_enum_variant)]
pub enum Utf8 {
    /// Up to [`Utf8::SMALL`] bytes, of which the first `len` are the text.
    Small { buf: [u8; Utf8::SMALL], len: usize },
    /// A longer text.
    Large(Vec<u8>),
}

impl Utf8 {
    /// The bytes the stack buffer holds (one more is the terminating NUL Node-API writes).
    pub const SMALL: usize = 1024;
}

impl std::ops::Deref for Utf8 {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Utf8::Small { buf, len } => &buf[..*len],
            Utf8::Large(v) => v,
        }
    }
}

/// The UTF-8 text of `value`; `None` when it is not a string or cannot be read.
///
/// # Safety
///
/// `env` and `value` must be the live environment and a value of the current call.
pub unsafe fn utf8(env: sys::napi_env, value: sys::napi_value) -> Option<Utf8> {
    let mut buf = [0u8; Utf8::SMALL];
    let mut len = 0usize;
    let status =
        sys::napi_get_value_string_utf8(env, value, buf.as_mut_ptr().cast(), buf.len(), &mut len);
    if status != sys::Status::napi_ok {
        return None;
    }
    if len + 1 < buf.len() {
        return Some(Utf8::Small { buf, len });
    }
    let status = sys::napi_get_value_string_utf8(env, value, ptr::null_mut(), 0, &mut len);
    if status != sys::Status::napi_ok {
        return None;
    }
    let mut big = vec![0u8; len + 1];
    let mut got = 0usize;
    let status =
        sys::napi_get_value_string_utf8(env, value, big.as_mut_ptr().cast(), big.len(), &mut got);
    if status != sys::Status::napi_ok {
        return None;
    }
    big.truncate(got);
    Some(Utf8::Large(big))
}
