//! Syntax errors in the user's words: pest's expected-rule sets become phrases such as
//! "expected a condition after `and`", pointing at the token the parser stopped after.

use super::parser::Rule;
use crate::diagnostic::{code, Diagnostic};
use crate::source::{FileId, Span};

/// Byte offsets of lines that start (in column 0) with a top-level keyword: the places where
/// the parser resumes after a syntax error.
pub fn resync_points(text: &str) -> Vec<usize> {
    let mut points = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        for kw in ["server", "tool", "agent", "test"] {
            if let Some(rest) = line.strip_prefix(kw) {
                if rest.starts_with([' ', '\t', '"']) {
                    points.push(offset);
                    break;
                }
            }
        }
        offset += line.len();
    }
    points
}

/// Builds the diagnostic for a pest error at absolute byte offset `pos` in `text`.
pub fn friendly_parse_error(
    file: FileId,
    text: &str,
    pos: usize,
    err: &pest::error::Error<Rule>,
) -> Diagnostic {
    let positives: Vec<Rule> = match &err.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } => positives.clone(),
        pest::error::ErrorVariant::CustomError { .. } => Vec::new(),
    };
    let mut wanted: Vec<&'static str> = Vec::new();
    for r in &positives {
        let w = describe(*r);
        if !wanted.contains(&w) {
            wanted.push(w);
        }
    }
    let found = found_token(text, pos);
    let prev = previous_token(text, pos);
    if let Some(phrase) = prev.and_then(|(s, e)| context_phrase(&text[s..e], &positives)) {
        wanted.retain(|w| w.starts_with('`') && *w != "`?`");
        wanted.insert(0, phrase);
    }
    let expected = join_or(&wanted);
    let (message, span, label) = match (&prev, expected.is_empty()) {
        (Some((ps, pe)), false) => (
            format!("expected {expected} after `{}`", &text[*ps..*pe]),
            Span::new(file, *ps, *pe),
            format!("expected {expected} after this"),
        ),
        (None, false) => (
            format!("expected {expected}"),
            Span::new(file, pos, (pos + found.1).min(text.len())),
            format!("found {}", found.0),
        ),
        (_, true) => (
            format!("unexpected {}", found.0),
            Span::new(file, pos, (pos + found.1).min(text.len())),
            "not expected here".to_string(),
        ),
    };
    let at_eof = pos >= text.trim_end().len();
    let (message, label) = if at_eof && positives.contains(&Rule::rbrace) {
        (
            "the file ends inside a block: a `{` is not closed".to_string(),
            format!("expected {expected} after this"),
        )
    } else {
        (message, label)
    };
    let mut d = Diagnostic::new(&code::SYNTAX, span, message).with_label(label);
    if prev.is_some() && !expected.is_empty() {
        d = d.with_related(
            Span::new(file, pos, (pos + found.1).min(text.len())),
            format!("found {}", found.0),
        );
    }
    let help = match prev.map(|(s, e)| &text[s..e]) {
        _ if at_eof && positives.contains(&Rule::rbrace) => {
            "close every `server`, `agent` and `test` block with `}`".to_string()
        }
        Some("where" | "and") => help_for(&[Rule::condition]),
        Some("matches" | "contains" | "in") => help_for(&[Rule::present]),
        Some("grant" | "needs") => help_for(&[Rule::permission]),
        Some("allow" | "deny") if positives.contains(&Rule::target) => help_for(&[Rule::target]),
        _ => help_for(&positives),
    };
    d.with_help(help)
}

fn join_or(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}

/// The token at `pos`, described, and its length in bytes.
fn found_token(text: &str, pos: usize) -> (String, usize) {
    let rest = text.get(pos..).unwrap_or("");
    let Some(c) = rest.chars().next() else {
        return ("the end of the file".into(), 0);
    };
    if c.is_alphanumeric() || c == '_' {
        let len: usize = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
            .map(char::len_utf8)
            .sum();
        (format!("`{}`", &rest[..len]), len)
    } else if c == '\n' {
        ("the end of the line".into(), 1)
    } else {
        (format!("`{c}`"), c.len_utf8())
    }
}

