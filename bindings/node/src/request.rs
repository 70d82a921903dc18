//! Reading a JS request object into a `toolgate::Request`, walking the value in Rust.
//!
//! A JS value maps to JSON exactly or not at all: strings (well-formed UTF-16 only), finite
//! numbers, booleans, `null`, arrays and plain objects (prototype `Object.prototype` or
//! `null`; own enumerable string keys, in `Object.keys` order). Anything JSON cannot hold —
//! `undefined` inside an array, `NaN`, `Infinity`, a BigInt, a function, a symbol, a class
//! instance (`Date`, `Map`, a `Buffer`...), a cycle, nesting deeper than the CLI's parser
//! accepts, or a getter that throws — is a [`BadRequest`], which the engine answers with a
//! `bad_request` decision. An object property whose value is `undefined` is absent, as
//! `JSON.stringify` leaves it out.
//!
//! The walk calls Node-API directly (no intermediate JSON text, no per-key C string
//! allocation), so a small request costs a few dozen Node-API calls.

use napi::sys;
use serde_json::{Map, Number, Value};
use std::ffi::CStr;
use std::ptr;
use toolgate::engine::request::MAX_REQUEST_BYTES;
use toolgate::engine::BadRequest;
use toolgate::Request;

/// The deepest nesting of arrays and objects accepted, counting the request object itself:
/// the CLI's JSON parser refuses the 128th level.
pub const MAX_DEPTH: usize = 127;

/// A lower bound of the request's size as JSON text, and the ancestors of the value being
/// read (to tell a cycle from deep nesting).
struct Walk {
    env: sys::napi_env,
    /// Bytes the value takes at least as JSON text.
    bytes: usize,
    /// `Object.prototype`, looked up when the first object is met.
    object_prototype: sys::napi_value,
    /// The arrays and objects enclosing the current value.
    ancestors: Vec<sys::napi_value>,
    /// The request's id, once read, so a refusal still carries it.
    tool_use_id: Option<String>,
}

/// Why a value could not be read: what is wrong, and where (a path such as `args.paths[2]`).
struct Refusal {
    what: String,
}

type Step<T> = Result<T, Refusal>;

/// Where in the request a value sits, built only when something is wrong.
#[derive(Clone, Copy)]
enum Place<'a> {
    Field(&'static str),
    Key(&'a Place<'a>, &'a str),
    Index(&'a Place<'a>, u32),
}

impl Place<'_> {
    /// The path as written in JS (`args.paths[2]`); a very deep one keeps its first and last
    /// steps and says how deep it is.
    fn render(&self) -> String {
        let mut steps = Vec::new();
        let mut at = self;
        loop {
            match at {
                Place::Field(f) => {
                    steps.push((*f).to_string());
                    break;
                }
                Place::Key(parent, key) => {
                    let plain = !key.is_empty()
                        && key
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                    steps.push(if plain {
                        format!(".{key}")
                    } else {
                        format!("[{key:?}]")
                    });
                    at = parent;
                }
                Place::Index(parent, i) => {
                    steps.push(format!("[{i}]"));
                    at = parent;
                }
            }
        }
        steps.reverse();
        if steps.len() <= 12 {
            return steps.concat();
        }
        format!(
            "{}...{} ({} levels deep)",
            steps[..6].concat(),
            steps[steps.len() - 3..].concat(),
            steps.len() - 1
        )
    }
}

/// The top-level fields of a request, as JS property names and the CLI's JSON names.
/// The id comes first, so that a refusal of a later field still carries it.
const FIELDS: [(&CStr, &str); 7] = [
    (c"tool_use_id", "tool_use_id"),
    (c"toolUseId", "tool_use_id"),
    (c"agent", "agent"),
    (c"tool", "tool"),
    (c"server", "server"),
    (c"args", "args"),
    (c"permissions", "permissions"),
];

/// Reads the request a JS value stands for.
///
/// # Errors
///
/// A [`BadRequest`] with the CLI's wording when the value is not a request the CLI would
/// accept (its type checks are `Request::from_value`'s own), or with this module's wording
/// when the value has no JSON form at all.
///
/// # Safety
///
/// `env` and `value` must be the live environment and a value of the current call.
pub unsafe fn read_request(
    env: sys::napi_env,
    value: sys::napi_value,
) -> Result<Request, BadRequest> {
    let mut walk = Walk {
        env,
        bytes: 0,
        object_prototype: ptr::null_mut(),
        ancestors: Vec::new(),
        tool_use_id: None,
    };
    match walk.request(value) {
        Ok(Some(map)) => Request::from_value(Value::Object(map)),
        // Not an object: the CLI's own answer for a request that is not a JSON object.
        Ok(None) => Request::from_value(Value::Null),
        Err(r) => Err(BadRequest {
            message: r.what,
            tool_use_id: walk.tool_use_id,
        }),
    }
}

