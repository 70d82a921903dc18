//! Parsed simple commands: the words of one command, each either a known literal (quoting
//! removed) or a value the parser cannot know before the shell runs it.

use std::fmt;

/// What a word is known to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WordKind {
    /// The word's text is exactly what the program receives (quotes and escapes removed).
    Literal,
    /// The value is decided at run time (an expansion, a substitution, a glob) and stays one
    /// word (it was inside double quotes).
    Unknown,
    /// The value is decided at run time and may split into any number of words, zero included
    /// (an unquoted expansion or glob).
    UnknownFields,
}

/// One word of a [`Command`], borrowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word<'a> {
    /// A known word.
    Literal(&'a str),
    /// A word known only at run time; `fields` is true when it may be any number of words.
    Unknown {
        /// Whether the value may split into several words (or none).
        fields: bool,
    },
}

impl<'a> Word<'a> {
    /// The literal text, if the word is known.
    pub fn literal(self) -> Option<&'a str> {
        match self {
            Word::Literal(s) => Some(s),
            Word::Unknown { .. } => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    start: u32,
    end: u32,
    kind: WordKind,
}

/// One simple command: its words in order, stored in one buffer (which may hold bytes between
/// the words: two commands are equal when their words are).
#[derive(Clone, Debug, Default)]
pub struct Command {
    text: String,
    spans: Vec<Span>,
}

impl Command {
    /// An empty command.
    pub const fn new() -> Self {
        Command {
            text: String::new(),
            spans: Vec::new(),
        }
    }

    /// A command of literal words (tests and hosts that already have an argv).
    pub fn from_argv<S: AsRef<str>>(argv: &[S]) -> Self {
        let mut c = Command::new();
        for w in argv {
            c.push(w.as_ref(), WordKind::Literal);
        }
        c
    }

    /// An empty command with room for `bytes` of text and `words` words.
    pub fn with_capacity(bytes: usize, words: usize) -> Self {
        Command {
            text: String::with_capacity(bytes),
            spans: Vec::with_capacity(words),
        }
    }

    /// Removes every word, keeping the buffers' capacity.
    pub(crate) fn clear(&mut self) {
        self.text.clear();
        self.spans.clear();
    }

    /// Makes room for `bytes` more bytes of text and `words` more words.
    pub(crate) fn reserve(&mut self, bytes: usize, words: usize) {
        self.text.reserve(bytes);
        self.spans.reserve(words);
    }

    /// The text buffer, for a parser writing a word in place: call [`Command::end_word`] (or
    /// [`Command::discard_from`]) with the length it had before.
    pub(crate) fn buffer(&mut self) -> &mut String {
        &mut self.text
    }

    /// Makes the text written since `start` (a buffer length) a word.
    pub(crate) fn end_word(&mut self, start: usize, kind: WordKind) {
        self.spans.push(Span {
            start: start as u32,
            end: self.text.len() as u32,
            kind,
        });
    }

    /// Makes the text `start..end` (buffer offsets, at most the buffer's length once the caller
    /// has written it) a word: for a parser that records several words and then writes their
    /// text at once.
    #[inline]
    pub(crate) fn push_span(&mut self, start: usize, end: usize, kind: WordKind) {
        self.spans.push(Span {
            start: start as u32,
            end: end as u32,
            kind,
        });
    }

    /// Drops the text written since `start`.
    pub(crate) fn discard_from(&mut self, start: usize) {
        self.text.truncate(start);
    }

    /// Appends a word.
    pub fn push(&mut self, text: &str, kind: WordKind) {
        let start = self.text.len() as u32;
        self.text.push_str(text);
        self.spans.push(Span {
            start,
            end: self.text.len() as u32,
            kind,
        });
    }

    /// The number of words.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether the command has no words.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The word at `i`, if any.
    pub fn get(&self, i: usize) -> Option<Word<'_>> {
        self.spans.get(i).map(|s| self.word(s))
    }

