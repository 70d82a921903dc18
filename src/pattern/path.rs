//! Lexical normalization of absolute paths, for path patterns (globs that start with `/`).
//!
//! `//` and `/./` collapse, `..` removes the previous segment, a trailing `/` is dropped. A
//! value that is not absolute, climbs above `/`, or holds NUL cannot be normalized: the caller
//! treats it as failing closed.
//!
//! The pattern itself is normalized the same way when the policy is compiled
//! ([`normalize_pattern`]): values are only ever matched in normal form, so a pattern that is not
//! (`/home/*/.ssh/`, `//etc/**`, `/var/../etc/passwd`) would otherwise never match anything.

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
    if bytes.len() <= SHORT_PATH {
        // A plain loop: memchr's setup costs more than a short value's bytes.
        return bytes
            .iter()
            .enumerate()
            .all(|(i, &b)| b != 0 && (b != b'/' || segment_after_is_named(bytes, i)));
    }
    if memchr::memchr(0, bytes).is_some() {
        return false;
    }
    memchr::memchr_iter(b'/', bytes).all(|i| segment_after_is_named(bytes, i))
}

/// Up to this many bytes, [`is_normal`] checks a value byte by byte.
const SHORT_PATH: usize = 64;

/// Whether the segment after the `/` at `i` is a name: not empty, `.` or `..`.
#[inline]
fn segment_after_is_named(bytes: &[u8], i: usize) -> bool {
    match bytes.get(i + 1) {
        None | Some(b'/') => false,
        Some(b'.') => match bytes.get(i + 2) {
            None | Some(b'/') => false,
            Some(b'.') => !matches!(bytes.get(i + 3), None | Some(b'/')),
            _ => true,
        },
        _ => true,
    }
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

/// Why a path pattern cannot be put in normal form: what is wrong and the byte range of the
/// offending segment within the pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    /// What is wrong, in the user's words.
    pub message: String,
    /// The offending part of the pattern (byte offsets into it).
    pub range: std::ops::Range<usize>,
}

/// One `/`-separated segment of a glob, as written.
struct GlobSegment<'g> {
    text: &'g str,
    start: usize,
    /// The segment's meaning when it holds no wildcard (escapes removed).
    literal: Option<String>,
    /// True when the segment is a plain name: no wildcard, nothing that can match a `/`.
    single: bool,
}

/// Splits a glob at the `/`s outside `{...}`, `[...]` and escapes. The first segment is what
/// precedes the leading `/` (empty for a path pattern).
fn glob_segments(glob: &str) -> Result<Vec<GlobSegment<'_>>, PatternError> {
    let mut out = Vec::new();
    let mut start = 0;
    let (mut wild, mut inner_slash) = (false, false);
    let mut literal = String::new();
    // Inside `{...}`: where the group and the current alternative start.
    let mut group: Option<(usize, usize)> = None;
    let mut chars = glob.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                // An escaped `/` is still a `/`: in a path it separates segments.
                Some((k, '/')) if group.is_none() => {
                    out.push(segment(glob, start, i, wild, inner_slash, &literal));
                    (start, wild, inner_slash) = (k + 1, false, false);
                    literal.clear();
                }
                Some((_, '/')) => inner_slash = true,
                Some((_, escaped)) => literal.push(escaped),
                None => literal.push(c),
            },
            '[' => {
                wild = true;
                // `[]...]` and `[!]...]` hold `]` as their first member.
                if let Some((_, '!' | '^')) = chars.peek() {
                    chars.next();
                }
                if let Some((_, ']')) = chars.peek() {
                    chars.next();
                }
                for (_, k) in chars.by_ref() {
                    match k {
                        ']' => break,
                        '/' => inner_slash = true,
                        _ => {}
                    }
                }
            }
            '{' if group.is_none() => {
                wild = true;
                group = Some((i, i + 1));
            }
            ',' | '}' if group.is_some() => {
                if let Some((open, alt)) = group {
                    check_alternative(glob, alt, i, open)?;
                    group = (c == ',').then_some((open, i + 1));
                }
            }
            '/' if group.is_some() => inner_slash = true,
            '/' => {
                out.push(segment(glob, start, i, wild, inner_slash, &literal));
                (start, wild, inner_slash) = (i + 1, false, false);
                literal.clear();
            }
            '*' | '?' => wild = true,
            _ if group.is_some() => {}
            _ => literal.push(c),
        }
    }
    out.push(segment(
        glob,
        start,
        glob.len(),
        wild,
        inner_slash,
        &literal,
    ));
    Ok(out)
}

fn segment<'g>(
    glob: &'g str,
    start: usize,
    end: usize,
    wild: bool,
    inner_slash: bool,
    literal: &str,
) -> GlobSegment<'g> {
    let text = &glob[start..end];
    GlobSegment {
        text,
        start,
        literal: (!wild).then(|| literal.to_string()),
        single: !wild && !inner_slash,
    }
}

/// An alternative of a `{...}` group that spans segments must itself be in normal form, and an
/// alternative that leaves a whole segment empty would only match paths that are not normal.
fn check_alternative(
    glob: &str,
    start: usize,
    end: usize,
    brace_start: usize,
) -> Result<(), PatternError> {
    // What the alternative matches: an escaped character stands for itself (`\/` is a `/`).
    let written = &glob[start..end];
    let mut alt = String::new();
    let mut chars = written.chars();
    while let Some(c) = chars.next() {
        alt.push(if c == '\\' {
            chars.next().unwrap_or(c)
        } else {
            c
        });
    }
    let whole_segment = glob[..brace_start].ends_with('/')
        && matches!(glob[end..].find('}').map(|k| end + k + 1), Some(close) if close == glob.len() || glob[close..].starts_with('/'));
    let bad_part = alt.contains('/')
        && alt
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..");
    if bad_part || (alt.is_empty() && whole_segment) {
        return Err(PatternError {
            message: format!(
                "the alternative `{written}` is not a normalized path: it would only match paths with an empty, `.` or `..` segment, which values never have once normalized"
            ),
            range: start.min(glob.len())..end.max(start + 1).min(glob.len()),
        });
    }
    Ok(())
}

