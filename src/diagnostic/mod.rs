//! Diagnostics: what every stage reports about a policy, and their rendering through miette.
//!
//! A [`Diagnostic`] has a stable code (`toolgate::<snake_name>`), a severity, a message in the
//! user's words, a primary span with a label, help text, and optional secondary labels. The
//! pipeline collects them in a [`Diagnostics`] aggregate so one run reports every problem.
//! Every code toolgate reports is declared once in [`code`].

pub mod code;
mod window;

pub use code::Code;

use crate::source::{SourceMap, Span};
use std::collections::HashMap;
use std::fmt;
use window::Window;

/// How serious a diagnostic is.
///
/// # Example
///
/// ```
/// use toolgate::Severity;
/// assert!(Severity::Error > Severity::Warning);
/// assert_eq!(Severity::Warning.as_str(), "warning");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The policy is usable but probably not what its author meant.
    Warning,
    /// The policy cannot be used.
    Error,
    /// A secondary location of another diagnostic (rendering only).
    Related,
}

impl Severity {
    /// `"error"` or `"warning"`.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::Severity;
    /// assert_eq!(Severity::Error.as_str(), "error");
    /// assert_eq!(Severity::Related.as_str(), "note");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Related => "note",
        }
    }
}

/// One problem found in a policy (or a failed policy test).
///
/// # Example
///
/// ```
/// use toolgate::{Diagnostic, Severity, source::Span};
/// let d = Diagnostic::error("toolgate::demo", Span::default(), "bad thing");
/// assert_eq!((d.code, d.severity), ("toolgate::demo", Severity::Error));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    /// Stable code, `toolgate::<snake_name>`.
    pub code: &'static str,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, lowercase, no trailing period.
    pub message: String,
    /// Where it is wrong.
    pub span: Span,
    /// Text attached to the primary span.
    pub label: String,
    /// How to fix it.
    pub help: Option<String>,
    /// Secondary spans (for example the first definition of a duplicate).
    pub related: Vec<(Span, String)>,
}

impl Diagnostic {
    /// A new diagnostic of a declared code, with the code's severity.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::diagnostic::code;
    /// use toolgate::{Diagnostic, Severity, source::Span};
    /// let d = Diagnostic::new(&code::UNUSED_GRANT, Span::default(), "odd thing");
    /// assert_eq!((d.code, d.severity), ("toolgate::unused_grant", Severity::Warning));
    /// ```
    pub fn new(code: &'static Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: code.severity,
            ..Diagnostic::error(code.code, span, message)
        }
    }

    /// A new error of a code declared outside toolgate (toolgate's own codes go through
    /// [`Diagnostic::new`]).
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::{Diagnostic, Severity, source::Span};
    /// let d = Diagnostic::error("toolgate::demo", Span::default(), "bad thing");
    /// assert_eq!((d.severity, d.message.as_str()), (Severity::Error, "bad thing"));
    /// ```
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            span,
            label: String::new(),
            help: None,
            related: Vec::new(),
        }
    }

    /// A new warning of a code declared outside toolgate (toolgate's own codes go through
    /// [`Diagnostic::new`]).
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::{Diagnostic, Severity, source::Span};
    /// let d = Diagnostic::warning("toolgate::demo", Span::default(), "odd thing");
    /// assert_eq!(d.severity, Severity::Warning);
    /// ```
    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message)
        }
    }

    /// Sets the label of the primary span.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::{Diagnostic, source::Span};
    /// let d = Diagnostic::error("toolgate::demo", Span::default(), "bad").with_label("here");
    /// assert_eq!(d.label, "here");
    /// ```
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    /// Sets the help text.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::{Diagnostic, source::Span};
    /// let d = Diagnostic::error("toolgate::demo", Span::default(), "bad").with_help("fix it");
    /// assert_eq!(d.help.as_deref(), Some("fix it"));
    /// ```
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Adds a secondary labelled span.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::{Diagnostic, source::Span};
    /// let d = Diagnostic::error("toolgate::demo", Span::default(), "bad")
    ///     .with_related(Span::default(), "first here");
    /// assert_eq!(d.related.len(), 1);
    /// ```
    pub fn with_related(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.related.push((span, label.into()));
        self
    }

    /// Renders the diagnostic as miette's graphical report.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::{Diagnostic, source::{SourceMap, Span}};
    /// let mut m = SourceMap::new();
    /// let id = m.add("f.policy", "agent a {}");
    /// let d = Diagnostic::error("toolgate::demo", Span::new(id, 6, 7), "bad agent name");
    /// assert!(d.render(&m, false, 80).contains("bad agent name"));
    /// ```
    pub fn render(&self, sources: &SourceMap, color: bool, width: usize) -> String {
        let mut out = String::new();
        let report = MietteView::new(self, sources);
        if handler(color, width)
            .render_report(&mut out, &report)
            .is_err()
        {
            out = format!("{}: {}\n", self.severity.as_str(), self.message);
        }
        out
    }

    /// As [`Diagnostic::render`], reusing the help footers of `footers` (help text to its
    /// rendering). miette renders the help last, from the help text and the width alone, so a
    /// report without related reports in other files is the report without its help followed
    /// by the help's footer; a policy with thousands of reports of a few lints wraps each
    /// help text once.
    fn render_reusing(
        &self,
        sources: &SourceMap,
        color: bool,
        width: usize,
        footers: &mut HashMap<String, String>,
    ) -> String {
        let mut view = MietteView::new(self, sources);
        let Some(help) = view.help.take().filter(|_| view.related.is_empty()) else {
            return self.render(sources, color, width);
        };
        let mut out = String::new();
        if handler(color, width)
            .render_report(&mut out, &view)
            .is_err()
        {
            return self.render(sources, color, width);
        }
        if let Some(footer) = footers.get(&help) {
            out.push_str(footer);
            return out;
        }
        let full = self.render(sources, color, width);
        if let Some(footer) = full.strip_prefix(&out) {
            footers.insert(help, footer.to_string());
        }
        full
    }
}

