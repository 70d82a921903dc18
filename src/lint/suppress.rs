//! Suppression comments: `# toolgate: allow(<lint_name>, ...)` on the line before a statement
//! silences those warnings for the statement (a rule, a grant, a tool, a test expectation,
//! or a whole block when it precedes `agent`, `server` or `test`). A trailing comment on the
//! statement's first line works too.
//!
//! Comments are read from the source text (the grammar drops them); the statement a comment
//! applies to is found through the syntax tree's spans.

use super::registry;
use crate::diagnostic::{code, Diagnostic, Diagnostics, Severity};
use crate::resolve::suggest::did_you_mean;
use crate::source::{FileId, SourceMap, Span};
use crate::syntax::ast::{self, AgentStmt, Item};
use std::collections::HashMap;

/// One lint name in a suppression comment.
#[derive(Debug, Clone)]
struct Named {
    name: String,
    span: Span,
    used: bool,
}

/// One suppression comment.
#[derive(Debug, Clone)]
struct Entry {
    /// The statement it applies to; `None` when no statement follows it.
    covers: Option<Span>,
    names: Vec<Named>,
}

/// The suppression comments of a policy.
#[derive(Debug, Clone, Default)]
pub struct Suppressions {
    entries: Vec<Entry>,
}

pub use crate::syntax::literal::comment_start;

/// The spans of every statement a suppression can apply to.
fn statements(files: &[ast::File]) -> Vec<Span> {
    let mut out = Vec::new();
    for item in files.iter().flat_map(|f| &f.items) {
        match item {
            Item::Server(s) => {
                out.push(s.span);
                out.extend(s.tools.iter().map(|t| t.span));
            }
            Item::Tool(t) => out.push(t.span),
            Item::Agent(a) => {
                out.push(a.span);
                out.extend(a.stmts.iter().map(|s| match s {
                    AgentStmt::Grant(_, span) | AgentStmt::Default(_, span) => *span,
                    AgentStmt::Rule(r) => r.span,
                }));
            }
            Item::Test(t) => {
                out.push(t.span);
                out.extend(t.expectations.iter().map(|e| e.span));
            }
        }
    }
    out
}

/// Parses `allow(a, b)` after `toolgate:`; returns each name with its byte range in `text`.
fn parse_allow(text: &str) -> Option<Vec<(String, usize, usize)>> {
    let rest = text.trim_start();
    let mut pos = text.len() - rest.len();
    let rest = rest.strip_prefix("allow")?;
    pos += 5;
    let trimmed = rest.trim_start();
    pos += rest.len() - trimmed.len();
    let inner = trimmed.strip_prefix('(')?;
    pos += 1;
    let close = inner.find(')')?;
    let mut names = Vec::new();
    let mut at = pos;
    for part in inner[..close].split(',') {
        let lead = part.len() - part.trim_start().len();
        let name = part.trim();
        if name.is_empty() {
            return None;
        }
        names.push((name.to_string(), at + lead, at + lead + name.len()));
        at += part.len() + 1;
    }
    Some(names)
}

