//! The printer: walks a parsed file and lays out each statement as a line of pieces (cells to align, comments, breaks).

use super::*;

/// What a line holds, for alignment: lines of one kind in a run are aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Plain,
    Tool,
    Rule,
    Expect,
}

/// One statement's line(s) before alignment.
#[derive(Debug, Clone)]
pub(super) struct Line {
    pub(super) indent: usize,
    pub(super) kind: Kind,
    pub(super) cells: Vec<String>,
    /// For rules: the conditions and `because`, which may be broken over several lines.
    pub(super) rule_tail: Option<RuleTail>,
    /// Comments written inside the statement, moved before it.
    pub(super) hoisted: Vec<String>,
    pub(super) trailing: Option<String>,
}

#[derive(Debug, Clone)]
pub(super) struct RuleTail {
    pub(super) conditions: Vec<String>,
    pub(super) because: Option<String>,
}

impl RuleTail {
    pub(super) fn one_line(&self) -> String {
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
pub(super) enum Piece {
    Blank,
    Comment { indent: usize, text: String },
    Line(Line),
}

/// A source range a printed line stands for, used to place comments.
#[derive(Debug, Clone, Copy)]
pub(super) struct Anchor {
    pub(super) start: usize,
    pub(super) end: usize,
}

pub(super) struct Printer<'t> {
    pub(super) text: &'t str,
    pub(super) comments: Vec<Comment>,
    /// Index of the next comment not yet placed.
    pub(super) next_comment: usize,
    /// End of the last thing placed (anchor or comment), for blank-line detection.
    pub(super) last_end: usize,
    pub(super) pieces: Vec<Piece>,
    /// True right after a block's opening line (no blank line goes there).
    pub(super) after_open: bool,
}

pub(super) fn char_len(s: &str) -> usize {
    s.chars().count()
}

impl<'t> Printer<'t> {
    pub(super) fn new(text: &'t str) -> Printer<'t> {
        Printer {
            text,
            comments: comments(text),
            next_comment: 0,
            last_end: 0,
            pieces: Vec::new(),
            after_open: true,
        }
    }

    pub(super) fn slice(&self, span: Span) -> &'t str {
        self.text.get(span.start..span.end).unwrap_or("")
    }

    pub(super) fn blank_between(&self, from: usize, to: usize) -> bool {
        self.text
            .get(from.min(to)..to)
            .is_some_and(|gap| gap.matches('\n').count() >= 2)
    }

    pub(super) fn push_blank(&mut self) {
        if !self.after_open && !matches!(self.pieces.last(), None | Some(Piece::Blank)) {
            self.pieces.push(Piece::Blank);
        }
    }

    /// Places the comments that precede `anchor` (own-line comments at `indent`), then the
    /// line itself with the comments inside it hoisted and a trailing comment attached.
    pub(super) fn place(&mut self, anchor: Anchor, mut line: Line, closing: bool) {
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
    pub(super) fn finish(&mut self) {
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

    pub(super) fn line(indent: usize, kind: Kind, cells: Vec<String>) -> Line {
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
    pub(super) fn open_brace(&self, from: usize) -> usize {
        let bytes = self.text.as_bytes();
        let mut i = from;
        let in_line = |i: usize| bytes.get(i).is_some_and(|&b| b != b'\n');
        while let Some(&b) = bytes.get(i) {
            match b {
                b'{' => return i + 1,
                b'#' => {
                    while in_line(i) {
                        i += 1;
                    }
                }
                b'/' if bytes.get(i + 1) == Some(&b'/') => {
                    while in_line(i) {
                        i += 1;
                    }
                }
                _ => i += 1,
            }
        }
        from
    }

    pub(super) fn header(&mut self, indent: usize, start: usize, name_end: usize, head: String) {
        let end = self.open_brace(name_end);
        self.place(
            Anchor { start, end },
            Printer::line(indent, Kind::Plain, vec![head]),
            false,
        );
        self.after_open = true;
    }

    pub(super) fn closing(&mut self, indent: usize, span: Span) {
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

    pub(super) fn file(mut self, file: &File) -> String {
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

    pub(super) fn tool(&mut self, indent: usize, t: &ToolDecl) {
        let mut head = format!("tool {}", self.slice(t.name.span));
        if let Some(params) = &t.params {
            let ps: Vec<String> = params
                .iter()
                .map(|p| {
                    let ty = p.ty.as_ref().map_or(String::new(), type_text);
                    format!(
                        "{}{}{ty}",
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

    pub(super) fn agent_stmt(&mut self, stmt: &AgentStmt) {
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

    pub(super) fn condition(&self, c: &Condition) -> String {
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
            CondOp::Shell(s) => format!("matches shell {}", self.slice(s.span)),
            CondOp::Contains(s) => format!("contains {}", self.slice(s.span)),
            CondOp::ContainsAny(items) => format!("contains any {}", list(items)),
        };
        format!("{arg} {op}")
    }

    pub(super) fn expectation(&mut self, e: &Expectation) {
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

/// `: array<string>`: a declared type, normalized spacing, brackets balanced.
fn type_text(t: &TypeExpr) -> String {
    let words: Vec<&str> = t.words.iter().map(|w| w.text.as_str()).collect();
    format!(
        ": {}{}",
        words.join("<"),
        ">".repeat(words.len().saturating_sub(1))
    )
}
