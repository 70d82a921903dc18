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
use crate::lint::suppress::comment_start;
use crate::source::{FileId, SourceMap, Span};
use crate::syntax::ast::*;
use crate::syntax::parse_file;

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
    if strip_file(&file) != strip_file(&again) {
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

// ---------------------------------------------------------------------------------------------
// comments

/// A comment in the source.
#[derive(Debug, Clone)]
struct Comment {
    start: usize,
    text: String,
}

fn comments(text: &str) -> Vec<Comment> {
    let mut out = Vec::new();
    let mut off = 0;
    for line in text.split('\n') {
        if let Some(c) = comment_start(line) {
            out.push(Comment {
                start: off + c,
                text: line[c..].trim_end().to_string(),
            });
        }
        off += line.len() + 1;
    }
    out
}

// ---------------------------------------------------------------------------------------------
// layout

/// What a line holds, for alignment: lines of one kind in a run are aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Plain,
    Tool,
    Rule,
    Expect,
}

/// One statement's line(s) before alignment.
#[derive(Debug, Clone)]
struct Line {
    indent: usize,
    kind: Kind,
    cells: Vec<String>,
    /// For rules: the conditions and `because`, which may be broken over several lines.
    rule_tail: Option<RuleTail>,
    /// Comments written inside the statement, moved before it.
    hoisted: Vec<String>,
    trailing: Option<String>,
}

#[derive(Debug, Clone)]
struct RuleTail {
    conditions: Vec<String>,
    because: Option<String>,
}

impl RuleTail {
    fn one_line(&self) -> String {
        let mut s = String::new();
        if !self.conditions.is_empty() {
            s.push_str("where ");
            s.push_str(&self.conditions.join(" and "));
        }
        if let Some(b) = &self.because {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str("because ");
            s.push_str(b);
        }
        s
    }
}

#[derive(Debug, Clone)]
enum Piece {
    Blank,
    Comment { indent: usize, text: String },
    Line(Line),
}

/// A source range a printed line stands for, used to place comments.
#[derive(Debug, Clone, Copy)]
struct Anchor {
    start: usize,
    end: usize,
}

struct Printer<'t> {
    text: &'t str,
    comments: Vec<Comment>,
    /// Index of the next comment not yet placed.
    next_comment: usize,
    /// End of the last thing placed (anchor or comment), for blank-line detection.
    last_end: usize,
    pieces: Vec<Piece>,
    /// True right after a block's opening line (no blank line goes there).
    after_open: bool,
}

fn char_len(s: &str) -> usize {
    s.chars().count()
}

impl<'t> Printer<'t> {
    fn new(text: &'t str) -> Printer<'t> {
        Printer {
            text,
            comments: comments(text),
            next_comment: 0,
            last_end: 0,
            pieces: Vec::new(),
            after_open: true,
        }
    }

    fn slice(&self, span: Span) -> &'t str {
        self.text.get(span.start..span.end).unwrap_or("")
    }

    fn blank_between(&self, from: usize, to: usize) -> bool {
        self.text
            .get(from.min(to)..to)
            .is_some_and(|gap| gap.matches('\n').count() >= 2)
    }

    fn push_blank(&mut self) {
        if !self.after_open && !matches!(self.pieces.last(), None | Some(Piece::Blank)) {
            self.pieces.push(Piece::Blank);
        }
    }

