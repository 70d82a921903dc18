//! The shell grammar, hand-written: a POSIX command line (quotes, backslash escapes,
//! `\`-newline continuations) read in one left-to-right pass.
//!
//! - [`strict`] succeeds only when the value is provably one simple command of known words.
//! - [`generous`] yields every simple command it can see (both sides of `&&`/`||`/`;`, each
//!   stage of a pipe, inside `$(...)`, backticks and process substitutions, through wrapper
//!   programs and into `sh -c` strings) and says whether anything it could not read was present.
//!
//! Every byte is looked at a bounded number of times per nesting level and nesting is bounded by
//! [`MAX_DEPTH`], so both run in linear time; neither panics.

use super::unreadable::{Construct, Unreadable};
use super::variables::{classify, split_assignment, Variable};
use super::words::{Command, CommandView, Word, WordKind};
use super::wrappers::{self, Runs, Wrapper};

/// How deep `$(...)`, `(...)`, backticks, `sh -c` strings and wrapper chains are followed.
pub const MAX_DEPTH: u32 = 16;

/// Reserved words that start a compound command (strict mode refuses them where a command
/// starts; `time` is read as a program there, and as the keyword by the generous reading).
const RESERVED: &[&str] = &[
    "!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while",
    "until", "for", "in", "select", "function", "coproc", "[[", "]]",
];

/// What the generous reading of a value found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Generous {
    /// Every simple command seen, outer ones before the commands they run.
    pub commands: Vec<Command>,
    /// The first construct that could not be read, if any: a deny must then fire.
    pub unreadable: Option<Unreadable>,
}

/// Reads `value` as exactly one simple command of known words (for an allow).
pub fn strict(value: &str) -> Result<Command, Unreadable> {
    let mut cmd = Command::new();
    strict_into(value, &mut cmd, &mut Buffers::new())?;
    Ok(cmd)
}

/// [`strict`] into `cmd` (cleared first), reusing its buffers.
/// (`buffers` is only lent to the parser: a strict reading sees no command there.)
pub(crate) fn strict_into(
    value: &str,
    cmd: &mut Command,
    buffers: &mut Buffers,
) -> Result<(), Unreadable> {
    cmd.clear();
    cmd.reserve(value.len(), 16);
    let mut sink = NoSink;
    let mut p = Parser::new(value, Mode::Strict, 0, None, buffers, &mut sink);
    p.strict_command(cmd)
}

/// Reads every simple command `value` shows (for a deny).
pub fn generous(value: &str) -> Generous {
    let mut commands = Vec::new();
    let result = generous_into(value, &mut Buffers::new(), &mut |cmd: CommandView<'_>| {
        commands.push(cmd.to_command())
    });
    Generous {
        commands,
        unreadable: result.err(),
    }
}

/// [`generous`] with `buffers` reused: every simple command is given to `sink` as soon as it is
/// read (outer ones before the commands they run); the result says whether anything was
/// unreadable (the reading stops there).
pub(crate) fn generous_into(
    value: &str,
    buffers: &mut Buffers,
    sink: &mut impl Sink,
) -> Result<(), Unreadable> {
    let mut p = Parser::new(value, Mode::Generous, 0, None, buffers, sink);
    p.list(Stop::End)
}

/// What receives the simple commands a generous reading sees, one at a time.
pub(crate) trait Sink {
    /// One simple command (borrowed until the call returns).
    fn command(&mut self, cmd: CommandView<'_>);

    /// [`Sink::command`] for a command whose program is the known word whose last path
    /// component is `base`; returns the wrapper named `base`, if any.
    #[inline]
    fn command_named(&mut self, cmd: CommandView<'_>, base: &str) -> Option<&'static Wrapper> {
        self.command(cmd);
        wrappers::find_base(base)
    }

    /// Whether the sink needs the commands whose program's last path component is `base`
    /// (false: it would do nothing with any of them, so the reading need not keep their words).
    fn wants(&self, base: &str) -> bool {
        let _ = base;
        true
    }

    /// Whether the words of a command whose program's last path component is `base` must be
    /// kept: its program runs other programs, or the sink wants it.
    #[inline]
    fn keeps(&self, base: &str) -> bool {
        wrappers::find_base(base).is_some() || self.wants(base)
    }
}

/// A sink that keeps every command.
impl<F: FnMut(CommandView<'_>)> Sink for F {
    fn command(&mut self, cmd: CommandView<'_>) {
        self(cmd)
    }
}

/// The sink of a strict reading, which sends no command.
struct NoSink;

impl Sink for NoSink {
    fn command(&mut self, _: CommandView<'_>) {}
}

/// Buffers kept from one reading to the next: a reading that reuses them allocates only when
/// it needs more room than any before it.
#[derive(Debug, Default)]
pub(crate) struct Buffers {
    /// Cleared commands for a list being read or a command made from a wrapper's words.
    spare: Vec<Command>,
    /// Cleared vectors for what wrappers run.
    inner: Vec<Vec<Runs>>,
}

impl Buffers {
    /// Empty buffers.
    pub(crate) const fn new() -> Self {
        Buffers {
            spare: Vec::new(),
            inner: Vec::new(),
        }
    }

    fn spare(&mut self) -> Command {
        self.spare.pop().unwrap_or_default()
    }

    fn give_back(&mut self, mut cmd: Command) {
        cmd.clear();
        self.spare.push(cmd);
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Strict,
    Generous,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stop {
    End,
    Paren,
}

type R<T> = Result<T, Unreadable>;

struct Parser<'s, 'o, S: Sink + ?Sized> {
    src: &'s str,
    b: &'s [u8],
    pos: usize,
    mode: Mode,
    depth: u32,
    /// For a nested script: the offset in the top-level value every error reports.
    base: Option<usize>,
    out: &'o mut Buffers,
    /// Where every simple command read goes.
    sink: &'o mut S,
    /// `[` lookahead cache for the current word: a `]` at this position (or none before it).
    bracket: Option<(usize, bool)>,
}

/// Bytes that mean nothing to the shell anywhere in a word (ASCII letters, digits, `-_/@%+^!`).
#[allow(
    clippy::indexing_slicing,
    reason = "indices below 128 and byte values in a 256-entry table"
)]
const PLAIN: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'_' | b'/' | b'@' | b'%' | b'+' | b'^' | b'!');
        c += 1;
    }
    t
};

