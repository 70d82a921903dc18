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

/// A token of a simple glob, as globset reads it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Simple {
    Literal(char),
    Any,
    ZeroOrMore,
    RecursivePrefix,
    RecursiveSuffix,
    RecursiveZeroOrMore,
}

/// The tokens of a glob made of literal characters, `?`, `*` and `**` only (no class,
/// alternation or escape: `None` for those), as globset reads them.
fn simple_tokens(glob: &str) -> Option<Vec<Simple>> {
    if glob.contains(['[', ']', '{', '}', '\\']) {
        return None;
    }
    // globset's `parse_star` with a single branch (there are no alternations here).
    let mut tokens: Vec<Simple> = Vec::with_capacity(glob.len());
    let mut chars = glob.chars().peekable();
    let mut prev: Option<char> = None;
    while let Some(c) = chars.next() {
        match c {
            '?' => tokens.push(Simple::Any),
            '*' => {
                if chars.peek() != Some(&'*') {
                    tokens.push(Simple::ZeroOrMore);
                } else {
                    chars.next();
                    let before = prev;
                    prev = Some('*');
                    if tokens.is_empty() {
                        if chars.peek().is_some_and(|&n| n != '/') {
                            tokens.extend([Simple::ZeroOrMore, Simple::ZeroOrMore]);
                        } else {
                            tokens.push(Simple::RecursivePrefix);
                            if let Some(sep) = chars.next() {
                                prev = Some(sep);
                            }
                        }
                        continue;
                    }
                    if before != Some('/') {
                        tokens.extend([Simple::ZeroOrMore, Simple::ZeroOrMore]);
                        continue;
                    }
                    let is_suffix = match chars.peek() {
                        None => true,
                        Some('/') => {
                            chars.next();
                            prev = Some('/');
                            false
                        }
                        Some(_) => {
                            tokens.extend([Simple::ZeroOrMore, Simple::ZeroOrMore]);
                            continue;
                        }
                    };
                    let last = tokens.pop();
                    tokens.push(match last {
                        Some(Simple::RecursivePrefix) => Simple::RecursivePrefix,
                        Some(Simple::RecursiveSuffix) => Simple::RecursiveSuffix,
                        _ if is_suffix => Simple::RecursiveSuffix,
                        _ => Simple::RecursiveZeroOrMore,
                    });
                    continue;
                }
            }
            c => tokens.push(Simple::Literal(c)),
        }
        prev = Some(c);
    }
    Some(tokens)
}

/// The regex globset writes for a simple glob (see [`simple_tokens`]), character for
/// character the same text (the `globset_agrees_on_simple_globs` property test holds it to
/// that). Most globs of a policy are simple, and translating them needs none of globset's
/// general machinery.
fn simple_regex(glob: &str, literal_separator: bool) -> Option<String> {
    let tokens = simple_tokens(glob)?;
    let mut re = String::with_capacity(glob.len() * 2 + 16);
    re.push_str("(?-u)^");
    if tokens == [Simple::RecursivePrefix] {
        re.push_str(".*$");
        return Some(re);
    }
    render(&tokens, literal_separator, &mut re);
    re.push('$');
    Some(re)
}

/// Appends the regex text of `tokens` to `re`, as globset writes it.
fn render(tokens: &[Simple], literal_separator: bool, re: &mut String) {
    for &t in tokens {
        match t {
            Simple::Literal(c) => {
                let mut buf = [0u8; 4];
                for &b in c.encode_utf8(&mut buf).as_bytes() {
                    if b.is_ascii() {
                        regex_syntax::escape_into(char::from(b).encode_utf8(&mut [0; 4]), re);
                    } else {
                        re.push_str(&format!("\\x{b:02x}"));
                    }
                }
            }
            Simple::Any if literal_separator => re.push_str("[^/]"),
            Simple::Any => re.push('.'),
            Simple::ZeroOrMore if literal_separator => re.push_str("[^/]*"),
            Simple::ZeroOrMore => re.push_str(".*"),
            Simple::RecursivePrefix => re.push_str("(?:/?|.*/)"),
            Simple::RecursiveSuffix => re.push_str("/.*"),
            Simple::RecursiveZeroOrMore => re.push_str("(?:/|/.*/)"),
        }
    }
}

/// A glob's regex in two parts: the literal every match starts with, and an anchored regex
/// over the rest of the value. Many globs of a policy differ only in that literal
/// (`/data/team{i}/**/*.csv`), so the rest is read once for all of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiteralSplit {
    /// The literal the value starts with.
    pub prefix: String,
    /// A regex, anchored at both ends, over what follows the literal.
    pub rest: String,
}