    /// Places the comments that precede `anchor` (own-line comments at `indent`), then the
    /// line itself with the comments inside it hoisted and a trailing comment attached.
    fn place(&mut self, anchor: Anchor, mut line: Line, closing: bool) {
        let indent = line.indent;
        // Comments before the anchor.
        while let Some(c) = self.comments.get(self.next_comment) {
            if c.start >= anchor.start {
                break;
            }
            let (start, text) = (c.start, c.text.clone());
            if self.blank_between(self.last_end, start) {
                self.push_blank();
            }
            let comment_indent = if closing { indent + 2 } else { indent };
            self.pieces.push(Piece::Comment {
                indent: comment_indent,
                text: text.clone(),
            });
            self.after_open = false;
            self.last_end = start + text.len();
            self.next_comment += 1;
        }
        if !closing && self.blank_between(self.last_end, anchor.start) {
            self.push_blank();
        }
        if closing {
            while matches!(self.pieces.last(), Some(Piece::Blank)) {
                self.pieces.pop();
            }
        }
        // Comments inside the anchor, then a trailing one on its last line.
        while let Some(c) = self.comments.get(self.next_comment) {
            if c.start >= anchor.end {
                break;
            }
            line.hoisted.push(c.text.clone());
            self.next_comment += 1;
        }
        let mut end = anchor.end;
        if let Some(c) = self.comments.get(self.next_comment) {
            let gap = self.text.get(anchor.end..c.start).unwrap_or("\n");
            if !gap.contains('\n') {
                line.trailing = Some(c.text.clone());
                end = c.start + c.text.len();
                self.next_comment += 1;
            }
        }
        self.last_end = end;
        self.after_open = false;
        self.pieces.push(Piece::Line(line));
    }

    /// Places the comments after the last statement.
    fn finish(&mut self) {
        while let Some(c) = self.comments.get(self.next_comment) {
            let (start, text) = (c.start, c.text.clone());
            if self.blank_between(self.last_end, start) {
                self.push_blank();
            }
            self.pieces.push(Piece::Comment {
                indent: 0,
                text: text.clone(),
            });
            self.after_open = false;
            self.last_end = start + text.len();
            self.next_comment += 1;
        }
    }

    fn line(indent: usize, kind: Kind, cells: Vec<String>) -> Line {
        Line {
            indent,
            kind,
            cells,
            rule_tail: None,
            hoisted: Vec::new(),
            trailing: None,
        }
    }

    /// The offset just past the `{` that opens a block, searching from `from`.
    fn open_brace(&self, from: usize) -> usize {
        let bytes = self.text.as_bytes();
        let mut i = from;
        while i < bytes.len() {
            match bytes[i] {
                b'{' => return i + 1,
                b'#' => {
                    while i < bytes.len() && bytes[i] != b'\n' {
                        i += 1;
                    }
                }
                b'/' if bytes.get(i + 1) == Some(&b'/') => {
                    while i < bytes.len() && bytes[i] != b'\n' {
                        i += 1;
                    }
                }
                _ => i += 1,
            }
        }
        from
    }

    fn header(&mut self, indent: usize, start: usize, name_end: usize, head: String) {
        let end = self.open_brace(name_end);
        self.place(
            Anchor { start, end },
            Printer::line(indent, Kind::Plain, vec![head]),
            false,
        );
        self.after_open = true;
    }

    fn closing(&mut self, indent: usize, span: Span) {
        let start = span.end.saturating_sub(1);
        self.place(
            Anchor {
                start,
                end: span.end,
            },
            Printer::line(indent, Kind::Plain, vec!["}".into()]),
            true,
        );
    }

    fn file(mut self, file: &File) -> String {
        for item in &file.items {
            match item {
                Item::Server(s) => {
                    let head = format!("server {} {{", self.slice(s.name.span));
                    self.header(0, s.span.start, s.name.span.end, head);
                    for t in &s.tools {
                        self.tool(2, t);
                    }
                    self.closing(0, s.span);
                }
                Item::Tool(t) => self.tool(0, t),
                Item::Agent(a) => {
                    let head = format!("agent {} {{", self.slice(a.name.span));
                    self.header(0, a.span.start, a.name.span.end, head);
                    for stmt in &a.stmts {
                        self.agent_stmt(stmt);
                    }
                    self.closing(0, a.span);
                }
                Item::Test(t) => {
                    let head = format!("test {} {{", self.slice(t.name.span));
                    self.header(0, t.span.start, t.name.span.end, head);
                    for e in &t.expectations {
                        self.expectation(e);
                    }
                    self.closing(0, t.span);
                }
            }
        }
        self.finish();
        render(&self.pieces)
    }

