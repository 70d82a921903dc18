//! Declared argument types (`tool Bash(command: string, timeout?: number)`): what a catalog
//! may say an argument is, and whether a JSON value is one.
//!
//! A type is a base type under zero or more `array<...>`: `array<array<integer>>` is two
//! arrays of `integer`. Kept flat (a count and a base), so it is small, `Copy`, and never
//! recursive when a bundle is decoded.

use crate::value::{JsonKind, JsonValue};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The most `array<...>` levels a type may have.
pub const MAX_ARRAY_DEPTH: usize = 16;

/// The type an array's elements (or a plain argument) must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BaseType {
    /// Any JSON value (the default: no check).
    Any,
    /// A JSON string.
    String,
    /// A JSON number.
    Number,
    /// A JSON number with no fractional part.
    Integer,
    /// `true` or `false`.
    Boolean,
    /// A string read as a path (checked as a string).
    Path,
    /// A JSON object.
    Object,
}

impl BaseType {
    /// Every base type with its name, in the order docs/language.md lists them.
    pub const ALL: [(&'static str, BaseType); 7] = [
        ("string", BaseType::String),
        ("number", BaseType::Number),
        ("integer", BaseType::Integer),
        ("boolean", BaseType::Boolean),
        ("path", BaseType::Path),
        ("object", BaseType::Object),
        ("any", BaseType::Any),
    ];

    /// The name as written in a catalog.
    pub fn name(self) -> &'static str {
        match self {
            BaseType::Any => "any",
            BaseType::String => "string",
            BaseType::Number => "number",
            BaseType::Integer => "integer",
            BaseType::Boolean => "boolean",
            BaseType::Path => "path",
            BaseType::Object => "object",
        }
    }

    /// The base type of this name (`array` is not one: it takes an element type).
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::resolve::BaseType;
    /// assert_eq!(BaseType::from_name("path"), Some(BaseType::Path));
    /// assert_eq!(BaseType::from_name("str"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<BaseType> {
        BaseType::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
    }

    /// True when a string condition (`==`, `in`, `matches`, `contains`) can hold on a value
    /// of this type.
    pub fn holds_strings(self) -> bool {
        matches!(self, BaseType::Any | BaseType::String | BaseType::Path)
    }

    /// True when a numeric comparison can hold on a value of this type.
    pub fn holds_numbers(self) -> bool {
        matches!(self, BaseType::Any | BaseType::Number | BaseType::Integer)
    }

    /// True when a dotted path can reach inside a value of this type.
    pub fn has_members(self) -> bool {
        matches!(self, BaseType::Any | BaseType::Object)
    }

    fn accepts<'a>(self, v: impl JsonValue<'a>) -> bool {
        let kind = v.kind();
        match self {
            BaseType::Any => true,
            BaseType::String | BaseType::Path => kind == JsonKind::String,
            BaseType::Number => kind == JsonKind::Number,
            BaseType::Integer => kind == JsonKind::Number && v.is_integer(),
            BaseType::Boolean => kind == JsonKind::Bool,
            BaseType::Object => kind == JsonKind::Object,
        }
    }
}

/// A declared argument type: `arrays` levels of `array<...>` around `base`.
///
/// # Example
///
/// ```
/// use toolgate::resolve::{ArgType, BaseType};
/// use serde_json::json;
/// let t = ArgType { arrays: 1, base: BaseType::String };
/// assert_eq!(t.to_string(), "array<string>");
/// assert!(t.mismatch(&json!(["a", "b"])).is_none());
/// assert_eq!(t.mismatch(&json!(["a", 5])).unwrap(), "an array holding a number");
/// assert!(ArgType::ANY.is_any());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ArgType {
    /// How many `array<...>` wrap the base type.
    pub arrays: u8,
    /// The type of the innermost values.
    pub base: BaseType,
}

impl ArgType {
    /// `any`: every value (the type of an argument declared without one).
    pub const ANY: ArgType = ArgType {
        arrays: 0,
        base: BaseType::Any,
    };