/// [`PLAIN`] and the bytes that mean something only inside a brace or before a tilde
/// (`.,=:`).
#[allow(clippy::indexing_slicing, reason = "byte values in a 256-entry table")]
const PLAIN_UNBRACED: [bool; 256] = {
    let mut t = PLAIN;
    t[b'.' as usize] = true;
    t[b',' as usize] = true;
    t[b'=' as usize] = true;
    t[b':' as usize] = true;
    t
};

/// Bytes a skipped word (one whose text is not kept) can hold without anything to read in them,
/// and the blanks between such words: printable ASCII but quotes, `\`, `$`, backticks, `#` and
/// operators, plus space and tab. (Glob, brace and tilde characters only change what is known
/// of a word's value, and that value is dropped.)
#[allow(
    clippy::indexing_slicing,
    reason = "indices below 128 and byte values in a 256-entry table"
)]
const SKIPPABLE: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0x21;
    while c < 0x7f {
        let b = c as u8;
        t[c] = !matches!(
            b,
            b'"' | b'#'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b';'
                | b'<'
                | b'>'
                | b'\\'
                | b'`'
                | b'|'
        );
        c += 1;
    }
    t[b' ' as usize] = true;
    t[b'\t' as usize] = true;
    t
};

/// Whether byte `c` is in the byte table `table`.
fn in_table(table: &[bool; 256], c: u8) -> bool {
    table.get(usize::from(c)).copied().unwrap_or(false)
}

/// The length of the run of bytes in `table` that `bytes` starts with (four at a time while
/// they all are).
fn run_of(bytes: &[u8], table: &[bool; 256]) -> usize {
    let mut len = 0;
    for chunk in bytes.chunks_exact(4) {
        let all = chunk.iter().fold(true, |all, &c| all & in_table(table, c));
        if !all {
            break;
        }
        len += 4;
    }
    let rest = bytes.get(len..).unwrap_or(&[]);
    len + rest
        .iter()
        .position(|&c| !in_table(table, c))
        .unwrap_or(rest.len())
}

/// Bytes that stand for themselves inside double quotes (ASCII, not a control character, not
/// `"`, `\`, `$` or a backtick).
#[allow(
    clippy::indexing_slicing,
    reason = "indices below 128 and byte values in a 256-entry table"
)]
const QUOTED_PLAIN: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        t[c] = !is_control(b);
        c += 1;
    }
    t[b'"' as usize] = false;
    t[b'\\' as usize] = false;
    t[b'$' as usize] = false;
    t[b'`' as usize] = false;
    t
};

fn is_meta(c: u8) -> bool {
    matches!(
        c,
        b' ' | b'\t' | b'\n' | b'|' | b'&' | b';' | b'(' | b')' | b'<' | b'>'
    )
}

const fn is_control(c: u8) -> bool {
    (c < 0x20 && c != b'\t' && c != b'\n') || c == 0x7f
}

/// Characters that look like nothing or like a space but are not shell blanks.
fn is_invisible(c: char) -> bool {
    matches!(c as u32,
        0x80..=0xA0 | 0xAD | 0x34F | 0x61C | 0x115F | 0x1160 | 0x1680 | 0x17B4 | 0x17B5 | 0x180B..=0x180E
        | 0x2000..=0x200F | 0x2028..=0x202F | 0x205F..=0x206F | 0x3000 | 0x3164 | 0xFE00..=0xFE0F
        | 0xFEFF | 0xFFA0 | 0xFFF9..=0xFFFB | 0x1D173..=0x1D17A | 0xE0000..=0xE0FFF)
}

/// Whether `raw` is a reserved word the generous reading treats apart where a command starts.
#[inline(always)]
fn starts_compound(raw: &[u8]) -> bool {
    matches!(
        raw,
        b"!" | b"{"
            | b"}"
            | b"if"
            | b"then"
            | b"else"
            | b"elif"
            | b"fi"
            | b"do"
            | b"done"
            | b"while"
            | b"until"
            | b"esac"
            | b"in"
            | b"for"
            | b"select"
            | b"function"
            | b"case"
            | b"coproc"
            | b"[["
            | b"]]"
            | b"time"
    )
}

