//! Strict JSON parsing for requests: like `serde_json::from_str`, but a duplicate key in any
//! object is an error (two readers of the same request must never see different arguments).

use super::request::{BadRequest, Request, MAX_DEPTH, MAX_REQUEST_BYTES};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// Parses `text` as one JSON value, refusing duplicate object keys.
///
/// # Example
///
/// ```
/// use toolgate::engine::json::parse_strict;
/// assert_eq!(parse_strict(r#"{"a": [1, 2]}"#).unwrap(), serde_json::json!({"a": [1, 2]}));
/// assert!(parse_strict(r#"{"a": 1, "a": 2}"#).is_err());
/// ```
pub fn parse_strict(text: &str) -> Result<Value, serde_json::Error> {
    parse_whole(text, StrictValue)
}

/// Runs `seed` over `text`, refusing anything after the JSON value.
fn parse_whole<'de, S: DeserializeSeed<'de>>(
    text: &'de str,
    seed: S,
) -> Result<S::Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = seed.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

struct StrictValue;

impl<'de> DeserializeSeed<'de> for StrictValue {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("number out of range"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(StrictValue)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format_args!("duplicate key `{key}`")));
            }
            let v = map.next_value_seed(StrictValue)?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

impl Request {
    /// Reads a request that is already a parsed JSON value, with exactly
    /// [`Request::from_json`]'s checks and answers for the value's compact JSON text
    /// (`serde_json::to_string(&value)`), without writing or parsing that text: refused when
    /// the text would be over [`MAX_REQUEST_BYTES`] or nest arrays and objects deeper than
    /// the parser allows, then the fields are read as [`Request::from_value`] reads them. (A
    /// value cannot hold a duplicate key.) A host that has parsed a body once decides each
    /// request in it without parsing again.
    ///
    /// # Errors
    ///
    /// A [`BadRequest`], the one `from_json` gives for the value's text.
    ///
    /// # Example
    ///
    /// ```
    /// use serde_json::json;
    /// use toolgate::Request;
    /// let v = json!({"agent": "a", "tool": "t", "args": {"p": [1, 2]}, "meta": null});
    /// assert_eq!(Request::from_json_value(v.clone()), Request::from_json(&v.to_string()));
    /// let big = json!({"agent": "a", "tool": "t", "args": {"p": "x".repeat(1 << 20)}});
    /// let e = Request::from_json_value(big.clone()).unwrap_err();
    /// assert_eq!(Err(e), Request::from_json(&big.to_string()));
    /// ```
    pub fn from_json_value(value: Value) -> Result<Request, BadRequest> {
        let text = text_shape(&value);
        if text.len > MAX_REQUEST_BYTES {
            return Err(BadRequest::too_large(text.len));
        }
        if let Some(offset) = text.too_deep_at {
            // The parser's own message: it stops before the opening bracket, columns from 1.
            return Err(BadRequest {
                message: format!(
                    "invalid JSON: recursion limit exceeded at line 1 column {}",
                    offset + 1
                ),
                tool_use_id: None,
            });
        }
        Request::from_value(value)
    }
}

/// What the compact JSON text of a value would be like, measured without writing it.
struct TextShape {
    /// Its length in bytes.
    len: usize,
    /// The byte offset of the first opening bracket nested too deep for the parser.
    too_deep_at: Option<usize>,
}