/// The span of the last token before `pos` (whitespace skipped), if any.
fn previous_token(text: &str, pos: usize) -> Option<(usize, usize)> {
    let before = text.get(..pos)?;
    let trimmed = before.trim_end();
    let end = trimmed.len();
    if end == 0 {
        return None;
    }
    let last = trimmed.chars().next_back()?;
    let is_word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '*' | ':' | '?');
    let start = if last == '"' {
        // A string literal: find its opening quote on the same line.
        let line_start = trimmed.rfind('\n').map_or(0, |i| i + 1);
        let line = &trimmed[line_start..end - 1];
        let bytes = line.as_bytes();
        // The last `"` not escaped by a backslash before it.
        let open = (0..bytes.len())
            .rev()
            .find(|&i| bytes.get(i) == Some(&b'"') && (i == 0 || bytes.get(i - 1) != Some(&b'\\')));
        match open {
            Some(i) => {
                let s = line_start + i;
                if s >= 2 && trimmed.get(s - 2..s) == Some("re") {
                    s - 2
                } else {
                    s
                }
            }
            None => end - 1,
        }
    } else if is_word(last) {
        trimmed
            .char_indices()
            .rev()
            .take_while(|(_, c)| is_word(*c))
            .last()
            .map_or(end, |(i, _)| i)
    } else {
        end - last.len_utf8()
    };
    Some((start, end))
}

/// What must follow a keyword, when the keyword says more than pest's expected set.
fn context_phrase(prev: &str, positives: &[Rule]) -> Option<&'static str> {
    let wants = |r: Rule| positives.contains(&r);
    Some(match prev {
        "where" | "and" if wants(Rule::name) || wants(Rule::arg_path) || wants(Rule::condition) => {
            "a condition (such as `path matches \"/tmp/**\"`)"
        }
        "matches" => "a glob string or a regex `re\"...\"`",
        "because" => "a message string",
        "contains" => "a string or `any [...]`",
        "in" if wants(Rule::string_list) || wants(Rule::lbracket) => {
            "a list of strings such as `[\"a\", \"b\"]`"
        }
        "grant" | "needs" => "a permission such as `fs:read`",
        "default" => "`allow` or `deny`",
        "allow" | "deny"
            if wants(Rule::target) || wants(Rule::target_part) || wants(Rule::glob_word) =>
        {
            "a rule target (`tool`, `server.tool` or a glob)"
        }
        "server" | "agent" | "tool" if wants(Rule::name) => "a name",
        _ => return None,
    })
}

