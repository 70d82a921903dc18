//! Named source files and byte spans into them.
//!
//! Every AST node carries a [`Span`]; the [`SourceMap`] turns a span back into a file name,
//! a 1-based line and column, and a miette source for rendering.

use std::sync::Arc;

/// Index of a file in a [`SourceMap`].
///
/// # Example
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// let id = m.add("f.policy", "agent a {}");
/// assert_eq!(id, toolgate::source::FileId(0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range in one source file.
///
/// # Example
///
/// ```
/// use toolgate::source::{FileId, Span};
/// let s = Span::new(FileId(0), 2, 5);
/// assert_eq!(s.end - s.start, 3);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// The file the range is in.
    pub file: FileId,
    /// First byte of the range.
    pub start: usize,
    /// One past the last byte of the range.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end` in `file`.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::source::{FileId, Span};
    /// let s = Span::new(FileId(1), 3, 7);
    /// assert_eq!((s.file, s.start, s.end), (FileId(1), 3, 7));
    /// ```
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span { file, start, end }
    }

    /// The smallest span covering both `self` and `other` (same file assumed).
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::source::{FileId, Span};
    /// let a = Span::new(FileId(0), 2, 4);
    /// assert_eq!(a.to(Span::new(FileId(0), 6, 9)), Span::new(FileId(0), 2, 9));
    /// ```
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// The span as a miette source span.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::source::{FileId, Span};
    /// let s = Span::new(FileId(0), 4, 10).miette();
    /// assert_eq!((s.offset(), s.len()), (4, 6));
    /// ```
    pub fn miette(self) -> miette::SourceSpan {
        (self.start, self.end.saturating_sub(self.start)).into()
    }
}

/// One loaded policy file: its display name and text.
///
/// # Example
///
/// ```
/// let f = toolgate::source::SourceFile::new("f.policy", "agent a {}");
/// assert_eq!(f.name, "f.policy");
/// assert_eq!(&*f.text, "agent a {}");
/// ```
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The name shown in diagnostics (the path as the user gave it).
    pub name: String,
    /// The file's text.
    pub text: Arc<str>,
    line_starts: Vec<usize>,
    lone_cr: bool,
}

impl SourceFile {
    /// A source file from a display name and its text.
    ///
    /// # Example
    ///
    /// ```
    /// let f = toolgate::source::SourceFile::new("f.policy", "tool t()\n");
    /// assert_eq!((f.name.as_str(), f.text.len()), ("f.policy", 9));
    /// ```
    pub fn new(name: impl Into<String>, text: impl Into<Arc<str>>) -> SourceFile {
        let text: Arc<str> = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let lone_cr = text
            .match_indices('\r')
            .any(|(i, _)| text.as_bytes().get(i + 1) != Some(&b'\n'));
        SourceFile {
            name: name.into(),
            text,
            line_starts,
            lone_cr,
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    ///
    /// # Example
    ///
    /// ```
    /// let f = toolgate::source::SourceFile::new("f.policy", "tool t()\nagent a {}");
    /// assert_eq!(f.line_col(0), (1, 1));
    /// assert_eq!(f.line_col(15), (2, 7));
    /// ```
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = self.line_starts.get(line).copied().unwrap_or(0);
        let column = self
            .text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        (line + 1, column + 1)
    }

    /// True when the text has a carriage return not followed by a line feed.
    pub fn has_lone_cr(&self) -> bool {
        self.lone_cr
    }

    /// The lines around the byte range `start..end`: from `context` lines before the line
    /// holding `start` to `context` lines after the one holding `end`, as (0-based first
    /// line, byte offset where it starts, byte offset where the last one ends).
    ///
    /// # Example
    ///
    /// ```
    /// let f = toolgate::source::SourceFile::new("f.policy", "a\nb\nc\nd\ne\n");
    /// assert_eq!(f.line_window(4, 5, 1), (1, 2, 8));
    /// ```
    pub fn line_window(&self, start: usize, end: usize, context: usize) -> (usize, usize, usize) {
        let line_of = |offset: usize| match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let first = line_of(start).saturating_sub(context);
        let last = line_of(end.max(start)).saturating_add(context);
        let from = self.line_starts.get(first).copied().unwrap_or(0);
        let to = self
            .line_starts
            .get(last.saturating_add(1))
            .copied()
            .unwrap_or(self.text.len());
        (first, from, to.max(from))
    }
}

/// The files of one policy, indexed by [`FileId`].
///
/// # Example
///
/// ```
/// let mut m = toolgate::source::SourceMap::new();
/// let id = m.add("f.policy", "agent a {}");
/// assert_eq!(m.file(id).name, "f.policy");
/// ```
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

/// A resolved source location: file name, 1-based line and column.
///
/// # Example
///
/// ```
/// use toolgate::source::{SourceMap, Span};
/// let mut m = SourceMap::new();
/// let id = m.add("f.policy", "tool t()\nagent a {}");
/// assert_eq!(m.location(Span::new(id, 9, 14)).to_string(), "f.policy:2:1");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Location {
    /// The file's display name.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

impl SourceMap {
    /// An empty map.
    ///
    /// # Example
    ///
    /// ```
    /// let m = toolgate::source::SourceMap::new();
    /// assert_eq!(m.files().count(), 0);
    /// ```
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file and returns its id.
    ///
    /// # Example
    ///
    /// ```
    /// let mut m = toolgate::source::SourceMap::new();
    /// let a = m.add("a.policy", "agent a {}");
    /// let b = m.add("b.policy", "agent b {}");
    /// assert_ne!(a, b);
    /// ```
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<Arc<str>>) -> FileId {
        self.files.push(SourceFile::new(name, text));
        FileId(self.files.len() as u32 - 1)
    }

    /// The file with this id.
    ///
    /// # Example
    ///
    /// ```
    /// let mut m = toolgate::source::SourceMap::new();
    /// let id = m.add("f.policy", "agent a {}");
    /// assert_eq!(&*m.file(id).text, "agent a {}");
    /// ```
    ///
    /// # Panics
    ///
    /// When `id` was not returned by [`SourceMap::add`] on this map.
    #[allow(
        clippy::indexing_slicing,
        reason = "ids are made by `add`, as the position of the file it pushed; files are never removed"
    )]
    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// All files with their ids.
    ///
    /// # Example
    ///
    /// ```
    /// let mut m = toolgate::source::SourceMap::new();
    /// m.add("a.policy", "");
    /// m.add("b.policy", "");
    /// let names: Vec<_> = m.files().map(|(_, f)| f.name.as_str()).collect();
    /// assert_eq!(names, ["a.policy", "b.policy"]);
    /// ```
    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }

    /// The text a span covers.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::source::{SourceMap, Span};
    /// let mut m = SourceMap::new();
    /// let id = m.add("f.policy", "agent a {}");
    /// assert_eq!(m.slice(Span::new(id, 6, 7)), "a");
    /// ```
    pub fn slice(&self, span: Span) -> &str {
        self.file(span.file)
            .text
            .get(span.start..span.end)
            .unwrap_or("")
    }

    /// Where a span starts, as file:line:column.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::source::{SourceMap, Span};
    /// let mut m = SourceMap::new();
    /// let id = m.add("f.policy", "agent a {}");
    /// let loc = m.location(Span::new(id, 6, 7));
    /// assert_eq!((loc.line, loc.column), (1, 7));
    /// ```
    pub fn location(&self, span: Span) -> Location {
        let f = self.file(span.file);
        let (line, column) = f.line_col(span.start);
        Location {
            file: f.name.clone(),
            line,
            column,
        }
    }
}
