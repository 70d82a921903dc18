//! Lexical normalization of absolute paths, for path patterns (globs that start with `/`).
//!
//! `//` and `/./` collapse, `..` removes the previous segment, a trailing `/` is dropped. A
//! value that is not absolute, climbs above `/`, or holds NUL cannot be normalized: the caller
//! treats it as failing closed.

/// True when `value` is already a normalized absolute path: it starts with `/`, and no
/// segment is empty (`//`, a trailing `/`), `.` or `..`, and it holds no NUL. One pass, no
/// allocation: most values in practice.
fn is_normal(value: &str) -> bool {
    let bytes = value.as_bytes();
    if bytes.first() != Some(&b'/') {
        return false;
    }
    if bytes.len() == 1 {
        return true;
    }
    if memchr::memchr(0, bytes).is_some() {
        return false;
    }
    // A segment starts after each `/`: it must not be empty, `.` or `..`.
    memchr::memchr_iter(b'/', bytes).all(|i| match bytes.get(i + 1) {
        None | Some(b'/') => false,
        Some(b'.') => match bytes.get(i + 2) {
            None | Some(b'/') => false,
            Some(b'.') => !matches!(bytes.get(i + 3), None | Some(b'/')),
            _ => true,
        },
        _ => true,
    })
}

/// Normalizes an absolute path lexically; `None` when the value cannot be read as one.
/// Borrows the value when it is already normal.
pub fn normalize(value: &str) -> Option<std::borrow::Cow<'_, str>> {
    if is_normal(value) {
        return Some(std::borrow::Cow::Borrowed(value));
    }
    resolve_segments(value).map(std::borrow::Cow::Owned)
}

/// The general case: splits into segments and resolves `.`, `..` and empty ones.
fn resolve_segments(value: &str) -> Option<String> {
    if !value.starts_with('/') || value.contains('\0') {
        return None;
    }
    let mut stack: Vec<&str> = Vec::new();
    for seg in value.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                stack.pop()?;
            }
            s => stack.push(s),
        }
    }
    if stack.is_empty() {
        return Some("/".to_string());
    }
    let mut out = String::with_capacity(value.len());
    for s in stack {
        out.push('/');
        out.push_str(s);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::{is_normal, normalize, resolve_segments};
    use proptest::prelude::*;

    proptest! {
        /// The one-pass check agrees with resolving the segments: a value is normal exactly
        /// when resolving leaves it unchanged, and both paths give the same answer.
        #[test]
        fn fast_path_agrees_with_resolving(parts in proptest::collection::vec(
            prop_oneof![Just("/"), Just("."), Just(".."), Just("a"), Just("\0"), Just("b.")], 0..10)
        ) {
            let value: String = parts.concat();
            let resolved = resolve_segments(&value);
            prop_assert_eq!(is_normal(&value), resolved.as_deref() == Some(value.as_str()));
            prop_assert_eq!(normalize(&value).map(|c| c.into_owned()), resolved);
        }
    }

    #[test]
    fn collapses_and_resolves() {
        assert_eq!(normalize("/a//b/./c/").as_deref(), Some("/a/b/c"));
        assert_eq!(normalize("/a/b/../c").as_deref(), Some("/a/c"));
        assert_eq!(normalize("/").as_deref(), Some("/"));
        assert_eq!(normalize("/a/..").as_deref(), Some("/"));
        assert_eq!(normalize("///").as_deref(), Some("/"));
    }

    #[test]
    fn normal_paths_are_borrowed() {
        assert!(matches!(
            normalize("/a/b.c/..d"),
            Some(std::borrow::Cow::Borrowed("/a/b.c/..d"))
        ));
        assert!(matches!(
            normalize("/"),
            Some(std::borrow::Cow::Borrowed("/"))
        ));
        assert!(matches!(normalize("/a/"), Some(std::borrow::Cow::Owned(_))));
        assert_eq!(normalize("/a/\0"), None);
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        assert_eq!(normalize("a/b"), None);
        assert_eq!(normalize(""), None);
        assert_eq!(normalize("/.."), None);
        assert_eq!(normalize("/a/../../b"), None);
        assert_eq!(normalize("/a\0b"), None);
        assert_eq!(normalize("../etc/passwd"), None);
    }
}
