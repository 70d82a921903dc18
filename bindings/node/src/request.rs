//! Reading a request from JS values: a walk through napi-rs's safe API that reports each part
//! to the library's [`RequestReader`], which applies the rules every host shares (exactly
//! JSON, the size and depth limits, distinct keys, the top-level fields' types) with the CLI's
//! messages.
//!
//! A JS value maps to JSON exactly or not at all: strings (well-formed UTF-16 only), finite
//! numbers, booleans, `null`, arrays and plain objects (prototype `Object.prototype` or `null`;
//! own enumerable string keys, in `Object.keys` order). Anything JSON cannot hold (`undefined`
//! inside an array, `NaN`, a BigInt, a function, a symbol, a class instance, a cycle) is
//! refused, and the engine answers `bad_request`. An object property whose value is
//! `undefined` is absent, as `JSON.stringify` leaves it out. Each property is read once.
//!
//! `toolgate.js` reads the request object's own fields (cheaper in JS than through Node-API)
//! and hands their values to a [`Decider`] in [`FIELDS`](toolgate::host::request::FIELDS)
//! order, then the other keys with their values; everything inside them is walked here.

use crate::shapes::Shapes;
use napi::bindgen_prelude::Either3;
use napi::bindgen_prelude::{
    FromNapiValue, Function, FunctionCallContext, JsObjectValue, Object, Unknown,
};
use napi::{Env, JsString, JsValue, ValueType};
use std::cell::{Cell, RefCell};
use std::sync::Arc;
use toolgate::host::request::{Refused, RequestReader, FIELDS, MAX_DEPTH};
use toolgate::Decision;

/// What `engine.decider()`'s function holds: the engine, the request reader (its buffers kept
/// from one call to the next), the engine's numbered decision shapes, and the decision of a
/// call whose reading threw until it is asked for.
///
/// The function is called as `(form | present << 3, tool_use_id, agent, tool, server, args,
/// permissions, rest, explain, plainKeys)`: `form` says how `toolgate.js` found the request
/// (see [`Form::from_code`]), the fields are the request's values (`undefined` when absent;
/// the id in either spelling), `rest` the other keys and values alternating, `present` a bit
/// per value that is not `undefined` (in that order), `plainKeys` `toolgate.js`'s
/// [`PlainKeys`]. It answers `2 * shape + echo` for a numbered decision shape (see
/// `shapes.rs`; `echo` is 1 when the decision carries the request's `tool_use_id`), or the
/// decision's message when that quotes the request (the call `(QUOTED)` then answers the
/// shape code of the rest, see `Shapes::quoting`), or the decision object itself. When
/// reading a value threw, the exception propagates and the call `(THROWN)` answers the
/// decision; `(TEMPLATE, n)` answers shape `n` as a decision object with `tool_use_id` `null`.
pub struct Decider {
    engine: Arc<toolgate::Engine>,
    /// The request reader and a text buffer, kept from one call to the next.
    buffers: RefCell<(RequestReader, String)>,
    shapes: RefCell<Shapes>,
    thrown: RefCell<Option<Decision<'static>>>,
    /// The shape code of the last decision answered with its message.
    quoted: Cell<i32>,
}

/// The `form` asking a [`Decider`] for a shape's template.
const TEMPLATE: u32 = 5;
/// The `form` asking a [`Decider`] for the decision of the call whose reading threw.
const THROWN: u32 = 6;
/// The `form` asking a [`Decider`] for the shape code of the last decision it answered with
/// its message.
const QUOTED: u32 = 7;

/// A decider's answer: a shape code, a message (see [`QUOTED`]), or a decision object.
pub type Answer = Either3<i32, String, Unknown<'static>>;

impl Decider {
    /// A decider for `engine`.
    pub fn new(engine: Arc<toolgate::Engine>) -> Decider {
        Decider {
            engine,
            buffers: RefCell::default(),
            shapes: RefCell::default(),
            thrown: RefCell::default(),
            quoted: Cell::new(-1),
        }
    }

    /// One call of the decider's function.
    ///
    /// # Errors
    ///
    /// When reading the request threw (the exception is pending), or Node-API fails to build
    /// the answer.
    pub fn call(&self, ctx: &FunctionCallContext<'_>) -> napi::Result<Answer> {
        let env: &Env = ctx.env;
        let code: u32 = ctx.get(0)?;
        let form = code & 7;
        match form {
            TEMPLATE => {
                let n: u32 = ctx.get(1)?;
                let shapes = self
                    .shapes
                    .try_borrow()
                    .map_err(|_| napi::Error::from_reason("the shape table is in use"))?;
                let d = shapes
                    .get(n)
                    .ok_or_else(|| napi::Error::from_reason(format!("no decision shape {n}")))?;
                env.to_js_value(d).map(Either3::C)
            }
            THROWN => match self.thrown.try_borrow_mut().ok().and_then(|mut t| t.take()) {
                Some(d) => env.to_js_value(&d).map(Either3::C),
                None => Ok(Either3::A(-1)),
            },
            QUOTED => Ok(Either3::A(self.quoted.replace(-1))),
            _ => self.decide(env, ctx, Form::from_code(form), code >> 3),
        }
    }