/// `NAME=` or `NAME+=` at the start of a raw (unquoted) word.
pub(crate) fn is_assignment(raw: &[u8]) -> bool {
    let Some(&first) = raw.first() else {
        return false;
    };
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return false;
    }
    let name = raw
        .iter()
        .position(|&c| !in_table(&NAME, c))
        .unwrap_or(raw.len());
    matches!(
        raw.get(name..).unwrap_or(&[]),
        [b'=', ..] | [b'+', b'=', ..]
    )
}

/// Bytes of a variable name (ASCII letters, digits, `_`).
#[allow(
    clippy::indexing_slicing,
    reason = "indices below 128 in a 256-entry table"
)]
const NAME: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'_';
        c += 1;
    }
    t
};

fn max_kind(a: WordKind, b: WordKind) -> WordKind {
    fn rank(k: WordKind) -> u8 {
        match k {
            WordKind::Literal => 0,
            WordKind::Unknown => 1,
            WordKind::UnknownFields => 2,
        }
    }
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

impl<'s, 'o, S: Sink + ?Sized> Parser<'s, 'o, S> {
    fn new(
        src: &'s str,
        mode: Mode,
        depth: u32,
        base: Option<usize>,
        out: &'o mut Buffers,
        sink: &'o mut S,
    ) -> Self {
        Parser {
            src,
            b: src.as_bytes(),
            pos: 0,
            mode,
            depth,
            base,
            out,
            sink,
            bracket: None,
        }
    }

    fn err<T>(&self, construct: Construct, at: usize) -> R<T> {
        Err(Unreadable {
            construct,
            offset: self.base.unwrap_or(at),
        })
    }

    /// In strict mode, `construct` at the current position makes the value unreadable.
    fn strict_refuses(&self, construct: Construct) -> R<()> {
        if self.mode == Mode::Strict {
            return self.err(construct, self.pos);
        }
        Ok(())
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.b.get(self.pos + ahead).copied()
    }

    fn skip_blanks(&mut self) {
        loop {
            match self.peek(0) {
                Some(b' ' | b'\t') => self.pos += 1,
                Some(b'\\') if self.peek(1) == Some(b'\n') => self.pos += 2,
                _ => return,
            }
        }
    }

    // ---- strict -------------------------------------------------------------------------

    fn strict_command(&mut self, cmd: &mut Command) -> R<()> {
        loop {
            self.skip_blanks();
            let Some(c) = self.peek(0) else { break };
            let at = self.pos;
            match c {
                b'\n' => return self.err(Construct::Newline, at),
                b';' => return self.err(Construct::Sequence, at),
                b'&' => {
                    return match self.peek(1) {
                        Some(b'&') => self.err(Construct::AndOr, at),
                        Some(b'>') => self.err(Construct::Redirection, at),
                        _ => self.err(Construct::Background, at),
                    }
                }
                b'|' => {
                    return match self.peek(1) {
                        Some(b'|') => self.err(Construct::AndOr, at),
                        _ => self.err(Construct::Pipe, at),
                    }
                }
                b'(' | b')' => return self.err(Construct::Subshell, at),
                b'<' | b'>' => {
                    return match self.peek(1) {
                        Some(b'(') => self.err(Construct::ProcessSubstitution, at),
                        Some(b'<') if c == b'<' && self.peek(2) != Some(b'<') => {
                            self.err(Construct::HereDoc, at)
                        }
                        _ => self.err(Construct::Redirection, at),
                    }
                }
                b'#' => return self.err(Construct::Comment, at),
                _ if !cmd.is_empty() && self.plain_words(cmd) => {}
                _ => {
                    let mark = cmd.buffer().len();
                    let kind = match self.plain_word() {
                        Some(text) => {
                            cmd.buffer().push_str(text);
                            WordKind::Literal
                        }
                        None => self.word(cmd.buffer())?,
                    };
                    if cmd.is_empty() {
                        let raw = self.b.get(at..self.pos).unwrap_or(&[]);
                        if is_assignment(raw) {
                            return self.err(Construct::Assignment, at);
                        }
                        if RESERVED.iter().any(|r| r.as_bytes() == raw) {
                            return self.err(Construct::ReservedWord, at);
                        }
                    }
                    cmd.end_word(mark, kind);
                }
            }
        }
        if cmd.is_empty() {
            return self.err(Construct::Empty, self.pos);
        }
        Ok(())
    }

    // ---- generous -----------------------------------------------------------------------

    fn list(&mut self, stop: Stop) -> R<()> {
        let mut cmd = self.out.spare();
        let r = self.list_into(stop, &mut cmd);
        self.out.give_back(cmd);
        r
    }

    /// [`Parser::list`] with `cmd` as the buffer of the command being read.
    fn list_into(&mut self, stop: Stop, cmd: &mut Command) -> R<()> {
        let open = self.pos;
        // Words that are not a command: a `for`/`select` header, the name after `function`.
        let mut skip_header = false;
        let mut skip_one = false;
        // After the keyword `time`: its options (`-p`, `--`) before the pipeline it times.
        let mut time_opts = false;
        // The command's program is known and neither runs other programs nor interests the
        // sink: its other words are read (they may hold substitutions) but not kept.
        let mut skip_rest = false;
        loop {
            self.skip_blanks();
            let Some(c) = self.peek(0) else {
                if stop == Stop::Paren {
                    return self.err(Construct::Subshell, open);
                }
                break;
            };
            match c {
                b'&' if self.peek(1) == Some(b'>') => self.redirection(cmd)?,
                b'\n' | b';' | b'&' | b'|' => {
                    self.pos += 1;
                    // `&&` and `||` at once (not `&` before `&>`, a redirection).
                    if matches!(c, b'&' | b'|')
                        && self.peek(0) == Some(c)
                        && self.peek(1) != Some(b'>')
                    {
                        self.pos += 1;
                    }
                    self.finish(cmd, std::mem::take(&mut skip_rest))?;
                    skip_header = false;
                    time_opts = false;
                }
                b'(' => {
                    self.finish(cmd, std::mem::take(&mut skip_rest))?;
                    self.pos += 1;
                    self.nested_list()?;
                }
                b')' => {
                    if stop == Stop::Paren {
                        self.pos += 1;
                        return self.finish(cmd, skip_rest);
                    }
                    return self.err(Construct::Subshell, self.pos);
                }
                b'<' | b'>' if self.peek(1) == Some(b'(') => {
                    self.pos += 2;
                    self.nested_list()?;
                    if !skip_header && !skip_rest {
                        cmd.push("", WordKind::Unknown);
                    }
                }
                b'<' | b'>' => self.redirection(cmd)?,
                b'#' => {
                    while let Some(c) = self.peek(0) {
                        if c == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                _ if skip_rest => self.skip_words(cmd)?,
                // A plain program word, the commonest.
                _ if cmd.is_empty()
                    && !skip_header
                    && !skip_one
                    && !time_opts
                    && self.plain_program(cmd, &mut skip_rest) => {}
                // Arguments made of plain bytes, as many as follow one another.
                _ if !cmd.is_empty() && !skip_header && !skip_one && self.plain_words(cmd) => {}
                _ => {
                    let start = self.pos;
                    let mark = cmd.buffer().len();
                    let kind = match self.plain_word() {
                        Some(text) => {
                            cmd.buffer().push_str(text);
                            WordKind::Literal
                        }
                        None => self.word(cmd.buffer())?,
                    };
                    // Most words: one after the program, outside a header, not a file
                    // descriptor number (`2>/dev/null`).
                    let argument = !cmd.is_empty()
                        && !skip_header
                        && !skip_one
                        && !matches!(self.peek(0), Some(b'<' | b'>'));
                    if argument {
                        cmd.end_word(mark, kind);
                        continue;
                    }
                    let raw = self.b.get(start..self.pos).unwrap_or(&[]);
                    let fd = matches!(self.peek(0), Some(b'<' | b'>'))
                        && raw.iter().all(u8::is_ascii_digit);
                    // A file descriptor number (`2>/dev/null`), a header word, an assignment
                    // or a reserved word is not a word of the command.
                    let keep = !fd && !skip_header && !std::mem::take(&mut skip_one);
                    let assigns = keep && cmd.is_empty() && is_assignment(raw);
                    if assigns {
                        let r =
                            self.assignment(cmd.buffer().get(mark..).unwrap_or(""), kind, start);
                        cmd.discard_from(mark);
                        r?;
                        continue;
                    }
                    if keep && cmd.is_empty() && time_opts && raw.first() == Some(&b'-') {
                        cmd.discard_from(mark);
                        continue;
                    }
                    time_opts = false;
                    if !keep {
                        cmd.discard_from(mark);
                        continue;
                    }
                    if cmd.is_empty() {
                        let reserved = match raw {
                            b"!" | b"{" | b"}" | b"if" | b"then" | b"else" | b"elif" | b"fi"
                            | b"do" | b"done" | b"while" | b"until" | b"esac" | b"in" => true,
                            b"for" | b"select" => {
                                skip_header = true;
                                true
                            }
                            b"function" => {
                                skip_one = true;
                                true
                            }
                            // The keyword: what follows is the pipeline it times, which
                            // may begin with options, `!` or a compound command.
                            b"time" => {
                                time_opts = true;
                                true
                            }
                            b"case" | b"coproc" | b"[[" | b"]]" => {
                                return self.err(Construct::ReservedWord, start)
                            }
                            _ => false,
                        };
                        if reserved {
                            cmd.discard_from(mark);
                            continue;
                        }
                    }
                    cmd.end_word(mark, kind);
                    if cmd.len() == 1 {
                        if let Some(Word::Literal(program)) = cmd.get(0) {
                            skip_rest = !self.sink.keeps(wrappers::basename(program));
                        }
                    }
                }
            }
        }
        self.finish(cmd, skip_rest)
    }

    /// An assignment before a command's program (`word`: its text, quoting removed): a
    /// variable that names a program runs its value as a script; one that loads code, or
    /// names a program with a value known only at run time, makes the value unreadable.
    fn assignment(&mut self, word: &str, kind: WordKind, at: usize) -> R<()> {
        let Some((name, value)) = split_assignment(word) else {
            return Ok(());
        };
        match classify(name) {
            None => Ok(()),
            Some(Variable::Command) if kind == WordKind::Literal => {
                let value = value.to_owned();
                self.script(&value, at)
            }
            Some(_) => self.err(Construct::ProgramVariable, at),
        }
    }

    /// At a command's first word: when it is plain ([`PLAIN_UNBRACED`] bytes only, ended by a
    /// blank, the end of the value or an operator other than `<`/`>`) and neither an
    /// assignment nor a reserved word, reads it as the program and sets `skip_rest` to whether
    /// the command's words need not be kept (then the program is recorded as an empty word:
    /// only the command's having one matters). False (and nothing read) for any other word.
    #[inline(always)]
    fn plain_program(&mut self, cmd: &mut Command, skip_rest: &mut bool) -> bool {
        let rest = self.b.get(self.pos..).unwrap_or(&[]);
        let len = run_of(rest, &PLAIN_UNBRACED);
        let ended = matches!(
            rest.get(len),
            None | Some(b' ' | b'\t' | b'\n' | b'|' | b'&' | b';' | b'(' | b')')
        );
        let raw = rest.get(..len).unwrap_or(&[]);
        if len == 0 || !ended || is_assignment(raw) || starts_compound(raw) {
            return false;
        }
        let Some(text) = self.src.get(self.pos..self.pos + len) else {
            return false;
        };
        self.pos += len;
        self.bracket = None;
        let keep = self.sink.keeps(wrappers::basename(text));
        cmd.push(if keep { text } else { "" }, WordKind::Literal);
        *skip_rest = !keep;
        true
    }

    /// Reads past the words of a command whose words are not kept, from a word start: a run of
    /// [`SKIPPABLE`] bytes at once, then (when something else ends it inside a word) that word
    /// from its start, as [`Parser::skip_word`] does.
    #[inline(always)]
    fn skip_words(&mut self, cmd: &mut Command) -> R<()> {
        let rest = self.b.get(self.pos..).unwrap_or(&[]);
        let len = run_of(rest, &SKIPPABLE);
        // Ended by the end of the value or an operator: every word of the run is complete.
        if rest.get(len).is_none_or(|&c| is_meta(c)) {
            self.pos += len;
            self.bracket = None;
            return Ok(());
        }
        // Else the last word of the run goes on: read from its start.
        let run = rest.get(..len).unwrap_or(&[]);
        match run.iter().rposition(|&c| c == b' ' || c == b'\t') {
            Some(blank) => {
                self.pos += blank + 1;
                Ok(())
            }
            None => self.skip_word(cmd),
        }
    }

    /// Reads past one word (not a blank, operator or comment), keeping nothing of it (its text
    /// is read onto the end of `cmd`'s buffer, then dropped).
    #[inline(always)]
    fn skip_word(&mut self, cmd: &mut Command) -> R<()> {
        // A word of plain bytes only, as in [`Parser::plain_word`]: nothing to read in it.
        let rest = self.b.get(self.pos..).unwrap_or(&[]);
        let len = run_of(rest, &PLAIN_UNBRACED);
        if len > 0 && rest.get(len).is_none_or(|&c| is_meta(c)) {
            self.pos += len;
            self.bracket = None;
            return Ok(());
        }
        self.skip_other_word(cmd)
    }

    /// [`Parser::skip_word`] for a word that is not plain bytes only.
    fn skip_other_word(&mut self, cmd: &mut Command) -> R<()> {
        let mark = cmd.buffer().len();
        let r = self.word(cmd.buffer()).map(|_| ());
        cmd.discard_from(mark);
        r
    }

    fn nested_list(&mut self) -> R<()> {
        if self.depth >= MAX_DEPTH {
            return self.err(Construct::TooDeep, self.pos);
        }
        self.depth += 1;
        let r = self.list(Stop::Paren);
        self.depth -= 1;
        r
    }

    /// Parses `text` (a `sh -c` string, backticks, `eval`) as a nested list.
    fn script(&mut self, text: &str, at: usize) -> R<()> {
        if self.depth >= MAX_DEPTH {
            return self.err(Construct::TooDeep, at);
        }
        let base = Some(self.base.unwrap_or(at));
        let mut inner = Parser::new(text, self.mode, self.depth + 1, base, self.out, self.sink);
        inner.list(Stop::End)
    }

    /// A redirection operator and its target word (the target's substitutions are read; the
    /// target is not a word of the command `cmd`).
    fn redirection(&mut self, cmd: &mut Command) -> R<()> {
        let at = self.pos;
        if self.peek(0) == Some(b'<') && self.peek(1) == Some(b'<') && self.peek(2) != Some(b'<') {
            return self.err(Construct::HereDoc, at);
        }
        let mut n = 0;
        while n < 3 && matches!(self.peek(0), Some(b'<' | b'>' | b'&' | b'|')) {
            self.pos += 1;
            n += 1;
        }
        self.skip_blanks();
        match self.peek(0) {
            Some(b'<' | b'>') if self.peek(1) == Some(b'(') => {
                self.pos += 2;
                self.nested_list()
            }
            Some(c) if !is_meta(c) => self.skip_word(cmd),
            _ => self.err(Construct::Redirection, at),
        }
    }

    /// Ends the current command: sends it and what its wrappers run to the sink (unless its
    /// words were not kept: `skipped`, the sink does not want it and it runs nothing else).
    fn finish(&mut self, cmd: &mut Command, skipped: bool) -> R<()> {
        if cmd.is_empty() {
            return Ok(());
        }
        let r = if skipped {
            Ok(())
        } else {
            self.emit(cmd.view(), 0)
        };
        cmd.clear();
        r
    }

    /// Sends `cmd` to the sink, then what it runs if its program is a wrapper (`level`:
    /// wrappers already looked through).
    fn emit(&mut self, cmd: CommandView<'_>, level: u32) -> R<()> {
        let mut cmd = cmd;
        let mut level = level;
        // What a wrapper runs, from the buffers once a wrapper is met (and back to them after).
        let mut inner: Option<Vec<Runs>> = None;
        let r = loop {
            let at = self.pos;
            let wrapper = match cmd.get(0) {
                Some(Word::Literal(program)) => {
                    self.sink.command_named(cmd, wrappers::basename(program))
                }
                Some(Word::Unknown { .. }) => {
                    self.sink.command(cmd);
                    break self.err(Construct::DynamicProgram, at);
                }
                None => {
                    self.sink.command(cmd);
                    break Ok(());
                }
            };
            // Most programs run nothing else.
            let Some(wrapper) = wrapper else {
                break Ok(());
            };
            let runs = match &mut inner {
                Some(runs) => runs,
                None => inner.insert(self.out.inner.pop().unwrap_or_default()),
            };
            if let Err(construct) = wrappers::runs_of(wrapper, cmd, runs, &mut self.out.spare) {
                break self.err(construct, at);
            }
            // Most wrappers run their own words from some index on: the next command to send.
            if let [Runs::Words(from)] = runs.as_slice() {
                let from = *from;
                runs.pop();
                if level + self.depth >= MAX_DEPTH {
                    break self.err(Construct::TooDeep, at);
                }
                cmd = cmd.tail(from);
                level += 1;
                continue;
            }
            break self.emit_inner(runs, cmd, level, at);
        };
        if let Some(mut runs) = inner {
            runs.clear();
            self.out.inner.push(runs);
        }
        r
    }

    /// Sends what the command `outer` runs to the sink.
    fn emit_inner(
        &mut self,
        inner: &mut Vec<Runs>,
        outer: CommandView<'_>,
        level: u32,
        at: usize,
    ) -> R<()> {
        for i in inner.drain(..) {
            if level + self.depth >= MAX_DEPTH {
                return self.err(Construct::TooDeep, at);
            }
            match i {
                Runs::Words(from) => self.emit(outer.tail(from), level + 1)?,
                Runs::Command(c) => {
                    let r = self.emit(c.view(), level + 1);
                    self.out.give_back(c);
                    r?
                }
                Runs::Script(s) => {
                    self.depth += level;
                    let r = self.script(&s, at);
                    self.depth -= level;
                    r?
                }
            }
        }
        Ok(())
    }

    // ---- words --------------------------------------------------------------------------
    /// A single-quoted part of a word (at its opening quote): its text, taken as written.
    #[inline]
    fn single_quoted(&mut self, w: &mut String) -> R<()> {
        let open = self.pos;
        self.pos += 1;
        let Some(len) = self
            .b
            .get(self.pos..)
            .unwrap_or(&[])
            .iter()
            .position(|&c| c == b'\'')
        else {
            return self.err(Construct::UnbalancedQuote, open);
        };
        let end = self.pos + len;
        let text = self.b.get(self.pos..end).unwrap_or(&[]);
        if text.iter().all(|&c| c < 0x80 && !is_control(c)) {
            w.push_str(self.src.get(self.pos..end).unwrap_or(""));
            self.pos = end;
        }
        while self.pos < end {
            self.literal_char(w)?;
        }
        self.pos = end + 1;
        Ok(())
    }

    /// Reads one word at the current position (not a blank, operator or comment) into `w`,
    /// quotes and escapes removed; returns what is known about it.
    fn word(&mut self, w: &mut String) -> R<WordKind> {
        let start = self.pos;
        let mut kind = WordKind::Literal;
        let mut brace_open = false;
        let mut brace_list = false;
        let mut tilde_ok = true; // at the word start or after an unquoted `=`/`:`
        self.bracket = None;
        while let Some(c) = self.peek(0) {
            if is_meta(c) {
                break;
            }
            // Outside a brace, `.` and `,` mean nothing and `=`/`:` only allow a tilde after
            // them.
            let plain = if brace_open { &PLAIN } else { &PLAIN_UNBRACED };
            if in_table(plain, c) {
                // A run of characters with no meaning to the shell, copied at once.
                let run = self.pos;
                let rest = self.b.get(run..).unwrap_or(&[]);
                let len = run_of(rest, plain);
                self.pos = run + len;
                w.push_str(self.src.get(run..self.pos).unwrap_or(""));
                tilde_ok = matches!(rest.get(len.wrapping_sub(1)), Some(b'=' | b':'));
                continue;
            }
            let was_tilde_ok = tilde_ok;
            tilde_ok = false;
            match c {
                b'\\' => match self.peek(1) {
                    None => return self.err(Construct::DanglingEscape, self.pos),
                    Some(b'\n') => {
                        self.pos += 2;
                        tilde_ok = was_tilde_ok;
                    }
                    Some(_) => {
                        self.pos += 1;
                        self.literal_char(w)?;
                    }
                },
                b'\'' => self.single_quoted(w)?,
                b'"' => {
                    self.pos += 1;
                    self.double_quoted(w, &mut kind)?;
                }
                b'$' => self.dollar(w, &mut kind, false)?,
                b'`' => self.backticks(&mut kind, false)?,
                b'*' | b'?' => {
                    self.strict_refuses(Construct::Glob)?;
                    kind = WordKind::UnknownFields;
                    w.push(c as char);
                    self.pos += 1;
                }
                b'[' => {
                    if self.bracket_closes() {
                        self.strict_refuses(Construct::Glob)?;
                        kind = WordKind::UnknownFields;
                    }
                    w.push('[');
                    self.pos += 1;
                }
                b'{' | b',' | b'}' | b'.' => {
                    match c {
                        b'{' => brace_open = true,
                        b',' if brace_open => brace_list = true,
                        b'.' if brace_open && self.peek(1) == Some(b'.') => brace_list = true,
                        b'}' if brace_open && brace_list => {
                            self.strict_refuses(Construct::BraceExpansion)?;
                            kind = WordKind::UnknownFields;
                        }
                        _ => {}
                    }
                    w.push(c as char);
                    self.pos += 1;
                }
                b'~' if was_tilde_ok => {
                    self.strict_refuses(Construct::Tilde)?;
                    kind = max_kind(kind, WordKind::Unknown);
                    w.push('~');
                    self.pos += 1;
                }
                b'=' | b':' => {
                    tilde_ok = true;
                    w.push(c as char);
                    self.pos += 1;
                }
                _ => self.literal_char(w)?,
            }
        }
        debug_assert!(self.pos > start || self.peek(0).is_none_or(is_meta));
        Ok(kind)
    }

    /// The word at the current position if it is made of plain bytes only ([`PLAIN_UNBRACED`]:
    /// no quote, escape, expansion, glob, brace or tilde), moving past it: its text is itself.
    /// None (and nothing read) for any other word.
    #[inline(always)]
    fn plain_word(&mut self) -> Option<&'s str> {
        let rest = self.b.get(self.pos..)?;
        let len = run_of(rest, &PLAIN_UNBRACED);
        if len == 0 || rest.get(len).is_some_and(|&c| !is_meta(c)) {
            return None;
        }
        let text = self.src.get(self.pos..self.pos + len)?;
        self.pos += len;
        self.bracket = None;
        Some(text)
    }

    /// Reads the plain words (of [`PLAIN_UNBRACED`] bytes only) that follow one another from the
    /// current position (a word start) as literal words of `cmd`, their text copied at once; a
    /// word counts only when a blank, the end of the value or an operator other than `<`/`>`
    /// ends it (before `<`/`>` it may be a file descriptor number; a word going on with another
    /// byte is not plain). Moves past them and the blanks after them; false when there is none.
    #[inline(always)]
    fn plain_words(&mut self, cmd: &mut Command) -> bool {
        let start = self.pos;
        let b = self.b;
        let mark = cmd.buffer().len();
        let mut at = start;
        let mut end = start;
        // Most runs are a word or a few; after the last, an operator or another kind of word.
        while b.get(at).is_some_and(|&c| in_table(&PLAIN_UNBRACED, c)) {
            let rest = b.get(at..).unwrap_or(&[]);
            let len = run_of(rest, &PLAIN_UNBRACED);
            let word_end = at + len;
            match rest.get(len) {
                Some(b' ' | b'\t') => {
                    cmd.push_span(
                        mark + at - start,
                        mark + word_end - start,
                        WordKind::Literal,
                    );
                    end = word_end;
                    at = word_end + 1;
                    while matches!(b.get(at), Some(b' ' | b'\t')) {
                        at += 1;
                    }
                }
                None | Some(b'\n' | b'|' | b'&' | b';' | b'(' | b')') => {
                    cmd.push_span(
                        mark + at - start,
                        mark + word_end - start,
                        WordKind::Literal,
                    );
                    end = word_end;
                    at = word_end;
                    break;
                }
                Some(_) => break,
            }
        }
        if end == start {
            return false;
        }
        cmd.buffer()
            .push_str(self.src.get(start..end).unwrap_or(""));
        self.pos = at;
        self.bracket = None;
        true
    }

    /// Whether the unquoted `[` at the current position has a `]` later in the same word.
    fn bracket_closes(&mut self) -> bool {
        if let Some((until, found)) = self.bracket {
            if self.pos < until {
                return found;
            }
        }
        let mut i = self.pos + 1;
        while let Some(&c) = self.b.get(i) {
            if c == b']' {
                self.bracket = Some((i, true));
                return true;
            }
            if is_meta(c) || matches!(c, b'\'' | b'"' | b'\\' | b'$' | b'`') {
                break;
            }
            i += 1;
        }
        self.bracket = Some((i, false));
        false
    }

    /// Copies one character (checked) at the current position.
    fn literal_char(&mut self, w: &mut String) -> R<()> {
        let Some(c) = self.peek(0) else {
            return Ok(());
        };
        if c < 0x80 {
            if is_control(c) {
                return self.err(Construct::ControlCharacter, self.pos);
            }
            w.push(c as char);
            self.pos += 1;
            return Ok(());
        }
        let ch = self
            .src
            .get(self.pos..)
            .and_then(|s| s.chars().next())
            .unwrap_or('\u{FFFD}');
        if is_invisible(ch) {
            return self.err(Construct::InvisibleCharacter, self.pos);
        }
        w.push(ch);
        self.pos += ch.len_utf8().max(1);
        Ok(())
    }

    fn double_quoted(&mut self, w: &mut String, kind: &mut WordKind) -> R<()> {
        let open = self.pos.saturating_sub(1);
        loop {
            let Some(c) = self.peek(0) else {
                return self.err(Construct::UnbalancedQuote, open);
            };
            match c {
                b'"' => {
                    self.pos += 1;
                    return Ok(());
                }
                b'\\' => match self.peek(1) {
                    Some(b'$' | b'`' | b'"' | b'\\') => {
                        self.pos += 1;
                        self.literal_char(w)?;
                    }
                    Some(b'\n') => self.pos += 2,
                    Some(_) => {
                        w.push('\\');
                        self.pos += 1;
                    }
                    None => return self.err(Construct::UnbalancedQuote, open),
                },
                b'$' => self.dollar(w, kind, true)?,
                b'`' => self.backticks(kind, true)?,
                _ if in_table(&QUOTED_PLAIN, c) => {
                    // A run of characters that stand for themselves, copied at once.
                    let run = self.pos;
                    let len = run_of(self.b.get(run..).unwrap_or(&[]), &QUOTED_PLAIN);
                    self.pos = run + len;
                    w.push_str(self.src.get(run..self.pos).unwrap_or(""));
                }
                _ => self.literal_char(w)?,
            }
        }
    }

    /// `$` at the current position: an expansion, or a literal `$`.
    fn dollar(&mut self, w: &mut String, kind: &mut WordKind, quoted: bool) -> R<()> {
        let at = self.pos;
        let unknown = if quoted {
            WordKind::Unknown
        } else {
            WordKind::UnknownFields
        };
        match self.peek(1) {
            Some(b'\'') if !quoted => {
                self.strict_refuses(Construct::DollarQuote)?;
                self.pos += 2;
                loop {
                    match self.peek(0) {
                        None => return self.err(Construct::UnbalancedQuote, at),
                        Some(b'\\') => self.pos += 2,
                        Some(b'\'') => break,
                        Some(_) => self.pos += 1,
                    }
                }
                self.pos += 1;
                *kind = max_kind(*kind, WordKind::Unknown);
            }
            Some(b'"') if !quoted => {
                self.strict_refuses(Construct::DollarQuote)?;
                self.pos += 2;
                let mut scratch = String::new();
                self.double_quoted(&mut scratch, kind)?;
                *kind = max_kind(*kind, WordKind::Unknown);
            }
            Some(b'(') if self.peek(2) == Some(b'(') => {
                self.strict_refuses(Construct::Arithmetic)?;
                self.pos += 3;
                let mut open = 2usize;
                while open > 0 {
                    match self.peek(0) {
                        None => return self.err(Construct::Arithmetic, at),
                        Some(b'(') => open += 1,
                        Some(b')') => open -= 1,
                        Some(b'$' | b'`') => return self.err(Construct::Arithmetic, at),
                        Some(_) => {}
                    }
                    self.pos += 1;
                }
                *kind = max_kind(*kind, unknown);
            }
            Some(b'(') => {
                self.strict_refuses(Construct::CommandSubstitution)?;
                self.pos += 2;
                self.nested_list()?;
                *kind = max_kind(*kind, unknown);
            }
            Some(b'{') => {
                self.strict_refuses(Construct::ParameterExpansion)?;
                self.pos += 2;
                loop {
                    match self.peek(0) {
                        None => return self.err(Construct::ParameterExpansion, at),
                        Some(b'}') => break,
                        Some(b'$' | b'`' | b'\'' | b'"' | b'\\') => {
                            return self.err(Construct::ParameterExpansion, at)
                        }
                        Some(_) => self.pos += 1,
                    }
                }
                self.pos += 1;
                *kind = max_kind(*kind, unknown);
            }
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                self.strict_refuses(Construct::ParameterExpansion)?;
                self.pos += 1;
                while self
                    .peek(0)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
                {
                    self.pos += 1;
                }
                *kind = max_kind(*kind, unknown);
            }
            Some(c) if c.is_ascii_digit() || b"@*#?-$!".contains(&c) => {
                self.strict_refuses(Construct::ParameterExpansion)?;
                self.pos += 2;
                *kind = max_kind(*kind, unknown);
            }
            _ => {
                w.push('$');
                self.pos += 1;
            }
        }
        Ok(())
    }

    /// `` `...` `` at the current position: its text (unescaped) is read as a nested script.
    fn backticks(&mut self, kind: &mut WordKind, quoted: bool) -> R<()> {
        self.strict_refuses(Construct::Backticks)?;
        let at = self.pos;
        self.pos += 1;
        let mut text = String::new();
        loop {
            match self.peek(0) {
                None => return self.err(Construct::UnbalancedQuote, at),
                Some(b'`') => break,
                Some(b'\\') => match self.peek(1) {
                    Some(c @ (b'`' | b'\\' | b'$')) => {
                        text.push(c as char);
                        self.pos += 2;
                    }
                    Some(b'"') if quoted => {
                        text.push('"');
                        self.pos += 2;
                    }
                    _ => {
                        text.push('\\');
                        self.pos += 1;
                    }
                },
                Some(c) if c < 0x80 => {
                    text.push(c as char);
                    self.pos += 1;
                }
                Some(_) => {
                    let ch = self
                        .src
                        .get(self.pos..)
                        .and_then(|s| s.chars().next())
                        .unwrap_or('\u{FFFD}');
                    text.push(ch);
                    self.pos += ch.len_utf8().max(1);
                }
            }
        }
        self.pos += 1;
        self.script(&text, at)?;
        *kind = max_kind(
            *kind,
            if quoted {
                WordKind::Unknown
            } else {
                WordKind::UnknownFields
            },
        );
        Ok(())
    }
}