/// How `toolgate.js` found the request object it read the fields of.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A plain object; its own enumerable fields were read.
    Plain,
    /// Not an object, or an array.
    NotObject,
    /// An object that is not plain (its prototype is neither `Object.prototype` nor `null`).
    NotPlain,
    /// Reading it threw (a getter or a proxy trap).
    Threw,
}

/// Reads a request from its fields' values, which `toolgate.js` took from the request
/// object's own enumerable properties (in [`FIELDS`] order: `tool_use_id`, `toolUseId`,
/// `agent`, `tool`, `server`, `args`, `permissions`; `undefined` when absent).
/// `object_prototype` is `Object.prototype`, for the plain-object checks of nested objects.
///
/// # Errors
///
/// As [`read_request`].
///
/// # Safety
///
/// `env` and every value must be the live environment and values of the current call.
pub unsafe fn read_fields(
    env: sys::napi_env,
    shape: Shape,
    values: &[sys::napi_value; 7],
    object_prototype: sys::napi_value,
) -> Result<Request, BadRequest> {
    let refuse = |what: &str| {
        Err(BadRequest {
            message: what.to_string(),
            tool_use_id: None,
        })
    };
    match shape {
        Shape::Plain => {}
        Shape::NotObject => return Request::from_value(Value::Null),
        Shape::NotPlain => {
            return refuse(
                "`request` is an instance of a class (not a plain object or array), which JSON cannot hold",
            )
        }
        Shape::Threw => return refuse("reading `request` threw an exception"),
    }
    let mut walk = Walk {
        env,
        bytes: 0,
        object_prototype,
        ancestors: Vec::new(),
        tool_use_id: None,
    };
    match walk.fields(values) {
        Ok(map) => Request::from_value(Value::Object(map)),
        Err(r) => Err(BadRequest {
            message: r.what,
            tool_use_id: walk.tool_use_id,
        }),
    }
}

/// True when `value` is the boolean `true`; anything else, or a failure, is false.
///
/// # Safety
///
/// `env` and `value` must be the live environment and a value of the current call.
pub unsafe fn is_true(env: sys::napi_env, value: sys::napi_value) -> bool {
    let mut t = sys::ValueType::napi_undefined;
    if sys::napi_typeof(env, value, &mut t) != sys::Status::napi_ok
        || t != sys::ValueType::napi_boolean
    {
        return false;
    }
    let mut b = false;
    sys::napi_get_value_bool(env, value, &mut b) == sys::Status::napi_ok && b
}

impl Walk {
    /// The request's known fields as a JSON object; `None` when the value is not an object.
    unsafe fn request(&mut self, value: sys::napi_value) -> Step<Option<Map<String, Value>>> {
        let here = Place::Field("request");
        if self.type_of(value, &here)? != sys::ValueType::napi_object
            || self.is_array(value, &here)?
        {
            return Ok(None);
        }
        self.check_plain(value, &here)?;
        // Own enumerable string keys, as JSON has them (never inherited ones).
        let mut keys = ptr::null_mut();
        let status = sys::napi_get_all_property_names(
            self.env,
            value,
            sys::KeyCollectionMode::own_only,
            sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
            sys::KeyConversion::numbers_to_strings,
            &mut keys,
        );
        self.check(status, &here)?;
        let mut len = 0u32;
        self.check(sys::napi_get_array_length(self.env, keys, &mut len), &here)?;
        let mut slots = [ptr::null_mut(); FIELDS.len()];
        for i in 0..len {
            let mut key = ptr::null_mut();
            self.check(sys::napi_get_element(self.env, keys, i, &mut key), &here)?;
            let name = self.string(key, &here)?;
            if let Some(at) = FIELDS
                .iter()
                .position(|(js, _)| js.to_bytes() == name.as_bytes())
            {
                let place = Place::Field(FIELDS[at].1);
                self.check(
                    sys::napi_get_property(self.env, value, key, &mut slots[at]),
                    &place,
                )?;
            }
        }
        self.ancestors.push(value);
        self.fields(&slots).map(Some)
    }