    fn decide(
        &self,
        env: &Env,
        ctx: &FunctionCallContext<'_>,
        form: Form,
        present: u32,
    ) -> napi::Result<Answer> {
        let arg = |i: usize| ctx.get::<Unknown<'_>>(i);
        let fields = Fields {
            known: [arg(1)?, arg(2)?, arg(3)?, arg(4)?, arg(5)?, arg(6)?],
            rest: arg(7)?,
            present,
        };
        let explain: bool = ctx.get(8)?;
        let plain_keys: PlainKeys<'_> = ctx.get(9)?;
        // A getter can decide with this engine while its request is read: that inner
        // request gets a reader of its own.
        let mut own;
        let mut shared = self.buffers.try_borrow_mut();
        let (reader, text) = match shared.as_deref_mut() {
            Ok((r, t)) => (r, t),
            Err(_) => {
                own = (RequestReader::new(), String::new());
                (&mut own.0, &mut own.1)
            }
        };
        reader.clear();
        let stopped = Walk::new(env, reader, text, plain_keys).request(form, &fields);
        let d = reader.decide(&self.engine, explain);
        if let Err(Stop::Threw(e)) = stopped {
            // The exception is pending; `toolgate.js` catches it and asks for the decision.
            if let Ok(mut thrown) = self.thrown.try_borrow_mut() {
                *thrown = Some(d.into_owned());
            }
            return Err(e);
        }
        if let Ok(mut shapes) = self.shapes.try_borrow_mut() {
            let echo = i32::from(d.tool_use_id.is_some());
            if let Some(n) = shapes.number(&d).filter(|&n| n < (1 << 30)) {
                return Ok(Either3::A(n as i32 * 2 + echo));
            }
            // A message quoting the request: the message, and the rest from a template.
            if let Some(n) = shapes.quoting(&d).filter(|&n| n < (1 << 30)) {
                self.quoted.set(n as i32 * 2 + echo);
                return Ok(Either3::B(d.message.into_owned()));
            }
        }
        env.to_js_value(&d).map(Either3::C)
    }
}

/// How `toolgate.js` found the request value whose fields it read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Form {
    /// A plain object; its own enumerable fields were read.
    Plain,
    /// Not an object, or an array: the CLI's answer for a request that is no JSON object.
    NotObject,
    /// An object that is not plain (a class instance).
    NotPlain,
    /// Reading its fields threw (a getter or a proxy trap).
    Threw,
    /// It has both `tool_use_id` and `toolUseId`.
    BothIds,
}

impl Form {
    /// The form numbered as `toolgate.js` numbers it.
    pub fn from_code(code: u32) -> Form {
        match code {
            0 => Form::Plain,
            1 => Form::NotObject,
            2 => Form::NotPlain,
            // 3: reading threw.
            4 => Form::BothIds,
            _ => Form::Threw,
        }
    }
}

/// Why a walk stopped early.
#[derive(Debug)]
pub enum Stop {
    /// The reader refused the request (it holds the reason).
    Refused,
    /// A Node-API call failed: a getter or proxy trap threw, and its exception is pending.
    /// The reader holds the refusal naming where.
    Threw(napi::Error),
}

impl From<Refused> for Stop {
    fn from(_: Refused) -> Stop {
        Stop::Refused
    }
}

/// The request's top-level values, as `toolgate.js` read them (`undefined` when absent).
pub struct Fields<'env> {
    /// `tool_use_id` (or its spelling `toolUseId`), `agent`, `tool`, `server`, `args`,
    /// `permissions`: [`FIELDS`] order.
    pub known: [Unknown<'env>; 6],
    /// The other keys and their values, alternating (`undefined` when there are none).
    pub rest: Unknown<'env>,
    /// Which of `known` (bits 0-5) and `rest` (bit 6) are not `undefined`.
    pub present: u32,
}

/// `toolgate.js`'s `plainKeys(object)`: `Object.keys(object)` for a plain object, else `null`.
pub type PlainKeys<'env> = Function<'env, Unknown<'env>, Option<Object<'env>>>;

/// Walks one request's values into `reader` (which must be clear).
pub struct Walk<'r, 'env> {
    env: &'env Env,
    reader: &'r mut RequestReader,
    /// `toolgate.js`'s `plainKeys`: a plain object's own enumerable string keys, in order
    /// (`Object.keys`), or `null` for an object that is not plain (its prototype is neither
    /// `Object.prototype` nor `null`).
    plain_keys: PlainKeys<'env>,
    /// The arrays and objects enclosing the value being read (to tell a cycle from deep
    /// nesting at the depth limit).
    ancestors: Vec<Unknown<'env>>,
    /// The text of the string or key last read.
    text: &'r mut String,
}