/// miette's graphical report handler, as every report is rendered.
fn handler(color: bool, width: usize) -> miette::GraphicalReportHandler {
    let theme = if color {
        miette::GraphicalTheme::unicode()
    } else {
        miette::GraphicalTheme::unicode_nocolor()
    };
    miette::GraphicalReportHandler::new_themed(theme).with_width(width)
}

/// Every diagnostic of one run, in the order found.
///
/// # Example
///
/// ```
/// use toolgate::{Diagnostic, Diagnostics, source::Span};
/// let mut ds = Diagnostics::new();
/// ds.push(Diagnostic::warning("toolgate::demo", Span::default(), "odd"));
/// assert!(!ds.has_errors());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// No diagnostics.
    ///
    /// # Example
    ///
    /// ```
    /// let ds = toolgate::Diagnostics::new();
    /// assert!(ds.is_empty());
    /// ```
    pub fn new() -> Diagnostics {
        Diagnostics::default()
    }

    /// Adds one.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::{Diagnostic, Diagnostics, source::Span};
    /// let mut ds = Diagnostics::new();
    /// ds.push(Diagnostic::error("toolgate::demo", Span::default(), "bad"));
    /// assert_eq!(ds.error_count(), 1);
    /// ```
    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }

    /// Adds many.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::{Diagnostic, Diagnostics, source::Span};
    /// let mut ds = Diagnostics::new();
    /// ds.extend(vec![Diagnostic::error("toolgate::demo", Span::default(), "bad"); 2]);
    /// assert_eq!(ds.iter().count(), 2);
    /// ```
    pub fn extend(&mut self, other: impl IntoIterator<Item = Diagnostic>) {
        self.items.extend(other);
    }

    /// True when any diagnostic is an error.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::{Diagnostic, Diagnostics, source::Span};
    /// let mut ds = Diagnostics::new();
    /// ds.push(Diagnostic::error("toolgate::demo", Span::default(), "bad"));
    /// assert!(ds.has_errors());
    /// ```
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }

    /// Number of errors.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::{Diagnostic, Diagnostics, source::Span};
    /// let mut ds = Diagnostics::new();
    /// ds.push(Diagnostic::error("toolgate::demo", Span::default(), "bad"));
    /// ds.push(Diagnostic::warning("toolgate::demo", Span::default(), "odd"));
    /// assert_eq!(ds.error_count(), 1);
    /// ```
    pub fn error_count(&self) -> usize {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    /// Number of warnings.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::{Diagnostic, Diagnostics, source::Span};
    /// let mut ds = Diagnostics::new();
    /// ds.push(Diagnostic::warning("toolgate::demo", Span::default(), "odd"));
    /// assert_eq!((ds.warning_count(), ds.error_count()), (1, 0));
    /// ```
    pub fn warning_count(&self) -> usize {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .count()
    }

    /// True when there is nothing.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::{Diagnostic, Diagnostics, source::Span};
    /// let mut ds = Diagnostics::new();
    /// assert!(ds.is_empty());
    /// ds.push(Diagnostic::warning("toolgate::demo", Span::default(), "odd"));
    /// assert!(!ds.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The diagnostics, sorted by file and position for stable output.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::{Diagnostic, Diagnostics, source::{FileId, Span}};
    /// let mut ds = Diagnostics::new();
    /// ds.push(Diagnostic::error("toolgate::demo", Span::new(FileId(0), 9, 10), "second"));
    /// ds.push(Diagnostic::error("toolgate::demo", Span::new(FileId(0), 1, 2), "first"));
    /// assert_eq!(ds.sorted()[0].message, "first");
    /// ```
    pub fn sorted(&self) -> Vec<&Diagnostic> {
        let mut v: Vec<&Diagnostic> = self.items.iter().collect();
        v.sort_by_key(|d| (d.span.file, d.span.start, d.span.end));
        v
    }

    /// Iterates in the order found.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::{Diagnostic, Diagnostics, source::{FileId, Span}};
    /// let mut ds = Diagnostics::new();
    /// ds.push(Diagnostic::error("toolgate::demo", Span::new(FileId(0), 9, 10), "second"));
    /// ds.push(Diagnostic::error("toolgate::demo", Span::new(FileId(0), 1, 2), "first"));
    /// assert_eq!(ds.iter().next().unwrap().message, "second");
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter()
    }

    /// Renders every diagnostic (sorted) as miette reports.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::{Diagnostic, Diagnostics, source::{SourceMap, Span}};
    /// let mut m = SourceMap::new();
    /// let id = m.add("f.policy", "agent a {}");
    /// let mut ds = Diagnostics::new();
    /// ds.push(Diagnostic::warning("toolgate::demo", Span::new(id, 6, 7), "odd name"));
    /// assert!(ds.render(&m, false, 80).contains("odd name"));
    /// ```
    pub fn render(&self, sources: &SourceMap, color: bool, width: usize) -> String {
        let mut footers = HashMap::new();
        self.sorted()
            .into_iter()
            .map(|d| d.render_reusing(sources, color, width, &mut footers))
            .collect()
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

/// A policy that could not be loaded: its diagnostics and the sources they point into.
///
/// # Example
///
/// ```
/// let err = toolgate::load::engine_from_str("p.policy", "agent a { grant *:read }").unwrap_err();
/// assert!(err.diagnostics.has_errors());
/// assert!(err.to_string().contains("p.policy"));
/// ```
#[derive(Debug, Clone)]
pub struct PolicyError {
    /// What was found (at least one error).
    pub diagnostics: Diagnostics,
    /// The files the spans point into.
    pub sources: SourceMap,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.diagnostics.render(&self.sources, false, 100))
    }
}