    /// True for `any`, which checks nothing.
    pub fn is_any(self) -> bool {
        self == ArgType::ANY
    }

    /// `None` when `v` has this type; otherwise what the value is, for the message
    /// (`a number`, `an array holding an object`, `a number with a fractional part`).
    pub fn mismatch<'a>(self, v: impl JsonValue<'a>) -> Option<String> {
        if self.arrays == 0 {
            return (!self.base.accepts(v)).then(|| given(v, self.base == BaseType::Integer));
        }
        let Some(mut items) = v.items() else {
            return Some(given(v, false));
        };
        let inner = ArgType {
            arrays: self.arrays - 1,
            base: self.base,
        };
        items
            .find_map(|item| inner.mismatch(item))
            .map(|m| format!("an array holding {m}"))
    }
}

/// What a value is, as a message says it.
fn given<'a>(v: impl JsonValue<'a>, integer_expected: bool) -> String {
    match v.kind() {
        JsonKind::Null => "null".into(),
        JsonKind::Bool => "a boolean".into(),
        JsonKind::Number if integer_expected => "a number with a fractional part".into(),
        JsonKind::Number => "a number".into(),
        JsonKind::String => "a string".into(),
        JsonKind::Array => "an array".into(),
        JsonKind::Object => "an object".into(),
    }
}

impl fmt::Display for ArgType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for _ in 0..self.arrays {
            f.write_str("array<")?;
        }
        f.write_str(self.base.name())?;
        for _ in 0..self.arrays {
            f.write_str(">")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn t(arrays: u8, base: BaseType) -> ArgType {
        ArgType { arrays, base }
    }

    #[test]
    fn each_base_type_accepts_its_values_only() {
        let s = t(0, BaseType::String);
        assert!(s.mismatch(&json!("rm -rf /")).is_none());
        assert_eq!(s.mismatch(&json!({"0": "rm -rf /"})).unwrap(), "an object");
        assert_eq!(s.mismatch(&json!(["x"])).unwrap(), "an array");
        assert_eq!(s.mismatch(&json!(null)).unwrap(), "null");
        let n = t(0, BaseType::Number);
        assert_eq!(n.mismatch(&json!("9999")).unwrap(), "a string");
        assert!(n.mismatch(&json!(2.5)).is_none());
        let i = t(0, BaseType::Integer);
        for ok in [
            json!(3),
            json!(-0.0),
            json!(1e3),
            json!(u64::MAX),
            json!(i64::MIN),
        ] {
            assert!(i.mismatch(&ok).is_none(), "{ok}");
        }
        assert_eq!(
            i.mismatch(&json!(2.5)).unwrap(),
            "a number with a fractional part"
        );
        assert_eq!(i.mismatch(&json!(true)).unwrap(), "a boolean");
        assert!(t(0, BaseType::Boolean).mismatch(&json!(false)).is_none());
        assert!(t(0, BaseType::Path).mismatch(&json!("rel/x")).is_none());
        assert!(t(0, BaseType::Object).mismatch(&json!({})).is_none());
        assert!(ArgType::ANY.mismatch(&json!([{"x": null}])).is_none());
    }

    #[test]
    fn arrays_check_every_element() {
        let a = t(2, BaseType::Integer);
        assert!(a.mismatch(&json!([[1, 2], [], [3]])).is_none());
        assert!(a.mismatch(&json!([])).is_none());
        assert_eq!(
            a.mismatch(&json!([[1], [2.5]])).unwrap(),
            "an array holding an array holding a number with a fractional part"
        );
        assert_eq!(
            a.mismatch(&json!([1])).unwrap(),
            "an array holding a number"
        );
        assert_eq!(a.mismatch(&json!(1)).unwrap(), "a number");
        assert_eq!(a.to_string(), "array<array<integer>>");
        assert!(t(1, BaseType::Any).mismatch(&json!([1, "a"])).is_none());
        assert_eq!(
            t(1, BaseType::Any).mismatch(&json!("a")).unwrap(),
            "a string"
        );
    }
}