/// What JSON text names a value of this type, for a refusal.
fn type_name(t: ValueType) -> &'static str {
    match t {
        ValueType::Undefined => "undefined",
        ValueType::Symbol => "a symbol",
        ValueType::Function => "a function",
        ValueType::External => "an external value",
        ValueType::BigInt => "a BigInt",
        _ => "a value",
    }
}

impl<'r, 'env> Walk<'r, 'env> {
    /// A walk reporting to `reader`.
    pub fn new(
        env: &'env Env,
        reader: &'r mut RequestReader,
        text: &'r mut String,
        plain_keys: PlainKeys<'env>,
    ) -> Self {
        Walk {
            env,
            reader,
            plain_keys,
            ancestors: Vec::new(),
            text,
        }
    }

    /// Reads the request from its form and fields.
    ///
    /// # Errors
    ///
    /// [`Stop`] when the request is refused (the reader says why).
    pub fn request(&mut self, form: Form, fields: &Fields<'env>) -> Result<(), Stop> {
        match form {
            Form::Plain => {}
            // Nothing read: the reader answers as the CLI does for a value that is no object.
            Form::NotObject => return Ok(()),
            Form::NotPlain => {
                return Err(self
                    .reader
                    .refuse_request(
                        "`request` is an instance of a class (not a plain object or array), which JSON cannot hold",
                    )
                    .into())
            }
            Form::Threw => {
                return Err(self
                    .reader
                    .refuse_request("reading `request` threw an exception")
                    .into())
            }
            Form::BothIds => {
                return Err(self
                    .reader
                    .refuse_request("`tool_use_id` and `toolUseId` are both given; give one")
                    .into())
            }
        }
        self.reader.begin_object()?;
        for (i, (name, &value)) in FIELDS.iter().zip(&fields.known).enumerate() {
            if fields.present & (1 << i) == 0 {
                continue;
            }
            let t = self.type_of(value)?;
            if t != ValueType::Undefined {
                self.reader.key(name)?;
                self.value(value, t)?;
            }
        }
        if fields.present & (1 << FIELDS.len()) != 0
            && self.type_of(fields.rest)? == ValueType::Object
        {
            let rest = Object::from_unknown(fields.rest).map_err(|e| self.threw(e))?;
            let len = rest.get_array_length().map_err(|e| self.threw(e))?;
            for i in (0..len.saturating_sub(1)).step_by(2) {
                let key: Unknown = rest.get_element(i).map_err(|e| self.threw(e))?;
                let value: Unknown = rest.get_element(i + 1).map_err(|e| self.threw(e))?;
                let t = self.type_of(value)?;
                if t == ValueType::Undefined {
                    continue;
                }
                if !self.read_text(key)? {
                    return Err(self
                        .reader
                        .refuse_container(
                            "has a key holding a lone surrogate, which is not Unicode text",
                        )
                        .into());
                }
                self.reader.key(self.text)?;
                self.value(value, t)?;
            }
        }
        self.reader.end_object()?;
        Ok(())
    }

    /// Refuses the value about to be read because a Node-API call on it failed (a getter or
    /// proxy trap threw): the exception stays pending for JS to see.
    fn threw(&mut self, e: napi::Error) -> Stop {
        // Node-API answers a getter or trap that threw with a generic failure, its exception
        // pending.
        let what = match e.status {
            napi::Status::PendingException | napi::Status::GenericFailure => {
                "threw an exception when read".to_string()
            }
            status => format!("could not be read (Node-API status {status})"),
        };
        self.reader.refuse(&what);
        Stop::Threw(e)
    }

    fn type_of(&mut self, v: Unknown<'env>) -> Result<ValueType, Stop> {
        v.get_type().map_err(|e| self.threw(e))
    }

    /// One value of type `t`.
    fn value(&mut self, v: Unknown<'env>, t: ValueType) -> Result<(), Stop> {
        match t {
            ValueType::Null => self.reader.null()?,
            ValueType::Boolean => {
                let b = bool::from_unknown(v).map_err(|e| self.threw(e))?;
                self.reader.bool(b)?;
            }
            ValueType::Number => {
                let x = f64::from_unknown(v).map_err(|e| self.threw(e))?;
                self.number(x)?;
            }
            ValueType::String => {
                if !self.read_text(v)? {
                    return Err(self
                        .reader
                        .refuse("holds a lone surrogate, which is not Unicode text")
                        .into());
                }
                self.reader.str(self.text)?;
            }
            ValueType::Object => self.container(v)?,
            other => {
                let what = format!("is {}, which JSON cannot hold", type_name(other));
                return Err(self.reader.refuse(&what).into());
            }
        }
        Ok(())
    }

