//! Why a command line could not be read: the construct and where it starts.

use std::fmt;

/// A shell construct that makes a value unreadable (for an allow) or that the generous reading
/// cannot see through (for a deny).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Construct {
    /// `;` or `;;`.
    Sequence,
    /// `&&` or `||`.
    AndOr,
    /// `|` or `|&`.
    Pipe,
    /// `&` (a background job).
    Background,
    /// A newline outside quotes.
    Newline,
    /// `<`, `>`, `>>`, `&>`, `2>&1`, ...
    Redirection,
    /// `<<` or `<<-` (the body follows on later lines).
    HereDoc,
    /// `$(...)`.
    CommandSubstitution,
    /// `` `...` ``.
    Backticks,
    /// `$VAR`, `${...}`, `$1`, `$@`, ...
    ParameterExpansion,
    /// `$((...))`.
    Arithmetic,
    /// `$'...'` or `$"..."`.
    DollarQuote,
    /// `<(...)` or `>(...)`.
    ProcessSubstitution,
    /// `(...)` or an unmatched `)`.
    Subshell,
    /// An unquoted `*`, `?` or `[`.
    Glob,
    /// `{a,b}` or `{1..9}`.
    BraceExpansion,
    /// `~` at the start of a word or after `=`/`:`.
    Tilde,
    /// `NAME=value` before the command.
    Assignment,
    /// `#` at the start of a word.
    Comment,
    /// A reserved word (`if`, `for`, `{`, `!`, `case`, `[[`, ...) where a command starts.
    ReservedWord,
    /// A quote with no closing quote.
    UnbalancedQuote,
    /// A backslash at the very end.
    DanglingEscape,
    /// A control character (NUL, CR, ESC, DEL, C1 controls, ...).
    ControlCharacter,
    /// An invisible or look-alike character (zero-width, bidi override, non-breaking or other
    /// Unicode space).
    InvisibleCharacter,
    /// Nothing but blanks.
    Empty,
    /// Nesting deeper than the parser follows.
    TooDeep,
    /// A program whose name is known only at run time (`$cmd`, `"$(which rm)"`).
    DynamicProgram,
    /// A program that runs code the value does not show as shell words (`python -c`, `node -e`,
    /// `git -c`, a shell reading its standard input, ...).
    OpaqueProgram,
    /// A wrapper whose inner command cannot be located (a run-time word among its options).
    DynamicWrapper,
    /// A variable that loads code (`LD_PRELOAD`, `BASH_ENV`, `NODE_OPTIONS`, ...) set for a
    /// command, or one that names a program set to a value known only at run time.
    ProgramVariable,
}

impl Construct {
    /// A short description, lowercase.
    pub fn describe(self) -> &'static str {
        match self {
            Construct::Sequence => "a command separator `;`",
            Construct::AndOr => "a conditional chain `&&`/`||`",
            Construct::Pipe => "a pipe `|`",
            Construct::Background => "a background job `&`",
            Construct::Newline => "a newline",
            Construct::Redirection => "a redirection",
            Construct::HereDoc => "a here-document",
            Construct::CommandSubstitution => "a command substitution `$(...)`",
            Construct::Backticks => "a command substitution in backticks",
            Construct::ParameterExpansion => "a parameter expansion `$...`",
            Construct::Arithmetic => "an arithmetic expansion `$((...))`",
            Construct::DollarQuote => "a `$'...'` or `$\"...\"` string",
            Construct::ProcessSubstitution => "a process substitution",
            Construct::Subshell => "a subshell `(...)`",
            Construct::Glob => "an unquoted glob character",
            Construct::BraceExpansion => "a brace expansion",
            Construct::Tilde => "a tilde expansion `~`",
            Construct::Assignment => "a variable assignment before the command",
            Construct::Comment => "a comment",
            Construct::ReservedWord => "a reserved word (compound command)",
            Construct::UnbalancedQuote => "an unbalanced quote",
            Construct::DanglingEscape => "a backslash at the end",
            Construct::ControlCharacter => "a control character",
            Construct::InvisibleCharacter => "an invisible or look-alike space character",
            Construct::Empty => "an empty command",
            Construct::TooDeep => "nesting too deep to follow",
            Construct::DynamicProgram => "a program name known only at run time",
            Construct::OpaqueProgram => "a program that runs code not written as shell words",
            Construct::DynamicWrapper => "a wrapper whose inner command is known only at run time",
            Construct::ProgramVariable => "a variable that loads code or names a program",
        }
    }
}

/// A value that is not provably what the matcher needs: the construct and its byte offset in
/// the value (for a construct inside a nested script, the offset of the word that holds it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unreadable {
    /// What was found.
    pub construct: Construct,
    /// Byte offset into the value.
    pub offset: usize,
}

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.construct.describe(), self.offset)
    }
}

impl std::error::Error for Unreadable {}