/// Puts a path pattern (a glob starting with `/`) in the normal form values are matched in:
/// empty and `.` segments are dropped, `..` removes the segment before it, a trailing `/` is
/// dropped. Borrows the pattern when it is already normal.
///
/// # Errors
///
/// A [`PatternError`] when the pattern climbs above `/`, when `..` follows a segment that is
/// not a plain name (`**/..`, `*/..`), or when an alternative of a `{...}` group is itself not
/// normal.
pub fn normalize_pattern(glob: &str) -> Result<std::borrow::Cow<'_, str>, PatternError> {
    let segments = glob_segments(glob)?;
    let mut kept: Vec<&GlobSegment> = Vec::with_capacity(segments.len());
    for seg in segments.iter().skip(1) {
        match seg.literal.as_deref() {
            Some("") | Some(".") => {}
            Some("..") => {
                let range = seg.start..seg.start + seg.text.len();
                match kept.last() {
                    None => {
                        return Err(PatternError {
                            message: "this `..` climbs above `/`: no normalized path can match"
                                .into(),
                            range,
                        })
                    }
                    Some(prev) if !prev.single => {
                        return Err(PatternError {
                            message: format!(
                                "this `..` follows `{}`, which is not a plain name, so the directory it leads to is not known",
                                prev.text
                            ),
                            range,
                        })
                    }
                    Some(_) => {
                        kept.pop();
                    }
                }
            }
            _ => {
                // A segment written with escapes (`\.`) is kept as written: only its meaning
                // was compared above.
                kept.push(seg);
            }
        }
    }
    let mut out = String::with_capacity(glob.len());
    for seg in kept {
        out.push('/');
        out.push_str(seg.text);
    }
    if out.is_empty() {
        out.push('/');
    }
    if out == glob {
        return Ok(std::borrow::Cow::Borrowed(glob));
    }
    Ok(std::borrow::Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::{is_normal, normalize, normalize_pattern, resolve_segments};
    use proptest::prelude::*;

    proptest! {
        /// The one-pass check agrees with resolving the segments: a value is normal exactly
        /// when resolving leaves it unchanged, and both paths give the same answer.
        #[test]
        fn fast_path_agrees_with_resolving(parts in proptest::collection::vec(
            prop_oneof![
                Just("/"), Just("."), Just(".."), Just("a"), Just("\0"), Just("b."),
                Just("/data/team5/q3"),
            ], 0..24)
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

    #[test]
    fn patterns_are_normalized_like_values() {
        let n = |p: &str| normalize_pattern(p).map(|c| c.into_owned());
        assert_eq!(n("/home/*/.ssh/").as_deref(), Ok("/home/*/.ssh"));
        assert_eq!(n("//etc/**").as_deref(), Ok("/etc/**"));
        assert_eq!(n("/var/../etc/passwd").as_deref(), Ok("/etc/passwd"));
        assert_eq!(n("/a/./b//c/").as_deref(), Ok("/a/b/c"));
        assert_eq!(n("/a/x/../b").as_deref(), Ok("/a/b"));
        assert_eq!(n("/a\\/b/").as_deref(), Ok("/a/b"));
        assert_eq!(n("/a/\\./b").as_deref(), Ok("/a/b"));
        assert_eq!(n("/a/..").as_deref(), Ok("/"));
        assert_eq!(n("/**/").as_deref(), Ok("/**"));
        assert_eq!(n("/{a/b,c}/./x").as_deref(), Ok("/{a/b,c}/x"));
        assert_eq!(n("/a/[/]/b").as_deref(), Ok("/a/[/]/b"));
    }

    #[test]
    fn normal_patterns_are_borrowed() {
        for p in [
            "/",
            "/etc/**",
            "/home/*/.ssh/*",
            "/a/{b,c}/..d",
            "/a/.*",
            "/{a/b,c}/**",
        ] {
            assert!(
                matches!(normalize_pattern(p), Ok(std::borrow::Cow::Borrowed(_))),
                "{p}"
            );
        }
    }

    #[test]
    fn patterns_that_cannot_be_normalized_say_where() {
        let e = normalize_pattern("/a/../../b").unwrap_err();
        assert!(e.message.contains("above `/`"), "{}", e.message);
        assert_eq!(&"/a/../../b"[e.range], "..");
        let e = normalize_pattern("/a/**/../b").unwrap_err();
        assert!(e.message.contains("`**`"), "{}", e.message);
        assert_eq!(e.range, 6..8);
        assert!(normalize_pattern("/a/*/../b").is_err());
        assert!(normalize_pattern("/a/{b,c}/../d").is_err());
        let e = normalize_pattern("/{a/../b,c}/x").unwrap_err();
        assert_eq!(&"/{a/../b,c}/x"[e.range], "a/../b");
        let e = normalize_pattern("/a/{,b}/c").unwrap_err();
        assert!(e.message.contains("alternative"), "{}", e.message);
        assert!(normalize_pattern("/a/x{,b}/c").is_ok());
        // An escaped `/` in an alternative is a `/`: `{\/x}` after a `/` makes an empty
        // segment, which no normalized value has.
        let e = normalize_pattern("/{\\/]}").unwrap_err();
        assert!(e.message.contains("`\\/]`"), "{}", e.message);
        assert!(normalize_pattern("/{a\\/b,c}").is_ok());
    }
}