    /// The request's JSON object from its fields' values, in [`FIELDS`] order (null or
    /// `undefined` for an absent one).
    unsafe fn fields(
        &mut self,
        values: &[sys::napi_value; FIELDS.len()],
    ) -> Step<Map<String, Value>> {
        let mut map = Map::new();
        let mut id_field: Option<&str> = None;
        for (&(js_name, name), &v) in FIELDS.iter().zip(values) {
            if v.is_null() {
                continue;
            }
            let place = Place::Field(name);
            let t = self.type_of(v, &place)?;
            if t == sys::ValueType::napi_undefined {
                continue;
            }
            let shown = js_name.to_str().unwrap_or(name);
            if name == "tool_use_id" {
                if let Some(other) = id_field {
                    return Err(Refusal {
                        what: format!("`{other}` and `{shown}` are both given; give one"),
                    });
                }
                id_field = Some(shown);
            }
            let json = self.value(v, t, &place, 1)?;
            if let Value::String(id) = &json {
                if name == "tool_use_id" {
                    self.tool_use_id = Some(id.clone());
                }
            }
            map.insert(name.to_string(), json);
        }
        Ok(map)
    }

    /// The JSON form of one value of type `t`, nested `depth` containers deep.
    unsafe fn value(
        &mut self,
        v: sys::napi_value,
        t: sys::napi_valuetype,
        place: &Place<'_>,
        depth: usize,
    ) -> Step<Value> {
        self.bytes += 1;
        if self.bytes > MAX_REQUEST_BYTES {
            return Err(too_large());
        }
        match t {
            sys::ValueType::napi_null => Ok(Value::Null),
            sys::ValueType::napi_boolean => {
                let mut b = false;
                self.check(sys::napi_get_value_bool(self.env, v, &mut b), place)?;
                Ok(Value::Bool(b))
            }
            sys::ValueType::napi_number => {
                let mut x = 0f64;
                self.check(sys::napi_get_value_double(self.env, v, &mut x), place)?;
                number(x).ok_or_else(|| Refusal {
                    what: format!("`{}` is {x}, which JSON cannot hold", place.render()),
                })
            }
            sys::ValueType::napi_string => Ok(Value::String(self.string(v, place)?)),
            sys::ValueType::napi_object => {
                if depth + 1 > MAX_DEPTH {
                    return Err(self.too_deep(v, place));
                }
                if self.is_array(v, place)? {
                    self.array(v, place, depth + 1)
                } else {
                    self.check_plain(v, place)?;
                    self.object(v, place, depth + 1)
                }
            }
            other => Err(Refusal {
                what: format!(
                    "`{}` is {}, which JSON cannot hold",
                    place.render(),
                    type_name(other)
                ),
            }),
        }
    }

    unsafe fn array(&mut self, v: sys::napi_value, place: &Place<'_>, depth: usize) -> Step<Value> {
        let mut len = 0u32;
        self.check(sys::napi_get_array_length(self.env, v, &mut len), place)?;
        self.ancestors.push(v);
        let mut out = Vec::with_capacity((len as usize).min(1024));
        for i in 0..len {
            let here = Place::Index(place, i);
            let mut item = ptr::null_mut();
            self.check(sys::napi_get_element(self.env, v, i, &mut item), &here)?;
            let t = self.type_of(item, &here)?;
            if t == sys::ValueType::napi_undefined {
                return Err(Refusal {
                    what: format!(
                        "`{}` is undefined (or a hole), which JSON cannot hold",
                        here.render()
                    ),
                });
            }
            out.push(self.value(item, t, &here, depth)?);
        }
        self.ancestors.pop();
        Ok(Value::Array(out))
    }

    unsafe fn object(
        &mut self,
        v: sys::napi_value,
        place: &Place<'_>,
        depth: usize,
    ) -> Step<Value> {
        let mut keys = ptr::null_mut();
        let status = sys::napi_get_all_property_names(
            self.env,
            v,
            sys::KeyCollectionMode::own_only,
            sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
            sys::KeyConversion::numbers_to_strings,
            &mut keys,
        );
        self.check(status, place)?;
        let mut len = 0u32;
        self.check(sys::napi_get_array_length(self.env, keys, &mut len), place)?;
        self.ancestors.push(v);
        let mut out = Map::new();
        for i in 0..len {
            let mut key = ptr::null_mut();
            self.check(sys::napi_get_element(self.env, keys, i, &mut key), place)?;
            let name = self.string(key, place)?;
            self.bytes += name.len() + 3;
            let here = Place::Key(place, &name);
            let mut item = ptr::null_mut();
            self.check(sys::napi_get_property(self.env, v, key, &mut item), &here)?;
            let t = self.type_of(item, &here)?;
            if t == sys::ValueType::napi_undefined {
                continue;
            }
            let json = self.value(item, t, &here, depth)?;
            out.insert(name, json);
        }
        self.ancestors.pop();
        Ok(Value::Object(out))
    }