    #[inline]
    fn word(&self, s: &Span) -> Word<'_> {
        match s.kind {
            WordKind::Literal => Word::Literal(
                self.text
                    .get(s.start as usize..s.end as usize)
                    .unwrap_or(""),
            ),
            WordKind::Unknown => Word::Unknown { fields: false },
            WordKind::UnknownFields => Word::Unknown { fields: true },
        }
    }

    /// The words in order.
    pub fn words(&self) -> impl ExactSizeIterator<Item = Word<'_>> + '_ {
        self.view().words()
    }

    /// The whole command as a [`CommandView`].
    pub fn view(&self) -> CommandView<'_> {
        CommandView { cmd: self, from: 0 }
    }

    /// The literal argv, if every word is known.
    pub fn argv(&self) -> Option<Vec<&str>> {
        self.words().map(Word::literal).collect()
    }

    /// A new command made of the words `from..` of this one.
    pub fn tail(&self, from: usize) -> Command {
        let mut c = Command::new();
        self.copy_tail(from, &mut c);
        c
    }

    /// Copies the words `from..` of this one onto the end of `to`.
    pub(crate) fn copy_tail(&self, from: usize, to: &mut Command) {
        let Some(first) = self.spans.get(from) else {
            return;
        };
        let start = first.start;
        let end = self.spans.last().map_or(start, |s| s.end);
        let shift = to.text.len() as u32;
        to.text
            .push_str(self.text.get(start as usize..end as usize).unwrap_or(""));
        to.spans
            .extend(self.spans.get(from..).unwrap_or(&[]).iter().map(|s| Span {
                start: s.start - start + shift,
                end: s.end - start + shift,
                kind: s.kind,
            }));
    }

    /// Copies word `i` (text and kind) onto the end of `to`.
    pub fn copy_word(&self, i: usize, to: &mut Command) {
        if let Some(s) = self.spans.get(i) {
            let text = self
                .text
                .get(s.start as usize..s.end as usize)
                .unwrap_or("");
            to.push(text, s.kind);
        }
    }
}

impl PartialEq for Command {
    /// The same words (text and kind) in the same order.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .spans
                .iter()
                .zip(&other.spans)
                .all(|(a, b)| a.kind == b.kind && self.word(a) == other.word(b))
    }
}

impl Eq for Command {}

/// The words of a [`Command`] from one index on, borrowed: what a wrapper runs
/// (`sudo rm -rf /` runs the words `rm -rf /` of the same command) without a copy.
#[derive(Clone, Copy, Debug)]
pub struct CommandView<'a> {
    cmd: &'a Command,
    /// The index in `cmd` of the view's first word (at most `cmd.len()`).
    from: usize,
}

impl<'a> CommandView<'a> {
    #[inline]
    fn spans(self) -> &'a [Span] {
        self.cmd.spans.get(self.from..).unwrap_or(&[])
    }

    /// The number of words.
    pub fn len(self) -> usize {
        self.spans().len()
    }

    /// Whether the view has no words.
    pub fn is_empty(self) -> bool {
        self.spans().is_empty()
    }

    /// The word at `i` (counted from the view's first word), if any.
    #[inline]
    pub fn get(self, i: usize) -> Option<Word<'a>> {
        let cmd = self.cmd;
        self.spans().get(i).map(|s| cmd.word(s))
    }

    /// The words in order.
    pub fn words(self) -> impl ExactSizeIterator<Item = Word<'a>> + Clone + 'a {
        let cmd = self.cmd;
        self.spans().iter().map(move |s| cmd.word(s))
    }

    /// The words from `i` on (empty past the end).
    pub fn tail(self, i: usize) -> CommandView<'a> {
        CommandView {
            cmd: self.cmd,
            from: self.from.saturating_add(i).min(self.cmd.len()),
        }
    }

    /// The index in the underlying command of the view's first word.
    pub(crate) fn start(self) -> usize {
        self.from
    }

    /// The command the view is part of.
    pub(crate) fn command(self) -> &'a Command {
        self.cmd
    }

    /// The words as a command of their own.
    pub fn to_command(self) -> Command {
        self.cmd.tail(self.from)
    }

    /// Copies word `i` (text and kind) onto the end of `to`.
    pub fn copy_word(self, i: usize, to: &mut Command) {
        self.cmd.copy_word(self.from.saturating_add(i), to);
    }
}

impl fmt::Display for Command {
    /// The words separated by spaces, `?` standing for a word known only at run time.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, w) in self.words().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            match w {
                Word::Literal(s) => f.write_str(s)?,
                Word::Unknown { .. } => f.write_str("?")?,
            }
        }
        Ok(())
    }
}