    fn tool(&mut self, indent: usize, t: &ToolDecl) {
        let mut head = format!("tool {}", self.slice(t.name.span));
        if let Some(params) = &t.params {
            let ps: Vec<String> = params
                .iter()
                .map(|p| {
                    format!(
                        "{}{}",
                        self.slice(p.name.span),
                        if p.optional { "?" } else { "" }
                    )
                })
                .collect();
            head.push_str(&format!("({})", ps.join(", ")));
        }
        let mut cells = vec![head];
        if !t.needs.is_empty() {
            let needs: Vec<&str> = t.needs.iter().map(|p| p.text.as_str()).collect();
            cells.push(format!("needs {}", needs.join(", ")));
        }
        let anchor = Anchor {
            start: t.span.start,
            end: t.span.end,
        };
        self.place(anchor, Printer::line(indent, Kind::Tool, cells), false);
    }

    fn agent_stmt(&mut self, stmt: &AgentStmt) {
        match stmt {
            AgentStmt::Grant(perms, span) => {
                let ps: Vec<&str> = perms.iter().map(|p| p.text.as_str()).collect();
                let line = Printer::line(2, Kind::Plain, vec![format!("grant {}", ps.join(", "))]);
                self.place(
                    Anchor {
                        start: span.start,
                        end: span.end,
                    },
                    line,
                    false,
                );
            }
            AgentStmt::Default(effect, span) => {
                let line =
                    Printer::line(2, Kind::Plain, vec![format!("default {}", effect.as_str())]);
                self.place(
                    Anchor {
                        start: span.start,
                        end: span.end,
                    },
                    line,
                    false,
                );
            }
            AgentStmt::Rule(rule) => {
                let conditions: Vec<String> =
                    rule.conditions.iter().map(|c| self.condition(c)).collect();
                let because = rule
                    .because
                    .as_ref()
                    .map(|b| self.slice(b.span).to_string());
                let mut line = Printer::line(
                    2,
                    Kind::Rule,
                    vec![
                        rule.effect.as_str().to_string(),
                        self.slice(rule.target.span).to_string(),
                    ],
                );
                if !conditions.is_empty() || because.is_some() {
                    line.rule_tail = Some(RuleTail {
                        conditions,
                        because,
                    });
                }
                self.place(
                    Anchor {
                        start: rule.span.start,
                        end: rule.span.end,
                    },
                    line,
                    false,
                );
            }
        }
    }

    fn condition(&self, c: &Condition) -> String {
        let arg = self.slice(c.arg.span);
        let list = |items: &[StrLit]| {
            let v: Vec<&str> = items.iter().map(|s| self.slice(s.span)).collect();
            format!("[{}]", v.join(", "))
        };
        let op = match &c.op {
            CondOp::Present => "present".to_string(),
            CondOp::StrEq(s) => format!("== {}", self.slice(s.span)),
            CondOp::StrNe(s) => format!("!= {}", self.slice(s.span)),
            CondOp::Num(op, _, span) => format!("{} {}", op.as_str(), self.slice(*span)),
            CondOp::In(items) => format!("in {}", list(items)),
            CondOp::Glob(s) | CondOp::Regex(s) => format!("matches {}", self.slice(s.span)),
            CondOp::Contains(s) => format!("contains {}", self.slice(s.span)),
            CondOp::ContainsAny(items) => format!("contains any {}", list(items)),
        };
        format!("{arg} {op}")
    }

    fn expectation(&mut self, e: &Expectation) {
        let tool = match &e.server {
            Some(s) => format!("{}.{}", self.slice(s.span), self.slice(e.tool.span)),
            None => self.slice(e.tool.span).to_string(),
        };
        let args_start = self.open_brace(e.tool.span.end).saturating_sub(1);
        let args = format_object(self.text.get(args_start..e.span.end).unwrap_or("{}"));
        let mut cells = vec![
            e.expect.as_str().to_string(),
            self.slice(e.agent.span).to_string(),
            tool,
            args,
        ];
        let mut tail = Vec::new();
        if let Some(needs) = &e.needs {
            let ps: Vec<&str> = needs.iter().map(|p| p.text.as_str()).collect();
            tail.push(format!("needs {}", ps.join(", ")));
        }
        if let Some(r) = &e.reason {
            tail.push(r.text.clone());
        }
        if !tail.is_empty() {
            cells.push(tail.join(" "));
        }
        let anchor = Anchor {
            start: e.span.start,
            end: e.span.end,
        };
        self.place(anchor, Printer::line(2, Kind::Expect, cells), false);
    }
}