    /// A string's UTF-8 text; a lone surrogate (which JSON text cannot carry as UTF-8, and
    /// the CLI refuses as an escape) is refused.
    unsafe fn string(&mut self, v: sys::napi_value, place: &Place<'_>) -> Step<String> {
        // Short strings in one call; longer ones are measured first.
        let mut buf = [0u8; 128];
        let mut len = 0usize;
        let status = sys::napi_get_value_string_utf8(
            self.env,
            v,
            buf.as_mut_ptr().cast(),
            buf.len(),
            &mut len,
        );
        self.check(status, place)?;
        let bytes = if len + 1 < buf.len() {
            buf[..len].to_vec()
        } else {
            self.check(
                sys::napi_get_value_string_utf8(self.env, v, ptr::null_mut(), 0, &mut len),
                place,
            )?;
            if self.bytes + len > MAX_REQUEST_BYTES {
                return Err(too_large());
            }
            let mut big = vec![0u8; len + 1];
            let mut got = 0usize;
            let status = sys::napi_get_value_string_utf8(
                self.env,
                v,
                big.as_mut_ptr().cast(),
                big.len(),
                &mut got,
            );
            self.check(status, place)?;
            big.truncate(got);
            big
        };
        self.bytes += bytes.len() + 2;
        if self.bytes > MAX_REQUEST_BYTES {
            return Err(too_large());
        }
        // V8 writes a lone surrogate as U+FFFD; only then is the UTF-16 form worth reading.
        if bytes.windows(3).any(|w| w == [0xEF, 0xBF, 0xBD]) && self.has_lone_surrogate(v, place)? {
            return Err(Refusal {
                what: format!(
                    "`{}` holds a lone surrogate, which is not Unicode text",
                    place.render()
                ),
            });
        }
        String::from_utf8(bytes).map_err(|_| Refusal {
            what: format!("`{}` is not valid text", place.render()),
        })
    }

    unsafe fn has_lone_surrogate(&mut self, v: sys::napi_value, place: &Place<'_>) -> Step<bool> {
        let mut len = 0usize;
        self.check(
            sys::napi_get_value_string_utf16(self.env, v, ptr::null_mut(), 0, &mut len),
            place,
        )?;
        let mut units = vec![0u16; len + 1];
        let mut got = 0usize;
        self.check(
            sys::napi_get_value_string_utf16(
                self.env,
                v,
                units.as_mut_ptr(),
                units.len(),
                &mut got,
            ),
            place,
        )?;
        units.truncate(got);
        Ok(char::decode_utf16(units.iter().copied()).any(|c| c.is_err()))
    }

    /// Refuses an object that is not plain: its prototype must be `Object.prototype` or `null`.
    unsafe fn check_plain(&mut self, v: sys::napi_value, place: &Place<'_>) -> Step<()> {
        let mut proto = ptr::null_mut();
        self.check(sys::napi_get_prototype(self.env, v, &mut proto), place)?;
        if self.type_of(proto, place)? == sys::ValueType::napi_null {
            return Ok(());
        }
        if self.object_prototype.is_null() {
            self.object_prototype = self.lookup_object_prototype(place)?;
        }
        let mut same = false;
        self.check(
            sys::napi_strict_equals(self.env, proto, self.object_prototype, &mut same),
            place,
        )?;
        if same {
            return Ok(());
        }
        let mut is_date = false;
        self.check(sys::napi_is_date(self.env, v, &mut is_date), place)?;
        let kind = if is_date {
            "a Date"
        } else {
            "an instance of a class (not a plain object or array)"
        };
        Err(Refusal {
            what: format!("`{}` is {kind}, which JSON cannot hold", place.render()),
        })
    }