    /// A JS number as its JSON text reads back in the CLI: `JSON.stringify` writes an integer
    /// below 1e21 in plain digits (and -0 as 0), which serde_json reads as an integer when it
    /// fits 64 bits; anything else is a float (NaN and the infinities are refused).
    fn number(&mut self, x: f64) -> Result<(), Refused> {
        if x.fract() == 0.0 && x.abs() < 1e21 {
            if (0.0..18_446_744_073_709_551_616.0).contains(&x) {
                return self.reader.u64(x as u64);
            }
            if (-9_223_372_036_854_775_808.0..0.0).contains(&x) {
                return self.reader.i64(x as i64);
            }
        }
        self.reader.f64(x)
    }

    /// Reads the string `v` into `self.text`: false when it holds a lone surrogate (which
    /// UTF-8 cannot carry, and the CLI refuses as an escape). The text is read as UTF-16,
    /// whose length V8 knows without a pass over it, and decoded here.
    fn read_text(&mut self, v: Unknown<'env>) -> Result<bool, Stop> {
        let units = JsString::from_unknown(v)
            .and_then(JsString::into_utf16)
            .map_err(|e| self.threw(e))?;
        // The copy ends with the terminating NUL.
        let units = units
            .as_slice()
            .split_last()
            .map_or(&[][..], |(_, text)| text);
        if units.iter().all(|&u| u < 0x80) {
            let mut bytes = std::mem::take(self.text).into_bytes();
            bytes.clear();
            bytes.extend(units.iter().map(|&u| u as u8));
            // ASCII is UTF-8.
            *self.text = String::from_utf8(bytes).unwrap_or_default();
            return Ok(true);
        }
        self.text.clear();
        self.text.reserve(units.len());
        for c in char::decode_utf16(units.iter().copied()) {
            match c {
                Ok(c) => self.text.push(c),
                Err(_) => return Ok(false),
            }
        }
        Ok(true)
    }

    /// An array or a plain object.
    fn container(&mut self, v: Unknown<'env>) -> Result<(), Stop> {
        // The request object is one level; `ancestors` holds the others.
        if self.ancestors.len() + 1 >= MAX_DEPTH {
            for &a in &self.ancestors {
                if self.env.strict_equals(a, v).unwrap_or(false) {
                    return Err(self
                        .reader
                        .refuse("contains itself (a cycle), which JSON cannot hold")
                        .into());
                }
            }
        }
        let obj = Object::from_unknown(v).map_err(|e| self.threw(e))?;
        if v.is_array().map_err(|e| self.threw(e))? {
            let len = obj.get_array_length().map_err(|e| self.threw(e))?;
            self.reader.begin_array()?;
            self.ancestors.push(v);
            for i in 0..len {
                let item: Unknown = obj.get_element(i).map_err(|e| self.threw(e))?;
                let t = self.type_of(item)?;
                if t == ValueType::Undefined {
                    return Err(self
                        .reader
                        .refuse("is undefined (or a hole), which JSON cannot hold")
                        .into());
                }
                self.value(item, t)?;
            }
            self.ancestors.pop();
            self.reader.end_array()?;
            return Ok(());
        }
        // The prototype check and `Object.keys` in one call into JS: `Object.keys` answers
        // from the object's enum cache, where Node-API's key collection
        // (`napi_get_all_property_names`) builds a hash set per call and costs several times
        // as much.
        let Some(keys) = self.plain_keys.call(v).map_err(|e| self.threw(e))? else {
            let kind = if v.is_date().map_err(|e| self.threw(e))? {
                "is a Date, which JSON cannot hold"
            } else {
                "is an instance of a class (not a plain object or array), which JSON cannot hold"
            };
            return Err(self.reader.refuse(kind).into());
        };
        let len = keys.get_array_length().map_err(|e| self.threw(e))?;
        self.reader.begin_object()?;
        self.ancestors.push(v);
        for i in 0..len {
            let k: Unknown = keys.get_element(i).map_err(|e| self.threw(e))?;
            if !self.read_text(k)? {
                return Err(self
                    .reader
                    .refuse_container(
                        "has a key holding a lone surrogate, which is not Unicode text",
                    )
                    .into());
            }
            let item: Unknown = match obj.get_property_unchecked(k) {
                Ok(item) => item,
                Err(e) => {
                    // Name the member whose read threw.
                    let _ = self.reader.key(self.text);
                    return Err(self.threw(e));
                }
            };
            let t = self.type_of(item)?;
            if t == ValueType::Undefined {
                continue;
            }
            self.reader.key(self.text)?;
            self.value(item, t)?;
        }
        self.ancestors.pop();
        self.reader.end_object()?;
        Ok(())
    }
}
