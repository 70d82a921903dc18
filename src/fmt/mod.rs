//! Canonical formatting of `.policy` files, checked by re-parsing.
//!
//! [`format_source`] prints a file in one canonical layout:
//!
//! - one statement per line; blocks (`server`, `agent`, `test`) open on their header line and
//!   close with `}` on a line of its own; their statements are indented by two spaces;
//! - single spaces between tokens, `, ` in lists, `{ key: value }` in test arguments;
//! - columns aligned in runs of consecutive statements of one kind (elastic tab stops):
//!   `needs` after tool declarations, the target and `where` of rules (`deny ` is padded to
//!   the width of `allow`), and agent, tool, arguments and reason of test expectations;
//! - a rule longer than 100 columns is broken before `because`, then before each `and`,
//!   continuation lines aligned under `where`;
//! - at most one blank line where the source had one or more; none at the start of a file,
//!   after a block's opening line or before its closing `}`;
//! - comments are kept: a comment on its own line stays before the statement that follows it,
//!   a trailing comment stays at the end of its statement (trailing comments on consecutive
//!   lines are aligned two spaces after the longest line), and a comment written inside a
//!   statement that spans several lines moves to its own line before the statement.
//!
//! Literals (strings, regexes, numbers, quoted names) are copied as written, so escapes are
//! never re-encoded. The output is parsed again and compared with the input, ignoring
//! positions: a formatting that would change the policy, or lose a comment, is refused
//! ([`FmtError::Unstable`]) rather than written.
//!
//! # Example
//!
//! ```
//! let text = "agent bot{grant fs:read allow   read_file where path matches \"/srv/**\"}\n";
//! let out = toolgate::fmt::format_source("bot.policy", text).unwrap();
//! assert_eq!(out, "agent bot {\n  grant fs:read\n  allow read_file where path matches \"/srv/**\"\n}\n");
//! assert_eq!(toolgate::fmt::format_source("bot.policy", &out).unwrap(), out);
//! ```

use crate::diagnostic::Diagnostics;
use crate::source::{FileId, SourceMap, Span};
use crate::syntax::ast::*;
use crate::syntax::literal::comment_start;
use crate::syntax::parse_file;

mod comments;
mod equivalence;
mod printer;
mod render;
mod test_args;

use comments::*;
pub use equivalence::same_policy;
use printer::*;
use render::*;
use test_args::*;

/// The widest line a rule is kept on before it is broken.
///
/// ```
/// assert!(toolgate::fmt::MAX_WIDTH >= 80);
/// ```
pub const MAX_WIDTH: usize = 100;

/// Why a file was not formatted.
///
/// ```
/// let err = toolgate::fmt::format_source("p.policy", "agent {").unwrap_err();
/// assert!(matches!(err, toolgate::fmt::FmtError::Syntax { .. }));
/// ```
#[derive(Debug, Clone)]
pub enum FmtError {
    /// The file does not parse; nothing is formatted.
    Syntax {
        /// The syntax errors.
        diagnostics: Diagnostics,
        /// The file they point into.
        sources: SourceMap,
    },
    /// The formatted text would not parse to the same policy, or would lose a comment (a bug
    /// in the formatter; the file is left as it is).
    Unstable(String),
}

impl std::fmt::Display for FmtError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FmtError::Syntax {
                diagnostics,
                sources,
            } => {
                write!(f, "{}", diagnostics.render(sources, false, 100))
            }
            FmtError::Unstable(why) => write!(f, "formatting would change the policy: {why}"),
        }
    }
}

impl std::error::Error for FmtError {}

/// Formats one policy file. `name` is used in diagnostics.
///
/// # Errors
///
/// [`FmtError::Syntax`] when the text does not parse, [`FmtError::Unstable`] when the
/// re-parse check fails.
///
/// # Example
///
/// ```
/// let out = toolgate::fmt::format_source("p.policy", "agent a {allow   t}").unwrap();
/// assert_eq!(toolgate::fmt::format_source("p.policy", &out).unwrap(), out); // idempotent
/// assert!(toolgate::fmt::same_policy("agent a {allow   t}", &out));
/// assert!(toolgate::fmt::format_source("p.policy", "agent {").is_err());
/// ```
pub fn format_source(name: &str, text: &str) -> Result<String, FmtError> {
    let (file, diags) = parse_file(FileId(0), text);
    if diags.has_errors() {
        let mut sources = SourceMap::new();
        sources.add(name, text);
        return Err(FmtError::Syntax {
            diagnostics: diags,
            sources,
        });
    }
    let out = Printer::new(text).file(&file);
    let (again, diags) = parse_file(FileId(0), &out);
    if diags.has_errors() {
        return Err(FmtError::Unstable("the output does not parse".into()));
    }
    if file != again {
        return Err(FmtError::Unstable(
            "the output parses to another policy".into(),
        ));
    }
    if comments(text)
        .into_iter()
        .map(|c| c.text)
        .collect::<Vec<_>>()
        != comments(&out)
            .into_iter()
            .map(|c| c.text)
            .collect::<Vec<_>>()
    {
        return Err(FmtError::Unstable(
            "a comment would be lost or reordered".into(),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_arguments_are_normalized() {
        assert_eq!(format_object("{}"), "{}");
        assert_eq!(format_object("{ }"), "{}");
        assert_eq!(
            format_object("{a:1,b:[1,2,],\"c d\":{x:null}}"),
            "{ a: 1, b: [1, 2], \"c d\": { x: null } }"
        );
        assert_eq!(
            format_object("{ a: \"x # y\", # c\n b: 2 }"),
            "{ a: \"x # y\", b: 2 }"
        );
    }

    #[test]
    fn idempotent_on_a_small_policy() {
        let text = "# head\n\n\nserver git {  # the git server\n  tool git_log(repo_path, max_count?) needs fs:read\n  tool git_push(repo_path)   needs net:http, fs:read\n\n\n}\nagent a {\n  grant fs:read # why\n  allow git.git_log where repo_path matches \"/srv/**\" # a\n  deny git.git_push\n}\n";
        let once = format_source("t.policy", text).unwrap();
        let twice = format_source("t.policy", &once).unwrap();
        assert_eq!(once, twice);
        assert!(same_policy(text, &once));
        assert_eq!(
            once,
            "# head\n\nserver git {  # the git server\n  tool git_log(repo_path, max_count?) needs fs:read\n  tool git_push(repo_path)            needs net:http, fs:read\n}\nagent a {\n  grant fs:read                                        # why\n  allow git.git_log where repo_path matches \"/srv/**\"  # a\n  deny  git.git_push\n}\n"
        );
    }
}
