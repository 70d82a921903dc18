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
}

/// Why a glob was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobError {
    /// globset's description of the problem.
    pub message: String,
}

/// globset compiles its regexes with `.` matching `\n`; its regex text does not say so, so
/// the flag is added here (without it `/etc/**` would not match `/etc/a\nb`).
fn with_dot_all(regex: &str) -> String {
    format!("(?s:{regex})")
}

fn build(glob: &str) -> Result<String, GlobError> {
    globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map(|g| with_dot_all(g.regex()))
        .map_err(|e| GlobError {
            message: e.kind().to_string(),
        })
}

/// Translates a glob used in a `matches` condition.
pub fn translate(glob: &str) -> Result<TranslatedGlob, GlobError> {
    let is_path = glob.starts_with('/');
    let mut regex = build(glob)?;
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
    Ok(TranslatedGlob { regex, is_path })
}

/// Translates a glob over a tool or server name (no separators: `*` matches any run of
/// characters).
pub fn translate_name(glob: &str) -> Result<String, GlobError> {
    globset::GlobBuilder::new(glob)
        .literal_separator(false)
        .backslash_escape(true)
        .build()
        .map(|g| with_dot_all(g.regex()))
        .map_err(|e| GlobError {
            message: e.kind().to_string(),
        })
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
    fn bad_globs_are_errors() {
        assert!(translate("[abc").is_err());
        assert!(translate("{a,b").is_err());
    }
}