/// A phrase for what a grammar rule stands for.
fn describe(r: Rule) -> &'static str {
    use Rule as R;
    match r {
        R::EOI | R::server | R::tool_decl | R::agent | R::test_block => {
            "a declaration (`server`, `tool`, `agent` or `test`)"
        }
        R::kw_server => "`server`",
        R::kw_tool => "`tool`",
        R::kw_needs | R::needs | R::test_needs => "`needs`",
        R::kw_agent => "`agent`",
        R::kw_grant | R::grant => "`grant`",
        R::kw_default | R::default_stmt => "`default`",
        R::kw_allow | R::kw_deny | R::effect => "`allow` or `deny`",
        R::rule => "a rule",
        R::kw_where | R::where_clause => "`where`",
        R::kw_and => "`and`",
        R::kw_because | R::because => "`because`",
        R::kw_test => "`test`",
        R::name | R::ident => "a name",
        R::string | R::string_body => "a string",
        R::regex | R::regex_body => "a regex",
        R::shell_pattern | R::kw_shell => "a shell pattern such as `shell \"git log ...\"`",
        R::number => "a number",
        R::permission => "a permission such as `fs:read`",
        R::params | R::param => "an argument list",
        R::optional => "`?`",
        R::target | R::target_part | R::glob_word => {
            "a rule target (`tool`, `server.tool` or a glob)"
        }
        R::condition | R::arg_path => "a condition",
        R::present
        | R::kw_present
        | R::str_eq
        | R::str_ne
        | R::num_cmp
        | R::cmp_op
        | R::in_list
        | R::kw_in
        | R::matches
        | R::kw_matches
        | R::contains
        | R::contains_any
        | R::kw_contains => "an operator (`==`, `!=`, `<`, `in`, `matches`, `contains`, `present`)",
        R::kw_any => "`any`",
        R::string_list => "a list of strings such as `[\"a\", \"b\"]`",
        R::expectation => "an expectation (`allow AGENT TOOL { ... }`)",
        R::test_tool => "a tool name",
        R::reason => "a reason",
        R::object => "the call's arguments in braces, such as `{ path: \"/tmp\" }`",
        R::pair => "a `key: value` pair",
        R::array | R::value | R::kw_true | R::kw_false | R::kw_null => "a value",
        R::policy | R::item | R::agent_stmt | R::operator => "more input",
        R::WHITESPACE | R::comment_body => "more input",
        R::lbrace => "`{`",
        R::rbrace => "`}`",
        R::lparen => "`(`",
        R::rparen => "`)`",
        R::lbracket => "`[`",
        R::rbracket => "`]`",
        R::comma => "`,`",
        R::colon => "`:`",
        R::langle => "`<`",
        R::rangle => "`>`",
        R::arg_type | R::type_word => {
            "a type (`string`, `number`, `integer`, `boolean`, `path`, `array<T>`, `object`, `any`)"
        }
    }
}

fn help_for(positives: &[Rule]) -> String {
    use Rule as R;
    let has = |r: Rule| positives.contains(&r);
    if has(R::condition) || has(R::arg_path) {
        "a condition names an argument and a test, e.g. `path matches \"/tmp/**\"` or `timeout <= 600`".into()
    } else if has(R::present) || has(R::str_eq) || has(R::matches) {
        "operators: `== \"s\"`, `!= \"s\"`, `in [..]`, `matches \"glob\"`, `matches re\"regex\"`, `contains \"s\"`, `contains any [..]`, `< N`, `<= N`, `> N`, `>= N`, `present`".into()
    } else if has(R::target) || has(R::target_part) {
        "a rule names its target: `git.git_log`, `Bash`, `git.*`, `git_*` or `*`".into()
    } else if has(R::permission) {
        "permissions are written `domain:action`, `domain:*` or `*`".into()
    } else if has(R::effect) || has(R::kw_allow) || has(R::rule) || has(R::grant) {
        "an agent holds `grant`, `default allow|deny`, `allow` and `deny` statements; close it with `}`".into()
    } else if has(R::object) {
        "a test expectation reads `allow AGENT TOOL { arg: \"value\" } [REASON]`".into()
    } else if has(R::EOI) || has(R::agent) {
        "a policy is a list of `server`, `tool`, `agent` and `test` declarations".into()
    } else {
        "see docs/language.md for the syntax".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resync_points_are_column_zero_keywords() {
        let text = "agent a {\n  tool x\n}\ntool y\nserver s {}\ntesting\n";
        let pts = resync_points(text);
        assert_eq!(pts, vec![0, 21, 28]);
    }

    #[test]
    fn previous_token_finds_words_and_strings() {
        let t = "allow git.git_log where\n}";
        let (s, e) = previous_token(t, t.len() - 1).unwrap();
        assert_eq!(&t[s..e], "where");
        let t = "x matches re\"a b\" and";
        let (s, e) = previous_token(t, 17).unwrap();
        assert_eq!(&t[s..e], "re\"a b\"");
    }
}