/// Counts the bytes written to it.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 = self.0.saturating_add(buf.len());
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The length of one scalar's or key's compact JSON text, as serde_json writes it (the measure
/// of a request's size for every reader of host values, too).
pub(crate) fn scalar_len<T: serde::Serialize + ?Sized>(v: &T) -> usize {
    let mut c = Counter(0);
    // Writing a scalar to a counter cannot fail.
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}

/// An array or object being measured: what comes before each element (`,`, and an object's
/// key and `:`) and the element.
enum Open<'a> {
    Array(std::slice::Iter<'a, Value>, bool),
    Object(serde_json::map::Iter<'a>, bool),
}

/// Measures `value`'s compact JSON text in the order serde_json writes it, with an explicit
/// stack: no recursion, so any depth is measured without exhausting the thread's stack.
fn text_shape(value: &Value) -> TextShape {
    let mut len = 0usize;
    let mut too_deep_at = None;
    let mut stack: Vec<Open<'_>> = Vec::new();
    let mut next = Some(value);
    loop {
        if let Some(v) = next.take() {
            let open = match v {
                Value::Array(items) => Some(Open::Array(items.iter(), true)),
                Value::Object(map) => Some(Open::Object(map.iter(), true)),
                Value::Null => {
                    len = len.saturating_add(4);
                    None
                }
                Value::Bool(b) => {
                    len = len.saturating_add(if *b { 4 } else { 5 });
                    None
                }
                Value::Number(n) => {
                    len = len.saturating_add(scalar_len(n));
                    None
                }
                Value::String(s) => {
                    len = len.saturating_add(scalar_len(s.as_str()));
                    None
                }
            };
            if let Some(open) = open {
                if stack.len() + 1 > MAX_DEPTH && too_deep_at.is_none() {
                    too_deep_at = Some(len);
                }
                len = len.saturating_add(1);
                stack.push(open);
            }
        }
        let Some(top) = stack.last_mut() else {
            break;
        };
        let (item, first) = match top {
            Open::Array(items, first) => (items.next().map(|v| (0, v)), first),
            Open::Object(entries, first) => (
                entries.next().map(|(k, v)| (scalar_len(k.as_str()) + 1, v)),
                first,
            ),
        };
        match item {
            Some((key_len, v)) => {
                len = len.saturating_add(key_len + usize::from(!*first));
                *first = false;
                next = Some(v);
            }
            None => {
                len = len.saturating_add(1);
                stack.pop();
            }
        }
    }
    TextShape { len, too_deep_at }
}

/// The top-level fields of a request object, parsed strictly but not yet type-checked; the
/// other keys are parsed (for duplicate keys and nesting) and dropped.
#[derive(Debug, Default)]
pub(crate) struct RequestFields {
    pub agent: Option<Value>,
    pub tool: Option<Value>,
    pub server: Option<Value>,
    pub args: Option<Value>,
    pub tool_use_id: Option<Value>,
    pub permissions: Option<Value>,
}

impl RequestFields {
    fn slot(&mut self, field: &str) -> &mut Option<Value> {
        match field {
            "agent" => &mut self.agent,
            "tool" => &mut self.tool,
            "server" => &mut self.server,
            "args" => &mut self.args,
            "tool_use_id" => &mut self.tool_use_id,
            _ => &mut self.permissions,
        }
    }
}

/// Parses a request line straight into its fields, without building the top-level map:
/// `Ok(None)` when the JSON is valid but not an object.
pub(crate) fn parse_request_fields(text: &str) -> Result<Option<RequestFields>, serde_json::Error> {
    parse_whole(text, TopLevel)
}

struct TopLevel;

impl<'de> DeserializeSeed<'de> for TopLevel {
    type Value = Option<RequestFields>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(TopLevelVisitor)
    }
}

/// A top-level key: one of the request's fields, or another key.
enum Field {
    Known(&'static str),
    Other(String),
}

impl<'de> DeserializeSeed<'de> for FieldSeed {
    type Value = Field;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Field, D::Error> {
        d.deserialize_str(FieldSeed)
    }
}

struct FieldSeed;

const FIELDS: [&str; 6] = [
    "agent",
    "tool",
    "server",
    "args",
    "tool_use_id",
    "permissions",
];

impl Visitor<'_> for FieldSeed {
    type Value = Field;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E>(self, v: &str) -> Result<Field, E> {
        Ok(match FIELDS.iter().find(|&&k| k == v) {
            Some(k) => Field::Known(k),
            None => Field::Other(v.to_string()),
        })
    }
}

struct TopLevelVisitor;

impl<'de> Visitor<'de> for TopLevelVisitor {
    type Value = Option<RequestFields>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut fields = RequestFields::default();
        let mut others: Vec<String> = Vec::new();
        while let Some(key) = map.next_key_seed(FieldSeed)? {
            let taken = match &key {
                Field::Known(k) => fields.slot(k).is_some(),
                Field::Other(name) => others.contains(name),
            };
            if taken {
                let name = match &key {
                    Field::Known(k) => k,
                    Field::Other(name) => name.as_str(),
                };
                return Err(de::Error::custom(format_args!("duplicate key `{name}`")));
            }
            let value = map.next_value_seed(StrictValue)?;
            match key {
                Field::Known(k) => *fields.slot(k) = Some(value),
                Field::Other(name) => others.push(name),
            }
        }
        Ok(Some(fields))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        StrictVisitor.visit_seq(seq).map(|_| None)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        StrictVisitor.visit_f64(v).map(|_| None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::parse_strict;

    #[test]
    fn parses_like_serde_json() {
        let text = r#"{"a": [1, -2, 3.5, true, null, "x"], "b": {"c": {}}}"#;
        assert_eq!(
            parse_strict(text).unwrap(),
            serde_json::from_str::<serde_json::Value>(text).unwrap()
        );
    }

    #[test]
    fn refuses_duplicates_and_trailing_data() {
        assert!(parse_strict(r#"{"a": 1, "a": 2}"#).is_err());
        assert!(parse_strict(r#"{"o": {"a": 1, "a": 1}}"#).is_err());
        assert!(parse_strict(r#"{} {}"#).is_err());
        assert!(parse_strict(&"[".repeat(1000)).is_err());
        assert!(parse_strict("1e400").is_err());
    }
}
