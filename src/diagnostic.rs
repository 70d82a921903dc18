//! Diagnostics: what every stage reports about a policy, and their rendering through miette.
//!
//! A [`Diagnostic`] has a stable code (`toolgate::<snake_name>`), a severity, a message in the
//! user's words, a primary span with a label, help text, and optional secondary labels. The
//! pipeline collects them in a [`Diagnostics`] aggregate so one run reports every problem.

use crate::source::{SourceMap, Span};
use std::fmt;

/// How serious a diagnostic is.
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
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Related => "note",
        }
    }
}

/// One problem found in a policy (or a failed policy test).
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
    /// A new error.
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

    /// A new warning.
    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message)
        }
    }

    /// Sets the label of the primary span.
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    /// Sets the help text.
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Adds a secondary labelled span.
    pub fn with_related(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.related.push((span, label.into()));
        self
    }

    /// Renders the diagnostic as miette's graphical report.
    pub fn render(&self, sources: &SourceMap, color: bool, width: usize) -> String {
        let theme = if color {
            miette::GraphicalTheme::unicode()
        } else {
            miette::GraphicalTheme::unicode_nocolor()
        };
        let handler = miette::GraphicalReportHandler::new_themed(theme).with_width(width);
        let mut out = String::new();
        let report = MietteView::new(self, sources);
        if handler.render_report(&mut out, &report).is_err() {
            out = format!("{}: {}\n", self.severity.as_str(), self.message);
        }
        out
    }
}

/// Every diagnostic of one run, in the order found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// No diagnostics.
    pub fn new() -> Diagnostics {
        Diagnostics::default()
    }

    /// Adds one.
    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }

    /// Adds many.
    pub fn extend(&mut self, other: impl IntoIterator<Item = Diagnostic>) {
        self.items.extend(other);
    }

    /// True when any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }

    /// Number of errors.
    pub fn error_count(&self) -> usize {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    /// Number of warnings.
    pub fn warning_count(&self) -> usize {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .count()
    }

    /// True when there is nothing.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The diagnostics, sorted by file and position for stable output.
    pub fn sorted(&self) -> Vec<&Diagnostic> {
        let mut v: Vec<&Diagnostic> = self.items.iter().collect();
        v.sort_by_key(|d| (d.span.file, d.span.start, d.span.end));
        v
    }

    /// Iterates in the order found.
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter()
    }

    /// Renders every diagnostic (sorted) as miette reports.
    pub fn render(&self, sources: &SourceMap, color: bool, width: usize) -> String {
        self.sorted()
            .into_iter()
            .map(|d| d.render(sources, color, width))
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
struct MietteView {
    message: String,
    code: &'static str,
    severity: Severity,
    help: Option<String>,
    source: miette::NamedSource<String>,
    labels: Vec<miette::LabeledSpan>,
    related: Vec<MietteView>,
}

impl MietteView {
    fn new(d: &Diagnostic, sources: &SourceMap) -> MietteView {
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
                    source: miette::NamedSource::new(other.name.clone(), other.text.to_string()),
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
            source: miette::NamedSource::new(file.name.clone(), file.text.to_string()),
            labels,
            related,
        }
    }
}

impl fmt::Display for MietteView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for MietteView {}

impl miette::Diagnostic for MietteView {
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
