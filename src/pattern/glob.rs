//! Glob to regex translation with globset's semantics (`*` within a segment, `**` across,
//! `?`, classes, `{a,b}`, `\` escapes), and the extra rule for path patterns: a trailing `/**`
//! also matches the directory itself.

/// A glob translated to an anchored regex.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranslatedGlob {
    /// The regex matching exactly the strings the glob matches.
    pub regex: String,
    /// True when the glob starts with `/`: values are normalized before matching.
    pub is_path: bool,
    /// For a path pattern not written in normal form, the normal form it is matched as
    /// (`//etc/**` is matched as `/etc/**`).
    pub normalized: Option<String>,
}

/// Why a glob was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobError {
    /// What is wrong (globset's description, or why a path pattern cannot be normalized).
    pub message: String,
    /// The offending part of the glob (byte offsets into it), when known.
    pub range: Option<std::ops::Range<usize>>,
    /// True when the glob is valid but, as a path pattern, cannot be normalized.
    pub not_normalizable: bool,
}

/// globset compiles its regexes with `.` matching `\n`; its regex text does not say so, so
/// the flag is added here (without it `/etc/**` would not match `/etc/a\nb`).
fn with_dot_all(regex: &str) -> String {
    format!("(?s:{regex})")
}

/// The regex of a glob with globset's semantics; `literal_separator`: `*` stops at `/`.
fn globset_regex(glob: &str, literal_separator: bool) -> Result<String, GlobError> {
    globset::GlobBuilder::new(glob)
        .literal_separator(literal_separator)
        .backslash_escape(true)
        .build()
        .map(|g| with_dot_all(g.regex()))
        .map_err(|e| GlobError {
            message: e.kind().to_string(),
            range: None,
            not_normalizable: false,
        })
}

fn build(glob: &str) -> Result<String, GlobError> {
    globset_regex(glob, true)
}

/// Translates a glob used in a `matches` condition. A path pattern is first put in the normal
/// form values are matched in (see [`crate::pattern::path::normalize_pattern`]).
pub fn translate(written: &str) -> Result<TranslatedGlob, GlobError> {
    let is_path = written.starts_with('/');
    // Refuse an invalid glob as written, before reading it as a path.
    let as_written = build(written)?;
    let normal = if is_path {
        crate::pattern::path::normalize_pattern(written).map_err(|e| GlobError {
            message: e.message,
            range: Some(e.range),
            not_normalizable: true,
        })?
    } else {
        std::borrow::Cow::Borrowed(written)
    };
    let glob: &str = &normal;
    // A glob already in normal form (every plain glob) is not translated twice.
    let mut regex = match normal {
        std::borrow::Cow::Borrowed(_) => as_written,
        std::borrow::Cow::Owned(_) => build(glob)?,
    };
    if is_path {
        if let Some(dir) = glob.strip_suffix("/**") {
            // `\\/**` is an escaped backslash then `/**`; `\/**` escapes the `/` itself.
            let trailing_backslashes = dir.bytes().rev().take_while(|&b| b == b'\\').count();
            if !dir.is_empty() && trailing_backslashes % 2 == 0 {
                let dir_regex = build(dir)?;
                regex = format!("(?:{regex})|(?:{dir_regex})");
            }
        }
    }
    let normalized = match normal {
        std::borrow::Cow::Owned(n) => Some(n),
        std::borrow::Cow::Borrowed(_) => None,
    };
    Ok(TranslatedGlob {
        regex,
        is_path,
        normalized,
    })
}

/// Translates a glob over a tool or server name (no separators: `*` matches any run of
/// characters).
pub fn translate_name(glob: &str) -> Result<String, GlobError> {
    globset_regex(glob, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_match(glob: &str, value: &str) -> bool {
        let t = translate(glob).unwrap();
        regex::bytes::Regex::new(&t.regex)
            .unwrap()
            .is_match(value.as_bytes())
    }

    #[test]
    fn globset_semantics() {
        assert!(is_match("*.rs", "main.rs"));
        assert!(!is_match("*.rs", "src/main.rs"));
        assert!(is_match("src/**", "src/a/b.rs"));
        assert!(is_match("a?c", "abc"));
        assert!(is_match("{a,b}x", "bx"));
        assert!(is_match("a\\*b", "a*b"));
        assert!(!is_match("a\\*b", "axb"));
        assert!(is_match("readonly", "readonly"));
        assert!(!is_match("readonly", "readonly2"));
    }

    #[test]
    fn newlines_are_ordinary_characters() {
        assert!(is_match("/etc/**", "/etc/a\nb"));
        assert!(is_match("a*b", "a\nb"));
        assert!(is_match("a?b", "a\nb"));
        assert!(!is_match("a*b", "a/b"));
    }

    #[test]
    fn trailing_double_star_covers_the_directory() {
        assert!(is_match("/etc/**", "/etc"));
        assert!(is_match("/etc/**", "/etc/passwd"));
        assert!(!is_match("/etc/**", "/etc2"));
        assert!(is_match("/**", "/"));
    }

    #[test]
    fn path_patterns_match_in_normal_form() {
        assert!(is_match("/home/*/.ssh/", "/home/bob/.ssh"));
        assert!(is_match("//etc/**", "/etc/passwd"));
        assert!(is_match("/var/../etc/passwd", "/etc/passwd"));
        assert!(is_match("/srv/data//**", "/srv/data"));
        assert_eq!(
            translate("/a/./b/").unwrap().normalized.as_deref(),
            Some("/a/b")
        );
        assert_eq!(translate("/a/b").unwrap().normalized, None);
        // Plain globs are never normalized.
        assert_eq!(translate("a//b/").unwrap().normalized, None);
        let e = translate("/../etc").unwrap_err();
        assert!(e.not_normalizable && e.range == Some(1..3));
    }

    #[test]
    fn bad_globs_are_errors() {
        assert!(translate("[abc").is_err());
        assert!(translate("{a,b").is_err());
    }
}