// ---------------------------------------------------------------------------------------------
// test arguments

#[derive(Debug, Clone, PartialEq)]
enum Tok<'a> {
    Punct(u8),
    Atom(&'a str),
}

/// Tokens of a test's argument object (comments skipped: they are placed by the printer).
fn tokens(text: &str) -> Vec<Tok<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut depth = 0usize;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'{' | b'[' => {
                depth += 1;
                out.push(Tok::Punct(b));
                i += 1;
            }
            b'}' | b']' => {
                out.push(Tok::Punct(b));
                i += 1;
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            b',' | b':' => {
                out.push(Tok::Punct(b));
                i += 1;
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(bytes.len());
                out.push(Tok::Atom(&text[start..i]));
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b if b.is_ascii_whitespace() => i += 1,
            _ => {
                let start = i;
                while i < bytes.len()
                    && !matches!(
                        bytes[i],
                        b'{' | b'}' | b'[' | b']' | b',' | b':' | b'"' | b'#'
                    )
                    && !bytes[i].is_ascii_whitespace()
                {
                    i += 1;
                }
                if i == start {
                    i += 1;
                    continue;
                }
                out.push(Tok::Atom(&text[start..i]));
            }
        }
    }
    out
}

/// Formats a test's argument object from its source text: `{}` or `{ key: value, ... }`.
fn format_object(text: &str) -> String {
    let toks = tokens(text);
    let mut pos = 0;
    value(&toks, &mut pos)
}

