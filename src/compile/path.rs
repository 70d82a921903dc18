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
    bytes[1..]
        .split(|&b| b == b'/')
        .all(|seg| !seg.is_empty() && seg != b"." && seg != b".." && !seg.contains(&0))
}

/// Normalizes an absolute path lexically; `None` when the value cannot be read as one.
/// Borrows the value when it is already normal.
pub fn normalize(value: &str) -> Option<std::borrow::Cow<'_, str>> {
    if is_normal(value) {
        return Some(std::borrow::Cow::Borrowed(value));
    }
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
        return Some("/".into());
    }
    let mut out = String::with_capacity(value.len());
    for s in stack {
        out.push('/');
        out.push_str(s);
    }
    Some(out.into())
}

#[cfg(test)]
mod tests {
    use super::normalize;

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
