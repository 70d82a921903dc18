//! Lexical normalization of absolute paths, for path patterns (globs that start with `/`).
//!
//! `//` and `/./` collapse, `..` removes the previous segment, a trailing `/` is dropped. A
//! value that is not absolute, climbs above `/`, or holds NUL cannot be normalized: the caller
//! treats it as failing closed.

/// Normalizes an absolute path lexically; `None` when the value cannot be read as one.
pub fn normalize(value: &str) -> Option<String> {
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
    fn refuses_what_it_cannot_read() {
        assert_eq!(normalize("a/b"), None);
        assert_eq!(normalize(""), None);
        assert_eq!(normalize("/.."), None);
        assert_eq!(normalize("/a/../../b"), None);
        assert_eq!(normalize("/a\0b"), None);
        assert_eq!(normalize("../etc/passwd"), None);
    }
}
