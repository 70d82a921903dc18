//! Names and strings as policy text: the one place outside the grammar that knows which names
//! the language reads bare, used by everything that writes policy text back (the matrix's
//! decompiler, the gateway's `catalog` and drift help).

/// True when the grammar reads `s` bare as a name: its `ident` rule (grammar/toolgate.pest), an
/// ASCII letter or `_`, then ASCII letters, digits, `_` or `-`. Keywords are contextual, so a
/// keyword such as `tool` or `in` is an identifier too.
///
/// # Example
///
/// ```
/// use toolgate::syntax::is_ident;
/// assert!(is_ident("git_log") && is_ident("_x") && is_ident("read-file") && is_ident("in"));
/// assert!(!is_ident("git.status") && !is_ident("1st") && !is_ident("héllo") && !is_ident(""));
/// ```
pub fn is_ident(s: &str) -> bool {
    let mut bytes = s.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// `s` as a string literal the language reads back as `s`: double quotes, JSON escapes, and
/// every other control character (DEL, U+0080 to U+009F) escaped as `\uXXXX`, since the
/// language refuses them raw. The text is also a valid JSON string and TOML basic string.
///
/// # Example
///
/// ```
/// use toolgate::syntax::quoted;
/// assert_eq!(quoted("git.status"), r#""git.status""#);
/// assert_eq!(quoted("a\"b\n"), r#""a\"b\n""#);
/// assert_eq!(quoted("del\u{7f}"), r#""del\u007f""#);
/// ```
pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `s` as policy text where the grammar expects a name (a server, tool, agent or argument):
/// bare when [`is_ident`] holds, otherwise [`quoted`].
///
/// # Example
///
/// ```
/// use toolgate::syntax::name_text;
/// assert_eq!(name_text("git_log"), "git_log");
/// assert_eq!(name_text("git.status"), r#""git.status""#);
/// assert_eq!(name_text("1st-tool"), r#""1st-tool""#);
/// assert_eq!(name_text("a\"b"), r#""a\"b""#);
/// ```
pub fn name_text(s: &str) -> String {
    if is_ident(s) {
        s.to_string()
    } else {
        quoted(s)
    }
}