impl std::error::Error for PolicyError {}

/// Adapter presenting a [`Diagnostic`] to miette's renderer.
#[derive(Debug)]
struct MietteView<'a> {
    message: String,
    code: &'static str,
    severity: Severity,
    help: Option<String>,
    source: Window<'a>,
    labels: Vec<miette::LabeledSpan>,
    related: Vec<MietteView<'a>>,
}

impl<'a> MietteView<'a> {
    fn new(d: &Diagnostic, sources: &'a SourceMap) -> MietteView<'a> {
        let file = sources.file(d.span.file);
        let mut labels = vec![miette::LabeledSpan::new_primary_with_span(
            (!d.label.is_empty()).then(|| d.label.clone()),
            d.span.miette(),
        )];
        let mut related = Vec::new();
        for (span, label) in &d.related {
            if span.file == d.span.file {
                labels.push(miette::LabeledSpan::new_with_span(
                    Some(label.clone()),
                    span.miette(),
                ));
            } else {
                let other = sources.file(span.file);
                related.push(MietteView {
                    message: label.clone(),
                    code: d.code,
                    severity: Severity::Related,
                    help: None,
                    source: Window::new(other),
                    labels: vec![miette::LabeledSpan::new_primary_with_span(
                        Some(label.clone()),
                        span.miette(),
                    )],
                    related: Vec::new(),
                });
            }
        }
        MietteView {
            message: d.message.clone(),
            code: d.code,
            severity: d.severity,
            help: d.help.clone(),
            source: Window::new(file),
            labels,
            related,
        }
    }
}

impl fmt::Display for MietteView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for MietteView<'_> {}

impl miette::Diagnostic for MietteView<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.code))
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Related => miette::Severity::Advice,
        })
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn miette::Diagnostic> + 'a>> {
        if self.related.is_empty() {
            return None;
        }
        Some(Box::new(
            self.related.iter().map(|r| r as &dyn miette::Diagnostic),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_sharing_a_help_render_as_they_do_alone() {
        let mut m = SourceMap::new();
        let a = m.add(
            "a.policy",
            "agent a {\n  allow t where p matches re\"x-1\"\n  allow t where p matches re\"x-10\"\n}\n",
        );
        let b = m.add("b.policy", "agent b {}\n");
        let help = "anchor the regex with `^` and `$` (`re\"^...$\"`), or use a glob, which always matches the whole value";
        let mut ds = Diagnostics::new();
        let first = Span::new(a, 12, 44);
        let second = Span::new(a, 47, 80);
        ds.push(Diagnostic::warning(code::UNANCHORED_REGEX.code, first, "first").with_help(help));
        ds.push(
            Diagnostic::warning(
                code::UNANCHORED_REGEX.code,
                second,
                "second, related on this file",
            )
            .with_help(help)
            .with_related(first, "this one"),
        );
        ds.push(
            Diagnostic::warning(
                code::UNANCHORED_REGEX.code,
                second,
                "third, related in another file",
            )
            .with_help(help)
            .with_related(Span::new(b, 0, 5), "there"),
        );
        ds.push(Diagnostic::warning(
            code::UNANCHORED_REGEX.code,
            first,
            "no help",
        ));
        ds.push(
            Diagnostic::warning(code::UNANCHORED_REGEX.code, second, "other help")
                .with_help("short"),
        );
        for color in [false, true] {
            for width in [40, 100] {
                let alone: String = ds
                    .sorted()
                    .into_iter()
                    .map(|d| d.render(&m, color, width))
                    .collect();
                assert_eq!(ds.render(&m, color, width), alone);
                assert_eq!(alone.matches("help:").count(), 4);
            }
        }
    }
}