fn value(toks: &[Tok], pos: &mut usize) -> String {
    match toks.get(*pos) {
        Some(Tok::Punct(b'{')) => {
            *pos += 1;
            let mut pairs = Vec::new();
            loop {
                match toks.get(*pos) {
                    None => break,
                    Some(Tok::Punct(b'}')) => {
                        *pos += 1;
                        break;
                    }
                    Some(Tok::Punct(b',')) => *pos += 1,
                    Some(Tok::Atom(k)) => {
                        let key = k.to_string();
                        *pos += 1;
                        if toks.get(*pos) == Some(&Tok::Punct(b':')) {
                            *pos += 1;
                        }
                        pairs.push(format!("{key}: {}", value(toks, pos)));
                    }
                    Some(_) => *pos += 1,
                }
            }
            if pairs.is_empty() {
                "{}".into()
            } else {
                format!("{{ {} }}", pairs.join(", "))
            }
        }
        Some(Tok::Punct(b'[')) => {
            *pos += 1;
            let mut items = Vec::new();
            loop {
                match toks.get(*pos) {
                    None => break,
                    Some(Tok::Punct(b']')) => {
                        *pos += 1;
                        break;
                    }
                    Some(Tok::Punct(b',')) => *pos += 1,
                    Some(_) => items.push(value(toks, pos)),
                }
            }
            format!("[{}]", items.join(", "))
        }
        Some(Tok::Atom(a)) => {
            *pos += 1;
            a.to_string()
        }
        Some(Tok::Punct(_)) => {
            *pos += 1;
            String::new()
        }
        None => String::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// rendering

/// Renders the pieces: aligns cells in runs of lines of one kind, breaks long rules, aligns
/// trailing comments.
fn render(pieces: &[Piece]) -> String {
    // (code, trailing comment) per physical line; None for a blank line.
    let mut physical: Vec<Option<(String, Option<String>)>> = Vec::new();
    let mut i = 0;
    while i < pieces.len() {
        match &pieces[i] {
            Piece::Blank => {
                physical.push(None);
                i += 1;
            }
            Piece::Comment { indent, text } => {
                physical.push(Some((format!("{}{text}", " ".repeat(*indent)), None)));
                i += 1;
            }
            Piece::Line(first) => {
                // A run: consecutive lines of the same kind and indent, with no comment line
                // or blank between them.
                let mut j = i;
                let mut run: Vec<&Line> = Vec::new();
                while let Some(Piece::Line(l)) = pieces.get(j) {
                    if l.kind != first.kind
                        || l.indent != first.indent
                        || (j > i && !l.hoisted.is_empty())
                    {
                        break;
                    }
                    run.push(l);
                    j += 1;
                    if first.kind == Kind::Plain {
                        break;
                    }
                }
                render_run(&run, &mut physical);
                i = j;
            }
        }
    }
    // Trailing comments: aligned in runs of consecutive commented lines.
    let mut out = String::new();
    let mut k = 0;
    while k < physical.len() {
        match &physical[k] {
            None => {
                out.push('\n');
                k += 1;
            }
            Some((_, None)) => {
                let (code, _) = physical[k]
                    .as_ref()
                    .map(|(c, t)| (c.clone(), t.clone()))
                    .unwrap_or_default();
                out.push_str(code.trim_end());
                out.push('\n');
                k += 1;
            }
            Some((_, Some(_))) => {
                let mut end = k;
                while let Some(Some((_, Some(_)))) = physical.get(end) {
                    end += 1;
                }
                let width = physical[k..end]
                    .iter()
                    .flatten()
                    .map(|(c, _)| char_len(c.trim_end()))
                    .max()
                    .unwrap_or(0);
                for (code, comment) in physical[k..end].iter().flatten() {
                    let code = code.trim_end();
                    out.push_str(code);
                    out.push_str(&" ".repeat(width - char_len(code) + 2));
                    out.push_str(comment.as_deref().unwrap_or(""));
                    out.push('\n');
                }
                k = end;
            }
        }
    }
    out
}

fn render_run(run: &[&Line], physical: &mut Vec<Option<(String, Option<String>)>>) {
    let cells = |l: &Line| -> Vec<String> {
        let mut c = l.cells.clone();
        if let Some(t) = &l.rule_tail {
            c.push(t.one_line());
        }
        c
    };
    let all: Vec<Vec<String>> = run.iter().map(|l| cells(l)).collect();
    let n = all.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0usize; n];
    for row in &all {
        for (c, cell) in row.iter().enumerate() {
            if c + 1 < row.len() {
                widths[c] = widths[c].max(char_len(cell));
            }
        }
    }
    for (line, row) in run.iter().zip(&all) {
        let pad = " ".repeat(line.indent);
        for h in &line.hoisted {
            physical.push(Some((format!("{pad}{h}"), None)));
        }
        let mut text = pad.clone();
        let mut col = line.indent;
        for (c, cell) in row.iter().enumerate() {
            if c + 1 < row.len() {
                text.push_str(cell);
                text.push_str(&" ".repeat(widths[c] - char_len(cell) + 1));
                col += widths[c] + 1;
            }
        }
        let mut lines = Vec::new();
        match (&line.rule_tail, row.last()) {
            (Some(tail), _)
                if char_len(&text) + char_len(&tail.one_line()) > MAX_WIDTH
                    && !tail.conditions.is_empty() =>
            {
                // `col` is where `where` starts.
                let cont = " ".repeat(col);
                let conds = format!("where {}", tail.conditions.join(" and "));
                if char_len(&text) + char_len(&conds) <= MAX_WIDTH {
                    lines.push(format!("{text}{conds}"));
                } else {
                    let mut it = tail.conditions.iter();
                    lines.push(format!(
                        "{text}where {}",
                        it.next().map(String::as_str).unwrap_or("")
                    ));
                    for c in it {
                        lines.push(format!("{cont}  and {c}"));
                    }
                }
                if let Some(b) = &tail.because {
                    lines.push(format!("{cont}because {b}"));
                }
            }
            (_, Some(last)) => lines.push(format!("{text}{last}")),
            (_, None) => lines.push(text),
        }
        let count = lines.len();
        for (k, l) in lines.into_iter().enumerate() {
            let trailing = if k + 1 == count {
                line.trailing.clone()
            } else {
                None
            };
            physical.push(Some((l, trailing)));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// comparison without positions

fn z() -> Span {
    Span::default()
}

fn strip_name(n: &Name) -> Name {
    Name {
        span: z(),
        ..n.clone()
    }
}

fn strip_lit(s: &StrLit) -> StrLit {
    StrLit {
        span: z(),
        ..s.clone()
    }
}

fn strip_perms(p: &[PermissionLit]) -> Vec<PermissionLit> {
    p.iter()
        .map(|p| PermissionLit {
            span: z(),
            ..p.clone()
        })
        .collect()
}

fn strip_tool(t: &ToolDecl) -> ToolDecl {
    ToolDecl {
        name: strip_name(&t.name),
        params: t.params.as_ref().map(|ps| {
            ps.iter()
                .map(|p| Param {
                    name: strip_name(&p.name),
                    optional: p.optional,
                })
                .collect()
        }),
        needs: strip_perms(&t.needs),
        span: z(),
    }
}

fn strip_part(p: &TargetPart) -> TargetPart {
    TargetPart {
        span: z(),
        ..p.clone()
    }
}

fn strip_cond(c: &Condition) -> Condition {
    let lits = |v: &[StrLit]| v.iter().map(strip_lit).collect();
    Condition {
        arg: ArgPath {
            segments: c.arg.segments.clone(),
            span: z(),
        },
        op: match &c.op {
            CondOp::Present => CondOp::Present,
            CondOp::StrEq(s) => CondOp::StrEq(strip_lit(s)),
            CondOp::StrNe(s) => CondOp::StrNe(strip_lit(s)),
            CondOp::Num(op, n, _) => CondOp::Num(*op, *n, z()),
            CondOp::In(v) => CondOp::In(lits(v)),
            CondOp::Glob(s) => CondOp::Glob(strip_lit(s)),
            CondOp::Regex(s) => CondOp::Regex(strip_lit(s)),
            CondOp::Contains(s) => CondOp::Contains(strip_lit(s)),
            CondOp::ContainsAny(v) => CondOp::ContainsAny(lits(v)),
        },
        span: z(),
    }
}

/// The file with every position cleared, for comparing two parses.
fn strip_file(f: &File) -> File {
    let items = f
        .items
        .iter()
        .map(|item| match item {
            Item::Server(s) => Item::Server(Server {
                name: strip_name(&s.name),
                tools: s.tools.iter().map(strip_tool).collect(),
                span: z(),
            }),
            Item::Tool(t) => Item::Tool(strip_tool(t)),
            Item::Agent(a) => Item::Agent(Agent {
                name: strip_name(&a.name),
                stmts: a
                    .stmts
                    .iter()
                    .map(|s| match s {
                        AgentStmt::Grant(p, _) => AgentStmt::Grant(strip_perms(p), z()),
                        AgentStmt::Default(e, _) => AgentStmt::Default(*e, z()),
                        AgentStmt::Rule(r) => AgentStmt::Rule(Rule {
                            effect: r.effect,
                            target: Target {
                                server: r.target.server.as_ref().map(strip_part),
                                tool: strip_part(&r.target.tool),
                                span: z(),
                            },
                            conditions: r.conditions.iter().map(strip_cond).collect(),
                            because: r.because.as_ref().map(strip_lit),
                            span: z(),
                        }),
                    })
                    .collect(),
                span: z(),
            }),
            Item::Test(t) => Item::Test(TestBlock {
                name: strip_lit(&t.name),
                expectations: t
                    .expectations
                    .iter()
                    .map(|e| Expectation {
                        expect: e.expect,
                        agent: strip_name(&e.agent),
                        server: e.server.as_ref().map(strip_name),
                        tool: strip_name(&e.tool),
                        args: e.args.clone(),
                        needs: e.needs.as_deref().map(strip_perms),
                        reason: e.reason.as_ref().map(strip_name),
                        span: z(),
                    })
                    .collect(),
                span: z(),
            }),
        })
        .collect();
    File { items }
}

/// True when two texts parse to the same policy, positions aside (both must parse).
///
/// # Example
///
/// ```
/// assert!(toolgate::fmt::same_policy("agent a { allow t }", "agent a {\n  allow t\n}\n"));
/// assert!(!toolgate::fmt::same_policy("agent a { allow t }", "agent a { deny t }"));
/// ```
pub fn same_policy(a: &str, b: &str) -> bool {
    let (fa, da) = parse_file(FileId(0), a);
    let (fb, db) = parse_file(FileId(0), b);
    !da.has_errors() && !db.has_errors() && strip_file(&fa) == strip_file(&fb)
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
