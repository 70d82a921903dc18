//! Equality of syntax trees that ignores where their nodes are: two parses of the same policy
//! written differently (spacing, comments, line breaks) are equal. The syntax tree's
//! `PartialEq` is this equality; `fmt` relies on it to check that formatting kept the policy.

use crate::source::Span;

/// Equality ignoring spans.
pub(crate) trait SpanBlindEq {
    /// True when `self` and `other` are equal, wherever they were written.
    fn eq_ignoring_spans(&self, other: &Self) -> bool;
}

/// A position is never a difference.
impl SpanBlindEq for Span {
    fn eq_ignoring_spans(&self, _: &Self) -> bool {
        true
    }
}

/// Values without positions compare as usual.
macro_rules! plain {
    ($($t:ty),* $(,)?) => {
        $(impl SpanBlindEq for $t {
            fn eq_ignoring_spans(&self, other: &Self) -> bool {
                self == other
            }
        })*
    };
}
plain!(
    String,
    bool,
    f64,
    super::ast::Effect,
    super::ast::CmpOp,
    serde_json::Map<String, serde_json::Value>,
);

impl<T: SpanBlindEq> SpanBlindEq for Vec<T> {
    fn eq_ignoring_spans(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a.eq_ignoring_spans(b))
    }
}

impl<T: SpanBlindEq> SpanBlindEq for Box<T> {
    fn eq_ignoring_spans(&self, other: &Self) -> bool {
        (**self).eq_ignoring_spans(other)
    }
}

impl<T: SpanBlindEq> SpanBlindEq for Option<T> {
    fn eq_ignoring_spans(&self, other: &Self) -> bool {
        match (self, other) {
            (Some(a), Some(b)) => a.eq_ignoring_spans(b),
            (None, None) => true,
            _ => false,
        }
    }
}

/// `PartialEq` (and [`SpanBlindEq`]) for a syntax tree struct: every field compared, spans
/// ignored. The destructuring is exhaustive, so a new field cannot be left out.
macro_rules! span_blind_struct {
    ($name:ident { $($field:ident),* $(,)? }) => {
        impl $crate::syntax::same::SpanBlindEq for $name {
            fn eq_ignoring_spans(&self, other: &Self) -> bool {
                let $name { $($field),* } = self;
                true $(&& $crate::syntax::same::SpanBlindEq::eq_ignoring_spans($field, &other.$field))*
            }
        }
        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                $crate::syntax::same::SpanBlindEq::eq_ignoring_spans(self, other)
            }
        }
    };
}
pub(crate) use span_blind_struct;

/// `PartialEq` (and [`SpanBlindEq`]) for a syntax tree enum: the same variant with equal
/// fields, spans ignored. Every variant must be listed (the match is exhaustive).
macro_rules! span_blind_enum {
    ($name:ident { $($variant:ident $(($($a:ident / $b:ident),*))?),* $(,)? }) => {
        impl $crate::syntax::same::SpanBlindEq for $name {
            fn eq_ignoring_spans(&self, other: &Self) -> bool {
                match self {
                    $($name::$variant { .. } => {})*
                }
                match (self, other) {
                    $(
                        ($name::$variant $(($($a),*))?, $name::$variant $(($($b),*))?) => {
                            true $($(&& $crate::syntax::same::SpanBlindEq::eq_ignoring_spans($a, $b))*)?
                        }
                    )*
                    _ => false,
                }
            }
        }
        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                $crate::syntax::same::SpanBlindEq::eq_ignoring_spans(self, other)
            }
        }
    };
}
pub(crate) use span_blind_enum;

#[cfg(test)]
mod tests {
    use crate::source::FileId;
    use crate::syntax::parse_file;

    #[test]
    fn trees_differing_only_in_layout_are_equal() {
        let (a, _) = parse_file(FileId(0), "tool t(p)\nagent a { allow t where p == \"x\" }");
        let (b, _) = parse_file(
            FileId(0),
            "tool t( p )\n\n# note\nagent a {\n  allow t where p == \"x\"\n}\n",
        );
        assert_eq!(a, b);
        let (c, _) = parse_file(FileId(0), "tool t(p)\nagent a { allow t where p == \"y\" }");
        assert_ne!(a, c);
        let (d, _) = parse_file(FileId(0), "tool t(p)\nagent a { deny t where p == \"x\" }");
        assert_ne!(a, d);
    }
}