/// Splits the regex [`translate`] gives a simple glob (see [`simple_tokens`]) after its
/// leading literal: a value matches that regex exactly when it starts with
/// [`LiteralSplit::prefix`] and the rest matches [`LiteralSplit::rest`]. `glob` is the text
/// the regex was made from (a path pattern's normal form), `is_path` whether it is a path
/// pattern. `None` for a glob that is not simple or starts with no literal.
pub fn literal_split(glob: &str, is_path: bool) -> Option<LiteralSplit> {
    let tokens = simple_tokens(glob)?;
    let literal = |t: &[Simple]| {
        t.iter()
            .take_while(|t| matches!(t, Simple::Literal(_)))
            .count()
    };
    // The path form also matches the directory itself: `(?:GLOB)|(?:DIR)`, split after the
    // literal both branches start with.
    let dir = match directory_of(glob, is_path) {
        Some(dir) => Some(simple_tokens(dir)?),
        None => None,
    };
    let mut n = literal(&tokens);
    if let Some(dir) = &dir {
        n = tokens
            .iter()
            .zip(dir)
            .take(n.min(literal(dir)))
            .take_while(|(a, b)| a == b)
            .count();
    }
    if n == 0 {
        return None;
    }
    let prefix: String = tokens
        .get(..n)?
        .iter()
        .filter_map(|t| match t {
            Simple::Literal(c) => Some(*c),
            _ => None,
        })
        .collect();
    // Written as `translate` writes the whole regex, from the tokens after the literal.
    let branch = |t: &[Simple]| {
        let mut re = String::from("(?-u)^");
        render(t, true, &mut re);
        re.push('$');
        with_dot_all(&re)
    };
    let rest = match &dir {
        Some(dir) => either(&branch(tokens.get(n..)?), &branch(dir.get(n..)?)),
        None => branch(tokens.get(n..)?),
    };
    Some(LiteralSplit { prefix, rest })
}

/// The regex of a glob with globset's semantics; `literal_separator`: `*` stops at `/`.
fn globset_regex(glob: &str, literal_separator: bool) -> Result<String, GlobError> {
    if let Some(regex) = simple_regex(glob, literal_separator) {
        return Ok(with_dot_all(&regex));
    }
    globset_built_regex(glob, literal_separator)
}

/// [`globset_regex`] through globset itself.
fn globset_built_regex(glob: &str, literal_separator: bool) -> Result<String, GlobError> {
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

/// The directory a path glob ending in `/**` also matches (`/srv/data` for `/srv/data/**`).
fn directory_of(glob: &str, is_path: bool) -> Option<&str> {
    let dir = glob
        .strip_suffix("/**")
        .filter(|d| is_path && !d.is_empty())?;
    // `\\/**` is an escaped backslash then `/**`; `\/**` escapes the `/` itself.
    let trailing_backslashes = dir.bytes().rev().take_while(|&b| b == b'\\').count();
    (trailing_backslashes % 2 == 0).then_some(dir)
}

/// The regex matching what either of two regexes matches.
fn either(a: &str, b: &str) -> String {
    format!("(?:{a})|(?:{b})")
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
    if let Some(dir) = directory_of(glob, is_path) {
        regex = either(&regex, &build(dir)?);
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
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The simple-glob translation writes exactly the regex globset writes, with and
        /// without `literal_separator`; globs it does not handle are left to globset.
        #[test]
        fn globset_agrees_on_simple_globs(
            parts in prop::collection::vec(
                prop::sample::select(vec![
                    "a", "b", "/", "/", "*", "*", "**", "?", ",", ".", "é", "$", "^", "|", "(", "+", "-",
                ]),
                0..12,
            ),
            sep in any::<bool>(),
        ) {
            let glob = parts.concat();
            let ours = simple_regex(&glob, sep).map(|r| with_dot_all(&r));
            prop_assert_eq!(ours, Some(globset_built_regex(&glob, sep).unwrap()));
        }

        /// A split glob's literal then its rest match exactly what its whole regex matches,
        /// for plain and path globs (a path glob split from its normal form, as compiled).
        #[test]
        fn a_split_matches_what_the_whole_regex_matches(
            parts in prop::collection::vec(
                prop::sample::select(vec!["a", "b", "/", "/", "*", "**", "?", ".", "é", "$", "|"]),
                1..10,
            ),
            tails in prop::collection::vec("[ab/.é$|]{0,6}", 1..8),
        ) {
            let glob = parts.concat();
            let Ok(t) = translate(&glob) else { return Ok(()) };
            let text = t.normalized.clone().unwrap_or_else(|| glob.clone());
            let Some(split) = literal_split(&text, t.is_path) else {
                prop_assert!(simple_tokens(&text).is_none_or(|t| !matches!(t.first(), Some(Simple::Literal(_)))));
                return Ok(());
            };
            prop_assert!(!split.prefix.is_empty());
            let whole = regex::bytes::Regex::new(&t.regex).unwrap();
            let rest = regex::bytes::Regex::new(&split.rest).unwrap();
            for tail in &tails {
                for value in [format!("{}{tail}", split.prefix), tail.clone()] {
                    let value = value.as_bytes();
                    let by_split = value.starts_with(split.prefix.as_bytes())
                        && rest.is_match(&value[split.prefix.len()..]);
                    prop_assert_eq!(whole.is_match(value), by_split, "glob {:?} value {:?} split {:?}", glob, value, split);
                }
            }
        }

        #[test]
        fn globs_with_classes_alternations_or_escapes_go_to_globset(
            glob in "[a/*?]{0,5}[\\[\\]{}\\\\][a/*?,\\]}]{0,5}",
        ) {
            prop_assert_eq!(simple_regex(&glob, true), None);
        }
    }

    #[test]
    fn simple_globs_read_stars_as_globset_does() {
        for glob in [
            "",
            "*",
            "**",
            "**/",
            "/**",
            "**/a",
            "a/**",
            "a/**/b",
            "a**",
            "**a",
            "a/**b",
            "/a/**/**",
            "/a/**/**/b",
            "**/**",
            "***",
            "a/***/b",
            "/data/team1/**/*.csv",
            "?/*/**",
            "é*",
        ] {
            for sep in [true, false] {
                assert_eq!(
                    simple_regex(glob, sep).map(|r| with_dot_all(&r)),
                    Some(globset_built_regex(glob, sep).unwrap()),
                    "{glob:?} {sep}"
                );
            }
        }
    }

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
