//! The JSON a decision reads from a call: its arguments and their values, behind two small
//! traits.
//!
//! serde_json's `Map` and `Value` implement them, and [`Engine::decide`](crate::Engine::decide)
//! reads them. A host that reads request text in place can implement them over values borrowed
//! from that text and decide with [`Engine::decide_ref`](crate::Engine::decide_ref), without
//! building owned values first. Every reading of a value a decision makes goes through these
//! traits, so two implementations that agree on them get the same decision.

use serde_json::{Map, Value};

/// The kind of a JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonKind {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool,
    /// A number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

/// A JSON value, read through a cheap handle (a reference, or an index into a document) that
/// lives for `'a`.
///
/// # Example
///
/// ```
/// use toolgate::value::{JsonKind, JsonValue};
/// let v = serde_json::json!({"opts": [1, "x"]});
/// let opts = (&v).member("opts").unwrap();
/// assert_eq!(opts.kind(), JsonKind::Array);
/// let items: Vec<_> = opts.items().unwrap().map(|i| i.kind()).collect();
/// assert_eq!(items, [JsonKind::Number, JsonKind::String]);
/// ```
pub trait JsonValue<'a>: Copy {
    /// An array's elements, in order.
    type Items: Iterator<Item = Self>;
    /// What kind of value this is.
    fn kind(self) -> JsonKind;
    /// A string's text.
    fn as_str(self) -> Option<&'a str>;
    /// A number as a 64-bit float (as serde_json's `as_f64` reads it).
    fn as_f64(self) -> Option<f64>;
    /// True for a number with no fractional part (`3`, `-0`, `1e3`, `3.0`), integers read
    /// exactly as serde_json keeps them.
    fn is_integer(self) -> bool;
    /// An array's elements; `None` for anything else.
    fn items(self) -> Option<Self::Items>;
    /// An object's value under `key`; `None` when it has none, or this is no object.
    fn member(self, key: &str) -> Option<Self>;
}

/// A call's arguments: an object of JSON values.
///
/// # Example
///
/// ```
/// use toolgate::value::{JsonArgs, JsonValue};
/// let args = serde_json::json!({"path": "/a"});
/// let args = args.as_object().unwrap();
/// assert_eq!(args.arg("path").and_then(|v| v.as_str()), Some("/a"));
/// assert!(args.arg("cwd").is_none());
/// ```
pub trait JsonArgs<'a>: Copy {
    /// The type of the argument values.
    type Value: JsonValue<'a>;
    /// The argument named `key`.
    fn arg(self, key: &str) -> Option<Self::Value>;
}

impl<'a> JsonValue<'a> for &'a Value {
    type Items = std::slice::Iter<'a, Value>;

    fn kind(self) -> JsonKind {
        match self {
            Value::Null => JsonKind::Null,
            Value::Bool(_) => JsonKind::Bool,
            Value::Number(_) => JsonKind::Number,
            Value::String(_) => JsonKind::String,
            Value::Array(_) => JsonKind::Array,
            Value::Object(_) => JsonKind::Object,
        }
    }

    fn as_str(self) -> Option<&'a str> {
        Value::as_str(self)
    }

    fn as_f64(self) -> Option<f64> {
        Value::as_f64(self)
    }

    fn is_integer(self) -> bool {
        match self {
            Value::Number(n) => {
                n.is_i64()
                    || n.is_u64()
                    || n.as_f64()
                        .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
            }
            _ => false,
        }
    }

    fn items(self) -> Option<Self::Items> {
        match self {
            Value::Array(items) => Some(items.iter()),
            _ => None,
        }
    }

    fn member(self, key: &str) -> Option<Self> {
        match self {
            Value::Object(m) => get(m, key),
            _ => None,
        }
    }
}

impl<'a> JsonArgs<'a> for &'a Map<String, Value> {
    type Value = &'a Value;

    fn arg(self, key: &str) -> Option<&'a Value> {
        get(self, key)
    }
}

/// Up to this many keys, an object that hashes its keys is searched key by key.
const SCAN_KEYS: usize = 8;

/// The value under `key`.
///
/// serde_json's map is a `BTreeMap`, unless some crate in the build turns on its
/// `preserve_order` feature (Cedar does, for one): then it is an `IndexMap` hashing every
/// lookup with SipHash, which costs more than the whole rest of a decision. So with that map,
/// the few keys a call's arguments usually have are compared one by one (a length check rejects
/// most at once); otherwise the tree's own search is used.
#[inline]
pub(crate) fn get<'a>(args: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if args.len() <= SCAN_KEYS && map_hashes_keys() {
        args.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    } else {
        args.get(key)
    }
}

/// Whether serde_json's map keeps insertion order (and so hashes its keys), found once.
fn map_hashes_keys() -> bool {
    static ORDERED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ORDERED.get_or_init(|| {
        let mut probe = Map::new();
        probe.insert("b".into(), Value::Null);
        probe.insert("a".into(), Value::Null);
        probe.keys().next().is_some_and(|k| k == "b")
    })
}

#[cfg(test)]
mod tests {
    use super::{JsonKind, JsonValue};
    use serde_json::json;

    #[test]
    fn serde_values_read_as_their_kind() {
        let v = json!([null, true, 1, -2.5, "s", [], {}]);
        let kinds: Vec<_> = (&v).items().unwrap().map(JsonValue::kind).collect();
        assert_eq!(
            kinds,
            [
                JsonKind::Null,
                JsonKind::Bool,
                JsonKind::Number,
                JsonKind::Number,
                JsonKind::String,
                JsonKind::Array,
                JsonKind::Object
            ]
        );
        for (v, integer) in [
            (json!(3), true),
            (json!(-0.0), true),
            (json!(1e3), true),
            (json!(u64::MAX), true),
            (json!(2.5), false),
            (json!("3"), false),
        ] {
            assert_eq!((&v).is_integer(), integer, "{v}");
        }
        assert_eq!(JsonValue::as_f64(&json!(7)), Some(7.0));
        assert!((&json!("x")).member("a").is_none());
        assert!((&json!([1])).member("0").is_none());
        assert!((&json!({"a": 1})).items().is_none());
    }
}