impl Suppressions {
    /// Reads the suppression comments of every file; returns them and an error for each
    /// unknown lint name or malformed `toolgate:` comment.
    pub fn collect(sources: &SourceMap, files: &[ast::File]) -> (Suppressions, Vec<Diagnostic>) {
        let mut first_on_line: HashMap<(FileId, usize), Span> = HashMap::new();
        let mut spans = statements(files);
        spans.sort_by_key(|s| (s.file, s.start));
        for s in spans {
            let line = sources.file(s.file).line_col(s.start).0;
            first_on_line.entry((s.file, line)).or_insert(s);
        }
        let mut entries = Vec::new();
        let mut errors = Vec::new();
        for (id, file) in sources.files() {
            let text: &str = &file.text;
            let lines: Vec<(usize, &str)> = text
                .split('\n')
                .scan(0usize, |off, l| {
                    let start = *off;
                    *off += l.len() + 1;
                    Some((start, l))
                })
                .collect();
            for (i, &(start, line)) in lines.iter().enumerate() {
                let Some(c) = comment_start(line) else {
                    continue;
                };
                let marker = if line[c..].starts_with('#') { 1 } else { 2 };
                let body = &line[c + marker..];
                let lead = body.len() - body.trim_start().len();
                let Some(after) = body.trim_start().strip_prefix("toolgate:") else {
                    continue;
                };
                let base = start + c + marker + lead + "toolgate:".len();
                let Some(names) = parse_allow(after) else {
                    let end = start + line.trim_end().len();
                    errors.push(
                        Diagnostic::new(
                            &code::UNKNOWN_LINT,
                            Span::new(id, start + c, end.max(start + c)),
                            "malformed suppression comment",
                        )
                        .with_label("not `toolgate: allow(NAME, ...)`")
                        .with_help("write `# toolgate: allow(lint_name)`, naming the warnings to silence for the next statement (see docs/lints.md)"),
                    );
                    continue;
                };
                // The statement: on this line if code precedes the comment, else on the next
                // line that is neither blank nor only a comment.
                let target_line = if line[..c].trim().is_empty() {
                    lines
                        .iter()
                        .skip(i + 1)
                        .position(|(_, l)| {
                            let t = l.trim();
                            !t.is_empty() && !t.starts_with('#') && !t.starts_with("//")
                        })
                        .map(|k| i + 1 + k + 1)
                } else {
                    Some(i + 1)
                };
                let covers = target_line.and_then(|l| first_on_line.get(&(id, l)).copied());
                let mut named = Vec::new();
                for (name, s, e) in names {
                    let span = Span::new(id, base + s, base + e);
                    let bare = name.strip_prefix("toolgate::").unwrap_or(&name).to_string();
                    match registry::by_name(&bare) {
                        Some(l) if l.severity == Severity::Warning => named.push(Named {
                            name: bare,
                            span,
                            used: false,
                        }),
                        Some(l) => errors.push(
                            Diagnostic::new(
                                &code::UNKNOWN_LINT,
                                span,
                                format!("`{}` is an error and cannot be silenced", l.name),
                            )
                            .with_label("an error, not a warning")
                            .with_help("fix the problem instead; only warnings can be silenced"),
                        ),
                        None => {
                            let help = match did_you_mean(
                                &bare,
                                registry::silenceable().map(|l| l.name),
                            ) {
                                Some(s) => format!("did you mean `{s}`?"),
                                None => "docs/lints.md lists every lint by name".to_string(),
                            };
                            errors.push(
                                Diagnostic::new(
                                    &code::UNKNOWN_LINT,
                                    span,
                                    format!("unknown lint `{bare}`"),
                                )
                                .with_label("not a lint name")
                                .with_help(help),
                            )
                        }
                    }
                }
                entries.push(Entry {
                    covers,
                    names: named,
                });
            }
        }
        (Suppressions { entries }, errors)
    }

    /// Removes the warnings a suppression comment silences, and remembers which names were
    /// used.
    pub fn apply(&mut self, diags: Diagnostics) -> Diagnostics {
        let mut kept = Diagnostics::new();
        for d in diags {
            if d.severity == Severity::Warning && self.silence(&d) {
                continue;
            }
            kept.push(d);
        }
        kept
    }

    fn silence(&mut self, d: &Diagnostic) -> bool {
        let name = d.code.strip_prefix("toolgate::").unwrap_or(d.code);
        let mut hit = false;
        for e in &mut self.entries {
            let Some(c) = e.covers else {
                continue;
            };
            if c.file != d.span.file
                || d.span.start < c.start
                || d.span.start >= c.end.max(c.start + 1)
            {
                continue;
            }
            for n in e.names.iter_mut().filter(|n| n.name == name) {
                n.used = true;
                hit = true;
            }
        }
        hit
    }

    /// A warning for every name that silenced nothing.
    pub fn unused(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for e in &self.entries {
            for n in e.names.iter().filter(|n| !n.used) {
                let (message, help) = match e.covers {
                    Some(_) => (
                        format!("`{}` is silenced here, but the next statement does not trigger it", n.name),
                        "remove it from the comment, or move the comment to the line before the statement it is meant for",
                    ),
                    None => (
                        format!("`{}` is silenced here, but no statement follows the comment", n.name),
                        "put the comment on the line before the statement it is meant for",
                    ),
                };
                out.push(
                    Diagnostic::new(&code::UNUSED_SUPPRESSION, n.span, message)
                        .with_label("silences nothing")
                        .with_help(help),
                );
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::parse_allow;

    #[test]
    fn parses_names_with_positions() {
        let text = " allow( a ,b) why";
        let names = parse_allow(text).unwrap();
        assert_eq!(names.len(), 2);
        assert_eq!(&text[names[0].1..names[0].2], "a");
        assert_eq!(&text[names[1].1..names[1].2], "b");
        assert!(parse_allow(" allow(a").is_none());
        assert!(parse_allow(" deny(a)").is_none());
        assert!(parse_allow(" allow()").is_none());
    }
}