    unsafe fn lookup_object_prototype(&mut self, place: &Place<'_>) -> Step<sys::napi_value> {
        let mut global = ptr::null_mut();
        self.check(sys::napi_get_global(self.env, &mut global), place)?;
        let mut object = ptr::null_mut();
        self.check(
            sys::napi_get_named_property(self.env, global, c"Object".as_ptr(), &mut object),
            place,
        )?;
        let mut proto = ptr::null_mut();
        self.check(
            sys::napi_get_named_property(self.env, object, c"prototype".as_ptr(), &mut proto),
            place,
        )?;
        Ok(proto)
    }

    /// Nesting over the limit: a cycle when the value encloses itself, else too deep.
    unsafe fn too_deep(&mut self, v: sys::napi_value, place: &Place<'_>) -> Refusal {
        for &a in &self.ancestors {
            let mut same = false;
            if sys::napi_strict_equals(self.env, a, v, &mut same) == sys::Status::napi_ok && same {
                return Refusal {
                    what: format!(
                        "`{}` contains itself (a cycle), which JSON cannot hold",
                        place.render()
                    ),
                };
            }
        }
        Refusal {
            what: format!(
                "`{}` nests deeper than {MAX_DEPTH} levels (the request counts as one), the limit of request JSON",
                place.render()
            ),
        }
    }

    unsafe fn type_of(
        &mut self,
        v: sys::napi_value,
        place: &Place<'_>,
    ) -> Step<sys::napi_valuetype> {
        let mut t = sys::ValueType::napi_undefined;
        self.check(sys::napi_typeof(self.env, v, &mut t), place)?;
        Ok(t)
    }

    unsafe fn is_array(&mut self, v: sys::napi_value, place: &Place<'_>) -> Step<bool> {
        let mut b = false;
        self.check(sys::napi_is_array(self.env, v, &mut b), place)?;
        Ok(b)
    }

    /// Turns a failed Node-API call into a refusal, clearing the exception it left (a getter
    /// or proxy trap that threw), so `decide` answers instead of throwing.
    unsafe fn check(&mut self, status: sys::napi_status, place: &Place<'_>) -> Step<()> {
        if status == sys::Status::napi_ok {
            return Ok(());
        }
        let mut pending = false;
        sys::napi_is_exception_pending(self.env, &mut pending);
        if pending {
            let mut e = ptr::null_mut();
            sys::napi_get_and_clear_last_exception(self.env, &mut e);
            return Err(Refusal {
                what: format!("reading `{}` threw an exception", place.render()),
            });
        }
        Err(Refusal {
            what: format!(
                "`{}` could not be read (Node-API status {status})",
                place.render()
            ),
        })
    }
}

/// The JSON number `JSON.stringify` would write for `x`, as the CLI would parse it back:
/// integers within 64 bits stay integers, everything else is a float; `None` when not finite.
fn number(x: f64) -> Option<Value> {
    if !x.is_finite() {
        return None;
    }
    // `JSON.stringify` writes integers below 1e21 in plain digits (and -0 as 0); serde_json
    // reads digits that fit 64 bits as an integer.
    if x.fract() == 0.0 && x.abs() < 1e21 {
        if (0.0..18_446_744_073_709_551_616.0).contains(&x) {
            return Some(Value::Number(Number::from(x as u64)));
        }
        if (-9_223_372_036_854_775_808.0..0.0).contains(&x) {
            return Some(Value::Number(Number::from(x as i64)));
        }
    }
    Number::from_f64(x).map(Value::Number)
}

fn too_large() -> Refusal {
    Refusal {
        what: format!("request is larger than the {MAX_REQUEST_BYTES}-byte limit as JSON"),
    }
}

fn type_name(t: sys::napi_valuetype) -> &'static str {
    match t {
        sys::ValueType::napi_undefined => "undefined",
        sys::ValueType::napi_symbol => "a symbol",
        sys::ValueType::napi_function => "a function",
        sys::ValueType::napi_external => "an external value",
        sys::ValueType::napi_bigint => "a BigInt",
        _ => "a value",
    }
}

#[cfg(test)]
mod tests {
    use super::number;
    use serde_json::json;

    #[test]
    fn numbers_map_as_json_text_would() {
        assert_eq!(number(1.0), Some(json!(1)));
        assert_eq!(number(-0.0), Some(json!(0)));
        assert_eq!(number(-3.0), Some(json!(-3)));
        assert_eq!(number(2.5), Some(json!(2.5)));
        assert_eq!(number(1e21), Some(json!(1e21)));
        assert!(number(f64::NAN).is_none() && number(f64::INFINITY).is_none());
        assert_eq!(
            number(18446744073709551616.0),
            Some(json!(18446744073709551616.0))
        );
    }
}
